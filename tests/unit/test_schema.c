#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "api/openapi.h"
#include "api/schema.h"
#include "util/util.h"

static json_t *parse(const char *s)
{
	json_error_t e;
	json_t *j = json_loads(s, 0, &e);

	if (!j)
		fail_msg("bad json: %s", e.text);
	return j;
}

static void test_for_kind(void **state)
{
	assert_non_null(sk_schema_for_kind("", "v1", "Pod"));
	assert_non_null(sk_schema_for_kind(NULL, "v1", "Namespace"));
	assert_non_null(sk_schema_for_kind("apps", "v1", "Deployment"));
	assert_non_null(sk_schema_for_kind("batch", "v1", "CronJob"));
	assert_non_null(sk_schema_for_kind("policy", "v1", "Eviction"));
	assert_non_null(sk_schema_for_kind("autoscaling", "v1", "Scale"));
	assert_non_null(sk_schema_for_kind("scheduling.x-k8s.io", "v1alpha1", "PodGroup"));
	assert_non_null(sk_schema_for_kind("meta.k8s.io", "v1", "DeleteOptions"));
	assert_non_null(sk_schema_for_kind("", "v1", "DeleteOptions"));
	assert_null(sk_schema_for_kind("apps", "v1", "Pod"));
	assert_null(sk_schema_for_kind("", "v1", "Frobnicator"));
	assert_string_equal(sk_schema_by_name("io.k8s.api.core.v1.Container")->name, "io.k8s.api.core.v1.Container");
	{
		const sk_schema *spec = sk_schema_child(sk_schema_for_kind("", "v1", "Pod"), "spec");
		const sk_schema *ctrs = sk_schema_child(spec, "containers");
		const sk_schema *vols = sk_schema_child(spec, "volumes");

		assert_string_equal(ctrs->merge_key, "name");
		assert_string_equal(ctrs->patch_strategy, "merge");
		assert_string_equal(vols->patch_strategy, "merge,retainKeys");
		assert_string_equal(sk_schema_child(ctrs, "ports")->merge_key, "containerPort");
		assert_null(sk_schema_child(spec, "nope"));
	}
}

static void test_resources(void **state)
{
	const sk_resource *r = sk_schema_resource("apps", "deployments");

	assert_non_null(r);
	assert_string_equal(r->kind, "Deployment");
	assert_string_equal(r->short_names[0], "deploy");
	assert_string_equal(r->categories[0], "all");
	assert_string_equal(r->subresources[0].name, "scale");
	assert_string_equal(r->subresources[0].group, "autoscaling");
	assert_string_equal(r->subresources[0].kind, "Scale");
	r = sk_schema_resource("", "pods");
	assert_true(r->namespaced);
	assert_string_equal(r->short_names[0], "po");
	r = sk_schema_resource("", "namespaces");
	assert_false(r->namespaced);
	assert_string_equal(sk_schema_resource_for_kind("CronJob")->short_names[0], "cj");
	for (r = sk_schema_resources; r->kind; r++)
		assert_non_null(sk_schema_for_kind(r->group, r->version, r->kind));
}

static void test_unknown_fields(void **state)
{
	const sk_schema *pod = sk_schema_for_kind("", "v1", "Pod");
	cleanup_json json_t *obj = parse("{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"x\","
		"\"labels\":{\"any\":\"thing\"},\"bogus\":1},\"spec\":{\"containers\":[{\"name\":\"a\",\"image\":\"i\"},"
		"{\"name\":\"b\",\"image\":\"i\",\"imagePullPolcy\":\"Always\",\"resources\":{\"limits\":{\"cpu\":\"1\"}}}],"
		"\"volumes\":[{\"name\":\"v\",\"emptyDir\":{\"sizeLimt\":\"1Gi\"}}]},\"extra\":true}");
	cleanup_json json_t *unk = sk_schema_unknown_fields(pod, obj);

	assert_int_equal(json_array_size(unk), 4);
	assert_string_equal(json_string_value(json_array_get(unk, 0)), "metadata.bogus");
	assert_string_equal(json_string_value(json_array_get(unk, 1)), "spec.containers[1].imagePullPolcy");
	assert_string_equal(json_string_value(json_array_get(unk, 2)), "spec.volumes[0].emptyDir.sizeLimt");
	assert_string_equal(json_string_value(json_array_get(unk, 3)), "extra");
}

