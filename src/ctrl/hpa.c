/* The HorizontalPodAutoscaler controller (after pkg/controller/podautoscaler
 * horizontal.go): every sync period each HPA reads its target's scale
 * subresource, the pods its selector names and their metrics from
 * metrics.k8s.io, computes the replicas its metrics ask for
 * (ctrl/hpautil.c), stabilizes and rate-limits them (behavior), writes the
 * scale and its status with the AbleToScale, ScalingActive and
 * ScalingLimited conditions and records SuccessfulRescale events. */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <curl/curl.h>

#include "ctrl/ctrl-int.h"
#include "ctrl/hpautil.h"
#include "kube/quantity.h"
#include "util/util.h"

#define HPA_PREFIX "/apis/autoscaling/v2"
#define COMPONENT "horizontal-pod-autoscaler"

typedef struct hpa_entry {
	char *key;
	sk_hpa_history h;
	struct hpa_entry *next;
} hpa_entry;

typedef struct hpa_state {
	sk_informer *hpas;
	pthread_mutex_t mu;
	hpa_entry *entries;
} hpa_state;

/* The remembered history of key (made on first use); under s->mu. */
static sk_hpa_history *history(hpa_state *s, const char *key)
{
	hpa_entry *e;

	for (e = s->entries; e; e = e->next)
		if (!strcmp(e->key, key))
			return &e->h;
	e = xzalloc(sizeof(*e));
	e->key = xstrdup(key);
	e->next = s->entries;
	s->entries = e;
	return &e->h;
}

static void forget(hpa_state *s, const char *key)
{
	pthread_mutex_lock(&s->mu);
	for (hpa_entry **p = &s->entries; *p; p = &(*p)->next) {
		if (!strcmp((*p)->key, key)) {
			hpa_entry *e = *p;

			*p = e->next;
			sk_hpa_history_release(&e->h);
			free(e->key);
			free(e);
			break;
		}
	}
	pthread_mutex_unlock(&s->mu);
}

static void state_release(void *ud)
{
	hpa_state *s = ud;

	while (s->entries) {
		hpa_entry *e = s->entries;

		s->entries = e->next;
		sk_hpa_history_release(&e->h);
		free(e->key);
		free(e);
	}
	pthread_mutex_destroy(&s->mu);
	free(s);
}

__attribute__((format(printf, 5, 6))) static void set_cond(json_t *hpa, const char *type, const char *st,
							   const char *reason, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	sk__cond_set(sk_kube_jobj(hpa, "status"), type, st, reason, msg, 0, 0);
}

/* The pods of ns that sel selects (new array, read-only objects). */
static json_t *select_pods(struct sk_ctrl *ctl, const char *ns, const sk_kube_label_selector *sel)
{
	cleanup_json json_t *all = sk_informer_list(ctl->pods, ns);
	json_t *out = json_array(), *p;
	size_t i;

	json_array_foreach(all, i, p) {
		if (sk_kube_label_selector_match(sel, sk_kube_jget(p, "metadata.labels")))
			json_array_append(out, p);
	}
	return out;
}

typedef struct sync_ctx {
	struct sk_ctrl *ctl;
	hpa_state *s;
	json_t *hpa;
	const char *ns, *selector;
	sk_kube_label_selector *sel;
	json_t *pods;            /* selected pods, read lazily */
	json_t *pod_metrics;     /* the PodMetricsList, read lazily */
	const char *cond_reason; /* the first failed metric's condition */
	char cond_msg[512];
} sync_ctx;

static json_t *fetch_metrics(sync_ctx *x, sk_error_t *err)
{
	cleanup_free char *path = NULL, *q = NULL;
	char *sel;

	if (x->pod_metrics)
		return x->pod_metrics;
	path = xasprintf("/apis/metrics.k8s.io/v1beta1/namespaces/%s/pods", x->ns);
	/* libcurl's escaping (its handle is ignored since 7.82) */
	sel = curl_easy_escape(NULL, x->selector, 0);
	q = xasprintf("labelSelector=%s", sel ? sel : "");
	curl_free(sel);
	x->pod_metrics = sk_client_list(x->ctl->c, path, q, err);
	return x->pod_metrics;
}

