/* The disruption controller (after pkg/controller/disruption): for every
 * PodDisruptionBudget, the pods its selector picks, how many of them are
 * expected (the pods, or the scale of their controllers), how many are
 * healthy (Ready, not being deleted, not just evicted) and so how many
 * disruptions are allowed; status.disruptedPods forgets evictions whose pod
 * was not deleted within two minutes, and such a pod's DisruptionTarget
 * condition turns False. */
#include <stdlib.h>
#include <string.h>

#include "ctrl/ctrl-int.h"
#include "ctrl/disruption.h"
#include "ctrl/rollout.h"
#include "kube/disruption.h"
#include "util/util.h"

#define PDB_PREFIX "/apis/policy/v1"
#define COMPONENT "controllermanager"

/* ---- arithmetic ---- */

int sk_disruption_needs_scale(json_t *spec)
{
	json_t *max = json_object_get(spec, "maxUnavailable"), *min = json_object_get(spec, "minAvailable");

	return (max && !json_is_null(max)) || json_is_string(min);
}

int sk_disruption_expected(json_t *spec, int64_t npods, int64_t scale, int64_t *expected, int64_t *desired,
			   sk_error_t *err)
{
	json_t *max = json_object_get(spec, "maxUnavailable"), *min = json_object_get(spec, "minAvailable");
	int64_t v;

	*expected = 0;
	*desired = 0;
	if (max && !json_is_null(max)) {
		*expected = scale;
		if (sk_rollout_scaled(max, NULL, scale, 1, &v, err) < 0)
			return -1;
		*desired = scale - v < 0 ? 0 : scale - v;
	} else if (json_is_integer(min)) {
		*desired = json_integer_value(min);
		*expected = npods;
	} else if (json_is_string(min)) {
		*expected = scale;
		if (sk_rollout_scaled(min, NULL, scale, 1, &v, err) < 0)
			return -1;
		*desired = v;
	}
	return 0;
}

int64_t sk_disruption_stale_wait(json_t *pod, int64_t now)
{
	json_t *c = sk_kube_condition_get(json_object_get(pod, "status"), "DisruptionTarget");
	const char *phase = sk_kube_jstr(pod, "status.phase");
	const char *st = json_string_value(json_object_get(c, "status"));
	const char *reason = json_string_value(json_object_get(c, "reason"));
	int64_t since = 0, wait;

	if (sk_kube_jget(pod, "metadata.deletionTimestamp") || !st || strcmp(st, "True") ||
	    (reason && !strcmp(reason, "TerminationByKubelet")) ||
	    (phase && (!strcmp(phase, "Succeeded") || !strcmp(phase, "Failed"))))
		return -1;
	sk_time_parse(json_string_value(json_object_get(c, "lastTransitionTime")), &since);
	wait = since + SK_KUBE_PDB_DELETION_TIMEOUT_SECS - now;
	return wait < 0 ? 0 : wait;
}

/* ---- the controller ---- */

typedef struct pdb_state {
	sk_informer *pdbs, *rcs, *sets;
	sk_controller *stale; /* pods whose DisruptionTarget condition may go stale */
} pdb_state;

static pdb_state *state_of(sk_controller *k) { return k->state; }

/* The pods pdb selects: none for no selector, all for an empty one
 * (metav1.LabelSelectorAsSelector). New array; -1 with err. */
static json_t *pods_for(sk_controller *k, json_t *pdb, sk_error_t *err)
{
	json_t *sel = sk_kube_jget(pdb, "spec.selector");
	cleanup_json json_t *all = NULL;
	json_t *out = json_array(), *p;
	sk_kube_label_selector *s;
	size_t i;

	if (!json_is_object(sel))
		return out;
	s = sk_kube_label_selector_from_json(sel, err);
	if (!s) {
		json_decref(out);
		return NULL;
	}
	all = sk_informer_list(k->ctl->pods, sk__ns(pdb));
	json_array_foreach(all, i, p)
		if (sk_kube_label_selector_match(s, sk_kube_jget(p, "metadata.labels")))
			json_array_append(out, p);
	sk_kube_label_selector_free(s);
	return out;
}

