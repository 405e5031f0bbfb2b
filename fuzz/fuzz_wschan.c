/* The channel protocols' parsers of client input (src/util/wschan.c): any
 * bytes as a binary and a base64 channel message, as a resize message, and
 * (as text) as a port list and a Sec-WebSocket-Protocol header. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/wschan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *out = NULL;
	size_t len = 0;
	int ch;
	uint16_t w, h, ports[8];
	struct sk_ws_proto p;
	char *text = malloc(size + 1);

	for (int b64 = 0; b64 < 2; b64++) {
		if (sk_ws_decode(b64, data, size, &ch, &out, &len) == 0) {
			size_t n;
			uint8_t *m = sk_ws_encode(b64, ch, out, len, &n);

			if (ch < 10 || !b64) {
				uint8_t *back = NULL;
				size_t blen = 0;
				int bch;

				if (sk_ws_decode(b64, m, n, &bch, &back, &blen) != 0 || bch != ch || blen != len ||
				    (len && memcmp(back, out, len)))
					abort();
				free(back);
			}
			free(m);
		}
		free(out);
		out = NULL;
	}
	sk_ws_parse_resize(data, size, &w, &h);
	memcpy(text, data, size);
	text[size] = '\0';
	sk_ws_parse_ports(text, ports, 8);
	sk_ws_pick_protocol(text, false, &p);
	sk_ws_pick_protocol(text, true, &p);
	free(text);
	return 0;
}
