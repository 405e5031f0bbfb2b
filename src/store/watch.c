/* Recent events and watchers. Watchers are grouped by their prefix, so an
 * event costs one prefix comparison per distinct prefix rather than one per
 * watcher (a thousand informers usually share a handful of prefixes). The
 * caller serialises all of this with its watch mutex. */
#include <string.h>

#include "store/store-int.h"
#include "util/util.h"

void sk__hub_init(sk__hub *h, size_t cap)
{
	memset(h, 0, sizeof(*h));
	h->cap = cap ? cap : 1;
	h->ring = xzalloc(h->cap * sizeof(h->ring[0]));
}

static void event_release(sk__event *ev)
{
	sk__blob_unref(ev->key);
	sk__blob_unref(ev->val);
	sk__blob_unref(ev->prev);
	memset(ev, 0, sizeof(*ev));
}

void sk__hub_release(sk__hub *h)
{
	sk__wgroup *g, *gnext;

	for (size_t i = 0; i < h->n; i++)
		event_release(&h->ring[(h->start + i) % h->cap]);
	free(h->ring);
	for (g = h->groups; g; g = gnext) {
		gnext = g->next;
		free(g->prefix);
		free(g);
	}
	memset(h, 0, sizeof(*h));
}

void sk__watch_deliver(sk_store_watch *w, const sk_store_event *ev, int64_t rev)
{
	if (rev <= w->from_rev || strncmp(ev->kv->key, w->prefix, w->plen) != 0)
		return;
	w->cb(ev, w->ud);
}

/* Builds the public view of ev into *out, using kv and prev as storage. */
static void event_view(const sk__event *ev, sk_store_event *out, sk_store_kv *kv, sk_store_kv *prev)
{
	kv->key = ev->key->data;
	kv->value = ev->val->data;
	kv->len = ev->val->len;
	kv->create_rev = ev->create_rev;
	kv->mod_rev = ev->rev;
	out->type = ev->type;
	out->kv = kv;
	out->prev = NULL;
	out->flush_follows = 0;
	if (ev->prev) {
		prev->key = ev->key->data;
		prev->value = ev->prev->data;
		prev->len = ev->prev->len;
		prev->create_rev = ev->prev_create_rev;
		prev->mod_rev = ev->prev_mod_rev;
		out->prev = prev;
	}
}

void sk__event_deliver(sk_store_watch *w, const sk__event *ev)
{
	sk_store_event pub;
	sk_store_kv kv, prev;

	event_view(ev, &pub, &kv, &prev);
	sk__watch_deliver(w, &pub, ev->rev);
}

/* Hands ev to each watcher of its key, then calls the flush of those that
 * asked for one: their consumers wake once the event is queued for all. */
static void dispatch(sk__hub *h, const sk__event *ev)
{
	sk_store_event pub;
	sk_store_kv kv, prev;
	int flushes = 0;

	if (!h->groups)
		return;
	event_view(ev, &pub, &kv, &prev);
	for (sk__wgroup *g = h->groups; g; g = g->next) {
		if (ev->key->len < g->plen || memcmp(ev->key->data, g->prefix, g->plen) != 0)
			continue;
		for (sk_store_watch *w = g->head; w; w = w->next) {
			if (ev->rev <= w->from_rev)
				continue;
			pub.flush_follows = w->flush_due = __atomic_load_n(&w->flush, __ATOMIC_ACQUIRE) != NULL;
			flushes |= w->flush_due;
			w->cb(&pub, w->ud);
		}
	}
	if (!flushes)
		return;
	for (sk__wgroup *g = h->groups; g; g = g->next) {
		if (ev->key->len < g->plen || memcmp(ev->key->data, g->prefix, g->plen) != 0)
			continue;
		for (sk_store_watch *w = g->head; w; w = w->next) {
			if (!w->flush_due)
				continue;
			w->flush_due = 0;
			w->flush(w->ud);
		}
	}
}

void sk_store_watch_set_flush(sk_store_watch *w, void (*flush)(void *ud))
{
	__atomic_store_n(&w->flush, flush, __ATOMIC_RELEASE);
}

void sk__hub_push(sk__hub *h, sk__event *ev)
{
	sk__event *slot;

	if (h->n == h->cap) {
		event_release(&h->ring[h->start]);
		h->start = (h->start + 1) % h->cap;
		h->n--;
	}
	slot = &h->ring[(h->start + h->n) % h->cap];
	*slot = *ev;
	memset(ev, 0, sizeof(*ev));
	h->n++;
	dispatch(h, slot);
}

int sk__hub_replay(sk__hub *h, sk_store_watch *w, int64_t from_rev)
{
	sk_store_event pub;
	sk_store_kv kv, prev;

	if (h->n == 0 || h->ring[h->start].rev > from_rev + 1)
		return -1;
	for (size_t i = 0; i < h->n; i++) {
		const sk__event *ev = &h->ring[(h->start + i) % h->cap];

		if (ev->rev <= from_rev)
			continue;
		event_view(ev, &pub, &kv, &prev);
		sk__watch_deliver(w, &pub, ev->rev);
	}
	return 0;
}

void sk__hub_add(sk__hub *h, sk_store_watch *w)
{
	sk__wgroup *g;

	for (g = h->groups; g; g = g->next)
		if (g->plen == w->plen && memcmp(g->prefix, w->prefix, w->plen) == 0)
			break;
	if (!g) {
		g = xzalloc(sizeof(*g));
		g->prefix = xstrdup(w->prefix);
		g->plen = w->plen;
		g->next = h->groups;
		h->groups = g;
	}
	w->group = g;
	w->prev = NULL;
	w->next = g->head;
	if (g->head)
		g->head->prev = w;
	g->head = w;
	h->watchers++;
}

void sk__hub_remove(sk__hub *h, sk_store_watch *w)
{
	sk__wgroup *g = w->group, **pg;

	if (!g)
		return;
	if (w->prev)
		w->prev->next = w->next;
	else
		g->head = w->next;
	if (w->next)
		w->next->prev = w->prev;
	w->group = NULL;
	h->watchers--;
	if (g->head)
		return;
	for (pg = &h->groups; *pg; pg = &(*pg)->next) {
		if (*pg == g) {
			*pg = g->next;
			break;
		}
	}
	free(g->prefix);
	free(g);
}

sk_store_watch *sk__watch_new(const char *prefix, int64_t from_rev, sk_store_watch_cb cb, void *ud, sk_error_t *err)
{
	sk_store_watch *w;

	if (from_rev < 0 || !cb) {
		sk_error_set(err, SK_EINVALID, "store: bad watch of \"%s\"", prefix);
		return NULL;
	}
	w = xzalloc(sizeof(*w));
	w->prefix = xstrdup(prefix);
	w->plen = strlen(prefix);
	w->cb = cb;
	w->ud = ud;
	return w;
}

void sk__watch_free(sk_store_watch *w)
{
	if (!w)
		return;
	free(w->prefix);
	free(w);
}
