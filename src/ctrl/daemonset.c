/* The DaemonSet controller (after pkg/controller/daemon): one pod per node
 * that should run it (dsutil.c's NodeShouldRunDaemonPod), created with the
 * node's name affinity so the scheduler binds it; extra pods, pods on nodes
 * that no longer qualify and failed pods (with backoff) deleted; the pod
 * template's history kept in ControllerRevisions; RollingUpdate (with
 * maxUnavailable or maxSurge) and OnDelete updates; status as upstream. */
#include <stdlib.h>
#include <string.h>

#include "ctrl/ctrl-int.h"
#include "ctrl/dsutil.h"
#include "ctrl/rollout.h"
#include "util/util.h"

#define APPS "/apis/apps/v1"
#define COMPONENT "daemonset-controller"
#define BURST_REPLICAS 250
#define BACKOFF_INITIAL_MS 1000
#define BACKOFF_MAX_MS (15 * 60 * 1000)

typedef struct ds_state {
	pthread_mutex_t mu;
	json_t *backoff; /* "uid/node" -> [next attempt ms, delay ms] */
} ds_state;

typedef struct ds_run {
	sk_controller *k;
	json_t *ds;
	const char *hash;
	json_int_t generation;
	json_t *nodes; /* names to create on */
	char err[256];
} ds_run;

static int64_t now_ms(void) { return sk_mono_ns() / 1000000; }

/* ---- event handlers ---- */

static void enqueue_matching(sk_controller *k, json_t *pod)
{
	cleanup_json json_t *all = sk_informer_list(k->ctl->ds, sk__ns(pod));
	json_t *ds;
	size_t i;

	json_array_foreach(all, i, ds) {
		sk_error_t err = {0};
		sk_kube_label_selector *sel = sk_kube_label_selector_from_json(sk_kube_jget(ds, "spec.selector"), &err);

		if (sel && sk_kube_label_selector_match(sel, sk_kube_jget(pod, "metadata.labels"))) {
			cleanup_free char *key = sk__key(ds);

			sk__queue_add(k->q, key);
		}
		sk_kube_label_selector_free(sel);
	}
}

static void on_pod(void *ud, int ev, json_t *old, json_t *pod)
{
	sk_controller *k = ud;

	if (old && old != pod)
		sk__enqueue_controller(k, old, "DaemonSet");
	if (sk_kube_controller_ref(pod))
		sk__enqueue_controller(k, pod, "DaemonSet");
	else if (ev != SK_INF_DELETE)
		enqueue_matching(k, pod);
}

static void enqueue_all(sk_controller *k)
{
	cleanup_json json_t *all = sk_informer_list(k->ctl->ds, NULL);
	json_t *ds;
	size_t i;

	json_array_foreach(all, i, ds) {
		cleanup_free char *key = sk__key(ds);

		sk__queue_add(k->q, key);
	}
}

/* The node's conditions as type -> status (heartbeats left out). */
static json_t *cond_states(json_t *node)
{
	json_t *m = json_object(), *c;
	size_t i;

	json_array_foreach(sk_kube_jget(node, "status.conditions"), i, c) {
		const char *t = json_string_value(json_object_get(c, "type"));
		json_t *st = json_object_get(c, "status");

		if (t)
			json_object_set(m, t, st ? st : json_null());
	}
	return m;
}

/* A node change matters when its labels, taints, unschedulable or the
 * status of a condition change (upstream's shouldIgnoreNodeUpdate ignores
 * heartbeats). */
static void on_node(void *ud, int ev, json_t *old, json_t *node)
{
	sk_controller *k = ud;
	static const char *const paths[] = {"metadata.labels", "spec.taints", "spec.unschedulable", NULL};

	if (ev == SK_INF_UPDATE && old && old != node) {
		cleanup_json json_t *a = cond_states(old), *b = cond_states(node);
		int changed = !json_equal(a, b);

		for (int i = 0; paths[i] && !changed; i++) {
			json_t *x = sk_kube_jget(old, paths[i]), *y = sk_kube_jget(node, paths[i]);

			if (!json_equal(x ? x : json_null(), y ? y : json_null()))
				changed = 1;
		}
		if (!changed)
			return;
	}
	enqueue_all(k);
}

