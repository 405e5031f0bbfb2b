/* Fuzzes the service-account JWT parser and verifier (src/api/jwt.c) and the
 * claims checks: any bearer token is refused or verified without a crash,
 * and what verifies is signed by the key (a token the fuzzer signs itself
 * must verify with its claims unchanged). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api/jwt.h"
#include "util/util.h"

static sk_sa_keys *keys;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char dir[] = "/tmp/skiff-fuzz-jwt-XXXXXX";
	sk_error_t err = {0};
	cleanup_free char *path = NULL;

	(void)argc;
	(void)argv;
	if (!mkdtemp(dir))
		abort();
	path = xasprintf("%s/sa.key", dir);
	keys = sk_sa_keys_load(path, &err);
	if (!keys)
		abort();
	unlink(path);
	rmdir(dir);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *tok = xstrndup((const char *)data, size);
	sk_error_t err = {0};
	json_t *claims = sk_jwt_verify(keys, tok, &err), *payload;
	sk_sa_claims_out out;

	if (claims) {
		sk_sa_claims_check(claims, "https://kubernetes.default.svc.cluster.local", 1000, &out, &err);
		json_decref(sk_sa_claims_audiences(claims, json_object_get(claims, "aud")));
		json_decref(claims);
	}
	/* the input as a claims payload: signed, it verifies to the same claims */
	payload = json_loadb((const char *)data, size, JSON_REJECT_DUPLICATES, NULL);
	if (json_is_object(payload)) {
		char *signed_tok = sk_jwt_sign(keys, payload, &err);
		json_t *back = signed_tok ? sk_jwt_verify(keys, signed_tok, &err) : NULL;

		if (!back || !json_equal(back, payload))
			abort();
		json_decref(back);
		free(signed_tok);
	}
	json_decref(payload);
	free(tok);
	return 0;
}
