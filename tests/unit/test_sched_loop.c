/* The scheduler loop end to end against a mock sk_client (the ops vtable of
 * client-int.h): list+watch, binding, status patches, events, preemption
 * and gangs, without the API server. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <pthread.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sched/sched-int.h"
#include "test_sched_mock.h"

/* ---- tests ---- */

/* Polls cond for up to 60 s of wall time: a loaded 2-core machine (CI runs
 * the sanitizer builds beside the e2e suite) can take seconds per step. */
static void wait_for(int (*cond)(void *), void *arg)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		if (cond(arg))
			return;
		usleep(2000);
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while (t.tv_sec - t0.tv_sec < 60);
	assert_true(cond(arg));
}


static int binds_at_least(void *arg)
{
	int n;

	pthread_mutex_lock(&M.mu);
	n = M.binds;
	pthread_mutex_unlock(&M.mu);
	return n >= (int)(intptr_t)arg;
}

static sk_sched *queue_sched;

static int queue_holds(void *arg)
{
	sk_sched_stats st;

	sk_sched_get_stats(queue_sched, &st);
	return st.pending >= (int)(intptr_t)arg;
}

static void test_many_pods_bound(void **state)
{
	sk_client *c = mock_new();
	sk_error_t err = {0};
	sk_sched_stats st;
	sk_sched *s;
	int per_node[20] = {0};

	for (int i = 0; i < 20; i++) {
		char name[16];

		snprintf(name, sizeof(name), "node-%02d", i);
		add_node(name, "4", 0, NULL);
	}
	for (int i = 0; i < 300; i++) {
		char name[16];

		snprintf(name, sizeof(name), "pod-%03d", i);
		mock_add("/api/v1/pods", pod_json(name, "250m", 0, 0, NULL));
	}
	s = sk_sched_start(c, NULL, &err);
	assert_non_null(s);
	queue_sched = s;
	wait_for(binds_at_least, (void *)(intptr_t)300);
	assert_int_equal(sk_sched_wait_idle(s, 5000), 0);
	/* 20 nodes x 4 cpu / 250m = 320 slots: all 300 fit, spread least-allocated */
	for (int i = 0; i < 300; i++) {
		char name[16];
		const char *n;

		snprintf(name, sizeof(name), "pod-%03d", i);
		n = node_of(name);
		assert_non_null(n);
		per_node[atoi(n + 5)]++;
	}
	for (int i = 0; i < 20; i++)
		assert_true(per_node[i] <= 16);
	/* 10 more than fit: 20 of them stay pending with the FitError */
	for (int i = 300; i < 340; i++) {
		char name[16];

		snprintf(name, sizeof(name), "pod-%03d", i);
		mock_add("/api/v1/pods", pod_json(name, "250m", 0, 0, NULL));
	}
	wait_for(binds_at_least, (void *)(intptr_t)320);
	/* the last of the 40 may still be on their way from the mock's watch
	 * when the 320th binds: wait until the queue holds all 20 left over */
	wait_for(queue_holds, (void *)(intptr_t)20);
	assert_int_equal(sk_sched_wait_idle(s, 5000), 0);
	sk_sched_get_stats(s, &st);
	assert_int_equal(st.bound, 320);
	assert_int_equal(M.binds, 320);
	assert_int_equal(st.pending, 20);
	{
		int unsched = 0;

		for (int i = 300; i < 340; i++) {
			char name[16];
			const char *msg;

			snprintf(name, sizeof(name), "pod-%03d", i);
			if (node_of(name))
				continue;
			unsched++;
			for (int k = 0; k < 200 && !(msg = condition_msg(name)); k++)
				usleep(5000);
			assert_string_equal(msg, "0/20 nodes are available: 20 Insufficient cpu. preemption: 0/20 nodes are "
						 "available: 20 No preemption victims found for incoming pod.");
		}
		assert_int_equal(unsched, 20);
	}
	sk_sched_stop(s);
	sk_client_free(c);
}

static void test_bind_conflict_retried(void **state)
{
	sk_client *c = mock_new();
	sk_sched *s;

	add_node("n1", "4", 0, NULL);
	M.fail_binds = 1;
	mock_add("/api/v1/pods", pod_json("p", "1", 0, 0, NULL));
	s = sk_sched_start(c, NULL, NULL);
	/* first bind is rejected, the pod backs off 1 s and binds on retry */
	wait_for(binds_at_least, (void *)(intptr_t)1);
	assert_string_equal(node_of("p"), "n1");
	assert_int_equal(M.bind_conflicts, 1);
	sk_sched_stop(s);
	sk_client_free(c);
}

