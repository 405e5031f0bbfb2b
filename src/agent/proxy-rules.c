/* The rules of the Service dataplane, as kube-proxy's nftables mode
 * (pkg/proxy/nftables/proxier.go) writes them: a map of ClusterIP . protocol
 * . port to a chain per service port, one chain per endpoint, numgen for
 * equal-probability balancing, "no endpoints" maps checked by filter chains
 * before DNAT, and a mark for what postrouting masquerades. Pure: JSON in,
 * nft script text out. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/proxy-int.h"
#include "kube/cidr.h"
#include "kube/endpoint.h"
#include "kube/object.h"
#include "util/util.h"

#define MASQ_MARK "0x4000"
#define AFFINITY_DEFAULT_S 10800
#define ELEMENTS_PER_STATEMENT 512

/* Base chains: name, hook declaration. */
static const struct {
	const char *name, *decl;
} base_chains[] = {
	{"nat-prerouting", "type nat hook prerouting priority dstnat; policy accept;"},
	{"nat-output", "type nat hook output priority -100; policy accept;"},
	{"nat-postrouting", "type nat hook postrouting priority srcnat; policy accept;"},
	{"filter-forward", "type filter hook forward priority -110; policy accept;"},
	{"filter-output", "type filter hook output priority -110; policy accept;"},
	{"filter-input", "type filter hook input priority -110; policy accept;"},
	{"filter-output-post-dnat", "type filter hook output priority -90; policy accept;"},
};

static const struct {
	const char *name, *decl;
} maps[] = {
	{"service-ips", "type ipv4_addr . inet_proto . inet_service : verdict;"},
	{"service-nodeports", "type inet_proto . inet_service : verdict;"},
	{"no-endpoint-services", "type ipv4_addr . inet_proto . inet_service : verdict;"},
	{"no-endpoint-nodeports", "type inet_proto . inet_service : verdict;"},
	{"policy-ingress", "type ipv4_addr : verdict;"},
	{"policy-egress", "type ipv4_addr : verdict;"},
	{"cluster-ips", "type ipv4_addr : verdict;"},
};

#define CIDR_SET "pod-cidrs"

/* ---- helpers ------------------------------------------------------------------- */

static bool is_ipv4(const char *s)
{
	sk_error_t err = {0};
	uint32_t ip;

	return s && sk_kube_ip4_parse(s, &ip, &err) == 0;
}

/* Names go into chain names and the nft script as they are: only what the
 * API server lets through (DNS labels and IANA service names). */
static bool name_ok(const char *s, size_t max)
{
	size_t n = s ? strlen(s) : 0;

	if (!s || n > max)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '-' || s[i] == '.'))
			return false;
	return true;
}

/* kube-proxy's hashAndTruncate: 8 characters of base32 of a hash, so chain
 * names stay unique and short whatever the service is called. */
