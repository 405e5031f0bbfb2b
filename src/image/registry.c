#include "image/registry.h"

#include <ctype.h>
#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <gnutls/gnutls.h>
#include <string.h>
#include <sys/stat.h>

#include "util/util.h"

#define MANIFEST_ACCEPT \
	"Accept: " SK_MT_OCI_INDEX ", " SK_MT_OCI_MANIFEST ", " SK_MT_DOCKER_LIST ", " SK_MT_DOCKER_MANIFEST

struct sk__registry {
	char *host; /* as in the reference: "docker.io", "127.0.0.1:5000" */
	char *base; /* "https://registry-1.docker.io" */
	char *repo; /* "library/busybox" */
	char *user, *pass;
	int insecure; /* plain HTTP or unverified HTTPS allowed */
	char *ca_file;
	int retries;
	void (*progress)(void *, const char *, int64_t, int64_t);
	void *progress_arg;
	pthread_mutex_t mu;
	char *auth; /* "Authorization: ..." header, guarded by mu */
};

/* One response: the body goes to memory, or (2xx only) to a file. */
struct resp {
	long status;
	char *www_auth, *content_type;
	char *mem;
	size_t len, max;
	int fd;                /* file sink or -1 */
	gnutls_hash_hd_t hash; /* fed with what goes to fd */
	int64_t written, limit;
	int started;        /* the first body byte of a 2xx arrived */
	const char *digest; /* for progress */
	int64_t total;
	struct sk__registry *reg;
	CURL *curl;
};

static void resp_release(struct resp *rs)
{
	free(rs->www_auth);
	free(rs->content_type);
	free(rs->mem);
	rs->www_auth = rs->content_type = rs->mem = NULL;
	rs->len = 0;
	rs->status = 0;
}

static size_t on_header(char *buf, size_t size, size_t n, void *arg)
{
	struct resp *rs = arg;
	size_t len = size * n, klen;
	char **dst = NULL;

	if (len > 5 && !strncmp(buf, "HTTP/", 5)) { /* a new response (redirects): reset */
		free(rs->www_auth);
		free(rs->content_type);
		rs->www_auth = rs->content_type = NULL;
	}
	if (!strncasecmp(buf, "www-authenticate:", klen = 17))
		dst = &rs->www_auth;
	else if (!strncasecmp(buf, "content-type:", klen = 13))
		dst = &rs->content_type;
	if (dst) {
		const char *v = buf + klen;
		size_t vl = len - klen;
		while (vl && isspace((unsigned char)*v))
			v++, vl--;
		while (vl && isspace((unsigned char)v[vl - 1]))
			vl--;
		free(*dst);
		*dst = xstrndup(v, vl);
	}
	return len;
}

static size_t on_body(char *buf, size_t size, size_t n, void *arg)
{
	struct resp *rs = arg;
	size_t len = size * n;
	long code = 0;

	curl_easy_getinfo(rs->curl, CURLINFO_RESPONSE_CODE, &code);
	if (rs->fd >= 0 && code >= 200 && code < 300) {
		if (!rs->started++ && code == 200 && rs->written > 0) {
			/* we asked for a range and got the whole blob: start over */
			if (ftruncate(rs->fd, 0) < 0 || lseek(rs->fd, 0, SEEK_SET) < 0)
				return 0;
			gnutls_hash_deinit(rs->hash, NULL);
			if (gnutls_hash_init(&rs->hash, GNUTLS_DIG_SHA256) < 0)
				abort();
			rs->written = 0;
		}
		if (rs->limit >= 0 && rs->written + (int64_t)len > rs->limit)
			return 0; /* more than the descriptor's size: abort */
		for (size_t off = 0; off < len;) {
			ssize_t w = write(rs->fd, buf + off, len - off);
			if (w < 0 && errno == EINTR)
				continue;
			if (w < 0)
				return 0;
			off += w;
		}
		gnutls_hash(rs->hash, buf, len);
		rs->written += len;
		if (rs->reg->progress)
			rs->reg->progress(rs->reg->progress_arg, rs->digest, rs->written, rs->total);
		return len;
	}
	if (rs->len + len > rs->max)
		return 0;
	rs->mem = xrealloc(rs->mem, rs->len + len + 1);
	memcpy(rs->mem + rs->len, buf, len);
	rs->len += len;
	rs->mem[rs->len] = '\0';
	return len;
}

