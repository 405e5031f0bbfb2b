/* The StatefulSet controller (after pkg/controller/statefulset): pods with
 * stable identities <set>-<ordinal> (hostname, subdomain = serviceName,
 * pod-name and pod-index labels) and one PersistentVolumeClaim per claim
 * template and ordinal, created before the pod; OrderedReady (one pod at a
 * time, in ordinal order, each waiting for its predecessors to be Running
 * and Ready, scale down from the highest ordinal) or Parallel management;
 * the template's history in ControllerRevisions (history.c); RollingUpdate
 * with partition and maxUnavailable, or OnDelete; the claims' owners as
 * persistentVolumeClaimRetentionPolicy asks; status as upstream. */
#include <stdlib.h>
#include <string.h>

#include "ctrl/ctrl-int.h"
#include "ctrl/stsutil.h"
#include "ctrl/rollout.h"
#include "util/util.h"

#define APPS "/apis/apps/v1"
#define COMPONENT "statefulset-controller"
/* replica slots looked at past the highest existing pod in one sync (a
 * replicas of two billion costs a sync per BURST pods, not the memory) */
#define BURST 500

typedef struct sts_state {
	sk_informer *sets, *claims;
} sts_state;

/* One sync of one StatefulSet. */
typedef struct sts_run {
	sk_controller *k;
	sts_state *st;
	json_t *set;          /* cached, read-only */
	char update_rev[320]; /* revision names */
	char current_rev[320];
	json_t *current_tmpl;    /* the current revision's template (owned) */
	int64_t start, replicas; /* ordinals [start, start + replicas) */
	int64_t slots;           /* the first slots of them this sync looks at */
	json_t **pods;           /* slots (borrowed from owned) */
	json_t *condemned;       /* pods beyond the range, highest ordinal first */
	int monotonic;           /* OrderedReady */
	int64_t min_ready, wait_ms;
} sts_run;

/* ---- event handlers ---- */

static void enqueue_matching(sk_controller *k, json_t *pod)
{
	sts_state *st = k->state;
	cleanup_json json_t *all = sk_informer_list(st->sets, sk__ns(pod));
	json_t *set;
	size_t i;

	json_array_foreach(all, i, set) {
		sk_error_t err = {0};
		sk_kube_label_selector *sel = sk_kube_label_selector_from_json(sk_kube_jget(set, "spec.selector"),
									       &err);

		if (sel && sk_kube_label_selector_match(sel, sk_kube_jget(pod, "metadata.labels"))) {
			cleanup_free char *key = sk__key(set);

			sk__queue_add(k->q, key);
		}
		sk_kube_label_selector_free(sel);
	}
}

static void on_pod(void *ud, int ev, json_t *old, json_t *pod)
{
	sk_controller *k = ud;

	if (old && old != pod)
		sk__enqueue_controller(k, old, "StatefulSet");
	if (sk_kube_controller_ref(pod))
		sk__enqueue_controller(k, pod, "StatefulSet");
	else if (ev != SK_INF_DELETE)
		enqueue_matching(k, pod);
}

static void on_revision(void *ud, int ev, json_t *old, json_t *cr)
{
	(void)ev;
	(void)old;
	sk__enqueue_controller(ud, cr, "StatefulSet");
}

/* A claim that goes away may block or free an ordinal: its set looks again. */
static void on_claim(void *ud, int ev, json_t *old, json_t *claim)
{
	sk_controller *k = ud;
	json_t *refs = sk_kube_jget(claim, "metadata.ownerReferences"), *r;
	size_t i;

	(void)old;
	if (ev != SK_INF_DELETE && !sk__is_deleting(claim))
		return;
	json_array_foreach(refs, i, r) {
		const char *kind = json_string_value(json_object_get(r, "kind"));
		const char *name = json_string_value(json_object_get(r, "name"));

		if (kind && name && !strcmp(kind, "StatefulSet")) {
			cleanup_free char *key = xasprintf("%s/%s", sk__ns(claim), name);

			sk__queue_add(k->q, key);
		}
	}
}

/* ---- health ---- */

static int running_ready(json_t *pod)
{
	const char *phase = sk_kube_jstr(pod, "status.phase");

	return phase && !strcmp(phase, "Running") && sk__pod_ready(pod);
}

