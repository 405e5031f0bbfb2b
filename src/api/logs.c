/* GET /api/v1/namespaces/NS/pods/NAME/log: checks the pod and container as
 * upstream's LogLocation does, then proxies to the node agent's
 * /containerLogs/NS/NAME/CONTAINER with libcurl. Without follow the whole
 * body is returned; with follow a thread copies the agent's chunks into a
 * socket whose read end the HTTP layer streams (sk_api_stream_fd); freeing
 * the stream writes its audit ResponseComplete. */
#include <curl/curl.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <string.h>
#include <sys/socket.h>

#include "api/api-int.h"
#include "api/logs.h"
#include "util/util.h"

struct sk_api_stream {
	int fd;
	sk_api *api;
	json_t *audit_end; /* written when the stream is freed, or NULL */
};

/* The API server's credentials towards node agents (kube-apiserver's
 * --kubelet-client-certificate/--kubelet-client-key and
 * --kubelet-certificate-authority), set once at start. */
static pthread_mutex_t kubelet_mu = PTHREAD_MUTEX_INITIALIZER;
static char *kubelet_cert, *kubelet_ca;

void sk_api_set_kubelet_client(const char *cert_key_file, const char *ca_file)
{
	pthread_mutex_lock(&kubelet_mu);
	free(kubelet_cert);
	free(kubelet_ca);
	kubelet_cert = cert_key_file ? xstrdup(cert_key_file) : NULL;
	kubelet_ca = ca_file ? xstrdup(ca_file) : NULL;
	pthread_mutex_unlock(&kubelet_mu);
}

/* The TLS sessions of connections to node agents, shared by every handle
 * (libcurl's share interface): a new connection to an agent resumes an
 * earlier one's session (the agent keeps them, logserver.c) instead of a
 * full handshake (certificates, signatures and a key exchange), which
 * every exec, attach, port-forward and log request paid before. */
static pthread_mutex_t share_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t share_once = PTHREAD_ONCE_INIT;
static CURLSH *share;

static void share_lock(CURL *h, curl_lock_data data, curl_lock_access access, void *ud)
{
	(void)h, (void)data, (void)access, (void)ud;
	pthread_mutex_lock(&share_mu);
}

static void share_unlock(CURL *h, curl_lock_data data, void *ud)
{
	(void)h, (void)data, (void)ud;
	pthread_mutex_unlock(&share_mu);
}

static void share_init(void)
{
	CURLSH *sh = curl_share_init();

	if (!sh)
		return;
	if (curl_share_setopt(sh, CURLSHOPT_LOCKFUNC, share_lock) != CURLSHE_OK ||
	    curl_share_setopt(sh, CURLSHOPT_UNLOCKFUNC, share_unlock) != CURLSHE_OK ||
	    curl_share_setopt(sh, CURLSHOPT_SHARE, CURL_LOCK_DATA_SSL_SESSION) != CURLSHE_OK) {
		curl_share_cleanup(sh);
		return;
	}
	share = sh;
}

void sk__kubelet_tls(CURL *h)
{
	pthread_once(&share_once, share_init);
	if (share) {
		curl_easy_setopt(h, CURLOPT_SHARE, share);
		/* TLS 1.2: libcurl's GnuTLS backend turns session tickets off
		 * (GNUTLS_NO_TICKETS) and resumes by session id, which TLS 1.3
		 * does not have; ECDHE and AEAD ciphers as before, and 1.2 is
		 * Kubernetes' own minimum */
		curl_easy_setopt(h, CURLOPT_SSLVERSION, (long)(CURL_SSLVERSION_TLSv1_2 | CURL_SSLVERSION_MAX_TLSv1_2));
	}
	pthread_mutex_lock(&kubelet_mu);
	/* libcurl copies string options */
	if (kubelet_cert) {
		curl_easy_setopt(h, CURLOPT_SSLCERT, kubelet_cert);
		curl_easy_setopt(h, CURLOPT_SSLKEY, kubelet_cert);
	}
	/* only the cluster CA, never the system's bundle (libcurl-gnutls
	 * parses its ~140 certificates for every handle otherwise: megabytes
	 * per streaming session and milliseconds per handshake) */
	curl_easy_setopt(h, CURLOPT_CAPATH, NULL);
	curl_easy_setopt(h, CURLOPT_CAINFO, kubelet_ca);
	curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, kubelet_ca ? 1L : 0L);
	curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, kubelet_ca ? 2L : 0L);
	pthread_mutex_unlock(&kubelet_mu);
}

