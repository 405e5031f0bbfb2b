/* Internals of the node agent shared by the files of src/agent/. */
#ifndef SK_AGENT_AGENT_INT_H
#define SK_AGENT_AGENT_INT_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "agent/agent.h"
#include "client/informer.h"
#include "agent/proxy.h"
#include "client/reflector.h"
#include "gpu/gpu.h"
#include "image/image.h"
#include "kube/object.h"
#include "runtime/container.h"
#include "runtime/runtime.h"
#include "runtime/sandbox.h"

#define SK_COMPONENT "kubelet"

enum probe_kind { PROBE_STARTUP = 0, PROBE_READINESS, PROBE_LIVENESS };
enum ctr_kind { CTR_INIT = 0, CTR_SIDECAR, CTR_REGULAR, CTR_EPHEMERAL };
/* The spec list of a container kind: spec.containers, spec.initContainers
 * or spec.ephemeralContainers. */
const char *sk__ag_ctr_list(enum ctr_kind kind);

/* Per-container state kept by a pod worker. */
struct ctr {
	char *name;
	enum ctr_kind kind;
	struct sk_container *cur;  /* latest attempt on disk, or NULL */
	struct sk_container *prev; /* the attempt before, kept for lastState and --previous */
	char *cur_msg, *prev_msg;  /* termination messages */
	uint32_t restarts;
	int64_t backoff_ms;           /* next back-off delay */
	int64_t next_start_ns;        /* realtime: no (re)start before this */
	char *wait_reason, *wait_msg; /* waiting state while no attempt runs */
	bool done;                    /* init container finished successfully */
	bool ready, started;          /* readiness, startup probe passed */
	bool poststart_done;
	int64_t probe_next_ns[3];
	int probe_ok[3], probe_fail[3];
	char *image_name, *image_id; /* as reported in status */
	bool killing;                /* liveness failure: being restarted */
};

/* One pod bound to the node. `pod` and the flags are guarded by agent->mu;
 * everything else belongs to the pod's worker thread. */
struct apod {
	struct sk_agent *a;
	char *uid, *ns, *name;
	json_t *pod;
	bool gone; /* DELETED from the API (or absent on relist) */
	bool wake;
	bool finished; /* worker returned; reaped by the housekeeper */
	bool parked;   /* worker returned, the pod stays (terminal, not deleted) */
	pthread_cond_t cond;
	pthread_t thread;

	struct sk_sandbox *sb;
	char *sb_error; /* last sandbox failure */
	struct ctr *ctrs;
	size_t nctrs;
	json_t *mounts;                   /* volume name -> {"path": host path, "tmpfs": bool} */
	char *mount_error;                /* last volume failure */
	char *reject_reason, *reject_msg; /* admission failure: the pod is Failed */
	json_t *last_status;              /* the status last written */
	char *start_time;
	char *pod_dir, *log_dir;
	bool adopted;                /* containers found on disk were taken over */
	bool admitted, released;     /* counted against allocatable (under agent->mu) */
	int64_t req_cpu, req_mem;    /* effective requests, milli-cpu and bytes */
	bool stopped;                /* terminal: containers stopped, sandbox removed */
	struct sk_container **adopt; /* extra attempts found on disk, removed at teardown */
	size_t nadopt;
	struct sk_sandbox *claim_sb; /* found on disk for this pod when it was added */
	struct sk_container **claim_c;
	size_t nclaim_c;
	int64_t t0_ns;            /* monotonic: first seen from the API (for SKIFF_TRACE) */
	int64_t pull_ns;          /* time spent pulling its images (the start SLI leaves it out) */
	bool start_observed;      /* kubelet_pod_start_sli_duration_seconds has it */
	int64_t token_refresh_at; /* wall seconds: the projected tokens are renewed then (0: none) */
};

/* One step of a pod's start with the time since the agent first saw it (SKIFF_TRACE=1). */
#define SK_POD_TRACE(p, step) \
	sk_trace("pod %s/%s: %s +%.1f ms", (p)->ns, (p)->name, step, (double)(sk_mono_ns() - (p)->t0_ns) / 1e6)

/* A pod Event waiting for the recorder thread. */
struct ag_event {
	struct ag_event *next;
	json_t *ref;
	char *type, *reason, *msg;
};

