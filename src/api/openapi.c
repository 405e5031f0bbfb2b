/* OpenAPI v3 generation from the schema tables, after the documents the
 * kube-apiserver serves under /openapi/v3/<gv>. */
#include <ctype.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <string.h>

#include "api/openapi.h"
#include "api/schema.h"
#include "util/util.h"
#include "util/version.h"

#define MAX_DOCS 24
#define PATCH_REF "io.k8s.apimachinery.pkg.apis.meta.v1.Patch"
#define LISTMETA_REF "io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta"
#define STATUS_REF "io.k8s.apimachinery.pkg.apis.meta.v1.Status"
#define DELOPTS_REF "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions"

struct doc {
	char *path; /* "api/v1" */
	json_t *json;
	char *text;
	char hash[33];
};

static struct doc docs[MAX_DOCS];
static int ndocs;
static pthread_once_t once = PTHREAD_ONCE_INIT;

/* ---- schemas ---- */

static json_t *ref(const char *name)
{
	cleanup_free char *r = xasprintf("#/components/schemas/%s", name);

	return json_pack("{s:s}", "$ref", r);
}

static void add_component(json_t *comps, const sk_schema *s);

static json_t *inline_primitive(const sk_schema *s)
{
	switch (s->type) {
	case SK_SCHEMA_STRING:
		return json_pack("{s:s, s:s}", "type", "string", "default", "");
	case SK_SCHEMA_BYTE:
		return json_pack("{s:s, s:s}", "type", "string", "format", "byte");
	case SK_SCHEMA_INT32:
		return json_pack("{s:s, s:s}", "type", "integer", "format", "int32");
	case SK_SCHEMA_INT64:
		return json_pack("{s:s, s:s}", "type", "integer", "format", "int64");
	case SK_SCHEMA_BOOLEAN:
		return json_pack("{s:s}", "type", "boolean");
	case SK_SCHEMA_NUMBER:
		return json_pack("{s:s, s:s}", "type", "number", "format", "double");
	case SK_SCHEMA_DATE_TIME:
		return json_pack("{s:s, s:s}", "type", "string", "format", "date-time");
	case SK_SCHEMA_INT_OR_STRING:
		return json_pack("{s:s, s:s}", "type", "string", "format", "int-or-string");
	case SK_SCHEMA_QUANTITY:
		return json_pack("{s:s}", "type", "string");
	default:
		return json_pack("{s:s, s:b}", "type", "object", "x-kubernetes-preserve-unknown-fields", 1);
	}
}

static void add_list_extensions(json_t *out, const sk_schema *s)
{
	if (s->list_type)
		json_object_set_new(out, "x-kubernetes-list-type", json_string(s->list_type));
	if (s->list_map_keys && s->list_type && strcmp(s->list_type, "map") == 0) {
		json_t *keys = json_array();

		for (int i = 0; s->list_map_keys[i]; i++)
			json_array_append_new(keys, json_string(s->list_map_keys[i]));
		json_object_set_new(out, "x-kubernetes-list-map-keys", keys);
	}
	if (s->merge_key)
		json_object_set_new(out, "x-kubernetes-patch-merge-key", json_string(s->merge_key));
	if (s->patch_strategy)
		json_object_set_new(out, "x-kubernetes-patch-strategy", json_string(s->patch_strategy));
}

/* The schema of a property or element of type s, registering named types. */
static json_t *use_schema(json_t *comps, const sk_schema *s)
{
	json_t *out;

	if (s->name) {
		add_component(comps, s);
		if (s->type != SK_SCHEMA_OBJECT)
			return ref(s->name);
		return json_pack("{s:o, s:[o]}", "default", json_object(), "allOf", ref(s->name));
	}
	switch (s->type) {
	case SK_SCHEMA_ARRAY:
		out = json_pack("{s:s, s:o}", "type", "array", "items", use_schema(comps, s->items));
		add_list_extensions(out, s);
		return out;
	case SK_SCHEMA_MAP:
		return json_pack("{s:s, s:o}", "type", "object", "additionalProperties", use_schema(comps, s->items));
	default:
		return inline_primitive(s);
	}
}

