/* Pod volumes on the host, under <data>/pods/<uid>/volumes/<plugin>/<name>,
 * named after kubelet's plugin directories: emptyDir (disk, or tmpfs for
 * medium Memory with sizeLimit), hostPath (with its type checks), configMap,
 * secret (tmpfs), downwardAPI and projected (tmpfs) written as files with
 * their modes, and persistentVolumeClaim through the local-path provisioner.
 * Containers bind-mount these directories (spec.c).
 *
 * A projected volume is written as kubelet's AtomicWriter does: the files go
 * into a fresh directory "..<time>.<random>", the symlink "..data" is swapped
 * to it with one rename, and each top-level name is a symlink through
 * "..data", so a reader sees the whole old payload or the whole new one. Its
 * serviceAccountToken sources are bound tokens requested through the
 * ServiceAccount's token subresource (kubelet's token manager), written again
 * at 80 % of their life, or after 24 hours, while the pod runs. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <gnutls/crypto.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>

#include "agent/agent-int.h"
#include "util/quantity.h"
#include "util/util.h"

#define TMPFS_MAGIC_NUM 0x01021994

static bool is_tmpfs(const char *path)
{
	struct statfs sf;

	return statfs(path, &sf) == 0 && sf.f_type == TMPFS_MAGIC_NUM;
}

static int mount_tmpfs(const char *dir, int64_t size, sk_error_t *err)
{
	char opts[64] = "mode=0755";

	if (is_tmpfs(dir))
		return 0;
	if (size > 0)
		snprintf(opts, sizeof(opts), "mode=0777,size=%lld", (long long)size);
	if (mount("tmpfs", dir, "tmpfs", MS_NOSUID | MS_NODEV, opts) < 0)
		return sk_error_errno(err, errno, "mounting tmpfs at \"%s\"", dir);
	return 0;
}

/* Writes data to dir/rel (creating parents) with mode. */
static int write_file(const char *dir, const char *rel, const char *data, size_t len, int mode, sk_error_t *err)
{
	cleanup_free char *path = NULL;
	char *slash;

	if (!rel || !*rel || rel[0] == '/' || strstr(rel, ".."))
		return sk_error_set(err, SK_EINVALID, "invalid volume file path \"%s\"", rel ? rel : "");
	path = xasprintf("%s/%s", dir, rel);
	slash = strrchr(path, '/');
	*slash = '\0';
	if (sk_mkdir_p(path, 0755) < 0)
		return sk_error_errno(err, errno, "creating \"%s\"", path);
	*slash = '/';
	if (sk_write_file(path, data, len, mode) < 0)
		return sk_error_errno(err, errno, "writing \"%s\"", path);
	chmod(path, (mode_t)mode);
	return 0;
}

static int mode_of(json_t *item, json_t *src, int def)
{
	json_t *m = json_object_get(item, "mode");

	if (json_is_integer(m))
		return (int)json_integer_value(m);
	m = json_object_get(src, "defaultMode");
	return json_is_integer(m) ? (int)json_integer_value(m) : def;
}

/* The decoded value of key in a ConfigMap/Secret; malloc'd or NULL. */
static char *object_value(json_t *obj, bool secret, const char *key, size_t *len)
{
	const char *v = json_string_value(json_object_get(json_object_get(obj, "data"), key));

	if (v && !secret) {
		*len = strlen(v);
		return xstrdup(v);
	}
	if (v)
		return sk__ag_b64_decode(v, len);
	v = secret ? json_string_value(json_object_get(json_object_get(obj, "stringData"), key)) : NULL;
	if (v) {
		*len = strlen(v);
		return xstrdup(v);
	}
	v = json_string_value(json_object_get(json_object_get(obj, "binaryData"), key));
	return v ? sk__ag_b64_decode(v, len) : NULL;
}