/* One Resource or ContainerResource metric: its replica proposal, or -1
 * with the condition to set in x and err. status receives its MetricStatus. */
static int resource_metric(sync_ctx *x, json_t *spec, int container_kind, int32_t current, int32_t *proposal,
			   char **name, json_t **status, sk_error_t *err)
{
	const char *field = container_kind ? "containerResource" : "resource";
	json_t *src = json_object_get(spec, field), *target = json_object_get(src, "target"), *list;
	const char *res = json_string_value(json_object_get(src, "name")) ?: "";
	const char *container = container_kind ? json_string_value(json_object_get(src, "container")) : NULL;
	const char *fail = container_kind ? "FailedGetContainerResourceMetric" : "FailedGetResourceMetric";
	sk_hpa_calc c = {.tolerance = x->ctl->o.hpa_tolerance,
			 .cpu_init_secs = x->ctl->o.hpa_cpu_init_secs,
			 .readiness_delay = x->ctl->o.hpa_readiness_delay_secs,
			 .now = sk__now()};
	cleanup_json json_t *metrics = NULL;
	sk_error_t e = {0};
	char milli[48];

	int util_kind = json_is_integer(json_object_get(target, "averageUtilization"));

	list = fetch_metrics(x, &e);
	if (!list) {
		char inner[400];

		snprintf(inner, sizeof(inner), "%s", e.msg);
		sk_error_set(
			&e, SK_EUNKNOWN,
			"unable to get metrics for resource %s: unable to fetch metrics from resource metrics API: %s",
			res, inner);
		goto failed;
	}
	if (!json_array_size(json_object_get(list, "items"))) {
		sk_error_set(&e, SK_EINVALID,
			     "unable to get metrics for resource %s: no metrics returned from resource metrics API",
			     res);
		goto failed;
	}
	metrics = sk_hpa_pod_metrics(list, res, container);
	if (!x->pods)
		x->pods = select_pods(x->ctl, x->ns, x->sel);
	if (util_kind) {
		int32_t util;
		int64_t raw;

		if (sk_hpa_resource_replicas(&c, current,
					     (int32_t)json_integer_value(json_object_get(target, "averageUtilization")),
					     res, container, x->pods, metrics, proposal, &util, &raw, &e) < 0)
			goto failed;
		snprintf(milli, sizeof(milli), "%lldm", (long long)raw);
		*name = container_kind ? xasprintf("%s container resource utilization (percentage of request)", res)
				       : xasprintf("%s resource utilization (percentage of request)", res);
		*status = json_pack("{s:s, s:{s:s, s:s*, s:{s:i, s:s}}}", "type",
				    container_kind ? "ContainerResource" : "Resource", field, "name", res, "container",
				    container, "current", "averageUtilization", util, "averageValue", milli);
		return 0;
	} else {
		int64_t target_milli = 0, usage;

		sk_kube_quantity_milli(json_object_get(target, "averageValue"), &target_milli);
		if (target_milli <= 0) {
			sk_error_set(&e, SK_EINVALID, "invalid target averageValue");
			goto failed;
		}
		if (sk_hpa_raw_resource_replicas(&c, current, target_milli, res, x->pods, metrics, proposal, &usage,
						 &e) < 0)
			goto failed;
		snprintf(milli, sizeof(milli), "%lldm", (long long)usage);
		*name = container_kind ? xasprintf("%s container resource", res) : xasprintf("%s resource", res);
		*status = json_pack("{s:s, s:{s:s, s:s*, s:{s:s}}}", "type",
				    container_kind ? "ContainerResource" : "Resource", field, "name", res, "container",
				    container, "current", "averageValue", milli);
		return 0;
	}
failed:
	sk_error_set(err, e.code ? e.code : SK_EINVALID, "failed to get %s %s: %s", res,
		     util_kind ? "utilization" : "usage", e.msg);
	/* getUnableComputeReplicaCountCondition */
	sk_event_record(x->ctl->c, x->hpa, "Warning", fail, COMPONENT, NULL, "%s", err->msg);
	if (!x->cond_reason) {
		x->cond_reason = fail;
		snprintf(x->cond_msg, sizeof(x->cond_msg), "the HPA was unable to compute the replica count: %s",
			 err->msg);
	}
	return -1;
}

