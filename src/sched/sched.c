#include "sched/sched-int.h"

#include <string.h>
#include <time.h>

#include "util/util.h"

#define COMPONENT "scheduler"
#define TICK_NS (200LL * 1000000)
/* How often repeats of an aggregated event are written (worker.c). */
#define EVENT_REFRESH_NS (30LL * 1000000000)

/* The cluster events of assigned pods (upstream AssignedPodAdd and
 * AssignedPodDelete, which includes a pod reaching a terminal phase): who
 * registered for them. */
#define QH_ASSIGNED_POD_ADD (SK_QH_PODS)
#define QH_ASSIGNED_POD_DELETE (SK_QH_RESOURCES | SK_QH_PODS)

static const char *jstr(json_t *o, const char *k) { return json_string_value(json_object_get(o, k)); }

static const sk_sched_profile *profile_for(const struct sk_sched *s, const sk_spod *p)
{
	for (int i = 0; i < s->nprofiles; i++)
		if (strcmp(s->profiles[i].name, p->sched_name) == 0)
			return &s->profiles[i];
	return NULL;
}

/* ---- object handlers (all under s->mu) ---- */

static void mark_gang_dirty(struct sk_sched *s, const sk_spod *p)
{
	char key[512];

	if (!p || !p->group)
		return;
	snprintf(key, sizeof(key), "%s/%s", p->ns, p->group);
	sk__smap_put(&s->dirty_gangs, key, (void *)1);
}

/* Upstream resolves spec.priority at admission; fill it in when missing. */
static void resolve_priority(struct sk_sched *s, sk_spod *p)
{
	const char *pc = jstr(json_object_get(p->obj, "spec"), "priorityClassName");
	json_t *cls = pc ? sk__smap_get(&s->prio_classes, pc) : NULL;

	if (p->has_priority)
		return;
	if (!cls && !pc) {
		for (size_t b = 0; b < s->prio_classes.cap && !cls; b++)
			for (sk_smap_ent *e = s->prio_classes.b[b]; e && !cls; e = e->next)
				if (json_is_true(json_object_get(e->val, "globalDefault")))
					cls = e->val;
	}
	if (!cls)
		return;
	p->priority = (int32_t)json_integer_value(json_object_get(cls, "value"));
	if (!jstr(json_object_get(p->obj, "spec"), "preemptionPolicy"))
		p->preempt_never = jstr(cls, "preemptionPolicy") && strcmp(jstr(cls, "preemptionPolicy"), "Never") == 0;
}

static int pending_ours(const struct sk_sched *s, const sk_spod *p)
{
	return !p->node_name && !p->terminal && !p->deleting && !p->gated && profile_for(s, p);
}

static void unassume(struct sk_sched *s, sk_spod *p)
{
	sk_cache_pod_remove(&s->cache, p);
	sk_spod_set_node(p, NULL);
	p->assumed = 0;
	p->reserved = 0;
}

static void pod_forget(struct sk_sched *s, sk_spod *old, int deleted)
{
	int freed = old->node != NULL;

	sk_cache_pod_remove(&s->cache, old);
	sk_cache_unnominate(&s->cache, old);
	if (deleted) {
		sk_queue_delete(&s->queue, old->key);
		sk_gangs_pod_remove(&s->gangs, old);
		mark_gang_dirty(s, old);
		sk__smap_del(&s->pods, old->key);
		sk_spod_free(old);
	}
	if (freed)
		sk_queue_move(&s->queue, QH_ASSIGNED_POD_DELETE, sk_mono_ns());
}

/* Parked gang siblings get another chance when a member arrives, once the
 * group has enough members to pass PreFilter: before that every retry fails
 * again and writes a status and an event, which made a 1,000-member gang
 * O(members²) attempts while its pods were being created. */
static void activate_siblings(struct sk_sched *s, const sk_spod *p)
{
	sk_gang *g = sk_gangs_for_pod(&s->gangs, p);

	if (!g || (int)g->members.n < g->min_member)
		return;
	for (size_t b = 0; b < g->members.cap; b++)
		for (sk_smap_ent *e = g->members.b[b]; e; e = e->next)
			sk_queue_activate(&s->queue, e->key);
}

/* json_equal, with two absent values equal (json_equal(NULL, NULL) is 0). */
static int same_json(json_t *a, json_t *b) { return a == b || json_equal(a, b); }

/* Upstream requeues an unschedulable pod only when something other than its
 * status changed (our own condition write must not retry it). */
static int scheduling_changed(const sk_spod *old, const sk_spod *p)
{
	return !same_json(json_object_get(old->obj, "spec"), json_object_get(p->obj, "spec")) ||
	       !same_json(old->labels, p->labels) ||
	       !same_json(json_object_get(json_object_get(old->obj, "metadata"), "annotations"),
			  json_object_get(json_object_get(p->obj, "metadata"), "annotations"));
}

