/* Lease-based leader election (src/client/leaderelection.c) over a fake
 * Lease store and a fake clock: acquiring, renewing, taking over an
 * expired lease, the renew deadline, optimistic concurrency and release. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "client/leaderelection.h"
#include "util/util.h"

#define S 1000000000LL

/* One Lease with a resourceVersion; every write checks and bumps it. */
typedef struct fake {
	json_t *lease;
	int rv;
	int64_t mono, wall;
	int fail;      /* every call fails (an API outage) */
	int64_t slow;  /* every call takes this long (ns) before it answers */
	int intervene; /* someone else writes between a get and the next update */
} fake;

static json_t *with_rv(fake *f)
{
	json_t *o = json_deep_copy(f->lease);
	char rv[16];

	snprintf(rv, sizeof(rv), "%d", f->rv);
	json_object_set_new(json_object_get(o, "metadata"), "resourceVersion", json_string(rv));
	return o;
}

static json_t *fake_get(void *ctx, sk_error_t *err)
{
	fake *f = ctx;

	f->mono += f->slow;
	f->wall += f->slow;

	if (f->fail) {
		sk_error_set(err, SK_EUNAVAILABLE, "etcdserver: request timed out");
		return NULL;
	}
	if (!f->lease) {
		sk_error_set(err, SK_ENOTFOUND, "leases \"x\" not found");
		return NULL;
	}
	if (f->intervene) {
		json_t *o = with_rv(f);

		f->intervene = 0;
		f->rv++;
		return o;
	}
	return with_rv(f);
}

static json_t *fake_create(void *ctx, json_t *lease, sk_error_t *err)
{
	fake *f = ctx;

	if (f->fail || f->lease) {
		sk_error_set(err, f->fail ? SK_EUNAVAILABLE : SK_EEXISTS, "no");
		return NULL;
	}
	f->lease = json_deep_copy(lease);
	f->rv++;
	return with_rv(f);
}

static json_t *fake_update(void *ctx, json_t *lease, sk_error_t *err)
{
	fake *f = ctx;
	const char *rv = json_string_value(json_object_get(json_object_get(lease, "metadata"), "resourceVersion"));

	if (f->fail) {
		sk_error_set(err, SK_EUNAVAILABLE, "etcdserver: request timed out");
		return NULL;
	}
	if (!rv || atoi(rv) != f->rv) {
		sk_error_set(err, SK_ECONFLICT, "the object has been modified");
		return NULL;
	}
	json_decref(f->lease);
	f->lease = json_deep_copy(lease);
	json_object_del(json_object_get(f->lease, "metadata"), "resourceVersion");
	f->rv++;
	return with_rv(f);
}

static int64_t fake_mono(void *ctx) { return ((fake *)ctx)->mono; }
static int64_t fake_wall(void *ctx) { return ((fake *)ctx)->wall; }

static const sk_le_ops ops = {fake_get, fake_create, fake_update, fake_mono, fake_wall};

static sk_le *candidate(fake *f, const char *id)
{
	sk_le_config cfg = {.ns = "kube-system", .name = "kube-scheduler", .identity = id};
	sk_le *le = sk_le_new(&cfg, &ops, f, NULL);

	assert_non_null(le);
	return le;
}

static void advance(fake *f, int64_t ns)
{
	f->mono += ns;
	f->wall += ns;
}

static const char *spec_str(fake *f, const char *key)
{
	return json_string_value(json_object_get(json_object_get(f->lease, "spec"), key));
}

static json_int_t spec_int(fake *f, const char *key)
{
	return json_integer_value(json_object_get(json_object_get(f->lease, "spec"), key));
}