size_t sk__curl_collect(char *ptr, size_t size, size_t nmemb, void *ud)
{
	sk__curl_body *b = ud;
	size_t n = size * nmemb;

	if (b->len + n > b->max)
		return 0;
	b->data = xrealloc(b->data, b->len + n + 1);
	memcpy(b->data + b->len, ptr, n);
	b->len += n;
	b->data[b->len] = '\0';
	return n;
}

int sk_api_stream_fd(const struct sk_api_stream *s) { return s->fd; }

struct sk_api_stream *sk__stream_new(int fd)
{
	struct sk_api_stream *s = xzalloc(sizeof(*s));

	s->fd = fd;
	return s;
}

void sk_api_stream_free(struct sk_api_stream *s)
{
	if (!s)
		return;
	if (s->fd >= 0)
		close(s->fd);
	if (s->audit_end)
		sk__audit_emit(s->api, steal_ptr(&s->audit_end));
	free(s);
}

void sk__stream_audit_at_end(struct sk_api_stream *s, sk_api *api, json_t *ev)
{
	json_decref(s->audit_end);
	s->api = api;
	s->audit_end = ev;
}

/* GET of an object through the handler itself (no HTTP in between). */
json_t *sk__get_object(sk_api *api, const char *path, sk_api_response *resp)
{
	sk_api_request req = {.method = "GET", .path = path, .user = sk_user_apiserver()};
	json_t *obj;

	sk_api_handle(api, &req, resp);
	if (resp->status >= 300)
		return NULL;
	obj = json_loadb(resp->body ? resp->body : "", resp->len, 0, NULL);
	sk_api_response_release(resp);
	return obj;
}

static const char *jstr(json_t *o, const char *k1, const char *k2)
{
	json_t *v = json_object_get(o, k1);

	return json_string_value(k2 ? json_object_get(v, k2) : v);
}

/* Names of the pod's containers "[a b]" from spec list key. */
static char *names(json_t *pod, const char *key)
{
	json_t *arr = json_object_get(json_object_get(pod, "spec"), key), *c;
	char buf[1024];
	size_t n = 0, i;

	buf[n++] = '[';
	json_array_foreach(arr, i, c)
		if (n < sizeof(buf) - 2)
			n += (size_t)snprintf(buf + n, sizeof(buf) - n - 1, "%s%s", i ? " " : "",
					      jstr(c, "name", NULL) ? jstr(c, "name", NULL) : "");
	if (n > sizeof(buf) - 2)
		n = sizeof(buf) - 2;
	buf[n++] = ']';
	buf[n] = '\0';
	return xstrdup(buf);
}

static bool has_container(json_t *pod, const char *name)
{
	const char *keys[] = {"containers", "initContainers", "ephemeralContainers"};

	for (int k = 0; k < 3; k++) {
		json_t *arr = json_object_get(json_object_get(pod, "spec"), keys[k]), *c;
		size_t i;

		json_array_foreach(arr, i, c)
			if (!strcmp(jstr(c, "name", NULL) ? jstr(c, "name", NULL) : "", name))
				return true;
	}
	return false;
}

/* The container to read, or NULL after replying with upstream's error. */
const char *sk__pod_pick_container(json_t *pod, const char *asked, const sk_path *p, sk_api_response *resp)
{
	json_t *ctrs = json_object_get(json_object_get(pod, "spec"), "containers");
	cleanup_free char *msg = NULL;

	if (asked && *asked) {
		if (has_container(pod, asked))
			return asked;
		msg = xasprintf("container %s is not valid for pod %s", asked, p->name);
	} else if (json_array_size(ctrs) == 1) {
		return jstr(json_array_get(ctrs, 0), "name", NULL);
	} else {
		cleanup_free char *c = names(pod, "containers"), *ic = names(pod, "initContainers");

		if (json_array_size(json_object_get(json_object_get(pod, "spec"), "initContainers")))
			msg = xasprintf("a container name must be specified for pod %s, choose one of: %s or one of "
					"the init containers: %s",
					p->name, c, ic);
		else
			msg = xasprintf("a container name must be specified for pod %s, choose one of: %s", p->name, c);
	}
	sk__reply_status(resp, 400, "BadRequest", msg, p->res, p->name, NULL);
	return NULL;
}

