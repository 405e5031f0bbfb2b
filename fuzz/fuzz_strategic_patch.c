/* Input: a JSON document, then a NUL byte or newline, then a strategic
 * merge patch (kind Pod). The patch is also server-side applied to the
 * document, and the write recorded in managedFields, to fuzz apply.c. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "api/apply.h"
#include "api/patch.h"

static void exercise_apply(json_t *doc, json_t *patch)
{
	sk_error_t err = {0};
	json_t *live = json_deep_copy(doc), *applied, *again;

	sk_managed_fields_update(NULL, live, "creator", "v1", NULL);
	applied = sk_apply(live, patch, "Pod", "applier", 0, &err);
	if (applied) {
		again = sk_apply(applied, patch, "Pod", "applier", 0, &err);
		json_decref(again);
		sk_managed_fields_update(live, applied, "updater", "v1", "status");
	}
	json_decref(sk_apply(live, patch, "Pod", "other", 1, &err));
	json_decref(applied);
	json_decref(live);
}

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
		if (json_is_object(doc) && json_is_object(ops))
			exercise_apply(doc, ops);
	}
	json_decref(doc);
	json_decref(ops);
	return 0;
}
