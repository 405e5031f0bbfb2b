/* The kinds of core/v1. */
#include "api/api-int.h"
#include "api/defaults.h"
#include "api/service.h"
#include "api/table.h"
#include "api/validate.h"
#include "kube/selector.h"
#include "util/util.h"

extern const sk_kind_ops sk__limitrange_ops; /* limitrange.c */

static const sk_kube_field_labels pod_fields = {
	.fields = (const char *const[]){"metadata.name", "metadata.namespace", "spec.nodeName", "spec.restartPolicy",
					"spec.schedulerName", "spec.serviceAccountName", "spec.hostNetwork",
					"status.phase", "status.podIP", "status.podIPs", "status.nominatedNodeName",
					NULL},
	.alias = "spec.host",
	.alias_of = "spec.nodeName",
};

static const sk_kind_ops pod_ops = {
	.patch_type = "Pod",
	.flags = SK_KIND_GRACEFUL_DELETE,
	.printer = &sk_table_printer_pod,
	.field_labels = &pod_fields,
	.defaults = sk__defaults_pod,
	.validate = sk__validate_pod,
	.admit_create = sk__pod_admit_create,
};

static const sk_kube_field_labels namespace_fields = {
	.fields = (const char *const[]){"status.phase", "metadata.name", NULL},
};

static const sk_kind_ops namespace_ops = {
	.patch_type = "WithConditions",
	.flags = SK_KIND_SPEC_FINALIZERS,
	.printer = &sk_table_printer_namespace,
	.field_labels = &namespace_fields,
	.defaults = sk__defaults_namespace,
	.validate = sk__validate_namespace,
	.admit_create = sk__namespace_admit_create,
};

static const sk_kube_field_labels node_fields = {
	.fields = (const char *const[]){"metadata.name", "spec.unschedulable", NULL},
};

static const sk_kind_ops node_ops = {
	.patch_type = "Node",
	.printer = &sk_table_printer_node,
	.field_labels = &node_fields,
	.defaults = sk__defaults_node,
	.validate = sk__validate_node,
};

static const sk_kube_field_labels event_fields = {
	.fields = (const char *const[]){"involvedObject.kind", "involvedObject.namespace", "involvedObject.name",
					"involvedObject.uid", "involvedObject.apiVersion",
					"involvedObject.resourceVersion", "involvedObject.fieldPath", "reason",
					"reportingComponent", "source", "type", "metadata.namespace", "metadata.name",
					NULL},
};

static const sk_kind_ops event_ops = {
	.patch_type = "Object",
	.flags = SK_KIND_CREATE_ON_UPDATE,
	.printer = &sk_table_printer_event,
	.field_labels = &event_fields,
	.validate = sk__validate_event,
};

static const sk_kind_ops configmap_ops = {
	.patch_type = "Object",
	.printer = &sk_table_printer_configmap,
	.validate = sk__validate_configmap,
};

static const sk_kube_field_labels secret_fields = {
	.fields = (const char *const[]){"type", "metadata.namespace", "metadata.name", NULL},
};

static const sk_kind_ops secret_ops = {
	.patch_type = "Object",
	.printer = &sk_table_printer_secret,
	.field_labels = &secret_fields,
	.defaults = sk__defaults_secret,
	.validate = sk__validate_secret,
};

static const sk_kind_ops endpoints_ops = {
	.patch_type = "Object",
	.flags = SK_KIND_CREATE_ON_UPDATE,
	.printer = &sk_table_printer_endpoints,
	.defaults = sk__defaults_endpoints,
	.validate = sk__validate_endpoints,
};

static const sk_kind_ops serviceaccount_ops = {
	.patch_type = "ServiceAccount",
	.printer = &sk_table_printer_serviceaccount,
	.validate = sk__validate_serviceaccount,
};

static const sk_kind_ops resourcequota_ops = {
	.patch_type = "Object",
	.printer = &sk_table_printer_resourcequota,
	.validate = sk__validate_resourcequota,
	.admit_create = sk__admit_empty_status,
};

static const sk_kind_ops persistentvolume_ops = {
	.patch_type = "Object",
	.printer = &sk_table_printer_persistentvolume,
	.defaults = sk__defaults_persistentvolume,
	.validate = sk__validate_persistentvolume,
	.admit_create = sk__admit_pending_status,
};

static const sk_kind_ops persistentvolumeclaim_ops = {
	.patch_type = "WithConditions",
	.printer = &sk_table_printer_persistentvolumeclaim,
	.defaults = sk__defaults_persistentvolumeclaim,
	.validate = sk__validate_persistentvolumeclaim,
	.admit_create = sk__admit_pending_status,
};

/* ReplicationController: a ReplicaSet whose selector is a map of labels. */
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

static const sk_kube_field_labels replicationcontroller_fields = {
	.fields = (const char *const[]){"metadata.name", "metadata.namespace", "status.replicas", NULL},
};

static const sk_kind_ops replicationcontroller_ops = {
	.patch_type = "Workload",
	.flags = SK_KIND_GENERATION,
	.printer = &sk_table_printer_replicationcontroller,
	.field_labels = &replicationcontroller_fields,
	.defaults = sk__defaults_replicationcontroller,
	.validate = sk__validate_replicationcontroller,
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
		.ops = &namespace_ops,
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
		.ops = &pod_ops,
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
		.ops = &node_ops,
	},
	{
		.group = "",
		.version = "v1",
		.kind = "Event",
		.plural = "events",
		.singular = "event",
		.namespaced = 1,
		.short_names = "ev",
		.ops = &event_ops,
	},
	{
		.group = "",
		.version = "v1",
		.kind = "ConfigMap",
		.plural = "configmaps",
		.singular = "configmap",
		.namespaced = 1,
		.short_names = "cm",
		.ops = &configmap_ops,
	},
	{
		.group = "",
		.version = "v1",
		.kind = "Secret",
		.plural = "secrets",
		.singular = "secret",
		.namespaced = 1,
		.ops = &secret_ops,
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
		.ops = &endpoints_ops,
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
		.ops = &serviceaccount_ops,
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
		.ops = &resourcequota_ops,
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
		.ops = &persistentvolume_ops,
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
		.ops = &persistentvolumeclaim_ops,
	},
};
const size_t sk__nkinds_core = sizeof(sk__kinds_core) / sizeof(sk__kinds_core[0]);
