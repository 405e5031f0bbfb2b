/* make toolchain-check: the smallest libFuzzer target, built as fuzz/ is
 * (clang, -fsanitize=fuzzer,address,undefined) and run for a few inputs. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char buf[8];

	memcpy(buf, data, size < sizeof(buf) ? size : sizeof(buf));
	return 0;
}
