/* Services beyond generic storage, as upstream's Service REST storage
 * (pkg/registry/core/service/storage, ipallocator, portallocator):
 * ClusterIPs and NodePorts are taken from the service CIDR and the NodePort
 * range when a Service is written and given back when it goes, the
 * allocations are repaired from the stored Services (the cluster's own
 * objects are cluster-objects.c's).
 *
 * An allocation is a store key, /registry/ranges/serviceips/<ip> or
 * /registry/ranges/servicenodeports/<port>, whose value names the Service
 * (kind, namespace, name, uid). It is taken with the store's create, which
 * fails when the key exists, so no value is ever given twice: not by
 * concurrent requests, not across restarts, not by several API servers
 * sharing the store (upstream's IPAddress objects work the same way). A
 * bitmap per range is only a hint of which keys exist, so that a dynamic
 * allocation rarely tries a taken value; a collision just moves on. */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api/api-int.h"
#include "api/defaults.h"
#include "api/service.h"
#include "api/table.h"
#include "api/validate.h"
#include "client/event.h"
#include "kube/selector.h"
#include "kube/cidr.h"
#include "util/util.h"

#define IPS_PREFIX "/registry/ranges/serviceips/"
#define PORTS_PREFIX "/registry/ranges/servicenodeports/"
#define SERVICES_PREFIX "/registry/services/"
/* a reservation without its Service on this many repair passes in a row is freed */
#define LEAK_PASSES 2
#define RECONCILE_SECS 10
#define REPAIR_TICKS 6

/* ---- ranges ---- */

static void range_name(const sk__svc_range *r, uint32_t v, char *buf, size_t len)
{
	char ip[SK_KUBE_IP4_LEN];

	if (r->is_ip)
		snprintf(buf, len, "%s", sk_kube_ip4_format(v, ip));
	else
		snprintf(buf, len, "%u", v);
}

static char *range_key(const sk__svc_range *r, uint32_t v)
{
	char name[SK_KUBE_IP4_LEN];

	range_name(r, v, name, sizeof(name));
	return xasprintf("%s%s", r->prefix, name);
}

static int range_has(const sk__svc_range *r, uint32_t v) { return v >= r->first && v - r->first < r->n; }

static void bit_set(sk__svc_range *r, uint32_t v, int on)
{
	uint32_t i = v - r->first;

	if (!range_has(r, v))
		return;
	if (on)
		r->used[i / 8] |= (uint8_t)(1u << (i % 8));
	else
		r->used[i / 8] &= (uint8_t) ~(1u << (i % 8));
}

static int bit_get(const sk__svc_range *r, uint32_t i) { return r->used[i / 8] & (1u << (i % 8)); }

static void mark(sk__svc_range *r, uint32_t v, int on)
{
	pthread_mutex_lock(&r->mu);
	bit_set(r, v, on);
	pthread_mutex_unlock(&r->mu);
}

/* Upstream's KEP-3070/3668 bands: min(max(16, size/step), max), none for
 * ranges of 16 or fewer. */
static uint32_t lower_band(uint64_t size, uint32_t step, uint32_t max)
{
	uint64_t off;

	if (size <= 16)
		return 0;
	off = size / step;
	return (uint32_t)(off < 16 ? 16 : off > max ? max : off);
}

static void range_init(sk__svc_range *r, const char *prefix, int is_ip, uint32_t first, uint32_t n, uint32_t lower,
		       const char *text)
{
	memset(r, 0, sizeof(*r));
	r->prefix = prefix;
	r->is_ip = is_ip;
	r->first = first;
	r->n = n;
	r->lower = lower > n ? 0 : lower;
	snprintf(r->text, sizeof(r->text), "%s", text);
	r->used = xzalloc(n / 8 + 1);
	r->seed = (unsigned)time(NULL) ^ (unsigned)(uintptr_t)r;
	pthread_mutex_init(&r->mu, NULL);
}

static void range_release_mem(sk__svc_range *r)
{
	free(r->used);
	pthread_mutex_destroy(&r->mu);
}

/* A free value by the hint, marked taken: the upper band from a random
 * start, then the lower band, as upstream's allocator. -1 when none. */
static int range_pick(sk__svc_range *r, uint32_t *v)
{
	uint32_t bands[2][2] = {{r->lower, r->n}, {0, r->lower}};
	int rc = -1;

	pthread_mutex_lock(&r->mu);
	for (int b = 0; b < 2 && rc < 0; b++) {
		uint32_t lo = bands[b][0], size = bands[b][1] - lo, start;

		if (!size)
			continue;
		start = (uint32_t)rand_r(&r->seed) % size;
		for (uint32_t k = 0; k < size; k++) {
			uint32_t i = lo + (start + k) % size;

			if (!bit_get(r, i)) {
				r->used[i / 8] |= (uint8_t)(1u << (i % 8));
				*v = r->first + i;
				rc = 0;
				break;
			}
		}
	}
	pthread_mutex_unlock(&r->mu);
	return rc;
}

static const char *owner_uid(const char *text, size_t len, json_t **hold)
{
	*hold = json_loadb(text, len, 0, NULL);
	return json_string_value(json_object_get(*hold, "uid"));
}

/* Takes v for owner (the reservation's JSON text). 1 when taken now, 0
 * when uid already held it, -1 + err: SK_EEXISTS when another holds it. */
