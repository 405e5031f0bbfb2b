/* The web console's routes (src/api/console.c): which urls are the console's,
 * and what each answers from the embedded files (build/gen/console-assets.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "api/console.h"

static void test_console_paths(void **state)
{
	(void)state;
	assert_true(sk_console_path("/console"));
	assert_true(sk_console_path("/console/"));
	assert_true(sk_console_path("/console/app.js"));
	assert_false(sk_console_path("/consoles"));
	assert_false(sk_console_path("/consolex/app.js"));
	assert_false(sk_console_path("/api/v1/console"));
	assert_false(sk_console_path("/"));
	assert_false(sk_console_path(""));
}

static void test_console_lookup(void **state)
{
	const sk_console_asset *a;
	const char *loc;

	(void)state;
	assert_int_equal(sk_console_lookup("/console", "GET", &a, &loc), 301);
	assert_null(a);
	assert_string_equal(loc, "/console/");

	assert_int_equal(sk_console_lookup("/console/", "GET", &a, &loc), 200);
	assert_string_equal(a->name, "index.html");
	assert_string_equal(a->content_type, "text/html; charset=utf-8");
	assert_non_null(memmem(a->data, a->len, "app.js", 6));
	assert_null(loc);

	assert_int_equal(sk_console_lookup("/console/app.js", "HEAD", &a, &loc), 200);
	assert_string_equal(a->content_type, "text/javascript; charset=utf-8");
	assert_true(a->len > 1000);
	assert_int_equal(sk_console_lookup("/console/app.css", "GET", &a, &loc), 200);
	assert_string_equal(a->content_type, "text/css; charset=utf-8");

	/* exact names only: no directories, no parent references, no methods but GET and HEAD */
	assert_int_equal(sk_console_lookup("/console/../api", "GET", &a, &loc), 404);
	assert_int_equal(sk_console_lookup("/console//app.js", "GET", &a, &loc), 404);
	assert_int_equal(sk_console_lookup("/console/src/main.js", "GET", &a, &loc), 404);
	assert_int_equal(sk_console_lookup("/console/app.js", "POST", &a, &loc), 405);
	assert_null(a);
	assert_null(loc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_console_paths),
		cmocka_unit_test(test_console_lookup),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
