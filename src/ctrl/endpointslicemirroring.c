/* The EndpointSlice mirroring controller (after
 * pkg/controller/endpointslicemirroring): the Endpoints a user writes for a
 * Service without a selector are mirrored into EndpointSlices (managed by
 * endpointslicemirroring-controller.k8s.io, owned by the Endpoints), one per
 * address type and port set. Endpoints labelled
 * endpointslice.kubernetes.io/skip-mirror: "true" (or carrying a leader
 * election annotation) are not mirrored; the slices go when the Endpoints
 * or the Service go, or the Service gains a selector. */
#include <stdlib.h>
#include <string.h>

#include "ctrl/ctrl-int.h"
#include "ctrl/endpointutil.h"
#include "util/util.h"

static int should_mirror(json_t *ep)
{
	const char *skip = json_string_value(
		json_object_get(sk_kube_jget(ep, "metadata.labels"), SK_EPS_LABEL_SKIP_MIRROR));

	if (skip && !strcmp(skip, "true"))
		return 0;
	return !json_object_get(sk_kube_jget(ep, "metadata.annotations"), SK_EP_LEADER_ANNOTATION);
}

static int delete_mirrored(sk_controller *k, const char *ns, const char *name)
{
	cleanup_json json_t *slices = sk__eps_slices_of(k->ctl, ns, name, SK_EPS_MIRROR_CONTROLLER);
	cleanup_json json_t *none = json_object();
	sk_eps_plan plan;
	sk_error_t err = {0};
	int rc;

	if (!json_array_size(slices))
		return 0;
	sk_eps_plan_init(&plan);
	json_array_extend(plan.del, slices);
	rc = sk__eps_apply_plan(k->ctl, ns, none, &plan, &err);
	sk_eps_plan_release(&plan);
	if (rc < 0)
		sk_warn("endpointslicemirroring", "%s/%s: %s", ns, name, err.msg);
	return rc;
}

static int sync_mirror(sk_controller *k, const char *key)
{
	char ns[256], name[256];
	cleanup_json json_t *svc = NULL, *ep = NULL, *existing = NULL;
	sk_eps_plan plan;
	sk_error_t err = {0};
	int skipped, invalid, rc;

	sk__split_key(key, ns, sizeof(ns), name, sizeof(name));
	svc = sk_informer_get(k->ctl->services, ns, name);
	ep = sk_informer_get(k->ctl->endpoints, ns, name);
	if (!svc || sk_eps_service_selects(svc) || !ep || !should_mirror(ep))
		return delete_mirrored(k, ns, name);
	existing = sk__eps_slices_of(k->ctl, ns, name, SK_EPS_MIRROR_CONTROLLER);
	sk_eps_mirror_reconcile(ep, existing, SK_EPS_MIRROR_MAX, &plan, &skipped, &invalid);
	rc = sk__eps_apply_plan(k->ctl, ns, ep, &plan, &err);
	if (rc == 0 && (json_array_size(plan.create) || json_array_size(plan.update))) {
		if (invalid)
			sk_event_record(k->ctl->c, ep, "Warning", "InvalidIPAddress",
					"endpointslice-mirroring-controller", NULL,
					"Skipped %d invalid IP addresses when mirroring to EndpointSlices", invalid);
		if (skipped > invalid)
			sk_event_record(
				k->ctl->c, ep, "Warning", "TooManyAddressesToMirror",
				"endpointslice-mirroring-controller", NULL,
				"A max of %d addresses can be mirrored to EndpointSlices per Endpoints subset. %d "
				"addresses were skipped",
				SK_EPS_MIRROR_MAX, skipped - invalid);
	}
	sk_eps_plan_release(&plan);
	if (rc < 0) {
		sk_warn("endpointslicemirroring", "endpoints %s: %s", key, err.msg);
		return -1;
	}
	return 0;
}

static void on_slice(void *ud, int ev, json_t *old, json_t *slice)
{
	(void)ev;
	(void)old;
	sk__eps_enqueue_slice_service(ud, slice, SK_EPS_MIRROR_CONTROLLER);
}

int sk__endpointslicemirroring_init(struct sk_ctrl *ctl, sk_error_t *err)
{
	sk_controller *k = sk__controller_add(ctl, "endpointslicemirroring", sync_mirror, NULL);

	(void)err;
	k->primary = ctl->endpoints;
	k->resync_secs = 30;
	sk_informer_on(ctl->endpoints, sk__enqueue_self, k);
	sk_informer_on(ctl->services, sk__enqueue_self, k);
	sk_informer_on(ctl->slices, on_slice, k);
	return 0;
}
