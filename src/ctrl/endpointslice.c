/* The EndpointSlice controller (after pkg/controller/endpointslice): for
 * every Service with a selector, EndpointSlices (managed by
 * endpointslice-controller.k8s.io, owned by the Service) holding one
 * endpoint per selected pod with an IP, grouped by the ports the pod
 * resolves, at most SK_EPS_MAX_ENDPOINTS each. The contents come from
 * endpointutil.c; this file wires the informers and writes the plan. */
#include <stdlib.h>
#include <string.h>

#include "ctrl/ctrl-int.h"
#include "ctrl/endpointutil.h"
#include "util/util.h"

#define EPS_PREFIX "/apis/discovery.k8s.io/v1"

json_t *sk__eps_slices_of(struct sk_ctrl *ctl, const char *ns, const char *name, const char *managed_by)
{
	cleanup_json json_t *all = sk_informer_list(ctl->slices, ns);
	json_t *out = json_array(), *s, *labels;
	size_t i;

	json_array_foreach(all, i, s) {
		labels = sk_kube_jget(s, "metadata.labels");
		if (sk__is_deleting(s) ||
		    strcmp(json_string_value(json_object_get(labels, SK_EPS_LABEL_SERVICE)) ?: "", name) ||
		    strcmp(json_string_value(json_object_get(labels, SK_EPS_LABEL_MANAGED_BY)) ?: "", managed_by))
			continue;
		json_array_append(out, s);
	}
	return out;
}

static int owned_by(json_t *slice, json_t *owner)
{
	json_t *r;
	size_t i;

	json_array_foreach(sk_kube_jget(slice, "metadata.ownerReferences"), i, r)
		if (!strcmp(json_string_value(json_object_get(r, "uid")) ?: "", sk__uid(owner) ?: ""))
			return 1;
	return 0;
}

/* A create turned into an update of old (which it replaces). */
static json_t *as_update_of(json_t *create, json_t *old)
{
	json_t *s = json_deep_copy(create), *meta = sk_kube_jobj(s, "metadata");

	json_object_set_new(meta, "name", json_string(sk__name(old)));
	json_object_del(meta, "generateName");
	if (sk_kube_jstr(old, "metadata.generateName"))
		json_object_set_new(meta, "generateName", json_string(sk_kube_jstr(old, "metadata.generateName")));
	json_object_set_new(meta, "resourceVersion", json_string(sk_kube_jstr(old, "metadata.resourceVersion") ?: ""));
	return s;
}

/* Pairs creates with deletes of the same address type owned by owner. */
static void creates_to_updates(json_t *owner, sk_eps_plan *p)
{
	size_t i = 0;

	while (i < json_array_size(p->del) && json_array_size(p->create)) {
		json_t *old = json_array_get(p->del, i);
		json_t *last = json_array_get(p->create, json_array_size(p->create) - 1);

		if (!strcmp(sk_kube_jstr(old, "addressType") ?: "", sk_kube_jstr(last, "addressType") ?: "") &&
		    owned_by(old, owner)) {
			json_array_append_new(p->update, as_update_of(last, old));
			json_array_remove(p->create, json_array_size(p->create) - 1);
			json_array_remove(p->del, i);
		} else {
			i++;
		}
	}
}

int sk__eps_apply_plan(struct sk_ctrl *ctl, const char *ns, json_t *owner, sk_eps_plan *plan, sk_error_t *err)
{
	cleanup_free char *coll = sk__path(EPS_PREFIX, "endpointslices", ns, NULL, NULL);
	json_t *s;
	size_t i;

	creates_to_updates(owner, plan);
	json_array_foreach(plan->create, i, s) {
		json_t *out;

		if (sk__is_deleting(owner))
			break;
		out = sk_client_create(ctl->c, coll, s, err);
		if (!out)
			return -1;
		sk_informer_write(ctl->slices, out);
		json_decref(out);
	}
	json_array_foreach(plan->update, i, s) {
		cleanup_free char *path = sk__path(EPS_PREFIX, "endpointslices", ns, sk__name(s), NULL);
		json_t *out = sk_client_update(ctl->c, path, s, err);

		if (!out)
			return -1;
		sk_informer_write(ctl->slices, out);
		json_decref(out);
	}
	json_array_foreach(plan->del, i, s) {
		cleanup_free char *path = sk__path(EPS_PREFIX, "endpointslices", ns, sk__name(s), NULL);

		if (sk_client_delete(ctl->c, path, NULL, err) < 0 && err->code != SK_ENOTFOUND)
			return -1;
		sk_informer_forget(ctl->slices, s);
	}
	return 0;
}

/* The Services of ns whose selector matches labels (new array). */
static json_t *services_selecting(struct sk_ctrl *ctl, const char *ns, json_t *labels)
{
	cleanup_json json_t *all = sk_informer_list(ctl->services, ns);
	json_t *out = json_array(), *svc;
	size_t i;

	json_array_foreach(all, i, svc) {
		sk_kube_label_selector *sel;

		if (!sk_eps_service_selects(svc))
			continue;
		sel = sk_kube_label_selector_from_set(sk_kube_jget(svc, "spec.selector"));
		if (sel && sk_kube_label_selector_match(sel, labels))
			json_array_append(out, svc);
		sk_kube_label_selector_free(sel);
	}
	return out;
}

