/* Private state of the scheduler loop (sched.c), its feeds (feed.c) and API
 * workers (worker.c). */
#ifndef SK_SCHED_SCHED_INT_H
#define SK_SCHED_SCHED_INT_H

#include <pthread.h>

#include "client/reflector.h"
#include "sched/core.h"
#include "sched/gang.h"
#include "sched/preempt.h"
#include "sched/queue.h"
#include "sched/sched.h"

enum {
	SK_RES_NODES,
	SK_RES_PODS_W,
	SK_RES_PODGROUPS,
	SK_RES_PRIOCLASSES,
	SK_RES_RUNTIMECLASSES,
	SK_RES_PVCS,
	SK_RES_PVS,
	SK_RES_STORAGECLASSES,
	SK_NFEEDS
};

struct sk_sched;

/* One watched collection: its reflector applies lists and events under
 * sched->mu. */
struct sk_feed {
	struct sk_sched *s;
	int kind;
	sk_reflector *r;
	int synced; /* under sched->mu: listed once (or not served) */
};

enum { JOB_BIND, JOB_FAIL, JOB_PREEMPT, JOB_PODGROUP_STATUS, JOB_EVENT, JOB_EVENTS_REFRESH };

struct sk_job {
	struct sk_job *next;
	int kind;
	char *ns, *name, *uid, *node;
	char *msg;
	json_t *body;                          /* JOB_PREEMPT: victims array; JOB_PODGROUP_STATUS: status */
	const char *profile;                   /* scheduler name (static for the scheduler's life) */
	const char *etype, *ereason, *eaction; /* JOB_EVENT (static strings) */
};

struct sk_sched {
	sk_client *client;
	sk_sched_profile *profiles;
	int nprofiles;
	sk_sched_options opts;
	char *instance;

	int metrics_collector; /* metrics.c's collector id */
	pthread_mutex_t mu;    /* everything below up to the worker section */
	pthread_cond_t wake;
	int stop;
	sk_cache cache;
	sk_queue queue;
	sk_gangs gangs;
	sk_algo algo;
	sk_smap pods;            /* key -> sk_spod, every pod seen */
	sk_smap prio_classes;    /* name -> json PriorityClass (owned ref) */
	sk_smap runtime_classes; /* name -> json RuntimeClass (owned ref) */
	sk_smap pvcs;            /* "ns/name" -> json PersistentVolumeClaim (owned ref) */
	sk_smap pvs;             /* name -> json PersistentVolume (owned ref) */
	sk_smap storage_classes; /* name -> json StorageClass (owned ref) */
	sk_smap dirty_gangs;     /* gang key -> (void *)1 */
	sk_sched_stats stats;
	struct sk_feed feeds[SK_NFEEDS];
	pthread_t loop;

	pthread_mutex_t jmu; /* worker queue */
	pthread_cond_t jcv, jidle;
	struct sk_job *jhead, *jtail; /* binds, status writes, preemption */
	struct sk_job *lhead, *ltail; /* events and PodGroup status: after the above */
	int jcount, jbusy;
	pthread_t *workers;
	int nworkers;
	int jstop;

	pthread_mutex_t emu; /* event aggregation */
	sk_smap events;      /* "podkey\x1freason" -> struct sk_evagg */
};

/* One Event object per pod and reason. Repeats with the same message are
 * counted here (upstream's event series): the second occurrence is written
 * at once, later ones by the periodic refresh (JOB_EVENTS_REFRESH). */
struct sk_evagg {
	char *name;
	char *msg;     /* message of the last occurrence */
	int count;     /* occurrences */
	int written;   /* count the API object has */
	int created;   /* the create returned: patches may follow */
	char last[32]; /* lastTimestamp of the last occurrence */
};

/* feed.c */
void sk__sched_feeds_start(struct sk_sched *s);
/* Stops and frees the reflectors: nothing is applied after it returns. */
void sk__sched_feeds_stop(struct sk_sched *s);
/* sched.c: applies one watch event / list item under s->mu */
void sk__sched_apply(struct sk_sched *s, int kind, const char *type, json_t *obj);
/* sched.c: after a relist, deletes objects of kind whose keys are not in seen */
void sk__sched_prune(struct sk_sched *s, int kind, const sk_smap *seen);

/* volumes.c: VolumeBinding's PreFilter for p under s->mu: 0 with
 * p->volumes set (its bound volumes with a node affinity, for the Filter),
 * or -1 with *msg (malloc'd): upstream's PreFilter message. */
int sk__sched_volumes_prefilter(struct sk_sched *s, sk_spod *p, char **msg);
/* volumes.c: NULL, or a new array of what PreBind does for p's unbound
 * WaitForFirstConsumer claims without a selected node on the node p is
 * assumed on (under s->mu): {claim, uid, volume, resourceVersion} binds an
 * Available volume there to the claim, {claim} selects the node for
 * provisioning. */
json_t *sk__sched_volumes_to_select(struct sk_sched *s, sk_spod *p);
/* worker.c: PreBind's API writes for the entries of sk__sched_volumes_to_select. */
int sk__sched_select_node(struct sk_sched *s, const char *ns, json_t *todo, const char *node, sk_error_t *err);

/* worker.c */
void sk__sched_workers_start(struct sk_sched *s);
void sk__sched_workers_stop(struct sk_sched *s);
/* Queues a job (ownership passes to the pool). */
void sk__sched_submit(struct sk_sched *s, struct sk_job *j);
struct sk_job *sk__sched_job(int kind, const sk_spod *p, const char *node, const char *msg);
/* A JOB_EVENT about the pod of j. */
struct sk_job *sk__sched_event_job(const struct sk_job *j, const char *type, const char *reason, const char *action,
				   const char *msg);
void sk__sched_job_free(struct sk_job *j);
/* Writes the counts of aggregated events that changed since their last
 * write (a worker runs it for JOB_EVENTS_REFRESH). */
void sk__sched_events_refresh(struct sk_sched *s);
/* Forgets aggregated events of a deleted pod. */
void sk__sched_events_forget(struct sk_sched *s, const char *pod_key);
/* sched.c: the binder reports a failed bind (takes s->mu). */
/* metrics.c: one attempt's result ("scheduled", "unschedulable", "error")
 * and latency, a preemption attempt, a gang's outcome ("permitted",
 * "rejected", "timeout"); the pending pods' collector (an id to stop). */
void sk__sched_metrics_attempt(const char *result, const char *profile, int64_t t0_ns);
void sk__sched_metrics_preemption(void);
void sk__sched_metrics_gang(const char *result);
int sk__sched_metrics_start(struct sk_sched *s);
void sk__sched_metrics_stop(int id);
void sk__sched_bind_failed(struct sk_sched *s, const char *ns, const char *name, const char *node, const char *msg);

#endif
