/* The aggregator's request path (aggregator.c keeps its table): proxying a
 * request under /apis/GROUP/VERSION to the APIService's server, and the
 * aggregated groups in discovery. */
#include <curl/curl.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "api/api-int.h"
#include "api/apiservice.h"
#include "api/logs.h"
#include "util/util.h"

static json_t *jget(json_t *o, const char *k) { return json_object_get(o, k); }
static const char *jstr(json_t *o, const char *k) { return json_string_value(json_object_get(o, k)); }

/* ---- discovery ---- */

static json_t *str_array(json_t *a)
{
	json_t *out = json_array(), *v;
	size_t i;

	json_array_foreach(a, i, v)
		if (json_is_string(v))
			json_array_append(out, v);
	return out;
}

json_t *sk__agg_discovery_resources(json_t *list)
{
	json_t *out = json_array(), *r, *top;
	size_t i, j;

	if (!json_is_object(list) || !json_is_array(jget(list, "resources")))
		return out;
	/* the resources first, then their subresources ("pods/log") */
	json_array_foreach(jget(list, "resources"), i, r) {
		const char *name = jstr(r, "name"), *kind = jstr(r, "kind");

		if (!name || !*name || strchr(name, '/') || !kind)
			continue;
		top = json_pack("{s:s, s:{s:s, s:s, s:s}, s:s, s:s, s:o}", "resource", name, "responseKind", "group",
				jstr(r, "group") ? jstr(r, "group") : "", "version",
				jstr(r, "version") ? jstr(r, "version") : "", "kind", kind, "scope",
				json_is_true(jget(r, "namespaced")) ? "Namespaced" : "Cluster", "singularResource",
				jstr(r, "singularName") ? jstr(r, "singularName") : "", "verbs",
				str_array(jget(r, "verbs")));
		if (json_array_size(jget(r, "shortNames")))
			json_object_set_new(top, "shortNames", str_array(jget(r, "shortNames")));
		if (json_array_size(jget(r, "categories")))
			json_object_set_new(top, "categories", str_array(jget(r, "categories")));
		json_array_append_new(out, top);
	}
	json_array_foreach(jget(list, "resources"), i, r) {
		const char *name = jstr(r, "name"), *slash = name ? strchr(name, '/') : NULL;
		json_t *parent = NULL, *subs;

		if (!slash || !slash[1] || strchr(slash + 1, '/') || !jstr(r, "kind"))
			continue;
		json_array_foreach(out, j, top)
			if (!strncmp(jstr(top, "resource"), name, (size_t)(slash - name)) &&
			    !jstr(top, "resource")[slash - name])
				parent = top;
		if (!parent)
			continue;
		subs = jget(parent, "subresources");
		if (!subs) {
			subs = json_array();
			json_object_set_new(parent, "subresources", subs);
		}
		json_array_append_new(subs, json_pack("{s:s, s:{s:s, s:s, s:s}, s:o}", "subresource", slash + 1,
						      "responseKind", "group", jstr(r, "group") ? jstr(r, "group") : "",
						      "version", jstr(r, "version") ? jstr(r, "version") : "", "kind",
						      jstr(r, "kind"), "verbs", str_array(jget(r, "verbs"))));
	}
	return out;
}

static int served_group(const char *group)
{
	const sk_kind_set *ks = sk__kinds();

	for (size_t i = 0; i < ks->n; i++)
		if (!strcmp(ks->v[i]->group, group))
			return 1;
	return 0;
}

/* The aggregated groups: [{group, gp, versions: [entry + "version"]}],
 * by groupPriorityMinimum (highest first) then name, versions by
 * versionPriority then name, as upstream's discovery sorts them. */
static int cmp_group(const void *a, const void *b)
{
	json_t *x = *(json_t *const *)a, *y = *(json_t *const *)b;
	json_int_t gx = json_integer_value(jget(x, "gp")), gy = json_integer_value(jget(y, "gp"));

	if (gx != gy)
		return gx > gy ? -1 : 1;
	return strcmp(jstr(x, "group"), jstr(y, "group"));
}

