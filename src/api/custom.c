/* Custom objects: the kinds served from CustomResourceDefinitions. Their
 * validation, pruning and defaulting come from the CRD version's
 * openAPIV3Schema (crschema.c). */
#include <string.h>

#include "api/api-int.h"
#include "api/apply.h"
#include "api/crd.h"
#include "api/crschema.h"
#include "api/table.h"
#include "api/validate-int.h"
#include "util/util.h"

/* The openAPIV3Schema of r's version (borrowed from *info, which the
 * caller releases). */
static json_t *schema_of(const sk_api_resource *r, json_t **info)
{
	*info = sk__kind_custom_spec(r);
	return json_object_get(json_object_get(json_object_get(*info, "version"), "schema"), "openAPIV3Schema");
}

int sk__custom_field_check(const sk_api_resource *r, sk_kube_field_selector *sel, sk_error_t *err)
{
	cleanup_json json_t *info = sk__kind_custom_spec(r);
	json_t *fields = json_object_get(json_object_get(info, "version"), "selectableFields"), *f;
	const char *extra[17] = {NULL};
	size_t i, n = 0;

	json_array_foreach(fields, i, f) {
		const char *jp = json_string_value(json_object_get(f, "jsonPath"));

		if (jp && *jp == '.' && n < 16)
			extra[n++] = jp + 1;
	}
	return sk_kube_field_selector_check_fields(sel, extra, err);
}

json_t *sk__custom_validate(const sk_api_resource *r, json_t *obj, json_t *old, int status_sub)
{
	struct sk__verr e = {json_array()};
	cleanup_json json_t *info = NULL, *causes = NULL;
	json_t *schema = schema_of(r, &info);

	(void)status_sub;
	sk__validate_object_meta(&e, obj, r->namespaced);
	if (old)
		sk__validate_object_meta_update(&e, obj, old);
	causes = sk_crschema_validate(schema, obj);
	if (causes)
		json_array_extend(e.causes, causes);
	sk_crschema_validate_rules(schema, obj, old, e.causes);
	if (!json_array_size(e.causes)) {
		json_decref(e.causes);
		return NULL;
	}
	return e.causes;
}

void sk__custom_default(const sk_api_resource *r, json_t *obj)
{
	cleanup_json json_t *info = NULL;

	sk_crschema_default(schema_of(r, &info), obj);
}

json_t *sk__custom_prune(const sk_api_resource *r, json_t *obj)
{
	cleanup_json json_t *info = NULL;

	return sk_crschema_prune(schema_of(r, &info), obj);
}

json_t *sk__custom_apply(const sk_api_resource *r, json_t *live, json_t *applied, const char *manager, int force,
			 sk_error_t *err)
{
	cleanup_json json_t *info = NULL;

	return sk_apply_schema(live, applied, schema_of(r, &info), manager, force, err);
}

void sk__custom_managed_fields_update(const sk_api_resource *r, json_t *old, json_t *new_obj, const char *manager,
				      const char *api_version, const char *subresource)
{
	cleanup_json json_t *info = NULL;

	sk_managed_fields_update_schema(old, new_obj, schema_of(r, &info), manager, api_version, subresource);
}

static int custom_admit_create(sk_api *api, const sk_api_resource *r, json_t *obj, sk_error_t *err)
{
	cleanup_json json_t *info = sk__kind_custom_spec(r);

	(void)api;
	if (json_is_true(json_object_get(info, "terminating")))
		return sk_error_set(err, SK_EMETHOD,
				    "create not allowed while custom resource definition is terminating");
	/* the status subresource owns the status: a create drops it */
	if (r->subresources & SK_SUB_STATUS)
		json_object_del(obj, "status");
	return 0;
}

/* ---- simple JSONPath (additionalPrinterColumns, scale paths) ---- */

/* Evaluates path (".a.b", ".a[0]", ".a[-1:]", ".a[?(@.k==\"v\")].b", optionally in
 * braces) on v; the first match or NULL (borrowed). */
