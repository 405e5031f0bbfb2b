#include "kube/quantity.h"

#include "util/quantity.h"

int sk_kube_quantity_milli(json_t *q, int64_t *out)
{
	if (json_is_string(q))
		return sk_quantity_milli(json_string_value(q), out);
	if (json_is_integer(q)) {
		json_int_t v = json_integer_value(q);

		if (v > INT64_MAX / 1000 || v < INT64_MIN / 1000)
			return -1;
		*out = v * 1000;
		return 0;
	}
	return -1;
}

int sk_kube_quantity_value(json_t *q, int64_t *out)
{
	if (json_is_string(q))
		return sk_quantity_value(json_string_value(q), out);
	if (json_is_integer(q)) {
		*out = json_integer_value(q);
		return 0;
	}
	return -1;
}

/* In thousandths where both fit, else in whole units (memory past 9 PB). */
int sk_kube_quantity_cmp(json_t *a, json_t *b, int *cmp)
{
	int64_t x, y;

	if (sk_kube_quantity_milli(a, &x) < 0 || sk_kube_quantity_milli(b, &y) < 0) {
		if (sk_kube_quantity_value(a, &x) < 0 || sk_kube_quantity_value(b, &y) < 0)
			return -1;
	}
	*cmp = x < y ? -1 : x > y;
	return 0;
}
