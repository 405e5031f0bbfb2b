/* LimitRange (core/v1): the kind's defaulting and validation (upstream's
 * SetDefaults_LimitRangeItem and ValidateLimitRange) and the LimitRanger
 * admission plugin (plugin/pkg/admission/limitranger): a new pod's
 * containers get the namespace's default requests and limits, then pods
 * and claims are held to min, max and maxLimitRequestRatio, with upstream's
 * messages. */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/admission.h"
#include "api/validate-int.h"
#include "kube/qos.h"
#include "kube/quantity.h"
#include "kube/quota.h"
#include "kube/resource.h"
#include "store/store.h"
#include "util/util.h"

/* ---- defaulting ---- */

/* Copies each key of from absent in to. */
static void fill(json_t *to, json_t *from)
{
	const char *k;
	json_t *v;

	json_object_foreach(from, k, v)
		if (!json_object_get(to, k))
			json_object_set_new(to, k, json_deep_copy(v));
}

static json_t *sub_obj(json_t *o, const char *key)
{
	json_t *s = json_object_get(o, key);

	if (!json_is_object(s)) {
		s = json_object();
		json_object_set_new(o, key, s);
	}
	return s;
}

/* SetDefaults_LimitRangeItem: a Container item's default limit comes from
 * max, its default request from the default limit, then from min. */
static void lr_defaults(const sk_api_resource *r, json_t *lr)
{
	json_t *item;
	size_t i;

	json_array_foreach(json_object_get(json_object_get(lr, "spec"), "limits"), i, item) {
		const char *type = json_string_value(json_object_get(item, "type"));
		json_t *def, *defreq;

		if (!json_is_object(item) || !type || strcmp(type, "Container"))
			continue;
		def = sub_obj(item, "default");
		defreq = sub_obj(item, "defaultRequest");
		fill(def, json_object_get(item, "max"));
		fill(defreq, def);
		fill(defreq, json_object_get(item, "min"));
	}
}

/* ---- validation ---- */

static const char *qstr(json_t *q, char *buf, size_t len)
{
	if (json_is_string(q))
		return json_string_value(q);
	snprintf(buf, len, "%lld", (long long)json_integer_value(q));
	return buf;
}

/* validateContainerResourceName: cpu, memory, ephemeral-storage,
 * hugepages-*, or an extended resource (a domain outside kubernetes.io). */
static bool container_resource(const char *k)
{
	const char *slash = strchr(k, '/');

	if (!strcmp(k, "cpu") || !strcmp(k, "memory") || !strcmp(k, "ephemeral-storage") ||
	    !strncmp(k, "hugepages-", 10))
		return true;
	return slash && strncmp(k, "kubernetes.io/", 14) && strncmp(k, "requests.", 9);
}

/* One map of an item (min, max …): its names checked, its quantities read. */
static void item_map(struct sk__verr *e, const char *base, json_t *item, const char *key, const char *type,
		     json_t *keys)
{
	cleanup_free char *p = sk__vchild(base, key);
	const char *k;
	json_t *v;

	json_object_foreach(json_object_get(item, key), k, v) {
		cleanup_free char *kp = sk__vkey(p, k);
		int64_t q;

		if ((!strcmp(type, "Container") || !strcmp(type, "Pod")) && !container_resource(k))
			sk__vinvalid_str(e, kp, k, "must be a standard resource for containers");
		else if (sk_kube_quantity_milli(v, &q) == 0 && q < 0)
			sk__vinvalid(e, kp, v, "must be greater than or equal to 0");
		json_object_set_new(keys, k, json_true());
	}
}

/* q of item's map at key k, or NULL. */
static json_t *at(json_t *item, const char *map, const char *k)
{
	return json_object_get(json_object_get(item, map), k);
}

static int cmpq(json_t *a, json_t *b)
{
	int c = 0;

	sk_kube_quantity_cmp(a, b, &c);
	return c;
}

/* The order relations between min, defaultRequest, default and max of one
 * resource, and the ratio's bounds (ValidateLimitRange's loop over keys). */
