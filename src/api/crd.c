/* CustomResourceDefinitions (apiextensions.k8s.io/v1): defaulting,
 * validation, status (NamesAccepted, Established, acceptedNames,
 * storedVersions), the sync that turns the stored CRDs into kinds of the
 * registry, and the cleanup of a deleted CRD's objects (finalizer
 * customresourcecleanup.apiextensions.k8s.io). */
#include <ctype.h>
#include <string.h>
#include <time.h>

#include "api/api-int.h"
#include "api/crd.h"
#include "api/cel/cel.h"
#include "api/crschema.h"
#include "api/validate-int.h"
#include "api/validate.h"
#include "client/client.h"
#include "util/util.h"

#define CRD_PREFIX "/registry/apiextensions.k8s.io/customresourcedefinitions/"

static pthread_mutex_t sync_mu = PTHREAD_MUTEX_INITIALIZER;

int sk__is_crd(const sk_api_resource *r) { return r && r->ops == &sk__crd_ops; }

static json_t *jget(json_t *o, const char *k) { return json_object_get(o, k); }

static const char *jstr(json_t *o, const char *k) { return json_string_value(json_object_get(o, k)); }

static json_t *obj_child(json_t *o, const char *k)
{
	json_t *c = json_object_get(o, k);

	if (!json_is_object(c)) {
		c = json_object();
		json_object_set_new(o, k, c);
	}
	return c;
}

/* ---- defaulting (SetDefaults_CustomResourceDefinitionSpec) ---- */

void sk__crd_default(json_t *crd)
{
	json_t *spec = jget(crd, "spec"), *names, *conv;
	const char *kind;

	if (!json_is_object(spec))
		return;
	names = jget(spec, "names");
	kind = jstr(names, "kind");
	if (json_is_object(names) && kind && *kind) {
		if (!jstr(names, "singular") || !*jstr(names, "singular")) {
			char *low = xstrdup(kind);

			for (char *c = low; *c; c++)
				*c = (char)tolower((unsigned char)*c);
			json_object_set_new(names, "singular", json_string(low));
			free(low);
		}
		if (!jstr(names, "listKind") || !*jstr(names, "listKind")) {
			cleanup_free char *lk = xasprintf("%sList", kind);

			json_object_set_new(names, "listKind", json_string(lk));
		}
	}
	conv = jget(spec, "conversion");
	if (!json_is_object(conv)) {
		conv = json_object();
		json_object_set_new(spec, "conversion", conv);
	}
	if (!jstr(conv, "strategy"))
		json_object_set_new(conv, "strategy", json_string("None"));
}

/* ---- validation ---- */

static void dns1035(struct sk__verr *e, const char *field, const char *v, const char *prefix)
{
	cleanup_free char *low = xstrdup(v);
	const char *msg;

	for (char *c = low; *c; c++)
		*c = (char)tolower((unsigned char)*c);
	msg = sk_validate_dns1035_label(prefix ? low : v);
	if (msg) {
		cleanup_free char *d = xasprintf("%s%s", prefix ? prefix : "", msg);

		sk__vinvalid_str(e, field, v, d);
	}
}

static void validate_names(struct sk__verr *e, json_t *names, const char *base)
{
	static const char mixed[] = "may have mixed case, but should otherwise match: ";
	const char *plural = jstr(names, "plural"), *singular = jstr(names, "singular");
	const char *kind = jstr(names, "kind"), *lk = jstr(names, "listKind");
	char f[256];
	size_t i;
	json_t *v;

	snprintf(f, sizeof(f), "%s.plural", base);
	if (plural && *plural)
		dns1035(e, f, plural, NULL);
	snprintf(f, sizeof(f), "%s.singular", base);
	if (singular && *singular)
		dns1035(e, f, singular, NULL);
	snprintf(f, sizeof(f), "%s.kind", base);
	if (kind && *kind)
		dns1035(e, f, kind, mixed);
	snprintf(f, sizeof(f), "%s.listKind", base);
	if (lk && *lk)
		dns1035(e, f, lk, mixed);
	json_array_foreach(jget(names, "shortNames"), i, v) {
		snprintf(f, sizeof(f), "%s.shortNames[%zu]", base, i);
		dns1035(e, f, json_string_value(v) ? json_string_value(v) : "", NULL);
	}
	if (kind && *kind && lk && !strcmp(kind, lk)) {
		snprintf(f, sizeof(f), "%s.listKind", base);
		sk__vinvalid_str(e, f, lk, "kind and listKind may not be the same");
	}
	json_array_foreach(jget(names, "categories"), i, v) {
		snprintf(f, sizeof(f), "%s.categories[%zu]", base, i);
		dns1035(e, f, json_string_value(v) ? json_string_value(v) : "", NULL);
	}
}

static int has_ext(json_t *s, const char *k) { return json_is_true(jget(s, k)); }

/* Structural schema checks (apiextensions' structural validation): a type
 * on every level unless x-kubernetes-int-or-string or
 * x-kubernetes-preserve-unknown-fields say otherwise; object at the root. */
/* Deeper schemas are refused: the object checks recurse along the schema. */
#define MAX_SCHEMA_DEPTH 128

