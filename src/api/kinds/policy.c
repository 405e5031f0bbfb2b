/* The kinds of policy/v1. */
#include "api/api-int.h"
#include "api/table.h"
#include "api/validate.h"

/* PrepareForCreate: the zero status in the form Go serializes it. */
static int pdb_admit_create(sk_api *api, const sk_api_resource *r, json_t *obj, sk_error_t *err)
{
	(void)api;
	(void)r;
	(void)err;
	json_object_set_new(obj, "status",
			    json_pack("{s:i, s:i, s:i, s:i}", "disruptionsAllowed", 0, "currentHealthy", 0,
				      "desiredHealthy", 0, "expectedPods", 0));
	return 0;
}

static const sk_kind_ops pdb_ops = {
	.patch_type = "WithConditions",
	.flags = SK_KIND_GENERATION,
	.printer = &sk_table_printer_poddisruptionbudget,
	.validate = sk__validate_poddisruptionbudget,
	.admit_create = pdb_admit_create,
};

const sk_api_resource sk__kinds_policy[] = {
	{
		.group = "policy",
		.version = "v1",
		.kind = "PodDisruptionBudget",
		.plural = "poddisruptionbudgets",
		.singular = "poddisruptionbudget",
		.namespaced = 1,
		.short_names = "pdb",
		.subresources = SK_SUB_STATUS,
		.has_spec = 1,
		.ops = &pdb_ops,
	},
};
const size_t sk__nkinds_policy = sizeof(sk__kinds_policy) / sizeof(sk__kinds_policy[0]);
