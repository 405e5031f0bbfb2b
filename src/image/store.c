/* The content store (blobs by sha256, verified on write) and the image index. */
#include "image/image-int.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>

#include <curl/curl.h>

#include "util/util.h"

static const char *const subdirs[] = {"blobs/sha256", "ingest", "snapshots", "containers"};

static void global_init(void) { curl_global_init(CURL_GLOBAL_DEFAULT); /* before any pull thread runs */ }

sk_image_store *sk_image_store_open(const char *dir, sk_error_t *err)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	sk_image_store *s = xzalloc(sizeof(*s));
	cleanup_free char *lock = NULL;

	pthread_once(&once, global_init);
	s->root = xasprintf("%s/images", dir);
	s->lock_fd = -1;
	pthread_mutex_init(&s->lock_mu, NULL);
	pthread_mutex_init(&s->flights_mu, NULL);
	for (size_t i = 0; i < sizeof(subdirs) / sizeof(subdirs[0]); i++) {
		cleanup_free char *p = xasprintf("%s/%s", s->root, subdirs[i]);
		if (sk_mkdir_p(p, 0700) < 0) {
			sk_error_errno(err, errno, "image store \"%s\": mkdir %s", s->root, subdirs[i]);
			goto fail;
		}
	}
	lock = xasprintf("%s/lock", s->root);
	s->lock_fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (s->lock_fd < 0) {
		sk_error_errno(err, errno, "image store \"%s\": open lock", s->root);
		goto fail;
	}
	return s;
fail:
	sk_image_store_free(s);
	return NULL;
}

void sk_image_store_free(sk_image_store *s)
{
	if (!s)
		return;
	if (s->lock_fd >= 0)
		close(s->lock_fd);
	pthread_mutex_destroy(&s->lock_mu);
	pthread_mutex_destroy(&s->flights_mu);
	free(s->root);
	free(s);
}

const char *sk_image_store_dir(const sk_image_store *s) { return s->root; }

void sk__img_lock(sk_image_store *s, int exclusive)
{
	pthread_mutex_lock(&s->lock_mu);
	while (flock(s->lock_fd, exclusive ? LOCK_EX : LOCK_SH) < 0 && errno == EINTR)
		;
}

void sk__img_unlock(sk_image_store *s)
{
	flock(s->lock_fd, LOCK_UN);
	pthread_mutex_unlock(&s->lock_mu);
}

/* ---- digests and blobs ---- */

void sk__img_digest_finish(gnutls_hash_hd_t h, char *out)
{
	unsigned char md[32];
	int n = snprintf(out, 72, "sha256:");

	gnutls_hash_deinit(h, md);
	for (int i = 0; i < 32; i++)
		n += snprintf(out + n, 72 - n, "%02x", md[i]);
}

void sk__img_digest_buf(const void *data, size_t len, char *out)
{
	gnutls_hash_hd_t h;

	if (gnutls_hash_init(&h, GNUTLS_DIG_SHA256) < 0)
		abort();
	gnutls_hash(h, data, len);
	sk__img_digest_finish(h, out);
}

char *sk__img_blob_path(const sk_image_store *s, const char *digest)
{
	return xasprintf("%s/blobs/sha256/%s", s->root, digest + 7);
}

int sk__img_blob_exists(const sk_image_store *s, const char *digest)
{
	cleanup_free char *p = NULL;

	if (sk_image_digest_check(digest, NULL) < 0)
		return 0;
	p = sk__img_blob_path(s, digest);
	return access(p, F_OK) == 0;
}

char *sk__img_ingest_path(const sk_image_store *s, const char *hint)
{
	static int counter;

	return xasprintf("%s/ingest/%s.%d.%d.%lld", s->root, hint ? hint : "tmp", (int)getpid(),
			 __atomic_add_fetch(&counter, 1, __ATOMIC_RELAXED), (long long)sk_mono_ns());
}

int sk__img_blob_put(sk_image_store *s, const char *expect, const void *data, size_t len, char *out, sk_error_t *err)
{
	char digest[72];
	cleanup_free char *path = NULL, *tmp = NULL;

	sk__img_digest_buf(data, len, digest);
	if (expect && strcmp(expect, digest))
		return sk_error_set(err, SK_EINVALID, "blob \"%s\": digest mismatch (got %s)", expect, digest);
	if (out)
		snprintf(out, 72, "%s", digest);
	path = sk__img_blob_path(s, digest);
	if (access(path, F_OK) == 0)
		return 0;
	/* a private temporary name: other threads and processes may store the same blob */
	tmp = sk__img_ingest_path(s, digest + 7);
	if (sk_write_file(tmp, data, len, 0644) < 0)
		return sk_error_errno(err, errno, "blob \"%s\": write", digest);
	if (rename(tmp, path) < 0) {
		int e = errno;
		unlink(tmp);
		return sk_error_errno(err, e, "blob \"%s\": rename", digest);
	}
	return 0;
}

