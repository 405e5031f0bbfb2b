/* IPv4 CIDR arithmetic (see cidr.h). */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kube/cidr.h"

static uint32_t mask_of(int prefix) { return prefix <= 0 ? 0 : 0xffffffffu << (32 - prefix); }

int sk_cidr_parse_ip(const char *s, uint32_t *ip)
{
	struct in_addr a;

	if (!s || inet_pton(AF_INET, s, &a) != 1)
		return -1;
	*ip = ntohl(a.s_addr);
	return 0;
}

int sk_cidr_parse(const char *s, sk_cidr *out)
{
	char ip[INET_ADDRSTRLEN];
	const char *slash = s ? strchr(s, '/') : NULL;
	char *end;
	long prefix;
	uint32_t a;

	if (!slash || (size_t)(slash - s) >= sizeof(ip) || !slash[1] || slash[1] == '-' || slash[1] == '+')
		return -1;
	memcpy(ip, s, (size_t)(slash - s));
	ip[slash - s] = '\0';
	prefix = strtol(slash + 1, &end, 10);
	if (*end || prefix < 0 || prefix > 32 || (slash[1] == '0' && slash[2]))
		return -1;
	if (sk_cidr_parse_ip(ip, &a) < 0)
		return -1;
	out->prefix = (int)prefix;
	out->addr = a & mask_of(out->prefix);
	return 0;
}

void sk_cidr_format_ip(uint32_t ip, char *buf, size_t len)
{
	snprintf(buf, len, "%u.%u.%u.%u", ip >> 24, (ip >> 16) & 255, (ip >> 8) & 255, ip & 255);
}

void sk_cidr_format(const sk_cidr *c, char *buf, size_t len)
{
	char ip[16];

	sk_cidr_format_ip(c->addr, ip, sizeof(ip));
	snprintf(buf, len, "%s/%d", ip, c->prefix);
}

bool sk_cidr_contains(const sk_cidr *c, uint32_t ip) { return (ip & mask_of(c->prefix)) == c->addr; }

bool sk_cidr_overlaps(const sk_cidr *a, const sk_cidr *b)
{
	int p = a->prefix < b->prefix ? a->prefix : b->prefix;

	return (a->addr & mask_of(p)) == (b->addr & mask_of(p));
}

int sk_cidr_nth(const sk_cidr *c, uint64_t n, uint32_t *ip)
{
	uint64_t size = 1ull << (32 - c->prefix);

	if (n >= size)
		return -1;
	*ip = c->addr + (uint32_t)n;
	return 0;
}

int sk_cidr_subnet(const sk_cidr *c, int prefix, uint64_t i, sk_cidr *out)
{
	if (prefix < c->prefix || prefix > 32 || i >= (1ull << (prefix - c->prefix)))
		return -1;
	out->prefix = prefix;
	out->addr = c->addr + (uint32_t)(i << (32 - prefix));
	return 0;
}
