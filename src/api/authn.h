/* Authentication: who a request's credentials say it is (upstream's
 * k8s.io/apiserver/pkg/authentication). A chain of authenticators runs on
 * every HTTPS request (src/api/http.c): the shared admin and node tokens,
 * the static token file (--token-auth-file), bootstrap tokens, x509 client
 * certificates and the pluggable bearer-token authenticators (service
 * account tokens). A user that authenticates is in system:authenticated,
 * as upstream's AuthenticatedGroupAdder makes it. */
#ifndef SK_API_AUTHN_H
#define SK_API_AUTHN_H

#include <gnutls/gnutls.h>
#include <stddef.h>
#include <stdint.h>

#include "api/auth.h"
#include "util/error.h"

typedef struct sk_authn sk_authn;

/* One line of a token file: token,user,uid[,"group1,group2"]. */
typedef struct sk_token_entry {
	unsigned char hash[32]; /* SHA-256 of the token: compared in constant time */
	char *user, *uid;
	char **groups; /* ngroups strings */
	size_t ngroups;
} sk_token_entry;

typedef struct sk_token_file {
	sk_token_entry *entries;
	size_t n;
} sk_token_file;

/* Parses upstream's static token CSV (encoding/csv rules: quoted fields with
 * "" escapes, blank lines skipped; at least 3 columns; a record with an
 * empty token is skipped; the 4th column is a comma-separated group list).
 * name is the file's name for messages. Returns 0, or -1 with err
 * (SK_EINVALID) naming the file and line. Release with
 * sk_token_file_release. */
int sk_token_file_parse(sk_token_file *tf, const char *name, const char *text, size_t len, sk_error_t *err);
void sk_token_file_release(sk_token_file *tf);
/* The entry whose token is token (every entry is compared, in constant
 * time), or NULL. Borrowed from tf. */
const sk_token_entry *sk_token_file_find(const sk_token_file *tf, const char *token);

/* Whether a and b (NUL-terminated secrets) are equal, in time that depends
 * on neither's content: both are hashed and the digests compared. */
int sk_secret_equal(const char *a, const char *b);

/* Bootstrap tokens (upstream's plugin/pkg/auth/authenticator/token/bootstrap):
 * "<id>.<secret>", id [a-z0-9]{6}, secret [a-z0-9]{16}. Returns 0 with id
 * and secret filled, -1 when token is not of that form. */
int sk_bootstrap_token_parse(const char *token, char id[7], char secret[17]);
/* Checks token against the Secret kube-system/bootstrap-token-<id> (secret:
 * the object as the API serves it, data base64-encoded) at now (seconds
 * since the epoch): type bootstrap.kubernetes.io/token, token-secret and
 * token-id equal, not expired, usage-bootstrap-authentication "true",
 * auth-extra-groups valid. Returns the user system:bootstrap:<id> in
 * system:bootstrappers and the extra groups, sorted (caller frees), or NULL
 * with *why (static text) saying what did not match. */
sk_user *sk_bootstrap_token_check(const json_t *secret, const char *token, int64_t now, const char **why);

/* A client certificate chain (DER, leaf first) checked against the
 * cluster CA: signed by it, valid now, usable for client authentication.
 * Returns the user (CN) in the groups (each O) with the extra
 * authentication.kubernetes.io/credential-id X509SHA256=<leaf's hex
 * SHA-256>, as upstream's x509 authenticator, caller frees; or NULL with
 * err saying why. */
sk_user *sk_authn_x509(sk_authn *a, const gnutls_datum_t *chain, unsigned n, sk_error_t *err);

/* A bearer-token authenticator of the pluggable table (authn.c's
 * token_plugins, after the token file: the service account token
 * authenticator, sk__sa_token_authenticate): 1 with *out (caller frees)
 * for a token it issued, 0 when the token is none of its own (the chain
 * goes on), -1 when it is its own but not valid (401). */
typedef int (*sk_token_authenticator_fn)(sk_api *api, const char *token, sk_user **out);

typedef struct sk_authn_options {
	const char *admin_token;     /* system:admin in system:masters */
	const char *node_token;      /* system:bootstrap:node-token in system:bootstrappers */
	const char *token_auth_file; /* path of the static token CSV, or NULL */
	const char *ca_pem;          /* the cluster CA: client certificates it signed authenticate; NULL: none */
} sk_authn_options;

/* Loads the token file and the CA (fails with err naming what is wrong).
 * api is borrowed and must outlive the result (the authenticators that
 * read Secrets use it); NULL: no bootstrap tokens or plugins. */
sk_authn *sk_authn_new(sk_api *api, const sk_authn_options *o, sk_error_t *err);
void sk_authn_free(sk_authn *a);

/* Authenticates a bearer token: a new user (caller frees with
 * sk_user_free), or NULL when no authenticator knows it. */
sk_user *sk_authn_token(sk_authn *a, const char *token);

/* A TLS session's client certificate: 0 when the client sent none, 1 with
 * *user (caller frees) when it authenticates, -1 when it does not (the
 * request is 401; the reason is logged). */
int sk_authn_session(sk_authn *a, gnutls_session_t s, sk_user **user);

#endif
