/* The admission plugins MutatingAdmissionWebhook and
 * ValidatingAdmissionWebhook (upstream's admission/plugin/webhook/
 * {mutating,validating,generic,request,errors}): each write's request is
 * matched against the webhooks of the stored configurations (rules,
 * namespaceSelector, objectSelector) and sent to each matching one as an
 * AdmissionReview over HTTPS; a refusal is replied with the webhook's Status,
 * a mutating webhook's JSONPatch is applied, and a call that fails follows
 * the webhook's failurePolicy.
 *
 * The configurations are read once and kept until a write to either kind
 * through this server (sk__webhookconfig_written) or for a second (writes
 * through another server on the same store): a request with none
 * configured costs a mutex and a comparison, and two empty store ranges a
 * second. Admission runs on the HTTP server's worker
 * threads (writes are dispatched there), so a call that waits up to its
 * timeoutSeconds blocks no event loop. Mutating webhooks are called one
 * after the other, validating ones at once (a thread each), as upstream. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <curl/curl.h>
#include <gnutls/gnutls.h>

#include "api/admission.h"
#include "api/cel/cel.h"
#include "api/celauthz.h"
#include "api/patch.h"
#include "api/webhook.h"
#include "kube/selector.h"
#include "store/store.h"
#include "util/json.h"
#include "util/util.h"

/* ---- the configurations ---- */

/* Writes through another API server on the same store (etcd) are seen
 * within this long, as an informer's watch would deliver them. */
#define RELOAD_MS 1000

static pthread_mutex_t cache_mu = PTHREAD_MUTEX_INITIALIZER;
static unsigned long generation = 1; /* atomic: bumped by every write to the kinds */
static struct {
	sk_api *api;
	unsigned long gen;
	int64_t loaded_ms; /* monotonic */
	json_t *hooks[2];  /* [mutating, validating]: [{configuration, webhook}], by configuration name */
} cache;

void sk__webhookconfig_written(sk_api *api, const sk_api_resource *r)
{
	(void)api;
	(void)r;
	__atomic_add_fetch(&generation, 1, __ATOMIC_ACQ_REL);
}

static json_t *load_hooks(sk_api *api, const char *plural)
{
	cleanup_free char *prefix = xasprintf("/registry/%s/", plural);
	sk_store_list l = {0};
	sk_error_t err = {0};
	json_t *out = json_array();

	if (sk_store_range(api->store, prefix, NULL, 0, 0, &l, &err) < 0) {
		sk_warn("webhook", "cannot list %s: %s", plural, err.msg);
		return out;
	}
	for (size_t i = 0; i < l.n; i++) {
		cleanup_json json_t *c = sk__obj_decode(l.items[i].value, l.items[i].len, l.items[i].mod_rev);
		const char *name = json_string_value(json_object_get(json_object_get(c, "metadata"), "name"));
		json_t *h;
		size_t j;

		json_array_foreach(json_object_get(c, "webhooks"), j, h)
			json_array_append_new(out,
					      json_pack("{s:s, s:O}", "configuration", name ? name : "", "webhook", h));
	}
	sk_store_list_release(&l);
	return out;
}

