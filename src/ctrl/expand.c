/* Volume expansion (after pkg/controller/volume/expand and, for the
 * volumes skiff's node agents provision, the external-resizer sidecar with
 * RecoverVolumeExpansionFailure): a bound claim whose
 * spec.resources.requests.storage is above its status.capacity is resized.
 * A local-path volume (provisioned by rancher.io/local-path: a directory on
 * its node, no quota, no filesystem to grow) is expanded by the controller
 * alone: the claim is marked Resizing (allocatedResources = the request,
 * allocatedResourceStatuses ControllerResizeInProgress), the volume's
 * spec.capacity is raised, and the claim finishes (status.capacity = the
 * request, the condition and the resize status gone), with the resizer's
 * Resizing and VolumeResizeSuccessful events (a resize left in progress is
 * finished the same way). Other volumes are left to an
 * external controller (an ExternalExpanding event). Keys: "<ns>/<name>". */
#include <string.h>

#include "ctrl/ctrl-int.h"
#include "kube/quantity.h"
#include "kube/volume.h"
#include "util/util.h"

#define COMPONENT "volume_expand"
#define LOCAL_PATH_PROVISIONER "rancher.io/local-path"
#define RESIZER "external-resizer " LOCAL_PATH_PROVISIONER

typedef struct expand {
	sk_informer *pvs, *pvcs;
} expand;

static json_t *request(json_t *pvc) { return sk_kube_jget(pvc, "spec.resources.requests.storage"); }

/* Whether the claim asks for more than it has: bound, and its request above
 * status.capacity. */
static int wants_resize(json_t *pvc)
{
	const char *phase = sk_kube_jstr(pvc, "status.phase");
	json_t *cap = sk_kube_jget(pvc, "status.capacity.storage");
	int cmp = 0;

	if (!phase || strcmp(phase, "Bound") || !request(pvc) || !cap || sk__is_deleting(pvc))
		return 0;
	if (sk_kube_jget(pvc, "status.allocatedResourceStatuses.storage"))
		return 1; /* a resize that did not finish */
	return sk_kube_quantity_cmp(request(pvc), cap, &cmp) == 0 && cmp > 0;
}

/* The claim's status with the Resizing condition set (on) or every resize
 * condition gone (off), as MergeResizeConditionsOfPVC. */
static void set_resizing(json_t *st, int on)
{
	json_t *conds = json_object_get(st, "conditions"), *keep = json_array(), *c;
	size_t i;
	char ts[32];

	json_array_foreach(conds, i, c) {
		const char *t = sk_kube_jstr(c, "type");

		if (t && (!strcmp(t, "Resizing") || !strcmp(t, "FileSystemResizePending")))
			continue;
		json_array_append(keep, c);
	}
	if (on) {
		sk_time_format(sk_now_ns() / 1000000000, ts, sizeof(ts));
		json_array_append_new(keep, json_pack("{s:s, s:s, s:n, s:s}", "type", "Resizing", "status", "True",
						      "lastProbeTime", "lastTransitionTime", ts));
	}
	if (json_array_size(keep))
		json_object_set_new(st, "conditions", keep);
	else {
		json_decref(keep);
		json_object_del(st, "conditions");
	}
}

static int update_claim_status(sk_controller *k, json_t *pvc, sk_error_t *err)
{
	expand *s = k->state;

	return sk__update_status(k->ctl, s->pvcs, "/api/v1", "persistentvolumeclaims", pvc, err);
}

