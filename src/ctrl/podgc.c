/* The pod garbage collector (after pkg/controller/podgc/gc_controller.go),
 * every gc period (20 s):
 *  - orphaned pods: bound to a node that does not exist. A pod is collected
 *    once its node has been missing from the cache for the quarantine time
 *    (40 s) and a GET of the node still answers 404: its status turns Failed
 *    (unless terminal) with the DisruptionTarget condition, reason
 *    DeletionByPodGC, then it is deleted with grace period 0. So a node that
 *    goes away leaves no pods, and so no endpoints, behind;
 *  - terminating pods that were never scheduled: deleted with grace 0;
 *  - terminating pods on a node that is not Ready and carries the
 *    node.kubernetes.io/out-of-service taint: Failed and deleted with grace 0;
 *  - terminated pods (Succeeded, Failed) beyond the threshold (12,500):
 *    the oldest are deleted.
 * SKIFF_PODGC_QUARANTINE and SKIFF_PODGC_PERIOD (seconds) shorten the times
 * for tests. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "ctrl/ctrl-int.h"
#include "kube/condition.h"
#include "util/util.h"

#define TICK "tick"
#define OUT_OF_SERVICE "node.kubernetes.io/out-of-service"
#define TERMINATED_THRESHOLD 12500

typedef struct podgc {
	pthread_mutex_t mu; /* one pass at a time (the queue has several workers) */
	int64_t period_ms, quarantine_ms;
	/* node name -> first time (ms) it was seen missing */
	json_t *missing;
} podgc;

static int64_t now_ms(void) { return sk_now_ns() / 1000000; }

static int64_t env_secs(const char *name, int64_t def)
{
	const char *e = getenv(name);

	return e && atoi(e) > 0 ? atoi(e) : def;
}

/* status Failed (unless terminal) with DisruptionTarget, then DELETE with grace 0 */
static int collect(sk_controller *k, json_t *pod, const char *msg)
{
	cleanup_free char *path = sk__path("/api/v1", "pods", sk__ns(pod), sk__name(pod), NULL);
	cleanup_free char *spath = sk__path("/api/v1", "pods", sk__ns(pod), sk__name(pod), "status");
	cleanup_json json_t *st = json_deep_copy(json_object_get(pod, "status")), *patch = NULL, *out = NULL;
	cleanup_json json_t *opts = json_pack("{s:s, s:s, s:i}", "kind", "DeleteOptions", "apiVersion", "v1",
					      "gracePeriodSeconds", 0);
	sk_error_t err = {0};

	if (!st)
		st = json_object();
	if (!sk__pod_terminal(pod)) {
		sk__cond_set(st, "DisruptionTarget", "True", "DeletionByPodGC", msg, 0, 0);
		patch = json_pack("{s:{s:s, s:O}}", "status", "phase", "Failed", "conditions",
				  json_object_get(st, "conditions"));
		out = sk_client_patch(k->ctl->c, spath, SK_PATCH_MERGE, patch, &err);
		if (!out && err.code != SK_ENOTFOUND)
			sk_warn("ctrl", "pod-garbage-collector: marking pod %s/%s failed: %s", sk__ns(pod),
				sk__name(pod), err.msg);
		sk_error_clear(&err);
	}
	sk_info("ctrl", "pod-garbage-collector: deleting pod %s/%s: %s", sk__ns(pod), sk__name(pod), msg);
	if (sk_client_delete(k->ctl->c, path, opts, &err) < 0 && err.code != SK_ENOTFOUND) {
		sk_warn("ctrl", "pod-garbage-collector: deleting pod %s/%s: %s", sk__ns(pod), sk__name(pod), err.msg);
		return -1;
	}
	sk_informer_forget(k->ctl->pods, pod);
	return 0;
}

static int node_gone(sk_controller *k, const char *name)
{
	cleanup_free char *path = sk__path("/api/v1", "nodes", NULL, name, NULL);
	cleanup_json json_t *n = NULL;
	sk_error_t err = {0};

	n = sk_client_get(k->ctl->c, path, &err);
	return !n && err.code == SK_ENOTFOUND;
}

static int has_taint(json_t *node, const char *key)
{
	json_t *t;
	size_t i;

	json_array_foreach(sk_kube_jget(node, "spec.taints"), i, t)
		if (!strcmp(sk_kube_jstr(t, "key") ?: "", key))
			return 1;
	return 0;
}

static int node_not_ready(json_t *node)
{
	json_t *c = sk_kube_condition_get(json_object_get(node, "status"), "Ready");

	return !c || strcmp(json_string_value(json_object_get(c, "status")) ?: "", "True");
}

