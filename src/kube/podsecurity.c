/* The Pod Security Standards' checks (podsecurity.h), after upstream's
 * pod-security-admission/policy/check_*.go at v1.32: one function per
 * versioned check, the same texts, the same order (baseline checks by ID,
 * then restricted checks by ID), restricted checks overriding the baseline
 * checks they replace. */
#include "kube/podsecurity.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/json.h"
#include "util/util.h"

/* ---- texts ---- */

typedef struct sbuf {
	char *s;
	size_t n, cap;
} sbuf;

static void sb_printf(sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_printf(sbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if (b->n + (size_t)n + 1 > b->cap) {
		b->cap = (b->n + (size_t)n + 1) * 2;
		b->s = xrealloc(b->s, b->cap);
	}
	va_start(ap, fmt);
	vsnprintf(b->s + b->n, b->cap - b->n, fmt, ap);
	va_end(ap);
	b->n += (size_t)n;
}

static char *sb_take(sbuf *b) { return b->s ? b->s : xstrdup(""); }

static const char *pl(size_t n, const char *one, const char *many) { return n == 1 ? one : many; }

static void list_add(json_t *l, const char *s) { json_array_append_new(l, json_string_nocheck(s ? s : "")); }

/* A set of strings: an object's keys, listed sorted (Go's sets.String.List). */
static void set_add(json_t *set, const char *s) { json_object_set_new_nocheck(set, s ? s : "", json_true()); }

static int cmp_str(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

static json_t *set_list(json_t *set)
{
	size_t n = json_object_size(set), i = 0;
	const char **keys = xmalloc((n ? n : 1) * sizeof(*keys));
	const char *k;
	json_t *v, *l = json_array();

	json_object_foreach(set, k, v)
		keys[i++] = k;
	qsort(keys, n, sizeof(*keys), cmp_str);
	for (i = 0; i < n; i++)
		list_add(l, keys[i]);
	free(keys);
	return l;
}

/* `"a", "b"` (joinQuote) or, with sep, the items joined. */
static char *join(json_t *l, const char *sep, int quote)
{
	sbuf b = {0};
	size_t i;
	json_t *v;

	json_array_foreach(l, i, v)
		sb_printf(&b, "%s%s%s%s", i ? sep : "", quote ? "\"" : "", json_string_value(v), quote ? "\"" : "");
	return sb_take(&b);
}

static char *join_quote(json_t *l) { return join(l, ", ", 1); }

/* `container "a"` / `containers "a", "b"` added to setters when l has any. */
static void add_containers(json_t *setters, json_t *l)
{
	cleanup_free char *q = NULL;
	cleanup_free char *s = NULL;

	if (!json_array_size(l))
		return;
	q = join_quote(l);
	s = xasprintf("%s %s", pl(json_array_size(l), "container", "containers"), q);
	list_add(setters, s);
}

/* Go's %q of a string (the annotations' values). */
static void sb_goquote(sbuf *b, const char *s)
{
	sb_printf(b, "\"");
	for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
		if (*c == '"' || *c == '\\')
			sb_printf(b, "\\%c", *c);
		else if (*c == '\n')
			sb_printf(b, "\\n");
		else if (*c == '\t')
			sb_printf(b, "\\t");
		else if (*c == '\r')
			sb_printf(b, "\\r");
		else if (*c < 0x20 || *c == 0x7f)
			sb_printf(b, "\\x%02x", *c);
		else
			sb_printf(b, "%c", *c);
	}
	sb_printf(b, "\"");
}

/* ---- the pod's fields, as Go's types see them (null is absent) ---- */

static json_t *obj(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);

	return json_is_object(v) ? v : NULL;
}

static const char *str(json_t *o, const char *k) { return json_string_value(json_object_get(o, k)); }

static const char *str0(json_t *o, const char *k) { return str(o, k) ? str(o, k) : ""; }

static json_t *sc(json_t *o) { return obj(o, "securityContext"); }

/* initContainers, containers, ephemeralContainers (upstream's visitContainers). */
typedef struct citer {
	json_t *spec;
	int list;
	size_t i;
} citer;

static json_t *cnext(citer *it)
{
	static const char *const lists[] = {"initContainers", "containers", "ephemeralContainers"};

	while (it->list < 3) {
		json_t *a = json_object_get(it->spec, lists[it->list]);

		if (json_is_array(a) && it->i < json_array_size(a)) {
			json_t *c = json_array_get(a, it->i++);

			if (json_is_object(c))
				return c;
			continue;
		}
		it->list++;
		it->i = 0;
	}
	return NULL;
}

#define FOREACH_CONTAINER(spec, c) for (citer it_ = {(spec), 0, 0}; ((c) = cnext(&it_));)

static int is_windows(json_t *spec) { return !strcmp(str0(obj(spec, "os"), "name"), "windows"); }

/* ---- the checks: 1 with *reason and *detail (malloc'd) when forbidden ---- */

typedef int (*check_fn)(json_t *meta, json_t *spec, const char **reason, char **detail);

static int fail(const char **reason, char **detail, const char *r, char *d)
{
	*reason = r;
	*detail = d;
	return 1;
}

