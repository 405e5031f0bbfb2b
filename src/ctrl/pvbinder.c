/* The PersistentVolume controller (after pkg/controller/volume/persistentvolume
 * pv_controller.go, and the pvc/pv protection controllers): binds claims to
 * volumes (kube/volume.h chooses the volume), keeps both phases, releases a
 * volume whose claim is gone and reclaims it (Retain: it stays Released;
 * Delete: the object is deleted, or for a provisioned volume its provisioner
 * deletes it), hands claims of a class with a provisioner to that
 * provisioner (the volume.kubernetes.io/storage-provisioner annotation; for
 * WaitForFirstConsumer only once the scheduler chose a node), and removes
 * the protection finalizers once a claim is no longer used by a pod and a
 * volume is no longer bound. It also creates the default StorageClass
 * "local-path" at start. Keys: "c/<ns>/<name>" for claims, "v/<name>" for
 * volumes. */
#include <string.h>

#include "ctrl/ctrl-int.h"
#include "kube/volume.h"
#include "util/util.h"

#define COMPONENT "persistentvolume-controller"
#define LOCAL_PATH_CLASS "local-path"
#define LOCAL_PATH_PROVISIONER "rancher.io/local-path"

typedef struct pvb {
	sk_informer *pvs, *pvcs, *classes;
} pvb;

static bool str_same(const char *a, const char *b) { return a && b && !strcmp(a, b); }

static const char *ann(json_t *obj, const char *key)
{
	return json_string_value(json_object_get(sk_kube_jget(obj, "metadata.annotations"), key));
}

static void set_ann(json_t *obj, const char *key, const char *val)
{
	json_t *meta = json_object_get(obj, "metadata");
	json_t *a = json_object_get(meta, "annotations");

	if (!json_is_object(a)) {
		a = json_object();
		json_object_set_new(meta, "annotations", a);
	}
	json_object_set_new(a, key, json_string(val));
}

static void enqueue_claim(sk_controller *k, const char *ns, const char *name)
{
	cleanup_free char *key = xasprintf("c/%s/%s", ns, name);

	if (ns && name)
		sk__queue_add(k->q, key);
}

static void enqueue_volume(sk_controller *k, const char *name)
{
	cleanup_free char *key = xasprintf("v/%s", name);

	if (name)
		sk__queue_add(k->q, key);
}

static void record(sk_controller *k, json_t *obj, const char *type, const char *reason, const char *msg)
{
	sk_event_record(k->ctl->c, obj, type, reason, COMPONENT, NULL, "%s", msg);
}

/* Writes obj (a copy the caller owns) through PUT, or its /status. */
static int put(sk_controller *k, sk_informer *inf, const char *plural, json_t *obj, const char *sub)
{
	cleanup_free char *path = sk__path("/api/v1", plural, sk__ns(obj), sk__name(obj), sub);
	sk_error_t err = {0};
	json_t *out = sk_client_update(k->ctl->c, path, obj, &err);

	if (!out) {
		if (err.code != SK_ECONFLICT && err.code != SK_ENOTFOUND)
			sk_warn("ctrl", "%s: %s %s: %s", COMPONENT, plural, sk__name(obj), err.msg);
		return -1;
	}
	sk_informer_write(inf, out);
	json_decref(out);
	return 0;
}

/* ---- phases ---- */

static int volume_phase(sk_controller *k, json_t *pv, const char *phase)
{
	pvb *s = k->state;
	cleanup_json json_t *cp = NULL;

	if (!strcmp(sk_kube_jstr(pv, "status.phase") ?: "", phase))
		return 0;
	cp = json_deep_copy(pv);
	json_object_set_new(cp, "status", json_pack("{s:s}", "phase", phase));
	return put(k, s->pvs, "persistentvolumes", cp, "status");
}

/* updateClaimStatus: the phase, and for Bound the volume's modes, and its
 * capacity only as the claim becomes Bound (once bound, the volume
 * expansion controller owns status.capacity). */
static int claim_phase(sk_controller *k, json_t *pvc, const char *phase, json_t *pv)
{
	pvb *s = k->state;
	cleanup_json json_t *cp = json_deep_copy(pvc);
	json_t *st = sk_kube_jobj(cp, "status"), *modes, *cap;
	const char *was = sk_kube_jstr(pvc, "status.phase");

	json_object_set_new(st, "phase", json_string(phase));
	if (pv) {
		modes = sk_kube_jget(pv, "spec.accessModes");
		cap = sk_kube_jget(pv, "spec.capacity");
		json_object_set_new(st, "accessModes", modes ? json_deep_copy(modes) : json_array());
		if (!was || strcmp(was, phase) || !sk_kube_jget(pvc, "status.capacity.storage"))
			json_object_set_new(st, "capacity", cap ? json_deep_copy(cap) : json_object());
	}
	if (json_equal(st, sk_kube_jget(pvc, "status")))
		return 0;
	return put(k, s->pvcs, "persistentvolumeclaims", cp, "status");
}

