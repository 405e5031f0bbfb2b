/* CRI log parsing and reading: partial lines, tail, since, limit, timestamps,
 * streams, follow across rotation. No root needed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "runtime/crilog.h"
#include "util/error.h"
#include "util/util.h"

static const char sample[] =
	"2016-10-06T00:17:09.669794202Z stdout F first\n"
	"2016-10-06T00:17:10.000000000Z stderr F oops\n"
	"garbage line\n"
	"2016-10-06T00:17:11.5Z stdout P par\n"
	"2016-10-06T00:17:11.6Z stdout P ti\n"
	"2016-10-06T00:17:11.7Z stdout F al\n"
	"2016-10-06T00:17:12+01:00 stdout F last\n";

struct sink {
	char buf[4096];
	size_t len;
	int stop_after;   /* stop after this many callbacks containing '\n'; 0: never */
	int lines;
};

static int collect(void *arg, const char *data, size_t len)
{
	struct sink *s = arg;

	if (s->len + len < sizeof(s->buf)) {
		memcpy(s->buf + s->len, data, len);
		s->len += len;
		s->buf[s->len] = '\0';
	}
	if (memchr(data, '\n', len))
		s->lines++;
	return s->stop_after && s->lines >= s->stop_after;
}

static const char *decode(struct sk_crilog_opts *o, struct sink *s)
{
	memset(s, 0, sizeof(*s));
	sk_crilog_decode(sample, sizeof(sample) - 1, o, collect, s);
	return s->buf;
}

static void test_parse(void **state)
{
	struct sk_crilog_record r;
	int64_t ns;

	assert_int_equal(sk_crilog_parse("2016-10-06T00:17:09.669794202Z stdout F hello world", 51, &r), 0);
	assert_int_equal(r.stream, SK_CRILOG_STDOUT);
	assert_false(r.partial);
	assert_int_equal(r.msg_len, 11);
	assert_memory_equal(r.msg, "hello world", 11);
	assert_int_equal(r.ts_ns, 1475713029669794202LL);
	assert_int_equal(sk_crilog_parse("2016-10-06T00:17:09Z stderr P x", 31, &r), 0);
	assert_true(r.partial);
	assert_int_equal(r.stream, SK_CRILOG_STDERR);
	assert_int_equal(sk_crilog_parse("2016-10-06T00:17:09Z stdout F", 29, &r), 0);
	assert_int_equal(r.msg_len, 0);
	assert_int_equal(sk_crilog_parse("2016-10-06T00:17:09Z stdin F x", 30, &r), -1);
	assert_int_equal(sk_crilog_parse("2016-10-06T00:17:09Z stdout X x", 31, &r), -1);
	assert_int_equal(sk_crilog_parse("2016-13-06T00:17:09Z stdout F x", 31, &r), -1);
	assert_int_equal(sk_crilog_parse("", 0, &r), -1);
	assert_int_equal(sk_crilog_parse_time("2016-10-06T02:17:09.5+02:00", 27, &ns), 0);
	assert_int_equal(ns, 1475713029500000000LL);
}

static void test_parse_time_range(void **state)
{
	int64_t ns;

	assert_int_equal(sk_crilog_parse_time("2262-04-11T23:47:16.854775807Z", 30, &ns), 0);
	assert_true(ns == INT64_MAX);
	assert_int_equal(sk_crilog_parse_time("2262-04-11T23:47:16.854775808Z", 30, &ns), 0);
	assert_true(ns == INT64_MAX);
	assert_int_equal(sk_crilog_parse_time("9999-12-31T23:59:59.999999999-99:59", 35, &ns), 0);
	assert_true(ns == INT64_MAX);
	assert_int_equal(sk_crilog_parse_time("1677-09-21T00:12:43.145224193Z", 30, &ns), 0);
	assert_true(ns == INT64_MIN + 1);
	assert_int_equal(sk_crilog_parse_time("1677-09-21T00:12:43.145224191Z", 30, &ns), 0);
	assert_true(ns == INT64_MIN);
	assert_int_equal(sk_crilog_parse_time("0000-01-01T00:00:00+99:00", 25, &ns), 0);
	assert_true(ns == INT64_MIN);
	assert_int_equal(sk_crilog_parse_time("1969-12-31T23:59:59.5Z", 22, &ns), 0);
	assert_int_equal(ns, -500000000);
}

