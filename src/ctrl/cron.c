/* Cron parsing and next-time computation; see cron.h. Local times in a
 * zone come from the C library (TZ + localtime_r/mktime) under a mutex. */
#include <ctype.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>

#include "ctrl/cron.h"
#include "util/util.h"

#define STAR (1ULL << 63)

struct sk_cron {
	uint64_t minute, hour, dom, month, dow;
	int64_t every; /* > 0: @every, seconds */
};

typedef struct bounds {
	int min, max;
	const char *const *names;
} bounds;

static const char *const months[] = {"",    "jan", "feb", "mar", "apr", "may", "jun",
				     "jul", "aug", "sep", "oct", "nov", "dec", NULL};
static const char *const days[] = {"sun", "mon", "tue", "wed", "thu", "fri", "sat", NULL};
static const bounds B_MIN = {0, 59, NULL}, B_HOUR = {0, 23, NULL}, B_DOM = {1, 31, NULL}, B_MONTH = {1, 12, months},
		    B_DOW = {0, 6, days};

static int parse_int(const char *s, size_t n, const bounds *b, int *out)
{
	char buf[16];
	char *end;
	long v;

	if (!n || n >= sizeof(buf))
		return -1;
	memcpy(buf, s, n);
	buf[n] = '\0';
	for (int i = 0; b->names && b->names[i]; i++) {
		if (*b->names[i] && !strcasecmp(buf, b->names[i])) {
			*out = i;
			return 0;
		}
	}
	v = strtol(buf, &end, 10);
	if (*end || end == buf || v < 0)
		return -1;
	*out = (int)v;
	return 0;
}

/* One comma-separated piece: "*", "?", "a", "a-b", each with "/step". */
static int parse_range(const char *s, size_t n, const bounds *b, uint64_t *bits, sk_error_t *err)
{
	const char *slash = memchr(s, '/', n), *dash;
	size_t rn = slash ? (size_t)(slash - s) : n;
	int lo, hi, step = 1, single = 0;
	uint64_t extra = 0;

	if (rn == 1 && (*s == '*' || *s == '?')) {
		lo = b->min;
		hi = b->max;
		extra = STAR;
	} else {
		dash = memchr(s, '-', rn);
		if (parse_int(s, dash ? (size_t)(dash - s) : rn, b, &lo) < 0)
			return sk_error_set(err, SK_EINVALID, "failed to parse int from %.*s", (int)rn, s);
		if (dash) {
			if (parse_int(dash + 1, rn - (size_t)(dash + 1 - s), b, &hi) < 0)
				return sk_error_set(err, SK_EINVALID, "failed to parse int from %.*s", (int)rn, s);
		} else {
			hi = lo;
			single = 1;
		}
	}
	if (slash) {
		if (parse_int(slash + 1, n - rn - 1, &B_MIN, &step) < 0 || step <= 0)
			return sk_error_set(err, SK_EINVALID, "failed to parse int from %.*s", (int)(n - rn - 1),
					    slash + 1);
		if (single)
			hi = b->max;
		if (step > 1)
			extra = 0;
	}
	if (lo < b->min)
		return sk_error_set(err, SK_EINVALID, "beginning of range (%d) below minimum (%d): %.*s", lo, b->min,
				    (int)n, s);
	if (hi > b->max)
		return sk_error_set(err, SK_EINVALID, "end of range (%d) above maximum (%d): %.*s", hi, b->max, (int)n,
				    s);
	if (lo > hi)
		return sk_error_set(err, SK_EINVALID, "beginning of range (%d) beyond end of range (%d): %.*s", lo, hi,
				    (int)n, s);
	for (int i = lo; i <= hi; i += step)
		*bits |= 1ULL << i;
	*bits |= extra;
	return 0;
}

