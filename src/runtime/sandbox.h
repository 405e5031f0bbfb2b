/* Pod sandboxes without a pause process.
 *
 * A sandbox is a set of persistent namespaces kept alive by nsfs bind mounts
 * (network <run_dir>/netns/<id>, IPC <run_dir>/ipc/<id>, UTS <run_dir>/uts/<id>,
 * hostname set to the pod's) plus a directory <run_dir>/sandboxes/<id>/ with
 * the files every container of the pod bind-mounts: hosts, resolv.conf (the
 * host's minus loopback nameservers, or the pod's DNS config), hostname, and
 * shm/ (a 64 MiB tmpfs shared as /dev/shm). The network namespace is attached
 * to the node bridge with CNI (cni.h). sandbox.json in that directory records
 * everything needed to list, re-adopt and remove the sandbox after an agent
 * restart; sk_sandbox_remove works from the id alone and is idempotent. */
#ifndef SK_RUNTIME_SANDBOX_H
#define SK_RUNTIME_SANDBOX_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "runtime/cgroup.h"
#include "runtime/runtime.h"
#include "util/error.h"

struct sk_sandbox_config {
	const char *id;            /* unique on the node, [A-Za-z0-9_.-]; required */
	const char *pod_name;      /* required */
	const char *pod_namespace; /* required */
	const char *pod_uid;       /* required */
	const char *hostname;      /* NULL: pod_name */
	enum sk_qos qos;           /* picks the pod cgroup parent */
	bool host_network;         /* no network/UTS namespace, no CNI; host's hosts file */
	/* "<subdomain>.<ns>.svc.<domain>": hosts maps the pod IP to hostname.host_domain too; may be NULL. */
	const char *host_domain;
	/* DNS, NULL-terminated; all NULL and !dns_given: the host's resolv.conf
	 * minus loopback nameservers. With dns_given exactly these (none: an
	 * empty file). */
	bool dns_given;
	const char *const *dns_servers;
	const char *const *dns_searches;
	const char *const *dns_options;
	/* Extra /etc/hosts lines ("10.0.0.1\tfoo bar"), NULL-terminated; may be NULL. */
	const char *const *host_aliases;
	/* Attach the network (CNI ADD) in a background thread, so that the
	 * caller can prepare containers meanwhile; sk_sandbox_network_wait
	 * before starting a container or reading ip. */
	bool network_async;
};

struct sk__sandbox_net;

struct sk_sandbox {
	char *id, *pod_name, *pod_namespace, *pod_uid, *hostname;
	char *host_domain; /* NULL without a subdomain */
	enum sk_qos qos;
	bool host_network;
	char *ip;         /* pod IP, NULL with host_network */
	char *netns_path; /* NULL with host_network */
	char *ipc_path;
	char *uts_path; /* NULL with host_network */
	char *dir;      /* the sandbox directory */
	char *hosts_path, *resolv_path, *hostname_path, *shm_path;
	char *cgroup_parent; /* "/kubepods/<qos>/pod<uid>" */
	int64_t created_ns;
	json_t *cni_result;          /* owned; NULL with host_network */
	struct sk__sandbox_net *net; /* network attaching in the background, or NULL */
};

/* Creates namespaces, files and the network. On failure everything created
 * is removed again. *out is freed with sk_sandbox_free. */
int sk_sandbox_create(struct sk_runtime *rt, const struct sk_sandbox_config *cfg, struct sk_sandbox **out,
		      sk_error_t *err);
/* Waits for a background network attachment (no-op without one). On
 * failure the sandbox is unusable: remove it (after its containers). */
int sk_sandbox_network_wait(struct sk_sandbox *sb, sk_error_t *err);
/* Loads sandbox.json of `id` (SK_ENOTFOUND when absent). */
int sk_sandbox_load(struct sk_runtime *rt, const char *id, struct sk_sandbox **out, sk_error_t *err);
/* Lists sandboxes recorded on disk: *out is a malloc'd array of *n pointers;
 * free each with sk_sandbox_free and the array with free. Unreadable entries
 * are skipped with a warning. */
int sk_sandbox_list(struct sk_runtime *rt, struct sk_sandbox ***out, size_t *n, sk_error_t *err);
/* Checks the network attachment with CNI CHECK. */
int sk_sandbox_check(struct sk_runtime *rt, const struct sk_sandbox *sb, sk_error_t *err);
/* CNI DEL, unmounts and deletes the namespaces, shm and the directory, and
 * removes the pod cgroup when no container uses it any more. Safe to call
 * twice, for a half-created sandbox, or for an id with nothing left. The
 * containers of the sandbox must have been removed first. */
int sk_sandbox_remove(struct sk_runtime *rt, const char *id, sk_error_t *err);
void sk_sandbox_free(struct sk_sandbox *sb);

#endif
