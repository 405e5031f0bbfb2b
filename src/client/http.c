/* HTTPS transport of sk_client (libcurl over GnuTLS).
 *
 * Requests reuse easy handles from a small free list, so connections stay
 * open between requests of one client. A watch runs on its own thread with
 * its own handle and splits the chunked body into JSON lines. */
#include <curl/curl.h>
#include <errno.h>
#include <gnutls/gnutls.h>
#include <libgen.h>
#include <pthread.h>
#include <stdbool.h>
#include <string.h>

#include "client/client-int.h"
#include "util/json.h"
#include "util/util.h"
#include "util/yaml.h"
#include "util/version.h"

#define POOL_MAX 8

typedef struct http_client {
	/* the API servers (--server URL1,URL2…, then those learned from the
	 * kubernetes Endpoints: sk_client_set_servers): requests go to
	 * servers[cur], the next one after a connection failure. Under mu;
	 * the first npinned are the given ones, never dropped. */
	char **servers;
	unsigned nservers, npinned, cur;
	char *auth_header;          /* "Authorization: Bearer T" */
	char *ca_file;              /* temporary file holding the CA, NULL: no verification */
	char *cert_file, *key_file; /* a client certificate (read at each new connection), or NULL */
	bool own_cert_file;         /* cert_file is a temporary copy of a kubeconfig's (removed at free) */
	pthread_mutex_t mu;
	CURL *pool[POOL_MAX];
	int npool;
} http_client;

typedef struct buf {
	char *data;
	size_t len, cap;
} buf;

struct sk_client_watch {
	const struct sk_client_ops *ops; /* must stay first (see sk_client_watch_stop) */
	http_client *hc;
	char *path, *query;
	sk_client_watch_cb cb;
	void *ud;
	pthread_t thread;
	volatile int stop;
	bool ended; /* cb asked to stop or the stream ended */
	buf line;
};

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;

static void curl_init_once(void) { curl_global_init(CURL_GLOBAL_DEFAULT); }

static void buf_append(buf *b, const char *p, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		b->cap = (b->len + n + 1) * 2;
		b->data = xrealloc(b->data, b->cap);
	}
	memcpy(b->data + b->len, p, n);
	b->len += n;
	b->data[b->len] = '\0';
}

static size_t collect(char *p, size_t size, size_t nmemb, void *ud)
{
	buf_append(ud, p, size * nmemb);
	return size * nmemb;
}

/* The current server (malloc'd). */
static char *current_server(http_client *hc)
{
	char *s;

	pthread_mutex_lock(&hc->mu);
	s = xstrdup(hc->servers[hc->cur]);
	pthread_mutex_unlock(&hc->mu);
	return s;
}

static unsigned server_count(http_client *hc)
{
	unsigned n;

	pthread_mutex_lock(&hc->mu);
	n = hc->nservers;
	pthread_mutex_unlock(&hc->mu);
	return n;
}

static char *make_url(const char *server, const char *path, const char *query)
{
	if (query && *query)
		return xasprintf("%s%s?%s", server, path, query);
	return xasprintf("%s%s", server, path);
}

/* Errors where the server, not the request, failed: no connection, or one
 * that broke. */
static bool connection_failed(CURLcode rc)
{
	return rc == CURLE_COULDNT_CONNECT || rc == CURLE_COULDNT_RESOLVE_HOST || rc == CURLE_SSL_CONNECT_ERROR ||
	       rc == CURLE_SEND_ERROR || rc == CURLE_RECV_ERROR || rc == CURLE_GOT_NOTHING ||
	       rc == CURLE_OPERATION_TIMEDOUT;
}

/* Moves on from server to the next one (once, however many requests saw
 * it fail). */
static void fail_over(http_client *hc, const char *server, CURLcode rc)
{
	pthread_mutex_lock(&hc->mu);
	if (hc->nservers > 1 && !strcmp(hc->servers[hc->cur], server)) {
		hc->cur = (hc->cur + 1) % hc->nservers;
		sk_warn("client", "server %s: %s; using %s", server, curl_easy_strerror(rc), hc->servers[hc->cur]);
	}
	pthread_mutex_unlock(&hc->mu);
}

