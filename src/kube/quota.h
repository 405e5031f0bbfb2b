/* Resource quota accounting, as upstream's quota evaluators
 * (pkg/quota/v1/evaluator/core: pods, services, persistentvolumeclaims, and
 * the generic object count for every other resource) and the helpers of
 * k8s.io/apiserver/pkg/quota/v1. The API server's ResourceQuota admission
 * and the ResourceQuota controller both charge and count with these, so the
 * two always agree on what an object uses.
 *
 * A usage list is a ResourceList with each value in thousandths (a count
 * of 1 is 1000, "250m" cpu is 250, "1Ki" memory is 1024000). */
#ifndef SK_KUBE_QUOTA_H
#define SK_KUBE_QUOTA_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

typedef struct sk_kube_usage_item {
	char *name;
	int64_t milli;
} sk_kube_usage_item;

typedef struct sk_kube_usage {
	size_t n, cap;
	sk_kube_usage_item *v;
} sk_kube_usage;

void sk_kube_usage_release(sk_kube_usage *u);
/* Adds milli to name's value (a new entry when name is absent). */
void sk_kube_usage_add(sk_kube_usage *u, const char *name, int64_t milli);
/* The entry for name, or NULL. */
sk_kube_usage_item *sk_kube_usage_find(const sk_kube_usage *u, const char *name);
/* Parses a ResourceList object into u (added to what it holds). -1 on a
 * value that is no quantity. */
int sk_kube_usage_parse(json_t *list, sk_kube_usage *u);

/* The usage of obj, an object of resource (plural) in group, as upstream's
 * evaluators compute it: a pod its count and, unless it is terminal or past
 * its deletion grace at now (seconds), its compute resources (from
 * sk_kube_pod_requests/limits: cpu, memory, ephemeral-storage with their
 * requests./limits. names, hugepages, requests.<extended>); a Service its
 * count, node ports and load balancer; a PVC its count and requested
 * storage, per storage class too; every object count/<resource>[.<group>]
 * and the legacy names (configmaps, secrets, resourcequotas,
 * replicationcontrollers). Into u (emptied first). -1 on a malformed
 * quantity. */
int sk_kube_quota_usage(const char *group, const char *resource, json_t *obj, int64_t now, sk_kube_usage *u);
/* Whether the evaluator of group/resource computes the quota resource name
 * (its MatchingResources). */
int sk_kube_quota_covers(const char *group, const char *resource, const char *name);
/* The group and resource whose objects a quota resource name counts
 * ("requests.cpu" → pods, "count/deployments.apps" → apps/deployments),
 * into caller buffers; 0 when no evaluator computes name. */
int sk_kube_quota_resource_of(const char *name, char *group, size_t glen, char *resource, size_t rlen);
/* Whether obj matches every scope of quota (spec.scopes and
 * spec.scopeSelector): only pods have scopes (Terminating, NotTerminating,
 * BestEffort, NotBestEffort, PriorityClass with In/NotIn/Exists/
 * DoesNotExist, CrossNamespacePodAffinity); a scoped quota matches no other
 * object. */
int sk_kube_quota_scopes_match(json_t *quota, const char *group, const char *resource, json_t *obj);
/* Upstream's pod Constraints: when hard names cpu or memory requests or
 * limits, every container must specify them. NULL when satisfied, else
 * "must specify limits.cpu for: a,b; requests.memory for: b" (malloc'd). */
char *sk_kube_quota_constraints(json_t *hard, const char *group, const char *resource, json_t *obj);
/* Formats milli as a quantity string into buf: binary suffixes (Ki, Mi …)
 * when like (a quantity string, e.g. the quota's hard value, or NULL) has
 * one, else decimal ones (m, k, M …), canonical as resource.Quantity. */
void sk_kube_quota_format(int64_t milli, const char *like, char *buf, size_t len);

#endif