static int allowed_type(const char *t) { return !strcmp(t, "RuntimeDefault") || !strcmp(t, "Localhost"); }

static int apparmor_1_0(json_t *meta, json_t *spec, const char **reason, char **detail)
{
	cleanup_json json_t *setters = json_array(), *bad = json_object(), *badc = json_array(), *ann = json_array();
	cleanup_json json_t *values = NULL;
	json_t *p = obj(sc(spec), "appArmorProfile"), *c, *v;
	const char *k;

	if (p && !allowed_type(str0(p, "type"))) {
		list_add(setters, "pod");
		set_add(bad, str0(p, "type"));
	}
	FOREACH_CONTAINER(spec, c)
	{
		json_t *cp = obj(sc(c), "appArmorProfile");

		if (cp && !allowed_type(str0(cp, "type"))) {
			list_add(badc, str0(c, "name"));
			set_add(bad, str0(cp, "type"));
		}
	}
	add_containers(setters, badc);
	json_object_foreach(obj(meta, "annotations"), k, v) {
		const char *val = json_string_value(v) ? json_string_value(v) : "";

		if (!strncmp(k, "container.apparmor.security.beta.kubernetes.io/", 47) && *val &&
		    strcmp(val, "runtime/default") && strncmp(val, "localhost/", 10)) {
			sbuf b = {0};

			sb_printf(&b, "%s=", k);
			sb_goquote(&b, val);
			list_add(ann, b.s);
			free(b.s);
		}
	}
	values = set_list(bad);
	if (json_array_size(ann)) {
		cleanup_json json_t *sorted = json_object();
		cleanup_json json_t *sl = NULL;
		size_t i;

		json_array_foreach(ann, i, v)
			set_add(sorted, json_string_value(v));
		sl = set_list(sorted);
		json_array_extend(values, sl);
		list_add(setters, pl(json_array_size(ann), "annotation", "annotations"));
	}
	if (json_array_size(setters)) {
		cleanup_free char *who = join(setters, " and ", 0);
		cleanup_free char *what = join_quote(values);

		return fail(reason, detail,
			    pl(json_array_size(values), "forbidden AppArmor profile", "forbidden AppArmor profiles"),
			    xasprintf("%s must not set AppArmor profile type to %s", who, what));
	}
	return 0;
}

/* capabilities_baseline: adds beyond the default set. */
static int capabilities_baseline_1_0(json_t *meta, json_t *spec, const char **reason, char **detail)
{
	static const char *const allowed[] = {"AUDIT_WRITE", "CHOWN",  "DAC_OVERRIDE",     "FOWNER",  "FSETID",
					      "KILL",        "MKNOD",  "NET_BIND_SERVICE", "SETFCAP", "SETGID",
					      "SETPCAP",     "SETUID", "SYS_CHROOT",       NULL};
	cleanup_json json_t *badc = json_array(), *caps = json_object();
	json_t *c;

	(void)meta;
	FOREACH_CONTAINER(spec, c)
	{
		json_t *cap = obj(sc(c), "capabilities"), *a;
		size_t i;
		int valid = 1;

		if (!cap)
			continue;
		json_array_foreach(json_object_get(cap, "add"), i, a) {
			const char *s = json_string_value(a) ? json_string_value(a) : "";
			int ok = 0;

			for (int j = 0; allowed[j]; j++)
				ok |= !strcmp(s, allowed[j]);
			if (!ok) {
				valid = 0;
				set_add(caps, s);
			}
		}
		if (!valid)
			list_add(badc, str0(c, "name"));
	}
	if (json_array_size(badc)) {
		cleanup_json json_t *cl = set_list(caps);
		cleanup_free char *names = join_quote(badc);
		cleanup_free char *cs = join_quote(cl);

		return fail(reason, detail, "non-default capabilities",
			    xasprintf("%s %s must not include %s in securityContext.capabilities.add",
				      pl(json_array_size(badc), "container", "containers"), names, cs));
	}
	return 0;
}

static int host_namespaces_1_0(json_t *meta, json_t *spec, const char **reason, char **detail)
{
	sbuf b = {0};

	(void)meta;
	if (json_is_true(json_object_get(spec, "hostNetwork")))
		sb_printf(&b, "hostNetwork=true");
	if (json_is_true(json_object_get(spec, "hostPID")))
		sb_printf(&b, "%shostPID=true", b.n ? ", " : "");
	if (json_is_true(json_object_get(spec, "hostIPC")))
		sb_printf(&b, "%shostIPC=true", b.n ? ", " : "");
	if (b.n)
		return fail(reason, detail, "host namespaces", b.s);
	return 0;
}

static int host_path_volumes_1_0(json_t *meta, json_t *spec, const char **reason, char **detail)
{
	cleanup_json json_t *vols = json_array();
	size_t i;
	json_t *v;

	(void)meta;
	json_array_foreach(json_object_get(spec, "volumes"), i, v)
		if (obj(v, "hostPath"))
			list_add(vols, str0(v, "name"));
	if (json_array_size(vols)) {
		cleanup_free char *names = join_quote(vols);

		return fail(reason, detail, "hostPath volumes",
			    xasprintf("%s %s", pl(json_array_size(vols), "volume", "volumes"), names));
	}
	return 0;
}

