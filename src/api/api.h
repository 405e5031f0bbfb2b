/* The API server: Kubernetes REST semantics over the store.
 *
 * sk_api_handle() is the one entry point for every request, whether it came
 * over HTTPS (src/api/http.c) or from an in-process component through
 * sk_client_new_inproc(); both pass the same authentication, validation,
 * defaulting and admission. */
#ifndef SK_API_API_H
#define SK_API_API_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "api/auth.h"
#include "client/client.h"
#include "store/store.h"
#include "util/error.h"

/* The network defaults (docs/NETWORKING.md) */
#define SK_API_DEFAULT_SERVICE_CIDR "10.43.0.0/16"
#define SK_API_DEFAULT_CLUSTER_CIDR "10.42.0.0/16"
#define SK_API_DEFAULT_NODE_PORT_RANGE "30000-32767"
#define SK_API_DEFAULT_CLUSTER_DOMAIN "cluster.local"

typedef struct sk_api_watch sk_api_watch;

typedef struct sk_api_options {
	const char *server_address; /* "127.0.0.1:6443", for /api serverAddressByClientCIDRs */
	size_t max_body;            /* request bodies over this get 413 (default 3 MiB) */
	int bookmark_secs;          /* watch bookmark interval (default 60) */
	/* The cluster's network (docs/NETWORKING.md); NULL or 0: the defaults. */
	const char *service_cidr;      /* ClusterIPs: 10.43.0.0/16 */
	const char *cluster_cidr;      /* pod network, recorded in kube-system/skiff-network: 10.42.0.0/16 */
	const char *node_port_range;   /* NodePorts: 30000-32767 */
	const char *cluster_dns;       /* kube-system/kube-dns's clusterIP: the 10th address of service_cidr */
	const char *cluster_domain;    /* cluster.local */
	const char *advertise_address; /* this server in default/kubernetes's endpoints: 127.0.0.1 */
	int advertise_port;            /* and its port: 6443 */
	/* an AdmissionConfiguration file (JSON): PodSecurity's defaults and
	 * exemptions; NULL: privileged:latest, kube-system exempt */
	const char *admission_config_file;
} sk_api_options;

/* Query parameters as decoded key/value pairs. */
typedef struct sk_api_arg {
	const char *key, *value;
} sk_api_arg;

typedef struct sk_api_request {
	const char *method;
	const char *path; /* URL path, decoded */
	const sk_api_arg *args;
	size_t nargs;
	const char *body;
	size_t body_len;
	const char *content_type; /* NULL: application/json */
	const char *accept;       /* NULL: application/json */
	const sk_user *user;      /* who asks (borrowed); NULL rejects with 401 */
	/* the Impersonate-* headers (name as sent, value; Impersonate-Group and
	 * Impersonate-Extra-KEY may repeat): the request runs as that user if
	 * user may impersonate it (impersonate.c) */
	const sk_api_arg *impersonate;
	size_t nimpersonate;
	json_t *body_obj; /* in-process: the body already decoded (borrowed; body unused) */
	int body_owned;   /* in-process: body_obj is the handler's to change in place */
	int want_obj;     /* in-process: return objects in resp->obj, not as text */
	/* for the audit log (NULL in-process): */
	const char *source_ip, *user_agent;
	const char *request_uri; /* path and query as sent */
	/* HTTP: a request header's value (repeated headers joined with ", "),
	 * NULL when absent; NULL function in-process. */
	const char *(*header)(void *ctx, const char *name);
	void *header_ctx;
} sk_api_request;

typedef struct sk_api_response {
	int status; /* HTTP status */
	char *body; /* malloc'd; freed by sk_api_response_release */
	size_t len;
	const char *content_type;     /* static string */
	char *warning;                /* malloc'd Warning header values (299 - "..."), one per line, or NULL */
	sk_api_watch *watch;          /* non-NULL: stream events with sk_api_watch_read */
	struct sk_api_stream *stream; /* non-NULL: stream raw bytes (pod logs follow) */
	json_t *obj;                  /* with want_obj: the reply object (new reference) instead of body */
	int want_obj;
	/* for the audit log, only while one is written: the admission plugins'
	 * annotations ({key: value}) and the user an impersonating request ran
	 * as (both owned) */
	json_t *audit_annotations;
	struct sk_user *audit_as;
	struct sk_api_upgrade *upgrade; /* non-NULL: answer 101 and relay the connection (pods/exec…) */
	/* the request's audit ID (upstream's WithAuditInit: the client's
	 * Audit-ID header, else a new UUID), answered as Audit-Id */
	char audit_id[65];
} sk_api_response;

