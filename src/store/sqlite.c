/* The SQLite backend ("sqlite://DIR" → DIR/state.db).
 *
 * Writes: callers queue a request and wait. One writer thread takes every
 * queued request, checks each against the current state plus the earlier
 * requests of the same batch, assigns consecutive revisions, inserts the
 * batch in one transaction (synchronous=FULL, so concurrent writers share one
 * fsync), then applies it to the in-memory state, feeds the watchers in
 * revision order and wakes the callers. Nothing is visible before its commit.
 *
 * Reads at the current revision come from the in-memory skip list under a
 * read lock; older revisions and old watch history come from a second,
 * read-only connection.
 *
 * Compaction runs on the writer thread between batches, one short
 * transaction of at most COMPACT_WINDOW revisions at a time (explicit
 * sk_store_compact calls too: they wait while writes go on), and the WAL is
 * checkpointed (TRUNCATE) and free pages vacuumed when the writer is idle.
 *
 * A failed commit fails every write of its batch and changes nothing in
 * memory; the writer then checks the log's last revision (SQLite may report
 * an error for a commit that took effect) and drops the WAL's tail. An error
 * that makes the file untrustworthy latches writes off (s->broken); reads
 * go on from memory. See docs/ARCHITECTURE.md. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <semaphore.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>

#include "store/fault.h"
#include "store/sqlite-int.h"
#include "util/util.h"

#define DEFAULT_HISTORY_SECS 300
#define DEFAULT_HISTORY_EVENTS 100000
#define RING_EVENTS 8192
#define COMPACT_WINDOW 1000
#define MAX_BATCH 2048
#define NSAMPLES 2048
#define IDLE_WAIT_NS (100 * 1000000LL)
#define CHECKPOINT_EVERY_NS (1000 * 1000000LL)
#define COMPACT_EVERY_NS (100 * 1000000LL)
#define COMPACT_RETRY_NS (1000 * 1000000LL)

enum { OP_CREATE, OP_UPDATE, OP_DELETE, OP_COMPACT };

/* One queued write; lives on the caller's stack until done is posted. */
struct wreq {
	int op;
	sk__blob *key, *val; /* owned by the caller */
	int64_t expect_rev;  /* OP_COMPACT: the target revision */
	/* results, set by the writer */
	int64_t rev;
	sk_error_t err;
	int accepted;
	int64_t create_rev, prev_create_rev, prev_mod_rev;
	sk__blob *prev_val; /* a reference the caller drops */
	sem_t done;         /* posted once the results are set; the caller may then free r */
	struct wreq *next;
};

struct rev_sample {
	int64_t t_ns, rev;
};

struct sqlite_store {
	sk_store base;
	char *path;
	int lock_fd;                          /* flock on DIR/state.lock: one owner */
	int64_t history_secs, history_events; /* < 0: no bound of that kind */

	pthread_rwlock_t lock; /* guards tab and rev */
	sk__memtab tab;
	int64_t rev;
	int64_t compacted;             /* atomic */
	int64_t commits, writes, rows; /* atomic */

	pthread_mutex_t wmu; /* guards hub and watch_rev */
	sk__hub hub;
	int64_t watch_rev;
	int64_t delivered; /* atomic: watch_rev once its events reached every watcher */

	pthread_mutex_t rmu; /* guards rdb */
	sk__sdb rdb;

	pthread_mutex_t qmu; /* guards the queue */
	pthread_cond_t qcv;
	struct wreq *qhead, **qtail;
	int stop;
	pthread_t writer;
	int writer_started;

	/* writer thread only */
	sk__sdb wdb;
	struct wreq *cwait; /* compaction requests in progress (writer only) */
	struct rev_sample samples[NSAMPLES];
	size_t nsamples;
	int64_t sample_every_ns, last_ckpt_ns, last_compact_ns, compact_failed_ns, compact_lag;
	int dirty, behind;
	int unsure;        /* a failed commit whose outcome is not known yet */
	sk_error_t broken; /* code != 0: the database is unusable, writes are refused */
};

#define S(base) ((struct sqlite_store *)(base))

static int64_t load64(const int64_t *p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }
static void store64(int64_t *p, int64_t v) { __atomic_store_n(p, v, __ATOMIC_RELEASE); }
static void add64(int64_t *p, int64_t v) { __atomic_add_fetch(p, v, __ATOMIC_RELAXED); }

/* ---- compaction bound ---- */

