/* Internals shared by the store front end (store.c) and its backends.
 *
 * - sk__store_ops: the vtable a backend fills; store.c dispatches on the uri
 *   scheme and forwards every public call through it.
 * - sk__blob: a reference-counted, NUL-terminated byte string, so a key or a
 *   value is stored once and shared by the current state and the event ring.
 * - sk__memtab: the in-memory current state, a skip list in key order.
 * - sk__hub: recent events (a ring) and the registered watchers, grouped by
 *   prefix; the caller serialises every hub call with its own mutex. */
#ifndef SK_STORE_STORE_INT_H
#define SK_STORE_STORE_INT_H

#include <stddef.h>
#include <stdint.h>

#include "store/store.h"

struct sk__store_ops {
	void (*close)(sk_store *s);
	int64_t (*rev)(sk_store *s);
	int64_t (*delivered_rev)(sk_store *s);
	int64_t (*compacted_rev)(sk_store *s);
	int (*get)(sk_store *s, const char *key, sk_store_kv *kv, sk_error_t *err);
	int (*list)(sk_store *s, const char *prefix, const char *after, size_t limit, int64_t rev, sk_store_list *out,
		    sk_error_t *err);
	size_t (*count)(sk_store *s, const char *prefix);
	int64_t (*create)(sk_store *s, const char *key, const char *value, size_t len, sk_error_t *err);
	int64_t (*update)(sk_store *s, const char *key, const char *value, size_t len, int64_t expect_rev,
			  sk_error_t *err);
	int64_t (*del)(sk_store *s, const char *key, int64_t expect_rev, sk_store_kv *prev, sk_error_t *err);
	sk_store_watch *(*watch_start)(sk_store *s, const char *prefix, int64_t from_rev, sk_store_watch_cb cb,
				       void *ud, sk_error_t *err);
	void (*unwatch)(sk_store *s, sk_store_watch *w);
	int (*compact)(sk_store *s, int64_t rev, sk_error_t *err);
	void (*stats)(sk_store *s, sk_store_stats *st);
	/* NULL: always healthy (an embedded database) */
	int (*health)(sk_store *s, sk_error_t *err);
	int (*sync)(sk_store *s, sk_error_t *err); /* optional */
};

/* Every backend's handle starts with this. */
struct sk_store {
	const struct sk__store_ops *ops;
};

/* A watch registration; backends may use `backend` for their own data. */
struct sk_store_watch {
	char *prefix;
	size_t plen;
	sk_store_watch_cb cb;
	void *ud;
	int64_t from_rev;        /* only events with rev > from_rev are delivered */
	void (*flush)(void *ud); /* atomic: sk_store_watch_set_flush's */
	int flush_due;           /* dispatch: got the event with flush_follows */
	struct sk__wgroup *group;
	struct sk_store_watch *next, *prev;
};

/* Backend constructors; dir is the part of the uri after "sqlite://",
 * endpoints the part after "etcd://". */
sk_store *sk__sqlite_open(const char *dir, const sk_store_options *opts, sk_error_t *err);
sk_store *sk__etcd_open(const char *endpoints, const sk_store_options *opts, sk_error_t *err);

/* --- reference-counted strings --- */
typedef struct sk__blob {
	int refs;
	size_t len;
	char data[]; /* len bytes plus a NUL */
} sk__blob;

/* Returns a blob holding a copy of data with one reference. */
sk__blob *sk__blob_new(const char *data, size_t len);
sk__blob *sk__blob_ref(sk__blob *b); /* NULL-safe */
void sk__blob_unref(sk__blob *b);    /* NULL-safe; aborts on underflow */

/* Fills kv with malloc'd copies (caller releases kv). */
void sk__kv_fill(sk_store_kv *kv, const char *key, const char *val, size_t len, int64_t create_rev, int64_t mod_rev);

/* Returns a malloc'd string that sorts after every key with the prefix, or
 * NULL when there is none (empty prefix or only 0xff bytes). */
char *sk__prefix_end(const char *prefix);

/* --- in-memory current state --- */
#define SK__MEMTAB_MAXLEVEL 24

typedef struct sk__mnode {
	sk__blob *key, *val;
	int64_t create_rev, mod_rev;
	int level;
	struct sk__mnode *next[];
} sk__mnode;

typedef struct sk__memtab {
	sk__mnode *head;
	int level;
	size_t n;
	uint64_t rng;
} sk__memtab;

void sk__memtab_init(sk__memtab *t);
void sk__memtab_release(sk__memtab *t);
sk__mnode *sk__memtab_find(const sk__memtab *t, const char *key);
/* First node with key > after (after NULL: the first node). */
sk__mnode *sk__memtab_seek(const sk__memtab *t, const char *after);
/* First node with key >= key. */
sk__mnode *sk__memtab_lower_bound(const sk__memtab *t, const char *key);
/* Inserts or replaces key; takes over the caller's references to key and val. */
void sk__memtab_put(sk__memtab *t, sk__blob *key, sk__blob *val, int64_t create_rev, int64_t mod_rev);
/* Removes key; returns 0 or -1 if absent. */
int sk__memtab_remove(sk__memtab *t, const char *key);
/* Appends to out (items, n, more; not rev) copies of the keys with prefix in
 * key order, strictly after `after` (NULL: from the first), at most limit
 * (0: all). */
void sk__memtab_list(const sk__memtab *t, const char *prefix, const char *after, size_t limit, sk_store_list *out);
/* Keys with prefix. */
size_t sk__memtab_count(const sk__memtab *t, const char *prefix);

/* --- events and watchers --- */
typedef struct sk__event {
	int64_t rev;
	enum sk_store_event_type type;
	sk__blob *key, *val; /* DELETE: val is the deleted value */
	int64_t create_rev;
	sk__blob *prev; /* NULL for CREATE */
	int64_t prev_create_rev, prev_mod_rev;
} sk__event;

typedef struct sk__wgroup {
	char *prefix;
	size_t plen;
	sk_store_watch *head;
	struct sk__wgroup *next;
} sk__wgroup;

typedef struct sk__hub {
	sk__event *ring;
	size_t cap, start, n;
	sk__wgroup *groups;
	size_t watchers;
} sk__hub;

void sk__hub_init(sk__hub *h, size_t cap);
void sk__hub_release(sk__hub *h);
/* Appends ev (taking over its references; the oldest event drops out when the
 * ring is full) and delivers it to every matching watcher. */
void sk__hub_push(sk__hub *h, sk__event *ev);
/* Replays ring events with rev > from_rev to w. Returns 0, or -1 when the
 * ring does not reach back to from_rev + 1 (nothing is delivered then). */
int sk__hub_replay(sk__hub *h, sk_store_watch *w, int64_t from_rev);
/* A backend's new watch registration (not yet in a hub), or NULL with err
 * for a negative revision or no callback; freed with sk__watch_free. */
sk_store_watch *sk__watch_new(const char *prefix, int64_t from_rev, sk_store_watch_cb cb, void *ud, sk_error_t *err);
void sk__watch_free(sk_store_watch *w);
void sk__hub_add(sk__hub *h, sk_store_watch *w);
void sk__hub_remove(sk__hub *h, sk_store_watch *w);
/* Delivers one event to w if its key matches and its rev is new to w. */
void sk__watch_deliver(sk_store_watch *w, const sk_store_event *ev, int64_t rev);
/* The same for an event in the hub's own form (not kept). */
void sk__event_deliver(sk_store_watch *w, const sk__event *ev);

#endif
