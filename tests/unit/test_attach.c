/* conmon's attach framing (a stream byte, then the container's bytes) and
 * the terminal resize line written to conmon's control fifo. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runtime/container.h"
#include "util/util.h"

static void test_packet(void **state)
{
	const uint8_t out[] = {2, 'h', 'i'}, err[] = {3, 'e'}, in[] = {1, 'x'}, bare[] = {2};
	const uint8_t *data = NULL;
	size_t len = 99;

	(void)state;
	assert_int_equal(sk_attach_packet(out, sizeof(out), &data, &len), SK_ATTACH_STDOUT);
	assert_int_equal(len, 2);
	assert_memory_equal(data, "hi", 2);
	assert_int_equal(sk_attach_packet(err, sizeof(err), &data, &len), SK_ATTACH_STDERR);
	assert_int_equal(len, 1);
	assert_int_equal(data[0], 'e');
	/* a prefix alone is an empty write */
	assert_int_equal(sk_attach_packet(bare, sizeof(bare), &data, &len), SK_ATTACH_STDOUT);
	assert_int_equal(len, 0);
	/* stdin's number, other bytes and empty packets are no output */
	assert_int_equal(sk_attach_packet(in, sizeof(in), &data, &len), -1);
	assert_int_equal(sk_attach_packet(out, 0, &data, &len), -1);
	assert_int_equal(sk_attach_packet(NULL, 5, &data, &len), -1);
	for (int b = 0; b < 256; b++) {
		uint8_t p[2] = {(uint8_t)b, 0};

		assert_int_equal(sk_attach_packet(p, 2, &data, &len) > 0, b == 2 || b == 3);
	}
}

static void test_resize(void **state)
{
	char tmpl[] = "/tmp/skiff-attach-XXXXXX";
	char *dir = mkdtemp(tmpl), *ctl, buf[64];
	struct sk_container c = {.id = "c1"};
	sk_error_t err = {0};
	int rd;
	ssize_t n;

	(void)state;
	assert_non_null(dir);
	c.dir = dir;
	/* no fifo: conmon is not there */
	assert_int_equal(sk_container_resize(NULL, &c, 80, 24, &err), -1);
	ctl = xasprintf("%s/ctl", dir);
	assert_int_equal(mkfifo(ctl, 0600), 0);
	rd = open(ctl, O_RDONLY | O_NONBLOCK);
	assert_true(rd >= 0);
	assert_int_equal(sk_container_resize(NULL, &c, 80, 24, &err), 0);
	assert_int_equal(sk_container_resize(NULL, &c, 1000, 1, &err), 0);
	/* conmon refuses sizes over 1000 (and would stop reading the line) */
	assert_int_equal(sk_container_resize(NULL, &c, 1001, 24, &err), -1);
	assert_int_equal(err.code, SK_EINVALID);
	n = read(rd, buf, sizeof(buf) - 1);
	assert_true(n > 0);
	buf[n] = '\0';
	/* type 1 (resize), height, width */
	assert_string_equal(buf, "1 24 80\n1 1 1000\n");
	close(rd);
	unlink(ctl);
	rmdir(dir);
	free(ctl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_packet),
		cmocka_unit_test(test_resize),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