static void validate_schema(struct sk__verr *e, json_t *s, const char *path, int root, const char *where, int depth,
			    const char *uncorrelatable, double card)
{
	const char *type = jstr(s, "type");
	json_t *props = jget(s, "properties"), *items = jget(s, "items"), *ap = jget(s, "additionalProperties");
	const char *k;
	json_t *v;

	if (!json_is_object(s))
		return;
	if (depth > MAX_SCHEMA_DEPTH) {
		sk__vforbidden(e, path, "the schema is nested more than 128 levels deep");
		return;
	}
	if (!type || !*type) {
		if (!has_ext(s, "x-kubernetes-int-or-string") && !has_ext(s, "x-kubernetes-preserve-unknown-fields")) {
			cleanup_free char *f = xasprintf("%s.type", path);

			sk__vrequired(e, f, root ? "must not be empty at the root" : where);
		}
	} else {
		static const char *const types[] = {"object", "array", "string", "integer", "number", "boolean", NULL};
		int ok = 0;

		for (int i = 0; types[i]; i++)
			ok |= !strcmp(type, types[i]);
		if (!ok) {
			cleanup_free char *f = xasprintf("%s.type", path);

			sk__vnot_supported(e, f, jget(s, "type"), types);
		} else if (root && strcmp(type, "object")) {
			cleanup_free char *f = xasprintf("%s.type", path);

			sk__vinvalid_str(e, f, type, "must be object at the root");
		}
		if (!strcmp(type, "array") && !json_is_object(items)) {
			cleanup_free char *f = xasprintf("%s.items", path);

			sk__vrequired(e, f, "must be specified");
		}
	}
	if (json_is_object(props) && json_is_object(ap)) {
		cleanup_free char *f = xasprintf("%s.additionalProperties", path);

		sk__vforbidden(e, f, "additionalProperties and properties are mutual exclusive");
	}
	if (json_is_true(jget(s, "uniqueItems"))) {
		cleanup_free char *f = xasprintf("%s.uniqueItems", path);

		sk__vforbidden(e, f,
			       "uniqueItems cannot be set to true since the runtime complexity becomes quadratic");
	}
	sk__crschema_check_rules(e, s, path, root, uncorrelatable, card);
	if (jget(s, "default") || jget(s, "enum"))
		sk__crschema_check_values(e, s, path);
	json_object_foreach(props, k, v) {
		cleanup_free char *f = xasprintf("%s.properties[%s]", path, k);

		validate_schema(e, v, f, 0, "must not be empty for specified object fields", depth + 1, uncorrelatable,
				card);
	}
	if (json_is_object(items)) {
		cleanup_free char *f = xasprintf("%s.items", path);
		const char *lt = jstr(s, "x-kubernetes-list-type");

		/* only list-type=map items correlate with their old values */
		const char *uc = uncorrelatable ? uncorrelatable : (lt && !strcmp(lt, "map")) ? NULL : path;

		validate_schema(e, items, f, 0, "must not be empty for specified array items", depth + 1, uc,
				card * sk_cel_max_items(s));
	}
	if (json_is_object(ap)) {
		cleanup_free char *f = xasprintf("%s.additionalProperties", path);
		const char *mt = jstr(s, "x-kubernetes-map-type");

		const char *uc = uncorrelatable ? uncorrelatable : (mt && !strcmp(mt, "atomic")) ? path : NULL;
		json_t *maxp = jget(s, "maxProperties");

		validate_schema(e, ap, f, 0, "must not be empty for specified object fields", depth + 1, uc,
				card * (json_is_integer(maxp) ? (double)json_integer_value(maxp) : 1));
	}
}

static int condition_true(json_t *crd, const char *type)
{
	size_t i;
	json_t *c;

	json_array_foreach(jget(jget(crd, "status"), "conditions"), i, c) {
		if (!strcmp(jstr(c, "type") ? jstr(c, "type") : "", type))
			return !strcmp(jstr(c, "status") ? jstr(c, "status") : "", "True");
	}
	return 0;
}

static void immutable(struct sk__verr *e, const char *field, json_t *a, json_t *b)
{
	if (b && !json_equal(a, b))
		sk__vinvalid(e, field, a ? a : json_null(), "field is immutable");
}

/* The schema jsonPath (".a.b", no array notation) names under s, or NULL
 * with *why set (cel.ValidFieldPath with array notation off; a map's
 * additionalProperties take any key). */
static json_t *selectable_schema(json_t *s, const char *path, const char **why, char *buf, size_t bufsz)
{
	const char *p = path;

	while (*p) {
		const char *q;
		char seg[256];

		if (*p == '[') {
			*why = "array notation is not allowed";
			return NULL;
		}
		if (*p != '.') {
			size_t n = strcspn(p, ".[]");

			snprintf(buf, bufsz, "expected [ or . but got: %.*s", (int)(n ? n : 1), p);
			*why = buf;
			return NULL;
		}
		q = ++p;
		while (*q && *q != '.' && *q != '[')
			q++;
		if (q == p) {
			*why = "unexpected end of JSON path";
			return NULL;
		}
		if ((size_t)(q - p) >= sizeof(seg)) {
			*why = "does not refer to a valid field";
			return NULL;
		}
		memcpy(seg, p, (size_t)(q - p));
		seg[q - p] = 0;
		if (json_is_object(jget(s, "properties")))
			s = jget(jget(s, "properties"), seg);
		else if (json_is_object(jget(s, "additionalProperties")))
			s = jget(s, "additionalProperties");
		else
			s = NULL;
		if (!json_is_object(s)) {
			*why = "does not refer to a valid field";
			return NULL;
		}
		p = q;
	}
	return s;
}