struct sk_agent {
	sk_client *c;
	sk_agent_options o;
	char *node_name, *data_dir, *run_dir, *bridge;
	char *serving_pem;           /* the HTTPS endpoint's first certificate and key from a CSR, or NULL */
	struct sk_nodecert *serving; /* rotates it (nodecert.h), or NULL */
	char *pod_cidr;              /* NULL until the Node has one; set once, by the node thread, under mu */
	char *node_ip;               /* InternalIP */
	struct sk_runtime rt;
	sk_image_store *images;
	sk_gpu *gpu;
	volatile bool node_dirty; /* push node status now (GPU health changed) */
	pthread_mutex_t mu;
	pthread_cond_t cond;
	volatile bool stopping;
	struct apod **pods;
	size_t npods, cap;
	sk_reflector *pods_refl; /* the pods bound to the node; started once the pod CIDR is known */
	bool cidr_waiting;       /* "waiting for a pod CIDR" was logged */
	struct sk_routes *routes;
	pthread_t node_thread;
	bool node_started;
	struct sk_logserver *ls;
	struct sk_agent_access *access; /* who may use the HTTPS endpoint (access.c) */
	int log_port;
	struct sk_sandbox **disk_sb; /* found on disk at start, not yet claimed */
	size_t n_disk_sb;
	struct sk_container **disk_c;
	size_t n_disk_c;
	bool listed; /* first pod list done: orphans may go */
	/* Events are recorded by one thread (in order), off the pods' paths;
	 * guarded by ev_mu. */
	pthread_mutex_t ev_mu;
	pthread_cond_t ev_cond;
	struct ag_event *ev_head, *ev_tail;
	size_t ev_n;
	bool ev_stop, ev_started;
	pthread_t ev_thread;
	int exit_fd; /* inotify on <run_dir>/exits, or -1 */
	pthread_t exit_thread;
	bool exit_started;
	int64_t backoff_base_ms, backoff_max_ms;
	char *cluster_dns, *cluster_domain, *resolv_conf; /* pods' DNS (netconf.c) */
	struct sk_dns *dns;                               /* the node-local DNS server, or NULL */
	sk_proxy *proxy;                                  /* the Service dataplane, or NULL */
	sk_informer *services;         /* for the containers' Service variables; NULL when its list failed */
	struct sk_ag_metrics *metrics; /* metrics.c: the agent's registry and families */
	sk_informer *volumes;          /* PersistentVolumes, for the local-path provisioner's reclaim (localpath.c) */
};

/* metrics.c: the agent's own registry (made at init, freed at stop) and
 * what the pod workers, the node thread and the log endpoint record. */
void sk__ag_metrics_init(struct sk_agent *a);
void sk__ag_metrics_free(struct sk_agent *a);
void sk__ag_metrics_pull(struct sk_agent *a, int64_t ns, int64_t size, int64_t fetched, bool ok);
void sk__ag_metrics_sandbox(struct sk_agent *a, const char *handler, int64_t ns, bool ok);
/* op: upstream's operation_type ("create_container", "start_container"…) */
void sk__ag_metrics_op(struct sk_agent *a, const char *op, bool ok);
void sk__ag_metrics_pod_started(struct sk_agent *a, double seconds);
void sk__ag_metrics_image_gc(struct sk_agent *a, const sk_gc_result *r);
/* The GPUs' series under dcgm-exporter's names (DCGM_FI_DEV_FB_TOTAL,
 * DCGM_FI_DEV_XID_ERRORS: the last critical XID; with samples[i] for
 * devs[i], or NULL: DCGM_FI_DEV_GPU_UTIL, _MEM_COPY_UTIL, _GPU_TEMP,
 * _POWER_USAGE, _FB_USED, _FB_FREE where the driver answered) for devs,
 * replacing the previous ones; owners: {"GPU-…": {"namespace", "pod",
 * "container"}} or NULL. Called by the collector with the module's table. */
void sk__ag_metrics_set_gpus(struct sk_agent *a, const struct sk_gpu_device *devs, const sk_gpu_sample *samples,
			     size_t n, json_t *owners);
/* /metrics/cadvisor: each pod's and running container's CPU and memory
 * under cAdvisor's names, from the Summary's cgroup readings (malloc'd). */