/* ---- binding ---- */

/* ctrl.bind: the volume's claimRef, its phase, the claim's volumeName and
 * annotations, the claim's status. */
static int bind(sk_controller *k, json_t *pv, json_t *pvc)
{
	pvb *s = k->state;
	cleanup_json json_t *v = NULL, *c = NULL, *pv_now = NULL, *pvc_now = NULL;

	if (!sk_kube_pv_bound_to_claim(pv, pvc) || !sk_kube_jstr(pv, "spec.claimRef.uid") ||
	    !*sk_kube_jstr(pv, "spec.claimRef.uid")) {
		v = json_deep_copy(pv);
		if (!json_is_object(sk_kube_jget(pv, "spec.claimRef")))
			set_ann(v, SK_ANN_BOUND_BY_CONTROLLER, "yes");
		json_object_set_new(sk_kube_jobj(v, "spec"), "claimRef",
				    json_pack("{s:s, s:s, s:s, s:s, s:s, s:s}", "kind", "PersistentVolumeClaim",
					      "namespace", sk__ns(pvc), "name", sk__name(pvc), "uid", sk__uid(pvc),
					      "apiVersion", "v1", "resourceVersion",
					      sk_kube_jstr(pvc, "metadata.resourceVersion") ?: ""));
		if (put(k, s->pvs, "persistentvolumes", v, NULL) < 0)
			return -1;
	}
	pv_now = sk_informer_get(s->pvs, "", sk__name(pv));
	if (!pv_now || volume_phase(k, pv_now, "Bound") < 0)
		return -1;
	if (strcmp(sk_kube_jstr(pvc, "spec.volumeName") ?: "", sk__name(pv)) || !ann(pvc, SK_ANN_BIND_COMPLETED)) {
		c = json_deep_copy(pvc);
		if (!*(sk_kube_jstr(pvc, "spec.volumeName") ?: ""))
			set_ann(c, SK_ANN_BOUND_BY_CONTROLLER, "yes");
		set_ann(c, SK_ANN_BIND_COMPLETED, "yes");
		json_object_set_new(sk_kube_jobj(c, "spec"), "volumeName", json_string(sk__name(pv)));
		if (put(k, s->pvcs, "persistentvolumeclaims", c, NULL) < 0)
			return -1;
	}
	pvc_now = sk_informer_get(s->pvcs, sk__ns(pvc), sk__name(pvc));
	if (!pvc_now || claim_phase(k, pvc_now, "Bound", pv_now) < 0)
		return -1;
	sk_info("ctrl", "%s: bound claim %s/%s to volume %s", COMPONENT, sk__ns(pvc), sk__name(pvc), sk__name(pv));
	return 0;
}

static json_t *storage_class(sk_controller *k, const char *name)
{
	pvb *s = k->state;

	return *name ? sk_informer_get(s->classes, "", name) : NULL;
}

static bool wait_for_consumer(json_t *sc)
{
	const char *m = sk_kube_jstr(sc, "volumeBindingMode");

	return m && !strcmp(m, "WaitForFirstConsumer");
}

/* provisionClaim for an external provisioner: the claim is annotated with
 * it and waits for the volume. */
static int provision(sk_controller *k, json_t *pvc, json_t *sc)
{
	pvb *s = k->state;
	const char *prov = sk_kube_jstr(sc, "provisioner") ?: "";
	cleanup_json json_t *c = NULL;
	char msg[512];

	if (!strcmp(prov, "kubernetes.io/no-provisioner"))
		return 0;
	if (!str_same(ann(pvc, SK_ANN_STORAGE_PROVISIONER), prov)) {
		c = json_deep_copy(pvc);
		set_ann(c, SK_ANN_STORAGE_PROVISIONER, prov);
		set_ann(c, SK_ANN_BETA_STORAGE_PROVISIONER, prov);
		if (put(k, s->pvcs, "persistentvolumeclaims", c, NULL) < 0)
			return -1;
	}
	snprintf(msg, sizeof(msg),
		 "Waiting for a volume to be created either by the external provisioner '%s' or manually by the "
		 "system administrator. If volume creation is delayed, please verify that the provisioner is running "
		 "and correctly registered.",
		 prov);
	record(k, pvc, "Normal", "ExternalProvisioning", msg);
	return 0;
}

