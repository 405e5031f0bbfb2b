/* MutatingWebhookConfiguration and ValidatingWebhookConfiguration
 * (admissionregistration.k8s.io/v1): upstream's defaults
 * (SetDefaults_ValidatingWebhook, _MutatingWebhook, _Rule,
 * _ServiceReference) and validation (ValidateValidatingWebhookConfiguration
 * and its Mutating twin, ValidateWebhookURL, ValidateWebhookService), with
 * upstream's messages. */
#include <stdio.h>
#include <string.h>

#include <curl/curl.h>

#include "api/cel/cel.h"
#include "api/validate-int.h"
#include "api/validate.h"
#include "api/webhook.h"
#include "util/json.h"
#include "util/util.h"

#define LIST(...) \
	(const char *const[]) { __VA_ARGS__, NULL }

static int mutating(const sk_api_resource *r) { return !strcmp(r->kind, "MutatingWebhookConfiguration"); }

static void set_default(json_t *o, const char *key, json_t *v)
{
	if (!json_object_get(o, key))
		json_object_set(o, key, v);
	json_decref(v);
}

void sk__defaults_webhookconfig(const sk_api_resource *r, json_t *obj)
{
	json_t *hook, *rule;
	size_t i, j;

	json_array_foreach(json_object_get(obj, "webhooks"), i, hook) {
		json_t *svc = json_object_get(json_object_get(hook, "clientConfig"), "service");

		if (!json_is_object(hook))
			continue;
		set_default(hook, "failurePolicy", json_string("Fail"));
		set_default(hook, "matchPolicy", json_string("Equivalent"));
		set_default(hook, "namespaceSelector", json_object());
		set_default(hook, "objectSelector", json_object());
		set_default(hook, "timeoutSeconds", json_integer(10));
		if (mutating(r))
			set_default(hook, "reinvocationPolicy", json_string("Never"));
		json_array_foreach(json_object_get(hook, "rules"), j, rule)
			if (json_is_object(rule))
				set_default(rule, "scope", json_string("*"));
		if (json_is_object(svc))
			set_default(svc, "port", json_integer(443));
	}
}

/* ---- validation ---- */

static const char *str_at(json_t *list, size_t i)
{
	const char *s = json_string_value(json_array_get(list, i));

	return s ? s : "";
}

/* Go's %#v of a []T of strings (T named: []admissionregistration.OperationType{…}). */
static char *typed_slice_repr(const char *type, json_t *v)
{
	cleanup_free char *plain = sk__vrepr(v);
	const char *brace = strchr(plain, '{');

	return xasprintf("[]%s%s", type, brace ? brace : "{}");
}

/* validateResources: subresource wildcards may not overlap. */
static void validate_resources(struct sk__verr *e, json_t *resources, const char *fp)
{
	cleanup_json json_t *res_wild = json_object(), *sub_wild = json_object();
	int double_wild = 0, single_wild = 0, plain = 0;
	json_t *v;
	size_t i;

	if (!json_array_size(resources))
		sk__vrequired(e, fp, "");
	json_array_foreach(resources, i, v) {
		const char *rs = json_string_value(v) ? json_string_value(v) : "";
		cleanup_free char *ip = sk__vindex(fp, i);
		cleanup_free char *res = NULL;
		const char *slash = strchr(rs, '/'), *sub;

		if (!*rs) {
			sk__vrequired(e, ip, "");
			continue;
		}
		if (!strcmp(rs, "*/*"))
			double_wild = 1;
		if (!strcmp(rs, "*"))
			single_wild = 1;
		if (!slash) {
			plain = strcmp(rs, "*") != 0;
			continue;
		}
		res = xstrndup(rs, (size_t)(slash - rs));
		sub = slash + 1;
		if (json_object_get(res_wild, res)) {
			cleanup_free char *d = xasprintf("if '%s/*' is present, must not specify %s", res, rs);

			sk__vinvalid_str(e, ip, rs, d);
		}
		if (json_object_get(sub_wild, sub)) {
			cleanup_free char *d = xasprintf("if '*/%s' is present, must not specify %s", sub, rs);

			sk__vinvalid_str(e, ip, rs, d);
		}
		if (!strcmp(sub, "*"))
			json_object_set_new(res_wild, res, json_true());
		if (!strcmp(res, "*"))
			json_object_set_new(sub_wild, sub, json_true());
	}
	if (json_array_size(resources) > 1 && double_wild)
		sk__vinvalid(e, fp, resources, "if '*/*' is present, must not specify other resources");
	if (single_wild && plain)
		sk__vinvalid(e, fp, resources,
			     "if '*' is present, must not specify other resources without subresources");
}

