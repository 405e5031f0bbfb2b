/* The API server's relay of upgraded connections (src/api/stream.c): one
 * thread copies bytes both ways between each client's socketpair and its
 * agent connection (here a libcurl CONNECT_ONLY connection to a local
 * listener), ends a relay when the agent closes or the client's own socket
 * does, shuts the client's socket for writing once all was taken, and calls
 * the done callback; stopping ends every relay. */
#include <arpa/inet.h>
#include <curl/curl.h>
#include <netinet/in.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <cmocka.h>

#include "api/stream.h"
#include "util/util.h"

struct end {
	int agent;  /* the agent's side of the libcurl connection */
	int mhd;    /* libmicrohttpd's end of the client's socketpair */
	int client; /* the client's own socket (its peer: raw) */
	int raw;
	int done; /* atomic */
};

static void on_done(void *arg) { __atomic_store_n(&((struct end *)arg)->done, 1, __ATOMIC_RELEASE); }

/* A relay between a fresh socketpair and a libcurl connection to a
 * listener of ours. */
static void open_relay(struct sk_api_relays *rs, struct end *e, const char *extra, bool paced)
{
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t sl = sizeof(sa);
	int l = socket(AF_INET, SOCK_STREAM, 0), sp[2], rw[2];
	char url[64];
	CURL *h = curl_easy_init();

	assert_true(l >= 0);
	assert_int_equal(bind(l, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(l, 1), 0);
	assert_int_equal(getsockname(l, (struct sockaddr *)&sa, &sl), 0);
	snprintf(url, sizeof(url), "http://127.0.0.1:%u/", ntohs(sa.sin_port));
	curl_easy_setopt(h, CURLOPT_URL, url);
	curl_easy_setopt(h, CURLOPT_CONNECT_ONLY, 1L);
	curl_easy_setopt(h, CURLOPT_NOPROXY, "*");
	assert_int_equal(curl_easy_perform(h), CURLE_OK);
	e->agent = accept(l, NULL, NULL);
	close(l);
	assert_true(e->agent >= 0);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sp), 0);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, rw), 0);
	e->mhd = sp[1];
	e->raw = rw[0];
	e->client = rw[1];
	e->done = 0;
	assert_int_equal(sk_api_relays_add(rs, sk_api_upgrade_wrap(h, paced), sp[0], e->raw, extra,
					   extra ? strlen(extra) : 0, on_done, e),
			 0);
}

/* Reads exactly n bytes from fd (5 s at most). */
static void read_n(int fd, char *buf, size_t n)
{
	size_t got = 0;

	while (got < n) {
		struct pollfd p = {.fd = fd, .events = POLLIN};
		ssize_t r;

		assert_int_equal(poll(&p, 1, 5000), 1);
		r = read(fd, buf + got, n - got);
		assert_true(r > 0);
		got += (size_t)r;
	}
}

static void wait_done(struct end *e)
{
	for (int i = 0; i < 6000 && !__atomic_load_n(&e->done, __ATOMIC_ACQUIRE); i++)
		poll(NULL, 0, 10);
	assert_true(__atomic_load_n(&e->done, __ATOMIC_ACQUIRE));
}

static void test_relay_both_ways_and_agent_close(void **state)
{
	sk_error_t err = {0};
	struct sk_api_relays *rs = sk_api_relays_start(&err);
	struct end e;
	char buf[64];
	static char big[300 * 1024], back[sizeof(big)];

	(void)state;
	assert_non_null(rs);
	open_relay(rs, &e, "ex", false);
	/* what the HTTP layer read past the request goes first */
	assert_int_equal(write(e.mhd, "hello", 5), 5);
	read_n(e.agent, buf, 7);
	assert_memory_equal(buf, "exhello", 7);
	assert_int_equal(write(e.agent, "world", 5), 5);
	read_n(e.mhd, buf, 5);
	assert_memory_equal(buf, "world", 5);
	/* more than the 64 KiB buffers, read as it is written */
	for (size_t i = 0; i < sizeof(big); i++)
		big[i] = (char)(i * 7);
	for (size_t off = 0, got = 0; got < sizeof(big);) {
		struct pollfd p[2] = {{.fd = e.agent, .events = off < sizeof(big) ? POLLOUT : 0},
				      {.fd = e.mhd, .events = POLLIN}};
		ssize_t r;

		assert_true(poll(p, 2, 5000) > 0);
		if (p[0].revents & POLLOUT) {
			r = send(e.agent, big + off, sizeof(big) - off < 8192 ? sizeof(big) - off : 8192, MSG_DONTWAIT);
			off += r > 0 ? (size_t)r : 0;
		}
		if (p[1].revents & POLLIN) {
			r = read(e.mhd, back + got, sizeof(back) - got);
			assert_true(r > 0);
			got += (size_t)r;
		}
	}
	assert_memory_equal(big, back, sizeof(big));
	assert_false(__atomic_load_n(&e.done, __ATOMIC_ACQUIRE));
	/* the agent's end: the relay ends, the client's socket is shut for
	 * writing, the callback hands the socketpair back */
	close(e.agent);
	wait_done(&e);
	assert_int_equal(read(e.client, buf, sizeof(buf)), 0);
	close(e.mhd);
	close(e.client);
	close(e.raw);
	sk_api_relays_stop(rs);
}

static void test_client_gone_and_stop(void **state)
{
	sk_error_t err = {0};
	struct sk_api_relays *rs = sk_api_relays_start(&err);
	struct end a, b;
	char buf[8];

	(void)state;
	assert_non_null(rs);
	open_relay(rs, &a, NULL, true);
	open_relay(rs, &b, NULL, false);
	/* the client closes its own socket: the relay ends and the agent
	 * connection is closed */
	close(a.client);
	wait_done(&a);
	assert_int_equal(read(a.agent, buf, sizeof(buf)), 0);
	assert_false(__atomic_load_n(&b.done, __ATOMIC_ACQUIRE));
	/* the stop ends the rest */
	sk_api_relays_stop(rs);
	assert_true(__atomic_load_n(&b.done, __ATOMIC_ACQUIRE));
	assert_int_equal(read(b.agent, buf, sizeof(buf)), 0);
	close(a.agent);
	close(a.mhd);
	close(a.raw);
	close(b.agent);
	close(b.mhd);
	close(b.client);
	close(b.raw);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_relay_both_ways_and_agent_close),
		cmocka_unit_test(test_client_gone_and_stop),
	};

	curl_global_init(CURL_GLOBAL_DEFAULT);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
