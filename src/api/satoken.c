/* Service-account tokens in the API server (docs/ARCHITECTURE.md, "Identity:
 * service accounts"): the signing key, the TokenRequest subresource
 * (upstream's pkg/registry/core/serviceaccount/storage/token.go), the token
 * authenticator (pkg/serviceaccount's JWT authenticator and validator),
 * TokenReview (pkg/registry/authentication/tokenreview) and the OIDC
 * discovery documents (pkg/serviceaccount/openidmetadata.go). */
#include <string.h>

#include <gnutls/crypto.h>

#include "api/admission.h"
#include "api/api-int.h"
#include "api/authn.h"
#include "api/jwt.h"
#include "api/satoken.h"
#include "util/util.h"

#define EXT_GROUP "authentication.kubernetes.io/"
/* token.WarnOnlyBoundTokenExpirationSeconds and ExpirationExtensionSeconds */
#define WARN_ONLY_SECS 3607
#define EXTENDED_SECS (365LL * 24 * 3600)
#define DEFAULT_SECS 3600
#define LEEWAY 60

struct sk__sa {
	sk_sa_keys *keys;
	char *issuer;
	json_t *audiences;
	char *jwks_uri;
};

int sk_api_sa_setup(sk_api *api, const char *key_path, sk_error_t *err)
{
	struct sk__sa *sa;
	sk_sa_keys *k = sk_sa_keys_load(key_path, err);
	const char *domain = api->opts.cluster_domain ? api->opts.cluster_domain : SK_API_DEFAULT_CLUSTER_DOMAIN;

	if (!k)
		return -1;
	sa = xzalloc(sizeof(*sa));
	sa->keys = k;
	sa->issuer = xasprintf("https://kubernetes.default.svc.%s", domain);
	sa->audiences = json_pack("[s]", sa->issuer);
	sa->jwks_uri = xasprintf("https://%s:%d/openid/v1/jwks",
				 api->opts.advertise_address ? api->opts.advertise_address : "127.0.0.1",
				 api->opts.advertise_port ? api->opts.advertise_port : 6443);
	__atomic_store_n(&api->sa, sa, __ATOMIC_RELEASE);
	return 0;
}

void sk__sa_free(sk_api *api)
{
	struct sk__sa *sa = api->sa;

	if (!sa)
		return;
	sk_sa_keys_free(sa->keys);
	free(sa->issuer);
	json_decref(sa->audiences);
	free(sa->jwks_uri);
	free(sa);
	api->sa = NULL;
}

static struct sk__sa *sa_of(sk_api *api) { return __atomic_load_n(&api->sa, __ATOMIC_ACQUIRE); }

static const char *meta(json_t *o, const char *key)
{
	return json_string_value(json_object_get(json_object_get(o, "metadata"), key));
}

/* Whether a deletionTimestamp (RFC 3339) lies before now - leeway. */
static int deleted_before(json_t *o, int64_t now)
{
	const char *dt = meta(o, "deletionTimestamp");
	int64_t t;

	return dt && sk_time_parse(dt, &t) == 0 && t < now - LEEWAY;
}

/* Go's %q of a []string: ["a" "b"]. */
static char *quoted_list(json_t *a)
{
	size_t n = 2, i;
	json_t *v;
	char *s, *p;

	json_array_foreach(a, i, v)
		n += strlen(json_string_value(v) ?: "") + 3;
	s = p = xmalloc(n + 1);
	*p++ = '[';
	json_array_foreach(a, i, v)
		p += snprintf(p, n - (size_t)(p - s), "%s\"%s\"", i ? " " : "", json_string_value(v) ?: "");
	*p++ = ']';
	*p = '\0';
	return s;
}

/* ---- the authenticator ---- */

static int invalid(sk_error_t *err, const char *msg) { return sk_error_set(err, SK_EUNAUTHORIZED, "%s", msg); }

