/* metrics.k8s.io/v1beta1 served in process, as metrics-server serves it:
 * a scraper thread reads every Ready node's /stats/summary each resolution
 * through the server→agent path the logs use (the node's InternalIP and
 * kubelet port, the kubelet client certificate), keeps the last two points per node and
 * container (metrics.c), and NodeMetrics and PodMetrics are answered from
 * them: CPU as the rate over the window between the two points, memory as
 * the last working set. Pods and nodes come from the API itself (selectors
 * and their errors as for pods and nodes); those without two points are
 * left out of lists and NotFound by name, as upstream. */
#include <curl/curl.h>
#include <string.h>

#include "api/api-int.h"
#include "api/metrics.h"
#include "kube/object.h"
#include "util/json.h"
#include "util/quantity.h"
#include "util/util.h"

#define METRICS_GV "metrics.k8s.io/v1beta1"
#define MAX_SUMMARY (64u << 20)

struct sk__metrics {
	sk_api *api;
	int64_t resolution_ns;
	pthread_mutex_t mu; /* guards nodes, stop */
	pthread_cond_t cond;
	int stop;
	pthread_t thread;
	struct sk_metrics_node *nodes;
	size_t n;
};

/* ---- scraping ---------------------------------------------------------------------- */

struct body {
	sk__curl_body buf; /* what the agent answers */
	struct sk__metrics *m;
};

static int stopping(struct sk__metrics *m)
{
	int s;

	pthread_mutex_lock(&m->mu);
	s = m->stop;
	pthread_mutex_unlock(&m->mu);
	return s;
}

static int on_progress(void *ud, curl_off_t dt, curl_off_t dn, curl_off_t ut, curl_off_t un)
{
	struct body *b = ud;

	(void)dt;
	(void)dn;
	(void)ut;
	(void)un;
	return stopping(b->m);
}

/* GET base/stats/summary with the kubelet client certificate: the body (caller frees) or NULL with err. */
static char *fetch_summary(struct sk__metrics *m, const char *base, size_t *len, sk_error_t *err)
{
	cleanup_free char *url = xasprintf("%s/stats/summary", base);
	struct curl_slist *hl = NULL;
	struct body b = {.buf = {.max = MAX_SUMMARY}, .m = m};
	CURL *h = curl_easy_init();
	CURLcode rc;
	long code = 0;

	curl_easy_setopt(h, CURLOPT_URL, url);
	curl_easy_setopt(h, CURLOPT_HTTPHEADER, hl);
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	sk__kubelet_tls(h);
	curl_easy_setopt(h, CURLOPT_NOPROXY, "*");
	curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, 3000L);
	curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, 10000L);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, sk__curl_collect);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, &b.buf);
	curl_easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
	curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, on_progress);
	curl_easy_setopt(h, CURLOPT_XFERINFODATA, &b);
	rc = curl_easy_perform(h);
	curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &code);
	curl_easy_cleanup(h);
	curl_slist_free_all(hl);
	if (rc != CURLE_OK || code != 200) {
		if (rc != CURLE_OK)
			sk_error_set(err, SK_EINTERNAL, "GET \"%s\": %s", url, curl_easy_strerror(rc));
		else
			sk_error_set(err, SK_EINTERNAL, "GET \"%s\": request failed, status %ld", url, code);
		free(b.buf.data);
		return NULL;
	}
	*len = b.buf.len;
	return b.buf.data ? b.buf.data : xstrdup("");
}

static int node_ready(json_t *node)
{
	json_t *c;
	size_t i;

	json_array_foreach(sk_kube_jget(node, "status.conditions"), i, c)
		if (!strcmp(sk_kube_jstr(c, "type") ? sk_kube_jstr(c, "type") : "", "Ready"))
			return !strcmp(sk_kube_jstr(c, "status") ? sk_kube_jstr(c, "status") : "", "True");
	return 0;
}

/* Scrapes one node into *out: 0, or -1 (logged) when it gave nothing. */
static int scrape_node(struct sk__metrics *m, json_t *node, struct sk_metrics_node *out)
{
	const char *name = sk_kube_jstr(node, "metadata.name");
	cleanup_free char *base = sk__node_kubelet_url(node), *text = NULL;
	sk_error_t err = {0};
	size_t len = 0;

	memset(out, 0, sizeof(*out));
	if (!name || !base || !node_ready(node))
		return -1;
	text = fetch_summary(m, base, &len, &err);
	if (!text || sk_metrics_parse_summary(text, len, name, out, &err) < 0) {
		sk_debug("metrics", "node \"%s\": scrape failed: %s", name, err.msg);
		sk_metrics_node_release(out);
		return -1;
	}
	return 0;
}

