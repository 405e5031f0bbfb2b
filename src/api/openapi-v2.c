/* OpenAPI v2 (Swagger 2.0) definitions, as served under /openapi/v2.
 *
 * kubectl still reads this document in one case: a file whose kind is List
 * is validated item by item against the v2 definitions (its v3 query
 * parameter check has no List kind and falls back to v2). client-go asks
 * for it only as protobuf (gnostic's openapi_v2.Document), so that is the
 * main form; JSON is answered to other Accept headers.
 *
 * The definitions are the v3 components of every group version, rewritten
 * as upstream's v2 document spells them: "$ref" to "#/definitions/",
 * allOf-wrapped references unwrapped, quantities and int-or-string values
 * as strings, no defaults. The document has no paths: v3 describes the
 * operations, and no client reads them from v2. Custom kinds are added per
 * request (sk_openapi_v2_render) to the cached built-in definitions: their
 * CRD schema (no checks below preserve-unknown-fields or int-or-string),
 * apiVersion, kind, metadata and x-kubernetes-group-version-kind.
 *
 * The protobuf writer below only writes: four helpers over the wire format
 * (varint tags and lengths, length-delimited fields) for the handful of
 * gnostic messages the definitions need. Debian's protobuf-c would need
 * protoc-c run at build time over gnostic's OpenAPIv2.proto, which Debian
 * does not package; the decoder in protobuf.c makes the same choice. */
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "api/openapi.h"
#include "util/util.h"
#include "util/version.h"

/* gnostic openapi_v2 field numbers */
enum {
	DOC_SWAGGER = 1,
	DOC_INFO = 2,
	DOC_PATHS = 8,
	DOC_DEFINITIONS = 9,
	INFO_TITLE = 1,
	INFO_VERSION = 2,
	NAMED_NAME = 1,
	NAMED_VALUE = 2, /* NamedSchema, NamedAny */
	LIST_ITEM = 1,   /* Definitions, Properties, ItemsItem, TypeItem */
	ANY_YAML = 2,
	ADDL_SCHEMA = 1,
	ADDL_BOOL = 2,
	S_REF = 1,
	S_FORMAT = 2,
	S_DESCRIPTION = 4,
	S_REQUIRED = 19,
	S_ADDL = 21,
	S_TYPE = 22,
	S_ITEMS = 23,
	S_PROPERTIES = 25,
	S_VENDOR = 31,
};

#define V3_REF "#/components/schemas/"
#define V2_OBJECT_META "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"

static struct {
	pthread_once_t once;
	json_t *doc; /* the built-in document, immutable once built */
	char *json;
	size_t json_len;
	unsigned char *pb;
	size_t pb_len;
	unsigned char *defs_pb; /* the built-in Definitions message's content */
	size_t defs_pb_len;
} v2 = {.once = PTHREAD_ONCE_INIT};

/* ---- v3 schema -> v2 schema ---- */

static json_t *to_v2(json_t *s);

static json_t *v2_ref(const char *v3ref)
{
	const char *name = strncmp(v3ref, V3_REF, strlen(V3_REF)) == 0 ? v3ref + strlen(V3_REF) : v3ref;
	cleanup_free char *r = xasprintf("#/definitions/%s", name);

	return json_string(r);
}

static json_t *to_v2(json_t *s)
{
	json_t *out = json_object(), *v, *all = json_object_get(s, "allOf");
	const char *k;

	if (json_array_size(all) == 1 && json_object_get(json_array_get(all, 0), "$ref")) {
		/* the wrapper carries the description; the reference replaces it */
		if (json_object_get(s, "description"))
			json_object_set(out, "description", json_object_get(s, "description"));
		s = json_array_get(all, 0);
	}
	if (json_object_get(s, "oneOf") || json_object_get(s, "anyOf"))
		json_object_set_new(out, "type", json_string("string"));
	json_object_foreach(s, k, v) {
		if (!strcmp(k, "$ref") && json_is_string(v)) {
			json_object_set_new(out, "$ref", v2_ref(json_string_value(v)));
		} else if (!strcmp(k, "properties") && json_is_object(v)) {
			json_t *props = json_object(), *pv;
			const char *pk;

			json_object_foreach(v, pk, pv)
				json_object_set_new(props, pk, to_v2(pv));
			json_object_set_new(out, k, props);
		} else if ((!strcmp(k, "items") || !strcmp(k, "additionalProperties")) && json_is_object(v)) {
			json_object_set_new(out, k, to_v2(v));
		} else if (!strcmp(k, "type") || !strcmp(k, "format") || !strcmp(k, "description") ||
			   !strcmp(k, "required") || !strcmp(k, "additionalProperties") || !strncmp(k, "x-", 2)) {
			json_object_set(out, k, v);
		}
	}
	return out;
}