static int range_take(sk_api *api, sk__svc_range *r, uint32_t v, const char *owner, const char *uid, sk_error_t *err)
{
	cleanup_free char *key = range_key(r, v);
	sk_error_t e = {0};
	sk_store_kv kv;

	if (sk_store_create(api->store, key, owner, strlen(owner), &e) >= 0) {
		mark(r, v, 1);
		return 1;
	}
	if (e.code != SK_EEXISTS) {
		*err = e;
		return -1;
	}
	mark(r, v, 1);
	if (sk_store_get(api->store, key, &kv, NULL) == 0) {
		cleanup_json json_t *o = NULL;
		const char *held = owner_uid(kv.value, kv.len, &o);
		int mine = held && uid && !strcmp(held, uid);

		sk_store_kv_release(&kv);
		if (mine)
			return 0;
	}
	return sk_error_set(err, SK_EEXISTS, "provided %s is already allocated", r->is_ip ? "IP" : "port");
}

/* A free value taken for owner: 0, or -1 + err ("range is full"). */
static int range_take_next(sk_api *api, sk__svc_range *r, const char *owner, uint32_t *v, sk_error_t *err)
{
	for (;;) {
		cleanup_free char *key = NULL;
		sk_error_t e = {0};

		if (range_pick(r, v) < 0)
			return sk_error_set(err, SK_EINTERNAL, "range is full");
		key = range_key(r, *v);
		if (sk_store_create(api->store, key, owner, strlen(owner), &e) >= 0)
			return 0;
		if (e.code != SK_EEXISTS) {
			mark(r, *v, 0);
			*err = e;
			return -1;
		}
		/* taken meanwhile (another server or request): the bit stays set */
	}
}

/* Gives v back when uid holds it (any holder with uid NULL). */
static void range_give(sk_api *api, sk__svc_range *r, uint32_t v, const char *uid)
{
	cleanup_free char *key = range_key(r, v);
	cleanup_json json_t *o = NULL;
	sk_store_kv kv;
	const char *held;

	if (sk_store_get(api->store, key, &kv, NULL) < 0) {
		mark(r, v, 0);
		return;
	}
	held = owner_uid(kv.value, kv.len, &o);
	if (!uid || (held && !strcmp(held, uid))) {
		if (sk_store_delete(api->store, key, kv.mod_rev, NULL, NULL) >= 0)
			mark(r, v, 0);
	}
	sk_store_kv_release(&kv);
}

static int parse_value(const sk__svc_range *r, const char *name, uint32_t *v)
{
	char *end;
	unsigned long n;

	if (r->is_ip)
		return sk_kube_ip4_parse(name, v, NULL);
	n = strtoul(name, &end, 10);
	if (!*name || *end || n > 65535)
		return -1;
	*v = (uint32_t)n;
	return 0;
}

/* Rebuilds the hint from the stored reservations. */
static void range_sync(sk_api *api, sk__svc_range *r)
{
	sk_store_list l = {0};
	uint8_t *used = xzalloc(r->n / 8 + 1), *oldbits;

	if (sk_store_range(api->store, r->prefix, NULL, 0, 0, &l, NULL) < 0) {
		free(used);
		return;
	}
	for (size_t i = 0; i < l.n; i++) {
		uint32_t v;

		if (parse_value(r, l.items[i].key + strlen(r->prefix), &v) == 0 && range_has(r, v))
			used[(v - r->first) / 8] |= (uint8_t)(1u << ((v - r->first) % 8));
	}
	sk_store_list_release(&l);
	pthread_mutex_lock(&r->mu);
	oldbits = r->used;
	r->used = used;
	pthread_mutex_unlock(&r->mu);
	free(oldbits);
}

/* ---- what a Service holds ---- */

typedef struct held {
	sk__svc_range *r;
	uint32_t v;
	const char *field; /* for errors: "spec.clusterIPs", "spec.ports[i].nodePort", "spec.healthCheckNodePort" */
	int index;
} held;

typedef struct held_set {
	held *v;
	size_t n, cap;
} held_set;

static void held_add(held_set *s, sk__svc_range *r, uint32_t v)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->v[i].r == r && s->v[i].v == v)
			return;
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 8;
		s->v = xrealloc(s->v, s->cap * sizeof(*s->v));
	}
	s->v[s->n++] = (held){.r = r, .v = v};
}

static int held_has(const held_set *s, const sk__svc_range *r, uint32_t v)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->v[i].r == r && s->v[i].v == v)
			return 1;
	return 0;
}

static void held_release(held_set *s)
{
	free(s->v);
	memset(s, 0, sizeof(*s));
}

static const char *str_at(json_t *o, const char *k) { return json_string_value(json_object_get(o, k)); }

static int is_type(json_t *spec, const char *t)
{
	const char *type = str_at(spec, "type");

	return !strcmp(type ? type : "ClusterIP", t);
}

static int node_port_type(json_t *spec) { return is_type(spec, "NodePort") || is_type(spec, "LoadBalancer"); }

/* Whether new NodePorts are given out (upstream's shouldAllocateNodePorts). */
static int allocates_node_ports(json_t *spec)
{
	if (is_type(spec, "NodePort"))
		return 1;
	return is_type(spec, "LoadBalancer") && !json_is_false(json_object_get(spec, "allocateLoadBalancerNodePorts"));
}

/* upstream's needsHCNodePort */
static int needs_hc_node_port(json_t *spec)
{
	const char *etp = str_at(spec, "externalTrafficPolicy");

	return is_type(spec, "LoadBalancer") && etp && !strcmp(etp, "Local");
}

