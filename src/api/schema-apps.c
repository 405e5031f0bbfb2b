/* Schema data: apps/v1, autoscaling/v1 Scale, batch/v1, storage.k8s.io/v1,
 * coordination.k8s.io/v1, node.k8s.io/v1, scheduling.k8s.io/v1 and
 * scheduling.x-k8s.io/v1alpha1 PodGroup. */
#include <stddef.h>

#include "api/schema-int.h"

/* clang-format off: schema tables, laid out by hand (a field per entry would triple them) */

#define APPS(n) "io.k8s.api.apps.v1." n
#define BATCH(n) "io.k8s.api.batch.v1." n
#define TYPEMETA \
	FD("apiVersion", sk__str, "APIVersion defines the versioned schema of this representation of an object."), \
		FD("kind", sk__str, "Kind is a string value representing the REST resource this object represents.")
#define OBJMETA FD("metadata", sk__object_meta, "Standard object's metadata.")

/* ---- apps/v1 ---- */
static const sk_schema_field rud_f[] = {F("maxSurge", sk__intstr), F("maxUnavailable", sk__intstr), END};
DOBJ(rud, APPS("RollingUpdateDeployment"), "Spec to control the desired behavior of rolling update.");
static const sk_schema_field strategy_f[] = {
	F("rollingUpdate", rud),
	FD("type", sk__str, "Type of deployment. Can be \"Recreate\" or \"RollingUpdate\". Default is RollingUpdate."),
	END};
DOBJ(strategy, APPS("DeploymentStrategy"), "DeploymentStrategy describes how to replace existing pods with new ones.");
static const sk_schema_field deploy_spec_f[] = {
	F("minReadySeconds", sk__i32),
	F("paused", sk__bool),
	F("progressDeadlineSeconds", sk__i32),
	FD("replicas", sk__i32,
	   "Number of desired pods. This is a pointer to distinguish between explicit zero and not specified. Defaults "
	   "to 1."),
	F("revisionHistoryLimit", sk__i32),
	RD("selector", sk__label_selector,
	   "Label selector for pods. Existing ReplicaSets whose pods are selected by this will be the ones affected by "
	   "this deployment. It must match the pod template's labels."),
	F("strategy", strategy),
	RD("template", sk__pod_template_spec, "Template describes the pods that will be created."),
	END};
DOBJ(deploy_spec, APPS("DeploymentSpec"),
     "DeploymentSpec is the specification of the desired behavior of the Deployment.");
static const sk_schema_field deploy_cond_f[] = {F("lastTransitionTime", sk__time),
						F("lastUpdateTime", sk__time),
						F("message", sk__str),
						F("reason", sk__str),
						R("status", sk__str),
						R("type", sk__str),
						END};
OBJ(deploy_cond, APPS("DeploymentCondition"));
LMAP(deploy_conds, deploy_cond, "type", sk__keys_type);
static const sk_schema_field deploy_status_f[] = {F("availableReplicas", sk__i32),   F("collisionCount", sk__i32),
						  F("conditions", deploy_conds),     F("observedGeneration", sk__i64),
						  F("readyReplicas", sk__i32),       F("replicas", sk__i32),
						  F("terminatingReplicas", sk__i32), F("unavailableReplicas", sk__i32),
						  F("updatedReplicas", sk__i32),     END};
DOBJ(deploy_status, APPS("DeploymentStatus"),
     "DeploymentStatus is the most recently observed status of the Deployment.");
static const sk_schema_field sk__deployment_f[] = {
	TYPEMETA, OBJMETA, FD("spec", deploy_spec, "Specification of the desired behavior of the Deployment."),
	FD("status", deploy_status, "Most recently observed status of the Deployment."), END};
KIND(sk__deployment, "apps", "v1", "Deployment", APPS("Deployment"),
     "Deployment enables declarative updates for Pods and ReplicaSets.");

