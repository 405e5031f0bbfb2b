/* Go's time.ParseDuration, the one reader of durations (see duration.h). */
#include <stdlib.h>
#include <string.h>

#include "kube/duration.h"

int sk_kube_duration_parse(const char *orig, int64_t *out, sk_error_t *err)
{
	static const struct {
		const char *unit;
		double ns;
	} units[] = {{"ns", 1},   {"us", 1e3}, {"\xc2\xb5s", 1e3}, {"\xce\xbcs", 1e3},
		     {"ms", 1e6}, {"s", 1e9},  {"m", 60e9},        {"h", 3600e9}};
	const char *s = orig;
	double total = 0;
	int neg = 0;

	if (*s == '-' || *s == '+')
		neg = *s++ == '-';
	if (!strcmp(s, "0")) {
		*out = 0;
		return 0;
	}
	if (!*s)
		goto invalid;
	while (*s) {
		const char *start = s, *u;
		size_t ul, i;
		double v;

		if (!(*s == '.' || (*s >= '0' && *s <= '9')))
			goto invalid;
		while (*s >= '0' && *s <= '9')
			s++;
		if (*s == '.')
			for (s++; *s >= '0' && *s <= '9'; s++)
				;
		if (s == start || (s == start + 1 && *start == '.'))
			goto invalid;
		v = strtod(start, NULL);
		u = s;
		while (*s && *s != '.' && (*s < '0' || *s > '9'))
			s++;
		ul = (size_t)(s - u);
		if (!ul)
			return sk_error_set(err, SK_EINVALID, "time: missing unit in duration \"%s\"", orig);
		for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
			if (strlen(units[i].unit) == ul && !memcmp(u, units[i].unit, ul))
				break;
		if (i == sizeof(units) / sizeof(units[0]))
			return sk_error_set(err, SK_EINVALID, "time: unknown unit \"%.*s\" in duration \"%s\"", (int)ul,
					    u, orig);
		total += v * units[i].ns;
		if (total > 9223372036854775807.0)
			goto invalid;
	}
	*out = (int64_t)(neg ? -total : total);
	return 0;
invalid:
	return sk_error_set(err, SK_EINVALID, "time: invalid duration \"%s\"", orig);
}
