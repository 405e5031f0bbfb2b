/* kube-aggregator in the API server:
 *  - the autoregistration of local APIServices (apiservice.c), resynced when
 *    the served kinds change and every few seconds;
 *  - the availability of the APIServices backed by a Service (upstream's
 *    AvailableConditionController): the Service, its port, a ready endpoint
 *    and a GET of /apis/GROUP/VERSION on it, rechecked every RESYNC_MS;
 *  - the proxy: a request under /apis/GROUP/VERSION of such an APIService
 *    is authorized here and then passed to the Service's endpoint over
 *    HTTPS (verified with caBundle, unless insecureSkipTLSVerify) with the
 *    front-proxy client certificate and the user in X-Remote-User,
 *    X-Remote-Group and X-Remote-Extra-*, the answer streamed back;
 *  - discovery: the aggregated groups for /apis (both forms);
 *  - the ConfigMap kube-system/extension-apiserver-authentication. */
#include <curl/curl.h>
#include <errno.h>
#include <gnutls/gnutls.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "api/api-int.h"
#include "api/apiservice.h"
#include "api/logs.h"
#include "api/tls.h"
#include "client/client.h"
#include "kube/condition.h"
#include "util/util.h"

#define RESYNC_MS 2000
#define POLL_MS 200
#define DISCOVERY_TIMEOUT_S 5
#define MAX_BODY (64u << 20)
#define COLLECTION "/apis/apiregistration.k8s.io/v1/apiservices"

struct sk__agg {
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int stop;
	/* under mu: "GROUP/VERSION" → the APIService's proxy target
	 * {name, ns, svc, port, ca, insecure, available, gp, vp, resources} */
	json_t *services;
	json_t *synced; /* the built-in local APIServices synced once */
	char *client_ca, *front_ca;
	int cert_fd, key_fd;
	char cert_path[64], key_path[64];
};

static json_t *jget(json_t *o, const char *k) { return json_object_get(o, k); }
static const char *jstr(json_t *o, const char *k) { return json_string_value(json_object_get(o, k)); }

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static void curl_init(void) { curl_global_init(CURL_GLOBAL_DEFAULT); }
void sk__aggregator_curl_init(void) { pthread_once(&curl_once, curl_init); }

/* ---- talking to an aggregated server ---- */

/* The TLS settings of a request to the server of entry e: its caBundle
 * (an sk_memfile, *cafd to close) or no verification, the front-proxy
 * client certificate. -1 with *why. */
int sk__aggregator_tls(sk__agg *a, void *curl, json_t *e, int *cafd, char **why)
{
	CURL *h = curl;
	const char *ca = jstr(e, "ca");

	*cafd = -1;
	curl_easy_setopt(h, CURLOPT_CAPATH, NULL);
	if (json_is_true(jget(e, "insecure"))) {
		curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, 0L);
		curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, 0L);
	} else if (ca && *ca) {
		gnutls_datum_t in = {(unsigned char *)(uintptr_t)ca, (unsigned)strlen(ca)}, out = {0};
		char path[64];

		if (gnutls_base64_decode2(&in, &out) < 0) {
			*why = xstrdup("caBundle is not valid base64");
			return -1;
		}
		*cafd = sk_memfile("skiff-apiservice-ca", out.data, out.size);
		gnutls_free(out.data);
		if (*cafd < 0) {
			*why = xasprintf("caBundle: %s", strerror(errno));
			return -1;
		}
		snprintf(path, sizeof(path), "/proc/self/fd/%d", *cafd);
		curl_easy_setopt(h, CURLOPT_CAINFO, path);
	}
	if (a->cert_fd >= 0 && a->key_fd >= 0) {
		curl_easy_setopt(h, CURLOPT_SSLCERT, a->cert_path);
		curl_easy_setopt(h, CURLOPT_SSLKEY, a->key_path);
	}
	curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "https");
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h, CURLOPT_NOPROXY, "*");
	return 0;
}

struct buf {
	char *data;
	size_t len;
};