/* Properties refer to every named type through allOf, as upstream's
 * documents do (kubectl explain then prints <IntOrString>, <Time>). */
static json_t *use_property(json_t *comps, const sk_schema *s)
{
	if (s->name && s->type != SK_SCHEMA_OBJECT) {
		add_component(comps, s);
		return json_pack("{s:[o]}", "allOf", ref(s->name));
	}
	return use_schema(comps, s);
}

static json_t *gvk_list(const char *group, const char *version, const char *kind)
{
	return json_pack("[{s:s, s:s, s:s}]", "group", group, "kind", kind, "version", version);
}

static json_t *object_component(json_t *comps, const sk_schema *s)
{
	json_t *out = json_pack("{s:s}", "type", "object");
	json_t *props = json_object();
	json_t *required = json_array();

	if (s->doc)
		json_object_set_new(out, "description", json_string(s->doc));
	for (const sk_schema_field *f = s->fields; f && f->name; f++) {
		json_t *p = use_property(comps, f->schema);

		if (f->doc)
			json_object_set_new(p, "description", json_string(f->doc));
		json_object_set_new(props, f->name, p);
		if (f->flags & SK_FIELD_REQUIRED)
			json_array_append_new(required, json_string(f->name));
	}
	json_object_set_new(out, "properties", props);
	if (json_array_size(required))
		json_object_set_new(out, "required", required);
	else
		json_decref(required);
	if (s->kind)
		json_object_set_new(out, "x-kubernetes-group-version-kind", gvk_list(s->group, s->version, s->kind));
	return out;
}

static void add_component(json_t *comps, const sk_schema *s)
{
	json_t *out;

	if (json_object_get(comps, s->name))
		return;
	/* Reserve the name first so that shared sub-schemas are visited once. */
	json_object_set_new(comps, s->name, json_object());
	switch (s->type) {
	case SK_SCHEMA_OBJECT:
		out = object_component(comps, s);
		break;
	case SK_SCHEMA_QUANTITY:
		out = json_pack("{s:[{s:s},{s:s}]}", "oneOf", "type", "string", "type", "number");
		break;
	case SK_SCHEMA_INT_OR_STRING:
		out = json_pack("{s:s, s:[{s:s},{s:s}]}", "format", "int-or-string", "oneOf", "type", "integer", "type",
				"string");
		break;
	default:
		out = inline_primitive(s);
		json_object_del(out, "default");
		break;
	}
	if (s->doc)
		json_object_set_new(out, "description", json_string(s->doc));
	json_object_set_new(comps, s->name, out);
}

static char *list_name(const sk_schema *s) { return xasprintf("%sList", s->name); }

static void add_list_component(json_t *comps, const sk_schema *s)
{
	cleanup_free char *name = list_name(s);
	cleanup_free char *kind = xasprintf("%sList", s->kind);
	cleanup_free char *doc = xasprintf("%sList is a list of %s objects.", s->kind, s->kind);
	json_t *items;

	add_component(comps, s);
	add_component(comps, sk_schema_by_name(LISTMETA_REF));
	items = json_pack("{s:s, s:{s:o, s:[o]}}", "type", "array", "items", "default", json_object(), "allOf",
			  ref(s->name));
	json_object_set_new(comps, name,
			    json_pack("{s:s, s:s, s:[s], s:{s:{s:s}, s:o, s:{s:s}, s:{s:o, s:[o]}}, s:o}",
				      "description", doc, "type", "object", "required", "items", "properties",
				      "apiVersion", "type", "string", "items", items, "kind", "type", "string",
				      "metadata", "default", json_object(), "allOf", ref(LISTMETA_REF),
				      "x-kubernetes-group-version-kind", gvk_list(s->group, s->version, kind)));
}

/* ---- operations ---- */

static json_t *param(const char *name, const char *in, const char *type, const char *desc)
{
	json_t *p = json_pack("{s:s, s:s, s:s, s:{s:s, s:b}}", "name", name, "in", in, "description", desc, "schema",
			      "type", type, "uniqueItems", 1);

	if (strcmp(in, "path") == 0)
		json_object_set_new(p, "required", json_true());
	return p;
}

