/* The kinds of autoscaling: HorizontalPodAutoscaler served as autoscaling/v2
 * and autoscaling/v1, one stored object, with upstream's conversion
 * (pkg/apis/autoscaling/v1/conversion.go: the v2 fields v1 cannot express
 * travel in autoscaling.alpha.kubernetes.io annotations), defaults
 * (pkg/apis/autoscaling/v{1,2}/defaults.go) and validation
 * (pkg/apis/autoscaling/validation). */
#include <stdio.h>
#include <string.h>

#include "api/api-int.h"
#include "api/table.h"
#include "api/validate-int.h"
#include "kube/quantity.h"
#include "util/json.h"
#include "util/util.h"

#define ANN_METRICS "autoscaling.alpha.kubernetes.io/metrics"
#define ANN_CURRENT "autoscaling.alpha.kubernetes.io/current-metrics"
#define ANN_CONDITIONS "autoscaling.alpha.kubernetes.io/conditions"

#define MAX_PERIOD_SECONDS 1800
#define MAX_STABILIZATION_SECONDS 3600
#define DEFAULT_CPU_UTILIZATION 80

static json_t *child(json_t *o, const char *k) { return json_object_get(o, k); }
static const char *cstr(json_t *o, const char *k) { return json_string_value(json_object_get(o, k)); }

static json_t *child_obj(json_t *o, const char *k)
{
	json_t *c = json_object_get(o, k);

	if (!json_is_object(c)) {
		c = json_object();
		json_object_set_new(o, k, c);
	}
	return c;
}

static int is_v1(json_t *o)
{
	const char *av = cstr(o, "apiVersion");

	return av && !strcmp(av, "autoscaling/v1");
}

/* ---- conversion ---- */

static char *dump(json_t *v) { return json_dumps(v, JSON_COMPACT | JSON_PRESERVE_ORDER); }

/* Moves o[from] to o[to] (nothing when absent). */
static void move(json_t *o, const char *from, json_t *dst, const char *to)
{
	json_t *v = child(o, from);

	if (v && dst)
		json_object_set(dst, to, v);
}

/* The v1 form of one v2 MetricSpec (src "target", pre "target") or
 * MetricStatus (src "current", pre "current"), as upstream's
 * Convert_autoscaling_*_To_v1_*: a new object. */
static json_t *metric_to_v1(json_t *m, const char *src, const char *pre)
{
	json_t *out = json_object(), *in, *v, *t;
	int spec = !strcmp(src, "target");
	char k1[64], k2[64];

	if (!json_is_object(m))
		return out;
	move(m, "type", out, "type");
	snprintf(k1, sizeof(k1), "%sAverageUtilization", pre);
	snprintf(k2, sizeof(k2), "%sAverageValue", pre);
	for (int i = 0; i < 2; i++) {
		const char *f = i ? "containerResource" : "resource";

		if (!json_is_object(in = child(m, f)))
			continue;
		v = json_object();
		t = child(in, src);
		move(in, "name", v, "name");
		move(t, "averageUtilization", v, k1);
		move(t, "averageValue", v, k2);
		if (!spec && !child(v, k2))
			json_object_set_new(v, k2, json_string("0"));
		move(in, "container", v, "container");
		json_object_set_new(out, f, v);
	}
	if (json_is_object(in = child(m, "pods"))) {
		t = child(in, src);
		v = json_object();
		move(child(in, "metric"), "name", v, "metricName");
		move(t, "averageValue", v, spec ? "targetAverageValue" : "currentAverageValue");
		move(child(in, "metric"), "selector", v, "selector");
		json_object_set_new(out, "pods", v);
	}
	if (json_is_object(in = child(m, "object"))) {
		t = child(in, src);
		v = json_object();
		move(in, "describedObject", v, "target");
		move(child(in, "metric"), "name", v, "metricName");
		move(t, "value", v, spec ? "targetValue" : "currentValue");
		if (!child(v, spec ? "targetValue" : "currentValue"))
			json_object_set_new(v, spec ? "targetValue" : "currentValue", json_string("0"));
		move(child(in, "metric"), "selector", v, "selector");
		move(t, "averageValue", v, "averageValue");
		json_object_set_new(out, "object", v);
	}
	if (json_is_object(in = child(m, "external"))) {
		t = child(in, src);
		v = json_object();
		move(child(in, "metric"), "name", v, "metricName");
		move(child(in, "metric"), "selector", v, "metricSelector");
		move(t, "value", v, spec ? "targetValue" : "currentValue");
		if (!spec && !child(v, "currentValue"))
			json_object_set_new(v, "currentValue", json_string("0"));
		move(t, "averageValue", v, spec ? "targetAverageValue" : "currentAverageValue");
		json_object_set_new(out, "external", v);
	}
	return out;
}