/* Checks what a verified token is bound to, as upstream's validator. */
static int check_bound(sk_api *api, const sk_sa_claims_out *c, int64_t now, sk_error_t *err)
{
	cleanup_json json_t *sa = sk__stored_core(api, "serviceaccounts", c->ns, c->sa_name), *o = NULL;

	if (!sa)
		return sk_error_set(err, SK_EUNAUTHORIZED, "serviceaccounts \"%s\" not found", c->sa_name);
	if (deleted_before(sa, now))
		return sk_error_set(err, SK_EUNAUTHORIZED, "service account %s/%s has been deleted", c->ns, c->sa_name);
	if (strcmp(meta(sa, "uid") ?: "", c->sa_uid))
		return sk_error_set(err, SK_EUNAUTHORIZED, "service account UID (%s) does not match claim (%s)",
				    meta(sa, "uid") ?: "", c->sa_uid);
	if (c->secret_name) {
		o = sk__stored_core(api, "secrets", c->ns, c->secret_name);
		if (!o || deleted_before(o, now))
			return invalid(err, "service account token has been invalidated");
		if (strcmp(meta(o, "uid") ?: "", c->secret_uid ?: ""))
			return sk_error_set(err, SK_EUNAUTHORIZED,
					    "secret UID (%s) does not match service account secret ref claim (%s)",
					    meta(o, "uid") ?: "", c->secret_uid ?: "");
		json_decref(steal_ptr(&o));
	}
	if (c->pod_name) {
		o = sk__stored_core(api, "pods", c->ns, c->pod_name);
		if (!o || deleted_before(o, now))
			return invalid(err, "service account token has been invalidated");
		if (strcmp(meta(o, "uid") ?: "", c->pod_uid ?: ""))
			return sk_error_set(err, SK_EUNAUTHORIZED,
					    "pod UID (%s) does not match service account pod ref claim (%s)",
					    meta(o, "uid") ?: "", c->pod_uid ?: "");
	} else if (c->node_name) {
		o = sk__stored_core(api, "nodes", "", c->node_name);
		if (!o || deleted_before(o, now) || (c->node_uid && strcmp(meta(o, "uid") ?: "", c->node_uid)))
			return invalid(err, "service account token has been invalidated");
	}
	return 0;
}

static void add_extra(json_t *extra, const char *key, const char *value)
{
	cleanup_free char *k = xasprintf(EXT_GROUP "%s", key);

	if (value && *value)
		json_object_set_new(extra, k, json_pack("[s]", value));
}

static sk_user *user_for(const sk_sa_claims_out *c)
{
	cleanup_free char *name = xasprintf("system:serviceaccount:%s:%s", c->ns, c->sa_name);
	cleanup_free char *nsg = xasprintf("system:serviceaccounts:%s", c->ns);
	const char *groups[] = {"system:serviceaccounts", nsg, SK_GROUP_AUTHENTICATED, NULL};
	sk_user *u = sk_user_new(name, c->sa_uid, groups);
	json_t *extra = json_object();

	add_extra(extra, "pod-name", c->pod_name);
	add_extra(extra, "pod-uid", c->pod_uid);
	add_extra(extra, "node-name", c->node_name);
	add_extra(extra, "node-uid", c->node_uid);
	if (c->jti && *c->jti) {
		cleanup_free char *cred = xasprintf("JTI=%s", c->jti);

		add_extra(extra, "credential-id", cred);
	}
	if (json_object_size(extra))
		u->extra = extra;
	else
		json_decref(extra);
	return u;
}

/* Authenticates token for the audiences want (NULL: the API server's).
 * 1 with *out (and *auds, the audiences it is good for, when asked); 0 when
 * the token is not one of this server's; -1 with err's message otherwise. */