/* A matching volume, else the class's provisioner, else it waits. */
static int match_claim(sk_controller *k, json_t *pvc)
{
	pvb *s = k->state;
	const char *cls = sk_kube_volume_class(pvc);
	cleanup_json json_t *sc = storage_class(k, cls), *pvs = sk_informer_list(s->pvs, NULL);
	bool delay = sc && wait_for_consumer(sc) && !ann(pvc, SK_ANN_SELECTED_NODE);
	int i = sk_kube_pv_find_match(pvs, pvc, delay, NULL, NULL);

	if (i >= 0)
		return bind(k, json_array_get(pvs, i), pvc);
	if (claim_phase(k, pvc, "Pending", NULL) < 0)
		return -1;
	if (delay) {
		record(k, pvc, "Normal", "WaitForFirstConsumer",
		       "waiting for first consumer to be created before binding");
	} else if (!*cls) {
		record(k, pvc, "Normal", "FailedBinding",
		       "no persistent volumes available for this claim and no storage class is set");
	} else if (!sc) {
		cleanup_free char *msg = xasprintf("storageclass.storage.k8s.io \"%s\" not found", cls);

		record(k, pvc, "Warning", "ProvisioningFailed", msg);
	} else {
		return provision(k, pvc, sc);
	}
	return 0;
}

/* The newest default class (then by name), as DefaultStorageClass picks
 * it; a new reference or NULL. */
static json_t *default_storage_class(sk_controller *k)
{
	pvb *s = k->state;
	cleanup_json json_t *all = sk_informer_list(s->classes, NULL);
	json_t *sc, *best = NULL;
	size_t i;

	json_array_foreach(all, i, sc) {
		const char *ts = sk_kube_jstr(sc, "metadata.creationTimestamp") ?: "";
		const char *bts = best ? sk_kube_jstr(best, "metadata.creationTimestamp") ?: "" : NULL;
		int cmp = bts ? strcmp(ts, bts) : 1;

		if (sk_kube_class_is_default(sc) && (cmp > 0 || (cmp == 0 && strcmp(sk__name(sc), sk__name(best)) < 0)))
			best = sc;
	}
	return json_incref(best);
}

/* syncUnboundClaim without a volume named: a claim without a class gets
 * the default one made after it (retroactive default StorageClass); then a
 * matching volume, else the class's provisioner, else it waits. */
static int sync_unnamed_claim(sk_controller *k, json_t *pvc)
{
	pvb *s = k->state;

	if (!sk_kube_claim_has_class(pvc)) {
		cleanup_json json_t *dflt = default_storage_class(k), *c = NULL;

		if (dflt) {
			c = json_deep_copy(pvc);
			json_object_set_new(sk_kube_jobj(c, "spec"), "storageClassName", json_string(sk__name(dflt)));
			return put(k, s->pvcs, "persistentvolumeclaims", c, NULL);
		}
	}
	return match_claim(k, pvc);
}

/* syncUnboundClaim with spec.volumeName: that volume, if it fits. */
static int sync_named_claim(sk_controller *k, json_t *pvc)
{
	pvb *s = k->state;
	const char *vname = sk_kube_jstr(pvc, "spec.volumeName");
	cleanup_json json_t *pv = sk_informer_get(s->pvs, "", vname);
	const char *why;

	if (!pv)
		return claim_phase(k, pvc, "Pending", NULL);
	if (!json_is_object(sk_kube_jget(pv, "spec.claimRef")) || sk_kube_pv_bound_to_claim(pv, pvc)) {
		why = sk_kube_pv_satisfies_claim(pv, pvc);
		if (why) {
			cleanup_free char *msg = xasprintf("Cannot bind to requested volume \"%s\": %s", vname, why);

			record(k, pvc, "Warning", "VolumeMismatch", msg);
			return claim_phase(k, pvc, "Pending", NULL);
		}
		return bind(k, pv, pvc);
	}
	/* the volume belongs to another claim */
	return claim_phase(k, pvc, "Pending", NULL);
}

