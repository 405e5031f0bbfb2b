#include "sched/queue.h"

#include <string.h>

#include "util/util.h"

/* ---- heap ---- */

static void hswap(sk_qheap *h, int i, int j)
{
	sk_qpod *t = h->a[i];

	h->a[i] = h->a[j];
	h->a[j] = t;
	h->a[i]->slot = i;
	h->a[j]->slot = j;
}

static void hup(sk_qheap *h, int i)
{
	while (i > 0) {
		int p = (i - 1) / 2;

		if (!h->less(h->a[i], h->a[p]))
			break;
		hswap(h, i, p);
		i = p;
	}
}

static void hdown(sk_qheap *h, int i)
{
	for (;;) {
		int l = 2 * i + 1, r = l + 1, m = i;

		if (l < h->n && h->less(h->a[l], h->a[m]))
			m = l;
		if (r < h->n && h->less(h->a[r], h->a[m]))
			m = r;
		if (m == i)
			return;
		hswap(h, i, m);
		i = m;
	}
}

static void hpush(sk_qheap *h, sk_qpod *e)
{
	if (h->n == h->cap) {
		h->cap = h->cap ? h->cap * 2 : 64;
		h->a = xrealloc(h->a, h->cap * sizeof(*h->a));
	}
	e->slot = h->n;
	h->a[h->n++] = e;
	hup(h, e->slot);
}

static void hremove(sk_qheap *h, int i)
{
	h->n--;
	if (i != h->n) {
		h->a[i] = h->a[h->n];
		h->a[i]->slot = i;
		hdown(h, i);
		hup(h, i);
	}
}

static int active_less(const sk_qpod *a, const sk_qpod *b)
{
	if (a->pod->priority != b->pod->priority)
		return a->pod->priority > b->pod->priority;
	if (a->pod->created_ns != b->pod->created_ns)
		return a->pod->created_ns < b->pod->created_ns;
	return a->seq < b->seq;
}

/* Rejected pods: by backoff window, then as the active heap (upstream
 * lessBackoffCompletedWithPriority). */
static int backoff_less(const sk_qpod *a, const sk_qpod *b)
{
	if (a->backoff_until != b->backoff_until)
		return a->backoff_until < b->backoff_until;
	return active_less(a, b);
}

static int error_backoff_less(const sk_qpod *a, const sk_qpod *b) { return a->backoff_until < b->backoff_until; }

/* ---- queue ---- */

void sk_queue_init(sk_queue *q)
{
	memset(q, 0, sizeof(*q));
	sk__smap_init(&q->map);
	q->active.less = active_less;
	q->backoff.less = backoff_less;
	q->error_backoff.less = error_backoff_less;
	q->initial_backoff = SK_Q_INITIAL_BACKOFF;
	q->max_backoff = SK_Q_MAX_BACKOFF;
	q->max_unsched = SK_Q_MAX_UNSCHED;
}

static void entry_free(sk_qpod *e)
{
	free(e->cond_msg);
	free(e->cond_nominated);
	free(e);
}

static void free_entry(const char *key, void *val, void *ud) { entry_free(val); }

void sk_queue_release(sk_queue *q)
{
	sk__smap_each(&q->map, free_entry, NULL);
	sk__smap_release(&q->map);
	free(q->active.a);
	free(q->backoff.a);
	free(q->error_backoff.a);
	free(q->unsched);
	memset(q, 0, sizeof(*q));
}

static void unlink_entry(sk_queue *q, sk_qpod *e)
{
	switch (e->where) {
	case SK_Q_ACTIVE:
		hremove(&q->active, e->slot);
		break;
	case SK_Q_BACKOFF:
		hremove(e->error ? &q->error_backoff : &q->backoff, e->slot);
		break;
	case SK_Q_UNSCHED:
		q->unsched[e->slot] = q->unsched[--q->nunsched];
		q->unsched[e->slot]->slot = e->slot;
		break;
	}
	e->where = SK_Q_NONE;
	e->slot = -1;
}

