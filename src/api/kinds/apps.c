/* The kinds of apps/v1. */
#include "api/api-int.h"

const sk_api_resource sk__kinds_apps[] = {
	{
		.group = "apps",
		.version = "v1",
		.kind = "ControllerRevision",
		.plural = "controllerrevisions",
		.singular = "controllerrevision",
		.namespaced = 1,
	},
	{
		.group = "apps",
		.version = "v1",
		.kind = "DaemonSet",
		.plural = "daemonsets",
		.singular = "daemonset",
		.namespaced = 1,
		.short_names = "ds",
		.categories = "all",
		.subresources = SK_SUB_STATUS,
		.has_spec = 1,
	},
	{
		.group = "apps",
		.version = "v1",
		.kind = "Deployment",
		.plural = "deployments",
		.singular = "deployment",
		.namespaced = 1,
		.short_names = "deploy",
		.categories = "all",
		.subresources = SK_SUB_STATUS | SK_SUB_SCALE,
		.has_spec = 1,
	},
	{
		.group = "apps",
		.version = "v1",
		.kind = "ReplicaSet",
		.plural = "replicasets",
		.singular = "replicaset",
		.namespaced = 1,
		.short_names = "rs",
		.categories = "all",
		.subresources = SK_SUB_STATUS | SK_SUB_SCALE,
		.has_spec = 1,
	},
};
const size_t sk__nkinds_apps = sizeof(sk__kinds_apps) / sizeof(sk__kinds_apps[0]);
