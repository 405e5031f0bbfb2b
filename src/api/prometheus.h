/* The API server's Prometheus metrics (prometheus.c): request counts and latencies,
 * requests in flight, watches, stored objects, audit events; GET /metrics. */
#ifndef SK_API_PROMETHEUS_H
#define SK_API_PROMETHEUS_H

#include <stdint.h>

#include "api/api.h"

struct sk_api_resource;

/* What a request was about, as the handler found it (res NULL: a
 * non-resource request or a path that named no resource). */
typedef struct sk__req_info {
	const struct sk_api_resource *res;
	char sub[32];
	int named, namespaced, watch;
} sk__req_info;

/* Registers the families in the default registry (once). */
void sk__prom_init(void);
/* Around every request of sk_api_handle. */
void sk__prom_request_begin(const sk_api_request *req);
void sk__prom_request_end(const sk_api_request *req, const sk__req_info *ri, const sk_api_response *resp,
			  int64_t t0_ns);
/* A watch of r opened (+1) or ended (-1). */
void sk__prom_watch(const struct sk_api_resource *r, int namespaced, int delta);
/* One audit event went to the backend. */
void sk__prom_audit_event(void);
/* The collector of api's gauges (stored objects, requests in flight):
 * an id for sk__prom_stop. */
int sk__prom_start(sk_api *api);
void sk__prom_stop(int id);
/* GET /metrics: text 0.0.4, or OpenMetrics when Accept asks for it. */
void sk__handle_metrics(sk_api *api, const sk_api_request *req, sk_api_response *resp);

#endif
