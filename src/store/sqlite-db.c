/* SQL for the SQLite backend: schema, the batched write, compaction,
 * historical lists and watch replay. See sqlite-int.h for the model. */
#include <string.h>

#include "store/sqlite-int.h"
#include "util/util.h"

static const char schema_sql[] = "CREATE TABLE IF NOT EXISTS log ("
				 " rev INTEGER PRIMARY KEY, key TEXT NOT NULL, create_rev INTEGER NOT NULL,"
				 " prev_rev INTEGER NOT NULL, deleted INTEGER NOT NULL, value BLOB);"
				 "CREATE INDEX IF NOT EXISTS log_key_rev ON log(key, rev);"
				 "CREATE TABLE IF NOT EXISTS meta (k TEXT PRIMARY KEY, v INTEGER NOT NULL);";

static int db_error(sk__sdb *d, sk_error_t *err, const char *what)
{
	d->rc = sqlite3_extended_errcode(d->db);
	return sk_error_set(err, SK_EINTERNAL, "store: %s: %s", what, sqlite3_errmsg(d->db));
}

static int exec(sk__sdb *d, const char *sql, sk_error_t *err)
{
	if (sqlite3_exec(d->db, sql, NULL, NULL, NULL) != SQLITE_OK)
		return db_error(d, err, sql);
	return 0;
}

static int prepare(sk__sdb *d, const char *sql, sqlite3_stmt **st, sk_error_t *err)
{
	if (sqlite3_prepare_v3(d->db, sql, -1, SQLITE_PREPARE_PERSISTENT, st, NULL) != SQLITE_OK)
		return db_error(d, err, "prepare");
	return 0;
}

static int prepare_writer(sk__sdb *d, sk_error_t *err)
{
	if (prepare(d, "BEGIN IMMEDIATE", &d->begin, err) < 0 || prepare(d, "COMMIT", &d->commit, err) < 0 ||
	    prepare(d, "ROLLBACK", &d->rollback, err) < 0 ||
	    prepare(d, "INSERT INTO log(rev, key, create_rev, prev_rev, deleted, value) VALUES (?,?,?,?,?,?)", &d->ins,
		    err) < 0 ||
	    prepare(d,
		    "DELETE FROM log WHERE rev IN (SELECT prev_rev FROM log WHERE rev > ?1 AND rev <= ?2 AND prev_rev "
		    "> 0)",
		    &d->cmp_prev, err) < 0 ||
	    prepare(d, "DELETE FROM log WHERE rev > ?1 AND rev <= ?2 AND deleted = 1", &d->cmp_tomb, err) < 0 ||
	    prepare(d, "INSERT OR REPLACE INTO meta(k, v) VALUES ('compacted_rev', ?1)", &d->meta_set, err) < 0 ||
	    prepare(d, "SELECT COALESCE(MAX(rev), 0) FROM log", &d->last, err) < 0)
		return -1;
	return 0;
}

int sk__sdb_open(sk__sdb *d, const char *path, int writer, sk_error_t *err)
{
	int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX | (writer ? SQLITE_OPEN_CREATE : 0);

	memset(d, 0, sizeof(*d));
	if (sqlite3_open_v2(path, &d->db, flags, NULL) != SQLITE_OK) {
		sk_error_set(err, SK_EINTERNAL, "store \"%s\": open: %s", path,
			     d->db ? sqlite3_errmsg(d->db) : "out of memory");
		sk__sdb_close(d);
		return -1;
	}
	sqlite3_busy_timeout(d->db, 10000);
	if (writer && (exec(d, "PRAGMA auto_vacuum=INCREMENTAL", err) < 0 ||
		       exec(d, "PRAGMA journal_mode=WAL", err) < 0 || exec(d, schema_sql, err) < 0 ||
		       exec(d, "PRAGMA journal_size_limit=16777216", err) < 0 || prepare_writer(d, err) < 0))
		goto fail;
	if (exec(d, "PRAGMA synchronous=FULL", err) < 0 || exec(d, "PRAGMA cache_size=-16384", err) < 0)
		goto fail;
	return 0;
fail:
	sk_error_wrap(err, "store \"%s\"", path);
	sk__sdb_close(d);
	return -1;
}

