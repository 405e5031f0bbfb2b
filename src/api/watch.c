/* Watch: events are fed from the store's write path into a per-watch queue
 * that the HTTP layer (or the in-process client) drains. */
#include <semaphore.h>
#include <string.h>

#include "api/prometheus.h"
#include "api/api-int.h"
#include "api/crd.h"
#include "kube/selector.h"
#include "util/json.h"
#include "util/util.h"

#define MAX_QUEUED_BYTES (64u << 20)
/* timeoutSeconds beyond ten years is ten years: the deadline is monotonic
 * nanoseconds in an int64 */
#define WATCH_TIMEOUT_MAX_S (10LL * 365 * 86400)

/* One encoded event line, shared by every watcher that gets it. */
typedef struct wline {
	int ref;       /* atomic */
	json_t *event; /* decoded once for in-process watchers (atomic pointer) */
	size_t len;
	char data[]; /* {"type":…,"object":…}\n */
} wline;

typedef struct wev {
	struct wev *next;
	wline *l;
} wev;

static wline *wline_new(const char *type, const char *obj, size_t olen)
{
	char head[64];
	int k = snprintf(head, sizeof(head), "{\"type\":\"%s\",\"object\":", type);
	wline *l = xmalloc(sizeof(*l) + (size_t)k + olen + 3);

	l->ref = 1;
	l->event = NULL;
	memcpy(l->data, head, (size_t)k);
	memcpy(l->data + k, obj, olen);
	memcpy(l->data + k + olen, "}\n", 3);
	l->len = (size_t)k + olen + 2;
	return l;
}

static void wline_unref(wline *l)
{
	int r;

	if (!l)
		return;
	r = __atomic_sub_fetch(&l->ref, 1, __ATOMIC_ACQ_REL);
	if (r < 0)
		abort();
	if (r == 0) {
		json_decref(l->event);
		free(l);
	}
}

/* The decoded event, parsed by the first in-process watcher that needs it
 * and shared (read-only) by the others. Watchers of one event usually ask at
 * the same moment: a lock (one of a few, by line) lets only one of them parse. */
