/* make toolchain-check: the smallest cmocka test, built as the unit tests are
 * (ASan+UBSan, and ThreadSanitizer as the tsan build), linked with every
 * library skiff links, so a fresh root proves the test toolchain is installed
 * without building every test binary (tests/fresh-root.sh). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

static void probe(void **state)
{
	char *s = strdup("skiff");

	(void)state;
	assert_string_equal(s, "skiff");
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {cmocka_unit_test(probe)};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
