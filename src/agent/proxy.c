/* The agent's service proxy: informers of Services, EndpointSlices, Nodes
 * and the cluster's network settings, and one thread that turns their
 * caches into the node's table (proxy-rules.c, proxy-nft.c). Changes mark
 * the proxy dirty; the thread syncs at most once per min_sync_ms, so a burst
 * of changes is one transaction, and does a full sync at start, every
 * full_sync_s and after a failed transaction. */
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>

#include "agent/proxy.h"
#include "client/informer.h"
#include "kube/cidr.h"
#include "kube/object.h"
#include "util/util.h"

/* docs/NETWORKING.md's defaults, used while kube-system/skiff-network is
 * missing and no flag says otherwise. */
#define DEFAULT_CLUSTER_CIDR "10.42.0.0/16"
#define DEFAULT_SERVICE_CIDR "10.43.0.0/16"
#define DEFAULT_CLUSTER_DNS "10.43.0.10"
#define RETRY_MS 1000

enum { INF_SERVICES, INF_SLICES, INF_NODES, INF_CONFIG, INF_POLICIES, INF_PODS, INF_NAMESPACES, INF_N };

static const struct {
	const char *path, *api_version, *kind;
} collections[INF_N] = {
	{"/api/v1/services", "v1", "Service"},
	{"/apis/discovery.k8s.io/v1/endpointslices", "discovery.k8s.io/v1", "EndpointSlice"},
	{"/api/v1/nodes", "v1", "Node"},
	{"/api/v1/namespaces/kube-system/configmaps", "v1", "ConfigMap"},
	{"/apis/networking.k8s.io/v1/networkpolicies", "networking.k8s.io/v1", "NetworkPolicy"},
	{"/api/v1/pods", "v1", "Pod"},
	{"/api/v1/namespaces", "v1", "Namespace"},
};

struct sk_proxy {
	sk_client *c;
	sk_proxy_options o;
	char *bridge, *node_name, *pod_cidr, *gateway, *table;
	char *cluster_cidr, *service_cidr, *cluster_dns; /* flags, or NULL */
	sk_informer *inf[INF_N];
	bool inf_started[INF_N];
	sk_proxy_dp *dp;
	json_t *model; /* the last one made (its fragments are reused) */
	pthread_mutex_t mu;
	pthread_cond_t cond;
	bool dirty, stop; /* under mu */
	/* a NetworkPolicy was seen: from then on Pods and Namespaces matter */
	atomic_bool policies_seen;
	pthread_t thread;
	bool thread_started;
};

static void mark_dirty(sk_proxy *p)
{
	pthread_mutex_lock(&p->mu);
	p->dirty = true;
	pthread_cond_signal(&p->cond);
	pthread_mutex_unlock(&p->mu);
}

static void on_change(void *ud, int ev, json_t *old, json_t *obj) { mark_dirty(ud); }

static void on_policy(void *ud, int ev, json_t *old, json_t *obj)
{
	sk_proxy *p = ud;

	atomic_store(&p->policies_seen, true);
	mark_dirty(p);
}

/* Pods change all the time (status): they make a sync only where some
 * NetworkPolicy may select them. */
static void on_pod_or_namespace(void *ud, int ev, json_t *old, json_t *obj)
{
	sk_proxy *p = ud;

	if (atomic_load(&p->policies_seen))
		mark_dirty(p);
}

/* The first address of cidr: the bridge's gateway (docs/NETWORKING.md). */
static char *gateway_of(const char *cidr)
{
	char buf[SK_KUBE_IP4_LEN];
	sk_error_t err = {0};
	sk_kube_cidr c;
	uint32_t ip;

	if (sk_kube_cidr_parse(cidr, &c, &err) < 0 || sk_kube_cidr_nth(&c, 1, &ip) < 0)
		return NULL;
	return xstrdup(sk_kube_ip4_format(ip, buf));
}

/* Starts the informers that are not running yet (a collection the server
 * does not serve yet is tried again at the next sync). */
