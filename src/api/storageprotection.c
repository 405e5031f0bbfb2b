/* The StorageObjectInUseProtection admission plugin (upstream's
 * plugin/pkg/admission/storage/storageobjectinuseprotection): every new
 * claim gets the kubernetes.io/pvc-protection finalizer and every new
 * volume kubernetes.io/pv-protection; the PV controller (ctrl/pvbinder.c)
 * removes them once the claim is used by no pod, the volume bound to no
 * claim. */
#include <string.h>

#include "api/admission.h"
#include "kube/object.h"
#include "kube/volume.h"

static void add_finalizer(json_t *obj, const char *f)
{
	json_t *meta = sk_kube_jobj(obj, "metadata");
	json_t *list = json_object_get(meta, "finalizers"), *v;
	size_t i;

	if (!json_is_array(list)) {
		list = json_array();
		json_object_set_new(meta, "finalizers", list);
	}
	json_array_foreach(list, i, v)
		if (json_is_string(v) && !strcmp(json_string_value(v), f))
			return;
	json_array_append_new(list, json_string(f));
}

static int protect_admit(sk_api *api, sk_adm_request *a, sk_error_t *err)
{
	(void)api;
	(void)err;
	if (a->op != SK_ADM_CREATE || a->sub[0] || a->res->group[0])
		return 0;
	if (!strcmp(a->res->plural, "persistentvolumeclaims"))
		add_finalizer(a->obj, SK_FINALIZER_PVC_PROTECTION);
	else if (!strcmp(a->res->plural, "persistentvolumes"))
		add_finalizer(a->obj, SK_FINALIZER_PV_PROTECTION);
	return 0;
}

const sk_adm_plugin sk__adm_storage_protection = {
	.name = "StorageObjectInUseProtection",
	.admit = protect_admit,
};
