/* conmon's attach framing: any packet is split or refused, never read past. */
#include <stddef.h>
#include <stdint.h>

#include "runtime/container.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *out = NULL;
	size_t len = 0;
	int st = sk_attach_packet(data, size, &out, &len);

	if (st > 0) {
		volatile uint8_t sink = 0;

		for (size_t i = 0; i < len; i++)
			sink ^= out[i];
		(void)sink;
		if (out != data + 1 || len != size - 1)
			__builtin_trap();
	}
	return 0;
}
