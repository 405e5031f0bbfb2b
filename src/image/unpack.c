/* Unpacking one layer into a snapshot directory, for overlayfs.
 *
 * Every entry is created relative to a directory fd opened component by
 * component with O_NOFOLLOW, so nothing in the layer (a "..", an absolute or
 * relative symlink, a hard link) can make us write outside the snapshot: such
 * a layer is refused as a whole. Whiteouts become overlayfs whiteouts (char
 * device 0/0) and opaque markers the trusted.overlay.opaque=y xattr. */
#include "image/image-int.h"

#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>

#include "util/util.h"

#define WH_PREFIX ".wh."
#define WH_OPAQUE ".wh..wh..opq"

struct unpack {
	int root;          /* the snapshot directory */
	const char *entry; /* current entry's name, for messages */
	const char *layer;
	int64_t size;
	int is_root; /* euid 0: ownership and device nodes can be set */
	sk_error_t *err;
	/* directory times, set at the end (their entries change them) */
	struct dir_time {
		char *path;
		struct timespec ts[2];
	} * dirs;
	size_t n_dirs, cap_dirs;
};

static int fail(struct unpack *u, int code, const char *why)
{
	return sk_error_set(u->err, code, "layer \"%s\": entry \"%.200s\": %s", u->layer, u->entry, why);
}

static int fail_errno(struct unpack *u, int e, const char *what)
{
	return sk_error_errno(u->err, e, "layer \"%s\": entry \"%.200s\": %s", u->layer, u->entry, what);
}

/* Splits a tar path into clean components ("./a//b/" -> "a/b"), refusing "..".
 * Leading "/" is taken as relative to the layer root, as Docker does. */
static int clean_path(struct unpack *u, const char *in, char *out, size_t len)
{
	size_t o = 0;
	const char *p = in;

	while (*p) {
		const char *slash = strchr(p, '/');
		size_t n = slash ? (size_t)(slash - p) : strlen(p);

		if (n == 2 && !strncmp(p, "..", 2))
			return fail(u, SK_EFORBIDDEN, "path escapes the layer (\"..\")");
		if (n && !(n == 1 && p[0] == '.')) {
			if (o + n + 2 > len)
				return fail(u, SK_EINVALID, "path too long");
			if (o)
				out[o++] = '/';
			memcpy(out + o, p, n);
			o += n;
		}
		p += n + (slash ? 1 : 0);
	}
	out[o] = '\0';
	return 0;
}

/* Opens the directory holding path's last component, creating missing parents,
 * never following a symlink. *base points into path at the last component. */