static void test_decode_options(void **state)
{
	struct sk_crilog_opts o = {.tail_lines = -1};
	struct sink s;

	assert_string_equal(decode(&o, &s), "first\noops\npartial\nlast\n");
	o.tail_lines = 2;
	assert_string_equal(decode(&o, &s), "partial\nlast\n");
	o.tail_lines = 0;
	assert_string_equal(decode(&o, &s), "");
	o.tail_lines = 100;
	assert_string_equal(decode(&o, &s), "first\noops\npartial\nlast\n");
	o.tail_lines = -1;
	o.streams = SK_CRILOG_STDERR;
	assert_string_equal(decode(&o, &s), "oops\n");
	o.streams = 0;
	o.since_ns = 1475713030000000000LL;   /* 00:17:10 */
	assert_string_equal(decode(&o, &s), "oops\npartial\n");   /* "last" is 23:17:12 the day before */
	o.since_ns = 0;
	o.timestamps = true;
	o.tail_lines = 1;
	assert_string_equal(decode(&o, &s), "2016-10-06T00:17:12+01:00 last\n");
	o.timestamps = false;
	o.tail_lines = -1;
	o.limit_bytes = 8;
	assert_string_equal(decode(&o, &s), "first\noo");
}

static char *write_tmp(const char *content)
{
	char *path = xstrdup("/tmp/sk-crilog-XXXXXX");
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, content, strlen(content)), (ssize_t)strlen(content));
	close(fd);
	return path;
}

static void append_line(const char *path, const char *msg)
{
	FILE *f = fopen(path, "a");

	assert_non_null(f);
	fprintf(f, "2024-01-01T00:00:00.000000001Z stdout F %s\n", msg);
	fclose(f);
}

struct follower {
	const char *path;
	struct sink sink;
	volatile int stop;
	int rc;
};

static void *follow_thread(void *arg)
{
	struct follower *f = arg;
	struct sk_crilog_opts o = {.tail_lines = 1, .follow = true, .poll_ms = 10};
	sk_error_t err = {0};

	f->rc = sk_crilog_read(f->path, &o, collect, &f->sink, &f->stop, &err);
	return NULL;
}

static void wait_lines(struct follower *f, int n)
{
	struct timespec ts = {0, 10 * 1000000};
	int i;

	for (i = 0; i < 500 && __atomic_load_n(&f->sink.lines, __ATOMIC_SEQ_CST) < n; i++)
		nanosleep(&ts, NULL);
}

static void test_follow_rotation(void **state)
{
	cleanup_free char *path = write_tmp("2024-01-01T00:00:00Z stdout F old\n2024-01-01T00:00:00Z stdout F one\n");
	struct follower f = {.path = path};
	sk_error_t err = {0};
	pthread_t t;
	char pattern[256];

	assert_int_equal(pthread_create(&t, NULL, follow_thread, &f), 0);
	wait_lines(&f, 1);
	append_line(path, "two");
	wait_lines(&f, 2);
	assert_int_equal(sk_crilog_rotate(path, 2, &err), 0);
	append_line(path, "three");   /* a new file, as conmon makes after reopening */
	wait_lines(&f, 3);
	f.stop = 1;
	pthread_join(t, NULL);
	assert_int_equal(f.rc, 0);
	assert_string_equal(f.sink.buf, "one\ntwo\nthree\n");
	/* max 2 files: one rotated kept after another rotation */
	assert_int_equal(sk_crilog_rotate(path, 2, &err), 0);
	snprintf(pattern, sizeof(pattern), "test $(ls %s.* | wc -l) -eq 1", path);
	assert_int_equal(system(pattern), 0);
	snprintf(pattern, sizeof(pattern), "rm -f %s %s.*", path, path);
	assert_int_equal(system(pattern), 0);
}

static void test_read_missing(void **state)
{
	struct sk_crilog_opts o = {.tail_lines = -1};
	struct sink s = {0};
	sk_error_t err = {0};
	cleanup_free char *p = sk_crilog_path("/nonexistent/pod", "c", 3);

	assert_string_equal(p, "/nonexistent/pod/c/3.log");
	assert_int_equal(sk_crilog_read(p, &o, collect, &s, NULL, &err), -1);
	assert_non_null(strstr(err.msg, "3.log"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_parse_time_range),
		cmocka_unit_test(test_decode_options),
		cmocka_unit_test(test_follow_rotation),
		cmocka_unit_test(test_read_missing),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
