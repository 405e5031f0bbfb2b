/* The cluster domain's records (dns-zone.h): built once per change into an
 * open-addressing hash table keyed by the lowercased wire name, read by any
 * number of threads without a lock. */
#include <arpa/inet.h>
#include <stdarg.h>
#include <string.h>
#include <time.h>

#include "agent/dns-zone.h"
#include "kube/object.h"
#include "util/util.h"

#define UDP_MAX 1232 /* the EDNS buffer we offer (DNS flag day 2020) */
#define MAX_HOPS 8   /* CNAMEs followed inside the zone */

struct node {
	uint8_t *key; /* lowercased wire name */
	size_t klen;
	ldns_rr_list *rrs; /* empty for an empty non-terminal */
	bool cname;
};

struct sk_dns_zone {
	struct node *tab;
	size_t cap, n;
	uint8_t apex[LDNS_MAX_DOMAINLEN + 1];
	size_t apex_len;
	char *domain;
	ldns_rr *soa;
};

/* ---- the table ---------------------------------------------------------------- */

static uint64_t hash_key(const uint8_t *k, size_t n)
{
	uint64_t h = 1469598103934665603ULL;

	for (size_t i = 0; i < n; i++)
		h = (h ^ k[i]) * 1099511628211ULL;
	return h;
}

/* The lowercased wire form of dname d into buf (LDNS_MAX_DOMAINLEN + 1
 * bytes); length bytes are below 64, so lowering every byte in A-Z only
 * touches letters. 0 when d is no name. */
static size_t name_key(const ldns_rdf *d, uint8_t *buf)
{
	size_t n = d ? ldns_rdf_size(d) : 0;
	const uint8_t *s = d ? ldns_rdf_data(d) : NULL;

	if (!n || n > LDNS_MAX_DOMAINLEN + 1 || ldns_rdf_get_type(d) != LDNS_RDF_TYPE_DNAME)
		return 0;
	for (size_t i = 0; i < n; i++)
		buf[i] = s[i] >= 'A' && s[i] <= 'Z' ? (uint8_t)(s[i] + 32) : s[i];
	return n;
}

static struct node *find(const sk_dns_zone *z, const uint8_t *k, size_t n)
{
	size_t i;

	if (!z->cap)
		return NULL;
	for (i = hash_key(k, n) & (z->cap - 1);; i = (i + 1) & (z->cap - 1)) {
		struct node *e = &z->tab[i];

		if (!e->key)
			return NULL;
		if (e->klen == n && !memcmp(e->key, k, n))
			return e;
	}
}

static void grow(sk_dns_zone *z)
{
	struct node *old = z->tab;
	size_t ocap = z->cap;

	z->cap = ocap ? ocap * 2 : 1024;
	z->tab = xzalloc(z->cap * sizeof(*z->tab));
	for (size_t i = 0; i < ocap; i++) {
		size_t j;

		if (!old[i].key)
			continue;
		for (j = hash_key(old[i].key, old[i].klen) & (z->cap - 1); z->tab[j].key; j = (j + 1) & (z->cap - 1))
			;
		z->tab[j] = old[i];
	}
	free(old);
}

static struct node *get_or_add(sk_dns_zone *z, const uint8_t *k, size_t n)
{
	struct node *e = find(z, k, n);
	size_t i;

	if (e)
		return e;
	if ((z->n + 1) * 10 > z->cap * 7)
		grow(z);
	for (i = hash_key(k, n) & (z->cap - 1); z->tab[i].key; i = (i + 1) & (z->cap - 1))
		;
	e = &z->tab[i];
	e->key = xmalloc(n);
	memcpy(e->key, k, n);
	e->klen = n;
	e->rrs = ldns_rr_list_new();
	z->n++;
	return e;
}

/* 1 when key k (n bytes) is the apex or below it. */
static bool in_zone(const sk_dns_zone *z, const uint8_t *k, size_t n)
{
	for (size_t off = 0; off < n && n - off >= z->apex_len; off += (size_t)k[off] + 1)
		if (n - off == z->apex_len && !memcmp(k + off, z->apex, n - off))
			return true;
	return false;
}

/* Adds rr (taken) under its owner, and the owner's ancestors inside the zone
 * as empty non-terminals. */