static void test_acquire_renew_and_take_over(void **state)
{
	fake f = {.mono = 100 * S, .wall = 1700000000 * S};
	sk_le *a = candidate(&f, "a"), *b = candidate(&f, "b");
	int64_t wait;
	char acquired[40];

	/* the first candidate creates the Lease */
	assert_int_equal(sk_le_step(a, &wait), SK_LE_STARTED);
	assert_true(sk_le_leading(a));
	assert_int_equal(wait, SK_LE_RETRY_PERIOD_MS);
	assert_string_equal(spec_str(&f, "holderIdentity"), "a");
	assert_int_equal(spec_int(&f, "leaseDurationSeconds"), 15);
	assert_int_equal(spec_int(&f, "leaseTransitions"), 0);
	assert_string_equal(spec_str(&f, "acquireTime"), "2023-11-14T22:13:20.000000Z");
	assert_string_equal(spec_str(&f, "renewTime"), spec_str(&f, "acquireTime"));
	snprintf(acquired, sizeof(acquired), "%s", spec_str(&f, "acquireTime"));
	/* the other waits while the leader renews */
	assert_int_equal(sk_le_step(b, &wait), SK_LE_NONE);
	assert_false(sk_le_leading(b));
	advance(&f, 2 * S);
	assert_int_equal(sk_le_step(a, &wait), SK_LE_NONE);
	assert_true(sk_le_leading(a));
	assert_string_equal(spec_str(&f, "acquireTime"), acquired);
	assert_string_equal(spec_str(&f, "renewTime"), "2023-11-14T22:13:22.000000Z");
	/* b saw the renewal now: the lease runs 15 s from here by b's clock */
	assert_int_equal(sk_le_step(b, &wait), SK_LE_NONE);
	advance(&f, 14 * S);
	assert_int_equal(sk_le_step(b, &wait), SK_LE_NONE);
	advance(&f, 1 * S);
	assert_int_equal(sk_le_step(b, &wait), SK_LE_STARTED);
	assert_string_equal(spec_str(&f, "holderIdentity"), "b");
	assert_int_equal(spec_int(&f, "leaseTransitions"), 1);
	assert_string_equal(spec_str(&f, "acquireTime"), "2023-11-14T22:13:37.000000Z");
	/* the old leader, back, sees another holder and stops at once */
	assert_int_equal(sk_le_step(a, &wait), SK_LE_STOPPED);
	assert_false(sk_le_leading(a));
	assert_string_equal(spec_str(&f, "holderIdentity"), "b");
	sk_le_free(a);
	sk_le_free(b);
	json_decref(f.lease);
}

static void test_renew_deadline(void **state)
{
	fake f = {.mono = 5 * S, .wall = 1700000000 * S};
	sk_le *a = candidate(&f, "a");
	int64_t wait;

	assert_int_equal(sk_le_step(a, &wait), SK_LE_STARTED);
	f.fail = 1;
	/* the renew cycle begins with the first try, a retry period after the renewal */
	for (int i = 0; i < 5; i++) {
		advance(&f, 2 * S);
		assert_int_equal(sk_le_step(a, &wait), SK_LE_NONE);
		assert_true(sk_le_leading(a));
	}
	/* the cycle's 10 s are over, 12 s after the last renewal: stop, 3 s before
	 * the lease could expire elsewhere */
	advance(&f, 2 * S);
	assert_int_equal(sk_le_step(a, &wait), SK_LE_STOPPED);
	assert_false(sk_le_leading(a));
	/* back: it takes its own lease again, keeping the transitions */
	f.fail = 0;
	advance(&f, 2 * S);
	assert_int_equal(sk_le_step(a, &wait), SK_LE_STARTED);
	assert_int_equal(spec_int(&f, "leaseTransitions"), 0);
	sk_le_free(a);
	json_decref(f.lease);
}

/* A renewal that hangs is measured by the clock after it: a try that
 * opens a renew cycle and fails 11 s later is past the cycle's deadline,
 * and one that succeeds that late does not count either. */
