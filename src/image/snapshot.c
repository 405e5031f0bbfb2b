/* Layer snapshots keyed by chain ID (shared across images) and container root
 * filesystems: overlayfs over the snapshots plus a writable upper layer. */
#include "image/image-int.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>

#include "util/util.h"

#define OVERLAYFS_MAGIC 0x794c7630

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (flag == FTW_DP)
		return rmdir(path) < 0 && errno != ENOENT ? -1 : 0;
	return unlink(path) < 0 && errno != ENOENT ? -1 : 0;
}

int sk__image_rm_rf(const char *path)
{
	struct stat st;

	if (lstat(path, &st) < 0)
		return errno == ENOENT ? 0 : -1;
	if (!S_ISDIR(st.st_mode))
		return unlink(path);
	/* FTW_MOUNT: never descend into something mounted below path */
	return nftw(path, rm_one, 32, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
}

char *sk__img_snapshot_path(const sk_image_store *s, const char *chain_id)
{
	return xasprintf("%s/snapshots/%s", s->root, chain_id + 7);
}

static int snapshot_make(sk_image_store *s, const char *chain_id, struct sk__img_stream *stream,
			 const char *layer_digest, const char *diff_id, int64_t *size_out, sk_error_t *err)
{
	static int counter;
	cleanup_free char *path = sk__img_snapshot_path(s, chain_id);
	cleanup_free char *blob = stream ? NULL : sk__img_blob_path(s, layer_digest);
	cleanup_free char *tmp = NULL;
	struct stat st;
	int64_t size = 0;

	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		return 1;
	tmp = xasprintf("%s/snapshots/.tmp-%.12s-%d-%d", s->root, chain_id + 7, (int)getpid(),
			__atomic_add_fetch(&counter, 1, __ATOMIC_RELAXED));
	if (mkdir(tmp, 0755) < 0)
		return sk_error_errno(err, errno, "snapshot \"%s\": mkdir", chain_id);
	if ((stream ? sk__img_unpack_layer_stream(stream, layer_digest, tmp, diff_id, &size, err)
		    : sk__img_unpack_layer(blob, tmp, diff_id, &size, err)) < 0) {
		sk__image_rm_rf(tmp);
		return -1;
	}
	if (size_out)
		*size_out = size;
	chmod(tmp, 0755);
	if (rename(tmp, path) < 0) {
		int e = errno;
		sk__image_rm_rf(tmp);
		if (e == EEXIST || e == ENOTEMPTY)
			return 1; /* another puller won the race: same content */
		return sk_error_errno(err, e, "snapshot \"%s\": rename", chain_id);
	}
	return 0;
}

int sk__img_snapshot_ensure(sk_image_store *s, const char *chain_id, const char *layer_digest, const char *diff_id,
			    int64_t *size_out, sk_error_t *err)
{
	return snapshot_make(s, chain_id, NULL, layer_digest, diff_id, size_out, err);
}

int sk__img_snapshot_stream(sk_image_store *s, const char *chain_id, struct sk__img_stream *st,
			    const char *layer_digest, const char *diff_id, int64_t *size_out, sk_error_t *err)
{
	return snapshot_make(s, chain_id, st, layer_digest, diff_id, size_out, err);
}

static int valid_container_id(const char *id)
{
	size_t n = strlen(id);

	return n > 0 && n < 128 && id[0] != '.' &&
	       strspn(id, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") == n;
}

static int is_overlay_mounted(const char *rootfs, const char *cdir)
{
	struct statfs sf;
	struct stat a, b;

	if (statfs(rootfs, &sf) < 0 || sf.f_type != OVERLAYFS_MAGIC)
		return 0;
	return stat(rootfs, &a) == 0 && stat(cdir, &b) == 0 && a.st_dev != b.st_dev;
}

/* "lowerdir=TOP:...:BOTTOM,upperdir=..,workdir=.." for the image's snapshots. */
static char *mount_options(sk_image_store *s, json_t *chain, const char *cdir)
{
	size_t n = json_array_size(chain), cap = 256 + n * (strlen(s->root) + 80) + 2 * strlen(cdir);
	char *opts = xmalloc(cap);
	size_t o = snprintf(opts, cap, "lowerdir=");

	for (size_t i = n; i-- > 0;)
		o += snprintf(opts + o, cap - o, "%s%s/snapshots/%s", i == n - 1 ? "" : ":", s->root,
			      json_string_value(json_array_get(chain, i)) + 7);
	snprintf(opts + o, cap - o, ",upperdir=%s/upper,workdir=%s/work", cdir, cdir);
	return opts;
}

/* The new mount API takes the lower layers one by one ("lowerdir+", Linux 6.8),
 * so an image may have more layers than one page of mount(2) options holds. */
static int mount_layers(sk_image_store *s, json_t *chain, const char *cdir, const char *rootfs)
{
	cleanup_close int fd = fsopen("overlay", FSOPEN_CLOEXEC), mfd = -1;
	cleanup_free char *upper = xasprintf("%s/upper", cdir), *work = xasprintf("%s/work", cdir);

	if (fd < 0)
		return -1;
	for (size_t i = json_array_size(chain); i-- > 0;) {
		cleanup_free char *p = sk__img_snapshot_path(s, json_string_value(json_array_get(chain, i)));
		if (fsconfig(fd, FSCONFIG_SET_STRING, "lowerdir+", p, 0) < 0)
			return -1;
	}
	if (fsconfig(fd, FSCONFIG_SET_STRING, "upperdir", upper, 0) < 0 ||
	    fsconfig(fd, FSCONFIG_SET_STRING, "workdir", work, 0) < 0 ||
	    fsconfig(fd, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0)
		return -1;
	mfd = fsmount(fd, FSMOUNT_CLOEXEC, 0);
	if (mfd < 0)
		return -1;
	return move_mount(mfd, "", AT_FDCWD, rootfs, MOVE_MOUNT_F_EMPTY_PATH);
}

static void touch_image(sk_image_store *s, const char *id)
{
	cleanup_json json_t *idx = NULL;
	json_t *rec;

	sk__img_lock(s, 1);
	idx = sk__img_index_load(s);
	rec = json_object_get(json_object_get(idx, "images"), id);
	if (rec) {
		json_object_set_new(rec, "lastUsed", json_integer(sk_now_ns() / 1000000000));
		sk__img_index_save(s, idx, NULL);
	}
	sk__img_unlock(s);
}

/* Unpacks the layers of a recorded image that are missing; returns the chain. */
static json_t *ensure_snapshots(sk_image_store *s, const char *id, sk_error_t *err)
{
	cleanup_json json_t *idx = NULL;
	json_t *rec, *chain, *layers, *diffs;

	sk__img_lock(s, 0);
	idx = sk__img_index_load(s);
	sk__img_unlock(s);
	rec = json_object_get(json_object_get(idx, "images"), id);
	chain = json_object_get(rec, "chain");
	layers = json_object_get(rec, "layers");
	diffs = json_object_get(rec, "diffIds");
	if (!rec || json_array_size(chain) != json_array_size(layers)) {
		sk_error_set(err, SK_ENOTFOUND, "image \"%s\": not found", id);
		return NULL;
	}
	for (size_t i = 0; i < json_array_size(chain); i++)
		if (sk__img_snapshot_ensure(s, json_string_value(json_array_get(chain, i)),
					    json_string_value(json_array_get(layers, i)),
					    json_string_value(json_array_get(diffs, i)), NULL, err) < 0)
			return NULL;
	return json_incref(chain);
}

static int make_container_dirs(const char *cdir, const char *id, sk_error_t *err)
{
	static const char *const sub[] = {"upper", "work", "rootfs"};
	cleanup_free char *img = xasprintf("%s/image", cdir);

	if (mkdir(cdir, 0700) < 0 && errno != EEXIST)
		return sk_error_errno(err, errno, "container \"%s\": mkdir", cdir);
	/* written first: from here on GC sees the image as in use */
	if (sk_write_file(img, id, strlen(id), 0600) < 0)
		return sk_error_errno(err, errno, "container \"%s\": write image", cdir);
	for (size_t i = 0; i < 3; i++) {
		cleanup_free char *p = xasprintf("%s/%s", cdir, sub[i]);
		/* the upper dir's mode becomes the container's "/": 0755 lets non-root users in */
		if (mkdir(p, i == 1 ? 0700 : 0755) < 0 && errno != EEXIST)
			return sk_error_errno(err, errno, "container \"%s\": mkdir %s", cdir, sub[i]);
	}
	return 0;
}

char *sk_image_rootfs_prepare(sk_image_store *s, const char *image, const char *container_id, sk_error_t *err)
{
	cleanup_json json_t *idx = NULL, *chain = NULL;
	cleanup_free char *cdir = NULL, *rootfs = NULL, *opts = NULL;
	cleanup_close int lease = -1;
	char id[72];

	if (!valid_container_id(container_id)) {
		sk_error_set(err, SK_EINVALID, "container \"%.128s\": invalid id", container_id);
		return NULL;
	}
	lease = sk__img_gc_lease(s, 0);
	sk__img_lock(s, 0);
	idx = sk__img_index_load(s);
	sk__img_unlock(s);
	if (sk__img_resolve(s, idx, image, id, err) < 0)
		return NULL;
	cdir = xasprintf("%s/containers/%s", s->root, container_id);
	rootfs = xasprintf("%s/rootfs", cdir);
	if (make_container_dirs(cdir, id, err) < 0)
		return NULL;
	if (is_overlay_mounted(rootfs, cdir))
		return steal_ptr(&rootfs);
	chain = ensure_snapshots(s, id, err);
	if (!chain)
		goto fail;
	opts = mount_options(s, chain, cdir);
	/* SKIFF_IMAGE_MOUNT_API=new forces the new mount API (tests) */
	if (strlen(opts) >= 4000 ||
	    (getenv("SKIFF_IMAGE_MOUNT_API") && !strcmp(getenv("SKIFF_IMAGE_MOUNT_API"), "new"))) {
		if (mount_layers(s, chain, cdir, rootfs) < 0) {
			sk_error_errno(err, errno, "container \"%s\": mount overlay (%zu layers)", container_id,
				       json_array_size(chain));
			goto fail;
		}
	} else if (mount("overlay", rootfs, "overlay", 0, opts) < 0) {
		sk_error_errno(err, errno, "container \"%s\": mount overlay", container_id);
		goto fail;
	}
	touch_image(s, id);
	return steal_ptr(&rootfs);
fail:
	sk__image_rm_rf(cdir);
	return NULL;
}

int sk_image_rootfs_remove(sk_image_store *s, const char *container_id, sk_error_t *err)
{
	cleanup_free char *cdir = NULL, *rootfs = NULL;

	if (!valid_container_id(container_id))
		return sk_error_set(err, SK_EINVALID, "container \"%.128s\": invalid id", container_id);
	cdir = xasprintf("%s/containers/%s", s->root, container_id);
	rootfs = xasprintf("%s/rootfs", cdir);
	if (access(cdir, F_OK) < 0)
		return 0;
	while (is_overlay_mounted(rootfs, cdir))
		if (umount2(rootfs, MNT_DETACH) < 0)
			return sk_error_errno(err, errno, "container \"%s\": unmount", container_id);
	if (sk__image_rm_rf(cdir) < 0)
		return sk_error_errno(err, errno, "container \"%s\": remove", container_id);
	return 0;
}