/* Writes a configMap or secret source (volume or projection) into dir. */
static int write_object(struct sk_agent *a, json_t *pod, json_t *src, bool secret, const char *dir, sk_error_t *err)
{
	const char *name = sk_kube_jstr(src, secret ? "secretName" : "name");
	bool optional = json_is_true(json_object_get(src, "optional"));
	cleanup_free char *path = NULL;
	cleanup_json json_t *obj = NULL;
	json_t *items = json_object_get(src, "items"), *it;
	size_t i;

	if (!name)
		name = sk_kube_jstr(src, "name");
	path = xasprintf("/api/v1/namespaces/%s/%s/%s", sk_kube_jstr(pod, "metadata.namespace"),
			 secret ? "secrets" : "configmaps", name ? name : "");
	obj = sk_client_get(a->c, path, err);
	if (!obj) {
		if (err->code == SK_ENOTFOUND && optional) {
			sk_error_clear(err);
			return 0;
		}
		if (err->code == SK_ENOTFOUND)
			return sk_error_set(err, SK_ENOTFOUND, "%s \"%s\" not found", secret ? "secret" : "configmap",
					    name ? name : "");
		return -1;
	}
	if (json_array_size(items)) {
		json_array_foreach(items, i, it) {
			size_t len = 0;
			cleanup_free char *v = object_value(
				obj, secret, sk_kube_jstr(it, "key") ? sk_kube_jstr(it, "key") : "", &len);

			if (!v) {
				if (optional)
					continue;
				return sk_error_set(err, SK_ENOTFOUND,
						    "configmap references non-existent config key: %s",
						    sk_kube_jstr(it, "key") ? sk_kube_jstr(it, "key") : "");
			}
			if (write_file(dir, sk_kube_jstr(it, "path"), v, len, mode_of(it, src, 0644), err) < 0)
				return -1;
		}
		return 0;
	}
	{
		const char *fields[] = {"data", "binaryData", "stringData"};

		for (int f = 0; f < 3; f++) {
			const char *k;
			json_t *v;

			json_object_foreach(json_object_get(obj, fields[f]), k, v) {
				size_t len = 0;
				cleanup_free char *val = object_value(obj, secret, k, &len);

				if (val && write_file(dir, k, val, len, mode_of(NULL, src, 0644), err) < 0)
					return -1;
			}
		}
	}
	return 0;
}

static int write_downward(json_t *pod, json_t *src, const char *dir, sk_error_t *err)
{
	json_t *it;
	size_t i;

	json_array_foreach(json_object_get(src, "items"), i, it) {
		cleanup_free char *v = NULL;

		if (json_object_get(it, "fieldRef"))
			v = sk__ag_field_ref(pod, sk_kube_jstr(it, "fieldRef.fieldPath")
							  ? sk_kube_jstr(it, "fieldRef.fieldPath")
							  : "");
		else if (json_object_get(it, "resourceFieldRef"))
			v = sk__ag_resource_ref(pod, json_object_get(it, "resourceFieldRef"), NULL, err);
		if (!v)
			return err->code ? -1
					 : sk_error_set(err, SK_EINVALID, "downward API item \"%s\" is not supported",
							sk_kube_jstr(it, "path") ? sk_kube_jstr(it, "path") : "");
		if (write_file(dir, sk_kube_jstr(it, "path"), v, strlen(v), mode_of(it, src, 0644), err) < 0)
			return -1;
	}
	return 0;
}

int64_t sk__token_refresh_at(int64_t iat, int64_t exp)
{
	int64_t at = exp - (exp - iat) / 5;

	return at < iat + 24 * 3600 ? at : iat + 24 * 3600;
}

/* Requests a token bound to pod for a serviceAccountToken projection and
 * writes it to dir; *refresh_at gets the earlier of itself and this token's
 * renewal time. */
static int write_token(struct sk_agent *a, json_t *pod, json_t *tok, json_t *src, const char *dir, int64_t *refresh_at,
		       sk_error_t *err)
{
	const char *ns = sk_kube_jstr(pod, "metadata.namespace") ?: "";
	const char *sa = sk_kube_jstr(pod, "spec.serviceAccountName") ?: "default";
	const char *aud = sk_kube_jstr(tok, "audience");
	json_t *exp = json_object_get(tok, "expirationSeconds");
	json_int_t secs = json_is_integer(exp) ? json_integer_value(exp) : 3600;
	cleanup_free char *path = xasprintf("/api/v1/namespaces/%s/serviceaccounts/%s/token", ns, sa);
	cleanup_json json_t *req = json_pack(
		"{s:s, s:s, s:{s:I, s:{s:s, s:s, s:s, s:s}}}", "apiVersion", "authentication.k8s.io/v1", "kind",
		"TokenRequest", "spec", "expirationSeconds", secs, "boundObjectRef", "apiVersion", "v1", "kind", "Pod",
		"name", sk_kube_jstr(pod, "metadata.name") ?: "", "uid", sk_kube_jstr(pod, "metadata.uid") ?: "");
	cleanup_json json_t *out = NULL;
	const char *token, *until;
	int64_t now = sk_now_ns() / 1000000000, end;

	if (aud && *aud)
		json_object_set_new(json_object_get(req, "spec"), "audiences", json_pack("[s]", aud));
	out = sk_client_create(a->c, path, req, err);
	if (!out)
		return sk_error_wrap(err, "failed to fetch token");
	token = sk_kube_jstr(out, "status.token");
	until = sk_kube_jstr(out, "status.expirationTimestamp");
	if (!token)
		return sk_error_set(err, SK_EINTERNAL, "failed to fetch token: no token in the reply");
	if (!until || sk_time_parse(until, &end) < 0)
		end = now + secs;
	end = sk__token_refresh_at(end - secs, end);
	if (*refresh_at == 0 || end < *refresh_at)
		*refresh_at = end;
	return write_file(dir, sk_kube_jstr(tok, "path") ?: "token", token, strlen(token), mode_of(NULL, src, 0644),
			  err);
}

