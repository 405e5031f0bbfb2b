/* Store conformance cases every backend passes (test_store.c runs them on
 * SQLite, test_store_etcd.c on a real etcd). The including file defines
 * struct fx (with the store in f->s and its uri in f->uri) and the
 * fixtures; revisions are asserted relative to the store's revision at the
 * start, since an etcd shared by several cases has history of its own. */
#ifndef SK_TESTS_STORE_CASES_H
#define SK_TESTS_STORE_CASES_H

static sk_store *open_store(struct fx *f, const sk_store_options *opts)
{
	sk_error_t err = {0};
	sk_store *s = sk_store_open(f->uri, opts, &err);

	if (!s)
		fail_msg("open: %s", err.msg);
	return s;
}

static int64_t put(sk_store *s, const char *key, const char *val)
{
	sk_error_t err = {0};
	int64_t rev = sk_store_create(s, key, val, strlen(val), &err);

	if (rev < 0)
		fail_msg("create %s: %s", key, err.msg);
	return rev;
}

/* ---- event recorder ---- */

struct rec_ev {
	int type;
	char key[64];
	char val[64];
	char prev[64];
	int has_prev;
	int64_t rev, create_rev, prev_mod_rev;
};

struct rec {
	pthread_mutex_t mu;
	struct rec_ev *evs;
	size_t n, cap;
};

static void rec_cb(const sk_store_event *ev, void *ud)
{
	struct rec *r = ud;
	struct rec_ev *e;

	pthread_mutex_lock(&r->mu);
	if (r->n == r->cap) {
		r->cap = r->cap ? r->cap * 2 : 64;
		r->evs = xrealloc(r->evs, r->cap * sizeof(r->evs[0]));
	}
	e = &r->evs[r->n++];
	memset(e, 0, sizeof(*e));
	e->type = ev->type;
	snprintf(e->key, sizeof(e->key), "%s", ev->kv->key);
	snprintf(e->val, sizeof(e->val), "%.*s", (int)ev->kv->len, ev->kv->value);
	e->rev = ev->kv->mod_rev;
	e->create_rev = ev->kv->create_rev;
	if (ev->prev) {
		e->has_prev = 1;
		snprintf(e->prev, sizeof(e->prev), "%.*s", (int)ev->prev->len, ev->prev->value);
		e->prev_mod_rev = ev->prev->mod_rev;
	}
	pthread_mutex_unlock(&r->mu);
}

static void rec_init(struct rec *r)
{
	memset(r, 0, sizeof(*r));
	pthread_mutex_init(&r->mu, NULL);
}

static void rec_release(struct rec *r)
{
	free(r->evs);
	pthread_mutex_destroy(&r->mu);
}

/* ---- tests ---- */

static void test_crud(void **state)
{
	struct fx *f = *state;
	sk_error_t err = {0};
	sk_store_kv kv = {0}, prev = {0};
	int64_t r1, r2, r3, base = sk_store_rev(f->s);

	assert_true(base >= 0);
	r1 = put(f->s, "/registry/pods/default/a", "one");
	assert_int_equal(r1, base + 1);
	assert_int_equal(sk_store_get(f->s, "/registry/pods/default/a", &kv, &err), 0);
	assert_string_equal(kv.value, "one");
	assert_int_equal(kv.len, 3);
	assert_int_equal(kv.create_rev, r1);
	assert_int_equal(kv.mod_rev, r1);
	sk_store_kv_release(&kv);

	assert_int_equal(sk_store_create(f->s, "/registry/pods/default/a", "x", 1, &err), -1);
	assert_int_equal(err.code, SK_EEXISTS);
	assert_int_equal(sk_store_get(f->s, "/registry/pods/default/b", &kv, &err), -1);
	assert_int_equal(err.code, SK_ENOTFOUND);
	assert_int_equal(sk_store_update(f->s, "/registry/pods/default/b", "x", 1, 0, &err), -1);
	assert_int_equal(err.code, SK_ENOTFOUND);

	r2 = sk_store_update(f->s, "/registry/pods/default/a", "two", 3, r1, &err);
	assert_int_equal(r2, r1 + 1);
	assert_int_equal(sk_store_get(f->s, "/registry/pods/default/a", &kv, &err), 0);
	assert_string_equal(kv.value, "two");
	assert_int_equal(kv.create_rev, r1);
	assert_int_equal(kv.mod_rev, r2);
	sk_store_kv_release(&kv);

	r3 = sk_store_delete(f->s, "/registry/pods/default/a", 0, &prev, &err);
	assert_int_equal(r3, r2 + 1);
	assert_string_equal(prev.value, "two");
	assert_int_equal(prev.mod_rev, r2);
	sk_store_kv_release(&prev);
	assert_int_equal(sk_store_get(f->s, "/registry/pods/default/a", &kv, &err), -1);
	assert_int_equal(err.code, SK_ENOTFOUND);
	assert_int_equal(sk_store_delete(f->s, "/registry/pods/default/a", 0, NULL, &err), -1);
	assert_int_equal(err.code, SK_ENOTFOUND);
	assert_int_equal(sk_store_rev(f->s), r3);

	/* Recreate after delete starts a new life. */
	r1 = put(f->s, "/registry/pods/default/a", "three");
	assert_int_equal(sk_store_get(f->s, "/registry/pods/default/a", &kv, &err), 0);
	assert_int_equal(kv.create_rev, r1);
	sk_store_kv_release(&kv);
	/* Binary values keep their length. */
	assert_true(sk_store_create(f->s, "/bin", "a\0b", 3, &err) > 0);
	assert_int_equal(sk_store_get(f->s, "/bin", &kv, &err), 0);
	assert_int_equal(kv.len, 3);
	assert_memory_equal(kv.value, "a\0b", 3);
	sk_store_kv_release(&kv);
}

