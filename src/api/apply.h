/* Server-side apply and managedFields (after k8s.io/apiserver's
 * fieldmanager and sigs.k8s.io/structured-merge-diff), simplified.
 *
 * Field sets are stored in metadata.managedFields as upstream encodes
 * them: fieldsType "FieldsV1", fieldsV1 a tree of "f:<field>",
 * "k:{<merge key JSON>}" (list items by merge key), "v:<JSON>" (set
 * members) and "." (the node itself). Merge keys come from the strategic
 * merge table (patch.h); lists with several upstream map keys (container
 * ports: containerPort+protocol) are keyed by the first one only. Fields
 * upstream never tracks are left out: apiVersion, kind, metadata.name,
 * .namespace, .uid, .resourceVersion, .generation, .creationTimestamp,
 * .selfLink, .managedFields, .deletionTimestamp,
 * .deletionGracePeriodSeconds; and status for the main resource (the
 * "status" subresource tracks only status). */
#ifndef SK_API_APPLY_H
#define SK_API_APPLY_H

#include <jansson.h>

#include "util/error.h"

/* Applies `applied` (the body of a PATCH application/apply-patch+yaml, an
 * object with apiVersion and kind) for manager to live (NULL when the
 * object does not exist yet) and returns the new object (caller decrefs);
 * neither input is modified. Fields in applied are set (maps merge, lists
 * with a merge key merge by key, other lists are replaced); fields this
 * manager applied before (its "Apply" entry) but no longer applies are
 * removed unless another manager also owns them; applied "status" is
 * ignored. metadata.managedFields is updated: the manager's entry
 * (operation "Apply", apiVersion of applied, time, fieldsV1) holds exactly
 * the applied fields; its time changes only when something changed.
 *
 * Conflicts: a field applied with a value different from the live one
 * while another manager owns it fails with SK_ECONFLICT and upstream's
 * message, e.g.
 *   Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using apps/v1: .spec.replicas
 * unless force is set, in which case the other managers lose those fields.
 * A live object without managedFields first has all its fields given to
 * the manager "before-first-apply" (operation Update), as upstream does.
 * Other errors: SK_EBADREQUEST when applied is not an object or carries
 * metadata.managedFields ("metadata.managedFields must be nil"). */
json_t *sk_apply(json_t *live, json_t *applied, const char *kind, const char *manager, int force, sk_error_t *err);
/* sk_apply for a custom kind: merge keys and list and map types from its
 * CRD version's openAPIV3Schema (borrowed) as structured-merge-diff reads
 * it: x-kubernetes-list-type atomic (the default: the list is one field),
 * set (each scalar owned, "v:..."), map with x-kubernetes-list-map-keys
 * (items merged by key and owned "k:{...}" with the keys sorted, their
 * fields separately); x-kubernetes-map-type atomic
 * objects are replaced and owned whole; fields the schema does not name
 * (x-kubernetes-preserve-unknown-fields) are deduced: maps granular, lists
 * atomic. metadata is ObjectMeta (finalizers a set, ownerReferences keyed
 * by uid). A NULL schema merges maps and replaces lists. */
json_t *sk_apply_schema(json_t *live, json_t *applied, json_t *schema, const char *manager, int force, sk_error_t *err);

/* Records a non-apply write (POST, PUT, PATCH) by manager in
 * new_obj.metadata.managedFields, modifying new_obj in place. old is the
 * stored object before the write (NULL on create). The manager's "Update"
 * entry for (api_version, subresource) gains every field the write added
 * or changed, other entries lose the fields it changed or removed, empty
 * entries disappear (and an empty list removes managedFields). subresource
 * is NULL or "" for the main resource, else e.g. "status"; the entry then
 * carries "subresource". If new_obj has no managedFields (clients that do
 * not know them), old's are carried over first, as upstream does. */
void sk_managed_fields_update(json_t *old, json_t *new_obj, const char *manager, const char *api_version,
			      const char *subresource);
/* sk_managed_fields_update for a custom kind: lists, maps and keys read
 * from schema (borrowed) as sk_apply_schema reads them. */
void sk_managed_fields_update_schema(json_t *old, json_t *new_obj, json_t *schema, const char *manager,
				     const char *api_version, const char *subresource);

#endif