static int write_projected(struct sk_agent *a, json_t *pod, json_t *src, const char *dir, int64_t *refresh_at,
			   sk_error_t *err)
{
	json_t *s;
	size_t i;

	json_array_foreach(json_object_get(src, "sources"), i, s) {
		json_t *inner;

		if ((inner = json_object_get(s, "configMap"))) {
			json_t *c = json_deep_copy(inner);
			int rc;

			if (!json_object_get(c, "defaultMode") && json_object_get(src, "defaultMode"))
				json_object_set(c, "defaultMode", json_object_get(src, "defaultMode"));
			rc = write_object(a, pod, c, false, dir, err);
			json_decref(c);
			if (rc < 0)
				return -1;
		} else if ((inner = json_object_get(s, "secret"))) {
			json_t *c = json_deep_copy(inner);
			int rc;

			if (!json_object_get(c, "defaultMode") && json_object_get(src, "defaultMode"))
				json_object_set(c, "defaultMode", json_object_get(src, "defaultMode"));
			rc = write_object(a, pod, c, true, dir, err);
			json_decref(c);
			if (rc < 0)
				return -1;
		} else if ((inner = json_object_get(s, "downwardAPI"))) {
			if (write_downward(pod, inner, dir, err) < 0)
				return -1;
		} else if ((inner = json_object_get(s, "serviceAccountToken"))) {
			if (write_token(a, pod, inner, src, dir, refresh_at, err) < 0)
				return -1;
		} else if ((inner = json_object_get(s, "clusterTrustBundle"))) {
			continue;
		}
	}
	return 0;
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path) < 0 && errno != ENOENT ? -1 : 0;
}

static void rm_tree(const char *path) { nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS); }

/* Writes a projected volume into dir as kubelet's AtomicWriter (see the top). */
static int write_projected_atomic(struct sk_agent *a, json_t *pod, json_t *src, const char *dir, int64_t *refresh_at,
				  sk_error_t *err)
{
	char stamp[64], rnd[6];
	time_t now = time(NULL);
	struct tm tm;
	cleanup_free char *payload = NULL, *tmp_link = NULL, *data_link = NULL;
	DIR *d;
	struct dirent *e;

	gmtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "..%Y_%m_%d_%H_%M_%S", &tm);
	{
		unsigned char b[3];

		gnutls_rnd(GNUTLS_RND_NONCE, b, sizeof(b));
		snprintf(rnd, sizeof(rnd), "%02x%02x%x", b[0], b[1], b[2] & 0xf);
	}
	payload = xasprintf("%s/%s.%s", dir, stamp, rnd);
	if (mkdir(payload, 0755) < 0)
		return sk_error_errno(err, errno, "creating \"%s\"", payload);
	if (write_projected(a, pod, src, payload, refresh_at, err) < 0) {
		rm_tree(payload);
		return -1;
	}
	/* the user-visible names, each a symlink through ..data */
	d = opendir(payload);
	while (d && (e = readdir(d))) {
		cleanup_free char *link = NULL, *target = NULL;
		struct stat st;

		if (e->d_name[0] == '.')
			continue;
		link = xasprintf("%s/%s", dir, e->d_name);
		target = xasprintf("..data/%s", e->d_name);
		if (lstat(link, &st) == 0 && S_ISLNK(st.st_mode))
			continue;
		unlink(link);
		if (symlink(target, link) < 0 && errno != EEXIST) {
			closedir(d);
			return sk_error_errno(err, errno, "linking \"%s\"", link);
		}
	}
	if (d)
		closedir(d);
	tmp_link = xasprintf("%s/..data_tmp", dir);
	data_link = xasprintf("%s/..data", dir);
	unlink(tmp_link);
	if (symlink(strrchr(payload, '/') + 1, tmp_link) < 0 || rename(tmp_link, data_link) < 0)
		return sk_error_errno(err, errno, "swapping \"%s\"", data_link);
	/* the old payloads go */
	d = opendir(dir);
	while (d && (e = readdir(d))) {
		cleanup_free char *old = NULL;

		if (strncmp(e->d_name, "..", 2) || !strcmp(e->d_name, "..") || !strcmp(e->d_name, "..data") ||
		    !strcmp(e->d_name, strrchr(payload, '/') + 1))
			continue;
		old = xasprintf("%s/%s", dir, e->d_name);
		rm_tree(old);
	}
	if (d)
		closedir(d);
	return 0;
}

