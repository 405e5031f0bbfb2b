/* CEL's operators and functions: the standard definitions (cel-spec
 * doc/langdef.md), the optional library, and Kubernetes' libraries
 * (k8s.io/apiserver/pkg/cel/library: strings ext, lists, regex, urls,
 * quantity, ip, cidr, sets). Regular expressions are POSIX extended ones
 * (regcomp) with RE2's \d \w \s classes and (?i) translated: an
 * approximation of RE2. */
#include <arpa/inet.h>
#include <curl/curl.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <regex.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "api/cel/cel-int.h"
#include "api/api-int.h"
#include "api/validate.h"
#include "kube/duration.h"
#include "util/quantity.h"
#include "util/util.h"

#define ERR(...) sk__cel_err(c, __VA_ARGS__)
#define NOOV() sk__cel_no_overload(c, NULL)

/* ---- numbers, times ---- */

void sk__cel_fmt_double(double d, char *buf, size_t n)
{
	if (isnan(d)) {
		snprintf(buf, n, "NaN");
		return;
	}
	if (isinf(d)) {
		snprintf(buf, n, d > 0 ? "+Inf" : "-Inf");
		return;
	}
	for (int prec = 1; prec <= 17; prec++) {
		snprintf(buf, n, "%.*g", prec, d);
		if (strtod(buf, NULL) == d)
			break;
	}
	/* Go's %g keeps exponents below 21 digits in plain notation */
	if (strchr(buf, 'e') && fabs(d) >= 1e-4 && fabs(d) < 1e21 && d == floor(d))
		snprintf(buf, n, "%.0f", d);
}

void sk__cel_fmt_duration(int64_t ns, char *buf, size_t n)
{
	char num[64];

	sk__cel_fmt_double((double)ns / 1e9, num, sizeof(num));
	if (ns % 1000000000 == 0)
		snprintf(num, sizeof(num), "%lld", (long long)(ns / 1000000000));
	snprintf(buf, n, "%ss", num);
}

void sk__cel_fmt_timestamp(int64_t sec, int32_t nsec, char *buf, size_t n)
{
	time_t t = (time_t)sec;
	struct tm tm;
	char base[40];

	gmtime_r(&t, &tm);
	strftime(base, sizeof(base), "%Y-%m-%dT%H:%M:%S", &tm);
	if (nsec) {
		char frac[16];
		int len;

		snprintf(frac, sizeof(frac), "%09d", nsec);
		for (len = 9; len > 0 && frac[len - 1] == '0'; len--)
			;
		frac[len] = 0;
		snprintf(buf, n, "%s.%sZ", base, frac);
	} else {
		snprintf(buf, n, "%sZ", base);
	}
}

#define MIN_TS_SEC (-62135596800LL) /* 0001-01-01 */
#define MAX_TS_SEC 253402300799LL   /* 9999-12-31T23:59:59 */

int sk__cel_parse_timestamp(const char *s, int64_t *sec, int32_t *nsec)
{
	struct tm tm = {0};
	int y, mo, d, h, mi, se, n = 0;
	int64_t off = 0;
	int32_t frac = 0;
	const char *p;

	if (sscanf(s, "%4d-%2d-%2d%*[Tt]%2d:%2d:%2d%n", &y, &mo, &d, &h, &mi, &se, &n) != 6 || n != 19)
		return -1;
	p = s + n;
	if (*p == '.') {
		int digits = 0;

		p++;
		while (*p >= '0' && *p <= '9') {
			if (digits < 9)
				frac = frac * 10 + (*p - '0');
			digits++;
			p++;
		}
		if (!digits)
			return -1;
		for (; digits < 9; digits++)
			frac *= 10;
	}
	if (*p == 'Z' || *p == 'z') {
		p++;
	} else if (*p == '+' || *p == '-') {
		int oh, om;

		if (sscanf(p + 1, "%2d:%2d", &oh, &om) != 2 || strlen(p) != 6)
			return -1;
		off = (oh * 3600 + om * 60) * (*p == '-' ? -1 : 1);
		p += 6;
	} else {
		return -1;
	}
	if (*p || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || se > 60)
		return -1;
	tm.tm_year = y - 1900;
	tm.tm_mon = mo - 1;
	tm.tm_mday = d;
	tm.tm_hour = h;
	tm.tm_min = mi;
	tm.tm_sec = se;
	*sec = (int64_t)timegm(&tm) - off;
	*nsec = frac;
	return *sec < MIN_TS_SEC || *sec > MAX_TS_SEC ? -1 : 0;
}

/* Go's time.ParseDuration. */
int sk__cel_parse_duration(const char *s, int64_t *out) { return sk_kube_duration_parse(s, out, NULL); }

/* ---- operators ---- */

static cval *mk_dur(cel_ctx *c, int64_t ns)
{
	cval *v = sk__cel_new(c, V_DURATION);

	v->i = ns;
	return v;
}

static cval *mk_ts(cel_ctx *c, int64_t sec, int64_t nsec)
{
	cval *v;

	sec += nsec / 1000000000;
	nsec %= 1000000000;
	if (nsec < 0) {
		nsec += 1000000000;
		sec--;
	}
	if (sec < MIN_TS_SEC || sec > MAX_TS_SEC)
		return ERR("timestamp out of range");
	v = sk__cel_new(c, V_TIMESTAMP);
	v->ts.sec = sec;
	v->ts.nsec = (int32_t)nsec;
	return v;
}

/* The list type of a JSON-backed list: "set", "map" or NULL. */
static const char *list_type(cval *l)
{
	const char *lt = l->l.j ? json_string_value(json_object_get(l->l.sch, "x-kubernetes-list-type")) : NULL;

	return lt && (!strcmp(lt, "set") || !strcmp(lt, "map")) ? lt : NULL;
}

/* Whether list-map items x and y have the same keys. */
static int same_keys(cel_ctx *c, json_t *keys, cval *x, cval *y)
{
	size_t i;
	json_t *k;

	if (x->t != V_MAP || y->t != V_MAP)
		return 0;
	json_array_foreach(keys, i, k) {
		cval key = {.t = V_STRING};
		cval *a, *b;

		key.s.p = json_string_value(k) ? json_string_value(k) : "";
		key.s.n = strlen(key.s.p);
		a = sk__cel_map_get(c, x, &key);
		b = sk__cel_map_get(c, y, &key);
		if (!a != !b || (a && sk__cel_equal(c, a, b) != 1))
			return 0;
	}
	return 1;
}

/* a + b of an x-kubernetes-list-type set (a union in order) or map (b's
 * items replace a's of the same keys, new ones are appended), as
 * Kubernetes' unstructured lists. */
static cval *merge_list(cel_ctx *c, cval *a, cval *b, int is_map)
{
	json_t *keys = json_object_get(a->l.sch, "x-kubernetes-list-map-keys");
	cval *l = sk__cel_list(c, a->l.n + b->l.n);
	size_t n = 0;

	sk__cel_charge(c, (int64_t)(a->l.n * (b->l.n + 1)));
	for (size_t i = 0; i < a->l.n; i++)
		l->l.v[n++] = sk__cel_list_at(c, a, i);
	for (size_t i = 0; i < b->l.n; i++) {
		cval *x = sk__cel_list_at(c, b, i);
		size_t k;

		for (k = 0; k < n; k++)
			if (is_map ? same_keys(c, keys, l->l.v[k], x) : sk__cel_equal(c, l->l.v[k], x) == 1)
				break;
		if (k < n)
			l->l.v[k] = is_map ? x : l->l.v[k];
		else
			l->l.v[n++] = x;
	}
	l->l.n = n;
	return l;
}

static cval *concat_list(cel_ctx *c, cval *a, cval *b)
{
	size_t n = a->l.n + b->l.n;
	cval *l;

	if (list_type(a))
		return merge_list(c, a, b, !strcmp(list_type(a), "map"));
	l = sk__cel_list(c, n);
	sk__cel_charge(c, (int64_t)n / 8);
	for (size_t i = 0; i < a->l.n; i++)
		l->l.v[i] = sk__cel_list_at(c, a, i);
	for (size_t i = 0; i < b->l.n; i++)
		l->l.v[a->l.n + i] = sk__cel_list_at(c, b, i);
	return l;
}

static cval *arith_int(cel_ctx *c, int op, int64_t x, int64_t y)
{
	int64_t r;

	switch (op) {
	case OP_ADD:
		return __builtin_add_overflow(x, y, &r) ? ERR("integer overflow") : sk__cel_int(c, r);
	case OP_SUB:
		return __builtin_sub_overflow(x, y, &r) ? ERR("integer overflow") : sk__cel_int(c, r);
	case OP_MUL:
		return __builtin_mul_overflow(x, y, &r) ? ERR("integer overflow") : sk__cel_int(c, r);
	case OP_DIV:
		if (!y)
			return ERR("division by zero");
		if (x == INT64_MIN && y == -1)
			return ERR("integer overflow");
		return sk__cel_int(c, x / y);
	case OP_MOD:
		if (!y)
			return ERR("modulus by zero");
		if (x == INT64_MIN && y == -1)
			return ERR("integer overflow");
		return sk__cel_int(c, x % y);
	}
	return NOOV();
}

