#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "api/http.h"

/* A connected loopback TCP pair: *a the client's end, *b the server's. */
static void tcp_pair(int *a, int *b)
{
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t len = sizeof(sa);
	int l = socket(AF_INET, SOCK_STREAM, 0);

	assert_true(l >= 0);
	assert_int_equal(bind(l, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(l, 1), 0);
	assert_int_equal(getsockname(l, (struct sockaddr *)&sa, &len), 0);
	*a = socket(AF_INET, SOCK_STREAM, 0);
	assert_int_equal(connect(*a, (struct sockaddr *)&sa, sizeof(sa)), 0);
	*b = accept(l, NULL, NULL);
	assert_true(*b >= 0);
	close(l);
}

/* kube-apiserver's ReadHeaderTimeout, the default */
static void test_default_is_upstreams(void **state)
{
	(void)state;
	assert_int_equal(SK_HTTP_HEADER_TIMEOUT_S, 32);
}

/* A client that sent nothing (or whose bytes the server read) is charged
 * every second: closed at the deadline, not before. */
static void test_silent_client_expires(void **state)
{
	time_t since = 1000;
	int a, b;

	(void)state;
	tcp_pair(&a, &b);
	for (time_t now = 1001; now < 1032; now++)
		assert_int_equal(sk_http_header_expired(b, &since, now, 1, 32), 0);
	assert_int_equal(sk_http_header_expired(b, &since, 1032, 1, 32), 1);
	assert_int_equal(since, 1000);
	close(a);
	close(b);
}

/* Bytes the server has not read yet (a TLS handshake queued behind a busy
 * event loop): those seconds are the server's, the deadline moves; once
 * read, the clock runs again from where it stood. */
static void test_unread_bytes_are_the_servers_time(void **state)
{
	time_t since = 1000;
	char buf[16];
	int a, b;

	(void)state;
	tcp_pair(&a, &b);
	assert_int_equal(write(a, "\x16\x03\x01", 3), 3);
	for (time_t now = 1001; now <= 1100; now++)
		assert_int_equal(sk_http_header_expired(b, &since, now, 1, 32), 0);
	assert_int_equal(since, 1100);
	assert_int_equal(read(b, buf, sizeof(buf)), 3);
	assert_int_equal(sk_http_header_expired(b, &since, 1131, 31, 32), 0);
	assert_int_equal(sk_http_header_expired(b, &since, 1132, 1, 32), 1);
	close(a);
	close(b);
}

/* The first pass (no previous one: dt 0) and a closed descriptor charge
 * the client as before. */
static void test_first_pass_and_bad_fd(void **state)
{
	time_t since = 1000;

	(void)state;
	assert_int_equal(sk_http_header_expired(-1, &since, 1031, 1, 32), 0);
	assert_int_equal(sk_http_header_expired(-1, &since, 1032, 0, 32), 1);
	assert_int_equal(since, 1000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_default_is_upstreams),
		cmocka_unit_test(test_silent_client_expires),
		cmocka_unit_test(test_unread_bytes_are_the_servers_time),
		cmocka_unit_test(test_first_pass_and_bad_fd),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