json_t *sk__jsonpath_get(json_t *v, const char *path)
{
	const char *p = path;
	size_t n;

	if (*p == '{')
		p++;
	while (v && *p && *p != '}') {
		if (*p == '.') {
			char key[256];

			p++;
			n = strcspn(p, ".[}");
			if (!n || n >= sizeof(key))
				return NULL;
			memcpy(key, p, n);
			key[n] = '\0';
			v = json_object_get(v, key);
			p += n;
		} else if (*p == '[') {
			const char *end = strchr(p, ']');

			if (!end)
				return NULL;
			if (p[1] == '?') {
				/* [?(@.key=="value")] or [?(@.key=='value')] */
				char key[128], val[256];
				const char *k = p + 2, *eq, *q;
				size_t i;
				json_t *x, *found = NULL;

				if (*k == '(')
					k++;
				if (strncmp(k, "@.", 2))
					return NULL;
				k += 2;
				eq = strstr(k, "==");
				if (!eq || (size_t)(eq - k) >= sizeof(key))
					return NULL;
				memcpy(key, k, (size_t)(eq - k));
				key[eq - k] = '\0';
				q = eq + 2;
				if (*q != '"' && *q != '\'')
					return NULL;
				n = strcspn(q + 1, *q == '"' ? "\"" : "'");
				if (n >= sizeof(val))
					return NULL;
				memcpy(val, q + 1, n);
				val[n] = '\0';
				end = strchr(q + 1 + n, ']');
				if (!end)
					return NULL;
				json_array_foreach(v, i, x) {
					const char *s = json_string_value(json_object_get(x, key));

					if (s && !strcmp(s, val)) {
						found = x;
						break;
					}
				}
				v = found;
			} else {
				char *e;
				long idx = strtol(p + 1, &e, 10);

				/* a slice [a:] or [a:b]: its first element */
				if (*e == ':')
					e = (char *)end;
				if (e != end)
					return NULL;
				if (idx < 0)
					idx += (long)json_array_size(v);
				v = idx < 0 ? NULL : json_array_get(v, (size_t)idx);
			}
			p = end + 1;
		} else {
			return NULL;
		}
	}
	return v;
}

/* Sets the value at a dotted path (".spec.replicas"), making objects on the way. */
static int jsonpath_set(json_t *v, const char *path, json_t *value)
{
	const char *p = path;

	if (*p != '.')
		return -1;
	for (;;) {
		char key[256];
		size_t n;

		p++;
		n = strcspn(p, ".");
		if (!n || n >= sizeof(key) || !json_is_object(v))
			return -1;
		memcpy(key, p, n);
		key[n] = '\0';
		p += n;
		if (!*p)
			return json_object_set(v, key, value);
		if (!json_is_object(json_object_get(v, key)))
			json_object_set_new(v, key, json_object());
		v = json_object_get(v, key);
	}
}

/* ---- scale ---- */

json_t *sk__custom_scale(const sk_api_resource *r, json_t *obj)
{
	cleanup_json json_t *info = sk__kind_custom_spec(r);
	json_t *sc = json_object_get(json_object_get(json_object_get(info, "version"), "subresources"), "scale");
	const char *spec_path = json_string_value(json_object_get(sc, "specReplicasPath"));
	const char *status_path = json_string_value(json_object_get(sc, "statusReplicasPath"));
	const char *sel_path = json_string_value(json_object_get(sc, "labelSelectorPath"));
	json_t *meta = json_object_get(obj, "metadata");
	json_t *spec_r = spec_path ? sk__jsonpath_get(obj, spec_path) : NULL;
	json_t *status_r = status_path ? sk__jsonpath_get(obj, status_path) : NULL;
	json_t *sel = sel_path ? sk__jsonpath_get(obj, sel_path) : NULL;
	json_t *status = json_pack("{s:I}", "replicas", (json_int_t)json_integer_value(status_r));

	if (json_is_string(sel))
		json_object_set(status, "selector", sel);
	return json_pack("{s:s, s:s, s:{s:O*, s:O*, s:O*, s:O*, s:O*}, s:{s:I}, s:o}", "kind", "Scale", "apiVersion",
			 "autoscaling/v1", "metadata", "name", json_object_get(meta, "name"), "namespace",
			 json_object_get(meta, "namespace"), "uid", json_object_get(meta, "uid"), "resourceVersion",
			 json_object_get(meta, "resourceVersion"), "creationTimestamp",
			 json_object_get(meta, "creationTimestamp"), "spec", "replicas",
			 (json_int_t)json_integer_value(spec_r), "status", status);
}