static int authenticate(sk_api *api, const char *token, json_t *want, sk_user **out, json_t **auds, sk_error_t *err)
{
	struct sk__sa *sa = sa_of(api);
	cleanup_json json_t *claims = NULL, *ok_auds = NULL;
	sk_sa_claims_out c;
	int64_t now = sk_now_ns() / 1000000000;

	if (!sa)
		return 0;
	claims = sk_jwt_verify(sa->keys, token, err);
	if (!claims) {
		sk_error_clear(err);
		return 0;
	}
	if (!json_is_string(json_object_get(claims, "iss")) ||
	    strcmp(json_string_value(json_object_get(claims, "iss")), sa->issuer))
		return 0;
	if (!want || !json_array_size(want))
		want = sa->audiences;
	ok_auds = sk_sa_claims_audiences(claims, want);
	if (!json_array_size(ok_auds)) {
		cleanup_json json_t *have = sk_sa_claims_audiences(claims, json_object_get(claims, "aud"));
		cleanup_free char *h = NULL, *w = NULL;

		if (json_is_string(json_object_get(claims, "aud")))
			json_array_append(have, json_object_get(claims, "aud"));
		h = quoted_list(have);
		w = quoted_list(want);
		return sk_error_set(err, SK_EUNAUTHORIZED, "token audiences %s is invalid for the target audiences %s",
				    h, w);
	}
	if (sk_sa_claims_check(claims, sa->issuer, now, &c, err) < 0 || check_bound(api, &c, now, err) < 0)
		return -1;
	*out = user_for(&c);
	if (auds)
		*auds = json_incref(ok_auds);
	return 1;
}

int sk__sa_token_authenticate(sk_api *api, const char *token, sk_user **out)
{
	sk_error_t err = {0};
	int rc = authenticate(api, token, NULL, out, NULL, &err);

	if (rc < 0)
		sk_debug("authn", "service account token refused: %s", err.msg);
	return rc;
}

/* ---- TokenRequest ---- */

static void reply_invalid(sk_api_response *resp, const char *name, const char *field, json_int_t v, const char *why)
{
	cleanup_free char *cmsg = xasprintf("Invalid value: %lld: %s", (long long)v, why);
	cleanup_free char *msg = xasprintf("TokenRequest.authentication.k8s.io \"%s\" is invalid: %s: %s", name, field,
					   cmsg);
	cleanup_json json_t *causes = json_pack("[{s:s, s:s, s:s}]", "reason", "FieldValueInvalid", "message", cmsg,
						"field", field);

	sk__reply_status_for(resp, 422, "Invalid", msg, "authentication.k8s.io", "TokenRequest", name, causes);
}

/* What a token is bound to: fills the claims' references from the stored
 * objects (ref NULL: nothing). 0, or -1 having replied. */
