/* A node agent's client certificate (after kubelet's
 * pkg/kubelet/certificate/bootstrap and its certificate manager): with a
 * bootstrap credential the agent makes an ECDSA key, asks for a
 * certificate for "system:node:NAME" in "system:nodes" with a
 * CertificateSigningRequest (signer kubernetes.io/kube-apiserver-client-kubelet),
 * waits until it is issued and keeps certificate and key in one PEM file,
 * DIR/pki/kubelet-client-current.pem (0600). A valid certificate there is
 * used again on restart. At 80 % of its life a thread asks for the next
 * one with the current certificate (the approver approves a node's renewal
 * of its own) and replaces the file, which the HTTPS client reads at each
 * new connection. The serving certificate rotates in the same loop. */
#ifndef SK_CLIENT_NODECERT_H
#define SK_CLIENT_NODECERT_H

#include <stdint.h>

#include "client/client.h"
#include "util/error.h"

typedef struct sk_nodecert sk_nodecert;

typedef struct sk_nodecert_options {
	const char *server;   /* https://HOST:PORT */
	const char *ca_pem;   /* the cluster CA (NULL: the server is not verified) */
	const char *data_dir; /* the agent's data directory */
	const char *node_name;
	sk_client *
		bootstrap; /* a client with the bootstrap credential (borrowed; may be NULL with a valid certificate) */
	int64_t expiration_secs; /* spec.expirationSeconds asked for; 0: the signer's default */
	int wait_secs;           /* how long to wait for the certificate (0: 15 minutes) */
} sk_nodecert_options;

/* Ensures a valid certificate (reused or newly issued) and starts the
 * renewal thread. NULL with err when no certificate could be had. */
sk_nodecert *sk_nodecert_start(const sk_nodecert_options *o, sk_error_t *err);
/* The client that authenticates with the certificate (borrowed; lives as
 * long as n). */
sk_client *sk_nodecert_client(sk_nodecert *n);
/* The PEM file's path (borrowed). */
const char *sk_nodecert_path(sk_nodecert *n);
/* Stops the renewal and frees n and its client. */
void sk_nodecert_stop(sk_nodecert *n);

#define SK_NODECERT_SIGNER_SERVING "kubernetes.io/kubelet-serving"

/* Called with each certificate and key (one PEM string, borrowed). */
typedef void (*sk_nodecert_cb)(void *arg, const char *pem);

/* The agent's serving certificate (kubelet's serving certificate
 * manager): DIR/pki/kubelet-server-current.pem when it is valid for ip and
 * not past 80 % of its life, else a new one for system:node:NAME with ip
 * (and dns when given) as subject alternative names, asked for through c
 * with a CertificateSigningRequest of signer kubernetes.io/kubelet-serving
 * and stored there; on_new gets it before this returns. NULL with err when
 * none could be had. Free with sk_nodecert_stop (c must outlive n). */
sk_nodecert *sk_nodecert_serving(const sk_nodecert_options *o, sk_client *c, const char *ip, const char *dns,
				 sk_nodecert_cb on_new, void *arg, sk_error_t *err);
/* Starts the renewal thread of a serving rotator (the client certificate's
 * loop): at 80 % of a certificate's life it asks for the next one, stores
 * it and calls on_new from that thread. */
void sk_nodecert_rotate(sk_nodecert *n);

/* Whether pem (certificate and key) is a client certificate for
 * system:node:node valid at now, issued by ca_pem when given; *renew_at
 * gets the time at 80 % of its life. */
int sk_nodecert_valid(const char *pem, const char *ca_pem, const char *node, int64_t now, int64_t *renew_at);

#endif