/* The values svc holds from the ranges (clusterIP, nodePorts, healthCheckNodePort). */
static void svc_held(sk__svc *s, json_t *svc, held_set *out)
{
	json_t *spec = json_object_get(svc, "spec"), *p;
	const char *ip = str_at(spec, "clusterIP");
	uint32_t v;
	size_t i;

	if (!is_type(spec, "ExternalName") && ip && sk_kube_ip4_parse(ip, &v, NULL) == 0 && range_has(&s->ips, v))
		held_add(out, &s->ips, v);
	json_array_foreach(json_object_get(spec, "ports"), i, p) {
		json_int_t np = json_integer_value(json_object_get(p, "nodePort"));

		if (np > 0 && range_has(&s->ports, (uint32_t)np))
			held_add(out, &s->ports, (uint32_t)np);
	}
	v = (uint32_t)json_integer_value(json_object_get(spec, "healthCheckNodePort"));
	if (v && range_has(&s->ports, v))
		held_add(out, &s->ports, v);
}

static char *owner_text(json_t *svc)
{
	json_t *m = json_object_get(svc, "metadata");
	cleanup_json json_t *o = json_pack("{s:s, s:s?, s:s?, s:s?}", "kind", "Service", "namespace",
					   str_at(m, "namespace"), "name", str_at(m, "name"), "uid", str_at(m, "uid"));

	return json_dumps(o, JSON_COMPACT);
}

static const char *svc_uid(json_t *svc) { return str_at(json_object_get(svc, "metadata"), "uid"); }

/* ---- the write transaction ---- */

typedef struct txn {
	held_set taken;   /* taken by this write: given back when it fails */
	held_set release; /* held before, not after: given back when it succeeds */
	char *uid;
} txn;

static void txn_free(sk_api *api, txn *t, int ok)
{
	held_set *give;

	if (!t)
		return;
	give = ok ? &t->release : &t->taken;
	for (size_t i = 0; i < give->n; i++)
		range_give(api, give->v[i].r, give->v[i].v, t->uid);
	held_release(&t->taken);
	held_release(&t->release);
	free(t->uid);
	free(t);
}

typedef struct alloc_ctx {
	sk_api *api;
	sk__svc *s;
	txn *t;
	const held_set *before; /* what the stored object holds (update) */
	char *owner;
	int dry_run;
	json_t *causes;
	sk_error_t *err;
} alloc_ctx;

static void cause(alloc_ctx *c, const char *field, char *value_repr, const char *msg)
{
	cleanup_free char *m = xasprintf("Invalid value: %s: %s", value_repr, msg);

	if (!c->causes)
		c->causes = json_array();
	json_array_append_new(
		c->causes, json_pack("{s:s, s:s, s:s}", "reason", "FieldValueInvalid", "message", m, "field", field));
	free(value_repr);
}

/* Takes the requested value v of r unless the stored object holds it: 0,
 * or -1 with *why (SK_EINVALID out of range, SK_EEXISTS taken, or a store
 * error). A dry run only checks. */
static int take_static(alloc_ctx *c, sk__svc_range *r, uint32_t v, sk_error_t *why)
{
	if (c->before && held_has(c->before, r, v))
		return 0;
	if (!range_has(r, v)) {
		char name[SK_KUBE_IP4_LEN];

		range_name(r, v, name, sizeof(name));
		if (r->is_ip)
			return sk_error_set(
				why, SK_EINVALID,
				"the provided IP (%s) is not in the valid range. The range of valid IPs is %s", name,
				r->text);
		return sk_error_set(why, SK_EINVALID,
				    "provided port is not in the valid range. The range of valid ports is %s", r->text);
	}
	if (c->dry_run) {
		cleanup_free char *key = range_key(r, v);
		sk_store_kv kv;

		if (sk_store_get(c->api->store, key, &kv, NULL) < 0)
			return 0;
		sk_store_kv_release(&kv);
		return sk_error_set(why, SK_EEXISTS, "provided %s is already allocated", r->is_ip ? "IP" : "port");
	}
	switch (range_take(c->api, r, v, c->owner, c->t->uid, why)) {
	case 1:
		held_add(&c->t->taken, r, v);
		return 0;
	case 0:
		return 0;
	default:
		return -1;
	}
}

static int take_next(alloc_ctx *c, sk__svc_range *r, uint32_t *v, sk_error_t *why)
{
	if (c->dry_run) {
		if (range_pick(r, v) < 0)
			return sk_error_set(why, SK_EINTERNAL, "range is full");
		mark(r, *v, 0);
		return 0;
	}
	if (range_take_next(c->api, r, c->owner, v, why) < 0)
		return -1;
	held_add(&c->t->taken, r, *v);
	return 0;
}

static int alloc_cluster_ip(alloc_ctx *c, json_t *spec)
{
	const char *ip = str_at(spec, "clusterIP");
	char buf[SK_KUBE_IP4_LEN];
	sk_error_t why = {0};
	uint32_t v;

	if (is_type(spec, "ExternalName") || (ip && !strcmp(ip, "None")))
		return 0;
	if (!ip || !*ip) {
		if (take_next(c, &c->s->ips, &v, &why) < 0)
			return sk_error_set(c->err, SK_EINTERNAL,
					    "Internal error occurred: failed to allocate a serviceIP: %s", why.msg);
		sk_kube_ip4_format(v, buf);
		json_object_set_new(spec, "clusterIP", json_string(buf));
		json_object_set_new(spec, "clusterIPs", json_pack("[s]", buf));
		return 0;
	}
	if (sk_kube_ip4_parse(ip, &v, NULL) < 0)
		/* an IPv6 address (validation refused anything else): not of this IPv4 range */
		sk_error_set(&why, SK_EINVALID,
			     "the provided IP (%s) is not in the valid range. The range of valid IPs is %s", ip,
			     c->s->ips.text);
	else if (take_static(c, &c->s->ips, v, &why) == 0)
		return 0;
	if (why.code != SK_EINVALID && why.code != SK_EEXISTS) {
		*c->err = why;
		return -1;
	}
	{
		cleanup_free char *msg = xasprintf("failed to allocate IP %s: %s", ip, why.msg);
		cleanup_free char *q = xasprintf("\"%s\"", ip);

		cause(c, "spec.clusterIPs", xasprintf("[]string{%s}", q), msg);
	}
	return -1;
}

