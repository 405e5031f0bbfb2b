/* Defaulting of API objects as upstream's SetDefaults_* functions (and the
 * admission plugins that always run) do, so that objects read back look
 * like Kubernetes' own. All functions modify the object in place; obj is
 * borrowed. Unknown kinds and wrongly typed fields are left alone (run
 * sk_schema_check_types first). */
#ifndef SK_API_DEFAULTS_H
#define SK_API_DEFAULTS_H

#include <jansson.h>

#include "util/error.h"

struct sk_api_resource;

/* The defaults hooks of the built-in kinds' descriptors (sk_kind_ops.defaults,
 * src/api/kinds/): decode-time defaulting and the create-time strategy
 * defaults that do not need server state, for the kind and the templates
 * inside it. The Secret's also folds stringData into data (base64) and
 * drops stringData, as upstream's conversion does. Idempotent. */
void sk__defaults_pod(const struct sk_api_resource *r, json_t *obj);
void sk__defaults_deployment(const struct sk_api_resource *r, json_t *obj);
void sk__defaults_replicaset(const struct sk_api_resource *r, json_t *obj);
void sk__defaults_daemonset(const struct sk_api_resource *r, json_t *obj);
void sk__defaults_replicationcontroller(const struct sk_api_resource *r, json_t *obj);
void sk__defaults_statefulset(const struct sk_api_resource *r, json_t *obj);
void sk__defaults_job(const struct sk_api_resource *r, json_t *obj);
void sk__defaults_cronjob(const struct sk_api_resource *r, json_t *obj);
void sk__defaults_service(const struct sk_api_resource *r, json_t *obj);
void sk__defaults_namespace(const struct sk_api_resource *r, json_t *obj);
void sk__defaults_node(const struct sk_api_resource *r, json_t *obj);
void sk__defaults_endpoints(const struct sk_api_resource *r, json_t *obj);
void sk__defaults_endpointslice(const struct sk_api_resource *r, json_t *obj);
void sk__defaults_networkpolicy(const struct sk_api_resource *r, json_t *obj);
void sk__defaults_persistentvolume(const struct sk_api_resource *r, json_t *obj);
void sk__defaults_persistentvolumeclaim(const struct sk_api_resource *r, json_t *obj);
void sk__defaults_storageclass(const struct sk_api_resource *r, json_t *obj);
void sk__defaults_secret(const struct sk_api_resource *r, json_t *obj);
void sk__defaults_priorityclass(const struct sk_api_resource *r, json_t *obj);

/* Runs the defaults hook of the built-in kind named kind (looked up in the
 * kind registry; for tests and fuzz targets); nothing for other kinds. */
void sk_defaults_apply(const char *kind, json_t *obj);

/* Pod create admission (DefaultTolerationSeconds): adds NoExecute
 * tolerations for node.kubernetes.io/not-ready and unreachable with
 * tolerationSeconds 300 unless the pod already tolerates them. */
void sk_defaults_pod_tolerations(json_t *pod);

/* Pod create admission (Priority): priority_class is the PriorityClass the
 * pod names (or the global default), NULL when none; sets spec.priority
 * (class value or 0) and spec.preemptionPolicy when absent. The API server
 * rejects an unknown priorityClassName before calling this. */
void sk_defaults_pod_priority(json_t *pod, json_t *priority_class);

/* Job create (after metadata.uid is set), upstream's generateSelector:
 * unless spec.manualSelector is true, adds to the pod template the labels
 * batch.kubernetes.io/controller-uid, batch.kubernetes.io/job-name,
 * controller-uid and job-name, and to spec.selector.matchLabels
 * batch.kubernetes.io/controller-uid, each only where the user did not set
 * it (a conflicting value is then rejected by sk_validate with "`selector`
 * not auto-generated"); copies template labels to metadata.labels when
 * those are empty, as upstream's re-decode does. Returns -1 with
 * SK_EINVALID when the uid is missing. */
int sk_defaults_job_selector(json_t *job, sk_error_t *err);

/* The pod-template defaults (SetDefaults_PodSpec and everything below it),
 * for callers building pods from templates. */
void sk_defaults_pod_spec(json_t *spec);

#endif
