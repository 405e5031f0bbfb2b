/* Status conditions, as upstream's meta.SetStatusCondition and
 * podutil.UpdatePodCondition: one condition per type, lastTransitionTime
 * moves only when the status does. */
#ifndef SK_KUBE_CONDITION_H
#define SK_KUBE_CONDITION_H

#include <jansson.h>

/* The condition of type in the array conds, or NULL. Borrowed. */
json_t *sk_kube_condition_find(json_t *conds, const char *type);
/* The condition of type in status.conditions (status is the status
 * object), or NULL. Borrowed. */
json_t *sk_kube_condition_get(json_t *status, const char *type);
/* The lastTransitionTime a condition type=status should carry when it
 * replaces the array old: the old one's when its status was the same, else
 * now. Borrowed from old or now. */
const char *sk_kube_condition_since(json_t *old, const char *type, const char *status, const char *now);

enum {
	SK_KUBE_COND_PROBE_TIME = 1,  /* lastProbeTime = now on a change (Job) */
	SK_KUBE_COND_UPDATE_TIME = 2, /* lastUpdateTime = now on a change (Deployment) */
	SK_KUBE_COND_NULL_PROBE = 4,  /* lastProbeTime: null, as a Pod's conditions carry it */
};

/* Sets the condition type of status.conditions (both created as needed) to
 * status st, reason and message (NULL or "" leaves them out, as Go's
 * omitempty), at time now (RFC 3339): a new condition or a changed status
 * gets lastTransitionTime now, else it keeps its own. flags: SK_KUBE_COND_*.
 * Returns 1 when the status, reason or message changed (or the condition is
 * new), else 0. */
int sk_kube_condition_set(json_t *status, const char *type, const char *st, const char *reason, const char *msg,
			  const char *now, int flags);
/* Removes the condition type from status.conditions, if any. */
void sk_kube_condition_remove(json_t *status, const char *type);

#endif