/* upstream's initNodePorts/updateNodePorts: ports with the same port
 * number share one NodePort; a requested one is taken, a missing one
 * given out while the type allocates them. */
static int alloc_node_ports(alloc_ctx *c, json_t *spec)
{
	json_t *ports = json_object_get(spec, "ports"), *p;
	size_t i;

	if (!node_port_type(spec))
		return 0;
	json_array_foreach(ports, i, p) {
		json_int_t np = json_integer_value(json_object_get(p, "nodePort"));
		json_int_t port = json_integer_value(json_object_get(p, "port"));
		sk_error_t why = {0};
		uint32_t v = 0;

		if (np == 0) {
			json_t *q;
			size_t j;

			/* a port of the same number, before (given) or after (requested) */
			json_array_foreach(ports, j, q)
				if (j != i && json_integer_value(json_object_get(q, "port")) == port &&
				    json_integer_value(json_object_get(q, "nodePort")) > 0) {
					np = json_integer_value(json_object_get(q, "nodePort"));
					break;
				}
		}
		if (np == 0 && !allocates_node_ports(spec))
			continue;
		if (np == 0) {
			if (take_next(c, &c->s->ports, &v, &why) < 0)
				return sk_error_set(c->err, SK_EINTERNAL,
						    "Internal error occurred: failed to allocate a nodePort: %s",
						    why.msg);
			json_object_set_new(p, "nodePort", json_integer(v));
			continue;
		}
		if (np > 0 && np <= 65535 && take_static(c, &c->s->ports, (uint32_t)np, &why) == 0) {
			json_object_set_new(p, "nodePort", json_integer(np));
			continue;
		}
		if (why.code != SK_EINVALID && why.code != SK_EEXISTS) {
			*c->err = why;
			return -1;
		}
		{
			cleanup_free char *field = xasprintf("spec.ports[%zu].nodePort", i);

			cause(c, field, xasprintf("%lld", (long long)np), why.msg);
		}
		return -1;
	}
	return 0;
}

static int alloc_hc_node_port(alloc_ctx *c, json_t *spec)
{
	json_int_t hc = json_integer_value(json_object_get(spec, "healthCheckNodePort"));
	sk_error_t why = {0};
	uint32_t v;

	if (!needs_hc_node_port(spec))
		return 0;
	if (hc == 0) {
		if (take_next(c, &c->s->ports, &v, &why) < 0)
			return sk_error_set(c->err, SK_EINTERNAL,
					    "Internal error occurred: failed to allocate a HealthCheck NodePort %d: %s",
					    0, why.msg);
		json_object_set_new(spec, "healthCheckNodePort", json_integer(v));
		return 0;
	}
	if (hc > 0 && hc <= 65535 && take_static(c, &c->s->ports, (uint32_t)hc, &why) == 0)
		return 0;
	if (why.code != SK_EINVALID && why.code != SK_EEXISTS) {
		*c->err = why;
		return -1;
	}
	{
		cleanup_free char *msg = xasprintf("failed to allocate requested HealthCheck NodePort %lld: %s",
						   (long long)hc, why.msg);

		cause(c, "spec.healthCheckNodePort", xasprintf("%lld", (long long)hc), msg);
	}
	return -1;
}

static int headless_selectorless(json_t *spec)
{
	const char *ip = str_at(spec, "clusterIP");

	return ip && !strcmp(ip, "None") && !json_object_size(json_object_get(spec, "selector"));
}

/* upstream's initIPFamilyFields checks on a single-stack IPv4 cluster */
static int check_families(alloc_ctx *c, json_t *spec)
{
	const char *policy = str_at(spec, "ipFamilyPolicy");
	json_t *fam, *f;
	size_t i;

	if (is_type(spec, "ExternalName") || headless_selectorless(spec))
		return 0;
	if (policy && !strcmp(policy, "RequireDualStack")) {
		cause(c, "spec.ipFamilyPolicy", xasprintf("\"%s\"", policy),
		      "this cluster is not configured for dual-stack services");
		return -1;
	}
	fam = json_object_get(spec, "ipFamilies");
	json_array_foreach(fam, i, f) {
		const char *name = json_string_value(f);

		if (name && strcmp(name, "IPv4")) {
			cleanup_free char *field = xasprintf("spec.ipFamilies[%zu]", i);

			cause(c, field, xasprintf("\"%s\"", name), "not configured on this cluster");
			return -1;
		}
	}
	return 0;
}