static cval *arith_uint(cel_ctx *c, int op, uint64_t x, uint64_t y)
{
	uint64_t r;

	switch (op) {
	case OP_ADD:
		return __builtin_add_overflow(x, y, &r) ? ERR("unsigned integer overflow") : sk__cel_uint(c, r);
	case OP_SUB:
		return __builtin_sub_overflow(x, y, &r) ? ERR("unsigned integer overflow") : sk__cel_uint(c, r);
	case OP_MUL:
		return __builtin_mul_overflow(x, y, &r) ? ERR("unsigned integer overflow") : sk__cel_uint(c, r);
	case OP_DIV:
		return y ? sk__cel_uint(c, x / y) : ERR("division by zero");
	case OP_MOD:
		return y ? sk__cel_uint(c, x % y) : ERR("modulus by zero");
	}
	return NOOV();
}

static cval *arith(cel_ctx *c, int op, cval *a, cval *b)
{
	if (a->t == V_INT && b->t == V_INT)
		return arith_int(c, op, a->i, b->i);
	if (a->t == V_UINT && b->t == V_UINT)
		return arith_uint(c, op, a->u, b->u);
	if (a->t == V_DOUBLE && b->t == V_DOUBLE) {
		switch (op) {
		case OP_ADD:
			return sk__cel_double(c, a->d + b->d);
		case OP_SUB:
			return sk__cel_double(c, a->d - b->d);
		case OP_MUL:
			return sk__cel_double(c, a->d * b->d);
		case OP_DIV:
			return sk__cel_double(c, a->d / b->d);
		}
		return NOOV();
	}
	if (op == OP_ADD && a->t == b->t && (a->t == V_STRING || a->t == V_BYTES)) {
		cval *r = sk__cel_new(c, a->t);
		char *p = sk__cel_alloc(c, a->s.n + b->s.n + 1);

		sk__cel_charge(c, (int64_t)(a->s.n + b->s.n) / 16);
		memcpy(p, a->s.p, a->s.n);
		memcpy(p + a->s.n, b->s.p, b->s.n);
		r->s.p = p;
		r->s.n = a->s.n + b->s.n;
		return r;
	}
	if (op == OP_ADD && a->t == V_LIST && b->t == V_LIST)
		return concat_list(c, a, b);
	if (a->t == V_DURATION && b->t == V_DURATION && (op == OP_ADD || op == OP_SUB)) {
		int64_t r;

		if (op == OP_ADD ? __builtin_add_overflow(a->i, b->i, &r) : __builtin_sub_overflow(a->i, b->i, &r))
			return ERR("integer overflow");
		return mk_dur(c, r);
	}
	if (a->t == V_TIMESTAMP && b->t == V_DURATION && (op == OP_ADD || op == OP_SUB))
		return mk_ts(c, a->ts.sec + (op == OP_ADD ? 1 : -1) * (b->i / 1000000000),
			     a->ts.nsec + (op == OP_ADD ? 1 : -1) * (b->i % 1000000000));
	if (a->t == V_DURATION && b->t == V_TIMESTAMP && op == OP_ADD)
		return mk_ts(c, b->ts.sec + a->i / 1000000000, b->ts.nsec + a->i % 1000000000);
	if (a->t == V_TIMESTAMP && b->t == V_TIMESTAMP && op == OP_SUB) {
		double d = ((double)a->ts.sec - (double)b->ts.sec) * 1e9 + (a->ts.nsec - b->ts.nsec);

		if (fabs(d) > 9.2e18)
			return ERR("integer overflow");
		return mk_dur(c, (a->ts.sec - b->ts.sec) * 1000000000 + (a->ts.nsec - b->ts.nsec));
	}
	return NOOV();
}

static cval *contains(cel_ctx *c, cval *elem, cval *coll)
{
	if (coll->t == V_LIST) {
		for (size_t i = 0; i < coll->l.n; i++)
			if (sk__cel_equal(c, elem, sk__cel_list_at(c, coll, i)) == 1)
				return sk__cel_bool(c, 1);
		return sk__cel_bool(c, 0);
	}
	if (coll->t == V_MAP) {
		if (coll->m.j)
			return sk__cel_bool(c, sk__cel_map_get(c, coll, elem) != NULL);
		for (size_t i = 0; i < coll->m.n; i++)
			if (sk__cel_equal(c, elem, coll->m.k[i]) == 1)
				return sk__cel_bool(c, 1);
		return sk__cel_bool(c, 0);
	}
	return NOOV();
}

cval *sk__cel_binary(cel_ctx *c, int op, cval *a, cval *b)
{
	int r;

	switch (op) {
	case OP_EQ:
	case OP_NE:
		r = sk__cel_equal(c, a, b);
		return sk__cel_bool(c, op == OP_EQ ? r == 1 : r != 1);
	case OP_LT:
	case OP_LE:
	case OP_GT:
	case OP_GE:
		r = sk__cel_compare(c, a, b);
		if (r == -2)
			return NOOV();
		if (r == -3)
			return sk__cel_bool(c, 0); /* NaN */
		return sk__cel_bool(c, op == OP_LT ? r < 0 : op == OP_LE ? r <= 0 : op == OP_GT ? r > 0 : r >= 0);
	case OP_IN:
		return contains(c, a, b);
	default:
		return arith(c, op, a, b);
	}
}

/* ---- strings ---- */

static size_t utf8_len(const char *s, size_t n)
{
	size_t r = 0;

	for (size_t i = 0; i < n; i++)
		r += ((unsigned char)s[i] & 0xc0) != 0x80;
	return r;
}

/* Byte offset of code point i in s (n bytes); n when past the end. */
static size_t utf8_off(const char *s, size_t n, size_t i)
{
	size_t k = 0, cp = 0;

	while (k < n) {
		if (((unsigned char)s[k] & 0xc0) != 0x80) {
			if (cp == i)
				return k;
			cp++;
		}
		k++;
	}
	return n;
}

static const char *memfind(const char *h, size_t hn, const char *nd, size_t nn)
{
	if (!nn)
		return h;
	for (size_t i = 0; i + nn <= hn; i++)
		if (!memcmp(h + i, nd, nn))
			return h + i;
	return NULL;
}

static const char *memfind_last(const char *h, size_t hn, const char *nd, size_t nn)
{
	if (nn > hn)
		return NULL;
	for (size_t i = hn - nn + 1; i-- > 0;)
		if (!memcmp(h + i, nd, nn))
			return h + i;
	return NULL;
}

/* RE2 refuses back references and repetition counts above 1000; nested
 * counts are bounded too, as regcomp expands each of them. */
static int repetitions_ok(const char *p, size_t n)
{
	double product = 1;

	for (size_t i = 0; i < n; i++) {
		if (p[i] == '\\' && i + 1 < n) {
			if (p[i + 1] >= '1' && p[i + 1] <= '9')
				return 0;
			i++;
			continue;
		}
		if (p[i] == '{' && i + 1 < n && p[i + 1] >= '0' && p[i + 1] <= '9') {
			long a = strtol(p + i + 1, NULL, 10);
			const char *comma = memchr(p + i, ',', n - i), *close = memchr(p + i, '}', n - i);
			long b = comma && close && comma < close && comma[1] != '}' ? strtol(comma + 1, NULL, 10) : a;

			if (a > 1000 || b > 1000)
				return 0;
			product *= (double)(b > 0 ? b : 1);
			if (product > 1e5)
				return 0;
		}
	}
	return 1;
}

/* RE2 syntax the POSIX ERE of regcomp lacks, translated: \d \w \s (and
 * their negations), (?: groups, a leading (?i). */
static int compile_re(cel_ctx *c, cval *pat, regex_t *re)
{
	const char *p = pat->s.p, *end = p + pat->s.n;
	char *out = sk__cel_alloc(c, pat->s.n * 16 + 1), *o = out;
	int flags = REG_EXTENDED, in_bracket = 0;

	if (memchr(p, 0, pat->s.n) || !repetitions_ok(p, pat->s.n))
		return -1;
	if (pat->s.n >= 4 && !strncmp(p, "(?i)", 4)) {
		flags |= REG_ICASE;
		p += 4;
	}
	while (p < end) {
		if (*p == '\\' && p + 1 < end && strchr("dDwWsS", p[1])) {
			static const char *const cls[] = {"0-9", "[:alnum:]_", "[:space:]"};
			int k = (p[1] | 0x20) == 'd' ? 0 : (p[1] | 0x20) == 'w' ? 1 : 2;
			int neg = p[1] >= 'A' && p[1] <= 'Z';

			o += sprintf(o, in_bracket ? "%s" : neg ? "[^%s]" : "[%s]", cls[k]);
			p += 2;
			continue;
		}
		if (!in_bracket && *p == '(' && p + 2 < end && p[1] == '?' && p[2] == ':') {
			*o++ = '(';
			p += 3;
			continue;
		}
		if (*p == '\\' && p + 1 < end) {
			*o++ = *p++;
			*o++ = *p++;
			continue;
		}
		if (*p == '[' && !in_bracket) {
			in_bracket = 1;
			*o++ = *p++;
			if (p < end && *p == '^')
				*o++ = *p++;
			if (p < end && *p == ']')
				*o++ = *p++;
			continue;
		}
		if (*p == ']' && in_bracket)
			in_bracket = 0;
		*o++ = *p++;
	}
	*o = 0;
	sk__cel_charge(c, (int64_t)pat->s.n);
	return regcomp(re, out, flags) ? -1 : 0;
}

/* Compiled patterns, per thread (regexec on a shared regex_t would take
 * glibc's lock): the last RE_CACHE of each thread, freed when it ends. */