static int resolve_bound(sk_api *api, const char *ns, const char *sa_name, json_t *ref, sk_sa_claims_in *in,
			 json_t *keep, sk_api_response *resp)
{
	const char *kind = json_string_value(json_object_get(ref, "kind")) ?: "";
	const char *av = json_string_value(json_object_get(ref, "apiVersion")) ?: "";
	const char *name = json_string_value(json_object_get(ref, "name")) ?: "";
	const char *uid = json_string_value(json_object_get(ref, "uid")) ?: "";
	cleanup_json json_t *o = NULL;
	cleanup_free char *msg = NULL;
	const char *plural;

	if (!ref || (!*kind && !*name))
		return 0;
	plural = !strcmp(kind, "Pod")      ? "pods"
		 : !strcmp(kind, "Secret") ? "secrets"
		 : !strcmp(kind, "Node")   ? "nodes"
					   : NULL;
	if (!plural || (strcmp(av, "v1") && *av)) {
		const char *slash = strchr(av, '/');

		msg = slash ? xasprintf("cannot bind token to object of type %.*s/%s, Kind=%s", (int)(slash - av), av,
					slash + 1, kind)
			    : xasprintf("cannot bind token to object of type /%s, Kind=%s", av, kind);
		sk__reply_status(resp, 400, "BadRequest", msg, NULL, NULL, NULL);
		return -1;
	}
	o = sk__stored_core(api, plural, strcmp(plural, "nodes") ? ns : "", name);
	if (!o) {
		msg = xasprintf("%s \"%s\" not found", plural, name);
		sk__reply_status_for(resp, 404, "NotFound", msg, "", plural, name, NULL);
		return -1;
	}
	if (!strcmp(plural, "pods") &&
	    strcmp(json_string_value(json_object_get(json_object_get(o, "spec"), "serviceAccountName")) ?: "default",
		   sa_name)) {
		msg = xasprintf("cannot bind token for serviceaccount \"%s\" to pod running with different "
				"serviceaccount name.",
				sa_name);
		sk__reply_status(resp, 400, "BadRequest", msg, NULL, NULL, NULL);
		return -1;
	}
	if (*uid && strcmp(uid, meta(o, "uid") ?: "")) {
		msg = xasprintf(
			"Operation cannot be fulfilled on %s \"%s\": the UID in the bound object reference (%s) "
			"does not match the UID in record. The object might have been deleted and then "
			"recreated",
			kind, name, uid);
		sk__reply_status_for(resp, 409, "Conflict", msg, "", kind, name, NULL);
		return -1;
	}
	json_array_append(keep, o);
	if (!strcmp(plural, "pods")) {
		const char *node = json_string_value(json_object_get(json_object_get(o, "spec"), "nodeName"));
		json_t *n = node && *node ? sk__stored_core(api, "nodes", "", node) : NULL;

		in->pod_name = meta(o, "name");
		in->pod_uid = meta(o, "uid");
		if (node && *node) {
			in->node_name = node;
			in->node_uid = n ? meta(n, "uid") : NULL;
		}
		if (n)
			json_array_append_new(keep, n);
	} else if (!strcmp(plural, "secrets")) {
		in->secret_name = meta(o, "name");
		in->secret_uid = meta(o, "uid");
	} else {
		in->node_name = meta(o, "name");
		in->node_uid = meta(o, "uid");
	}
	return 0;
}

/* Whether every audience of auds is one of the API server's. */
static int kube_audiences(struct sk__sa *sa, json_t *auds)
{
	cleanup_json json_t *both = NULL;
	cleanup_json json_t *fake = json_pack("{s:O}", "aud", auds);

	both = sk_sa_claims_audiences(fake, sa->audiences);
	return json_array_size(both) == json_array_size(auds);
}