static void gc_orphaned(sk_controller *k, podgc *g, json_t *pods)
{
	int64_t now = now_ms();
	cleanup_json json_t *seen = json_object();
	json_t *p;
	size_t i;

	json_array_foreach(pods, i, p) {
		const char *node = sk_kube_jstr(p, "spec.nodeName");
		cleanup_json json_t *n = NULL;
		json_t *since;

		if (!node || !*node)
			continue;
		if ((n = sk_informer_get(k->ctl->nodes, NULL, node)))
			continue;
		since = json_object_get(g->missing, node);
		if (!since) {
			since = json_integer(now);
			json_object_set_new(g->missing, node, since);
		}
		json_object_set(seen, node, since);
		if (now - json_integer_value(since) < g->quarantine_ms)
			continue;
		if (!node_gone(k, node))
			continue;
		collect(k, p, "PodGC: node no longer exists");
	}
	json_object_update(g->missing, seen);
	/* forget nodes that came back or whose pods are gone */
	{
		const char *key;
		json_t *v;
		void *tmp;

		json_object_foreach_safe(g->missing, tmp, key, v)
			if (!json_object_get(seen, key))
				json_object_del(g->missing, key);
	}
}

static void gc_terminating(sk_controller *k, json_t *pods)
{
	json_t *p;
	size_t i;

	json_array_foreach(pods, i, p) {
		const char *node = sk_kube_jstr(p, "spec.nodeName");
		cleanup_json json_t *n = NULL;

		if (!sk__is_deleting(p))
			continue;
		if (!node || !*node) {
			collect(k, p, "PodGC: the pod is terminating and was never scheduled");
			continue;
		}
		n = sk_informer_get(k->ctl->nodes, NULL, node);
		if (n && node_not_ready(n) && has_taint(n, OUT_OF_SERVICE))
			collect(k, p, "PodGC: node is out of service");
	}
}

static int by_creation(const void *a, const void *b)
{
	json_t *x = *(json_t *const *)a, *y = *(json_t *const *)b;
	int64_t tx = sk__jtime(x, "metadata.creationTimestamp", 0), ty = sk__jtime(y, "metadata.creationTimestamp", 0);

	if (tx != ty)
		return tx < ty ? -1 : 1;
	return strcmp(sk__name(x) ?: "", sk__name(y) ?: "");
}

static void gc_terminated(sk_controller *k, json_t *pods)
{
	json_t **term = NULL;
	size_t n = 0, i;
	json_t *p;

	json_array_foreach(pods, i, p) {
		if (sk__pod_terminal(p) && !sk__is_deleting(p)) {
			term = xrealloc(term, (n + 1) * sizeof(*term));
			term[n++] = p;
		}
	}
	if (n > TERMINATED_THRESHOLD) {
		qsort(term, n, sizeof(*term), by_creation);
		for (i = 0; i < n - TERMINATED_THRESHOLD; i++) {
			sk_error_t err = {0};

			sk__delete_pod(k->ctl, term[i], &err);
		}
	}
	free(term);
}

static int sync_podgc(sk_controller *k, const char *key)
{
	podgc *g = k->state;
	cleanup_json json_t *pods = NULL;

	pthread_mutex_lock(&g->mu);
	pods = sk_informer_list(k->ctl->pods, NULL);
	gc_terminated(k, pods);
	gc_orphaned(k, g, pods);
	gc_terminating(k, pods);
	pthread_mutex_unlock(&g->mu);
	if (!strcmp(key, TICK))
		sk__queue_add_after(k->q, TICK, g->period_ms);
	return 0;
}

/* A node deleted: look again once its quarantine can have passed. */
static void on_node(void *ud, int ev, json_t *old, json_t *node)
{
	sk_controller *k = ud;
	podgc *g = k->state;

	if (ev == SK_INF_DELETE)
		sk__queue_add_after(k->q, "node-deleted", g->quarantine_ms + 100);
}

static void podgc_release(void *state)
{
	podgc *g = state;

	json_decref(g->missing);
	pthread_mutex_destroy(&g->mu);
	free(g);
}

int sk__podgc_init(struct sk_ctrl *ctl, sk_error_t *err)
{
	podgc *g = xzalloc(sizeof(*g));
	sk_controller *k;

	g->period_ms = env_secs("SKIFF_PODGC_PERIOD", 20) * 1000;
	g->quarantine_ms = env_secs("SKIFF_PODGC_QUARANTINE", 40) * 1000;
	g->missing = json_object();
	pthread_mutex_init(&g->mu, NULL);
	k = sk__controller_add(ctl, "pod-garbage-collector", sync_podgc, g);
	k->release = podgc_release;
	sk_informer_on(ctl->nodes, on_node, k);
	sk__queue_add(k->q, TICK);
	return 0;
}
