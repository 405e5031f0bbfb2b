/* RBAC's rules over JSON (rbac.h): upstream's rbac.go RuleAllows and
 * appliesToUser, and pkg/registry/rbac/validation's Covers, BreakdownRule,
 * CompactRules and PolicyRule.CompactString. */
#include <stdio.h>
#include <string.h>

#include "api/rbac.h"
#include "util/util.h"

static int has(json_t *arr, const char *s)
{
	size_t i;
	json_t *v;

	json_array_foreach(arr, i, v)
		if (json_is_string(v) && !strcmp(json_string_value(v), s))
			return 1;
	return 0;
}

static int has_all(json_t *set, json_t *want)
{
	size_t i;
	json_t *v;

	json_array_foreach(want, i, v)
		if (!json_is_string(v) || !has(set, json_string_value(v)))
			return 0;
	return 1;
}

static json_t *field(json_t *rule, const char *name) { return json_object_get(rule, name); }

static int verb_matches(json_t *rule, const char *verb)
{
	return has(field(rule, "verbs"), "*") || has(field(rule, "verbs"), verb);
}

static int group_matches(json_t *rule, const char *group)
{
	return has(field(rule, "apiGroups"), "*") || has(field(rule, "apiGroups"), group);
}

static int resource_matches(json_t *rule, const char *resource, const char *sub)
{
	size_t i, rlen = strlen(resource), slen = strlen(sub);
	json_t *v;

	json_array_foreach(field(rule, "resources"), i, v) {
		const char *r = json_string_value(v);

		if (!r)
			continue;
		if (!strcmp(r, "*"))
			return 1;
		if (!slen) {
			if (!strcmp(r, resource))
				return 1;
			continue;
		}
		/* "resource/subresource", or "*" + "/subresource" */
		if (!strncmp(r, resource, rlen) && r[rlen] == '/' && !strcmp(r + rlen + 1, sub))
			return 1;
		if (r[0] == '*' && r[1] == '/' && !strcmp(r + 2, sub))
			return 1;
	}
	return 0;
}

static int name_matches(json_t *rule, const char *name)
{
	json_t *names = field(rule, "resourceNames");

	return !json_array_size(names) || has(names, name);
}

static int url_matches(json_t *rule, const char *path)
{
	size_t i;
	json_t *v;

	json_array_foreach(field(rule, "nonResourceURLs"), i, v) {
		const char *u = json_string_value(v);
		size_t n = u ? strlen(u) : 0;

		if (!u)
			continue;
		if (!strcmp(u, "*") || !strcmp(u, path))
			return 1;
		if (n && u[n - 1] == '*' && !strncmp(u, path, n - 1))
			return 1;
	}
	return 0;
}

int sk_rbac_rule_allows(json_t *rule, const sk_authz_attrs *a)
{
	if (!json_is_object(rule) || !verb_matches(rule, a->verb))
		return 0;
	if (!a->resource_request)
		return url_matches(rule, a->path);
	return group_matches(rule, a->api_group) && resource_matches(rule, a->resource, a->subresource) &&
	       name_matches(rule, a->name);
}

char *sk_rbac_sa_username(const char *ns, const char *name)
{
	return xasprintf("system:serviceaccount:%s:%s", ns, name);
}

int sk_rbac_subject_applies(json_t *subject, const sk_user *u, const char *ns)
{
	const char *kind = json_string_value(json_object_get(subject, "kind"));
	const char *name = json_string_value(json_object_get(subject, "name"));
	const char *sns = json_string_value(json_object_get(subject, "namespace"));
	cleanup_free char *sa = NULL;

	if (!kind || !name || !u)
		return 0;
	if (!strcmp(kind, "User"))
		return !strcmp(name, u->name);
	if (!strcmp(kind, "Group"))
		return sk_user_in_group(u, name);
	if (strcmp(kind, "ServiceAccount"))
		return 0;
	if (sns && *sns)
		ns = sns;
	if (!ns || !*ns)
		return 0;
	sa = sk_rbac_sa_username(ns, name);
	return !strcmp(sa, u->name);
}

/* ---- Covers ---- */

/* BreakdownRule: one verb, group, resource (and name) per rule. */
static void breakdown(json_t *rule, json_t *out)
{
	json_t *groups = field(rule, "apiGroups"), *res = field(rule, "resources"), *verbs = field(rule, "verbs");
	json_t *names = field(rule, "resourceNames"), *urls = field(rule, "nonResourceURLs");
	size_t gi, ri, vi, ni;
	json_t *g, *r, *v, *n;

	json_array_foreach(groups, gi, g)
		json_array_foreach(res, ri, r)
			json_array_foreach(verbs, vi, v) {
				if (!json_array_size(names)) {
					json_array_append_new(out, json_pack("{s:[O], s:[O], s:[O]}", "verbs", v,
									     "apiGroups", g, "resources", r));
					continue;
				}
				json_array_foreach(names, ni, n)
					json_array_append_new(out, json_pack("{s:[O], s:[O], s:[O], s:[O]}", "verbs", v,
									     "apiGroups", g, "resources", r,
									     "resourceNames", n));
			}
	json_array_foreach(urls, ri, r)
		json_array_foreach(verbs, vi, v)
			json_array_append_new(out, json_pack("{s:[O], s:[O]}", "verbs", v, "nonResourceURLs", r));
}

