/* JSON merge patch, JSON patch and strategic merge patch. The strategic
 * merge follows apimachinery's strategicpatch (mergeMap, mergeSlice,
 * mergePatchIntoOriginal) with MergeParallelList and IgnoreUnmatchedNulls,
 * as the API server runs it. */
#include <stdbool.h>
#include <string.h>

#include "api/api-int.h"
#include "api/patch.h"
#include "util/util.h"

/* ---- the merge-strategy table (patchStrategy/patchMergeKey tags) ---- */

struct field_meta {
	const char *parent; /* table type holding the field */
	const char *field;
	const char *child; /* table type of the value / list elements */
	int merge;
	const char *key;
	int atomic;
};

#define OBJ(p) \
	{ \
		p, "metadata", "ObjectMeta", 0, NULL, 0 \
	}
#define MERGE(p, f, c, k) \
	{ \
		p, f, c, 1, k, 0 \
	}
#define TYPED(p, f, c) \
	{ \
		p, f, c, 0, NULL, 0 \
	}
#define ATOMIC(p, f) \
	{ \
		p, f, NULL, 0, NULL, 1 \
	}

/* Types are named after the Go types they stand for; kinds that embed a
 * PodSpec reach it through PodTemplateSpec, so its rules live once. */
static const struct field_meta table[] = {
	MERGE("ObjectMeta", "finalizers", NULL, NULL),
	MERGE("ObjectMeta", "ownerReferences", NULL, "uid"),

	OBJ("Pod"),
	TYPED("Pod", "spec", "PodSpec"),
	TYPED("Pod", "status", "PodStatus"),
	TYPED("PodTemplateSpec", "metadata", "ObjectMeta"),
	TYPED("PodTemplateSpec", "spec", "PodSpec"),
	MERGE("PodSpec", "containers", "Container", "name"),
	MERGE("PodSpec", "initContainers", "Container", "name"),
	MERGE("PodSpec", "ephemeralContainers", "Container", "name"),
	MERGE("PodSpec", "volumes", NULL, "name"),
	MERGE("PodSpec", "imagePullSecrets", NULL, "name"),
	MERGE("PodSpec", "hostAliases", NULL, "ip"),
	MERGE("PodSpec", "topologySpreadConstraints", NULL, "topologyKey"),
	MERGE("PodSpec", "resourceClaims", NULL, "name"),
	MERGE("PodSpec", "schedulingGates", NULL, "name"),
	MERGE("Container", "ports", NULL, "containerPort"),
	MERGE("Container", "env", NULL, "name"),
	MERGE("Container", "volumeMounts", NULL, "mountPath"),
	MERGE("Container", "volumeDevices", NULL, "devicePath"),
	MERGE("PodStatus", "conditions", NULL, "type"),
	MERGE("PodStatus", "podIPs", NULL, "ip"),
	MERGE("PodStatus", "hostIPs", NULL, "ip"),
	MERGE("PodStatus", "resourceClaimStatuses", NULL, "name"),

	/* Deployment, ReplicaSet, StatefulSet, DaemonSet, Job: spec.template */
	OBJ("Workload"),
	TYPED("Workload", "spec", "WorkloadSpec"),
	TYPED("Workload", "status", "ConditionsStatus"),
	TYPED("WorkloadSpec", "template", "PodTemplateSpec"),
	ATOMIC("WorkloadSpec", "selector"),
	OBJ("CronJob"),
	TYPED("CronJob", "spec", "CronJobSpec"),
	TYPED("CronJobSpec", "jobTemplate", "JobTemplateSpec"),
	TYPED("JobTemplateSpec", "metadata", "ObjectMeta"),
	TYPED("JobTemplateSpec", "spec", "WorkloadSpec"),
	MERGE("ConditionsStatus", "conditions", NULL, "type"),

	OBJ("Node"),
	TYPED("Node", "spec", "NodeSpec"),
	TYPED("Node", "status", "NodeStatus"),
	MERGE("NodeSpec", "podCIDRs", NULL, NULL),
	MERGE("NodeStatus", "conditions", NULL, "type"),
	MERGE("NodeStatus", "addresses", NULL, "type"),

	OBJ("Service"),
	TYPED("Service", "spec", "ServiceSpec"),
	TYPED("Service", "status", "ConditionsStatus"),
	MERGE("ServiceSpec", "ports", NULL, "port"),

	/* Namespace, PersistentVolumeClaim: status.conditions by type */
	OBJ("WithConditions"),
	TYPED("WithConditions", "status", "ConditionsStatus"),

	OBJ("ServiceAccount"),
	MERGE("ServiceAccount", "secrets", NULL, "name"),

	/* Mutating/ValidatingWebhookConfiguration: webhooks and their
	 * matchConditions by name */
	OBJ("WebhookConfiguration"),
	MERGE("WebhookConfiguration", "webhooks", "Webhook", "name"),
	MERGE("Webhook", "matchConditions", NULL, "name"),
	ATOMIC("Webhook", "namespaceSelector"),
	ATOMIC("Webhook", "objectSelector"),

	/* ValidatingAdmissionPolicy: matchConditions by name, the status's
	 * conditions by type; and its Binding */
	OBJ("ValidatingAdmissionPolicy"),
	TYPED("ValidatingAdmissionPolicy", "spec", "ValidatingAdmissionPolicySpec"),
	TYPED("ValidatingAdmissionPolicy", "status", "ConditionsStatus"),
	MERGE("ValidatingAdmissionPolicySpec", "matchConditions", NULL, "name"),
	TYPED("ValidatingAdmissionPolicySpec", "matchConstraints", "MatchResources"),
	ATOMIC("MatchResources", "namespaceSelector"),
	ATOMIC("MatchResources", "objectSelector"),
	OBJ("ValidatingAdmissionPolicyBinding"),
	TYPED("ValidatingAdmissionPolicyBinding", "spec", "ValidatingAdmissionPolicyBindingSpec"),
	TYPED("ValidatingAdmissionPolicyBindingSpec", "matchResources", "MatchResources"),

	OBJ("Object"),
};

