/* Input: a JSON document, then a NUL byte or newline, then a strategic merge patch (kind Pod). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "api/patch.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *sep = memchr(data, '\0', size);
	sk_error_t err = {0};
	json_t *doc, *ops, *out;

	if (!sep)
		sep = memchr(data, '\n', size);
	if (!sep)
		return 0;
	doc = json_loadb((const char *)data, (size_t)(sep - data), JSON_DECODE_ANY, NULL);
	ops = json_loadb((const char *)sep + 1, size - (size_t)(sep - data) - 1, JSON_DECODE_ANY, NULL);
	if (doc && ops) {
		out = sk_strategic_merge_patch(doc, ops, "Pod", &err);
		json_decref(out);
	}
	json_decref(doc);
	json_decref(ops);
	return 0;
}