static void on_revision(void *ud, int ev, json_t *old, json_t *cr)
{
	(void)ev;
	(void)old;
	sk__enqueue_controller(ud, cr, "DaemonSet");
}

/* ---- history (ControllerRevisions, history.c) ---- */

/* The current template's revision (hash set), then cleanupHistory: the
 * revisions live pods carry are kept. */
static int construct_history(sk_controller *k, json_t *ds, json_t *pods, char *hash, size_t hlen, sk_error_t *err)
{
	const sk_history_owner ho = {"DaemonSet", "daemonsets", k->ctl->ds};
	cleanup_json json_t *live = json_object();
	json_t *p;
	size_t i;

	if (sk__history_current(k->ctl, &ho, ds, hash, hlen, err) < 0)
		return -1;
	json_object_set_new(live, hash, json_true());
	json_array_foreach(pods, i, p) {
		const char *ph = sk_kube_jstr(p, "metadata.labels." SK_DS_HASH_LABEL);

		if (ph && !sk__is_deleting(p))
			json_object_set_new(live, ph, json_true());
	}
	sk__history_truncate(k->ctl, ds, live);
	return 0;
}

/* ---- pods ---- */

/* spec.templateGeneration, which apps/v1 keeps in an annotation; 0: none. */
static json_int_t template_generation(json_t *ds)
{
	json_t *ann = sk_kube_jget(ds, "metadata.annotations");
	const char *v = json_string_value(json_object_get(ann, "deprecated.daemonset.template.generation"));

	return v ? strtoll(v, NULL, 10) : 0;
}

static int pod_updated(json_t *pod, const char *hash, json_int_t gen)
{
	const char *h = sk_kube_jstr(pod, "metadata.labels." SK_DS_HASH_LABEL);
	const char *g = sk_kube_jstr(pod, "metadata.labels." SK_DS_GENERATION_LABEL);
	char buf[32];

	snprintf(buf, sizeof(buf), "%lld", (long long)gen);
	return (gen && g && !strcmp(g, buf)) || (h && !strcmp(h, hash));
}

/* Runs concurrently for distinct i (sk__slow_start): reads run, writes err. */
static int create_one(void *ud, int i, sk_error_t *err)
{
	ds_run *run = ud;
	json_t *ds = run->ds;
	const char *node = json_string_value(json_array_get(run->nodes, (size_t)i));
	cleanup_free char *gen = xasprintf("%s-", sk__name(ds));
	cleanup_free char *path = sk__path("/api/v1", "pods", sk__ns(ds), NULL, NULL);
	cleanup_json json_t *pod = sk__pod_from_template(sk_kube_jget(ds, "spec.template"),
							 sk__owner_ref(ds, "apps/v1", "DaemonSet"), sk__ns(ds), gen);
	cleanup_json json_t *out = NULL;
	json_t *labels = sk_kube_jobj(pod, "metadata.labels");
	json_t *spec = sk_kube_jobj(pod, "spec");
	char g[32];

	snprintf(g, sizeof(g), "%lld", (long long)run->generation);
	json_object_set_new(labels, SK_DS_HASH_LABEL, json_string(run->hash));
	if (run->generation)
		json_object_set_new(labels, SK_DS_GENERATION_LABEL, json_string(g));
	sk_ds_add_tolerations(spec);
	sk_ds_set_node_affinity(spec, node);
	out = sk_client_create(run->k->ctl->c, path, pod, err);
	if (!out) {
		sk_event_record(run->k->ctl->c, ds, "Warning", "FailedCreate", COMPONENT, NULL, "Error creating: %s",
				err->msg);
		return -1;
	}
	sk_informer_write(run->k->ctl->pods, out);
	sk_event_record(run->k->ctl->c, ds, "Normal", "SuccessfulCreate", COMPONENT, NULL, "Created pod: %s",
			sk__name(out));
	return 0;
}

static int delete_pods(ds_run *run, json_t *pods)
{
	json_t *p;
	size_t i;
	int rc = 0;

	json_array_foreach(pods, i, p) {
		sk_error_t err = {0};

		if (sk__delete_pod(run->k->ctl, p, &err) < 0) {
			snprintf(run->err, sizeof(run->err), "%s", err.msg);
			sk_event_record(run->k->ctl->c, run->ds, "Warning", "FailedDelete", COMPONENT, NULL,
					"Error deleting: %s", err.msg);
			rc = -1;
			continue;
		}
		sk_event_record(run->k->ctl->c, run->ds, "Normal", "SuccessfulDelete", COMPONENT, NULL,
				"Deleted pod: %s", sk__name(p));
	}
	return rc;
}

