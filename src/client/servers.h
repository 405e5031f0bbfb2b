/* An HTTPS client that learns its API servers from the kubernetes
 * Endpoints, as k3s's agent load balancer does: it starts with the
 * servers it was given and watches default/kubernetes (a node may read
 * Endpoints: upstream's NodeRules let it get them, skiff's agent also
 * lists and watches them as kube-proxy), so that an agent given one server
 * fails over to every server that joined since (sk_client_set_servers). */
#ifndef SK_CLIENT_SERVERS_H
#define SK_CLIENT_SERVERS_H

#include <jansson.h>

#include "client/client.h"
#include "util/error.h"

typedef struct sk_server_follower sk_server_follower;

/* The servers an Endpoints object lists: a new array of "https://IP:PORT"
 * ("https://[IP]:PORT" for IPv6), each ready address with the port named
 * https (else the subset's first port), in order. */
json_t *sk_endpoints_server_urls(json_t *ep);
/* Starts following default/kubernetes for c (borrowed, must outlive the
 * follower): a reflector on its own thread. Free with
 * sk_server_follower_stop. */
sk_server_follower *sk_server_follower_start(sk_client *c, sk_error_t *err);
/* Stops following (NULL-safe); the client keeps the servers it learned. */
void sk_server_follower_stop(sk_server_follower *f);

#endif
