/* The node agent: skiff's kubelet.
 *
 * sk_agent_start registers the node, renews its Lease, watches the pods
 * bound to it (fieldSelector spec.nodeName=NODE) and runs each one through
 * the runtime layer (src/runtime: sandbox, conmon + crun/runc) with images
 * from the image service (src/image), writing truthful pod status and
 * events back through the client. An HTTPS endpoint (libmicrohttpd) serves
 * container logs to the API server at node.status.daemonEndpoints.
 *
 * State on disk under data_dir (survives an agent restart, so running pods
 * are re-adopted): images/ (image store), logs/<ns>_<pod>_<uid>/<ctr>/N.log,
 * pods/<uid>/volumes/..., volumes/pvc-<uid>/ (local-path volumes), and the
 * runtime's state under run_dir. */
#ifndef SK_AGENT_AGENT_H
#define SK_AGENT_AGENT_H

#include <stdbool.h>
#include <stdint.h>

#include "client/client.h"
#include "util/error.h"

typedef struct sk_agent sk_agent;

typedef struct sk_agent_options {
	const char *node_name;          /* required */
	const char *data_dir;           /* required; created */
	const char *run_dir;            /* NULL: /run/skiff-<hash of data_dir> */
	const char *pod_cidr;           /* NULL: the Node's spec.podCIDR, from the node IPAM controller */
	const char *node_ip;            /* InternalIP; NULL: the address of the default route's interface */
	const char *bridge;             /* NULL: "sk" + hash of data_dir */
	bool control_plane;             /* label node-role.kubernetes.io/control-plane */
	int simulate_gpus;              /* N simulated nvidia.com/gpu devices (src/gpu) */
	int gpu_replicas;               /* time-slicing: each GPU counts as R; <= 1 exclusive */
	int gpu_quiet_period_s;         /* unhealthy GPU turns healthy after this; 0: 300 */
	int backoff_base_ms;            /* CrashLoopBackOff/ImagePullBackOff base; 0: 10000 */
	int backoff_max_ms;             /* 0: 300000 */
	int log_port;                   /* log endpoint port on the node IP; 0: any free port */
	const char *ca_pem;             /* the cluster CA: callers of the HTTPS endpoint present its certificates */
	const char *cert_pem, *key_pem; /* HTTPS endpoint certificate; NULL: self-signed */
	int64_t reserved_cpu_milli;     /* system reservation subtracted from allocatable */
	int64_t reserved_memory;        /* bytes */
	int status_interval_s;          /* node status update period; 0: 10 */
	int64_t log_max_size;           /* rotate container logs above this; 0: 10 MiB */
	int log_max_files;              /* 0: 5 */
	/* Image GC, checked with every node status update: above high percent
	 * of the image filesystem used, least recently used images no container
	 * uses are removed until below low. 0: 85 and 80; high 100: never. */
	int image_gc_high_percent;
	int image_gc_low_percent;
	/* The Service dataplane (agent/proxy.h): off for tests that run no
	 * Services; the cluster's network settings override the ConfigMap
	 * kube-system/skiff-network (NULL: take it from there). */
	bool no_proxy;
	const char *cluster_cidr, *service_cidr;
	/* Cluster DNS (docs/NETWORKING.md). NULL: the ConfigMap
	 * kube-system/skiff-network's clusterDNS and clusterDomain, read at
	 * start, else 10.43.0.10 and cluster.local. */
	const char *cluster_dns;
	const char *cluster_domain;
	const char *resolv_conf; /* the host's resolver configuration; NULL: /etc/resolv.conf */
	bool no_dns;             /* serve no DNS on the bridge's gateway address */
} sk_agent_options;

/* Starts the agent on client c (borrowed; must outlive the agent). Returns
 * NULL with err when the runtime, image store, log endpoint or node
 * registration fail. Without o->pod_cidr the node registers without one and
 * the agent runs pods once the node IPAM controller gave the Node its
 * spec.podCIDR. Routes to the other nodes' pod CIDRs follow the Nodes
 * (routes.c). Stop and free with sk_agent_stop. */
sk_agent *sk_agent_start(sk_client *c, const sk_agent_options *o, sk_error_t *err);
/* Stops watching and serving; containers keep running under conmon so a
 * restarted agent re-adopts them. */
void sk_agent_stop(sk_agent *a);

#endif
