/* The kinds of networking.k8s.io/v1. */
#include "api/api-int.h"

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
	},
};
const size_t sk__nkinds_networking = sizeof(sk__kinds_networking) / sizeof(sk__kinds_networking[0]);