static const sk_schema_field rs_spec_f[] = {F("minReadySeconds", sk__i32), F("replicas", sk__i32),
					    R("selector", sk__label_selector), F("template", sk__pod_template_spec),
					    END};
DOBJ(rs_spec, APPS("ReplicaSetSpec"), "ReplicaSetSpec is the specification of a ReplicaSet.");
static const sk_schema_field rs_cond_f[] = {F("lastTransitionTime", sk__time),
					    F("message", sk__str),
					    F("reason", sk__str),
					    R("status", sk__str),
					    R("type", sk__str),
					    END};
OBJ(rs_cond, APPS("ReplicaSetCondition"));
LMAP(rs_conds, rs_cond, "type", sk__keys_type);
static const sk_schema_field rs_status_f[] = {F("availableReplicas", sk__i32),    F("conditions", rs_conds),
					      F("fullyLabeledReplicas", sk__i32), F("observedGeneration", sk__i64),
					      F("readyReplicas", sk__i32),        R("replicas", sk__i32),
					      F("terminatingReplicas", sk__i32),  END};
DOBJ(rs_status, APPS("ReplicaSetStatus"), "ReplicaSetStatus represents the current status of a ReplicaSet.");
static const sk_schema_field sk__replicaset_f[] = {TYPEMETA, OBJMETA, F("spec", rs_spec), F("status", rs_status), END};
KIND(sk__replicaset, "apps", "v1", "ReplicaSet", APPS("ReplicaSet"),
     "ReplicaSet ensures that a specified number of pod replicas are running at any given time.");

static const sk_schema_field rud_ds_f[] = {F("maxSurge", sk__intstr), F("maxUnavailable", sk__intstr), END};
DOBJ(rud_ds, APPS("RollingUpdateDaemonSet"), "Spec to control the desired behavior of daemon set rolling update.");
static const sk_schema_field ds_strategy_f[] = {
	F("rollingUpdate", rud_ds),
	FD("type", sk__str,
	   "Type of daemon set update. Can be \"RollingUpdate\" or \"OnDelete\". Default is RollingUpdate."),
	END};
DOBJ(ds_strategy, APPS("DaemonSetUpdateStrategy"),
     "DaemonSetUpdateStrategy is a struct used to control the update strategy for a DaemonSet.");
static const sk_schema_field ds_spec_f[] = {
	FD("minReadySeconds", sk__i32,
	   "The minimum number of seconds for which a newly created DaemonSet pod should be ready without any of its "
	   "container crashing, for it to be considered available. Defaults to 0 (pod will be considered available as "
	   "soon as it is ready)."),
	FD("revisionHistoryLimit", sk__i32,
	   "The number of old history to retain to allow rollback. This is a pointer to distinguish between explicit "
	   "zero and not specified. Defaults to 10."),
	RD("selector", sk__label_selector,
	   "A label query over pods that are managed by the daemon set. Must match in order to be controlled. It must "
	   "match the pod template's labels."),
	RD("template", sk__pod_template_spec,
	   "An object that describes the pod that will be created. The DaemonSet will create exactly one copy of this "
	   "pod on every node that matches the template's node selector (or on every node if no node selector is "
	   "specified)."),
	FD("updateStrategy", ds_strategy, "An update strategy to replace existing DaemonSet pods with new pods."),
	END};
DOBJ(ds_spec, APPS("DaemonSetSpec"), "DaemonSetSpec is the specification of a daemon set.");
static const sk_schema_field ds_cond_f[] = {F("lastTransitionTime", sk__time),
					    F("message", sk__str),
					    F("reason", sk__str),
					    R("status", sk__str),
					    R("type", sk__str),
					    END};
OBJ(ds_cond, APPS("DaemonSetCondition"));
LMAP(ds_conds, ds_cond, "type", sk__keys_type);
static const sk_schema_field ds_status_f[] = {F("collisionCount", sk__i32),
					      F("conditions", ds_conds),
					      R("currentNumberScheduled", sk__i32),
					      R("desiredNumberScheduled", sk__i32),
					      F("numberAvailable", sk__i32),
					      R("numberMisscheduled", sk__i32),
					      R("numberReady", sk__i32),
					      F("numberUnavailable", sk__i32),
					      F("observedGeneration", sk__i64),
					      F("updatedNumberScheduled", sk__i32),
					      END};