#define RE_CACHE 32

struct re_entry {
	char *pat;
	size_t n;
	int ok;
	regex_t re;
};

struct re_cache {
	struct re_entry e[RE_CACHE];
	size_t next;
};

static pthread_key_t re_key;
static pthread_once_t re_once = PTHREAD_ONCE_INIT;

static void re_cache_free(void *p)
{
	struct re_cache *rc = p;

	for (size_t i = 0; i < RE_CACHE; i++) {
		if (rc->e[i].pat && rc->e[i].ok)
			regfree(&rc->e[i].re);
		free(rc->e[i].pat);
	}
	free(rc);
}

static void re_key_init(void)
{
	if (pthread_key_create(&re_key, re_cache_free))
		abort();
}

/* The compiled pattern (owned by the thread's cache), or NULL when invalid. */
static regex_t *cached_re(cel_ctx *c, cval *pat)
{
	struct re_cache *rc;
	struct re_entry *e;

	pthread_once(&re_once, re_key_init);
	rc = pthread_getspecific(re_key);
	if (!rc) {
		rc = xzalloc(sizeof(*rc));
		pthread_setspecific(re_key, rc);
	}
	for (size_t i = 0; i < RE_CACHE; i++) {
		e = &rc->e[i];
		if (e->pat && e->n == pat->s.n && !memcmp(e->pat, pat->s.p, pat->s.n))
			return e->ok ? &e->re : NULL;
	}
	e = &rc->e[rc->next];
	rc->next = (rc->next + 1) % RE_CACHE;
	if (e->pat && e->ok)
		regfree(&e->re);
	free(e->pat);
	e->pat = xmalloc(pat->s.n + 1);
	memcpy(e->pat, pat->s.p, pat->s.n);
	e->pat[pat->s.n] = 0;
	e->n = pat->s.n;
	e->ok = compile_re(c, pat, &e->re) == 0;
	return e->ok ? &e->re : NULL;
}

static cval *regex_fn(cel_ctx *c, const char *fn, cval *s, cval *pat)
{
	regex_t *re;
	regmatch_t m;
	cval *r;

	if (s->t != V_STRING || pat->t != V_STRING)
		return NOOV();
	if (!(re = cached_re(c, pat)))
		return ERR("given regex is invalid: %.*s", (int)pat->s.n, pat->s.p);
	if (memchr(s->s.p, 0, s->s.n))
		return ERR("string contains NUL");
	sk__cel_charge(c, (int64_t)(s->s.n / 4 + 1) * (int64_t)(pat->s.n / 8 + 1));
	if (!strcmp(fn, "matches")) {
		r = sk__cel_bool(c, regexec(re, s->s.p, 0, NULL, 0) == 0);
	} else if (!strcmp(fn, "find")) {
		if (regexec(re, s->s.p, 1, &m, 0) == 0)
			r = sk__cel_str(c, s->s.p + m.rm_so, (size_t)(m.rm_eo - m.rm_so));
		else
			r = sk__cel_str(c, "", 0);
	} else {
		size_t off = 0, k = 0;

		r = sk__cel_list(c, s->s.n + 1);
		while (off <= s->s.n && regexec(re, s->s.p + off, 1, &m, off ? REG_NOTBOL : 0) == 0) {
			r->l.v[k++] = sk__cel_str(c, s->s.p + off + m.rm_so, (size_t)(m.rm_eo - m.rm_so));
			off += m.rm_eo > m.rm_so ? (size_t)m.rm_eo : (size_t)m.rm_eo + 1;
			sk__cel_charge(c, 1);
		}
		r->l.n = k;
	}
	return r;
}

static cval *lower_upper(cel_ctx *c, cval *s, int upper)
{
	cval *r = sk__cel_str(c, s->s.p, s->s.n);
	char *p = (char *)r->s.p;

	for (size_t i = 0; i < r->s.n; i++)
		if (upper ? (p[i] >= 'a' && p[i] <= 'z') : (p[i] >= 'A' && p[i] <= 'Z'))
			p[i] ^= 0x20;
	return r;
}

static cval *replace(cel_ctx *c, cval *s, cval *from, cval *to, int64_t limit)
{
	char *buf = NULL;
	size_t bn = 0;
	FILE *f = open_memstream(&buf, &bn);
	const char *p = s->s.p, *end = s->s.p + s->s.n, *hit;
	int64_t done = 0;
	cval *r;

	if (!f)
		abort();
	while ((limit < 0 || done < limit) && p <= end && (hit = memfind(p, (size_t)(end - p), from->s.p, from->s.n))) {
		fwrite(p, 1, (size_t)(hit - p), f);
		fwrite(to->s.p, 1, to->s.n, f);
		done++;
		if (!from->s.n) {
			if (hit >= end) {
				p = end + 1;
				break;
			}
			fwrite(hit, 1, 1, f);
			p = hit + 1;
		} else {
			p = hit + from->s.n;
		}
		if (bn > (16u << 20))
			break;
	}
	if (p < end)
		fwrite(p, 1, (size_t)(end - p), f);
	fclose(f);
	sk__cel_charge(c, (int64_t)bn / 16);
	r = sk__cel_str(c, buf, bn);
	free(buf);
	return r;
}

static cval *split(cel_ctx *c, cval *s, cval *sep, int64_t limit)
{
	cval *r = sk__cel_list(c, s->s.n + 2);
	const char *p = s->s.p, *end = s->s.p + s->s.n, *hit;
	size_t k = 0;

	if (limit == 0) {
		r->l.n = 0;
		return r;
	}
	if (!sep->s.n) {
		while (p < end && (limit < 0 || (int64_t)k < limit - 1)) {
			size_t l = 1;

			while (p + l < end && ((unsigned char)p[l] & 0xc0) == 0x80)
				l++;
			r->l.v[k++] = sk__cel_str(c, p, l);
			p += l;
		}
		if (p < end)
			r->l.v[k++] = sk__cel_str(c, p, (size_t)(end - p));
		r->l.n = k;
		return r;
	}
	while ((limit < 0 || (int64_t)k < limit - 1) && (hit = memfind(p, (size_t)(end - p), sep->s.p, sep->s.n))) {
		r->l.v[k++] = sk__cel_str(c, p, (size_t)(hit - p));
		p = hit + sep->s.n;
	}
	r->l.v[k++] = sk__cel_str(c, p, (size_t)(end - p));
	r->l.n = k;
	return r;
}

static cval *join(cel_ctx *c, cval *l, cval *sep)
{
	char *buf = NULL;
	size_t bn = 0;
	FILE *f = open_memstream(&buf, &bn);
	cval *r;

	if (!f)
		abort();
	for (size_t i = 0; i < l->l.n; i++) {
		cval *x = sk__cel_list_at(c, l, i);

		if (x->t != V_STRING) {
			fclose(f);
			free(buf);
			return NOOV();
		}
		if (i && sep)
			fwrite(sep->s.p, 1, sep->s.n, f);
		fwrite(x->s.p, 1, x->s.n, f);
	}
	fclose(f);
	sk__cel_charge(c, (int64_t)bn / 16);
	r = sk__cel_str(c, buf, bn);
	free(buf);
	return r;
}

/* The code point at p (of len bytes); -1 for invalid UTF-8 (one byte). */
static int32_t utf8_at(const char *p, const char *end, size_t *len)
{
	const unsigned char *u = (const unsigned char *)p;
	size_t n = u[0] < 0x80 ? 1 : (u[0] >> 5) == 6 ? 2 : (u[0] >> 4) == 14 ? 3 : (u[0] >> 3) == 30 ? 4 : 0;
	int32_t cp;

	*len = 1;
	if (!n || p + n > end)
		return -1;
	cp = n == 1 ? u[0] : n == 2 ? u[0] & 0x1f : n == 3 ? u[0] & 0x0f : u[0] & 0x07;
	for (size_t i = 1; i < n; i++) {
		if ((u[i] & 0xc0) != 0x80)
			return -1;
		cp = (cp << 6) | (u[i] & 0x3f);
	}
	*len = n;
	return cp;
}

/* Unicode's White_Space, as Go's unicode.IsSpace (strings.TrimSpace). */
static int is_space_cp(int32_t cp)
{
	return (cp >= 0x09 && cp <= 0x0d) || cp == 0x20 || cp == 0x85 || cp == 0xa0 || cp == 0x1680 ||
	       (cp >= 0x2000 && cp <= 0x200a) || cp == 0x2028 || cp == 0x2029 || cp == 0x202f || cp == 0x205f ||
	       cp == 0x3000;
}

static cval *trim(cel_ctx *c, cval *s)
{
	const char *p = s->s.p, *end = s->s.p + s->s.n, *last = p;
	size_t l;

	while (p < end && is_space_cp(utf8_at(p, end, &l)))
		p += l;
	/* the end of the last non-space character */
	for (const char *q = p; q < end; q += l)
		if (!is_space_cp(utf8_at(q, end, &l)))
			last = q + l;
	if (last < p)
		last = p;
	return sk__cel_str(c, p, (size_t)(last - p));
}

