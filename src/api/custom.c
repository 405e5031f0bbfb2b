/* Custom objects: the kinds served from CustomResourceDefinitions. Their
 * validation, pruning and defaulting come from the CRD version's
 * openAPIV3Schema (crschema.c). */
#include <string.h>

#include "api/api-int.h"
#include "api/crd.h"
#include "api/crschema.h"
#include "api/validate-int.h"
#include "util/util.h"

/* The openAPIV3Schema of r's version (borrowed from *info, which the
 * caller releases). */
static json_t *schema_of(const sk_api_resource *r, json_t **info)
{
	*info = sk__kind_custom_spec(r);
	return json_object_get(json_object_get(json_object_get(*info, "version"), "schema"), "openAPIV3Schema");
}

json_t *sk__custom_validate(const sk_api_resource *r, json_t *obj, json_t *old, int status_sub)
{
	struct sk__verr e = {json_array()};
	cleanup_json json_t *info = NULL, *causes = NULL;
	json_t *schema = schema_of(r, &info);

	(void)status_sub;
	sk__validate_object_meta(&e, obj, r->namespaced);
	if (old)
		sk__validate_object_meta_update(&e, obj, old);
	causes = sk_crschema_validate(schema, obj);
	if (causes)
		json_array_extend(e.causes, causes);
	if (!json_array_size(e.causes)) {
		json_decref(e.causes);
		return NULL;
	}
	return e.causes;
}

void sk__custom_default(const sk_api_resource *r, json_t *obj)
{
	cleanup_json json_t *info = NULL;

	sk_crschema_default(schema_of(r, &info), obj);
}

json_t *sk__custom_prune(const sk_api_resource *r, json_t *obj)
{
	cleanup_json json_t *info = NULL;

	return sk_crschema_prune(schema_of(r, &info), obj);
}

int sk__custom_admit_create(const sk_api_resource *r, sk_error_t *err)
{
	cleanup_json json_t *info = sk__kind_custom_spec(r);

	if (json_is_true(json_object_get(info, "terminating")))
		return sk_error_set(err, SK_EMETHOD,
				    "create not allowed while custom resource definition is terminating");
	return 0;
}
