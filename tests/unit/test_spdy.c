/* SPDY/3.1 framing (src/util/spdy.c): a client-side session's SYN_STREAM
 * (header block compressed with the SPDY/3 dictionary) read back by a
 * server-side one, data, ping, rst and goaway frames, and bad input. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "util/spdy.h"
#include "util/util.h"

struct seen {
	struct sk_spdy_frame f[8];
	char type[8][32], port[8][32];
	uint8_t data[8][64];
	int n;
};

static int collect(void *arg, const struct sk_spdy_frame *f)
{
	struct seen *s = arg;
	const char *t = sk_spdy_header_get(f, "streamtype"), *p = sk_spdy_header_get(f, "port");

	if (s->n >= 8)
		return 1;
	s->f[s->n] = *f;
	s->f[s->n].nheaders = 0;
	snprintf(s->type[s->n], 32, "%s", t ? t : "");
	snprintf(s->port[s->n], 32, "%s", p ? p : "");
	if (f->len && f->len <= 64)
		memcpy(s->data[s->n], f->data, f->len);
	s->n++;
	return 0;
}

static void test_syn_stream_roundtrip(void **state)
{
	struct sk_spdy *client = sk_spdy_new(), *server = sk_spdy_new();
	struct sk_spdy_header h1[] = {{"streamtype", "error"}, {"port", "8080"}, {"requestid", "0"}};
	struct sk_spdy_header h2[] = {{"streamtype", "data"}, {"port", "8080"}, {"requestid", "0"}};
	struct seen s = {0};
	size_t n1, n2, n3;
	uint8_t *f1 = sk_spdy_syn(client, SK_SPDY_SYN_STREAM, 1, 0, h1, 3, &n1);
	uint8_t *f2 = sk_spdy_syn(client, SK_SPDY_SYN_STREAM, 3, 0, h2, 3, &n2);
	uint8_t *f3 = sk_spdy_data(3, SK_SPDY_FLAG_FIN, "GET /", 5, &n3);

	(void)state;
	/* fed in pieces: frames are cut anywhere by the WebSocket messages */
	assert_int_equal(sk_spdy_feed(server, f1, 5, collect, &s), 0);
	assert_int_equal(s.n, 0);
	assert_int_equal(sk_spdy_feed(server, f1 + 5, n1 - 5, collect, &s), 0);
	assert_int_equal(sk_spdy_feed(server, f2, n2, collect, &s), 0);
	assert_int_equal(sk_spdy_feed(server, f3, n3, collect, &s), 0);
	assert_int_equal(s.n, 3);
	assert_int_equal(s.f[0].type, SK_SPDY_SYN_STREAM);
	assert_int_equal(s.f[0].stream_id, 1);
	assert_string_equal(s.type[0], "error");
	assert_string_equal(s.type[1], "data");
	assert_string_equal(s.port[1], "8080");
	assert_int_equal(s.f[2].type, SK_SPDY_DATA);
	assert_int_equal(s.f[2].stream_id, 3);
	assert_int_equal(s.f[2].flags, SK_SPDY_FLAG_FIN);
	assert_int_equal(s.f[2].len, 5);
	assert_memory_equal(s.data[2], "GET /", 5);
	free(f1);
	free(f2);
	free(f3);
	sk_spdy_free(client);
	sk_spdy_free(server);
}

static void test_control_frames(void **state)
{
	struct sk_spdy *server = sk_spdy_new(), *client = sk_spdy_new();
	struct seen s = {0};
	size_t n;
	uint8_t *f;

	(void)state;
	f = sk_spdy_ping(7, &n);
	assert_int_equal(n, 12);
	assert_int_equal(sk_spdy_feed(server, f, n, collect, &s), 0);
	free(f);
	f = sk_spdy_rst(5, 5, &n);
	assert_int_equal(sk_spdy_feed(server, f, n, collect, &s), 0);
	free(f);
	f = sk_spdy_goaway(9, &n);
	assert_int_equal(sk_spdy_feed(server, f, n, collect, &s), 0);
	free(f);
	/* a reply with no headers, as the agent answers each stream */
	f = sk_spdy_syn(server, SK_SPDY_SYN_REPLY, 1, 0, NULL, 0, &n);
	assert_int_equal(sk_spdy_feed(client, f, n, collect, &s), 0);
	free(f);
	assert_int_equal(s.n, 4);
	assert_int_equal(s.f[0].type, SK_SPDY_PING);
	assert_int_equal(s.f[0].value, 7);
	assert_int_equal(s.f[1].type, SK_SPDY_RST_STREAM);
	assert_int_equal(s.f[1].stream_id, 5);
	assert_int_equal(s.f[1].value, 5);
	assert_int_equal(s.f[2].type, SK_SPDY_GOAWAY);
	assert_int_equal(s.f[2].stream_id, 9);
	assert_int_equal(s.f[3].type, SK_SPDY_SYN_REPLY);
	assert_int_equal(s.f[3].stream_id, 1);
	sk_spdy_free(server);
	sk_spdy_free(client);
}

static void test_bad_input(void **state)
{
	struct sk_spdy *s = sk_spdy_new();
	struct seen seen = {0};
	/* version 2 */
	static const uint8_t v2[] = {0x80, 0x02, 0x00, 0x06, 0x00, 0x00, 0x00, 0x04, 0, 0, 0, 1};
	/* a SYN_STREAM whose header block is no zlib */
	static const uint8_t bad[] = {0x80, 0x03, 0x00, 0x01, 0x00, 0x00, 0x00, 0x0e, 0, 0, 0, 1,
				      0,    0,    0,    0,    0,    0,    0xde, 0xad, 0xbe, 0xef};
	/* a frame over the limit */
	static const uint8_t big[] = {0x00, 0x00, 0x00, 0x01, 0x00, 0xff, 0xff, 0xff};

	(void)state;
	assert_int_equal(sk_spdy_feed(s, v2, sizeof(v2), collect, &seen), -1);
	sk_spdy_free(s);
	s = sk_spdy_new();
	assert_int_equal(sk_spdy_feed(s, bad, sizeof(bad), collect, &seen), -1);
	assert_int_equal(sk_spdy_feed(s, v2, 0, collect, &seen), -1); /* stays failed */
	sk_spdy_free(s);
	s = sk_spdy_new();
	assert_int_equal(sk_spdy_feed(s, big, sizeof(big), collect, &seen), -1);
	sk_spdy_free(s);
	assert_int_equal(seen.n, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_syn_stream_roundtrip),
		cmocka_unit_test(test_control_frames),
		cmocka_unit_test(test_bad_input),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