/* spec.versions[i].selectableFields as upstream's validateSelectableFields. */
static void validate_selectable(struct sk__verr *e, json_t *fields, json_t *schema, size_t vi)
{
	cleanup_json json_t *seen = json_object();
	char f[160];
	size_t i;
	json_t *sf;

	json_array_foreach(fields, i, sf) {
		const char *jp = jstr(sf, "jsonPath"), *why = NULL, *type;
		char buf[300];
		json_t *found;

		snprintf(f, sizeof(f), "spec.versions[%zu].selectableFields[%zu].jsonPath", vi, i);
		if (!jp || !*jp) {
			sk__vrequired(e, f, "");
			continue;
		}
		found = selectable_schema(schema, jp, &why, buf, sizeof(buf));
		if (!found) {
			cleanup_free char *msg = xasprintf("is an invalid path: %s", why);
			sk__vinvalid_str(e, f, jp, msg);
			continue;
		}
		if (!strncmp(jp, ".metadata", 9) && (!jp[9] || jp[9] == '.'))
			sk__vinvalid_str(e, f, jp, "must not point to fields in metadata");
		type = jstr(found, "type");
		if (!type || (strcmp(type, "string") && strcmp(type, "boolean") && strcmp(type, "integer")))
			sk__vinvalid_str(e, f, jp,
					 "must point to a field of type string, boolean or integer. Enum string fields "
					 "and strings with formats are allowed.");
		if (jget(seen, jp + 1))
			sk__vduplicate(e, f, jget(sf, "jsonPath"));
		else
			json_object_set_new(seen, jp + 1, json_true());
	}
	if (json_object_size(seen) > 8) {
		snprintf(f, sizeof(f), "spec.versions[%zu].selectableFields", vi);
		sk__vtoo_many(e, f, (int64_t)json_object_size(seen), 8);
	}
}

json_t *sk__crd_validate(json_t *crd, json_t *old)
{
	struct sk__verr e = {json_array()};
	json_t *spec = jget(crd, "spec"), *names = jget(spec, "names"), *versions = jget(spec, "versions");
	const char *group = jstr(spec, "group"), *scope = jstr(spec, "scope"), *name;
	const char *plural = jstr(names, "plural");
	const char *strategy = jstr(jget(spec, "conversion"), "strategy");
	size_t i, storage = 0;
	json_t *v;
	int unique = 1;

	sk__validate_object_meta(&e, crd, false);
	name = jstr(jget(crd, "metadata"), "name");
	if (name && *name) {
		cleanup_free char *want = xasprintf("%s.%s", plural ? plural : "", group ? group : "");

		if (strcmp(name, want))
			sk__vinvalid_str(&e, "metadata.name", name, "must be spec.names.plural+\".\"+spec.group");
	}
	if (old)
		sk__validate_object_meta_update(&e, crd, old);
	if (!group || !*group)
		sk__vrequired(&e, "spec.group", "");
	else if (sk_validate_dns1123_subdomain(group))
		sk__vinvalid_str(&e, "spec.group", group, sk_validate_dns1123_subdomain(group));
	else if (!strchr(group, '.'))
		sk__vinvalid_str(&e, "spec.group", group, "should be a domain with at least one dot");
	if (!scope || !*scope) {
		sk__vrequired(&e, "spec.scope", "");
	} else if (strcmp(scope, "Cluster") && strcmp(scope, "Namespaced")) {
		static const char *const scopes[] = {"Cluster", "Namespaced", NULL};

		sk__vnot_supported(&e, "spec.scope", jget(spec, "scope"), scopes);
	}
	if (!json_array_size(versions))
		sk__vrequired(&e, "spec.versions", "must have at least one version");
	json_array_foreach(versions, i, v) {
		const char *vn = jstr(v, "name");
		json_t *schema = jget(jget(v, "schema"), "openAPIV3Schema");
		char f[128];

		if (json_is_true(jget(v, "storage")))
			storage++;
		for (size_t j = 0; j < i; j++)
			if (vn && jstr(json_array_get(versions, j), "name") &&
			    !strcmp(vn, jstr(json_array_get(versions, j), "name")))
				unique = 0;
		snprintf(f, sizeof(f), "spec.versions[%zu].name", i);
		if (!vn || !*vn)
			sk__vrequired(&e, f, "");
		else
			dns1035(&e, f, vn, NULL);
		snprintf(f, sizeof(f), "spec.versions[%zu].schema.openAPIV3Schema", i);
		if (!json_is_object(schema))
			sk__vrequired(&e, f, "schemas are required");
		else
			validate_schema(&e, schema, f, 1, NULL, 0, NULL, 1);
		if (json_array_size(jget(v, "selectableFields")))
			validate_selectable(&e, jget(v, "selectableFields"), schema, i);
		if (json_is_object(jget(jget(v, "subresources"), "scale"))) {
			json_t *sc = jget(jget(v, "subresources"), "scale");

			snprintf(f, sizeof(f), "spec.versions[%zu].subresources.scale.specReplicasPath", i);
			if (!jstr(sc, "specReplicasPath") || strncmp(jstr(sc, "specReplicasPath"), ".spec.", 6))
				sk__vinvalid_str(&e, f, jstr(sc, "specReplicasPath"),
						 "should be a json path under .spec");
			snprintf(f, sizeof(f), "spec.versions[%zu].subresources.scale.statusReplicasPath", i);
			if (!jstr(sc, "statusReplicasPath") || strncmp(jstr(sc, "statusReplicasPath"), ".status.", 8))
				sk__vinvalid_str(&e, f, jstr(sc, "statusReplicasPath"),
						 "should be a json path under .status");
		}
	}
	if (!unique)
		sk__vinvalid(&e, "spec.versions", versions, "must contain unique version names");
	if (json_array_size(versions) && storage != 1)
		sk__vinvalid(&e, "spec.versions", versions, "must have exactly one version marked as storage version");
	if (strategy && strcmp(strategy, "None")) {
		static const char *const strategies[] = {"None", NULL};

		/* skiff converts nothing: only one schema-compatible strategy */
		sk__vnot_supported(&e, "spec.conversion.strategy", jget(jget(spec, "conversion"), "strategy"),
				   strategies);
	}
	if (!plural || !*plural)
		sk__vrequired(&e, "spec.names.plural", "");
	if (!jstr(names, "singular") || !*jstr(names, "singular"))
		sk__vrequired(&e, "spec.names.singular", "");
	if (!jstr(names, "kind") || !*jstr(names, "kind"))
		sk__vrequired(&e, "spec.names.kind", "");
	if (!jstr(names, "listKind") || !*jstr(names, "listKind"))
		sk__vrequired(&e, "spec.names.listKind", "");
	validate_names(&e, names, "spec.names");
	validate_names(&e, jget(jget(crd, "status"), "acceptedNames"), "status.acceptedNames");
	if (old) {
		json_t *ospec = jget(old, "spec");

		if (condition_true(old, "Established")) {
			immutable(&e, "spec.scope", jget(spec, "scope"), jget(ospec, "scope"));
			immutable(&e, "spec.names.kind", jget(names, "kind"), jget(jget(ospec, "names"), "kind"));
		}
		immutable(&e, "spec.group", jget(spec, "group"), jget(ospec, "group"));
		immutable(&e, "spec.names.plural", jget(names, "plural"), jget(jget(ospec, "names"), "plural"));
		json_array_foreach(jget(jget(crd, "status"), "storedVersions"), i, v) {
			int found = 0;
			size_t j;
			json_t *w;

			json_array_foreach(versions, j, w)
				found |= json_equal(jget(w, "name"), v);
			if (!found) {
				char f[64];

				snprintf(f, sizeof(f), "status.storedVersions[%zu]", i);
				sk__vinvalid(&e, f, v, "must appear in spec.versions");
			}
		}
		/* upstream's ValidateCustomResourceDefinitionStoredVersions: a
		 * status write may drop old versions, never the storage one */
		if (!json_array_size(jget(jget(crd, "status"), "storedVersions")))
			sk__vinvalid_repr(&e, "status.storedVersions", "[]string{}",
					  "must have at least one stored version");
		json_array_foreach(versions, i, v) {
			int found = 0;
			size_t j;
			json_t *w;

			if (!json_is_true(jget(v, "storage")) ||
			    !json_array_size(jget(jget(crd, "status"), "storedVersions")))
				continue;
			json_array_foreach(jget(jget(crd, "status"), "storedVersions"), j, w)
				found |= json_equal(jget(v, "name"), w);
			if (!found) {
				cleanup_free char *repr = xasprintf("apiextensions.CustomResourceDefinitionVersion{"
								    "Name:\"%s\", Served:%s, Storage:true}",
								    jstr(v, "name") ? jstr(v, "name") : "",
								    json_is_true(jget(v, "served")) ? "true" : "false");
				cleanup_free char *why = xasprintf("must have the storage version %s",
								   jstr(v, "name") ? jstr(v, "name") : "");

				sk__vinvalid_repr(&e, "status.storedVersions", repr, why);
			}
		}
	}
	if (!json_array_size(e.causes)) {
		json_decref(e.causes);
		return NULL;
	}
	return e.causes;
}