/* syncNodes: deletes, then creates in slow-start batches. */
static int sync_nodes(ds_run *run, json_t *del, json_t *create)
{
	int rc = delete_pods(run, del);
	int n = (int)json_array_size(create);
	sk_error_t err = {0};

	if (n > BURST_REPLICAS)
		n = BURST_REPLICAS;
	run->nodes = create;
	if (n && sk__slow_start(n, create_one, run, &err) != n) {
		snprintf(run->err, sizeof(run->err), "%s", err.msg);
		rc = -1;
	}
	return rc;
}

/* podByCreationTimestampAndPhase: scheduled first, then Running, then
 * oldest, then name. */
static int pod_order(const void *x, const void *y)
{
	json_t *a = *(json_t *const *)x, *b = *(json_t *const *)y;
	const char *na = sk_kube_jstr(a, "spec.nodeName"), *nb = sk_kube_jstr(b, "spec.nodeName");
	const char *pa = sk_kube_jstr(a, "status.phase"), *pb = sk_kube_jstr(b, "status.phase");
	int sa = na && *na, sb = nb && *nb;
	int ra = pa && !strcmp(pa, "Running"), rb = pb && !strcmp(pb, "Running");
	int64_t ta = sk__jtime(a, "metadata.creationTimestamp", 0), tb = sk__jtime(b, "metadata.creationTimestamp", 0);

	if (sa != sb)
		return sb - sa;
	if (ra != rb)
		return rb - ra;
	if (ta != tb)
		return ta < tb ? -1 : 1;
	return strcmp(sk__name(a), sk__name(b));
}

static void sort_pods(json_t *arr)
{
	size_t n = json_array_size(arr), i;
	json_t **v = xzalloc((n + 1) * sizeof(*v));

	for (i = 0; i < n; i++)
		v[i] = json_incref(json_array_get(arr, i));
	qsort(v, n, sizeof(*v), pod_order);
	json_array_clear(arr);
	for (i = 0; i < n; i++)
		json_array_append_new(arr, v[i]);
	free(v);
}

/* The failed-pod backoff of one node (upstream's failedPodsBackoff):
 * returns 1 when a failed pod may be deleted now, else sets *wait_ms. */
static int backoff_allows(ds_state *st, json_t *ds, const char *node, int64_t *wait_ms)
{
	cleanup_free char *key = xasprintf("%s/%s", sk__uid(ds), node);
	int64_t now = now_ms();
	json_t *e;
	int ok;

	pthread_mutex_lock(&st->mu);
	e = json_object_get(st->backoff, key);
	if (!e) {
		json_object_set_new(
			st->backoff, key,
			json_pack("[I, I]", (json_int_t)(now + BACKOFF_INITIAL_MS), (json_int_t)BACKOFF_INITIAL_MS));
		ok = 1;
	} else if (now >= json_integer_value(json_array_get(e, 0))) {
		int64_t d = json_integer_value(json_array_get(e, 1)) * 2;

		if (d > BACKOFF_MAX_MS)
			d = BACKOFF_MAX_MS;
		json_array_set_new(e, 0, json_integer(now + d));
		json_array_set_new(e, 1, json_integer(d));
		ok = 1;
	} else {
		*wait_ms = json_integer_value(json_array_get(e, 0)) - now;
		ok = 0;
	}
	pthread_mutex_unlock(&st->mu);
	return ok;
}

static int allows_surge(json_t *ds)
{
	const char *t = sk_kube_jstr(ds, "spec.updateStrategy.type");
	json_t *ms = sk_kube_jget(ds, "spec.updateStrategy.rollingUpdate.maxSurge");
	int64_t v = 0;
	sk_error_t err = {0};

	if (!t || strcmp(t, "RollingUpdate") || !ms)
		return 0;
	return sk_rollout_scaled(ms, "0", 1, 1, &v, &err) == 0 && v > 0;
}

