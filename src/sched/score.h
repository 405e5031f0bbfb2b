/* Score plugins of the default profile (each 0..100, weighted as upstream):
 * TaintToleration 3, NodeAffinity 2, PodTopologySpread 2, InterPodAffinity 2,
 * NodeResourcesFit 1 (LeastAllocated or MostAllocated on cpu and memory),
 * NodeResourcesBalancedAllocation 1, ImageLocality 1, plus skiff's
 * GPUPacking (MostAllocated on nvidia.com/gpu, only for pods requesting GPUs)
 * so that GPU pods fill partly used GPU nodes first. */
#ifndef SK_SCHED_SCORE_H
#define SK_SCHED_SCORE_H

#include "sched/filter.h"

enum { SK_STRATEGY_LEAST_ALLOCATED = 0, SK_STRATEGY_MOST_ALLOCATED = 1 };

/* A scheduler profile: pods name it in spec.schedulerName. */
typedef struct sk_sched_profile {
	const char *name;                 /* "default-scheduler" when NULL */
	int strategy;                     /* NodeResourcesFit scoring strategy */
	int gpu_pack_weight;              /* weight of GPUPacking; negative disables, 0 = default (2) */
	int percentage_of_nodes_to_score; /* 0 = upstream's adaptive default */
} sk_sched_profile;

#define SK_MAX_SCORE 100
#define SK_WEIGHT_TAINT 3
#define SK_WEIGHT_NODE_AFFINITY 2
#define SK_WEIGHT_SPREAD 2
#define SK_WEIGHT_INTERPOD 2
#define SK_WEIGHT_FIT 1
#define SK_WEIGHT_BALANCED 1
#define SK_WEIGHT_IMAGE 1
#define SK_WEIGHT_GPU_PACK 2

/* Plugins scored per node without normalisation (0..100). */
int64_t sk_score_fit(const sk_cycle *cy, const sk_snode *n, int strategy);
int64_t sk_score_balanced(const sk_cycle *cy, const sk_snode *n);
int64_t sk_score_image(const sk_cycle *cy, const sk_snode *n, int total_nodes);
int64_t sk_score_gpu_pack(const sk_cycle *cy, const sk_snode *n);
/* Raw scores that are normalised over the feasible nodes. */
int64_t sk_score_taint_raw(const sk_cycle *cy, const sk_snode *n);
int64_t sk_score_node_affinity_raw(const sk_cycle *cy, const sk_snode *n);
int64_t sk_score_interpod_raw(const sk_cycle *cy, const sk_snode *n);
/* -1 for a node lacking a soft constraint's topology key. */
int64_t sk_score_spread_raw(const sk_cycle *cy, const sk_snode *n);

/* Weighted total for each of the n feasible nodes into out[n]. */
void sk_score_nodes(const sk_cycle *cy, const sk_sched_profile *prof, sk_snode *const *nodes, int n, int64_t *out);

#endif
