/* Resource quantities as they appear in API objects (a string, or a bare
 * JSON number some clients send). */
#ifndef SK_KUBE_QUANTITY_H
#define SK_KUBE_QUANTITY_H

#include <jansson.h>
#include <stdint.h>

/* The quantity q in thousandths ("250m" → 250, 2 → 2000). -1 when q is no
 * quantity or the value overflows. */
int sk_kube_quantity_milli(json_t *q, int64_t *out);
/* The quantity q in whole units, rounded up as Quantity.Value(). -1 on bad input. */
int sk_kube_quantity_value(json_t *q, int64_t *out);
/* Compares two quantities by value: <0, 0 or >0 in *cmp. -1 when either is
 * no quantity. */
int sk_kube_quantity_cmp(json_t *a, json_t *b, int *cmp);

#endif
