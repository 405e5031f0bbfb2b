/* Unit tests for the DaemonSet controller's pure rules (ctrl/dsutil.h):
 * which nodes run a daemon pod, the tolerations it gets, its node affinity
 * and the rolling-update plan. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "ctrl/dsutil.h"

static json_t *J(const char *s)
{
	json_error_t e;
	json_t *j = json_loads(s, 0, &e);

	assert_non_null(j);
	return j;
}

static json_t *ds_with(const char *tmpl_spec)
{
	json_t *spec = J(tmpl_spec);

	return json_pack("{s:{s:{s:o}}}", "spec", "template", "spec", spec);
}

static void should(json_t *ds, const char *node, int want_run, int want_cont)
{
	json_t *n = J(node);
	int r = -1, c = -1;

	sk_ds_node_should_run(ds, n, &r, &c);
	assert_int_equal(r, want_run);
	assert_int_equal(c, want_cont);
	json_decref(n);
}

static void test_node_should_run(void **state)
{
	json_t *plain = ds_with("{\"containers\":[{\"name\":\"c\"}]}");
	json_t *gpu = ds_with("{\"nodeSelector\":{\"nvidia.com/gpu.present\":\"true\"},"
			      "\"tolerations\":[{\"key\":\"nvidia.com/gpu\",\"operator\":\"Exists\","
			      "\"effect\":\"NoSchedule\"}]}");
	json_t *pinned = ds_with("{\"nodeName\":\"a\"}");
	json_t *aff = ds_with("{\"affinity\":{\"nodeAffinity\":{\"requiredDuringSchedulingIgnoredDuringExecution\":"
			      "{\"nodeSelectorTerms\":[{\"matchExpressions\":[{\"key\":\"zone\",\"operator\":\"In\","
			      "\"values\":[\"z1\"]}]}]}}}}");

	(void)state;
	should(plain, "{\"metadata\":{\"name\":\"a\"}}", 1, 1);
	/* NoSchedule: keeps running, nothing new; NoExecute: neither */
	should(plain, "{\"metadata\":{\"name\":\"a\"},\"spec\":{\"taints\":[{\"key\":\"x\",\"effect\":\"NoSchedule\"}]}}",
	       0, 1);
	should(plain, "{\"metadata\":{\"name\":\"a\"},\"spec\":{\"taints\":[{\"key\":\"x\",\"effect\":\"NoExecute\"}]}}",
	       0, 0);
	should(plain,
	       "{\"metadata\":{\"name\":\"a\"},\"spec\":{\"taints\":[{\"key\":\"x\",\"effect\":\"PreferNoSchedule\"}]}}",
	       1, 1);
	/* the tolerations every daemon pod gets */
	should(plain,
	       "{\"metadata\":{\"name\":\"a\"},\"spec\":{\"taints\":[{\"key\":\"node.kubernetes.io/not-ready\","
	       "\"effect\":\"NoExecute\"},{\"key\":\"node.kubernetes.io/unschedulable\",\"effect\":\"NoSchedule\"},"
	       "{\"key\":\"node.kubernetes.io/disk-pressure\",\"effect\":\"NoSchedule\"}]}}",
	       1, 1);
	/* network-unavailable only for hostNetwork pods */
	should(plain,
	       "{\"metadata\":{\"name\":\"a\"},\"spec\":{\"taints\":[{\"key\":\"node.kubernetes.io/network-unavailable\","
	       "\"effect\":\"NoSchedule\"}]}}",
	       0, 1);
	should(gpu, "{\"metadata\":{\"name\":\"a\"}}", 0, 0);
	should(gpu,
	       "{\"metadata\":{\"name\":\"g\",\"labels\":{\"nvidia.com/gpu.present\":\"true\"}},"
	       "\"spec\":{\"taints\":[{\"key\":\"nvidia.com/gpu\",\"effect\":\"NoSchedule\"}]}}",
	       1, 1);
	should(pinned, "{\"metadata\":{\"name\":\"a\"}}", 1, 1);
	should(pinned, "{\"metadata\":{\"name\":\"b\"}}", 0, 0);
	should(aff, "{\"metadata\":{\"name\":\"a\",\"labels\":{\"zone\":\"z1\"}}}", 1, 1);
	should(aff, "{\"metadata\":{\"name\":\"a\",\"labels\":{\"zone\":\"z2\"}}}", 0, 0);
	json_decref(plain);
	json_decref(gpu);
	json_decref(pinned);
	json_decref(aff);
}

static void test_tolerations(void **state)
{
	json_t *spec = J("{\"hostNetwork\":true,\"tolerations\":[{\"key\":\"node.kubernetes.io/not-ready\","
			 "\"operator\":\"Exists\",\"effect\":\"NoExecute\",\"tolerationSeconds\":30},"
			 "{\"key\":\"own\",\"operator\":\"Exists\"}]}");
	json_t *tols, *t;
	size_t i;
	int notready = 0;

	(void)state;
	sk_ds_add_tolerations(spec);
	tols = json_object_get(spec, "tolerations");
	assert_int_equal(json_array_size(tols), 8); /* own + 7 */
	json_array_foreach(tols, i, t) {
		const char *k = json_string_value(json_object_get(t, "key"));

		if (!strcmp(k, "node.kubernetes.io/not-ready")) {
			notready++;
			assert_null(json_object_get(t, "tolerationSeconds"));
			assert_string_equal(json_string_value(json_object_get(t, "operator")), "Exists");
		}
	}
	assert_int_equal(notready, 1);
	/* idempotent */
	sk_ds_add_tolerations(spec);
	assert_int_equal(json_array_size(json_object_get(spec, "tolerations")), 8);
	json_decref(spec);
}

