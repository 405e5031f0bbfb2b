/* The allocation set of the node IPAM controller (see cidrset.h). */
#include <string.h>

#include "ctrl/cidrset.h"
#include "util/util.h"

int sk_cidrset_init(sk_cidrset *s, const sk_kube_cidr *cluster, int mask, sk_error_t *err)
{
	memset(s, 0, sizeof(*s));
	if (mask < cluster->prefix || mask > 32)
		return sk_error_set(err, SK_EINVALID, "node CIDR mask size %d must be between %d and 32", mask,
				    cluster->prefix);
	if (mask - cluster->prefix > SK_CIDRSET_MAX_BITS)
		return sk_error_set(err, SK_EINVALID,
				    "the cluster CIDR /%d with node CIDR mask size %d has more than 2^%d subnets",
				    cluster->prefix, mask, SK_CIDRSET_MAX_BITS);
	s->cluster = *cluster;
	s->mask = mask;
	s->n = 1ull << (mask - cluster->prefix);
	s->bits = xzalloc((size_t)(s->n + 7) / 8);
	return 0;
}

void sk_cidrset_release(sk_cidrset *s)
{
	free(s->bits);
	memset(s, 0, sizeof(*s));
}

bool sk_cidrset_is_used(const sk_cidrset *s, uint64_t i) { return i < s->n && (s->bits[i / 8] >> (i % 8)) & 1; }

static void set_bit(sk_cidrset *s, uint64_t i, bool on)
{
	if (sk_cidrset_is_used(s, i) == on)
		return;
	if (on) {
		s->bits[i / 8] |= (uint8_t)(1u << (i % 8));
		s->used++;
	} else {
		s->bits[i / 8] &= (uint8_t) ~(1u << (i % 8));
		s->used--;
	}
}

int sk_cidrset_allocate(sk_cidrset *s, sk_kube_cidr *out)
{
	for (uint64_t k = 0; k < s->n; k++) {
		uint64_t i = (s->next + k) % s->n;

		if (sk_cidrset_is_used(s, i))
			continue;
		set_bit(s, i, true);
		s->next = (i + 1) % s->n;
		return sk_kube_cidr_subnet(&s->cluster, s->mask, i, out);
	}
	return -1;
}

/* The subnet indexes [*first, *last] that c overlaps; -1 when none. */
static int span(const sk_cidrset *s, const sk_kube_cidr *c, uint64_t *first, uint64_t *last)
{
	uint32_t lo, hi;
	int shift = 32 - s->mask;

	if (!sk_kube_cidr_overlaps(&s->cluster, c))
		return -1;
	lo = c->addr > s->cluster.addr ? c->addr : s->cluster.addr;
	hi = c->addr + (uint32_t)((1ull << (32 - c->prefix)) - 1);
	if (c->prefix < s->cluster.prefix)
		hi = s->cluster.addr + (uint32_t)((1ull << (32 - s->cluster.prefix)) - 1);
	*first = shift == 32 ? 0 : (uint64_t)(lo - s->cluster.addr) >> shift;
	*last = shift == 32 ? 0 : (uint64_t)(hi - s->cluster.addr) >> shift;
	return 0;
}

int sk_cidrset_occupy(sk_cidrset *s, const sk_kube_cidr *c)
{
	uint64_t a, b;

	if (span(s, c, &a, &b) < 0)
		return -1;
	for (uint64_t i = a; i <= b; i++)
		set_bit(s, i, true);
	return 0;
}

int sk_cidrset_release_cidr(sk_cidrset *s, const sk_kube_cidr *c)
{
	uint64_t a, b;

	if (span(s, c, &a, &b) < 0)
		return -1;
	for (uint64_t i = a; i <= b; i++)
		set_bit(s, i, false);
	return 0;
}
