/* The kinds of batch/v1. */
#include "api/api-int.h"

const sk_api_resource sk__kinds_batch[] = {
	{
		.group = "batch",
		.version = "v1",
		.kind = "Job",
		.plural = "jobs",
		.singular = "job",
		.namespaced = 1,
		.categories = "all",
		.subresources = SK_SUB_STATUS,
		.has_spec = 1,
	},
	{
		.group = "batch",
		.version = "v1",
		.kind = "CronJob",
		.plural = "cronjobs",
		.singular = "cronjob",
		.namespaced = 1,
		.short_names = "cj",
		.categories = "all",
		.subresources = SK_SUB_STATUS,
		.has_spec = 1,
	},
};
const size_t sk__nkinds_batch = sizeof(sk__kinds_batch) / sizeof(sk__kinds_batch[0]);