static void item_key(struct sk__verr *e, const char *base, json_t *item, const char *k)
{
	json_t *min = at(item, "min", k), *max = at(item, "max", k), *def = at(item, "default", k);
	json_t *dreq = at(item, "defaultRequest", k), *ratio = at(item, "maxLimitRequestRatio", k);
	char b1[32], b2[32];
	cleanup_free char *pmin = sk__vchild(base, "min"), *pdef = sk__vchild(base, "default");
	cleanup_free char *pdreq = sk__vchild(base, "defaultRequest"), *prat = sk__vchild(base, "maxLimitRequestRatio");
	cleanup_free char *fmin = sk__vkey(pmin, k), *fdef = sk__vkey(pdef, k), *fdreq = sk__vkey(pdreq, k),
			  *frat = sk__vkey(prat, k);
	char msg[256];

#define INVALID(field, val, ...) \
	do { \
		snprintf(msg, sizeof(msg), __VA_ARGS__); \
		sk__vinvalid_repr(e, field, qstr(val, b1, sizeof(b1)), msg); \
	} while (0)
	if (min && max && cmpq(min, max) > 0)
		INVALID(fmin, min, "min value %s is greater than max value %s", qstr(min, b1, sizeof(b1)),
			qstr(max, b2, sizeof(b2)));
	if (dreq && min && cmpq(min, dreq) > 0)
		INVALID(fdreq, dreq, "min value %s is greater than default request value %s", qstr(min, b1, sizeof(b1)),
			qstr(dreq, b2, sizeof(b2)));
	if (dreq && max && cmpq(dreq, max) > 0)
		INVALID(fdreq, dreq, "default request value %s is greater than max value %s",
			qstr(dreq, b1, sizeof(b1)), qstr(max, b2, sizeof(b2)));
	if (dreq && def && cmpq(dreq, def) > 0)
		INVALID(fdreq, dreq, "default request value %s is greater than default limit value %s",
			qstr(dreq, b1, sizeof(b1)), qstr(def, b2, sizeof(b2)));
	if (def && min && cmpq(min, def) > 0)
		INVALID(fdef, min, "min value %s is greater than default value %s", qstr(min, b1, sizeof(b1)),
			qstr(def, b2, sizeof(b2)));
	if (def && max && cmpq(def, max) > 0)
		INVALID(fdef, max, "default value %s is greater than max value %s", qstr(def, b1, sizeof(b1)),
			qstr(max, b2, sizeof(b2)));
	if (ratio) {
		int64_t r = 0, mn = 0, mx = 0;

		sk_kube_quantity_milli(ratio, &r);
		if (r < 1000)
			INVALID(frat, ratio, "ratio %s is less than 1", qstr(ratio, b1, sizeof(b1)));
		if (min && max && sk_kube_quantity_milli(min, &mn) == 0 && sk_kube_quantity_milli(max, &mx) == 0 &&
		    mn > 0 && (double)r / 1000 > (double)mx / (double)mn)
			INVALID(frat, ratio, "ratio %s is greater than max/min = %f", qstr(ratio, b1, sizeof(b1)),
				(double)mx / (double)mn);
	}
	/* resources that cannot be overcommitted (GPUs, hugepages) */
	if (def && dreq && (strchr(k, '/') || !strncmp(k, "hugepages-", 10)) && strncmp(k, "kubernetes.io/", 14) &&
	    cmpq(def, dreq) != 0)
		INVALID(fdreq, dreq, "default value %s must equal to defaultRequest value %s in %s",
			qstr(def, b1, sizeof(b1)), qstr(dreq, b2, sizeof(b2)), k);
#undef INVALID
}