void sk_api_response_release(sk_api_response *r);

/* Creates the API server over store (borrowed; must outlive the api).
 * Creates the default namespaces on first start, repairs the Service
 * allocations and keeps the default/kubernetes and kube-system/kube-dns
 * Services and the kube-system/skiff-network ConfigMap. Fails with err
 * (SK_EINVALID, naming the flag) on bad network options. */
sk_api *sk_api_new(sk_store *store, const sk_api_options *opts, sk_error_t *err);
void sk_api_free(sk_api *api);
/* Checks the network options as sk_api_new reads them: 0, or -1 + err
 * (SK_EINVALID, naming the flag: "--service-cidr 10.0.0.0/8: too large…"). */
int sk_api_check_network(const sk_api_options *o, sk_error_t *err);
/* Loads the service-account signing key at key_path, or makes one there
 * (RSA 2048, 0600), for TokenRequest, the token authenticator, TokenReview
 * and the OIDC documents (docs/ARCHITECTURE.md, "Identity: service
 * accounts"); the issuer is https://kubernetes.default.svc.<cluster domain>. */
int sk_api_sa_setup(sk_api *api, const char *key_path, sk_error_t *err);
/* Ends every open watch (so HTTP connection threads can finish) before stop. */
void sk_api_shutdown(sk_api *api);
/* Lets the API add foregroundDeletion/orphan finalizers (a collector runs). */
void sk_api_set_gc_enabled(sk_api *api, int on);
/* Every request handled from now on is audited to a (borrowed; the caller
 * closes it after sk_api_free). */
struct sk_audit;
void sk_api_set_audit(sk_api *api, struct sk_audit *a);

/* Starts metrics.k8s.io's scraper (metrics-server in process): every
 * resolution_ms it reads each Ready node's /stats/summary and keeps the
 * last two points per node and container. Without it PodMetrics and
 * NodeMetrics lists are empty. Stopped by sk_api_free. */
int sk_api_metrics_start(sk_api *api, int64_t resolution_ms, sk_error_t *err);

/* API aggregation (apiregistration.k8s.io): keeps the local APIServices
 * (one per served group/version), checks and proxies the others with the
 * front-proxy credentials of DATA_DIR/tls (made on first start; NULL: no
 * client certificate) and publishes client_ca (the cluster CA, PEM) in
 * kube-system/extension-apiserver-authentication. Stopped by sk_api_free. */
int sk_api_aggregator_start(sk_api *api, const char *data_dir, const char *client_ca, sk_error_t *err);

/* Handles one request; always fills resp (errors become Status objects). */
void sk_api_handle(sk_api *api, const sk_api_request *req, sk_api_response *resp);

/* Hands decoded events one at a time to the in-process client, waiting up
 * to timeout_ms: returns 1 and fills *type and *obj (new ref), 0 on timeout, -1 at end.
 * With shared, *obj is the event's one decoded object, shared by every
 * watcher that got it (nobody may change it); otherwise a private copy. */
int sk_api_watch_next_event(sk_api_watch *w, int timeout_ms, int shared, char **type, json_t **obj);
/* Event-loop consumers (the HTTP server) never block: sk_api_watch_read
 * copies up to max bytes of what is queued (newline-terminated watch events,
 * straight from the lines every watcher of an event shares; a line that does
 * not fit goes on at the next call) into buf and returns how many, -1 when
 * the watch has ended (timeoutSeconds, shutdown, error), or 0 after calling
 * park(arg) with the watch's lock held; the next event, the end of
 * the watch or a due sk_api_watch_tick then calls the waker set with
 * sk_api_watch_set_waker once, from the thread that caused it, without the
 * lock. sk_api_watch_tick (about once a second) wakes a parked consumer
 * whose timeout or bookmark is due, whose server shuts down, or with force. */
void sk_api_watch_set_waker(sk_api_watch *w, void (*wake)(void *), void *arg);
ssize_t sk_api_watch_read(sk_api_watch *w, char *buf, size_t max, void (*park)(void *), void *arg);
void sk_api_watch_tick(sk_api_watch *w, int force);
void sk_api_watch_free(sk_api_watch *w);

/* In-process client: requests go through sk_api_handle as "system:apiserver"
 * (in system:masters)
 * with no HTTP in between. */
sk_client *sk_client_new_inproc(sk_api *api);
/* The same acting as user (copied): what the embedded node agent uses to
 * be its node, system:node:NAME in system:nodes. */
sk_client *sk_client_new_inproc_as(sk_api *api, const sk_user *user);

#endif
