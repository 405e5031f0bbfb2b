/* Preemption and gang scheduling cores. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "sched/gang.h"
#include "sched/preempt.h"
#include "util/util.h"

static sk_snode *node(sk_cache *c, const char *name, const char *cpu, const char *taint)
{
	json_t *n = json_pack("{s:{s:s}, s:{s:o}, s:{s:{s:s, s:s, s:s}, s:[{s:s, s:s}]}}", "metadata", "name", name,
			      "spec", "taints",
			      taint ? json_pack("[{s:s, s:s}]", "key", taint, "effect", "NoSchedule") : json_array(),
			      "status", "allocatable", "cpu", cpu, "memory", "64Gi", "pods", "110", "conditions", "type",
			      "Ready", "status", "True");
	sk_snode *sn = sk_cache_node_upsert(c, n, NULL);

	json_decref(n);
	return sn;
}

static sk_spod *pod(const char *name, const char *cpu, int prio, const char *extra_spec_key, json_t *extra)
{
	json_t *j = json_pack("{s:{s:s, s:s, s:s, s:s}, s:{s:i, s:[{s:s, s:{s:{s:s}}}]}}", "metadata", "name", name,
			      "namespace", "ns", "uid", name, "creationTimestamp", "2026-01-01T00:00:00Z", "spec",
			      "priority", prio, "containers", "name", "c", "resources", "requests", "cpu", cpu);
	sk_spod *p;

	if (extra_spec_key)
		json_object_set_new(json_object_get(j, "spec"), extra_spec_key, extra);
	p = sk_spod_new(j, NULL);
	json_decref(j);
	return p;
}

static sk_spod *place(sk_cache *c, sk_spod *p, const char *n)
{
	sk_spod_set_node(p, n);
	sk_cache_pod_add(c, p);
	return p;
}

static void try_preempt(sk_cache *c, sk_spod *p, sk_preemption *pr, int *rc)
{
	sk_algo a;
	sk_result res;

	sk_algo_init(&a, c, 1);
	assert_int_equal(sk_algo_schedule(&a, NULL, p, NULL, &res), -1);
	*rc = sk_preempt(c, p, NULL, &res, pr);
	sk_result_release(&res);
	sk_algo_release(&a);
}

static int has_victim(const sk_preemption *pr, const char *name)
{
	for (int i = 0; i < pr->nvictims; i++)
		if (strcmp(pr->victims[i]->name, name) == 0)
			return 1;
	return 0;
}

static void test_minimal_victims(void **state)
{
	sk_cache c;
	sk_spod *v[6], *p;
	sk_preemption pr;
	int rc;

	sk_cache_init(&c);
	node(&c, "n1", "4", NULL);
	node(&c, "n2", "4", NULL);
	/* n1: four 1-cpu pods of priority 10; n2: one 3-cpu pod of priority 5 and
	 * a 1-cpu pod of priority 50 */
	v[0] = place(&c, pod("a1", "1", 10, NULL, NULL), "n1");
	v[1] = place(&c, pod("a2", "1", 10, NULL, NULL), "n1");
	v[2] = place(&c, pod("a3", "1", 10, NULL, NULL), "n1");
	v[3] = place(&c, pod("a4", "1", 10, NULL, NULL), "n1");
	v[4] = place(&c, pod("b1", "3", 5, NULL, NULL), "n2");
	v[5] = place(&c, pod("b2", "1", 50, NULL, NULL), "n2");
	/* needs 2 cpu at priority 100: n1 needs 2 victims of prio 10, n2 one of
	 * prio 5 -> n2 (lowest highest-victim priority), only b1 */
	p = pod("p", "2", 100, NULL, NULL);
	try_preempt(&c, p, &pr, &rc);
	assert_int_equal(rc, 0);
	assert_string_equal(pr.node->name, "n2");
	assert_int_equal(pr.nvictims, 1);
	assert_true(has_victim(&pr, "b1"));
	sk_preemption_release(&pr);
	sk_spod_free(p);
	/* at priority 20 b2 (50) is safe too; needs 4 cpu: n1 all four (prio 10) vs
	 * n2 impossible (b2 stays) -> n1 */
	p = pod("q", "4", 20, NULL, NULL);
	try_preempt(&c, p, &pr, &rc);
	assert_int_equal(rc, 0);
	assert_string_equal(pr.node->name, "n1");
	assert_int_equal(pr.nvictims, 4);
	sk_preemption_release(&pr);
	sk_spod_free(p);
	/* 1.5 cpu at priority 11 on n1 only (nodeName): two of the four suffice */
	p = pod("r", "1500m", 11, "nodeName", json_string("n1"));
	try_preempt(&c, p, &pr, &rc);
	assert_int_equal(rc, 0);
	assert_int_equal(pr.nvictims, 2);
	sk_preemption_release(&pr);
	sk_spod_free(p);
	for (int i = 0; i < 6; i++) {
		sk_cache_pod_remove(&c, v[i]);
		sk_spod_free(v[i]);
	}
	sk_cache_release(&c);
}