/* The kind's descriptor names its type (sk_kind_ops.patch_type). */
const char *sk__patch_kind_type(const char *kind)
{
	const sk_api_resource *r = sk__kind_builtin(kind);

	return r && r->ops ? r->ops->patch_type : NULL;
}

int sk__patch_lookup(const char *type, const char *field, struct sk__patch_meta *meta)
{
	memset(meta, 0, sizeof(*meta));
	if (!type)
		return 0;
	/* hot (every field of every write): first characters reject most rows */
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
		if (table[i].field[0] != field[0] || table[i].parent[0] != type[0] ||
		    strcmp(table[i].parent, type) != 0 || strcmp(table[i].field, field) != 0)
			continue;
		meta->type = table[i].child;
		meta->merge = table[i].merge;
		meta->merge_key = table[i].key;
		meta->atomic = table[i].atomic;
		return 1;
	}
	return 0;
}

/* ---- RFC 7386 ---- */

json_t *sk_merge_patch(json_t *target, json_t *patch)
{
	json_t *out, *v;
	const char *k;

	if (!json_is_object(patch))
		return json_deep_copy(patch);
	out = json_is_object(target) ? json_deep_copy(target) : json_object();
	json_object_foreach(patch, k, v) {
		if (json_is_null(v))
			json_object_del(out, k);
		else
			json_object_set_new(out, k, sk_merge_patch(json_object_get(out, k), v));
	}
	return out;
}

/* ---- RFC 6902 ---- */

/* A parsed JSON pointer: tokens unescaped (~1 → /, ~0 → ~). */
struct pointer {
	char **tok;
	size_t n;
};

static void pointer_release(struct pointer *p)
{
	for (size_t i = 0; i < p->n; i++)
		free(p->tok[i]);
	free(p->tok);
	p->tok = NULL;
	p->n = 0;
}

static char *unescape_token(const char *s, size_t n)
{
	char *out = xmalloc(n + 1);
	size_t o = 0;

	for (size_t i = 0; i < n; i++) {
		if (s[i] == '~' && i + 1 < n && (s[i + 1] == '0' || s[i + 1] == '1')) {
			out[o++] = s[i + 1] == '1' ? '/' : '~';
			i++;
		} else {
			out[o++] = s[i];
		}
	}
	out[o] = '\0';
	return out;
}

/* A string that is not a pointer ("", "a") parses to no tokens. */
static void pointer_parse(const char *s, struct pointer *p)
{
	memset(p, 0, sizeof(*p));
	if (*s != '/')
		return;
	while (*s == '/') {
		const char *e = strchr(s + 1, '/');
		size_t n = e ? (size_t)(e - s - 1) : strlen(s + 1);
		p->tok = xrealloc(p->tok, (p->n + 1) * sizeof(char *));
		p->tok[p->n++] = unescape_token(s + 1, n);
		s += n + 1;
	}
}

