#include <gnutls/crypto.h>
#include <gnutls/gnutls.h>
#include <string.h>

#include "util/util.h"
#include "util/wschan.h"

/* kubelet's remotecommand protocols (newest first is only a tie-break: the
 * client's order decides, as wsstream's handshake does) and portforward's. */
static const struct sk_ws_proto exec_protos[] = {
	{"v5.channel.k8s.io", 5, false, false},       {"v4.channel.k8s.io", 4, false, false},
	{"v4.base64.channel.k8s.io", 4, true, false}, {"channel.k8s.io", 1, false, false},
	{"base64.channel.k8s.io", 1, true, false},
};
static const struct sk_ws_proto pf_protos[] = {
	{"SPDY/3.1+portforward.k8s.io", 4, false, true},
	{"v4.channel.k8s.io", 4, false, false},
	{"v4.base64.channel.k8s.io", 4, true, false},
	{"portforward.k8s.io", 1, false, false},
};

int sk_ws_pick_protocol(const char *offered, bool portforward, struct sk_ws_proto *out)
{
	const struct sk_ws_proto *tab = portforward ? pf_protos : exec_protos;
	size_t n = portforward ? sizeof(pf_protos) / sizeof(*pf_protos) : sizeof(exec_protos) / sizeof(*exec_protos);
	const char *s = offered;

	if (!offered || !offered[strspn(offered, " \t,")]) {
		*out = (struct sk_ws_proto){"", portforward ? 4 : 1, false, false};
		return 0;
	}
	while (*s) {
		size_t len;

		s += strspn(s, " \t,");
		len = strcspn(s, ",");
		while (len && (s[len - 1] == ' ' || s[len - 1] == '\t'))
			len--;
		for (size_t i = 0; i < n; i++)
			if (len && strlen(tab[i].name) == len && !strncmp(tab[i].name, s, len)) {
				*out = tab[i];
				return 0;
			}
		s += strcspn(s, ",");
	}
	return -1;
}

int sk_ws_accept_key(const char *key, char out[32])
{
	static const char guid[] = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";
	unsigned char digest[20];
	char buf[128];
	gnutls_datum_t in = {digest, sizeof(digest)}, b64 = {0};
	int n = snprintf(buf, sizeof(buf), "%s%s", key ? key : "", guid);

	if (!key || !*key || n < 0 || (size_t)n >= sizeof(buf))
		return -1;
	if (gnutls_hash_fast(GNUTLS_DIG_SHA1, buf, (size_t)n, digest) < 0 || gnutls_base64_encode2(&in, &b64) < 0)
		return -1;
	if (b64.size >= 32) {
		gnutls_free(b64.data);
		return -1;
	}
	memcpy(out, b64.data, b64.size);
	out[b64.size] = '\0';
	gnutls_free(b64.data);
	return 0;
}

int sk_ws_decode(bool base64, const uint8_t *msg, size_t msg_len, int *channel, uint8_t **data, size_t *len)
{
	*data = NULL;
	*len = 0;
	if (!msg_len)
		return -1;
	if (!base64) {
		*channel = msg[0];
		if (msg_len > 1) {
			*data = xmalloc(msg_len - 1);
			memcpy(*data, msg + 1, msg_len - 1);
			*len = msg_len - 1;
		}
		return 0;
	}
	if (msg[0] < '0' || msg[0] > '9')
		return -1;
	*channel = msg[0] - '0';
	if (msg_len > 1) {
		gnutls_datum_t in = {(unsigned char *)msg + 1, (unsigned)(msg_len - 1)}, out = {0};

		if (msg_len - 1 > UINT32_MAX / 2 || gnutls_base64_decode2(&in, &out) < 0)
			return -1;
		if (out.size) {
			*data = xmalloc(out.size);
			memcpy(*data, out.data, out.size);
			*len = out.size;
		}
		gnutls_free(out.data);
	}
	return 0;
}