DOBJ(ds_status, APPS("DaemonSetStatus"), "DaemonSetStatus represents the current status of a daemon set.");
static const sk_schema_field sk__daemonset_f[] = {
	TYPEMETA, OBJMETA, FD("spec", ds_spec, "The desired behavior of this daemon set."),
	FD("status", ds_status, "The current status of this daemon set."), END};
KIND(sk__daemonset, "apps", "v1", "DaemonSet", APPS("DaemonSet"),
     "DaemonSet represents the configuration of a daemon set.");

static const sk_schema_field rus_sts_f[] = {
	FD("maxUnavailable", sk__intstr,
	   "The maximum number of pods that can be unavailable during the update. Value can be an absolute number "
	   "(ex: 5) or a percentage of desired pods (ex: 10%). Defaults to 1."),
	FD("partition", sk__i32,
	   "Partition indicates the ordinal at which the StatefulSet should be partitioned for updates. Default value "
	   "is 0."),
	END};
DOBJ(rus_sts, APPS("RollingUpdateStatefulSetStrategy"),
     "RollingUpdateStatefulSetStrategy is used to communicate parameter for RollingUpdateStatefulSetStrategyType.");
static const sk_schema_field sts_strategy_f[] = {
	FD("rollingUpdate", rus_sts,
	   "RollingUpdate is used to communicate parameters when Type is RollingUpdateStatefulSetStrategyType."),
	FD("type", sk__str, "Type indicates the type of the StatefulSetUpdateStrategy. Default is RollingUpdate."),
	END};
DOBJ(sts_strategy, APPS("StatefulSetUpdateStrategy"),
     "StatefulSetUpdateStrategy indicates the strategy that the StatefulSet controller will use to perform "
     "updates.");
static const sk_schema_field sts_retention_f[] = {F("whenDeleted", sk__str), F("whenScaled", sk__str), END};
DOBJ(sts_retention, APPS("StatefulSetPersistentVolumeClaimRetentionPolicy"),
     "StatefulSetPersistentVolumeClaimRetentionPolicy describes the policy used for PVCs created from the "
     "StatefulSet VolumeClaimTemplates.");
static const sk_schema_field sts_ordinals_f[] = {F("start", sk__i32), END};
DOBJ(sts_ordinals, APPS("StatefulSetOrdinals"),
     "StatefulSetOrdinals describes the policy used for replica ordinal assignment in this StatefulSet.");
ARR(sts_vcts, sk__pvc);
static const sk_schema_field sts_spec_f[] = {
	F("minReadySeconds", sk__i32),
	F("ordinals", sts_ordinals),
	F("persistentVolumeClaimRetentionPolicy", sts_retention),
	FD("podManagementPolicy", sk__str,
	   "podManagementPolicy controls how pods are created during initial scale up, when replacing pods on nodes, "
	   "or when scaling down. The default policy is `OrderedReady`."),
	FD("replicas", sk__i32, "replicas is the desired number of replicas of the given Template. Defaults to 1."),
	F("revisionHistoryLimit", sk__i32),
	RD("selector", sk__label_selector,
	   "selector is a label query over pods that should match the replica count. It must match the pod "
	   "template's labels."),
	FD("serviceName", sk__str,
	   "serviceName is the name of the service that governs this StatefulSet. Pods get DNS/hostnames that follow "
	   "the pattern: pod-specific-string.serviceName.default.svc.cluster.local"),
	RD("template", sk__pod_template_spec,
	   "template is the object that describes the pod that will be created if insufficient replicas are "
	   "detected."),
	F("updateStrategy", sts_strategy),
	F("volumeClaimTemplates", sts_vcts),
	END};