static int cmp_version(const void *a, const void *b)
{
	json_t *x = *(json_t *const *)a, *y = *(json_t *const *)b;
	json_int_t vx = json_integer_value(jget(x, "vp")), vy = json_integer_value(jget(y, "vp"));

	if (vx != vy)
		return vx > vy ? -1 : 1;
	return strcmp(jstr(x, "version"), jstr(y, "version"));
}

static json_t *groups(sk_api *api)
{
	cleanup_json json_t *all = sk__aggregator_entries(api);
	json_t *by = json_object(), *out = json_array(), *e, *g;
	const char *key;
	json_t **v;
	size_t n = 0, i;

	json_object_foreach(all, key, e) {
		const char *slash = strchr(key, '/');
		cleanup_free char *group = slash ? xstrndup(key, (size_t)(slash - key)) : NULL;

		if (!group || served_group(group))
			continue; /* a group served here too stays ours */
		g = jget(by, group);
		if (!g) {
			g = json_pack("{s:s, s:I, s:[]}", "group", group, "gp", (json_int_t)0, "versions");
			json_object_set_new(by, group, g);
		}
		if (json_integer_value(jget(e, "gp")) > json_integer_value(jget(g, "gp")))
			json_object_set(g, "gp", jget(e, "gp"));
		json_object_set_new(e, "version", json_string(slash + 1));
		json_array_append(jget(g, "versions"), e);
	}
	v = xmalloc((json_object_size(by) + 1) * sizeof(*v));
	json_object_foreach(by, key, g)
		v[n++] = g;
	qsort(v, n, sizeof(*v), cmp_group);
	for (i = 0; i < n; i++) {
		json_t *vs = jget(v[i], "versions");
		size_t m = json_array_size(vs);
		json_t **w = xmalloc((m + 1) * sizeof(*w)), *sorted = json_array();

		for (size_t k = 0; k < m; k++)
			w[k] = json_array_get(vs, k);
		qsort(w, m, sizeof(*w), cmp_version);
		for (size_t k = 0; k < m; k++)
			json_array_append(sorted, w[k]);
		free(w);
		json_object_set_new(v[i], "versions", sorted);
		json_array_append(out, v[i]);
	}
	free(v);
	json_decref(by);
	return out;
}

void sk__aggregator_add_groups(sk_api *api, json_t *group_list)
{
	cleanup_json json_t *gs = groups(api);
	json_t *g, *ver, *list = jget(group_list, "groups");
	size_t i, j;

	json_array_foreach(gs, i, g) {
		json_t *versions = json_array();

		json_array_foreach(jget(g, "versions"), j, ver) {
			cleanup_free char *gv = xasprintf("%s/%s", jstr(g, "group"), jstr(ver, "version"));

			json_array_append_new(
				versions, json_pack("{s:s, s:s}", "groupVersion", gv, "version", jstr(ver, "version")));
		}
		json_array_append_new(list, json_pack("{s:s, s:o, s:O}", "name", jstr(g, "group"), "versions", versions,
						      "preferredVersion", json_array_get(versions, 0)));
	}
}

json_t *sk__aggregator_group(sk_api *api, const char *group)
{
	cleanup_json json_t *list = json_pack("{s:[]}", "groups");
	json_t *g;
	size_t i;

	sk__aggregator_add_groups(api, list);
	json_array_foreach(jget(list, "groups"), i, g)
		if (!strcmp(jstr(g, "name"), group)) {
			json_t *out = json_deep_copy(g);

			json_object_set_new(out, "kind", json_string("APIGroup"));
			json_object_set_new(out, "apiVersion", json_string("v1"));
			return out;
		}
	return NULL;
}