static CURL *new_handle(struct sk__registry *r, const char *url, struct curl_slist *hdrs, struct resp *rs)
{
	CURL *c = curl_easy_init();

	if (!c)
		abort();
	rs->curl = c;
	rs->reg = r;
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdrs);
	curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 1L);
	curl_easy_setopt(c, CURLOPT_MAXREDIRS, 5L);
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, r->insecure ? "http,https" : "https");
	curl_easy_setopt(c, CURLOPT_REDIR_PROTOCOLS_STR, r->insecure ? "http,https" : "https");
	curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(c, CURLOPT_HEADERDATA, rs);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, rs);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, 30L);
	curl_easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, 1L);
	curl_easy_setopt(c, CURLOPT_LOW_SPEED_TIME, 60L);
	curl_easy_setopt(c, CURLOPT_USERAGENT, "skiff-image/1");
	if (r->ca_file)
		curl_easy_setopt(c, CURLOPT_CAINFO, r->ca_file);
	if (r->insecure) {
		curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 0L);
		curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 0L);
	}
	return c;
}

/* Performs one GET; transport failures set err (code SK_EUNAVAILABLE). */
static int perform(struct sk__registry *r, const char *url, const char *extra, const char *range, struct resp *rs,
		   sk_error_t *err)
{
	struct curl_slist *h = NULL;
	CURL *c;
	CURLcode cc;
	char range_hdr[64];

	pthread_mutex_lock(&r->mu);
	if (r->auth)
		h = curl_slist_append(h, r->auth);
	pthread_mutex_unlock(&r->mu);
	if (extra)
		h = curl_slist_append(h, extra);
	if (range) {
		snprintf(range_hdr, sizeof(range_hdr), "Range: %s", range);
		h = curl_slist_append(h, range_hdr);
	}
	c = new_handle(r, url, h, rs);
	cc = curl_easy_perform(c);
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &rs->status);
	curl_easy_cleanup(c);
	curl_slist_free_all(h);
	if (cc != CURLE_OK)
		return sk_error_set(err, SK_EUNAVAILABLE, "registry \"%s\": %s", r->host, curl_easy_strerror(cc));
	return 0;
}

/* The registry's reason from an error body: "manifest unknown",
 * "unauthorized: authentication required", or "HTTP 500". */
static int registry_error(struct sk__registry *r, struct resp *rs, sk_error_t *err)
{
	cleanup_json json_t *j = rs->mem ? json_loads(rs->mem, 0, NULL) : NULL;
	json_t *e0 = json_array_get(json_object_get(j, "errors"), 0);
	const char *code = json_string_value(json_object_get(e0, "code"));
	const char *msg = json_string_value(json_object_get(e0, "message"));
	int kind = rs->status == 404   ? SK_ENOTFOUND
		   : rs->status == 401 ? SK_EUNAUTHORIZED
		   : rs->status == 403 ? SK_EFORBIDDEN
				       : SK_EUNAVAILABLE;
	char lc[64] = "";

	if (code) {
		size_t i;
		for (i = 0; code[i] && i < sizeof(lc) - 1; i++)
			lc[i] = code[i] == '_' ? ' ' : (char)tolower((unsigned char)code[i]);
		lc[i] = '\0';
	}
	if (code && msg && strcmp(lc, msg))
		return sk_error_set(err, kind, "%s: %.200s", lc, msg);
	if (code || msg)
		return sk_error_set(err, kind, "%.200s", msg ? msg : lc);
	if (rs->status == 401)
		return sk_error_set(err, kind, "unauthorized: authentication required");
	if (rs->status == 404)
		return sk_error_set(err, kind, "not found");
	return sk_error_set(err, kind, "registry \"%s\": HTTP %ld", r->host, rs->status);
}

/* Value of key in a challenge: Bearer realm="..",service="..",scope="..". */
static char *challenge_param(const char *ch, const char *key)
{
	size_t kl = strlen(key);

	for (const char *p = ch; (p = strcasestr(p, key)); p += kl) {
		if ((p != ch && p[-1] != ' ' && p[-1] != ',') || p[kl] != '=')
			continue;
		p += kl + 1;
		if (*p == '"') {
			const char *end = strchr(p + 1, '"');
			return end ? xstrndup(p + 1, end - p - 1) : NULL;
		}
		return xstrndup(p, strcspn(p, ", "));
	}
	return NULL;
}

