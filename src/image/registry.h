/* Registry client for the OCI distribution API (libcurl): /v2/ ping, bearer
 * token and basic auth, manifests, blobs streamed to disk with resume. One
 * sk__registry is shared by the threads of a pull (the token is guarded). */
#ifndef SK_IMAGE_REGISTRY_H
#define SK_IMAGE_REGISTRY_H

#include <stdint.h>

#include "image/image-int.h"

struct sk__registry;

/* Opens a client for ref's repository: picks credentials from opts->auths,
 * HTTPS or (for loopback/insecure registries) plain HTTP, pings /v2/ and
 * answers its auth challenge. Free with sk__img_registry_free. */
struct sk__registry *sk__img_registry_open(const sk_image_ref *ref, const sk_pull_options *opts, sk_error_t *err);
void sk__img_registry_free(struct sk__registry *r);

/* GETs a manifest by tag or digest. *body (malloc'd, caller frees), its
 * length, and the Content-Type (malloc'd or NULL) on success. */
int sk__img_registry_manifest(struct sk__registry *r, const char *reference, char **body, size_t *len,
			      char **content_type, sk_error_t *err);
/* GETs a small blob (config) into memory, verified against digest. */
int sk__img_registry_blob_mem(struct sk__registry *r, const char *digest, char **body, size_t *len, sk_error_t *err);
/* Streams a blob into path (appending to what an earlier attempt left there,
 * with a Range request), verifies it, retries up to opts->retries times.
 * *fetched gets the bytes transferred now. */
int sk__img_registry_blob_file(struct sk__registry *r, const sk_image_desc *d, const char *path, int64_t *fetched,
			       sk_error_t *err);

/* Credentials for host from dockerconfigjson documents: malloc'd user and
 * pass (caller frees) and 0, or -1 when none match. */
int sk__img_auth_find(json_t *const *auths, size_t n, const char *host, char **user, char **pass);

#endif
