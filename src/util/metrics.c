/* Prometheus metrics: families of series, atomics on the hot path, text
 * 0.0.4 and OpenMetrics 1.0 exposition (prometheus/docs
 * exposition_formats.md, the OpenMetrics 1.0 specification). */
#include <dirent.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "util/metrics.h"
#include "util/util.h"
#include "util/version.h"

const double sk_metric_buckets_default[] = {0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10};
const size_t sk_metric_buckets_default_n = sizeof(sk_metric_buckets_default) / sizeof(double);
const double sk_metric_buckets_apiserver_request[] = {0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2,
						      3,     4,     5,    6,   8,   10,  15,  20,  30,  45,   60};
const size_t sk_metric_buckets_apiserver_request_n = sizeof(sk_metric_buckets_apiserver_request) / sizeof(double);
const double sk_metric_buckets_etcd_request[] = {0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2,
						 3,     4,     5,    6,   8,   10,  15,  20,  30,  45,   60};
const size_t sk_metric_buckets_etcd_request_n = sizeof(sk_metric_buckets_etcd_request) / sizeof(double);
const double sk_metric_buckets_workqueue[] = {1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1, 10};
const size_t sk_metric_buckets_workqueue_n = sizeof(sk_metric_buckets_workqueue) / sizeof(double);
const double sk_metric_buckets_scheduler_attempt[] = {0.001, 0.002, 0.004, 0.008, 0.016, 0.032, 0.064, 0.128,
						      0.256, 0.512, 1.024, 2.048, 4.096, 8.192, 16.384};
const size_t sk_metric_buckets_scheduler_attempt_n = sizeof(sk_metric_buckets_scheduler_attempt) / sizeof(double);

enum { NSLOTS = 64, MAX_COLLECTORS = 32 };

/* One series. The label values follow the struct as one block; a value is
 * a double's bits in a uint64_t so that add can be a compare-and-swap. */
typedef struct series {
	struct series *next;
	uint64_t hash;
	char *key; /* the values joined by '\xff' */
	char *values[SK_METRIC_MAX_LABELS];
	uint64_t bits;     /* counter or gauge value; a histogram's sum */
	uint64_t count;    /* a histogram's count */
	uint64_t *buckets; /* a histogram's per-bucket (not cumulative) counts */
	int64_t ts_ms;     /* the sample's own time (ms since the epoch), 0: the scrape's */
} series;

struct sk_metric_family {
	struct sk_metric_family *next;
	sk_metric_type type;
	char *name, *help, *unit;
	char *labels[SK_METRIC_MAX_LABELS];
	size_t nlabels;
	double *bounds;
	size_t nbounds;
	pthread_rwlock_t lock; /* the slots; series values change under the read lock */
	series *slots[NSLOTS];
	size_t nseries;
};

struct collector {
	void (*fn)(void *);
	void *arg;
	int id;
};

struct sk_metrics {
	pthread_mutex_t mu; /* families list and collectors; held during a scrape's collection */
	sk_metric_family *families;
	struct collector collectors[MAX_COLLECTORS];
	size_t ncollectors;
	int next_id;
	void *process; /* the process collector's families (sk_metrics_register_process) */
};

static double from_bits(uint64_t b)
{
	double d;

	memcpy(&d, &b, sizeof(d));
	return d;
}

static uint64_t to_bits(double d)
{
	uint64_t b;

	memcpy(&b, &d, sizeof(b));
	return b;
}

static void atomic_add_double(uint64_t *p, double v)
{
	uint64_t old = __atomic_load_n(p, __ATOMIC_RELAXED);

	while (!__atomic_compare_exchange_n(p, &old, to_bits(from_bits(old) + v), 1, __ATOMIC_RELAXED,
					    __ATOMIC_RELAXED))
		;
}

sk_metrics *sk_metrics_new(void)
{
	sk_metrics *m = xzalloc(sizeof(*m));

	pthread_mutex_init(&m->mu, NULL);
	m->next_id = 1;
	return m;
}

static void series_free(series *s)
{
	if (!s)
		return;
	free(s->key);
	free(s->buckets);
	free(s);
}