/* isHealthy with minReadySeconds: running, ready long enough, not going. */
static int healthy(sts_run *r, json_t *pod)
{
	int64_t now = sk__now();

	if (!pod || sk__is_deleting(pod) || !running_ready(pod))
		return 0;
	if (sk__pod_available(pod, r->min_ready, now))
		return 1;
	{
		int64_t w = (sk__pod_ready_since(pod) + r->min_ready - now) * 1000 + 100;

		if (r->wait_ms < 0 || w < r->wait_ms)
			r->wait_ms = w;
	}
	return 0;
}

static const char *pod_revision(json_t *pod) { return sk_kube_jstr(pod, "metadata.labels." SK_STS_REVISION_LABEL); }

/* ---- claims ---- */

/* The owner references a claim should carry: those of others, plus the set
 * or the pod as the retention policy says. New reference. */
static json_t *claim_refs(sts_run *r, json_t *claim, json_t *pod, int condemned)
{
	json_t *refs = json_array(), *x;
	enum sk_sts_claim_owner who = sk_sts_claim_owner(r->set, condemned);
	size_t i;

	json_array_foreach(sk_kube_jget(claim, "metadata.ownerReferences"), i, x) {
		const char *uid = json_string_value(json_object_get(x, "uid"));

		if (uid && (!strcmp(uid, sk__uid(r->set)) || (pod && !strcmp(uid, sk__uid(pod)))))
			continue;
		json_array_append(refs, x);
	}
	if (who == SK_STS_CLAIM_SET)
		json_array_append_new(refs, json_pack("{s:s, s:s, s:s, s:s}", "apiVersion", "apps/v1", "kind",
						      "StatefulSet", "name", sk__name(r->set), "uid", sk__uid(r->set)));
	else if (who == SK_STS_CLAIM_POD && pod)
		json_array_append_new(refs, json_pack("{s:s, s:s, s:s, s:s}", "apiVersion", "v1", "kind", "Pod", "name",
						      sk__name(pod), "uid", sk__uid(pod)));
	return refs;
}

/* updatePVCClaimRetention for one claim: patches its ownerReferences when
 * they differ from what the policy asks. */
static int claim_retention(sts_run *r, json_t *claim, json_t *pod, int condemned, sk_error_t *err)
{
	cleanup_json json_t *want = claim_refs(r, claim, pod, condemned), *patch = NULL, *out = NULL;
	json_t *have = sk_kube_jget(claim, "metadata.ownerReferences");
	cleanup_free char *path = NULL;

	if (json_equal(want, have ? have : json_array()) || (!have && !json_array_size(want)))
		return 0;
	if (sk__is_deleting(claim))
		return 0;
	path = sk__path("/api/v1", "persistentvolumeclaims", sk__ns(claim), sk__name(claim), NULL);
	patch = json_pack("{s:{s:O, s:O}}", "metadata", "ownerReferences", json_array_size(want) ? want : json_null(),
			  "resourceVersion", sk_kube_jget(claim, "metadata.resourceVersion"));
	out = sk_client_patch(r->k->ctl->c, path, "application/merge-patch+json", patch, err);
	if (!out)
		return -1;
	sk_informer_write(r->st->claims, out);
	return 0;
}

/* A claim of ordinal ord from template t (getPersistentVolumeClaims): the
 * template's metadata and spec, the selector's matchLabels added. */
static json_t *new_claim(sts_run *r, json_t *t, const char *name)
{
	json_t *spec = json_deep_copy(sk_kube_jget(t, "spec"));
	json_t *claim = json_pack("{s:s, s:s, s:{s:s, s:s}, s:o}", "apiVersion", "v1", "kind", "PersistentVolumeClaim",
				  "metadata", "name", name, "namespace", sk__ns(r->set), "spec",
				  json_is_object(spec) ? spec : (json_decref(spec), json_object()));
	json_t *meta = json_object_get(claim, "metadata");
	json_t *labels = json_deep_copy(sk_kube_jget(t, "metadata.labels")), *ann;
	json_t *ml = sk_kube_jget(r->set, "spec.selector.matchLabels");

	if (!json_is_object(labels)) {
		json_decref(labels);
		labels = json_object();
	}
	if (json_is_object(ml))
		json_object_update(labels, ml);
	if (json_object_size(labels))
		json_object_set(meta, "labels", labels);
	json_decref(labels);
	if ((ann = sk_kube_jget(t, "metadata.annotations")) && json_is_object(ann))
		json_object_set(meta, "annotations", ann);
	return claim;
}

