/* Routes between nodes, as flannel's host-gw backend: for every other Node
 * with a spec.podCIDR and an InternalIP, `ip route replace <podCIDR> via
 * <InternalIP> proto 152` in the agent's network namespace. The routes this
 * agent made are kept in memory and in <run_dir>/routes.json (so a
 * restarted agent finds those of its last run); only those are replaced or
 * deleted, never a route of another agent sharing the namespace. A Node
 * whose InternalIP is an address of this namespace (agents sharing one, as
 * in tests) needs no route. Reconciled on every change of what the routes
 * depend on and every 30 s (a route someone deleted comes back).
 *
 * A Node whose InternalIP is not on a directly connected network (`ip route
 * get` names a gateway) is reached through VXLAN instead, as flannel's vxlan
 * backend: the kernel's vxlan device skvx<hash of the bridge> (VNI 1, UDP
 * 4789, the podCIDR's network address /32 on it) whose MAC the Node
 * publishes in the annotation skiff.dev/vxlan-vtep-mac; per remote node a
 * permanent neighbour (its VTEP address -> its MAC), an fdb entry (its MAC
 * -> its InternalIP) and `ip route replace <podCIDR> via <its VTEP> dev
 * skvx… onlink proto 152`. An agent makes its device when it has such a peer
 * or when any peer published one (adjacency is each side's view), and
 * deletes it when it stops idle. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <string.h>
#include <time.h>

#include "agent/agent-int.h"
#include "client/informer.h"
#include "kube/cidr.h"
#include "runtime/iproute.h"
#include "util/util.h"

#define RESYNC_S 30
#define VTEP_ANNOTATION "skiff.dev/vxlan-vtep-mac"
#define VXLAN_VNI "1"
#define VXLAN_PORT "4789"
#define VXLAN_MTU "1450"

struct sk_routes {
	struct sk_agent *a;
	sk_informer *nodes;
	pthread_t thread;
	bool started;
	pthread_mutex_t mu;
	pthread_cond_t cond;
	bool dirty, stop;
	json_t *have;     /* podCIDR -> {via[, dst, mac]}: the routes made (routes thread only) */
	json_t *failed;   /* podCIDR -> the route last refused, so the warning is not repeated */
	json_t *adjacent; /* InternalIP -> directly connected (true/false), until the next resync */
	char *state_path;
	bool forwarding;
	char vx[16];     /* the VXLAN device's name */
	char *vx_mac;    /* its MAC once it exists */
	bool vx_failed;  /* making it failed: not tried again */
	char *published; /* the MAC last written to the Node's annotation */
};

static const char *internal_ip(json_t *node);

static bool same(json_t *a, json_t *b, const char *path)
{
	return json_equal(sk_kube_jget(a, path), sk_kube_jget(b, path)) ||
	       (!sk_kube_jget(a, path) && !sk_kube_jget(b, path));
}

/* Only what the routes depend on wakes the thread (not every heartbeat). */
static void on_node(void *ud, int ev, json_t *old, json_t *obj)
{
	struct sk_routes *r = ud;
	json_t *ann_a = sk_kube_jget(old, "metadata.annotations"), *ann_b = sk_kube_jget(obj, "metadata.annotations");

	if (ev == SK_INF_UPDATE && same(old, obj, "spec.podCIDR") &&
	    !strcmp(internal_ip(old) ?: "", internal_ip(obj) ?: "") &&
	    json_equal(json_object_get(ann_a, VTEP_ANNOTATION) ?: json_null(),
		       json_object_get(ann_b, VTEP_ANNOTATION) ?: json_null()))
		return;
	pthread_mutex_lock(&r->mu);
	r->dirty = true;
	pthread_cond_signal(&r->cond);
	pthread_mutex_unlock(&r->mu);
}