static int hash_file(const char *path, char *out, sk_error_t *err)
{
	cleanup_close int fd = open(path, O_RDONLY | O_CLOEXEC);
	gnutls_hash_hd_t h;
	char buf[1 << 16];
	ssize_t n;

	if (fd < 0)
		return sk_error_errno(err, errno, "open \"%s\"", path);
	if (gnutls_hash_init(&h, GNUTLS_DIG_SHA256) < 0)
		abort();
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		gnutls_hash(h, buf, n);
	sk__img_digest_finish(h, out);
	if (n < 0)
		return sk_error_errno(err, errno, "read \"%s\"", path);
	return 0;
}

int sk__img_blob_commit_file(sk_image_store *s, const char *tmp_path, const char *expect, sk_error_t *err)
{
	char digest[72];
	cleanup_free char *path = NULL;

	if (hash_file(tmp_path, digest, err) < 0) {
		unlink(tmp_path);
		return -1;
	}
	if (strcmp(digest, expect)) {
		unlink(tmp_path);
		return sk_error_set(err, SK_EINVALID, "blob \"%s\": digest mismatch (got %s)", expect, digest);
	}
	path = sk__img_blob_path(s, digest);
	if (rename(tmp_path, path) < 0) {
		int e = errno;
		unlink(tmp_path);
		return sk_error_errno(err, e, "blob \"%s\": rename", expect);
	}
	return 0;
}

char *sk__img_blob_read(const sk_image_store *s, const char *digest, size_t *len, sk_error_t *err)
{
	cleanup_free char *path = NULL;
	char *data;

	if (sk_image_digest_check(digest, err) < 0)
		return NULL;
	path = sk__img_blob_path(s, digest);
	data = sk_read_file(path, len);
	if (!data)
		sk_error_errno(err, errno, "blob \"%s\"", digest);
	return data;
}

/* ---- the index ---- */

json_t *sk__img_index_load(sk_image_store *s)
{
	cleanup_free char *path = xasprintf("%s/index.json", s->root);
	json_t *idx = json_load_file(path, 0, NULL);

	if (!json_is_object(idx)) {
		json_decref(idx);
		idx = json_object();
	}
	if (!json_is_object(json_object_get(idx, "names")))
		json_object_set_new(idx, "names", json_object());
	if (!json_is_object(json_object_get(idx, "images")))
		json_object_set_new(idx, "images", json_object());
	return idx;
}

int sk__img_index_save(sk_image_store *s, json_t *idx, sk_error_t *err)
{
	cleanup_free char *path = xasprintf("%s/index.json", s->root);
	cleanup_free char *data = json_dumps(idx, JSON_INDENT(1) | JSON_SORT_KEYS);

	if (!data)
		return sk_error_set(err, SK_EINTERNAL, "image index: encode");
	if (sk_write_file(path, data, strlen(data), 0600) < 0)
		return sk_error_errno(err, errno, "image index \"%s\": write", path);
	return 0;
}

