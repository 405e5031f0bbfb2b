/* Importing image archives: an OCI image layout in a tar, or `docker save`
 * output. The archive's files are first streamed into a private directory
 * under ingest/ (hashed on the way), then committed into the content store. */
#include "image/image-int.h"

#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <string.h>
#include <sys/stat.h>

#include "util/util.h"

struct staged {
	char *dir;     /* ingest/import-... */
	json_t *files; /* archive path -> {"file": path, "digest": "sha256:.."} */
};

static int clean_name(const char *in, char *out, size_t len)
{
	size_t o = 0;

	while (*in) {
		size_t n = strcspn(in, "/");
		if (n == 2 && !strncmp(in, "..", 2))
			return -1;
		if (n && !(n == 1 && *in == '.')) {
			if (o + n + 2 > len)
				return -1;
			if (o)
				out[o++] = '/';
			memcpy(out + o, in, n);
			o += n;
		}
		in += n + (in[n] == '/');
	}
	out[o] = '\0';
	return 0;
}

static int stage_entry(struct staged *st, struct archive *a, const char *name, sk_error_t *err)
{
	cleanup_free char *file = xasprintf("%s/f%zu", st->dir, json_object_size(st->files));
	cleanup_close int fd = open(file, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	gnutls_hash_hd_t h;
	const void *buf;
	size_t len;
	la_int64_t off;
	char digest[72];
	int r;

	if (fd < 0)
		return sk_error_errno(err, errno, "import: create \"%s\"", file);
	if (gnutls_hash_init(&h, GNUTLS_DIG_SHA256) < 0)
		abort();
	while ((r = archive_read_data_block(a, &buf, &len, &off)) == ARCHIVE_OK) {
		gnutls_hash(h, buf, len);
		if (pwrite(fd, buf, len, off) != (ssize_t)len) {
			sk__img_digest_finish(h, digest);
			return sk_error_errno(err, errno, "import: write \"%s\"", file);
		}
	}
	sk__img_digest_finish(h, digest);
	if (r != ARCHIVE_EOF)
		return sk_error_set(err, SK_EINVALID, "import: \"%s\": %s", name, archive_error_string(a));
	json_object_set_new(st->files, name, json_pack("{s:s, s:s}", "file", file, "digest", digest));
	return 0;
}

static int stage(struct staged *st, const char *path, sk_error_t *err)
{
	struct archive *a = archive_read_new();
	struct archive_entry *e;
	int r, rc = -1;

	archive_read_support_filter_all(a);
	archive_read_support_format_tar(a);
	if (archive_read_open_filename(a, path, 1 << 20) != ARCHIVE_OK) {
		sk_error_set(err, SK_EINVALID, "import \"%s\": %s", path, archive_error_string(a));
		goto out;
	}
	while ((r = archive_read_next_header(a, &e)) == ARCHIVE_OK) {
		char name[1024];

		if (archive_entry_filetype(e) != AE_IFREG || archive_entry_hardlink(e))
			continue;
		if (clean_name(archive_entry_pathname(e), name, sizeof(name)) < 0) {
			sk_error_set(err, SK_EINVALID, "import \"%s\": bad entry \"%.200s\"", path,
				     archive_entry_pathname(e));
			goto out;
		}
		if (stage_entry(st, a, name, err) < 0)
			goto out;
	}
	if (r != ARCHIVE_EOF) {
		sk_error_set(err, SK_EINVALID, "import \"%s\": %s", path, archive_error_string(a));
		goto out;
	}
	rc = 0;
out:
	archive_read_free(a);
	return rc;
}

/* Moves a staged file into the content store; it must hash to want (if set). */
static int commit(sk_image_store *s, struct staged *st, const char *name, const char *want, char *digest,
		  sk_error_t *err)
{
	json_t *f = json_object_get(st->files, name);
	const char *got = json_string_value(json_object_get(f, "digest"));
	cleanup_free char *dst = NULL;

	if (!f)
		return sk_error_set(err, SK_EINVALID, "import: \"%s\" missing from the archive", name);
	if (want && strcmp(want, got))
		return sk_error_set(err, SK_EINVALID, "import: \"%s\": digest mismatch (got %s)", name, got);
	if (digest)
		snprintf(digest, 72, "%s", got);
	dst = sk__img_blob_path(s, got);
	if (access(dst, F_OK) == 0)
		return 0;
	if (rename(json_string_value(json_object_get(f, "file")), dst) < 0)
		return sk_error_errno(err, errno, "import: store \"%s\"", name);
	return 0;
}

static void add_name(json_t *names, const char *raw, const char *base)
{
	sk_image_ref r;
	char full[700];

	if (!strchr(raw, ':') && !strchr(raw, '/') && base) {
		cleanup_free char *n = xasprintf("%s:%s", base, raw);
		if (sk_image_ref_parse(n, &r, NULL) < 0)
			return;
	} else if (sk_image_ref_parse(raw, &r, NULL) < 0) {
		return;
	}
	if (r.digest[0])
		r.tag[0] = '\0';
	sk_image_ref_string(&r, full, sizeof(full));
	json_array_append_new(names, json_string(full));
}

/* Records the image and unpacks its layers. */
static int finish(sk_image_store *s, const char *manifest, json_t *names, json_t *all, sk_error_t *err)
{
	cleanup_json json_t *idx = NULL;
	json_t *rec;
	size_t i;

	if (sk__image_record(s, manifest, names, err) < 0)
		return -1;
	sk__img_lock(s, 0);
	idx = sk__img_index_load(s);
	sk__img_unlock(s);
	rec = json_object_get(json_object_get(idx, "images"), manifest);
	for (i = 0; i < json_array_size(json_object_get(rec, "chain")); i++)
		if (sk__img_snapshot_ensure(s, json_string_value(json_array_get(json_object_get(rec, "chain"), i)),
					    json_string_value(json_array_get(json_object_get(rec, "layers"), i)),
					    json_string_value(json_array_get(json_object_get(rec, "diffIds"), i)), NULL,
					    err) < 0)
			return -1;
	json_array_extend(all, names);
	return 0;
}

static int oci_manifest(sk_image_store *s, struct staged *st, const char *digest, json_t *names, json_t *all,
			sk_error_t *err);

static int import_oci(sk_image_store *s, struct staged *st, const char *base, json_t *all, sk_error_t *err)
{
	cleanup_free char *data = NULL;
	cleanup_json json_t *index = NULL;
	const char *key;
	json_t *v, *m;
	size_t i;

	json_object_foreach(st->files, key, v)
		if (!strncmp(key, "blobs/sha256/", 13)) {
			cleanup_free char *want = xasprintf("sha256:%s", key + 13);
			if (sk_image_digest_check(want, err) < 0 || commit(s, st, key, want, NULL, err) < 0)
				return -1;
		}
	data = sk_read_file(json_string_value(json_object_get(json_object_get(st->files, "index.json"), "file")), NULL);
	index = data ? json_loads(data, 0, NULL) : NULL;
	if (!json_is_array(json_object_get(index, "manifests")))
		return sk_error_set(err, SK_EINVALID, "import: index.json: invalid");
	json_array_foreach(json_object_get(index, "manifests"), i, m) {
		json_t *ann = json_object_get(m, "annotations");
		const char *name = json_string_value(json_object_get(ann, "io.containerd.image.name"));
		cleanup_json json_t *names = json_array();

		if (!name)
			name = json_string_value(json_object_get(ann, "org.opencontainers.image.ref.name"));
		if (name)
			add_name(names, name, base);
		if (oci_manifest(s, st, json_string_value(json_object_get(m, "digest")), names, all, err) < 0)
			return -1;
	}
	return 0;
}

static int oci_manifest(sk_image_store *s, struct staged *st, const char *digest, json_t *names, json_t *all,
			sk_error_t *err)
{
	cleanup_free char *body = NULL;
	sk_image_manifest m;
	size_t len;
	int rc;

	if (!digest || sk_image_digest_check(digest, err) < 0)
		return sk_error_wrap(err, "import: index.json");
	body = sk__img_blob_read(s, digest, &len, err);
	if (!body || sk_image_manifest_parse(body, len, &m, err) < 0)
		return sk_error_wrap(err, "import");
	if (m.is_index) {
		int sel = sk_image_manifest_select(&m, sk__img_default_platform());
		char want[72];

		if (sel < 0) {
			sk_image_manifest_release(&m);
			return sk_error_set(err, SK_ENOTFOUND, "import: no manifest for %s in %s",
					    sk__img_default_platform(), digest);
		}
		snprintf(want, sizeof(want), "%s", m.layers[sel].digest);
		sk_image_manifest_release(&m);
		return oci_manifest(s, st, want, names, all, err);
	}
	sk_image_manifest_release(&m);
	rc = finish(s, digest, names, all, err);
	return rc;
}

static const char *layer_type(const char *file)
{
	unsigned char magic[4] = {0};
	cleanup_close int fd = open(file, O_RDONLY | O_CLOEXEC);

	if (fd >= 0 && read(fd, magic, 4) == 4) {
		if (magic[0] == 0x1f && magic[1] == 0x8b)
			return SK_MT_OCI_LAYER_GZ;
		if (magic[0] == 0x28 && magic[1] == 0xb5 && magic[2] == 0x2f && magic[3] == 0xfd)
			return SK_MT_OCI_LAYER_ZSTD;
	}
	return SK_MT_OCI_LAYER;
}

static json_t *desc_of(struct staged *st, const char *name, const char *mt)
{
	json_t *f = json_object_get(st->files, name);
	struct stat sb;

	if (!f || stat(json_string_value(json_object_get(f, "file")), &sb) < 0)
		return NULL;
	return json_pack("{s:s, s:O, s:I}", "mediaType",
			 mt ? mt : layer_type(json_string_value(json_object_get(f, "file"))), "digest",
			 json_object_get(f, "digest"), "size", (json_int_t)sb.st_size);
}

/* One manifest.json entry of a docker save archive: build an OCI manifest. */
static int docker_entry(sk_image_store *s, struct staged *st, json_t *ent, json_t *all, sk_error_t *err)
{
	const char *cfg = json_string_value(json_object_get(ent, "Config"));
	cleanup_json json_t *layers = json_array(), *man = NULL, *names = json_array();
	cleanup_free char *body = NULL;
	json_t *cdesc, *v;
	char digest[72];
	size_t i;

	if (!cfg || !(cdesc = desc_of(st, cfg, SK_MT_OCI_CONFIG)))
		return sk_error_set(err, SK_EINVALID, "import: manifest.json: config missing");
	man = json_pack("{s:i, s:s, s:o, s:O}", "schemaVersion", 2, "mediaType", SK_MT_OCI_MANIFEST, "config", cdesc,
			"layers", layers);
	json_array_foreach(json_object_get(ent, "Layers"), i, v) {
		json_t *d = desc_of(st, json_string_value(v) ? json_string_value(v) : "", NULL);
		if (!d)
			return sk_error_set(err, SK_EINVALID, "import: layer \"%s\" missing", json_string_value(v));
		json_array_append_new(layers, d);
	}
	if (commit(s, st, cfg, NULL, NULL, err) < 0)
		return -1;
	json_array_foreach(json_object_get(ent, "Layers"), i, v)
		if (commit(s, st, json_string_value(v), NULL, NULL, err) < 0)
			return -1;
	body = json_dumps(man, JSON_COMPACT);
	if (sk__img_blob_put(s, NULL, body, strlen(body), digest, err) < 0)
		return -1;
	json_array_foreach(json_object_get(ent, "RepoTags"), i, v)
		if (json_string_value(v))
			add_name(names, json_string_value(v), NULL);
	return finish(s, digest, names, all, err);
}

static int import_docker(sk_image_store *s, struct staged *st, json_t *all, sk_error_t *err)
{
	cleanup_free char *data = sk_read_file(
		json_string_value(json_object_get(json_object_get(st->files, "manifest.json"), "file")), NULL);
	cleanup_json json_t *mj = data ? json_loads(data, 0, NULL) : NULL;
	json_t *ent;
	size_t i;

	if (!json_is_array(mj))
		return sk_error_set(err, SK_EINVALID, "import: manifest.json: invalid");
	json_array_foreach(mj, i, ent)
		if (docker_entry(s, st, ent, all, err) < 0)
			return -1;
	return 0;
}

static char *default_base(const char *path)
{
	cleanup_free char *copy = xstrdup(path);
	char *b = basename(copy), *dot = strstr(b, ".tar");

	if (dot)
		*dot = '\0';
	for (char *p = b; *p; p++)
		*p = (*p >= 'A' && *p <= 'Z') ? *p - 'A' + 'a' : *p;
	return xstrdup(b);
}

int sk_image_import(sk_image_store *s, const char *path, const char *base_name, json_t **names_out, sk_error_t *err)
{
	struct staged st = {.files = json_object()};
	cleanup_json json_t *all = json_array();
	cleanup_free char *base = base_name ? xstrdup(base_name) : default_base(path);
	int lease = sk__img_gc_lease(s, 0), rc = -1;

	st.dir = sk__img_ingest_path(s, "import");
	if (mkdir(st.dir, 0700) < 0) {
		sk_error_errno(err, errno, "import: mkdir \"%s\"", st.dir);
		goto out;
	}
	if (stage(&st, path, err) < 0)
		goto out;
	if (json_object_get(st.files, "index.json") && json_object_get(st.files, "oci-layout"))
		rc = import_oci(s, &st, base, all, err);
	else if (json_object_get(st.files, "manifest.json"))
		rc = import_docker(s, &st, all, err);
	else
		rc = sk_error_set(err, SK_EINVALID, "import \"%s\": neither an OCI layout nor a docker archive", path);
	if (rc == 0 && names_out)
		*names_out = json_incref(all);
out:
	sk__image_rm_rf(st.dir);
	free(st.dir);
	json_decref(st.files);
	if (lease >= 0)
		close(lease);
	return rc;
}
