/* Services beyond generic storage: allocations of ClusterIPs and NodePorts
 * and their repair (service.c), the cluster's own objects
 * (cluster-objects.c). Private to src/api/. */
#ifndef SK_API_SERVICE_H
#define SK_API_SERVICE_H

#include <pthread.h>
#include <stdint.h>

#include "api/api-int.h"
#include "kube/cidr.h"

/* One range of values given out (ClusterIPs, NodePorts). */
typedef struct sk__svc_range {
	const char *prefix; /* its keys: prefix + value */
	int is_ip;
	uint32_t first; /* the first value given out */
	uint32_t n;     /* how many */
	uint32_t lower; /* the lower band [first, first+lower) is taken dynamically last */
	char text[SK_KUBE_CIDR_LEN];
	pthread_mutex_t mu;
	uint8_t *used; /* hint: bit i set when first+i is taken */
	unsigned seed;
} sk__svc_range;

typedef struct sk__svc sk__svc;

/* api->svc: the cluster's network and its allocations. */
struct sk__svc {
	sk_kube_cidr cidr;
	uint32_t kubernetes_ip, dns_ip;
	char cluster_cidr[SK_KUBE_CIDR_LEN], domain[254];
	char advertise[64];
	int advertise_port;
	/* this server's identity Lease in kube-system (apiserver-HASH) and its
	 * holder (apiserver-HASH_UUID), made at the first reconcile */
	char identity[64], identity_holder[112];
	int64_t identity_gc_ns; /* the last collection of expired identity Leases (mono) */
	sk__svc_range ips, ports;
	json_t *leaks; /* reservation key → repair passes that found it leaked */
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int stop;
	int running;
	pthread_t thread;
};

extern const sk_kind_ops sk__service_ops;

/* cluster-objects.c: stops this server's lease and takes its address out
 * of default/kubernetes (when the server stops). */
void sk__svc_drop_lease(sk_api *api);

/* Reads api->opts' network settings, repairs the allocations from the
 * stored Services, writes the cluster's own objects and starts their
 * reconcile thread. -1 + err (SK_EINVALID, naming the flag) on bad settings. */
int sk__svc_start(sk_api *api, sk_error_t *err);
/* Stops the reconcile thread and frees api->svc. */
void sk__svc_stop(sk_api *api);
/* One repair pass: takes the reservations stored Services lack (*fixed)
 * and frees those no Service has held for two passes in a row (*freed). */
int sk__svc_repair(sk_api *api, int *fixed, int *freed);
/* Writes the cluster's own Services and ConfigMap where they are missing or
 * out of date, renews this server's lease and writes default/kubernetes's
 * Endpoints and EndpointSlice from the live leases (at start and every 10 s
 * on the reconcile thread). */
void sk__svc_reconcile(sk_api *api);

#endif