char *sk__ag_metrics_cadvisor(struct sk_agent *a, const char *accept, size_t *len, const char **ctype);
/* /metrics/resource: kubelet's resource metrics from the Summary. */
char *sk__ag_metrics_resource(struct sk_agent *a, const char *accept, size_t *len, const char **ctype);
/* The exposition for an Accept header (malloc'd, caller frees) and its media type. */
char *sk__ag_metrics_expose(struct sk_agent *a, const char *accept, size_t *len, const char **ctype);

/* node.c */
int sk__node_register(struct sk_agent *a, sk_error_t *err);
/* The node thread: status, lease, and (while the agent has no pod CIDR) the
 * wait for the Node's spec.podCIDR, after which it calls sk__agent_run_pods. */
void *sk__node_loop(void *arg);

/* agent.c: adopts cidr as the node's pod CIDR and starts the pods' reflector. */
int sk__agent_run_pods(struct sk_agent *a, const char *cidr, sk_error_t *err);

/* addr.c */
/* The node's InternalIP when no --node-ip is given (malloc'd). */
char *sk__ag_detect_node_ip(void);

/* routes.c: routes to the pod CIDRs of the other Nodes (flannel's host-gw:
 * "ip route replace CIDR via NODE-IP proto " SK_ROUTE_PROTO; VXLAN to nodes
 * that are not directly connected); removed again by sk__routes_stop. */
#define SK_ROUTE_PROTO "152"
struct sk_routes;
struct sk_routes *sk__routes_start(struct sk_agent *a, sk_error_t *err);
/* Stops following the Nodes; with remove, every route it made goes. */
void sk__routes_stop(struct sk_routes *r, bool remove);

/* pod.c: the worker thread of one pod. */
void *sk__pod_worker(void *arg);
void sk__apod_free(struct apod *p);
/* A snapshot of p->pod (new reference), NULL when none. */
json_t *sk__apod_get(struct apod *p, bool *gone);

/* spec.c: the runtime config of a container. The strings live in *arena. */
struct arena {
	void **p;
	size_t n, cap;
};
void *sk__ag_arena_keep(struct arena *ar, void *p);
void sk__ag_arena_release(struct arena *ar);
/* Fills cfg for container spec `cs` of pod. *reason gets a static kubelet
 * waiting reason ("CreateContainerConfigError") on failure. */
int sk__ag_container_config(struct sk_agent *a, struct apod *p, json_t *pod, json_t *cs, struct ctr *k,
			    const sk_image_info *img, const char *id, struct arena *ar, struct sk_container_config *cfg,
			    const char **reason, sk_error_t *err);
/* Resolved environment of container cs as "K=V" strings in a new JSON array. */
json_t *sk__ag_container_env(struct sk_agent *a, json_t *pod, json_t *cs, json_t *image_env, sk_error_t *err);
/* Expands $(VAR) references with env (array of "K=V"); malloc'd. */
char *sk__ag_expand_vars(const char *s, json_t *env);
/* Static "Guaranteed" / "Burstable" / "BestEffort". */
/* The value of a downward API fieldRef path; malloc'd or NULL. */
char *sk__ag_field_ref(json_t *pod, const char *path);
/* A resourceFieldRef value as a decimal string; malloc'd or NULL with err. */
char *sk__ag_resource_ref(json_t *pod, json_t *ref, const char *default_ctr, sk_error_t *err);
/* Decodes base64 text; malloc'd (NUL-terminated), length in *len. NULL on bad input. */
char *sk__ag_b64_decode(const char *s, size_t *len);

/* admit.c: 0 when the pod fits the node, else -1 with p->reject_* set. */
int sk__ag_admit(struct sk_agent *a, struct apod *p, json_t *pod);

/* volume.c */
int sk__volumes_setup(struct sk_agent *a, struct apod *p, json_t *pod, sk_error_t *err);
void sk__volumes_teardown(struct sk_agent *a, struct apod *p);
/* kubelet's token manager (pkg/kubelet/token): a projected token issued at
 * iat, expiring at exp, is renewed past 80 % of its life or 24 hours after
 * iat, whichever comes first (wall seconds). */
int64_t sk__token_refresh_at(int64_t iat, int64_t exp);
/* Writes the pod's projected volumes with service-account tokens again once
 * their tokens are due for renewal (volume.c). */
