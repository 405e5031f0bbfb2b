/* The kinds of storage.k8s.io/v1. */
#include "api/api-int.h"
#include "api/defaults.h"
#include "api/table.h"
#include "api/validate.h"

static const sk_kind_ops storageclass_ops = {
	.patch_type = "Object",
	.printer = &sk_table_printer_storageclass,
	.defaults = sk__defaults_storageclass,
	.validate = sk__validate_storageclass,
};

const sk_api_resource sk__kinds_storage[] = {
	{
		.group = "storage.k8s.io",
		.version = "v1",
		.kind = "StorageClass",
		.plural = "storageclasses",
		.singular = "storageclass",
		.namespaced = 0,
		.short_names = "sc",
		.ops = &storageclass_ops,
	},
};
const size_t sk__nkinds_storage = sizeof(sk__kinds_storage) / sizeof(sk__kinds_storage[0]);
