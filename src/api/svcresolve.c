/* A Service reference resolved to one ready endpoint (upstream's
 * ResolveEndpoint), shared by the admission webhooks and the aggregator. */
#include <stdlib.h>
#include <string.h>

#include "api/api-int.h"
#include "util/util.h"

/* A ready address of the Service's EndpointSlices for the port named pname:
 * 1 with ip/port, or 0. */
static int slice_address(sk_api *api, const char *ns, const char *svc, const char *pname, char **ip, json_int_t *tport)
{
	cleanup_free char *prefix = xasprintf("/registry/endpointslices/%s/", ns);
	sk_store_list l = {0};
	sk_error_t err = {0};
	int found = 0;

	if (sk_store_range(api->store, prefix, NULL, 0, 0, &l, &err) < 0)
		return 0;
	for (size_t i = 0; i < l.n && !found; i++) {
		cleanup_json json_t *sl = sk__obj_decode(l.items[i].value, l.items[i].len, l.items[i].mod_rev);
		const char *owner = json_string_value(json_object_get(
			json_object_get(json_object_get(sl, "metadata"), "labels"), "kubernetes.io/service-name"));
		json_t *p, *ep;
		size_t j, k;

		if (!owner || strcmp(owner, svc))
			continue;
		json_array_foreach(json_object_get(sl, "ports"), j, p) {
			const char *n = json_string_value(json_object_get(p, "name"));

			if (strcmp(n ? n : "", pname))
				continue;
			json_array_foreach(json_object_get(sl, "endpoints"), k, ep) {
				json_t *ready = json_object_get(json_object_get(ep, "conditions"), "ready");
				const char *a = json_string_value(json_array_get(json_object_get(ep, "addresses"), 0));

				if (!a || json_is_false(ready))
					continue;
				*ip = xstrdup(a);
				*tport = json_integer_value(json_object_get(p, "port"));
				found = 1;
				break;
			}
			break;
		}
	}
	sk_store_list_release(&l);
	return found;
}

/* The ready address of a Service's port (upstream's ResolveEndpoint):
 * 0 with ip/port, or -1 with *why. */
int sk__resolve_service(sk_api *api, const char *ns, const char *name, json_int_t port, char **ip, json_int_t *tport,
			char **why)
{
	cleanup_json json_t *svc = sk__stored_core(api, "services", ns, name);
	cleanup_json json_t *eps = NULL;
	const char *pname = NULL;
	json_t *p, *ss;
	size_t i, j;

	if (!svc) {
		*why = xasprintf("service \"%s\" not found", name);
		return -1;
	}
	json_array_foreach(json_object_get(json_object_get(svc, "spec"), "ports"), i, p)
		if (json_integer_value(json_object_get(p, "port")) == port) {
			pname = json_string_value(json_object_get(p, "name"));
			break;
		}
	if (i == json_array_size(json_object_get(json_object_get(svc, "spec"), "ports"))) {
		*why = xasprintf("no service port %lld found for service \"%s\"", (long long)port, name);
		return -1;
	}
	if (!pname)
		pname = "";
	eps = sk__stored_core(api, "endpoints", ns, name);
	json_array_foreach(json_object_get(eps, "subsets"), i, ss) {
		json_t *addrs = json_object_get(ss, "addresses");

		json_array_foreach(json_object_get(ss, "ports"), j, p) {
			const char *n = json_string_value(json_object_get(p, "name"));

			if (strcmp(n ? n : "", pname) || !json_array_size(addrs))
				continue;
			*ip = xstrdup(json_string_value(json_object_get(
					      json_array_get(addrs, (size_t)rand() % json_array_size(addrs)), "ip"))
					      ?: "");
			*tport = json_integer_value(json_object_get(p, "port"));
			return 0;
		}
	}
	if (!eps && slice_address(api, ns, name, pname, ip, tport))
		return 0;
	*why = xasprintf("no endpoints available for service \"%s\"", name);
	return -1;
}