static int host_ports_1_0(json_t *meta, json_t *spec, const char **reason, char **detail)
{
	cleanup_json json_t *badc = json_array(), *ports = json_object();
	json_t *c;

	(void)meta;
	FOREACH_CONTAINER(spec, c)
	{
		size_t i;
		json_t *p;
		int valid = 1;

		json_array_foreach(json_object_get(c, "ports"), i, p) {
			json_int_t hp = json_integer_value(json_object_get(p, "hostPort"));

			if (hp) {
				char num[24];

				/* an int32 in the API: Go's int(c.HostPort) */
				snprintf(num, sizeof(num), "%d", (int)(int32_t)hp);
				valid = 0;
				set_add(ports, num);
			}
		}
		if (!valid)
			list_add(badc, str0(c, "name"));
	}
	if (json_array_size(badc)) {
		cleanup_json json_t *pl_ = set_list(ports);
		cleanup_free char *names = join_quote(badc);
		cleanup_free char *ps = join(pl_, ", ", 0);

		return fail(reason, detail, "hostPort",
			    xasprintf("%s %s %s %s %s", pl(json_array_size(badc), "container", "containers"), names,
				      pl(json_array_size(badc), "uses", "use"),
				      pl(json_array_size(pl_), "hostPort", "hostPorts"), ps));
	}
	return 0;
}

static int privileged_1_0(json_t *meta, json_t *spec, const char **reason, char **detail)
{
	cleanup_json json_t *badc = json_array();
	json_t *c;

	(void)meta;
	FOREACH_CONTAINER(spec, c)
	if (json_is_true(json_object_get(sc(c), "privileged")))
		list_add(badc, str0(c, "name"));
	if (json_array_size(badc)) {
		cleanup_free char *names = join_quote(badc);

		return fail(reason, detail, "privileged",
			    xasprintf("%s %s must not set securityContext.privileged=true",
				      pl(json_array_size(badc), "container", "containers"), names));
	}
	return 0;
}

static int proc_mount_1_0(json_t *meta, json_t *spec, const char **reason, char **detail)
{
	cleanup_json json_t *badc = json_array(), *types = json_object();
	json_t *c;

	(void)meta;
	FOREACH_CONTAINER(spec, c)
	{
		const char *pm = str(sc(c), "procMount");

		if (pm && strcmp(pm, "Default")) {
			list_add(badc, str0(c, "name"));
			set_add(types, pm);
		}
	}
	if (json_array_size(badc)) {
		cleanup_json json_t *tl = set_list(types);
		cleanup_free char *names = join_quote(badc);
		cleanup_free char *ts = join_quote(tl);

		return fail(reason, detail, "procMount",
			    xasprintf("%s %s must not set securityContext.procMount to %s",
				      pl(json_array_size(badc), "container", "containers"), names, ts));
	}
	return 0;
}

typedef struct selinux_bad {
	json_t *types;
	int user, role;
} selinux_bad;

static int selinux_valid(json_t *o, const char *const *allowed, selinux_bad *bad)
{
	const char *t = str0(o, "type");
	int ok = 0;

	for (int i = 0; allowed[i]; i++)
		ok |= !strcmp(t, allowed[i]);
	if (!ok)
		set_add(bad->types, t);
	if (*str0(o, "user")) {
		bad->user = 1;
		ok = 0;
	}
	if (*str0(o, "role")) {
		bad->role = 1;
		ok = 0;
	}
	return ok;
}

static int selinux(json_t *spec, const char *const *allowed, const char **reason, char **detail)
{
	cleanup_json json_t *setters = json_array(), *badc = json_array(), *types = json_object();
	selinux_bad bad = {types, 0, 0};
	json_t *o = obj(sc(spec), "seLinuxOptions"), *c;

	if (o && !selinux_valid(o, allowed, &bad))
		list_add(setters, "pod");
	FOREACH_CONTAINER(spec, c)
	{
		json_t *co = obj(sc(c), "seLinuxOptions");

		if (co && !selinux_valid(co, allowed, &bad))
			list_add(badc, str0(c, "name"));
	}
	add_containers(setters, badc);
	if (json_array_size(setters)) {
		cleanup_json json_t *data = json_array();
		cleanup_free char *who = join(setters, " and ", 0);
		cleanup_free char *what = NULL;

		if (json_object_size(types)) {
			cleanup_json json_t *tl = set_list(types);
			cleanup_free char *ts = join_quote(tl);
			cleanup_free char *s = xasprintf("%s %s", pl(json_array_size(tl), "type", "types"), ts);

			list_add(data, s);
		}
		if (bad.user)
			list_add(data, "user may not be set");
		if (bad.role)
			list_add(data, "role may not be set");
		what = join(data, "; ", 0);
		return fail(reason, detail, "seLinuxOptions",
			    xasprintf("%s set forbidden securityContext.seLinuxOptions: %s", who, what));
	}
	return 0;
}

static int selinux_1_0(json_t *meta, json_t *spec, const char **reason, char **detail)
{
	static const char *const allowed[] = {"", "container_t", "container_init_t", "container_kvm_t", NULL};

	(void)meta;
	return selinux(spec, allowed, reason, detail);
}

