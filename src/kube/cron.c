/* Cron parsing and next-time computation; see cron.h. Local times in a
 * zone come from the C library (TZ + localtime_r/mktime) under a mutex. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>

#include "kube/cron.h"
#include "kube/duration.h"
#include "util/util.h"

#define STAR (1ULL << 63)

struct sk_kube_cron {
	uint64_t minute, hour, dom, month, dow;
	int64_t every; /* > 0: @every, seconds */
};

typedef struct bounds {
	int min, max;
	const char *const *names; /* index = value - min */
} bounds;

static const char *const months[] = {"jan", "feb", "mar", "apr", "may", "jun", "jul",
				     "aug", "sep", "oct", "nov", "dec", NULL};
static const char *const days[] = {"sun", "mon", "tue", "wed", "thu", "fri", "sat", NULL};
static const bounds B_MIN = {0, 59, NULL}, B_HOUR = {0, 23, NULL}, B_DOM = {1, 31, NULL}, B_MONTH = {1, 12, months},
		    B_DOW = {0, 6, days};

/* robfig's mustParseInt: Go's strconv.Atoi, then no negatives. */
static int must_parse_int(const char *s, size_t n, int *out, sk_error_t *err)
{
	size_t i = n && (s[0] == '+' || s[0] == '-');
	long long v = 0;

	if (i == n)
		goto syntax;
	for (; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			goto syntax;
		v = v > INT32_MAX ? v : v * 10 + (s[i] - '0'); /* saturates: any such value is out of range */
	}
	if (s[0] == '-' && v)
		return sk_error_set(err, SK_EINVALID, "negative number (-%lld) not allowed: %.*s", v, (int)n, s);
	*out = v > INT32_MAX ? INT32_MAX : (int)v;
	return 0;
syntax:
	return sk_error_set(err, SK_EINVALID,
			    "failed to parse int from %.*s: strconv.Atoi: parsing \"%.*s\": invalid syntax", (int)n, s,
			    (int)n, s);
}

/* robfig's parseIntOrName: a name (any case) of the field, else a number. */
static int parse_int_or_name(const char *s, size_t n, const bounds *b, int *out, sk_error_t *err)
{
	for (int i = 0; b->names && b->names[i]; i++)
		if (strlen(b->names[i]) == n && !strncasecmp(s, b->names[i], n)) {
			*out = b->min + i;
			return 0;
		}
	return must_parse_int(s, n, out, err);
}

/* robfig's getRange: "*", "?", "a", "a-b", each with an optional "/step";
 * its checks and messages in its order. */
