/* The cluster's network settings as the agent needs them for DNS, and the
 * node-local DNS server's start and stop (docs/NETWORKING.md). */
#include <string.h>
#include <time.h>

#include "agent/agent-int.h"
#include "agent/dns.h"
#include "kube/cidr.h"
#include "util/util.h"

#define NETCONF_PATH "/api/v1/namespaces/kube-system/configmaps/skiff-network"
#define NETCONF_WAIT_MS 1000
#define DEFAULT_CLUSTER_DNS "10.43.0.10"
#define DEFAULT_CLUSTER_DOMAIN "cluster.local"

char *sk__ag_gateway(const char *cidr)
{
	char buf[SK_KUBE_IP4_LEN];
	sk_kube_cidr c;
	sk_error_t err = {0};
	uint32_t ip;

	if (!cidr || sk_kube_cidr_parse(cidr, &c, &err) < 0 || c.prefix > 30 || sk_kube_cidr_nth(&c, 1, &ip) < 0)
		return NULL;
	return xstrdup(sk_kube_ip4_format(ip, buf));
}

/* The ConfigMap's data, waiting up to NETCONF_WAIT_MS for the server to
 * write it; NULL when it does not appear. */
static json_t *read_configmap(struct sk_agent *a)
{
	int64_t until = sk_mono_ns() + (int64_t)NETCONF_WAIT_MS * 1000000;

	for (;;) {
		sk_error_t err = {0};
		json_t *cm = sk_client_get(a->c, NETCONF_PATH, &err);

		if (cm) {
			json_t *data = json_incref(json_object_get(cm, "data"));

			json_decref(cm);
			return data;
		}
		if (sk_mono_ns() > until) {
			sk_info("agent", "no ConfigMap kube-system/skiff-network (%s): cluster DNS %s, domain %s",
				err.msg, DEFAULT_CLUSTER_DNS, DEFAULT_CLUSTER_DOMAIN);
			return NULL;
		}
		nanosleep(&(struct timespec){.tv_nsec = 200000000}, NULL);
	}
}

void sk__ag_netconf_load(struct sk_agent *a)
{
	cleanup_json json_t *data = NULL;

	if (!a->o.cluster_dns || !a->o.cluster_domain)
		data = read_configmap(a);
	a->cluster_dns = xstrdup(a->o.cluster_dns   ?: json_string_value(json_object_get(data, "clusterDNS"))
							       ?: DEFAULT_CLUSTER_DNS);
	a->cluster_domain = xstrdup(a->o.cluster_domain ?: json_string_value(json_object_get(data, "clusterDomain"))
								  ?: DEFAULT_CLUSTER_DOMAIN);
	a->resolv_conf = xstrdup(a->o.resolv_conf ?: "/etc/resolv.conf");
}

void sk__ag_dns_start(struct sk_agent *a)
{
	cleanup_free char *gw = sk__ag_gateway(a->pod_cidr);
	sk_dns_options o = {0};
	sk_error_t err = {0};

	if (a->o.no_dns)
		return;
	if (!gw) {
		sk_warn("agent", "pod CIDR %s: no IPv4 gateway address to serve DNS on", a->pod_cidr);
		return;
	}
	o.listen = gw;
	o.domain = a->cluster_domain;
	o.dns_ip = a->cluster_dns;
	o.resolv_conf = a->resolv_conf;
	a->dns = sk_dns_start(a->c, &o, &err);
	if (!a->dns)
		sk_warn("agent", "cluster DNS: %s", err.msg);
}

void sk__ag_dns_stop(struct sk_agent *a) { sk_dns_stop(steal_ptr(&a->dns)); }
