/* The DefaultStorageClass admission plugin (upstream's
 * plugin/pkg/admission/storage/storageclass/setdefault): a new claim that
 * names no class (spec.storageClassName absent, no beta annotation) gets the
 * default StorageClass, the newest of those annotated
 * storageclass.kubernetes.io/is-default-class "true" (then by name). A
 * claim with storageClassName "" keeps asking for no class. */
#include <string.h>

#include "api/admission.h"
#include "kube/object.h"
#include "kube/volume.h"
#include "store/store.h"
#include "util/util.h"

/* GetDefaultClass: the name (malloc'd) or NULL. */
static char *default_class(sk_api *api)
{
	const sk_api_resource *r = sk__resource_find("storage.k8s.io", "v1", "storageclasses");
	cleanup_free char *prefix = r ? sk__obj_prefix(r, NULL) : NULL;
	const char *best_name = NULL, *best_ts = NULL;
	sk_store_list l = {0};
	char *out = NULL;
	json_t *all = json_array();

	if (r && sk_store_range(api->store, prefix, NULL, 0, 0, &l, NULL) == 0) {
		for (size_t i = 0; i < l.n; i++) {
			json_t *o = sk__obj_decode(l.items[i].value, l.items[i].len, l.items[i].mod_rev);

			if (o)
				json_array_append_new(all, o);
		}
		sk_store_list_release(&l);
	}
	for (size_t i = 0; i < json_array_size(all); i++) {
		json_t *sc = json_array_get(all, i);
		const char *name = sk_kube_jstr(sc, "metadata.name"),
			   *ts = sk_kube_jstr(sc, "metadata.creationTimestamp");
		int cmp;

		if (!name || !sk_kube_class_is_default(sc))
			continue;
		ts = ts ? ts : "";
		/* RFC 3339 UTC stamps order as text */
		cmp = best_ts ? strcmp(ts, best_ts) : 1;
		if (cmp > 0 || (cmp == 0 && strcmp(name, best_name) < 0)) {
			best_name = name;
			best_ts = ts;
		}
	}
	if (best_name)
		out = xstrdup(best_name);
	json_decref(all);
	return out;
}

static int dsc_admit(sk_api *api, sk_adm_request *a, sk_error_t *err)
{
	cleanup_free char *cls = NULL;
	json_t *spec;

	(void)err;
	if (a->op != SK_ADM_CREATE || a->sub[0] || a->res->group[0] || strcmp(a->res->plural, "persistentvolumeclaims"))
		return 0;
	if (sk_kube_claim_has_class(a->obj))
		return 0;
	cls = default_class(api);
	if (!cls)
		return 0;
	spec = sk_kube_jobj(a->obj, "spec");
	json_object_set_new(spec, "storageClassName", json_string(cls));
	return 0;
}

const sk_adm_plugin sk__adm_default_storage_class = {
	.name = "DefaultStorageClass",
	.admit = dsc_admit,
};
