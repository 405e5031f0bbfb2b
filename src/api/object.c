#include <string.h>

#include "api/api-int.h"
#include "util/json.h"
#include "util/util.h"

static const char RV_MARK[] = "\"metadata\":{\"resourceVersion\":\"";

/* The stored text: kind, apiVersion, then metadata led by an empty
 * resourceVersion (sk__obj_splice_rv fills it in), the rest in obj's order.
 * jansson's way builds the reordered object and dumps it. */
static char *encode_jansson(json_t *obj, size_t *len)
{
	cleanup_json json_t *out = json_object();
	json_t *meta = json_object_get(obj, "metadata");
	json_t *m = json_object(), *v;
	const char *k;
	char *s;

	json_object_set(out, "kind", json_object_get(obj, "kind"));
	json_object_set(out, "apiVersion", json_object_get(obj, "apiVersion"));
	json_object_set_new(m, "resourceVersion", json_string(""));
	json_object_foreach(meta, k, v) {
		if (!strcmp(k, "resourceVersion"))
			continue;
		/* omitempty lists and maps of ObjectMeta are dropped when empty */
		if ((json_is_array(v) && !json_array_size(v)) || (json_is_object(v) && !json_object_size(v)))
			continue;
		json_object_set(m, k, v);
	}
	json_object_set_new(out, "metadata", m);
	json_object_foreach(obj, k, v)
		if (strcmp(k, "kind") && strcmp(k, "apiVersion") && strcmp(k, "metadata"))
			json_object_set(out, k, v);
	s = json_dumps(out, JSON_COMPACT);
	if (!s)
		abort();
	*len = strlen(s);
	return s;
}

static int gen_member(yajl_gen g, const char *k, json_t *v)
{
	if (yajl_gen_string(g, (const unsigned char *)k, strlen(k)) != yajl_gen_status_ok)
		return -1;
	return sk_json_gen(g, v);
}

/* The same text written through yajl, without the reordered copy. */
static int gen_stored(yajl_gen g, void *ud)
{
	json_t *obj = ud, *meta = json_object_get(obj, "metadata"), *v;
	const char *k;

	if (yajl_gen_map_open(g) != yajl_gen_status_ok)
		return -1;
	if ((v = json_object_get(obj, "kind")) && gen_member(g, "kind", v) < 0)
		return -1;
	if ((v = json_object_get(obj, "apiVersion")) && gen_member(g, "apiVersion", v) < 0)
		return -1;
	if (yajl_gen_string(g, (const unsigned char *)"metadata", 8) != yajl_gen_status_ok ||
	    yajl_gen_map_open(g) != yajl_gen_status_ok ||
	    yajl_gen_string(g, (const unsigned char *)"resourceVersion", 15) != yajl_gen_status_ok ||
	    yajl_gen_string(g, (const unsigned char *)"", 0) != yajl_gen_status_ok)
		return -1;
	json_object_foreach(meta, k, v) {
		if (!strcmp(k, "resourceVersion") || (json_is_array(v) && !json_array_size(v)) ||
		    (json_is_object(v) && !json_object_size(v)))
			continue;
		if (gen_member(g, k, v) < 0)
			return -1;
	}
	if (yajl_gen_map_close(g) != yajl_gen_status_ok)
		return -1;
	json_object_foreach(obj, k, v)
		if (strcmp(k, "kind") && strcmp(k, "apiVersion") && strcmp(k, "metadata") && gen_member(g, k, v) < 0)
			return -1;
	return yajl_gen_map_close(g) == yajl_gen_status_ok ? 0 : -1;
}

char *sk__obj_encode(json_t *obj, size_t *len)
{
	char *s = sk_json_gen_text(gen_stored, obj, len);

	/* what yajl cannot write (nesting beyond its generator's depth) */
	return s ? s : encode_jansson(obj, len);
}

char *sk__obj_splice_rv(const char *val, size_t len, int64_t rev, size_t *out_len)
{
	const char *p = memmem(val, len, RV_MARK, sizeof(RV_MARK) - 1);
	char num[24];
	size_t off, n;
	char *out;

	n = (size_t)snprintf(num, sizeof(num), "%lld", (long long)rev);
	if (!p) {
		out = xstrndup(val, len);
		*out_len = len;
		return out;
	}
	off = (size_t)(p - val) + sizeof(RV_MARK) - 1;
	out = xmalloc(len + n + 1);
	memcpy(out, val, off);
	memcpy(out + off, num, n);
	memcpy(out + off + n, val + off, len - off);
	out[len + n] = '\0';
	*out_len = len + n;
	return out;
}

