/* The kinds of scheduling.k8s.io/v1. */
#include "api/api-int.h"
#include "api/defaults.h"
#include "api/table.h"
#include "api/validate.h"

static const sk_kind_ops priorityclass_ops = {
	.patch_type = "Object",
	.printer = &sk_table_printer_priorityclass,
	.defaults = sk__defaults_priorityclass,
	.validate = sk__validate_priorityclass,
};

const sk_api_resource sk__kinds_scheduling[] = {
	{
		.group = "scheduling.k8s.io",
		.version = "v1",
		.kind = "PriorityClass",
		.plural = "priorityclasses",
		.singular = "priorityclass",
		.namespaced = 0,
		.short_names = "pc",
		.ops = &priorityclass_ops,
	},
};
const size_t sk__nkinds_scheduling = sizeof(sk__kinds_scheduling) / sizeof(sk__kinds_scheduling[0]);
