/* The API server side of GET pods/NAME/log: the request is proxied to the
 * node agent's log endpoint (node.status.daemonEndpoints.kubeletEndpoint)
 * over HTTPS with the API server's kubelet client certificate. A follow request answers with a stream. */
#ifndef SK_API_LOGS_H
#define SK_API_LOGS_H

#include "api/api.h"

/* The API server's credentials towards node agents: cert_key_file holds
 * its client certificate and key (kube-apiserver-kubelet-client in
 * system:masters), ca_file the CA that signed the agents' serving
 * certificates (NULL: agents are not verified). Copied; once at start. */
void sk_api_set_kubelet_client(const char *cert_key_file, const char *ca_file);

/* A raw byte stream (kubectl logs -f): the fd (s's own) is the read end of
 * a socket the proxy thread writes into until the log ends or the reader
 * closes the fd. */
int sk_api_stream_fd(const struct sk_api_stream *s);
/* Ends a stream: closes its fd (the proxy ends) and writes the request's
 * audit ResponseComplete when one is due. Accepts NULL. */
void sk_api_stream_free(struct sk_api_stream *s);

#endif