/* The webhooks of one kind (0 mutating, 1 validating): a new reference. */
static json_t *hooks_of(sk_api *api, int validating)
{
	unsigned long gen = __atomic_load_n(&generation, __ATOMIC_ACQUIRE);
	struct timespec ts;
	int64_t now;
	json_t *h;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	now = (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
	pthread_mutex_lock(&cache_mu);
	if (cache.api != api || cache.gen != gen || now - cache.loaded_ms > RELOAD_MS) {
		json_decref(cache.hooks[0]);
		json_decref(cache.hooks[1]);
		cache.hooks[0] = load_hooks(api, "mutatingwebhookconfigurations");
		cache.hooks[1] = load_hooks(api, "validatingwebhookconfigurations");
		cache.api = api;
		cache.gen = gen;
		cache.loaded_ms = now;
	}
	h = json_incref(cache.hooks[validating]);
	pthread_mutex_unlock(&cache_mu);
	return h;
}

/* ---- matching ---- */

static int str_in(json_t *list, const char *s)
{
	json_t *v;
	size_t i;

	json_array_foreach(list, i, v)
		if (json_is_string(v) && (!strcmp(json_string_value(v), "*") || !strcmp(json_string_value(v), s)))
			return 1;
	return 0;
}

int sk__webhook_rule_matches(json_t *rule, const sk_webhook_attrs *a)
{
	const char *scope = json_string_value(json_object_get(rule, "scope"));
	int is_ns = !a->group[0] && !strcmp(a->resource, "namespaces");
	json_t *v;
	size_t i;

	if (!str_in(json_object_get(rule, "operations"), a->op) ||
	    !str_in(json_object_get(rule, "apiGroups"), a->group) ||
	    !str_in(json_object_get(rule, "apiVersions"), a->version))
		return 0;
	if (scope && !strcmp(scope, "Namespaced") && (is_ns || !a->ns[0]))
		return 0;
	if (scope && !strcmp(scope, "Cluster") && !is_ns && a->ns[0])
		return 0;
	json_array_foreach(json_object_get(rule, "resources"), i, v) {
		const char *rs = json_string_value(v), *slash;
		size_t rlen;

		if (!rs)
			continue;
		slash = strchr(rs, '/');
		rlen = slash ? (size_t)(slash - rs) : strlen(rs);
		if (!((rlen == 1 && rs[0] == '*') || (strlen(a->resource) == rlen && !strncmp(rs, a->resource, rlen))))
			continue;
		if (slash ? (!strcmp(slash + 1, "*") || !strcmp(slash + 1, a->sub)) : !a->sub[0])
			return 1;
	}
	return 0;
}

static json_t *labels_of(json_t *o) { return json_object_get(json_object_get(o, "metadata"), "labels"); }

static int selector_empty(json_t *sel)
{
	return !json_object_size(json_object_get(sel, "matchLabels")) &&
	       !json_array_size(json_object_get(sel, "matchExpressions"));
}

/* 1 when the selector matches labels, 0 when not, -1 with err. */
static int selector_matches(json_t *sel, json_t *labels, sk_error_t *err)
{
	sk_kube_label_selector *s = sk_kube_label_selector_from_json(sel, err);
	cleanup_json json_t *none = labels ? NULL : json_object();
	int m;

	if (!s)
		return -1;
	m = sk_kube_label_selector_match(s, labels ? labels : none);
	sk_kube_label_selector_free(s);
	return m;
}

/* ---- the request ---- */

const char *sk__adm_op_name(sk_adm_op op)
{
	switch (op) {
	case SK_ADM_CREATE:
		return "CREATE";
	case SK_ADM_UPDATE:
		return "UPDATE";
	case SK_ADM_DELETE:
		return "DELETE";
	default:
		return "CONNECT";
	}
}

static const char *options_kind(sk_adm_op op)
{
	switch (op) {
	case SK_ADM_CREATE:
		return "CreateOptions";
	case SK_ADM_UPDATE:
		return "UpdateOptions";
	case SK_ADM_DELETE:
		return "DeleteOptions";
	default:
		return NULL;
	}
}

static int is_namespace(const sk_adm_request *a) { return !a->res->group[0] && !strcmp(a->res->plural, "namespaces"); }

static json_t *user_info(const sk_user *u)
{
	json_t *ui = json_object(), *groups = json_array();

	if (!u)
		return ui;
	json_object_set_new(ui, "username", json_string(u->name ? u->name : ""));
	if (u->uid && *u->uid)
		json_object_set_new(ui, "uid", json_string(u->uid));
	for (size_t i = 0; i < u->ngroups; i++)
		json_array_append_new(groups, json_string(u->groups[i]));
	json_object_set_new(ui, "groups", groups);
	if (json_object_size(u->extra))
		json_object_set(ui, "extra", u->extra);
	return ui;
}

/* The request's kind: the object's own for a subresource of another kind
 * (eviction, scale, binding), else the resource's. */
static json_t *request_kind(const sk_adm_request *a)
{
	json_t *o = a->obj ? a->obj : a->old;
	const char *av = json_string_value(json_object_get(o, "apiVersion"));
	const char *k = json_string_value(json_object_get(o, "kind"));

	if (a->sub[0] && strcmp(a->sub, "status") && av && k) {
		const char *slash = strchr(av, '/');
		cleanup_free char *g = slash ? xstrndup(av, (size_t)(slash - av)) : xstrdup("");

		return json_pack("{s:s, s:s, s:s}", "group", g, "version", slash ? slash + 1 : av, "kind", k);
	}
	return json_pack("{s:s, s:s, s:s}", "group", a->res->group, "version", a->res->version, "kind", a->res->kind);
}

json_t *sk__webhook_review(const sk_adm_request *a, const char *uid, const char *version)
{
	json_t *kind = request_kind(a);
	json_t *res = json_pack("{s:s, s:s, s:s}", "group", a->res->group, "version", a->res->version, "resource",
				a->res->plural);
	json_t *req = json_pack("{s:s, s:O, s:O}", "uid", uid, "kind", kind, "resource", res);
	const char *ok = options_kind(a->op);
	const char *ns = is_namespace(a) ? a->name : a->ns;

	if (a->sub[0])
		json_object_set_new(req, "subResource", json_string(a->sub));
	json_object_set_new(req, "requestKind", kind);
	json_object_set_new(req, "requestResource", res);
	if (a->sub[0])
		json_object_set_new(req, "requestSubResource", json_string(a->sub));
	if (a->name && *a->name)
		json_object_set_new(req, "name", json_string(a->name));
	if (ns && *ns)
		json_object_set_new(req, "namespace", json_string(ns));
	json_object_set_new(req, "operation", json_string(sk__adm_op_name(a->op)));
	json_object_set_new(req, "userInfo", user_info(a->user));
	json_object_set_new(req, "object", a->op == SK_ADM_DELETE || !a->obj ? json_null() : json_incref(a->obj));
	json_object_set_new(req, "oldObject", a->old && a->op != SK_ADM_CREATE ? json_incref(a->old) : json_null());
	json_object_set_new(req, "dryRun", json_boolean(a->dry_run));
	if (ok) {
		json_t *o = json_pack("{s:s, s:s}", "kind", ok, "apiVersion", "meta.k8s.io/v1");

		if (a->dry_run)
			json_object_set_new(o, "dryRun", json_pack("[s]", "All"));
		json_object_set_new(req, "options", o);
	}
	return json_pack("{s:s, s:s, s:o}", "kind", "AdmissionReview", "apiVersion", version, "request", req);
}

int sk__webhook_parse_response(const char *body, size_t len, const char *uid, int mutating, json_t **response,
			       char **why)
{
	json_error_t je;
	cleanup_json json_t *doc = json_loadb(body, len, 0, &je);
	json_t *r, *pt, *patch;
	const char *av, *kind, *ruid;

	*response = NULL;
	if (!json_is_object(doc)) {
		*why = doc ? xstrdup("failed to call webhook: the response is not a JSON object")
			   : xasprintf("failed to call webhook: %s", je.text);
		return -1;
	}
	r = json_object_get(doc, "response");
	if (!json_is_object(r)) {
		*why = xstrdup("received invalid webhook response: webhook response was absent");
		return -1;
	}
	ruid = json_string_value(json_object_get(r, "uid"));
	if (!ruid || strcmp(ruid, uid)) {
		*why = xasprintf("received invalid webhook response: expected response.uid=\"%s\", got \"%s\"", uid,
				 ruid ? ruid : "");
		return -1;
	}
	av = json_string_value(json_object_get(doc, "apiVersion"));
	kind = json_string_value(json_object_get(doc, "kind"));
	if (!av || !kind || strcmp(kind, "AdmissionReview") ||
	    (strcmp(av, "admission.k8s.io/v1") && strcmp(av, "admission.k8s.io/v1beta1"))) {
		*why = xasprintf("received invalid webhook response: expected webhook response of "
				 "admission.k8s.io/v1, Kind=AdmissionReview, got %s, Kind=%s",
				 av ? av : "/", kind ? kind : "");
		return -1;
	}
	if (!json_is_boolean(json_object_get(r, "allowed")) && json_object_get(r, "allowed")) {
		*why = xstrdup("failed to call webhook: response.allowed is not a boolean");
		return -1;
	}
	pt = json_object_get(r, "patchType");
	patch = json_object_get(r, "patch");
	if (pt && !json_is_null(pt) && !json_is_string(pt)) {
		*why = xstrdup("failed to call webhook: response.patchType is not a string");
		return -1;
	}
	if (patch && !json_is_null(patch) && !json_is_string(patch)) {
		*why = xstrdup("failed to call webhook: response.patch is not a string");
		return -1;
	}
	{
		int has_patch = json_string_length(patch) > 0, has_type = json_string_length(pt) > 0;

		if (mutating && has_patch && !has_type)
			*why = xstrdup("received invalid webhook response: webhook returned response.patch but not "
				       "response.patchType");
		else if (mutating && has_type && !has_patch)
			*why = xstrdup("received invalid webhook response: webhook returned response.patchType but not "
				       "response.patch");
		else if (!mutating && has_patch)
			*why = xstrdup(
				"received invalid webhook response: validating webhook may not return response.patch");
		else if (!mutating && has_type)
			*why = xstrdup("received invalid webhook response: validating webhook may not return "
				       "response.patchType");
		else
			*why = NULL;
		if (*why)
			return -1;
	}
	*response = json_incref(r);
	return 0;
}

json_t *sk__webhook_denied_status(const char *webhook, json_t *result)
{
	json_t *st = json_is_object(result) ? json_deep_copy(result) : json_object();
	const char *msg = json_string_value(json_object_get(st, "message"));
	const char *reason = json_string_value(json_object_get(st, "reason"));
	const char *status = json_string_value(json_object_get(st, "status"));
	json_t *code = json_object_get(st, "code");
	char *m;

	if (!json_is_integer(code) || json_integer_value(code) < 400 || json_integer_value(code) > 599)
		json_object_set_new(st, "code", json_integer(400));
	if (!status || !*status || !strcmp(status, "Success"))
		json_object_set_new(st, "status", json_string("Failure"));
	if (msg && *msg)
		m = xasprintf("admission webhook \"%s\" denied the request: %s", webhook, msg);
	else if (reason && *reason)
		m = xasprintf("admission webhook \"%s\" denied the request: %s", webhook, reason);
	else
		m = xasprintf("admission webhook \"%s\" denied the request without explanation", webhook);
	json_object_set_new(st, "message", json_string(m));
	free(m);
	json_object_set_new(st, "kind", json_string("Status"));
	json_object_set_new(st, "apiVersion", json_string("v1"));
	if (!json_is_object(json_object_get(st, "metadata")))
		json_object_set_new(st, "metadata", json_object());
	return st;
}

/* Refuses with st (sk__reply_error replies an SK_ESTATUS message as is). */
static int refuse_status(sk_error_t *err, json_t *st)
{
	cleanup_free char *s = json_dumps(st, JSON_COMPACT);

	if (s && strlen(s) < sizeof(err->msg))
		return sk_error_set(err, SK_ESTATUS, "%s", s);
	/* too long for the error: the message alone */
	return sk_error_set(
		err, (int)json_integer_value(json_object_get(st, "code")) == 403 ? SK_EFORBIDDEN : SK_EBADREQUEST, "%s",
		json_string_value(json_object_get(st, "message")));
}

/* ---- the call ---- */

typedef struct {
	char *url;     /* what is POSTed to */
	char *dial;    /* host:port connected to, for messages */
	char *connect; /* CURLOPT_CONNECT_TO entry for service references, or NULL */
} target;

static void target_free(target *t)
{
	free(t->url);
	free(t->dial);
	free(t->connect);
}

/* The target of a webhook: 0, or -1 with *why (url set for the message). */
static int hook_target(sk_api *api, json_t *cc, int timeout, target *t, char **why)
{
	const char *url = json_string_value(json_object_get(cc, "url"));
	json_t *svc = json_object_get(cc, "service");
	const char *ns = json_string_value(json_object_get(svc, "namespace"));
	const char *name = json_string_value(json_object_get(svc, "name"));
	const char *path = json_string_value(json_object_get(svc, "path"));
	json_int_t port = json_object_get(svc, "port") ? json_integer_value(json_object_get(svc, "port")) : 443;
	cleanup_free char *ip = NULL;
	json_int_t tport = 0;

	if (url) {
		CURLU *u = curl_url();
		char *host = NULL, *p = NULL;

		t->url = xasprintf("%s?timeout=%ds", url, timeout);
		if (curl_url_set(u, CURLUPART_URL, url, 0) == CURLUE_OK &&
		    curl_url_get(u, CURLUPART_HOST, &host, 0) == CURLUE_OK &&
		    curl_url_get(u, CURLUPART_PORT, &p, CURLU_DEFAULT_PORT) == CURLUE_OK)
			t->dial = xasprintf("%s:%s", host, p);
		else
			t->dial = xstrdup(url);
		curl_free(host);
		curl_free(p);
		curl_url_cleanup(u);
		return 0;
	}
	t->url = xasprintf("https://%s.%s.svc:%lld%s%s?timeout=%ds", name ? name : "", ns ? ns : "", (long long)port,
			   path && *path == '/' ? "" : "/", path ? path : "", timeout);
	if (!name || !ns || sk__resolve_service(api, ns, name, port, &ip, &tport, why) < 0) {
		if (!*why)
			*why = xstrdup("service reference is incomplete");
		return -1;
	}
	t->dial = xasprintf(strchr(ip, ':') ? "[%s]:%lld" : "%s:%lld", ip, (long long)tport);
	t->connect = xasprintf("%s.%s.svc:%lld:%s:%lld", name, ns, (long long)port, ip, (long long)tport);
	return 0;
}

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static void curl_init(void) { curl_global_init(CURL_GLOBAL_DEFAULT); }

static size_t collect(char *p, size_t size, size_t n, void *ud)
{
	struct {
		char *buf;
		size_t len;
	} *b = ud;
	size_t add = size * n;

	if (b->len + add > (3u << 20))
		return 0; /* a 3 MiB cap */
	b->buf = xrealloc(b->buf, b->len + add + 1);
	memcpy(b->buf + b->len, p, add);
	b->len += add;
	b->buf[b->len] = '\0';
	return add;
}

/* A CA bundle (base64 of PEM) for CURLOPT_CAINFO, which GnuTLS's libcurl
 * takes only as a file: an sk_memfile named /proc/self/fd/N. Returns its
 * descriptor (caller closes) with the path in path, or -1 with *why. */
static int ca_file(const char *b64, char *path, size_t cap, char **why)
{
	gnutls_datum_t in = {(unsigned char *)(uintptr_t)b64, (unsigned)strlen(b64)}, out = {0};
	int fd;

	if (gnutls_base64_decode2(&in, &out) < 0) {
		*why = xstrdup("could not get REST client: caBundle is not valid base64");
		return -1;
	}
	fd = sk_memfile("skiff-webhook-ca", out.data, out.size);
	gnutls_free(out.data);
	if (fd < 0) {
		*why = xasprintf("could not get REST client: %s", strerror(errno));
		return -1;
	}
	snprintf(path, cap, "/proc/self/fd/%d", fd);
	return fd;
}

/* Go's words for libcurl's failures, where they differ. */
static char *call_error(CURLcode rc, const char *errbuf, const target *t)
{
	const char *msg = *errbuf ? errbuf : curl_easy_strerror(rc);

	switch (rc) {
	case CURLE_COULDNT_CONNECT:
		return xasprintf("dial tcp %s: connect: connection refused", t->dial);
	case CURLE_OPERATION_TIMEDOUT:
		return xstrdup("context deadline exceeded");
	case CURLE_PEER_FAILED_VERIFICATION:
		return xasprintf("tls: failed to verify certificate: %s", msg);
	default:
		return xstrdup(msg);
	}
}

/* POSTs review to the webhook: 0 with *response, or -1 with *why (the
 * reason of upstream's ErrCallingWebhook). */
static int call_hook(sk_api *api, json_t *hook, json_t *review, const char *uid, int mutating, json_t **response,
		     char **why)
{
	json_t *cc = json_object_get(hook, "clientConfig");
	const char *ca = json_string_value(json_object_get(cc, "caBundle"));
	int timeout = json_object_get(hook, "timeoutSeconds")
			      ? (int)json_integer_value(json_object_get(hook, "timeoutSeconds"))
			      : 10;
	target t = {0};
	cleanup_free char *body = NULL, *reason = NULL;
	char cafile[64];
	int cafd = -1;
	char errbuf[CURL_ERROR_SIZE] = "";
	struct {
		char *buf;
		size_t len;
	} out = {0};
	struct curl_slist *hdrs = NULL, *connect = NULL;
	CURL *c;
	CURLcode rc;
	long status = 0;
	int ret = -1;

	*why = NULL;
	if (timeout < 1 || timeout > 30)
		timeout = 10;
	if (hook_target(api, cc, timeout, &t, &reason) < 0) {
		*why = xasprintf("failed to call webhook: Post \"%s\": %s", t.url ? t.url : "", reason);
		target_free(&t);
		return -1;
	}
	if (ca && *ca && (cafd = ca_file(ca, cafile, sizeof(cafile), why)) < 0) {
		target_free(&t);
		return -1;
	}
	body = json_dumps(review, JSON_COMPACT);
	pthread_once(&curl_once, curl_init);
	c = curl_easy_init();
	hdrs = curl_slist_append(hdrs, "Content-Type: application/json");
	hdrs = curl_slist_append(hdrs, "Accept: application/json, */*");
	curl_easy_setopt(c, CURLOPT_URL, t.url);
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "https");
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdrs);
	curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, (long)timeout);
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, collect);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, &out);
	curl_easy_setopt(c, CURLOPT_USERAGENT, "skiff-apiserver-admission");
	if (cafd >= 0)
		curl_easy_setopt(c, CURLOPT_CAINFO, cafile);
	if (t.connect) {
		connect = curl_slist_append(NULL, t.connect);
		curl_easy_setopt(c, CURLOPT_CONNECT_TO, connect);
	}
	rc = curl_easy_perform(c);
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
	if (rc != CURLE_OK) {
		cleanup_free char *m = call_error(rc, errbuf, &t);

		*why = xasprintf("failed to call webhook: Post \"%s\": %s", t.url, m);
	} else if (status != 200) {
		*why = xasprintf("failed to call webhook: the server responded with the status code %ld but did not "
				 "return more information",
				 status);
	} else if (sk__webhook_parse_response(out.buf ? out.buf : "", out.len, uid, mutating, response, why) == 0) {
		ret = 0;
	}
	curl_easy_cleanup(c);
	curl_slist_free_all(hdrs);
	curl_slist_free_all(connect);
	if (cafd >= 0)
		close(cafd);
	free(out.buf);
	target_free(&t);
	return ret;
}

