/* The API server's metrics (upstream's k8s.io/apiserver endpoints/metrics,
 * storage/etcd3/metrics and the audit counter) and GET /metrics, which
 * exposes the process's control-plane registry: the API server's, the
 * scheduler's and the controllers' series. */
#include <pthread.h>
#include <string.h>

#include "api/api-int.h"
#include "api/prometheus.h"
#include "util/metrics.h"
#include "util/util.h"

static struct {
	sk_metric_family *requests, *duration, *inflight, *longrunning, *objects, *audit;
	int64_t inflight_ro, inflight_rw; /* atomic */
} am;

static pthread_once_t once = PTHREAD_ONCE_INIT;

static void init_families(void)
{
	static const char *const req_labels[] = {"verb",        "dry_run", "group",     "version", "resource",
						 "subresource", "scope",   "component", "code",    NULL};
	static const char *const dur_labels[] = {"verb",        "dry_run", "group",     "version", "resource",
						 "subresource", "scope",   "component", NULL};
	static const char *const lr_labels[] = {"verb",        "group", "version",   "resource",
						"subresource", "scope", "component", NULL};
	static const char *const kind_labels[] = {"request_kind", NULL};
	static const char *const res_labels[] = {"resource", NULL};
	sk_metrics *m = sk_metrics_default();

	am.requests = sk_metrics_family(
		m, SK_METRIC_COUNTER, "apiserver_request_total",
		"[STABLE] Counter of apiserver requests broken out for each verb, dry run value, "
		"group, version, resource, scope, component, and HTTP response code.",
		NULL, req_labels, NULL, 0);
	am.duration = sk_metrics_family(
		m, SK_METRIC_HISTOGRAM, "apiserver_request_duration_seconds",
		"[STABLE] Response latency distribution in seconds for each verb, dry run value, "
		"group, version, resource, subresource, scope and component.",
		"seconds", dur_labels, sk_metric_buckets_apiserver_request, sk_metric_buckets_apiserver_request_n);
	am.inflight = sk_metrics_family(m, SK_METRIC_GAUGE, "apiserver_current_inflight_requests",
					"[STABLE] Maximal number of currently used inflight request limit of this "
					"apiserver per request kind in last second.",
					NULL, kind_labels, NULL, 0);
	am.longrunning = sk_metrics_family(m, SK_METRIC_GAUGE, "apiserver_longrunning_requests",
					   "[STABLE] Gauge of all active long-running apiserver requests broken out by "
					   "verb, group, version, resource, scope and component. Not all requests are "
					   "tracked this way.",
					   NULL, lr_labels, NULL, 0);
	am.objects = sk_metrics_family(m, SK_METRIC_GAUGE, "apiserver_storage_objects",
				       "[STABLE] Number of stored objects at the time of last check split by kind. In "
				       "case of a fetching error, the value will be -1.",
				       NULL, res_labels, NULL, 0);
	am.audit = sk_metrics_family(m, SK_METRIC_COUNTER, "apiserver_audit_event_total",
				     "[ALPHA] Counter of audit events generated and sent to the audit backend.", NULL,
				     NULL, NULL, 0);
	sk_metrics_register_process(m);
	sk_store_metrics_register(m);
}

void sk__prom_init(void) { pthread_once(&once, init_families); }

static int read_only(const char *method) { return !strcmp(method, "GET") || !strcmp(method, "HEAD"); }

void sk__prom_request_begin(const sk_api_request *req)
{
	sk__prom_init();
	__atomic_add_fetch(read_only(req->method) ? &am.inflight_ro : &am.inflight_rw, 1, __ATOMIC_RELAXED);
}

/* Upstream's CleanScope: "resource" for a named object or a create,
 * "namespace" for a namespaced collection, "cluster" otherwise, "" for a
 * non-resource request. */
static const char *scope(const sk_api_request *req, const sk__req_info *ri)
{
	if (!ri->res)
		return "";
	if (ri->named || !strcmp(req->method, "POST"))
		return "resource";
	return ri->namespaced ? "namespace" : "cluster";
}

/* Upstream's CleanVerb over the canonical verb: GET of a collection is
 * LIST, a watch WATCH, an apply-patch APPLY, a streaming subresource CONNECT. */
