/* Pure Deployment rollout arithmetic (after pkg/controller/deployment/util),
 * kept free of API calls so unit tests can drive it. */
#ifndef SK_CTRL_ROLLOUT_H
#define SK_CTRL_ROLLOUT_H

#include <stdint.h>

#include <jansson.h>

#include "util/error.h"

/* An IntOrString (number or "25%") scaled against total, rounding up or
 * down as upstream's GetScaledValueFromIntOrPercent. v NULL gives def.
 * Returns 0 or -1 with err set for a malformed value. */
int sk_rollout_scaled(json_t *v, const char *def, int64_t total, int round_up, int64_t *out, sk_error_t *err);

/* maxSurge (rounded up) and maxUnavailable (rounded down) for replicas;
 * both zero turns maxUnavailable into 1, as upstream's ResolveFenceposts. */
int sk_rollout_fenceposts(json_t *max_surge, json_t *max_unavailable, int64_t replicas, int64_t *surge,
			  int64_t *unavailable, sk_error_t *err);

/* Replicas the new ReplicaSet may have now during a rolling update:
 * upstream's NewRSNewReplicas for RollingUpdate. */
int64_t sk_rollout_new_rs_replicas(int64_t replicas, int64_t surge, int64_t all_pods, int64_t new_rs_replicas);

/* How many old pods may be scaled down now: upstream's maxScaledDown in
 * reconcileOldReplicaSets. */
int64_t sk_rollout_max_scaled_down(int64_t replicas, int64_t unavailable, int64_t all_pods, int64_t new_rs_spec,
				   int64_t new_rs_available);

/* The pod-template-hash label value of template (pod-template-hash label
 * ignored) with collision_count (< 0: none): FNV-32a over a canonical
 * encoding, printed as upstream's rand.SafeEncodeString of the decimal
 * value. buf >= 16 bytes. */
void sk_rollout_hash(json_t *tmpl, int64_t collision_count, char *buf, size_t len);

/* upstream's rand.SafeEncodeString: maps each byte to an alphanumeric
 * without vowels or confusable characters. */
void sk_rollout_safe_encode(const char *in, char *out, size_t len);

/* 1 when two pod templates are equal ignoring the pod-template-hash label. */
int sk_rollout_template_equal(json_t *a, json_t *b);

/* Proportional share of a scaling event for one ReplicaSet (upstream's
 * getProportion): rs_replicas its size, annotated its max-replicas
 * annotation (or the deployment's status.replicas), d_max the deployment's
 * replicas + maxSurge (0 when the deployment scales to zero), to_add the
 * whole delta (signed), added what was handed out so far. */
int64_t sk_rollout_proportion(int64_t rs_replicas, int64_t annotated, int64_t d_max, int64_t to_add, int64_t added);

#endif