static json_t *metric_id(json_t *in, const char *name, const char *sel)
{
	json_t *id = json_object();

	move(in, name, id, "name");
	move(in, sel, id, "selector");
	return id;
}

/* The v2 form of one v1 MetricSpec or MetricStatus (upstream's
 * Convert_v1_*_To_autoscaling_*): a new object. */
static json_t *metric_to_v2(json_t *m, const char *src, const char *pre)
{
	json_t *out = json_object(), *in, *v, *t;
	int spec = !strcmp(src, "target");
	char k1[64], k2[64];

	if (!json_is_object(m))
		return out;
	move(m, "type", out, "type");
	snprintf(k1, sizeof(k1), "%sAverageUtilization", pre);
	snprintf(k2, sizeof(k2), "%sAverageValue", pre);
	for (int i = 0; i < 2; i++) {
		const char *f = i ? "containerResource" : "resource";

		if (!json_is_object(in = child(m, f)))
			continue;
		v = json_object();
		t = json_object();
		move(in, "name", v, "name");
		if (spec)
			json_object_set_new(t, "type", json_string(child(in, k1) ? "Utilization" : "AverageValue"));
		move(in, k1, t, "averageUtilization");
		move(in, k2, t, "averageValue");
		json_object_set_new(v, src, t);
		move(in, "container", v, "container");
		json_object_set_new(out, f, v);
	}
	if (json_is_object(in = child(m, "pods"))) {
		t = json_object();
		if (spec)
			json_object_set_new(t, "type", json_string("AverageValue"));
		move(in, spec ? "targetAverageValue" : "currentAverageValue", t, "averageValue");
		json_object_set_new(out, "pods",
				    json_pack("{s:o, s:o}", "metric", metric_id(in, "metricName", "selector"), src, t));
	}
	if (json_is_object(in = child(m, "object"))) {
		t = json_object();
		if (spec)
			json_object_set_new(t, "type",
					    json_string(child(in, "averageValue") ? "AverageValue" : "Value"));
		move(in, spec ? "targetValue" : "currentValue", t, "value");
		move(in, "averageValue", t, "averageValue");
		v = json_pack("{s:o, s:o}", "metric", metric_id(in, "metricName", "selector"), src, t);
		move(in, "target", v, "describedObject");
		json_object_set_new(out, "object", v);
	}
	if (json_is_object(in = child(m, "external"))) {
		t = json_object();
		if (spec)
			json_object_set_new(t, "type",
					    json_string(child(in, "targetValue") ? "Value" : "AverageValue"));
		move(in, spec ? "targetValue" : "currentValue", t, "value");
		move(in, spec ? "targetAverageValue" : "currentAverageValue", t, "averageValue");
		json_object_set_new(
			out, "external",
			json_pack("{s:o, s:o}", "metric", metric_id(in, "metricName", "metricSelector"), src, t));
	}
	return out;
}

static int cpu_utilization_metric(json_t *m, const char *src)
{
	json_t *r = child(m, "resource");

	return cstr(m, "type") && !strcmp(cstr(m, "type"), "Resource") && json_is_object(r) && cstr(r, "name") &&
	       !strcmp(cstr(r, "name"), "cpu") && json_is_integer(child(child(r, src), "averageUtilization"));
}

static void annotate(json_t *o, const char *key, json_t *v)
{
	cleanup_free char *s = dump(v);

	json_object_set_new(child_obj(child_obj(o, "metadata"), "annotations"), key, json_string(s));
}

