/* The node-local DNS server's query path (src/agent/dns-zone.c): any bytes
 * as a UDP and a TCP message against a zone with every record kind; the
 * same bytes as the host's resolv.conf of a pod's DNS configuration
 * (src/agent/resolv.c); and, when they are JSON, as the Services and
 * EndpointSlices a zone is built from. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "agent/dns-zone.h"
#include "agent/resolv.h"

static const char *SERVICES =
	"[{\"metadata\":{\"name\":\"web\",\"namespace\":\"default\"},\"spec\":{\"clusterIP\":\"10.43.0.5\","
	"\"ports\":[{\"name\":\"http\",\"port\":80}]}},"
	"{\"metadata\":{\"name\":\"six\",\"namespace\":\"default\"},\"spec\":{\"clusterIPs\":[\"fd00::5\"]}},"
	"{\"metadata\":{\"name\":\"db\",\"namespace\":\"default\"},\"spec\":{\"clusterIP\":\"None\"}},"
	"{\"metadata\":{\"name\":\"ext\",\"namespace\":\"default\"},\"spec\":{\"type\":\"ExternalName\","
	"\"externalName\":\"example.com\"}},"
	"{\"metadata\":{\"name\":\"loop\",\"namespace\":\"default\"},\"spec\":{\"type\":\"ExternalName\","
	"\"externalName\":\"loop.default.svc.cluster.local\"}}]";
static const char *SLICES =
	"[{\"metadata\":{\"name\":\"db-1\",\"namespace\":\"default\",\"labels\":{\"kubernetes.io/service-name\":"
	"\"db\"}},\"addressType\":\"IPv4\",\"ports\":[{\"name\":\"pg\",\"port\":5432}],\"endpoints\":["
	"{\"addresses\":[\"10.42.0.7\"],\"hostname\":\"db-0\"},{\"addresses\":[\"10.42.0.8\"]}]}]";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static sk_dns_zone *z;
	struct sk_dns_reply rep;
	struct sk_pod_dns dns;
	char *text;
	json_t *pod;

	if (!z) {
		json_t *s = json_loads(SERVICES, 0, NULL), *e = json_loads(SLICES, 0, NULL);

		z = sk_dns_zone_build("cluster.local", "10.43.0.10", s, e);
		json_decref(s);
		json_decref(e);
	}
	for (int tcp = 0; tcp < 2; tcp++) {
		sk_dns_zone_serve(z, data, size, tcp, &rep);
		if (rep.action == SK_DNS_FORWARD && rep.partial) {
			uint8_t *wire = NULL;
			size_t len;

			if (sk_dns_encode(rep.query, ldns_pkt_clone(rep.partial), tcp, &wire, &len) == 0)
				free(wire);
		}
		sk_dns_reply_release(&rep);
	}
	text = malloc(size + 1);
	memcpy(text, data, size);
	text[size] = '\0';
	{
		json_t *objs = json_loads(text, JSON_DECODE_ANY, NULL);

		if (objs) {
			sk_dns_zone_free(sk_dns_zone_build("cluster.local", NULL, objs, objs));
			json_decref(objs);
		}
	}
	pod = json_pack("{s:{s:s}, s:{s:s, s:{s:[s], s:[{s:s, s:s}]}}}", "metadata", "namespace", "default", "spec",
			"dnsPolicy", size % 2 ? "Default" : "ClusterFirst", "dnsConfig", "searches", "a.b", "options",
			"name", "ndots", "value", "2");
	sk_pod_dns_config(pod, "10.43.0.10", "cluster.local", text, &dns);
	sk_pod_dns_release(&dns);
	json_decref(pod);
	free(text);
	return 0;
}
