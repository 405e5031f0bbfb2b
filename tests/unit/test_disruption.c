/* Unit tests for PodDisruptionBudget arithmetic: expected and desired pods
 * (upstream's getExpectedPodCount: percentages round up for minAvailable
 * and maxUnavailable alike), disruptionsAllowed, the DisruptionAllowed
 * condition, and when a pod's DisruptionTarget condition goes stale. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "ctrl/disruption.h"
#include "kube/condition.h"
#include "kube/disruption.h"
#include "util/util.h"

/* expected and desired for a spec in JSON text; -1 for an error. */
static int calc(const char *spec_text, int64_t npods, int64_t scale, int64_t *expected, int64_t *desired)
{
	cleanup_json json_t *spec = json_loads(spec_text, 0, NULL);
	sk_error_t err = {0};

	assert_non_null(spec);
	return sk_disruption_expected(spec, npods, scale, expected, desired, &err);
}

static void test_min_available(void **state)
{
	int64_t e, d;

	(void)state;
	/* a number: the selected pods are the expected ones, the scale unused */
	assert_int_equal(calc("{\"minAvailable\": 2}", 3, 99, &e, &d), 0);
	assert_int_equal(e, 3);
	assert_int_equal(d, 2);
	/* a percentage of the controllers' scale, rounded up */
	assert_int_equal(calc("{\"minAvailable\": \"50%\"}", 1, 3, &e, &d), 0);
	assert_int_equal(e, 3);
	assert_int_equal(d, 2);
	assert_int_equal(calc("{\"minAvailable\": \"34%\"}", 0, 3, &e, &d), 0);
	assert_int_equal(d, 2);
	assert_int_equal(calc("{\"minAvailable\": \"100%\"}", 0, 7, &e, &d), 0);
	assert_int_equal(d, 7);
	assert_int_equal(calc("{\"minAvailable\": \"0%\"}", 0, 7, &e, &d), 0);
	assert_int_equal(d, 0);
	assert_int_equal(calc("{\"minAvailable\": \"half\"}", 0, 7, &e, &d), -1);
}

static void test_max_unavailable(void **state)
{
	int64_t e, d;

	(void)state;
	assert_int_equal(calc("{\"maxUnavailable\": 1}", 2, 3, &e, &d), 0);
	assert_int_equal(e, 3);
	assert_int_equal(d, 2);
	/* 25% of 10 rounds up to 3 unavailable: 7 healthy wanted */
	assert_int_equal(calc("{\"maxUnavailable\": \"25%\"}", 10, 10, &e, &d), 0);
	assert_int_equal(e, 10);
	assert_int_equal(d, 7);
	/* more unavailable than expected: never below 0 */
	assert_int_equal(calc("{\"maxUnavailable\": 5}", 2, 2, &e, &d), 0);
	assert_int_equal(d, 0);
	assert_int_equal(calc("{\"maxUnavailable\": \"1x\"}", 2, 2, &e, &d), -1);
	/* neither: nothing expected, nothing desired */
	assert_int_equal(calc("{}", 4, 4, &e, &d), 0);
	assert_int_equal(e, 0);
	assert_int_equal(d, 0);
}

static void test_needs_scale(void **state)
{
	cleanup_json json_t *num = json_loads("{\"minAvailable\": 1}", 0, NULL);
	cleanup_json json_t *pct = json_loads("{\"minAvailable\": \"10%\"}", 0, NULL);
	cleanup_json json_t *max = json_loads("{\"maxUnavailable\": 1}", 0, NULL);

	(void)state;
	assert_false(sk_disruption_needs_scale(num));
	assert_true(sk_disruption_needs_scale(pct));
	assert_true(sk_disruption_needs_scale(max));
}

static void test_allowed(void **state)
{
	(void)state;
	assert_int_equal(sk_kube_pdb_allowed(3, 2, 3), 1);
	assert_int_equal(sk_kube_pdb_allowed(2, 2, 3), 0);
	assert_int_equal(sk_kube_pdb_allowed(1, 2, 3), 0);
	/* no pod expected yet: safe */
	assert_int_equal(sk_kube_pdb_allowed(3, 0, 0), 0);
}