/* A CRD schema as upstream's v2 publishing leaves it (structural/v2.go):
 * below x-kubernetes-preserve-unknown-fields and x-kubernetes-int-or-string
 * nothing is checked (no type, no properties), nullable drops the type (v2
 * has no null), the rest as to_v2. */
static json_t *custom_to_v2(json_t *s)
{
	json_t *out = json_object(), *v;
	const char *k;

	if (json_is_true(json_object_get(s, "x-kubernetes-int-or-string"))) {
		json_object_set(out, "x-kubernetes-int-or-string", json_true());
		return out;
	}
	if (json_is_true(json_object_get(s, "x-kubernetes-preserve-unknown-fields")) &&
	    !json_is_true(json_object_get(s, "x-kubernetes-embedded-resource"))) {
		if (json_object_get(s, "description"))
			json_object_set(out, "description", json_object_get(s, "description"));
		json_object_set(out, "x-kubernetes-preserve-unknown-fields", json_true());
		return out;
	}
	json_object_foreach(s, k, v) {
		if (!strcmp(k, "properties") && json_is_object(v)) {
			json_t *props = json_object(), *pv;
			const char *pk;

			json_object_foreach(v, pk, pv)
				json_object_set_new(props, pk, custom_to_v2(pv));
			json_object_set_new(out, k, props);
		} else if ((!strcmp(k, "items") || !strcmp(k, "additionalProperties")) && json_is_object(v)) {
			json_object_set_new(out, k, custom_to_v2(v));
		} else if (!strcmp(k, "type") || !strcmp(k, "format") || !strcmp(k, "description") ||
			   !strcmp(k, "required") || !strcmp(k, "additionalProperties") || !strncmp(k, "x-", 2)) {
			json_object_set(out, k, v);
		}
	}
	if (json_is_true(json_object_get(s, "nullable")))
		json_object_del(out, "type");
	if (json_is_true(json_object_get(s, "x-kubernetes-embedded-resource"))) {
		json_t *props = json_object_get(out, "properties");

		if (!props)
			json_object_set_new(out, "properties", props = json_object());
		json_object_set_new(props, "apiVersion", json_pack("{s:s}", "type", "string"));
		json_object_set_new(props, "kind", json_pack("{s:s}", "type", "string"));
		json_object_set_new(props, "metadata", json_pack("{s:s}", "$ref", V2_OBJECT_META));
	}
	return out;
}

/* The v2 definitions of one custom kind (its schema and its List) into defs. */
static void add_custom(json_t *defs, const sk_openapi_custom_kind *ck)
{
	json_t *d = json_is_object(ck->schema) ? custom_to_v2(ck->schema) : json_pack("{s:s}", "type", "object");
	json_t *props = json_object_get(d, "properties");
	cleanup_free char *list = xasprintf("%sList", ck->name), *list_kind = xasprintf("%sList", ck->kind);
	cleanup_free char *ref = xasprintf("#/definitions/%s", ck->name);

	/* an open root (preserve-unknown-fields) stays open: no properties */
	if (!json_object_get(d, "x-kubernetes-preserve-unknown-fields")) {
		if (!props)
			json_object_set_new(d, "properties", props = json_object());
		if (!json_object_get(d, "type"))
			json_object_set_new(d, "type", json_string("object"));
		json_object_set_new(props, "apiVersion", json_pack("{s:s}", "type", "string"));
		json_object_set_new(props, "kind", json_pack("{s:s}", "type", "string"));
		json_object_set_new(props, "metadata", json_pack("{s:s}", "$ref", V2_OBJECT_META));
	}
	json_object_set_new(
		d, "x-kubernetes-group-version-kind",
		json_pack("[{s:s, s:s, s:s}]", "group", ck->group, "kind", ck->kind, "version", ck->version));
	json_object_set_new(defs, ck->name, d);
	json_object_set_new(
		defs, list,
		json_pack("{s:s, s:[s], s:{s:{s:s}, s:{s:s}, s:{s:s}, s:{s:s, s:{s:s}}}, s:[{s:s, s:s, s:s}]}", "type",
			  "object", "required", "items", "properties", "apiVersion", "type", "string", "kind", "type",
			  "string", "metadata", "$ref", "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta",
			  "items", "type", "array", "items", "$ref", ref, "x-kubernetes-group-version-kind", "group",
			  ck->group, "kind", list_kind, "version", ck->version));
}

