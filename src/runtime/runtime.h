/* The node's container runtime layer (what CRI-O or containerd's CRI plugin
 * is to kubelet). The node agent creates one struct sk_runtime and then uses
 * sandbox.h (pod sandboxes: namespaces, CNI), container.h (containers through
 * conmon and an OCI runtime), oci.h (the config.json) and crilog.h (logs).
 *
 * On-disk layout (all state survives an agent restart; run_dir does not
 * survive a reboot, neither do the namespaces and containers it describes):
 *   <run_dir>/netns/<sandbox>    persistent network namespace (nsfs bind mount)
 *   <run_dir>/ipc/<sandbox>      persistent IPC namespace
 *   <run_dir>/uts/<sandbox>      persistent UTS namespace (hostname set)
 *   <run_dir>/sandboxes/<id>/    sandbox.json, hosts, resolv.conf, hostname, shm/ (tmpfs)
 *   <run_dir>/containers/<id>/   container.json, config.json (bundle), conmon files
 *   <run_dir>/exits/<id>         conmon exit files
 *   <run_dir>/oci/<handler>/     the OCI runtime's --root
 *   <run_dir>/bin/crun-hybrid    crun wrapper for hybrid cgroup hosts (see below)
 *   <data_dir>/cni/networks/     host-local IPAM allocations
 *
 * Runtime handlers ("RuntimeClass" handlers): "crun" and "runc". crun is the
 * default where it is installed. On a hybrid cgroup host crun refuses to run
 * ("cgroups in hybrid mode not supported"); there every crun invocation that
 * touches cgroups (create through conmon, exec, delete) goes through
 * <run_dir>/bin/crun-hybrid, which enters a private mount namespace
 * (unshare -m), lazily unmounts /sys/fs/cgroup/unified there and execs crun,
 * so crun sees a plain v1 host; start, state and kill call crun directly.
 * The host mount table is untouched. On v1 and v2 hosts crun runs as is. */
#ifndef SK_RUNTIME_RUNTIME_H
#define SK_RUNTIME_RUNTIME_H

#include "runtime/cgroup.h"
#include "util/error.h"

struct sk_runtime_opts {
	const char *run_dir;         /* e.g. /run/skiff/<node>; required */
	const char *data_dir;        /* e.g. /var/lib/skiff/<node>; required */
	const char *pod_cidr;        /* the node's pod CIDR, e.g. "10.42.0.0/24"; required for pod networking */
	const char *bridge;          /* bridge name; NULL: "skiff0" */
	const char *cni_bin_dir;     /* NULL: "/usr/lib/cni" */
	const char *conmon;          /* NULL: found in PATH (/usr/bin/conmon) */
	const char *default_handler; /* NULL: "crun" if installed, else "runc" */
};

struct sk_runtime_handler {
	char *name;   /* "crun", "runc" */
	char *binary; /* the real runtime binary */
	char *exec;   /* what to execute: binary or a wrapper script */
	char *root;   /* --root state directory */
};

struct sk_runtime {
	char *run_dir, *data_dir, *pod_cidr, *bridge, *cni_bin_dir, *conmon;
	enum sk_cgroup_mode cgroup_mode;
	struct sk_runtime_handler handlers[2];
	int n_handlers;
	const char *default_handler; /* points into handlers[] */
};

/* Detects cgroups and runtimes, creates the directories and the crun wrapper,
 * logs the default handler. Release with sk_runtime_release. */
int sk_runtime_init(struct sk_runtime *rt, const struct sk_runtime_opts *opts, sk_error_t *err);
void sk_runtime_release(struct sk_runtime *rt);
/* Sets the pod CIDR of a runtime made without one (the agent learns it from
 * its Node), before any sandbox is made. */
void sk_runtime_set_pod_cidr(struct sk_runtime *rt, const char *cidr);

/* The handler called `name` (NULL or "": the default), or NULL with err
 * (SK_ENOTFOUND). Borrowed from rt. */
const struct sk_runtime_handler *sk_runtime_handler(const struct sk_runtime *rt, const char *name, sk_error_t *err);

#endif