static void apply_pod(struct sk_sched *s, const char *type, json_t *obj)
{
	json_t *meta = json_object_get(obj, "metadata");
	const char *ns = jstr(meta, "namespace"), *name = jstr(meta, "name");
	char key[512];
	sk_spod *old, *p;
	sk_error_t err = {0};
	int was_assigned, was_bound;

	if (!name)
		return;
	snprintf(key, sizeof(key), "%s/%s", ns ? ns : "default", name);
	old = sk__smap_get(&s->pods, key);
	if (strcmp(type, "DELETED") == 0) {
		if (old) {
			sk__sched_events_forget(s, key);
			pod_forget(s, old, 1);
		}
		return;
	}
	if (!(p = sk_spod_new(obj, &err))) {
		sk_warn(COMPONENT, "%s", err.msg);
		return;
	}
	resolve_priority(s, p);
	was_assigned = old && old->node && !old->terminal;
	was_bound = old && jstr(json_object_get(old->obj, "spec"), "nodeName") && !old->terminal;
	if (old) {
		/* A stale event must not undo our assumption or reservation. */
		if (old->assumed && !p->node_name) {
			sk_spod_set_node(p, old->node_name);
			p->assumed = 1;
			p->reserved = old->reserved;
		}
		sk_cache_pod_remove(&s->cache, old);
		sk_cache_unnominate(&s->cache, old);
	}
	sk__smap_put(&s->pods, key, p);
	sk_gangs_pod_set(&s->gangs, p);
	mark_gang_dirty(s, p);
	if (p->node_name && !p->terminal)
		sk_cache_pod_add(&s->cache, p);
	if (pending_ours(s, p)) {
		if (old && sk_queue_get(&s->queue, key) && !scheduling_changed(old, p))
			sk_queue_replace(&s->queue, p);
		else if (old && sk_queue_get(&s->queue, key))
			sk_queue_update(&s->queue, p, sk_mono_ns());
		else
			sk_queue_add(&s->queue, p);
		if (p->nominated)
			sk_cache_nominate(&s->cache, p, p->nominated);
		if (!old)
			activate_siblings(s, p);
	} else if (!p->assumed) {
		sk_queue_delete(&s->queue, key);
	} else if (old) {
		sk_queue_replace(&s->queue, p);
	}
	if (old)
		sk_spod_free(old);
	if (was_assigned && (p->terminal || !p->node))
		sk_queue_move(&s->queue, QH_ASSIGNED_POD_DELETE, sk_mono_ns());
	else if (!was_bound && p->node && !p->terminal && jstr(json_object_get(p->obj, "spec"), "nodeName"))
		sk_queue_move(&s->queue, QH_ASSIGNED_POD_ADD, sk_mono_ns());
}

static int node_changed(const sk_snode *n, json_t *obj)
{
	json_t *o = n ? n->obj : NULL;

	if (!o)
		return 1;
	return !same_json(json_object_get(o, "spec"), json_object_get(obj, "spec")) ||
	       !same_json(json_object_get(json_object_get(o, "metadata"), "labels"),
			  json_object_get(json_object_get(obj, "metadata"), "labels")) ||
	       !same_json(json_object_get(json_object_get(o, "status"), "allocatable"),
			  json_object_get(json_object_get(obj, "status"), "allocatable"));
}

static void apply_node(struct sk_sched *s, const char *type, json_t *obj)
{
	const char *name = jstr(json_object_get(obj, "metadata"), "name");
	sk_snode *n;
	sk_error_t err = {0};
	int changed, was_ready;

	if (!name)
		return;
	if (strcmp(type, "DELETED") == 0) {
		sk_cache_node_remove(&s->cache, name);
		return;
	}
	n = sk_cache_node(&s->cache, name);
	changed = node_changed(n, obj);
	was_ready = n ? n->ready : -1;
	if (!(n = sk_cache_node_upsert(&s->cache, obj, &err))) {
		sk_warn(COMPONENT, "%s", err.msg);
		return;
	}
	if (changed || was_ready != n->ready)
		sk_queue_move_all(&s->queue, sk_mono_ns());
}

static void apply_named(sk_smap *m, const char *type, json_t *obj)
{
	const char *name = jstr(json_object_get(obj, "metadata"), "name");
	json_t *old;

	if (!name)
		return;
	old = strcmp(type, "DELETED") == 0 ? sk__smap_del(m, name) : sk__smap_put(m, name, json_incref(obj));
	json_decref(old);
}

/* A claim, volume or class changed: pods waiting for their volumes retry
 * (upstream's VolumeBinding queueing hints, coarser). */