static void test_node_affinity(void **state)
{
	json_t *a = J("{}");
	json_t *b = J("{\"affinity\":{\"nodeAffinity\":{\"requiredDuringSchedulingIgnoredDuringExecution\":"
		      "{\"nodeSelectorTerms\":[{\"matchExpressions\":[{\"key\":\"zone\",\"operator\":\"In\","
		      "\"values\":[\"z1\"]}],\"matchFields\":[{\"key\":\"metadata.name\",\"operator\":\"In\","
		      "\"values\":[\"old\"]}]}]}}}}");
	json_t *want = J("[{\"matchFields\":[{\"key\":\"metadata.name\",\"operator\":\"In\",\"values\":[\"n1\"]}]}]");
	json_t *pod;

	(void)state;
	sk_ds_set_node_affinity(a, "n1");
	assert_true(json_equal(json_object_get(json_object_get(json_object_get(json_object_get(a, "affinity"),
										   "nodeAffinity"),
								 "requiredDuringSchedulingIgnoredDuringExecution"),
					       "nodeSelectorTerms"),
			       want));
	sk_ds_set_node_affinity(b, "n2");
	pod = json_pack("{s:O}", "spec", b);
	assert_string_equal(sk_ds_target_node(pod), "n2");
	json_decref(pod);
	pod = J("{\"spec\":{\"nodeName\":\"bound\"}}");
	assert_string_equal(sk_ds_target_node(pod), "bound");
	json_decref(pod);
	pod = J("{\"spec\":{}}");
	assert_null(sk_ds_target_node(pod));
	json_decref(pod);
	json_decref(a);
	json_decref(b);
	json_decref(want);
}

#define OLD_AVAIL {.ok = 1, .has_old = 1, .old_avail = 1, .should_run = 1}
#define NEW_AVAIL {.ok = 1, .has_new = 1, .new_avail = 1, .should_run = 1}
#define NEW_WAIT {.ok = 1, .has_new = 1, .should_run = 1}

static int count(sk_ds_node_state *s, size_t n, int create)
{
	int c = 0;

	for (size_t i = 0; i < n; i++)
		c += create ? s[i].create_new : s[i].delete_old;
	return c;
}

static void test_rolling_plan(void **state)
{
	(void)state;
	{
		/* maxUnavailable 1: one old pod at a time */
		sk_ds_node_state s[] = {OLD_AVAIL, OLD_AVAIL, OLD_AVAIL};

		sk_ds_plan_rolling(s, 3, 0, 1);
		assert_int_equal(count(s, 3, 0), 1);
		assert_int_equal(count(s, 3, 1), 0);
	}
	{
		/* a new pod not yet available uses the budget */
		sk_ds_node_state s[] = {NEW_WAIT, OLD_AVAIL, OLD_AVAIL};

		sk_ds_plan_rolling(s, 3, 0, 1);
		assert_int_equal(count(s, 3, 0), 0);
		sk_ds_plan_rolling(s, 3, 0, 2);
		assert_int_equal(count(s, 3, 0), 1);
	}
	{
		/* unavailable old pods are replaced regardless; an empty node counts */
		sk_ds_node_state s[] = {{.ok = 1, .has_old = 1, .should_run = 1}, {.ok = 1}, OLD_AVAIL};

		sk_ds_plan_rolling(s, 3, 0, 1);
		assert_true(s[0].delete_old);
		assert_false(s[2].delete_old);
	}
	{
		/* maxSurge 1: a new pod first, the old one once it is available */
		sk_ds_node_state s[] = {OLD_AVAIL, OLD_AVAIL,
					{.ok = 1, .has_old = 1, .old_avail = 1, .has_new = 1, .new_avail = 0}};

		sk_ds_plan_rolling(s, 3, 1, 0);
		assert_int_equal(count(s, 3, 1), 0);
		assert_int_equal(count(s, 3, 0), 0);
		s[2].new_avail = 1;
		sk_ds_plan_rolling(s, 3, 1, 0);
		/* the surge budget moves on to the next node in the same pass */
		assert_true(s[2].delete_old);
		assert_int_equal(count(s, 3, 1), 1);
		s[2] = (sk_ds_node_state)NEW_AVAIL;
		sk_ds_plan_rolling(s, 3, 1, 0);
		assert_int_equal(count(s, 3, 1), 1);
		assert_int_equal(count(s, 3, 0), 0);
	}
	{
		/* surge: an unavailable old pod gets its replacement at once, or
		 * is removed where the node no longer qualifies */
		sk_ds_node_state s[] = {{.ok = 1, .has_old = 1, .should_run = 1}, {.ok = 1, .has_old = 1}};

		sk_ds_plan_rolling(s, 2, 1, 0);
		assert_true(s[0].create_new);
		assert_true(s[1].delete_old);
		assert_false(s[1].create_new);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_node_should_run),
		cmocka_unit_test(test_tolerations),
		cmocka_unit_test(test_node_affinity),
		cmocka_unit_test(test_rolling_plan),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
