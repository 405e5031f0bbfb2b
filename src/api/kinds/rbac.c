/* The kinds of rbac.authorization.k8s.io/v1: Role, ClusterRole, RoleBinding
 * and ClusterRoleBinding with upstream's defaults (pkg/apis/rbac/v1),
 * validation (pkg/apis/rbac/validation) and escalation checks
 * (pkg/registry/rbac/{role,clusterrole,rolebinding,clusterrolebinding}/policybased). */
#include <string.h>

#include "api/api-int.h"
#include "api/table.h"
#include "api/rbac.h"
#include "api/validate-int.h"
#include "kube/selector.h"
#include "util/util.h"

static json_t *child(json_t *o, const char *k) { return json_object_get(o, k); }
static const char *cstr(json_t *o, const char *k) { return json_string_value(json_object_get(o, k)); }

/* ---- defaults ---- */

static void default_subjects(json_t *obj)
{
	size_t i;
	json_t *s;

	json_array_foreach(child(obj, "subjects"), i, s) {
		const char *kind = cstr(s, "kind");

		if (!json_is_object(s) || (cstr(s, "apiGroup") && *cstr(s, "apiGroup")))
			continue;
		if (kind && (!strcmp(kind, "User") || !strcmp(kind, "Group")))
			json_object_set_new(s, "apiGroup", json_string(SK_RBAC_GROUP));
	}
}

static void binding_defaults(const sk_api_resource *r, json_t *obj)
{
	json_t *ref = child(obj, "roleRef");

	(void)r;
	if (json_is_object(ref) && (!cstr(ref, "apiGroup") || !*cstr(ref, "apiGroup")))
		json_object_set_new(ref, "apiGroup", json_string(SK_RBAC_GROUP));
	default_subjects(obj);
}

/* ---- validation ---- */

static void validate_rule(struct sk__verr *e, json_t *rule, int namespaced, const char *path)
{
	cleanup_free char *verbs = sk__vchild(path, "verbs"), *urls = sk__vchild(path, "nonResourceURLs");
	cleanup_free char *groups = sk__vchild(path, "apiGroups"), *res = sk__vchild(path, "resources");

	if (!json_array_size(child(rule, "verbs")))
		sk__vrequired(e, verbs, "verbs must contain at least one value");
	if (json_array_size(child(rule, "nonResourceURLs"))) {
		if (namespaced)
			sk__vinvalid(e, urls, child(rule, "nonResourceURLs"),
				     "namespaced rules cannot apply to non-resource URLs");
		if (json_array_size(child(rule, "apiGroups")) || json_array_size(child(rule, "resources")) ||
		    json_array_size(child(rule, "resourceNames")))
			sk__vinvalid(e, urls, child(rule, "nonResourceURLs"),
				     "rules cannot apply to both regular resources and non-resource URLs");
		return;
	}
	if (!json_array_size(child(rule, "apiGroups")))
		sk__vrequired(e, groups, "resource rules must supply at least one api group");
	if (!json_array_size(child(rule, "resources")))
		sk__vrequired(e, res, "resource rules must supply at least one resource");
}

static json_t *role_validate(const sk_api_resource *r, json_t *obj, json_t *old, int status_sub)
{
	struct sk__verr e = {json_array()};
	json_t *agg = child(obj, "aggregationRule");
	size_t i;
	json_t *rule;

	(void)status_sub;
	sk__validate_object_meta_path(&e, obj, r->namespaced);
	if (old)
		sk__validate_object_meta_update(&e, obj, old);
	json_array_foreach(child(obj, "rules"), i, rule) {
		cleanup_free char *p = sk__vindex("rules", i);

		validate_rule(&e, rule, r->namespaced, p);
	}
	if (json_is_object(agg) && !json_array_size(child(agg, "clusterRoleSelectors")))
		sk__vrequired(&e, "aggregationRule.clusterRoleSelectors",
			      "at least one clusterRoleSelector required if aggregationRule is non-nil");
	json_array_foreach(child(agg, "clusterRoleSelectors"), i, rule) {
		cleanup_free char *p = sk__vindex("aggregationRule.clusterRoleSelectors", i);
		sk_error_t err = {0};
		sk_kube_label_selector *sel = sk_kube_label_selector_from_json(rule, &err);

		if (!sel) {
			cleanup_free char *text = json_dumps(rule, JSON_COMPACT | JSON_SORT_KEYS);

			sk__vinvalid_repr(&e, p, text ? text : "", err.msg);
		}
		sk_kube_label_selector_free(sel);
	}
	return e.causes;
}