static int host_path(json_t *src, const char **out, sk_error_t *err)
{
	const char *path = sk_kube_jstr(src, "path");
	const char *type = sk_kube_jstr(src, "type");
	struct stat st;
	bool exists;

	if (!path)
		return sk_error_set(err, SK_EINVALID, "hostPath without a path");
	exists = stat(path, &st) == 0;
	*out = path;
	if (!type || !*type)
		return 0;
	if (!strcmp(type, "DirectoryOrCreate")) {
		if (!exists && sk_mkdir_p(path, 0755) < 0)
			return sk_error_errno(err, errno, "hostPath \"%s\"", path);
		return 0;
	}
	if (!strcmp(type, "FileOrCreate")) {
		if (!exists) {
			int fd = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);

			if (fd < 0)
				return sk_error_errno(err, errno, "hostPath \"%s\"", path);
			close(fd);
		}
		return 0;
	}
	if (!exists)
		return sk_error_set(err, SK_ENOTFOUND, "hostPath type check failed: %s is not a %s", path,
				    !strcmp(type, "Directory") ? "directory" : (!strcmp(type, "File") ? "file" : type));
	if ((!strcmp(type, "Directory") && !S_ISDIR(st.st_mode)) || (!strcmp(type, "File") && !S_ISREG(st.st_mode)) ||
	    (!strcmp(type, "Socket") && !S_ISSOCK(st.st_mode)) ||
	    (!strcmp(type, "CharDevice") && !S_ISCHR(st.st_mode)) ||
	    (!strcmp(type, "BlockDevice") && !S_ISBLK(st.st_mode)))
		return sk_error_set(err, SK_EINVALID, "hostPath type check failed: %s is not a %s", path, type);
	return 0;
}

/* Prepares one volume; *path is malloc'd. */
static int setup_one(struct sk_agent *a, struct apod *p, json_t *pod, json_t *vol, char **path, bool *ro,
		     sk_error_t *err)
{
	const char *name = sk_kube_jstr(vol, "name") ? sk_kube_jstr(vol, "name") : "";
	json_t *src;
	const char *plugin;
	cleanup_free char *dir = NULL;

	*ro = false;
	*path = NULL;
	if ((src = json_object_get(vol, "hostPath"))) {
		const char *hp = NULL;

		if (host_path(src, &hp, err) < 0)
			return -1;
		*path = xstrdup(hp);
		return 0;
	}
	if ((src = json_object_get(vol, "persistentVolumeClaim"))) {
		*path = sk__localpath_claim(a, p->ns,
					    sk_kube_jstr(src, "claimName") ? sk_kube_jstr(src, "claimName") : "", err);
		*ro = json_is_true(json_object_get(src, "readOnly"));
		return *path ? 0 : -1;
	}
	if (json_object_get(vol, "emptyDir"))
		plugin = "kubernetes.io~empty-dir";
	else if (json_object_get(vol, "configMap"))
		plugin = "kubernetes.io~configmap";
	else if (json_object_get(vol, "secret"))
		plugin = "kubernetes.io~secret";
	else if (json_object_get(vol, "downwardAPI"))
		plugin = "kubernetes.io~downward-api";
	else if (json_object_get(vol, "projected"))
		plugin = "kubernetes.io~projected";
	else
		return sk_error_set(err, SK_EINVALID, "volume \"%s\": unsupported volume type", name);
	dir = xasprintf("%s/volumes/%s/%s", p->pod_dir, plugin, name);
	if (sk_mkdir_p(dir, 0755) < 0)
		return sk_error_errno(err, errno, "creating \"%s\"", dir);
	if ((src = json_object_get(vol, "emptyDir"))) {
		const char *medium = sk_kube_jstr(src, "medium");
		int64_t size = 0;

		if (sk_kube_jstr(src, "sizeLimit"))
			sk_quantity_value(sk_kube_jstr(src, "sizeLimit"), &size);
		if (medium && !strcmp(medium, "Memory") && mount_tmpfs(dir, size, err) < 0)
			return -1;
		chmod(dir, 0777);
	} else {
		*ro = true;
		if ((json_object_get(vol, "secret") || json_object_get(vol, "projected")) &&
		    mount_tmpfs(dir, 0, err) < 0)
			return -1;
		if ((src = json_object_get(vol, "configMap")) && write_object(a, pod, src, false, dir, err) < 0)
			return -1;
		if ((src = json_object_get(vol, "secret")) && write_object(a, pod, src, true, dir, err) < 0)
			return -1;
		if ((src = json_object_get(vol, "downwardAPI")) && write_downward(pod, src, dir, err) < 0)
			return -1;
		if ((src = json_object_get(vol, "projected")) &&
		    write_projected_atomic(a, pod, src, dir, &p->token_refresh_at, err) < 0)
			return -1;
	}
	*path = steal_ptr(&dir);
	return 0;
}