static void apply_volume_object(struct sk_sched *s, int kind, const char *type, json_t *obj)
{
	json_t *meta = json_object_get(obj, "metadata");
	const char *ns = jstr(meta, "namespace"), *name = jstr(meta, "name");
	sk_smap *m = kind == SK_RES_PVCS ? &s->pvcs : kind == SK_RES_PVS ? &s->pvs : &s->storage_classes;
	char key[512];
	json_t *old;

	if (!name)
		return;
	snprintf(key, sizeof(key), "%s%s%s", ns ? ns : "", ns ? "/" : "", name);
	old = strcmp(type, "DELETED") == 0 ? sk__smap_del(m, key) : sk__smap_put(m, key, json_incref(obj));
	json_decref(old);
	if (strcmp(type, "DELETED"))
		sk_queue_move_all(&s->queue, sk_mono_ns());
}

static void apply_podgroup(struct sk_sched *s, const char *type, json_t *obj)
{
	json_t *meta = json_object_get(obj, "metadata");
	const char *ns = jstr(meta, "namespace"), *name = jstr(meta, "name");
	char key[512];

	if (!name)
		return;
	if (strcmp(type, "DELETED") == 0) {
		sk_gangs_podgroup_delete(&s->gangs, ns ? ns : "default", name);
		return;
	}
	sk_gangs_podgroup_upsert(&s->gangs, obj);
	snprintf(key, sizeof(key), "%s/%s", ns ? ns : "default", name);
	sk__smap_put(&s->dirty_gangs, key, (void *)1);
	sk_queue_move_all(&s->queue, sk_mono_ns());
}

void sk__sched_apply(struct sk_sched *s, int kind, const char *type, json_t *obj)
{
	switch (kind) {
	case SK_RES_NODES:
		apply_node(s, type, obj);
		break;
	case SK_RES_PODS_W:
		apply_pod(s, type, obj);
		break;
	case SK_RES_PODGROUPS:
		apply_podgroup(s, type, obj);
		break;
	case SK_RES_PRIOCLASSES:
		apply_named(&s->prio_classes, type, obj);
		break;
	case SK_RES_RUNTIMECLASSES:
		apply_named(&s->runtime_classes, type, obj);
		break;
	case SK_RES_PVCS:
	case SK_RES_PVS:
	case SK_RES_STORAGECLASSES:
		apply_volume_object(s, kind, type, obj);
		break;
	}
}

struct prune_ctx {
	const sk_smap *seen;
	char **gone;
	int n, cap;
};

static void collect_gone(const char *key, void *val, void *ud)
{
	struct prune_ctx *c = ud;

	if (sk__smap_get(c->seen, key))
		return;
	if (c->n == c->cap) {
		c->cap = c->cap ? c->cap * 2 : 16;
		c->gone = xrealloc(c->gone, c->cap * sizeof(char *));
	}
	c->gone[c->n++] = xstrdup(key);
}

static json_t *tombstone(const char *key)
{
	const char *slash = strchr(key, '/');

	if (!slash)
		return json_pack("{s:{s:s}}", "metadata", "name", key);
	return json_pack("{s:{s:s%, s:s}}", "metadata", "namespace", key, (size_t)(slash - key), "name", slash + 1);
}

void sk__sched_prune(struct sk_sched *s, int kind, const sk_smap *seen)
{
	struct prune_ctx c = {seen, NULL, 0, 0};

	switch (kind) {
	case SK_RES_NODES:
		for (int i = 0; i < s->cache.nnodes; i++)
			collect_gone(s->cache.nodes[i]->name, NULL, &c);
		break;
	case SK_RES_PODS_W:
		sk__smap_each(&s->pods, collect_gone, &c);
		break;
	case SK_RES_PODGROUPS:
		for (size_t b = 0; b < s->gangs.map.cap; b++)
			for (sk_smap_ent *e = s->gangs.map.b[b]; e; e = e->next)
				if (((sk_gang *)e->val)->obj)
					collect_gone(e->key, NULL, &c);
		break;
	case SK_RES_PRIOCLASSES:
		sk__smap_each(&s->prio_classes, collect_gone, &c);
		break;
	case SK_RES_RUNTIMECLASSES:
		sk__smap_each(&s->runtime_classes, collect_gone, &c);
		break;
	case SK_RES_PVCS:
		sk__smap_each(&s->pvcs, collect_gone, &c);
		break;
	case SK_RES_PVS:
		sk__smap_each(&s->pvs, collect_gone, &c);
		break;
	case SK_RES_STORAGECLASSES:
		sk__smap_each(&s->storage_classes, collect_gone, &c);
		break;
	}
	for (int i = 0; i < c.n; i++) {
		json_t *t = tombstone(c.gone[i]);

		sk__sched_apply(s, kind, "DELETED", t);
		json_decref(t);
		free(c.gone[i]);
	}
	free(c.gone);
}

