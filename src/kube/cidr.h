/* IPv4 addresses and CIDR blocks, as the service, pod and node networks
 * use them (the API server's ClusterIP allocator, node IPAM, the agent's
 * dataplane). Addresses are uint32_t in host byte order. */
#ifndef SK_KUBE_CIDR_H
#define SK_KUBE_CIDR_H

#include <stdbool.h>
#include <stdint.h>

#include "util/error.h"

typedef struct sk_kube_cidr {
	uint32_t addr; /* the network address (host bits cleared) */
	int prefix;    /* 0..32 */
} sk_kube_cidr;

/* The longest texts of the formatters, with their NUL. */
#define SK_KUBE_IP4_LEN 16
#define SK_KUBE_CIDR_LEN 19

/* Parses a dotted-quad IPv4 address. 0, or -1 + err (SK_EINVALID). */
int sk_kube_ip4_parse(const char *s, uint32_t *ip, sk_error_t *err);
/* Writes ip as a dotted quad into buf (SK_KUBE_IP4_LEN bytes); returns buf. */
char *sk_kube_ip4_format(uint32_t ip, char *buf);
/* Parses "A.B.C.D/N"; host bits are cleared as Go's net.ParseCIDR does.
 * 0, or -1 + err (SK_EINVALID). */
int sk_kube_cidr_parse(const char *s, sk_kube_cidr *c, sk_error_t *err);
/* Writes c as "A.B.C.D/N" into buf (SK_KUBE_CIDR_LEN bytes); returns buf. */
char *sk_kube_cidr_format(const sk_kube_cidr *c, char *buf);
/* Addresses in c, network and broadcast included: 2^(32-prefix). */
uint64_t sk_kube_cidr_size(const sk_kube_cidr *c);
/* The n-th address of c (0 is the network address): 0, or -1 when n is
 * past the end. */
int sk_kube_cidr_nth(const sk_kube_cidr *c, uint64_t n, uint32_t *ip);
/* The offset of ip in c (ip - network address), or -1 when c lacks it. */
int64_t sk_kube_cidr_index(const sk_kube_cidr *c, uint32_t ip);
bool sk_kube_cidr_contains(const sk_kube_cidr *c, uint32_t ip);
/* Whether a and b share an address. */
bool sk_kube_cidr_overlaps(const sk_kube_cidr *a, const sk_kube_cidr *b);
/* The n-th subnet of length prefix inside c (n = 0 starts at c's network
 * address): 0, or -1 when prefix is shorter than c's or n past the end. */
int sk_kube_cidr_subnet(const sk_kube_cidr *c, int prefix, uint64_t n, sk_kube_cidr *out);
/* The block of the same length right after c: 0, or -1 past 255.255.255.255. */
int sk_kube_cidr_next(const sk_kube_cidr *c, sk_kube_cidr *out);

#endif