static json_t *write_params(bool patch)
{
	json_t *ps = json_array();

	json_array_append_new(ps, param("dryRun", "query", "string",
					"When present, indicates that modifications should not be persisted. Valid "
					"values are: - All: all dry run stages will be processed"));
	json_array_append_new(
		ps, param("fieldManager", "query", "string",
			  "fieldManager is a name associated with the actor or entity that is making these changes."));
	json_array_append_new(
		ps,
		param("fieldValidation", "query", "string",
		      "fieldValidation instructs the server on how to handle objects in the request (POST/PUT/PATCH) "
		      "containing unknown or duplicate fields. Valid values are: - Ignore - Warn (default) - Strict"));
	if (patch)
		json_array_append_new(ps, param("force", "query", "boolean",
						"Force is going to \"force\" Apply requests. It means user will "
						"re-acquire conflicting fields owned by other people."));
	return ps;
}

static json_t *list_params(void)
{
	static const char *const names[][2] = {
		{"allowWatchBookmarks", "boolean"},
		{"continue", "string"},
		{"fieldSelector", "string"},
		{"labelSelector", "string"},
		{"limit", "integer"},
		{"resourceVersion", "string"},
		{"resourceVersionMatch", "string"},
		{"sendInitialEvents", "boolean"},
		{"timeoutSeconds", "integer"},
		{"watch", "boolean"},
	};
	json_t *ps = json_array();

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		json_array_append_new(ps, param(names[i][0], "query", names[i][1], ""));
	return ps;
}

static json_t *delete_params(void)
{
	json_t *ps = json_array();

	json_array_append_new(ps, param("dryRun", "query", "string", ""));
	json_array_append_new(ps, param("gracePeriodSeconds", "query", "integer", ""));
	json_array_append_new(ps, param("orphanDependents", "query", "boolean", ""));
	json_array_append_new(ps, param("propagationPolicy", "query", "string", ""));
	return ps;
}

static json_t *content(const char *schema_name, bool yaml)
{
	json_t *c = json_object();

	json_object_set_new(c, "application/json", json_pack("{s:o}", "schema", ref(schema_name)));
	if (yaml)
		json_object_set_new(c, "application/yaml", json_pack("{s:o}", "schema", ref(schema_name)));
	return c;
}

struct opctx {
	const char *group, *version, *kind; /* GVK of the body */
	const char *schema;                 /* its component name */
	const char *id_prefix;              /* "CoreV1Namespaced" */
	const char *id_suffix;              /* "Pod", "PodStatus" */
	const char *tag;
};

static json_t *operation(const struct opctx *c, const char *verb, const char *action, const char *desc)
{
	cleanup_free char *id = xasprintf("%s%s%s", verb, c->id_prefix, c->id_suffix);
	json_t *op = json_pack("{s:s, s:s, s:[s], s:s, s:{s:s, s:s, s:s}}", "description", desc, "operationId", id,
			       "tags", c->tag, "x-kubernetes-action", action, "x-kubernetes-group-version-kind",
			       "group", c->group, "version", c->version, "kind", c->kind);
	json_t *ok = json_pack("{s:s, s:o}", "description", "OK", "content", content(c->schema, true));
	json_t *responses = json_pack("{s:o, s:{s:s}}", "200", ok, "401", "description", "Unauthorized");

	json_object_set_new(op, "responses", responses);
	return op;
}

static json_t *op_read(const struct opctx *c) { return operation(c, "read", "get", "read the specified object"); }

static json_t *op_write(const struct opctx *c, const char *verb, const char *action, bool created)
{
	json_t *op = operation(c, verb, action,
			       strcmp(action, "put") == 0 ? "replace the specified object" : "create an object");

	json_object_set_new(op, "parameters", write_params(false));
	json_object_set_new(op, "requestBody",
			    json_pack("{s:o, s:b}", "content", content(c->schema, true), "required", 1));
	if (created)
		json_object_set_new(
			json_object_get(op, "responses"), "201",
			json_pack("{s:s, s:o}", "description", "Created", "content", content(c->schema, true)));
	return op;
}

