/* metrics.k8s.io's pure part: Summary parsing, metrics-server's rules for
 * keeping two points, rates and the text of quantities and durations. */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "api/metrics.h"
#include "util/json.h"
#include "util/util.h"

/* ---- parsing -------------------------------------------------------------------- */

static int get_u64(json_t *o, const char *key, uint64_t *out)
{
	json_t *v = json_object_get(o, key);

	if (!json_is_integer(v) || json_integer_value(v) < 0)
		return -1;
	*out = (uint64_t)json_integer_value(v);
	return 0;
}

static int get_time(json_t *o, const char *key, int64_t *ns)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? sk_time_parse_ns(s, ns) : -1;
}

/* A point from an object with "cpu", "memory" and "startTime" (a node or
 * a container). */
static int parse_point(json_t *o, struct sk_metrics_point *p)
{
	json_t *cpu = json_object_get(o, "cpu"), *mem = json_object_get(o, "memory");

	memset(p, 0, sizeof(*p));
	if (get_time(cpu, "time", &p->ts_ns) < 0 || get_u64(cpu, "usageCoreNanoSeconds", &p->cpu_ns) < 0 ||
	    get_u64(mem, "workingSetBytes", &p->mem_ws) < 0 || p->ts_ns < 0)
		return -1;
	/* Times before 1970 are no agent's: dropped, so differences of two
	 * times never overflow. */
	if (get_time(o, "startTime", &p->start_ns) < 0 || p->start_ns < 0)
		p->start_ns = 0;
	return 0;
}

static void parse_pod(json_t *jp, struct sk_metrics_pod *pod)
{
	json_t *ref = json_object_get(jp, "podRef"), *cs = json_object_get(jp, "containers"), *c;
	const char *ns = json_string_value(json_object_get(ref, "namespace"));
	const char *name = json_string_value(json_object_get(ref, "name"));
	size_t i;

	memset(pod, 0, sizeof(*pod));
	if (!ns || !name || !json_is_array(cs))
		return;
	pod->c = xzalloc((json_array_size(cs) + 1) * sizeof(*pod->c));
	json_array_foreach(cs, i, c) {
		const char *cn = json_string_value(json_object_get(c, "name"));
		struct sk_metrics_ctr *k = &pod->c[pod->n];
		int dup = 0;

		if (!cn || parse_point(c, &k->last) < 0)
			continue;
		for (size_t j = 0; j < pod->n; j++)
			dup |= !strcmp(pod->c[j].name, cn);
		if (dup)
			continue;
		k->name = xstrdup(cn);
		pod->n++;
	}
	pod->ns = xstrdup(ns);
	pod->name = xstrdup(name);
}

static void pod_release(struct sk_metrics_pod *p)
{
	for (size_t i = 0; i < p->n; i++)
		free(p->c[i].name);
	free(p->c);
	free(p->ns);
	free(p->name);
}

static int same_pod(const struct sk_metrics_pod *a, const struct sk_metrics_pod *b)
{
	return !strcmp(a->ns, b->ns) && !strcmp(a->name, b->name);
}

int sk_metrics_parse_summary(const char *text, size_t len, const char *node, struct sk_metrics_node *out,
			     sk_error_t *err)
{
	cleanup_json json_t *s = sk_json_loadb(text, len);
	json_t *pods, *jp;
	size_t i;

	memset(out, 0, sizeof(*out));
	out->name = xstrdup(node);
	if (!json_is_object(s))
		return sk_error_set(err, SK_EBADREQUEST, "node \"%s\": the summary is no JSON object", node);
	out->has_node = parse_point(json_object_get(s, "node"), &out->last) == 0;
	pods = json_object_get(s, "pods");
	out->pods = xzalloc((json_array_size(pods) + 1) * sizeof(*out->pods));
	json_array_foreach(pods, i, jp) {
		struct sk_metrics_pod *p = &out->pods[out->npods];
		int dup = 0;

		parse_pod(jp, p);
		if (!p->n) {
			pod_release(p);
			continue;
		}
		for (size_t j = 0; j < out->npods; j++)
			dup |= same_pod(&out->pods[j], p);
		if (dup)
			pod_release(p);
		else
			out->npods++;
	}
	return 0;
}

void sk_metrics_node_release(struct sk_metrics_node *n)
{
	if (!n)
		return;
	for (size_t i = 0; i < n->npods; i++)
		pod_release(&n->pods[i]);
	free(n->pods);
	free(n->name);
	memset(n, 0, sizeof(*n));
}

/* ---- two points ------------------------------------------------------------------- */

#define FRESH_MIN_NS (10 * 1000000000LL) /* metrics-server's freshContainerMinMetricsResolution */

/* metrics-server's podStorage.Store for one container (and nodeStorage's
 * rule for a node): sets *prev and returns 1, or 0 when there is none. */
static int carry(const struct sk_metrics_point *fresh, const struct sk_metrics_point *last,
		 const struct sk_metrics_point *prev, int has_prev, int64_t resolution_ns, struct sk_metrics_point *out)
{
	int64_t age = fresh->ts_ns - fresh->start_ns;

	if (fresh->start_ns && fresh->start_ns < fresh->ts_ns && age < resolution_ns && age >= FRESH_MIN_NS) {
		*out = *fresh;
		out->ts_ns = fresh->start_ns;
		out->cpu_ns = 0;
		return 1;
	}
	if (!last || fresh->start_ns >= last->ts_ns)
		return 0;
	if (fresh->ts_ns > last->ts_ns) {
		*out = *last;
		return 1;
	}
	if (has_prev && prev->ts_ns < fresh->ts_ns) {
		*out = *prev;
		return 1;
	}
	return 0;
}