static int resources_cover(json_t *set, json_t *want)
{
	size_t i;
	json_t *v;

	if (has(set, "*") || has_all(set, want))
		return 1;
	json_array_foreach(want, i, v) {
		const char *p = json_string_value(v), *slash = p ? strchr(p, '/') : NULL;
		cleanup_free char *star = NULL;

		if (!p || has(set, p))
			continue;
		if (!slash)
			return 0;
		star = xasprintf("*%s", slash);
		if (!has(set, star))
			return 0;
	}
	return 1;
}

static int urls_cover(json_t *set, json_t *want)
{
	size_t i, j;
	json_t *v, *s;

	json_array_foreach(want, i, v) {
		const char *p = json_string_value(v);
		int ok = 0;

		json_array_foreach(set, j, s) {
			const char *o = json_string_value(s);
			size_t n = o ? strlen(o) : 0;

			if (o && (!strcmp(o, p) || (n && o[n - 1] == '*' && !strncmp(o, p, n - 1))))
				ok = 1;
		}
		if (!ok)
			return 0;
	}
	return 1;
}

static int rule_covers(json_t *owner, json_t *sub)
{
	json_t *onames = field(owner, "resourceNames"), *snames = field(sub, "resourceNames");
	int names_ok = !json_array_size(onames) || (json_array_size(snames) && has_all(onames, snames));

	return (has(field(owner, "verbs"), "*") || has_all(field(owner, "verbs"), field(sub, "verbs"))) &&
	       (has(field(owner, "apiGroups"), "*") || has_all(field(owner, "apiGroups"), field(sub, "apiGroups"))) &&
	       resources_cover(field(owner, "resources"), field(sub, "resources")) &&
	       urls_cover(field(owner, "nonResourceURLs"), field(sub, "nonResourceURLs")) && names_ok;
}

/* CompactRules: simple resource rules (one group, one resource, no names)
 * that differ only by verb become one rule. */
static json_t *compact(json_t *rules)
{
	json_t *out = json_array();
	size_t i, j;
	json_t *r, *o;

	json_array_foreach(rules, i, r) {
		int merged = 0;

		if (json_array_size(field(r, "apiGroups")) == 1 && json_array_size(field(r, "resources")) == 1 &&
		    !json_array_size(field(r, "resourceNames")) && !json_array_size(field(r, "nonResourceURLs"))) {
			json_array_foreach(out, j, o) {
				if (json_equal(field(o, "apiGroups"), field(r, "apiGroups")) &&
				    json_equal(field(o, "resources"), field(r, "resources")) &&
				    !json_array_size(field(o, "resourceNames")) &&
				    !json_array_size(field(o, "nonResourceURLs"))) {
					json_t *vs = field(o, "verbs");
					size_t k;
					json_t *v;

					json_array_foreach(field(r, "verbs"), k, v)
						if (!has(vs, json_string_value(v)))
							json_array_append(vs, v);
					merged = 1;
					break;
				}
			}
		}
		if (!merged)
			json_array_append_new(out, json_deep_copy(r));
	}
	return out;
}

int sk_rbac_covers(json_t *owner, json_t *want, json_t **missing)
{
	cleanup_json json_t *subs = json_array(), *miss = json_array();
	size_t i, j;
	json_t *r, *o;

	json_array_foreach(want, i, r)
		breakdown(r, subs);
	json_array_foreach(subs, i, r) {
		int ok = 0;

		json_array_foreach(owner, j, o)
			if (rule_covers(o, r)) {
				ok = 1;
				break;
			}
		if (!ok)
			json_array_append(miss, r);
	}
	if (missing)
		*missing = json_array_size(miss) ? compact(miss) : NULL;
	return !json_array_size(miss);
}

char *sk_rbac_quote_list(json_t *arr)
{
	char *buf = NULL;
	size_t len = 0, i;
	FILE *f = open_memstream(&buf, &len);
	json_t *v;

	fputc('[', f);
	json_array_foreach(arr, i, v) {
		const char *s = json_string_value(v);

		fputs(i ? " \"" : "\"", f);
		for (; s && *s; s++) {
			if (*s == '"' || *s == '\\')
				fputc('\\', f);
			fputc(*s, f);
		}
		fputc('"', f);
	}
	fputc(']', f);
	fclose(f);
	return buf;
}

char *sk_rbac_rule_string(json_t *rule)
{
	static const struct {
		const char *field, *label;
	} parts[] = {{"apiGroups", "APIGroups"},
		     {"resources", "Resources"},
		     {"nonResourceURLs", "NonResourceURLs"},
		     {"resourceNames", "ResourceNames"},
		     {"verbs", "Verbs"}};
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int n = 0;

	fputc('{', f);
	for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
		json_t *v = field(rule, parts[i].field);
		cleanup_free char *q = NULL;

		if (!json_array_size(v))
			continue;
		q = sk_rbac_quote_list(v);
		fprintf(f, "%s%s:%s", n++ ? ", " : "", parts[i].label, q);
	}
	fputc('}', f);
	fclose(f);
	return buf;
}
