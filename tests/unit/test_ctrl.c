/* Unit tests for the controllers' pure logic: rollout arithmetic and the
 * pod-template hash, cron parsing and next times in time zones, Job
 * backoff, index interval strings, podFailurePolicy and successPolicy
 * matching, the work queue, and the slow start. */
#include <pthread.h>
#include <setjmp.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "kube/cron.h"
#include "ctrl/ctrl-int.h"
#include "ctrl/jobutil.h"
#include "ctrl/rollout.h"
#include "util/util.h"

static int64_t T(const char *s)
{
	int64_t t = -1;

	assert_int_equal(sk_time_parse(s, &t), 0);
	return t;
}

static void test_fenceposts(void **state)
{
	cleanup_json json_t *p25 = json_string("25%"), *p0 = json_string("0%"), *two = json_integer(2);
	int64_t s, u;
	sk_error_t err = {0};

	assert_int_equal(sk_rollout_fenceposts(p25, p25, 10, &s, &u, &err), 0);
	assert_int_equal(s, 3);
	assert_int_equal(u, 2);
	assert_int_equal(sk_rollout_fenceposts(NULL, NULL, 3, &s, &u, &err), 0);
	assert_int_equal(s, 1);
	assert_int_equal(u, 0);
	assert_int_equal(sk_rollout_fenceposts(p0, p0, 5, &s, &u, &err), 0);
	assert_int_equal(s, 0);
	assert_int_equal(u, 1);
	assert_int_equal(sk_rollout_fenceposts(two, p0, 5, &s, &u, &err), 0);
	assert_int_equal(s, 2);
	assert_int_equal(u, 0);
	{
		cleanup_json json_t *bad = json_string("abc");

		assert_int_equal(sk_rollout_fenceposts(bad, p0, 5, &s, &u, &err), -1);
	}
}

static void test_rolling_math(void **state)
{
	/* 3 replicas, surge 1: the new RS grows by one while 4 pods exist */
	assert_int_equal(sk_rollout_new_rs_replicas(3, 1, 3, 0), 1);
	assert_int_equal(sk_rollout_new_rs_replicas(3, 1, 4, 1), 1);
	assert_int_equal(sk_rollout_new_rs_replicas(3, 1, 3, 1), 2);
	assert_int_equal(sk_rollout_new_rs_replicas(3, 1, 0, 2), 3);
	/* maxUnavailable 0: nothing old goes until a new pod is available */
	assert_int_equal(sk_rollout_max_scaled_down(3, 0, 4, 1, 0), 0);
	assert_int_equal(sk_rollout_max_scaled_down(3, 0, 4, 1, 1), 1);
	assert_int_equal(sk_rollout_max_scaled_down(10, 2, 13, 3, 0), 2);
	assert_int_equal(sk_rollout_max_scaled_down(10, 2, 13, 3, 3), 5);
	/* proportional scaling */
	assert_int_equal(sk_rollout_proportion(5, 10, 20, 10, 0), 5);
	assert_int_equal(sk_rollout_proportion(5, 10, 20, 10, 8), 2);
	assert_int_equal(sk_rollout_proportion(5, 10, 6, -4, 0), -2);
	assert_int_equal(sk_rollout_proportion(0, 10, 20, 10, 0), 0);
	assert_int_equal(sk_rollout_proportion(4, 10, 0, -10, 0), -4);
}

static void test_hash(void **state)
{
	cleanup_json json_t *a = json_loads("{\"metadata\":{\"labels\":{\"app\":\"web\"}},\"spec\":{\"containers\":"
					    "[{\"name\":\"c\",\"image\":\"nginx\"}]}}",
					    0, NULL);
	cleanup_json json_t *b = json_deep_copy(a), *c = json_deep_copy(a);
	char ha[16], hb[16], hc[16], hd[16], enc[8];

	json_object_set_new(json_object_get(json_object_get(b, "metadata"), "labels"), "pod-template-hash",
			    json_string("xyz"));
	json_object_set_new(json_array_get(json_object_get(json_object_get(c, "spec"), "containers"), 0), "image",
			    json_string("nginx:2"));
	sk_rollout_hash(a, -1, ha, sizeof(ha));
	sk_rollout_hash(b, -1, hb, sizeof(hb));
	sk_rollout_hash(c, -1, hc, sizeof(hc));
	sk_rollout_hash(a, 1, hd, sizeof(hd));
	assert_string_equal(ha, hb);
	assert_string_not_equal(ha, hc);
	assert_string_not_equal(ha, hd);
	assert_true(strlen(ha) > 0 && strlen(ha) <= 10);
	assert_int_equal(strspn(ha, "bcdfghjklmnpqrstvwxz2456789"), strlen(ha));
	assert_true(sk_rollout_template_equal(a, b));
	assert_false(sk_rollout_template_equal(a, c));
	sk_rollout_safe_encode("01", enc, sizeof(enc));
	assert_string_equal(enc, "45");
}