static void family_clear_locked(sk_metric_family *f)
{
	for (size_t i = 0; i < NSLOTS; i++) {
		while (f->slots[i]) {
			series *s = f->slots[i];

			f->slots[i] = s->next;
			series_free(s);
		}
	}
	f->nseries = 0;
}

static void family_free(sk_metric_family *f)
{
	family_clear_locked(f);
	pthread_rwlock_destroy(&f->lock);
	free(f->name);
	free(f->help);
	free(f->unit);
	for (size_t i = 0; i < f->nlabels; i++)
		free(f->labels[i]);
	free(f->bounds);
	free(f);
}

void sk_metrics_free(sk_metrics *m)
{
	if (!m)
		return;
	while (m->families) {
		sk_metric_family *f = m->families;

		m->families = f->next;
		family_free(f);
	}
	pthread_mutex_destroy(&m->mu);
	free(m->process);
	free(m);
}

static pthread_once_t default_once = PTHREAD_ONCE_INIT;
static sk_metrics *default_registry;

static void make_default(void) { default_registry = sk_metrics_new(); }

sk_metrics *sk_metrics_default(void)
{
	pthread_once(&default_once, make_default);
	return default_registry;
}

sk_metric_family *sk_metrics_family(sk_metrics *m, sk_metric_type type, const char *name, const char *help,
				    const char *unit, const char *const *labels, const double *buckets, size_t nbuckets)
{
	sk_metric_family *f;

	pthread_mutex_lock(&m->mu);
	for (f = m->families; f; f = f->next)
		if (!strcmp(f->name, name))
			break;
	if (f) {
		pthread_mutex_unlock(&m->mu);
		if (f->type != type)
			abort(); /* two components disagree on one name: a programming error */
		return f;
	}
	f = xzalloc(sizeof(*f));
	f->type = type;
	f->name = xstrdup(name);
	f->help = xstrdup(help ? help : "");
	f->unit = unit ? xstrdup(unit) : NULL;
	for (size_t i = 0; labels && labels[i]; i++) {
		if (i == SK_METRIC_MAX_LABELS)
			abort();
		f->labels[f->nlabels++] = xstrdup(labels[i]);
	}
	if (type == SK_METRIC_HISTOGRAM) {
		f->bounds = xmalloc((nbuckets ? nbuckets : 1) * sizeof(double));
		memcpy(f->bounds, buckets, nbuckets * sizeof(double));
		f->nbounds = nbuckets;
	}
	pthread_rwlock_init(&f->lock, NULL);
	f->next = m->families;
	m->families = f;
	pthread_mutex_unlock(&m->mu);
	return f;
}

/* FNV-1a over the values, each followed by a 0xff separator. */
static uint64_t hash_values(const sk_metric_family *f, const char *const *values)
{
	uint64_t h = 1469598103934665603ULL;

	for (size_t i = 0; i < f->nlabels; i++) {
		for (const unsigned char *c = (const unsigned char *)(values[i] ? values[i] : ""); *c; c++)
			h = (h ^ *c) * 1099511628211ULL;
		h = (h ^ 0xff) * 1099511628211ULL;
	}
	return h;
}

static int same_values(const series *s, const sk_metric_family *f, const char *const *values)
{
	for (size_t i = 0; i < f->nlabels; i++)
		if (strcmp(s->values[i], values[i] ? values[i] : ""))
			return 0;
	return 1;
}

static series *find_locked(sk_metric_family *f, const char *const *values, uint64_t h)
{
	for (series *s = f->slots[h % NSLOTS]; s; s = s->next)
		if (s->hash == h && same_values(s, f, values))
			return s;
	return NULL;
}

static series *series_new(const sk_metric_family *f, const char *const *values, uint64_t h)
{
	series *s = xzalloc(sizeof(*s));
	size_t len = 0;
	char *p;

	for (size_t i = 0; i < f->nlabels; i++)
		len += strlen(values[i] ? values[i] : "") + 1;
	s->key = p = xmalloc(len + 1);
	for (size_t i = 0; i < f->nlabels; i++) {
		size_t n = strlen(values[i] ? values[i] : "");

		memcpy(p, values[i] ? values[i] : "", n);
		s->values[i] = p;
		p[n] = '\0';
		p += n + 1;
	}
	*p = '\0';
	s->hash = h;
	if (f->type == SK_METRIC_HISTOGRAM)
		s->buckets = xzalloc((f->nbounds + 1) * sizeof(uint64_t));
	return s;
}