/* podsShouldBeOnNode for one node: what to create and delete. */
static void node_plan(ds_run *run, ds_state *st, const char *node, int should_run, int should_continue, json_t *pods,
		      json_t *create, json_t *del, int64_t *wait_ms)
{
	cleanup_json json_t *running = json_array();
	json_t *p;
	size_t i;

	if (should_run && json_array_size(pods) == 0) {
		json_array_append_new(create, json_string(node));
		return;
	}
	if (!should_continue) {
		json_array_foreach(pods, i, p)
			if (!sk__is_deleting(p))
				json_array_append(del, p);
		return;
	}
	json_array_foreach(pods, i, p) {
		const char *phase = sk_kube_jstr(p, "status.phase");

		if (sk__is_deleting(p))
			continue;
		if (phase && !strcmp(phase, "Failed")) {
			int64_t w = 0;

			if (backoff_allows(st, run->ds, node, &w)) {
				sk_event_record(run->k->ctl->c, run->ds, "Warning", "FailedDaemonPod", COMPONENT, NULL,
						"Found failed daemon pod %s/%s on node %s, will try to kill it",
						sk__ns(p), sk__name(p), node);
				json_array_append(del, p);
			} else if (*wait_ms < 0 || w < *wait_ms)
				*wait_ms = w;
			continue;
		}
		json_array_append(running, p);
	}
	if (json_array_size(running) <= 1)
		return;
	sort_pods(running);
	if (allows_surge(run->ds)) {
		json_t *new_pod = NULL, *old_pod = NULL;

		json_array_foreach(running, i, p) {
			if (pod_updated(p, run->hash, run->generation)) {
				if (!new_pod) {
					new_pod = p;
					continue;
				}
			} else if (!old_pod) {
				old_pod = p;
				continue;
			}
			json_array_append(del, p);
		}
		if (new_pod && old_pod &&
		    sk__pod_available(new_pod, sk__jint(run->ds, "spec.minReadySeconds", 0), sk__now()))
			json_array_append(del, old_pod);
		return;
	}
	for (i = 1; i < json_array_size(running); i++)
		json_array_append(del, json_array_get(running, i));
}

/* ---- status ---- */

static void set_status(json_t *ds, json_int_t desired, json_int_t current, json_int_t mis, json_int_t ready,
		       json_int_t updated, json_int_t avail)
{
	json_t *st = sk_kube_jobj(ds, "status");

	json_object_set_new(st, "desiredNumberScheduled", json_integer(desired));
	json_object_set_new(st, "currentNumberScheduled", json_integer(current));
	json_object_set_new(st, "numberMisscheduled", json_integer(mis));
	json_object_set_new(st, "numberReady", json_integer(ready));
	json_object_set_new(st, "observedGeneration", json_integer(sk__jint(ds, "metadata.generation", 0)));
	if (updated)
		json_object_set_new(st, "updatedNumberScheduled", json_integer(updated));
	else
		json_object_del(st, "updatedNumberScheduled");
	if (avail)
		json_object_set_new(st, "numberAvailable", json_integer(avail));
	else
		json_object_del(st, "numberAvailable");
	if (desired - avail > 0)
		json_object_set_new(st, "numberUnavailable", json_integer(desired - avail));
	else
		json_object_del(st, "numberUnavailable");
}

/* ---- sync ---- */

/* Node name -> pods of the DaemonSet for it, terminating ones included
 * (getNodesToDaemonPods): a replacement waits until the old pod is gone. */
static json_t *pods_by_node(json_t *pods)
{
	json_t *m = json_object(), *p;
	size_t i;

	json_array_foreach(pods, i, p) {
		const char *n = sk_ds_target_node(p);
		json_t *l;

		if (!n)
			continue;
		l = json_object_get(m, n);
		if (!l) {
			l = json_array();
			json_object_set_new(m, n, l);
		}
		json_array_append(l, p);
	}
	return m;
}

static int resolve_rolling(json_t *ds, int64_t desired, int64_t *surge, int64_t *unavail)
{
	sk_error_t err = {0};
	json_t *ru = sk_kube_jget(ds, "spec.updateStrategy.rollingUpdate");

	if (sk_rollout_scaled(json_object_get(ru, "maxSurge"), "0", desired, 1, surge, &err) < 0 ||
	    sk_rollout_scaled(json_object_get(ru, "maxUnavailable"), "1", desired, 1, unavail, &err) < 0)
		return -1;
	if (*surge == 0 && *unavail == 0)
		*unavail = 1;
	return 0;
}