static int parse_field(const char *s, size_t n, const bounds *b, uint64_t *bits, sk_error_t *err)
{
	*bits = 0;
	while (n) {
		const char *comma = memchr(s, ',', n);
		size_t pn = comma ? (size_t)(comma - s) : n;

		if (parse_range(s, pn, b, bits, err) < 0)
			return -1;
		if (!comma)
			break;
		n -= pn + 1;
		s = comma + 1;
	}
	return 0;
}

/* Go's time.ParseDuration for the units cron users write (h, m, s, ms). */
static int64_t parse_duration(const char *s)
{
	double total = 0;

	if (!*s)
		return -1;
	while (*s) {
		char *end;
		double v = strtod(s, &end);

		if (end == s)
			return -1;
		if (!strncmp(end, "ms", 2)) {
			total += v / 1000;
			end += 2;
		} else if (*end == 'h') {
			total += v * 3600;
			end++;
		} else if (*end == 'm') {
			total += v * 60;
			end++;
		} else if (*end == 's') {
			total += v;
			end++;
		} else {
			return -1;
		}
		s = end;
	}
	return (int64_t)total;
}

static const struct {
	const char *name, *spec;
} descriptors[] = {
	{"@yearly", "0 0 1 1 *"}, {"@annually", "0 0 1 1 *"}, {"@monthly", "0 0 1 * *"}, {"@weekly", "0 0 * * 0"},
	{"@daily", "0 0 * * *"},  {"@midnight", "0 0 * * *"}, {"@hourly", "0 * * * *"},
};

sk_cron *sk_cron_parse(const char *spec, sk_error_t *err)
{
	const bounds *bs[] = {&B_MIN, &B_HOUR, &B_DOM, &B_MONTH, &B_DOW};
	sk_cron c = {0};
	uint64_t *fields[] = {&c.minute, &c.hour, &c.dom, &c.month, &c.dow};
	const char *p;
	int nf = 0;

	while (spec && isspace((unsigned char)*spec))
		spec++;
	if (!spec || !*spec) {
		sk_error_set(err, SK_EINVALID, "empty spec string");
		return NULL;
	}
	if (*spec == '@') {
		if (!strncmp(spec, "@every ", 7)) {
			c.every = parse_duration(spec + 7);
			if (c.every < 0) {
				sk_error_set(err, SK_EINVALID, "failed to parse duration %s", spec);
				return NULL;
			}
			if (c.every < 1)
				c.every = 1;
			sk_cron *r = xmalloc(sizeof(*r));
			*r = c;
			return r;
		}
		for (size_t i = 0; i < sizeof(descriptors) / sizeof(descriptors[0]); i++)
			if (!strcmp(spec, descriptors[i].name))
				return sk_cron_parse(descriptors[i].spec, err);
		sk_error_set(err, SK_EINVALID, "unrecognized descriptor: %s", spec);
		return NULL;
	}
	for (p = spec; *p;) {
		size_t n = strcspn(p, " \t");

		if (nf < 5 && parse_field(p, n, bs[nf], fields[nf], err) < 0)
			return NULL;
		nf++;
		p += n;
		while (*p == ' ' || *p == '\t')
			p++;
	}
	if (nf != 5) {
		sk_error_set(err, SK_EINVALID, "expected exactly 5 fields, found %d: %s", nf, spec);
		return NULL;
	}
	sk_cron *r = xmalloc(sizeof(*r));
	*r = c;
	return r;
}

void sk_cron_free(sk_cron *c) { free(c); }

static pthread_mutex_t tz_mu = PTHREAD_MUTEX_INITIALIZER;

static int has(uint64_t bits, int v) { return (bits >> v) & 1; }

static int day_matches(const sk_cron *c, const struct tm *tm)
{
	int dom = has(c->dom, tm->tm_mday), dow = has(c->dow, tm->tm_wday);

	if ((c->dom & STAR) || (c->dow & STAR))
		return dom && dow;
	return dom || dow;
}

