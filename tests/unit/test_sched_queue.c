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
	sk_queue_unschedulable(&q, a->key, 0, now);
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
	sk_queue_unschedulable(&q, a->key, 0, now + 3 * SEC);
	assert_int_equal(sk_queue_count(&q, SK_Q_BACKOFF), 1);
	sk_queue_flush(&q, now + 6 * SEC);
	assert_ptr_equal(sk_queue_pop(&q), a);
	sk_queue_unschedulable(&q, a->key, 0, now + 6 * SEC);
	assert_int_equal(sk_queue_count(&q, SK_Q_UNSCHED), 1);
	/* the 5 minute flush */
	sk_queue_flush(&q, now + 6 * SEC + SK_Q_MAX_UNSCHED + SEC);
	assert_ptr_equal(sk_queue_pop(&q), a);
	/* an update to a parked pod moves it too */
	sk_queue_unschedulable(&q, a->key, 0, now + 400 * SEC);
	sk_queue_update(&q, a, now + 500 * SEC);
	assert_ptr_equal(sk_queue_pop(&q), a);
	sk_queue_delete(&q, a->key);
	sk_queue_delete(&q, b->key);
	assert_int_equal(sk_queue_count(&q, SK_Q_NONE), 0);
	sk_queue_release(&q);
	sk_spod_free(a);
	sk_spod_free(b);
}

/* KEP-5142: with nothing active the scheduler takes the head of the rejected
 * pods' backoff heap instead of idling; errors wait out their backoff. */
static void test_pop_from_backoff(void **state)
{
	sk_queue q;
	sk_spod *a = pod("a", 0, "2026-01-01T00:00:01Z"), *b = pod("b", 0, "2026-01-01T00:00:02Z"),
		*c = pod("c", 0, "2026-01-01T00:00:03Z");
	int64_t now = 1000 * SEC;

	sk_queue_init(&q);
	sk_queue_add(&q, b);
	sk_queue_add(&q, a);
	assert_ptr_equal(sk_queue_pop(&q), a);
	sk_queue_unschedulable(&q, a->key, SK_QH_RESOURCES, now);
	assert_ptr_equal(sk_queue_pop(&q), b);
	sk_queue_unschedulable(&q, b->key, SK_QH_RESOURCES, now);
	assert_int_equal(sk_queue_count(&q, SK_Q_UNSCHED), 2);
	/* parked pods are not popped */
	assert_null(sk_queue_pop(&q));
	/* a pod left a node: both move, still backing off */
	sk_queue_move(&q, SK_QH_RESOURCES, now + SEC / 10);
	assert_int_equal(sk_queue_count(&q, SK_Q_BACKOFF), 2);
	assert_int_equal(sk_queue_count(&q, SK_Q_ACTIVE), 0);
	assert_true(sk_queue_backing_off(&q, sk_queue_get(&q, a->key), now + SEC / 10));
	/* an active pod comes first */
	sk_queue_add(&q, c);
	assert_ptr_equal(sk_queue_pop(&q), c);
	/* then the backoff heap, before expiry, in active order (same window) */
	assert_ptr_equal(sk_queue_pop(&q), a);
	assert_ptr_equal(sk_queue_pop(&q), b);
	assert_null(sk_queue_pop(&q));
	/* a gang member rejected for a sibling's failure backs off, not parks */
	sk_queue_rejected(&q, b->key, 0, now);
	assert_int_equal(sk_queue_get(&q, b->key)->where, SK_Q_BACKOFF);
	assert_ptr_equal(sk_queue_pop(&q), b);
	/* a failed binding goes to the error backoff, which is not popped early */
	sk_queue_backoff(&q, c->key, now);
	assert_int_equal(sk_queue_count(&q, SK_Q_BACKOFF), 1);
	assert_null(sk_queue_pop(&q));
	sk_queue_flush(&q, now + SEC);
	assert_ptr_equal(sk_queue_pop(&q), c);
	sk_queue_release(&q);
	sk_spod_free(a);
	sk_spod_free(b);
	sk_spod_free(c);
}

/* The rejected pods' backoff heap orders by 1 s window, then priority, and
 * releases a window once it has passed (upstream backoffQ ordering windows). */