/* ---- dispatch ---- */

static const char *review_version(json_t *hook)
{
	json_t *v;
	size_t i;

	json_array_foreach(json_object_get(hook, "admissionReviewVersions"), i, v) {
		if (json_is_string(v) && !strcmp(json_string_value(v), "v1"))
			return "admission.k8s.io/v1";
		if (json_is_string(v) && !strcmp(json_string_value(v), "v1beta1"))
			return "admission.k8s.io/v1beta1";
	}
	return "admission.k8s.io/v1";
}

int sk__adm_selectors_match(sk_api *api, json_t *m, sk_adm_request *a, const sk_webhook_attrs *at, sk_error_t *err)
{
	json_t *nsel = json_object_get(m, "namespaceSelector"), *osel = json_object_get(m, "objectSelector");
	int ns_err = 0, obj_err = 0, r;
	sk_error_t nerr = {0}, oerr = {0};

	if ((at->ns[0] || is_namespace(a)) && json_is_object(nsel) && !selector_empty(nsel)) {
		cleanup_json json_t *nsobj = NULL;
		json_t *labels;

		if (is_namespace(a)) {
			labels = labels_of(a->obj && a->op != SK_ADM_DELETE ? a->obj : a->old);
		} else {
			nsobj = sk__stored_core(api, "namespaces", "", at->ns);
			labels = labels_of(nsobj);
		}
		if (!is_namespace(a) && !nsobj) {
			sk_error_set(&nerr, SK_ENOTFOUND, "namespaces \"%s\" not found", at->ns);
			ns_err = 1;
		} else if ((r = selector_matches(nsel, labels, &nerr)) == 0) {
			return 0;
		} else if (r < 0) {
			ns_err = 1;
		}
	}
	if (json_is_object(osel) && !selector_empty(osel)) {
		int m1 = a->obj && a->op != SK_ADM_DELETE ? selector_matches(osel, labels_of(a->obj), &oerr) : 0;
		int m2 = m1 != 1 && a->old ? selector_matches(osel, labels_of(a->old), &oerr) : 0;

		if (m1 < 0 || m2 < 0)
			obj_err = 1;
		else if (!m1 && !m2)
			return 0;
	}
	if (ns_err || obj_err) {
		*err = ns_err ? nerr : oerr;
		if (err->code != SK_ENOTFOUND)
			err->code = SK_EINTERNAL;
		return -1;
	}
	return 1;
}