void sk__handle_sa_token(sk_api *api, const sk_api_request *req, const sk_path *p, sk_api_response *resp)
{
	struct sk__sa *sa = sa_of(api);
	sk_error_t err = {0};
	cleanup_json json_t *body = NULL, *svc = NULL, *keep = json_array(), *claims = NULL, *out = NULL;
	cleanup_free char *token = NULL;
	json_t *spec, *auds, *exp;
	sk_sa_claims_in in = {0};
	char jti[40], ts[32];
	json_int_t secs;

	if (strcmp(req->method, "POST")) {
		sk__reply_status(resp, 405, "MethodNotAllowed",
				 "the server does not allow this method on the requested resource", p->res, p->name,
				 NULL);
		return;
	}
	if (!sa) {
		sk__reply_status(resp, 503, "ServiceUnavailable", "service account tokens are not configured", NULL,
				 NULL, NULL);
		return;
	}
	body = req->body_obj ? json_deep_copy(req->body_obj)
			     : json_loadb(req->body ? req->body : "", req->body_len, JSON_REJECT_DUPLICATES, NULL);
	if (!json_is_object(body)) {
		sk_error_set(&err, SK_EBADREQUEST, "the body of the request must be a TokenRequest object");
		sk__reply_error(resp, &err, NULL, NULL);
		return;
	}
	svc = sk__stored_core(api, "serviceaccounts", p->ns, p->name);
	if (!svc) {
		sk_error_set(&err, SK_ENOTFOUND, "serviceaccounts \"%s\" not found", p->name);
		sk__reply_error(resp, &err, p->res, p->name);
		return;
	}
	spec = json_object_get(body, "spec");
	if (!json_is_object(spec)) {
		spec = json_object();
		json_object_set_new(body, "spec", spec);
	}
	exp = json_object_get(spec, "expirationSeconds");
	secs = json_is_integer(exp) ? json_integer_value(exp) : DEFAULT_SECS;
	if (secs < 600) {
		reply_invalid(resp, p->name, "spec.expirationSeconds", secs,
			      "may not specify a duration less than 10 minutes");
		return;
	}
	if (secs > (json_int_t)1 << 32) {
		reply_invalid(resp, p->name, "spec.expirationSeconds", secs,
			      "may not specify a duration larger than 2^32 seconds");
		return;
	}
	json_object_set_new(spec, "expirationSeconds", json_integer(secs));
	auds = json_object_get(spec, "audiences");
	if (!json_is_array(auds) || !json_array_size(auds)) {
		json_object_set(spec, "audiences", sa->audiences);
		auds = sa->audiences;
	}
	{
		/* the admission chain sees the create of serviceaccounts/token
		 * (NodeRestriction: a node's tokens are bound to its pods)
		 * before the bound object is resolved, as upstream's TokenREST
		 * runs createValidation first */
		sk_adm_request a = {.op = SK_ADM_CREATE,
				    .user = req->user,
				    .res = p->res,
				    .sub = "token",
				    .ns = p->ns,
				    .name = p->name,
				    .obj = body,
				    .dry_run = 0,
				    .resp = resp};

		if (sk__admission_validate(api, &a, &err) < 0) {
			json_decref(a.causes);
			sk__reply_error(resp, &err, p->res, p->name);
			return;
		}
	}
	if (resolve_bound(api, p->ns, p->name, json_object_get(spec, "boundObjectRef"), &in, keep, resp) < 0)
		return;
	sk__new_uuid(jti, sizeof(jti));
	in.issuer = sa->issuer;
	in.audiences = auds;
	in.ns = p->ns;
	in.sa_name = p->name;
	in.sa_uid = meta(svc, "uid");
	in.jti = jti;
	in.now = sk_now_ns() / 1000000000;
	in.expiration_secs = secs;
	if (in.pod_name && secs == WARN_ONLY_SECS && kube_audiences(sa, auds)) {
		/* kubelet's default projected token: valid a year, warned about after 3607 s */
		in.expiration_secs = EXTENDED_SECS;
		in.warnafter_secs = WARN_ONLY_SECS;
	}
	claims = sk_sa_claims_new(&in);
	token = sk_jwt_sign(sa->keys, claims, &err);
	if (!token) {
		sk__reply_error(resp, &err, NULL, NULL);
		return;
	}
	sk_time_format(in.now + secs, ts, sizeof(ts));
	out = json_pack("{s:s, s:s, s:{s:s, s:s, s:n}, s:O, s:{s:s, s:s}}", "kind", "TokenRequest", "apiVersion",
			"authentication.k8s.io/v1", "metadata", "name", p->name, "namespace", p->ns,
			"creationTimestamp", "spec", spec, "status", "token", token, "expirationTimestamp", ts);
	sk__reply_json(resp, 201, out);
}

/* ---- TokenReview ---- */