static void test_condition(void **state)
{
	cleanup_json json_t *st = json_pack("{s:i, s:i}", "disruptionsAllowed", 1, "observedGeneration", 4);
	json_t *c;

	(void)state;
	assert_false(sk_kube_pdb_conditions_up_to_date(st));
	sk_kube_pdb_set_allowed_condition(st, "2026-01-01T00:00:00Z");
	c = sk_kube_condition_get(st, "DisruptionAllowed");
	assert_string_equal(json_string_value(json_object_get(c, "status")), "True");
	assert_string_equal(json_string_value(json_object_get(c, "reason")), "SufficientPods");
	assert_string_equal(json_string_value(json_object_get(c, "message")), "");
	assert_int_equal(json_integer_value(json_object_get(c, "observedGeneration")), 4);
	assert_true(sk_kube_pdb_conditions_up_to_date(st));
	/* out of date once the count or the generation moves */
	json_object_set_new(st, "disruptionsAllowed", json_integer(0));
	assert_false(sk_kube_pdb_conditions_up_to_date(st));
	sk_kube_pdb_set_allowed_condition(st, "2026-01-01T00:01:00Z");
	assert_string_equal(json_string_value(json_object_get(c, "reason")), "InsufficientPods");
	assert_string_equal(json_string_value(json_object_get(c, "lastTransitionTime")), "2026-01-01T00:01:00Z");
	json_object_set_new(st, "observedGeneration", json_integer(5));
	assert_false(sk_kube_pdb_conditions_up_to_date(st));
	sk_kube_pdb_set_sync_failed(st, "found no controllers for pod \"x\"", "2026-01-01T00:02:00Z");
	assert_string_equal(json_string_value(json_object_get(c, "reason")), "SyncFailed");
	assert_string_equal(json_string_value(json_object_get(c, "message")), "found no controllers for pod \"x\"");
	/* the status stayed False: the transition time too */
	assert_string_equal(json_string_value(json_object_get(c, "lastTransitionTime")), "2026-01-01T00:01:00Z");
}

static json_t *pod_with(const char *phase, const char *cond_status, const char *reason, int deleting)
{
	json_t *pod = json_pack("{s:{}, s:{s:s, s:[{s:s, s:s, s:s, s:s}]}}", "metadata", "status", "phase", phase,
				"conditions", "type", "DisruptionTarget", "status", cond_status, "reason", reason,
				"lastTransitionTime", "2026-01-01T00:00:00Z");

	if (deleting)
		json_object_set_new(json_object_get(pod, "metadata"), "deletionTimestamp",
				    json_string("2026-01-01T00:00:10Z"));
	return pod;
}

static void test_stale_condition(void **state)
{
	int64_t t0 = 0;
	cleanup_json json_t *evicted = pod_with("Running", "True", "EvictionByEvictionAPI", 0);
	cleanup_json json_t *deleting = pod_with("Running", "True", "EvictionByEvictionAPI", 1);
	cleanup_json json_t *kubelet = pod_with("Running", "True", "TerminationByKubelet", 0);
	cleanup_json json_t *done = pod_with("Failed", "True", "EvictionByEvictionAPI", 0);
	cleanup_json json_t *cleared = pod_with("Running", "False", "EvictionByEvictionAPI", 0);
	cleanup_json json_t *none = json_pack("{s:{s:s}}", "status", "phase", "Running");

	(void)state;
	assert_int_equal(sk_time_parse("2026-01-01T00:00:00Z", &t0), 0);
	/* two minutes after the condition, unless the pod went */
	assert_int_equal(sk_disruption_stale_wait(evicted, t0 + 30), 90);
	assert_int_equal(sk_disruption_stale_wait(evicted, t0 + 120), 0);
	assert_int_equal(sk_disruption_stale_wait(evicted, t0 + 600), 0);
	assert_int_equal(sk_disruption_stale_wait(deleting, t0 + 600), -1);
	assert_int_equal(sk_disruption_stale_wait(kubelet, t0 + 600), -1);
	assert_int_equal(sk_disruption_stale_wait(done, t0 + 600), -1);
	assert_int_equal(sk_disruption_stale_wait(cleared, t0 + 600), -1);
	assert_int_equal(sk_disruption_stale_wait(none, t0 + 600), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_min_available), cmocka_unit_test(test_max_unavailable),
		cmocka_unit_test(test_needs_scale),   cmocka_unit_test(test_allowed),
		cmocka_unit_test(test_condition),     cmocka_unit_test(test_stale_condition),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
