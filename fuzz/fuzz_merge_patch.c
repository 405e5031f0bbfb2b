/* Input: a JSON document, then a NUL byte or newline, then a merge patch. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "api/patch.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *sep = memchr(data, '\0', size);
	json_t *doc, *ops, *out;

	if (!sep)
		sep = memchr(data, '\n', size);
	if (!sep)
		return 0;
	doc = json_loadb((const char *)data, (size_t)(sep - data), JSON_DECODE_ANY, NULL);
	ops = json_loadb((const char *)sep + 1, size - (size_t)(sep - data) - 1, JSON_DECODE_ANY, NULL);
	if (doc && ops) {
		out = sk_merge_patch(doc, ops);
		json_decref(out);
	}
	json_decref(doc);
	json_decref(ops);
	return 0;
}