/* computeReplicasForMetrics: the largest proposal, or -1 (statuses set,
 * the condition of the first invalid metric set, err). */
static int32_t replicas_for_metrics(sync_ctx *x, int32_t spec_replicas, json_t *statuses, char **metric_name,
				    sk_error_t *err)
{
	json_t *m, *specs = sk_kube_jget(x->hpa, "spec.metrics");
	int32_t replicas = 0;
	int invalid = 0;
	char first[512] = "";
	size_t i;

	json_array_foreach(specs, i, m) {
		const char *type = json_string_value(json_object_get(m, "type")) ?: "";
		int32_t proposal = 0;
		char *name = NULL;
		json_t *st = NULL;
		sk_error_t e = {0};
		int rc;

		if (!strcmp(type, "Resource") || !strcmp(type, "ContainerResource")) {
			rc = resource_metric(x, m, !strcmp(type, "ContainerResource"), spec_replicas, &proposal, &name,
					     &st, &e);
		} else {
			sk_error_set(&e, SK_EINVALID, "unable to get metric of type %s: no metrics API serves it",
				     type);
			snprintf(x->cond_msg, sizeof(x->cond_msg),
				 "the HPA was unable to compute the replica count: %s", e.msg);
			if (!x->cond_reason)
				x->cond_reason = !strcmp(type, "Pods")     ? "FailedGetPodsMetric"
						 : !strcmp(type, "Object") ? "FailedGetObjectMetric"
									   : "FailedGetExternalMetric";
			rc = -1;
		}
		json_array_append_new(statuses, st ? st : json_pack("{s:s}", "type", ""));
		if (rc < 0) {
			if (!invalid++)
				snprintf(first, sizeof(first), "%s", e.msg);
			continue;
		}
		if (!replicas || proposal > replicas) {
			replicas = proposal;
			free(*metric_name);
			*metric_name = name;
		} else {
			free(name);
		}
	}
	if (invalid && ((size_t)invalid >= json_array_size(specs) || replicas < spec_replicas)) {
		set_cond(x->hpa, "ScalingActive", "False", x->cond_reason, "%s", x->cond_msg);
		sk_error_set(err, SK_EINVALID, "invalid metrics (%d invalid out of %zu), first error is: %s", invalid,
			     json_array_size(specs), first);
		return -1;
	}
	set_cond(x->hpa, "ScalingActive", "True", "ValidMetricFound",
		 "the HPA was able to successfully calculate a replica count from %s",
		 *metric_name ? *metric_name : "");
	return replicas;
}

/* setStatus: what the status says after a sync (conditions already set). */
static void set_status(json_t *hpa, int32_t current, int32_t desired, json_t *metrics, int rescaled)
{
	json_t *st = sk_kube_jobj(hpa, "status");

	if (current)
		json_object_set_new(st, "currentReplicas", json_integer(current));
	else
		json_object_del(st, "currentReplicas");
	json_object_set_new(st, "desiredReplicas", json_integer(desired));
	if (metrics && json_array_size(metrics))
		json_object_set(st, "currentMetrics", metrics);
	else
		json_object_del(st, "currentMetrics");
	if (rescaled)
		json_object_set_new(st, "lastScaleTime", sk__time_json(sk__now()));
	/* upstream's setStatus makes a new status: no observedGeneration */
	json_object_del(st, "observedGeneration");
}

static int write_status(sync_ctx *x, json_t *orig)
{
	sk_error_t err = {0};

	if (json_equal(sk_kube_jget(orig, "status"), sk_kube_jget(x->hpa, "status")))
		return 0;
	if (sk__update_status(x->ctl, x->s->hpas, HPA_PREFIX, "horizontalpodautoscalers", x->hpa, &err) < 0) {
		sk_warn("ctrl", "hpa %s/%s: status: %s", x->ns, sk__name(x->hpa), err.msg);
		return -1;
	}
	return 0;
}