static void name_hash(const char *s, char out[9])
{
	static const char b32[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
	uint64_t h = 14695981039346656037ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	for (int i = 0; i < 8; i++)
		out[i] = b32[(h >> (5 * i)) & 31];
	out[8] = '\0';
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

/* The keys of obj, sorted (the strings are obj's). Free the array. */
static const char **sorted_keys(json_t *obj, size_t *n)
{
	const char **keys = xmalloc((json_object_size(obj) + 1) * sizeof(*keys));
	const char *k;
	json_t *v;

	*n = 0;
	json_object_foreach(obj, k, v)
		keys[(*n)++] = k;
	qsort(keys, *n, sizeof(*keys), cmp_str);
	return keys;
}

/* ---- the model ------------------------------------------------------------------- */

struct gen {
	const sk_proxy_config *cfg;
	json_t *chains, *maps, *affinity;
};

struct ep {
	const char *ip;
	uint32_t addr;
	int port;
	bool ready, serving, terminating, local;
	char chain[300], affinity[300];
};

/* One port of one Service, with what kube-proxy's ServicePort holds. */
struct svcport {
	const char *ns, *name, *port_name, *cluster_ip;
	char proto[8];
	int port, node_port;
	json_t *external_ips;
	int affinity_s; /* 0: no ClientIP affinity */
	bool itp_local, etp_local;
	char spn[200], hash[9];
};

static void chain_set(struct gen *g, const char *name, FILE *f, char **buf)
{
	fclose(f);
	json_object_set_new(g->chains, name, json_string(*buf));
	free(*buf);
	*buf = NULL;
}

static void map_put(struct gen *g, const char *map, const char *key, const char *value)
{
	json_t *m = json_object_get(g->maps, map);

	if (!m)
		json_object_set_new(g->maps, map, m = json_object());
	json_object_set_new(m, key, json_string(value));
}

static void base_rules(struct gen *g)
{
	const sk_proxy_config *c = g->cfg;
	char *buf = NULL;
	size_t len;
	FILE *f;

	f = open_memstream(&buf, &len);
	if (c->cluster_dns && *c->cluster_dns && c->gateway)
		for (int i = 0; i < 2; i++)
			fprintf(f, "iifname \"%s\" ip daddr %s %s dport 53 dnat to %s:53\n", c->bridge, c->cluster_dns,
				i ? "tcp" : "udp", c->gateway);
	fprintf(f, "jump services\n");
	chain_set(g, "nat-prerouting", f, &buf);
	/* the node's own processes (hostNetwork pods with ClusterFirstWithHostNet)
	 * ask the cluster DNS address too: to this node's server */
	f = open_memstream(&buf, &len);
	if (c->cluster_dns && *c->cluster_dns && c->gateway)
		for (int i = 0; i < 2; i++)
			fprintf(f, "ip daddr %s %s dport 53 dnat to %s:53\n", c->cluster_dns, i ? "tcp" : "udp",
				c->gateway);
	fprintf(f, "jump services\n");
	chain_set(g, "nat-output", f, &buf);

	f = open_memstream(&buf, &len);
	fprintf(f, "jump masquerading\n");
	if (c->pod_cidr) {
		/* pod -> Service -> pod on this bridge (itself, too): without
		 * br_netfilter the reply would be bridged straight back, past
		 * the conntrack entry that undoes the DNAT */
		fprintf(f, "ip saddr %s oifname \"%s\" ct status dnat masquerade\n", c->pod_cidr, c->bridge);
		fprintf(f, "ip saddr %s ip daddr != @" CIDR_SET, c->pod_cidr);
		if (c->service_cidr && *c->service_cidr)
			fprintf(f, " ip daddr != %s", c->service_cidr);
		fprintf(f, " masquerade\n");
	}
	chain_set(g, "nat-postrouting", f, &buf);

	json_object_set_new(g->chains, "filter-forward",
			    json_string("ct state new jump service-endpoints-check\n"
					"ct state new jump cluster-ips-check\n"
					"ct state new jump network-policy\n"));
	/* after DNAT: what still goes to a ClusterIP is a port the Service
	 * does not have (kube-proxy's cluster-ips-check) */
	json_object_set_new(g->chains, "filter-output-post-dnat", json_string("ct state new jump cluster-ips-check\n"));
	json_object_set_new(g->chains, "cluster-ips-check", json_string("ip daddr vmap @cluster-ips\n"));
	/* NetworkPolicy (proxy-policy.c): the source pod's egress, then the
	 * destination pod's ingress */
	json_object_set_new(g->chains, "network-policy",
			    json_string("ip saddr vmap @policy-egress\n"
					"ip daddr vmap @policy-ingress\n"));
	/* before DNAT: the cluster DNS address (kube-dns has no endpoints) is
	 * the node's own server, DNATed in nat-output, not a Service to refuse */
	f = open_memstream(&buf, &len);
	if (c->cluster_dns && *c->cluster_dns && c->gateway)
		fprintf(f, "ip daddr %s meta l4proto { tcp, udp } th dport 53 return\n", c->cluster_dns);
	fprintf(f, "ct state new jump service-endpoints-check\n");
	chain_set(g, "filter-output", f, &buf);
	json_object_set_new(g->chains, "filter-input", json_string("ct state new jump nodeport-endpoints-check\n"));
	json_object_set_new(g->chains, "services",
			    json_string("ip daddr . meta l4proto . th dport vmap @service-ips\n"
					"fib daddr type local ip daddr != 127.0.0.0/8 meta l4proto . th dport vmap "
					"@service-nodeports\n"));
	json_object_set_new(g->chains, "masquerading",
			    json_string("meta mark & " MASQ_MARK " == 0 return\n"
					"meta mark set meta mark ^ " MASQ_MARK "\n"
					"masquerade fully-random\n"));
	json_object_set_new(g->chains, "mark-for-masquerade", json_string("meta mark set meta mark | " MASQ_MARK "\n"));
	json_object_set_new(g->chains, "service-endpoints-check",
			    json_string("ip daddr . meta l4proto . th dport vmap @no-endpoint-services\n"));
	json_object_set_new(g->chains, "nodeport-endpoints-check",
			    json_string("fib daddr type local ip daddr != 127.0.0.0/8 meta l4proto . th dport vmap "
					"@no-endpoint-nodeports\n"));
	json_object_set_new(g->chains, "reject-chain", json_string("reject\n"));
}

static int cmp_ep(const void *a, const void *b)
{
	const struct ep *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->port - y->port;
}

/* The slice's port for sp (same name and protocol), or 0. */
static int slice_port(json_t *slice, const struct svcport *sp)
{
	json_t *p;
	size_t i;

	json_array_foreach(json_object_get(slice, "ports"), i, p) {
		const char *name = sk_kube_jstr(p, "name") ? sk_kube_jstr(p, "name") : "";
		const char *proto = sk_kube_jstr(p, "protocol") ? sk_kube_jstr(p, "protocol") : "TCP";
		json_int_t port = json_integer_value(json_object_get(p, "port"));

		if (!strcmp(name, sp->port_name) && !strcasecmp(proto, sp->proto) && port > 0 && port < 65536)
			return (int)port;
	}
	return 0;
}

/* The endpoints of sp from its slices, one per address, sorted. */
static struct ep *gather_endpoints(const struct gen *g, const struct svcport *sp, json_t *slices, size_t *n)
{
	struct ep *eps = NULL;
	json_t *slice, *e;
	size_t i, j, cap = 0;

	*n = 0;
	json_array_foreach(slices, i, slice) {
		int port = slice_port(slice, sp);

		if (!port)
			continue;
		json_array_foreach(json_object_get(slice, "endpoints"), j, e) {
			const char *ip = json_string_value(json_array_get(json_object_get(e, "addresses"), 0));
			const char *node = sk_kube_jstr(e, "nodeName");
			sk_error_t err = {0};
			bool dup = false;
			uint32_t addr;

			if (!ip || sk_kube_ip4_parse(ip, &addr, &err) < 0)
				continue;
			for (size_t k = 0; k < *n && !dup; k++)
				dup = !strcmp(eps[k].ip, ip);
			if (dup)
				continue;
			if (*n == cap) {
				cap = cap ? cap * 2 : 8;
				eps = xrealloc(eps, cap * sizeof(*eps));
			}
			eps[*n] = (struct ep){.ip = ip, .addr = addr, .port = port};
			eps[*n].ready = sk_kube_endpoint_ready(e);
			eps[*n].serving = sk_kube_endpoint_serving(e);
			eps[*n].terminating = sk_kube_endpoint_terminating(e);
			eps[*n].local = node && g->cfg->node_name && !strcmp(node, g->cfg->node_name);
			(*n)++;
		}
	}
	if (*n)
		qsort(eps, *n, sizeof(*eps), cmp_ep);
	return eps;
}

/* Endpoints of eps[0..n) that pass: ready ones (local only if local_only),
 * else the serving terminating ones, as upstream's CategorizeEndpoints.
 * Returns indexes into eps (malloc'ed), *m of them. */
static size_t *pick(const struct ep *eps, size_t n, bool local_only, size_t *m)
{
	size_t *idx = xmalloc((n + 1) * sizeof(*idx));

	*m = 0;
	for (size_t i = 0; i < n; i++)
		if (eps[i].ready && (!local_only || eps[i].local))
			idx[(*m)++] = i;
	if (*m)
		return idx;
	for (size_t i = 0; i < n; i++)
		if (eps[i].serving && eps[i].terminating && (!local_only || eps[i].local))
			idx[(*m)++] = i;
	return idx;
}

static void endpoint_chain(struct gen *g, const struct svcport *sp, struct ep *e)
{
	char ek[320], h[9];
	char *buf = NULL;
	size_t len;
	FILE *f;

	snprintf(ek, sizeof(ek), "%s__%s/%d", sp->spn, e->ip, e->port);
	name_hash(ek, h);
	snprintf(e->chain, sizeof(e->chain), "endpoint-%s-%s", h, ek);
	if (json_object_get(g->chains, e->chain))
		return;
	/* no hairpin rule here (kube-proxy's "ip saddr <endpoint> jump
	 * mark-for-masquerade"): a pod reaching itself is pod -> Service -> pod
	 * on this bridge, which postrouting masquerades anyway */
	f = open_memstream(&buf, &len);
	if (sp->affinity_s) {
		char ak[340];

		/* the timeout is part of the name: a new timeout is a new set */
		snprintf(ak, sizeof(ak), "%s/%d", ek, sp->affinity_s);
		name_hash(ak, h);
		snprintf(e->affinity, sizeof(e->affinity), "affinity-%s-%s", h, ek);
		json_object_set_new(g->affinity, e->affinity, json_integer(sp->affinity_s));
		fprintf(f, "update @%s { ip saddr }\n", e->affinity);
	}
	fprintf(f, "meta l4proto %s dnat to %s:%d\n", sp->proto, e->ip, e->port);
	chain_set(g, e->chain, f, &buf);
}

/* A chain balancing over eps[idx[0..m)]; masq adds the ClusterIP rule that
 * marks traffic from outside the pod network. */
static void balance_chain(struct gen *g, const struct svcport *sp, const char *name, struct ep *eps, const size_t *idx,
			  size_t m, bool masq)
{
	char *buf = NULL;
	size_t len;
	FILE *f = open_memstream(&buf, &len);

	if (masq)
		fprintf(f, "ip daddr %s %s dport %d ip saddr != @" CIDR_SET " jump mark-for-masquerade\n",
			sp->cluster_ip, sp->proto, sp->port);
	if (sp->affinity_s)
		for (size_t i = 0; i < m; i++)
			fprintf(f, "ip saddr @%s goto %s\n", eps[idx[i]].affinity, eps[idx[i]].chain);
	fprintf(f, "numgen random mod %zu vmap { ", m);
	for (size_t i = 0; i < m; i++)
		fprintf(f, "%s%zu : goto %s", i ? ", " : "", i, eps[idx[i]].chain);
	fprintf(f, " }\n");
	chain_set(g, name, f, &buf);
}

static void external_chain(struct gen *g, const struct svcport *sp, const char *name, const char *cluster,
			   const char *local)
{
	char *buf = NULL;
	size_t len;
	FILE *f = open_memstream(&buf, &len);

	if (sp->etp_local) {
		/* pods and the node itself may use any endpoint; others keep
		 * their source address and reach local endpoints only */
		if (cluster) {
			fprintf(f, "ip saddr @" CIDR_SET " goto %s\n", cluster);
			fprintf(f, "fib saddr type local jump mark-for-masquerade\n");
			fprintf(f, "fib saddr type local goto %s\n", cluster);
		}
		if (local)
			fprintf(f, "goto %s\n", local);
	} else {
		fprintf(f, "jump mark-for-masquerade\n");
		if (cluster)
			fprintf(f, "goto %s\n", cluster);
	}
	chain_set(g, name, f, &buf);
}

static void port_no_endpoints(struct gen *g, const struct svcport *sp, const char *verdict, bool internal,
			      bool external)
{
	char key[128];
	json_t *ip;
	size_t i;

	if (internal) {
		snprintf(key, sizeof(key), "%s . %s . %d", sp->cluster_ip, sp->proto, sp->port);
		map_put(g, "no-endpoint-services", key, verdict);
	}
	if (!external)
		return;
	json_array_foreach(sp->external_ips, i, ip) {
		if (!is_ipv4(json_string_value(ip)))
			continue;
		snprintf(key, sizeof(key), "%s . %s . %d", json_string_value(ip), sp->proto, sp->port);
		map_put(g, "no-endpoint-services", key, verdict);
	}
	if (sp->node_port) {
		snprintf(key, sizeof(key), "%s . %d", sp->proto, sp->node_port);
		map_put(g, "no-endpoint-nodeports", key, verdict);
	}
}

static void port_rules(struct gen *g, struct svcport *sp, json_t *slices)
{
	bool external = sp->node_port || json_array_size(sp->external_ips);
	bool uses_cluster = !sp->itp_local || (external && !sp->etp_local);
	bool uses_local = sp->itp_local || (external && sp->etp_local);
	char cluster[300], local[300], ext[300], key[128], verdict[320];
	size_t n, nc = 0, nl = 0;
	struct ep *eps = gather_endpoints(g, sp, slices, &n);
	size_t *ci = uses_cluster ? pick(eps, n, false, &nc) : NULL;
	size_t *li = uses_local ? pick(eps, n, true, &nl) : NULL;
	bool any = nc > 0;
	bool has_internal, has_external;

	for (size_t i = 0; i < n && uses_local && !any; i++)
		any = eps[i].ready || (eps[i].serving && eps[i].terminating);
	if (!any) {
		port_no_endpoints(g, sp, "goto reject-chain", true, true);
		goto out;
	}
	for (size_t i = 0; i < nc; i++)
		endpoint_chain(g, sp, &eps[ci[i]]);
	for (size_t i = 0; i < nl; i++)
		endpoint_chain(g, sp, &eps[li[i]]);
	snprintf(cluster, sizeof(cluster), "service-%s-%s", sp->hash, sp->spn);
	snprintf(local, sizeof(local), "local-%s-%s", sp->hash, sp->spn);
	snprintf(ext, sizeof(ext), "external-%s-%s", sp->hash, sp->spn);
	if (nc)
		balance_chain(g, sp, cluster, eps, ci, nc, true);
	if (nl)
		balance_chain(g, sp, local, eps, li, nl, false);
	has_internal = sp->itp_local ? nl > 0 : nc > 0;
	has_external = sp->etp_local ? nl > 0 : nc > 0;
	if (has_internal) {
		snprintf(key, sizeof(key), "%s . %s . %d", sp->cluster_ip, sp->proto, sp->port);
		snprintf(verdict, sizeof(verdict), "goto %s", sp->itp_local ? local : cluster);
		map_put(g, "service-ips", key, verdict);
	} else {
		port_no_endpoints(g, sp, "drop", true, false);
	}
	if (external) {
		json_t *ip;
		size_t i;

		external_chain(g, sp, ext, nc ? cluster : NULL, nl ? local : NULL);
		snprintf(verdict, sizeof(verdict), "goto %s", ext);
		json_array_foreach(sp->external_ips, i, ip) {
			if (!is_ipv4(json_string_value(ip)))
				continue;
			snprintf(key, sizeof(key), "%s . %s . %d", json_string_value(ip), sp->proto, sp->port);
			map_put(g, "service-ips", key, verdict);
		}
		if (sp->node_port) {
			snprintf(key, sizeof(key), "%s . %d", sp->proto, sp->node_port);
			map_put(g, "service-nodeports", key, verdict);
		}
		if (!has_external)
			port_no_endpoints(g, sp, "drop", false, true);
	}
out:
	free(ci);
	free(li);
	free(eps);
}

static void service_rules(struct gen *g, json_t *svc, json_t *slices)
{
	const char *type = sk_kube_jstr(svc, "spec.type") ? sk_kube_jstr(svc, "spec.type") : "ClusterIP";
	const char *cip = sk_kube_jstr(svc, "spec.clusterIP");
	bool with_node_ports = !strcmp(type, "NodePort") || !strcmp(type, "LoadBalancer");
	json_t *timeout = sk_kube_jget(svc, "spec.sessionAffinityConfig.clientIP.timeoutSeconds");
	struct svcport sp = {0};
	cleanup_json json_t *ext = NULL;
	json_t *p;
	size_t i;

	if (!strcmp(type, "ExternalName") || !is_ipv4(cip) ||
	    !name_ok(sk_kube_jstr(svc, "metadata.namespace") ?: "default", 63) ||
	    !name_ok(sk_kube_jstr(svc, "metadata.name"), 63))
		return;
	map_put(g, "cluster-ips", cip, "goto reject-chain");
	sp.ns = sk_kube_jstr(svc, "metadata.namespace") ? sk_kube_jstr(svc, "metadata.namespace") : "default";
	sp.name = sk_kube_jstr(svc, "metadata.name") ? sk_kube_jstr(svc, "metadata.name") : "";
	sp.cluster_ip = cip;
	/* external IPs and a LoadBalancer's ingress IPs take the external path */
	ext = json_array();
	json_array_foreach(sk_kube_jget(svc, "spec.externalIPs"), i, p)
		json_array_append(ext, p);
	if (!strcmp(type, "LoadBalancer"))
		json_array_foreach(sk_kube_jget(svc, "status.loadBalancer.ingress"), i, p)
			if (json_is_string(json_object_get(p, "ip")))
				json_array_append(ext, json_object_get(p, "ip"));
	sp.external_ips = ext;
	if (sk_kube_jstr(svc, "spec.sessionAffinity") && !strcmp(sk_kube_jstr(svc, "spec.sessionAffinity"), "ClientIP"))
		sp.affinity_s = json_integer_value(timeout) > 0 && json_integer_value(timeout) <= 86400
					? (int)json_integer_value(timeout)
					: AFFINITY_DEFAULT_S;
	sp.itp_local = sk_kube_jstr(svc, "spec.internalTrafficPolicy") &&
		       !strcmp(sk_kube_jstr(svc, "spec.internalTrafficPolicy"), "Local");
	sp.etp_local = sk_kube_jstr(svc, "spec.externalTrafficPolicy") &&
		       !strcmp(sk_kube_jstr(svc, "spec.externalTrafficPolicy"), "Local");
	json_array_foreach(sk_kube_jget(svc, "spec.ports"), i, p) {
		const char *proto = sk_kube_jstr(p, "protocol") ? sk_kube_jstr(p, "protocol") : "TCP";
		json_int_t port = json_integer_value(json_object_get(p, "port"));
		json_int_t np = json_integer_value(json_object_get(p, "nodePort"));

		if ((strcmp(proto, "TCP") && strcmp(proto, "UDP") && strcmp(proto, "SCTP")) || port <= 0 ||
		    port > 65535 || !name_ok(sk_kube_jstr(p, "name") ?: "", 63))
			continue;
		for (size_t k = 0; proto[k] && k < sizeof(sp.proto) - 1; k++)
			sp.proto[k] = (char)tolower((unsigned char)proto[k]);
		sp.proto[strlen(proto)] = '\0';
		sp.port = (int)port;
		sp.node_port = with_node_ports && np > 0 && np < 65536 ? (int)np : 0;
		sp.port_name = sk_kube_jstr(p, "name") ? sk_kube_jstr(p, "name") : "";
		snprintf(sp.spn, sizeof(sp.spn), "%s/%s/%s/%s", sp.ns, sp.name, sp.proto, sp.port_name);
		name_hash(sp.spn, sp.hash);
		port_rules(g, &sp, slices);
	}
}

static int cmp_cidr(const void *a, const void *b)
{
	const sk_kube_cidr *x = a, *y = b;

	if (x->prefix != y->prefix)
		return x->prefix - y->prefix;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static void add_cidr(sk_kube_cidr **v, size_t *n, const char *s)
{
	sk_kube_cidr c;
	sk_error_t err = {0};

	if (!s || sk_kube_cidr_parse(s, &c, &err) < 0)
		return;
	*v = xrealloc(*v, (*n + 1) * sizeof(**v));
	(*v)[(*n)++] = c;
}

/* The pod network: the cluster CIDR, this node's and every Node's
 * spec.podCIDRs, without one inside another (an interval set refuses
 * overlaps). */
static json_t *pod_cidrs(const sk_proxy_config *cfg, json_t *nodes)
{
	sk_kube_cidr *v = NULL;
	size_t n = 0;
	json_t *out = json_array(), *node, *c;
	size_t i, j;

	add_cidr(&v, &n, cfg->cluster_cidr);
	add_cidr(&v, &n, cfg->pod_cidr);
	json_array_foreach(nodes, i, node) {
		add_cidr(&v, &n, sk_kube_jstr(node, "spec.podCIDR"));
		json_array_foreach(sk_kube_jget(node, "spec.podCIDRs"), j, c)
			add_cidr(&v, &n, json_string_value(c));
	}
	if (n)
		qsort(v, n, sizeof(*v), cmp_cidr);
	for (i = 0; i < n; i++) {
		bool inside = false;

		char text[SK_KUBE_CIDR_LEN];

		/* sorted by prefix length: a block that holds this one comes first */
		for (j = 0; j < i && !inside; j++)
			inside = sk_kube_cidr_overlaps(&v[j], &v[i]);
		if (!inside)
			json_array_append_new(out, json_string(sk_kube_cidr_format(&v[i], text)));
	}
	free(v);
	return out;
}

static json_t *fragment_new(void)
{
	return json_pack("{s:o, s:o, s:o}", "chains", json_object(), "maps", json_object(), "affinity", json_object());
}

/* Whether prev (a service's fragment of the previous model) was made from
 * exactly these objects: the informers' objects are immutable, a change is
 * a new object, and the fragment holds references to its inputs so an
 * address is not reused while it is compared. */
static bool fragment_current(json_t *prev, json_t *svc, json_t *slices, const sk_proxy_config *cfg)
{
	json_t *in = json_object_get(prev, "in"), *o;
	const char *node = json_string_value(json_object_get(prev, "node"));
	size_t i, j;

	if (!prev || json_array_get(in, 0) != svc || json_array_size(in) != json_array_size(slices) + 1 ||
	    strcmp(node ? node : "", cfg->node_name ? cfg->node_name : ""))
		return false;
	json_array_foreach(slices, i, o) {
		bool found = false;

		for (j = 1; j < json_array_size(in) && !found; j++)
			found = json_array_get(in, j) == o;
		if (!found)
			return false;
	}
	return true;
}

static json_t *service_fragment(const sk_proxy_config *cfg, json_t *svc, json_t *slices)
{
	json_t *frag = fragment_new(), *in = json_array(), *o;
	struct gen g = {.cfg = cfg};
	size_t i;

	g.chains = json_object_get(frag, "chains");
	g.maps = json_object_get(frag, "maps");
	g.affinity = json_object_get(frag, "affinity");
	service_rules(&g, svc, slices);
	json_array_append(in, svc);
	json_array_foreach(slices, i, o)
		json_array_append(in, o);
	json_object_set_new(frag, "in", in);
	json_object_set_new(frag, "node", json_string(cfg->node_name ? cfg->node_name : ""));
	return frag;
}

static char *svc_key(json_t *o, const char *name)
{
	return xasprintf("%s/%s", sk_kube_jstr(o, "metadata.namespace") ?: "default", name ? name : "");
}

json_t *sk_proxy_model(const sk_proxy_config *cfg, const sk_proxy_input *in, json_t *prev)
{
	json_t *services = in->services, *slices = in->slices;
	json_t *base = fragment_new(), *frags = json_object(), *o;
	cleanup_json json_t *by_svc = json_object();
	json_t *prev_frags = json_object_get(prev, "services");
	struct gen g = {.cfg = cfg};
	size_t i;

	g.chains = json_object_get(base, "chains");
	base_rules(&g);
	json_array_foreach(slices, i, o) {
		json_t *labels = sk_kube_jget(o, "metadata.labels");
		const char *svc = json_string_value(json_object_get(labels, "kubernetes.io/service-name"));
		const char *at = sk_kube_jstr(o, "addressType");
		cleanup_free char *key = NULL;

		if (!svc || (at && strcmp(at, "IPv4")))
			continue;
		key = svc_key(o, svc);
		if (!json_object_get(by_svc, key))
			json_object_set_new(by_svc, key, json_array());
		json_array_append(json_object_get(by_svc, key), o);
	}
	json_array_foreach(services, i, o) {
		cleanup_free char *key = svc_key(o, sk_kube_jstr(o, "metadata.name"));
		json_t *mine = json_object_get(by_svc, key), *old = json_object_get(prev_frags, key);

		if (!json_is_object(o))
			continue;
		if (fragment_current(old, o, mine, cfg))
			json_object_set(frags, key, old);
		else
			json_object_set_new(frags, key, service_fragment(cfg, o, mine));
	}
	return json_pack("{s:o, s:o, s:o, s:o}", "base", base, "services", frags, "policy",
			 sk__proxy_policy_fragment(cfg, in->policies, in->pods, in->namespaces), "cidrs",
			 pod_cidrs(cfg, in->nodes));
}

/* ---- the script ------------------------------------------------------------------ */

static bool is_base(const char *chain)
{
	for (size_t i = 0; i < sizeof(base_chains) / sizeof(base_chains[0]); i++)
		if (!strcmp(base_chains[i].name, chain))
			return true;
	return false;
}

static bool is_fixed_set(const char *set)
{
	for (size_t i = 0; i < sizeof(maps) / sizeof(maps[0]); i++)
		if (!strcmp(maps[i].name, set))
			return true;
	return !strcmp(set, CIDR_SET);
}

static void emit_rules(FILE *f, const char *table, const char *chain, const char *rules)
{
	for (const char *r = rules; *r;) {
		size_t n = strcspn(r, "\n");

		if (n)
			fprintf(f, "add rule ip %s %s %.*s\n", table, chain, (int)n, r);
		r += n;
		if (*r)
			r++;
	}
}

/* A rule with an anonymous set (numgen ... vmap { }): the kernel binds it by
 * walking the transaction so far, so these go before the long lists. */
static bool has_anonymous_set(const char *rules) { return strstr(rules, "vmap {") != NULL; }

/* Element statements of one map, ELEMENTS_PER_STATEMENT at a time. */
struct elems {
	FILE *f;
	const char *verb, *table, *map;
	size_t in_stmt;
};

static void elem_put(struct elems *e, const char *key, const char *value)
{
	if (!e->in_stmt)
		fprintf(e->f, "%s element ip %s %s { ", e->verb, e->table, e->map);
	else
		fprintf(e->f, ", ");
	if (value)
		fprintf(e->f, "%s : %s", key, value);
	else
		fprintf(e->f, "%s", key);
	if (++e->in_stmt == ELEMENTS_PER_STATEMENT) {
		fprintf(e->f, " }\n");
		e->in_stmt = 0;
	}
}

static void elem_end(struct elems *e)
{
	if (e->in_stmt)
		fprintf(e->f, " }\n");
	e->in_stmt = 0;
}

/* The elements of elems that other (NULL: none) lacks or maps to another
 * verdict; keys only when deleting. */
static void elems_diff(struct elems *e, json_t *elems, json_t *other)
{
	size_t n;
	const char **keys = sorted_keys(elems, &n);

	for (size_t i = 0; i < n; i++) {
		const char *v = json_string_value(json_object_get(elems, keys[i]));
		const char *ov = json_string_value(json_object_get(other, keys[i]));

		if (ov && !strcmp(ov, v))
			continue;
		elem_put(e, keys[i], strcmp(e->verb, "delete") ? v : NULL);
	}
	free(keys);
}

static void emit_cidrs(FILE *f, const char *table, json_t *cidrs)
{
	json_t *c;
	size_t i;

	if (!json_array_size(cidrs))
		return;
	fprintf(f, "add element ip %s " CIDR_SET " { ", table);
	json_array_foreach(cidrs, i, c)
		fprintf(f, "%s%s", i ? ", " : "", json_string_value(c));
	fprintf(f, " }\n");
}

static void emit_affinity_set(FILE *f, const char *table, const char *set, json_t *timeout)
{
	fprintf(f, "add set ip %s %s { type ipv4_addr; flags dynamic,timeout; timeout %llds; }\n", table, set,
		(long long)json_integer_value(timeout));
}

static void emit_declarations(FILE *f, const char *table)
{
	fprintf(f, "add table ip %s { comment \"skiff node agent: Services\"; }\n", table);
	for (size_t i = 0; i < sizeof(maps) / sizeof(maps[0]); i++)
		fprintf(f, "add map ip %s %s { %s }\n", table, maps[i].name, maps[i].decl);
	fprintf(f, "add set ip %s " CIDR_SET " { type ipv4_addr; flags interval; }\n", table);
	for (size_t i = 0; i < sizeof(base_chains) / sizeof(base_chains[0]); i++)
		fprintf(f, "add chain ip %s %s { %s }\n", table, base_chains[i].name, base_chains[i].decl);
}

/* The fragments of a model: the base one, then the services' by key. */
static json_t **fragments_of(json_t *model, size_t *n)
{
	json_t *svcs = json_object_get(model, "services");
	size_t k;
	const char **keys = sorted_keys(svcs, &k);
	json_t **out = xmalloc((k + 2) * sizeof(*out));

	*n = 0;
	if (json_object_get(model, "base"))
		out[(*n)++] = json_object_get(model, "base");
	if (json_object_get(model, "policy"))
		out[(*n)++] = json_object_get(model, "policy");
	for (size_t i = 0; i < k; i++)
		out[(*n)++] = json_object_get(svcs, keys[i]);
	free(keys);
	return out;
}

/* What one fragment changes, from old to new (either NULL), in six steps
 * that must each be done for all fragments before the next:
 * 0 new sets and chains, 1 stale and changed elements out, 2 changed chains
 * refilled (those with anonymous sets first: pass 2 and 3), 4 stale chains
 * flushed, 5 new and changed elements in, 6 stale chains and sets deleted. */
static void fragment_step(FILE *f, const char *t, int step, json_t *old, json_t *new)
{
	json_t *chains = json_object_get(new, "chains"), *ochains = json_object_get(old, "chains");
	json_t *aff = json_object_get(new, "affinity"), *oaff = json_object_get(old, "affinity");
	const char *k;
	json_t *v;

	switch (step) {
	case 0:
		json_object_foreach(aff, k, v)
			if (!json_object_get(oaff, k))
				emit_affinity_set(f, t, k, v);
		json_object_foreach(chains, k, v)
			if (!json_object_get(ochains, k) && !is_base(k))
				fprintf(f, "add chain ip %s %s\n", t, k);
		break;
	case 2:
	case 3:
		json_object_foreach(chains, k, v) {
			const char *rules = json_string_value(v);
			const char *orules = json_string_value(json_object_get(ochains, k));

			if ((orules && !strcmp(orules, rules)) || has_anonymous_set(rules) != (step == 2))
				continue;
			if (orules)
				fprintf(f, "flush chain ip %s %s\n", t, k);
			emit_rules(f, t, k, rules);
		}
		break;
	case 4:
	case 6:
		json_object_foreach(ochains, k, v)
			if (!json_object_get(chains, k))
				fprintf(f, "%s chain ip %s %s\n", step == 4 ? "flush" : "delete", t, k);
		if (step == 6)
			json_object_foreach(oaff, k, v)
				if (!json_object_get(aff, k))
					fprintf(f, "delete set ip %s %s\n", t, k);
		break;
	default:
		break;
	}
}

/* Steps 1 and 5 for every map over all pairs. */
static void elements_step(FILE *f, const char *t, bool add, json_t **olds, json_t **news, size_t n)
{
	for (size_t i = 0; i < sizeof(maps) / sizeof(maps[0]); i++) {
		struct elems e = {.f = f, .verb = add ? "add" : "delete", .table = t, .map = maps[i].name};

		for (size_t j = 0; j < n; j++) {
			json_t *m = json_object_get(json_object_get(news[j], "maps"), maps[i].name);
			json_t *om = json_object_get(json_object_get(olds[j], "maps"), maps[i].name);

			if (add)
				elems_diff(&e, m, om);
			else
				elems_diff(&e, om, m);
		}
		elem_end(&e);
	}
}

static void pairs_script(FILE *f, const char *t, json_t **olds, json_t **news, size_t n)
{
	for (int step = 0; step <= 6; step++) {
		if (step == 1 || step == 5) {
			elements_step(f, t, step == 5, olds, news, n);
			continue;
		}
		for (size_t j = 0; j < n; j++)
			fragment_step(f, t, step, olds[j], news[j]);
	}
}

/* The whole model over whatever the table holds (existing): every chain it
 * has flushed, maps and sets emptied, what the model lacks deleted, all
 * the model's rules and elements added. */
static void full_script(FILE *f, const sk_proxy_config *cfg, json_t *model, json_t *existing)
{
	const char *t = cfg->table;
	json_t *old_chains = json_object_get(existing, "chains"), *old_sets = json_object_get(existing, "sets");
	cleanup_json json_t *names = json_object(), *sets = json_object();
	size_t n;
	json_t **frags = fragments_of(model, &n), **none = xzalloc((n + 1) * sizeof(*none));
	const char *k;
	json_t *v;

	for (size_t i = 0; i < n; i++) {
		json_object_foreach(json_object_get(frags[i], "chains"), k, v)
			json_object_set(names, k, json_true());
		json_object_foreach(json_object_get(frags[i], "affinity"), k, v)
			json_object_set(sets, k, json_true());
	}
	emit_declarations(f, t);
	json_object_foreach(old_chains, k, v)
		fprintf(f, "flush chain ip %s %s\n", t, k);
	for (size_t i = 0; i < sizeof(maps) / sizeof(maps[0]); i++)
		fprintf(f, "flush map ip %s %s\n", t, maps[i].name);
	fprintf(f, "flush set ip %s " CIDR_SET "\n", t);
	json_object_foreach(old_chains, k, v)
		if (!is_base(k) && !json_object_get(names, k))
			fprintf(f, "delete chain ip %s %s\n", t, k);
	json_object_foreach(old_sets, k, v)
		if (!is_fixed_set(k) && !json_object_get(sets, k))
			fprintf(f, "delete set ip %s %s\n", t, k);
	/* the existing chains are empty now: their rules are added again */
	for (int step = 0; step <= 5; step++) {
		if (step == 1 || step == 4)
			continue;
		if (step == 5) {
			elements_step(f, t, true, none, frags, n);
			continue;
		}
		for (size_t j = 0; j < n; j++) {
			if (step == 0) {
				json_object_foreach(json_object_get(frags[j], "affinity"), k, v)
					if (!json_object_get(old_sets, k))
						emit_affinity_set(f, t, k, v);
				json_object_foreach(json_object_get(frags[j], "chains"), k, v)
					if (!is_base(k) && !json_object_get(old_chains, k))
						fprintf(f, "add chain ip %s %s\n", t, k);
				continue;
			}
			json_object_foreach(json_object_get(frags[j], "chains"), k, v)
				if (has_anonymous_set(json_string_value(v)) == (step == 2))
					emit_rules(f, t, k, json_string_value(v));
		}
	}
	emit_cidrs(f, t, json_object_get(model, "cidrs"));
	free(frags);
	free(none);
}

/* Only what differs from old: the base fragment and the services whose
 * fragment is not the very one old has (sk_proxy_model reuses those). */
static void partial_script(FILE *f, const sk_proxy_config *cfg, json_t *old, json_t *model)
{
	json_t *svcs = json_object_get(model, "services"), *osvcs = json_object_get(old, "services");
	size_t n = 0, cap = json_object_size(svcs) + json_object_size(osvcs) + 1;
	json_t **olds = xmalloc((cap + 1) * sizeof(*olds)), **news = xmalloc((cap + 1) * sizeof(*news));
	size_t nk;
	const char **keys = sorted_keys(svcs, &nk);

	olds[n] = json_object_get(old, "base");
	news[n++] = json_object_get(model, "base");
	olds[n] = json_object_get(old, "policy");
	news[n++] = json_object_get(model, "policy");
	for (size_t i = 0; i < nk; i++) {
		json_t *a = json_object_get(osvcs, keys[i]), *b = json_object_get(svcs, keys[i]);

		if (a != b) {
			olds[n] = a;
			news[n++] = b;
		}
	}
	free(keys);
	keys = sorted_keys(osvcs, &nk);
	for (size_t i = 0; i < nk; i++)
		if (!json_object_get(svcs, keys[i])) {
			olds[n] = json_object_get(osvcs, keys[i]);
			news[n++] = NULL;
		}
	free(keys);
	if (!json_equal(json_object_get(model, "cidrs"), json_object_get(old, "cidrs"))) {
		fprintf(f, "flush set ip %s " CIDR_SET "\n", cfg->table);
		emit_cidrs(f, cfg->table, json_object_get(model, "cidrs"));
	}
	pairs_script(f, cfg->table, olds, news, n);
	free(olds);
	free(news);
}

char *sk_proxy_script(const sk_proxy_config *cfg, json_t *old, json_t *model, json_t *existing)
{
	char *buf = NULL;
	size_t len;
	FILE *f = open_memstream(&buf, &len);

	if (old)
		partial_script(f, cfg, old, model);
	else
		full_script(f, cfg, model, existing);
	fclose(f);
	return buf;
}

char *sk_proxy_table_name(const char *bridge) { return xasprintf("skiff-%s", bridge); }
