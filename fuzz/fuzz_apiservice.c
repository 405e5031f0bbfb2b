/* Fuzzes what an aggregated API server sends the API server and what a
 * client writes as an APIService: the discovery APIResourceList an
 * availability check reads (src/api/aggproxy.c) becomes well-formed
 * aggregated-discovery resources, and validation (src/api/apiservice.c)
 * answers any object with causes or none, never a crash. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "api/api-int.h"
#include "api/apiservice.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_t *in = json_loadb((const char *)data, size, JSON_DECODE_ANY, NULL), *out, *r;
	const sk_api_resource *k = sk__resource_find("apiregistration.k8s.io", "v1", "apiservices");
	size_t i;

	if (!in)
		return 0;
	out = sk__agg_discovery_resources(in);
	json_array_foreach(out, i, r) {
		if (!json_string_value(json_object_get(r, "resource")) ||
		    !json_string_value(json_object_get(json_object_get(r, "responseKind"), "kind")))
			abort();
	}
	json_decref(out);
	if (json_is_object(in)) {
		json_t *c;

		k->ops->defaults(k, in);
		c = sk__apiservice_validate(k, in, NULL, 0);
		json_decref(c);
		c = sk__apiservice_validate(k, in, in, 1);
		json_decref(c);
	}
	json_decref(in);
	return 0;
}