/* syncBoundClaim */
static int sync_bound_claim(sk_controller *k, json_t *pvc)
{
	pvb *s = k->state;
	const char *vname = sk_kube_jstr(pvc, "spec.volumeName") ?: "";
	cleanup_json json_t *pv = *vname ? sk_informer_get(s->pvs, "", vname) : NULL;

	if (!*vname || !pv) {
		if (!strcmp(sk_kube_jstr(pvc, "status.phase") ?: "", "Lost"))
			return 0;
		record(k, pvc, "Warning", "ClaimLost",
		       *vname ? "Bound claim has lost its PersistentVolume. Data on the volume is lost!"
			      : "Bound claim has lost reference to PersistentVolume. Data on the volume is lost!");
		return claim_phase(k, pvc, "Lost", NULL);
	}
	if (!json_is_object(sk_kube_jget(pv, "spec.claimRef")) || sk_kube_pv_bound_to_claim(pv, pvc))
		return bind(k, pv, pvc);
	if (strcmp(sk_kube_jstr(pvc, "status.phase") ?: "", "Lost"))
		record(k, pvc, "Warning", "ClaimMisbound",
		       "Two claims are bound to the same volume, this one is bound incorrectly");
	return claim_phase(k, pvc, "Lost", NULL);
}

/* ---- protection ---- */

static bool has_finalizer(json_t *obj, const char *f)
{
	json_t *v;
	size_t i;

	json_array_foreach(sk_kube_jget(obj, "metadata.finalizers"), i, v)
		if (!strcmp(json_string_value(v) ?: "", f))
			return true;
	return false;
}

static int drop_finalizer(sk_controller *k, sk_informer *inf, const char *plural, json_t *obj, const char *f)
{
	cleanup_json json_t *cp = json_deep_copy(obj);
	json_t *list = sk_kube_jget(cp, "metadata.finalizers"), *v;
	size_t i;

	json_array_foreach(list, i, v)
		if (!strcmp(json_string_value(v) ?: "", f)) {
			json_array_remove(list, i);
			break;
		}
	return put(k, inf, plural, cp, NULL);
}

static bool pod_uses_claim(json_t *pod, const char *claim)
{
	json_t *v;
	size_t i;

	json_array_foreach(sk_kube_jget(pod, "spec.volumes"), i, v) {
		const char *c = sk_kube_jstr(v, "persistentVolumeClaim.claimName");

		if (c && !strcmp(c, claim))
			return true;
		/* generic ephemeral volumes: <pod>-<volume> */
		if (json_object_get(v, "ephemeral")) {
			cleanup_free char *n = xasprintf("%s-%s", sk__name(pod), sk_kube_jstr(v, "name") ?: "");

			if (!strcmp(n, claim))
				return true;
		}
	}
	return false;
}

/* The pvc-protection controller's isBeingUsed: a pod of the namespace that
 * is not terminated uses it. */
static bool claim_in_use(sk_controller *k, json_t *pvc)
{
	cleanup_json json_t *pods = sk_informer_list(k->ctl->pods, sk__ns(pvc));
	json_t *pod;
	size_t i;

	json_array_foreach(pods, i, pod)
		if (!sk__pod_terminal(pod) && pod_uses_claim(pod, sk__name(pvc)))
			return true;
	return false;
}

/* ---- sync ---- */

static int sync_claim(sk_controller *k, const char *nskey)
{
	pvb *s = k->state;
	char ns[256], name[256];
	cleanup_json json_t *pvc = NULL;

	sk__split_key(nskey, ns, sizeof(ns), name, sizeof(name));
	pvc = sk_informer_get(s->pvcs, ns, name);
	if (!pvc)
		return 0;
	if (sk__is_deleting(pvc)) {
		if (has_finalizer(pvc, SK_FINALIZER_PVC_PROTECTION) && !claim_in_use(k, pvc))
			return drop_finalizer(k, s->pvcs, "persistentvolumeclaims", pvc, SK_FINALIZER_PVC_PROTECTION);
		return 0;
	}
	if (ann(pvc, SK_ANN_BIND_COMPLETED))
		return sync_bound_claim(k, pvc);
	if (*(sk_kube_jstr(pvc, "spec.volumeName") ?: ""))
		return sync_named_claim(k, pvc);
	return sync_unnamed_claim(k, pvc);
}

/* reclaimVolume: Retain keeps it; Delete deletes the object unless a
 * provisioner made it (that provisioner deletes it and its data). */
