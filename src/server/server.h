/* The composition of a `skiff server` process: store, API server, HTTPS,
 * scheduler, controllers and (optionally) the embedded node agent. */
#ifndef SK_SERVER_SERVER_H
#define SK_SERVER_SERVER_H

#include "util/error.h"

typedef struct sk_server sk_server;

typedef struct sk_server_options {
	const char *data_dir;
	const char *listen; /* HOST:PORT */
	int agent;          /* run the embedded node agent */
	const char *node_name;
	int simulate_gpus;
	int gpu_replicas; /* time-slicing replicas per GPU (agent) */
	int gpu_quiet_period_s;
	int64_t watch_history_secs; /* history kept for watch resumption; 0: store default (300 s) */
	/* the store's uri (NULL: sqlite://DATA_DIR) and, for etcd over https,
	 * the PEM files (--datastore-*) */
	const char *datastore_endpoint, *datastore_ca, *datastore_cert, *datastore_key;
	/* the cluster's network (docs/NETWORKING.md); NULL: the defaults */
	const char *service_cidr, *cluster_cidr, *node_port_range, *cluster_dns, *cluster_domain;
	const char *advertise_address; /* NULL: the --listen host, or the default route's address for 0.0.0.0 */
	int node_cidr_mask_size;       /* each node's share of the cluster CIDR; 0: 24 */
	const char *node_ip;           /* InternalIP of the embedded agent's node; NULL: detected */
	const char *tls_san;           /* further names or addresses of the serving certificate (comma-separated) */
	const char *token_auth_file;   /* upstream's static token CSV (--token-auth-file), or NULL */
	/* an AdmissionConfiguration (PodSecurity); NULL: the defaults */
	const char *admission_config_file;
	/* HTTPS connection caps (0: the defaults, sk_http_options) */
	unsigned max_conns, max_conns_per_addr, max_unauth_conns;
	/* the audit log (NULL: none) and its policy (NULL: Metadata for all) */
	const char *audit_log_path, *audit_policy_path;
	int audit_max_size_mb, audit_max_backups;
	/* --horizontal-pod-autoscaler-* (0: upstream's defaults, sk_ctrl_options) */
	int hpa_sync_period_secs, hpa_cpu_init_secs, hpa_readiness_delay_secs, hpa_downscale_window_secs;
	double hpa_tolerance;
	int64_t metric_resolution_ms; /* metrics.k8s.io's scrape interval; 0: 15 s */
	/* --leader-elect: 1 on, 0 off, -1 on with etcd only; the timings in ms
	 * (0: upstream's 15 s, 10 s, 2 s) */
	int leader_elect;
	int64_t leader_elect_lease_duration_ms, leader_elect_renew_deadline_ms, leader_elect_retry_period_ms;
	/* a first server's data directory whose CA, service-account key and
	 * tokens this one shares (NULL: its own) */
	const char *join_from;
	/* --cluster-signing-duration: the most a CSR's certificate lives (0: a year) */
	int64_t signing_duration_secs;
} sk_server_options;

sk_server *sk_server_start(const sk_server_options *o, sk_error_t *err);
/* Stops every component and closes the store; frees s. */
void sk_server_stop(sk_server *s);

#endif
