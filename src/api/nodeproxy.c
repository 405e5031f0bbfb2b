/* nodes/NAME/proxy/PATH (upstream's node ProxyREST, authorized as get on
 * nodes/proxy): a GET of the node agent's own PATH — /stats/summary,
 * /healthz — at the node's InternalIP and kubelet port with the API server's
 * kubelet client certificate, the path libcurl takes for pods/log. The agent's answer is passed on. */
#include <curl/curl.h>
#include <string.h>

#include "api/api-int.h"
#include "util/util.h"

#define MAX_PROXY_BODY (64u << 20)

/* base + rest, each segment of rest escaped; caller frees. */
static char *agent_url(const char *base, const char *rest)
{
	size_t cap = strlen(base) + 3 * strlen(rest) + 2, n;
	char *url = xmalloc(cap);

	n = (size_t)snprintf(url, cap, "%s", base);
	while (*rest) {
		size_t l;
		char *esc;

		while (*rest == '/')
			rest++;
		l = strcspn(rest, "/");
		esc = curl_easy_escape(NULL, rest, (int)l);
		n += (size_t)snprintf(url + n, cap - n, "/%s", esc);
		curl_free(esc);
		rest += l;
	}
	if (url[n - 1] != '/' && (n == strlen(base)))
		snprintf(url + n, cap - n, "/");
	return url;
}

void sk__handle_node_proxy(sk_api *api, const sk_api_request *req, const sk_path *p, sk_api_response *resp)
{
	cleanup_free char *prefix = xasprintf("/api/v1/nodes/%s/proxy", p->name), *npath = NULL, *base = NULL;
	cleanup_free char *url = NULL, *msg = NULL;
	cleanup_json json_t *node = NULL;
	struct curl_slist *hl = NULL;
	sk__curl_body b = {.max = MAX_PROXY_BODY};
	CURL *h;
	CURLcode rc;
	long code = 0;
	char *ctype = NULL;

	if (strcmp(req->method, "GET") || strncmp(req->path, prefix, strlen(prefix))) {
		sk__reply_status(resp, 405, "MethodNotAllowed",
				 "the server does not allow this method on the requested resource", p->res, p->name,
				 NULL);
		return;
	}
	npath = xasprintf("/api/v1/nodes/%s", p->name);
	node = sk__get_object(api, npath, resp);
	if (!node)
		return;
	base = sk__node_kubelet_url(node);
	if (!base) {
		msg = xasprintf("node %s has no kubelet endpoint", p->name);
		sk__reply_status(resp, 503, "ServiceUnavailable", msg, p->res, p->name, NULL);
		return;
	}
	url = agent_url(base, req->path + strlen(prefix));
	h = curl_easy_init();
	curl_easy_setopt(h, CURLOPT_URL, url);
	curl_easy_setopt(h, CURLOPT_HTTPHEADER, hl);
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	sk__kubelet_tls(h);
	curl_easy_setopt(h, CURLOPT_NOPROXY, "*");
	curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, 5000L);
	curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, 60000L);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, sk__curl_collect);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, &b);
	rc = curl_easy_perform(h);
	curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &code);
	curl_easy_getinfo(h, CURLINFO_CONTENT_TYPE, &ctype);
	if (rc != CURLE_OK) {
		/* upstream's proxy error: 503 with the dial's error */
		msg = xasprintf("error trying to reach service: %s", curl_easy_strerror(rc));
		sk__reply_status(resp, 503, "ServiceUnavailable", msg, NULL, "", NULL);
		free(b.data);
	} else {
		sk__reply_raw(resp, (int)code, b.data ? b.data : xstrdup(""), b.len);
		resp->content_type = ctype && !strncmp(ctype, "application/json", 16) ? "application/json"
										      : "text/plain";
	}
	curl_easy_cleanup(h);
	curl_slist_free_all(hl);
}