static const struct sk_metrics_pod *find_pod(const struct sk_metrics_node *n, const struct sk_metrics_pod *p)
{
	for (size_t i = 0; n && i < n->npods; i++)
		if (same_pod(&n->pods[i], p))
			return &n->pods[i];
	return NULL;
}

static const struct sk_metrics_ctr *find_ctr(const struct sk_metrics_pod *p, const char *name)
{
	for (size_t i = 0; p && i < p->n; i++)
		if (!strcmp(p->c[i].name, name))
			return &p->c[i];
	return NULL;
}

void sk_metrics_node_merge(struct sk_metrics_node *fresh, const struct sk_metrics_node *old, int64_t resolution_ns)
{
	if (fresh->has_node && old && old->has_node)
		fresh->has_prev = carry(&fresh->last, &old->last, &old->prev, old->has_prev, resolution_ns,
					&fresh->prev);
	else if (fresh->has_node)
		fresh->has_prev = carry(&fresh->last, NULL, NULL, 0, resolution_ns, &fresh->prev);
	for (size_t i = 0; i < fresh->npods; i++) {
		struct sk_metrics_pod *p = &fresh->pods[i];
		const struct sk_metrics_pod *op = find_pod(old, p);

		for (size_t j = 0; j < p->n; j++) {
			struct sk_metrics_ctr *c = &p->c[j];
			const struct sk_metrics_ctr *oc = find_ctr(op, c->name);

			c->has_prev = carry(&c->last, oc ? &oc->last : NULL, oc ? &oc->prev : NULL, oc && oc->has_prev,
					    resolution_ns, &c->prev);
		}
	}
}

int sk_metrics_usage(const struct sk_metrics_point *last, const struct sk_metrics_point *prev, uint64_t *nanocores,
		     int64_t *window_ns)
{
	int64_t window = last->ts_ns - prev->ts_ns;
	long double rate;

	if (last->start_ns < prev->start_ns || last->cpu_ns < prev->cpu_ns || window <= 0)
		return -1;
	rate = (long double)(last->cpu_ns - prev->cpu_ns) * 1e9L / (long double)window;
	*nanocores = rate >= 1.8e19L ? UINT64_MAX / 2 : (uint64_t)rate;
	*window_ns = window;
	return 0;
}

/* ---- text ------------------------------------------------------------------------- */

void sk_metrics_format_cpu(uint64_t nanocores, char *buf, size_t len)
{
	static const char *const suffix[] = {"n", "u", "m", "", "k", "M", "G"};
	uint64_t v = nanocores;
	int i = 0;

	if (v > INT64_MAX) /* as metrics-server's uint64Quantity: a digit less */
		v /= 10;
	if (!v) {
		snprintf(buf, len, "0");
		return;
	}
	while (i < 6 && v % 1000 == 0) {
		v /= 1000;
		i++;
	}
	snprintf(buf, len, "%llu%s", (unsigned long long)v, suffix[i]);
}

void sk_metrics_format_bytes(uint64_t bytes, char *buf, size_t len)
{
	static const char *const suffix[] = {"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
	uint64_t v = bytes > INT64_MAX ? bytes / 10 : bytes;
	int i = 0;

	if (v >= 1024)
		while (i < 6 && v % 1024 == 0) {
			v /= 1024;
			i++;
		}
	snprintf(buf, len, "%llu%s", (unsigned long long)v, suffix[i]);
}

/* "1.5" of v / unit with the fraction's trailing zeros dropped. */
static int frac(char *buf, size_t len, uint64_t v, uint64_t unit, int digits)
{
	char f[24];
	int n;

	if (!(v % unit))
		return snprintf(buf, len, "%llu", (unsigned long long)(v / unit));
	n = snprintf(f, sizeof(f), "%0*llu", digits, (unsigned long long)(v % unit));
	while (n > 0 && f[n - 1] == '0')
		f[--n] = '\0';
	return snprintf(buf, len, "%llu.%s", (unsigned long long)(v / unit), f);
}

void sk_metrics_format_duration(int64_t ns, char *buf, size_t len)
{
	uint64_t u = ns < 0 ? (uint64_t)(-(ns + 1)) + 1 : (uint64_t)ns;
	const char *sign = ns < 0 ? "-" : "";
	char num[48];
	uint64_t h, m;

	if (!u) {
		snprintf(buf, len, "0s");
		return;
	}
	if (u < 1000) {
		snprintf(buf, len, "%s%lluns", sign, (unsigned long long)u);
	} else if (u < 1000000) {
		frac(num, sizeof(num), u, 1000, 3);
		snprintf(buf, len, "%s%s\xc2\xb5s", sign, num);
	} else if (u < 1000000000) {
		frac(num, sizeof(num), u, 1000000, 6);
		snprintf(buf, len, "%s%sms", sign, num);
	} else {
		h = u / 3600000000000ull;
		m = u / 60000000000ull % 60;
		frac(num, sizeof(num), u % 60000000000ull, 1000000000, 9);
		if (h)
			snprintf(buf, len, "%s%lluh%llum%ss", sign, (unsigned long long)h, (unsigned long long)m, num);
		else if (m)
			snprintf(buf, len, "%s%llum%ss", sign, (unsigned long long)m, num);
		else
			snprintf(buf, len, "%s%ss", sign, num);
	}
}