/* ---- status ---- */

static void set_condition(json_t *crd, const char *type, const char *status, const char *reason, const char *msg)
{
	json_t *st = obj_child(crd, "status"), *conds = jget(st, "conditions"), *c;
	char ts[32];
	size_t i;

	if (!json_is_array(conds)) {
		conds = json_array();
		json_object_set_new(st, "conditions", conds);
	}
	json_array_foreach(conds, i, c) {
		if (!strcmp(jstr(c, "type") ? jstr(c, "type") : "", type)) {
			if (!strcmp(jstr(c, "status") ? jstr(c, "status") : "", status)) {
				json_object_set_new(c, "reason", json_string(reason));
				json_object_set_new(c, "message", json_string(msg));
				return;
			}
			json_array_remove(conds, i);
			break;
		}
	}
	sk_time_format(sk_now_ns() / 1000000000, ts, sizeof(ts));
	json_array_append_new(conds, json_pack("{s:s, s:s, s:s, s:s, s:s}", "type", type, "status", status,
					       "lastTransitionTime", ts, "reason", reason, "message", msg));
}

/* The CRD (other than self) that already uses one of crd's names in its
 * group: "plural" or "kind" in *what. */
static int names_conflict(sk_api *api, json_t *crd, const char **what)
{
	json_t *spec = jget(crd, "spec"), *names = jget(spec, "names");
	const char *group = jstr(spec, "group"), *self = jstr(jget(crd, "metadata"), "name");
	sk_store_list l = {0};
	sk_error_t err = {0};
	int conflict = 0;

	if (!group)
		return 0;
	/* a built-in kind of the same group */
	const sk_kind_set *builtin = sk__kinds_builtin();

	for (size_t i = 0; i < builtin->n; i++) {
		const sk_api_resource *r = builtin->v[i];

		if (strcmp(r->group, group))
			continue;
		if (jstr(names, "plural") && !strcmp(r->plural, jstr(names, "plural"))) {
			*what = "plural";
			return 1;
		}
		if (jstr(names, "kind") && !strcmp(r->kind, jstr(names, "kind"))) {
			*what = "kind";
			return 1;
		}
	}
	if (sk_store_range(api->store, CRD_PREFIX, NULL, 0, 0, &l, &err) < 0)
		return 0;
	for (size_t i = 0; i < l.n && !conflict; i++) {
		cleanup_json json_t *o = sk__obj_decode(l.items[i].value, l.items[i].len, l.items[i].mod_rev);
		json_t *an = jget(jget(o, "status"), "acceptedNames");

		if (!o || !strcmp(jstr(jget(o, "metadata"), "name") ? jstr(jget(o, "metadata"), "name") : "",
				  self ? self : ""))
			continue;
		if (strcmp(jstr(jget(o, "spec"), "group") ? jstr(jget(o, "spec"), "group") : "", group))
			continue;
		if (jstr(an, "plural") && jstr(names, "plural") && !strcmp(jstr(an, "plural"), jstr(names, "plural"))) {
			*what = "plural";
			conflict = 1;
		} else if (jstr(an, "kind") && jstr(names, "kind") && !strcmp(jstr(an, "kind"), jstr(names, "kind"))) {
			*what = "kind";
			conflict = 1;
		}
	}
	sk_store_list_release(&l);
	return conflict;
}

