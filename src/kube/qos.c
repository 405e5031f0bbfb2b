#include "kube/qos.h"

#include <stdbool.h>
#include <string.h>

#include "kube/quantity.h"

static const char *const qos_resources[] = {"cpu", "memory"};

/* Positive cpu and memory summed over containers, in thousandths (whole
 * units when a sum no longer fits). */
struct qos_sums {
	int64_t v[2];
	bool set[2];
};

static bool positive(json_t *q, int64_t *milli)
{
	int64_t v;

	if (sk_kube_quantity_milli(q, milli) == 0)
		return *milli > 0;
	if (sk_kube_quantity_value(q, &v) < 0 || v <= 0)
		return false;
	*milli = INT64_MAX / 2; /* past 9 PB: large, and equal to any other such */
	return true;
}

/* Adds the container's positive quantities of list to s; returns how many
 * of cpu and memory it had. */
static int add_list(struct qos_sums *s, json_t *list)
{
	int found = 0;

	for (int r = 0; r < 2; r++) {
		int64_t m;

		if (!positive(json_object_get(list, qos_resources[r]), &m))
			continue;
		found++;
		s->v[r] = s->set[r] && s->v[r] > INT64_MAX - m ? INT64_MAX / 2 : s->v[r] + m;
		s->set[r] = true;
	}
	return found;
}

const char *sk_kube_pod_qos_compute(json_t *pod)
{
	static const char *const lists[] = {"containers", "initContainers"};
	json_t *spec = json_object_get(pod, "spec");
	struct qos_sums req = {0}, lim = {0};
	bool guaranteed = true;

	for (int l = 0; l < 2; l++) {
		size_t i;
		json_t *c;

		json_array_foreach(json_object_get(spec, lists[l]), i, c) {
			json_t *res = json_object_get(c, "resources");

			add_list(&req, json_object_get(res, "requests"));
			if (add_list(&lim, json_object_get(res, "limits")) < 2)
				guaranteed = false;
		}
	}
	if (!req.set[0] && !req.set[1] && !lim.set[0] && !lim.set[1])
		return "BestEffort";
	for (int r = 0; r < 2 && guaranteed; r++)
		if (req.set[r] != lim.set[r] || req.v[r] != lim.v[r])
			guaranteed = false;
	return guaranteed ? "Guaranteed" : "Burstable";
}

const char *sk_kube_pod_qos(json_t *pod)
{
	const char *q = json_string_value(json_object_get(json_object_get(pod, "status"), "qosClass"));

	if (q && !strcmp(q, "Guaranteed"))
		return "Guaranteed";
	if (q && !strcmp(q, "Burstable"))
		return "Burstable";
	if (q && !strcmp(q, "BestEffort"))
		return "BestEffort";
	return sk_kube_pod_qos_compute(pod);
}
