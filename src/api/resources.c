#include <stdio.h>
#include <string.h>

#include "api/api-int.h"
#include "api/crd.h"

#define ST SK_SUB_STATUS
const sk_api_resource sk__resources[] = {
	/* group, version, kind, plural, singular, namespaced, short, categories, subresources, has_spec,
	 * store, listKind, custom, ops */
	{"", "v1", "Namespace", "namespaces", "namespace", 0, "ns", NULL, ST | SK_SUB_FINALIZE, 1, NULL, NULL, 0, NULL},
	{"", "v1", "Pod", "pods", "pod", 1, "po", "all",
	 ST | SK_SUB_BINDING | SK_SUB_EVICTION | SK_SUB_LOG | SK_SUB_EXEC, 1, NULL, NULL, 0, NULL},
	{"", "v1", "Node", "nodes", "node", 0, "no", NULL, ST, 1, NULL, NULL, 0, NULL},
	{"", "v1", "Event", "events", "event", 1, "ev", NULL, 0, 0, NULL, NULL, 0, NULL},
	{"", "v1", "ConfigMap", "configmaps", "configmap", 1, "cm", NULL, 0, 0, NULL, NULL, 0, NULL},
	{"", "v1", "Secret", "secrets", "secret", 1, NULL, NULL, 0, 0, NULL, NULL, 0, NULL},
	{"", "v1", "Service", "services", "service", 1, "svc", "all", ST, 1, NULL, NULL, 0, NULL},
	{"", "v1", "Endpoints", "endpoints", "endpoints", 1, "ep", NULL, 0, 0, NULL, NULL, 0, NULL},
	{"", "v1", "ServiceAccount", "serviceaccounts", "serviceaccount", 1, "sa", NULL, 0, 0, NULL, NULL, 0, NULL},
	{"", "v1", "ResourceQuota", "resourcequotas", "resourcequota", 1, "quota", NULL, ST, 1, NULL, NULL, 0, NULL},
	{"", "v1", "PersistentVolume", "persistentvolumes", "persistentvolume", 0, "pv", NULL, ST, 1, NULL, NULL, 0,
	 NULL},
	{"", "v1", "PersistentVolumeClaim", "persistentvolumeclaims", "persistentvolumeclaim", 1, "pvc", NULL, ST, 1,
	 NULL, NULL, 0, NULL},
	{"storage.k8s.io", "v1", "StorageClass", "storageclasses", "storageclass", 0, "sc", NULL, 0, 0, NULL, NULL, 0,
	 NULL},
	{"apps", "v1", "Deployment", "deployments", "deployment", 1, "deploy", "all", ST | SK_SUB_SCALE, 1, NULL, NULL,
	 0, NULL},
	{"apps", "v1", "ReplicaSet", "replicasets", "replicaset", 1, "rs", "all", ST | SK_SUB_SCALE, 1, NULL, NULL, 0,
	 NULL},
	{"batch", "v1", "Job", "jobs", "job", 1, NULL, "all", ST, 1, NULL, NULL, 0, NULL},
	{"batch", "v1", "CronJob", "cronjobs", "cronjob", 1, "cj", "all", ST, 1, NULL, NULL, 0, NULL},
	{"coordination.k8s.io", "v1", "Lease", "leases", "lease", 1, NULL, NULL, 0, 0, NULL, NULL, 0, NULL},
	{"node.k8s.io", "v1", "RuntimeClass", "runtimeclasses", "runtimeclass", 0, NULL, NULL, 0, 0, NULL, NULL, 0,
	 NULL},
	{"scheduling.k8s.io", "v1", "PriorityClass", "priorityclasses", "priorityclass", 0, "pc", NULL, 0, 0, NULL,
	 NULL, 0, NULL},
	{"scheduling.x-k8s.io", "v1alpha1", "PodGroup", "podgroups", "podgroup", 1, "pg", NULL, ST, 1, NULL, NULL, 0,
	 NULL},
	{"apiextensions.k8s.io", "v1", "CustomResourceDefinition", "customresourcedefinitions",
	 "customresourcedefinition", 0, "crd,crds", "api-extensions", ST, 1,
	 "apiextensions.k8s.io/customresourcedefinitions", NULL, 0, &sk__crd_ops},
};
#undef ST
const size_t sk__nresources = sizeof(sk__resources) / sizeof(sk__resources[0]);

const sk_api_resource *sk__resource_find(const char *group, const char *version, const char *plural)
{
	const sk_kind_set *ks = sk__kinds();

	for (size_t i = 0; i < ks->n; i++) {
		const sk_api_resource *r = ks->v[i];

		if (!strcmp(r->group, group) && !strcmp(r->version, version) && !strcmp(r->plural, plural))
			return r;
	}
	return NULL;
}

const sk_api_resource *sk__resource_by_kind(const char *group, const char *kind)
{
	const sk_kind_set *ks = sk__kinds();

	for (size_t i = 0; i < ks->n; i++)
		if (!strcmp(ks->v[i]->group, group) && !strcmp(ks->v[i]->kind, kind))
			return ks->v[i];
	return NULL;
}

const char *sk__resource_list_kind(const sk_api_resource *r, char *buf, size_t len)
{
	if (r->list_kind)
		return r->list_kind;
	snprintf(buf, len, "%sList", r->kind);
	return buf;
}

void sk__resource_gv(const sk_api_resource *r, char *buf, size_t len)
{
	if (r->group[0])
		snprintf(buf, len, "%s/%s", r->group, r->version);
	else
		snprintf(buf, len, "%s", r->version);
}
