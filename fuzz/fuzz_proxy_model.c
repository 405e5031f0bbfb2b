/* The Service dataplane's rules from arbitrary objects (src/agent/proxy-rules.c
 * and proxy-policy.c): the input is JSON {"services": [...], "slices": [...],
 * "nodes": [...], "policies": [...], "pods": [...], "namespaces": [...]};
 * the model, its full script and the partial scripts to and from an empty
 * model must come out without a memory error whatever the objects hold. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "agent/proxy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const sk_proxy_config cfg = {
		.table = "skiff-fuzz",
		.bridge = "skfuzz",
		.node_name = "n1",
		.pod_cidr = "10.42.1.0/24",
		.gateway = "10.42.1.1",
		.cluster_cidr = "10.42.0.0/16",
		.service_cidr = "10.43.0.0/16",
		.cluster_dns = "10.43.0.10",
	};
	json_t *j = json_loadb((const char *)data, size, 0, NULL);
	sk_proxy_input in = {0}, none = {0};
	json_t *existing = json_pack("{s:{s:b}, s:{s:b}}", "chains", "stale", 1, "sets", "x", 1);
	json_t *m, *m2, *empty;
	char *s;

	if (!j) {
		json_decref(existing);
		return 0;
	}
	in.services = json_object_get(j, "services");
	in.slices = json_object_get(j, "slices");
	in.nodes = json_object_get(j, "nodes");
	in.policies = json_object_get(j, "policies");
	in.pods = json_object_get(j, "pods");
	in.namespaces = json_object_get(j, "namespaces");
	m = sk_proxy_model(&cfg, &in, NULL);
	m2 = sk_proxy_model(&cfg, &in, m);
	empty = sk_proxy_model(&cfg, &none, NULL);
	free(sk_proxy_script(&cfg, NULL, m, NULL));
	free(sk_proxy_script(&cfg, NULL, m, existing));
	s = sk_proxy_script(&cfg, empty, m2, NULL);
	free(s);
	free(sk_proxy_script(&cfg, m2, empty, NULL));
	json_decref(m);
	json_decref(m2);
	json_decref(empty);
	json_decref(existing);
	json_decref(j);
	return 0;
}
