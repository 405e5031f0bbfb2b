/* Internals shared by the controllers in src/ctrl/: the informer (a cached
 * list + watch of one resource), the work queue, the worker framework and
 * small helpers over Kubernetes objects.
 *
 * Objects handed out by an informer (client/informer.h) are shared and
 * read-only: a caller that wants to change one makes a json_deep_copy first. */
#ifndef SK_CTRL_CTRL_INT_H
#define SK_CTRL_CTRL_INT_H

#include <pthread.h>
#include <stdint.h>

#include <jansson.h>

#include "client/client.h"
#include "client/event.h"
#include "client/informer.h"
#include "ctrl/ctrl.h"
#include "kube/condition.h"
#include "kube/object.h"
#include "kube/selector.h"
#include "util/error.h"

/* ---- work queue (queue.c) ---- */

typedef struct sk_queue sk_queue;

/* name (borrowed, static): the workqueue metrics' name label; NULL: none. */
sk_queue *sk__queue_new(const char *name);
void sk__queue_free(sk_queue *q);
/* Adds key unless already waiting; a key being processed is re-added when done. */
void sk__queue_add(sk_queue *q, const char *key);
void sk__queue_add_after(sk_queue *q, const char *key, int64_t delay_ms);
/* Requeues with per-key exponential backoff (5 ms doubling, 60 s cap). */
void sk__queue_add_rate_limited(sk_queue *q, const char *key);
/* Resets the key's backoff. */
void sk__queue_forget(sk_queue *q, const char *key);
/* Blocks for the next key (malloc'd, caller frees after sk__queue_done) or NULL after shutdown. */
char *sk__queue_get(sk_queue *q);
void sk__queue_done(sk_queue *q, const char *key);
void sk__queue_shutdown(sk_queue *q);
/* Delay before the next rate-limited retry of a key with n failures (ms). */
int64_t sk__queue_backoff_ms(int n);

/* ---- controller framework (ctrl.c) ---- */

typedef struct sk_controller sk_controller;
/* Reconciles one key; returns 0, or -1 to retry with backoff. */
typedef int (*sk_sync_fn)(sk_controller *k, const char *key);

struct sk_controller {
	const char *name;
	struct sk_ctrl *ctl;
	sk_queue *q;
	sk_sync_fn sync;
	void *state; /* controller-specific, freed with release (or free) */
	void (*release)(void *state);
	void (*stop)(sk_controller *k); /* NULL, or after its workers end, before the informers stop */
	sk_informer *primary;           /* resynced every resync_secs (0: never) */
	int resync_secs;
	int (*resync_if)(json_t *obj); /* NULL, or 0 for a primary object the resync skips */
	int workers;                   /* worker threads (0: sk_ctrl_options.workers) */
	int nthreads;
	pthread_t threads[8];
	pthread_t resync_thread;
	int has_resync;
	volatile int stopping;
};

struct sk_ctrl {
	sk_client *c;
	sk_ctrl_options o;
	sk_informer *pods, *rs, *deploy, *jobs, *cronjobs, *nodes, *leases, *namespaces;
	sk_informer *services, *endpoints, *slices;
	sk_informer *ds, *crevs; /* DaemonSets, ControllerRevisions */
	sk_informer *csrs;       /* CertificateSigningRequests */
	sk_informer *extra[16];  /* further resources only the garbage collector watches */
	int nextra;
	sk_controller *ctrls[32];
	int nctrls;
	pthread_mutex_t stop_mu;
	pthread_cond_t stop_cv;
	int stopping;
};

/* Registers a controller with its queue; workers start with the others. */
sk_controller *sk__controller_add(struct sk_ctrl *ctl, const char *name, sk_sync_fn sync, void *state);
/* Handler that enqueues the object's own key. ud is the sk_controller. */
void sk__enqueue_self(void *ud, int ev, json_t *old, json_t *obj);
/* The informer of ctl->extra for path, made (and started with the others)
 * on first use. */
sk_informer *sk__ctrl_extra(struct sk_ctrl *ctl, const char *path, const char *gv, const char *kind);
/* Sleeps up to ms unless the controllers are stopping; returns 1 when stopping. */
int sk__ctrl_sleep(struct sk_ctrl *ctl, int64_t ms);

