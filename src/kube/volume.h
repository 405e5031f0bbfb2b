/* PersistentVolume and PersistentVolumeClaim rules, as upstream's
 * component-helpers/storage/volume and the PV controller's index.go
 * (findMatchingVolume): classes, access modes, binding references and the
 * choice of a volume for a claim. Shared by the PV controller, the
 * scheduler's volume binding and the admission plugins. */
#ifndef SK_KUBE_VOLUME_H
#define SK_KUBE_VOLUME_H

#include <jansson.h>
#include <stdbool.h>

#define SK_ANN_BIND_COMPLETED "pv.kubernetes.io/bind-completed"
#define SK_ANN_BOUND_BY_CONTROLLER "pv.kubernetes.io/bound-by-controller"
#define SK_ANN_PROVISIONED_BY "pv.kubernetes.io/provisioned-by"
#define SK_ANN_SELECTED_NODE "volume.kubernetes.io/selected-node"
#define SK_ANN_STORAGE_PROVISIONER "volume.kubernetes.io/storage-provisioner"
#define SK_ANN_BETA_STORAGE_PROVISIONER "volume.beta.kubernetes.io/storage-provisioner"
#define SK_ANN_DEFAULT_CLASS "storageclass.kubernetes.io/is-default-class"
#define SK_ANN_BETA_DEFAULT_CLASS "storageclass.beta.kubernetes.io/is-default-class"
#define SK_ANN_BETA_CLASS "volume.beta.kubernetes.io/storage-class"
#define SK_FINALIZER_PVC_PROTECTION "kubernetes.io/pvc-protection"
#define SK_FINALIZER_PV_PROTECTION "kubernetes.io/pv-protection"

/* GetPersistentVolume(Claim)Class: the beta annotation, else
 * spec.storageClassName, else "" (no class). Borrowed from obj. */
const char *sk_kube_volume_class(json_t *obj);
/* Whether the claim names a class at all (storageClassName set, even to
 * "", or the beta annotation): DefaultStorageClass leaves it alone. */
bool sk_kube_claim_has_class(json_t *pvc);
/* IsDefaultAnnotation: either default-class annotation is "true". */
bool sk_kube_class_is_default(json_t *sc);
/* IsVolumeBoundToClaim: pv's claimRef names the claim (and its uid, when set). */
bool sk_kube_pv_bound_to_claim(json_t *pv, json_t *pvc);
/* Whether every access mode of the claim is one of the volume's. */
bool sk_kube_access_modes_contain(json_t *pv_modes, json_t *pvc_modes);
/* checkVolumeSatisfyClaim: NULL when pv can serve pvc, else upstream's
 * reason ("requested PV is too small", "storageClassName does not match",
 * "incompatible volumeMode", "incompatible accessMode"), static. */
const char *sk_kube_pv_satisfies_claim(json_t *pv, json_t *pvc);
/* Whether the volume's required node affinity admits the node (a Node
 * object); a volume without one admits every node. */
bool sk_kube_pv_matches_node(json_t *pv, json_t *node_labels, const char *node_name);
/* findMatchingVolume: the index in pvs of the volume for pvc, or -1: a
 * volume already bound to the claim wins; otherwise the Available,
 * unclaimed volumes of the claim's class, selector, volume mode and access
 * modes with enough capacity, fewest access modes first, then the smallest.
 * delay_binding (WaitForFirstConsumer without a selected node) considers
 * only volumes bound to the claim. node_labels/node_name (NULL: any node)
 * also require the volume's node affinity to admit that node. */
int sk_kube_pv_find_match(json_t *pvs, json_t *pvc, bool delay_binding, json_t *node_labels, const char *node_name);

#endif
