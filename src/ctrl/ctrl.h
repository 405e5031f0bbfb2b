/* The workload controllers (skiff's kube-controller-manager): ReplicaSet,
 * Deployment, Job, CronJob, TTL-after-finished, garbage collector,
 * namespace deletion, node lifecycle, pod garbage collection, node IPAM,
 * the EndpointSlice, Endpoints and EndpointSlice mirroring controllers, and
 * the ServiceAccounts controller and root CA publisher. They talk to the API only through
 * an sk_client and are level-triggered: a restart resumes every rollout and
 * Job from what the API holds. */
#ifndef SK_CTRL_CTRL_H
#define SK_CTRL_CTRL_H

#include <stdint.h>

#include "client/client.h"
#include "util/error.h"

typedef struct sk_ctrl sk_ctrl;

typedef struct sk_ctrl_options {
	int workers;                  /* worker threads per controller (default 2) */
	int node_monitor_grace_secs;  /* lease silence before Ready=Unknown (default 40) */
	int pod_eviction_secs;        /* tolerationSeconds when a pod has none (default 300) */
	int node_monitor_period_secs; /* node health check period (default 5) */
	const char *cluster_cidr;     /* pod network of the cluster; NULL: SK_CTRL_CLUSTER_CIDR */
	int node_cidr_mask_size;      /* prefix of each node's pod CIDR (default 24) */
	const char *root_ca_pem;      /* the cluster CA, published as kube-root-ca.crt; NULL: not published */
	/* the cluster CA the CSR signer signs with (PEM); NULL: no signer */
	const char *ca_cert_pem, *ca_key_pem;
	int64_t signing_duration_secs; /* most a signed certificate lives (default a year) */
	/* the HPA controller's --horizontal-pod-autoscaler-* settings (0: upstream's defaults) */
	int hpa_sync_period_secs;      /* between syncs of each HPA (15) */
	double hpa_tolerance;          /* ratio change ignored (0.1) */
	int hpa_cpu_init_secs;         /* cpu-initialization-period (300) */
	int hpa_readiness_delay_secs;  /* initial-readiness-delay (30) */
	int hpa_downscale_window_secs; /* downscale-stabilization without a behavior (300) */
} sk_ctrl_options;

#define SK_CTRL_CLUSTER_CIDR "10.42.0.0/16"

/* Options left 0 take SKIFF_NODE_MONITOR_GRACE_PERIOD,
 * SKIFF_POD_EVICTION_TIMEOUT and SKIFF_NODE_MONITOR_PERIOD (seconds) from
 * the environment when set, else the defaults. */
/* Starts every controller over c (borrowed; must outlive the sk_ctrl).
 * o may be NULL for the defaults. Returns a handle for sk_ctrl_stop or
 * NULL with err set when the initial lists fail. */
sk_ctrl *sk_ctrl_start(sk_client *c, const sk_ctrl_options *o, sk_error_t *err);
/* Stops the controllers, joins their threads and frees ctl (NULL is fine). */
void sk_ctrl_stop(sk_ctrl *ctl);

#endif