/* Whether the webhook is to be called for a (upstream's ShouldCallHook):
 * 1, 0, or -1 with err (the namespace is not found). */
static int should_call(sk_api *api, json_t *hook, sk_adm_request *a, const sk_webhook_attrs *at, sk_error_t *err)
{
	json_t *rule;
	size_t i;
	int m = 0;

	json_array_foreach(json_object_get(hook, "rules"), i, rule)
		if ((m = sk__webhook_rule_matches(rule, at)))
			break;
	if (!m)
		return 0;
	return sk__adm_selectors_match(api, hook, a, at, err);
}

static void annotate(sk_adm_request *a, const char *key, const char *value)
{
	if (a->annotations)
		json_object_set_new(a->annotations, key, json_string(value));
}

/* Applies a mutating webhook's JSONPatch to a->obj, defaulted again as
 * upstream decodes the patched object: 0, or -1 with err. */
static int apply_patch(sk_adm_request *a, json_t *entry, const char *name, json_t *response, size_t i, int round,
		       sk_error_t *err)
{
	const char *pt = json_string_value(json_object_get(response, "patchType"));
	const char *p64 = json_string_value(json_object_get(response, "patch"));
	gnutls_datum_t in = {(unsigned char *)(uintptr_t)p64, (unsigned)strlen(p64)}, out = {0};
	cleanup_json json_t *ops = NULL, *patched = NULL;
	json_error_t je;

	if (strcmp(pt, "JSONPatch"))
		return sk_error_set(err, SK_EINTERNAL,
				    "Internal error occurred: failed calling webhook \"%s\": unsupported "
				    "patch type \"%s\"",
				    name, pt);
	if (gnutls_base64_decode2(&in, &out) < 0)
		return sk_error_set(err, SK_EINTERNAL,
				    "Internal error occurred: failed calling webhook \"%s\": failed to call "
				    "webhook: illegal base64 data in response.patch",
				    name);
	ops = json_loadb((const char *)out.data, out.size, 0, &je);
	gnutls_free(out.data);
	if (!json_is_array(ops))
		return sk_error_set(err, SK_EINTERNAL, "Internal error occurred: %s",
				    ops ? "invalid JSON Patch" : je.text);
	patched = sk_json_patch(a->obj, ops, err);
	if (!patched || !json_is_object(patched)) {
		if (!patched) {
			cleanup_free char *m = xstrdup(err->msg);

			return sk_error_set(err, SK_EINTERNAL, "Internal error occurred: %s", m);
		}
		return sk_error_set(err, SK_EINTERNAL, "Internal error occurred: the patched object is not an object");
	}
	/* a->name may be the object's own metadata.name (a create): the
	 * patched object keeps that very string, so the name stays the
	 * request's (a webhook cannot rename the object) and a->name valid */
	{
		json_t *name_v = json_object_get(json_object_get(a->obj, "metadata"), "name");
		json_t *pm = json_object_get(patched, "metadata");

		if (json_is_string(name_v) && json_string_value(name_v) == a->name) {
			if (!json_is_object(pm)) {
				pm = json_object();
				json_object_set_new(patched, "metadata", pm);
			}
			json_object_set(pm, "name", name_v);
		}
	}
	json_object_clear(a->obj);
	json_object_update(a->obj, patched);
	if (a->res->ops && a->res->ops->defaults && !a->sub[0])
		a->res->ops->defaults(a->res, a->obj);
	{
		cleanup_free char *key = xasprintf("patch.webhook.admission.k8s.io/round_%d_index_%zu", round, i);
		cleanup_json json_t *pv = json_pack("{s:s, s:s, s:O, s:s}", "configuration",
						    json_string_value(json_object_get(entry, "configuration")),
						    "webhook", name, "patch", ops, "patchType", "JSONPatch");
		cleanup_free char *ps = json_dumps(pv, JSON_COMPACT);

		annotate(a, key, ps);
	}
	return 0;
}

