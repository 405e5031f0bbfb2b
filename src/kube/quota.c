#include "kube/quota.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kube/qos.h"
#include "kube/quantity.h"
#include "kube/resource.h"
#include "util/util.h"

#define SC_SUFFIX ".storageclass.storage.k8s.io/"

/* ---- usage lists ---- */

void sk_kube_usage_release(sk_kube_usage *u)
{
	for (size_t i = 0; i < u->n; i++)
		free(u->v[i].name);
	free(u->v);
	memset(u, 0, sizeof(*u));
}

sk_kube_usage_item *sk_kube_usage_find(const sk_kube_usage *u, const char *name)
{
	for (size_t i = 0; i < u->n; i++)
		if (!strcmp(u->v[i].name, name))
			return &u->v[i];
	return NULL;
}

void sk_kube_usage_add(sk_kube_usage *u, const char *name, int64_t milli)
{
	sk_kube_usage_item *it = sk_kube_usage_find(u, name);

	if (it) {
		/* saturating: quantities near int64's range must not wrap */
		if (__builtin_add_overflow(it->milli, milli, &it->milli))
			it->milli = milli < 0 ? INT64_MIN : INT64_MAX;
		return;
	}
	if (u->n == u->cap) {
		u->cap = u->cap ? u->cap * 2 : 8;
		u->v = xrealloc(u->v, u->cap * sizeof(*u->v));
	}
	u->v[u->n].name = xstrdup(name);
	u->v[u->n++].milli = milli;
}

int sk_kube_usage_parse(json_t *list, sk_kube_usage *u)
{
	const char *k;
	json_t *v;

	json_object_foreach(list, k, v) {
		int64_t q;

		if (sk_kube_quantity_milli(v, &q) < 0)
			return -1;
		sk_kube_usage_add(u, k, q);
	}
	return 0;
}

/* ---- resource names ---- */

static bool starts(const char *s, const char *p) { return !strncmp(s, p, strlen(p)); }

/* helper.IsExtendedResourceName: not native (a "/" outside kubernetes.io)
 * and not already a requests. name. */
static bool is_extended(const char *name)
{
	const char *slash = strchr(name, '/');

	if (!slash || starts(name, "requests."))
		return false;
	if (starts(name, "kubernetes.io/") || (slash - name > 14 && !strncmp(slash - 14, ".kubernetes.io", 14)))
		return false;
	return true;
}

static const char *const pod_names[] = {
	"count/pods",
	"cpu",
	"memory",
	"ephemeral-storage",
	"requests.cpu",
	"requests.memory",
	"requests.ephemeral-storage",
	"limits.cpu",
	"limits.memory",
	"limits.ephemeral-storage",
	"pods",
	NULL,
};
static const char *const service_names[] = {"count/services", "services", "services.nodeports",
					    "services.loadbalancers", NULL};
static const char *const pvc_names[] = {"count/persistentvolumeclaims", "persistentvolumeclaims", "requests.storage",
					NULL};
/* the object counts that keep their pre-count/ names */
static const char *const legacy_names[] = {"configmaps", "secrets", "resourcequotas", "replicationcontrollers", NULL};

static bool in_list(const char *const *l, const char *s)
{
	for (; *l; l++)
		if (!strcmp(*l, s))
			return true;
	return false;
}

static bool is_core(const char *group, const char *resource, const char *want)
{
	return !*group && !strcmp(resource, want);
}

/* "count/<resource>" for the core group, else "count/<resource>.<group>". */
static char *count_name(const char *group, const char *resource)
{
	return *group ? xasprintf("count/%s.%s", resource, group) : xasprintf("count/%s", resource);
}