/* Builds the record of an image from its stored manifest and config. */
static json_t *build_record(sk_image_store *s, const char *manifest_digest, sk_error_t *err)
{
	cleanup_free char *mdata = NULL, *cdata = NULL;
	cleanup_json json_t *config = NULL, *chain = NULL;
	sk_image_manifest m;
	json_t *layers, *rec;
	size_t mlen, clen;
	int64_t size;

	mdata = sk__img_blob_read(s, manifest_digest, &mlen, err);
	if (!mdata || sk_image_manifest_parse(mdata, mlen, &m, err) < 0)
		return NULL;
	if (m.is_index) {
		sk_image_manifest_release(&m);
		sk_error_set(err, SK_EINVALID, "manifest \"%s\": is an index", manifest_digest);
		return NULL;
	}
	cdata = sk__img_blob_read(s, m.config.digest, &clen, err);
	config = cdata ? json_loadb(cdata, clen, 0, NULL) : NULL;
	chain = config ? sk__img_chain_ids(config, m.n_layers, err) : NULL;
	if (!chain) {
		if (cdata && !config)
			sk_error_set(err, SK_EINVALID, "config \"%s\": invalid JSON", m.config.digest);
		sk_image_manifest_release(&m);
		return NULL;
	}
	layers = json_array();
	size = m.config.size + (int64_t)mlen;
	for (size_t i = 0; i < m.n_layers; i++) {
		json_array_append_new(layers, json_string(m.layers[i].digest));
		size += m.layers[i].size;
	}
	rec = json_pack("{s:s, s:o, s:O, s:O, s:I, s:I}", "config", m.config.digest, "layers", layers, "diffIds",
			json_object_get(json_object_get(config, "rootfs"), "diff_ids"), "chain", chain, "size",
			(json_int_t)size, "lastUsed", (json_int_t)(sk_now_ns() / 1000000000));
	sk_image_manifest_release(&m);
	return rec;
}

int sk__image_record(sk_image_store *s, const char *manifest_digest, json_t *names, sk_error_t *err)
{
	cleanup_json json_t *rec = build_record(s, manifest_digest, err);
	cleanup_json json_t *idx = NULL;
	size_t i;
	json_t *v;
	int rc;

	if (!rec)
		return -1;
	sk__img_lock(s, 1);
	idx = sk__img_index_load(s);
	json_object_set(json_object_get(idx, "images"), manifest_digest, rec);
	json_array_foreach(names, i, v)
		json_object_set_new(json_object_get(idx, "names"), json_string_value(v), json_string(manifest_digest));
	rc = sk__img_index_save(s, idx, err);
	sk__img_unlock(s);
	return rc;
}

json_t *sk__img_chain_ids(json_t *config, size_t n_layers, sk_error_t *err)
{
	json_t *diff_ids = json_object_get(json_object_get(config, "rootfs"), "diff_ids");
	json_t *out;
	char prev[72] = "";
	size_t i;
	json_t *v;

	if (!json_is_array(diff_ids) || json_array_size(diff_ids) != n_layers) {
		sk_error_set(err, SK_EINVALID, "image config: rootfs.diff_ids does not match the %zu layers", n_layers);
		return NULL;
	}
	out = json_array();
	json_array_foreach(diff_ids, i, v) {
		const char *d = json_string_value(v);

		if (!d || sk_image_digest_check(d, err) < 0) {
			json_decref(out);
			sk_error_set(err, SK_EINVALID, "image config: invalid diff_id");
			return NULL;
		}
		if (!prev[0]) {
			snprintf(prev, sizeof(prev), "%s", d);
		} else {
			cleanup_free char *cat = xasprintf("%s %s", prev, d);
			sk__img_digest_buf(cat, strlen(cat), prev);
		}
		json_array_append_new(out, json_string(prev));
	}
	return out;
}

/* ---- lookup ---- */

static int find_id_prefix(json_t *images, const char *hex, char *id)
{
	const char *key;
	json_t *v;
	int found = 0;

	json_object_foreach(images, key, v) {
		if (!strncmp(key + 7, hex, strlen(hex))) {
			if (found++)
				return -1;
			snprintf(id, 72, "%s", key);
		}
	}
	return found == 1 ? 0 : -1;
}

int sk__img_resolve(sk_image_store *s, json_t *idx, const char *ref, char *id, sk_error_t *err)
{
	json_t *images = json_object_get(idx, "images");
	json_t *names = json_object_get(idx, "names");
	const char *hex = !strncmp(ref, "sha256:", 7) ? ref + 7 : ref;
	size_t hn = strlen(hex);
	sk_image_ref r;
	char full[700];
	const char *v;

	if (hn >= 12 && hn <= 64 && strspn(hex, "0123456789abcdef") == hn && find_id_prefix(images, hex, id) == 0)
		return 0;
	if (sk_image_ref_parse(ref, &r, err) < 0)
		return -1;
	if (r.digest[0])
		r.tag[0] = '\0';
	sk_image_ref_string(&r, full, sizeof(full));
	v = json_string_value(json_object_get(names, full));
	if (v && json_object_get(images, v)) {
		snprintf(id, 72, "%s", v);
		return 0;
	}
	if (r.digest[0] && json_object_get(images, r.digest)) {
		char repo[600];
		const char *key;
		json_t *val;

		/* by manifest digest: the repository must hold it under some name */
		sk_image_ref_repo(&r, repo, sizeof(repo));
		json_object_foreach(names, key, val)
			if (!strncmp(key, repo, strlen(repo)) && strchr(":@", key[strlen(repo)]) &&
			    !strcmp(json_string_value(val), r.digest)) {
				snprintf(id, 72, "%s", r.digest);
				return 0;
			}
	}
	return sk_error_set(err, SK_ENOTFOUND, "image \"%s\": not found", ref);
}