static int64_t next(const char *spec, const char *from, const char *tz)
{
	sk_error_t err = {0};
	sk_kube_cron *c = sk_kube_cron_parse(spec, &err);
	int64_t r;

	assert_non_null(c);
	r = sk_kube_cron_next(c, T(from), tz);
	sk_kube_cron_free(c);
	return r;
}

static void test_cron_parse(void **state)
{
	static const char *bad[] = {"* * * *",   "60 * * * *",  "* 24 * * *", "* * 0 * *", "* * * 13 *",
				    "* * * * 7", "5-1 * * * *", "@often",     "a * * * *", "*/0 * * * *",
				    "",          "* * * * * *", NULL};
	static const char *good[] = {
		"*/5 * * * *", "0 0 1 1 *", "0 9 * * MON-FRI", "0 0 * jan,jul ?", "1,2,3-5/2 * * * *",
		"@hourly",     "@daily",    "@midnight",       "@weekly",         "@monthly",
		"@yearly",     "@annually", "@every 1h30m",    "0 */2 * * sun",   NULL};
	sk_error_t err = {0};

	for (int i = 0; bad[i]; i++) {
		sk_kube_cron *c = sk_kube_cron_parse(bad[i], &err);

		if (c)
			fail_msg("accepted \"%s\"", bad[i]);
		assert_int_equal(err.code, SK_EINVALID);
	}
	for (int i = 0; good[i]; i++) {
		sk_kube_cron *c = sk_kube_cron_parse(good[i], &err);

		if (!c)
			fail_msg("rejected \"%s\": %s", good[i], err.msg);
		sk_kube_cron_free(c);
	}
}

static void test_cron_next_utc(void **state)
{
	assert_int_equal(next("*/15 * * * *", "2026-01-01T00:07:00Z", "UTC"), T("2026-01-01T00:15:00Z"));
	assert_int_equal(next("*/1 * * * *", "2026-01-01T00:07:00Z", "UTC"), T("2026-01-01T00:08:00Z"));
	assert_int_equal(next("*/1 * * * *", "2026-01-01T00:07:30Z", "UTC"), T("2026-01-01T00:08:00Z"));
	assert_int_equal(next("@hourly", "2026-01-01T00:00:00Z", "UTC"), T("2026-01-01T01:00:00Z"));
	assert_int_equal(next("@daily", "2026-12-31T12:00:00Z", "UTC"), T("2027-01-01T00:00:00Z"));
	assert_int_equal(next("@weekly", "2026-11-30T00:00:00Z", "UTC"), T("2026-12-06T00:00:00Z"));
	assert_int_equal(next("@monthly", "2026-02-15T00:00:00Z", "UTC"), T("2026-03-01T00:00:00Z"));
	assert_int_equal(next("@yearly", "2026-02-15T00:00:00Z", "UTC"), T("2027-01-01T00:00:00Z"));
	assert_int_equal(next("0 9 * * MON-FRI", "2026-11-28T10:00:00Z", "UTC"), T("2026-11-30T09:00:00Z"));
	/* day of month OR day of week when neither is a star */
	assert_int_equal(next("0 0 13 * FRI", "2026-11-01T00:00:00Z", "UTC"), T("2026-11-06T00:00:00Z"));
	assert_int_equal(next("0 0 13 * FRI", "2026-11-10T00:00:00Z", "UTC"), T("2026-11-13T00:00:00Z"));
	assert_int_equal(next("0 0 29 2 *", "2026-03-01T00:00:00Z", "UTC"), T("2028-02-29T00:00:00Z"));
	assert_int_equal(next("0 0 30 2 *", "2026-03-01T00:00:00Z", "UTC"), -1);
	assert_int_equal(next("@every 90s", "2026-01-01T00:00:00Z", "UTC"), T("2026-01-01T00:01:30Z"));
}