static void test_not_helpful(void **state)
{
	sk_cache c;
	sk_spod *v, *p;
	sk_preemption pr;
	int rc;

	sk_cache_init(&c);
	node(&c, "n1", "2", NULL);
	node(&c, "t1", "8", "gpu");
	v = place(&c, pod("hi", "2", 1000, NULL, NULL), "n1");
	p = pod("p", "1", 10, NULL, NULL);
	try_preempt(&c, p, &pr, &rc);
	assert_int_equal(rc, -1);
	assert_string_equal(pr.message, "preemption: 0/2 nodes are available: 1 No preemption victims found for incoming "
					"pod, 1 Preemption is not helpful for scheduling.");
	sk_preemption_release(&pr);
	sk_spod_free(p);
	p = pod("p", "1", 10000, "preemptionPolicy", json_string("Never"));
	try_preempt(&c, p, &pr, &rc);
	assert_int_equal(rc, -1);
	assert_string_equal(pr.message, "preemption: not eligible due to preemptionPolicy=Never.");
	sk_preemption_release(&pr);
	sk_spod_free(p);
	sk_cache_pod_remove(&c, v);
	sk_spod_free(v);
	sk_cache_release(&c);
}

static void test_nominated_pods_reserve(void **state)
{
	sk_cache c;
	sk_spod *nom, *p;
	sk_algo a;
	sk_result res;

	sk_cache_init(&c);
	node(&c, "n1", "2", NULL);
	nom = pod("nom", "2", 100, NULL, NULL);
	sk_cache_nominate(&c, nom, "n1");
	/* a lower-priority pod must not take the room held for the nominated one */
	p = pod("low", "1", 1, NULL, NULL);
	sk_algo_init(&a, &c, 1);
	assert_int_equal(sk_algo_schedule(&a, NULL, p, NULL, &res), -1);
	assert_string_equal(res.message, "0/1 nodes are available: 1 Insufficient cpu.");
	sk_result_release(&res);
	sk_spod_free(p);
	/* a higher-priority one may */
	p = pod("high", "1", 1000, NULL, NULL);
	assert_int_equal(sk_algo_schedule(&a, NULL, p, NULL, &res), 0);
	sk_result_release(&res);
	sk_spod_free(p);
	sk_algo_release(&a);
	sk_cache_unnominate(&c, nom);
	sk_spod_free(nom);
	sk_cache_release(&c);
}

/* ---- gang ---- */

static sk_spod *member(const char *name, const char *group)
{
	json_t *j = json_pack("{s:{s:s, s:s, s:{s:s}}, s:{s:[{s:s}]}, s:{s:s}}", "metadata", "name", name, "namespace",
			      "ns", "labels", SK_GANG_LABEL, group, "spec", "containers", "name", "c", "status", "phase",
			      "Pending");
	sk_spod *p = sk_spod_new(j, NULL);

	json_decref(j);
	return p;
}

static void test_gang_quorum(void **state)
{
	sk_gangs g;
	sk_gang *x;
	sk_spod *m[3];
	json_t *pg = json_pack("{s:{s:s, s:s}, s:{s:i, s:i}}", "metadata", "name", "train", "namespace", "ns", "spec",
			       "minMember", 3, "scheduleTimeoutSeconds", 90);
	char *msg = NULL;
	struct sk_gang_counts cnt;
	sk_spod **w;
	int n;

	sk_gangs_init(&g);
	m[0] = member("m0", "train");
	sk_gangs_pod_set(&g, m[0]);
	assert_null(sk_gangs_for_pod(&g, m[0])); /* no PodGroup yet: a plain pod */
	sk_gangs_podgroup_upsert(&g, pg);
	json_decref(pg);
	x = sk_gangs_for_pod(&g, m[0]);
	assert_non_null(x);
	assert_int_equal(sk_gang_prefilter(x, m[0], &msg), -1);
	assert_string_equal(msg, "pre-filter pod m0 cannot find enough sibling pods, current pods number: 1, "
				 "minMember of group: 3");
	free(msg);
	assert_string_equal(sk_gang_phase(x, (sk_gang_counts(x, &cnt), &cnt)), "Pending");
	m[1] = member("m1", "train");
	m[2] = member("m2", "train");
	sk_gangs_pod_set(&g, m[1]);
	sk_gangs_pod_set(&g, m[2]);
	assert_int_equal(sk_gang_prefilter(x, m[0], &msg), 0);
	sk_gang_counts(x, &cnt);
	assert_string_equal(sk_gang_phase(x, &cnt), "PreScheduling");
	/* reserve two: waiting; the third reaches the quorum */
	sk_spod_set_node(m[0], "n1");
	assert_int_equal(sk_gang_reserve(x, m[0], 100), 0);
	assert_string_equal(sk_gang_phase(x, (sk_gang_counts(x, &cnt), &cnt)), "Scheduling");
	sk_spod_set_node(m[1], "n1");
	assert_int_equal(sk_gang_reserve(x, m[1], 200), 0);
	assert_false(sk_gang_timed_out(x, 100 + 89 * 1000000000LL));
	assert_true(sk_gang_timed_out(x, 100 + 90 * 1000000000LL));
	msg = sk_gang_timeout_message(x);
	assert_string_equal(msg, "rejected due to timeout after waiting 1m30s at plugin Coscheduling");
	free(msg);
	sk_spod_set_node(m[2], "n2");
	assert_int_equal(sk_gang_reserve(x, m[2], 300), 1);
	w = sk_gang_take_waiting(x, &n);
	assert_int_equal(n, 3);
	free(w);
	sk_gang_counts(x, &cnt);
	assert_int_equal(cnt.scheduled, 3);
	assert_string_equal(sk_gang_phase(x, &cnt), "Scheduled");
	for (int i = 0; i < 3; i++) {
		sk_gangs_pod_remove(&g, m[i]);
		sk_spod_free(m[i]);
	}
	sk_gangs_release(&g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_minimal_victims),
		cmocka_unit_test(test_not_helpful),
		cmocka_unit_test(test_nominated_pods_reserve),
		cmocka_unit_test(test_gang_quorum),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