static void validate_subject(struct sk__verr *e, json_t *s, int namespaced, const char *path)
{
	static const char *const kinds[] = {"ServiceAccount", "User", "Group", NULL};
	static const char *const rbac_group[] = {SK_RBAC_GROUP, NULL}, *const core_group[] = {"", NULL};
	const char *kind = cstr(s, "kind"), *name = cstr(s, "name"), *group = cstr(s, "apiGroup");
	cleanup_free char *np = sk__vchild(path, "name"), *gp = sk__vchild(path, "apiGroup");
	cleanup_free char *kp = sk__vchild(path, "kind"), *nsp = sk__vchild(path, "namespace");

	if (!name || !*name)
		sk__vrequired(e, np, "");
	if (!kind) {
		sk__vnot_supported(e, kp, NULL, kinds);
		return;
	}
	if (!strcmp(kind, "ServiceAccount")) {
		if (group && *group)
			sk__vnot_supported(e, gp, child(s, "apiGroup"), core_group);
		if (!namespaced && (!cstr(s, "namespace") || !*cstr(s, "namespace")))
			sk__vrequired(e, nsp, "");
	} else if (!strcmp(kind, "User") || !strcmp(kind, "Group")) {
		if (!group || strcmp(group, SK_RBAC_GROUP))
			sk__vnot_supported(e, gp, child(s, "apiGroup"), rbac_group);
	} else {
		sk__vnot_supported(e, kp, child(s, "kind"), kinds);
	}
}

static json_t *binding_validate(const sk_api_resource *r, json_t *obj, json_t *old, int status_sub)
{
	static const char *const both[] = {"Role", "ClusterRole", NULL}, *const cluster[] = {"ClusterRole", NULL};
	static const char *const rbac_group[] = {SK_RBAC_GROUP, NULL};
	struct sk__verr e = {json_array()};
	json_t *ref = child(obj, "roleRef"), *s;
	const char *kind = cstr(ref, "kind"), *name = cstr(ref, "name"), *group = cstr(ref, "apiGroup");
	size_t i;

	(void)status_sub;
	sk__validate_object_meta_path(&e, obj, r->namespaced);
	if (old) {
		sk__validate_object_meta_update(&e, obj, old);
		if (!json_equal(ref ? ref : json_null(), child(old, "roleRef") ? child(old, "roleRef") : json_null())) {
			/* Go's %#v of the internal rbac.RoleRef */
			cleanup_free char *g = sk__vquote(group ? group : ""), *k = sk__vquote(kind ? kind : "");
			cleanup_free char *n = sk__vquote(name ? name : "");
			cleanup_free char *repr = xasprintf("rbac.RoleRef{APIGroup:%s, Kind:%s, Name:%s}", g, k, n);

			sk__vinvalid_repr(&e, "roleRef", repr, "cannot change roleRef");
		}
	}
	if (!group || strcmp(group, SK_RBAC_GROUP))
		sk__vnot_supported(&e, "roleRef.apiGroup", child(ref, "apiGroup"), rbac_group);
	if (r->namespaced ? !kind || (strcmp(kind, "Role") && strcmp(kind, "ClusterRole"))
			  : !kind || strcmp(kind, "ClusterRole"))
		sk__vnot_supported(&e, "roleRef.kind", child(ref, "kind"), r->namespaced ? both : cluster);
	if (!name || !*name) {
		sk__vrequired(&e, "roleRef.name", "");
	} else if (!strcmp(name, ".") || !strcmp(name, "..") || strchr(name, '/') || strchr(name, '%')) {
		sk__vinvalid_str(&e, "roleRef.name", name,
				 !strcmp(name, ".")    ? "may not be '.'"
				 : !strcmp(name, "..") ? "may not be '..'"
				 : strchr(name, '/')   ? "may not contain '/'"
						       : "may not contain '%'");
	}
	json_array_foreach(child(obj, "subjects"), i, s) {
		cleanup_free char *p = sk__vindex("subjects", i);

		validate_subject(&e, s, r->namespaced, p);
	}
	return e.causes;
}

