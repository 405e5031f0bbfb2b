/* The revisioned key-value store behind the API server.
 *
 * One interface, several backends: SQLite (embedded default, "sqlite://DIR")
 * and etcd v3 ("etcd://HOST:PORT", src/store/etcd.c). Keys are strings such as
 * "/registry/pods/default/web-1"; values are opaque bytes (the API server
 * stores JSON text). Every successful write gets the next value of one global,
 * monotonic revision; that revision is the object's resourceVersion.
 *
 * Guarantees every backend keeps:
 * - A write returns only when it is durable (SQLite: committed with
 *   synchronous=FULL in WAL mode; concurrent writers share one commit).
 * - Reads (get, list) see every acknowledged write; the SQLite backend serves
 *   them from memory.
 * - Watchers are fed from the write path, in revision order, with no gaps and
 *   no duplicates, including the replay of history after `from_rev`.
 * - History older than the compaction bound is dropped; watching or listing
 *   from a compacted revision fails with SK_EGONE.
 *
 * All functions are thread-safe. */
#ifndef SK_STORE_STORE_H
#define SK_STORE_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "util/error.h"

typedef struct sk_store sk_store;
typedef struct sk_store_watch sk_store_watch;

/* One stored key-value at a revision. */
typedef struct sk_store_kv {
	char *key;
	char *value; /* NUL-terminated for convenience; len excludes the NUL */
	size_t len;
	int64_t create_rev; /* revision that created the key */
	int64_t mod_rev;    /* revision of the last write to the key */
} sk_store_kv;

void sk_store_kv_release(sk_store_kv *kv); /* frees key and value, not kv */

typedef struct sk_store_list {
	sk_store_kv *items;
	size_t n;
	int64_t rev; /* the store revision the list was read at */
	int more;    /* 1 when limit cut the list short */
} sk_store_list;

void sk_store_list_release(sk_store_list *l);

typedef struct sk_store_options {
	/* Compaction bound: history is kept for at least min_history_secs and
	 * the newest max_history_events revisions beyond that are kept too;
	 * older revisions are compacted in small batches that never hold the
	 * write lock for long. 0 picks the defaults (300 s, 100000 events);
	 * a negative value removes that bound (tests: both < 0 compacts all
	 * history as soon as it is written). */
	int64_t min_history_secs;
	int64_t max_history_events;
	/* etcd over https: the CA bundle, client certificate and key (PEM
	 * files); any of them set makes the endpoints https. */
	const char *tls_ca, *tls_cert, *tls_key;
} sk_store_options;

/* Opens (creating if needed) the store named by uri: "sqlite://DIR" keeps
 * DIR/state.db; "etcd://HOST:PORT[,HOST:PORT...][/ROOT]" stores each key
 * under ROOT (default: none, so "/registry/pods/NS/NAME" as upstream) in etcd
 * v3. Returns NULL and fills err on failure. Free with sk_store_close. */
sk_store *sk_store_open(const char *uri, const sk_store_options *opts, sk_error_t *err);
void sk_store_close(sk_store *s);

/* Current revision (the last committed write). */
int64_t sk_store_rev(sk_store *s);
/* The revision up to which every event has reached the watchers (callbacks
 * returned), past the last event when the store learned that nothing
 * changed since (etcd's progress notifications): a watch's bookmark may
 * carry it. Lock-free. */
int64_t sk_store_delivered_rev(sk_store *s);
/* The oldest revision that can still be watched from or listed at. */
int64_t sk_store_compacted_rev(sk_store *s);

/* Returns once reads reflect every write any process acknowledged before
 * the call (several API servers on one etcd: another server's writes reach
 * this one's copy through its watch), or -1 with err (etcd's error when it
 * cannot say: no quorum). A no-op where this process is the only writer
 * (SQLite). */
int sk_store_sync(sk_store *s, sk_error_t *err);

/* Fills *kv with the current value of key (caller releases).
 * Missing key: SK_ENOTFOUND. */
int sk_store_get(sk_store *s, const char *key, sk_store_kv *kv, sk_error_t *err);

/* Lists keys with the given prefix in key order, starting strictly after
 * `after` (NULL or "" for the beginning), at most `limit` items (0 = all).
 * rev = 0 reads the current state; rev > 0 reads the state as of that
 * revision (for consistent pagination) and fails with SK_EGONE when rev is
 * compacted; rev = SK_STORE_REV_FRESH reads the current state as the backing
 * store has it now, with every write any API server acknowledged before
 * (etcd: a round trip, upstream's ConsistentListFromCache; SQLite: as 0).
 * Caller releases *out. */
#define SK_STORE_REV_FRESH (-1)
int sk_store_range(sk_store *s, const char *prefix, const char *after, size_t limit, int64_t rev, sk_store_list *out,
		   sk_error_t *err);

/* Counts keys under prefix at the current revision. */
size_t sk_store_count(sk_store *s, const char *prefix);

/* Creates key; SK_EEXISTS when present. Returns the new revision (> 0) or -1. */
int64_t sk_store_create(sk_store *s, const char *key, const char *value, size_t len, sk_error_t *err);

/* Replaces key's value if its mod_rev equals expect_rev (0: unconditional).
 * SK_ENOTFOUND when absent, SK_ECONFLICT when mod_rev differs.
 * Returns the new revision or -1. */
int64_t sk_store_update(sk_store *s, const char *key, const char *value, size_t len, int64_t expect_rev,
			sk_error_t *err);

/* Deletes key if its mod_rev equals expect_rev (0: unconditional). If prev is
 * not NULL it receives the deleted value (caller releases). Returns the
 * revision of the deletion or -1 (SK_ENOTFOUND, SK_ECONFLICT). */
