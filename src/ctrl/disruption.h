/* The disruption controller's arithmetic (pkg/controller/disruption's
 * getExpectedPodCount), kept free of API calls so unit tests can drive it. */
#ifndef SK_CTRL_DISRUPTION_H
#define SK_CTRL_DISRUPTION_H

#include <stdint.h>

#include <jansson.h>

#include "util/error.h"

/* Whether the budget spec counts expected pods from the scale of the pods'
 * controllers (maxUnavailable, or minAvailable as a percentage) rather than
 * from the number of selected pods (minAvailable as a number). */
int sk_disruption_needs_scale(json_t *spec);
/* expectedPods and desiredHealthy for spec: npods selected pods, scale the
 * sum of their controllers' scale (used only when needs_scale). Percentages
 * round up for both fields, as upstream's GetScaledValueFromIntOrPercent(…,
 * true); desiredHealthy never goes below 0. -1 with err for a malformed
 * value. */
int sk_disruption_expected(json_t *spec, int64_t npods, int64_t scale, int64_t *expected, int64_t *desired,
			   sk_error_t *err);

/* How long (seconds) until the pod's DisruptionTarget condition is stale:
 * -1 when it has none to clear (none, not True, the kubelet's, a terminal
 * or terminating pod), else 0 once two minutes have passed since it was
 * set without the pod being deleted
 * (nonTerminatingPodHasStaleDisruptionCondition). */
int64_t sk_disruption_stale_wait(json_t *pod, int64_t now);

#endif
