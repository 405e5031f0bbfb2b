/* The kinds of discovery.k8s.io/v1. */
#include "api/api-int.h"
#include "api/defaults.h"
#include "api/table.h"
#include "api/validate.h"
#include "util/util.h"

/* The fields of o outside metadata, plus its labels: what upstream's
 * strategy compares to bump the generation (an EndpointSlice has no spec). */
static json_t *generation_view(json_t *o)
{
	json_t *v = json_copy(o);
	json_t *labels = json_object_get(json_object_get(o, "metadata"), "labels");

	json_object_del(v, "metadata");
	json_object_del(v, "apiVersion");
	json_object_del(v, "kind");
	if (labels)
		json_object_set(v, "metadata.labels", labels);
	return v;
}

static void eps_prepare_update(sk_api *api, const sk_api_resource *r, json_t *obj, json_t *old)
{
	cleanup_json json_t *a = generation_view(obj);
	cleanup_json json_t *b = generation_view(old);
	json_t *meta = json_object_get(obj, "metadata");
	json_int_t g = json_integer_value(json_object_get(json_object_get(old, "metadata"), "generation"));

	(void)api;
	(void)r;
	if (json_is_object(meta) && !json_equal(a, b))
		json_object_set_new(meta, "generation", json_integer(g + 1));
}

static const sk_kind_ops endpointslice_ops = {
	.patch_type = "Object",
	.flags = SK_KIND_GENERATION,
	.printer = &sk_table_printer_endpointslice,
	.defaults = sk__defaults_endpointslice,
	.validate = sk__validate_endpointslice,
	.prepare_update = eps_prepare_update,
};

const sk_api_resource sk__kinds_discovery[] = {
	{
		.group = "discovery.k8s.io",
		.version = "v1",
		.kind = "EndpointSlice",
		.plural = "endpointslices",
		.singular = "endpointslice",
		.namespaced = 1,
		.ops = &endpointslice_ops,
	},
};
const size_t sk__nkinds_discovery = sizeof(sk__kinds_discovery) / sizeof(sk__kinds_discovery[0]);
