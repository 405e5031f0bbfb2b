/* API workers: binding, pod status, preemption victims, PodGroup status and
 * events, off the decision loop. */
#include "sched/sched-int.h"

#include <string.h>

#include "kube/condition.h"
#include "kube/object.h"
#include "util/util.h"

struct sk_job *sk__sched_job(int kind, const sk_spod *p, const char *node, const char *msg)
{
	struct sk_job *j = xzalloc(sizeof(*j));

	j->kind = kind;
	if (p) {
		j->ns = xstrdup(p->ns);
		j->name = xstrdup(p->name);
		j->uid = xstrdup(p->uid);
	}
	j->node = node ? xstrdup(node) : NULL;
	j->msg = msg ? xstrdup(msg) : NULL;
	return j;
}

struct sk_job *sk__sched_event_job(const struct sk_job *j, const char *type, const char *reason, const char *action,
				   const char *msg)
{
	struct sk_job *e = xzalloc(sizeof(*e));

	e->kind = JOB_EVENT;
	e->ns = xstrdup(j->ns);
	e->name = xstrdup(j->name);
	e->uid = j->uid ? xstrdup(j->uid) : NULL;
	e->msg = xstrdup(msg);
	e->profile = j->profile;
	e->etype = type;
	e->ereason = reason;
	e->eaction = action;
	return e;
}

void sk__sched_job_free(struct sk_job *j)
{
	free(j->ns);
	free(j->name);
	free(j->uid);
	free(j->node);
	free(j->msg);
	json_decref(j->body);
	free(j);
}

void sk__sched_submit(struct sk_sched *s, struct sk_job *j)
{
	int low = j->kind == JOB_EVENT || j->kind == JOB_EVENTS_REFRESH || j->kind == JOB_PODGROUP_STATUS;
	struct sk_job **head = low ? &s->lhead : &s->jhead, **tail = low ? &s->ltail : &s->jtail;

	pthread_mutex_lock(&s->jmu);
	if (*tail)
		(*tail)->next = j;
	else
		*head = j;
	*tail = j;
	s->jcount++;
	pthread_cond_signal(&s->jcv);
	pthread_mutex_unlock(&s->jmu);
}

static void now_rfc3339(char *buf, size_t len) { sk_time_format(sk_now_ns() / 1000000000LL, buf, len); }

/* ---- events ---- */

static void event_key(char *buf, size_t len, const struct sk_job *j, const char *reason)
{
	snprintf(buf, len, "%s/%s\x1f%s", j->ns, j->name, reason);
}

static void evagg_free(struct sk_evagg *a)
{
	free(a->name);
	free(a->msg);
	free(a);
}

/* Drops the aggregation of key when it is still agg (under s->emu). */
static void evagg_drop(struct sk_sched *s, const char *key, struct sk_evagg *agg)
{
	if (sk__smap_get(&s->events, key) == agg)
		evagg_free(sk__smap_del(&s->events, key));
}

static json_t *event_patch(struct sk_sched *s, const char *ns, const char *name, int count, const char *last,
			   const char *msg, sk_error_t *err)
{
	char path[512];
	json_t *body = json_pack("{s:i, s:s, s:s}", "count", count, "lastTimestamp", last, "message", msg), *r;

	snprintf(path, sizeof(path), "/api/v1/namespaces/%s/events/%s", ns, name);
	r = sk_client_patch(s->client, path, SK_PATCH_MERGE, body, err);
	json_decref(body);
	__atomic_add_fetch(&s->stats.event_writes, 1, __ATOMIC_RELAXED);
	return r;
}

/* Records a core/v1 Event about the job's pod. A repeat of the same reason
 * for the same pod bumps count and lastTimestamp of the same object
 * (upstream's aggregation); with the same message only the second
 * occurrence is written at once, later ones when sk__sched_events_refresh
 * runs (upstream's EventSeries, refreshed periodically), so a pod that keeps
 * failing for the same reason costs no write per attempt. */
