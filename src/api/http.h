/* HTTPS front end of the API server (libmicrohttpd over GnuTLS). */
#ifndef SK_API_HTTP_H
#define SK_API_HTTP_H

#include "api/api.h"

typedef struct sk_http sk_http;

typedef struct sk_http_options {
	const char *host; /* listen address, "127.0.0.1" */
	int port;
	const char *cert_pem, *key_pem;
	const char *admin_token;     /* user "admin" */
	const char *node_token;      /* a bootstrap credential (system:bootstrappers) */
	const char *ca_pem;          /* served unauthenticated at GET /cacerts (k3s), or NULL */
	const char *token_auth_file; /* upstream's static token CSV (--token-auth-file), or NULL */
} sk_http_options;

sk_http *sk_http_start(sk_api *api, const sk_http_options *opts, sk_error_t *err);
void sk_http_stop(sk_http *h);

#endif