char *sk__node_kubelet_url(json_t *n)
{
	json_t *addrs, *a;
	const char *ip = "127.0.0.1";
	json_int_t port;
	size_t i;

	port = json_integer_value(json_object_get(
		json_object_get(json_object_get(json_object_get(n, "status"), "daemonEndpoints"), "kubeletEndpoint"),
		"Port"));
	addrs = json_object_get(json_object_get(n, "status"), "addresses");
	json_array_foreach(addrs, i, a)
		if (!strcmp(jstr(a, "type", NULL) ? jstr(a, "type", NULL) : "", "InternalIP") &&
		    jstr(a, "address", NULL))
			ip = jstr(a, "address", NULL);
	if (port <= 0 || port > 65535)
		return NULL;
	return strchr(ip, ':') ? xasprintf("https://[%s]:%lld", ip, (long long)port)
			       : xasprintf("https://%s:%lld", ip, (long long)port);
}

/* https://IP:PORT of the pod's node, or NULL after replying. */
char *sk__pod_node_address(sk_api *api, json_t *pod, const sk_path *p, sk_api_response *resp)
{
	const char *node = jstr(pod, "spec", "nodeName");
	cleanup_free char *path = NULL;
	cleanup_json json_t *n = NULL;
	cleanup_free char *msg = NULL;
	char *url;

	if (!node || !*node) {
		msg = xasprintf("pod %s does not have a host assigned", p->name);
		sk__reply_status(resp, 400, "BadRequest", msg, p->res, p->name, NULL);
		return NULL;
	}
	path = xasprintf("/api/v1/nodes/%s", node);
	n = sk__get_object(api, path, resp);
	if (!n)
		return NULL;
	url = sk__node_kubelet_url(n);
	if (!url) {
		msg = xasprintf("node %s has no log endpoint", node);
		sk__reply_status(resp, 503, "ServiceUnavailable", msg, p->res, p->name, NULL);
	}
	return url;
}

/* The agent URL with the supported query parameters passed on. */
static char *agent_url(const char *base, const sk_path *p, const char *ctr, const sk_api_request *req)
{
	static const char *const keys[] = {"follow",       "previous",  "timestamps", "tailLines",
					   "sinceSeconds", "sinceTime", "limitBytes", NULL};
	size_t cap = 1024, n;
	char *url = xmalloc(cap);

	n = (size_t)snprintf(url, cap, "%s/containerLogs/%s/%s/%s?", base, p->ns, p->name, ctr);
	for (int i = 0; keys[i]; i++) {
		const char *v = sk__arg(req, keys[i]);
		char *esc;
		size_t need;

		if (!v)
			continue;
		esc = curl_easy_escape(NULL, v, 0);
		need = strlen(keys[i]) + strlen(esc) + 3;
		if (n + need >= cap) {
			cap = (n + need) * 2;
			url = xrealloc(url, cap);
		}
		n += (size_t)snprintf(url + n, cap - n, "%s=%s&", keys[i], esc);
		curl_free(esc);
	}
	url[n - 1] = '\0';
	return url;
}

struct body {
	char *data;
	size_t len;
	int fd; /* follow: write here instead */
	long code;
	CURL *h;
};

static size_t on_data(char *ptr, size_t size, size_t nmemb, void *ud)
{
	struct body *b = ud;
	size_t n = size * nmemb, off = 0;

	if (!b->code)
		curl_easy_getinfo(b->h, CURLINFO_RESPONSE_CODE, &b->code);
	if (b->fd < 0 || b->code != 200) {
		b->data = xrealloc(b->data, b->len + n + 1);
		memcpy(b->data + b->len, ptr, n);
		b->len += n;
		b->data[b->len] = '\0';
		return n;
	}
	while (off < n) {
		ssize_t w = send(b->fd, ptr + off, n - off, MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return 0;
		off += (size_t)w;
	}
	return n;
}

static int on_progress(void *ud, curl_off_t dt, curl_off_t dn, curl_off_t ut, curl_off_t un)
{
	struct body *b = ud;
	struct pollfd p = {.fd = b->fd, .events = POLLRDHUP};

	(void)dt;
	(void)dn;
	(void)ut;
	(void)un;
	if (b->fd < 0)
		return 0;
	return poll(&p, 1, 0) > 0 && (p.revents & (POLLHUP | POLLERR | POLLRDHUP)) ? 1 : 0;
}

static CURL *make_handle(const char *url, struct curl_slist *hl, struct body *b, bool follow)
{
	CURL *h = curl_easy_init();

	b->h = h;
	curl_easy_setopt(h, CURLOPT_URL, url);
	curl_easy_setopt(h, CURLOPT_HTTPHEADER, hl);
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	sk__kubelet_tls(h);
	curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, 5000L);
	curl_easy_setopt(h, CURLOPT_NOPROXY, "*");
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_data);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, b);
	if (follow) {
		curl_easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
		curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, on_progress);
		curl_easy_setopt(h, CURLOPT_XFERINFODATA, b);
	} else {
		curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, 120000L);
	}
	return h;
}

