/* The SQLite backend's storage layer (sqlite-db.c), used by sqlite.c.
 *
 * Schema, in the spirit of kine: one append-only log
 *   log(rev INTEGER PRIMARY KEY, key TEXT, create_rev, prev_rev, deleted, value BLOB)
 * with an index on (key, rev); a key's current state is its newest row. A
 * tombstone row (deleted = 1) has no value; its prev_rev names the deleted row.
 * prev_rev = 0 for a create. meta(k, v) holds 'compacted_rev'.
 *
 * Compacting to C deletes every row superseded by a row <= C and every
 * tombstone <= C, so the state at any rev >= C, and the prev of every event
 * > C, stay readable. Current rev after a restart is max(MAX(log.rev), C). */
#ifndef SK_STORE_SQLITE_INT_H
#define SK_STORE_SQLITE_INT_H

#include <sqlite3.h>

#include "store/store-int.h"

typedef struct sk__row {
	int64_t rev;
	const char *key;
	int64_t create_rev, prev_rev;
	int deleted;
	const char *val; /* NULL for a tombstone */
	size_t len;
} sk__row;

typedef struct sk__sdb {
	sqlite3 *db;
	sqlite3_stmt *begin, *commit, *rollback, *ins;
	sqlite3_stmt *cmp_prev, *cmp_tomb, *meta_set, *last;
	int rc; /* extended result code of the last failure */
} sk__sdb;

/* Opens path (creating the schema when writer is set) with WAL,
 * synchronous=FULL and auto_vacuum=INCREMENTAL. */
int sk__sdb_open(sk__sdb *d, const char *path, int writer, sk_error_t *err);
void sk__sdb_close(sk__sdb *d);
/* Loads the current state into t and reads the revisions and row count. */
int sk__sdb_load(sk__sdb *d, sk__memtab *t, int64_t *rev, int64_t *compacted, int64_t *rows, sk_error_t *err);
/* Inserts rows in one transaction and commits (durable on return 0). */
int sk__sdb_write(sk__sdb *d, const sk__row *rows, size_t n, sk_error_t *err);
/* Reads the newest revision in the log (to learn whether a failed commit
 * took effect all the same). */
int sk__sdb_last_rev(sk__sdb *d, int64_t *rev, sk_error_t *err);
/* After a failed commit: checkpoints and truncates the WAL, so frames the
 * failed transaction wrote past the last commit (an fsync that failed after
 * the frames were written) cannot be recovered as committed after a crash. */
int sk__sdb_drop_wal(sk__sdb *d, sk_error_t *err);
/* 1 when the last failure means the file cannot be written or trusted:
 * corrupt, not a database, read-only (also: moved or deleted while open),
 * cannot be opened. */
int sk__sdb_unusable(const sk__sdb *d);
/* Compacts the revisions (lo, hi] in one transaction and records hi as the
 * compacted revision; *removed gets the number of rows deleted. */
int sk__sdb_compact(sk__sdb *d, int64_t lo, int64_t hi, int64_t *removed, sk_error_t *err);
/* Checkpoints and truncates the WAL and returns free pages to the OS. */
void sk__sdb_checkpoint(sk__sdb *d);
/* Lists the state as of rev (SK_EGONE when rev is compacted). */
int sk__sdb_list_at(sk__sdb *d, const char *prefix, const char *after, size_t limit, int64_t rev, sk_store_list *out,
		    sk_error_t *err);
/* Delivers to w the events under w's prefix with from_rev < rev <= to_rev,
 * in order (SK_EGONE when from_rev is compacted). */
int sk__sdb_replay(sk__sdb *d, sk_store_watch *w, int64_t from_rev, int64_t to_rev, sk_error_t *err);

#endif
