/* ValidatingAdmissionPolicy and ValidatingAdmissionPolicyBinding
 * (admissionregistration.k8s.io/v1): upstream's defaults
 * (SetDefaults_ValidatingAdmissionPolicySpec, _MatchResources, _Rule) and
 * validation (ValidateValidatingAdmissionPolicy, …Binding), with upstream's
 * messages. Expressions are compiled as the plugin compiles them (vap.c):
 * object, oldObject, request, params, namespaceObject, variables and
 * authorizer declared, all dynamically typed. */
#include <ctype.h>
#include <string.h>

#include "api/cel/cel.h"
#include "api/validate-int.h"
#include "api/validate.h"
#include "api/webhook.h"
#include "util/util.h"

#define LIST(...) \
	(const char *const[]) { __VA_ARGS__, NULL }

static void set_default(json_t *o, const char *key, json_t *v)
{
	if (!json_object_get(o, key) || json_is_null(json_object_get(o, key)))
		json_object_set(o, key, v);
	json_decref(v);
}

static void default_match_resources(json_t *m)
{
	json_t *rule;
	size_t i;

	if (!json_is_object(m))
		return;
	set_default(m, "matchPolicy", json_string("Equivalent"));
	set_default(m, "namespaceSelector", json_object());
	set_default(m, "objectSelector", json_object());
	json_array_foreach(json_object_get(m, "resourceRules"), i, rule)
		if (json_is_object(rule))
			set_default(rule, "scope", json_string("*"));
	json_array_foreach(json_object_get(m, "excludeResourceRules"), i, rule)
		if (json_is_object(rule))
			set_default(rule, "scope", json_string("*"));
}

void sk__defaults_vap(const sk_api_resource *r, json_t *obj)
{
	json_t *spec = json_object_get(obj, "spec");

	(void)r;
	if (!json_is_object(spec))
		return;
	set_default(spec, "failurePolicy", json_string("Fail"));
	default_match_resources(json_object_get(spec, "matchConstraints"));
}

void sk__defaults_vapb(const sk_api_resource *r, json_t *obj)
{
	(void)r;
	default_match_resources(json_object_get(json_object_get(obj, "spec"), "matchResources"));
}

/* ---- validation ---- */

static const char *trimmed(const char *s, size_t *len)
{
	size_t n;

	if (!s) {
		*len = 0;
		return "";
	}
	while (*s && isspace((unsigned char)*s))
		s++;
	n = strlen(s);
	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	*len = n;
	return s;
}

static void validate_named_rule(struct sk__verr *e, json_t *rule, const char *rp)
{
	cleanup_json json_t *seen = json_object();
	cleanup_free char *np = sk__vchild(rp, "resourceNames");
	json_t *n;
	size_t i;

	json_array_foreach(json_object_get(rule, "resourceNames"), i, n) {
		cleanup_free char *ip = sk__vindex(np, i);
		const char *s = json_string_value(n) ? json_string_value(n) : "";

		sk__validate_path_segment(e, ip, s);
		if (json_object_get(seen, s))
			sk__vduplicate(e, ip, n);
		else
			json_object_set_new(seen, s, json_true());
	}
	sk__webhook_validate_rule(e, rule, rp);
}

