/* IPv4 CIDR arithmetic; the text forms go through inet_pton/inet_ntop. */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kube/cidr.h"

static uint32_t mask_of(int prefix) { return prefix ? ~(uint32_t)0 << (32 - prefix) : 0; }

int sk_kube_ip4_parse(const char *s, uint32_t *ip, sk_error_t *err)
{
	struct in_addr a;

	if (!s || inet_pton(AF_INET, s, &a) != 1)
		return sk_error_set(err, SK_EINVALID, "\"%s\" is not a valid IPv4 address", s ? s : "");
	*ip = ntohl(a.s_addr);
	return 0;
}

char *sk_kube_ip4_format(uint32_t ip, char *buf)
{
	struct in_addr a = {.s_addr = htonl(ip)};

	if (!inet_ntop(AF_INET, &a, buf, SK_KUBE_IP4_LEN))
		buf[0] = '\0';
	return buf;
}

int sk_kube_cidr_parse(const char *s, sk_kube_cidr *c, sk_error_t *err)
{
	const char *slash = s ? strchr(s, '/') : NULL;
	char host[SK_KUBE_IP4_LEN], *end;
	size_t n;
	long prefix;
	uint32_t ip = 0;

	if (!slash || (n = (size_t)(slash - s)) >= sizeof(host))
		goto bad;
	memcpy(host, s, n);
	host[n] = '\0';
	if (slash[1] < '0' || slash[1] > '9' || (slash[1] == '0' && slash[2]))
		goto bad;
	prefix = strtol(slash + 1, &end, 10);
	if (*end || prefix > 32 || sk_kube_ip4_parse(host, &ip, NULL) < 0)
		goto bad;
	c->prefix = (int)prefix;
	c->addr = ip & mask_of(c->prefix);
	return 0;
bad:
	return sk_error_set(err, SK_EINVALID, "invalid CIDR address: %s", s ? s : "");
}

char *sk_kube_cidr_format(const sk_kube_cidr *c, char *buf)
{
	char ip[SK_KUBE_IP4_LEN];

	snprintf(buf, SK_KUBE_CIDR_LEN, "%s/%d", sk_kube_ip4_format(c->addr, ip), c->prefix);
	return buf;
}

uint64_t sk_kube_cidr_size(const sk_kube_cidr *c) { return (uint64_t)1 << (32 - c->prefix); }

int sk_kube_cidr_nth(const sk_kube_cidr *c, uint64_t n, uint32_t *ip)
{
	if (n >= sk_kube_cidr_size(c))
		return -1;
	*ip = c->addr + (uint32_t)n;
	return 0;
}

int64_t sk_kube_cidr_index(const sk_kube_cidr *c, uint32_t ip)
{
	return sk_kube_cidr_contains(c, ip) ? (int64_t)(ip - c->addr) : -1;
}

bool sk_kube_cidr_contains(const sk_kube_cidr *c, uint32_t ip) { return (ip & mask_of(c->prefix)) == c->addr; }

bool sk_kube_cidr_overlaps(const sk_kube_cidr *a, const sk_kube_cidr *b)
{
	return sk_kube_cidr_contains(a, b->addr) || sk_kube_cidr_contains(b, a->addr);
}

int sk_kube_cidr_subnet(const sk_kube_cidr *c, int prefix, uint64_t n, sk_kube_cidr *out)
{
	if (prefix < c->prefix || prefix > 32 || n >= ((uint64_t)1 << (prefix - c->prefix)))
		return -1;
	out->prefix = prefix;
	out->addr = c->addr + (uint32_t)(n << (32 - prefix));
	return 0;
}

int sk_kube_cidr_next(const sk_kube_cidr *c, sk_kube_cidr *out)
{
	uint64_t next = (uint64_t)c->addr + sk_kube_cidr_size(c);

	if (next > UINT32_MAX)
		return -1;
	out->prefix = c->prefix;
	out->addr = (uint32_t)next;
	return 0;
}
