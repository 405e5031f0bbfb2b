/* The node lifecycle controller (after pkg/controller/nodelifecycle and its
 * taint-eviction manager): a node whose kube-node-lease Lease and status
 * heartbeats stop for the grace period turns Ready=Unknown, gets the
 * unreachable (or, for Ready=False, not-ready) NoSchedule and NoExecute
 * taints, its pods are marked not ready, and pods that do not tolerate a
 * NoExecute taint are evicted after their tolerationSeconds with a
 * DisruptionTarget condition. */
#include <string.h>

#include "ctrl/ctrl-int.h"
#include "kube/taint.h"
#include "util/util.h"

#define UNREACHABLE "node.kubernetes.io/unreachable"
#define NOT_READY "node.kubernetes.io/not-ready"
#define TICK "tick"

static const char *ready_status(json_t *node)
{
	json_t *c = sk_kube_condition_get(json_object_get(node, "status"), "Ready");

	return c ? json_string_value(json_object_get(c, "status")) : NULL;
}

static int64_t last_heartbeat(sk_controller *k, json_t *node)
{
	cleanup_json json_t *lease = sk_informer_get(k->ctl->leases, "kube-node-lease", sk__name(node));
	json_t *c = sk_kube_condition_get(json_object_get(node, "status"), "Ready");
	int64_t t = sk__jtime(node, "metadata.creationTimestamp", 0), v;

	if ((v = sk__jtime(lease, "spec.renewTime", -1)) > t)
		t = v;
	if ((v = sk__jtime(c, "lastHeartbeatTime", -1)) > t)
		t = v;
	return t;
}

/* Sets every node condition to Unknown, as upstream's tryUpdateNodeHealth. */
static int mark_unknown(sk_controller *k, json_t *node)
{
	cleanup_json json_t *n = json_deep_copy(node);
	json_t *st = sk_kube_jobj(n, "status"), *c;
	size_t i;
	sk_error_t err = {0};

	if (!sk_kube_condition_get(st, "Ready"))
		sk__cond_set(st, "Ready", "Unknown", "NodeStatusNeverUpdated", "Kubelet never posted node status.", 0,
			     0);
	json_array_foreach(json_object_get(st, "conditions"), i, c) {
		if (!strcmp(json_string_value(json_object_get(c, "status")) ?: "", "Unknown"))
			continue;
		json_object_set_new(c, "status", json_string("Unknown"));
		json_object_set_new(c, "reason", json_string("NodeStatusUnknown"));
		json_object_set_new(c, "message", json_string("Kubelet stopped posting node status."));
		json_object_set_new(c, "lastTransitionTime", sk__time_json(sk__now()));
	}
	if (sk__update_status(k->ctl, k->ctl->nodes, "/api/v1", "nodes", n, &err) < 0) {
		sk_info("ctrl", "node \"%s\": marking unknown: %s", sk__name(node), err.msg);
		return -1;
	}
	sk_info("ctrl", "node \"%s\" stopped posting status: Ready=Unknown", sk__name(node));
	return 0;
}

static int has_taint(json_t *taints, const char *key, const char *effect)
{
	json_t *t;
	size_t i;

	json_array_foreach(taints, i, t)
		if (!strcmp(json_string_value(json_object_get(t, "key")) ?: "", key) &&
		    !strcmp(json_string_value(json_object_get(t, "effect")) ?: "", effect))
			return 1;
	return 0;
}