static void start_informers(sk_proxy *p)
{
	for (int i = 0; i < INF_N; i++) {
		sk_error_t err = {0};

		if (p->inf_started[i])
			continue;
		if (sk_informer_start(p->inf[i], &err) == 0)
			p->inf_started[i] = true;
		else
			sk_debug("proxy", "%s: %s (tried again later)", collections[i].path, err.msg);
	}
}

static const char *setting(const char *flag, json_t *cm, const char *key, const char *def)
{
	const char *v = sk_kube_jstr(json_object_get(cm, "data"), key);

	return flag ? flag : v && *v ? v : def;
}

static int sync_once(sk_proxy *p, bool full)
{
	cleanup_json json_t *cm = sk_informer_get(p->inf[INF_CONFIG], "kube-system", "skiff-network");
	cleanup_json json_t *svcs = sk_informer_list(p->inf[INF_SERVICES], NULL);
	cleanup_json json_t *slices = sk_informer_list(p->inf[INF_SLICES], NULL);
	cleanup_json json_t *nodes = sk_informer_list(p->inf[INF_NODES], NULL);
	cleanup_json json_t *policies = sk_informer_list(p->inf[INF_POLICIES], NULL);
	/* pods and namespaces matter only to policies */
	cleanup_json json_t *pods = json_array_size(policies) ? sk_informer_list(p->inf[INF_PODS], NULL) : NULL;
	cleanup_json json_t *nss = json_array_size(policies) ? sk_informer_list(p->inf[INF_NAMESPACES], NULL) : NULL;
	sk_proxy_input in = {svcs, slices, nodes, policies, pods, nss};
	json_t *model;
	sk_proxy_config cfg = {
		.table = p->table,
		.bridge = p->bridge,
		.node_name = p->node_name,
		.pod_cidr = p->pod_cidr,
		.gateway = p->gateway,
		.cluster_cidr = setting(p->cluster_cidr, cm, "clusterCIDR", DEFAULT_CLUSTER_CIDR),
		.service_cidr = setting(p->service_cidr, cm, "serviceCIDR", DEFAULT_SERVICE_CIDR),
		.cluster_dns = setting(p->cluster_dns, cm, "clusterDNS", DEFAULT_CLUSTER_DNS),
	};
	sk_error_t err = {0};
	int64_t t0 = sk_mono_ns();

	model = sk_proxy_model(&cfg, &in, p->model);
	json_decref(p->model);
	p->model = model;
	if (sk_proxy_dp_apply(p->dp, &cfg, model, full, &err) < 0) {
		sk_warn("proxy", "%s sync: %s", full ? "full" : "partial", err.msg);
		return -1;
	}
	sk_debug("proxy", "%s sync of %zu services in %.1f ms", full ? "full" : "partial", json_array_size(svcs),
		 (double)(sk_mono_ns() - t0) / 1e6);
	return 0;
}

