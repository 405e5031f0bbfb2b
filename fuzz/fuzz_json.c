/* Differential: sk_json_loadb (yajl) must accept exactly what json_loadb
 * accepts and build the same value with the same key order; sk_json_dumps
 * (yajl) must write the bytes json_dumps writes. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_t *ref = json_loadb((const char *)data, size, 0, NULL);
	json_t *got = sk_json_loadb((const char *)data, size);
	char *a, *b;

	if (!ref != !got)
		abort();
	if (!ref)
		return 0;
	if (!json_equal(ref, got))
		abort();
	a = json_dumps(ref, JSON_COMPACT);
	b = sk_json_dumps(got, NULL);
	if (!a != !b || (a && strcmp(a, b)))
		abort();
	free(a);
	free(b);
	json_decref(ref);
	json_decref(got);
	ref = json_loadb((const char *)data, size, JSON_REJECT_DUPLICATES, NULL);
	got = sk_json_loadb_ex((const char *)data, size, JSON_REJECT_DUPLICATES, NULL);
	if (!ref != !got || (ref && !json_equal(ref, got)))
		abort();
	json_decref(ref);
	json_decref(got);
	return 0;
}
