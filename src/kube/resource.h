/* Resource vectors and a pod's effective requests and limits, as upstream's
 * k8s.io/component-helpers/resource (PodRequests, PodLimits).
 *
 * A vector has one slot per resource name: the four native ones, then
 * extended resources interned on first sight ("nvidia.com/gpu",
 * "hugepages-2Mi" …). cpu is in millicores, the others in whole units. */
#ifndef SK_KUBE_RESOURCE_H
#define SK_KUBE_RESOURCE_H

#include <jansson.h>
#include <stdint.h>

enum { SK_KUBE_RES_CPU, SK_KUBE_RES_MEMORY, SK_KUBE_RES_EPHEMERAL, SK_KUBE_RES_PODS, SK_KUBE_RES_NFIXED };
#define SK_KUBE_RES_MAX 24

typedef struct sk_kube_res {
	int64_t v[SK_KUBE_RES_MAX];
} sk_kube_res;

/* Index of resource name, interning it; -1 when the table is full. Thread-safe. */
int sk_kube_res_index(const char *name);
/* Name of slot i (static storage) or NULL. */
const char *sk_kube_res_name(int i);
/* Number of slots in use (>= SK_KUBE_RES_NFIXED). */
int sk_kube_res_count(void);
/* Parses a ResourceList object ({"cpu":"500m",...}) into r (zeroed first);
 * names past the table's size are skipped. Returns -1 on a malformed quantity. */
int sk_kube_res_parse(json_t *list, sk_kube_res *r);

/* Upstream's default requests for scoring pods that set none
 * (schedutil.DefaultMilliCPURequest / DefaultMemoryRequest). */
#define SK_KUBE_DEFAULT_MILLI_CPU 100
#define SK_KUBE_DEFAULT_MEMORY (200LL * 1024 * 1024)

/* A pod's effective requests (upstream PodRequests): the larger of the app
 * containers plus the restartable init containers (sidecars) summed, and of
 * each init container plus the sidecars started before it; then
 * spec.overhead added. A container's request falls back to its limit, as API
 * defaulting does. Into *req; when nonzero is given, also the same sum with
 * upstream's NonMissingContainerRequests (each container that requests no
 * cpu or no memory counts SK_KUBE_DEFAULT_*), as the scheduler scores and
 * balances. Returns -1 on a malformed quantity. */
int sk_kube_pod_requests(json_t *pod, sk_kube_res *req, sk_kube_res *nonzero);
/* A pod's effective limits (upstream PodLimits): the same aggregation over
 * limits; overhead is added only to resources some container limits. */
int sk_kube_pod_limits(json_t *pod, sk_kube_res *lim);

#endif
