/* Taints and tolerations, as upstream's Toleration.ToleratesTaint
 * (k8s.io/api/core/v1/toleration.go) and TolerationsTolerateTaint
 * (component-helpers/scheduling/corev1). */
#ifndef SK_KUBE_TAINT_H
#define SK_KUBE_TAINT_H

#include <jansson.h>
#include <stdbool.h>

enum { SK_KUBE_EFFECT_NOSCHEDULE = 1, SK_KUBE_EFFECT_PREFER = 2, SK_KUBE_EFFECT_NOEXECUTE = 4 };

/* SK_KUBE_EFFECT_* of an effect's name; 0 for NULL or "" (on a toleration:
 * every effect), -1 for any other name. */
int sk_kube_taint_effect(const char *name);

enum { SK_KUBE_TOL_EQUAL, SK_KUBE_TOL_EXISTS, SK_KUBE_TOL_UNKNOWN };

/* A toleration read once, for callers that match it against many taints. */
typedef struct sk_kube_toleration {
	const char *key, *value; /* borrowed from the JSON; "" when unset */
	int op;                  /* SK_KUBE_TOL_*: an empty operator is Equal */
	int effect;              /* sk_kube_taint_effect() of its effect */
} sk_kube_toleration;

/* Fills t from the Toleration object j (its strings stay j's). */
void sk_kube_toleration_parse(json_t *j, sk_kube_toleration *t);
/* Whether t tolerates the taint key=value:effect (value NULL is ""): the
 * effects agree or t names none, the keys agree or t names none, and then
 * Exists, or Equal with equal values. An unknown operator tolerates nothing. */
bool sk_kube_toleration_tolerates(const sk_kube_toleration *t, const char *key, const char *value, int effect);
/* The same for a Toleration and a Taint object. */
bool sk_kube_tolerates_taint(json_t *toleration, json_t *taint);
/* The first of the tolerations array that tolerates taint (borrowed), or NULL. */
json_t *sk_kube_tolerations_find(json_t *tolerations, json_t *taint);

#endif