static void validate_item(struct sk__verr *e, const char *base, json_t *item, json_t *seen)
{
	const char *type = json_string_value(json_object_get(item, "type"));
	cleanup_free char *ptype = sk__vchild(base, "type");
	cleanup_json json_t *keys = json_object();
	const char *k;
	json_t *v;

	if (!type || !*type) {
		sk__vrequired(e, ptype, "");
		type = "";
	} else if (json_object_get(seen, type)) {
		sk__vduplicate(e, ptype, json_object_get(item, "type"));
	}
	json_object_set_new(seen, type, json_true());
	item_map(e, base, item, "max", type, keys);
	item_map(e, base, item, "min", type, keys);
	if (!strcmp(type, "Pod")) {
		cleanup_free char *pd = sk__vchild(base, "default"), *pdr = sk__vchild(base, "defaultRequest");

		if (json_object_size(json_object_get(item, "default")))
			sk__vforbidden(e, pd, "may not be specified when `type` is 'Pod'");
		if (json_object_size(json_object_get(item, "defaultRequest")))
			sk__vforbidden(e, pdr, "may not be specified when `type` is 'Pod'");
	} else {
		item_map(e, base, item, "default", type, keys);
		item_map(e, base, item, "defaultRequest", type, keys);
	}
	if (!strcmp(type, "PersistentVolumeClaim") && !at(item, "min", "storage") && !at(item, "max", "storage")) {
		cleanup_free char *pl = sk__vchild(base, "limits");

		sk__vrequired(e, pl, "either minimum or maximum storage value is required, but neither was provided");
	}
	item_map(e, base, item, "maxLimitRequestRatio", type, keys);
	json_object_foreach(keys, k, v)
		item_key(e, base, item, k);
}

static json_t *lr_validate(const sk_api_resource *r, json_t *lr, json_t *old, int status_sub)
{
	struct sk__verr e = {json_array()};
	cleanup_json json_t *seen = json_object();
	json_t *item;
	size_t i;

	sk__validate_object_meta(&e, lr, true);
	if (json_is_object(old))
		sk__validate_object_meta_update(&e, lr, old);
	json_array_foreach(json_object_get(json_object_get(lr, "spec"), "limits"), i, item) {
		cleanup_free char *base = xasprintf("spec.limits[%zu]", i);

		validate_item(&e, base, item, seen);
	}
	if (!json_array_size(e.causes)) {
		json_decref(e.causes);
		return NULL;
	}
	return e.causes;
}

const sk_kind_ops sk__limitrange_ops = {
	.patch_type = "Object",
	.defaults = lr_defaults,
	.validate = lr_validate,
};

/* ---- the LimitRanger admission plugin ---- */

/* The LimitRanges of ns (new array) from the store. */
static json_t *limit_ranges(sk_api *api, const char *ns)
{
	const sk_api_resource *r = sk__resource_find("", "v1", "limitranges");
	cleanup_free char *prefix = r ? sk__obj_prefix(r, ns) : NULL;
	json_t *out = prefix ? sk__stored_list(api, prefix, NULL) : NULL;

	return out ? out : json_array();
}

static int is_core(const sk_adm_request *a, const char *plural)
{
	return !*a->res->group && !strcmp(a->res->plural, plural) && !*a->sub && a->ns && *a->ns;
}

/* Sorted names joined by ", ". */
static char *sorted_names(json_t *names)
{
	const char **v = xzalloc((json_array_size(names) + 1) * sizeof(*v));
	char *out = xstrdup("");
	size_t i, n = json_array_size(names);
	json_t *s;

	json_array_foreach(names, i, s)
		v[i] = json_string_value(s);
	for (i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++)
			if (strcmp(v[j], v[i]) < 0) {
				const char *t = v[i];

				v[i] = v[j];
				v[j] = t;
			}
	for (i = 0; i < n; i++) {
		char *next = xasprintf("%s%s%s", out, i ? ", " : "", v[i]);

		free(out);
		out = next;
	}
	free(v);
	return out;
}

/* mergeContainerResources: what the container lacks of the defaults; the
 * annotation's parts appended to notes. */
