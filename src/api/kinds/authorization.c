/* The kinds of authorization.k8s.io/v1: SubjectAccessReview,
 * SelfSubjectAccessReview, LocalSubjectAccessReview and
 * SelfSubjectRulesReview, create-only and never stored (upstream's
 * pkg/registry/authorization). A review asks the authorizer chain the
 * question of its spec and answers in its status. */
#include <stdio.h>
#include <string.h>

#include "api/api-int.h"
#include "api/rbac.h"
#include "api/validate-int.h"
#include "api/validate.h"
#include "util/util.h"

#define AUTHZ_GROUP "authorization.k8s.io"

static json_t *child(json_t *o, const char *k) { return json_object_get(o, k); }
static const char *cstr(json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));

	return s ? s : "";
}

/* The namespace of the request's path ("" for cluster scope). */
static void request_ns(const sk_api_request *req, char *ns, size_t len)
{
	sk_path p;
	sk_error_t err = {0};

	ns[0] = 0;
	if (sk__parse_path(req->path, &p, &err) == 0)
		snprintf(ns, len, "%s", p.ns);
}

/* The review as the reply starts it: the request's object, metadata's
 * creationTimestamp null as upstream's (never stored). */
static json_t *start_reply(json_t *obj)
{
	json_t *o = json_deep_copy(obj);

	if (!json_is_object(json_object_get(o, "metadata")))
		json_object_set_new(o, "metadata", json_object());
	json_object_set_new(json_object_get(o, "metadata"), "creationTimestamp", json_null());
	return o;
}

/* 422 with upstream's message (`SubjectAccessReview.authorization.k8s.io
 * "" is invalid: spec.user: …`). */
static json_t *invalid(const char *kind, json_t *obj, json_t *causes, sk_error_t *err)
{
	cleanup_free char *msg = sk_validate_message_group(kind, AUTHZ_GROUP, cstr(child(obj, "metadata"), "name"),
							   causes);

	json_decref(causes);
	sk_error_set(err, SK_EINVALID, "%s", msg);
	return NULL;
}

/* spec -> attributes (strings borrowed from spec) */
static void attrs_of(json_t *spec, sk_authz_attrs *a)
{
	json_t *ra = child(spec, "resourceAttributes"), *na = child(spec, "nonResourceAttributes");

	memset(a, 0, sizeof(*a));
	a->api_group = a->api_version = a->resource = a->subresource = a->ns = a->name = a->path = "";
	if (json_is_object(ra)) {
		a->resource_request = 1;
		a->verb = cstr(ra, "verb");
		a->api_group = cstr(ra, "group");
		a->api_version = cstr(ra, "version");
		a->resource = cstr(ra, "resource");
		a->subresource = cstr(ra, "subresource");
		a->ns = cstr(ra, "namespace");
		a->name = cstr(ra, "name");
	} else {
		a->verb = cstr(na, "verb");
		a->path = cstr(na, "path");
	}
}

/* ValidateSubjectAccessReviewSpec and friends: causes, or NULL. */
static json_t *validate_spec(const char *kind, json_t *obj, const char *ns)
{
	struct sk__verr e = {json_array()};
	json_t *spec = child(obj, "spec");
	int has_r = json_is_object(child(spec, "resourceAttributes"));
	int has_n = json_is_object(child(spec, "nonResourceAttributes"));

	if (has_r == has_n)
		sk__vinvalid_repr(&e, "spec.resourceAttributes", "",
				  "exactly one of nonResourceAttributes or resourceAttributes must be specified");
	if (!strcmp(kind, "SubjectAccessReview") || !strcmp(kind, "LocalSubjectAccessReview")) {
		if (!*cstr(spec, "user") && !json_array_size(child(spec, "groups")))
			sk__vinvalid_repr(&e, "spec.user", "\"\"", "at least one of user or group must be specified");
	}
	if (!strcmp(kind, "LocalSubjectAccessReview")) {
		if (has_n)
			sk__vinvalid(&e, "spec.nonResourceAttributes", child(spec, "nonResourceAttributes"),
				     "disallowed on this kind of request");
		if (has_r && strcmp(cstr(child(spec, "resourceAttributes"), "namespace"), ns))
			sk__vinvalid_str(&e, "spec.resourceAttributes.namespace",
					 cstr(child(spec, "resourceAttributes"), "namespace"),
					 "must match metadata.namespace");
	}
	if (!json_array_size(e.causes)) {
		json_decref(e.causes);
		return NULL;
	}
	return e.causes;
}

/* The user a SubjectAccessReview asks about (caller frees). */
static sk_user *spec_user(json_t *spec)
{
	sk_user *u = sk_user_new(cstr(spec, "user"), cstr(spec, "uid"), NULL);
	size_t i;
	json_t *g;

	json_array_foreach(child(spec, "groups"), i, g)
		if (json_is_string(g))
			sk_user_add_group(u, json_string_value(g));
	if (json_is_object(child(spec, "extra")))
		u->extra = json_deep_copy(child(spec, "extra"));
	return u;
}