static json_t *op_patch(const struct opctx *c)
{
	json_t *op = operation(c, "patch", "patch", "partially update the specified object");
	json_t *body = json_object();

	/* No application/strategic-merge-patch+json: kubectl then builds the
	 * strategic merge patch from its compiled-in types. */
	json_object_set_new(body, "application/apply-patch+yaml", json_pack("{s:o}", "schema", ref(PATCH_REF)));
	json_object_set_new(body, "application/json-patch+json", json_pack("{s:o}", "schema", ref(PATCH_REF)));
	json_object_set_new(body, "application/merge-patch+json", json_pack("{s:o}", "schema", ref(PATCH_REF)));
	json_object_set_new(op, "parameters", write_params(true));
	json_object_set_new(op, "requestBody", json_pack("{s:o, s:b}", "content", body, "required", 1));
	return op;
}

static json_t *op_delete(const struct opctx *c, bool collection)
{
	struct opctx s = *c;
	json_t *op;

	s.schema = STATUS_REF;
	op = operation(&s, collection ? "deletecollection" : "delete", collection ? "deletecollection" : "delete",
		       collection ? "delete collection of objects" : "delete an object");
	json_object_set_new(op, "parameters", delete_params());
	json_object_set_new(op, "requestBody",
			    json_pack("{s:{s:{s:o}}}", "content", "application/json", "schema", ref(DELOPTS_REF)));
	return op;
}

static json_t *op_list(const struct opctx *c, const char *list_schema, const char *verb_prefix)
{
	struct opctx l = *c;
	json_t *op;

	l.schema = list_schema;
	op = operation(&l, verb_prefix, "list", "list or watch objects of kind");
	json_object_set_new(op, "parameters", list_params());
	return op;
}

static bool has_verb(const sk_resource *r, const char *verb)
{
	for (int i = 0; r->verbs[i]; i++)
		if (strcmp(r->verbs[i], verb) == 0)
			return true;
	return false;
}

static json_t *path_params(bool ns, bool named)
{
	json_t *ps = json_array();

	if (named)
		json_array_append_new(ps, param("name", "path", "string", "name of the object"));
	if (ns)
		json_array_append_new(ps, param("namespace", "path", "string",
						"object name and auth scope, such as for teams and projects"));
	json_array_append_new(ps, param("pretty", "query", "string", "If 'true', then the output is pretty printed."));
	return ps;
}

static char *camel_group(const char *group, const char *version)
{
	char buf[64];
	size_t n = 0;

	if (!*group)
		return xasprintf("CoreV%s", version + 1);
	for (const char *p = group; *p && *p != '.' && n < sizeof(buf) - 1; p++, n++)
		buf[n] = n == 0 ? (char)toupper((unsigned char)*p) : *p;
	buf[n] = '\0';
	return xasprintf("%sV%s", buf, version + 1);
}

static char *tag_of(const char *group, const char *version)
{
	char buf[64];
	size_t n = 0;

	if (!*group)
		return xasprintf("core_%s", version);
	for (const char *p = group; *p && *p != '.' && n < sizeof(buf) - 1; p++)
		buf[n++] = *p;
	buf[n] = '\0';
	return xasprintf("%s_%s", buf, version);
}