/* Convert_autoscaling_HorizontalPodAutoscaler_To_v1_HorizontalPodAutoscaler. */
static void to_v1(json_t *o)
{
	json_t *spec = child_obj(o, "spec"), *st = child(o, "status"), *m;
	cleanup_json json_t *other = json_array(), *cur = json_array(), *metrics = json_incref(child(spec, "metrics"));
	size_t i;

	json_array_foreach(metrics, i, m) {
		if (cpu_utilization_metric(m, "target")) {
			if (!child(spec, "targetCPUUtilizationPercentage"))
				json_object_set(spec, "targetCPUUtilizationPercentage",
						child(child(child(m, "resource"), "target"), "averageUtilization"));
			continue;
		}
		json_array_append_new(other, metric_to_v1(m, "target", "target"));
	}
	json_object_del(spec, "metrics");
	json_object_del(spec, "behavior");
	if (json_array_size(other))
		annotate(o, ANN_METRICS, other);
	if (json_is_object(st)) {
		json_array_foreach(child(st, "currentMetrics"), i, m) {
			if (cpu_utilization_metric(m, "current"))
				json_object_set(st, "currentCPUUtilizationPercentage",
						child(child(child(m, "resource"), "current"), "averageUtilization"));
			json_array_append_new(cur, metric_to_v1(m, "current", "current"));
		}
		if (json_array_size(cur))
			annotate(o, ANN_CURRENT, cur);
		if (json_array_size(child(st, "conditions")))
			annotate(o, ANN_CONDITIONS, child(st, "conditions"));
		json_object_del(st, "currentMetrics");
		json_object_del(st, "conditions");
		if (!child(st, "currentReplicas"))
			json_object_set_new(st, "currentReplicas", json_integer(0));
		if (!child(st, "desiredReplicas"))
			json_object_set_new(st, "desiredReplicas", json_integer(0));
	}
	json_object_set_new(o, "apiVersion", json_string("autoscaling/v1"));
}

/* An annotation's JSON value, removed from the object; NULL when absent. */
static json_t *take_annotation(json_t *o, const char *key)
{
	json_t *ann = child(child(o, "metadata"), "annotations");
	const char *s = cstr(ann, key);
	json_t *v;

	if (!s)
		return NULL;
	v = sk_json_loadb(s, strlen(s));
	json_object_del(ann, key);
	if (!json_object_size(ann))
		json_object_del(child(o, "metadata"), "annotations");
	return v;
}

static json_t *cpu_metric(json_int_t pct, const char *src)
{
	return json_pack("{s:s, s:{s:s, s:{s:s*, s:I}}}", "type", "Resource", "resource", "name", "cpu", src, "type",
			 !strcmp(src, "target") ? "Utilization" : NULL, "averageUtilization", pct);
}

/* Convert_v1_HorizontalPodAutoscaler_To_autoscaling_HorizontalPodAutoscaler. */
static void to_v2(json_t *o)
{
	json_t *spec = child_obj(o, "spec"), *st = child(o, "status"), *m;
	cleanup_json json_t *other = take_annotation(o, ANN_METRICS), *cur = take_annotation(o, ANN_CURRENT);
	cleanup_json json_t *conds = take_annotation(o, ANN_CONDITIONS);
	json_t *pct = child(spec, "targetCPUUtilizationPercentage"), *metrics = json_array();
	size_t i;

	json_array_foreach(other, i, m) {
		json_array_append_new(metrics, metric_to_v2(m, "target", "target"));
	}
	if (json_is_integer(pct))
		json_array_append_new(metrics, cpu_metric(json_integer_value(pct), "target"));
	if (!json_array_size(metrics))
		json_array_append_new(metrics, cpu_metric(DEFAULT_CPU_UTILIZATION, "target"));
	json_object_del(spec, "targetCPUUtilizationPercentage");
	json_object_set_new(spec, "metrics", metrics);
	if (json_is_object(st)) {
		json_t *cm = NULL;

		if (json_is_array(cur)) {
			cm = json_array();
			json_array_foreach(cur, i, m) {
				json_array_append_new(cm, metric_to_v2(m, "current", "current"));
			}
		} else if (json_is_integer(child(st, "currentCPUUtilizationPercentage"))) {
			cm = json_pack("[o]",
				       cpu_metric(json_integer_value(child(st, "currentCPUUtilizationPercentage")),
						  "current"));
		}
		json_object_del(st, "currentCPUUtilizationPercentage");
		if (cm)
			json_object_set_new(st, "currentMetrics", cm);
		if (json_is_array(conds))
			json_object_set(st, "conditions", conds);
		if (json_is_integer(child(st, "currentReplicas")) && !json_integer_value(child(st, "currentReplicas")))
			json_object_del(st, "currentReplicas");
	}
	json_object_set_new(o, "apiVersion", json_string("autoscaling/v2"));
}

