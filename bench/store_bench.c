/* Store benchmark: durable creates/s with 1 and 16 writer threads, gets/s,
 * and create throughput with 1,000 watchers registered.
 *
 *   cc -O2 -D_GNU_SOURCE -Isrc bench/store_bench.c build/libskiff.a \
 *      $(pkg-config --libs jansson sqlite3) -lpthread -lm -o build/store_bench
 *   build/store_bench [DIR]      (DIR defaults to a fresh directory under /tmp)
 *
 * Values are 1 KiB, about the size of a small pod's JSON. */
#include <ftw.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "store/store.h"
#include "util/util.h"

#define VALUE_LEN 1024

struct job {
	sk_store *s;
	int id, n;
	const char *tag;
};

static char value[VALUE_LEN];
static long long watch_events;

static double secs(int64_t ns) { return (double)ns / 1e9; }

static void *create_loop(void *p)
{
	struct job *j = p;
	sk_error_t err = {0};
	char key[128];

	for (int i = 0; i < j->n; i++) {
		snprintf(key, sizeof(key), "/registry/pods/%s-%d/pod-%08d", j->tag, j->id, i);
		if (sk_store_create(j->s, key, value, sizeof(value), &err) < 0) {
			fprintf(stderr, "create: %s\n", err.msg);
			exit(1);
		}
	}
	return NULL;
}

static void *get_loop(void *p)
{
	struct job *j = p;
	sk_error_t err = {0};
	char key[128];

	for (int i = 0; i < j->n; i++) {
		sk_store_kv kv = {0};

		snprintf(key, sizeof(key), "/registry/pods/g-0/pod-%08d", i % 20000);
		if (sk_store_get(j->s, key, &kv, &err) < 0) {
			fprintf(stderr, "get %s: %s\n", key, err.msg);
			exit(1);
		}
		sk_store_kv_release(&kv);
	}
	return NULL;
}

/* Runs fn on nthreads threads, n iterations each; returns ops/s. */
static double run(sk_store *s, void *(*fn)(void *), int nthreads, int n, const char *tag)
{
	pthread_t th[64];
	struct job jobs[64];
	int64_t t0 = sk_mono_ns();

	for (int i = 0; i < nthreads; i++) {
		jobs[i] = (struct job){.s = s, .id = i, .n = n, .tag = tag};
		pthread_create(&th[i], NULL, fn, &jobs[i]);
	}
	for (int i = 0; i < nthreads; i++)
		pthread_join(th[i], NULL);
	return (double)nthreads * n / secs(sk_mono_ns() - t0);
}

static void count_cb(const sk_store_event *ev, void *ud)
{
	__atomic_add_fetch(&watch_events, 1, __ATOMIC_RELAXED);
}

/* Times a 500-item page of an older revision and a replay of the last
 * 20,000 events (beyond the in-memory ring, so from SQLite). */
static void history(sk_store *s, int64_t rev)
{
	sk_store_list l = {0};
	sk_error_t err = {0};
	sk_store_watch *w;
	int64_t t0 = sk_mono_ns();

	if (sk_store_range(s, "/registry/pods/", "/registry/pods/t16-3/", 500, rev - 1000, &l, &err) < 0)
		fprintf(stderr, "list at rev: %s\n", err.msg);
	printf("list 500 at rev-1000: %.3f ms (%zu items)\n", secs(sk_mono_ns() - t0) * 1e3, l.n);
	sk_store_list_release(&l);
	watch_events = 0;
	t0 = sk_mono_ns();
	w = sk_store_watch_start(s, "/registry/pods/", rev - 20000, count_cb, NULL, &err);
	if (!w)
		fprintf(stderr, "watch: %s\n", err.msg);
	printf("replay 20000 events: %.3f ms (%lld events)\n", secs(sk_mono_ns() - t0) * 1e3, watch_events);
	sk_store_unwatch(s, w);
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(path);
}

int main(int argc, char **argv)
{
	char tmp[] = "/tmp/skiff-bench-XXXXXX";
	const char *dir = argc > 1 ? argv[1] : mkdtemp(tmp);
	cleanup_free char *uri = xasprintf("sqlite://%s", dir);
	sk_store_watch *watches[1000];
	sk_error_t err = {0};
	sk_store_stats st;
	sk_store *s;
	int64_t t0;
	double r;

	memset(value, 'v', sizeof(value));
	s = sk_store_open(uri, NULL, &err);
	if (!s) {
		fprintf(stderr, "open: %s\n", err.msg);
		return 1;
	}
	r = run(s, create_loop, 1, 2000, "t1");
	printf("creates/s, 1 thread:    %8.0f\n", r);
	run(s, create_loop, 1, 20000, "g");    /* keys for the get loop */
	r = run(s, create_loop, 16, 2000, "t16");
	sk_store_get_stats(s, &st);
	printf("creates/s, 16 threads:  %8.0f  (%lld writes in %lld commits so far)\n", r, (long long)st.writes,
	       (long long)st.commits);
	r = run(s, get_loop, 1, 500000, "");
	printf("gets/s, 1 thread:       %8.0f\n", r);
	r = run(s, get_loop, 2, 500000, "");
	printf("gets/s, 2 threads:      %8.0f\n", r);

	for (int i = 0; i < 1000; i++) {
		cleanup_free char *prefix = xasprintf("/registry/pods/w16-%d/", i % 50);
		watches[i] = sk_store_watch_start(s, prefix, 0, count_cb, NULL, &err);
	}
	r = run(s, create_loop, 16, 2000, "w16");
	printf("creates/s, 16 threads, 1000 watchers on 50 prefixes: %8.0f (%lld deliveries)\n", r, watch_events);
	for (int i = 0; i < 1000; i++)
		sk_store_unwatch(s, watches[i]);
	for (int i = 0; i < 1000; i++) {
		cleanup_free char *prefix = xasprintf("/registry/pods/w17-%d/pod-%08d", i % 16, i);
		watches[i] = sk_store_watch_start(s, prefix, 0, count_cb, NULL, &err);
	}
	r = run(s, create_loop, 16, 2000, "w17");
	printf("creates/s, 16 threads, 1000 watchers on 1000 prefixes: %8.0f\n", r);
	for (int i = 0; i < 1000; i++)
		sk_store_unwatch(s, watches[i]);

	sk_store_get_stats(s, &st);
	printf("total: rev %lld, %lld writes in %lld commits, db %lld B, wal %lld B\n", (long long)st.rev,
	       (long long)st.writes, (long long)st.commits, (long long)st.db_bytes, (long long)st.wal_bytes);
	history(s, st.rev);
	sk_store_close(s);
	t0 = sk_mono_ns();
	s = sk_store_open(uri, NULL, &err);
	if (!s) {
		fprintf(stderr, "reopen: %s\n", err.msg);
		return 1;
	}
	printf("reopen (rebuild %zu keys): %.3f s\n", sk_store_count(s, ""), secs(sk_mono_ns() - t0));
	history(s, st.rev);
	sk_store_close(s);
	if (argc < 2)
		nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	return 0;
}