static void to_active(sk_queue *q, sk_qpod *e)
{
	unlink_entry(q, e);
	e->where = SK_Q_ACTIVE;
	hpush(&q->active, e);
}

static void to_backoff(sk_queue *q, sk_qpod *e)
{
	unlink_entry(q, e);
	e->where = SK_Q_BACKOFF;
	hpush(e->error ? &q->error_backoff : &q->backoff, e);
}

static void to_unsched(sk_queue *q, sk_qpod *e, int64_t now)
{
	unlink_entry(q, e);
	if (q->nunsched == q->cap_unsched) {
		q->cap_unsched = q->cap_unsched ? q->cap_unsched * 2 : 64;
		q->unsched = xrealloc(q->unsched, q->cap_unsched * sizeof(*q->unsched));
	}
	e->where = SK_Q_UNSCHED;
	e->slot = q->nunsched;
	e->unsched_since = now;
	q->unsched[q->nunsched++] = e;
}

int64_t sk_queue_backoff_duration(const sk_queue *q, int attempts)
{
	int64_t d = q->initial_backoff;

	for (int i = 1; i < attempts; i++) {
		d *= 2;
		if (d > q->max_backoff)
			return q->max_backoff;
	}
	return d;
}

void sk_queue_add(sk_queue *q, sk_spod *p)
{
	sk_qpod *e = sk__smap_get(&q->map, p->key);

	if (e) {
		e->pod = p;
		return;
	}
	e = xzalloc(sizeof(*e));
	e->pod = p;
	e->slot = -1;
	e->seq = q->seq++;
	sk__smap_put(&q->map, p->key, e);
	to_active(q, e);
}

static int64_t window(int64_t t) { return t - t % SK_Q_WINDOW; }

/* Rejected pods back off until the end of their expiry's window (upstream
 * isPodBackingoff with the ordering windows); errors until the expiry. */
int sk_queue_backing_off(const sk_queue *q, const sk_qpod *e, int64_t now)
{
	if (e->error)
		return e->backoff_until > now;
	return e->backoff_until >= window(now);
}

/* Moving out of the unschedulable set: backoff while still backing off. */
static void move_out(sk_queue *q, sk_qpod *e, int64_t now)
{
	if (sk_queue_backing_off(q, e, now))
		to_backoff(q, e);
	else
		to_active(q, e);
}

/* A new version of the pod may sort differently in the heaps that compare
 * pods: the active one and the rejected pods' backoff. */
static void reorder(sk_queue *q, sk_qpod *e)
{
	sk_qheap *h;

	if (e->where == SK_Q_ACTIVE)
		h = &q->active;
	else if (e->where == SK_Q_BACKOFF && !e->error)
		h = &q->backoff;
	else
		return;
	hdown(h, e->slot);
	hup(h, e->slot);
}

void sk_queue_update(sk_queue *q, sk_spod *p, int64_t now)
{
	sk_qpod *e = sk__smap_get(&q->map, p->key);

	if (!e)
		return;
	e->pod = p;
	if (e->where == SK_Q_UNSCHED)
		move_out(q, e, now);
	else
		reorder(q, e);
}

void sk_queue_replace(sk_queue *q, sk_spod *p)
{
	sk_qpod *e = sk__smap_get(&q->map, p->key);

	if (!e)
		return;
	e->pod = p;
	reorder(q, e);
}

void sk_queue_delete(sk_queue *q, const char *key)
{
	sk_qpod *e = sk__smap_del(&q->map, key);

	if (!e)
		return;
	unlink_entry(q, e);
	entry_free(e);
}

sk_spod *sk_queue_pop(sk_queue *q)
{
	sk_qpod *e;

	if (q->active.n)
		e = q->active.a[0];
	else if (q->backoff.n)
		e = q->backoff.a[0];
	else
		return NULL;
	unlink_entry(q, e);
	e->where = SK_Q_INFLIGHT;
	e->cycle = ++q->cycle;
	return e->pod;
}

void sk_queue_done(sk_queue *q, const char *key) { sk_queue_delete(q, key); }