/* strconv.Atoi-like: optional sign, decimal digits, fits in a long. */
static bool parse_index(const char *s, long *out)
{
	const char *d = s;
	long v = 0;

	if (*d == '+' || *d == '-')
		d++;
	if (!*d)
		return false;
	for (; *d; d++) {
		if (*d < '0' || *d > '9' || v > 100000000L)
			return false;
		v = v * 10 + (*d - '0');
	}
	*out = *s == '-' ? -v : v;
	return true;
}

/* Resolves an array index for access (not insertion); -1 when invalid. */
static long array_index(json_t *arr, const char *tok)
{
	long i, n = (long)json_array_size(arr);

	if (!parse_index(tok, &i))
		return -1;
	if (i < 0)
		i += n;
	return i >= 0 && i < n ? i : -1;
}

static json_t *child(json_t *c, const char *tok)
{
	if (json_is_object(c))
		return json_object_get(c, tok);
	if (json_is_array(c)) {
		long i = array_index(c, tok);
		return i < 0 ? NULL : json_array_get(c, (size_t)i);
	}
	return NULL;
}

/* findObject: the container holding the pointer's last token, or NULL
 * when a step is missing or the pointer has no token (upstream's v4
 * json-patch applies no operation to the whole document). */
static json_t *parent_of(json_t *doc, const struct pointer *p)
{
	json_t *c = doc;

	if (p->n == 0)
		return NULL;
	for (size_t i = 0; c && i + 1 < p->n; i++)
		c = child(c, p->tok[i]);
	return json_is_object(c) || json_is_array(c) ? c : NULL;
}

/* Adds v (stolen) at key of container c. */
static int container_add(json_t *c, const char *key, json_t *v, const char *path, sk_error_t *err)
{
	long i, n = (long)json_array_size(c);

	if (json_is_object(c))
		return json_object_set_new(c, key, v);
	if (strcmp(key, "-") == 0)
		return json_array_append_new(c, v);
	if (!parse_index(key, &i)) {
		json_decref(v);
		return sk_error_set(err, SK_EINVALID,
				    "error in add for path: '%s': value was not a proper array index: '%s'", path, key);
	}
	if (i < 0)
		i += n + 1;
	if (i < 0 || i > n) {
		json_decref(v);
		return sk_error_set(
			err, SK_EINVALID,
			"error in add for path: '%s': Unable to access invalid index: %s: invalid index referenced",
			path, key);
	}
	return json_array_insert_new(c, (size_t)i, v);
}

/* Removes key of container c; what names the operation in messages. */
static int container_remove(json_t *c, const char *key, const char *what, const char *path, sk_error_t *err)
{
	long i;

	if (json_is_object(c)) {
		if (json_object_del(c, key) == 0)
			return 0;
		return sk_error_set(err, SK_EINVALID,
				    "error in %s for path: '%s': Unable to remove nonexistent key: %s: missing value",
				    what, path, key);
	}
	i = array_index(c, key);
	if (i < 0)
		return sk_error_set(
			err, SK_EINVALID,
			"error in %s for path: '%s': Unable to access invalid index: %s: invalid index referenced",
			what, path, key);
	return json_array_remove(c, (size_t)i);
}

static int do_add(json_t *doc, const struct pointer *p, const char *path, json_t *v, sk_error_t *err)
{
	json_t *c = parent_of(doc, p);

	if (!c) {
		json_decref(v);
		return sk_error_set(err, SK_EINVALID,
				    "add operation does not apply: doc is missing path: \"%s\": missing value", path);
	}
	return container_add(c, p->tok[p->n - 1], v, path, err);
}

static int do_remove(json_t *doc, const struct pointer *p, const char *path, sk_error_t *err)
{
	json_t *c = parent_of(doc, p);

	if (!c)
		return sk_error_set(err, SK_EINVALID,
				    "remove operation does not apply: doc is missing path: \"%s\": missing value",
				    path);
	return container_remove(c, p->tok[p->n - 1], "remove", path, err);
}

static int do_replace(json_t *doc, const struct pointer *p, const char *path, json_t *v, sk_error_t *err)
{
	json_t *c = parent_of(doc, p);
	const char *key;

	if (!c)
		return sk_error_set(err, SK_EINVALID,
				    "replace operation does not apply: doc is missing path: %s: missing value", path);
	key = p->tok[p->n - 1];
	if (!child(c, key))
		return sk_error_set(err, SK_EINVALID,
				    "replace operation does not apply: doc is missing key: %s: missing value", path);
	if (json_is_object(c))
		return json_object_set(c, key, v);
	return json_array_set(c, (size_t)array_index(c, key), v);
}

