/* libFuzzer target for the CRI log parser and decoder (crilog.h). */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "runtime/crilog.h"

static int sink(void *arg, const char *data, size_t len)
{
	size_t *total = arg;

	if (len)
		*total += (unsigned char)data[0] + (unsigned char)data[len - 1];
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sk_crilog_record r;
	struct sk_crilog_opts o = {.tail_lines = -1};
	size_t total = 0;

	if (sk_crilog_parse((const char *)data, size, &r) == 0) {
		/* the record must point inside the input */
		if (r.msg < (const char *)data || r.msg + r.msg_len > (const char *)data + size)
			__builtin_trap();
	}
	sk_crilog_decode((const char *)data, size, &o, sink, &total);
	if (size > 0) {
		o.tail_lines = data[0] % 4;
		o.timestamps = data[0] & 4;
		o.limit_bytes = data[0] & 8 ? 7 : 0;
		o.streams = data[0] >> 6;
		o.since_ns = data[0] & 16 ? 1475713030000000000LL : 0;
		sk_crilog_decode((const char *)data, size, &o, sink, &total);
	}
	return 0;
}
