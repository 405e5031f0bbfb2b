/* IPv4 CIDRs as upstream's net.ParseCIDR reads them: the pod network of the
 * cluster (--cluster-cidr), a node's spec.podCIDR and the subnets the node
 * IPAM controller hands out. Addresses are in host byte order. */
#ifndef SK_KUBE_CIDR_H
#define SK_KUBE_CIDR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct sk_cidr {
	uint32_t addr; /* the network address (host bits cleared) */
	int prefix;    /* 0..32 */
} sk_cidr;

/* Parses "a.b.c.d/n" (host bits may be set; they are cleared, as
 * net.ParseCIDR's IPNet). 0, or -1 for anything else. */
int sk_cidr_parse(const char *s, sk_cidr *out);
/* Parses a dotted IPv4 address. 0 or -1. */
int sk_cidr_parse_ip(const char *s, uint32_t *ip);
/* "a.b.c.d/n" into buf (at least 19 bytes). */
void sk_cidr_format(const sk_cidr *c, char *buf, size_t len);
/* "a.b.c.d" into buf (at least 16 bytes). */
void sk_cidr_format_ip(uint32_t ip, char *buf, size_t len);
bool sk_cidr_contains(const sk_cidr *c, uint32_t ip);
/* Whether the two networks share any address. */
bool sk_cidr_overlaps(const sk_cidr *a, const sk_cidr *b);
/* The n-th address of c (0: the network address); -1 beyond its end. */
int sk_cidr_nth(const sk_cidr *c, uint64_t n, uint32_t *ip);
/* The i-th subnet of c with prefix `prefix` (>= c's): 0, or -1 when out of range. */
int sk_cidr_subnet(const sk_cidr *c, int prefix, uint64_t i, sk_cidr *out);

#endif
