/* Pure HorizontalPodAutoscaler logic, after upstream's
 * pkg/controller/podautoscaler (replica_calculator.go, horizontal.go). */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ctrl/hpautil.h"
#include "kube/condition.h"
#include "kube/duration.h"
#include "kube/object.h"
#include "kube/quantity.h"
#include "util/util.h"

/* A metrics API's window ("30s", "1m0s", "10.5s", "500ms") in seconds, 0
 * when unreadable. */
static double duration_secs(const char *s)
{
	int64_t ns;

	return s && sk_kube_duration_parse(s, &ns, NULL) == 0 && ns > 0 ? (double)ns / 1e9 : 0;
}

json_t *sk_hpa_pod_metrics(json_t *list, const char *resource, const char *container)
{
	json_t *out = json_object(), *item, *c;
	size_t i, j;

	json_array_foreach(json_object_get(list, "items"), i, item) {
		json_t *cs = json_object_get(item, "containers");
		const char *name = sk_kube_jstr(item, "metadata.name");
		int missing = !json_array_size(cs), found = 0;
		int64_t sum = 0, ts = 0;

		json_array_foreach(cs, j, c) {
			int64_t v;
			const char *cn = json_string_value(json_object_get(c, "name"));

			if (container && *container && (!cn || strcmp(cn, container)))
				continue;
			found = 1;
			if (sk_kube_quantity_milli(json_object_get(json_object_get(c, "usage"), resource), &v) < 0) {
				missing = 1;
				break;
			}
			sum += v;
		}
		if (!name || missing || (container && *container && !found))
			continue;
		sk_time_parse(json_string_value(json_object_get(item, "timestamp")), &ts);
		json_object_set_new(out, name,
				    json_pack("{s:I, s:I, s:f}", "value", (json_int_t)sum, "timestamp", (json_int_t)ts,
					      "window",
					      duration_secs(json_string_value(json_object_get(item, "window")))));
	}
	return out;
}

enum { POD_READY, POD_UNREADY, POD_MISSING, POD_IGNORED };

/* groupPods: where one pod counts. */
static int pod_group(const sk_hpa_calc *c, json_t *pod, json_t *metric, const char *resource)
{
	const char *phase = sk_kube_jstr(pod, "status.phase");
	json_t *cond;
	int64_t start, trans = 0, ts;
	double window;

	if (sk_kube_jget(pod, "metadata.deletionTimestamp") || (phase && !strcmp(phase, "Failed")))
		return POD_IGNORED;
	if (phase && !strcmp(phase, "Pending"))
		return POD_UNREADY;
	if (!metric)
		return POD_MISSING;
	if (strcmp(resource, "cpu"))
		return POD_READY;
	cond = sk_kube_condition_get(sk_kube_jget(pod, "status"), "Ready");
	if (!cond || sk_time_parse(sk_kube_jstr(pod, "status.startTime"), &start) < 0)
		return POD_UNREADY;
	sk_time_parse(json_string_value(json_object_get(cond, "lastTransitionTime")), &trans);
	ts = json_integer_value(json_object_get(metric, "timestamp"));
	window = json_real_value(json_object_get(metric, "window"));
	if (start + c->cpu_init_secs > c->now) {
		/* within the initialization period: unready, or no full window
		 * of samples since the last readiness change */
		if (!strcmp(json_string_value(json_object_get(cond, "status")) ?: "", "False") ||
		    (double)ts < (double)trans + window)
			return POD_UNREADY;
		return POD_READY;
	}
	/* unready and never ready */
	if (!strcmp(json_string_value(json_object_get(cond, "status")) ?: "", "False") &&
	    start + c->readiness_delay > trans)
		return POD_UNREADY;
	return POD_READY;
}