int sk_kube_quota_covers(const char *group, const char *resource, const char *name)
{
	cleanup_free char *count = count_name(group, resource);

	if (!strcmp(name, count))
		return 1;
	if (is_core(group, resource, "pods"))
		return in_list(pod_names, name) || starts(name, "hugepages-") || starts(name, "requests.hugepages-") ||
		       (starts(name, "requests.") && is_extended(name + 9));
	if (is_core(group, resource, "services"))
		return in_list(service_names, name);
	if (is_core(group, resource, "persistentvolumeclaims")) {
		const char *sc = strstr(name, SC_SUFFIX);

		return in_list(pvc_names, name) || (sc && sc > name &&
						    (!strcmp(sc + strlen(SC_SUFFIX), "requests.storage") ||
						     !strcmp(sc + strlen(SC_SUFFIX), "persistentvolumeclaims")));
	}
	return !*group && in_list(legacy_names, name) && !strcmp(name, resource);
}

static void set_buf(char *buf, size_t len, const char *s, size_t n)
{
	if (n >= len)
		n = len - 1;
	memcpy(buf, s, n);
	buf[n] = '\0';
}

int sk_kube_quota_resource_of(const char *name, char *group, size_t glen, char *resource, size_t rlen)
{
	static const char *const core[] = {"pods", "services", "persistentvolumeclaims", NULL};

	if (starts(name, "count/")) {
		const char *r = name + 6, *dot = strchr(r, '.');

		if (!*r || dot == r)
			return 0;
		set_buf(resource, rlen, r, dot ? (size_t)(dot - r) : strlen(r));
		set_buf(group, glen, dot ? dot + 1 : "", dot ? strlen(dot + 1) : 0);
		return 1;
	}
	set_buf(group, glen, "", 0);
	if (in_list(legacy_names, name)) {
		set_buf(resource, rlen, name, strlen(name));
		return 1;
	}
	for (int i = 0; core[i]; i++)
		if (sk_kube_quota_covers("", core[i], name)) {
			set_buf(resource, rlen, core[i], strlen(core[i]));
			return 1;
		}
	return 0;
}

/* ---- usage ---- */

/* QuotaV1Pod: terminal pods, and pods past their deletion grace (a lost
 * node's), are not charged compute resources. */
static bool pod_charged(json_t *pod, int64_t now)
{
	const char *phase = json_string_value(json_object_get(json_object_get(pod, "status"), "phase"));
	json_t *meta = json_object_get(pod, "metadata");
	const char *del = json_string_value(json_object_get(meta, "deletionTimestamp"));
	json_t *grace = json_object_get(meta, "deletionGracePeriodSeconds");
	int64_t t;

	if (phase && (!strcmp(phase, "Succeeded") || !strcmp(phase, "Failed")))
		return false;
	if (del && json_is_integer(grace) && sk_time_parse(del, &t) == 0 && now > t + json_integer_value(grace))
		return false;
	return true;
}

/* v (in units) in thousandths, saturating at int64's range. */
static int64_t scaled(int64_t v, int64_t scale)
{
	int64_t r;

	if (__builtin_mul_overflow(v, scale, &r))
		return (v < 0) != (scale < 0) ? INT64_MIN : INT64_MAX;
	return r;
}

/* podComputeUsageHelper over the pod's aggregated requests and limits. */
static int pod_usage(json_t *pod, int64_t now, sk_kube_usage *u)
{
	sk_kube_res req, lim;
	int n;

	sk_kube_usage_add(u, "count/pods", 1000);
	if (!pod_charged(pod, now))
		return 0;
	if (sk_kube_pod_requests(pod, &req, NULL) < 0 || sk_kube_pod_limits(pod, &lim) < 0)
		return -1;
	sk_kube_usage_add(u, "pods", 1000);
	n = sk_kube_res_count();
	for (int i = 0; i < n; i++) {
		const char *name = sk_kube_res_name(i);
		int64_t scale = i == SK_KUBE_RES_CPU ? 1 : 1000;
		cleanup_free char *rq = xasprintf("requests.%s", name), *lm = xasprintf("limits.%s", name);

		if (i == SK_KUBE_RES_PODS)
			continue;
		if (i < SK_KUBE_RES_NFIXED) {
			sk_kube_usage_add(u, name, scaled(req.v[i], scale));
			sk_kube_usage_add(u, rq, scaled(req.v[i], scale));
			sk_kube_usage_add(u, lm, scaled(lim.v[i], scale));
		} else if (starts(name, "hugepages-") && req.v[i]) {
			sk_kube_usage_add(u, name, scaled(req.v[i], scale));
			sk_kube_usage_add(u, rq, scaled(req.v[i], scale));
		} else if (is_extended(name) && req.v[i]) {
			sk_kube_usage_add(u, rq, scaled(req.v[i], scale));
		}
	}
	return 0;
}

