/* NetworkPolicy (networking.k8s.io/v1) in the node's table: a verdict
 * chain per local pod and direction, keyed by the pod's IP, reached from
 * filter-forward for new connections through the maps policy-ingress (by
 * destination) and policy-egress (by source). A pod no policy selects for
 * a direction has no chain: everything is allowed, as upstream. A chain
 * returns for what some rule of a selecting policy allows and drops the
 * rest; replies of allowed connections pass by conntrack. Peers are
 * resolved here to pod IPs (podSelector, namespaceSelector) or CIDRs
 * (ipBlock with except); named ports to the numbers of the pods that carry
 * them (the selected pod for ingress, the peer for egress). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/proxy-int.h"
#include "kube/cidr.h"
#include "kube/object.h"
#include "kube/selector.h"
#include "util/util.h"

struct pol {
	const sk_proxy_config *cfg;
	json_t *pods, *namespaces; /* all pods; namespace name -> labels */
};

static const char *str(json_t *o, const char *path, const char *def)
{
	const char *s = sk_kube_jstr(o, path);

	return s ? s : def;
}

static bool pod_usable(json_t *pod)
{
	const char *phase = str(pod, "status.phase", "");

	return sk_kube_jstr(pod, "status.podIP") && !json_is_true(sk_kube_jget(pod, "spec.hostNetwork")) &&
	       strcmp(phase, "Succeeded") && strcmp(phase, "Failed");
}

static bool ip_ok(const char *ip)
{
	sk_error_t err = {0};
	uint32_t a;

	return ip && sk_kube_ip4_parse(ip, &a, &err) == 0;
}

static bool cidr_ok(const char *c)
{
	sk_error_t err = {0};
	sk_kube_cidr x;

	return c && sk_kube_cidr_parse(c, &x, &err) == 0;
}

/* Whether the policy (in namespace ns) selects pod. */
static bool selects(json_t *policy, json_t *pod)
{
	return !strcmp(str(policy, "metadata.namespace", "default"), str(pod, "metadata.namespace", "default")) &&
	       sk_kube_label_selector_json_match(sk_kube_jget(policy, "spec.podSelector"),
						 sk_kube_jget(pod, "metadata.labels"));
}

/* The policy's types: spec.policyTypes, or as upstream defaults them. */
static bool has_type(json_t *policy, const char *type)
{
	json_t *types = sk_kube_jget(policy, "spec.policyTypes"), *t;
	size_t i;

	if (!json_is_array(types) || !json_array_size(types))
		return !strcmp(type, "Ingress") || sk_kube_jget(policy, "spec.egress") != NULL;
	json_array_foreach(types, i, t)
		if (json_string_value(t) && !strcmp(json_string_value(t), type))
			return true;
	return false;
}

/* The pods a peer with a podSelector and/or namespaceSelector selects,
 * seen from a policy in namespace ns; appended to out. */
static void peer_pods(const struct pol *p, json_t *peer, const char *ns, json_t *out)
{
	json_t *psel = json_object_get(peer, "podSelector"), *nsel = json_object_get(peer, "namespaceSelector");
	json_t *pod;
	size_t i;

	json_array_foreach(p->pods, i, pod) {
		const char *pns = str(pod, "metadata.namespace", "default");

		if (!pod_usable(pod))
			continue;
		if (nsel ? !sk_kube_label_selector_json_match(nsel, json_object_get(p->namespaces, pns))
			 : strcmp(pns, ns))
			continue;
		if (psel && !sk_kube_label_selector_json_match(psel, sk_kube_jget(pod, "metadata.labels")))
			continue;
		json_array_append(out, pod);
	}
}

/* The container port of pod named name with protocol proto, or 0. */
static int named_port(json_t *pod, const char *name, const char *proto)
{
	json_t *c, *port;
	size_t i, j;

	json_array_foreach(sk_kube_jget(pod, "spec.containers"), i, c)
		json_array_foreach(json_object_get(c, "ports"), j, port)
			if (!strcmp(str(port, "name", ""), name) && !strcasecmp(str(port, "protocol", "TCP"), proto))
				return (int)json_integer_value(json_object_get(port, "containerPort"));
	return 0;
}

static void lower(char *dst, const char *src, size_t n)
{
	size_t i;

	for (i = 0; src[i] && i < n - 1; i++)
		dst[i] = (char)(src[i] >= 'A' && src[i] <= 'Z' ? src[i] + 32 : src[i]);
	dst[i] = '\0';
}

/* The match of one NetworkPolicyPort for a packet to a pod whose named
 * ports come from `owner` (NULL: named ports match nothing); "" for none
 * (the port does not apply). Malloc'ed. */