void sk__aggregator_add_discovery(sk_api *api, json_t *discovery_list)
{
	cleanup_json json_t *gs = groups(api);
	json_t *g, *ver, *items = jget(discovery_list, "items");
	size_t i, j;

	json_array_foreach(gs, i, g) {
		json_t *versions = json_array();

		json_array_foreach(jget(g, "versions"), j, ver) {
			int ok = json_is_true(jget(ver, "available"));
			json_t *res = ok && json_is_array(jget(ver, "resources")) ? json_incref(jget(ver, "resources"))
										  : json_array();

			json_array_append_new(versions,
					      json_pack("{s:s, s:o, s:s}", "version", jstr(ver, "version"), "resources",
							res, "freshness", ok ? "Current" : "Stale"));
		}
		json_array_append_new(
			items, json_pack("{s:{s:s}, s:o}", "metadata", "name", jstr(g, "group"), "versions", versions));
	}
}

/* ---- the proxy ---- */

/* upstream's RequestInfo of a path under /apis/GROUP/VERSION/ (rest) */
static void request_attrs(const sk_api_request *req, const char *rest, sk_authz_attrs *a, char segs[6][256])
{
	int n = 0;
	const char *s = rest, *m = req->method;
	int watch = sk__arg_bool(req, "watch");

	while (*s && n < 6) {
		size_t l;

		while (*s == '/')
			s++;
		l = strcspn(s, "/");
		if (!l)
			break;
		snprintf(segs[n++], 256, "%.*s", (int)(l < 255 ? l : 255), s);
		s += l;
	}
	a->ns = a->name = a->subresource = a->resource = "";
	{
		int i = 0;

		if (n >= 3 && !strcmp(segs[0], "namespaces")) {
			a->ns = segs[1];
			i = 2;
		} else if (n == 2 && !strcmp(segs[0], "namespaces")) {
			a->resource = segs[0];
			a->name = segs[1];
			i = n;
		}
		if (i < n)
			a->resource = segs[i];
		if (i + 1 < n)
			a->name = segs[i + 1];
		if (i + 2 < n)
			a->subresource = segs[i + 2];
	}
	if (watch)
		a->verb = "watch";
	else if (!strcmp(m, "GET") || !strcmp(m, "HEAD"))
		a->verb = *a->name ? "get" : "list";
	else if (!strcmp(m, "POST"))
		a->verb = "create";
	else if (!strcmp(m, "PUT"))
		a->verb = "update";
	else if (!strcmp(m, "PATCH"))
		a->verb = "patch";
	else if (!strcmp(m, "DELETE"))
		a->verb = *a->name ? "delete" : "deletecollection";
	else
		a->verb = "";
}

static const char *static_type(const char *ct)
{
	static const char *const known[] = {"application/json;stream=watch",
					    "application/vnd.kubernetes.protobuf;stream=watch",
					    "application/vnd.kubernetes.protobuf",
					    "application/json",
					    "application/yaml",
					    "text/plain; charset=utf-8",
					    "text/plain",
					    NULL};

	for (int i = 0; ct && known[i]; i++)
		if (!strncmp(ct, known[i], strlen(known[i])))
			return known[i];
	return "application/octet-stream";
}

typedef struct pjob {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int refs, headers, done;
	long code;
	char ctype[128];
	int fd; /* our end of the socket pair, -1 when buffering */
	struct {
		char *data;
		size_t len;
	} body;
	CURL *h;
	struct curl_slist *hdrs, *connect;
	char *req_body;
	int cafd;
	CURLcode rc;
	char errbuf[CURL_ERROR_SIZE];
} pjob;

static void job_unref(pjob *j)
{
	int last;

	pthread_mutex_lock(&j->mu);
	last = --j->refs == 0;
	pthread_mutex_unlock(&j->mu);
	if (!last)
		return;
	curl_easy_cleanup(j->h);
	curl_slist_free_all(j->hdrs);
	curl_slist_free_all(j->connect);
	if (j->cafd >= 0)
		close(j->cafd);
	if (j->fd >= 0)
		close(j->fd);
	free(j->req_body);
	free(j->body.data);
	pthread_mutex_destroy(&j->mu);
	pthread_cond_destroy(&j->cv);
	free(j);
}