static void enqueue_selecting(sk_controller *k, json_t *pod)
{
	cleanup_json json_t *svcs = services_selecting(k->ctl, sk__ns(pod), sk_kube_jget(pod, "metadata.labels"));
	json_t *svc;
	size_t i;

	json_array_foreach(svcs, i, svc) {
		cleanup_free char *key = sk__key(svc);

		sk__queue_add(k->q, key);
	}
}

void sk__eps_enqueue_pod_services(sk_controller *k, json_t *old, json_t *pod)
{
	if (old && old != pod &&
	    !json_equal(sk_kube_jget(old, "metadata.labels"), sk_kube_jget(pod, "metadata.labels")))
		enqueue_selecting(k, old);
	enqueue_selecting(k, pod);
}

static void on_pod(void *ud, int ev, json_t *old, json_t *pod)
{
	(void)ev;
	sk__eps_enqueue_pod_services(ud, old, pod);
}

static void enqueue_all_services(sk_controller *k)
{
	cleanup_json json_t *all = sk_informer_list(k->ctl->services, NULL);
	json_t *svc;
	size_t i;

	json_array_foreach(all, i, svc) {
		cleanup_free char *key = NULL;

		if (!sk_eps_service_selects(svc))
			continue;
		key = sk__key(svc);
		sk__queue_add(k->q, key);
	}
}

/* A node coming or going, or changing its zone, changes the endpoints of
 * the pods on it. */
static void on_node(void *ud, int ev, json_t *old, json_t *node)
{
	if (ev == SK_INF_UPDATE && old &&
	    json_equal(sk_kube_jget(old, "metadata.labels"), sk_kube_jget(node, "metadata.labels")))
		return;
	enqueue_all_services(ud);
}

void sk__eps_enqueue_slice_service(sk_controller *k, json_t *slice, const char *managed_by)
{
	json_t *labels = sk_kube_jget(slice, "metadata.labels");
	const char *svc = json_string_value(json_object_get(labels, SK_EPS_LABEL_SERVICE));
	cleanup_free char *key = NULL;

	if (!svc || strcmp(json_string_value(json_object_get(labels, SK_EPS_LABEL_MANAGED_BY)) ?: "", managed_by))
		return;
	key = xasprintf("%s/%s", sk__ns(slice), svc);
	sk__queue_add(k->q, key);
}

static void on_slice(void *ud, int ev, json_t *old, json_t *slice)
{
	(void)ev;
	(void)old;
	sk__eps_enqueue_slice_service(ud, slice, SK_EPS_CONTROLLER);
}

/* Node name -> Node over the node informer. */
static json_t *nodes_by_name(struct sk_ctrl *ctl)
{
	cleanup_json json_t *all = sk_informer_list(ctl->nodes, NULL);
	json_t *out = json_object(), *n;
	size_t i;

	json_array_foreach(all, i, n)
		json_object_set(out, sk__name(n), n);
	return out;
}

static int sync_service(sk_controller *k, const char *key)
{
	char ns[256], name[256];
	cleanup_json json_t *svc = NULL, *all = NULL, *pods = json_array(), *nodes = NULL, *existing = NULL;
	cleanup_free char *trigger = NULL;
	sk_kube_label_selector *sel;
	sk_eps_plan plan;
	sk_error_t err = {0};
	json_t *p;
	size_t i;
	int missing = 0, rc;

	sk__split_key(key, ns, sizeof(ns), name, sizeof(name));
	svc = sk_informer_get(k->ctl->services, ns, name);
	/* a deleted Service's slices go with it (garbage collector) */
	if (!svc || !sk_eps_service_selects(svc) || sk__is_deleting(svc) ||
	    !strcmp(sk_kube_jstr(svc, "spec.type") ?: "", "ExternalName"))
		return 0;
	sel = sk_kube_label_selector_from_set(sk_kube_jget(svc, "spec.selector"));
	all = sk_informer_list(k->ctl->pods, ns);
	json_array_foreach(all, i, p)
		if (sel && sk_kube_label_selector_match(sel, sk_kube_jget(p, "metadata.labels")))
			json_array_append(pods, p);
	sk_kube_label_selector_free(sel);
	nodes = nodes_by_name(k->ctl);
	existing = sk__eps_slices_of(k->ctl, ns, name, SK_EPS_CONTROLLER);
	sk_eps_reconcile(svc, pods, nodes, existing, SK_EPS_MAX_ENDPOINTS, &plan, &missing);
	trigger = sk_ep_trigger_time(svc, pods);
	sk_eps_plan_trigger_time(&plan, trigger);
	rc = sk__eps_apply_plan(k->ctl, ns, svc, &plan, &err);
	sk_eps_plan_release(&plan);
	if (rc < 0) {
		sk_warn("endpointslice", "service %s: %s", key, err.msg);
		return -1;
	}
	/* pods on a node not seen yet: retry until it shows up or they go */
	if (missing)
		sk__queue_add_after(k->q, key, 1000);
	return 0;
}

int sk__endpointslice_init(struct sk_ctrl *ctl, sk_error_t *err)
{
	sk_controller *k = sk__controller_add(ctl, "endpointslice", sync_service, NULL);

	(void)err;
	k->primary = ctl->services;
	k->resync_secs = 30;
	sk_informer_on(ctl->services, sk__enqueue_self, k);
	sk_informer_on(ctl->pods, on_pod, k);
	sk_informer_on(ctl->nodes, on_node, k);
	sk_informer_on(ctl->slices, on_slice, k);
	return 0;
}
