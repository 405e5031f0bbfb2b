/* Schema data: autoscaling/v2 and autoscaling/v1 HorizontalPodAutoscaler. */
#include <stddef.h>

#include "api/schema-int.h"

/* clang-format off: schema tables, laid out by hand (a field per entry would triple them) */

#define V2(n) "io.k8s.api.autoscaling.v2." n
#define V1(n) "io.k8s.api.autoscaling.v1." n
#define TYPEMETA \
	FD("apiVersion", sk__str, "APIVersion defines the versioned schema of this representation of an object."), \
		FD("kind", sk__str, "Kind is a string value representing the REST resource this object represents.")
#define OBJMETA FD("metadata", sk__object_meta, "Standard object's metadata.")

/* ---- autoscaling/v2 ---- */
static const sk_schema_field ref2_f[] = {F("apiVersion", sk__str), R("kind", sk__str), R("name", sk__str), END};
OBJ(ref2, V2("CrossVersionObjectReference"));
static const sk_schema_field mid_f[] = {R("name", sk__str), F("selector", sk__label_selector), END};
OBJ(mid, V2("MetricIdentifier"));
static const sk_schema_field mtarget_f[] = {F("averageUtilization", sk__i32), F("averageValue", sk__quantity),
					    R("type", sk__str), F("value", sk__quantity), END};
OBJ(mtarget, V2("MetricTarget"));
static const sk_schema_field mvalue_f[] = {F("averageUtilization", sk__i32), F("averageValue", sk__quantity),
					   F("value", sk__quantity), END};
OBJ(mvalue, V2("MetricValueStatus"));
static const sk_schema_field crs_f[] = {R("container", sk__str), R("name", sk__str), R("target", mtarget), END};
OBJ(crs, V2("ContainerResourceMetricSource"));
static const sk_schema_field ext_f[] = {R("metric", mid), R("target", mtarget), END};
OBJ(ext, V2("ExternalMetricSource"));
static const sk_schema_field objs_f[] = {R("describedObject", ref2), R("metric", mid), R("target", mtarget), END};
OBJ(objs, V2("ObjectMetricSource"));
static const sk_schema_field pods_f[] = {R("metric", mid), R("target", mtarget), END};
OBJ(pods, V2("PodsMetricSource"));
static const sk_schema_field res_f[] = {R("name", sk__str), R("target", mtarget), END};
OBJ(res, V2("ResourceMetricSource"));
static const sk_schema_field mspec_f[] = {F("containerResource", crs),
					  F("external", ext),
					  F("object", objs),
					  F("pods", pods),
					  F("resource", res),
					  R("type", sk__str),
					  END};
OBJ(mspec, V2("MetricSpec"));
ARR(mspecs, mspec);
static const sk_schema_field crst_f[] = {R("container", sk__str), R("current", mvalue), R("name", sk__str), END};
OBJ(crst, V2("ContainerResourceMetricStatus"));
static const sk_schema_field extst_f[] = {R("current", mvalue), R("metric", mid), END};
OBJ(extst, V2("ExternalMetricStatus"));
static const sk_schema_field objst_f[] = {R("current", mvalue), R("describedObject", ref2), R("metric", mid), END};
OBJ(objst, V2("ObjectMetricStatus"));
static const sk_schema_field podsst_f[] = {R("current", mvalue), R("metric", mid), END};
OBJ(podsst, V2("PodsMetricStatus"));
static const sk_schema_field resst_f[] = {R("current", mvalue), R("name", sk__str), END};
OBJ(resst, V2("ResourceMetricStatus"));
static const sk_schema_field mstatus_f[] = {F("containerResource", crst),
					    F("external", extst),
					    F("object", objst),
					    F("pods", podsst),
					    F("resource", resst),
					    R("type", sk__str),
					    END};
OBJ(mstatus, V2("MetricStatus"));
ARR(mstatuses, mstatus);
static const sk_schema_field policy_f[] = {R("periodSeconds", sk__i32), R("type", sk__str), R("value", sk__i32), END};
OBJ(policy, V2("HPAScalingPolicy"));
ARR(policies, policy);
static const sk_schema_field rules_f[] = {F("policies", policies), F("selectPolicy", sk__str),
					  F("stabilizationWindowSeconds", sk__i32), END};