static void test_renew_deadline_after_a_hanging_call(void **state)
{
	fake f = {.mono = 5 * S, .wall = 1700000000 * S};
	sk_le *a = candidate(&f, "a");
	int64_t wait;

	assert_int_equal(sk_le_step(a, &wait), SK_LE_STARTED);
	advance(&f, 2 * S);
	f.fail = 1;
	f.slow = 11 * S;
	assert_int_equal(sk_le_step(a, &wait), SK_LE_STOPPED);
	assert_false(sk_le_leading(a));
	/* it takes its lease again once calls answer */
	f.fail = 0;
	f.slow = 0;
	assert_int_equal(sk_le_step(a, &wait), SK_LE_STARTED);
	/* a successful renewal that came back 11 s into its cycle */
	advance(&f, 2 * S);
	f.slow = 11 * S;
	assert_int_equal(sk_le_step(a, &wait), SK_LE_STOPPED);
	/* a failed try near the cycle's end waits no longer than the end */
	f.slow = 0;
	assert_int_equal(sk_le_step(a, &wait), SK_LE_STARTED);
	advance(&f, 2 * S);
	f.fail = 1;
	assert_int_equal(sk_le_step(a, &wait), SK_LE_NONE);
	assert_int_equal(wait, SK_LE_RETRY_PERIOD_MS);
	advance(&f, 9 * S);
	assert_int_equal(sk_le_step(a, &wait), SK_LE_NONE);
	assert_int_equal(wait, 1000);
	advance(&f, 1 * S);
	assert_int_equal(sk_le_step(a, &wait), SK_LE_STOPPED);
	sk_le_free(a);
	json_decref(f.lease);
}

static void test_conflict_is_not_leadership(void **state)
{
	fake f = {.mono = 5 * S, .wall = 1700000000 * S};
	sk_le *a = candidate(&f, "a"), *b = candidate(&f, "b");
	int64_t wait;

	assert_int_equal(sk_le_step(a, &wait), SK_LE_STARTED);
	sk_le_release(a);
	assert_null(spec_str(&f, "holderIdentity"));
	assert_int_equal(spec_int(&f, "leaseDurationSeconds"), 1);
	/* b read the released lease, but another write came first: 409, no leadership */
	f.intervene = 1;
	assert_int_equal(sk_le_step(b, &wait), SK_LE_NONE);
	assert_false(sk_le_leading(b));
	/* a released lease names no holder: the next try takes it */
	assert_int_equal(sk_le_step(b, &wait), SK_LE_STARTED);
	assert_string_equal(spec_str(&f, "holderIdentity"), "b");
	assert_int_equal(spec_int(&f, "leaseTransitions"), 1);
	sk_le_free(a);
	sk_le_free(b);
	json_decref(f.lease);
}

static void test_config_checks(void **state)
{
	fake f = {0};
	sk_le_config bad = {.ns = "kube-system", .name = "x", .lease_duration_ms = 10000, .renew_deadline_ms = 10000};
	sk_le_config jit = {.ns = "kube-system", .name = "x", .renew_deadline_ms = 2000, .jitter = 1.2};
	sk_error_t err = {0};
	sk_le *le;

	assert_null(sk_le_new(&bad, &ops, &f, &err));
	assert_string_equal(err.msg, "leaseDuration must be greater than renewDeadline");
	sk_error_clear(&err);
	assert_null(sk_le_new(&jit, &ops, &f, &err));
	assert_string_equal(err.msg, "renewDeadline must be greater than retryPeriod*JitterFactor");
	sk_error_clear(&err);
	/* upstream's identity: hostname_uuid */
	jit.renew_deadline_ms = 0;
	le = sk_le_new(&jit, &ops, &f, &err);
	assert_non_null(le);
	assert_non_null(strchr(sk_le_identity(le), '_'));
	assert_int_equal(strlen(strrchr(sk_le_identity(le), '_') + 1), 36);
	sk_le_free(le);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_acquire_renew_and_take_over),
		cmocka_unit_test(test_renew_deadline),
		cmocka_unit_test(test_renew_deadline_after_a_hanging_call),
		cmocka_unit_test(test_conflict_is_not_leadership),
		cmocka_unit_test(test_config_checks),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
