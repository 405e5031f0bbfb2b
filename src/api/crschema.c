/* Structural schemas of custom objects (a CRD version's openAPIV3Schema):
 * validation with upstream's field paths and messages, pruning of unknown
 * fields and defaulting. Regular expressions (pattern) are POSIX extended
 * ones (regcomp), not ECMA-262: see docs/USER-GUIDE.md. */
#include <math.h>
#include <regex.h>
#include <string.h>

#include "api/api-int.h"
#include "api/crschema.h"
#include "api/validate-int.h"
#include "util/util.h"

static json_t *jget(json_t *o, const char *k) { return json_object_get(o, k); }

static const char *jstr(json_t *o, const char *k) { return json_string_value(json_object_get(o, k)); }

static int flag(json_t *s, const char *k) { return json_is_true(jget(s, k)); }

static char *child(const char *base, const char *name)
{
	return *base ? xasprintf("%s.%s", base, name) : xstrdup(name);
}

/* The JSON type name Go's validator reports for v. */
static const char *type_name(json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT:
		return "object";
	case JSON_ARRAY:
		return "array";
	case JSON_STRING:
		return "string";
	case JSON_INTEGER:
		return "integer";
	case JSON_REAL:
		return "number";
	case JSON_TRUE:
	case JSON_FALSE:
		return "boolean";
	default:
		return "null";
	}
}

static int is_integral(json_t *v)
{
	double d;

	if (json_is_integer(v))
		return 1;
	if (!json_is_real(v))
		return 0;
	d = json_real_value(v);
	return isfinite(d) && d == floor(d) && fabs(d) < 9.2e18;
}

static int type_ok(const char *type, json_t *v)
{
	if (!strcmp(type, "object"))
		return json_is_object(v);
	if (!strcmp(type, "array"))
		return json_is_array(v);
	if (!strcmp(type, "string"))
		return json_is_string(v);
	if (!strcmp(type, "integer"))
		return is_integral(v);
	if (!strcmp(type, "number"))
		return json_is_number(v);
	if (!strcmp(type, "boolean"))
		return json_is_boolean(v);
	return 1;
}

static double num(json_t *v) { return json_number_value(v); }

/* A number as Go's %v prints it in these messages. */
static char *num_text(json_t *v)
{
	if (json_is_integer(v))
		return xasprintf("%lld", (long long)json_integer_value(v));
	return xasprintf("%g", json_real_value(v));
}

static void bad_value(struct sk__verr *e, const char *path, json_t *v, const char *detail)
{
	sk__vinvalid(e, path, v, detail);
}

/* UTF-8 characters in s (minLength/maxLength count runes). */
static size_t runes(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		if (((unsigned char)*s & 0xc0) != 0x80)
			n++;
	return n;
}

static void validate_node(struct sk__verr *e, json_t *s, json_t *v, const char *path, int root);
static void validate_composition(struct sk__verr *e, json_t *s, json_t *v, const char *path, int root);

static void validate_string(struct sk__verr *e, json_t *s, json_t *v, const char *path)
{
	const char *str = json_string_value(v), *pat = jstr(s, "pattern");
	json_t *minl = jget(s, "minLength"), *maxl = jget(s, "maxLength");
	size_t n = runes(str);

	if (json_is_integer(maxl) && (json_int_t)n > json_integer_value(maxl))
		sk__vtoo_long(e, path, json_integer_value(maxl));
	if (json_is_integer(minl) && (json_int_t)n < json_integer_value(minl)) {
		cleanup_free char *d = xasprintf("%s in body should be at least %lld chars long", path,
						 (long long)json_integer_value(minl));

		bad_value(e, path, v, d);
	}
	if (!sk__openapi_format_ok(jstr(s, "format"), str)) {
		cleanup_free char *d = xasprintf("%s in body must be of type %s: \"%s\"", path, jstr(s, "format"), str);

		bad_value(e, path, v, d);
	}
	if (pat) {
		regex_t re;

		if (regcomp(&re, pat, REG_EXTENDED | REG_NOSUB) == 0) {
			if (regexec(&re, str, 0, NULL, 0) != 0) {
				cleanup_free char *d = xasprintf("%s in body should match '%s'", path, pat);

				bad_value(e, path, v, d);
			}
			regfree(&re);
		}
	}
}

