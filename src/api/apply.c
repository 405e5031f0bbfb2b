/* Server-side apply and managedFields. Field sets are kept as JSON objects
 * whose keys are paths (FieldsV1 elements joined by SEP) so that union,
 * difference and ownership tests are key lookups; they are converted from
 * and to the FieldsV1 tree at the edges. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "api/apply.h"
#include "api/patch.h"
#include "util/json.h"
#include "util/util.h"

#define SEP "\x1f"
#define SEPC '\x1f'

/* ---- paths and field sets ---- */

static char *join(const char *prefix, const char *elem)
{
	size_t a = strlen(prefix), b = strlen(elem), sl = strlen(SEP);
	char *s;

	if (!a)
		return xstrdup(elem);
	s = xmalloc(a + sl + b + 1);
	memcpy(s, prefix, a);
	memcpy(s + a, SEP, sl);
	memcpy(s + a + sl, elem, b + 1);
	return s;
}

/* join(path, "f:" field) in one allocation (hot: every field of every write). */
static char *field_path(const char *path, const char *field)
{
	size_t a = strlen(path), b = strlen(field), sl = a ? strlen(SEP) : 0;
	char *s = xmalloc(a + sl + 2 + b + 1);

	memcpy(s, path, a);
	memcpy(s + a, SEP, sl);
	memcpy(s + a + sl, "f:", 2);
	memcpy(s + a + sl + 2, field, b + 1);
	return s;
}

static bool has_prefix(const char *s, const char *p) { return strncmp(s, p, strlen(p)) == 0; }

static char *dump(json_t *v)
{
	char *s = json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
	return s ? s : xstrdup("null");
}

/* Paths join keys of jansson objects and element texts of valid values:
 * valid UTF-8, which json_object_set_new would check again. */
static void set_add(json_t *set, const char *path) { json_object_set_new_nocheck(set, path, json_true()); }

/* 1 when set holds path or a path below it. */
static bool set_covers(json_t *set, const char *path)
{
	size_t n = strlen(path);
	const char *k;
	json_t *v;

	json_object_foreach(set, k, v)
		if (strncmp(k, path, n) == 0 && (k[n] == '\0' || k[n] == SEPC))
			return true;
	return false;
}

static void set_remove_under(json_t *set, const char *path)
{
	size_t n = strlen(path);
	const char *k;
	json_t *v;
	void *tmp;

	json_object_foreach_safe(set, tmp, k, v)
		if (strncmp(k, path, n) == 0 && (k[n] == '\0' || k[n] == SEPC))
			json_object_del(set, k);
}

/* Splits a path into its elements; caller frees each and the array. */
static char **split_path(const char *path, size_t *n)
{
	char **out = NULL;

	*n = 0;
	for (;;) {
		const char *sep = strchr(path, SEPC);
		size_t len = sep ? (size_t)(sep - path) : strlen(path);
		out = xrealloc(out, (*n + 1) * sizeof(char *));
		out[(*n)++] = xstrndup(path, len);
		if (!sep)
			return out;
		path = sep + 1;
	}
}

static void free_path(char **elems, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(elems[i]);
	free(elems);
}

/* ---- custom kinds: merge metadata from a CRD's openAPIV3Schema ---- */

/* While sk_apply_schema runs, the schema nodes it meets are "types" named
 * "\x01<address>", interned here (the names live as long as the call). */
static _Thread_local json_t *crd_types;
static _Thread_local json_t *crd_root;

static const char *schema_type(json_t *s)
{
	char buf[40];

	if (!json_is_object(s) || !crd_types)
		return NULL;
	snprintf(buf, sizeof(buf), "\x01%p", (void *)s);
	if (!json_object_get(crd_types, buf))
		json_object_set_new(crd_types, buf, json_true());
	return json_object_iter_key(json_object_iter_at(crd_types, buf));
}

/* structured-merge-diff's reading of a structural schema: lists are atomic
 * unless x-kubernetes-list-type is set (each scalar owned) or map with one
 * x-kubernetes-list-map-keys key (items keyed "k:{...}"); objects are
 * granular unless x-kubernetes-map-type is atomic. Fields the schema does
 * not name (x-kubernetes-preserve-unknown-fields) are deduced: maps
 * granular, lists atomic. The root's metadata is ObjectMeta. */
static int schema_lookup(const char *type, const char *field, struct sk__patch_meta *meta)
{
	json_t *s, *f, *items, *keys;
	const char *lt, *mt;
	void *ptr = NULL;

	memset(meta, 0, sizeof(*meta));
	if (sscanf(type + 1, "%p", &ptr) != 1 || !ptr)
		return 0;
	s = ptr;
	if (s == crd_root && strcmp(field, "metadata") == 0)
		return meta->type = "ObjectMeta", 1;
	f = json_object_get(json_object_get(s, "properties"), field);
	if (!f && json_is_object(json_object_get(s, "additionalProperties")))
		f = json_object_get(s, "additionalProperties");
	if (!json_is_object(f))
		return 0;
	lt = json_string_value(json_object_get(f, "x-kubernetes-list-type"));
	mt = json_string_value(json_object_get(f, "x-kubernetes-map-type"));
	items = json_object_get(f, "items");
	if (json_is_object(items) || lt) {
		meta->type = schema_type(items);
		keys = json_object_get(f, "x-kubernetes-list-map-keys");
		if (lt && strcmp(lt, "set") == 0) {
			meta->merge = 1;
		} else if (lt && strcmp(lt, "map") == 0 && json_array_size(keys) &&
			   json_is_string(json_array_get(keys, 0))) {
			meta->merge = 1;
			meta->merge_key = json_string_value(json_array_get(keys, 0));
			if (json_array_size(keys) > 1)
				meta->merge_keys = keys;
		}
		return 1;
	}
	meta->type = schema_type(f);
	meta->atomic = mt && strcmp(mt, "atomic") == 0;
	return 1;
}

static int lookup(const char *type, const char *field, struct sk__patch_meta *meta)
{
	if (type && type[0] == '\x01')
		return schema_lookup(type, field, meta);
	return sk__patch_lookup(type, field, meta);
}