/* calculatePodRequests: pods' names to their summed requests (milli). */
static json_t *pod_requests(json_t *pods, const char *container, const char *resource, sk_error_t *err)
{
	json_t *out = json_object(), *pod, *c;
	size_t i, j;

	json_array_foreach(pods, i, pod) {
		int64_t sum = 0;
		json_t *lists[2] = {sk_kube_jget(pod, "spec.containers"), sk_kube_jget(pod, "spec.initContainers")};

		for (int l = 0; l < 2; l++) {
			json_array_foreach(lists[l], j, c) {
				const char *cn = json_string_value(json_object_get(c, "name")) ?: "";
				const char *rp = json_string_value(json_object_get(c, "restartPolicy"));
				int64_t v;

				if (l == 1 && (!rp || strcmp(rp, "Always")))
					continue;
				if (container && *container && strcmp(container, cn))
					continue;
				if (sk_kube_quantity_milli(
					    sk_kube_jget(c, "resources.requests")
						    ? json_object_get(sk_kube_jget(c, "resources.requests"), resource)
						    : NULL,
					    &v) < 0) {
					sk_error_set(err, SK_EINVALID,
						     "missing request for %s in container %s of Pod %s", resource, cn,
						     sk_kube_jstr(pod, "metadata.name") ?: "");
					json_decref(out);
					return NULL;
				}
				sum += v;
			}
		}
		json_object_set_new(out, sk_kube_jstr(pod, "metadata.name") ?: "", json_integer(sum));
	}
	return out;
}

static int64_t metric_value(json_t *m) { return json_integer_value(json_object_get(m, "value")); }

static void set_value(json_t *metrics, const char *pod, int64_t v)
{
	json_object_set_new(metrics, pod,
			    json_pack("{s:I, s:I, s:f}", "value", (json_int_t)v, "timestamp", 0, "window", 0.0));
}

/* GetResourceUtilizationRatio. */
static int utilization_ratio(json_t *metrics, json_t *requests, int32_t target, double *ratio, int32_t *util,
			     int64_t *raw, sk_error_t *err)
{
	int64_t mt = 0, rt = 0, n = 0;
	const char *pod;
	json_t *m;

	json_object_foreach(metrics, pod, m) {
		json_t *r = json_object_get(requests, pod);

		if (!r)
			continue;
		mt += metric_value(m);
		rt += json_integer_value(r);
		n++;
	}
	if (!rt)
		return sk_error_set(err, SK_EINVALID, "no metrics returned matched known pods");
	*util = (int32_t)(mt * 100 / rt);
	*ratio = (double)*util / (double)target;
	if (raw)
		*raw = mt / n;
	return 0;
}

/* GetMetricUsageRatio. */
static double usage_ratio(json_t *metrics, int64_t target, int64_t *usage)
{
	int64_t total = 0;
	const char *pod;
	json_t *m;

	json_object_foreach(metrics, pod, m) {
		total += metric_value(m);
	}
	*usage = json_object_size(metrics) ? total / (int64_t)json_object_size(metrics) : 0;
	return (double)*usage / (double)target;
}

typedef struct groups {
	int ready;
	json_t *unready, *missing; /* names → true */
} groups;

static int group_pods(const sk_hpa_calc *c, json_t *pods, json_t *metrics, const char *resource, groups *g,
		      sk_error_t *err)
{
	json_t *pod;
	size_t i;

	if (!json_array_size(pods))
		return sk_error_set(err, SK_EINVALID, "no pods returned by selector while calculating replica count");
	g->ready = 0;
	g->unready = json_object();
	g->missing = json_object();
	json_array_foreach(pods, i, pod) {
		const char *name = sk_kube_jstr(pod, "metadata.name") ?: "";

		switch (pod_group(c, pod, json_object_get(metrics, name), resource)) {
		case POD_IGNORED:
			json_object_del(metrics, name);
			break;
		case POD_UNREADY:
			json_object_set_new(g->unready, name, json_true());
			json_object_del(metrics, name);
			break;
		case POD_MISSING:
			json_object_set_new(g->missing, name, json_true());
			break;
		default:
			g->ready++;
		}
	}
	if (!json_object_size(metrics)) {
		json_decref(g->unready);
		json_decref(g->missing);
		return sk_error_set(err, SK_EINVALID,
				    "did not receive metrics for targeted pods (pods might be unready)");
	}
	return 0;
}

/* The common end of both calculations: whether the ratio after filling in
 * the missing and unready pods still asks for a change (else current). */
static int32_t settle(int32_t current, double before, double after, size_t n)
{
	int32_t r;

	if ((before < 1.0 && after > 1.0) || (before > 1.0 && after < 1.0))
		return current;
	r = (int32_t)ceil(after * (double)n);
	if ((after < 1.0 && r > current) || (after > 1.0 && r < current))
		return current;
	return r;
}

