/* IPv4 CIDR parsing and arithmetic (src/kube/cidr.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "kube/cidr.h"

static void test_parse_and_format(void **state)
{
	sk_kube_cidr c;
	char buf[SK_KUBE_CIDR_LEN];
	sk_error_t err = {0};

	assert_int_equal(sk_kube_cidr_parse("10.43.0.0/16", &c, &err), 0);
	assert_int_equal(c.prefix, 16);
	assert_string_equal(sk_kube_cidr_format(&c, buf), "10.43.0.0/16");
	/* host bits are cleared, as Go's net.ParseCIDR */
	assert_int_equal(sk_kube_cidr_parse("10.43.7.9/16", &c, NULL), 0);
	assert_string_equal(sk_kube_cidr_format(&c, buf), "10.43.0.0/16");
	assert_int_equal(sk_kube_cidr_parse("0.0.0.0/0", &c, NULL), 0);
	assert_int_equal(c.addr, 0);
	assert_int_equal(sk_kube_cidr_parse("1.2.3.4/32", &c, NULL), 0);
	assert_string_equal(sk_kube_cidr_format(&c, buf), "1.2.3.4/32");
}

static void test_parse_rejects(void **state)
{
	static const char *const bad[] = {"",        "10.0.0.0",     "10.0.0.0/",   "10.0.0.0/33", "10.0.0.0/-1",
					  "10.0.0/8", "10.0.0.0/8x",  "x/8",         "10.0.0.0/08", "::1/128",
					  "10.0.0.0 /8", "10.0.0.0/ 8", "300.0.0.0/8", NULL};
	sk_error_t err = {0};
	sk_kube_cidr c;

	for (int i = 0; bad[i]; i++) {
		assert_int_equal(sk_kube_cidr_parse(bad[i], &c, &err), -1);
		assert_int_equal(err.code, SK_EINVALID);
		assert_non_null(strstr(err.msg, "invalid CIDR address"));
	}
	assert_int_equal(sk_kube_cidr_parse(NULL, &c, NULL), -1);
}

static void test_ip_parse_format(void **state)
{
	uint32_t ip;
	char buf[SK_KUBE_IP4_LEN];
	sk_error_t err = {0};

	assert_int_equal(sk_kube_ip4_parse("10.43.0.10", &ip, &err), 0);
	assert_int_equal(ip, (10u << 24) | (43u << 16) | 10u);
	assert_string_equal(sk_kube_ip4_format(ip, buf), "10.43.0.10");
	assert_string_equal(sk_kube_ip4_format(0xffffffffu, buf), "255.255.255.255");
	assert_int_equal(sk_kube_ip4_parse("10.43.0", &ip, &err), -1);
	assert_int_equal(err.code, SK_EINVALID);
	assert_int_equal(sk_kube_ip4_parse("None", &ip, NULL), -1);
	assert_int_equal(sk_kube_ip4_parse(NULL, &ip, NULL), -1);
}

static void test_nth_contains_index(void **state)
{
	sk_kube_cidr c;
	uint32_t ip;
	char buf[SK_KUBE_IP4_LEN];

	assert_int_equal(sk_kube_cidr_parse("10.96.0.0/28", &c, NULL), 0);
	assert_int_equal(sk_kube_cidr_size(&c), 16);
	assert_int_equal(sk_kube_cidr_nth(&c, 1, &ip), 0);
	assert_string_equal(sk_kube_ip4_format(ip, buf), "10.96.0.1");
	assert_int_equal(sk_kube_cidr_nth(&c, 15, &ip), 0);
	assert_string_equal(sk_kube_ip4_format(ip, buf), "10.96.0.15");
	assert_int_equal(sk_kube_cidr_nth(&c, 16, &ip), -1);
	assert_true(sk_kube_cidr_contains(&c, ip));
	assert_int_equal(sk_kube_cidr_index(&c, ip), 15);
	assert_int_equal(sk_kube_ip4_parse("10.96.0.16", &ip, NULL), 0);
	assert_false(sk_kube_cidr_contains(&c, ip));
	assert_int_equal(sk_kube_cidr_index(&c, ip), -1);
	assert_int_equal(sk_kube_cidr_parse("0.0.0.0/0", &c, NULL), 0);
	assert_int_equal(sk_kube_cidr_size(&c), (uint64_t)1 << 32);
	assert_true(sk_kube_cidr_contains(&c, 0xffffffffu));
}

static void test_subnets(void **state)
{
	sk_kube_cidr c, s, n;
	char buf[SK_KUBE_CIDR_LEN];

	assert_int_equal(sk_kube_cidr_parse("10.42.0.0/16", &c, NULL), 0);
	assert_int_equal(sk_kube_cidr_subnet(&c, 24, 0, &s), 0);
	assert_string_equal(sk_kube_cidr_format(&s, buf), "10.42.0.0/24");
	assert_int_equal(sk_kube_cidr_subnet(&c, 24, 255, &s), 0);
	assert_string_equal(sk_kube_cidr_format(&s, buf), "10.42.255.0/24");
	assert_int_equal(sk_kube_cidr_subnet(&c, 24, 256, &s), -1);
	assert_int_equal(sk_kube_cidr_subnet(&c, 8, 0, &s), -1);
	assert_int_equal(sk_kube_cidr_subnet(&c, 24, 3, &s), 0);
	assert_int_equal(sk_kube_cidr_next(&s, &n), 0);
	assert_string_equal(sk_kube_cidr_format(&n, buf), "10.42.4.0/24");
	assert_true(sk_kube_cidr_overlaps(&c, &n));
	assert_false(sk_kube_cidr_overlaps(&s, &n));
	assert_int_equal(sk_kube_cidr_parse("255.255.255.0/24", &s, NULL), 0);
	assert_int_equal(sk_kube_cidr_next(&s, &n), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_and_format),  cmocka_unit_test(test_parse_rejects),
		cmocka_unit_test(test_ip_parse_format),   cmocka_unit_test(test_nth_contains_index),
		cmocka_unit_test(test_subnets),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