static void record_event(struct sk_sched *s, const struct sk_job *j, const char *type, const char *reason,
			 const char *action, const char *msg)
{
	char key[600], now[32], path[512];
	cleanup_free char *name = NULL;
	struct sk_evagg *agg;
	sk_error_t err = {0};
	json_t *body, *r = NULL;

	__atomic_add_fetch(&s->stats.events, 1, __ATOMIC_RELAXED);
	now_rfc3339(now, sizeof(now));
	event_key(key, sizeof(key), j, reason);
	pthread_mutex_lock(&s->emu);
	agg = sk__smap_get(&s->events, key);
	if (agg) {
		int same = strcmp(agg->msg, msg) == 0, count = ++agg->count;

		snprintf(agg->last, sizeof(agg->last), "%s", now);
		if (!same) {
			free(agg->msg);
			agg->msg = xstrdup(msg);
		}
		if ((same && count > 2) || !agg->created) {
			pthread_mutex_unlock(&s->emu);
			return;
		}
		agg->written = count;
		name = xstrdup(agg->name);
		pthread_mutex_unlock(&s->emu);
		r = event_patch(s, j->ns, name, count, now, msg, &err);
		if (r || err.code != SK_ENOTFOUND)
			goto out;
		free(steal_ptr(&name));
		/* The event expired: start a new one. */
		sk_error_clear(&err);
		pthread_mutex_lock(&s->emu);
		evagg_drop(s, key, agg);
	}
	agg = xzalloc(sizeof(*agg));
	agg->name = xasprintf("%s.%llx", j->name, (unsigned long long)sk_now_ns());
	agg->msg = xstrdup(msg);
	agg->count = 1;
	agg->written = 1;
	snprintf(agg->last, sizeof(agg->last), "%s", now);
	sk__smap_put(&s->events, key, agg);
	body = json_pack("{s:s, s:s, s:{s:s, s:s}, s:{s:s, s:s, s:s, s:s, s:s}, s:s, s:s, s:s, s:{s:s}, s:s, s:s,"
			 " s:s, s:s, s:i, s:s}",
			 "apiVersion", "v1", "kind", "Event", "metadata", "name", agg->name, "namespace", j->ns,
			 "involvedObject", "apiVersion", "v1", "kind", "Pod", "namespace", j->ns, "name", j->name,
			 "uid", j->uid ? j->uid : "", "reason", reason, "message", msg, "type", type, "source",
			 "component", j->profile ? j->profile : "default-scheduler", "reportingComponent",
			 j->profile ? j->profile : "default-scheduler", "reportingInstance", s->instance,
			 "firstTimestamp", now, "lastTimestamp", now, "count", 1, "action", action);
	name = xstrdup(agg->name);
	pthread_mutex_unlock(&s->emu);
	snprintf(path, sizeof(path), "/api/v1/namespaces/%s/events", j->ns);
	r = sk_client_create_take(s->client, path, body, &err);
	__atomic_add_fetch(&s->stats.event_writes, 1, __ATOMIC_RELAXED);
	/* the pod may have been deleted (sk__sched_events_forget) meanwhile */
	pthread_mutex_lock(&s->emu);
	agg = sk__smap_get(&s->events, key);
	if (agg && strcmp(agg->name, name) == 0) {
		if (r)
			agg->created = 1; /* repeats meanwhile are written by the refresh */
		else
			evagg_drop(s, key, agg);
	}
	pthread_mutex_unlock(&s->emu);
out:
	if (!r)
		sk_debug("scheduler", "event %s for pod \"%s/%s\": %s", reason, j->ns, j->name, err.msg);
	json_decref(r);
}

struct evwrite {
	char *key, *ns, *name, *msg;
	char last[32];
	int count;
};

