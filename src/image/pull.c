/* Pulling an image: resolve the manifest (selecting the platform from an
 * index), fetch config and layers (several at once), unpack each layer as it
 * arrives, record the image. Concurrent pulls of one reference are shared. */
#include "image/registry.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/utsname.h>

#include "util/util.h"

struct sk__img_flight {
	char *key;
	int done, rc, refs;
	sk_error_t err;
	pthread_cond_t cond;
	struct sk__img_flight *next;
};

struct layer_job {
	sk_image_store *s;
	struct sk__registry *reg;
	const sk_image_manifest *m;
	json_t *chain, *diff_ids;
	pthread_mutex_t mu;
	size_t next;
	int failed;
	sk_error_t err;
	int64_t fetched, fetch_end, unpack_ns, unpacked;
	int blobs_cached, snapshots_cached;
	void (*progress)(void *arg, const char *digest, int64_t done, int64_t total);
	void *progress_arg;
};

/* A layer unpacked while it downloads: a thread reads the partial file as
 * the bytes arrive (sk__img_stream) and commits the snapshot once the blob
 * is complete and verified. */
struct stream_unpack {
	struct layer_job *j;
	size_t i;
	struct sk__img_stream st;
	pthread_t th;
	int rc;
	int64_t size, ns;
	sk_error_t err;
};

/* The stream of the blob this thread is downloading: the registry client's
 * progress callback runs in the thread that called it. */
static __thread struct sk__img_stream *cur_stream;
static __thread const char *cur_digest;

static void pull_progress(void *arg, const char *digest, int64_t done, int64_t total)
{
	struct layer_job *j = arg;

	if (cur_stream && digest && !strcmp(digest, cur_digest))
		sk__img_stream_update(cur_stream, done, 0);
	if (j->progress)
		j->progress(j->progress_arg, digest, done, total);
}

static void *stream_unpack_main(void *arg)
{
	struct stream_unpack *u = arg;
	const sk_image_desc *d = &u->j->m->layers[u->i];
	int64_t t0 = sk_mono_ns();

	u->rc = sk__img_snapshot_stream(u->j->s, json_string_value(json_array_get(u->j->chain, u->i)), &u->st,
					d->digest, json_string_value(json_array_get(u->j->diff_ids, u->i)), &u->size,
					&u->err);
	u->ns = sk_mono_ns() - t0;
	return NULL;
}

static struct stream_unpack *stream_start(struct layer_job *j, size_t i, const char *partial)
{
	struct stream_unpack *u = xzalloc(sizeof(*u));

	u->j = j;
	u->i = i;
	u->st.fd = open(partial, O_RDONLY | O_CLOEXEC);
	pthread_mutex_init(&u->st.mu, NULL);
	pthread_cond_init(&u->st.cond, NULL);
	if (u->st.fd >= 0 && pthread_create(&u->th, NULL, stream_unpack_main, u) == 0)
		return u;
	if (u->st.fd >= 0)
		close(u->st.fd);
	pthread_mutex_destroy(&u->st.mu);
	pthread_cond_destroy(&u->st.cond);
	free(u);
	return NULL;
}

/* Tells the unpacker the outcome and waits for it. */
static void stream_finish(struct stream_unpack *u, int ok, int64_t size)
{
	sk__img_stream_update(&u->st, ok ? size : 0, ok ? 1 : -1);
	pthread_join(u->th, NULL);
	close(u->st.fd);
	pthread_mutex_destroy(&u->st.mu);
	pthread_cond_destroy(&u->st.cond);
}

const char *sk__img_default_platform(void)
{
	struct utsname u;

	return uname(&u) == 0 && !strcmp(u.machine, "aarch64") ? "linux/arm64" : "linux/amd64";
}

/* Opens and locks the current partial download of a blob: one puller (thread
 * or process) at a time resumes it. -1 when the blob got stored meanwhile. */