/* createMissingPersistentVolumeClaims (and their retention) for ordinal
 * ord; pod is the pod of that ordinal or NULL. -1 with err when a claim
 * cannot be made or is still being deleted. */
static int ensure_claims(sts_run *r, int64_t ord, json_t *pod, int condemned, sk_error_t *err)
{
	json_t *t;
	size_t i;

	json_array_foreach(sk_kube_jget(r->set, "spec.volumeClaimTemplates"), i, t) {
		cleanup_free char *name = sk_sts_claim_name(sk_kube_jstr(t, "metadata.name"), sk__name(r->set), ord);
		cleanup_json json_t *have = sk_informer_get(r->st->claims, sk__ns(r->set), name);
		cleanup_json json_t *claim = NULL, *out = NULL;
		cleanup_free char *path = NULL;

		if (have) {
			if (sk__is_deleting(have))
				return sk_error_set(err, SK_ECONFLICT, "pvc %s is being deleted", name);
			if (claim_retention(r, have, pod, condemned, err) < 0)
				return -1;
			continue;
		}
		if (condemned)
			continue;
		claim = new_claim(r, t, name);
		json_object_set_new(json_object_get(claim, "metadata"), "ownerReferences",
				    claim_refs(r, claim, pod, 0));
		if (!json_array_size(sk_kube_jget(claim, "metadata.ownerReferences")))
			json_object_del(json_object_get(claim, "metadata"), "ownerReferences");
		path = sk__path("/api/v1", "persistentvolumeclaims", sk__ns(r->set), NULL, NULL);
		out = sk_client_create(r->k->ctl->c, path, claim, err);
		if (!out && err->code != SK_EEXISTS) {
			sk_event_record(r->k->ctl->c, r->set, "Warning", "FailedCreate", COMPONENT, NULL,
					"create Claim %s for Pod %s-%lld in StatefulSet %s failed error: %s", name,
					sk__name(r->set), (long long)ord, sk__name(r->set), err->msg);
			return -1;
		}
		memset(err, 0, sizeof(*err));
		if (out) {
			sk_informer_write(r->st->claims, out);
			sk_event_record(r->k->ctl->c, r->set, "Normal", "SuccessfulCreate", COMPONENT, NULL,
					"create Claim %s Pod %s-%lld in StatefulSet %s success", name, sk__name(r->set),
					(long long)ord, sk__name(r->set));
		}
	}
	return 0;
}

/* ---- pods ---- */

/* The volume of claim template t in the pod spec: replaced or added. */
static void set_claim_volume(json_t *spec, const char *tmpl, const char *claim)
{
	json_t *vols = json_object_get(spec, "volumes"), *v;
	json_t *nv = json_pack("{s:s, s:{s:s}}", "name", tmpl, "persistentVolumeClaim", "claimName", claim);
	size_t i;

	if (!json_is_array(vols)) {
		vols = json_array();
		json_object_set_new(spec, "volumes", vols);
	}
	json_array_foreach(vols, i, v) {
		const char *n = json_string_value(json_object_get(v, "name"));

		if (n && !strcmp(n, tmpl)) {
			json_array_set_new(vols, i, nv);
			return;
		}
	}
	json_array_append_new(vols, nv);
}

/* newVersionedStatefulSetPod: the pod of ordinal ord at the revision it
 * takes, with its identity and storage. New reference. */
