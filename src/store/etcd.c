/* The etcd v3 backend ("etcd://HOST:PORT[,HOST:PORT...][/ROOT]").
 *
 * skiff talks to etcd through its gRPC API (KV Range, Txn, Compact, the
 * Watch stream, Maintenance Status and Snapshot) with gRPC's C core and
 * etcd's own messages (etcd-grpc.c, etcd-wire.c, docs/ARCHITECTURE.md). A key
 * K is stored as ROOT+K, so with no ROOT `etcdctl get --prefix /registry/pods`
 * reads what upstream's API server would have written there.
 *
 * resourceVersion is etcd's revision: create is a txn on create_revision == 0,
 * update and delete a txn on mod_revision == expect (or on existence), whose
 * failure branch reads the key to tell NotFound from Conflict. A failed
 * txn (a create too) returns once the watch has delivered etcd's revision
 * at the failure, so the key's current value is in memory for a retry (the
 * API's writes start from memory, as upstream's GuaranteedUpdate starts
 * from the watch cache, and retry on a failed compare).
 *
 * Watchers and reads: one etcd watch on all of ROOT (without prev_kv: the
 * previous value of an update or delete is the copy's) feeds, from
 * one thread and in revision order, an in-memory copy of ROOT's current state
 * (the skip list the SQLite backend keeps, loaded at open) and the same hub
 * the SQLite backend uses (watch.c). A write returns only once that watch
 * has delivered its revision, so, as with SQLite, watchers and reads from
 * memory (get, list and count at the current revision; upstream's watch
 * cache) have seen every acknowledged write; lists at an older revision
 * read etcd. A watcher that starts
 * before the hub's ring replays from a second, short-lived etcd watch. When
 * the stream breaks the thread reconnects from the last revision it saw.
 *
 * Compaction: every min_history_secs, to the revision seen one period
 * earlier (upstream's API server compacts so, every 5 minutes), bounded by
 * max_history_events as the SQLite backend is. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "store/etcd-int.h"
#include "util/util.h"

#define RING_EVENTS 8192
#define CALL_TIMEOUT_MS 10000L
/* how often a stream's reader looks at the store's stop and its own bounds */
#define STREAM_POLL_MS 100
#define SEEN_WAIT_SECS 10
#define FRESH_WAIT_MS 500
/* a key under ROOT, outside the resources (upstream keeps compact_rev_key
 * beside /registry so) */
#define MARK_KEY "/skiff/freshness"
#define REPLAY_IDLE_NS (1000 * 1000000LL)
#define RECONNECT_NS (300 * 1000000LL)
#define DEFAULT_HISTORY_SECS 300
#define DEFAULT_HISTORY_EVENTS 100000
/* etcd sends a catching-up watcher at most this many revisions per message */
#define WATCH_BATCH_REVS 1000

struct etcd_store {
	sk_store base;
	char **hosts; /* "HOST:PORT" */
	size_t nhosts;
	sk__etcd_conn *conn;
	char *root;
	char *ca, *cert, *key;
	int64_t history_secs, history_events;
	int64_t rev, compacted, writes; /* atomic */

	pthread_rwlock_t lock; /* guards tab and tab_rev */
	sk__memtab tab;
	int64_t tab_rev;
	int resync; /* watch thread: the watch lost history, reload tab */

	pthread_mutex_t wmu;         /* guards hub, watch_rev, waiters, stop */
	pthread_cond_t wcv;          /* stop */
	struct seen_waiter *waiters; /* by revision, lowest first */
	sk__hub hub;
	int64_t watch_rev; /* the last revision the hub delivered */
	int64_t delivered; /* atomic: watch_rev once its events reached every watcher */
	int stop;
	pthread_t watcher, compactor;
	int watcher_started, compactor_started;

	pthread_mutex_t fmu; /* guards the sync reads below */
	pthread_cond_t fcv;  /* a sync read finished */
	int64_t f_started, f_done, f_rev;
	sk_error_t f_err;
};

#define E(base) ((struct etcd_store *)(base))

static int64_t load64(const int64_t *p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }

