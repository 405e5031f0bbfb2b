/* The kinds of coordination.k8s.io/v1. */
#include "api/api-int.h"
#include "api/table.h"
#include "api/validate.h"

static const sk_kind_ops lease_ops = {
	.patch_type = "Object",
	.flags = SK_KIND_CREATE_ON_UPDATE,
	.printer = &sk_table_printer_lease,
	.validate = sk__validate_lease,
};

const sk_api_resource sk__kinds_coordination[] = {
	{
		.group = "coordination.k8s.io",
		.version = "v1",
		.kind = "Lease",
		.plural = "leases",
		.singular = "lease",
		.namespaced = 1,
		.ops = &lease_ops,
	},
};
const size_t sk__nkinds_coordination = sizeof(sk__kinds_coordination) / sizeof(sk__kinds_coordination[0]);