static json_t *new_pod(sts_run *r, int64_t ord)
{
	int upd = sk_sts_takes_update(r->set, ord) || !r->current_tmpl;
	json_t *tmpl = upd ? sk_kube_jget(r->set, "spec.template") : r->current_tmpl;
	cleanup_free char *name = xasprintf("%s-%lld", sk__name(r->set), (long long)ord);
	json_t *pod = sk__pod_from_template(tmpl, sk__owner_ref(r->set, "apps/v1", "StatefulSet"), sk__ns(r->set), "");
	json_t *meta = json_object_get(pod, "metadata"), *labels = sk_kube_jobj(pod, "metadata.labels");
	json_t *spec = sk_kube_jobj(pod, "spec"), *t;
	const char *svc = sk_kube_jstr(r->set, "spec.serviceName");
	char idx[32];
	size_t i;

	json_object_del(meta, "generateName");
	json_object_set_new(meta, "name", json_string(name));
	snprintf(idx, sizeof(idx), "%lld", (long long)ord);
	json_object_set_new(labels, SK_STS_POD_NAME_LABEL, json_string(name));
	json_object_set_new(labels, SK_STS_POD_INDEX_LABEL, json_string(idx));
	json_object_set_new(labels, SK_STS_REVISION_LABEL, json_string(upd ? r->update_rev : r->current_rev));
	json_object_set_new(spec, "hostname", json_string(name));
	if (svc && *svc)
		json_object_set_new(spec, "subdomain", json_string(svc));
	json_array_foreach(sk_kube_jget(r->set, "spec.volumeClaimTemplates"), i, t) {
		const char *tn = sk_kube_jstr(t, "metadata.name");
		cleanup_free char *claim = sk_sts_claim_name(tn, sk__name(r->set), ord);

		if (tn)
			set_claim_volume(spec, tn, claim);
	}
	return pod;
}

static int create_pod(sts_run *r, int64_t ord)
{
	cleanup_json json_t *pod = new_pod(r, ord), *out = NULL;
	cleanup_free char *path = sk__path("/api/v1", "pods", sk__ns(r->set), NULL, NULL);
	sk_error_t err = {0};

	if (ensure_claims(r, ord, NULL, 0, &err) < 0) {
		sk_event_record(r->k->ctl->c, r->set, "Warning", "FailedCreate", COMPONENT, NULL,
				"create Pod %s in StatefulSet %s failed error: %s", sk__name(pod), sk__name(r->set),
				err.msg);
		return -1;
	}
	out = sk_client_create(r->k->ctl->c, path, pod, &err);
	if (!out) {
		if (err.code == SK_EEXISTS)
			return 0;
		sk_event_record(r->k->ctl->c, r->set, "Warning", "FailedCreate", COMPONENT, NULL,
				"create Pod %s in StatefulSet %s failed error: %s", sk__name(pod), sk__name(r->set),
				err.msg);
		return -1;
	}
	sk_informer_write(r->k->ctl->pods, out);
	sk_event_record(r->k->ctl->c, r->set, "Normal", "SuccessfulCreate", COMPONENT, NULL,
			"create Pod %s in StatefulSet %s successful", sk__name(out), sk__name(r->set));
	return 0;
}

static int delete_pod(sts_run *r, json_t *pod)
{
	sk_error_t err = {0};

	if (sk__delete_pod(r->k->ctl, pod, &err) < 0 && err.code != SK_ENOTFOUND) {
		sk_event_record(r->k->ctl->c, r->set, "Warning", "FailedDelete", COMPONENT, NULL,
				"delete Pod %s in StatefulSet %s failed error: %s", sk__name(pod), sk__name(r->set),
				err.msg);
		return -1;
	}
	sk_event_record(r->k->ctl->c, r->set, "Normal", "SuccessfulDelete", COMPONENT, NULL,
			"delete Pod %s in StatefulSet %s successful", sk__name(pod), sk__name(r->set));
	return 0;
}

/* ---- the replicas ---- */

/* Sorts owned pods into the replica slots and the condemned (highest
 * ordinal first); pods whose names carry no ordinal of the set are left
 * alone, as upstream's. */