static cval *string_method(cel_ctx *c, const char *fn, cval *s, cval **a, size_t n)
{
	size_t len = utf8_len(s->s.p, s->s.n);

	sk__cel_charge(c, (int64_t)s->s.n / 16);
	if (!strcmp(fn, "contains") || !strcmp(fn, "startsWith") || !strcmp(fn, "endsWith")) {
		if (n != 1 || a[0]->t != V_STRING)
			return NOOV();
		if (*fn == 'c')
			return sk__cel_bool(c, memfind(s->s.p, s->s.n, a[0]->s.p, a[0]->s.n) != NULL);
		if (a[0]->s.n > s->s.n)
			return sk__cel_bool(c, 0);
		return sk__cel_bool(c,
				    !memcmp(*fn == 's' ? s->s.p : s->s.p + s->s.n - a[0]->s.n, a[0]->s.p, a[0]->s.n));
	}
	if (!strcmp(fn, "matches") || !strcmp(fn, "find") || !strcmp(fn, "findAll")) {
		if (n == 2 && !strcmp(fn, "findAll")) {
			cval *all = regex_fn(c, fn, s, a[0]);

			if (all->t == V_LIST && a[1]->t == V_INT && a[1]->i >= 0 && (uint64_t)a[1]->i < all->l.n)
				all->l.n = (size_t)a[1]->i;
			return all;
		}
		return n == 1 ? regex_fn(c, fn, s, a[0]) : NOOV();
	}
	if (!strcmp(fn, "charAt")) {
		size_t off, l = 1;

		if (n != 1 || a[0]->t != V_INT)
			return NOOV();
		if (a[0]->i < 0 || (uint64_t)a[0]->i > len)
			return ERR("index out of range: %lld", (long long)a[0]->i);
		off = utf8_off(s->s.p, s->s.n, (size_t)a[0]->i);
		if (off >= s->s.n)
			return sk__cel_str(c, "", 0);
		while (off + l < s->s.n && ((unsigned char)s->s.p[off + l] & 0xc0) == 0x80)
			l++;
		return sk__cel_str(c, s->s.p + off, l);
	}
	if (!strcmp(fn, "indexOf") || !strcmp(fn, "lastIndexOf")) {
		int last = *fn == 'l';
		int64_t from = last ? (int64_t)len : 0;
		const char *hit;
		size_t off;

		if (n < 1 || n > 2 || a[0]->t != V_STRING || (n == 2 && a[1]->t != V_INT))
			return NOOV();
		if (n == 2) {
			from = a[1]->i;
			if (from < 0 || (uint64_t)from > len)
				return ERR("index out of range: %lld", (long long)from);
		}
		off = utf8_off(s->s.p, s->s.n, (size_t)from);
		if (last) {
			size_t lim = off + a[0]->s.n > s->s.n ? s->s.n : off + a[0]->s.n;

			hit = memfind_last(s->s.p, lim, a[0]->s.p, a[0]->s.n);
		} else {
			hit = memfind(s->s.p + off, s->s.n - off, a[0]->s.p, a[0]->s.n);
		}
		return sk__cel_int(c, hit ? (int64_t)utf8_len(s->s.p, (size_t)(hit - s->s.p)) : -1);
	}
	if (!strcmp(fn, "lowerAscii") || !strcmp(fn, "upperAscii"))
		return n ? NOOV() : lower_upper(c, s, *fn == 'u');
	if (!strcmp(fn, "replace")) {
		if (n < 2 || n > 3 || a[0]->t != V_STRING || a[1]->t != V_STRING || (n == 3 && a[2]->t != V_INT))
			return NOOV();
		return replace(c, s, a[0], a[1], n == 3 ? a[2]->i : -1);
	}
	if (!strcmp(fn, "split")) {
		if (n < 1 || n > 2 || a[0]->t != V_STRING || (n == 2 && a[1]->t != V_INT))
			return NOOV();
		return split(c, s, a[0], n == 2 ? a[1]->i : -1);
	}
	if (!strcmp(fn, "substring")) {
		int64_t b, e;

		if (n < 1 || n > 2 || a[0]->t != V_INT || (n == 2 && a[1]->t != V_INT))
			return NOOV();
		b = a[0]->i;
		e = n == 2 ? a[1]->i : (int64_t)len;
		if (b < 0 || (uint64_t)b > len)
			return ERR("index out of range: %lld", (long long)b);
		if (e < 0 || (uint64_t)e > len)
			return ERR("index out of range: %lld", (long long)e);
		if (b > e)
			return ERR("invalid substring range. start: %lld, end: %lld", (long long)b, (long long)e);
		{
			size_t ob = utf8_off(s->s.p, s->s.n, (size_t)b), oe = utf8_off(s->s.p, s->s.n, (size_t)e);

			return sk__cel_str(c, s->s.p + ob, oe - ob);
		}
	}
	if (!strcmp(fn, "trim"))
		return n ? NOOV() : trim(c, s);
	if (!strcmp(fn, "reverse")) {
		cval *r = sk__cel_str(c, s->s.p, s->s.n);
		char *o = (char *)r->s.p;
		size_t k = s->s.n;

		for (size_t i = 0; i < s->s.n;) {
			size_t l = 1;

			while (i + l < s->s.n && ((unsigned char)s->s.p[i + l] & 0xc0) == 0x80)
				l++;
			k -= l;
			memcpy(o + k, s->s.p + i, l);
			i += l;
		}
		return r;
	}
	return NOOV();
}

/* ---- lists ---- */

static cval *list_method(cel_ctx *c, const char *fn, cval *l, cval **a, size_t n)
{
	size_t len = l->l.n;

	sk__cel_charge(c, (int64_t)len);
	if (!strcmp(fn, "join")) {
		if (n > 1 || (n == 1 && a[0]->t != V_STRING))
			return NOOV();
		return join(c, l, n ? a[0] : NULL);
	}
	if (!strcmp(fn, "isSorted") || !strcmp(fn, "min") || !strcmp(fn, "max")) {
		cval *best = NULL;

		if (n)
			return NOOV();
		for (size_t i = 0; i < len; i++) {
			cval *x = sk__cel_list_at(c, l, i);
			int r;

			if (!best) {
				best = x;
				if (sk__cel_compare(c, x, x) == -2)
					return NOOV();
				continue;
			}
			r = sk__cel_compare(c, best, x);
			if (r == -2)
				return NOOV();
			if (*fn == 'i') {
				if (r > 0)
					return sk__cel_bool(c, 0);
				best = x;
			} else if ((fn[1] == 'i' && r > 0) || (fn[1] == 'a' && r < 0)) {
				best = x;
			}
		}
		if (*fn == 'i')
			return sk__cel_bool(c, 1);
		return best ? best : ERR("%s called on empty list", fn);
	}
	if (!strcmp(fn, "sum")) {
		cval *acc = NULL;

		if (n)
			return NOOV();
		for (size_t i = 0; i < len; i++) {
			cval *x = sk__cel_list_at(c, l, i);

			acc = acc ? sk__cel_binary(c, OP_ADD, acc, x) : x;
			if (acc->t == V_ERROR)
				return acc;
		}
		return acc ? acc : sk__cel_int(c, 0);
	}
	if (!strcmp(fn, "indexOf") || !strcmp(fn, "lastIndexOf")) {
		if (n != 1)
			return NOOV();
		for (size_t k = 0; k < len; k++) {
			size_t i = *fn == 'l' ? len - 1 - k : k;

			if (sk__cel_equal(c, sk__cel_list_at(c, l, i), a[0]) == 1)
				return sk__cel_int(c, (int64_t)i);
		}
		return sk__cel_int(c, -1);
	}
	if (!strcmp(fn, "reverse") || !strcmp(fn, "distinct")) {
		cval *r = sk__cel_list(c, len);
		size_t k = 0;

		if (n)
			return NOOV();
		for (size_t i = 0; i < len; i++) {
			cval *x = sk__cel_list_at(c, l, *fn == 'r' ? len - 1 - i : i);
			int dup = 0;

			for (size_t j = 0; *fn == 'd' && j < k && !dup; j++)
				dup = sk__cel_equal(c, r->l.v[j], x) == 1;
			if (!dup)
				r->l.v[k++] = x;
		}
		r->l.n = k;
		return r;
	}
	if (!strcmp(fn, "slice")) {
		cval *r;

		if (n != 2 || a[0]->t != V_INT || a[1]->t != V_INT)
			return NOOV();
		if (a[0]->i < 0 || a[1]->i < a[0]->i || (uint64_t)a[1]->i > len)
			return ERR("index out of bounds");
		r = sk__cel_list(c, (size_t)(a[1]->i - a[0]->i));
		for (int64_t i = a[0]->i; i < a[1]->i; i++)
			r->l.v[i - a[0]->i] = sk__cel_list_at(c, l, (size_t)i);
		return r;
	}
	return NOOV();
}

static cval *sets_fn(cel_ctx *c, const char *fn, cval **a, size_t n)
{
	size_t hits = 0;

	if (n != 2 || a[0]->t != V_LIST || a[1]->t != V_LIST)
		return NOOV();
	sk__cel_charge(c, (int64_t)(a[0]->l.n * a[1]->l.n));
	if (!strcmp(fn, "sets.equivalent")) {
		cval *x[2] = {a[0], a[1]};

		x[0] = sets_fn(c, "sets.contains", x, 2);
		x[1] = a[0];
		{
			cval *y[2] = {a[1], a[0]};
			cval *b = sets_fn(c, "sets.contains", y, 2);

			return sk__cel_bool(c, x[0]->b && b->b);
		}
	}
	for (size_t i = 0; i < a[1]->l.n; i++) {
		cval *x = sk__cel_list_at(c, a[1], i);
		int found = 0;

		for (size_t k = 0; k < a[0]->l.n && !found; k++)
			found = sk__cel_equal(c, sk__cel_list_at(c, a[0], k), x) == 1;
		hits += found;
		if (!strcmp(fn, "sets.intersects") && found)
			return sk__cel_bool(c, 1);
	}
	if (!strcmp(fn, "sets.intersects"))
		return sk__cel_bool(c, 0);
	return sk__cel_bool(c, hits == a[1]->l.n);
}