static void sample_rev(struct sqlite_store *s, int64_t now)
{
	if (s->nsamples && now - s->samples[s->nsamples - 1].t_ns < s->sample_every_ns)
		return;
	if (s->nsamples == NSAMPLES) {
		/* Thin out: keep every other sample and sample half as often. */
		for (size_t i = 0; i < NSAMPLES / 2; i++)
			s->samples[i] = s->samples[2 * i + 1];
		s->nsamples = NSAMPLES / 2;
		s->sample_every_ns *= 2;
	}
	s->samples[s->nsamples].t_ns = now;
	s->samples[s->nsamples].rev = s->rev;
	s->nsamples++;
}

/* Newest revision written at least history_secs ago (drops older samples). */
static int64_t time_bound(struct sqlite_store *s, int64_t now)
{
	int64_t cutoff = now - s->history_secs * 1000000000LL;
	size_t i = 0;

	if (s->history_secs < 0)
		return s->rev;
	while (i < s->nsamples && s->samples[i].t_ns <= cutoff)
		i++;
	if (i == 0)
		return 0;
	if (i > 1) {
		memmove(s->samples, s->samples + i - 1, (s->nsamples - i + 1) * sizeof(s->samples[0]));
		s->nsamples -= i - 1;
	}
	return s->samples[0].rev;
}

static int64_t compact_target(struct sqlite_store *s, int64_t now)
{
	int64_t by_time = time_bound(s, now);
	int64_t by_count = s->history_events < 0 ? s->rev : s->rev - s->history_events;

	return by_time < by_count ? by_time : by_count;
}

/* Compacts one window towards target; returns 1 if more remains, 0 when
 * done, -1 on error. */
static int compact_step(struct sqlite_store *s, int64_t target, sk_error_t *err)
{
	int64_t lo = s->compacted, hi, removed;

	if (target <= lo)
		return 0;
	hi = target - lo > COMPACT_WINDOW ? lo + COMPACT_WINDOW : target;
	if (sk__sdb_compact(&s->wdb, lo, hi, &removed, err) < 0)
		return -1;
	store64(&s->compacted, hi);
	add64(&s->rows, -removed);
	s->dirty = 1;
	return hi < target;
}

/* Under load a compaction step costs a commit of its own, so steps are
 * taken when idle, when compact_lag revisions are due (at most a window, at
 * most the event bound, so small bounds stay tight), or every
 * COMPACT_EVERY_NS. */
static int compaction_due(struct sqlite_store *s, int64_t target, int64_t now, int idle)
{
	if (target <= s->compacted)
		return 0;
	return idle || target - s->compacted >= s->compact_lag || now - s->last_compact_ns >= COMPACT_EVERY_NS;
}

/* Marks r done and wakes its caller; r must not be touched afterwards. A
 * semaphore, posted without qmu: a condition variable signalled under qmu
 * woke each caller into the held qmu, a second sleep and wakeup per write. */
static void finish(struct wreq *r) { sem_post(&r->done); }

static int64_t pending_compaction(struct sqlite_store *s)
{
	int64_t want = 0;

	for (struct wreq *r = s->cwait; r; r = r->next)
		if (r->expect_rev > want)
			want = r->expect_rev;
	return want;
}

/* Completes the compaction requests that are reached, or all of them with
 * err when err is set. */
static void finish_compactions(struct sqlite_store *s, const sk_error_t *err)
{
	struct wreq **pr = &s->cwait, *r;
	int checkpointed = 0;

	while ((r = *pr)) {
		if (!err && r->expect_rev > s->compacted) {
			pr = &r->next;
			continue;
		}
		*pr = r->next;
		if (err) {
			r->err = *err;
			r->rev = -1;
		} else {
			if (!checkpointed++)
				sk__sdb_checkpoint(&s->wdb);
			r->rev = s->compacted;
		}
		finish(r);
	}
}

static void maintain(struct sqlite_store *s, int idle)
{
	int64_t now = sk_mono_ns(), target, want;
	sk_error_t err = {0};
	int r = 0;

	if (s->broken.code) {
		/* Nothing more is written to a database that cannot be trusted. */
		if (s->cwait)
			finish_compactions(s, &s->broken);
		return;
	}
	sample_rev(s, now);
	target = compact_target(s, now);
	want = pending_compaction(s);
	if (want > s->compacted ||
	    (now - s->compact_failed_ns >= COMPACT_RETRY_NS && compaction_due(s, target, now, idle))) {
		r = compact_step(s, want > target ? want : target, &err);
		s->last_compact_ns = now;
	}
	if (r < 0) {
		/* A full disk fails every step: retry once a second, not on every idle wakeup. */
		sk_warn("store", "compaction: %s", err.msg);
		s->compact_failed_ns = now;
	}
	if (s->cwait)
		finish_compactions(s, r < 0 ? &err : NULL);
	s->behind = r > 0;
	if (idle && s->dirty && !s->behind && now - s->last_ckpt_ns >= CHECKPOINT_EVERY_NS) {
		sk__sdb_checkpoint(&s->wdb);
		s->dirty = 0;
		s->last_ckpt_ns = now;
	}
}