int sk_hpa_resource_replicas(const sk_hpa_calc *c, int32_t current, int32_t target_util, const char *resource,
			     const char *container, json_t *pods, json_t *metrics, int32_t *replicas, int32_t *util,
			     int64_t *raw, sk_error_t *err)
{
	cleanup_json json_t *requests = NULL;
	groups g;
	double ratio, after;
	int32_t u2;
	const char *pod;
	json_t *v;
	int scale_up_unready;

	if (group_pods(c, pods, metrics, resource, &g, err) < 0)
		return -1;
	requests = pod_requests(pods, container, resource, err);
	if (!requests || utilization_ratio(metrics, requests, target_util, &ratio, util, raw, err) < 0)
		goto fail;
	scale_up_unready = json_object_size(g.unready) && ratio > 1.0;
	if (!scale_up_unready && !json_object_size(g.missing)) {
		*replicas = fabs(1.0 - ratio) <= c->tolerance ? current : (int32_t)ceil(ratio * g.ready);
		goto done;
	}
	json_object_foreach(g.missing, pod, v) {
		int64_t fallback = target_util > 100 ? target_util : 100;

		if (ratio < 1.0)
			set_value(metrics, pod, json_integer_value(json_object_get(requests, pod)) * fallback / 100);
		else if (ratio > 1.0)
			set_value(metrics, pod, 0);
	}
	if (scale_up_unready) {
		json_object_foreach(g.unready, pod, v) {
			set_value(metrics, pod, 0);
		}
	}
	if (utilization_ratio(metrics, requests, target_util, &after, &u2, NULL, err) < 0)
		goto fail;
	*replicas = fabs(1.0 - after) <= c->tolerance ? current
						      : settle(current, ratio, after, json_object_size(metrics));
done:
	json_decref(g.unready);
	json_decref(g.missing);
	return 0;
fail:
	json_decref(g.unready);
	json_decref(g.missing);
	return -1;
}

int sk_hpa_raw_resource_replicas(const sk_hpa_calc *c, int32_t current, int64_t target_milli, const char *resource,
				 json_t *pods, json_t *metrics, int32_t *replicas, int64_t *usage, sk_error_t *err)
{
	groups g;
	double ratio, after;
	int64_t u2;
	const char *pod;
	json_t *v;
	int scale_up_unready;

	if (group_pods(c, pods, metrics, resource, &g, err) < 0)
		return -1;
	ratio = usage_ratio(metrics, target_milli, usage);
	scale_up_unready = json_object_size(g.unready) && ratio > 1.0;
	if (!scale_up_unready && !json_object_size(g.missing)) {
		*replicas = fabs(1.0 - ratio) <= c->tolerance ? current : (int32_t)ceil(ratio * g.ready);
		goto done;
	}
	json_object_foreach(g.missing, pod, v) {
		set_value(metrics, pod, ratio < 1.0 ? target_milli : 0);
	}
	if (scale_up_unready) {
		json_object_foreach(g.unready, pod, v) {
			set_value(metrics, pod, 0);
		}
	}
	after = usage_ratio(metrics, target_milli, &u2);
	*replicas = fabs(1.0 - after) <= c->tolerance ? current
						      : settle(current, ratio, after, json_object_size(metrics));
done:
	json_decref(g.unready);
	json_decref(g.missing);
	return 0;
}

/* ---- normalization ---- */

void sk_hpa_history_release(sk_hpa_history *h)
{
	free(h->recs);
	free(h->up);
	free(h->down);
	memset(h, 0, sizeof(*h));
}

static void push(sk_hpa_rec **v, size_t *n, int32_t replicas, int64_t t)
{
	*v = xrealloc(*v, (*n + 1) * sizeof(**v));
	(*v)[*n].replicas = replicas;
	(*v)[*n].t = t;
	(*n)++;
}

/* Records rec, replacing the sample at index old when there is one. */
static void remember(sk_hpa_history *h, int found_old, size_t old, int32_t rec, int64_t now)
{
	if (found_old) {
		h->recs[old].replicas = rec;
		h->recs[old].t = now;
	} else {
		push(&h->recs, &h->nrecs, rec, now);
	}
}

