/* Upgraded connections of pods/exec, pods/attach and pods/portforward: the
 * API server checks and authorizes the request, opens the node agent's
 * streaming endpoint over TLS (the agent answers the WebSocket or SPDY
 * handshake itself) and then relays bytes both ways unchanged, as
 * kube-apiserver's UpgradeAwareHandler proxies to the kubelet. */
#ifndef SK_API_STREAM_H
#define SK_API_STREAM_H

#include <stdbool.h>
#include <stddef.h>

#include "util/error.h"

struct sk_api_upgrade;

/* The headers of the 101 reply (the agent's Upgrade, Sec-WebSocket-Accept,
 * Sec-WebSocket-Protocol, X-Stream-Protocol-Version); i from 0 until it
 * returns 0. */
int sk_api_upgrade_header(const struct sk_api_upgrade *u, size_t i, const char **name, const char **value);

/* The relay of every upgraded connection of a server: one thread moves the
 * bytes of all of them (epoll), so an idle session costs its buffers, not a
 * thread. NULL on failure. */
struct sk_api_relays;
struct sk_api_relays *sk_api_relays_start(sk_error_t *err);

/* Called on the relay thread once a relay ended (one side ended, the client
 * went away, or the relays stop) and what it wrote was taken: it must hand
 * client_fd back (libmicrohttpd's MHD_UPGRADE_ACTION_CLOSE). */
typedef void (*sk_api_relay_done_fn)(void *arg);

/* Takes u and copies bytes between the client's socket (extra: what the
 * HTTP layer read past the request) and the agent. At most 64 KiB wait in
 * each direction: a slow reader slows the writer. client_raw is the
 * client's own socket, watched for its close. -1 (u not taken, done not
 * called) once the relays are stopping. */
int sk_api_relays_add(struct sk_api_relays *rs, struct sk_api_upgrade *u, int client_fd, int client_raw,
		      const char *extra, size_t nextra, sk_api_relay_done_fn done, void *arg);

/* Ends every relay (each flushed for at most 5 s, done called) and the
 * thread, then frees rs. Accepts NULL. */
void sk_api_relays_stop(struct sk_api_relays *rs);

/* An upgrade over curl_handle, a connected CURLOPT_CONNECT_ONLY libcurl
 * handle (taken), whose bytes the relay forwards as they are (paced: as
 * WebSocket frames of the Python client's protocols, one at a time).
 * connect_agent builds its own after the agent's 101; this one is for the
 * relay's tests. Freed by sk_api_upgrade_free or the relay. */
struct sk_api_upgrade *sk_api_upgrade_wrap(void *curl_handle, bool paced);

/* Closes the agent connection and writes the request's audit
 * ResponseComplete when one is due. Accepts NULL. */
void sk_api_upgrade_free(struct sk_api_upgrade *u);

#endif
