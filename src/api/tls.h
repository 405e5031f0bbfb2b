/* A server data directory's credentials (created on first start, reused after). */
#ifndef SK_API_TLS_H
#define SK_API_TLS_H

#include "util/error.h"

typedef struct sk_tls_files {
	char *ca_pem, *cert_pem, *key_pem;
	char *admin_token, *node_token;
} sk_tls_files;

/* Ensures DIR/tls/{ca,server}.{crt,key}, DIR/token, DIR/node-token and
 * DIR/kubeconfig (0600, CA embedded, server https://HOST:PORT) exist and
 * loads them into t (release with sk_tls_files_release). The serving
 * certificate names the loopback addresses, host and each of sans (NULL-
 * terminated, may be NULL); one that lacks a name is issued again. */
int sk_tls_setup(sk_tls_files *t, const char *dir, const char *host, int port, const char *const *sans,
		 sk_error_t *err);
void sk_tls_files_release(sk_tls_files *t);

#endif
