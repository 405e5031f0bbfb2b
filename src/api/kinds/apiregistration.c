/* The kinds of apiregistration.k8s.io/v1. */
#include "api/api-int.h"
#include "api/apiservice.h"

const sk_api_resource sk__kinds_apiregistration[] = {
	{
		.group = "apiregistration.k8s.io",
		.version = "v1",
		.kind = "APIService",
		.plural = "apiservices",
		.singular = "apiservice",
		.namespaced = 0,
		.categories = "api-extensions",
		.subresources = SK_SUB_STATUS,
		.has_spec = 1,
		.ops = &sk__apiservice_ops,
	},
};
const size_t sk__nkinds_apiregistration = sizeof(sk__kinds_apiregistration) / sizeof(sk__kinds_apiregistration[0]);