static CURL *handle_get(http_client *hc)
{
	CURL *h = NULL;

	pthread_mutex_lock(&hc->mu);
	if (hc->npool > 0)
		h = hc->pool[--hc->npool];
	pthread_mutex_unlock(&hc->mu);
	if (!h)
		h = curl_easy_init();
	else
		curl_easy_reset(h);
	if (!h)
		abort();
	return h;
}

static void handle_put(http_client *hc, CURL *h)
{
	pthread_mutex_lock(&hc->mu);
	if (hc->npool < POOL_MAX) {
		hc->pool[hc->npool++] = h;
		h = NULL;
	}
	pthread_mutex_unlock(&hc->mu);
	if (h)
		curl_easy_cleanup(h);
}

/* Common options: TLS, auth header, timeouts. headers is owned by the caller. */
static void setup_handle(http_client *hc, CURL *h, const char *url, struct curl_slist *headers)
{
	curl_easy_setopt(h, CURLOPT_URL, url);
	curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers);
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, 10000L);
	curl_easy_setopt(h, CURLOPT_TCP_KEEPALIVE, 1L);
	if (hc->cert_file) {
		curl_easy_setopt(h, CURLOPT_SSLCERT, hc->cert_file);
		curl_easy_setopt(h, CURLOPT_SSLKEY, hc->key_file);
	}
	if (hc->ca_file) {
		curl_easy_setopt(h, CURLOPT_CAINFO, hc->ca_file);
	} else {
		curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, 0L);
		curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, 0L);
	}
}

static struct curl_slist *base_headers(http_client *hc, const char *accept, const char *content_type)
{
	struct curl_slist *hl = NULL;
	cleanup_free char *ct = content_type ? xasprintf("Content-Type: %s", content_type) : NULL;
	cleanup_free char *ac = xasprintf("Accept: %s", accept);

	if (hc->auth_header)
		hl = curl_slist_append(hl, hc->auth_header);
	hl = curl_slist_append(hl, ac);
	hl = curl_slist_append(hl, "User-Agent: skiff-agent/" SK_KUBE_VERSION);
	if (ct)
		hl = curl_slist_append(hl, ct);
	return hl;
}

/* Turns a non-2xx response into err (from its Status when it has one). */
static void status_error(long code, const buf *body, const char *method, const char *path, sk_error_t *err)
{
	cleanup_json json_t *st = body->data ? json_loadb(body->data, body->len, 0, NULL) : NULL;
	const char *reason = json_string_value(json_object_get(st, "reason"));
	const char *msg = json_string_value(json_object_get(st, "message"));

	if (msg)
		sk_error_set(err, sk__client_code_from_reason(reason, (int)code), "%s", msg);
	else
		sk_error_set(err, sk__client_code_from_reason(NULL, (int)code), "%s %s: HTTP %ld: %.200s", method, path,
			     code, body->data ? body->data : "");
}

/* Performs one request; the body ends up in *out. Returns the HTTP status
 * or -1. With several servers, one that cannot be reached is left for the
 * next; the request is sent again there when it never left (no connection)
 * or is a GET. */
