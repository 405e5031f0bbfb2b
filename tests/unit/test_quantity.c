#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "util/quantity.h"

static void test_milli(void **state)
{
	int64_t v;

	assert_int_equal(sk_quantity_milli("250m", &v), 0); assert_int_equal(v, 250);
	assert_int_equal(sk_quantity_milli("1", &v), 0); assert_int_equal(v, 1000);
	assert_int_equal(sk_quantity_milli("1.5", &v), 0); assert_int_equal(v, 1500);
	assert_int_equal(sk_quantity_milli("0.0001", &v), 0); assert_int_equal(v, 1);
	assert_int_equal(sk_quantity_milli("2e3", &v), 0); assert_int_equal(v, 2000000);
	assert_int_equal(sk_quantity_milli("-1", &v), 0); assert_int_equal(v, -1000);
}

static void test_value(void **state)
{
	int64_t v;

	assert_int_equal(sk_quantity_value("1Ki", &v), 0); assert_int_equal(v, 1024);
	assert_int_equal(sk_quantity_value("1.5Gi", &v), 0); assert_int_equal(v, 1610612736);
	assert_int_equal(sk_quantity_value("128974848", &v), 0); assert_int_equal(v, 128974848);
	assert_int_equal(sk_quantity_value("129e6", &v), 0); assert_int_equal(v, 129000000);
	assert_int_equal(sk_quantity_value("123M", &v), 0); assert_int_equal(v, 123000000);
	assert_int_equal(sk_quantity_value("100m", &v), 0); assert_int_equal(v, 1);
	assert_int_equal(sk_quantity_value("8Ei", &v), -1);
}

static void test_bad(void **state)
{
	int64_t v;
	const char *bad[] = {"", "abc", "1Q", "1.2.3", "Mi", "1 Mi", "1e", "--1", "1e9999", ".", NULL};

	for (int i = 0; bad[i]; i++)
		assert_int_equal(sk_quantity_milli(bad[i], &v), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_milli), cmocka_unit_test(test_value), cmocka_unit_test(test_bad),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