static int selinux_1_31(json_t *meta, json_t *spec, const char **reason, char **detail)
{
	static const char *const allowed[] = {
		"", "container_t", "container_init_t", "container_kvm_t", "container_engine_t", NULL};

	(void)meta;
	return selinux(spec, allowed, reason, detail);
}

static int seccomp_annotation_ok(const char *v)
{
	return !strcmp(v, "runtime/default") || !strcmp(v, "docker/default") || !strncmp(v, "localhost/", 10);
}

static void seccomp_annotation(json_t *ann, const char *key, json_t *forbidden)
{
	json_t *v = json_object_get(ann, key);
	sbuf b = {0};

	if (!v || seccomp_annotation_ok(json_string_value(v) ? json_string_value(v) : ""))
		return;
	sb_printf(&b, "%s=", key);
	sb_goquote(&b, json_string_value(v) ? json_string_value(v) : "");
	set_add(forbidden, b.s);
	free(b.s);
}

/* Before 1.19: the seccomp annotations. */
static int seccomp_baseline_1_0(json_t *meta, json_t *spec, const char **reason, char **detail)
{
	cleanup_json json_t *forbidden = json_object();
	json_t *ann = obj(meta, "annotations"), *c;

	seccomp_annotation(ann, "seccomp.security.alpha.kubernetes.io/pod", forbidden);
	FOREACH_CONTAINER(spec, c)
	{
		cleanup_free char *key = xasprintf("container.seccomp.security.alpha.kubernetes.io/%s",
						   str0(c, "name"));

		seccomp_annotation(ann, key, forbidden);
	}
	if (json_object_size(forbidden)) {
		cleanup_json json_t *l = set_list(forbidden);
		cleanup_free char *s = join(l, ", ", 0);

		return fail(reason, detail, "seccompProfile",
			    xasprintf("forbidden %s %s", pl(json_array_size(l), "annotation", "annotations"), s));
	}
	return 0;
}

/* The seccomp profile types of pod and containers; implicit (restricted):
 * a container with none is bad unless the pod has a valid one. */
static int seccomp_fields(json_t *spec, int implicit, const char **reason, char **detail)
{
	cleanup_json json_t *setters = json_array(), *values = json_object(), *badc = json_array(),
			    *implicitc = json_array();
	json_t *p = obj(sc(spec), "seccompProfile"), *c;
	int pod_set = 0;

	if (p && !allowed_type(str0(p, "type"))) {
		list_add(setters, "pod");
		set_add(values, str0(p, "type"));
	} else if (p) {
		pod_set = 1;
	}
	FOREACH_CONTAINER(spec, c)
	{
		json_t *cp = obj(sc(c), "seccompProfile");

		if (cp && !allowed_type(str0(cp, "type"))) {
			list_add(badc, str0(c, "name"));
			set_add(values, str0(cp, "type"));
		} else if (!cp && !pod_set) {
			list_add(implicitc, str0(c, "name"));
		}
	}
	add_containers(setters, badc);
	if (json_array_size(setters)) {
		cleanup_json json_t *vl = set_list(values);
		cleanup_free char *who = join(setters, " and ", 0);
		cleanup_free char *vs = join_quote(vl);

		return fail(reason, detail, "seccompProfile",
			    xasprintf("%s must not set securityContext.seccompProfile.type to %s", who, vs));
	}
	if (implicit && json_array_size(implicitc)) {
		cleanup_free char *names = join_quote(implicitc);

		return fail(reason, detail, "seccompProfile",
			    xasprintf("pod or %s %s must set securityContext.seccompProfile.type to \"RuntimeDefault\" "
				      "or \"Localhost\"",
				      pl(json_array_size(implicitc), "container", "containers"), names));
	}
	return 0;
}

static int seccomp_baseline_1_19(json_t *meta, json_t *spec, const char **reason, char **detail)
{
	(void)meta;
	return seccomp_fields(spec, 0, reason, detail);
}

static int sysctls(json_t *spec, int minor, const char **reason, char **detail)
{
	static const struct {
		const char *name;
		int since;
	} allowed[] = {
		{"kernel.shm_rmid_forced", 0},
		{"net.ipv4.ip_local_port_range", 0},
		{"net.ipv4.tcp_syncookies", 0},
		{"net.ipv4.ping_group_range", 0},
		{"net.ipv4.ip_unprivileged_port_start", 0},
		{"net.ipv4.ip_local_reserved_ports", 27},
		{"net.ipv4.tcp_keepalive_time", 29},
		{"net.ipv4.tcp_fin_timeout", 29},
		{"net.ipv4.tcp_keepalive_intvl", 29},
		{"net.ipv4.tcp_keepalive_probes", 29},
		{"net.ipv4.tcp_rmem", 32},
		{"net.ipv4.tcp_wmem", 32},
	};
	cleanup_json json_t *bad = json_array();
	size_t i;
	json_t *s;

	json_array_foreach(json_object_get(sc(spec), "sysctls"), i, s) {
		const char *name = str0(s, "name");
		int ok = 0;

		for (size_t j = 0; j < sizeof(allowed) / sizeof(allowed[0]); j++)
			ok |= allowed[j].since <= minor && !strcmp(name, allowed[j].name);
		if (!ok)
			list_add(bad, name);
	}
	if (json_array_size(bad))
		return fail(reason, detail, "forbidden sysctls", join(bad, ", ", 0));
	return 0;
}