/* Runs op on the series of values, creating it if needed; the family's
 * read lock is held during op, so a concurrent removal cannot free it. */
static void with_series_at(sk_metric_family *f, const char *const *values,
			   void (*op)(sk_metric_family *, series *, double), double v, int64_t ts_ms)
{
	static const char *const none[1] = {NULL};
	uint64_t h;
	series *s;

	if (!values)
		values = none;
	h = hash_values(f, values);
	pthread_rwlock_rdlock(&f->lock);
	s = find_locked(f, values, h);
	if (s) {
		op(f, s, v);
		__atomic_store_n(&s->ts_ms, ts_ms, __ATOMIC_RELAXED);
		pthread_rwlock_unlock(&f->lock);
		return;
	}
	pthread_rwlock_unlock(&f->lock);
	pthread_rwlock_wrlock(&f->lock);
	s = find_locked(f, values, h);
	if (!s) {
		s = series_new(f, values, h);
		s->next = f->slots[h % NSLOTS];
		f->slots[h % NSLOTS] = s;
		f->nseries++;
	}
	op(f, s, v);
	__atomic_store_n(&s->ts_ms, ts_ms, __ATOMIC_RELAXED);
	pthread_rwlock_unlock(&f->lock);
}

static void with_series(sk_metric_family *f, const char *const *values,
			void (*op)(sk_metric_family *, series *, double), double v)
{
	with_series_at(f, values, op, v, 0);
}

static void op_add(sk_metric_family *f, series *s, double v)
{
	(void)f;
	atomic_add_double(&s->bits, v);
}

static void op_set(sk_metric_family *f, series *s, double v)
{
	(void)f;
	__atomic_store_n(&s->bits, to_bits(v), __ATOMIC_RELAXED);
}

static void op_observe(sk_metric_family *f, series *s, double v)
{
	size_t i = 0;

	while (i < f->nbounds && v > f->bounds[i])
		i++;
	__atomic_add_fetch(&s->buckets[i], 1, __ATOMIC_RELAXED);
	atomic_add_double(&s->bits, v);
	/* the count last: a scrape reading count then buckets sees buckets >= count */
	__atomic_add_fetch(&s->count, 1, __ATOMIC_RELEASE);
}

void sk_metric_add(sk_metric_family *f, const char *const *values, double v)
{
	if (f->type == SK_METRIC_COUNTER && !(v >= 0))
		return; /* a counter never goes down (client_golang panics) */
	with_series(f, values, op_add, v);
}

void sk_metric_set(sk_metric_family *f, const char *const *values, double v)
{
	if (f->type == SK_METRIC_HISTOGRAM || (f->type == SK_METRIC_COUNTER && !(v >= 0)))
		return;
	with_series(f, values, op_set, v);
}

void sk_metric_set_at(sk_metric_family *f, const char *const *values, double v, int64_t ts_ms)
{
	if (f->type == SK_METRIC_HISTOGRAM || (f->type == SK_METRIC_COUNTER && !(v >= 0)))
		return;
	with_series_at(f, values, op_set, v, ts_ms);
}

void sk_metric_observe(sk_metric_family *f, const char *const *values, double v)
{
	if (f->type != SK_METRIC_HISTOGRAM || isnan(v))
		return;
	with_series(f, values, op_observe, v);
}

void sk_metric_inc1(sk_metric_family *f, const char *value)
{
	const char *v[1] = {value};

	sk_metric_add(f, v, 1);
}

void sk_metric_set1(sk_metric_family *f, const char *value, double val)
{
	const char *v[1] = {value};

	sk_metric_set(f, v, val);
}