/* ---- the write path ---- */

/* The state of r's key as of the requests before it in the batch. */
static sk__mnode *current(struct sqlite_store *s, sk__memtab *overlay, struct wreq *r)
{
	sk__mnode *n = sk__memtab_find(overlay, r->key->data);

	if (n)
		return n->val ? n : NULL;
	return sk__memtab_find(&s->tab, r->key->data);
}

static int check(struct wreq *r, sk__mnode *cur)
{
	const char *k = r->key->data;

	if (r->op == OP_CREATE) {
		if (cur)
			return sk_error_set(&r->err, SK_EEXISTS, "key \"%s\" already exists", k);
		return 0;
	}
	if (!cur)
		return sk_error_set(&r->err, SK_ENOTFOUND, "key \"%s\" not found", k);
	if (r->expect_rev && r->expect_rev != cur->mod_rev)
		return sk_error_set(&r->err, SK_ECONFLICT, "key \"%s\": revision %lld is not the current %lld", k,
				    (long long)r->expect_rev, (long long)cur->mod_rev);
	return 0;
}

/* Validates r, and if it passes assigns it revision rev and fills row. */
static int accept(struct sqlite_store *s, sk__memtab *overlay, struct wreq *r, int64_t rev, sk__row *row)
{
	sk__mnode *cur = current(s, overlay, r);

	if (check(r, cur) < 0)
		return -1;
	r->accepted = 1;
	r->rev = rev;
	r->create_rev = cur ? cur->create_rev : rev;
	if (cur) {
		r->prev_val = sk__blob_ref(cur->val);
		r->prev_create_rev = cur->create_rev;
		r->prev_mod_rev = cur->mod_rev;
	}
	sk__memtab_put(overlay, sk__blob_ref(r->key), r->op == OP_DELETE ? NULL : sk__blob_ref(r->val), r->create_rev,
		       rev);
	*row = (sk__row){.rev = rev,
			 .key = r->key->data,
			 .create_rev = r->create_rev,
			 .prev_rev = cur ? cur->mod_rev : 0,
			 .deleted = r->op == OP_DELETE,
			 .val = r->op == OP_DELETE ? NULL : r->val->data,
			 .len = r->op == OP_DELETE ? 0 : r->val->len};
	return 0;
}

static void apply_state(struct sqlite_store *s, struct wreq **reqs, size_t n, int64_t last)
{
	pthread_rwlock_wrlock(&s->lock);
	for (size_t i = 0; i < n; i++) {
		struct wreq *r = reqs[i];

		if (r->op == OP_DELETE)
			sk__memtab_remove(&s->tab, r->key->data);
		else
			sk__memtab_put(&s->tab, sk__blob_ref(r->key), sk__blob_ref(r->val), r->create_rev, r->rev);
	}
	s->rev = last;
	pthread_rwlock_unlock(&s->lock);
}

static void publish(struct sqlite_store *s, struct wreq **reqs, size_t n, int64_t last)
{
	pthread_mutex_lock(&s->wmu);
	for (size_t i = 0; i < n; i++) {
		struct wreq *r = reqs[i];
		sk__event ev = {.rev = r->rev,
				.key = sk__blob_ref(r->key),
				.create_rev = r->create_rev,
				.prev = sk__blob_ref(r->prev_val),
				.prev_create_rev = r->prev_create_rev,
				.prev_mod_rev = r->prev_mod_rev};

		ev.type = r->op == OP_CREATE ? SK_STORE_CREATE : r->op == OP_UPDATE ? SK_STORE_UPDATE : SK_STORE_DELETE;
		ev.val = sk__blob_ref(r->op == OP_DELETE ? r->prev_val : r->val);
		sk__hub_push(&s->hub, &ev);
	}
	s->watch_rev = last;
	__atomic_store_n(&s->delivered, last, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&s->wmu);
}

/* Fails every write of reqs (not compactions) with err. */
static void fail_all(struct wreq **reqs, size_t n, const sk_error_t *err)
{
	for (size_t i = 0; i < n; i++) {
		if (reqs[i]->op == OP_COMPACT)
			continue;
		reqs[i]->err = *err;
		reqs[i]->rev = -1;
		reqs[i]->accepted = 0;
		sk__blob_unref(steal_ptr(&reqs[i]->prev_val));
	}
}