static char *basic_header(const char *user, const char *pass)
{
	cleanup_free char *up = xasprintf("%s:%s", user, pass);
	gnutls_datum_t in = {(unsigned char *)up, (unsigned)strlen(up)}, out = {0};
	char *h;

	if (gnutls_base64_encode2(&in, &out) < 0)
		abort();
	h = xasprintf("Authorization: Basic %.*s", (int)out.size, out.data);
	gnutls_free(out.data);
	return h;
}

static void set_auth(struct sk__registry *r, char *hdr)
{
	pthread_mutex_lock(&r->mu);
	free(r->auth);
	r->auth = hdr;
	pthread_mutex_unlock(&r->mu);
}

static int fetch_token(struct sk__registry *r, const char *challenge, sk_error_t *err)
{
	cleanup_free char *realm = challenge_param(challenge, "realm");
	cleanup_free char *service = challenge_param(challenge, "service");
	cleanup_free char *scope = challenge_param(challenge, "scope");
	cleanup_free char *url = NULL, *basic = NULL, *def_scope = xasprintf("repository:%s:pull", r->repo);
	cleanup_json json_t *j = NULL;
	struct resp rs = {.fd = -1, .max = 1 << 20, .limit = -1};
	char *es, *esc;
	const char *tok;
	int rc;

	if (!realm)
		return sk_error_set(err, SK_EUNAUTHORIZED, "registry \"%s\": bearer challenge without realm", r->host);
	es = curl_easy_escape(NULL, service ? service : "", 0);
	esc = curl_easy_escape(NULL, scope ? scope : def_scope, 0);
	url = xasprintf("%s%sservice=%s&scope=%s", realm, strchr(realm, '?') ? "&" : "?", es, esc);
	curl_free(es);
	curl_free(esc);
	basic = r->user ? basic_header(r->user, r->pass) : NULL;
	rc = perform(r, url, basic, NULL, &rs, err);
	if (rc == 0 && rs.status != 200)
		rc = registry_error(r, &rs, err);
	if (rc == 0) {
		j = json_loads(rs.mem ? rs.mem : "", 0, NULL);
		tok = json_string_value(json_object_get(j, "token"));
		if (!tok)
			tok = json_string_value(json_object_get(j, "access_token"));
		if (tok)
			set_auth(r, xasprintf("Authorization: Bearer %s", tok));
		else
			rc = sk_error_set(err, SK_EUNAUTHORIZED, "registry \"%s\": token response without token",
					  r->host);
	}
	resp_release(&rs);
	return rc;
}

/* Answers a 401's challenge. 1 when a retry may succeed, 0 when not. */
static int answer_challenge(struct sk__registry *r, const char *challenge, sk_error_t *err)
{
	if (!challenge)
		return 0;
	if (!strncasecmp(challenge, "bearer", 6))
		return fetch_token(r, challenge, err) < 0 ? -1 : 1;
	if (!strncasecmp(challenge, "basic", 5) && r->user) {
		set_auth(r, basic_header(r->user, r->pass));
		return 1;
	}
	return 0;
}

/* GET base/v2/path, answering one auth challenge. The response is left in rs
 * (status 2xx, or the error already in err). */
static int request(struct sk__registry *r, const char *path, const char *extra, const char *range, struct resp *rs,
		   sk_error_t *err)
{
	cleanup_free char *url = xasprintf("%s/v2/%s", r->base, path);

	for (int attempt = 0;; attempt++) {
		int a;

		if (perform(r, url, extra, range, rs, err) < 0)
			return -1;
		if (rs->status != 401 || attempt > 0)
			break;
		a = answer_challenge(r, rs->www_auth, err);
		if (a < 0)
			return -1;
		if (a == 0)
			break;
		resp_release(rs); /* a 401's body went to memory, never to rs->fd */
	}
	if (rs->status >= 200 && rs->status < 300)
		return 0;
	return registry_error(r, rs, err);
}

/* Docker treats loopback registries as insecure: plain HTTP allowed. */
static int is_loopback(const char *host)
{
	if (!strncmp(host, "localhost", 9) && (!host[9] || host[9] == ':'))
		return 1;
	if (!strncmp(host, "[::1]", 5))
		return !host[5] || host[5] == ':';
	/* 127.0.0.0/8 as an address, not a name like 127.example.com */
	return !strncmp(host, "127.", 4) && strspn(host, "0123456789.") == strcspn(host, ":");
}

