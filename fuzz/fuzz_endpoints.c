/* The endpoint controllers' pure logic (ctrl/endpointutil.h) on arbitrary
 * JSON: {"svc": Service, "pods": [Pod], "nodes": {name: Node}, "slices":
 * [EndpointSlice], "endpoints": Endpoints}, any member missing or of any
 * type. The informers hand the controllers objects the API server
 * validated, but a reconcile must never crash or loop on odd ones. The
 * endpoints member also goes to the agent's reading of default/kubernetes
 * (client/servers.h). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "client/servers.h"
#include "ctrl/endpointutil.h"
#include "util/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_t *in = json_loadb((const char *)data, size, JSON_DECODE_ANY, NULL);
	json_t *svc, *pods, *nodes, *slices, *ep, *want;
	sk_eps_plan plan;
	int missing = 0, skipped, invalid;
	char *t;

	if (!in)
		return 0;
	svc = json_object_get(in, "svc");
	pods = json_object_get(in, "pods");
	nodes = json_object_get(in, "nodes");
	slices = json_object_get(in, "slices");
	ep = json_object_get(in, "endpoints");
	sk_eps_reconcile(svc, pods, nodes, slices, 3, &plan, &missing);
	sk_eps_plan_trigger_time(&plan, "2024-01-01T00:00:00Z");
	sk_eps_plan_release(&plan);
	want = sk_ep_desired(svc, pods, ep, NULL);
	json_decref(want);
	t = sk_ep_trigger_time(svc, pods);
	free(t);
	sk_eps_mirror_reconcile(ep, slices, 2, &plan, &skipped, &invalid);
	sk_eps_plan_release(&plan);
	json_decref(sk_ep_repack(json_object_get(ep, "subsets")));
	json_decref(sk_endpoints_server_urls(ep));
	json_decref(in);
	return 0;
}