static char *repo_of(const char *name)
{
	const char *at = strchr(name, '@');
	const char *slash = strrchr(name, '/');
	const char *colon = strrchr(name, ':');

	if (at)
		return xstrndup(name, at - name);
	if (colon && slash && colon > slash)
		return xstrndup(name, colon - name);
	return xstrdup(name);
}

int sk__img_info_fill(sk_image_store *s, json_t *idx, const char *id, const char *name, sk_image_info *info,
		      sk_error_t *err)
{
	json_t *rec = json_object_get(json_object_get(idx, "images"), id);
	const char *key, *cfg_digest = json_string_value(json_object_get(rec, "config"));
	cleanup_free char *cdata = NULL;
	cleanup_json json_t *config = NULL;
	json_t *v;
	size_t clen;

	memset(info, 0, sizeof(*info));
	if (!rec || !cfg_digest)
		return sk_error_set(err, SK_ENOTFOUND, "image \"%s\": not found", id);
	cdata = sk__img_blob_read(s, cfg_digest, &clen, err);
	if (!cdata || !(config = json_loadb(cdata, clen, 0, NULL)))
		return sk_error_wrap(err, "image \"%s\": config", id);
	info->name = name ? xstrdup(name) : NULL;
	info->id = xstrdup(id);
	info->config_digest = xstrdup(cfg_digest);
	info->config = json_incref(json_object_get(config, "config"));
	if (!info->config)
		info->config = json_object();
	info->size = json_integer_value(json_object_get(rec, "size"));
	info->unpacked_size = json_integer_value(json_object_get(rec, "unpackedSize"));
	info->layers = (int)json_array_size(json_object_get(rec, "layers"));
	info->repo_tags = json_array();
	info->repo_digests = json_array();
	json_object_foreach(json_object_get(idx, "names"), key, v) {
		if (strcmp(json_string_value(v), id))
			continue;
		json_array_append_new(strchr(key, '@') ? info->repo_digests : info->repo_tags, json_string(key));
	}
	{
		const char *base = name ? name : json_string_value(json_array_get(info->repo_tags, 0));
		if (!base)
			base = json_string_value(json_array_get(info->repo_digests, 0));
		cleanup_free char *repo = base ? repo_of(base) : NULL;
		size_t i, rl = repo ? strlen(repo) : 0;
		json_t *d;

		/* what the tag resolved to (an index for multi-platform images), as containerd reports */
		json_array_foreach(info->repo_digests, i, d)
			if (repo && !info->image_ref && !strncmp(json_string_value(d), repo, rl) &&
			    json_string_value(d)[rl] == '@')
				info->image_ref = xstrdup(json_string_value(d));
		if (!info->image_ref)
			info->image_ref = repo ? xasprintf("%s@%s", repo, id) : xstrdup(id);
	}
	return 0;
}

void sk_image_info_release(sk_image_info *info)
{
	if (!info)
		return;
	free(info->name);
	free(info->id);
	free(info->image_ref);
	free(info->config_digest);
	json_decref(info->repo_tags);
	json_decref(info->repo_digests);
	json_decref(info->config);
	memset(info, 0, sizeof(*info));
}

static char *normalise_name(const char *ref)
{
	sk_image_ref r;
	char full[700];

	if (sk_image_ref_parse(ref, &r, NULL) < 0)
		return NULL;
	if (r.digest[0])
		r.tag[0] = '\0';
	sk_image_ref_string(&r, full, sizeof(full));
	return xstrdup(full);
}

int sk_image_lookup(sk_image_store *s, const char *ref, sk_image_info *out, sk_error_t *err)
{
	cleanup_json json_t *idx = NULL;
	cleanup_free char *name = NULL;
	char id[72];
	int rc;

	sk__img_lock(s, 0);
	idx = sk__img_index_load(s);
	sk__img_unlock(s);
	if (sk__img_resolve(s, idx, ref, id, err) < 0)
		return -1;
	name = strncmp(ref, "sha256:", 7) ? normalise_name(ref) : NULL;
	rc = sk__img_info_fill(s, idx, id, name, out, err);
	return rc;
}

