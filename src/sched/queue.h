/* The scheduling queue (upstream PriorityQueue): an active heap ordered by
 * priority (higher first), then creation time, then name; two backoff heaps
 * (1 s doubling per attempt up to 10 s, upstream podInitialBackoff /
 * podMaxBackoff): one for pods the filters rejected, one for pods that failed
 * for another reason (a rejected binding: upstream podErrorBackoffQ); and the
 * unschedulable set, whose pods go back on cluster events that may help
 * (sk_queue_move, upstream's QueueingHints by plugin family) and in any case
 * after 5 minutes (podMaxInUnschedulablePodsDuration, checked by
 * sk_queue_flush, which the loop calls several times a second).
 *
 * As upstream with SchedulerPopFromBackoffQ (KEP-5142, on by default since
 * 1.33), sk_queue_pop takes the head of the rejected pods' backoff heap when
 * the active heap is empty instead of leaving the scheduler idle; that heap
 * orders pods by their backoff expiry truncated to 1 s windows, then as the
 * active heap does, and a pod leaves it (flush) once its window has passed.
 * The error backoff heap is never popped early and expires exactly.
 *
 * The queue borrows sk_spod pointers; the owner tells it about a new version
 * with sk_queue_update and removes pods with sk_queue_delete before freeing.
 * Times are monotonic nanoseconds. Not thread-safe. */
#ifndef SK_SCHED_QUEUE_H
#define SK_SCHED_QUEUE_H

#include <stdint.h>

#include "sched/cache.h"
#include "sched/smap.h"

enum { SK_Q_NONE, SK_Q_ACTIVE, SK_Q_BACKOFF, SK_Q_UNSCHED, SK_Q_INFLIGHT };

/* Plugin families that can reject a pod, and so the cluster events that may
 * make it schedulable (upstream registers events and QueueingHint functions
 * per plugin; skiff groups the plugins by the events they wait for):
 *   SK_QH_NODE       NodeUnschedulable, NodeName, TaintToleration,
 *                    NodeAffinity: a node added or changed.
 *   SK_QH_RESOURCES  NodeResourcesFit: a node's allocatable changed, an
 *                    assigned pod deleted or finished (AssignedPodDelete).
 *   SK_QH_PODS       NodePorts, InterPodAffinity, PodTopologySpread: an
 *                    assigned pod added, deleted or finished; node labels.
 *   SK_QH_OTHER      the rest (gangs): PodGroup and node events.
 * A failure recorded with mask 0 counts as rejected by every family. */
enum {
	SK_QH_NODE = 1 << 0,
	SK_QH_RESOURCES = 1 << 1,
	SK_QH_PODS = 1 << 2,
	SK_QH_OTHER = 1 << 3,
	SK_QH_ALL = (1 << 4) - 1,
};
#define SK_QH_NFAMILIES 4

typedef struct sk_qpod {
	sk_spod *pod;
	int where;
	int slot; /* index in the heap or unschedulable array */
	int attempts;
	int error;         /* last failure was not a rejection: error backoff */
	unsigned rejected; /* SK_QH_* families that rejected it last */
	int64_t seq;       /* insertion order, last tie-break */
	int64_t last_attempt;
	int64_t backoff_until;
	int64_t unsched_since;
	int64_t cycle; /* scheduling cycle of its last pop */
	/* the PodScheduled=False condition last submitted for the pod (owned by
	 * the entry, set by the scheduler loop to skip repeating the write) */
	char *cond_msg, *cond_nominated;
} sk_qpod;

typedef struct sk_qheap {
	sk_qpod **a;
	int n, cap;
	int (*less)(const sk_qpod *, const sk_qpod *);
} sk_qheap;

typedef struct sk_queue {
	sk_smap map; /* pod key -> sk_qpod */
	sk_qheap active, backoff, error_backoff;
	sk_qpod **unsched;
	int nunsched, cap_unsched;
	int64_t initial_backoff, max_backoff, max_unsched;
	int64_t cycle, seq;
	int64_t move_cycle[SK_QH_NFAMILIES]; /* cycle of the last event per family */
} sk_queue;

#define SK_Q_INITIAL_BACKOFF (1000000000LL)
#define SK_Q_MAX_BACKOFF (10000000000LL)
#define SK_Q_MAX_UNSCHED (300000000000LL)
#define SK_Q_WINDOW (1000000000LL) /* upstream backoffQOrderingWindowDuration */

void sk_queue_init(sk_queue *q);
void sk_queue_release(sk_queue *q);
/* A new pending pod goes to the active heap (no-op if already queued). */
void sk_queue_add(sk_queue *q, sk_spod *p);
/* Points the entry at a new version of the pod; an unschedulable pod is moved
 * (its spec may now fit). No-op for unknown pods. */
void sk_queue_update(sk_queue *q, sk_spod *p, int64_t now);
/* Points the entry at a new version without moving it (status-only updates). */
void sk_queue_replace(sk_queue *q, sk_spod *p);
void sk_queue_delete(sk_queue *q, const char *key);
/* Pops the best active pod, marking it in flight; when the active heap is
 * empty, the head of the rejected pods' backoff heap even though its backoff
 * has not expired (PopFromBackoffQ); NULL when both are empty. */
sk_spod *sk_queue_pop(sk_queue *q);
/* The in-flight pod was scheduled (assumed): forget it. */
void sk_queue_done(sk_queue *q, const char *key);
/* The in-flight pod did not fit, rejected by the SK_QH_* families in
 * rejected (0: unknown, every family): park it as unschedulable, or in
 * backoff when an event for one of those families arrived while it was
 * being scheduled. */
void sk_queue_unschedulable(sk_queue *q, const char *key, unsigned rejected, int64_t now);
/* The in-flight pod was rejected because another pod failed (a waiting
 * gang member whose sibling did not fit): that failure is the event that
 * may help it, so it goes to backoff as after a move during its attempt. */
void sk_queue_rejected(sk_queue *q, const char *key, unsigned rejected, int64_t now);
/* The in-flight pod failed for another reason (bind error): backoff. */
void sk_queue_backoff(sk_queue *q, const char *key, int64_t now);
/* A cluster event that may help pods rejected by the SK_QH_* families in
 * event: those unschedulable pods go to backoff (still backing off) or
 * active. */
void sk_queue_move(sk_queue *q, unsigned event, int64_t now);
/* sk_queue_move for every family. */
void sk_queue_move_all(sk_queue *q, int64_t now);
/* Moves one parked pod (backoff or unschedulable) to the active heap now,
 * as upstream's Activate does for gang siblings. */
void sk_queue_activate(sk_queue *q, const char *key);
/* Moves expired backoffs to active and stale unschedulables back. */
void sk_queue_flush(sk_queue *q, int64_t now);
/* Whether a parked pod is still backing off at now. */
int sk_queue_backing_off(const sk_queue *q, const sk_qpod *e, int64_t now);
/* Backoff duration after attempts failures. */
int64_t sk_queue_backoff_duration(const sk_queue *q, int attempts);
int sk_queue_count(const sk_queue *q, int where);
sk_qpod *sk_queue_get(const sk_queue *q, const char *key);

#endif
