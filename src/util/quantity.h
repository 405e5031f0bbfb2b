/* Kubernetes resource quantities ("100m", "1.5Gi", "2e3", "128974848").
 * Parsed exactly (no floating point) following apimachinery's resource.Quantity:
 * optional sign, digits with an optional fraction, then one suffix: binary
 * (Ki Mi Gi Ti Pi Ei), decimal (n u m "" k M G T P E) or an exponent (e3, E-2). */
#ifndef SK_UTIL_QUANTITY_H
#define SK_UTIL_QUANTITY_H

#include <stdint.h>

/* Parses s and stores its value in thousandths (cpu "250m" → 250, "1" → 1000),
 * rounded up. Returns -1 if s is not a quantity or the value overflows. */
int sk_quantity_milli(const char *s, int64_t *out);
/* The same in billionths (cpu "1500u" → 1500000 nanocores), rounded up. */
int sk_quantity_nano(const char *s, int64_t *out);
/* Parses s and stores its value in whole units (memory "1Ki" → 1024,
 * "100m" → 1), rounded up like Quantity.Value(). Returns -1 on bad input. */
int sk_quantity_value(const char *s, int64_t *out);
/* Formats milli-units canonically ("250m", "2", "1500m"), into buf. */
void sk_quantity_format_milli(int64_t milli, char *buf, int len);

#endif
