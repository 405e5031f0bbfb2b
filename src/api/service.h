/* Services beyond generic storage (service.c): allocations of ClusterIPs
 * and NodePorts, their repair, and the cluster's own Services. Private to
 * src/api/. */
#ifndef SK_API_SERVICE_H
#define SK_API_SERVICE_H

#include "api/api-int.h"

typedef struct sk__svc sk__svc;

extern const sk_kind_ops sk__service_ops;

/* Reads api->opts' network settings, repairs the allocations from the
 * stored Services, writes the cluster's own objects and starts their
 * reconcile thread. -1 + err (SK_EINVALID, naming the flag) on bad settings. */
int sk__svc_start(sk_api *api, sk_error_t *err);
/* Stops the reconcile thread and frees api->svc. */
void sk__svc_stop(sk_api *api);
/* One repair pass: takes the reservations stored Services lack (*fixed)
 * and frees those no Service has held for two passes in a row (*freed). */
int sk__svc_repair(sk_api *api, int *fixed, int *freed);

#endif
