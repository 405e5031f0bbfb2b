/* Kubernetes' channel protocols over WebSocket (k8s.io/apimachinery
 * util/httpstream/wsstream): each message is one channel byte then the data;
 * in the base64 forms the channel is an ASCII digit and the data base64.
 * Pure functions over buffers (hashing and base64 are GnuTLS's), shared by
 * the node agent's streaming server, unit tests and fuzz targets. */
#ifndef SK_UTIL_WSCHAN_H
#define SK_UTIL_WSCHAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Channels of exec and attach. */
enum { SK_WS_STDIN = 0, SK_WS_STDOUT = 1, SK_WS_STDERR = 2, SK_WS_ERROR = 3, SK_WS_RESIZE = 4, SK_WS_CLOSE = 255 };

/* A negotiated subprotocol. version: 1 (channel.k8s.io, "" and the
 * base64 form), 4, 5; spdy: SPDY/3.1+portforward.k8s.io. */
struct sk_ws_proto {
	const char *name; /* static: the Sec-WebSocket-Protocol answered ("" for none) */
	int version;
	bool base64, spdy;
};

/* Picks the first protocol of the client's Sec-WebSocket-Protocol header
 * (comma-separated, may be NULL) that the server supports for exec/attach
 * (portforward false) or portforward. Returns 0 and fills *out, or -1 when
 * the client offers only unknown ones. No header: channel.k8s.io semantics
 * with the name "". */
int sk_ws_pick_protocol(const char *offered, bool portforward, struct sk_ws_proto *out);

/* Sec-WebSocket-Accept of key (RFC 6455: base64(SHA-1(key + GUID))): 0, or -1. */
int sk_ws_accept_key(const char *key, char out[32]);

/* Decodes one client message: *channel and the payload (malloc'd in *data,
 * *len bytes; NULL when empty). Returns 0, or -1 for an empty message, a bad
 * channel digit or bad base64. */
int sk_ws_decode(bool base64, const uint8_t *msg, size_t msg_len, int *channel, uint8_t **data, size_t *len);

/* Encodes data on channel as one message (malloc'd, length in *out_len). */
uint8_t *sk_ws_encode(bool base64, int channel, const void *data, size_t len, size_t *out_len);

/* Parses a resize message {"Width":W,"Height":H}: 0, or -1 (bad JSON,
 * values outside 0..65535). */
int sk_ws_parse_resize(const void *data, size_t len, uint16_t *width, uint16_t *height);

/* The status written on the error channel when a command ends: version 4
 * and 5 a metav1.Status JSON (Success, or Failure with reason
 * NonZeroExitCode and an ExitCode cause), older versions the message text
 * ("" on success). argv names the command as kubelet's message does.
 * Malloc'd. */
char *sk_ws_exit_status(int version, int exit_code, const char *const *argv);
/* A failure before the command ran (InternalError, 500 in v4/v5). Malloc'd. */
char *sk_ws_error_status(int version, const char *msg);

/* Port-forward: the ports of the query ("8080,9090"): count, or -1 for an
 * empty list or a port outside 1..65535 (*bad gets the offending text). At
 * most max are stored. */
int sk_ws_parse_ports(const char *list, uint16_t *ports, int max);

#endif
