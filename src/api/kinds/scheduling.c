/* The kinds of scheduling.k8s.io/v1. */
#include "api/api-int.h"

const sk_api_resource sk__kinds_scheduling[] = {
	{
		.group = "scheduling.k8s.io",
		.version = "v1",
		.kind = "PriorityClass",
		.plural = "priorityclasses",
		.singular = "priorityclass",
		.namespaced = 0,
		.short_names = "pc",
	},
};
const size_t sk__nkinds_scheduling = sizeof(sk__kinds_scheduling) / sizeof(sk__kinds_scheduling[0]);
