/* Structural schemas of custom objects (crschema.c). */
#ifndef SK_API_CRSCHEMA_H
#define SK_API_CRSCHEMA_H

#include <jansson.h>

/* Checks obj against schema (an openAPIV3Schema); causes ({reason, message,
 * field}, as the 422 Status lists them) or NULL when valid. apiVersion, kind
 * and metadata of the root are not checked. Caller frees. */
json_t *sk_crschema_validate(json_t *schema, json_t *obj);
/* Removes the fields schema does not name (unless x-kubernetes-preserve-
 * unknown-fields); returns their paths ("spec.foo"), caller frees. */
json_t *sk_crschema_prune(json_t *schema, json_t *obj);
/* Sets each absent property that has a default to a copy of it. */
void sk_crschema_default(json_t *schema, json_t *obj);

#endif