static int do_test(json_t *doc, const struct pointer *p, const char *path, json_t *v, sk_error_t *err)
{
	json_t *c = parent_of(doc, p), *cur;

	if (!c)
		return sk_error_set(err, SK_EINVALID,
				    "test operation does not apply: is missing path: %s: missing value", path);
	cur = child(c, p->tok[p->n - 1]);
	if (cur ? json_equal(cur, v) : json_is_null(v))
		return 0;
	return sk_error_set(err, SK_EINVALID, "testing value %s failed: test failed", path);
}

/* move and copy: take the value at from (removing it for move, as
 * upstream does first), then add it at path. */
static int do_transfer(json_t *doc, bool move, const struct pointer *f, const char *from, const struct pointer *p,
		       const char *path, sk_error_t *err)
{
	const char *what = move ? "move" : "copy";
	json_t *c = parent_of(doc, f), *v;

	if (!c)
		return sk_error_set(err, SK_EINVALID,
				    "%s operation does not apply: doc is missing from path: %s: missing value", what,
				    from);
	v = child(c, f->tok[f->n - 1]);
	if (!v)
		return sk_error_set(err, SK_EINVALID, "error in %s for path: '%s': missing value", what, from);
	v = move ? json_incref(v) : json_deep_copy(v);
	if (move && container_remove(c, f->tok[f->n - 1], "move", from, err) < 0) {
		json_decref(v);
		return -1;
	}
	c = parent_of(doc, p);
	if (!c) {
		json_decref(v);
		return sk_error_set(err, SK_EINVALID,
				    "%s operation does not apply: doc is missing destination path: %s: missing value",
				    what, path);
	}
	return container_add(c, p->tok[p->n - 1], v, path, err);
}

static bool known_op(const char *kind)
{
	static const char *const ops[] = {"add", "remove", "replace", "test", "move", "copy", NULL};

	for (size_t i = 0; ops[i]; i++)
		if (strcmp(ops[i], kind) == 0)
			return true;
	return false;
}

static int apply_op(json_t *doc, json_t *op, sk_error_t *err)
{
	const char *kind = json_string_value(json_object_get(op, "op"));
	const char *path = json_string_value(json_object_get(op, "path"));
	const char *from = json_string_value(json_object_get(op, "from"));
	json_t *value = json_object_get(op, "value");
	struct pointer p = {0}, f = {0};
	int rc;

	if (!kind)
		kind = "unknown";
	if (!value)
		value = json_null();
	if (!known_op(kind))
		return sk_error_set(err, SK_EINVALID, "Unexpected kind: %s", kind);
	if (!path)
		return sk_error_set(err, SK_EINVALID, "%s operation failed to decode path: missing value", kind);
	pointer_parse(path, &p);
	if (!strcmp(kind, "add")) {
		rc = do_add(doc, &p, path, json_deep_copy(value), err);
	} else if (!strcmp(kind, "remove")) {
		rc = do_remove(doc, &p, path, err);
	} else if (!strcmp(kind, "replace")) {
		json_t *v = json_deep_copy(value);
		rc = do_replace(doc, &p, path, v, err);
		json_decref(v);
	} else if (!strcmp(kind, "test")) {
		rc = do_test(doc, &p, path, value, err);
	} else if (!from) {
		rc = sk_error_set(err, SK_EINVALID, "%s operation failed to decode from: missing value", kind);
	} else {
		pointer_parse(from, &f);
		rc = do_transfer(doc, kind[0] == 'm', &f, from, &p, path, err);
	}
	pointer_release(&p);
	pointer_release(&f);
	return rc;
}

json_t *sk_json_patch(json_t *doc, json_t *ops, sk_error_t *err)
{
	json_t *out, *op;
	size_t i;

	if (!json_is_array(ops))
		return sk_error_set(err, SK_EBADREQUEST,
				    "json: cannot unmarshal %s into Go value of type jsonpatch.Patch",
				    json_is_object(ops) ? "object" : "value"),
		       NULL;
	if (json_array_size(ops) > SK_JSON_PATCH_MAX_OPS)
		return sk_error_set(err, SK_ETOOLARGE, "The allowed maximum operations in a JSON patch is %d, got %zu",
				    SK_JSON_PATCH_MAX_OPS, json_array_size(ops)),
		       NULL;
	json_array_foreach(ops, i, op)
		if (!json_is_object(op))
			return sk_error_set(err, SK_EBADREQUEST,
					    "json: cannot unmarshal value into Go value of type jsonpatch.Operation"),
			       NULL;
	out = json_deep_copy(doc);
	json_array_foreach(ops, i, op) {
		if (apply_op(out, op, err) < 0) {
			if (err && !err->code)
				sk_error_set(err, SK_EINVALID, "operation %zu could not be applied", i);
			json_decref(out);
			return NULL;
		}
	}
	return out;
}

