/* The node IPAM controller's allocation set (src/ctrl/cidrset.c), as
 * upstream's cidrset, and the CIDR arithmetic it relies on. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "ctrl/cidrset.h"
#include "kube/cidr.h"
#include "util/util.h"

static sk_kube_cidr C(const char *s)
{
	sk_kube_cidr c;

	if (sk_kube_cidr_parse(s, &c, NULL) < 0)
		fail_msg("bad cidr %s", s);
	return c;
}

static const char *text(const sk_kube_cidr *c)
{
	static char buf[32];

	sk_kube_cidr_format(c, buf);
	return buf;
}

static void test_cidr_arithmetic(void **state)
{
	sk_kube_cidr net = C("10.42.0.0/16"), sub, other;
	uint32_t ip;
	char buf[16];

	assert_int_equal(sk_kube_cidr_subnet(&net, 24, 0, &sub), 0);
	assert_string_equal(text(&sub), "10.42.0.0/24");
	assert_int_equal(sk_kube_cidr_subnet(&net, 24, 255, &sub), 0);
	assert_string_equal(text(&sub), "10.42.255.0/24");
	assert_int_equal(sk_kube_cidr_subnet(&net, 24, 256, &sub), -1);
	assert_int_equal(sk_kube_cidr_subnet(&net, 15, 0, &sub), -1);
	assert_int_equal(sk_kube_cidr_nth(&sub, 1, &ip), 0);
	sk_kube_ip4_format(ip, buf);
	assert_string_equal(buf, "10.42.255.1");
	assert_int_equal(sk_kube_cidr_nth(&sub, 256, &ip), -1);
	assert_int_equal(sk_kube_ip4_parse("10.42.3.4", &ip, NULL), 0);
	assert_true(sk_kube_cidr_contains(&net, ip));
	assert_false(sk_kube_cidr_contains(&sub, ip));
	other = C("10.0.0.0/8");
	assert_true(sk_kube_cidr_overlaps(&net, &other) && sk_kube_cidr_overlaps(&other, &net));
	other = C("10.43.0.0/16");
	assert_false(sk_kube_cidr_overlaps(&net, &other));
}

static void test_cidrset_allocates_in_order_and_rotates(void **state)
{
	sk_kube_cidr net = C("10.42.0.0/22"), out, freed = C("10.42.1.0/24");
	sk_cidrset s;
	sk_error_t err = {0};

	assert_int_equal(sk_cidrset_init(&s, &net, 24, &err), 0);
	assert_int_equal(s.n, 4);
	for (int i = 0; i < 4; i++) {
		char want[32];

		snprintf(want, sizeof(want), "10.42.%d.0/24", i);
		assert_int_equal(sk_cidrset_allocate(&s, &out), 0);
		assert_string_equal(text(&out), want);
	}
	/* full: upstream's CIDRNotAvailable */
	assert_int_equal(sk_cidrset_allocate(&s, &out), -1);
	assert_int_equal(sk_cidrset_release_cidr(&s, &freed), 0);
	assert_int_equal(s.used, 3);
	assert_int_equal(sk_cidrset_allocate(&s, &out), 0);
	assert_string_equal(text(&out), "10.42.1.0/24");
	sk_cidrset_release(&s);
}

static void test_cidrset_next_candidate_skips_a_freed_subnet(void **state)
{
	sk_kube_cidr net = C("10.42.0.0/16"), out, first;
	sk_cidrset s;
	sk_error_t err = {0};

	assert_int_equal(sk_cidrset_init(&s, &net, 24, &err), 0);
	assert_int_equal(sk_cidrset_allocate(&s, &first), 0);
	assert_int_equal(sk_cidrset_allocate(&s, &out), 0);
	sk_cidrset_release_cidr(&s, &first);
	assert_int_equal(sk_cidrset_allocate(&s, &out), 0);
	assert_string_equal(text(&out), "10.42.2.0/24");
	sk_cidrset_release(&s);
}

/* The repair at start: CIDRs the stored Nodes hold (an agent's own --pod-cidr
 * too, of any size) are taken; one outside the cluster CIDR is not counted. */
static void test_cidrset_occupy(void **state)
{
	sk_kube_cidr net = C("10.42.0.0/16"), out, c;
	sk_cidrset s;
	sk_error_t err = {0};

	assert_int_equal(sk_cidrset_init(&s, &net, 24, &err), 0);
	c = C("10.42.0.0/24");
	assert_int_equal(sk_cidrset_occupy(&s, &c), 0);
	c = C("10.42.1.128/25"); /* smaller than a subnet: its subnet */
	assert_int_equal(sk_cidrset_occupy(&s, &c), 0);
	c = C("10.42.4.0/23"); /* larger: both */
	assert_int_equal(sk_cidrset_occupy(&s, &c), 0);
	c = C("10.99.0.0/24");
	assert_int_equal(sk_cidrset_occupy(&s, &c), -1);
	assert_int_equal(s.used, 4);
	assert_true(sk_cidrset_is_used(&s, 1) && sk_cidrset_is_used(&s, 4) && sk_cidrset_is_used(&s, 5));
	assert_int_equal(sk_cidrset_allocate(&s, &out), 0);
	assert_string_equal(text(&out), "10.42.2.0/24");
	assert_int_equal(sk_cidrset_allocate(&s, &out), 0);
	assert_string_equal(text(&out), "10.42.3.0/24");
	assert_int_equal(sk_cidrset_allocate(&s, &out), 0);
	assert_string_equal(text(&out), "10.42.6.0/24");
	/* occupying twice counts once */
	c = C("10.42.0.0/24");
	assert_int_equal(sk_cidrset_occupy(&s, &c), 0);
	assert_int_equal(s.used, 7);
	/* a cluster-sized CIDR takes everything */
	c = C("10.0.0.0/8");
	assert_int_equal(sk_cidrset_occupy(&s, &c), 0);
	assert_int_equal(s.used, 256);
	assert_int_equal(sk_cidrset_allocate(&s, &out), -1);
	sk_cidrset_release(&s);
}

static void test_cidrset_limits(void **state)
{
	sk_kube_cidr net = C("10.0.0.0/8"), small = C("10.42.0.0/24"), out;
	sk_cidrset s;
	sk_error_t err = {0};

	/* upstream: at most 2^16 subnets */
	assert_int_equal(sk_cidrset_init(&s, &net, 25, &err), -1);
	assert_non_null(strstr(err.msg, "more than 2^16"));
	assert_int_equal(sk_cidrset_init(&s, &net, 24, &err), 0);
	assert_int_equal(s.n, 65536);
	sk_cidrset_release(&s);
	assert_int_equal(sk_cidrset_init(&s, &small, 23, &err), -1);
	assert_int_equal(sk_cidrset_init(&s, &small, 33, &err), -1);
	assert_int_equal(sk_cidrset_init(&s, &small, 24, &err), 0);
	assert_int_equal(sk_cidrset_allocate(&s, &out), 0);
	assert_string_equal(text(&out), "10.42.0.0/24");
	assert_int_equal(sk_cidrset_allocate(&s, &out), -1);
	sk_cidrset_release(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cidr_arithmetic),
		cmocka_unit_test(test_cidrset_allocates_in_order_and_rotates),
		cmocka_unit_test(test_cidrset_next_candidate_skips_a_freed_subnet),
		cmocka_unit_test(test_cidrset_occupy),
		cmocka_unit_test(test_cidrset_limits),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