json_t *sk__token_review(sk_api *api, const sk_api_request *req, json_t *obj, sk_error_t *err)
{
	cleanup_json json_t *auds = NULL;
	json_t *body, *spec, *status;
	const char *token;
	sk_user *u = NULL;
	int rc;

	(void)req;
	spec = json_object_get(obj, "spec");
	token = json_string_value(json_object_get(spec, "token"));
	if (!token || !*token) {
		sk_error_set(err, SK_EBADREQUEST, "token is required for TokenReview in authentication.k8s.io");
		return NULL;
	}
	body = json_deep_copy(obj);
	rc = authenticate(api, token, json_object_get(spec, "audiences"), &u, &auds, err);
	if (rc == 0) {
		/* the rest of the server's chain (the token file, the shared
		 * tokens, bootstrap tokens), as upstream reviews a token with
		 * every authenticator; they know only the server's audiences */
		struct sk_authn *an = __atomic_load_n(&api->authn, __ATOMIC_ACQUIRE);
		json_t *want = json_object_get(spec, "audiences");
		struct sk__sa *sa = sa_of(api);

		u = an ? sk_authn_token(an, token) : NULL;
		if (u && !strcmp(u->name, SK_USER_ANONYMOUS)) {
			sk_user_free(u);
			u = NULL;
		}
		if (u) {
			cleanup_json json_t *mine = json_pack("{s:O}", "aud", sa ? sa->audiences : json_null());

			auds = sk_sa_claims_audiences(mine, want && json_array_size(want) ? want
							    : sa                          ? sa->audiences
											  : NULL);
			if (want && json_array_size(want) && !json_array_size(auds)) {
				sk_user_free(u);
				u = NULL;
			}
		}
		rc = u ? 1 : 0;
	}
	if (rc > 0) {
		json_t *user = json_pack("{s:s, s:s?, s:[]}", "username", u->name, "uid", u->uid, "groups");

		if (!u->uid || !*u->uid)
			json_object_del(user, "uid"); /* omitempty */
		for (size_t i = 0; i < u->ngroups; i++)
			json_array_append_new(json_object_get(user, "groups"), json_string(u->groups[i]));
		if (u->extra)
			json_object_set(user, "extra", u->extra);
		status = json_pack("{s:b, s:o, s:O}", "authenticated", 1, "user", user, "audiences", auds);
		sk_user_free(u);
	} else {
		cleanup_free char *msg = rc < 0 ? xasprintf("[invalid bearer token, %s]", err->msg)
						: xstrdup("invalid bearer token");

		sk_error_clear(err);
		status = json_pack("{s:{}, s:s}", "user", "error", msg);
	}
	json_object_set_new(body, "status", status);
	json_object_set_new(body, "kind", json_string("TokenReview"));
	json_object_set_new(body, "apiVersion", json_string("authentication.k8s.io/v1"));
	if (!json_is_object(json_object_get(body, "metadata")))
		json_object_set_new(body, "metadata", json_object());
	if (!json_object_get(json_object_get(body, "metadata"), "creationTimestamp"))
		json_object_set_new(json_object_get(body, "metadata"), "creationTimestamp", json_null());
	return body;
}

/* ---- OIDC discovery ---- */

int sk__is_oidc_path(const char *path)
{
	return !strcmp(path, "/.well-known/openid-configuration") || !strcmp(path, "/openid/v1/jwks");
}

void sk__handle_oidc(sk_api *api, const sk_api_request *req, sk_api_response *resp)
{
	struct sk__sa *sa = sa_of(api);
	cleanup_json json_t *doc = NULL;
	size_t len;
	char *s;

	if (strcmp(req->method, "GET")) {
		sk__reply_status(resp, 405, "MethodNotAllowed",
				 "the server does not allow this method on the requested resource", NULL, NULL, NULL);
		return;
	}
	if (!sa) {
		sk__reply_status(resp, 404, "NotFound", "the server could not find the requested resource", NULL, "",
				 NULL);
		return;
	}
	if (!strcmp(req->path, "/openid/v1/jwks"))
		doc = sk_sa_keys_jwks(sa->keys);
	else
		doc = json_pack("{s:s, s:s, s:[s], s:[s], s:[s]}", "issuer", sa->issuer, "jwks_uri", sa->jwks_uri,
				"response_types_supported", "id_token", "subject_types_supported", "public",
				"id_token_signing_alg_values_supported", "RS256");
	s = json_dumps(doc, JSON_COMPACT | JSON_PRESERVE_ORDER);
	len = strlen(s);
	sk__reply_raw(resp, 200, s, len);
	resp->content_type = !strcmp(req->path, "/openid/v1/jwks") ? "application/jwk-set+json" : "application/json";
}
