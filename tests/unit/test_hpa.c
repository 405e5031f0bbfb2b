/* Unit tests for the HorizontalPodAutoscaler's pure logic (ctrl/hpautil.c):
 * the replica calculator's cases after upstream's replica_calculator_test.go
 * (scale up and down, tolerance, unready, missing and ignored pods, the CPU
 * initialization period, raw values, errors), PodMetricsList reading, and
 * normalization with and without a behavior. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "ctrl/hpautil.h"
#include "util/util.h"

#define NOW 1800000000LL /* 2027-01-15T08:00:00Z */

static void iso(int64_t t, char *buf, size_t len) { sk_time_format(t, buf, len); }

/* A running pod named name with one container requesting req_milli of cpu
 * (-1: no request), started at start, Ready st since trans. */
static json_t *pod(const char *name, const char *phase, int64_t req_milli, int64_t start, const char *st, int64_t trans)
{
	char s[32], t[32], req[32];
	json_t *p, *c;

	iso(start, s, sizeof(s));
	iso(trans, t, sizeof(t));
	snprintf(req, sizeof(req), "%lldm", (long long)req_milli);
	c = json_pack("{s:s}", "name", "c");
	if (req_milli >= 0)
		json_object_set_new(c, "resources", json_pack("{s:{s:s}}", "requests", "cpu", req));
	p = json_pack("{s:{s:s}, s:{s:[o]}, s:{s:s, s:s}}", "metadata", "name", name, "spec", "containers", c, "status",
		      "phase", phase, "startTime", s);
	if (st)
		json_object_set_new(
			json_object_get(p, "status"), "conditions",
			json_pack("[{s:s, s:s, s:s}]", "type", "Ready", "status", st, "lastTransitionTime", t));
	return p;
}

/* n ready running pods p0… requesting req each, started an hour ago. */
static json_t *pods(int n, int64_t req)
{
	json_t *a = json_array();
	char name[16];

	for (int i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "p%d", i);
		json_array_append_new(a, pod(name, "Running", req, NOW - 3600, "True", NOW - 3590));
	}
	return a;
}

/* Metrics for pods p0… with the given milli values (-1: none), sampled now
 * over a 30 s window. */
static json_t *metrics(int n, const int64_t *v)
{
	json_t *m = json_object();
	char name[16];

	for (int i = 0; i < n; i++) {
		if (v[i] < 0)
			continue;
		snprintf(name, sizeof(name), "p%d", i);
		json_object_set_new(m, name,
				    json_pack("{s:I, s:I, s:f}", "value", (json_int_t)v[i], "timestamp",
					      (json_int_t)NOW, "window", 30.0));
	}
	return m;
}

static const sk_hpa_calc calc = {.tolerance = 0.1, .cpu_init_secs = 300, .readiness_delay = 30, .now = NOW};

struct util_case {
	const char *name;
	int32_t current, target;
	int n;
	int64_t req, levels[6];
	int32_t want, want_util;
};

static void test_utilization_table(void **state)
{
	static const struct util_case cases[] = {
		{"scale up", 3, 30, 3, 1000, {300, 500, 700}, 5, 50},
		{"scale down", 5, 50, 5, 1000, {100, 300, 500, 250, 250}, 3, 28},
		{"within tolerance", 3, 100, 3, 1000, {1010, 1030, 1020}, 3, 102},
		{"just outside tolerance", 3, 100, 3, 1000, {1120, 1120, 1120}, 4, 112},
		{"missing pods hold a scale-up back", 3, 50, 3, 1000, {1400, 1600, -1}, 6, 150},
		{"missing pods count as full on a scale-down", 3, 50, 3, 1000, {100, 100, -1}, 3, 10},
		{"scale to one", 4, 50, 4, 500, {10, 10, 10, 10}, 1, 2},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct util_case *c = &cases[i];
		cleanup_json json_t *p = pods(c->n, c->req), *m = metrics(c->n, c->levels);
		sk_error_t err = {0};
		int32_t got = -1, util = -1;
		int64_t raw;

		print_message("case: %s\n", c->name);
		assert_int_equal(sk_hpa_resource_replicas(&calc, c->current, c->target, "cpu", NULL, p, m, &got, &util,
							  &raw, &err),
				 0);
		assert_int_equal(got, c->want);
		assert_int_equal(util, c->want_util);
	}
}

