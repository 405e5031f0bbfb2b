/* The local-path provisioner of the node (rancher's local-path-provisioner,
 * provisioner name "rancher.io/local-path", the class "local-path" the PV
 * controller creates): a claim handed to it (annotation
 * volume.kubernetes.io/storage-provisioner, set by the PV controller) whose
 * selected node (volume.kubernetes.io/selected-node, set by the scheduler)
 * is this node gets a PersistentVolume "pvc-<claim uid>" backed by
 * <data>/volumes/pvc-<uid>_<ns>_<name>, a hostPath volume with a node
 * affinity to this node and a claimRef to the claim; the PV controller then
 * binds the claim to it. A pod placed here without the scheduler (nodeName)
 * selects this node for its claims itself. When such a volume is Released
 * with reclaim policy Delete, the directory and the object are deleted.
 * Bound claims resolve to their volume's hostPath or local path. */
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "agent/agent-int.h"
#include "kube/volume.h"
#include "util/util.h"

#define PROVISIONER "rancher.io/local-path"

static char *pv_path(json_t *pv)
{
	const char *p = sk_kube_jstr(pv, "spec.hostPath.path");

	if (!p)
		p = sk_kube_jstr(pv, "spec.local.path");
	return p ? xstrdup(p) : NULL;
}

static const char *ann(json_t *obj, const char *key)
{
	return json_string_value(json_object_get(sk_kube_jget(obj, "metadata.annotations"), key));
}

static char *volume_dir(struct sk_agent *a, json_t *pvc)
{
	return xasprintf("%s/volumes/pvc-%s_%s_%s", a->data_dir, sk_kube_jstr(pvc, "metadata.uid") ?: "",
			 sk_kube_jstr(pvc, "metadata.namespace") ?: "", sk_kube_jstr(pvc, "metadata.name") ?: "");
}

/* The class's reclaim policy (Delete when it cannot be read). */
static const char *reclaim_policy(struct sk_agent *a, json_t *pvc, char *buf, size_t len)
{
	const char *cls = sk_kube_volume_class(pvc);
	cleanup_free char *path = xasprintf("/apis/storage.k8s.io/v1/storageclasses/%s", cls);
	cleanup_json json_t *sc = NULL;
	sk_error_t err = {0};

	snprintf(buf, len, "Delete");
	if (*cls && (sc = sk_client_get(a->c, path, &err)) && sk_kube_jstr(sc, "reclaimPolicy"))
		snprintf(buf, len, "%s", sk_kube_jstr(sc, "reclaimPolicy"));
	return buf;
}

static int provision(struct sk_agent *a, json_t *pvc, sk_error_t *err)
{
	const char *uid = sk_kube_jstr(pvc, "metadata.uid") ?: "";
	cleanup_free char *name = xasprintf("pvc-%s", uid);
	cleanup_free char *dir = volume_dir(a, pvc);
	const char *size = sk_kube_jstr(pvc, "spec.resources.requests.storage");
	json_t *modes = sk_kube_jget(pvc, "spec.accessModes");
	cleanup_json json_t *pv = NULL, *created = NULL;
	char policy[32];

	if (sk_mkdir_p(dir, 0777) < 0)
		return sk_error_errno(err, errno, "creating \"%s\"", dir);
	pv = json_pack("{s:s, s:s, s:{s:s, s:{s:s}}, s:{s:{s:s}, s:o, s:{s:s, s:s}, s:{s:s, s:s, s:s, s:s, s:s}, s:s, "
		       "s:s, s:{s:{s:[{s:[{s:s, s:s, s:[s]}]}]}}}}",
		       "apiVersion", "v1", "kind", "PersistentVolume", "metadata", "name", name, "annotations",
		       SK_ANN_PROVISIONED_BY, PROVISIONER, "spec", "capacity", "storage", size ? size : "1Gi",
		       "accessModes", modes ? json_incref(modes) : json_pack("[s]", "ReadWriteOnce"), "hostPath",
		       "path", dir, "type", "DirectoryOrCreate", "claimRef", "apiVersion", "v1", "kind",
		       "PersistentVolumeClaim", "namespace", sk_kube_jstr(pvc, "metadata.namespace"), "name",
		       sk_kube_jstr(pvc, "metadata.name"), "uid", uid, "persistentVolumeReclaimPolicy",
		       reclaim_policy(a, pvc, policy, sizeof(policy)), "storageClassName", sk_kube_volume_class(pvc),
		       "nodeAffinity", "required", "nodeSelectorTerms", "matchExpressions", "key",
		       "kubernetes.io/hostname", "operator", "In", "values", a->node_name);
	if (sk_kube_jstr(pvc, "spec.volumeMode"))
		json_object_set(json_object_get(pv, "spec"), "volumeMode", sk_kube_jget(pvc, "spec.volumeMode"));
	created = sk_client_create(a->c, "/api/v1/persistentvolumes", pv, err);
	if (!created && err->code != SK_EEXISTS)
		return -1;
	sk_error_clear(err);
	if (created)
		sk_info("agent", "provisioned %s for claim %s/%s in %s", name, sk_kube_jstr(pvc, "metadata.namespace"),
			sk_kube_jstr(pvc, "metadata.name"), dir);
	return 0;
}