static void split_pods(sts_run *r, json_t *owned)
{
	json_t *p;
	size_t i;
	int64_t top = -1;

	json_array_foreach(owned, i, p) {
		int64_t ord = sk_sts_ordinal(sk__name(r->set), sk__name(p));

		if (ord >= r->start && ord - r->start < r->replicas && ord - r->start > top)
			top = ord - r->start;
	}
	r->slots = r->replicas < top + 1 + BURST ? r->replicas : top + 1 + BURST;
	r->pods = xzalloc((size_t)(r->slots + 1) * sizeof(*r->pods));
	r->condemned = json_array();
	json_array_foreach(owned, i, p) {
		int64_t ord = sk_sts_ordinal(sk__name(r->set), sk__name(p));

		if (ord < 0)
			continue;
		if (ord >= r->start && ord - r->start < r->replicas)
			r->pods[ord - r->start] = p;
		else
			json_array_append(r->condemned, p);
	}
	/* highest ordinal first */
	for (i = 1; i < json_array_size(r->condemned); i++)
		for (size_t j = i; j > 0; j--) {
			json_t *a = json_array_get(r->condemned, j - 1), *b = json_array_get(r->condemned, j);

			if (sk_sts_ordinal(sk__name(r->set), sk__name(a)) >=
			    sk_sts_ordinal(sk__name(r->set), sk__name(b)))
				break;
			json_incref(a);
			json_array_set(r->condemned, j - 1, b);
			json_array_set_new(r->condemned, j, a);
		}
}

/* processReplica for every slot in order. Returns 1 when the sync should
 * stop here (monotonic wait), 0 to go on, -1 on a failed write. */
static int process_replicas(sts_run *r)
{
	int rc = 0;

	for (int64_t i = 0; i < r->slots; i++) {
		json_t *pod = r->pods[i];
		const char *phase = sk_kube_jstr(pod, "status.phase");

		if (pod && !sk__is_deleting(pod) && phase &&
		    (!strcmp(phase, "Failed") || !strcmp(phase, "Succeeded"))) {
			/* a failed pod is deleted and made again */
			if (delete_pod(r, pod) < 0)
				return -1;
			if (r->monotonic)
				return 1;
			continue;
		}
		if (!pod) {
			if (create_pod(r, r->start + i) < 0) {
				rc = -1;
				if (r->monotonic)
					return -1;
				continue;
			}
			if (r->monotonic)
				return 1;
			continue;
		}
		if (sk__is_deleting(pod)) {
			if (r->monotonic)
				return 1;
			continue;
		}
		{
			sk_error_t err = {0};

			if (ensure_claims(r, r->start + i, pod, 0, &err) < 0)
				rc = -1;
		}
		if (!healthy(r, pod) && r->monotonic)
			return 1;
	}
	return rc;
}

/* processCondemned, highest ordinal first: the claims change owner when
 * whenScaled asks, then the pod goes; OrderedReady one at a time, only
 * after every other pod is healthy (or when it is the first unhealthy). */
static int process_condemned(sts_run *r)
{
	json_t *p, *first_unhealthy = NULL;
	size_t i, n = json_array_size(r->condemned);

	for (int64_t j = 0; j < r->slots && !first_unhealthy; j++)
		if (!healthy(r, r->pods[j]))
			first_unhealthy = r->pods[j] ? r->pods[j] : json_null();
	for (i = n; i > 0 && !first_unhealthy; i--)
		if (!healthy(r, json_array_get(r->condemned, i - 1)))
			first_unhealthy = json_array_get(r->condemned, i - 1);
	json_array_foreach(r->condemned, i, p) {
		sk_error_t err = {0};

		if (sk__is_deleting(p)) {
			if (r->monotonic)
				return 1;
			continue;
		}
		if (r->monotonic && !healthy(r, p) && p != first_unhealthy)
			return 1;
		if (ensure_claims(r, sk_sts_ordinal(sk__name(r->set), sk__name(p)), p, 1, &err) < 0)
			return -1;
		if (delete_pod(r, p) < 0)
			return -1;
		if (r->monotonic)
			return 1;
	}
	return 0;
}

/* One rolling-update step (RollingUpdate only). */
static int rolling_update(sts_run *r)
{
	json_t *ru = sk_kube_jget(r->set, "spec.updateStrategy.rollingUpdate");
	json_t *mu = json_object_get(ru, "maxUnavailable");
	int64_t partition = json_integer_value(json_object_get(ru, "partition")), max_unavail = -1;
	sk_sts_slot *s = xzalloc((size_t)(r->slots + 1) * sizeof(*s));
	int rc = 0;

	if (mu) {
		sk_error_t err = {0};

		if (sk_rollout_scaled(mu, "1", r->replicas, 0, &max_unavail, &err) < 0 || max_unavail < 1)
			max_unavail = 1;
	}
	for (int64_t i = 0; i < r->slots; i++) {
		json_t *p = r->pods[i];
		const char *rev = pod_revision(p);

		s[i].exists = p != NULL;
		s[i].updated = rev && !strcmp(rev, r->update_rev);
		s[i].healthy = healthy(r, p);
		s[i].terminating = p && sk__is_deleting(p);
	}
	sk_sts_plan_update(s, (int)r->slots, (int)(partition > r->slots ? r->slots : partition), max_unavail);
	for (int64_t i = r->slots - 1; i >= 0; i--)
		if (s[i].delete &&delete_pod(r, r->pods[i]) < 0)
			rc = -1;
	free(s);
	return rc;
}