static int lock_partial(sk_image_store *s, const char *digest, const char *partial, sk_error_t *err)
{
	for (;;) {
		struct stat a, b;
		int fd;

		if (sk__img_blob_exists(s, digest))
			return -1;
		fd = open(partial, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
		if (fd < 0) {
			sk_error_errno(err, errno, "blob \"%s\": open \"%s\"", digest, partial);
			return -2;
		}
		while (flock(fd, LOCK_EX) < 0 && errno == EINTR)
			;
		/* the holder before us may have renamed it into the store: then retry */
		if (fstat(fd, &a) == 0 && stat(partial, &b) == 0 && a.st_ino == b.st_ino && a.st_dev == b.st_dev)
			return fd;
		close(fd);
	}
}

/* The partial file is complete and was verified while it arrived
 * (sk__img_registry_blob_file): into the store without hashing it again. */
static int commit_verified(sk_image_store *s, const char *partial, const char *digest, sk_error_t *err)
{
	cleanup_free char *path = sk__img_blob_path(s, digest);

	if (rename(partial, path) < 0) {
		int e = errno;
		unlink(partial);
		return sk_error_errno(err, e, "blob \"%s\": rename", digest);
	}
	return 0;
}

/* Downloads layer i's blob into the store: 0, 1 when it got there meanwhile,
 * -1 on error. With stream, the layer is unpacked as it arrives: *unpacked
 * gets the finished unpacker (or NULL when none ran). */
static int fetch_layer(struct layer_job *j, size_t i, int stream, struct stream_unpack **unpacked, sk_error_t *err)
{
	const sk_image_desc *d = &j->m->layers[i];
	cleanup_free char *partial = xasprintf("%s/ingest/%s.partial", j->s->root, d->digest + 7);
	cleanup_close int lock = lock_partial(j->s, d->digest, partial, err);
	struct stream_unpack *u = NULL;
	int64_t fetched = 0, now;
	int rc;

	if (lock == -2)
		return -1;
	if (lock < 0)
		return 1;
	if (sk__img_blob_exists(j->s, d->digest)) {
		unlink(partial); /* a stale leftover; we hold its lock */
		return 1;
	}
	if (stream && (u = stream_start(j, i, partial))) {
		cur_stream = &u->st;
		cur_digest = d->digest;
	}
	rc = sk__img_registry_blob_file(j->reg, d, partial, &fetched, err);
	cur_stream = NULL;
	if (rc == 0)
		rc = commit_verified(j->s, partial, d->digest, err);
	now = sk_mono_ns();
	if (u) {
		stream_finish(u, rc == 0, d->size);
		*unpacked = u;
	}
	pthread_mutex_lock(&j->mu);
	j->fetched += fetched;
	if (now > j->fetch_end)
		j->fetch_end = now;
	pthread_mutex_unlock(&j->mu);
	return rc;
}

static int do_layer(struct layer_job *j, size_t i, sk_error_t *err)
{
	const sk_image_desc *d = &j->m->layers[i];
	const char *chain = json_string_value(json_array_get(j->chain, i));
	struct stream_unpack *u = NULL;
	int cached = 1, snap;
	int64_t t0, size = 0, ns = 0;

	if (!sk__img_blob_exists(j->s, d->digest)) {
		cleanup_free char *snap_path = sk__img_snapshot_path(j->s, chain);
		/* SKIFF_IMAGE_STREAM=0: download, then unpack (benchmarks) */
		int stream = access(snap_path, F_OK) < 0 &&
			     !(getenv("SKIFF_IMAGE_STREAM") && !strcmp(getenv("SKIFF_IMAGE_STREAM"), "0"));

		cached = fetch_layer(j, i, stream, &u, err);
		if (cached < 0) {
			free(u);
			return -1;
		}
	}
	if (u && u->rc >= 0) {
		snap = u->rc;
		size = u->size;
		ns = u->ns;
	} else {
		/* not streamed, or the stream failed: from the stored blob (which
		 * also tells an invalid layer from a restarted download) */
		t0 = sk_mono_ns();
		snap = sk__img_snapshot_ensure(j->s, chain, d->digest,
					       json_string_value(json_array_get(j->diff_ids, i)), &size, err);
		ns = sk_mono_ns() - t0;
	}
	free(u);
	if (snap < 0)
		return -1;
	pthread_mutex_lock(&j->mu);
	j->blobs_cached += cached;
	j->snapshots_cached += snap;
	j->unpacked += size;
	if (!snap)
		j->unpack_ns += ns;
	pthread_mutex_unlock(&j->mu);
	return 0;
}

static void *layer_worker(void *arg)
{
	struct layer_job *j = arg;

	for (;;) {
		sk_error_t err = {0};
		size_t i;

		pthread_mutex_lock(&j->mu);
		i = j->next++;
		if (j->failed || i >= j->m->n_layers) {
			pthread_mutex_unlock(&j->mu);
			return NULL;
		}
		pthread_mutex_unlock(&j->mu);
		if (do_layer(j, i, &err) < 0) {
			pthread_mutex_lock(&j->mu);
			if (!j->failed++)
				j->err = err;
			pthread_mutex_unlock(&j->mu);
		}
	}
}

static int fetch_layers(struct layer_job *j, int parallel, sk_error_t *err)
{
	size_t n = parallel > 0 ? (size_t)parallel : 4;
	pthread_t th[16];
	size_t started = 0;

	if (n > 16)
		n = 16;
	if (n > j->m->n_layers)
		n = j->m->n_layers;
	pthread_mutex_init(&j->mu, NULL);
	for (; started < n; started++)
		if (pthread_create(&th[started], NULL, layer_worker, j) != 0)
			break;
	if (started == 0)
		layer_worker(j);
	for (size_t i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	pthread_mutex_destroy(&j->mu);
	if (j->failed) {
		if (err)
			*err = j->err;
		return -1;
	}
	return 0;
}

/* Fetches and stores a manifest, verified against the digest when one is
 * asked for; the digest goes to digest (>= 72). */
static int get_manifest(sk_image_store *s, struct sk__registry *reg, const char *reference, sk_image_manifest *m,
			char *digest, sk_error_t *err)
{
	cleanup_free char *body = NULL, *ct = NULL;
	size_t len;

	if (sk__img_registry_manifest(reg, reference, &body, &len, &ct, err) < 0)
		return -1;
	sk__img_digest_buf(body, len, digest);
	if (!strncmp(reference, "sha256:", 7) && strcmp(reference, digest))
		return sk_error_set(err, SK_EINVALID, "manifest \"%s\": digest mismatch (got %s)", reference, digest);
	if (sk_image_manifest_parse(body, len, m, err) < 0)
		return -1;
	if (sk__img_blob_put(s, digest, body, len, NULL, err) < 0) {
		sk_image_manifest_release(m);
		return -1;
	}
	return 0;
}

/* Resolves ref to a platform manifest; index_digest gets the index's digest
 * (or "" when the reference named a manifest). */
static int resolve(sk_image_store *s, struct sk__registry *reg, const sk_image_ref *r, const char *platform,
		   sk_image_manifest *m, char *digest, char *index_digest, sk_error_t *err)
{
	int sel;

	index_digest[0] = '\0';
	if (get_manifest(s, reg, r->digest[0] ? r->digest : r->tag, m, digest, err) < 0)
		return -1;
	if (!m->is_index)
		return 0;
	snprintf(index_digest, 72, "%s", digest);
	sel = sk_image_manifest_select(m, platform);
	if (sel < 0) {
		sk_image_manifest_release(m);
		return sk_error_set(err, SK_ENOTFOUND, "no matching manifest for %s in the manifest list entries",
				    platform);
	}
	{
		char want[72];
		snprintf(want, sizeof(want), "%s", m->layers[sel].digest);
		sk_image_manifest_release(m);
		if (get_manifest(s, reg, want, m, digest, err) < 0)
			return -1;
	}
	if (m->is_index) {
		sk_image_manifest_release(m);
		return sk_error_set(err, SK_EUNSUPPORTED, "nested image index");
	}
	return 0;
}

static json_t *get_config(sk_image_store *s, struct sk__registry *reg, const sk_image_manifest *m, sk_error_t *err)
{
	cleanup_free char *body = NULL;
	size_t len;
	json_t *j;

	if (!sk__img_blob_exists(s, m->config.digest)) {
		if (sk__img_registry_blob_mem(reg, m->config.digest, &body, &len, err) < 0)
			return NULL;
		if (sk__img_blob_put(s, m->config.digest, body, len, NULL, err) < 0)
			return NULL;
	} else if (!(body = sk__img_blob_read(s, m->config.digest, &len, err))) {
		return NULL;
	}
	j = json_loadb(body, len, 0, NULL);
	if (!j)
		sk_error_set(err, SK_EINVALID, "config \"%s\": invalid JSON", m->config.digest);
	return j;
}

static int record(sk_image_store *s, const sk_image_ref *r, const char *digest, const char *index_digest,
		  int64_t unpacked, sk_error_t *err)
{
	cleanup_json json_t *names = json_array(), *idx = NULL;
	char repo[600];
	json_t *rec;

	sk_image_ref_repo(r, repo, sizeof(repo));
	if (r->tag[0] && !r->digest[0])
		json_array_append_new(names, json_sprintf("%s:%s", repo, r->tag));
	json_array_append_new(names, json_sprintf("%s@%s", repo,
						  r->digest[0]      ? r->digest
						  : index_digest[0] ? index_digest
								    : digest));
	if (sk__image_record(s, digest, names, err) < 0)
		return -1;
	sk__img_lock(s, 1);
	idx = sk__img_index_load(s);
	rec = json_object_get(json_object_get(idx, "images"), digest);
	if (rec && index_digest[0])
		json_object_set_new(rec, "indexes", json_pack("[s]", index_digest));
	if (rec)
		json_object_set_new(rec, "unpackedSize", json_integer(unpacked));
	sk__img_index_save(s, idx, NULL);
	sk__img_unlock(s);
	return 0;
}

static int do_pull(sk_image_store *s, const sk_image_ref *r, const sk_pull_options *opts, sk_image_info *info,
		   sk_error_t *err)
{
	struct sk__registry *reg = NULL;
	sk_image_manifest m = {0};
	cleanup_json json_t *config = NULL, *chain = NULL;
	struct layer_job job = {.progress = opts->progress, .progress_arg = opts->progress_arg};
	sk_pull_options o = *opts;
	char digest[72], index_digest[72], name[700];
	const char *platform = opts->platform ? opts->platform : sk__img_default_platform();
	int64_t t0 = sk_mono_ns();
	int rc = -1;

	o.progress = pull_progress; /* feeds the layers unpacked as they arrive */
	o.progress_arg = &job;
	reg = sk__img_registry_open(r, &o, err);
	if (!reg)
		return -1;
	if (resolve(s, reg, r, platform, &m, digest, index_digest, err) < 0)
		goto out;
	config = get_config(s, reg, &m, err);
	chain = config ? sk__img_chain_ids(config, m.n_layers, err) : NULL;
	if (!chain)
		goto out;
	job = (struct layer_job){.s = s,
				 .reg = reg,
				 .m = &m,
				 .chain = chain,
				 .diff_ids = json_object_get(json_object_get(config, "rootfs"), "diff_ids"),
				 .fetch_end = sk_mono_ns(),
				 .progress = opts->progress,
				 .progress_arg = opts->progress_arg};
	if (fetch_layers(&job, opts->parallel, err) < 0)
		goto out;
	if (record(s, r, digest, index_digest, job.unpacked, err) < 0)
		goto out;
	snprintf(name, sizeof(name), "%s/%s%s%s", r->domain, r->path, r->digest[0] ? "@" : ":",
		 r->digest[0] ? r->digest : r->tag);
	if (sk_image_lookup(s, name, info, err) < 0)
		goto out;
	info->fetched_bytes = job.fetched;
	info->fetch_ns = job.fetch_end - t0;
	info->unpack_ns = job.unpack_ns;
	info->blobs_cached = job.blobs_cached;
	info->snapshots_cached = job.snapshots_cached;
	info->total_ns = sk_mono_ns() - t0;
	rc = 0;
out:
	sk_image_manifest_release(&m);
	sk__img_registry_free(reg);
	return rc;
}

/* ---- singleflight ---- */

static struct sk__img_flight *flight_join(sk_image_store *s, const char *key, int *leader)
{
	struct sk__img_flight *f;

	pthread_mutex_lock(&s->flights_mu);
	for (f = s->flights; f; f = f->next)
		if (!strcmp(f->key, key))
			break;
	*leader = !f;
	if (!f) {
		f = xzalloc(sizeof(*f));
		f->key = xstrdup(key);
		pthread_cond_init(&f->cond, NULL);
		f->next = s->flights;
		s->flights = f;
	}
	f->refs++;
	if (!*leader)
		while (!f->done)
			pthread_cond_wait(&f->cond, &s->flights_mu);
	pthread_mutex_unlock(&s->flights_mu);
	return f;
}

static void flight_leave(sk_image_store *s, struct sk__img_flight *f, int leader, int rc, sk_error_t *err)
{
	pthread_mutex_lock(&s->flights_mu);
	if (leader) {
		struct sk__img_flight **pp;
		f->done = 1;
		f->rc = rc;
		if (err)
			f->err = *err;
		for (pp = &s->flights; *pp; pp = &(*pp)->next)
			if (*pp == f) {
				*pp = f->next;
				break;
			}
		pthread_cond_broadcast(&f->cond);
	} else if (err) {
		*err = f->err;
	}
	if (--f->refs == 0) {
		pthread_cond_destroy(&f->cond);
		free(f->key);
		free(f);
	}
	pthread_mutex_unlock(&s->flights_mu);
}

int sk_image_pull(sk_image_store *s, const char *ref, const sk_pull_options *opts, sk_image_info *out, sk_error_t *err)
{
	static const sk_pull_options none;
	sk_image_ref r;
	char key[700];
	struct sk__img_flight *f;
	int leader, rc, lease;
	int64_t t0 = sk_mono_ns();

	memset(out, 0, sizeof(*out));
	if (sk_image_ref_parse(ref, &r, err) < 0)
		return -1;
	sk_image_ref_string(&r, key, sizeof(key));
	f = flight_join(s, key, &leader);
	if (!leader) {
		rc = f->rc;
		flight_leave(s, f, 0, rc, err);
		if (rc == 0 && sk_image_lookup(s, key, out, err) == 0) {
			out->shared = 1;
			out->wait_ns = out->total_ns = sk_mono_ns() - t0;
			return 0;
		}
		return sk_error_wrap(err, "image \"%s\"", ref);
	}
	lease = sk__img_gc_lease(s, 0);
	rc = do_pull(s, &r, opts ? opts : &none, out, err);
	if (lease >= 0)
		close(lease);
	if (rc < 0)
		sk_error_wrap(err, "image \"%s\"", ref);
	flight_leave(s, f, 1, rc, err);
	return rc;
}