static const char *internal_ip(json_t *node)
{
	json_t *addrs = sk_kube_jget(node, "status.addresses"), *ad;
	size_t i;

	json_array_foreach(addrs, i, ad)
		if (!strcmp(sk_kube_jstr(ad, "type") ?: "", "InternalIP") && sk_kube_jstr(ad, "address"))
			return sk_kube_jstr(ad, "address");
	return NULL;
}

static bool is_local(struct ifaddrs *ifs, uint32_t ip)
{
	for (struct ifaddrs *i = ifs; i; i = i->ifa_next)
		if (i->ifa_addr && i->ifa_addr->sa_family == AF_INET &&
		    ntohl(((struct sockaddr_in *)i->ifa_addr)->sin_addr.s_addr) == ip)
			return true;
	return false;
}

/* Whether ip is on a directly connected network: `ip route get` names no
 * gateway. Cached until the next resync. */
static bool is_adjacent(struct sk_routes *r, const char *ip)
{
	const char *args[] = {"-j", "route", "get", ip, NULL};
	cleanup_free char *out = NULL;
	cleanup_json json_t *j = NULL;
	json_t *cached = json_object_get(r->adjacent, ip);
	bool adj = true;
	sk_error_t err = {0};

	if (cached)
		return json_is_true(cached);
	if (sk_ip_run(args, &out, &err) == 0 && (j = json_loads(out, 0, NULL)))
		adj = !json_object_get(json_array_get(j, 0), "gateway");
	json_object_set_new(r->adjacent, ip, json_boolean(adj));
	return adj;
}

static int mac_of(const char *dev, char **mac, sk_error_t *err)
{
	const char *args[] = {"-j", "link", "show", dev, NULL};
	cleanup_free char *out = NULL;
	cleanup_json json_t *j = NULL;
	const char *m;

	if (sk_ip_run(args, &out, err) < 0)
		return -1;
	j = json_loads(out, 0, NULL);
	m = json_string_value(json_object_get(json_array_get(j, 0), "address"));
	if (!m)
		return sk_error_set(err, SK_EINTERNAL, "%s: no link address", dev);
	*mac = xstrdup(m);
	return 0;
}

static void publish_mac(struct sk_routes *r)
{
	cleanup_free char *path = xasprintf("/api/v1/nodes/%s", r->a->node_name);
	cleanup_json json_t *patch = json_pack("{s:{s:{s:s}}}", "metadata", "annotations", VTEP_ANNOTATION, r->vx_mac);
	cleanup_json json_t *out = NULL;
	sk_error_t err = {0};

	if (r->published && !strcmp(r->published, r->vx_mac))
		return;
	out = sk_client_patch(r->a->c, path, SK_PATCH_MERGE, patch, &err);
	if (!out) {
		sk_warn("agent", "routes: publishing the VXLAN endpoint: %s", err.msg);
		return;
	}
	free(r->published);
	r->published = xstrdup(r->vx_mac);
}

/* Makes (or finds, after a restart) the VXLAN device; 0 once it exists. */
static int ensure_vtep(struct sk_routes *r, const sk_kube_cidr *own)
{
	char addr[24], ip[16];
	sk_error_t err = {0};
	const char *add[] = {"link",  "add",         r->vx,     "type",     "vxlan",      "id", VXLAN_VNI,
			     "local", r->a->node_ip, "dstport", VXLAN_PORT, "nolearning", NULL};
	const char *up[] = {"link", "set", r->vx, "mtu", VXLAN_MTU, "up", NULL};
	const char *ad[] = {"addr", "replace", addr, "dev", r->vx, NULL};

	if (r->vx_mac) {
		publish_mac(r);
		return 0;
	}
	if (r->vx_failed)
		return -1;
	sk_kube_ip4_format(own->addr, ip);
	snprintf(addr, sizeof(addr), "%s/32", ip);
	if ((sk_ip_run(add, NULL, &err) < 0 && !strstr(err.msg, "File exists")) || sk_ip_run(up, NULL, &err) < 0 ||
	    sk_ip_run(ad, NULL, &err) < 0 || mac_of(r->vx, &r->vx_mac, &err) < 0) {
		sk_warn("agent", "routes: VXLAN device %s: %s", r->vx, err.msg);
		r->vx_failed = true;
		return -1;
	}
	sk_info("agent", "routes: VXLAN device %s (VNI %s, port %s, %s, MAC %s)", r->vx, VXLAN_VNI, VXLAN_PORT, addr,
		r->vx_mac);
	publish_mac(r);
	return 0;
}