/* ---- revisions ---- */

/* Sets the update revision (the template's) and the current one (the
 * status's while it still exists, else the update revision). */
static int revisions(sts_run *r, json_t *owned, sk_error_t *err)
{
	const sk_history_owner ho = {"StatefulSet", "statefulsets", r->st->sets};
	const char *cur = sk_kube_jstr(r->set, "status.currentRevision");
	char hash[32];
	cleanup_json json_t *live = json_object();
	cleanup_free char *cur_path = NULL;
	json_t *p;
	size_t i;

	if (sk__history_current(r->k->ctl, &ho, r->set, hash, sizeof(hash), err) < 0)
		return -1;
	snprintf(r->update_rev, sizeof(r->update_rev), "%s-%s", sk__name(r->set), hash);
	snprintf(r->current_rev, sizeof(r->current_rev), "%s", r->update_rev);
	if (cur && *cur && strcmp(cur, r->update_rev)) {
		cleanup_json json_t *cr = sk_informer_get(r->k->ctl->crevs, sk__ns(r->set), cur);
		json_t *ref = cr ? sk_kube_controller_ref(cr) : NULL;
		const char *uid = ref ? json_string_value(json_object_get(ref, "uid")) : NULL;

		if (uid && !strcmp(uid, sk__uid(r->set)) && (r->current_tmpl = sk__history_template(cr)))
			snprintf(r->current_rev, sizeof(r->current_rev), "%s", cur);
	}
	json_object_set_new(live, r->update_rev, json_true());
	json_object_set_new(live, r->current_rev, json_true());
	json_array_foreach(owned, i, p)
		if (pod_revision(p))
			json_object_set_new(live, pod_revision(p), json_true());
	sk__history_truncate(r->k->ctl, r->set, live);
	return 0;
}

/* ---- status ---- */

/* computeReplicaStatus over the set's pods now, completeRollingUpdate,
 * and the write when anything changed. */
static int update_status(sts_run *r, sk_error_t *err)
{
	cleanup_json json_t *owned = sk_informer_owned(r->k->ctl->pods, sk__ns(r->set), sk__uid(r->set));
	cleanup_json json_t *set = NULL;
	json_int_t replicas = 0, ready = 0, avail = 0, current = 0, updated = 0;
	int64_t now = sk__now();
	json_t *p, *st;
	size_t i;
	const char *type = sk_kube_jstr(r->set, "spec.updateStrategy.type");

	json_array_foreach(owned, i, p) {
		const char *rev = pod_revision(p);

		if (sk_sts_ordinal(sk__name(r->set), sk__name(p)) < 0)
			continue;
		replicas++;
		if (running_ready(p)) {
			ready++;
			if (sk__pod_available(p, r->min_ready, now))
				avail++;
		}
		if (!sk__is_deleting(p) && rev) {
			current += !strcmp(rev, r->current_rev);
			updated += !strcmp(rev, r->update_rev);
		}
	}
	set = json_deep_copy(r->set);
	st = sk_kube_jobj(set, "status");
	json_object_set_new(st, "observedGeneration", json_integer(sk__jint(set, "metadata.generation", 0)));
	json_object_set_new(st, "replicas", json_integer(replicas));
	json_object_set_new(st, "readyReplicas", json_integer(ready));
	json_object_set_new(st, "availableReplicas", json_integer(avail));
	json_object_set_new(st, "currentReplicas", json_integer(current));
	json_object_set_new(st, "updatedReplicas", json_integer(updated));
	json_object_set_new(st, "currentRevision", json_string(r->current_rev));
	json_object_set_new(st, "updateRevision", json_string(r->update_rev));
	if (!sk_kube_jget(r->set, "status.collisionCount"))
		json_object_set_new(st, "collisionCount", json_integer(0));
	/* completeRollingUpdate: over the pods there are, as upstream's */
	if (type && !strcmp(type, "RollingUpdate") && updated == replicas && ready == replicas) {
		json_object_set_new(st, "currentReplicas", json_integer(updated));
		json_object_set_new(st, "currentRevision", json_string(r->update_rev));
	}
	if (json_equal(st, sk_kube_jget(r->set, "status")))
		return 0;
	if (sk__update_status(r->k->ctl, r->st->sets, APPS, "statefulsets", set, err) < 0 && err->code != SK_ENOTFOUND)
		return -1;
	return 0;
}