void sk__crd_status(sk_api *api, json_t *crd, json_t *old)
{
	json_t *st, *stored, *v;
	const char *what = NULL;
	size_t i;

	st = obj_child(crd, "status");
	if (old && json_is_object(jget(old, "status")))
		json_object_set_new(crd, "status", st = json_deep_copy(jget(old, "status")));
	if (names_conflict(api, crd, &what)) {
		char msg[64];

		snprintf(msg, sizeof(msg), "\"%s\" is already in use", what);
		set_condition(crd, "NamesAccepted", "False", "NameConflict", msg);
		if (!condition_true(crd, "Established"))
			set_condition(crd, "Established", "False", "NotAccepted", "not all names are accepted");
		if (!json_is_object(jget(st, "acceptedNames")))
			json_object_set_new(st, "acceptedNames", json_pack("{s:s, s:s}", "plural", "", "kind", ""));
	} else {
		json_object_set(st, "acceptedNames", jget(jget(crd, "spec"), "names"));
		set_condition(crd, "NamesAccepted", "True", "NoConflicts", "no conflicts found");
		set_condition(crd, "Established", "True", "InitialNamesAccepted",
			      "the initial names have been accepted");
	}
	stored = jget(st, "storedVersions");
	if (!json_is_array(stored)) {
		stored = json_array();
		json_object_set_new(st, "storedVersions", stored);
	}
	json_array_foreach(jget(jget(crd, "spec"), "versions"), i, v) {
		json_t *have;
		size_t j;
		int found = 0;

		if (!json_is_true(jget(v, "storage")))
			continue;
		json_array_foreach(stored, j, have)
			found |= json_equal(have, jget(v, "name"));
		if (!found)
			json_array_append(stored, jget(v, "name"));
	}
}

void sk__crd_mark_deleting(json_t *crd)
{
	json_t *meta = obj_child(crd, "metadata"), *fin = jget(meta, "finalizers"), *v;
	size_t i;

	if (!json_is_array(fin)) {
		fin = json_array();
		json_object_set_new(meta, "finalizers", fin);
	}
	json_array_foreach(fin, i, v)
		if (!strcmp(json_string_value(v) ? json_string_value(v) : "", SK_CRD_FINALIZER))
			goto cond;
	json_array_append_new(fin, json_string(SK_CRD_FINALIZER));
cond:
	set_condition(crd, "Terminating", "True", "InstanceDeletionInProgress",
		      "CustomResource deletion is in progress");
}

/* ---- the registry's custom kinds ---- */

static char *join(json_t *arr)
{
	size_t i, off = 0, cap = 1;
	json_t *v;
	char *s;

	if (!json_array_size(arr))
		return NULL;
	json_array_foreach(arr, i, v)
		cap += strlen(json_string_value(v) ? json_string_value(v) : "") + 1;
	s = xmalloc(cap);
	s[0] = '\0';
	json_array_foreach(arr, i, v) {
		const char *t = json_string_value(v) ? json_string_value(v) : "";

		off += (size_t)snprintf(s + off, cap - off, "%s%s", i ? "," : "", t);
	}
	return s;
}

/* Kubernetes' version priority: GA before beta before alpha, higher
 * numbers first; other names after them, alphabetically. */
static int version_rank(const char *v, long *major, long *minor)
{
	char *end;

	*major = *minor = 0;
	if (v[0] != 'v' || !isdigit((unsigned char)v[1]))
		return 3;
	*major = strtol(v + 1, &end, 10);
	if (!*end)
		return 0;
	if (!strncmp(end, "beta", 4) && isdigit((unsigned char)end[4])) {
		*minor = strtol(end + 4, &end, 10);
		return *end ? 3 : 1;
	}
	if (!strncmp(end, "alpha", 5) && isdigit((unsigned char)end[5])) {
		*minor = strtol(end + 5, &end, 10);
		return *end ? 3 : 2;
	}
	return 3;
}

static int version_cmp(const char *a, const char *b)
{
	long am, an, bm, bn;
	int ra = version_rank(a, &am, &an), rb = version_rank(b, &bm, &bn);

	if (ra != rb)
		return ra - rb;
	if (ra == 3)
		return strcmp(a, b);
	if (am != bm)
		return am > bm ? -1 : 1;
	if (an != bn)
		return an > bn ? -1 : 1;
	return 0;
}

static int cmp_version_entries(const void *a, const void *b)
{
	json_t *const *x = a, *const *y = b;

	return version_cmp(jstr(*x, "name") ? jstr(*x, "name") : "", jstr(*y, "name") ? jstr(*y, "name") : "");
}

