/* The kinds of apiextensions.k8s.io/v1. */
#include "api/api-int.h"
#include "api/crd.h"

const sk_api_resource sk__kinds_apiextensions[] = {
	{
		.group = "apiextensions.k8s.io",
		.version = "v1",
		.kind = "CustomResourceDefinition",
		.plural = "customresourcedefinitions",
		.singular = "customresourcedefinition",
		.namespaced = 0,
		.short_names = "crd,crds",
		.categories = "api-extensions",
		.subresources = SK_SUB_STATUS,
		.has_spec = 1,
		.store = "apiextensions.k8s.io/customresourcedefinitions",
		.ops = &sk__crd_ops,
	},
};
const size_t sk__nkinds_apiextensions = sizeof(sk__kinds_apiextensions) / sizeof(sk__kinds_apiextensions[0]);