DOBJ(sts_spec, APPS("StatefulSetSpec"), "A StatefulSetSpec is the specification of a StatefulSet.");
static const sk_schema_field sts_cond_f[] = {F("lastTransitionTime", sk__time),
					     F("message", sk__str),
					     F("reason", sk__str),
					     R("status", sk__str),
					     R("type", sk__str),
					     END};
OBJ(sts_cond, APPS("StatefulSetCondition"));
LMAP(sts_conds, sts_cond, "type", sk__keys_type);
static const sk_schema_field sts_status_f[] = {F("availableReplicas", sk__i32),
					       F("collisionCount", sk__i32),
					       F("conditions", sts_conds),
					       F("currentReplicas", sk__i32),
					       F("currentRevision", sk__str),
					       F("observedGeneration", sk__i64),
					       F("readyReplicas", sk__i32),
					       R("replicas", sk__i32),
					       F("updateRevision", sk__str),
					       F("updatedReplicas", sk__i32),
					       END};
DOBJ(sts_status, APPS("StatefulSetStatus"), "StatefulSetStatus represents the current state of a StatefulSet.");
static const sk_schema_field sk__statefulset_f[] = {
	TYPEMETA, OBJMETA, FD("spec", sts_spec, "Spec defines the desired identities of pods in this set."),
	FD("status", sts_status,
	   "Status is the current status of Pods in this StatefulSet. This data may be out of date by some window of "
	   "time."),
	END};
KIND(sk__statefulset, "apps", "v1", "StatefulSet", APPS("StatefulSet"),
     "StatefulSet represents a set of pods with consistent identities.");

static const sk_schema_field sk__controllerrevision_f[] = {
	TYPEMETA, FD("data", sk__any, "Data is the serialized representation of the state."), OBJMETA,
	RD("revision", sk__i64, "Revision indicates the revision of the state represented by Data."), END};
KIND(sk__controllerrevision, "apps", "v1", "ControllerRevision", APPS("ControllerRevision"),
     "ControllerRevision implements an immutable snapshot of state data.");

static const sk_schema_field scale_spec_f[] = {F("replicas", sk__i32), END};
OBJ(scale_spec, "io.k8s.api.autoscaling.v1.ScaleSpec");
static const sk_schema_field scale_status_f[] = {R("replicas", sk__i32), F("selector", sk__str), END};
OBJ(scale_status, "io.k8s.api.autoscaling.v1.ScaleStatus");
static const sk_schema_field sk__scale_f[] = {TYPEMETA, OBJMETA, F("spec", scale_spec), F("status", scale_status), END};
KIND(sk__scale, "autoscaling", "v1", "Scale", "io.k8s.api.autoscaling.v1.Scale",
     "Scale represents a scaling request for a resource.");

/* ---- batch/v1 ---- */
static const sk_schema i32set = {.type = SK_SCHEMA_ARRAY, .items = &sk__i32, .list_type = "set"};
static const sk_schema_field on_exitcodes_f[] = {F("containerName", sk__str), R("operator", sk__str),
						 R("values", i32set), END};
OBJ(on_exitcodes, BATCH("PodFailurePolicyOnExitCodesRequirement"));
static const sk_schema_field on_cond_f[] = {F("status", sk__str), R("type", sk__str), END};
OBJ(on_cond, BATCH("PodFailurePolicyOnPodConditionsPattern"));
ARR(on_conds, on_cond);
static const sk_schema_field pfp_rule_f[] = {R("action", sk__str), F("onExitCodes", on_exitcodes),
					     F("onPodConditions", on_conds), END};