static char *port_match(json_t *port, json_t *owner)
{
	const char *proto = str(port, "protocol", "TCP");
	json_t *num = json_object_get(port, "port");
	json_int_t end = json_integer_value(json_object_get(port, "endPort"));
	char lp[8];
	int n;

	if (strcmp(proto, "TCP") && strcmp(proto, "UDP") && strcmp(proto, "SCTP"))
		return xstrdup("");
	lower(lp, proto, sizeof(lp));
	if (!num)
		return xasprintf("meta l4proto %s", lp);
	n = json_is_integer(num)              ? (int)json_integer_value(num)
	    : owner && json_string_value(num) ? named_port(owner, json_string_value(num), proto)
					      : 0;
	if (n <= 0 || n > 65535)
		return xstrdup("");
	if (json_is_integer(num) && end > n && end <= 65535)
		return xasprintf("meta l4proto %s th dport %d-%lld", lp, n, (long long)end);
	return xasprintf("meta l4proto %s th dport %d", lp, n);
}

/* "ip saddr { a, b }" for the pods (empty: NULL). */
static char *addr_set(const char *dir, json_t *pods)
{
	char *buf = NULL;
	size_t len, n = 0;
	FILE *f;
	json_t *pod;
	size_t i;

	f = open_memstream(&buf, &len);
	json_array_foreach(pods, i, pod) {
		const char *ip = sk_kube_jstr(pod, "status.podIP");

		if (!ip_ok(ip))
			continue;
		fprintf(f, "%s%s", n++ ? ", " : "", ip);
	}
	fclose(f);
	if (!n) {
		free(buf);
		return NULL;
	}
	{
		char *out = xasprintf("ip %s { %s }", dir, buf);

		free(buf);
		return out;
	}
}

/* "ip saddr CIDR ip saddr != { except }" for an ipBlock (bad: NULL). */
static char *block_match(const char *dir, json_t *block)
{
	const char *cidr = str(block, "cidr", NULL);
	json_t *ex, *e;
	size_t i, n = 0;
	char *buf = NULL, *out;
	size_t len;
	FILE *f;

	if (!cidr_ok(cidr))
		return NULL;
	ex = json_object_get(block, "except");
	f = open_memstream(&buf, &len);
	json_array_foreach(ex, i, e)
		if (cidr_ok(json_string_value(e)))
			fprintf(f, "%s%s", n++ ? ", " : "", json_string_value(e));
	fclose(f);
	out = n ? xasprintf("ip %s %s ip %s != { %s }", dir, cidr, dir, buf) : xasprintf("ip %s %s", dir, cidr);
	free(buf);
	return out;
}

static void emit(FILE *f, const char *peer, const char *port)
{
	fprintf(f, "%s%s%s%sreturn\n", peer ? peer : "", peer && *peer ? " " : "", port ? port : "",
		port && *port ? " " : "");
}

/* The rules of one ingress or egress rule of a policy for local pod. */
static void rule_rules(const struct pol *p, FILE *f, json_t *rule, json_t *pod, const char *ns, bool ingress)
{
	const char *dir = ingress ? "saddr" : "daddr";
	json_t *peers = json_object_get(rule, ingress ? "from" : "to");
	json_t *ports = json_object_get(rule, "ports");
	cleanup_json json_t *sel = json_array();
	json_t *peer, *port;
	char **blocks = NULL;
	size_t nblocks = 0, i, j;
	bool any_peer = !json_array_size(peers);

	json_array_foreach(peers, i, peer) {
		json_t *block = json_object_get(peer, "ipBlock");

		if (block) {
			char *m = block_match(dir, block);

			if (m) {
				blocks = xrealloc(blocks, (nblocks + 1) * sizeof(*blocks));
				blocks[nblocks++] = m;
			}
		} else if (json_object_get(peer, "podSelector") || json_object_get(peer, "namespaceSelector")) {
			peer_pods(p, peer, ns, sel);
		}
	}
	if (!json_array_size(ports)) {
		cleanup_free char *set = addr_set(dir, sel);

		if (any_peer)
			emit(f, NULL, NULL);
		if (set)
			emit(f, set, NULL);
		for (i = 0; i < nblocks; i++)
			emit(f, blocks[i], NULL);
		goto out;
	}
	json_array_foreach(ports, j, port) {
		bool named = json_is_string(json_object_get(port, "port"));

		if (ingress || !named) {
			/* numbers, or names of the selected pod's own ports */
			cleanup_free char *m = port_match(port, ingress ? pod : NULL);
			cleanup_free char *set = addr_set(dir, sel);

			if (!*m)
				continue;
			if (any_peer)
				emit(f, NULL, m);
			if (set)
				emit(f, set, m);
			for (i = 0; i < nblocks; i++)
				emit(f, blocks[i], m);
			continue;
		}
		/* egress to a named port: each destination pod's own number */
		{
			json_t *cands = any_peer ? p->pods : sel, *c;
			size_t k;

			json_array_foreach(cands, k, c) {
				cleanup_free char *m = NULL;
				const char *ip = sk_kube_jstr(c, "status.podIP");
				char peer_ip[64];

				if (!pod_usable(c) || !ip_ok(ip))
					continue;
				m = port_match(port, c);
				if (!*m)
					continue;
				snprintf(peer_ip, sizeof(peer_ip), "ip daddr %s", ip);
				emit(f, peer_ip, m);
			}
		}
	}
out:
	for (i = 0; i < nblocks; i++)
		free(blocks[i]);
	free(blocks);
}

