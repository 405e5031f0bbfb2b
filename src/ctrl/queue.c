/* A work queue of object keys (after client-go's workqueue): a key waits at
 * most once, a key being processed is never handed to a second worker, and
 * keys can come back after a delay or with per-key exponential backoff.
 * A named queue exports client-go's workqueue metrics. */
#include <pthread.h>
#include <string.h>
#include <time.h>

#include "ctrl/ctrl-int.h"
#include "util/metrics.h"
#include "util/util.h"

static struct {
	sk_metric_family *depth, *adds, *queue_duration, *work_duration, *retries;
} wm;

static pthread_once_t wm_once = PTHREAD_ONCE_INIT;

static void wm_init(void)
{
	static const char *const labels[] = {"name", NULL};
	sk_metrics *m = sk_metrics_default();

	wm.depth = sk_metrics_family(m, SK_METRIC_GAUGE, "workqueue_depth", "[ALPHA] Current depth of workqueue", NULL,
				     labels, NULL, 0);
	wm.adds = sk_metrics_family(m, SK_METRIC_COUNTER, "workqueue_adds_total",
				    "[ALPHA] Total number of adds handled by workqueue", NULL, labels, NULL, 0);
	wm.queue_duration = sk_metrics_family(
		m, SK_METRIC_HISTOGRAM, "workqueue_queue_duration_seconds",
		"[ALPHA] How long in seconds an item stays in workqueue before being requested.", "seconds", labels,
		sk_metric_buckets_workqueue, sk_metric_buckets_workqueue_n);
	wm.work_duration = sk_metrics_family(m, SK_METRIC_HISTOGRAM, "workqueue_work_duration_seconds",
					     "[ALPHA] How long in seconds processing an item from workqueue takes.",
					     "seconds", labels, sk_metric_buckets_workqueue,
					     sk_metric_buckets_workqueue_n);
	wm.retries = sk_metrics_family(m, SK_METRIC_COUNTER, "workqueue_retries_total",
				       "[ALPHA] Total number of retries handled by workqueue", NULL, labels, NULL, 0);
}

typedef struct delayed {
	char *key;
	int64_t when_ms;
} delayed;

struct sk_queue {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	char **ready;
	size_t nready, cap;
	json_t *dirty; /* keys waiting or to re-add after processing */
	json_t *processing;
	json_t *failures; /* key -> count */
	delayed *later;
	size_t nlater, caplater;
	int shutdown;
	const char *name; /* borrowed; NULL: no metrics */
};

static int64_t now_ms(void) { return sk_mono_ns() / 1000000; }

sk_queue *sk__queue_new(const char *name)
{
	sk_queue *q = xzalloc(sizeof(*q));
	pthread_condattr_t ca;

	q->name = name;
	if (name) {
		pthread_once(&wm_once, wm_init);
		sk_metric_set1(wm.depth, name, 0);
	}
	pthread_mutex_init(&q->mu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&q->cv, &ca);
	pthread_condattr_destroy(&ca);
	q->dirty = json_object();
	q->processing = json_object();
	q->failures = json_object();
	return q;
}

void sk__queue_free(sk_queue *q)
{
	if (!q)
		return;
	for (size_t i = 0; i < q->nready; i++)
		free(q->ready[i]);
	for (size_t i = 0; i < q->nlater; i++)
		free(q->later[i].key);
	free(q->ready);
	free(q->later);
	json_decref(q->dirty);
	json_decref(q->processing);
	json_decref(q->failures);
	pthread_mutex_destroy(&q->mu);
	pthread_cond_destroy(&q->cv);
	free(q);
}

static void push_ready(sk_queue *q, const char *key)
{
	if (q->nready == q->cap) {
		q->cap = q->cap ? q->cap * 2 : 64;
		q->ready = xrealloc(q->ready, q->cap * sizeof(*q->ready));
	}
	q->ready[q->nready++] = xstrdup(key);
	if (q->name)
		sk_metric_set1(wm.depth, q->name, (double)q->nready);
}

static void add_locked(sk_queue *q, const char *key)
{
	if (q->shutdown || json_object_get(q->dirty, key))
		return;
	if (q->name)
		sk_metric_inc1(wm.adds, q->name);
	/* when it was added, for the queue duration */
	json_object_set_new(q->dirty, key, json_integer(sk_mono_ns()));
	if (json_object_get(q->processing, key))
		return;
	push_ready(q, key);
	pthread_cond_signal(&q->cv);
}

void sk__queue_add(sk_queue *q, const char *key)
{
	pthread_mutex_lock(&q->mu);
	add_locked(q, key);
	pthread_mutex_unlock(&q->mu);
}