/* ---- path elements of values ---- */

/* Whether e has every key of a list with several keys. */
static bool has_keys(json_t *e, const struct sk__patch_meta *meta)
{
	json_t *k;
	size_t i;

	json_array_foreach(meta->merge_keys, i, k)
		if (!json_is_string(k) || !json_object_get(e, json_string_value(k)))
			return false;
	return true;
}

/* Whether items a and b of a list with several keys have the same keys. */
static bool same_keys(json_t *a, json_t *b, const struct sk__patch_meta *meta)
{
	json_t *k;
	size_t i;

	json_array_foreach(meta->merge_keys, i, k) {
		json_t *x = json_object_get(a, json_string_value(k)), *y = json_object_get(b, json_string_value(k));
		if (!x || !y || !json_equal(x, y))
			return false;
	}
	return true;
}

/* A list whose items have identities: merge-keyed maps or set scalars. */
static bool keyed_list(json_t *list, const struct sk__patch_meta *meta)
{
	json_t *e;
	size_t i;

	if (!meta->merge || !json_is_array(list))
		return false;
	json_array_foreach(list, i, e) {
		if (meta->merge_key) {
			if (!json_is_object(e) || !json_object_get(e, meta->merge_key) ||
			    (meta->merge_keys && !has_keys(e, meta)))
				return false;
		} else if (json_is_object(e) || json_is_array(e)) {
			return false;
		}
	}
	return true;
}

struct elem_gen {
	const char *key; /* the merge key, or NULL for a set member */
	json_t *v;
};

static int gen_elem(yajl_gen g, void *ud)
{
	struct elem_gen *x = ud;

	if (!x->key)
		return sk_json_gen(g, x->v);
	if (yajl_gen_map_open(g) != yajl_gen_status_ok ||
	    yajl_gen_string(g, (const unsigned char *)x->key, strlen(x->key)) != yajl_gen_status_ok ||
	    sk_json_gen(g, x->v) < 0)
		return -1;
	return yajl_gen_map_close(g) == yajl_gen_status_ok ? 0 : -1;
}

/* item_elem's text for a scalar identity, written by yajl as dump() writes
 * it (no key to sort), or NULL. Hot: every item of a keyed list (a pod's
 * conditions, containers, container statuses …) of every write. */
static char *scalar_elem(json_t *e, const struct sk__patch_meta *meta)
{
	struct elem_gen x = {meta->merge_key, meta->merge_key ? json_object_get(e, meta->merge_key) : e};
	cleanup_free char *s = NULL;
	size_t n = 0;
	char *out;

	if (meta->merge_keys || (!json_is_string(x.v) && !json_is_integer(x.v) && !json_is_boolean(x.v)))
		return NULL;
	s = sk_json_gen_text(gen_elem, &x, &n);
	if (!s)
		return NULL;
	out = xmalloc(n + 3);
	memcpy(out, x.key ? "k:" : "v:", 2);
	memcpy(out + 2, s, n + 1);
	return out;
}

static char *item_elem(json_t *e, const struct sk__patch_meta *meta)
{
	char *s, *out;

	if ((out = scalar_elem(e, meta)))
		return out;
	if (meta->merge_keys) { /* upstream sorts the keys, as dump does */
		json_t *k = json_object(), *name;
		size_t i;

		json_array_foreach(meta->merge_keys, i, name)
			json_object_set(k, json_string_value(name), json_object_get(e, json_string_value(name)));
		s = dump(k);
		json_decref(k);
		out = xasprintf("k:%s", s);
	} else if (meta->merge_key) {
		json_t *k = json_pack("{sO}", meta->merge_key, json_object_get(e, meta->merge_key));
		s = dump(k);
		json_decref(k);
		out = xasprintf("k:%s", s);
	} else {
		s = dump(e);
		out = xasprintf("v:%s", s);
	}
	free(s);
	return out;
}

/* Index of the item of list a "k:"/"v:" element names, or -1. */
static long find_item(json_t *list, const char *elem)
{
	json_t *want = json_loads(elem + 2, JSON_DECODE_ANY, NULL), *e, *kv;
	const char *k;
	size_t i;
	long found = -1;

	if (!want || !json_is_array(list)) {
		json_decref(want);
		return -1;
	}
	json_array_foreach(list, i, e) {
		bool ok;
		if (elem[0] == 'v') {
			ok = json_equal(e, want);
		} else {
			ok = json_is_object(e) && json_is_object(want);
			json_object_foreach(want, k, kv)
				if (ok && !json_equal(json_object_get(e, k), kv))
					ok = false;
		}
		if (ok) {
			found = (long)i;
			break;
		}
	}
	json_decref(want);
	return found;
}

static json_t *step(json_t *cur, const char *elem)
{
	long i;

	if (has_prefix(elem, "f:"))
		return json_object_get(cur, elem + 2);
	if (has_prefix(elem, "k:") || has_prefix(elem, "v:")) {
		i = find_item(cur, elem);
		return i < 0 ? NULL : json_array_get(cur, (size_t)i);
	}
	return strcmp(elem, ".") == 0 ? cur : NULL;
}

static json_t *value_at(json_t *root, const char *path)
{
	size_t n;
	char **elems = split_path(path, &n);
	json_t *cur = root;

	for (size_t i = 0; cur && i < n; i++)
		cur = step(cur, elems[i]);
	free_path(elems, n);
	return cur;
}

static void delete_at(json_t *root, const char *path)
{
	size_t n;
	char **elems = split_path(path, &n);
	json_t *cur = root;
	const char *last = elems[n - 1];

	for (size_t i = 0; cur && i + 1 < n; i++)
		cur = step(cur, elems[i]);
	if (cur && has_prefix(last, "f:")) {
		json_object_del(cur, last + 2);
	} else if (cur && (has_prefix(last, "k:") || has_prefix(last, "v:"))) {
		long i = find_item(cur, last);
		if (i >= 0)
			json_array_remove(cur, (size_t)i);
	}
	free_path(elems, n);
}

