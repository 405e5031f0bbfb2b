/* SPDY/3.1 framing for the port-forward protocol (kubectl tunnels it over a
 * WebSocket, `SPDY/3.1+portforward.k8s.io`; older clients upgrade to it
 * directly). Debian packages no SPDY library for C, so the frame layout is
 * written here as moby/spdystream (the Go side) writes it; header blocks
 * are compressed with zlib and SPDY/3's fixed dictionary. One struct per
 * connection: each direction keeps one zlib stream for the whole session. */
#ifndef SK_UTIL_SPDY_H
#define SK_UTIL_SPDY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum sk_spdy_type {
	SK_SPDY_DATA = 0,
	SK_SPDY_SYN_STREAM = 1,
	SK_SPDY_SYN_REPLY = 2,
	SK_SPDY_RST_STREAM = 3,
	SK_SPDY_SETTINGS = 4,
	SK_SPDY_PING = 6,
	SK_SPDY_GOAWAY = 7,
	SK_SPDY_HEADERS = 8,
	SK_SPDY_WINDOW_UPDATE = 9,
};
enum { SK_SPDY_FLAG_FIN = 0x01, SK_SPDY_MAX_FRAME = 1 << 20, SK_SPDY_MAX_HEADERS = 32 };

struct sk_spdy_header {
	char *name, *value; /* NUL-terminated; value's NUL-separated parts kept as they came */
};

/* One parsed frame: the callback borrows it. */
struct sk_spdy_frame {
	enum sk_spdy_type type;
	uint8_t flags;
	uint32_t stream_id;  /* data, SYN_STREAM/REPLY, RST_STREAM, HEADERS, WINDOW_UPDATE; GOAWAY's last id */
	uint32_t value;      /* RST_STREAM/GOAWAY status, PING id, WINDOW_UPDATE delta */
	const uint8_t *data; /* DATA payload */
	size_t len;
	struct sk_spdy_header headers[SK_SPDY_MAX_HEADERS]; /* SYN_STREAM, SYN_REPLY, HEADERS */
	size_t nheaders;
};

struct sk_spdy;

struct sk_spdy *sk_spdy_new(void);
void sk_spdy_free(struct sk_spdy *s);

/* Returns 0 to go on, non-zero to stop feeding. */
typedef int (*sk_spdy_frame_cb)(void *arg, const struct sk_spdy_frame *f);

/* Buffers data and calls cb for each complete frame. Returns 0, or -1 on a
 * protocol error (wrong version, a frame over SK_SPDY_MAX_FRAME, a header
 * block that does not inflate or parse); the session is then unusable. */
int sk_spdy_feed(struct sk_spdy *s, const uint8_t *data, size_t len, sk_spdy_frame_cb cb, void *arg);

/* Encoders: each returns a malloc'd frame, its length in *len. */
uint8_t *sk_spdy_data(uint32_t stream_id, uint8_t flags, const void *data, size_t n, size_t *len);
/* SYN_STREAM / SYN_REPLY with the given headers, compressed with s's
 * outgoing zlib stream (so frames must be sent in the order made). */
uint8_t *sk_spdy_syn(struct sk_spdy *s, enum sk_spdy_type type, uint32_t stream_id, uint8_t flags,
		     const struct sk_spdy_header *h, size_t nh, size_t *len);
uint8_t *sk_spdy_rst(uint32_t stream_id, uint32_t status, size_t *len);
uint8_t *sk_spdy_ping(uint32_t id, size_t *len);
uint8_t *sk_spdy_goaway(uint32_t last_id, size_t *len);

/* The value of header name in f (case-insensitive), or NULL. */
const char *sk_spdy_header_get(const struct sk_spdy_frame *f, const char *name);

#endif
