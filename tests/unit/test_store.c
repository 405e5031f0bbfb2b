#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <ftw.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "store/store.h"
#include "util/error.h"
#include "util/util.h"

/* ---- fixtures ---- */

struct fx {
	char dir[64];
	char uri[96];
	sk_store *s;
};

#include "store_cases.h"

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw) { return remove(path); }

static int setup(void **state)
{
	struct fx *f = xzalloc(sizeof(*f));

	snprintf(f->dir, sizeof(f->dir), "/tmp/skiff-store-XXXXXX");
	if (!mkdtemp(f->dir))
		return -1;
	snprintf(f->uri, sizeof(f->uri), "sqlite://%s", f->dir);
	f->s = open_store(f, NULL);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	sk_store_close(f->s);
	nftw(f->dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	free(f);
	return 0;
}

static void test_group_commit(void **state)
{
	struct fx *f = *state;
	sk_store_stats st;

	run_writers(f->s, 8, 100);
	sk_store_get_stats(f->s, &st);
	assert_int_equal(st.writes, 800);
	assert_true(st.commits < st.writes);
	assert_int_equal(st.rev, 800);
	assert_int_equal(st.keys, sk_store_count(f->s, "/c/"));
}

static void *rewrite_thread(void *p)
{
	struct writer_arg *a = p;
	sk_error_t err = {0};
	char key[64], val[4096];

	memset(val, 'x', sizeof(val));
	for (int i = 0; i < a->n; i++) {
		snprintf(key, sizeof(key), "/b/t%d/k%d", a->id, i % 5);
		if (sk_store_update(a->s, key, val, sizeof(val), 0, &err) < 0 &&
		    sk_store_create(a->s, key, val, sizeof(val), &err) < 0)
			fail_msg("write %s: %s", key, err.msg);
	}
	return NULL;
}

/* Rewriting 20 keys with 4 KiB values 4,000 times would need 16 MB without
 * compaction; with a bound of 100 events the file stays small. */
static void test_compaction_bounded(void **state)
{
	struct fx *f = *state;
	sk_store_options opts = {.min_history_secs = -1, .max_history_events = 100};
	sk_error_t err = {0};
	sk_store_stats st;
	int64_t max_db = 0;

	sk_store_close(f->s);
	f->s = open_store(f, &opts);
	for (int round = 0; round < 10; round++) {
		pthread_t th[4];
		struct writer_arg a[4];

		for (int i = 0; i < 4; i++) {
			a[i] = (struct writer_arg){.s = f->s, .id = i, .n = 100};
			pthread_create(&th[i], NULL, rewrite_thread, &a[i]);
		}
		for (int i = 0; i < 4; i++)
			pthread_join(th[i], NULL);
		sk_store_get_stats(f->s, &st);
		if (st.db_bytes > max_db)
			max_db = st.db_bytes;
	}
	sk_store_get_stats(f->s, &st);
	assert_int_equal(st.writes, 4000);
	assert_true(st.compacted_rev > 0);
	print_message("compaction: max db %lld B, rows %zu, compacted %lld of %lld\n", (long long)max_db,
		      st.history_events, (long long)st.compacted_rev, (long long)st.rev);
	assert_true(max_db < 4 * 1024 * 1024);
	assert_int_equal(sk_store_compact(f->s, st.rev, &err), 0);
	sk_store_get_stats(f->s, &st);
	assert_int_equal(st.history_events, 20);
	assert_true(st.wal_bytes < 1024 * 1024);
	assert_true(st.db_bytes < 2 * 1024 * 1024);
}

/* With a 1 s bound and no event bound, history older than a second goes by
 * itself (polled, no timing assertion beyond a generous deadline). */
static void test_compaction_by_time(void **state)
{
	struct fx *f = *state;
	sk_store_options opts = {.min_history_secs = 1, .max_history_events = -1};
	sk_error_t err = {0};
	int64_t rev;

	sk_store_close(f->s);
	f->s = open_store(f, &opts);
	put(f->s, "/t/a", "1");
	rev = sk_store_update(f->s, "/t/a", "2", 1, 0, &err);
	assert_int_equal(sk_store_compacted_rev(f->s), 0);
	for (int i = 0; i < 200 && sk_store_compacted_rev(f->s) < rev; i++)
		usleep(50000);
	assert_int_equal(sk_store_compacted_rev(f->s), rev);
	assert_int_equal(sk_store_count(f->s, ""), 1);
}

/* The child writes from 4 threads and reports each acknowledged write
 * (16 bytes, so pipe writes stay atomic); after SIGKILL every reported write
 * must be there. */
struct ack {
	int64_t rev;
	int32_t thread, i;
};

struct crash_arg {
	sk_store *s;
	int fd, id;
};

static void *crash_writer(void *p)
{
	struct crash_arg *a = p;
	sk_error_t err = {0};

	for (int32_t i = 0;; i++) {
		struct ack ack = {.thread = a->id, .i = i};
		char key[64];

		snprintf(key, sizeof(key), "/crash/t%d/k%08d", a->id, i);
		ack.rev = sk_store_create(a->s, key, key, strlen(key), &err);
		if (ack.rev < 0 || write(a->fd, &ack, sizeof(ack)) != sizeof(ack))
			_exit(3);
	}
	return NULL;
}

static void crash_child(const char *uri, int fd)
{
	sk_error_t err = {0};
	sk_store *s = sk_store_open(uri, NULL, &err);
	struct crash_arg args[4];
	pthread_t th[4];

	if (!s)
		_exit(2);
	for (int i = 0; i < 4; i++) {
		args[i] = (struct crash_arg){.s = s, .fd = fd, .id = i};
		pthread_create(&th[i], NULL, crash_writer, &args[i]);
	}
	pthread_join(th[0], NULL);
	_exit(4);
}

static size_t read_acks(int fd, struct ack *acks, size_t n, size_t max)
{
	while (n < max && read(fd, &acks[n], sizeof(acks[0])) == sizeof(acks[0]))
		n++;
	return n;
}

static void check_ack(sk_store *s, const struct ack *a)
{
	sk_error_t err = {0};
	sk_store_kv kv = {0};
	char key[64];

	snprintf(key, sizeof(key), "/crash/t%d/k%08d", a->thread, a->i);
	if (sk_store_get(s, key, &kv, &err) < 0)
		fail_msg("acknowledged write %s (rev %lld) lost", key, (long long)a->rev);
	assert_int_equal(kv.mod_rev, a->rev);
	assert_string_equal(kv.value, key);
	sk_store_kv_release(&kv);
}

static void test_crash(void **state)
{
	struct fx *f = *state;
	size_t max = 1 << 16, n;
	cleanup_free struct ack *acks = xmalloc(max * sizeof(*acks));
	int pfd[2], status;
	int64_t top = 0;
	pid_t pid;

	sk_store_close(f->s);
	f->s = NULL;
	assert_int_equal(pipe(pfd), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(pfd[0]);
		crash_child(f->uri, pfd[1]);
	}
	close(pfd[1]);
	n = read_acks(pfd[0], acks, 0, 1000);
	kill(pid, SIGKILL);
	n = read_acks(pfd[0], acks, n, max);
	close(pfd[0]);
	waitpid(pid, &status, 0);
	assert_true(WIFSIGNALED(status));
	assert_true(n >= 1000);

	f->s = open_store(f, NULL);
	for (size_t i = 0; i < n; i++) {
		check_ack(f->s, &acks[i]);
		if (acks[i].rev > top)
			top = acks[i].rev;
	}
	top = top > sk_store_rev(f->s) ? top : sk_store_rev(f->s);
	assert_int_equal(sk_store_rev(f->s), top);
	/* The revision continues after the crash. */
	assert_int_equal(put(f->s, "/after-crash", "x"), top + 1);
}

static void test_single_owner(void **state)
{
	struct fx *f = *state;
	sk_error_t err = {0};

	assert_null(sk_store_open(f->uri, NULL, &err));
	assert_int_equal(err.code, SK_EUNAVAILABLE);
}

static void test_bad_uri(void **state)
{
	sk_error_t err = {0};

	assert_null(sk_store_open("mysql://127.0.0.1:3306", NULL, &err));
	assert_int_equal(err.code, SK_EINVALID);
	assert_null(sk_store_open("etcd://", NULL, &err));
	assert_int_equal(err.code, SK_EINVALID);
	assert_null(sk_store_open("sqlite://", NULL, &err));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		STORE_CASES(setup, teardown),
		cmocka_unit_test_setup_teardown(test_group_commit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_compaction_bounded, setup, teardown),
		cmocka_unit_test_setup_teardown(test_compaction_by_time, setup, teardown),
		cmocka_unit_test_setup_teardown(test_crash, setup, teardown),
		cmocka_unit_test_setup_teardown(test_single_owner, setup, teardown),
		cmocka_unit_test(test_bad_uri),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