static json_t *build_json(void)
{
	json_t *defs = json_object(), *idx = sk_openapi_index(), *e;
	const char *path;

	json_object_foreach(json_object_get(idx, "paths"), path, e) {
		cleanup_json json_t *doc = NULL;
		json_t *schemas, *sv;
		const char *name;

		/* "api" and "apis" are the discovery documents: no schemas */
		if (!strcmp(path, "api") || !strcmp(path, "apis") || !(doc = sk_openapi_doc(path)))
			continue;
		schemas = json_object_get(json_object_get(doc, "components"), "schemas");
		json_object_foreach(schemas, name, sv)
			if (!json_object_get(defs, name))
				json_object_set_new(defs, name, to_v2(sv));
	}
	json_decref(idx);
	return json_pack("{s:s, s:{s:s, s:s}, s:{}, s:o}", "swagger", "2.0", "info", "title", "Kubernetes", "version",
			 SK_KUBE_VERSION, "paths", "definitions", defs);
}

/* ---- protobuf (gnostic openapi_v2.Document) ---- */

typedef struct pbuf {
	unsigned char *p;
	size_t n, cap;
} pbuf;

static void put(pbuf *b, const void *d, size_t n)
{
	if (b->n + n > b->cap) {
		b->cap = (b->n + n) * 2 + 64;
		b->p = xrealloc(b->p, b->cap);
	}
	memcpy(b->p + b->n, d, n);
	b->n += n;
}

static void put_varint(pbuf *b, uint64_t v)
{
	unsigned char tmp[10];
	size_t n = 0;

	do {
		tmp[n++] = (unsigned char)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v);
	put(b, tmp, n);
}

static void put_bytes(pbuf *b, uint32_t num, const void *d, size_t n)
{
	put_varint(b, (uint64_t)num << 3 | 2);
	put_varint(b, n);
	put(b, d, n);
}

static void put_str(pbuf *b, uint32_t num, const char *s) { put_bytes(b, num, s, strlen(s)); }

/* Appends sub as field num of b and frees sub's buffer. */
static void put_msg(pbuf *b, uint32_t num, pbuf *sub)
{
	put_bytes(b, num, sub->p, sub->n);
	free(sub->p);
	memset(sub, 0, sizeof(*sub));
}

static void enc_schema(pbuf *b, json_t *s);

static void enc_named_schema(pbuf *b, uint32_t num, const char *name, json_t *s)
{
	pbuf ns = {0}, val = {0};

	put_str(&ns, NAMED_NAME, name);
	enc_schema(&val, s);
	put_msg(&ns, NAMED_VALUE, &val);
	put_msg(b, num, &ns);
}

static void enc_vendor(pbuf *b, const char *name, json_t *v)
{
	cleanup_free char *text = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY | JSON_SORT_KEYS);
	pbuf na = {0}, any = {0};

	if (!text)
		return;
	put_str(&any, ANY_YAML, text); /* JSON is YAML: clients parse this as YAML */
	put_str(&na, NAMED_NAME, name);
	put_msg(&na, NAMED_VALUE, &any);
	put_msg(b, S_VENDOR, &na);
}