static void collect_dirty(const char *key, void *val, void *ud)
{
	struct sk_evagg *a = val;
	struct evwrite **w = ud;
	const char *sep = strchr(key, '/');

	if (!a->created || a->written == a->count || !sep)
		return;
	a->written = a->count;
	**w = (struct evwrite){xstrdup(key), xstrndup(key, (size_t)(sep - key)), xstrdup(a->name), xstrdup(a->msg), "",
			       a->count};
	snprintf((*w)->last, sizeof((*w)->last), "%s", a->last);
	(*w)++;
}

void sk__sched_events_refresh(struct sk_sched *s)
{
	struct evwrite *w, *end;

	pthread_mutex_lock(&s->emu);
	w = xzalloc((s->events.n + 1) * sizeof(*w));
	end = w;
	sk__smap_each(&s->events, collect_dirty, &end);
	pthread_mutex_unlock(&s->emu);
	for (struct evwrite *e = w; e < end; e++) {
		sk_error_t err = {0};
		json_t *r = event_patch(s, e->ns, e->name, e->count, e->last, e->msg, &err);

		if (!r && err.code == SK_ENOTFOUND) {
			struct sk_evagg *a;

			pthread_mutex_lock(&s->emu);
			if ((a = sk__smap_get(&s->events, e->key)) && strcmp(a->name, e->name) == 0)
				evagg_drop(s, e->key, a);
			pthread_mutex_unlock(&s->emu);
		}
		json_decref(r);
		free(e->key);
		free(e->ns);
		free(e->name);
		free(e->msg);
	}
	free(w);
}

void sk__sched_events_forget(struct sk_sched *s, const char *pod_key)
{
	static const char *reasons[] = {"Scheduled", "FailedScheduling", "Preempted"};
	char key[600];

	pthread_mutex_lock(&s->emu);
	for (size_t i = 0; i < sizeof(reasons) / sizeof(reasons[0]); i++) {
		struct sk_evagg *agg;

		snprintf(key, sizeof(key), "%s\x1f%s", pod_key, reasons[i]);
		if ((agg = sk__smap_del(&s->events, key)))
			evagg_free(agg);
	}
	pthread_mutex_unlock(&s->emu);
}

/* ---- jobs ---- */

/* bindAPIUpdate: a volume's claimRef (conditional on the version the
 * scheduler saw), or the claim's selected node. */
int sk__sched_select_node(struct sk_sched *s, const char *ns, json_t *todo, const char *node, sk_error_t *err)
{
	json_t *v;
	size_t i;

	json_array_foreach(todo, i, v) {
		const char *claim = json_string_value(json_object_get(v, "claim"));
		const char *volume = json_string_value(json_object_get(v, "volume"));
		cleanup_free char *path = NULL;
		cleanup_json json_t *patch = NULL, *r = NULL;

		if (volume) {
			path = xasprintf("/api/v1/persistentvolumes/%s", volume);
			patch = json_pack("{s:{s:O, s:{s:s}}, s:{s:{s:s, s:s, s:s, s:s, s:O}}}", "metadata",
					  "resourceVersion", json_object_get(v, "resourceVersion"), "annotations",
					  "pv.kubernetes.io/bound-by-controller", "yes", "spec", "claimRef", "kind",
					  "PersistentVolumeClaim", "apiVersion", "v1", "namespace", ns, "name", claim,
					  "uid", json_object_get(v, "uid"));
		} else {
			path = xasprintf("/api/v1/namespaces/%s/persistentvolumeclaims/%s", ns, claim);
			patch = json_pack("{s:{s:{s:s}}}", "metadata", "annotations",
					  "volume.kubernetes.io/selected-node", node);
		}
		r = patch ? sk_client_patch(s->client, path, SK_PATCH_MERGE, patch, err) : NULL;
		if (!r) {
			if (!patch)
				sk_error_set(err, SK_EINVALID, "persistentvolumeclaim \"%s\": bad binding", claim);
			return -1;
		}
	}
	return 0;
}

