/* PersistentVolume and PersistentVolumeClaim rules (volume.h). */
#include "kube/volume.h"

#include <stdint.h>
#include <string.h>

#include "kube/affinity.h"
#include "kube/object.h"
#include "kube/quantity.h"
#include "kube/selector.h"

static const char *annotation(json_t *obj, const char *key)
{
	return json_string_value(json_object_get(sk_kube_jget(obj, "metadata.annotations"), key));
}

const char *sk_kube_volume_class(json_t *obj)
{
	const char *cls = annotation(obj, SK_ANN_BETA_CLASS);

	if (!cls)
		cls = sk_kube_jstr(obj, "spec.storageClassName");
	return cls ? cls : "";
}

bool sk_kube_claim_has_class(json_t *pvc)
{
	return annotation(pvc, SK_ANN_BETA_CLASS) || json_is_string(sk_kube_jget(pvc, "spec.storageClassName"));
}

bool sk_kube_class_is_default(json_t *sc)
{
	const char *a = annotation(sc, SK_ANN_DEFAULT_CLASS), *b = annotation(sc, SK_ANN_BETA_DEFAULT_CLASS);

	return (a && !strcmp(a, "true")) || (b && !strcmp(b, "true"));
}

static bool str_eq(const char *a, const char *b) { return a && b && !strcmp(a, b); }

bool sk_kube_pv_bound_to_claim(json_t *pv, json_t *pvc)
{
	json_t *ref = sk_kube_jget(pv, "spec.claimRef");
	const char *uid;

	if (!json_is_object(ref))
		return false;
	if (!str_eq(sk_kube_jstr(ref, "name"), sk_kube_jstr(pvc, "metadata.name")) ||
	    !str_eq(sk_kube_jstr(ref, "namespace"), sk_kube_jstr(pvc, "metadata.namespace")))
		return false;
	uid = sk_kube_jstr(ref, "uid");
	return !uid || !*uid || str_eq(uid, sk_kube_jstr(pvc, "metadata.uid"));
}

static bool has_mode(json_t *modes, const char *m)
{
	json_t *v;
	size_t i;

	json_array_foreach(modes, i, v)
		if (str_eq(json_string_value(v), m))
			return true;
	return false;
}

bool sk_kube_access_modes_contain(json_t *pv_modes, json_t *pvc_modes)
{
	json_t *v;
	size_t i;

	json_array_foreach(pvc_modes, i, v)
		if (!has_mode(pv_modes, json_string_value(v)))
			return false;
	return true;
}

static const char *volume_mode(json_t *obj)
{
	const char *m = sk_kube_jstr(obj, "spec.volumeMode");

	return m && *m ? m : "Filesystem";
}

/* The volume's capacity against the claim's request: <0, 0, >0; a claim
 * without a request asks for nothing. */
static int capacity_cmp(json_t *pv, json_t *pvc)
{
	json_t *want = sk_kube_jget(pvc, "spec.resources.requests.storage");
	json_t *have = sk_kube_jget(pv, "spec.capacity.storage");
	int cmp = 0;

	if (!want)
		return 0;
	if (!have)
		return -1;
	if (sk_kube_quantity_cmp(have, want, &cmp) < 0)
		return -1;
	return cmp;
}

const char *sk_kube_pv_satisfies_claim(json_t *pv, json_t *pvc)
{
	if (capacity_cmp(pv, pvc) < 0)
		return "requested PV is too small";
	if (strcmp(sk_kube_volume_class(pv), sk_kube_volume_class(pvc)))
		return "storageClassName does not match";
	if (strcmp(volume_mode(pv), volume_mode(pvc)))
		return "incompatible volumeMode";
	if (!sk_kube_access_modes_contain(sk_kube_jget(pv, "spec.accessModes"), sk_kube_jget(pvc, "spec.accessModes")))
		return "incompatible accessMode";
	return NULL;
}

bool sk_kube_pv_matches_node(json_t *pv, json_t *node_labels, const char *node_name)
{
	json_t *terms = sk_kube_jget(pv, "spec.nodeAffinity.required.nodeSelectorTerms");
	json_t *t;
	size_t i;

	if (!json_is_array(terms))
		return true;
	json_array_foreach(terms, i, t)
		if (sk_kube_node_term_matches(t, node_labels, node_name))
			return true;
	return false;
}

static bool selector_matches(json_t *pvc, json_t *pv)
{
	json_t *sel = sk_kube_jget(pvc, "spec.selector");

	if (!json_is_object(sel) || !json_object_size(sel))
		return true;
	return sk_kube_label_selector_json_match(sel, sk_kube_jget(pv, "metadata.labels"));
}

/* A candidate (not bound to the claim) the claim may take. */
static bool candidate(json_t *pv, json_t *pvc)
{
	const char *phase = sk_kube_jstr(pv, "status.phase");

	if (!str_eq(phase, "Available") || json_is_object(sk_kube_jget(pv, "spec.claimRef")))
		return false;
	if (!selector_matches(pvc, pv))
		return false;
	return !strcmp(sk_kube_volume_class(pv), sk_kube_volume_class(pvc));
}

int sk_kube_pv_find_match(json_t *pvs, json_t *pvc, bool delay_binding, json_t *node_labels, const char *node_name)
{
	json_t *want_modes = sk_kube_jget(pvc, "spec.accessModes"), *pv;
	int best = -1;
	size_t best_modes = SIZE_MAX, i;

	json_array_foreach(pvs, i, pv) {
		json_t *modes = sk_kube_jget(pv, "spec.accessModes");
		bool node_ok = !node_name || sk_kube_pv_matches_node(pv, node_labels, node_name);
		size_t nmodes = json_array_size(modes);

		if (!sk_kube_access_modes_contain(modes, want_modes) || capacity_cmp(pv, pvc) < 0 ||
		    strcmp(volume_mode(pv), volume_mode(pvc)) || sk_kube_jget(pv, "metadata.deletionTimestamp"))
			continue;
		if (sk_kube_pv_bound_to_claim(pv, pvc))
			return node_ok ? (int)i : -1;
		if ((!node_name && delay_binding) || !candidate(pv, pvc) || !node_ok)
			continue;
		if (best >= 0) {
			int cmp = 0;

			if (nmodes > best_modes)
				continue;
			if (nmodes == best_modes &&
			    (sk_kube_quantity_cmp(sk_kube_jget(pv, "spec.capacity.storage"),
						  sk_kube_jget(json_array_get(pvs, best), "spec.capacity.storage"),
						  &cmp) < 0 ||
			     cmp >= 0))
				continue;
		}
		best = (int)i;
		best_modes = nmodes;
	}
	return best;
}