static json_int_t rule_int(json_t *rules, const char *k, json_int_t def)
{
	json_t *v = json_object_get(rules, k);

	return json_is_integer(v) ? json_integer_value(v) : def;
}

static const char *select_policy(json_t *rules)
{
	return json_string_value(json_object_get(rules, "selectPolicy")) ?: "Max";
}

/* getReplicasChangePerPeriod. */
static int32_t changed_in(const sk_hpa_rec *ev, size_t n, int64_t period, int64_t now)
{
	int32_t sum = 0;

	for (size_t i = 0; i < n; i++)
		if (ev[i].t > now - period)
			sum += ev[i].replicas;
	return sum;
}

static int32_t imin(int32_t a, int32_t b) { return a < b ? a : b; }
static int32_t imax(int32_t a, int32_t b) { return a > b ? a : b; }

/* calculateScaleUpLimitWithScalingRules / calculateScaleDownLimitWithBehaviors. */
static int32_t rate_limit(const sk_hpa_history *h, json_t *rules, int32_t current, int up, int64_t now)
{
	const char *sel = select_policy(rules);
	int use_min = !strcmp(sel, "Min");
	int32_t result;
	json_t *p;
	size_t i;

	if (!strcmp(sel, "Disabled"))
		return current;
	/* scaling down, the smallest change is the largest count */
	result = (use_min == up) ? INT_MAX : INT_MIN;
	json_array_foreach(json_object_get(rules, "policies"), i, p) {
		int64_t period = rule_int(p, "periodSeconds", 15);
		int32_t value = (int32_t)rule_int(p, "value", 0), start, proposed;
		const char *type = json_string_value(json_object_get(p, "type")) ?: "";

		start = current - changed_in(h->up, h->nup, period, now) + changed_in(h->down, h->ndown, period, now);
		if (!strcmp(type, "Pods"))
			proposed = up ? start + value : start - value;
		else if (up)
			proposed = (int32_t)ceil((double)start * (1 + (double)value / 100));
		else
			proposed = (int32_t)((double)start * (1 - (double)value / 100));
		result = (use_min == up) ? imin(result, proposed) : imax(result, proposed);
	}
	return result;
}

static void normalize_plain(sk_hpa_history *h, int64_t window, int32_t current, int32_t desired, int32_t min,
			    int32_t max, int64_t now, sk_hpa_norm *out)
{
	int32_t rec = desired, limit, allowed;
	int found_old = 0;
	size_t old = 0;
	const char *cond, *msg;

	for (size_t i = 0; i < h->nrecs; i++) {
		if (h->recs[i].t < now - window) {
			found_old = 1;
			old = i;
		} else if (h->recs[i].replicas > rec) {
			rec = h->recs[i].replicas;
		}
	}
	remember(h, found_old, old, desired, now);
	if (rec != desired) {
		out->able_reason = "ScaleDownStabilized";
		out->able_msg = "recent recommendations were higher than current one, applying the highest recent "
				"recommendation";
	} else {
		out->able_reason = "ReadyForNewScale";
		out->able_msg = "recommended size matches current size";
	}
	/* convertDesiredReplicasWithRules */
	limit = imax(2 * current, 4);
	if (max > limit) {
		allowed = limit;
		cond = "ScaleUpLimit";
		msg = "the desired replica count is increasing faster than the maximum scale rate";
	} else {
		allowed = max;
		cond = "TooManyReplicas";
		msg = "the desired replica count is more than the maximum replica count";
	}
	if (rec < min) {
		out->replicas = min;
		out->limited_reason = "TooFewReplicas";
		out->limited_msg = "the desired replica count is less than the minimum replica count";
	} else if (rec > allowed) {
		out->replicas = allowed;
		out->limited_reason = cond;
		out->limited_msg = msg;
	} else {
		out->replicas = rec;
		out->limited_reason = "DesiredWithinRange";
		out->limited_msg = "the desired count is within the acceptable range";
	}
	out->limited = out->replicas != rec;
}