static void *sync_loop(void *arg)
{
	sk_proxy *p = arg;
	int64_t min_ns = (int64_t)p->o.min_sync_ms * 1000000, full_ns = (int64_t)p->o.full_sync_s * 1000000000;
	int64_t last = 0, last_full = 0, next_try = 0;
	bool need_full = true;

	pthread_mutex_lock(&p->mu);
	while (!p->stop) {
		int64_t now = sk_mono_ns(), due;
		bool full;

		due = need_full ? next_try : p->dirty ? last + min_ns : last_full + full_ns;
		if (now < due) {
			struct timespec ts;

			sk_deadline_after_ms(&ts, (due - now) / 1000000 + 1);
			pthread_cond_timedwait(&p->cond, &p->mu, &ts);
			continue;
		}
		full = need_full || now >= last_full + full_ns;
		p->dirty = false;
		pthread_mutex_unlock(&p->mu);
		start_informers(p);
		if (sync_once(p, full) == 0) {
			need_full = false;
			if (full)
				last_full = sk_mono_ns();
		} else {
			need_full = true;
			next_try = sk_mono_ns() + (int64_t)RETRY_MS * 1000000;
		}
		last = sk_mono_ns();
		pthread_mutex_lock(&p->mu);
		/* a collection not served yet: look again soon */
		for (int i = 0; i < INF_N && !need_full; i++)
			if (!p->inf_started[i] && !p->dirty) {
				p->dirty = true;
				last = sk_mono_ns() + (int64_t)RETRY_MS * 1000000;
			}
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

sk_proxy *sk_proxy_start(sk_client *c, const sk_proxy_options *o, sk_error_t *err)
{
	sk_proxy *p;

	if (!o->bridge || !o->node_name || !o->pod_cidr)
		return sk_error_set(err, SK_EINVALID, "proxy: bridge, node name and pod CIDR are required"), NULL;
	p = xzalloc(sizeof(*p));
	p->c = c;
	p->o = *o;
	p->o.min_sync_ms = o->min_sync_ms > 0 ? o->min_sync_ms : 10;
	p->o.full_sync_s = o->full_sync_s > 0 ? o->full_sync_s : 300;
	p->bridge = xstrdup(o->bridge);
	p->node_name = xstrdup(o->node_name);
	p->pod_cidr = xstrdup(o->pod_cidr);
	p->gateway = gateway_of(o->pod_cidr);
	p->table = sk_proxy_table_name(o->bridge);
	p->cluster_cidr = o->cluster_cidr ? xstrdup(o->cluster_cidr) : NULL;
	p->service_cidr = o->service_cidr ? xstrdup(o->service_cidr) : NULL;
	p->cluster_dns = o->cluster_dns ? xstrdup(o->cluster_dns) : NULL;
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->cond, NULL);
	p->dp = sk_proxy_dp_new(p->table, err);
	if (!p->dp || !p->gateway) {
		if (p->dp)
			sk_error_set(err, SK_EINVALID, "proxy: pod CIDR \"%s\" is not an IPv4 CIDR", o->pod_cidr);
		sk_proxy_stop(p);
		return NULL;
	}
	for (int i = 0; i < INF_N; i++) {
		p->inf[i] = sk_informer_new(c, collections[i].path, collections[i].api_version, collections[i].kind);
		sk_informer_on(p->inf[i],
			       i == INF_POLICIES                      ? on_policy
			       : i == INF_PODS || i == INF_NAMESPACES ? on_pod_or_namespace
								      : on_change,
			       p);
	}
	/* the first sync sees complete caches: an agent restarting over
	 * running pods does not drop their Services for a moment */
	start_informers(p);
	p->thread_started = pthread_create(&p->thread, NULL, sync_loop, p) == 0;
	if (!p->thread_started) {
		sk_error_set(err, SK_EINTERNAL, "proxy: cannot start the sync thread");
		sk_proxy_stop(p);
		return NULL;
	}
	sk_info("proxy", "programming nftables table ip %s", p->table);
	return p;
}

void sk_proxy_stop(sk_proxy *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->mu);
	p->stop = true;
	pthread_cond_broadcast(&p->cond);
	pthread_mutex_unlock(&p->mu);
	if (p->thread_started)
		pthread_join(p->thread, NULL);
	for (int i = 0; i < INF_N; i++)
		sk_informer_cancel(p->inf[i]);
	for (int i = 0; i < INF_N; i++)
		sk_informer_stop(p->inf[i]);
	for (int i = 0; i < INF_N; i++)
		sk_informer_free(p->inf[i]);
	sk_proxy_dp_free(p->dp);
	json_decref(p->model);
	pthread_cond_destroy(&p->cond);
	pthread_mutex_destroy(&p->mu);
	free(p->bridge);
	free(p->node_name);
	free(p->pod_cidr);
	free(p->gateway);
	free(p->table);
	free(p->cluster_cidr);
	free(p->service_cidr);
	free(p->cluster_dns);
	free(p);
}
