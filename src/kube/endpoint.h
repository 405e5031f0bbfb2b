/* The conditions of an EndpointSlice endpoint (discovery.k8s.io/v1), read
 * as upstream's API documents them and kube-proxy's EndpointSlice cache
 * applies them: an unset ready means ready, an unset serving means what
 * ready says, an unset terminating means not terminating. */
#ifndef SK_KUBE_ENDPOINT_H
#define SK_KUBE_ENDPOINT_H

#include <stdbool.h>

#include <jansson.h>

bool sk_kube_endpoint_ready(json_t *ep);
bool sk_kube_endpoint_serving(json_t *ep);
bool sk_kube_endpoint_terminating(json_t *ep);

#endif
