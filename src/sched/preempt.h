/* PriorityClass-based preemption (upstream DefaultPreemption, PDBs ignored).
 *
 * For every node where the failed attempt was merely Unschedulable (not
 * UnschedulableAndUnresolvable) it removes all lower-priority pods, checks
 * the pod then fits, and reprieves victims in order of importance (higher
 * priority, then older) while it still fits. Among the candidates it picks
 * upstream's way: lowest highest-victim priority, then lowest sum of victim
 * priorities, then fewest victims, then the latest start of the most
 * important victims, then node order.
 *
 * Limits: the re-check after removing victims uses inter-pod affinity and
 * topology counts computed with the victims still present. */
#ifndef SK_SCHED_PREEMPT_H
#define SK_SCHED_PREEMPT_H

#include "sched/core.h"

typedef struct sk_preemption {
	sk_snode *node;    /* nominated node, NULL when preemption cannot help */
	sk_spod **victims; /* borrowed pods to delete (malloc'd array) */
	int nvictims;
	char *message; /* "preemption: …" PostFilter message when node == NULL (malloc'd) */
} sk_preemption;

/* failed is the result of the failed sk_algo_schedule for p (its fits).
 * Returns 0 with out->node set, or -1 with out->message set. Release out
 * with sk_preemption_release. */
int sk_preempt(sk_cache *c, sk_spod *p, json_t *runtime_class, const sk_result *failed, sk_preemption *out);
void sk_preemption_release(sk_preemption *r);

#define SK_MSG_PREEMPT_NOT_HELPFUL "Preemption is not helpful for scheduling"
#define SK_MSG_PREEMPT_NO_VICTIMS "No preemption victims found for incoming pod"
#define SK_MSG_PREEMPT_NEVER "not eligible due to preemptionPolicy=Never."
#define SK_MSG_PREEMPT_TERMINATING "not eligible due to a terminating pod on the nominated node."

#endif