int sk__img_auth_find(json_t *const *auths, size_t n, const char *host, char **user, char **pass)
{
	int hub = !strcmp(host, "docker.io");

	for (size_t i = 0; i < n; i++) {
		const char *key;
		json_t *v;

		json_object_foreach(json_object_get(auths[i], "auths"), key, v) {
			const char *k = strstr(key, "://") ? strstr(key, "://") + 3 : key;
			size_t kl = strcspn(k, "/");
			const char *a = json_string_value(json_object_get(v, "auth"));

			if (!((kl == strlen(host) && !strncmp(k, host, kl)) ||
			      (hub && (!strncmp(k, "index.docker.io", kl) || !strncmp(k, "registry-1.docker.io", kl)))))
				continue;
			if (a) {
				gnutls_datum_t in = {(unsigned char *)a, (unsigned)strlen(a)}, out = {0};
				char *colon;
				if (gnutls_base64_decode2(&in, &out) < 0)
					continue;
				cleanup_free char *up = xstrndup((char *)out.data, out.size);
				gnutls_free(out.data);
				if (!(colon = strchr(up, ':')))
					continue;
				*user = xstrndup(up, colon - up);
				*pass = xstrdup(colon + 1);
				return 0;
			}
			if (json_string_value(json_object_get(v, "username"))) {
				*user = xstrdup(json_string_value(json_object_get(v, "username")));
				*pass = xstrdup(json_string_value(json_object_get(v, "password")));
				return 0;
			}
		}
	}
	return -1;
}

/* Ping /v2/ over base; answers a challenge up front so the layer threads
 * share the token. */
static int ping(struct sk__registry *r, sk_error_t *err)
{
	struct resp rs = {.fd = -1, .max = 1 << 16, .limit = -1};
	int rc = request(r, "", NULL, NULL, &rs, err);

	if (rc < 0 && rs.status == 404)
		rc = sk_error_set(err, SK_EUNAVAILABLE, "registry \"%s\": /v2/ not found (not a registry?)", r->host);
	resp_release(&rs);
	return rc;
}

struct sk__registry *sk__img_registry_open(const sk_image_ref *ref, const sk_pull_options *opts, sk_error_t *err)
{
	struct sk__registry *r = xzalloc(sizeof(*r));
	const char *endpoint = !strcmp(ref->domain, "docker.io") ? "registry-1.docker.io" : ref->domain;

	pthread_mutex_init(&r->mu, NULL);
	r->host = xstrdup(ref->domain);
	r->repo = xstrdup(ref->path);
	r->insecure = is_loopback(ref->domain);
	for (size_t i = 0; i < opts->n_insecure; i++)
		r->insecure |= !strcmp(opts->insecure[i], ref->domain);
	r->ca_file = opts->ca_file ? xstrdup(opts->ca_file) : NULL;
	r->retries = opts->retries > 0 ? opts->retries : 3;
	r->progress = opts->progress;
	r->progress_arg = opts->progress_arg;
	sk__img_auth_find(opts->auths, opts->n_auths, ref->domain, &r->user, &r->pass);
	r->base = xasprintf("https://%s", endpoint);
	if (ping(r, err) == 0)
		return r;
	if (r->insecure && err && err->code == SK_EUNAVAILABLE) {
		/* as Docker does for insecure registries: fall back to plain HTTP */
		free(r->base);
		r->base = xasprintf("http://%s", endpoint);
		if (ping(r, err) == 0)
			return r;
	}
	sk__img_registry_free(r);
	return NULL;
}

void sk__img_registry_free(struct sk__registry *r)
{
	if (!r)
		return;
	free(r->host);
	free(r->base);
	free(r->repo);
	free(r->user);
	free(r->pass);
	free(r->ca_file);
	free(r->auth);
	pthread_mutex_destroy(&r->mu);
	free(r);
}