static void max64(int64_t *p, int64_t v)
{
	int64_t cur = load64(p);

	while (v > cur && !__atomic_compare_exchange_n(p, &cur, v, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		;
}

static int stopping(struct etcd_store *s) { return __atomic_load_n(&s->stop, __ATOMIC_ACQUIRE); }

/* ---- requests ---- */

#define MSG(m) (&(m).base)
#define REPLY(p) ((ProtobufCMessage **)(void *)&(p))

/* One unary call; *reply (caller frees) is the reply as d describes it. */
static int call(struct etcd_store *s, const char *method, const ProtobufCMessage *req,
		const ProtobufCMessageDescriptor *d, ProtobufCMessage **reply, sk_error_t *err)
{
	return sk__etcd_unary(s->conn, method, req, d, reply, CALL_TIMEOUT_MS, err);
}

static int64_t header_rev(const Etcdserverpb__ResponseHeader *h) { return h ? h->revision : 0; }

/* A Range on the KV service; etcd's revision advances s->rev. */
static int range(struct etcd_store *s, const Etcdserverpb__RangeRequest *req, Etcdserverpb__RangeResponse **r,
		 sk_error_t *err)
{
	if (call(s, SK__ETCD_RANGE, MSG(*req), &etcdserverpb__range_response__descriptor, REPLY(*r), err) < 0)
		return -1;
	max64(&s->rev, header_rev((*r)->header));
	return 0;
}

static int txn_call(struct etcd_store *s, const Etcdserverpb__TxnRequest *req, Etcdserverpb__TxnResponse **r,
		    sk_error_t *err)
{
	if (call(s, SK__ETCD_TXN, MSG(*req), &etcdserverpb__txn_response__descriptor, REPLY(*r), err) < 0)
		return -1;
	max64(&s->rev, header_rev((*r)->header));
	return 0;
}

/* ---- keys ---- */

static ProtobufCBinaryData bin(const char *data, size_t len)
{
	return (ProtobufCBinaryData){.len = len, .data = (uint8_t *)data};
}

/* ROOT+key (malloc'd). */
static char *ekey(struct etcd_store *s, const char *key) { return xasprintf("%s%s", s->root, key); }

/* A range over every key with ROOT+prefix: *key and *end hold its bounds
 * (malloc'd, or NULL) for the caller to free after the call. */
static void set_range(struct etcd_store *s, ProtobufCBinaryData *key, ProtobufCBinaryData *range_end,
		      const char *prefix, char **k, char **end)
{
	*k = ekey(s, prefix);
	*end = sk__prefix_end(*k);
	/* "\0" is the smallest key; as range_end it means "to the last key" */
	*key = **k ? bin(*k, strlen(*k)) : bin("", 1);
	*range_end = *end ? bin(*end, strlen(*end)) : bin("", 1);
}

/* ---- waiting for the watch ---- */

/* A thread waiting for the watch to deliver a revision. Each has its own
 * condition, and the watch wakes only those whose revision it delivered:
 * with one condition for all, every watch message woke every writer in
 * flight (64 in `skiff bench`), and all but a few went back to sleep. */
struct seen_waiter {
	int64_t rev;
	pthread_cond_t cv;
	int queued;
	struct seen_waiter *next;
};

/* Under wmu: wakes the waiters the watch has reached (all of them on stop). */
static void wake_seen(struct etcd_store *s)
{
	while (s->waiters && (s->waiters->rev <= s->watch_rev || s->stop)) {
		struct seen_waiter *w = s->waiters;

		s->waiters = w->next;
		w->queued = 0;
		pthread_cond_signal(&w->cv);
	}
}

/* Under wmu: waits until the watch has delivered rev, the store stops or
 * until passes; returns 0 or ETIMEDOUT. */
static int wait_rev(struct etcd_store *s, int64_t rev, const struct timespec *until)
{
	struct seen_waiter w = {.rev = rev, .queued = 1}, **pp = &s->waiters;
	int rc = 0;

	if (s->watch_rev >= rev || s->stop)
		return 0;
	pthread_cond_init(&w.cv, NULL);
	while (*pp && (*pp)->rev <= rev)
		pp = &(*pp)->next;
	w.next = *pp;
	*pp = &w;
	while (s->watch_rev < rev && !s->stop && rc != ETIMEDOUT)
		rc = pthread_cond_timedwait(&w.cv, &s->wmu, until);
	if (w.queued) {
		for (pp = &s->waiters; *pp != &w; pp = &(*pp)->next)
			;
		*pp = w.next;
	}
	pthread_cond_destroy(&w.cv);
	return s->watch_rev >= rev || s->stop ? 0 : rc;
}

/* ---- writes ---- */

/* Waits until the watch has delivered rev, so that watchers have seen every
 * acknowledged write (a lost etcd watch only delays this, up to a bound). */
static void wait_seen(struct etcd_store *s, int64_t rev)
{
	struct timespec until;
	int rc;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += SEEN_WAIT_SECS;
	pthread_mutex_lock(&s->wmu);
	rc = wait_rev(s, rev, &until);
	pthread_mutex_unlock(&s->wmu);
	if (rc == ETIMEDOUT)
		sk_warn("store", "etcd: the watch has not delivered revision %lld yet", (long long)rev);
}

/* A txn of one compare on ROOT+key: create_revision == 0 (create), else
 * mod_revision == expect, or the key's existence when expect is 0; its
 * success branch is ok, its failure branch reads the key. */
struct txn1 {
	char *k;
	Etcdserverpb__Compare cmp, *cmps[1];
	Etcdserverpb__PutRequest put;
	Etcdserverpb__DeleteRangeRequest del;
	Etcdserverpb__RangeRequest get;
	Etcdserverpb__RequestOp ok, fail, *oks[1], *fails[1];
	Etcdserverpb__TxnRequest req;
};

static void txn1_init(struct etcd_store *s, struct txn1 *t, const char *key, int create, int64_t expect)
{
	memset(t, 0, sizeof(*t));
	t->k = ekey(s, key);
	etcdserverpb__compare__init(&t->cmp);
	etcdserverpb__put_request__init(&t->put);
	etcdserverpb__delete_range_request__init(&t->del);
	etcdserverpb__range_request__init(&t->get);
	etcdserverpb__request_op__init(&t->ok);
	etcdserverpb__request_op__init(&t->fail);
	etcdserverpb__txn_request__init(&t->req);
	t->cmp.key = t->put.key = t->del.key = t->get.key = bin(t->k, strlen(t->k));
	if (create || !expect) {
		t->cmp.target = ETCDSERVERPB__COMPARE__COMPARE_TARGET__CREATE;
		t->cmp.result = create ? ETCDSERVERPB__COMPARE__COMPARE_RESULT__EQUAL
				       : ETCDSERVERPB__COMPARE__COMPARE_RESULT__GREATER;
		t->cmp.target_union_case = ETCDSERVERPB__COMPARE__TARGET_UNION_CREATE_REVISION;
		t->cmp.create_revision = 0;
	} else {
		t->cmp.target = ETCDSERVERPB__COMPARE__COMPARE_TARGET__MOD;
		t->cmp.result = ETCDSERVERPB__COMPARE__COMPARE_RESULT__EQUAL;
		t->cmp.target_union_case = ETCDSERVERPB__COMPARE__TARGET_UNION_MOD_REVISION;
		t->cmp.mod_revision = expect;
	}
	t->cmps[0] = &t->cmp;
	t->oks[0] = &t->ok;
	t->fails[0] = &t->fail;
	t->req.n_compare = 1;
	t->req.compare = t->cmps;
	t->req.n_success = 1;
	t->req.success = t->oks;
	t->fail.request_case = ETCDSERVERPB__REQUEST_OP__REQUEST_REQUEST_RANGE;
	t->fail.request_range = &t->get;
	t->req.n_failure = 1;
	t->req.failure = t->fails;
}

/* Runs t; on success returns the new revision and leaves the reply in *resp
 * (caller frees; NULL: freed here); on a failed compare tells NotFound from
 * Conflict from the failure branch's read of key. */
static int64_t txn(struct etcd_store *s, const char *key, struct txn1 *t, int64_t expect,
		   Etcdserverpb__TxnResponse **resp, sk_error_t *err)
{
	Etcdserverpb__TxnResponse *r = NULL;
	const Etcdserverpb__RangeResponse *got = NULL;
	int64_t rev;
	int rc;

	rc = txn_call(s, &t->req, &r, err);
	free(t->k);
	if (rc < 0)
		return -1;
	rev = header_rev(r->header);
	if (!r->succeeded) {
		int64_t cur = 0;
		size_t n = 0;

		if (r->n_responses &&
		    r->responses[0]->response_case == ETCDSERVERPB__RESPONSE_OP__RESPONSE_RESPONSE_RANGE)
			got = r->responses[0]->response_range;
		if (got && got->n_kvs) {
			n = got->n_kvs;
			cur = got->kvs[0]->mod_revision;
		}
		etcdserverpb__txn_response__free_unpacked(r, NULL);
		/* What made it fail reaches memory before the caller retries: the
		 * key's own revision (etcd's, in the header, may be another
		 * client's write outside ROOT that this watch never sees). A key
		 * gone needs no wait: the caller reports it and does not retry. */
		if (n)
			wait_seen(s, cur);
		if (!n)
			return sk_error_set(err, SK_ENOTFOUND, "key \"%s\" not found", key);
		return sk_error_set(err, SK_ECONFLICT, "key \"%s\": revision %lld is not the current %lld", key,
				    (long long)expect, (long long)cur);
	}
	if (resp)
		*resp = r;
	else
		etcdserverpb__txn_response__free_unpacked(r, NULL);
	__atomic_add_fetch(&s->writes, 1, __ATOMIC_RELAXED);
	wait_seen(s, rev);
	return rev;
}

static int64_t op_create(sk_store *base, const char *key, const char *value, size_t len, sk_error_t *err)
{
	struct etcd_store *s = E(base);
	Etcdserverpb__TxnResponse *r = NULL;
	struct txn1 t;
	int64_t rev;
	int rc;

	if (!key || !*key)
		return sk_error_set(err, SK_EINVALID, "store: empty key");
	txn1_init(s, &t, key, 1, 0);
	t.put.value = bin(value, len);
	t.ok.request_case = ETCDSERVERPB__REQUEST_OP__REQUEST_REQUEST_PUT;
	t.ok.request_put = &t.put;
	rc = txn_call(s, &t.req, &r, err);
	free(t.k);
	if (rc < 0)
		return -1;
	rev = header_rev(r->header);
	rc = r->succeeded;
	if (!rc && r->n_responses &&
	    r->responses[0]->response_case == ETCDSERVERPB__RESPONSE_OP__RESPONSE_RESPONSE_RANGE &&
	    r->responses[0]->response_range->n_kvs)
		rev = r->responses[0]->response_range->kvs[0]->mod_revision; /* the key's own, as in txn() */
	else if (!rc)
		rev = 0;
	etcdserverpb__txn_response__free_unpacked(r, NULL);
	if (!rc) {
		wait_seen(s, rev);
		return sk_error_set(err, SK_EEXISTS, "key \"%s\" already exists", key);
	}
	__atomic_add_fetch(&s->writes, 1, __ATOMIC_RELAXED);
	wait_seen(s, rev);
	return rev;
}

static int64_t op_update(sk_store *base, const char *key, const char *value, size_t len, int64_t expect_rev,
			 sk_error_t *err)
{
	struct etcd_store *s = E(base);
	struct txn1 t;

	if (!key || !*key)
		return sk_error_set(err, SK_EINVALID, "store: empty key");
	txn1_init(s, &t, key, 0, expect_rev);
	t.put.value = bin(value, len);
	t.ok.request_case = ETCDSERVERPB__REQUEST_OP__REQUEST_REQUEST_PUT;
	t.ok.request_put = &t.put;
	return txn(s, key, &t, expect_rev, NULL, err);
}

static int64_t op_delete(sk_store *base, const char *key, int64_t expect_rev, sk_store_kv *prev, sk_error_t *err)
{
	struct etcd_store *s = E(base);
	Etcdserverpb__TxnResponse *r = NULL;
	const Etcdserverpb__DeleteRangeResponse *d = NULL;
	struct txn1 t;
	int64_t rev;

	if (!key || !*key)
		return sk_error_set(err, SK_EINVALID, "store: empty key");
	txn1_init(s, &t, key, 0, expect_rev);
	t.del.prev_kv = 1;
	t.ok.request_case = ETCDSERVERPB__REQUEST_OP__REQUEST_REQUEST_DELETE_RANGE;
	t.ok.request_delete_range = &t.del;
	rev = txn(s, key, &t, expect_rev, prev ? &r : NULL, err);
	if (rev < 0 || !prev)
		return rev;
	if (r->n_responses &&
	    r->responses[0]->response_case == ETCDSERVERPB__RESPONSE_OP__RESPONSE_RESPONSE_DELETE_RANGE)
		d = r->responses[0]->response_delete_range;
	if (!d || !d->n_prev_kvs || sk__etcd_kv(d->prev_kvs[0], s->root, prev) < 0)
		sk__kv_fill(prev, key, "", 0, 0, 0);
	etcdserverpb__txn_response__free_unpacked(r, NULL);
	return rev;
}

static int op_compact(sk_store *base, int64_t rev, sk_error_t *err)
{
	struct etcd_store *s = E(base);
	Etcdserverpb__CompactionRequest req = ETCDSERVERPB__COMPACTION_REQUEST__INIT;
	Etcdserverpb__CompactionResponse *r = NULL;
	sk_error_t e = {0};

	if (rev > load64(&s->rev))
		return sk_error_set(err, SK_EINVALID, "store: cannot compact to future revision %lld", (long long)rev);
	if (rev <= load64(&s->compacted))
		return 0;
	req.revision = rev;
	req.physical = 1;
	if (call(s, SK__ETCD_COMPACT, MSG(req), &etcdserverpb__compaction_response__descriptor, REPLY(r), &e) < 0 &&
	    e.code != SK_EGONE) {
		if (err)
			*err = e;
		return -1;
	}
	if (r)
		etcdserverpb__compaction_response__free_unpacked(r, NULL);
	max64(&s->compacted, rev);
	return 0;
}

/* ---- reads ---- */

/* etcd's current revision, by a linearizable read (one that goes through
 * etcd's leader: it fails without a quorum). */
static int current_rev(struct etcd_store *s, int64_t *rev, sk_error_t *err)
{
	Etcdserverpb__RangeRequest req = ETCDSERVERPB__RANGE_REQUEST__INIT;
	Etcdserverpb__RangeResponse *r = NULL;
	cleanup_free char *k = ekey(s, "/");

	req.key = bin(k, strlen(k));
	req.count_only = 1;
	if (range(s, &req, &r, err) < 0)
		return -1;
	*rev = header_rev(r->header);
	etcdserverpb__range_response__free_unpacked(r, NULL);
	return 0;
}

/* A write of ROOT+MARK_KEY: its revision, once the watch has delivered it,
 * says that every write to ROOT before it is in memory. */
static int mark(struct etcd_store *s, int64_t *rev, sk_error_t *err)
{
	Etcdserverpb__PutRequest put = ETCDSERVERPB__PUT_REQUEST__INIT;
	Etcdserverpb__RequestOp op = ETCDSERVERPB__REQUEST_OP__INIT, *ops[1] = {&op};
	Etcdserverpb__TxnRequest req = ETCDSERVERPB__TXN_REQUEST__INIT;
	Etcdserverpb__TxnResponse *r = NULL;
	cleanup_free char *k = ekey(s, MARK_KEY);

	put.key = bin(k, strlen(k));
	put.value = bin("", 0);
	op.request_case = ETCDSERVERPB__REQUEST_OP__REQUEST_REQUEST_PUT;
	op.request_put = &put;
	req.n_success = 1;
	req.success = ops;
	if (txn_call(s, &req, &r, err) < 0)
		return -1;
	*rev = header_rev(r->header);
	etcdserverpb__txn_response__free_unpacked(r, NULL);
	return 0;
}

/* A revision that, once the watch has delivered it, says memory holds what
 * etcd holds now: etcd's current revision, or, when the watch has not got
 * there within FRESH_WAIT_MS, the revision of a write of ROOT's own. etcd's
 * revision counts every key: a write outside ROOT (another cluster's root on
 * a shared etcd) raises it and this watch never sees it. (etcd 3.4's
 * WatchProgressRequest would tell, but before 3.4.25 its reply can overtake
 * events still on their way: etcd-io/etcd#15220.) */
static int wait_seen_for(struct etcd_store *s, int64_t rev, int64_t ms);

static int fresh_rev(struct etcd_store *s, int64_t *rev, sk_error_t *err)
{
	if (current_rev(s, rev, err) < 0)
		return -1;
	if (wait_seen_for(s, *rev, FRESH_WAIT_MS))
		return 0;
	return stopping(s) ? 0 : mark(s, rev, err);
}

/* Upstream's consistent reads from the watch cache: a fresh revision
 * (fresh_rev), then a wait for the watch to have delivered it. Concurrent
 * callers share one: a caller waits for one that started after it came, and
 * starts it when none is under way. */
static int op_sync(sk_store *base, sk_error_t *err)
{
	struct etcd_store *s = E(base);
	struct timespec until;
	int64_t target, rev;
	sk_error_t e = {0};
	int rc = 0;

	pthread_mutex_lock(&s->fmu);
	target = s->f_started + 1;
	while (s->f_done < target) {
		if (s->f_started == s->f_done) {
			int64_t n = ++s->f_started, got = 0;
			sk_error_t ferr = {0};
			int frc;

			pthread_mutex_unlock(&s->fmu);
			frc = fresh_rev(s, &got, &ferr);
			pthread_mutex_lock(&s->fmu);
			s->f_done = n;
			s->f_rev = frc < 0 ? -1 : got;
			s->f_err = ferr;
			pthread_cond_broadcast(&s->fcv);
		} else {
			pthread_cond_wait(&s->fcv, &s->fmu);
		}
	}
	rev = s->f_rev;
	e = s->f_err;
	pthread_mutex_unlock(&s->fmu);
	if (rev < 0) {
		if (err)
			*err = e;
		return -1;
	}
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += SEEN_WAIT_SECS;
	pthread_mutex_lock(&s->wmu);
	rc = wait_rev(s, rev, &until);
	pthread_mutex_unlock(&s->wmu);
	if (rc == ETIMEDOUT) /* as the cacher's wait for a fresh enough revision */
		return sk_error_set(err, SK_ETIMEOUT, "Too large resource version: %lld, current: %lld", (long long)rev,
				    (long long)load64(&s->rev));
	return 0;
}

static int64_t op_rev(sk_store *base) { return load64(&E(base)->rev); }
static int64_t op_compacted_rev(sk_store *base) { return load64(&E(base)->compacted); }
static int64_t op_delivered_rev(sk_store *base) { return load64(&E(base)->delivered); }

static int op_get(sk_store *base, const char *key, sk_store_kv *kv, sk_error_t *err)
{
	struct etcd_store *s = E(base);
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

/* Lists from etcd (rev 0: its current revision). */
static int list_etcd(struct etcd_store *s, const char *prefix, const char *after, size_t limit, int64_t rev,
		     sk_store_list *out, sk_error_t *err)
{
	Etcdserverpb__RangeRequest req = ETCDSERVERPB__RANGE_REQUEST__INIT;
	Etcdserverpb__RangeResponse *r = NULL;
	cleanup_free char *k = NULL, *end = NULL, *from = NULL;

	memset(out, 0, sizeof(*out));
	set_range(s, &req.key, &req.range_end, prefix, &k, &end);
	if (after && *after && strcmp(after, prefix) >= 0) {
		/* strictly after: the smallest key greater than ROOT+after */
		from = ekey(s, after);
		req.key = bin(from, strlen(from) + 1);
	}
	req.limit = (int64_t)limit;
	req.revision = rev > 0 ? rev : 0;
	if (range(s, &req, &r, err) < 0) {
		if (err && err->code == SK_ETIMEOUT)
			sk_error_set(err, SK_ETIMEOUT, "store: too large resource version %lld, current %lld",
				     (long long)rev, (long long)load64(&s->rev));
		else if (err && err->code == SK_EGONE)
			sk_error_set(err, SK_EGONE, "store: revision %lld is compacted", (long long)rev);
		return -1;
	}
	out->items = xzalloc((r->n_kvs + 1) * sizeof(out->items[0]));
	for (size_t i = 0; i < r->n_kvs; i++)
		if (sk__etcd_kv(r->kvs[i], s->root, &out->items[out->n]) == 0)
			out->n++;
	out->more = r->more;
	out->rev = rev > 0 ? rev : header_rev(r->header);
	etcdserverpb__range_response__free_unpacked(r, NULL);
	return 0;
}

/* Waits up to ms for the watch to deliver rev; returns whether it did. */
static int wait_seen_for(struct etcd_store *s, int64_t rev, int64_t ms)
{
	struct timespec ts;
	int seen;

	sk_deadline_after_ms(&ts, ms);
	pthread_mutex_lock(&s->wmu);
	wait_rev(s, rev, &ts);
	seen = s->watch_rev >= rev;
	pthread_mutex_unlock(&s->wmu);
	return seen;
}

/* etcd's current revision, and how many keys under prefix it holds in all
 * and modified after since (one read-only txn of two count-only ranges). */
static int etcd_counts(struct etcd_store *s, const char *prefix, int64_t since, int64_t *rev, int64_t *all,
		       int64_t *newer, sk_error_t *err)
{
	Etcdserverpb__RangeRequest r1 = ETCDSERVERPB__RANGE_REQUEST__INIT, r2 = ETCDSERVERPB__RANGE_REQUEST__INIT;
	Etcdserverpb__RequestOp o1 = ETCDSERVERPB__REQUEST_OP__INIT, o2 = ETCDSERVERPB__REQUEST_OP__INIT;
	Etcdserverpb__RequestOp *ops[] = {&o1, &o2};
	Etcdserverpb__TxnRequest req = ETCDSERVERPB__TXN_REQUEST__INIT;
	Etcdserverpb__TxnResponse *r = NULL;
	cleanup_free char *k = NULL, *end = NULL;
	int64_t n[2] = {0, 0};

	set_range(s, &r1.key, &r1.range_end, prefix, &k, &end);
	r2.key = r1.key;
	r2.range_end = r1.range_end;
	r1.count_only = r2.count_only = 1;
	r2.min_mod_revision = since + 1;
	o1.request_case = o2.request_case = ETCDSERVERPB__REQUEST_OP__REQUEST_REQUEST_RANGE;
	o1.request_range = &r1;
	o2.request_range = &r2;
	req.n_success = 2;
	req.success = ops;
	if (txn_call(s, &req, &r, err) < 0)
		return -1;
	for (size_t i = 0; i < 2 && i < r->n_responses; i++)
		if (r->responses[i]->response_case == ETCDSERVERPB__RESPONSE_OP__RESPONSE_RESPONSE_RANGE)
			n[i] = r->responses[i]->response_range->count;
	*rev = header_rev(r->header);
	*all = n[0];
	*newer = n[1];
	etcdserverpb__txn_response__free_unpacked(r, NULL);
	return 0;
}

/* Lists from memory under the read lock when it holds what etcd holds
 * under prefix at rev: when it is at rev, or when etcd found no key under
 * prefix modified after since (what memory held before etcd was asked) and
 * as many keys as memory has (then both are the same set: every key etcd
 * has is in memory, unchanged). Returns whether it listed. */
static int list_if_same(struct etcd_store *s, const char *prefix, const char *after, size_t limit, int64_t rev,
			int64_t all, int64_t newer, sk_store_list *out)
{
	int same;

	pthread_rwlock_rdlock(&s->lock);
	same = s->tab_rev >= rev || (!newer && (int64_t)sk__memtab_count(&s->tab, prefix) == all);
	if (same) {
		sk__memtab_list(&s->tab, prefix, after, limit, out);
		out->rev = rev > s->tab_rev ? rev : s->tab_rev;
	}
	pthread_rwlock_unlock(&s->lock);
	return same;
}

/* A list at the current revision (SK_STORE_REV_FRESH), as upstream's
 * ConsistentListFromCache:
 * from memory once it holds what etcd holds now (list_if_same), else after
 * a short wait for the watch to deliver etcd's revision, else from etcd at
 * that revision. While etcd cannot be asked the list fails, as upstream's
 * consistent reads do (resourceVersion=0 still reads memory). */
static int list_current(struct etcd_store *s, const char *prefix, const char *after, size_t limit, sk_store_list *out,
			sk_error_t *err)
{
	int64_t since, rev, all, newer;
	sk_error_t e = {0};

	pthread_rwlock_rdlock(&s->lock);
	since = s->tab_rev;
	pthread_rwlock_unlock(&s->lock);
	if (etcd_counts(s, prefix, since, &rev, &all, &newer, &e) < 0) {
		/* a consistent read needs etcd, as upstream's (resourceVersion=0 reads memory) */
		if (err)
			*err = e;
		return -1;
	}
	if (list_if_same(s, prefix, after, limit, rev, all, newer, out))
		return 0;
	if (!wait_seen_for(s, rev, FRESH_WAIT_MS))
		return list_etcd(s, prefix, after, limit, rev, out, err);
	pthread_rwlock_rdlock(&s->lock);
	sk__memtab_list(&s->tab, prefix, after, limit, out);
	out->rev = s->tab_rev;
	pthread_rwlock_unlock(&s->lock);
	return 0;
}

static int op_list(sk_store *base, const char *prefix, const char *after, size_t limit, int64_t rev, sk_store_list *out,
		   sk_error_t *err)
{
	struct etcd_store *s = E(base);
	int mem;

	memset(out, 0, sizeof(*out));
	if (rev == SK_STORE_REV_FRESH)
		return list_current(s, prefix, after, limit, out, err);
	pthread_rwlock_rdlock(&s->lock);
	mem = rev <= 0 || rev == s->tab_rev;
	if (mem) {
		sk__memtab_list(&s->tab, prefix, after, limit, out);
		out->rev = s->tab_rev;
	}
	pthread_rwlock_unlock(&s->lock);
	return mem ? 0 : list_etcd(s, prefix, after, limit, rev, out, err);
}

static size_t op_count(sk_store *base, const char *prefix)
{
	struct etcd_store *s = E(base);
	size_t n;

	pthread_rwlock_rdlock(&s->lock);
	n = sk__memtab_count(&s->tab, prefix);
	pthread_rwlock_unlock(&s->lock);
	return n;
}

/* Reads all of ROOT at one revision into t (initialised here; the caller
 * releases it) and *rev. */
static int load_state(struct etcd_store *s, sk__memtab *t, int64_t *rev, sk_error_t *err)
{
	cleanup_free char *after = NULL;
	sk_store_list l = {.more = 1};

	sk__memtab_init(t);
	*rev = 0;
	while (l.more) {
		if (list_etcd(s, "", after, 5000, *rev, &l, err) < 0)
			return -1;
		*rev = l.rev;
		for (size_t i = 0; i < l.n; i++) {
			sk_store_kv *kv = &l.items[i];

			sk__memtab_put(t, sk__blob_new(kv->key, strlen(kv->key)), sk__blob_new(kv->value, kv->len),
				       kv->create_rev, kv->mod_rev);
		}
		if (l.n) {
			free(after);
			after = xstrdup(l.items[l.n - 1].key);
		}
		sk_store_list_release(&l);
	}
	return 0;
}

/* Replaces the in-memory state with a fresh read of etcd (at open, and when
 * the watch lost history to compaction); the watch goes on from there. */
static int resync(struct etcd_store *s, sk_error_t *err)
{
	sk__memtab t, old;
	int64_t rev;

	if (load_state(s, &t, &rev, err) < 0) {
		sk__memtab_release(&t);
		return -1;
	}
	pthread_rwlock_wrlock(&s->lock);
	old = s->tab;
	s->tab = t;
	s->tab_rev = rev;
	pthread_rwlock_unlock(&s->lock);
	sk__memtab_release(&old);
	pthread_mutex_lock(&s->wmu);
	if (rev > s->watch_rev)
		s->watch_rev = rev;
	__atomic_store_n(&s->delivered, s->watch_rev, __ATOMIC_RELEASE);
	wake_seen(s);
	pthread_mutex_unlock(&s->wmu);
	max64(&s->rev, rev);
	return 0;
}

/* ---- watch streams ---- */

struct stream {
	struct etcd_store *s;
	/* returns 1 to end the stream, -1 on error (err set) */
	int (*on_msg)(struct stream *st, sk__etcd_wmsg *m);
	/* instead of on_msg: other streams than watches */
	int (*on_data)(struct stream *st, const uint8_t *data, size_t len);
	sk_error_t err;
	int64_t idle_ns;
	int64_t deadline_ns; /* 0: none; past it the stream fails */
	/* a replay */
	sk_store_watch *w;
	int64_t upto;
	/* a snapshot */
	FILE *out;
	int64_t remaining;
};

static int on_watch_data(struct stream *st, const uint8_t *data, size_t len)
{
	sk__etcd_wmsg m;
	int rc;

	if (sk__etcd_wmsg_decode(data, len, st->s->root, &m, &st->err) < 0)
		return -1;
	rc = st->on_msg(st, &m);
	sk__etcd_wmsg_release(&m);
	return rc;
}

/* Calls method with req and feeds each reply to st (to st->on_data, or as
 * watch messages to st->on_msg) until a handler ends it, the stream breaks
 * or the store closes; an endpoint that cannot be reached before the first
 * reply passes the call on to the next one. Returns 0 when a handler ended
 * it, 1 when the stream ended by itself, else -1 (st->err set). */
static int stream_call(struct etcd_store *s, struct stream *st, const char *method, const ProtobufCMessage *req,
		       int half_close)
{
	size_t first = sk__etcd_conn_current(s->conn), n = sk__etcd_conn_endpoints(s->conn);
	int got_data = 0, rc = -1;

	for (size_t i = 0; i < n && !got_data && !stopping(s); i++) {
		size_t ep = (first + i) % n;
		sk__etcd_stream *g = sk__etcd_stream_open(s->conn, ep, method, req, half_close);
		int64_t last = sk_mono_ns();

		memset(&st->err, 0, sizeof(st->err));
		for (;;) {
			uint8_t *data = NULL;
			size_t len = 0;
			int r;

			if (stopping(s)) {
				rc = sk_error_set(&st->err, SK_EUNAVAILABLE, "store: closing");
				break;
			}
			r = sk__etcd_stream_recv(g, STREAM_POLL_MS, &data, &len, &st->err);
			if (r == 0) {
				if (st->deadline_ns && sk_mono_ns() > st->deadline_ns) {
					rc = sk_error_set(&st->err, SK_EUNAVAILABLE, "etcdserver: request timed out");
					break;
				}
				if (st->idle_ns && sk_mono_ns() - last > st->idle_ns) {
					rc = 0;
					break;
				}
				continue;
			}
			if (r < 0) {
				rc = st->err.code ? -1 : 1;
				if (rc < 0 && !got_data && st->err.code == SK_EUNAVAILABLE)
					sk_debug("store", "etcd endpoint %zu %s: %s", ep, method, st->err.msg);
				break;
			}
			if (!got_data)
				sk__etcd_conn_answered(s->conn, ep);
			got_data = 1;
			last = sk_mono_ns();
			r = st->on_data ? st->on_data(st, data, len) : on_watch_data(st, data, len);
			free(data);
			if (r) {
				rc = r > 0 ? 0 : -1;
				break;
			}
		}
		sk__etcd_stream_close(g);
		/* only an endpoint that could not be reached passes it on */
		if (rc >= 0 || st->err.code != SK_EUNAVAILABLE || stopping(s))
			break;
	}
	if (rc < 0 && !st->err.code)
		sk_error_set(&st->err, SK_EUNAVAILABLE, "store: closing");
	return rc;
}

static int feed_hub(struct stream *st, sk__etcd_wmsg *m);

/* Watches ROOT from start_rev until on_msg ends it, the stream breaks or the
 * store closes. Returns 0 when on_msg ended it, else -1 (st->err set). */
static int stream_run(struct etcd_store *s, struct stream *st, int64_t start_rev)
{
	Etcdserverpb__WatchCreateRequest cr = ETCDSERVERPB__WATCH_CREATE_REQUEST__INIT;
	Etcdserverpb__WatchRequest req = ETCDSERVERPB__WATCH_REQUEST__INIT;
	cleanup_free char *k = NULL, *end = NULL;
	int rc;

	set_range(s, &cr.key, &cr.range_end, "", &k, &end);
	cr.start_revision = start_rev;
	/* The main watch feeds the copy, which holds every key's previous value
	 * (feed_hub): etcd need not read and send it with each event. A replay
	 * starts from an older revision than the copy's and gets it from etcd. */
	cr.prev_kv = st->on_msg != feed_hub;
	cr.progress_notify = st->on_msg == feed_hub;
	req.request_union_case = ETCDSERVERPB__WATCH_REQUEST__REQUEST_UNION_CREATE_REQUEST;
	req.create_request = &cr;
	rc = stream_call(s, st, SK__ETCD_WATCH, MSG(req), 0);
	if (rc == 1)
		sk_error_set(&st->err, SK_EUNAVAILABLE, "etcd watch: stream ended");
	return rc ? -1 : 0;
}

/* A progress notification (the main watch asks for them: etcd sends one
 * every --experimental-watch-progress-notify-interval while the watch is
 * idle): every event up to rev was sent, so memory and the hub are at rev,
 * and bookmarks carry it, as upstream's cacher advances its revision. */
static void progress(struct etcd_store *s, int64_t rev)
{
	pthread_rwlock_wrlock(&s->lock);
	if (rev > s->tab_rev)
		s->tab_rev = rev;
	pthread_rwlock_unlock(&s->lock);
	pthread_mutex_lock(&s->wmu);
	if (rev > s->watch_rev)
		s->watch_rev = rev;
	__atomic_store_n(&s->delivered, s->watch_rev, __ATOMIC_RELEASE);
	wake_seen(s);
	pthread_mutex_unlock(&s->wmu);
	max64(&s->rev, rev);
}

/* The hub's feed: every event under ROOT, in revision order. */
static int feed_hub(struct stream *st, sk__etcd_wmsg *m)
{
	struct etcd_store *s = st->s;

	if (m->canceled) {
		/* Only when the watch fell behind compaction (etcd down for longer
		 * than the history bound): the hub resumes from there, and its
		 * watchers miss what was compacted. */
		sk_warn("store", "etcd: watch canceled at compacted revision %lld after %lld",
			(long long)m->compact_rev, (long long)s->watch_rev);
		s->resync = 1;
		return 1;
	}
	if (!m->n) {
		if (!m->created)
			progress(s, m->header_rev);
		return 0;
	}
	pthread_rwlock_wrlock(&s->lock);
	for (size_t i = 0; i < m->n; i++) {
		sk__event *ev = &m->events[i];

		sk__mnode *n;

		if (ev->rev <= s->tab_rev)
			continue;
		/* the previous value is the copy's (the watch asks etcd for no prev_kv) */
		n = ev->type != SK_STORE_CREATE && !ev->prev ? sk__memtab_find(&s->tab, ev->key->data) : NULL;
		if (n) {
			ev->prev = sk__blob_ref(n->val);
			ev->prev_create_rev = n->create_rev;
			ev->prev_mod_rev = n->mod_rev;
			if (ev->type == SK_STORE_DELETE) {
				sk__blob_unref(ev->val);
				ev->val = sk__blob_ref(n->val);
				ev->create_rev = n->create_rev;
			}
		}
		if (ev->type == SK_STORE_DELETE)
			sk__memtab_remove(&s->tab, ev->key->data);
		else
			sk__memtab_put(&s->tab, sk__blob_ref(ev->key), sk__blob_ref(ev->val), ev->create_rev, ev->rev);
		s->tab_rev = ev->rev;
	}
	pthread_rwlock_unlock(&s->lock);
	pthread_mutex_lock(&s->wmu);
	for (size_t i = 0; i < m->n; i++) {
		if (m->events[i].rev <= s->watch_rev)
			continue; /* replayed again after a reconnect */
		s->watch_rev = m->events[i].rev;
		sk__hub_push(&s->hub, &m->events[i]);
	}
	__atomic_store_n(&s->delivered, s->watch_rev, __ATOMIC_RELEASE);
	wake_seen(s);
	pthread_mutex_unlock(&s->wmu);
	max64(&s->rev, m->events[m->n - 1].rev);
	return 0;
}

static void sleep_unless_stopped(struct etcd_store *s, int64_t ns)
{
	struct timespec until;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += (until.tv_nsec + ns) / 1000000000LL;
	until.tv_nsec = (until.tv_nsec + ns) % 1000000000LL;
	pthread_mutex_lock(&s->wmu);
	if (!s->stop)
		pthread_cond_timedwait(&s->wcv, &s->wmu, &until);
	pthread_mutex_unlock(&s->wmu);
}

static void *watch_main(void *arg)
{
	struct etcd_store *s = arg;

	while (!stopping(s)) {
		struct stream st = {.s = s, .on_msg = feed_hub};
		sk_error_t err = {0};
		int64_t from, t0;

		if (s->resync && resync(s, &err) < 0) {
			sk_warn("store", "etcd: reloading the state: %s", err.msg);
			sleep_unless_stopped(s, RECONNECT_NS);
			continue;
		}
		s->resync = 0;
		pthread_mutex_lock(&s->wmu);
		from = s->watch_rev + 1;
		pthread_mutex_unlock(&s->wmu);
		t0 = sk_mono_ns();
		if (stream_run(s, &st, from) < 0 && !stopping(s))
			sk_warn("store", "etcd: watch from revision %lld: %s; reconnecting", (long long)from,
				st.err.msg);
		/* a watch that was up a while (its member gone) is made again at
		 * once, on the next endpoint if that member cannot be reached:
		 * writes wait for it to deliver their revision; one that ended
		 * straight away waits first */
		if (!stopping(s) && sk_mono_ns() - t0 < RECONNECT_NS)
			sleep_unless_stopped(s, RECONNECT_NS);
	}
	return NULL;
}

/* A replay's feed: events up to st->upto go to st->w; the stream ends past
 * it, or once etcd has sent everything up to it (a catching-up watcher gets
 * all revisions up to the header's in one message of fewer than
 * WATCH_BATCH_REVS revisions). */
static int feed_replay(struct stream *st, sk__etcd_wmsg *m)
{
	if (m->canceled)
		return sk_error_set(&st->err, SK_EGONE, "store: revision %lld is compacted (oldest %lld)",
				    (long long)st->w->from_rev, (long long)m->compact_rev);
	for (size_t i = 0; i < m->n; i++) {
		if (m->events[i].rev > st->upto)
			return 1;
		sk__event_deliver(st->w, &m->events[i]);
		if (m->events[i].rev == st->upto)
			return 1;
	}
	return m->n && m->header_rev >= st->upto && m->distinct_revs < WATCH_BATCH_REVS;
}

/* Replays (from_rev, watch_rev] to w; wmu held, so the hub stands still. */
static int replay(struct etcd_store *s, sk_store_watch *w, int64_t from_rev, sk_error_t *err)
{
	struct stream st = {.s = s, .on_msg = feed_replay, .w = w};
	int64_t first;

	if (from_rev < load64(&s->compacted))
		return sk_error_set(err, SK_EGONE, "store: revision %lld is compacted (oldest %lld)",
				    (long long)from_rev, (long long)load64(&s->compacted));
	w->from_rev = from_rev;
	if (from_rev >= s->watch_rev || sk__hub_replay(&s->hub, w, from_rev) == 0)
		return 0;
	/* From etcd up to the ring's first event, which etcd is sure to send;
	 * with an empty ring, up to watch_rev, which may be no event under ROOT
	 * (the hub's start): then the end is when etcd goes quiet. */
	first = s->hub.n ? s->hub.ring[s->hub.start].rev : 0;
	st.upto = first ? first - 1 : s->watch_rev;
	st.idle_ns = first ? 0 : REPLAY_IDLE_NS;
	/* the hub waits meanwhile: a replay that gets nowhere fails */
	st.deadline_ns = sk_mono_ns() + CALL_TIMEOUT_MS * 1000000LL;
	if (stream_run(s, &st, from_rev + 1) < 0) {
		if (err)
			*err = st.err;
		return -1;
	}
	if (first && sk__hub_replay(&s->hub, w, first - 1) < 0)
		return sk_error_set(err, SK_EINTERNAL, "store: watch history changed during a replay");
	return 0;
}

static sk_store_watch *op_watch_start(sk_store *base, const char *prefix, int64_t from_rev, sk_store_watch_cb cb,
				      void *ud, sk_error_t *err)
{
	struct etcd_store *s = E(base);
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
	struct etcd_store *s = E(base);

	pthread_mutex_lock(&s->wmu);
	sk__hub_remove(&s->hub, w);
	pthread_mutex_unlock(&s->wmu);
	sk__watch_free(w);
}

/* ---- compaction ---- */

static void *compact_main(void *arg)
{
	struct etcd_store *s = arg;
	int64_t period = s->history_secs > 0 ? s->history_secs : 1, seen = load64(&s->rev);

	while (!stopping(s)) {
		int64_t now_rev, target;
		sk_error_t err = {0};

		sleep_unless_stopped(s, period * 1000000000LL);
		if (stopping(s))
			break;
		now_rev = load64(&s->rev);
		target = s->history_secs < 0 ? now_rev : seen;
		if (s->history_events >= 0 && now_rev - s->history_events < target)
			target = now_rev - s->history_events;
		seen = now_rev;
		if (target > load64(&s->compacted) && op_compact(&s->base, target, &err) < 0)
			sk_warn("store", "etcd: compacting to %lld: %s", (long long)target, err.msg);
	}
	return NULL;
}

/* ---- stats, open, close ---- */

static void op_stats(sk_store *base, sk_store_stats *st)
{
	struct etcd_store *s = E(base);
	Etcdserverpb__StatusRequest req = ETCDSERVERPB__STATUS_REQUEST__INIT;
	Etcdserverpb__StatusResponse *r = NULL;
	sk_error_t err = {0};

	st->keys = op_count(base, "");
	if (call(s, SK__ETCD_STATUS, MSG(req), &etcdserverpb__status_response__descriptor, REPLY(r), &err) == 0) {
		st->db_bytes = r->dbsize;
		etcdserverpb__status_response__free_unpacked(r, NULL);
	}
	st->rev = load64(&s->rev);
	st->compacted_rev = load64(&s->compacted);
	st->writes = st->commits = load64(&s->writes);
}

static void store_free(struct etcd_store *s)
{
	for (sk__wgroup *g = s->hub.groups; g; g = g->next) {
		sk_store_watch *w = g->head, *next;

		for (; w; w = next) {
			next = w->next;
			sk__watch_free(w);
		}
		g->head = NULL;
	}
	sk__hub_release(&s->hub);
	sk__memtab_release(&s->tab);
	pthread_rwlock_destroy(&s->lock);
	sk__etcd_conn_close(s->conn);
	for (size_t i = 0; i < s->nhosts; i++)
		free(s->hosts[i]);
	free(s->hosts);
	free(s->root);
	free(s->ca);
	free(s->cert);
	free(s->key);
	pthread_mutex_destroy(&s->wmu);
	pthread_cond_destroy(&s->wcv);
	pthread_mutex_destroy(&s->fmu);
	pthread_cond_destroy(&s->fcv);
	free(s);
}

static void op_close(sk_store *base)
{
	struct etcd_store *s = E(base);

	pthread_mutex_lock(&s->wmu);
	__atomic_store_n(&s->stop, 1, __ATOMIC_RELEASE);
	wake_seen(s);
	pthread_cond_broadcast(&s->wcv);
	pthread_mutex_unlock(&s->wmu);
	if (s->watcher_started)
		pthread_join(s->watcher, NULL);
	if (s->compactor_started)
		pthread_join(s->compactor, NULL);
	store_free(s);
}

/* kube-apiserver's etcd health check: a linearizable read, which needs a quorum */
static int op_health(sk_store *base, sk_error_t *err)
{
	struct etcd_store *s = E(base);
	Etcdserverpb__RangeRequest req = ETCDSERVERPB__RANGE_REQUEST__INIT;
	Etcdserverpb__RangeResponse *r = NULL;

	req.key = bin("health", 6);
	if (range(s, &req, &r, err) < 0)
		return -1;
	etcdserverpb__range_response__free_unpacked(r, NULL);
	return 0;
}

static const struct sk__store_ops etcd_ops = {
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
	.health = op_health,
	.sync = op_sync,
};

/* "h1:p1,h2:p2[/ROOT]" → s->hosts and s->root, and the channels to them. */
static int parse_endpoints(struct etcd_store *s, const char *spec, sk_error_t *err)
{
	const char *slash = strchr(spec, '/');
	cleanup_free char *hosts = slash ? xstrndup(spec, (size_t)(slash - spec)) : xstrdup(spec);

	s->root = xstrdup(slash && slash[1] ? slash : "");
	if (s->root[0] && s->root[strlen(s->root) - 1] == '/')
		s->root[strlen(s->root) - 1] = '\0';
	for (char *h = hosts, *next; h; h = next) {
		next = strchr(h, ',');
		if (next)
			*next++ = '\0';
		if (!*h || !strchr(h, ':') || strchr(h, '@') || strchr(h, '/'))
			return sk_error_set(err, SK_EINVALID, "store \"etcd://%s\": want HOST:PORT, got \"%s\"", spec,
					    h);
		s->hosts = xrealloc(s->hosts, (s->nhosts + 1) * sizeof(s->hosts[0]));
		s->hosts[s->nhosts++] = xstrdup(h);
	}
	if (!s->nhosts)
		return sk_error_set(err, SK_EINVALID, "store \"etcd://%s\": no endpoint", spec);
	s->conn = sk__etcd_conn_open(s->hosts, s->nhosts, s->ca, s->cert, s->key, err);
	return s->conn ? 0 : -1;
}

/* etcd reports its compaction bound only to a failing read: the oldest
 * revision a range can still be read at, by bisection. */
static int learn_compacted(struct etcd_store *s, sk_error_t *err)
{
	int64_t lo = 1, hi = load64(&s->rev);

	while (lo < hi) {
		int64_t mid = lo + (hi - lo) / 2;
		Etcdserverpb__RangeRequest req = ETCDSERVERPB__RANGE_REQUEST__INIT;
		Etcdserverpb__RangeResponse *r = NULL;
		cleanup_free char *k = NULL, *end = NULL;
		sk_error_t e = {0};

		set_range(s, &req.key, &req.range_end, "", &k, &end);
		req.revision = mid;
		req.limit = 1;
		req.count_only = 1;
		if (range(s, &req, &r, &e) == 0) {
			etcdserverpb__range_response__free_unpacked(r, NULL);
			hi = mid;
		} else if (e.code == SK_EGONE) {
			lo = mid + 1;
		} else {
			return sk_error_set(err, e.code, "%s", e.msg);
		}
	}
	s->compacted = lo > 1 ? lo : 0;
	return 0;
}

/* etcd's status (it answers), and its revision into s->rev. */
static int status(struct etcd_store *s, sk_error_t *err)
{
	Etcdserverpb__StatusRequest req = ETCDSERVERPB__STATUS_REQUEST__INIT;
	Etcdserverpb__StatusResponse *r = NULL;

	if (call(s, SK__ETCD_STATUS, MSG(req), &etcdserverpb__status_response__descriptor, REPLY(r), err) < 0)
		return -1;
	max64(&s->rev, header_rev(r->header));
	etcdserverpb__status_response__free_unpacked(r, NULL);
	return 0;
}

static struct etcd_store *store_new(const sk_store_options *opts, size_t ring)
{
	struct etcd_store *s = xzalloc(sizeof(*s));

	s->base.ops = &etcd_ops;
	pthread_rwlock_init(&s->lock, NULL);
	sk__memtab_init(&s->tab);
	pthread_mutex_init(&s->wmu, NULL);
	pthread_cond_init(&s->wcv, NULL);
	pthread_mutex_init(&s->fmu, NULL);
	pthread_cond_init(&s->fcv, NULL);
	sk__hub_init(&s->hub, ring);
	s->ca = opts && opts->tls_ca ? xstrdup(opts->tls_ca) : NULL;
	s->cert = opts && opts->tls_cert ? xstrdup(opts->tls_cert) : NULL;
	s->key = opts && opts->tls_key ? xstrdup(opts->tls_key) : NULL;
	return s;
}

sk_store *sk__etcd_open(const char *endpoints, const sk_store_options *opts, sk_error_t *err)
{
	struct etcd_store *s = store_new(opts, RING_EVENTS);

	s->history_secs = opts->min_history_secs ? opts->min_history_secs : DEFAULT_HISTORY_SECS;
	s->history_events = opts->max_history_events ? opts->max_history_events : DEFAULT_HISTORY_EVENTS;
	if (parse_endpoints(s, endpoints, err) < 0)
		goto fail;
	if (status(s, err) < 0 || learn_compacted(s, err) < 0 || resync(s, err) < 0) {
		sk_error_wrap(err, "store \"etcd://%s\"", endpoints);
		goto fail;
	}
	if (pthread_create(&s->watcher, NULL, watch_main, s) != 0) {
		sk_error_set(err, SK_EINTERNAL, "store: starting the etcd watch: %s", strerror(errno));
		goto fail;
	}
	s->watcher_started = 1;
	if (pthread_create(&s->compactor, NULL, compact_main, s) == 0)
		s->compactor_started = 1;
	return &s->base;
fail:
	op_close(&s->base);
	return NULL;
}

/* ---- snapshots ---- */

/* One message of Maintenance/Snapshot: a piece of the file and how much is left. */
static int snapshot_data(struct stream *st, const uint8_t *data, size_t len)
{
	Etcdserverpb__SnapshotResponse *r = etcdserverpb__snapshot_response__unpack(NULL, len, data);
	int rc = 0;

	if (!r)
		return sk_error_set(&st->err, SK_EUNKNOWN, "etcd snapshot: malformed message");
	if (r->blob.len && fwrite(r->blob.data, 1, r->blob.len, st->out) != r->blob.len)
		rc = sk_error_errno(&st->err, errno, "writing the snapshot");
	st->remaining = (int64_t)r->remaining_bytes;
	etcdserverpb__snapshot_response__free_unpacked(r, NULL);
	return rc;
}

int sk_store_etcd_snapshot(const char *uri, const sk_store_options *opts, const char *path, sk_error_t *err)
{
	static const char scheme[] = "etcd://";
	Etcdserverpb__SnapshotRequest req = ETCDSERVERPB__SNAPSHOT_REQUEST__INIT;
	struct etcd_store *s;
	struct stream st = {.on_data = snapshot_data, .remaining = -1};
	cleanup_free char *tmp = xasprintf("%s.part", path);
	int rc = -1, src;

	if (strncmp(uri, scheme, strlen(scheme)) != 0)
		return sk_error_set(err, SK_EINVALID, "\"%s\": a snapshot needs an etcd://HOST:PORT endpoint", uri);
	s = store_new(opts, 1);
	st.s = s;
	if (parse_endpoints(s, uri + strlen(scheme), err) < 0)
		goto out;
	if (!(st.out = fopen(tmp, "wbx"))) {
		sk_error_errno(err, errno, "creating \"%s\"", tmp);
		goto out;
	}
	src = stream_call(s, &st, SK__ETCD_SNAPSHOT, MSG(req), 1);
	if (src < 0) {
		if (err)
			*err = st.err;
	} else if (st.remaining != 0) {
		sk_error_set(err, SK_EUNAVAILABLE, "etcd snapshot: the stream ended %lld bytes early",
			     (long long)st.remaining);
	} else if (fflush(st.out) != 0 || fsync(fileno(st.out)) < 0 || rename(tmp, path) < 0) {
		sk_error_errno(err, errno, "saving \"%s\"", path);
	} else {
		rc = 0;
	}
	fclose(st.out);
	if (rc < 0)
		unlink(tmp);
out:
	store_free(s);
	return rc;
}