static long perform(http_client *hc, const char *method, const char *path, const char *query, const char *data,
		    size_t dlen, const char *content_type, const char *accept, buf *out, sk_error_t *err)
{
	struct curl_slist *hl = base_headers(hc, accept, data ? content_type : NULL);
	long code = -1;
	CURLcode rc = CURLE_OK;

	for (unsigned try = 0; try < server_count(hc); try++) {
		cleanup_free char *server = current_server(hc);
		cleanup_free char *url = make_url(server, path, query);
		CURL *h = handle_get(hc);

		setup_handle(hc, h, url, hl);
		curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, method);
		curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, 60000L);
		if (data) {
			curl_easy_setopt(h, CURLOPT_POSTFIELDS, data);
			curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)dlen);
		} else if (!strcmp(method, "GET")) {
			curl_easy_setopt(h, CURLOPT_HTTPGET, 1L);
		}
		curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, collect);
		curl_easy_setopt(h, CURLOPT_WRITEDATA, out);
		out->len = 0;
		rc = curl_easy_perform(h);
		if (rc == CURLE_OK)
			curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &code);
		handle_put(hc, h);
		if (rc == CURLE_OK || !connection_failed(rc))
			break;
		fail_over(hc, server, rc);
		if (rc != CURLE_COULDNT_CONNECT && strcmp(method, "GET"))
			break;
	}
	if (rc != CURLE_OK)
		sk_error_set(err, SK_EUNAVAILABLE, "%s %s: %s", method, path, curl_easy_strerror(rc));
	curl_slist_free_all(hl);
	return code;
}

static json_t *http_request(sk_client *c, const char *method, const char *path, const char *query, json_t *body,
			    const char *content_type, sk_error_t *err)
{
	http_client *hc = c->impl;
	size_t dlen = 0;
	cleanup_free char *data = body ? sk_json_dumps(body, &dlen) : NULL;
	buf out = {0};
	json_t *obj = NULL;
	json_error_t jerr;
	long code;

	code = perform(hc, method, path, query, data, dlen, content_type ? content_type : "application/json",
		       "application/json", &out, err);
	if (code < 0)
		goto done;
	if (code < 200 || code > 299) {
		status_error(code, &out, method, path, err);
		goto done;
	}
	obj = sk_json_loadb_ex(out.data ? out.data : "", out.len, 0, &jerr);
	if (!obj)
		sk_error_set(err, SK_EINTERNAL, "%s %s: bad JSON in response: %s", method, path, jerr.text);
done:
	free(out.data);
	return obj;
}

static char *http_get_raw(sk_client *c, const char *path, const char *query, size_t *len, sk_error_t *err)
{
	http_client *hc = c->impl;
	buf out = {0};
	long code = perform(hc, "GET", path, query, NULL, 0, NULL, "*/*", &out, err);

	if (code < 0) {
		free(out.data);
		return NULL;
	}
	if (code < 200 || code > 299) {
		status_error(code, &out, "GET", path, err);
		free(out.data);
		return NULL;
	}
	if (len)
		*len = out.len;
	return out.data ? out.data : xstrdup("");
}

/* ---- watch ----------------------------------------------------------------- */

static void watch_line(sk_client_watch *w, const char *line, size_t n)
{
	cleanup_json json_t *ev = NULL;
	const char *type;

	if (w->ended || n == 0)
		return;
	ev = sk_json_loadb(line, n);
	type = json_string_value(json_object_get(ev, "type"));
	if (!type) {
		sk_warn("client", "watch %s: malformed event: %.100s", w->path, line);
		return;
	}
	if (w->cb(type, json_object_get(ev, "object"), w->ud) != 0 || !strcmp(type, "ERROR"))
		w->ended = true;
}

static size_t watch_write(char *p, size_t size, size_t nmemb, void *ud)
{
	sk_client_watch *w = ud;
	size_t n = size * nmemb, start = 0;

	if (__atomic_load_n(&w->stop, __ATOMIC_ACQUIRE))
		return 0;
	buf_append(&w->line, p, n);
	for (size_t i = 0; i < w->line.len; i++) {
		if (w->line.data[i] != '\n')
			continue;
		watch_line(w, w->line.data + start, i - start);
		start = i + 1;
	}
	memmove(w->line.data, w->line.data + start, w->line.len - start);
	w->line.len -= start;
	return w->ended ? 0 : n;
}

static int watch_progress(void *ud, curl_off_t dt, curl_off_t dn, curl_off_t ut, curl_off_t un)
{
	sk_client_watch *w = ud;

	return __atomic_load_n(&w->stop, __ATOMIC_ACQUIRE) ? 1 : 0;
}

/* One try of the watch at server. Returns curl's result; *code is the
 * HTTP status (0: no response). */
