/* apiregistration.k8s.io/v1 APIService (src/api/apiservice.c): validation
 * as kube-aggregator's, the Available column, the local priorities, and
 * the conversion of an aggregated server's APIResourceList into
 * aggregated-discovery resources (src/api/aggproxy.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "api/api-int.h"
#include "api/apiservice.h"
#include "api/table.h"
#include "util/util.h"

static const sk_api_resource *res(void)
{
	const sk_api_resource *r = sk__resource_find("apiregistration.k8s.io", "v1", "apiservices");

	assert_non_null(r);
	return r;
}

/* the messages of the causes, "field: message" joined by "\n" */
static char *causes_text(json_t *causes)
{
	size_t i, n = 0;
	json_t *c;
	char *out = xstrdup("");

	json_array_foreach(causes, i, c) {
		char *next = xasprintf("%s%s%s: %s", out, n++ ? "\n" : "",
				       json_string_value(json_object_get(c, "field")),
				       json_string_value(json_object_get(c, "message")));

		free(out);
		out = next;
	}
	return out;
}

static json_t *validate(const char *text)
{
	json_t *obj = json_loads(text, 0, NULL);
	json_t *causes;

	assert_non_null(obj);
	res()->ops->defaults(res(), obj);
	causes = sk__apiservice_validate(res(), obj, NULL, 0);
	json_decref(obj);
	return causes;
}

static void test_valid(void **state)
{
	(void)state;
	assert_null(validate(
		"{\"metadata\":{\"name\":\"v1beta1.metrics.k8s.io\"},\"spec\":{\"group\":\"metrics.k8s.io\","
		"\"version\":\"v1beta1\",\"groupPriorityMinimum\":100,\"versionPriority\":100,"
		"\"insecureSkipTLSVerify\":true,\"service\":{\"name\":\"m\",\"namespace\":\"kube-system\"}}}"));
	assert_null(validate("{\"metadata\":{\"name\":\"v1.\"},\"spec\":{\"version\":\"v1\",\"groupPriorityMinimum\":"
			     "18000,\"versionPriority\":1}}"));
}

static void test_invalid(void **state)
{
	json_t *c;
	char *t;

	(void)state;
	c = validate("{\"metadata\":{\"name\":\"v1.foo.io\"},\"spec\":{\"group\":\"Bar\",\"version\":\"1x\","
		     "\"groupPriorityMinimum\":20001,\"versionPriority\":0,\"caBundle\":\"YWJj\","
		     "\"insecureSkipTLSVerify\":true,\"service\":{\"port\":0}}}");
	t = causes_text(c);
	assert_non_null(strstr(t,
			       "metadata.name: Invalid value: \"v1.foo.io\": must be `spec.version+\".\"+spec.group`: "
			       "\"1x.Bar\""));
	assert_non_null(strstr(t, "spec.group: Invalid value: \"Bar\": a lowercase RFC 1123 subdomain"));
	assert_non_null(strstr(t, "spec.version: Invalid value: \"1x\": a DNS-1035 label"));
	assert_non_null(
		strstr(t, "spec.groupPriorityMinimum: Invalid value: 20001: must be positive and less than 20000"));
	assert_non_null(strstr(t, "spec.versionPriority: Invalid value: 0: must be positive and less than 1000"));
	assert_non_null(strstr(t, "spec.service.namespace: Required value"));
	assert_non_null(strstr(t, "spec.service.name: Required value"));
	assert_non_null(strstr(t, "spec.service.port: Invalid value: 0: port is not valid"));
	assert_non_null(
		strstr(t, "spec.insecureSkipTLSVerify: Invalid value: true: may not be true if caBundle is present"));
	free(t);
	json_decref(c);

	c = validate("{\"metadata\":{\"name\":\"v2.\"},\"spec\":{\"version\":\"v2\",\"groupPriorityMinimum\":1,"
		     "\"versionPriority\":1,\"caBundle\":\"YWJjZA==\",\"insecureSkipTLSVerify\":true}}");
	t = causes_text(c);
	assert_non_null(strstr(t, "spec.group: Required value: only v1 may have an empty group and it better be legacy "
				  "kube"));
	assert_non_null(
		strstr(t, "spec.caBundle: Invalid value: \"4 bytes\": local APIServices may not have a caBundle"));
	assert_non_null(strstr(t, "spec.insecureSkipTLSVerify: Invalid value: true: local APIServices may not have "
				  "insecureSkipTLSVerify"));
	free(t);
	json_decref(c);

	/* wrong types are refused, never a crash */
	c = validate("{\"metadata\":{\"name\":\"v1.a\"},\"spec\":{\"group\":\"a\",\"version\":\"v1\","
		     "\"groupPriorityMinimum\":\"x\",\"versionPriority\":1.5,\"caBundle\":7,\"service\":[]}}");
	assert_non_null(c);
	json_decref(c);
	c = validate("{\"metadata\":{\"name\":\"a/b\"},\"spec\":7}");
	assert_non_null(c);
	json_decref(c);
}