/* The object of inf that ref names, when its uid is ref's. Borrowed from
 * the cache's copy through *hold (caller decrefs). */
static json_t *ref_target(sk_informer *inf, const char *ns, json_t *ref, json_t **hold)
{
	const char *name = json_string_value(json_object_get(ref, "name"));
	const char *uid = json_string_value(json_object_get(ref, "uid"));

	*hold = name ? sk_informer_get(inf, ns, name) : NULL;
	if (*hold && uid && strcmp(sk__uid(*hold) ?: "", uid)) {
		json_decref(*hold);
		*hold = NULL;
	}
	return *hold;
}

/* The finders of upstream (ReplicaSet not owned by a Deployment,
 * Deployment, ReplicationController, StatefulSet; then scale_controller
 * below): the controller's uid and scale into
 * scales. 0 when none of them knows the pod's controller. */
static int find_scale(sk_controller *k, json_t *pod, json_t *ref, json_t *scales)
{
	const char *kind = json_string_value(json_object_get(ref, "kind"));
	cleanup_json json_t *rs = NULL, *dep = NULL, *rc = NULL, *ss = NULL;
	json_t *owner = NULL;

	if (kind && !strcmp(kind, "ReplicaSet") && ref_target(k->ctl->rs, sk__ns(pod), ref, &rs)) {
		json_t *dref = sk_kube_controller_ref(rs);
		const char *dk = json_string_value(json_object_get(dref, "kind"));

		owner = rs;
		if (dk && !strcmp(dk, "Deployment"))
			owner = ref_target(k->ctl->deploy, sk__ns(pod), dref, &dep);
	} else if (kind && !strcmp(kind, "ReplicationController")) {
		owner = ref_target(state_of(k)->rcs, sk__ns(pod), ref, &rc);
	} else if (kind && !strcmp(kind, "StatefulSet")) {
		owner = ref_target(state_of(k)->sets, sk__ns(pod), ref, &ss);
	}
	if (!owner)
		return 0;
	json_object_set_new(scales, sk__uid(owner), json_integer(sk__jint(owner, "spec.replicas", 1)));
	return 1;
}

/* getScaleController: any other controller through its scale subresource
 * (a custom resource whose CRD has one): 1 with its uid and spec.replicas in
 * scales, 0 when the scale is not the ref's object (gone, or another uid),
 * -1 with err when the kind is unknown or has no scale subresource. */
static int scale_controller(sk_controller *k, json_t *pod, json_t *ref, json_t *scales, sk_error_t *err)
{
	const char *av = sk_kube_jstr(ref, "apiVersion") ?: "", *slash = strchr(av, '/');
	int has_scale = 0;
	cleanup_free char *coll = sk__rest_mapping(k->ctl, av, sk_kube_jstr(ref, "kind"), sk__ns(pod), 1, &has_scale,
						   err);
	cleanup_free char *path = NULL;
	cleanup_json json_t *scale = NULL;
	sk_error_t e = {0};

	if (!coll)
		return -1;
	path = xasprintf("%s/%s/scale", coll, sk_kube_jstr(ref, "name") ?: "");
	scale = sk_client_get(k->ctl->c, path, &e);
	if (!scale) {
		if (e.code != SK_ENOTFOUND) {
			*err = e;
			return -1;
		}
		if (has_scale)
			return 0;
		/* GroupResource.String(): "<plural>.<group>", or the plural alone */
		return sk_error_set(err, SK_EINVALID, "%s%s%.*s does not implement the scale subresource",
				    strrchr(coll, '/') + 1, slash ? "." : "", slash ? (int)(slash - av) : 0, av);
	}
	if (strcmp(sk__uid(scale) ?: "", sk_kube_jstr(ref, "uid") ?: ""))
		return 0;
	json_object_set_new(scales, sk__uid(scale), json_integer(sk__jint(scale, "spec.replicas", 0)));
	return 1;
}

