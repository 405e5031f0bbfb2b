/* The list+watch loop (see reflector.h). One thread per reflector runs the
 * lists and the backoff and waits while the transport's thread delivers a
 * watch's events. */
#include "client/reflector.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"

#define BACKOFF_INITIAL_MS 800
#define BACKOFF_MAX_MS 30000
#define BACKOFF_RESET_NS (120 * 1000000000LL)
#define MIN_WATCH_TIMEOUT_S 300
#define SHORT_WATCH_NS 1000000000LL

struct sk_reflector {
	sk_client *c;
	sk_reflector_options o;
	char *path, *selectors, *component;
	pthread_t thread;
	bool started;
	bool listed; /* sk_reflector_list ran: the thread watches first */
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool stop;      /* under mu */
	bool ended;     /* under mu: the watch sent ERROR or closed */
	json_t *status; /* under mu: the ERROR event's Status, or NULL */
	char rv[32];    /* under mu: last resourceVersion seen */
	long events;    /* of the current watch: its thread counts, we read after the join */
	int64_t backoff_ms, backoff_start_ns;
	unsigned seed;
};

sk_reflector *sk_reflector_new(sk_client *c, const sk_reflector_options *o)
{
	sk_reflector *r = xzalloc(sizeof(*r));

	r->c = c;
	r->o = *o;
	r->path = xstrdup(o->path);
	r->selectors = o->selectors && *o->selectors ? xstrdup(o->selectors) : NULL;
	r->component = xstrdup(o->component ? o->component : "client");
	r->o.path = r->path;
	r->o.selectors = r->selectors;
	r->o.component = r->component;
	if (r->o.backoff_initial_ms <= 0)
		r->o.backoff_initial_ms = BACKOFF_INITIAL_MS;
	if (r->o.backoff_max_ms <= 0)
		r->o.backoff_max_ms = BACKOFF_MAX_MS;
	if (r->o.min_watch_timeout_secs <= 0)
		r->o.min_watch_timeout_secs = MIN_WATCH_TIMEOUT_S;
	r->seed = (unsigned)sk_mono_ns() ^ (unsigned)(uintptr_t)r;
	pthread_mutex_init(&r->mu, NULL);
	pthread_cond_init(&r->cv, NULL);
	return r;
}

static bool stopping(sk_reflector *r)
{
	bool stop;

	pthread_mutex_lock(&r->mu);
	stop = r->stop;
	pthread_mutex_unlock(&r->mu);
	return stop;
}

static void set_rv(sk_reflector *r, const char *rv)
{
	pthread_mutex_lock(&r->mu);
	snprintf(r->rv, sizeof(r->rv), "%s", rv);
	pthread_mutex_unlock(&r->mu);
}

void sk_reflector_last_rv(sk_reflector *r, char *buf, size_t len)
{
	pthread_mutex_lock(&r->mu);
	snprintf(buf, len, "%s", r->rv);
	pthread_mutex_unlock(&r->mu);
}

static const char *meta_str(json_t *obj, const char *key)
{
	return json_string_value(json_object_get(json_object_get(obj, "metadata"), key));
}

/* Percent-encodes a continue token for the query string. */
static char *query_escape(const char *s)
{
	static const char hex[] = "0123456789ABCDEF";
	char *out = xmalloc(strlen(s) * 3 + 1), *o = out;

	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if ((ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') ||
		    strchr("-._~", ch)) {
			*o++ = (char)ch;
		} else {
			*o++ = '%';
			*o++ = hex[ch >> 4];
			*o++ = hex[ch & 15];
		}
	}
	*o = '\0';
	return out;
}

static char *list_query(sk_reflector *r, int limit, const char *cont)
{
	cleanup_free char *page = NULL, *tok = cont ? query_escape(cont) : NULL;

	if (limit > 0)
		page = tok ? xasprintf("limit=%d&continue=%s", limit, tok) : xasprintf("limit=%d", limit);
	if (r->selectors && page)
		return xasprintf("%s&%s", r->selectors, page);
	return r->selectors ? xstrdup(r->selectors) : page ? steal_ptr(&page) : NULL;
}