json_t *sk__obj_decode(const char *val, size_t len, int64_t rev)
{
	json_t *o = sk_json_loadb(val, len);
	json_t *meta;
	char num[24];

	if (!o)
		return NULL;
	meta = json_object_get(o, "metadata");
	if (json_is_object(meta)) {
		snprintf(num, sizeof(num), "%lld", (long long)rev);
		json_object_set_new(meta, "resourceVersion", json_string(num));
	}
	return o;
}

int sk__obj_per_version(const sk_api_resource *r) { return r->custom || (r->ops && r->ops->convert); }

void sk__obj_as(const sk_api_resource *r, json_t *obj)
{
	char gv[96];

	if (!obj)
		return;
	if (r->ops && r->ops->convert) {
		r->ops->convert(r, obj);
	} else if (r->custom) {
		sk__resource_gv(r, gv, sizeof(gv));
		json_object_set_new(obj, "apiVersion", json_string(gv));
	}
}

/* A converted kind's text: decoded, converted and encoded again when it was
 * stored through another version. */
static char *text_converted(const sk_api_resource *r, char *text, size_t *len)
{
	cleanup_json json_t *o = NULL;
	const char *av;
	char gv[96], *out;

	o = sk_json_loadb(text, *len);
	av = json_string_value(json_object_get(o, "apiVersion"));
	sk__resource_gv(r, gv, sizeof(gv));
	if (!o || (av && !strcmp(av, gv)))
		return text;
	r->ops->convert(r, o);
	out = sk_json_dumps(o, len);
	if (!out)
		return text;
	free(text);
	return out;
}

char *sk__obj_text_for(const sk_api_resource *r, char *text, size_t *len)
{
	static const char key[] = "\"apiVersion\":\"";
	size_t lim = *len < 512 ? *len : 512, gl, vl, n;
	char gv[96], *p, *v, *e, *out;

	if (text && r->ops && r->ops->convert)
		return text_converted(r, text, len);
	if (!r->custom || !text)
		return text;
	/* the encoding puts kind and apiVersion first */
	p = memmem(text, lim, key, sizeof(key) - 1);
	if (!p)
		return text;
	v = p + sizeof(key) - 1;
	e = memchr(v, '"', *len - (size_t)(v - text));
	if (!e)
		return text;
	sk__resource_gv(r, gv, sizeof(gv));
	gl = strlen(gv);
	vl = (size_t)(e - v);
	if (vl == gl && !memcmp(v, gv, gl))
		return text;
	n = *len - vl + gl;
	out = xmalloc(n + 1);
	memcpy(out, text, (size_t)(v - text));
	memcpy(out + (v - text), gv, gl);
	memcpy(out + (v - text) + gl, e, *len - (size_t)(e - text));
	out[n] = '\0';
	free(text);
	*len = n;
	return out;
}

char *sk__obj_key(const sk_api_resource *r, const char *ns, const char *name)
{
	const char *seg = r->store ? r->store : r->plural;

	if (r->namespaced)
		return xasprintf("/registry/%s/%s/%s", seg, ns, name);
	return xasprintf("/registry/%s/%s", seg, name);
}

char *sk__obj_prefix(const sk_api_resource *r, const char *ns)
{
	const char *seg = r->store ? r->store : r->plural;

	if (r->namespaced && ns && *ns)
		return xasprintf("/registry/%s/%s/", seg, ns);
	return xasprintf("/registry/%s/", seg);
}

json_t *sk__stored_core(sk_api *api, const char *plural, const char *ns, const char *name)
{
	const sk_api_resource *r = sk__resource_find("", "v1", plural);
	cleanup_free char *key = NULL;
	sk_error_t err = {0};
	sk_store_kv kv;
	json_t *o;

	if (!r || !name || !*name)
		return NULL;
	key = sk__obj_key(r, ns, name);
	if (sk_store_get(api->store, key, &kv, &err) < 0)
		return NULL;
	o = sk__obj_decode(kv.value, kv.len, kv.mod_rev);
	sk_store_kv_release(&kv);
	return o;
}

json_t *sk__stored_list(sk_api *api, const char *prefix, sk_error_t *err)
{
	sk_store_list l = {0};
	json_t *out;

	if (sk_store_range(api->store, prefix, NULL, 0, 0, &l, err) < 0)
		return NULL;
	out = json_array();
	for (size_t i = 0; i < l.n; i++) {
		json_t *o = sk__obj_decode(l.items[i].value, l.items[i].len, l.items[i].mod_rev);

		if (o)
			json_array_append_new(out, o);
	}
	sk_store_list_release(&l);
	return out;
}
