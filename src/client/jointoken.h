/* Join tokens in k3s's format (pkg/clientaccess/token.go):
 * "K10<sha256 of the server's CA bundle, hex>::<user>:<password>". The hash
 * lets a joining agent check the CA it downloads from the server's
 * unauthenticated /cacerts before it sends any credential; the password is
 * the bearer token. A token without the K10 prefix is the password alone
 * (and the CA is whatever --ca-file says, or unverified). */
#ifndef SK_CLIENT_JOINTOKEN_H
#define SK_CLIENT_JOINTOKEN_H

#include <stddef.h>

#include "client/client.h"
#include "util/error.h"

#define SK_JOIN_TOKEN_PREFIX "K10"
/* The most /cacerts may hold (a CA bundle is a few KiB). */
#define SK_JOIN_CACERTS_MAX (64 * 1024)

typedef struct sk_join_token {
	char *ca_hash; /* 64 lowercase hex digits, or NULL for a plain token */
	char *user;    /* NULL when the token names none */
	char *secret;  /* the bearer token */
} sk_join_token;

/* Parses s into t (release with sk_join_token_release); -1 with err on a
 * malformed K10 token. */
int sk_join_token_parse(const char *s, sk_join_token *t, sk_error_t *err);
void sk_join_token_release(sk_join_token *t);
/* The hex sha256 of the CA bundle's bytes (malloc'd). */
char *sk_join_ca_hash(const char *pem, size_t len);
/* "K10<hash of ca_pem>::<user>:<secret>" (malloc'd). */
char *sk_join_token_format(const char *ca_pem, const char *user, const char *secret);
/* 0 when the bundle's hash is the token's (or the token is plain), else -1
 * with err. */
int sk_join_check_ca(const sk_join_token *t, const char *pem, size_t len, sk_error_t *err);
/* An HTTPS client for server authenticated by token. A K10 token: the CA
 * is ca_pem when given, else fetched from server's /cacerts without
 * verification; either way it must hash to the token's, and then verifies
 * every request. A plain token: ca_pem (NULL: not verified), as
 * sk_client_new_http. *ca_out (may be NULL) gets the CA used (malloc'd). */
sk_client *sk_client_join(const char *server, const char *token, const char *ca_pem, char **ca_out, sk_error_t *err);

#endif