double sk_metric_value(sk_metric_family *f, const char *const *values)
{
	static const char *const none[1] = {NULL};
	double v = 0;
	series *s;
	uint64_t h;

	if (!values)
		values = none;
	h = hash_values(f, values);
	pthread_rwlock_rdlock(&f->lock);
	s = find_locked(f, values, h);
	if (s)
		v = f->type == SK_METRIC_HISTOGRAM ? (double)__atomic_load_n(&s->count, __ATOMIC_ACQUIRE)
						   : from_bits(__atomic_load_n(&s->bits, __ATOMIC_RELAXED));
	pthread_rwlock_unlock(&f->lock);
	return v;
}

int sk_metric_remove(sk_metric_family *f, const char *const *values)
{
	static const char *const none[1] = {NULL};
	uint64_t h;
	int found = 0;

	if (!values)
		values = none;
	h = hash_values(f, values);
	pthread_rwlock_wrlock(&f->lock);
	for (series **pp = &f->slots[h % NSLOTS]; *pp; pp = &(*pp)->next) {
		if ((*pp)->hash == h && same_values(*pp, f, values)) {
			series *s = *pp;

			*pp = s->next;
			series_free(s);
			f->nseries--;
			found = 1;
			break;
		}
	}
	pthread_rwlock_unlock(&f->lock);
	return found;
}

size_t sk_metric_remove_matching(sk_metric_family *f, const char *label, const char *value)
{
	size_t li, n = 0;

	for (li = 0; li < f->nlabels; li++)
		if (!strcmp(f->labels[li], label))
			break;
	if (li == f->nlabels)
		return 0;
	pthread_rwlock_wrlock(&f->lock);
	for (size_t i = 0; i < NSLOTS; i++) {
		series **pp = &f->slots[i];

		while (*pp) {
			series *s = *pp;

			if (!strcmp(s->values[li], value)) {
				*pp = s->next;
				series_free(s);
				f->nseries--;
				n++;
			} else {
				pp = &s->next;
			}
		}
	}
	pthread_rwlock_unlock(&f->lock);
	return n;
}

void sk_metric_clear(sk_metric_family *f)
{
	pthread_rwlock_wrlock(&f->lock);
	family_clear_locked(f);
	pthread_rwlock_unlock(&f->lock);
}

int sk_metrics_add_collector(sk_metrics *m, void (*collect)(void *arg), void *arg)
{
	int id = -1;

	pthread_mutex_lock(&m->mu);
	if (m->ncollectors < MAX_COLLECTORS) {
		id = m->next_id++;
		m->collectors[m->ncollectors++] = (struct collector){collect, arg, id};
	}
	pthread_mutex_unlock(&m->mu);
	return id;
}

void sk_metrics_remove_collector(sk_metrics *m, int id)
{
	pthread_mutex_lock(&m->mu);
	for (size_t i = 0; i < m->ncollectors; i++) {
		if (m->collectors[i].id == id) {
			memmove(&m->collectors[i], &m->collectors[i + 1],
				(m->ncollectors - i - 1) * sizeof(m->collectors[0]));
			m->ncollectors--;
			break;
		}
	}
	pthread_mutex_unlock(&m->mu);
}

int sk_metrics_wants_openmetrics(const char *accept)
{
	return accept && strstr(accept, "application/openmetrics-text") != NULL;
}

/* ---- exposition ---- */

/* A number as Go's strconv.FormatFloat(v, 'g', -1, 64) spells it for
 * Prometheus: the shortest text that reads back the same, +Inf, -Inf, NaN. */
static void fmt_number(char *num, size_t len, double v)
{
	if (isnan(v)) {
		snprintf(num, len, "NaN");
	} else if (isinf(v)) {
		snprintf(num, len, "%s", v > 0 ? "+Inf" : "-Inf");
	} else if (v == (double)(int64_t)v && fabs(v) < 1e15) {
		snprintf(num, len, "%lld", (long long)v);
	} else {
		for (int prec = 1; prec <= 17; prec++) {
			snprintf(num, len, "%.*g", prec, v);
			if (strtod(num, NULL) == v)
				break;
		}
	}
}

static void put_number(sk_strbuf *b, double v)
{
	char num[40];

	fmt_number(num, sizeof(num), v);
	sk_strbuf_str(b, num);
}