static int service_usage(json_t *svc, sk_kube_usage *u)
{
	json_t *spec = json_object_get(svc, "spec");
	const char *type = json_string_value(json_object_get(spec, "type"));
	json_t *ports = json_object_get(spec, "ports"), *p;
	int64_t nports = (int64_t)json_array_size(ports), lb = 0;
	size_t i;

	sk_kube_usage_add(u, "count/services", 1000);
	sk_kube_usage_add(u, "services", 1000);
	if (type && !strcmp(type, "LoadBalancer")) {
		lb = 1;
		if (json_is_false(json_object_get(spec, "allocateLoadBalancerNodePorts"))) {
			nports = 0;
			json_array_foreach(ports, i, p)
				if (json_integer_value(json_object_get(p, "nodePort")) != 0)
					nports++;
		}
	} else if (!type || strcmp(type, "NodePort")) {
		nports = 0;
	}
	sk_kube_usage_add(u, "services.nodeports", nports * 1000);
	sk_kube_usage_add(u, "services.loadbalancers", lb * 1000);
	return 0;
}

static int pvc_usage(json_t *pvc, sk_kube_usage *u)
{
	json_t *spec = json_object_get(pvc, "spec");
	const char *sc = json_string_value(
		json_object_get(json_object_get(json_object_get(pvc, "metadata"), "annotations"),
				"volume.beta.kubernetes.io/storage-class"));
	json_t *req = json_object_get(json_object_get(json_object_get(spec, "resources"), "requests"), "storage");
	json_t *alloc = json_object_get(json_object_get(json_object_get(pvc, "status"), "allocatedResources"),
					"storage");
	int64_t st = 0, al = 0;

	if (!sc)
		sc = json_string_value(json_object_get(spec, "storageClassName"));
	sk_kube_usage_add(u, "persistentvolumeclaims", 1000);
	sk_kube_usage_add(u, "count/persistentvolumeclaims", 1000);
	if (sc && *sc) {
		cleanup_free char *n = xasprintf("%s" SC_SUFFIX "persistentvolumeclaims", sc);

		sk_kube_usage_add(u, n, 1000);
	}
	if (!req && !alloc)
		return 0;
	if ((req && sk_kube_quantity_milli(req, &st) < 0) || (alloc && sk_kube_quantity_milli(alloc, &al) < 0))
		return -1;
	if (al > st)
		st = al;
	sk_kube_usage_add(u, "requests.storage", st);
	if (sc && *sc) {
		cleanup_free char *n = xasprintf("%s" SC_SUFFIX "requests.storage", sc);

		sk_kube_usage_add(u, n, st);
	}
	return 0;
}

int sk_kube_quota_usage(const char *group, const char *resource, json_t *obj, int64_t now, sk_kube_usage *u)
{
	sk_kube_usage_release(u);
	if (is_core(group, resource, "pods"))
		return pod_usage(obj, now, u);
	if (is_core(group, resource, "services"))
		return service_usage(obj, u);
	if (is_core(group, resource, "persistentvolumeclaims"))
		return pvc_usage(obj, u);
	{
		cleanup_free char *count = count_name(group, resource);

		sk_kube_usage_add(u, count, 1000);
	}
	if (!*group && in_list(legacy_names, resource))
		sk_kube_usage_add(u, resource, 1000);
	return 0;
}