static void test_cron_next_zones(void **state)
{
	char buf[48];

	assert_int_equal(next("0 9 * * *", "2026-01-01T00:00:00Z", "America/New_York"), T("2026-01-01T14:00:00Z"));
	assert_int_equal(next("0 9 * * *", "2026-07-01T00:00:00Z", "America/New_York"), T("2026-07-01T13:00:00Z"));
	assert_int_equal(next("0 9 * * *", "2026-07-01T00:00:00Z", "Europe/Berlin"), T("2026-07-01T07:00:00Z"));
	assert_int_equal(next("0 * * * *", "2026-01-01T00:10:00Z", "Asia/Kolkata"), T("2026-01-01T00:30:00Z"));
	/* 02:30 does not exist on the spring-forward day: the next one is the day after */
	assert_int_equal(next("30 2 * * *", "2026-03-08T05:00:00Z", "America/New_York"), T("2026-03-09T06:30:00Z"));
	assert_int_equal(next("0 9 * * *", "2026-01-01T00:00:00Z", "Mars/Olympus"), -1);
	assert_true(sk_kube_cron_zone_valid("Europe/Berlin"));
	assert_false(sk_kube_cron_zone_valid("Europe/Nowhere"));
	assert_false(sk_kube_cron_zone_valid("../../etc/passwd"));
	sk_kube_cron_format_time(T("2026-07-01T13:00:00Z"), "America/New_York", buf, sizeof(buf));
	assert_string_equal(buf, "2026-07-01T09:00:00-04:00");
	sk_kube_cron_format_time(T("2026-07-01T13:00:00Z"), "UTC", buf, sizeof(buf));
	assert_string_equal(buf, "2026-07-01T13:00:00Z");
	sk_kube_cron_format_time(T("2026-01-01T00:00:00Z"), "Asia/Kolkata", buf, sizeof(buf));
	assert_string_equal(buf, "2026-01-01T05:30:00+05:30");
}

static void test_backoff(void **state)
{
	assert_int_equal(sk_job_backoff_secs(0), 0);
	assert_int_equal(sk_job_backoff_secs(1), 10);
	assert_int_equal(sk_job_backoff_secs(2), 20);
	assert_int_equal(sk_job_backoff_secs(3), 40);
	assert_int_equal(sk_job_backoff_secs(6), 320);
	assert_int_equal(sk_job_backoff_secs(7), 360);
	assert_int_equal(sk_job_backoff_secs(1000), 360);
	assert_int_equal(sk__queue_backoff_ms(0), 5);
	assert_int_equal(sk__queue_backoff_ms(3), 40);
	assert_int_equal(sk__queue_backoff_ms(100), 60000);
}

static void check_roundtrip(const char *in, int64_t n, const char *want)
{
	sk_index_set s;
	cleanup_free char *out = NULL;

	sk_index_set_parse(&s, in, n);
	out = sk_index_set_format(&s);
	assert_string_equal(out, want);
	sk_index_set_release(&s);
}

static void test_intervals(void **state)
{
	sk_index_set s;

	check_roundtrip("1,3-5", 10, "1,3-5");
	check_roundtrip("", 10, "");
	check_roundtrip("0,1,2,4", 10, "0-2,4");
	check_roundtrip("3-5,7-12", 10, "3-5,7-9");
	check_roundtrip("0-9", 10, "0-9");
	check_roundtrip("2,x", 10, "2");
	sk_index_set_parse(&s, "1,3-5", 8);
	assert_true(sk_index_set_has(&s, 4));
	assert_false(sk_index_set_has(&s, 2));
	assert_int_equal(sk_index_set_count(&s), 4);
	sk_index_set_add(&s, 2);
	sk_index_set_add(&s, 99);
	{
		cleanup_free char *f = sk_index_set_format(&s);

		assert_string_equal(f, "1-5");
	}
	sk_index_set_release(&s);
}

static json_t *failed_pod(const char *container, int code, const char *cond)
{
	json_t *pod = json_pack("{s:{s:s, s:s}, s:{s:s, s:[{s:s, s:{s:{s:i}}}]}}", "metadata", "name", "p-1",
				"namespace", "default", "status", "phase", "Failed", "containerStatuses", "name",
				container, "state", "terminated", "exitCode", code);

	if (cond)
		json_object_set_new(json_object_get(pod, "status"), "conditions",
				    json_pack("[{s:s, s:s}]", "type", cond, "status", "True"));
	return pod;
}