/* Escapes \, newline and (in label values, and in OpenMetrics' HELP) ". */
static void put_escaped(sk_strbuf *b, const char *s, int quote)
{
	const char *run = s;

	for (; *s; s++) {
		const char *rep = *s == '\\' ? "\\\\" : *s == '\n' ? "\\n" : quote && *s == '"' ? "\\\"" : NULL;

		if (!rep)
			continue;
		sk_strbuf_add(b, run, (size_t)(s - run));
		sk_strbuf_str(b, rep);
		run = s + 1;
	}
	sk_strbuf_add(b, run, (size_t)(s - run));
}

/* name{labels[,extra="v"]} — extra_name NULL: no extra label. */
static void put_sample_head(sk_strbuf *b, const sk_metric_family *f, const char *name, const char *suffix,
			    const series *s, const char *extra_name, const char *extra_value)
{
	size_t n = 0;

	sk_strbuf_str(b, name);
	sk_strbuf_str(b, suffix);
	if (!f->nlabels && !extra_name) {
		sk_strbuf_add(b, " ", 1);
		return;
	}
	sk_strbuf_add(b, "{", 1);
	for (size_t i = 0; i < f->nlabels; i++) {
		if (n++)
			sk_strbuf_add(b, ",", 1);
		sk_strbuf_str(b, f->labels[i]);
		sk_strbuf_add(b, "=\"", 2);
		put_escaped(b, s->values[i], 1);
		sk_strbuf_add(b, "\"", 1);
	}
	if (extra_name) {
		if (n)
			sk_strbuf_add(b, ",", 1);
		sk_strbuf_str(b, extra_name);
		sk_strbuf_add(b, "=\"", 2);
		sk_strbuf_str(b, extra_value);
		sk_strbuf_add(b, "\"", 1);
	}
	sk_strbuf_add(b, "} ", 2);
}

static void put_line_value(sk_strbuf *b, double v)
{
	put_number(b, v);
	sk_strbuf_add(b, "\n", 1);
}

static void put_histogram(sk_strbuf *b, const sk_metric_family *f, const series *s)
{
	uint64_t count = __atomic_load_n(&s->count, __ATOMIC_ACQUIRE), cum = 0;
	char le[40];

	for (size_t i = 0; i <= f->nbounds; i++) {
		cum += __atomic_load_n(&s->buckets[i], __ATOMIC_RELAXED);
		if (i == f->nbounds) {
			/* +Inf and _count agree, as the format requires */
			if (cum < count)
				cum = count;
			count = cum;
			snprintf(le, sizeof(le), "+Inf");
		} else {
			fmt_number(le, sizeof(le), f->bounds[i]);
		}
		put_sample_head(b, f, f->name, "_bucket", s, "le", le);
		put_line_value(b, (double)cum);
	}
	put_sample_head(b, f, f->name, "_sum", s, NULL, NULL);
	put_line_value(b, from_bits(__atomic_load_n(&s->bits, __ATOMIC_RELAXED)));
	put_sample_head(b, f, f->name, "_count", s, NULL, NULL);
	put_line_value(b, (double)count);
}

static int cmp_series(const void *a, const void *b, void *arg)
{
	const series *x = *(series *const *)a, *y = *(series *const *)b;
	size_t nlabels = *(const size_t *)arg;

	for (size_t i = 0; i < nlabels; i++) {
		int c = strcmp(x->values[i], y->values[i]);

		if (c)
			return c;
	}
	return 0;
}

