/* Pure StatefulSet rules (after pkg/controller/statefulset's
 * stateful_set_utils.go and the update planning of
 * stateful_set_control.go), kept free of API calls so unit tests can drive
 * them. */
#ifndef SK_CTRL_STSUTIL_H
#define SK_CTRL_STSUTIL_H

#include <stdint.h>

#include <jansson.h>

#define SK_STS_REVISION_LABEL "controller-revision-hash"
#define SK_STS_POD_NAME_LABEL "statefulset.kubernetes.io/pod-name"
#define SK_STS_POD_INDEX_LABEL "apps.kubernetes.io/pod-index"

/* The ordinal of pod name in set (getParentNameAndOrdinal: "<set>-<n>"
 * with n decimal), or -1 when the name is not of that form. */
int64_t sk_sts_ordinal(const char *set, const char *pod);

/* spec.ordinals.start (0 when unset). */
int64_t sk_sts_start(json_t *set);

/* The claim of template tmpl for ordinal ord: "<tmpl>-<set>-<ord>".
 * malloc'd; caller frees. */
char *sk_sts_claim_name(const char *tmpl, const char *set, int64_t ord);

/* Whether a pod created now for ordinal takes the update revision
 * (newVersionedStatefulSetPod): RollingUpdate ordinals below start +
 * partition (or, without rollingUpdate, below start + currentReplicas) keep
 * the current revision; every other pod takes the update revision. */
int sk_sts_takes_update(json_t *set, int64_t ordinal);

/* Whose the claims of an ordinal are (persistentVolumeClaimRetentionPolicy):
 * the set's (whenDeleted Delete), the pod's (whenScaled Delete and the
 * ordinal condemned by a scale down), or nobody's. */
enum sk_sts_claim_owner { SK_STS_CLAIM_NONE, SK_STS_CLAIM_SET, SK_STS_CLAIM_POD };
enum sk_sts_claim_owner sk_sts_claim_owner(json_t *set, int condemned);

/* One replica in rolling-update planning. */
typedef struct sk_sts_slot {
	int exists;      /* a pod is there */
	int updated;     /* its revision is the update revision */
	int healthy;     /* running, ready (and available), not terminating */
	int terminating; /* being deleted */
	int delete;      /* out: delete it for the update */
} sk_sts_slot;

/* Plans one rolling-update step over the n replicas (ordinal order) with
 * those from index update_min on to update, as upstream's
 * updateStatefulSet: max_unavailable < 0 (the MaxUnavailableStatefulSet
 * gate off: no maxUnavailable set) deletes the highest outdated pod and
 * waits for unhealthy ones; otherwise up to max_unavailable pods may be
 * unavailable at once. Returns how many slots are marked delete. */
int sk_sts_plan_update(sk_sts_slot *slots, int n, int update_min, int64_t max_unavailable);

#endif