static CURLcode watch_at(sk_client_watch *w, const char *server, struct curl_slist *hl, long *code)
{
	cleanup_free char *url = make_url(server, w->path, w->query);
	CURL *h = curl_easy_init();
	CURLcode rc;

	if (!h)
		abort();
	setup_handle(w->hc, h, url, hl);
	curl_easy_setopt(h, CURLOPT_HTTPGET, 1L);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, watch_write);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, w);
	curl_easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
	curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, watch_progress);
	curl_easy_setopt(h, CURLOPT_XFERINFODATA, w);
	/* A dead server is noticed through keepalive, the stream through timeoutSeconds. */
	curl_easy_setopt(h, CURLOPT_TCP_KEEPIDLE, 10L);
	curl_easy_setopt(h, CURLOPT_TCP_KEEPINTVL, 5L);
	rc = curl_easy_perform(h);
	*code = 0;
	curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, code);
	curl_easy_cleanup(h);
	return rc;
}

/* The Status a transport failure ends a watch with, so that a reflector
 * backs off and watches again (from another server) without relisting,
 * as client-go retries a watch that met a refused connection. */
static json_t *unavailable(CURLcode rc)
{
	return json_pack("{s:s, s:s, s:{}, s:s, s:s, s:s, s:i}", "kind", "Status", "apiVersion", "v1", "metadata",
			 "status", "Failure", "message", curl_easy_strerror(rc), "reason", "ServiceUnavailable", "code",
			 503);
}

/* Watches at the current server; one that cannot be connected to is left
 * for the next at once, as perform does. */
static void *watch_thread(void *arg)
{
	sk_client_watch *w = arg;
	http_client *hc = w->hc;
	struct curl_slist *hl = base_headers(hc, "application/json", NULL);
	cleanup_free char *server = NULL;
	CURLcode rc = CURLE_OK;
	long code = 0;

	for (unsigned try = 0; try < server_count(hc); try++) {
		free(server);
		server = current_server(hc);
		rc = watch_at(w, server, hl, &code);
		if (connection_failed(rc) && !__atomic_load_n(&w->stop, __ATOMIC_ACQUIRE))
			fail_over(hc, server, rc);
		if (rc != CURLE_COULDNT_CONNECT || w->line.len || w->ended)
			break;
	}
	if (!__atomic_load_n(&w->stop, __ATOMIC_ACQUIRE) && !w->ended) {
		cleanup_json json_t *st = NULL;

		if (code >= 300 && w->line.len)
			st = json_loadb(w->line.data, w->line.len, 0, NULL);
		if (rc != CURLE_OK && !st) {
			sk_debug("client", "watch %s%s: %s", server, w->path, curl_easy_strerror(rc));
			st = unavailable(rc);
		}
		w->cb("ERROR", st, w->ud);
	}
	curl_slist_free_all(hl);
	return NULL;
}

static void http_watch_stop(sk_client_watch *w);

static const struct sk_client_ops http_ops;

static sk_client_watch *http_watch(sk_client *c, const char *path, const char *query, sk_client_watch_cb cb, void *ud,
				   sk_error_t *err)
{
	http_client *hc = c->impl;
	sk_client_watch *w = xzalloc(sizeof(*w));
	cleanup_free char *q = xasprintf("watch=true%s%s", query && *query ? "&" : "", query ? query : "");

	w->ops = &http_ops;
	w->hc = hc;
	w->path = xstrdup(path);
	w->query = steal_ptr(&q);
	w->cb = cb;
	w->ud = ud;
	if (pthread_create(&w->thread, NULL, watch_thread, w) != 0) {
		sk_error_errno(err, errno, "starting watch thread");
		free(w->path);
		free(w->query);
		free(w);
		return NULL;
	}
	return w;
}

static void http_watch_stop(sk_client_watch *w)
{
	__atomic_store_n(&w->stop, 1, __ATOMIC_RELEASE);
	pthread_join(w->thread, NULL);
	free(w->line.data);
	free(w->path);
	free(w->query);
	free(w);
}

