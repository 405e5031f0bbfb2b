/* The PersistentVolumeClaimResize admission plugin (upstream's
 * plugin/pkg/admission/storage/persistentvolume/resize): a claim whose
 * spec.resources.requests.storage grows must be bound, and its class (the
 * same before and after) must be a StorageClass with allowVolumeExpansion
 * true. Validation (validate.c) has already refused any other spec change
 * and a request at or below status.capacity. */
#include <string.h>

#include "api/admission.h"
#include "kube/object.h"
#include "kube/quantity.h"
#include "kube/volume.h"
#include "store/store.h"
#include "util/util.h"

static json_t *storage_request(json_t *pvc) { return sk_kube_jget(pvc, "spec.resources.requests.storage"); }

/* allowResize: both claims name the same class, and it allows expansion. */
static int allow_resize(sk_api *api, json_t *pvc, json_t *old)
{
	const sk_api_resource *r = sk__resource_find("storage.k8s.io", "v1", "storageclasses");
	const char *cls = sk_kube_volume_class(pvc), *ocls = sk_kube_volume_class(old);
	cleanup_free char *key = NULL;
	cleanup_json json_t *sc = NULL;
	sk_store_kv kv = {0};
	sk_error_t err = {0};

	if (!r || !*cls || !*ocls || strcmp(cls, ocls))
		return 0;
	key = sk__obj_key(r, NULL, cls);
	if (sk_store_get(api->store, key, &kv, &err) < 0)
		return 0;
	sc = sk__obj_decode(kv.value, kv.len, kv.mod_rev);
	sk_store_kv_release(&kv);
	return json_is_true(json_object_get(sc, "allowVolumeExpansion"));
}

static int resize_validate(sk_api *api, sk_adm_request *a, sk_error_t *err)
{
	const char *phase;
	int cmp = 0;

	if (a->op != SK_ADM_UPDATE || a->sub[0] || a->res->group[0] || strcmp(a->res->plural, "persistentvolumeclaims"))
		return 0;
	if (!storage_request(a->obj) || !storage_request(a->old) ||
	    sk_kube_quantity_cmp(storage_request(a->obj), storage_request(a->old), &cmp) < 0 || cmp <= 0)
		return 0;
	phase = sk_kube_jstr(a->old, "status.phase");
	if (!phase || strcmp(phase, "Bound"))
		return sk_error_set(err, SK_EFORBIDDEN,
				    "persistentvolumeclaims \"%s\" is forbidden: Only bound "
				    "persistent volume claims can be expanded",
				    a->name);
	if (!allow_resize(api, a->obj, a->old))
		return sk_error_set(
			err, SK_EFORBIDDEN,
			"persistentvolumeclaims \"%s\" is forbidden: only dynamically provisioned pvc can be "
			"resized and the storageclass that provisions the pvc must support resize",
			a->name);
	return 0;
}

const sk_adm_plugin sk__adm_pvc_resize = {
	.name = "PersistentVolumeClaimResize",
	.validate = resize_validate,
};
