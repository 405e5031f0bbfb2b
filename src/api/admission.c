/* The admission chain (admission.h). */
#include "api/admission.h"
#include "api/nslifecycle.h"
#include "api/podsecurity.h"

/* kube-apiserver's recommended order (its AllOrderedPlugins): each plugin's
 * file adds its entry here. */
extern const sk_adm_plugin sk__adm_limitranger, sk__adm_resourcequota, sk__adm_serviceaccount, sk__adm_node_restriction;
extern const sk_adm_plugin sk__adm_default_storage_class, sk__adm_storage_protection, sk__adm_pvc_resize;
extern const sk_adm_plugin sk__adm_mutating_webhook, sk__adm_validating_webhook;
extern const sk_adm_plugin sk__adm_validating_admission_policy;

static const sk_adm_plugin *const plugins[] = {
	&sk__adm_namespace_lifecycle,
	&sk__adm_limitranger,
	&sk__adm_serviceaccount,
	&sk__adm_node_restriction,
	&sk__adm_pod_security,
	&sk__adm_default_storage_class, /* DefaultStorageClass, StorageObjectInUseProtection */
	&sk__adm_storage_protection,
	&sk__adm_pvc_resize,                  /* PersistentVolumeClaimResize */
	&sk__adm_mutating_webhook,            /* MutatingAdmissionWebhook */
	&sk__adm_validating_admission_policy, /* ValidatingAdmissionPolicy */
	&sk__adm_validating_webhook,          /* ValidatingAdmissionWebhook */
	&sk__adm_resourcequota,
	NULL,
};

int sk__admission_mutate(sk_api *api, sk_adm_request *a, sk_error_t *err)
{
	for (int i = 0; plugins[i]; i++)
		if (plugins[i]->admit && plugins[i]->admit(api, a, err) < 0)
			return -1;
	return 0;
}

int sk__admission_validate(sk_api *api, sk_adm_request *a, sk_error_t *err)
{
	for (int i = 0; plugins[i]; i++)
		if (plugins[i]->validate && plugins[i]->validate(api, a, err) < 0)
			return -1;
	return 0;
}