void sk__sdb_close(sk__sdb *d)
{
	sqlite3_stmt **sts[] = {&d->begin,    &d->commit,   &d->rollback, &d->ins,
				&d->cmp_prev, &d->cmp_tomb, &d->meta_set, &d->last};

	for (size_t i = 0; i < sizeof(sts) / sizeof(sts[0]); i++) {
		sqlite3_finalize(*sts[i]);
		*sts[i] = NULL;
	}
	if (d->db)
		sqlite3_close(d->db);
	d->db = NULL;
}

static int query_int(sk__sdb *d, const char *sql, int64_t *out, sk_error_t *err)
{
	sqlite3_stmt *st = NULL;
	int rc;

	if (sqlite3_prepare_v2(d->db, sql, -1, &st, NULL) != SQLITE_OK)
		return db_error(d, err, "prepare");
	*out = 0;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*out = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return db_error(d, err, sql);
	return 0;
}

static int load_state(sk__sdb *d, sk__memtab *t, sk_error_t *err)
{
	static const char sql[] = "SELECT l.key, l.value, l.create_rev, l.rev FROM log l"
				  " WHERE l.rev = (SELECT MAX(m.rev) FROM log m WHERE m.key = l.key)"
				  " AND l.deleted = 0 ORDER BY l.key";
	sqlite3_stmt *st = NULL;
	int rc;

	if (sqlite3_prepare_v2(d->db, sql, -1, &st, NULL) != SQLITE_OK)
		return db_error(d, err, "prepare");
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *key = (const char *)sqlite3_column_text(st, 0);
		const char *val = sqlite3_column_blob(st, 1);
		size_t len = (size_t)sqlite3_column_bytes(st, 1);

		sk__memtab_put(t, sk__blob_new(key, strlen(key)), sk__blob_new(val, len), sqlite3_column_int64(st, 2),
			       sqlite3_column_int64(st, 3));
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return db_error(d, err, "load");
	return 0;
}

int sk__sdb_load(sk__sdb *d, sk__memtab *t, int64_t *rev, int64_t *compacted, int64_t *rows, sk_error_t *err)
{
	if (exec(d, "BEGIN", err) < 0)
		return -1;
	if (query_int(d, "SELECT COALESCE(MAX(rev), 0) FROM log", rev, err) < 0 ||
	    query_int(d, "SELECT v FROM meta WHERE k = 'compacted_rev'", compacted, err) < 0 ||
	    query_int(d, "SELECT COUNT(*) FROM log", rows, err) < 0 || load_state(d, t, err) < 0) {
		exec(d, "ROLLBACK", NULL);
		return -1;
	}
	exec(d, "COMMIT", NULL);
	if (*compacted > *rev)
		*rev = *compacted;
	return 0;
}

static int step_done(sk__sdb *d, sqlite3_stmt *st, sk_error_t *err, const char *what)
{
	int rc = sqlite3_step(st);

	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		return db_error(d, err, what);
	return 0;
}

static int insert_row(sk__sdb *d, const sk__row *r, sk_error_t *err)
{
	sqlite3_stmt *st = d->ins;

	sqlite3_bind_int64(st, 1, r->rev);
	sqlite3_bind_text(st, 2, r->key, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, r->create_rev);
	sqlite3_bind_int64(st, 4, r->prev_rev);
	sqlite3_bind_int(st, 5, r->deleted);
	if (r->val)
		sqlite3_bind_blob64(st, 6, r->val, r->len, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, 6);
	return step_done(d, st, err, "insert");
}

int sk__sdb_write(sk__sdb *d, const sk__row *rows, size_t n, sk_error_t *err)
{
	if (step_done(d, d->begin, err, "begin") < 0)
		goto fail;
	for (size_t i = 0; i < n; i++)
		if (insert_row(d, &rows[i], err) < 0)
			goto fail;
	if (step_done(d, d->commit, err, "commit") < 0)
		goto fail;
	return 0;
fail:
	if (!sqlite3_get_autocommit(d->db))
		step_done(d, d->rollback, NULL, "rollback");
	return -1;
}