static int open_parent(struct unpack *u, char *path, const char **base, int create)
{
	int fd = dup(u->root);
	char *p = path, *slash;

	if (fd < 0)
		return fail_errno(u, errno, "dup");
	while ((slash = strchr(p, '/'))) {
		int next;

		*slash = '\0';
		next = openat(fd, p, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (next < 0 && errno == ENOENT && create) {
			if (mkdirat(fd, p, 0755) < 0 && errno != EEXIST) {
				*slash = '/';
				close(fd);
				return fail_errno(u, errno, "mkdir parent");
			}
			next = openat(fd, p, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		}
		*slash = '/';
		if (next < 0) {
			int e = errno;
			close(fd);
			if (e == ELOOP || e == ENOTDIR)
				return fail(u, SK_EFORBIDDEN, "path goes through a symlink or non-directory");
			return fail_errno(u, e, "open parent");
		}
		close(fd);
		fd = next;
		p = slash + 1;
	}
	*base = p;
	return fd;
}

/* Removes whatever is at dir/name (a file, a symlink, a tree). */
static int remove_at(int dir, const char *name)
{
	struct stat st;

	if (fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 0 : -1;
	if (!S_ISDIR(st.st_mode))
		return unlinkat(dir, name, 0);
	if (unlinkat(dir, name, AT_REMOVEDIR) == 0)
		return 0;
	{
		/* a non-empty directory: remove the tree (nftw never follows symlinks) */
		cleanup_free char *path = xasprintf("/proc/self/fd/%d/%s", dir, name);
		return sk__image_rm_rf(path);
	}
}

static void set_meta(struct unpack *u, int dir, const char *name, int fd, struct archive_entry *e)
{
	struct timespec ts[2] = {
		{.tv_sec = archive_entry_atime(e), .tv_nsec = archive_entry_atime_nsec(e)},
		{.tv_sec = archive_entry_mtime(e), .tv_nsec = archive_entry_mtime_nsec(e)},
	};
	mode_t mode = archive_entry_perm(e) & 07777;
	int lnk = archive_entry_filetype(e) == AE_IFLNK;

	if (!archive_entry_atime_is_set(e))
		ts[0] = ts[1];
	if (u->is_root) {
		if (fd >= 0)
			(void)!fchown(fd, archive_entry_uid(e), archive_entry_gid(e));
		else
			(void)!fchownat(dir, name, archive_entry_uid(e), archive_entry_gid(e), AT_SYMLINK_NOFOLLOW);
	}
	if (!lnk) {
		if (fd >= 0)
			(void)!fchmod(fd, mode);
		else
			(void)!fchmodat(dir, name, mode, 0);
	}
	if (fd >= 0 && !lnk) {
		const char *xname;
		const void *xval;
		size_t xlen;

		archive_entry_xattr_reset(e);
		while (archive_entry_xattr_next(e, &xname, &xval, &xlen) == ARCHIVE_OK)
			if (strncmp(xname, "trusted.overlay.", 16)) /* the layer must not forge overlay state */
				(void)!fsetxattr(fd, xname, xval, xlen, 0);
	}
	if (fd >= 0)
		futimens(fd, ts);
	else
		utimensat(dir, name, ts, AT_SYMLINK_NOFOLLOW);
}

static int write_file(struct unpack *u, struct archive *a, int dir, const char *name, struct archive_entry *e)
{
	cleanup_close int fd = -1;
	const void *buf;
	size_t len;
	la_int64_t off;
	int r;

	if (remove_at(dir, name) < 0)
		return fail_errno(u, errno, "remove existing");
	fd = openat(dir, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return fail_errno(u, errno, "create");
	while ((r = archive_read_data_block(a, &buf, &len, &off)) == ARCHIVE_OK) {
		const char *p = buf;
		while (len > 0) {
			ssize_t w = pwrite(fd, p, len, off);
			if (w < 0 && errno == EINTR)
				continue;
			if (w < 0)
				return fail_errno(u, errno, "write");
			p += w;
			off += w;
			len -= w;
			u->size += w;
		}
	}
	if (r != ARCHIVE_EOF)
		return fail(u, SK_EINVALID, archive_error_string(a) ? archive_error_string(a) : "read error");
	if (ftruncate(fd, archive_entry_size(e)) < 0)
		return fail_errno(u, errno, "truncate");
	set_meta(u, dir, name, fd, e);
	return 0;
}

static void defer_dir_time(struct unpack *u, const char *path, struct archive_entry *e)
{
	struct dir_time *d;

	if (u->n_dirs == u->cap_dirs) {
		u->cap_dirs = u->cap_dirs ? 2 * u->cap_dirs : 64;
		u->dirs = xrealloc(u->dirs, u->cap_dirs * sizeof(*u->dirs));
	}
	d = &u->dirs[u->n_dirs++];
	d->path = xstrdup(path);
	d->ts[1] = (struct timespec){archive_entry_mtime(e), archive_entry_mtime_nsec(e)};
	d->ts[0] = archive_entry_atime_is_set(e)
			   ? (struct timespec){archive_entry_atime(e), archive_entry_atime_nsec(e)}
			   : d->ts[1];
}

static void apply_dir_times(struct unpack *u)
{
	u->err = NULL; /* best effort */
	for (size_t i = u->n_dirs; i-- > 0;) {
		const char *base;
		int dir = open_parent(u, u->dirs[i].path, &base, 0);

		if (dir >= 0) {
			utimensat(dir, base, u->dirs[i].ts, AT_SYMLINK_NOFOLLOW);
			close(dir);
		}
		free(u->dirs[i].path);
	}
	free(u->dirs);
	u->dirs = NULL;
	u->n_dirs = 0;
}

static int make_dir(struct unpack *u, int dir, const char *name, struct archive_entry *e)
{
	cleanup_close int fd = -1;
	struct stat st;

	if (fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISDIR(st.st_mode) && unlinkat(dir, name, 0) < 0)
		return fail_errno(u, errno, "remove existing");
	if (mkdirat(dir, name, 0700) < 0 && errno != EEXIST)
		return fail_errno(u, errno, "mkdir");
	fd = openat(dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return fail_errno(u, errno, "open directory");
	set_meta(u, dir, name, fd, e);
	return 0;
}

static int make_hardlink(struct unpack *u, int dir, const char *name, const char *target)
{
	char clean[4096];
	const char *tbase;
	cleanup_close int tdir = -1;

	if (clean_path(u, target, clean, sizeof(clean)) < 0)
		return sk_error_wrap(u->err, "hard link target \"%.200s\"", target);
	if (!clean[0])
		return fail(u, SK_EFORBIDDEN, "hard link to the layer root");
	tdir = open_parent(u, clean, &tbase, 0);
	if (tdir < 0)
		return sk_error_wrap(u->err, "hard link target \"%.200s\"", target);
	if (remove_at(dir, name) < 0)
		return fail_errno(u, errno, "remove existing");
	if (linkat(tdir, tbase, dir, name, 0) < 0) /* no AT_SYMLINK_FOLLOW: links a symlink itself */
		return fail_errno(u, errno, "hard link");
	return 0;
}

static int make_node(struct unpack *u, int dir, const char *name, struct archive_entry *e)
{
	mode_t type = archive_entry_filetype(e);
	dev_t rdev = archive_entry_rdev(e);

	if ((type == AE_IFCHR && rdev != makedev(0, 0)) || type == AE_IFBLK)
		return fail(u, SK_EFORBIDDEN, "device nodes are not allowed in layers");
	if (remove_at(dir, name) < 0)
		return fail_errno(u, errno, "remove existing");
	if (mknodat(dir, name, (type == AE_IFCHR ? S_IFCHR : S_IFIFO) | 0600, type == AE_IFCHR ? makedev(0, 0) : 0) < 0)
		return fail_errno(u, errno, "mknod");
	set_meta(u, dir, name, -1, e);
	return 0;
}

static int whiteout(struct unpack *u, int dir, const char *base)
{
	const char *name = base + strlen(WH_PREFIX);

	if (!strcmp(base, WH_OPAQUE)) {
		if (fsetxattr(dir, "trusted.overlay.opaque", "y", 1, 0) < 0)
			return fail_errno(u, errno, "set opaque");
		return 0;
	}
	if (!*name || !strcmp(name, ".") || !strcmp(name, ".."))
		return fail(u, SK_EINVALID, "invalid whiteout");
	if (remove_at(dir, name) < 0)
		return fail_errno(u, errno, "remove whited out");
	if (mknodat(dir, name, S_IFCHR | 0000, makedev(0, 0)) < 0)
		return fail_errno(u, errno, "whiteout");
	return 0;
}

static int unpack_entry(struct unpack *u, struct archive *a, struct archive_entry *e)
{
	char path[4096];
	const char *base, *hardlink = archive_entry_hardlink(e);
	cleanup_close int dir = -1;
	mode_t type = archive_entry_filetype(e);

	if (clean_path(u, archive_entry_pathname(e), path, sizeof(path)) < 0)
		return -1;
	if (!path[0])
		return 0; /* the layer root itself */
	dir = open_parent(u, path, &base, 1);
	if (dir < 0)
		return -1;
	if (!strncmp(base, WH_PREFIX, strlen(WH_PREFIX)))
		return whiteout(u, dir, base);
	if (hardlink)
		return make_hardlink(u, dir, base, hardlink);
	switch (type) {
	case AE_IFREG:
		return write_file(u, a, dir, base, e);
	case AE_IFDIR:
		if (make_dir(u, dir, base, e) < 0)
			return -1;
		defer_dir_time(u, path, e);
		return 0;
	case AE_IFLNK:
		/* Symlinks are data: any target is fine, we never follow one. */
		if (remove_at(dir, base) < 0)
			return fail_errno(u, errno, "remove existing");
		if (symlinkat(archive_entry_symlink(e), dir, base) < 0)
			return fail_errno(u, errno, "symlink");
		set_meta(u, dir, base, -1, e);
		return 0;
	case AE_IFCHR:
	case AE_IFBLK:
	case AE_IFIFO:
		return make_node(u, dir, base, e);
	default:
		return 0; /* sockets and the like are skipped */
	}
}

/* The tar reader pulls the decompressed stream through a second archive
 * (format "raw", every filter), hashing it on the way: one pass both unpacks
 * and computes the layer's diff ID. */
struct tee {
	struct archive *raw;
	gnutls_hash_hd_t hash;
	char buf[1 << 16];
};

static la_ssize_t tee_read(struct archive *a, void *arg, const void **buf)
{
	struct tee *t = arg;
	la_ssize_t n = archive_read_data(t->raw, t->buf, sizeof(t->buf));

	if (n < 0) {
		archive_set_error(a, EIO, "%s",
				  archive_error_string(t->raw) ? archive_error_string(t->raw) : "read error");
		return -1;
	}
	gnutls_hash(t->hash, t->buf, n);
	*buf = t->buf;
	return n;
}

/* A blob still arriving (sk__img_stream): reads what the downloader has
 * written, waits for more, and ends only once the blob is complete and
 * verified; a failed or restarted download is a read error. */
struct stream_src {
	struct sk__img_stream *st;
	int64_t off;
	char buf[1 << 20];
};

static la_ssize_t stream_read(struct archive *a, void *arg, const void **buf)
{
	struct stream_src *ss = arg;
	struct sk__img_stream *st = ss->st;
	int64_t n;
	ssize_t r;

	pthread_mutex_lock(&st->mu);
	while (st->state == 0 && st->avail < ss->off + (int64_t)sizeof(ss->buf)) {
		st->want = ss->off + (int64_t)sizeof(ss->buf);
		pthread_cond_wait(&st->cond, &st->mu);
	}
	st->want = 0;
	n = st->state < 0 ? -1 : st->avail - ss->off;
	pthread_mutex_unlock(&st->mu);
	if (n < 0) {
		archive_set_error(a, EIO, "download failed");
		return -1;
	}
	if (n == 0)
		return 0;
	if (n > (int64_t)sizeof(ss->buf))
		n = sizeof(ss->buf);
	r = pread(st->fd, ss->buf, n, ss->off);
	if (r <= 0) {
		archive_set_error(a, EIO, "short read of the arriving blob");
		return -1;
	}
	ss->off += r;
	*buf = ss->buf;
	return r;
}

void sk__img_stream_update(struct sk__img_stream *st, int64_t avail, int state)
{
	pthread_mutex_lock(&st->mu);
	if (avail < st->avail)
		st->state = -1; /* the download started over: what was read may be stale */
	else
		st->avail = avail;
	if (state)
		st->state = st->state < 0 ? -1 : state;
	if (st->state || (st->want && st->avail >= st->want))
		pthread_cond_broadcast(&st->cond);
	pthread_mutex_unlock(&st->mu);
}

static int open_tee(struct tee *t, struct archive *tar, const char *blob_path, struct stream_src *src,
		    const char *layer, sk_error_t *err)
{
	struct archive_entry *e;

	if (gnutls_hash_init(&t->hash, GNUTLS_DIG_SHA256) < 0)
		abort();
	t->raw = archive_read_new();
	archive_read_support_filter_all(t->raw);
	archive_read_support_format_raw(t->raw);
	if ((src ? archive_read_open(t->raw, src, NULL, stream_read, NULL)
		 : archive_read_open_filename(t->raw, blob_path, 1 << 20)) != ARCHIVE_OK ||
	    archive_read_next_header(t->raw, &e) != ARCHIVE_OK)
		return sk_error_set(err, SK_EINVALID, "layer \"%s\": %s", layer, archive_error_string(t->raw));
	archive_read_support_format_tar(tar);
	if (archive_read_open(tar, t, NULL, tee_read, NULL) != ARCHIVE_OK)
		return sk_error_set(err, SK_EINVALID, "layer \"%s\": %s", layer, archive_error_string(tar));
	return 0;
}

/* Hashes what the tar reader left (end-of-archive padding) and compares. */
static int check_diff_id(struct tee *t, const char *diff_id, const char *layer, sk_error_t *err)
{
	char got[72];
	la_ssize_t n;

	while ((n = archive_read_data(t->raw, t->buf, sizeof(t->buf))) > 0)
		gnutls_hash(t->hash, t->buf, n);
	sk__img_digest_finish(t->hash, got);
	t->hash = NULL;
	if (n < 0)
		return sk_error_set(err, SK_EINVALID, "layer \"%s\": %s", layer, archive_error_string(t->raw));
	if (diff_id && strcmp(diff_id, got))
		return sk_error_set(err, SK_EINVALID, "layer \"%s\": diff ID mismatch (config says %s, content is %s)",
				    layer, diff_id, got);
	return 0;
}

static int unpack_layer(const char *blob_path, struct sk__img_stream *st, const char *digest, const char *dest,
			const char *diff_id, int64_t *size, sk_error_t *err)
{
	struct archive *a = archive_read_new();
	struct archive_entry *e;
	struct unpack u = {.err = err, .is_root = geteuid() == 0};
	struct tee *t = xzalloc(sizeof(*t));
	struct stream_src *src = st ? xzalloc(sizeof(*src)) : NULL;
	const char *slash = blob_path ? strrchr(blob_path, '/') : NULL;
	char layer[80];
	int r, rc = -1;

	if (src)
		src->st = st;
	if (digest)
		snprintf(layer, sizeof(layer), "%.72s", digest);
	else
		snprintf(layer, sizeof(layer), "sha256:%.64s", slash ? slash + 1 : blob_path);
	u.layer = layer;
	u.entry = "";
	u.root = open(dest, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (u.root < 0) {
		sk_error_errno(err, errno, "snapshot \"%s\"", dest);
		goto out;
	}
	if (open_tee(t, a, blob_path, src, layer, err) < 0)
		goto out;
	while ((r = archive_read_next_header(a, &e)) == ARCHIVE_OK) {
		u.entry = archive_entry_pathname(e) ? archive_entry_pathname(e) : "";
		if (unpack_entry(&u, a, e) < 0)
			goto out;
	}
	if (r != ARCHIVE_EOF) {
		sk_error_set(err, SK_EINVALID, "layer \"%s\": %s", layer,
			     archive_error_string(a) ? archive_error_string(a) : "invalid archive");
		goto out;
	}
	if (check_diff_id(t, diff_id, layer, err) < 0)
		goto out;
	apply_dir_times(&u);
	if (size)
		*size = u.size;
	rc = 0;
out:
	for (size_t i = 0; i < u.n_dirs; i++)
		free(u.dirs[i].path);
	free(u.dirs);
	if (u.root >= 0)
		close(u.root);
	archive_read_free(a);
	if (t->raw)
		archive_read_free(t->raw);
	if (t->hash)
		gnutls_hash_deinit(t->hash, NULL);
	free(t);
	free(src);
	return rc;
}

int sk__img_unpack_layer(const char *blob_path, const char *dest, const char *diff_id, int64_t *size, sk_error_t *err)
{
	return unpack_layer(blob_path, NULL, NULL, dest, diff_id, size, err);
}

int sk__img_unpack_layer_stream(struct sk__img_stream *st, const char *digest, const char *dest, const char *diff_id,
				int64_t *size, sk_error_t *err)
{
	return unpack_layer(NULL, st, digest, dest, diff_id, size, err);
}