static void test_status(void **state)
{
	json_t *o = json_loads("{\"metadata\":{\"name\":\"v1.a\"},\"status\":{\"conditions\":[{\"type\":\"Available\","
			       "\"status\":\"Maybe\"}]}}",
			       0, NULL);
	json_t *c = sk__apiservice_validate(res(), o, NULL, 1);
	char *t = causes_text(c);

	(void)state;
	assert_string_equal(t, "status.conditions[0].status: Unsupported value: \"Maybe\": supported values: \"True\", "
			       "\"False\", \"Unknown\"");
	free(t);
	json_decref(c);
	json_decref(o);
}

static void test_table_and_priority(void **state)
{
	json_t *o = json_loads("{\"metadata\":{\"name\":\"v1.a\",\"creationTimestamp\":\"2026-01-01T00:00:00Z\"},"
			       "\"spec\":{\"service\":{\"namespace\":\"ns\",\"name\":\"s\"}},\"status\":{"
			       "\"conditions\":[{\"type\":\"Available\",\"status\":\"False\",\"reason\":"
			       "\"MissingEndpoints\"}]}}",
			       0, NULL);
	json_t *cols = sk_table_columns("APIService"), *cells;
	int64_t t0 = 1767225600; /* 2026-01-01T00:00:00Z */
	int gp, vp;

	(void)state;
	assert_int_equal(json_array_size(cols), 4);
	assert_string_equal(json_string_value(json_object_get(json_array_get(cols, 2), "name")), "Available");
	cells = sk_table_cells("APIService", o, t0 + 90);
	assert_string_equal(json_string_value(json_array_get(cells, 1)), "ns/s");
	assert_string_equal(json_string_value(json_array_get(cells, 2)), "False (MissingEndpoints)");
	assert_string_equal(json_string_value(json_array_get(cells, 3)), "90s");
	json_decref(cells);
	json_object_del(o, "status");
	json_object_del(o, "spec");
	cells = sk_table_cells("APIService", o, t0);
	assert_string_equal(json_string_value(json_array_get(cells, 1)), "Local");
	assert_string_equal(json_string_value(json_array_get(cells, 2)), "Unknown");
	json_decref(cells);
	json_decref(cols);
	json_decref(o);
	sk__apiservice_priority("", "v1", 0, &gp, &vp);
	assert_int_equal(gp, 18000);
	assert_int_equal(vp, 1);
	sk__apiservice_priority("autoscaling", "v2", 0, &gp, &vp);
	assert_int_equal(gp, 17500);
	assert_int_equal(vp, 30);
	sk__apiservice_priority("stable.example.com", "v1", 1, &gp, &vp);
	assert_int_equal(gp, 1000);
	assert_int_equal(vp, 100);
}

static void test_discovery_resources(void **state)
{
	json_t *l = json_loads(
		"{\"resources\":[{\"name\":\"flunders\",\"singularName\":\"flunder\",\"namespaced\":true,"
		"\"kind\":\"Flunder\",\"verbs\":[\"get\",7,\"list\"],\"shortNames\":[\"fl\"]},"
		"{\"name\":\"flunders/status\",\"kind\":\"Flunder\",\"verbs\":[\"get\"]},"
		"{\"name\":\"orphans/status\",\"kind\":\"X\"},{\"name\":7},{\"kind\":\"NoName\"}]}",
		0, NULL);
	json_t *out = sk__agg_discovery_resources(l), *f = json_array_get(out, 0);

	(void)state;
	assert_int_equal(json_array_size(out), 1);
	assert_string_equal(json_string_value(json_object_get(f, "resource")), "flunders");
	assert_string_equal(json_string_value(json_object_get(f, "scope")), "Namespaced");
	assert_int_equal(json_array_size(json_object_get(f, "verbs")), 2);
	assert_string_equal(json_string_value(json_object_get(json_object_get(f, "responseKind"), "kind")), "Flunder");
	assert_string_equal(json_string_value(json_object_get(json_array_get(json_object_get(f, "subresources"), 0),
							      "subresource")),
			    "status");
	json_decref(out);
	json_decref(l);
	out = sk__agg_discovery_resources(NULL);
	assert_int_equal(json_array_size(out), 0);
	json_decref(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_valid),
		cmocka_unit_test(test_invalid),
		cmocka_unit_test(test_status),
		cmocka_unit_test(test_table_and_priority),
		cmocka_unit_test(test_discovery_resources),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