static const struct sk_metrics_node *find_node(const struct sk_metrics_node *v, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i].name, name))
			return &v[i];
	return NULL;
}

/* One round: every Ready node's points replace what it left before; nodes
 * that failed or went leave nothing (metrics-server's storage keeps only
 * what the last round brought). */
static void scrape_round(struct sk__metrics *m)
{
	sk_api_response resp = {0};
	cleanup_json json_t *list = sk__get_object(m->api, "/api/v1/nodes", &resp);
	json_t *items = json_object_get(list, "items"), *node;
	struct sk_metrics_node *fresh, *old;
	size_t i, n = 0, old_n;

	if (!list) {
		sk_api_response_release(&resp);
		return;
	}
	fresh = xzalloc((json_array_size(items) + 1) * sizeof(*fresh));
	json_array_foreach(items, i, node) {
		if (stopping(m))
			break;
		if (scrape_node(m, node, &fresh[n]) == 0)
			n++;
	}
	pthread_mutex_lock(&m->mu);
	for (i = 0; i < n; i++)
		sk_metrics_node_merge(&fresh[i], find_node(m->nodes, m->n, fresh[i].name), m->resolution_ns);
	old = m->nodes;
	old_n = m->n;
	m->nodes = fresh;
	m->n = n;
	pthread_mutex_unlock(&m->mu);
	for (i = 0; i < old_n; i++)
		sk_metrics_node_release(&old[i]);
	free(old);
}

static void *scrape_loop(void *arg)
{
	struct sk__metrics *m = arg;

	for (;;) {
		struct timespec ts;

		scrape_round(m);
		sk_deadline_after_ms(&ts, m->resolution_ns / 1000000);
		pthread_mutex_lock(&m->mu);
		while (!m->stop && pthread_cond_timedwait(&m->cond, &m->mu, &ts) == 0)
			;
		if (m->stop) {
			pthread_mutex_unlock(&m->mu);
			return NULL;
		}
		pthread_mutex_unlock(&m->mu);
	}
}

int sk_api_metrics_start(sk_api *api, int64_t resolution_ms, sk_error_t *err)
{
	struct sk__metrics *m;

	if (resolution_ms <= 0)
		return sk_error_set(err, SK_EINVALID, "--metric-resolution: must be positive");
	if (api->metrics)
		return 0;
	m = xzalloc(sizeof(*m));
	m->api = api;
	m->resolution_ns = resolution_ms * 1000000;
	pthread_mutex_init(&m->mu, NULL);
	pthread_cond_init(&m->cond, NULL);
	if (pthread_create(&m->thread, NULL, scrape_loop, m) != 0) {
		pthread_mutex_destroy(&m->mu);
		pthread_cond_destroy(&m->cond);
		free(m);
		return sk_error_set(err, SK_EINTERNAL, "metrics scraper: cannot start a thread");
	}
	api->metrics = m;
	return 0;
}

void sk__metrics_stop(sk_api *api)
{
	struct sk__metrics *m = api->metrics;

	if (!m)
		return;
	pthread_mutex_lock(&m->mu);
	m->stop = 1;
	pthread_cond_broadcast(&m->cond);
	pthread_mutex_unlock(&m->mu);
	pthread_join(m->thread, NULL);
	for (size_t i = 0; i < m->n; i++)
		sk_metrics_node_release(&m->nodes[i]);
	free(m->nodes);
	pthread_mutex_destroy(&m->mu);
	pthread_cond_destroy(&m->cond);
	free(m);
	api->metrics = NULL;
}

/* ---- objects ----------------------------------------------------------------------- */

static json_t *usage_json(uint64_t nanocores, uint64_t bytes)
{
	char cpu[32], mem[32];

	sk_metrics_format_cpu(nanocores, cpu, sizeof(cpu));
	sk_metrics_format_bytes(bytes, mem, sizeof(mem));
	return json_pack("{s:s, s:s}", "cpu", cpu, "memory", mem);
}

/* metadata, timestamp and window of a metrics object for obj (a Pod or Node). */
static json_t *metrics_object(const char *kind, json_t *obj, int64_t ts_ns, int64_t window_ns)
{
	char now[32], ts[32], win[48];
	json_t *meta, *labels = sk_kube_jget(obj, "metadata.labels");

	sk_time_format(sk_now_ns() / 1000000000, now, sizeof(now));
	sk_time_format(ts_ns / 1000000000, ts, sizeof(ts));
	sk_metrics_format_duration(window_ns, win, sizeof(win));
	meta = json_pack("{s:s, s:s}", "name", sk_kube_jstr(obj, "metadata.name"), "creationTimestamp", now);
	if (sk_kube_jstr(obj, "metadata.namespace"))
		json_object_set_new(meta, "namespace", json_string(sk_kube_jstr(obj, "metadata.namespace")));
	if (json_is_object(labels))
		json_object_set_new(meta, "labels", json_deep_copy(labels));
	return json_pack("{s:s, s:s, s:o, s:s, s:s}", "kind", kind, "apiVersion", METRICS_GV, "metadata", meta,
			 "timestamp", ts, "window", win);
}