/* An unbound claim of a pod of this node: selects this node when nobody
 * did, provisions once it is handed to this node's provisioner, and waits
 * a short while for the PV controller's binding. Returns the claim once
 * bound (new reference), or NULL with err (the pod's sync retries). */
static json_t *unbound_claim(struct sk_agent *a, const char *path, json_t *first, sk_error_t *err)
{
	cleanup_json json_t *pvc = json_incref(first);
	const char *claim = sk_kube_jstr(first, "metadata.name") ?: "";
	bool provisioned = false;

	if (!*sk_kube_volume_class(pvc)) {
		sk_error_set(err, SK_EUNAVAILABLE, "persistentvolumeclaim \"%s\" is not bound", claim);
		return NULL;
	}
	for (int i = 0; i < 30; i++) {
		const char *sel = ann(pvc, SK_ANN_SELECTED_NODE), *prov = ann(pvc, SK_ANN_STORAGE_PROVISIONER);
		const char *v = sk_kube_jstr(pvc, "spec.volumeName");

		if (v && *v)
			return steal_ptr(&pvc);
		if (!sel) {
			/* placed here by spec.nodeName: this node is the first consumer */
			cleanup_json json_t *patch = json_pack("{s:{s:{s:s}}}", "metadata", "annotations",
							       SK_ANN_SELECTED_NODE, a->node_name);
			cleanup_json json_t *r = sk_client_patch(a->c, path, SK_PATCH_MERGE, patch, err);

			if (!r)
				return NULL;
		} else if (!provisioned && !strcmp(sel, a->node_name) && prov && !strcmp(prov, PROVISIONER)) {
			if (provision(a, pvc, err) < 0)
				return NULL;
			provisioned = true;
		}
		nanosleep(&(struct timespec){.tv_nsec = 100 * 1000 * 1000}, NULL);
		json_decref(pvc);
		pvc = sk_client_get(a->c, path, err);
		if (!pvc)
			return NULL;
	}
	sk_error_set(err, SK_EUNAVAILABLE, "waiting for persistentvolumeclaim \"%s\" to be bound", claim);
	return NULL;
}