static void validate_match_resources(struct sk__verr *e, json_t *m, const char *fp)
{
	json_t *mp = json_object_get(m, "matchPolicy"), *rule;
	const char *mps = json_string_value(mp);
	cleanup_free char *mpp = sk__vchild(fp, "matchPolicy"), *nsp = sk__vchild(fp, "namespaceSelector");
	cleanup_free char *osp = sk__vchild(fp, "objectSelector"), *rrp = sk__vchild(fp, "resourceRules");
	cleanup_free char *erp = sk__vchild(fp, "excludeResourceRules");
	size_t i;

	if (!json_is_object(m))
		return;
	if (!mp || json_is_null(mp))
		sk__vrequired(e, mpp, "");
	else if (!mps || (strcmp(mps, "Equivalent") && strcmp(mps, "Exact")))
		sk__vnot_supported(e, mpp, mp, LIST("Equivalent", "Exact"));
	if (!json_is_object(json_object_get(m, "namespaceSelector")))
		sk__vrequired(e, nsp, "");
	else
		sk__validate_label_selector(e, json_object_get(m, "namespaceSelector"), nsp);
	if (!json_is_object(json_object_get(m, "objectSelector")))
		sk__vrequired(e, osp, "");
	else
		sk__validate_label_selector(e, json_object_get(m, "objectSelector"), osp);
	json_array_foreach(json_object_get(m, "resourceRules"), i, rule) {
		cleanup_free char *ip = sk__vindex(rrp, i);

		validate_named_rule(e, rule, ip);
	}
	json_array_foreach(json_object_get(m, "excludeResourceRules"), i, rule) {
		cleanup_free char *ip = sk__vindex(erp, i);

		validate_named_rule(e, rule, ip);
	}
}

static void validate_param_kind(struct sk__verr *e, json_t *pk, const char *fp)
{
	const char *av = json_string_value(json_object_get(pk, "apiVersion"));
	const char *kind = json_string_value(json_object_get(pk, "kind"));
	cleanup_free char *avp = sk__vchild(fp, "apiVersion"), *kp = sk__vchild(fp, "kind");

	if (!av || !*av) {
		sk__vrequired(e, avp, "");
	} else {
		const char *slash = strchr(av, '/');
		cleanup_free char *group = slash ? xstrndup(av, (size_t)(slash - av)) : xstrdup("");
		const char *version = slash ? slash + 1 : av;
		const char *msg;

		if (slash && strchr(version, '/')) {
			cleanup_free char *d = xasprintf("unexpected GroupVersion string: %s", av);

			sk__vinvalid_str(e, avp, av, d);
		} else {
			if (*group && (msg = sk_validate_dns1123_subdomain(group)))
				sk__vinvalid_str(e, avp, group, msg);
			if (!*version)
				sk__vinvalid_str(e, avp, av, "version must be specified");
			else if ((msg = sk_validate_dns1035_label(version)))
				sk__vinvalid_str(e, avp, version, msg);
		}
	}
	if (!kind || !*kind) {
		sk__vrequired(e, kp, "");
	} else {
		cleanup_free char *lower = xstrdup(kind);
		const char *msg;

		for (char *c = lower; *c; c++)
			*c = (char)tolower((unsigned char)*c);
		if ((msg = sk_validate_dns1035_label(lower))) {
			cleanup_free char *d = xasprintf("may have mixed case, but should otherwise match: %s", msg);

			sk__vinvalid_str(e, kp, kind, d);
		}
	}
}

/* The names variables.<name> may select in the policy's expressions. */
static const char **variable_names(json_t *spec, size_t *n)
{
	json_t *vars = json_object_get(spec, "variables"), *v;
	const char **names = xzalloc((json_array_size(vars) + 1) * sizeof(*names));
	size_t i;

	*n = 0;
	json_array_foreach(vars, i, v) {
		const char *name = json_string_value(json_object_get(v, "name"));

		names[(*n)++] = name ? name : ""; /* by position: variable i sees names[0..i) */
	}
	return names;
}

/* Compiles expr as the plugin does; a compile error or a result that
 * cannot be of type want ("bool", "string", NULL: any) is a cause at fp. */
static void validate_expression(struct sk__verr *e, const char *fp, const char *expr, const sk_cel_decls *d,
				const char *want)
{
	char *cerr = NULL;
	sk_cel_program *p = sk_cel_compile_decls(expr, SK_CEL_VAR_ADMISSION | SK_CEL_VAR_AUTHORIZER | SK_CEL_VAR_POLICY,
						 d, &cerr);

	if (!p) {
		cleanup_free char *msg = xasprintf("compilation failed: %s", cerr ? cerr : "");

		sk__vinvalid_str(e, fp, expr, msg);
	} else if (want && strcmp(sk_cel_result_type(p), want) && strcmp(sk_cel_result_type(p), "dyn")) {
		cleanup_free char *msg = xasprintf("must evaluate to %s", want);

		sk__vinvalid_str(e, fp, expr, msg);
	}
	sk_cel_program_free(p);
	free(cerr);
}

