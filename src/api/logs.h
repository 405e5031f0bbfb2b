/* The API server side of GET pods/NAME/log: the request is proxied to the
 * node agent's log endpoint (node.status.daemonEndpoints.kubeletEndpoint)
 * over HTTPS with the node token. A follow request answers with a stream. */
#ifndef SK_API_LOGS_H
#define SK_API_LOGS_H

#include "api/api.h"

/* The bearer token presented to node agents (the server's node token).
 * Copied; call once at server start. */
void sk_api_set_node_token(const char *token);

/* A raw byte stream (kubectl logs -f): the returned fd is the read end of a
 * socket the proxy thread writes into until the log ends or the reader
 * closes the fd. Consumes s; the caller owns and closes the fd. */
int sk_api_stream_take_fd(struct sk_api_stream *s);
/* Frees a stream that was never taken (closes its fd, the proxy ends). */
void sk_api_stream_free(struct sk_api_stream *s);

#endif