static int reclaim(sk_controller *k, json_t *pv)
{
	const char *policy = sk_kube_jstr(pv, "spec.persistentVolumeReclaimPolicy") ?: "Retain";
	cleanup_free char *path = NULL;
	cleanup_json json_t *opts = NULL;
	sk_error_t err = {0};

	if (!strcmp(policy, "Retain") || sk__is_deleting(pv))
		return 0;
	if (!strcmp(policy, "Recycle")) {
		if (strcmp(sk_kube_jstr(pv, "status.phase") ?: "", "Failed"))
			record(k, pv, "Warning", "VolumeFailedRecycle", "no volume plugin matched");
		return volume_phase(k, pv, "Failed");
	}
	if (ann(pv, SK_ANN_PROVISIONED_BY))
		return 0;
	path = sk__path("/api/v1", "persistentvolumes", NULL, sk__name(pv), NULL);
	opts = json_pack("{s:{s:s}}", "preconditions", "uid", sk__uid(pv));
	if (sk_client_delete(k->ctl->c, path, opts, &err) < 0 && err.code != SK_ENOTFOUND) {
		record(k, pv, "Warning", "VolumeFailedDelete", err.msg);
		return -1;
	}
	sk_info("ctrl", "%s: deleted volume %s (reclaim policy Delete)", COMPONENT, sk__name(pv));
	return 0;
}

/* syncVolume */
static int sync_volume(sk_controller *k, const char *name)
{
	pvb *s = k->state;
	cleanup_json json_t *pv = sk_informer_get(s->pvs, "", name), *pvc = NULL;
	json_t *ref;
	const char *uid;

	if (!pv)
		return 0;
	if (sk__is_deleting(pv) && has_finalizer(pv, SK_FINALIZER_PV_PROTECTION) &&
	    strcmp(sk_kube_jstr(pv, "status.phase") ?: "", "Bound"))
		return drop_finalizer(k, s->pvs, "persistentvolumes", pv, SK_FINALIZER_PV_PROTECTION);
	ref = sk_kube_jget(pv, "spec.claimRef");
	if (!json_is_object(ref))
		return volume_phase(k, pv, "Available");
	uid = sk_kube_jstr(ref, "uid") ?: "";
	pvc = sk_informer_get(s->pvcs, sk_kube_jstr(ref, "namespace") ?: "", sk_kube_jstr(ref, "name") ?: "");
	if (!*uid) {
		/* pre-bound by its author: the claim's sync binds it */
		if (pvc)
			enqueue_claim(k, sk__ns(pvc), sk__name(pvc));
		return volume_phase(k, pv, "Available");
	}
	if (!pvc || strcmp(sk__uid(pvc) ?: "", uid)) {
		/* the claim is gone */
		if (strcmp(sk_kube_jstr(pv, "status.phase") ?: "", "Released") &&
		    strcmp(sk_kube_jstr(pv, "status.phase") ?: "", "Failed")) {
			if (volume_phase(k, pv, "Released") < 0)
				return -1;
			json_decref(pv);
			pv = sk_informer_get(s->pvs, "", name);
			if (!pv)
				return 0;
		}
		return reclaim(k, pv);
	}
	if (!*(sk_kube_jstr(pvc, "spec.volumeName") ?: "")) {
		enqueue_claim(k, sk__ns(pvc), sk__name(pvc));
		return 0;
	}
	if (!strcmp(sk_kube_jstr(pvc, "spec.volumeName"), name))
		return volume_phase(k, pv, "Bound");
	/* the claim is bound to another volume */
	if (ann(pv, SK_ANN_BOUND_BY_CONTROLLER)) {
		cleanup_json json_t *cp = json_deep_copy(pv);

		json_object_del(sk_kube_jobj(cp, "spec"), "claimRef");
		json_object_del(sk_kube_jget(cp, "metadata.annotations"), SK_ANN_BOUND_BY_CONTROLLER);
		return put(k, s->pvs, "persistentvolumes", cp, NULL);
	}
	return 0;
}

static int sync_key(sk_controller *k, const char *key)
{
	if (!strncmp(key, "c/", 2))
		return sync_claim(k, key + 2);
	if (!strncmp(key, "v/", 2))
		return sync_volume(k, key + 2);
	return 0;
}

/* ---- handlers ---- */

static void on_pv(void *ud, int ev, json_t *old, json_t *pv)
{
	sk_controller *k = ud;
	json_t *ref = sk_kube_jget(pv, "spec.claimRef");

	(void)old;
	if (ev != SK_INF_DELETE)
		enqueue_volume(k, sk__name(pv));
	if (json_is_object(ref))
		enqueue_claim(k, sk_kube_jstr(ref, "namespace"), sk_kube_jstr(ref, "name"));
}

