/* Node selection of a pod, as component-helpers/scheduling/corev1/nodeaffinity:
 * spec.nodeSelector and required node affinity
 * (requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms, ORed;
 * within a term, matchExpressions over labels and matchFields over
 * metadata.name, ANDed; a term with neither matches nothing). The scheduler
 * filters and scores with it; the node agent admits with it. */
#ifndef SK_KUBE_AFFINITY_H
#define SK_KUBE_AFFINITY_H

#include <jansson.h>
#include <stdbool.h>

/* One NodeSelectorRequirement (In, NotIn, Exists, DoesNotExist, Gt, Lt)
 * against the value v of its key (NULL: the node has no such label). */
bool sk_kube_node_requirement_matches(json_t *req, const char *v);
/* One NodeSelectorTerm against a node's labels (an object) and name. */
bool sk_kube_node_term_matches(json_t *term, json_t *labels, const char *name);
/* Whether the pod (its spec.nodeSelector and required node affinity) may
 * run on the node (a Node object), as nodeaffinity.GetRequiredNodeAffinity(pod).Match(node). */
bool sk_kube_pod_matches_node(json_t *pod, json_t *node);

#endif
