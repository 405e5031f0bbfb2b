/* A pod's resolv.conf and host domain as kubelet makes them
 * (pkg/kubelet/network/dns/dns.go GetPodDNS, GeneratePodHostNameAndDomain). */
#ifndef SK_AGENT_RESOLV_H
#define SK_AGENT_RESOLV_H

#include <jansson.h>

/* JSON arrays of strings, in resolv.conf order. */
struct sk_pod_dns {
	json_t *servers, *searches, *options;
	char *warning; /* a DNSConfigForming event's message when limits cut something, or NULL */
};

/* The DNS configuration of pod by its dnsPolicy: ClusterFirst (the default;
 * a hostNetwork pod's is Default) and ClusterFirstWithHostNet give
 * nameserver cluster_dns, the searches <ns>.svc.<domain> svc.<domain>
 * <domain> and the host's, options ndots:5 (without a cluster_dns, Default);
 * Default the host's resolv.conf (text host_resolv; its loopback nameservers
 * dropped for a pod with its own network namespace); None nothing. The
 * pod's dnsConfig is merged in, then kubelet's limits (3 nameservers; 32
 * search paths of at most 253 characters, 2048 in all) apply. Release with
 * sk_pod_dns_release. */
void sk_pod_dns_config(json_t *pod, const char *cluster_dns, const char *cluster_domain, const char *host_resolv,
		       struct sk_pod_dns *out);
void sk_pod_dns_release(struct sk_pod_dns *d);
/* "<subdomain>.<ns>.svc.<domain>" for a pod with spec.subdomain, else NULL; malloc'd. */
char *sk_pod_host_domain(json_t *pod, const char *cluster_domain);

#endif
