/* The HorizontalPodAutoscaler's conversion between autoscaling/v1 and v2
 * (whose round-trip annotations hold JSON any client may write), its
 * defaulting, validation and printer on arbitrary JSON. The first byte
 * picks the version the object is read through. */
#include <stddef.h>
#include <stdint.h>

#include "api/api-int.h"
#include "api/table.h"
#include "util/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const sk_api_resource *v1 = sk__resource_find("autoscaling", "v1", "horizontalpodautoscalers");
	const sk_api_resource *v2 = sk__resource_find("autoscaling", "v2", "horizontalpodautoscalers");
	const sk_api_resource *r, *other;
	json_t *obj, *old, *causes, *cells;

	if (size < 1 || !v1 || !v2)
		return 0;
	r = data[0] & 1 ? v1 : v2;
	other = r == v1 ? v2 : v1;
	obj = json_loadb((const char *)data + 1, size - 1, 0, NULL);
	if (!obj)
		return 0;
	old = json_deep_copy(obj);
	r->ops->defaults(r, obj);
	causes = r->ops->validate(r, obj, NULL, 0);
	json_decref(causes);
	causes = r->ops->validate(r, obj, old, 1);
	json_decref(causes);
	r->ops->convert(other, obj);
	r->ops->convert(r, obj);
	cells = sk_table_cells("HorizontalPodAutoscaler", obj, 0);
	json_decref(cells);
	json_decref(old);
	json_decref(obj);
	return 0;
}
