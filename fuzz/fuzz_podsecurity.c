/* The Pod Security checks on arbitrary pod JSON: the first byte picks the
 * level and version, the rest is a pod ({"metadata":…, "spec":…}); its
 * labels are read as a namespace's Pod Security labels and the whole value
 * as a PodSecurityConfiguration too. Every shape must be tolerated. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "api/podsecurity.h"
#include "kube/podsecurity.h"
#include "util/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	sk_psa_policy defaults, p;
	sk_error_t err = {0};
	sk__psa_config *cfg;
	json_t *pod, *meta, *res, *causes;
	sk_psa_lv lv;
	char *d, *r;

	if (size < 1)
		return 0;
	lv.level = (sk_psa_level)(data[0] % 3);
	lv.minor = data[0] / 3 % 36 == 35 ? SK_PSA_LATEST : data[0] / 3 % 36;
	pod = json_loadb((const char *)data + 1, size - 1, JSON_DECODE_ANY, NULL);
	if (!pod)
		return 0;
	meta = json_object_get(pod, "metadata");
	res = sk_psa_evaluate(&lv, meta, json_object_get(pod, "spec"));
	d = sk_psa_forbidden_detail(res);
	r = sk_psa_forbidden_reason(res);
	free(d);
	free(r);
	json_decref(res);
	/* the pod as its own spec: fields of every type in every place */
	res = sk_psa_evaluate(&lv, pod, pod);
	json_decref(res);
	sk_psa_policy_default(&defaults);
	causes = sk_psa_policy_from_labels(json_object_get(meta, "labels"), &defaults, &p);
	json_decref(causes);
	cfg = sk__psa_config_from_json(pod, &err);
	sk__psa_config_free(cfg);
	json_decref(pod);
	return 0;
}
