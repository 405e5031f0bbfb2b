/* Fuzzes the AdmissionReview response checks of the webhook admission
 * plugins (src/api/webhook.c): any body a webhook sends is accepted or
 * refused with a reason, never a crash; an accepted one has the request's
 * uid, and a refusal's Status is well formed. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "api/webhook.h"
#include "util/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	for (int mutating = 0; mutating < 2; mutating++) {
		json_t *resp = NULL;
		char *why = NULL;

		if (sk__webhook_parse_response((const char *)data, size, "u-1", mutating, &resp, &why) == 0) {
			json_t *st;

			if (!resp || why || strcmp(json_string_value(json_object_get(resp, "uid")), "u-1"))
				abort();
			st = sk__webhook_denied_status("hook.example.com", json_object_get(resp, "status"));
			if (json_integer_value(json_object_get(st, "code")) < 400 ||
			    !json_string_value(json_object_get(st, "message")))
				abort();
			json_decref(st);
			json_decref(resp);
		} else if (!why || resp) {
			abort();
		}
		free(why);
	}
	return 0;
}