static void test_unready_and_ignored(void **state)
{
	cleanup_json json_t *p = pods(3, 1000), *m = NULL;
	static const int64_t lv[] = {300, 500, 700};
	sk_error_t err = {0};
	int32_t got, util;
	int64_t raw;

	(void)state;
	/* TestReplicaCalcScaleUpUnreadyLessScale: p0 never became ready */
	json_array_set_new(p, 0, pod("p0", "Running", 1000, NOW - 3600, "False", NOW - 3600));
	m = metrics(3, lv);
	assert_int_equal(sk_hpa_resource_replicas(&calc, 3, 30, "cpu", NULL, p, m, &got, &util, &raw, &err), 0);
	assert_int_equal(got, 4);
	assert_int_equal(util, 60);
	assert_int_equal(raw, 600);

	/* a deleted and a failed pod are ignored, a pending one is unready */
	json_decref(m);
	json_decref(p);
	p = pods(3, 1000);
	json_object_set_new(json_object_get(json_array_get(p, 0), "metadata"), "deletionTimestamp",
			    json_string("2027-01-15T07:59:00Z"));
	json_array_set_new(p, 1, pod("p1", "Failed", 1000, NOW - 3600, "False", NOW - 60));
	json_array_append_new(p, pod("p3", "Pending", 1000, NOW - 5, NULL, 0));
	m = metrics(3, (const int64_t[]){5000, 5000, 1000});
	assert_int_equal(sk_hpa_resource_replicas(&calc, 4, 50, "cpu", NULL, p, m, &got, &util, &raw, &err), 0);
	/* p2 alone at 100% asks for 2x; the pending pod counts as 0: 50% -> no change */
	assert_int_equal(util, 100);
	assert_int_equal(got, 4);

	/* within the CPU initialization period, a sample taken before a full
	 * window since the pod became ready does not count */
	json_decref(m);
	json_decref(p);
	p = pods(2, 1000);
	json_array_set_new(p, 1, pod("p1", "Running", 1000, NOW - 60, "True", NOW - 10));
	m = metrics(2, (const int64_t[]){1500, 2000});
	assert_int_equal(sk_hpa_resource_replicas(&calc, 2, 50, "cpu", NULL, p, m, &got, &util, &raw, &err), 0);
	assert_int_equal(util, 150);
	assert_int_equal(got, 3); /* p0 at 150%; p1 (unready) as 0: 75% -> 1.5 x 2 */
}

static void test_errors(void **state)
{
	cleanup_json json_t *none = json_array(), *m = json_object(), *p = pods(2, 1000), *m2 = NULL;
	cleanup_json json_t *p2 = pods(2, 1000), *m3 = NULL;
	sk_error_t err = {0};
	int32_t got, util;
	int64_t raw;

	(void)state;
	assert_int_equal(sk_hpa_resource_replicas(&calc, 2, 50, "cpu", NULL, none, m, &got, &util, &raw, &err), -1);
	assert_string_equal(err.msg, "no pods returned by selector while calculating replica count");
	assert_int_equal(sk_hpa_resource_replicas(&calc, 2, 50, "cpu", NULL, p, m, &got, &util, &raw, &err), -1);
	assert_string_equal(err.msg, "did not receive metrics for targeted pods (pods might be unready)");
	json_array_set_new(p2, 1, pod("p1", "Running", -1, NOW - 3600, "True", NOW - 3590));
	m2 = metrics(2, (const int64_t[]){100, 100});
	assert_int_equal(sk_hpa_resource_replicas(&calc, 2, 50, "cpu", NULL, p2, m2, &got, &util, &raw, &err), -1);
	assert_string_equal(err.msg, "missing request for cpu in container c of Pod p1");
	m3 = metrics(2, (const int64_t[]){20000, 40000});
	assert_int_equal(sk_hpa_raw_resource_replicas(&calc, 2, 10000, "cpu", p, m3, &got, &raw, &err), 0);
	assert_int_equal(raw, 30000);
	assert_int_equal(got, 6);
}

static void test_pod_metrics_list(void **state)
{
	cleanup_json json_t *list = json_loads(
		"{\"kind\":\"PodMetricsList\",\"items\":["
		"{\"metadata\":{\"name\":\"a\"},\"timestamp\":\"2027-01-15T08:00:00Z\",\"window\":\"10.5s\","
		"\"containers\":[{\"name\":\"x\",\"usage\":{\"cpu\":\"250m\",\"memory\":\"10Mi\"}},"
		"{\"name\":\"y\",\"usage\":{\"cpu\":\"1\",\"memory\":\"1Mi\"}}]},"
		"{\"metadata\":{\"name\":\"b\"},\"timestamp\":\"2027-01-15T08:00:00Z\",\"window\":\"1m0s\","
		"\"containers\":[{\"name\":\"x\",\"usage\":{\"memory\":\"1Mi\"}}]},"
		"{\"metadata\":{\"name\":\"c\"},\"timestamp\":\"2027-01-15T08:00:00Z\",\"window\":\"30s\","
		"\"containers\":[]}]}",
		0, NULL);
	cleanup_json json_t *cpu = sk_hpa_pod_metrics(list, "cpu", NULL),
			    *mem = sk_hpa_pod_metrics(list, "memory", NULL);
	cleanup_json json_t *cy = sk_hpa_pod_metrics(list, "cpu", "y");

	(void)state;
	assert_int_equal(json_object_size(cpu), 1); /* b lacks cpu, c has no containers */
	assert_int_equal(json_integer_value(json_object_get(json_object_get(cpu, "a"), "value")), 1250);
	assert_true(json_real_value(json_object_get(json_object_get(cpu, "a"), "window")) == 10.5);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(cpu, "a"), "timestamp")), NOW);
	assert_int_equal(json_object_size(mem), 2);
	assert_true(json_real_value(json_object_get(json_object_get(mem, "b"), "window")) == 60.0);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(cy, "a"), "value")), 1000);
	assert_null(json_object_get(cy, "b"));
}

