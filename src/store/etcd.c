/* The etcd v3 backend ("etcd://HOST:PORT[,HOST:PORT...][/ROOT]").
 *
 * skiff talks to etcd through its JSON gRPC gateway (POST /v3/kv/range, put,
 * txn, deleterange, compaction, /v3/watch, /v3/maintenance/status) with
 * libcurl; Debian has no gRPC library for C (docs/ARCHITECTURE.md). A key K
 * is stored as ROOT+K, so with no ROOT `etcdctl get --prefix /registry/pods`
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
 * Watchers and reads: one etcd watch on all of ROOT (prev_kv) feeds, from
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
#include <curl/curl.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "store/etcd-int.h"
#include "util/util.h"

#define RING_EVENTS 8192
/* curl handles kept between calls, each with its keep-alive connection to
 * the gateway: enough for every thread that writes at once (a handle
 * beyond it is a new connection each time) */
#define POOL_HANDLES 256
#define CALL_TIMEOUT_MS 10000L
#define CONNECT_TIMEOUT_MS 3000L
#define SEEN_WAIT_SECS 10
#define FRESH_WAIT_MS 500
#define REPLAY_IDLE_NS (1000 * 1000000LL)
#define RECONNECT_NS (300 * 1000000LL)
#define DEFAULT_HISTORY_SECS 300
#define DEFAULT_HISTORY_EVENTS 100000
/* etcd sends a catching-up watcher at most this many revisions per message */
#define WATCH_BATCH_REVS 1000

struct etcd_store {
	sk_store base;
	char **urls; /* "http(s)://HOST:PORT" */
	size_t nurls;
	int cur; /* atomic: the endpoint that answered last */
	char *root;
	char *ca, *cert, *key;
	int64_t history_secs, history_events;
	int64_t rev, compacted, writes; /* atomic */

	pthread_mutex_t pmu; /* guards pool */
	CURL *pool[POOL_HANDLES];
	size_t npool;

	pthread_rwlock_t lock; /* guards tab and tab_rev */
	sk__memtab tab;
	int64_t tab_rev;
	int resync; /* watch thread: the watch lost history, reload tab */

	pthread_mutex_t wmu; /* guards hub, watch_rev, stop */
	pthread_cond_t wcv;  /* watch_rev advanced, or stop */
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

struct buf {
	char *data;
	size_t len, cap;
};

static size_t collect(char *p, size_t size, size_t n, void *ud)
{
	struct buf *b = ud;

	n *= size;
	if (b->len + n + 1 > b->cap) {
		b->cap = (b->len + n + 1) * 2;
		b->data = xrealloc(b->data, b->cap);
	}
	memcpy(b->data + b->len, p, n);
	b->len += n;
	return n;
}

static void tls_opts(struct etcd_store *s, CURL *h)
{
	if (s->ca)
		curl_easy_setopt(h, CURLOPT_CAINFO, s->ca);
	if (s->cert)
		curl_easy_setopt(h, CURLOPT_SSLCERT, s->cert);
	if (s->key)
		curl_easy_setopt(h, CURLOPT_SSLKEY, s->key);
}

static CURL *handle_take(struct etcd_store *s)
{
	CURL *h = NULL;

	pthread_mutex_lock(&s->pmu);
	if (s->npool)
		h = s->pool[--s->npool];
	pthread_mutex_unlock(&s->pmu);
	if (h)
		return h;
	if (!(h = curl_easy_init()))
		abort();
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, CALL_TIMEOUT_MS);
	curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, CONNECT_TIMEOUT_MS);
	curl_easy_setopt(h, CURLOPT_TCP_NODELAY, 1L);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, collect);
	tls_opts(s, h);
	return h;
}

static void handle_give(struct etcd_store *s, CURL *h)
{
	pthread_mutex_lock(&s->pmu);
	if (s->npool < POOL_HANDLES) {
		s->pool[s->npool++] = h;
		h = NULL;
	}
	pthread_mutex_unlock(&s->pmu);
	if (h)
		curl_easy_cleanup(h);
}