static void add_subresource(json_t *paths, json_t *comps, const sk_resource *r, const sk_subresource *sr,
			    const char *item_path, const struct opctx *base)
{
	cleanup_free char *p = xasprintf("%s/%s", item_path, sr->name);
	cleanup_free char *suffix = xasprintf("%s%c%s", r->kind, toupper((unsigned char)sr->name[0]), sr->name + 1);
	const sk_schema *s = sk_schema_for_kind(sr->group ? sr->group : r->group,
						sr->version ? sr->version : r->version, sr->kind);
	struct opctx c = *base;
	json_t *item = json_object();

	c.id_suffix = suffix;
	if (s) {
		add_component(comps, s);
		c.group = s->group;
		c.version = s->version;
		c.kind = s->kind;
		c.schema = s->name;
	} else {
		c.kind = sr->kind;
		c.schema = STATUS_REF;
	}
	for (int i = 0; sr->verbs[i]; i++) {
		const char *v = sr->verbs[i];

		if (strcmp(v, "get") == 0)
			json_object_set_new(item, "get", op_read(&c));
		else if (strcmp(v, "update") == 0)
			json_object_set_new(item, "put", op_write(&c, "replace", "put", true));
		else if (strcmp(v, "patch") == 0)
			json_object_set_new(item, "patch", op_patch(&c));
		else if (strcmp(v, "create") == 0)
			json_object_set_new(item, "post", op_write(&c, "create", "post", true));
	}
	json_object_set_new(item, "parameters", path_params(r->namespaced, true));
	json_object_set_new(paths, p, item);
}

static void add_resource(json_t *paths, json_t *comps, const sk_resource *r, const char *prefix)
{
	const sk_schema *s = sk_schema_for_kind(r->group, r->version, r->kind);
	cleanup_free char *list_path = r->namespaced ? xasprintf("%s/namespaces/{namespace}/%s", prefix, r->plural)
						     : xasprintf("%s/%s", prefix, r->plural);
	cleanup_free char *item_path = xasprintf("%s/{name}", list_path);
	cleanup_free char *lname = NULL;
	cleanup_free char *gv = camel_group(r->group, r->version);
	cleanup_free char *idp = xasprintf("%s%s", gv, r->namespaced ? "Namespaced" : "");
	cleanup_free char *tag = tag_of(r->group, r->version);
	struct opctx c = {r->group, r->version, r->kind, NULL, idp, r->kind, tag};
	json_t *coll = json_object(), *item = json_object();

	if (!s)
		return;
	c.schema = s->name;
	add_list_component(comps, s);
	lname = list_name(s);
	if (has_verb(r, "list"))
		json_object_set_new(coll, "get", op_list(&c, lname, "list"));
	if (has_verb(r, "create"))
		json_object_set_new(coll, "post", op_write(&c, "create", "post", true));
	if (has_verb(r, "deletecollection"))
		json_object_set_new(coll, "delete", op_delete(&c, true));
	json_object_set_new(coll, "parameters", path_params(r->namespaced, false));
	json_object_set_new(paths, list_path, coll);
	if (has_verb(r, "get"))
		json_object_set_new(item, "get", op_read(&c));
	if (has_verb(r, "update"))
		json_object_set_new(item, "put", op_write(&c, "replace", "put", true));
	if (has_verb(r, "patch"))
		json_object_set_new(item, "patch", op_patch(&c));
	if (has_verb(r, "delete"))
		json_object_set_new(item, "delete", op_delete(&c, false));
	json_object_set_new(item, "parameters", path_params(r->namespaced, true));
	if (json_object_size(item) > 1)
		json_object_set_new(paths, item_path, item);
	else
		json_decref(item);
	for (const sk_subresource *sr = r->subresources; sr->name; sr++)
		add_subresource(paths, comps, r, sr, item_path, &c);
	if (r->namespaced && has_verb(r, "list")) {
		cleanup_free char *all = xasprintf("%s/%s", prefix, r->plural);
		cleanup_free char *id = xasprintf("%s%sForAllNamespaces", r->kind, "");
		struct opctx a = c;

		a.id_prefix = gv;
		a.id_suffix = id;
		json_object_set_new(paths, all,
				    json_pack("{s:o, s:o}", "get", op_list(&a, lname, "list"), "parameters",
					      path_params(false, false)));
	}
}

static json_t *base_doc(const char *title)
{
	return json_pack("{s:s, s:{s:s, s:s}, s:{}, s:{s:{s:{s:s, s:o}}}}", "openapi", "3.0.0", "info", "title",
			 "Kubernetes", "version", title, "paths", "components", "securitySchemes", "BearerToken",
			 "type", "apiKey", "description", json_string("Bearer Token authentication"));
}

