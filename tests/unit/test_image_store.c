/* Content store, secure unpack, whiteouts, shared snapshots, GC.
 * Run from the repository root (make does); tests needing root or the test
 * images (tests/images/build.sh: umoci, skopeo) skip without them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>

#include "image/image-int.h"
#include "util/util.h"

static char layers_dir[512];   /* hand-made layers (layers.py) */
static char images_dir[512];   /* build.sh output, or "" */

static char *mktmp(void)
{
	char tmpl[] = "/tmp/skiff-image-test.XXXXXX";

	assert_non_null(mkdtemp(tmpl));
	return xstrdup(tmpl);
}

static int count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;

	while (d && (de = readdir(d)))
		n += de->d_name[0] != '.';
	if (d)
		closedir(d);
	return n;
}

static int setup(void **state)
{
	FILE *p;
	cleanup_free char *cmd = NULL;

	snprintf(layers_dir, sizeof(layers_dir), "/tmp/skiff-image-layers.%d", (int)getpid());
	cmd = xasprintf("/usr/bin/python3 tests/images/layers.py %s", layers_dir);
	if (system(cmd) != 0)
		return -1;
	p = popen("tests/images/build.sh 2>/dev/null", "r");
	if (p) {
		if (!fgets(images_dir, sizeof(images_dir), p))
			images_dir[0] = '\0';
		images_dir[strcspn(images_dir, "\n")] = '\0';
		if (pclose(p) != 0)
			images_dir[0] = '\0';
	}
	return 0;
}

static int teardown(void **state)
{
	sk__image_rm_rf(layers_dir);
	return 0;
}

static void test_blob_verified(void **state)
{
	cleanup_free char *dir = mktmp();
	sk_error_t err = {0};
	sk_image_store *s = sk_image_store_open(dir, &err);
	char digest[72], other[72];
	cleanup_free char *tmp = NULL;

	assert_non_null(s);
	sk__img_digest_buf("hello", 5, digest);
	assert_string_equal(digest, "sha256:2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824");
	assert_int_equal(sk__img_blob_put(s, digest, "hello", 5, NULL, &err), 0);
	assert_true(sk__img_blob_exists(s, digest));
	sk__img_digest_buf("other", 5, other);
	assert_int_equal(sk__img_blob_put(s, other, "hello", 5, NULL, &err), -1);
	assert_non_null(strstr(err.msg, "digest mismatch"));
	assert_false(sk__img_blob_exists(s, other));
	tmp = sk__img_ingest_path(s, "t");
	assert_int_equal(sk_write_file(tmp, "tampered", 8, 0644), 0);
	assert_int_equal(sk__img_blob_commit_file(s, tmp, other, &err), -1);
	assert_non_null(strstr(err.msg, "digest mismatch"));
	assert_int_equal(access(tmp, F_OK), -1);
	sk_image_store_free(s);
	sk__image_rm_rf(dir);
}

static void test_malicious_refused(void **state)
{
	static const char *const evil[] = {"dotdot", "abs-symlink", "rel-symlink", "hardlink",
					   "chardev", "blockdev"};
	struct stat pw0, pw1;

	assert_int_equal(stat("/etc/passwd", &pw0), 0);
	for (size_t i = 0; i < sizeof(evil) / sizeof(evil[0]) + 1; i++) {
		cleanup_free char *outer = mktmp();
		cleanup_free char *snap = xasprintf("%s/snap", outer);
		cleanup_free char *layer = i < 6 ? xasprintf("%s/evil-%s.tar", layers_dir, evil[i])
						 : xasprintf("%s/malicious.tar", layers_dir);
		cleanup_free char *outside = xasprintf("%s/evil", outer);
		sk_error_t err = {0};

		assert_int_equal(mkdir(snap, 0755), 0);
		if (sk__img_unpack_layer(layer, snap, NULL, NULL, &err) == 0)
			fail_msg("layer %s was accepted", layer);
		print_message("%s: %s\n", i < 6 ? evil[i] : "malicious", err.msg);
		assert_non_null(strstr(err.msg, "layer \"sha256:"));
		assert_int_equal(count_entries(outer), 1);          /* only snap/ */
		assert_int_equal(access(outside, F_OK), -1);
		assert_int_equal(access("/tmp/evil-abs", F_OK), -1);
		assert_int_equal(access("/tmp/evil-rel", F_OK), -1);
		sk__image_rm_rf(outer);
	}
	assert_int_equal(stat("/etc/passwd", &pw1), 0);
	assert_int_equal(pw0.st_nlink, pw1.st_nlink);
}