/* POSTs req to path on the first endpoint that answers; *reply gets the
 * decoded JSON (caller frees). Unreachable endpoints fail as upstream's
 * API server reports a lost etcd: 503 "etcdserver: request timed out". */
static int call(struct etcd_store *s, const char *path, json_t *req, json_t **reply, sk_error_t *err)
{
	cleanup_free char *body = json_dumps(req, JSON_COMPACT);
	struct curl_slist *hdr = curl_slist_append(NULL, "Content-Type: application/json");
	int first = __atomic_load_n(&s->cur, __ATOMIC_RELAXED);
	CURLcode rc = CURLE_COULDNT_CONNECT;
	struct buf b = {0};
	CURL *h = handle_take(s);
	json_t *r;

	/* no "Expect: 100-continue" round trip before bodies over 1 KiB */
	hdr = curl_slist_append(hdr, "Expect:");
	*reply = NULL;
	curl_easy_setopt(h, CURLOPT_HTTPHEADER, hdr);
	curl_easy_setopt(h, CURLOPT_POSTFIELDS, body);
	curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE, (long)strlen(body));
	curl_easy_setopt(h, CURLOPT_WRITEDATA, &b);
	for (size_t i = 0; i < s->nurls && rc != CURLE_OK; i++) {
		size_t ep = (first + i) % s->nurls;
		cleanup_free char *url = xasprintf("%s%s", s->urls[ep], path);

		b.len = 0;
		curl_easy_setopt(h, CURLOPT_URL, url);
		rc = curl_easy_perform(h);
		if (rc == CURLE_OK)
			__atomic_store_n(&s->cur, (int)ep, __ATOMIC_RELAXED);
		else
			sk_debug("store", "etcd %s%s: %s", s->urls[ep], path, curl_easy_strerror(rc));
	}
	curl_easy_setopt(h, CURLOPT_HTTPHEADER, NULL);
	curl_slist_free_all(hdr);
	handle_give(s, h);
	if (rc != CURLE_OK) {
		free(b.data);
		return sk_error_set(err, SK_EUNAVAILABLE, "etcdserver: request timed out");
	}
	r = json_loadb(b.data ? b.data : "", b.len, 0, NULL);
	free(b.data);
	if (!json_is_object(r)) {
		json_decref(r);
		return sk_error_set(err, SK_EUNKNOWN, "etcd %s: malformed reply", path);
	}
	if (sk__etcd_reply_error(r, err) < 0) {
		json_decref(r);
		return -1;
	}
	max64(&s->rev, sk__etcd_int(json_object_get(r, "header"), "revision"));
	*reply = r;
	return 0;
}

/* ---- keys ---- */

static json_t *b64(const char *data, size_t len)
{
	char *s = sk__etcd_b64(data, len);
	json_t *j = json_string(s);

	free(s);
	return j;
}

/* The base64 of ROOT+key. */
static json_t *ekey(struct etcd_store *s, const char *key)
{
	cleanup_free char *k = xasprintf("%s%s", s->root, key);

	return b64(k, strlen(k));
}

/* Sets "key" and "range_end" of req to every key with ROOT+prefix. */
static void set_range(struct etcd_store *s, json_t *req, const char *prefix)
{
	cleanup_free char *k = xasprintf("%s%s", s->root, prefix);
	cleanup_free char *end = sk__prefix_end(k);

	/* "\0" is the smallest key; as range_end it means "to the last key" */
	json_object_set_new(req, "key", *k ? b64(k, strlen(k)) : b64("", 1));
	json_object_set_new(req, "range_end", end ? b64(end, strlen(end)) : b64("", 1));
}

/* ---- writes ---- */

/* Waits until the watch has delivered rev, so that watchers have seen every
 * acknowledged write (a lost etcd watch only delays this, up to a bound). */