static int svc_begin_write(sk_api *api, const sk_api_resource *r, json_t *obj, json_t *old, int dry_run, void **out,
			   json_t **causes, sk_error_t *err)
{
	json_t *spec = json_object_get(obj, "spec");
	held_set before = {0}, after = {0};
	alloc_ctx c = {.api = api, .s = api->svc, .dry_run = dry_run, .err = err};
	int rc = -1;

	*out = NULL;
	if (!api->svc || !json_is_object(spec))
		return 0;
	c.t = xzalloc(sizeof(*c.t));
	c.t->uid = xstrdup(svc_uid(obj) ? svc_uid(obj) : "");
	c.owner = owner_text(obj);
	if (old) {
		svc_held(api->svc, old, &before);
		c.before = &before;
	}
	if (check_families(&c, spec) < 0 || alloc_cluster_ip(&c, spec) < 0 || alloc_node_ports(&c, spec) < 0 ||
	    alloc_hc_node_port(&c, spec) < 0)
		goto out;
	svc_held(api->svc, obj, &after);
	for (size_t i = 0; i < before.n; i++)
		if (!held_has(&after, before.v[i].r, before.v[i].v))
			held_add(&c.t->release, before.v[i].r, before.v[i].v);
	if (dry_run)
		c.t->release.n = 0;
	rc = 0;
out:
	if (rc < 0) {
		txn_free(api, c.t, 0);
		*causes = c.causes;
	} else {
		*out = c.t;
	}
	held_release(&before);
	held_release(&after);
	free(c.owner);
	return rc;
}

static void svc_end_write(sk_api *api, const sk_api_resource *r, void *t, int ok) { txn_free(api, t, ok); }

static void svc_deleted(sk_api *api, const sk_api_resource *r, json_t *obj)
{
	held_set h = {0};

	if (!api->svc)
		return;
	svc_held(api->svc, obj, &h);
	for (size_t i = 0; i < h.n; i++)
		range_give(api, h.v[i].r, h.v[i].v, svc_uid(obj));
	held_release(&h);
}

/* ---- defaulting around the allocations (upstream's strategy) ---- */

/* upstream's normalizeClusterIPs and initIPFamilyFields for a single-stack
 * IPv4 cluster */
static void init_cluster_ips(json_t *spec)
{
	json_t *ips = json_object_get(spec, "clusterIPs");
	const char *ip = str_at(spec, "clusterIP");

	if (is_type(spec, "ExternalName"))
		return;
	if (ip && *ip && !json_array_size(ips))
		json_object_set_new(spec, "clusterIPs", json_pack("[s]", ip));
	else if ((!ip || !*ip) && json_is_string(json_array_get(ips, 0)))
		json_object_set(spec, "clusterIP", json_array_get(ips, 0));
	if (!json_string_value(json_object_get(spec, "ipFamilyPolicy")))
		json_object_set_new(spec, "ipFamilyPolicy", json_string("SingleStack"));
	if (!json_array_size(json_object_get(spec, "ipFamilies")))
		json_object_set_new(spec, "ipFamilies", json_pack("[s]", "IPv4"));
	/* headless without a selector may be dual-stack on any cluster: it takes no address */
	if (headless_selectorless(spec) && strcmp(str_at(spec, "ipFamilyPolicy"), "SingleStack") &&
	    json_array_size(json_object_get(spec, "ipFamilies")) == 1 &&
	    !strcmp(json_string_value(json_array_get(json_object_get(spec, "ipFamilies"), 0)) ?: "", "IPv4"))
		json_array_append_new(json_object_get(spec, "ipFamilies"), json_string("IPv6"));
}

static int svc_admit_create(sk_api *api, const sk_api_resource *r, json_t *obj, sk_error_t *err)
{
	json_t *spec = json_object_get(obj, "spec");

	/* status is written through /status: a create starts from the zero status */
	json_object_set_new(obj, "status", json_pack("{s:{}}", "loadBalancer"));
	if (json_is_object(spec))
		init_cluster_ips(spec);
	return 0;
}

static int same_node_ports(json_t *a, json_t *b)
{
	json_t *pa = json_object_get(a, "ports"), *pb = json_object_get(b, "ports");

	if (json_array_size(pa) != json_array_size(pb))
		return 0;
	for (size_t i = 0; i < json_array_size(pa); i++)
		if (json_integer_value(json_object_get(json_array_get(pa, i), "nodePort")) !=
		    json_integer_value(json_object_get(json_array_get(pb, i), "nodePort")))
			return 0;
	return 1;
}

/* upstream's patchAllocatedValues: what the client left out of an update
 * keeps its allocated value */
static void patch_allocated(json_t *spec, json_t *ospec)
{
	json_t *p;
	size_t i;

	if (!is_type(spec, "ExternalName") && !is_type(ospec, "ExternalName")) {
		const char *ip = str_at(spec, "clusterIP");

		if ((!ip || !*ip) && str_at(ospec, "clusterIP"))
			json_object_set(spec, "clusterIP", json_object_get(ospec, "clusterIP"));
		if (!json_array_size(json_object_get(spec, "clusterIPs")) &&
		    json_array_size(json_object_get(ospec, "clusterIPs")))
			json_object_set(spec, "clusterIPs", json_object_get(ospec, "clusterIPs"));
	}
	if (node_port_type(spec) && node_port_type(ospec)) {
		json_array_foreach(json_object_get(spec, "ports"), i, p) {
			const char *name = str_at(p, "name");
			json_t *q;
			size_t j;

			if (json_integer_value(json_object_get(p, "nodePort")))
				continue;
			json_array_foreach(json_object_get(ospec, "ports"), j, q) {
				const char *oname = str_at(q, "name");

				if (!strcmp(name ? name : "", oname ? oname : "") &&
				    json_integer_value(json_object_get(q, "nodePort"))) {
					json_object_set(p, "nodePort", json_object_get(q, "nodePort"));
					break;
				}
			}
		}
	}
	if (needs_hc_node_port(spec) && needs_hc_node_port(ospec) &&
	    !json_integer_value(json_object_get(spec, "healthCheckNodePort")) &&
	    json_integer_value(json_object_get(ospec, "healthCheckNodePort")))
		json_object_set(spec, "healthCheckNodePort", json_object_get(ospec, "healthCheckNodePort"));
}

