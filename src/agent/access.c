/* Who may use the agent's HTTPS endpoint, as kubelet's webhook
 * authentication and authorization (pkg/kubelet/server/auth.go) decide it:
 *
 * - authentication: a client certificate of the cluster CA (the API server
 *   presents kube-apiserver-kubelet-client in system:masters, as kubeadm
 *   sets it up), else a bearer token the API server vouches for with a
 *   TokenReview (a ServiceAccount's token, the admin token: Prometheus and
 *   curl scrape /metrics that way);
 * - authorization: a SubjectAccessReview of the user for the node's
 *   subresource the path maps to (/stats → nodes/stats, /metrics →
 *   nodes/metrics, /logs → nodes/log, /spec → nodes/spec, everything else —
 *   containerLogs, exec, attach, portForward — nodes/proxy), the verb from
 *   the method (GET get, POST create, PUT update, PATCH patch, DELETE
 *   delete).
 *
 * Both reviews are asked through the agent's own API client (system:node
 * may create them) and cached as kubelet caches its webhooks: tokens 2
 * minutes, allowed decisions 5 minutes, denied 30 seconds; the cache is
 * bounded, its oldest entry gives way. Without a CA nothing is served. */
#include <gnutls/crypto.h>
#include <microhttpd.h>
#include <string.h>

#include "agent/agent-int.h"
#include "api/authn.h"
#include "util/util.h"

#define CACHE_MAX 256
#define TOKEN_TTL_NS (120 * 1000000000LL)
#define ALLOW_TTL_NS (300 * 1000000000LL)
#define DENY_TTL_NS (30 * 1000000000LL)

typedef struct entry {
	char key[65];  /* hex SHA-256 of what was reviewed */
	int64_t until; /* monotonic */
	int64_t born;  /* for eviction */
	sk_user *user; /* token reviews: the user, NULL when not authenticated */
	int allowed;   /* access reviews */
} entry;

struct sk_agent_access {
	sk_authn *certs; /* the cluster CA, for client certificates */
	pthread_mutex_t mu;
	entry cache[CACHE_MAX];
	size_t n;
};

sk_agent_access *sk__access_new(const char *ca_pem, sk_error_t *err)
{
	sk_authn_options o = {.ca_pem = ca_pem};
	sk_agent_access *x = xzalloc(sizeof(*x));

	if (ca_pem && !(x->certs = sk_authn_new(NULL, &o, err))) {
		free(x);
		return NULL;
	}
	pthread_mutex_init(&x->mu, NULL);
	return x;
}

void sk__access_free(sk_agent_access *x)
{
	if (!x)
		return;
	for (size_t i = 0; i < x->n; i++)
		sk_user_free(x->cache[i].user);
	sk_authn_free(x->certs);
	pthread_mutex_destroy(&x->mu);
	free(x);
}

static void digest(const char *s, size_t n, char out[65])
{
	unsigned char d[32];

	gnutls_hash_fast(GNUTLS_DIG_SHA256, s, n, d);
	for (int i = 0; i < 32; i++)
		snprintf(out + 2 * i, 3, "%02x", d[i]);
}

/* The live entry for key under x->mu, or NULL. */
static entry *lookup(sk_agent_access *x, const char *key)
{
	int64_t now = sk_mono_ns();

	for (size_t i = 0; i < x->n; i++)
		if (!strcmp(x->cache[i].key, key) && now < x->cache[i].until)
			return &x->cache[i];
	return NULL;
}

/* Stores a decision (takes user) under x->mu: replaces the entry of the
 * same key, an expired one or the oldest. */
static void store(sk_agent_access *x, const char *key, sk_user *user, int allowed, int64_t ttl)
{
	int64_t now = sk_mono_ns();
	entry *e = NULL;

	for (size_t i = 0; i < x->n && !e; i++)
		if (!strcmp(x->cache[i].key, key) || now >= x->cache[i].until)
			e = &x->cache[i];
	if (!e && x->n < CACHE_MAX)
		e = &x->cache[x->n++];
	if (!e) {
		/* full and all live: the oldest gives way */
		e = &x->cache[0];
		for (size_t i = 1; i < x->n; i++)
			if (x->cache[i].born < e->born)
				e = &x->cache[i];
	}
	sk_user_free(e->user);
	memcpy(e->key, key, sizeof(e->key));
	e->user = user;
	e->allowed = allowed;
	e->born = now;
	e->until = now + ttl;
}

/* ---- authentication ---- */

static sk_user *user_from_review(json_t *u)
{
	const char *name = sk_kube_jstr(u, "username");
	sk_user *user;
	json_t *g;
	size_t i;

	if (!name || !*name)
		return NULL;
	user = sk_user_new(name, sk_kube_jstr(u, "uid") ?: "", NULL);
	json_array_foreach(json_object_get(u, "groups"), i, g)
		if (json_is_string(g))
			sk_user_add_group(user, json_string_value(g));
	if (json_is_object(json_object_get(u, "extra")))
		user->extra = json_deep_copy(json_object_get(u, "extra"));
	return user;
}