int sk__sdb_compact(sk__sdb *d, int64_t lo, int64_t hi, int64_t *removed, sk_error_t *err)
{
	*removed = 0;
	if (step_done(d, d->begin, err, "begin") < 0)
		return -1;
	sqlite3_bind_int64(d->cmp_prev, 1, lo);
	sqlite3_bind_int64(d->cmp_prev, 2, hi);
	if (step_done(d, d->cmp_prev, err, "compact") < 0)
		goto fail;
	*removed += sqlite3_changes(d->db);
	sqlite3_bind_int64(d->cmp_tomb, 1, lo);
	sqlite3_bind_int64(d->cmp_tomb, 2, hi);
	if (step_done(d, d->cmp_tomb, err, "compact") < 0)
		goto fail;
	*removed += sqlite3_changes(d->db);
	sqlite3_bind_int64(d->meta_set, 1, hi);
	if (step_done(d, d->meta_set, err, "compact") < 0 || step_done(d, d->commit, err, "commit") < 0)
		goto fail;
	return 0;
fail:
	*removed = 0;
	if (!sqlite3_get_autocommit(d->db))
		step_done(d, d->rollback, NULL, "rollback");
	return -1;
}

int sk__sdb_last_rev(sk__sdb *d, int64_t *rev, sk_error_t *err)
{
	int rc = sqlite3_step(d->last);

	*rev = rc == SQLITE_ROW ? sqlite3_column_int64(d->last, 0) : 0;
	sqlite3_reset(d->last);
	if (rc != SQLITE_ROW)
		return db_error(d, err, "read the last revision");
	return 0;
}

int sk__sdb_drop_wal(sk__sdb *d, sk_error_t *err)
{
	if (sqlite3_wal_checkpoint_v2(d->db, NULL, SQLITE_CHECKPOINT_TRUNCATE, NULL, NULL) != SQLITE_OK)
		return db_error(d, err, "checkpoint");
	return 0;
}

int sk__sdb_unusable(const sk__sdb *d)
{
	switch (d->rc & 0xff) {
	case SQLITE_CORRUPT:
	case SQLITE_NOTADB:
	case SQLITE_READONLY:
	case SQLITE_CANTOPEN:
		return 1;
	}
	return 0;
}

void sk__sdb_checkpoint(sk__sdb *d)
{
	sqlite3_exec(d->db, "PRAGMA incremental_vacuum", NULL, NULL, NULL);
	sqlite3_wal_checkpoint_v2(d->db, NULL, SQLITE_CHECKPOINT_TRUNCATE, NULL, NULL);
}

/* Fails with SK_EGONE when rev is below the compacted revision of the
 * snapshot the open read transaction sees. */
static int check_compacted(sk__sdb *d, int64_t rev, sk_error_t *err)
{
	int64_t compacted;

	if (query_int(d, "SELECT v FROM meta WHERE k = 'compacted_rev'", &compacted, err) < 0)
		return -1;
	if (rev < compacted)
		return sk_error_set(err, SK_EGONE, "store: revision %lld is compacted (oldest %lld)", (long long)rev,
				    (long long)compacted);
	return 0;
}

static void bind_range(sqlite3_stmt *st, int at, const char *prefix, const char *end)
{
	sqlite3_bind_text(st, at, prefix, -1, SQLITE_STATIC);
	if (end)
		sqlite3_bind_text(st, at + 1, end, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, at + 1);
}

static int list_rows(sk__sdb *d, sqlite3_stmt *st, size_t limit, sk_store_list *out, sk_error_t *err)
{
	size_t cap = 0;
	int rc;

	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (limit && out->n == limit) {
			out->more = 1;
			break;
		}
		if (out->n == cap) {
			cap = cap ? cap * 2 : 16;
			out->items = xrealloc(out->items, cap * sizeof(out->items[0]));
		}
		sk__kv_fill(&out->items[out->n++], (const char *)sqlite3_column_text(st, 0), sqlite3_column_blob(st, 1),
			    (size_t)sqlite3_column_bytes(st, 1), sqlite3_column_int64(st, 2),
			    sqlite3_column_int64(st, 3));
	}
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return db_error(d, err, "list");
	return 0;
}

