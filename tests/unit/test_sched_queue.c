/* Scheduling queue: ordering, backoff, unschedulable parking and moves. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "sched/queue.h"
#include "util/util.h"

#define SEC 1000000000LL

static sk_spod *pod(const char *name, int prio, const char *created)
{
	json_t *j = json_pack("{s:{s:s, s:s, s:s}, s:{s:i, s:[{s:s}]}}", "metadata", "name", name, "namespace", "ns",
			      "creationTimestamp", created, "spec", "priority", prio, "containers", "name", "c");
	sk_spod *p = sk_spod_new(j, NULL);

	json_decref(j);
	return p;
}

static void test_order(void **state)
{
	sk_queue q;
	sk_spod *a = pod("a", 0, "2026-01-01T00:00:02Z"), *b = pod("b", 100, "2026-01-01T00:00:05Z"),
		*c = pod("c", 0, "2026-01-01T00:00:01Z"), *d = pod("d", 100, "2026-01-01T00:00:04Z");

	sk_queue_init(&q);
	sk_queue_add(&q, a);
	sk_queue_add(&q, b);
	sk_queue_add(&q, c);
	sk_queue_add(&q, d);
	sk_queue_add(&q, d); /* no duplicate */
	assert_int_equal(sk_queue_count(&q, SK_Q_ACTIVE), 4);
	/* priority first, then creation time */
	assert_ptr_equal(sk_queue_pop(&q), d);
	assert_ptr_equal(sk_queue_pop(&q), b);
	assert_ptr_equal(sk_queue_pop(&q), c);
	assert_ptr_equal(sk_queue_pop(&q), a);
	assert_null(sk_queue_pop(&q));
	sk_queue_release(&q);
	sk_spod_free(a);
	sk_spod_free(b);
	sk_spod_free(c);
	sk_spod_free(d);
}

static void test_backoff(void **state)
{
	sk_queue q;
	sk_spod *a = pod("a", 0, "2026-01-01T00:00:00Z");
	int64_t now = 1000 * SEC;

	sk_queue_init(&q);
	assert_int_equal(sk_queue_backoff_duration(&q, 1), 1 * SEC);
	assert_int_equal(sk_queue_backoff_duration(&q, 2), 2 * SEC);
	assert_int_equal(sk_queue_backoff_duration(&q, 4), 8 * SEC);
	assert_int_equal(sk_queue_backoff_duration(&q, 5), 10 * SEC);
	assert_int_equal(sk_queue_backoff_duration(&q, 50), 10 * SEC);
	sk_queue_add(&q, a);
	assert_ptr_equal(sk_queue_pop(&q), a);
	sk_queue_backoff(&q, a->key, now);
	assert_int_equal(sk_queue_count(&q, SK_Q_BACKOFF), 1);
	sk_queue_flush(&q, now + SEC / 2);
	assert_null(sk_queue_pop(&q));
	sk_queue_flush(&q, now + SEC);
	assert_ptr_equal(sk_queue_pop(&q), a);
	/* second failure: 2 s */
	sk_queue_backoff(&q, a->key, now);
	sk_queue_flush(&q, now + SEC + SEC / 2);
	assert_null(sk_queue_pop(&q));
	sk_queue_flush(&q, now + 2 * SEC);
	assert_ptr_equal(sk_queue_pop(&q), a);
	sk_queue_done(&q, a->key);
	assert_int_equal(sk_queue_count(&q, SK_Q_NONE), 0);
	sk_queue_release(&q);
	sk_spod_free(a);
}

static void test_unschedulable_moves(void **state)
{
	sk_queue q;
	sk_spod *a = pod("a", 0, "2026-01-01T00:00:00Z"), *b = pod("b", 0, "2026-01-01T00:00:01Z");
	int64_t now = 1000 * SEC;

	sk_queue_init(&q);
	sk_queue_add(&q, a);
	sk_queue_add(&q, b);
	assert_ptr_equal(sk_queue_pop(&q), a);
	sk_queue_unschedulable(&q, a->key, now);
	assert_int_equal(sk_queue_count(&q, SK_Q_UNSCHED), 1);
	/* parked: no flush brings it back before 5 minutes without an event */
	sk_queue_flush(&q, now + 60 * SEC);
	assert_ptr_equal(sk_queue_pop(&q), b);
	assert_null(sk_queue_pop(&q));
	/* a node event moves it; its backoff (1 s) has expired -> active */
	sk_queue_move_all(&q, now + 2 * SEC);
	assert_int_equal(sk_queue_count(&q, SK_Q_ACTIVE), 1);
	assert_ptr_equal(sk_queue_pop(&q), a);
	/* an event during its attempt sends the failure to backoff, not parking */
	sk_queue_move_all(&q, now + 3 * SEC);
	sk_queue_unschedulable(&q, a->key, now + 3 * SEC);
	assert_int_equal(sk_queue_count(&q, SK_Q_BACKOFF), 1);
	sk_queue_flush(&q, now + 6 * SEC);
	assert_ptr_equal(sk_queue_pop(&q), a);
	sk_queue_unschedulable(&q, a->key, now + 6 * SEC);
	assert_int_equal(sk_queue_count(&q, SK_Q_UNSCHED), 1);
	/* the 5 minute flush */
	sk_queue_flush(&q, now + 6 * SEC + SK_Q_MAX_UNSCHED + SEC);
	assert_ptr_equal(sk_queue_pop(&q), a);
	/* an update to a parked pod moves it too */
	sk_queue_unschedulable(&q, a->key, now + 400 * SEC);
	sk_queue_update(&q, a, now + 500 * SEC);
	assert_ptr_equal(sk_queue_pop(&q), a);
	sk_queue_delete(&q, a->key);
	sk_queue_delete(&q, b->key);
	assert_int_equal(sk_queue_count(&q, SK_Q_NONE), 0);
	sk_queue_release(&q);
	sk_spod_free(a);
	sk_spod_free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_order),
		cmocka_unit_test(test_backoff),
		cmocka_unit_test(test_unschedulable_moves),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