/* Keeps foreign taints and adds want_key (or none) with both effects. */
static int sync_taints(sk_controller *k, json_t *node, const char *want_key)
{
	json_t *cur = sk_kube_jget(node, "spec.taints"), *t;
	cleanup_json json_t *next = json_array(), *patch = NULL, *out = NULL;
	cleanup_free char *path = NULL;
	size_t i;
	sk_error_t err = {0};
	static const char *effects[] = {"NoSchedule", "NoExecute"};

	json_array_foreach(cur, i, t) {
		const char *key = json_string_value(json_object_get(t, "key")) ?: "";

		if ((!strcmp(key, UNREACHABLE) || !strcmp(key, NOT_READY)) && (!want_key || strcmp(key, want_key)))
			continue;
		json_array_append(next, t);
	}
	for (int e = 0; want_key && e < 2; e++) {
		if (has_taint(cur, want_key, effects[e]))
			continue;
		t = json_pack("{s:s, s:s}", "key", want_key, "effect", effects[e]);
		if (e == 1)
			json_object_set_new(t, "timeAdded", sk__time_json(sk__now()));
		json_array_append_new(next, t);
	}
	if (json_equal(next, cur) || (!cur && !json_array_size(next)))
		return 0;
	path = sk__path("/api/v1", "nodes", NULL, sk__name(node), NULL);
	patch = json_pack("{s:{s:O}}", "spec", "taints", json_array_size(next) ? next : json_null());
	out = sk_client_patch(k->ctl->c, path, SK_PATCH_MERGE, patch, &err);
	if (!out)
		return -1;
	sk_informer_write(k->ctl->nodes, out);
	return 0;
}

static int pod_on(json_t *pod, json_t *node)
{
	const char *n = sk_kube_jstr(pod, "spec.nodeName");

	return n && !strcmp(n, sk__name(node)) && !sk__pod_terminal(pod);
}

static int patch_pod_conditions(sk_controller *k, json_t *pod, json_t *status_copy)
{
	cleanup_free char *path = sk__path("/api/v1", "pods", sk__ns(pod), sk__name(pod), "status");
	cleanup_json json_t *patch = json_pack("{s:{s:O}}", "status", "conditions",
					       json_object_get(status_copy, "conditions"));
	cleanup_json json_t *out = NULL;
	sk_error_t err = {0};

	out = sk_client_patch(k->ctl->c, path, SK_PATCH_MERGE, patch, &err);
	if (!out)
		return -1;
	sk_informer_write(k->ctl->pods, out);
	return 0;
}

static void mark_pods_not_ready(sk_controller *k, json_t *node, json_t *pods)
{
	json_t *p;
	size_t i;

	json_array_foreach(pods, i, p) {
		cleanup_json json_t *st = NULL;
		json_t *c;

		if (!pod_on(p, node))
			continue;
		c = sk_kube_condition_get(json_object_get(p, "status"), "Ready");
		if (c && !strcmp(json_string_value(json_object_get(c, "status")) ?: "", "False"))
			continue;
		st = json_deep_copy(json_object_get(p, "status"));
		if (!st)
			st = json_object();
		sk__cond_set(st, "Ready", "False", NULL, NULL, 0, 0);
		c = sk_kube_condition_get(st, "Ready");
		json_object_del(c, "reason");
		json_object_del(c, "message");
		patch_pod_conditions(k, p, st);
	}
}

/* Seconds the pod tolerates taint (-1 forever, 0 not at all). */
static int64_t tolerates(sk_controller *k, json_t *pod, json_t *taint)
{
	const char *key = json_string_value(json_object_get(taint, "key"));
	json_t *t = sk_kube_tolerations_find(sk_kube_jget(pod, "spec.tolerations"), taint), *secs;

	if (t) {
		/* as upstream's getMinTolerationTime: zero or less evicts at once */
		secs = json_object_get(t, "tolerationSeconds");
		if (!json_is_integer(secs))
			return -1;
		return json_integer_value(secs) > 0 ? json_integer_value(secs) : 0;
	}
	/* upstream's DefaultTolerationSeconds admission adds these two */
	if (!strcmp(key, UNREACHABLE) || !strcmp(key, NOT_READY))
		return k->ctl->o.pod_eviction_secs;
	return 0;
}

static int evict(sk_controller *k, json_t *pod)
{
	cleanup_json json_t *st = json_deep_copy(json_object_get(pod, "status"));
	sk_error_t err = {0};

	if (!st)
		st = json_object();
	sk__cond_set(st, "DisruptionTarget", "True", "DeletionByTaintManager",
		     "Taint manager: deleting due to NoExecute taint", 0, 0);
	if (patch_pod_conditions(k, pod, st) < 0)
		return -1;
	sk_event_record(k->ctl->c, pod, "Normal", "TaintManagerEviction", "taint-eviction-controller", NULL,
			"Marking for deletion Pod %s/%s", sk__ns(pod), sk__name(pod));
	return sk__delete_pod(k->ctl, pod, &err);
}