static void put_family(sk_strbuf *b, sk_metric_family *f, int om)
{
	static const char *const types[] = {"counter", "gauge", "histogram"};
	size_t nl = strlen(f->name), n = 0;
	cleanup_free char *fname = xstrdup(f->name);
	cleanup_free series **all = NULL;

	/* OpenMetrics names a counter's family without _total, its sample with it */
	if (om && f->type == SK_METRIC_COUNTER && nl > 6 && !strcmp(f->name + nl - 6, "_total"))
		fname[nl - 6] = '\0';
	pthread_rwlock_rdlock(&f->lock);
	if (!f->nseries) {
		pthread_rwlock_unlock(&f->lock);
		return; /* as client_golang: a vector without series is not written */
	}
	sk_strbuf_str(b, "# HELP ");
	sk_strbuf_str(b, fname);
	sk_strbuf_add(b, " ", 1);
	put_escaped(b, f->help, om);
	sk_strbuf_str(b, "\n# TYPE ");
	sk_strbuf_str(b, fname);
	sk_strbuf_add(b, " ", 1);
	sk_strbuf_str(b, types[f->type]);
	sk_strbuf_add(b, "\n", 1);
	if (om && f->unit) {
		size_t fl = strlen(fname), ul = strlen(f->unit);

		if (fl > ul + 1 && fname[fl - ul - 1] == '_' && !strcmp(fname + fl - ul, f->unit)) {
			sk_strbuf_str(b, "# UNIT ");
			sk_strbuf_str(b, fname);
			sk_strbuf_add(b, " ", 1);
			sk_strbuf_str(b, f->unit);
			sk_strbuf_add(b, "\n", 1);
		}
	}
	all = xmalloc(f->nseries * sizeof(*all));
	for (size_t i = 0; i < NSLOTS; i++)
		for (series *s = f->slots[i]; s; s = s->next)
			all[n++] = s;
	qsort_r(all, n, sizeof(*all), cmp_series, &f->nlabels);
	for (size_t i = 0; i < n; i++) {
		if (f->type == SK_METRIC_HISTOGRAM) {
			put_histogram(b, f, all[i]);
			continue;
		}
		int64_t ts = __atomic_load_n(&all[i]->ts_ms, __ATOMIC_RELAXED);

		put_sample_head(b, f, fname, om && f->type == SK_METRIC_COUNTER ? "_total" : "", all[i], NULL, NULL);
		if (!ts) {
			put_line_value(b, from_bits(__atomic_load_n(&all[i]->bits, __ATOMIC_RELAXED)));
			continue;
		}
		/* the text format's timestamp is in milliseconds, OpenMetrics' in seconds */
		put_number(b, from_bits(__atomic_load_n(&all[i]->bits, __ATOMIC_RELAXED)));
		{
			char t[48];

			if (om)
				snprintf(t, sizeof(t), " %lld.%03lld\n", (long long)(ts / 1000),
					 (long long)(ts % 1000));
			else
				snprintf(t, sizeof(t), " %lld\n", (long long)ts);
			sk_strbuf_str(b, t);
		}
	}
	pthread_rwlock_unlock(&f->lock);
}

static int cmp_family(const void *a, const void *b)
{
	return strcmp((*(sk_metric_family *const *)a)->name, (*(sk_metric_family *const *)b)->name);
}

char *sk_metrics_expose(sk_metrics *m, int openmetrics, size_t *len)
{
	sk_strbuf b = {0};
	cleanup_free sk_metric_family **fams = NULL;
	size_t n = 0, cap = 0;

	pthread_mutex_lock(&m->mu);
	for (size_t i = 0; i < m->ncollectors; i++)
		m->collectors[i].fn(m->collectors[i].arg);
	for (sk_metric_family *f = m->families; f; f = f->next) {
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			fams = xrealloc(fams, cap * sizeof(*fams));
		}
		fams[n++] = f;
	}
	pthread_mutex_unlock(&m->mu);
	/* families are never freed before the registry, so they outlive the lock */
	qsort(fams, n, sizeof(*fams), cmp_family);
	for (size_t i = 0; i < n; i++)
		put_family(&b, fams[i], openmetrics);
	if (openmetrics)
		sk_strbuf_str(&b, "# EOF\n");
	if (!b.s)
		sk_strbuf_add(&b, "", 0);
	*len = b.len;
	return b.s;
}

/* ---- the process collector ---- */

struct process_fams {
	sk_metric_family *cpu, *rss, *vsz, *fds, *max_fds, *start;
};