static int sysctls_1_0(json_t *m, json_t *spec, const char **r, char **d) { return (void)m, sysctls(spec, 0, r, d); }
static int sysctls_1_27(json_t *m, json_t *spec, const char **r, char **d) { return (void)m, sysctls(spec, 27, r, d); }
static int sysctls_1_29(json_t *m, json_t *spec, const char **r, char **d) { return (void)m, sysctls(spec, 29, r, d); }
static int sysctls_1_32(json_t *m, json_t *spec, const char **r, char **d) { return (void)m, sysctls(spec, 32, r, d); }

static int host_process_1_0(json_t *meta, json_t *spec, const char **reason, char **detail)
{
	cleanup_json json_t *setters = json_array(), *badc = json_array();
	json_t *c;

	(void)meta;
	FOREACH_CONTAINER(spec, c)
	if (json_is_true(json_object_get(obj(sc(c), "windowsOptions"), "hostProcess")))
		list_add(badc, str0(c, "name"));
	if (json_is_true(json_object_get(obj(sc(spec), "windowsOptions"), "hostProcess")))
		list_add(setters, "pod");
	add_containers(setters, badc);
	if (json_array_size(setters)) {
		cleanup_free char *who = join(setters, " and ", 0);

		return fail(reason, detail, "hostProcess",
			    xasprintf("%s must not set securityContext.windowsOptions.hostProcess=true", who));
	}
	return 0;
}

static int ape_1_8(json_t *meta, json_t *spec, const char **reason, char **detail)
{
	cleanup_json json_t *badc = json_array();
	json_t *c;

	(void)meta;
	FOREACH_CONTAINER(spec, c)
	if (!json_is_false(json_object_get(sc(c), "allowPrivilegeEscalation")))
		list_add(badc, str0(c, "name"));
	if (json_array_size(badc)) {
		cleanup_free char *names = join_quote(badc);

		return fail(reason, detail, "allowPrivilegeEscalation != false",
			    xasprintf("%s %s must set securityContext.allowPrivilegeEscalation=false",
				      pl(json_array_size(badc), "container", "containers"), names));
	}
	return 0;
}

static int ape_1_25(json_t *meta, json_t *spec, const char **reason, char **detail)
{
	return is_windows(spec) ? 0 : ape_1_8(meta, spec, reason, detail);
}

static int capabilities_restricted_1_22(json_t *meta, json_t *spec, const char **reason, char **detail)
{
	cleanup_json json_t *nodrop = json_array(), *adding = json_array(), *caps = json_object();
	sbuf b = {0};
	json_t *c;

	(void)meta;
	FOREACH_CONTAINER(spec, c)
	{
		json_t *cap = obj(sc(c), "capabilities"), *a;
		size_t i;
		int bad = 0;

		if (!cap) {
			list_add(nodrop, str0(c, "name"));
			continue;
		}
		if (!sk_json_array_has_string(json_object_get(cap, "drop"), "ALL"))
			list_add(nodrop, str0(c, "name"));
		json_array_foreach(json_object_get(cap, "add"), i, a) {
			const char *s = json_string_value(a) ? json_string_value(a) : "";

			if (strcmp(s, "NET_BIND_SERVICE")) {
				bad = 1;
				set_add(caps, s);
			}
		}
		if (bad)
			list_add(adding, str0(c, "name"));
	}
	if (json_array_size(nodrop)) {
		cleanup_free char *names = join_quote(nodrop);

		sb_printf(&b, "%s %s must set securityContext.capabilities.drop=[\"ALL\"]",
			  pl(json_array_size(nodrop), "container", "containers"), names);
	}
	if (json_array_size(adding)) {
		cleanup_json json_t *cl = set_list(caps);
		cleanup_free char *names = join_quote(adding);
		cleanup_free char *cs = join_quote(cl);

		sb_printf(&b, "%s%s %s must not include %s in securityContext.capabilities.add", b.n ? "; " : "",
			  pl(json_array_size(adding), "container", "containers"), names, cs);
	}
	if (b.n)
		return fail(reason, detail, "unrestricted capabilities", b.s);
	return 0;
}

static int capabilities_restricted_1_25(json_t *meta, json_t *spec, const char **reason, char **detail)
{
	return is_windows(spec) ? 0 : capabilities_restricted_1_22(meta, spec, reason, detail);
}