static void add_rr(sk_dns_zone *z, ldns_rr *rr)
{
	uint8_t k[LDNS_MAX_DOMAINLEN + 1];
	size_t n = rr ? name_key(ldns_rr_owner(rr), k) : 0;
	struct node *e;

	if (!n) {
		ldns_rr_free(rr);
		return;
	}
	e = get_or_add(z, k, n);
	if (ldns_rr_list_contains_rr(e->rrs, rr)) {
		ldns_rr_free(rr);
		return;
	}
	if (ldns_rr_get_type(rr) == LDNS_RR_TYPE_CNAME)
		e->cname = true;
	ldns_rr_list_push_rr(e->rrs, rr);
	if (!in_zone(z, k, n))
		return;
	for (size_t off = (size_t)k[0] + 1; off < n && n - off >= z->apex_len; off += (size_t)k[off] + 1)
		get_or_add(z, k + off, n - off);
}

/* ---- records ------------------------------------------------------------------ */

static ldns_rdf *dname_fmt(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static ldns_rdf *dname_fmt(const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(buf))
		return NULL;
	return ldns_dname_new_frm_str(buf);
}

/* A new record of type t owned by owner (taken) with the rdata fields
 * (taken, NULL-terminated); NULL when one of them is NULL. */
static ldns_rr *mkrr(ldns_rdf *owner, ldns_rr_type t, uint32_t ttl, ...)
{
	ldns_rr *rr = ldns_rr_new();
	bool ok = owner != NULL;
	ldns_rdf *f;
	va_list ap;
	int nf = 0;

	ldns_rr_set_owner(rr, owner);
	ldns_rr_set_type(rr, t);
	ldns_rr_set_class(rr, LDNS_RR_CLASS_IN);
	ldns_rr_set_ttl(rr, ttl);
	va_start(ap, ttl);
	while ((f = va_arg(ap, ldns_rdf *)) != (ldns_rdf *)-1) {
		if (!f)
			ok = false;
		else
			ldns_rr_push_rdf(rr, f);
		nf++;
	}
	va_end(ap);
	if (!ok || !nf) {
		ldns_rr_free(rr);
		return NULL;
	}
	return rr;
}
#define END ((ldns_rdf *)-1)

static ldns_rdf *i16(uint16_t v) { return ldns_native2rdf_int16(LDNS_RDF_TYPE_INT16, v); }
static ldns_rdf *i32(ldns_rdf_type t, uint32_t v) { return ldns_native2rdf_int32(t, v); }

/* The A or AAAA rdata of ip, or NULL when ip is neither. */
static ldns_rdf *addr_rdf(const char *ip, ldns_rr_type *t)
{
	unsigned char buf[16];

	if (inet_pton(AF_INET, ip, buf) == 1) {
		*t = LDNS_RR_TYPE_A;
		return ldns_rdf_new_frm_data(LDNS_RDF_TYPE_A, 4, buf);
	}
	if (inet_pton(AF_INET6, ip, buf) == 1) {
		*t = LDNS_RR_TYPE_AAAA;
		return ldns_rdf_new_frm_data(LDNS_RDF_TYPE_AAAA, 16, buf);
	}
	return NULL;
}

static void add_addr(sk_dns_zone *z, const char *owner, const char *ip)
{
	ldns_rr_type t;
	ldns_rdf *a = addr_rdf(ip, &t);

	if (a)
		add_rr(z, mkrr(ldns_dname_new_frm_str(owner), t, SK_DNS_TTL, a, END));
}

static void add_ptr(sk_dns_zone *z, const char *ip, const char *target)
{
	ldns_rr_type t;
	ldns_rdf *a = addr_rdf(ip, &t), *rev;

	if (!a)
		return;
	rev = ldns_rdf_address_reverse(a);
	ldns_rdf_deep_free(a);
	add_rr(z, mkrr(rev, LDNS_RR_TYPE_PTR, SK_DNS_TTL, ldns_dname_new_frm_str(target), END));
}

static void add_srv(sk_dns_zone *z, const char *port, const char *proto, const char *svc, int num, const char *target)
{
	cleanup_free char *lproto = xstrdup(proto);

	if (num < 1 || num > 65535)
		return;
	for (char *p = lproto; *p; p++)
		*p = (char)(*p >= 'A' && *p <= 'Z' ? *p + 32 : *p);
	add_rr(z, mkrr(dname_fmt("_%s._%s.%s", port, lproto, svc), LDNS_RR_TYPE_SRV, SK_DNS_TTL, i16(0), i16(100),
		       i16((uint16_t)num), ldns_dname_new_frm_str(target), END));
}

