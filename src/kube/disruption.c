/* PodDisruptionBudget rules; see disruption.h. */
#include <string.h>

#include "kube/condition.h"
#include "kube/disruption.h"

#define COND "DisruptionAllowed"

int64_t sk_kube_pdb_allowed(int64_t current, int64_t desired, int64_t expected)
{
	int64_t n = current - desired;

	return expected <= 0 || n <= 0 ? 0 : n;
}

/* metav1.Condition: message and observedGeneration are always there. */
static void set_cond(json_t *status, const char *st, const char *reason, const char *msg, const char *now)
{
	json_t *c;

	sk_kube_condition_set(status, COND, st, reason, msg, now, 0);
	c = sk_kube_condition_get(status, COND);
	if (!c)
		return;
	if (!msg || !*msg)
		json_object_set_new(c, "message", json_string(""));
	json_object_set_new(c, "observedGeneration",
			    json_integer(json_integer_value(json_object_get(status, "observedGeneration"))));
}

void sk_kube_pdb_set_allowed_condition(json_t *status, const char *now)
{
	if (json_integer_value(json_object_get(status, "disruptionsAllowed")) > 0)
		set_cond(status, "True", "SufficientPods", NULL, now);
	else
		set_cond(status, "False", "InsufficientPods", NULL, now);
}

void sk_kube_pdb_set_sync_failed(json_t *status, const char *msg, const char *now)
{
	set_cond(status, "False", "SyncFailed", msg, now);
}

int sk_kube_pdb_conditions_up_to_date(json_t *status)
{
	json_t *c = sk_kube_condition_get(status, COND);
	const char *st = json_string_value(json_object_get(c, "status"));
	int allowed = json_integer_value(json_object_get(status, "disruptionsAllowed")) > 0;

	if (!c || !st)
		return 0;
	if (json_integer_value(json_object_get(c, "observedGeneration")) !=
	    json_integer_value(json_object_get(status, "observedGeneration")))
		return 0;
	return allowed ? !strcmp(st, "True") : !strcmp(st, "False");
}
