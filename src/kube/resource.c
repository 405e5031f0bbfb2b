#include "kube/resource.h"

#include <pthread.h>
#include <stdbool.h>
#include <string.h>

#include "kube/quantity.h"
#include "util/util.h"

/* ---- resource names ---- */

static pthread_mutex_t res_lock = PTHREAD_MUTEX_INITIALIZER;
static const char *res_names[SK_KUBE_RES_MAX] = {"cpu", "memory", "ephemeral-storage", "pods"};
static int res_n = SK_KUBE_RES_NFIXED;

int sk_kube_res_index(const char *name)
{
	int i, n = __atomic_load_n(&res_n, __ATOMIC_ACQUIRE);

	for (i = 0; i < n; i++)
		if (strcmp(res_names[i], name) == 0)
			return i;
	pthread_mutex_lock(&res_lock);
	for (i = 0; i < res_n; i++)
		if (strcmp(res_names[i], name) == 0)
			break;
	if (i == res_n) {
		if (res_n == SK_KUBE_RES_MAX) {
			i = -1;
		} else {
			res_names[res_n] = xstrdup(name);
			__atomic_store_n(&res_n, res_n + 1, __ATOMIC_RELEASE);
		}
	}
	pthread_mutex_unlock(&res_lock);
	return i;
}

const char *sk_kube_res_name(int i) { return i >= 0 && i < sk_kube_res_count() ? res_names[i] : NULL; }

int sk_kube_res_count(void) { return __atomic_load_n(&res_n, __ATOMIC_ACQUIRE); }

/* Parses list into r; the slots it names are set in *present when given. */
static int parse_list(json_t *list, sk_kube_res *r, uint32_t *present)
{
	const char *k;
	json_t *v;

	memset(r, 0, sizeof(*r));
	if (present)
		*present = 0;
	if (!json_is_object(list))
		return 0;
	json_object_foreach(list, k, v) {
		int i = sk_kube_res_index(k);
		int64_t q;

		if (i < 0)
			continue;
		if ((i == SK_KUBE_RES_CPU ? sk_kube_quantity_milli(v, &q) : sk_kube_quantity_value(v, &q)) < 0)
			return -1;
		r->v[i] = q;
		if (present)
			*present |= 1u << i;
	}
	return 0;
}

int sk_kube_res_parse(json_t *list, sk_kube_res *r) { return parse_list(list, r, NULL); }

/* ---- pods ---- */

static void res_add(sk_kube_res *a, const sk_kube_res *b)
{
	for (int i = 0; i < SK_KUBE_RES_MAX; i++)
		a->v[i] += b->v[i];
}

static void res_max(sk_kube_res *a, const sk_kube_res *b)
{
	for (int i = 0; i < SK_KUBE_RES_MAX; i++)
		if (b->v[i] > a->v[i])
			a->v[i] = b->v[i];
}

/* The two sums aggregated side by side: exact, and with non-missing defaults. */
struct acc {
	sk_kube_res v, nz;
};

static void acc_add(struct acc *a, const struct acc *b)
{
	res_add(&a->v, &b->v);
	res_add(&a->nz, &b->nz);
}

static void acc_max(struct acc *a, const struct acc *b)
{
	res_max(&a->v, &b->v);
	res_max(&a->nz, &b->nz);
}

/* One container's requests (falling back to its limits per resource) or
 * limits; nz adds the defaults for cpu and memory it does not name. */
static int container_acc(json_t *c, bool limits, struct acc *a)
{
	json_t *res = json_object_get(c, "resources");
	uint32_t present, lim_present;
	sk_kube_res lim;

	if (parse_list(json_object_get(res, limits ? "limits" : "requests"), &a->v, &present) < 0)
		return -1;
	if (!limits) {
		if (parse_list(json_object_get(res, "limits"), &lim, &lim_present) < 0)
			return -1;
		for (int i = 0; i < SK_KUBE_RES_MAX; i++)
			if (!(present & (1u << i)) && (lim_present & (1u << i)))
				a->v.v[i] = lim.v[i];
		present |= lim_present;
	}
	a->nz = a->v;
	if (!(present & (1u << SK_KUBE_RES_CPU)))
		a->nz.v[SK_KUBE_RES_CPU] = SK_KUBE_DEFAULT_MILLI_CPU;
	if (!(present & (1u << SK_KUBE_RES_MEMORY)))
		a->nz.v[SK_KUBE_RES_MEMORY] = SK_KUBE_DEFAULT_MEMORY;
	return 0;
}

/* Upstream AggregateContainerRequests / AggregateContainerLimits. */
static int aggregate(json_t *spec, bool limits, struct acc *out)
{
	struct acc sum = {0}, sidecars = {0}, init = {0}, c;
	size_t i;
	json_t *ct;

	json_array_foreach(json_object_get(spec, "containers"), i, ct) {
		if (container_acc(ct, limits, &c) < 0)
			return -1;
		acc_add(&sum, &c);
	}
	json_array_foreach(json_object_get(spec, "initContainers"), i, ct) {
		const char *rp = json_string_value(json_object_get(ct, "restartPolicy"));

		if (container_acc(ct, limits, &c) < 0)
			return -1;
		if (rp && strcmp(rp, "Always") == 0) {
			acc_add(&sum, &c);
			acc_add(&sidecars, &c);
			c = sidecars;
		} else {
			acc_add(&c, &sidecars);
		}
		acc_max(&init, &c);
	}
	acc_max(&sum, &init);
	*out = sum;
	return 0;
}

int sk_kube_pod_requests(json_t *pod, sk_kube_res *req, sk_kube_res *nonzero)
{
	json_t *spec = json_object_get(pod, "spec");
	struct acc a;
	sk_kube_res oh;

	if (aggregate(spec, false, &a) < 0 || sk_kube_res_parse(json_object_get(spec, "overhead"), &oh) < 0)
		return -1;
	res_add(&a.v, &oh);
	res_add(&a.nz, &oh);
	*req = a.v;
	if (nonzero)
		*nonzero = a.nz;
	return 0;
}

int sk_kube_pod_limits(json_t *pod, sk_kube_res *lim)
{
	json_t *spec = json_object_get(pod, "spec");
	struct acc a;
	sk_kube_res oh;

	if (aggregate(spec, true, &a) < 0 || sk_kube_res_parse(json_object_get(spec, "overhead"), &oh) < 0)
		return -1;
	for (int i = 0; i < SK_KUBE_RES_MAX; i++)
		if (a.v.v[i])
			a.v.v[i] += oh.v[i];
	*lim = a.v;
	return 0;
}