static json_t *build_gv(const char *group, const char *version)
{
	json_t *doc = base_doc(SK_KUBE_VERSION);
	json_t *paths = json_object_get(doc, "paths");
	json_t *comps = json_object();
	cleanup_free char *prefix = *group ? xasprintf("/apis/%s/%s", group, version) : xstrdup("/api/v1");

	json_object_set_new(json_object_get(doc, "components"), "schemas", comps);
	add_component(comps, sk_schema_by_name(STATUS_REF));
	add_component(comps, sk_schema_by_name(DELOPTS_REF));
	json_object_set_new(
		comps, PATCH_REF,
		json_pack("{s:s, s:s}", "type", "object", "description",
			  "Patch is provided to give a concrete name and type to the Kubernetes PATCH request body."));
	for (const sk_resource *r = sk_schema_resources; r->kind; r++)
		if (strcmp(r->group, group) == 0 && strcmp(r->version, version) == 0)
			add_resource(paths, comps, r, prefix);
	return doc;
}

static json_t *build_discovery(const char *p)
{
	json_t *doc = base_doc("unversioned");
	bool apis = strcmp(p, "apis") == 0;
	json_t *op = json_pack("{s:s, s:s, s:[s], s:{s:{s:s}}}", "description", "get available API versions",
			       "operationId", apis ? "getAPIVersions" : "getCoreAPIVersions", "tags",
			       apis ? "apis" : "core", "responses", "200", "description", "OK");
	cleanup_free char *path = xasprintf("/%s/", p);

	json_object_set_new(json_object_get(doc, "paths"), path, json_pack("{s:o}", "get", op));
	json_object_set_new(json_object_get(doc, "components"), "schemas", json_object());
	return doc;
}

/* 128-bit FNV-1a pair, hex: stable for a given document. */
static void hash_text(const char *text, char out[33])
{
	uint64_t a = 0xcbf29ce484222325ULL, b = 0x84222325cbf29ce4ULL;

	for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
		a = (a ^ *p) * 0x100000001b3ULL;
		b = (b ^ *p) * 0x100000001b3ULL + 1;
	}
	snprintf(out, 33, "%016" PRIX64 "%016" PRIX64, a, b);
}

static void add_doc(const char *path, json_t *json)
{
	struct doc *d = &docs[ndocs++];

	d->path = xstrdup(path);
	d->json = json;
	d->text = json_dumps(json, JSON_COMPACT | JSON_SORT_KEYS);
	if (!d->text)
		abort();
	hash_text(d->text, d->hash);
}

static void build_all(void)
{
	add_doc("api", build_discovery("api"));
	add_doc("apis", build_discovery("apis"));
	for (const sk_resource *r = sk_schema_resources; r->kind && ndocs < MAX_DOCS; r++) {
		cleanup_free char *p = *r->group ? xasprintf("apis/%s/%s", r->group, r->version)
						 : xasprintf("api/%s", r->version);
		bool seen = false;

		for (int i = 0; i < ndocs; i++)
			seen |= strcmp(docs[i].path, p) == 0;
		if (!seen)
			add_doc(p, build_gv(r->group, r->version));
	}
}

static struct doc *find_doc(const char *path)
{
	pthread_once(&once, build_all);
	for (int i = 0; path && i < ndocs; i++)
		if (strcmp(docs[i].path, path) == 0)
			return &docs[i];
	return NULL;
}

json_t *sk_openapi_index(void)
{
	json_t *paths = json_object();

	find_doc("");
	for (int i = 0; i < ndocs; i++) {
		cleanup_free char *url = xasprintf("/openapi/v3/%s?hash=%s", docs[i].path, docs[i].hash);

		json_object_set_new(paths, docs[i].path, json_pack("{s:s}", "serverRelativeURL", url));
	}
	return json_pack("{s:o}", "paths", paths);
}

json_t *sk_openapi_doc(const char *gv_path)
{
	struct doc *d = find_doc(gv_path);

	return d ? json_incref(d->json) : NULL;
}

const char *sk_openapi_doc_text(const char *gv_path, const char **hash)
{
	struct doc *d = find_doc(gv_path);

	if (!d)
		return NULL;
	if (hash)
		*hash = d->hash;
	return d->text;
}
