/* Gang scheduling with PodGroup (scheduling.x-k8s.io/v1alpha1, resource
 * podgroups), after kubernetes-sigs/scheduler-plugins coscheduling.
 *
 * Pods join a group with the label scheduling.x-k8s.io/pod-group=<name> in
 * the group's namespace. A pod whose PodGroup does not exist is scheduled as
 * a plain pod (as coscheduling does). Otherwise:
 * - PreFilter: fewer than spec.minMember member pods exist -> unschedulable;
 * - Reserve/Permit: a member that fits is assumed on its node ("reserved")
 *   and waits; once reserved + already scheduled members reach minMember,
 *   all waiting members are bound together;
 * - PostFilter: a member that does not fit (or fails PreFilter) rejects the
 *   group's waiting members ("optimistic rejection in PostFilter"; their
 *   reservations are dropped so they never starve other pods) unless at most
 *   10% of minMember is missing, and adds "PodGroup NS/NAME gets rejected due
 *   to Pod P is unschedulable even after PostFilter" to its message (gang
 *   members do not preempt); after
 *   spec.scheduleTimeoutSeconds (default 60) of waiting the same happens with
 *   upstream's "rejected due to timeout after waiting …" message.
 *
 * Status (written through podgroups/NAME/status): scheduled, running,
 * succeeded, failed counts and the phase, derived from the counts:
 *   Pending       fewer than minMember member pods exist
 *   PreScheduling enough pods exist, none reserved or scheduled yet
 *   Scheduling    some members reserved or scheduled, fewer than minMember
 *   Scheduled     scheduled >= minMember
 *   Running       running + succeeded >= minMember
 *   Failed        failed > 0 and failed + running + succeeded >= minMember
 *   Finished      succeeded >= minMember
 * Not thread-safe; member pods are borrowed. */
#ifndef SK_SCHED_GANG_H
#define SK_SCHED_GANG_H

#include "sched/cache.h"

#define SK_GANG_LABEL "scheduling.x-k8s.io/pod-group"
#define SK_GANG_DEFAULT_TIMEOUT_S 60

typedef struct sk_gang {
	char *key; /* "namespace/name" */
	char *ns, *name;
	json_t *obj; /* the PodGroup, NULL until seen */
	int min_member;
	int64_t timeout_s;
	sk_smap members;   /* pod key -> sk_spod */
	sk_spod **waiting; /* reserved members */
	int nwaiting, cap_waiting;
	int64_t wait_since; /* monotonic ns of the first reservation */
	char *last_status;  /* last status written (JSON text), to skip no-op writes */
} sk_gang;

typedef struct sk_gangs {
	sk_smap map; /* "ns/name" -> sk_gang */
} sk_gangs;

struct sk_gang_counts {
	int total, scheduled, running, succeeded, failed;
};

void sk_gangs_init(sk_gangs *g);
void sk_gangs_release(sk_gangs *g);
/* PodGroup add/update (a reference is taken) and delete. */
void sk_gangs_podgroup_upsert(sk_gangs *g, json_t *pg);
void sk_gangs_podgroup_delete(sk_gangs *g, const char *ns, const char *name);
/* Tracks p (a new version replaces the old one with the same key) or forgets
 * the pod with key in the group of p / group. */
void sk_gangs_pod_set(sk_gangs *g, sk_spod *p);
void sk_gangs_pod_remove(sk_gangs *g, const sk_spod *p);
/* The gang p belongs to, only if its PodGroup exists; NULL otherwise. */
sk_gang *sk_gangs_for_pod(const sk_gangs *g, const sk_spod *p);

void sk_gang_counts(const sk_gang *g, struct sk_gang_counts *c);
/* Members bound or assumed on a node and not merely reserved (the
 * "scheduled" of sk_gang_counts without reading each pod's status). */
int sk_gang_scheduled(const sk_gang *g);
/* PreFilter: 0, or -1 with *msg (malloc'd) set. */
int sk_gang_prefilter(const sk_gang *g, const sk_spod *p, char **msg);
/* Reserves assumed member p; returns 1 when the quorum is reached (take the
 * waiting members with sk_gang_take_waiting), 0 to wait. */
int sk_gang_reserve(sk_gang *g, sk_spod *p, int64_t now);
/* Hands the waiting members over (array malloc'd, caller frees) and clears
 * their reserved flag. */
sk_spod **sk_gang_take_waiting(sk_gang *g, int *n);
int sk_gang_timed_out(const sk_gang *g, int64_t now);
/* Upstream's timeout message ("rejected due to timeout after waiting 1m0s at
 * plugin Coscheduling"); caller frees. */
char *sk_gang_timeout_message(const sk_gang *g);
/* PodGroup status object (new reference). */
json_t *sk_gang_status(const sk_gang *g);
const char *sk_gang_phase(const sk_gang *g, const struct sk_gang_counts *c);

#endif