static int restricted_volumes_1_0(json_t *meta, json_t *spec, const char **reason, char **detail)
{
	static const char *const ok[] = {"configMap", "csi",       "downwardAPI",
					 "emptyDir",  "ephemeral", "persistentVolumeClaim",
					 "projected", "secret",    NULL};
	static const char *const types[] = {"hostPath",
					    "gcePersistentDisk",
					    "awsElasticBlockStore",
					    "gitRepo",
					    "nfs",
					    "iscsi",
					    "glusterfs",
					    "rbd",
					    "flexVolume",
					    "cinder",
					    "cephfs",
					    "flocker",
					    "fc",
					    "azureFile",
					    "vsphereVolume",
					    "quobyte",
					    "azureDisk",
					    "photonPersistentDisk",
					    "portworxVolume",
					    "scaleIO",
					    "storageos",
					    NULL};
	cleanup_json json_t *bad = json_array(), *badtypes = json_object();
	size_t i;
	json_t *v;

	(void)meta;
	json_array_foreach(json_object_get(spec, "volumes"), i, v) {
		const char *type = "unknown";
		int fine = 0;

		for (int j = 0; ok[j]; j++)
			fine |= obj(v, ok[j]) != NULL;
		if (fine)
			continue;
		list_add(bad, str0(v, "name"));
		for (int j = 0; types[j]; j++)
			if (obj(v, types[j])) {
				type = types[j];
				break;
			}
		set_add(badtypes, type);
	}
	if (json_array_size(bad)) {
		cleanup_json json_t *tl = set_list(badtypes);
		cleanup_free char *names = join_quote(bad);
		cleanup_free char *ts = join_quote(tl);

		return fail(reason, detail, "restricted volume types",
			    xasprintf("%s %s %s %s %s", pl(json_array_size(bad), "volume", "volumes"), names,
				      pl(json_array_size(bad), "uses", "use"),
				      pl(json_array_size(tl), "restricted volume type", "restricted volume types"),
				      ts));
	}
	return 0;
}

static int run_as_non_root_1_0(json_t *meta, json_t *spec, const char **reason, char **detail)
{
	cleanup_json json_t *setters = json_array(), *explicitc = json_array(), *implicitc = json_array();
	json_t *p = json_object_get(sc(spec), "runAsNonRoot"), *c;
	int pod_ok = 0;

	(void)meta;
	if (json_is_false(p))
		list_add(setters, "pod");
	else if (json_is_true(p))
		pod_ok = 1;
	FOREACH_CONTAINER(spec, c)
	{
		json_t *v = json_object_get(sc(c), "runAsNonRoot");

		if (json_is_boolean(v)) {
			if (json_is_false(v))
				list_add(explicitc, str0(c, "name"));
		} else if (!pod_ok) {
			list_add(implicitc, str0(c, "name"));
		}
	}
	add_containers(setters, explicitc);
	if (json_array_size(setters)) {
		cleanup_free char *who = join(setters, " and ", 0);

		return fail(reason, detail, "runAsNonRoot != true",
			    xasprintf("%s must not set securityContext.runAsNonRoot=false", who));
	}
	if (json_array_size(implicitc)) {
		cleanup_free char *names = join_quote(implicitc);

		return fail(reason, detail, "runAsNonRoot != true",
			    xasprintf("pod or %s %s must set securityContext.runAsNonRoot=true",
				      pl(json_array_size(implicitc), "container", "containers"), names));
	}
	return 0;
}

static int is_zero(json_t *v) { return json_is_integer(v) && json_integer_value(v) == 0; }

static int run_as_user_1_23(json_t *meta, json_t *spec, const char **reason, char **detail)
{
	cleanup_json json_t *setters = json_array(), *badc = json_array();
	json_t *c;

	(void)meta;
	if (is_zero(json_object_get(sc(spec), "runAsUser")))
		list_add(setters, "pod");
	FOREACH_CONTAINER(spec, c)
	if (is_zero(json_object_get(sc(c), "runAsUser")))
		list_add(badc, str0(c, "name"));
	add_containers(setters, badc);
	if (json_array_size(setters)) {
		cleanup_free char *who = join(setters, " and ", 0);

		return fail(reason, detail, "runAsUser=0", xasprintf("%s must not set runAsUser=0", who));
	}
	return 0;
}

static int seccomp_restricted_1_19(json_t *meta, json_t *spec, const char **reason, char **detail)
{
	(void)meta;
	return seccomp_fields(spec, 1, reason, detail);
}

static int seccomp_restricted_1_25(json_t *meta, json_t *spec, const char **reason, char **detail)
{
	return is_windows(spec) ? 0 : seccomp_restricted_1_19(meta, spec, reason, detail);
}

/* ---- the registry ---- */

typedef struct vcheck {
	int since; /* v1.since */
	check_fn fn;
	const char *overrides; /* a baseline check's ID this one replaces in restricted */
} vcheck;

typedef struct psa_check {
	const char *id;
	sk_psa_level level;
	vcheck v[5]; /* by since, ending with fn NULL */
} psa_check;

