/* Internals shared by the Service dataplane's files (src/agent/proxy*.c). */
#ifndef SK_AGENT_PROXY_INT_H
#define SK_AGENT_PROXY_INT_H

#include <jansson.h>

#include "agent/proxy.h"

/* The NetworkPolicy fragment of a model (proxy-policy.c): the chains
 * policy-ingress-<IP> and policy-egress-<IP> of the local pods some policy
 * selects, and the elements of the maps policy-ingress and policy-egress.
 * New reference. */
json_t *sk__proxy_policy_fragment(const sk_proxy_config *cfg, json_t *policies, json_t *pods, json_t *namespaces);

#endif