static void wait_seen(struct etcd_store *s, int64_t rev)
{
	struct timespec until;
	int rc = 0;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += SEEN_WAIT_SECS;
	pthread_mutex_lock(&s->wmu);
	while (s->watch_rev < rev && !s->stop && rc != ETIMEDOUT)
		rc = pthread_cond_timedwait(&s->wcv, &s->wmu, &until);
	pthread_mutex_unlock(&s->wmu);
	if (rc == ETIMEDOUT)
		sk_warn("store", "etcd: the watch has not delivered revision %lld yet", (long long)rev);
}

static json_t *compare(struct etcd_store *s, const char *key, int64_t expect)
{
	if (expect)
		return json_pack("{s:o, s:s, s:s, s:I}", "key", ekey(s, key), "target", "MOD", "result", "EQUAL",
				 "mod_revision", (json_int_t)expect);
	return json_pack("{s:o, s:s, s:s, s:I}", "key", ekey(s, key), "target", "CREATE", "result", "GREATER",
			 "create_revision", (json_int_t)0);
}

/* Runs txn; on success returns the new revision and leaves the first
 * response in *resp (caller frees); on a failed compare tells NotFound from
 * Conflict from the failure branch's read of key. */
static int64_t txn(struct etcd_store *s, const char *key, json_t *txn_req, int64_t expect, json_t **resp,
		   sk_error_t *err)
{
	cleanup_json json_t *r = NULL;
	json_t *kvs;
	int64_t rev;

	if (call(s, "/v3/kv/txn", txn_req, &r, err) < 0)
		return -1;
	kvs = json_object_get(json_object_get(json_array_get(json_object_get(r, "responses"), 0), "response_range"),
			      "kvs");
	if (!json_is_true(json_object_get(r, "succeeded"))) {
		/* what made it fail reaches memory before the caller retries */
		wait_seen(s, sk__etcd_int(json_object_get(r, "header"), "revision"));
		if (!json_array_size(kvs))
			return sk_error_set(err, SK_ENOTFOUND, "key \"%s\" not found", key);
		return sk_error_set(err, SK_ECONFLICT, "key \"%s\": revision %lld is not the current %lld", key,
				    (long long)expect, (long long)sk__etcd_int(json_array_get(kvs, 0), "mod_revision"));
	}
	rev = sk__etcd_int(json_object_get(r, "header"), "revision");
	if (resp)
		*resp = json_incref(json_array_get(json_object_get(r, "responses"), 0));
	__atomic_add_fetch(&s->writes, 1, __ATOMIC_RELAXED);
	wait_seen(s, rev);
	return rev;
}

static int64_t op_create(sk_store *base, const char *key, const char *value, size_t len, sk_error_t *err)
{
	struct etcd_store *s = E(base);
	cleanup_json json_t *req = NULL;
	cleanup_json json_t *r = NULL;
	int64_t rev;

	if (!key || !*key)
		return sk_error_set(err, SK_EINVALID, "store: empty key");
	req = json_pack("{s:[{s:o, s:s, s:s, s:I}], s:[{s:{s:o, s:o}}]}", "compare", "key", ekey(s, key), "target",
			"CREATE", "result", "EQUAL", "create_revision", (json_int_t)0, "success", "request_put", "key",
			ekey(s, key), "value", b64(value, len));
	if (call(s, "/v3/kv/txn", req, &r, err) < 0)
		return -1;
	if (!json_is_true(json_object_get(r, "succeeded"))) {
		wait_seen(s, sk__etcd_int(json_object_get(r, "header"), "revision"));
		return sk_error_set(err, SK_EEXISTS, "key \"%s\" already exists", key);
	}
	rev = sk__etcd_int(json_object_get(r, "header"), "revision");
	__atomic_add_fetch(&s->writes, 1, __ATOMIC_RELAXED);
	wait_seen(s, rev);
	return rev;
}

static int64_t op_update(sk_store *base, const char *key, const char *value, size_t len, int64_t expect_rev,
			 sk_error_t *err)
{
	struct etcd_store *s = E(base);
	cleanup_json json_t *req = NULL;

	if (!key || !*key)
		return sk_error_set(err, SK_EINVALID, "store: empty key");
	req = json_pack("{s:[o], s:[{s:{s:o, s:o}}], s:[{s:{s:o}}]}", "compare", compare(s, key, expect_rev), "success",
			"request_put", "key", ekey(s, key), "value", b64(value, len), "failure", "request_range", "key",
			ekey(s, key));
	return txn(s, key, req, expect_rev, NULL, err);
}