static void test_conflict(void **state)
{
	struct fx *f = *state;
	sk_error_t err = {0};
	int64_t r1 = put(f->s, "/k", "v1");
	int64_t r2 = sk_store_update(f->s, "/k", "v2", 2, r1, &err);

	assert_true(r2 > r1);
	assert_int_equal(sk_store_update(f->s, "/k", "v3", 2, r1, &err), -1);
	assert_int_equal(err.code, SK_ECONFLICT);
	assert_int_equal(sk_store_delete(f->s, "/k", r1, NULL, &err), -1);
	assert_int_equal(err.code, SK_ECONFLICT);
	assert_int_equal(sk_store_rev(f->s), r2);
	assert_true(sk_store_delete(f->s, "/k", r2, NULL, &err) > r2);
}

static void test_list_pagination(void **state)
{
	struct fx *f = *state;
	static const char *keys[] = {"/r/pods/ns1/c", "/r/pods/ns1/a", "/r/pods/ns2/a", "/r/pods/ns1/b",
				     "/r/podsx/z",    "/r/pod",        "/r/pods/ns1/d"};
	static const char *want[] = {"/r/pods/ns1/a", "/r/pods/ns1/b", "/r/pods/ns1/c", "/r/pods/ns1/d",
				     "/r/pods/ns2/a"};
	sk_store_list l = {0};
	sk_error_t err = {0};
	const char *after = NULL;
	char last[64] = "";
	size_t seen = 0;

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		put(f->s, keys[i], keys[i]);
	assert_int_equal(sk_store_range(f->s, "/r/pods/", NULL, 0, 0, &l, &err), 0);
	assert_int_equal(l.n, 5);
	assert_int_equal(l.more, 0);
	assert_int_equal(l.rev, sk_store_rev(f->s));
	for (size_t i = 0; i < l.n; i++)
		assert_string_equal(l.items[i].key, want[i]);
	sk_store_list_release(&l);
	assert_int_equal(sk_store_count(f->s, "/r/pods/"), 5);
	assert_int_equal(sk_store_count(f->s, "/r/pods/ns1/"), 4);
	assert_int_equal(sk_store_count(f->s, ""), 7);

	do {
		memset(&l, 0, sizeof(l));
		assert_int_equal(sk_store_range(f->s, "/r/pods/", after, 2, 0, &l, &err), 0);
		assert_true(l.n <= 2);
		for (size_t i = 0; i < l.n; i++)
			assert_string_equal(l.items[i].key, want[seen++]);
		if (l.n)
			snprintf(last, sizeof(last), "%s", l.items[l.n - 1].key);
		after = last;
		if (!l.more) {
			sk_store_list_release(&l);
			break;
		}
		sk_store_list_release(&l);
	} while (1);
	assert_int_equal(seen, 5);
}