/* Marks the database unusable: every later write is refused with why, reads
 * go on from memory. */
static void latch(struct sqlite_store *s, const char *why)
{
	if (s->broken.code)
		return;
	sk_error_set(&s->broken, SK_EINTERNAL,
		     "store: the database is unusable (%s): writes are refused until the server restarts, reads "
		     "are served from memory",
		     why);
	sk_err("store", "%s", s->broken.msg);
}

/* After a failed commit that did not take effect: drops what the failed
 * transaction may have left in the WAL past the last commit. */
static void drop_failed_frames(struct sqlite_store *s)
{
	sk_error_t err = {0};

	if (sk__sdb_drop_wal(&s->wdb, &err) < 0)
		sk_warn("store",
			"after a failed commit: %s (until a commit succeeds, a crash may bring back the "
			"failed write)",
			err.msg);
}

/* Learns whether a failed commit of the nok revisions after s->rev took
 * effect all the same: 1 when it did, 0 when it did not, -1 when that cannot
 * be read now (err says why; s->unsure is set, and the next batch asks
 * again). The log disagreeing with memory in any other way latches the store. */
static int committed(struct sqlite_store *s, int64_t nok, sk_error_t *err)
{
	int64_t last;
	char why[96];

	if (sk__sdb_last_rev(&s->wdb, &last, err) < 0) {
		s->unsure = 1;
		return -1;
	}
	s->unsure = 0;
	if (last == s->rev + nok && nok > 0)
		return 1;
	if (last != s->rev) {
		snprintf(why, sizeof(why), "the log ends at revision %lld, memory at %lld", (long long)last,
			 (long long)s->rev);
		latch(s, why);
	}
	return 0;
}

/* Refuses the batch when the store is latched, or when an earlier failed
 * commit's outcome is still unknown (asking again first). */
static int refuse(struct sqlite_store *s, struct wreq **reqs, size_t n)
{
	sk_error_t err = {0};

	if (s->unsure && !s->broken.code && committed(s, 0, &err) == 0)
		drop_failed_frames(s);
	if (s->broken.code)
		err = s->broken;
	else if (s->unsure)
		sk_error_wrap(&err, "store: cannot check an earlier failed commit, the write was not stored");
	else
		return 0;
	fail_all(reqs, n, &err);
	return 1;
}

/* The commit of the batch failed (err): fails its accepted writes, and
 * those that were refused only because of an earlier write of the batch get
 * the same error (they were checked against a state that never was). */
static void fail_batch(struct sqlite_store *s, struct wreq **reqs, size_t n, const sk_error_t *err)
{
	sk_error_t e = {0};

	if (s->broken.code)
		e = s->broken;
	else
		sk_error_set(&e, SK_EINTERNAL, "%s; the write was not stored", err->msg);
	for (size_t i = 0; i < n; i++) {
		struct wreq *r = reqs[i];

		if (r->op == OP_COMPACT || r->accepted)
			continue;
		if (check(r, sk__memtab_find(&s->tab, r->key->data)) == 0)
			r->accepted = 1;
	}
	for (size_t i = 0; i < n; i++)
		if (reqs[i]->accepted)
			fail_all(&reqs[i], 1, &e);
}

/* Validates, commits and publishes the writes among reqs[0..n). */
static void write_batch(struct sqlite_store *s, struct wreq **reqs, size_t n)
{
	cleanup_free sk__row *rows = xmalloc(n * sizeof(*rows));
	cleanup_free struct wreq **ok = xmalloc(n * sizeof(*ok));
	sk_error_t err = {0};
	sk__memtab overlay;
	size_t nok = 0;

	if (refuse(s, reqs, n))
		return;
	sk__memtab_init(&overlay);
	for (size_t i = 0; i < n; i++) {
		if (reqs[i]->op != OP_COMPACT &&
		    accept(s, &overlay, reqs[i], s->rev + 1 + (int64_t)nok, &rows[nok]) == 0)
			ok[nok++] = reqs[i];
		else if (reqs[i]->op != OP_COMPACT)
			reqs[i]->rev = -1;
	}
	sk__memtab_release(&overlay);
	if (nok == 0)
		return;
	if (sk__sdb_write(&s->wdb, rows, nok, &err) < 0) {
		sk_error_t qerr = {0};
		int unusable = sk__sdb_unusable(&s->wdb), done = unusable ? 0 : committed(s, (int64_t)nok, &qerr);

		if (done == 1) {
			sk_warn("store", "write: %s, but the batch of %zu is committed", err.msg, nok);
		} else {
			sk_err("store", "write of %zu: %s", nok, err.msg);
			if (unusable)
				latch(s, err.msg);
			fail_batch(s, reqs, n, &err);
			if (done == 0 && !s->broken.code)
				drop_failed_frames(s);
			return;
		}
	}
	add64(&s->commits, 1);
	add64(&s->writes, (int64_t)nok);
	add64(&s->rows, (int64_t)nok);
	s->dirty = 1;
	apply_state(s, ok, nok, s->rev + (int64_t)nok);
	publish(s, ok, nok, s->rev);
}

