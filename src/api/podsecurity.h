/* The PodSecurity admission plugin (upstream's
 * plugin/pkg/admission/security/podsecurity over k8s.io/pod-security-admission):
 * enforce, audit and warn per namespace labels on pods and pod templates,
 * label checks and existing-pod warnings on namespaces, exemptions from the
 * AdmissionConfiguration file. The standards themselves: kube/podsecurity.h. */
#ifndef SK_API_PODSECURITY_H
#define SK_API_PODSECURITY_H

#include "api/admission.h"
#include "kube/podsecurity.h"

typedef struct sk__psa_config {
	sk_psa_policy defaults;
	json_t *usernames, *namespaces, *runtime_classes; /* arrays of strings */
} sk__psa_config;

/* Reads an AdmissionConfiguration (JSON; the PodSecurity plugin's
 * `configuration` inline or in the file its `path` names) or, for path NULL,
 * the built-in one (privileged:latest, namespace kube-system exempt). NULL
 * with err (naming the file and field) on a bad file. Free with
 * sk__psa_config_free. */
sk__psa_config *sk__psa_config_load(const char *path, sk_error_t *err);
/* The same from a PodSecurityConfiguration object (upstream's validation). */
sk__psa_config *sk__psa_config_from_json(json_t *cfg, sk_error_t *err);
void sk__psa_config_free(sk__psa_config *c);

extern const sk_adm_plugin sk__adm_pod_security;

#endif