/* ---- escalation checks ---- */

static int forbidden(sk_error_t *err, const sk_api_resource *r, json_t *obj, const char *why)
{
	return sk_error_set(err, SK_EFORBIDDEN, "%s.%s \"%s\" is forbidden: %s", r->plural, r->group,
			    cstr(child(obj, "metadata"), "name"), why);
}

/* EscalationAllowed: system:masters (and the in-process client) may. */
static int escalation_allowed(const sk_user *u) { return !u || sk_user_in_group(u, SK_GROUP_MASTERS); }

static int may(sk_api *api, const sk_user *u, const char *verb, const char *resource, const char *ns, const char *name)
{
	sk_authz_attrs a = {.user = u,
			    .verb = verb,
			    .resource_request = 1,
			    .api_group = SK_RBAC_GROUP,
			    .api_version = "v1",
			    .resource = resource,
			    .subresource = "",
			    .ns = ns,
			    .name = name,
			    .path = ""};
	cleanup_free char *reason = NULL;

	return sk__authorize(api, &a, &reason);
}

/* ConfirmNoEscalation: the user's own rules in ns must cover rules. */
static int confirm_no_escalation(sk_api *api, const sk_api_resource *r, const sk_user *u, const char *ns, json_t *obj,
				 json_t *rules, sk_error_t *err)
{
	cleanup_json json_t *errs = NULL, *owner = sk__rbac_rules_for(api, u, ns, &errs), *missing = NULL;
	cleanup_json json_t *groups = json_array(), *lines = json_array();
	cleanup_free char *q = NULL, *msg = NULL;
	char *buf = NULL;
	size_t len = 0, i;
	FILE *f;
	json_t *m;

	if (sk_rbac_covers(owner, rules, &missing))
		return 0;
	for (i = 0; i < u->ngroups; i++)
		json_array_append_new(groups, json_string(u->groups[i]));
	json_array_foreach(missing, i, m) {
		cleanup_free char *line = sk_rbac_rule_string(m);

		json_array_append_new(lines, json_string(line));
	}
	q = sk_rbac_quote_list(groups);
	f = open_memstream(&buf, &len);
	fprintf(f, "user \"%s\" (groups=%s) is attempting to grant RBAC permissions not currently held:", u->name, q);
	/* a sorted set of lines, as upstream's sets.String.List() */
	while (json_array_size(lines)) {
		size_t best = 0;

		json_array_foreach(lines, i, m)
			if (strcmp(json_string_value(m), json_string_value(json_array_get(lines, best))) < 0)
				best = i;
		fprintf(f, "\n%s", json_string_value(json_array_get(lines, best)));
		json_array_remove(lines, best);
	}
	if (json_array_size(errs)) {
		fputs("; resolution errors: [", f);
		json_array_foreach(errs, i, m)
			fprintf(f, "%s%s", i ? " " : "", json_string_value(m));
		fputc(']', f);
	}
	fclose(f);
	msg = buf;
	return forbidden(err, r, obj, msg);
}

