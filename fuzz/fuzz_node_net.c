/* The node networking parsers: join tokens (K10 form and plain) and IPv4
 * CIDRs never crash; a parsed token's parts are well formed, a parsed CIDR
 * round-trips and fits the allocation set's arithmetic. The first byte
 * picks the parser. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "client/jointoken.h"
#include "ctrl/cidrset.h"
#include "kube/cidr.h"

static void token(const char *s)
{
	sk_join_token t;

	if (sk_join_token_parse(s, &t, NULL) < 0)
		return;
	if (!t.secret || !*t.secret || (t.ca_hash && strlen(t.ca_hash) != 64))
		abort();
	if (t.ca_hash && sk_join_check_ca(&t, s, strlen(s), NULL) == 0)
		abort(); /* the token's own text never hashes to the hash inside it */
	sk_join_token_release(&t);
}

static void cidr(const char *s)
{
	sk_kube_cidr c, again, sub;
	char buf[32];
	sk_cidrset set;

	if (sk_kube_cidr_parse(s, &c, NULL) < 0)
		return;
	sk_kube_cidr_format(&c, buf);
	if (sk_kube_cidr_parse(buf, &again, NULL) < 0 || again.addr != c.addr || again.prefix != c.prefix)
		abort();
	if (!sk_kube_cidr_contains(&c, c.addr))
		abort();
	if (c.prefix <= 24 && sk_cidrset_init(&set, &c, c.prefix + 8 > 32 ? 32 : c.prefix + 8, NULL) == 0) {
		if (sk_cidrset_allocate(&set, &sub) < 0 || !sk_kube_cidr_overlaps(&c, &sub) ||
		    sk_cidrset_release_cidr(&set, &sub) < 0 || set.used != 0)
			abort();
		sk_cidrset_release(&set);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s;

	if (size < 1)
		return 0;
	s = malloc(size);
	memcpy(s, data + 1, size - 1);
	s[size - 1] = '\0';
	if (data[0] % 2)
		cidr(s);
	else
		token(s);
	free(s);
	return 0;
}