static void add_kinds(json_t *crd, const sk_api_resource ***out, size_t *n, size_t *cap)
{
	json_t *spec = jget(crd, "spec"), *an = jget(jget(crd, "status"), "acceptedNames");
	const char *group = jstr(spec, "group"), *crd_name = jstr(jget(crd, "metadata"), "name");
	json_t *versions = jget(spec, "versions"), *v;
	json_t **sorted;
	size_t nv = json_array_size(versions);
	cleanup_free char *shorts = join(jget(an, "shortNames")), *cats = join(jget(an, "categories"));
	cleanup_free char *store = NULL;
	int terminating = jstr(jget(crd, "metadata"), "deletionTimestamp") != NULL;

	if (!condition_true(crd, "NamesAccepted") || !group || !jstr(an, "plural") || !jstr(an, "kind") || !nv)
		return;
	store = xasprintf("%s/%s", group, jstr(an, "plural"));
	sorted = xmalloc(nv * sizeof(*sorted));
	for (size_t i = 0; i < nv; i++)
		sorted[i] = json_array_get(versions, i);
	qsort(sorted, nv, sizeof(*sorted), cmp_version_entries);
	for (size_t i = 0; i < nv; i++) {
		json_t *sub;
		sk_api_resource t = {0};
		const sk_api_resource *r;
		cleanup_json json_t *info = NULL;
		char lk[160];

		v = sorted[i];
		if (!json_is_true(jget(v, "served")) || !jstr(v, "name"))
			continue;
		sub = jget(v, "subresources");
		t.group = group;
		t.version = jstr(v, "name");
		t.kind = jstr(an, "kind");
		t.plural = jstr(an, "plural");
		t.singular = jstr(an, "singular") ? jstr(an, "singular") : "";
		t.namespaced = !strcmp(jstr(spec, "scope") ? jstr(spec, "scope") : "", "Namespaced");
		t.short_names = shorts;
		t.categories = cats;
		t.subresources = (json_is_object(jget(sub, "status")) ? SK_SUB_STATUS : 0) |
				 (json_is_object(jget(sub, "scale")) ? SK_SUB_SCALE : 0);
		t.has_spec = 1;
		t.store = store;
		snprintf(lk, sizeof(lk), "%s", jstr(an, "listKind") ? jstr(an, "listKind") : "");
		if (!lk[0])
			snprintf(lk, sizeof(lk), "%sList", t.kind);
		t.list_kind = lk;
		t.custom = 1;
		t.ops = &sk__custom_ops;
		r = sk__kind_intern(&t);
		info = json_pack("{s:s, s:O, s:b}", "crd", crd_name ? crd_name : "", "version", v, "terminating",
				 terminating);
		sk__kind_custom_set_spec(r, info);
		if (*n == *cap) {
			*cap = *cap ? *cap * 2 : 16;
			*out = xrealloc(*out, *cap * sizeof(**out));
		}
		(*out)[(*n)++] = r;
	}
	free(sorted);
}

static void start_cleanup(sk_api *api, const char *crd_name);

/* The registry's custom kinds, kept per CRD (under sync_mu) and updated
 * from a watch of the stored CRDs: a CRD write rebuilds that CRD's kinds
 * only, then the registry's set is swapped whole. */
typedef struct crd_entry {
	char *name;
	int64_t rev;
	const sk_api_resource **kinds;
	size_t n;
} crd_entry;

static crd_entry *entries; /* sorted by name */
static size_t nentries;
static sk_store_watch *crd_watch;
static sk_api *watch_api;

/* Events of the watch not yet applied: [[name, value or null, mod_rev]]. */
static pthread_mutex_t pend_mu = PTHREAD_MUTEX_INITIALIZER;
static json_t *pending;
static int pend_reload; /* an event could not be kept: read every CRD again */

static void crd_event(const sk_store_event *ev, void *ud)
{
	const char *name = ev->kv->key + strlen(CRD_PREFIX);
	json_t *e;

	(void)ud;
	e = json_pack("[s, s#, I]", name, ev->type == SK_STORE_DELETE ? "" : ev->kv->value,
		      ev->type == SK_STORE_DELETE ? (size_t)0 : ev->kv->len, (json_int_t)ev->kv->mod_rev);
	if (e && ev->type == SK_STORE_DELETE)
		json_array_set_new(e, 1, json_null());
	pthread_mutex_lock(&pend_mu);
	if (!e)
		pend_reload = 1;
	else if (!pending)
		pending = json_array();
	if (e)
		json_array_append_new(pending, e);
	pthread_mutex_unlock(&pend_mu);
}

static void entry_clear(crd_entry *e)
{
	free(e->name);
	free(e->kinds);
	memset(e, 0, sizeof(*e));
}

static void entries_free(void)
{
	for (size_t i = 0; i < nentries; i++)
		entry_clear(&entries[i]);
	free(entries);
	entries = NULL;
	nentries = 0;
}