static void normalize_behavior(sk_hpa_history *h, json_t *behavior, int64_t window, int32_t current, int32_t desired,
			       int32_t min, int32_t max, int64_t now, sk_hpa_norm *out)
{
	json_t *upr = json_object_get(behavior, "scaleUp"), *downr = json_object_get(behavior, "scaleDown");
	int64_t upw = rule_int(upr, "stabilizationWindowSeconds", 0);
	int64_t downw = rule_int(downr, "stabilizationWindowSeconds", window);
	int64_t maxw = upw > downw ? upw : downw;
	int32_t uprec = desired, downrec = desired, rec = current, r;
	int found_old = 0;
	size_t old = 0;

	for (size_t i = 0; i < h->nrecs; i++) {
		if (h->recs[i].t > now - upw)
			uprec = imin(h->recs[i].replicas, uprec);
		if (h->recs[i].t > now - downw)
			downrec = imax(h->recs[i].replicas, downrec);
		if (h->recs[i].t < now - maxw) {
			found_old = 1;
			old = i;
		}
	}
	if (rec < uprec)
		rec = uprec;
	if (rec > downrec)
		rec = downrec;
	remember(h, found_old, old, desired, now);
	if (rec != desired) {
		out->able_reason = "ScaleDownStabilized";
		out->able_msg = "recent recommendations were higher than current one, applying the highest recent "
				"recommendation";
	} else {
		out->able_reason = "ReadyForNewScale";
		out->able_msg = "recommended size matches current size";
	}
	/* convertDesiredReplicasWithBehaviorRate */
	r = rec;
	out->limited_reason = "DesiredWithinRange";
	out->limited_msg = "the desired count is within the acceptable range";
	if (rec > current) {
		int32_t limit = imax(rate_limit(h, upr, current, 1, now), current), allowed = max;
		const char *reason = "TooManyReplicas";
		const char *msg = "the desired replica count is more than the maximum replica count";

		if (allowed > limit) {
			allowed = limit;
			reason = "ScaleUpLimit";
			msg = "the desired replica count is increasing faster than the maximum scale rate";
		}
		if (rec > allowed) {
			r = allowed;
			out->limited_reason = reason;
			out->limited_msg = msg;
		}
	} else if (rec < current) {
		int32_t limit = imin(rate_limit(h, downr, current, 0, now), current), allowed = min;
		const char *reason = "TooFewReplicas";
		const char *msg = "the desired replica count is less than the minimum replica count";

		if (allowed < limit) {
			allowed = limit;
			reason = "ScaleDownLimit";
			msg = "the desired replica count is decreasing faster than the maximum scale rate";
		}
		if (rec < allowed) {
			r = allowed;
			out->limited_reason = reason;
			out->limited_msg = msg;
		}
	}
	out->replicas = r;
	out->limited = r != rec;
}

void sk_hpa_normalize(sk_hpa_history *h, json_t *behavior, int64_t window, int32_t current, int32_t desired,
		      int32_t min, int32_t max, int64_t now, sk_hpa_norm *out)
{
	if (json_is_object(behavior))
		normalize_behavior(h, behavior, window, current, desired, min, max, now, out);
	else
		normalize_plain(h, window, current, desired, min, max, now, out);
}

/* The longest policy period of rules (events older than it are dropped). */
static int64_t longest_period(json_t *rules)
{
	int64_t m = 0;
	json_t *p;
	size_t i;

	json_array_foreach(json_object_get(rules, "policies"), i, p) {
		if (rule_int(p, "periodSeconds", 0) > m)
			m = rule_int(p, "periodSeconds", 0);
	}
	return m;
}

static void prune_events(sk_hpa_rec *v, size_t *n, int64_t keep, int64_t now)
{
	size_t k = 0;

	for (size_t i = 0; i < *n; i++)
		if (v[i].t > now - keep)
			v[k++] = v[i];
	*n = k;
}

void sk_hpa_record_scale(sk_hpa_history *h, json_t *behavior, int32_t prev, int32_t replicas, int64_t now)
{
	if (!json_is_object(behavior))
		return;
	if (replicas > prev) {
		prune_events(h->up, &h->nup, longest_period(json_object_get(behavior, "scaleUp")), now);
		push(&h->up, &h->nup, replicas - prev, now);
	} else if (replicas < prev) {
		prune_events(h->down, &h->ndown, longest_period(json_object_get(behavior, "scaleDown")), now);
		push(&h->down, &h->ndown, prev - replicas, now);
	}
}
