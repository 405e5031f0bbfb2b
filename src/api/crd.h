/* CustomResourceDefinitions (crd.c) and custom objects (custom.c). */
#ifndef SK_API_CRD_H
#define SK_API_CRD_H

#include "api/api-int.h"
#include "kube/selector.h"

#define SK_CRD_FINALIZER "customresourcecleanup.apiextensions.k8s.io"

/* The behaviour of the CustomResourceDefinition kind and of custom kinds. */
extern const sk_kind_ops sk__crd_ops;
extern const sk_kind_ops sk__custom_ops;

/* Whether r is the CustomResourceDefinition kind itself. */
int sk__is_crd(const sk_api_resource *r);
/* names.singular, names.listKind, conversion.strategy. */
void sk__crd_default(json_t *crd);
/* Causes ({reason, message, field}) or NULL; old on update. */
json_t *sk__crd_validate(json_t *crd, json_t *old);
/* Sets status (acceptedNames, NamesAccepted, Established, storedVersions)
 * from spec; old's status is the starting point on update. */
void sk__crd_status(sk_api *api, json_t *crd, json_t *old);
/* On DELETE: the cleanup finalizer and the Terminating condition. */
void sk__crd_mark_deleting(json_t *crd);
/* Rebuilds the registry's custom kinds from the stored CRDs and starts the
 * cleanup of those being deleted. */
void sk__crd_sync(sk_api *api);
/* Counts cleanup threads (api: one more; NULL: one ended). */
void sk__crd_cleanup_done(sk_api *api);
/* Starts the thread that applies CRD changes seen in the store's watch. */
void sk__crd_start(sk_api *api);
/* Ends cleanup threads (waits for them) and drops the custom kinds. */
void sk__crd_stop(sk_api *api);

/* Custom objects (custom.c): causes or NULL; schema defaults; 405 while the
 * CRD is being deleted. */
json_t *sk__custom_validate(const sk_api_resource *r, json_t *obj, json_t *old, int status_sub);
void sk__custom_default(const sk_api_resource *r, json_t *obj);
/* Drops the fields the schema does not name; their paths (caller frees). */
json_t *sk__custom_prune(const sk_api_resource *r, json_t *obj);
/* Server-side apply of a custom object: sk_apply_schema with the schema of
 * r's version (list and map types, merge keys). */
json_t *sk__custom_apply(const sk_api_resource *r, json_t *live, json_t *applied, const char *manager, int force,
			 sk_error_t *err);
/* sk_managed_fields_update_schema with the schema of r's version. */
void sk__custom_managed_fields_update(const sk_api_resource *r, json_t *old, json_t *new_obj, const char *manager,
				      const char *api_version, const char *subresource);
/* The autoscaling/v1 Scale of obj from the CRD's scale paths (new ref);
 * sets the specReplicasPath value (0, or -1 without a scale subresource). */
json_t *sk__custom_scale(const sk_api_resource *r, json_t *obj);
int sk__custom_set_replicas(const sk_api_resource *r, json_t *obj, json_t *replicas);
/* Checks a field selector's fields against metadata.name,
 * metadata.namespace and the version's selectableFields (400 "field label
 * not supported: x" for others). */
int sk__custom_field_check(const sk_api_resource *r, sk_kube_field_selector *sel, sk_error_t *err);
/* Table columns and one row's cells: Name, then additionalPrinterColumns
 * (or Age when there are none). */
json_t *sk__custom_table_columns(const sk_api_resource *r);
json_t *sk__custom_table_cells(const sk_api_resource *r, json_t *obj, int64_t now);
/* The first value a simple JSONPath (".a.b", "[0]", "[?(@.k==\"v\")]") finds
 * in v (borrowed), or NULL. */
json_t *sk__jsonpath_get(json_t *v, const char *path);

#endif
