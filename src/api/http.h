/* HTTPS front end of the API server (libmicrohttpd over GnuTLS). */
#ifndef SK_API_HTTP_H
#define SK_API_HTTP_H

#include <time.h>

#include "api/api.h"

/* kube-apiserver's ReadHeaderTimeout (also its TLS handshake deadline) */
enum { SK_HTTP_HEADER_TIMEOUT_S = 32 };

typedef struct sk_http sk_http;

typedef struct sk_http_options {
	const char *host; /* listen address, "127.0.0.1" */
	int port;
	const char *cert_pem, *key_pem;
	const char *admin_token;     /* user "admin" */
	const char *node_token;      /* a bootstrap credential (system:bootstrappers) */
	const char *ca_pem;          /* served unauthenticated at GET /cacerts (k3s), or NULL */
	const char *token_auth_file; /* upstream's static token CSV (--token-auth-file), or NULL */
	/* connection caps (0: the defaults: 7/8 of the descriptor limit in
	 * all, half of that per address, 1,024 never authenticated) */
	unsigned max_conns, max_conns_per_addr, max_unauth_conns;
	/* deadlines in seconds (0: the defaults): a request's headers on a
	 * connection not yet authenticated (32, the TLS handshake included;
	 * time the server has not read the client's bytes is not counted:
	 * sk_http_header_expired), an idle kept-alive connection
	 * (90, also a stalled write: libmicrohttpd's inactivity timeout), an
	 * authenticated body (60) */
	unsigned header_timeout_s, idle_timeout_s, body_timeout_s;
} sk_http_options;

sk_http *sk_http_start(sk_api *api, const sk_http_options *opts, sk_error_t *err);
void sk_http_stop(sk_http *h);

/* One pass of the header deadline over connection fd, registered at
 * *since (monotonic s), dt seconds after the previous pass: when fd holds
 * bytes the server has not read, those dt seconds are the server's and
 * *since moves forward by them. 1 when the deadline (timeout s) passed. */
int sk_http_header_expired(int fd, time_t *since, time_t now, time_t dt, unsigned timeout);

#endif
