/* The ServiceAccounts controller (after pkg/controller/serviceaccount's
 * serviceaccounts_controller.go): every active namespace has a ServiceAccount
 * "default"; one that is deleted is made again. */
#include <string.h>

#include "ctrl/ctrl-int.h"
#include "util/util.h"

#define DEFAULT_SA "default"

static int ns_active(json_t *ns)
{
	const char *phase = json_string_value(sk_kube_jget(ns, "status.phase"));

	return !sk__is_deleting(ns) && (!phase || !strcmp(phase, "Active"));
}

static int sync_ns(sk_controller *k, const char *key)
{
	sk_informer *sas = k->state;
	cleanup_json json_t *ns = sk_informer_get(k->ctl->namespaces, "", key), *sa = NULL, *obj = NULL, *out = NULL;
	cleanup_free char *path = NULL;
	sk_error_t err = {0};

	if (!ns || !ns_active(ns))
		return 0;
	sa = sk_informer_get(sas, key, DEFAULT_SA);
	if (sa)
		return 0;
	path = sk__path("/api/v1", "serviceaccounts", key, NULL, NULL);
	obj = json_pack("{s:s, s:s, s:{s:s}}", "apiVersion", "v1", "kind", "ServiceAccount", "metadata", "name",
			DEFAULT_SA);
	out = sk_client_create(k->ctl->c, path, obj, &err);
	if (out) {
		sk_informer_write(sas, out);
		return 0;
	}
	/* made meanwhile, or the namespace is going away */
	if (err.code == SK_EEXISTS || err.code == SK_EFORBIDDEN || err.code == SK_ENOTFOUND)
		return 0;
	sk_warn("ctrl", "serviceaccounts: namespace %s: %s", key, err.msg);
	return -1;
}

static void on_namespace(void *ud, int ev, json_t *old, json_t *ns)
{
	(void)old;
	if (ev != SK_INF_DELETE)
		sk__queue_add(((sk_controller *)ud)->q, sk__name(ns));
}

static void on_sa(void *ud, int ev, json_t *old, json_t *sa)
{
	(void)old;
	if (ev == SK_INF_DELETE && !strcmp(sk__name(sa), DEFAULT_SA))
		sk__queue_add(((sk_controller *)ud)->q, sk__ns(sa));
}

/* the state is a shared informer: the controllers free it */
static void keep_informer(void *state) { (void)state; }

int sk__serviceaccount_init(struct sk_ctrl *ctl, sk_error_t *err)
{
	sk_informer *sas = sk__ctrl_extra(ctl, "/api/v1/serviceaccounts", "v1", "ServiceAccount");
	sk_controller *k = sk__controller_add(ctl, "serviceaccount", sync_ns, sas);

	(void)err;
	k->release = keep_informer;
	sk_informer_on(ctl->namespaces, on_namespace, k);
	sk_informer_on(sas, on_sa, k);
	return 0;
}
