#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "api/apply.h"
#include "util/util.h"

static json_t *J(const char *s)
{
	json_error_t e;
	json_t *j = json_loads(s, 0, &e);
	if (!j)
		fail_msg("bad test json %s: %s", s, e.text);
	return j;
}

/* Checks the value at a '/'-separated path (array elements by index). */
static void assert_at(json_t *obj, const char *path, const char *want)
{
	json_t *cur = obj;

	while (cur && *path) {
		const char *slash = strchr(path, '/');
		size_t n = slash ? (size_t)(slash - path) : strlen(path);
		char *tok = strndup(path, n);
		if (json_is_array(cur))
			cur = json_array_get(cur, (size_t)atoi(tok));
		else
			cur = json_object_get(cur, tok);
		free(tok);
		path += n + (slash ? 1 : 0);
	}
	if (!want) {
		if (cur)
			fail_msg("%s present", path);
		return;
	}
	{
		json_t *w = json_loads(want, JSON_DECODE_ANY, NULL);
		if (!cur || !w || !json_equal(cur, w)) {
			char *g = cur ? json_dumps(cur, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;
			fail_msg("got %s want %s", g ? g : "nothing", want);
		}
		json_decref(w);
	}
}

/* The manager's entry in obj.metadata.managedFields, or NULL. */
static json_t *entry(json_t *obj, const char *manager, const char *op)
{
	json_t *e;
	size_t i;

	json_array_foreach(json_object_get(json_object_get(obj, "metadata"), "managedFields"), i, e)
		if (!strcmp(json_string_value(json_object_get(e, "manager")), manager) &&
		    !strcmp(json_string_value(json_object_get(e, "operation")), op))
			return e;
	return NULL;
}

#define DEPLOY(replicas, image, extra) \
	"{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":{\"name\":\"d\",\"namespace\":\"ns\"," \
	"\"labels\":{\"app\":\"web\"" extra "}},\"spec\":{\"replicas\":" replicas ",\"selector\":{\"matchLabels\":{\"app\":\"web\"}}," \
	"\"template\":{\"metadata\":{\"labels\":{\"app\":\"web\"}},\"spec\":{\"containers\":[{\"name\":\"nginx\",\"image\":\"" image "\"}]}}}}"

static json_t *apply(json_t *live, const char *applied, const char *manager, int force, sk_error_t *err)
{
	json_t *a = J(applied), *a0 = json_deep_copy(a);
	json_t *l0 = live ? json_deep_copy(live) : NULL;
	json_t *r = sk_apply(live, a, "Deployment", manager, force, err);

	assert_true(json_equal(a, a0));
	if (live)
		assert_true(json_equal(live, l0));
	json_decref(a);
	json_decref(a0);
	json_decref(l0);
	return r;
}

static void test_apply_create(void **state)
{
	sk_error_t err = {0};
	json_t *obj = apply(NULL, DEPLOY("2", "nginx:1", ""), "kubectl", 0, &err), *e, *want;

	assert_non_null(obj);
	assert_at(obj, "spec/replicas", "2");
	assert_at(obj, "metadata/name", "\"d\"");
	e = entry(obj, "kubectl", "Apply");
	assert_non_null(e);
	assert_at(e, "apiVersion", "\"apps/v1\"");
	assert_at(e, "fieldsType", "\"FieldsV1\"");
	assert_non_null(json_object_get(e, "time"));
	want = J("{\"f:metadata\":{\"f:labels\":{\"f:app\":{}}},\"f:spec\":{\"f:replicas\":{},\"f:selector\":{},"
		 "\"f:template\":{\"f:metadata\":{\"f:labels\":{\"f:app\":{}}},\"f:spec\":{\"f:containers\":"
		 "{\"k:{\\\"name\\\":\\\"nginx\\\"}\":{\".\":{},\"f:image\":{},\"f:name\":{}}}}}}}");
	if (!json_equal(json_object_get(e, "fieldsV1"), want)) {
		char *s = json_dumps(json_object_get(e, "fieldsV1"), JSON_COMPACT);
		fail_msg("fieldsV1 %s", s);
	}
	json_decref(want);
	json_decref(obj);
}

static void test_apply_change_and_reapply(void **state)
{
	sk_error_t err = {0};
	json_t *v1 = apply(NULL, DEPLOY("2", "nginx:1", ",\"tier\":\"fe\""), "kubectl", 0, &err);
	json_t *v2, *v3;
	const char *t2;

	/* change a field, drop a label: the label goes away */
	v2 = apply(v1, DEPLOY("3", "nginx:2", ""), "kubectl", 0, &err);
	assert_non_null(v2);
	assert_at(v2, "spec/replicas", "3");
	assert_at(v2, "spec/template/spec/containers/0/image", "\"nginx:2\"");
	assert_at(v2, "metadata/labels/tier", NULL);
	assert_at(v2, "metadata/labels/app", "\"web\"");
	assert_int_equal(json_array_size(json_object_get(json_object_get(v2, "metadata"), "managedFields")), 1);
	/* re-apply unchanged: same object, same time */
	t2 = json_string_value(json_object_get(entry(v2, "kubectl", "Apply"), "time"));
	v3 = apply(v2, DEPLOY("3", "nginx:2", ""), "kubectl", 0, &err);
	assert_non_null(v3);
	assert_true(json_equal(v2, v3));
	assert_string_equal(json_string_value(json_object_get(entry(v3, "kubectl", "Apply"), "time")), t2);
	json_decref(v1);
	json_decref(v2);
	json_decref(v3);
}

static void test_apply_remove_container_field(void **state)
{
	sk_error_t err = {0};
	const char *with = "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\"},\"spec\":{\"containers\":["
			   "{\"name\":\"a\",\"image\":\"x\",\"args\":[\"1\"]},{\"name\":\"b\",\"image\":\"y\"}]}}";
	const char *without = "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\"},\"spec\":{\"containers\":["
			      "{\"name\":\"a\",\"image\":\"x\"}]}}";
	json_t *a = J(with), *b = J(without);
	json_t *v1 = sk_apply(NULL, a, "Pod", "m", 0, &err);
	json_t *v2 = sk_apply(v1, b, "Pod", "m", 0, &err);

	assert_non_null(v2);
	assert_int_equal(json_array_size(json_object_get(json_object_get(v2, "spec"), "containers")), 1);
	assert_at(v2, "spec/containers/0/args", NULL);
	assert_at(v2, "spec/containers/0/image", "\"x\"");
	json_decref(a);
	json_decref(b);
	json_decref(v1);
	json_decref(v2);
}

static const char *container_names(json_t *obj, char *buf, size_t len)
{
	json_t *c;
	size_t i, o = 0;

	buf[0] = '\0';
	json_array_foreach(json_object_get(json_object_get(obj, "spec"), "containers"), i, c)
		o += (size_t)snprintf(buf + o, len - o, "%s", json_string_value(json_object_get(c, "name")));
	return buf;
}

static void test_apply_list_order(void **state)
{
	sk_error_t err = {0};
	char buf[64];
	json_t *a = J("{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\"},\"spec\":{\"containers\":["
		      "{\"name\":\"a\"},{\"name\":\"b\"}]}}");
	json_t *b = J("{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\"},\"spec\":{\"containers\":["
		      "{\"name\":\"x\"}]}}");
	json_t *c = J("{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\"},\"spec\":{\"containers\":["
		      "{\"name\":\"b\",\"image\":\"i\"},{\"name\":\"a\"},{\"name\":\"c\"}]}}");
	json_t *v1 = sk_apply(NULL, a, "Pod", "m", 0, &err);
	json_t *v2 = sk_apply(v1, b, "Pod", "other", 0, &err);
	json_t *v3 = sk_apply(v2, c, "Pod", "m", 0, &err);

	assert_string_equal(container_names(v2, buf, sizeof(buf)), "abx");
	/* applied items keep applied order; live-only items are interleaved where
	 * the merge walk meets them (structured-merge-diff visitListItems) */
	assert_string_equal(container_names(v3, buf, sizeof(buf)), "bxac");
	assert_at(v3, "spec/containers/0/image", "\"i\"");
	json_decref(a);
	json_decref(b);
	json_decref(c);
	json_decref(v1);
	json_decref(v2);
	json_decref(v3);
}

static void test_apply_conflict(void **state)
{
	sk_error_t err = {0};
	json_t *created = J(DEPLOY("1", "nginx:1", "")), *obj, *forced;

	/* client-side apply created it: an Update entry owns everything */
	sk_managed_fields_update(NULL, created, "kubectl-client-side-apply", "apps/v1", NULL);
	assert_non_null(entry(created, "kubectl-client-side-apply", "Update"));
	assert_at(entry(created, "kubectl-client-side-apply", "Update"),
		  "fieldsV1/f:spec/f:replicas", "{}");

	/* same values: no conflict, shared ownership */
	obj = apply(created, DEPLOY("1", "nginx:1", ""), "kubectl", 0, &err);
	assert_non_null(obj);
	json_decref(obj);

	/* a changed value owned by someone else */
	obj = apply(created, DEPLOY("5", "nginx:1", ""), "kubectl", 0, &err);
	assert_null(obj);
	assert_int_equal(err.code, SK_ECONFLICT);
	assert_string_equal(err.msg, "Apply failed with 1 conflict: conflict with \"kubectl-client-side-apply\" using apps/v1: .spec.replicas");

	obj = apply(created, DEPLOY("5", "nginx:2", ""), "kubectl", 0, &err);
	assert_null(obj);
	assert_string_equal(err.msg, "Apply failed with 2 conflicts: conflicts with \"kubectl-client-side-apply\" using apps/v1:\n"
			    "- .spec.replicas\n- .spec.template.spec.containers[name=\"nginx\"].image");

	/* force takes the fields over */
	forced = apply(created, DEPLOY("5", "nginx:1", ""), "kubectl", 1, &err);
	assert_non_null(forced);
	assert_at(forced, "spec/replicas", "5");
	assert_at(entry(forced, "kubectl-client-side-apply", "Update"), "fieldsV1/f:spec/f:replicas", NULL);
	assert_at(entry(forced, "kubectl", "Apply"), "fieldsV1/f:spec/f:replicas", "{}");
	json_decref(forced);

	/* another applier owning the field conflicts without "using" */
	obj = apply(NULL, DEPLOY("1", "nginx:1", ""), "a", 0, &err);
	forced = apply(obj, DEPLOY("2", "nginx:1", ""), "b", 0, &err);
	assert_null(forced);
	assert_string_equal(err.msg, "Apply failed with 1 conflict: conflict with \"a\": .spec.replicas");
	json_decref(obj);
	json_decref(created);
}

static void test_apply_keeps_shared_fields(void **state)
{
	sk_error_t err = {0};
	json_t *v1 = apply(NULL, DEPLOY("1", "nginx:1", ",\"x\":\"1\""), "a", 0, &err);
	json_t *v2 = apply(v1, DEPLOY("1", "nginx:1", ",\"x\":\"1\""), "b", 0, &err);
	json_t *v3 = apply(v2, DEPLOY("1", "nginx:1", ""), "a", 0, &err);

	/* b still applies label x, so a dropping it keeps it */
	assert_non_null(v3);
	assert_at(v3, "metadata/labels/x", "\"1\"");
	assert_null(apply(v3, "[]", "a", 0, &err));
	assert_int_equal(err.code, SK_EBADREQUEST);
	json_decref(v1);
	json_decref(v2);
	json_decref(v3);
}

static void test_apply_before_first_apply(void **state)
{
	sk_error_t err = {0};
	json_t *untracked = J(DEPLOY("1", "nginx:1", ",\"extra\":\"x\""));
	json_t *obj = apply(untracked, DEPLOY("1", "nginx:1", ""), "kubectl", 0, &err);

	/* same values: shared; the fields nobody applied stay with the placeholder */
	assert_non_null(obj);
	assert_at(entry(obj, "before-first-apply", "Update"), "fieldsV1/f:metadata/f:labels/f:extra", "{}");
	assert_at(obj, "metadata/labels/extra", "\"x\"");
	json_decref(obj);
	obj = apply(untracked, DEPLOY("4", "nginx:1", ""), "kubectl", 0, &err);
	assert_null(obj);
	assert_string_equal(err.msg, "Apply failed with 1 conflict: conflict with \"before-first-apply\" using apps/v1: .spec.replicas");
	json_decref(untracked);
}

/* A custom kind: list and map types from the CRD's openAPIV3Schema. */
#define CR_SCHEMA \
	"{\"type\":\"object\",\"properties\":{\"spec\":{\"type\":\"object\",\"properties\":{" \
	"\"items\":{\"type\":\"array\",\"x-kubernetes-list-type\":\"map\",\"x-kubernetes-list-map-keys\":[\"name\"]," \
	"\"items\":{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"},\"value\":{\"type\":\"string\"}}}}," \
	"\"tags\":{\"type\":\"array\",\"x-kubernetes-list-type\":\"set\",\"items\":{\"type\":\"string\"}}," \
	"\"args\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}}," \
	"\"ports\":{\"type\":\"array\",\"x-kubernetes-list-type\":\"map\"," \
	"\"x-kubernetes-list-map-keys\":[\"protocol\",\"port\"],\"items\":{\"type\":\"object\"}}," \
	"\"box\":{\"type\":\"object\",\"x-kubernetes-map-type\":\"atomic\"}}}}}"
#define CR(spec) "{\"apiVersion\":\"x.test/v1\",\"kind\":\"W\",\"metadata\":{\"name\":\"w\"},\"spec\":" spec "}"

static json_t *apply_cr(json_t *live, const char *applied, const char *manager, int force, sk_error_t *err)
{
	json_t *schema = J(CR_SCHEMA), *a = J(applied);
	json_t *r = sk_apply_schema(live, a, schema, manager, force, err);

	json_decref(a);
	json_decref(schema);
	return r;
}

static void test_apply_schema_list_types(void **state)
{
	sk_error_t err = {0};
	json_t *a, *b, *c;

	(void)state;
	a = apply_cr(NULL, CR("{\"items\":[{\"name\":\"a\",\"value\":\"1\"}],\"tags\":[\"x\"],\"args\":[\"p\"],\"box\":{\"k\":\"1\"}}"),
		     "alice", 0, &err);
	assert_non_null(a);
	assert_at(entry(a, "alice", "Apply"), "fieldsV1/f:spec/f:items/k:{\"name\":\"a\"}/f:value", "{}");
	assert_at(entry(a, "alice", "Apply"), "fieldsV1/f:spec/f:tags/v:\"x\"", "{}");
	assert_at(entry(a, "alice", "Apply"), "fieldsV1/f:spec/f:args", "{}");
	assert_at(entry(a, "alice", "Apply"), "fieldsV1/f:spec/f:box", "{}");

	/* another item and tag: merged, owned separately */
	b = apply_cr(a, CR("{\"items\":[{\"name\":\"b\",\"value\":\"2\"}],\"tags\":[\"y\"]}"), "bob", 0, &err);
	assert_non_null(b);
	assert_at(b, "spec/items", "[{\"name\":\"a\",\"value\":\"1\"},{\"name\":\"b\",\"value\":\"2\"}]");
	assert_at(b, "spec/tags", "[\"x\",\"y\"]");
	assert_at(entry(b, "bob", "Apply"), "fieldsV1/f:spec/f:items/k:{\"name\":\"a\"}", NULL);
	assert_at(entry(b, "bob", "Apply"), "fieldsV1/f:spec/f:items/k:{\"name\":\"b\"}/f:name", "{}");

	/* a field of alice's item: a conflict on that field */
	c = apply_cr(b, CR("{\"items\":[{\"name\":\"a\",\"value\":\"9\"}]}"), "bob", 0, &err);
	assert_null(c);
	assert_int_equal(err.code, SK_ECONFLICT);
	assert_string_equal(err.msg, "Apply failed with 1 conflict: conflict with \"alice\": .spec.items[name=\"a\"].value");

	/* atomic list and map: replaced whole, one conflict each */
	c = apply_cr(b, CR("{\"args\":[\"q\"],\"box\":{\"j\":\"2\"}}"), "bob", 0, &err);
	assert_null(c);
	assert_string_equal(err.msg, "Apply failed with 2 conflicts: conflicts with \"alice\":\n- .spec.args\n- .spec.box");
	c = apply_cr(b, CR("{\"args\":[\"q\"],\"box\":{\"j\":\"2\"}}"), "bob", 1, &err);
	assert_non_null(c);
	assert_at(c, "spec/args", "[\"q\"]");
	assert_at(c, "spec/box", "{\"j\":\"2\"}");
	assert_at(entry(c, "alice", "Apply"), "fieldsV1/f:spec/f:box", NULL);
	json_decref(a);
	json_decref(b);
	json_decref(c);
}

static void test_apply_schema_map_list_several_keys(void **state)
{
	sk_error_t err = {0};
	json_t *a, *b, *c;

	(void)state;
	a = apply_cr(NULL, CR("{\"ports\":[{\"port\":80,\"protocol\":\"TCP\",\"n\":\"web\"}]}"), "alice", 0, &err);
	assert_non_null(a);
	assert_at(entry(a, "alice", "Apply"), "fieldsV1/f:spec/f:ports/k:{\"port\":80,\"protocol\":\"TCP\"}/f:n", "{}");
	b = apply_cr(a, CR("{\"ports\":[{\"port\":80,\"protocol\":\"UDP\",\"n\":\"dns\"}]}"), "bob", 0, &err);
	assert_non_null(b);
	assert_at(b, "spec/ports",
		  "[{\"port\":80,\"protocol\":\"TCP\",\"n\":\"web\"},{\"port\":80,\"protocol\":\"UDP\",\"n\":\"dns\"}]");
	assert_at(entry(b, "bob", "Apply"), "fieldsV1/f:spec/f:ports/k:{\"port\":80,\"protocol\":\"UDP\"}/f:n", "{}");
	c = apply_cr(b, CR("{\"ports\":[{\"port\":80,\"protocol\":\"TCP\",\"n\":\"www\"}]}"), "bob", 0, &err);
	assert_null(c);
	assert_string_equal(err.msg,
			    "Apply failed with 1 conflict: conflict with \"alice\": .spec.ports[port=80,protocol=\"TCP\"].n");
	json_decref(a);
	json_decref(b);
}

static void test_managed_fields_update_schema(void **state)
{
	json_t *schema = J(CR_SCHEMA), *old = J(CR("{\"items\":[{\"name\":\"a\",\"value\":\"1\"}]}"));
	json_t *new_obj = J(CR("{\"items\":[{\"name\":\"a\",\"value\":\"1\"},{\"name\":\"b\",\"value\":\"2\"}]}"));

	(void)state;
	sk_managed_fields_update_schema(NULL, old, schema, "first", "x.test/v1", NULL);
	assert_at(entry(old, "first", "Update"), "fieldsV1/f:spec/f:items/k:{\"name\":\"a\"}/f:value", "{}");
	json_object_set(json_object_get(new_obj, "metadata"), "managedFields",
			json_object_get(json_object_get(old, "metadata"), "managedFields"));
	sk_managed_fields_update_schema(old, new_obj, schema, "second", "x.test/v1", NULL);
	assert_at(entry(new_obj, "second", "Update"), "fieldsV1/f:spec/f:items/k:{\"name\":\"a\"}", NULL);
	assert_at(entry(new_obj, "second", "Update"), "fieldsV1/f:spec/f:items/k:{\"name\":\"b\"}/f:value", "{}");
	assert_at(entry(new_obj, "first", "Update"), "fieldsV1/f:spec/f:items/k:{\"name\":\"a\"}/f:name", "{}");
	json_decref(schema);
	json_decref(old);
	json_decref(new_obj);
}

static void test_managed_fields_update(void **state)
{
	json_t *old = J("{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\",\"labels\":{\"a\":\"1\"}},"
			"\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"x\"}]}}");
	json_t *new_obj, *e;

	sk_managed_fields_update(NULL, old, "creator", "v1", NULL);
	e = entry(old, "creator", "Update");
	assert_non_null(e);
	assert_at(e, "fieldsV1/f:metadata/f:labels/.", "{}");
	assert_at(e, "fieldsV1/f:metadata/f:name", NULL);
	assert_at(e, "fieldsV1/f:spec/f:containers/k:{\"name\":\"c\"}/f:image", "{}");

	/* a label change moves ownership of that label only */
	new_obj = json_deep_copy(old);
	json_object_set_new(json_object_get(json_object_get(new_obj, "metadata"), "labels"), "a", json_string("2"));
	sk_managed_fields_update(old, new_obj, "labeler", "v1", NULL);
	assert_at(entry(new_obj, "labeler", "Update"), "fieldsV1/f:metadata/f:labels/f:a", "{}");
	assert_at(entry(new_obj, "creator", "Update"), "fieldsV1/f:metadata/f:labels/f:a", NULL);
	assert_at(entry(new_obj, "creator", "Update"), "fieldsV1/f:spec/f:containers/k:{\"name\":\"c\"}/f:image", "{}");
	json_decref(old);
	old = new_obj;

	/* a status write is recorded with its subresource */
	new_obj = json_deep_copy(old);
	json_object_set_new(new_obj, "status", json_pack("{s:s}", "phase", "Running"));
	sk_managed_fields_update(old, new_obj, "kubelet", "v1", "status");
	e = entry(new_obj, "kubelet", "Update");
	assert_non_null(e);
	assert_at(e, "subresource", "\"status\"");
	assert_at(e, "fieldsV1/f:status/f:phase", "{}");
	json_decref(old);
	old = new_obj;

	/* a client that drops managedFields keeps the old ones; no change adds no entry */
	new_obj = json_deep_copy(old);
	json_object_del(json_object_get(new_obj, "metadata"), "managedFields");
	sk_managed_fields_update(old, new_obj, "nobody", "v1", NULL);
	assert_null(entry(new_obj, "nobody", "Update"));
	assert_non_null(entry(new_obj, "kubelet", "Update"));
	json_decref(old);
	json_decref(new_obj);
}

/* Entries an update does not touch come back as they were; one given in
 * another shape (keys out of order, a leaf that is not {}) is rewritten in
 * the shape managedFields are always written in. */
static void test_managed_fields_untouched_entries(void **state)
{
	json_t *old = J("{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\",\"managedFields\":["
			"{\"manager\":\"a\",\"operation\":\"Update\",\"apiVersion\":\"v1\",\"time\":\"2020-01-01T00:00:00Z\","
			"\"fieldsType\":\"FieldsV1\",\"fieldsV1\":{\"f:spec\":{\"f:x\":{},\"f:y\":{}}}},"
			"{\"manager\":\"b\",\"operation\":\"Update\",\"time\":\"2020-01-01T00:00:00Z\",\"fieldsType\":\"FieldsV1\","
			"\"fieldsV1\":{\"f:spec\":{\"f:z\":true,\"f:w\":{}}}}]},\"spec\":{\"x\":1,\"y\":2,\"z\":3,\"w\":4}}");
	json_t *new_obj = json_deep_copy(old), *mf;
	cleanup_free char *a = NULL, *b = NULL;

	json_object_set_new(json_object_get(new_obj, "spec"), "v", json_integer(5));
	sk_managed_fields_update(old, new_obj, "c", "v1", NULL);
	mf = json_object_get(json_object_get(new_obj, "metadata"), "managedFields");
	assert_int_equal(json_array_size(mf), 3);
	a = json_dumps(json_array_get(mf, 0), JSON_COMPACT);
	assert_string_equal(a, "{\"manager\":\"a\",\"operation\":\"Update\",\"apiVersion\":\"v1\","
			    "\"time\":\"2020-01-01T00:00:00Z\",\"fieldsType\":\"FieldsV1\",\"fieldsV1\":{\"f:spec\":{\"f:x\":{},\"f:y\":{}}}}");
	b = json_dumps(json_object_get(json_array_get(mf, 1), "fieldsV1"), JSON_COMPACT);
	assert_string_equal(b, "{\"f:spec\":{\"f:w\":{},\"f:z\":{}}}");
	assert_at(json_array_get(mf, 2), "fieldsV1/f:spec/f:v", "{}");
	json_decref(old);
	json_decref(new_obj);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_apply_create),
		cmocka_unit_test(test_apply_change_and_reapply),
		cmocka_unit_test(test_apply_remove_container_field),
		cmocka_unit_test(test_apply_list_order),
		cmocka_unit_test(test_apply_conflict),
		cmocka_unit_test(test_apply_keeps_shared_fields),
		cmocka_unit_test(test_apply_before_first_apply),
		cmocka_unit_test(test_apply_schema_list_types),
		cmocka_unit_test(test_apply_schema_map_list_several_keys),
		cmocka_unit_test(test_managed_fields_update_schema),
		cmocka_unit_test(test_managed_fields_update),
		cmocka_unit_test(test_managed_fields_untouched_entries),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