/* The whole collection (a new array) and its resourceVersion in rv. */
static json_t *list_all(sk_reflector *r, char *rv, size_t rvlen, sk_error_t *err)
{
	cleanup_json json_t *items = json_array();
	cleanup_free char *cont = NULL;
	int limit = r->o.page_size;

	for (;;) {
		cleanup_free char *q = list_query(r, limit, cont);
		cleanup_json json_t *page = sk_client_list(r->c, r->path, q, err);
		const char *next;

		if (!page && cont && err->code == SK_EGONE) {
			/* the continue token expired: one full list */
			sk_debug(r->component, "listing %s: %s; listing again without limit", r->path, err->msg);
			sk_error_clear(err);
			json_array_clear(items);
			free(steal_ptr(&cont));
			limit = 0;
			continue;
		}
		if (!page)
			return NULL;
		json_array_extend(items, json_object_get(page, "items"));
		snprintf(rv, rvlen, "%s", meta_str(page, "resourceVersion") ? meta_str(page, "resourceVersion") : "");
		next = meta_str(page, "continue");
		free(steal_ptr(&cont));
		if (limit <= 0 || !next || !*next)
			break;
		cont = xstrdup(next);
	}
	return steal_ptr(&items);
}

static int list_and_replace(sk_reflector *r, sk_error_t *err)
{
	char rv[32] = "";
	cleanup_json json_t *items = list_all(r, rv, sizeof(rv), err);

	if (!items && err->code == SK_ENOTFOUND) {
		/* as client-go: whoever waits for the collection sees it empty */
		cleanup_json json_t *none = json_array();

		r->o.replace(r->o.ud, none, "");
	}
	if (!items)
		return -1;
	r->o.replace(r->o.ud, items, rv);
	set_rv(r, rv);
	return 0;
}

int sk_reflector_list(sk_reflector *r, sk_error_t *err)
{
	if (list_and_replace(r, err) < 0)
		return sk_error_wrap(err, "listing %s", r->path);
	r->listed = true;
	return 0;
}

/* Sleeps up to ms unless the reflector stops. */
static void nap(sk_reflector *r, int64_t ms)
{
	struct timespec ts;

	sk_deadline_after_ms(&ts, ms);
	pthread_mutex_lock(&r->mu);
	if (!r->stop)
		pthread_cond_timedwait(&r->cv, &r->mu, &ts);
	pthread_mutex_unlock(&r->mu);
}

/* client-go's ExponentialBackoffManager (factor 2, jitter 1.0). */
static void backoff(sk_reflector *r)
{
	int64_t now = sk_mono_ns(), ms;

	if (!r->backoff_ms || now - r->backoff_start_ns > BACKOFF_RESET_NS)
		r->backoff_ms = r->o.backoff_initial_ms;
	r->backoff_start_ns = now;
	ms = r->backoff_ms + (int64_t)((double)rand_r(&r->seed) / ((double)RAND_MAX + 1.0) * (double)r->backoff_ms);
	r->backoff_ms = r->backoff_ms * 2 > r->o.backoff_max_ms ? r->o.backoff_max_ms : r->backoff_ms * 2;
	nap(r, ms);
}

static int on_watch_event(const char *type, json_t *obj, void *ud)
{
	sk_reflector *r = ud;
	const char *rv = meta_str(obj, "resourceVersion");

	if (!strcmp(type, "ERROR")) {
		pthread_mutex_lock(&r->mu);
		r->ended = true;
		r->status = json_incref(obj);
		pthread_cond_broadcast(&r->cv);
		pthread_mutex_unlock(&r->mu);
		return 1;
	}
	if (stopping(r))
		return 1;
	r->events++;
	if (rv)
		set_rv(r, rv);
	if (obj && strcmp(type, "BOOKMARK") != 0)
		r->o.event(r->o.ud, type, obj);
	return 0;
}

static char *watch_query(sk_reflector *r)
{
	int min = r->o.min_watch_timeout_secs;
	int timeout = min + (int)((double)rand_r(&r->seed) / ((double)RAND_MAX + 1.0) * min);
	char rv[32];

	sk_reflector_last_rv(r, rv, sizeof(rv));
	return xasprintf("%s%s%s%s&allowWatchBookmarks=true&timeoutSeconds=%d", r->selectors ? r->selectors : "",
			 r->selectors ? "&" : "", rv[0] ? "resourceVersion=" : "", rv, timeout);
}