/* libcurl with GnuTLS wants the CA (and a client certificate) in a file: an
 * anonymous one (sk_memfile), named by /proc/self/fd/N. */
#define MEM_FILE_PREFIX "/proc/self/fd/"

static char *write_ca_file(const char *pem, sk_error_t *err)
{
	int fd = sk_memfile("skiff-tls", pem, strlen(pem));

	if (fd < 0) {
		sk_error_errno(err, errno, "writing a CA file");
		return NULL;
	}
	return xasprintf(MEM_FILE_PREFIX "%d", fd);
}

/* Releases a file write_ca_file made (closes its memfd). */
static void release_ca_file(const char *path)
{
	if (path && !strncmp(path, MEM_FILE_PREFIX, strlen(MEM_FILE_PREFIX)))
		close(atoi(path + strlen(MEM_FILE_PREFIX)));
}

static void hc_free(http_client *hc)
{
	for (int i = 0; i < hc->npool; i++)
		curl_easy_cleanup(hc->pool[i]);
	if (hc->ca_file) {
		release_ca_file(hc->ca_file);
		free(hc->ca_file);
	}
	pthread_mutex_destroy(&hc->mu);
	if (hc->own_cert_file && hc->cert_file)
		release_ca_file(hc->cert_file);
	free(hc->cert_file);
	free(hc->key_file);
	for (unsigned i = 0; i < hc->nservers; i++)
		free(hc->servers[i]);
	free(hc->servers);
	free(hc->auth_header);
	free(hc);
}

static void http_free(sk_client *c)
{
	hc_free(c->impl);
	free(c);
}

static const struct sk_client_ops http_ops = {
	.request = http_request,
	.get_raw = http_get_raw,
	.watch = http_watch,
	.watch_stop = http_watch_stop,
	.free = http_free,
};

/* "https://A:P,https://B:P/" → each URL without trailing slashes; NULL
 * when one is not https. */
static char **split_servers(const char *list, unsigned *n)
{
	char **v = xzalloc((strlen(list) / 9 + 2) * sizeof(*v));

	*n = 0;
	for (const char *p = list;;) {
		size_t len = strcspn(p, ",");

		while (len > 8 && p[len - 1] == '/')
			len--;
		if (len < 9 || strncmp(p, "https://", 8)) {
			for (unsigned i = 0; i < *n; i++)
				free(v[i]);
			free(v);
			return NULL;
		}
		v[(*n)++] = xstrndup(p, len);
		p += strcspn(p, ",");
		if (!*p++)
			return v;
	}
}

sk_client *sk_client_new_http(const char *server, const char *token, const char *ca_pem, sk_error_t *err)
{
	sk_client *c;
	http_client *hc;
	unsigned n = 0;
	char **servers = server ? split_servers(server, &n) : NULL;

	if (!servers) {
		sk_error_set(err, SK_EBADREQUEST, "server \"%s\": want https://HOST:PORT[,https://HOST:PORT...]",
			     server ? server : "");
		return NULL;
	}
	pthread_once(&curl_once, curl_init_once);
	hc = xzalloc(sizeof(*hc));
	hc->servers = servers;
	hc->nservers = hc->npinned = n;
	hc->auth_header = xasprintf("Authorization: Bearer %s", token ? token : "");
	pthread_mutex_init(&hc->mu, NULL);
	if (ca_pem) {
		hc->ca_file = write_ca_file(ca_pem, err);
		if (!hc->ca_file) {
			hc_free(hc);
			return NULL;
		}
	}
	c = xzalloc(sizeof(*c));
	c->ops = &http_ops;
	c->impl = hc;
	return c;
}

sk_client *sk_client_new_http_cert(const char *server, const char *cert_file, const char *key_file, const char *ca_pem,
				   sk_error_t *err)
{
	sk_client *c = sk_client_new_http(server, NULL, ca_pem, err);
	http_client *hc;

	if (!c)
		return NULL;
	hc = c->impl;
	free(hc->auth_header);
	hc->auth_header = NULL;
	hc->cert_file = xstrdup(cert_file);
	hc->key_file = xstrdup(key_file);
	return c;
}