/* Controllers (one file each). Each registers its handlers and controller. */
int sk__replicaset_init(struct sk_ctrl *ctl, sk_error_t *err);
int sk__deployment_init(struct sk_ctrl *ctl, sk_error_t *err);
int sk__daemonset_init(struct sk_ctrl *ctl, sk_error_t *err);
int sk__job_init(struct sk_ctrl *ctl, sk_error_t *err);
int sk__cronjob_init(struct sk_ctrl *ctl, sk_error_t *err);
int sk__ttl_init(struct sk_ctrl *ctl, sk_error_t *err);
int sk__gc_init(struct sk_ctrl *ctl, sk_error_t *err);
/* The collector's discovery resync period (upstream's 30 s), and, for
 * tests, whether it ignores the CustomResourceDefinitions (their events
 * and their lead on discovery: a custom resource then appears through the
 * resync only, as an aggregated API's does). Set before sk_ctrl_start. */
extern int sk__gc_resync_ms;
extern int sk__gc_ignore_crd_events;
int sk__namespace_init(struct sk_ctrl *ctl, sk_error_t *err);
int sk__nodelifecycle_init(struct sk_ctrl *ctl, sk_error_t *err);
int sk__podgc_init(struct sk_ctrl *ctl, sk_error_t *err);
int sk__endpointslice_init(struct sk_ctrl *ctl, sk_error_t *err);
int sk__endpoints_init(struct sk_ctrl *ctl, sk_error_t *err);
int sk__endpointslicemirroring_init(struct sk_ctrl *ctl, sk_error_t *err);
int sk__clusterroleaggregation_init(struct sk_ctrl *ctl, sk_error_t *err);
int sk__resourcequota_init(struct sk_ctrl *ctl, sk_error_t *err);
int sk__serviceaccount_init(struct sk_ctrl *ctl, sk_error_t *err);
int sk__rootcacert_init(struct sk_ctrl *ctl, sk_error_t *err);
int sk__csrsigning_init(struct sk_ctrl *ctl, sk_error_t *err);
int sk__csrapproving_init(struct sk_ctrl *ctl, sk_error_t *err);
int sk__csrcleaner_init(struct sk_ctrl *ctl, sk_error_t *err);
int sk__disruption_init(struct sk_ctrl *ctl, sk_error_t *err);
int sk__statefulset_init(struct sk_ctrl *ctl, sk_error_t *err);

/* ---- ControllerRevisions of DaemonSets and StatefulSets (history.c) ---- */

typedef struct sk_history_owner {
	const char *kind;   /* "DaemonSet" */
	const char *plural; /* "daemonsets" */
	sk_informer *inf;   /* the owners' informer (status.collisionCount writes) */
} sk_history_owner;

/* Makes sure owner's spec.template has a ControllerRevision with the highest
 * revision number (creating one, or renumbering an older one on rollback);
 * sets hash (>= 16 bytes) to its controller-revision-hash. 0 or -1 with err. */
int sk__history_current(struct sk_ctrl *ctl, const sk_history_owner *ho, json_t *owner, char *hash, size_t hlen,
			sk_error_t *err);
/* Deletes owner's oldest revisions beyond spec.revisionHistoryLimit, never
 * one whose name or hash is a key of live. */
void sk__history_truncate(struct sk_ctrl *ctl, json_t *owner, json_t *live);
/* The pod template a revision holds (new reference) or NULL. */
json_t *sk__history_template(json_t *cr);
int sk__pvbinder_init(struct sk_ctrl *ctl, sk_error_t *err);
int sk__expand_init(struct sk_ctrl *ctl, sk_error_t *err);
int sk__hpa_init(struct sk_ctrl *ctl, sk_error_t *err);

/* ---- endpoint controllers (endpointslice.c) ---- */

struct sk_eps_plan;
/* Writes a reconciler's plan for the slices of ns (creates become updates of
 * slices it would delete, as upstream's finalize does; no creates when
 * owner is being deleted) through the slice informer. Returns 0, or -1
 * after the first failed write (err set). */
int sk__eps_apply_plan(struct sk_ctrl *ctl, const char *ns, json_t *owner, struct sk_eps_plan *plan, sk_error_t *err);
/* The slices of ns labelled for service name and managed by managed_by, not
 * being deleted (new array, read-only objects). */
json_t *sk__eps_slices_of(struct sk_ctrl *ctl, const char *ns, const char *name, const char *managed_by);
/* Enqueues on k the key of every Service in the pod's namespace whose
 * selector matches the pod's labels before or after the change. */
void sk__eps_enqueue_pod_services(sk_controller *k, json_t *old, json_t *pod);
/* Enqueues on k the Service key of a slice labelled for it and managed by managed_by. */
void sk__eps_enqueue_slice_service(sk_controller *k, json_t *slice, const char *managed_by);
int sk__nodeipam_init(struct sk_ctrl *ctl, sk_error_t *err);

/* ---- object helpers (objutil.c) ---- */