static void test_benign(void **state)
{
	cleanup_free char *dir = mktmp();
	cleanup_free char *layer = xasprintf("%s/benign.tar", layers_dir);
	sk_error_t err = {0};
	struct stat a, b, f;
	char target[64] = "";
	cleanup_free char *p1 = xasprintf("%s/bin/busybox", dir), *p2 = xasprintf("%s/bin/ash", dir);
	cleanup_free char *p3 = xasprintf("%s/bin/sh", dir), *p4 = xasprintf("%s/run/fifo", dir);

	if (geteuid() != 0)
		skip();
	if (sk__img_unpack_layer(layer, dir, NULL, NULL, &err) < 0)
		fail_msg("%s", err.msg);
	assert_int_equal(stat(p1, &a), 0);
	assert_int_equal(stat(p2, &b), 0);
	assert_int_equal(a.st_ino, b.st_ino);                   /* in-layer hard link */
	assert_int_equal(a.st_mode & 0777, 0755);
	assert_true(readlink(p3, target, sizeof(target) - 1) > 0);
	assert_string_equal(target, "/bin/busybox");            /* absolute symlinks are data */
	assert_int_equal(lstat(p4, &f), 0);
	assert_true(S_ISFIFO(f.st_mode));
	assert_int_equal(lstat(p4, &f), 0);
	{
		cleanup_free char *bin = xasprintf("%s/bin", dir);
		assert_int_equal(stat(bin, &f), 0);
		assert_int_equal(f.st_mtime, 1700000000);   /* set after its entries */
	}
	sk__image_rm_rf(dir);
}

/* gzip, zstd and plain layers unpack; the uncompressed stream must match the diff ID */
static void test_diff_id(void **state)
{
	cleanup_free char *dir = mktmp();
	cleanup_free char *plain = xasprintf("%s/lower.tar", layers_dir);
	cleanup_free char *data = NULL;
	cleanup_free char *cmd = xasprintf("gzip -kc %s > %s/l.tar.gz && zstd -q -c %s > %s/l.tar.zst",
					   plain, dir, plain, dir);
	static const char *const names[] = {"lower.tar", "l.tar.gz", "l.tar.zst"};
	char diff_id[72];
	size_t len;

	data = sk_read_file(plain, &len);
	assert_non_null(data);
	sk__img_digest_buf(data, len, diff_id);
	if (system(cmd) != 0)
		skip();
	for (int i = 0; i < 3; i++) {
		cleanup_free char *layer = i ? xasprintf("%s/%s", dir, names[i]) : xstrdup(plain);
		cleanup_free char *ok = xasprintf("%s/ok%d", dir, i), *bad = xasprintf("%s/bad%d", dir, i);
		cleanup_free char *x = xasprintf("%s/a/x", ok);
		sk_error_t err = {0};

		mkdir(ok, 0755);
		mkdir(bad, 0755);
		if (sk__img_unpack_layer(layer, ok, diff_id, NULL, &err) < 0)
			fail_msg("%s: %s", names[i], err.msg);
		assert_int_equal(access(x, F_OK), 0);
		assert_int_equal(sk__img_unpack_layer(layer, bad, "sha256:0123456789abcdef0123456789abcdef"
						  "0123456789abcdef0123456789abcdef", NULL, &err), -1);
		assert_non_null(strstr(err.msg, "diff ID mismatch"));
	}
	sk__image_rm_rf(dir);
}