static void test_pod_failure_policy(void **state)
{
	cleanup_json json_t *pfp = json_loads(
		"{\"rules\":[{\"action\":\"FailJob\",\"onExitCodes\":{\"containerName\":\"main\",\"operator\":\"In\","
		"\"values\":[42]}},{\"action\":\"Ignore\",\"onPodConditions\":[{\"type\":\"DisruptionTarget\"}]},"
		"{\"action\":\"Count\",\"onExitCodes\":{\"operator\":\"NotIn\",\"values\":[1,2]}},"
		"{\"action\":\"FailIndex\",\"onExitCodes\":{\"operator\":\"In\",\"values\":[2]}}]}",
		0, NULL);
	cleanup_json json_t *p42 = failed_pod("main", 42, NULL), *side = failed_pod("side", 42, NULL);
	cleanup_json json_t *dis = failed_pod("main", 1, "DisruptionTarget"), *p1 = failed_pod("main", 1, NULL);
	cleanup_json json_t *p2 = failed_pod("main", 2, NULL);
	char *msg = NULL;

	assert_int_equal(sk_job_pfp_match(pfp, p42, &msg), SK_PFP_FAIL_JOB);
	assert_string_equal(msg, "Container main for pod default/p-1 failed with exit code 42 matching FailJob rule at "
				 "index 0");
	free(msg);
	assert_int_equal(sk_job_pfp_match(pfp, side, NULL), SK_PFP_COUNT);
	assert_int_equal(sk_job_pfp_match(pfp, dis, &msg), SK_PFP_IGNORE);
	assert_string_equal(msg, "Pod default/p-1 has condition DisruptionTarget matching Ignore rule at index 1");
	free(msg);
	assert_int_equal(sk_job_pfp_match(pfp, p1, NULL), SK_PFP_NONE);
	assert_int_equal(sk_job_pfp_match(pfp, p2, NULL), SK_PFP_FAIL_INDEX);
}

static void test_success_policy(void **state)
{
	cleanup_json json_t *sp = json_loads("{\"rules\":[{\"succeededIndexes\":\"0-2\",\"succeededCount\":2},"
					     "{\"succeededCount\":4}]}",
					     0, NULL);
	cleanup_json json_t *all = json_loads("{\"rules\":[{\"succeededIndexes\":\"5,7\"}]}", 0, NULL);
	sk_index_set s;

	sk_index_set_parse(&s, "0,5", 10);
	assert_int_equal(sk_job_success_policy_match(sp, &s), -1);
	sk_index_set_add(&s, 2);
	assert_int_equal(sk_job_success_policy_match(sp, &s), 0);
	sk_index_set_release(&s);
	sk_index_set_parse(&s, "3-6", 10);
	assert_int_equal(sk_job_success_policy_match(sp, &s), 1);
	assert_int_equal(sk_job_success_policy_match(all, &s), -1);
	sk_index_set_add(&s, 7);
	assert_int_equal(sk_job_success_policy_match(all, &s), 0);
	sk_index_set_release(&s);
}

static void test_queue(void **state)
{
	sk_queue *q = sk__queue_new(NULL);
	char *k;

	sk__queue_add(q, "a");
	sk__queue_add(q, "a");
	sk__queue_add(q, "b");
	k = sk__queue_get(q);
	assert_string_equal(k, "a");
	sk__queue_add(q, "a");  /* while processing: comes back after done */
	free(sk__queue_get(q)); /* b */
	sk__queue_done(q, "b");
	sk__queue_done(q, k);
	free(k);
	k = sk__queue_get(q);
	assert_string_equal(k, "a");
	sk__queue_done(q, k);
	free(k);
	sk__queue_add_after(q, "later", 20);
	k = sk__queue_get(q);
	assert_string_equal(k, "later");
	sk__queue_done(q, k);
	free(k);
	sk__queue_shutdown(q);
	assert_null(sk__queue_get(q));
	sk__queue_free(q);
}

static void test_delete_order(void **state)
{
	cleanup_json json_t *pending = json_loads("{\"status\":{\"phase\":\"Pending\"}}", 0, NULL);
	cleanup_json json_t *running = json_loads("{\"spec\":{\"nodeName\":\"n\"},\"status\":{\"phase\":\"Running\"}}",
						  0, NULL);
	cleanup_json json_t *ready = json_loads("{\"spec\":{\"nodeName\":\"n\"},\"status\":{\"phase\":\"Running\","
						"\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\","
						"\"lastTransitionTime\":\"2026-01-01T00:00:00Z\"}]}}",
						0, NULL);

	assert_true(sk__pod_delete_less(pending, running, 0, 0));
	assert_false(sk__pod_delete_less(running, pending, 0, 0));
	assert_true(sk__pod_delete_less(running, ready, 0, 0));
	assert_false(sk__pod_delete_less(ready, running, 0, 0));
}

/* ---- sk__slow_start: batches 1, 2, 4 …, concurrent within a batch ---- */

typedef struct slow_probe {
	atomic_int calls[256];
	atomic_int in_flight, peak;
	int fail[256];
	int rendezvous; /* items wait (bounded) until two are in flight */
	pthread_mutex_t mu;
	pthread_cond_t cv;
} slow_probe;

