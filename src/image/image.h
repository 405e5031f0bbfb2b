/* The node's OCI image service: what containerd's image, content and
 * snapshot services do for a kubelet.
 *
 *   DIR/images/blobs/sha256/HEX     content store, every blob verified on write
 *   DIR/images/ingest/              partial downloads (resumed) and temp files
 *   DIR/images/index.json           names -> manifest digest, image records
 *   DIR/images/lock                 flock: shared to read, exclusive to update
 *   DIR/images/snapshots/CHAINHEX   one unpacked layer (diff with overlay whiteouts)
 *   DIR/images/containers/ID/       upper, work, rootfs (overlay mount), image
 *
 * A running agent and the `skiff image` CLI may share one DIR: blobs and
 * snapshots appear by atomic rename, index.json is rewritten atomically under
 * the exclusive lock. A store handle may be used from several threads. */
#ifndef SK_IMAGE_IMAGE_H
#define SK_IMAGE_IMAGE_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "util/error.h"

/* ---- references ---------------------------------------------------------- */

/* A normalised reference, as Docker and Kubernetes spell them:
 * "busybox" -> domain "docker.io", path "library/busybox", tag "latest". */
typedef struct sk_image_ref {
	char domain[256]; /* "docker.io", "localhost:5000", "127.0.0.1:5000" */
	char path[256];   /* "library/busybox" */
	char tag[129];    /* "" when only a digest was given */
	char digest[72];  /* "sha256:<64 hex>" or "" */
} sk_image_ref;

int sk_image_ref_parse(const char *s, sk_image_ref *out, sk_error_t *err);
/* "docker.io/library/busybox" */
void sk_image_ref_repo(const sk_image_ref *r, char *buf, size_t len);
/* Full name: "docker.io/library/busybox:1.36", "...@sha256:..", or both. */
void sk_image_ref_string(const sk_image_ref *r, char *buf, size_t len);
/* 0 when s is "sha256:" followed by 64 lowercase hex digits. */
int sk_image_digest_check(const char *s, sk_error_t *err);

/* ---- the store ------------------------------------------------------------- */

typedef struct sk_image_store sk_image_store;

/* Opens (creating) DIR/images. Free with sk_image_store_free. */
sk_image_store *sk_image_store_open(const char *dir, sk_error_t *err);
void sk_image_store_free(sk_image_store *s);
const char *sk_image_store_dir(const sk_image_store *s); /* DIR/images */

/* What the agent needs to know about a stored image. */
typedef struct sk_image_info {
	char *name;            /* the name asked for, normalised; NULL for a digest-only lookup */
	char *id;              /* manifest digest "sha256:..", the imageID */
	char *image_ref;       /* the pod status imageID: "docker.io/library/busybox@sha256:.."
				  with the digest the tag resolved to (the index of a
				  multi-platform image, else the manifest = id) */
	char *config_digest;   /* "sha256:.." */
	json_t *repo_tags;     /* ["docker.io/library/busybox:1.36", ...] */
	json_t *repo_digests;  /* ["docker.io/library/busybox@sha256:<index or manifest>"] */
	json_t *config;        /* the image config's "config" object: Entrypoint, Cmd,
				  Env, WorkingDir, User, Labels (may be an empty object) */
	int64_t size;          /* bytes of config + layers as stored (compressed) */
	int64_t unpacked_size; /* bytes of the layer snapshots, when known (else 0) */
	int layers;
	/* Filled by sk_image_pull: */
	int64_t fetched_bytes; /* bytes downloaded from the registry */
	int64_t fetch_ns;      /* wall time from the start until the last blob arrived */
	int64_t unpack_ns;     /* summed over layers (they unpack in parallel, while
				  other layers download) */
	int64_t total_ns;      /* the pull as this caller saw it */
	int64_t wait_ns;       /* of which waiting for another caller's pull (shared) */
	int blobs_cached;      /* layers already in the content store */
	int snapshots_cached;  /* layers already unpacked */
	int shared;            /* 1 when the result came from another caller's pull */
} sk_image_info;

void sk_image_info_release(sk_image_info *info);

typedef struct sk_pull_options {
	/* dockerconfigjson documents ({"auths":{"host":{"auth":"base64(u:p)"}}}), the
	 * contents of kubernetes.io/dockerconfigjson secrets; the first one naming
	 * the registry host wins. Not owned. May be NULL. */
	json_t *const *auths;
	size_t n_auths;
	/* Registries ("host:port") reached over plain HTTP or unverified HTTPS.
	 * Loopback registries (localhost, 127.0.0.0/8, [::1]) always are. */
	const char *const *insecure;
	size_t n_insecure;
	const char *ca_file;  /* extra CA bundle for HTTPS, or NULL */
	const char *platform; /* "linux/amd64" (default: this machine's) */
	int parallel;         /* layers fetched at once (default 4) */
	int retries;          /* attempts per blob, resuming with Range (default 3) */
	/* Called from pull threads as bytes arrive (may be NULL). */
	void (*progress)(void *arg, const char *digest, int64_t done, int64_t total);
	void *progress_arg;
} sk_pull_options;