static int64_t op_delete(sk_store *base, const char *key, int64_t expect_rev, sk_store_kv *prev, sk_error_t *err)
{
	struct etcd_store *s = E(base);
	cleanup_json json_t *req = NULL;
	cleanup_json json_t *resp = NULL;
	int64_t rev;

	if (!key || !*key)
		return sk_error_set(err, SK_EINVALID, "store: empty key");
	req = json_pack("{s:[o], s:[{s:{s:o, s:b}}], s:[{s:{s:o}}]}", "compare", compare(s, key, expect_rev), "success",
			"request_delete_range", "key", ekey(s, key), "prev_kv", 1, "failure", "request_range", "key",
			ekey(s, key));
	rev = txn(s, key, req, expect_rev, &resp, err);
	if (rev < 0 || !prev)
		return rev;
	if (sk__etcd_kv(json_array_get(json_object_get(json_object_get(resp, "response_delete_range"), "prev_kvs"), 0),
			s->root, prev) < 0)
		sk__kv_fill(prev, key, "", 0, 0, 0);
	return rev;
}

static int op_compact(sk_store *base, int64_t rev, sk_error_t *err)
{
	struct etcd_store *s = E(base);
	cleanup_json json_t *req = json_pack("{s:I, s:b}", "revision", (json_int_t)rev, "physical", 1);
	cleanup_json json_t *r = NULL;
	sk_error_t e = {0};

	if (rev > load64(&s->rev))
		return sk_error_set(err, SK_EINVALID, "store: cannot compact to future revision %lld", (long long)rev);
	if (rev <= load64(&s->compacted))
		return 0;
	if (call(s, "/v3/kv/compaction", req, &r, &e) < 0 && e.code != SK_EGONE) {
		if (err)
			*err = e;
		return -1;
	}
	max64(&s->compacted, rev);
	return 0;
}

/* ---- reads ---- */

/* etcd's current revision, by a linearizable read (one that goes through
 * etcd's leader: it fails without a quorum). */
static int current_rev(struct etcd_store *s, int64_t *rev, sk_error_t *err)
{
	cleanup_json json_t *req = json_pack("{s:o, s:b}", "key", ekey(s, "/"), "count_only", 1);
	cleanup_json json_t *r = NULL;

	if (call(s, "/v3/kv/range", req, &r, err) < 0)
		return -1;
	*rev = sk__etcd_int(json_object_get(r, "header"), "revision");
	return 0;
}

/* Upstream's consistent reads from the watch cache: etcd's current revision,
 * then a wait for the watch to have delivered it. Concurrent callers share
 * one read of the revision: a caller waits for one that started after it
 * came, and starts it when none is under way. */
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
			frc = current_rev(s, &got, &ferr);
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
	while (s->watch_rev < rev && !s->stop && rc != ETIMEDOUT)
		rc = pthread_cond_timedwait(&s->wcv, &s->wmu, &until);
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
	cleanup_json json_t *req = json_object();
	cleanup_json json_t *r = NULL;
	const json_t *kvs;
	size_t i;

	memset(out, 0, sizeof(*out));
	set_range(s, req, prefix);
	if (after && *after && strcmp(after, prefix) >= 0) {
		/* strictly after: the smallest key greater than ROOT+after */
		cleanup_free char *k = xasprintf("%s%s", s->root, after);

		json_object_set_new(req, "key", b64(k, strlen(k) + 1));
	}
	if (limit)
		json_object_set_new(req, "limit", json_integer((json_int_t)limit));
	if (rev > 0)
		json_object_set_new(req, "revision", json_integer(rev));
	if (call(s, "/v3/kv/range", req, &r, err) < 0) {
		if (err && err->code == SK_ETIMEOUT)
			sk_error_set(err, SK_ETIMEOUT, "store: too large resource version %lld, current %lld",
				     (long long)rev, (long long)load64(&s->rev));
		else if (err && err->code == SK_EGONE)
			sk_error_set(err, SK_EGONE, "store: revision %lld is compacted", (long long)rev);
		return -1;
	}
	kvs = json_object_get(r, "kvs");
	out->items = xzalloc((json_array_size(kvs) + 1) * sizeof(out->items[0]));
	for (i = 0; i < json_array_size(kvs); i++)
		if (sk__etcd_kv(json_array_get(kvs, i), s->root, &out->items[out->n]) == 0)
			out->n++;
	out->more = json_is_true(json_object_get(r, "more"));
	out->rev = rev > 0 ? rev : sk__etcd_int(json_object_get(r, "header"), "revision");
	return 0;
}