/* Commits the writes of a batch and wakes their callers; compaction
 * requests wait in cwait for maintain(). */
static void process(struct sqlite_store *s, struct wreq *batch)
{
	struct wreq *reqs[MAX_BATCH];
	size_t n = 0;

	for (struct wreq *r = batch; r; r = r->next)
		reqs[n++] = r;
	write_batch(s, reqs, n);
	for (size_t i = 0; i < n; i++) {
		if (reqs[i]->op == OP_COMPACT) {
			reqs[i]->next = s->cwait;
			s->cwait = reqs[i];
			continue;
		}
		finish(reqs[i]);
	}
}

/* Takes up to MAX_BATCH queued requests; qmu held. */
static struct wreq *take_batch(struct sqlite_store *s)
{
	struct wreq *head = s->qhead, *r = head;
	size_t n = 1;

	if (!head)
		return NULL;
	while (r->next && n < MAX_BATCH) {
		r = r->next;
		n++;
	}
	s->qhead = r->next;
	if (!s->qhead)
		s->qtail = &s->qhead;
	r->next = NULL;
	return head;
}

static void wait_for_work(struct sqlite_store *s)
{
	struct timespec ts;
	int64_t deadline;

	if (s->qhead || s->stop || s->behind)
		return;
	deadline = sk_mono_ns() + IDLE_WAIT_NS;
	ts.tv_sec = deadline / 1000000000LL;
	ts.tv_nsec = deadline % 1000000000LL;
	pthread_cond_timedwait(&s->qcv, &s->qmu, &ts);
}

static void *writer_main(void *arg)
{
	struct sqlite_store *s = arg;

	for (;;) {
		struct wreq *batch;
		int stopping;

		pthread_mutex_lock(&s->qmu);
		wait_for_work(s);
		batch = take_batch(s);
		stopping = s->stop;
		pthread_mutex_unlock(&s->qmu);
		if (batch)
			process(s, batch);
		if (stopping && !batch)
			break;
		maintain(s, !batch);
	}
	if (s->cwait) {
		sk_error_t err = {0};

		sk_error_set(&err, SK_EUNAVAILABLE, "store: closing");
		finish_compactions(s, &err);
	}
	sk__sdb_checkpoint(&s->wdb);
	return NULL;
}

/* Queues r and waits for the writer to finish it. */
static void submit(struct sqlite_store *s, struct wreq *r)
{
	pthread_mutex_lock(&s->qmu);
	if (s->stop) {
		pthread_mutex_unlock(&s->qmu);
		r->rev = sk_error_set(&r->err, SK_EUNAVAILABLE, "store: closing");
		return;
	}
	r->next = NULL;
	sem_init(&r->done, 0, 0);
	*s->qtail = r;
	s->qtail = &r->next;
	pthread_cond_signal(&s->qcv);
	pthread_mutex_unlock(&s->qmu);
	while (sem_wait(&r->done) < 0)
		; /* EINTR */
	sem_destroy(&r->done);
}

static int64_t do_write(struct sqlite_store *s, struct wreq *r, sk_store_kv *prev, sk_error_t *err)
{
	submit(s, r);
	if (r->rev < 0) {
		if (err)
			*err = r->err;
	} else if (prev && r->prev_val) {
		sk__kv_fill(prev, r->key->data, r->prev_val->data, r->prev_val->len, r->prev_create_rev,
			    r->prev_mod_rev);
	}
	sk__blob_unref(r->key);
	sk__blob_unref(r->val);
	sk__blob_unref(r->prev_val);
	return r->rev < 0 ? -1 : r->rev;
}

static int64_t op_create(sk_store *base, const char *key, const char *value, size_t len, sk_error_t *err)
{
	struct wreq r = {.op = OP_CREATE};

	if (!key || !*key)
		return sk_error_set(err, SK_EINVALID, "store: empty key");
	r.key = sk__blob_new(key, strlen(key));
	r.val = sk__blob_new(value, len);
	return do_write(S(base), &r, NULL, err);
}

