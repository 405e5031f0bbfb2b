/* The ServiceAccount admission plugin (upstream's
 * plugin/pkg/admission/serviceaccount): a pod's serviceAccountName defaults
 * to "default", a pod naming a ServiceAccount that does not exist is
 * refused, and unless automountServiceAccountToken says no (the pod's
 * setting wins over the ServiceAccount's) every container and init
 * container mounts the projected volume kube-api-access-<5 chars> (a bound
 * token, the cluster CA, the namespace) read-only at
 * /var/run/secrets/kubernetes.io/serviceaccount.
 *
 * One difference: a missing "default" ServiceAccount is made on the spot
 * (as the ServiceAccounts controller makes it a moment later) instead of
 * refusing the pod, so that a pod created right after its namespace does
 * not meet upstream's "error looking up service account" race. */
#include <string.h>

#include "api/admission.h"
#include "util/util.h"

#define MOUNT_PATH "/var/run/secrets/kubernetes.io/serviceaccount"
#define VOLUME_PREFIX "kube-api-access-"
#define DEFAULT_SA "default"

/* Makes the namespace's default ServiceAccount (see the top). */
static json_t *make_default(sk_api *api, const char *ns)
{
	sk_client *c = sk_client_new_inproc(api);
	cleanup_free char *path = xasprintf("/api/v1/namespaces/%s/serviceaccounts", ns);
	cleanup_json json_t *obj = json_pack("{s:s, s:s, s:{s:s}}", "apiVersion", "v1", "kind", "ServiceAccount",
					     "metadata", "name", DEFAULT_SA);
	sk_error_t err = {0};
	json_t *out = sk_client_create(c, path, obj, &err);

	sk_client_free(c);
	return out ? out : sk__stored_core(api, "serviceaccounts", ns, DEFAULT_SA);
}

static int should_automount(json_t *sa, json_t *spec)
{
	json_t *p = json_object_get(spec, "automountServiceAccountToken");
	json_t *s = json_object_get(sa, "automountServiceAccountToken");

	if (json_is_boolean(p))
		return json_is_true(p);
	if (json_is_boolean(s))
		return json_is_true(s);
	return 1;
}

/* upstream's TokenVolumeSource() */
static json_t *token_volume(const char *name)
{
	return json_pack("{s:s, s:{s:i, s:[{s:{s:i, s:s}}, {s:{s:s, s:[{s:s, s:s}]}}, {s:{s:[{s:{s:s, s:s}, "
			 "s:s}]}}]}}",
			 "name", name, "projected", "defaultMode", 420, "sources", "serviceAccountToken",
			 "expirationSeconds", 3607, "path", "token", "configMap", "name", "kube-root-ca.crt", "items",
			 "key", "ca.crt", "path", "ca.crt", "downwardAPI", "items", "fieldRef", "apiVersion", "v1",
			 "fieldPath", "metadata.namespace", "path", "namespace");
}

/* Adds the mount to every container of list without one at MOUNT_PATH;
 * returns whether any got it. */
static int add_mounts(json_t *list, const char *volume)
{
	json_t *c, *m;
	size_t i, j;
	int added = 0;

	json_array_foreach(list, i, c) {
		json_t *mounts = json_object_get(c, "volumeMounts");
		int has = 0;

		json_array_foreach(mounts, j, m) {
			const char *mp = json_string_value(json_object_get(m, "mountPath"));

			if (mp && !strcmp(mp, MOUNT_PATH))
				has = 1;
		}
		if (has || !json_is_object(c))
			continue;
		if (!json_is_array(mounts)) {
			mounts = json_array();
			json_object_set_new(c, "volumeMounts", mounts);
		}
		json_array_append_new(
			mounts, json_pack("{s:s, s:b, s:s}", "name", volume, "readOnly", 1, "mountPath", MOUNT_PATH));
		added = 1;
	}
	return added;
}

static void mount_token(json_t *spec)
{
	json_t *vols = json_object_get(spec, "volumes"), *v;
	const char *existing = NULL;
	char name[sizeof(VOLUME_PREFIX) + 6];
	size_t i;
	int need;

	json_array_foreach(vols, i, v) {
		const char *n = json_string_value(json_object_get(v, "name"));

		if (n && !strncmp(n, VOLUME_PREFIX, strlen(VOLUME_PREFIX))) {
			existing = n;
			break;
		}
	}
	if (existing) {
		snprintf(name, sizeof(name), "%s", existing);
	} else {
		char sfx[6];

		sk__name_suffix(sfx);
		snprintf(name, sizeof(name), VOLUME_PREFIX "%s", sfx);
	}
	need = add_mounts(json_object_get(spec, "initContainers"), name);
	need |= add_mounts(json_object_get(spec, "containers"), name);
	if (existing || !need)
		return;
	if (!json_is_array(vols)) {
		vols = json_array();
		json_object_set_new(spec, "volumes", vols);
	}
	json_array_append_new(vols, token_volume(name));
}

static int forbidden(sk_adm_request *a, const char *sa, sk_error_t *err)
{
	return sk_error_set(err, SK_EFORBIDDEN,
			    "pods \"%s\" is forbidden: error looking up service account %s/%s: serviceaccount \"%s\" "
			    "not found",
			    a->name, a->ns, sa, sa);
}

static int is_pod_create(const sk_adm_request *a)
{
	return a->op == SK_ADM_CREATE && !a->sub[0] && !a->res->group[0] && !strcmp(a->res->kind, "Pod");
}

static int admit(sk_api *api, sk_adm_request *a, sk_error_t *err)
{
	json_t *spec = json_object_get(a->obj, "spec");
	cleanup_json json_t *sa = NULL;
	const char *name;

	if (!is_pod_create(a) || !json_is_object(spec))
		return 0;
	name = json_string_value(json_object_get(spec, "serviceAccountName"));
	if (!name || !*name) {
		/* the deprecated serviceAccount alias, as v1 conversion reads it */
		name = json_string_value(json_object_get(spec, "serviceAccount"));
		json_object_set_new(spec, "serviceAccountName", json_string(name && *name ? name : DEFAULT_SA));
		name = json_string_value(json_object_get(spec, "serviceAccountName"));
	}
	json_object_set_new(spec, "serviceAccount", json_string(name));
	sa = sk__stored_core(api, "serviceaccounts", a->ns, name);
	if (!sa && !strcmp(name, DEFAULT_SA) && !a->dry_run)
		sa = make_default(api, a->ns);
	if (!sa && !(a->dry_run && !strcmp(name, DEFAULT_SA)))
		return forbidden(a, name, err);
	if (should_automount(sa, spec))
		mount_token(spec);
	if (!json_array_size(json_object_get(spec, "imagePullSecrets")) &&
	    json_array_size(json_object_get(sa, "imagePullSecrets")))
		json_object_set(spec, "imagePullSecrets", json_object_get(sa, "imagePullSecrets"));
	return 0;
}

const sk_adm_plugin sk__adm_serviceaccount = {
	.name = "ServiceAccount",
	.admit = admit,
};