/* ---- scopes ---- */

static bool affinity_terms_cross_ns(json_t *terms, bool weighted)
{
	json_t *t;
	size_t i;

	json_array_foreach(terms, i, t) {
		json_t *term = weighted ? json_object_get(t, "podAffinityTerm") : t;

		if (json_array_size(json_object_get(term, "namespaces")) ||
		    (json_object_get(term, "namespaceSelector") &&
		     !json_is_null(json_object_get(term, "namespaceSelector"))))
			return true;
	}
	return false;
}

static bool cross_ns_affinity(json_t *pod)
{
	json_t *aff = json_object_get(json_object_get(pod, "spec"), "affinity");
	static const char *const kinds[] = {"podAffinity", "podAntiAffinity"};

	for (int i = 0; i < 2; i++) {
		json_t *a = json_object_get(aff, kinds[i]);

		if (affinity_terms_cross_ns(json_object_get(a, "requiredDuringSchedulingIgnoredDuringExecution"),
					    false) ||
		    affinity_terms_cross_ns(json_object_get(a, "preferredDuringSchedulingIgnoredDuringExecution"),
					    true))
			return true;
	}
	return false;
}

static bool values_have(json_t *values, const char *s)
{
	json_t *v;
	size_t i;

	json_array_foreach(values, i, v)
		if (json_is_string(v) && !strcmp(json_string_value(v), s))
			return true;
	return false;
}

/* podMatchesSelector: the pod's class as the label PriorityClass (absent
 * when the pod names none) against one requirement. */
static bool priority_matches(const char *pc, const char *op, json_t *values)
{
	bool has = pc && *pc;

	if (!strcmp(op, "Exists"))
		return has;
	if (!strcmp(op, "DoesNotExist"))
		return !has;
	if (!strcmp(op, "In"))
		return has && values_have(values, pc);
	if (!strcmp(op, "NotIn"))
		return !has || !values_have(values, pc);
	return false;
}

/* podMatchesScopeFunc for one requirement. */
static bool pod_scope_matches(json_t *pod, const char *scope, const char *op, json_t *values)
{
	json_t *spec = json_object_get(pod, "spec");
	json_t *ads = json_object_get(spec, "activeDeadlineSeconds");
	bool terminating = json_is_integer(ads) && json_integer_value(ads) >= 0;
	bool best_effort = !strcmp(sk_kube_pod_qos(pod), "BestEffort");

	if (!strcmp(scope, "Terminating"))
		return terminating;
	if (!strcmp(scope, "NotTerminating"))
		return !terminating;
	if (!strcmp(scope, "BestEffort"))
		return best_effort;
	if (!strcmp(scope, "NotBestEffort"))
		return !best_effort;
	if (!strcmp(scope, "PriorityClass"))
		return priority_matches(json_string_value(json_object_get(spec, "priorityClassName")), op, values);
	if (!strcmp(scope, "CrossNamespacePodAffinity"))
		return cross_ns_affinity(pod);
	return false;
}

int sk_kube_quota_scopes_match(json_t *quota, const char *group, const char *resource, json_t *obj)
{
	json_t *spec = json_object_get(quota, "spec"), *s;
	json_t *exprs = json_object_get(json_object_get(spec, "scopeSelector"), "matchExpressions");
	bool pod = is_core(group, resource, "pods");
	size_t i;

	json_array_foreach(json_object_get(spec, "scopes"), i, s)
		if (!pod || !json_is_string(s) || !pod_scope_matches(obj, json_string_value(s), "Exists", NULL))
			return 0;
	json_array_foreach(exprs, i, s) {
		const char *name = json_string_value(json_object_get(s, "scopeName"));
		const char *op = json_string_value(json_object_get(s, "operator"));

		if (!pod || !name || !op || !pod_scope_matches(obj, name, op, json_object_get(s, "values")))
			return 0;
	}
	return 1;
}

