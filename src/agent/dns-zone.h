/* The records of the cluster domain, after the Kubernetes DNS specification
 * (kubernetes/dns docs/specification.md, schema 1.1.0), as CoreDNS's
 * kubernetes plugin serves them: an immutable snapshot built from the
 * Services and EndpointSlices, answered with one hash lookup per query.
 *
 * Records (TTL 5 s, CoreDNS's default; dns-version 28800 s as the spec's example):
 * - <svc>.<ns>.svc.<zone> A/AAAA the ClusterIPs; for a headless Service one
 *   per ready endpoint address (all with publishNotReadyAddresses or the
 *   tolerate-unready-endpoints annotation), none: NXDOMAIN;
 * - <hostname>.<svc>.<ns>.svc.<zone> A/AAAA for each headless endpoint, its
 *   hostname or else its address with dashes (10-42-0-5, as CoreDNS);
 * - _<port>._<proto>.<svc>.<ns>.svc.<zone> SRV for each named port (the
 *   Service's ports targeting the Service's name; a headless Service's
 *   EndpointSlice ports, one per endpoint targeting its hostname name), the
 *   targets' addresses in the additional section;
 * - PTR of ClusterIPs and of headless endpoint addresses (in-addr.arpa, ip6.arpa);
 * - ExternalName Services: a CNAME, chased inside the zone, else by the caller;
 * - <a-b-c-d>.<ns>.pod.<zone> A (CoreDNS's "pods insecure");
 * - dns-version.<zone> TXT "1.1.0"; SOA and NS at the apex, ns.dns.<zone> A.
 * Names in the zone that do not exist answer NXDOMAIN, names without the
 * type asked NODATA, both with the SOA in the authority section. Names are
 * compared case-insensitively; the answer's owner names are the question's
 * as it was written. Names outside the zone (and reverse names the zone does
 * not hold) are for the caller to forward. Wire format through libldns. */
#ifndef SK_AGENT_DNS_ZONE_H
#define SK_AGENT_DNS_ZONE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>
#include <ldns/ldns.h>

#define SK_DNS_TTL 5
#define SK_DNS_VERSION_TTL 28800
#define SK_DNS_SCHEMA_VERSION "1.1.0"

typedef struct sk_dns_zone sk_dns_zone;

/* Builds the zone of domain ("cluster.local") from arrays of Service and
 * EndpointSlice objects (borrowed); dns_ip (may be NULL) is ns.dns.<zone>'s
 * address. Objects that make no valid record are skipped. NULL only when
 * domain is no valid name. Free with sk_dns_zone_free. */
sk_dns_zone *sk_dns_zone_build(const char *domain, const char *dns_ip, json_t *services, json_t *slices);
void sk_dns_zone_free(sk_dns_zone *z);
/* Number of names the zone holds (empty non-terminals included). */
size_t sk_dns_zone_names(const sk_dns_zone *z);

enum { SK_DNS_REPLY, SK_DNS_FORWARD, SK_DNS_DROP };

/* What to do with one received message. */
struct sk_dns_reply {
	int action;
	uint8_t *wire; /* SK_DNS_REPLY: the response (free) */
	size_t len;
	ldns_pkt *query;   /* SK_DNS_FORWARD: the parsed query, to forward as it is */
	ldns_pkt *partial; /* SK_DNS_FORWARD of a CNAME's target out of the zone: the answer so far */
	ldns_rdf *chase;   /* ... and the target, to resolve with the query's type */
};

/* Parses the message in[0..len) and answers it from z: SK_DNS_DROP for what
 * cannot be parsed or is no query, FORMERR for more or less than one
 * question, NOTIMP for other opcodes, REFUSED for zone transfers and other
 * classes. tcp: no UDP size limit (a UDP answer over the query's EDNS size,
 * or 512 without EDNS, is truncated with TC). Release with sk_dns_reply_release. */
void sk_dns_zone_serve(const sk_dns_zone *z, const uint8_t *in, size_t len, bool tcp, struct sk_dns_reply *out);
void sk_dns_reply_release(struct sk_dns_reply *r);

/* Response r to query q in wire format (malloc'd into *wire), truncated
 * when over the UDP limit of q. Takes r. 0, or -1 when it cannot be encoded. */
int sk_dns_encode(const ldns_pkt *q, ldns_pkt *r, bool tcp, uint8_t **wire, size_t *len);
/* A response to q with rcode and q's question, nothing else. */
ldns_pkt *sk_dns_response(const ldns_pkt *q, ldns_pkt_rcode rcode);

#endif