/* The entry of name, or where it would go (*found 0). */
static size_t entry_find(const char *name, int *found)
{
	size_t lo = 0, hi = nentries;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = strcmp(entries[mid].name, name);

		if (!c) {
			*found = 1;
			return mid;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	*found = 0;
	return lo;
}

/* Applies one CRD's new state (text NULL: deleted). Returns 1 on a change. */
static int entry_apply(sk_api *api, const char *name, const char *text, size_t len, int64_t rev)
{
	int found;
	size_t at = entry_find(name, &found);
	cleanup_json json_t *o = NULL;
	crd_entry *e;
	size_t cap = 0;

	if (found && entries[at].rev >= rev)
		return 0;
	if (!text) {
		if (!found)
			return 0;
		entry_clear(&entries[at]);
		memmove(&entries[at], &entries[at + 1], (nentries - at - 1) * sizeof(*entries));
		nentries--;
		return 1;
	}
	o = sk__obj_decode(text, len, rev);
	if (!o)
		return 0;
	if (!found) {
		entries = xrealloc(entries, (nentries + 1) * sizeof(*entries));
		memmove(&entries[at + 1], &entries[at], (nentries - at) * sizeof(*entries));
		memset(&entries[at], 0, sizeof(*entries));
		entries[at].name = xstrdup(name);
		nentries++;
	}
	e = &entries[at];
	free(e->kinds);
	e->kinds = NULL;
	e->n = 0;
	e->rev = rev;
	add_kinds(o, &e->kinds, &e->n, &cap);
	if (jstr(jget(o, "metadata"), "deletionTimestamp"))
		start_cleanup(api, jstr(jget(o, "metadata"), "name"));
	return 1;
}

/* Under sync_mu: every stored CRD, and the watch from that list on. */
static void load_all(sk_api *api)
{
	sk_store_list l = {0};
	sk_error_t err = {0};

	if (sk_store_range(api->store, CRD_PREFIX, NULL, 0, 0, &l, &err) < 0) {
		sk_warn("crd", "cannot read the definitions: %s", err.msg);
		return;
	}
	crd_watch = sk_store_watch_start(api->store, CRD_PREFIX, l.rev, crd_event, NULL, &err);
	if (!crd_watch)
		sk_warn("crd", "cannot watch the definitions: %s", err.msg);
	watch_api = api;
	for (size_t i = 0; i < l.n; i++)
		entry_apply(api, l.items[i].key + strlen(CRD_PREFIX), l.items[i].value, l.items[i].len,
			    l.items[i].mod_rev);
	sk_store_list_release(&l);
}

void sk__crd_sync(sk_api *api)
{
	cleanup_json json_t *evs = NULL;
	const sk_api_resource **kinds = NULL;
	size_t n = 0;
	int changed = 0, reload;
	json_t *ev;
	size_t i;

	pthread_mutex_lock(&sync_mu);
	pthread_mutex_lock(&pend_mu);
	reload = pend_reload;
	pend_reload = 0;
	pthread_mutex_unlock(&pend_mu);
	if (watch_api != api || !crd_watch || reload) {
		if (crd_watch && watch_api)
			sk_store_unwatch(watch_api->store, crd_watch);
		crd_watch = NULL;
		entries_free();
		load_all(api);
		changed = 1;
	}
	pthread_mutex_lock(&pend_mu);
	evs = pending;
	pending = NULL;
	pthread_mutex_unlock(&pend_mu);
	json_array_foreach(evs, i, ev) {
		json_t *v = json_array_get(ev, 1);

		changed |= entry_apply(api, json_string_value(json_array_get(ev, 0)), json_string_value(v),
				       json_string_length(v), json_integer_value(json_array_get(ev, 2)));
	}
	if (changed) {
		for (size_t k = 0; k < nentries; k++)
			n += entries[k].n;
		kinds = xmalloc((n + 1) * sizeof(*kinds));
		n = 0;
		for (size_t k = 0; k < nentries; k++)
			for (size_t m = 0; m < entries[k].n; m++)
				kinds[n++] = entries[k].kinds[m];
		sk__kinds_set_custom(kinds, n);
		free(kinds);
	}
	pthread_mutex_unlock(&sync_mu);
}

/* Whether watch events wait to be applied: the sync thread applies
 * those no write of this server synced (a CRD another server wrote to a
 * shared etcd). */
static int sync_pending(void)
{
	int any;

	pthread_mutex_lock(&pend_mu);
	any = json_array_size(pending) > 0 || pend_reload;
	pthread_mutex_unlock(&pend_mu);
	return any;
}

/* ---- cleanup of a deleted CRD's objects ---- */

static void sleep_ms(int ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};

	nanosleep(&ts, NULL);
}

typedef struct cleanup_job {
	sk_api *api;
	char *name;
} cleanup_job;

/* Counts running cleanup threads: api to add one, NULL when one ends. */
static pthread_mutex_t threads_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t threads_cv = PTHREAD_COND_INITIALIZER;
static int nthreads;

void sk__crd_cleanup_done(sk_api *api)
{
	pthread_mutex_lock(&threads_mu);
	if (api)
		nthreads++;
	else if (--nthreads == 0)
		pthread_cond_broadcast(&threads_cv);
	pthread_mutex_unlock(&threads_mu);
}

static json_t *running; /* CRD names with a cleanup thread; under sync_mu */

static char *crd_path(const char *name)
{
	return xasprintf("/apis/apiextensions.k8s.io/v1/customresourcedefinitions/%s", name);
}

/* Deletes every object of the CRD, waits until none is left (objects with
 * finalizers go when theirs are removed), then removes the CRD's finalizer
 * so that the CRD goes too. */