static json_t *access_review(sk_api *api, const sk_api_request *req, json_t *in, const char *kind, sk_error_t *err)
{
	json_t *obj, *spec, *status, *causes;
	sk_user *asked = NULL;
	sk_authz_attrs a;
	char *reason = NULL, ns[254];

	request_ns(req, ns, sizeof(ns));
	obj = start_reply(in);
	if (!strcmp(kind, "LocalSubjectAccessReview")) {
		const char *ons = cstr(child(obj, "metadata"), "namespace");

		if (*ons && strcmp(ons, ns)) {
			json_decref(obj);
			sk_error_set(err, SK_EBADREQUEST,
				     "the namespace of the provided object does not match the namespace sent on the "
				     "request");
			return NULL;
		}
		json_object_set_new(child(obj, "metadata"), "namespace", json_string(ns));
	}
	spec = child(obj, "spec");
	causes = validate_spec(kind, obj, ns);
	if (causes) {
		invalid(kind, obj, causes, err);
		json_decref(obj);
		return NULL;
	}
	attrs_of(spec, &a);
	if (!strcmp(kind, "SelfSubjectAccessReview")) {
		a.user = req->user;
	} else {
		asked = spec_user(spec);
		a.user = asked;
	}
	status = json_object();
	json_object_set_new(status, "allowed", json_boolean(sk__authorize(api, &a, &reason)));
	if (reason && *reason)
		json_object_set_new(status, "reason", json_string(reason));
	free(reason);
	sk_user_free(asked);
	json_object_set_new(obj, "status", status);
	return obj;
}

static json_t *sar(sk_api *api, const sk_api_request *req, json_t *obj, sk_error_t *err)
{
	return access_review(api, req, obj, "SubjectAccessReview", err);
}

static json_t *lsar(sk_api *api, const sk_api_request *req, json_t *obj, sk_error_t *err)
{
	return access_review(api, req, obj, "LocalSubjectAccessReview", err);
}

static json_t *ssar(sk_api *api, const sk_api_request *req, json_t *obj, sk_error_t *err)
{
	return access_review(api, req, obj, "SelfSubjectAccessReview", err);
}

static int is_masters(const sk_user *u) { return sk_user_in_group(u, SK_GROUP_MASTERS); }

/* SelfSubjectRulesReview: the rules of the requester in spec.namespace, as
 * the union of the chain's RulesFor (system:masters: everything). */
static json_t *rules_review(sk_api *api, const sk_api_request *req, json_t *in, sk_error_t *err)
{
	cleanup_json json_t *errs = NULL, *rules = NULL;
	json_t *obj = start_reply(in), *res = json_array(), *nonres = json_array(), *status;
	const char *ns;
	size_t i;
	json_t *rule;

	(void)err;
	ns = cstr(child(obj, "spec"), "namespace");
	if (is_masters(req->user)) {
		json_array_append_new(
			res, json_pack("{s:[s], s:[s], s:[s]}", "verbs", "*", "apiGroups", "*", "resources", "*"));
		json_array_append_new(nonres, json_pack("{s:[s], s:[s]}", "verbs", "*", "nonResourceURLs", "*"));
	}
	rules = sk__rbac_rules_for(api, req->user, ns, &errs);
	json_array_foreach(rules, i, rule) {
		json_t *out = json_object();

		json_object_set(out, "verbs", child(rule, "verbs") ? child(rule, "verbs") : json_array());
		if (json_array_size(child(rule, "nonResourceURLs"))) {
			json_object_set(out, "nonResourceURLs", child(rule, "nonResourceURLs"));
			json_array_append_new(nonres, out);
			continue;
		}
		if (child(rule, "apiGroups"))
			json_object_set(out, "apiGroups", child(rule, "apiGroups"));
		if (child(rule, "resources"))
			json_object_set(out, "resources", child(rule, "resources"));
		if (json_array_size(child(rule, "resourceNames")))
			json_object_set(out, "resourceNames", child(rule, "resourceNames"));
		json_array_append_new(res, out);
	}
	status = json_pack("{s:o, s:o, s:b}", "resourceRules", res, "nonResourceRules", nonres, "incomplete", 0);
	if (json_array_size(errs)) {
		cleanup_free char *text = sk_rbac_errors_text(errs);

		json_object_set_new(status, "evaluationError", json_string(text));
		json_object_set_new(status, "incomplete", json_true());
	}
	json_object_set_new(obj, "status", status);
	return obj;
}

static const sk_kind_ops sar_ops = {.review = sar};
static const sk_kind_ops lsar_ops = {.review = lsar};
static const sk_kind_ops ssar_ops = {.review = ssar};
static const sk_kind_ops ssrr_ops = {.review = rules_review};

const sk_api_resource sk__kinds_authorization[] = {
	{
		.group = AUTHZ_GROUP,
		.version = "v1",
		.kind = "LocalSubjectAccessReview",
		.plural = "localsubjectaccessreviews",
		.singular = "localsubjectaccessreview",
		.namespaced = 1,
		.ops = &lsar_ops,
	},
	{
		.group = AUTHZ_GROUP,
		.version = "v1",
		.kind = "SelfSubjectAccessReview",
		.plural = "selfsubjectaccessreviews",
		.singular = "selfsubjectaccessreview",
		.namespaced = 0,
		.ops = &ssar_ops,
	},
	{
		.group = AUTHZ_GROUP,
		.version = "v1",
		.kind = "SelfSubjectRulesReview",
		.plural = "selfsubjectrulesreviews",
		.singular = "selfsubjectrulesreview",
		.namespaced = 0,
		.ops = &ssrr_ops,
	},
	{
		.group = AUTHZ_GROUP,
		.version = "v1",
		.kind = "SubjectAccessReview",
		.plural = "subjectaccessreviews",
		.singular = "subjectaccessreview",
		.namespaced = 0,
		.ops = &sar_ops,
	},
};
const size_t sk__nkinds_authorization = sizeof(sk__kinds_authorization) / sizeof(sk__kinds_authorization[0]);
