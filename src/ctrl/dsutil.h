/* Pure DaemonSet rules (after pkg/controller/daemon/util and
 * daemon_controller.go's NodeShouldRunDaemonPod, update.go's rolling
 * update planning), kept free of API calls so unit tests can drive them. */
#ifndef SK_CTRL_DSUTIL_H
#define SK_CTRL_DSUTIL_H

#include <stdint.h>

#include <jansson.h>

#define SK_DS_HASH_LABEL "controller-revision-hash"
#define SK_DS_GENERATION_LABEL "pod-template-generation"

/* Adds the tolerations every daemon pod gets (AddOrUpdateDaemonPodTolerations)
 * to the pod spec's tolerations, replacing one with the same key and effect. */
void sk_ds_add_tolerations(json_t *pod_spec);

/* Sets the pod spec's required node affinity to matchFields metadata.name In
 * [node], keeping other terms' expressions (ReplaceDaemonSetPodNodeNameNodeAffinity). */
void sk_ds_set_node_affinity(json_t *pod_spec, const char *node);

/* The node a daemon pod is for: spec.nodeName or its matchFields
 * metadata.name In [x] (GetTargetNodeName); NULL when neither. */
const char *sk_ds_target_node(json_t *pod);

/* NodeShouldRunDaemonPod: whether a new daemon pod should be placed on node
 * and whether an existing one may keep running there. */
void sk_ds_node_should_run(json_t *ds, json_t *node, int *should_run, int *should_continue);

/* One node in rolling-update planning. */
typedef struct sk_ds_node_state {
	int ok;         /* at most one new and one old pod (findUpdatedPodsOnNode) */
	int has_new;    /* an updated pod is there */
	int has_old;    /* a pod of an older revision is there */
	int new_avail;  /* the updated pod is available */
	int old_avail;  /* the old pod is available */
	int should_run; /* NodeShouldRunDaemonPod */
	int delete_old; /* out: delete the old pod */
	int create_new; /* out: create an updated pod (surge) */
} sk_ds_node_state;

/* Plans one rolling-update step over n nodes with max_surge and
 * max_unavailable resolved (update.go rollingUpdate). */
void sk_ds_plan_rolling(sk_ds_node_state *nodes, size_t n, int64_t max_surge, int64_t max_unavailable);

#endif
