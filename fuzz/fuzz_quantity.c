#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/quantity.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	int64_t v;

	memcpy(s, data, size);
	s[size] = '\0';
	sk_quantity_milli(s, &v);
	sk_quantity_value(s, &v);
	free(s);
	return 0;
}