OBJ(pfp_rule, BATCH("PodFailurePolicyRule"));
ARR(pfp_rules, pfp_rule);
static const sk_schema_field pfp_f[] = {R("rules", pfp_rules), END};
DOBJ(pfp, BATCH("PodFailurePolicy"), "PodFailurePolicy describes how failed pods influence the backoffLimit.");
static const sk_schema_field sp_rule_f[] = {F("succeededCount", sk__i32), F("succeededIndexes", sk__str), END};
OBJ(sp_rule, BATCH("SuccessPolicyRule"));
ARR(sp_rules, sp_rule);
static const sk_schema_field sp_f[] = {R("rules", sp_rules), END};
DOBJ(sp, BATCH("SuccessPolicy"),
     "SuccessPolicy describes when a Job can be declared as succeeded based on the success of some indexes.");
static const sk_schema_field job_spec_f[] = {
	F("activeDeadlineSeconds", sk__i64),
	FD("backoffLimit", sk__i32, "Specifies the number of retries before marking this job failed. Defaults to 6"),
	F("backoffLimitPerIndex", sk__i32),
	FD("completionMode", sk__str,
	   "completionMode specifies how Pod completions are tracked. It can be `NonIndexed` (default) or `Indexed`."),
	FD("completions", sk__i32,
	   "Specifies the desired number of successfully finished pods the job should be run with."),
	F("managedBy", sk__str),
	F("manualSelector", sk__bool),
	F("maxFailedIndexes", sk__i32),
	FD("parallelism", sk__i32,
	   "Specifies the maximum desired number of pods the job should run at any given time."),
	F("podFailurePolicy", pfp),
	F("podReplacementPolicy", sk__str),
	F("selector", sk__label_selector),
	F("successPolicy", sp),
	F("suspend", sk__bool),
	RD("template", sk__pod_template_spec,
	   "Describes the pod that will be created when executing a job. The only allowed template.spec.restartPolicy "
	   "values are \"Never\" or \"OnFailure\"."),
	F("ttlSecondsAfterFinished", sk__i32),
	END};
DOBJ(job_spec, BATCH("JobSpec"), "JobSpec describes how the job execution will look like.");
static const sk_schema_field job_cond_f[] = {F("lastProbeTime", sk__time),
					     F("lastTransitionTime", sk__time),
					     F("message", sk__str),
					     F("reason", sk__str),
					     R("status", sk__str),
					     R("type", sk__str),
					     END};
DOBJ(job_cond, BATCH("JobCondition"), "JobCondition describes current state of a job.");
MERGED(job_conds, job_cond, "type");
static const sk_schema_field uncounted_f[] = {F("failed", sk__strset), F("succeeded", sk__strset), END};
OBJ(uncounted, BATCH("UncountedTerminatedPods"));
static const sk_schema_field job_status_f[] = {F("active", sk__i32),
					       F("completedIndexes", sk__str),
					       F("completionTime", sk__time),
					       F("conditions", job_conds),
					       F("failed", sk__i32),
					       F("failedIndexes", sk__str),
					       F("ready", sk__i32),
					       F("startTime", sk__time),
					       F("succeeded", sk__i32),
					       F("terminating", sk__i32),
					       F("uncountedTerminatedPods", uncounted),
					       END};
DOBJ(job_status, BATCH("JobStatus"), "JobStatus represents the current state of a Job.");
static const sk_schema_field sk__job_f[] = {TYPEMETA, OBJMETA,
					    FD("spec", job_spec, "Specification of the desired behavior of a job."),
					    FD("status", job_status, "Current status of a job."), END};
KIND(sk__job, "batch", "v1", "Job", BATCH("Job"), "Job represents the configuration of a single job.");
static const sk_schema_field job_tmpl_f[] = {OBJMETA, F("spec", job_spec), END};
DOBJ(job_tmpl, BATCH("JobTemplateSpec"),
     "JobTemplateSpec describes the data a Job should have when created from a template");
static const sk_schema_field cj_spec_f[] = {
	F("concurrencyPolicy", sk__str),
	F("failedJobsHistoryLimit", sk__i32),
	R("jobTemplate", job_tmpl),
	RD("schedule", sk__str, "The schedule in Cron format, see https://en.wikipedia.org/wiki/Cron."),
	F("startingDeadlineSeconds", sk__i64),
	F("successfulJobsHistoryLimit", sk__i32),
	F("suspend", sk__bool),
	F("timeZone", sk__str),
	END};