/* ---- conversions ---- */

static cval *to_int(cel_ctx *c, cval *x)
{
	switch (x->t) {
	case V_INT:
		return x;
	case V_UINT:
		return x->u > INT64_MAX ? ERR("integer overflow") : sk__cel_int(c, (int64_t)x->u);
	case V_DOUBLE:
		if (!(x->d > -9223372036854775808.0 && x->d < 9223372036854775808.0))
			return ERR("integer overflow");
		return sk__cel_int(c, (int64_t)x->d);
	case V_STRING: {
		char *e;
		cleanup_free char *t = xstrndup(x->s.p, x->s.n);
		long long v;

		errno = 0;
		v = strtoll(t, &e, 10);
		if (errno || e == t || *e)
			return ERR("cannot convert '%s' to int", t);
		return sk__cel_int(c, v);
	}
	case V_TIMESTAMP:
		return sk__cel_int(c, x->ts.sec);
	case V_DURATION:
		return sk__cel_int(c, x->i);
	default:
		return NOOV();
	}
}

static cval *to_uint(cel_ctx *c, cval *x)
{
	switch (x->t) {
	case V_UINT:
		return x;
	case V_INT:
		return x->i < 0 ? ERR("unsigned integer overflow") : sk__cel_uint(c, (uint64_t)x->i);
	case V_DOUBLE:
		if (!(x->d > -1.0 && x->d < 18446744073709551616.0))
			return ERR("unsigned integer overflow");
		return sk__cel_uint(c, (uint64_t)x->d);
	case V_STRING: {
		char *e;
		cleanup_free char *t = xstrndup(x->s.p, x->s.n);
		unsigned long long v;

		errno = 0;
		v = strtoull(t, &e, 10);
		if (errno || e == t || *e || *t == '-')
			return ERR("cannot convert '%s' to uint", t);
		return sk__cel_uint(c, v);
	}
	default:
		return NOOV();
	}
}

static cval *to_double(cel_ctx *c, cval *x)
{
	switch (x->t) {
	case V_DOUBLE:
		return x;
	case V_INT:
		return sk__cel_double(c, (double)x->i);
	case V_UINT:
		return sk__cel_double(c, (double)x->u);
	case V_STRING: {
		char *e;
		cleanup_free char *t = xstrndup(x->s.p, x->s.n);
		double v = strtod(t, &e);

		if (e == t || *e)
			return ERR("cannot convert '%s' to double", t);
		return sk__cel_double(c, v);
	}
	default:
		return NOOV();
	}
}

static int valid_utf8(const char *s, size_t n)
{
	for (size_t i = 0; i < n;) {
		unsigned char ch = (unsigned char)s[i];
		size_t l = ch < 0x80 ? 1 : (ch >> 5) == 6 ? 2 : (ch >> 4) == 14 ? 3 : (ch >> 3) == 30 ? 4 : 0;

		if (!l || i + l > n)
			return 0;
		for (size_t k = 1; k < l; k++)
			if (((unsigned char)s[i + k] & 0xc0) != 0x80)
				return 0;
		i += l;
	}
	return 1;
}

static cval *ip_string(cel_ctx *c, cval *x);

static cval *to_string(cel_ctx *c, cval *x)
{
	char buf[64];

	switch (x->t) {
	case V_STRING:
		return x;
	case V_INT:
		snprintf(buf, sizeof(buf), "%lld", (long long)x->i);
		break;
	case V_UINT:
		snprintf(buf, sizeof(buf), "%llu", (unsigned long long)x->u);
		break;
	case V_DOUBLE:
		sk__cel_fmt_double(x->d, buf, sizeof(buf));
		break;
	case V_BOOL:
		snprintf(buf, sizeof(buf), "%s", x->b ? "true" : "false");
		break;
	case V_BYTES:
		if (!valid_utf8(x->s.p, x->s.n))
			return ERR("invalid UTF-8 in bytes, cannot convert to string");
		return sk__cel_str(c, x->s.p, x->s.n);
	case V_TIMESTAMP:
		sk__cel_fmt_timestamp(x->ts.sec, x->ts.nsec, buf, sizeof(buf));
		break;
	case V_DURATION:
		sk__cel_fmt_duration(x->i, buf, sizeof(buf));
		break;
	case V_QUANTITY:
	case V_URL:
		return sk__cel_str(c, x->s.p, x->s.n);
	case V_IP:
	case V_CIDR:
		return ip_string(c, x);
	case V_TYPE:
		return sk__cel_str(c, x->s.p, x->s.n);
	default:
		return NOOV();
	}
	return sk__cel_str(c, buf, strlen(buf));
}

/* ---- timestamps ---- */

/* The broken-down time of ts in tz ("UTC", "+05:30", "-08:00"; NULL: UTC). */
static int ts_tm(cval *ts, cval *tz, struct tm *tm)
{
	int64_t off = 0;
	time_t t;

	if (tz) {
		cleanup_free char *z = xstrndup(tz->s.p, tz->s.n);
		int h, m;

		if (!strcmp(z, "UTC") || !strcmp(z, "Z"))
			off = 0;
		else if ((*z == '+' || *z == '-') && sscanf(z + 1, "%2d:%2d", &h, &m) == 2)
			off = (h * 3600 + m * 60) * (*z == '-' ? -1 : 1);
		else if (*z >= '0' && *z <= '9' && sscanf(z, "%2d:%2d", &h, &m) == 2)
			off = h * 3600 + m * 60; /* "02:00": a positive offset */
		else
			return -1;
	}
	t = (time_t)(ts->ts.sec + off);
	gmtime_r(&t, tm);
	return 0;
}

static cval *ts_method(cel_ctx *c, const char *fn, cval *ts, cval **a, size_t n)
{
	struct tm tm;

	if (n > 1 || (n == 1 && a[0]->t != V_STRING))
		return NOOV();
	if (ts_tm(ts, n ? a[0] : NULL, &tm) < 0)
		return ERR("unknown time zone %.*s", (int)a[0]->s.n, a[0]->s.p);
	if (!strcmp(fn, "getFullYear"))
		return sk__cel_int(c, tm.tm_year + 1900);
	if (!strcmp(fn, "getMonth"))
		return sk__cel_int(c, tm.tm_mon);
	if (!strcmp(fn, "getDayOfYear"))
		return sk__cel_int(c, tm.tm_yday);
	if (!strcmp(fn, "getDayOfMonth"))
		return sk__cel_int(c, tm.tm_mday - 1);
	if (!strcmp(fn, "getDate"))
		return sk__cel_int(c, tm.tm_mday);
	if (!strcmp(fn, "getDayOfWeek"))
		return sk__cel_int(c, tm.tm_wday);
	if (!strcmp(fn, "getHours"))
		return sk__cel_int(c, tm.tm_hour);
	if (!strcmp(fn, "getMinutes"))
		return sk__cel_int(c, tm.tm_min);
	if (!strcmp(fn, "getSeconds"))
		return sk__cel_int(c, tm.tm_sec);
	if (!strcmp(fn, "getMilliseconds"))
		return sk__cel_int(c, ts->ts.nsec / 1000000);
	return NOOV();
}

static cval *dur_method(cel_ctx *c, const char *fn, cval *d, size_t n)
{
	if (n)
		return NOOV();
	if (!strcmp(fn, "getHours"))
		return sk__cel_int(c, d->i / 3600000000000LL);
	if (!strcmp(fn, "getMinutes"))
		return sk__cel_int(c, d->i / 60000000000LL);
	if (!strcmp(fn, "getSeconds"))
		return sk__cel_int(c, d->i / 1000000000LL);
	if (!strcmp(fn, "getMilliseconds"))
		return sk__cel_int(c, (d->i / 1000000LL) % 1000);
	return NOOV();
}

/* ---- Kubernetes: quantity, url, ip, cidr ---- */

static int parse_quantity(cval *s, int64_t *milli)
{
	cleanup_free char *t = xstrndup(s->s.p, s->s.n);

	return sk_quantity_milli(t, milli);
}