/* One rolling-update step (update.go rollingUpdate). */
static int rolling_update(ds_run *run, json_t *by_node, json_t *node_of, int64_t desired)
{
	cleanup_json json_t *del = json_array(), *create = json_array();
	json_int_t mrs = sk__jint(run->ds, "spec.minReadySeconds", 0);
	int64_t surge, unavail, now = sk__now();
	size_t n = json_object_size(by_node), i = 0;
	sk_ds_node_state *s;
	json_t **old_of, *pods;
	const char **names;
	const char *node;
	int rc;

	if (resolve_rolling(run->ds, desired, &surge, &unavail) < 0)
		return 0;
	s = xzalloc((n + 1) * sizeof(*s));
	old_of = xzalloc((n + 1) * sizeof(*old_of));
	names = xzalloc((n + 1) * sizeof(*names));
	json_object_foreach(by_node, node, pods) {
		json_t *p, *nobj = json_object_get(node_of, node);
		size_t j;
		int dummy;

		names[i] = node;
		s[i].ok = 1;
		json_array_foreach(pods, j, p) {
			if (sk__is_deleting(p))
				continue;
			if (pod_updated(p, run->hash, run->generation)) {
				if (s[i].has_new)
					s[i].ok = 0;
				s[i].has_new = 1;
				s[i].new_avail = sk__pod_available(p, mrs, now);
			} else {
				if (s[i].has_old)
					s[i].ok = 0;
				s[i].has_old = 1;
				s[i].old_avail = sk__pod_available(p, mrs, now);
				old_of[i] = p;
			}
		}
		if (nobj)
			sk_ds_node_should_run(run->ds, nobj, &s[i].should_run, &dummy);
		i++;
	}
	sk_ds_plan_rolling(s, n, surge, unavail);
	for (i = 0; i < n; i++) {
		if (s[i].delete_old && old_of[i])
			json_array_append(del, old_of[i]);
		if (s[i].create_new)
			json_array_append_new(create, json_string(names[i]));
	}
	free(s);
	free(old_of);
	free(names);
	rc = sync_nodes(run, del, create);
	return rc;
}

