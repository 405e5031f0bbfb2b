/* Internals shared by the files of src/image/. */
#ifndef SK_IMAGE_IMAGE_INT_H
#define SK_IMAGE_IMAGE_INT_H

#include <pthread.h>
#include <stdint.h>

#include <gnutls/crypto.h>
#include <jansson.h>

#include "image/image.h"
#include "util/error.h"

#define SK_MT_OCI_INDEX "application/vnd.oci.image.index.v1+json"
#define SK_MT_OCI_MANIFEST "application/vnd.oci.image.manifest.v1+json"
#define SK_MT_OCI_CONFIG "application/vnd.oci.image.config.v1+json"
#define SK_MT_OCI_LAYER "application/vnd.oci.image.layer.v1.tar"
#define SK_MT_OCI_LAYER_GZ "application/vnd.oci.image.layer.v1.tar+gzip"
#define SK_MT_OCI_LAYER_ZSTD "application/vnd.oci.image.layer.v1.tar+zstd"
#define SK_MT_DOCKER_LIST "application/vnd.docker.distribution.manifest.list.v2+json"
#define SK_MT_DOCKER_MANIFEST "application/vnd.docker.distribution.manifest.v2+json"

#define SK_MANIFEST_MAX (4 << 20)

struct sk__img_flight;

struct sk_image_store {
	char *root;              /* DIR/images */
	int lock_fd;             /* DIR/images/lock */
	pthread_mutex_t lock_mu; /* flock is per open file: serialise our threads too */
	pthread_mutex_t flights_mu;
	struct sk__img_flight *flights; /* pulls in progress (singleflight) */
};

/* "linux/amd64" or "linux/arm64": this machine's platform. */
const char *sk__img_default_platform(void);
/* sha256 of a buffer as "sha256:<hex>" into out (>= 72 bytes). */
void sk__img_digest_buf(const void *data, size_t len, char *out);
/* Finishes h (and deinits it) into "sha256:<hex>". */
void sk__img_digest_finish(gnutls_hash_hd_t h, char *out);
/* malloc'd DIR/images/blobs/sha256/HEX; caller frees. */
char *sk__img_blob_path(const sk_image_store *s, const char *digest);
int sk__img_blob_exists(const sk_image_store *s, const char *digest);
/* Stores data; when expect is not NULL it must match ("digest mismatch").
 * The digest stored goes to out (may be NULL). */
int sk__img_blob_put(sk_image_store *s, const char *expect, const void *data, size_t len, char *out, sk_error_t *err);
/* Hashes tmp_path and renames it into the store if it matches expect. The
 * temporary file is removed on failure. */
int sk__img_blob_commit_file(sk_image_store *s, const char *tmp_path, const char *expect, sk_error_t *err);
/* Reads a blob (malloc'd, NUL-terminated); caller frees. */
char *sk__img_blob_read(const sk_image_store *s, const char *digest, size_t *len, sk_error_t *err);
/* A fresh path under DIR/images/ingest for a temporary file; caller frees. */
char *sk__img_ingest_path(const sk_image_store *s, const char *hint);

/* Store lock (mutex + flock). */
void sk__img_lock(sk_image_store *s, int exclusive);
void sk__img_unlock(sk_image_store *s);
/* index.json: {"names":{name:id}, "images":{id:{...}}}. Caller decrefs. Hold the lock. */
json_t *sk__img_index_load(sk_image_store *s);
int sk__img_index_save(sk_image_store *s, json_t *idx, sk_error_t *err);

/* Records an image whose manifest, config and layer blobs are stored, under the
 * names given (json array of strings, may be NULL). */
int sk__image_record(sk_image_store *s, const char *manifest_digest, json_t *names, sk_error_t *err);
/* Chain IDs of the image's layers from its config's rootfs.diff_ids: a new
 * json array of "sha256:.." strings, or NULL (err set). */
json_t *sk__img_chain_ids(json_t *config, size_t n_layers, sk_error_t *err);

/* Unpacks one layer blob (tar, gzip or zstd) into the empty directory dest,
 * translating whiteouts for overlayfs and refusing anything that would leave
 * dest. The uncompressed stream must hash to diff_id (unless NULL). *size
 * gets the bytes of regular files written. */
int sk__img_unpack_layer(const char *blob_path, const char *dest, const char *diff_id, int64_t *size, sk_error_t *err);
/* A layer blob being downloaded into a file while it is unpacked: the
 * downloader reports the bytes written (sk__img_stream_update), the unpacker
 * reads fd up to avail, waits for more, and reaches the end only once state
 * is 1 (complete and verified); -1 (failed, or avail went back: a restarted
 * download) makes its reads fail. */
struct sk__img_stream {
	pthread_mutex_t mu;
	pthread_cond_t cond;
	int fd;        /* the partial file, open for reading */
	int64_t avail; /* bytes of the blob in the file so far */
	int64_t want;  /* the reader waits for this much (0: not waiting) */
	int state;     /* 0 arriving, 1 complete and verified, -1 failed */
};
/* Reports avail bytes written (a smaller value than before fails the stream)
 * and, when state is not 0, the outcome. */
void sk__img_stream_update(struct sk__img_stream *st, int64_t avail, int state);
/* sk__img_unpack_layer from a stream; digest names the layer in messages. */
int sk__img_unpack_layer_stream(struct sk__img_stream *st, const char *digest, const char *dest, const char *diff_id,
				int64_t *size, sk_error_t *err);
/* sk__img_snapshot_ensure from a stream: 0 when unpacked (the blob verified),
 * 1 when the snapshot was there, -1 on error (the stream failed or the layer
 * is invalid; unpacking the stored blob tells which). */
int sk__img_snapshot_stream(sk_image_store *s, const char *chain_id, struct sk__img_stream *st,
			    const char *layer_digest, const char *diff_id, int64_t *size, sk_error_t *err);
/* Makes sure DIR/images/snapshots/CHAINHEX holds the layer; 1 when it was
 * already there, 0 when unpacked now (*size: bytes written), -1 on error. */
int sk__img_snapshot_ensure(sk_image_store *s, const char *chain_id, const char *layer_digest, const char *diff_id,
			    int64_t *size, sk_error_t *err);
/* malloc'd DIR/images/snapshots/HEX; caller frees. */
char *sk__img_snapshot_path(const sk_image_store *s, const char *chain_id);
/* Removes a directory tree (no symlinks followed). */
int sk__image_rm_rf(const char *path);
/* Opens DIR/images/gc.lock and flocks it: shared (blocking) for pulls and
 * rootfs preparation, exclusive (non-blocking) for GC. The fd, or -1. */
int sk__img_gc_lease(sk_image_store *s, int exclusive);
/* Ids of images used by container rootfs (a new json object id -> true). */
json_t *sk__img_images_in_use(sk_image_store *s);
/* Resolves ref to a stored image id into id (>= 72 bytes); 0, or -1 ENOTFOUND. */
int sk__img_resolve(sk_image_store *s, json_t *idx, const char *ref, char *id, sk_error_t *err);
/* Fills info from the record of id. */
int sk__img_info_fill(sk_image_store *s, json_t *idx, const char *id, const char *name, sk_image_info *info,
		      sk_error_t *err);

#endif