static void test_unknown_none(void **state)
{
	const sk_schema *d = sk_schema_for_kind("apps", "v1", "Deployment");
	cleanup_json json_t *obj = parse("{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":{\"name\":\"d\"},"
		"\"spec\":{\"replicas\":2,\"selector\":{\"matchLabels\":{\"a\":\"b\"}},\"strategy\":{\"type\":\"RollingUpdate\","
		"\"rollingUpdate\":{\"maxSurge\":1,\"maxUnavailable\":\"25%\"}},\"template\":{\"metadata\":{\"labels\":{\"a\":\"b\"}},"
		"\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"nginx\",\"ports\":[{\"containerPort\":80}],"
		"\"livenessProbe\":{\"httpGet\":{\"path\":\"/\",\"port\":\"http\"}},\"env\":[{\"name\":\"A\",\"valueFrom\":"
		"{\"fieldRef\":{\"fieldPath\":\"metadata.name\"}}}]}],\"tolerations\":[{\"key\":\"k\",\"operator\":\"Exists\"}]}}}}");
	cleanup_json json_t *unk = sk_schema_unknown_fields(d, obj);

	assert_int_equal(json_array_size(unk), 0);
}

static void test_check_types(void **state)
{
	const sk_schema *d = sk_schema_for_kind("apps", "v1", "Deployment");
	cleanup_json json_t *bad = parse("{\"spec\":{\"replicas\":\"3\"}}");
	cleanup_json json_t *bad2 = parse("{\"spec\":{\"template\":{\"spec\":{\"containers\":[{\"name\":\"c\",\"ports\":[{\"containerPort\":\"80\"}]}]}}}}");
	cleanup_json json_t *bad3 = parse("{\"metadata\":{\"labels\":{\"a\":1}}}");
	cleanup_json json_t *good = parse("{\"spec\":{\"replicas\":3,\"paused\":null,\"template\":{\"spec\":{\"containers\":[{\"resources\":{\"limits\":{\"cpu\":1}}}]}}}}");
	sk_error_t err = { 0 };

	assert_int_equal(sk_schema_check_types(d, bad, &err), -1);
	assert_int_equal(err.code, SK_EBADREQUEST);
	assert_string_equal(err.msg, "json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32");
	assert_int_equal(sk_schema_check_types(d, bad2, &err), -1);
	assert_string_equal(err.msg, "json: cannot unmarshal string into Go struct field ContainerPort.spec.template.spec.containers.ports.containerPort of type int32");
	assert_int_equal(sk_schema_check_types(d, bad3, &err), -1);
	assert_string_equal(err.msg, "json: cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of type string");
	assert_int_equal(sk_schema_check_types(d, good, &err), 0);
}

static void test_check_values(void **state)
{
	const sk_schema *pod = sk_schema_for_kind("", "v1", "Pod");
	const sk_schema *secret = sk_schema_for_kind("", "v1", "Secret");
	cleanup_json json_t *q = parse("{\"spec\":{\"containers\":[{\"resources\":{\"limits\":{\"cpu\":\"1 core\"}}}]}}");
	cleanup_json json_t *b = parse("{\"data\":{\"a\":\"YWJj\",\"b\":\"not base64!\"}}");
	cleanup_json json_t *ok = parse("{\"data\":{\"a\":\"YQ==\",\"b\":\"\"}}");
	sk_error_t err = { 0 };

	assert_int_equal(sk_schema_check_types(pod, q, &err), -1);
	assert_string_equal(err.msg, "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
	assert_int_equal(sk_schema_check_types(secret, b, &err), -1);
	assert_string_equal(err.msg, "illegal base64 data at input byte 3");
	assert_int_equal(sk_schema_check_types(secret, ok, &err), 0);
}

static json_t *find_op(json_t *doc, const char *path, const char *method)
{
	return json_object_get(json_object_get(json_object_get(doc, "paths"), path), method);
}

static void test_openapi_index(void **state)
{
	cleanup_json json_t *idx = sk_openapi_index();
	json_t *paths = json_object_get(idx, "paths");
	const char *url = json_string_value(json_object_get(json_object_get(paths, "api/v1"), "serverRelativeURL"));
	const char *hash = NULL;

	assert_non_null(url);
	assert_non_null(sk_openapi_doc_text("api/v1", &hash));
	assert_true(strncmp(url, "/openapi/v3/api/v1?hash=", 24) == 0);
	assert_string_equal(url + 24, hash);
	assert_non_null(json_object_get(paths, "apis/apps/v1"));
	assert_non_null(json_object_get(paths, "apis/batch/v1"));
	assert_non_null(json_object_get(paths, "apis/scheduling.x-k8s.io/v1alpha1"));
	assert_non_null(json_object_get(paths, "api"));
	assert_null(sk_openapi_doc("apis/nope/v1"));
}

static void test_openapi_core(void **state)
{
	cleanup_json json_t *doc = sk_openapi_doc("api/v1");
	json_t *schemas = json_object_get(json_object_get(doc, "components"), "schemas");
	json_t *pod = json_object_get(schemas, "io.k8s.api.core.v1.Pod");
	json_t *gvk = json_array_get(json_object_get(pod, "x-kubernetes-group-version-kind"), 0);
	json_t *patch = find_op(doc, "/api/v1/namespaces/{namespace}/pods/{name}", "patch");
	json_t *spatch = find_op(doc, "/api/v1/namespaces/{namespace}/pods/{name}/status", "patch");
	json_t *containers = json_object_get(json_object_get(json_object_get(schemas, "io.k8s.api.core.v1.PodSpec"),
		"properties"), "containers");
	json_t *p;
	size_t i;
	int found = 0;

	assert_non_null(pod);
	assert_string_equal(json_string_value(json_object_get(gvk, "kind")), "Pod");
	assert_string_equal(json_string_value(json_object_get(gvk, "group")), "");
	assert_non_null(json_object_get(schemas, "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"));
	assert_non_null(json_object_get(schemas, "io.k8s.api.core.v1.PodList"));
	assert_non_null(json_object_get(schemas, "io.k8s.api.policy.v1.Eviction"));
	assert_non_null(patch);
	assert_non_null(spatch);
	assert_string_equal(json_string_value(json_object_get(json_object_get(patch, "x-kubernetes-group-version-kind"), "kind")), "Pod");
	json_array_foreach(json_object_get(patch, "parameters"), i, p)
		if (strcmp(json_string_value(json_object_get(p, "name")), "fieldValidation") == 0 &&
		    strcmp(json_string_value(json_object_get(p, "in")), "query") == 0)
			found = 1;
	assert_true(found);
	assert_null(json_object_get(json_object_get(json_object_get(patch, "requestBody"), "content"),
		"application/strategic-merge-patch+json"));
	assert_string_equal(json_string_value(json_object_get(containers, "x-kubernetes-patch-merge-key")), "name");
	assert_string_equal(json_string_value(json_object_get(containers, "x-kubernetes-patch-strategy")), "merge");
	assert_string_equal(json_string_value(json_array_get(json_object_get(containers, "x-kubernetes-list-map-keys"), 0)), "name");
	assert_non_null(find_op(doc, "/api/v1/pods", "get"));
	assert_non_null(find_op(doc, "/api/v1/namespaces/{name}", "patch"));
	assert_non_null(find_op(doc, "/api/v1/namespaces/{namespace}/pods/{name}/eviction", "post"));
}

static void test_openapi_apps(void **state)
{
	cleanup_json json_t *doc = sk_openapi_doc("apis/apps/v1");
	json_t *schemas = json_object_get(json_object_get(doc, "components"), "schemas");
	json_t *scale = find_op(doc, "/apis/apps/v1/namespaces/{namespace}/deployments/{name}/scale", "patch");
	json_t *gvk = json_object_get(scale, "x-kubernetes-group-version-kind");

	assert_non_null(json_object_get(schemas, "io.k8s.api.apps.v1.Deployment"));
	assert_non_null(json_object_get(schemas, "io.k8s.api.core.v1.Container"));
	assert_non_null(json_object_get(schemas, "io.k8s.api.autoscaling.v1.Scale"));
	assert_string_equal(json_string_value(json_object_get(gvk, "group")), "autoscaling");
	assert_string_equal(json_string_value(json_object_get(gvk, "kind")), "Scale");
	assert_non_null(find_op(doc, "/apis/apps/v1/namespaces/{namespace}/deployments/{name}", "patch"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_for_kind),
		cmocka_unit_test(test_resources),
		cmocka_unit_test(test_unknown_fields),
		cmocka_unit_test(test_unknown_none),
		cmocka_unit_test(test_check_types),
		cmocka_unit_test(test_check_values),
		cmocka_unit_test(test_openapi_index),
		cmocka_unit_test(test_openapi_core),
		cmocka_unit_test(test_openapi_apps),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
