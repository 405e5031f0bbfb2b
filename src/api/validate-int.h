/* Private to the validation module: error-list building and field paths. */
#ifndef SK_API_VALIDATE_INT_H
#define SK_API_VALIDATE_INT_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

struct sk__verr {
	json_t *causes; /* array of {reason, message, field} */
};

/* Field paths: "spec.containers" + child → "spec.containers.x";
 * index → "spec.containers[0]"; key → "data[k]". Caller frees. */
char *sk__vchild(const char *base, const char *name);
char *sk__vindex(const char *base, size_t i);
char *sk__vkey(const char *base, const char *key);

/* Go's %q of s; caller frees. Go's rendering of a bad value (strings
 * quoted, numbers plain, string maps as map[string]string{…}); caller frees. */
char *sk__vquote(const char *s);
char *sk__vrepr(json_t *v);

void sk__vrequired(struct sk__verr *e, const char *field, const char *detail);
void sk__vinvalid(struct sk__verr *e, const char *field, json_t *value, const char *detail);
/* repr: the value as Go prints it (a %#v the caller made). */
void sk__vinvalid_repr(struct sk__verr *e, const char *field, const char *repr, const char *detail);
void sk__vinvalid_str(struct sk__verr *e, const char *field, const char *value, const char *detail);
void sk__vinvalid_int(struct sk__verr *e, const char *field, int64_t value, const char *detail);
/* supported: NULL-terminated, printed in the given order. */
void sk__vnot_supported(struct sk__verr *e, const char *field, json_t *value, const char *const *supported);
/* supported: any JSON values, each shown as sk__vrepr does. */
void sk__vnot_supported_json(struct sk__verr *e, const char *field, json_t *value, json_t *supported);
void sk__vtoo_many(struct sk__verr *e, const char *field, int64_t actual, int64_t max);
void sk__vduplicate(struct sk__verr *e, const char *field, json_t *value);
/* the value already in Go's %#v form */
void sk__vduplicate_repr(struct sk__verr *e, const char *field, const char *repr);
void sk__vnot_found(struct sk__verr *e, const char *field, json_t *value);
void sk__vforbidden(struct sk__verr *e, const char *field, const char *detail);
void sk__vtoo_long(struct sk__verr *e, const char *field, int64_t max);

/* ObjectMeta checks (names as DNS subdomains) for kinds outside the
 * validators table: CRDs and custom objects. */
void sk__validate_object_meta(struct sk__verr *e, json_t *o, bool namespaced);
/* The same with names as path segments (RBAC's ValidateRBACName). */
void sk__validate_object_meta_path(struct sk__verr *e, json_t *o, bool namespaced);
/* path.ValidatePathSegmentName of name at field. */
void sk__validate_path_segment(struct sk__verr *e, const char *field, const char *name);
/* metav1validation.ValidateLabelSelector of sel at path p. */
void sk__validate_label_selector(struct sk__verr *e, json_t *sel, const char *p);
void sk__validate_object_meta_update(struct sk__verr *e, json_t *o, json_t *old);

#endif