static int expand_local(sk_controller *k, json_t *cached, json_t *pv)
{
	expand *s = k->state;
	cleanup_json json_t *pvc = json_deep_copy(cached), *v = json_deep_copy(pv), *out = NULL;
	cleanup_free char *pvpath = sk__path("/api/v1", "persistentvolumes", NULL, sk__name(pv), NULL);
	cleanup_json json_t *size = json_incref(request(pvc)); /* outlives pvc, replaced below */
	json_t *st = sk_kube_jobj(pvc, "status");
	json_t *pvcap = sk_kube_jget(pv, "spec.capacity.storage");
	int cmp = 1;
	sk_error_t err = {0};

	/* markControllerResizeInProgress */
	set_resizing(st, 1);
	json_object_set_new(st, "allocatedResources", json_pack("{s:O}", "storage", size));
	json_object_set_new(st, "allocatedResourceStatuses",
			    json_pack("{s:s}", "storage", "ControllerResizeInProgress"));
	if (update_claim_status(k, pvc, &err) < 0)
		return -1;
	sk_event_record(k->ctl->c, cached, "Normal", "Resizing", RESIZER, NULL,
			"External resizer is resizing volume %s", sk__name(pv));
	/* the volume: a directory has no quota to raise, only its capacity */
	if (!pvcap || sk_kube_quantity_cmp(size, pvcap, &cmp) < 0 || cmp > 0) {
		json_object_set(sk_kube_jobj(v, "spec.capacity"), "storage", size);
		out = sk_client_update(k->ctl->c, pvpath, v, &err);
		if (!out) {
			sk_event_record(k->ctl->c, cached, "Warning", "VolumeResizeFailed", RESIZER, NULL,
					"resize volume \"%s\" by resizer \"%s\" failed: %s", sk__name(pv),
					LOCAL_PATH_PROVISIONER, err.msg);
			return -1;
		}
		sk_informer_write(s->pvs, out);
	}
	/* markOverallExpansionAsFinished: no node step for a directory */
	{
		json_t *cur = sk_informer_get(s->pvcs, sk__ns(cached), sk__name(cached));

		json_decref(pvc);
		pvc = json_deep_copy(cur ? cur : cached);
		json_decref(cur);
	}
	st = sk_kube_jobj(pvc, "status");
	json_object_set(sk_kube_jobj(st, "capacity"), "storage", size);
	set_resizing(st, 0);
	json_object_del(json_object_get(st, "allocatedResourceStatuses"), "storage");
	if (!json_object_size(json_object_get(st, "allocatedResourceStatuses")))
		json_object_del(st, "allocatedResourceStatuses");
	if (update_claim_status(k, pvc, &err) < 0)
		return -1;
	sk_event_record(k->ctl->c, cached, "Normal", "VolumeResizeSuccessful", RESIZER, NULL,
			"Resize volume succeeded");
	return 0;
}

static int sync_claim(sk_controller *k, const char *key)
{
	expand *s = k->state;
	char ns[256], name[256];
	cleanup_json json_t *pvc = NULL, *pv = NULL;
	const char *vname;

	sk__split_key(key, ns, sizeof(ns), name, sizeof(name));
	pvc = sk_informer_get(s->pvcs, ns, name);
	if (!pvc || !wants_resize(pvc))
		return 0;
	vname = sk_kube_jstr(pvc, "spec.volumeName");
	pv = vname ? sk_informer_get(s->pvs, NULL, vname) : NULL;
	if (!pv)
		return 0;
	if (!sk_kube_pv_bound_to_claim(pv, pvc))
		return 0;
	if (!sk_kube_jget(pv, "spec.local") && !sk_kube_jget(pv, "spec.hostPath"))
		goto external;
	{
		const char *by = json_string_value(
			json_object_get(sk_kube_jget(pv, "metadata.annotations"), SK_ANN_PROVISIONED_BY));

		if (!by || strcmp(by, LOCAL_PATH_PROVISIONER))
			goto external;
	}
	return expand_local(k, pvc, pv);
external:
	sk_event_record(k->ctl->c, pvc, "Normal", "ExternalExpanding", COMPONENT, NULL,
			"waiting for an external controller to expand this PVC");
	return 0;
}

static void on_pvc(void *ud, int ev, json_t *old, json_t *pvc)
{
	sk_controller *k = ud;
	cleanup_free char *key = NULL;

	(void)old;
	if (ev == SK_INF_DELETE || !wants_resize(pvc))
		return;
	key = sk__key(pvc);
	sk__queue_add(k->q, key);
}

static void keep_informers(void *state) { free(state); }

int sk__expand_init(struct sk_ctrl *ctl, sk_error_t *err)
{
	expand *s = xzalloc(sizeof(*s));
	sk_controller *k;

	(void)err;
	s->pvs = sk__ctrl_extra(ctl, "/api/v1/persistentvolumes", "v1", "PersistentVolume");
	s->pvcs = sk__ctrl_extra(ctl, "/api/v1/persistentvolumeclaims", "v1", "PersistentVolumeClaim");
	k = sk__controller_add(ctl, "volume-expand", sync_claim, s);
	k->release = keep_informers;
	k->workers = 1;
	sk_informer_on(s->pvcs, on_pvc, k);
	return 0;
}