static void enc_schema(pbuf *b, json_t *s)
{
	json_t *v, *props = json_object_get(s, "properties"), *addl = json_object_get(s, "additionalProperties");
	const char *k;
	size_t i;

	if ((v = json_object_get(s, "$ref")))
		put_str(b, S_REF, json_string_value(v));
	if ((v = json_object_get(s, "format")))
		put_str(b, S_FORMAT, json_string_value(v));
	if ((v = json_object_get(s, "description")))
		put_str(b, S_DESCRIPTION, json_string_value(v));
	json_array_foreach(json_object_get(s, "required"), i, v)
		put_str(b, S_REQUIRED, json_string_value(v));
	if (addl) {
		pbuf a = {0};

		if (json_is_object(addl)) {
			pbuf sub = {0};

			enc_schema(&sub, addl);
			put_msg(&a, ADDL_SCHEMA, &sub);
		} else {
			put_varint(&a, (uint64_t)ADDL_BOOL << 3);
			put_varint(&a, json_is_true(addl));
		}
		put_msg(b, S_ADDL, &a);
	}
	if ((v = json_object_get(s, "type"))) {
		pbuf t = {0};

		put_str(&t, LIST_ITEM, json_string_value(v));
		put_msg(b, S_TYPE, &t);
	}
	if ((v = json_object_get(s, "items"))) {
		pbuf it = {0}, sub = {0};

		enc_schema(&sub, v);
		put_msg(&it, LIST_ITEM, &sub);
		put_msg(b, S_ITEMS, &it);
	}
	if (props) {
		pbuf p = {0};

		json_object_foreach(props, k, v)
			enc_named_schema(&p, LIST_ITEM, k, v);
		put_msg(b, S_PROPERTIES, &p);
	}
	json_object_foreach(s, k, v)
		if (!strncmp(k, "x-", 2))
			enc_vendor(b, k, v);
}

/* The document with the Definitions content defs (len n). */
static void encode_doc(pbuf *b, const unsigned char *defs, size_t n)
{
	pbuf info = {0};

	put_str(b, DOC_SWAGGER, "2.0");
	put_str(&info, INFO_TITLE, "Kubernetes");
	put_str(&info, INFO_VERSION, SK_KUBE_VERSION);
	put_msg(b, DOC_INFO, &info);
	put_bytes(b, DOC_PATHS, "", 0); /* an empty Paths message */
	put_bytes(b, DOC_DEFINITIONS, defs, n);
}

static void build(void)
{
	pbuf b = {0}, defs = {0};
	json_t *v;
	const char *k;

	v2.doc = build_json();
	v2.json = json_dumps(v2.doc, JSON_COMPACT | JSON_SORT_KEYS);
	if (!v2.json)
		abort();
	v2.json_len = strlen(v2.json);
	json_object_foreach(json_object_get(v2.doc, "definitions"), k, v)
		enc_named_schema(&defs, LIST_ITEM, k, v);
	v2.defs_pb = defs.p;
	v2.defs_pb_len = defs.n;
	encode_doc(&b, v2.defs_pb, v2.defs_pb_len);
	v2.pb = b.p;
	v2.pb_len = b.n;
}

char *sk_openapi_v2_render(const sk_openapi_custom_kind *kinds, size_t n, int protobuf, size_t *len)
{
	cleanup_json json_t *custom = json_object();
	json_t *v;
	const char *k;
	char *out;

	pthread_once(&v2.once, build);
	for (size_t i = 0; i < n; i++)
		if (!json_object_get(json_object_get(v2.doc, "definitions"), kinds[i].name))
			add_custom(custom, &kinds[i]);
	if (protobuf) {
		pbuf defs = {0}, b = {0};

		put(&defs, v2.defs_pb, v2.defs_pb_len);
		json_object_foreach(custom, k, v)
			enc_named_schema(&defs, LIST_ITEM, k, v);
		encode_doc(&b, defs.p, defs.n);
		free(defs.p);
		*len = b.n;
		return b.p ? (char *)b.p : xstrdup("");
	}
	{
		/* the built-in definitions shared (read only), the custom ones added */
		cleanup_json json_t *all = json_copy(json_object_get(v2.doc, "definitions"));
		cleanup_json json_t *doc = NULL;

		json_object_update(all, custom);
		doc = json_pack("{s:s, s:{s:s, s:s}, s:{}, s:O}", "swagger", "2.0", "info", "title", "Kubernetes",
				"version", SK_KUBE_VERSION, "paths", "definitions", all);
		out = json_dumps(doc, JSON_COMPACT | JSON_SORT_KEYS);
		if (!out)
			abort();
		*len = strlen(out);
		return out;
	}
}

const char *sk_openapi_v2_json(size_t *len)
{
	pthread_once(&v2.once, build);
	*len = v2.json_len;
	return v2.json;
}

const unsigned char *sk_openapi_v2_protobuf(size_t *len)
{
	pthread_once(&v2.once, build);
	*len = v2.pb_len;
	return v2.pb;
}