/* upstream's dropTypeDependentFields: a type change drops what the new
 * type has no use for, when the client left it as it was */
static void drop_type_fields(json_t *spec, json_t *ospec)
{
	json_t *p;
	size_t i;

	if (is_type(spec, "ExternalName") && !is_type(ospec, "ExternalName")) {
		json_t *ips = json_object_get(spec, "clusterIPs");

		if (json_equal(json_object_get(spec, "clusterIP"), json_object_get(ospec, "clusterIP")) ||
		    !json_object_get(spec, "clusterIP"))
			json_object_del(spec, "clusterIP");
		if (!ips || json_equal(ips, json_object_get(ospec, "clusterIPs")))
			json_object_del(spec, "clusterIPs");
		if (json_equal(json_object_get(spec, "ipFamilies"), json_object_get(ospec, "ipFamilies")))
			json_object_del(spec, "ipFamilies");
		if (json_equal(json_object_get(spec, "ipFamilyPolicy"), json_object_get(ospec, "ipFamilyPolicy")))
			json_object_del(spec, "ipFamilyPolicy");
		if (json_equal(json_object_get(spec, "internalTrafficPolicy"),
			       json_object_get(ospec, "internalTrafficPolicy")))
			json_object_del(spec, "internalTrafficPolicy");
	}
	if (!node_port_type(spec) && node_port_type(ospec) && same_node_ports(spec, ospec))
		json_array_foreach(json_object_get(spec, "ports"), i, p)
			json_object_del(p, "nodePort");
	if (!needs_hc_node_port(spec) && needs_hc_node_port(ospec) &&
	    json_equal(json_object_get(spec, "healthCheckNodePort"), json_object_get(ospec, "healthCheckNodePort")))
		json_object_del(spec, "healthCheckNodePort");
	if (!node_port_type(spec) && node_port_type(ospec) &&
	    json_equal(json_object_get(spec, "externalTrafficPolicy"), json_object_get(ospec, "externalTrafficPolicy")))
		json_object_del(spec, "externalTrafficPolicy");
	if (!is_type(spec, "LoadBalancer") && is_type(ospec, "LoadBalancer") &&
	    json_equal(json_object_get(spec, "allocateLoadBalancerNodePorts"),
		       json_object_get(ospec, "allocateLoadBalancerNodePorts")))
		json_object_del(spec, "allocateLoadBalancerNodePorts");
}

static void svc_prepare_update(sk_api *api, const sk_api_resource *r, json_t *obj, json_t *old)
{
	json_t *spec = json_object_get(obj, "spec"), *ospec = json_object_get(old, "spec");

	if (!json_is_object(spec) || !json_is_object(ospec))
		return;
	drop_type_fields(spec, ospec);
	patch_allocated(spec, ospec);
	init_cluster_ips(spec);
}

static const sk_kube_field_labels service_fields = {
	.fields = (const char *const[]){"metadata.namespace", "metadata.name", "spec.clusterIP", "spec.type", NULL},
};

const sk_kind_ops sk__service_ops = {
	.patch_type = "Service",
	.printer = &sk_table_printer_service,
	.field_labels = &service_fields,
	.defaults = sk__defaults_service,
	.validate = sk__validate_service,
	.admit_create = svc_admit_create,
	.prepare_update = svc_prepare_update,
	.begin_write = svc_begin_write,
	.end_write = svc_end_write,
	.deleted = svc_deleted,
};

/* ---- repair ---- */

static void repair_range_list(sk_api *api, sk__svc_range *r, json_t *found)
{
	sk_store_list l = {0};

	if (sk_store_range(api->store, r->prefix, NULL, 0, 0, &l, NULL) < 0)
		return;
	for (size_t i = 0; i < l.n; i++) {
		cleanup_json json_t *o = NULL;
		const char *uid = owner_uid(l.items[i].value, l.items[i].len, &o);

		json_object_set_new(
			found, l.items[i].key,
			json_pack("{s:s, s:I}", "uid", uid ? uid : "", "rev", (json_int_t)l.items[i].mod_rev));
	}
	sk_store_list_release(&l);
}

/* A Warning Event of upstream's repair controllers about svc. */
static void repair_event(sk_api *api, sk_client **c, json_t *svc, int ip, const char *reason, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));

static void repair_event(sk_api *api, sk_client **c, json_t *svc, int ip, const char *reason, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (!*c)
		*c = sk_client_new_inproc(api);
	sk_event_record(*c, svc, "Warning", reason,
			ip ? "ipallocator-repair-controller" : "portallocator-repair-controller", NULL, "%s", msg);
}

/* upstream's checks of values outside the ranges: ClusterIPOutOfRange, PortOutOfRange */
static void repair_out_of_range(sk_api *api, sk_client **c, json_t *svc)
{
	sk__svc *s = api->svc;
	json_t *spec = json_object_get(svc, "spec"), *p;
	const char *ip = str_at(spec, "clusterIP");
	uint32_t v;
	size_t i;

	if (!is_type(spec, "ExternalName") && ip && sk_kube_ip4_parse(ip, &v, NULL) == 0 && !range_has(&s->ips, v))
		repair_event(
			api, c, svc, 1, "ClusterIPOutOfRange",
			"Cluster IP [IPv4]:%s is not within the configured Service CIDR %s; please recreate service",
			ip, s->ips.text);
	json_array_foreach(json_object_get(spec, "ports"), i, p) {
		json_int_t np = json_integer_value(json_object_get(p, "nodePort"));

		if (np > 0 && !range_has(&s->ports, (uint32_t)np))
			repair_event(api, c, svc, 0, "PortOutOfRange",
				     "Port %lld is not within the port range %s; please recreate service",
				     (long long)np, s->ports.text);
	}
}