/* ---- decisions ---- */

static struct sk_job *job(struct sk_sched *s, int kind, const sk_spod *p, const char *node, const char *msg)
{
	struct sk_job *j = sk__sched_job(kind, p, node, msg);
	const sk_sched_profile *prof = p ? profile_for(s, p) : NULL;

	j->profile = prof ? prof->name : "default-scheduler";
	return j;
}

static void assume(struct sk_sched *s, sk_spod *p, const sk_snode *n)
{
	sk_cache_unnominate(&s->cache, p);
	sk_spod_set_node(p, n->name);
	p->assumed = 1;
	sk_cache_pod_add(&s->cache, p);
}

static void bind(struct sk_sched *s, sk_spod *p)
{
	struct sk_job *j = job(s, JOB_BIND, p, p->node_name, NULL);

	sk_queue_done(&s->queue, p->key);
	s->stats.scheduled++;
	/* the claims that get the node before the binding (VolumeBinding's PreBind) */
	j->body = sk__sched_volumes_to_select(s, p);
	sk__sched_submit(s, j);
}

/* Skips the status write when the pod already carries the same condition. */
static int has_condition(const sk_spod *p, const char *msg, const char *nominated)
{
	json_t *status = json_object_get(p->obj, "status"), *c;
	size_t i;

	if ((nominated || p->nominated) && (!nominated || !p->nominated || strcmp(nominated, p->nominated) != 0))
		return 0;
	json_array_foreach(json_object_get(status, "conditions"), i, c)
		if (jstr(c, "type") && strcmp(jstr(c, "type"), "PodScheduled") == 0)
			return jstr(c, "message") && strcmp(jstr(c, "message"), msg) == 0 && jstr(c, "reason") &&
			       strcmp(jstr(c, "reason"), "Unschedulable") == 0;
	return 0;
}

static int has_pod_scheduled(const sk_spod *p)
{
	json_t *c;
	size_t i;

	json_array_foreach(json_object_get(json_object_get(p->obj, "status"), "conditions"), i, c)
		if (jstr(c, "type") && strcmp(jstr(c, "type"), "PodScheduled") == 0)
			return 1;
	return 0;
}

static int same_str(const char *a, const char *b) { return a && b ? strcmp(a, b) == 0 : a == b; }

/* A pod retried before the watch brought back the condition of its last
 * failure would write it again: the queue entry remembers what was
 * submitted, which counts while the pod shows no PodScheduled condition. */
static int condition_submitted(const sk_qpod *e, const sk_spod *p, const char *msg, const char *nominated)
{
	return e && e->cond_msg && strcmp(e->cond_msg, msg) == 0 && same_str(e->cond_nominated, nominated) &&
	       !has_pod_scheduled(p);
}

/* A repeated failure with the same condition writes nothing itself: the
 * status patch is skipped (upstream compares with the informer's pod) and
 * the event is aggregated by the workers (a series, written now and then).
 * waiting: a gang member rejected in Permit because a sibling failed, which
 * backs off instead of waiting for an event (that failure is the event). */
static void unschedulable(struct sk_sched *s, sk_spod *p, const char *msg, const char *nominated, unsigned rejected,
			  int waiting)
{
	sk_qpod *e;

	s->stats.unschedulable++;
	if (waiting)
		sk_queue_rejected(&s->queue, p->key, rejected, sk_mono_ns());
	else
		sk_queue_unschedulable(&s->queue, p->key, rejected, sk_mono_ns());
	e = sk_queue_get(&s->queue, p->key);
	if (has_condition(p, msg, nominated) || condition_submitted(e, p, msg, nominated)) {
		struct sk_job *j = job(s, JOB_EVENT, p, NULL, msg);

		j->etype = "Warning";
		j->ereason = "FailedScheduling";
		j->eaction = "Scheduling";
		sk__sched_submit(s, j);
	} else {
		if (e) {
			free(e->cond_msg);
			free(e->cond_nominated);
			e->cond_msg = xstrdup(msg);
			e->cond_nominated = nominated ? xstrdup(nominated) : NULL;
		}
		sk__sched_submit(s, job(s, JOB_FAIL, p, nominated, msg));
	}
}

/* Drops the group's reservations and parks the waiting members; retry: a
 * sibling failed (PostFilter), they back off instead of waiting for an
 * event, so the members still tried in this round take the room. */
