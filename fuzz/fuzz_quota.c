/* Quota accounting and LimitRange rules over arbitrary objects: the input is
 * a JSON object {"quota": ResourceQuota, "obj": any object, "limitrange":
 * LimitRange}; each part goes through the evaluators (src/kube/quota.c) as a
 * pod, a Service, a PVC and a custom object, and the LimitRange through its
 * kind's defaulting and validation (src/api/limitrange.c). */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "api/api-int.h"
#include "kube/quota.h"

static void evaluate(json_t *quota, json_t *obj)
{
	static const char *const kinds[][2] = {
		{"", "pods"}, {"", "services"}, {"", "persistentvolumeclaims"}, {"example.com", "widgets"}};
	json_t *hard = json_object_get(json_object_get(quota, "spec"), "hard"), *v;
	const char *k;

	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		sk_kube_usage u = {0};
		char *missing;

		sk_kube_quota_usage(kinds[i][0], kinds[i][1], obj, 1767225600, &u);
		for (size_t j = 0; j < u.n; j++) {
			char buf[64];

			sk_kube_quota_format(u.v[j].milli, json_string_value(json_object_get(hard, u.v[j].name)), buf,
					     sizeof(buf));
		}
		sk_kube_usage_release(&u);
		sk_kube_quota_scopes_match(quota, kinds[i][0], kinds[i][1], obj);
		missing = sk_kube_quota_constraints(hard, kinds[i][0], kinds[i][1], obj);
		free(missing);
	}
	json_object_foreach(hard, k, v) {
		char g[64], r[64];
		sk_kube_usage u = {0};

		sk_kube_quota_resource_of(k, g, sizeof(g), r, sizeof(r));
		sk_kube_quota_covers("", "pods", k);
		sk_kube_usage_parse(hard, &u);
		sk_kube_usage_release(&u);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_t *in = json_loadb((const char *)data, size, 0, NULL);
	const sk_api_resource *lr = sk__resource_find("", "v1", "limitranges");
	json_t *l;

	if (!json_is_object(in)) {
		json_decref(in);
		return 0;
	}
	evaluate(json_object_get(in, "quota"), json_object_get(in, "obj"));
	l = json_object_get(in, "limitrange");
	if (json_is_object(l) && lr && lr->ops) {
		json_t *causes;

		lr->ops->defaults(lr, l);
		causes = lr->ops->validate(lr, l, NULL, 0);
		json_decref(causes);
	}
	json_decref(in);
	return 0;
}