static void validate_number(struct sk__verr *e, json_t *s, json_t *v, const char *path)
{
	json_t *min = jget(s, "minimum"), *max = jget(s, "maximum"), *mult = jget(s, "multipleOf");
	int xmin = flag(s, "exclusiveMinimum"), xmax = flag(s, "exclusiveMaximum");
	double d = num(v);

	if (json_is_number(min) && (xmin ? d <= num(min) : d < num(min))) {
		cleanup_free char *t = num_text(min);
		cleanup_free char *det = xasprintf("%s in body should be greater than %s%s", path,
						   xmin ? "" : "or equal to ", t);

		bad_value(e, path, v, det);
	}
	if (json_is_number(max) && (xmax ? d >= num(max) : d > num(max))) {
		cleanup_free char *t = num_text(max);
		cleanup_free char *det = xasprintf("%s in body should be less than %s%s", path,
						   xmax ? "" : "or equal to ", t);

		bad_value(e, path, v, det);
	}
	if (json_is_number(mult) && num(mult) > 0) {
		double q = d / num(mult);

		if (q != floor(q)) {
			cleanup_free char *t = num_text(mult);
			cleanup_free char *det = xasprintf("%s in body should be a multiple of %s", path, t);

			bad_value(e, path, v, det);
		}
	}
}

static void validate_object(struct sk__verr *e, json_t *s, json_t *v, const char *path, int root)
{
	json_t *props = jget(s, "properties"), *ap = jget(s, "additionalProperties"), *req = jget(s, "required");
	json_t *minp = jget(s, "minProperties"), *maxp = jget(s, "maxProperties");
	const char *k;
	json_t *x;
	size_t i;

	json_array_foreach(req, i, x) {
		const char *name = json_string_value(x);

		if (name && !jget(v, name)) {
			cleanup_free char *p = child(path, name);

			sk__vrequired(e, p, "");
		}
	}
	if (json_is_integer(maxp) && (json_int_t)json_object_size(v) > json_integer_value(maxp)) {
		cleanup_free char *d = xasprintf("%s in body should have at most %lld properties", path,
						 (long long)json_integer_value(maxp));

		sk__vforbidden(e, path, d);
	}
	if (json_is_integer(minp) && (json_int_t)json_object_size(v) < json_integer_value(minp)) {
		cleanup_free char *d = xasprintf("%s in body should have at least %lld properties", path,
						 (long long)json_integer_value(minp));

		sk__vinvalid_int(e, path, (int64_t)json_object_size(v), d);
	}
	json_object_foreach(v, k, x) {
		json_t *ps = jget(props, k);
		cleanup_free char *p = child(path, k);

		if (root && (!strcmp(k, "apiVersion") || !strcmp(k, "kind") || !strcmp(k, "metadata")))
			continue;
		if (json_is_object(ps))
			validate_node(e, ps, x, p, 0);
		else if (json_is_object(ap))
			validate_node(e, ap, x, p, 0);
	}
}

static void validate_array(struct sk__verr *e, json_t *s, json_t *v, const char *path)
{
	json_t *items = jget(s, "items"), *mini = jget(s, "minItems"), *maxi = jget(s, "maxItems"), *x;
	size_t i;

	if (json_is_integer(maxi) && (json_int_t)json_array_size(v) > json_integer_value(maxi))
		sk__vtoo_many(e, path, (int64_t)json_array_size(v), json_integer_value(maxi));
	if (json_is_integer(mini) && (json_int_t)json_array_size(v) < json_integer_value(mini)) {
		cleanup_free char *d = xasprintf("%s in body should have at least %lld items", path,
						 (long long)json_integer_value(mini));

		sk__vinvalid_int(e, path, (int64_t)json_array_size(v), d);
	}
	if (!json_is_object(items))
		return;
	json_array_foreach(v, i, x) {
		cleanup_free char *p = xasprintf("%s[%zu]", path, i);

		validate_node(e, items, x, p, 0);
	}
}