/* ---- strategic merge patch ---- */

#define DIRECTIVE "$patch"
#define RETAIN_KEYS "$retainKeys"
#define SET_ORDER "$setElementOrder/"
#define DELETE_PRIM "$deleteFromPrimitiveList/"

static bool has_prefix(const char *s, const char *p) { return strncmp(s, p, strlen(p)) == 0; }

/* Compact JSON text for messages; malloc'd. */
static char *dump(json_t *v)
{
	char *s = json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
	return s ? s : xstrdup("?");
}

static int bad_patch_type(sk_error_t *err, json_t *directive, json_t *map)
{
	cleanup_free char *m = dump(map);
	const char *d = json_string_value(directive);

	if (!d) {
		cleanup_free char *ds = dump(directive);
		return sk_error_set(err, SK_EBADREQUEST, "unknown patch type: %s in map: %s", ds, m);
	}
	return sk_error_set(err, SK_EBADREQUEST, "unknown patch type: %s in map: %s", d, m);
}

static json_t *merge_map(json_t *orig, json_t *patch, const char *type, sk_error_t *err);
static json_t *merge_list(json_t *orig, json_t *patch, const char *type, const struct sk__patch_meta *meta,
			  sk_error_t *err);

/* A patch value taken where the original has nothing (or another type):
 * directives are resolved and nulls dropped by merging into an empty value. */
static json_t *fresh(json_t *v, const char *type, const struct sk__patch_meta *meta, sk_error_t *err)
{
	if (json_is_object(v))
		return merge_map(json_object(), v, meta->type, err);
	if (json_is_array(v) && meta->merge)
		return merge_list(json_array(), v, type, meta, err);
	return json_deep_copy(v);
}

/* Identity of a list element for ordering: the merge key value of a map,
 * the element itself otherwise. */
static json_t *identity(json_t *elem, const char *key)
{
	return key && json_is_object(elem) ? json_object_get(elem, key) : elem;
}

static long index_in(json_t *list, json_t *elem, const char *key)
{
	json_t *id = identity(elem, key), *e;
	size_t i;

	if (!id)
		return -1;
	json_array_foreach(list, i, e) {
		json_t *eid = identity(e, key);
		if (eid && json_equal(eid, id))
			return (long)i;
	}
	return -1;
}

/* normalizeSliceOrder: stable insertion sort of items by position in order. */
static void sort_by_order(json_t *items, json_t *order, const char *key)
{
	size_t n = json_array_size(items);

	for (size_t i = 1; i < n; i++) {
		for (size_t j = i; j > 0; j--) {
			long a = index_in(order, json_array_get(items, j - 1), key);
			long b = index_in(order, json_array_get(items, j), key);
			json_t *t;
			if (a < 0 || b < 0 || a <= b)
				break;
			t = json_incref(json_array_get(items, j - 1));
			json_array_set(items, j - 1, json_array_get(items, j));
			json_array_set_new(items, j, t);
		}
	}
}

/* mergeSortedSlice: interleaves server-only items (left) into patch items
 * (right) by their positions in the server's order. Steals both. */
static json_t *merge_sorted(json_t *left, json_t *right, json_t *server, const char *key)
{
	json_t *out = json_array();
	size_t i = 0, j = 0, nl = json_array_size(left), nr = json_array_size(right);

	while (i < nl || j < nr) {
		bool take_left;
		if (i >= nl) {
			take_left = false;
		} else if (j >= nr) {
			take_left = true;
		} else {
			long li = index_in(server, json_array_get(left, i), key);
			long ri = index_in(server, json_array_get(right, j), key);
			take_left = li >= 0 && ri >= 0 && li < ri;
		}
		if (take_left)
			json_array_append(out, json_array_get(left, i++));
		else
			json_array_append(out, json_array_get(right, j++));
	}
	json_decref(left);
	json_decref(right);
	return out;
}

/* Orders merged (stolen): items named in order first by that order,
 * interleaved with the others by the server's order. */
