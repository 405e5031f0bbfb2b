/* The kinds of node.k8s.io/v1. */
#include "api/api-int.h"

const sk_api_resource sk__kinds_node[] = {
	{
		.group = "node.k8s.io",
		.version = "v1",
		.kind = "RuntimeClass",
		.plural = "runtimeclasses",
		.singular = "runtimeclass",
		.namespaced = 0,
	},
};
const size_t sk__nkinds_node = sizeof(sk__kinds_node) / sizeof(sk__kinds_node[0]);