/* Baseline checks sorted by ID, then restricted ones (upstream's orderedIDs). */
static const psa_check checks[] = {
	{"appArmorProfile", SK_PSA_BASELINE, {{0, apparmor_1_0, NULL}}},
	{"capabilities_baseline", SK_PSA_BASELINE, {{0, capabilities_baseline_1_0, NULL}}},
	{"hostNamespaces", SK_PSA_BASELINE, {{0, host_namespaces_1_0, NULL}}},
	{"hostPathVolumes", SK_PSA_BASELINE, {{0, host_path_volumes_1_0, NULL}}},
	{"hostPorts", SK_PSA_BASELINE, {{0, host_ports_1_0, NULL}}},
	{"privileged", SK_PSA_BASELINE, {{0, privileged_1_0, NULL}}},
	{"procMount", SK_PSA_BASELINE, {{0, proc_mount_1_0, NULL}}},
	{"seLinuxOptions", SK_PSA_BASELINE, {{0, selinux_1_0, NULL}, {31, selinux_1_31, NULL}}},
	{"seccompProfile_baseline",
	 SK_PSA_BASELINE,
	 {{0, seccomp_baseline_1_0, NULL}, {19, seccomp_baseline_1_19, NULL}}},
	{"sysctls",
	 SK_PSA_BASELINE,
	 {{0, sysctls_1_0, NULL}, {27, sysctls_1_27, NULL}, {29, sysctls_1_29, NULL}, {32, sysctls_1_32, NULL}}},
	{"windowsHostProcess", SK_PSA_BASELINE, {{0, host_process_1_0, NULL}}},
	{"allowPrivilegeEscalation", SK_PSA_RESTRICTED, {{8, ape_1_8, NULL}, {25, ape_1_25, NULL}}},
	{"capabilities_restricted",
	 SK_PSA_RESTRICTED,
	 {{22, capabilities_restricted_1_22, "capabilities_baseline"},
	  {25, capabilities_restricted_1_25, "capabilities_baseline"}}},
	{"restrictedVolumes", SK_PSA_RESTRICTED, {{0, restricted_volumes_1_0, "hostPathVolumes"}}},
	{"runAsNonRoot", SK_PSA_RESTRICTED, {{0, run_as_non_root_1_0, NULL}}},
	{"runAsUser", SK_PSA_RESTRICTED, {{23, run_as_user_1_23, NULL}}},
	{"seccompProfile_restricted",
	 SK_PSA_RESTRICTED,
	 {{19, seccomp_restricted_1_19, "seccompProfile_baseline"},
	  {25, seccomp_restricted_1_25, "seccompProfile_baseline"}}},
};

#define NCHECKS (sizeof(checks) / sizeof(checks[0]))

/* The version of c in force at v1.minor, or NULL before its first. */
static const vcheck *active(const psa_check *c, int minor)
{
	const vcheck *found = NULL;

	for (int i = 0; i < 5 && c->v[i].fn; i++)
		if (c->v[i].since <= minor)
			found = &c->v[i];
	return found;
}

static int overridden(const char *id, int minor)
{
	for (size_t i = 0; i < NCHECKS; i++) {
		const vcheck *v = checks[i].level == SK_PSA_RESTRICTED ? active(&checks[i], minor) : NULL;

		if (v && v->overrides && !strcmp(v->overrides, id))
			return 1;
	}
	return 0;
}

json_t *sk_psa_evaluate(const sk_psa_lv *lv, json_t *meta, json_t *spec)
{
	json_t *results = json_array();
	int minor = lv->minor == SK_PSA_LATEST || lv->minor > SK_PSA_MAX_MINOR ? SK_PSA_MAX_MINOR : (int)lv->minor;

	if (lv->level == SK_PSA_PRIVILEGED)
		return results;
	if (!json_is_object(meta))
		meta = NULL;
	if (!json_is_object(spec))
		spec = NULL;
	for (size_t i = 0; i < NCHECKS; i++) {
		const psa_check *c = &checks[i];
		const vcheck *v = active(c, minor);
		const char *reason = NULL;
		char *detail = NULL;

		if (!v || (c->level == SK_PSA_RESTRICTED && lv->level != SK_PSA_RESTRICTED))
			continue;
		if (c->level == SK_PSA_BASELINE && lv->level == SK_PSA_RESTRICTED && overridden(c->id, minor))
			continue;
		if (!v->fn(meta, spec, &reason, &detail))
			continue;
		json_array_append_new(results,
				      json_pack("{s:s, s:s}", "reason", reason ? reason : "unknown forbidden reason",
						"detail", detail ? detail : ""));
		free(detail);
	}
	return results;
}

char *sk_psa_forbidden_detail(json_t *results)
{
	sbuf b = {0};
	size_t i;
	json_t *r;

	json_array_foreach(results, i, r) {
		const char *d = str0(r, "detail");

		sb_printf(&b, "%s%s", i ? ", " : "", str0(r, "reason"));
		if (*d)
			sb_printf(&b, " (%s)", d);
	}
	return sb_take(&b);
}

char *sk_psa_forbidden_reason(json_t *results)
{
	sbuf b = {0};
	size_t i;
	json_t *r;

	json_array_foreach(results, i, r)
		sb_printf(&b, "%s%s", i ? ", " : "", str0(r, "reason"));
	return sb_take(&b);
}

/* ---- levels, versions, labels ---- */

static const char *const level_names[] = {"privileged", "baseline", "restricted"};

const char *sk_psa_level_name(sk_psa_level l) { return l <= SK_PSA_RESTRICTED ? level_names[l] : "restricted"; }