/* Midnight local time of the day after tm (or the first of next month). */
static time_t next_day(struct tm tm, int month)
{
	if (month) {
		tm.tm_mon++;
		tm.tm_mday = 1;
	} else {
		tm.tm_mday++;
	}
	tm.tm_hour = tm.tm_min = tm.tm_sec = 0;
	tm.tm_isdst = -1;
	return mktime(&tm);
}

static int64_t next_locked(const sk_cron *c, int64_t t)
{
	time_t cur = (time_t)(t - (t % 60 + 60) % 60 + 60);
	struct tm tm;
	int year0;

	localtime_r(&cur, &tm);
	year0 = tm.tm_year;
	for (int guard = 0; guard < 100000; guard++) {
		localtime_r(&cur, &tm);
		if (tm.tm_year > year0 + 5)
			return -1;
		if (!has(c->month, tm.tm_mon + 1)) {
			cur = next_day(tm, 1);
			continue;
		}
		if (!day_matches(c, &tm)) {
			cur = next_day(tm, 0);
			continue;
		}
		if (!has(c->hour, tm.tm_hour)) {
			cur += 3600 - tm.tm_min * 60 - tm.tm_sec;
			continue;
		}
		if (!has(c->minute, tm.tm_min)) {
			cur += 60 - tm.tm_sec;
			continue;
		}
		return (int64_t)cur - tm.tm_sec;
	}
	return -1;
}

int sk_cron_zone_valid(const char *tz)
{
	cleanup_free char *path = NULL;
	struct stat st;

	if (!tz || !*tz || !strcmp(tz, "UTC") || !strcmp(tz, "Local"))
		return 1;
	if (strstr(tz, "..") || tz[0] == '/')
		return 0;
	path = xasprintf("/usr/share/zoneinfo/%s", tz);
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static void format_locked(int64_t t, char *buf, size_t len)
{
	time_t tt = (time_t)t;
	struct tm tm;
	long off;
	size_t n;

	localtime_r(&tt, &tm);
	n = strftime(buf, len, "%Y-%m-%dT%H:%M:%S", &tm);
	off = tm.tm_gmtoff;
	if (off == 0)
		snprintf(buf + n, len - n, "Z");
	else
		snprintf(buf + n, len - n, "%c%02ld:%02ld", off < 0 ? '-' : '+', labs(off) / 3600,
			 labs(off) % 3600 / 60);
}

/* Runs fn in zone tz under the mutex. */
static int64_t in_zone(const char *tz, int64_t (*fn)(const void *, int64_t, char *, size_t), const void *arg, int64_t t,
		       char *buf, size_t len)
{
	cleanup_free char *saved = NULL;
	const char *old;
	int64_t r;
	int set = tz && *tz && strcmp(tz, "Local");

	pthread_mutex_lock(&tz_mu);
	old = getenv("TZ");
	saved = old ? xstrdup(old) : NULL;
	if (set) {
		setenv("TZ", tz, 1);
		tzset();
	}
	r = fn(arg, t, buf, len);
	if (set) {
		/* never unset: unsetenv could reshuffle environ under a getenv */
		setenv("TZ", saved ? saved : ":/etc/localtime", 1);
		tzset();
	}
	pthread_mutex_unlock(&tz_mu);
	return r;
}

static int64_t next_fn(const void *c, int64_t t, char *buf, size_t len) { return next_locked(c, t); }

static int64_t format_fn(const void *c, int64_t t, char *buf, size_t len)
{
	format_locked(t, buf, len);
	return 0;
}

void sk_cron_format_time(int64_t t, const char *tz, char *buf, size_t len)
{
	if (!sk_cron_zone_valid(tz))
		tz = "UTC";
	in_zone(tz, format_fn, NULL, t, buf, len);
}

int64_t sk_cron_next(const sk_cron *c, int64_t t, const char *tz)
{
	if (c->every > 0)
		return t + c->every;
	if (!sk_cron_zone_valid(tz))
		return -1;
	return in_zone(tz, next_fn, c, t, NULL, 0);
}