/* The integer at a dotted path (sk_kube_jget), or def. */
json_int_t sk__jint(json_t *o, const char *path, json_int_t def);
const char *sk__name(json_t *o);
const char *sk__ns(json_t *o);
const char *sk__uid(json_t *o);
/* "ns/name" or "name" (malloc'd). */
char *sk__key(json_t *o);
/* Splits "ns/name" into ns (or "") and name, into caller buffers. */
void sk__split_key(const char *key, char *ns, size_t nslen, char *name, size_t namelen);
/* Path of an object: prefix "/apis/apps/v1", plural, ns (NULL: cluster),
 * name, sub (NULL or "status"). malloc'd. */
char *sk__path(const char *prefix, const char *plural, const char *ns, const char *name, const char *sub);
int64_t sk__now(void);
/* Parses an RFC 3339 field at path; def when missing or bad. */
int64_t sk__jtime(json_t *o, const char *path, int64_t def);
json_t *sk__time_json(int64_t secs);
/* A new ownerReference to owner (controller, blockOwnerDeletion true). */
json_t *sk__owner_ref(json_t *owner, const char *api_version, const char *kind);
int sk__is_deleting(json_t *obj);

/* Pods. */
int sk__pod_terminal(json_t *pod); /* phase Succeeded or Failed */
int sk__pod_active(json_t *pod);   /* not terminal, not deleting */
int sk__pod_ready(json_t *pod);
/* When the Ready condition last turned True, or -1. */
int64_t sk__pod_ready_since(json_t *pod);
int sk__pod_available(json_t *pod, int64_t min_ready_secs, int64_t now);

/* sk_kube_condition_set at the controllers' clock (sk__now). with_probe
 * adds lastProbeTime (Job), with_update lastUpdateTime (Deployment).
 * Returns 1 when anything changed. */
int sk__cond_set(json_t *status, const char *type, const char *st, const char *reason, const char *msg, int with_probe,
		 int with_update);

/* A pod for template, owned by owner_ref (stolen), named by generate_name.
 * New reference. */
json_t *sk__pod_from_template(json_t *tmpl, json_t *owner_ref, const char *ns, const char *generate_name);

/* Reads the pods of owner in ns: pods controlled by owner, plus orphans that
 * match sel which are adopted (unless owner is being deleted); owned pods
 * that no longer match are released. Returns a new array (read-only pods). */
json_t *sk__claim_pods(struct sk_ctrl *ctl, json_t *owner, const char *api_version, const char *kind,
		       const sk_kube_label_selector *sel);
/* The same for any objects in inf (ReplicaSets of a Deployment). */
json_t *sk__claim(struct sk_ctrl *ctl, sk_informer *inf, const char *prefix, const char *plural, json_t *owner,
		  const char *api_version, const char *kind, const sk_kube_label_selector *sel);

/* Slow-start batches as upstream's slowStartBatch (1, 2, 4 … up to count):
 * a batch's items run concurrently on up to SK_SLOW_START_THREADS threads
 * (SKIFF_SLOW_START_THREADS overrides; 1: one at a time), so fn must be
 * thread-safe for distinct i; fn returns 0, or -1 with err set. Stops after
 * a batch with failures and returns the successes; err (may be NULL) gets
 * the error of that batch's lowest failing item. */
#define SK_SLOW_START_THREADS 16
int sk__slow_start(int count, int (*fn)(void *ud, int i, sk_error_t *err), void *ud, sk_error_t *err);

/* RESTMapping through discovery: the collection of kind in api_version in
 * ns ("/apis/G/V/namespaces/NS/PLURAL", malloc'd); *has_scale (may be NULL):
 * whether PLURAL/scale is served. NULL with err: SK_EINVALID with
 * NoKindMatchError's text (versioned: `in version "G/V"`, else `in group
 * "G"`), or discovery's own error. */
char *sk__rest_mapping(struct sk_ctrl *ctl, const char *api_version, const char *kind, const char *ns, int versioned,
		       int *has_scale, sk_error_t *err);

/* Deletes a pod (default grace) and writes the outcome through the cache. */
int sk__delete_pod(struct sk_ctrl *ctl, json_t *pod, sk_error_t *err);
/* Upstream's ActivePodsWithRanks order: 1 when a should be deleted before b
 * (rank: pods of the same owner on the pod's node). */
int sk__pod_delete_less(json_t *a, json_t *b, int rank_a, int rank_b);
/* Enqueues the key of obj's controller when it is of kind. */
void sk__enqueue_controller(sk_controller *k, json_t *obj, const char *kind);

/* Updates status through the status subresource; writes through inf. */
int sk__update_status(struct sk_ctrl *ctl, sk_informer *inf, const char *prefix, const char *plural, json_t *obj,
		      sk_error_t *err);

#endif
