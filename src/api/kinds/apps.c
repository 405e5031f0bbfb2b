/* The kinds of apps/v1. */
#include <stdlib.h>
#include <string.h>

#include "api/api-int.h"
#include "api/defaults.h"
#include "api/table.h"
#include "api/validate.h"

/* The v1 form of DaemonSetSpec.TemplateGeneration (upstream's conversion). */
#define DS_TEMPLATE_GENERATION "deprecated.daemonset.template.generation"

static void ds_set_template_generation(json_t *obj, long long g)
{
	json_t *meta = json_object_get(obj, "metadata");
	json_t *ann = json_object_get(meta, "annotations");
	char buf[32];

	if (!json_is_object(meta))
		return;
	if (!json_is_object(ann)) {
		ann = json_object();
		json_object_set_new(meta, "annotations", ann);
	}
	snprintf(buf, sizeof(buf), "%lld", g);
	json_object_set_new(ann, DS_TEMPLATE_GENERATION, json_string(buf));
}

static long long ds_template_generation(json_t *obj)
{
	const char *v = json_string_value(json_object_get(
		json_object_get(json_object_get(obj, "metadata"), "annotations"), DS_TEMPLATE_GENERATION));

	return v ? strtoll(v, NULL, 10) : 0;
}

/* PrepareForCreate: the zero status (in Go's form) and templateGeneration 1. */
static int ds_admit_create(sk_api *api, const sk_api_resource *r, json_t *obj, sk_error_t *err)
{
	(void)api;
	(void)r;
	(void)err;
	json_object_set_new(obj, "status",
			    json_pack("{s:i, s:i, s:i, s:i}", "currentNumberScheduled", 0, "numberMisscheduled", 0,
				      "desiredNumberScheduled", 0, "numberReady", 0));
	ds_set_template_generation(obj, 1);
	return 0;
}

/* PrepareForUpdate: templateGeneration counts template changes. */
static void ds_prepare_update(sk_api *api, const sk_api_resource *r, json_t *obj, json_t *old)
{
	json_t *t = json_object_get(json_object_get(obj, "spec"), "template");
	json_t *ot = json_object_get(json_object_get(old, "spec"), "template");
	long long g = ds_template_generation(old);

	(void)api;
	(void)r;
	if (!json_equal(t ? t : json_null(), ot ? ot : json_null()))
		g++;
	ds_set_template_generation(obj, g);
}

static const sk_kind_ops daemonset_ops = {
	.patch_type = "Workload",
	.flags = SK_KIND_GENERATION,
	.printer = &sk_table_printer_daemonset,
	.defaults = sk__defaults_daemonset,
	.validate = sk__validate_daemonset,
	.admit_create = ds_admit_create,
	.prepare_update = ds_prepare_update,
};

/* PrepareForCreate: the zero status (in Go's form). */
static int sts_admit_create(sk_api *api, const sk_api_resource *r, json_t *obj, sk_error_t *err)
{
	(void)api;
	(void)r;
	(void)err;
	json_object_set_new(obj, "status", json_pack("{s:i, s:i}", "replicas", 0, "availableReplicas", 0));
	return 0;
}

static const sk_kind_ops statefulset_ops = {
	.patch_type = "Workload",
	.flags = SK_KIND_GENERATION,
	.printer = &sk_table_printer_statefulset,
	.defaults = sk__defaults_statefulset,
	.validate = sk__validate_statefulset,
	.admit_create = sts_admit_create,
};

static const sk_kind_ops controllerrevision_ops = {
	.printer = &sk_table_printer_controllerrevision,
	.validate = sk__validate_controllerrevision,
};

static const sk_kind_ops deployment_ops = {
	.patch_type = "Workload",
	.flags = SK_KIND_GENERATION,
	.printer = &sk_table_printer_deployment,
	.defaults = sk__defaults_deployment,
	.validate = sk__validate_deployment,
	.admit_create = sk__admit_empty_status,
};

/* PrepareForCreate: the zero status (in Go's form). */
static int rs_admit_create(sk_api *api, const sk_api_resource *r, json_t *obj, sk_error_t *err)
{
	(void)api;
	(void)r;
	(void)err;
	json_object_set_new(obj, "status", json_pack("{s:i}", "replicas", 0));
	return 0;
}

static const sk_kind_ops replicaset_ops = {
	.patch_type = "Workload",
	.flags = SK_KIND_GENERATION,
	.printer = &sk_table_printer_replicaset,
	.defaults = sk__defaults_replicaset,
	.validate = sk__validate_replicaset,
	.admit_create = rs_admit_create,
};

const sk_api_resource sk__kinds_apps[] = {
	{
		.group = "apps",
		.version = "v1",
		.kind = "ControllerRevision",
		.plural = "controllerrevisions",
		.singular = "controllerrevision",
		.namespaced = 1,
		.ops = &controllerrevision_ops,
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
		.ops = &daemonset_ops,
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
		.ops = &deployment_ops,
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
		.ops = &replicaset_ops,
	},
	{
		.group = "apps",
		.version = "v1",
		.kind = "StatefulSet",
		.plural = "statefulsets",
		.singular = "statefulset",
		.namespaced = 1,
		.short_names = "sts",
		.categories = "all",
		.subresources = SK_SUB_STATUS | SK_SUB_SCALE,
		.has_spec = 1,
		.ops = &statefulset_ops,
	},
};
const size_t sk__nkinds_apps = sizeof(sk__kinds_apps) / sizeof(sk__kinds_apps[0]);
