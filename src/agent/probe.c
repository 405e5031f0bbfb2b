/* Probe and lifecycle-hook handlers, as kubelet's prober and lifecycle
 * handlers run them: exec inside the container (runtime exec), httpGet and
 * tcpSocket against the pod IP from the host (the node reaches pod IPs over
 * its bridge), and sleep. Failure messages follow kubelet's wording. */
#include <arpa/inet.h>
#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "agent/agent-int.h"
#include "util/util.h"
#include "util/version.h"

/* A port given as a number or a container port name. */
static int resolve_port(struct apod *p, const char *ctr, json_t *port)
{
	cleanup_json json_t *pod = NULL;
	json_t *cs = NULL, *c, *pt;
	size_t i;

	if (json_is_integer(port))
		return (int)json_integer_value(port);
	if (!json_is_string(port))
		return -1;
	if (strspn(json_string_value(port), "0123456789") == strlen(json_string_value(port)))
		return atoi(json_string_value(port));
	pod = sk__apod_get(p, NULL);
	json_array_foreach(sk_kube_jget(pod, "spec.containers"), i, c)
		if (!strcmp(sk_kube_jstr(c, "name") ? sk_kube_jstr(c, "name") : "", ctr))
			cs = c;
	json_array_foreach(sk_kube_jget(pod, "spec.initContainers"), i, c)
		if (!strcmp(sk_kube_jstr(c, "name") ? sk_kube_jstr(c, "name") : "", ctr))
			cs = c;
	json_array_foreach(json_object_get(cs, "ports"), i, pt)
		if (!strcmp(sk_kube_jstr(pt, "name") ? sk_kube_jstr(pt, "name") : "", json_string_value(port)))
			return (int)json_integer_value(json_object_get(pt, "containerPort"));
	return -1;
}

static const char *pod_ip(struct apod *p) { return p->sb && p->sb->ip ? p->sb->ip : "127.0.0.1"; }

static int run_exec(struct sk_agent *a, struct sk_container *c, json_t *h, int timeout_s, char **msg)
{
	json_t *cmd = json_object_get(h, "command"), *e;
	const char **args = xzalloc((json_array_size(cmd) + 1) * sizeof(char *));
	struct sk_exec_result res = {0};
	sk_error_t err = {0};
	size_t i;
	int rc;

	json_array_foreach(cmd, i, e)
		args[i] = json_string_value(e) ? json_string_value(e) : "";
	if (!args[0]) {
		free(args);
		*msg = xstrdup("exec handler has no command");
		return -1;
	}
	rc = sk_container_exec_sync(&a->rt, c, args, timeout_s > 0 ? timeout_s : 1, &res, &err);
	free(args);
	if (rc < 0) {
		*msg = xstrdup(err.msg);
		return -1;
	}
	if (res.timed_out) {
		*msg = xasprintf("command timed out after %ds", timeout_s);
		rc = -1;
	} else if (res.exit_code != 0) {
		const char *out = res.out && *res.out ? res.out : (res.err ? res.err : "");

		*msg = *out ? xstrdup(out) : xasprintf("command exited with %d", res.exit_code);
		rc = -1;
	}
	sk_exec_result_release(&res);
	return rc;
}

static size_t discard(char *ptr, size_t size, size_t nmemb, void *ud)
{
	(void)ptr;
	(void)ud;
	return size * nmemb;
}