/* A DNS-1123 label as Service names, port names and hostnames are. */
static bool label_ok(const char *s)
{
	size_t n = s ? strlen(s) : 0;

	if (!n || n > 63)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '-' ||
		      (s[i] >= 'A' && s[i] <= 'Z')))
			return false;
	return true;
}

/* A hostname of dot-separated labels (an ExternalName, a domain). */
static bool hostname_ok(const char *s)
{
	size_t n = s ? strlen(s) : 0, lab = 0;

	if (!n || n > 253)
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];

		if (c == '.') {
			if (!lab)
				return false;
			lab = 0;
			continue;
		}
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
		      c == '_') ||
		    ++lab > 63)
			return false;
	}
	return true;
}

/* The endpoint's hostname, or its address with dashes (CoreDNS's
 * endpointHostname); malloc'd. */
static char *endpoint_hostname(json_t *ep, const char *ip)
{
	const char *h = sk_kube_jstr(ep, "hostname");
	char *s;

	if (label_ok(h))
		return xstrdup(h);
	s = xstrdup(ip);
	for (char *p = s; *p; p++)
		if (*p == '.' || *p == ':')
			*p = '-';
	return s;
}

static bool endpoint_ready(json_t *ep, bool all)
{
	json_t *r = sk_kube_jget(ep, "conditions.ready");

	return all || !r || json_is_null(r) || json_is_true(r);
}

static void add_headless(sk_dns_zone *z, json_t *svc, const char *name, json_t *slices)
{
	json_t *ann = sk_kube_jget(svc, "metadata.annotations"), *sl, *ep, *a, *port;
	bool all = json_is_true(sk_kube_jget(svc, "spec.publishNotReadyAddresses")) ||
		   !strcmp(json_string_value(
				   json_object_get(ann, "service.alpha.kubernetes.io/tolerate-unready-endpoints"))
				   ?: "",
			   "true");
	size_t i, j, k, l;

	json_array_foreach(slices, i, sl) {
		const char *at = sk_kube_jstr(sl, "addressType");

		if (!at || (strcmp(at, "IPv4") && strcmp(at, "IPv6")))
			continue;
		json_array_foreach(json_object_get(sl, "endpoints"), j, ep) {
			if (!endpoint_ready(ep, all))
				continue;
			json_array_foreach(json_object_get(ep, "addresses"), k, a) {
				const char *ip = json_string_value(a);
				cleanup_free char *host = NULL, *hname = NULL;

				if (!ip)
					continue;
				host = endpoint_hostname(ep, ip);
				hname = xasprintf("%s.%s", host, name);
				add_addr(z, name, ip);
				add_addr(z, hname, ip);
				add_ptr(z, ip, hname);
				json_array_foreach(json_object_get(sl, "ports"), l, port) {
					const char *pn = sk_kube_jstr(port, "name");

					if (label_ok(pn))
						add_srv(z, pn, sk_kube_jstr(port, "protocol") ?: "TCP", name,
							(int)json_integer_value(json_object_get(port, "port")), hname);
				}
			}
		}
	}
}

static void add_service(sk_dns_zone *z, json_t *svc, json_t *slices)
{
	const char *ns = sk_kube_jstr(svc, "metadata.namespace"), *sname = sk_kube_jstr(svc, "metadata.name");
	const char *type = sk_kube_jstr(svc, "spec.type") ?: "ClusterIP", *cip = sk_kube_jstr(svc, "spec.clusterIP");
	json_t *ips = sk_kube_jget(svc, "spec.clusterIPs"), *ip, *port;
	cleanup_free char *name = NULL;
	size_t i;

	if (!label_ok(ns) || !label_ok(sname))
		return;
	name = xasprintf("%s.%s.svc.%s", sname, ns, z->domain);
	if (!strcmp(type, "ExternalName")) {
		const char *ext = sk_kube_jstr(svc, "spec.externalName");

		if (hostname_ok(ext))
			add_rr(z, mkrr(ldns_dname_new_frm_str(name), LDNS_RR_TYPE_CNAME, SK_DNS_TTL,
				       ldns_dname_new_frm_str(ext), END));
		return;
	}
	if (cip && !strcmp(cip, "None")) {
		add_headless(z, svc, name, slices);
		return;
	}
	if (!json_array_size(ips) && cip && *cip) {
		add_addr(z, name, cip);
		add_ptr(z, cip, name);
	}
	json_array_foreach(ips, i, ip) {
		if (!json_string_value(ip))
			continue;
		add_addr(z, name, json_string_value(ip));
		add_ptr(z, json_string_value(ip), name);
	}
	if (!json_array_size(ips) && !(cip && *cip))
		return; /* no ClusterIP yet: no records */
	json_array_foreach(sk_kube_jget(svc, "spec.ports"), i, port) {
		const char *pn = sk_kube_jstr(port, "name");

		if (label_ok(pn))
			add_srv(z, pn, sk_kube_jstr(port, "protocol") ?: "TCP", name,
				(int)json_integer_value(json_object_get(port, "port")), name);
	}
}