struct peer {
	const char *name, *ip, *mac;
	char cidr[32];
	sk_kube_cidr net;
};

/* podCIDR -> the route to it ({via} directly, {via: its VTEP, dst, mac}
 * through VXLAN) for every other Node that needs one (new object). */
static json_t *desired(struct sk_routes *r)
{
	cleanup_json json_t *nodes = sk_informer_list(r->nodes, NULL);
	json_t *want = json_object(), *n;
	struct ifaddrs *ifs = NULL;
	cleanup_free char *own = NULL;
	struct peer *peers = xzalloc((json_array_size(nodes) + 1) * sizeof(*peers));
	size_t i, np = 0;
	bool need_vtep = false;
	sk_kube_cidr own_net;

	pthread_mutex_lock(&r->a->mu);
	own = r->a->pod_cidr ? xstrdup(r->a->pod_cidr) : NULL;
	pthread_mutex_unlock(&r->a->mu);
	if (getifaddrs(&ifs) < 0)
		ifs = NULL;
	json_array_foreach(nodes, i, n) {
		struct peer *p = &peers[np];
		const char *cidr = sk_kube_jstr(n, "spec.podCIDR");
		uint32_t ip;

		p->name = sk_kube_jstr(n, "metadata.name");
		p->ip = internal_ip(n);
		p->mac = json_string_value(json_object_get(sk_kube_jget(n, "metadata.annotations"), VTEP_ANNOTATION));
		if (!p->name || !strcmp(p->name, r->a->node_name) || !cidr || !p->ip ||
		    sk_kube_cidr_parse(cidr, &p->net, NULL) < 0 || sk_kube_ip4_parse(p->ip, &ip, NULL) < 0 ||
		    is_local(ifs, ip))
			continue;
		sk_kube_cidr_format(&p->net, p->cidr);
		if (own && !strcmp(own, p->cidr))
			continue;
		need_vtep = need_vtep || p->mac || !is_adjacent(r, p->ip);
		np++;
	}
	if (ifs)
		freeifaddrs(ifs);
	if (need_vtep && own && sk_kube_cidr_parse(own, &own_net, NULL) == 0)
		ensure_vtep(r, &own_net);
	for (i = 0; i < np; i++) {
		struct peer *p = &peers[i];
		char vtep[16];

		if (is_adjacent(r, p->ip)) {
			json_object_set_new(want, p->cidr, json_pack("{s:s}", "via", p->ip));
			continue;
		}
		if (!r->vx_mac || !p->mac) {
			sk_debug("agent", "routes: node %s (%s) is not directly connected; no VXLAN endpoint yet",
				 p->name, p->ip);
			continue;
		}
		sk_kube_ip4_format(p->net.addr, vtep);
		json_object_set_new(want, p->cidr,
				    json_pack("{s:s, s:s, s:s}", "via", vtep, "dst", p->ip, "mac", p->mac));
	}
	free(peers);
	return want;
}

static int write_sysctl(const char *path, const char *v)
{
	cleanup_close int fd = open(path, O_WRONLY | O_CLOEXEC);
	size_t n = strlen(v);

	return fd < 0 || write(fd, v, n) != (ssize_t)n ? -1 : 0;
}

/* As flannel, forwarding is switched on where it is off (a fresh network
 * namespace): the node forwards between its pods and the other nodes. */