static cval *quantity(cel_ctx *c, cval *s)
{
	int64_t m;
	cval *q;

	if (parse_quantity(s, &m) < 0)
		return ERR("quantities must match the regular expression "
			   "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
	q = sk__cel_new(c, V_QUANTITY);
	q->s.p = sk__cel_str(c, s->s.p, s->s.n)->s.p;
	q->s.n = s->s.n;
	q->s.milli = m;
	return q;
}

static cval *quantity_of_milli(cel_ctx *c, int64_t m)
{
	char buf[64];
	cval *q = sk__cel_new(c, V_QUANTITY);

	sk_quantity_format_milli(m, buf, sizeof(buf));
	q->s.p = sk__cel_str(c, buf, strlen(buf))->s.p;
	q->s.n = strlen(buf);
	q->s.milli = m;
	return q;
}

static cval *quantity_method(cel_ctx *c, const char *fn, cval *q, cval **a, size_t n)
{
	if (!strcmp(fn, "isInteger"))
		return sk__cel_bool(c, q->s.milli % 1000 == 0);
	if (!strcmp(fn, "asInteger")) {
		if (q->s.milli % 1000)
			return ERR("cannot convert value to integer");
		return sk__cel_int(c, q->s.milli / 1000);
	}
	if (!strcmp(fn, "asApproximateFloat"))
		return sk__cel_double(c, (double)q->s.milli / 1000.0);
	if (!strcmp(fn, "sign"))
		return sk__cel_int(c, q->s.milli > 0 ? 1 : q->s.milli < 0 ? -1 : 0);
	if (n != 1)
		return NOOV();
	if (!strcmp(fn, "add") || !strcmp(fn, "sub")) {
		int64_t o, r;

		if (a[0]->t == V_QUANTITY)
			o = a[0]->s.milli;
		else if (a[0]->t == V_INT && !__builtin_mul_overflow(a[0]->i, 1000, &o))
			;
		else
			return NOOV();
		if (*fn == 'a' ? __builtin_add_overflow(q->s.milli, o, &r) : __builtin_sub_overflow(q->s.milli, o, &r))
			return ERR("integer overflow");
		return quantity_of_milli(c, r);
	}
	if (a[0]->t != V_QUANTITY)
		return NOOV();
	if (!strcmp(fn, "isLessThan"))
		return sk__cel_bool(c, q->s.milli < a[0]->s.milli);
	if (!strcmp(fn, "isGreaterThan"))
		return sk__cel_bool(c, q->s.milli > a[0]->s.milli);
	if (!strcmp(fn, "compareTo"))
		return sk__cel_int(c, q->s.milli < a[0]->s.milli ? -1 : q->s.milli > a[0]->s.milli);
	return NOOV();
}

/* url(): an absolute URI or an absolute path, as Go's url.ParseRequestURI. */
static CURLU *parse_url(cval *s)
{
	cleanup_free char *t = xstrndup(s->s.p, s->s.n);
	CURLU *u;

	if (memchr(s->s.p, 0, s->s.n) || !s->s.n)
		return NULL;
	u = curl_url();
	if (*t == '/') {
		cleanup_free char *full = xasprintf("http://placeholder.invalid%s", t);

		if (curl_url_set(u, CURLUPART_URL, full, CURLU_PATH_AS_IS | CURLU_ALLOW_SPACE) != CURLUE_OK)
			goto bad;
		return u;
	}
	if (!strstr(t, ":") ||
	    curl_url_set(u, CURLUPART_URL, t, CURLU_NON_SUPPORT_SCHEME | CURLU_PATH_AS_IS) != CURLUE_OK)
		goto bad;
	return u;
bad:
	curl_url_cleanup(u);
	return NULL;
}

static cval *url_part(cel_ctx *c, cval *url, const char *fn)
{
	CURLU *u = parse_url(url);
	char *part = NULL;
	cval *r;
	int relative = url->s.n && url->s.p[0] == '/';

	if (!u)
		return ERR("URL parse error");
	if (!strcmp(fn, "getScheme")) {
		if (!relative)
			curl_url_get(u, CURLUPART_SCHEME, &part, 0);
	} else if (!strcmp(fn, "getHost") || !strcmp(fn, "getHostname")) {
		if (!relative) {
			char *port = NULL;

			curl_url_get(u, CURLUPART_HOST, &part, 0);
			if (!strcmp(fn, "getHost") && curl_url_get(u, CURLUPART_PORT, &port, 0) == CURLUE_OK && port) {
				char *hp = xasprintf("%s:%s", part ? part : "", port);

				curl_free(part);
				curl_free(port);
				r = sk__cel_str(c, hp, strlen(hp));
				free(hp);
				curl_url_cleanup(u);
				return r;
			}
			if (part && *part == '[' && !strcmp(fn, "getHostname")) {
				r = sk__cel_str(c, part + 1, strlen(part) - 2);
				curl_free(part);
				curl_url_cleanup(u);
				return r;
			}
		}
	} else if (!strcmp(fn, "getPort")) {
		if (!relative)
			curl_url_get(u, CURLUPART_PORT, &part, 0);
	} else if (!strcmp(fn, "getEscapedPath")) {
		curl_url_get(u, CURLUPART_PATH, &part, 0);
	}
	r = sk__cel_str(c, part ? part : "", part ? strlen(part) : 0);
	curl_free(part);
	curl_url_cleanup(u);
	return r;
}

static int parse_ip(cval *s, cval *out)
{
	cleanup_free char *t = xstrndup(s->s.p, s->s.n);

	memset(&out->ip, 0, sizeof(out->ip));
	if (strchr(t, '%'))
		return -1; /* zones are refused, as upstream */
	if (inet_pton(AF_INET, t, out->ip.a) == 1)
		out->ip.fam = 4;
	else if (inet_pton(AF_INET6, t, out->ip.a) == 1)
		out->ip.fam = 6;
	else
		return -1;
	/* IPv4-mapped IPv6 addresses are refused, as library.IP does */
	if (out->ip.fam == 6 && strchr(t, '.'))
		return -1;
	out->ip.prefix = out->ip.fam == 4 ? 32 : 128;
	return 0;
}

static int parse_cidr(cval *s, cval *out)
{
	const char *slash = memchr(s->s.p, '/', s->s.n);
	cval ip = {.t = V_STRING};
	char *e;
	long pl;
	cleanup_free char *pfx = NULL;

	if (!slash)
		return -1;
	ip.s.p = s->s.p;
	ip.s.n = (size_t)(slash - s->s.p);
	if (parse_ip(&ip, out) < 0)
		return -1;
	pfx = xstrndup(slash + 1, s->s.n - ip.s.n - 1);
	if (!*pfx || (*pfx == '0' && pfx[1]))
		return -1;
	pl = strtol(pfx, &e, 10);
	if (*e || pl < 0 || pl > (out->ip.fam == 4 ? 32 : 128))
		return -1;
	out->ip.prefix = (int)pl;
	return 0;
}

static cval *ip_string(cel_ctx *c, cval *x)
{
	char buf[INET6_ADDRSTRLEN + 8];

	inet_ntop(x->ip.fam == 4 ? AF_INET : AF_INET6, x->ip.a, buf, sizeof(buf));
	if (x->t == V_CIDR)
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "/%d", x->ip.prefix);
	return sk__cel_str(c, buf, strlen(buf));
}

static int prefix_match(const unsigned char *a, const unsigned char *b, int bits)
{
	for (int i = 0; i < bits; i++)
		if (((a[i / 8] >> (7 - i % 8)) ^ (b[i / 8] >> (7 - i % 8))) & 1)
			return 0;
	return 1;
}

static cval *ip_method(cel_ctx *c, const char *fn, cval *ip, size_t n)
{
	const unsigned char *a = ip->ip.a;
	int v4 = ip->ip.fam == 4;
	static const unsigned char zero[16];

	if (n)
		return NOOV();
	if (!strcmp(fn, "family"))
		return sk__cel_int(c, ip->ip.fam);
	if (!strcmp(fn, "isUnspecified"))
		return sk__cel_bool(c, !memcmp(a, zero, v4 ? 4 : 16));
	if (!strcmp(fn, "isLoopback"))
		return sk__cel_bool(c, v4 ? a[0] == 127 : (!memcmp(a, zero, 15) && a[15] == 1));
	if (!strcmp(fn, "isLinkLocalMulticast"))
		return sk__cel_bool(c, v4 ? (a[0] == 224 && a[1] == 0 && a[2] == 0)
					  : (a[0] == 0xff && (a[1] & 0x0f) == 0x02));
	if (!strcmp(fn, "isLinkLocalUnicast"))
		return sk__cel_bool(c, v4 ? (a[0] == 169 && a[1] == 254) : (a[0] == 0xfe && (a[1] & 0xc0) == 0x80));
	if (!strcmp(fn, "isGlobalUnicast")) {
		int r;

		if (v4)
			r = !(a[0] == 0 && a[1] == 0 && a[2] == 0 && a[3] == 0) && a[0] != 127 && a[0] < 224 &&
			    !(a[0] == 169 && a[1] == 254) && !(a[0] == 255);
		else
			r = memcmp(a, zero, 16) && !(!memcmp(a, zero, 15) && a[15] == 1) && a[0] != 0xff &&
			    !(a[0] == 0xfe && (a[1] & 0xc0) == 0x80);
		return sk__cel_bool(c, r);
	}
	return NOOV();
}

static cval *cidr_method(cel_ctx *c, const char *fn, cval *cidr, cval **a, size_t n)
{
	if (!strcmp(fn, "prefixLength") && !n)
		return sk__cel_int(c, cidr->ip.prefix);
	if ((!strcmp(fn, "ip") || !strcmp(fn, "masked")) && !n) {
		cval *r = sk__cel_new(c, *fn == 'i' ? V_IP : V_CIDR);

		r->ip = cidr->ip;
		if (*fn == 'i')
			r->ip.prefix = cidr->ip.fam == 4 ? 32 : 128;
		else
			for (int i = cidr->ip.prefix; i < (cidr->ip.fam == 4 ? 32 : 128); i++)
				r->ip.a[i / 8] &= (unsigned char)~(1u << (7 - i % 8));
		return r;
	}
	if ((!strcmp(fn, "containsIP") || !strcmp(fn, "containsCIDR")) && n == 1) {
		cval x = {.t = V_IP};
		cval *o = a[0];

		if (o->t == V_STRING) {
			if ((fn[8] == 'I' ? parse_ip(o, &x) : parse_cidr(o, &x)) < 0)
				return ERR("network address parse error during conversion from string");
			o = &x;
		}
		if ((fn[8] == 'I' && o->t != V_IP && o->t != V_STRING) || (fn[8] == 'C' && o->t != V_CIDR && o != &x))
			return NOOV();
		if (o->ip.fam != cidr->ip.fam)
			return sk__cel_bool(c, 0);
		if (fn[8] == 'C' && o->ip.prefix < cidr->ip.prefix)
			return sk__cel_bool(c, 0);
		return sk__cel_bool(c, prefix_match(o->ip.a, cidr->ip.a, cidr->ip.prefix));
	}
	return NOOV();
}