static size_t collect(char *p, size_t size, size_t n, void *ud)
{
	struct buf *b = ud;
	size_t add = size * n;

	if (b->len + add > MAX_BODY)
		return 0;
	b->data = xrealloc(b->data, b->len + add + 1);
	memcpy(b->data + b->len, p, add);
	b->len += add;
	b->data[b->len] = '\0';
	return add;
}

/* ---- availability (upstream's AvailableConditionController) ---- */

/* The state of the APIService item into e (its proxy entry): 1 available,
 * else 0 with *reason (static) and *msg. */
static int check(sk_api *api, sk__agg *a, json_t *item, json_t *e, const char **reason, char **msg)
{
	json_t *spec = jget(item, "spec"), *ref = jget(spec, "service"), *p;
	const char *ns = jstr(ref, "namespace"), *name = jstr(ref, "name");
	json_int_t port = json_integer_value(jget(ref, "port"));
	cleanup_json json_t *svc = NULL;
	cleanup_free char *ip = NULL, *why = NULL, *url = NULL, *dial = NULL, *connect = NULL;
	struct curl_slist *cl = NULL, *hl = NULL;
	struct buf body = {0};
	char errbuf[CURL_ERROR_SIZE] = "";
	json_int_t tport = 0;
	const char *pname = NULL;
	long code = 0;
	CURLcode rc;
	CURL *h;
	int cafd = -1, found = 0;
	size_t i;

	svc = sk__stored_core(api, "services", ns ? ns : "", name ? name : "");
	if (!svc) {
		*reason = "ServiceNotFound";
		*msg = xasprintf("service/%s in \"%s\" is not present", name ? name : "", ns ? ns : "");
		return 0;
	}
	json_array_foreach(jget(jget(svc, "spec"), "ports"), i, p)
		if (json_integer_value(jget(p, "port")) == port) {
			pname = jstr(p, "name");
			found = 1;
			break;
		}
	if (!found) {
		*reason = "ServicePortError";
		*msg = xasprintf("service/%s in \"%s\" is not listening on port %lld", name, ns, (long long)port);
		return 0;
	}
	if (sk__resolve_service(api, ns, name, port, &ip, &tport, &why) < 0) {
		*reason = "MissingEndpoints";
		*msg = xasprintf("endpoints for service/%s in \"%s\" have no addresses with port name \"%s\"", name, ns,
				 pname ? pname : "");
		return 0;
	}
	dial = xasprintf(strchr(ip, ':') ? "https://[%s]:%lld" : "https://%s:%lld", ip, (long long)tport);
	url = xasprintf("https://%s.%s.svc:%lld/apis/%s/%s", name, ns, (long long)port, jstr(spec, "group"),
			jstr(spec, "version"));
	connect = xasprintf("%s.%s.svc:%lld:%s:%lld", name, ns, (long long)port, ip, (long long)tport);
	pthread_once(&curl_once, curl_init);
	h = curl_easy_init();
	if (sk__aggregator_tls(a, h, e, &cafd, &why) < 0) {
		curl_easy_cleanup(h);
		*reason = "FailedDiscoveryCheck";
		*msg = xasprintf("failing or missing response from %s/apis/%s/%s: %s", dial, jstr(spec, "group"),
				 jstr(spec, "version"), why);
		return 0;
	}
	cl = curl_slist_append(NULL, connect);
	hl = curl_slist_append(NULL, "Accept: application/json");
	hl = curl_slist_append(hl, "X-Remote-User: system:kube-aggregator");
	hl = curl_slist_append(hl, "X-Remote-Group: system:masters");
	curl_easy_setopt(h, CURLOPT_URL, url);
	curl_easy_setopt(h, CURLOPT_CONNECT_TO, cl);
	curl_easy_setopt(h, CURLOPT_HTTPHEADER, hl);
	curl_easy_setopt(h, CURLOPT_TIMEOUT, (long)DISCOVERY_TIMEOUT_S);
	curl_easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, collect);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, &body);
	rc = curl_easy_perform(h);
	curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &code);
	curl_easy_cleanup(h);
	curl_slist_free_all(cl);
	curl_slist_free_all(hl);
	if (cafd >= 0)
		close(cafd);
	if (rc != CURLE_OK || code < 200 || code >= 300) {
		cleanup_free char *u = xasprintf("%s/apis/%s/%s", dial, jstr(spec, "group"), jstr(spec, "version"));

		free(body.data);
		*reason = "FailedDiscoveryCheck";
		if (rc == CURLE_COULDNT_CONNECT)
			*msg = xasprintf("failing or missing response from %s: Get \"%s\": dial tcp %s:%lld: connect: "
					 "connection refused",
					 u, u, ip, (long long)tport);
		else if (rc != CURLE_OK)
			*msg = xasprintf("failing or missing response from %s: Get \"%s\": %s", u, u,
					 *errbuf ? errbuf : curl_easy_strerror(rc));
		else
			*msg = xasprintf("failing or missing response from %s: bad status from %s: %ld", u, u, code);
		return 0;
	}
	{
		json_t *list = json_loadb(body.data ? body.data : "", body.len, 0, NULL);

		free(body.data);
		json_object_set_new(e, "resources", sk__agg_discovery_resources(list));
		json_decref(list);
	}
	return 1;
}