int sk__volumes_setup(struct sk_agent *a, struct apod *p, json_t *pod, sk_error_t *err)
{
	json_t *mounts = json_object(), *vol;
	size_t i;

	json_array_foreach(sk_kube_jget(pod, "spec.volumes"), i, vol) {
		char *path = NULL;
		bool ro = false;

		if (setup_one(a, p, pod, vol, &path, &ro, err) < 0) {
			sk_error_wrap(err, "MountVolume.SetUp failed for volume \"%s\" ",
				      sk_kube_jstr(vol, "name") ? sk_kube_jstr(vol, "name") : "");
			json_decref(mounts);
			return -1;
		}
		json_object_set_new(mounts, sk_kube_jstr(vol, "name"),
				    json_pack("{s:s, s:b}", "path", path, "readOnly", ro));
		free(path);
	}
	json_decref(p->mounts);
	p->mounts = mounts;
	return 0;
}

static int has_token(json_t *projected)
{
	json_t *s;
	size_t i;

	json_array_foreach(json_object_get(projected, "sources"), i, s)
		if (json_object_get(s, "serviceAccountToken"))
			return 1;
	return 0;
}

void sk__volumes_refresh(struct sk_agent *a, struct apod *p, json_t *pod)
{
	int64_t now = sk_now_ns() / 1000000000, next = 0;
	json_t *vol, *src;
	size_t i;

	if (!p->mounts || !p->token_refresh_at || now < p->token_refresh_at)
		return;
	json_array_foreach(sk_kube_jget(pod, "spec.volumes"), i, vol) {
		cleanup_free char *dir = NULL;
		sk_error_t err = {0};

		if (!(src = json_object_get(vol, "projected")) || !has_token(src))
			continue;
		dir = xasprintf("%s/volumes/kubernetes.io~projected/%s", p->pod_dir, sk_kube_jstr(vol, "name") ?: "");
		if (write_projected_atomic(a, pod, src, dir, &next, &err) < 0) {
			sk_warn("agent", "pod %s/%s: refreshing volume \"%s\": %s", p->ns, p->name,
				sk_kube_jstr(vol, "name") ?: "", err.msg);
			next = now + 10; /* kubelet retries on its next sync */
		}
	}
	p->token_refresh_at = next;
}

void sk__volumes_teardown(struct sk_agent *a, struct apod *p)
{
	cleanup_free char *mi = sk_read_file("/proc/self/mountinfo", NULL);
	cleanup_free char *prefix = xasprintf("%s/volumes/", p->pod_dir);
	cleanup_free char *cmd = NULL;
	char *line = mi, *next;

	(void)a;
	/* unmount deepest first: mountinfo lists parents before children */
	for (int pass = 0; pass < 3 && mi; pass++) {
		for (line = mi; line && *line; line = next) {
			char target[4096];

			next = strchr(line, '\n');
			if (next)
				*next++ = '\0';
			if (sscanf(line, "%*s %*s %*s %*s %4095s", target) == 1 &&
			    !strncmp(target, prefix, strlen(prefix)))
				if (umount2(target, MNT_DETACH) < 0 && errno != EINVAL && errno != ENOENT)
					sk_warn("agent", "unmounting \"%s\": %s", target, strerror(errno));
		}
		free(mi);
		mi = sk_read_file("/proc/self/mountinfo", NULL);
	}
	cmd = xasprintf("rm -rf '%s/volumes' '%s/containers'", p->pod_dir, p->pod_dir);
	if (system(cmd) != 0)
		sk_warn("agent", "removing volumes of %s failed", p->pod_dir);
}
