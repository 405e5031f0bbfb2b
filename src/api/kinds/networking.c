/* The kinds of networking.k8s.io/v1. */
#include "api/api-int.h"
#include "api/defaults.h"
#include "api/table.h"
#include "api/validate.h"

static const sk_kind_ops networkpolicy_ops = {
	.patch_type = "Object",
	.flags = SK_KIND_GENERATION,
	.printer = &sk_table_printer_networkpolicy,
	.defaults = sk__defaults_networkpolicy,
	.validate = sk__validate_networkpolicy,
};

const sk_api_resource sk__kinds_networking[] = {
	{
		.group = "networking.k8s.io",
		.version = "v1",
		.kind = "NetworkPolicy",
		.plural = "networkpolicies",
		.singular = "networkpolicy",
		.namespaced = 1,
		.short_names = "netpol",
		.has_spec = 1,
		.ops = &networkpolicy_ops,
	},
};
const size_t sk__nkinds_networking = sizeof(sk__kinds_networking) / sizeof(sk__kinds_networking[0]);