static void do_bind(struct sk_sched *s, struct sk_job *j)
{
	char path[512], msg[1024];
	sk_error_t err = {0};
	json_t *body = json_pack("{s:s, s:s, s:{s:s, s:s}, s:{s:s, s:s}}", "apiVersion", "v1", "kind", "Binding",
				 "metadata", "name", j->name, "namespace", j->ns, "target", "kind", "Node", "name",
				 j->node);
	json_t *r;

	snprintf(path, sizeof(path), "/api/v1/namespaces/%s/pods/%s/binding", j->ns, j->name);
	if (j->body && sk__sched_select_node(s, j->ns, j->body, j->node, &err) < 0) {
		json_decref(body);
		snprintf(msg, sizeof(msg), "running PreBind plugin \"VolumeBinding\": %s", err.msg);
		sk__sched_bind_failed(s, j->ns, j->name, j->node, msg);
		sk__sched_submit(s, sk__sched_event_job(j, "Warning", "FailedScheduling", "Scheduling", msg));
		return;
	}
	r = sk_client_create_take(s->client, path, body, &err);
	if (!r) {
		__atomic_add_fetch(&s->stats.bind_errors, 1, __ATOMIC_RELAXED);
		snprintf(msg, sizeof(msg), "Binding rejected: %s", err.msg);
		sk__sched_bind_failed(s, j->ns, j->name, j->node, msg);
		if (err.code != SK_ENOTFOUND)
			sk__sched_submit(s, sk__sched_event_job(j, "Warning", "FailedScheduling", "Scheduling", msg));
		return;
	}
	json_decref(r);
	__atomic_add_fetch(&s->stats.bound, 1, __ATOMIC_RELAXED);
	snprintf(msg, sizeof(msg), "Successfully assigned %s/%s to %s", j->ns, j->name, j->node);
	sk__sched_submit(s, sk__sched_event_job(j, "Normal", "Scheduled", "Binding", msg));
}

/* rv (NULL or "" for none) makes the patch conditional on that version. */
static int patch_pod_status(struct sk_sched *s, const char *ns, const char *name, json_t *status, const char *rv)
{
	char path[512];
	sk_error_t err = {0};
	json_t *body = json_pack("{s:O}", "status", status), *r;

	if (rv && *rv)
		json_object_set_new(body, "metadata", json_pack("{s:s}", "resourceVersion", rv));

	snprintf(path, sizeof(path), "/api/v1/namespaces/%s/pods/%s/status", ns, name);
	r = sk_client_patch(s->client, path, SK_PATCH_STRATEGIC, body, &err);
	json_decref(body);
	if (!r) {
		sk_debug("scheduler", "pod \"%s/%s\": status: %s", ns, name, err.msg);
		return err.code == SK_ECONFLICT ? 1 : -1;
	}
	json_decref(r);
	return 0;
}

/* The resourceVersion of the pod as stored now when it is still unbound,
 * into rv; 0, or -1 when it is bound or gone. */
static int unbound_now(struct sk_sched *s, const char *ns, const char *name, char *rv, size_t rvlen)
{
	char path[512];
	sk_error_t err = {0};
	json_t *pod;
	int rc;

	snprintf(path, sizeof(path), "/api/v1/namespaces/%s/pods/%s", ns, name);
	pod = sk_client_get(s->client, path, &err);
	if (!pod)
		return -1;
	rc = json_string_value(json_object_get(json_object_get(pod, "spec"), "nodeName")) ? -1 : 0;
	snprintf(rv, rvlen, "%s",
		 json_string_value(json_object_get(json_object_get(pod, "metadata"), "resourceVersion")) ?: "");
	json_decref(pod);
	return rc;
}

/* A pod condition as the scheduler writes it; since is its
 * lastTransitionTime (NULL: now). */
static json_t *condition(const char *type, const char *status, const char *reason, const char *msg, const char *since)
{
	char now[32];

	now_rfc3339(now, sizeof(now));
	return json_pack("{s:s, s:s, s:s, s:s, s:n, s:s}", "type", type, "status", status, "reason", reason, "message",
			 msg, "lastProbeTime", "lastTransitionTime", since ? since : now);
}

