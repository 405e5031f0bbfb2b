/* Kubernetes protobuf schema tables: per message, field number -> JSON name
 * and wire kind. Generated from the upstream generated.proto files
 * (k8s.io/api and k8s.io/apimachinery) joined with the Go types' json tags
 * (JSON name, pointer or omitempty, inline), so that the decoded JSON is what
 * encoding/json makes of the same Go object. Messages are sorted by name and
 * fields by number (both binary-searched); message references are indices
 * into sk__pb_messages, named in the comment beside them.
 *
 * Regenerate with src/api/protobuf-types-gen.py when upstream adds fields
 * (tables from k8s.io/api v0.35.7); fields not listed here are skipped on decode. */
#include "api/protobuf-int.h"

#define R SK__PB_REPEATED
#define M SK__PB_MAP
#define K SK__PB_KEEPZERO
#define I SK__PB_INLINE

static const sk__pb_field f0[] = { /* k8s.io.api.apps.v1.ControllerRevision */
	{1, "metadata", SK__PB_MSG, 0, 484}, /* ObjectMeta */
	{2, "data", SK__PB_MSG, 0, 503}, /* RawExtension */
	{3, "revision", SK__PB_INT64, K, -1},
};
static const sk__pb_field f1[] = { /* k8s.io.api.apps.v1.ControllerRevisionList */
	{1, "metadata", SK__PB_MSG, 0, 480}, /* ListMeta */
	{2, "items", SK__PB_MSG, R|K, 0}, /* ControllerRevision */
};
static const sk__pb_field f2[] = { /* k8s.io.api.apps.v1.DaemonSet */
	{1, "metadata", SK__PB_MSG, 0, 484}, /* ObjectMeta */
	{2, "spec", SK__PB_MSG, 0, 5}, /* DaemonSetSpec */
	{3, "status", SK__PB_MSG, 0, 6}, /* DaemonSetStatus */
};
static const sk__pb_field f3[] = { /* k8s.io.api.apps.v1.DaemonSetCondition */
	{1, "type", SK__PB_STRING, K, -1},
	{2, "status", SK__PB_STRING, K, -1},
	{3, "lastTransitionTime", SK__PB_MSG, 0, 497}, /* Time */
	{4, "reason", SK__PB_STRING, 0, -1},
	{5, "message", SK__PB_STRING, 0, -1},
};
static const sk__pb_field f4[] = { /* k8s.io.api.apps.v1.DaemonSetList */
	{1, "metadata", SK__PB_MSG, 0, 480}, /* ListMeta */
	{2, "items", SK__PB_MSG, R|K, 2}, /* DaemonSet */
};
static const sk__pb_field f5[] = { /* k8s.io.api.apps.v1.DaemonSetSpec */
	{1, "selector", SK__PB_MSG, K, 477}, /* LabelSelector */
	{2, "template", SK__PB_MSG, K, 290}, /* PodTemplateSpec */
	{3, "updateStrategy", SK__PB_MSG, 0, 7}, /* DaemonSetUpdateStrategy */
	{4, "minReadySeconds", SK__PB_INT32, 0, -1},
	{6, "revisionHistoryLimit", SK__PB_INT32, K, -1},
};
static const sk__pb_field f6[] = { /* k8s.io.api.apps.v1.DaemonSetStatus */
	{1, "currentNumberScheduled", SK__PB_INT32, K, -1},
	{2, "numberMisscheduled", SK__PB_INT32, K, -1},
	{3, "desiredNumberScheduled", SK__PB_INT32, K, -1},
	{4, "numberReady", SK__PB_INT32, K, -1},
	{5, "observedGeneration", SK__PB_INT64, 0, -1},
	{6, "updatedNumberScheduled", SK__PB_INT32, 0, -1},
	{7, "numberAvailable", SK__PB_INT32, 0, -1},
	{8, "numberUnavailable", SK__PB_INT32, 0, -1},
	{9, "collisionCount", SK__PB_INT32, K, -1},
	{10, "conditions", SK__PB_MSG, R, 3}, /* DaemonSetCondition */
};
static const sk__pb_field f7[] = { /* k8s.io.api.apps.v1.DaemonSetUpdateStrategy */
	{1, "type", SK__PB_STRING, 0, -1},
	{2, "rollingUpdate", SK__PB_MSG, K, 19}, /* RollingUpdateDaemonSet */
};
static const sk__pb_field f8[] = { /* k8s.io.api.apps.v1.Deployment */
	{1, "metadata", SK__PB_MSG, 0, 484}, /* ObjectMeta */
	{2, "spec", SK__PB_MSG, 0, 11}, /* DeploymentSpec */
	{3, "status", SK__PB_MSG, 0, 12}, /* DeploymentStatus */
};
static const sk__pb_field f9[] = { /* k8s.io.api.apps.v1.DeploymentCondition */
	{1, "type", SK__PB_STRING, K, -1},
	{2, "status", SK__PB_STRING, K, -1},
	{4, "reason", SK__PB_STRING, 0, -1},
	{5, "message", SK__PB_STRING, 0, -1},
	{6, "lastUpdateTime", SK__PB_MSG, 0, 497}, /* Time */
	{7, "lastTransitionTime", SK__PB_MSG, 0, 497}, /* Time */
};
static const sk__pb_field f10[] = { /* k8s.io.api.apps.v1.DeploymentList */
	{1, "metadata", SK__PB_MSG, 0, 480}, /* ListMeta */
	{2, "items", SK__PB_MSG, R|K, 8}, /* Deployment */
};
static const sk__pb_field f11[] = { /* k8s.io.api.apps.v1.DeploymentSpec */
	{1, "replicas", SK__PB_INT32, K, -1},
	{2, "selector", SK__PB_MSG, K, 477}, /* LabelSelector */
	{3, "template", SK__PB_MSG, K, 290}, /* PodTemplateSpec */
	{4, "strategy", SK__PB_MSG, 0, 13}, /* DeploymentStrategy */
	{5, "minReadySeconds", SK__PB_INT32, 0, -1},
	{6, "revisionHistoryLimit", SK__PB_INT32, K, -1},
	{7, "paused", SK__PB_BOOL, 0, -1},
	{9, "progressDeadlineSeconds", SK__PB_INT32, K, -1},
};
static const sk__pb_field f12[] = { /* k8s.io.api.apps.v1.DeploymentStatus */
	{1, "observedGeneration", SK__PB_INT64, 0, -1},
	{2, "replicas", SK__PB_INT32, 0, -1},
	{3, "updatedReplicas", SK__PB_INT32, 0, -1},
	{4, "availableReplicas", SK__PB_INT32, 0, -1},
	{5, "unavailableReplicas", SK__PB_INT32, 0, -1},
	{6, "conditions", SK__PB_MSG, R, 9}, /* DeploymentCondition */
	{7, "readyReplicas", SK__PB_INT32, 0, -1},
	{8, "collisionCount", SK__PB_INT32, K, -1},
	{9, "terminatingReplicas", SK__PB_INT32, K, -1},
};
static const sk__pb_field f13[] = { /* k8s.io.api.apps.v1.DeploymentStrategy */
	{1, "type", SK__PB_STRING, 0, -1},
	{2, "rollingUpdate", SK__PB_MSG, K, 20}, /* RollingUpdateDeployment */
};
static const sk__pb_field f14[] = { /* k8s.io.api.apps.v1.ReplicaSet */
	{1, "metadata", SK__PB_MSG, 0, 484}, /* ObjectMeta */
	{2, "spec", SK__PB_MSG, 0, 17}, /* ReplicaSetSpec */
	{3, "status", SK__PB_MSG, 0, 18}, /* ReplicaSetStatus */
};
static const sk__pb_field f15[] = { /* k8s.io.api.apps.v1.ReplicaSetCondition */
	{1, "type", SK__PB_STRING, K, -1},
	{2, "status", SK__PB_STRING, K, -1},
	{3, "lastTransitionTime", SK__PB_MSG, 0, 497}, /* Time */
	{4, "reason", SK__PB_STRING, 0, -1},
	{5, "message", SK__PB_STRING, 0, -1},
};
static const sk__pb_field f16[] = { /* k8s.io.api.apps.v1.ReplicaSetList */
	{1, "metadata", SK__PB_MSG, 0, 480}, /* ListMeta */
	{2, "items", SK__PB_MSG, R|K, 14}, /* ReplicaSet */
};
static const sk__pb_field f17[] = { /* k8s.io.api.apps.v1.ReplicaSetSpec */
	{1, "replicas", SK__PB_INT32, K, -1},
	{2, "selector", SK__PB_MSG, K, 477}, /* LabelSelector */
	{3, "template", SK__PB_MSG, 0, 290}, /* PodTemplateSpec */
	{4, "minReadySeconds", SK__PB_INT32, 0, -1},
};
static const sk__pb_field f18[] = { /* k8s.io.api.apps.v1.ReplicaSetStatus */
	{1, "replicas", SK__PB_INT32, K, -1},
	{2, "fullyLabeledReplicas", SK__PB_INT32, 0, -1},
	{3, "observedGeneration", SK__PB_INT64, 0, -1},
	{4, "readyReplicas", SK__PB_INT32, 0, -1},
	{5, "availableReplicas", SK__PB_INT32, 0, -1},
	{6, "conditions", SK__PB_MSG, R, 15}, /* ReplicaSetCondition */
	{7, "terminatingReplicas", SK__PB_INT32, K, -1},
};
static const sk__pb_field f19[] = { /* k8s.io.api.apps.v1.RollingUpdateDaemonSet */
	{1, "maxUnavailable", SK__PB_MSG, K, 506}, /* IntOrString */
	{2, "maxSurge", SK__PB_MSG, K, 506}, /* IntOrString */
};
static const sk__pb_field f20[] = { /* k8s.io.api.apps.v1.RollingUpdateDeployment */
	{1, "maxUnavailable", SK__PB_MSG, K, 506}, /* IntOrString */
	{2, "maxSurge", SK__PB_MSG, K, 506}, /* IntOrString */
};
static const sk__pb_field f21[] = { /* k8s.io.api.apps.v1.RollingUpdateStatefulSetStrategy */
	{1, "partition", SK__PB_INT32, K, -1},
	{2, "maxUnavailable", SK__PB_MSG, K, 506}, /* IntOrString */
};
static const sk__pb_field f22[] = { /* k8s.io.api.apps.v1.StatefulSet */
	{1, "metadata", SK__PB_MSG, 0, 484}, /* ObjectMeta */
	{2, "spec", SK__PB_MSG, 0, 27}, /* StatefulSetSpec */
	{3, "status", SK__PB_MSG, 0, 28}, /* StatefulSetStatus */
};
static const sk__pb_field f23[] = { /* k8s.io.api.apps.v1.StatefulSetCondition */
	{1, "type", SK__PB_STRING, K, -1},
	{2, "status", SK__PB_STRING, K, -1},
	{3, "lastTransitionTime", SK__PB_MSG, 0, 497}, /* Time */
	{4, "reason", SK__PB_STRING, 0, -1},
	{5, "message", SK__PB_STRING, 0, -1},
};
static const sk__pb_field f24[] = { /* k8s.io.api.apps.v1.StatefulSetList */
	{1, "metadata", SK__PB_MSG, 0, 480}, /* ListMeta */
	{2, "items", SK__PB_MSG, R|K, 22}, /* StatefulSet */
};
static const sk__pb_field f25[] = { /* k8s.io.api.apps.v1.StatefulSetOrdinals */
	{1, "start", SK__PB_INT32, K, -1},
};
static const sk__pb_field f26[] = { /* k8s.io.api.apps.v1.StatefulSetPersistentVolumeClaimRetentionPolicy */
	{1, "whenDeleted", SK__PB_STRING, 0, -1},
	{2, "whenScaled", SK__PB_STRING, 0, -1},
};
static const sk__pb_field f27[] = { /* k8s.io.api.apps.v1.StatefulSetSpec */
	{1, "replicas", SK__PB_INT32, K, -1},
	{2, "selector", SK__PB_MSG, K, 477}, /* LabelSelector */
	{3, "template", SK__PB_MSG, K, 290}, /* PodTemplateSpec */
	{4, "volumeClaimTemplates", SK__PB_MSG, R, 250}, /* PersistentVolumeClaim */
	{5, "serviceName", SK__PB_STRING, K, -1},
	{6, "podManagementPolicy", SK__PB_STRING, 0, -1},
	{7, "updateStrategy", SK__PB_MSG, 0, 29}, /* StatefulSetUpdateStrategy */
	{8, "revisionHistoryLimit", SK__PB_INT32, K, -1},
	{9, "minReadySeconds", SK__PB_INT32, 0, -1},
	{10, "persistentVolumeClaimRetentionPolicy", SK__PB_MSG, K, 26}, /* StatefulSetPersistentVolumeClaimRetentionPolicy */
	{11, "ordinals", SK__PB_MSG, K, 25}, /* StatefulSetOrdinals */
};
static const sk__pb_field f28[] = { /* k8s.io.api.apps.v1.StatefulSetStatus */
	{1, "observedGeneration", SK__PB_INT64, 0, -1},
	{2, "replicas", SK__PB_INT32, K, -1},
	{3, "readyReplicas", SK__PB_INT32, 0, -1},
	{4, "currentReplicas", SK__PB_INT32, 0, -1},
	{5, "updatedReplicas", SK__PB_INT32, 0, -1},
	{6, "currentRevision", SK__PB_STRING, 0, -1},
	{7, "updateRevision", SK__PB_STRING, 0, -1},
	{9, "collisionCount", SK__PB_INT32, K, -1},
	{10, "conditions", SK__PB_MSG, R, 23}, /* StatefulSetCondition */
	{11, "availableReplicas", SK__PB_INT32, K, -1},
};
static const sk__pb_field f29[] = { /* k8s.io.api.apps.v1.StatefulSetUpdateStrategy */
	{1, "type", SK__PB_STRING, 0, -1},
	{2, "rollingUpdate", SK__PB_MSG, K, 21}, /* RollingUpdateStatefulSetStrategy */
};
static const sk__pb_field f30[] = { /* k8s.io.api.authentication.v1.BoundObjectReference */
	{1, "kind", SK__PB_STRING, 0, -1},
	{2, "apiVersion", SK__PB_STRING, 0, -1},
	{3, "name", SK__PB_STRING, 0, -1},
	{4, "uid", SK__PB_STRING, 0, -1},
};
static const sk__pb_field f31[] = { /* k8s.io.api.authentication.v1.ExtraValue */
	{1, "items", SK__PB_STRING, R, -1},
};
static const sk__pb_field f32[] = { /* k8s.io.api.authentication.v1.SelfSubjectReview */
	{1, "metadata", SK__PB_MSG, 0, 484}, /* ObjectMeta */
	{2, "status", SK__PB_MSG, 0, 33}, /* SelfSubjectReviewStatus */
};
static const sk__pb_field f33[] = { /* k8s.io.api.authentication.v1.SelfSubjectReviewStatus */
	{1, "userInfo", SK__PB_MSG, 0, 40}, /* UserInfo */
};
static const sk__pb_field f34[] = { /* k8s.io.api.authentication.v1.TokenRequest */
	{1, "metadata", SK__PB_MSG, 0, 484}, /* ObjectMeta */
	{2, "spec", SK__PB_MSG, K, 35}, /* TokenRequestSpec */
	{3, "status", SK__PB_MSG, 0, 36}, /* TokenRequestStatus */
};
static const sk__pb_field f35[] = { /* k8s.io.api.authentication.v1.TokenRequestSpec */
	{1, "audiences", SK__PB_STRING, R|K, -1},
	{3, "boundObjectRef", SK__PB_MSG, K, 30}, /* BoundObjectReference */
	{4, "expirationSeconds", SK__PB_INT64, K, -1},
};
static const sk__pb_field f36[] = { /* k8s.io.api.authentication.v1.TokenRequestStatus */
	{1, "token", SK__PB_STRING, K, -1},
	{2, "expirationTimestamp", SK__PB_MSG, K, 497}, /* Time */
};
static const sk__pb_field f37[] = { /* k8s.io.api.authentication.v1.TokenReview */
	{1, "metadata", SK__PB_MSG, 0, 484}, /* ObjectMeta */
	{2, "spec", SK__PB_MSG, K, 38}, /* TokenReviewSpec */
	{3, "status", SK__PB_MSG, 0, 39}, /* TokenReviewStatus */
};
static const sk__pb_field f38[] = { /* k8s.io.api.authentication.v1.TokenReviewSpec */
	{1, "token", SK__PB_STRING, 0, -1},
	{2, "audiences", SK__PB_STRING, R, -1},
};
static const sk__pb_field f39[] = { /* k8s.io.api.authentication.v1.TokenReviewStatus */
	{1, "authenticated", SK__PB_BOOL, 0, -1},
	{2, "user", SK__PB_MSG, 0, 40}, /* UserInfo */
	{3, "error", SK__PB_STRING, 0, -1},
	{4, "audiences", SK__PB_STRING, R, -1},
};
static const sk__pb_field f40[] = { /* k8s.io.api.authentication.v1.UserInfo */
	{1, "username", SK__PB_STRING, 0, -1},
	{2, "uid", SK__PB_STRING, 0, -1},
	{3, "groups", SK__PB_STRING, R, -1},
	{4, "extra", SK__PB_MSG, M, 31}, /* ExtraValue */
};
static const sk__pb_field f41[] = { /* k8s.io.api.authorization.v1.ExtraValue */
	{1, "items", SK__PB_STRING, R, -1},
};
static const sk__pb_field f42[] = { /* k8s.io.api.authorization.v1.FieldSelectorAttributes */
	{1, "rawSelector", SK__PB_STRING, 0, -1},
	{2, "requirements", SK__PB_MSG, R, 468}, /* FieldSelectorRequirement */
};
static const sk__pb_field f43[] = { /* k8s.io.api.authorization.v1.LabelSelectorAttributes */
	{1, "rawSelector", SK__PB_STRING, 0, -1},
	{2, "requirements", SK__PB_MSG, R, 478}, /* LabelSelectorRequirement */
};
static const sk__pb_field f44[] = { /* k8s.io.api.authorization.v1.LocalSubjectAccessReview */
	{1, "metadata", SK__PB_MSG, 0, 484}, /* ObjectMeta */
	{2, "spec", SK__PB_MSG, K, 54}, /* SubjectAccessReviewSpec */
	{3, "status", SK__PB_MSG, 0, 55}, /* SubjectAccessReviewStatus */
};
static const sk__pb_field f45[] = { /* k8s.io.api.authorization.v1.NonResourceAttributes */
	{1, "path", SK__PB_STRING, 0, -1},
	{2, "verb", SK__PB_STRING, 0, -1},
};
static const sk__pb_field f46[] = { /* k8s.io.api.authorization.v1.NonResourceRule */
	{1, "verbs", SK__PB_STRING, R|K, -1},
	{2, "nonResourceURLs", SK__PB_STRING, R, -1},
};
static const sk__pb_field f47[] = { /* k8s.io.api.authorization.v1.ResourceAttributes */
	{1, "namespace", SK__PB_STRING, 0, -1},
	{2, "verb", SK__PB_STRING, 0, -1},
	{3, "group", SK__PB_STRING, 0, -1},
	{4, "version", SK__PB_STRING, 0, -1},
	{5, "resource", SK__PB_STRING, 0, -1},
	{6, "subresource", SK__PB_STRING, 0, -1},
	{7, "name", SK__PB_STRING, 0, -1},
	{8, "fieldSelector", SK__PB_MSG, K, 42}, /* FieldSelectorAttributes */
	{9, "labelSelector", SK__PB_MSG, K, 43}, /* LabelSelectorAttributes */
};
static const sk__pb_field f48[] = { /* k8s.io.api.authorization.v1.ResourceRule */
	{1, "verbs", SK__PB_STRING, R|K, -1},
	{2, "apiGroups", SK__PB_STRING, R, -1},
	{3, "resources", SK__PB_STRING, R, -1},
	{4, "resourceNames", SK__PB_STRING, R, -1},
};
static const sk__pb_field f49[] = { /* k8s.io.api.authorization.v1.SelfSubjectAccessReview */
	{1, "metadata", SK__PB_MSG, 0, 484}, /* ObjectMeta */
	{2, "spec", SK__PB_MSG, K, 50}, /* SelfSubjectAccessReviewSpec */
	{3, "status", SK__PB_MSG, 0, 55}, /* SubjectAccessReviewStatus */
};
static const sk__pb_field f50[] = { /* k8s.io.api.authorization.v1.SelfSubjectAccessReviewSpec */
	{1, "resourceAttributes", SK__PB_MSG, K, 47}, /* ResourceAttributes */
	{2, "nonResourceAttributes", SK__PB_MSG, K, 45}, /* NonResourceAttributes */
};
static const sk__pb_field f51[] = { /* k8s.io.api.authorization.v1.SelfSubjectRulesReview */
	{1, "metadata", SK__PB_MSG, 0, 484}, /* ObjectMeta */
	{2, "spec", SK__PB_MSG, K, 52}, /* SelfSubjectRulesReviewSpec */
	{3, "status", SK__PB_MSG, 0, 56}, /* SubjectRulesReviewStatus */
};
static const sk__pb_field f52[] = { /* k8s.io.api.authorization.v1.SelfSubjectRulesReviewSpec */
	{1, "namespace", SK__PB_STRING, 0, -1},
};
static const sk__pb_field f53[] = { /* k8s.io.api.authorization.v1.SubjectAccessReview */
	{1, "metadata", SK__PB_MSG, 0, 484}, /* ObjectMeta */
	{2, "spec", SK__PB_MSG, K, 54}, /* SubjectAccessReviewSpec */
	{3, "status", SK__PB_MSG, 0, 55}, /* SubjectAccessReviewStatus */
};
static const sk__pb_field f54[] = { /* k8s.io.api.authorization.v1.SubjectAccessReviewSpec */
	{1, "resourceAttributes", SK__PB_MSG, K, 47}, /* ResourceAttributes */
	{2, "nonResourceAttributes", SK__PB_MSG, K, 45}, /* NonResourceAttributes */
	{3, "user", SK__PB_STRING, 0, -1},
	{4, "groups", SK__PB_STRING, R, -1},
	{5, "extra", SK__PB_MSG, M, 41}, /* ExtraValue */
	{6, "uid", SK__PB_STRING, 0, -1},
};
static const sk__pb_field f55[] = { /* k8s.io.api.authorization.v1.SubjectAccessReviewStatus */
	{1, "allowed", SK__PB_BOOL, K, -1},
	{2, "reason", SK__PB_STRING, 0, -1},
	{3, "evaluationError", SK__PB_STRING, 0, -1},
	{4, "denied", SK__PB_BOOL, 0, -1},
};
static const sk__pb_field f56[] = { /* k8s.io.api.authorization.v1.SubjectRulesReviewStatus */
	{1, "resourceRules", SK__PB_MSG, R|K, 48}, /* ResourceRule */
	{2, "nonResourceRules", SK__PB_MSG, R|K, 46}, /* NonResourceRule */
	{3, "incomplete", SK__PB_BOOL, K, -1},
	{4, "evaluationError", SK__PB_STRING, 0, -1},
};
static const sk__pb_field f57[] = { /* k8s.io.api.autoscaling.v1.ContainerResourceMetricSource */
	{1, "name", SK__PB_STRING, K, -1},
	{2, "targetAverageUtilization", SK__PB_INT32, K, -1},
	{3, "targetAverageValue", SK__PB_MSG, K, 456}, /* Quantity */
	{5, "container", SK__PB_STRING, K, -1},
};
static const sk__pb_field f58[] = { /* k8s.io.api.autoscaling.v1.ContainerResourceMetricStatus */
	{1, "name", SK__PB_STRING, K, -1},
	{2, "currentAverageUtilization", SK__PB_INT32, K, -1},
	{3, "currentAverageValue", SK__PB_MSG, K, 456}, /* Quantity */
	{4, "container", SK__PB_STRING, K, -1},
};
static const sk__pb_field f59[] = { /* k8s.io.api.autoscaling.v1.CrossVersionObjectReference */
	{1, "kind", SK__PB_STRING, K, -1},
	{2, "name", SK__PB_STRING, K, -1},
	{3, "apiVersion", SK__PB_STRING, 0, -1},
};
static const sk__pb_field f60[] = { /* k8s.io.api.autoscaling.v1.ExternalMetricSource */
	{1, "metricName", SK__PB_STRING, K, -1},
	{2, "metricSelector", SK__PB_MSG, K, 477}, /* LabelSelector */
	{3, "targetValue", SK__PB_MSG, K, 456}, /* Quantity */
	{4, "targetAverageValue", SK__PB_MSG, K, 456}, /* Quantity */
};
static const sk__pb_field f61[] = { /* k8s.io.api.autoscaling.v1.ExternalMetricStatus */
	{1, "metricName", SK__PB_STRING, K, -1},
	{2, "metricSelector", SK__PB_MSG, K, 477}, /* LabelSelector */
	{3, "currentValue", SK__PB_MSG, K, 456}, /* Quantity */
	{4, "currentAverageValue", SK__PB_MSG, K, 456}, /* Quantity */
};
static const sk__pb_field f62[] = { /* k8s.io.api.autoscaling.v1.HorizontalPodAutoscaler */
	{1, "metadata", SK__PB_MSG, 0, 484}, /* ObjectMeta */
	{2, "spec", SK__PB_MSG, 0, 65}, /* HorizontalPodAutoscalerSpec */
	{3, "status", SK__PB_MSG, 0, 66}, /* HorizontalPodAutoscalerStatus */
};
static const sk__pb_field f63[] = { /* k8s.io.api.autoscaling.v1.HorizontalPodAutoscalerCondition */
	{1, "type", SK__PB_STRING, K, -1},
	{2, "status", SK__PB_STRING, K, -1},
	{3, "lastTransitionTime", SK__PB_MSG, 0, 497}, /* Time */
	{4, "reason", SK__PB_STRING, 0, -1},
	{5, "message", SK__PB_STRING, 0, -1},
};
static const sk__pb_field f64[] = { /* k8s.io.api.autoscaling.v1.HorizontalPodAutoscalerList */
	{1, "metadata", SK__PB_MSG, 0, 480}, /* ListMeta */
	{2, "items", SK__PB_MSG, R|K, 62}, /* HorizontalPodAutoscaler */
};
static const sk__pb_field f65[] = { /* k8s.io.api.autoscaling.v1.HorizontalPodAutoscalerSpec */
	{1, "scaleTargetRef", SK__PB_MSG, K, 59}, /* CrossVersionObjectReference */
	{2, "minReplicas", SK__PB_INT32, K, -1},
	{3, "maxReplicas", SK__PB_INT32, K, -1},
	{4, "targetCPUUtilizationPercentage", SK__PB_INT32, K, -1},
};
static const sk__pb_field f66[] = { /* k8s.io.api.autoscaling.v1.HorizontalPodAutoscalerStatus */
	{1, "observedGeneration", SK__PB_INT64, K, -1},
	{2, "lastScaleTime", SK__PB_MSG, K, 497}, /* Time */
	{3, "currentReplicas", SK__PB_INT32, K, -1},
	{4, "desiredReplicas", SK__PB_INT32, K, -1},
	{5, "currentCPUUtilizationPercentage", SK__PB_INT32, K, -1},
};
static const sk__pb_field f67[] = { /* k8s.io.api.autoscaling.v1.MetricSpec */
	{1, "type", SK__PB_STRING, K, -1},
	{2, "object", SK__PB_MSG, K, 69}, /* ObjectMetricSource */
	{3, "pods", SK__PB_MSG, K, 71}, /* PodsMetricSource */
	{4, "resource", SK__PB_MSG, K, 73}, /* ResourceMetricSource */
	{5, "external", SK__PB_MSG, K, 60}, /* ExternalMetricSource */
	{7, "containerResource", SK__PB_MSG, K, 57}, /* ContainerResourceMetricSource */
};
static const sk__pb_field f68[] = { /* k8s.io.api.autoscaling.v1.MetricStatus */
	{1, "type", SK__PB_STRING, K, -1},
	{2, "object", SK__PB_MSG, K, 70}, /* ObjectMetricStatus */
	{3, "pods", SK__PB_MSG, K, 72}, /* PodsMetricStatus */
	{4, "resource", SK__PB_MSG, K, 74}, /* ResourceMetricStatus */
	{5, "external", SK__PB_MSG, K, 61}, /* ExternalMetricStatus */
	{7, "containerResource", SK__PB_MSG, K, 58}, /* ContainerResourceMetricStatus */
};
static const sk__pb_field f69[] = { /* k8s.io.api.autoscaling.v1.ObjectMetricSource */
	{1, "target", SK__PB_MSG, K, 59}, /* CrossVersionObjectReference */
	{2, "metricName", SK__PB_STRING, K, -1},
	{3, "targetValue", SK__PB_MSG, K, 456}, /* Quantity */
	{4, "selector", SK__PB_MSG, K, 477}, /* LabelSelector */
	{5, "averageValue", SK__PB_MSG, K, 456}, /* Quantity */
};
static const sk__pb_field f70[] = { /* k8s.io.api.autoscaling.v1.ObjectMetricStatus */
	{1, "target", SK__PB_MSG, K, 59}, /* CrossVersionObjectReference */
	{2, "metricName", SK__PB_STRING, K, -1},
	{3, "currentValue", SK__PB_MSG, K, 456}, /* Quantity */
	{4, "selector", SK__PB_MSG, K, 477}, /* LabelSelector */
	{5, "averageValue", SK__PB_MSG, K, 456}, /* Quantity */
};
static const sk__pb_field f71[] = { /* k8s.io.api.autoscaling.v1.PodsMetricSource */
	{1, "metricName", SK__PB_STRING, K, -1},
	{2, "targetAverageValue", SK__PB_MSG, K, 456}, /* Quantity */
	{3, "selector", SK__PB_MSG, K, 477}, /* LabelSelector */
};
static const sk__pb_field f72[] = { /* k8s.io.api.autoscaling.v1.PodsMetricStatus */
	{1, "metricName", SK__PB_STRING, K, -1},
	{2, "currentAverageValue", SK__PB_MSG, K, 456}, /* Quantity */
	{3, "selector", SK__PB_MSG, K, 477}, /* LabelSelector */
};
static const sk__pb_field f73[] = { /* k8s.io.api.autoscaling.v1.ResourceMetricSource */
	{1, "name", SK__PB_STRING, K, -1},
	{2, "targetAverageUtilization", SK__PB_INT32, K, -1},
	{3, "targetAverageValue", SK__PB_MSG, K, 456}, /* Quantity */
};
static const sk__pb_field f74[] = { /* k8s.io.api.autoscaling.v1.ResourceMetricStatus */
	{1, "name", SK__PB_STRING, K, -1},
	{2, "currentAverageUtilization", SK__PB_INT32, K, -1},
	{3, "currentAverageValue", SK__PB_MSG, K, 456}, /* Quantity */
};
static const sk__pb_field f75[] = { /* k8s.io.api.autoscaling.v1.Scale */
	{1, "metadata", SK__PB_MSG, 0, 484}, /* ObjectMeta */
	{2, "spec", SK__PB_MSG, 0, 76}, /* ScaleSpec */
	{3, "status", SK__PB_MSG, 0, 77}, /* ScaleStatus */
};
static const sk__pb_field f76[] = { /* k8s.io.api.autoscaling.v1.ScaleSpec */
	{1, "replicas", SK__PB_INT32, 0, -1},
};
static const sk__pb_field f77[] = { /* k8s.io.api.autoscaling.v1.ScaleStatus */
	{1, "replicas", SK__PB_INT32, K, -1},
	{2, "selector", SK__PB_STRING, 0, -1},
};
static const sk__pb_field f78[] = { /* k8s.io.api.autoscaling.v2.ContainerResourceMetricSource */
	{1, "name", SK__PB_STRING, K, -1},
	{2, "target", SK__PB_MSG, K, 94}, /* MetricTarget */
	{3, "container", SK__PB_STRING, K, -1},
};
static const sk__pb_field f79[] = { /* k8s.io.api.autoscaling.v2.ContainerResourceMetricStatus */
	{1, "name", SK__PB_STRING, K, -1},
	{2, "current", SK__PB_MSG, K, 95}, /* MetricValueStatus */
	{3, "container", SK__PB_STRING, K, -1},
};
static const sk__pb_field f80[] = { /* k8s.io.api.autoscaling.v2.CrossVersionObjectReference */
	{1, "kind", SK__PB_STRING, K, -1},
	{2, "name", SK__PB_STRING, K, -1},
	{3, "apiVersion", SK__PB_STRING, 0, -1},
};
static const sk__pb_field f81[] = { /* k8s.io.api.autoscaling.v2.ExternalMetricSource */
	{1, "metric", SK__PB_MSG, K, 91}, /* MetricIdentifier */
	{2, "target", SK__PB_MSG, K, 94}, /* MetricTarget */
};
static const sk__pb_field f82[] = { /* k8s.io.api.autoscaling.v2.ExternalMetricStatus */
	{1, "metric", SK__PB_MSG, K, 91}, /* MetricIdentifier */
	{2, "current", SK__PB_MSG, K, 95}, /* MetricValueStatus */
};
static const sk__pb_field f83[] = { /* k8s.io.api.autoscaling.v2.HPAScalingPolicy */
	{1, "type", SK__PB_STRING, K, -1},
	{2, "value", SK__PB_INT32, K, -1},
	{3, "periodSeconds", SK__PB_INT32, K, -1},
};
static const sk__pb_field f84[] = { /* k8s.io.api.autoscaling.v2.HPAScalingRules */
	{1, "selectPolicy", SK__PB_STRING, K, -1},
	{2, "policies", SK__PB_MSG, R, 83}, /* HPAScalingPolicy */
	{3, "stabilizationWindowSeconds", SK__PB_INT32, K, -1},
	{4, "tolerance", SK__PB_MSG, K, 456}, /* Quantity */
};
static const sk__pb_field f85[] = { /* k8s.io.api.autoscaling.v2.HorizontalPodAutoscaler */
	{1, "metadata", SK__PB_MSG, 0, 484}, /* ObjectMeta */
	{2, "spec", SK__PB_MSG, 0, 89}, /* HorizontalPodAutoscalerSpec */
	{3, "status", SK__PB_MSG, 0, 90}, /* HorizontalPodAutoscalerStatus */
};
static const sk__pb_field f86[] = { /* k8s.io.api.autoscaling.v2.HorizontalPodAutoscalerBehavior */
	{1, "scaleUp", SK__PB_MSG, K, 84}, /* HPAScalingRules */
	{2, "scaleDown", SK__PB_MSG, K, 84}, /* HPAScalingRules */
};
static const sk__pb_field f87[] = { /* k8s.io.api.autoscaling.v2.HorizontalPodAutoscalerCondition */
	{1, "type", SK__PB_STRING, K, -1},
	{2, "status", SK__PB_STRING, K, -1},
	{3, "lastTransitionTime", SK__PB_MSG, 0, 497}, /* Time */
	{4, "reason", SK__PB_STRING, 0, -1},
	{5, "message", SK__PB_STRING, 0, -1},
};
static const sk__pb_field f88[] = { /* k8s.io.api.autoscaling.v2.HorizontalPodAutoscalerList */
	{1, "metadata", SK__PB_MSG, 0, 480}, /* ListMeta */
	{2, "items", SK__PB_MSG, R|K, 85}, /* HorizontalPodAutoscaler */
};
static const sk__pb_field f89[] = { /* k8s.io.api.autoscaling.v2.HorizontalPodAutoscalerSpec */
	{1, "scaleTargetRef", SK__PB_MSG, K, 80}, /* CrossVersionObjectReference */
	{2, "minReplicas", SK__PB_INT32, K, -1},
	{3, "maxReplicas", SK__PB_INT32, K, -1},
	{4, "metrics", SK__PB_MSG, R, 92}, /* MetricSpec */
	{5, "behavior", SK__PB_MSG, K, 86}, /* HorizontalPodAutoscalerBehavior */
};
static const sk__pb_field f90[] = { /* k8s.io.api.autoscaling.v2.HorizontalPodAutoscalerStatus */
	{1, "observedGeneration", SK__PB_INT64, K, -1},
	{2, "lastScaleTime", SK__PB_MSG, K, 497}, /* Time */
	{3, "currentReplicas", SK__PB_INT32, 0, -1},
	{4, "desiredReplicas", SK__PB_INT32, K, -1},
	{5, "currentMetrics", SK__PB_MSG, R|K, 93}, /* MetricStatus */
	{6, "conditions", SK__PB_MSG, R, 87}, /* HorizontalPodAutoscalerCondition */
};
static const sk__pb_field f91[] = { /* k8s.io.api.autoscaling.v2.MetricIdentifier */
	{1, "name", SK__PB_STRING, K, -1},
	{2, "selector", SK__PB_MSG, K, 477}, /* LabelSelector */
};
static const sk__pb_field f92[] = { /* k8s.io.api.autoscaling.v2.MetricSpec */
	{1, "type", SK__PB_STRING, K, -1},
	{2, "object", SK__PB_MSG, K, 96}, /* ObjectMetricSource */
	{3, "pods", SK__PB_MSG, K, 98}, /* PodsMetricSource */
	{4, "resource", SK__PB_MSG, K, 100}, /* ResourceMetricSource */
	{5, "external", SK__PB_MSG, K, 81}, /* ExternalMetricSource */
	{7, "containerResource", SK__PB_MSG, K, 78}, /* ContainerResourceMetricSource */
};
static const sk__pb_field f93[] = { /* k8s.io.api.autoscaling.v2.MetricStatus */
	{1, "type", SK__PB_STRING, K, -1},
	{2, "object", SK__PB_MSG, K, 97}, /* ObjectMetricStatus */
	{3, "pods", SK__PB_MSG, K, 99}, /* PodsMetricStatus */
	{4, "resource", SK__PB_MSG, K, 101}, /* ResourceMetricStatus */
	{5, "external", SK__PB_MSG, K, 82}, /* ExternalMetricStatus */
	{7, "containerResource", SK__PB_MSG, K, 79}, /* ContainerResourceMetricStatus */
};
static const sk__pb_field f94[] = { /* k8s.io.api.autoscaling.v2.MetricTarget */
	{1, "type", SK__PB_STRING, K, -1},
	{2, "value", SK__PB_MSG, K, 456}, /* Quantity */
	{3, "averageValue", SK__PB_MSG, K, 456}, /* Quantity */
	{4, "averageUtilization", SK__PB_INT32, K, -1},
};
static const sk__pb_field f95[] = { /* k8s.io.api.autoscaling.v2.MetricValueStatus */
	{1, "value", SK__PB_MSG, K, 456}, /* Quantity */
	{2, "averageValue", SK__PB_MSG, K, 456}, /* Quantity */
	{3, "averageUtilization", SK__PB_INT32, K, -1},
};
static const sk__pb_field f96[] = { /* k8s.io.api.autoscaling.v2.ObjectMetricSource */
	{1, "describedObject", SK__PB_MSG, K, 80}, /* CrossVersionObjectReference */
	{2, "target", SK__PB_MSG, K, 94}, /* MetricTarget */
	{3, "metric", SK__PB_MSG, K, 91}, /* MetricIdentifier */
};
static const sk__pb_field f97[] = { /* k8s.io.api.autoscaling.v2.ObjectMetricStatus */
	{1, "metric", SK__PB_MSG, K, 91}, /* MetricIdentifier */
	{2, "current", SK__PB_MSG, K, 95}, /* MetricValueStatus */
	{3, "describedObject", SK__PB_MSG, K, 80}, /* CrossVersionObjectReference */
};
static const sk__pb_field f98[] = { /* k8s.io.api.autoscaling.v2.PodsMetricSource */
	{1, "metric", SK__PB_MSG, K, 91}, /* MetricIdentifier */
	{2, "target", SK__PB_MSG, K, 94}, /* MetricTarget */
};
static const sk__pb_field f99[] = { /* k8s.io.api.autoscaling.v2.PodsMetricStatus */
	{1, "metric", SK__PB_MSG, K, 91}, /* MetricIdentifier */
	{2, "current", SK__PB_MSG, K, 95}, /* MetricValueStatus */
};
static const sk__pb_field f100[] = { /* k8s.io.api.autoscaling.v2.ResourceMetricSource */
	{1, "name", SK__PB_STRING, K, -1},
	{2, "target", SK__PB_MSG, K, 94}, /* MetricTarget */
};
static const sk__pb_field f101[] = { /* k8s.io.api.autoscaling.v2.ResourceMetricStatus */
	{1, "name", SK__PB_STRING, K, -1},
	{2, "current", SK__PB_MSG, K, 95}, /* MetricValueStatus */
};
static const sk__pb_field f102[] = { /* k8s.io.api.batch.v1.CronJob */
	{1, "metadata", SK__PB_MSG, 0, 484}, /* ObjectMeta */
	{2, "spec", SK__PB_MSG, 0, 104}, /* CronJobSpec */
	{3, "status", SK__PB_MSG, 0, 105}, /* CronJobStatus */
};
static const sk__pb_field f103[] = { /* k8s.io.api.batch.v1.CronJobList */
	{1, "metadata", SK__PB_MSG, 0, 480}, /* ListMeta */
	{2, "items", SK__PB_MSG, R|K, 102}, /* CronJob */
};
static const sk__pb_field f104[] = { /* k8s.io.api.batch.v1.CronJobSpec */
	{1, "schedule", SK__PB_STRING, K, -1},
	{2, "startingDeadlineSeconds", SK__PB_INT64, K, -1},
	{3, "concurrencyPolicy", SK__PB_STRING, 0, -1},
	{4, "suspend", SK__PB_BOOL, K, -1},
	{5, "jobTemplate", SK__PB_MSG, K, 111}, /* JobTemplateSpec */
	{6, "successfulJobsHistoryLimit", SK__PB_INT32, K, -1},
	{7, "failedJobsHistoryLimit", SK__PB_INT32, K, -1},
	{8, "timeZone", SK__PB_STRING, K, -1},
};
static const sk__pb_field f105[] = { /* k8s.io.api.batch.v1.CronJobStatus */
	{1, "active", SK__PB_MSG, R, 248}, /* ObjectReference */
	{4, "lastScheduleTime", SK__PB_MSG, K, 497}, /* Time */
	{5, "lastSuccessfulTime", SK__PB_MSG, K, 497}, /* Time */
};
static const sk__pb_field f106[] = { /* k8s.io.api.batch.v1.Job */
	{1, "metadata", SK__PB_MSG, 0, 484}, /* ObjectMeta */
	{2, "spec", SK__PB_MSG, 0, 109}, /* JobSpec */
	{3, "status", SK__PB_MSG, 0, 110}, /* JobStatus */
};
static const sk__pb_field f107[] = { /* k8s.io.api.batch.v1.JobCondition */
	{1, "type", SK__PB_STRING, K, -1},
	{2, "status", SK__PB_STRING, K, -1},
	{3, "lastProbeTime", SK__PB_MSG, 0, 497}, /* Time */
	{4, "lastTransitionTime", SK__PB_MSG, 0, 497}, /* Time */
	{5, "reason", SK__PB_STRING, 0, -1},
	{6, "message", SK__PB_STRING, 0, -1},
};
static const sk__pb_field f108[] = { /* k8s.io.api.batch.v1.JobList */
	{1, "metadata", SK__PB_MSG, 0, 480}, /* ListMeta */
	{2, "items", SK__PB_MSG, R|K, 106}, /* Job */
};
static const sk__pb_field f109[] = { /* k8s.io.api.batch.v1.JobSpec */
	{1, "parallelism", SK__PB_INT32, K, -1},
	{2, "completions", SK__PB_INT32, K, -1},
	{3, "activeDeadlineSeconds", SK__PB_INT64, K, -1},
	{4, "selector", SK__PB_MSG, K, 477}, /* LabelSelector */
	{5, "manualSelector", SK__PB_BOOL, K, -1},
	{6, "template", SK__PB_MSG, K, 290}, /* PodTemplateSpec */
	{7, "backoffLimit", SK__PB_INT32, K, -1},
	{8, "ttlSecondsAfterFinished", SK__PB_INT32, K, -1},
	{9, "completionMode", SK__PB_STRING, K, -1},
	{10, "suspend", SK__PB_BOOL, K, -1},
	{11, "podFailurePolicy", SK__PB_MSG, K, 112}, /* PodFailurePolicy */
	{12, "backoffLimitPerIndex", SK__PB_INT32, K, -1},
	{13, "maxFailedIndexes", SK__PB_INT32, K, -1},
	{14, "podReplacementPolicy", SK__PB_STRING, K, -1},
	{15, "managedBy", SK__PB_STRING, K, -1},
	{16, "successPolicy", SK__PB_MSG, K, 116}, /* SuccessPolicy */
};
static const sk__pb_field f110[] = { /* k8s.io.api.batch.v1.JobStatus */
	{1, "conditions", SK__PB_MSG, R, 107}, /* JobCondition */
	{2, "startTime", SK__PB_MSG, K, 497}, /* Time */
	{3, "completionTime", SK__PB_MSG, K, 497}, /* Time */
	{4, "active", SK__PB_INT32, 0, -1},
	{5, "succeeded", SK__PB_INT32, 0, -1},
	{6, "failed", SK__PB_INT32, 0, -1},
	{7, "completedIndexes", SK__PB_STRING, 0, -1},
	{8, "uncountedTerminatedPods", SK__PB_MSG, K, 118}, /* UncountedTerminatedPods */
	{9, "ready", SK__PB_INT32, K, -1},
	{10, "failedIndexes", SK__PB_STRING, K, -1},
	{11, "terminating", SK__PB_INT32, K, -1},
};
static const sk__pb_field f111[] = { /* k8s.io.api.batch.v1.JobTemplateSpec */
	{1, "metadata", SK__PB_MSG, 0, 484}, /* ObjectMeta */
	{2, "spec", SK__PB_MSG, 0, 109}, /* JobSpec */
};
static const sk__pb_field f112[] = { /* k8s.io.api.batch.v1.PodFailurePolicy */
	{1, "rules", SK__PB_MSG, R|K, 115}, /* PodFailurePolicyRule */
};
static const sk__pb_field f113[] = { /* k8s.io.api.batch.v1.PodFailurePolicyOnExitCodesRequirement */
	{1, "containerName", SK__PB_STRING, K, -1},
	{2, "operator", SK__PB_STRING, K, -1},
	{3, "values", SK__PB_INT32, R|K, -1},
};
static const sk__pb_field f114[] = { /* k8s.io.api.batch.v1.PodFailurePolicyOnPodConditionsPattern */
	{1, "type", SK__PB_STRING, K, -1},
	{2, "status", SK__PB_STRING, K, -1},
};
static const sk__pb_field f115[] = { /* k8s.io.api.batch.v1.PodFailurePolicyRule */
	{1, "action", SK__PB_STRING, K, -1},
	{2, "onExitCodes", SK__PB_MSG, K, 113}, /* PodFailurePolicyOnExitCodesRequirement */
	{3, "onPodConditions", SK__PB_MSG, R, 114}, /* PodFailurePolicyOnPodConditionsPattern */
};
static const sk__pb_field f116[] = { /* k8s.io.api.batch.v1.SuccessPolicy */
	{1, "rules", SK__PB_MSG, R|K, 117}, /* SuccessPolicyRule */
};
static const sk__pb_field f117[] = { /* k8s.io.api.batch.v1.SuccessPolicyRule */
	{1, "succeededIndexes", SK__PB_STRING, K, -1},
	{2, "succeededCount", SK__PB_INT32, K, -1},
};
static const sk__pb_field f118[] = { /* k8s.io.api.batch.v1.UncountedTerminatedPods */
	{1, "succeeded", SK__PB_STRING, R, -1},
	{2, "failed", SK__PB_STRING, R, -1},
};
static const sk__pb_field f119[] = { /* k8s.io.api.certificates.v1.CertificateSigningRequest */
	{1, "metadata", SK__PB_MSG, 0, 484}, /* ObjectMeta */
	{2, "spec", SK__PB_MSG, K, 122}, /* CertificateSigningRequestSpec */
	{3, "status", SK__PB_MSG, 0, 123}, /* CertificateSigningRequestStatus */
};
static const sk__pb_field f120[] = { /* k8s.io.api.certificates.v1.CertificateSigningRequestCondition */
	{1, "type", SK__PB_STRING, K, -1},
	{2, "reason", SK__PB_STRING, 0, -1},
	{3, "message", SK__PB_STRING, 0, -1},
	{4, "lastUpdateTime", SK__PB_MSG, 0, 497}, /* Time */
	{5, "lastTransitionTime", SK__PB_MSG, 0, 497}, /* Time */
	{6, "status", SK__PB_STRING, K, -1},
};
static const sk__pb_field f121[] = { /* k8s.io.api.certificates.v1.CertificateSigningRequestList */
	{1, "metadata", SK__PB_MSG, 0, 480}, /* ListMeta */
	{2, "items", SK__PB_MSG, R|K, 119}, /* CertificateSigningRequest */
};
static const sk__pb_field f122[] = { /* k8s.io.api.certificates.v1.CertificateSigningRequestSpec */
	{1, "request", SK__PB_BYTES, K, -1},
	{2, "username", SK__PB_STRING, 0, -1},
	{3, "uid", SK__PB_STRING, 0, -1},
	{4, "groups", SK__PB_STRING, R, -1},
	{5, "usages", SK__PB_STRING, R, -1},
	{6, "extra", SK__PB_MSG, M, 124}, /* ExtraValue */
	{7, "signerName", SK__PB_STRING, K, -1},
	{8, "expirationSeconds", SK__PB_INT32, K, -1},
};
static const sk__pb_field f123[] = { /* k8s.io.api.certificates.v1.CertificateSigningRequestStatus */
	{1, "conditions", SK__PB_MSG, R, 120}, /* CertificateSigningRequestCondition */
	{2, "certificate", SK__PB_BYTES, 0, -1},
};
static const sk__pb_field f124[] = { /* k8s.io.api.certificates.v1.ExtraValue */
	{1, "items", SK__PB_STRING, R, -1},
};
static const sk__pb_field f125[] = { /* k8s.io.api.coordination.v1.Lease */
	{1, "metadata", SK__PB_MSG, 0, 484}, /* ObjectMeta */
	{2, "spec", SK__PB_MSG, 0, 127}, /* LeaseSpec */
};
static const sk__pb_field f126[] = { /* k8s.io.api.coordination.v1.LeaseList */
	{1, "metadata", SK__PB_MSG, 0, 480}, /* ListMeta */
	{2, "items", SK__PB_MSG, R|K, 125}, /* Lease */
};
static const sk__pb_field f127[] = { /* k8s.io.api.coordination.v1.LeaseSpec */
	{1, "holderIdentity", SK__PB_STRING, K, -1},
	{2, "leaseDurationSeconds", SK__PB_INT32, K, -1},
	{3, "acquireTime", SK__PB_MSG, K, 483}, /* MicroTime */
	{4, "renewTime", SK__PB_MSG, K, 483}, /* MicroTime */
	{5, "leaseTransitions", SK__PB_INT32, K, -1},
	{6, "strategy", SK__PB_STRING, K, -1},
	{7, "preferredHolder", SK__PB_STRING, K, -1},
};
static const sk__pb_field f128[] = { /* k8s.io.api.core.v1.AWSElasticBlockStoreVolumeSource */
	{1, "volumeID", SK__PB_STRING, K, -1},
	{2, "fsType", SK__PB_STRING, 0, -1},
	{3, "partition", SK__PB_INT32, 0, -1},
	{4, "readOnly", SK__PB_BOOL, 0, -1},
};
static const sk__pb_field f129[] = { /* k8s.io.api.core.v1.Affinity */
	{1, "nodeAffinity", SK__PB_MSG, K, 230}, /* NodeAffinity */
	{2, "podAffinity", SK__PB_MSG, K, 263}, /* PodAffinity */
	{3, "podAntiAffinity", SK__PB_MSG, K, 265}, /* PodAntiAffinity */
};
static const sk__pb_field f130[] = { /* k8s.io.api.core.v1.AppArmorProfile */
	{1, "type", SK__PB_STRING, K, -1},
	{2, "localhostProfile", SK__PB_STRING, K, -1},
};
static const sk__pb_field f131[] = { /* k8s.io.api.core.v1.AttachedVolume */
	{1, "name", SK__PB_STRING, K, -1},
	{2, "devicePath", SK__PB_STRING, K, -1},
};
static const sk__pb_field f132[] = { /* k8s.io.api.core.v1.AvoidPods */
	{1, "preferAvoidPods", SK__PB_MSG, R, 294}, /* PreferAvoidPodsEntry */
};
static const sk__pb_field f133[] = { /* k8s.io.api.core.v1.AzureDiskVolumeSource */
	{1, "diskName", SK__PB_STRING, K, -1},
	{2, "diskURI", SK__PB_STRING, K, -1},
	{3, "cachingMode", SK__PB_STRING, K, -1},
	{4, "fsType", SK__PB_STRING, K, -1},
	{5, "readOnly", SK__PB_BOOL, K, -1},
	{6, "kind", SK__PB_STRING, K, -1},
};
static const sk__pb_field f134[] = { /* k8s.io.api.core.v1.AzureFilePersistentVolumeSource */
	{1, "secretName", SK__PB_STRING, K, -1},
	{2, "shareName", SK__PB_STRING, K, -1},
	{3, "readOnly", SK__PB_BOOL, 0, -1},
	{4, "secretNamespace", SK__PB_STRING, K, -1},
};
static const sk__pb_field f135[] = { /* k8s.io.api.core.v1.AzureFileVolumeSource */
	{1, "secretName", SK__PB_STRING, K, -1},
	{2, "shareName", SK__PB_STRING, K, -1},
	{3, "readOnly", SK__PB_BOOL, 0, -1},
};
static const sk__pb_field f136[] = { /* k8s.io.api.core.v1.Binding */
	{1, "metadata", SK__PB_MSG, 0, 484}, /* ObjectMeta */
	{2, "target", SK__PB_MSG, K, 248}, /* ObjectReference */
};
static const sk__pb_field f137[] = { /* k8s.io.api.core.v1.CSIPersistentVolumeSource */
	{1, "driver", SK__PB_STRING, K, -1},
	{2, "volumeHandle", SK__PB_STRING, K, -1},
	{3, "readOnly", SK__PB_BOOL, 0, -1},
	{4, "fsType", SK__PB_STRING, 0, -1},
	{5, "volumeAttributes", SK__PB_STRING, M, -1},
	{6, "controllerPublishSecretRef", SK__PB_MSG, K, 328}, /* SecretReference */
	{7, "nodeStageSecretRef", SK__PB_MSG, K, 328}, /* SecretReference */
	{8, "nodePublishSecretRef", SK__PB_MSG, K, 328}, /* SecretReference */
	{9, "controllerExpandSecretRef", SK__PB_MSG, K, 328}, /* SecretReference */
	{10, "nodeExpandSecretRef", SK__PB_MSG, K, 328}, /* SecretReference */
};
static const sk__pb_field f138[] = { /* k8s.io.api.core.v1.CSIVolumeSource */
	{1, "driver", SK__PB_STRING, K, -1},
	{2, "readOnly", SK__PB_BOOL, K, -1},
	{3, "fsType", SK__PB_STRING, K, -1},
	{4, "volumeAttributes", SK__PB_STRING, M, -1},
	{5, "nodePublishSecretRef", SK__PB_MSG, K, 219}, /* LocalObjectReference */
};
static const sk__pb_field f139[] = { /* k8s.io.api.core.v1.Capabilities */
	{1, "add", SK__PB_STRING, R, -1},
	{2, "drop", SK__PB_STRING, R, -1},
};
static const sk__pb_field f140[] = { /* k8s.io.api.core.v1.CephFSPersistentVolumeSource */
	{1, "monitors", SK__PB_STRING, R|K, -1},
	{2, "path", SK__PB_STRING, 0, -1},
	{3, "user", SK__PB_STRING, 0, -1},
	{4, "secretFile", SK__PB_STRING, 0, -1},
	{5, "secretRef", SK__PB_MSG, K, 328}, /* SecretReference */
	{6, "readOnly", SK__PB_BOOL, 0, -1},
};
static const sk__pb_field f141[] = { /* k8s.io.api.core.v1.CephFSVolumeSource */
	{1, "monitors", SK__PB_STRING, R|K, -1},
	{2, "path", SK__PB_STRING, 0, -1},
	{3, "user", SK__PB_STRING, 0, -1},
	{4, "secretFile", SK__PB_STRING, 0, -1},
	{5, "secretRef", SK__PB_MSG, K, 219}, /* LocalObjectReference */
	{6, "readOnly", SK__PB_BOOL, 0, -1},
};
static const sk__pb_field f142[] = { /* k8s.io.api.core.v1.CinderPersistentVolumeSource */
	{1, "volumeID", SK__PB_STRING, K, -1},
	{2, "fsType", SK__PB_STRING, 0, -1},
	{3, "readOnly", SK__PB_BOOL, 0, -1},
	{4, "secretRef", SK__PB_MSG, K, 328}, /* SecretReference */
};
static const sk__pb_field f143[] = { /* k8s.io.api.core.v1.CinderVolumeSource */
	{1, "volumeID", SK__PB_STRING, K, -1},
	{2, "fsType", SK__PB_STRING, 0, -1},
	{3, "readOnly", SK__PB_BOOL, 0, -1},
	{4, "secretRef", SK__PB_MSG, K, 219}, /* LocalObjectReference */
};
static const sk__pb_field f144[] = { /* k8s.io.api.core.v1.ClientIPConfig */
	{1, "timeoutSeconds", SK__PB_INT32, K, -1},
};
static const sk__pb_field f145[] = { /* k8s.io.api.core.v1.ClusterTrustBundleProjection */
	{1, "name", SK__PB_STRING, K, -1},
	{2, "signerName", SK__PB_STRING, K, -1},
	{3, "labelSelector", SK__PB_MSG, K, 477}, /* LabelSelector */
	{4, "path", SK__PB_STRING, K, -1},
	{5, "optional", SK__PB_BOOL, K, -1},
};
static const sk__pb_field f146[] = { /* k8s.io.api.core.v1.ComponentCondition */
	{1, "type", SK__PB_STRING, K, -1},
	{2, "status", SK__PB_STRING, K, -1},
	{3, "message", SK__PB_STRING, 0, -1},
	{4, "error", SK__PB_STRING, 0, -1},
};
static const sk__pb_field f147[] = { /* k8s.io.api.core.v1.ComponentStatus */
	{1, "metadata", SK__PB_MSG, 0, 484}, /* ObjectMeta */
	{2, "conditions", SK__PB_MSG, R, 146}, /* ComponentCondition */
};
static const sk__pb_field f148[] = { /* k8s.io.api.core.v1.ComponentStatusList */
	{1, "metadata", SK__PB_MSG, 0, 480}, /* ListMeta */
	{2, "items", SK__PB_MSG, R|K, 147}, /* ComponentStatus */
};
static const sk__pb_field f149[] = { /* k8s.io.api.core.v1.ConfigMap */
	{1, "metadata", SK__PB_MSG, 0, 484}, /* ObjectMeta */
	{2, "data", SK__PB_STRING, M, -1},
	{3, "binaryData", SK__PB_BYTES, M, -1},
	{4, "immutable", SK__PB_BOOL, K, -1},
};
static const sk__pb_field f150[] = { /* k8s.io.api.core.v1.ConfigMapEnvSource */
	{1, "", SK__PB_MSG, K|I, 219}, /* LocalObjectReference */
	{2, "optional", SK__PB_BOOL, K, -1},
};
static const sk__pb_field f151[] = { /* k8s.io.api.core.v1.ConfigMapKeySelector */
	{1, "", SK__PB_MSG, K|I, 219}, /* LocalObjectReference */
	{2, "key", SK__PB_STRING, K, -1},
	{3, "optional", SK__PB_BOOL, K, -1},
};
static const sk__pb_field f152[] = { /* k8s.io.api.core.v1.ConfigMapList */
	{1, "metadata", SK__PB_MSG, 0, 480}, /* ListMeta */
	{2, "items", SK__PB_MSG, R|K, 149}, /* ConfigMap */
};
static const sk__pb_field f153[] = { /* k8s.io.api.core.v1.ConfigMapNodeConfigSource */
	{1, "namespace", SK__PB_STRING, K, -1},
	{2, "name", SK__PB_STRING, K, -1},
	{3, "uid", SK__PB_STRING, 0, -1},
	{4, "resourceVersion", SK__PB_STRING, 0, -1},
	{5, "kubeletConfigKey", SK__PB_STRING, K, -1},
};
static const sk__pb_field f154[] = { /* k8s.io.api.core.v1.ConfigMapProjection */
	{1, "", SK__PB_MSG, K|I, 219}, /* LocalObjectReference */
	{2, "items", SK__PB_MSG, R, 208}, /* KeyToPath */
	{4, "optional", SK__PB_BOOL, K, -1},
};
static const sk__pb_field f155[] = { /* k8s.io.api.core.v1.ConfigMapVolumeSource */
	{1, "", SK__PB_MSG, K|I, 219}, /* LocalObjectReference */
	{2, "items", SK__PB_MSG, R, 208}, /* KeyToPath */
	{3, "defaultMode", SK__PB_INT32, K, -1},
	{4, "optional", SK__PB_BOOL, K, -1},
};
static const sk__pb_field f156[] = { /* k8s.io.api.core.v1.Container */
	{1, "name", SK__PB_STRING, K, -1},
	{2, "image", SK__PB_STRING, 0, -1},
	{3, "command", SK__PB_STRING, R, -1},
	{4, "args", SK__PB_STRING, R, -1},
	{5, "workingDir", SK__PB_STRING, 0, -1},
	{6, "ports", SK__PB_MSG, R, 159}, /* ContainerPort */
	{7, "env", SK__PB_MSG, R, 180}, /* EnvVar */
	{8, "resources", SK__PB_MSG, 0, 315}, /* ResourceRequirements */
	{9, "volumeMounts", SK__PB_MSG, R, 356}, /* VolumeMount */
	{10, "livenessProbe", SK__PB_MSG, K, 296}, /* Probe */
	{11, "readinessProbe", SK__PB_MSG, K, 296}, /* Probe */
	{12, "lifecycle", SK__PB_MSG, K, 209}, /* Lifecycle */
	{13, "terminationMessagePath", SK__PB_STRING, 0, -1},
	{14, "imagePullPolicy", SK__PB_STRING, 0, -1},
	{15, "securityContext", SK__PB_MSG, K, 330}, /* SecurityContext */
	{16, "stdin", SK__PB_BOOL, 0, -1},
	{17, "stdinOnce", SK__PB_BOOL, 0, -1},
	{18, "tty", SK__PB_BOOL, 0, -1},
	{19, "envFrom", SK__PB_MSG, R, 179}, /* EnvFromSource */
	{20, "terminationMessagePolicy", SK__PB_STRING, 0, -1},
	{21, "volumeDevices", SK__PB_MSG, R, 355}, /* VolumeDevice */
	{22, "startupProbe", SK__PB_MSG, K, 296}, /* Probe */
	{23, "resizePolicy", SK__PB_MSG, R, 160}, /* ContainerResizePolicy */
	{24, "restartPolicy", SK__PB_STRING, K, -1},
	{25, "restartPolicyRules", SK__PB_MSG, R, 161}, /* ContainerRestartRule */
};
static const sk__pb_field f157[] = { /* k8s.io.api.core.v1.ContainerExtendedResourceRequest */
	{1, "containerName", SK__PB_STRING, K, -1},
	{2, "resourceName", SK__PB_STRING, K, -1},
	{3, "requestName", SK__PB_STRING, K, -1},
};
static const sk__pb_field f158[] = { /* k8s.io.api.core.v1.ContainerImage */
	{1, "names", SK__PB_STRING, R|K, -1},
	{2, "sizeBytes", SK__PB_INT64, 0, -1},
};
static const sk__pb_field f159[] = { /* k8s.io.api.core.v1.ContainerPort */
	{1, "name", SK__PB_STRING, 0, -1},
	{2, "hostPort", SK__PB_INT32, 0, -1},
	{3, "containerPort", SK__PB_INT32, K, -1},
	{4, "protocol", SK__PB_STRING, 0, -1},
	{5, "hostIP", SK__PB_STRING, 0, -1},
};
static const sk__pb_field f160[] = { /* k8s.io.api.core.v1.ContainerResizePolicy */
	{1, "resourceName", SK__PB_STRING, K, -1},
	{2, "restartPolicy", SK__PB_STRING, K, -1},
};
static const sk__pb_field f161[] = { /* k8s.io.api.core.v1.ContainerRestartRule */
	{1, "action", SK__PB_STRING, 0, -1},
	{2, "exitCodes", SK__PB_MSG, K, 162}, /* ContainerRestartRuleOnExitCodes */
};
static const sk__pb_field f162[] = { /* k8s.io.api.core.v1.ContainerRestartRuleOnExitCodes */
	{1, "operator", SK__PB_STRING, 0, -1},
	{2, "values", SK__PB_INT32, R, -1},
};
static const sk__pb_field f163[] = { /* k8s.io.api.core.v1.ContainerState */
	{1, "waiting", SK__PB_MSG, K, 166}, /* ContainerStateWaiting */
	{2, "running", SK__PB_MSG, K, 164}, /* ContainerStateRunning */
	{3, "terminated", SK__PB_MSG, K, 165}, /* ContainerStateTerminated */
};
static const sk__pb_field f164[] = { /* k8s.io.api.core.v1.ContainerStateRunning */
	{1, "startedAt", SK__PB_MSG, 0, 497}, /* Time */
};
static const sk__pb_field f165[] = { /* k8s.io.api.core.v1.ContainerStateTerminated */
	{1, "exitCode", SK__PB_INT32, K, -1},
	{2, "signal", SK__PB_INT32, 0, -1},
	{3, "reason", SK__PB_STRING, 0, -1},
	{4, "message", SK__PB_STRING, 0, -1},
	{5, "startedAt", SK__PB_MSG, 0, 497}, /* Time */
	{6, "finishedAt", SK__PB_MSG, 0, 497}, /* Time */
	{7, "containerID", SK__PB_STRING, 0, -1},
};
static const sk__pb_field f166[] = { /* k8s.io.api.core.v1.ContainerStateWaiting */
	{1, "reason", SK__PB_STRING, 0, -1},
	{2, "message", SK__PB_STRING, 0, -1},
};
static const sk__pb_field f167[] = { /* k8s.io.api.core.v1.ContainerStatus */
	{1, "name", SK__PB_STRING, K, -1},
	{2, "state", SK__PB_MSG, 0, 163}, /* ContainerState */
	{3, "lastState", SK__PB_MSG, 0, 163}, /* ContainerState */
	{4, "ready", SK__PB_BOOL, K, -1},
	{5, "restartCount", SK__PB_INT32, K, -1},
	{6, "image", SK__PB_STRING, K, -1},
	{7, "imageID", SK__PB_STRING, K, -1},
	{8, "containerID", SK__PB_STRING, 0, -1},
	{9, "started", SK__PB_BOOL, K, -1},
	{10, "allocatedResources", SK__PB_MSG, M, 456}, /* Quantity */
	{11, "resources", SK__PB_MSG, K, 315}, /* ResourceRequirements */
	{12, "volumeMounts", SK__PB_MSG, R, 357}, /* VolumeMountStatus */
	{13, "user", SK__PB_MSG, K, 168}, /* ContainerUser */
	{14, "allocatedResourcesStatus", SK__PB_MSG, R, 316}, /* ResourceStatus */
	{15, "stopSignal", SK__PB_STRING, K, -1},
};
static const sk__pb_field f168[] = { /* k8s.io.api.core.v1.ContainerUser */
	{1, "linux", SK__PB_MSG, K, 215}, /* LinuxContainerUser */
};
static const sk__pb_field f169[] = { /* k8s.io.api.core.v1.DaemonEndpoint */
	{1, "Port", SK__PB_INT32, K, -1},
};
static const sk__pb_field f170[] = { /* k8s.io.api.core.v1.DownwardAPIProjection */
	{1, "items", SK__PB_MSG, R, 171}, /* DownwardAPIVolumeFile */
};
static const sk__pb_field f171[] = { /* k8s.io.api.core.v1.DownwardAPIVolumeFile */
	{1, "path", SK__PB_STRING, K, -1},
	{2, "fieldRef", SK__PB_MSG, K, 247}, /* ObjectFieldSelector */
	{3, "resourceFieldRef", SK__PB_MSG, K, 309}, /* ResourceFieldSelector */
	{4, "mode", SK__PB_INT32, K, -1},
};
static const sk__pb_field f172[] = { /* k8s.io.api.core.v1.DownwardAPIVolumeSource */
	{1, "items", SK__PB_MSG, R, 171}, /* DownwardAPIVolumeFile */
	{2, "defaultMode", SK__PB_INT32, K, -1},
};
static const sk__pb_field f173[] = { /* k8s.io.api.core.v1.EmptyDirVolumeSource */
	{1, "medium", SK__PB_STRING, 0, -1},
	{2, "sizeLimit", SK__PB_MSG, K, 456}, /* Quantity */
};
static const sk__pb_field f174[] = { /* k8s.io.api.core.v1.EndpointAddress */
	{1, "ip", SK__PB_STRING, K, -1},
	{2, "targetRef", SK__PB_MSG, K, 248}, /* ObjectReference */
	{3, "hostname", SK__PB_STRING, 0, -1},
	{4, "nodeName", SK__PB_STRING, K, -1},
};
static const sk__pb_field f175[] = { /* k8s.io.api.core.v1.EndpointPort */
	{1, "name", SK__PB_STRING, 0, -1},
	{2, "port", SK__PB_INT32, K, -1},
	{3, "protocol", SK__PB_STRING, 0, -1},
	{4, "appProtocol", SK__PB_STRING, K, -1},
};
static const sk__pb_field f176[] = { /* k8s.io.api.core.v1.EndpointSubset */
	{1, "addresses", SK__PB_MSG, R, 174}, /* EndpointAddress */
	{2, "notReadyAddresses", SK__PB_MSG, R, 174}, /* EndpointAddress */
	{3, "ports", SK__PB_MSG, R, 175}, /* EndpointPort */
};
static const sk__pb_field f177[] = { /* k8s.io.api.core.v1.Endpoints */
	{1, "metadata", SK__PB_MSG, 0, 484}, /* ObjectMeta */
	{2, "subsets", SK__PB_MSG, R, 176}, /* EndpointSubset */
};
static const sk__pb_field f178[] = { /* k8s.io.api.core.v1.EndpointsList */
	{1, "metadata", SK__PB_MSG, 0, 480}, /* ListMeta */
	{2, "items", SK__PB_MSG, R|K, 177}, /* Endpoints */
};
static const sk__pb_field f179[] = { /* k8s.io.api.core.v1.EnvFromSource */
	{1, "prefix", SK__PB_STRING, 0, -1},
	{2, "configMapRef", SK__PB_MSG, K, 150}, /* ConfigMapEnvSource */
	{3, "secretRef", SK__PB_MSG, K, 324}, /* SecretEnvSource */
};
static const sk__pb_field f180[] = { /* k8s.io.api.core.v1.EnvVar */
	{1, "name", SK__PB_STRING, K, -1},
	{2, "value", SK__PB_STRING, 0, -1},
	{3, "valueFrom", SK__PB_MSG, K, 181}, /* EnvVarSource */
};
static const sk__pb_field f181[] = { /* k8s.io.api.core.v1.EnvVarSource */
	{1, "fieldRef", SK__PB_MSG, K, 247}, /* ObjectFieldSelector */
	{2, "resourceFieldRef", SK__PB_MSG, K, 309}, /* ResourceFieldSelector */
	{3, "configMapKeyRef", SK__PB_MSG, K, 151}, /* ConfigMapKeySelector */
	{4, "secretKeyRef", SK__PB_MSG, K, 325}, /* SecretKeySelector */
	{5, "fileKeyRef", SK__PB_MSG, K, 191}, /* FileKeySelector */
};
static const sk__pb_field f182[] = { /* k8s.io.api.core.v1.EphemeralContainer */
	{1, "", SK__PB_MSG, K|I, 183}, /* EphemeralContainerCommon */
	{2, "targetContainerName", SK__PB_STRING, 0, -1},
};
static const sk__pb_field f183[] = { /* k8s.io.api.core.v1.EphemeralContainerCommon */
	{1, "name", SK__PB_STRING, K, -1},
	{2, "image", SK__PB_STRING, 0, -1},
	{3, "command", SK__PB_STRING, R, -1},
	{4, "args", SK__PB_STRING, R, -1},
	{5, "workingDir", SK__PB_STRING, 0, -1},
	{6, "ports", SK__PB_MSG, R, 159}, /* ContainerPort */
	{7, "env", SK__PB_MSG, R, 180}, /* EnvVar */
	{8, "resources", SK__PB_MSG, 0, 315}, /* ResourceRequirements */
	{9, "volumeMounts", SK__PB_MSG, R, 356}, /* VolumeMount */
	{10, "livenessProbe", SK__PB_MSG, K, 296}, /* Probe */
	{11, "readinessProbe", SK__PB_MSG, K, 296}, /* Probe */
	{12, "lifecycle", SK__PB_MSG, K, 209}, /* Lifecycle */
	{13, "terminationMessagePath", SK__PB_STRING, 0, -1},
	{14, "imagePullPolicy", SK__PB_STRING, 0, -1},
	{15, "securityContext", SK__PB_MSG, K, 330}, /* SecurityContext */
	{16, "stdin", SK__PB_BOOL, 0, -1},
	{17, "stdinOnce", SK__PB_BOOL, 0, -1},
	{18, "tty", SK__PB_BOOL, 0, -1},
	{19, "envFrom", SK__PB_MSG, R, 179}, /* EnvFromSource */
	{20, "terminationMessagePolicy", SK__PB_STRING, 0, -1},
	{21, "volumeDevices", SK__PB_MSG, R, 355}, /* VolumeDevice */
	{22, "startupProbe", SK__PB_MSG, K, 296}, /* Probe */
	{23, "resizePolicy", SK__PB_MSG, R, 160}, /* ContainerResizePolicy */
	{24, "restartPolicy", SK__PB_STRING, K, -1},
	{25, "restartPolicyRules", SK__PB_MSG, R, 161}, /* ContainerRestartRule */
};
static const sk__pb_field f184[] = { /* k8s.io.api.core.v1.EphemeralVolumeSource */
	{1, "volumeClaimTemplate", SK__PB_MSG, K, 255}, /* PersistentVolumeClaimTemplate */
};
static const sk__pb_field f185[] = { /* k8s.io.api.core.v1.Event */
	{1, "metadata", SK__PB_MSG, K, 484}, /* ObjectMeta */
	{2, "involvedObject", SK__PB_MSG, K, 248}, /* ObjectReference */
	{3, "reason", SK__PB_STRING, 0, -1},
	{4, "message", SK__PB_STRING, 0, -1},
	{5, "source", SK__PB_MSG, 0, 188}, /* EventSource */
	{6, "firstTimestamp", SK__PB_MSG, 0, 497}, /* Time */
	{7, "lastTimestamp", SK__PB_MSG, 0, 497}, /* Time */
	{8, "count", SK__PB_INT32, 0, -1},
	{9, "type", SK__PB_STRING, 0, -1},
	{10, "eventTime", SK__PB_MSG, 0, 483}, /* MicroTime */
	{11, "series", SK__PB_MSG, K, 187}, /* EventSeries */
	{12, "action", SK__PB_STRING, 0, -1},
	{13, "related", SK__PB_MSG, K, 248}, /* ObjectReference */
	{14, "reportingComponent", SK__PB_STRING, K, -1},
	{15, "reportingInstance", SK__PB_STRING, K, -1},
};
static const sk__pb_field f186[] = { /* k8s.io.api.core.v1.EventList */
	{1, "metadata", SK__PB_MSG, 0, 480}, /* ListMeta */
	{2, "items", SK__PB_MSG, R|K, 185}, /* Event */
};
static const sk__pb_field f187[] = { /* k8s.io.api.core.v1.EventSeries */
	{1, "count", SK__PB_INT32, 0, -1},
	{2, "lastObservedTime", SK__PB_MSG, 0, 483}, /* MicroTime */
};
static const sk__pb_field f188[] = { /* k8s.io.api.core.v1.EventSource */
	{1, "component", SK__PB_STRING, 0, -1},
	{2, "host", SK__PB_STRING, 0, -1},
};
static const sk__pb_field f189[] = { /* k8s.io.api.core.v1.ExecAction */
	{1, "command", SK__PB_STRING, R, -1},
};
static const sk__pb_field f190[] = { /* k8s.io.api.core.v1.FCVolumeSource */
	{1, "targetWWNs", SK__PB_STRING, R, -1},
	{2, "lun", SK__PB_INT32, K, -1},
	{3, "fsType", SK__PB_STRING, 0, -1},
	{4, "readOnly", SK__PB_BOOL, 0, -1},
	{5, "wwids", SK__PB_STRING, R, -1},
};
static const sk__pb_field f191[] = { /* k8s.io.api.core.v1.FileKeySelector */
	{1, "volumeName", SK__PB_STRING, K, -1},
	{2, "path", SK__PB_STRING, K, -1},
	{3, "key", SK__PB_STRING, K, -1},
	{4, "optional", SK__PB_BOOL, K, -1},
};
static const sk__pb_field f192[] = { /* k8s.io.api.core.v1.FlexPersistentVolumeSource */
	{1, "driver", SK__PB_STRING, K, -1},
	{2, "fsType", SK__PB_STRING, 0, -1},
	{3, "secretRef", SK__PB_MSG, K, 328}, /* SecretReference */
	{4, "readOnly", SK__PB_BOOL, 0, -1},
	{5, "options", SK__PB_STRING, M, -1},
};
static const sk__pb_field f193[] = { /* k8s.io.api.core.v1.FlexVolumeSource */
	{1, "driver", SK__PB_STRING, K, -1},
	{2, "fsType", SK__PB_STRING, 0, -1},
	{3, "secretRef", SK__PB_MSG, K, 219}, /* LocalObjectReference */
	{4, "readOnly", SK__PB_BOOL, 0, -1},
	{5, "options", SK__PB_STRING, M, -1},
};
static const sk__pb_field f194[] = { /* k8s.io.api.core.v1.FlockerVolumeSource */
	{1, "datasetName", SK__PB_STRING, 0, -1},
	{2, "datasetUUID", SK__PB_STRING, 0, -1},
};
static const sk__pb_field f195[] = { /* k8s.io.api.core.v1.GCEPersistentDiskVolumeSource */
	{1, "pdName", SK__PB_STRING, K, -1},
	{2, "fsType", SK__PB_STRING, 0, -1},
	{3, "partition", SK__PB_INT32, 0, -1},
	{4, "readOnly", SK__PB_BOOL, 0, -1},
};
static const sk__pb_field f196[] = { /* k8s.io.api.core.v1.GRPCAction */
	{1, "port", SK__PB_INT32, K, -1},
	{2, "service", SK__PB_STRING, K, -1},
};
static const sk__pb_field f197[] = { /* k8s.io.api.core.v1.GitRepoVolumeSource */
	{1, "repository", SK__PB_STRING, K, -1},
	{2, "revision", SK__PB_STRING, 0, -1},
	{3, "directory", SK__PB_STRING, 0, -1},
};
static const sk__pb_field f198[] = { /* k8s.io.api.core.v1.GlusterfsPersistentVolumeSource */
	{1, "endpoints", SK__PB_STRING, K, -1},
	{2, "path", SK__PB_STRING, K, -1},
	{3, "readOnly", SK__PB_BOOL, 0, -1},
	{4, "endpointsNamespace", SK__PB_STRING, K, -1},
};
static const sk__pb_field f199[] = { /* k8s.io.api.core.v1.GlusterfsVolumeSource */
	{1, "endpoints", SK__PB_STRING, K, -1},
	{2, "path", SK__PB_STRING, K, -1},
	{3, "readOnly", SK__PB_BOOL, 0, -1},
};
static const sk__pb_field f200[] = { /* k8s.io.api.core.v1.HTTPGetAction */
	{1, "path", SK__PB_STRING, 0, -1},
	{2, "port", SK__PB_MSG, K, 506}, /* IntOrString */
	{3, "host", SK__PB_STRING, 0, -1},
	{4, "scheme", SK__PB_STRING, 0, -1},
	{5, "httpHeaders", SK__PB_MSG, R, 201}, /* HTTPHeader */
};
static const sk__pb_field f201[] = { /* k8s.io.api.core.v1.HTTPHeader */
	{1, "name", SK__PB_STRING, K, -1},
	{2, "value", SK__PB_STRING, K, -1},
};
static const sk__pb_field f202[] = { /* k8s.io.api.core.v1.HostAlias */
	{1, "ip", SK__PB_STRING, K, -1},
	{2, "hostnames", SK__PB_STRING, R, -1},
};
static const sk__pb_field f203[] = { /* k8s.io.api.core.v1.HostIP */
	{1, "ip", SK__PB_STRING, K, -1},
};
static const sk__pb_field f204[] = { /* k8s.io.api.core.v1.HostPathVolumeSource */
	{1, "path", SK__PB_STRING, K, -1},
	{2, "type", SK__PB_STRING, K, -1},
};
static const sk__pb_field f205[] = { /* k8s.io.api.core.v1.ISCSIPersistentVolumeSource */
	{1, "targetPortal", SK__PB_STRING, K, -1},
	{2, "iqn", SK__PB_STRING, K, -1},
	{3, "lun", SK__PB_INT32, K, -1},
	{4, "iscsiInterface", SK__PB_STRING, 0, -1},
	{5, "fsType", SK__PB_STRING, 0, -1},
	{6, "readOnly", SK__PB_BOOL, 0, -1},
	{7, "portals", SK__PB_STRING, R, -1},
	{8, "chapAuthDiscovery", SK__PB_BOOL, 0, -1},
	{10, "secretRef", SK__PB_MSG, K, 328}, /* SecretReference */
	{11, "chapAuthSession", SK__PB_BOOL, 0, -1},
	{12, "initiatorName", SK__PB_STRING, K, -1},
};
static const sk__pb_field f206[] = { /* k8s.io.api.core.v1.ISCSIVolumeSource */
	{1, "targetPortal", SK__PB_STRING, K, -1},
	{2, "iqn", SK__PB_STRING, K, -1},
	{3, "lun", SK__PB_INT32, K, -1},
	{4, "iscsiInterface", SK__PB_STRING, 0, -1},
	{5, "fsType", SK__PB_STRING, 0, -1},
	{6, "readOnly", SK__PB_BOOL, 0, -1},
	{7, "portals", SK__PB_STRING, R, -1},
	{8, "chapAuthDiscovery", SK__PB_BOOL, 0, -1},
	{10, "secretRef", SK__PB_MSG, K, 219}, /* LocalObjectReference */
	{11, "chapAuthSession", SK__PB_BOOL, 0, -1},
	{12, "initiatorName", SK__PB_STRING, K, -1},
};
static const sk__pb_field f207[] = { /* k8s.io.api.core.v1.ImageVolumeSource */
	{1, "reference", SK__PB_STRING, 0, -1},
	{2, "pullPolicy", SK__PB_STRING, 0, -1},
};
static const sk__pb_field f208[] = { /* k8s.io.api.core.v1.KeyToPath */
	{1, "key", SK__PB_STRING, K, -1},
	{2, "path", SK__PB_STRING, K, -1},
	{3, "mode", SK__PB_INT32, K, -1},
};
static const sk__pb_field f209[] = { /* k8s.io.api.core.v1.Lifecycle */
	{1, "postStart", SK__PB_MSG, K, 210}, /* LifecycleHandler */
	{2, "preStop", SK__PB_MSG, K, 210}, /* LifecycleHandler */
	{3, "stopSignal", SK__PB_STRING, K, -1},
};
static const sk__pb_field f210[] = { /* k8s.io.api.core.v1.LifecycleHandler */
	{1, "exec", SK__PB_MSG, K, 189}, /* ExecAction */
	{2, "httpGet", SK__PB_MSG, K, 200}, /* HTTPGetAction */
	{3, "tcpSocket", SK__PB_MSG, K, 346}, /* TCPSocketAction */
	{4, "sleep", SK__PB_MSG, K, 342}, /* SleepAction */
};
static const sk__pb_field f211[] = { /* k8s.io.api.core.v1.LimitRange */
	{1, "metadata", SK__PB_MSG, 0, 484}, /* ObjectMeta */
	{2, "spec", SK__PB_MSG, 0, 214}, /* LimitRangeSpec */
};
static const sk__pb_field f212[] = { /* k8s.io.api.core.v1.LimitRangeItem */
	{1, "type", SK__PB_STRING, K, -1},
	{2, "max", SK__PB_MSG, M, 456}, /* Quantity */
	{3, "min", SK__PB_MSG, M, 456}, /* Quantity */
	{4, "default", SK__PB_MSG, M, 456}, /* Quantity */
	{5, "defaultRequest", SK__PB_MSG, M, 456}, /* Quantity */
	{6, "maxLimitRequestRatio", SK__PB_MSG, M, 456}, /* Quantity */
};
static const sk__pb_field f213[] = { /* k8s.io.api.core.v1.LimitRangeList */
	{1, "metadata", SK__PB_MSG, 0, 480}, /* ListMeta */
	{2, "items", SK__PB_MSG, R|K, 211}, /* LimitRange */
};
static const sk__pb_field f214[] = { /* k8s.io.api.core.v1.LimitRangeSpec */
	{1, "limits", SK__PB_MSG, R|K, 212}, /* LimitRangeItem */
};
static const sk__pb_field f215[] = { /* k8s.io.api.core.v1.LinuxContainerUser */
	{1, "uid", SK__PB_INT64, K, -1},
	{2, "gid", SK__PB_INT64, K, -1},
	{3, "supplementalGroups", SK__PB_INT64, R, -1},
};
static const sk__pb_field f216[] = { /* k8s.io.api.core.v1.List */
	{1, "metadata", SK__PB_MSG, 0, 480}, /* ListMeta */
	{2, "items", SK__PB_MSG, R, 503}, /* RawExtension */
};
static const sk__pb_field f217[] = { /* k8s.io.api.core.v1.LoadBalancerIngress */
	{1, "ip", SK__PB_STRING, 0, -1},
	{2, "hostname", SK__PB_STRING, 0, -1},
	{3, "ipMode", SK__PB_STRING, K, -1},
	{4, "ports", SK__PB_MSG, R, 291}, /* PortStatus */
};
static const sk__pb_field f218[] = { /* k8s.io.api.core.v1.LoadBalancerStatus */
	{1, "ingress", SK__PB_MSG, R, 217}, /* LoadBalancerIngress */
};
static const sk__pb_field f219[] = { /* k8s.io.api.core.v1.LocalObjectReference */
	{1, "name", SK__PB_STRING, 0, -1},
};
static const sk__pb_field f220[] = { /* k8s.io.api.core.v1.LocalVolumeSource */
	{1, "path", SK__PB_STRING, K, -1},
	{2, "fsType", SK__PB_STRING, K, -1},
};
static const sk__pb_field f221[] = { /* k8s.io.api.core.v1.ModifyVolumeStatus */
	{1, "targetVolumeAttributesClassName", SK__PB_STRING, 0, -1},
	{2, "status", SK__PB_STRING, K, -1},
};
static const sk__pb_field f222[] = { /* k8s.io.api.core.v1.NFSVolumeSource */
	{1, "server", SK__PB_STRING, K, -1},
	{2, "path", SK__PB_STRING, K, -1},
	{3, "readOnly", SK__PB_BOOL, 0, -1},
};
static const sk__pb_field f223[] = { /* k8s.io.api.core.v1.Namespace */
	{1, "metadata", SK__PB_MSG, 0, 484}, /* ObjectMeta */
	{2, "spec", SK__PB_MSG, 0, 226}, /* NamespaceSpec */
	{3, "status", SK__PB_MSG, 0, 227}, /* NamespaceStatus */
};
static const sk__pb_field f224[] = { /* k8s.io.api.core.v1.NamespaceCondition */
	{1, "type", SK__PB_STRING, K, -1},
	{2, "status", SK__PB_STRING, K, -1},
	{4, "lastTransitionTime", SK__PB_MSG, 0, 497}, /* Time */
	{5, "reason", SK__PB_STRING, 0, -1},
	{6, "message", SK__PB_STRING, 0, -1},
};
static const sk__pb_field f225[] = { /* k8s.io.api.core.v1.NamespaceList */
	{1, "metadata", SK__PB_MSG, 0, 480}, /* ListMeta */
	{2, "items", SK__PB_MSG, R|K, 223}, /* Namespace */
};
static const sk__pb_field f226[] = { /* k8s.io.api.core.v1.NamespaceSpec */
	{1, "finalizers", SK__PB_STRING, R, -1},
};
static const sk__pb_field f227[] = { /* k8s.io.api.core.v1.NamespaceStatus */
	{1, "phase", SK__PB_STRING, 0, -1},
	{2, "conditions", SK__PB_MSG, R, 224}, /* NamespaceCondition */
};
static const sk__pb_field f228[] = { /* k8s.io.api.core.v1.Node */
	{1, "metadata", SK__PB_MSG, 0, 484}, /* ObjectMeta */
	{2, "spec", SK__PB_MSG, 0, 243}, /* NodeSpec */
	{3, "status", SK__PB_MSG, 0, 244}, /* NodeStatus */
};
static const sk__pb_field f229[] = { /* k8s.io.api.core.v1.NodeAddress */
	{1, "type", SK__PB_STRING, K, -1},
	{2, "address", SK__PB_STRING, K, -1},
};
static const sk__pb_field f230[] = { /* k8s.io.api.core.v1.NodeAffinity */
	{1, "requiredDuringSchedulingIgnoredDuringExecution", SK__PB_MSG, K, 240}, /* NodeSelector */
	{2, "preferredDuringSchedulingIgnoredDuringExecution", SK__PB_MSG, R, 295}, /* PreferredSchedulingTerm */
};
static const sk__pb_field f231[] = { /* k8s.io.api.core.v1.NodeCondition */
	{1, "type", SK__PB_STRING, K, -1},
	{2, "status", SK__PB_STRING, K, -1},
	{3, "lastHeartbeatTime", SK__PB_MSG, 0, 497}, /* Time */
	{4, "lastTransitionTime", SK__PB_MSG, 0, 497}, /* Time */
	{5, "reason", SK__PB_STRING, 0, -1},
	{6, "message", SK__PB_STRING, 0, -1},
};
static const sk__pb_field f232[] = { /* k8s.io.api.core.v1.NodeConfigSource */
	{2, "configMap", SK__PB_MSG, K, 153}, /* ConfigMapNodeConfigSource */
};
static const sk__pb_field f233[] = { /* k8s.io.api.core.v1.NodeConfigStatus */
	{1, "assigned", SK__PB_MSG, K, 232}, /* NodeConfigSource */
	{2, "active", SK__PB_MSG, K, 232}, /* NodeConfigSource */
	{3, "lastKnownGood", SK__PB_MSG, K, 232}, /* NodeConfigSource */
	{4, "error", SK__PB_STRING, 0, -1},
};
static const sk__pb_field f234[] = { /* k8s.io.api.core.v1.NodeDaemonEndpoints */
	{1, "kubeletEndpoint", SK__PB_MSG, 0, 169}, /* DaemonEndpoint */
};
static const sk__pb_field f235[] = { /* k8s.io.api.core.v1.NodeFeatures */
	{1, "supplementalGroupsPolicy", SK__PB_BOOL, K, -1},
};
static const sk__pb_field f236[] = { /* k8s.io.api.core.v1.NodeList */
	{1, "metadata", SK__PB_MSG, 0, 480}, /* ListMeta */
	{2, "items", SK__PB_MSG, R|K, 228}, /* Node */
};
static const sk__pb_field f237[] = { /* k8s.io.api.core.v1.NodeProxyOptions */
	{1, "path", SK__PB_STRING, 0, -1},
};
static const sk__pb_field f238[] = { /* k8s.io.api.core.v1.NodeRuntimeHandler */
	{1, "name", SK__PB_STRING, K, -1},
	{2, "features", SK__PB_MSG, K, 239}, /* NodeRuntimeHandlerFeatures */
};
static const sk__pb_field f239[] = { /* k8s.io.api.core.v1.NodeRuntimeHandlerFeatures */
	{1, "recursiveReadOnlyMounts", SK__PB_BOOL, K, -1},
	{2, "userNamespaces", SK__PB_BOOL, K, -1},
};
static const sk__pb_field f240[] = { /* k8s.io.api.core.v1.NodeSelector */
	{1, "nodeSelectorTerms", SK__PB_MSG, R|K, 242}, /* NodeSelectorTerm */
};
static const sk__pb_field f241[] = { /* k8s.io.api.core.v1.NodeSelectorRequirement */
	{1, "key", SK__PB_STRING, K, -1},
	{2, "operator", SK__PB_STRING, K, -1},
	{3, "values", SK__PB_STRING, R, -1},
};
static const sk__pb_field f242[] = { /* k8s.io.api.core.v1.NodeSelectorTerm */
	{1, "matchExpressions", SK__PB_MSG, R, 241}, /* NodeSelectorRequirement */
	{2, "matchFields", SK__PB_MSG, R, 241}, /* NodeSelectorRequirement */
};
static const sk__pb_field f243[] = { /* k8s.io.api.core.v1.NodeSpec */
	{1, "podCIDR", SK__PB_STRING, 0, -1},
	{2, "externalID", SK__PB_STRING, 0, -1},
	{3, "providerID", SK__PB_STRING, 0, -1},
	{4, "unschedulable", SK__PB_BOOL, 0, -1},
	{5, "taints", SK__PB_MSG, R, 347}, /* Taint */
	{6, "configSource", SK__PB_MSG, K, 232}, /* NodeConfigSource */
	{7, "podCIDRs", SK__PB_STRING, R, -1},
};
static const sk__pb_field f244[] = { /* k8s.io.api.core.v1.NodeStatus */
	{1, "capacity", SK__PB_MSG, M, 456}, /* Quantity */
	{2, "allocatable", SK__PB_MSG, M, 456}, /* Quantity */
	{3, "phase", SK__PB_STRING, 0, -1},
	{4, "conditions", SK__PB_MSG, R, 231}, /* NodeCondition */
	{5, "addresses", SK__PB_MSG, R, 229}, /* NodeAddress */
	{6, "daemonEndpoints", SK__PB_MSG, 0, 234}, /* NodeDaemonEndpoints */
	{7, "nodeInfo", SK__PB_MSG, 0, 246}, /* NodeSystemInfo */
	{8, "images", SK__PB_MSG, R, 158}, /* ContainerImage */
	{9, "volumesInUse", SK__PB_STRING, R, -1},
	{10, "volumesAttached", SK__PB_MSG, R, 131}, /* AttachedVolume */
	{11, "config", SK__PB_MSG, K, 233}, /* NodeConfigStatus */
	{12, "runtimeHandlers", SK__PB_MSG, R, 238}, /* NodeRuntimeHandler */
	{13, "features", SK__PB_MSG, K, 235}, /* NodeFeatures */
	{14, "declaredFeatures", SK__PB_STRING, R, -1},
};
static const sk__pb_field f245[] = { /* k8s.io.api.core.v1.NodeSwapStatus */
	{1, "capacity", SK__PB_INT64, K, -1},
};
static const sk__pb_field f246[] = { /* k8s.io.api.core.v1.NodeSystemInfo */
	{1, "machineID", SK__PB_STRING, K, -1},
	{2, "systemUUID", SK__PB_STRING, K, -1},
	{3, "bootID", SK__PB_STRING, K, -1},
	{4, "kernelVersion", SK__PB_STRING, K, -1},
	{5, "osImage", SK__PB_STRING, K, -1},
	{6, "containerRuntimeVersion", SK__PB_STRING, K, -1},
	{7, "kubeletVersion", SK__PB_STRING, K, -1},
	{8, "kubeProxyVersion", SK__PB_STRING, K, -1},
	{9, "operatingSystem", SK__PB_STRING, K, -1},
	{10, "architecture", SK__PB_STRING, K, -1},
	{11, "swap", SK__PB_MSG, K, 245}, /* NodeSwapStatus */
};
static const sk__pb_field f247[] = { /* k8s.io.api.core.v1.ObjectFieldSelector */
	{1, "apiVersion", SK__PB_STRING, 0, -1},
	{2, "fieldPath", SK__PB_STRING, K, -1},
};
static const sk__pb_field f248[] = { /* k8s.io.api.core.v1.ObjectReference */
	{1, "kind", SK__PB_STRING, 0, -1},
	{2, "namespace", SK__PB_STRING, 0, -1},
	{3, "name", SK__PB_STRING, 0, -1},
	{4, "uid", SK__PB_STRING, 0, -1},
	{5, "apiVersion", SK__PB_STRING, 0, -1},
	{6, "resourceVersion", SK__PB_STRING, 0, -1},
	{7, "fieldPath", SK__PB_STRING, 0, -1},
};
static const sk__pb_field f249[] = { /* k8s.io.api.core.v1.PersistentVolume */
	{1, "metadata", SK__PB_MSG, 0, 484}, /* ObjectMeta */
	{2, "spec", SK__PB_MSG, 0, 259}, /* PersistentVolumeSpec */
	{3, "status", SK__PB_MSG, 0, 260}, /* PersistentVolumeStatus */
};
static const sk__pb_field f250[] = { /* k8s.io.api.core.v1.PersistentVolumeClaim */
	{1, "metadata", SK__PB_MSG, 0, 484}, /* ObjectMeta */
	{2, "spec", SK__PB_MSG, 0, 253}, /* PersistentVolumeClaimSpec */
	{3, "status", SK__PB_MSG, 0, 254}, /* PersistentVolumeClaimStatus */
};
static const sk__pb_field f251[] = { /* k8s.io.api.core.v1.PersistentVolumeClaimCondition */
	{1, "type", SK__PB_STRING, K, -1},
	{2, "status", SK__PB_STRING, K, -1},
	{3, "lastProbeTime", SK__PB_MSG, 0, 497}, /* Time */
	{4, "lastTransitionTime", SK__PB_MSG, 0, 497}, /* Time */
	{5, "reason", SK__PB_STRING, 0, -1},
	{6, "message", SK__PB_STRING, 0, -1},
};
static const sk__pb_field f252[] = { /* k8s.io.api.core.v1.PersistentVolumeClaimList */
	{1, "metadata", SK__PB_MSG, 0, 480}, /* ListMeta */
	{2, "items", SK__PB_MSG, R|K, 250}, /* PersistentVolumeClaim */
};
static const sk__pb_field f253[] = { /* k8s.io.api.core.v1.PersistentVolumeClaimSpec */
	{1, "accessModes", SK__PB_STRING, R, -1},
	{2, "resources", SK__PB_MSG, 0, 360}, /* VolumeResourceRequirements */
	{3, "volumeName", SK__PB_STRING, 0, -1},
	{4, "selector", SK__PB_MSG, K, 477}, /* LabelSelector */
	{5, "storageClassName", SK__PB_STRING, K, -1},
	{6, "volumeMode", SK__PB_STRING, K, -1},
	{7, "dataSource", SK__PB_MSG, K, 352}, /* TypedLocalObjectReference */
	{8, "dataSourceRef", SK__PB_MSG, K, 353}, /* TypedObjectReference */
	{9, "volumeAttributesClassName", SK__PB_STRING, K, -1},
};
static const sk__pb_field f254[] = { /* k8s.io.api.core.v1.PersistentVolumeClaimStatus */
	{1, "phase", SK__PB_STRING, 0, -1},
	{2, "accessModes", SK__PB_STRING, R, -1},
	{3, "capacity", SK__PB_MSG, M, 456}, /* Quantity */
	{4, "conditions", SK__PB_MSG, R, 251}, /* PersistentVolumeClaimCondition */
	{5, "allocatedResources", SK__PB_MSG, M, 456}, /* Quantity */
	{7, "allocatedResourceStatuses", SK__PB_STRING, M, -1},
	{8, "currentVolumeAttributesClassName", SK__PB_STRING, K, -1},
	{9, "modifyVolumeStatus", SK__PB_MSG, K, 221}, /* ModifyVolumeStatus */
};
static const sk__pb_field f255[] = { /* k8s.io.api.core.v1.PersistentVolumeClaimTemplate */
	{1, "metadata", SK__PB_MSG, 0, 484}, /* ObjectMeta */
	{2, "spec", SK__PB_MSG, K, 253}, /* PersistentVolumeClaimSpec */
};
static const sk__pb_field f256[] = { /* k8s.io.api.core.v1.PersistentVolumeClaimVolumeSource */
	{1, "claimName", SK__PB_STRING, K, -1},
	{2, "readOnly", SK__PB_BOOL, 0, -1},
};
static const sk__pb_field f257[] = { /* k8s.io.api.core.v1.PersistentVolumeList */
	{1, "metadata", SK__PB_MSG, 0, 480}, /* ListMeta */
	{2, "items", SK__PB_MSG, R|K, 249}, /* PersistentVolume */
};
static const sk__pb_field f258[] = { /* k8s.io.api.core.v1.PersistentVolumeSource */
	{1, "gcePersistentDisk", SK__PB_MSG, K, 195}, /* GCEPersistentDiskVolumeSource */
	{2, "awsElasticBlockStore", SK__PB_MSG, K, 128}, /* AWSElasticBlockStoreVolumeSource */
	{3, "hostPath", SK__PB_MSG, K, 204}, /* HostPathVolumeSource */
	{4, "glusterfs", SK__PB_MSG, K, 198}, /* GlusterfsPersistentVolumeSource */
	{5, "nfs", SK__PB_MSG, K, 222}, /* NFSVolumeSource */
	{6, "rbd", SK__PB_MSG, K, 300}, /* RBDPersistentVolumeSource */
	{7, "iscsi", SK__PB_MSG, K, 205}, /* ISCSIPersistentVolumeSource */
	{8, "cinder", SK__PB_MSG, K, 142}, /* CinderPersistentVolumeSource */
	{9, "cephfs", SK__PB_MSG, K, 140}, /* CephFSPersistentVolumeSource */
	{10, "fc", SK__PB_MSG, K, 190}, /* FCVolumeSource */
	{11, "flocker", SK__PB_MSG, K, 194}, /* FlockerVolumeSource */
	{12, "flexVolume", SK__PB_MSG, K, 192}, /* FlexPersistentVolumeSource */
	{13, "azureFile", SK__PB_MSG, K, 134}, /* AzureFilePersistentVolumeSource */
	{14, "vsphereVolume", SK__PB_MSG, K, 362}, /* VsphereVirtualDiskVolumeSource */
	{15, "quobyte", SK__PB_MSG, K, 299}, /* QuobyteVolumeSource */
	{16, "azureDisk", SK__PB_MSG, K, 133}, /* AzureDiskVolumeSource */
	{17, "photonPersistentDisk", SK__PB_MSG, K, 261}, /* PhotonPersistentDiskVolumeSource */
	{18, "portworxVolume", SK__PB_MSG, K, 292}, /* PortworxVolumeSource */
	{19, "scaleIO", SK__PB_MSG, K, 318}, /* ScaleIOPersistentVolumeSource */
	{20, "local", SK__PB_MSG, K, 220}, /* LocalVolumeSource */
	{21, "storageos", SK__PB_MSG, K, 343}, /* StorageOSPersistentVolumeSource */
	{22, "csi", SK__PB_MSG, K, 137}, /* CSIPersistentVolumeSource */
};
static const sk__pb_field f259[] = { /* k8s.io.api.core.v1.PersistentVolumeSpec */
	{1, "capacity", SK__PB_MSG, M, 456}, /* Quantity */
	{2, "", SK__PB_MSG, K|I, 258}, /* PersistentVolumeSource */
	{3, "accessModes", SK__PB_STRING, R, -1},
	{4, "claimRef", SK__PB_MSG, K, 248}, /* ObjectReference */
	{5, "persistentVolumeReclaimPolicy", SK__PB_STRING, 0, -1},
	{6, "storageClassName", SK__PB_STRING, 0, -1},
	{7, "mountOptions", SK__PB_STRING, R, -1},
	{8, "volumeMode", SK__PB_STRING, K, -1},
	{9, "nodeAffinity", SK__PB_MSG, K, 358}, /* VolumeNodeAffinity */
	{10, "volumeAttributesClassName", SK__PB_STRING, K, -1},
};
static const sk__pb_field f260[] = { /* k8s.io.api.core.v1.PersistentVolumeStatus */
	{1, "phase", SK__PB_STRING, 0, -1},
	{2, "message", SK__PB_STRING, 0, -1},
	{3, "reason", SK__PB_STRING, 0, -1},
	{4, "lastPhaseTransitionTime", SK__PB_MSG, K, 497}, /* Time */
};
static const sk__pb_field f261[] = { /* k8s.io.api.core.v1.PhotonPersistentDiskVolumeSource */
	{1, "pdID", SK__PB_STRING, K, -1},
	{2, "fsType", SK__PB_STRING, 0, -1},
};
static const sk__pb_field f262[] = { /* k8s.io.api.core.v1.Pod */
	{1, "metadata", SK__PB_MSG, 0, 484}, /* ObjectMeta */
	{2, "spec", SK__PB_MSG, 0, 285}, /* PodSpec */
	{3, "status", SK__PB_MSG, 0, 286}, /* PodStatus */
};
static const sk__pb_field f263[] = { /* k8s.io.api.core.v1.PodAffinity */
	{1, "requiredDuringSchedulingIgnoredDuringExecution", SK__PB_MSG, R, 264}, /* PodAffinityTerm */
	{2, "preferredDuringSchedulingIgnoredDuringExecution", SK__PB_MSG, R, 363}, /* WeightedPodAffinityTerm */
};
static const sk__pb_field f264[] = { /* k8s.io.api.core.v1.PodAffinityTerm */
	{1, "labelSelector", SK__PB_MSG, K, 477}, /* LabelSelector */
	{2, "namespaces", SK__PB_STRING, R, -1},
	{3, "topologyKey", SK__PB_STRING, K, -1},
	{4, "namespaceSelector", SK__PB_MSG, K, 477}, /* LabelSelector */
	{5, "matchLabelKeys", SK__PB_STRING, R, -1},
	{6, "mismatchLabelKeys", SK__PB_STRING, R, -1},
};
static const sk__pb_field f265[] = { /* k8s.io.api.core.v1.PodAntiAffinity */
	{1, "requiredDuringSchedulingIgnoredDuringExecution", SK__PB_MSG, R, 264}, /* PodAffinityTerm */
	{2, "preferredDuringSchedulingIgnoredDuringExecution", SK__PB_MSG, R, 363}, /* WeightedPodAffinityTerm */
};
static const sk__pb_field f266[] = { /* k8s.io.api.core.v1.PodAttachOptions */
	{1, "stdin", SK__PB_BOOL, 0, -1},
	{2, "stdout", SK__PB_BOOL, 0, -1},
	{3, "stderr", SK__PB_BOOL, 0, -1},
	{4, "tty", SK__PB_BOOL, 0, -1},
	{5, "container", SK__PB_STRING, 0, -1},
};
static const sk__pb_field f267[] = { /* k8s.io.api.core.v1.PodCertificateProjection */
	{1, "signerName", SK__PB_STRING, 0, -1},
	{2, "keyType", SK__PB_STRING, 0, -1},
	{3, "maxExpirationSeconds", SK__PB_INT32, K, -1},
	{4, "credentialBundlePath", SK__PB_STRING, 0, -1},
	{5, "keyPath", SK__PB_STRING, 0, -1},
	{6, "certificateChainPath", SK__PB_STRING, 0, -1},
	{7, "userAnnotations", SK__PB_STRING, M, -1},
};
static const sk__pb_field f268[] = { /* k8s.io.api.core.v1.PodCondition */
	{1, "type", SK__PB_STRING, K, -1},
	{2, "status", SK__PB_STRING, K, -1},
	{3, "lastProbeTime", SK__PB_MSG, 0, 497}, /* Time */
	{4, "lastTransitionTime", SK__PB_MSG, 0, 497}, /* Time */
	{5, "reason", SK__PB_STRING, 0, -1},
	{6, "message", SK__PB_STRING, 0, -1},
	{7, "observedGeneration", SK__PB_INT64, 0, -1},
};
static const sk__pb_field f269[] = { /* k8s.io.api.core.v1.PodDNSConfig */
	{1, "nameservers", SK__PB_STRING, R, -1},
	{2, "searches", SK__PB_STRING, R, -1},
	{3, "options", SK__PB_MSG, R, 270}, /* PodDNSConfigOption */
};
static const sk__pb_field f270[] = { /* k8s.io.api.core.v1.PodDNSConfigOption */
	{1, "name", SK__PB_STRING, 0, -1},
	{2, "value", SK__PB_STRING, K, -1},
};
static const sk__pb_field f271[] = { /* k8s.io.api.core.v1.PodExecOptions */
	{1, "stdin", SK__PB_BOOL, 0, -1},
	{2, "stdout", SK__PB_BOOL, 0, -1},
	{3, "stderr", SK__PB_BOOL, 0, -1},
	{4, "tty", SK__PB_BOOL, 0, -1},
	{5, "container", SK__PB_STRING, 0, -1},
	{6, "command", SK__PB_STRING, R|K, -1},
};
static const sk__pb_field f272[] = { /* k8s.io.api.core.v1.PodExtendedResourceClaimStatus */
	{1, "requestMappings", SK__PB_MSG, R|K, 157}, /* ContainerExtendedResourceRequest */
	{2, "resourceClaimName", SK__PB_STRING, K, -1},
};
static const sk__pb_field f273[] = { /* k8s.io.api.core.v1.PodIP */
	{1, "ip", SK__PB_STRING, K, -1},
};
static const sk__pb_field f274[] = { /* k8s.io.api.core.v1.PodList */
	{1, "metadata", SK__PB_MSG, 0, 480}, /* ListMeta */
	{2, "items", SK__PB_MSG, R|K, 262}, /* Pod */
};
static const sk__pb_field f275[] = { /* k8s.io.api.core.v1.PodLogOptions */
	{1, "container", SK__PB_STRING, 0, -1},
	{2, "follow", SK__PB_BOOL, 0, -1},
	{3, "previous", SK__PB_BOOL, 0, -1},
	{4, "sinceSeconds", SK__PB_INT64, K, -1},
	{5, "sinceTime", SK__PB_MSG, K, 497}, /* Time */
	{6, "timestamps", SK__PB_BOOL, 0, -1},
	{7, "tailLines", SK__PB_INT64, K, -1},
	{8, "limitBytes", SK__PB_INT64, K, -1},
	{9, "insecureSkipTLSVerifyBackend", SK__PB_BOOL, 0, -1},
	{10, "stream", SK__PB_STRING, K, -1},
};
static const sk__pb_field f276[] = { /* k8s.io.api.core.v1.PodOS */
	{1, "name", SK__PB_STRING, K, -1},
};
static const sk__pb_field f277[] = { /* k8s.io.api.core.v1.PodPortForwardOptions */
	{1, "ports", SK__PB_INT32, R, -1},
};
static const sk__pb_field f278[] = { /* k8s.io.api.core.v1.PodProxyOptions */
	{1, "path", SK__PB_STRING, 0, -1},
};
static const sk__pb_field f279[] = { /* k8s.io.api.core.v1.PodReadinessGate */
	{1, "conditionType", SK__PB_STRING, K, -1},
};
static const sk__pb_field f280[] = { /* k8s.io.api.core.v1.PodResourceClaim */
	{1, "name", SK__PB_STRING, K, -1},
	{3, "resourceClaimName", SK__PB_STRING, K, -1},
	{4, "resourceClaimTemplateName", SK__PB_STRING, K, -1},
};
static const sk__pb_field f281[] = { /* k8s.io.api.core.v1.PodResourceClaimStatus */
	{1, "name", SK__PB_STRING, K, -1},
	{2, "resourceClaimName", SK__PB_STRING, K, -1},
};
static const sk__pb_field f282[] = { /* k8s.io.api.core.v1.PodSchedulingGate */
	{1, "name", SK__PB_STRING, K, -1},
};
static const sk__pb_field f283[] = { /* k8s.io.api.core.v1.PodSecurityContext */
	{1, "seLinuxOptions", SK__PB_MSG, K, 317}, /* SELinuxOptions */
	{2, "runAsUser", SK__PB_INT64, K, -1},
	{3, "runAsNonRoot", SK__PB_BOOL, K, -1},
	{4, "supplementalGroups", SK__PB_INT64, R, -1},
	{5, "fsGroup", SK__PB_INT64, K, -1},
	{6, "runAsGroup", SK__PB_INT64, K, -1},
	{7, "sysctls", SK__PB_MSG, R, 345}, /* Sysctl */
	{8, "windowsOptions", SK__PB_MSG, K, 364}, /* WindowsSecurityContextOptions */
	{9, "fsGroupChangePolicy", SK__PB_STRING, K, -1},
	{10, "seccompProfile", SK__PB_MSG, K, 322}, /* SeccompProfile */
	{11, "appArmorProfile", SK__PB_MSG, K, 130}, /* AppArmorProfile */
	{12, "supplementalGroupsPolicy", SK__PB_STRING, K, -1},
	{13, "seLinuxChangePolicy", SK__PB_STRING, K, -1},
};
static const sk__pb_field f284[] = { /* k8s.io.api.core.v1.PodSignature */
	{1, "podController", SK__PB_MSG, K, 485}, /* OwnerReference */
};
static const sk__pb_field f285[] = { /* k8s.io.api.core.v1.PodSpec */
	{1, "volumes", SK__PB_MSG, R, 354}, /* Volume */
	{2, "containers", SK__PB_MSG, R|K, 156}, /* Container */
	{3, "restartPolicy", SK__PB_STRING, 0, -1},
	{4, "terminationGracePeriodSeconds", SK__PB_INT64, K, -1},
	{5, "activeDeadlineSeconds", SK__PB_INT64, K, -1},
	{6, "dnsPolicy", SK__PB_STRING, 0, -1},
	{7, "nodeSelector", SK__PB_STRING, M, -1},
	{8, "serviceAccountName", SK__PB_STRING, 0, -1},
	{9, "serviceAccount", SK__PB_STRING, 0, -1},
	{10, "nodeName", SK__PB_STRING, 0, -1},
	{11, "hostNetwork", SK__PB_BOOL, 0, -1},
	{12, "hostPID", SK__PB_BOOL, 0, -1},
	{13, "hostIPC", SK__PB_BOOL, 0, -1},
	{14, "securityContext", SK__PB_MSG, K, 283}, /* PodSecurityContext */
	{15, "imagePullSecrets", SK__PB_MSG, R, 219}, /* LocalObjectReference */
	{16, "hostname", SK__PB_STRING, 0, -1},
	{17, "subdomain", SK__PB_STRING, 0, -1},
	{18, "affinity", SK__PB_MSG, K, 129}, /* Affinity */
	{19, "schedulerName", SK__PB_STRING, 0, -1},
	{20, "initContainers", SK__PB_MSG, R, 156}, /* Container */
	{21, "automountServiceAccountToken", SK__PB_BOOL, K, -1},
	{22, "tolerations", SK__PB_MSG, R, 348}, /* Toleration */
	{23, "hostAliases", SK__PB_MSG, R, 202}, /* HostAlias */
	{24, "priorityClassName", SK__PB_STRING, 0, -1},
	{25, "priority", SK__PB_INT32, K, -1},
	{26, "dnsConfig", SK__PB_MSG, K, 269}, /* PodDNSConfig */
	{27, "shareProcessNamespace", SK__PB_BOOL, K, -1},
	{28, "readinessGates", SK__PB_MSG, R, 279}, /* PodReadinessGate */
	{29, "runtimeClassName", SK__PB_STRING, K, -1},
	{30, "enableServiceLinks", SK__PB_BOOL, K, -1},
	{31, "preemptionPolicy", SK__PB_STRING, K, -1},
	{32, "overhead", SK__PB_MSG, M, 456}, /* Quantity */
	{33, "topologySpreadConstraints", SK__PB_MSG, R, 351}, /* TopologySpreadConstraint */
	{34, "ephemeralContainers", SK__PB_MSG, R, 182}, /* EphemeralContainer */
	{35, "setHostnameAsFQDN", SK__PB_BOOL, K, -1},
	{36, "os", SK__PB_MSG, K, 276}, /* PodOS */
	{37, "hostUsers", SK__PB_BOOL, K, -1},
	{38, "schedulingGates", SK__PB_MSG, R, 282}, /* PodSchedulingGate */
	{39, "resourceClaims", SK__PB_MSG, R, 280}, /* PodResourceClaim */
	{40, "resources", SK__PB_MSG, K, 315}, /* ResourceRequirements */
	{41, "hostnameOverride", SK__PB_STRING, K, -1},
	{42, "workloadRef", SK__PB_MSG, K, 365}, /* WorkloadReference */
};
static const sk__pb_field f286[] = { /* k8s.io.api.core.v1.PodStatus */
	{1, "phase", SK__PB_STRING, 0, -1},
	{2, "conditions", SK__PB_MSG, R, 268}, /* PodCondition */
	{3, "message", SK__PB_STRING, 0, -1},
	{4, "reason", SK__PB_STRING, 0, -1},
	{5, "hostIP", SK__PB_STRING, 0, -1},
	{6, "podIP", SK__PB_STRING, 0, -1},
	{7, "startTime", SK__PB_MSG, K, 497}, /* Time */
	{8, "containerStatuses", SK__PB_MSG, R, 167}, /* ContainerStatus */
	{9, "qosClass", SK__PB_STRING, 0, -1},
	{10, "initContainerStatuses", SK__PB_MSG, R, 167}, /* ContainerStatus */
	{11, "nominatedNodeName", SK__PB_STRING, 0, -1},
	{12, "podIPs", SK__PB_MSG, R, 273}, /* PodIP */
	{13, "ephemeralContainerStatuses", SK__PB_MSG, R, 167}, /* ContainerStatus */
	{14, "resize", SK__PB_STRING, 0, -1},
	{15, "resourceClaimStatuses", SK__PB_MSG, R, 281}, /* PodResourceClaimStatus */
	{16, "hostIPs", SK__PB_MSG, R, 203}, /* HostIP */
	{17, "observedGeneration", SK__PB_INT64, 0, -1},
	{18, "extendedResourceClaimStatus", SK__PB_MSG, K, 272}, /* PodExtendedResourceClaimStatus */
	{19, "allocatedResources", SK__PB_MSG, M, 456}, /* Quantity */
	{20, "resources", SK__PB_MSG, K, 315}, /* ResourceRequirements */
};
static const sk__pb_field f287[] = { /* k8s.io.api.core.v1.PodStatusResult */
	{1, "metadata", SK__PB_MSG, 0, 484}, /* ObjectMeta */
	{2, "status", SK__PB_MSG, 0, 286}, /* PodStatus */
};
static const sk__pb_field f288[] = { /* k8s.io.api.core.v1.PodTemplate */
	{1, "metadata", SK__PB_MSG, 0, 484}, /* ObjectMeta */
	{2, "template", SK__PB_MSG, 0, 290}, /* PodTemplateSpec */
};
static const sk__pb_field f289[] = { /* k8s.io.api.core.v1.PodTemplateList */
	{1, "metadata", SK__PB_MSG, 0, 480}, /* ListMeta */
	{2, "items", SK__PB_MSG, R|K, 288}, /* PodTemplate */
};
static const sk__pb_field f290[] = { /* k8s.io.api.core.v1.PodTemplateSpec */
	{1, "metadata", SK__PB_MSG, 0, 484}, /* ObjectMeta */
	{2, "spec", SK__PB_MSG, 0, 285}, /* PodSpec */
};
static const sk__pb_field f291[] = { /* k8s.io.api.core.v1.PortStatus */
	{1, "port", SK__PB_INT32, K, -1},
	{2, "protocol", SK__PB_STRING, K, -1},
	{3, "error", SK__PB_STRING, K, -1},
};
static const sk__pb_field f292[] = { /* k8s.io.api.core.v1.PortworxVolumeSource */
	{1, "volumeID", SK__PB_STRING, K, -1},
	{2, "fsType", SK__PB_STRING, 0, -1},
	{3, "readOnly", SK__PB_BOOL, 0, -1},
};
static const sk__pb_field f293[] = { /* k8s.io.api.core.v1.Preconditions */
	{1, "uid", SK__PB_STRING, K, -1},
};
static const sk__pb_field f294[] = { /* k8s.io.api.core.v1.PreferAvoidPodsEntry */
	{1, "podSignature", SK__PB_MSG, K, 284}, /* PodSignature */
	{2, "evictionTime", SK__PB_MSG, 0, 497}, /* Time */
	{3, "reason", SK__PB_STRING, 0, -1},
	{4, "message", SK__PB_STRING, 0, -1},
};
static const sk__pb_field f295[] = { /* k8s.io.api.core.v1.PreferredSchedulingTerm */
	{1, "weight", SK__PB_INT32, K, -1},
	{2, "preference", SK__PB_MSG, K, 242}, /* NodeSelectorTerm */
};
static const sk__pb_field f296[] = { /* k8s.io.api.core.v1.Probe */
	{1, "", SK__PB_MSG, K|I, 297}, /* ProbeHandler */
	{2, "initialDelaySeconds", SK__PB_INT32, 0, -1},
	{3, "timeoutSeconds", SK__PB_INT32, 0, -1},
	{4, "periodSeconds", SK__PB_INT32, 0, -1},
	{5, "successThreshold", SK__PB_INT32, 0, -1},
	{6, "failureThreshold", SK__PB_INT32, 0, -1},
	{7, "terminationGracePeriodSeconds", SK__PB_INT64, K, -1},
};
static const sk__pb_field f297[] = { /* k8s.io.api.core.v1.ProbeHandler */
	{1, "exec", SK__PB_MSG, K, 189}, /* ExecAction */
	{2, "httpGet", SK__PB_MSG, K, 200}, /* HTTPGetAction */
	{3, "tcpSocket", SK__PB_MSG, K, 346}, /* TCPSocketAction */
	{4, "grpc", SK__PB_MSG, K, 196}, /* GRPCAction */
};
static const sk__pb_field f298[] = { /* k8s.io.api.core.v1.ProjectedVolumeSource */
	{1, "sources", SK__PB_MSG, R|K, 359}, /* VolumeProjection */
	{2, "defaultMode", SK__PB_INT32, K, -1},
};
static const sk__pb_field f299[] = { /* k8s.io.api.core.v1.QuobyteVolumeSource */
	{1, "registry", SK__PB_STRING, K, -1},
	{2, "volume", SK__PB_STRING, K, -1},
	{3, "readOnly", SK__PB_BOOL, 0, -1},
	{4, "user", SK__PB_STRING, 0, -1},
	{5, "group", SK__PB_STRING, 0, -1},
	{6, "tenant", SK__PB_STRING, 0, -1},
};
static const sk__pb_field f300[] = { /* k8s.io.api.core.v1.RBDPersistentVolumeSource */
	{1, "monitors", SK__PB_STRING, R|K, -1},
	{2, "image", SK__PB_STRING, K, -1},
	{3, "fsType", SK__PB_STRING, 0, -1},
	{4, "pool", SK__PB_STRING, 0, -1},
	{5, "user", SK__PB_STRING, 0, -1},
	{6, "keyring", SK__PB_STRING, 0, -1},
	{7, "secretRef", SK__PB_MSG, K, 328}, /* SecretReference */
	{8, "readOnly", SK__PB_BOOL, 0, -1},
};
static const sk__pb_field f301[] = { /* k8s.io.api.core.v1.RBDVolumeSource */
	{1, "monitors", SK__PB_STRING, R|K, -1},
	{2, "image", SK__PB_STRING, K, -1},
	{3, "fsType", SK__PB_STRING, 0, -1},
	{4, "pool", SK__PB_STRING, 0, -1},
	{5, "user", SK__PB_STRING, 0, -1},
	{6, "keyring", SK__PB_STRING, 0, -1},
	{7, "secretRef", SK__PB_MSG, K, 219}, /* LocalObjectReference */
	{8, "readOnly", SK__PB_BOOL, 0, -1},
};
static const sk__pb_field f302[] = { /* k8s.io.api.core.v1.RangeAllocation */
	{1, "metadata", SK__PB_MSG, 0, 484}, /* ObjectMeta */
	{2, "range", SK__PB_STRING, K, -1},
	{3, "data", SK__PB_BYTES, K, -1},
};
static const sk__pb_field f303[] = { /* k8s.io.api.core.v1.ReplicationController */
	{1, "metadata", SK__PB_MSG, 0, 484}, /* ObjectMeta */
	{2, "spec", SK__PB_MSG, 0, 306}, /* ReplicationControllerSpec */
	{3, "status", SK__PB_MSG, 0, 307}, /* ReplicationControllerStatus */
};
static const sk__pb_field f304[] = { /* k8s.io.api.core.v1.ReplicationControllerCondition */
	{1, "type", SK__PB_STRING, K, -1},
	{2, "status", SK__PB_STRING, K, -1},
	{3, "lastTransitionTime", SK__PB_MSG, 0, 497}, /* Time */
	{4, "reason", SK__PB_STRING, 0, -1},
	{5, "message", SK__PB_STRING, 0, -1},
};
static const sk__pb_field f305[] = { /* k8s.io.api.core.v1.ReplicationControllerList */
	{1, "metadata", SK__PB_MSG, 0, 480}, /* ListMeta */
	{2, "items", SK__PB_MSG, R|K, 303}, /* ReplicationController */
};
static const sk__pb_field f306[] = { /* k8s.io.api.core.v1.ReplicationControllerSpec */
	{1, "replicas", SK__PB_INT32, K, -1},
	{2, "selector", SK__PB_STRING, M, -1},
	{3, "template", SK__PB_MSG, K, 290}, /* PodTemplateSpec */
	{4, "minReadySeconds", SK__PB_INT32, 0, -1},
};
static const sk__pb_field f307[] = { /* k8s.io.api.core.v1.ReplicationControllerStatus */
	{1, "replicas", SK__PB_INT32, K, -1},
	{2, "fullyLabeledReplicas", SK__PB_INT32, 0, -1},
	{3, "observedGeneration", SK__PB_INT64, 0, -1},
	{4, "readyReplicas", SK__PB_INT32, 0, -1},
	{5, "availableReplicas", SK__PB_INT32, 0, -1},
	{6, "conditions", SK__PB_MSG, R, 304}, /* ReplicationControllerCondition */
};
static const sk__pb_field f308[] = { /* k8s.io.api.core.v1.ResourceClaim */
	{1, "name", SK__PB_STRING, K, -1},
	{2, "request", SK__PB_STRING, 0, -1},
};
static const sk__pb_field f309[] = { /* k8s.io.api.core.v1.ResourceFieldSelector */
	{1, "containerName", SK__PB_STRING, 0, -1},
	{2, "resource", SK__PB_STRING, K, -1},
	{3, "divisor", SK__PB_MSG, 0, 456}, /* Quantity */
};
static const sk__pb_field f310[] = { /* k8s.io.api.core.v1.ResourceHealth */
	{1, "resourceID", SK__PB_STRING, K, -1},
	{2, "health", SK__PB_STRING, 0, -1},
};
static const sk__pb_field f311[] = { /* k8s.io.api.core.v1.ResourceQuota */
	{1, "metadata", SK__PB_MSG, 0, 484}, /* ObjectMeta */
	{2, "spec", SK__PB_MSG, 0, 313}, /* ResourceQuotaSpec */
	{3, "status", SK__PB_MSG, 0, 314}, /* ResourceQuotaStatus */
};
static const sk__pb_field f312[] = { /* k8s.io.api.core.v1.ResourceQuotaList */
	{1, "metadata", SK__PB_MSG, 0, 480}, /* ListMeta */
	{2, "items", SK__PB_MSG, R|K, 311}, /* ResourceQuota */
};
static const sk__pb_field f313[] = { /* k8s.io.api.core.v1.ResourceQuotaSpec */
	{1, "hard", SK__PB_MSG, M, 456}, /* Quantity */
	{2, "scopes", SK__PB_STRING, R, -1},
	{3, "scopeSelector", SK__PB_MSG, K, 320}, /* ScopeSelector */
};
static const sk__pb_field f314[] = { /* k8s.io.api.core.v1.ResourceQuotaStatus */
	{1, "hard", SK__PB_MSG, M, 456}, /* Quantity */
	{2, "used", SK__PB_MSG, M, 456}, /* Quantity */
};
static const sk__pb_field f315[] = { /* k8s.io.api.core.v1.ResourceRequirements */
	{1, "limits", SK__PB_MSG, M, 456}, /* Quantity */
	{2, "requests", SK__PB_MSG, M, 456}, /* Quantity */
	{3, "claims", SK__PB_MSG, R, 308}, /* ResourceClaim */
};
static const sk__pb_field f316[] = { /* k8s.io.api.core.v1.ResourceStatus */
	{1, "name", SK__PB_STRING, K, -1},
	{2, "resources", SK__PB_MSG, R, 310}, /* ResourceHealth */
};
static const sk__pb_field f317[] = { /* k8s.io.api.core.v1.SELinuxOptions */
	{1, "user", SK__PB_STRING, 0, -1},
	{2, "role", SK__PB_STRING, 0, -1},
	{3, "type", SK__PB_STRING, 0, -1},
	{4, "level", SK__PB_STRING, 0, -1},
};
static const sk__pb_field f318[] = { /* k8s.io.api.core.v1.ScaleIOPersistentVolumeSource */
	{1, "gateway", SK__PB_STRING, K, -1},
	{2, "system", SK__PB_STRING, K, -1},
	{3, "secretRef", SK__PB_MSG, K, 328}, /* SecretReference */
	{4, "sslEnabled", SK__PB_BOOL, 0, -1},
	{5, "protectionDomain", SK__PB_STRING, 0, -1},
	{6, "storagePool", SK__PB_STRING, 0, -1},
	{7, "storageMode", SK__PB_STRING, 0, -1},
	{8, "volumeName", SK__PB_STRING, 0, -1},
	{9, "fsType", SK__PB_STRING, 0, -1},
	{10, "readOnly", SK__PB_BOOL, 0, -1},
};
static const sk__pb_field f319[] = { /* k8s.io.api.core.v1.ScaleIOVolumeSource */
	{1, "gateway", SK__PB_STRING, K, -1},
	{2, "system", SK__PB_STRING, K, -1},
	{3, "secretRef", SK__PB_MSG, K, 219}, /* LocalObjectReference */
	{4, "sslEnabled", SK__PB_BOOL, 0, -1},
	{5, "protectionDomain", SK__PB_STRING, 0, -1},
	{6, "storagePool", SK__PB_STRING, 0, -1},
	{7, "storageMode", SK__PB_STRING, 0, -1},
	{8, "volumeName", SK__PB_STRING, 0, -1},
	{9, "fsType", SK__PB_STRING, 0, -1},
	{10, "readOnly", SK__PB_BOOL, 0, -1},
};
static const sk__pb_field f320[] = { /* k8s.io.api.core.v1.ScopeSelector */
	{1, "matchExpressions", SK__PB_MSG, R, 321}, /* ScopedResourceSelectorRequirement */
};
static const sk__pb_field f321[] = { /* k8s.io.api.core.v1.ScopedResourceSelectorRequirement */
	{1, "scopeName", SK__PB_STRING, K, -1},
	{2, "operator", SK__PB_STRING, K, -1},
	{3, "values", SK__PB_STRING, R, -1},
};
static const sk__pb_field f322[] = { /* k8s.io.api.core.v1.SeccompProfile */
	{1, "type", SK__PB_STRING, K, -1},
	{2, "localhostProfile", SK__PB_STRING, K, -1},
};
static const sk__pb_field f323[] = { /* k8s.io.api.core.v1.Secret */
	{1, "metadata", SK__PB_MSG, 0, 484}, /* ObjectMeta */
	{2, "data", SK__PB_BYTES, M, -1},
	{3, "type", SK__PB_STRING, 0, -1},
	{4, "stringData", SK__PB_STRING, M, -1},
	{5, "immutable", SK__PB_BOOL, K, -1},
};
static const sk__pb_field f324[] = { /* k8s.io.api.core.v1.SecretEnvSource */
	{1, "", SK__PB_MSG, K|I, 219}, /* LocalObjectReference */
	{2, "optional", SK__PB_BOOL, K, -1},
};
static const sk__pb_field f325[] = { /* k8s.io.api.core.v1.SecretKeySelector */
	{1, "", SK__PB_MSG, K|I, 219}, /* LocalObjectReference */
	{2, "key", SK__PB_STRING, K, -1},
	{3, "optional", SK__PB_BOOL, K, -1},
};
static const sk__pb_field f326[] = { /* k8s.io.api.core.v1.SecretList */
	{1, "metadata", SK__PB_MSG, 0, 480}, /* ListMeta */
	{2, "items", SK__PB_MSG, R|K, 323}, /* Secret */
};
static const sk__pb_field f327[] = { /* k8s.io.api.core.v1.SecretProjection */
	{1, "", SK__PB_MSG, K|I, 219}, /* LocalObjectReference */
	{2, "items", SK__PB_MSG, R, 208}, /* KeyToPath */
	{4, "optional", SK__PB_BOOL, K, -1},
};
static const sk__pb_field f328[] = { /* k8s.io.api.core.v1.SecretReference */
	{1, "name", SK__PB_STRING, 0, -1},
	{2, "namespace", SK__PB_STRING, 0, -1},
};
static const sk__pb_field f329[] = { /* k8s.io.api.core.v1.SecretVolumeSource */
	{1, "secretName", SK__PB_STRING, 0, -1},
	{2, "items", SK__PB_MSG, R, 208}, /* KeyToPath */
	{3, "defaultMode", SK__PB_INT32, K, -1},
	{4, "optional", SK__PB_BOOL, K, -1},
};
static const sk__pb_field f330[] = { /* k8s.io.api.core.v1.SecurityContext */
	{1, "capabilities", SK__PB_MSG, K, 139}, /* Capabilities */
	{2, "privileged", SK__PB_BOOL, K, -1},
	{3, "seLinuxOptions", SK__PB_MSG, K, 317}, /* SELinuxOptions */
	{4, "runAsUser", SK__PB_INT64, K, -1},
	{5, "runAsNonRoot", SK__PB_BOOL, K, -1},
	{6, "readOnlyRootFilesystem", SK__PB_BOOL, K, -1},
	{7, "allowPrivilegeEscalation", SK__PB_BOOL, K, -1},
	{8, "runAsGroup", SK__PB_INT64, K, -1},
	{9, "procMount", SK__PB_STRING, K, -1},
	{10, "windowsOptions", SK__PB_MSG, K, 364}, /* WindowsSecurityContextOptions */
	{11, "seccompProfile", SK__PB_MSG, K, 322}, /* SeccompProfile */
	{12, "appArmorProfile", SK__PB_MSG, K, 130}, /* AppArmorProfile */
};
static const sk__pb_field f331[] = { /* k8s.io.api.core.v1.SerializedReference */
	{1, "reference", SK__PB_MSG, 0, 248}, /* ObjectReference */
};
static const sk__pb_field f332[] = { /* k8s.io.api.core.v1.Service */
	{1, "metadata", SK__PB_MSG, 0, 484}, /* ObjectMeta */
	{2, "spec", SK__PB_MSG, 0, 339}, /* ServiceSpec */
	{3, "status", SK__PB_MSG, 0, 340}, /* ServiceStatus */
};
static const sk__pb_field f333[] = { /* k8s.io.api.core.v1.ServiceAccount */
	{1, "metadata", SK__PB_MSG, 0, 484}, /* ObjectMeta */
	{2, "secrets", SK__PB_MSG, R, 248}, /* ObjectReference */
	{3, "imagePullSecrets", SK__PB_MSG, R, 219}, /* LocalObjectReference */
	{4, "automountServiceAccountToken", SK__PB_BOOL, K, -1},
};
static const sk__pb_field f334[] = { /* k8s.io.api.core.v1.ServiceAccountList */
	{1, "metadata", SK__PB_MSG, 0, 480}, /* ListMeta */
	{2, "items", SK__PB_MSG, R|K, 333}, /* ServiceAccount */
};
static const sk__pb_field f335[] = { /* k8s.io.api.core.v1.ServiceAccountTokenProjection */
	{1, "audience", SK__PB_STRING, 0, -1},
	{2, "expirationSeconds", SK__PB_INT64, K, -1},
	{3, "path", SK__PB_STRING, K, -1},
};
static const sk__pb_field f336[] = { /* k8s.io.api.core.v1.ServiceList */
	{1, "metadata", SK__PB_MSG, 0, 480}, /* ListMeta */
	{2, "items", SK__PB_MSG, R|K, 332}, /* Service */
};
static const sk__pb_field f337[] = { /* k8s.io.api.core.v1.ServicePort */
	{1, "name", SK__PB_STRING, 0, -1},
	{2, "protocol", SK__PB_STRING, 0, -1},
	{3, "port", SK__PB_INT32, K, -1},
	{4, "targetPort", SK__PB_MSG, 0, 506}, /* IntOrString */
	{5, "nodePort", SK__PB_INT32, 0, -1},
	{6, "appProtocol", SK__PB_STRING, K, -1},
};
static const sk__pb_field f338[] = { /* k8s.io.api.core.v1.ServiceProxyOptions */
	{1, "path", SK__PB_STRING, 0, -1},
};
static const sk__pb_field f339[] = { /* k8s.io.api.core.v1.ServiceSpec */
	{1, "ports", SK__PB_MSG, R, 337}, /* ServicePort */
	{2, "selector", SK__PB_STRING, M, -1},
	{3, "clusterIP", SK__PB_STRING, 0, -1},
	{4, "type", SK__PB_STRING, 0, -1},
	{5, "externalIPs", SK__PB_STRING, R, -1},
	{7, "sessionAffinity", SK__PB_STRING, 0, -1},
	{8, "loadBalancerIP", SK__PB_STRING, 0, -1},
	{9, "loadBalancerSourceRanges", SK__PB_STRING, R, -1},
	{10, "externalName", SK__PB_STRING, 0, -1},
	{11, "externalTrafficPolicy", SK__PB_STRING, 0, -1},
	{12, "healthCheckNodePort", SK__PB_INT32, 0, -1},
	{13, "publishNotReadyAddresses", SK__PB_BOOL, 0, -1},
	{14, "sessionAffinityConfig", SK__PB_MSG, K, 341}, /* SessionAffinityConfig */
	{17, "ipFamilyPolicy", SK__PB_STRING, K, -1},
	{18, "clusterIPs", SK__PB_STRING, R, -1},
	{19, "ipFamilies", SK__PB_STRING, R, -1},
	{20, "allocateLoadBalancerNodePorts", SK__PB_BOOL, K, -1},
	{21, "loadBalancerClass", SK__PB_STRING, K, -1},
	{22, "internalTrafficPolicy", SK__PB_STRING, K, -1},
	{23, "trafficDistribution", SK__PB_STRING, K, -1},
};
static const sk__pb_field f340[] = { /* k8s.io.api.core.v1.ServiceStatus */
	{1, "loadBalancer", SK__PB_MSG, 0, 218}, /* LoadBalancerStatus */
	{2, "conditions", SK__PB_MSG, R, 464}, /* Condition */
};
static const sk__pb_field f341[] = { /* k8s.io.api.core.v1.SessionAffinityConfig */
	{1, "clientIP", SK__PB_MSG, K, 144}, /* ClientIPConfig */
};
static const sk__pb_field f342[] = { /* k8s.io.api.core.v1.SleepAction */
	{1, "seconds", SK__PB_INT64, K, -1},
};
static const sk__pb_field f343[] = { /* k8s.io.api.core.v1.StorageOSPersistentVolumeSource */
	{1, "volumeName", SK__PB_STRING, 0, -1},
	{2, "volumeNamespace", SK__PB_STRING, 0, -1},
	{3, "fsType", SK__PB_STRING, 0, -1},
	{4, "readOnly", SK__PB_BOOL, 0, -1},
	{5, "secretRef", SK__PB_MSG, K, 248}, /* ObjectReference */
};
static const sk__pb_field f344[] = { /* k8s.io.api.core.v1.StorageOSVolumeSource */
	{1, "volumeName", SK__PB_STRING, 0, -1},
	{2, "volumeNamespace", SK__PB_STRING, 0, -1},
	{3, "fsType", SK__PB_STRING, 0, -1},
	{4, "readOnly", SK__PB_BOOL, 0, -1},
	{5, "secretRef", SK__PB_MSG, K, 219}, /* LocalObjectReference */
};
static const sk__pb_field f345[] = { /* k8s.io.api.core.v1.Sysctl */
	{1, "name", SK__PB_STRING, K, -1},
	{2, "value", SK__PB_STRING, K, -1},
};
static const sk__pb_field f346[] = { /* k8s.io.api.core.v1.TCPSocketAction */
	{1, "port", SK__PB_MSG, K, 506}, /* IntOrString */
	{2, "host", SK__PB_STRING, 0, -1},
};
static const sk__pb_field f347[] = { /* k8s.io.api.core.v1.Taint */
	{1, "key", SK__PB_STRING, K, -1},
	{2, "value", SK__PB_STRING, 0, -1},
	{3, "effect", SK__PB_STRING, K, -1},
	{4, "timeAdded", SK__PB_MSG, K, 497}, /* Time */
};
static const sk__pb_field f348[] = { /* k8s.io.api.core.v1.Toleration */
	{1, "key", SK__PB_STRING, 0, -1},
	{2, "operator", SK__PB_STRING, 0, -1},
	{3, "value", SK__PB_STRING, 0, -1},
	{4, "effect", SK__PB_STRING, 0, -1},
	{5, "tolerationSeconds", SK__PB_INT64, K, -1},
};
static const sk__pb_field f349[] = { /* k8s.io.api.core.v1.TopologySelectorLabelRequirement */
	{1, "key", SK__PB_STRING, K, -1},
	{2, "values", SK__PB_STRING, R|K, -1},
};
static const sk__pb_field f350[] = { /* k8s.io.api.core.v1.TopologySelectorTerm */
	{1, "matchLabelExpressions", SK__PB_MSG, R, 349}, /* TopologySelectorLabelRequirement */
};
static const sk__pb_field f351[] = { /* k8s.io.api.core.v1.TopologySpreadConstraint */
	{1, "maxSkew", SK__PB_INT32, K, -1},
	{2, "topologyKey", SK__PB_STRING, K, -1},
	{3, "whenUnsatisfiable", SK__PB_STRING, K, -1},
	{4, "labelSelector", SK__PB_MSG, K, 477}, /* LabelSelector */
	{5, "minDomains", SK__PB_INT32, K, -1},
	{6, "nodeAffinityPolicy", SK__PB_STRING, K, -1},
	{7, "nodeTaintsPolicy", SK__PB_STRING, K, -1},
	{8, "matchLabelKeys", SK__PB_STRING, R, -1},
};
static const sk__pb_field f352[] = { /* k8s.io.api.core.v1.TypedLocalObjectReference */
	{1, "apiGroup", SK__PB_STRING, K, -1},
	{2, "kind", SK__PB_STRING, K, -1},
	{3, "name", SK__PB_STRING, K, -1},
};
static const sk__pb_field f353[] = { /* k8s.io.api.core.v1.TypedObjectReference */
	{1, "apiGroup", SK__PB_STRING, K, -1},
	{2, "kind", SK__PB_STRING, K, -1},
	{3, "name", SK__PB_STRING, K, -1},
	{4, "namespace", SK__PB_STRING, K, -1},
};
static const sk__pb_field f354[] = { /* k8s.io.api.core.v1.Volume */
	{1, "name", SK__PB_STRING, K, -1},
	{2, "", SK__PB_MSG, K|I, 361}, /* VolumeSource */
};
static const sk__pb_field f355[] = { /* k8s.io.api.core.v1.VolumeDevice */
	{1, "name", SK__PB_STRING, K, -1},
	{2, "devicePath", SK__PB_STRING, K, -1},
};
static const sk__pb_field f356[] = { /* k8s.io.api.core.v1.VolumeMount */
	{1, "name", SK__PB_STRING, K, -1},
	{2, "readOnly", SK__PB_BOOL, 0, -1},
	{3, "mountPath", SK__PB_STRING, K, -1},
	{4, "subPath", SK__PB_STRING, 0, -1},
	{5, "mountPropagation", SK__PB_STRING, K, -1},
	{6, "subPathExpr", SK__PB_STRING, 0, -1},
	{7, "recursiveReadOnly", SK__PB_STRING, K, -1},
};
static const sk__pb_field f357[] = { /* k8s.io.api.core.v1.VolumeMountStatus */
	{1, "name", SK__PB_STRING, K, -1},
	{2, "mountPath", SK__PB_STRING, K, -1},
	{3, "readOnly", SK__PB_BOOL, 0, -1},
	{4, "recursiveReadOnly", SK__PB_STRING, K, -1},
};
static const sk__pb_field f358[] = { /* k8s.io.api.core.v1.VolumeNodeAffinity */
	{1, "required", SK__PB_MSG, K, 240}, /* NodeSelector */
};
static const sk__pb_field f359[] = { /* k8s.io.api.core.v1.VolumeProjection */
	{1, "secret", SK__PB_MSG, K, 327}, /* SecretProjection */
	{2, "downwardAPI", SK__PB_MSG, K, 170}, /* DownwardAPIProjection */
	{3, "configMap", SK__PB_MSG, K, 154}, /* ConfigMapProjection */
	{4, "serviceAccountToken", SK__PB_MSG, K, 335}, /* ServiceAccountTokenProjection */
	{5, "clusterTrustBundle", SK__PB_MSG, K, 145}, /* ClusterTrustBundleProjection */
	{6, "podCertificate", SK__PB_MSG, K, 267}, /* PodCertificateProjection */
};
static const sk__pb_field f360[] = { /* k8s.io.api.core.v1.VolumeResourceRequirements */
	{1, "limits", SK__PB_MSG, M, 456}, /* Quantity */
	{2, "requests", SK__PB_MSG, M, 456}, /* Quantity */
};
static const sk__pb_field f361[] = { /* k8s.io.api.core.v1.VolumeSource */
	{1, "hostPath", SK__PB_MSG, K, 204}, /* HostPathVolumeSource */
	{2, "emptyDir", SK__PB_MSG, K, 173}, /* EmptyDirVolumeSource */
	{3, "gcePersistentDisk", SK__PB_MSG, K, 195}, /* GCEPersistentDiskVolumeSource */
	{4, "awsElasticBlockStore", SK__PB_MSG, K, 128}, /* AWSElasticBlockStoreVolumeSource */
	{5, "gitRepo", SK__PB_MSG, K, 197}, /* GitRepoVolumeSource */
	{6, "secret", SK__PB_MSG, K, 329}, /* SecretVolumeSource */
	{7, "nfs", SK__PB_MSG, K, 222}, /* NFSVolumeSource */
	{8, "iscsi", SK__PB_MSG, K, 206}, /* ISCSIVolumeSource */
	{9, "glusterfs", SK__PB_MSG, K, 199}, /* GlusterfsVolumeSource */
	{10, "persistentVolumeClaim", SK__PB_MSG, K, 256}, /* PersistentVolumeClaimVolumeSource */
	{11, "rbd", SK__PB_MSG, K, 301}, /* RBDVolumeSource */
	{12, "flexVolume", SK__PB_MSG, K, 193}, /* FlexVolumeSource */
	{13, "cinder", SK__PB_MSG, K, 143}, /* CinderVolumeSource */
	{14, "cephfs", SK__PB_MSG, K, 141}, /* CephFSVolumeSource */
	{15, "flocker", SK__PB_MSG, K, 194}, /* FlockerVolumeSource */
	{16, "downwardAPI", SK__PB_MSG, K, 172}, /* DownwardAPIVolumeSource */
	{17, "fc", SK__PB_MSG, K, 190}, /* FCVolumeSource */
	{18, "azureFile", SK__PB_MSG, K, 135}, /* AzureFileVolumeSource */
	{19, "configMap", SK__PB_MSG, K, 155}, /* ConfigMapVolumeSource */
	{20, "vsphereVolume", SK__PB_MSG, K, 362}, /* VsphereVirtualDiskVolumeSource */
	{21, "quobyte", SK__PB_MSG, K, 299}, /* QuobyteVolumeSource */
	{22, "azureDisk", SK__PB_MSG, K, 133}, /* AzureDiskVolumeSource */
	{23, "photonPersistentDisk", SK__PB_MSG, K, 261}, /* PhotonPersistentDiskVolumeSource */
	{24, "portworxVolume", SK__PB_MSG, K, 292}, /* PortworxVolumeSource */
	{25, "scaleIO", SK__PB_MSG, K, 319}, /* ScaleIOVolumeSource */
	{26, "projected", SK__PB_MSG, K, 298}, /* ProjectedVolumeSource */
	{27, "storageos", SK__PB_MSG, K, 344}, /* StorageOSVolumeSource */
	{28, "csi", SK__PB_MSG, K, 138}, /* CSIVolumeSource */
	{29, "ephemeral", SK__PB_MSG, K, 184}, /* EphemeralVolumeSource */
	{30, "image", SK__PB_MSG, K, 207}, /* ImageVolumeSource */
};
static const sk__pb_field f362[] = { /* k8s.io.api.core.v1.VsphereVirtualDiskVolumeSource */
	{1, "volumePath", SK__PB_STRING, K, -1},
	{2, "fsType", SK__PB_STRING, 0, -1},
	{3, "storagePolicyName", SK__PB_STRING, 0, -1},
	{4, "storagePolicyID", SK__PB_STRING, 0, -1},
};
static const sk__pb_field f363[] = { /* k8s.io.api.core.v1.WeightedPodAffinityTerm */
	{1, "weight", SK__PB_INT32, K, -1},
	{2, "podAffinityTerm", SK__PB_MSG, K, 264}, /* PodAffinityTerm */
};
static const sk__pb_field f364[] = { /* k8s.io.api.core.v1.WindowsSecurityContextOptions */
	{1, "gmsaCredentialSpecName", SK__PB_STRING, K, -1},
	{2, "gmsaCredentialSpec", SK__PB_STRING, K, -1},
	{3, "runAsUserName", SK__PB_STRING, K, -1},
	{4, "hostProcess", SK__PB_BOOL, K, -1},
};
static const sk__pb_field f365[] = { /* k8s.io.api.core.v1.WorkloadReference */
	{1, "name", SK__PB_STRING, K, -1},
	{2, "podGroup", SK__PB_STRING, K, -1},
	{3, "podGroupReplicaKey", SK__PB_STRING, 0, -1},
};
static const sk__pb_field f366[] = { /* k8s.io.api.discovery.v1.Endpoint */
	{1, "addresses", SK__PB_STRING, R|K, -1},
	{2, "conditions", SK__PB_MSG, 0, 367}, /* EndpointConditions */
	{3, "hostname", SK__PB_STRING, K, -1},
	{4, "targetRef", SK__PB_MSG, K, 248}, /* ObjectReference */
	{5, "deprecatedTopology", SK__PB_STRING, M, -1},
	{6, "nodeName", SK__PB_STRING, K, -1},
	{7, "zone", SK__PB_STRING, K, -1},
	{8, "hints", SK__PB_MSG, K, 368}, /* EndpointHints */
};
static const sk__pb_field f367[] = { /* k8s.io.api.discovery.v1.EndpointConditions */
	{1, "ready", SK__PB_BOOL, K, -1},
	{2, "serving", SK__PB_BOOL, K, -1},
	{3, "terminating", SK__PB_BOOL, K, -1},
};
static const sk__pb_field f368[] = { /* k8s.io.api.discovery.v1.EndpointHints */
	{1, "forZones", SK__PB_MSG, R, 373}, /* ForZone */
	{2, "forNodes", SK__PB_MSG, R, 372}, /* ForNode */
};
static const sk__pb_field f369[] = { /* k8s.io.api.discovery.v1.EndpointPort */
	{1, "name", SK__PB_STRING, K, -1},
	{2, "protocol", SK__PB_STRING, K, -1},
	{3, "port", SK__PB_INT32, K, -1},
	{4, "appProtocol", SK__PB_STRING, K, -1},
};
static const sk__pb_field f370[] = { /* k8s.io.api.discovery.v1.EndpointSlice */
	{1, "metadata", SK__PB_MSG, 0, 484}, /* ObjectMeta */
	{2, "endpoints", SK__PB_MSG, R|K, 366}, /* Endpoint */
	{3, "ports", SK__PB_MSG, R|K, 369}, /* EndpointPort */
	{4, "addressType", SK__PB_STRING, K, -1},
};
static const sk__pb_field f371[] = { /* k8s.io.api.discovery.v1.EndpointSliceList */
	{1, "metadata", SK__PB_MSG, 0, 480}, /* ListMeta */
	{2, "items", SK__PB_MSG, R|K, 370}, /* EndpointSlice */
};
static const sk__pb_field f372[] = { /* k8s.io.api.discovery.v1.ForNode */
	{1, "name", SK__PB_STRING, K, -1},
};
static const sk__pb_field f373[] = { /* k8s.io.api.discovery.v1.ForZone */
	{1, "name", SK__PB_STRING, K, -1},
};
static const sk__pb_field f374[] = { /* k8s.io.api.events.v1.Event */
	{1, "metadata", SK__PB_MSG, K, 484}, /* ObjectMeta */
	{2, "eventTime", SK__PB_MSG, K, 483}, /* MicroTime */
	{3, "series", SK__PB_MSG, K, 376}, /* EventSeries */
	{4, "reportingController", SK__PB_STRING, 0, -1},
	{5, "reportingInstance", SK__PB_STRING, 0, -1},
	{6, "action", SK__PB_STRING, 0, -1},
	{7, "reason", SK__PB_STRING, 0, -1},
	{8, "regarding", SK__PB_MSG, 0, 248}, /* ObjectReference */
	{9, "related", SK__PB_MSG, K, 248}, /* ObjectReference */
	{10, "note", SK__PB_STRING, 0, -1},
	{11, "type", SK__PB_STRING, 0, -1},
	{12, "deprecatedSource", SK__PB_MSG, 0, 188}, /* EventSource */
	{13, "deprecatedFirstTimestamp", SK__PB_MSG, 0, 497}, /* Time */
	{14, "deprecatedLastTimestamp", SK__PB_MSG, 0, 497}, /* Time */
	{15, "deprecatedCount", SK__PB_INT32, 0, -1},
};
static const sk__pb_field f375[] = { /* k8s.io.api.events.v1.EventList */
	{1, "metadata", SK__PB_MSG, 0, 480}, /* ListMeta */
	{2, "items", SK__PB_MSG, R|K, 374}, /* Event */
};
static const sk__pb_field f376[] = { /* k8s.io.api.events.v1.EventSeries */
	{1, "count", SK__PB_INT32, K, -1},
	{2, "lastObservedTime", SK__PB_MSG, K, 483}, /* MicroTime */
};
static const sk__pb_field f377[] = { /* k8s.io.api.networking.v1.HTTPIngressPath */
	{1, "path", SK__PB_STRING, 0, -1},
	{2, "backend", SK__PB_MSG, K, 384}, /* IngressBackend */
	{3, "pathType", SK__PB_STRING, K, -1},
};
static const sk__pb_field f378[] = { /* k8s.io.api.networking.v1.HTTPIngressRuleValue */
	{1, "paths", SK__PB_MSG, R|K, 377}, /* HTTPIngressPath */
};
static const sk__pb_field f379[] = { /* k8s.io.api.networking.v1.IPAddress */
	{1, "metadata", SK__PB_MSG, 0, 484}, /* ObjectMeta */
	{2, "spec", SK__PB_MSG, 0, 381}, /* IPAddressSpec */
};
static const sk__pb_field f380[] = { /* k8s.io.api.networking.v1.IPAddressList */
	{1, "metadata", SK__PB_MSG, 0, 480}, /* ListMeta */
	{2, "items", SK__PB_MSG, R|K, 379}, /* IPAddress */
};
static const sk__pb_field f381[] = { /* k8s.io.api.networking.v1.IPAddressSpec */
	{1, "parentRef", SK__PB_MSG, K, 406}, /* ParentReference */
};
static const sk__pb_field f382[] = { /* k8s.io.api.networking.v1.IPBlock */
	{1, "cidr", SK__PB_STRING, K, -1},
	{2, "except", SK__PB_STRING, R, -1},
};
static const sk__pb_field f383[] = { /* k8s.io.api.networking.v1.Ingress */
	{1, "metadata", SK__PB_MSG, 0, 484}, /* ObjectMeta */
	{2, "spec", SK__PB_MSG, 0, 396}, /* IngressSpec */
	{3, "status", SK__PB_MSG, 0, 397}, /* IngressStatus */
};
static const sk__pb_field f384[] = { /* k8s.io.api.networking.v1.IngressBackend */
	{3, "resource", SK__PB_MSG, K, 352}, /* TypedLocalObjectReference */
	{4, "service", SK__PB_MSG, K, 395}, /* IngressServiceBackend */
};
static const sk__pb_field f385[] = { /* k8s.io.api.networking.v1.IngressClass */
	{1, "metadata", SK__PB_MSG, 0, 484}, /* ObjectMeta */
	{2, "spec", SK__PB_MSG, 0, 388}, /* IngressClassSpec */
};
static const sk__pb_field f386[] = { /* k8s.io.api.networking.v1.IngressClassList */
	{1, "metadata", SK__PB_MSG, 0, 480}, /* ListMeta */
	{2, "items", SK__PB_MSG, R|K, 385}, /* IngressClass */
};
static const sk__pb_field f387[] = { /* k8s.io.api.networking.v1.IngressClassParametersReference */
	{1, "apiGroup", SK__PB_STRING, K, -1},
	{2, "kind", SK__PB_STRING, K, -1},
	{3, "name", SK__PB_STRING, K, -1},
	{4, "scope", SK__PB_STRING, K, -1},
	{5, "namespace", SK__PB_STRING, K, -1},
};
static const sk__pb_field f388[] = { /* k8s.io.api.networking.v1.IngressClassSpec */
	{1, "controller", SK__PB_STRING, 0, -1},
	{2, "parameters", SK__PB_MSG, K, 387}, /* IngressClassParametersReference */
};
static const sk__pb_field f389[] = { /* k8s.io.api.networking.v1.IngressList */
	{1, "metadata", SK__PB_MSG, 0, 480}, /* ListMeta */
	{2, "items", SK__PB_MSG, R|K, 383}, /* Ingress */
};
static const sk__pb_field f390[] = { /* k8s.io.api.networking.v1.IngressLoadBalancerIngress */
	{1, "ip", SK__PB_STRING, 0, -1},
	{2, "hostname", SK__PB_STRING, 0, -1},
	{4, "ports", SK__PB_MSG, R, 392}, /* IngressPortStatus */
};
static const sk__pb_field f391[] = { /* k8s.io.api.networking.v1.IngressLoadBalancerStatus */
	{1, "ingress", SK__PB_MSG, R, 390}, /* IngressLoadBalancerIngress */
};
static const sk__pb_field f392[] = { /* k8s.io.api.networking.v1.IngressPortStatus */
	{1, "port", SK__PB_INT32, K, -1},
	{2, "protocol", SK__PB_STRING, K, -1},
	{3, "error", SK__PB_STRING, K, -1},
};
static const sk__pb_field f393[] = { /* k8s.io.api.networking.v1.IngressRule */
	{1, "host", SK__PB_STRING, 0, -1},
	{2, "", SK__PB_MSG, K|I, 394}, /* IngressRuleValue */
};
static const sk__pb_field f394[] = { /* k8s.io.api.networking.v1.IngressRuleValue */
	{1, "http", SK__PB_MSG, K, 378}, /* HTTPIngressRuleValue */
};
static const sk__pb_field f395[] = { /* k8s.io.api.networking.v1.IngressServiceBackend */
	{1, "name", SK__PB_STRING, K, -1},
	{2, "port", SK__PB_MSG, 0, 407}, /* ServiceBackendPort */
};
static const sk__pb_field f396[] = { /* k8s.io.api.networking.v1.IngressSpec */
	{1, "defaultBackend", SK__PB_MSG, K, 384}, /* IngressBackend */
	{2, "tls", SK__PB_MSG, R, 398}, /* IngressTLS */
	{3, "rules", SK__PB_MSG, R, 393}, /* IngressRule */
	{4, "ingressClassName", SK__PB_STRING, K, -1},
};
static const sk__pb_field f397[] = { /* k8s.io.api.networking.v1.IngressStatus */
	{1, "loadBalancer", SK__PB_MSG, 0, 391}, /* IngressLoadBalancerStatus */
};
static const sk__pb_field f398[] = { /* k8s.io.api.networking.v1.IngressTLS */
	{1, "hosts", SK__PB_STRING, R, -1},
	{2, "secretName", SK__PB_STRING, 0, -1},
};
static const sk__pb_field f399[] = { /* k8s.io.api.networking.v1.NetworkPolicy */
	{1, "metadata", SK__PB_MSG, 0, 484}, /* ObjectMeta */
	{2, "spec", SK__PB_MSG, 0, 405}, /* NetworkPolicySpec */
};
static const sk__pb_field f400[] = { /* k8s.io.api.networking.v1.NetworkPolicyEgressRule */
	{1, "ports", SK__PB_MSG, R, 404}, /* NetworkPolicyPort */
	{2, "to", SK__PB_MSG, R, 403}, /* NetworkPolicyPeer */
};
static const sk__pb_field f401[] = { /* k8s.io.api.networking.v1.NetworkPolicyIngressRule */
	{1, "ports", SK__PB_MSG, R, 404}, /* NetworkPolicyPort */
	{2, "from", SK__PB_MSG, R, 403}, /* NetworkPolicyPeer */
};
static const sk__pb_field f402[] = { /* k8s.io.api.networking.v1.NetworkPolicyList */
	{1, "metadata", SK__PB_MSG, 0, 480}, /* ListMeta */
	{2, "items", SK__PB_MSG, R|K, 399}, /* NetworkPolicy */
};
static const sk__pb_field f403[] = { /* k8s.io.api.networking.v1.NetworkPolicyPeer */
	{1, "podSelector", SK__PB_MSG, K, 477}, /* LabelSelector */
	{2, "namespaceSelector", SK__PB_MSG, K, 477}, /* LabelSelector */
	{3, "ipBlock", SK__PB_MSG, K, 382}, /* IPBlock */
};
static const sk__pb_field f404[] = { /* k8s.io.api.networking.v1.NetworkPolicyPort */
	{1, "protocol", SK__PB_STRING, K, -1},
	{2, "port", SK__PB_MSG, K, 506}, /* IntOrString */
	{3, "endPort", SK__PB_INT32, K, -1},
};
static const sk__pb_field f405[] = { /* k8s.io.api.networking.v1.NetworkPolicySpec */
	{1, "podSelector", SK__PB_MSG, K, 477}, /* LabelSelector */
	{2, "ingress", SK__PB_MSG, R, 401}, /* NetworkPolicyIngressRule */
	{3, "egress", SK__PB_MSG, R, 400}, /* NetworkPolicyEgressRule */
	{4, "policyTypes", SK__PB_STRING, R, -1},
};
static const sk__pb_field f406[] = { /* k8s.io.api.networking.v1.ParentReference */
	{1, "group", SK__PB_STRING, 0, -1},
	{2, "resource", SK__PB_STRING, 0, -1},
	{3, "namespace", SK__PB_STRING, 0, -1},
	{4, "name", SK__PB_STRING, 0, -1},
};
static const sk__pb_field f407[] = { /* k8s.io.api.networking.v1.ServiceBackendPort */
	{1, "name", SK__PB_STRING, 0, -1},
	{2, "number", SK__PB_INT32, 0, -1},
};
static const sk__pb_field f408[] = { /* k8s.io.api.networking.v1.ServiceCIDR */
	{1, "metadata", SK__PB_MSG, 0, 484}, /* ObjectMeta */
	{2, "spec", SK__PB_MSG, 0, 410}, /* ServiceCIDRSpec */
	{3, "status", SK__PB_MSG, 0, 411}, /* ServiceCIDRStatus */
};
static const sk__pb_field f409[] = { /* k8s.io.api.networking.v1.ServiceCIDRList */
	{1, "metadata", SK__PB_MSG, 0, 480}, /* ListMeta */
	{2, "items", SK__PB_MSG, R|K, 408}, /* ServiceCIDR */
};
static const sk__pb_field f410[] = { /* k8s.io.api.networking.v1.ServiceCIDRSpec */
	{1, "cidrs", SK__PB_STRING, R, -1},
};
static const sk__pb_field f411[] = { /* k8s.io.api.networking.v1.ServiceCIDRStatus */
	{1, "conditions", SK__PB_MSG, R, 464}, /* Condition */
};
static const sk__pb_field f412[] = { /* k8s.io.api.node.v1.Overhead */
	{1, "podFixed", SK__PB_MSG, M, 456}, /* Quantity */
};
static const sk__pb_field f413[] = { /* k8s.io.api.node.v1.RuntimeClass */
	{1, "metadata", SK__PB_MSG, 0, 484}, /* ObjectMeta */
	{2, "handler", SK__PB_STRING, K, -1},
	{3, "overhead", SK__PB_MSG, K, 412}, /* Overhead */
	{4, "scheduling", SK__PB_MSG, K, 415}, /* Scheduling */
};
static const sk__pb_field f414[] = { /* k8s.io.api.node.v1.RuntimeClassList */
	{1, "metadata", SK__PB_MSG, 0, 480}, /* ListMeta */
	{2, "items", SK__PB_MSG, R|K, 413}, /* RuntimeClass */
};
static const sk__pb_field f415[] = { /* k8s.io.api.node.v1.Scheduling */
	{1, "nodeSelector", SK__PB_STRING, M, -1},
	{2, "tolerations", SK__PB_MSG, R, 348}, /* Toleration */
};
static const sk__pb_field f416[] = { /* k8s.io.api.policy.v1.Eviction */
	{1, "metadata", SK__PB_MSG, 0, 484}, /* ObjectMeta */
	{2, "deleteOptions", SK__PB_MSG, K, 466}, /* DeleteOptions */
};
static const sk__pb_field f417[] = { /* k8s.io.api.policy.v1.PodDisruptionBudget */
	{1, "metadata", SK__PB_MSG, 0, 484}, /* ObjectMeta */
	{2, "spec", SK__PB_MSG, 0, 419}, /* PodDisruptionBudgetSpec */
	{3, "status", SK__PB_MSG, 0, 420}, /* PodDisruptionBudgetStatus */
};
static const sk__pb_field f418[] = { /* k8s.io.api.policy.v1.PodDisruptionBudgetList */
	{1, "metadata", SK__PB_MSG, 0, 480}, /* ListMeta */
	{2, "items", SK__PB_MSG, R|K, 417}, /* PodDisruptionBudget */
};
static const sk__pb_field f419[] = { /* k8s.io.api.policy.v1.PodDisruptionBudgetSpec */
	{1, "minAvailable", SK__PB_MSG, K, 506}, /* IntOrString */
	{2, "selector", SK__PB_MSG, K, 477}, /* LabelSelector */
	{3, "maxUnavailable", SK__PB_MSG, K, 506}, /* IntOrString */
	{4, "unhealthyPodEvictionPolicy", SK__PB_STRING, K, -1},
};
static const sk__pb_field f420[] = { /* k8s.io.api.policy.v1.PodDisruptionBudgetStatus */
	{1, "observedGeneration", SK__PB_INT64, 0, -1},
	{2, "disruptedPods", SK__PB_MSG, M, 497}, /* Time */
	{3, "disruptionsAllowed", SK__PB_INT32, K, -1},
	{4, "currentHealthy", SK__PB_INT32, K, -1},
	{5, "desiredHealthy", SK__PB_INT32, K, -1},
	{6, "expectedPods", SK__PB_INT32, K, -1},
	{7, "conditions", SK__PB_MSG, R, 464}, /* Condition */
};
static const sk__pb_field f421[] = { /* k8s.io.api.rbac.v1.AggregationRule */
	{1, "clusterRoleSelectors", SK__PB_MSG, R, 477}, /* LabelSelector */
};
static const sk__pb_field f422[] = { /* k8s.io.api.rbac.v1.ClusterRole */
	{1, "metadata", SK__PB_MSG, 0, 484}, /* ObjectMeta */
	{2, "rules", SK__PB_MSG, R|K, 426}, /* PolicyRule */
	{3, "aggregationRule", SK__PB_MSG, K, 421}, /* AggregationRule */
};
static const sk__pb_field f423[] = { /* k8s.io.api.rbac.v1.ClusterRoleBinding */
	{1, "metadata", SK__PB_MSG, 0, 484}, /* ObjectMeta */
	{2, "subjects", SK__PB_MSG, R, 432}, /* Subject */
	{3, "roleRef", SK__PB_MSG, K, 431}, /* RoleRef */
};
static const sk__pb_field f424[] = { /* k8s.io.api.rbac.v1.ClusterRoleBindingList */
	{1, "metadata", SK__PB_MSG, 0, 480}, /* ListMeta */
	{2, "items", SK__PB_MSG, R|K, 423}, /* ClusterRoleBinding */
};
static const sk__pb_field f425[] = { /* k8s.io.api.rbac.v1.ClusterRoleList */
	{1, "metadata", SK__PB_MSG, 0, 480}, /* ListMeta */
	{2, "items", SK__PB_MSG, R|K, 422}, /* ClusterRole */
};
static const sk__pb_field f426[] = { /* k8s.io.api.rbac.v1.PolicyRule */
	{1, "verbs", SK__PB_STRING, R|K, -1},
	{2, "apiGroups", SK__PB_STRING, R, -1},
	{3, "resources", SK__PB_STRING, R, -1},
	{4, "resourceNames", SK__PB_STRING, R, -1},
	{5, "nonResourceURLs", SK__PB_STRING, R, -1},
};
static const sk__pb_field f427[] = { /* k8s.io.api.rbac.v1.Role */
	{1, "metadata", SK__PB_MSG, 0, 484}, /* ObjectMeta */
	{2, "rules", SK__PB_MSG, R|K, 426}, /* PolicyRule */
};
static const sk__pb_field f428[] = { /* k8s.io.api.rbac.v1.RoleBinding */
	{1, "metadata", SK__PB_MSG, 0, 484}, /* ObjectMeta */
	{2, "subjects", SK__PB_MSG, R, 432}, /* Subject */
	{3, "roleRef", SK__PB_MSG, K, 431}, /* RoleRef */
};
static const sk__pb_field f429[] = { /* k8s.io.api.rbac.v1.RoleBindingList */
	{1, "metadata", SK__PB_MSG, 0, 480}, /* ListMeta */
	{2, "items", SK__PB_MSG, R|K, 428}, /* RoleBinding */
};
static const sk__pb_field f430[] = { /* k8s.io.api.rbac.v1.RoleList */
	{1, "metadata", SK__PB_MSG, 0, 480}, /* ListMeta */
	{2, "items", SK__PB_MSG, R|K, 427}, /* Role */
};
static const sk__pb_field f431[] = { /* k8s.io.api.rbac.v1.RoleRef */
	{1, "apiGroup", SK__PB_STRING, K, -1},
	{2, "kind", SK__PB_STRING, K, -1},
	{3, "name", SK__PB_STRING, K, -1},
};
static const sk__pb_field f432[] = { /* k8s.io.api.rbac.v1.Subject */
	{1, "kind", SK__PB_STRING, K, -1},
	{2, "apiGroup", SK__PB_STRING, 0, -1},
	{3, "name", SK__PB_STRING, K, -1},
	{4, "namespace", SK__PB_STRING, 0, -1},
};
static const sk__pb_field f433[] = { /* k8s.io.api.scheduling.v1.PriorityClass */
	{1, "metadata", SK__PB_MSG, 0, 484}, /* ObjectMeta */
	{2, "value", SK__PB_INT32, K, -1},
	{3, "globalDefault", SK__PB_BOOL, 0, -1},
	{4, "description", SK__PB_STRING, 0, -1},
	{5, "preemptionPolicy", SK__PB_STRING, K, -1},
};
static const sk__pb_field f434[] = { /* k8s.io.api.scheduling.v1.PriorityClassList */
	{1, "metadata", SK__PB_MSG, 0, 480}, /* ListMeta */
	{2, "items", SK__PB_MSG, R|K, 433}, /* PriorityClass */
};
static const sk__pb_field f435[] = { /* k8s.io.api.storage.v1.CSIDriver */
	{1, "metadata", SK__PB_MSG, 0, 484}, /* ObjectMeta */
	{2, "spec", SK__PB_MSG, K, 437}, /* CSIDriverSpec */
};
static const sk__pb_field f436[] = { /* k8s.io.api.storage.v1.CSIDriverList */
	{1, "metadata", SK__PB_MSG, 0, 480}, /* ListMeta */
	{2, "items", SK__PB_MSG, R|K, 435}, /* CSIDriver */
};
static const sk__pb_field f437[] = { /* k8s.io.api.storage.v1.CSIDriverSpec */
	{1, "attachRequired", SK__PB_BOOL, K, -1},
	{2, "podInfoOnMount", SK__PB_BOOL, K, -1},
	{3, "volumeLifecycleModes", SK__PB_STRING, R, -1},
	{4, "storageCapacity", SK__PB_BOOL, K, -1},
	{5, "fsGroupPolicy", SK__PB_STRING, K, -1},
	{6, "tokenRequests", SK__PB_MSG, R, 446}, /* TokenRequest */
	{7, "requiresRepublish", SK__PB_BOOL, K, -1},
	{8, "seLinuxMount", SK__PB_BOOL, K, -1},
	{9, "nodeAllocatableUpdatePeriodSeconds", SK__PB_INT64, K, -1},
	{10, "serviceAccountTokenInSecrets", SK__PB_BOOL, K, -1},
};
static const sk__pb_field f438[] = { /* k8s.io.api.storage.v1.CSINode */
	{1, "metadata", SK__PB_MSG, 0, 484}, /* ObjectMeta */
	{2, "spec", SK__PB_MSG, K, 441}, /* CSINodeSpec */
};
static const sk__pb_field f439[] = { /* k8s.io.api.storage.v1.CSINodeDriver */
	{1, "name", SK__PB_STRING, K, -1},
	{2, "nodeID", SK__PB_STRING, K, -1},
	{3, "topologyKeys", SK__PB_STRING, R|K, -1},
	{4, "allocatable", SK__PB_MSG, K, 455}, /* VolumeNodeResources */
};
static const sk__pb_field f440[] = { /* k8s.io.api.storage.v1.CSINodeList */
	{1, "metadata", SK__PB_MSG, 0, 480}, /* ListMeta */
	{2, "items", SK__PB_MSG, R|K, 438}, /* CSINode */
};
static const sk__pb_field f441[] = { /* k8s.io.api.storage.v1.CSINodeSpec */
	{1, "drivers", SK__PB_MSG, R|K, 439}, /* CSINodeDriver */
};
static const sk__pb_field f442[] = { /* k8s.io.api.storage.v1.CSIStorageCapacity */
	{1, "metadata", SK__PB_MSG, 0, 484}, /* ObjectMeta */
	{2, "nodeTopology", SK__PB_MSG, K, 477}, /* LabelSelector */
	{3, "storageClassName", SK__PB_STRING, K, -1},
	{4, "capacity", SK__PB_MSG, K, 456}, /* Quantity */
	{5, "maximumVolumeSize", SK__PB_MSG, K, 456}, /* Quantity */
};
static const sk__pb_field f443[] = { /* k8s.io.api.storage.v1.CSIStorageCapacityList */
	{1, "metadata", SK__PB_MSG, 0, 480}, /* ListMeta */
	{2, "items", SK__PB_MSG, R|K, 442}, /* CSIStorageCapacity */
};
static const sk__pb_field f444[] = { /* k8s.io.api.storage.v1.StorageClass */
	{1, "metadata", SK__PB_MSG, 0, 484}, /* ObjectMeta */
	{2, "provisioner", SK__PB_STRING, K, -1},
	{3, "parameters", SK__PB_STRING, M, -1},
	{4, "reclaimPolicy", SK__PB_STRING, K, -1},
	{5, "mountOptions", SK__PB_STRING, R, -1},
	{6, "allowVolumeExpansion", SK__PB_BOOL, K, -1},
	{7, "volumeBindingMode", SK__PB_STRING, K, -1},
	{8, "allowedTopologies", SK__PB_MSG, R, 350}, /* TopologySelectorTerm */
};
static const sk__pb_field f445[] = { /* k8s.io.api.storage.v1.StorageClassList */
	{1, "metadata", SK__PB_MSG, 0, 480}, /* ListMeta */
	{2, "items", SK__PB_MSG, R|K, 444}, /* StorageClass */
};
static const sk__pb_field f446[] = { /* k8s.io.api.storage.v1.TokenRequest */
	{1, "audience", SK__PB_STRING, K, -1},
	{2, "expirationSeconds", SK__PB_INT64, K, -1},
};
static const sk__pb_field f447[] = { /* k8s.io.api.storage.v1.VolumeAttachment */
	{1, "metadata", SK__PB_MSG, 0, 484}, /* ObjectMeta */
	{2, "spec", SK__PB_MSG, K, 450}, /* VolumeAttachmentSpec */
	{3, "status", SK__PB_MSG, 0, 451}, /* VolumeAttachmentStatus */
};
static const sk__pb_field f448[] = { /* k8s.io.api.storage.v1.VolumeAttachmentList */
	{1, "metadata", SK__PB_MSG, 0, 480}, /* ListMeta */
	{2, "items", SK__PB_MSG, R|K, 447}, /* VolumeAttachment */
};
static const sk__pb_field f449[] = { /* k8s.io.api.storage.v1.VolumeAttachmentSource */
	{1, "persistentVolumeName", SK__PB_STRING, K, -1},
	{2, "inlineVolumeSpec", SK__PB_MSG, K, 259}, /* PersistentVolumeSpec */
};
static const sk__pb_field f450[] = { /* k8s.io.api.storage.v1.VolumeAttachmentSpec */
	{1, "attacher", SK__PB_STRING, K, -1},
	{2, "source", SK__PB_MSG, K, 449}, /* VolumeAttachmentSource */
	{3, "nodeName", SK__PB_STRING, K, -1},
};
static const sk__pb_field f451[] = { /* k8s.io.api.storage.v1.VolumeAttachmentStatus */
	{1, "attached", SK__PB_BOOL, K, -1},
	{2, "attachmentMetadata", SK__PB_STRING, M, -1},
	{3, "attachError", SK__PB_MSG, K, 454}, /* VolumeError */
	{4, "detachError", SK__PB_MSG, K, 454}, /* VolumeError */
};
static const sk__pb_field f452[] = { /* k8s.io.api.storage.v1.VolumeAttributesClass */
	{1, "metadata", SK__PB_MSG, 0, 484}, /* ObjectMeta */
	{2, "driverName", SK__PB_STRING, K, -1},
	{3, "parameters", SK__PB_STRING, M, -1},
};
static const sk__pb_field f453[] = { /* k8s.io.api.storage.v1.VolumeAttributesClassList */
	{1, "metadata", SK__PB_MSG, 0, 480}, /* ListMeta */
	{2, "items", SK__PB_MSG, R|K, 452}, /* VolumeAttributesClass */
};
static const sk__pb_field f454[] = { /* k8s.io.api.storage.v1.VolumeError */
	{1, "time", SK__PB_MSG, 0, 497}, /* Time */
	{2, "message", SK__PB_STRING, 0, -1},
	{3, "errorCode", SK__PB_INT32, K, -1},
};
static const sk__pb_field f455[] = { /* k8s.io.api.storage.v1.VolumeNodeResources */
	{1, "count", SK__PB_INT32, K, -1},
};
static const sk__pb_field f456[] = { /* k8s.io.apimachinery.pkg.api.resource.Quantity */
	{1, "string", SK__PB_STRING, 0, -1},
};
static const sk__pb_field f457[] = { /* k8s.io.apimachinery.pkg.api.resource.QuantityValue */
	{1, "string", SK__PB_STRING, 0, -1},
};
static const sk__pb_field f458[] = { /* k8s.io.apimachinery.pkg.apis.meta.v1.APIGroup */
	{1, "name", SK__PB_STRING, K, -1},
	{2, "versions", SK__PB_MSG, R|K, 474}, /* GroupVersionForDiscovery */
	{3, "preferredVersion", SK__PB_MSG, 0, 474}, /* GroupVersionForDiscovery */
	{4, "serverAddressByClientCIDRs", SK__PB_MSG, R, 492}, /* ServerAddressByClientCIDR */
};
static const sk__pb_field f459[] = { /* k8s.io.apimachinery.pkg.apis.meta.v1.APIGroupList */
	{1, "groups", SK__PB_MSG, R|K, 458}, /* APIGroup */
};
static const sk__pb_field f460[] = { /* k8s.io.apimachinery.pkg.apis.meta.v1.APIResource */
	{1, "name", SK__PB_STRING, K, -1},
	{2, "namespaced", SK__PB_BOOL, K, -1},
	{3, "kind", SK__PB_STRING, K, -1},
	{4, "verbs", SK__PB_MSG, K, 501}, /* Verbs */
	{5, "shortNames", SK__PB_STRING, R, -1},
	{6, "singularName", SK__PB_STRING, K, -1},
	{7, "categories", SK__PB_STRING, R, -1},
	{8, "group", SK__PB_STRING, 0, -1},
	{9, "version", SK__PB_STRING, 0, -1},
	{10, "storageVersionHash", SK__PB_STRING, 0, -1},
};
static const sk__pb_field f461[] = { /* k8s.io.apimachinery.pkg.apis.meta.v1.APIResourceList */
	{1, "groupVersion", SK__PB_STRING, K, -1},
	{2, "resources", SK__PB_MSG, R|K, 460}, /* APIResource */
};
static const sk__pb_field f462[] = { /* k8s.io.apimachinery.pkg.apis.meta.v1.APIVersions */
	{1, "versions", SK__PB_STRING, R|K, -1},
	{2, "serverAddressByClientCIDRs", SK__PB_MSG, R|K, 492}, /* ServerAddressByClientCIDR */
};
static const sk__pb_field f463[] = { /* k8s.io.apimachinery.pkg.apis.meta.v1.ApplyOptions */
	{1, "dryRun", SK__PB_STRING, R, -1},
	{2, "force", SK__PB_BOOL, K, -1},
	{3, "fieldManager", SK__PB_STRING, K, -1},
};
static const sk__pb_field f464[] = { /* k8s.io.apimachinery.pkg.apis.meta.v1.Condition */
	{1, "type", SK__PB_STRING, K, -1},
	{2, "status", SK__PB_STRING, K, -1},
	{3, "observedGeneration", SK__PB_INT64, 0, -1},
	{4, "lastTransitionTime", SK__PB_MSG, K, 497}, /* Time */
	{5, "reason", SK__PB_STRING, K, -1},
	{6, "message", SK__PB_STRING, K, -1},
};
static const sk__pb_field f465[] = { /* k8s.io.apimachinery.pkg.apis.meta.v1.CreateOptions */
	{1, "dryRun", SK__PB_STRING, R, -1},
	{3, "fieldManager", SK__PB_STRING, 0, -1},
	{4, "fieldValidation", SK__PB_STRING, 0, -1},
};
static const sk__pb_field f466[] = { /* k8s.io.apimachinery.pkg.apis.meta.v1.DeleteOptions */
	{1, "gracePeriodSeconds", SK__PB_INT64, K, -1},
	{2, "preconditions", SK__PB_MSG, K, 490}, /* Preconditions */
	{3, "orphanDependents", SK__PB_BOOL, K, -1},
	{4, "propagationPolicy", SK__PB_STRING, K, -1},
	{5, "dryRun", SK__PB_STRING, R, -1},
	{6, "ignoreStoreReadErrorWithClusterBreakingPotential", SK__PB_BOOL, K, -1},
};
static const sk__pb_field f467[] = { /* k8s.io.apimachinery.pkg.apis.meta.v1.Duration */
	{1, "", SK__PB_INT64, K, -1},
};
static const sk__pb_field f468[] = { /* k8s.io.apimachinery.pkg.apis.meta.v1.FieldSelectorRequirement */
	{1, "key", SK__PB_STRING, K, -1},
	{2, "operator", SK__PB_STRING, K, -1},
	{3, "values", SK__PB_STRING, R, -1},
};
static const sk__pb_field f469[] = { /* k8s.io.apimachinery.pkg.apis.meta.v1.FieldsV1 */
	{1, "-", SK__PB_BYTES, K, -1},
};
static const sk__pb_field f470[] = { /* k8s.io.apimachinery.pkg.apis.meta.v1.GetOptions */
	{1, "resourceVersion", SK__PB_STRING, 0, -1},
};
static const sk__pb_field f471[] = { /* k8s.io.apimachinery.pkg.apis.meta.v1.GroupKind */
	{1, "group", SK__PB_STRING, K, -1},
	{2, "kind", SK__PB_STRING, K, -1},
};
static const sk__pb_field f472[] = { /* k8s.io.apimachinery.pkg.apis.meta.v1.GroupResource */
	{1, "group", SK__PB_STRING, K, -1},
	{2, "resource", SK__PB_STRING, K, -1},
};
static const sk__pb_field f473[] = { /* k8s.io.apimachinery.pkg.apis.meta.v1.GroupVersion */
	{1, "group", SK__PB_STRING, K, -1},
	{2, "version", SK__PB_STRING, K, -1},
};
static const sk__pb_field f474[] = { /* k8s.io.apimachinery.pkg.apis.meta.v1.GroupVersionForDiscovery */
	{1, "groupVersion", SK__PB_STRING, K, -1},
	{2, "version", SK__PB_STRING, K, -1},
};
static const sk__pb_field f475[] = { /* k8s.io.apimachinery.pkg.apis.meta.v1.GroupVersionKind */
	{1, "group", SK__PB_STRING, K, -1},
	{2, "version", SK__PB_STRING, K, -1},
	{3, "kind", SK__PB_STRING, K, -1},
};
static const sk__pb_field f476[] = { /* k8s.io.apimachinery.pkg.apis.meta.v1.GroupVersionResource */
	{1, "group", SK__PB_STRING, K, -1},
	{2, "version", SK__PB_STRING, K, -1},
	{3, "resource", SK__PB_STRING, K, -1},
};
static const sk__pb_field f477[] = { /* k8s.io.apimachinery.pkg.apis.meta.v1.LabelSelector */
	{1, "matchLabels", SK__PB_STRING, M, -1},
	{2, "matchExpressions", SK__PB_MSG, R, 478}, /* LabelSelectorRequirement */
};
static const sk__pb_field f478[] = { /* k8s.io.apimachinery.pkg.apis.meta.v1.LabelSelectorRequirement */
	{1, "key", SK__PB_STRING, K, -1},
	{2, "operator", SK__PB_STRING, K, -1},
	{3, "values", SK__PB_STRING, R, -1},
};
static const sk__pb_field f479[] = { /* k8s.io.apimachinery.pkg.apis.meta.v1.List */
	{1, "metadata", SK__PB_MSG, 0, 480}, /* ListMeta */
	{2, "items", SK__PB_MSG, R|K, 503}, /* RawExtension */
};
static const sk__pb_field f480[] = { /* k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta */
	{1, "selfLink", SK__PB_STRING, 0, -1},
	{2, "resourceVersion", SK__PB_STRING, 0, -1},
	{3, "continue", SK__PB_STRING, 0, -1},
	{4, "remainingItemCount", SK__PB_INT64, K, -1},
};
static const sk__pb_field f481[] = { /* k8s.io.apimachinery.pkg.apis.meta.v1.ListOptions */
	{1, "labelSelector", SK__PB_STRING, 0, -1},
	{2, "fieldSelector", SK__PB_STRING, 0, -1},
	{3, "watch", SK__PB_BOOL, 0, -1},
	{4, "resourceVersion", SK__PB_STRING, 0, -1},
	{5, "timeoutSeconds", SK__PB_INT64, K, -1},
	{7, "limit", SK__PB_INT64, 0, -1},
	{8, "continue", SK__PB_STRING, 0, -1},
	{9, "allowWatchBookmarks", SK__PB_BOOL, 0, -1},
	{10, "resourceVersionMatch", SK__PB_STRING, 0, -1},
	{11, "sendInitialEvents", SK__PB_BOOL, K, -1},
};
static const sk__pb_field f482[] = { /* k8s.io.apimachinery.pkg.apis.meta.v1.ManagedFieldsEntry */
	{1, "manager", SK__PB_STRING, 0, -1},
	{2, "operation", SK__PB_STRING, 0, -1},
	{3, "apiVersion", SK__PB_STRING, 0, -1},
	{4, "time", SK__PB_MSG, K, 497}, /* Time */
	{6, "fieldsType", SK__PB_STRING, 0, -1},
	{7, "fieldsV1", SK__PB_MSG, K, 469}, /* FieldsV1 */
	{8, "subresource", SK__PB_STRING, 0, -1},
};
static const sk__pb_field f483[] = { /* k8s.io.apimachinery.pkg.apis.meta.v1.MicroTime */
	{1, "seconds", SK__PB_INT64, 0, -1},
	{2, "nanos", SK__PB_INT32, 0, -1},
};
static const sk__pb_field f484[] = { /* k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta */
	{1, "name", SK__PB_STRING, 0, -1},
	{2, "generateName", SK__PB_STRING, 0, -1},
	{3, "namespace", SK__PB_STRING, 0, -1},
	{4, "selfLink", SK__PB_STRING, 0, -1},
	{5, "uid", SK__PB_STRING, 0, -1},
	{6, "resourceVersion", SK__PB_STRING, 0, -1},
	{7, "generation", SK__PB_INT64, 0, -1},
	{8, "creationTimestamp", SK__PB_MSG, 0, 497}, /* Time */
	{9, "deletionTimestamp", SK__PB_MSG, K, 497}, /* Time */
	{10, "deletionGracePeriodSeconds", SK__PB_INT64, K, -1},
	{11, "labels", SK__PB_STRING, M, -1},
	{12, "annotations", SK__PB_STRING, M, -1},
	{13, "ownerReferences", SK__PB_MSG, R, 485}, /* OwnerReference */
	{14, "finalizers", SK__PB_STRING, R, -1},
	{17, "managedFields", SK__PB_MSG, R, 482}, /* ManagedFieldsEntry */
};
static const sk__pb_field f485[] = { /* k8s.io.apimachinery.pkg.apis.meta.v1.OwnerReference */
	{1, "kind", SK__PB_STRING, K, -1},
	{3, "name", SK__PB_STRING, K, -1},
	{4, "uid", SK__PB_STRING, K, -1},
	{5, "apiVersion", SK__PB_STRING, K, -1},
	{6, "controller", SK__PB_BOOL, K, -1},
	{7, "blockOwnerDeletion", SK__PB_BOOL, K, -1},
};
static const sk__pb_field f486[] = { /* k8s.io.apimachinery.pkg.apis.meta.v1.PartialObjectMetadata */
	{1, "metadata", SK__PB_MSG, 0, 484}, /* ObjectMeta */
};
static const sk__pb_field f487[] = { /* k8s.io.apimachinery.pkg.apis.meta.v1.PartialObjectMetadataList */
	{1, "metadata", SK__PB_MSG, 0, 480}, /* ListMeta */
	{2, "items", SK__PB_MSG, R|K, 486}, /* PartialObjectMetadata */
};
static const sk__pb_field f489[] = { /* k8s.io.apimachinery.pkg.apis.meta.v1.PatchOptions */
	{1, "dryRun", SK__PB_STRING, R, -1},
	{2, "force", SK__PB_BOOL, K, -1},
	{3, "fieldManager", SK__PB_STRING, 0, -1},
	{4, "fieldValidation", SK__PB_STRING, 0, -1},
};
static const sk__pb_field f490[] = { /* k8s.io.apimachinery.pkg.apis.meta.v1.Preconditions */
	{1, "uid", SK__PB_STRING, K, -1},
	{2, "resourceVersion", SK__PB_STRING, K, -1},
};
static const sk__pb_field f491[] = { /* k8s.io.apimachinery.pkg.apis.meta.v1.RootPaths */
	{1, "paths", SK__PB_STRING, R|K, -1},
};
static const sk__pb_field f492[] = { /* k8s.io.apimachinery.pkg.apis.meta.v1.ServerAddressByClientCIDR */
	{1, "clientCIDR", SK__PB_STRING, K, -1},
	{2, "serverAddress", SK__PB_STRING, K, -1},
};
static const sk__pb_field f493[] = { /* k8s.io.apimachinery.pkg.apis.meta.v1.Status */
	{1, "metadata", SK__PB_MSG, 0, 480}, /* ListMeta */
	{2, "status", SK__PB_STRING, 0, -1},
	{3, "message", SK__PB_STRING, 0, -1},
	{4, "reason", SK__PB_STRING, 0, -1},
	{5, "details", SK__PB_MSG, K, 495}, /* StatusDetails */
	{6, "code", SK__PB_INT32, 0, -1},
};
static const sk__pb_field f494[] = { /* k8s.io.apimachinery.pkg.apis.meta.v1.StatusCause */
	{1, "reason", SK__PB_STRING, 0, -1},
	{2, "message", SK__PB_STRING, 0, -1},
	{3, "field", SK__PB_STRING, 0, -1},
};
static const sk__pb_field f495[] = { /* k8s.io.apimachinery.pkg.apis.meta.v1.StatusDetails */
	{1, "name", SK__PB_STRING, 0, -1},
	{2, "group", SK__PB_STRING, 0, -1},
	{3, "kind", SK__PB_STRING, 0, -1},
	{4, "causes", SK__PB_MSG, R, 494}, /* StatusCause */
	{5, "retryAfterSeconds", SK__PB_INT32, 0, -1},
	{6, "uid", SK__PB_STRING, 0, -1},
};
static const sk__pb_field f496[] = { /* k8s.io.apimachinery.pkg.apis.meta.v1.TableOptions */
	{1, "includeObject", SK__PB_STRING, 0, -1},
};
static const sk__pb_field f497[] = { /* k8s.io.apimachinery.pkg.apis.meta.v1.Time */
	{1, "seconds", SK__PB_INT64, 0, -1},
	{2, "nanos", SK__PB_INT32, 0, -1},
};
static const sk__pb_field f498[] = { /* k8s.io.apimachinery.pkg.apis.meta.v1.Timestamp */
	{1, "seconds", SK__PB_INT64, K, -1},
	{2, "nanos", SK__PB_INT32, K, -1},
};
static const sk__pb_field f499[] = { /* k8s.io.apimachinery.pkg.apis.meta.v1.TypeMeta */
	{1, "kind", SK__PB_STRING, 0, -1},
	{2, "apiVersion", SK__PB_STRING, 0, -1},
};
static const sk__pb_field f500[] = { /* k8s.io.apimachinery.pkg.apis.meta.v1.UpdateOptions */
	{1, "dryRun", SK__PB_STRING, R, -1},
	{2, "fieldManager", SK__PB_STRING, 0, -1},
	{3, "fieldValidation", SK__PB_STRING, 0, -1},
};
static const sk__pb_field f501[] = { /* k8s.io.apimachinery.pkg.apis.meta.v1.Verbs */
	{1, "items", SK__PB_STRING, R, -1},
};
static const sk__pb_field f502[] = { /* k8s.io.apimachinery.pkg.apis.meta.v1.WatchEvent */
	{1, "type", SK__PB_STRING, K, -1},
	{2, "object", SK__PB_MSG, K, 503}, /* RawExtension */
};
static const sk__pb_field f503[] = { /* k8s.io.apimachinery.pkg.runtime.RawExtension */
	{1, "-", SK__PB_BYTES, K, -1},
};
static const sk__pb_field f504[] = { /* k8s.io.apimachinery.pkg.runtime.TypeMeta */
	{1, "apiVersion", SK__PB_STRING, 0, -1},
	{2, "kind", SK__PB_STRING, 0, -1},
};
static const sk__pb_field f505[] = { /* k8s.io.apimachinery.pkg.runtime.Unknown */
	{1, "", SK__PB_MSG, K|I, 504}, /* TypeMeta */
	{2, "-", SK__PB_BYTES, K, -1},
	{3, "", SK__PB_STRING, K, -1},
	{4, "", SK__PB_STRING, K, -1},
};
static const sk__pb_field f506[] = { /* k8s.io.apimachinery.pkg.util.intstr.IntOrString */
	{1, "", SK__PB_INT64, K, -1},
	{2, "", SK__PB_INT32, K, -1},
	{3, "", SK__PB_STRING, K, -1},
};