/* ---- constraints ---- */

static int cmp_str(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

/* One container's missing names (enforcePodContainerConstraints), appended
 * as "name\tcontainer" lines to miss. */
static void container_missing(json_t *c, json_t *required, json_t *miss)
{
	json_t *res = json_object_get(c, "resources");
	json_t *req = json_object_get(res, "requests"), *lim = json_object_get(res, "limits");
	const char *cname = json_string_value(json_object_get(c, "name"));
	size_t i;
	json_t *r;

	json_array_foreach(required, i, r) {
		const char *n = json_string_value(r);
		bool limits = starts(n, "limits.");
		const char *base = strchr(n, '.') ? strchr(n, '.') + 1 : n;

		if (!json_object_get(limits ? lim : req, base))
			json_array_append_new(miss, json_sprintf("%s\t%s", n, cname ? cname : ""));
	}
}

char *sk_kube_quota_constraints(json_t *hard, const char *group, const char *resource, json_t *obj)
{
	static const char *const validation[] = {
		"cpu", "memory", "requests.cpu", "requests.memory", "limits.cpu", "limits.memory", NULL};
	cleanup_json json_t *required = json_array(), *miss = json_array();
	json_t *spec = json_object_get(obj, "spec"), *c, *v;
	const char **lines;
	char *out = NULL, *prev = NULL;
	const char *k;
	size_t i, n;

	if (!is_core(group, resource, "pods"))
		return NULL;
	json_object_foreach(hard, k, v)
		if (in_list(validation, k))
			json_array_append_new(required, json_string(k));
	if (!json_array_size(required))
		return NULL;
	json_array_foreach(json_object_get(spec, "containers"), i, c)
		container_missing(c, required, miss);
	json_array_foreach(json_object_get(spec, "initContainers"), i, c)
		container_missing(c, required, miss);
	n = json_array_size(miss);
	if (!n)
		return NULL;
	lines = xzalloc(n * sizeof(*lines));
	json_array_foreach(miss, i, v)
		lines[i] = json_string_value(v);
	qsort(lines, n, sizeof(*lines), cmp_str);
	out = xstrdup("must specify ");
	for (i = 0; i < n; i++) {
		const char *tab = strchr(lines[i], '\t');
		size_t nl = (size_t)(tab - lines[i]);
		char *next;

		if (prev && !strncmp(prev, lines[i], nl) && prev[nl] == '\t') {
			if (!strcmp(strchr(prev, '\t'), tab))
				continue; /* the same name twice */
			next = xasprintf("%s,%s", out, tab + 1);
		} else {
			next = xasprintf("%s%s%.*s for: %s", out, prev ? "; " : "", (int)nl, lines[i], tab + 1);
		}
		free(out);
		out = next;
		prev = (char *)lines[i];
	}
	free(lines);
	return out;
}

/* ---- formatting ---- */

static bool binary_suffix(const char *q)
{
	size_t n = q ? strlen(q) : 0;

	return n >= 2 && q[n - 1] == 'i' && strchr("KMGTPE", q[n - 2]);
}

void sk_kube_quota_format(int64_t milli, const char *like, char *buf, size_t len)
{
	static const char *const bin[] = {"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
	static const char *const dec[] = {"", "k", "M", "G", "T", "P", "E"};
	int64_t v;
	int e = 0;

	if (milli % 1000) {
		snprintf(buf, len, "%lldm", (long long)milli);
		return;
	}
	v = milli / 1000;
	if (binary_suffix(like)) {
		while (v && v % 1024 == 0 && e < 6) {
			v /= 1024;
			e++;
		}
		if (e) {
			snprintf(buf, len, "%lld%s", (long long)v, bin[e]);
			return;
		}
		v = milli / 1000;
	}
	while (v && v % 1000 == 0 && e < 6) {
		v /= 1000;
		e++;
	}
	snprintf(buf, len, "%lld%s", (long long)v, dec[e]);
}