static json_t *wline_event(wline *l)
{
	static pthread_mutex_t locks[16] = {[0 ... 15] = PTHREAD_MUTEX_INITIALIZER};
	pthread_mutex_t *mu = &locks[((uintptr_t)l >> 6) % 16];
	json_t *ev = __atomic_load_n(&l->event, __ATOMIC_ACQUIRE);

	if (ev)
		return ev;
	pthread_mutex_lock(mu);
	ev = l->event;
	if (!ev) {
		ev = sk_json_loadb(l->data, l->len);
		__atomic_store_n(&l->event, ev, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(mu);
	return ev;
}

struct sk_api_watch {
	sk_api *api;
	const sk_api_resource *res;
	sk_kube_label_selector *labels;
	sk_kube_field_selector *fields;
	char *node_match; /* `"nodeName":"X"` fast path for spec.nodeName=X */
	int table;        /* 0: objects; 1: Tables of metadata; 2: Tables with objects */
	sk_store_watch *sw;
	pthread_mutex_t mu;
	sem_t wake; /* posted when an event arrives for a sleeping consumer */
	wev *head, *tail;
	size_t head_off; /* bytes of the head line sk_api_watch_read already gave out */
	size_t queued;   /* bytes queued and not yet given out */
	int ended;
	int waiting;    /* the consumer sleeps on wake (set and cleared under mu) */
	int parked;     /* an event-loop consumer waits for wake_fn (set and cleared under mu) */
	int flush_wake; /* on_flush wakes the consumer (set and cleared under mu) */
	void (*wake_fn)(void *);
	void *wake_arg;
	int bookmarks;
	int64_t last_rev;
	int64_t deadline_ns, next_bookmark_ns;
	int counted;       /* in apiserver_longrunning_requests: 1 namespaced, 2 cluster-wide */
	json_t *audit_end; /* the audit event written when it ends, or NULL */
};

static void push_raw(sk_api_watch *w, const char *type, const char *obj, size_t olen);
static int64_t next_bookmark(const sk_api_watch *w, int64_t now);

/* Events carry Table rows when the watch asked for as=Table. */
static void push_line(sk_api_watch *w, const char *type, const char *obj, size_t olen)
{
	cleanup_json json_t *o = NULL, *items = NULL, *meta = NULL, *t = NULL;
	cleanup_free char *s = NULL;

	if (!w->table || !strcmp(type, "ERROR") || !strcmp(type, "BOOKMARK")) {
		push_raw(w, type, obj, olen);
		return;
	}
	o = sk_json_loadb(obj, olen);
	if (!o)
		return;
	items = json_pack("[O]", o);
	meta = json_pack("{s:O}", "resourceVersion",
			 json_object_get(json_object_get(o, "metadata"), "resourceVersion"));
	t = sk__to_table(w->res, items, meta, w->table == 2);
	s = json_dumps(t, JSON_COMPACT);
	push_raw(w, type, s, strlen(s));
}

static void wev_free(wev *e);

/* Ends the watch and frees what it holds; the consumer sees the end once it
 * has the rest of a line it began to read (a stream never ends mid-event). */
static void drop_queue(sk_api_watch *w)
{
	wev *keep = w->head_off ? w->head : NULL, *e = keep ? keep->next : w->head;

	while (e) {
		wev *next = e->next;

		wev_free(e);
		e = next;
	}
	if (keep) {
		keep->next = NULL;
		w->queued = keep->l->len - w->head_off;
	} else {
		w->queued = 0;
	}
	w->head = w->tail = keep;
	w->ended = 1;
}

/* Queues l (taking a reference). Called with w->mu held. */
static void push_wline(sk_api_watch *w, wline *l)
{
	wev *e;

	if (w->ended)
		return;
	e = xmalloc(sizeof(*e));
	__atomic_add_fetch(&l->ref, 1, __ATOMIC_RELAXED);
	e->l = l;
	e->next = NULL;
	if (w->tail)
		w->tail->next = e;
	else
		w->head = e;
	w->tail = e;
	w->queued += l->len;
	if (w->queued > MAX_QUEUED_BYTES)
		drop_queue(w); /* a consumer this slow is closed and relists */
}

static void push_raw(sk_api_watch *w, const char *type, const char *obj, size_t olen)
{
	wline *l = wline_new(type, obj, olen);

	push_wline(w, l);
	wline_unref(l);
}

static void wev_free(wev *e)
{
	wline_unref(e->l);
	free(e);
}

static int matches(sk_api_watch *w, const sk_store_kv *kv)
{
	cleanup_json json_t *o = NULL;
	int ok = 1;

	if (!kv)
		return 0;
	if (w->node_match && !memmem(kv->value, kv->len, w->node_match, strlen(w->node_match)))
		return 0;
	if (!w->labels && !w->fields)
		return 1;
	o = sk_json_loadb(kv->value, kv->len);
	if (!o)
		return 0;
	if (w->labels)
		ok = sk_kube_label_selector_match(w->labels, json_object_get(json_object_get(o, "metadata"), "labels"));
	if (ok && w->fields)
		ok = sk_kube_field_selector_match(w->fields, o);
	return ok;
}

/* Store callbacks for one write run on the store's writer thread, one
 * watcher after the other: the encoded line is made once and shared. The
 * per-thread cache keeps a reference until the next event, and a key
 * destructor drops it when the writer thread exits. */
typedef struct line_cache {
	int64_t rev;
	const char *type;
	const sk_store_kv *src;
	wline *l;
} line_cache;

static pthread_key_t cache_key;
static pthread_once_t cache_once = PTHREAD_ONCE_INIT;

static void cache_free(void *p)
{
	line_cache *c = p;

	wline_unref(c->l);
	free(c);
}

static void cache_init(void) { pthread_key_create(&cache_key, cache_free); }

static wline *shared_line(const char *type, const sk_store_kv *src, int64_t rev)
{
	line_cache *c;
	size_t len;
	char *val;

	pthread_once(&cache_once, cache_init);
	c = pthread_getspecific(cache_key);
	if (!c) {
		c = xzalloc(sizeof(*c));
		pthread_setspecific(cache_key, c);
	}
	if (c->l && c->rev == rev && c->type == type && c->src == src)
		return c->l;
	wline_unref(c->l);
	val = sk__obj_splice_rv(src->value, src->len, rev, &len);
	c->l = wline_new(type, val, len);
	c->rev = rev;
	c->type = type;
	c->src = src;
	free(val);
	return c->l;
}

/* Called with w->mu held. Wakes the consumer only if it sleeps, once per
 * burst, and after the unlock, so that it does not wake into a held mutex.
 * A semaphore rather than a condition variable: a thread returning from
 * pthread_cond_wait holds its mutex marked contended, so its next unlock
 * made a futex syscall for nobody, once per event and watcher (a sixth of
 * the server's CPU with 1,000 watchers). */
static void unlock_and_wake(sk_api_watch *w)
{
	int wake = w->waiting, fire = w->parked;

	w->waiting = 0;
	w->parked = 0;
	pthread_mutex_unlock(&w->mu);
	if (wake)
		sem_post(&w->wake);
	if (fire)
		w->wake_fn(w->wake_arg);
}

static void on_event(const sk_store_event *ev, void *ud)
{
	sk_api_watch *w = ud;
	const sk_store_kv *src = ev->kv;
	const char *type;
	int now, before;
	size_t len;
	char *val;

	now = ev->type != SK_STORE_DELETE && matches(w, ev->kv);
	before = ev->prev ? matches(w, ev->prev) : 0;
	if (ev->type == SK_STORE_DELETE) {
		before = matches(w, ev->kv);
		if (!before)
			goto skip;
		type = "DELETED";
	} else if (now && before) {
		type = "MODIFIED";
	} else if (now) {
		type = "ADDED";
	} else if (before) {
		type = "DELETED";
		src = ev->prev;
	} else {
		goto skip;
	}
	if (w->table || sk__obj_per_version(w->res)) {
		/* a custom kind's text may differ per served version: not shared */
		val = sk__obj_splice_rv(src->value, src->len, ev->kv->mod_rev, &len);
		val = sk__obj_text_for(w->res, val, &len);
		pthread_mutex_lock(&w->mu);
		if (!w->ended)
			push_line(w, type, val, len);
		free(val);
	} else {
		wline *l = shared_line(type, src, ev->kv->mod_rev);

		pthread_mutex_lock(&w->mu);
		if (!w->ended)
			push_wline(w, l);
	}
	w->last_rev = ev->kv->mod_rev;
	if (ev->flush_follows) {
		w->flush_wake = 1; /* on_flush wakes the consumer */
		pthread_mutex_unlock(&w->mu);
	} else
		unlock_and_wake(w);
	return;
skip:
	pthread_mutex_lock(&w->mu);
	w->last_rev = ev->kv->mod_rev;
	pthread_mutex_unlock(&w->mu);
}

/* After the event went to every watcher (sk_store_watch_set_flush): wakes
 * this one's consumer if it sleeps. The resumes of 1,000 parked connections
 * come one after the other instead of between the queueing of each, so an
 * event loop wakes to many connections ready at once. */
static void on_flush(void *ud)
{
	sk_api_watch *w = ud;

	pthread_mutex_lock(&w->mu);
	if (!w->flush_wake) {
		pthread_mutex_unlock(&w->mu);
		return;
	}
	w->flush_wake = 0;
	unlock_and_wake(w);
}

static void push_error(sk_api_watch *w, int code, const char *reason, const char *msg)
{
	cleanup_json json_t *st = json_pack("{s:s, s:s, s:{}, s:s, s:s, s:s, s:i}", "kind", "Status", "apiVersion",
					    "v1", "metadata", "status", "Failure", "message", msg, "reason", reason,
					    "code", code);
	cleanup_free char *s = json_dumps(st, JSON_COMPACT);

	pthread_mutex_lock(&w->mu);
	push_raw(w, "ERROR", s, strlen(s));
	w->ended = 1;
	unlock_and_wake(w);
}

static void send_initial(sk_api_watch *w, const char *prefix, int64_t *rev)
{
	sk_store_list l = {0};
	sk_error_t err = {0};

	if (sk_store_range(w->api->store, prefix, NULL, 0, 0, &l, &err) < 0)
		return;
	*rev = l.rev;
	pthread_mutex_lock(&w->mu);
	for (size_t i = 0; i < l.n; i++) {
		size_t len;
		char *val;

		if (!matches(w, &l.items[i]))
			continue;
		val = sk__obj_splice_rv(l.items[i].value, l.items[i].len, l.items[i].mod_rev, &len);
		val = sk__obj_text_for(w->res, val, &len);
		push_line(w, "ADDED", val, len);
		free(val);
	}
	w->last_rev = l.rev;
	pthread_mutex_unlock(&w->mu);
	sk_store_list_release(&l);
}

static int watch_filters(sk_api_watch *w, const sk_api_request *req, sk_error_t *err)
{
	const char *ls = sk__arg(req, "labelSelector"), *fs = sk__arg(req, "fieldSelector");
	const char *v;

	if (ls && *ls && !(w->labels = sk_kube_label_selector_parse(ls, err)))
		return -1;
	if (fs && *fs) {
		w->fields = sk_kube_field_selector_parse(fs, err);
		if (!w->fields ||
		    (w->res->custom ? sk__custom_field_check(w->res, w->fields, err)
				    : sk_kube_field_selector_check(
					      w->fields, w->res->ops ? w->res->ops->field_labels : NULL, err)) < 0)
			return -1;
		if (!strcmp(w->res->kind, "Pod") && sk_kube_field_selector_single_eq(w->fields, "spec.nodeName", &v) &&
		    *v)
			w->node_match = xasprintf("\"nodeName\":\"%s\"", v);
	}
	return 0;
}

void sk__handle_watch(sk_api *api, const sk_api_request *req, const sk_path *p, sk_api_response *resp)
{
	sk_api_watch *w = xzalloc(sizeof(*w));
	const char *rvs = sk__arg(req, "resourceVersion");
	cleanup_free char *prefix = sk__obj_prefix(p->res, p->all_namespaces ? NULL : p->ns);
	sk_error_t err = {0};
	int64_t from = 0, timeout = 0, limit;

	w->api = api;
	w->res = p->res;
	pthread_mutex_init(&w->mu, NULL);
	sem_init(&w->wake, 0, 0);
	if (sk__arg_int64(req, "timeoutSeconds", &timeout, &err) < 0 || sk__arg_int64(req, "limit", &limit, &err) < 0 ||
	    sk__rv_parse(rvs, &from, &err) < 0 || watch_filters(w, req, &err) < 0) {
		sk_api_watch_free(w);
		sk__reply_error(resp, &err, p->res, NULL);
		return;
	}
	if (timeout <= 0)
		timeout = 1800;
	if (timeout > WATCH_TIMEOUT_MAX_S)
		timeout = WATCH_TIMEOUT_MAX_S;
	w->deadline_ns = sk_mono_ns() + timeout * 1000000000LL;
	if (sk__wants_table(req)) {
		const char *io = sk__arg(req, "includeObject");

		w->table = io && !strcmp(io, "Object") ? 2 : 1;
	}
	w->bookmarks = sk__arg_bool(req, "allowWatchBookmarks");
	w->next_bookmark_ns = next_bookmark(w, sk_mono_ns());
	if (!from)
		send_initial(w, prefix, &from);
	w->last_rev = from;
	w->sw = sk_store_watch_start(api->store, prefix, from, on_event, w, &err);
	if (w->sw)
		sk_store_watch_set_flush(w->sw, on_flush);
	if (!w->sw) {
		char msg[160];

		if (err.code == SK_EGONE)
			snprintf(msg, sizeof(msg), "too old resource version: %lld (%lld)", (long long)from,
				 (long long)sk_store_compacted_rev(api->store));
		else
			snprintf(msg, sizeof(msg), "%s", err.msg);
		push_error(w, err.code == SK_EGONE ? 410 : 500, err.code == SK_EGONE ? "Expired" : "InternalError",
			   msg);
	}
	resp->status = 200;
	resp->content_type = "application/json";
	resp->watch = w;
	w->counted = !p->all_namespaces && p->ns[0] ? 1 : 2;
	sk__prom_watch(w->res, w->counted == 1, 1);
}

/* When the next bookmark is due, as upstream's cacheWatcher.nextBookmarkTime:
 * every bookmark interval, and 2 s before the watch's deadline so that the
 * client resumes from a recent revision; never after that. */
static int64_t next_bookmark(const sk_api_watch *w, int64_t now)
{
	int64_t t = now + (int64_t)w->api->opts.bookmark_secs * 1000000000LL;

	if (w->deadline_ns - 2000000000LL < t)
		t = w->deadline_ns - 2000000000LL;
	return t < now ? INT64_MAX : t;
}

static void maybe_bookmark(sk_api_watch *w)
{
	int64_t now = sk_mono_ns();
	char *s;

	if (!w->bookmarks || now < w->next_bookmark_ns)
		return;
	w->next_bookmark_ns = next_bookmark(w, now);
	/* as upstream's cacher: the store's revision, which every event before
	 * it has reached this watch's queue by (etcd's progress notifications
	 * advance it on an idle etcd); mu held, so none is being queued */
	if (w->sw && sk_store_delivered_rev(w->api->store) > w->last_rev)
		w->last_rev = sk_store_delivered_rev(w->api->store);
	s = xasprintf("{\"kind\":\"%s\",\"apiVersion\":\"%s%s%s\",\"metadata\":{\"resourceVersion\":\"%lld\"}}",
		      w->res->kind, w->res->group, w->res->group[0] ? "/" : "", w->res->version,
		      (long long)w->last_rev);
	push_raw(w, "BOOKMARK", s, strlen(s));
	free(s);
}

/* The end of the watch (timeoutSeconds, shutdown) with nothing left to send. Called with mu held. */
static int watch_over(sk_api_watch *w)
{
	if ((sk_mono_ns() >= w->deadline_ns || __atomic_load_n(&w->api->shutting_down, __ATOMIC_ACQUIRE)) && !w->head)
		w->ended = 1;
	return w->ended && !w->head;
}

/* Waits (mu held) until something is queued, the watch ends or timeout_ms passes. */
static int wait_ready(sk_api_watch *w, int timeout_ms)
{
	int64_t until = sk_mono_ns() + (int64_t)timeout_ms * 1000000;

	for (;;) {
		struct timespec ts;
		int64_t wake;

		watch_over(w);
		maybe_bookmark(w);
		if (w->head)
			return 1;
		if (w->ended || sk_mono_ns() >= until)
			return w->ended ? -1 : 0;
		wake = until;
		if (w->deadline_ns < wake)
			wake = w->deadline_ns;
		if (w->bookmarks && w->next_bookmark_ns < wake)
			wake = w->next_bookmark_ns;
		ts.tv_sec = wake / 1000000000;
		ts.tv_nsec = wake % 1000000000;
		/* a post left over from a wait that timed out only makes one
		 * extra turn of this loop */
		w->waiting = 1;
		pthread_mutex_unlock(&w->mu);
		sem_clockwait(&w->wake, CLOCK_MONOTONIC, &ts);
		pthread_mutex_lock(&w->mu);
		w->waiting = 0;
	}
}

void sk_api_watch_set_waker(sk_api_watch *w, void (*wake)(void *), void *arg)
{
	pthread_mutex_lock(&w->mu);
	w->wake_fn = wake;
	w->wake_arg = arg;
	pthread_mutex_unlock(&w->mu);
}

ssize_t sk_api_watch_read(sk_api_watch *w, char *buf, size_t max, void (*park)(void *), void *arg)
{
	size_t n = 0;

	pthread_mutex_lock(&w->mu);
	maybe_bookmark(w);
	if (watch_over(w)) {
		pthread_mutex_unlock(&w->mu);
		return -1;
	}
	if (!w->head) {
		/* parked under mu: an event pushed after this sees parked and wakes */
		w->parked = 1;
		park(arg);
		pthread_mutex_unlock(&w->mu);
		return 0;
	}
	/* straight from the shared lines into the caller's buffer: no copy of
	 * its own per watcher and event (1,000 buffers made and freed per event
	 * had the allocator hand pages back and fault them in again) */
	while (w->head && n < max) {
		wev *e = w->head;
		size_t k = e->l->len - w->head_off;

		if (k > max - n)
			k = max - n;
		memcpy(buf + n, e->l->data + w->head_off, k);
		n += k;
		w->head_off += k;
		w->queued -= k;
		if (w->head_off < e->l->len)
			break;
		w->head = e->next;
		w->head_off = 0;
		wev_free(e);
	}
	if (!w->head)
		w->tail = NULL;
	pthread_mutex_unlock(&w->mu);
	return (ssize_t)n;
}

void sk_api_watch_tick(sk_api_watch *w, int force)
{
	int64_t now = sk_mono_ns();

	pthread_mutex_lock(&w->mu);
	if (!w->parked ||
	    (!force && now < w->deadline_ns && !__atomic_load_n(&w->api->shutting_down, __ATOMIC_ACQUIRE) &&
	     !(w->bookmarks && now >= w->next_bookmark_ns))) {
		pthread_mutex_unlock(&w->mu);
		return;
	}
	unlock_and_wake(w);
}

int sk_api_watch_next_event(sk_api_watch *w, int timeout_ms, int shared_obj, char **type, json_t **obj)
{
	wev *e;
	int r;

	pthread_mutex_lock(&w->mu);
	r = wait_ready(w, timeout_ms);
	if (r <= 0) {
		pthread_mutex_unlock(&w->mu);
		return r;
	}
	e = w->head;
	w->head = e->next;
	if (!w->head)
		w->tail = NULL;
	w->queued -= e->l->len;
	pthread_mutex_unlock(&w->mu);
	{
		json_t *shared = wline_event(e->l);

		/* each consumer gets its own copy unless it promised not to change it */
		*type = xstrdup(json_string_value(json_object_get(shared, "type")));
		*obj = shared_obj ? json_incref(json_object_get(shared, "object"))
				  : json_deep_copy(json_object_get(shared, "object"));
	}
	wev_free(e);
	return 1;
}

void sk__watch_audit_at_end(sk_api_watch *w, json_t *ev)
{
	json_decref(w->audit_end);
	w->audit_end = ev;
}

void sk_api_watch_free(sk_api_watch *w)
{
	if (!w)
		return;
	if (w->audit_end)
		sk__audit_emit(w->api, steal_ptr(&w->audit_end));
	if (w->sw)
		sk_store_unwatch(w->api->store, w->sw);
	if (w->counted)
		sk__prom_watch(w->res, w->counted == 1, -1);
	while (w->head) {
		wev *e = w->head;

		w->head = e->next;
		wev_free(e);
	}
	sk_kube_label_selector_free(w->labels);
	sk_kube_field_selector_free(w->fields);
	free(w->node_match);
	sem_destroy(&w->wake);
	pthread_mutex_destroy(&w->mu);
	free(w);
}