static void validate_node(struct sk__verr *e, json_t *s, json_t *v, const char *path, int root)
{
	const char *type = jstr(s, "type");
	json_t *en = jget(s, "enum");

	if (json_is_null(v)) {
		if (flag(s, "nullable"))
			return;
		if (type && *type) {
			cleanup_free char *d = xasprintf("%s in body must be of type %s: \"null\"", path, type);

			sk__vinvalid_str(e, path, "null", d);
		}
		return;
	}
	if (flag(s, "x-kubernetes-int-or-string")) {
		if (!is_integral(v) && !json_is_string(v)) {
			cleanup_free char *d = xasprintf("%s in body must be of type integer,string: \"%s\"", path,
							 type_name(v));

			sk__vinvalid_str(e, path, type_name(v), d);
			return;
		}
	} else if (type && *type && !type_ok(type, v)) {
		cleanup_free char *d = xasprintf("%s in body must be of type %s: \"%s\"", path, type, type_name(v));

		sk__vinvalid_str(e, path, type_name(v), d);
		return;
	}
	if (json_is_array(en) && json_array_size(en)) {
		size_t i;
		json_t *x;
		int found = 0;

		json_array_foreach(en, i, x)
			found |= json_equal(x, v);
		if (!found)
			sk__vnot_supported_json(e, path, v, en);
	}
	if (json_is_string(v))
		validate_string(e, s, v, path);
	else if (json_is_number(v))
		validate_number(e, s, v, path);
	else if (json_is_object(v))
		validate_object(e, s, v, path, root);
	else if (json_is_array(v))
		validate_array(e, s, v, path);
	validate_composition(e, s, v, path, root);
}

/* The causes of validating v against sub (a new array, maybe empty). */
static json_t *sub_causes(json_t *sub, json_t *v, const char *path, int root)
{
	struct sk__verr se = {json_array()};

	if (json_is_object(sub))
		validate_node(&se, sub, v, path, root);
	return se.causes;
}

/* Of the failing branches, the causes of the one that matched the value
 * best are kept (kube-openapi's MatchCount): a branch whose type fits beats
 * one whose type does not. */
static int branch_score(json_t *sub, json_t *v)
{
	const char *type = jstr(sub, "type");

	return !type || !*type || type_ok(type, v);
}

static void composite(struct sk__verr *e, const char *path, const char *fmt, const char *extra)
{
	cleanup_free char *d = xasprintf(fmt, path, extra);

	sk__vinvalid_str(e, path, "", d);
}

/* allOf, anyOf, oneOf and not, as kube-openapi's schema validator (its
 * messages quote the path): the causes of failing branches are kept. */
static void validate_composition(struct sk__verr *e, json_t *s, json_t *v, const char *path, int root)
{
	json_t *all = jget(s, "allOf"), *any = jget(s, "anyOf"), *one = jget(s, "oneOf"), *not = jget(s, "not"), *sub;
	size_t i, n;

	if ((n = json_array_size(all))) {
		size_t ok = 0;

		json_array_foreach(all, i, sub) {
			cleanup_json json_t *c = sub_causes(sub, v, path, root);

			ok += json_array_size(c) == 0;
			json_array_extend(e->causes, c);
		}
		if (ok != n)
			composite(e, path, "\"%s\" must validate all the schemas (allOf)%s",
				  ok ? "" : ". None validated");
	}
	if ((n = json_array_size(any))) {
		cleanup_json json_t *first = NULL;
		int ok = 0;

		int best = -1;

		json_array_foreach(any, i, sub) {
			json_t *c = sub_causes(sub, v, path, root);

			if (!json_array_size(c)) {
				ok = 1;
				json_decref(c);
				break;
			}
			if (branch_score(sub, v) > best) {
				best = branch_score(sub, v);
				json_decref(first);
				first = c;
			} else {
				json_decref(c);
			}
		}
		if (!ok) {
			composite(e, path, "\"%s\" must validate at least one schema (anyOf)%s", "");
			json_array_extend(e->causes, first);
		}
	}
	if ((n = json_array_size(one))) {
		cleanup_json json_t *first = NULL;
		size_t ok = 0;

		int best = -1;

		json_array_foreach(one, i, sub) {
			json_t *c = sub_causes(sub, v, path, root);

			if (!json_array_size(c)) {
				ok++;
			} else if (branch_score(sub, v) > best) {
				best = branch_score(sub, v);
				json_decref(first);
				first = json_incref(c);
			}
			json_decref(c);
		}
		if (ok != 1) {
			char extra[64];

			if (ok)
				snprintf(extra, sizeof(extra), ". Found %zu valid alternatives", ok);
			else
				snprintf(extra, sizeof(extra), ". Found none valid");
			composite(e, path, "\"%s\" must validate one and only one schema (oneOf)%s", extra);
			if (!ok)
				json_array_extend(e->causes, first);
		}
	}
	if (json_is_object(not )) {
		cleanup_json json_t *c = sub_causes(not, v, path, root);

		if (!json_array_size(c))
			composite(e, path, "\"%s\" must not validate the schema (not)%s", "");
	}
}