static void enable_forwarding(struct sk_routes *r)
{
	cleanup_free char *cur = NULL;

	if (r->forwarding)
		return;
	r->forwarding = true;
	cur = sk_read_file("/proc/sys/net/ipv4/ip_forward", NULL);
	if (cur && cur[0] == '1')
		return;
	if (write_sysctl("/proc/sys/net/ipv4/ip_forward", "1\n") < 0)
		sk_warn("agent", "routes: cannot enable net.ipv4.ip_forward: %s", strerror(errno));
	else
		sk_info("agent", "routes: enabled net.ipv4.ip_forward in the node's network namespace");
}

static int route_add(struct sk_routes *r, const char *cidr, json_t *rt, sk_error_t *err)
{
	const char *via = sk_kube_jstr(rt, "via"), *dst = sk_kube_jstr(rt, "dst"), *mac = sk_kube_jstr(rt, "mac");
	const char *direct[] = {"route", "replace", cidr, "via", via, "proto", SK_ROUTE_PROTO, NULL};
	const char *neigh[] = {"neigh", "replace", via, "lladdr", mac, "dev", r->vx, "nud", "permanent", NULL};
	const char *fdb[] = {"fdb", "replace", mac, "dev", r->vx, "dst", dst, "self", "permanent", NULL};
	const char *encap[] = {"route", "replace", cidr,    "via",          via, "dev",
			       r->vx,   "onlink",  "proto", SK_ROUTE_PROTO, NULL};

	if (!mac)
		return sk_ip_run(direct, NULL, err);
	if (sk_ip_run(neigh, NULL, err) < 0 || sk_bridge_run(fdb, NULL, err) < 0)
		return -1;
	return sk_ip_run(encap, NULL, err);
}

static void route_del(struct sk_routes *r, const char *cidr, json_t *rt)
{
	const char *via = sk_kube_jstr(rt, "via") ?: "", *dst = sk_kube_jstr(rt, "dst"), *mac = sk_kube_jstr(rt, "mac");
	const char *args[] = {"route", "del", cidr, "via", via, "proto", SK_ROUTE_PROTO, NULL};
	const char *neigh[] = {"neigh", "del", via, "dev", r->vx, NULL};
	const char *fdb[] = {"fdb", "del", mac, "dev", r->vx, "dst", dst, "self", NULL};
	sk_error_t err = {0};

	if (sk_ip_run(args, NULL, &err) < 0 && !strstr(err.msg, "No such process"))
		sk_warn("agent", "routes: %s", err.msg);
	else
		sk_info("agent", "routes: removed %s via %s", cidr, via);
	if (mac && dst) {
		sk_ip_run(neigh, NULL, &err);
		sk_bridge_run(fdb, NULL, &err);
	}
}

static void save(struct sk_routes *r)
{
	cleanup_free char *text = json_dumps(r->have, JSON_SORT_KEYS);

	if (!text || sk_write_file(r->state_path, text, strlen(text), 0600) < 0)
		sk_warn("agent", "routes: writing \"%s\": %s", r->state_path, strerror(errno));
}

static void reconcile(struct sk_routes *r, bool resync)
{
	cleanup_json json_t *want = NULL;
	const char *cidr;
	json_t *via;
	void *tmp;
	bool changed = false;

	if (resync)
		json_object_clear(r->adjacent);
	want = desired(r);
	json_object_foreach_safe(r->have, tmp, cidr, via) {
		json_t *w = json_object_get(want, cidr);

		if (w && json_equal(w, via))
			continue;
		route_del(r, cidr, via);
		json_object_del(r->have, cidr);
		changed = true;
	}
	json_object_foreach(want, cidr, via) {
		const char *ip = sk_kube_jstr(via, "via");
		sk_error_t err = {0};

		if (json_object_get(r->have, cidr) && !resync)
			continue;
		enable_forwarding(r);
		if (route_add(r, cidr, via, &err) < 0) {
			if (!json_equal(json_object_get(r->failed, cidr), via))
				sk_warn("agent",
					"routes: %s via %s: %s (the node is not on a directly connected network)", cidr,
					ip, err.msg);
			json_object_set(r->failed, cidr, via);
			continue;
		}
		json_object_del(r->failed, cidr);
		if (!json_object_get(r->have, cidr)) {
			if (sk_kube_jstr(via, "dst"))
				sk_info("agent", "routes: %s via %s dev %s (VXLAN to %s)", cidr, ip, r->vx,
					sk_kube_jstr(via, "dst"));
			else
				sk_info("agent", "routes: %s via %s", cidr, ip);
			json_object_set(r->have, cidr, via);
			changed = true;
		}
	}
	if (changed)
		save(r);
}

