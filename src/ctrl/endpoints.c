/* The Endpoints controller (after pkg/controller/endpoint): the legacy
 * core/v1 Endpoints object of every Service with a selector, mirrored for
 * old clients: ready and not-ready addresses per port set, the Service's
 * labels, the last-change-trigger-time and over-capacity annotations. The
 * Endpoints of a deleted Service are deleted. */
#include <stdlib.h>
#include <string.h>

#include "ctrl/ctrl-int.h"
#include "ctrl/endpointutil.h"
#include "util/util.h"

static int delete_endpoints(sk_controller *k, const char *ns, const char *name)
{
	cleanup_free char *path = sk__path("/api/v1", "endpoints", ns, name, NULL);
	cleanup_json json_t *cur = sk_informer_get(k->ctl->endpoints, ns, name);
	sk_error_t err = {0};

	if (!cur)
		return 0;
	if (sk_client_delete(k->ctl->c, path, NULL, &err) < 0 && err.code != SK_ENOTFOUND) {
		sk_warn("endpoints", "deleting %s/%s: %s", ns, name, err.msg);
		return -1;
	}
	sk_informer_forget(k->ctl->endpoints, cur);
	return 0;
}

static int sync_endpoints(sk_controller *k, const char *key)
{
	char ns[256], name[256];
	cleanup_json json_t *svc = NULL, *all = NULL, *pods = json_array(), *cur = NULL, *want = NULL, *out = NULL;
	cleanup_free char *trigger = NULL;
	sk_kube_label_selector *sel;
	sk_error_t err = {0};
	json_t *p;
	size_t i;

	sk__split_key(key, ns, sizeof(ns), name, sizeof(name));
	svc = sk_informer_get(k->ctl->services, ns, name);
	if (!svc)
		return delete_endpoints(k, ns, name);
	if (!sk_eps_service_selects(svc) || !strcmp(sk_kube_jstr(svc, "spec.type") ?: "", "ExternalName"))
		return 0;
	sel = sk_kube_label_selector_from_set(sk_kube_jget(svc, "spec.selector"));
	all = sk_informer_list(k->ctl->pods, ns);
	json_array_foreach(all, i, p)
		if (sel && sk_kube_label_selector_match(sel, sk_kube_jget(p, "metadata.labels")))
			json_array_append(pods, p);
	sk_kube_label_selector_free(sel);
	cur = sk_informer_get(k->ctl->endpoints, ns, name);
	trigger = sk_ep_trigger_time(svc, pods);
	want = sk_ep_desired(svc, pods, cur, trigger);
	if (!want)
		return 0;
	if (cur) {
		cleanup_free char *path = sk__path("/api/v1", "endpoints", ns, name, NULL);

		out = sk_client_update(k->ctl->c, path, want, &err);
	} else {
		cleanup_free char *path = sk__path("/api/v1", "endpoints", ns, NULL, NULL);

		out = sk_client_create(k->ctl->c, path, want, &err);
	}
	if (!out) {
		if (err.code != SK_ECONFLICT && err.code != SK_EEXISTS)
			sk_warn("endpoints", "service %s: %s", key, err.msg);
		return -1;
	}
	sk_informer_write(k->ctl->endpoints, out);
	return 0;
}

static void on_pod(void *ud, int ev, json_t *old, json_t *pod)
{
	(void)ev;
	sk__eps_enqueue_pod_services(ud, old, pod);
}

/* A deleted Endpoints of a Service is made again. */
static void on_endpoints(void *ud, int ev, json_t *old, json_t *ep)
{
	sk_controller *k = ud;
	cleanup_free char *key = NULL;

	(void)old;
	if (ev != SK_INF_DELETE)
		return;
	key = sk__key(ep);
	sk__queue_add(k->q, key);
}

int sk__endpoints_init(struct sk_ctrl *ctl, sk_error_t *err)
{
	sk_controller *k = sk__controller_add(ctl, "endpoints", sync_endpoints, NULL);

	(void)err;
	k->primary = ctl->services;
	k->resync_secs = 30;
	sk_informer_on(ctl->services, sk__enqueue_self, k);
	sk_informer_on(ctl->pods, on_pod, k);
	sk_informer_on(ctl->endpoints, on_endpoints, k);
	return 0;
}