struct follow_job {
	char *url;
	int fd;
};

static void *follow_thread(void *arg)
{
	struct follow_job *j = arg;
	struct curl_slist *hl = NULL;
	struct body b = {.fd = j->fd};
	CURL *h = make_handle(j->url, hl, &b, true);

	curl_easy_perform(h);
	if (b.code != 200 && b.data)
		send(j->fd, b.data, b.len, MSG_NOSIGNAL);
	curl_easy_cleanup(h);
	curl_slist_free_all(hl);
	close(j->fd);
	free(b.data);
	free(j->url);
	free(j);
	return NULL;
}

static void start_follow(char *url, const sk_path *p, sk_api_response *resp)
{
	struct follow_job *j;
	pthread_t t;
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0) {
		free(url);
		sk__reply_status(resp, 500, "InternalError", "socketpair failed", p->res, p->name, NULL);
		return;
	}
	j = xzalloc(sizeof(*j));
	j->url = url;
	j->fd = sv[0];
	if (pthread_create(&t, NULL, follow_thread, j) != 0) {
		close(sv[0]);
		close(sv[1]);
		free(url);
		free(j);
		sk__reply_status(resp, 500, "InternalError", "cannot start a log stream", p->res, p->name, NULL);
		return;
	}
	pthread_detach(t);
	memset(resp, 0, sizeof(*resp));
	resp->status = 200;
	resp->content_type = "text/plain";
	resp->stream = xzalloc(sizeof(*resp->stream));
	resp->stream->fd = sv[1];
}

static void fetch_all(const char *url, const sk_path *p, sk_api_response *resp)
{
	struct curl_slist *hl = NULL;
	struct body b = {.fd = -1};
	CURL *h = make_handle(url, hl, &b, false);
	CURLcode rc = curl_easy_perform(h);
	long code = 0;

	curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &code);
	curl_easy_cleanup(h);
	curl_slist_free_all(hl);
	if (rc != CURLE_OK) {
		cleanup_free char *msg = xasprintf("Get \"%s\": %s", url, curl_easy_strerror(rc));

		free(b.data);
		sk__reply_status(resp, 500, "InternalError", msg, p->res, p->name, NULL);
		return;
	}
	if (code != 200) {
		cleanup_free char *msg = b.data ? xstrdup(b.data) : xasprintf("log endpoint answered %ld", code);

		free(b.data);
		sk__reply_status(resp, code == 404 ? 404 : 400, code == 404 ? "NotFound" : "BadRequest", msg, p->res,
				 p->name, NULL);
		return;
	}
	sk__reply_raw(resp, 200, b.data ? b.data : xstrdup(""), b.len);
	resp->content_type = "text/plain";
}

/* The integer options read as upstream's parameter codec reads them (400 when one is no int64). */
static int bad_int_args(const sk_api_request *req, const sk_path *p, sk_api_response *resp)
{
	static const char *const keys[] = {"tailLines", "sinceSeconds", "limitBytes", NULL};
	sk_error_t err = {0};
	int64_t v;

	for (int i = 0; keys[i]; i++)
		if (sk__arg_int64(req, keys[i], &v, &err) < 0) {
			sk__reply_error(resp, &err, p->res, p->name);
			return 1;
		}
	return 0;
}

void sk__handle_log(sk_api *api, const sk_api_request *req, const sk_path *p, sk_api_response *resp)
{
	cleanup_free char *path = xasprintf("/api/v1/namespaces/%s/pods/%s", p->ns, p->name);
	cleanup_json json_t *pod = NULL;
	cleanup_free char *base = NULL;
	const char *ctr;
	char *url;

	if (strcmp(req->method, "GET") != 0) {
		sk__reply_status(resp, 405, "MethodNotAllowed",
				 "the server does not allow this method on the requested resource", p->res, p->name,
				 NULL);
		return;
	}
	if (bad_int_args(req, p, resp))
		return;
	pod = sk__get_object(api, path, resp);
	if (!pod)
		return;
	ctr = sk__pod_pick_container(pod, sk__arg(req, "container"), p, resp);
	if (!ctr)
		return;
	base = sk__pod_node_address(api, pod, p, resp);
	if (!base)
		return;
	url = agent_url(base, p, ctr, req);
	if (sk__arg_bool(req, "follow") && !sk__arg_bool(req, "previous")) {
		start_follow(url, p, resp);
		return;
	}
	fetch_all(url, p, resp);
	free(url);
}