/* Evicts pods of node per its NoExecute taints; returns the soonest
 * pending eviction (ms) or -1. */
static int64_t evictions(sk_controller *k, json_t *node, json_t *pods)
{
	int64_t now = sk__now(), soonest = -1;
	json_t *p, *t;
	size_t i, j;

	json_array_foreach(pods, i, p) {
		int64_t due = -1;

		if (!pod_on(p, node) || sk__is_deleting(p))
			continue;
		json_array_foreach(sk_kube_jget(node, "spec.taints"), j, t) {
			int64_t secs, at;

			if (strcmp(json_string_value(json_object_get(t, "effect")) ?: "", "NoExecute"))
				continue;
			secs = tolerates(k, p, t);
			if (secs < 0)
				continue;
			at = sk__jtime(t, "timeAdded", now) + secs;
			if (due < 0 || at < due)
				due = at;
		}
		if (due < 0)
			continue;
		if (due <= now)
			evict(k, p);
		else if (soonest < 0 || (due - now) * 1000 < soonest)
			soonest = (due - now) * 1000 + 100;
	}
	return soonest;
}

/* The pods by spec.nodeName ({name: [pods]}, new reference): each node's
 * checks read its own pods, not every pod of the cluster (1,000 nodes and
 * 10,000 pods made 10 million checks a tick). */
static json_t *pods_by_node(json_t *pods)
{
	json_t *by = json_object(), *p, *a;
	size_t i;

	json_array_foreach(pods, i, p) {
		const char *n = sk_kube_jstr(p, "spec.nodeName");

		if (!n || !*n)
			continue;
		a = json_object_get(by, n);
		if (!a) {
			a = json_array();
			json_object_set_new(by, n, a);
		}
		json_array_append(a, p);
	}
	return by;
}

static int sync_nodes(sk_controller *k, const char *key)
{
	cleanup_json json_t *nodes = sk_informer_list(k->ctl->nodes, NULL), *pods = NULL, *by_node = NULL;
	int64_t now = sk__now(), next = (int64_t)k->ctl->o.node_monitor_period_secs * 1000, soon;
	json_t *n;
	size_t i;

	pods = sk_informer_list(k->ctl->pods, NULL);
	by_node = pods_by_node(pods);
	json_array_foreach(nodes, i, n) {
		cleanup_json json_t *cur = NULL;
		const char *rs = ready_status(n);
		json_t *on = json_object_get(by_node, sk__name(n));

		if ((!rs || strcmp(rs, "Unknown")) && now - last_heartbeat(k, n) > k->ctl->o.node_monitor_grace_secs) {
			if (mark_unknown(k, n) == 0)
				mark_pods_not_ready(k, n, on);
		}
		cur = sk_informer_get(k->ctl->nodes, NULL, sk__name(n));
		if (!cur)
			continue;
		rs = ready_status(cur);
		sync_taints(k, cur,
			    rs && !strcmp(rs, "Unknown") ? UNREACHABLE
			    : rs && !strcmp(rs, "False") ? NOT_READY
							 : NULL);
		json_decref(cur);
		cur = sk_informer_get(k->ctl->nodes, NULL, sk__name(n));
		soon = cur && on ? evictions(k, cur, on) : -1;
		if (soon >= 0 && soon < next)
			next = soon;
	}
	if (!strcmp(key, TICK))
		sk__queue_add_after(k->q, TICK, next);
	return 0;
}

static void on_node(void *ud, int ev, json_t *old, json_t *node)
{
	sk_controller *k = ud;

	if (ev == SK_INF_DELETE)
		return;
	if (!old || !json_equal(sk_kube_jget(old, "spec.taints"), sk_kube_jget(node, "spec.taints")) ||
	    strcmp(ready_status(old) ?: "", ready_status(node) ?: ""))
		sk__queue_add(k->q, "nodes");
}

int sk__nodelifecycle_init(struct sk_ctrl *ctl, sk_error_t *err)
{
	sk_controller *k = sk__controller_add(ctl, "node-lifecycle", sync_nodes, NULL);

	sk_informer_on(ctl->nodes, on_node, k);
	sk__queue_add(k->q, TICK);
	return 0;
}
