#include "kube/taint.h"

#include <string.h>

static const char *str_or_empty(json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));

	return s ? s : "";
}

int sk_kube_taint_effect(const char *name)
{
	if (!name || !*name)
		return 0;
	if (strcmp(name, "NoSchedule") == 0)
		return SK_KUBE_EFFECT_NOSCHEDULE;
	if (strcmp(name, "PreferNoSchedule") == 0)
		return SK_KUBE_EFFECT_PREFER;
	if (strcmp(name, "NoExecute") == 0)
		return SK_KUBE_EFFECT_NOEXECUTE;
	return -1;
}

void sk_kube_toleration_parse(json_t *j, sk_kube_toleration *t)
{
	const char *op = str_or_empty(j, "operator");

	t->key = str_or_empty(j, "key");
	t->value = str_or_empty(j, "value");
	t->op = !*op || !strcmp(op, "Equal") ? SK_KUBE_TOL_EQUAL
					     : (!strcmp(op, "Exists") ? SK_KUBE_TOL_EXISTS : SK_KUBE_TOL_UNKNOWN);
	t->effect = sk_kube_taint_effect(json_string_value(json_object_get(j, "effect")));
}

bool sk_kube_toleration_tolerates(const sk_kube_toleration *t, const char *key, const char *value, int effect)
{
	if (t->effect && t->effect != effect)
		return false;
	if (*t->key && strcmp(t->key, key ? key : "") != 0)
		return false;
	switch (t->op) {
	case SK_KUBE_TOL_EQUAL:
		return strcmp(t->value, value ? value : "") == 0;
	case SK_KUBE_TOL_EXISTS:
		return true;
	default:
		return false;
	}
}

bool sk_kube_tolerates_taint(json_t *toleration, json_t *taint)
{
	sk_kube_toleration t;
	int effect = sk_kube_taint_effect(json_string_value(json_object_get(taint, "effect")));

	sk_kube_toleration_parse(toleration, &t);
	return sk_kube_toleration_tolerates(&t, str_or_empty(taint, "key"), str_or_empty(taint, "value"), effect);
}

json_t *sk_kube_tolerations_find(json_t *tolerations, json_t *taint)
{
	size_t i;
	json_t *t;

	json_array_foreach(tolerations, i, t)
		if (sk_kube_tolerates_taint(t, taint))
			return t;
	return NULL;
}