static int deleted_one(void *arg)
{
	int n;

	pthread_mutex_lock(&M.mu);
	n = M.deletes;
	pthread_mutex_unlock(&M.mu);
	return n >= 1;
}

static int bound(void *arg)
{
	return node_of(arg) != NULL;
}

static void test_preemption(void **state)
{
	sk_client *c = mock_new();
	sk_sched *s;

	add_node("n1", "2", 1, NULL);
	mock_add("/api/v1/pods", pod_json("low", "1", 1, 1, NULL));
	mock_add("/api/v1/pods", pod_json("low2", "500m", 0, 1, NULL));
	s = sk_sched_start(c, NULL, NULL);
	wait_for(binds_at_least, (void *)(intptr_t)2);
	/* the GPU is taken by "low": "high" preempts exactly it, not low2 */
	mock_add("/api/v1/pods", pod_json("high", "500m", 1, 1000, NULL));
	wait_for(deleted_one, NULL);
	wait_for(bound, "high");
	assert_string_equal(node_of("high"), "n1");
	assert_int_equal(M.deletes, 1);
	assert_null(get_obj("/api/v1/pods", "default", "low"));
	assert_non_null(get_obj("/api/v1/pods", "default", "low2"));
	sk_sched_stop(s);
	sk_client_free(c);
}

static int pg_phase_is(void *arg)
{
	int ok;

	pthread_mutex_lock(&M.mu);
	ok = M.last_pg_status &&
	     strcmp(json_string_value(json_object_get(M.last_pg_status, "phase")), (const char *)arg) == 0;
	pthread_mutex_unlock(&M.mu);
	return ok;
}

static void test_gang_all_or_nothing(void **state)
{
	sk_client *c = mock_new();
	sk_sched *s;
	json_t *pg = json_pack("{s:s, s:s, s:{s:s, s:s}, s:{s:i, s:i}}", "apiVersion", "scheduling.x-k8s.io/v1alpha1",
			       "kind", "PodGroup", "metadata", "name", "train", "namespace", "default", "spec", "minMember",
			       4, "scheduleTimeoutSeconds", 2);

	add_node("g1", "8", 2, NULL);
	add_node("g2", "8", 1, NULL);
	mock_add("/apis/scheduling.x-k8s.io/v1alpha1/podgroups", pg);
	/* 4 members need 4 GPUs, the cluster has 3: nothing may bind */
	for (int i = 0; i < 4; i++) {
		char name[16];

		snprintf(name, sizeof(name), "w%d", i);
		mock_add("/api/v1/pods", pod_json(name, "1", 1, 0, "train"));
	}
	s = sk_sched_start(c, NULL, NULL);
	assert_int_equal(sk_sched_wait_idle(s, 5000), 0);
	usleep(100000);
	assert_int_equal(M.binds, 0);
	/* a plain GPU pod is not starved by the gang's reservations */
	mock_add("/api/v1/pods", pod_json("solo", "1", 1, 0, NULL));
	wait_for(bound, "solo");
	assert_int_equal(M.binds, 1);
	/* one more GPU node: after the solo pod goes away all four bind together */
	pthread_mutex_lock(&M.mu);
	emit("/api/v1/pods", "DELETED", json_deep_copy(get_obj("/api/v1/pods", "default", "solo")));
	pthread_mutex_unlock(&M.mu);
	add_node("g3", "8", 1, NULL);
	wait_for(binds_at_least, (void *)(intptr_t)5);
	for (int i = 0; i < 4; i++) {
		char name[16];

		snprintf(name, sizeof(name), "w%d", i);
		wait_for(bound, name);
	}
	wait_for(pg_phase_is, "Scheduled");
	sk_sched_stop(s);
	sk_client_free(c);
}