/* The scale subresource of the target: its path in *path (caller frees). */
static json_t *get_scale(sync_ctx *x, char **path, sk_error_t *err)
{
	json_t *ref = sk_kube_jget(x->hpa, "spec.scaleTargetRef");
	cleanup_free char *coll = sk__rest_mapping(x->ctl, sk_kube_jstr(ref, "apiVersion"), sk_kube_jstr(ref, "kind"),
						   x->ns, 0, NULL, err);

	if (!coll)
		return NULL;
	*path = xasprintf("%s/%s/scale", coll, sk_kube_jstr(ref, "name") ?: "");
	return sk_client_get(x->ctl->c, *path, err);
}

static int reconcile(sync_ctx *x, json_t *orig)
{
	hpa_state *s = x->s;
	cleanup_free char *scale_path = NULL, *metric = NULL, *key = sk__key(x->hpa);
	cleanup_json json_t *scale = NULL, *statuses = json_array(), *out = NULL;
	json_t *behavior = sk_kube_jget(x->hpa, "spec.behavior");
	sk_error_t err = {0};
	int32_t current, desired = 0, min = (int32_t)sk__jint(x->hpa, "spec.minReplicas", 1);
	int32_t max = (int32_t)sk__jint(x->hpa, "spec.maxReplicas", 1);
	const char *reason = "";
	char reason_buf[600];
	int rescale = 1;

	scale = get_scale(x, &scale_path, &err);
	if (!scale) {
		set_cond(x->hpa, "AbleToScale", "False", "FailedGetScale",
			 "the HPA controller was unable to get the target's current scale: %s", err.msg);
		sk_event_record(x->ctl->c, x->hpa, "Warning", "FailedGetScale", COMPONENT, NULL, "%s", err.msg);
		write_status(x, orig);
		return 0;
	}
	set_cond(x->hpa, "AbleToScale", "True", "SucceededGetScale",
		 "the HPA controller was able to get the target's current scale");
	current = (int32_t)sk__jint(scale, "spec.replicas", 0);
	if (current == 0 && min != 0) {
		rescale = 0;
		set_cond(x->hpa, "ScalingActive", "False", "ScalingDisabled",
			 "scaling is disabled since the replica count of the target is zero");
	} else if (current > max) {
		reason = "Current number of replicas above Spec.MaxReplicas";
		desired = max;
	} else if (current < min) {
		reason = "Current number of replicas below Spec.MinReplicas";
		desired = min;
	} else {
		sk_hpa_norm norm = {0};
		int32_t proposal;

		x->selector = sk_kube_jstr(scale, "status.selector");
		if (!x->selector || !*x->selector) {
			sk_event_record(x->ctl->c, x->hpa, "Warning", "SelectorRequired", COMPONENT, NULL,
					"selector is required");
			set_cond(x->hpa, "ScalingActive", "False", "InvalidSelector",
				 "the HPA target's scale is missing a selector");
			set_status(x->hpa, current, (int32_t)sk__jint(x->hpa, "status.desiredReplicas", 0), NULL, 0);
			write_status(x, orig);
			return 0;
		}
		x->sel = sk_kube_label_selector_parse(x->selector, &err);
		if (!x->sel) {
			sk_event_record(x->ctl->c, x->hpa, "Warning", "InvalidSelector", COMPONENT, NULL,
					"couldn't convert selector into a corresponding internal selector object: %s",
					err.msg);
			set_cond(x->hpa, "ScalingActive", "False", "InvalidSelector",
				 "the HPA target's scale has an invalid selector: %s", err.msg);
			write_status(x, orig);
			return 0;
		}
		proposal = replicas_for_metrics(x, current, statuses, &metric, &err);
		if (proposal < 0) {
			set_status(x->hpa, current, (int32_t)sk__jint(x->hpa, "status.desiredReplicas", 0), statuses,
				   0);
			sk_event_record(x->ctl->c, x->hpa, "Warning", "FailedComputeMetricsReplicas", COMPONENT, NULL,
					"%s", err.msg);
			write_status(x, orig);
			return 0;
		}
		desired = proposal;
		if (desired > current) {
			snprintf(reason_buf, sizeof(reason_buf), "%s above target", metric ? metric : "");
			reason = reason_buf;
		} else if (desired < current) {
			reason = "All metrics below target";
		}
		pthread_mutex_lock(&s->mu);
		sk_hpa_normalize(history(s, key), behavior, x->ctl->o.hpa_downscale_window_secs, current, desired, min,
				 max, sk__now(), &norm);
		pthread_mutex_unlock(&s->mu);
		set_cond(x->hpa, "AbleToScale", "True", norm.able_reason, "%s", norm.able_msg);
		set_cond(x->hpa, "ScalingLimited", norm.limited ? "True" : "False", norm.limited_reason, "%s",
			 norm.limited_msg);
		desired = norm.replicas;
		rescale = desired != current;
	}
	if (rescale) {
		json_object_set_new(sk_kube_jobj(scale, "spec"), "replicas", json_integer(desired));
		out = sk_client_update(x->ctl->c, scale_path, scale, &err);
		if (!out) {
			sk_event_record(x->ctl->c, x->hpa, "Warning", "FailedRescale", COMPONENT, NULL,
					"New size: %d; reason: %s; error: %s", desired, reason, err.msg);
			set_cond(x->hpa, "AbleToScale", "False", "FailedUpdateScale",
				 "the HPA controller was unable to update the target scale: %s", err.msg);
			set_status(x->hpa, current, (int32_t)sk__jint(x->hpa, "status.desiredReplicas", 0), statuses,
				   0);
			write_status(x, orig);
			return -1;
		}
		set_cond(x->hpa, "AbleToScale", "True", "SucceededRescale",
			 "the HPA controller was able to update the target scale to %d", desired);
		sk_event_record(x->ctl->c, x->hpa, "Normal", "SuccessfulRescale", COMPONENT, NULL,
				"New size: %d; reason: %s", desired, reason);
		pthread_mutex_lock(&s->mu);
		sk_hpa_record_scale(history(s, key), behavior, current, desired, sk__now());
		pthread_mutex_unlock(&s->mu);
		sk_info("ctrl", "hpa %s: new size %d (%s)", key, desired, reason);
	} else {
		desired = current;
	}
	set_status(x->hpa, current, desired, statuses, rescale);
	return write_status(x, orig);
}

