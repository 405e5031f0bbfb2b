/* The Node authorizer (upstream's plugin/pkg/auth/authorizer/node): a node
 * ("system:node:NAME" in "system:nodes") may read the Secrets, ConfigMaps,
 * PersistentVolumeClaims (and their PersistentVolumes) and ServiceAccounts
 * that the pods bound to it reference, and otherwise what upstream's
 * NodeRules() (bootstrappolicy) grant a kubelet, plus what skiff's agent
 * does beyond a kubelet (docs/ARCHITECTURE.md, "Identity: nodes").
 *
 * The graph of pods bound to each node is kept current from the store's
 * watch of pods and PersistentVolumeClaims. */
#ifndef SK_API_AUTHZ_NODE_H
#define SK_API_AUTHZ_NODE_H

#include <jansson.h>

#include "api/auth.h"
#include "util/error.h"

#define SK_NODE_USER_PREFIX "system:node:"
#define SK_GROUP_NODES "system:nodes"
#define SK_GROUP_BOOTSTRAPPERS "system:bootstrappers"

typedef struct sk_node_graph sk_node_graph;

sk_node_graph *sk__node_graph_new(void);
void sk__node_graph_free(sk_node_graph *g);
/* The pod stored under key is now pod (NULL: deleted). */
void sk__node_graph_set_pod(sk_node_graph *g, const char *key, json_t *pod);
/* The claim "ns/name" is now pvc (NULL: deleted). */
void sk__node_graph_set_pvc(sk_node_graph *g, const char *ns_name, json_t *pvc);
/* Whether a pod bound to node references the object: resource is
 * "secrets", "configmaps", "persistentvolumeclaims", "serviceaccounts"
 * (ns and name) or "persistentvolumes" (name, through a claim). */
int sk__node_graph_has(sk_node_graph *g, const char *node, const char *resource, const char *ns, const char *name);

/* Whether a pod bound to node references any object of resource. */
int sk__node_graph_refs_any(sk_node_graph *g, const char *node, const char *resource);

/* The node's name when u is a node identity (borrowed from u), else NULL;
 * "" for a member of system:nodes whose name is not system:node:NAME. */
const char *sk__node_identity(const sk_user *u);

/* The decision for a over graph g (the authorizer without the API server). */
sk_authz_decision sk__authz_node_decide(sk_node_graph *g, const sk_authz_attrs *a, char **reason);

/* Starts the graph of api over its store (list, then watch); stops it. */
int sk__node_graph_start(sk_api *api, sk_error_t *err);
void sk__node_graph_stop(sk_api *api);

/* The chain's entries (auth.c). */
sk_authz_decision sk__authz_node(sk_api *api, const sk_authz_attrs *a, char **reason);

#endif