static void test_gang_too_few_members(void **state)
{
	sk_client *c = mock_new();
	sk_sched *s;
	const char *msg = NULL;
	json_t *pg = json_pack("{s:{s:s, s:s}, s:{s:i}}", "metadata", "name", "g", "namespace", "default", "spec",
			       "minMember", 3);

	add_node("n1", "8", 0, NULL);
	mock_add("/apis/scheduling.x-k8s.io/v1alpha1/podgroups", pg);
	mock_add("/api/v1/pods", pod_json("m0", "1", 0, 0, "g"));
	s = sk_sched_start(c, NULL, NULL);
	for (int k = 0; k < 500 && !(msg = condition_msg("m0")); k++)
		usleep(5000);
	assert_string_equal(msg, "0/1 nodes are available: pre-filter pod m0 cannot find enough sibling pods, "
				 "current pods number: 1, minMember of group: 3. PodGroup default/g gets rejected due to "
				 "Pod m0 is unschedulable even after PostFilter");
	wait_for(pg_phase_is, "Pending");
	mock_add("/api/v1/pods", pod_json("m1", "1", 0, 0, "g"));
	mock_add("/api/v1/pods", pod_json("m2", "1", 0, 0, "g"));
	wait_for(binds_at_least, (void *)(intptr_t)3);
	wait_for(pg_phase_is, "Scheduled");
	sk_sched_stop(s);
	sk_client_free(c);
}

static json_t *with(json_t *pod, const char *field, json_t *v)
{
	json_object_set_new(json_object_get(pod, "spec"), field, v);
	return pod;
}

static void test_profiles_and_priority_class(void **state)
{
	sk_client *c = mock_new();
	sk_sched_profile profs[2] = {{"default-scheduler", SK_STRATEGY_LEAST_ALLOCATED, 0, 0},
				     {"packer", SK_STRATEGY_MOST_ALLOCATED, 0, 0}};
	sk_sched_options o = {.profiles = profs, .nprofiles = 2, .workers = 2, .seed = 7};
	sk_sched *s;
	json_t *vip;

	add_node("n1", "4", 0, NULL);
	add_node("n2", "4", 0, NULL);
	mock_add("/apis/scheduling.k8s.io/v1/priorityclasses",
		 json_pack("{s:{s:s}, s:i}", "metadata", "name", "urgent", "value", 1000000));
	mock_add("/api/v1/pods", with(pod_json("other", "1", 0, 0, NULL), "schedulerName", json_string("someone-else")));
	mock_add("/api/v1/pods", with(pod_json("p1", "1", 0, 0, NULL), "schedulerName", json_string("packer")));
	mock_add("/api/v1/pods", with(pod_json("p2", "1", 0, 0, NULL), "schedulerName", json_string("packer")));
	s = sk_sched_start(c, &o, NULL);
	wait_for(binds_at_least, (void *)(intptr_t)2);
	/* MostAllocated packs the second pod next to the first */
	assert_string_equal(node_of("p1"), node_of("p2"));
	for (int i = 0; i < 6; i++) {
		char name[16];

		snprintf(name, sizeof(name), "fill%d", i);
		mock_add("/api/v1/pods", pod_json(name, "1", 0, 0, NULL));
	}
	wait_for(binds_at_least, (void *)(intptr_t)8);
	/* no spec.priority: the PriorityClass gives it 1000000, so it preempts */
	vip = pod_json("vip", "1", 0, 0, NULL);
	json_object_del(json_object_get(vip, "spec"), "priority");
	mock_add("/api/v1/pods", with(vip, "priorityClassName", json_string("urgent")));
	wait_for(deleted_one, NULL);
	wait_for(bound, "vip");
	assert_int_equal(sk_sched_wait_idle(s, 5000), 0);
	assert_null(node_of("other"));
	assert_int_equal(M.deletes, 1);
	sk_sched_stop(s);
	sk_client_free(c);
}

struct attempts_arg {
	sk_sched *s;
	uint64_t n;
};

static int attempts_at_least(void *arg)
{
	struct attempts_arg *a = arg;
	sk_sched_stats st;

	sk_sched_get_stats(a->s, &st);
	return st.attempts >= a->n;
}

static int conditions_set(void *arg)
{
	return condition_msg("w1") && condition_msg("w2");
}

/* A node change that helps nobody: the pending pods are tried again. */
static void touch_node(sk_sched *s, int round)
{
	char r[16];
	json_t *n;
	sk_sched_stats st;
	struct attempts_arg a = {s, 0};

	sk_sched_get_stats(s, &st);
	a.n = st.attempts + 2;
	snprintf(r, sizeof(r), "%d", round);
	n = json_pack("{s:{s:s, s:{s:s, s:s}}, s:{s:[]}, s:{s:{s:s, s:s, s:s}, s:[{s:s, s:s}]}}", "metadata", "name",
		      "n1", "labels", "kubernetes.io/hostname", "n1", "round", r, "spec", "taints", "status",
		      "allocatable", "cpu", "1", "memory", "64Gi", "pods", "110", "conditions", "type", "Ready", "status",
		      "True");
	mock_add("/api/v1/nodes", n);
	wait_for(attempts_at_least, &a);
	assert_int_equal(sk_sched_wait_idle(s, 5000), 0);
}

