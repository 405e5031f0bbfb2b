/* Fuzzes the IPv4 address and CIDR parsers (src/kube/cidr.c): any text is
 * parsed or refused, and what parses formats back to a text that parses to
 * the same block. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kube/cidr.h"
#include "util/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = xstrndup((const char *)data, size);
	char buf[SK_KUBE_CIDR_LEN];
	sk_kube_cidr c, again, sub;
	uint32_t ip;

	if (sk_kube_cidr_parse(s, &c, NULL) == 0) {
		if (sk_kube_cidr_parse(sk_kube_cidr_format(&c, buf), &again, NULL) < 0 || again.addr != c.addr ||
		    again.prefix != c.prefix)
			abort();
		if (sk_kube_cidr_nth(&c, sk_kube_cidr_size(&c) - 1, &ip) < 0 || !sk_kube_cidr_contains(&c, ip))
			abort();
		if (c.prefix <= 24 && (sk_kube_cidr_subnet(&c, 24, 0, &sub) < 0 || !sk_kube_cidr_overlaps(&c, &sub)))
			abort();
		sk_kube_cidr_next(&c, &sub);
	}
	if (sk_kube_ip4_parse(s, &ip, NULL) == 0)
		sk_kube_ip4_format(ip, buf);
	free(s);
	return 0;
}
