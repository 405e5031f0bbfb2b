#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "util/mhdup.h"

/* A connected loopback TCP pair: *a the connecting end, *b the accepted one. */
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

static int lowat(int fd)
{
	int v = -1;
	socklen_t n = sizeof(v);

	assert_int_equal(getsockopt(fd, IPPROTO_TCP, TCP_NOTSENT_LOWAT, &v, &n), 0);
	return v;
}

/* The kick signals a writable TCP socket's EPOLLOUT again to an
 * edge-triggered watcher (what libmicrohttpd's forwarding waits for) and
 * leaves the socket's settings as they were. */
static void test_kick_wakes_edge_triggered_writer(void **state)
{
	struct epoll_event ev = {.events = EPOLLOUT | EPOLLET}, got;
	int a, b, ep = epoll_create1(0), v = 12345;

	(void)state;
	tcp_pair(&a, &b);
	assert_int_equal(epoll_ctl(ep, EPOLL_CTL_ADD, a, &ev), 0);
	assert_int_equal(epoll_wait(ep, &got, 1, 0), 1); /* the edge of being added */
	assert_int_equal(epoll_wait(ep, &got, 1, 0), 0); /* then none */
	sk_mhd_upgrade_kick(a);
	assert_int_equal(epoll_wait(ep, &got, 1, 0), 1);
	assert_true(got.events & EPOLLOUT);
	assert_int_equal(epoll_wait(ep, &got, 1, 0), 0);
	assert_int_equal(lowat(a), 0);
	assert_int_equal(setsockopt(a, IPPROTO_TCP, TCP_NOTSENT_LOWAT, &v, sizeof(v)), 0);
	sk_mhd_upgrade_kick(a);
	assert_int_equal(lowat(a), 12345);
	close(a);
	close(b);
	close(ep);
}

/* Not a TCP socket, or none: nothing happens. */
static void test_kick_ignores_other_sockets(void **state)
{
	int sv[2];

	(void)state;
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	sk_mhd_upgrade_kick(sv[0]);
	sk_mhd_upgrade_kick(-1);
	assert_int_equal(write(sv[0], "x", 1), 1);
	close(sv[0]);
	close(sv[1]);
	assert_null(sk_mhd_upgrade_buffers(NULL, 16384));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kick_wakes_edge_triggered_writer),
		cmocka_unit_test(test_kick_ignores_other_sockets),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
