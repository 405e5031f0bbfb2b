/* skiff migrate's copy (src/store/migrate.c), SQLite to SQLite, and the
 * argument and error handling of skiff etcd-snapshot restore
 * (src/store/etcd-restore.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <ftw.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store/etcd-int.h"
#include "store/store.h"
#include "util/util.h"

struct fx {
	char src_dir[64], dst_dir[64];
	sk_store *src, *dst;
};

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static sk_store *open_dir(const char *dir)
{
	cleanup_free char *uri = xasprintf("sqlite://%s", dir);
	sk_error_t err = {0};
	sk_store *s = sk_store_open(uri, NULL, &err);

	assert_non_null(s);
	return s;
}

static int setup(void **state)
{
	struct fx *f = xzalloc(sizeof(*f));

	snprintf(f->src_dir, sizeof(f->src_dir), "/tmp/skiff-migrate-XXXXXX");
	snprintf(f->dst_dir, sizeof(f->dst_dir), "/tmp/skiff-migrate-XXXXXX");
	if (!mkdtemp(f->src_dir) || !mkdtemp(f->dst_dir))
		return -1;
	f->src = open_dir(f->src_dir);
	f->dst = open_dir(f->dst_dir);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	sk_store_close(f->src);
	sk_store_close(f->dst);
	nftw(f->src_dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	nftw(f->dst_dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	free(f);
	return 0;
}

static void put(sk_store *s, const char *key, const char *val)
{
	sk_error_t err = {0};

	if (sk_store_create(s, key, val, strlen(val), &err) < 0) {
		assert_int_equal(err.code, SK_EEXISTS);
		assert_true(sk_store_update(s, key, val, strlen(val), 0, &err) > 0);
	}
}

static void test_plan_order(void **state)
{
	sk_store_kv kvs[] = {
		{.key = "/registry/b", .mod_rev = 7},
		{.key = "/registry/a", .mod_rev = 9},
		{.key = "/registry/c", .mod_rev = 2},
		{.key = "/registry/d", .mod_rev = 7},
	};

	(void)state;
	sk_store_plan_order(kvs, 4);
	assert_string_equal(kvs[0].key, "/registry/c");
	assert_string_equal(kvs[1].key, "/registry/b");
	assert_string_equal(kvs[2].key, "/registry/d");
	assert_string_equal(kvs[3].key, "/registry/a");
	sk_store_plan_order(NULL, 0);
}

static size_t calls;
static void count_progress(size_t done, size_t total, void *ud)
{
	(void)ud;
	assert_true(done <= total);
	calls++;
}

/* Every key arrives with its value; the target's mod_revs sort the keys as
 * the source's did, though key order and write order differ. */
static void test_copy_keeps_values_and_order(void **state)
{
	struct fx *f = *state;
	static const char *const keys[] = {"/registry/pods/ns/z", "/registry/configmaps/ns/a", "/registry/secrets/ns/m",
					   "/registry/namespaces/ns"};
	sk_store_copy_result res;
	sk_store_list a = {0}, b = {0};
	sk_error_t err = {0};

	for (size_t i = 0; i < 4; i++)
		put(f->src, keys[i], "{\"v\":1}");
	put(f->src, keys[1], "{\"v\":2}"); /* now the newest */
	put(f->src, "/registry/gone", "x");
	assert_true(sk_store_delete(f->src, "/registry/gone", 0, NULL, &err) > 0);
	calls = 0;
	assert_int_equal(sk_store_copy(f->src, f->dst, 0, count_progress, NULL, &res, &err), 0);
	assert_int_equal(res.copied, 4);
	assert_int_equal(res.total, 4);
	assert_int_equal(calls, 4);
	assert_int_equal(res.source_rev, sk_store_rev(f->src));
	assert_int_equal(res.last_rev - res.first_rev, 3);
	assert_int_equal(sk_store_range(f->src, "", NULL, 0, 0, &a, &err), 0);
	assert_int_equal(sk_store_range(f->dst, "", NULL, 0, 0, &b, &err), 0);
	assert_int_equal(a.n, b.n);
	for (size_t i = 0; i < a.n; i++) {
		assert_string_equal(a.items[i].key, b.items[i].key);
		assert_int_equal(a.items[i].len, b.items[i].len);
		assert_memory_equal(a.items[i].value, b.items[i].value, a.items[i].len);
		for (size_t j = 0; j < a.n; j++)
			assert_int_equal(a.items[i].mod_rev < a.items[j].mod_rev,
					 b.items[i].mod_rev < b.items[j].mod_rev);
	}
	sk_store_list_release(&a);
	sk_store_list_release(&b);
}

static void test_non_empty_target(void **state)
{
	struct fx *f = *state;
	sk_store_copy_result res;
	sk_error_t err = {0};
	sk_store_kv kv;

	put(f->src, "/registry/a", "new");
	put(f->dst, "/registry/a", "old");
	put(f->dst, "/registry/stray", "s");
	assert_int_equal(sk_store_copy(f->src, f->dst, 0, NULL, NULL, &res, &err), -1);
	assert_int_equal(err.code, SK_EEXISTS);
	assert_non_null(strstr(err.msg, "the target is not empty (2 keys)"));
	assert_non_null(strstr(err.msg, "--force"));
	assert_int_equal(res.copied, 0);
	/* --force: the target ends up holding the source's keys only */
	assert_int_equal(sk_store_copy(f->src, f->dst, 1, NULL, NULL, &res, &err), 0);
	assert_int_equal(res.removed, 2);
	assert_int_equal(res.copied, 1);
	assert_int_equal(sk_store_count(f->dst, ""), 1);
	assert_int_equal(sk_store_get(f->dst, "/registry/a", &kv, &err), 0);
	assert_string_equal(kv.value, "new");
	sk_store_kv_release(&kv);
}