static int cel_identifier(const char *s)
{
	static const char *const reserved[] = {"true",   "false",    "null",  "in",      "as",        "break",
					       "const",  "continue", "else",  "for",     "function",  "if",
					       "import", "let",      "loop",  "package", "namespace", "return",
					       "var",    "void",     "while", NULL};

	if (!*s || !(isalpha((unsigned char)*s) || *s == '_'))
		return 0;
	for (const char *c = s; *c; c++)
		if (!(isalnum((unsigned char)*c) || *c == '_'))
			return 0;
	for (int k = 0; reserved[k]; k++)
		if (!strcmp(reserved[k], s))
			return 0;
	return 1;
}

static void validate_variables(struct sk__verr *e, json_t *vars, const sk_cel_decls *d)
{
	cleanup_json json_t *seen = json_object();
	json_t *v;
	size_t i;

	json_array_foreach(vars, i, v) {
		cleanup_free char *ip = xasprintf("spec.variables[%zu]", i);
		cleanup_free char *np = sk__vchild(ip, "name"), *xp = sk__vchild(ip, "expression");
		const char *name = json_string_value(json_object_get(v, "name"));
		const char *expr = json_string_value(json_object_get(v, "expression"));
		size_t len;

		if (!name || !*name)
			sk__vrequired(e, np, "name is not specified");
		else if (!cel_identifier(name))
			sk__vinvalid_str(e, np, name, "name is not a valid CEL identifier");
		else if (json_object_get(seen, name))
			sk__vduplicate(e, np, json_object_get(v, "name"));
		else
			json_object_set_new(seen, name, json_true());
		trimmed(expr, &len);
		if (!len) {
			sk__vrequired(e, xp, "expression is not specified");
		} else {
			/* a variable sees the variables before it */
			sk_cel_decls before = *d;

			before.nvariables = i < d->nvariables ? i : d->nvariables;
			validate_expression(e, xp, expr, &before, NULL);
		}
	}
}

static void validate_validation(struct sk__verr *e, json_t *v, size_t i, const sk_cel_decls *d)
{
	cleanup_free char *ip = xasprintf("spec.validations[%zu]", i);
	cleanup_free char *xp = sk__vchild(ip, "expression"), *mp = sk__vchild(ip, "message");
	cleanup_free char *mxp = sk__vchild(ip, "messageExpression"), *rp = sk__vchild(ip, "reason");
	const char *expr = json_string_value(json_object_get(v, "expression"));
	const char *msg = json_string_value(json_object_get(v, "message"));
	const char *mexpr = json_string_value(json_object_get(v, "messageExpression"));
	json_t *reason = json_object_get(v, "reason");
	size_t len;
	const char *t;

	trimmed(expr, &len);
	if (!len)
		sk__vrequired(e, xp, "expression is not specified");
	else
		validate_expression(e, xp, expr, d, "bool");
	if (mexpr && *mexpr) {
		trimmed(mexpr, &len);
		if (!len)
			sk__vinvalid_str(e, mxp, mexpr, "must be non-empty if specified");
		else
			validate_expression(e, mxp, mexpr, d, "string");
	}
	if (msg && *msg) {
		t = trimmed(msg, &len);
		if (!len)
			sk__vinvalid_str(e, mp, msg, "message must be non-empty if specified");
		else if (memchr(t, '\n', len))
			sk__vinvalid_str(e, mp, msg, "message must not contain line breaks");
	}
	if (reason && !json_is_null(reason)) {
		static const char *const ok[] = {"Forbidden", "Invalid", "RequestEntityTooLarge", "Unauthorized", NULL};
		const char *rs = json_string_value(reason);
		int found = 0;

		for (int k = 0; rs && ok[k]; k++)
			found |= !strcmp(ok[k], rs);
		if (!found)
			sk__vnot_supported(e, rp, reason, ok);
	}
}