void sk__queue_add_after(sk_queue *q, const char *key, int64_t delay_ms)
{
	int64_t when = now_ms() + delay_ms;

	if (delay_ms <= 0) {
		sk__queue_add(q, key);
		return;
	}
	pthread_mutex_lock(&q->mu);
	for (size_t i = 0; i < q->nlater; i++) {
		if (!strcmp(q->later[i].key, key)) {
			if (when < q->later[i].when_ms)
				q->later[i].when_ms = when;
			pthread_mutex_unlock(&q->mu);
			pthread_cond_broadcast(&q->cv);
			return;
		}
	}
	if (q->nlater == q->caplater) {
		q->caplater = q->caplater ? q->caplater * 2 : 16;
		q->later = xrealloc(q->later, q->caplater * sizeof(*q->later));
	}
	q->later[q->nlater].key = xstrdup(key);
	q->later[q->nlater].when_ms = when;
	q->nlater++;
	pthread_mutex_unlock(&q->mu);
	pthread_cond_broadcast(&q->cv);
}

int64_t sk__queue_backoff_ms(int n)
{
	int64_t d = 5;

	for (int i = 0; i < n && d < 60000; i++)
		d *= 2;
	return d > 60000 ? 60000 : d;
}

void sk__queue_add_rate_limited(sk_queue *q, const char *key)
{
	json_int_t n;

	pthread_mutex_lock(&q->mu);
	n = json_integer_value(json_object_get(q->failures, key));
	json_object_set_new(q->failures, key, json_integer(n + 1));
	pthread_mutex_unlock(&q->mu);
	if (q->name)
		sk_metric_inc1(wm.retries, q->name);
	sk__queue_add_after(q, key, sk__queue_backoff_ms((int)n));
}

void sk__queue_forget(sk_queue *q, const char *key)
{
	pthread_mutex_lock(&q->mu);
	json_object_del(q->failures, key);
	pthread_mutex_unlock(&q->mu);
}

/* Moves due delayed keys to ready; returns the earliest pending time or -1. */
static int64_t promote_due(sk_queue *q)
{
	int64_t now = now_ms(), next = -1;
	size_t i = 0;

	while (i < q->nlater) {
		if (q->later[i].when_ms <= now) {
			add_locked(q, q->later[i].key);
			free(q->later[i].key);
			q->later[i] = q->later[--q->nlater];
			continue;
		}
		if (next < 0 || q->later[i].when_ms < next)
			next = q->later[i].when_ms;
		i++;
	}
	return next;
}

char *sk__queue_get(sk_queue *q)
{
	char *key;

	pthread_mutex_lock(&q->mu);
	for (;;) {
		int64_t next;

		if (q->shutdown) {
			pthread_mutex_unlock(&q->mu);
			return NULL;
		}
		next = promote_due(q);
		if (q->nready)
			break;
		if (next < 0) {
			pthread_cond_wait(&q->cv, &q->mu);
		} else {
			struct timespec ts = {.tv_sec = next / 1000, .tv_nsec = (next % 1000) * 1000000L};

			pthread_cond_timedwait(&q->cv, &q->mu, &ts);
		}
	}
	key = q->ready[0];
	memmove(q->ready, q->ready + 1, (q->nready - 1) * sizeof(*q->ready));
	q->nready--;
	if (q->name) {
		int64_t now = sk_mono_ns(), added = json_integer_value(json_object_get(q->dirty, key));
		const char *v[] = {q->name};

		sk_metric_set1(wm.depth, q->name, (double)q->nready);
		if (added)
			sk_metric_observe(wm.queue_duration, v, (double)(now - added) / 1e9);
	}
	json_object_del(q->dirty, key);
	json_object_set_new(q->processing, key, json_integer(sk_mono_ns()));
	pthread_mutex_unlock(&q->mu);
	return key;
}

void sk__queue_done(sk_queue *q, const char *key)
{
	pthread_mutex_lock(&q->mu);
	if (q->name) {
		int64_t started = json_integer_value(json_object_get(q->processing, key));
		const char *v[] = {q->name};

		if (started)
			sk_metric_observe(wm.work_duration, v, (double)(sk_mono_ns() - started) / 1e9);
	}
	json_object_del(q->processing, key);
	if (json_object_get(q->dirty, key) && !q->shutdown) {
		push_ready(q, key);
		pthread_cond_signal(&q->cv);
	}
	pthread_mutex_unlock(&q->mu);
}

void sk__queue_shutdown(sk_queue *q)
{
	pthread_mutex_lock(&q->mu);
	q->shutdown = 1;
	pthread_cond_broadcast(&q->cv);
	pthread_mutex_unlock(&q->mu);
}
