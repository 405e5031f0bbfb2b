/* Pod quality-of-service class, as upstream's GetPodQOS
 * (pkg/apis/core/v1/helper/qos): cpu and memory only, quantities compared by
 * value, init containers counted with the app containers. */
#ifndef SK_KUBE_QOS_H
#define SK_KUBE_QOS_H

#include <jansson.h>

/* "Guaranteed", "Burstable" or "BestEffort" (static storage): status.qosClass
 * when the pod has one, else sk_kube_pod_qos_compute(pod). */
const char *sk_kube_pod_qos(json_t *pod);
/* The class from the spec alone: BestEffort when no container requests or
 * limits a positive cpu or memory; Guaranteed when every container limits
 * both and the pod's summed requests equal its summed limits; else
 * Burstable. Static storage. */
const char *sk_kube_pod_qos_compute(json_t *pod);

#endif