const char *sk__adm_verb(sk_adm_op op)
{
	switch (op) {
	case SK_ADM_CREATE:
		return "create";
	case SK_ADM_UPDATE:
		return "update";
	case SK_ADM_DELETE:
		return "delete";
	default:
		return "get";
	}
}

/* The webhook's matchConditions (upstream's matchconditions.Matcher): 1
 * when all are true, 0 when one is false (a false one wins over errors),
 * -1 with *why when one could not be evaluated. */
static int match_conditions(sk_api *api, json_t *hook, sk_adm_request *a, char **why)
{
	json_t *conds = json_object_get(hook, "matchConditions"), *c;
	cleanup_json json_t *review = NULL;
	int64_t budget = SK_CEL_RUNTIME_BUDGET;
	sk_cel_authz_ctx actx = {api, a->user};
	sk_cel_authz_check req = {0};
	size_t i;
	int errors = 0;

	if (!json_array_size(conds))
		return 1;
	review = sk__webhook_review(a, "", "admission.k8s.io/v1");
	req.resource_request = 1;
	req.group = a->res->group;
	req.resource = a->res->plural;
	req.subresource = a->sub ? a->sub : "";
	req.ns = a->ns ? a->ns : "";
	req.name = a->name ? a->name : "";
	req.field_selector = req.label_selector = req.path = "";
	req.verb = sk__adm_verb(a->op);
	json_array_foreach(conds, i, c) {
		const char *expr = json_string_value(json_object_get(c, "expression"));
		char *cerr = NULL;
		sk_cel_program *p = expr ? sk_cel_compile(expr, SK_CEL_VAR_ADMISSION | SK_CEL_VAR_AUTHORIZER, NULL,
							  &cerr)
					 : NULL;
		sk_cel_vars vars = {.budget = &budget,
				    .authorize = sk__cel_authorize,
				    .authorize_ud = &actx,
				    .request = &req,
				    .adm_object = json_object_get(json_object_get(review, "request"), "object"),
				    .adm_old_object = json_object_get(json_object_get(review, "request"), "oldObject"),
				    .adm_request = json_object_get(review, "request")};
		sk_cel_result r;

		if (!p) {
			if (!*why)
				*why = xasprintf("compilation failed: %s", cerr ? cerr : "");
			free(cerr);
			errors++;
			continue;
		}
		switch (sk_cel_eval(p, &vars, &r)) {
		case SK_CEL_BOOL:
			if (!r.b) {
				sk_cel_result_release(&r);
				sk_cel_program_free(p);
				free(*why);
				*why = NULL;
				return 0;
			}
			break;
		case SK_CEL_COST:
			if (!*why)
				*why = xstrdup("operation cancelled: actual cost limit exceeded");
			errors++;
			break;
		default:
			if (!*why)
				*why = xasprintf("expression '%s' resulted in error: %s", expr,
						 r.kind == SK_CEL_ERROR && r.text ? r.text : "no such overload");
			errors++;
		}
		sk_cel_result_release(&r);
		sk_cel_program_free(p);
	}
	return errors ? -1 : 1;
}

