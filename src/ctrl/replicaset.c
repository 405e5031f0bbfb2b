/* The ReplicaSet controller (after pkg/controller/replicaset): keeps
 * spec.replicas active pods that match the selector, adopting orphans and
 * releasing pods that stopped matching, and reports status. The same code
 * serves ReplicationControllers (pkg/controller/replication: the ReplicaSet
 * controller behind an adapter), whose selector is a map of labels. */
#include <stdlib.h>
#include <string.h>

#include "ctrl/ctrl-int.h"
#include "util/util.h"

#define BURST_REPLICAS 500

/* The kind a controller instance manages. */
typedef struct rs_kind {
	const char *name; /* controller name */
	const char *kind, *api_version, *prefix, *plural;
	const char *component; /* events' source */
	int map_selector;      /* spec.selector is a map of labels (ReplicationController) */
} rs_kind;

static const rs_kind replicaset_kind = {
	"replicaset", "ReplicaSet", "apps/v1", "/apis/apps/v1", "replicasets", "replicaset-controller", 0};
static const rs_kind replication_kind = {"replicationcontroller",  "ReplicationController",  "v1", "/api/v1",
					 "replicationcontrollers", "replication-controller", 1};

typedef struct rs_state {
	const rs_kind *kind;
	sk_informer *inf;
} rs_state;

typedef struct rs_run {
	sk_controller *k;
	json_t *rs;
	char err[256];
} rs_run;

static const rs_kind *kind_of(sk_controller *k) { return ((rs_state *)k->state)->kind; }

static sk_informer *inf_of(sk_controller *k) { return ((rs_state *)k->state)->inf; }

/* The object's selector as a LabelSelector (a new reference, or NULL). */
static json_t *selector_json(sk_controller *k, json_t *rs)
{
	json_t *sel = sk_kube_jget(rs, "spec.selector");

	if (!kind_of(k)->map_selector)
		return sel ? json_incref(sel) : NULL;
	return json_is_object(sel) ? json_pack("{s:O}", "matchLabels", sel) : NULL;
}

static sk_kube_label_selector *selector_of(sk_controller *k, json_t *rs, sk_error_t *err)
{
	cleanup_json json_t *sel = selector_json(k, rs);

	if (!sel) {
		sk_error_set(err, SK_EINVALID, "no selector");
		return NULL;
	}
	return sk_kube_label_selector_from_json(sel, err);
}

static void enqueue_orphan_matches(sk_controller *k, json_t *pod)
{
	cleanup_json json_t *all = sk_informer_list(inf_of(k), sk__ns(pod));
	json_t *rs;
	size_t i;

	json_array_foreach(all, i, rs) {
		sk_error_t err = {0};
		sk_kube_label_selector *sel = selector_of(k, rs, &err);

		if (sel && sk_kube_label_selector_match(sel, sk_kube_jget(pod, "metadata.labels"))) {
			cleanup_free char *key = sk__key(rs);

			sk__queue_add(k->q, key);
		}
		sk_kube_label_selector_free(sel);
	}
}

static void on_pod(void *ud, int ev, json_t *old, json_t *pod)
{
	sk_controller *k = ud;

	if (old && old != pod)
		sk__enqueue_controller(k, old, kind_of(k)->kind);
	if (sk_kube_controller_ref(pod))
		sk__enqueue_controller(k, pod, kind_of(k)->kind);
	else if (ev != SK_INF_DELETE)
		enqueue_orphan_matches(k, pod);
}

/* Upstream's ActivePodsWithRanks ordering: pods earlier in the order are
 * deleted first. */
static int phase_rank(json_t *pod)
{
	const char *p = sk_kube_jstr(pod, "status.phase");

	if (!p || !strcmp(p, "Pending"))
		return 0;
	if (!strcmp(p, "Unknown"))
		return 1;
	return 2;
}

static json_int_t restarts(json_t *pod)
{
	json_t *cs;
	size_t i;
	json_int_t max = 0;

	json_array_foreach(sk_kube_jget(pod, "status.containerStatuses"), i, cs) {
		json_int_t r = json_integer_value(json_object_get(cs, "restartCount"));

		if (r > max)
			max = r;
	}
	return max;
}

static long long deletion_cost(json_t *pod)
{
	json_t *ann = sk_kube_jget(pod, "metadata.annotations");
	const char *c = json_string_value(json_object_get(ann, "controller.kubernetes.io/pod-deletion-cost"));
	return c ? strtoll(c, NULL, 10) : 0;
}