static void gang_reject(struct sk_sched *s, sk_gang *g, const char *msg, int retry)
{
	int n;
	sk_spod **w = sk_gang_take_waiting(g, &n);

	sk__sched_metrics_gang(retry ? "rejected" : "timeout");
	for (int i = 0; i < n; i++) {
		unassume(s, w[i]);
		unschedulable(s, w[i], msg, NULL, 0, retry);
	}
	free(w);
	sk__smap_put(&s->dirty_gangs, g->key, (void *)1);
}

static void gang_permit(struct sk_sched *s, sk_gang *g)
{
	int n;
	sk_spod **w = sk_gang_take_waiting(g, &n);

	sk__sched_metrics_gang("permitted");
	for (int i = 0; i < n; i++)
		bind(s, w[i]);
	free(w);
	sk__smap_put(&s->dirty_gangs, g->key, (void *)1);
}

static json_t *victims_json(const sk_preemption *pr)
{
	json_t *a = json_array();

	for (int i = 0; i < pr->nvictims; i++)
		json_array_append_new(a, json_pack("{s:s, s:s, s:s}", "namespace", pr->victims[i]->ns, "name",
						   pr->victims[i]->name, "uid", pr->victims[i]->uid));
	return a;
}

/* PostFilter: preemption. Returns the message suffix (malloc'd) or NULL when
 * p was nominated. */
static char *post_filter(struct sk_sched *s, sk_spod *p, json_t *rc, const sk_result *res, char **nominated)
{
	sk_preemption pr;
	struct sk_job *j;
	char *msg;

	sk__sched_metrics_preemption();
	if (sk_preempt(&s->cache, p, rc, res, &pr) < 0) {
		msg = steal_ptr(&pr.message);
		sk_preemption_release(&pr);
		if (p->nominated)
			sk_cache_unnominate(&s->cache, p);
		return msg;
	}
	s->stats.preemptions++;
	j = job(s, JOB_PREEMPT, p, pr.node->name, NULL);
	j->body = victims_json(&pr);
	sk__sched_submit(s, j);
	sk_cache_nominate(&s->cache, p, pr.node->name);
	free(p->nominated);
	p->nominated = xstrdup(pr.node->name);
	*nominated = p->nominated;
	sk_preemption_release(&pr);
	return NULL;
}

static json_t *runtime_class(struct sk_sched *s, sk_spod *p)
{
	const char *rc = jstr(json_object_get(p->obj, "spec"), "runtimeClassName");

	return rc ? sk__smap_get(&s->runtime_classes, rc) : NULL;
}

/* Coscheduling's PostFilter: unless the group is (nearly, within 10%) complete,
 * drop its reservations and say so. Returns the message (malloc'd) or NULL. */
static char *gang_post_filter(struct sk_sched *s, sk_gang *g, const sk_spod *p)
{
	int assigned = sk_gang_scheduled(g) + g->nwaiting;

	if (assigned >= g->min_member || (float)(g->min_member - assigned) / (float)g->min_member <= 0.1f)
		return NULL;
	if (g->nwaiting)
		gang_reject(s, g, "optimistic rejection in PostFilter", 1);
	return xasprintf("PodGroup %s gets rejected due to Pod %s is unschedulable even after PostFilter", g->key,
			 p->name);
}

/* The plugin families whose filters rejected the pod on some node (upstream
 * Diagnosis.UnschedulablePlugins), from their reasons. */
static unsigned rejected_by(const sk_result *res)
{
	static const char *const pods[] = {SK_MSG_NODE_PORTS, SK_MSG_SPREAD,        SK_MSG_SPREAD_LABEL,
					   SK_MSG_AFFINITY,   SK_MSG_ANTI_AFFINITY, SK_MSG_EXISTING_ANTI};
	unsigned m = 0;

	if (!res->fits)
		return SK_QH_NODE;
	for (int i = 0; i < res->nfits; i++)
		for (int k = 0; k < res->fits[i].n; k++) {
			const char *r = res->fits[i].reasons[k];
			unsigned f = SK_QH_NODE;

			if (strncmp(r, "Insufficient ", 13) == 0 || strcmp(r, SK_MSG_TOO_MANY_PODS) == 0)
				f = SK_QH_RESOURCES;
			for (size_t j = 0; j < sizeof(pods) / sizeof(pods[0]); j++)
				if (strcmp(r, pods[j]) == 0)
					f = SK_QH_PODS;
			m |= f;
		}
	return m;
}

static void schedule_failed(struct sk_sched *s, sk_spod *p, sk_gang *g, json_t *rc, sk_result *res)
{
	char *post = NULL, *msg;
	char *nominated = NULL;

	if (g)
		post = gang_post_filter(s, g, p);
	else if (!s->opts.disable_preemption && res->fits)
		post = post_filter(s, p, rc, res, &nominated);
	msg = res->fits ? sk_fit_error_message(res->nfits, res->fits, res->nfits, NULL, post) : xstrdup(res->message);
	/* a gang member may also wait for its siblings */
	unschedulable(s, p, msg, nominated, rejected_by(res) | (g ? SK_QH_OTHER : 0), 0);
	free(msg);
	free(post);
}