/* ".spec.containers[name=\"a\"].image", as fieldpath.Path prints. */
static char *path_string(const char *path)
{
	size_t n;
	char **elems = split_path(path, &n);
	char *out = xstrdup("");

	for (size_t i = 0; i < n; i++) {
		char *next = NULL;
		const char *e = elems[i];
		if (has_prefix(e, "f:")) {
			next = xasprintf("%s.%s", out, e + 2);
		} else if (has_prefix(e, "v:")) {
			next = xasprintf("%s[=%s]", out, e + 2);
		} else if (has_prefix(e, "k:")) {
			json_t *k = json_loads(e + 2, 0, NULL), *v;
			const char *name;
			char *inner = xstrdup("");
			json_object_foreach(k, name, v) {
				cleanup_free char *vs = dump(v);
				char *t = xasprintf("%s%s%s=%s", inner, *inner ? "," : "", name, vs);
				free(inner);
				inner = t;
			}
			json_decref(k);
			next = xasprintf("%s[%s]", out, inner);
			free(inner);
		}
		if (next) {
			free(out);
			out = next;
		}
	}
	free_path(elems, n);
	return out;
}

/* ---- FieldsV1 trees ---- */

static void tree_insert(json_t *tree, const char *path)
{
	json_t *node = tree;

	for (;;) {
		const char *sep = strchr(path, SEPC);
		size_t len = sep ? (size_t)(sep - path) : strlen(path);
		json_t *child = json_object_getn(node, path, len);
		bool existed = child != NULL;

		if (!child) {
			child = json_object();
			json_object_setn_new_nocheck(node, path, len, child); /* see set_add */
		}
		/* a node that is itself a member and has children carries "." */
		if (existed && ((!sep && json_object_size(child)) || (sep && !json_object_size(child))))
			json_object_set_new(child, ".", json_object());
		if (!sep)
			return;
		node = child;
		path = sep + 1;
	}
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

static json_t *set_to_fields(json_t *set)
{
	json_t *tree = json_object(), *v;
	size_t n = json_object_size(set), i = 0;
	const char **keys = xmalloc((n ? n : 1) * sizeof(char *));
	const char *k;

	json_object_foreach(set, k, v)
		keys[i++] = k;
	qsort(keys, n, sizeof(char *), cmp_str);
	for (i = 0; i < n; i++)
		tree_insert(tree, keys[i]);
	free(keys);
	return tree;
}

static void fields_to_set(json_t *set, const char *prefix, json_t *node)
{
	const char *k;
	json_t *child;

	json_object_foreach(node, k, child) {
		cleanup_free char *p = NULL;
		if (strcmp(k, ".") == 0) {
			if (*prefix)
				set_add(set, prefix);
			continue;
		}
		p = join(prefix, k);
		if (!json_is_object(child) || json_object_size(child) == 0)
			set_add(set, p);
		else
			fields_to_set(set, p, child);
	}
}

/* ---- field sets of objects ---- */

static void members_value(json_t *set, const char *path, json_t *v, const struct sk__patch_meta *meta);

static void members_object(json_t *set, const char *path, json_t *obj, const char *type)
{
	const char *k;
	json_t *v;

	json_object_foreach(obj, k, v) {
		struct sk__patch_meta meta;
		cleanup_free char *p = field_path(path, k);
		if (json_is_null(v))
			continue;
		lookup(type, k, &meta);
		members_value(set, p, v, &meta);
	}
}

/* Apply semantics: leaves and list items are members, maps are not. */
static void members_value(json_t *set, const char *path, json_t *v, const struct sk__patch_meta *meta)
{
	json_t *e;
	size_t i;

	if (json_is_object(v) && json_object_size(v) && !meta->atomic) {
		members_object(set, path, v, meta->type);
		return;
	}
	if (json_is_array(v) && json_array_size(v) && keyed_list(v, meta)) {
		json_array_foreach(v, i, e) {
			cleanup_free char *ie = item_elem(e, meta);
			cleanup_free char *p = join(path, ie);
			set_add(set, p);
			if (meta->merge_key)
				members_object(set, p, e, meta->type);
		}
		return;
	}
	set_add(set, path);
}

static const char *const meta_fields[] = {
	"name",
	"namespace",
	"creationTimestamp",
	"selfLink",
	"uid",
	"clusterName",
	"generation",
	"managedFields",
	"resourceVersion",
	"deletionTimestamp",
	"deletionGracePeriodSeconds",
	NULL,
};

/* Drops what upstream never tracks (stripmeta.go) and, for the main
 * resource, status; for the status subresource, all but status. */
static void strip_set(json_t *set, const char *subresource)
{
	bool status = subresource && strcmp(subresource, "status") == 0;
	const char *k;
	json_t *v;
	void *tmp;

	json_object_foreach_safe(set, tmp, k, v) {
		bool in_status = strcmp(k, "f:status") == 0 || has_prefix(k, "f:status" SEP);
		bool drop = status ? !in_status : in_status;
		if (!strcmp(k, "f:apiVersion") || !strcmp(k, "f:kind") || !strcmp(k, "f:metadata"))
			drop = true;
		if (has_prefix(k, "f:metadata" SEP "f:")) {
			const char *f = k + strlen("f:metadata" SEP "f:");

			for (size_t i = 0; meta_fields[i]; i++) {
				size_t n = strlen(meta_fields[i]);

				if (!strncmp(f, meta_fields[i], n) && (f[n] == '\0' || f[n] == SEPC))
					drop = true;
			}
		}
		if (drop)
			json_object_del(set, k);
	}
}

/* ---- managedFields entries ---- */

struct entry {
	char *manager, *operation, *api_version, *time, *subresource;
	json_t *set;
	json_t *orig; /* the entry as it was, written back as is while its set is not loaded */
};

struct managed {
	struct entry *v;
	size_t n;
};

static char *str_or_null(json_t *obj, const char *key)
{
	const char *s = json_string_value(json_object_get(obj, key));
	return s ? xstrdup(s) : NULL;
}

static size_t managed_add(struct managed *m, const char *manager, const char *op, const char *api_version,
			  const char *subresource)
{
	struct entry *e;

	m->v = xrealloc(m->v, (m->n + 1) * sizeof(*m->v));
	e = &m->v[m->n];
	memset(e, 0, sizeof(*e));
	e->manager = xstrdup(manager ? manager : "");
	e->operation = xstrdup(op);
	e->api_version = api_version ? xstrdup(api_version) : NULL;
	e->subresource = subresource && *subresource ? xstrdup(subresource) : NULL;
	e->set = json_object();
	return m->n++;
}

/* ---- entries kept as they are ----
 *
 * An Update changes the fields of one manager, usually. The other entries
 * are written back as they are, without turning their FieldsV1 into a set
 * and back, when that round trip gives the same JSON (managed_dump's keys in
 * its order, a tree as set_to_fields builds it) and the update touches none
 * of their fields. */

/* Whether node is a FieldsV1 tree as set_to_fields builds it: non-empty
 * keys in strcmp order (which is path order while no key holds a byte below
 * SEP), "." first in a member that has children, leaves empty. */
static bool tree_canonical(json_t *node, bool top)
{
	const char *k, *prev = NULL;
	size_t i = 0;
	json_t *c;

	json_object_foreach(node, k, c) {
		if (!json_is_object(c))
			return false;
		if (!strcmp(k, ".")) {
			if (top || i || json_object_size(c) || json_object_size(node) < 2)
				return false;
		} else {
			if (!*k || (prev && strcmp(prev, k) >= 0))
				return false;
			for (const char *q = k; *q; q++)
				if ((unsigned char)*q <= SEPC)
					return false;
			if (json_object_size(c) && !tree_canonical(c, false))
				return false;
			prev = k;
		}
		i++;
	}
	return true;
}

/* Whether managed_dump writes entry e back exactly as it is. */
static bool entry_canonical(json_t *e)
{
	static const char *const keys[] = {"manager",    "operation", "apiVersion", "time",
					   "fieldsType", "fieldsV1",  "subresource"};
	static const bool required[] = {true, true, false, false, true, true, false};
	const size_t nkeys = sizeof(keys) / sizeof(keys[0]);
	size_t at = 0;
	const char *k;
	json_t *v;

	json_object_foreach(e, k, v) {
		while (at < nkeys && strcmp(keys[at], k)) {
			if (required[at])
				return false;
			at++;
		}
		if (at == nkeys)
			return false;
		if (!strcmp(k, "fieldsV1")) {
			if (!json_is_object(v) || !json_object_size(v) || !tree_canonical(v, true))
				return false;
		} else if (!json_is_string(v) || strlen(json_string_value(v)) != json_string_length(v)) {
			return false;
		} else if ((!strcmp(k, "fieldsType") && strcmp(json_string_value(v), "FieldsV1")) ||
			   (!strcmp(k, "subresource") && !*json_string_value(v))) {
			return false;
		}
		at++;
	}
	return at > 5;
}

/* Whether the FieldsV1 tree holds path or a path below it, i.e. whether
 * set_remove_under(path) would change its set. */
static bool tree_has(json_t *tree, const char *path)
{
	json_t *node = tree;

	for (;;) {
		const char *sep = strchr(path, SEPC);
		size_t len = sep ? (size_t)(sep - path) : strlen(path);

		node = json_object_getn(node, path, len);
		if (!node)
			return false;
		if (!sep)
			return true;
		path = sep + 1;
	}
}

static bool tree_touched(json_t *tree, json_t *set)
{
	const char *p;
	json_t *v;

	json_object_foreach(set, p, v)
		if (tree_has(tree, p))
			return true;
	return false;
}

/* Reads the entries of list; with keep, entries that round-trip unchanged
 * keep their JSON in orig and their set stays unloaded (entry_load). */
static void managed_load_entries(struct managed *m, json_t *list, bool keep)
{
	json_t *e;
	size_t i;

	json_array_foreach(list, i, e) {
		const char *ft = json_string_value(json_object_get(e, "fieldsType"));
		struct entry *x;
		json_t *f = json_object_get(e, "fieldsV1");
		size_t at;
		if (!json_is_object(e) || (ft && strcmp(ft, "FieldsV1") != 0))
			continue;
		at = managed_add(m, json_string_value(json_object_get(e, "manager")), "", NULL,
				 json_string_value(json_object_get(e, "subresource")));
		x = &m->v[at];
		free(x->operation);
		x->operation = str_or_null(e, "operation");
		if (!x->operation)
			x->operation = xstrdup("");
		x->api_version = str_or_null(e, "apiVersion");
		x->time = str_or_null(e, "time");
		if (keep && entry_canonical(e))
			x->orig = json_incref(e);
		else if (json_is_object(f))
			fields_to_set(x->set, "", f);
	}
}

static void managed_load(struct managed *m, json_t *list) { managed_load_entries(m, list, false); }

/* Loads the set of an entry kept as it was; it is written anew from then on. */
static void entry_load(struct entry *e)
{
	if (!e->orig)
		return;
	fields_to_set(e->set, "", json_object_get(e->orig, "fieldsV1"));
	json_decref(e->orig);
	e->orig = NULL;
}

static void managed_release(struct managed *m)
{
	for (size_t i = 0; i < m->n; i++) {
		struct entry *e = &m->v[i];
		json_decref(e->orig);
		free(e->manager);
		free(e->operation);
		free(e->api_version);
		free(e->time);
		free(e->subresource);
		json_decref(e->set);
	}
	free(m->v);
}

static bool str_eq(const char *a, const char *b) { return strcmp(a ? a : "", b ? b : "") == 0; }

/* The entry of (manager, op, subresource[, api_version when not NULL]), or -1. */
static long managed_find(struct managed *m, const char *manager, const char *op, const char *api_version,
			 const char *subresource)
{
	for (size_t i = 0; i < m->n; i++) {
		struct entry *e = &m->v[i];
		if (str_eq(e->manager, manager) && str_eq(e->operation, op) && str_eq(e->subresource, subresource) &&
		    (!api_version || str_eq(e->api_version, api_version)))
			return (long)i;
	}
	return -1;
}

static json_t *managed_dump(struct managed *m)
{
	json_t *out = json_array();

	for (size_t i = 0; i < m->n; i++) {
		struct entry *e = &m->v[i];
		json_t *o;
		if (e->orig) {
			json_array_append(out, e->orig);
			continue;
		}
		if (json_object_size(e->set) == 0)
			continue;
		o = json_object();
		json_object_set_new(o, "manager", json_string(e->manager));
		json_object_set_new(o, "operation", json_string(e->operation));
		if (e->api_version)
			json_object_set_new(o, "apiVersion", json_string(e->api_version));
		if (e->time)
			json_object_set_new(o, "time", json_string(e->time));
		json_object_set_new(o, "fieldsType", json_string("FieldsV1"));
		json_object_set_new(o, "fieldsV1", set_to_fields(e->set));
		if (e->subresource)
			json_object_set_new(o, "subresource", json_string(e->subresource));
		json_array_append_new(out, o);
	}
	return out;
}

/* Stores the entries in obj.metadata.managedFields (removed when none). */
static void managed_store(struct managed *m, json_t *obj)
{
	json_t *meta = json_object_get(obj, "metadata");
	json_t *list = managed_dump(m);

	if (!json_is_object(meta)) {
		meta = json_object();
		json_object_set_new(obj, "metadata", meta);
	}
	if (json_array_size(list))
		json_object_set_new(meta, "managedFields", list);
	else {
		json_object_del(meta, "managedFields");
		json_decref(list);
	}
}

static void entry_touch(struct entry *e)
{
	char buf[32];

	sk_time_format(sk_now_ns() / 1000000000, buf, sizeof(buf));
	free(e->time);
	e->time = xstrdup(buf);
}

static json_t *managed_fields_of(json_t *obj)
{
	return json_object_get(json_object_get(obj, "metadata"), "managedFields");
}

/* ---- apply ---- */

static json_t *strip_nulls(json_t *v)
{
	const char *k;
	json_t *c;
	void *tmp;
	size_t i;

	if (json_is_object(v)) {
		json_object_foreach_safe(v, tmp, k, c) {
			if (json_is_null(c))
				json_object_del(v, k);
			else
				strip_nulls(c);
		}
	} else if (json_is_array(v)) {
		json_array_foreach(v, i, c)
			strip_nulls(c);
	}
	return v;
}

static void apply_object(json_t *dst, json_t *src, const char *type, bool top);

/* Identities ("k:..."/"v:..." elements) of a keyed list; caller decrefs. */
static json_t *list_ids(json_t *list, const struct sk__patch_meta *meta)
{
	json_t *ids = json_array(), *e;
	size_t i;

	json_array_foreach(list, i, e) {
		char *id = item_elem(e, meta);
		json_array_append_new(ids, json_string(id));
		free(id);
	}
	return ids;
}

static long id_index(json_t *ids, const char *id)
{
	json_t *e;
	size_t i;

	json_array_foreach(ids, i, e)
		if (strcmp(json_string_value(e), id) == 0)
			return (long)i;
	return -1;
}

/* The live item merged with the applied one (live may be NULL). */
static json_t *merged_item(json_t *live, json_t *applied, const struct sk__patch_meta *meta)
{
	json_t *out;

	if (!live || !meta->merge_key)
		return strip_nulls(json_deep_copy(applied));
	out = json_deep_copy(live);
	apply_object(out, applied, meta->type, false);
	return out;
}

/* Next applied item that the live list also has, from position *from. */
static const char *next_shared(json_t *rids, json_t *lids, size_t *from)
{
	while (*from < json_array_size(rids)) {
		const char *id = json_string_value(json_array_get(rids, (*from)++));
		if (id_index(lids, id) >= 0)
			return id;
	}
	return NULL;
}

/* structured-merge-diff's list merge: applied items in applied order,
 * live-only items kept where they were. Replaces dst's contents. */
static void apply_list(json_t *dst, json_t *src, const struct sk__patch_meta *meta)
{
	json_t *lids = list_ids(dst, meta), *rids = list_ids(src, meta), *out = json_array(), *done = json_object();
	size_t li = 0, ri = 0, ln = json_array_size(dst), rn = json_array_size(src), shared_at = 0;
	const char *shared = next_shared(rids, lids, &shared_at);

	while (li < ln || ri < rn) {
		const char *lid = li < ln ? json_string_value(json_array_get(lids, li)) : NULL;
		const char *rid = ri < rn ? json_string_value(json_array_get(rids, ri)) : NULL;
		bool l_in_r = lid && id_index(rids, lid) >= 0;

		if (lid && rid && strcmp(lid, rid) == 0) {
			json_array_append_new(out, merged_item(json_array_get(dst, li), json_array_get(src, ri), meta));
			json_object_set_new(done, rid, json_true());
			li++, ri++;
			shared = next_shared(rids, lids, &shared_at);
			continue;
		}
		if (lid && rid && l_in_r && shared && strcmp(shared, lid) != 0) {
			li++;
			continue;
		}
		if (lid && (!l_in_r || json_object_get(done, lid))) {
			if (!l_in_r)
				json_array_append(out, json_array_get(dst, li));
			li++;
			continue;
		}
		if (rid) {
			long at = id_index(lids, rid);
			json_array_append_new(out, merged_item(at >= 0 ? json_array_get(dst, (size_t)at) : NULL,
							       json_array_get(src, ri), meta));
			json_object_set_new(done, rid, json_true());
			ri++;
			if (shared && strcmp(shared, rid) == 0)
				shared = next_shared(rids, lids, &shared_at);
			continue;
		}
		li++; /* live item also applied, already merged */
	}
	json_array_clear(dst);
	json_array_extend(dst, out);
	json_decref(out);
	json_decref(done);
	json_decref(lids);
	json_decref(rids);
}

/* Sets the applied fields in dst: maps merge, keyed lists merge by key. */
static void apply_object(json_t *dst, json_t *src, const char *type, bool top)
{
	const char *k;
	json_t *v;

	json_object_foreach(src, k, v) {
		struct sk__patch_meta meta;
		json_t *cur = json_object_get(dst, k);
		if (json_is_null(v) || (top && strcmp(k, "status") == 0))
			continue;
		lookup(type, k, &meta);
		if (json_is_object(v) && json_is_object(cur) && !meta.atomic)
			apply_object(cur, v, meta.type, false);
		else if (keyed_list(v, &meta) && keyed_list(cur, &meta))
			apply_list(cur, v, &meta);
		else
			json_object_set_new(dst, k, strip_nulls(json_deep_copy(v)));
	}
}

static bool owned_by_others(struct managed *m, size_t mine, const char *path)
{
	for (size_t i = 0; i < m->n; i++)
		if (i != mine && set_covers(m->v[i].set, path))
			return true;
	return false;
}

/* Removes the fields the manager applied before but no longer applies. */
static void remove_dropped(json_t *obj, struct managed *m, size_t mine, json_t *newset)
{
	const char *p;
	json_t *v;

	json_object_foreach(m->v[mine].set, p, v) {
		if (set_covers(newset, p) || owned_by_others(m, mine, p))
			continue;
		delete_at(obj, p);
	}
}

static const char *last_elem(const char *path)
{
	const char *s = strrchr(path, SEPC);
	return s ? s + 1 : path;
}

/* Fields of other managers that this apply changes: [[entry, path], ...]. */
static json_t *find_conflicts(struct managed *m, long mine, json_t *newset, json_t *live, json_t *result)
{
	json_t *out = json_array(), *v;
	const char *p;

	for (size_t i = 0; live && i < m->n; i++) {
		if ((long)i == mine)
			continue;
		json_object_foreach(m->v[i].set, p, v) {
			const char *last = last_elem(p);
			json_t *lv, *nv;
			if (!json_object_get(newset, p) || has_prefix(last, "k:") || has_prefix(last, "v:"))
				continue;
			lv = value_at(live, p);
			nv = value_at(result, p);
			if (!lv || (nv && json_equal(lv, nv)))
				continue;
			json_array_append_new(out, json_pack("[Is]", (json_int_t)i, p));
		}
	}
	return out;
}

/* printManager: "name", plus subresource and "using apiVersion" for Update. */
static char *manager_string(const struct entry *e)
{
	char *s = xasprintf("\"%s\"", e->manager), *t;

	if (e->subresource) {
		t = xasprintf("%s with subresource \"%s\"", s, e->subresource);
		free(s);
		s = t;
	}
	if (strcmp(e->operation, "Update") == 0) {
		t = xasprintf("%s using %s", s, e->api_version ? e->api_version : "");
		free(s);
		s = t;
	}
	return s;
}

static int cmp_conflict(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int conflict_error(sk_error_t *err, struct managed *m, json_t *conflicts)
{
	size_t n = json_array_size(conflicts), i;
	char **lines = xmalloc(n * sizeof(char *));
	char *msg, *prev = NULL;
	json_t *c;

	if (n == 1) {
		c = json_array_get(conflicts, 0);
		cleanup_free char *who = manager_string(&m->v[json_integer_value(json_array_get(c, 0))]);
		cleanup_free char *path = path_string(json_string_value(json_array_get(c, 1)));
		free(lines);
		return sk_error_set(err, SK_ECONFLICT, "Apply failed with 1 conflict: conflict with %s: %s", who, path);
	}
	/* "manager\npath" lines sorted by manager, then grouped */
	json_array_foreach(conflicts, i, c) {
		cleanup_free char *who = manager_string(&m->v[json_integer_value(json_array_get(c, 0))]);
		cleanup_free char *path = path_string(json_string_value(json_array_get(c, 1)));
		lines[i] = xasprintf("%s\n%s", who, path);
	}
	qsort(lines, n, sizeof(char *), cmp_conflict);
	msg = xasprintf("Apply failed with %zu conflicts: ", n);
	for (i = 0; i < n; i++) {
		char *nl = strchr(lines[i], '\n'), *t;
		*nl = '\0';
		if (!prev || strcmp(prev, lines[i]) != 0)
			t = xasprintf("%s%sconflicts with %s:\n- %s", msg, i ? "\n" : "", lines[i], nl + 1);
		else
			t = xasprintf("%s\n- %s", msg, nl + 1);
		free(msg);
		msg = t;
		prev = lines[i];
	}
	sk_error_set(err, SK_ECONFLICT, "%s", msg);
	free(msg);
	for (i = 0; i < n; i++)
		free(lines[i]);
	free(lines);
	return -1;
}

/* json_equal of two objects ignoring metadata.managedFields. */
static bool same_object(json_t *a, json_t *b)
{
	json_t *ca, *cb;
	bool eq;

	if (!a || !b)
		return a == b;
	ca = json_deep_copy(a);
	cb = json_deep_copy(b);
	json_object_del(json_object_get(ca, "metadata"), "managedFields");
	json_object_del(json_object_get(cb, "metadata"), "managedFields");
	eq = json_equal(ca, cb);
	json_decref(ca);
	json_decref(cb);
	return eq;
}

static void diff_object(json_t *changed, json_t *removed, const char *path, json_t *ov, json_t *nv, const char *type);

/* An object nobody tracked yet: upstream gives all its fields to the
 * placeholder manager "before-first-apply" (operation Update), so the
 * first apply conflicts where it changes them. */
static void adopt_existing(struct managed *m, json_t *live, const char *type)
{
	json_t *empty = json_object(), *removed = json_object();
	size_t at = managed_add(m, "before-first-apply", "Update",
				json_string_value(json_object_get(live, "apiVersion")), NULL);

	diff_object(m->v[at].set, removed, "", empty, live, type);
	strip_set(m->v[at].set, NULL);
	entry_touch(&m->v[at]);
	json_decref(empty);
	json_decref(removed);
}

static json_t *apply_typed(json_t *live, json_t *applied, const char *type, const char *manager, int force,
			   sk_error_t *err)
{
	const char *api_version = json_string_value(json_object_get(applied, "apiVersion"));
	struct managed m = {0};
	json_t *result, *newset, *conflicts, *c;
	long mine;
	bool changed;
	size_t i;

	if (!json_is_object(applied))
		return sk_error_set(err, SK_EBADREQUEST, "apply patch must be an object"), NULL;
	if (managed_fields_of(applied))
		return sk_error_set(err, SK_EBADREQUEST, "metadata.managedFields must be nil"), NULL;
	if (!json_is_object(live))
		live = NULL;
	managed_load(&m, managed_fields_of(live));
	if (live && m.n == 0)
		adopt_existing(&m, live, type);
	newset = json_object();
	members_object(newset, "", applied, type);
	strip_set(newset, NULL);
	mine = managed_find(&m, manager, "Apply", NULL, NULL);
	result = live ? json_deep_copy(live) : json_object();
	if (mine >= 0)
		remove_dropped(result, &m, (size_t)mine, newset);
	apply_object(result, applied, type, true);
	conflicts = find_conflicts(&m, mine, newset, live, result);
	if (json_array_size(conflicts) && !force) {
		conflict_error(err, &m, conflicts);
		json_decref(result);
		result = NULL;
		goto out;
	}
	json_array_foreach(conflicts, i, c)
		json_object_del(m.v[json_integer_value(json_array_get(c, 0))].set,
				json_string_value(json_array_get(c, 1)));
	changed = mine < 0 || !json_equal(m.v[mine].set, newset) || !same_object(live, result);
	if (mine < 0)
		mine = (long)managed_add(&m, manager, "Apply", api_version, NULL);
	free(m.v[mine].api_version);
	m.v[mine].api_version = api_version ? xstrdup(api_version) : NULL;
	json_decref(m.v[mine].set);
	m.v[mine].set = json_incref(newset);
	if (changed || !m.v[mine].time)
		entry_touch(&m.v[mine]);
	managed_store(&m, result);
out:
	json_decref(conflicts);
	json_decref(newset);
	managed_release(&m);
	return result;
}

json_t *sk_apply(json_t *live, json_t *applied, const char *kind, const char *manager, int force, sk_error_t *err)
{
	return apply_typed(live, applied, sk__patch_kind_type(kind), manager, force, err);
}

json_t *sk_apply_schema(json_t *live, json_t *applied, json_t *schema, const char *manager, int force, sk_error_t *err)
{
	json_t *out;

	if (!json_is_object(schema))
		return apply_typed(live, applied, NULL, manager, force, err);
	crd_types = json_object();
	crd_root = schema;
	out = apply_typed(live, applied, schema_type(schema), manager, force, err);
	json_decref(crd_types);
	crd_types = NULL;
	crd_root = NULL;
	return out;
}

/* ---- updates ---- */

/* Maps (as opposed to structs): created maps are members themselves. */
static bool is_map_field(const char *field)
{
	static const char *const maps[] = {
		"labels",      "annotations", "nodeSelector", "data",        "stringData", "binaryData",
		"limits",      "requests",    "capacity",     "allocatable", "hard",       "used",
		"matchLabels", "selector",    "overhead",     "parameters",  NULL,
	};
	for (size_t i = 0; maps[i]; i++)
		if (strcmp(maps[i], field) == 0)
			return true;
	return false;
}

static void added(json_t *changed, const char *path, const char *field, json_t *v, const struct sk__patch_meta *meta);

static void added_children(json_t *changed, const char *path, json_t *obj, const char *type)
{
	const char *k;
	json_t *c;

	json_object_foreach(obj, k, c) {
		struct sk__patch_meta meta;
		cleanup_free char *p = field_path(path, k);
		if (json_is_null(c))
			continue;
		lookup(type, k, &meta);
		added(changed, p, k, c, &meta);
	}
}

/* Update semantics: a new subtree makes every node a member, except
 * intermediate structs (upstream diffs typed objects, whose structs exist
 * empty before). */
static void added(json_t *changed, const char *path, const char *field, json_t *v, const struct sk__patch_meta *meta)
{
	json_t *e;
	size_t i;

	if (json_is_object(v) && json_object_size(v) && !meta->atomic) {
		if (is_map_field(field))
			set_add(changed, path);
		added_children(changed, path, v, meta->type);
		return;
	}
	if (json_is_array(v) && json_array_size(v) && keyed_list(v, meta)) {
		json_array_foreach(v, i, e) {
			cleanup_free char *ie = item_elem(e, meta);
			cleanup_free char *p = join(path, ie);
			set_add(changed, p);
			if (meta->merge_key)
				added_children(changed, p, e, meta->type);
		}
		return;
	}
	set_add(changed, path);
}

static void diff_object(json_t *changed, json_t *removed, const char *path, json_t *ov, json_t *nv, const char *type);

/* Index of the first item of list with item's identity, or -1: what
 * find_item(list, item_elem(item)) finds, without the text round trip. */
static long find_same(json_t *list, json_t *item, const struct sk__patch_meta *meta)
{
	json_t *id = meta->merge_key ? json_object_get(item, meta->merge_key) : item, *e;
	size_t i;

	json_array_foreach(list, i, e) {
		json_t *eid = meta->merge_key ? json_object_get(e, meta->merge_key) : e;

		if (json_is_object(e) == (meta->merge_key != NULL) && eid && json_equal(eid, id) &&
		    (!meta->merge_keys || same_keys(e, item, meta)))
			return (long)i;
	}
	return -1;
}

static void diff_list(json_t *changed, json_t *removed, const char *path, json_t *ol, json_t *nl,
		      const struct sk__patch_meta *meta)
{
	json_t *e;
	size_t i;

	json_array_foreach(nl, i, e) {
		cleanup_free char *ie = item_elem(e, meta);
		cleanup_free char *p = join(path, ie);
		long at = find_same(ol, e, meta);
		if (at < 0) {
			set_add(changed, p);
			if (meta->merge_key)
				added_children(changed, p, e, meta->type);
		} else if (meta->merge_key) {
			diff_object(changed, removed, p, json_array_get(ol, (size_t)at), e, meta->type);
		}
	}
	json_array_foreach(ol, i, e) {
		if (find_same(nl, e, meta) < 0) {
			cleanup_free char *ie = item_elem(e, meta);
			cleanup_free char *p = join(path, ie);
			set_add(removed, p);
		}
	}
}

static void diff_value(json_t *changed, json_t *removed, const char *path, const char *field, json_t *ov, json_t *nv,
		       const struct sk__patch_meta *meta)
{
	if (json_is_null(ov))
		ov = NULL;
	if (json_is_null(nv))
		nv = NULL;
	if (!nv) {
		if (ov)
			set_add(removed, path);
	} else if (!ov) {
		added(changed, path, field, nv, meta);
	} else if (json_is_object(ov) && json_is_object(nv) && !meta->atomic) {
		diff_object(changed, removed, path, ov, nv, meta->type);
	} else if (keyed_list(ov, meta) && keyed_list(nv, meta)) {
		diff_list(changed, removed, path, ov, nv, meta);
	} else if (!json_equal(ov, nv)) {
		set_add(changed, path);
	}
}

static void diff_object(json_t *changed, json_t *removed, const char *path, json_t *ov, json_t *nv, const char *type)
{
	const char *k;
	json_t *v;

	json_object_foreach(nv, k, v) {
		struct sk__patch_meta meta;
		cleanup_free char *p = field_path(path, k);
		lookup(type, k, &meta);
		diff_value(changed, removed, p, k, json_object_get(ov, k), v, &meta);
	}
	json_object_foreach(ov, k, v) {
		if (!json_object_get(nv, k) && !json_is_null(v)) {
			cleanup_free char *p = field_path(path, k);
			set_add(removed, p);
		}
	}
}

/* Whether every path under the top-level field k, or under metadata's
 * field k (in_meta), is one that strip_set drops: such fields need no diff. */
static bool untracked(const char *k, bool in_meta, bool status)
{
	if (in_meta) {
		for (size_t i = 0; meta_fields[i]; i++)
			if (!strcmp(k, meta_fields[i]))
				return true;
		return false;
	}
	return status ? strncmp(k, "status", 6) != 0 : strcmp(k, "status") == 0;
}

/* diff_object for a whole object (path "") or its metadata, leaving out
 * fields whose paths strip_set drops (the status of a main-resource write,
 * all but the status of a status write, managedFields …). */
static void diff_tracked(json_t *changed, json_t *removed, const char *path, json_t *ov, json_t *nv, const char *type,
			 bool status)
{
	bool in_meta = *path != '\0';
	const char *k;
	json_t *v;

	json_object_foreach(nv, k, v) {
		struct sk__patch_meta meta;
		cleanup_free char *p = NULL;
		json_t *o;

		if (untracked(k, in_meta, status))
			continue;
		p = field_path(path, k);
		lookup(type, k, &meta);
		o = json_object_get(ov, k);
		if (!in_meta && !strcmp(k, "metadata") && json_is_object(o) && json_is_object(v) && !meta.atomic)
			diff_tracked(changed, removed, p, o, v, meta.type, status);
		else
			diff_value(changed, removed, p, k, o, v, &meta);
	}
	json_object_foreach(ov, k, v) {
		if (!untracked(k, in_meta, status) && !json_object_get(nv, k) && !json_is_null(v)) {
			cleanup_free char *p = field_path(path, k);
			set_add(removed, p);
		}
	}
}

static void update_typed(json_t *old, json_t *new_obj, const char *type, const char *manager, const char *api_version,
			 const char *subresource)
{
	json_t *mf = managed_fields_of(new_obj), *changed, *removed, *empty = json_object(), *v;
	struct managed m = {0};
	const char *p;
	long mine;

	if (!json_is_object(new_obj)) {
		json_decref(empty);
		return;
	}
	if (!json_is_object(old))
		old = NULL;
	if (!json_array_size(mf) && old)
		mf = managed_fields_of(old);
	managed_load_entries(&m, mf, true);
	changed = json_object();
	removed = json_object();
	diff_tracked(changed, removed, "", old ? old : empty, new_obj, type,
		     subresource && !strcmp(subresource, "status"));
	strip_set(changed, subresource);
	strip_set(removed, subresource);
	for (size_t i = 0; i < m.n; i++) {
		if (m.v[i].orig) {
			json_t *f = json_object_get(m.v[i].orig, "fieldsV1");

			if (!tree_touched(f, changed) && !tree_touched(f, removed))
				continue;
			entry_load(&m.v[i]);
		}
		json_object_foreach(changed, p, v)
			set_remove_under(m.v[i].set, p);
		json_object_foreach(removed, p, v)
			set_remove_under(m.v[i].set, p);
	}
	if (json_object_size(changed)) {
		mine = managed_find(&m, manager, "Update", api_version, subresource);
		if (mine < 0)
			mine = (long)managed_add(&m, manager, "Update", api_version, subresource);
		entry_load(&m.v[mine]);
		if (json_object_size(m.v[mine].set)) {
			json_object_update(m.v[mine].set, changed);
		} else { /* a new entry (a create): changed is its set */
			json_decref(m.v[mine].set);
			m.v[mine].set = json_incref(changed);
		}
		entry_touch(&m.v[mine]);
	}
	managed_store(&m, new_obj);
	json_decref(changed);
	json_decref(removed);
	json_decref(empty);
	managed_release(&m);
}

void sk_managed_fields_update(json_t *old, json_t *new_obj, const char *manager, const char *api_version,
			      const char *subresource)
{
	update_typed(old, new_obj, sk__patch_kind_type(json_string_value(json_object_get(new_obj, "kind"))), manager,
		     api_version, subresource);
}

void sk_managed_fields_update_schema(json_t *old, json_t *new_obj, json_t *schema, const char *manager,
				     const char *api_version, const char *subresource)
{
	if (!json_is_object(schema)) {
		update_typed(old, new_obj, NULL, manager, api_version, subresource);
		return;
	}
	crd_types = json_object();
	crd_root = schema;
	update_typed(old, new_obj, schema_type(schema), manager, api_version, subresource);
	json_decref(crd_types);
	crd_types = NULL;
	crd_root = NULL;
}
