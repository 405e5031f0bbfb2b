/* The string formats of OpenAPI schemas that a CustomResourceDefinition's
 * validation checks, as kube-openapi's strfmt.Default registry (the one
 * apiextensions-apiserver validates with): a value of a known format that
 * does not parse is "must be of type <format>"; unknown formats are not
 * checked. */
#include <arpa/inet.h>
#include <ctype.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "api/api-int.h"
#include "util/util.h"

static int match(const char *re, const char *s, int icase)
{
	regex_t r;
	int ok;

	if (regcomp(&r, re, REG_EXTENDED | REG_NOSUB | (icase ? REG_ICASE : 0)) != 0)
		return 1;
	ok = regexec(&r, s, 0, NULL, 0) == 0;
	regfree(&r);
	return ok;
}

/* Go's net.ParseIP: dotted quad (no leading zeros since Go 1.17) or IPv6. */
static int parse_ip(const char *s, int *v6)
{
	unsigned char buf[16];

	*v6 = strchr(s, ':') != NULL;
	if (!*v6) {
		/* inet_pton takes no leading zeros either, and exactly four parts */
		return inet_pton(AF_INET, s, buf) == 1;
	}
	return inet_pton(AF_INET6, s, buf) == 1;
}

static int is_cidr(const char *s)
{
	const char *slash = strchr(s, '/');
	char ip[64], *end;
	int v6;
	long bits;

	if (!slash || (size_t)(slash - s) >= sizeof(ip) || !slash[1])
		return 0;
	memcpy(ip, s, (size_t)(slash - s));
	ip[slash - s] = 0;
	if (!parse_ip(ip, &v6))
		return 0;
	if (slash[1] == '0' && slash[2])
		return 0;
	for (const char *p = slash + 1; *p; p++)
		if (!isdigit((unsigned char)*p))
			return 0;
	bits = strtol(slash + 1, &end, 10);
	return bits >= 0 && bits <= (v6 ? 128 : 32);
}

/* Go's net.ParseMAC: 6, 8 or 20 octets as aa:bb:…, aa-bb-… or aabb.ccdd.… */
static int is_mac(const char *s)
{
	size_t n = strlen(s);

	if (n < 14)
		return 0;
	if (s[2] == ':' || s[2] == '-') {
		char sep = s[2];
		size_t octets = (n + 1) / 3;

		if ((n + 1) % 3 || (octets != 6 && octets != 8 && octets != 20))
			return 0;
		for (size_t i = 0; i < n; i++) {
			if (i % 3 == 2) {
				if (s[i] != sep)
					return 0;
			} else if (!isxdigit((unsigned char)s[i])) {
				return 0;
			}
		}
		return 1;
	}
	if (s[4] == '.') {
		size_t groups = (n + 1) / 5;

		if ((n + 1) % 5 || (groups * 2 != 6 && groups * 2 != 8 && groups * 2 != 20))
			return 0;
		for (size_t i = 0; i < n; i++) {
			if (i % 5 == 4) {
				if (s[i] != '.')
					return 0;
			} else if (!isxdigit((unsigned char)s[i])) {
				return 0;
			}
		}
		return 1;
	}
	return 0;
}

/* strfmt's date-time layouts: RFC 3339 with optional fraction, or without a zone. */
static int is_datetime(const char *s)
{
	return match(
		"^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])[Tt ]([01][0-9]|2[0-3]):[0-5][0-9]:([0-5][0-9]|60)"
		"(\\.[0-9]+)?([Zz]|[+-]([01][0-9]|2[0-3]):[0-5][0-9])?$",
		s, 0);
}

/* strfmt's ParseDuration: Go's time.ParseDuration, or "<n> <unit>" with long unit names. */
static int is_duration(const char *s)
{
	if (match("^[-+]?(([0-9]+(\\.[0-9]*)?|\\.[0-9]+)(ns|us|µs|μs|ms|s|m|h))+$", s, 0) || !strcmp(s, "0"))
		return 1;
	return match("^[0-9]+ ?(ns|us|µs|ms|s|m|h|d|w|"
		     "nanoseconds?|microseconds?|milliseconds?|seconds?|sec|minutes?|mins?|hours?|hr|days?|weeks?|wk)$",
		     s, 0);
}