/* PostFilter after a PreFilter that rejected the pod on every node:
 * "preemption: 0/N nodes are available: N Preemption is not helpful for
 * scheduling." (malloc'd) */
static char *not_helpful(int n)
{
	sk_fit *st = xzalloc(n * sizeof(*st));
	char *msg, *out;

	for (int i = 0; i < n; i++) {
		st[i].code = SK_FIT_UNRESOLVABLE;
		st[i].n = 1;
		st[i].reasons[0] = SK_MSG_PREEMPT_NOT_HELPFUL;
	}
	msg = sk_fit_error_message(n, st, n, NULL, NULL);
	out = xasprintf("preemption: %s", msg);
	free(msg);
	free(st);
	return out;
}

/* One scheduling cycle of p: its result as the attempts metric names it. */
static const char *attempt(struct sk_sched *s, sk_spod *p, const sk_sched_profile *prof)
{
	sk_gang *g = sk_gangs_for_pod(&s->gangs, p);
	json_t *rc = runtime_class(s, p);
	sk_result res;
	char *pre = NULL;

	s->stats.attempts++;
	if (s->cache.nnodes > 0 && sk__sched_volumes_prefilter(s, p, &pre) < 0) {
		char *post = not_helpful(s->cache.nnodes);
		char *msg = sk_fit_error_message(s->cache.nnodes, NULL, 0, pre, post);

		unschedulable(s, p, msg, NULL, SK_QH_OTHER, 0);
		free(msg);
		free(post);
		free(pre);
		return "unschedulable";
	}
	if (g && sk_gang_prefilter(g, p, &pre) < 0) {
		char *post = gang_post_filter(s, g, p);
		char *msg = sk_fit_error_message(s->cache.nnodes, NULL, 0, pre, post);

		unschedulable(s, p, msg, NULL, SK_QH_OTHER, 0);
		free(msg);
		free(pre);
		free(post);
		return "unschedulable";
	}
	if (sk_algo_schedule(&s->algo, prof, p, rc, &res) < 0) {
		schedule_failed(s, p, g, rc, &res);
		sk_result_release(&res);
		return "unschedulable";
	}
	assume(s, p, res.node);
	sk_result_release(&res);
	if (!g) {
		bind(s, p);
		return "scheduled";
	}
	mark_gang_dirty(s, p);
	if (sk_gang_reserve(g, p, sk_mono_ns()))
		gang_permit(s, g);
	return "scheduled";
}

static void schedule_one(struct sk_sched *s, sk_spod *p)
{
	const sk_sched_profile *prof = profile_for(s, p);
	int64_t t0 = sk_mono_ns();
	const char *result = attempt(s, p, prof);

	sk__sched_metrics_attempt(result, prof ? prof->name : "", t0);
}

static void gang_tick(struct sk_sched *s, int64_t now)
{
	for (size_t b = 0; b < s->gangs.map.cap; b++)
		for (sk_smap_ent *e = s->gangs.map.b[b]; e; e = e->next) {
			sk_gang *g = e->val;
			char *msg;

			if (!sk_gang_timed_out(g, now))
				continue;
			msg = sk_gang_timeout_message(g);
			gang_reject(s, g, msg, 0);
			free(msg);
		}
}

static void gang_status_flush(struct sk_sched *s)
{
	for (size_t b = 0; b < s->dirty_gangs.cap; b++)
		for (sk_smap_ent *e = s->dirty_gangs.b[b]; e; e = e->next) {
			sk_gang *g = sk__smap_get(&s->gangs.map, e->key);
			json_t *st;
			char *txt;
			struct sk_job *j;

			if (!g || !g->obj)
				continue;
			st = sk_gang_status(g);
			txt = json_dumps(st, JSON_SORT_KEYS | JSON_COMPACT);
			if (g->last_status && strcmp(g->last_status, txt) == 0) {
				free(txt);
				json_decref(st);
				continue;
			}
			free(g->last_status);
			g->last_status = txt;
			j = sk__sched_job(JOB_PODGROUP_STATUS, NULL, NULL, NULL);
			j->ns = xstrdup(g->ns);
			j->name = xstrdup(g->name);
			j->body = st;
			sk__sched_submit(s, j);
		}
	sk__smap_release(&s->dirty_gangs);
}

/* Like upstream's WaitForCacheSync: no decision before every collection
 * (PodGroups and PriorityClasses included) has been listed once. */
static int synced(const struct sk_sched *s)
{
	for (int k = 0; k < SK_NFEEDS; k++)
		if (!s->feeds[k].synced)
			return 0;
	return 1;
}

