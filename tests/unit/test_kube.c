/* The Kubernetes-semantics library (src/kube/): each rule against upstream's
 * behaviour, with the cases where skiff's former copies disagreed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "kube/qos.h"
#include "util/util.h"

/* A fixture: JSON text parsed by jansson. */
static json_t *J(const char *text)
{
	json_error_t je;
	json_t *j = json_loads(text, 0, &je);

	if (!j)
		fail_msg("bad json: %s: %s", je.text, text);
	return j;
}

static const char *qos(const char *pod)
{
	cleanup_json json_t *p = J(pod);

	return sk_kube_pod_qos(p);
}

static void test_qos_basic(void **state)
{
	assert_string_equal(qos("{\"spec\":{\"containers\":[{\"name\":\"a\"}]}}"), "BestEffort");
	assert_string_equal(qos("{\"spec\":{\"containers\":[{\"resources\":{\"limits\":{\"cpu\":\"1\","
				"\"memory\":\"1Gi\"},\"requests\":{\"cpu\":\"1\",\"memory\":\"1Gi\"}}}]}}"),
			    "Guaranteed");
	assert_string_equal(qos("{\"spec\":{\"containers\":[{\"resources\":{\"requests\":{\"cpu\":\"100m\"}}}]}}"),
			    "Burstable");
}

/* The agent's copy compared requests and limits as strings: "1" and "1000m"
 * are the same quantity. */
static void test_qos_compares_values(void **state)
{
	assert_string_equal(qos("{\"spec\":{\"containers\":[{\"resources\":{"
				"\"requests\":{\"cpu\":\"1\",\"memory\":\"1Gi\"},"
				"\"limits\":{\"cpu\":\"1000m\",\"memory\":\"1073741824\"}}}]}}"),
			    "Guaranteed");
}

/* The agent's copy ignored init containers: one without limits makes the
 * pod Burstable, one with requests makes a pod of bare containers Burstable. */
static void test_qos_counts_init_containers(void **state)
{
	assert_string_equal(qos("{\"spec\":{\"containers\":[{\"resources\":{"
				"\"limits\":{\"cpu\":\"1\",\"memory\":\"1Gi\"},"
				"\"requests\":{\"cpu\":\"1\",\"memory\":\"1Gi\"}}}],"
				"\"initContainers\":[{\"resources\":{\"limits\":{\"cpu\":\"2\"}}}]}}"),
			    "Burstable");
	assert_string_equal(qos("{\"spec\":{\"containers\":[{}],"
				"\"initContainers\":[{\"resources\":{\"limits\":{\"cpu\":\"1\",\"memory\":\"1Gi\"}}}]}}"),
			    "Burstable");
	assert_string_equal(qos("{\"spec\":{\"containers\":[{\"resources\":{\"limits\":{\"cpu\":\"1\",\"memory\":\"1Gi\"},"
				"\"requests\":{\"cpu\":\"1\",\"memory\":\"1Gi\"}}}],"
				"\"initContainers\":[{\"resources\":{\"limits\":{\"cpu\":\"2\",\"memory\":\"2Gi\"},"
				"\"requests\":{\"cpu\":\"2\",\"memory\":\"2Gi\"}}}]}}"),
			    "Guaranteed");
}

/* Only positive cpu and memory count: the API server's copy made a pod that
 * asks for a GPU alone Burstable, and one with zero limits Guaranteed. */
static void test_qos_only_positive_cpu_memory(void **state)
{
	assert_string_equal(qos("{\"spec\":{\"containers\":[{\"resources\":{\"limits\":{\"nvidia.com/gpu\":\"1\"},"
				"\"requests\":{\"nvidia.com/gpu\":\"1\"}}}]}}"),
			    "BestEffort");
	assert_string_equal(qos("{\"spec\":{\"containers\":[{\"resources\":{\"limits\":{\"cpu\":\"0\",\"memory\":\"0\"},"
				"\"requests\":{\"cpu\":\"0\",\"memory\":\"0\"}}}]}}"),
			    "BestEffort");
	assert_string_equal(qos("{\"spec\":{\"containers\":[{\"resources\":{\"requests\":{\"memory\":\"1Mi\"}}}]}}"),
			    "Burstable");
	assert_string_equal(qos("{\"spec\":{\"containers\":[{\"resources\":{\"limits\":{\"cpu\":\"1\",\"memory\":\"1Gi\"},"
				"\"requests\":{\"cpu\":\"500m\",\"memory\":\"1Gi\"}}}]}}"),
			    "Burstable");
	assert_string_equal(qos("{\"spec\":{\"containers\":[]}}"), "BestEffort");
}

/* status.qosClass, once set, is the pod's class (upstream GetPodQOS). */
static void test_qos_status_wins(void **state)
{
	assert_string_equal(qos("{\"spec\":{\"containers\":[{}]},\"status\":{\"qosClass\":\"Guaranteed\"}}"),
			    "Guaranteed");
	assert_string_equal(qos("{\"spec\":{\"containers\":[{}]},\"status\":{\"qosClass\":\"bogus\"}}"), "BestEffort");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_qos_basic),
		cmocka_unit_test(test_qos_compares_values),
		cmocka_unit_test(test_qos_counts_init_containers),
		cmocka_unit_test(test_qos_only_positive_cpu_memory),
		cmocka_unit_test(test_qos_status_wins),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
