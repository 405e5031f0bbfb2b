/* Image reference parser: never crashes; what it accepts round-trips. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "image/image.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	sk_image_ref r, again;
	char full[700], full2[700];

	memcpy(s, data, size);
	s[size] = '\0';
	if (sk_image_ref_parse(s, &r, NULL) == 0) {
		sk_image_ref_string(&r, full, sizeof(full));
		if (sk_image_ref_parse(full, &again, NULL) != 0)
			abort();
		sk_image_ref_string(&again, full2, sizeof(full2));
		if (strcmp(full, full2))
			abort();
	}
	free(s);
	return 0;
}