static int role_authorize_write(sk_api *api, const sk_api_resource *r, const sk_user *u, json_t *obj, json_t *old,
				sk_error_t *err)
{
	const char *ns = r->namespaced ? cstr(child(obj, "metadata"), "namespace") : "";
	json_t *rules = child(obj, "rules");
	cleanup_json json_t *full = NULL;

	if (old && json_equal(rules ? rules : json_null(), child(old, "rules") ? child(old, "rules") : json_null()) &&
	    json_equal(child(obj, "aggregationRule") ? child(obj, "aggregationRule") : json_null(),
		       child(old, "aggregationRule") ? child(old, "aggregationRule") : json_null()))
		return 0;
	if (escalation_allowed(u) ||
	    may(api, u, "escalate", r->plural, ns ? ns : "", cstr(child(obj, "metadata"), "name")))
		return 0;
	if (json_is_object(child(obj, "aggregationRule"))) {
		cleanup_json json_t *owner = sk__rbac_rules_for(api, u, "", NULL);

		full = json_pack("[{s:[s], s:[s], s:[s]}, {s:[s], s:[s]}]", "verbs", "*", "apiGroups", "*", "resources",
				 "*", "verbs", "*", "nonResourceURLs", "*");
		if (!sk_rbac_covers(owner, full, NULL))
			return forbidden(err, r, obj, "must have cluster-admin privileges to use the aggregationRule");
	}
	return confirm_no_escalation(api, r, u, ns ? ns : "", obj, json_is_array(rules) ? rules : NULL, err);
}

static int binding_authorize_write(sk_api *api, const sk_api_resource *r, const sk_user *u, json_t *obj, json_t *old,
				   sk_error_t *err)
{
	const char *ns = r->namespaced ? cstr(child(obj, "metadata"), "namespace") : "";
	json_t *ref = child(obj, "roleRef");
	const char *kind = cstr(ref, "kind");
	cleanup_json json_t *rules = NULL;
	sk_error_t e = {0};

	if (!ns)
		ns = "";
	if (old && json_equal(ref, child(old, "roleRef")) &&
	    json_equal(child(obj, "subjects") ? child(obj, "subjects") : json_null(),
		       child(old, "subjects") ? child(old, "subjects") : json_null()))
		return 0;
	if (escalation_allowed(u))
		return 0;
	/* BindingAuthorized: bind on the referenced role */
	if (may(api, u, "bind", kind && !strcmp(kind, "Role") ? "roles" : "clusterroles", ns, cstr(ref, "name")))
		return 0;
	rules = sk__rbac_role_rules(api, ref, ns, &e);
	if (!rules)
		return forbidden(err, r, obj, e.msg);
	return confirm_no_escalation(api, r, u, ns, obj, rules, err);
}

static const sk_kind_ops role_ops = {
	.validate = role_validate,
	.authorize_write = role_authorize_write,
};

static const sk_kind_ops binding_ops = {
	.printer = &sk_table_printer_rolebinding,
	.defaults = binding_defaults,
	.validate = binding_validate,
	.authorize_write = binding_authorize_write,
};

const sk_api_resource sk__kinds_rbac[] = {
	{
		.group = SK_RBAC_GROUP,
		.version = "v1",
		.kind = "ClusterRoleBinding",
		.plural = "clusterrolebindings",
		.singular = "clusterrolebinding",
		.namespaced = 0,
		.ops = &binding_ops,
	},
	{
		.group = SK_RBAC_GROUP,
		.version = "v1",
		.kind = "ClusterRole",
		.plural = "clusterroles",
		.singular = "clusterrole",
		.namespaced = 0,
		.ops = &role_ops,
	},
	{
		.group = SK_RBAC_GROUP,
		.version = "v1",
		.kind = "RoleBinding",
		.plural = "rolebindings",
		.singular = "rolebinding",
		.namespaced = 1,
		.ops = &binding_ops,
	},
	{
		.group = SK_RBAC_GROUP,
		.version = "v1",
		.kind = "Role",
		.plural = "roles",
		.singular = "role",
		.namespaced = 1,
		.ops = &role_ops,
	},
};
const size_t sk__nkinds_rbac = sizeof(sk__kinds_rbac) / sizeof(sk__kinds_rbac[0]);