/* One webhook call: prepared in the request's thread, made in its own
 * thread when several validating webhooks are called at once. */
typedef struct hook_call {
	sk_api *api;
	json_t *entry, *hook; /* borrowed */
	size_t index;
	const char *name;
	char uid[40];
	json_t *review, *response; /* owned */
	char *why;                 /* owned: the call failed */
	int rc;                    /* call_hook's */
	int mutating;
	pthread_t thread;
} hook_call;

static void hook_call_release(hook_call *c)
{
	json_decref(c->review);
	json_decref(c->response);
	free(c->why);
}

/* Whether the webhook is called for a: 1 with c ready for the call, 0
 * when not, -1 with err (a matching error under failurePolicy Fail, a dry
 * run it cannot take). */
static int prepare_call(sk_api *api, sk_adm_request *a, const sk_webhook_attrs *at, json_t *entry, size_t i,
			int validating, hook_call *c, sk_error_t *err)
{
	json_t *hook = json_object_get(entry, "webhook");
	const char *name = json_string_value(json_object_get(hook, "name"));
	const char *fp = json_string_value(json_object_get(hook, "failurePolicy"));
	const char *se = json_string_value(json_object_get(hook, "sideEffects"));
	cleanup_free char *why = NULL;
	int rc = should_call(api, hook, a, at, err);

	if (rc <= 0)
		return rc;
	if (!name)
		name = "";
	rc = match_conditions(api, hook, a, &why);
	if (!rc)
		return 0;
	if (rc < 0) {
		if (fp && !strcmp(fp, "Ignore")) {
			sk_warn("webhook", "failed to evaluate the matchConditions of webhook %s, failing open: %s",
				name, why);
			return 0;
		}
		return sk_error_set(err, SK_EINTERNAL, "Internal error occurred: failed calling webhook \"%s\": %s",
				    name, why);
	}
	if (a->dry_run && (!se || (strcmp(se, "None") && strcmp(se, "NoneOnDryRun"))))
		return sk_error_set(err, SK_EBADREQUEST, "admission webhook \"%s\" does not support dry run", name);
	*c = (hook_call){.api = api, .entry = entry, .hook = hook, .index = i, .name = name, .mutating = !validating};
	sk__new_uuid(c->uid, sizeof(c->uid));
	c->review = sk__webhook_review(a, c->uid, review_version(hook));
	return 1;
}