void sk__hpa_to_v2(json_t *obj)
{
	if (is_v1(obj))
		to_v2(obj);
}

static void hpa_convert(const sk_api_resource *r, json_t *obj)
{
	int want_v1 = !strcmp(r->version, "v1");

	if (!json_is_object(obj) || want_v1 == is_v1(obj))
		return;
	if (want_v1)
		to_v1(obj);
	else
		to_v2(obj);
}

/* ---- defaults ---- */

static void default_int(json_t *o, const char *k, json_int_t v)
{
	if (!child(o, k))
		json_object_set_new(o, k, json_integer(v));
}

static void default_rules(json_t *b, const char *k, int up)
{
	json_t *r = child_obj(b, k);

	default_int(r, "stabilizationWindowSeconds", up ? 0 : 300);
	if (!cstr(r, "selectPolicy"))
		json_object_set_new(r, "selectPolicy", json_string("Max"));
	if (json_array_size(child(r, "policies")))
		return;
	if (up)
		json_object_set_new(r, "policies",
				    json_pack("[{s:s, s:i, s:i}, {s:s, s:i, s:i}]", "type", "Pods", "value", 4,
					      "periodSeconds", 15, "type", "Percent", "value", 100, "periodSeconds",
					      15));
	else
		json_object_set_new(
			r, "policies",
			json_pack("[{s:s, s:i, s:i}]", "type", "Percent", "value", 100, "periodSeconds", 15));
}

static void hpa_defaults(const sk_api_resource *r, json_t *obj)
{
	json_t *spec = child(obj, "spec"), *b;

	if (!json_is_object(spec))
		return;
	default_int(spec, "minReplicas", 1);
	if (!strcmp(r->version, "v1"))
		return;
	if (!json_array_size(child(spec, "metrics")))
		json_object_set_new(spec, "metrics", json_pack("[o]", cpu_metric(DEFAULT_CPU_UTILIZATION, "target")));
	b = child(spec, "behavior");
	if (json_is_object(b)) {
		default_rules(b, "scaleUp", 1);
		default_rules(b, "scaleDown", 0);
	}
}

/* PrepareForCreate: the status starts empty. */
static int hpa_admit_create(sk_api *api, const sk_api_resource *r, json_t *obj, sk_error_t *err)
{
	(void)api;
	(void)err;
	if (!strcmp(r->version, "v1"))
		json_object_set_new(obj, "status", json_pack("{s:i, s:i}", "currentReplicas", 0, "desiredReplicas", 0));
	else
		json_object_set_new(obj, "status", json_pack("{s:i}", "desiredReplicas", 0));
	return 0;
}

/* ---- validation ---- */

static const char *path_segment_problem(const char *s)
{
	if (!strcmp(s, "."))
		return "may not be '.'";
	if (!strcmp(s, ".."))
		return "may not be '..'";
	if (strchr(s, '/'))
		return "may not contain '/'";
	if (strchr(s, '%'))
		return "may not contain '%'";
	return NULL;
}

