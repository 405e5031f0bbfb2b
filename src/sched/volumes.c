/* The VolumeBinding plugin (after pkg/scheduler/framework/plugins/volumebinding):
 * a pod's claims must exist and not be going; a bound claim's volume must
 * admit the node (its spec.nodeAffinity, the Filter in filter.c); an
 * unbound claim of a WaitForFirstConsumer class is provisioned where the pod
 * goes: PreBind annotates it with volume.kubernetes.io/selected-node (the
 * PV controller then hands it to its provisioner); an unbound claim of
 * another class keeps the pod pending until the PV controller binds it.
 * Static volumes for WaitForFirstConsumer claims are not matched here (only
 * provisioning is). */
#include "sched/sched-int.h"

#include <string.h>

#include "kube/object.h"
#include "kube/volume.h"
#include "util/util.h"

#define MSG_UNBOUND_IMMEDIATE "pod has unbound immediate PersistentVolumeClaims"
#define MSG_PV_NOT_EXIST "node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)"

/* The claim name of a pod volume: its persistentVolumeClaim, or the claim
 * of a generic ephemeral volume ("<pod>-<volume>"); NULL for others.
 * *ephemeral says which. Caller frees. */
static char *claim_name(const sk_spod *p, json_t *vol, int *ephemeral)
{
	const char *c = sk_kube_jstr(vol, "persistentVolumeClaim.claimName");

	*ephemeral = 0;
	if (c)
		return xstrdup(c);
	if (json_object_get(vol, "ephemeral")) {
		*ephemeral = 1;
		return xasprintf("%s-%s", p->name, sk_kube_jstr(vol, "name") ?: "");
	}
	return NULL;
}

static int wait_for_consumer(struct sk_sched *s, json_t *pvc)
{
	json_t *sc = sk__smap_get(&s->storage_classes, sk_kube_volume_class(pvc));
	const char *mode = sc ? sk_kube_jstr(sc, "volumeBindingMode") : NULL;

	return mode && !strcmp(mode, "WaitForFirstConsumer");
}

/* A volume-like object whose node affinity is the node name alone: a
 * claim whose provisioning started on a node keeps its pods there. */
static json_t *on_node(const char *node)
{
	return json_pack("{s:{s:{s:{s:[{s:[{s:s, s:s, s:[s]}]}]}}}}", "spec", "nodeAffinity", "required",
			 "nodeSelectorTerms", "matchFields", "key", "metadata.name", "operator", "In", "values", node);
}

int sk__sched_volumes_prefilter(struct sk_sched *s, sk_spod *p, char **msg)
{
	json_t *vol, *volumes = NULL;
	size_t i;

	json_decref(p->volumes);
	p->volumes = NULL;
	json_array_foreach(sk_kube_jget(p->obj, "spec.volumes"), i, vol) {
		int eph;
		cleanup_free char *name = claim_name(p, vol, &eph), *key = NULL;
		json_t *pvc, *pv;
		const char *vname, *sel;

		if (!name)
			continue;
		key = xasprintf("%s/%s", p->ns, name);
		pvc = sk__smap_get(&s->pvcs, key);
		if (!pvc) {
			*msg = eph ? xasprintf("waiting for ephemeral volume controller to create the "
					       "persistentvolumeclaim "
					       "\"%s\"",
					       name)
				   : xasprintf("persistentvolumeclaim \"%s\" not found", name);
			goto fail;
		}
		if (sk_kube_jget(pvc, "metadata.deletionTimestamp")) {
			*msg = xasprintf("persistentvolumeclaim \"%s\" is being deleted", name);
			goto fail;
		}
		vname = sk_kube_jstr(pvc, "spec.volumeName");
		if (vname && *vname) {
			pv = sk__smap_get(&s->pvs, vname);
			if (!pv) {
				*msg = xstrdup(MSG_PV_NOT_EXIST);
				goto fail;
			}
			if (sk_kube_jget(pv, "spec.nodeAffinity")) {
				if (!volumes)
					volumes = json_array();
				json_array_append(volumes, pv);
			}
			continue;
		}
		if (!wait_for_consumer(s, pvc)) {
			*msg = xstrdup(MSG_UNBOUND_IMMEDIATE);
			goto fail;
		}
		sel = json_string_value(
			json_object_get(sk_kube_jget(pvc, "metadata.annotations"), SK_ANN_SELECTED_NODE));
		if (sel && *sel) {
			if (!volumes)
				volumes = json_array();
			json_array_append_new(volumes, on_node(sel));
		}
	}
	p->volumes = volumes;
	return 0;
fail:
	json_decref(volumes);
	return -1;
}

json_t *sk__sched_volumes_to_select(struct sk_sched *s, sk_spod *p)
{
	json_t *vol, *out = NULL;
	size_t i;

	json_array_foreach(sk_kube_jget(p->obj, "spec.volumes"), i, vol) {
		int eph;
		cleanup_free char *name = claim_name(p, vol, &eph), *key = NULL;
		json_t *pvc;
		const char *vname;

		if (!name)
			continue;
		key = xasprintf("%s/%s", p->ns, name);
		pvc = sk__smap_get(&s->pvcs, key);
		vname = sk_kube_jstr(pvc, "spec.volumeName");
		if (!pvc || (vname && *vname) || !wait_for_consumer(s, pvc) ||
		    json_object_get(sk_kube_jget(pvc, "metadata.annotations"), SK_ANN_SELECTED_NODE))
			continue;
		if (!out)
			out = json_array();
		json_array_append_new(out, json_string(name));
	}
	return out;
}