/* Waits up to ms for the watch to deliver rev; returns whether it did. */
static int wait_seen_for(struct etcd_store *s, int64_t rev, int64_t ms)
{
	struct timespec ts;
	int rc = 0, seen;

	sk_deadline_after_ms(&ts, ms);
	pthread_mutex_lock(&s->wmu);
	while (s->watch_rev < rev && !s->stop && rc != ETIMEDOUT)
		rc = pthread_cond_timedwait(&s->wcv, &s->wmu, &ts);
	seen = s->watch_rev >= rev;
	pthread_mutex_unlock(&s->wmu);
	return seen;
}

/* etcd's current revision, and how many keys under prefix it holds in all
 * and modified after since (one read-only txn of two count-only ranges). */
static int etcd_counts(struct etcd_store *s, const char *prefix, int64_t since, int64_t *rev, int64_t *all,
		       int64_t *newer, sk_error_t *err)
{
	cleanup_json json_t *r1 = json_pack("{s:b}", "count_only", 1), *r2 = json_pack("{s:b}", "count_only", 1);
	cleanup_json json_t *req = NULL, *r = NULL;
	json_t *res;

	set_range(s, r1, prefix);
	set_range(s, r2, prefix);
	json_object_set_new(r2, "min_mod_revision", json_integer(since + 1));
	req = json_pack("{s:[{s:O}, {s:O}]}", "success", "request_range", r1, "request_range", r2);
	if (call(s, "/v3/kv/txn", req, &r, err) < 0)
		return -1;
	res = json_object_get(r, "responses");
	*rev = sk__etcd_int(json_object_get(r, "header"), "revision");
	*all = sk__etcd_int(json_object_get(json_array_get(res, 0), "response_range"), "count");
	*newer = sk__etcd_int(json_object_get(json_array_get(res, 1), "response_range"), "count");
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
	pthread_cond_broadcast(&s->wcv);
	pthread_mutex_unlock(&s->wmu);
	max64(&s->rev, rev);
	return 0;
}

/* ---- watch streams ---- */

struct stream {
	struct etcd_store *s;
	sk__etcd_lines lines;
	/* returns 1 to end the stream, -1 on error (err set) */
	int (*on_msg)(struct stream *st, sk__etcd_wmsg *m);
	sk__etcd_line_fn line; /* instead of on_msg: other streams than watches */
	sk_error_t err;
	int64_t last_data_ns, idle_ns;
	int64_t deadline_ns; /* 0: none; past it the stream fails */
	int got_data, ended;
	/* a replay */
	sk_store_watch *w;
	int64_t upto;
	/* a snapshot */
	FILE *out;
	int64_t remaining;
};

static int on_line(const char *line, size_t len, void *ud)
{
	struct stream *st = ud;
	sk__etcd_wmsg m;
	int rc;

	if (sk__etcd_wmsg_parse(line, len, st->s->root, &m, &st->err) < 0)
		return -1;
	rc = st->on_msg(st, &m);
	sk__etcd_wmsg_release(&m);
	if (rc)
		st->ended = 1;
	return rc;
}

static size_t stream_write(char *p, size_t size, size_t n, void *ud)
{
	struct stream *st = ud;

	st->got_data = 1;
	st->last_data_ns = sk_mono_ns();
	return sk__etcd_lines_feed(&st->lines, p, size * n, st->line ? st->line : on_line, st) ? 0 : size * n;
}