/* The entry named name of a kubeconfig list (clusters, contexts, users):
 * its inner object (entry.cluster, .context, .user), or NULL. */
static json_t *kc_entry(json_t *doc, const char *list, const char *inner, const char *name)
{
	json_t *e;
	size_t i;

	json_array_foreach(json_object_get(doc, list), i, e) {
		const char *n = json_string_value(json_object_get(e, "name"));

		if (n && name && !strcmp(n, name))
			return json_object_get(e, inner);
	}
	return NULL;
}

/* A kubeconfig field holding PEM: the base64 of field-data, else the file
 * named by field (relative to the kubeconfig's directory); malloc'd or
 * NULL, with err set when present but unreadable. */
static char *kc_pem(json_t *o, const char *field, const char *path, sk_error_t *err)
{
	cleanup_free char *data_key = xasprintf("%s-data", field);
	const char *b64 = json_string_value(json_object_get(o, data_key));
	const char *file = json_string_value(json_object_get(o, field));

	if (b64 && *b64) {
		gnutls_datum_t in = {(unsigned char *)b64, (unsigned)strlen(b64)}, out = {NULL, 0};
		char *pem;

		if (gnutls_base64_decode2(&in, &out) < 0) {
			sk_error_set(err, SK_EINVALID, "kubeconfig \"%s\": bad %s", path, data_key);
			return NULL;
		}
		pem = xstrndup((char *)out.data, out.size);
		gnutls_free(out.data);
		return pem;
	}
	if (file && *file) {
		cleanup_free char *dir = xstrdup(path);
		cleanup_free char *full = file[0] == '/' ? xstrdup(file) : xasprintf("%s/%s", dirname(dir), file);
		char *pem = sk_read_file(full, NULL);

		if (!pem)
			sk_error_errno(err, errno, "kubeconfig \"%s\": reading %s \"%s\"", path, field, full);
		return pem;
	}
	return NULL;
}

/* Parsed with libyaml (util/yaml.h): the current context's cluster (server,
 * certificate-authority[-data]) and user (token or token-file, else
 * client-certificate[-data] with client-key[-data]), as client-go's
 * clientcmd reads them; no exec plugins or auth providers. */
sk_client *sk_client_new_kubeconfig(const char *path, sk_error_t *err)
{
	cleanup_free char *text = NULL, *ca = NULL, *cert = NULL, *key = NULL, *token = NULL;
	cleanup_json json_t *doc = NULL;
	json_t *ctx, *cluster, *user;
	const char *cur, *server, *tfile;
	sk_client *c;
	size_t len;

	text = sk_read_file(path, &len);
	if (!text) {
		sk_error_errno(err, errno, "reading kubeconfig \"%s\"", path);
		return NULL;
	}
	doc = sk_yaml_load(text, len, err);
	if (!doc || !json_is_object(doc)) {
		if (doc)
			sk_error_set(err, SK_EINVALID, "not a mapping");
		sk_error_wrap(err, "kubeconfig \"%s\"", path);
		return NULL;
	}
	cur = json_string_value(json_object_get(doc, "current-context"));
	ctx = kc_entry(doc, "contexts", "context", cur);
	if (!ctx && (!cur || !*cur) && json_array_size(json_object_get(doc, "contexts")) == 1)
		ctx = json_object_get(json_array_get(json_object_get(doc, "contexts"), 0), "context");
	if (!ctx) {
		sk_error_set(err, SK_EINVALID, "kubeconfig \"%s\": no context \"%s\"", path, cur ? cur : "");
		return NULL;
	}
	cluster = kc_entry(doc, "clusters", "cluster", json_string_value(json_object_get(ctx, "cluster")));
	user = kc_entry(doc, "users", "user", json_string_value(json_object_get(ctx, "user")));
	server = json_string_value(json_object_get(cluster, "server"));
	if (!server || !user) {
		sk_error_set(err, SK_EINVALID, "kubeconfig \"%s\": the current context has no %s", path,
			     !server ? "cluster server" : "user");
		return NULL;
	}
	sk_error_clear(err);
	ca = kc_pem(cluster, "certificate-authority", path, err);
	if (!ca && err->code)
		return NULL;
	tfile = json_string_value(json_object_get(user, "tokenFile"));
	if (json_string_value(json_object_get(user, "token")))
		token = xstrdup(json_string_value(json_object_get(user, "token")));
	else if (tfile && !(token = sk_read_file(tfile, NULL))) {
		sk_error_errno(err, errno, "kubeconfig \"%s\": reading tokenFile \"%s\"", path, tfile);
		return NULL;
	}
	if (token) {
		token[strcspn(token, "\r\n")] = '\0';
		return sk_client_new_http(server, token, ca, err);
	}
	cert = kc_pem(user, "client-certificate", path, err);
	key = cert ? kc_pem(user, "client-key", path, err) : NULL;
	if (!cert || !key) {
		if (!err->code)
			sk_error_set(err, SK_EINVALID,
				     "kubeconfig \"%s\": the user has no token and no client certificate", path);
		return NULL;
	}
	{
		cleanup_free char *both = xasprintf("%s%s", cert, key), *file = write_ca_file(both, err);

		if (!file)
			return NULL;
		c = sk_client_new_http_cert(server, file, file, ca, err);
		if (c)
			((http_client *)c->impl)->own_cert_file = true;
		else
			release_ca_file(file);
	}
	return c;
}