static int parse_range(const char *s, size_t n, const bounds *b, uint64_t *bits, sk_error_t *err)
{
	const char *slash = memchr(s, '/', n), *dash;
	size_t rn = slash ? (size_t)(slash - s) : n;
	int lo, hi, step = 1, single;
	uint64_t extra = 0;

	if (slash && memchr(slash + 1, '/', n - rn - 1))
		return sk_error_set(err, SK_EINVALID, "too many slashes: %.*s", (int)n, s);
	dash = memchr(s, '-', rn);
	single = !dash;
	if (dash && memchr(dash + 1, '-', rn - (size_t)(dash + 1 - s)))
		return sk_error_set(err, SK_EINVALID, "too many hyphens: %.*s", (int)n, s);
	if ((dash ? (size_t)(dash - s) : rn) == 1 && (*s == '*' || *s == '?')) {
		lo = b->min;
		hi = b->max;
		extra = STAR;
	} else {
		if (parse_int_or_name(s, dash ? (size_t)(dash - s) : rn, b, &lo, err) < 0)
			return -1;
		hi = lo;
		if (dash && parse_int_or_name(dash + 1, rn - (size_t)(dash + 1 - s), b, &hi, err) < 0)
			return -1;
	}
	if (slash) {
		if (must_parse_int(slash + 1, n - rn - 1, &step, err) < 0)
			return -1;
		if (single) /* "N/step" means "N-max/step" */
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
	if (step == 0)
		return sk_error_set(err, SK_EINVALID, "step of range should be a positive number: %.*s", (int)n, s);
	for (int i = lo; i <= hi; i += step)
		*bits |= 1ULL << i;
	*bits |= extra;
	return 0;
}

static int parse_field(const char *s, size_t n, const bounds *b, uint64_t *bits, sk_error_t *err)
{
	*bits = 0;
	for (;;) {
		const char *comma = memchr(s, ',', n);
		size_t pn = comma ? (size_t)(comma - s) : n;

		if (parse_range(s, pn, b, bits, err) < 0)
			return -1;
		if (!comma)
			return 0;
		n -= pn + 1;
		s = comma + 1;
	}
}

static const struct {
	const char *name, *spec;
} descriptors[] = {
	{"@yearly", "0 0 1 1 *"}, {"@annually", "0 0 1 1 *"}, {"@monthly", "0 0 1 * *"}, {"@weekly", "0 0 * * 0"},
	{"@daily", "0 0 * * *"},  {"@midnight", "0 0 * * *"}, {"@hourly", "0 * * * *"},
};

/* robfig's parseDescriptor; @every rounds to whole seconds, at least one. */
static sk_kube_cron *parse_descriptor(const char *spec, sk_error_t *err)
{
	sk_error_t derr = {0};
	int64_t ns = 0;
	sk_kube_cron *c;

	for (size_t i = 0; i < sizeof(descriptors) / sizeof(descriptors[0]); i++)
		if (!strcmp(spec, descriptors[i].name))
			return sk_kube_cron_parse(descriptors[i].spec, err);
	if (strncmp(spec, "@every ", 7) != 0) {
		sk_error_set(err, SK_EINVALID, "unrecognized descriptor: %s", spec);
		return NULL;
	}
	if (sk_kube_duration_parse(spec + 7, &ns, &derr) < 0) {
		sk_error_set(err, SK_EINVALID, "failed to parse duration %s: %s", spec, derr.msg);
		return NULL;
	}
	c = xzalloc(sizeof(*c));
	c->every = ns < 1000000000LL ? 1 : ns / 1000000000LL;
	return c;
}

sk_kube_cron *sk_kube_cron_parse(const char *spec, sk_error_t *err)
{
	const bounds *bs[] = {&B_MIN, &B_HOUR, &B_DOM, &B_MONTH, &B_DOW};
	sk_kube_cron c = {0}, *r;
	uint64_t *fields[] = {&c.minute, &c.hour, &c.dom, &c.month, &c.dow};
	const char *starts[5];
	size_t lens[5];
	int nf = 0;

	if (!spec || !*spec) {
		sk_error_set(err, SK_EINVALID, "empty spec string");
		return NULL;
	}
	if (*spec == '@')
		return parse_descriptor(spec, err);
	for (const char *p = spec;;) {
		size_t n;

		p += strspn(p, " \t\n\v\f\r");
		if (!*p)
			break;
		n = strcspn(p, " \t\n\v\f\r");
		if (nf < 5) {
			starts[nf] = p;
			lens[nf] = n;
		}
		nf++;
		p += n;
	}
	if (nf != 5) {
		/* Go prints the fields as a slice: [a b c] */
		cleanup_free char *list = xstrdup("");

		for (const char *p = spec; *(p += strspn(p, " \t\n\v\f\r"));) {
			size_t n = strcspn(p, " \t\n\v\f\r");
			char *next = xasprintf("%s%s%.*s", list, *list ? " " : "", (int)n, p);

			free(list);
			list = next;
			p += n;
		}
		sk_error_set(err, SK_EINVALID, "expected exactly 5 fields, found %d: [%s]", nf, list);
		return NULL;
	}
	for (int i = 0; i < 5; i++)
		if (parse_field(starts[i], lens[i], bs[i], fields[i], err) < 0)
			return NULL;
	r = xmalloc(sizeof(*r));
	*r = c;
	return r;
}

void sk_kube_cron_free(sk_kube_cron *c) { free(c); }

static pthread_mutex_t tz_mu = PTHREAD_MUTEX_INITIALIZER;

static int has(uint64_t bits, int v) { return (bits >> v) & 1; }

static int day_matches(const sk_kube_cron *c, const struct tm *tm)
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

static int64_t next_locked(const sk_kube_cron *c, int64_t t)
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

int sk_kube_cron_zone_valid(const char *tz)
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

void sk_kube_cron_format_time(int64_t t, const char *tz, char *buf, size_t len)
{
	if (!sk_kube_cron_zone_valid(tz))
		tz = "UTC";
	in_zone(tz, format_fn, NULL, t, buf, len);
}

int64_t sk_kube_cron_next(const sk_kube_cron *c, int64_t t, const char *tz)
{
	if (c->every > 0)
		return t + c->every;
	if (!sk_kube_cron_zone_valid(tz))
		return -1;
	return in_zone(tz, next_fn, c, t, NULL, 0);
}