static void *make_call(void *arg)
{
	hook_call *c = arg;

	c->rc = call_hook(c->api, c->hook, c->review, c->uid, c->mutating, &c->response, &c->why);
	return NULL;
}

/* What the call's outcome does to the request: -1 with err when it is
 * refused, else 0 (a mutating webhook's patch applied). */
static int finish_call(sk_adm_request *a, hook_call *c, int round, sk_error_t *err)
{
	const char *fp = json_string_value(json_object_get(c->hook, "failurePolicy"));
	json_t *response = c->response, *w;
	size_t j;

	if (c->rc < 0) {
		if (fp && !strcmp(fp, "Ignore")) {
			cleanup_free char *key = xasprintf("failed-open.%s.webhook.admission.k8s.io/round_%d_index_%zu",
							   c->mutating ? "mutation" : "validating", round, c->index);

			sk_warn("webhook", "Failed calling webhook, failing open %s: failed calling webhook \"%s\": %s",
				c->name, c->name, c->why);
			annotate(a, key, c->name);
			return 0;
		}
		sk_warn("webhook", "Failed calling webhook, failing closed %s: failed calling webhook \"%s\": %s",
			c->name, c->name, c->why);
		return sk_error_set(err, SK_EINTERNAL, "Internal error occurred: failed calling webhook \"%s\": %s",
				    c->name, c->why);
	}
	{
		const char *k;
		json_t *v;

		json_object_foreach(json_object_get(response, "auditAnnotations"), k, v)
			if (json_is_string(v)) {
				cleanup_free char *key = xasprintf("%s/%s", c->name, k);

				annotate(a, key, json_string_value(v));
			}
	}
	json_array_foreach(json_object_get(response, "warnings"), j, w)
		if (json_is_string(w) && a->resp)
			sk__add_warning(a->resp, json_string_value(w));
	if (!json_is_true(json_object_get(response, "allowed"))) {
		cleanup_json json_t *st = sk__webhook_denied_status(c->name, json_object_get(response, "status"));

		return refuse_status(err, st);
	}
	if (c->mutating && json_string_length(json_object_get(response, "patch")) && a->obj && a->op != SK_ADM_DELETE)
		return apply_patch(a, c->entry, c->name, response, c->index, round, err);
	return 0;
}