static void merge_container(json_t *c, json_t *lims, json_t *reqs, const char *prefix, json_t *notes)
{
	json_t *res = sub_obj(c, "resources");
	json_t *limits = sub_obj(res, "limits"), *requests = sub_obj(res, "requests");
	cleanup_json json_t *set_lim = json_array(), *set_req = json_array();
	const char *k, *name = json_string_value(json_object_get(c, "name"));
	json_t *v;

	json_object_foreach(lims, k, v)
		if (!json_object_get(limits, k)) {
			json_object_set_new(limits, k, json_deep_copy(v));
			json_array_append_new(set_lim, json_string(k));
		}
	json_object_foreach(reqs, k, v)
		if (!json_object_get(requests, k)) {
			json_object_set_new(requests, k, json_deep_copy(v));
			json_array_append_new(set_req, json_string(k));
		}
	if (json_array_size(set_req)) {
		cleanup_free char *s = sorted_names(set_req);

		json_array_append_new(notes, json_sprintf("%s request for %s %s", s, prefix, name ? name : ""));
	}
	if (json_array_size(set_lim)) {
		cleanup_free char *s = sorted_names(set_lim);

		json_array_append_new(notes, json_sprintf("%s limit for %s %s", s, prefix, name ? name : ""));
	}
	if (!json_object_size(limits))
		json_object_del(res, "limits");
	if (!json_object_size(requests))
		json_object_del(res, "requests");
}

/* defaultContainerResourceRequirements + mergePodResourceRequirements for
 * one LimitRange. */
static void default_pod(json_t *lr, json_t *pod)
{
	cleanup_json json_t *lims = json_object(), *reqs = json_object(), *notes = json_array();
	json_t *spec = json_object_get(pod, "spec"), *item, *c;
	size_t i;

	json_array_foreach(json_object_get(json_object_get(lr, "spec"), "limits"), i, item) {
		const char *type = json_string_value(json_object_get(item, "type"));

		if (type && !strcmp(type, "Container")) {
			json_object_update(lims, json_object_get(item, "default"));
			json_object_update(reqs, json_object_get(item, "defaultRequest"));
		}
	}
	if (!json_object_size(lims) && !json_object_size(reqs))
		return;
	json_array_foreach(json_object_get(spec, "containers"), i, c)
		merge_container(c, lims, reqs, "container", notes);
	json_array_foreach(json_object_get(spec, "initContainers"), i, c)
		merge_container(c, lims, reqs, "init container", notes);
	if (json_array_size(notes)) {
		json_t *ann = sub_obj(sub_obj(pod, "metadata"), "annotations");
		char *val = xstrdup("LimitRanger plugin set: ");
		json_t *n;

		json_array_foreach(notes, i, n) {
			char *next = xasprintf("%s%s%s", val, i ? "; " : "", json_string_value(n));

			free(val);
			val = next;
		}
		json_object_set_new(ann, "kubernetes.io/limit-ranger", json_string(val));
		free(val);
	}
}

static int lr_admit(sk_api *api, sk_adm_request *a, sk_error_t *err)
{
	cleanup_json json_t *lrs = NULL;
	json_t *lr;
	size_t i;

	if (a->op != SK_ADM_CREATE || !is_core(a, "pods"))
		return 0;
	lrs = limit_ranges(api, a->ns);
	json_array_foreach(lrs, i, lr)
		default_pod(lr, a->obj);
	/* the create computed the QoS class before this plugin ran; upstream
	 * computes it after admission (PrepareForCreate) */
	if (json_array_size(lrs) && json_is_object(json_object_get(a->obj, "status")))
		json_object_set_new(json_object_get(a->obj, "status"), "qosClass",
				    json_string(sk_kube_pod_qos_compute(a->obj)));
	return 0;
}

/* The error list upstream aggregates (utilerrors.NewAggregate). */
typedef struct errs {
	json_t *msgs;
} errs;