DOBJ(cj_spec, BATCH("CronJobSpec"),
     "CronJobSpec describes how the job execution will look like and when it will actually run.");
ARR(obj_refs, sk__object_reference);
static const sk_schema_field cj_status_f[] = {F("active", obj_refs), F("lastScheduleTime", sk__time),
					      F("lastSuccessfulTime", sk__time), END};
DOBJ(cj_status, BATCH("CronJobStatus"), "CronJobStatus represents the current state of a cron job.");
static const sk_schema_field sk__cronjob_f[] = {TYPEMETA, OBJMETA, F("spec", cj_spec), F("status", cj_status), END};
KIND(sk__cronjob, "batch", "v1", "CronJob", BATCH("CronJob"),
     "CronJob represents the configuration of a single cron job.");

/* ---- storage.k8s.io/v1 ---- */
static const sk_schema_field tsr_f[] = {R("key", sk__str), R("values", sk__strs), END};
OBJ(tsr, CORE("TopologySelectorLabelRequirement"));
ARR(tsrs, tsr);
static const sk_schema_field tst_f[] = {F("matchLabelExpressions", tsrs), END};
OBJ(tst, CORE("TopologySelectorTerm"));
ARR(tsts, tst);
static const sk_schema_field sk__storageclass_f[] = {F("allowVolumeExpansion", sk__bool),
						     F("allowedTopologies", tsts),
						     TYPEMETA,
						     OBJMETA,
						     F("mountOptions", sk__strs),
						     F("parameters", sk__str_map),
						     R("provisioner", sk__str),
						     F("reclaimPolicy", sk__str),
						     F("volumeBindingMode", sk__str),
						     END};
KIND(sk__storageclass, "storage.k8s.io", "v1", "StorageClass", "io.k8s.api.storage.v1.StorageClass",
     "StorageClass describes the parameters for a class of storage for which PersistentVolumes can be dynamically "
     "provisioned.");

/* ---- coordination.k8s.io/v1 ---- */
static const sk_schema_field lease_spec_f[] = {F("acquireTime", sk__microtime),
					       F("holderIdentity", sk__str),
					       F("leaseDurationSeconds", sk__i32),
					       F("leaseTransitions", sk__i32),
					       F("preferredHolder", sk__str),
					       F("renewTime", sk__microtime),
					       F("strategy", sk__str),
					       END};
DOBJ(lease_spec, "io.k8s.api.coordination.v1.LeaseSpec", "LeaseSpec is a specification of a Lease.");
static const sk_schema_field sk__lease_f[] = {TYPEMETA, OBJMETA, F("spec", lease_spec), END};
KIND(sk__lease, "coordination.k8s.io", "v1", "Lease", "io.k8s.api.coordination.v1.Lease",
     "Lease defines a lease concept.");

/* ---- certificates.k8s.io/v1 ---- */
#define CERT(n) "io.k8s.api.certificates.v1." n
static const sk_schema csr_extra = {.type = SK_SCHEMA_MAP, .items = &sk__strs};
static const sk_schema_field csr_spec_f[] = {
	F("expirationSeconds", sk__i32), F("extra", csr_extra),    F("groups", sk__strs),
	R("request", sk__byte),          R("signerName", sk__str), F("uid", sk__str),
	F("usages", sk__strs),           F("username", sk__str),   END};
DOBJ(csr_spec, CERT("CertificateSigningRequestSpec"),
     "CertificateSigningRequestSpec contains the certificate request.");
static const sk_schema_field csr_cond_f[] = {F("lastTransitionTime", sk__time),
					     F("lastUpdateTime", sk__time),
					     F("message", sk__str),
					     F("reason", sk__str),
					     R("status", sk__str),
					     R("type", sk__str),
					     END};