static int run_http(struct apod *p, const char *ctr, json_t *h, int timeout_s, char **msg)
{
	int port = resolve_port(p, ctr, json_object_get(h, "port"));
	const char *host = sk_kube_jstr(h, "host") ? sk_kube_jstr(h, "host") : pod_ip(p);
	const char *path = sk_kube_jstr(h, "path") ? sk_kube_jstr(h, "path") : "/";
	const char *scheme = sk_kube_jstr(h, "scheme") ? sk_kube_jstr(h, "scheme") : "HTTP";
	cleanup_free char *url = xasprintf("%s://%s:%d%s%s", !strcasecmp(scheme, "HTTPS") ? "https" : "http", host,
					   port, path[0] == '/' ? "" : "/", path);
	struct curl_slist *hl = curl_slist_append(NULL, "User-Agent: kube-probe/" SK_KUBE_MAJOR_MINOR);
	CURL *c = curl_easy_init();
	json_t *hdr;
	size_t i;
	long code = 0;
	CURLcode rc;

	if (port <= 0) {
		*msg = xstrdup("invalid port");
		curl_slist_free_all(hl);
		curl_easy_cleanup(c);
		return -1;
	}
	json_array_foreach(json_object_get(h, "httpHeaders"), i, hdr) {
		cleanup_free char *line = xasprintf("%s: %s",
						    sk_kube_jstr(hdr, "name") ? sk_kube_jstr(hdr, "name") : "X",
						    sk_kube_jstr(hdr, "value") ? sk_kube_jstr(hdr, "value") : "");
		hl = curl_slist_append(hl, line);
	}
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, hl);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, (long)(timeout_s > 0 ? timeout_s : 1) * 1000L);
	curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 0L);
	curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 0L);
	curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 1L);
	curl_easy_setopt(c, CURLOPT_MAXREDIRS, 10L);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, discard);
	curl_easy_setopt(c, CURLOPT_NOPROXY, "*");
	rc = curl_easy_perform(c);
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
	curl_slist_free_all(hl);
	curl_easy_cleanup(c);
	if (rc != CURLE_OK) {
		*msg = xasprintf("Get \"%s\": %s", url, curl_easy_strerror(rc));
		return -1;
	}
	if (code < 200 || code >= 400) {
		*msg = xasprintf("HTTP probe failed with statuscode: %ld", code);
		return -1;
	}
	return 0;
}

static int run_tcp(struct apod *p, const char *ctr, json_t *h, int timeout_s, char **msg)
{
	int port = resolve_port(p, ctr, json_object_get(h, "port"));
	const char *host = sk_kube_jstr(h, "host") ? sk_kube_jstr(h, "host") : pod_ip(p);
	struct sockaddr_in sa = {0};
	cleanup_close int fd = -1;
	struct pollfd pfd;
	int soerr = 0;
	socklen_t sl = sizeof(soerr);

	sa.sin_family = AF_INET;
	sa.sin_port = htons((uint16_t)port);
	if (port <= 0 || inet_pton(AF_INET, host, &sa.sin_addr) != 1) {
		*msg = xasprintf("dial tcp %s:%d: invalid address", host, port);
		return -1;
	}
	fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0 || (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 && errno != EINPROGRESS)) {
		*msg = xasprintf("dial tcp %s:%d: connect: %s", host, port, strerror(errno));
		return -1;
	}
	pfd.fd = fd;
	pfd.events = POLLOUT;
	if (poll(&pfd, 1, (timeout_s > 0 ? timeout_s : 1) * 1000) <= 0) {
		*msg = xasprintf("dial tcp %s:%d: i/o timeout", host, port);
		return -1;
	}
	getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl);
	if (soerr) {
		*msg = xasprintf("dial tcp %s:%d: connect: %s", host, port, strerror(soerr));
		return -1;
	}
	return 0;
}

int sk__probe_run(struct sk_agent *a, struct apod *p, struct sk_container *c, json_t *handler, int timeout_s,
		  char **msg)
{
	json_t *h;

	*msg = NULL;
	if (!c) {
		*msg = xstrdup("container is not running");
		return -1;
	}
	if ((h = json_object_get(handler, "exec")))
		return run_exec(a, c, h, timeout_s, msg);
	if ((h = json_object_get(handler, "httpGet")))
		return run_http(p, c->name, h, timeout_s, msg);
	if ((h = json_object_get(handler, "tcpSocket")))
		return run_tcp(p, c->name, h, timeout_s, msg);
	if ((h = json_object_get(handler, "sleep"))) {
		int64_t s = json_integer_value(json_object_get(h, "seconds"));
		struct timespec ts = {(time_t)(s < timeout_s || timeout_s <= 0 ? s : timeout_s), 0};

		nanosleep(&ts, NULL);
		return 0;
	}
	*msg = xstrdup("unsupported probe handler (grpc)");
	return -1;
}
