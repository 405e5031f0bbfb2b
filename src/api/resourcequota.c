/* The ResourceQuota admission plugin (upstream's
 * k8s.io/apiserver/pkg/admission/plugin/resourcequota, controller.go's
 * quotaEvaluator): a create (or an update of a Service or a PVC that uses
 * more) in a namespace with quotas is checked against each quota that
 * matches it, and charged to them before the object is stored: the plugin
 * writes the quota's status.used with the quota's revision as precondition
 * and, on a conflict, reads the quota again and checks again. Concurrent
 * requests so serialise on the quota object and never admit past hard. A
 * charge whose object is then not stored (the write failed) is corrected
 * by the ResourceQuota controller's next count. Dry runs check but do not
 * charge. Usage comes from src/kube/quota.c, as the controller's. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api/admission.h"
#include "kube/quantity.h"
#include "kube/quota.h"
#include "store/store.h"
#include "util/util.h"

#define CHARGE_TIMEOUT_NS (10LL * 1000000000)

/* `pods "x" is forbidden: <msg>` (admission.NewForbidden). */
static int forbid(const sk_adm_request *a, sk_error_t *err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int forbid(const sk_adm_request *a, sk_error_t *err, const char *fmt, ...)
{
	cleanup_free char *msg = NULL;
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		abort();
	va_end(ap);
	return sk_error_set(err, SK_EFORBIDDEN, "%s%s%s \"%s\" is forbidden: %s", a->res->plural,
			    a->res->group[0] ? "." : "", a->res->group, a->name, msg);
}

static int cmp_item(const void *x, const void *y)
{
	return strcmp(((const sk_kube_usage_item *)x)->name, ((const sk_kube_usage_item *)y)->name);
}

static int cmp_strp(const void *x, const void *y) { return strcmp(*(const char *const *)x, *(const char *const *)y); }

/* The matching quota's hard names this request concerns. */
static int quota_matches(json_t *q, const sk_adm_request *a)
{
	json_t *hard = json_object_get(json_object_get(q, "status"), "hard"), *v;
	const char *k;
	int any = 0;

	json_object_foreach(hard, k, v)
		any |= sk_kube_quota_covers(a->res->group, a->res->plural, k);
	return any && sk_kube_quota_scopes_match(q, a->res->group, a->res->plural, a->obj);
}

/* The names of arr sorted and joined by commas (prettyPrintResourceNames); caller frees. */
static char *sorted_join(json_t *arr)
{
	size_t n = json_array_size(arr), i;
	const char **v = xzalloc((n + 1) * sizeof(*v));
	char *out = xstrdup("");
	json_t *s;

	json_array_foreach(arr, i, s)
		v[i] = json_string_value(s);
	qsort(v, n, sizeof(*v), cmp_strp);
	for (i = 0; i < n; i++) {
		char *j = xasprintf("%s%s%s", out, i ? "," : "", v[i]);

		free(out);
		out = j;
	}
	free(v);
	return out;
}

/* The checks upstream makes before any charge: constraints (requests and
 * limits a quota requires) and a usage the controller has counted. */
static int quota_precheck(json_t *q, const sk_adm_request *a, sk_error_t *err)
{
	json_t *st = json_object_get(q, "status"), *hard = json_object_get(st, "hard");
	json_t *used = json_object_get(st, "used"), *v;
	const char *name = json_string_value(json_object_get(json_object_get(q, "metadata"), "name"));
	cleanup_free char *missing = sk_kube_quota_constraints(hard, a->res->group, a->res->plural, a->obj);
	cleanup_free char *names_s = NULL;
	cleanup_json json_t *names = json_array();
	const char *k;
	int unknown = 0;

	if (missing)
		return forbid(a, err, "failed quota: %s: %s", name, missing);
	json_object_foreach(hard, k, v)
		if (sk_kube_quota_covers(a->res->group, a->res->plural, k)) {
			unknown |= !json_object_get(used, k);
			json_array_append_new(names, json_string(k));
		}
	if (!unknown)
		return 0;
	names_s = sorted_join(names);
	return forbid(a, err, "status unknown for quota: %s, resources: %s", name, names_s);
}

static void fmt_q(int64_t milli, json_t *like, char *buf, size_t len)
{
	sk_kube_quota_format(milli, json_string_value(like), buf, len);
}

/* Appends "k=v" to *s, comma separated. */
static void join(char **s, const char *k, const char *v)
{
	char *n = xasprintf("%s%s%s=%s", *s ? *s : "", *s ? "," : "", k, v);

	free(*s);
	*s = n;
}

/* Adds sign × delta (masked by hard) to the quota's status.used; with
 * check, refuses what would pass hard (upstream's message). *changed tells
 * whether anything was charged. */
static int apply_delta(json_t *q, const sk_kube_usage *delta, int sign, int check, const sk_adm_request *a,
		       int *changed, sk_error_t *err)
{
	json_t *st = json_object_get(q, "status"), *hard = json_object_get(st, "hard"), *used;
	cleanup_free char *req_s = NULL, *used_s = NULL, *hard_s = NULL;
	sk_kube_usage_item *items = xzalloc((delta->n + 1) * sizeof(*items));
	size_t n = 0;

	used = json_object_get(st, "used");
	if (!json_is_object(used)) {
		used = json_object();
		json_object_set_new(st, "used", used);
	}
	for (size_t i = 0; i < delta->n; i++)
		if (json_object_get(hard, delta->v[i].name))
			items[n++] = delta->v[i];
	qsort(items, n, sizeof(*items), cmp_item);
	*changed = n > 0;
	for (size_t i = 0; i < n && check; i++) {
		json_t *h = json_object_get(hard, items[i].name), *u = json_object_get(used, items[i].name);
		int64_t hv = 0, uv = 0, sum;
		char buf[64];

		if (sk_kube_quantity_milli(h, &hv) < 0)
			continue;
		if (u && sk_kube_quantity_milli(u, &uv) < 0)
			uv = 0;
		if (!__builtin_add_overflow(uv, items[i].milli, &sum) && sum <= hv)
			continue;
		fmt_q(items[i].milli, h, buf, sizeof(buf));
		join(&req_s, items[i].name, buf);
		join(&used_s, items[i].name, json_is_string(u) ? json_string_value(u) : "0");
		join(&hard_s, items[i].name, json_is_string(h) ? json_string_value(h) : "0");
	}
	if (req_s) {
		free(items);
		return forbid(a, err, "exceeded quota: %s, requested: %s, used: %s, limited: %s",
			      json_string_value(json_object_get(json_object_get(q, "metadata"), "name")), req_s, used_s,
			      hard_s);
	}
	for (size_t i = 0; i < n; i++) {
		json_t *u = json_object_get(used, items[i].name);
		int64_t uv = 0;
		char buf[64];

		if (u && sk_kube_quantity_milli(u, &uv) < 0)
			uv = 0;
		if (__builtin_add_overflow(uv, sign * items[i].milli, &uv))
			uv = sign > 0 ? INT64_MAX : 0;
		if (uv < 0)
			uv = 0;
		fmt_q(uv, json_object_get(hard, items[i].name), buf, sizeof(buf));
		json_object_set_new(used, items[i].name, json_string(buf));
	}
	free(items);
	return 0;
}

/* Charges delta to the quota at key (sign 1: checked against hard) or gives
 * it back (sign -1), reading the quota again after each lost race until
 * the write wins. A quota that is gone, or no longer matches, is left
 * alone. *charged: whether a write was made. */
static int charge_one(sk_api *api, const char *key, const sk_kube_usage *delta, int sign, const sk_adm_request *a,
		      int64_t deadline, int *charged, sk_error_t *err)
{
	*charged = 0;
	for (;;) {
		sk_error_t e = {0};
		sk_store_kv kv;
		cleanup_json json_t *q = NULL;
		cleanup_free char *val = NULL;
		size_t len;
		int64_t rev;
		int changed;

		if (sk_store_get(api->store, key, &kv, &e) < 0)
			return e.code == SK_ENOTFOUND ? 0 : sk_error_set(err, e.code, "%s", e.msg);
		q = sk__obj_decode(kv.value, kv.len, kv.mod_rev);
		rev = kv.mod_rev;
		sk_store_kv_release(&kv);
		if (!q)
			return sk_error_set(err, SK_EINTERNAL, "resourcequotas at %s: stored object is corrupt", key);
		if (sign > 0 && (!quota_matches(q, a)))
			return 0;
		if (sign > 0 && quota_precheck(q, a, err) < 0)
			return -1;
		if (apply_delta(q, delta, sign, sign > 0, a, &changed, err) < 0)
			return -1;
		if (!changed || a->dry_run)
			return 0;
		json_object_del(json_object_get(q, "metadata"), "resourceVersion");
		val = sk__obj_encode(q, &len);
		if (sk_store_update(api->store, key, val, len, rev, &e) >= 0) {
			*charged = 1;
			return 0;
		}
		if (e.code == SK_ENOTFOUND)
			return 0;
		if (e.code != SK_ECONFLICT)
			return sk_error_set(err, e.code, "%s", e.msg);
		if (sk_mono_ns() > deadline)
			return sk_error_set(err, SK_EINTERNAL,
					    "Internal error occurred: resource quota evaluation timed out");
	}
}

/* What the request adds: the new object's usage, less the old one's on an
 * update (never below zero), zeros dropped. */
static int request_delta(const sk_adm_request *a, sk_kube_usage *delta, sk_error_t *err)
{
	const char *g = a->res->group, *r = a->res->plural;
	int64_t now = sk_now_ns() / 1000000000;
	sk_kube_usage nu = {0}, old = {0};
	int rc = 0;

	if (sk_kube_quota_usage(g, r, a->obj, now, &nu) < 0 ||
	    (a->old && sk_kube_quota_usage(g, r, a->old, now, &old) < 0)) {
		rc = forbid(a, err, "quota usage: a quantity is malformed");
		goto out;
	}
	for (size_t i = 0; i < nu.n; i++) {
		sk_kube_usage_item *o = sk_kube_usage_find(&old, nu.v[i].name);
		int64_t d;

		if (__builtin_sub_overflow(nu.v[i].milli, o ? o->milli : 0, &d))
			d = INT64_MAX;
		if (d > 0)
			sk_kube_usage_add(delta, nu.v[i].name, d);
	}
out:
	sk_kube_usage_release(&nu);
	sk_kube_usage_release(&old);
	return rc;
}

/* Upstream's evaluators handle every create; of updates, only those of
 * Services and PVCs (a type change, a larger claim); never subresources. */
static int handles(const sk_adm_request *a)
{
	if (*a->sub || !a->res->namespaced || !a->ns || !*a->ns)
		return 0;
	if (a->op == SK_ADM_CREATE)
		return 1;
	return a->op == SK_ADM_UPDATE && !*a->res->group &&
	       (!strcmp(a->res->plural, "services") || !strcmp(a->res->plural, "persistentvolumeclaims"));
}

static int quota_validate(sk_api *api, sk_adm_request *a, sk_error_t *err)
{
	const sk_api_resource *rq = sk__resource_find("", "v1", "resourcequotas");
	cleanup_free char *prefix = NULL;
	sk_kube_usage delta = {0};
	sk_store_list l = {0};
	int64_t deadline = sk_mono_ns() + CHARGE_TIMEOUT_NS;
	size_t nq = 0;
	char **charged = NULL;
	int rc = 0;

	if (!handles(a) || !rq)
		return 0;
	prefix = sk__obj_prefix(rq, a->ns);
	if (sk_store_range(api->store, prefix, NULL, 0, 0, &l, err) < 0)
		return -1;
	if (!l.n)
		goto out;
	/* constraints and counted usage first, for every quota, as upstream */
	for (size_t i = 0; i < l.n && rc == 0; i++) {
		cleanup_json json_t *q = sk__obj_decode(l.items[i].value, l.items[i].len, l.items[i].mod_rev);

		if (q && quota_matches(q, a))
			rc = quota_precheck(q, a, err);
	}
	if (rc < 0 || (rc = request_delta(a, &delta, err)) < 0 || !delta.n)
		goto out;
	charged = xzalloc(l.n * sizeof(*charged));
	for (size_t i = 0; i < l.n; i++) {
		int did;

		rc = charge_one(api, l.items[i].key, &delta, 1, a, deadline, &did, err);
		if (rc < 0)
			break;
		if (did)
			charged[nq++] = l.items[i].key;
	}
	if (rc < 0) /* give back what the quotas before the refusing one took */
		for (size_t i = 0; i < nq; i++) {
			sk_error_t e = {0};
			int did;

			if (charge_one(api, charged[i], &delta, -1, a, deadline + CHARGE_TIMEOUT_NS, &did, &e) < 0)
				sk_warn("api", "resourcequota: %s: could not give back a charge: %s", charged[i],
					e.msg);
		}
out:
	free(charged);
	sk_kube_usage_release(&delta);
	sk_store_list_release(&l);
	return rc;
}

const sk_adm_plugin sk__adm_resourcequota = {
	.name = "ResourceQuota",
	.validate = quota_validate,
};
