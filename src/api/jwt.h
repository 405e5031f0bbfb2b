/* Service-account tokens: the signing key, compact JWS (RS256) signing and
 * verification, the JWKS, and the claims of a bound token as upstream's
 * pkg/serviceaccount/claims.go writes and checks them.
 *
 * The JSON is jansson's, base64url and the RSA signature GnuTLS's
 * (gnutls_privkey_sign_data2 / gnutls_pubkey_verify_data2). */
#ifndef SK_API_JWT_H
#define SK_API_JWT_H

#include <jansson.h>
#include <stdint.h>

#include "util/error.h"

typedef struct sk_sa_keys sk_sa_keys;

/* Loads the PEM private key at path, or makes an RSA 2048 key there (0600)
 * when the file does not exist. Free with sk_sa_keys_free. */
sk_sa_keys *sk_sa_keys_load(const char *path, sk_error_t *err);
/* The same from a PEM text (tests). */
sk_sa_keys *sk_sa_keys_from_pem(const char *pem, size_t len, sk_error_t *err);
void sk_sa_keys_free(sk_sa_keys *k);
/* base64url(SHA-256(DER public key)), as upstream's keyIDFromPublicKey (borrowed). */
const char *sk_sa_keys_kid(const sk_sa_keys *k);
/* {"keys":[{"use":"sig","kty":"RSA","kid":…,"alg":"RS256","n":…,"e":…}]} (new reference). */
json_t *sk_sa_keys_jwks(const sk_sa_keys *k);

/* base64url without padding (RFC 7515 §2) of data: malloc'd. */
char *sk_b64url_encode(const void *data, size_t len);
/* Decodes unpadded base64url: malloc'd (NUL-terminated, length in *len) or NULL. */
unsigned char *sk_b64url_decode(const char *s, size_t slen, size_t *len);

/* Signs claims (keys sorted, compact) as a compact JWS with header
 * {"alg":"RS256","kid":…}: malloc'd, or NULL with err. */
char *sk_jwt_sign(const sk_sa_keys *k, json_t *claims, sk_error_t *err);
/* Parses token and checks its RS256 signature against k: the claims (new
 * reference), or NULL with err (SK_EUNAUTHORIZED and a message) when the
 * token is no JWT, not ours, or its signature does not verify. */
json_t *sk_jwt_verify(const sk_sa_keys *k, const char *token, sk_error_t *err);

/* What a bound token says (claims.go's Claims()). */
typedef struct sk_sa_claims_in {
	const char *issuer;
	json_t *audiences; /* array of strings (borrowed) */
	const char *ns, *sa_name, *sa_uid;
	const char *pod_name, *pod_uid;       /* NULL: not bound to a pod */
	const char *secret_name, *secret_uid; /* NULL: not bound to a secret */
	const char *node_name, *node_uid;     /* NULL: no node (a pod's node, or a Node binding) */
	const char *jti;
	int64_t now, expiration_secs;
	int64_t warnafter_secs; /* 0: none */
} sk_sa_claims_in;

/* The claims object (new reference): iss, sub, aud, exp, iat, nbf, jti and
 * kubernetes.io {namespace, serviceaccount, pod|secret, node, warnafter}. */
json_t *sk_sa_claims_new(const sk_sa_claims_in *in);

/* What a verified token names (pointers into the claims object). */
typedef struct sk_sa_claims_out {
	const char *ns, *sa_name, *sa_uid;
	const char *pod_name, *pod_uid, *secret_name, *secret_uid, *node_name, *node_uid;
	const char *jti;
} sk_sa_claims_out;

/* Checks a verified token's public claims as upstream's validator: issuer,
 * exp and nbf with go-jose's one-minute leeway, and the private claims'
 * shape. 0 with out filled, or -1 with err's message upstream's ("service
 * account token has expired", "service account token is not valid yet" …). */
int sk_sa_claims_check(json_t *claims, const char *issuer, int64_t now, sk_sa_claims_out *out, sk_error_t *err);
/* The audiences of claims ("aud": a string or an array) that are also in
 * want: a new array, empty when none. */
json_t *sk_sa_claims_audiences(json_t *claims, json_t *want);

#endif
