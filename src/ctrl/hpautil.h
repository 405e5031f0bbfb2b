/* Pure HorizontalPodAutoscaler logic (after pkg/controller/podautoscaler:
 * replica_calculator.go and horizontal.go's normalization): the replica
 * count a resource metric asks for, the scale-down stabilization and the
 * behavior's rate limits. No API calls, for unit tests. */
#ifndef SK_CTRL_HPAUTIL_H
#define SK_CTRL_HPAUTIL_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "util/error.h"

typedef struct sk_hpa_calc {
	double tolerance;        /* --horizontal-pod-autoscaler-tolerance (0.1) */
	int64_t cpu_init_secs;   /* --horizontal-pod-autoscaler-cpu-initialization-period (300) */
	int64_t readiness_delay; /* --horizontal-pod-autoscaler-initial-readiness-delay (30) */
	int64_t now;             /* seconds */
} sk_hpa_calc;

/* Pod metrics of one resource: pods' names to {"value": milli-units,
 * "timestamp": secs, "window": secs}, as built from a PodMetricsList by
 * sk_hpa_pod_metrics. */
json_t *sk_hpa_pod_metrics(json_t *list, const char *resource, const char *container);

/* GetResourceReplicas: the replicas for a target utilization (percent of
 * the pods' requests) of resource over pods (their objects) with metrics
 * (changed: ignored pods are dropped). *util the current utilization,
 * *raw the average usage in milli-units. -1 with err (upstream's message). */
int sk_hpa_resource_replicas(const sk_hpa_calc *c, int32_t current, int32_t target_util, const char *resource,
			     const char *container, json_t *pods, json_t *metrics, int32_t *replicas, int32_t *util,
			     int64_t *raw, sk_error_t *err);
/* GetRawResourceReplicas: the same for a target average value (milli). */
int sk_hpa_raw_resource_replicas(const sk_hpa_calc *c, int32_t current, int64_t target_milli, const char *resource,
				 json_t *pods, json_t *metrics, int32_t *replicas, int64_t *usage, sk_error_t *err);

/* What the controller remembers of one HPA between syncs. */
typedef struct sk_hpa_rec {
	int32_t replicas;
	int64_t t;
} sk_hpa_rec;

typedef struct sk_hpa_history {
	sk_hpa_rec *recs; /* recommendations */
	size_t nrecs;
	sk_hpa_rec *up, *down; /* scale events: replicas changed */
	size_t nup, ndown;
} sk_hpa_history;

void sk_hpa_history_release(sk_hpa_history *h);

/* The outcome of normalization: the replicas and the reasons of the
 * AbleToScale and ScalingLimited conditions. */
typedef struct sk_hpa_norm {
	int32_t replicas;
	const char *able_reason, *able_msg;
	int limited;
	const char *limited_reason, *limited_msg;
} sk_hpa_norm;

/* normalizeDesiredReplicas (behavior NULL: window is the
 * downscale stabilization in seconds) or normalizeDesiredReplicasWithBehaviors
 * (behavior: spec.behavior, defaulted). Records the recommendation in h. */
void sk_hpa_normalize(sk_hpa_history *h, json_t *behavior, int64_t window, int32_t current, int32_t desired,
		      int32_t min, int32_t max, int64_t now, sk_hpa_norm *out);
/* storeScaleEvent: remembers a rescale from prev to now for the behavior's rate limits. */
void sk_hpa_record_scale(sk_hpa_history *h, json_t *behavior, int32_t prev, int32_t replicas, int64_t now);

#endif