static void validate_audit_annotations(struct sk__verr *e, json_t *anns, const char *policy_name, const sk_cel_decls *d)
{
	cleanup_json json_t *seen = json_object();
	json_t *a;
	size_t i;

	if (json_array_size(anns) > 20)
		sk__vinvalid(e, "spec.auditAnnotations", anns, "must not have more than 20 auditAnnotations");
	json_array_foreach(anns, i, a) {
		cleanup_free char *ip = xasprintf("spec.auditAnnotations[%zu]", i);
		cleanup_free char *kp = sk__vchild(ip, "key"), *vp = sk__vchild(ip, "valueExpression");
		const char *key = json_string_value(json_object_get(a, "key"));
		const char *vexpr = json_string_value(json_object_get(a, "valueExpression"));
		size_t len;

		if (!key || !*key) {
			sk__vrequired(e, kp, "");
		} else {
			/* upstream checks the annotation's whole key, POLICY/KEY */
			cleanup_free char *qn = xasprintf("%s/%s", policy_name, key);

			sk__validate_qualified_unique(e, kp, json_object_get(a, "key"), qn, seen);
		}
		trimmed(vexpr, &len);
		if (!len)
			sk__vrequired(e, vp, "valueExpression is not specified");
		else
			validate_expression(e, vp, vexpr, d, NULL);
	}
}

static json_t *causes_or_null(struct sk__verr *e)
{
	if (!json_array_size(e->causes)) {
		json_decref(e->causes);
		return NULL;
	}
	return e->causes;
}

json_t *sk__validate_vap(const sk_api_resource *r, json_t *obj, json_t *old, int status_sub)
{
	struct sk__verr e = {json_array()};
	json_t *spec = json_object_get(obj, "spec"), *fp, *v, *mc;
	cleanup_free const char **names = NULL;
	sk_cel_decls d = {0};
	const char *fps;
	size_t i;

	(void)r;
	sk__validate_object_meta(&e, obj, false);
	if (json_is_object(old))
		sk__validate_object_meta_update(&e, obj, old);
	if (status_sub) {
		json_array_foreach(json_object_get(json_object_get(json_object_get(obj, "status"), "typeChecking"),
						   "expressionWarnings"),
				   i, v) {
			cleanup_free char *ip = xasprintf("status.typeChecking.expressionWarnings[%zu]", i);
			cleanup_free char *fr = sk__vchild(ip, "fieldRef"), *w = sk__vchild(ip, "warning");

			if (!json_string_length(json_object_get(v, "fieldRef")))
				sk__vrequired(&e, fr, "");
			if (!json_string_length(json_object_get(v, "warning")))
				sk__vrequired(&e, w, "");
		}
		return causes_or_null(&e);
	}
	names = variable_names(spec, &d.nvariables);
	d.variables = names;
	fp = json_object_get(spec, "failurePolicy");
	fps = json_string_value(fp);
	if (!fp || json_is_null(fp))
		sk__vrequired(&e, "spec.failurePolicy", "");
	else if (!fps || (strcmp(fps, "Fail") && strcmp(fps, "Ignore")))
		sk__vnot_supported(&e, "spec.failurePolicy", fp, LIST("Fail", "Ignore"));
	if (json_is_object(json_object_get(spec, "paramKind")))
		validate_param_kind(&e, json_object_get(spec, "paramKind"), "spec.paramKind");
	mc = json_object_get(spec, "matchConstraints");
	if (!json_is_object(mc)) {
		sk__vrequired(&e, "spec.matchConstraints", "");
	} else {
		validate_match_resources(&e, mc, "spec.matchConstraints");
		if (!json_array_size(json_object_get(mc, "resourceRules")))
			sk__vrequired(&e, "spec.matchConstraints.resourceRules", "");
	}
	sk__webhook_validate_match_conditions(&e, json_object_get(spec, "matchConditions"), "spec.matchConditions",
					      SK_CEL_VAR_ADMISSION | SK_CEL_VAR_AUTHORIZER | SK_CEL_VAR_POLICY, &d);
	validate_variables(&e, json_object_get(spec, "variables"), &d);
	if (!json_array_size(json_object_get(spec, "validations")) &&
	    !json_array_size(json_object_get(spec, "auditAnnotations"))) {
		sk__vrequired(&e, "spec.validations", "validations or auditAnnotations must contain at least one item");
		sk__vrequired(&e, "spec.auditAnnotations",
			      "validations or auditAnnotations must contain at least one item");
	} else {
		const char *pname = json_string_value(json_object_get(json_object_get(obj, "metadata"), "name"));

		json_array_foreach(json_object_get(spec, "validations"), i, v)
			validate_validation(&e, v, i, &d);
		validate_audit_annotations(&e, json_object_get(spec, "auditAnnotations"), pname ? pname : "", &d);
	}
	return causes_or_null(&e);
}