void sk__volumes_refresh(struct sk_agent *a, struct apod *p, json_t *pod);

/* access.c: kubelet's webhook authentication and authorization of the HTTPS
 * endpoint's callers (a client certificate of ca_pem or a reviewed bearer
 * token; a SubjectAccessReview for nodes/<subresource>). */
typedef struct sk_agent_access sk_agent_access;
struct MHD_Connection;
sk_agent_access *sk__access_new(const char *ca_pem, sk_error_t *err);
void sk__access_free(sk_agent_access *x);
/* 0 when the request may go on, else the HTTP status (401, 403) with why. */
int sk__access_check(struct sk_agent *a, struct MHD_Connection *conn, const char *method, const char *path, char *why,
		     size_t len);

/* localpath.c: a PVC's host directory, provisioning and binding a PV when needed. */
char *sk__localpath_claim(struct sk_agent *a, const char *ns, const char *claim, sk_error_t *err);
/* Starts the watch of PersistentVolumes that deletes this node's Released ones. */
void sk__localpath_start(struct sk_agent *a);

/* probe.c: runs one probe or hook handler; 0 success, -1 failure with msg. */
int sk__probe_run(struct sk_agent *a, struct apod *p, struct sk_container *c, json_t *handler, int timeout_s,
		  char **msg);

/* status.c */
json_t *sk__ag_pod_status(struct sk_agent *a, struct apod *p, json_t *pod);
void sk__ag_status_write(struct sk_agent *a, struct apod *p, json_t *pod, json_t *st);

/* logserver.c */
struct sk_logserver;
struct sk_logserver *sk__logserver_start(struct sk_agent *a, int *port, sk_error_t *err);
void sk__logserver_stop(struct sk_logserver *ls);
/* Serves new connections with this certificate and key (PEM) from now on. */
int sk__logserver_set_cert(struct sk_logserver *ls, const char *cert_pem, const char *key_pem, sk_error_t *err);
/* From an upgrade callback: the connection's relay gets real buffers. */
struct MHD_Connection;
struct MHD_UpgradeResponseHandle;
void sk__logserver_upgraded(struct MHD_Connection *conn, struct MHD_UpgradeResponseHandle *urh);

/* stream.c: kubelet's /exec, /attach and /portForward on the log endpoint
 * (an authorized request); answers the WebSocket upgrade or an error. */
struct MHD_Connection;
int sk__stream_serve(struct sk_agent *a, struct MHD_Connection *conn, const char *url);
/* Waits until no streaming session is left (at most timeout_ms). */
void sk__stream_wait_idle(int timeout_ms);

/* stats.c: kubelet's Summary (stats/v1alpha1) of the node and its pods; caller frees. */
json_t *sk__ag_stats_summary(struct sk_agent *a);

/* netconf.c: the cluster's DNS settings (flags, else the ConfigMap
 * kube-system/skiff-network, else the defaults) and the DNS server on the
 * gateway address of the pod CIDR. A server that cannot start is logged. */
void sk__ag_netconf_load(struct sk_agent *a);
void sk__ag_dns_start(struct sk_agent *a);
void sk__ag_dns_stop(struct sk_agent *a);
/* The first address of the pod CIDR (the bridge's gateway); malloc'd or NULL. */
char *sk__ag_gateway(const char *cidr);
/* Whether the agent is stopping; read by threads that may hold no lock. */
static inline bool sk__ag_stopping(struct sk_agent *a) { return __atomic_load_n(&a->stopping, __ATOMIC_ACQUIRE); }

/* agent.c */
/* Joins pod workers that finished (their pods are gone) and frees them. */
void sk__agent_reap(struct sk_agent *a);
void sk__agent_wake(struct sk_agent *a, struct apod *p);
/* The pod ns/name's uid if the agent knows it (malloc'd) or NULL. */
char *sk__agent_pod_uid(struct sk_agent *a, const char *ns, const char *name);
/* Random hex id of 2*bytes characters; malloc'd. */
char *sk__ag_random_hex(size_t bytes);
/* Event about the pod, component kubelet, this node. */
void sk__ag_event(struct sk_agent *a, json_t *pod, const char *type, const char *reason, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

#endif