/* Pulls ref (tag or digest) into the store and unpacks its layers. Concurrent
 * callers of the same reference share one pull (singleflight). Errors carry
 * the registry's reason: `image "x": manifest unknown`, `...: unauthorized:
 * authentication required`, `...: digest mismatch`. out is filled on success
 * (release with sk_image_info_release). */
int sk_image_pull(sk_image_store *s, const char *ref, const sk_pull_options *opts, sk_image_info *out, sk_error_t *err);

/* Looks up a stored image by name, name@digest, bare manifest digest or a
 * prefix of the id (>= 12 hex). 0 and out filled, or -1 with SK_ENOTFOUND. */
int sk_image_lookup(sk_image_store *s, const char *ref, sk_image_info *out, sk_error_t *err);
/* 1 when present (complete: manifest, config, layers), 0 when not. */
int sk_image_is_present(sk_image_store *s, const char *ref);

/* Imports an OCI image layout archive or a `docker save` archive (tar, may be
 * compressed). base_name names OCI entries whose ref.name is a bare tag
 * ("1" -> base_name:1); NULL means the file name without ".tar".
 * *names_out (if not NULL) gets a new JSON array of the names added. */
int sk_image_import(sk_image_store *s, const char *path, const char *base_name, json_t **names_out, sk_error_t *err);

/* Removes a name; the image record goes with its last name (or at once when
 * ref is an id). Blobs and snapshots are freed by sk_image_gc/sk_image_prune.
 * Refuses (SK_ECONFLICT) an image a container rootfs uses. */
int sk_image_remove(sk_image_store *s, const char *ref, sk_error_t *err);

/* Node status images: [{"names":["repo:tag","repo@sha256:.."],"sizeBytes":N}],
 * plus "id" for the CLI. Caller decrefs. */
json_t *sk_image_list(sk_image_store *s);

/* Reads the whole image config blob (JSON) of a stored image. Caller decrefs. */
json_t *sk_image_config(sk_image_store *s, const char *ref, sk_error_t *err);

/* ---- container root filesystems --------------------------------------------- */

/* Mounts overlayfs over the image's layer snapshots plus a fresh writable upper
 * layer at DIR/images/containers/ID/rootfs and returns that path (caller frees).
 * image is anything sk_image_lookup accepts (use the imageID to be exact).
 * Unpacks layers that are missing. The image counts as in use (GC, remove)
 * until sk_image_rootfs_remove. Idempotent: an existing mount is returned.
 * Images with many layers use the new mount API ("lowerdir+", Linux 6.8);
 * SKIFF_IMAGE_MOUNT_API=new in the environment forces it (tests). Needs root. */
char *sk_image_rootfs_prepare(sk_image_store *s, const char *image, const char *container_id, sk_error_t *err);
/* Unmounts and deletes the container's upper layer. 0 also when absent. */
int sk_image_rootfs_remove(sk_image_store *s, const char *container_id, sk_error_t *err);

/* ---- garbage collection -------------------------------------------------- */

typedef struct sk_gc_policy {
	int high_percent; /* start when the filesystem is at least this used (0: always) */
	int low_percent;  /* free least recently used images until below this
			     (0: every image not in use) */
} sk_gc_policy;

typedef struct sk_gc_result {
	int images_removed;
	int blobs_removed;
	int snapshots_removed;
	int64_t bytes_freed;
} sk_gc_result;

/* Removes least recently used images while the filesystem holding the store is
 * above high (until below low), never an image whose id is in in_use (an
 * array of "sha256:.." strings, or NULL) nor one a container rootfs uses;
 * then deletes blobs and snapshots no remaining image references. Fails with
 * SK_ECONFLICT (nothing done) while a pull, import or rootfs preparation runs
 * on this store in any process: call again later. */
int sk_image_gc(sk_image_store *s, const sk_gc_policy *policy, json_t *in_use, sk_gc_result *res, sk_error_t *err);
/* Only the second half: frees unreferenced blobs and snapshots. */
int sk_image_prune(sk_image_store *s, sk_gc_result *res, sk_error_t *err);

/* ---- parsing, exposed for the fuzzers ---------------------------------------- */

typedef struct sk_image_desc {
	char *media_type;
	char digest[72];
	int64_t size;
	char *os, *arch, *variant; /* index entries only */
} sk_image_desc;

typedef struct sk_image_manifest {
	int is_index; /* index / manifest list: `manifests` used */
	char *media_type;
	sk_image_desc config;
	sk_image_desc *layers; /* or the index's manifests */
	size_t n_layers;
} sk_image_manifest;

/* Parses an OCI/Docker schema 2 manifest or index/manifest list. */
int sk_image_manifest_parse(const char *data, size_t len, sk_image_manifest *out, sk_error_t *err);
void sk_image_manifest_release(sk_image_manifest *m);
/* Picks the index entry for platform "os/arch[/variant]"; -1 when none. */
int sk_image_manifest_select(const sk_image_manifest *idx, const char *platform);

#endif
