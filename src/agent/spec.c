/* From a pod's container spec to the runtime's container config, as kubelet's
 * kuberuntime_container.go and the CRI plugin do: command/args merged with
 * the image's entrypoint/cmd, the environment (values, downward API,
 * ConfigMap and Secret references, envFrom, $(VAR) expansion), the user,
 * security context, resources and volume mounts. */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <gnutls/gnutls.h>
#include <stdarg.h>
#include <string.h>

#include "agent/agent-int.h"
#include "kube/envvars.h"
#include "kube/object.h"
#include "kube/qos.h"
#include "runtime/crilog.h"
#include "util/quantity.h"
#include "util/util.h"

/* ---- arena ----------------------------------------------------------------- */

void *sk__ag_arena_keep(struct arena *ar, void *p)
{
	if (ar->n == ar->cap) {
		ar->cap = ar->cap ? ar->cap * 2 : 32;
		ar->p = xrealloc(ar->p, ar->cap * sizeof(void *));
	}
	ar->p[ar->n++] = p;
	return p;
}

void sk__ag_arena_release(struct arena *ar)
{
	for (size_t i = 0; i < ar->n; i++)
		free(ar->p[i]);
	free(ar->p);
	ar->p = NULL;
	ar->n = ar->cap = 0;
}

static char *keepf(struct arena *ar, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static char *keepf(struct arena *ar, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		abort();
	va_end(ap);
	return sk__ag_arena_keep(ar, s);
}

char *sk__ag_b64_decode(const char *s, size_t *len)
{
	gnutls_datum_t in = {(unsigned char *)s, (unsigned)strlen(s)}, out = {NULL, 0};
	char *r;

	if (!*s) {
		if (len)
			*len = 0;
		return xstrdup("");
	}
	if (gnutls_base64_decode2(&in, &out) < 0)
		return NULL;
	r = xmalloc(out.size + 1);
	memcpy(r, out.data, out.size);
	r[out.size] = '\0';
	if (len)
		*len = out.size;
	gnutls_free(out.data);
	return r;
}

/* ---- QoS and resources ----------------------------------------------------------- */

static bool res_has(json_t *res, const char *which, const char *name)
{
	return json_string_value(sk_kube_jget(json_object_get(res, which), name)) != NULL;
}

static int64_t milli_of(json_t *res, const char *which, const char *name)
{
	int64_t v = 0;
	const char *s = sk_kube_jstr(json_object_get(res, which), name);

	if (s && sk_quantity_milli(s, &v) < 0)
		v = 0;
	return v;
}

static int64_t value_of(json_t *res, const char *which, const char *name)
{
	int64_t v = 0;
	const char *s = sk_kube_jstr(json_object_get(res, which), name);

	if (s && sk_quantity_value(s, &v) < 0)
		v = 0;
	return v;
}

static json_t *find_container(json_t *pod, const char *name)
{
	const char *lists[] = {"spec.containers", "spec.initContainers"};

	for (int l = 0; l < 2; l++) {
		json_t *arr = sk_kube_jget(pod, lists[l]), *c;
		size_t i;

		json_array_foreach(arr, i, c)
			if (name && !strcmp(sk_kube_jstr(c, "name") ? sk_kube_jstr(c, "name") : "", name))
				return c;
	}
	return NULL;
}

/* Node capacity for unset limits: the machine's cpus and memory. */
static int64_t node_value(const char *res)
{
	if (!strcmp(res, "cpu"))
		return sysconf(_SC_NPROCESSORS_ONLN) * 1000;
	if (!strcmp(res, "memory"))
		return (int64_t)sysconf(_SC_PHYS_PAGES) * sysconf(_SC_PAGESIZE);
	return 0;
}

char *sk__ag_resource_ref(json_t *pod, json_t *ref, const char *default_ctr, sk_error_t *err)
{
	const char *cname = sk_kube_jstr(ref, "containerName") ? sk_kube_jstr(ref, "containerName") : default_ctr;
	const char *resource = sk_kube_jstr(ref, "resource");
	const char *divisor = sk_kube_jstr(ref, "divisor");
	json_t *c = find_container(pod, cname);
	json_t *res = json_object_get(c, "resources");
	char which[16] = "", name[64] = "";
	int64_t v, d = 1;
	bool cpu;

	if (!resource || !c || sscanf(resource, "%15[^.].%63s", which, name) != 2) {
		sk_error_set(err, SK_EINVALID, "unsupported resourceFieldRef \"%s\"", resource ? resource : "");
		return NULL;
	}
	cpu = !strcmp(name, "cpu");
	v = cpu ? milli_of(res, which, name) : value_of(res, which, name) * 1000;
	if (!res_has(res, which, name) && !strcmp(which, "limits"))
		v = node_value(name) * (cpu ? 1 : 1000);
	if (!res_has(res, which, name) && !strcmp(which, "requests") && res_has(res, "limits", name))
		v = cpu ? milli_of(res, "limits", name) : value_of(res, "limits", name) * 1000;
	if (divisor && sk_quantity_milli(divisor, &d) < 0)
		d = 1000;
	if (!divisor)
		d = 1000;
	if (d <= 0)
		d = 1000;
	/* ceil(v / d), both in milli-units */
	return xasprintf("%lld", (long long)((v + d - 1) / d));
}

/* ---- downward API ------------------------------------------------------------------ */

static char *map_lines(json_t *m)
{
	const char *k;
	json_t *v;
	size_t n = 0, cap = 64;
	char *out = xzalloc(cap);
	void *tmp;

	json_object_foreach_safe(m, tmp, k, v) {
		cleanup_free char *line = xasprintf("%s%s=\"%s\"", n ? "\n" : "", k,
						    json_string_value(v) ? json_string_value(v) : "");
		size_t l = strlen(line);

		if (n + l + 1 > cap) {
			cap = (n + l + 1) * 2;
			out = xrealloc(out, cap);
		}
		memcpy(out + n, line, l + 1);
		n += l;
	}
	return out;
}

char *sk__ag_field_ref(json_t *pod, const char *path)
{
	static const char *const simple[] = {
		"metadata.name",           "metadata.namespace", "metadata.uid",  "spec.nodeName",
		"spec.serviceAccountName", "status.podIP",       "status.hostIP", NULL};
	char key[256];

	for (int i = 0; simple[i]; i++)
		if (!strcmp(path, simple[i]))
			return xstrdup(sk_kube_jstr(pod, path) ? sk_kube_jstr(pod, path) : "");
	if (!strcmp(path, "status.podIPs") || !strcmp(path, "status.hostIPs")) {
		json_t *arr = sk_kube_jget(pod, path), *e;
		size_t i, n = 0;
		char buf[1024] = "";

		json_array_foreach(arr, i, e)
			n += (size_t)snprintf(buf + n, n < sizeof(buf) ? sizeof(buf) - n : 0, "%s%s", i ? "," : "",
					      sk_kube_jstr(e, "ip") ? sk_kube_jstr(e, "ip") : "");
		return xstrdup(buf);
	}
	if (!strcmp(path, "metadata.labels"))
		return map_lines(sk_kube_jget(pod, "metadata.labels"));
	if (!strcmp(path, "metadata.annotations"))
		return map_lines(sk_kube_jget(pod, "metadata.annotations"));
	if (sscanf(path, "metadata.labels['%255[^']']", key) == 1)
		return xstrdup(json_string_value(json_object_get(sk_kube_jget(pod, "metadata.labels"), key)) ?: "");
	if (sscanf(path, "metadata.annotations['%255[^']']", key) == 1)
		return xstrdup(json_string_value(json_object_get(sk_kube_jget(pod, "metadata.annotations"), key))
				       ?: "");
	return NULL;
}

/* ---- environment -------------------------------------------------------------------- */

static void env_set(json_t *env, const char *k, const char *v)
{
	size_t kl = strlen(k), i;
	json_t *e;

	json_array_foreach(env, i, e) {
		const char *s = json_string_value(e);

		if (!strncmp(s, k, kl) && s[kl] == '=') {
			json_array_set_new(env, i, json_sprintf("%s=%s", k, v));
			return;
		}
	}
	json_array_append_new(env, json_sprintf("%s=%s", k, v));
}

static const char *env_lookup(json_t *env, const char *k, size_t kl)
{
	size_t i;
	json_t *e;

	json_array_foreach(env, i, e) {
		const char *s = json_string_value(e);

		if (!strncmp(s, k, kl) && s[kl] == '=')
			return s + kl + 1;
	}
	return NULL;
}

char *sk__ag_expand_vars(const char *s, json_t *env)
{
	size_t cap = strlen(s) * 2 + 16, n = 0;
	char *out = xmalloc(cap);

	while (*s) {
		const char *add = s;
		size_t al = 1;

		if (s[0] == '$' && s[1] == '$') {
			al = 1;
			s += 2;
		} else if (s[0] == '$' && s[1] == '(' && strchr(s, ')')) {
			size_t kl = (size_t)(strchr(s, ')') - s - 2);
			const char *v = env_lookup(env, s + 2, kl);

			if (v) {
				add = v;
				al = strlen(v);
			} else {
				al = kl + 3;
			}
			s += kl + 3;
		} else {
			s++;
		}
		if (n + al + 1 > cap) {
			cap = (n + al + 1) * 2;
			out = xrealloc(out, cap);
		}
		memcpy(out + n, add, al);
		n += al;
	}
	out[n] = '\0';
	return out;
}

/* Fetches a ConfigMap or Secret; err carries kubelet's wording on failure. */
static json_t *get_source(struct sk_agent *a, const char *ns, const char *kind, const char *name, sk_error_t *err)
{
	cleanup_free char *path = xasprintf("/api/v1/namespaces/%s/%s/%s", ns,
					    !strcmp(kind, "ConfigMap") ? "configmaps" : "secrets", name);
	json_t *o = sk_client_get(a->c, path, err);

	if (!o && err->code == SK_ENOTFOUND)
		sk_error_set(err, SK_ENOTFOUND, "%s \"%s\" not found",
			     !strcmp(kind, "ConfigMap") ? "configmap" : "secret", name);
	return o;
}

/* The value of key in a ConfigMap/Secret object (decoded); malloc'd or NULL. */
static char *source_value(json_t *o, const char *kind, const char *key)
{
	const char *v = sk_kube_jstr(json_object_get(o, "data"), key);

	if (!strcmp(kind, "ConfigMap"))
		return v ? xstrdup(v) : NULL;
	if (!v && sk_kube_jstr(json_object_get(o, "stringData"), key))
		return xstrdup(sk_kube_jstr(json_object_get(o, "stringData"), key));
	return v ? sk__ag_b64_decode(v, NULL) : NULL;
}

static int env_from_key_ref(struct sk_agent *a, const char *ns, json_t *ref, const char *kind, char **out,
			    sk_error_t *err)
{
	const char *name = sk_kube_jstr(ref, "name") ? sk_kube_jstr(ref, "name") : "";
	const char *key = sk_kube_jstr(ref, "key") ? sk_kube_jstr(ref, "key") : "";
	bool optional = json_is_true(json_object_get(ref, "optional"));
	cleanup_json json_t *o = get_source(a, ns, kind, name, err);

	*out = NULL;
	if (!o) {
		if (optional && err->code == SK_ENOTFOUND) {
			sk_error_clear(err);
			return 0;
		}
		return -1;
	}
	*out = source_value(o, kind, key);
	if (!*out && !optional)
		return sk_error_set(err, SK_ENOTFOUND, "couldn't find key %s in %s %s/%s", key, kind, ns, name);
	return 0;
}

static int env_from(struct sk_agent *a, const char *ns, json_t *from, json_t *env, sk_error_t *err)
{
	size_t i;
	json_t *f;

	json_array_foreach(from, i, f) {
		const char *kind = json_object_get(f, "configMapRef") ? "ConfigMap" : "Secret";
		json_t *ref = json_object_get(f, kind[0] == 'C' ? "configMapRef" : "secretRef");
		const char *prefix = sk_kube_jstr(f, "prefix") ? sk_kube_jstr(f, "prefix") : "";
		cleanup_json json_t *o = get_source(a, ns, kind,
						    sk_kube_jstr(ref, "name") ? sk_kube_jstr(ref, "name") : "", err);
		const char *k;
		json_t *v;

		if (!o) {
			if (json_is_true(json_object_get(ref, "optional")) && err->code == SK_ENOTFOUND) {
				sk_error_clear(err);
				continue;
			}
			return -1;
		}
		json_object_foreach(json_object_get(o, "data"), k, v) {
			cleanup_free char *val = source_value(o, kind, k);
			cleanup_free char *key = xasprintf("%s%s", prefix, k);

			env_set(env, key, val ? val : "");
		}
		json_object_foreach(json_object_get(o, "stringData"), k, v) {
			cleanup_free char *key = xasprintf("%s%s", prefix, k);

			env_set(env, key, json_string_value(v) ? json_string_value(v) : "");
		}
	}
	return 0;
}

static int env_var(struct sk_agent *a, json_t *pod, json_t *cs, json_t *e, json_t *env, sk_error_t *err)
{
	const char *ns = sk_kube_jstr(pod, "metadata.namespace");
	const char *name = sk_kube_jstr(e, "name");
	json_t *vf = json_object_get(e, "valueFrom");
	cleanup_free char *val = NULL;

	if (!name)
		return 0;
	if (!vf) {
		val = sk__ag_expand_vars(sk_kube_jstr(e, "value") ? sk_kube_jstr(e, "value") : "", env);
	} else if (json_object_get(vf, "fieldRef")) {
		val = sk__ag_field_ref(
			pod, sk_kube_jstr(vf, "fieldRef.fieldPath") ? sk_kube_jstr(vf, "fieldRef.fieldPath") : "");
		if (!val)
			return sk_error_set(
				err, SK_EINVALID, "unsupported fieldPath \"%s\"",
				sk_kube_jstr(vf, "fieldRef.fieldPath") ? sk_kube_jstr(vf, "fieldRef.fieldPath") : "");
	} else if (json_object_get(vf, "resourceFieldRef")) {
		val = sk__ag_resource_ref(pod, json_object_get(vf, "resourceFieldRef"), sk_kube_jstr(cs, "name"), err);
		if (!val)
			return -1;
	} else if (json_object_get(vf, "configMapKeyRef")) {
		if (env_from_key_ref(a, ns, json_object_get(vf, "configMapKeyRef"), "ConfigMap", &val, err) < 0)
			return -1;
		if (!val)
			return 0;
	} else if (json_object_get(vf, "secretKeyRef")) {
		if (env_from_key_ref(a, ns, json_object_get(vf, "secretKeyRef"), "Secret", &val, err) < 0)
			return -1;
		if (!val)
			return 0;
	}
	env_set(env, name, val ? val : "");
	return 0;
}

/* The Services' variables (kube/envvars.h), as kubelet's getServiceEnvVarMap:
 * over the image's, under envFrom and env, which may name them in $(VAR). */
static void service_env(struct sk_agent *a, json_t *pod, json_t *env)
{
	const char *ns = sk_kube_jstr(pod, "metadata.namespace"), *k;
	json_t *links = sk_kube_jget(pod, "spec.enableServiceLinks"), *v;
	cleanup_json json_t *svcs = NULL, *master = NULL, *vars = NULL;

	if (!a->services)
		return;
	svcs = sk_informer_list(a->services, ns ? ns : "default");
	master = sk_informer_get(a->services, "default", "kubernetes");
	if (master)
		json_array_append(svcs, master);
	vars = sk_kube_pod_service_env(svcs, ns, !json_is_false(links));
	json_object_foreach(vars, k, v)
		env_set(env, k, json_string_value(v));
}

json_t *sk__ag_container_env(struct sk_agent *a, json_t *pod, json_t *cs, json_t *image_env, sk_error_t *err)
{
	json_t *env = json_array(), *e;
	size_t i;

	json_array_foreach(image_env, i, e)
		if (json_string_value(e) && strchr(json_string_value(e), '='))
			json_array_append(env, e);
	service_env(a, pod, env);
	if (env_from(a, sk_kube_jstr(pod, "metadata.namespace"), json_object_get(cs, "envFrom"), env, err) < 0)
		goto fail;
	json_array_foreach(json_object_get(cs, "env"), i, e)
		if (env_var(a, pod, cs, e, env, err) < 0)
			goto fail;
	return env;
fail:
	json_decref(env);
	return NULL;
}

/* ---- user ---------------------------------------------------------------------------- */

/* Looks name up in rootfs/etc/passwd (field 3 and 4). */
static int passwd_lookup(const char *rootfs, const char *name, int64_t *uid, int64_t *gid)
{
	cleanup_free char *path = xasprintf("%s/etc/passwd", rootfs);
	cleanup_free char *s = sk_read_file(path, NULL);
	char *line, *next;

	for (line = s; line && *line; line = next) {
		char user[256];
		long long u, g;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';

		if (sscanf(line, "%255[^:]:%*[^:]:%lld:%lld", user, &u, &g) == 3 && !strcmp(user, name)) {
			*uid = u;
			*gid = g;
			return 0;
		}
	}
	return -1;
}

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

static json_t *sc_get(json_t *pod, json_t *cs, const char *key)
{
	json_t *v = sk_kube_jget(json_object_get(cs, "securityContext"), key);

	return v ? v : sk_kube_jget(sk_kube_jget(pod, "spec.securityContext"), key);
}

/* uid/gid from the security context over the image's User. */
static int resolve_user(json_t *pod, json_t *cs, const sk_image_info *img, const char *rootfs, uint32_t *uid,
			uint32_t *gid, const char **reason, sk_error_t *err)
{
	const char *user = sk_kube_jstr(img->config, "User");
	json_t *ru = sc_get(pod, cs, "runAsUser"), *rg = sc_get(pod, cs, "runAsGroup");
	int64_t u = 0, g = 0;
	bool numeric = true;
	char uname[256] = "", gname[256] = "";

	if (user && *user) {
		if (sscanf(user, "%255[^:]:%255s", uname, gname) < 1)
			uname[0] = '\0';
		if (all_digits(uname)) {
			u = strtoll(uname, NULL, 10);
			if (passwd_lookup(rootfs, uname, &u, &g) < 0)
				g = 0;
		} else if (passwd_lookup(rootfs, uname, &u, &g) < 0) {
			numeric = false;
		}
		if (gname[0] && all_digits(gname))
			g = strtoll(gname, NULL, 10);
	}
	if (json_is_integer(ru)) {
		u = json_integer_value(ru);
		numeric = true;
	}
	if (json_is_integer(rg))
		g = json_integer_value(rg);
	if (json_is_true(sc_get(pod, cs, "runAsNonRoot"))) {
		if (!json_is_integer(ru) && user && *user && !all_digits(uname)) {
			*reason = "CreateContainerConfigError";
			return sk_error_set(err, SK_EINVALID,
					    "container has runAsNonRoot and image has non-numeric user (%s), cannot "
					    "verify user is non-root (pod: \"%s_%s(%s)\", container: %s)",
					    uname, sk_kube_jstr(pod, "metadata.name"),
					    sk_kube_jstr(pod, "metadata.namespace"), sk_kube_jstr(pod, "metadata.uid"),
					    sk_kube_jstr(cs, "name"));
		}
		if (u == 0) {
			*reason = "CreateContainerConfigError";
			return sk_error_set(err, SK_EINVALID,
					    "container has runAsNonRoot and image will run as root (pod: "
					    "\"%s_%s(%s)\", container: %s)",
					    sk_kube_jstr(pod, "metadata.name"), sk_kube_jstr(pod, "metadata.namespace"),
					    sk_kube_jstr(pod, "metadata.uid"), sk_kube_jstr(cs, "name"));
		}
	}
	(void)numeric;
	*uid = (uint32_t)u;
	*gid = (uint32_t)g;
	return 0;
}

/* ---- arguments ---------------------------------------------------------------------- */

static const char *const *argv_of(json_t *cs, json_t *image_config, json_t *env, struct arena *ar)
{
	json_t *cmd = json_object_get(cs, "command"), *args = json_object_get(cs, "args");
	json_t *ient = json_object_get(image_config, "Entrypoint"), *icmd = json_object_get(image_config, "Cmd");
	json_t *parts[2];
	const char **argv;
	size_t n = 0, i;
	json_t *e;

	if (json_array_size(cmd)) {
		parts[0] = cmd;
		parts[1] = args;
	} else if (json_array_size(args)) {
		parts[0] = ient;
		parts[1] = args;
	} else {
		parts[0] = ient;
		parts[1] = icmd;
	}
	argv = sk__ag_arena_keep(ar,
				 xzalloc((json_array_size(parts[0]) + json_array_size(parts[1]) + 1) * sizeof(char *)));
	for (int p = 0; p < 2; p++) {
		bool from_pod = parts[p] == cmd || parts[p] == args;

		json_array_foreach(parts[p], i, e) {
			const char *s = json_string_value(e) ? json_string_value(e) : "";

			argv[n++] = from_pod ? sk__ag_arena_keep(ar, sk__ag_expand_vars(s, env)) : s;
		}
	}
	argv[n] = NULL;
	return argv;
}

static const char *const *strv_of(json_t *arr, struct arena *ar)
{
	const char **v;
	size_t i;
	json_t *e;

	if (!json_array_size(arr))
		return NULL;
	v = sk__ag_arena_keep(ar, xzalloc((json_array_size(arr) + 1) * sizeof(char *)));
	json_array_foreach(arr, i, e)
		v[i] = sk__ag_arena_keep(ar, xstrdup(json_string_value(e) ? json_string_value(e) : ""));
	return v;
}

/* ---- mounts --------------------------------------------------------------------------- */

static int mounts_of(struct apod *p, json_t *cs, struct arena *ar, struct sk_container_config *cfg, sk_error_t *err)
{
	json_t *vms = json_object_get(cs, "volumeMounts"), *vm;
	struct sk_mount *m = sk__ag_arena_keep(ar, xzalloc((json_array_size(vms) + 1) * sizeof(*m)));
	size_t i, n = 0;

	json_array_foreach(vms, i, vm) {
		const char *vname = sk_kube_jstr(vm, "name") ? sk_kube_jstr(vm, "name") : "";
		json_t *vol = json_object_get(p->mounts, vname);
		const char *host = sk_kube_jstr(vol, "path");
		const char *sub = sk_kube_jstr(vm, "subPath");
		const char *prop = sk_kube_jstr(vm, "mountPropagation");

		if (!host)
			return sk_error_set(err, SK_ENOTFOUND, "volume \"%s\" is not mounted", vname);
		if (sub && *sub) {
			if (strstr(sub, "..") || sub[0] == '/')
				return sk_error_set(err, SK_EINVALID, "subPath \"%s\" is invalid", sub);
			host = keepf(ar, "%s/%s", host, sub);
			if (access(host, F_OK) != 0 && sk_mkdir_p(host, 0755) < 0)
				return sk_error_errno(err, errno, "creating subPath \"%s\"", host);
		}
		m[n].container_path = sk_kube_jstr(vm, "mountPath");
		m[n].host_path = host;
		m[n].readonly = json_is_true(json_object_get(vm, "readOnly")) ||
				json_is_true(json_object_get(vol, "readOnly"));
		if (prop && !strcmp(prop, "Bidirectional"))
			m[n].propagation = SK_PROPAGATION_BIDIRECTIONAL;
		else if (prop && !strcmp(prop, "HostToContainer"))
			m[n].propagation = SK_PROPAGATION_HOST_TO_CONTAINER;
		if (m[n].container_path)
			n++;
	}
	cfg->mounts = m;
	cfg->n_mounts = n;
	return 0;
}

/* ---- security --------------------------------------------------------------------------- */

static void security_of(json_t *pod, json_t *cs, struct arena *ar, struct sk_container_config *cfg)
{
	json_t *sc = json_object_get(cs, "securityContext");
	json_t *caps = json_object_get(sc, "capabilities");
	json_t *ape = json_object_get(sc, "allowPrivilegeEscalation");
	const char *seccomp = sk_kube_jstr(sc, "seccompProfile.type");
	json_t *sup = sk_kube_jget(pod, "spec.securityContext.supplementalGroups");
	json_t *fsg = sk_kube_jget(pod, "spec.securityContext.fsGroup");
	uint32_t *gids;
	size_t i, n = 0;
	json_t *g;

	if (!seccomp)
		seccomp = sk_kube_jstr(pod, "spec.securityContext.seccompProfile.type");
	cfg->cap_add = strv_of(json_object_get(caps, "add"), ar);
	cfg->cap_drop = strv_of(json_object_get(caps, "drop"), ar);
	cfg->privileged = json_is_true(json_object_get(sc, "privileged"));
	cfg->readonly_rootfs = json_is_true(json_object_get(sc, "readOnlyRootFilesystem"));
	cfg->no_new_privileges = json_is_false(ape);
	cfg->seccomp = seccomp && !strcmp(seccomp, "RuntimeDefault") && !cfg->privileged ? SK_SECCOMP_RUNTIME_DEFAULT
											 : SK_SECCOMP_UNCONFINED;
	gids = sk__ag_arena_keep(ar, xzalloc((json_array_size(sup) + 2) * sizeof(*gids)));
	json_array_foreach(sup, i, g)
		gids[n++] = (uint32_t)json_integer_value(g);
	if (json_is_integer(fsg))
		gids[n++] = (uint32_t)json_integer_value(fsg);
	cfg->additional_gids = gids;
	cfg->n_additional_gids = n;
}

/* Lowering oom_score_adj needs CAP_SYS_RESOURCE; without it (some sandboxes
 * and VMs drop it) Guaranteed pods would fail to start: clamp at 0 instead. */
static bool can_lower_oom_score(void)
{
	static int cached = -1;
	char line[256];
	FILE *f;

	if (cached >= 0)
		return cached;
	cached = 1;
	f = fopen("/proc/self/status", "r");
	if (!f)
		return cached;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "CapEff:", 7)) {
			unsigned long long caps = strtoull(line + 7, NULL, 16);

			cached = (caps >> 24) & 1; /* CAP_SYS_RESOURCE */
		}
	fclose(f);
	return cached;
}

