/* PodDisruptionBudget rules shared by the disruption controller and the
 * eviction subresource (after pkg/apis/policy and
 * pkg/util/pod disruption helpers). Pure: no I/O. */
#ifndef SK_KUBE_DISRUPTION_H
#define SK_KUBE_DISRUPTION_H

#include <stdint.h>

#include <jansson.h>

/* How long a pod recorded in status.disruptedPods is expected to take to
 * be deleted (upstream's DeletionTimeout) before it counts again. */
#define SK_KUBE_PDB_DELETION_TIMEOUT_SECS 120
/* The most entries of disruptedPods the eviction subresource adds to. */
#define SK_KUBE_PDB_MAX_DISRUPTED_PODS 2000

/* disruptionsAllowed: current - desired, 0 when negative or when no pod is
 * expected (a budget matching no pods yet stays safe). */
int64_t sk_kube_pdb_allowed(int64_t current, int64_t desired, int64_t expected);

/* UpdateDisruptionAllowedCondition: DisruptionAllowed True (SufficientPods)
 * when status.disruptionsAllowed > 0, else False (InsufficientPods), with
 * status.observedGeneration; now is RFC 3339. */
void sk_kube_pdb_set_allowed_condition(json_t *status, const char *now);
/* The same condition False with reason SyncFailed and msg (failSafe). */
void sk_kube_pdb_set_sync_failed(json_t *status, const char *msg, const char *now);
/* ConditionsAreUpToDate: the condition is there for the observed
 * generation and agrees with disruptionsAllowed. */
int sk_kube_pdb_conditions_up_to_date(json_t *status);

#endif