/* validateRuleWithOperations */
void sk__webhook_validate_rule(struct sk__verr *e, json_t *rule, const char *rp)
{
	json_t *ops = json_object_get(rule, "operations"), *groups = json_object_get(rule, "apiGroups");
	json_t *versions = json_object_get(rule, "apiVersions"), *scope = json_object_get(rule, "scope");
	cleanup_free char *op = sk__vchild(rp, "operations"), *gp = sk__vchild(rp, "apiGroups");
	cleanup_free char *vp = sk__vchild(rp, "apiVersions"), *resp = sk__vchild(rp, "resources");
	cleanup_free char *sp = sk__vchild(rp, "scope");
	size_t i;

	if (!json_array_size(ops))
		sk__vrequired(e, op, "");
	if (json_array_size(ops) > 1 && sk_json_array_has_string(ops, "*")) {
		cleanup_free char *repr = typed_slice_repr("admissionregistration.OperationType", ops);

		sk__vinvalid_repr(e, op, repr, "if '*' is present, must not specify other operations");
	}
	for (i = 0; i < json_array_size(ops); i++) {
		static const char *const supported[] = {"*", "CONNECT", "CREATE", "DELETE", "UPDATE", NULL};
		const char *o = str_at(ops, i);
		int ok = 0;

		for (int k = 0; supported[k]; k++)
			ok |= !strcmp(supported[k], o);
		if (!ok) {
			cleanup_free char *ip = sk__vindex(op, i);

			sk__vnot_supported(e, ip, json_array_get(ops, i), supported);
		}
	}
	if (!json_array_size(groups))
		sk__vrequired(e, gp, "");
	if (json_array_size(groups) > 1 && sk_json_array_has_string(groups, "*"))
		sk__vinvalid(e, gp, groups, "if '*' is present, must not specify other API groups");
	if (!json_array_size(versions))
		sk__vrequired(e, vp, "");
	if (json_array_size(versions) > 1 && sk_json_array_has_string(versions, "*"))
		sk__vinvalid(e, vp, versions, "if '*' is present, must not specify other API versions");
	for (i = 0; i < json_array_size(versions); i++)
		if (!*str_at(versions, i)) {
			cleanup_free char *ip = sk__vindex(vp, i);

			sk__vrequired(e, ip, "");
		}
	validate_resources(e, json_object_get(rule, "resources"), resp);
	if (scope && !json_is_null(scope)) {
		const char *s = json_string_value(scope) ? json_string_value(scope) : "";

		if (strcmp(s, "*") && strcmp(s, "Cluster") && strcmp(s, "Namespaced"))
			sk__vnot_supported(e, sp, scope, LIST("*", "Cluster", "Namespaced"));
	}
}

/* utilvalidation.IsFullyQualifiedName */
static void validate_fqn(struct sk__verr *e, const char *fp, const char *name)
{
	const char *msg;
	int dots = 0;

	if (!name || !*name) {
		sk__vrequired(e, fp, "");
		return;
	}
	if ((msg = sk_validate_dns1123_subdomain(name))) {
		sk__vinvalid_str(e, fp, name, msg);
		return;
	}
	for (const char *p = name; *p; p++)
		dots += *p == '.';
	if (dots < 2)
		sk__vinvalid_str(e, fp, name, "should be a domain with at least three segments separated by dots");
}

