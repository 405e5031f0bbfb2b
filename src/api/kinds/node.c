/* The kinds of node.k8s.io/v1. */
#include "api/api-int.h"
#include "api/table.h"
#include "api/validate.h"

static const sk_kind_ops runtimeclass_ops = {
	.patch_type = "Object",
	.printer = &sk_table_printer_runtimeclass,
	.validate = sk__validate_runtimeclass,
};

const sk_api_resource sk__kinds_node[] = {
	{
		.group = "node.k8s.io",
		.version = "v1",
		.kind = "RuntimeClass",
		.plural = "runtimeclasses",
		.singular = "runtimeclass",
		.namespaced = 0,
		.ops = &runtimeclass_ops,
	},
};
const size_t sk__nkinds_node = sizeof(sk__kinds_node) / sizeof(sk__kinds_node[0]);