static void test_open_source(void **state)
{
	struct fx *f = *state;
	sk_error_t err = {0};

	/* the fixture holds src open: as a running server would */
	assert_null(sk_store_open_sqlite_existing(f->src_dir, &err));
	assert_int_equal(err.code, SK_EUNAVAILABLE);
	assert_non_null(strstr(err.msg, "its server still runs"));
	sk_error_clear(&err);
	assert_null(sk_store_open_sqlite_existing("/nonexistent/skiff", &err));
	assert_non_null(strstr(err.msg, "No such file or directory"));
	sk_error_clear(&err);
	/* a directory without a store is refused, not given an empty one */
	assert_null(sk_store_open_sqlite_existing("/tmp", &err));
	assert_int_equal(err.code, SK_ENOTFOUND);
	assert_non_null(strstr(err.msg, "no state.db"));
	sk_store_close(f->src);
	f->src = sk_store_open_sqlite_existing(f->src_dir, &err);
	assert_non_null(f->src);
}

static void test_restore_argv(void **state)
{
	sk_etcd_restore_options o = {
		.snapshot = "/s.db", .name = "m1", .initial_cluster = "m1=http://127.0.0.1:2380", .skip_hash_check = 1};
	char **argv = sk__etcd_restore_argv(&o, "/d.restore-1");
	static const char *const want[] = {"etcdctl",
					   "snapshot",
					   "restore",
					   "/s.db",
					   "--data-dir=/d.restore-1",
					   "--name=m1",
					   "--initial-cluster=m1=http://127.0.0.1:2380",
					   "--skip-hash-check"};
	size_t n = 0;

	(void)state;
	for (; argv[n]; n++) {
		assert_true(n < 8);
		assert_string_equal(argv[n], want[n]);
	}
	assert_int_equal(n, 8);
	sk__etcd_argv_free(argv);
}

static void test_ctl_error(void **state)
{
	char msg[128];

	(void)state;
	sk__etcd_ctl_error("{\"level\":\"info\",\"msg\":\"restoring snapshot\"}\n"
			   "Error: snapshot missing hash but --skip-hash-check=false\n",
			   msg, sizeof(msg));
	assert_string_equal(msg, "snapshot missing hash but --skip-hash-check=false");
	sk__etcd_ctl_error("{\"level\":\"info\"}\n2026-12-05 C | mvcc/backend: cannot open\n"
			   "panic: cannot open database at d/member/snap/db (invalid database)\n\ngoroutine 1 "
			   "[running]:\n\tgithub.com/x.go:83\n",
			   msg, sizeof(msg));
	assert_string_equal(msg, "cannot open database at d/member/snap/db (invalid database)");
	sk__etcd_ctl_error("something odd", msg, sizeof(msg));
	assert_string_equal(msg, "something odd");
	sk__etcd_ctl_error("", msg, sizeof(msg));
	assert_string_equal(msg, "");
	sk__etcd_ctl_error(NULL, msg, sizeof(msg));
	assert_string_equal(msg, "");
}

static void test_restore_errors(void **state)
{
	struct fx *f = *state;
	cleanup_free char *snap = xasprintf("%s/snap.db", f->dst_dir);
	cleanup_free char *target = xasprintf("%s/member", f->dst_dir);
	sk_etcd_restore_options o = {.snapshot = "/nonexistent.db", .data_dir = target};
	sk_error_t err = {0};
	struct stat st;

	assert_int_equal(sk_etcd_restore(&o, &err), -1);
	assert_string_equal(err.msg, "snapshot \"/nonexistent.db\": No such file or directory");
	assert_int_equal(sk_write_file(snap, "x", 1, 0600), 0);
	o.snapshot = snap;
	o.data_dir = f->src_dir; /* holds state.db */
	assert_int_equal(sk_etcd_restore(&o, &err), -1);
	assert_int_equal(err.code, SK_EEXISTS);
	assert_non_null(strstr(err.msg, "exists and is not empty"));
	o.data_dir = target;
	o.etcdctl = "/nonexistent/etcdctl";
	assert_int_equal(sk_etcd_restore(&o, &err), -1);
	assert_string_equal(err.msg, "\"/nonexistent/etcdctl\" not found (Debian package etcd-client)");
	/* a failing etcdctl: its status, and nothing left behind */
	o.etcdctl = "false";
	assert_int_equal(sk_etcd_restore(&o, &err), -1);
	assert_non_null(strstr(err.msg, "exited with status 1"));
	assert_int_equal(stat(target, &st), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plan_order),
		cmocka_unit_test_setup_teardown(test_copy_keeps_values_and_order, setup, teardown),
		cmocka_unit_test_setup_teardown(test_non_empty_target, setup, teardown),
		cmocka_unit_test_setup_teardown(test_open_source, setup, teardown),
		cmocka_unit_test(test_restore_argv),
		cmocka_unit_test(test_ctl_error),
		cmocka_unit_test_setup_teardown(test_restore_errors, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