/* ---- the APIService loop ---- */

static void set_status(sk_client *c, json_t *item, const char *st, const char *reason, const char *msg)
{
	cleanup_json json_t *obj = json_deep_copy(item), *out = NULL;
	const char *name = jstr(jget(obj, "metadata"), "name");
	cleanup_free char *path = xasprintf(COLLECTION "/%s/status", name);
	json_t *status = jget(obj, "status");
	sk_error_t err = {0};
	char now[32];

	if (!json_is_object(status)) {
		status = json_object();
		json_object_set_new(obj, "status", status);
	}
	sk_time_format(sk_now_ns() / 1000000000, now, sizeof(now));
	if (!sk_kube_condition_set(status, "Available", st, reason, msg, now, 0))
		return;
	out = sk_client_update(c, path, obj, &err);
	if (!out && err.code != SK_ECONFLICT && err.code != SK_ENOTFOUND)
		sk_warn("aggregator", "status of %s: %s", name, err.msg);
}

/* upstream's bootstrap Role kube-system/extension-apiserver-authentication-reader,
 * which aggregated servers' RoleBindings name: created when missing */
static void ensure_reader_role(sk_client *c)
{
	const char *coll = "/apis/rbac.authorization.k8s.io/v1/namespaces/kube-system/roles";
	cleanup_free char *path = xasprintf("%s/extension-apiserver-authentication-reader", coll);
	cleanup_json json_t *have = NULL, *want = NULL, *out = NULL;
	sk_error_t err = {0};

	have = sk_client_get(c, path, &err);
	if (have || err.code != SK_ENOTFOUND)
		return;
	sk_error_clear(&err);
	want = json_pack("{s:s, s:s, s:{s:s, s:s, s:{s:s}, s:{s:s}}, s:[{s:[s], s:[s], s:[s], s:[s, s, s]}]}",
			 "apiVersion", "rbac.authorization.k8s.io/v1", "kind", "Role", "metadata", "name",
			 "extension-apiserver-authentication-reader", "namespace", "kube-system", "annotations",
			 "rbac.authorization.kubernetes.io/autoupdate", "true", "labels", "kubernetes.io/bootstrapping",
			 "rbac-defaults", "rules", "apiGroups", "", "resources", "configmaps", "resourceNames",
			 "extension-apiserver-authentication", "verbs", "get", "list", "watch");
	out = sk_client_create(c, coll, want, &err);
	if (!out && err.code != SK_EEXISTS)
		sk_warn("aggregator", "extension-apiserver-authentication-reader: %s", err.msg);
}