static int stream_progress(void *ud, curl_off_t dt, curl_off_t dn, curl_off_t ut, curl_off_t un)
{
	struct stream *st = ud;

	if (stopping(st->s))
		return 1;
	if (st->deadline_ns && sk_mono_ns() > st->deadline_ns) {
		sk_error_set(&st->err, SK_EUNAVAILABLE, "etcdserver: request timed out");
		return 1;
	}
	if (st->idle_ns && sk_mono_ns() - st->last_data_ns > st->idle_ns) {
		st->ended = 1;
		return 1;
	}
	return 0;
}

/* POSTs body to path and feeds the streamed reply to st (line by line: to
 * st->line, or as watch messages to st->on_msg) until a handler ends it, the
 * stream breaks or the store closes. Returns 0 when a handler ended it, 1
 * when the stream ended by itself, else -1 (st->err set). */
static int stream_post(struct etcd_store *s, struct stream *st, const char *path, const char *body)
{
	struct curl_slist *hdr = curl_slist_append(NULL, "Content-Type: application/json");
	int first = __atomic_load_n(&s->cur, __ATOMIC_RELAXED);
	CURLcode rc = CURLE_COULDNT_CONNECT;

	st->last_data_ns = sk_mono_ns();
	for (size_t i = 0; i < s->nurls && !st->got_data && !stopping(s); i++) {
		cleanup_free char *url = xasprintf("%s%s", s->urls[(first + i) % s->nurls], path);
		CURL *h = curl_easy_init();

		if (!h)
			abort();
		curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
		curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, CONNECT_TIMEOUT_MS);
		curl_easy_setopt(h, CURLOPT_TCP_KEEPALIVE, 1L);
		curl_easy_setopt(h, CURLOPT_TCP_NODELAY, 1L);
		curl_easy_setopt(h, CURLOPT_URL, url);
		curl_easy_setopt(h, CURLOPT_HTTPHEADER, hdr);
		curl_easy_setopt(h, CURLOPT_POSTFIELDS, body);
		curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, stream_write);
		curl_easy_setopt(h, CURLOPT_WRITEDATA, st);
		curl_easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
		curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, stream_progress);
		curl_easy_setopt(h, CURLOPT_XFERINFODATA, st);
		tls_opts(s, h);
		rc = curl_easy_perform(h);
		curl_easy_cleanup(h);
	}
	curl_slist_free_all(hdr);
	sk__etcd_lines_release(&st->lines);
	if (st->ended && !st->err.code)
		return 0;
	if (st->err.code)
		return -1;
	if (stopping(s))
		return sk_error_set(&st->err, SK_EUNAVAILABLE, "store: closing");
	if (rc != CURLE_OK)
		return sk_error_set(&st->err, SK_EUNAVAILABLE, "etcdserver: request timed out (%s: %s)", path,
				    curl_easy_strerror(rc));
	return 1;
}

static int feed_hub(struct stream *st, sk__etcd_wmsg *m);

/* Watches ROOT from start_rev until on_msg ends it, the stream breaks or the
 * store closes. Returns 0 when on_msg ended it, else -1 (st->err set). */