/* The chain of pod for one direction, or NULL when no policy selects it. */
static char *pod_chain(const struct pol *p, json_t *policies, json_t *pod, bool ingress)
{
	const char *type = ingress ? "Ingress" : "Egress";
	char *buf = NULL;
	size_t len;
	FILE *f = open_memstream(&buf, &len);
	bool selected = false;
	json_t *policy, *rule;
	size_t i, j;

	json_array_foreach(policies, i, policy) {
		if (!selects(policy, pod) || !has_type(policy, type))
			continue;
		selected = true;
		json_array_foreach(sk_kube_jget(policy, ingress ? "spec.ingress" : "spec.egress"), j, rule)
			rule_rules(p, f, rule, pod, str(policy, "metadata.namespace", "default"), ingress);
	}
	fprintf(f, "drop\n");
	fclose(f);
	if (!selected) {
		free(buf);
		return NULL;
	}
	return buf;
}

static int cmp_policy(const void *a, const void *b)
{
	json_t *x = *(json_t *const *)a, *y = *(json_t *const *)b;
	int c = strcmp(str(x, "metadata.namespace", ""), str(y, "metadata.namespace", ""));

	return c ? c : strcmp(str(x, "metadata.name", ""), str(y, "metadata.name", ""));
}

json_t *sk__proxy_policy_fragment(const sk_proxy_config *cfg, json_t *policies, json_t *pods, json_t *namespaces)
{
	json_t *frag = json_pack("{s:{}, s:{s:{}, s:{}}, s:{}}", "chains", "maps", "policy-ingress", "policy-egress",
				 "affinity");
	json_t *chains = json_object_get(frag, "chains"), *maps = json_object_get(frag, "maps");
	cleanup_json json_t *sorted = json_array(), *ns_labels = json_object();
	struct pol p = {.cfg = cfg, .pods = pods, .namespaces = ns_labels};
	json_t *o;
	size_t i, n = json_array_size(policies);
	json_t **v;

	if (!n)
		return frag;
	v = xmalloc(n * sizeof(*v));
	for (i = 0; i < n; i++)
		v[i] = json_array_get(policies, i);
	qsort(v, n, sizeof(*v), cmp_policy);
	for (i = 0; i < n; i++)
		if (json_is_object(v[i]))
			json_array_append(sorted, v[i]);
	free(v);
	json_array_foreach(namespaces, i, o) {
		const char *name = str(o, "metadata.name", NULL);
		json_t *labels;

		if (!name)
			continue;
		labels = json_is_object(sk_kube_jget(o, "metadata.labels"))
				 ? json_deep_copy(sk_kube_jget(o, "metadata.labels"))
				 : json_object();
		/* the API server sets it on every namespace (upstream) */
		json_object_set_new(labels, "kubernetes.io/metadata.name", json_string(name));
		json_object_set_new(ns_labels, name, labels);
	}
	json_array_foreach(pods, i, o) {
		const char *ip = sk_kube_jstr(o, "status.podIP");

		if (!pod_usable(o) || !ip_ok(ip) || !cfg->node_name ||
		    strcmp(str(o, "spec.nodeName", ""), cfg->node_name))
			continue;
		for (int dir = 0; dir < 2; dir++) {
			cleanup_free char *rules = pod_chain(&p, sorted, o, dir == 0);
			char name[64], verdict[80];

			if (!rules)
				continue;
			snprintf(name, sizeof(name), "policy-%s-%s", dir == 0 ? "ingress" : "egress", ip);
			snprintf(verdict, sizeof(verdict), "jump %s", name);
			json_object_set_new(chains, name, json_string(rules));
			json_object_set_new(json_object_get(maps, dir == 0 ? "policy-ingress" : "policy-egress"), ip,
					    json_string(verdict));
		}
	}
	return frag;
}