static int slow_fn(void *ud, int i, sk_error_t *err)
{
	slow_probe *p = ud;
	int now = atomic_fetch_add(&p->in_flight, 1) + 1, peak = atomic_load(&p->peak);

	while (now > peak && !atomic_compare_exchange_weak(&p->peak, &peak, now))
		;
	atomic_fetch_add(&p->calls[i], 1);
	if (p->rendezvous && i > 0) { /* from the second batch on */
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += 30;
		pthread_mutex_lock(&p->mu);
		pthread_cond_broadcast(&p->cv);
		while (atomic_load(&p->peak) < 2 && pthread_cond_timedwait(&p->cv, &p->mu, &ts) == 0)
			;
		pthread_mutex_unlock(&p->mu);
	}
	atomic_fetch_sub(&p->in_flight, 1);
	if (p->fail[i]) {
		err->code = SK_EINVALID;
		snprintf(err->msg, sizeof(err->msg), "item %d failed", i);
		return -1;
	}
	return 0;
}

static slow_probe *probe_new(void)
{
	slow_probe *p = xzalloc(sizeof(*p));

	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->cv, NULL);
	return p;
}

static void probe_free(slow_probe *p)
{
	pthread_mutex_destroy(&p->mu);
	pthread_cond_destroy(&p->cv);
	free(p);
}

static void test_slow_start(void **state)
{
	slow_probe *p = probe_new();
	sk_error_t err = {0};

	/* nothing to do; then all succeed, each item run exactly once, at
	 * most SK_SLOW_START_THREADS at a time and more than one at once */
	assert_int_equal(sk__slow_start(0, slow_fn, p, &err), 0);
	p->rendezvous = 1;
	assert_int_equal(sk__slow_start(200, slow_fn, p, &err), 200);
	for (int i = 0; i < 200; i++)
		assert_int_equal(atomic_load(&p->calls[i]), 1);
	assert_int_equal(atomic_load(&p->calls[200]), 0);
	assert_true(atomic_load(&p->peak) >= 2);
	assert_true(atomic_load(&p->peak) <= SK_SLOW_START_THREADS);
	assert_int_equal(err.code, 0);
	probe_free(p);

	/* the first item fails: nothing else is tried */
	p = probe_new();
	p->fail[0] = 1;
	assert_int_equal(sk__slow_start(10, slow_fn, p, &err), 0);
	assert_int_equal(atomic_load(&p->calls[1]), 0);
	assert_string_equal(err.msg, "item 0 failed");
	probe_free(p);

	/* batches 1, 2, 4 (3…6), 8: item 5 fails, its whole batch runs, the
	 * next batch does not; the successes are 6 */
	p = probe_new();
	p->fail[5] = 1;
	memset(&err, 0, sizeof(err));
	assert_int_equal(sk__slow_start(20, slow_fn, p, &err), 6);
	for (int i = 0; i < 7; i++)
		assert_int_equal(atomic_load(&p->calls[i]), 1);
	for (int i = 7; i < 20; i++)
		assert_int_equal(atomic_load(&p->calls[i]), 0);
	assert_int_equal(err.code, SK_EINVALID);
	assert_string_equal(err.msg, "item 5 failed");
	probe_free(p);

	/* two failures in one batch (7…14): the lowest item's error is kept */
	p = probe_new();
	p->fail[12] = p->fail[8] = 1;
	assert_int_equal(sk__slow_start(100, slow_fn, p, NULL), 13);
	assert_int_equal(sk__slow_start(100, slow_fn, p, &err), 13);
	assert_string_equal(err.msg, "item 8 failed");
	assert_int_equal(atomic_load(&p->calls[14]), 2);
	assert_int_equal(atomic_load(&p->calls[15]), 0);
	probe_free(p);

	/* a count that is not a power of two minus one: the last batch is short */
	p = probe_new();
	assert_int_equal(sk__slow_start(5, slow_fn, p, &err), 5);
	assert_int_equal(atomic_load(&p->calls[4]), 1);
	assert_int_equal(atomic_load(&p->calls[5]), 0);
	probe_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fenceposts),
		cmocka_unit_test(test_rolling_math),
		cmocka_unit_test(test_hash),
		cmocka_unit_test(test_cron_parse),
		cmocka_unit_test(test_cron_next_utc),
		cmocka_unit_test(test_cron_next_zones),
		cmocka_unit_test(test_backoff),
		cmocka_unit_test(test_intervals),
		cmocka_unit_test(test_pod_failure_policy),
		cmocka_unit_test(test_success_policy),
		cmocka_unit_test(test_queue),
		cmocka_unit_test(test_delete_order),
		cmocka_unit_test(test_slow_start),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