static void headers_seen(pjob *j)
{
	char *ct = NULL;

	pthread_mutex_lock(&j->mu);
	if (!j->headers) {
		curl_easy_getinfo(j->h, CURLINFO_RESPONSE_CODE, &j->code);
		curl_easy_getinfo(j->h, CURLINFO_CONTENT_TYPE, &ct);
		snprintf(j->ctype, sizeof(j->ctype), "%s", ct ? ct : "");
		j->headers = 1;
		pthread_cond_broadcast(&j->cv);
	}
	pthread_mutex_unlock(&j->mu);
}

static size_t on_header(char *p, size_t size, size_t n, void *ud)
{
	pjob *j = ud;
	long code = 0;

	if (size * n <= 2 && (p[0] == '\r' || p[0] == '\n')) {
		curl_easy_getinfo(j->h, CURLINFO_RESPONSE_CODE, &code);
		if (code >= 200)
			headers_seen(j);
	}
	return size * n;
}

static size_t on_data(char *p, size_t size, size_t n, void *ud)
{
	pjob *j = ud;
	size_t len = size * n, off = 0;

	headers_seen(j);
	if (j->fd < 0) {
		if (j->body.len + len > (64u << 20))
			return 0;
		j->body.data = xrealloc(j->body.data, j->body.len + len + 1);
		memcpy(j->body.data + j->body.len, p, len);
		j->body.len += len;
		return len;
	}
	while (off < len) {
		ssize_t w = send(j->fd, p + off, len - off, MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return 0;
		off += (size_t)w;
	}
	return len;
}

/* the client went away: stop a stream the backend keeps open */
static int on_progress(void *ud, curl_off_t dt, curl_off_t dn, curl_off_t ut, curl_off_t un)
{
	pjob *j = ud;
	struct pollfd pf = {.fd = j->fd, .events = POLLOUT};

	(void)dt, (void)dn, (void)ut, (void)un;
	if (j->fd < 0)
		return 0;
	return poll(&pf, 1, 0) > 0 && (pf.revents & (POLLHUP | POLLERR)) ? 1 : 0;
}

static void *job_thread(void *arg)
{
	pjob *j = arg;

	j->rc = curl_easy_perform(j->h);
	pthread_mutex_lock(&j->mu);
	j->done = 1;
	pthread_cond_broadcast(&j->cv);
	pthread_mutex_unlock(&j->mu);
	job_unref(j);
	return NULL;
}

static void add_header(pjob *j, const char *name, const char *value)
{
	cleanup_free char *h = NULL;

	if (strpbrk(value, "\r\n"))
		return;
	h = xasprintf("%s: %s", name, value);
	j->hdrs = curl_slist_append(j->hdrs, h);
}

static void identity_headers(pjob *j, const sk_user *u)
{
	const char *k;
	json_t *vals, *v;
	size_t i;

	add_header(j, "X-Remote-User", u->name ? u->name : "");
	for (size_t g = 0; g < u->ngroups; g++)
		add_header(j, "X-Remote-Group", u->groups[g]);
	json_object_foreach(u->extra, k, vals) {
		char *esc = curl_easy_escape(NULL, k, 0);
		cleanup_free char *name = xasprintf("X-Remote-Extra-%s", esc ? esc : "");

		curl_free(esc);
		json_array_foreach(vals, i, v)
			if (json_is_string(v))
				add_header(j, name, json_string_value(v));
	}
}

static char *target_url(const char *base, const sk_api_request *req)
{
	size_t cap, n;
	char *url;

	if (req->request_uri && *req->request_uri == '/')
		return xasprintf("%s%s", base, req->request_uri);
	cap = strlen(base) + strlen(req->path) * 3 + 2;
	for (size_t i = 0; i < req->nargs; i++)
		cap += 3 * (strlen(req->args[i].key) + strlen(req->args[i].value ? req->args[i].value : "")) + 2;
	url = xmalloc(cap + 1);
	n = (size_t)snprintf(url, cap, "%s%s", base, req->path);
	for (size_t i = 0; i < req->nargs; i++) {
		char *k = curl_easy_escape(NULL, req->args[i].key, 0);
		char *v = curl_easy_escape(NULL, req->args[i].value ? req->args[i].value : "", 0);

		n += (size_t)snprintf(url + n, cap - n, "%c%s=%s", i ? '&' : '?', k ? k : "", v ? v : "");
		curl_free(k);
		curl_free(v);
	}
	return url;
}

static void unavailable(sk_api_response *resp, const char *msg)
{
	sk__reply_status(resp, 503, "ServiceUnavailable", msg, NULL, NULL, NULL);
}

int sk__aggregator_handle(sk_api *api, const sk_api_request *req, sk_api_response *resp)
{
	char group[254], version[64];
	const char *p = req->path, *rest;
	cleanup_json json_t *e = NULL;
	cleanup_free char *ip = NULL, *why = NULL, *base = NULL, *url = NULL, *connect = NULL, *reason = NULL;
	char segs[6][256];
	sk_authz_attrs a = {.user = req->user, .path = req->path, .resource_request = 1};
	json_int_t tport = 0;
	pjob *j;
	pthread_t t;
	int sv[2] = {-1, -1}, stream = req->header != NULL;

	if (!sk__agg_of(api) || strncmp(p, "/apis/", 6) || sscanf(p, "/apis/%253[^/]/%63[^/]", group, version) != 2)
		return 0;
	rest = p + 6 + strlen(group) + 1 + strlen(version);
	if (*rest && *rest != '/')
		return 0;
	e = sk__aggregator_entry(api, group, version);
	if (!e)
		return 0;
	a.api_group = group;
	a.api_version = version;
	if (!*rest || !strcmp(rest, "/")) {
		a.resource_request = 0;
		a.verb = !strcmp(req->method, "GET") ? "get" : req->method;
		a.api_group = a.api_version = a.resource = a.subresource = a.ns = a.name = "";
	} else {
		request_attrs(req, rest, &a, segs);
	}
	if (!sk__authorize(api, &a, &reason)) {
		cleanup_free char *msg = sk__authz_forbidden_message(&a, reason);

		if (a.resource_request)
			sk__reply_status_for(resp, 403, "Forbidden", msg, a.api_group, a.resource, a.name, NULL);
		else
			sk__reply_status(resp, 403, "Forbidden", msg, NULL, NULL, NULL);
		return 1;
	}
	if (!json_is_true(jget(e, "available"))) {
		unavailable(resp, "service unavailable");
		return 1;
	}
	if (sk__resolve_service(api, jstr(e, "ns"), jstr(e, "svc"), json_integer_value(jget(e, "port")), &ip, &tport,
				&why) < 0) {
		cleanup_free char *msg = xasprintf("Error trying to reach service: %s", why);

		unavailable(resp, msg);
		return 1;
	}
	base = xasprintf("https://%s.%s.svc:%lld", jstr(e, "svc"), jstr(e, "ns"),
			 (long long)json_integer_value(jget(e, "port")));
	url = target_url(base, req);
	connect = xasprintf("%s.%s.svc:%lld:%s:%lld", jstr(e, "svc"), jstr(e, "ns"),
			    (long long)json_integer_value(jget(e, "port")), ip, (long long)tport);
	j = xzalloc(sizeof(*j));
	pthread_mutex_init(&j->mu, NULL);
	pthread_cond_init(&j->cv, NULL);
	j->refs = 2;
	j->fd = -1;
	j->cafd = -1;
	sk__aggregator_curl_init();
	j->h = curl_easy_init();
	if (sk__aggregator_tls(sk__agg_of(api), j->h, e, &j->cafd, &why) < 0) {
		cleanup_free char *msg = xasprintf("Error trying to reach service: %s", why);

		j->refs = 1;
		job_unref(j);
		unavailable(resp, msg);
		return 1;
	}
	identity_headers(j, req->user);
	{
		const char *ct = req->header ? req->header(req->header_ctx, "Content-Type") : req->content_type;
		const char *acc = req->header ? req->header(req->header_ctx, "Accept") : req->accept;
		const char *ua = req->header ? req->header(req->header_ctx, "User-Agent") : NULL;

		add_header(j, "Content-Type", ct ? ct : "application/json");
		add_header(j, "Accept", acc ? acc : "application/json");
		if (ua)
			add_header(j, "User-Agent", ua);
		j->hdrs = curl_slist_append(j->hdrs, "Expect:"); /* no 100-continue round trip */
	}
	j->connect = curl_slist_append(NULL, connect);
	curl_easy_setopt(j->h, CURLOPT_URL, url);
	curl_easy_setopt(j->h, CURLOPT_CONNECT_TO, j->connect);
	curl_easy_setopt(j->h, CURLOPT_HTTPHEADER, j->hdrs);
	curl_easy_setopt(j->h, CURLOPT_CUSTOMREQUEST, req->method);
	curl_easy_setopt(j->h, CURLOPT_ERRORBUFFER, j->errbuf);
	curl_easy_setopt(j->h, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(j->h, CURLOPT_HEADERDATA, j);
	curl_easy_setopt(j->h, CURLOPT_WRITEFUNCTION, on_data);
	curl_easy_setopt(j->h, CURLOPT_WRITEDATA, j);
	curl_easy_setopt(j->h, CURLOPT_CONNECTTIMEOUT, 10L);
	if (!strcmp(req->method, "HEAD"))
		curl_easy_setopt(j->h, CURLOPT_NOBODY, 1L);
	if (req->body_obj && !req->body)
		j->req_body = json_dumps(req->body_obj, JSON_COMPACT);
	else if (req->body_len)
		j->req_body = xstrndup(req->body, req->body_len);
	if (j->req_body) {
		curl_easy_setopt(j->h, CURLOPT_POSTFIELDS, j->req_body);
		curl_easy_setopt(j->h, CURLOPT_POSTFIELDSIZE, (long)strlen(j->req_body));
	}
	if (stream && socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == 0) {
		j->fd = sv[0];
		curl_easy_setopt(j->h, CURLOPT_NOPROGRESS, 0L);
		curl_easy_setopt(j->h, CURLOPT_XFERINFOFUNCTION, on_progress);
		curl_easy_setopt(j->h, CURLOPT_XFERINFODATA, j);
	} else {
		stream = 0;
		curl_easy_setopt(j->h, CURLOPT_TIMEOUT, 120L);
	}
	if (pthread_create(&t, NULL, job_thread, j) != 0) {
		if (sv[1] >= 0)
			close(sv[1]);
		j->refs = 1;
		job_unref(j);
		unavailable(resp, "Error trying to reach service: no thread");
		return 1;
	}
	pthread_detach(t);
	pthread_mutex_lock(&j->mu);
	while (stream ? !j->headers && !j->done : !j->done)
		pthread_cond_wait(&j->cv, &j->mu);
	pthread_mutex_unlock(&j->mu);
	if (!j->headers) {
		/* no answer at all: connection refused, TLS failure, timeout */
		cleanup_free char *msg = xasprintf("Error trying to reach service: %s",
						   *j->errbuf ? j->errbuf : curl_easy_strerror(j->rc));

		if (sv[1] >= 0)
			close(sv[1]);
		unavailable(resp, msg);
		job_unref(j);
		return 1;
	}
	resp->status = (int)j->code;
	resp->content_type = static_type(j->ctype);
	if (stream) {
		resp->stream = sk__stream_new(sv[1]);
	} else {
		resp->body = j->body.data;
		resp->len = j->body.len;
		j->body.data = NULL;
	}
	job_unref(j);
	return 1;
}
