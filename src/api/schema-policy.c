/* Schema data: core/v1 ReplicationController and policy/v1
 * PodDisruptionBudget. */
#include <stddef.h>

#include "api/schema-int.h"

/* clang-format off: schema tables, laid out by hand (a field per entry would triple them) */

#define POLICY(n) "io.k8s.api.policy.v1." n
#define TYPEMETA \
	FD("apiVersion", sk__str, "APIVersion defines the versioned schema of this representation of an object."), \
		FD("kind", sk__str, "Kind is a string value representing the REST resource this object represents.")
#define OBJMETA FD("metadata", sk__object_meta, "Standard object's metadata.")

/* ---- core/v1 ReplicationController ---- */
static const sk_schema_field rc_spec_f[] = {
	F("minReadySeconds", sk__i32),
	FD("replicas", sk__i32, "Replicas is the number of desired replicas. Defaults to 1."),
	FD("selector", sk__str_map,
	   "Selector is a label query over pods that should match the Replicas count. If Selector is empty, it is "
	   "defaulted to the labels present on the Pod template."),
	F("template", sk__pod_template_spec), END};
DOBJ(rc_spec, CORE("ReplicationControllerSpec"),
     "ReplicationControllerSpec is the specification of a replication controller.");
static const sk_schema_field rc_cond_f[] = {F("lastTransitionTime", sk__time),
					    F("message", sk__str),
					    F("reason", sk__str),
					    R("status", sk__str),
					    R("type", sk__str),
					    END};
OBJ(rc_cond, CORE("ReplicationControllerCondition"));
LMAP(rc_conds, rc_cond, "type", sk__keys_type);
static const sk_schema_field rc_status_f[] = {F("availableReplicas", sk__i32),
					      F("conditions", rc_conds),
					      F("fullyLabeledReplicas", sk__i32),
					      F("observedGeneration", sk__i64),
					      F("readyReplicas", sk__i32),
					      R("replicas", sk__i32),
					      END};
DOBJ(rc_status, CORE("ReplicationControllerStatus"),
     "ReplicationControllerStatus represents the current status of a replication controller.");
static const sk_schema_field sk__replicationcontroller_f[] = {
	TYPEMETA, OBJMETA,
	FD("spec", rc_spec, "Spec defines the specification of the desired behavior of the replication controller."),
	FD("status", rc_status, "Status is the most recently observed status of the replication controller."), END};
KIND(sk__replicationcontroller, "", "v1", "ReplicationController", CORE("ReplicationController"),
     "ReplicationController represents the configuration of a replication controller.");

/* ---- policy/v1 PodDisruptionBudget ---- */
MAPOF(disrupted_pods, sk__time);
static const sk_schema_field pdb_spec_f[] = {
	FD("maxUnavailable", sk__intstr,
	   "An eviction is allowed if at most \"maxUnavailable\" pods selected by \"selector\" are unavailable after "
	   "the eviction, i.e. even in absence of the evicted pod."),
	FD("minAvailable", sk__intstr,
	   "An eviction is allowed if at least \"minAvailable\" pods selected by \"selector\" will still be available "
	   "after the eviction, i.e. even in the absence of the evicted pod."),
	FD("selector", sk__label_selector,
	   "Label query over pods whose evictions are managed by the disruption budget."),
	FD("unhealthyPodEvictionPolicy", sk__str,
	   "UnhealthyPodEvictionPolicy defines the criteria for when unhealthy pods should be considered for "
	   "eviction."),
	END};
DOBJ(pdb_spec, POLICY("PodDisruptionBudgetSpec"), "PodDisruptionBudgetSpec is a description of a PodDisruptionBudget.");
static const sk_schema_field pdb_status_f[] = {
	F("conditions", sk__meta_conditions),
	RD("currentHealthy", sk__i32, "current number of healthy pods"),
	RD("desiredHealthy", sk__i32, "minimum desired number of healthy pods"),
	F("disruptedPods", disrupted_pods),
	RD("disruptionsAllowed", sk__i32, "Number of pod disruptions that are currently allowed."),
	RD("expectedPods", sk__i32, "total number of pods counted by this disruption budget"),
	F("observedGeneration", sk__i64),
	END};
DOBJ(pdb_status, POLICY("PodDisruptionBudgetStatus"),
     "PodDisruptionBudgetStatus represents information about the status of a PodDisruptionBudget.");
static const sk_schema_field sk__pdb_f[] = {
	TYPEMETA, OBJMETA, FD("spec", pdb_spec, "Specification of the desired behavior of the PodDisruptionBudget."),
	FD("status", pdb_status, "Most recently observed status of the PodDisruptionBudget."), END};
KIND(sk__pdb, "policy", "v1", "PodDisruptionBudget", POLICY("PodDisruptionBudget"),
     "PodDisruptionBudget is an object to define the max disruption that can be caused to a collection of pods");