int sk__custom_set_replicas(const sk_api_resource *r, json_t *obj, json_t *replicas)
{
	cleanup_json json_t *info = sk__kind_custom_spec(r);
	json_t *sc = json_object_get(json_object_get(json_object_get(info, "version"), "subresources"), "scale");
	const char *spec_path = json_string_value(json_object_get(sc, "specReplicasPath"));

	return spec_path ? jsonpath_set(obj, spec_path, replicas) : -1;
}

/* ---- tables (additionalPrinterColumns) ---- */

static json_t *columns_of(const sk_api_resource *r, json_t **info)
{
	json_t *cols;

	*info = sk__kind_custom_spec(r);
	cols = json_object_get(json_object_get(*info, "version"), "additionalPrinterColumns");
	return json_array_size(cols) ? cols : NULL;
}

json_t *sk__custom_table_columns(const sk_api_resource *r)
{
	cleanup_json json_t *info = NULL, *dflt = sk_table_columns(NULL);
	json_t *cols = columns_of(r, &info), *out = json_array(), *c;
	size_t i;

	json_array_append(out, json_array_get(dflt, 0)); /* Name */
	if (!cols) {
		json_array_append_new(out, json_pack("{s:s, s:s, s:s, s:O, s:i}", "name", "Age", "type", "date",
						     "format", "", "description",
						     json_object_get(json_array_get(dflt, 1), "description"),
						     "priority", 0));
		return out;
	}
	json_array_foreach(cols, i, c) {
		const char *d = json_string_value(json_object_get(c, "description"));

		json_array_append_new(out, json_pack("{s:O, s:O, s:s, s:s, s:I}", "name", json_object_get(c, "name"),
						     "type", json_object_get(c, "type"), "format",
						     json_string_value(json_object_get(c, "format"))
							     ? json_string_value(json_object_get(c, "format"))
							     : "",
						     "description", d ? d : "", "priority",
						     (json_int_t)json_integer_value(json_object_get(c, "priority"))));
	}
	return out;
}

static json_t *cell(const char *type, json_t *v, int64_t now)
{
	if (!v || json_is_null(v))
		return json_null();
	if (!strcmp(type, "date")) {
		int64_t t;
		char buf[32];

		if (!json_is_string(v) || sk_time_parse(json_string_value(v), &t) < 0)
			return json_null();
		sk_human_duration(now - t, buf, sizeof(buf));
		return json_string(buf);
	}
	if (!strcmp(type, "integer"))
		return json_is_integer(v) ? json_incref(v) : json_null();
	if (!strcmp(type, "number"))
		return json_is_number(v) ? json_incref(v) : json_null();
	if (!strcmp(type, "boolean"))
		return json_is_boolean(v) ? json_incref(v) : json_null();
	/* string: as kubectl's JSONPath prints the value */
	if (json_is_string(v))
		return json_incref(v);
	{
		char *s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
		json_t *out = json_string(s ? s : "");

		free(s);
		return out;
	}
}

json_t *sk__custom_table_cells(const sk_api_resource *r, json_t *obj, int64_t now)
{
	cleanup_json json_t *info = NULL;
	json_t *cols = columns_of(r, &info), *out = json_array(), *c;
	json_t *meta = json_object_get(obj, "metadata");
	size_t i;

	json_array_append_new(out, json_string(json_string_value(json_object_get(meta, "name"))
						       ? json_string_value(json_object_get(meta, "name"))
						       : ""));
	if (!cols) {
		json_array_append_new(out, cell("date", json_object_get(meta, "creationTimestamp"), now));
		return out;
	}
	json_array_foreach(cols, i, c) {
		const char *type = json_string_value(json_object_get(c, "type"));
		const char *path = json_string_value(json_object_get(c, "jsonPath"));

		json_array_append_new(out,
				      cell(type ? type : "string", path ? sk__jsonpath_get(obj, path) : NULL, now));
	}
	return out;
}

const sk_kind_ops sk__custom_ops = {
	.flags = SK_KIND_GENERATION | SK_KIND_NO_STRATEGIC,
	.defaults = sk__custom_default,
	.validate = sk__custom_validate,
	.admit_create = custom_admit_create,
	.prune = sk__custom_prune,
	.table_columns = sk__custom_table_columns,
	.table_cells = sk__custom_table_cells,
	.scale_get = sk__custom_scale,
	.scale_set = sk__custom_set_replicas,
};