static int sync_hpa(sk_controller *k, const char *key)
{
	hpa_state *s = k->state;
	char ns[256], name[256];
	cleanup_json json_t *orig = NULL;
	sync_ctx x = {.ctl = k->ctl, .s = s, .ns = ns};
	int rc;

	sk__split_key(key, ns, sizeof(ns), name, sizeof(name));
	orig = sk_informer_get(s->hpas, ns, name);
	if (!orig) {
		forget(s, key);
		return 0;
	}
	if (sk__is_deleting(orig))
		return 0;
	x.hpa = json_deep_copy(orig);
	rc = reconcile(&x, orig);
	json_decref(x.hpa);
	json_decref(x.pods);
	json_decref(x.pod_metrics);
	sk_kube_label_selector_free(x.sel);
	return rc;
}

int sk__hpa_init(struct sk_ctrl *ctl, sk_error_t *err)
{
	hpa_state *s = xzalloc(sizeof(*s));
	sk_controller *k;

	(void)err;
	pthread_mutex_init(&s->mu, NULL);
	s->hpas = sk__ctrl_extra(ctl, HPA_PREFIX "/horizontalpodautoscalers", "autoscaling/v2",
				 "HorizontalPodAutoscaler");
	k = sk__controller_add(ctl, COMPONENT, sync_hpa, s);
	k->release = state_release;
	k->primary = s->hpas;
	k->resync_secs = ctl->o.hpa_sync_period_secs;
	sk_informer_on(s->hpas, sk__enqueue_self, k);
	return 0;
}