static int stream_run(struct etcd_store *s, struct stream *st, int64_t start_rev)
{
	cleanup_json json_t *req = json_pack("{s:{s:I, s:b, s:b}}", "create_request", "start_revision",
					     (json_int_t)start_rev, "prev_kv", 1, "progress_notify",
					     st->on_msg == feed_hub);
	cleanup_free char *body = NULL;
	int rc;

	set_range(s, json_object_get(req, "create_request"), "");
	body = json_dumps(req, JSON_COMPACT);
	rc = stream_post(s, st, "/v3/watch", body);
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
	pthread_cond_broadcast(&s->wcv);
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

		if (ev->rev <= s->tab_rev)
			continue;
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
	pthread_cond_broadcast(&s->wcv);
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
		int64_t from;

		if (s->resync && resync(s, &err) < 0) {
			sk_warn("store", "etcd: reloading the state: %s", err.msg);
			sleep_unless_stopped(s, RECONNECT_NS);
			continue;
		}
		s->resync = 0;
		pthread_mutex_lock(&s->wmu);
		from = s->watch_rev + 1;
		pthread_mutex_unlock(&s->wmu);
		if (stream_run(s, &st, from) < 0 && !stopping(s))
			sk_warn("store", "etcd: watch from revision %lld: %s; reconnecting", (long long)from,
				st.err.msg);
		if (!stopping(s))
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
	cleanup_json json_t *req = json_object();
	cleanup_json json_t *r = NULL;
	sk_error_t err = {0};

	st->keys = op_count(base, "");
	if (call(s, "/v3/maintenance/status", req, &r, &err) == 0)
		st->db_bytes = sk__etcd_int(r, "dbSize");
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
	for (size_t i = 0; i < s->npool; i++)
		curl_easy_cleanup(s->pool[i]);
	for (size_t i = 0; i < s->nurls; i++)
		free(s->urls[i]);
	free(s->urls);
	free(s->root);
	free(s->ca);
	free(s->cert);
	free(s->key);
	pthread_mutex_destroy(&s->pmu);
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
	cleanup_json json_t *req = json_pack("{s:o}", "key", b64("health", 6));
	cleanup_json json_t *r = NULL;

	return call(s, "/v3/kv/range", req, &r, err);
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

/* "h1:p1,h2:p2[/ROOT]" → s->urls and s->root. */
static int parse_endpoints(struct etcd_store *s, const char *spec, sk_error_t *err)
{
	const char *slash = strchr(spec, '/');
	cleanup_free char *hosts = slash ? xstrndup(spec, (size_t)(slash - spec)) : xstrdup(spec);
	const char *scheme = s->ca || s->cert || s->key ? "https" : "http";

	s->root = xstrdup(slash && slash[1] ? slash : "");
	if (s->root[0] && s->root[strlen(s->root) - 1] == '/')
		s->root[strlen(s->root) - 1] = '\0';
	for (char *h = hosts, *next; h; h = next) {
		next = strchr(h, ',');
		if (next)
			*next++ = '\0';
		if (!*h || !strchr(h, ':') || strchr(h, '@'))
			return sk_error_set(err, SK_EINVALID, "store \"etcd://%s\": want HOST:PORT, got \"%s\"", spec,
					    h);
		s->urls = xrealloc(s->urls, (s->nurls + 1) * sizeof(s->urls[0]));
		s->urls[s->nurls++] = xasprintf("%s://%s", scheme, h);
	}
	if (!s->nurls)
		return sk_error_set(err, SK_EINVALID, "store \"etcd://%s\": no endpoint", spec);
	return 0;
}

/* etcd reports its compaction bound only to a failing read: the oldest
 * revision a range can still be read at, by bisection. */
static int learn_compacted(struct etcd_store *s, sk_error_t *err)
{
	int64_t lo = 1, hi = load64(&s->rev);

	while (lo < hi) {
		int64_t mid = lo + (hi - lo) / 2;
		cleanup_json json_t *req = json_pack("{s:I, s:I, s:b}", "revision", (json_int_t)mid, "limit",
						     (json_int_t)1, "count_only", 1);
		cleanup_json json_t *r = NULL;
		sk_error_t e = {0};

		set_range(s, req, "");
		if (call(s, "/v3/kv/range", req, &r, &e) == 0)
			hi = mid;
		else if (e.code == SK_EGONE)
			lo = mid + 1;
		else
			return sk_error_set(err, e.code, "%s", e.msg);
	}
	s->compacted = lo > 1 ? lo : 0;
	return 0;
}

sk_store *sk__etcd_open(const char *endpoints, const sk_store_options *opts, sk_error_t *err)
{
	struct etcd_store *s = xzalloc(sizeof(*s));
	cleanup_json json_t *req = json_object();
	cleanup_json json_t *r = NULL;

	s->base.ops = &etcd_ops;
	pthread_mutex_init(&s->pmu, NULL);
	pthread_rwlock_init(&s->lock, NULL);
	sk__memtab_init(&s->tab);
	pthread_mutex_init(&s->wmu, NULL);
	pthread_cond_init(&s->wcv, NULL);
	pthread_mutex_init(&s->fmu, NULL);
	pthread_cond_init(&s->fcv, NULL);
	sk__hub_init(&s->hub, RING_EVENTS);
	s->ca = opts->tls_ca ? xstrdup(opts->tls_ca) : NULL;
	s->cert = opts->tls_cert ? xstrdup(opts->tls_cert) : NULL;
	s->key = opts->tls_key ? xstrdup(opts->tls_key) : NULL;
	s->history_secs = opts->min_history_secs ? opts->min_history_secs : DEFAULT_HISTORY_SECS;
	s->history_events = opts->max_history_events ? opts->max_history_events : DEFAULT_HISTORY_EVENTS;
	if (parse_endpoints(s, endpoints, err) < 0)
		goto fail;
	if (call(s, "/v3/maintenance/status", req, &r, err) < 0 || learn_compacted(s, err) < 0 || resync(s, err) < 0) {
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

/* One message of /v3/maintenance/snapshot: {"result":{"remaining_bytes":N,"blob":B64}}. */
static int snapshot_line(const char *line, size_t len, void *ud)
{
	struct stream *st = ud;
	cleanup_json json_t *msg = json_loadb(line, len, 0, NULL);
	const json_t *res = json_object_get(msg, "result");
	cleanup_free char *data = NULL;
	size_t n = 0;

	if (!json_is_object(msg))
		return sk_error_set(&st->err, SK_EUNKNOWN, "etcd snapshot: malformed message");
	if (sk__etcd_reply_error(msg, &st->err) < 0)
		return -1;
	if (!json_is_object(res) ||
	    sk__etcd_unb64(json_string_value(json_object_get(res, "blob")) ?: "", &data, &n) < 0)
		return sk_error_set(&st->err, SK_EUNKNOWN, "etcd snapshot: malformed message");
	if (n && fwrite(data, 1, n, st->out) != n)
		return sk_error_errno(&st->err, errno, "writing the snapshot");
	st->remaining = sk__etcd_int(res, "remaining_bytes");
	return 0;
}

int sk_store_etcd_snapshot(const char *uri, const sk_store_options *opts, const char *path, sk_error_t *err)
{
	static const char scheme[] = "etcd://";
	struct etcd_store *s;
	struct stream st = {.line = snapshot_line, .remaining = -1};
	cleanup_free char *tmp = xasprintf("%s.part", path);
	int rc = -1;

	if (strncmp(uri, scheme, strlen(scheme)) != 0)
		return sk_error_set(err, SK_EINVALID, "\"%s\": a snapshot needs an etcd://HOST:PORT endpoint", uri);
	s = xzalloc(sizeof(*s));
	sk__hub_init(&s->hub, 1);
	sk__memtab_init(&s->tab);
	pthread_mutex_init(&s->pmu, NULL);
	pthread_rwlock_init(&s->lock, NULL);
	pthread_mutex_init(&s->wmu, NULL);
	pthread_cond_init(&s->wcv, NULL);
	pthread_mutex_init(&s->fmu, NULL);
	pthread_cond_init(&s->fcv, NULL);
	s->ca = opts && opts->tls_ca ? xstrdup(opts->tls_ca) : NULL;
	s->cert = opts && opts->tls_cert ? xstrdup(opts->tls_cert) : NULL;
	s->key = opts && opts->tls_key ? xstrdup(opts->tls_key) : NULL;
	st.s = s;
	if (parse_endpoints(s, uri + strlen(scheme), err) < 0)
		goto out;
	if (!(st.out = fopen(tmp, "wbx"))) {
		sk_error_errno(err, errno, "creating \"%s\"", tmp);
		goto out;
	}
	if (stream_post(s, &st, "/v3/maintenance/snapshot", "{}") < 0) {
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