int sk__img_registry_manifest(struct sk__registry *r, const char *reference, char **body, size_t *len,
			      char **content_type, sk_error_t *err)
{
	cleanup_free char *path = xasprintf("%s/manifests/%s", r->repo, reference);
	struct resp rs = {.fd = -1, .max = SK_MANIFEST_MAX, .limit = -1};

	if (request(r, path, MANIFEST_ACCEPT, NULL, &rs, err) < 0) {
		resp_release(&rs);
		return -1;
	}
	*body = rs.mem ? steal_ptr(&rs.mem) : xstrdup("");
	*len = rs.len;
	if (content_type)
		*content_type = steal_ptr(&rs.content_type);
	resp_release(&rs);
	return 0;
}

int sk__img_registry_blob_mem(struct sk__registry *r, const char *digest, char **body, size_t *len, sk_error_t *err)
{
	cleanup_free char *path = xasprintf("%s/blobs/%s", r->repo, digest);
	struct resp rs = {.fd = -1, .max = SK_MANIFEST_MAX, .limit = -1};
	char got[72];

	if (request(r, path, NULL, NULL, &rs, err) < 0) {
		resp_release(&rs);
		return sk_error_wrap(err, "blob \"%s\"", digest);
	}
	sk__img_digest_buf(rs.mem ? rs.mem : "", rs.len, got);
	if (strcmp(got, digest)) {
		resp_release(&rs);
		return sk_error_set(err, SK_EINVALID, "blob \"%s\": digest mismatch (got %s)", digest, got);
	}
	*body = rs.mem ? steal_ptr(&rs.mem) : xstrdup("");
	*len = rs.len;
	resp_release(&rs);
	return 0;
}

/* Feeds what an earlier attempt left in fd to a fresh hash; returns its size. */
static int64_t rehash(int fd, gnutls_hash_hd_t *h)
{
	char buf[1 << 16];
	int64_t total = 0;
	ssize_t n;

	if (gnutls_hash_init(h, GNUTLS_DIG_SHA256) < 0)
		abort();
	lseek(fd, 0, SEEK_SET);
	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		gnutls_hash(*h, buf, n);
		total += n;
	}
	return total;
}

/* One attempt: 1 when the blob is complete in fd, 0 when worth retrying, -1 fatal. */
static int blob_attempt(struct sk__registry *r, const sk_image_desc *d, int fd, int64_t *fetched, char *got,
			sk_error_t *err)
{
	cleanup_free char *path = xasprintf("%s/blobs/%s", r->repo, d->digest);
	struct resp rs = {.fd = fd, .max = 1 << 16, .digest = d->digest, .total = d->size};
	int64_t have = rehash(fd, &rs.hash);
	char range[48];
	int rc;

	if (have > d->size) {
		(void)!ftruncate(fd, 0);
		have = rehash(fd, &rs.hash); /* re-init */
	}
	rs.written = have;
	rs.limit = d->size;
	snprintf(range, sizeof(range), "bytes=%lld-", (long long)have);
	lseek(fd, 0, SEEK_END);
	rc = request(r, path, NULL, have > 0 && have < d->size ? range : NULL, &rs, err);
	*fetched += rs.written - (rs.written >= have ? have : 0);
	sk__img_digest_finish(rs.hash, got);
	if (rc < 0) {
		int transient = err && err->code == SK_EUNAVAILABLE;
		resp_release(&rs);
		return transient ? 0 : -1;
	}
	resp_release(&rs);
	return rs.written == d->size ? 1 : 0;
}

int sk__img_registry_blob_file(struct sk__registry *r, const sk_image_desc *d, const char *path, int64_t *fetched,
			       sk_error_t *err)
{
	cleanup_close int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	char got[72] = "";
	int rc = 0;

	if (fd < 0)
		return sk_error_errno(err, errno, "blob \"%s\": open \"%s\"", d->digest, path);
	for (int attempt = 0; attempt < r->retries && rc == 0; attempt++) {
		if (attempt)
			sk_warn("image", "blob %s: retrying (%s)", d->digest, err ? err->msg : "");
		rc = blob_attempt(r, d, fd, fetched, got, err);
	}
	if (rc <= 0) {
		if (rc == 0 && err && !err->code)
			sk_error_set(err, SK_EUNAVAILABLE, "blob \"%s\": incomplete download", d->digest);
		return sk_error_wrap(err, "blob \"%s\"", d->digest);
	}
	if (strcmp(got, d->digest)) {
		(void)!ftruncate(fd, 0);
		return sk_error_set(err, SK_EINVALID, "blob \"%s\": digest mismatch (got %s)", d->digest, got);
	}
	return 0;
}