static void collect_process(void *arg)
{
	struct process_fams *p = arg;
	long tick = sysconf(_SC_CLK_TCK), page = sysconf(_SC_PAGESIZE);
	char buf[1024];
	FILE *f = fopen("/proc/self/stat", "re");
	size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
	struct rlimit rl;
	DIR *d;

	if (f)
		fclose(f);
	buf[n] = '\0';
	{
		/* after the command's closing parenthesis: field 3 on */
		const char *c = strrchr(buf, ')');
		unsigned long long ut, st, start, vsz;
		long long rss;

		if (c &&
		    sscanf(c + 2,
			   "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu %*d %*d %*d %*d %*d %*d %llu "
			   "%llu %lld",
			   &ut, &st, &start, &vsz, &rss) == 5 &&
		    tick > 0) {
			double boot = 0;
			FILE *sf = fopen("/proc/stat", "re");
			char line[256];

			while (sf && fgets(line, sizeof(line), sf))
				if (!strncmp(line, "btime ", 6))
					boot = strtod(line + 6, NULL);
			if (sf)
				fclose(sf);
			sk_metric_set(p->cpu, NULL, (double)(ut + st) / (double)tick);
			sk_metric_set(p->vsz, NULL, (double)vsz);
			sk_metric_set(p->rss, NULL, (double)rss * (double)page);
			sk_metric_set(p->start, NULL, boot + (double)start / (double)tick);
		}
	}
	d = opendir("/proc/self/fd");
	if (d) {
		size_t fds = 0;

		while (readdir(d))
			fds++;
		closedir(d);
		sk_metric_set(p->fds, NULL, fds > 3 ? (double)(fds - 3) : 0); /* ., .. and the directory's own */
	}
	if (!getrlimit(RLIMIT_NOFILE, &rl))
		sk_metric_set(p->max_fds, NULL, (double)rl.rlim_cur);
}

void sk_metrics_register_process(sk_metrics *m)
{
	static const char *const build_labels[] = {"major",     "minor",     "gitVersion", "gitCommit", "gitTreeState",
						   "buildDate", "goVersion", "compiler",   "platform",  NULL};
	const char *build[] = {SK_KUBE_MAJOR, SK_KUBE_MINOR, SK_KUBE_VERSION "+skiff",
			       SKIFF_VERSION, "clean",       "2026-11-30T00:00:00Z",
			       "c",           "gcc",         "linux/amd64"};
	struct process_fams *p;
	sk_metric_family *info;

	pthread_mutex_lock(&m->mu);
	for (sk_metric_family *f = m->families; f; f = f->next) {
		if (!strcmp(f->name, "process_start_time_seconds")) {
			pthread_mutex_unlock(&m->mu);
			return;
		}
	}
	pthread_mutex_unlock(&m->mu);
	p = xzalloc(sizeof(*p));
	p->cpu = sk_metrics_family(m, SK_METRIC_COUNTER, "process_cpu_seconds_total",
				   "Total user and system CPU time spent in seconds.", "seconds", NULL, NULL, 0);
	p->rss = sk_metrics_family(m, SK_METRIC_GAUGE, "process_resident_memory_bytes",
				   "Resident memory size in bytes.", "bytes", NULL, NULL, 0);
	p->vsz = sk_metrics_family(m, SK_METRIC_GAUGE, "process_virtual_memory_bytes", "Virtual memory size in bytes.",
				   "bytes", NULL, NULL, 0);
	p->fds = sk_metrics_family(m, SK_METRIC_GAUGE, "process_open_fds", "Number of open file descriptors.", NULL,
				   NULL, NULL, 0);
	p->max_fds = sk_metrics_family(m, SK_METRIC_GAUGE, "process_max_fds",
				       "Maximum number of open file descriptors.", NULL, NULL, NULL, 0);
	p->start = sk_metrics_family(m, SK_METRIC_GAUGE, "process_start_time_seconds",
				     "Start time of the process since unix epoch in seconds.", "seconds", NULL, NULL,
				     0);
	info = sk_metrics_family(
		m, SK_METRIC_GAUGE, "kubernetes_build_info",
		"[ALPHA] A metric with a constant '1' value labeled by major, minor, git version, git "
		"commit, git tree state, build date, Go version, and compiler from which Kubernetes was "
		"built, and platform on which it is running.",
		NULL, build_labels, NULL, 0);
	sk_metric_set(info, build, 1);
	m->process = p; /* freed with the registry */
	sk_metrics_add_collector(m, collect_process, p);
}