int sk_psa_parse_level(const char *s, sk_psa_level *out)
{
	for (int i = 0; i < 3; i++)
		if (s && !strcmp(s, level_names[i])) {
			*out = (sk_psa_level)i;
			return 0;
		}
	return -1;
}

int sk_psa_parse_version(const char *s, int64_t *minor)
{
	char *end;
	long long n;

	if (s && !strcmp(s, "latest")) {
		*minor = SK_PSA_LATEST;
		return 0;
	}
	/* ^v1\.([0-9]|[1-9][0-9]*)$ */
	if (!s || strncmp(s, "v1.", 3) || s[3] < '0' || s[3] > '9' || (s[3] == '0' && s[4]))
		return -1;
	for (const char *c = s + 3; *c; c++)
		if (*c < '0' || *c > '9')
			return -1;
	errno = 0;
	n = strtoll(s + 3, &end, 10);
	if (errno || *end)
		return -1; /* Go's Atoi fails past int64 */
	*minor = n;
	return 0;
}

void sk_psa_lv_format(const sk_psa_lv *lv, char *buf, size_t len)
{
	if (lv->minor == SK_PSA_LATEST)
		snprintf(buf, len, "%s:latest", sk_psa_level_name(lv->level));
	else
		snprintf(buf, len, "%s:v1.%lld", sk_psa_level_name(lv->level), (long long)lv->minor);
}

int sk_psa_lv_equal(const sk_psa_lv *a, const sk_psa_lv *b) { return a->level == b->level && a->minor == b->minor; }

int sk_psa_lv_equivalent(const sk_psa_lv *a, const sk_psa_lv *b)
{
	return (a->level == SK_PSA_PRIVILEGED && b->level == SK_PSA_PRIVILEGED) || sk_psa_lv_equal(a, b);
}

int sk_psa_compare_levels(sk_psa_level a, sk_psa_level b) { return a == b ? 0 : a < b ? -1 : 1; }

void sk_psa_policy_default(sk_psa_policy *p)
{
	p->enforce = p->audit = p->warn = (sk_psa_lv){SK_PSA_PRIVILEGED, SK_PSA_LATEST};
}

static void label_error(json_t **causes, const char *label, const char *value, const char *why)
{
	sbuf b = {0};
	cleanup_free char *field = xasprintf("metadata.labels[" SK_PSA_LABEL_PREFIX "%s]", label);

	if (!*causes)
		*causes = json_array();
	sb_printf(&b, "Invalid value: ");
	sb_goquote(&b, value);
	sb_printf(&b, ": %s", why);
	json_array_append_new(
		*causes, json_pack("{s:s, s:s, s:s}", "reason", "FieldValueInvalid", "message", b.s, "field", field));
	free(b.s);
}

/* Reads the level label of mode into lv; 1 when the label is there. */
static int read_level(json_t *labels, const char *mode, sk_psa_level on_error, sk_psa_lv *lv, json_t **causes, int *ok)
{
	cleanup_free char *key = xasprintf(SK_PSA_LABEL_PREFIX "%s", mode);
	json_t *v = json_object_get(labels, key);
	const char *s = json_string_value(v) ? json_string_value(v) : "";

	*ok = 0;
	if (!v)
		return 0;
	if (sk_psa_parse_level(s, &lv->level) < 0) {
		lv->level = on_error;
		label_error(causes, mode, s, "must be one of privileged, baseline, restricted");
		return 1;
	}
	*ok = 1;
	return 1;
}

static int read_version(json_t *labels, const char *mode, sk_psa_lv *lv, json_t **causes)
{
	cleanup_free char *key = xasprintf(SK_PSA_LABEL_PREFIX "%s-version", mode);
	cleanup_free char *label = xasprintf("%s-version", mode);
	json_t *v = json_object_get(labels, key);
	const char *s = json_string_value(v) ? json_string_value(v) : "";

	if (!v)
		return 0;
	if (sk_psa_parse_version(s, &lv->minor) < 0) {
		lv->minor = SK_PSA_LATEST;
		label_error(causes, label, s, "must be \"latest\" or \"v1.x\"");
	}
	return 1;
}

json_t *sk_psa_policy_from_labels(json_t *labels, const sk_psa_policy *defaults, sk_psa_policy *out)
{
	json_t *causes = NULL;
	int enforce_ok = 0, ok, has_warn, has_warn_version;

	*out = *defaults;
	if (!json_is_object(labels) || !json_object_size(labels))
		return NULL;
	read_level(labels, "enforce", SK_PSA_RESTRICTED, &out->enforce, &causes, &enforce_ok);
	read_version(labels, "enforce", &out->enforce, &causes);
	read_level(labels, "audit", SK_PSA_PRIVILEGED, &out->audit, &causes, &ok);
	read_version(labels, "audit", &out->audit, &causes);
	has_warn = read_level(labels, "warn", SK_PSA_PRIVILEGED, &out->warn, &causes, &ok);
	has_warn_version = read_version(labels, "warn", &out->warn, &causes);
	if (!has_warn && enforce_ok && sk_psa_compare_levels(out->enforce.level, out->warn.level) > 0) {
		out->warn.level = out->enforce.level;
		if (!has_warn_version)
			out->warn.minor = out->enforce.minor;
	}
	return causes;
}
