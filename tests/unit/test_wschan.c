/* Kubernetes' WebSocket channel protocols (src/util/wschan.c): negotiation,
 * the binary and base64 framings, resize messages, exit statuses and port
 * lists, against what wsstream, kubelet and client-go produce. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "util/util.h"
#include "util/wschan.h"

static void test_pick_protocol(void **state)
{
	struct sk_ws_proto p;

	(void)state;
	assert_int_equal(sk_ws_pick_protocol("v5.channel.k8s.io", false, &p), 0);
	assert_string_equal(p.name, "v5.channel.k8s.io");
	assert_int_equal(p.version, 5);
	/* the client's order decides */
	assert_int_equal(sk_ws_pick_protocol("v4.channel.k8s.io, v5.channel.k8s.io", false, &p), 0);
	assert_int_equal(p.version, 4);
	assert_int_equal(sk_ws_pick_protocol("x,  v4.base64.channel.k8s.io ", false, &p), 0);
	assert_true(p.base64);
	assert_int_equal(p.version, 4);
	assert_int_equal(sk_ws_pick_protocol("base64.channel.k8s.io", false, &p), 0);
	assert_int_equal(p.version, 1);
	assert_int_equal(sk_ws_pick_protocol(NULL, false, &p), 0);
	assert_string_equal(p.name, "");
	assert_int_equal(sk_ws_pick_protocol("chat, superchat", false, &p), -1);
	/* port-forward: kubectl 1.32 tunnels SPDY; the Python client speaks v4 */
	assert_int_equal(sk_ws_pick_protocol("SPDY/3.1+portforward.k8s.io", true, &p), 0);
	assert_true(p.spdy);
	assert_int_equal(sk_ws_pick_protocol("v4.channel.k8s.io", true, &p), 0);
	assert_false(p.spdy);
	assert_int_equal(sk_ws_pick_protocol("v5.channel.k8s.io", true, &p), -1);
}

static void test_accept_key(void **state)
{
	char out[32];

	(void)state;
	/* RFC 6455's example */
	assert_int_equal(sk_ws_accept_key("dGhlIHNhbXBsZSBub25jZQ==", out), 0);
	assert_string_equal(out, "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=");
	assert_int_equal(sk_ws_accept_key("", out), -1);
}

static void test_binary_frames(void **state)
{
	size_t n, len;
	uint8_t *m = sk_ws_encode(false, 1, "hi", 2, &n), *data;
	int ch;

	(void)state;
	assert_int_equal(n, 3);
	assert_memory_equal(m, "\x01hi", 3);
	assert_int_equal(sk_ws_decode(false, m, n, &ch, &data, &len), 0);
	assert_int_equal(ch, 1);
	assert_int_equal(len, 2);
	assert_memory_equal(data, "hi", 2);
	free(data);
	free(m);
	/* the close signal of v5: channel 255, the stream's number */
	assert_int_equal(sk_ws_decode(false, (const uint8_t *)"\xff\x00", 2, &ch, &data, &len), 0);
	assert_int_equal(ch, 255);
	assert_int_equal(len, 1);
	assert_int_equal(data[0], 0);
	free(data);
	/* an empty message has no channel */
	assert_int_equal(sk_ws_decode(false, (const uint8_t *)"", 0, &ch, &data, &len), -1);
	/* upstream's "connection established": the channel alone */
	m = sk_ws_encode(false, 2, NULL, 0, &n);
	assert_int_equal(n, 1);
	assert_int_equal(m[0], 2);
	free(m);
}

