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

struct sk__verr;

/* Evaluates the x-kubernetes-validations rules (CEL) of schema over obj,
 * old the object before an update (NULL on create); their causes are
 * appended to causes (crcel.c). A cause with "warning": true is a ratcheted
 * error (an unchanged value): the API layer answers it as a Warning header. */
void sk_crschema_validate_rules(json_t *schema, json_t *obj, json_t *old, json_t *causes);
/* The CRD's checks of the rules at schema node s (path: its field path in
 * the CRD; root: the openAPIV3Schema itself): each compiles, messages and
 * reasons are valid, oldSelf only where uncorrelatable is NULL (else the
 * path of the list whose items cannot be correlated), and no rule's cost
 * times card (how many values the node may have in one object) surely
 * exceeds upstream's estimated cost limit. */
void sk__crschema_check_rules(struct sk__verr *e, json_t *s, const char *path, int root, const char *uncorrelatable,
			      double card);
/* The node's default and enum values against the rules of its subtree
 * (upstream's CRD validation runs them too): causes at path.default and
 * path.enum[i]. */
void sk__crschema_check_values(struct sk__verr *e, json_t *s, const char *path);

#endif