static void *routes_loop(void *arg)
{
	struct sk_routes *r = arg;
	int64_t next_resync = sk_mono_ns() + (int64_t)RESYNC_S * 1000000000;

	pthread_mutex_lock(&r->mu);
	while (!r->stop) {
		struct timespec ts;
		bool resync = sk_mono_ns() >= next_resync;

		if (r->dirty || resync) {
			r->dirty = false;
			pthread_mutex_unlock(&r->mu);
			reconcile(r, resync);
			if (resync)
				next_resync = sk_mono_ns() + (int64_t)RESYNC_S * 1000000000;
			pthread_mutex_lock(&r->mu);
			continue;
		}
		sk_deadline_after_ms(&ts, 1000);
		pthread_cond_timedwait(&r->cond, &r->mu, &ts);
	}
	pthread_mutex_unlock(&r->mu);
	return NULL;
}

static uint32_t fnv1a(const char *s)
{
	uint32_t h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

struct sk_routes *sk__routes_start(struct sk_agent *a, sk_error_t *err)
{
	struct sk_routes *r = xzalloc(sizeof(*r));
	const char *cidr;
	json_t *old, *via;

	r->a = a;
	pthread_mutex_init(&r->mu, NULL);
	pthread_cond_init(&r->cond, NULL);
	r->state_path = xasprintf("%s/routes.json", a->run_dir);
	old = json_load_file(r->state_path, 0, NULL);
	r->have = json_object();
	json_object_foreach(old, cidr, via)
		if (json_is_object(via) && sk_kube_jstr(via, "via"))
			json_object_set(r->have, cidr, via);
	json_decref(old);
	r->failed = json_object();
	r->adjacent = json_object();
	snprintf(r->vx, sizeof(r->vx), "skvx%08x", fnv1a(a->bridge));
	r->nodes = sk_informer_new(a->c, "/api/v1/nodes", "v1", "Node");
	sk_informer_on(r->nodes, on_node, r);
	if (sk_informer_start(r->nodes, err) < 0) {
		sk_error_wrap(err, "routes: watching nodes");
		sk__routes_stop(r, false);
		return NULL;
	}
	r->dirty = true;
	r->started = pthread_create(&r->thread, NULL, routes_loop, r) == 0;
	return r;
}

void sk__routes_stop(struct sk_routes *r, bool remove)
{
	const char *cidr;
	json_t *via;

	if (!r)
		return;
	pthread_mutex_lock(&r->mu);
	r->stop = true;
	pthread_cond_signal(&r->cond);
	pthread_mutex_unlock(&r->mu);
	if (r->started)
		pthread_join(r->thread, NULL);
	sk_informer_free(r->nodes);
	if (remove) {
		const char *del[] = {"link", "del", r->vx, NULL};
		sk_error_t err = {0};

		json_object_foreach(r->have, cidr, via)
			route_del(r, cidr, via);
		unlink(r->state_path);
		if (r->vx_mac && sk_ip_run(del, NULL, &err) == 0)
			sk_info("agent", "routes: removed VXLAN device %s", r->vx);
	}
	json_decref(r->have);
	json_decref(r->failed);
	json_decref(r->adjacent);
	free(r->vx_mac);
	free(r->published);
	free(r->state_path);
	pthread_cond_destroy(&r->cond);
	pthread_mutex_destroy(&r->mu);
	free(r);
}