int sk__pod_delete_less(json_t *a, json_t *b, int rank_a, int rank_b)
{
	const char *na = sk_kube_jstr(a, "spec.nodeName"), *nb = sk_kube_jstr(b, "spec.nodeName");
	int ra, rb;
	int64_t ta, tb;

	if ((na && *na) != (nb && *nb))
		return !(na && *na);
	if (phase_rank(a) != phase_rank(b))
		return phase_rank(a) < phase_rank(b);
	if (sk__pod_ready(a) != sk__pod_ready(b))
		return !sk__pod_ready(a);
	if (deletion_cost(a) != deletion_cost(b))
		return deletion_cost(a) < deletion_cost(b);
	if (rank_a != rank_b)
		return rank_a > rank_b;
	ra = sk__pod_ready(a);
	rb = sk__pod_ready(b);
	if (ra && rb) {
		ta = sk__pod_ready_since(a);
		tb = sk__pod_ready_since(b);
		if (ta != tb)
			return ta > tb;
	}
	if (restarts(a) != restarts(b))
		return restarts(a) > restarts(b);
	ta = sk__jtime(a, "metadata.creationTimestamp", 0);
	tb = sk__jtime(b, "metadata.creationTimestamp", 0);
	return ta > tb;
}

typedef struct ranked {
	json_t *pod;
	int rank;
} ranked;

static int ranked_cmp(const void *x, const void *y)
{
	const ranked *a = x, *b = y;

	if (sk__pod_delete_less(a->pod, b->pod, a->rank, b->rank))
		return -1;
	if (sk__pod_delete_less(b->pod, a->pod, b->rank, a->rank))
		return 1;
	return 0;
}

/* Rank: how many of the active pods share the pod's node. */
static ranked *rank_pods(json_t *pods, size_t *n)
{
	ranked *r = xzalloc((json_array_size(pods) + 1) * sizeof(*r));
	json_t *p, *q;
	size_t i, j;

	json_array_foreach(pods, i, p) {
		const char *node = sk_kube_jstr(p, "spec.nodeName");

		r[i].pod = p;
		if (!node || !*node)
			continue;
		json_array_foreach(pods, j, q) {
			const char *qn = sk_kube_jstr(q, "spec.nodeName");

			if (qn && !strcmp(qn, node))
				r[i].rank++;
		}
	}
	*n = json_array_size(pods);
	qsort(r, *n, sizeof(*r), ranked_cmp);
	return r;
}

/* Runs concurrently for distinct i (sk__slow_start): reads run, writes err. */
static int create_one(void *ud, int i, sk_error_t *err)
{
	rs_run *run = ud;
	json_t *rs = run->rs;
	const rs_kind *rk = kind_of(run->k);
	cleanup_free char *gen = xasprintf("%s-", sk__name(rs));
	cleanup_free char *path = sk__path("/api/v1", "pods", sk__ns(rs), NULL, NULL);
	cleanup_json json_t *pod = sk__pod_from_template(sk_kube_jget(rs, "spec.template"),
							 sk__owner_ref(rs, rk->api_version, rk->kind), sk__ns(rs), gen);
	cleanup_json json_t *out = NULL;

	(void)i;
	out = sk_client_create(run->k->ctl->c, path, pod, err);
	if (!out) {
		sk_event_record(run->k->ctl->c, rs, "Warning", "FailedCreate", rk->component, NULL,
				"Error creating: %s", err->msg);
		return -1;
	}
	sk_informer_write(run->k->ctl->pods, out);
	sk_event_record(run->k->ctl->c, rs, "Normal", "SuccessfulCreate", rk->component, NULL, "Created pod: %s",
			sk__name(out));
	return 0;
}

/* Deletes a pod through the API and writes the result through the cache. */
int sk__delete_pod(struct sk_ctrl *ctl, json_t *pod, sk_error_t *err)
{
	cleanup_free char *path = sk__path("/api/v1", "pods", sk__ns(pod), sk__name(pod), NULL);
	cleanup_json json_t *cur = NULL;

	if (sk_client_delete(ctl->c, path, NULL, err) < 0 && err->code != SK_ENOTFOUND)
		return -1;
	cur = sk_client_get(ctl->c, path, NULL);
	if (cur)
		sk_informer_write(ctl->pods, cur);
	else
		sk_informer_forget(ctl->pods, pod);
	return 0;
}

static int manage_replicas(rs_run *run, json_t *active)
{
	json_int_t want = sk__jint(run->rs, "spec.replicas", 1);
	long diff = (long)json_array_size(active) - (long)want;

	if (diff < 0) {
		int n = (int)(-diff > BURST_REPLICAS ? BURST_REPLICAS : -diff);
		sk_error_t err = {0};

		if (sk__slow_start(n, create_one, run, &err) == n)
			return 0;
		snprintf(run->err, sizeof(run->err), "%s", err.msg);
		return -1;
	}
	if (diff > 0) {
		size_t n;
		ranked *r = rank_pods(active, &n);
		int rc = 0;

		for (long i = 0; i < diff && i < BURST_REPLICAS; i++) {
			sk_error_t err = {0};

			if (sk__delete_pod(run->k->ctl, r[i].pod, &err) < 0) {
				snprintf(run->err, sizeof(run->err), "%s", err.msg);
				rc = -1;
				continue;
			}
			sk_event_record(run->k->ctl->c, run->rs, "Normal", "SuccessfulDelete",
					kind_of(run->k)->component, NULL, "Deleted pod: %s", sk__name(r[i].pod));
		}
		free(r);
		return rc;
	}
	return 0;
}