/* Pods that keep failing for the same reason: the first failure writes the
 * condition and creates the event, the second bumps the event's count, later
 * ones write nothing until the refresh; a pod that finishes or is deleted
 * wakes the pods its node's resources were missing for (AssignedPodDelete),
 * without waiting for the five-minute flush. */
static void test_repeated_failures_and_wake(void **state)
{
	sk_client *c = mock_new();
	sk_sched_stats st0, st;
	sk_error_t err = {0};
	const char *msg = "0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: 1 No "
			  "preemption victims found for incoming pod.";
	sk_sched *s;
	json_t *run;

	add_node("n1", "1", 0, NULL);
	mock_add("/api/v1/pods", pod_json("run", "1", 0, 0, NULL));
	s = sk_sched_start(c, NULL, &err);
	assert_non_null(s);
	wait_for(binds_at_least, (void *)(intptr_t)1);
	assert_int_equal(sk_sched_wait_idle(s, 5000), 0);
	sk_sched_get_stats(s, &st0);
	mock_add("/api/v1/pods", pod_json("w1", "1", 0, 0, NULL));
	mock_add("/api/v1/pods", pod_json("w2", "1", 0, 0, NULL));
	wait_for(conditions_set, NULL);
	assert_int_equal(sk_sched_wait_idle(s, 5000), 0);
	assert_string_equal(condition_msg("w1"), msg);
	sk_sched_get_stats(s, &st);
	assert_int_equal(st.status_writes - st0.status_writes, 2);
	assert_int_equal(st.event_writes - st0.event_writes, 2); /* two FailedScheduling creates */
	st0 = st;
	/* second failure: no status write, the event's count goes to 2 */
	touch_node(s, 1);
	sk_sched_get_stats(s, &st);
	assert_int_equal(st.status_writes, st0.status_writes);
	assert_int_equal(st.event_writes - st0.event_writes, 2);
	st0 = st;
	/* third and fourth: nothing written */
	touch_node(s, 2);
	touch_node(s, 3);
	sk_sched_get_stats(s, &st);
	assert_int_equal(st.status_writes, st0.status_writes);
	assert_int_equal(st.event_writes, st0.event_writes);
	assert_int_equal(st.unschedulable - st0.unschedulable, 4);
	/* the refresh writes each count once */
	sk__sched_events_refresh(s);
	sk__sched_events_refresh(s);
	sk_sched_get_stats(s, &st);
	assert_int_equal(st.event_writes - st0.event_writes, 2);
	/* "run" succeeds: one waiting pod gets its cpu */
	pthread_mutex_lock(&M.mu);
	run = json_deep_copy(get_obj("/api/v1/pods", "default", "run"));
	json_object_set_new(json_object_get(run, "status"), "phase", json_string("Succeeded"));
	emit("/api/v1/pods", "MODIFIED", run);
	pthread_mutex_unlock(&M.mu);
	wait_for(binds_at_least, (void *)(intptr_t)2);
	assert_int_equal(sk_sched_wait_idle(s, 5000), 0);
	assert_true(!node_of("w1") != !node_of("w2"));
	/* the bound one is deleted: the other one follows */
	assert_int_equal(sk_client_delete(c, node_of("w1") ? "/api/v1/namespaces/default/pods/w1"
							   : "/api/v1/namespaces/default/pods/w2",
					  NULL, &err),
			 0);
	wait_for(binds_at_least, (void *)(intptr_t)3);
	assert_int_equal(sk_sched_wait_idle(s, 5000), 0);
	sk_sched_get_stats(s, &st);
	assert_int_equal(st.pending, 0);
	sk_sched_stop(s);
	sk_client_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_many_pods_bound),
		cmocka_unit_test(test_bind_conflict_retried),
		cmocka_unit_test(test_preemption),
		cmocka_unit_test(test_gang_all_or_nothing),
		cmocka_unit_test(test_gang_too_few_members),
		cmocka_unit_test(test_profiles_and_priority_class),
		cmocka_unit_test(test_repeated_failures_and_wake),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);

	json_decref(M.objs);
	json_decref(M.last_pg_status);
	return rc;
}