static json_t *normalize_order(json_t *merged, json_t *order, json_t *server, const char *key)
{
	json_t *in = json_array(), *rest = json_array(), *e;
	size_t i;

	json_array_foreach(merged, i, e)
		json_array_append(index_in(order, e, key) >= 0 ? in : rest, e);
	json_decref(merged);
	sort_by_order(in, order, key);
	sort_by_order(rest, server, key);
	return merge_sorted(rest, in, server, key);
}

/* Elements must all be maps or all non-maps; lists of lists are refused. */
static int element_kind(json_t *a, json_t *b, sk_error_t *err)
{
	json_t *lists[2] = {a, b}, *e;
	int kind = -1;
	size_t i;

	for (int l = 0; l < 2; l++) {
		json_array_foreach(lists[l], i, e) {
			int k = json_is_object(e) ? 1 : 0;
			if (json_is_array(e))
				return sk_error_set(err, SK_EBADREQUEST, "lists of lists are not supported");
			if (kind >= 0 && k != kind)
				return sk_error_set(err, SK_EBADREQUEST,
						    "list elements have mismatched types: maps and scalars");
			kind = k;
		}
	}
	return kind < 0 ? 0 : kind;
}

static void delete_matching(json_t *list, const char *key, json_t *value)
{
	for (size_t i = json_array_size(list); i > 0; i--) {
		json_t *v = json_object_get(json_array_get(list, i - 1), key);
		if (v && json_equal(v, value))
			json_array_remove(list, i - 1);
	}
}

/* mergeSliceWithSpecialElements: applies $patch elements to orig; returns
 * the remaining patch elements (new ref), or NULL on error. */
static json_t *special_elements(json_t **orig, json_t *patch, const char *key, sk_error_t *err)
{
	json_t *rest = json_array(), *e;
	bool replace = false;
	size_t i;

	json_array_foreach(patch, i, e) {
		json_t *d = json_object_get(e, DIRECTIVE);
		const char *ds = json_string_value(d);
		if (!d) {
			json_array_append(rest, e);
		} else if (ds && strcmp(ds, "delete") == 0) {
			json_t *v = json_object_get(e, key);
			if (!v) {
				cleanup_free char *m = dump(e);
				json_decref(rest);
				return sk_error_set(err, SK_EBADREQUEST,
						    "map: %s does not contain declared merge key: %s", m, key),
				       NULL;
			}
			delete_matching(*orig, key, v);
		} else if (ds && strcmp(ds, "replace") == 0) {
			replace = true;
		} else if (ds && strcmp(ds, "merge") == 0) {
			json_decref(rest);
			return sk_error_set(err, SK_EBADREQUEST, "merging lists cannot yet be specified in the patch"),
			       NULL;
		} else {
			json_decref(rest);
			return bad_patch_type(err, d, e), NULL;
		}
	}
	if (replace)
		json_array_clear(*orig);
	return rest;
}

/* Merges maps of patch into orig by merge key (both owned by caller). */
static int merge_by_key(json_t *orig, json_t *patch, const char *type, const char *key, sk_error_t *err)
{
	struct sk__patch_meta elem = {.type = type};
	json_t *e;
	size_t i;

	json_array_foreach(patch, i, e) {
		json_t *v = json_object_get(e, key), *m;
		long at;
		if (!v) {
			cleanup_free char *s = dump(e);
			return sk_error_set(err, SK_EBADREQUEST, "map: %s does not contain declared merge key: %s", s,
					    key);
		}
		at = index_in(orig, e, key);
		if (at >= 0)
			m = merge_map(json_incref(json_array_get(orig, (size_t)at)), e, type, err);
		else
			m = fresh(e, type, &elem, err);
		if (!m)
			return -1;
		if (at >= 0)
			json_array_set_new(orig, (size_t)at, m);
		else
			json_array_append_new(orig, m);
	}
	return 0;
}

static void append_unique(json_t *out, json_t *v)
{
	json_t *e;
	size_t i;

	json_array_foreach(out, i, e)
		if (json_equal(e, v))
			return;
	json_array_append(out, v);
}