/* getExpectedScale: the sum of the scales of the pods' controllers;
 * *unmanaged counts pods without a controller. */
static int expected_scale(sk_controller *k, json_t *pods, int64_t *scale, int *unmanaged, sk_error_t *err)
{
	cleanup_json json_t *scales = json_object();
	const char *uid;
	json_t *p, *v;
	size_t i;

	*scale = 0;
	*unmanaged = 0;
	json_array_foreach(pods, i, p) {
		json_t *ref = sk_kube_controller_ref(p);
		const char *ruid = json_string_value(json_object_get(ref, "uid"));

		if (!ref) {
			(*unmanaged)++;
			continue;
		}
		if (ruid && json_object_get(scales, ruid))
			continue;
		if (find_scale(k, p, ref, scales))
			continue;
		switch (scale_controller(k, p, ref, scales, err)) {
		case -1:
			return -1;
		case 0:
			return sk_error_set(err, SK_EINVALID, "found no controllers for pod \"%s\"", sk__name(p));
		}
	}
	json_object_foreach(scales, uid, v)
		*scale += json_integer_value(v);
	return 0;
}

/* buildDisruptedPodMap: the entries of status.disruptedPods whose pod is
 * still there, not being deleted, and within its deletion timeout.
 * *recheck: the earliest such timeout (seconds, -1 for none). */
static json_t *disrupted_map(sk_controller *k, json_t *pdb, json_t *pods, int64_t now, int64_t *recheck)
{
	json_t *old = sk_kube_jget(pdb, "status.disruptedPods"), *out = json_object(), *p;
	size_t i;

	*recheck = -1;
	if (!json_is_object(old))
		return out;
	json_array_foreach(pods, i, p) {
		json_t *t = json_object_get(old, sk__name(p));
		int64_t since = 0, due;

		if (sk__is_deleting(p) || !json_is_string(t))
			continue;
		/* a name may hold dots: not a dotted path */
		sk_time_parse(json_string_value(t), &since);
		due = since + SK_KUBE_PDB_DELETION_TIMEOUT_SECS;
		if (due < now) {
			sk_event_record(k->ctl->c, p, "Warning", "NotDeleted", COMPONENT, NULL,
					"Pod was expected by PDB %s/%s to be deleted but it wasn't", sk__ns(pdb),
					sk__name(pdb));
			continue;
		}
		if (*recheck < 0 || due < *recheck)
			*recheck = due;
		json_object_set(out, sk__name(p), t);
	}
	return out;
}

static int64_t count_healthy(json_t *pods, json_t *disrupted)
{
	int64_t n = 0;
	json_t *p;
	size_t i;

	json_array_foreach(pods, i, p)
		if (!sk__is_deleting(p) && !json_object_get(disrupted, sk__name(p)) && sk__pod_ready(p))
			n++;
	return n;
}

static int status_same(json_t *st, json_t *want)
{
	static const char *const keys[] = {"currentHealthy", "desiredHealthy", "expectedPods", "disruptionsAllowed",
					   "observedGeneration"};
	json_t *a = json_object_get(st, "disruptedPods"), *b = json_object_get(want, "disruptedPods");

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (json_integer_value(json_object_get(st, keys[i])) !=
		    json_integer_value(json_object_get(want, keys[i])))
			return 0;
	if (json_object_size(a) != json_object_size(b) || (json_object_size(a) && !json_equal(a, b)))
		return 0;
	return sk_kube_pdb_conditions_up_to_date(st);
}

