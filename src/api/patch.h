/* Patches the API server applies to stored objects: JSON merge patch
 * (RFC 7386), JSON patch (RFC 6902) and Kubernetes strategic merge patch.
 *
 * No function here modifies its inputs; each returns a new reference the
 * caller owns (json_decref), or NULL with err set. */
#ifndef SK_API_PATCH_H
#define SK_API_PATCH_H

#include <jansson.h>

#include "util/error.h"

/* Upstream limit on operations in one JSON patch (apiserver patch.go). */
#define SK_JSON_PATCH_MAX_OPS 10000

/* RFC 7386: objects merge recursively, null deletes a key, anything else
 * (arrays, scalars, a non-object patch) replaces. Never fails. */
json_t *sk_merge_patch(json_t *target, json_t *patch);

/* RFC 6902 as upstream's evanphx/json-patch applies it: add, remove,
 * replace, move, copy, test; JSON pointers with ~0/~1; "-" appends; array
 * indexes may be negative (counted from the end) like upstream; the path ""
 * (whole document) does not apply, as in upstream's v4 json-patch; a
 * missing "value" counts as null. Messages are upstream's.
 * Errors:
 *   SK_EBADREQUEST  ops is not an array of objects (upstream 400);
 *   SK_ETOOLARGE    more than SK_JSON_PATCH_MAX_OPS operations (413);
 *   SK_EINVALID     an operation does not apply: missing path, failed test,
 *                   unknown op (upstream 422). Upstream's Status then has
 *                   message "the server rejected our request due to an
 *                   error in our request" and err.msg as details.causes[0]
 *                   .message, e.g. "testing value /spec/replicas failed:
 *                   test failed". */
json_t *sk_json_patch(json_t *doc, json_t *ops, sk_error_t *err);

/* Kubernetes strategic merge patch of original (an object) by patch (an
 * object), using the merge strategies of kind ("Pod", "Deployment"...; see
 * the table in patch.c). Handles null (delete key), merge-keyed lists,
 * merged primitive lists, and the directives $patch (replace, delete; and
 * merge, which lists reject as upstream), $retainKeys, $setElementOrder/F
 * and $deleteFromPrimitiveList/F. Lists without a merge strategy are
 * replaced. For an unknown kind (or NULL) maps merge and lists replace.
 * Errors: SK_EBADREQUEST with upstream's message for a malformed patch
 * ("invalid patch format of retainKeys", "map: {...} does not contain
 * declared merge key: name", "unknown patch type: x in map: {...}"). */
json_t *sk_strategic_merge_patch(json_t *original, json_t *patch, const char *kind, sk_error_t *err);

/* ---- shared with apply.c: the merge-strategy table ---- */

/* Patch metadata of one field inside a type of the table. */
struct sk__patch_meta {
	const char *type;      /* type name of the field's value or list elements; NULL if untyped */
	int merge;             /* 1: list with patchStrategy merge */
	const char *merge_key; /* patchMergeKey for lists of maps, else NULL */
	int atomic;            /* 1: a +structType=atomic struct (server-side apply owns it whole) */
	json_t *merge_keys;    /* apply.c's CRD lists with several x-kubernetes-list-map-keys (borrowed), else NULL */
};

/* The table type of a kind's top level, or NULL for kinds without one. */
const char *sk__patch_kind_type(const char *kind);
/* Fills meta for field of type (NULL type: all zero). Returns 1 when the
 * table knows the field, else 0 (meta zeroed). */
int sk__patch_lookup(const char *type, const char *field, struct sk__patch_meta *meta);

#endif
