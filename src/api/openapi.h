/* OpenAPI v3 documents generated from the schema tables (schema.h), as
 * served under /openapi/v3. Built once, on first use, and cached; safe to
 * call from several threads. */
#ifndef SK_API_OPENAPI_H
#define SK_API_OPENAPI_H

#include <jansson.h>

/* The discovery index, a new reference (caller decrefs):
 *   {"paths":{"api":{…},"apis":{…},"api/v1":{"serverRelativeURL":"/openapi/v3/api/v1?hash=H"},
 *             "apis/apps/v1":{…},…}}
 * H is the hash of that document (sk_openapi_doc_text). */
json_t *sk_openapi_index(void);

/* The OpenAPI 3.0 document for gv_path ("api/v1", "apis/apps/v1", "api",
 * "apis"), a new reference the caller decrefs, or NULL when unknown. The
 * document has components.schemas under upstream names with
 * x-kubernetes-group-version-kind, and a path per resource operation; every
 * PATCH carries x-kubernetes-group-version-kind and a fieldValidation query
 * parameter, and lists no strategic-merge-patch content type. */
json_t *sk_openapi_doc(const char *gv_path);

/* The same document serialized (compact JSON), and its hash (upper-case
 * hex) in *hash when hash is not NULL. Both strings are owned by the cache
 * and live until exit; NULL when gv_path is unknown. */
const char *sk_openapi_doc_text(const char *gv_path, const char **hash);

/* The OpenAPI v2 document served under /openapi/v2 (openapi-v2.c): every
 * built-in group version's schemas as Swagger 2.0 definitions, no paths. As compact
 * JSON, or as gnostic's openapi_v2.Document protobuf (what client-go asks
 * for). Owned by a cache that lives until exit; *len gets the size. */
const char *sk_openapi_v2_json(size_t *len);
const unsigned char *sk_openapi_v2_protobuf(size_t *len);

/* A served custom kind for the v2 document: its definition name
 * ("<reversed group>.<version>.<Kind>") and openAPIV3Schema (borrowed). */
typedef struct sk_openapi_custom_kind {
	const char *name, *group, *version, *kind;
	json_t *schema;
} sk_openapi_custom_kind;

/* The v2 document with the definitions of kinds added (each kind's schema
 * with apiVersion, kind, metadata and x-kubernetes-group-version-kind, and
 * its List): JSON, or protobuf when protobuf is set. Caller frees; *len
 * gets the size. */
char *sk_openapi_v2_render(const sk_openapi_custom_kind *kinds, size_t n, int protobuf, size_t *len);

#endif