json_t *sk_crschema_validate(json_t *schema, json_t *obj)
{
	struct sk__verr e = {json_array()};

	if (json_is_object(schema))
		validate_node(&e, schema, obj, "", 1);
	if (!json_array_size(e.causes)) {
		json_decref(e.causes);
		return NULL;
	}
	return e.causes;
}

/* ---- pruning ---- */

static void prune_node(json_t *s, json_t *v, const char *path, int root, json_t *pruned);

static void prune_object(json_t *s, json_t *v, const char *path, int root, json_t *pruned)
{
	json_t *props = jget(s, "properties"), *ap = jget(s, "additionalProperties"), *x;
	int keep = flag(s, "x-kubernetes-preserve-unknown-fields") || json_is_true(ap);
	int embedded = root || flag(s, "x-kubernetes-embedded-resource");
	const char *k;
	void *tmp;

	json_object_foreach_safe(v, tmp, k, x) {
		json_t *ps = jget(props, k);
		cleanup_free char *p = child(path, k);

		if (embedded && (!strcmp(k, "apiVersion") || !strcmp(k, "kind") || !strcmp(k, "metadata"))) {
			if (!root && !strcmp(k, "metadata") && json_is_object(x)) {
				/* an embedded object's metadata keeps ObjectMeta's fields only */
				static const char *const meta[] = {"name",        "namespace",    "labels",
								   "annotations", "generateName", "finalizers",
								   NULL};
				const char *mk;
				json_t *mv;
				void *t2;

				json_object_foreach_safe(x, t2, mk, mv) {
					int ok = 0;

					for (int i = 0; meta[i]; i++)
						ok |= !strcmp(meta[i], mk);
					if (!ok) {
						cleanup_free char *mp = child(p, mk);

						json_array_append_new(pruned, json_string(mp));
						json_object_del(x, mk);
					}
				}
			}
			continue;
		}
		if (json_is_object(ps))
			prune_node(ps, x, p, 0, pruned);
		else if (json_is_object(ap))
			prune_node(ap, x, p, 0, pruned);
		else if (!keep) {
			json_array_append_new(pruned, json_string(p));
			json_object_del(v, k);
		}
	}
}

static void prune_node(json_t *s, json_t *v, const char *path, int root, json_t *pruned)
{
	if (!json_is_object(s))
		return;
	if (json_is_object(v)) {
		if (!json_is_object(jget(s, "properties")) && !json_is_object(jget(s, "additionalProperties")) &&
		    flag(s, "x-kubernetes-preserve-unknown-fields") && !flag(s, "x-kubernetes-embedded-resource"))
			return;
		prune_object(s, v, path, root, pruned);
	} else if (json_is_array(v) && json_is_object(jget(s, "items"))) {
		size_t i;
		json_t *x;

		json_array_foreach(v, i, x) {
			cleanup_free char *p = xasprintf("%s[%zu]", path, i);

			prune_node(jget(s, "items"), x, p, 0, pruned);
		}
	}
}

json_t *sk_crschema_prune(json_t *schema, json_t *obj)
{
	json_t *pruned = json_array();

	if (json_is_object(schema))
		prune_node(schema, obj, "", 1, pruned);
	return pruned;
}

/* ---- defaulting ---- */

static void default_node(json_t *s, json_t *v)
{
	json_t *props = jget(s, "properties"), *ap = jget(s, "additionalProperties"), *x;
	const char *k;

	if (json_is_object(v)) {
		json_object_foreach(props, k, x) {
			json_t *d = jget(x, "default");

			if (d && !jget(v, k))
				json_object_set_new(v, k, json_deep_copy(d));
		}
		json_object_foreach(v, k, x) {
			json_t *ps = jget(props, k);

			if (json_is_object(ps))
				default_node(ps, x);
			else if (json_is_object(ap))
				default_node(ap, x);
		}
	} else if (json_is_array(v) && json_is_object(jget(s, "items"))) {
		size_t i;

		json_array_foreach(v, i, x)
			default_node(jget(s, "items"), x);
	}
}

void sk_crschema_default(json_t *schema, json_t *obj)
{
	if (json_is_object(schema))
		default_node(schema, obj);
}
