/* OCI runtime-spec config.json for a container of a pod sandbox.
 *
 * sk_oci_spec() turns an sk_container_config into the spec containerd's CRI
 * plugin would produce: containerd's default capabilities adjusted by
 * add/drop, RuntimeDefault seccomp (an allowlist in the spirit of moby's
 * default profile, from a C table), containerd's masked and read-only paths,
 * the default mounts plus the sandbox's /etc/hosts, /etc/resolv.conf,
 * /etc/hostname and /dev/shm, the sandbox's net/ipc/uts namespaces joined by
 * path with new pid and mount namespaces, the cgroup
 * <pod cgroup>/<container id> (cgroup.h), cpu shares/quota, memory and pids
 * limits (memory+swap = memory where swap accounting exists, so a limit means
 * OOM rather than swapping, like kubelet's NoSwap), the default device
 * allowlist plus caller devices, and the
 * io.kubernetes.* annotations. */
#ifndef SK_RUNTIME_OCI_H
#define SK_RUNTIME_OCI_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "runtime/sandbox.h"
#include "util/error.h"

enum sk_propagation {
	SK_PROPAGATION_PRIVATE = 0,       /* rprivate */
	SK_PROPAGATION_HOST_TO_CONTAINER, /* rslave */
	SK_PROPAGATION_BIDIRECTIONAL,     /* rshared */
};

/* A volume: a bind mount of host_path, or a tmpfs when `tmpfs` is set. */
struct sk_mount {
	const char *container_path; /* absolute */
	const char *host_path;      /* bind source; ignored for tmpfs */
	bool readonly;
	bool tmpfs;         /* emptyDir medium Memory */
	int64_t tmpfs_size; /* bytes, 0: unlimited */
	enum sk_propagation propagation;
};

/* A device node made available in the container (e.g. /dev/nvidia0). */
struct sk_device {
	const char *path; /* path inside the container */
	char type;        /* 'c' or 'b' */
	int64_t major, minor;
	const char *permissions; /* cgroup access, e.g. "rwm"; NULL: "rwm" */
	uint32_t file_mode;      /* 0: 0666 */
};

struct sk_keyval {
	const char *key;
	const char *value;
};

enum sk_seccomp {
	SK_SECCOMP_RUNTIME_DEFAULT = 0, /* the default allowlist */
	SK_SECCOMP_UNCONFINED,
};

struct sk_container_config {
	const char *id;                   /* container id, unique on the node; required */
	const char *name;                 /* container name in the pod; required */
	uint32_t attempt;                 /* restart count */
	const struct sk_sandbox *sandbox; /* required; borrowed */
	const char *rootfs;               /* root filesystem path (from the image service); required */
	const char *const *args;          /* argv, already merged with the image entrypoint/cmd; required */
	const char *const *env;           /* "K=V", NULL-terminated; may be NULL */
	const char *const *extra_env;     /* more "K=V" appended (GPU code); may be NULL */
	const char *cwd;                  /* NULL: "/" */
	uint32_t uid, gid;
	const uint32_t *additional_gids;
	size_t n_additional_gids;
	const char *const *cap_add; /* "NET_ADMIN" or "CAP_NET_ADMIN"; "ALL" allowed */
	const char *const *cap_drop;
	bool privileged;
	bool readonly_rootfs;
	bool no_new_privileges; /* allowPrivilegeEscalation=false */
	enum sk_seccomp seccomp;
	const char *termination_log_path;     /* host file bind-mounted at termination_message_path */
	const char *termination_message_path; /* NULL: "/dev/termination-log" */
	const struct sk_mount *mounts;
	size_t n_mounts;
	const struct sk_device *devices;
	size_t n_devices;
	int64_t cpu_request_milli; /* 0: none (shares 2) */
	int64_t cpu_limit_milli;   /* 0: no quota */
	int64_t memory_limit;      /* bytes, 0: none */
	int64_t pids_limit;        /* 0: none */
	int oom_score_adj;
	const struct sk_keyval *sysctls;
	size_t n_sysctls;
	const struct sk_keyval *annotations; /* extra annotations */
	size_t n_annotations;
	const char *image_ref; /* for annotations and state */
	bool tty;              /* process.terminal: conmon holds the terminal's master */
	bool stdin_open;       /* conmon keeps a stdin for attach clients (spec.stdin) */
	bool stdin_once;       /* that stdin closes when the first attach client leaves */
	const char *pid_ns;    /* a PID namespace to join (an ephemeral container's target), or NULL */
	bool host_pid;         /* the host's PID namespace (spec.hostPID) */
	bool host_ipc;         /* the host's IPC namespace and /dev/shm (spec.hostIPC) */

	/* Used by sk_container_create (container.h), not by the spec. */
	const char *image_id; /* recorded in the container state */
	const char *handler;  /* runtime handler: "crun", "runc"; NULL: the node default */
	const char *log_path; /* CRI log file, e.g. <logdir>/<name>/<attempt>.log; required */
	int64_t log_size_max; /* conmon --log-size-max in bytes; 0: unlimited */
};

/* Builds config.json (new reference) or NULL with err. */
json_t *sk_oci_spec(const struct sk_container_config *c, sk_error_t *err);

/* kubelet's MilliCPUToShares: max(2, milli*1024/1000); 2 for 0. */
uint64_t sk_oci_cpu_shares(int64_t milli);
/* kubelet's MilliCPUToQuota with period 100000: 0 for no limit, min 1000. */
int64_t sk_oci_cpu_quota(int64_t milli);

/* The RuntimeDefault seccomp profile as OCI linux.seccomp (new reference).
 * Syscalls guarded by capabilities in moby's profile are added when the
 * capability set (CAP_* names) contains them. */
json_t *sk_oci_seccomp_default(json_t *effective_caps);

/* The process object for `runtime exec` in a container created from spec
 * (same user, env, caps, cwd as the init process) running args. New reference. */
json_t *sk_oci_exec_process(json_t *spec, const char *const *args);

#endif