static void test_base64_frames(void **state)
{
	size_t n, len;
	uint8_t *m = sk_ws_encode(true, 1, "hello", 5, &n), *data;
	int ch;

	(void)state;
	assert_int_equal(n, 9);
	assert_memory_equal(m, "1aGVsbG8=", 9);
	assert_int_equal(sk_ws_decode(true, m, n, &ch, &data, &len), 0);
	assert_int_equal(ch, 1);
	assert_memory_equal(data, "hello", 5);
	free(data);
	free(m);
	assert_int_equal(sk_ws_decode(true, (const uint8_t *)"x", 1, &ch, &data, &len), -1);
	assert_int_equal(sk_ws_decode(true, (const uint8_t *)"0!!!", 4, &ch, &data, &len), -1);
	assert_int_equal(sk_ws_decode(true, (const uint8_t *)"0", 1, &ch, &data, &len), 0);
	assert_int_equal(ch, 0);
	assert_null(data);
}

static void test_resize(void **state)
{
	uint16_t w = 0, h = 0;
	const char *ok = "{\"Width\":120,\"Height\":40}";

	(void)state;
	assert_int_equal(sk_ws_parse_resize(ok, strlen(ok), &w, &h), 0);
	assert_int_equal(w, 120);
	assert_int_equal(h, 40);
	assert_int_equal(sk_ws_parse_resize("{\"Width\":-1}", 12, &w, &h), -1);
	assert_int_equal(sk_ws_parse_resize("{\"Width\":70000,\"Height\":1}", 26, &w, &h), -1);
	assert_int_equal(sk_ws_parse_resize("{\"Width\":\"a\"}", 13, &w, &h), -1);
	assert_int_equal(sk_ws_parse_resize("[1,2]", 5, &w, &h), -1);
	assert_int_equal(sk_ws_parse_resize("{", 1, &w, &h), -1);
	assert_int_equal(sk_ws_parse_resize(NULL, 0, &w, &h), -1);
}

static void test_exit_status(void **state)
{
	const char *argv[] = {"sh", "-c", "exit 3", NULL};
	char *s;

	(void)state;
	s = sk_ws_exit_status(4, 0, argv);
	assert_string_equal(s, "{\"metadata\":{},\"status\":\"Success\"}");
	free(s);
	s = sk_ws_exit_status(5, 3, argv);
	assert_string_equal(
		s, "{\"metadata\":{},\"status\":\"Failure\",\"message\":\"command terminated with non-zero exit "
		   "code: error executing command [sh -c exit 3], exit code 3\",\"reason\":\"NonZeroExitCode\","
		   "\"details\":{\"causes\":[{\"reason\":\"ExitCode\",\"message\":\"3\"}]}}");
	free(s);
	s = sk_ws_exit_status(1, 0, argv);
	assert_string_equal(s, "");
	free(s);
	s = sk_ws_exit_status(1, 137, argv);
	assert_non_null(strstr(s, "exit code 137"));
	free(s);
	s = sk_ws_error_status(4, "boom");
	assert_non_null(strstr(s, "\"reason\":\"InternalError\""));
	assert_non_null(strstr(s, "Internal error occurred: boom"));
	free(s);
}

static void test_ports(void **state)
{
	uint16_t p[4];

	(void)state;
	assert_int_equal(sk_ws_parse_ports("8080", p, 4), 1);
	assert_int_equal(p[0], 8080);
	assert_int_equal(sk_ws_parse_ports("80,443,65535", p, 4), 3);
	assert_int_equal(p[2], 65535);
	assert_int_equal(sk_ws_parse_ports("0", p, 4), -1);
	assert_int_equal(sk_ws_parse_ports("65536", p, 4), -1);
	assert_int_equal(sk_ws_parse_ports("80,", p, 4), -1);
	assert_int_equal(sk_ws_parse_ports("a", p, 4), -1);
	assert_int_equal(sk_ws_parse_ports("", p, 4), -1);
	assert_int_equal(sk_ws_parse_ports("-1", p, 4), -1);
	assert_int_equal(sk_ws_parse_ports("1,2,3,4,5", p, 4), 5);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pick_protocol), cmocka_unit_test(test_accept_key),
		cmocka_unit_test(test_binary_frames), cmocka_unit_test(test_base64_frames),
		cmocka_unit_test(test_resize),        cmocka_unit_test(test_exit_status),
		cmocka_unit_test(test_ports),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