static int64_t op_update(sk_store *base, const char *key, const char *value, size_t len, int64_t expect_rev,
			 sk_error_t *err)
{
	struct wreq r = {.op = OP_UPDATE, .expect_rev = expect_rev};

	if (!key || !*key)
		return sk_error_set(err, SK_EINVALID, "store: empty key");
	r.key = sk__blob_new(key, strlen(key));
	r.val = sk__blob_new(value, len);
	return do_write(S(base), &r, NULL, err);
}

static int64_t op_delete(sk_store *base, const char *key, int64_t expect_rev, sk_store_kv *prev, sk_error_t *err)
{
	struct wreq r = {.op = OP_DELETE, .expect_rev = expect_rev};

	if (!key || !*key)
		return sk_error_set(err, SK_EINVALID, "store: empty key");
	r.key = sk__blob_new(key, strlen(key));
	return do_write(S(base), &r, prev, err);
}

static int op_compact(sk_store *base, int64_t rev, sk_error_t *err)
{
	struct sqlite_store *s = S(base);
	struct wreq r = {.op = OP_COMPACT, .expect_rev = rev};

	if (rev > sk_store_rev(base))
		return sk_error_set(err, SK_EINVALID, "store: cannot compact to future revision %lld", (long long)rev);
	submit(s, &r);
	if (r.rev < 0) {
		if (err)
			*err = r.err;
		return -1;
	}
	return 0;
}

/* ---- reads ---- */

static int64_t op_delivered_rev(sk_store *base) { return __atomic_load_n(&S(base)->delivered, __ATOMIC_ACQUIRE); }

static int64_t op_rev(sk_store *base)
{
	struct sqlite_store *s = S(base);
	int64_t rev;

	pthread_rwlock_rdlock(&s->lock);
	rev = s->rev;
	pthread_rwlock_unlock(&s->lock);
	return rev;
}

static int64_t op_compacted_rev(sk_store *base) { return load64(&S(base)->compacted); }

static int op_get(sk_store *base, const char *key, sk_store_kv *kv, sk_error_t *err)
{
	struct sqlite_store *s = S(base);
	sk__mnode *n;

	pthread_rwlock_rdlock(&s->lock);
	n = sk__memtab_find(&s->tab, key);
	if (n)
		sk__kv_fill(kv, key, n->val->data, n->val->len, n->create_rev, n->mod_rev);
	pthread_rwlock_unlock(&s->lock);
	if (!n)
		return sk_error_set(err, SK_ENOTFOUND, "key \"%s\" not found", key);
	return 0;
}

/* Lists from memory; lock held. */
static void list_mem(struct sqlite_store *s, const char *prefix, const char *after, size_t limit, sk_store_list *out)
{
	sk__memtab_list(&s->tab, prefix, after, limit, out);
	out->rev = s->rev;
}

static int op_list(sk_store *base, const char *prefix, const char *after, size_t limit, int64_t rev, sk_store_list *out,
		   sk_error_t *err)
{
	struct sqlite_store *s = S(base);
	int64_t cur;
	int ret;

	memset(out, 0, sizeof(*out));
	pthread_rwlock_rdlock(&s->lock);
	cur = s->rev;
	if (rev <= 0 || rev == cur)
		list_mem(s, prefix, after, limit, out);
	pthread_rwlock_unlock(&s->lock);
	if (rev <= 0 || rev == cur)
		return 0;
	if (rev > cur)
		return sk_error_set(err, SK_ETIMEOUT, "store: too large resource version %lld, current %lld",
				    (long long)rev, (long long)cur);
	if (rev < load64(&s->compacted))
		return sk_error_set(err, SK_EGONE, "store: revision %lld is compacted (oldest %lld)", (long long)rev,
				    (long long)load64(&s->compacted));
	pthread_mutex_lock(&s->rmu);
	ret = sk__sdb_list_at(&s->rdb, prefix, after, limit, rev, out, err);
	pthread_mutex_unlock(&s->rmu);
	return ret;
}

static size_t op_count(sk_store *base, const char *prefix)
{
	struct sqlite_store *s = S(base);
	size_t n;

	pthread_rwlock_rdlock(&s->lock);
	n = sk__memtab_count(&s->tab, prefix);
	pthread_rwlock_unlock(&s->lock);
	return n;
}

/* ---- watch ---- */

