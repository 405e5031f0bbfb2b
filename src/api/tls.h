/* A server data directory's credentials (created on first start, reused after). */
#ifndef SK_API_TLS_H
#define SK_API_TLS_H

#include <stdint.h>

#include "util/error.h"

typedef struct sk_tls_files {
	char *ca_pem, *cert_pem, *key_pem;
	char *ca_key_pem; /* the cluster CA's key (the CSR signer's) */
	char *admin_token, *node_token;
} sk_tls_files;

/* Ensures DIR/tls/{ca,server}.{crt,key}, DIR/token, DIR/node-token (the
 * join token, K10 form: client/jointoken.h) and DIR/kubeconfig (0600, CA
 * embedded, server https://HOST:PORT) exist and loads them into t (release
 * with sk_tls_files_release); t->node_token is the bearer secret. The
 * serving certificate names the loopback addresses, host (with 0.0.0.0:
 * every IPv4 address of the machine when it is made) and each of sans
 * (NULL-terminated, may be NULL); one that lacks a name is issued again. */
int sk_tls_setup(sk_tls_files *t, const char *dir, const char *host, int port, const char *const *sans,
		 sk_error_t *err);
void sk_tls_files_release(sk_tls_files *t);

/* Issues a client certificate signed by DIR/tls/ca.{crt,key}: subject CN
 * cn and an O for each of orgs (NULL-terminated, may be NULL), usable for
 * client authentication, valid from an hour ago for secs seconds, with a
 * new ECDSA P-256 key. *cert_pem and *key_pem are malloc'd (caller frees).
 * Fails with err naming the file it could not read. */
int sk_tls_issue_client(const char *dir, const char *cn, const char *const *orgs, int64_t secs, char **cert_pem,
			char **key_pem, sk_error_t *err);
/* The front proxy's credentials (kubeadm's front-proxy-ca and
 * front-proxy-client): DIR/tls/front-proxy-ca.{crt,key}, made once, and a
 * client certificate with CN front-proxy-client issued by it (a new one at
 * every start, valid a year). All three malloc'd. */
int sk_tls_front_proxy(const char *dir, char **ca_pem, char **cert_pem, char **key_pem, sk_error_t *err);
/* A kubeconfig (JSON, which kubectl reads as YAML) for one person: cluster
 * "skiff" at server with the CA, user `user` with the certificate and key,
 * context "USER@skiff" (in namespace ns unless NULL) current. Malloc'd. */
char *sk_tls_user_kubeconfig(const char *server, const char *ca_pem, const char *user, const char *cert_pem,
			     const char *key_pem, const char *ns);

#endif