/* Calls one mutating webhook (entry i) in round: -1 with err when the
 * request is refused, 0 when it was not called, 1 when it was. */
static int run_hook(sk_api *api, sk_adm_request *a, const sk_webhook_attrs *at, json_t *entry, size_t i, int round,
		    sk_error_t *err)
{
	hook_call c = {0};
	int rc = prepare_call(api, a, at, entry, i, 0, &c, err);

	if (rc <= 0)
		return rc;
	make_call(&c);
	rc = finish_call(a, &c, round, err) < 0 ? -1 : 1;
	hook_call_release(&c);
	return rc;
}

/* Calls the matching validating webhooks at once (upstream calls them in
 * parallel), then takes their outcomes in order: the first refusal wins,
 * every webhook's warnings and annotations are kept. */
static int run_validating(sk_api *api, sk_adm_request *a, const sk_webhook_attrs *at, json_t *hooks, sk_error_t *err)
{
	hook_call *calls = xzalloc(json_array_size(hooks) * sizeof(*calls));
	size_t n = 0, i;
	json_t *entry;
	int rc = 0;

	json_array_foreach(hooks, i, entry) {
		int p = prepare_call(api, a, at, entry, i, 1, &calls[n], err);

		if (p < 0) {
			rc = -1;
			break;
		}
		n += p;
	}
	if (!rc) {
		for (i = 1; i < n; i++)
			if (pthread_create(&calls[i].thread, NULL, make_call, &calls[i]))
				make_call(&calls[i]), calls[i].thread = 0;
		if (n)
			make_call(&calls[0]);
		for (i = 1; i < n; i++)
			if (calls[i].thread)
				pthread_join(calls[i].thread, NULL);
		for (i = 0; i < n; i++) {
			sk_error_t e = {0};

			if (finish_call(a, &calls[i], 0, &e) < 0 && !rc) {
				*err = e;
				rc = -1;
			}
		}
	}
	for (i = 0; i < n; i++)
		hook_call_release(&calls[i]);
	free(calls);
	return rc;
}

/* Runs the webhooks of one kind over a. A mutating webhook with
 * reinvocationPolicy IfNeeded is called once more when a webhook after it
 * changed the object (upstream's second round). */
static int dispatch(sk_api *api, sk_adm_request *a, int validating, sk_error_t *err)
{
	cleanup_json json_t *hooks = NULL, *after = NULL;
	sk_webhook_attrs at;
	json_t *entry;
	size_t i;
	int again = 0;

	if (!a->res || !a->user)
		return 0;
	hooks = hooks_of(api, validating);
	if (!json_array_size(hooks))
		return 0;
	/* the configurations are never sent to webhooks (IsExemptAdmissionConfigurationResource) */
	if (!strcmp(a->res->group, "admissionregistration.k8s.io"))
		return 0;
	at = (sk_webhook_attrs){sk__adm_op_name(a->op), a->res->group,        a->res->version,
				a->res->plural,         a->sub ? a->sub : "", a->ns ? a->ns : ""};
	if (validating)
		return run_validating(api, a, &at, hooks, err);
	after = json_array(); /* per hook: the object after its call, or null */
	json_array_foreach(hooks, i, entry) {
		int rc = run_hook(api, a, &at, entry, i, 0, err);
		const char *rp = json_string_value(
			json_object_get(json_object_get(entry, "webhook"), "reinvocationPolicy"));

		if (rc < 0)
			return -1;
		json_array_append_new(after, rc && a->obj && rp && !strcmp(rp, "IfNeeded") ? json_deep_copy(a->obj)
											   : json_null());
	}
	json_array_foreach(after, i, entry)
		again |= !json_is_null(entry) && !json_equal(entry, a->obj);
	if (!again)
		return 0;
	json_array_foreach(hooks, i, entry)
		if (!json_is_null(json_array_get(after, i)) && run_hook(api, a, &at, entry, i, 1, err) < 0)
			return -1;
	return 0;
}

static int mutating_admit(sk_api *api, sk_adm_request *a, sk_error_t *err) { return dispatch(api, a, 0, err); }
static int validating_validate(sk_api *api, sk_adm_request *a, sk_error_t *err) { return dispatch(api, a, 1, err); }

const sk_adm_plugin sk__adm_mutating_webhook = {
	.name = "MutatingAdmissionWebhook",
	.admit = mutating_admit,
};

const sk_adm_plugin sk__adm_validating_webhook = {
	.name = "ValidatingAdmissionWebhook",
	.validate = validating_validate,
};
