/* Garbage collection: least recently used images above a disk-use mark, then
 * mark-and-sweep of blobs and snapshots no image references.
 *
 * Pulls and rootfs preparation hold a shared flock on DIR/images/gc.lock for
 * their whole run; the sweep needs it exclusively (without waiting), so it
 * never deletes a blob or snapshot a pull is about to record. */
#include "image/image-int.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>

#include "util/util.h"

int sk__img_gc_lease(sk_image_store *s, int exclusive)
{
	cleanup_free char *path = xasprintf("%s/gc.lock", s->root);
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);

	if (fd < 0)
		return -1;
	if (flock(fd, exclusive ? LOCK_EX | LOCK_NB : LOCK_SH) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

static int used_percent(sk_image_store *s)
{
	struct statvfs st;

	if (statvfs(s->root, &st) < 0 || st.f_blocks == 0)
		return 0;
	return (int)((st.f_blocks - st.f_bavail) * 100 / st.f_blocks);
}

static __thread int64_t tree_bytes;

static int add_size(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)path;
	(void)flag;
	(void)ftw;
	tree_bytes += (int64_t)st->st_blocks * 512;
	return 0;
}

static void mark_record(json_t *rec, json_t *blobs, json_t *snaps, const char *id)
{
	size_t i;
	json_t *v;

	json_object_set_new(blobs, id, json_true());
	json_object_set_new(blobs, json_string_value(json_object_get(rec, "config")), json_true());
	json_array_foreach(json_object_get(rec, "layers"), i, v)
		json_object_set_new(blobs, json_string_value(v), json_true());
	json_array_foreach(json_object_get(rec, "indexes"), i, v)
		json_object_set_new(blobs, json_string_value(v), json_true());
	json_array_foreach(json_object_get(rec, "chain"), i, v)
		json_object_set_new(snaps, json_string_value(v) + 7, json_true());
}

static void sweep_dir(const char *dir, json_t *keep, int *count, int64_t *bytes, const char *prefix)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	while (d && (de = readdir(d))) {
		cleanup_free char *key = NULL, *path = NULL;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		key = xasprintf("%s%s", prefix, de->d_name);
		if (json_object_get(keep, key))
			continue;
		path = xasprintf("%s/%s", dir, de->d_name);
		tree_bytes = 0;
		nftw(path, add_size, 16, FTW_PHYS | FTW_MOUNT);
		if (sk__image_rm_rf(path) == 0) {
			*bytes += tree_bytes;
			(*count)++;
		}
	}
	if (d)
		closedir(d);
}

/* Call with the exclusive gc lease held. */
static int sweep(sk_image_store *s, sk_gc_result *res)
{
	cleanup_json json_t *idx = NULL, *blobs = json_object(), *snaps = json_object();
	cleanup_free char *bdir = xasprintf("%s/blobs/sha256", s->root);
	cleanup_free char *sdir = xasprintf("%s/snapshots", s->root);
	cleanup_free char *idir = xasprintf("%s/ingest", s->root);
	cleanup_json json_t *none = json_object();
	const char *id;
	json_t *rec;
	int ingest = 0;
	int64_t ingest_bytes = 0;

	sk__img_lock(s, 0);
	idx = sk__img_index_load(s);
	sk__img_unlock(s);
	json_object_foreach(json_object_get(idx, "images"), id, rec)
		mark_record(rec, blobs, snaps, id);
	sweep_dir(bdir, blobs, &res->blobs_removed, &res->bytes_freed, "sha256:");
	sweep_dir(sdir, snaps, &res->snapshots_removed, &res->bytes_freed, "");
	sweep_dir(idir, none, &ingest, &ingest_bytes, ""); /* no pull runs: leftovers */
	res->bytes_freed += ingest_bytes;
	return 0;
}

int sk_image_prune(sk_image_store *s, sk_gc_result *res, sk_error_t *err)
{
	sk_gc_result local = {0};
	int fd = sk__img_gc_lease(s, 1);

	if (!res)
		res = &local;
	if (fd < 0)
		return sk_error_set(err, SK_ECONFLICT, "image store \"%s\": a pull is in progress", s->root);
	sweep(s, res);
	close(fd);
	return 0;
}

/* The least recently used image that may go, or 0 when none. */
static int pick_victim(json_t *idx, json_t *in_use, json_t *containers, char *id)
{
	const char *key;
	json_t *rec;
	int64_t best = INT64_MAX;

	id[0] = '\0';
	json_object_foreach(json_object_get(idx, "images"), key, rec) {
		int64_t t = json_integer_value(json_object_get(rec, "lastUsed"));
		int used = json_object_get(containers, key) != NULL;
		size_t i;
		json_t *v;

		json_array_foreach(in_use, i, v)
			used |= json_is_string(v) && !strcmp(json_string_value(v), key);
		if (!used && t < best) {
			best = t;
			snprintf(id, 72, "%s", key);
		}
	}
	return id[0] != '\0';
}

static void drop_image(json_t *idx, const char *id)
{
	json_t *names = json_object_get(idx, "names"), *v, *tmp;
	const char *key;

	json_object_foreach_safe(names, tmp, key, v)
		if (!strcmp(json_string_value(v), id))
			json_object_del(names, key);
	json_object_del(json_object_get(idx, "images"), id);
}

int sk_image_gc(sk_image_store *s, const sk_gc_policy *policy, json_t *in_use, sk_gc_result *res, sk_error_t *err)
{
	sk_gc_result local = {0};
	int fd;

	if (!res)
		res = &local;
	memset(res, 0, sizeof(*res));
	if (policy->high_percent > 0 && used_percent(s) < policy->high_percent)
		return 0;
	fd = sk__img_gc_lease(s, 1);
	if (fd < 0)
		return sk_error_set(err, SK_ECONFLICT, "image store \"%s\": a pull is in progress", s->root);
	sweep(s, res);
	while (used_percent(s) >= policy->low_percent) {
		cleanup_json json_t *idx = NULL, *containers = NULL;
		char id[72];

		sk__img_lock(s, 1);
		idx = sk__img_index_load(s);
		containers = sk__img_images_in_use(s);
		if (!pick_victim(idx, in_use, containers, id)) {
			sk__img_unlock(s);
			break;
		}
		drop_image(idx, id);
		if (sk__img_index_save(s, idx, err) < 0) {
			sk__img_unlock(s);
			close(fd);
			return -1;
		}
		sk__img_unlock(s);
		sk_info("image", "gc: removing image %s", id);
		res->images_removed++;
		sweep(s, res);
	}
	close(fd);
	return 0;
}