static void wait_tick(struct sk_sched *s)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_nsec += TICK_NS;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	pthread_cond_timedwait(&s->wake, &s->mu, &ts);
}

static void *loop_main(void *arg)
{
	struct sk_sched *s = arg;
	int64_t last_tick = 0, last_refresh = sk_mono_ns();

	pthread_mutex_lock(&s->mu);
	while (!s->stop) {
		int64_t now = sk_mono_ns();
		sk_spod *p;

		if (now - last_tick >= TICK_NS) {
			sk_queue_flush(&s->queue, now);
			gang_tick(s, now);
			gang_status_flush(s);
			last_tick = now;
		}
		if (now - last_refresh >= EVENT_REFRESH_NS) {
			sk__sched_submit(s, sk__sched_job(JOB_EVENTS_REFRESH, NULL, NULL, NULL));
			last_refresh = now;
		}
		if (!synced(s) || !(p = sk_queue_pop(&s->queue))) {
			gang_status_flush(s);
			pthread_cond_broadcast(&s->wake);
			wait_tick(s);
			continue;
		}
		if (p->node_name && !p->reserved) {
			sk_queue_done(&s->queue, p->key);
			continue;
		}
		schedule_one(s, p);
	}
	pthread_mutex_unlock(&s->mu);
	return NULL;
}

void sk__sched_bind_failed(struct sk_sched *s, const char *ns, const char *name, const char *node, const char *msg)
{
	char key[512];
	sk_spod *p;

	snprintf(key, sizeof(key), "%s/%s", ns, name);
	pthread_mutex_lock(&s->mu);
	p = sk__smap_get(&s->pods, key);
	if (p && p->assumed && p->node_name && strcmp(p->node_name, node) == 0) {
		unassume(s, p);
		if (pending_ours(s, p)) {
			sk_queue_add(&s->queue, p);
			sk_queue_backoff(&s->queue, key, sk_mono_ns());
		}
		mark_gang_dirty(s, p);
	}
	sk_warn(COMPONENT, "pod \"%s\": %s", key, msg);
	pthread_mutex_unlock(&s->mu);
}

/* ---- lifecycle ---- */

static sk_sched_profile *copy_profiles(const sk_sched_options *o, int *n)
{
	static const sk_sched_profile dflt = {"default-scheduler", SK_STRATEGY_LEAST_ALLOCATED, 0, 0};
	int cnt = o && o->nprofiles > 0 ? o->nprofiles : 1;
	sk_sched_profile *p = xzalloc(cnt * sizeof(*p));

	for (int i = 0; i < cnt; i++) {
		p[i] = o && o->nprofiles > 0 ? o->profiles[i] : dflt;
		p[i].name = xstrdup(p[i].name ? p[i].name : "default-scheduler");
	}
	*n = cnt;
	return p;
}

sk_sched *sk_sched_start(sk_client *c, const sk_sched_options *opts, sk_error_t *err)
{
	struct sk_sched *s;

	if (!c) {
		sk_error_set(err, SK_EINVALID, "scheduler: no client");
		return NULL;
	}
	if (opts && opts->nprofiles > 0 && !opts->profiles) {
		sk_error_set(err, SK_EINVALID, "scheduler: %d profiles without a profile array", opts->nprofiles);
		return NULL;
	}
	s = xzalloc(sizeof(*s));
	s->client = c;
	if (opts)
		s->opts = *opts;
	s->profiles = copy_profiles(opts, &s->nprofiles);
	s->opts.profiles = s->profiles;
	s->instance = xstrdup(opts && opts->instance ? opts->instance : "skiff");
	s->nworkers = opts && opts->workers > 0 ? opts->workers : 16;
	pthread_mutex_init(&s->mu, NULL);
	pthread_cond_init(&s->wake, NULL);
	pthread_mutex_init(&s->jmu, NULL);
	pthread_cond_init(&s->jcv, NULL);
	pthread_cond_init(&s->jidle, NULL);
	pthread_mutex_init(&s->emu, NULL);
	sk_cache_init(&s->cache);
	sk_queue_init(&s->queue);
	sk_gangs_init(&s->gangs);
	sk_algo_init(&s->algo, &s->cache, opts ? opts->seed : 0);
	sk__smap_init(&s->pods);
	sk__smap_init(&s->prio_classes);
	sk__smap_init(&s->runtime_classes);
	sk__smap_init(&s->pvcs);
	sk__smap_init(&s->pvs);
	sk__smap_init(&s->storage_classes);
	sk__smap_init(&s->dirty_gangs);
	sk__smap_init(&s->events);
	sk__sched_workers_start(s);
	sk__sched_feeds_start(s);
	pthread_create(&s->loop, NULL, loop_main, s);
	s->metrics_collector = sk__sched_metrics_start(s);
	return s;
}

