#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "util/error.h"
#include "util/util.h"

static void test_time_roundtrip(void **state)
{
	char buf[64];
	int64_t t;

	sk_time_format(1700000000, buf, sizeof(buf));
	assert_string_equal(buf, "2023-11-14T22:13:20Z");
	sk_time_format(1700000001, buf, sizeof(buf));
	assert_string_equal(buf, "2023-11-14T22:13:21Z");
	sk_time_format(1700000001, buf, 8);             /* too small: empty, as strftime leaves nothing useful */
	assert_string_equal(buf, "");
	sk_time_format(1700000000, buf, sizeof(buf));
	assert_int_equal(sk_time_parse(buf, &t), 0);
	assert_int_equal(t, 1700000000);
	assert_int_equal(sk_time_parse("2023-11-14T23:13:20.5+01:00", &t), 0);
	assert_int_equal(t, 1700000000);
	assert_int_equal(sk_time_parse("yesterday", &t), -1);
	assert_int_equal(sk_time_parse("2023-11-14T22:13:20", &t), -1);
}

static void test_error_wrap(void **state)
{
	sk_error_t err = {0};

	assert_int_equal(sk_error_set(&err, SK_ENOTFOUND, "pod \"%s\" not found", "a"), -1);
	sk_error_wrap(&err, "binding");
	assert_string_equal(err.msg, "binding: pod \"a\" not found");
	assert_int_equal(err.code, SK_ENOTFOUND);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_time_roundtrip),
		cmocka_unit_test(test_error_wrap),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
