/* Pure StatefulSet rules: identities, revisions, claim ownership, updates. */
#include "ctrl/stsutil.h"

#include <stdlib.h>
#include <string.h>

#include "kube/object.h"
#include "util/util.h"

int64_t sk_sts_ordinal(const char *set, const char *pod)
{
	size_t sl, pl;
	const char *d;
	int64_t v = 0;

	if (!set || !pod)
		return -1;
	sl = strlen(set);
	pl = strlen(pod);
	if (pl < sl + 2 || strncmp(pod, set, sl) || pod[sl] != '-')
		return -1;
	for (d = pod + sl + 1; *d; d++) {
		if (*d < '0' || *d > '9' || v > (INT32_MAX - 9) / 10)
			return -1;
		v = v * 10 + (*d - '0');
	}
	return v;
}

int64_t sk_sts_start(json_t *set)
{
	json_t *v = sk_kube_jget(set, "spec.ordinals.start");

	return json_is_integer(v) && json_integer_value(v) > 0 ? json_integer_value(v) : 0;
}

char *sk_sts_claim_name(const char *tmpl, const char *set, int64_t ord)
{
	return xasprintf("%s-%s-%lld", tmpl ? tmpl : "", set ? set : "", (long long)ord);
}

int sk_sts_takes_update(json_t *set, int64_t ordinal)
{
	const char *type = sk_kube_jstr(set, "spec.updateStrategy.type");
	json_t *ru = sk_kube_jget(set, "spec.updateStrategy.rollingUpdate");
	int64_t start = sk_sts_start(set), keep;

	if (!type || strcmp(type, "RollingUpdate"))
		return 1;
	if (json_is_object(ru))
		keep = json_integer_value(json_object_get(ru, "partition"));
	else
		keep = json_integer_value(sk_kube_jget(set, "status.currentReplicas"));
	return ordinal >= start + keep;
}

enum sk_sts_claim_owner sk_sts_claim_owner(json_t *set, int condemned)
{
	const char *del = sk_kube_jstr(set, "spec.persistentVolumeClaimRetentionPolicy.whenDeleted");
	const char *scaled = sk_kube_jstr(set, "spec.persistentVolumeClaimRetentionPolicy.whenScaled");

	if (condemned && scaled && !strcmp(scaled, "Delete"))
		return SK_STS_CLAIM_POD;
	if (del && !strcmp(del, "Delete"))
		return SK_STS_CLAIM_SET;
	return SK_STS_CLAIM_NONE;
}

int sk_sts_plan_update(sk_sts_slot *slots, int n, int update_min, int64_t max_unavailable)
{
	int planned = 0, t;
	int64_t unavailable = 0;

	if (update_min < 0)
		update_min = 0;
	if (max_unavailable < 0) {
		for (t = n - 1; t >= update_min; t--) {
			sk_sts_slot *s = &slots[t];

			if (s->exists && !s->updated && !s->terminating) {
				s->delete = 1;
				return 1;
			}
			if (!s->exists || !s->healthy)
				return 0;
		}
		return 0;
	}
	for (t = 0; t < n; t++)
		if (!slots[t].exists || !slots[t].healthy)
			unavailable++;
	for (t = n - 1; t >= update_min && planned < max_unavailable - unavailable; t--) {
		sk_sts_slot *s = &slots[t];

		if (s->exists && !s->updated && !s->terminating) {
			s->delete = 1;
			planned++;
		}
	}
	return planned;
}