static int update_status(sk_controller *k, json_t *pdb, int64_t current, int64_t desired, int64_t expected,
			 json_t *disrupted, sk_error_t *err)
{
	cleanup_json json_t *copy = NULL, *now = sk__time_json(sk__now());
	json_t *st = json_pack(
		"{s:I, s:I, s:I, s:I, s:I}", "observedGeneration", (json_int_t)sk__jint(pdb, "metadata.generation", 0),
		"disruptionsAllowed", (json_int_t)sk_kube_pdb_allowed(current, desired, expected), "currentHealthy",
		(json_int_t)current, "desiredHealthy", (json_int_t)desired, "expectedPods", (json_int_t)expected);
	json_t *conds = sk_kube_jget(pdb, "status.conditions");

	if (json_object_size(disrupted))
		json_object_set(st, "disruptedPods", disrupted);
	if (json_is_array(conds))
		json_object_set_new(st, "conditions", json_deep_copy(conds));
	if (status_same(sk_kube_jget(pdb, "status"), st)) {
		json_decref(st);
		return 0;
	}
	sk_kube_pdb_set_allowed_condition(st, json_string_value(now));
	copy = json_deep_copy(pdb);
	json_object_set_new(copy, "status", st);
	return sk__update_status(k->ctl, state_of(k)->pdbs, PDB_PREFIX, "poddisruptionbudgets", copy, err);
}

static int try_sync(sk_controller *k, const char *key, json_t *pdb, sk_error_t *err)
{
	cleanup_json json_t *pods = pods_for(k, pdb, err), *disrupted = NULL;
	json_t *spec = json_object_get(pdb, "spec");
	int64_t expected, desired, scale = 0, recheck, now = sk__now();
	int unmanaged = 0;

	if (!pods) {
		sk_event_record(k->ctl->c, pdb, "Warning", "NoPods", COMPONENT, NULL, "Failed to get pods: %s",
				err->msg);
		return -1;
	}
	if (!json_array_size(pods))
		sk_event_record(k->ctl->c, pdb, "Normal", "NoPods", COMPONENT, NULL, "No matching pods found");
	if ((sk_disruption_needs_scale(spec) && expected_scale(k, pods, &scale, &unmanaged, err) < 0) ||
	    sk_disruption_expected(spec, (int64_t)json_array_size(pods), scale, &expected, &desired, err) < 0) {
		sk_event_record(k->ctl->c, pdb, "Warning", "CalculateExpectedPodCountFailed", COMPONENT, NULL,
				"Failed to calculate the number of expected pods: %s", err->msg);
		return -1;
	}
	if (unmanaged)
		sk_event_record(k->ctl->c, pdb, "Warning", "UnmanagedPods", COMPONENT, NULL,
				"Pods selected by this PodDisruptionBudget were found to be unmanaged. As a result, "
				"the status of the PDB cannot be calculated correctly, which may result in undefined "
				"behavior. To account for these pods please set \".spec.minAvailable\" field of the "
				"PDB to an integer value.");
	disrupted = disrupted_map(k, pdb, pods, now, &recheck);
	if (update_status(k, pdb, count_healthy(pods, disrupted), desired, expected, disrupted, err) < 0)
		return -1;
	if (recheck >= 0)
		sk__queue_add_after(k->q, key, (recheck - now) * 1000 + 100);
	return 0;
}

/* failSafe: no disruptions allowed while the budget cannot be computed. */
static void fail_safe(sk_controller *k, json_t *pdb, const char *msg)
{
	cleanup_json json_t *copy = json_deep_copy(pdb), *now = sk__time_json(sk__now());
	json_t *st = sk_kube_jobj(copy, "status");
	sk_error_t err = {0};

	json_object_set_new(st, "disruptionsAllowed", json_integer(0));
	sk_kube_pdb_set_sync_failed(st, msg, json_string_value(now));
	sk__update_status(k->ctl, state_of(k)->pdbs, PDB_PREFIX, "poddisruptionbudgets", copy, &err);
}

static int sync_pdb(sk_controller *k, const char *key)
{
	char ns[256], name[256];
	cleanup_json json_t *pdb = NULL;
	sk_error_t err = {0};

	sk__split_key(key, ns, sizeof(ns), name, sizeof(name));
	pdb = sk_informer_get(state_of(k)->pdbs, ns, name);
	if (!pdb)
		return 0;
	if (try_sync(k, key, pdb, &err) == 0)
		return 0;
	if (err.code != SK_ECONFLICT && err.code != SK_ENOTFOUND)
		fail_safe(k, pdb, err.msg);
	return -1;
}