int64_t sk_store_delete(sk_store *s, const char *key, int64_t expect_rev, sk_store_kv *prev, sk_error_t *err);

enum sk_store_event_type { SK_STORE_CREATE, SK_STORE_UPDATE, SK_STORE_DELETE };

typedef struct sk_store_event {
	enum sk_store_event_type type;
	const sk_store_kv *kv;   /* the new value; for DELETE the deleted value, mod_rev = the deletion's revision */
	const sk_store_kv *prev; /* previous value for UPDATE and DELETE, NULL for CREATE */
	int flush_follows;       /* the watch's flush callback runs once every watcher has the event */
} sk_store_event;

/* Called for each event under the watched prefix. Runs on the writer's
 * thread after the commit: it must be quick, must not block and must not
 * call back into the store. The event and its kvs are valid only during
 * the call (copy what you keep). */
typedef void (*sk_store_watch_cb)(const sk_store_event *ev, void *ud);

/* Starts a watch of every key with the prefix for revisions > from_rev.
 * Watches still registered at sk_store_close are freed by it.
 * from_rev = 0 means "from now" (no replay). Events between from_rev and now
 * are replayed through cb before this returns; later events follow in order
 * without gaps. SK_EGONE when from_rev < sk_store_compacted_rev().
 * Returns a handle for sk_store_unwatch or NULL. */
sk_store_watch *sk_store_watch_start(sk_store *s, const char *prefix, int64_t from_rev, sk_store_watch_cb cb, void *ud,
				     sk_error_t *err);
/* Stops the watch; after it returns cb is never called again for it. */
void sk_store_unwatch(sk_store *s, sk_store_watch *w);
/* Asks for flush(ud) on the writer's thread after each new event has gone
 * to every watcher of its key (events then carry flush_follows = 1; replayed
 * ones do not): a watcher can queue in cb and wake its consumer in flush, so
 * that 1,000 consumers wake to an event already queued for all of them. */
void sk_store_watch_set_flush(sk_store_watch *w, void (*flush)(void *ud));

/* Compacts history up to rev now (normally automatic). */
int sk_store_compact(sk_store *s, int64_t rev, sk_error_t *err);

/* Figures for metrics and tests. */
typedef struct sk_store_stats {
	int64_t rev, compacted_rev;
	size_t keys, history_events;
	int64_t db_bytes, wal_bytes;
	int64_t commits, writes; /* commits < writes when group commit batches */
} sk_store_stats;
void sk_store_get_stats(sk_store *s, sk_store_stats *st);

/* Whether the store answers a read that needs its quorum (etcd: a
 * linearizable range of the key "health", as kube-apiserver's etcd check);
 * -1 with err when it does not. */
int sk_store_health(sk_store *s, sk_error_t *err);

/* Records etcd_request_duration_seconds{operation,type} of every store
 * call from now on into m (borrowed; lives as long as the process). */
struct sk_metrics;
void sk_store_metrics_register(struct sk_metrics *m);
/* Saves a snapshot of the etcd named by uri ("etcd://HOST:PORT[,...]"; opts:
 * only its TLS files) to path, as `etcdctl snapshot save` does (etcd's
 * database with its SHA-256 appended), through PATH.part, fsynced, renamed. */
int sk_store_etcd_snapshot(const char *uri, const sk_store_options *opts, const char *path, sk_error_t *err);

/* ---- operations (skiff migrate, skiff etcd-snapshot restore) ---- */

/* Sorts kvs into the order they are copied in: by mod_rev, then key. */
void sk_store_plan_order(sk_store_kv *kvs, size_t n);

/* Called after each key copied: done of total. */
typedef void (*sk_store_progress_fn)(size_t done, size_t total, void *ud);

typedef struct sk_store_copy_result {
	size_t total, copied, removed; /* removed: keys --force took out of the target */
	int64_t source_rev;            /* the source's revision the copy was read at */
	int64_t first_rev, last_rev;   /* the target's revisions of the first and last key */
} sk_store_copy_result;

/* Copies every key of src's current state into dst (migrate.c), one create
 * per key in sk_store_plan_order's order, so dst's revisions keep src's
 * order; values are copied byte for byte. A dst holding keys is refused
 * (SK_EEXISTS) unless force, which deletes them first. On failure dst holds
 * the keys copied so far (res->copied). */
int sk_store_copy(sk_store *src, sk_store *dst, int force, sk_store_progress_fn progress, void *ud,
		  sk_store_copy_result *res, sk_error_t *err);

/* Opens the SQLite store of a server's data directory dir that must exist
 * (DIR/state.db), with no compaction; SK_EUNAVAILABLE with a message saying
 * so while a server holds it. Free with sk_store_close. */
sk_store *sk_store_open_sqlite_existing(const char *dir, sk_error_t *err);

/* Restores an etcd snapshot into a new member data directory, as `etcdctl
 * snapshot restore` (etcd 3.4's documented restore), which it runs. NULL
 * fields take etcdctl's defaults. */
typedef struct sk_etcd_restore_options {
	const char *snapshot, *data_dir;
	const char *name, *initial_cluster, *initial_advertise_peer_urls, *initial_cluster_token;
	int skip_hash_check;
	const char *etcdctl; /* NULL: "etcdctl" from PATH */
} sk_etcd_restore_options;

/* Checks the snapshot is a readable file and data_dir absent or empty, runs
 * etcdctl into a fresh sibling of data_dir and renames it into place, so a
 * failed restore leaves nothing behind; etcdctl's error is relayed in err. */
int sk_etcd_restore(const sk_etcd_restore_options *o, sk_error_t *err);

#endif
