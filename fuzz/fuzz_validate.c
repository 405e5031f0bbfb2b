/* Unknown-field detection, type checks, defaulting and validation (create
 * and update) on arbitrary JSON for a few kinds (and a
 * ValidatingAdmissionPolicy's type check). The first byte picks the
 * kind; the rest is the object. Defaulting runs even on mistyped objects:
 * it must never crash on them. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "api/defaults.h"
#include "api/schema.h"
#include "api/validate.h"
#include "api/webhook.h"
#include "util/util.h"

static const struct { const char *group, *kind; } kinds[] = {
	{ "", "Pod" }, { "apps", "Deployment" }, { "batch", "Job" }, { "batch", "CronJob" },
	{ "", "Service" }, { "", "Secret" }, { "", "ConfigMap" }, { "", "Node" },
	{ "", "Namespace" }, { "scheduling.k8s.io", "PriorityClass" }, { "apps", "ReplicaSet" },
	{ "", "PersistentVolumeClaim" }, { "scheduling.x-k8s.io", "PodGroup" }, { "coordination.k8s.io", "Lease" },
	{ "discovery.k8s.io", "EndpointSlice" }, { "networking.k8s.io", "NetworkPolicy" },
	{ "admissionregistration.k8s.io", "ValidatingAdmissionPolicy" },
	{ "admissionregistration.k8s.io", "ValidatingAdmissionPolicyBinding" },
	{ "admissionregistration.k8s.io", "ValidatingWebhookConfiguration" },
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t nkinds = sizeof(kinds) / sizeof(kinds[0]);
	const char *kind, *group;
	json_t *obj, *old, *unk, *causes;
	sk_error_t err = { 0 };
	const sk_schema *s;

	if (size < 1)
		return 0;
	kind = kinds[data[0] % nkinds].kind;
	group = kinds[data[0] % nkinds].group;
	obj = json_loadb((const char *)data + 1, size - 1, JSON_DECODE_ANY, NULL);
	if (!obj)
		return 0;
	s = sk_schema_for_kind(group, NULL, kind);
	unk = sk_schema_unknown_fields(s, obj);
	json_decref(unk);
	sk_schema_check_types(s, obj, &err);
	old = json_deep_copy(obj);
	sk_defaults_apply(kind, obj);
	sk_defaults_apply(kind, old);
	if (strcmp(kind, "Job") == 0)
		sk_defaults_job_selector(obj, &err);
	if (strcmp(kind, "Pod") == 0) {
		sk_defaults_pod_tolerations(obj);
		sk_defaults_pod_priority(obj, NULL);
	}
	causes = sk_validate(kind, obj, NULL);
	if (causes) {
		char *m = sk_validate_message(kind, "x", causes);

		free(m);
		json_decref(causes);
	}
	causes = sk_validate(kind, obj, old);
	json_decref(causes);
	if (strcmp(kind, "ValidatingAdmissionPolicy") == 0) {
		/* the type check a policy's status gets, on any spec */
		causes = sk__vap_type_check(obj);
		json_decref(causes);
	}
	if (strcmp(kind, "Pod") == 0) {
		/* pods/ephemeralcontainers: as is, and with the old pod's
		 * ephemeral containers gone from the new one */
		causes = sk_validate_pod_ephemeral(obj, old);
		json_decref(causes);
		if (json_is_object(json_object_get(obj, "spec")))
			json_object_del(json_object_get(obj, "spec"), "ephemeralContainers");
		causes = sk_validate_pod_ephemeral(obj, old);
		json_decref(causes);
	}
	json_decref(old);
	json_decref(obj);
	return 0;
}