static void ensure_auth_configmap(sk_client *c, sk__agg *a)
{
	const char *path = "/api/v1/namespaces/kube-system/configmaps/extension-apiserver-authentication";
	cleanup_json json_t *want = NULL, *have = NULL, *out = NULL;
	sk_error_t err = {0};

	want = json_pack("{s:s, s:s, s:{s:s, s:s}, s:{s:s, s:s, s:s, s:s, s:s, s:s}}", "apiVersion", "v1", "kind",
			 "ConfigMap", "metadata", "name", "extension-apiserver-authentication", "namespace",
			 "kube-system", "data", "client-ca-file", a->client_ca ? a->client_ca : "",
			 "requestheader-allowed-names", "[\"front-proxy-client\"]", "requestheader-client-ca-file",
			 a->front_ca ? a->front_ca : "", "requestheader-extra-headers-prefix", "[\"X-Remote-Extra-\"]",
			 "requestheader-group-headers", "[\"X-Remote-Group\"]", "requestheader-username-headers",
			 "[\"X-Remote-User\"]");
	ensure_reader_role(c);
	have = sk_client_get(c, path, &err);
	sk_error_clear(&err);
	if (have && json_equal(jget(have, "data"), jget(want, "data")))
		return;
	if (have) {
		json_object_set(jget(want, "metadata"), "resourceVersion",
				jget(jget(have, "metadata"), "resourceVersion"));
		out = sk_client_update(c, path, want, &err);
	} else {
		out = sk_client_create(c, "/api/v1/namespaces/kube-system/configmaps", want, &err);
	}
	if (!out)
		sk_warn("aggregator", "extension-apiserver-authentication: %s", err.msg);
}

static void sync_services(sk_api *api, sk__agg *a)
{
	sk_client *c = sk_client_new_inproc(api);
	cleanup_json json_t *list = NULL;
	json_t *next = json_object(), *item, *old;
	sk_error_t err = {0};
	size_t i;

	ensure_auth_configmap(c, a);
	list = sk_client_list(c, COLLECTION, NULL, &err);
	json_array_foreach(jget(list, "items"), i, item) {
		json_t *spec = jget(item, "spec"), *ref = jget(spec, "service"), *e;
		const char *reason = NULL;
		cleanup_free char *msg = NULL, *key = NULL;
		int ok;

		if (!json_is_object(ref) || !jstr(spec, "group") || !jstr(spec, "version"))
			continue;
		key = xasprintf("%s/%s", jstr(spec, "group"), jstr(spec, "version"));
		e = json_pack("{s:O, s:s, s:s, s:I, s:s, s:b, s:I, s:I}", "name", jget(jget(item, "metadata"), "name"),
			      "ns", jstr(ref, "namespace") ? jstr(ref, "namespace") : "", "svc",
			      jstr(ref, "name") ? jstr(ref, "name") : "", "port",
			      (json_int_t)json_integer_value(jget(ref, "port")), "ca",
			      jstr(spec, "caBundle") ? jstr(spec, "caBundle") : "", "insecure",
			      json_is_true(jget(spec, "insecureSkipTLSVerify")), "gp",
			      (json_int_t)json_integer_value(jget(spec, "groupPriorityMinimum")), "vp",
			      (json_int_t)json_integer_value(jget(spec, "versionPriority")));
		ok = check(api, a, item, e, &reason, &msg);
		json_object_set_new(e, "available", json_boolean(ok));
		json_object_set_new(next, key, e);
		if (ok)
			set_status(c, item, "True", "Passed", "all checks passed");
		else
			set_status(c, item, "False", reason, msg);
	}
	sk_error_clear(&err);
	sk_client_free(c);
	pthread_mutex_lock(&a->mu);
	old = a->services;
	a->services = next;
	pthread_mutex_unlock(&a->mu);
	json_decref(old);
}

static void *agg_main(void *arg)
{
	sk_api *api = arg;
	sk__agg *a = sk__agg_of(api);
	unsigned long gen = sk__kinds_generation();
	int64_t last = sk_mono_ns() / 1000000;

	pthread_mutex_lock(&a->mu);
	while (!a->stop && !sk__api_stopping(api)) {
		struct timespec ts;
		unsigned long g = sk__kinds_generation();
		int64_t now = sk_mono_ns() / 1000000;

		if (g != gen || now - last >= RESYNC_MS) {
			gen = g;
			last = now;
			pthread_mutex_unlock(&a->mu);
			sk__apiservice_sync(api, a->synced);
			sync_services(api, a);
			pthread_mutex_lock(&a->mu);
			continue;
		}
		sk_deadline_after_ms(&ts, POLL_MS);
		pthread_cond_timedwait(&a->cv, &a->mu, &ts);
	}
	pthread_mutex_unlock(&a->mu);
	return NULL;
}

