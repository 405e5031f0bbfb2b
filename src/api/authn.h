/* Authentication: who a request's credentials say it is (upstream's
 * k8s.io/apiserver/pkg/authentication). A chain of authenticators runs on
 * every HTTPS request (src/api/http.c): the shared admin and node tokens,
 * the static token file (--token-auth-file), bootstrap tokens, x509 client
 * certificates and the pluggable bearer-token authenticators (service
 * account tokens). A user that authenticates is in system:authenticated,
 * as upstream's AuthenticatedGroupAdder makes it. */
#ifndef SK_API_AUTHN_H
#define SK_API_AUTHN_H

#include <stddef.h>

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

typedef struct sk_authn_options {
	const char *admin_token;     /* system:admin in system:masters */
	const char *node_token;      /* system:node in system:masters */
	const char *token_auth_file; /* path of the static token CSV, or NULL */
} sk_authn_options;

/* Loads the token file (fails with err naming it). api is borrowed and must
 * outlive the result (the authenticators that read Secrets use it). */
sk_authn *sk_authn_new(sk_api *api, const sk_authn_options *o, sk_error_t *err);
void sk_authn_free(sk_authn *a);

/* Authenticates a bearer token: a new user (caller frees with
 * sk_user_free), or NULL when no authenticator knows it. */
sk_user *sk_authn_token(sk_authn *a, const char *token);

#endif