/* ---- sync ---- */

static int sync_set(sts_run *r, json_t *owned)
{
	const char *type = sk_kube_jstr(r->set, "spec.updateStrategy.type");
	int rc;

	split_pods(r, owned);
	rc = process_replicas(r);
	if (rc == 0 && r->slots < r->replicas)
		r->wait_ms = 0; /* the next slots on the next sync */
	if (rc == 0)
		rc = process_condemned(r);
	if (rc == 0 && type && !strcmp(type, "RollingUpdate"))
		rc = rolling_update(r);
	return rc < 0 ? -1 : 0;
}

static int sync_sts(sk_controller *k, const char *key)
{
	sts_state *st = k->state;
	char ns[256], name[256];
	cleanup_json json_t *cached = NULL, *owned = NULL;
	sk_kube_label_selector *sel;
	sk_error_t err = {0};
	sts_run r = {.k = k, .st = st, .wait_ms = -1};
	int rc;

	sk__split_key(key, ns, sizeof(ns), name, sizeof(name));
	cached = sk_informer_get(st->sets, ns, name);
	if (!cached || sk__is_deleting(cached))
		return 0;
	sel = sk_kube_label_selector_from_json(sk_kube_jget(cached, "spec.selector"), &err);
	if (!sel)
		return 0;
	owned = sk__claim_pods(k->ctl, cached, "apps/v1", "StatefulSet", sel);
	sk_kube_label_selector_free(sel);
	r.set = cached;
	if (revisions(&r, owned, &err) < 0)
		return -1;
	/* the history may have written status.collisionCount */
	json_decref(cached);
	cached = sk_informer_get(st->sets, ns, name);
	if (!cached) {
		json_decref(r.current_tmpl);
		return 0;
	}
	r.set = cached;
	r.start = sk_sts_start(cached);
	r.replicas = sk__jint(cached, "spec.replicas", 1);
	if (r.replicas < 0)
		r.replicas = 0;
	r.monotonic = !sk_kube_jstr(cached, "spec.podManagementPolicy") ||
		      strcmp(sk_kube_jstr(cached, "spec.podManagementPolicy"), "Parallel");
	r.min_ready = sk__jint(cached, "spec.minReadySeconds", 0);
	rc = sync_set(&r, owned);
	if (update_status(&r, &err) < 0)
		rc = -1;
	if (r.wait_ms >= 0)
		sk__queue_add_after(k->q, key, r.wait_ms);
	free(r.pods);
	json_decref(r.condemned);
	json_decref(r.current_tmpl);
	return rc;
}

int sk__statefulset_init(struct sk_ctrl *ctl, sk_error_t *err)
{
	sts_state *st = xzalloc(sizeof(*st));
	sk_controller *k = sk__controller_add(ctl, "statefulset", sync_sts, st);

	(void)err;
	st->sets = sk__ctrl_extra(ctl, APPS "/statefulsets", "apps/v1", "StatefulSet");
	st->claims = sk__ctrl_extra(ctl, "/api/v1/persistentvolumeclaims", "v1", "PersistentVolumeClaim");
	k->primary = st->sets;
	k->resync_secs = 30;
	sk_informer_on(st->sets, sk__enqueue_self, k);
	sk_informer_on(ctl->pods, on_pod, k);
	sk_informer_on(ctl->crevs, on_revision, k);
	sk_informer_on(st->claims, on_claim, k);
	return 0;
}