int sk__svc_repair(sk_api *api, int *fixed, int *freed)
{
	sk__svc *s = api->svc;
	cleanup_json json_t *found = json_object(), *seen = json_object();
	sk_store_list l = {0};
	sk_error_t err = {0};
	sk_client *c = NULL;
	const char *key;
	json_t *v;
	void *tmp;

	*fixed = *freed = 0;
	if (!s)
		return 0;
	repair_range_list(api, &s->ips, found);
	repair_range_list(api, &s->ports, found);
	if (sk_store_range(api->store, SERVICES_PREFIX, NULL, 0, 0, &l, &err) < 0)
		return -1;
	for (size_t i = 0; i < l.n; i++) {
		cleanup_json json_t *svc = sk__obj_decode(l.items[i].value, l.items[i].len, l.items[i].mod_rev);
		cleanup_free char *owner = NULL;
		held_set h = {0};
		const char *uid = svc_uid(svc);

		if (!svc || !uid)
			continue;
		svc_held(s, svc, &h);
		owner = owner_text(svc);
		repair_out_of_range(api, &c, svc);
		for (size_t j = 0; j < h.n; j++) {
			cleanup_free char *k = range_key(h.v[j].r, h.v[j].v);
			const char *name = k + strlen(h.v[j].r->prefix);
			json_t *f = json_object_get(found, k);
			int ip = h.v[j].r->is_ip;
			sk_error_t e = {0};

			if (f && !strcmp(str_at(f, "uid"), uid)) {
				json_object_set_new(seen, k, json_true());
			} else if (f) {
				if (ip)
					repair_event(api, &c, svc, 1, "ClusterIPAlreadyAllocated",
						     "Cluster IP [IPv4]:%s was assigned to multiple services; please "
						     "recreate service",
						     name);
				else
					repair_event(
						api, &c, svc, 0, "PortAlreadyAllocated",
						"Port %s was assigned to multiple services; please recreate service",
						name);
				json_object_set_new(seen, k, json_true());
			} else if (range_take(api, h.v[j].r, h.v[j].v, owner, uid, &e) >= 0) {
				if (ip)
					repair_event(api, &c, svc, 1, "ClusterIPNotAllocated",
						     "Cluster IP [IPv4]:%s is not allocated; repairing", name);
				else
					repair_event(api, &c, svc, 0, "PortNotAllocated",
						     "Port %s is not allocated; repairing", name);
				json_object_set_new(seen, k, json_true());
				(*fixed)++;
			}
		}
		held_release(&h);
	}
	sk_store_list_release(&l);
	pthread_mutex_lock(&s->mu);
	json_object_foreach_safe(s->leaks, tmp, key, v)
		if (!json_object_get(found, key) || json_object_get(seen, key))
			json_object_del(s->leaks, key);
	json_object_foreach(found, key, v) {
		json_int_t n;

		if (json_object_get(seen, key))
			continue;
		n = json_integer_value(json_object_get(s->leaks, key)) + 1;
		if (n < LEAK_PASSES) {
			json_object_set_new(s->leaks, key, json_integer(n));
			continue;
		}
		if (sk_store_delete(api->store, key, json_integer_value(json_object_get(v, "rev")), NULL, NULL) >= 0)
			(*freed)++;
		json_object_del(s->leaks, key);
	}
	pthread_mutex_unlock(&s->mu);
	if (c)
		sk_client_free(c);
	range_sync(api, &s->ips);
	range_sync(api, &s->ports);
	return 0;
}

/* ---- settings, start and stop ---- */

static int parse_port_range(const char *text, uint32_t *lo, uint32_t *hi)
{
	char *end, *end2;
	unsigned long a = strtoul(text, &end, 10), b;

	if (end == text || *end != '-')
		return -1;
	b = strtoul(end + 1, &end2, 10);
	if (end2 == end + 1 || *end2 || a < 1 || b > 65535 || a > b)
		return -1;
	*lo = (uint32_t)a;
	*hi = (uint32_t)b;
	return 0;
}

static int check_domain(const char *d)
{
	size_t n = strlen(d);

	if (!n || n > 253 || d[0] == '.' || d[n - 1] == '.' || d[0] == '-')
		return -1;
	for (const char *p = d; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '-' || *p == '.'))
			return -1;
	return strstr(d, "..") ? -1 : 0;
}