/* webhook.ValidateWebhookURL with forceHttps */
static void validate_url(struct sk__verr *e, const char *fp, const char *url)
{
	static const char form[] = "; desired format: https://host[/path]";
	CURLU *u = curl_url();
	char *scheme = NULL, *host = NULL, *user = NULL, *frag = NULL, *query = NULL;
	CURLUcode rc = curl_url_set(u, CURLUPART_URL, url, CURLU_NON_SUPPORT_SCHEME);

	if (rc != CURLUE_OK) {
		cleanup_free char *d = xasprintf("url must be a valid URL: parse %s: %s%s", url, curl_url_strerror(rc),
						 form);

		sk__vrequired(e, fp, d);
		curl_url_cleanup(u);
		return;
	}
	curl_url_get(u, CURLUPART_SCHEME, &scheme, 0);
	curl_url_get(u, CURLUPART_HOST, &host, 0);
	curl_url_get(u, CURLUPART_USER, &user, 0);
	curl_url_get(u, CURLUPART_FRAGMENT, &frag, 0);
	curl_url_get(u, CURLUPART_QUERY, &query, 0);
	if (!scheme || strcmp(scheme, "https")) {
		cleanup_free char *d = xasprintf("'https' is the only allowed URL scheme%s", form);

		sk__vinvalid_str(e, fp, scheme ? scheme : "", d);
	}
	if (!host || !*host) {
		cleanup_free char *d = xasprintf("host must be specified%s", form);

		sk__vinvalid_str(e, fp, "", d);
	}
	if (user)
		sk__vinvalid_str(e, fp, user, "user information is not permitted in the URL");
	if (frag && *frag)
		sk__vinvalid_str(e, fp, frag, "fragments are not permitted in the URL");
	if (query && *query)
		sk__vinvalid_str(e, fp, query, "query parameters are not permitted in the URL");
	curl_free(scheme);
	curl_free(host);
	curl_free(user);
	curl_free(frag);
	curl_free(query);
	curl_url_cleanup(u);
}

/* webhook.ValidateWebhookService */
static void validate_service(struct sk__verr *e, const char *fp, json_t *svc)
{
	const char *name = json_string_value(json_object_get(svc, "name"));
	const char *ns = json_string_value(json_object_get(svc, "namespace"));
	const char *path = json_string_value(json_object_get(svc, "path"));
	json_int_t port = json_integer_value(json_object_get(svc, "port"));
	cleanup_free char *np = sk__vchild(fp, "name"), *nsp = sk__vchild(fp, "namespace");
	cleanup_free char *pp = sk__vchild(fp, "port"), *pathp = sk__vchild(fp, "path");
	cleanup_free char *steps = NULL;
	size_t len;
	int i = 0;

	if (!name || !*name)
		sk__vrequired(e, np, "service name is required");
	if (!ns || !*ns)
		sk__vrequired(e, nsp, "service namespace is required");
	if (port < 1 || port > 65535)
		sk__vinvalid_int(e, pp, port, "port is not valid: must be between 1 and 65535, inclusive");
	if (!path || !*path || !strcmp(path, "/"))
		return;
	if (!strcmp(path, "//")) {
		sk__vinvalid_str(e, pathp, path, "segment[0] may not be empty");
		return;
	}
	if (path[0] != '/')
		sk__vinvalid_str(e, pathp, path, "must start with a '/'");
	steps = xstrdup(path + (path[0] == '/'));
	len = strlen(steps);
	if (len && steps[len - 1] == '/')
		steps[len - 1] = '\0';
	/* strings.Split keeps empty segments: walk by hand */
	for (char *s = steps;; i++) {
		char *slash = strchr(s, '/');
		const char *msg;

		if (slash)
			*slash = '\0';
		if (!*s) {
			cleanup_free char *d = xasprintf("segment[%d] may not be empty", i);

			sk__vinvalid_str(e, pathp, path, d);
		} else if ((msg = sk_validate_dns1123_subdomain(s))) {
			cleanup_free char *d = xasprintf("segment[%d]: %s", i, msg);

			sk__vinvalid_str(e, pathp, path, d);
		}
		if (!slash)
			break;
		s = slash + 1;
	}
}

static void validate_review_versions(struct sk__verr *e, json_t *versions, const char *fp)
{
	cleanup_json json_t *seen = json_object();
	int accepted = 0;
	size_t i;

	if (!json_array_size(versions)) {
		sk__vrequired(e, fp, "must specify one of v1, v1beta1");
		return;
	}
	for (i = 0; i < json_array_size(versions); i++) {
		const char *v = str_at(versions, i), *msg;
		cleanup_free char *ip = sk__vindex(fp, i);

		if (json_object_get(seen, v)) {
			sk__vinvalid_str(e, ip, v, "duplicate version");
			continue;
		}
		json_object_set_new(seen, v, json_true());
		if ((msg = sk_validate_dns1035_label(v)))
			sk__vinvalid_str(e, ip, v, msg);
		accepted |= !strcmp(v, "v1") || !strcmp(v, "v1beta1");
	}
	if (!accepted)
		sk__vinvalid(e, fp, versions, "must include at least one of v1, v1beta1");
}

