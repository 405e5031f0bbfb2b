/* Reading Kubernetes objects: dotted paths and owner references (the
 * controllerRef of apimachinery's metav1.GetControllerOf). */
#ifndef SK_KUBE_OBJECT_H
#define SK_KUBE_OBJECT_H

#include <jansson.h>

/* The value at a dotted path of object keys ("status.conditions"),
 * borrowed, or NULL when a step is missing or not an object. */
json_t *sk_kube_jget(json_t *o, const char *path);
/* The string at path, or NULL when absent or no string. Borrowed. */
const char *sk_kube_jstr(json_t *o, const char *path);
/* The object at path, created (as {}) where a step is missing or no object.
 * Borrowed; NULL only when o is no object. */
json_t *sk_kube_jobj(json_t *o, const char *path);

/* The ownerReference with controller: true (borrowed), or NULL. */
json_t *sk_kube_controller_ref(json_t *obj);
/* 1 when obj's controller reference has the uid uid. */
int sk_kube_controlled_by(json_t *obj, const char *uid);

#endif