static int luhn(const char *s)
{
	int sum = 0, n = 0, dbl = 0;

	for (const char *p = s + strlen(s); p-- > s;) {
		int d;

		if (*p == ' ' || *p == '-')
			continue;
		if (!isdigit((unsigned char)*p))
			return 0;
		d = *p - '0';
		if (dbl && (d *= 2) > 9)
			d -= 9;
		sum += d;
		dbl = !dbl;
		n++;
	}
	return n >= 12 && n <= 19 && sum % 10 == 0;
}

/* ISBN-10 or -13 check digits (spaces and hyphens ignored), as govalidator. */
static int isbn(const char *s, int version)
{
	char d[16];
	size_t n = 0;
	int sum = 0;

	for (; *s; s++) {
		if (*s == ' ' || *s == '-')
			continue;
		if (n >= sizeof(d) - 1)
			return 0;
		d[n++] = *s;
	}
	d[n] = 0;
	if ((version == 10 || version == 0) && n == 10) {
		for (int i = 0; i < 9; i++) {
			if (!isdigit((unsigned char)d[i]))
				return 0;
			sum += (i + 1) * (d[i] - '0');
		}
		if (d[9] == 'X')
			sum += 10 * 10;
		else if (isdigit((unsigned char)d[9]))
			sum += 10 * (d[9] - '0');
		else
			return 0;
		return sum % 11 == 0;
	}
	if ((version == 13 || version == 0) && n == 13) {
		for (int i = 0; i < 13; i++) {
			if (!isdigit((unsigned char)d[i]))
				return 0;
			sum += (i % 2 ? 3 : 1) * (d[i] - '0');
		}
		return sum % 10 == 0;
	}
	return 0;
}

int sk__openapi_format_ok(const char *format, const char *s)
{
	int v6;

	if (!format || !*format)
		return 1;
	if (!strcmp(format, "ipv4"))
		return parse_ip(s, &v6) && !v6;
	if (!strcmp(format, "ipv6"))
		return parse_ip(s, &v6) && v6;
	if (!strcmp(format, "cidr"))
		return is_cidr(s);
	if (!strcmp(format, "mac"))
		return is_mac(s);
	if (!strcmp(format, "hostname"))
		return strlen(s) <= 255 && match("^([a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]{0,61}[a-zA-Z0-9])"
						 "(\\.([a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]{0,61}[a-zA-Z0-9]))*\\.?$",
						 s, 0);
	if (!strcmp(format, "uuid"))
		return match("^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$", s, 1);
	if (!strcmp(format, "uuid3"))
		return match("^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$", s, 1);
	if (!strcmp(format, "uuid4"))
		return match("^[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$", s, 1);
	if (!strcmp(format, "uuid5"))
		return match("^[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$", s, 1);
	if (!strcmp(format, "date"))
		return match("^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])$", s, 0);
	if (!strcmp(format, "date-time") || !strcmp(format, "datetime"))
		return is_datetime(s);
	if (!strcmp(format, "duration"))
		return is_duration(s);
	if (!strcmp(format, "byte"))
		return sk__base64_error(s, strlen(s)) < 0;
	if (!strcmp(format, "bsonobjectid"))
		return match("^[0-9a-f]{24}$", s, 1);
	if (!strcmp(format, "email"))
		return match("^[^@[:space:]<>]+@[^@[:space:]<>]+$", s, 0);
	if (!strcmp(format, "uri"))
		return *s && !strchr(s, ' ') && !strchr(s, '\x7f');
	if (!strcmp(format, "hexcolor"))
		return match("^#?([0-9a-f]{3}|[0-9a-f]{6})$", s, 1);
	if (!strcmp(format, "rgbcolor"))
		return match("^rgb\\([[:space:]]*(0|[1-9][0-9]?|1[0-9][0-9]|2[0-4][0-9]|25[0-5])[[:space:]]*,"
			     "[[:space:]]*(0|[1-9][0-9]?|1[0-9][0-9]|2[0-4][0-9]|25[0-5])[[:space:]]*,"
			     "[[:space:]]*(0|[1-9][0-9]?|1[0-9][0-9]|2[0-4][0-9]|25[0-5])[[:space:]]*\\)$",
			     s, 0);
	if (!strcmp(format, "ssn"))
		return match("^[0-9]{3}[- ]?[0-9]{2}[- ]?[0-9]{4}$", s, 0);
	if (!strcmp(format, "creditcard"))
		return luhn(s);
	if (!strcmp(format, "isbn"))
		return isbn(s, 0);
	if (!strcmp(format, "isbn10"))
		return isbn(s, 10);
	if (!strcmp(format, "isbn13"))
		return isbn(s, 13);
	return 1; /* password, int32, float… and formats strfmt does not know */
}