char *sk_client_ca_pem(sk_client *c)
{
	http_client *hc;

	if (!c || c->ops != &http_ops)
		return NULL;
	hc = c->impl;
	return hc->ca_file ? sk_read_file(hc->ca_file, NULL) : NULL;
}

static bool listed(char *const *v, unsigned n, const char *url)
{
	for (unsigned i = 0; i < n; i++)
		if (!strcmp(v[i], url))
			return true;
	return false;
}

void sk_client_set_servers(sk_client *c, json_t *urls)
{
	http_client *hc;
	char **v;
	unsigned n, cur = 0;
	size_t i;
	json_t *u;
	bool changed;

	if (!c || c->ops != &http_ops)
		return;
	hc = c->impl;
	pthread_mutex_lock(&hc->mu);
	v = xzalloc((hc->npinned + json_array_size(urls) + 1) * sizeof(*v));
	for (n = 0; n < hc->npinned; n++)
		v[n] = xstrdup(hc->servers[n]);
	json_array_foreach(urls, i, u) {
		const char *s = json_string_value(u);

		if (s && !strncmp(s, "https://", 8) && !listed(v, n, s))
			v[n++] = xstrdup(s);
	}
	changed = n != hc->nservers;
	for (unsigned k = 0; k < n && !changed; k++)
		changed = strcmp(v[k], hc->servers[k]) != 0;
	for (unsigned k = 0; k < n; k++)
		if (!strcmp(v[k], hc->servers[hc->cur]))
			cur = k;
	if (changed) {
		cleanup_free char *all = NULL;

		for (unsigned k = 0; k < n; k++) {
			char *next = xasprintf("%s%s%s", all ? all : "", all ? "," : "", v[k]);

			free(all);
			all = next;
		}
		sk_info("client", "API servers: %s", all);
	}
	for (unsigned k = 0; k < hc->nservers; k++)
		free(hc->servers[k]);
	free(hc->servers);
	hc->servers = v;
	hc->nservers = n;
	hc->cur = cur;
	pthread_mutex_unlock(&hc->mu);
}

json_t *sk_client_servers(sk_client *c)
{
	http_client *hc;
	json_t *arr = json_array();

	if (!c || c->ops != &http_ops)
		return arr;
	hc = c->impl;
	pthread_mutex_lock(&hc->mu);
	for (unsigned i = 0; i < hc->nservers; i++)
		json_array_append_new(arr, json_string(hc->servers[i]));
	pthread_mutex_unlock(&hc->mu);
	return arr;
}
