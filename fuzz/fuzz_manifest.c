/* Manifest / index JSON parser and platform selection. */
#include <stddef.h>
#include <stdint.h>

#include "image/image.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	sk_image_manifest m;

	if (sk_image_manifest_parse((const char *)data, size, &m, NULL) == 0) {
		if (m.is_index) {
			sk_image_manifest_select(&m, "linux/amd64");
			sk_image_manifest_select(&m, "linux/arm/v7");
		}
		sk_image_manifest_release(&m);
	}
	return 0;
}