const sk__pb_message sk__pb_messages[] = {
	{"k8s.io.api.apps.v1.ControllerRevision", SK__PB_PLAIN, f0, 3}, /* 0 */
	{"k8s.io.api.apps.v1.ControllerRevisionList", SK__PB_PLAIN, f1, 2}, /* 1 */
	{"k8s.io.api.apps.v1.DaemonSet", SK__PB_PLAIN, f2, 3}, /* 2 */
	{"k8s.io.api.apps.v1.DaemonSetCondition", SK__PB_PLAIN, f3, 5}, /* 3 */
	{"k8s.io.api.apps.v1.DaemonSetList", SK__PB_PLAIN, f4, 2}, /* 4 */
	{"k8s.io.api.apps.v1.DaemonSetSpec", SK__PB_PLAIN, f5, 5}, /* 5 */
	{"k8s.io.api.apps.v1.DaemonSetStatus", SK__PB_PLAIN, f6, 10}, /* 6 */
	{"k8s.io.api.apps.v1.DaemonSetUpdateStrategy", SK__PB_PLAIN, f7, 2}, /* 7 */
	{"k8s.io.api.apps.v1.Deployment", SK__PB_PLAIN, f8, 3}, /* 8 */
	{"k8s.io.api.apps.v1.DeploymentCondition", SK__PB_PLAIN, f9, 6}, /* 9 */
	{"k8s.io.api.apps.v1.DeploymentList", SK__PB_PLAIN, f10, 2}, /* 10 */
	{"k8s.io.api.apps.v1.DeploymentSpec", SK__PB_PLAIN, f11, 8}, /* 11 */
	{"k8s.io.api.apps.v1.DeploymentStatus", SK__PB_PLAIN, f12, 9}, /* 12 */
	{"k8s.io.api.apps.v1.DeploymentStrategy", SK__PB_PLAIN, f13, 2}, /* 13 */
	{"k8s.io.api.apps.v1.ReplicaSet", SK__PB_PLAIN, f14, 3}, /* 14 */
	{"k8s.io.api.apps.v1.ReplicaSetCondition", SK__PB_PLAIN, f15, 5}, /* 15 */
	{"k8s.io.api.apps.v1.ReplicaSetList", SK__PB_PLAIN, f16, 2}, /* 16 */
	{"k8s.io.api.apps.v1.ReplicaSetSpec", SK__PB_PLAIN, f17, 4}, /* 17 */
	{"k8s.io.api.apps.v1.ReplicaSetStatus", SK__PB_PLAIN, f18, 7}, /* 18 */
	{"k8s.io.api.apps.v1.RollingUpdateDaemonSet", SK__PB_PLAIN, f19, 2}, /* 19 */
	{"k8s.io.api.apps.v1.RollingUpdateDeployment", SK__PB_PLAIN, f20, 2}, /* 20 */
	{"k8s.io.api.apps.v1.RollingUpdateStatefulSetStrategy", SK__PB_PLAIN, f21, 2}, /* 21 */
	{"k8s.io.api.apps.v1.StatefulSet", SK__PB_PLAIN, f22, 3}, /* 22 */
	{"k8s.io.api.apps.v1.StatefulSetCondition", SK__PB_PLAIN, f23, 5}, /* 23 */
	{"k8s.io.api.apps.v1.StatefulSetList", SK__PB_PLAIN, f24, 2}, /* 24 */
	{"k8s.io.api.apps.v1.StatefulSetOrdinals", SK__PB_PLAIN, f25, 1}, /* 25 */
	{"k8s.io.api.apps.v1.StatefulSetPersistentVolumeClaimRetentionPolicy", SK__PB_PLAIN, f26, 2}, /* 26 */
	{"k8s.io.api.apps.v1.StatefulSetSpec", SK__PB_PLAIN, f27, 11}, /* 27 */
	{"k8s.io.api.apps.v1.StatefulSetStatus", SK__PB_PLAIN, f28, 10}, /* 28 */
	{"k8s.io.api.apps.v1.StatefulSetUpdateStrategy", SK__PB_PLAIN, f29, 2}, /* 29 */
	{"k8s.io.api.authentication.v1.BoundObjectReference", SK__PB_PLAIN, f30, 4}, /* 30 */
	{"k8s.io.api.authentication.v1.ExtraValue", SK__PB_ITEMS, f31, 1}, /* 31 */
	{"k8s.io.api.authentication.v1.SelfSubjectReview", SK__PB_PLAIN, f32, 2}, /* 32 */
	{"k8s.io.api.authentication.v1.SelfSubjectReviewStatus", SK__PB_PLAIN, f33, 1}, /* 33 */
	{"k8s.io.api.authentication.v1.TokenRequest", SK__PB_PLAIN, f34, 3}, /* 34 */
	{"k8s.io.api.authentication.v1.TokenRequestSpec", SK__PB_PLAIN, f35, 3}, /* 35 */
	{"k8s.io.api.authentication.v1.TokenRequestStatus", SK__PB_PLAIN, f36, 2}, /* 36 */
	{"k8s.io.api.authentication.v1.TokenReview", SK__PB_PLAIN, f37, 3}, /* 37 */
	{"k8s.io.api.authentication.v1.TokenReviewSpec", SK__PB_PLAIN, f38, 2}, /* 38 */
	{"k8s.io.api.authentication.v1.TokenReviewStatus", SK__PB_PLAIN, f39, 4}, /* 39 */
	{"k8s.io.api.authentication.v1.UserInfo", SK__PB_PLAIN, f40, 4}, /* 40 */
	{"k8s.io.api.authorization.v1.ExtraValue", SK__PB_ITEMS, f41, 1}, /* 41 */
	{"k8s.io.api.authorization.v1.FieldSelectorAttributes", SK__PB_PLAIN, f42, 2}, /* 42 */
	{"k8s.io.api.authorization.v1.LabelSelectorAttributes", SK__PB_PLAIN, f43, 2}, /* 43 */
	{"k8s.io.api.authorization.v1.LocalSubjectAccessReview", SK__PB_PLAIN, f44, 3}, /* 44 */
	{"k8s.io.api.authorization.v1.NonResourceAttributes", SK__PB_PLAIN, f45, 2}, /* 45 */
	{"k8s.io.api.authorization.v1.NonResourceRule", SK__PB_PLAIN, f46, 2}, /* 46 */
	{"k8s.io.api.authorization.v1.ResourceAttributes", SK__PB_PLAIN, f47, 9}, /* 47 */
	{"k8s.io.api.authorization.v1.ResourceRule", SK__PB_PLAIN, f48, 4}, /* 48 */
	{"k8s.io.api.authorization.v1.SelfSubjectAccessReview", SK__PB_PLAIN, f49, 3}, /* 49 */
	{"k8s.io.api.authorization.v1.SelfSubjectAccessReviewSpec", SK__PB_PLAIN, f50, 2}, /* 50 */
	{"k8s.io.api.authorization.v1.SelfSubjectRulesReview", SK__PB_PLAIN, f51, 3}, /* 51 */
	{"k8s.io.api.authorization.v1.SelfSubjectRulesReviewSpec", SK__PB_PLAIN, f52, 1}, /* 52 */
	{"k8s.io.api.authorization.v1.SubjectAccessReview", SK__PB_PLAIN, f53, 3}, /* 53 */
	{"k8s.io.api.authorization.v1.SubjectAccessReviewSpec", SK__PB_PLAIN, f54, 6}, /* 54 */
	{"k8s.io.api.authorization.v1.SubjectAccessReviewStatus", SK__PB_PLAIN, f55, 4}, /* 55 */
	{"k8s.io.api.authorization.v1.SubjectRulesReviewStatus", SK__PB_PLAIN, f56, 4}, /* 56 */
	{"k8s.io.api.autoscaling.v1.ContainerResourceMetricSource", SK__PB_PLAIN, f57, 4}, /* 57 */
	{"k8s.io.api.autoscaling.v1.ContainerResourceMetricStatus", SK__PB_PLAIN, f58, 4}, /* 58 */
	{"k8s.io.api.autoscaling.v1.CrossVersionObjectReference", SK__PB_PLAIN, f59, 3}, /* 59 */
	{"k8s.io.api.autoscaling.v1.ExternalMetricSource", SK__PB_PLAIN, f60, 4}, /* 60 */
	{"k8s.io.api.autoscaling.v1.ExternalMetricStatus", SK__PB_PLAIN, f61, 4}, /* 61 */
	{"k8s.io.api.autoscaling.v1.HorizontalPodAutoscaler", SK__PB_PLAIN, f62, 3}, /* 62 */
	{"k8s.io.api.autoscaling.v1.HorizontalPodAutoscalerCondition", SK__PB_PLAIN, f63, 5}, /* 63 */
	{"k8s.io.api.autoscaling.v1.HorizontalPodAutoscalerList", SK__PB_PLAIN, f64, 2}, /* 64 */
	{"k8s.io.api.autoscaling.v1.HorizontalPodAutoscalerSpec", SK__PB_PLAIN, f65, 4}, /* 65 */
	{"k8s.io.api.autoscaling.v1.HorizontalPodAutoscalerStatus", SK__PB_PLAIN, f66, 5}, /* 66 */
	{"k8s.io.api.autoscaling.v1.MetricSpec", SK__PB_PLAIN, f67, 6}, /* 67 */
	{"k8s.io.api.autoscaling.v1.MetricStatus", SK__PB_PLAIN, f68, 6}, /* 68 */
	{"k8s.io.api.autoscaling.v1.ObjectMetricSource", SK__PB_PLAIN, f69, 5}, /* 69 */
	{"k8s.io.api.autoscaling.v1.ObjectMetricStatus", SK__PB_PLAIN, f70, 5}, /* 70 */
	{"k8s.io.api.autoscaling.v1.PodsMetricSource", SK__PB_PLAIN, f71, 3}, /* 71 */
	{"k8s.io.api.autoscaling.v1.PodsMetricStatus", SK__PB_PLAIN, f72, 3}, /* 72 */
	{"k8s.io.api.autoscaling.v1.ResourceMetricSource", SK__PB_PLAIN, f73, 3}, /* 73 */
	{"k8s.io.api.autoscaling.v1.ResourceMetricStatus", SK__PB_PLAIN, f74, 3}, /* 74 */
	{"k8s.io.api.autoscaling.v1.Scale", SK__PB_PLAIN, f75, 3}, /* 75 */
	{"k8s.io.api.autoscaling.v1.ScaleSpec", SK__PB_PLAIN, f76, 1}, /* 76 */
	{"k8s.io.api.autoscaling.v1.ScaleStatus", SK__PB_PLAIN, f77, 2}, /* 77 */
	{"k8s.io.api.autoscaling.v2.ContainerResourceMetricSource", SK__PB_PLAIN, f78, 3}, /* 78 */
	{"k8s.io.api.autoscaling.v2.ContainerResourceMetricStatus", SK__PB_PLAIN, f79, 3}, /* 79 */
	{"k8s.io.api.autoscaling.v2.CrossVersionObjectReference", SK__PB_PLAIN, f80, 3}, /* 80 */
	{"k8s.io.api.autoscaling.v2.ExternalMetricSource", SK__PB_PLAIN, f81, 2}, /* 81 */
	{"k8s.io.api.autoscaling.v2.ExternalMetricStatus", SK__PB_PLAIN, f82, 2}, /* 82 */
	{"k8s.io.api.autoscaling.v2.HPAScalingPolicy", SK__PB_PLAIN, f83, 3}, /* 83 */
	{"k8s.io.api.autoscaling.v2.HPAScalingRules", SK__PB_PLAIN, f84, 4}, /* 84 */
	{"k8s.io.api.autoscaling.v2.HorizontalPodAutoscaler", SK__PB_PLAIN, f85, 3}, /* 85 */
	{"k8s.io.api.autoscaling.v2.HorizontalPodAutoscalerBehavior", SK__PB_PLAIN, f86, 2}, /* 86 */
	{"k8s.io.api.autoscaling.v2.HorizontalPodAutoscalerCondition", SK__PB_PLAIN, f87, 5}, /* 87 */
	{"k8s.io.api.autoscaling.v2.HorizontalPodAutoscalerList", SK__PB_PLAIN, f88, 2}, /* 88 */
	{"k8s.io.api.autoscaling.v2.HorizontalPodAutoscalerSpec", SK__PB_PLAIN, f89, 5}, /* 89 */
	{"k8s.io.api.autoscaling.v2.HorizontalPodAutoscalerStatus", SK__PB_PLAIN, f90, 6}, /* 90 */
	{"k8s.io.api.autoscaling.v2.MetricIdentifier", SK__PB_PLAIN, f91, 2}, /* 91 */
	{"k8s.io.api.autoscaling.v2.MetricSpec", SK__PB_PLAIN, f92, 6}, /* 92 */
	{"k8s.io.api.autoscaling.v2.MetricStatus", SK__PB_PLAIN, f93, 6}, /* 93 */
	{"k8s.io.api.autoscaling.v2.MetricTarget", SK__PB_PLAIN, f94, 4}, /* 94 */
	{"k8s.io.api.autoscaling.v2.MetricValueStatus", SK__PB_PLAIN, f95, 3}, /* 95 */
	{"k8s.io.api.autoscaling.v2.ObjectMetricSource", SK__PB_PLAIN, f96, 3}, /* 96 */
	{"k8s.io.api.autoscaling.v2.ObjectMetricStatus", SK__PB_PLAIN, f97, 3}, /* 97 */
	{"k8s.io.api.autoscaling.v2.PodsMetricSource", SK__PB_PLAIN, f98, 2}, /* 98 */
	{"k8s.io.api.autoscaling.v2.PodsMetricStatus", SK__PB_PLAIN, f99, 2}, /* 99 */
	{"k8s.io.api.autoscaling.v2.ResourceMetricSource", SK__PB_PLAIN, f100, 2}, /* 100 */
	{"k8s.io.api.autoscaling.v2.ResourceMetricStatus", SK__PB_PLAIN, f101, 2}, /* 101 */
	{"k8s.io.api.batch.v1.CronJob", SK__PB_PLAIN, f102, 3}, /* 102 */
	{"k8s.io.api.batch.v1.CronJobList", SK__PB_PLAIN, f103, 2}, /* 103 */
	{"k8s.io.api.batch.v1.CronJobSpec", SK__PB_PLAIN, f104, 8}, /* 104 */
	{"k8s.io.api.batch.v1.CronJobStatus", SK__PB_PLAIN, f105, 3}, /* 105 */
	{"k8s.io.api.batch.v1.Job", SK__PB_PLAIN, f106, 3}, /* 106 */
	{"k8s.io.api.batch.v1.JobCondition", SK__PB_PLAIN, f107, 6}, /* 107 */
	{"k8s.io.api.batch.v1.JobList", SK__PB_PLAIN, f108, 2}, /* 108 */
	{"k8s.io.api.batch.v1.JobSpec", SK__PB_PLAIN, f109, 16}, /* 109 */
	{"k8s.io.api.batch.v1.JobStatus", SK__PB_PLAIN, f110, 11}, /* 110 */
	{"k8s.io.api.batch.v1.JobTemplateSpec", SK__PB_PLAIN, f111, 2}, /* 111 */
	{"k8s.io.api.batch.v1.PodFailurePolicy", SK__PB_PLAIN, f112, 1}, /* 112 */
	{"k8s.io.api.batch.v1.PodFailurePolicyOnExitCodesRequirement", SK__PB_PLAIN, f113, 3}, /* 113 */
	{"k8s.io.api.batch.v1.PodFailurePolicyOnPodConditionsPattern", SK__PB_PLAIN, f114, 2}, /* 114 */
	{"k8s.io.api.batch.v1.PodFailurePolicyRule", SK__PB_PLAIN, f115, 3}, /* 115 */
	{"k8s.io.api.batch.v1.SuccessPolicy", SK__PB_PLAIN, f116, 1}, /* 116 */
	{"k8s.io.api.batch.v1.SuccessPolicyRule", SK__PB_PLAIN, f117, 2}, /* 117 */
	{"k8s.io.api.batch.v1.UncountedTerminatedPods", SK__PB_PLAIN, f118, 2}, /* 118 */
	{"k8s.io.api.certificates.v1.CertificateSigningRequest", SK__PB_PLAIN, f119, 3}, /* 119 */
	{"k8s.io.api.certificates.v1.CertificateSigningRequestCondition", SK__PB_PLAIN, f120, 6}, /* 120 */
	{"k8s.io.api.certificates.v1.CertificateSigningRequestList", SK__PB_PLAIN, f121, 2}, /* 121 */
	{"k8s.io.api.certificates.v1.CertificateSigningRequestSpec", SK__PB_PLAIN, f122, 8}, /* 122 */
	{"k8s.io.api.certificates.v1.CertificateSigningRequestStatus", SK__PB_PLAIN, f123, 2}, /* 123 */
	{"k8s.io.api.certificates.v1.ExtraValue", SK__PB_ITEMS, f124, 1}, /* 124 */
	{"k8s.io.api.coordination.v1.Lease", SK__PB_PLAIN, f125, 2}, /* 125 */
	{"k8s.io.api.coordination.v1.LeaseList", SK__PB_PLAIN, f126, 2}, /* 126 */
	{"k8s.io.api.coordination.v1.LeaseSpec", SK__PB_PLAIN, f127, 7}, /* 127 */
	{"k8s.io.api.core.v1.AWSElasticBlockStoreVolumeSource", SK__PB_PLAIN, f128, 4}, /* 128 */
	{"k8s.io.api.core.v1.Affinity", SK__PB_PLAIN, f129, 3}, /* 129 */
	{"k8s.io.api.core.v1.AppArmorProfile", SK__PB_PLAIN, f130, 2}, /* 130 */
	{"k8s.io.api.core.v1.AttachedVolume", SK__PB_PLAIN, f131, 2}, /* 131 */
	{"k8s.io.api.core.v1.AvoidPods", SK__PB_PLAIN, f132, 1}, /* 132 */
	{"k8s.io.api.core.v1.AzureDiskVolumeSource", SK__PB_PLAIN, f133, 6}, /* 133 */
	{"k8s.io.api.core.v1.AzureFilePersistentVolumeSource", SK__PB_PLAIN, f134, 4}, /* 134 */
	{"k8s.io.api.core.v1.AzureFileVolumeSource", SK__PB_PLAIN, f135, 3}, /* 135 */
	{"k8s.io.api.core.v1.Binding", SK__PB_PLAIN, f136, 2}, /* 136 */
	{"k8s.io.api.core.v1.CSIPersistentVolumeSource", SK__PB_PLAIN, f137, 10}, /* 137 */
	{"k8s.io.api.core.v1.CSIVolumeSource", SK__PB_PLAIN, f138, 5}, /* 138 */
	{"k8s.io.api.core.v1.Capabilities", SK__PB_PLAIN, f139, 2}, /* 139 */
	{"k8s.io.api.core.v1.CephFSPersistentVolumeSource", SK__PB_PLAIN, f140, 6}, /* 140 */
	{"k8s.io.api.core.v1.CephFSVolumeSource", SK__PB_PLAIN, f141, 6}, /* 141 */
	{"k8s.io.api.core.v1.CinderPersistentVolumeSource", SK__PB_PLAIN, f142, 4}, /* 142 */
	{"k8s.io.api.core.v1.CinderVolumeSource", SK__PB_PLAIN, f143, 4}, /* 143 */
	{"k8s.io.api.core.v1.ClientIPConfig", SK__PB_PLAIN, f144, 1}, /* 144 */
	{"k8s.io.api.core.v1.ClusterTrustBundleProjection", SK__PB_PLAIN, f145, 5}, /* 145 */
	{"k8s.io.api.core.v1.ComponentCondition", SK__PB_PLAIN, f146, 4}, /* 146 */
	{"k8s.io.api.core.v1.ComponentStatus", SK__PB_PLAIN, f147, 2}, /* 147 */
	{"k8s.io.api.core.v1.ComponentStatusList", SK__PB_PLAIN, f148, 2}, /* 148 */
	{"k8s.io.api.core.v1.ConfigMap", SK__PB_PLAIN, f149, 4}, /* 149 */
	{"k8s.io.api.core.v1.ConfigMapEnvSource", SK__PB_PLAIN, f150, 2}, /* 150 */
	{"k8s.io.api.core.v1.ConfigMapKeySelector", SK__PB_PLAIN, f151, 3}, /* 151 */
	{"k8s.io.api.core.v1.ConfigMapList", SK__PB_PLAIN, f152, 2}, /* 152 */
	{"k8s.io.api.core.v1.ConfigMapNodeConfigSource", SK__PB_PLAIN, f153, 5}, /* 153 */
	{"k8s.io.api.core.v1.ConfigMapProjection", SK__PB_PLAIN, f154, 3}, /* 154 */
	{"k8s.io.api.core.v1.ConfigMapVolumeSource", SK__PB_PLAIN, f155, 4}, /* 155 */
	{"k8s.io.api.core.v1.Container", SK__PB_PLAIN, f156, 25}, /* 156 */
	{"k8s.io.api.core.v1.ContainerExtendedResourceRequest", SK__PB_PLAIN, f157, 3}, /* 157 */
	{"k8s.io.api.core.v1.ContainerImage", SK__PB_PLAIN, f158, 2}, /* 158 */
	{"k8s.io.api.core.v1.ContainerPort", SK__PB_PLAIN, f159, 5}, /* 159 */
	{"k8s.io.api.core.v1.ContainerResizePolicy", SK__PB_PLAIN, f160, 2}, /* 160 */
	{"k8s.io.api.core.v1.ContainerRestartRule", SK__PB_PLAIN, f161, 2}, /* 161 */
	{"k8s.io.api.core.v1.ContainerRestartRuleOnExitCodes", SK__PB_PLAIN, f162, 2}, /* 162 */
	{"k8s.io.api.core.v1.ContainerState", SK__PB_PLAIN, f163, 3}, /* 163 */
	{"k8s.io.api.core.v1.ContainerStateRunning", SK__PB_PLAIN, f164, 1}, /* 164 */
	{"k8s.io.api.core.v1.ContainerStateTerminated", SK__PB_PLAIN, f165, 7}, /* 165 */
	{"k8s.io.api.core.v1.ContainerStateWaiting", SK__PB_PLAIN, f166, 2}, /* 166 */
	{"k8s.io.api.core.v1.ContainerStatus", SK__PB_PLAIN, f167, 15}, /* 167 */
	{"k8s.io.api.core.v1.ContainerUser", SK__PB_PLAIN, f168, 1}, /* 168 */
	{"k8s.io.api.core.v1.DaemonEndpoint", SK__PB_PLAIN, f169, 1}, /* 169 */
	{"k8s.io.api.core.v1.DownwardAPIProjection", SK__PB_PLAIN, f170, 1}, /* 170 */
	{"k8s.io.api.core.v1.DownwardAPIVolumeFile", SK__PB_PLAIN, f171, 4}, /* 171 */
	{"k8s.io.api.core.v1.DownwardAPIVolumeSource", SK__PB_PLAIN, f172, 2}, /* 172 */
	{"k8s.io.api.core.v1.EmptyDirVolumeSource", SK__PB_PLAIN, f173, 2}, /* 173 */
	{"k8s.io.api.core.v1.EndpointAddress", SK__PB_PLAIN, f174, 4}, /* 174 */
	{"k8s.io.api.core.v1.EndpointPort", SK__PB_PLAIN, f175, 4}, /* 175 */
	{"k8s.io.api.core.v1.EndpointSubset", SK__PB_PLAIN, f176, 3}, /* 176 */
	{"k8s.io.api.core.v1.Endpoints", SK__PB_PLAIN, f177, 2}, /* 177 */
	{"k8s.io.api.core.v1.EndpointsList", SK__PB_PLAIN, f178, 2}, /* 178 */
	{"k8s.io.api.core.v1.EnvFromSource", SK__PB_PLAIN, f179, 3}, /* 179 */
	{"k8s.io.api.core.v1.EnvVar", SK__PB_PLAIN, f180, 3}, /* 180 */
	{"k8s.io.api.core.v1.EnvVarSource", SK__PB_PLAIN, f181, 5}, /* 181 */
	{"k8s.io.api.core.v1.EphemeralContainer", SK__PB_PLAIN, f182, 2}, /* 182 */
	{"k8s.io.api.core.v1.EphemeralContainerCommon", SK__PB_PLAIN, f183, 25}, /* 183 */
	{"k8s.io.api.core.v1.EphemeralVolumeSource", SK__PB_PLAIN, f184, 1}, /* 184 */
	{"k8s.io.api.core.v1.Event", SK__PB_PLAIN, f185, 15}, /* 185 */
	{"k8s.io.api.core.v1.EventList", SK__PB_PLAIN, f186, 2}, /* 186 */
	{"k8s.io.api.core.v1.EventSeries", SK__PB_PLAIN, f187, 2}, /* 187 */
	{"k8s.io.api.core.v1.EventSource", SK__PB_PLAIN, f188, 2}, /* 188 */
	{"k8s.io.api.core.v1.ExecAction", SK__PB_PLAIN, f189, 1}, /* 189 */
	{"k8s.io.api.core.v1.FCVolumeSource", SK__PB_PLAIN, f190, 5}, /* 190 */
	{"k8s.io.api.core.v1.FileKeySelector", SK__PB_PLAIN, f191, 4}, /* 191 */
	{"k8s.io.api.core.v1.FlexPersistentVolumeSource", SK__PB_PLAIN, f192, 5}, /* 192 */
	{"k8s.io.api.core.v1.FlexVolumeSource", SK__PB_PLAIN, f193, 5}, /* 193 */
	{"k8s.io.api.core.v1.FlockerVolumeSource", SK__PB_PLAIN, f194, 2}, /* 194 */
	{"k8s.io.api.core.v1.GCEPersistentDiskVolumeSource", SK__PB_PLAIN, f195, 4}, /* 195 */
	{"k8s.io.api.core.v1.GRPCAction", SK__PB_PLAIN, f196, 2}, /* 196 */
	{"k8s.io.api.core.v1.GitRepoVolumeSource", SK__PB_PLAIN, f197, 3}, /* 197 */
	{"k8s.io.api.core.v1.GlusterfsPersistentVolumeSource", SK__PB_PLAIN, f198, 4}, /* 198 */
	{"k8s.io.api.core.v1.GlusterfsVolumeSource", SK__PB_PLAIN, f199, 3}, /* 199 */
	{"k8s.io.api.core.v1.HTTPGetAction", SK__PB_PLAIN, f200, 5}, /* 200 */
	{"k8s.io.api.core.v1.HTTPHeader", SK__PB_PLAIN, f201, 2}, /* 201 */
	{"k8s.io.api.core.v1.HostAlias", SK__PB_PLAIN, f202, 2}, /* 202 */
	{"k8s.io.api.core.v1.HostIP", SK__PB_PLAIN, f203, 1}, /* 203 */
	{"k8s.io.api.core.v1.HostPathVolumeSource", SK__PB_PLAIN, f204, 2}, /* 204 */
	{"k8s.io.api.core.v1.ISCSIPersistentVolumeSource", SK__PB_PLAIN, f205, 11}, /* 205 */
	{"k8s.io.api.core.v1.ISCSIVolumeSource", SK__PB_PLAIN, f206, 11}, /* 206 */
	{"k8s.io.api.core.v1.ImageVolumeSource", SK__PB_PLAIN, f207, 2}, /* 207 */
	{"k8s.io.api.core.v1.KeyToPath", SK__PB_PLAIN, f208, 3}, /* 208 */
	{"k8s.io.api.core.v1.Lifecycle", SK__PB_PLAIN, f209, 3}, /* 209 */
	{"k8s.io.api.core.v1.LifecycleHandler", SK__PB_PLAIN, f210, 4}, /* 210 */
	{"k8s.io.api.core.v1.LimitRange", SK__PB_PLAIN, f211, 2}, /* 211 */
	{"k8s.io.api.core.v1.LimitRangeItem", SK__PB_PLAIN, f212, 6}, /* 212 */
	{"k8s.io.api.core.v1.LimitRangeList", SK__PB_PLAIN, f213, 2}, /* 213 */
	{"k8s.io.api.core.v1.LimitRangeSpec", SK__PB_PLAIN, f214, 1}, /* 214 */
	{"k8s.io.api.core.v1.LinuxContainerUser", SK__PB_PLAIN, f215, 3}, /* 215 */
	{"k8s.io.api.core.v1.List", SK__PB_PLAIN, f216, 2}, /* 216 */
	{"k8s.io.api.core.v1.LoadBalancerIngress", SK__PB_PLAIN, f217, 4}, /* 217 */
	{"k8s.io.api.core.v1.LoadBalancerStatus", SK__PB_PLAIN, f218, 1}, /* 218 */
	{"k8s.io.api.core.v1.LocalObjectReference", SK__PB_PLAIN, f219, 1}, /* 219 */
	{"k8s.io.api.core.v1.LocalVolumeSource", SK__PB_PLAIN, f220, 2}, /* 220 */
	{"k8s.io.api.core.v1.ModifyVolumeStatus", SK__PB_PLAIN, f221, 2}, /* 221 */
	{"k8s.io.api.core.v1.NFSVolumeSource", SK__PB_PLAIN, f222, 3}, /* 222 */
	{"k8s.io.api.core.v1.Namespace", SK__PB_PLAIN, f223, 3}, /* 223 */
	{"k8s.io.api.core.v1.NamespaceCondition", SK__PB_PLAIN, f224, 5}, /* 224 */
	{"k8s.io.api.core.v1.NamespaceList", SK__PB_PLAIN, f225, 2}, /* 225 */
	{"k8s.io.api.core.v1.NamespaceSpec", SK__PB_PLAIN, f226, 1}, /* 226 */
	{"k8s.io.api.core.v1.NamespaceStatus", SK__PB_PLAIN, f227, 2}, /* 227 */
	{"k8s.io.api.core.v1.Node", SK__PB_PLAIN, f228, 3}, /* 228 */
	{"k8s.io.api.core.v1.NodeAddress", SK__PB_PLAIN, f229, 2}, /* 229 */
	{"k8s.io.api.core.v1.NodeAffinity", SK__PB_PLAIN, f230, 2}, /* 230 */
	{"k8s.io.api.core.v1.NodeCondition", SK__PB_PLAIN, f231, 6}, /* 231 */
	{"k8s.io.api.core.v1.NodeConfigSource", SK__PB_PLAIN, f232, 1}, /* 232 */
	{"k8s.io.api.core.v1.NodeConfigStatus", SK__PB_PLAIN, f233, 4}, /* 233 */
	{"k8s.io.api.core.v1.NodeDaemonEndpoints", SK__PB_PLAIN, f234, 1}, /* 234 */
	{"k8s.io.api.core.v1.NodeFeatures", SK__PB_PLAIN, f235, 1}, /* 235 */
	{"k8s.io.api.core.v1.NodeList", SK__PB_PLAIN, f236, 2}, /* 236 */
	{"k8s.io.api.core.v1.NodeProxyOptions", SK__PB_PLAIN, f237, 1}, /* 237 */
	{"k8s.io.api.core.v1.NodeRuntimeHandler", SK__PB_PLAIN, f238, 2}, /* 238 */
	{"k8s.io.api.core.v1.NodeRuntimeHandlerFeatures", SK__PB_PLAIN, f239, 2}, /* 239 */
	{"k8s.io.api.core.v1.NodeSelector", SK__PB_PLAIN, f240, 1}, /* 240 */
	{"k8s.io.api.core.v1.NodeSelectorRequirement", SK__PB_PLAIN, f241, 3}, /* 241 */
	{"k8s.io.api.core.v1.NodeSelectorTerm", SK__PB_PLAIN, f242, 2}, /* 242 */
	{"k8s.io.api.core.v1.NodeSpec", SK__PB_PLAIN, f243, 7}, /* 243 */
	{"k8s.io.api.core.v1.NodeStatus", SK__PB_PLAIN, f244, 14}, /* 244 */
	{"k8s.io.api.core.v1.NodeSwapStatus", SK__PB_PLAIN, f245, 1}, /* 245 */
	{"k8s.io.api.core.v1.NodeSystemInfo", SK__PB_PLAIN, f246, 11}, /* 246 */
	{"k8s.io.api.core.v1.ObjectFieldSelector", SK__PB_PLAIN, f247, 2}, /* 247 */
	{"k8s.io.api.core.v1.ObjectReference", SK__PB_PLAIN, f248, 7}, /* 248 */
	{"k8s.io.api.core.v1.PersistentVolume", SK__PB_PLAIN, f249, 3}, /* 249 */
	{"k8s.io.api.core.v1.PersistentVolumeClaim", SK__PB_PLAIN, f250, 3}, /* 250 */
	{"k8s.io.api.core.v1.PersistentVolumeClaimCondition", SK__PB_PLAIN, f251, 6}, /* 251 */
	{"k8s.io.api.core.v1.PersistentVolumeClaimList", SK__PB_PLAIN, f252, 2}, /* 252 */
	{"k8s.io.api.core.v1.PersistentVolumeClaimSpec", SK__PB_PLAIN, f253, 9}, /* 253 */
	{"k8s.io.api.core.v1.PersistentVolumeClaimStatus", SK__PB_PLAIN, f254, 8}, /* 254 */
	{"k8s.io.api.core.v1.PersistentVolumeClaimTemplate", SK__PB_PLAIN, f255, 2}, /* 255 */
	{"k8s.io.api.core.v1.PersistentVolumeClaimVolumeSource", SK__PB_PLAIN, f256, 2}, /* 256 */
	{"k8s.io.api.core.v1.PersistentVolumeList", SK__PB_PLAIN, f257, 2}, /* 257 */
	{"k8s.io.api.core.v1.PersistentVolumeSource", SK__PB_PLAIN, f258, 22}, /* 258 */
	{"k8s.io.api.core.v1.PersistentVolumeSpec", SK__PB_PLAIN, f259, 10}, /* 259 */
	{"k8s.io.api.core.v1.PersistentVolumeStatus", SK__PB_PLAIN, f260, 4}, /* 260 */
	{"k8s.io.api.core.v1.PhotonPersistentDiskVolumeSource", SK__PB_PLAIN, f261, 2}, /* 261 */
	{"k8s.io.api.core.v1.Pod", SK__PB_PLAIN, f262, 3}, /* 262 */
	{"k8s.io.api.core.v1.PodAffinity", SK__PB_PLAIN, f263, 2}, /* 263 */
	{"k8s.io.api.core.v1.PodAffinityTerm", SK__PB_PLAIN, f264, 6}, /* 264 */
	{"k8s.io.api.core.v1.PodAntiAffinity", SK__PB_PLAIN, f265, 2}, /* 265 */
	{"k8s.io.api.core.v1.PodAttachOptions", SK__PB_PLAIN, f266, 5}, /* 266 */
	{"k8s.io.api.core.v1.PodCertificateProjection", SK__PB_PLAIN, f267, 7}, /* 267 */
	{"k8s.io.api.core.v1.PodCondition", SK__PB_PLAIN, f268, 7}, /* 268 */
	{"k8s.io.api.core.v1.PodDNSConfig", SK__PB_PLAIN, f269, 3}, /* 269 */
	{"k8s.io.api.core.v1.PodDNSConfigOption", SK__PB_PLAIN, f270, 2}, /* 270 */
	{"k8s.io.api.core.v1.PodExecOptions", SK__PB_PLAIN, f271, 6}, /* 271 */
	{"k8s.io.api.core.v1.PodExtendedResourceClaimStatus", SK__PB_PLAIN, f272, 2}, /* 272 */
	{"k8s.io.api.core.v1.PodIP", SK__PB_PLAIN, f273, 1}, /* 273 */
	{"k8s.io.api.core.v1.PodList", SK__PB_PLAIN, f274, 2}, /* 274 */
	{"k8s.io.api.core.v1.PodLogOptions", SK__PB_PLAIN, f275, 10}, /* 275 */
	{"k8s.io.api.core.v1.PodOS", SK__PB_PLAIN, f276, 1}, /* 276 */
	{"k8s.io.api.core.v1.PodPortForwardOptions", SK__PB_PLAIN, f277, 1}, /* 277 */
	{"k8s.io.api.core.v1.PodProxyOptions", SK__PB_PLAIN, f278, 1}, /* 278 */
	{"k8s.io.api.core.v1.PodReadinessGate", SK__PB_PLAIN, f279, 1}, /* 279 */
	{"k8s.io.api.core.v1.PodResourceClaim", SK__PB_PLAIN, f280, 3}, /* 280 */
	{"k8s.io.api.core.v1.PodResourceClaimStatus", SK__PB_PLAIN, f281, 2}, /* 281 */
	{"k8s.io.api.core.v1.PodSchedulingGate", SK__PB_PLAIN, f282, 1}, /* 282 */
	{"k8s.io.api.core.v1.PodSecurityContext", SK__PB_PLAIN, f283, 13}, /* 283 */
	{"k8s.io.api.core.v1.PodSignature", SK__PB_PLAIN, f284, 1}, /* 284 */
	{"k8s.io.api.core.v1.PodSpec", SK__PB_PLAIN, f285, 42}, /* 285 */
	{"k8s.io.api.core.v1.PodStatus", SK__PB_PLAIN, f286, 20}, /* 286 */
	{"k8s.io.api.core.v1.PodStatusResult", SK__PB_PLAIN, f287, 2}, /* 287 */
	{"k8s.io.api.core.v1.PodTemplate", SK__PB_PLAIN, f288, 2}, /* 288 */
	{"k8s.io.api.core.v1.PodTemplateList", SK__PB_PLAIN, f289, 2}, /* 289 */
	{"k8s.io.api.core.v1.PodTemplateSpec", SK__PB_PLAIN, f290, 2}, /* 290 */
	{"k8s.io.api.core.v1.PortStatus", SK__PB_PLAIN, f291, 3}, /* 291 */
	{"k8s.io.api.core.v1.PortworxVolumeSource", SK__PB_PLAIN, f292, 3}, /* 292 */
	{"k8s.io.api.core.v1.Preconditions", SK__PB_PLAIN, f293, 1}, /* 293 */
	{"k8s.io.api.core.v1.PreferAvoidPodsEntry", SK__PB_PLAIN, f294, 4}, /* 294 */
	{"k8s.io.api.core.v1.PreferredSchedulingTerm", SK__PB_PLAIN, f295, 2}, /* 295 */
	{"k8s.io.api.core.v1.Probe", SK__PB_PLAIN, f296, 7}, /* 296 */
	{"k8s.io.api.core.v1.ProbeHandler", SK__PB_PLAIN, f297, 4}, /* 297 */
	{"k8s.io.api.core.v1.ProjectedVolumeSource", SK__PB_PLAIN, f298, 2}, /* 298 */
	{"k8s.io.api.core.v1.QuobyteVolumeSource", SK__PB_PLAIN, f299, 6}, /* 299 */
	{"k8s.io.api.core.v1.RBDPersistentVolumeSource", SK__PB_PLAIN, f300, 8}, /* 300 */
	{"k8s.io.api.core.v1.RBDVolumeSource", SK__PB_PLAIN, f301, 8}, /* 301 */
	{"k8s.io.api.core.v1.RangeAllocation", SK__PB_PLAIN, f302, 3}, /* 302 */
	{"k8s.io.api.core.v1.ReplicationController", SK__PB_PLAIN, f303, 3}, /* 303 */
	{"k8s.io.api.core.v1.ReplicationControllerCondition", SK__PB_PLAIN, f304, 5}, /* 304 */
	{"k8s.io.api.core.v1.ReplicationControllerList", SK__PB_PLAIN, f305, 2}, /* 305 */
	{"k8s.io.api.core.v1.ReplicationControllerSpec", SK__PB_PLAIN, f306, 4}, /* 306 */
	{"k8s.io.api.core.v1.ReplicationControllerStatus", SK__PB_PLAIN, f307, 6}, /* 307 */
	{"k8s.io.api.core.v1.ResourceClaim", SK__PB_PLAIN, f308, 2}, /* 308 */
	{"k8s.io.api.core.v1.ResourceFieldSelector", SK__PB_PLAIN, f309, 3}, /* 309 */
	{"k8s.io.api.core.v1.ResourceHealth", SK__PB_PLAIN, f310, 2}, /* 310 */
	{"k8s.io.api.core.v1.ResourceQuota", SK__PB_PLAIN, f311, 3}, /* 311 */
	{"k8s.io.api.core.v1.ResourceQuotaList", SK__PB_PLAIN, f312, 2}, /* 312 */
	{"k8s.io.api.core.v1.ResourceQuotaSpec", SK__PB_PLAIN, f313, 3}, /* 313 */
	{"k8s.io.api.core.v1.ResourceQuotaStatus", SK__PB_PLAIN, f314, 2}, /* 314 */
	{"k8s.io.api.core.v1.ResourceRequirements", SK__PB_PLAIN, f315, 3}, /* 315 */
	{"k8s.io.api.core.v1.ResourceStatus", SK__PB_PLAIN, f316, 2}, /* 316 */
	{"k8s.io.api.core.v1.SELinuxOptions", SK__PB_PLAIN, f317, 4}, /* 317 */
	{"k8s.io.api.core.v1.ScaleIOPersistentVolumeSource", SK__PB_PLAIN, f318, 10}, /* 318 */
	{"k8s.io.api.core.v1.ScaleIOVolumeSource", SK__PB_PLAIN, f319, 10}, /* 319 */
	{"k8s.io.api.core.v1.ScopeSelector", SK__PB_PLAIN, f320, 1}, /* 320 */
	{"k8s.io.api.core.v1.ScopedResourceSelectorRequirement", SK__PB_PLAIN, f321, 3}, /* 321 */
	{"k8s.io.api.core.v1.SeccompProfile", SK__PB_PLAIN, f322, 2}, /* 322 */
	{"k8s.io.api.core.v1.Secret", SK__PB_PLAIN, f323, 5}, /* 323 */
	{"k8s.io.api.core.v1.SecretEnvSource", SK__PB_PLAIN, f324, 2}, /* 324 */
	{"k8s.io.api.core.v1.SecretKeySelector", SK__PB_PLAIN, f325, 3}, /* 325 */
	{"k8s.io.api.core.v1.SecretList", SK__PB_PLAIN, f326, 2}, /* 326 */
	{"k8s.io.api.core.v1.SecretProjection", SK__PB_PLAIN, f327, 3}, /* 327 */
	{"k8s.io.api.core.v1.SecretReference", SK__PB_PLAIN, f328, 2}, /* 328 */
	{"k8s.io.api.core.v1.SecretVolumeSource", SK__PB_PLAIN, f329, 4}, /* 329 */
	{"k8s.io.api.core.v1.SecurityContext", SK__PB_PLAIN, f330, 12}, /* 330 */
	{"k8s.io.api.core.v1.SerializedReference", SK__PB_PLAIN, f331, 1}, /* 331 */
	{"k8s.io.api.core.v1.Service", SK__PB_PLAIN, f332, 3}, /* 332 */
	{"k8s.io.api.core.v1.ServiceAccount", SK__PB_PLAIN, f333, 4}, /* 333 */
	{"k8s.io.api.core.v1.ServiceAccountList", SK__PB_PLAIN, f334, 2}, /* 334 */
	{"k8s.io.api.core.v1.ServiceAccountTokenProjection", SK__PB_PLAIN, f335, 3}, /* 335 */
	{"k8s.io.api.core.v1.ServiceList", SK__PB_PLAIN, f336, 2}, /* 336 */
	{"k8s.io.api.core.v1.ServicePort", SK__PB_PLAIN, f337, 6}, /* 337 */
	{"k8s.io.api.core.v1.ServiceProxyOptions", SK__PB_PLAIN, f338, 1}, /* 338 */
	{"k8s.io.api.core.v1.ServiceSpec", SK__PB_PLAIN, f339, 20}, /* 339 */
	{"k8s.io.api.core.v1.ServiceStatus", SK__PB_PLAIN, f340, 2}, /* 340 */
	{"k8s.io.api.core.v1.SessionAffinityConfig", SK__PB_PLAIN, f341, 1}, /* 341 */
	{"k8s.io.api.core.v1.SleepAction", SK__PB_PLAIN, f342, 1}, /* 342 */
	{"k8s.io.api.core.v1.StorageOSPersistentVolumeSource", SK__PB_PLAIN, f343, 5}, /* 343 */
	{"k8s.io.api.core.v1.StorageOSVolumeSource", SK__PB_PLAIN, f344, 5}, /* 344 */
	{"k8s.io.api.core.v1.Sysctl", SK__PB_PLAIN, f345, 2}, /* 345 */
	{"k8s.io.api.core.v1.TCPSocketAction", SK__PB_PLAIN, f346, 2}, /* 346 */
	{"k8s.io.api.core.v1.Taint", SK__PB_PLAIN, f347, 4}, /* 347 */
	{"k8s.io.api.core.v1.Toleration", SK__PB_PLAIN, f348, 5}, /* 348 */
	{"k8s.io.api.core.v1.TopologySelectorLabelRequirement", SK__PB_PLAIN, f349, 2}, /* 349 */
	{"k8s.io.api.core.v1.TopologySelectorTerm", SK__PB_PLAIN, f350, 1}, /* 350 */
	{"k8s.io.api.core.v1.TopologySpreadConstraint", SK__PB_PLAIN, f351, 8}, /* 351 */
	{"k8s.io.api.core.v1.TypedLocalObjectReference", SK__PB_PLAIN, f352, 3}, /* 352 */
	{"k8s.io.api.core.v1.TypedObjectReference", SK__PB_PLAIN, f353, 4}, /* 353 */
	{"k8s.io.api.core.v1.Volume", SK__PB_PLAIN, f354, 2}, /* 354 */
	{"k8s.io.api.core.v1.VolumeDevice", SK__PB_PLAIN, f355, 2}, /* 355 */
	{"k8s.io.api.core.v1.VolumeMount", SK__PB_PLAIN, f356, 7}, /* 356 */
	{"k8s.io.api.core.v1.VolumeMountStatus", SK__PB_PLAIN, f357, 4}, /* 357 */
	{"k8s.io.api.core.v1.VolumeNodeAffinity", SK__PB_PLAIN, f358, 1}, /* 358 */
	{"k8s.io.api.core.v1.VolumeProjection", SK__PB_PLAIN, f359, 6}, /* 359 */
	{"k8s.io.api.core.v1.VolumeResourceRequirements", SK__PB_PLAIN, f360, 2}, /* 360 */
	{"k8s.io.api.core.v1.VolumeSource", SK__PB_PLAIN, f361, 30}, /* 361 */
	{"k8s.io.api.core.v1.VsphereVirtualDiskVolumeSource", SK__PB_PLAIN, f362, 4}, /* 362 */
	{"k8s.io.api.core.v1.WeightedPodAffinityTerm", SK__PB_PLAIN, f363, 2}, /* 363 */
	{"k8s.io.api.core.v1.WindowsSecurityContextOptions", SK__PB_PLAIN, f364, 4}, /* 364 */
	{"k8s.io.api.core.v1.WorkloadReference", SK__PB_PLAIN, f365, 3}, /* 365 */
	{"k8s.io.api.discovery.v1.Endpoint", SK__PB_PLAIN, f366, 8}, /* 366 */
	{"k8s.io.api.discovery.v1.EndpointConditions", SK__PB_PLAIN, f367, 3}, /* 367 */
	{"k8s.io.api.discovery.v1.EndpointHints", SK__PB_PLAIN, f368, 2}, /* 368 */
	{"k8s.io.api.discovery.v1.EndpointPort", SK__PB_PLAIN, f369, 4}, /* 369 */
	{"k8s.io.api.discovery.v1.EndpointSlice", SK__PB_PLAIN, f370, 4}, /* 370 */
	{"k8s.io.api.discovery.v1.EndpointSliceList", SK__PB_PLAIN, f371, 2}, /* 371 */
	{"k8s.io.api.discovery.v1.ForNode", SK__PB_PLAIN, f372, 1}, /* 372 */
	{"k8s.io.api.discovery.v1.ForZone", SK__PB_PLAIN, f373, 1}, /* 373 */
	{"k8s.io.api.events.v1.Event", SK__PB_PLAIN, f374, 15}, /* 374 */
	{"k8s.io.api.events.v1.EventList", SK__PB_PLAIN, f375, 2}, /* 375 */
	{"k8s.io.api.events.v1.EventSeries", SK__PB_PLAIN, f376, 2}, /* 376 */
	{"k8s.io.api.networking.v1.HTTPIngressPath", SK__PB_PLAIN, f377, 3}, /* 377 */
	{"k8s.io.api.networking.v1.HTTPIngressRuleValue", SK__PB_PLAIN, f378, 1}, /* 378 */
	{"k8s.io.api.networking.v1.IPAddress", SK__PB_PLAIN, f379, 2}, /* 379 */
	{"k8s.io.api.networking.v1.IPAddressList", SK__PB_PLAIN, f380, 2}, /* 380 */
	{"k8s.io.api.networking.v1.IPAddressSpec", SK__PB_PLAIN, f381, 1}, /* 381 */
	{"k8s.io.api.networking.v1.IPBlock", SK__PB_PLAIN, f382, 2}, /* 382 */
	{"k8s.io.api.networking.v1.Ingress", SK__PB_PLAIN, f383, 3}, /* 383 */
	{"k8s.io.api.networking.v1.IngressBackend", SK__PB_PLAIN, f384, 2}, /* 384 */
	{"k8s.io.api.networking.v1.IngressClass", SK__PB_PLAIN, f385, 2}, /* 385 */
	{"k8s.io.api.networking.v1.IngressClassList", SK__PB_PLAIN, f386, 2}, /* 386 */
	{"k8s.io.api.networking.v1.IngressClassParametersReference", SK__PB_PLAIN, f387, 5}, /* 387 */
	{"k8s.io.api.networking.v1.IngressClassSpec", SK__PB_PLAIN, f388, 2}, /* 388 */
	{"k8s.io.api.networking.v1.IngressList", SK__PB_PLAIN, f389, 2}, /* 389 */
	{"k8s.io.api.networking.v1.IngressLoadBalancerIngress", SK__PB_PLAIN, f390, 3}, /* 390 */
	{"k8s.io.api.networking.v1.IngressLoadBalancerStatus", SK__PB_PLAIN, f391, 1}, /* 391 */
	{"k8s.io.api.networking.v1.IngressPortStatus", SK__PB_PLAIN, f392, 3}, /* 392 */
	{"k8s.io.api.networking.v1.IngressRule", SK__PB_PLAIN, f393, 2}, /* 393 */
	{"k8s.io.api.networking.v1.IngressRuleValue", SK__PB_PLAIN, f394, 1}, /* 394 */
	{"k8s.io.api.networking.v1.IngressServiceBackend", SK__PB_PLAIN, f395, 2}, /* 395 */
	{"k8s.io.api.networking.v1.IngressSpec", SK__PB_PLAIN, f396, 4}, /* 396 */
	{"k8s.io.api.networking.v1.IngressStatus", SK__PB_PLAIN, f397, 1}, /* 397 */
	{"k8s.io.api.networking.v1.IngressTLS", SK__PB_PLAIN, f398, 2}, /* 398 */
	{"k8s.io.api.networking.v1.NetworkPolicy", SK__PB_PLAIN, f399, 2}, /* 399 */
	{"k8s.io.api.networking.v1.NetworkPolicyEgressRule", SK__PB_PLAIN, f400, 2}, /* 400 */
	{"k8s.io.api.networking.v1.NetworkPolicyIngressRule", SK__PB_PLAIN, f401, 2}, /* 401 */
	{"k8s.io.api.networking.v1.NetworkPolicyList", SK__PB_PLAIN, f402, 2}, /* 402 */
	{"k8s.io.api.networking.v1.NetworkPolicyPeer", SK__PB_PLAIN, f403, 3}, /* 403 */
	{"k8s.io.api.networking.v1.NetworkPolicyPort", SK__PB_PLAIN, f404, 3}, /* 404 */
	{"k8s.io.api.networking.v1.NetworkPolicySpec", SK__PB_PLAIN, f405, 4}, /* 405 */
	{"k8s.io.api.networking.v1.ParentReference", SK__PB_PLAIN, f406, 4}, /* 406 */
	{"k8s.io.api.networking.v1.ServiceBackendPort", SK__PB_PLAIN, f407, 2}, /* 407 */
	{"k8s.io.api.networking.v1.ServiceCIDR", SK__PB_PLAIN, f408, 3}, /* 408 */
	{"k8s.io.api.networking.v1.ServiceCIDRList", SK__PB_PLAIN, f409, 2}, /* 409 */
	{"k8s.io.api.networking.v1.ServiceCIDRSpec", SK__PB_PLAIN, f410, 1}, /* 410 */
	{"k8s.io.api.networking.v1.ServiceCIDRStatus", SK__PB_PLAIN, f411, 1}, /* 411 */
	{"k8s.io.api.node.v1.Overhead", SK__PB_PLAIN, f412, 1}, /* 412 */
	{"k8s.io.api.node.v1.RuntimeClass", SK__PB_PLAIN, f413, 4}, /* 413 */
	{"k8s.io.api.node.v1.RuntimeClassList", SK__PB_PLAIN, f414, 2}, /* 414 */
	{"k8s.io.api.node.v1.Scheduling", SK__PB_PLAIN, f415, 2}, /* 415 */
	{"k8s.io.api.policy.v1.Eviction", SK__PB_PLAIN, f416, 2}, /* 416 */
	{"k8s.io.api.policy.v1.PodDisruptionBudget", SK__PB_PLAIN, f417, 3}, /* 417 */
	{"k8s.io.api.policy.v1.PodDisruptionBudgetList", SK__PB_PLAIN, f418, 2}, /* 418 */
	{"k8s.io.api.policy.v1.PodDisruptionBudgetSpec", SK__PB_PLAIN, f419, 4}, /* 419 */
	{"k8s.io.api.policy.v1.PodDisruptionBudgetStatus", SK__PB_PLAIN, f420, 7}, /* 420 */
	{"k8s.io.api.rbac.v1.AggregationRule", SK__PB_PLAIN, f421, 1}, /* 421 */
	{"k8s.io.api.rbac.v1.ClusterRole", SK__PB_PLAIN, f422, 3}, /* 422 */
	{"k8s.io.api.rbac.v1.ClusterRoleBinding", SK__PB_PLAIN, f423, 3}, /* 423 */
	{"k8s.io.api.rbac.v1.ClusterRoleBindingList", SK__PB_PLAIN, f424, 2}, /* 424 */
	{"k8s.io.api.rbac.v1.ClusterRoleList", SK__PB_PLAIN, f425, 2}, /* 425 */
	{"k8s.io.api.rbac.v1.PolicyRule", SK__PB_PLAIN, f426, 5}, /* 426 */
	{"k8s.io.api.rbac.v1.Role", SK__PB_PLAIN, f427, 2}, /* 427 */
	{"k8s.io.api.rbac.v1.RoleBinding", SK__PB_PLAIN, f428, 3}, /* 428 */
	{"k8s.io.api.rbac.v1.RoleBindingList", SK__PB_PLAIN, f429, 2}, /* 429 */
	{"k8s.io.api.rbac.v1.RoleList", SK__PB_PLAIN, f430, 2}, /* 430 */
	{"k8s.io.api.rbac.v1.RoleRef", SK__PB_PLAIN, f431, 3}, /* 431 */
	{"k8s.io.api.rbac.v1.Subject", SK__PB_PLAIN, f432, 4}, /* 432 */
	{"k8s.io.api.scheduling.v1.PriorityClass", SK__PB_PLAIN, f433, 5}, /* 433 */
	{"k8s.io.api.scheduling.v1.PriorityClassList", SK__PB_PLAIN, f434, 2}, /* 434 */
	{"k8s.io.api.storage.v1.CSIDriver", SK__PB_PLAIN, f435, 2}, /* 435 */
	{"k8s.io.api.storage.v1.CSIDriverList", SK__PB_PLAIN, f436, 2}, /* 436 */
	{"k8s.io.api.storage.v1.CSIDriverSpec", SK__PB_PLAIN, f437, 10}, /* 437 */
	{"k8s.io.api.storage.v1.CSINode", SK__PB_PLAIN, f438, 2}, /* 438 */
	{"k8s.io.api.storage.v1.CSINodeDriver", SK__PB_PLAIN, f439, 4}, /* 439 */
	{"k8s.io.api.storage.v1.CSINodeList", SK__PB_PLAIN, f440, 2}, /* 440 */
	{"k8s.io.api.storage.v1.CSINodeSpec", SK__PB_PLAIN, f441, 1}, /* 441 */
	{"k8s.io.api.storage.v1.CSIStorageCapacity", SK__PB_PLAIN, f442, 5}, /* 442 */
	{"k8s.io.api.storage.v1.CSIStorageCapacityList", SK__PB_PLAIN, f443, 2}, /* 443 */
	{"k8s.io.api.storage.v1.StorageClass", SK__PB_PLAIN, f444, 8}, /* 444 */
	{"k8s.io.api.storage.v1.StorageClassList", SK__PB_PLAIN, f445, 2}, /* 445 */
	{"k8s.io.api.storage.v1.TokenRequest", SK__PB_PLAIN, f446, 2}, /* 446 */
	{"k8s.io.api.storage.v1.VolumeAttachment", SK__PB_PLAIN, f447, 3}, /* 447 */
	{"k8s.io.api.storage.v1.VolumeAttachmentList", SK__PB_PLAIN, f448, 2}, /* 448 */
	{"k8s.io.api.storage.v1.VolumeAttachmentSource", SK__PB_PLAIN, f449, 2}, /* 449 */
	{"k8s.io.api.storage.v1.VolumeAttachmentSpec", SK__PB_PLAIN, f450, 3}, /* 450 */
	{"k8s.io.api.storage.v1.VolumeAttachmentStatus", SK__PB_PLAIN, f451, 4}, /* 451 */
	{"k8s.io.api.storage.v1.VolumeAttributesClass", SK__PB_PLAIN, f452, 3}, /* 452 */
	{"k8s.io.api.storage.v1.VolumeAttributesClassList", SK__PB_PLAIN, f453, 2}, /* 453 */
	{"k8s.io.api.storage.v1.VolumeError", SK__PB_PLAIN, f454, 3}, /* 454 */
	{"k8s.io.api.storage.v1.VolumeNodeResources", SK__PB_PLAIN, f455, 1}, /* 455 */
	{"k8s.io.apimachinery.pkg.api.resource.Quantity", SK__PB_QUANTITY, f456, 1}, /* 456 */
	{"k8s.io.apimachinery.pkg.api.resource.QuantityValue", SK__PB_QUANTITY, f457, 1}, /* 457 */
	{"k8s.io.apimachinery.pkg.apis.meta.v1.APIGroup", SK__PB_PLAIN, f458, 4}, /* 458 */
	{"k8s.io.apimachinery.pkg.apis.meta.v1.APIGroupList", SK__PB_PLAIN, f459, 1}, /* 459 */
	{"k8s.io.apimachinery.pkg.apis.meta.v1.APIResource", SK__PB_PLAIN, f460, 10}, /* 460 */
	{"k8s.io.apimachinery.pkg.apis.meta.v1.APIResourceList", SK__PB_PLAIN, f461, 2}, /* 461 */
	{"k8s.io.apimachinery.pkg.apis.meta.v1.APIVersions", SK__PB_PLAIN, f462, 2}, /* 462 */
	{"k8s.io.apimachinery.pkg.apis.meta.v1.ApplyOptions", SK__PB_PLAIN, f463, 3}, /* 463 */
	{"k8s.io.apimachinery.pkg.apis.meta.v1.Condition", SK__PB_PLAIN, f464, 6}, /* 464 */
	{"k8s.io.apimachinery.pkg.apis.meta.v1.CreateOptions", SK__PB_PLAIN, f465, 3}, /* 465 */
	{"k8s.io.apimachinery.pkg.apis.meta.v1.DeleteOptions", SK__PB_PLAIN, f466, 6}, /* 466 */
	{"k8s.io.apimachinery.pkg.apis.meta.v1.Duration", SK__PB_DURATION, f467, 1}, /* 467 */
	{"k8s.io.apimachinery.pkg.apis.meta.v1.FieldSelectorRequirement", SK__PB_PLAIN, f468, 3}, /* 468 */
	{"k8s.io.apimachinery.pkg.apis.meta.v1.FieldsV1", SK__PB_FIELDSV1, f469, 1}, /* 469 */
	{"k8s.io.apimachinery.pkg.apis.meta.v1.GetOptions", SK__PB_PLAIN, f470, 1}, /* 470 */
	{"k8s.io.apimachinery.pkg.apis.meta.v1.GroupKind", SK__PB_PLAIN, f471, 2}, /* 471 */
	{"k8s.io.apimachinery.pkg.apis.meta.v1.GroupResource", SK__PB_PLAIN, f472, 2}, /* 472 */
	{"k8s.io.apimachinery.pkg.apis.meta.v1.GroupVersion", SK__PB_PLAIN, f473, 2}, /* 473 */
	{"k8s.io.apimachinery.pkg.apis.meta.v1.GroupVersionForDiscovery", SK__PB_PLAIN, f474, 2}, /* 474 */
	{"k8s.io.apimachinery.pkg.apis.meta.v1.GroupVersionKind", SK__PB_PLAIN, f475, 3}, /* 475 */
	{"k8s.io.apimachinery.pkg.apis.meta.v1.GroupVersionResource", SK__PB_PLAIN, f476, 3}, /* 476 */
	{"k8s.io.apimachinery.pkg.apis.meta.v1.LabelSelector", SK__PB_PLAIN, f477, 2}, /* 477 */
	{"k8s.io.apimachinery.pkg.apis.meta.v1.LabelSelectorRequirement", SK__PB_PLAIN, f478, 3}, /* 478 */
	{"k8s.io.apimachinery.pkg.apis.meta.v1.List", SK__PB_PLAIN, f479, 2}, /* 479 */
	{"k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta", SK__PB_PLAIN, f480, 4}, /* 480 */
	{"k8s.io.apimachinery.pkg.apis.meta.v1.ListOptions", SK__PB_PLAIN, f481, 10}, /* 481 */
	{"k8s.io.apimachinery.pkg.apis.meta.v1.ManagedFieldsEntry", SK__PB_PLAIN, f482, 7}, /* 482 */
	{"k8s.io.apimachinery.pkg.apis.meta.v1.MicroTime", SK__PB_MICROTIME, f483, 2}, /* 483 */
	{"k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta", SK__PB_PLAIN, f484, 15}, /* 484 */
	{"k8s.io.apimachinery.pkg.apis.meta.v1.OwnerReference", SK__PB_PLAIN, f485, 6}, /* 485 */
	{"k8s.io.apimachinery.pkg.apis.meta.v1.PartialObjectMetadata", SK__PB_PLAIN, f486, 1}, /* 486 */
	{"k8s.io.apimachinery.pkg.apis.meta.v1.PartialObjectMetadataList", SK__PB_PLAIN, f487, 2}, /* 487 */
	{"k8s.io.apimachinery.pkg.apis.meta.v1.Patch", SK__PB_PLAIN, NULL, 0}, /* 488 */
	{"k8s.io.apimachinery.pkg.apis.meta.v1.PatchOptions", SK__PB_PLAIN, f489, 4}, /* 489 */
	{"k8s.io.apimachinery.pkg.apis.meta.v1.Preconditions", SK__PB_PLAIN, f490, 2}, /* 490 */
	{"k8s.io.apimachinery.pkg.apis.meta.v1.RootPaths", SK__PB_PLAIN, f491, 1}, /* 491 */
	{"k8s.io.apimachinery.pkg.apis.meta.v1.ServerAddressByClientCIDR", SK__PB_PLAIN, f492, 2}, /* 492 */
	{"k8s.io.apimachinery.pkg.apis.meta.v1.Status", SK__PB_PLAIN, f493, 6}, /* 493 */
	{"k8s.io.apimachinery.pkg.apis.meta.v1.StatusCause", SK__PB_PLAIN, f494, 3}, /* 494 */
	{"k8s.io.apimachinery.pkg.apis.meta.v1.StatusDetails", SK__PB_PLAIN, f495, 6}, /* 495 */
	{"k8s.io.apimachinery.pkg.apis.meta.v1.TableOptions", SK__PB_PLAIN, f496, 1}, /* 496 */
	{"k8s.io.apimachinery.pkg.apis.meta.v1.Time", SK__PB_TIME, f497, 2}, /* 497 */
	{"k8s.io.apimachinery.pkg.apis.meta.v1.Timestamp", SK__PB_PLAIN, f498, 2}, /* 498 */
	{"k8s.io.apimachinery.pkg.apis.meta.v1.TypeMeta", SK__PB_PLAIN, f499, 2}, /* 499 */
	{"k8s.io.apimachinery.pkg.apis.meta.v1.UpdateOptions", SK__PB_PLAIN, f500, 3}, /* 500 */
	{"k8s.io.apimachinery.pkg.apis.meta.v1.Verbs", SK__PB_ITEMS, f501, 1}, /* 501 */
	{"k8s.io.apimachinery.pkg.apis.meta.v1.WatchEvent", SK__PB_PLAIN, f502, 2}, /* 502 */
	{"k8s.io.apimachinery.pkg.runtime.RawExtension", SK__PB_RAWEXT, f503, 1}, /* 503 */
	{"k8s.io.apimachinery.pkg.runtime.TypeMeta", SK__PB_PLAIN, f504, 2}, /* 504 */
	{"k8s.io.apimachinery.pkg.runtime.Unknown", SK__PB_PLAIN, f505, 4}, /* 505 */
	{"k8s.io.apimachinery.pkg.util.intstr.IntOrString", SK__PB_INTORSTRING, f506, 3}, /* 506 */
};

const size_t sk__pb_nmessages = sizeof(sk__pb_messages) / sizeof(sk__pb_messages[0]);