void sk__validate_qualified_unique(struct sk__verr *e, const char *fp, json_t *v, const char *checked, json_t *seen)
{
	cleanup_json json_t *msgs = sk_validate_named_format("qualifiedName", checked);
	const char *s = json_string_value(v) ? json_string_value(v) : "";
	json_t *m;
	size_t k;

	json_array_foreach(msgs, k, m)
		sk__vinvalid_str(e, fp, checked, json_string_value(m));
	if (json_object_get(seen, s))
		sk__vduplicate(e, fp, v);
	else
		json_object_set_new(seen, s, json_true());
}

void sk__webhook_validate_match_conditions(struct sk__verr *e, json_t *conds, const char *fp, unsigned vars,
					   const sk_cel_decls *decls)
{
	cleanup_json json_t *seen = json_object();
	json_t *c;
	size_t i;

	if (json_array_size(conds) > 64)
		sk__vtoo_many(e, fp, (int64_t)json_array_size(conds), 64);
	json_array_foreach(conds, i, c) {
		cleanup_free char *ip = sk__vindex(fp, i);
		cleanup_free char *np = sk__vchild(ip, "name"), *xp = sk__vchild(ip, "expression");
		const char *name = json_string_value(json_object_get(c, "name"));
		const char *expr = json_string_value(json_object_get(c, "expression"));

		while (expr && (*expr == ' ' || *expr == '\t' || *expr == '\n'))
			expr++;
		if (!expr || !*expr) {
			sk__vrequired(e, xp, "");
		} else {
			char *cerr = NULL;
			sk_cel_program *prog = sk_cel_compile_decls(expr, vars, decls, &cerr);

			if (!prog) {
				cleanup_free char *d = xasprintf("compilation failed: %s", cerr ? cerr : "");

				sk__vinvalid_str(e, xp, json_string_value(json_object_get(c, "expression")), d);
			} else if (strcmp(sk_cel_result_type(prog), "bool") &&
				   strcmp(sk_cel_result_type(prog), "dyn")) {
				sk__vinvalid_str(e, xp, json_string_value(json_object_get(c, "expression")),
						 "must evaluate to bool");
			}
			sk_cel_program_free(prog);
			free(cerr);
		}
		if (!name || !*name) {
			sk__vrequired(e, np, "");
		} else {
			sk__validate_qualified_unique(e, np, json_object_get(c, "name"), name, seen);
		}
	}
}