/* Replays (from_rev, watch_rev] to w; wmu held. */
static int replay(struct sqlite_store *s, sk_store_watch *w, int64_t from_rev, sk_error_t *err)
{
	int ret;

	if (from_rev < load64(&s->compacted))
		return sk_error_set(err, SK_EGONE, "store: revision %lld is compacted (oldest %lld)",
				    (long long)from_rev, (long long)load64(&s->compacted));
	w->from_rev = from_rev;
	if (from_rev >= s->watch_rev || sk__hub_replay(&s->hub, w, from_rev) == 0)
		return 0;
	pthread_mutex_lock(&s->rmu);
	ret = sk__sdb_replay(&s->rdb, w, from_rev, s->watch_rev, err);
	pthread_mutex_unlock(&s->rmu);
	return ret;
}

static sk_store_watch *op_watch_start(sk_store *base, const char *prefix, int64_t from_rev, sk_store_watch_cb cb,
				      void *ud, sk_error_t *err)
{
	struct sqlite_store *s = S(base);
	sk_store_watch *w;

	if (!(w = sk__watch_new(prefix, from_rev, cb, ud, err)))
		return NULL;
	pthread_mutex_lock(&s->wmu);
	if (from_rev > 0 && replay(s, w, from_rev, err) < 0) {
		pthread_mutex_unlock(&s->wmu);
		sk__watch_free(w);
		return NULL;
	}
	w->from_rev = from_rev > s->watch_rev ? from_rev : s->watch_rev;
	sk__hub_add(&s->hub, w);
	pthread_mutex_unlock(&s->wmu);
	return w;
}

static void op_unwatch(sk_store *base, sk_store_watch *w)
{
	struct sqlite_store *s = S(base);

	pthread_mutex_lock(&s->wmu);
	sk__hub_remove(&s->hub, w);
	pthread_mutex_unlock(&s->wmu);
	sk__watch_free(w);
}

/* ---- stats, open, close ---- */

static int64_t file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 ? (int64_t)st.st_size : 0;
}

static void op_stats(sk_store *base, sk_store_stats *st)
{
	struct sqlite_store *s = S(base);
	cleanup_free char *wal = xasprintf("%s-wal", s->path);

	pthread_rwlock_rdlock(&s->lock);
	st->rev = s->rev;
	st->keys = s->tab.n;
	pthread_rwlock_unlock(&s->lock);
	st->compacted_rev = load64(&s->compacted);
	st->history_events = (size_t)load64(&s->rows);
	st->db_bytes = file_size(s->path);
	st->wal_bytes = file_size(wal);
	st->commits = load64(&s->commits);
	st->writes = load64(&s->writes);
}

static void free_watches(sk__hub *h)
{
	for (sk__wgroup *g = h->groups; g; g = g->next) {
		sk_store_watch *w = g->head, *next;

		for (; w; w = next) {
			next = w->next;
			sk__watch_free(w);
		}
		g->head = NULL;
	}
}

static void store_free(struct sqlite_store *s)
{
	sk__sdb_close(&s->wdb);
	sk__sdb_close(&s->rdb);
	sk__memtab_release(&s->tab);
	free_watches(&s->hub);
	sk__hub_release(&s->hub);
	pthread_rwlock_destroy(&s->lock);
	pthread_mutex_destroy(&s->wmu);
	pthread_mutex_destroy(&s->rmu);
	pthread_mutex_destroy(&s->qmu);
	pthread_cond_destroy(&s->qcv);
	if (s->lock_fd >= 0)
		close(s->lock_fd);
	free(s->path);
	free(s);
}

/* Stops the writer after it has finished every queued write, then frees
 * everything, including watches the caller did not stop. */
static void op_close(sk_store *base)
{
	struct sqlite_store *s = S(base);

	if (s->writer_started) {
		pthread_mutex_lock(&s->qmu);
		s->stop = 1;
		pthread_cond_signal(&s->qcv);
		pthread_mutex_unlock(&s->qmu);
		pthread_join(s->writer, NULL);
	}
	store_free(s);
}

static const struct sk__store_ops sqlite_ops = {
	.close = op_close,
	.rev = op_rev,
	.delivered_rev = op_delivered_rev,
	.compacted_rev = op_compacted_rev,
	.get = op_get,
	.list = op_list,
	.count = op_count,
	.create = op_create,
	.update = op_update,
	.del = op_delete,
	.watch_start = op_watch_start,
	.unwatch = op_unwatch,
	.compact = op_compact,
	.stats = op_stats,
};

