/* Routes between nodes, as flannel's host-gw backend: for every other Node
 * with a spec.podCIDR and an InternalIP, `ip route replace <podCIDR> via
 * <InternalIP> proto 152` in the agent's network namespace. The routes this
 * agent made are kept in memory and in <run_dir>/routes.json (so a
 * restarted agent finds those of its last run); only those are replaced or
 * deleted, never a route of another agent sharing the namespace. A Node
 * whose InternalIP is an address of this namespace (agents sharing one, as
 * in tests) needs no route. Reconciled on every Node change and every 30 s
 * (a route someone deleted comes back). */
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

struct sk_routes {
	struct sk_agent *a;
	sk_informer *nodes;
	pthread_t thread;
	bool started;
	pthread_mutex_t mu;
	pthread_cond_t cond;
	bool dirty, stop;
	json_t *have;   /* podCIDR -> via: the routes made (routes thread only) */
	json_t *failed; /* podCIDR -> via last refused, so the warning is not repeated */
	char *state_path;
	bool forwarding;
};

static void on_node(void *ud, int ev, json_t *old, json_t *obj)
{
	struct sk_routes *r = ud;

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

/* podCIDR -> InternalIP of every other Node that needs a route (new object). */
static json_t *desired(struct sk_routes *r)
{
	cleanup_json json_t *nodes = sk_informer_list(r->nodes, NULL);
	json_t *want = json_object(), *n;
	struct ifaddrs *ifs = NULL;
	cleanup_free char *own = NULL;
	size_t i;

	pthread_mutex_lock(&r->a->mu);
	own = r->a->pod_cidr ? xstrdup(r->a->pod_cidr) : NULL;
	pthread_mutex_unlock(&r->a->mu);
	if (getifaddrs(&ifs) < 0)
		ifs = NULL;
	json_array_foreach(nodes, i, n) {
		const char *name = sk_kube_jstr(n, "metadata.name"), *cidr = sk_kube_jstr(n, "spec.podCIDR");
		const char *via = internal_ip(n);
		char text[32];
		sk_cidr c;
		uint32_t ip;

		if (!name || !strcmp(name, r->a->node_name) || !cidr || !via || sk_cidr_parse(cidr, &c) < 0 ||
		    sk_cidr_parse_ip(via, &ip) < 0 || is_local(ifs, ip))
			continue;
		sk_cidr_format(&c, text, sizeof(text));
		if (own && !strcmp(own, text))
			continue;
		json_object_set_new(want, text, json_string(via));
	}
	if (ifs)
		freeifaddrs(ifs);
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

static int route_replace(const char *cidr, const char *via, sk_error_t *err)
{
	const char *args[] = {"route", "replace", cidr, "via", via, "proto", SK_ROUTE_PROTO, NULL};

	return sk_ip_run(args, NULL, err);
}

static void route_del(const char *cidr, const char *via)
{
	const char *args[] = {"route", "del", cidr, "via", via, "proto", SK_ROUTE_PROTO, NULL};
	sk_error_t err = {0};

	if (sk_ip_run(args, NULL, &err) < 0 && !strstr(err.msg, "No such process"))
		sk_warn("agent", "routes: %s", err.msg);
	else
		sk_info("agent", "routes: removed %s via %s", cidr, via);
}

static void save(struct sk_routes *r)
{
	cleanup_free char *text = json_dumps(r->have, JSON_SORT_KEYS);

	if (!text || sk_write_file(r->state_path, text, strlen(text), 0600) < 0)
		sk_warn("agent", "routes: writing \"%s\": %s", r->state_path, strerror(errno));
}

static void reconcile(struct sk_routes *r, bool resync)
{
	cleanup_json json_t *want = desired(r);
	const char *cidr;
	json_t *via;
	void *tmp;
	bool changed = false;

	json_object_foreach_safe(r->have, tmp, cidr, via) {
		json_t *w = json_object_get(want, cidr);

		if (w && json_equal(w, via))
			continue;
		route_del(cidr, json_string_value(via));
		json_object_del(r->have, cidr);
		changed = true;
	}
	json_object_foreach(want, cidr, via) {
		const char *ip = json_string_value(via);
		sk_error_t err = {0};

		if (json_object_get(r->have, cidr) && !resync)
			continue;
		enable_forwarding(r);
		if (route_replace(cidr, ip, &err) < 0) {
			if (!json_equal(json_object_get(r->failed, cidr), via))
				sk_warn("agent",
					"routes: %s via %s: %s (the node is not on a directly connected network)", cidr,
					ip, err.msg);
			json_object_set(r->failed, cidr, via);
			continue;
		}
		json_object_del(r->failed, cidr);
		if (!json_object_get(r->have, cidr)) {
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

struct sk_routes *sk__routes_start(struct sk_agent *a, sk_error_t *err)
{
	struct sk_routes *r = xzalloc(sizeof(*r));
	json_t *old;

	r->a = a;
	pthread_mutex_init(&r->mu, NULL);
	pthread_cond_init(&r->cond, NULL);
	r->state_path = xasprintf("%s/routes.json", a->run_dir);
	old = json_load_file(r->state_path, 0, NULL);
	r->have = json_is_object(old) ? old : json_object();
	if (!json_is_object(old))
		json_decref(old);
	r->failed = json_object();
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
		json_object_foreach(r->have, cidr, via)
			route_del(cidr, json_string_value(via));
		unlink(r->state_path);
	}
	json_decref(r->have);
	json_decref(r->failed);
	free(r->state_path);
	pthread_cond_destroy(&r->cond);
	pthread_mutex_destroy(&r->mu);
	free(r);
}
