/* The SQLite store under injected storage faults (store/fault.h): a write
 * whose commit fails is refused and leaves nothing behind, in memory, in
 * watches or on disk after a restart or a crash; every acknowledged write
 * stays; the store recovers when the fault stops. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <ftw.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "store/fault.h"
#include "store/store.h"
#include "util/error.h"
#include "util/util.h"

struct fx {
	char dir[64];
	char uri[96];
	sk_store *s;
	int events;
};

static void fault(const char *cmd)
{
	char reply[256];

	if (sk_fault_command(cmd, reply, sizeof(reply)) < 0)
		fail_msg("%s: %s", cmd, reply);
}

static long long fired(const char *kind)
{
	char cmd[64], reply[256];
	long long calls, n;

	snprintf(cmd, sizeof(cmd), "count %s", kind);
	if (sk_fault_command(cmd, reply, sizeof(reply)) < 0 ||
	    sscanf(reply, "ok calls=%lld fired=%lld", &calls, &n) != 2)
		fail_msg("%s: %s", cmd, reply);
	return n;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(path);
}

static sk_store *open_store(struct fx *f)
{
	sk_error_t err = {0};
	sk_store *s = sk_store_open(f->uri, NULL, &err);

	if (!s)
		fail_msg("open: %s", err.msg);
	return s;
}

static int setup(void **state)
{
	struct fx *f = xzalloc(sizeof(*f));

	snprintf(f->dir, sizeof(f->dir), "/tmp/skiff-fault-XXXXXX");
	if (!mkdtemp(f->dir))
		return -1;
	snprintf(f->uri, sizeof(f->uri), "sqlite://%s", f->dir);
	f->s = open_store(f);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	fault("clear");
	sk_store_close(f->s);
	nftw(f->dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	free(f);
	return 0;
}

static void count_event(const sk_store_event *ev, void *ud)
{
	__atomic_add_fetch(&((struct fx *)ud)->events, 1, __ATOMIC_RELAXED);
}

static int64_t put(sk_store *s, const char *key, sk_error_t *err)
{
	return sk_store_create(s, key, key, strlen(key), err);
}

static void assert_absent(sk_store *s, const char *key)
{
	sk_error_t err = {0};
	sk_store_kv kv = {0};

	assert_int_equal(sk_store_get(s, key, &kv, &err), -1);
	assert_int_equal(err.code, SK_ENOTFOUND);
}

static void assert_present(sk_store *s, const char *key, int64_t rev)
{
	sk_error_t err = {0};
	sk_store_kv kv = {0};

	if (sk_store_get(s, key, &kv, &err) < 0)
		fail_msg("acknowledged %s lost: %s", key, err.msg);
	assert_string_equal(kv.value, key);
	if (rev)
		assert_int_equal(kv.mod_rev, rev);
	sk_store_kv_release(&kv);
}

/* One failed commit for each VFS fault: refused with the cause, not in
 * memory, no event, the revision does not move, the next write succeeds, and
 * a reopen agrees. */
static void check_one_fault(struct fx *f, const char *arm, const char *key, const char *msg)
{
	sk_error_t err = {0};
	sk_store_watch *w;
	int64_t rev = sk_store_rev(f->s), r;
	char after[64];

	f->events = 0;
	w = sk_store_watch_start(f->s, "/", 0, count_event, f, &err);
	assert_non_null(w);
	fault(arm);
	assert_int_equal(put(f->s, key, &err), -1);
	assert_int_equal(err.code, SK_EINTERNAL);
	if (!strstr(err.msg, msg))
		fail_msg("%s: message \"%s\" does not name \"%s\"", arm, err.msg, msg);
	assert_absent(f->s, key);
	assert_int_equal(sk_store_rev(f->s), rev);
	snprintf(after, sizeof(after), "%s-after", key);
	r = put(f->s, after, &err);
	assert_int_equal(r, rev + 1);
	sk_store_unwatch(f->s, w);
	assert_int_equal(f->events, 1);
}

