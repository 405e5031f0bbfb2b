/* Pod networking with CNI plugins, executed directly (no libcni).
 *
 * The node network is a conflist "skiff" of two plugins: loopback, then
 * bridge (bridge <rt->bridge>, isGateway, no masquerade, hairpin mode) with
 * host-local IPAM over rt->pod_cidr, its dataDir <data_dir>/cni/networks.
 * ADD runs the plugins in order passing prevResult; DEL runs them in reverse
 * and succeeds for a missing namespace so it can clean up after a crash. */
#ifndef SK_RUNTIME_CNI_H
#define SK_RUNTIME_CNI_H

#include <jansson.h>

#include "runtime/runtime.h"
#include "util/error.h"

/* The conflist for rt (new reference). */
json_t *sk_cni_conflist(const struct sk_runtime *rt);

/* Attaches the namespace at netns_path as eth0 of container `id`; stores the
 * last plugin's result (new reference, caller decrefs; keep it for CHECK) in
 * *result. The pod IP is sk_cni_result_ip(*result). */
int sk_cni_add(const struct sk_runtime *rt, const char *id, const char *netns_path, json_t **result, sk_error_t *err);
/* Detaches and releases the IP; netns_path may be NULL or gone. */
int sk_cni_del(const struct sk_runtime *rt, const char *id, const char *netns_path, sk_error_t *err);
/* Checks the attachment (CNI CHECK with the ADD result as prevResult). */
int sk_cni_check(const struct sk_runtime *rt, const char *id, const char *netns_path, json_t *add_result,
		 sk_error_t *err);

/* Parses the first IP address of a CNI result ("ips": [{"address": "a/n"}]);
 * malloc'd string or NULL. */
char *sk_cni_result_ip(json_t *result);

#endif