static void add_apex(sk_dns_zone *z, const char *dns_ip)
{
	cleanup_free char *ns = xasprintf("ns.dns.%s", z->domain);

	z->soa = mkrr(ldns_dname_new_frm_str(z->domain), LDNS_RR_TYPE_SOA, SK_DNS_TTL, ldns_dname_new_frm_str(ns),
		      dname_fmt("hostmaster.%s", z->domain), i32(LDNS_RDF_TYPE_INT32, (uint32_t)time(NULL)),
		      i32(LDNS_RDF_TYPE_PERIOD, 7200), i32(LDNS_RDF_TYPE_PERIOD, 1800),
		      i32(LDNS_RDF_TYPE_PERIOD, 86400), i32(LDNS_RDF_TYPE_PERIOD, SK_DNS_TTL), END);
	add_rr(z, ldns_rr_clone(z->soa));
	add_rr(z,
	       mkrr(ldns_dname_new_frm_str(z->domain), LDNS_RR_TYPE_NS, SK_DNS_TTL, ldns_dname_new_frm_str(ns), END));
	if (dns_ip)
		add_addr(z, ns, dns_ip);
	add_rr(z, mkrr(dname_fmt("dns-version.%s", z->domain), LDNS_RR_TYPE_TXT, SK_DNS_VERSION_TTL,
		       ldns_rdf_new_frm_str(LDNS_RDF_TYPE_STR, SK_DNS_SCHEMA_VERSION), END));
	{
		ldns_rdf *pod = dname_fmt("pod.%s", z->domain);
		uint8_t k[LDNS_MAX_DOMAINLEN + 1];
		size_t n = name_key(pod, k);

		if (n)
			get_or_add(z, k, n);
		ldns_rdf_deep_free(pod);
	}
}

/* SRV weights: the records of one name share 100 (CoreDNS's weighting). */
static void weigh_srv(sk_dns_zone *z)
{
	for (size_t i = 0; i < z->cap; i++) {
		ldns_rr_list *l = z->tab[i].rrs;
		size_t cnt = 0;

		for (size_t j = 0; l && j < ldns_rr_list_rr_count(l); j++)
			cnt += ldns_rr_get_type(ldns_rr_list_rr(l, j)) == LDNS_RR_TYPE_SRV;
		if (cnt < 2)
			continue;
		for (size_t j = 0; j < ldns_rr_list_rr_count(l); j++) {
			ldns_rr *rr = ldns_rr_list_rr(l, j);

			if (ldns_rr_get_type(rr) == LDNS_RR_TYPE_SRV)
				ldns_rdf_deep_free(ldns_rr_set_rdf(rr, i16((uint16_t)(100 / cnt ?: 1)), 1));
		}
	}
}