/* A TokenReview of token through the agent's client: the user, or NULL. */
static sk_user *review_token(struct sk_agent *a, const char *token)
{
	sk_agent_access *x = a->access;
	char key[65];
	cleanup_free char *k = xasprintf("token\n%s", token);
	cleanup_json json_t *req = NULL, *out = NULL;
	sk_user *user = NULL;
	entry *e;
	sk_error_t err = {0};

	digest(k, strlen(k), key);
	pthread_mutex_lock(&x->mu);
	e = lookup(x, key);
	if (e)
		user = e->user ? sk_user_dup(e->user) : NULL;
	pthread_mutex_unlock(&x->mu);
	if (e)
		return user;
	req = json_pack("{s:s, s:s, s:{s:s}}", "apiVersion", "authentication.k8s.io/v1", "kind", "TokenReview", "spec",
			"token", token);
	out = sk_client_create(a->c, "/apis/authentication.k8s.io/v1/tokenreviews", req, &err);
	if (!out) {
		sk_warn("agent", "node %s: reviewing a bearer token: %s", a->node_name, err.msg);
		return NULL; /* not cached: the API server may be back next time */
	}
	if (json_is_true(sk_kube_jget(out, "status.authenticated")))
		user = user_from_review(sk_kube_jget(out, "status.user"));
	pthread_mutex_lock(&x->mu);
	store(x, key, user ? sk_user_dup(user) : NULL, 0, TOKEN_TTL_NS);
	pthread_mutex_unlock(&x->mu);
	return user;
}

/* The caller: 1 with *user, 0 with no credentials, -1 with bad ones. */
static int authenticate(struct sk_agent *a, struct MHD_Connection *conn, sk_user **user)
{
	const union MHD_ConnectionInfo *ci = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_GNUTLS_SESSION);
	const char *auth = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION);
	int rc;

	*user = NULL;
	if (ci && a->access->certs) {
		rc = sk_authn_session(a->access->certs, (gnutls_session_t)ci->tls_session, user);
		if (rc != 0)
			return rc;
	}
	if (!auth)
		return 0;
	if (strncasecmp(auth, "Bearer ", 7) || !auth[7])
		return -1;
	*user = review_token(a, auth + 7);
	return *user ? 1 : -1;
}

/* ---- authorization ---- */

static const char *subresource(const char *path)
{
	static const struct {
		const char *prefix, *sub;
	} map[] = {{"/stats", "stats"}, {"/metrics", "metrics"}, {"/logs", "log"}, {"/spec", "spec"}};

	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
		size_t n = strlen(map[i].prefix);

		if (!strncmp(path, map[i].prefix, n) && (path[n] == '\0' || path[n] == '/'))
			return map[i].sub;
	}
	return "proxy";
}

static const char *verb(const char *method)
{
	if (!strcmp(method, "POST"))
		return "create";
	if (!strcmp(method, "PUT"))
		return "update";
	if (!strcmp(method, "PATCH"))
		return "patch";
	if (!strcmp(method, "DELETE"))
		return "delete";
	return "get";
}

/* A SubjectAccessReview of user for verb on nodes/sub of this node. */
static int review_access(struct sk_agent *a, const sk_user *u, const char *vb, const char *sub)
{
	sk_agent_access *x = a->access;
	sk_strbuf k = {0};
	char key[65];
	cleanup_json json_t *req = NULL, *out = NULL, *groups = json_array();
	int allowed;
	entry *e;
	sk_error_t err = {0};

	sk_strbuf_str(&k, "sar\n");
	sk_strbuf_str(&k, u->name);
	for (size_t i = 0; i < u->ngroups; i++) {
		sk_strbuf_str(&k, "\n");
		sk_strbuf_str(&k, u->groups[i]);
		json_array_append_new(groups, json_string(u->groups[i]));
	}
	sk_strbuf_str(&k, "\n\n");
	sk_strbuf_str(&k, vb);
	sk_strbuf_str(&k, "\n");
	sk_strbuf_str(&k, sub);
	digest(k.s, k.len, key);
	free(k.s);
	pthread_mutex_lock(&x->mu);
	e = lookup(x, key);
	allowed = e ? e->allowed : -1;
	pthread_mutex_unlock(&x->mu);
	if (allowed >= 0)
		return allowed;
	req = json_pack("{s:s, s:s, s:{s:s, s:O, s:{s:s, s:s, s:s, s:s}}}", "apiVersion", "authorization.k8s.io/v1",
			"kind", "SubjectAccessReview", "spec", "user", u->name, "groups", groups, "resourceAttributes",
			"verb", vb, "resource", "nodes", "subresource", sub, "name", a->node_name);
	if (u->uid && *u->uid)
		json_object_set_new(json_object_get(req, "spec"), "uid", json_string(u->uid));
	if (u->extra && json_object_size(u->extra))
		json_object_set(json_object_get(req, "spec"), "extra", u->extra);
	out = sk_client_create(a->c, "/apis/authorization.k8s.io/v1/subjectaccessreviews", req, &err);
	if (!out) {
		sk_warn("agent", "node %s: reviewing the access of %s: %s", a->node_name, u->name, err.msg);
		return 0;
	}
	allowed = json_is_true(sk_kube_jget(out, "status.allowed"));
	pthread_mutex_lock(&x->mu);
	store(x, key, NULL, allowed, allowed ? ALLOW_TTL_NS : DENY_TTL_NS);
	pthread_mutex_unlock(&x->mu);
	return allowed;
}

int sk__access_check(struct sk_agent *a, struct MHD_Connection *conn, const char *method, const char *path, char *why,
		     size_t len)
{
	sk_user *u = NULL;
	const char *vb = verb(method), *sub = subresource(path);
	int rc;

	if (!a->access || !a->access->certs) {
		snprintf(why, len, "Unauthorized");
		return 401;
	}
	if (authenticate(a, conn, &u) <= 0) {
		snprintf(why, len, "Unauthorized");
		return 401;
	}
	rc = review_access(a, u, vb, sub) ? 0 : 403;
	if (rc)
		/* kubelet's message (server/auth.go) */
		snprintf(why, len, "Forbidden (user=%s, verb=%s, resource=nodes, subresource(s)=[%s])\n", u->name, vb,
			 sub);
	sk_user_free(u);
	return rc;
}