static void test_vfs_faults(void **state)
{
	struct fx *f = *state;
	sk_error_t err = {0};

	assert_true(put(f->s, "/before", &err) > 0);
	check_one_fault(f, "fail write file=wal", "/w", "disk I/O error");
	check_one_fault(f, "fail write nth=2 file=wal", "/w2", "disk I/O error");
	check_one_fault(f, "fail full file=wal", "/full", "database or disk is full");
	check_one_fault(f, "fail sync file=wal", "/sync", "disk I/O error");
	assert_true(fired("sync") == 1);
	sk_store_close(f->s);
	f->s = open_store(f);
	assert_present(f->s, "/before", 1);
	for (const char *const *k = (const char *const[]){"/w", "/w2", "/full", "/sync", NULL}; *k; k++) {
		char after[64];

		assert_absent(f->s, *k);
		snprintf(after, sizeof(after), "%s-after", *k);
		assert_present(f->s, after, 0);
	}
	assert_int_equal(sk_store_rev(f->s), 5);
}

/* A failed fsync leaves the transaction's frames, commit frame included,
 * in the WAL past the last commit; a crash before the next commit must not
 * bring the refused write back. */
static void test_failed_fsync_then_crash(void **state)
{
	struct fx *f = *state;
	sk_error_t err = {0};
	int status;
	pid_t pid;

	assert_true(put(f->s, "/kept", &err) > 0);
	sk_store_close(f->s);
	f->s = NULL;
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		sk_store *s = sk_store_open(f->uri, NULL, &err);

		if (!s)
			_exit(2);
		fault("fail sync file=wal");
		_exit(put(s, "/refused", &err) < 0 && err.code == SK_EINTERNAL ? 0 : 3);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	f->s = open_store(f);
	assert_present(f->s, "/kept", 1);
	assert_absent(f->s, "/refused");
	assert_int_equal(sk_store_rev(f->s), 1);
}

struct racer {
	sk_store *s;
	int64_t rev;
	int code;
};

static void *race_update(void *arg)
{
	struct racer *r = arg;
	sk_error_t err = {0};

	if (sk_store_update(r->s, "/race", "x", 1, r->rev, &err) < 0)
		r->code = err.code;
	return NULL;
}

/* Writes that share a failed batch: none reports a conflict with a write of
 * the batch that was never stored. */
static void test_failed_batch_has_no_phantom_conflicts(void **state)
{
	struct fx *f = *state;
	struct racer rs[16];
	pthread_t t[16];
	sk_error_t err = {0};
	int64_t rev = put(f->s, "/race", &err);

	assert_true(rev > 0);
	fault("fail write times=0 file=wal");
	for (int round = 0; round < 20; round++) {
		for (int i = 0; i < 16; i++) {
			rs[i] = (struct racer){.s = f->s, .rev = rev};
			pthread_create(&t[i], NULL, race_update, &rs[i]);
		}
		for (int i = 0; i < 16; i++) {
			pthread_join(t[i], NULL);
			assert_int_equal(rs[i].code, SK_EINTERNAL);
		}
	}
	fault("clear");
	assert_int_equal(sk_store_rev(f->s), rev);
	assert_int_equal(sk_store_update(f->s, "/race", "y", 1, rev, &err), rev + 1);
}

/* SQLite's allocations fail one in seven for a burst of writes: each write
 * either succeeds and stays, or fails and leaves nothing; revisions stay
 * consecutive; a reopen agrees. */