static void validate_segment(struct sk__verr *e, json_t *o, const char *key, const char *base, const char *required)
{
	const char *v = cstr(o, key);
	cleanup_free char *p = sk__vchild(base, key);

	if (!v || !*v)
		sk__vrequired(e, p, required);
	else if (path_segment_problem(v))
		sk__vinvalid_str(e, p, v, path_segment_problem(v));
}

static int positive_quantity(json_t *q)
{
	int64_t m;

	return sk_kube_quantity_milli(q, &m) == 0 && m > 0;
}

static void validate_target(struct sk__verr *e, json_t *t, const char *base)
{
	const char *type = cstr(t, "type");
	json_t *au = child(t, "averageUtilization");
	cleanup_free char *tp = sk__vchild(base, "type"), *vp = sk__vchild(base, "value");
	cleanup_free char *ap = sk__vchild(base, "averageValue"), *up = sk__vchild(base, "averageUtilization");

	if (!type || !*type)
		sk__vrequired(e, tp, "must specify a metric target type");
	if (!type || (strcmp(type, "Utilization") && strcmp(type, "Value") && strcmp(type, "AverageValue")))
		sk__vinvalid_str(e, tp, type ? type : "", "must be either Utilization, Value, or AverageValue");
	if (child(t, "value") && !positive_quantity(child(t, "value")))
		sk__vinvalid(e, vp, child(t, "value"), "must be positive");
	if (child(t, "averageValue") && !positive_quantity(child(t, "averageValue")))
		sk__vinvalid(e, ap, child(t, "averageValue"), "must be positive");
	if (au && json_integer_value(au) < 1)
		sk__vinvalid(e, up, au, "must be greater than 0");
}

static void validate_metric_id(struct sk__verr *e, json_t *src, const char *base)
{
	cleanup_free char *p = sk__vchild(base, "metric");

	validate_segment(e, child(src, "metric"), "name", p, "must specify a metric name");
}

static void validate_resource(struct sk__verr *e, json_t *src, const char *base, int container)
{
	json_t *t = child(src, "target");
	cleanup_free char *tp = sk__vchild(base, "target"), *np = sk__vchild(base, "name");
	cleanup_free char *up = sk__vchild(tp, "averageUtilization"), *vp = sk__vchild(tp, "averageValue");

	if (!cstr(src, "name") || !*cstr(src, "name"))
		sk__vrequired(e, np, "must specify a resource name");
	if (container && (!cstr(src, "container") || !*cstr(src, "container"))) {
		cleanup_free char *cp = sk__vchild(base, "container");

		sk__vrequired(e, cp, "must specify a container");
	}
	validate_target(e, t, tp);
	if (!child(t, "averageUtilization") && !child(t, "averageValue"))
		sk__vrequired(e, up, "must set either a target raw value or a target utilization");
	if (child(t, "averageUtilization") && child(t, "averageValue"))
		sk__vforbidden(e, vp, "may not set both a target raw value and a target utilization");
}

static void validate_value_source(struct sk__verr *e, json_t *src, const char *base, const char *kind)
{
	json_t *t = child(src, "target");
	cleanup_free char *tp = sk__vchild(base, "target"), *ap = sk__vchild(tp, "averageValue");
	cleanup_free char *vp = sk__vchild(tp, "value");

	if (!strcmp(kind, "object")) {
		cleanup_free char *dp = sk__vchild(base, "describedObject");

		validate_segment(e, child(src, "describedObject"), "kind", dp, "");
		validate_segment(e, child(src, "describedObject"), "name", dp, "");
	}
	validate_metric_id(e, src, base);
	validate_target(e, t, tp);
	if (!strcmp(kind, "pods")) {
		if (!child(t, "averageValue"))
			sk__vrequired(e, ap, "must specify a positive target averageValue");
		return;
	}
	if (!child(t, "value") && !child(t, "averageValue"))
		sk__vrequired(e, ap,
			      !strcmp(kind, "object")
				      ? "must set either a target value or averageValue"
				      : "must set either a target value for metric or a per-pod target");
	if (!strcmp(kind, "external") && child(t, "value") && child(t, "averageValue"))
		sk__vforbidden(e, vp, "may not set both a target value for metric and a per-pod target");
}