/* mergeSlice for a merge-strategy list. Steals orig, borrows patch. */
static json_t *merge_list(json_t *orig, json_t *patch, const char *type, const struct sk__patch_meta *meta,
			  sk_error_t *err)
{
	json_t *server, *merged, *rest, *e;
	const char *key = meta->merge_key;
	int kind;
	size_t i;

	if (json_array_size(orig) == 0 && json_array_size(patch) == 0)
		return orig;
	kind = element_kind(orig, patch, err);
	if (kind < 0)
		goto fail;
	server = json_copy(orig);
	if (kind == 0) {
		merged = json_array();
		json_array_foreach(orig, i, e)
			append_unique(merged, e);
		json_array_foreach(patch, i, e)
			append_unique(merged, e);
		json_decref(orig);
		key = NULL;
	} else {
		if (!key) {
			json_decref(server);
			sk_error_set(err, SK_EBADREQUEST, "cannot merge lists without merge key for %s",
				     type ? type : "unknown type");
			goto fail;
		}
		merged = orig;
		rest = special_elements(&merged, patch, key, err);
		if (!rest || merge_by_key(merged, rest, meta->type, key, err) < 0) {
			json_decref(rest);
			json_decref(server);
			json_decref(merged);
			return NULL;
		}
		json_decref(rest);
	}
	merged = normalize_order(merged, patch, server, key);
	json_decref(server);
	return merged;
fail:
	json_decref(orig);
	return NULL;
}

/* applyRetainKeysDirective: drops keys of orig not listed. */
static int retain_keys(json_t *orig, json_t *patch, sk_error_t *err)
{
	json_t *keys = json_object_get(patch, RETAIN_KEYS), *v, *e;
	const char *k;
	void *tmp;
	size_t i;

	if (!keys)
		return 0;
	if (!json_is_array(keys))
		return sk_error_set(err, SK_EBADREQUEST, "invalid patch format of retainKeys");
	json_object_foreach(patch, k, v) {
		bool found = false;
		if (json_is_null(v) || k[0] == '$')
			continue;
		json_array_foreach(keys, i, e)
			if (json_is_string(e) && strcmp(json_string_value(e), k) == 0)
				found = true;
		if (!found)
			return sk_error_set(err, SK_EBADREQUEST, "invalid patch format of retainKeys");
	}
	json_object_foreach_safe(orig, tmp, k, v) {
		bool found = false;
		json_array_foreach(keys, i, e)
			if (json_is_string(e) && strcmp(json_string_value(e), k) == 0)
				found = true;
		if (!found)
			json_object_del(orig, k);
	}
	return 0;
}

/* validatePatchWithSetOrderList: the patch list's items (deletions and
 * other directives aside) appear in the order list, in the same order. */
static int check_order(json_t *patch_list, json_t *order, const char *key, sk_error_t *err)
{
	size_t pi = 0, oi = 0, np = json_array_size(patch_list), no = json_array_size(order);

	while (pi < np && oi < no) {
		json_t *pe = json_array_get(patch_list, pi);
		if (json_is_object(pe) && json_object_get(pe, DIRECTIVE)) {
			pi++;
			continue;
		}
		if (index_in(order, pe, key) == (long)oi)
			pi++;
		oi++;
	}
	while (pi < np && json_is_object(json_array_get(patch_list, pi)) &&
	       json_object_get(json_array_get(patch_list, pi), DIRECTIVE))
		pi++;
	if (pi < np) {
		cleanup_free char *ps = dump(patch_list);
		cleanup_free char *os = dump(order);
		return sk_error_set(err, SK_EBADREQUEST,
				    "The order in patch list:\n%s\n doesn't match " SET_ORDER " list:\n%s\n", ps, os);
	}
	return 0;
}

/* mergePatchIntoOriginal for one $setElementOrder/<field> directive: merges
 * the field's patch list and orders the result. */
static int set_element_order(json_t *orig, json_t *patch, const char *type, const char *field, json_t *order,
			     sk_error_t *err)
{
	json_t *ol = json_object_get(orig, field), *pl = json_object_get(patch, field), *merged, *server, *e;
	struct sk__patch_meta meta;
	size_t i;

	if (!json_is_array(order))
		return sk_error_set(err, SK_EBADREQUEST, "invalid patch format of setElementOrder list");
	if ((ol && !json_is_array(ol)) || (pl && !json_is_array(pl)))
		return sk_error_set(err, SK_EBADREQUEST, "invalid patch format of setElementOrder list");
	if (!ol && !pl)
		return 0;
	sk__patch_lookup(type, field, &meta);
	if (meta.merge_key) {
		json_array_foreach(order, i, e)
			if (!json_object_get(e, meta.merge_key)) {
				cleanup_free char *s = dump(e);
				return sk_error_set(err, SK_EBADREQUEST,
						    "map: %s does not contain declared merge key: %s", s,
						    meta.merge_key);
			}
	}
	if (pl && check_order(pl, order, meta.merge_key, err) < 0)
		return -1;
	server = ol ? json_copy(ol) : json_array();
	if (!pl)
		merged = json_incref(ol);
	else if (!ol)
		merged = fresh(pl, type, &meta, err);
	else if (meta.merge)
		merged = merge_list(json_incref(ol), pl, type, &meta, err);
	else
		merged = json_deep_copy(pl);
	if (!merged) {
		json_decref(server);
		return -1;
	}
	merged = normalize_order(merged, order, server,
				 json_array_size(merged) && json_is_object(json_array_get(merged, 0)) ? meta.merge_key
												      : NULL);
	json_decref(server);
	json_object_set_new(orig, field, merged);
	return 0;
}

