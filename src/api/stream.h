/* Upgraded connections of pods/exec, pods/attach and pods/portforward: the
 * API server checks and authorizes the request, opens the node agent's
 * streaming endpoint over TLS (the agent answers the WebSocket or SPDY
 * handshake itself) and then relays bytes both ways unchanged, as
 * kube-apiserver's UpgradeAwareHandler proxies to the kubelet. */
#ifndef SK_API_STREAM_H
#define SK_API_STREAM_H

#include <stddef.h>

struct sk_api_upgrade;

/* The headers of the 101 reply (the agent's Upgrade, Sec-WebSocket-Accept,
 * Sec-WebSocket-Protocol, X-Stream-Protocol-Version); i from 0 until it
 * returns 0. */
int sk_api_upgrade_header(const struct sk_api_upgrade *u, size_t i, const char **name, const char **value);

/* Copies bytes between the client's socket (extra: what the HTTP layer read
 * past the request) and the agent until one side ends or *stop is set
 * (checked at least once a second). At most 64 KiB wait in each direction:
 * a slow reader slows the writer. Blocks the calling thread. */
void sk_api_upgrade_relay(struct sk_api_upgrade *u, int client_fd, int client_raw, const char *extra, size_t nextra,
			  const int *stop);

/* Closes the agent connection and writes the request's audit
 * ResponseComplete when one is due. Accepts NULL. */
void sk_api_upgrade_free(struct sk_api_upgrade *u);

#endif
