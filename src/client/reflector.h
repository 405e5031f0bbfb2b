/* One list+watch loop for a collection, after client-go's
 * tools/cache/reflector.go, used by the controllers' informers, the
 * scheduler and the node agent over either client transport.
 *
 * The reflector lists the collection (in pages of page_size with limit and
 * continue when asked; a continue token that expired mid-list gives one
 * full list instead, as client-go's pager), hands the whole set to replace,
 * then watches from the list's resourceVersion with allowWatchBookmarks.
 * Every event and bookmark advances the last seen resourceVersion; a watch
 * that ends (timeoutSeconds, a closed connection) is started again from it.
 * One that could not reach a server or lost its connection (a 503 Status
 * from the transport, or a 429) is started again from it after a backoff,
 * so a client with several servers moves to another without relisting. An
 * ERROR event (410 Expired, "too old resource version", any other Status),
 * a watch that cannot start, or a watch that closed within a second without
 * an event ends the watch: the reflector backs off and lists again. Failed lists back off too. The backoff is
 * client-go's: 800 ms doubling to 30 s, each wait jittered up to twice as long, back to 800 ms once two minutes pass
 * without one.
 *
 * Callbacks: replace runs on the reflector's thread (or the caller's, in
 * sk_reflector_list), event on the watch's; never two at once, and none
 * after sk_reflector_stop returns. */
#ifndef SK_CLIENT_REFLECTOR_H
#define SK_CLIENT_REFLECTOR_H

#include <stddef.h>

#include "client/client.h"

typedef struct sk_reflector sk_reflector;

typedef struct sk_reflector_options {
	const char *path;      /* collection path: "/api/v1/pods" */
	const char *selectors; /* "fieldSelector=…&labelSelector=…" (encoded) for list and watch, or NULL */
	int page_size;         /* list with limit=page_size and continue; 0: one request */
	/* Each watch asks for timeoutSeconds in [min, 2·min), as client-go's
	 * minWatchTimeout (0: 300 s). */
	int min_watch_timeout_secs;
	int shared;            /* events' objects may be shared: read-only (sk_client_watch_start_shared) */
	const char *component; /* log component: "ctrl", "scheduler", "agent" */
	/* After each list: items (borrowed array) is the whole collection at
	 * resourceVersion rv; what the caller holds that is not in it is gone.
	 * The items are the reflector's alone: replace may keep references. */
	void (*replace)(void *ud, json_t *items, const char *rv);
	/* One watch event: type "ADDED", "MODIFIED" or "DELETED"; obj borrowed
	 * (kept with a reference; read-only when shared). */
	void (*event)(void *ud, const char *type, json_t *obj);
	/* A list failed (NULL: the reflector logs a warning instead). One that
	 * found no such collection (SK_ENOTFOUND) first replaces with an empty
	 * set, as client-go does. */
	void (*list_failed)(void *ud, const sk_error_t *err);
	void *ud;
	int backoff_initial_ms, backoff_max_ms; /* 0: 800 ms and 30 s (tests shorten them) */
} sk_reflector_options;

/* A stopped reflector; o's strings are copied. Free with sk_reflector_free. */
sk_reflector *sk_reflector_new(sk_client *c, const sk_reflector_options *o);
/* Lists once on the caller's thread (replace runs there), so that the
 * thread sk_reflector_start starts watches from this list. Only before
 * sk_reflector_start. */
int sk_reflector_list(sk_reflector *r, sk_error_t *err);
/* Starts the reflector's thread: list (unless sk_reflector_list just did),
 * watch, relist, until sk_reflector_stop. */
int sk_reflector_start(sk_reflector *r, sk_error_t *err);
/* Asks the thread to end without waiting for it, so that several stop
 * together; sk_reflector_stop then waits. */
void sk_reflector_cancel(sk_reflector *r);
/* Ends the watch and joins the thread; no callback runs after it returns.
 * A list under way is waited for. Idempotent. */
void sk_reflector_stop(sk_reflector *r);
/* Stops (if needed) and frees. */
void sk_reflector_free(sk_reflector *r);
/* The last resourceVersion seen (list, event or bookmark); "" before any. */
void sk_reflector_last_rv(sk_reflector *r, char *buf, size_t len);

#endif
