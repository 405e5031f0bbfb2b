/* The root CA publisher (after pkg/controller/certificates/rootcacertpublisher):
 * every namespace that is not being deleted has the ConfigMap
 * kube-root-ca.crt holding the cluster CA as "ca.crt", which pods' projected
 * service-account volumes mount. A changed or deleted one is written again. */
#include <string.h>

#include "ctrl/ctrl-int.h"
#include "util/util.h"

#define CM_NAME "kube-root-ca.crt"
#define DESC_KEY "kubernetes.io/description"
#define DESC \
	"Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such " \
	"as the internal service IP or kubernetes.default.svc. No other usage is guaranteed across distributions " \
	"of Kubernetes clusters."

static int up_to_date(json_t *cm, const char *ca)
{
	json_t *data = json_object_get(cm, "data");
	const char *have = json_string_value(json_object_get(data, "ca.crt"));
	const char *desc = json_string_value(json_object_get(sk_kube_jget(cm, "metadata.annotations"), DESC_KEY));

	return have && !strcmp(have, ca) && json_object_size(data) == 1 && desc && !strcmp(desc, DESC);
}

static int sync_cm(sk_controller *k, const char *key)
{
	struct sk_ctrl *ctl = k->ctl;
	sk_informer *cms = k->state;
	const char *ca = ctl->o.root_ca_pem;
	cleanup_json json_t *ns = sk_informer_get(ctl->namespaces, "", key), *cm = NULL, *obj = NULL, *out = NULL;
	cleanup_free char *path = NULL;
	sk_error_t err = {0};
	json_t *meta, *ann;

	if (!ns || sk__is_deleting(ns))
		return 0;
	cm = sk_informer_get(cms, key, CM_NAME);
	if (cm && up_to_date(cm, ca))
		return 0;
	if (!cm) {
		path = sk__path("/api/v1", "configmaps", key, NULL, NULL);
		obj = json_pack("{s:s, s:s, s:{s:s, s:{s:s}}, s:{s:s}}", "apiVersion", "v1", "kind", "ConfigMap",
				"metadata", "name", CM_NAME, "annotations", DESC_KEY, DESC, "data", "ca.crt", ca);
		out = sk_client_create(ctl->c, path, obj, &err);
	} else {
		path = sk__path("/api/v1", "configmaps", key, CM_NAME, NULL);
		obj = json_deep_copy(cm);
		meta = json_object_get(obj, "metadata");
		ann = json_object_get(meta, "annotations");
		if (!json_is_object(ann)) {
			ann = json_object();
			json_object_set_new(meta, "annotations", ann);
		}
		json_object_set_new(ann, DESC_KEY, json_string(DESC));
		json_object_set_new(obj, "data", json_pack("{s:s}", "ca.crt", ca));
		json_object_del(obj, "binaryData");
		out = sk_client_update(ctl->c, path, obj, &err);
	}
	if (out) {
		sk_informer_write(cms, out);
		return 0;
	}
	if (err.code == SK_EEXISTS || err.code == SK_EFORBIDDEN || err.code == SK_ENOTFOUND)
		return 0;
	if (err.code != SK_ECONFLICT)
		sk_warn("ctrl", "root-ca-cert-publisher: namespace %s: %s", key, err.msg);
	return -1;
}

static void on_namespace(void *ud, int ev, json_t *old, json_t *ns)
{
	(void)old;
	if (ev != SK_INF_DELETE)
		sk__queue_add(((sk_controller *)ud)->q, sk__name(ns));
}

static void on_cm(void *ud, int ev, json_t *old, json_t *cm)
{
	(void)old;
	if (ev != SK_INF_ADD && !strcmp(sk__name(cm), CM_NAME))
		sk__queue_add(((sk_controller *)ud)->q, sk__ns(cm));
}

static void keep_informer(void *state) { (void)state; }

int sk__rootcacert_init(struct sk_ctrl *ctl, sk_error_t *err)
{
	sk_informer *cms;
	sk_controller *k;

	(void)err;
	if (!ctl->o.root_ca_pem)
		return 0;
	cms = sk__ctrl_extra(ctl, "/api/v1/configmaps", "v1", "ConfigMap");
	k = sk__controller_add(ctl, "root-ca-cert-publisher", sync_cm, cms);
	k->release = keep_informer;
	sk_informer_on(ctl->namespaces, on_namespace, k);
	sk_informer_on(cms, on_cm, k);
	return 0;
}
