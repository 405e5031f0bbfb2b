/* Unit tests for the StatefulSet controller's pure rules (ctrl/stsutil.h):
 * ordinals from pod names, claim names, which revision a new pod takes,
 * who owns the claims, and the rolling-update plan. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "ctrl/stsutil.h"

static json_t *J(const char *s)
{
	json_error_t e;
	json_t *j = json_loads(s, 0, &e);

	assert_non_null(j);
	return j;
}

static void test_ordinal(void **state)
{
	(void)state;
	assert_int_equal(sk_sts_ordinal("web", "web-0"), 0);
	assert_int_equal(sk_sts_ordinal("web", "web-12"), 12);
	assert_int_equal(sk_sts_ordinal("web-1", "web-1-3"), 3);
	assert_int_equal(sk_sts_ordinal("web", "web-"), -1);
	assert_int_equal(sk_sts_ordinal("web", "web-x"), -1);
	assert_int_equal(sk_sts_ordinal("web", "web-1a"), -1);
	assert_int_equal(sk_sts_ordinal("web", "webb-1"), -1);
	assert_int_equal(sk_sts_ordinal("web", "db-1"), -1);
	assert_int_equal(sk_sts_ordinal("web", "web"), -1);
	assert_int_equal(sk_sts_ordinal("web", "web-99999999999999999999"), -1);
	assert_int_equal(sk_sts_ordinal(NULL, "web-1"), -1);
	assert_int_equal(sk_sts_ordinal("web", NULL), -1);
}

static void test_identity(void **state)
{
	json_t *s = J("{\"spec\": {\"ordinals\": {\"start\": 5}}}"), *n = J("{\"spec\": {}}");
	char *c = sk_sts_claim_name("data", "web", 7);

	(void)state;
	assert_string_equal(c, "data-web-7");
	free(c);
	assert_int_equal(sk_sts_start(s), 5);
	assert_int_equal(sk_sts_start(n), 0);
	json_decref(s);
	json_decref(n);
}

static void test_takes_update(void **state)
{
	json_t *part = J("{\"spec\": {\"updateStrategy\": {\"type\": \"RollingUpdate\", \"rollingUpdate\": "
			 "{\"partition\": 2}}}}");
	json_t *start = J(
		"{\"spec\": {\"ordinals\": {\"start\": 10}, \"updateStrategy\": {\"type\": \"RollingUpdate\", "
		"\"rollingUpdate\": {\"partition\": 1}}}}");
	json_t *bare = J("{\"spec\": {\"updateStrategy\": {\"type\": \"RollingUpdate\"}}, \"status\": "
			 "{\"currentReplicas\": 1}}");
	json_t *ondel = J("{\"spec\": {\"updateStrategy\": {\"type\": \"OnDelete\"}}}");

	(void)state;
	assert_false(sk_sts_takes_update(part, 0));
	assert_false(sk_sts_takes_update(part, 1));
	assert_true(sk_sts_takes_update(part, 2));
	assert_false(sk_sts_takes_update(start, 10));
	assert_true(sk_sts_takes_update(start, 11));
	assert_false(sk_sts_takes_update(bare, 0));
	assert_true(sk_sts_takes_update(bare, 1));
	assert_true(sk_sts_takes_update(ondel, 0));
	json_decref(part);
	json_decref(start);
	json_decref(bare);
	json_decref(ondel);
}

static json_t *policy(const char *deleted, const char *scaled)
{
	return json_pack("{s:{s:{s:s, s:s}}}", "spec", "persistentVolumeClaimRetentionPolicy", "whenDeleted", deleted,
			 "whenScaled", scaled);
}

static void test_claim_owner(void **state)
{
	json_t *rr = policy("Retain", "Retain"), *dr = policy("Delete", "Retain");
	json_t *rd = policy("Retain", "Delete"), *dd = policy("Delete", "Delete");

	(void)state;
	assert_int_equal(sk_sts_claim_owner(rr, 0), SK_STS_CLAIM_NONE);
	assert_int_equal(sk_sts_claim_owner(rr, 1), SK_STS_CLAIM_NONE);
	assert_int_equal(sk_sts_claim_owner(dr, 0), SK_STS_CLAIM_SET);
	assert_int_equal(sk_sts_claim_owner(dr, 1), SK_STS_CLAIM_SET);
	assert_int_equal(sk_sts_claim_owner(rd, 0), SK_STS_CLAIM_NONE);
	assert_int_equal(sk_sts_claim_owner(rd, 1), SK_STS_CLAIM_POD);
	assert_int_equal(sk_sts_claim_owner(dd, 0), SK_STS_CLAIM_SET);
	assert_int_equal(sk_sts_claim_owner(dd, 1), SK_STS_CLAIM_POD);
	json_decref(rr);
	json_decref(dr);
	json_decref(rd);
	json_decref(dd);
}

static void fill(sk_sts_slot *s, int n, const char *updated, const char *healthy)
{
	for (int i = 0; i < n; i++) {
		s[i] = (sk_sts_slot){.exists = 1, .updated = updated[i] == 'u', .healthy = healthy[i] == 'h'};
		s[i].terminating = healthy[i] == 't';
	}
}

static void test_plan_update(void **state)
{
	sk_sts_slot s[5];

	(void)state;
	/* one at a time from the highest ordinal */
	fill(s, 4, "oooo", "hhhh");
	assert_int_equal(sk_sts_plan_update(s, 4, 0, -1), 1);
	assert_true(s[3].delete &&!s[2].delete);
	/* an updated but unhealthy pod blocks the next */
	fill(s, 4, "ooou", "hhh-");
	assert_int_equal(sk_sts_plan_update(s, 4, 0, -1), 0);
	/* a terminating outdated pod is waited for */
	fill(s, 4, "oooo", "hhht");
	assert_int_equal(sk_sts_plan_update(s, 4, 0, -1), 0);
	/* the partition keeps the low ordinals */
	fill(s, 4, "oouu", "hhhh");
	assert_int_equal(sk_sts_plan_update(s, 4, 2, -1), 0);
	fill(s, 4, "oouu", "hhhh");
	assert_int_equal(sk_sts_plan_update(s, 4, 1, -1), 1);
	assert_true(s[1].delete);
	/* maxUnavailable 2: two at once; an unavailable pod counts */
	fill(s, 5, "ooooo", "hhhhh");
	assert_int_equal(sk_sts_plan_update(s, 5, 0, 2), 2);
	assert_true(s[4].delete &&s[3].delete &&!s[2].delete);
	fill(s, 5, "ooouu", "hhhh-");
	assert_int_equal(sk_sts_plan_update(s, 5, 0, 2), 1);
	assert_true(s[2].delete &&!s[1].delete);
	fill(s, 5, "ooooo", "hhhhh");
	assert_int_equal(sk_sts_plan_update(s, 5, 4, 3), 1);
	assert_true(s[4].delete &&!s[3].delete);
	/* a missing pod counts as unavailable */
	fill(s, 3, "ooo", "hhh");
	s[0].exists = 0;
	assert_int_equal(sk_sts_plan_update(s, 3, 0, 1), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ordinal),      cmocka_unit_test(test_identity),
		cmocka_unit_test(test_takes_update), cmocka_unit_test(test_claim_owner),
		cmocka_unit_test(test_plan_update),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
