/* Custom objects: the kinds served from CustomResourceDefinitions. Their
 * validation, pruning and defaulting come from the CRD version's
 * openAPIV3Schema (crschema.c). */
#include <string.h>

#include "api/api-int.h"
#include "api/crd.h"
#include "api/validate-int.h"
#include "util/util.h"

json_t *sk__custom_validate(const sk_api_resource *r, json_t *obj, json_t *old, int status_sub)
{
	struct sk__verr e = {json_array()};

	(void)status_sub;
	sk__validate_object_meta(&e, obj, r->namespaced);
	if (old)
		sk__validate_object_meta_update(&e, obj, old);
	if (!json_array_size(e.causes)) {
		json_decref(e.causes);
		return NULL;
	}
	return e.causes;
}

void sk__custom_default(const sk_api_resource *r, json_t *obj)
{
	(void)r;
	(void)obj;
}

int sk__custom_admit_create(const sk_api_resource *r, sk_error_t *err)
{
	cleanup_json json_t *info = sk__kind_custom_spec(r);

	if (json_is_true(json_object_get(info, "terminating")))
		return sk_error_set(err, SK_EMETHOD, "create not allowed while custom resource definition is terminating");
	return 0;
}
