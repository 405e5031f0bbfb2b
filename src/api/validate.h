/* Validation of API objects with upstream's rules and messages
 * (pkg/apis/core/validation and friends, apimachinery
 * pkg/util/validation). */
#ifndef SK_API_VALIDATE_H
#define SK_API_VALIDATE_H

#include <jansson.h>

/* Validates obj (already defaulted, with its name and namespace set) of
 * kind; old is the stored object on update, NULL on create. Returns NULL
 * when valid, else a new JSON array (caller decrefs) of causes in upstream
 * order: {"reason":"FieldValueRequired|FieldValueInvalid|
 * FieldValueNotSupported|FieldValueDuplicate|FieldValueTooLong|
 * FieldValueForbidden|FieldValueNotFound","message":"Required value",
 * "field":"spec.containers[0].image"}.
 *
 * Not checked here (the API server does it): that the namespace matches the
 * URL, that the kind is served, resourceVersion preconditions, references to
 * other objects (priorityClassName, runtimeClassName existence). */
json_t *sk_validate(const char *kind, json_t *obj, json_t *old);

/* Validation of writes to the status (and binding) subresources, where
 * upstream checks only what the subresource may change: metadata name,
 * namespace, uid and creationTimestamp stay as they were. Do not run
 * sk_validate's update rules there: a status write or a binding must not
 * trip "pod updates may not change fields other than …". Same return
 * convention as sk_validate. */
json_t *sk_validate_status(const char *kind, json_t *obj, json_t *old);
/* pods/ephemeralcontainers (upstream's ValidatePodEphemeralContainersUpdate):
 * the pod as a whole, then existing ephemeral containers neither removed
 * nor changed. NULL when valid. */
json_t *sk_validate_pod_ephemeral(json_t *obj, json_t *old);

/* Status message for a 422 Invalid reply, upstream style; caller frees:
 *   Pod "x" is invalid: spec.containers[0].image: Required value
 *   Deployment.apps "d" is invalid: [spec.selector: Required value, …]
 * (the kind is qualified with its group outside the core group; identical
 * messages are listed once). */
char *sk_validate_message(const char *kind, const char *name, json_t *causes);
/* The same for a kind of the given group ("" core, NULL unknown). */
char *sk_validate_message_group(const char *kind, const char *group, const char *name, json_t *causes);

/* Building blocks shared with the API server: each returns NULL when s is
 * valid, else upstream's message (static string or one the caller frees
 * where noted). */
/* DNS-1123 subdomain ("must be no more than 253 characters" or the format
 * message). */
const char *sk_validate_dns1123_subdomain(const char *s);
const char *sk_validate_dns1123_label(const char *s);
const char *sk_validate_dns1035_label(const char *s);
/* The messages of apimachinery's named string validations that Kubernetes'
 * CEL format library exposes (format: "dns1123Label", "dns1123Subdomain",
 * "dns1035Label", their "...Prefix" forms, "qualifiedName", "labelValue")
 * for s: a new array, empty when s is valid; NULL for another format. */
json_t *sk_validate_named_format(const char *format, const char *s);

#endif
