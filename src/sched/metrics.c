/* The scheduler's metrics (upstream's pkg/scheduler/metrics): pending pods
 * per queue, attempts and their latency by result and profile, preemption
 * attempts, and the gangs' outcomes under a skiff_ name (upstream's
 * coscheduling plugin exports none). */
#include <pthread.h>
#include <string.h>

#include "sched/sched-int.h"
#include "util/metrics.h"
#include "util/util.h"

static struct {
	sk_metric_family *pending, *attempts, *duration, *preemptions, *gangs;
} sm;

static pthread_once_t once = PTHREAD_ONCE_INIT;

static void init_families(void)
{
	static const char *const queue_labels[] = {"queue", NULL};
	static const char *const attempt_labels[] = {"result", "profile", NULL};
	static const char *const gang_labels[] = {"result", NULL};
	sk_metrics *m = sk_metrics_default();

	sm.pending = sk_metrics_family(m, SK_METRIC_GAUGE, "scheduler_pending_pods",
				       "[STABLE] Number of pending pods, by the queue type. 'active' means number of "
				       "pods in activeQ; 'backoff' means number of pods in backoffQ; 'unschedulable' "
				       "means number of pods in unschedulablePods that the scheduler attempted to "
				       "schedule and failed; 'gated' is the number of unschedulable pods that the "
				       "scheduler never attempted to schedule because they are gated.",
				       NULL, queue_labels, NULL, 0);
	sm.attempts = sk_metrics_family(m, SK_METRIC_COUNTER, "scheduler_schedule_attempts_total",
					"[STABLE] Number of attempts to schedule pods, by the result. 'unschedulable' "
					"means a pod could not be scheduled, while 'error' means an internal scheduler "
					"problem.",
					NULL, attempt_labels, NULL, 0);
	sm.duration = sk_metrics_family(
		m, SK_METRIC_HISTOGRAM, "scheduler_scheduling_attempt_duration_seconds",
		"[STABLE] Scheduling attempt latency in seconds (scheduling algorithm + binding)", "seconds",
		attempt_labels, sk_metric_buckets_scheduler_attempt, sk_metric_buckets_scheduler_attempt_n);
	sm.preemptions = sk_metrics_family(m, SK_METRIC_COUNTER, "scheduler_preemption_attempts_total",
					   "[STABLE] Total preemption attempts in the cluster till now", NULL, NULL,
					   NULL, 0);
	sm.gangs = sk_metrics_family(m, SK_METRIC_COUNTER, "skiff_scheduler_podgroup_outcomes_total",
				     "Gang (PodGroup) scheduling outcomes: 'permitted' when the group's minMember "
				     "pods were reserved and bound together, 'rejected' when its reservations were "
				     "dropped because a member did not fit, 'timeout' when the group waited past its "
				     "scheduleTimeoutSeconds.",
				     NULL, gang_labels, NULL, 0);
}

void sk__sched_metrics_attempt(const char *result, const char *profile, int64_t t0_ns)
{
	const char *v[] = {result, profile};

	pthread_once(&once, init_families);
	sk_metric_add(sm.attempts, v, 1);
	sk_metric_observe(sm.duration, v, (double)(sk_mono_ns() - t0_ns) / 1e9);
}

void sk__sched_metrics_preemption(void)
{
	pthread_once(&once, init_families);
	sk_metric_add(sm.preemptions, NULL, 1);
}

void sk__sched_metrics_gang(const char *result)
{
	pthread_once(&once, init_families);
	sk_metric_inc1(sm.gangs, result);
}

static void count_gated(const char *key, void *val, void *ud)
{
	const sk_spod *p = val;

	(void)key;
	if (p->gated && !p->node_name && !p->terminal && !p->deleting)
		(*(size_t *)ud)++;
}

static void collect(void *arg)
{
	struct sk_sched *s = arg;
	size_t gated = 0;
	int active, backoff, unsched;

	pthread_mutex_lock(&s->mu);
	active = sk_queue_count(&s->queue, SK_Q_ACTIVE);
	backoff = sk_queue_count(&s->queue, SK_Q_BACKOFF);
	unsched = sk_queue_count(&s->queue, SK_Q_UNSCHED);
	sk__smap_each(&s->pods, count_gated, &gated);
	pthread_mutex_unlock(&s->mu);
	sk_metric_set1(sm.pending, "active", active);
	sk_metric_set1(sm.pending, "backoff", backoff);
	sk_metric_set1(sm.pending, "unschedulable", unsched);
	sk_metric_set1(sm.pending, "gated", (double)gated);
}

int sk__sched_metrics_start(struct sk_sched *s)
{
	pthread_once(&once, init_families);
	return sk_metrics_add_collector(sk_metrics_default(), collect, s);
}

void sk__sched_metrics_stop(int id) { sk_metrics_remove_collector(sk_metrics_default(), id); }