static void *cleanup_main(void *arg)
{
	cleanup_job *job = arg;
	sk_client *c = sk_client_new_inproc(job->api);
	cleanup_free char *path = crd_path(job->name);

	while (!sk__api_stopping(job->api)) {
		sk_error_t err = {0};
		cleanup_json json_t *crd = sk_client_get(c, path, &err);
		json_t *spec = jget(crd, "spec"), *an = jget(jget(crd, "status"), "acceptedNames"), *fin, *v;
		cleanup_free char *prefix = NULL;
		const char *version = NULL;
		sk_store_list l = {0};
		size_t i;
		int left;

		if (!crd)
			break;
		json_array_foreach(jget(spec, "versions"), i, v)
			if (json_is_true(jget(v, "storage")))
				version = jstr(v, "name");
		prefix = xasprintf("/registry/%s/%s/", jstr(spec, "group") ? jstr(spec, "group") : "",
				   jstr(an, "plural") ? jstr(an, "plural") : "");
		if (sk_store_range(job->api->store, prefix, NULL, 0, 0, &l, &err) < 0) {
			sleep_ms(200);
			continue;
		}
		left = l.n > 0;
		for (i = 0; i < l.n; i++) {
			cleanup_json json_t *o = sk__obj_decode(l.items[i].value, l.items[i].len, l.items[i].mod_rev);
			const char *ns = jstr(jget(o, "metadata"), "namespace");
			cleanup_free char *op = NULL;
			sk_error_t e2 = {0};

			if (!o || jstr(jget(o, "metadata"), "deletionTimestamp"))
				continue;
			op = xasprintf("/apis/%s/%s%s%s/%s/%s", jstr(spec, "group"), version ? version : "",
				       ns ? "/namespaces/" : "", ns ? ns : "", jstr(an, "plural"),
				       jstr(jget(o, "metadata"), "name"));
			sk_client_delete(c, op, NULL, &e2);
		}
		sk_store_list_release(&l);
		if (left) {
			sleep_ms(200);
			continue;
		}
		fin = jget(jget(crd, "metadata"), "finalizers");
		json_array_foreach(fin, i, v) {
			if (!strcmp(json_string_value(v) ? json_string_value(v) : "", SK_CRD_FINALIZER)) {
				json_array_remove(fin, i);
				break;
			}
		}
		{
			cleanup_json json_t *out = sk_client_update(c, path, crd, &err);

			if (out || err.code == SK_ENOTFOUND)
				break;
		}
		sleep_ms(100);
	}
	sk_client_free(c);
	pthread_mutex_lock(&sync_mu);
	json_object_del(running, job->name);
	pthread_mutex_unlock(&sync_mu);
	sk__crd_sync(job->api);
	free(job->name);
	free(job);
	sk__crd_cleanup_done(NULL);
	return NULL;
}

/* Under sync_mu. */
static void start_cleanup(sk_api *api, const char *crd_name)
{
	cleanup_job *job;
	pthread_t t;

	if (!crd_name || sk__api_stopping(api))
		return;
	if (!running)
		running = json_object();
	if (json_object_get(running, crd_name))
		return;
	job = xzalloc(sizeof(*job));
	job->api = api;
	job->name = xstrdup(crd_name);
	json_object_set_new(running, crd_name, json_true());
	sk__crd_cleanup_done(api);
	if (pthread_create(&t, NULL, cleanup_main, job) != 0) {
		json_object_del(running, crd_name);
		free(job->name);
		free(job);
		sk__crd_cleanup_done(NULL);
		return;
	}
	pthread_detach(t);
}

/* Applies CRD changes the store's watch reported (a change written by
 * another API server on the same store) within 100 ms. The garbage
 * collector of custom objects is the controllers' one (src/ctrl/gc.c). */
static void *sync_main(void *arg)
{
	sk_api *api = arg;

	while (!sk__api_stopping(api)) {
		if (sync_pending())
			sk__crd_sync(api);
		sleep_ms(100);
	}
	sk__crd_cleanup_done(NULL);
	return NULL;
}

void sk__crd_start(sk_api *api)
{
	pthread_t t;

	sk__crd_cleanup_done(api);
	if (pthread_create(&t, NULL, sync_main, api) != 0) {
		sk__crd_cleanup_done(NULL);
		return;
	}
	pthread_detach(t);
}

void sk__crd_stop(sk_api *api)
{
	__atomic_store_n(&api->shutting_down, 1, __ATOMIC_RELEASE);
	pthread_mutex_lock(&threads_mu);
	while (nthreads > 0)
		pthread_cond_wait(&threads_cv, &threads_mu);
	pthread_mutex_unlock(&threads_mu);
	pthread_mutex_lock(&sync_mu);
	json_decref(running);
	running = NULL;
	if (crd_watch && watch_api == api)
		sk_store_unwatch(api->store, crd_watch);
	crd_watch = NULL;
	watch_api = NULL;
	entries_free();
	pthread_mutex_lock(&pend_mu);
	json_decref(pending);
	pending = NULL;
	pthread_mutex_unlock(&pend_mu);
	pthread_mutex_unlock(&sync_mu);
	sk__kinds_set_custom(NULL, 0);
}

/* ---- the kind's hooks ---- */

static void crd_defaults(const sk_api_resource *r, json_t *obj)
{
	(void)r;
	sk__crd_default(obj);
}

static json_t *crd_validate(const sk_api_resource *r, json_t *obj, json_t *old, int status_sub)
{
	(void)r;
	(void)status_sub;
	return sk__crd_validate(obj, old);
}

static int crd_admit_create(sk_api *api, const sk_api_resource *r, json_t *obj, sk_error_t *err)
{
	(void)r;
	(void)err;
	json_object_del(obj, "status");
	sk__crd_status(api, obj, NULL);
	return 0;
}

static void crd_prepare_update(sk_api *api, const sk_api_resource *r, json_t *obj, json_t *old)
{
	(void)r;
	sk__crd_status(api, obj, old);
}

static void crd_on_delete(const sk_api_resource *r, json_t *obj)
{
	(void)r;
	sk__crd_mark_deleting(obj);
}

static void crd_written(sk_api *api, const sk_api_resource *r)
{
	(void)r;
	sk__crd_sync(api);
}

const sk_kind_ops sk__crd_ops = {
	.flags = SK_KIND_GENERATION,
	.defaults = crd_defaults,
	.validate = crd_validate,
	.admit_create = crd_admit_create,
	.prepare_update = crd_prepare_update,
	.on_delete = crd_on_delete,
	.written = crd_written,
};
