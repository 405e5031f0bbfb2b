/* The kinds of storage.k8s.io/v1. */
#include "api/api-int.h"

const sk_api_resource sk__kinds_storage[] = {
	{
		.group = "storage.k8s.io",
		.version = "v1",
		.kind = "StorageClass",
		.plural = "storageclasses",
		.singular = "storageclass",
		.namespaced = 0,
		.short_names = "sc",
	},
};
const size_t sk__nkinds_storage = sizeof(sk__kinds_storage) / sizeof(sk__kinds_storage[0]);
