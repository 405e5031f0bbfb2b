/* skiff's scheduler: lists and watches nodes, pods, podgroups,
 * priorityclasses and runtimeclasses through an sk_client, schedules pending
 * pods whose spec.schedulerName names one of its profiles, and binds them.
 *
 * Threads: one reflector per resource (client/reflector.h), the
 * decision loop, and a small pool of API workers that bind, patch pod status
 * (PodScheduled=False/Unschedulable, nominatedNodeName), delete preemption
 * victims, write PodGroup status and record core/v1 Events ("Scheduled",
 * "FailedScheduling" aggregated by count, "Preempted"). A pod is assumed in
 * the cache the moment it is chosen, so the loop never waits for the API. */
#ifndef SK_SCHED_SCHED_H
#define SK_SCHED_SCHED_H

#include <stdint.h>

#include "client/client.h"
#include "sched/score.h"
#include "util/error.h"

typedef struct sk_sched sk_sched;

typedef struct sk_sched_options {
	const sk_sched_profile *profiles; /* NULL: one "default-scheduler" profile */
	int nprofiles;
	int workers;   /* API workers, default 16 (binds are store writes) */
	uint64_t seed; /* tie-break generator seed, 0 = fixed default */
	int disable_preemption;
	const char *instance; /* reportingInstance of events, default "skiff" */
} sk_sched_options;

typedef struct sk_sched_stats {
	uint64_t attempts, scheduled, bound, bind_errors, unschedulable, preemptions, events;
	uint64_t status_writes; /* PodScheduled=False patches of unschedulable pods */
	uint64_t event_writes;  /* Event creates and patches */
	int pending;            /* pods in the queue (any state) */
	int active;             /* pods ready to be tried now */
	int inflight_jobs;      /* API requests not yet done */
	int synced;             /* every watched collection listed at least once */
} sk_sched_stats;

/* Starts the scheduler on client c (borrowed: it must outlive the
 * scheduler). opts may be NULL; profiles are copied. Returns NULL with err
 * set on a bad option. Stop and free with sk_sched_stop. */
sk_sched *sk_sched_start(sk_client *c, const sk_sched_options *opts, sk_error_t *err);
/* Stops every thread (watches, loop, workers) and frees s. NULL is a no-op. */
void sk_sched_stop(sk_sched *s);
void sk_sched_get_stats(sk_sched *s, sk_sched_stats *st);
/* Waits until synced, nothing is active or in backoff and no API work is in
 * flight, or timeout_ms passes. Returns 0 when idle, -1 on timeout. For
 * tests and benchmarks. */
int sk_sched_wait_idle(sk_sched *s, int timeout_ms);

#endif