static void init_sync(struct sqlite_store *s)
{
	pthread_rwlockattr_t ra;
	pthread_condattr_t ca;

	pthread_rwlockattr_init(&ra);
	pthread_rwlockattr_setkind_np(&ra, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
	pthread_rwlock_init(&s->lock, &ra);
	pthread_rwlockattr_destroy(&ra);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&s->qcv, &ca);
	pthread_condattr_destroy(&ca);
	pthread_mutex_init(&s->wmu, NULL);
	pthread_mutex_init(&s->rmu, NULL);
	pthread_mutex_init(&s->qmu, NULL);
	s->qtail = &s->qhead;
}

static void init_bounds(struct sqlite_store *s, const sk_store_options *opts)
{
	s->history_secs = opts->min_history_secs ? opts->min_history_secs : DEFAULT_HISTORY_SECS;
	s->history_events = opts->max_history_events ? opts->max_history_events : DEFAULT_HISTORY_EVENTS;
	s->compact_lag = COMPACT_WINDOW;
	if (s->history_events >= 0 && s->history_events < s->compact_lag)
		s->compact_lag = s->history_events > 64 ? s->history_events : 64;
	s->sample_every_ns = 100 * 1000000LL;
	if (s->history_secs > 0 && s->history_secs * 1000000000LL / (NSAMPLES / 2) > s->sample_every_ns)
		s->sample_every_ns = s->history_secs * 1000000000LL / (NSAMPLES / 2);
}

/* Keeps a second process (or a second open in this one) off the directory. */
static int lock_dir(struct sqlite_store *s, const char *dir, sk_error_t *err)
{
	cleanup_free char *path = xasprintf("%s/state.lock", dir);

	s->lock_fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (s->lock_fd < 0)
		return sk_error_errno(err, errno, "store \"%s\": open lock", dir);
	if (flock(s->lock_fd, LOCK_EX | LOCK_NB) < 0) {
		if (errno == EWOULDBLOCK)
			return sk_error_set(err, SK_EUNAVAILABLE, "store \"%s\": in use by another process", dir);
		return sk_error_errno(err, errno, "store \"%s\": lock", dir);
	}
	return 0;
}

static int open_db(struct sqlite_store *s, sk_error_t *err)
{
	int64_t compacted = 0, rows = 0;

	if (sk__sdb_open(&s->wdb, s->path, 1, err) < 0 || sk__sdb_open(&s->rdb, s->path, 0, err) < 0)
		return -1;
	if (sk__sdb_load(&s->wdb, &s->tab, &s->rev, &compacted, &rows, err) < 0)
		return sk_error_wrap(err, "store \"%s\"", s->path);
	s->compacted = compacted;
	s->rows = rows;
	s->watch_rev = s->rev;
	__atomic_store_n(&s->delivered, s->rev, __ATOMIC_RELEASE);
	return 0;
}

/* The database holds Secrets: its files are the owner's alone, also those
 * an older version left readable (SQLite gives the WAL and shared-memory
 * files the database's mode). The database is made here, empty, so that it
 * is never readable by others, not even for a moment. */
static void tighten_files(const char *dir)
{
	static const char *const names[] = {"state.db", "state.db-wal", "state.db-shm", "state.lock"};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		cleanup_free char *path = xasprintf("%s/%s", dir, names[i]);
		int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | (i == 0 ? O_CREAT : 0), 0600);

		if (fd >= 0) {
			if (fchmod(fd, 0600) < 0)
				sk_warn("store", "\"%s\": chmod 0600: %s", path, strerror(errno));
			close(fd);
		}
	}
}

sk_store *sk__sqlite_open(const char *dir, const sk_store_options *opts, sk_error_t *err)
{
	struct sqlite_store *s;
	int rc;

	if (sk_mkdir_p(dir, 0700) < 0) {
		sk_error_errno(err, errno, "store \"%s\": mkdir", dir);
		return NULL;
	}
	tighten_files(dir);
	sk__fault_setup();
	s = xzalloc(sizeof(*s));
	s->base.ops = &sqlite_ops;
	s->path = xasprintf("%s/state.db", dir);
	s->lock_fd = -1;
	init_sync(s);
	init_bounds(s, opts);
	sk__memtab_init(&s->tab);
	sk__hub_init(&s->hub, RING_EVENTS);
	if (lock_dir(s, dir, err) < 0 || open_db(s, err) < 0) {
		store_free(s);
		return NULL;
	}
	s->last_ckpt_ns = sk_mono_ns();
	sample_rev(s, s->last_ckpt_ns);
	rc = pthread_create(&s->writer, NULL, writer_main, s);
	if (rc != 0) {
		sk_error_errno(err, rc, "store \"%s\": writer thread", s->path);
		store_free(s);
		return NULL;
	}
	s->writer_started = 1;
	return &s->base;
}
