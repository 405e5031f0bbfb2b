/* The Pod Security Standards, as upstream's k8s.io/pod-security-admission
 * (v1.32): the privileged, baseline and restricted levels, their checks and
 * each check's version history, the namespace labels
 * (pod-security.kubernetes.io/enforce|audit|warn[-version]) and the texts
 * upstream gives (`privileged (container "c" must not set
 * securityContext.privileged=true), …`). Pure: objects in, texts out. */
#ifndef SK_KUBE_PODSECURITY_H
#define SK_KUBE_PODSECURITY_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

typedef enum {
	SK_PSA_PRIVILEGED,
	SK_PSA_BASELINE,
	SK_PSA_RESTRICTED,
} sk_psa_level;

/* The policy version whose checks apply: "latest" or v1.N. */
#define SK_PSA_LATEST (-1)
/* The newest version any check has (later ones evaluate as this one). */
#define SK_PSA_MAX_MINOR 32

typedef struct sk_psa_lv {
	sk_psa_level level;
	int64_t minor; /* SK_PSA_LATEST or N of v1.N */
} sk_psa_lv;

typedef struct sk_psa_policy {
	sk_psa_lv enforce, audit, warn;
} sk_psa_policy;

#define SK_PSA_LABEL_PREFIX "pod-security.kubernetes.io/"

/* "privileged", "baseline", "restricted" (static). */
const char *sk_psa_level_name(sk_psa_level l);
/* 0 with *out, or -1 for anything else (upstream's ParseLevel). */
int sk_psa_parse_level(const char *s, sk_psa_level *out);
/* "latest" or v1.N (N without leading zeros): 0 with *minor, else -1. */
int sk_psa_parse_version(const char *s, int64_t *minor);
/* "restricted:latest", "baseline:v1.22" (upstream's LevelVersion.String). */
void sk_psa_lv_format(const sk_psa_lv *lv, char *buf, size_t len);
int sk_psa_lv_equal(const sk_psa_lv *a, const sk_psa_lv *b);
/* Both privileged, or same level and version (upstream's Equivalent). */
int sk_psa_lv_equivalent(const sk_psa_lv *a, const sk_psa_lv *b);
/* -1, 0, 1 as upstream's CompareLevels. */
int sk_psa_compare_levels(sk_psa_level a, sk_psa_level b);

/* privileged:latest for all three modes. */
void sk_psa_policy_default(sk_psa_policy *p);
/* The policy of a namespace with these labels (an object or NULL) over
 * defaults, as upstream's PolicyToEvaluate: a bad enforce level fails closed
 * (restricted), bad audit and warn levels fail open (privileged), a bad
 * version is latest; warn follows a stricter enforce when it has no label
 * of its own. Returns the label errors as causes ({reason, message, field},
 * field `metadata.labels[pod-security.kubernetes.io/enforce]`; caller
 * frees), or NULL when there is none. */
json_t *sk_psa_policy_from_labels(json_t *labels, const sk_psa_policy *defaults, sk_psa_policy *out);

/* Runs the checks of lv on a pod's (or pod template's) metadata and spec
 * (objects or NULL; any shape is tolerated). Returns the failed checks in
 * upstream's order, each {"reason": "...", "detail": "..."} (detail may be
 * ""); an empty array when the pod is allowed. Caller frees. */
json_t *sk_psa_evaluate(const sk_psa_lv *lv, json_t *meta, json_t *spec);
/* "privileged (container \"c\" must …), runAsNonRoot != true (…)"
 * (upstream's ForbiddenDetail; malloc'd). */
char *sk_psa_forbidden_detail(json_t *results);
/* The reasons alone, ", "-joined (ForbiddenReason; malloc'd). */
char *sk_psa_forbidden_reason(json_t *results);

#endif