/* Runs one watch to its end. Returns 0 when it closed after a while (watch
 * again from the last resourceVersion), 1 when the server could not be
 * reached (the same after a backoff), -1 when a relist is due or the
 * reflector stops. */
static int watch_once(sk_reflector *r)
{
	cleanup_free char *q = watch_query(r);
	cleanup_json json_t *status = NULL;
	int64_t t0 = sk_mono_ns();
	sk_error_t err = {0};
	sk_client_watch *w;

	pthread_mutex_lock(&r->mu);
	r->ended = false;
	pthread_mutex_unlock(&r->mu);
	r->events = 0;
	w = r->o.shared ? sk_client_watch_start_shared(r->c, r->path, q, on_watch_event, r, &err)
			: sk_client_watch_start(r->c, r->path, q, on_watch_event, r, &err);
	if (!w) {
		sk_warn(r->component, "watching %s: %s", r->path, err.msg);
		return -1;
	}
	pthread_mutex_lock(&r->mu);
	while (!r->ended && !r->stop)
		pthread_cond_wait(&r->cv, &r->mu);
	status = steal_ptr(&r->status);
	pthread_mutex_unlock(&r->mu);
	sk_client_watch_stop(w);
	if (stopping(r))
		return -1;
	if (status) {
		const char *msg = json_string_value(json_object_get(status, "message"));
		json_int_t code = json_integer_value(json_object_get(status, "code"));
		char rv[32];

		sk_reflector_last_rv(r, rv, sizeof(rv));
		sk_debug(r->component, "watch of %s ended: %lld %s", r->path, (long long)code, msg ? msg : "");
		/* client-go: a server out of reach (a refused or broken connection,
		 * 503) or busy (429) is waited for, and the watch resumes (at
		 * another server, for a client that has several) from the last
		 * resourceVersion: only its history being gone forces a relist */
		return (code == 503 || code == 429) && rv[0] ? 1 : -1;
	}
	if (r->events == 0 && sk_mono_ns() - t0 < SHORT_WATCH_NS) {
		sk_debug(r->component, "watch of %s closed within a second and sent nothing", r->path);
		return -1;
	}
	return 0;
}

static void *reflector_main(void *arg)
{
	sk_reflector *r = arg;

	while (!stopping(r)) {
		sk_error_t err = {0};

		if (!r->listed && list_and_replace(r, &err) < 0) {
			if (r->o.list_failed)
				r->o.list_failed(r->o.ud, &err);
			else
				sk_warn(r->component, "listing %s: %s", r->path, err.msg);
			backoff(r);
			continue;
		}
		r->listed = false;
		for (int rc = 0; rc >= 0 && !stopping(r);) {
			rc = watch_once(r);
			if (rc > 0)
				backoff(r);
		}
		if (!stopping(r))
			backoff(r);
	}
	return NULL;
}

int sk_reflector_start(sk_reflector *r, sk_error_t *err)
{
	if (r->started)
		return 0;
	pthread_mutex_lock(&r->mu);
	r->stop = false;
	pthread_mutex_unlock(&r->mu);
	if (pthread_create(&r->thread, NULL, reflector_main, r) != 0)
		return sk_error_set(err, SK_EINTERNAL, "reflector %s: cannot start its thread", r->path);
	r->started = true;
	return 0;
}

void sk_reflector_cancel(sk_reflector *r)
{
	if (!r)
		return;
	pthread_mutex_lock(&r->mu);
	r->stop = true;
	pthread_cond_broadcast(&r->cv);
	pthread_mutex_unlock(&r->mu);
}

void sk_reflector_stop(sk_reflector *r)
{
	if (!r)
		return;
	sk_reflector_cancel(r);
	if (r->started)
		pthread_join(r->thread, NULL);
	r->started = false;
}

void sk_reflector_free(sk_reflector *r)
{
	if (!r)
		return;
	sk_reflector_stop(r);
	json_decref(r->status);
	pthread_mutex_destroy(&r->mu);
	pthread_cond_destroy(&r->cv);
	free(r->path);
	free(r->selectors);
	free(r->component);
	free(r);
}