/* Enqueues every budget of the pod's namespace whose selector picks it. */
static void enqueue_pod_pdbs(sk_controller *k, json_t *pod)
{
	cleanup_json json_t *all = sk_informer_list(state_of(k)->pdbs, sk__ns(pod));
	json_t *pdb;
	size_t i;

	json_array_foreach(all, i, pdb) {
		json_t *sel = sk_kube_jget(pdb, "spec.selector");
		sk_error_t err = {0};
		sk_kube_label_selector *s = json_is_object(sel) ? sk_kube_label_selector_from_json(sel, &err) : NULL;

		if (s && sk_kube_label_selector_match(s, sk_kube_jget(pod, "metadata.labels"))) {
			cleanup_free char *key = sk__key(pdb);

			sk__queue_add(k->q, key);
		}
		sk_kube_label_selector_free(s);
	}
}

static void on_pod(void *ud, int ev, json_t *old, json_t *pod)
{
	sk_controller *k = ud;

	if (old && old != pod)
		enqueue_pod_pdbs(k, old);
	enqueue_pod_pdbs(k, pod);
	if (ev != SK_INF_DELETE && sk_disruption_stale_wait(pod, sk__now()) >= 0) {
		cleanup_free char *key = sk__key(pod);

		sk__queue_add(state_of(k)->stale->q, key);
	}
}

/* syncStalePodDisruption: a DisruptionTarget condition whose pod was not
 * deleted within two minutes turns False. */
static int sync_stale(sk_controller *k, const char *key)
{
	char ns[256], name[256];
	cleanup_json json_t *pod = NULL, *patch = NULL, *out = NULL, *now = sk__time_json(sk__now());
	cleanup_free char *path = NULL;
	sk_error_t err = {0};
	int64_t wait;

	sk__split_key(key, ns, sizeof(ns), name, sizeof(name));
	pod = sk_informer_get(k->ctl->pods, ns, name);
	if (!pod || (wait = sk_disruption_stale_wait(pod, sk__now())) < 0)
		return 0;
	if (wait > 0) {
		sk__queue_add_after(k->q, key, wait * 1000 + 100);
		return 0;
	}
	patch = json_pack("{s:{s:s?}, s:{s:[{s:s, s:s, s:O}]}}", "metadata", "resourceVersion",
			  sk_kube_jstr(pod, "metadata.resourceVersion"), "status", "conditions", "type",
			  "DisruptionTarget", "status", "False", "lastTransitionTime", now);
	path = sk__path("/api/v1", "pods", ns, name, "status");
	out = sk_client_patch(k->ctl->c, path, "application/strategic-merge-patch+json", patch, &err);
	if (!out)
		return err.code == SK_ENOTFOUND ? 0 : -1;
	sk_informer_write(k->ctl->pods, out);
	return 0;
}

int sk__disruption_init(struct sk_ctrl *ctl, sk_error_t *err)
{
	pdb_state *st = xzalloc(sizeof(*st));
	sk_controller *k;

	(void)err;
	st->pdbs = sk__ctrl_extra(ctl, PDB_PREFIX "/poddisruptionbudgets", "policy/v1", "PodDisruptionBudget");
	st->rcs = sk__ctrl_extra(ctl, "/api/v1/replicationcontrollers", "v1", "ReplicationController");
	st->sets = sk__ctrl_extra(ctl, "/apis/apps/v1/statefulsets", "apps/v1", "StatefulSet");
	st->stale = sk__controller_add(ctl, "disruption-stale-pods", sync_stale, NULL);
	k = sk__controller_add(ctl, "disruption", sync_pdb, st);
	k->primary = st->pdbs;
	k->resync_secs = 30;
	sk_informer_on(st->pdbs, sk__enqueue_self, k);
	sk_informer_on(ctl->pods, on_pod, k);
	return 0;
}
