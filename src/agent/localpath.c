/* A small local-path provisioner: a PersistentVolumeClaim used by a pod on
 * this node and not yet bound gets a PersistentVolume "pvc-<claim uid>"
 * backed by <data>/volumes/pvc-<claim uid>, bound to the claim (spec.volumeName,
 * claimRef, both statuses Bound), as rancher's local-path-provisioner does
 * with WaitForFirstConsumer. Bound claims resolve to their PV's hostPath or
 * local path. */
#include <errno.h>
#include <string.h>

#include "agent/agent-int.h"
#include "util/util.h"

static char *pv_path(json_t *pv)
{
	const char *p = sk_kube_jstr(pv, "spec.hostPath.path");

	if (!p)
		p = sk_kube_jstr(pv, "spec.local.path");
	return p ? xstrdup(p) : NULL;
}

static void mark_bound(struct sk_agent *a, const char *ns, const char *claim, json_t *pv)
{
	cleanup_free char *cpath = xasprintf("/api/v1/namespaces/%s/persistentvolumeclaims/%s/status", ns, claim);
	cleanup_free char *vpath = xasprintf("/api/v1/persistentvolumes/%s/status", sk_kube_jstr(pv, "metadata.name"));
	json_t *modes = sk_kube_jget(pv, "spec.accessModes"), *cap = sk_kube_jget(pv, "spec.capacity");
	cleanup_json json_t *cst = json_pack("{s:{s:s, s:o, s:o}}", "status", "phase", "Bound", "accessModes",
					     modes ? json_incref(modes) : json_array(), "capacity",
					     cap ? json_incref(cap) : json_object());
	cleanup_json json_t *vst = json_pack("{s:{s:s}}", "status", "phase", "Bound");
	cleanup_json json_t *r1 = NULL, *r2 = NULL;
	sk_error_t err = {0};

	r1 = sk_client_patch(a->c, cpath, SK_PATCH_MERGE, cst, &err);
	if (!r1)
		sk_warn("agent", "claim %s/%s status: %s", ns, claim, err.msg);
	r2 = sk_client_patch(a->c, vpath, SK_PATCH_MERGE, vst, &err);
	if (!r2)
		sk_warn("agent", "volume %s status: %s", sk_kube_jstr(pv, "metadata.name"), err.msg);
}

static json_t *provision(struct sk_agent *a, json_t *pvc, sk_error_t *err)
{
	const char *uid = sk_kube_jstr(pvc, "metadata.uid") ? sk_kube_jstr(pvc, "metadata.uid") : "";
	cleanup_free char *name = xasprintf("pvc-%s", uid);
	cleanup_free char *dir = xasprintf("%s/volumes/%s", a->data_dir, name);
	const char *size = sk_kube_jstr(pvc, "spec.resources.requests.storage");
	json_t *modes = sk_kube_jget(pvc, "spec.accessModes");
	json_t *pv, *created;

	if (sk_mkdir_p(dir, 0777) < 0) {
		sk_error_errno(err, errno, "creating \"%s\"", dir);
		return NULL;
	}
	pv = json_pack("{s:s, s:s, s:{s:s, s:{s:s}}, s:{s:{s:s}, s:o, s:{s:s, s:s}, s:{s:s, s:s, s:s, s:s, s:s}, s:s}}",
		       "apiVersion", "v1", "kind", "PersistentVolume", "metadata", "name", name, "annotations",
		       "pv.kubernetes.io/provisioned-by", "skiff.io/local-path", "spec", "capacity", "storage",
		       size ? size : "1Gi", "accessModes",
		       modes ? json_incref(modes) : json_pack("[s]", "ReadWriteOnce"), "hostPath", "path", dir, "type",
		       "DirectoryOrCreate", "claimRef", "apiVersion", "v1", "kind", "PersistentVolumeClaim",
		       "namespace", sk_kube_jstr(pvc, "metadata.namespace"), "name", sk_kube_jstr(pvc, "metadata.name"),
		       "uid", uid, "persistentVolumeReclaimPolicy", "Delete");
	if (sk_kube_jstr(pvc, "spec.storageClassName"))
		json_object_set(json_object_get(pv, "spec"), "storageClassName",
				sk_kube_jget(pvc, "spec.storageClassName"));
	created = sk_client_create(a->c, "/api/v1/persistentvolumes", pv, err);
	if (!created && err->code == SK_EEXISTS) {
		cleanup_free char *path = xasprintf("/api/v1/persistentvolumes/%s", name);

		sk_error_clear(err);
		created = sk_client_get(a->c, path, err);
	}
	json_decref(pv);
	return created;
}

char *sk__localpath_claim(struct sk_agent *a, const char *ns, const char *claim, sk_error_t *err)
{
	cleanup_free char *path = xasprintf("/api/v1/namespaces/%s/persistentvolumeclaims/%s", ns, claim);
	cleanup_json json_t *pvc = sk_client_get(a->c, path, err);
	cleanup_json json_t *pv = NULL;
	const char *vname;
	char *dir;

	if (!pvc) {
		if (err->code == SK_ENOTFOUND)
			sk_error_set(err, SK_ENOTFOUND, "persistentvolumeclaim \"%s\" not found", claim);
		return NULL;
	}
	vname = sk_kube_jstr(pvc, "spec.volumeName");
	if (vname && *vname) {
		cleanup_free char *vpath = xasprintf("/api/v1/persistentvolumes/%s", vname);

		pv = sk_client_get(a->c, vpath, err);
		if (!pv)
			return NULL;
	} else {
		cleanup_json json_t *patch = NULL, *r = NULL;

		pv = provision(a, pvc, err);
		if (!pv)
			return NULL;
		patch = json_pack("{s:{s:s}}", "spec", "volumeName", sk_kube_jstr(pv, "metadata.name"));
		r = sk_client_patch(a->c, path, SK_PATCH_MERGE, patch, err);
		if (!r)
			return NULL;
		sk_info("agent", "provisioned %s for claim %s/%s", sk_kube_jstr(pv, "metadata.name"), ns, claim);
	}
	if (!sk_kube_jstr(pvc, "status.phase") || strcmp(sk_kube_jstr(pvc, "status.phase"), "Bound"))
		mark_bound(a, ns, claim, pv);
	dir = pv_path(pv);
	if (!dir) {
		sk_error_set(err, SK_EINVALID, "persistentvolume \"%s\" has no hostPath or local path",
			     sk_kube_jstr(pv, "metadata.name"));
		return NULL;
	}
	if (sk_mkdir_p(dir, 0777) < 0) {
		sk_error_errno(err, errno, "creating \"%s\"", dir);
		free(dir);
		return NULL;
	}
	return dir;
}
