/* The kinds of scheduling.x-k8s.io/v1alpha1 (gang scheduling). */
#include "api/api-int.h"
#include "api/table.h"
#include "api/validate.h"

static const sk_kind_ops podgroup_ops = {
	.flags = SK_KIND_GENERATION,
	.printer = &sk_table_printer_podgroup,
	.validate = sk__validate_podgroup,
	.admit_create = sk__admit_empty_status,
};

const sk_api_resource sk__kinds_podgroup[] = {
	{
		.group = "scheduling.x-k8s.io",
		.version = "v1alpha1",
		.kind = "PodGroup",
		.plural = "podgroups",
		.singular = "podgroup",
		.namespaced = 1,
		.short_names = "pg",
		.subresources = SK_SUB_STATUS,
		.has_spec = 1,
		.ops = &podgroup_ops,
	},
};
const size_t sk__nkinds_podgroup = sizeof(sk__kinds_podgroup) / sizeof(sk__kinds_podgroup[0]);