static void test_whiteouts(void **state)
{
	cleanup_free char *dir = mktmp();
	cleanup_free char *lower = xasprintf("%s/lower", dir), *upper = xasprintf("%s/upper", dir);
	cleanup_free char *merged = xasprintf("%s/merged", dir);
	cleanup_free char *l1 = xasprintf("%s/lower.tar", layers_dir), *l2 = xasprintf("%s/upper.tar", layers_dir);
	cleanup_free char *opts = xasprintf("lowerdir=%s:%s", upper, lower);
	cleanup_free char *wx = xasprintf("%s/a/x", upper), *ob = xasprintf("%s/b", upper);
	sk_error_t err = {0};
	struct stat st;
	char val[8] = "";
	static const char *const present[] = {"a/y", "b/new"}, *const absent[] = {"a/x", "b/z", "c"};

	if (geteuid() != 0)
		skip();
	mkdir(lower, 0755);
	mkdir(upper, 0755);
	mkdir(merged, 0755);
	assert_int_equal(sk__img_unpack_layer(l1, lower, NULL, NULL, &err), 0);
	if (sk__img_unpack_layer(l2, upper, NULL, NULL, &err) < 0)
		fail_msg("%s", err.msg);
	assert_int_equal(lstat(wx, &st), 0);
	assert_true(S_ISCHR(st.st_mode) && st.st_rdev == makedev(0, 0));
	assert_int_equal(getxattr(ob, "trusted.overlay.opaque", val, sizeof(val)), 1);
	assert_int_equal(val[0], 'y');
	if (mount("overlay", merged, "overlay", MS_RDONLY, opts) < 0)
		fail_msg("mount overlay: %s", strerror(errno));
	for (size_t i = 0; i < 2; i++) {
		cleanup_free char *p = xasprintf("%s/%s", merged, present[i]);
		assert_int_equal(access(p, F_OK), 0);
	}
	for (size_t i = 0; i < 3; i++) {
		cleanup_free char *p = xasprintf("%s/%s", merged, absent[i]);
		if (access(p, F_OK) == 0)
			fail_msg("%s visible through the overlay", absent[i]);
	}
	umount2(merged, MNT_DETACH);
	sk__image_rm_rf(dir);
}

static void import(sk_image_store *s, const char *file, const char *name)
{
	cleanup_free char *path = xasprintf("%s/%s", images_dir, file);
	sk_error_t err = {0};

	if (sk_image_import(s, path, name, NULL, &err) < 0)
		fail_msg("%s", err.msg);
}