static void on_pvc(void *ud, int ev, json_t *old, json_t *pvc)
{
	sk_controller *k = ud;
	const char *vname = sk_kube_jstr(pvc, "spec.volumeName");

	(void)old;
	if (ev != SK_INF_DELETE)
		enqueue_claim(k, sk__ns(pvc), sk__name(pvc));
	if (vname && *vname)
		enqueue_volume(k, vname);
	if (ev == SK_INF_DELETE) {
		/* volumes pre-bound to it or bound to it are released */
		pvb *s = k->state;
		cleanup_json json_t *pvs = sk_informer_list(s->pvs, NULL);
		json_t *pv;
		size_t i;

		json_array_foreach(pvs, i, pv)
			if (sk_kube_pv_bound_to_claim(pv, pvc))
				enqueue_volume(k, sk__name(pv));
	}
}

/* A pod that ends or goes may free its claims (protection), and a new one
 * may be the first consumer. */
static void on_pod(void *ud, int ev, json_t *old, json_t *pod)
{
	sk_controller *k = ud;
	json_t *v;
	size_t i;

	(void)old;
	if (ev == SK_INF_UPDATE && !sk__pod_terminal(pod) && !sk__is_deleting(pod))
		return;
	json_array_foreach(sk_kube_jget(pod, "spec.volumes"), i, v) {
		const char *c = sk_kube_jstr(v, "persistentVolumeClaim.claimName");

		if (c)
			enqueue_claim(k, sk__ns(pod), c);
	}
}

static void on_class(void *ud, int ev, json_t *old, json_t *sc)
{
	sk_controller *k = ud;
	pvb *s = k->state;
	cleanup_json json_t *pvcs = NULL;
	json_t *pvc;
	size_t i;

	(void)old;
	if (ev == SK_INF_DELETE)
		return;
	/* claims waiting for this class */
	pvcs = sk_informer_list(s->pvcs, NULL);
	json_array_foreach(pvcs, i, pvc)
		if (!ann(pvc, SK_ANN_BIND_COMPLETED) &&
		    (!strcmp(sk_kube_volume_class(pvc), sk__name(sc)) ||
		     (!sk_kube_claim_has_class(pvc) && sk_kube_class_is_default(sc))))
			enqueue_claim(k, sk__ns(pvc), sk__name(pvc));
}

/* The default class of local volumes on the nodes (the agent provisions
 * them), created once, as k3s ships it. */
static void default_class(struct sk_ctrl *ctl)
{
	cleanup_json json_t *sc = json_pack("{s:s, s:s, s:{s:s, s:{s:s}}, s:s, s:s, s:s}", "apiVersion",
					    "storage.k8s.io/v1", "kind", "StorageClass", "metadata", "name",
					    LOCAL_PATH_CLASS, "annotations", SK_ANN_DEFAULT_CLASS, "true",
					    "provisioner", LOCAL_PATH_PROVISIONER, "volumeBindingMode",
					    "WaitForFirstConsumer", "reclaimPolicy", "Delete");
	cleanup_json json_t *out = NULL;
	sk_error_t err = {0};

	out = sk_client_create(ctl->c, "/apis/storage.k8s.io/v1/storageclasses", sc, &err);
	if (!out && err.code != SK_EEXISTS)
		sk_warn("ctrl", "%s: storage class %s: %s", COMPONENT, LOCAL_PATH_CLASS, err.msg);
}

static void keep_informers(void *state) { free(state); }

int sk__pvbinder_init(struct sk_ctrl *ctl, sk_error_t *err)
{
	pvb *s = xzalloc(sizeof(*s));
	sk_controller *k;

	(void)err;
	s->pvs = sk__ctrl_extra(ctl, "/api/v1/persistentvolumes", "v1", "PersistentVolume");
	s->pvcs = sk__ctrl_extra(ctl, "/api/v1/persistentvolumeclaims", "v1", "PersistentVolumeClaim");
	s->classes = sk__ctrl_extra(ctl, "/apis/storage.k8s.io/v1/storageclasses", "storage.k8s.io/v1", "StorageClass");
	k = sk__controller_add(ctl, "persistent-volume-binder", sync_key, s);
	k->release = keep_informers;
	k->workers = 1;
	sk_informer_on(s->pvs, on_pv, k);
	sk_informer_on(s->pvcs, on_pvc, k);
	sk_informer_on(s->classes, on_class, k);
	sk_informer_on(ctl->pods, on_pod, k);
	default_class(ctl);
	return 0;
}