static int is_zero(cval *v)
{
	switch (v->t) {
	case V_NULL:
		return 1;
	case V_BOOL:
		return !v->b;
	case V_INT:
	case V_DURATION:
		return !v->i;
	case V_UINT:
		return !v->u;
	case V_DOUBLE:
		return v->d == 0;
	case V_STRING:
	case V_BYTES:
		return !v->s.n;
	case V_LIST:
	case V_MAP:
		return !sk__cel_len(v);
	case V_TIMESTAMP:
		return !v->ts.sec && !v->ts.nsec;
	default:
		return 0;
	}
}

/* ---- Kubernetes: format (apiserver's cel/library/format.go) ---- */

static const char *const format_names[] = {"dns1123Label",
					   "dns1123Subdomain",
					   "dns1035Label",
					   "qualifiedName",
					   "dns1123LabelPrefix",
					   "dns1123SubdomainPrefix",
					   "dns1035LabelPrefix",
					   "labelValue",
					   "uri",
					   "uuid",
					   "byte",
					   "date",
					   "datetime",
					   NULL};

/* The format named name (n bytes), or NULL. */
static cval *format_of(cel_ctx *c, const char *name, size_t n)
{
	for (int k = 0; format_names[k]; k++) {
		if (strlen(format_names[k]) == n && !memcmp(format_names[k], name, n)) {
			cval *r = sk__cel_new(c, V_FORMAT);

			r->s.p = format_names[k];
			r->s.n = n;
			return r;
		}
	}
	return NULL;
}

static cval *str_list(cel_ctx *c, json_t *msgs)
{
	cval *l = sk__cel_list(c, json_array_size(msgs));
	json_t *m;
	size_t i;

	json_array_foreach(msgs, i, m)
		l->l.v[i] = sk__cel_str(c, json_string_value(m), json_string_length(m));
	return l;
}

/* <Format>.validate(s): optional.none() when s is valid, else the optional
 * list of apimachinery's (or strfmt's) messages. */
static cval *format_validate(cel_ctx *c, cval *f, cval *s)
{
	cleanup_free char *name = xstrndup(f->s.p, f->s.n), *v = xstrndup(s->s.p, s->s.n);
	cleanup_json json_t *msgs = sk_validate_named_format(name, v);
	static const struct {
		const char *name, *openapi, *msg;
	} strfmt[] = {{"uuid", "uuid", "does not match the UUID format"},
		      {"byte", "byte", "invalid base64"},
		      {"date", "date", "invalid date"},
		      {"datetime", "date-time", "invalid datetime"}};

	sk__cel_charge(c, (int64_t)s->s.n / 10 + 1);
	if (!msgs && !strcmp(name, "uri")) {
		CURLU *u = parse_url(s);

		msgs = json_array();
		if (u)
			curl_url_cleanup(u);
		else
			json_array_append_new(msgs, json_sprintf("parse \"%s\": invalid URI for request", v));
	}
	for (size_t k = 0; !msgs && k < sizeof(strfmt) / sizeof(strfmt[0]); k++) {
		if (strcmp(name, strfmt[k].name))
			continue;
		msgs = json_array();
		if (strlen(v) != s->s.n || !sk__openapi_format_ok(strfmt[k].openapi, v))
			json_array_append_new(msgs, json_string(strfmt[k].msg));
	}
	if (!msgs)
		return NOOV();
	return sk__cel_opt(c, json_array_size(msgs) ? str_list(c, msgs) : NULL);
}

static cval *format_fn(cel_ctx *c, const char *fn, cval **a, size_t n)
{
	cval *f;

	if (!strcmp(fn, "format.named")) {
		if (n != 1 || a[0]->t != V_STRING)
			return NOOV();
		return sk__cel_opt(c, format_of(c, a[0]->s.p, a[0]->s.n));
	}
	f = n ? NULL : format_of(c, fn + 7, strlen(fn + 7));
	return f ? f : NOOV();
}

/* ---- dispatch ---- */

static const char *const globals[] = {"size",
				      "int",
				      "uint",
				      "double",
				      "string",
				      "bytes",
				      "bool",
				      "timestamp",
				      "duration",
				      "dyn",
				      "type",
				      "matches",
				      "optional.of",
				      "optional.none",
				      "optional.ofNonZeroValue",
				      "sets.contains",
				      "sets.equivalent",
				      "sets.intersects",
				      "quantity",
				      "isQuantity",
				      "url",
				      "isURL",
				      "ip",
				      "isIP",
				      "cidr",
				      "isCIDR",
				      "strings.quote",
				      "format.named",
				      "format.dns1123Label",
				      "format.dns1123Subdomain",
				      "format.dns1035Label",
				      "format.qualifiedName",
				      "format.dns1123LabelPrefix",
				      "format.dns1123SubdomainPrefix",
				      "format.dns1035LabelPrefix",
				      "format.labelValue",
				      "format.uri",
				      "format.uuid",
				      "format.byte",
				      "format.date",
				      "format.datetime",
				      NULL};

static const char *const members[] = {"size",
				      "contains",
				      "startsWith",
				      "endsWith",
				      "matches",
				      "charAt",
				      "indexOf",
				      "lastIndexOf",
				      "lowerAscii",
				      "upperAscii",
				      "replace",
				      "split",
				      "substring",
				      "trim",
				      "join",
				      "reverse",
				      "isSorted",
				      "sum",
				      "min",
				      "max",
				      "distinct",
				      "slice",
				      "find",
				      "findAll",
				      "getFullYear",
				      "getMonth",
				      "getDayOfYear",
				      "getDayOfMonth",
				      "getDate",
				      "getDayOfWeek",
				      "getHours",
				      "getMinutes",
				      "getSeconds",
				      "getMilliseconds",
				      "hasValue",
				      "value",
				      "orValue",
				      "or",
				      "isInteger",
				      "asInteger",
				      "asApproximateFloat",
				      "sign",
				      "add",
				      "sub",
				      "isLessThan",
				      "isGreaterThan",
				      "compareTo",
				      "getScheme",
				      "getHost",
				      "getHostname",
				      "getPort",
				      "getEscapedPath",
				      "getQuery",
				      "family",
				      "isUnspecified",
				      "isLoopback",
				      "isLinkLocalMulticast",
				      "isLinkLocalUnicast",
				      "isGlobalUnicast",
				      "containsIP",
				      "containsCIDR",
				      "ip",
				      "masked",
				      "prefixLength",
				      "validate",
				      NULL};

/* The authz library's member functions (cel-authz.c). */
static const char *const authz_members[] = {"path",      "group",  "serviceAccount", "resource",      "subresource",
					    "namespace", "name",   "fieldSelector",  "labelSelector", "check",
					    "allowed",   "reason", "errored",        "error",         NULL};

int sk__cel_known_function(const char *name, int member)
{
	const char *const *t = member ? members : globals;

	for (int k = 0; t[k]; k++)
		if (!strcmp(t[k], name))
			return 1;
	return 0;
}

int sk__cel_authz_function(const char *name)
{
	for (int k = 0; authz_members[k]; k++)
		if (!strcmp(authz_members[k], name))
			return 1;
	return 0;
}

static cval *size_of(cel_ctx *c, cval *x)
{
	if (x->t == V_STRING)
		return sk__cel_int(c, (int64_t)utf8_len(x->s.p, x->s.n));
	if (x->t == V_BYTES)
		return sk__cel_int(c, (int64_t)x->s.n);
	if (x->t == V_LIST || x->t == V_MAP)
		return sk__cel_int(c, (int64_t)sk__cel_len(x));
	return NOOV();
}

static cval *quote(cel_ctx *c, cval *s)
{
	char *buf = NULL;
	size_t bn = 0, l;
	FILE *f = open_memstream(&buf, &bn);
	const char *p = s->s.p, *end = s->s.p + s->s.n;
	cval *r;

	if (!f)
		abort();
	fputc('"', f);
	for (; p < end; p += l) {
		static const char ctl[] = "\a\b\f\n\r\t\v", letters[] = "abfnrtv";
		int32_t cp = utf8_at(p, end, &l);
		const char *e = cp > 0 && cp < 0x20 ? memchr(ctl, cp, sizeof(ctl) - 1) : NULL;

		if (cp < 0)
			fputs("\\ufffd", f);
		else if (cp == '"' || cp == '\\')
			fprintf(f, "\\%c", (char)cp);
		else if (e)
			fprintf(f, "\\%c", letters[e - ctl]);
		else
			fwrite(p, 1, l, f);
	}
	fputc('"', f);
	fclose(f);
	r = sk__cel_str(c, buf, bn);
	free(buf);
	return r;
}