static int labels_superset(json_t *have, json_t *want)
{
	const char *k;
	json_t *v;

	json_object_foreach(want, k, v) {
		json_t *h = json_object_get(have, k);

		if (!h || !json_equal(h, v))
			return 0;
	}
	return 1;
}

static void set_or_del(json_t *st, const char *k, json_int_t v)
{
	if (v)
		json_object_set_new(st, k, json_integer(v));
	else
		json_object_del(st, k);
}

/* Builds the new status into a copy of rs; returns the delay until a ready
 * pod becomes available (ms, -1 for none). */
static int64_t calc_status(json_t *rs, json_t *active, const char *create_err, int failed_delete)
{
	json_t *st = sk_kube_jobj(rs, "status"), *p;
	json_t *tlabels = sk_kube_jget(rs, "spec.template.metadata.labels");
	json_int_t mrs = sk__jint(rs, "spec.minReadySeconds", 0), full = 0, ready = 0, avail = 0;
	int64_t now = sk__now(), wait = -1;
	size_t i;

	json_array_foreach(active, i, p) {
		if (labels_superset(sk_kube_jget(p, "metadata.labels"), tlabels))
			full++;
		if (!sk__pod_ready(p))
			continue;
		ready++;
		if (sk__pod_available(p, mrs, now))
			avail++;
		else if (wait < 0 || (sk__pod_ready_since(p) + mrs - now) * 1000 < wait)
			wait = (sk__pod_ready_since(p) + mrs - now) * 1000 + 100;
	}
	json_object_set_new(st, "replicas", json_integer((json_int_t)json_array_size(active)));
	set_or_del(st, "fullyLabeledReplicas", full);
	set_or_del(st, "readyReplicas", ready);
	set_or_del(st, "availableReplicas", avail);
	json_object_set_new(st, "observedGeneration", json_integer(sk__jint(rs, "metadata.generation", 0)));
	if (create_err && !sk_kube_condition_get(st, "ReplicaFailure"))
		sk__cond_set(st, "ReplicaFailure", "True", failed_delete ? "FailedDelete" : "FailedCreate", create_err,
			     0, 0);
	else if (!create_err)
		sk_kube_condition_remove(st, "ReplicaFailure");
	if (json_is_array(json_object_get(st, "conditions")) && !json_array_size(json_object_get(st, "conditions")))
		json_object_del(st, "conditions");
	return wait;
}

static int sync_rs(sk_controller *k, const char *key)
{
	char ns[256], name[256];
	cleanup_json json_t *cached = NULL, *rs = NULL, *owned = NULL, *active = json_array();
	sk_kube_label_selector *sel;
	sk_error_t err = {0};
	rs_run run = {.k = k};
	json_t *p;
	size_t i;
	int rc = 0;
	int64_t wait;

	sk__split_key(key, ns, sizeof(ns), name, sizeof(name));
	cached = sk_informer_get(inf_of(k), ns, name);
	if (!cached)
		return 0;
	sel = selector_of(k, cached, &err);
	if (!sel)
		return 0;
	owned = sk__claim_pods(k->ctl, cached, kind_of(k)->api_version, kind_of(k)->kind, sel);
	sk_kube_label_selector_free(sel);
	json_array_foreach(owned, i, p)
		if (sk__pod_active(p))
			json_array_append(active, p);
	run.rs = cached;
	if (!sk__is_deleting(cached))
		rc = manage_replicas(&run, active);
	json_decref(owned);
	json_array_clear(active);
	owned = sk_informer_owned(k->ctl->pods, ns, sk__uid(cached));
	json_array_foreach(owned, i, p)
		if (sk__pod_active(p))
			json_array_append(active, p);
	rs = json_deep_copy(cached);
	wait = calc_status(rs, active, rc < 0 ? run.err : NULL, 0);
	if (!json_equal(json_object_get(rs, "status"), json_object_get(cached, "status")) &&
	    sk__update_status(k->ctl, inf_of(k), kind_of(k)->prefix, kind_of(k)->plural, rs, &err) < 0 &&
	    err.code != SK_ENOTFOUND)
		return -1;
	if (wait >= 0)
		sk__queue_add_after(k->q, key, wait);
	return rc;
}

static void controller_for(struct sk_ctrl *ctl, const rs_kind *rk, sk_informer *inf)
{
	rs_state *st = xzalloc(sizeof(*st));
	sk_controller *k;

	st->kind = rk;
	st->inf = inf;
	k = sk__controller_add(ctl, rk->name, sync_rs, st);
	k->primary = inf;
	k->resync_secs = 30;
	sk_informer_on(inf, sk__enqueue_self, k);
	sk_informer_on(ctl->pods, on_pod, k);
}

int sk__replicaset_init(struct sk_ctrl *ctl, sk_error_t *err)
{
	(void)err;
	controller_for(ctl, &replicaset_kind, ctl->rs);
	controller_for(ctl, &replication_kind,
		       sk__ctrl_extra(ctl, "/api/v1/replicationcontrollers", "v1", "ReplicationController"));
	return 0;
}