sk_dns_zone *sk_dns_zone_build(const char *domain, const char *dns_ip, json_t *services, json_t *slices)
{
	cleanup_json json_t *by_svc = json_object();
	sk_dns_zone *z;
	ldns_rdf *apex;
	json_t *o;
	size_t i;

	if (!hostname_ok(domain) || !(apex = ldns_dname_new_frm_str(domain)))
		return NULL;
	z = xzalloc(sizeof(*z));
	z->domain = xstrdup(domain);
	if (z->domain[strlen(z->domain) - 1] == '.')
		z->domain[strlen(z->domain) - 1] = '\0';
	z->apex_len = name_key(apex, z->apex);
	ldns_rdf_deep_free(apex);
	grow(z);
	add_apex(z, dns_ip);
	json_array_foreach(slices, i, o) {
		const char *ns = sk_kube_jstr(o, "metadata.namespace");
		const char *svc = json_string_value(
			json_object_get(sk_kube_jget(o, "metadata.labels"), "kubernetes.io/service-name"));
		cleanup_free char *key = NULL;
		json_t *arr;

		if (!ns || !svc)
			continue;
		key = xasprintf("%s/%s", ns, svc);
		if (!(arr = json_object_get(by_svc, key)))
			json_object_set_new(by_svc, key, arr = json_array());
		json_array_append(arr, o);
	}
	json_array_foreach(services, i, o) {
		cleanup_free char *key = xasprintf("%s/%s", sk_kube_jstr(o, "metadata.namespace") ?: "",
						   sk_kube_jstr(o, "metadata.name") ?: "");

		add_service(z, o, json_object_get(by_svc, key));
	}
	weigh_srv(z);
	return z;
}

void sk_dns_zone_free(sk_dns_zone *z)
{
	if (!z)
		return;
	for (size_t i = 0; i < z->cap; i++) {
		free(z->tab[i].key);
		ldns_rr_list_deep_free(z->tab[i].rrs);
	}
	free(z->tab);
	ldns_rr_free(z->soa);
	free(z->domain);
	free(z);
}

size_t sk_dns_zone_names(const sk_dns_zone *z) { return z ? z->n : 0; }

/* ---- answers ------------------------------------------------------------------ */

ldns_pkt *sk_dns_response(const ldns_pkt *q, ldns_pkt_rcode rcode)
{
	ldns_pkt *r = ldns_pkt_new();

	ldns_pkt_set_id(r, ldns_pkt_id(q));
	ldns_pkt_set_qr(r, true);
	ldns_pkt_set_opcode(r, ldns_pkt_get_opcode(q));
	ldns_pkt_set_rd(r, ldns_pkt_rd(q));
	ldns_pkt_set_cd(r, ldns_pkt_cd(q));
	ldns_pkt_set_ra(r, true);
	ldns_pkt_set_rcode(r, (uint8_t)rcode);
	if (ldns_pkt_qdcount(q) == 1 && ldns_pkt_question(q) && ldns_rr_list_rr_count(ldns_pkt_question(q)) == 1)
		ldns_pkt_push_rr(r, LDNS_SECTION_QUESTION, ldns_rr_clone(ldns_rr_list_rr(ldns_pkt_question(q), 0)));
	if (ldns_pkt_edns(q)) {
		ldns_pkt_set_edns_udp_size(r, UDP_MAX);
		ldns_pkt_set_edns_do(r, ldns_pkt_edns_do(q));
	}
	return r;
}

static size_t udp_limit(const ldns_pkt *q)
{
	size_t s = ldns_pkt_edns(q) ? ldns_pkt_edns_udp_size(q) : 512;

	return s < 512 ? 512 : (s > UDP_MAX ? UDP_MAX : s);
}

int sk_dns_encode(const ldns_pkt *q, ldns_pkt *r, bool tcp, uint8_t **wire, size_t *len)
{
	size_t limit = tcp ? 65535 : udp_limit(q);
	ldns_status st = ldns_pkt2wire(wire, r, len);

	if (st == LDNS_STATUS_OK && *len > limit) {
		ldns_pkt *t = sk_dns_response(q, ldns_pkt_get_rcode(r));

		free(*wire);
		*wire = NULL;
		ldns_pkt_set_aa(t, ldns_pkt_aa(r));
		ldns_pkt_set_tc(t, true);
		st = ldns_pkt2wire(wire, t, len);
		ldns_pkt_free(t);
	}
	ldns_pkt_free(r);
	if (st != LDNS_STATUS_OK) {
		free(*wire);
		*wire = NULL;
		return -1;
	}
	return 0;
}

/* Pushes a copy of rr into section sec, owned by owner (NULL: its own). */
static void push_copy(ldns_pkt *r, ldns_pkt_section sec, const ldns_rr *rr, const ldns_rdf *owner)
{
	ldns_rr *c = ldns_rr_clone(rr);

	if (owner) {
		ldns_rdf_deep_free(ldns_rr_owner(c));
		ldns_rr_set_owner(c, ldns_rdf_clone(owner));
	}
	ldns_pkt_push_rr(r, sec, c);
}