int sk__sdb_list_at(sk__sdb *d, const char *prefix, const char *after, size_t limit, int64_t rev, sk_store_list *out,
		    sk_error_t *err)
{
	static const char sql[] = "SELECT l.key, l.value, l.create_rev, l.rev FROM log l"
				  " WHERE l.key >= ?1 AND (?2 IS NULL OR l.key < ?2) AND l.key > ?3"
				  " AND l.rev = (SELECT MAX(m.rev) FROM log m WHERE m.key = l.key AND m.rev <= ?4)"
				  " AND l.deleted = 0 ORDER BY l.key LIMIT ?5";
	cleanup_free char *end = sk__prefix_end(prefix);
	sqlite3_stmt *st = NULL;
	int ret = -1;

	if (exec(d, "BEGIN", err) < 0)
		return -1;
	if (check_compacted(d, rev, err) < 0)
		goto out;
	if (sqlite3_prepare_v2(d->db, sql, -1, &st, NULL) != SQLITE_OK) {
		db_error(d, err, "prepare");
		goto out;
	}
	bind_range(st, 1, prefix, end);
	sqlite3_bind_text(st, 3, after ? after : "", -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 4, rev);
	sqlite3_bind_int64(st, 5, limit ? (int64_t)limit + 1 : -1);
	out->rev = rev;
	ret = list_rows(d, st, limit, out, err);
out:
	sqlite3_finalize(st);
	exec(d, "COMMIT", NULL);
	if (ret < 0)
		sk_store_list_release(out);
	return ret;
}

/* Delivers the row st is on as an event. Column order as in sk__sdb_replay. */
static void replay_row(sqlite3_stmt *st, sk_store_watch *w)
{
	int64_t rev = sqlite3_column_int64(st, 0);
	int deleted = sqlite3_column_int(st, 4);
	int has_prev = sqlite3_column_type(st, 7) != SQLITE_NULL;
	sk_store_kv kv = {0}, prev = {0};
	sk_store_event ev = {0};

	kv.key = (char *)sqlite3_column_text(st, 1);
	kv.create_rev = sqlite3_column_int64(st, 3);
	kv.mod_rev = rev;
	if (has_prev) {
		prev.key = kv.key;
		prev.value = (char *)sqlite3_column_blob(st, 5);
		prev.len = (size_t)sqlite3_column_bytes(st, 5);
		prev.create_rev = sqlite3_column_int64(st, 6);
		prev.mod_rev = sqlite3_column_int64(st, 7);
		ev.prev = &prev;
	}
	if (deleted) {
		ev.type = SK_STORE_DELETE;
		kv.value = prev.value ? prev.value : (char *)"";
		kv.len = prev.len;
	} else {
		ev.type = has_prev ? SK_STORE_UPDATE : SK_STORE_CREATE;
		kv.value = (char *)sqlite3_column_blob(st, 2);
		kv.len = (size_t)sqlite3_column_bytes(st, 2);
		if (!kv.value)
			kv.value = (char *)"";
	}
	if (prev.value == NULL && has_prev)
		prev.value = (char *)"";
	ev.kv = &kv;
	sk__watch_deliver(w, &ev, rev);
}

int sk__sdb_replay(sk__sdb *d, sk_store_watch *w, int64_t from_rev, int64_t to_rev, sk_error_t *err)
{
	static const char sql[] =
		"SELECT l.rev, l.key, l.value, l.create_rev, l.deleted, p.value, p.create_rev, p.rev"
		" FROM log l LEFT JOIN log p ON p.rev = l.prev_rev AND l.prev_rev > 0"
		" WHERE l.rev > ?3 AND l.rev <= ?4 AND l.key >= ?1 AND (?2 IS NULL OR l.key < ?2) ORDER BY l.rev";
	cleanup_free char *end = sk__prefix_end(w->prefix);
	sqlite3_stmt *st = NULL;
	int rc, ret = -1;

	if (exec(d, "BEGIN", err) < 0)
		return -1;
	if (check_compacted(d, from_rev, err) < 0)
		goto out;
	if (sqlite3_prepare_v2(d->db, sql, -1, &st, NULL) != SQLITE_OK) {
		db_error(d, err, "prepare");
		goto out;
	}
	bind_range(st, 1, w->prefix, end);
	sqlite3_bind_int64(st, 3, from_rev);
	sqlite3_bind_int64(st, 4, to_rev);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		replay_row(st, w);
	if (rc != SQLITE_DONE)
		db_error(d, err, "replay");
	else
		ret = 0;
out:
	sqlite3_finalize(st);
	exec(d, "COMMIT", NULL);
	return ret;
}