static void test_list_at_rev(void **state)
{
	struct fx *f = *state;
	sk_store_list l = {0};
	sk_error_t err = {0};
	int64_t r0;

	put(f->s, "/p/a", "a1");
	put(f->s, "/p/b", "b1");
	r0 = put(f->s, "/p/c", "c1");
	assert_true(sk_store_update(f->s, "/p/a", "a2", 2, 0, &err) > 0);
	assert_true(sk_store_delete(f->s, "/p/b", 0, NULL, &err) > 0);
	put(f->s, "/p/d", "d1");

	assert_int_equal(sk_store_range(f->s, "/p/", NULL, 0, r0, &l, &err), 0);
	assert_int_equal(l.rev, r0);
	assert_int_equal(l.n, 3);
	assert_string_equal(l.items[0].value, "a1");
	assert_string_equal(l.items[1].key, "/p/b");
	assert_string_equal(l.items[2].key, "/p/c");
	sk_store_list_release(&l);

	/* Page through the old revision. */
	assert_int_equal(sk_store_range(f->s, "/p/", "/p/a", 1, r0, &l, &err), 0);
	assert_int_equal(l.n, 1);
	assert_int_equal(l.more, 1);
	assert_string_equal(l.items[0].key, "/p/b");
	sk_store_list_release(&l);

	assert_int_equal(sk_store_range(f->s, "/p/", NULL, 0, 0, &l, &err), 0);
	assert_int_equal(l.n, 3);
	assert_string_equal(l.items[0].value, "a2");
	assert_string_equal(l.items[1].key, "/p/c");
	sk_store_list_release(&l);

	assert_int_equal(sk_store_range(f->s, "/p/", NULL, 0, sk_store_rev(f->s) + 10, &l, &err), -1);
	assert_int_equal(err.code, SK_ETIMEOUT);
	assert_int_equal(sk_store_compact(f->s, sk_store_rev(f->s) - 1, &err), 0);
	assert_int_equal(sk_store_range(f->s, "/p/", NULL, 0, r0, &l, &err), -1);
	assert_int_equal(err.code, SK_EGONE);
}

static void test_watch_events(void **state)
{
	struct fx *f = *state;
	sk_error_t err = {0};
	struct rec r, other;
	sk_store_watch *w, *w2;
	int64_t r1, r2, r3;

	rec_init(&r);
	rec_init(&other);
	w = sk_store_watch_start(f->s, "/w/", 0, rec_cb, &r, &err);
	w2 = sk_store_watch_start(f->s, "/x/", 0, rec_cb, &other, &err);
	assert_non_null(w);
	assert_non_null(w2);
	r1 = put(f->s, "/w/a", "v1");
	r2 = sk_store_update(f->s, "/w/a", "v2", 2, r1, &err);
	put(f->s, "/y/other", "z");
	r3 = sk_store_delete(f->s, "/w/a", 0, NULL, &err);
	sk_store_unwatch(f->s, w);
	put(f->s, "/w/b", "late");

	assert_int_equal(r.n, 3);
	assert_int_equal(r.evs[0].type, SK_STORE_CREATE);
	assert_int_equal(r.evs[0].rev, r1);
	assert_int_equal(r.evs[0].has_prev, 0);
	assert_string_equal(r.evs[0].val, "v1");
	assert_int_equal(r.evs[1].type, SK_STORE_UPDATE);
	assert_int_equal(r.evs[1].rev, r2);
	assert_string_equal(r.evs[1].val, "v2");
	assert_string_equal(r.evs[1].prev, "v1");
	assert_int_equal(r.evs[1].prev_mod_rev, r1);
	assert_int_equal(r.evs[1].create_rev, r1);
	assert_int_equal(r.evs[2].type, SK_STORE_DELETE);
	assert_int_equal(r.evs[2].rev, r3);
	assert_string_equal(r.evs[2].val, "v2");
	assert_string_equal(r.evs[2].prev, "v2");
	assert_int_equal(r.evs[2].prev_mod_rev, r2);
	assert_int_equal(other.n, 0);
	sk_store_unwatch(f->s, w2);
	rec_release(&r);
	rec_release(&other);
}

struct writer_arg {
	sk_store *s;
	int id, n;
	int64_t *revs;
};

static void *writer_thread(void *p)
{
	struct writer_arg *a = p;
	sk_error_t err = {0};
	char key[64];

	for (int i = 0; i < a->n; i++) {
		int64_t rev;

		snprintf(key, sizeof(key), "/c/t%d/k%d", a->id, i % 7);
		if (i < 7)
			rev = sk_store_create(a->s, key, "v", 1, &err);
		else if (i % 5 == 4)
			rev = sk_store_delete(a->s, key, 0, NULL, &err);
		else
			rev = sk_store_update(a->s, key, "w", 1, 0, &err);
		if (rev < 0 && err.code == SK_ENOTFOUND)
			rev = sk_store_create(a->s, key, "v", 1, &err);
		if (rev < 0)
			fail_msg("write %s: %s", key, err.msg);
		if (a->revs)
			a->revs[i] = rev;
	}
	return NULL;
}

