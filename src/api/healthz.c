/* /healthz, /livez and /readyz with named checks, and /metrics/slis (after
 * k8s.io/apiserver/pkg/server/healthz and component-base's slis): each
 * path runs its checks; ?verbose lists them ("[+]etcd ok"), ?exclude=NAME
 * (repeatable) leaves one out, /livez/NAME runs one. A failure answers 500
 * with the list (a failed check's reason withheld, as upstream) and logs the
 * reason. Every check a root path runs is counted in kubernetes_healthcheck
 * and kubernetes_healthchecks_total, exposed on /metrics/slis. */
#include <string.h>

#include "api/api-int.h"
#include "store/store.h"
#include "util/metrics.h"
#include "util/util.h"

enum { HEALTHZ = 1, LIVEZ = 2, READYZ = 4 };

typedef struct check {
	const char *name;
	unsigned in; /* the paths that run it */
	int (*run)(sk_api *api, sk_error_t *err);
} check;

static int ok(sk_api *api, sk_error_t *err)
{
	(void)api;
	(void)err;
	return 0;
}

static int store_ok(sk_api *api, sk_error_t *err) { return sk_store_health(api->store, err); }

static int not_shutting_down(sk_api *api, sk_error_t *err)
{
	if (sk__api_stopping(api))
		return sk_error_set(err, SK_EUNAVAILABLE, "process is shutting down");
	return 0;
}

/* upstream's names and order (kube-apiserver 1.32, for what skiff has) */
static const check checks[] = {
	{"ping", HEALTHZ | LIVEZ | READYZ, ok},       {"log", HEALTHZ | LIVEZ | READYZ, ok},
	{"etcd", HEALTHZ | LIVEZ | READYZ, store_ok}, {"etcd-readiness", READYZ, store_ok},
	{"shutdown", READYZ, not_shutting_down},
};

static const struct {
	const char *path, *name;
	unsigned bit;
} roots[] = {{"/healthz", "healthz", HEALTHZ}, {"/livez", "livez", LIVEZ}, {"/readyz", "readyz", READYZ}};

static struct {
	pthread_once_t once;
	sk_metrics *reg;
	sk_metric_family *gauge, *total;
} slis = {.once = PTHREAD_ONCE_INIT};

static void slis_init(void)
{
	static const char *const gauge_l[] = {"name", "type", NULL};
	static const char *const total_l[] = {"name", "status", "type", NULL};

	slis.reg = sk_metrics_new();
	slis.gauge = sk_metrics_family(slis.reg, SK_METRIC_GAUGE, "kubernetes_healthcheck",
				       "[STABLE] This metric records the result of a single healthcheck.", NULL,
				       gauge_l, NULL, 0);
	slis.total = sk_metrics_family(slis.reg, SK_METRIC_COUNTER, "kubernetes_healthchecks_total",
				       "[STABLE] This metric records the results of all healthcheck.", NULL, total_l,
				       NULL, 0);
}

static void observe(const char *name, const char *type, int good)
{
	const char *g[] = {name, type};
	const char *t[] = {name, good ? "success" : "error", type};

	pthread_once(&slis.once, slis_init);
	sk_metric_set(slis.gauge, g, good ? 1 : 0);
	sk_metric_add(slis.total, t, 1);
}

static void reply_text(sk_api_response *resp, int status, char *text)
{
	sk__reply_raw(resp, status, text, strlen(text));
	resp->content_type = "text/plain; charset=utf-8";
}

