/* SPDY/3.1 frames from a client (src/util/spdy.c): any bytes fed to a
 * server-side session in two pieces, as WebSocket messages cut them. */
#include <stddef.h>
#include <stdint.h>

#include "util/spdy.h"

static int count(void *arg, const struct sk_spdy_frame *f)
{
	size_t *n = arg;

	*n += f->nheaders + f->len;
	(void)sk_spdy_header_get(f, "port");
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sk_spdy *s = sk_spdy_new();
	size_t n = 0, cut = size ? data[0] % (size + 1) : 0;

	if (sk_spdy_feed(s, data, cut, count, &n) == 0)
		sk_spdy_feed(s, data + cut, size - cut, count, &n);
	sk_spdy_free(s);
	return 0;
}
