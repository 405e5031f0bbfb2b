/* The node-local cluster DNS server (docs/NETWORKING.md, "Cluster DNS").
 *
 * Serves the cluster domain (agent/dns-zone.h) on one address, port 53, UDP
 * and TCP, from informers of Services and EndpointSlices: every change
 * rebuilds the zone off the query path and swaps it in under a write lock,
 * so a query costs one hash lookup under a read lock. UDP is read by several
 * worker threads from one socket (a second server cannot join it, as it
 * could with SO_REUSEPORT); TCP by a few threads, one connection each, with
 * read timeouts and bounds on a connection's queries and life. Names outside
 * the zone are forwarded to the nameservers of a resolv.conf: UDP queries
 * through one table of at most max_forwards in flight (full: SERVFAIL), each
 * tried on every nameserver in turn for forward_timeout_ms, then SERVFAIL;
 * TCP queries over TCP, synchronously, under the same timeouts. The socket
 * binds with IP_FREEBIND, before the address exists (the pod bridge gets it
 * with the first pod). Wire format with libldns. */
#ifndef SK_AGENT_DNS_H
#define SK_AGENT_DNS_H

#include "agent/dns-zone.h"
#include "client/client.h"
#include "util/error.h"

typedef struct sk_dns sk_dns;

typedef struct sk_dns_options {
	const char *listen;      /* IPv4 or IPv6 address; required */
	int port;                /* 0: 53 */
	const char *domain;      /* cluster domain; required */
	const char *dns_ip;      /* clusterDNS, the address of ns.dns.<domain>; may be NULL */
	const char *resolv_conf; /* the forwarders' nameserver lines; NULL: /etc/resolv.conf */
	int workers;             /* UDP threads; 0: 4 */
	int tcp_workers;         /* TCP threads; 0: 2 */
	int max_forwards;        /* forwarded UDP queries in flight; 0: 1024 */
	int forward_timeout_ms;  /* per nameserver; 0: 2000 */
} sk_dns_options;

/* Binds and starts serving. With a client c (borrowed, outliving the
 * server) the zone follows the cluster's Services and EndpointSlices; with
 * NULL it stays empty until sk_dns_set_zone. NULL with err when the address
 * cannot be bound. Stop with sk_dns_stop. */
sk_dns *sk_dns_start(sk_client *c, const sk_dns_options *o, sk_error_t *err);
/* Replaces the zone (taken), for a server without a client (benchmarks). */
void sk_dns_set_zone(sk_dns *d, sk_dns_zone *z);
/* Stops the threads, closes the sockets, frees. NULL is fine. */
void sk_dns_stop(sk_dns *d);

#endif
