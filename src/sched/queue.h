/* The scheduling queue (upstream PriorityQueue): an active heap ordered by
 * priority (higher first), then creation time, then name; a backoff heap
 * (1 s doubling per attempt up to 10 s, upstream podInitialBackoff /
 * podMaxBackoff); and the unschedulable set, whose pods go back on cluster
 * events that may help (sk_queue_move_all) and in any case after 5 minutes
 * (podMaxInUnschedulablePodsDuration, checked by sk_queue_flush, which the
 * loop calls about every second).
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

typedef struct sk_qpod {
	sk_spod *pod;
	int where;
	int slot;              /* index in the heap or unschedulable array */
	int attempts;
	int64_t seq;           /* insertion order, last tie-break */
	int64_t last_attempt;
	int64_t backoff_until;
	int64_t unsched_since;
	int64_t cycle;         /* scheduling cycle of its last pop */
} sk_qpod;

typedef struct sk_qheap {
	sk_qpod **a;
	int n, cap;
	int (*less)(const sk_qpod *, const sk_qpod *);
} sk_qheap;

typedef struct sk_queue {
	sk_smap map;           /* pod key -> sk_qpod */
	sk_qheap active, backoff;
	sk_qpod **unsched;
	int nunsched, cap_unsched;
	int64_t initial_backoff, max_backoff, max_unsched;
	int64_t cycle, move_cycle, seq;
} sk_queue;

#define SK_Q_INITIAL_BACKOFF (1000000000LL)
#define SK_Q_MAX_BACKOFF (10000000000LL)
#define SK_Q_MAX_UNSCHED (300000000000LL)

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
/* Pops the best active pod, marking it in flight; NULL when none. */
sk_spod *sk_queue_pop(sk_queue *q);
/* The in-flight pod was scheduled (assumed): forget it. */
void sk_queue_done(sk_queue *q, const char *key);
/* The in-flight pod did not fit: park it as unschedulable, or in backoff when
 * a move event arrived while it was being scheduled. */
void sk_queue_unschedulable(sk_queue *q, const char *key, int64_t now);
/* The in-flight pod failed for another reason (bind error): backoff. */
void sk_queue_backoff(sk_queue *q, const char *key, int64_t now);
/* A cluster event that may make pods fit: unschedulable -> backoff/active. */
void sk_queue_move_all(sk_queue *q, int64_t now);
/* Moves one parked pod (backoff or unschedulable) to the active heap now,
 * as upstream's Activate does for gang siblings. */
void sk_queue_activate(sk_queue *q, const char *key);
/* Moves expired backoffs to active and stale unschedulables back. */
void sk_queue_flush(sk_queue *q, int64_t now);
/* Backoff duration after attempts failures. */
int64_t sk_queue_backoff_duration(const sk_queue *q, int attempts);
int sk_queue_count(const sk_queue *q, int where);
sk_qpod *sk_queue_get(const sk_queue *q, const char *key);

#endif