int sk_image_is_present(sk_image_store *s, const char *ref)
{
	cleanup_json json_t *idx = NULL;
	json_t *rec, *v;
	char id[72];
	size_t i;

	sk__img_lock(s, 0);
	idx = sk__img_index_load(s);
	sk__img_unlock(s);
	if (sk__img_resolve(s, idx, ref, id, NULL) < 0)
		return 0;
	rec = json_object_get(json_object_get(idx, "images"), id);
	if (!sk__img_blob_exists(s, id) || !sk__img_blob_exists(s, json_string_value(json_object_get(rec, "config"))))
		return 0;
	json_array_foreach(json_object_get(rec, "layers"), i, v)
		if (!sk__img_blob_exists(s, json_string_value(v)))
			return 0;
	return 1;
}

json_t *sk_image_config(sk_image_store *s, const char *ref, sk_error_t *err)
{
	sk_image_info info;
	cleanup_free char *data = NULL;
	json_t *j;
	size_t len;

	if (sk_image_lookup(s, ref, &info, err) < 0)
		return NULL;
	data = sk__img_blob_read(s, info.config_digest, &len, err);
	sk_image_info_release(&info);
	if (!data)
		return NULL;
	j = json_loadb(data, len, 0, NULL);
	if (!j)
		sk_error_set(err, SK_EINVALID, "image \"%s\": config: invalid JSON", ref);
	return j;
}

json_t *sk_image_list(sk_image_store *s)
{
	cleanup_json json_t *idx = NULL;
	json_t *out = json_array(), *rec, *v;
	const char *id, *name;

	sk__img_lock(s, 0);
	idx = sk__img_index_load(s);
	sk__img_unlock(s);
	json_object_foreach(json_object_get(idx, "images"), id, rec) {
		json_t *names = json_array();

		json_object_foreach(json_object_get(idx, "names"), name, v)
			if (!strcmp(json_string_value(v), id) && !strchr(name, '@'))
				json_array_append_new(names, json_string(name));
		json_object_foreach(json_object_get(idx, "names"), name, v)
			if (!strcmp(json_string_value(v), id) && strchr(name, '@'))
				json_array_append_new(names, json_string(name));
		json_array_append_new(out, json_pack("{s:o, s:I, s:s}", "names", names, "sizeBytes",
						     json_integer_value(json_object_get(rec, "size")), "id", id));
	}
	return out;
}

json_t *sk__img_images_in_use(sk_image_store *s)
{
	cleanup_free char *dir = xasprintf("%s/containers", s->root);
	json_t *used = json_object();
	DIR *d = opendir(dir);
	struct dirent *de;

	while (d && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		cleanup_free char *p = xasprintf("%s/%s/image", dir, de->d_name);
		cleanup_free char *id = sk_read_file(p, NULL);
		if (id && sk_image_digest_check(id, NULL) == 0)
			json_object_set_new(used, id, json_true());
	}
	if (d)
		closedir(d);
	return used;
}

int sk_image_remove(sk_image_store *s, const char *ref, sk_error_t *err)
{
	cleanup_json json_t *idx = NULL, *used = NULL;
	cleanup_free char *name = NULL;
	json_t *names;
	const char *key;
	json_t *v, *tmp;
	char id[72];
	int remaining = 0, rc = -1;

	sk__img_lock(s, 1);
	idx = sk__img_index_load(s);
	names = json_object_get(idx, "names");
	if (sk__img_resolve(s, idx, ref, id, err) < 0)
		goto out;
	name = normalise_name(ref);
	if (name && json_object_get(names, name) && strncmp(ref, "sha256:", 7))
		json_object_del(names, name);
	else
		json_object_foreach_safe(names, tmp, key, v)
			if (!strcmp(json_string_value(v), id))
				json_object_del(names, key);
	json_object_foreach(names, key, v)
		remaining += !strcmp(json_string_value(v), id);
	if (!remaining) {
		used = sk__img_images_in_use(s);
		if (json_object_get(used, id)) {
			sk_error_set(err, SK_ECONFLICT, "image \"%s\": in use by a container", ref);
			goto out;
		}
		json_object_del(json_object_get(idx, "images"), id);
	}
	rc = sk__img_index_save(s, idx, err);
out:
	sk__img_unlock(s);
	return rc;
}