static void validate_metric(struct sk__verr *e, json_t *m, const char *base)
{
	static const char *const types[] = {"ContainerResource", "External", "Object", "Pods", "Resource", NULL};
	static const char *const fields[] = {"containerResource", "external", "object", "pods", "resource"};
	const char *type = cstr(m, "type");
	const char *expected = NULL;
	cleanup_free char *tp = sk__vchild(base, "type");
	int present = 0;

	if (!type || !*type)
		sk__vrequired(e, tp, "must specify a metric source type");
	for (int i = 0; i < 5; i++)
		if (type && !strcmp(type, types[i]))
			expected = fields[i];
	if (!expected) {
		cleanup_json json_t *none = json_string("");

		sk__vnot_supported(e, tp, child(m, "type") ? child(m, "type") : none, types);
	}
	/* upstream checks object, external, pods, resource in that order */
	{
		static const int order[] = {2, 1, 3, 4, 0};

		for (int k = 0; k < 5; k++) {
			int i = order[k];
			json_t *src = child(m, fields[i]);
			cleanup_free char *fp = sk__vchild(base, fields[i]);

			if (!json_is_object(src))
				continue;
			if (++present > 1)
				continue;
			if (i == 4 || i == 0)
				validate_resource(e, src, fp, i == 0);
			else
				validate_value_source(e, src, fp, fields[i]);
		}
	}
	if (expected && !json_is_object(child(m, expected))) {
		cleanup_free char *fp = sk__vchild(base, expected);

		sk__vrequired(e, fp, "must populate information for the given metric source");
	}
	if (present > 1)
		for (int i = 0; i < 5; i++) {
			cleanup_free char *fp = sk__vchild(base, fields[i]);

			if (json_is_object(child(m, fields[i])) && (!expected || strcmp(fields[i], expected)))
				sk__vforbidden(e, fp, "must populate the given metric source only");
		}
}

static void validate_policy(struct sk__verr *e, json_t *p, const char *base)
{
	static const char *const types[] = {"Percent", "Pods", NULL};
	const char *type = cstr(p, "type");
	json_int_t v = json_integer_value(child(p, "value")), ps = json_integer_value(child(p, "periodSeconds"));
	cleanup_free char *tp = sk__vchild(base, "type"), *vp = sk__vchild(base, "value");
	cleanup_free char *pp = sk__vchild(base, "periodSeconds");

	if (!type || (strcmp(type, "Pods") && strcmp(type, "Percent"))) {
		cleanup_json json_t *none = json_string("");

		sk__vnot_supported(e, tp, child(p, "type") ? child(p, "type") : none, types);
	}
	if (v <= 0)
		sk__vinvalid_int(e, vp, v, "must be greater than zero");
	if (ps <= 0)
		sk__vinvalid_int(e, pp, ps, "must be greater than zero");
	if (ps > MAX_PERIOD_SECONDS)
		sk__vinvalid_int(e, pp, ps, "must be less than or equal to 1800");
}

static void validate_rules(struct sk__verr *e, json_t *r, const char *base)
{
	static const char *const selects[] = {"Disabled", "Max", "Min", NULL};
	json_t *sw = child(r, "stabilizationWindowSeconds"), *p;
	const char *sel = cstr(r, "selectPolicy");
	cleanup_free char *swp = sk__vchild(base, "stabilizationWindowSeconds");
	cleanup_free char *sp = sk__vchild(base, "selectPolicy"), *pp = sk__vchild(base, "policies");
	size_t i;

	if (!json_is_object(r))
		return;
	if (sw && json_integer_value(sw) < 0)
		sk__vinvalid(e, swp, sw, "must be greater than or equal to zero");
	if (sw && json_integer_value(sw) > MAX_STABILIZATION_SECONDS)
		sk__vinvalid(e, swp, sw, "must be less than or equal to 3600");
	if (child(r, "selectPolicy") && (!sel || (strcmp(sel, "Max") && strcmp(sel, "Min") && strcmp(sel, "Disabled"))))
		sk__vnot_supported(e, sp, child(r, "selectPolicy"), selects);
	if (!json_array_size(child(r, "policies")))
		sk__vrequired(e, pp, "must specify at least one Policy");
	json_array_foreach(child(r, "policies"), i, p) {
		cleanup_free char *ip = sk__vindex(pp, i);

		validate_policy(e, p, ip);
	}
}