static cval *global_call(cel_ctx *c, const char *fn, cval **a, size_t n)
{
	if (!strncmp(fn, "sets.", 5))
		return sets_fn(c, fn, a, n);
	if (!strncmp(fn, "format.", 7))
		return format_fn(c, fn, a, n);
	if (!strcmp(fn, "optional.none"))
		return n ? NOOV() : sk__cel_opt(c, NULL);
	if (n != 1 && strcmp(fn, "matches"))
		return NOOV();
	if (!strcmp(fn, "size"))
		return size_of(c, a[0]);
	if (!strcmp(fn, "int"))
		return to_int(c, a[0]);
	if (!strcmp(fn, "uint"))
		return to_uint(c, a[0]);
	if (!strcmp(fn, "double"))
		return to_double(c, a[0]);
	if (!strcmp(fn, "string"))
		return to_string(c, a[0]);
	if (!strcmp(fn, "dyn"))
		return a[0];
	if (!strcmp(fn, "type"))
		return sk__cel_type(c, sk__cel_type_name(a[0]));
	if (!strcmp(fn, "optional.of"))
		return sk__cel_opt(c, a[0]);
	if (!strcmp(fn, "optional.ofNonZeroValue"))
		return sk__cel_opt(c, is_zero(a[0]) ? NULL : a[0]);
	if (!strcmp(fn, "matches"))
		return n == 2 ? regex_fn(c, "matches", a[0], a[1]) : NOOV();
	if (!strcmp(fn, "bytes")) {
		if (a[0]->t == V_BYTES)
			return a[0];
		return a[0]->t == V_STRING ? sk__cel_bytes(c, a[0]->s.p, a[0]->s.n) : NOOV();
	}
	if (!strcmp(fn, "bool")) {
		static const char *const yes[] = {"1", "t", "true", "TRUE", "True", NULL};
		static const char *const no[] = {"0", "f", "false", "FALSE", "False", NULL};

		if (a[0]->t == V_BOOL)
			return a[0];
		if (a[0]->t != V_STRING)
			return NOOV();
		for (int k = 0; yes[k]; k++)
			if (a[0]->s.n == strlen(yes[k]) && !memcmp(a[0]->s.p, yes[k], a[0]->s.n))
				return sk__cel_bool(c, 1);
		for (int k = 0; no[k]; k++)
			if (a[0]->s.n == strlen(no[k]) && !memcmp(a[0]->s.p, no[k], a[0]->s.n))
				return sk__cel_bool(c, 0);
		return ERR("type conversion error from 'string' to 'bool'");
	}
	if (!strcmp(fn, "timestamp")) {
		int64_t sec;
		int32_t ns;
		cleanup_free char *t = NULL;
		cval *r;

		if (a[0]->t == V_TIMESTAMP)
			return a[0];
		if (a[0]->t == V_INT)
			return mk_ts(c, a[0]->i, 0);
		if (a[0]->t != V_STRING)
			return NOOV();
		t = xstrndup(a[0]->s.p, a[0]->s.n);
		if (sk__cel_parse_timestamp(t, &sec, &ns) < 0)
			return ERR("cannot parse timestamp '%s'", t);
		r = sk__cel_new(c, V_TIMESTAMP);
		r->ts.sec = sec;
		r->ts.nsec = ns;
		return r;
	}
	if (!strcmp(fn, "duration")) {
		int64_t ns;
		cleanup_free char *t = NULL;

		if (a[0]->t == V_DURATION)
			return a[0];
		if (a[0]->t == V_INT)
			return mk_dur(c, a[0]->i);
		if (a[0]->t != V_STRING)
			return NOOV();
		t = xstrndup(a[0]->s.p, a[0]->s.n);
		if (sk__cel_parse_duration(t, &ns) < 0)
			return ERR("cannot parse duration '%s'", t);
		return mk_dur(c, ns);
	}
	if (a[0]->t != V_STRING)
		return NOOV();
	if (!strcmp(fn, "strings.quote"))
		return quote(c, a[0]);
	if (!strcmp(fn, "quantity"))
		return quantity(c, a[0]);
	if (!strcmp(fn, "isQuantity")) {
		int64_t m;

		return sk__cel_bool(c, parse_quantity(a[0], &m) == 0);
	}
	if (!strcmp(fn, "url") || !strcmp(fn, "isURL")) {
		CURLU *u = parse_url(a[0]);
		cval *r;

		if (fn[0] == 'i') {
			r = sk__cel_bool(c, u != NULL);
		} else if (!u) {
			r = ERR("URL parse error during conversion from string: parse \"%.*s\": invalid URI for "
				"request",
				(int)a[0]->s.n, a[0]->s.p);
		} else {
			r = sk__cel_new(c, V_URL);
			r->s = sk__cel_str(c, a[0]->s.p, a[0]->s.n)->s;
		}
		if (u)
			curl_url_cleanup(u);
		return r;
	}
	if (!strcmp(fn, "ip") || !strcmp(fn, "isIP") || !strcmp(fn, "cidr") || !strcmp(fn, "isCIDR")) {
		int is_cidr = strstr(fn, "idr") || strstr(fn, "IDR");
		cval *r = sk__cel_new(c, is_cidr ? V_CIDR : V_IP);
		int bad = is_cidr ? parse_cidr(a[0], r) : parse_ip(a[0], r);

		if (fn[0] == 'i' && fn[1] == 's')
			return sk__cel_bool(c, !bad);
		if (bad)
			return ERR("network address parse error during conversion from string: "
				   "network address parse error during conversion from string");
		return r;
	}
	return NOOV();
}

static cval *optional_method(cel_ctx *c, const char *fn, cval *o, cval **a, size_t n)
{
	if (!strcmp(fn, "hasValue") && !n)
		return sk__cel_bool(c, o->opt != NULL);
	if (!strcmp(fn, "value") && !n)
		return o->opt ? o->opt : ERR("optional.none() dereference");
	if (!strcmp(fn, "orValue") && n == 1)
		return o->opt ? o->opt : a[0];
	if (!strcmp(fn, "or") && n == 1) {
		if (a[0]->t != V_OPTIONAL)
			return NOOV();
		return o->opt ? o : a[0];
	}
	return NOOV();
}

/* url.getQuery(): the query's keys, each to the list of its values. */
static cval *url_query(cel_ctx *c, cval *t)
{
	CURLU *u = parse_url(t);
	char *q = NULL;
	cval *m = sk__cel_new(c, V_MAP);

	if (u && curl_url_get(u, CURLUPART_QUERY, &q, 0) == CURLUE_OK && q) {
		cval *pairs = split(c, sk__cel_str(c, q, strlen(q)), sk__cel_str(c, "&", 1), -1);

		m->m.k = sk__cel_alloc(c, pairs->l.n * sizeof(cval *) + 1);
		m->m.v = sk__cel_alloc(c, pairs->l.n * sizeof(cval *) + 1);
		for (size_t i = 0; i < pairs->l.n; i++) {
			cval *p = pairs->l.v[i], *key, *val, *have, *l;
			const char *eq = memchr(p->s.p, '=', p->s.n);
			size_t kl = eq ? (size_t)(eq - p->s.p) : p->s.n;

			if (!p->s.n)
				continue;
			key = sk__cel_str(c, p->s.p, kl);
			val = sk__cel_str(c, eq ? eq + 1 : "", eq ? p->s.n - kl - 1 : 0);
			have = sk__cel_map_get(c, m, key);
			if (have) {
				l = sk__cel_list(c, have->l.n + 1);
				memcpy(l->l.v, have->l.v, have->l.n * sizeof(cval *));
				l->l.v[have->l.n] = val;
				for (size_t k = 0; k < m->m.n; k++)
					if (sk__cel_equal(c, m->m.k[k], key) == 1)
						m->m.v[k] = l;
				continue;
			}
			l = sk__cel_list(c, 1);
			l->l.v[0] = val;
			m->m.k[m->m.n] = key;
			m->m.v[m->m.n++] = l;
		}
	}
	curl_free(q);
	if (u)
		curl_url_cleanup(u);
	return m;
}

cval *sk__cel_call(cel_ctx *c, const char *fn, cval *t, cval **a, size_t n)
{
	if (!t)
		return global_call(c, fn, a, n);
	if (!strcmp(fn, "size") && !n)
		return size_of(c, t);
	switch (t->t) {
	case V_STRING:
		if (!strcmp(fn, "join"))
			return NOOV();
		return string_method(c, fn, t, a, n);
	case V_LIST:
		return list_method(c, fn, t, a, n);
	case V_TIMESTAMP:
		return ts_method(c, fn, t, a, n);
	case V_DURATION:
		return dur_method(c, fn, t, n);
	case V_OPTIONAL:
		return optional_method(c, fn, t, a, n);
	case V_QUANTITY:
		return quantity_method(c, fn, t, a, n);
	case V_URL:
		if (!strcmp(fn, "getQuery"))
			return n ? NOOV() : url_query(c, t);
		return n ? NOOV() : url_part(c, t, fn);
	case V_IP:
		return ip_method(c, fn, t, n);
	case V_CIDR:
		return cidr_method(c, fn, t, a, n);
	case V_FORMAT:
		if (strcmp(fn, "validate") || n != 1 || a[0]->t != V_STRING)
			return NOOV();
		return format_validate(c, t, a[0]);
	case V_AUTHZ:
		return sk__cel_authz_call(c, fn, t, a, n);
	default:
		return NOOV();
	}
}