static void test_malloc_faults(void **state)
{
	struct fx *f = *state;
	sk_error_t err = {0};
	int ok[300] = {0};
	int64_t revs[300] = {0}, nok = 0;
	char key[32];

	fault("fail malloc nth=3 every=7 times=0");
	for (int i = 0; i < 300; i++) {
		snprintf(key, sizeof(key), "/m/%03d", i);
		revs[i] = put(f->s, key, &err);
		ok[i] = revs[i] > 0;
		if (ok[i])
			assert_int_equal(revs[i], ++nok);
		else
			assert_true(err.code == SK_EINTERNAL || err.code == SK_EUNAVAILABLE);
	}
	fault("clear malloc");
	print_message("malloc: %lld of 300 writes stored, %lld allocations failed\n", (long long)nok, fired("malloc"));
	assert_true(fired("malloc") > 0);
	assert_true(nok > 0 && nok < 300);
	assert_int_equal(sk_store_rev(f->s), nok);
	for (int pass = 0; pass < 2; pass++) {
		for (int i = 0; i < 300; i++) {
			snprintf(key, sizeof(key), "/m/%03d", i);
			if (ok[i])
				assert_present(f->s, key, revs[i]);
			else
				assert_absent(f->s, key);
		}
		assert_int_equal(sk_store_count(f->s, "/m/"), (size_t)nok);
		sk_store_close(f->s);
		f->s = open_store(f);
	}
	assert_int_equal(put(f->s, "/m/after", &err), nok + 1);
}

/* SQLite reports the database corrupt during a commit: the store says it is
 * unusable and refuses every later write, even once the fault is gone;
 * reads go on from memory; a restart has every acknowledged write and takes
 * writes again. */
static void test_unusable_database(void **state)
{
	struct fx *f = *state;
	sk_error_t err = {0};
	sk_store_list l = {0};

	assert_int_equal(put(f->s, "/a", &err), 1);
	fault("fail write rc=corrupt file=wal");
	assert_int_equal(put(f->s, "/b", &err), -1);
	assert_int_equal(err.code, SK_EINTERNAL);
	if (!strstr(err.msg, "unusable") || !strstr(err.msg, "malformed"))
		fail_msg("message \"%s\" does not say the database is unusable and why", err.msg);
	fault("clear");
	assert_int_equal(put(f->s, "/c", &err), -1);
	assert_int_equal(err.code, SK_EINTERNAL);
	assert_int_equal(sk_store_compact(f->s, 1, &err), -1);
	assert_int_equal(err.code, SK_EINTERNAL);
	assert_present(f->s, "/a", 1);
	assert_int_equal(sk_store_range(f->s, "/", NULL, 0, 0, &l, &err), 0);
	assert_int_equal(l.n, 1);
	sk_store_list_release(&l);
	sk_store_close(f->s);
	f->s = open_store(f);
	assert_present(f->s, "/a", 1);
	assert_absent(f->s, "/b");
	assert_absent(f->s, "/c");
	assert_int_equal(put(f->s, "/d", &err), 2);
}

static void test_bad_commands(void **state)
{
	char reply[256];

	assert_int_equal(sk_fault_command("fail nosuch", reply, sizeof(reply)), -1);
	assert_int_equal(sk_fault_command("fail write nth=0", reply, sizeof(reply)), -1);
	assert_int_equal(sk_fault_command("fail write file=tape", reply, sizeof(reply)), -1);
	assert_int_equal(sk_fault_command("fail write rc=lost", reply, sizeof(reply)), -1);
	assert_int_equal(sk_fault_command("fail malloc rc=corrupt", reply, sizeof(reply)), -1);
	assert_int_equal(sk_fault_command("bogus", reply, sizeof(reply)), -1);
	assert_int_equal(sk_fault_command("fail sync nth=5 times=2 every=3", reply, sizeof(reply)), 0);
	assert_string_equal(reply, "ok");
	assert_int_equal(sk_fault_command("count sync", reply, sizeof(reply)), 0);
	assert_string_equal(reply, "ok calls=0 fired=0 armed=1");
	assert_int_equal(sk_fault_command("clear", reply, sizeof(reply)), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_vfs_faults, setup, teardown),
		cmocka_unit_test_setup_teardown(test_failed_fsync_then_crash, setup, teardown),
		cmocka_unit_test_setup_teardown(test_failed_batch_has_no_phantom_conflicts, setup, teardown),
		cmocka_unit_test_setup_teardown(test_malloc_faults, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unusable_database, setup, teardown),
		cmocka_unit_test(test_bad_commands),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