static void test_shared_layers_and_gc(void **state)
{
	cleanup_free char *dir = mktmp();
	cleanup_free char *snaps = xasprintf("%s/images/snapshots", dir);
	cleanup_free char *blobs = xasprintf("%s/images/blobs/sha256", dir);
	sk_error_t err = {0};
	sk_image_store *s;
	sk_image_info one, two;
	sk_gc_policy all = {0, 0};
	sk_gc_result res;
	cleanup_json json_t *in_use = NULL, *list = NULL;
	char *rootfs;

	if (!images_dir[0] || geteuid() != 0)
		skip();
	s = sk_image_store_open(dir, &err);
	assert_non_null(s);
	import(s, "busybox-oci.tar", "busybox");
	import(s, "app-docker.tar", NULL);
	assert_int_equal(count_entries(snaps), 2);   /* the base layer once */
	assert_int_equal(sk_image_lookup(s, "busybox:1", &one, &err), 0);
	assert_int_equal(sk_image_lookup(s, "docker.io/library/busybox:2", &two, &err), 0);
	assert_int_equal(one.layers, 1);
	assert_int_equal(two.layers, 2);
	assert_string_equal(json_string_value(json_array_get(json_object_get(two.config, "Entrypoint"), 0)), "/bin/sh");
	assert_true(sk_image_is_present(s, one.id));
	list = sk_image_list(s);
	assert_int_equal(json_array_size(list), 2);

	{
		sk_gc_policy never = {100, 90};
		int lease;

		assert_int_equal(sk_image_gc(s, &never, NULL, &res, &err), 0);   /* below the high mark */
		assert_int_equal(res.images_removed, 0);
		lease = sk__img_gc_lease(s, 0);     /* what a pull or import in any process holds */
		assert_true(lease >= 0);
		assert_int_equal(sk_image_gc(s, &all, NULL, &res, &err), -1);
		assert_int_equal(err.code, SK_ECONFLICT);
		close(lease);
		assert_true(sk_image_is_present(s, "busybox:2"));
	}
	rootfs = sk_image_rootfs_prepare(s, "busybox:1", "c1", &err);
	if (!rootfs)
		fail_msg("%s", err.msg);
	{
		cleanup_free char *bb = xasprintf("%s/bin/busybox", rootfs);
		assert_int_equal(access(bb, X_OK), 0);
	}
	/* busybox:2 goes; busybox:1 stays, a container uses it */
	assert_int_equal(sk_image_gc(s, &all, NULL, &res, &err), 0);
	assert_int_equal(res.images_removed, 1);
	assert_int_equal(res.snapshots_removed, 1);
	assert_true(res.bytes_freed > 0);
	assert_true(sk_image_is_present(s, "busybox:1"));
	assert_false(sk_image_is_present(s, "busybox:2"));
	assert_int_equal(sk_image_remove(s, one.id, &err), -1);   /* in use */
	assert_int_equal(err.code, SK_ECONFLICT);

	assert_int_equal(sk_image_rootfs_remove(s, "c1", &err), 0);
	in_use = json_pack("[s]", one.id);
	assert_int_equal(sk_image_gc(s, &all, in_use, &res, &err), 0);
	assert_int_equal(res.images_removed, 0);
	assert_true(sk_image_is_present(s, "busybox:1"));
	assert_int_equal(sk_image_gc(s, &all, NULL, &res, &err), 0);
	assert_int_equal(res.images_removed, 1);
	assert_int_equal(count_entries(snaps), 0);
	assert_int_equal(count_entries(blobs), 0);

	free(rootfs);
	sk_image_info_release(&one);
	sk_image_info_release(&two);
	sk_image_store_free(s);
	sk__image_rm_rf(dir);
}

static void test_lookup_remove(void **state)
{
	cleanup_free char *dir = mktmp();
	sk_error_t err = {0};
	sk_image_store *s;
	sk_image_info info;
	cleanup_json json_t *names = NULL;
	cleanup_free char *path = NULL, *short_id = NULL, *by_digest = NULL;

	if (!images_dir[0])
		skip();
	s = sk_image_store_open(dir, &err);
	path = xasprintf("%s/busybox-oci.tar", images_dir);
	assert_int_equal(sk_image_import(s, path, "localhost:5000/bb", &names, &err), 0);
	assert_string_equal(json_string_value(json_array_get(names, 0)), "localhost:5000/bb:1");
	assert_int_equal(sk_image_lookup(s, "localhost:5000/bb:1", &info, &err), 0);
	short_id = xstrndup(info.id + 7, 12);
	by_digest = xasprintf("localhost:5000/bb@%s", info.id);
	assert_string_equal(info.image_ref, by_digest);
	sk_image_info_release(&info);
	assert_int_equal(sk_image_lookup(s, short_id, &info, &err), 0);
	sk_image_info_release(&info);
	assert_int_equal(sk_image_lookup(s, by_digest, &info, &err), 0);
	sk_image_info_release(&info);
	assert_int_equal(sk_image_lookup(s, "localhost:5000/other@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", &info, &err), -1);
	assert_int_equal(sk_image_lookup(s, "busybox", &info, &err), -1);
	assert_int_equal(err.code, SK_ENOTFOUND);
	assert_string_equal(err.msg, "image \"busybox\": not found");
	assert_int_equal(sk_image_remove(s, "localhost:5000/bb:1", &err), 0);
	assert_false(sk_image_is_present(s, "localhost:5000/bb:1"));
	sk_image_store_free(s);
	sk__image_rm_rf(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_blob_verified),
		cmocka_unit_test(test_malicious_refused),
		cmocka_unit_test(test_benign),
		cmocka_unit_test(test_diff_id),
		cmocka_unit_test(test_whiteouts),
		cmocka_unit_test(test_shared_layers_and_gc),
		cmocka_unit_test(test_lookup_remove),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