static void test_backoff_windows(void **state)
{
	sk_queue q;
	sk_spod *lo = pod("lo", 0, "2026-01-01T00:00:01Z"), *hi = pod("hi", 100, "2026-01-01T00:00:02Z");
	int64_t now = 1000 * SEC;

	sk_queue_init(&q);
	sk_queue_add(&q, lo);
	assert_ptr_equal(sk_queue_pop(&q), lo);
	sk_queue_move(&q, SK_QH_ALL, now); /* during its attempt: to backoff */
	sk_queue_unschedulable(&q, lo->key, 0, now);
	sk_queue_add(&q, hi);
	assert_ptr_equal(sk_queue_pop(&q), hi);
	sk_queue_move(&q, SK_QH_ALL, now + SEC / 2);
	sk_queue_unschedulable(&q, hi->key, 0, now + SEC / 2);
	assert_int_equal(sk_queue_count(&q, SK_Q_BACKOFF), 2);
	/* same window (1001 s): the higher priority first, though it failed later */
	assert_int_equal(sk_queue_get(&q, lo->key)->backoff_until, sk_queue_get(&q, hi->key)->backoff_until);
	sk_queue_flush(&q, now + SEC);
	assert_int_equal(sk_queue_count(&q, SK_Q_ACTIVE), 0);
	sk_queue_flush(&q, now + 2 * SEC);
	assert_int_equal(sk_queue_count(&q, SK_Q_ACTIVE), 2);
	assert_ptr_equal(sk_queue_pop(&q), hi);
	assert_ptr_equal(sk_queue_pop(&q), lo);
	sk_queue_release(&q);
	sk_spod_free(lo);
	sk_spod_free(hi);
}

/* QueueingHints by plugin family: an event moves only the unschedulable
 * pods it may help, and an event during an attempt sends the failure to
 * backoff only when it concerns a family that rejected the pod. */
static void test_move_by_family(void **state)
{
	sk_queue q;
	sk_spod *n = pod("n", 0, "2026-01-01T00:00:01Z"), *r = pod("r", 0, "2026-01-01T00:00:02Z"),
		*u = pod("u", 0, "2026-01-01T00:00:03Z");
	int64_t now = 1000 * SEC;

	sk_queue_init(&q);
	sk_queue_add(&q, n);
	sk_queue_add(&q, r);
	sk_queue_add(&q, u);
	assert_ptr_equal(sk_queue_pop(&q), n);
	sk_queue_unschedulable(&q, n->key, SK_QH_NODE, now);
	assert_ptr_equal(sk_queue_pop(&q), r);
	sk_queue_unschedulable(&q, r->key, SK_QH_RESOURCES, now);
	assert_ptr_equal(sk_queue_pop(&q), u);
	sk_queue_unschedulable(&q, u->key, 0, now); /* unknown: every event */
	assert_int_equal(sk_queue_count(&q, SK_Q_UNSCHED), 3);
	/* a pod deleted from a node (AssignedPodDelete) */
	sk_queue_move(&q, SK_QH_RESOURCES | SK_QH_PODS, now + 3 * SEC);
	assert_int_equal(sk_queue_count(&q, SK_Q_UNSCHED), 1);
	assert_int_equal(sk_queue_get(&q, n->key)->where, SK_Q_UNSCHED);
	assert_ptr_equal(sk_queue_pop(&q), r);
	/* a node event while r is tried does not concern NodeResourcesFit... */
	sk_queue_move(&q, SK_QH_NODE, now + 3 * SEC);
	sk_queue_unschedulable(&q, r->key, SK_QH_RESOURCES, now + 3 * SEC);
	assert_int_equal(sk_queue_get(&q, r->key)->where, SK_Q_UNSCHED);
	/* ...and moved n, whose backoff expired */
	assert_int_equal(sk_queue_get(&q, n->key)->where, SK_Q_ACTIVE);
	assert_ptr_equal(sk_queue_pop(&q), n);
	sk_queue_done(&q, n->key);
	assert_ptr_equal(sk_queue_pop(&q), u);
	/* a pod deleted while u is tried: u retries from backoff */
	sk_queue_move(&q, SK_QH_RESOURCES, now + 3 * SEC);
	sk_queue_unschedulable(&q, u->key, SK_QH_RESOURCES, now + 3 * SEC);
	assert_int_equal(sk_queue_get(&q, u->key)->where, SK_Q_BACKOFF);
	sk_queue_release(&q);
	sk_spod_free(n);
	sk_spod_free(r);
	sk_spod_free(u);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_order),
		cmocka_unit_test(test_backoff),
		cmocka_unit_test(test_unschedulable_moves),
		cmocka_unit_test(test_pop_from_backoff),
		cmocka_unit_test(test_backoff_windows),
		cmocka_unit_test(test_move_by_family),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
