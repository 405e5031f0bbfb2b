#include "util/quantity.h"

#include <stdio.h>
#include <string.h>

typedef __int128 i128;

/* value = mant * 10^dexp * 2^bexp, mant >= 0. */
struct dec {
	i128 mant;
	int dexp, bexp, neg;
};

static const i128 LIMIT = (i128)1 << 100;

static int parse(const char *s, struct dec *d)
{
	static const struct {
		const char *sfx;
		int dexp, bexp;
	} sfx[] = {
		{"Ki", 0, 10}, {"Mi", 0, 20}, {"Gi", 0, 30}, {"Ti", 0, 40}, {"Pi", 0, 50}, {"Ei", 0, 60},
		{"n", -9, 0},  {"u", -6, 0},  {"m", -3, 0},  {"k", 3, 0},   {"M", 6, 0},   {"G", 9, 0},
		{"T", 12, 0},  {"P", 15, 0},  {"E", 18, 0},  {"", 0, 0},
	};
	int digits = 0;
	size_t i;

	memset(d, 0, sizeof(*d));
	if (!s || !*s || strlen(s) > 64)
		return -1;
	if (*s == '+' || *s == '-')
		d->neg = *s++ == '-';
	for (; *s >= '0' && *s <= '9'; s++, digits++) {
		if (d->mant < LIMIT)
			d->mant = d->mant * 10 + (*s - '0');
		else
			d->dexp++;
	}
	if (*s == '.') {
		for (s++; *s >= '0' && *s <= '9'; s++, digits++) {
			if (d->mant < LIMIT) {
				d->mant = d->mant * 10 + (*s - '0');
				d->dexp--;
			}
		}
	}
	if (!digits)
		return -1;
	if ((*s == 'e' || *s == 'E') && s[1] && (s[1] == '-' || s[1] == '+' || (s[1] >= '0' && s[1] <= '9'))) {
		int sign = 1, e = 0;

		s++;
		if (*s == '+' || *s == '-')
			sign = *s++ == '-' ? -1 : 1;
		if (!*s)
			return -1;
		for (; *s >= '0' && *s <= '9'; s++) {
			e = e * 10 + (*s - '0');
			if (e > 1000)
				return -1;
		}
		if (*s)
			return -1;
		d->dexp += sign * e;
		return 0;
	}
	for (i = 0; i < sizeof(sfx) / sizeof(sfx[0]); i++) {
		if (!strcmp(s, sfx[i].sfx)) {
			d->dexp += sfx[i].dexp;
			d->bexp = sfx[i].bexp;
			return 0;
		}
	}
	return -1;
}

/* Scales d by 10^scale and rounds up to an integer that fits int64. */
static int to_int(const struct dec *d, int scale, int64_t *out)
{
	i128 v = d->mant;
	int e = d->dexp + scale, b = d->bexp, rem = 0;

	for (; b > 0; b--) {
		if (v > LIMIT)
			return -1;
		v <<= 1;
	}
	for (; e > 0; e--) {
		if (v > LIMIT)
			return -1;
		v *= 10;
	}
	for (; e < 0 && v; e++) {
		if (v % 10)
			rem = 1;
		v /= 10;
	}
	if (e < 0)
		v = 0;
	if (rem)
		v += 1;
	if (v > INT64_MAX)
		return -1;
	*out = d->neg ? -(int64_t)v : (int64_t)v;
	return 0;
}

int sk_quantity_milli(const char *s, int64_t *out)
{
	struct dec d;

	if (parse(s, &d) < 0)
		return -1;
	return to_int(&d, 3, out);
}

int sk_quantity_nano(const char *s, int64_t *out)
{
	struct dec d;

	if (parse(s, &d) < 0)
		return -1;
	return to_int(&d, 9, out);
}

int sk_quantity_value(const char *s, int64_t *out)
{
	struct dec d;

	if (parse(s, &d) < 0)
		return -1;
	return to_int(&d, 0, out);
}

void sk_quantity_format_milli(int64_t milli, char *buf, int len)
{
	if (milli % 1000 == 0)
		snprintf(buf, (size_t)len, "%lld", (long long)(milli / 1000));
	else
		snprintf(buf, (size_t)len, "%lldm", (long long)milli);
}