/* A pod placed since its failure was queued (a gang that reached quorum, a
 * retry that fit) would get a stale PodScheduled=False: skip the write, as
 * upstream's API dispatcher drops a status patch that a binding overtakes.
 * A gang member reserved again (waiting in Permit, no binding yet) still
 * gets it: retried from the backoff queue at once, it may wait there for
 * the rest of its group. Otherwise copies the resourceVersion the scheduler
 * knows into rv: the patch is made conditional on it, so a binding that
 * lands between this check and the patch (a worker may be binding the pod
 * right now after a retry from the backoff queue) makes it a conflict. */
static int placed_since(struct sk_sched *s, const struct sk_job *j, char *rv, size_t rvlen, char *since,
			size_t sincelen)
{
	char key[512], now[32];
	sk_spod *p;
	int placed;

	snprintf(key, sizeof(key), "%s/%s", j->ns, j->name);
	pthread_mutex_lock(&s->mu);
	p = sk__smap_get(&s->pods, key);
	placed = !p || (p->node_name && !p->reserved);
	snprintf(rv, rvlen, "%s",
		 p ? json_string_value(json_object_get(json_object_get(p->obj, "metadata"), "resourceVersion")) ?: ""
		   : "");
	/* as upstream's UpdatePodCondition: a pod already unschedulable keeps
	 * the time it became so */
	now_rfc3339(now, sizeof(now));
	snprintf(since, sincelen, "%s",
		 sk_kube_condition_since(p ? sk_kube_jget(p->obj, "status.conditions") : NULL, "PodScheduled", "False",
					 now));
	pthread_mutex_unlock(&s->mu);
	return placed;
}

static void do_fail(struct sk_sched *s, struct sk_job *j)
{
	char rv[32], since[40];
	json_t *status;

	if (placed_since(s, j, rv, sizeof(rv), since, sizeof(since))) {
		sk__sched_submit(s, sk__sched_event_job(j, "Warning", "FailedScheduling", "Scheduling", j->msg));
		return;
	}
	status = json_pack("{s:[o]}", "conditions", condition("PodScheduled", "False", "Unschedulable", j->msg, since));
	if (j->node)
		json_object_set_new(status, "nominatedNodeName", json_string(j->node));
	__atomic_add_fetch(&s->stats.status_writes, 1, __ATOMIC_RELAXED);
	/* a conflict: the pod changed after the scheduler's copy; write the
	 * verdict unless that change was its binding */
	if (patch_pod_status(s, j->ns, j->name, status, rv) == 1 && unbound_now(s, j->ns, j->name, rv, sizeof(rv)) == 0)
		patch_pod_status(s, j->ns, j->name, status, rv);
	json_decref(status);
	sk__sched_submit(s, sk__sched_event_job(j, "Warning", "FailedScheduling", "Scheduling", j->msg));
}

/* Victims get a DisruptionTarget condition, an event and a graceful DELETE
 * (their own terminationGracePeriodSeconds); then the preemptor is
 * nominated. */