static int svc_settings(const sk_api_options *o, sk__svc *s, sk_error_t *err)
{
	const char *cidr = o->service_cidr ? o->service_cidr : SK_API_DEFAULT_SERVICE_CIDR;
	const char *pods = o->cluster_cidr ? o->cluster_cidr : SK_API_DEFAULT_CLUSTER_CIDR;
	const char *npr = o->node_port_range ? o->node_port_range : SK_API_DEFAULT_NODE_PORT_RANGE;
	const char *domain = o->cluster_domain ? o->cluster_domain : SK_API_DEFAULT_CLUSTER_DOMAIN;
	const char *adv = o->advertise_address ? o->advertise_address : "127.0.0.1";
	sk_kube_cidr pc;
	uint32_t lo, hi, ip;

	if (sk_kube_cidr_parse(cidr, &s->cidr, err) < 0)
		return sk_error_wrap(err, "--service-cidr");
	if (s->cidr.prefix < 12)
		return sk_error_set(err, SK_EINVALID,
				    "--service-cidr %s: too large; for 32-bit addresses, the mask must be >= 12", cidr);
	if (s->cidr.prefix > 29)
		return sk_error_set(err, SK_EINVALID, "--service-cidr %s: too small; the mask must be <= 29", cidr);
	if (sk_kube_cidr_parse(pods, &pc, err) < 0)
		return sk_error_wrap(err, "--cluster-cidr");
	if (sk_kube_cidr_overlaps(&pc, &s->cidr))
		return sk_error_set(err, SK_EINVALID, "--cluster-cidr %s overlaps --service-cidr %s", pods, cidr);
	sk_kube_cidr_format(&pc, s->cluster_cidr);
	if (parse_port_range(npr, &lo, &hi) < 0)
		return sk_error_set(
			err, SK_EINVALID,
			"--service-node-port-range \"%s\": want FIRST-LAST, ports 1-65535 (e.g. 30000-32767)", npr);
	sk_kube_cidr_nth(&s->cidr, 1, &s->kubernetes_ip);
	if (o->cluster_dns) {
		if (sk_kube_ip4_parse(o->cluster_dns, &s->dns_ip, err) < 0)
			return sk_error_wrap(err, "--cluster-dns");
	} else {
		sk_kube_cidr_nth(&s->cidr, 10, &s->dns_ip);
	}
	if (!sk_kube_cidr_contains(&s->cidr, s->dns_ip) || s->dns_ip == s->cidr.addr ||
	    s->dns_ip == s->cidr.addr + (uint32_t)(sk_kube_cidr_size(&s->cidr) - 1) || s->dns_ip == s->kubernetes_ip)
		return sk_error_set(err, SK_EINVALID,
				    "--cluster-dns %s: want an address of --service-cidr %s other than its network, "
				    "broadcast and first (kubernetes) addresses",
				    o->cluster_dns ? o->cluster_dns : "", cidr);
	if (check_domain(domain) < 0)
		return sk_error_set(err, SK_EINVALID, "--cluster-domain \"%s\": want a DNS-1123 subdomain", domain);
	if (sk_kube_ip4_parse(adv, &ip, err) < 0)
		return sk_error_wrap(err, "--advertise-address");
	if (ip == 0)
		return sk_error_set(err, SK_EINVALID, "--advertise-address %s: want the address clients reach", adv);
	snprintf(s->domain, sizeof(s->domain), "%s", domain);
	snprintf(s->advertise, sizeof(s->advertise), "%s", adv);
	s->advertise_port = o->advertise_port ? o->advertise_port : 6443;
	{
		char text[SK_KUBE_CIDR_LEN];
		uint64_t size = sk_kube_cidr_size(&s->cidr);

		range_init(&s->ips, IPS_PREFIX, 1, s->cidr.addr + 1, (uint32_t)(size - 2), lower_band(size, 16, 256),
			   sk_kube_cidr_format(&s->cidr, text));
		snprintf(text, sizeof(text), "%u-%u", lo, hi);
		range_init(&s->ports, PORTS_PREFIX, 0, lo, hi - lo + 1, lower_band(hi - lo + 1, 32, 128), text);
	}
	return 0;
}

int sk_api_check_network(const sk_api_options *o, sk_error_t *err)
{
	sk__svc s = {0};

	if (svc_settings(o, &s, err) < 0)
		return -1;
	range_release_mem(&s.ips);
	range_release_mem(&s.ports);
	return 0;
}

static void *reconcile_main(void *arg)
{
	sk_api *api = arg;
	sk__svc *s = api->svc;
	int tick = 0;

	pthread_mutex_lock(&s->mu);
	while (!s->stop) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += RECONCILE_SECS;
		pthread_cond_timedwait(&s->cv, &s->mu, &ts);
		if (s->stop || sk__api_stopping(api))
			break;
		pthread_mutex_unlock(&s->mu);
		{
			int fixed, freed;

			/* upstream's endpoint reconciler: this server stays in default/kubernetes */
			sk__svc_reconcile(api);
			if (++tick % REPAIR_TICKS == 0 && sk__svc_repair(api, &fixed, &freed) == 0 && (fixed || freed))
				sk_info("service", "repaired allocations: %d restored, %d leaked freed", fixed, freed);
		}
		pthread_mutex_lock(&s->mu);
	}
	pthread_mutex_unlock(&s->mu);
	return NULL;
}

int sk__svc_start(sk_api *api, sk_error_t *err)
{
	sk__svc *s = xzalloc(sizeof(*s));
	int fixed, freed;

	if (svc_settings(&api->opts, s, err) < 0) {
		free(s);
		return -1;
	}
	s->leaks = json_object();
	pthread_mutex_init(&s->mu, NULL);
	pthread_cond_init(&s->cv, NULL);
	api->svc = s;
	if (sk__svc_repair(api, &fixed, &freed) == 0 && fixed)
		sk_info("service", "repaired allocations: %d restored", fixed);
	sk__svc_reconcile(api);
	if (pthread_create(&s->thread, NULL, reconcile_main, api) == 0)
		s->running = 1;
	return 0;
}

void sk__svc_stop(sk_api *api)
{
	sk__svc *s = api->svc;

	if (!s)
		return;
	pthread_mutex_lock(&s->mu);
	s->stop = 1;
	pthread_cond_broadcast(&s->cv);
	pthread_mutex_unlock(&s->mu);
	if (s->running)
		pthread_join(s->thread, NULL);
	sk__svc_drop_lease(api);
	api->svc = NULL;
	range_release_mem(&s->ips);
	range_release_mem(&s->ports);
	json_decref(s->leaks);
	pthread_cond_destroy(&s->cv);
	pthread_mutex_destroy(&s->mu);
	free(s);
}