json_t *sk__validate_vapb(const sk_api_resource *r, json_t *obj, json_t *old, int status_sub)
{
	struct sk__verr e = {json_array()};
	json_t *spec = json_object_get(obj, "spec"), *pr = json_object_get(spec, "paramRef"), *a;
	json_t *actions = json_object_get(spec, "validationActions");
	const char *policy = json_string_value(json_object_get(spec, "policyName"));
	cleanup_json json_t *seen = json_object();
	size_t i;

	(void)r;
	(void)status_sub;
	sk__validate_object_meta(&e, obj, false);
	if (json_is_object(old))
		sk__validate_object_meta_update(&e, obj, old);
	if (!policy || !*policy) {
		sk__vrequired(&e, "spec.policyName", "");
	} else {
		const char *msg = sk_validate_dns1123_subdomain(policy);

		if (msg)
			sk__vinvalid_str(&e, "spec.policyName", policy, msg);
	}
	if (json_is_object(pr)) {
		const char *name = json_string_value(json_object_get(pr, "name"));
		json_t *sel = json_object_get(pr, "selector"), *pnf = json_object_get(pr, "parameterNotFoundAction");
		const char *pnfs = json_string_value(pnf);

		if (json_is_null(sel))
			sel = NULL;
		if (name && *name) {
			sk__validate_path_segment(&e, "spec.paramRef.name", name);
			if (sel)
				sk__vforbidden(&e, "spec.paramRef.name", "name and selector are mutually exclusive");
		}
		if (sel) {
			sk__validate_label_selector(&e, sel, "spec.paramRef.selector");
			if (name && *name)
				sk__vforbidden(&e, "spec.paramRef.selector",
					       "name and selector are mutually exclusive");
		}
		if ((!name || !*name) && !sel)
			sk__vrequired(&e, "spec.paramRef", "one of name or selector must be specified");
		if (!pnfs || !*pnfs)
			sk__vrequired(&e, "spec.paramRef.parameterNotFoundAction", "");
		else if (strcmp(pnfs, "Deny") && strcmp(pnfs, "Allow"))
			sk__vnot_supported(&e, "spec.paramRef.parameterNotFoundAction", pnf, LIST("Deny", "Allow"));
	}
	/* upstream's field path, misspelt as it is */
	validate_match_resources(&e, json_object_get(spec, "matchResources"), "spec.matchResouces");
	json_array_foreach(actions, i, a) {
		cleanup_free char *ip = sk__vindex("spec.validationActions", i);
		const char *s = json_string_value(a) ? json_string_value(a) : "";

		if (strcmp(s, "Audit") && strcmp(s, "Deny") && strcmp(s, "Warn"))
			sk__vnot_supported(&e, ip, a, LIST("Audit", "Deny", "Warn"));
		if (json_object_get(seen, s))
			sk__vduplicate(&e, ip, a);
		json_object_set_new(seen, s, json_true());
	}
	if (json_object_get(seen, "Deny") && json_object_get(seen, "Warn"))
		sk__vinvalid(
			&e, "spec.validationActions", actions,
			"must not contain both Deny and Warn (repeating the same validation failure information in "
			"the API response and headers serves no purpose)");
	if (!json_object_size(seen))
		sk__vrequired(&e, "spec.validationActions", "at least one validation action is required");
	return causes_or_null(&e);
}