static void do_preempt(struct sk_sched *s, struct sk_job *j)
{
	size_t i;
	json_t *v;

	json_array_foreach(j->body, i, v) {
		struct sk_job vj = {0};
		char path[512], msg[512];
		sk_error_t err = {0};
		json_t *st;

		vj.ns = (char *)json_string_value(json_object_get(v, "namespace"));
		vj.name = (char *)json_string_value(json_object_get(v, "name"));
		vj.uid = (char *)json_string_value(json_object_get(v, "uid"));
		vj.profile = j->profile;
		snprintf(msg, sizeof(msg), "%s: preempting to accommodate a higher priority pod",
			 j->profile ? j->profile : "default-scheduler");
		st = json_pack("{s:[o]}", "conditions",
			       condition("DisruptionTarget", "True", "PreemptionByScheduler", msg, NULL));
		patch_pod_status(s, vj.ns, vj.name, st, NULL);
		json_decref(st);
		snprintf(msg, sizeof(msg), "Preempted by pod %s on node %s", j->uid, j->node);
		record_event(s, &vj, "Normal", "Preempted", "Preempting", msg);
		snprintf(path, sizeof(path), "/api/v1/namespaces/%s/pods/%s", vj.ns, vj.name);
		if (sk_client_delete(s->client, path, NULL, &err) < 0 && err.code != SK_ENOTFOUND)
			sk_warn("scheduler", "preemption: deleting pod \"%s/%s\": %s", vj.ns, vj.name, err.msg);
	}
	v = json_pack("{s:s}", "nominatedNodeName", j->node);
	patch_pod_status(s, j->ns, j->name, v, NULL);
	json_decref(v);
}

static void do_podgroup_status(struct sk_sched *s, struct sk_job *j)
{
	char path[512];
	sk_error_t err = {0};
	json_t *body = json_pack("{s:O}", "status", j->body), *r;

	snprintf(path, sizeof(path), "/apis/scheduling.x-k8s.io/v1alpha1/namespaces/%s/podgroups/%s/status", j->ns,
		 j->name);
	r = sk_client_patch(s->client, path, SK_PATCH_MERGE, body, &err);
	json_decref(body);
	if (!r)
		sk_debug("scheduler", "podgroup \"%s/%s\": status: %s", j->ns, j->name, err.msg);
	json_decref(r);
}

static void run_job(struct sk_sched *s, struct sk_job *j)
{
	switch (j->kind) {
	case JOB_BIND:
		do_bind(s, j);
		break;
	case JOB_FAIL:
		do_fail(s, j);
		break;
	case JOB_PREEMPT:
		do_preempt(s, j);
		break;
	case JOB_PODGROUP_STATUS:
		do_podgroup_status(s, j);
		break;
	case JOB_EVENT:
		record_event(s, j, j->etype, j->ereason, j->eaction, j->msg);
		break;
	case JOB_EVENTS_REFRESH:
		sk__sched_events_refresh(s);
		break;
	}
}

static void *worker_main(void *arg)
{
	struct sk_sched *s = arg;

	pthread_mutex_lock(&s->jmu);
	for (;;) {
		struct sk_job *j;

		while (!s->jhead && !s->lhead && !s->jstop)
			pthread_cond_wait(&s->jcv, &s->jmu);
		if (s->jhead) {
			j = s->jhead;
			if (!(s->jhead = j->next))
				s->jtail = NULL;
		} else if (s->lhead) {
			j = s->lhead;
			if (!(s->lhead = j->next))
				s->ltail = NULL;
		} else {
			break;
		}
		j->next = NULL;
		s->jbusy++;
		pthread_mutex_unlock(&s->jmu);
		run_job(s, j);
		sk__sched_job_free(j);
		pthread_mutex_lock(&s->jmu);
		s->jbusy--;
		s->jcount--;
		if (!s->jcount)
			pthread_cond_broadcast(&s->jidle);
	}
	pthread_mutex_unlock(&s->jmu);
	return NULL;
}

void sk__sched_workers_start(struct sk_sched *s)
{
	s->workers = xzalloc(s->nworkers * sizeof(*s->workers));
	for (int i = 0; i < s->nworkers; i++)
		pthread_create(&s->workers[i], NULL, worker_main, s);
}

/* Drains the queue (pending API work still runs) and joins the workers. */
void sk__sched_workers_stop(struct sk_sched *s)
{
	pthread_mutex_lock(&s->jmu);
	s->jstop = 1;
	pthread_cond_broadcast(&s->jcv);
	pthread_mutex_unlock(&s->jmu);
	for (int i = 0; i < s->nworkers; i++)
		pthread_join(s->workers[i], NULL);
	free(s->workers);
	s->workers = NULL;
}