/* NodeMetrics of node, or NULL without two points. Under m->mu. */
static json_t *node_metrics(struct sk__metrics *m, json_t *node)
{
	const struct sk_metrics_node *n = find_node(m->nodes, m->n, sk_kube_jstr(node, "metadata.name"));
	uint64_t cpu;
	int64_t window;
	json_t *o;

	if (!n || !n->has_node || !n->has_prev || sk_metrics_usage(&n->last, &n->prev, &cpu, &window) < 0)
		return NULL;
	o = metrics_object("NodeMetrics", node, n->last.ts_ns, window);
	json_object_set_new(o, "usage", usage_json(cpu, n->last.mem_ws));
	return o;
}

static const struct sk_metrics_pod *find_pod_points(struct sk__metrics *m, const char *ns, const char *name)
{
	for (size_t i = 0; i < m->n; i++)
		for (size_t j = 0; j < m->nodes[i].npods; j++) {
			const struct sk_metrics_pod *p = &m->nodes[i].pods[j];

			if (!strcmp(p->ns, ns) && !strcmp(p->name, name))
				return p;
		}
	return NULL;
}

/* PodMetrics of a Running pod whose containers all have two points (one
 * whose rate cannot be computed is left out of it), else NULL. Under m->mu. */
static json_t *pod_metrics(struct sk__metrics *m, json_t *pod)
{
	const char *ns = sk_kube_jstr(pod, "metadata.namespace"), *name = sk_kube_jstr(pod, "metadata.name");
	const char *phase = sk_kube_jstr(pod, "status.phase");
	const struct sk_metrics_pod *p;
	int64_t ts = 0, window = 0;
	json_t *cs, *o;

	if (!ns || !name || !phase || strcmp(phase, "Running"))
		return NULL;
	p = find_pod_points(m, ns, name);
	if (!p)
		return NULL;
	for (size_t i = 0; i < p->n; i++)
		if (!p->c[i].has_prev)
			return NULL;
	cs = json_array();
	for (size_t i = 0; i < p->n; i++) {
		const struct sk_metrics_ctr *c = &p->c[i];
		uint64_t cpu;
		int64_t w;

		if (sk_metrics_usage(&c->last, &c->prev, &cpu, &w) < 0)
			continue;
		json_array_append_new(
			cs, json_pack("{s:s, s:o}", "name", c->name, "usage", usage_json(cpu, c->last.mem_ws)));
		if (!ts || c->last.ts_ns < ts) {
			ts = c->last.ts_ns;
			window = w;
		}
	}
	o = metrics_object("PodMetrics", pod, ts, window);
	json_object_set_new(o, "containers", cs);
	return o;
}

/* ---- serving ----------------------------------------------------------------------- */

/* A GET of path through the handler with req's selectors and identity for
 * in-process replies; NULL after moving its error into resp. */
static json_t *inner_get(sk_api *api, const sk_api_request *req, const char *path, int with_args, sk_api_response *resp)
{
	sk_api_arg args[2];
	sk_api_request in = {.method = "GET", .path = path, .user = sk_user_apiserver(), .want_obj = 1};
	sk_api_response r = {0};
	json_t *out;
	size_t n = 0;

	for (size_t i = 0; with_args && i < req->nargs; i++)
		if (n < 2 && (!strcmp(req->args[i].key, "labelSelector") || !strcmp(req->args[i].key, "fieldSelector")))
			args[n++] = req->args[i];
	in.args = args;
	in.nargs = n;
	sk_api_handle(api, &in, &r);
	if (r.status >= 300) {
		sk_api_response_release(&r);
		in.want_obj = req->want_obj;
		sk_api_handle(api, &in, resp);
		return NULL;
	}
	out = r.obj ? json_incref(r.obj) : sk_json_loadb(r.body ? r.body : "", r.len);
	sk_api_response_release(&r);
	return out;
}

static void not_found(sk_api_response *resp, const sk_path *p)
{
	cleanup_free char *name = p->res->namespaced ? xasprintf("%s/%s", p->ns, p->name) : xstrdup(p->name);
	cleanup_free char *msg = xasprintf("%s.metrics.k8s.io \"%s\" not found", p->res->plural, name);

	sk__reply_status_for(resp, 404, "NotFound", msg, "metrics.k8s.io", p->res->plural, name, NULL);
}