OBJ(csr_cond, CERT("CertificateSigningRequestCondition"));
static const sk_schema csr_conds = {
	.type = SK_SCHEMA_ARRAY, .items = &csr_cond, .list_type = "map", .list_map_keys = sk__keys_type};
static const sk_schema_field csr_status_f[] = {F("certificate", sk__byte), F("conditions", csr_conds), END};
DOBJ(csr_status, CERT("CertificateSigningRequestStatus"),
     "CertificateSigningRequestStatus contains conditions used to indicate approved/denied/failed status of the "
     "request, and the issued certificate.");
static const sk_schema_field sk__csr_f[] = {TYPEMETA, OBJMETA, R("spec", csr_spec), F("status", csr_status), END};
KIND(sk__csr, "certificates.k8s.io", "v1", "CertificateSigningRequest", CERT("CertificateSigningRequest"),
     "CertificateSigningRequest objects provide a mechanism to obtain x509 certificates by submitting a "
     "certificate signing request, and having it asynchronously approved and issued.");

/* ---- node.k8s.io/v1 ---- */
static const sk_schema_field overhead_f[] = {F("podFixed", sk__quantity_map), END};
OBJ(overhead, "io.k8s.api.node.v1.Overhead");
static const sk_schema_field rc_sched_f[] = {F("nodeSelector", sk__node_selector_map),
					     F("tolerations", sk__tolerations), END};
OBJ(rc_sched, "io.k8s.api.node.v1.Scheduling");
static const sk_schema_field sk__runtimeclass_f[] = {
	TYPEMETA, R("handler", sk__str), OBJMETA, F("overhead", overhead), F("scheduling", rc_sched), END};
KIND(sk__runtimeclass, "node.k8s.io", "v1", "RuntimeClass", "io.k8s.api.node.v1.RuntimeClass",
     "RuntimeClass defines a class of container runtime supported in the cluster.");

/* ---- scheduling.k8s.io/v1 ---- */
static const sk_schema_field sk__priorityclass_f[] = {
	TYPEMETA,
	F("description", sk__str),
	F("globalDefault", sk__bool),
	OBJMETA,
	F("preemptionPolicy", sk__str),
	RD("value", sk__i32, "value represents the integer value of this priority class."),
	END};
KIND(sk__priorityclass, "scheduling.k8s.io", "v1", "PriorityClass", "io.k8s.api.scheduling.v1.PriorityClass",
     "PriorityClass defines mapping from a priority class name to the priority integer value.");

/* ---- scheduling.x-k8s.io/v1alpha1 ---- */
#define PG(n) "io.x-k8s.scheduling.v1alpha1." n
static const sk_schema_field pg_spec_f[] = {
	FD("minMember", sk__i32, "MinMember defines the minimal number of members/tasks to run the pod group."),
	FD("minResources", sk__quantity_map,
	   "MinResources defines the minimal resource of members/tasks to run the pod group."),
	FD("scheduleTimeoutSeconds", sk__i32,
	   "ScheduleTimeoutSeconds defines the maximal time of members/tasks to wait before run the pod group."),
	END};
DOBJ(pg_spec, PG("PodGroupSpec"), "PodGroupSpec represents the template of a pod group.");
static const sk_schema_field pg_status_f[] = {F("failed", sk__i32),
					      F("occupiedBy", sk__str),
					      F("phase", sk__str),
					      F("running", sk__i32),
					      F("scheduleStartTime", sk__time),
					      F("scheduled", sk__i32),
					      F("succeeded", sk__i32),
					      END};
DOBJ(pg_status, PG("PodGroupStatus"), "PodGroupStatus represents the current state of a pod group.");
static const sk_schema_field sk__podgroup_f[] = {TYPEMETA, OBJMETA, F("spec", pg_spec), F("status", pg_status), END};
KIND(sk__podgroup, "scheduling.x-k8s.io", "v1alpha1", "PodGroup", PG("PodGroup"),
     "PodGroup is a collection of Pod; used for batch workload.");
/* clang-format on */