static void run_writers(sk_store *s, int nthreads, int per)
{
	pthread_t th[16];
	struct writer_arg a[16];

	for (int i = 0; i < nthreads; i++) {
		a[i] = (struct writer_arg){.s = s, .id = i, .n = per};
		pthread_create(&th[i], NULL, writer_thread, &a[i]);
	}
	for (int i = 0; i < nthreads; i++)
		pthread_join(th[i], NULL);
}

static void assert_contiguous(const struct rec *r, int64_t first)
{
	for (size_t i = 0; i < r->n; i++)
		assert_int_equal(r->evs[i].rev, first + (int64_t)i);
}

static void test_watch_concurrent(void **state)
{
	struct fx *f = *state;
	sk_error_t err = {0};
	struct rec all, t0, again;
	sk_store_watch *wa, *w0, *wr;
	int64_t start = put(f->s, "/first", "x"); /* from_rev 0 would mean "now" */

	rec_init(&all);
	rec_init(&t0);
	rec_init(&again);
	wa = sk_store_watch_start(f->s, "/c/", 0, rec_cb, &all, &err);
	w0 = sk_store_watch_start(f->s, "/c/t0/", 0, rec_cb, &t0, &err);
	run_writers(f->s, 4, 200);
	assert_int_equal(all.n, 800);
	assert_int_equal(sk_store_rev(f->s), start + 800);
	assert_contiguous(&all, start + 1);
	assert_int_equal(t0.n, 200);
	for (size_t i = 1; i < t0.n; i++)
		assert_true(t0.evs[i].rev > t0.evs[i - 1].rev);

	/* A late watcher replays the same history. */
	wr = sk_store_watch_start(f->s, "/c/", start, rec_cb, &again, &err);
	assert_non_null(wr);
	assert_int_equal(again.n, 800);
	for (size_t i = 0; i < again.n; i++) {
		assert_int_equal(again.evs[i].type, all.evs[i].type);
		assert_string_equal(again.evs[i].key, all.evs[i].key);
		assert_int_equal(again.evs[i].rev, all.evs[i].rev);
	}
	sk_store_unwatch(f->s, wa);
	sk_store_unwatch(f->s, w0);
	sk_store_unwatch(f->s, wr);
	rec_release(&all);
	rec_release(&t0);
	rec_release(&again);
}

struct churn {
	sk_store *s;
	int64_t first;
	int stop;
	struct rec recs[32];
	sk_store_watch *w[32];
	int64_t from[32];
	int n;
	long reads;
};

/* Registers watchers from recent revisions while writers run. */
static void *churn_thread(void *p)
{
	struct churn *c = p;
	sk_error_t err = {0};

	while (!__atomic_load_n(&c->stop, __ATOMIC_ACQUIRE) && c->n < 32) {
		int64_t rev = sk_store_rev(c->s);
		int i = c->n;

		c->from[i] = rev - 20 > c->first ? rev - 20 : c->first;
		rec_init(&c->recs[i]);
		c->w[i] = sk_store_watch_start(c->s, "/c/", c->from[i], rec_cb, &c->recs[i], &err);
		if (!c->w[i])
			fail_msg("watch: %s", err.msg);
		c->n++;
		usleep(2000);
	}
	return NULL;
}