static int oom_score_adj(json_t *pod, int64_t mem_request)
{
	const char *qos = sk_kube_pod_qos(pod);
	int64_t cap = node_value("memory");
	int64_t adj;

	if (!strcmp(qos, "Guaranteed"))
		return can_lower_oom_score() ? -997 : 0;
	if (!strcmp(qos, "BestEffort"))
		return 1000;
	adj = cap > 0 ? 1000 - (1000 * mem_request) / cap : 2;
	if (adj < 2)
		adj = 2;
	if (adj > 999)
		adj = 999;
	return (int)adj;
}

static void resources_of(json_t *pod, json_t *cs, struct sk_container_config *cfg)
{
	json_t *res = json_object_get(cs, "resources");

	cfg->cpu_request_milli = milli_of(res, "requests", "cpu");
	if (!cfg->cpu_request_milli)
		cfg->cpu_request_milli = milli_of(res, "limits", "cpu");
	cfg->cpu_limit_milli = milli_of(res, "limits", "cpu");
	cfg->memory_limit = value_of(res, "limits", "memory");
	cfg->oom_score_adj = oom_score_adj(pod, value_of(res, "requests", "memory"));
}

int sk__ag_container_config(struct sk_agent *a, struct apod *p, json_t *pod, json_t *cs, struct ctr *k,
			    const sk_image_info *img, const char *id, struct arena *ar, struct sk_container_config *cfg,
			    const char **reason, sk_error_t *err)
{
	cleanup_json json_t *env = NULL;
	const char *rootfs = cfg->rootfs;
	const char *wd = sk_kube_jstr(cs, "workingDir");
	const char *tmp = sk_kube_jstr(cs, "terminationMessagePath");
	size_t i;
	json_t *e;
	const char **envv;

	*reason = "CreateContainerConfigError";
	env = sk__ag_container_env(a, pod, cs, json_object_get(img->config, "Env"), err);
	if (!env)
		return -1;
	if (!env_lookup(env, "HOSTNAME", 8)) {
		/* what containerd's CRI plugin adds first */
		const char *h = sk_kube_jstr(pod, "spec.hostname");

		json_array_insert_new(env, 0, json_sprintf("HOSTNAME=%s", h ? h : sk_kube_jstr(pod, "metadata.name")));
	}
	cfg->id = id;
	cfg->name = k->name;
	cfg->attempt = k->restarts;
	cfg->sandbox = p->sb;
	cfg->args = argv_of(cs, img->config, env, ar);
	if (!cfg->args[0])
		return sk_error_set(err, SK_EINVALID, "no command specified");
	envv = sk__ag_arena_keep(ar, xzalloc((json_array_size(env) + 1) * sizeof(char *)));
	json_array_foreach(env, i, e)
		envv[i] = sk__ag_arena_keep(ar, xstrdup(json_string_value(e)));
	cfg->env = envv;
	cfg->cwd = wd && *wd ? wd
			     : (sk_kube_jstr(img->config, "WorkingDir") && *sk_kube_jstr(img->config, "WorkingDir")
					? sk_kube_jstr(img->config, "WorkingDir")
					: "/");
	if (resolve_user(pod, cs, img, rootfs, &cfg->uid, &cfg->gid, reason, err) < 0)
		return -1;
	security_of(pod, cs, ar, cfg);
	resources_of(pod, cs, cfg);
	if (mounts_of(p, cs, ar, cfg, err) < 0)
		return -1;
	cfg->termination_message_path = tmp && *tmp ? tmp : "/dev/termination-log";
	cfg->termination_log_path = keepf(ar, "%s/containers/%s/%s", p->pod_dir, k->name, id);
	{
		cleanup_free char *dir = xasprintf("%s/containers/%s", p->pod_dir, k->name);
		int fd;

		sk_mkdir_p(dir, 0755);
		fd = open(cfg->termination_log_path, O_CREAT | O_WRONLY | O_TRUNC | O_CLOEXEC, 0666);
		if (fd >= 0) {
			fchmod(fd, 0666);
			close(fd);
		}
	}
	cfg->image_ref = img->image_ref;
	cfg->image_id = img->id;
	cfg->tty = json_is_true(json_object_get(cs, "tty"));
	cfg->stdin_open = json_is_true(json_object_get(cs, "stdin"));
	cfg->stdin_once = json_is_true(json_object_get(cs, "stdinOnce"));
	cfg->host_pid = json_is_true(sk_kube_jget(pod, "spec.hostPID"));
	cfg->host_ipc = json_is_true(sk_kube_jget(pod, "spec.hostIPC"));
	cfg->log_path = sk__ag_arena_keep(ar, sk_crilog_path(p->log_dir, k->name, k->restarts));
	*reason = NULL;
	return 0;
}