char *sk__localpath_claim(struct sk_agent *a, const char *ns, const char *claim, sk_error_t *err)
{
	cleanup_free char *path = xasprintf("/api/v1/namespaces/%s/persistentvolumeclaims/%s", ns, claim);
	cleanup_free char *vpath = NULL;
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
	if (!vname || !*vname) {
		json_t *bound = unbound_claim(a, path, pvc, err);

		if (!bound)
			return NULL;
		json_decref(pvc);
		pvc = bound;
		vname = sk_kube_jstr(pvc, "spec.volumeName");
	}
	vpath = xasprintf("/api/v1/persistentvolumes/%s", vname);
	pv = sk_client_get(a->c, vpath, err);
	if (!pv)
		return NULL;
	dir = pv_path(pv);
	if (!dir) {
		sk_error_set(err, SK_EINVALID, "persistentvolume \"%s\" has no hostPath or local path", vname);
		return NULL;
	}
	if (sk_mkdir_p(dir, 0777) < 0) {
		sk_error_errno(err, errno, "creating \"%s\"", dir);
		free(dir);
		return NULL;
	}
	return dir;
}

/* ---- reclaim ---- */

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path) < 0 && errno != ENOENT ? -1 : 0;
}

/* Whether pv is a volume this node's provisioner made. */
static bool ours(struct sk_agent *a, json_t *pv)
{
	json_t *terms = sk_kube_jget(pv, "spec.nodeAffinity.required.nodeSelectorTerms");
	const char *prov = ann(pv, SK_ANN_PROVISIONED_BY), *path = sk_kube_jstr(pv, "spec.hostPath.path");
	cleanup_free char *base = xasprintf("%s/volumes/pvc-", a->data_dir);
	json_t *values = sk_kube_jget(json_array_get(json_object_get(json_array_get(terms, 0), "matchExpressions"), 0),
				      "values");

	return prov && !strcmp(prov, PROVISIONER) && path && !strncmp(path, base, strlen(base)) &&
	       !strstr(path, "/..") && json_array_size(values) == 1 &&
	       !strcmp(json_string_value(json_array_get(values, 0)) ?: "", a->node_name);
}

/* A Released volume of this node with reclaim policy Delete: its directory
 * and then the object go, as the provisioner's Delete. */
static void on_volume(void *ud, int ev, json_t *old, json_t *pv)
{
	struct sk_agent *a = ud;
	const char *phase = sk_kube_jstr(pv, "status.phase") ?: "";
	const char *policy = sk_kube_jstr(pv, "spec.persistentVolumeReclaimPolicy") ?: "";
	cleanup_free char *path = NULL;
	cleanup_json json_t *opts = NULL;
	sk_error_t err = {0};

	(void)old;
	if (ev == SK_INF_DELETE || strcmp(phase, "Released") || strcmp(policy, "Delete") ||
	    sk_kube_jget(pv, "metadata.deletionTimestamp") || !ours(a, pv))
		return;
	if (nftw(sk_kube_jstr(pv, "spec.hostPath.path"), rm_entry, 16, FTW_DEPTH | FTW_PHYS) < 0 && errno != ENOENT) {
		sk_warn("agent", "volume %s: removing %s: %s", sk_kube_jstr(pv, "metadata.name"),
			sk_kube_jstr(pv, "spec.hostPath.path"), strerror(errno));
		return;
	}
	path = xasprintf("/api/v1/persistentvolumes/%s", sk_kube_jstr(pv, "metadata.name"));
	opts = json_pack("{s:{s:s}}", "preconditions", "uid", sk_kube_jstr(pv, "metadata.uid") ?: "");
	if (sk_client_delete(a->c, path, opts, &err) < 0 && err.code != SK_ENOTFOUND)
		sk_warn("agent", "volume %s: %s", sk_kube_jstr(pv, "metadata.name"), err.msg);
	else
		sk_info("agent", "deleted volume %s and its data", sk_kube_jstr(pv, "metadata.name"));
}

void sk__localpath_start(struct sk_agent *a)
{
	sk_error_t err = {0};

	a->volumes = sk_informer_new(a->c, "/api/v1/persistentvolumes", "v1", "PersistentVolume");
	sk_informer_on(a->volumes, on_volume, a);
	if (sk_informer_start(a->volumes, &err) < 0) {
		sk_warn("agent", "node %s: local volumes are not reclaimed: %s", a->node_name, err.msg);
		sk_informer_free(steal_ptr(&a->volumes));
	}
}