static void validate_hook(struct sk__verr *e, const sk_api_resource *r, json_t *hook, const char *hp)
{
	json_t *rule, *cc = json_object_get(hook, "clientConfig");
	json_t *url = json_object_get(cc, "url"), *svc = json_object_get(cc, "service");
	const char *fp_s, *mp_s, *se_s, *rp_s;
	json_t *fp = json_object_get(hook, "failurePolicy"), *mp = json_object_get(hook, "matchPolicy");
	json_t *se = json_object_get(hook, "sideEffects"), *to = json_object_get(hook, "timeoutSeconds");
	json_t *rp = json_object_get(hook, "reinvocationPolicy");
	cleanup_free char *namep = sk__vchild(hp, "name"), *rulesp = sk__vchild(hp, "rules");
	cleanup_free char *fpp = sk__vchild(hp, "failurePolicy"), *mpp = sk__vchild(hp, "matchPolicy");
	cleanup_free char *sep = sk__vchild(hp, "sideEffects"), *top = sk__vchild(hp, "timeoutSeconds");
	cleanup_free char *nsp = sk__vchild(hp, "namespaceSelector"), *osp = sk__vchild(hp, "objectSelector");
	cleanup_free char *ccp = sk__vchild(hp, "clientConfig"), *rpp = sk__vchild(hp, "reinvocationPolicy");
	cleanup_free char *mcp = sk__vchild(hp, "matchConditions");
	size_t i;

	validate_fqn(e, namep, json_string_value(json_object_get(hook, "name")));
	json_array_foreach(json_object_get(hook, "rules"), i, rule) {
		cleanup_free char *ip = sk__vindex(rulesp, i);

		sk__webhook_validate_rule(e, rule, ip);
	}
	fp_s = json_string_value(fp);
	if (fp && !json_is_null(fp) && (!fp_s || (strcmp(fp_s, "Fail") && strcmp(fp_s, "Ignore"))))
		sk__vnot_supported(e, fpp, fp, LIST("Fail", "Ignore"));
	mp_s = json_string_value(mp);
	if (mp && !json_is_null(mp) && (!mp_s || (strcmp(mp_s, "Equivalent") && strcmp(mp_s, "Exact"))))
		sk__vnot_supported(e, mpp, mp, LIST("Equivalent", "Exact"));
	se_s = json_string_value(se);
	if (!se || json_is_null(se))
		sk__vrequired(e, sep, "must specify one of None, NoneOnDryRun");
	else if (!se_s || (strcmp(se_s, "None") && strcmp(se_s, "NoneOnDryRun")))
		sk__vnot_supported(e, sep, se, LIST("None", "NoneOnDryRun"));
	if (json_is_integer(to) && (json_integer_value(to) > 30 || json_integer_value(to) < 1))
		sk__vinvalid_int(e, top, json_integer_value(to), "the timeout value must be between 1 and 30 seconds");
	if (json_is_object(json_object_get(hook, "namespaceSelector")))
		sk__validate_label_selector(e, json_object_get(hook, "namespaceSelector"), nsp);
	if (json_is_object(json_object_get(hook, "objectSelector")))
		sk__validate_label_selector(e, json_object_get(hook, "objectSelector"), osp);
	if (mutating(r)) {
		rp_s = json_string_value(rp);
		if (rp && !json_is_null(rp) && (!rp_s || (strcmp(rp_s, "IfNeeded") && strcmp(rp_s, "Never"))))
			sk__vnot_supported(e, rpp, rp, LIST("IfNeeded", "Never"));
	}
	if (json_is_null(url))
		url = NULL;
	if (json_is_null(svc))
		svc = NULL;
	if (!url == !svc) {
		sk__vrequired(e, ccp, "exactly one of url or service is required");
	} else if (url) {
		cleanup_free char *up = sk__vchild(ccp, "url");

		validate_url(e, up, json_string_value(url) ? json_string_value(url) : "");
	} else {
		cleanup_free char *sp = sk__vchild(ccp, "service");

		validate_service(e, sp, svc);
	}
	{
		sk_cel_decls d = {0};

		sk__webhook_validate_match_conditions(e, json_object_get(hook, "matchConditions"), mcp,
						      SK_CEL_VAR_ADMISSION | SK_CEL_VAR_AUTHORIZER, &d);
	}
}

json_t *sk__validate_webhookconfig(const sk_api_resource *r, json_t *obj, json_t *old, int status_sub)
{
	struct sk__verr e = {json_array()};
	cleanup_json json_t *names = json_object();
	json_t *hook;
	size_t i;

	(void)status_sub;
	sk__validate_object_meta(&e, obj, false);
	if (json_is_object(old))
		sk__validate_object_meta_update(&e, obj, old);
	json_array_foreach(json_object_get(obj, "webhooks"), i, hook) {
		cleanup_free char *hp = xasprintf("webhooks[%zu]", i);
		cleanup_free char *avp = sk__vchild(hp, "admissionReviewVersions"), *np = sk__vchild(hp, "name");
		const char *name = json_string_value(json_object_get(hook, "name"));

		validate_hook(&e, r, hook, hp);
		validate_review_versions(&e, json_object_get(hook, "admissionReviewVersions"), avp);
		if (name && *name) {
			if (json_object_get(names, name))
				sk__vduplicate(&e, np, json_object_get(hook, "name"));
			else
				json_object_set_new(names, name, json_true());
		}
	}
	if (!json_array_size(e.causes)) {
		json_decref(e.causes);
		return NULL;
	}
	return e.causes;
}