static bool type_matches(ldns_rr_type have, ldns_rr_type want) { return want == LDNS_RR_TYPE_ANY || have == want; }

/* The addresses of SRV targets, for the additional section. */
static void add_targets(const sk_dns_zone *z, ldns_pkt *r)
{
	ldns_rr_list *ans = ldns_pkt_answer(r);
	size_t cnt = ldns_rr_list_rr_count(ans);

	for (size_t i = 0; i < cnt; i++) {
		ldns_rr *rr = ldns_rr_list_rr(ans, i);
		uint8_t k[LDNS_MAX_DOMAINLEN + 1];
		const struct node *t;
		size_t n;

		if (ldns_rr_get_type(rr) != LDNS_RR_TYPE_SRV || !(n = name_key(ldns_rr_rdf(rr, 3), k)) ||
		    !(t = find(z, k, n)))
			continue;
		for (size_t j = 0; j < ldns_rr_list_rr_count(t->rrs); j++) {
			ldns_rr *a = ldns_rr_list_rr(t->rrs, j);

			if (ldns_rr_get_type(a) == LDNS_RR_TYPE_A || ldns_rr_get_type(a) == LDNS_RR_TYPE_AAAA)
				push_copy(r, LDNS_SECTION_ADDITIONAL, a, NULL);
		}
	}
}

static void negative(const sk_dns_zone *z, ldns_pkt *r, ldns_pkt_rcode rcode)
{
	ldns_pkt_set_rcode(r, (uint8_t)rcode);
	if (z->soa)
		push_copy(r, LDNS_SECTION_AUTHORITY, z->soa, NULL);
}

/* <a-b-c-d>.<ns>.pod.<zone>: the address in the first label, or NULL. */
static ldns_rdf *pod_addr(const sk_dns_zone *z, const uint8_t *k, size_t n, ldns_rr_type *t)
{
	char ip[64];
	size_t l1 = k[0], off = l1 + 1, dashes = 0;

	if (!l1 || l1 >= sizeof(ip) || off >= n || !k[off])
		return NULL;
	off += (size_t)k[off] + 1;
	if (off + 4 > n || k[off] != 3 || memcmp(k + off + 1, "pod", 3))
		return NULL;
	off += 4;
	if (n - off != z->apex_len || memcmp(k + off, z->apex, z->apex_len))
		return NULL;
	memcpy(ip, k + 1, l1);
	ip[l1] = '\0';
	for (size_t i = 0; i < l1; i++)
		dashes += ip[i] == '-';
	for (size_t i = 0; i < l1; i++)
		if (ip[i] == '-')
			ip[i] = dashes == 3 ? '.' : ':';
	return addr_rdf(ip, t);
}

/* The answer to a question about qname (key k, n bytes) of type qt, from a
 * name in the zone or a reverse name it holds. A CNAME leaving the zone
 * sets *chase. */
static ldns_pkt *answer(const sk_dns_zone *z, const ldns_pkt *q, const ldns_rdf *qname, uint8_t *k, size_t n,
			ldns_rr_type qt, ldns_rdf **chase)
{
	ldns_pkt *r = sk_dns_response(q, LDNS_RCODE_NOERROR);
	const struct node *e = find(z, k, n);
	const ldns_rdf *owner = qname;
	size_t pushed = 0;

	ldns_pkt_set_aa(r, true);
	if (!e) {
		ldns_rr_type t;
		ldns_rdf *a = pod_addr(z, k, n, &t);

		if (!a) {
			negative(z, r, LDNS_RCODE_NXDOMAIN);
		} else if (type_matches(t, qt)) {
			ldns_pkt_push_rr(r, LDNS_SECTION_ANSWER, mkrr(ldns_rdf_clone(qname), t, SK_DNS_TTL, a, END));
		} else {
			ldns_rdf_deep_free(a);
			negative(z, r, LDNS_RCODE_NOERROR);
		}
		return r;
	}
	for (int hops = 0; e->cname && qt != LDNS_RR_TYPE_CNAME && qt != LDNS_RR_TYPE_ANY; hops++) {
		const ldns_rr *cn = ldns_rr_list_rr(e->rrs, 0);
		const ldns_rdf *target = ldns_rr_rdf(cn, 0);

		push_copy(r, LDNS_SECTION_ANSWER, cn, owner);
		n = name_key(target, k);
		if (!n || hops == MAX_HOPS)
			return r;
		if (!in_zone(z, k, n)) {
			*chase = ldns_rdf_clone(target);
			return r;
		}
		owner = target;
		if (!(e = find(z, k, n))) {
			negative(z, r, LDNS_RCODE_NXDOMAIN);
			return r;
		}
	}
	for (size_t i = 0; i < ldns_rr_list_rr_count(e->rrs); i++) {
		const ldns_rr *rr = ldns_rr_list_rr(e->rrs, i);

		if (type_matches(ldns_rr_get_type(rr), qt)) {
			push_copy(r, LDNS_SECTION_ANSWER, rr, owner);
			pushed++;
		}
	}
	if (!pushed)
		negative(z, r, LDNS_RCODE_NOERROR);
	else if (qt == LDNS_RR_TYPE_SRV)
		add_targets(z, r);
	return r;
}

