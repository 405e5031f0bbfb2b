/* The kinds of core/v1. */
#include "api/api-int.h"
#include "api/defaults.h"
#include "api/service.h"
#include "api/table.h"
#include "util/util.h"

extern const sk_kind_ops sk__limitrange_ops; /* limitrange.c */

/* ReplicationController: a ReplicaSet whose selector is a map of labels. */
static void rc_defaults(const sk_api_resource *r, json_t *obj) { sk_defaults_apply(r->kind, obj); }

static int rc_admit_create(sk_api *api, const sk_api_resource *r, json_t *obj, sk_error_t *err)
{
	(void)api;
	(void)r;
	(void)err;
	json_object_set_new(obj, "status", json_pack("{s:i}", "replicas", 0));
	return 0;
}

/* autoscaling/v1 Scale, status.selector the map as a selector string
 * (labels.SelectorFromSet(rc.Spec.Selector).String()). */
static json_t *rc_scale_get(const sk_api_resource *r, json_t *obj)
{
	json_t *meta = json_object_get(obj, "metadata");
	json_t *spec = json_object_get(obj, "spec"), *st = json_object_get(obj, "status");
	cleanup_json json_t *sel = json_pack("{s:O*}", "matchLabels", json_object_get(spec, "selector"));
	cleanup_free char *s = sk_table_selector_string(sel);

	(void)r;
	return json_pack("{s:s, s:s, s:{s:O*, s:O*, s:O*, s:O*, s:O*}, s:{s:I}, s:{s:I, s:s}}", "kind", "Scale",
			 "apiVersion", "autoscaling/v1", "metadata", "name", json_object_get(meta, "name"), "namespace",
			 json_object_get(meta, "namespace"), "uid", json_object_get(meta, "uid"), "resourceVersion",
			 json_object_get(meta, "resourceVersion"), "creationTimestamp",
			 json_object_get(meta, "creationTimestamp"), "spec", "replicas",
			 (json_int_t)json_integer_value(json_object_get(spec, "replicas")), "status", "replicas",
			 (json_int_t)json_integer_value(json_object_get(st, "replicas")), "selector", s ? s : "");
}

static int rc_scale_set(const sk_api_resource *r, json_t *obj, json_t *replicas)
{
	json_t *spec = json_object_get(obj, "spec");

	(void)r;
	if (!json_is_object(spec)) {
		spec = json_object();
		json_object_set_new(obj, "spec", spec);
	}
	json_object_set(spec, "replicas", replicas);
	return 0;
}

static const sk_kind_ops replicationcontroller_ops = {
	.flags = SK_KIND_GENERATION,
	.defaults = rc_defaults,
	.admit_create = rc_admit_create,
	.scale_get = rc_scale_get,
	.scale_set = rc_scale_set,
};

const sk_api_resource sk__kinds_core[] = {
	{
		.group = "",
		.version = "v1",
		.kind = "Namespace",
		.plural = "namespaces",
		.singular = "namespace",
		.namespaced = 0,
		.short_names = "ns",
		.subresources = SK_SUB_STATUS | SK_SUB_FINALIZE,
		.has_spec = 1,
		.no_deletecollection = 1,
	},
	{
		.group = "",
		.version = "v1",
		.kind = "Pod",
		.plural = "pods",
		.singular = "pod",
		.namespaced = 1,
		.short_names = "po",
		.categories = "all",
		.subresources = SK_SUB_STATUS | SK_SUB_BINDING | SK_SUB_EVICTION | SK_SUB_LOG | SK_SUB_EXEC |
				SK_SUB_EPHEMERAL,
		.has_spec = 1,
	},
	{
		.group = "",
		.version = "v1",
		.kind = "Node",
		.plural = "nodes",
		.singular = "node",
		.namespaced = 0,
		.short_names = "no",
		.subresources = SK_SUB_STATUS | SK_SUB_PROXY,
		.has_spec = 1,
	},
	{
		.group = "",
		.version = "v1",
		.kind = "Event",
		.plural = "events",
		.singular = "event",
		.namespaced = 1,
		.short_names = "ev",
	},
	{
		.group = "",
		.version = "v1",
		.kind = "ConfigMap",
		.plural = "configmaps",
		.singular = "configmap",
		.namespaced = 1,
		.short_names = "cm",
	},
	{
		.group = "",
		.version = "v1",
		.kind = "Secret",
		.plural = "secrets",
		.singular = "secret",
		.namespaced = 1,
	},
	{
		.group = "",
		.version = "v1",
		.kind = "Service",
		.plural = "services",
		.singular = "service",
		.namespaced = 1,
		.short_names = "svc",
		.categories = "all",
		.subresources = SK_SUB_STATUS,
		.has_spec = 1,
		.ops = &sk__service_ops,
	},
	{
		.group = "",
		.version = "v1",
		.kind = "Endpoints",
		.plural = "endpoints",
		.singular = "endpoints",
		.namespaced = 1,
		.short_names = "ep",
	},
	{
		.group = "",
		.version = "v1",
		.kind = "ServiceAccount",
		.plural = "serviceaccounts",
		.singular = "serviceaccount",
		.namespaced = 1,
		.short_names = "sa",
		.subresources = SK_SUB_TOKEN,
	},
	{
		.group = "",
		.version = "v1",
		.kind = "ReplicationController",
		.plural = "replicationcontrollers",
		.singular = "replicationcontroller",
		.namespaced = 1,
		.short_names = "rc",
		.categories = "all",
		.subresources = SK_SUB_STATUS | SK_SUB_SCALE,
		.has_spec = 1,
		.ops = &replicationcontroller_ops,
	},
	{
		.group = "",
		.version = "v1",
		.kind = "ResourceQuota",
		.plural = "resourcequotas",
		.singular = "resourcequota",
		.namespaced = 1,
		.short_names = "quota",
		.subresources = SK_SUB_STATUS,
		.has_spec = 1,
	},
	{
		.group = "",
		.version = "v1",
		.kind = "LimitRange",
		.plural = "limitranges",
		.singular = "limitrange",
		.namespaced = 1,
		.short_names = "limits",
		.ops = &sk__limitrange_ops,
	},
	{
		.group = "",
		.version = "v1",
		.kind = "PersistentVolume",
		.plural = "persistentvolumes",
		.singular = "persistentvolume",
		.namespaced = 0,
		.short_names = "pv",
		.subresources = SK_SUB_STATUS,
		.has_spec = 1,
	},
	{
		.group = "",
		.version = "v1",
		.kind = "PersistentVolumeClaim",
		.plural = "persistentvolumeclaims",
		.singular = "persistentvolumeclaim",
		.namespaced = 1,
		.short_names = "pvc",
		.subresources = SK_SUB_STATUS,
		.has_spec = 1,
	},
};
const size_t sk__nkinds_core = sizeof(sk__kinds_core) / sizeof(sk__kinds_core[0]);