/* Only for an in-flight entry (in no heap): error and backoff_until are
 * heap keys. */
static void failed(sk_queue *q, sk_qpod *e, int error, unsigned rejected, int64_t now)
{
	e->attempts++;
	e->last_attempt = now;
	e->error = error;
	e->rejected = rejected;
	e->backoff_until = now + sk_queue_backoff_duration(q, e->attempts);
	if (!error)
		e->backoff_until = window(e->backoff_until);
}

/* An event for one of the families that rejected e arrived since its pop. */
static int moved_since_pop(const sk_queue *q, const sk_qpod *e)
{
	for (int i = 0; i < SK_QH_NFAMILIES; i++)
		if ((e->rejected & (1u << i)) && q->move_cycle[i] >= e->cycle)
			return 1;
	return 0;
}

/* The entry of a pod the filters rejected, recorded as failed; NULL when
 * the pod is no longer queued. */
static sk_qpod *reject(sk_queue *q, const char *key, unsigned rejected, int64_t now)
{
	sk_qpod *e = sk__smap_get(&q->map, key);

	if (e) {
		unlink_entry(q, e);
		failed(q, e, 0, rejected & SK_QH_ALL ? rejected & SK_QH_ALL : SK_QH_ALL, now);
	}
	return e;
}

void sk_queue_unschedulable(sk_queue *q, const char *key, unsigned rejected, int64_t now)
{
	sk_qpod *e = reject(q, key, rejected, now);

	if (!e)
		return;
	if (moved_since_pop(q, e))
		to_backoff(q, e);
	else
		to_unsched(q, e, now);
}

void sk_queue_rejected(sk_queue *q, const char *key, unsigned rejected, int64_t now)
{
	sk_qpod *e = reject(q, key, rejected, now);

	if (e)
		to_backoff(q, e);
}

void sk_queue_backoff(sk_queue *q, const char *key, int64_t now)
{
	sk_qpod *e = sk__smap_get(&q->map, key);

	if (!e)
		return;
	unlink_entry(q, e);
	failed(q, e, 1, 0, now);
	to_backoff(q, e);
}

void sk_queue_move(sk_queue *q, unsigned event, int64_t now)
{
	/* move_out swaps the last entry into slot i: one already visited */
	for (int i = q->nunsched - 1; i >= 0; i--) {
		sk_qpod *e = q->unsched[i];

		if (e->rejected & event)
			move_out(q, e, now);
	}
	for (int i = 0; i < SK_QH_NFAMILIES; i++)
		if (event & (1u << i))
			q->move_cycle[i] = q->cycle;
}

void sk_queue_move_all(sk_queue *q, int64_t now) { sk_queue_move(q, SK_QH_ALL, now); }

void sk_queue_activate(sk_queue *q, const char *key)
{
	sk_qpod *e = sk__smap_get(&q->map, key);

	if (e && (e->where == SK_Q_UNSCHED || e->where == SK_Q_BACKOFF))
		to_active(q, e);
}

void sk_queue_flush(sk_queue *q, int64_t now)
{
	while (q->backoff.n && !sk_queue_backing_off(q, q->backoff.a[0], now))
		to_active(q, q->backoff.a[0]);
	while (q->error_backoff.n && !sk_queue_backing_off(q, q->error_backoff.a[0], now))
		to_active(q, q->error_backoff.a[0]);
	for (int i = q->nunsched - 1; i >= 0; i--) {
		sk_qpod *e = q->unsched[i];

		if (now - e->unsched_since > q->max_unsched)
			move_out(q, e, now);
	}
}

int sk_queue_count(const sk_queue *q, int where)
{
	switch (where) {
	case SK_Q_ACTIVE:
		return q->active.n;
	case SK_Q_BACKOFF:
		return q->backoff.n + q->error_backoff.n;
	case SK_Q_UNSCHED:
		return q->nunsched;
	default:
		return (int)q->map.n;
	}
}

sk_qpod *sk_queue_get(const sk_queue *q, const char *key) { return sk__smap_get(&q->map, key); }