static void reply(const sk_api_request *req, const sk_path *p, json_t *items, sk_api_response *resp)
{
	cleanup_json json_t *meta = json_object(), *out = NULL;
	char lk[64];

	if (sk__wants_table(req)) {
		const char *io = sk__arg(req, "includeObject");

		out = sk__to_table(p->res, items, meta, io && !strcmp(io, "Object"));
	} else if (p->name[0]) {
		out = json_incref(json_array_get(items, 0));
	} else {
		out = json_pack("{s:s, s:s, s:O, s:O}", "kind", sk__resource_list_kind(p->res, lk, sizeof(lk)),
				"apiVersion", METRICS_GV, "metadata", meta, "items", items);
	}
	sk__reply_json(resp, 200, out);
}

static void metrics_serve(sk_api *api, const sk_api_request *req, const sk_path *p, sk_api_response *resp)
{
	struct sk__metrics *m = api->metrics;
	int pods = p->res->namespaced;
	cleanup_free char *path = NULL;
	cleanup_json json_t *src = NULL, *items = json_array();
	json_t *o;
	size_t i;

	if (strcmp(req->method, "GET") || p->sub[0] || (!p->name[0] && sk__arg_bool(req, "watch"))) {
		sk__reply_status(resp, 405, "MethodNotAllowed",
				 "the server does not allow this method on the requested resource", p->res, p->name,
				 NULL);
		return;
	}
	if (pods)
		path = p->ns[0] ? xasprintf("/api/v1/namespaces/%s/pods%s%s", p->ns, p->name[0] ? "/" : "", p->name)
				: xstrdup("/api/v1/pods");
	else
		path = xasprintf("/api/v1/nodes%s%s", p->name[0] ? "/" : "", p->name);
	src = inner_get(api, req, path, !p->name[0], resp);
	if (!src)
		return;
	if (m)
		pthread_mutex_lock(&m->mu);
	if (p->name[0]) {
		o = m ? (pods ? pod_metrics(m, src) : node_metrics(m, src)) : NULL;
		if (o)
			json_array_append_new(items, o);
	} else {
		json_array_foreach(json_object_get(src, "items"), i, o) {
			json_t *mo = m ? (pods ? pod_metrics(m, o) : node_metrics(m, o)) : NULL;

			if (mo)
				json_array_append_new(items, mo);
		}
	}
	if (m)
		pthread_mutex_unlock(&m->mu);
	if (p->name[0] && !json_array_size(items)) {
		not_found(resp, p);
		return;
	}
	reply(req, p, items, resp);
}

/* metrics-server's tables: Name, cpu, memory (summed over containers), Window. */
static json_t *table_columns(const sk_api_resource *r)
{
	(void)r;
	return json_pack("[{s:s, s:s, s:s, s:s, s:i}, {s:s, s:s, s:s, s:s, s:i}, {s:s, s:s, s:s, s:s, s:i}, "
			 "{s:s, s:s, s:s, s:s, s:i}]",
			 "name", "Name", "type", "string", "format", "name", "description", "Name of the resource",
			 "priority", 0, "name", "cpu", "type", "string", "format", "quantity", "description", "",
			 "priority", 0, "name", "memory", "type", "string", "format", "quantity", "description", "",
			 "priority", 0, "name", "Window", "type", "string", "format", "duration", "description", "",
			 "priority", 0);
}

static json_t *table_cells(const sk_api_resource *r, json_t *obj, int64_t now)
{
	uint64_t cpu = 0, mem = 0;
	int64_t v;
	json_t *c, *u;
	size_t i;
	char cs[32], ms[32];

	(void)now;
	if (r->namespaced) {
		json_array_foreach(json_object_get(obj, "containers"), i, c) {
			u = json_object_get(c, "usage");
			if (sk_quantity_nano(json_string_value(json_object_get(u, "cpu")), &v) == 0)
				cpu += (uint64_t)v;
			if (sk_quantity_value(json_string_value(json_object_get(u, "memory")), &v) == 0)
				mem += (uint64_t)v;
		}
	} else {
		u = json_object_get(obj, "usage");
		if (sk_quantity_nano(json_string_value(json_object_get(u, "cpu")), &v) == 0)
			cpu = (uint64_t)v;
		if (sk_quantity_value(json_string_value(json_object_get(u, "memory")), &v) == 0)
			mem = (uint64_t)v;
	}
	sk_metrics_format_cpu(cpu, cs, sizeof(cs));
	sk_metrics_format_bytes(mem, ms, sizeof(ms));
	return json_pack("[O, s, s, O]", json_object_get(json_object_get(obj, "metadata"), "name"), cs, ms,
			 json_object_get(obj, "window"));
}

const sk_kind_ops sk__metrics_ops = {
	.serve = metrics_serve,
	.table_columns = table_columns,
	.table_cells = table_cells,
};
