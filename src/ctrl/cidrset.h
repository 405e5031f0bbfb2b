/* The node IPAM controller's allocation set, as upstream's
 * pkg/controller/nodeipam/ipam/cidrset: the cluster CIDR cut into subnets
 * of one mask size, a bit per subnet, and the next candidate after the last
 * one handed out (so a freed subnet is not reused at once). Not locked: the
 * controller serialises its calls. */
#ifndef SK_CTRL_CIDRSET_H
#define SK_CTRL_CIDRSET_H

#include <stdbool.h>
#include <stdint.h>

#include "kube/cidr.h"
#include "util/error.h"

typedef struct sk_cidrset {
	sk_kube_cidr cluster;
	int mask; /* the subnets' prefix length */
	uint64_t n, used, next;
	uint8_t *bits;
} sk_cidrset;

/* Upstream allows at most 2^16 subnets (mask - cluster prefix <= 16). */
#define SK_CIDRSET_MAX_BITS 16

/* Fills s for cluster/mask; -1 with err when mask is not within
 * [cluster prefix, cluster prefix + 16] or above 32. Release with
 * sk_cidrset_release. */
int sk_cidrset_init(sk_cidrset *s, const sk_kube_cidr *cluster, int mask, sk_error_t *err);
void sk_cidrset_release(sk_cidrset *s);
/* The next free subnet into out: 0, or -1 when every one is taken. */
int sk_cidrset_allocate(sk_cidrset *s, sk_kube_cidr *out);
/* Marks every subnet that c overlaps as taken (c may be larger or smaller
 * than a subnet); -1 when c does not overlap the cluster CIDR. */
int sk_cidrset_occupy(sk_cidrset *s, const sk_kube_cidr *c);
/* Frees what sk_cidrset_occupy took for c; -1 outside the cluster CIDR. */
int sk_cidrset_release_cidr(sk_cidrset *s, const sk_kube_cidr *c);
bool sk_cidrset_is_used(const sk_cidrset *s, uint64_t i);

#endif
