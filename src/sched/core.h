/* One scheduling attempt for one pod over the cache (upstream's
 * schedulePod): PreFilter, Filter over a round-robin window of nodes sized
 * by percentageOfNodesToScore, Score, and selection of the best node by
 * reservoir sampling among equal scores with a seeded generator (so a run is
 * reproducible). On failure it renders upstream's FitError message. */
#ifndef SK_SCHED_CORE_H
#define SK_SCHED_CORE_H

#include "sched/score.h"

typedef struct sk_algo {
	sk_cache *cache;
	uint64_t rng;        /* xorshift64 state, never 0 */
	int next_start;      /* upstream nextStartNodeIndex */
	sk_snode **feasible; /* scratch buffers reused across pods */
	int64_t *scores;
	int cap;
} sk_algo;

typedef struct sk_result {
	sk_snode *node; /* chosen node, NULL when none fits */
	int evaluated, feasible;
	char *message; /* FitError message (malloc'd) when node == NULL */
	sk_fit *fits;  /* per cache node index, filled when node == NULL (malloc'd) */
	int nfits;
} sk_result;

void sk_algo_init(sk_algo *a, sk_cache *c, uint64_t seed);
/* Frees the scratch buffers. */
void sk_algo_release(sk_algo *a);
/* Schedules p (not modifying the cache). Returns 0 with res->node set, or -1
 * with res->message and res->fits set. Release res with sk_result_release. */
int sk_algo_schedule(sk_algo *a, const sk_sched_profile *prof, sk_spod *p, json_t *runtime_class, sk_result *res);
void sk_result_release(sk_result *r);

/* Upstream numFeasibleNodesToFind. */
int sk_algo_nodes_to_find(int percentage, int num_all);

/* FitError.Error() (1.32): "0/N nodes are available:", then " <pre_filter_msg>."
 * when a PreFilter rejected the pod, otherwise " <counted reasons sorted>.",
 * then " <post_filter_msg>" (no period of its own: the preemption message ends
 * with one). fits has n entries; those with code SK_FIT_OK are skipped.
 * Message arguments may be NULL. Caller frees. */
char *sk_fit_error_message(int num_all_nodes, const sk_fit *fits, int n, const char *pre_filter_msg,
			   const char *post_filter_msg);

#endif