/* The root (/healthz, ?verbose, ?exclude=…) or one check (/healthz/NAME). */
static void serve(sk_api *api, const sk_api_request *req, sk_api_response *resp, unsigned bit, const char *type,
		  const char *one)
{
	cleanup_free char *out = xstrdup(""), *log = xstrdup("");
	cleanup_json json_t *excluded = json_object();
	int failed = 0;

	if (one) {
		for (size_t i = 0; i < sizeof(checks) / sizeof(checks[0]); i++) {
			sk_error_t err = {0};

			if (!(checks[i].in & bit) || strcmp(checks[i].name, one))
				continue;
			if (checks[i].run(api, &err) < 0)
				reply_text(resp, 500, xasprintf("internal server error: %s\n", err.msg));
			else
				reply_text(resp, 200, xstrdup("ok"));
			return;
		}
		sk__reply_raw(resp, 404, xstrdup("404 page not found\n"), 19);
		resp->content_type = "text/plain; charset=utf-8";
		return;
	}
	for (size_t i = 0; i < req->nargs; i++)
		if (!strcmp(req->args[i].key, "exclude") && req->args[i].value)
			json_object_set_new(excluded, req->args[i].value, json_false());
	for (size_t i = 0; i < sizeof(checks) / sizeof(checks[0]); i++) {
		const check *c = &checks[i];
		sk_error_t err = {0};
		char *next;

		if (!(c->in & bit))
			continue;
		if (json_object_get(excluded, c->name)) {
			json_object_set_new(excluded, c->name, json_true());
			next = xasprintf("%s[+]%s excluded: ok\n", out, c->name);
		} else if (c->run(api, &err) < 0) {
			cleanup_free char *l = log;

			observe(c->name, type, 0);
			failed = 1;
			next = xasprintf("%s[-]%s failed: reason withheld\n", out, c->name);
			log = xasprintf("%s[-]%s failed: %s\n", l, c->name, err.msg);
		} else {
			observe(c->name, type, 1);
			next = xasprintf("%s[+]%s ok\n", out, c->name);
		}
		free(out);
		out = next;
	}
	{
		/* excludes that name no check: a warning line, in the order given */
		cleanup_free char *names = xstrdup("");
		const char *k;
		json_t *v;

		json_object_foreach(excluded, k, v) {
			if (json_is_true(v))
				continue;
			cleanup_free char *prev = names;
			names = xasprintf("%s%s\"%s\"", prev, *prev ? "," : "", k);
		}
		if (*names) {
			char *next = xasprintf("%swarn: some health checks cannot be excluded: no matches for %s\n",
					       out, names);

			free(out);
			out = next;
		}
	}
	if (failed) {
		sk_warn("api", "%s check failed:\n%s", type, log);
		reply_text(resp, 500, xasprintf("%s%s check failed\n", out, type));
		return;
	}
	if (!sk__arg(req, "verbose")) {
		reply_text(resp, 200, xstrdup("ok"));
		return;
	}
	reply_text(resp, 200, xasprintf("%s%s check passed\n", out, type));
}

int sk__is_health_path(const char *p)
{
	if (!strcmp(p, "/metrics/slis"))
		return 1;
	for (size_t i = 0; i < sizeof(roots) / sizeof(roots[0]); i++) {
		size_t n = strlen(roots[i].path);

		if (!strncmp(p, roots[i].path, n) &&
		    (p[n] == 0 || (p[n] == '/' && p[n + 1] && !strchr(p + n + 1, '/'))))
			return 1;
	}
	return 0;
}

void sk__handle_health(sk_api *api, const sk_api_request *req, sk_api_response *resp)
{
	const char *p = req->path;

	if (!strcmp(p, "/metrics/slis")) {
		int om = sk_metrics_wants_openmetrics(req->accept);
		size_t len;
		char *text;

		pthread_once(&slis.once, slis_init);
		text = sk_metrics_expose(slis.reg, om, &len);
		sk__reply_raw(resp, 200, text, len);
		resp->content_type = om ? SK_METRICS_OPENMETRICS_TYPE : SK_METRICS_TEXT_TYPE;
		return;
	}
	for (size_t i = 0; i < sizeof(roots) / sizeof(roots[0]); i++) {
		size_t n = strlen(roots[i].path);

		if (strncmp(p, roots[i].path, n))
			continue;
		serve(api, req, resp, roots[i].bit, roots[i].name, p[n] == '/' ? p + n + 1 : NULL);
		return;
	}
}