OBJ(rules, V2("HPAScalingRules"));
static const sk_schema_field behavior_f[] = {F("scaleDown", rules), F("scaleUp", rules), END};
OBJ(behavior, V2("HorizontalPodAutoscalerBehavior"));
static const sk_schema_field spec2_f[] = {
	F("behavior", behavior),
	RD("maxReplicas", sk__i32,
	   "maxReplicas is the upper limit for the number of replicas to which the autoscaler can scale up."),
	F("metrics", mspecs),
	FD("minReplicas", sk__i32,
	   "minReplicas is the lower limit for the number of replicas to which the autoscaler can scale down."),
	RD("scaleTargetRef", ref2, "scaleTargetRef points to the target resource to scale."),
	END};
DOBJ(spec2, V2("HorizontalPodAutoscalerSpec"),
     "HorizontalPodAutoscalerSpec describes the desired functionality of the HorizontalPodAutoscaler.");
static const sk_schema_field cond2_f[] = {F("lastTransitionTime", sk__time),
					  F("message", sk__str),
					  F("reason", sk__str),
					  R("status", sk__str),
					  R("type", sk__str),
					  END};
OBJ(cond2, V2("HorizontalPodAutoscalerCondition"));
LMAP(conds2, cond2, "type", sk__keys_type);
static const sk_schema_field status2_f[] = {F("conditions", conds2),
					    F("currentMetrics", mstatuses),
					    F("currentReplicas", sk__i32),
					    R("desiredReplicas", sk__i32),
					    F("lastScaleTime", sk__time),
					    F("observedGeneration", sk__i64),
					    END};
DOBJ(status2, V2("HorizontalPodAutoscalerStatus"),
     "HorizontalPodAutoscalerStatus describes the current status of a horizontal pod autoscaler.");
static const sk_schema_field sk__hpa_v2_f[] = {
	TYPEMETA, OBJMETA, FD("spec", spec2, "spec is the specification for the behaviour of the autoscaler."),
	FD("status", status2, "status is the current information about the autoscaler."), END};
KIND(sk__hpa_v2, "autoscaling", "v2", "HorizontalPodAutoscaler", V2("HorizontalPodAutoscaler"),
     "HorizontalPodAutoscaler is the configuration for a horizontal pod autoscaler, which automatically manages the "
     "replica count of any resource implementing the scale subresource based on the metrics specified.");

/* ---- autoscaling/v1 ---- */
static const sk_schema_field ref1_f[] = {F("apiVersion", sk__str), R("kind", sk__str), R("name", sk__str), END};
OBJ(ref1, V1("CrossVersionObjectReference"));
static const sk_schema_field spec1_f[] = {
	RD("maxReplicas", sk__i32,
	   "maxReplicas is the upper limit for the number of pods that can be set by the autoscaler; cannot be smaller "
	   "than MinReplicas."),
	F("minReplicas", sk__i32),
	RD("scaleTargetRef", ref1,
	   "reference to scaled resource; horizontal pod autoscaler will learn the current resource consumption and "
	   "will set the desired number of pods by using its Scale subresource."),
	FD("targetCPUUtilizationPercentage", sk__i32,
	   "targetCPUUtilizationPercentage is the target average CPU utilization (represented as a percentage of "
	   "requested CPU) over all the pods; if not specified the default autoscaling policy will be used."),
	END};
DOBJ(spec1, V1("HorizontalPodAutoscalerSpec"), "specification of a horizontal pod autoscaler.");
static const sk_schema_field status1_f[] = {F("currentCPUUtilizationPercentage", sk__i32),
					    R("currentReplicas", sk__i32),
					    R("desiredReplicas", sk__i32),
					    F("lastScaleTime", sk__time),
					    F("observedGeneration", sk__i64),
					    END};
DOBJ(status1, V1("HorizontalPodAutoscalerStatus"), "current status of a horizontal pod autoscaler");
static const sk_schema_field sk__hpa_v1_f[] = {
	TYPEMETA, OBJMETA, FD("spec", spec1, "spec defines the behaviour of autoscaler."),
	FD("status", status1, "status is the current information about the autoscaler."), END};
KIND(sk__hpa_v1, "autoscaling", "v1", "HorizontalPodAutoscaler", V1("HorizontalPodAutoscaler"),
     "configuration of a horizontal pod autoscaler.");
