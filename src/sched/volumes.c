/* The VolumeBinding plugin (after pkg/scheduler/framework/plugins/volumebinding):
 * a pod's claims must exist and not be going; a bound claim's volume must
 * admit the node (its spec.nodeAffinity, the Filter in filter.c); an
 * unbound claim of a WaitForFirstConsumer class is provisioned where the pod
 * goes: PreBind annotates it with volume.kubernetes.io/selected-node (the
 * PV controller then hands it to its provisioner), or, when an Available
 * volume on that node fits it (a local volume), PreBind sets that volume's
 * claimRef and the PV controller completes the binding; an unbound claim of
 * another class keeps the pod pending until the PV controller binds it. */
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

/* Whether the claim's class can provision (a provisioner that is not
 * kubernetes.io/no-provisioner). */
static int dynamic(struct sk_sched *s, json_t *pvc)
{
	json_t *sc = sk__smap_get(&s->storage_classes, sk_kube_volume_class(pvc));
	const char *prov = sc ? sk_kube_jstr(sc, "provisioner") : NULL;

	return prov && *prov && strcmp(prov, "kubernetes.io/no-provisioner");
}

static void collect(const char *key, void *val, void *ud)
{
	(void)key;
	json_array_append(ud, val);
}

static json_t *all_volumes(struct sk_sched *s)
{
	json_t *a = json_array();

	sk__smap_each(&s->pvs, collect, a);
	return a;
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
	json_decref(p->delayed);
	json_decref(p->all_pvs);
	p->volumes = p->delayed = p->all_pvs = NULL;
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
			continue;
		}
		if (!p->delayed) {
			p->delayed = json_array();
			p->all_pvs = all_volumes(s);
		}
		json_array_append_new(p->delayed, json_pack("{s:O, s:b}", "claim", pvc, "dynamic", dynamic(s, pvc)));
	}
	p->volumes = volumes;
	return 0;
fail:
	json_decref(volumes);
	return -1;
}

json_t *sk__sched_volumes_to_select(struct sk_sched *s, sk_spod *p)
{
	sk_snode *n = p->node_name ? sk_cache_node(&s->cache, p->node_name) : NULL;
	cleanup_json json_t *pvs = all_volumes(s), *taken = json_object();
	json_t *vol, *out = NULL;
	size_t i;

	json_array_foreach(sk_kube_jget(p->obj, "spec.volumes"), i, vol) {
		int eph, j;
		cleanup_free char *name = claim_name(p, vol, &eph), *key = NULL;
		json_t *pvc, *pv;
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
		/* an Available volume on the node, not taken by another claim of the pod */
		j = n ? sk_kube_pv_find_match(pvs, pvc, true, n->labels, n->name) : -1;
		pv = j >= 0 ? json_array_get(pvs, j) : NULL;
		if (pv && !json_object_get(taken, sk_kube_jstr(pv, "metadata.name"))) {
			json_object_set_new(taken, sk_kube_jstr(pv, "metadata.name"), json_true());
			json_array_append_new(out, json_pack("{s:s, s:s, s:s, s:s}", "claim", name, "uid",
							     sk_kube_jstr(pvc, "metadata.uid") ?: "", "volume",
							     sk_kube_jstr(pv, "metadata.name"), "resourceVersion",
							     sk_kube_jstr(pv, "metadata.resourceVersion") ?: ""));
		} else {
			json_array_append_new(out, json_pack("{s:s}", "claim", name));
		}
	}
	return out;
}