static int sync_ds(sk_controller *k, const char *key)
{
	ds_state *st = k->state;
	char ns[256], name[256], hash[32];
	cleanup_json json_t *cached = NULL, *owned = NULL, *nodes = NULL, *by_node = NULL, *ds = NULL;
	cleanup_json json_t *node_of = json_object();
	cleanup_json json_t *create = json_array(), *del = json_array();
	sk_kube_label_selector *sel;
	sk_error_t err = {0};
	ds_run run = {.k = k};
	json_int_t desired = 0, current = 0, mis = 0, ready = 0, updated = 0, avail = 0;
	json_int_t mrs;
	int64_t wait_ms = -1, now = sk__now();
	json_t *node, *p, *pods;
	const char *nname, *type;
	size_t i;
	int rc = 0;

	sk__split_key(key, ns, sizeof(ns), name, sizeof(name));
	cached = sk_informer_get(k->ctl->ds, ns, name);
	if (!cached) {
		/* forget the backoff entries of a deleted DaemonSet lazily: they
		 * are keyed by uid and expire with their delay */
		return 0;
	}
	if (sk__is_deleting(cached))
		return 0;
	sel = sk_kube_label_selector_from_json(sk_kube_jget(cached, "spec.selector"), &err);
	if (!sel)
		return 0;
	if (json_object_size(sk_kube_jget(cached, "spec.selector")) == 0) {
		sk_kube_label_selector_free(sel);
		sk_event_record(k->ctl->c, cached, "Warning", "SelectingAll", COMPONENT, NULL,
				"This daemon set is selecting all pods. A non-empty selector is required.");
		return 0;
	}
	owned = sk__claim_pods(k->ctl, cached, "apps/v1", "DaemonSet", sel);
	sk_kube_label_selector_free(sel);
	if (construct_history(k, cached, owned, hash, sizeof(hash), &err) < 0)
		return -1;
	json_decref(cached);
	cached = sk_informer_get(k->ctl->ds, ns, name);
	if (!cached)
		return 0;
	run.ds = cached;
	run.hash = hash;
	run.generation = template_generation(cached);
	mrs = sk__jint(cached, "spec.minReadySeconds", 0);
	nodes = sk_informer_list(k->ctl->nodes, NULL);
	json_array_foreach(nodes, i, node)
		json_object_set(node_of, sk__name(node), node);
	by_node = pods_by_node(owned);

	/* manage: which nodes get a pod, which pods go */
	json_array_foreach(nodes, i, node) {
		int run_here, cont;
		json_t *on;

		sk_ds_node_should_run(cached, node, &run_here, &cont);
		on = json_object_get(by_node, sk__name(node));
		node_plan(&run, st, sk__name(node), run_here, cont, on, create, del, &wait_ms);
	}
	/* pods for nodes that are gone and were never bound */
	json_object_foreach(by_node, nname, pods) {
		if (json_object_get(node_of, nname))
			continue;
		json_array_foreach(pods, i, p) {
			const char *bound = sk_kube_jstr(p, "spec.nodeName");

			if ((!bound || !*bound) && !sk__is_deleting(p))
				json_array_append(del, p);
		}
	}
	if (sync_nodes(&run, del, create) < 0)
		rc = -1;

	type = sk_kube_jstr(cached, "spec.updateStrategy.type");
	if (rc == 0 && type && !strcmp(type, "RollingUpdate")) {
		cleanup_json json_t *now_owned = sk_informer_owned(k->ctl->pods, ns, sk__uid(cached));
		cleanup_json json_t *m = pods_by_node(now_owned);
		json_int_t want = 0;

		json_array_foreach(nodes, i, node) {
			int r, c;

			sk_ds_node_should_run(cached, node, &r, &c);
			want += r;
		}
		if (rolling_update(&run, m, node_of, want) < 0)
			rc = -1;
	}

	/* status (updateDaemonSetStatus) */
	json_decref(owned);
	owned = sk_informer_owned(k->ctl->pods, ns, sk__uid(cached));
	json_decref(by_node);
	by_node = pods_by_node(owned);
	json_array_foreach(nodes, i, node) {
		int run_here, cont;
		json_t *on = json_object_get(by_node, sk__name(node)), *best = NULL;
		size_t j;

		sk_ds_node_should_run(cached, node, &run_here, &cont);
		if (run_here)
			desired++;
		if (!json_array_size(on))
			continue;
		if (!run_here) {
			mis++;
			continue;
		}
		current++;
		json_array_foreach(on, j, p) {
			if (sk__pod_terminal(p))
				continue;
			if (!best || (pod_order(&p, &best) < 0))
				best = p;
		}
		if (!best)
			continue;
		if (sk__pod_ready(best)) {
			ready++;
			if (sk__pod_available(best, mrs, now))
				avail++;
			else {
				int64_t w = (sk__pod_ready_since(best) + mrs - now) * 1000 + 100;

				if (wait_ms < 0 || w < wait_ms)
					wait_ms = w;
			}
		}
		json_array_foreach(on, j, p)
			if (!sk__pod_terminal(p) && pod_updated(p, hash, run.generation)) {
				updated++;
				break;
			}
	}
	ds = json_deep_copy(cached);
	set_status(ds, desired, current, mis, ready, updated, avail);
	if (!json_equal(json_object_get(ds, "status"), json_object_get(cached, "status")) &&
	    sk__update_status(k->ctl, k->ctl->ds, APPS, "daemonsets", ds, &err) < 0 && err.code != SK_ENOTFOUND)
		return -1;
	if (wait_ms >= 0)
		sk__queue_add_after(k->q, key, wait_ms);
	return rc;
}

static void ds_release(void *state)
{
	ds_state *st = state;

	json_decref(st->backoff);
	pthread_mutex_destroy(&st->mu);
	free(st);
}

int sk__daemonset_init(struct sk_ctrl *ctl, sk_error_t *err)
{
	ds_state *st = xzalloc(sizeof(*st));
	sk_controller *k = sk__controller_add(ctl, "daemonset", sync_ds, st);

	(void)err;
	pthread_mutex_init(&st->mu, NULL);
	st->backoff = json_object();
	k->release = ds_release;
	k->primary = ctl->ds;
	k->resync_secs = 30;
	sk_informer_on(ctl->ds, sk__enqueue_self, k);
	sk_informer_on(ctl->pods, on_pod, k);
	sk_informer_on(ctl->nodes, on_node, k);
	sk_informer_on(ctl->crevs, on_revision, k);
	return 0;
}