static void *reader_thread(void *p)
{
	struct churn *c = p;
	sk_error_t err = {0};

	while (!__atomic_load_n(&c->stop, __ATOMIC_ACQUIRE)) {
		sk_store_list l = {0};
		sk_store_kv kv = {0};

		if (sk_store_range(c->s, "/c/t1/", NULL, 3, 0, &l, &err) < 0)
			fail_msg("list: %s", err.msg);
		for (size_t i = 1; i < l.n; i++)
			assert_true(strcmp(l.items[i - 1].key, l.items[i].key) < 0);
		sk_store_list_release(&l);
		if (sk_store_get(c->s, "/c/t0/k0", &kv, &err) == 0)
			sk_store_kv_release(&kv);
		sk_store_count(c->s, "/c/");
		__atomic_add_fetch(&c->reads, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

static void test_concurrent_readers_and_watchers(void **state)
{
	struct fx *f = *state;
	int64_t first = put(f->s, "/c/first", "x");
	struct churn c = {.s = f->s, .first = first};
	pthread_t ch, rd;

	assert_true(first > 0);
	pthread_create(&ch, NULL, churn_thread, &c);
	pthread_create(&rd, NULL, reader_thread, &c);
	run_writers(f->s, 4, 150);
	__atomic_store_n(&c.stop, 1, __ATOMIC_RELEASE);
	pthread_join(ch, NULL);
	pthread_join(rd, NULL);
	assert_true(c.n > 0);
	for (int i = 0; i < c.n; i++) {
		struct rec *r = &c.recs[i];

		sk_store_unwatch(f->s, c.w[i]);
		assert_int_equal((int64_t)r->n, sk_store_rev(f->s) - c.from[i]);
		assert_contiguous(r, c.from[i] + 1);
		rec_release(r);
	}
}

/* Replays from SQLite (after a reopen the ring is empty) must match what a
 * live watcher saw, prev values included; compacted history is gone. */
static void test_watch_replay_and_gone(void **state)
{
	struct fx *f = *state;
	sk_error_t err = {0};
	struct rec live, replayed;
	sk_store_watch *w;
	int64_t start = put(f->s, "/first", "x");

	rec_init(&live);
	rec_init(&replayed);
	w = sk_store_watch_start(f->s, "/c/", 0, rec_cb, &live, &err);
	run_writers(f->s, 2, 50);
	sk_store_unwatch(f->s, w);
	sk_store_close(f->s);
	f->s = open_store(f, NULL);

	w = sk_store_watch_start(f->s, "/c/", start, rec_cb, &replayed, &err);
	assert_non_null(w);
	assert_int_equal(replayed.n, live.n);
	for (size_t i = 0; i < live.n; i++) {
		assert_int_equal(replayed.evs[i].type, live.evs[i].type);
		assert_int_equal(replayed.evs[i].rev, live.evs[i].rev);
		assert_int_equal(replayed.evs[i].create_rev, live.evs[i].create_rev);
		assert_string_equal(replayed.evs[i].val, live.evs[i].val);
		assert_int_equal(replayed.evs[i].has_prev, live.evs[i].has_prev);
		assert_string_equal(replayed.evs[i].prev, live.evs[i].prev);
		assert_int_equal(replayed.evs[i].prev_mod_rev, live.evs[i].prev_mod_rev);
	}
	sk_store_unwatch(f->s, w);

	assert_int_equal(sk_store_compact(f->s, start + 50, &err), 0);
	assert_int_equal(sk_store_compacted_rev(f->s), start + 50);
	assert_null(sk_store_watch_start(f->s, "/c/", start + 10, rec_cb, &replayed, &err));
	assert_int_equal(err.code, SK_EGONE);
	/* From the compacted revision itself everything is still there. */
	rec_release(&replayed);
	rec_init(&replayed);
	w = sk_store_watch_start(f->s, "/c/", start + 50, rec_cb, &replayed, &err);
	assert_non_null(w);
	assert_int_equal(replayed.n, live.n - 50);
	assert_int_equal(replayed.evs[0].rev, start + 51);
	for (size_t i = 0; i < replayed.n; i++)
		assert_string_equal(replayed.evs[i].prev, live.evs[i + 50].prev);
	sk_store_unwatch(f->s, w);
	rec_release(&live);
	rec_release(&replayed);
}

static void test_reopen(void **state)
{
	struct fx *f = *state;
	sk_error_t err = {0};
	sk_store_kv kv = {0};
	int64_t rev;

	put(f->s, "/a", "1");
	put(f->s, "/b", "2");
	assert_true(sk_store_delete(f->s, "/a", 0, NULL, &err) > 0);
	rev = put(f->s, "/c", "3");
	assert_int_equal(sk_store_compact(f->s, rev, &err), 0);
	sk_store_close(f->s);

	f->s = open_store(f, NULL);
	assert_int_equal(sk_store_rev(f->s), rev);
	assert_int_equal(sk_store_compacted_rev(f->s), rev);
	assert_int_equal(sk_store_count(f->s, ""), 2);
	assert_int_equal(sk_store_get(f->s, "/a", &kv, &err), -1);
	assert_int_equal(sk_store_get(f->s, "/b", &kv, &err), 0);
	assert_string_equal(kv.value, "2");
	sk_store_kv_release(&kv);
	assert_int_equal(put(f->s, "/d", "4"), rev + 1);

	/* A trailing delete that was compacted still counts for the revision. */
	rev = sk_store_delete(f->s, "/d", 0, NULL, &err);
	assert_int_equal(sk_store_compact(f->s, rev, &err), 0);
	sk_store_close(f->s);
	f->s = open_store(f, NULL);
	assert_int_equal(sk_store_rev(f->s), rev);
}

/* ---- flush after fan-out (sk_store_watch_set_flush) ---- */

static struct {
	pthread_mutex_t mu;
	char log[256];
} flog = {.mu = PTHREAD_MUTEX_INITIALIZER};

static void flog_add(const char *what)
{
	pthread_mutex_lock(&flog.mu);
	snprintf(flog.log + strlen(flog.log), sizeof(flog.log) - strlen(flog.log), "%s ", what);
	pthread_mutex_unlock(&flog.mu);
}

static void fl_cb(const sk_store_event *ev, void *ud)
{
	char s[32];

	snprintf(s, sizeof(s), "%s%s", (const char *)ud, ev->flush_follows ? "+" : "");
	flog_add(s);
}

static void fl_flush(void *ud)
{
	char s[32];

	snprintf(s, sizeof(s), "F%s", (const char *)ud);
	flog_add(s);
}

/* Each new event reaches every watcher before any flush runs, flush runs
 * once per event for each watcher that asked and got it, and replayed
 * events carry no flush. */
static void test_watch_flush(void **state)
{
	struct fx *f = *state;
	sk_error_t err = {0};
	sk_store_watch *a, *b, *c, *r;
	int64_t r1;

	put(f->s, "/g/first", "0"); /* r1 - 1 > 0: a replay, not "from now" */
	a = sk_store_watch_start(f->s, "/f/", 0, fl_cb, "a", &err);
	b = sk_store_watch_start(f->s, "/f/", 0, fl_cb, "b", &err);
	c = sk_store_watch_start(f->s, "/f/x", 0, fl_cb, "c", &err);
	assert_non_null(a);
	assert_non_null(b);
	assert_non_null(c);
	sk_store_watch_set_flush(a, fl_flush);
	sk_store_watch_set_flush(b, fl_flush);
	/* c has none */
	flog.log[0] = '\0';
	r1 = put(f->s, "/f/x", "1");
	put(f->s, "/g/y", "other");
	{
		const char *got = flog.log;
		/* a and b are one group (one prefix), c another: any order of the
		 * callbacks, but both flushes after all three */
		const char *fa = strstr(got, "Fa "), *fb = strstr(got, "Fb ");

		assert_non_null(strstr(got, "a+ "));
		assert_non_null(strstr(got, "b+ "));
		assert_non_null(strstr(got, "c "));
		assert_null(strstr(got, "c+"));
		assert_non_null(fa);
		assert_non_null(fb);
		assert_true(strstr(got, "a+ ") < fa && strstr(got, "a+ ") < fb);
		assert_true(strstr(got, "b+ ") < fa && strstr(got, "b+ ") < fb);
		assert_true(strstr(got, "c ") < fa && strstr(got, "c ") < fb);
		assert_int_equal(strlen(got), strlen("a+ b+ c Fa Fb "));
	}
	/* a replay from before r1 carries no flush */
	flog.log[0] = '\0';
	r = sk_store_watch_start(f->s, "/f/", r1 - 1, fl_cb, "r", &err);
	assert_non_null(r);
	assert_string_equal(flog.log, "r ");
	sk_store_unwatch(f->s, r);
	sk_store_unwatch(f->s, a);
	sk_store_unwatch(f->s, b);
	sk_store_unwatch(f->s, c);
}

#define STORE_CASES(setup, teardown) \
	cmocka_unit_test_setup_teardown(test_crud, setup, teardown), \
		cmocka_unit_test_setup_teardown(test_conflict, setup, teardown), \
		cmocka_unit_test_setup_teardown(test_list_pagination, setup, teardown), \
		cmocka_unit_test_setup_teardown(test_list_at_rev, setup, teardown), \
		cmocka_unit_test_setup_teardown(test_watch_events, setup, teardown), \
		cmocka_unit_test_setup_teardown(test_watch_flush, setup, teardown), \
		cmocka_unit_test_setup_teardown(test_watch_concurrent, setup, teardown), \
		cmocka_unit_test_setup_teardown(test_concurrent_readers_and_watchers, setup, teardown), \
		cmocka_unit_test_setup_teardown(test_watch_replay_and_gone, setup, teardown), \
		cmocka_unit_test_setup_teardown(test_reopen, setup, teardown)

#endif