static void reply(struct sk_dns_reply *out, const ldns_pkt *q, ldns_pkt *r, bool tcp)
{
	out->action = sk_dns_encode(q, r, tcp, &out->wire, &out->len) == 0 ? SK_DNS_REPLY : SK_DNS_DROP;
}

void sk_dns_zone_serve(const sk_dns_zone *z, const uint8_t *in, size_t len, bool tcp, struct sk_dns_reply *out)
{
	ldns_pkt *q = NULL;
	const ldns_rr *question;
	const ldns_rdf *qname;
	uint8_t k[LDNS_MAX_DOMAINLEN + 1];
	ldns_rr_type qt;
	ldns_rdf *chase = NULL;
	ldns_pkt *r;
	size_t n;

	memset(out, 0, sizeof(*out));
	out->action = SK_DNS_DROP;
	if (ldns_wire2pkt(&q, in, len) != LDNS_STATUS_OK || !q)
		return;
	if (ldns_pkt_qr(q))
		goto done;
	if (ldns_pkt_get_opcode(q) != LDNS_PACKET_QUERY) {
		reply(out, q, sk_dns_response(q, LDNS_RCODE_NOTIMPL), tcp);
		goto done;
	}
	if (ldns_pkt_qdcount(q) != 1 || ldns_rr_list_rr_count(ldns_pkt_question(q)) != 1) {
		reply(out, q, sk_dns_response(q, LDNS_RCODE_FORMERR), tcp);
		goto done;
	}
	question = ldns_rr_list_rr(ldns_pkt_question(q), 0);
	qname = ldns_rr_owner(question);
	qt = ldns_rr_get_type(question);
	if (!(n = name_key(qname, k))) {
		reply(out, q, sk_dns_response(q, LDNS_RCODE_FORMERR), tcp);
		goto done;
	}
	if (!in_zone(z, k, n)) {
		const struct node *e = find(z, k, n);

		if (!e || !ldns_rr_list_rr_count(e->rrs) || ldns_rr_get_class(question) != LDNS_RR_CLASS_IN) {
			out->action = SK_DNS_FORWARD;
			out->query = steal_ptr(&q);
			return;
		}
	}
	if (ldns_rr_get_class(question) != LDNS_RR_CLASS_IN && ldns_rr_get_class(question) != LDNS_RR_CLASS_ANY) {
		reply(out, q, sk_dns_response(q, LDNS_RCODE_REFUSED), tcp);
		goto done;
	}
	if (qt == LDNS_RR_TYPE_AXFR || qt == LDNS_RR_TYPE_IXFR) {
		reply(out, q, sk_dns_response(q, LDNS_RCODE_REFUSED), tcp);
		goto done;
	}
	r = answer(z, q, qname, k, n, qt, &chase);
	if (chase) {
		out->action = SK_DNS_FORWARD;
		out->query = steal_ptr(&q);
		out->partial = r;
		out->chase = chase;
		return;
	}
	reply(out, q, r, tcp);
done:
	ldns_pkt_free(q);
}

void sk_dns_reply_release(struct sk_dns_reply *r)
{
	free(r->wire);
	ldns_pkt_free(r->query);
	ldns_pkt_free(r->partial);
	ldns_rdf_deep_free(r->chase);
	memset(r, 0, sizeof(*r));
}