static void add_err(errs *es, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add_err(errs *es, const char *fmt, ...)
{
	char *m = NULL;
	va_list ap;
	json_t *s;
	size_t i;

	va_start(ap, fmt);
	if (vasprintf(&m, fmt, ap) < 0)
		abort();
	va_end(ap);
	json_array_foreach(es->msgs, i, s)
		if (!strcmp(json_string_value(s), m)) {
			free(m);
			return;
		}
	json_array_append_new(es->msgs, json_string(m));
	free(m);
}

/* A quantity's value for comparisons (thousandths) and its text. */
static int64_t mv(json_t *q)
{
	int64_t v = 0;

	if (q && sk_kube_quantity_milli(q, &v) < 0 && sk_kube_quantity_value(q, &v) == 0 && v < INT64_MAX / 1000)
		v *= 1000;
	return v;
}

static void min_c(errs *es, const char *type, const char *k, json_t *enf, json_t *req, json_t *lim)
{
	char b1[32], b2[32];
	const char *e = qstr(enf, b1, sizeof(b1));

	if (!req)
		add_err(es, "minimum %s usage per %s is %s.  No request is specified", k, type, e);
	else if (mv(req) < mv(enf))
		add_err(es, "minimum %s usage per %s is %s, but request is %s", k, type, e, qstr(req, b2, sizeof(b2)));
	else if (lim && mv(lim) < mv(enf))
		add_err(es, "minimum %s usage per %s is %s, but limit is %s", k, type, e, qstr(lim, b2, sizeof(b2)));
}

static void max_c(errs *es, const char *type, const char *k, json_t *enf, json_t *req, json_t *lim)
{
	char b1[32], b2[32];
	const char *e = qstr(enf, b1, sizeof(b1));

	if (!lim)
		add_err(es, "maximum %s usage per %s is %s.  No limit is specified", k, type, e);
	else if (mv(lim) > mv(enf))
		add_err(es, "maximum %s usage per %s is %s, but limit is %s", k, type, e, qstr(lim, b2, sizeof(b2)));
	else if (req && mv(req) > mv(enf))
		add_err(es, "maximum %s usage per %s is %s, but request is %s", k, type, e, qstr(req, b2, sizeof(b2)));
}

static void ratio_c(errs *es, const char *type, const char *k, json_t *enf, json_t *req, json_t *lim)
{
	char b1[32];
	const char *e = qstr(enf, b1, sizeof(b1));
	int64_t r = mv(req), l = mv(lim);

	if (!req || !r)
		add_err(es, "%s max limit to request ratio per %s is %s, but no request is specified or request is 0",
			k, type, e);
	else if (!lim || !l)
		add_err(es, "%s max limit to request ratio per %s is %s, but no limit is specified or limit is 0", k,
			type, e);
	else if ((double)l / (double)r * 1000 > (double)mv(enf))
		add_err(es, "%s max limit to request ratio per %s is %s, but provided ratio is %f", k, type, e,
			(double)l / (double)r);
}

/* min, max and ratio of item against one set of requests and limits. */
static void check_item(errs *es, json_t *item, const char *type, json_t *req, json_t *lim)
{
	const char *k;
	json_t *v;

	json_object_foreach(json_object_get(item, "min"), k, v)
		min_c(es, type, k, v, json_object_get(req, k), json_object_get(lim, k));
	json_object_foreach(json_object_get(item, "max"), k, v)
		max_c(es, type, k, v, json_object_get(req, k), json_object_get(lim, k));
	json_object_foreach(json_object_get(item, "maxLimitRequestRatio"), k, v)
		ratio_c(es, type, k, v, json_object_get(req, k), json_object_get(lim, k));
}

/* The pod's aggregated requests or limits as a ResourceList of the names
 * some container sets (upstream's PodRequests/PodLimits keep only those). */
static json_t *pod_list(json_t *pod, int limits)
{
	json_t *spec = json_object_get(pod, "spec"), *out = json_object(), *c;
	static const char *const lists[] = {"containers", "initContainers"};
	const char *which = limits ? "limits" : "requests";
	sk_kube_res r, oh;
	size_t i;

	if ((limits ? sk_kube_pod_limits(pod, &r) : sk_kube_pod_requests(pod, &r, NULL)) < 0 ||
	    sk_kube_res_parse(json_object_get(spec, "overhead"), &oh) < 0)
		return out;
	/* upstream's local podRequests/podLimits leave the overhead out */
	for (int k = 0; k < SK_KUBE_RES_MAX; k++)
		if (r.v[k] >= oh.v[k])
			r.v[k] -= oh.v[k];
	for (int l = 0; l < 2; l++)
		json_array_foreach(json_object_get(spec, lists[l]), i, c) {
			const char *k;
			json_t *v;

			json_object_foreach(json_object_get(json_object_get(c, "resources"), which), k, v) {
				int idx = sk_kube_res_index(k);
				char buf[64];

				if (idx < 0 || json_object_get(out, k))
					continue;
				sk_kube_quota_format(idx == SK_KUBE_RES_CPU ? r.v[idx] : r.v[idx] * 1000,
						     json_string_value(v), buf, sizeof(buf));
				json_object_set_new(out, k, json_string(buf));
			}
		}
	return out;
}

static void check_pod(errs *es, json_t *lr, json_t *pod)
{
	json_t *spec = json_object_get(pod, "spec"), *item, *c;
	static const char *const lists[] = {"containers", "initContainers"};
	size_t i, j;

	json_array_foreach(json_object_get(json_object_get(lr, "spec"), "limits"), i, item) {
		const char *type = json_string_value(json_object_get(item, "type"));

		if (type && !strcmp(type, "Container")) {
			for (int l = 0; l < 2; l++)
				json_array_foreach(json_object_get(spec, lists[l]), j, c) {
					json_t *res = json_object_get(c, "resources");

					check_item(es, item, type, json_object_get(res, "requests"),
						   json_object_get(res, "limits"));
				}
		} else if (type && !strcmp(type, "Pod")) {
			cleanup_json json_t *req = pod_list(pod, 0), *lim = pod_list(pod, 1);

			check_item(es, item, type, req, lim);
		}
	}
}

static void check_pvc(errs *es, json_t *lr, json_t *pvc)
{
	json_t *req = json_object_get(json_object_get(json_object_get(pvc, "spec"), "resources"), "requests");
	json_t *item, *v;
	const char *k;
	size_t i;

	json_array_foreach(json_object_get(json_object_get(lr, "spec"), "limits"), i, item) {
		const char *type = json_string_value(json_object_get(item, "type"));
		char b1[32], b2[32];

		if (!type || strcmp(type, "PersistentVolumeClaim"))
			continue;
		json_object_foreach(json_object_get(item, "min"), k, v)
			min_c(es, type, k, v, json_object_get(req, k), NULL);
		json_object_foreach(json_object_get(item, "max"), k, v) {
			json_t *r = json_object_get(req, k);

			if (!r)
				add_err(es, "maximum %s usage per %s is %s.  No request is specified", k, type,
					qstr(v, b1, sizeof(b1)));
			else if (mv(r) > mv(v))
				add_err(es, "maximum %s usage per %s is %s, but request is %s", k, type,
					qstr(v, b1, sizeof(b1)), qstr(r, b2, sizeof(b2)));
		}
	}
}

static int lr_validate_adm(sk_api *api, sk_adm_request *a, sk_error_t *err)
{
	int pod = is_core(a, "pods"), pvc = is_core(a, "persistentvolumeclaims");
	cleanup_json json_t *lrs = NULL;
	errs es = {json_array()};
	cleanup_free char *msg = NULL;
	json_t *lr, *m;
	size_t i;

	if ((!pod || a->op != SK_ADM_CREATE) && (!pvc || (a->op != SK_ADM_CREATE && a->op != SK_ADM_UPDATE))) {
		json_decref(es.msgs);
		return 0;
	}
	if (a->old && json_object_get(json_object_get(a->old, "metadata"), "deletionTimestamp")) {
		json_decref(es.msgs);
		return 0; /* objects being deleted are let go, as upstream */
	}
	lrs = limit_ranges(api, a->ns);
	json_array_foreach(lrs, i, lr) {
		if (pod)
			check_pod(&es, lr, a->obj);
		else
			check_pvc(&es, lr, a->obj);
	}
	if (!json_array_size(es.msgs)) {
		json_decref(es.msgs);
		return 0;
	}
	msg = xstrdup(json_array_size(es.msgs) > 1 ? "[" : "");
	json_array_foreach(es.msgs, i, m) {
		char *next = xasprintf("%s%s%s", msg, i ? ", " : "", json_string_value(m));

		free(msg);
		msg = next;
	}
	i = json_array_size(es.msgs);
	json_decref(es.msgs);
	return sk_error_set(err, SK_EFORBIDDEN, "%s \"%s\" is forbidden: %s%s", a->res->plural, a->name, msg,
			    i > 1 ? "]" : "");
}

const sk_adm_plugin sk__adm_limitranger = {
	.name = "LimitRanger",
	.admit = lr_admit,
	.validate = lr_validate_adm,
};