static void free_pod_cb(const char *key, void *val, void *ud) { sk_spod_free(val); }

static void decref_cb(const char *key, void *val, void *ud) { json_decref(val); }

static void free_evagg_cb(const char *key, void *val, void *ud)
{
	struct sk_evagg *a = val;

	free(a->name);
	free(a->msg);
	free(a);
}

void sk_sched_stop(sk_sched *s)
{
	if (!s)
		return;
	sk__sched_metrics_stop(s->metrics_collector);
	sk__sched_feeds_stop(s);
	pthread_mutex_lock(&s->mu);
	s->stop = 1;
	pthread_cond_broadcast(&s->wake);
	pthread_mutex_unlock(&s->mu);
	pthread_join(s->loop, NULL);
	sk__sched_workers_stop(s);
	sk_queue_release(&s->queue);
	sk_gangs_release(&s->gangs);
	sk_algo_release(&s->algo);
	sk_cache_release(&s->cache);
	sk__smap_each(&s->pods, free_pod_cb, NULL);
	sk__smap_release(&s->pods);
	sk__smap_each(&s->prio_classes, decref_cb, NULL);
	sk__smap_release(&s->prio_classes);
	sk__smap_each(&s->runtime_classes, decref_cb, NULL);
	sk__smap_release(&s->runtime_classes);
	sk__smap_each(&s->pvcs, decref_cb, NULL);
	sk__smap_release(&s->pvcs);
	sk__smap_each(&s->pvs, decref_cb, NULL);
	sk__smap_release(&s->pvs);
	sk__smap_each(&s->storage_classes, decref_cb, NULL);
	sk__smap_release(&s->storage_classes);
	sk__smap_release(&s->dirty_gangs);
	sk__smap_each(&s->events, free_evagg_cb, NULL);
	sk__smap_release(&s->events);
	for (int i = 0; i < s->nprofiles; i++)
		free((char *)s->profiles[i].name);
	free(s->profiles);
	free(s->instance);
	pthread_mutex_destroy(&s->mu);
	pthread_cond_destroy(&s->wake);
	pthread_mutex_destroy(&s->jmu);
	pthread_cond_destroy(&s->jcv);
	pthread_cond_destroy(&s->jidle);
	pthread_mutex_destroy(&s->emu);
	free(s);
}

void sk_sched_get_stats(sk_sched *s, sk_sched_stats *st)
{
	pthread_mutex_lock(&s->mu);
	/* field by field: the workers count bound, events and writes with atomics, outside mu */
	memset(st, 0, sizeof(*st));
	st->attempts = s->stats.attempts;
	st->scheduled = s->stats.scheduled;
	st->unschedulable = s->stats.unschedulable;
	st->preemptions = s->stats.preemptions;
	st->bound = __atomic_load_n(&s->stats.bound, __ATOMIC_RELAXED);
	st->bind_errors = __atomic_load_n(&s->stats.bind_errors, __ATOMIC_RELAXED);
	st->events = __atomic_load_n(&s->stats.events, __ATOMIC_RELAXED);
	st->status_writes = __atomic_load_n(&s->stats.status_writes, __ATOMIC_RELAXED);
	st->event_writes = __atomic_load_n(&s->stats.event_writes, __ATOMIC_RELAXED);
	st->pending = sk_queue_count(&s->queue, SK_Q_NONE);
	st->active = sk_queue_count(&s->queue, SK_Q_ACTIVE);
	st->synced = synced(s);
	pthread_mutex_unlock(&s->mu);
	pthread_mutex_lock(&s->jmu);
	st->inflight_jobs = s->jcount;
	pthread_mutex_unlock(&s->jmu);
}

int sk_sched_wait_idle(sk_sched *s, int timeout_ms)
{
	int64_t deadline = sk_mono_ns() + (int64_t)timeout_ms * 1000000;

	for (;;) {
		sk_sched_stats st;
		int busy;

		sk_sched_get_stats(s, &st);
		pthread_mutex_lock(&s->mu);
		busy = sk_queue_count(&s->queue, SK_Q_ACTIVE) || sk_queue_count(&s->queue, SK_Q_BACKOFF) || !synced(s);
		for (size_t b = 0; !busy && b < s->gangs.map.cap; b++)
			for (sk_smap_ent *e = s->gangs.map.b[b]; e && !busy; e = e->next)
				busy = ((sk_gang *)e->val)->nwaiting > 0;
		pthread_mutex_unlock(&s->mu);
		if (!busy && !st.inflight_jobs)
			return 0;
		if (sk_mono_ns() > deadline)
			return -1;
		usleep(2000);
	}
}
