/* The kinds of coordination.k8s.io/v1. */
#include "api/api-int.h"

const sk_api_resource sk__kinds_coordination[] = {
	{
		.group = "coordination.k8s.io",
		.version = "v1",
		.kind = "Lease",
		.plural = "leases",
		.singular = "lease",
		.namespaced = 1,
	},
};
const size_t sk__nkinds_coordination = sizeof(sk__kinds_coordination) / sizeof(sk__kinds_coordination[0]);