static void validate_spec(struct sk__verr *e, json_t *spec)
{
	json_t *min = child(spec, "minReplicas"), *m, *b = child(spec, "behavior");
	json_int_t max = json_integer_value(child(spec, "maxReplicas"));
	size_t i;

	if (min && json_integer_value(min) < 1)
		sk__vinvalid(e, "spec.minReplicas", min, "must be greater than or equal to 1");
	if (max < 1)
		sk__vinvalid_int(e, "spec.maxReplicas", max, "must be greater than 0");
	if (min && max < json_integer_value(min))
		sk__vinvalid_int(e, "spec.maxReplicas", max, "must be greater than or equal to `minReplicas`");
	validate_segment(e, child(spec, "scaleTargetRef"), "kind", "spec.scaleTargetRef", "");
	validate_segment(e, child(spec, "scaleTargetRef"), "name", "spec.scaleTargetRef", "");
	json_array_foreach(child(spec, "metrics"), i, m) {
		cleanup_free char *p = sk__vindex("spec.metrics", i);

		validate_metric(e, m, p);
	}
	if (json_is_object(b)) {
		validate_rules(e, child(b, "scaleUp"), "spec.behavior.scaleUp");
		validate_rules(e, child(b, "scaleDown"), "spec.behavior.scaleDown");
	}
}

/* Validation runs on the v2 form, as upstream's on the internal one. */
static json_t *hpa_validate(const sk_api_resource *r, json_t *obj, json_t *old, int status_sub)
{
	struct sk__verr e = {json_array()};
	cleanup_json json_t *o = json_deep_copy(obj);
	json_t *st;

	(void)r;
	sk__hpa_to_v2(o);
	sk__validate_object_meta(&e, o, true);
	if (old)
		sk__validate_object_meta_update(&e, obj, old);
	if (!status_sub) {
		validate_spec(&e, child(o, "spec"));
	} else {
		st = child(o, "status");
		if (json_integer_value(child(st, "currentReplicas")) < 0)
			sk__vinvalid(&e, "status.currentReplicas", child(st, "currentReplicas"),
				     "must be greater than or equal to 0");
		if (json_integer_value(child(st, "desiredReplicas")) < 0)
			sk__vinvalid(&e, "status.desiredReplicas", child(st, "desiredReplicas"),
				     "must be greater than or equal to 0");
	}
	if (!json_array_size(e.causes)) {
		json_decref(e.causes);
		return NULL;
	}
	return e.causes;
}

static const sk_kind_ops hpa_ops = {
	.flags = SK_KIND_GENERATION,
	.printer = &sk_table_printer_horizontalpodautoscaler,
	.defaults = hpa_defaults,
	.validate = hpa_validate,
	.admit_create = hpa_admit_create,
	.convert = hpa_convert,
};

const sk_api_resource sk__kinds_autoscaling[] = {
	{
		.group = "autoscaling",
		.version = "v2",
		.kind = "HorizontalPodAutoscaler",
		.plural = "horizontalpodautoscalers",
		.singular = "horizontalpodautoscaler",
		.namespaced = 1,
		.short_names = "hpa",
		.categories = "all",
		.subresources = SK_SUB_STATUS,
		.has_spec = 1,
		.ops = &hpa_ops,
	},
	{
		.group = "autoscaling",
		.version = "v1",
		.kind = "HorizontalPodAutoscaler",
		.plural = "horizontalpodautoscalers",
		.singular = "horizontalpodautoscaler",
		.namespaced = 1,
		.short_names = "hpa",
		.categories = "all",
		.subresources = SK_SUB_STATUS,
		.has_spec = 1,
		.ops = &hpa_ops,
	},
};
const size_t sk__nkinds_autoscaling = sizeof(sk__kinds_autoscaling) / sizeof(sk__kinds_autoscaling[0]);