static const char *report_verb(const sk_api_request *req, const sk__req_info *ri)
{
	static const char *const upper[][2] = {{"GET", "GET"},        {"HEAD", "GET"},    {"POST", "POST"},
					       {"PUT", "PUT"},        {"PATCH", "PATCH"}, {"DELETE", "DELETE"},
					       {"OPTIONS", "OPTIONS"}};

	if (ri->res) {
		if (ri->watch)
			return "WATCH";
		if (!strcmp(ri->sub, "exec") || !strcmp(ri->sub, "attach") || !strcmp(ri->sub, "portforward") ||
		    !strcmp(ri->sub, "proxy"))
			return "CONNECT";
		if (!strcmp(req->method, "PATCH") && req->content_type &&
		    !strcmp(req->content_type, "application/apply-patch+yaml"))
			return "APPLY";
		if ((!strcmp(req->method, "GET") || !strcmp(req->method, "HEAD")) && !ri->named)
			return "LIST";
	}
	for (size_t i = 0; i < sizeof(upper) / sizeof(upper[0]); i++)
		if (!strcmp(req->method, upper[i][0]))
			return upper[i][1];
	return "other";
}

void sk__prom_request_end(const sk_api_request *req, const sk__req_info *ri, const sk_api_response *resp, int64_t t0_ns)
{
	const char *verb = report_verb(req, ri);
	const char *dry = sk__arg(req, "dryRun");
	char code[8];
	const char *v[9];

	__atomic_sub_fetch(read_only(req->method) ? &am.inflight_ro : &am.inflight_rw, 1, __ATOMIC_RELAXED);
	snprintf(code, sizeof(code), "%d", resp->upgrade ? 101 : resp->status);
	v[0] = verb;
	v[1] = dry && !strcmp(dry, "All") ? "All" : "";
	v[2] = ri->res ? ri->res->group : "";
	v[3] = ri->res ? ri->res->version : "";
	v[4] = ri->res ? ri->res->plural : "";
	v[5] = ri->res ? ri->sub : "";
	v[6] = scope(req, ri);
	v[7] = "apiserver";
	v[8] = code;
	sk_metric_add(am.requests, v, 1);
	if (!ri->watch)
		sk_metric_observe(am.duration, v, (double)(sk_mono_ns() - t0_ns) / 1e9);
}

void sk__prom_watch(const sk_api_resource *r, int namespaced, int delta)
{
	const char *v[] = {"WATCH",    r->group, r->version, r->plural, "", namespaced ? "namespace" : "cluster",
			   "apiserver"};

	sk__prom_init();
	sk_metric_add(am.longrunning, v, delta);
}

void sk__prom_audit_event(void)
{
	sk__prom_init();
	sk_metric_add(am.audit, NULL, 1);
}

/* Collector: the request kinds in flight and the stored objects per
 * resource (upstream's "pods", "deployments.apps"), counted by the store. */
static void collect(void *arg)
{
	sk_api *api = arg;
	const sk_kind_set *ks = sk__kinds();

	sk_metric_set1(am.inflight, "readOnly", (double)__atomic_load_n(&am.inflight_ro, __ATOMIC_RELAXED));
	sk_metric_set1(am.inflight, "mutating", (double)__atomic_load_n(&am.inflight_rw, __ATOMIC_RELAXED));
	for (size_t i = 0; i < ks->n; i++) {
		const sk_api_resource *r = ks->v[i];
		cleanup_free char *prefix = NULL;
		char name[320];

		prefix = sk__obj_prefix(r, NULL);
		if (r->group[0])
			snprintf(name, sizeof(name), "%s.%s", r->plural, r->group);
		else
			snprintf(name, sizeof(name), "%s", r->plural);
		sk_metric_set1(am.objects, name, (double)sk_store_count(api->store, prefix));
	}
}

int sk__prom_start(sk_api *api)
{
	sk__prom_init();
	return sk_metrics_add_collector(sk_metrics_default(), collect, api);
}

void sk__prom_stop(int id) { sk_metrics_remove_collector(sk_metrics_default(), id); }

void sk__handle_metrics(sk_api *api, const sk_api_request *req, sk_api_response *resp)
{
	int om = sk_metrics_wants_openmetrics(req->accept);
	size_t len;
	char *text;

	(void)api;
	sk__prom_init();
	text = sk_metrics_expose(sk_metrics_default(), om, &len);
	sk__reply_raw(resp, 200, text, len);
	resp->content_type = om ? SK_METRICS_OPENMETRICS_TYPE : SK_METRICS_TEXT_TYPE;
}
