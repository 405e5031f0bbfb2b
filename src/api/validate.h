/* Validation of API objects with upstream's rules and messages
 * (pkg/apis/core/validation and friends, apimachinery
 * pkg/util/validation). */
#ifndef SK_API_VALIDATE_H
#define SK_API_VALIDATE_H

#include <jansson.h>

/* Validates obj (already defaulted, with its name and namespace set) of the
 * built-in kind named kind with its descriptor's validate hook (looked up in
 * the kind registry; for tests and fuzz targets); old is the stored object
 * on update, NULL on create. Returns NULL when valid, else a new JSON array (caller decrefs) of causes in upstream
 * order: {"reason":"FieldValueRequired|FieldValueInvalid|
 * FieldValueNotSupported|FieldValueDuplicate|FieldValueTooLong|
 * FieldValueForbidden|FieldValueNotFound","message":"Required value",
 * "field":"spec.containers[0].image"}.
 *
 * Not checked here (the API server does it): that the namespace matches the
 * URL, that the kind is served, resourceVersion preconditions, references to
 * other objects (priorityClassName, runtimeClassName existence). */
json_t *sk_validate(const char *kind, json_t *obj, json_t *old);

struct sk_api_resource;

/* The validate hooks of the built-in kinds' descriptors (sk_kind_ops.validate,
 * src/api/kinds/): sk_validate's rules for the kind; status_sub non-zero (a
 * write through /status) checks only what sk_validate_status checks. */
json_t *sk__validate_pod(const struct sk_api_resource *r, json_t *obj, json_t *old, int status_sub);
json_t *sk__validate_deployment(const struct sk_api_resource *r, json_t *obj, json_t *old, int status_sub);
json_t *sk__validate_replicaset(const struct sk_api_resource *r, json_t *obj, json_t *old, int status_sub);
json_t *sk__validate_daemonset(const struct sk_api_resource *r, json_t *obj, json_t *old, int status_sub);
json_t *sk__validate_replicationcontroller(const struct sk_api_resource *r, json_t *obj, json_t *old, int status_sub);
json_t *sk__validate_poddisruptionbudget(const struct sk_api_resource *r, json_t *obj, json_t *old, int status_sub);
json_t *sk__validate_statefulset(const struct sk_api_resource *r, json_t *obj, json_t *old, int status_sub);
json_t *sk__validate_controllerrevision(const struct sk_api_resource *r, json_t *obj, json_t *old, int status_sub);
json_t *sk__validate_job(const struct sk_api_resource *r, json_t *obj, json_t *old, int status_sub);
json_t *sk__validate_cronjob(const struct sk_api_resource *r, json_t *obj, json_t *old, int status_sub);
json_t *sk__validate_service(const struct sk_api_resource *r, json_t *obj, json_t *old, int status_sub);
json_t *sk__validate_configmap(const struct sk_api_resource *r, json_t *obj, json_t *old, int status_sub);
json_t *sk__validate_secret(const struct sk_api_resource *r, json_t *obj, json_t *old, int status_sub);
json_t *sk__validate_serviceaccount(const struct sk_api_resource *r, json_t *obj, json_t *old, int status_sub);
json_t *sk__validate_resourcequota(const struct sk_api_resource *r, json_t *obj, json_t *old, int status_sub);
json_t *sk__validate_endpoints(const struct sk_api_resource *r, json_t *obj, json_t *old, int status_sub);
json_t *sk__validate_endpointslice(const struct sk_api_resource *r, json_t *obj, json_t *old, int status_sub);
json_t *sk__validate_networkpolicy(const struct sk_api_resource *r, json_t *obj, json_t *old, int status_sub);
json_t *sk__validate_event(const struct sk_api_resource *r, json_t *obj, json_t *old, int status_sub);
json_t *sk__validate_namespace(const struct sk_api_resource *r, json_t *obj, json_t *old, int status_sub);
json_t *sk__validate_node(const struct sk_api_resource *r, json_t *obj, json_t *old, int status_sub);
json_t *sk__validate_lease(const struct sk_api_resource *r, json_t *obj, json_t *old, int status_sub);
json_t *sk__validate_priorityclass(const struct sk_api_resource *r, json_t *obj, json_t *old, int status_sub);
json_t *sk__validate_runtimeclass(const struct sk_api_resource *r, json_t *obj, json_t *old, int status_sub);
json_t *sk__validate_podgroup(const struct sk_api_resource *r, json_t *obj, json_t *old, int status_sub);
json_t *sk__validate_storageclass(const struct sk_api_resource *r, json_t *obj, json_t *old, int status_sub);
json_t *sk__validate_persistentvolumeclaim(const struct sk_api_resource *r, json_t *obj, json_t *old, int status_sub);
json_t *sk__validate_persistentvolume(const struct sk_api_resource *r, json_t *obj, json_t *old, int status_sub);

/* The bodies of the binding, scale and eviction subresources (not kinds of
 * their own): same return convention as sk_validate. */
json_t *sk_validate_binding(json_t *obj);
json_t *sk_validate_scale(json_t *obj);
json_t *sk_validate_eviction(json_t *obj);

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