static void test_normalize_plain(void **state)
{
	sk_hpa_history h = {0};
	sk_hpa_norm n;

	(void)state;
	sk_hpa_normalize(&h, NULL, 300, 5, 5, 1, 10, NOW, &n);
	assert_int_equal(n.replicas, 5);
	assert_string_equal(n.able_reason, "ReadyForNewScale");
	sk_hpa_normalize(&h, NULL, 300, 5, 2, 1, 10, NOW + 10, &n);
	assert_int_equal(n.replicas, 5);
	assert_string_equal(n.able_reason, "ScaleDownStabilized");
	assert_string_equal(n.limited_reason, "DesiredWithinRange");
	assert_false(n.limited);
	/* both samples are past the window now */
	sk_hpa_normalize(&h, NULL, 300, 5, 2, 1, 10, NOW + 400, &n);
	assert_int_equal(n.replicas, 2);
	assert_string_equal(n.able_reason, "ReadyForNewScale");
	sk_hpa_history_release(&h);

	sk_hpa_normalize(&h, NULL, 300, 1, 10, 1, 10, NOW, &n);
	assert_int_equal(n.replicas, 4);
	assert_true(n.limited);
	assert_string_equal(n.limited_reason, "ScaleUpLimit");
	sk_hpa_normalize(&h, NULL, 300, 4, 20, 1, 6, NOW, &n);
	assert_int_equal(n.replicas, 6);
	assert_string_equal(n.limited_reason, "TooManyReplicas");
	sk_hpa_history_release(&h);
	sk_hpa_normalize(&h, NULL, 0, 3, 1, 2, 6, NOW, &n);
	assert_int_equal(n.replicas, 2);
	assert_string_equal(n.limited_reason, "TooFewReplicas");
	sk_hpa_history_release(&h);
}

static void test_normalize_behavior(void **state)
{
	cleanup_json json_t *b = json_loads("{\"scaleUp\":{\"stabilizationWindowSeconds\":0,\"selectPolicy\":\"Max\","
					    "\"policies\":[{\"type\":\"Pods\",\"value\":1,\"periodSeconds\":60}]},"
					    "\"scaleDown\":{\"stabilizationWindowSeconds\":0,\"selectPolicy\":\"Max\","
					    "\"policies\":[{\"type\":\"Percent\",\"value\":50,\"periodSeconds\":60}]}}",
					    0, NULL);
	cleanup_json json_t *two = json_loads("{\"scaleUp\":{\"stabilizationWindowSeconds\":0,\"selectPolicy\":\"Min\","
					      "\"policies\":[{\"type\":\"Pods\",\"value\":4,\"periodSeconds\":15},"
					      "{\"type\":\"Percent\",\"value\":100,\"periodSeconds\":15}]},"
					      "\"scaleDown\":{\"selectPolicy\":\"Disabled\",\"policies\":[{\"type\":"
					      "\"Pods\",\"value\":1,\"periodSeconds\":15}]}}",
					      0, NULL);
	sk_hpa_history h = {0};
	sk_hpa_norm n;

	(void)state;
	sk_hpa_normalize(&h, b, 300, 2, 5, 1, 10, NOW, &n);
	assert_int_equal(n.replicas, 3);
	assert_string_equal(n.limited_reason, "ScaleUpLimit");
	sk_hpa_record_scale(&h, b, 2, 3, NOW);
	/* one pod per minute: nothing more until the period has passed */
	sk_hpa_normalize(&h, b, 300, 3, 5, 1, 10, NOW + 10, &n);
	assert_int_equal(n.replicas, 3);
	sk_hpa_normalize(&h, b, 300, 3, 5, 1, 10, NOW + 61, &n);
	assert_int_equal(n.replicas, 4);
	sk_hpa_history_release(&h);

	sk_hpa_normalize(&h, b, 300, 10, 1, 1, 10, NOW, &n);
	assert_int_equal(n.replicas, 5);
	assert_string_equal(n.limited_reason, "ScaleDownLimit");
	assert_true(n.limited);
	sk_hpa_history_release(&h);

	/* Min of the policies scaling up, Disabled scaling down */
	sk_hpa_normalize(&h, two, 300, 2, 20, 1, 20, NOW, &n);
	assert_int_equal(n.replicas, 4);
	sk_hpa_normalize(&h, two, 300, 8, 1, 1, 20, NOW + 100, &n);
	assert_int_equal(n.replicas, 8);
	/* the default scale-down window (300 s) when the behavior names none */
	sk_hpa_history_release(&h);
	sk_hpa_normalize(&h, two, 300, 8, 8, 1, 20, NOW, &n);
	sk_hpa_normalize(&h, two, 300, 8, 2, 1, 20, NOW + 10, &n);
	assert_string_equal(n.able_reason, "ScaleDownStabilized");
	sk_hpa_history_release(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_utilization_table),
		cmocka_unit_test(test_unready_and_ignored),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_pod_metrics_list),
		cmocka_unit_test(test_normalize_plain),
		cmocka_unit_test(test_normalize_behavior),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