uint8_t *sk_ws_encode(bool base64, int channel, const void *data, size_t len, size_t *out_len)
{
	uint8_t *m;

	if (!base64 || !len) {
		m = xmalloc(len + 1);
		m[0] = base64 ? (uint8_t)('0' + channel) : (uint8_t)channel;
		if (len)
			memcpy(m + 1, data, len);
		*out_len = len + 1;
		return m;
	}
	{
		gnutls_datum_t in = {(unsigned char *)data, (unsigned)len}, b64 = {0};

		if (gnutls_base64_encode2(&in, &b64) < 0)
			abort(); /* only out of memory */
		m = xmalloc(b64.size + 1);
		m[0] = (uint8_t)('0' + channel);
		memcpy(m + 1, b64.data, b64.size);
		*out_len = b64.size + 1;
		gnutls_free(b64.data);
		return m;
	}
}

int sk_ws_parse_resize(const void *data, size_t len, uint16_t *width, uint16_t *height)
{
	cleanup_json json_t *j = json_loadb(data ? data : "", len, 0, NULL);
	json_t *w = json_object_get(j, "Width"), *h = json_object_get(j, "Height");

	if (!json_is_object(j) || (w && !json_is_integer(w)) || (h && !json_is_integer(h)))
		return -1;
	if (json_integer_value(w) < 0 || json_integer_value(w) > 65535 || json_integer_value(h) < 0 ||
	    json_integer_value(h) > 65535)
		return -1;
	*width = (uint16_t)json_integer_value(w);
	*height = (uint16_t)json_integer_value(h);
	return 0;
}

static char *dump(json_t *j)
{
	char *s = json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER);

	json_decref(j);
	return s;
}

char *sk_ws_exit_status(int version, int exit_code, const char *const *argv)
{
	char cmd[1024];
	size_t n = 0;
	cleanup_free char *msg = NULL, *code = NULL;

	if (!exit_code)
		return version >= 4 ? dump(json_pack("{s:{},s:s}", "metadata", "status", "Success")) : xstrdup("");
	cmd[0] = '\0';
	for (int i = 0; argv && argv[i] && n < sizeof(cmd) - 1; i++) {
		int w = snprintf(cmd + n, sizeof(cmd) - n, "%s%s", i ? " " : "", argv[i]);

		n = w < 0 ? n : (size_t)w + n >= sizeof(cmd) ? sizeof(cmd) - 1 : n + (size_t)w;
	}
	/* kubelet: "command terminated with non-zero exit code: " + the CRI's ExitError */
	msg = xasprintf("command terminated with non-zero exit code: error executing command [%s], exit code %d", cmd,
			exit_code);
	if (version < 4)
		return steal_ptr(&msg);
	code = xasprintf("%d", exit_code);
	return dump(json_pack("{s:{},s:s,s:s,s:s,s:{s:[{s:s,s:s}]}}", "metadata", "status", "Failure", "message", msg,
			      "reason", "NonZeroExitCode", "details", "causes", "reason", "ExitCode", "message", code));
}

char *sk_ws_error_status(int version, const char *msg)
{
	cleanup_free char *m = xasprintf("Internal error occurred: %s", msg);

	if (version < 4)
		return steal_ptr(&m);
	return dump(json_pack("{s:{},s:s,s:s,s:s,s:{s:[{s:s}]},s:i}", "metadata", "status", "Failure", "message", m,
			      "reason", "InternalError", "details", "causes", "message", msg, "code", 500));
}

int sk_ws_parse_ports(const char *list, uint16_t *ports, int max)
{
	int n = 0;
	const char *s = list;

	if (!list || !*list)
		return -1;
	while (*s) {
		char *end;
		long v;

		if (*s < '0' || *s > '9')
			return -1;
		v = strtol(s, &end, 10);
		if (v < 1 || v > 65535 || (*end && *end != ','))
			return -1;
		if (n < max)
			ports[n] = (uint16_t)v;
		n++;
		s = *end ? end + 1 : end;
		if (*end == ',' && !*s)
			return -1;
	}
	return n;
}