int sk_api_aggregator_start(sk_api *api, const char *data_dir, const char *client_ca, sk_error_t *err)
{
	sk__agg *a = xzalloc(sizeof(*a));
	cleanup_free char *cert = NULL, *key = NULL;

	a->cert_fd = a->key_fd = -1;
	if (data_dir) {
		if (sk_tls_front_proxy(data_dir, &a->front_ca, &cert, &key, err) < 0) {
			free(a);
			return -1;
		}
		a->cert_fd = sk_memfile("skiff-front-proxy-client.crt", cert, strlen(cert));
		a->key_fd = sk_memfile("skiff-front-proxy-client.key", key, strlen(key));
		snprintf(a->cert_path, sizeof(a->cert_path), "/proc/self/fd/%d", a->cert_fd);
		snprintf(a->key_path, sizeof(a->key_path), "/proc/self/fd/%d", a->key_fd);
	}
	a->client_ca = client_ca ? xstrdup(client_ca) : NULL;
	a->services = json_object();
	a->synced = json_object();
	pthread_mutex_init(&a->mu, NULL);
	pthread_cond_init(&a->cv, NULL);
	__atomic_store_n(&api->agg, a, __ATOMIC_RELEASE); /* handlers may be running */
	sk__apiservice_sync(api, a->synced);
	{
		sk_client *c = sk_client_new_inproc(api);

		ensure_auth_configmap(c, a); /* there once the server answers */
		sk_client_free(c);
	}
	if (pthread_create(&a->thread, NULL, agg_main, api) != 0) {
		__atomic_store_n(&api->agg, NULL, __ATOMIC_RELEASE);
		sk__aggregator_stop_free(a);
		return sk_error_set(err, SK_EINTERNAL, "starting the aggregator: thread creation failed");
	}
	return 0;
}

void sk__aggregator_stop_free(sk__agg *a)
{
	if (a->cert_fd >= 0)
		close(a->cert_fd);
	if (a->key_fd >= 0)
		close(a->key_fd);
	json_decref(a->services);
	json_decref(a->synced);
	free(a->client_ca);
	free(a->front_ca);
	pthread_mutex_destroy(&a->mu);
	pthread_cond_destroy(&a->cv);
	free(a);
}

void sk__aggregator_stop(sk_api *api)
{
	sk__agg *a = sk__agg_of(api);

	if (!a)
		return;
	pthread_mutex_lock(&a->mu);
	a->stop = 1;
	pthread_cond_signal(&a->cv);
	pthread_mutex_unlock(&a->mu);
	pthread_join(a->thread, NULL);
	__atomic_store_n(&api->agg, NULL, __ATOMIC_RELEASE);
	sk__aggregator_stop_free(a);
}

/* The proxy entry of GROUP/VERSION (a copy), or NULL. */
json_t *sk__aggregator_entry(sk_api *api, const char *group, const char *version)
{
	sk__agg *a = sk__agg_of(api);
	cleanup_free char *key = xasprintf("%s/%s", group, version);
	json_t *e;

	if (!a)
		return NULL;
	pthread_mutex_lock(&a->mu);
	e = json_deep_copy(jget(a->services, key));
	pthread_mutex_unlock(&a->mu);
	return e;
}

/* Every proxy entry (a copy): {"GROUP/VERSION": entry}. */
json_t *sk__aggregator_entries(sk_api *api)
{
	sk__agg *a = sk__agg_of(api);
	json_t *all;

	if (!a)
		return json_object();
	pthread_mutex_lock(&a->mu);
	all = json_deep_copy(a->services);
	pthread_mutex_unlock(&a->mu);
	return all;
}