/* $deleteFromPrimitiveList/<field>: removes the listed values. */
static int delete_from_list(json_t *orig, const char *field, json_t *values, sk_error_t *err)
{
	json_t *list = json_object_get(orig, field), *v;
	size_t i;

	if (!json_is_array(values))
		return sk_error_set(err, SK_EBADREQUEST, "invalid patch format of primitive list");
	if (!json_is_array(list))
		return 0;
	json_array_foreach(values, i, v) {
		for (size_t j = json_array_size(list); j > 0; j--)
			if (json_equal(json_array_get(list, j - 1), v))
				json_array_remove(list, j - 1);
	}
	return 0;
}

/* Merges one key of the patch into orig (owned, modified). */
static int merge_key(json_t *orig, const char *k, json_t *pv, const char *type, sk_error_t *err)
{
	json_t *ov = json_object_get(orig, k), *nv;
	struct sk__patch_meta meta;

	if (json_is_null(pv)) {
		json_object_del(orig, k);
		return 0;
	}
	sk__patch_lookup(type, k, &meta);
	if (!ov || json_typeof(ov) != json_typeof(pv))
		nv = fresh(pv, type, &meta, err);
	else if (json_is_object(pv))
		nv = merge_map(json_incref(ov), pv, meta.type, err);
	else if (json_is_array(pv) && meta.merge)
		nv = merge_list(json_incref(ov), pv, type, &meta, err);
	else
		nv = json_deep_copy(pv);
	if (!nv)
		return -1;
	json_object_set_new(orig, k, nv);
	return 0;
}

static bool ordered_field(json_t *patch, const char *k)
{
	cleanup_free char *name = xasprintf(SET_ORDER "%s", k);
	return json_object_get(patch, name) != NULL;
}

/* mergeMap. Steals orig (an object this patch may modify in place: the
 * caller deep-copied the original once), borrows patch. Returns the merged
 * object or NULL. */
static json_t *merge_map(json_t *orig, json_t *patch, const char *type, sk_error_t *err)
{
	json_t *d = json_object_get(patch, DIRECTIVE), *v, *out;
	const char *k;

	out = orig;
	if (d) {
		const char *ds = json_string_value(d);
		json_t *rest;
		if (ds && strcmp(ds, "delete") == 0) {
			json_decref(out);
			return json_object();
		}
		if (!ds || strcmp(ds, "replace") != 0) {
			json_decref(out);
			return bad_patch_type(err, d, patch), NULL;
		}
		json_decref(out);
		rest = json_copy(patch);
		json_object_del(rest, DIRECTIVE);
		out = merge_map(json_object(), rest, type, err);
		json_decref(rest);
		return out;
	}
	if (retain_keys(out, patch, err) < 0)
		goto fail;
	json_object_foreach(patch, k, v) {
		if (has_prefix(k, SET_ORDER) && set_element_order(out, patch, type, k + strlen(SET_ORDER), v, err) < 0)
			goto fail;
	}
	json_object_foreach(patch, k, v) {
		if (strcmp(k, RETAIN_KEYS) == 0 || has_prefix(k, SET_ORDER) || ordered_field(patch, k))
			continue;
		if (has_prefix(k, DELETE_PRIM)) {
			if (delete_from_list(out, k + strlen(DELETE_PRIM), v, err) < 0)
				goto fail;
			continue;
		}
		if (merge_key(out, k, v, type, err) < 0)
			goto fail;
	}
	return out;
fail:
	json_decref(out);
	return NULL;
}

json_t *sk_strategic_merge_patch(json_t *original, json_t *patch, const char *kind, sk_error_t *err)
{
	if (!json_is_object(patch))
		return sk_error_set(err, SK_EBADREQUEST, "invalid JSON document: patch must be an object"), NULL;
	if (!json_is_object(original))
		return sk_error_set(err, SK_EBADREQUEST, "invalid JSON document: original must be an object"), NULL;
	return merge_map(json_deep_copy(original), patch, sk__patch_kind_type(kind), err);
}
