/* OCI config.json generation for pod containers (containerd CRI defaults). */
#include <errno.h>
#include <string.h>
#include <strings.h>

#include "runtime/oci.h"
#include "runtime/runtime-int.h"
#include "util/util.h"

#define CPU_PERIOD 100000
#define MIN_QUOTA 1000

static const char *const default_caps[] = {
	"CAP_CHOWN",
	"CAP_DAC_OVERRIDE",
	"CAP_FSETID",
	"CAP_FOWNER",
	"CAP_MKNOD",
	"CAP_NET_RAW",
	"CAP_SETGID",
	"CAP_SETUID",
	"CAP_SETFCAP",
	"CAP_SETPCAP",
	"CAP_NET_BIND_SERVICE",
	"CAP_SYS_CHROOT",
	"CAP_KILL",
	"CAP_AUDIT_WRITE",
	NULL,
};

static const char *const all_caps[] = {
	"CAP_CHOWN",
	"CAP_DAC_OVERRIDE",
	"CAP_DAC_READ_SEARCH",
	"CAP_FOWNER",
	"CAP_FSETID",
	"CAP_KILL",
	"CAP_SETGID",
	"CAP_SETUID",
	"CAP_SETPCAP",
	"CAP_LINUX_IMMUTABLE",
	"CAP_NET_BIND_SERVICE",
	"CAP_NET_BROADCAST",
	"CAP_NET_ADMIN",
	"CAP_NET_RAW",
	"CAP_IPC_LOCK",
	"CAP_IPC_OWNER",
	"CAP_SYS_MODULE",
	"CAP_SYS_RAWIO",
	"CAP_SYS_CHROOT",
	"CAP_SYS_PTRACE",
	"CAP_SYS_PACCT",
	"CAP_SYS_ADMIN",
	"CAP_SYS_BOOT",
	"CAP_SYS_NICE",
	"CAP_SYS_RESOURCE",
	"CAP_SYS_TIME",
	"CAP_SYS_TTY_CONFIG",
	"CAP_MKNOD",
	"CAP_LEASE",
	"CAP_AUDIT_WRITE",
	"CAP_AUDIT_CONTROL",
	"CAP_SETFCAP",
	"CAP_MAC_OVERRIDE",
	"CAP_MAC_ADMIN",
	"CAP_SYSLOG",
	"CAP_WAKE_ALARM",
	"CAP_BLOCK_SUSPEND",
	"CAP_AUDIT_READ",
	"CAP_PERFMON",
	"CAP_BPF",
	"CAP_CHECKPOINT_RESTORE",
	NULL,
};

static const char *const masked_paths[] = {
	"/proc/acpi",          "/proc/asound",
	"/proc/kcore",         "/proc/keys",
	"/proc/latency_stats", "/proc/timer_list",
	"/proc/timer_stats",   "/proc/sched_debug",
	"/sys/firmware",       "/sys/devices/virtual/powercap",
	"/proc/scsi",          NULL,
};

static const char *const readonly_paths[] = {
	"/proc/bus", "/proc/fs", "/proc/irq", "/proc/sys", "/proc/sysrq-trigger", NULL,
};

/* runc's AllowedDevices: c/b mknod, null, zero, full, random, urandom, tty, console, ptmx, pts. */
static const struct {
	char type;
	int64_t major, minor; /* -1: wildcard */
	const char *access;
} default_devices[] = {
	{'c', -1, -1, "m"}, {'b', -1, -1, "m"}, {'c', 1, 3, "rwm"},    {'c', 1, 5, "rwm"},
	{'c', 1, 7, "rwm"}, {'c', 1, 8, "rwm"}, {'c', 1, 9, "rwm"},    {'c', 5, 0, "rwm"},
	{'c', 5, 1, "rwm"}, {'c', 5, 2, "rwm"}, {'c', 136, -1, "rwm"},
};

uint64_t sk_oci_cpu_shares(int64_t milli)
{
	int64_t shares;

	if (milli <= 0)
		return 2;
	shares = milli * 1024 / 1000;
	return shares < 2 ? 2 : (uint64_t)shares;
}

int64_t sk_oci_cpu_quota(int64_t milli)
{
	int64_t quota;

	if (milli <= 0)
		return 0;
	quota = milli * CPU_PERIOD / 1000;
	return quota < MIN_QUOTA ? MIN_QUOTA : quota;
}

static json_t *strv(const char *const *v)
{
	json_t *a = json_array();

	for (; v && *v; v++)
		json_array_append_new(a, json_string(*v));
	return a;
}

static char *cap_name(const char *c)
{
	cleanup_free char *up = xstrdup(c);
	char *p;

	for (p = up; *p; p++)
		*p = (char)(*p >= 'a' && *p <= 'z' ? *p - 32 : *p);
	return strncmp(up, "CAP_", 4) ? xasprintf("CAP_%s", up) : xstrdup(up);
}

static bool list_has(const char *const *v, const char *s)
{
	for (; v && *v; v++)
		if (!strcasecmp(*v, s))
			return true;
	return false;
}

static void cap_remove(json_t *caps, const char *name)
{
	size_t i;

	for (i = 0; i < json_array_size(caps); i++)
		if (!strcmp(json_string_value(json_array_get(caps, i)), name))
			json_array_remove(caps, i--);
}

static void cap_add(json_t *caps, const char *name)
{
	cap_remove(caps, name);
	json_array_append_new(caps, json_string(name));
}

/* containerd's order: start from defaults, drop (ALL empties), then add (ALL fills). */
static json_t *capabilities(const struct sk_container_config *c)
{
	json_t *caps;
	const char *const *p;

	if (c->privileged)
		return strv(all_caps);
	caps = list_has(c->cap_drop, "ALL") ? json_array() : strv(default_caps);
	for (p = c->cap_drop; p && *p; p++) {
		cleanup_free char *n = cap_name(*p);
		cap_remove(caps, n);
	}
	if (list_has(c->cap_add, "ALL")) {
		json_decref(caps);
		return strv(all_caps);
	}
	for (p = c->cap_add; p && *p; p++) {
		cleanup_free char *n = cap_name(*p);
		if (list_has(all_caps, n))
			cap_add(caps, n);
	}
	return caps;
}

static bool env_has(json_t *env, const char *key)
{
	size_t klen = strlen(key), i;
	json_t *v;

	json_array_foreach(env, i, v) {
		const char *s = json_string_value(v);
		if (!strncmp(s, key, klen) && s[klen] == '=')
			return true;
	}
	return false;
}

/* Removes KEY=… entries from env (extra_env overrides the image's value). */
static void env_unset(json_t *env, const char *entry)
{
	size_t klen = strcspn(entry, "=");

	for (size_t i = json_array_size(env); i-- > 0;) {
		const char *s = json_string_value(json_array_get(env, i));

		if (s && !strncmp(s, entry, klen) && s[klen] == '=')
			json_array_remove(env, i);
	}
}

static json_t *environment(const struct sk_container_config *c)
{
	json_t *env = strv(c->env);
	const char *const *p;

	for (p = c->extra_env; p && *p; p++) {
		env_unset(env, *p);
		json_array_append_new(env, json_string(*p));
	}
	if (!env_has(env, "PATH"))
		json_array_append_new(env,
				      json_string("PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"));
	if (!env_has(env, "HOSTNAME")) {
		cleanup_free char *h = xasprintf("HOSTNAME=%s", c->sandbox->hostname);
		json_array_append_new(env, json_string(h));
	}
	return env;
}

static json_t *process(const struct sk_container_config *c)
{
	json_t *caps = capabilities(c);
	json_t *gids = json_array();
	json_t *proc;
	size_t i;

	for (i = 0; i < c->n_additional_gids; i++)
		json_array_append_new(gids, json_integer(c->additional_gids[i]));
	proc = json_pack("{s:b, s:{s:I, s:I, s:o}, s:o, s:o, s:s, s:{s:O, s:O, s:o}, s:b, s:i}", "terminal", c->tty,
			 "user", "uid", (json_int_t)c->uid, "gid", (json_int_t)c->gid, "additionalGids", gids, "args",
			 strv(c->args), "env", environment(c), "cwd", c->cwd && *c->cwd ? c->cwd : "/", "capabilities",
			 "bounding", caps, "effective", caps, "permitted", caps, "noNewPrivileges",
			 c->no_new_privileges && !c->privileged, "oomScoreAdj", c->oom_score_adj);
	return proc;
}

static json_t *mount_entry(const char *dst, const char *type, const char *src, json_t *options)
{
	return json_pack("{s:s, s:s, s:s, s:o}", "destination", dst, "type", type, "source", src, "options", options);
}

static json_t *bind_entry(const char *dst, const char *src, bool ro, const char *propagation)
{
	return mount_entry(dst, "bind", src, json_pack("[s, s, s]", "rbind", propagation, ro ? "ro" : "rw"));
}

static const char *propagation_opt(enum sk_propagation p)
{
	switch (p) {
	case SK_PROPAGATION_HOST_TO_CONTAINER:
		return "rslave";
	case SK_PROPAGATION_BIDIRECTIONAL:
		return "rshared";
	default:
		return "rprivate";
	}
}

static json_t *volume_entry(const struct sk_mount *m)
{
	json_t *opts;

	if (!m->tmpfs)
		return bind_entry(m->container_path, m->host_path, m->readonly, propagation_opt(m->propagation));
	opts = json_pack("[s, s, s]", "nosuid", "nodev", m->readonly ? "ro" : "rw");
	if (m->tmpfs_size > 0) {
		cleanup_free char *size = xasprintf("size=%lld", (long long)m->tmpfs_size);
		json_array_append_new(opts, json_string(size));
	}
	return mount_entry(m->container_path, "tmpfs", "tmpfs", opts);
}

static json_t *mounts(const struct sk_container_config *c)
{
	const struct sk_sandbox *sb = c->sandbox;
	const char *sys_ro = c->privileged ? "rw" : "ro";
	json_t *m = json_array();
	size_t i;

	json_array_append_new(m, mount_entry("/proc", "proc", "proc", json_pack("[sss]", "nosuid", "noexec", "nodev")));
	json_array_append_new(m, mount_entry("/dev", "tmpfs", "tmpfs",
					     json_pack("[ssss]", "nosuid", "strictatime", "mode=755", "size=65536k")));
	json_array_append_new(m, mount_entry("/dev/pts", "devpts", "devpts",
					     json_pack("[ssssss]", "nosuid", "noexec", "newinstance", "ptmxmode=0666",
						       "mode=0620", "gid=5")));
	json_array_append_new(
		m, mount_entry("/dev/mqueue", "mqueue", "mqueue", json_pack("[sss]", "nosuid", "noexec", "nodev")));
	json_array_append_new(
		m, mount_entry("/sys", "sysfs", "sysfs", json_pack("[ssss]", "nosuid", "noexec", "nodev", sys_ro)));
	json_array_append_new(m, mount_entry("/sys/fs/cgroup", "cgroup", "cgroup",
					     json_pack("[sssss]", "nosuid", "noexec", "nodev", "relatime", sys_ro)));
	json_array_append_new(m, bind_entry("/dev/shm", c->host_ipc ? "/dev/shm" : sb->shm_path, false, "rprivate"));
	json_array_append_new(m, bind_entry("/etc/hosts", sb->hosts_path, c->readonly_rootfs, "rprivate"));
	json_array_append_new(m, bind_entry("/etc/resolv.conf", sb->resolv_path, c->readonly_rootfs, "rprivate"));
	json_array_append_new(m, bind_entry("/etc/hostname", sb->hostname_path, c->readonly_rootfs, "rprivate"));
	if (c->termination_log_path)
		json_array_append_new(m, bind_entry(c->termination_message_path ? c->termination_message_path
										: "/dev/termination-log",
						    c->termination_log_path, false, "rprivate"));
	for (i = 0; i < c->n_mounts; i++)
		json_array_append_new(m, volume_entry(&c->mounts[i]));
	return m;
}

static json_t *namespaces(const struct sk_container_config *c)
{
	const struct sk_sandbox *sb = c->sandbox;
	json_t *ns = json_pack("[{s:s}]", "type", "mount");

	/* hostIPC: no IPC namespace entry, the runtime's own (the host's) stays */
	if (!c->host_ipc)
		json_array_append_new(ns, json_pack("{s:s, s:s}", "type", "ipc", "path", sb->ipc_path));

	if (c->pid_ns)
		json_array_insert_new(ns, 0, json_pack("{s:s, s:s}", "type", "pid", "path", c->pid_ns));
	else if (!c->host_pid)
		json_array_insert_new(ns, 0, json_pack("{s:s}", "type", "pid"));

	if (sb->netns_path)
		json_array_append_new(ns, json_pack("{s:s, s:s}", "type", "network", "path", sb->netns_path));
	if (sb->uts_path)
		json_array_append_new(ns, json_pack("{s:s, s:s}", "type", "uts", "path", sb->uts_path));
	if (sk_cgroup_mode_detect() == SK_CGROUP_V2)
		json_array_append_new(ns, json_pack("{s:s}", "type", "cgroup"));
	return ns;
}

static json_t *device_rule(bool allow, char type, int64_t major, int64_t minor, const char *access)
{
	json_t *r = json_pack("{s:b, s:s}", "allow", allow, "access", access);
	char t[2] = {type, 0};

	if (type != 'a')
		json_object_set_new(r, "type", json_string(t));
	if (major >= 0)
		json_object_set_new(r, "major", json_integer(major));
	if (minor >= 0)
		json_object_set_new(r, "minor", json_integer(minor));
	return r;
}

static json_t *device_rules(const struct sk_container_config *c)
{
	json_t *rules = json_array();
	size_t i;

	if (c->privileged) {
		json_array_append_new(rules, device_rule(true, 'a', -1, -1, "rwm"));
		return rules;
	}
	json_array_append_new(rules, device_rule(false, 'a', -1, -1, "rwm"));
	for (i = 0; i < sizeof(default_devices) / sizeof(default_devices[0]); i++)
		json_array_append_new(rules, device_rule(true, default_devices[i].type, default_devices[i].major,
							 default_devices[i].minor, default_devices[i].access));
	for (i = 0; i < c->n_devices; i++) {
		const struct sk_device *d = &c->devices[i];
		json_array_append_new(
			rules, device_rule(true, d->type, d->major, d->minor, d->permissions ? d->permissions : "rwm"));
	}
	return rules;
}

static json_t *device_nodes(const struct sk_container_config *c)
{
	json_t *nodes = json_array();
	size_t i;

	for (i = 0; i < c->n_devices; i++) {
		const struct sk_device *d = &c->devices[i];
		char t[2] = {d->type, 0};
		json_array_append_new(nodes, json_pack("{s:s, s:s, s:I, s:I, s:i, s:i, s:i}", "path", d->path, "type",
						       t, "major", (json_int_t)d->major, "minor", (json_int_t)d->minor,
						       "fileMode", d->file_mode ? (int)d->file_mode : 0666, "uid", 0,
						       "gid", 0));
	}
	return nodes;
}

/* memsw accounting (v1) lets us forbid swap so a memory limit means OOM, not swapping. */
static bool swap_limit_supported(void)
{
	enum sk_cgroup_mode mode = sk_cgroup_mode_detect();

	if (mode == SK_CGROUP_V1 || mode == SK_CGROUP_HYBRID)
		return sk__exists("/sys/fs/cgroup/memory/memory.memsw.limit_in_bytes");
	if (mode == SK_CGROUP_V2) {
		/* memory.swap.max exists only below the root, and only with swap accounting */
		cleanup_free char *self = sk_read_file("/proc/self/cgroup", NULL);
		const char *p = self ? strstr(self, "0::") : NULL;
		cleanup_free char *own = NULL;

		if (sk__exists("/sys/fs/cgroup/kubepods/memory.swap.max"))
			return true;
		if (!p)
			return false;
		own = xasprintf("/sys/fs/cgroup%.*s/memory.swap.max", (int)strcspn(p + 3, "\n"), p + 3);
		return sk__exists(own);
	}
	return false;
}

static json_t *resources(const struct sk_container_config *c)
{
	json_t *r = json_pack("{s:o, s:{s:I}}", "devices", device_rules(c), "cpu", "shares",
			      (json_int_t)sk_oci_cpu_shares(c->cpu_request_milli));

	if (c->cpu_limit_milli > 0) {
		json_t *cpu = json_object_get(r, "cpu");
		json_object_set_new(cpu, "quota", json_integer(sk_oci_cpu_quota(c->cpu_limit_milli)));
		json_object_set_new(cpu, "period", json_integer(CPU_PERIOD));
	}
	if (c->memory_limit > 0) {
		json_t *mem = json_pack("{s:I}", "limit", (json_int_t)c->memory_limit);
		if (swap_limit_supported())
			json_object_set_new(mem, "swap", json_integer(c->memory_limit));
		json_object_set_new(r, "memory", mem);
	}
	if (c->pids_limit > 0)
		json_object_set_new(r, "pids", json_pack("{s:I}", "limit", (json_int_t)c->pids_limit));
	return r;
}

static json_t *annotations(const struct sk_container_config *c)
{
	const struct sk_sandbox *sb = c->sandbox;
	json_t *a = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s}", "io.kubernetes.pod.name", sb->pod_name,
			      "io.kubernetes.pod.namespace", sb->pod_namespace, "io.kubernetes.pod.uid", sb->pod_uid,
			      "io.kubernetes.container.name", c->name, "io.kubernetes.cri.container-type", "container",
			      "io.kubernetes.cri.sandbox-id", sb->id, "io.kubernetes.cri.sandbox-name", sb->pod_name);
	cleanup_free char *attempt = xasprintf("%u", c->attempt);
	size_t i;

	json_object_set_new(a, "io.kubernetes.container.restartCount", json_string(attempt));
	if (c->image_ref)
		json_object_set_new(a, "io.kubernetes.cri.image-name", json_string(c->image_ref));
	for (i = 0; i < c->n_annotations; i++)
		json_object_set_new(a, c->annotations[i].key, json_string(c->annotations[i].value));
	return a;
}

static const char *rootfs_propagation(const struct sk_container_config *c)
{
	const char *p = "rprivate";
	size_t i;

	for (i = 0; i < c->n_mounts; i++) {
		if (c->mounts[i].propagation == SK_PROPAGATION_BIDIRECTIONAL)
			return "rshared";
		if (c->mounts[i].propagation == SK_PROPAGATION_HOST_TO_CONTAINER)
			p = "rslave";
	}
	return p;
}

static json_t *linux_section(const struct sk_container_config *c, json_t *proc)
{
	cleanup_free char *pod_cg = sk_cgroup_pod_path(c->sandbox->qos, c->sandbox->pod_uid);
	cleanup_free char *cg = xasprintf("%s/%s", pod_cg, c->id);
	json_t *sysctl = json_object();
	json_t *lx;
	size_t i;

	for (i = 0; i < c->n_sysctls; i++)
		json_object_set_new(sysctl, c->sysctls[i].key, json_string(c->sysctls[i].value));
	lx = json_pack("{s:s, s:o, s:o, s:o, s:o, s:s}", "cgroupsPath", cg, "namespaces", namespaces(c), "resources",
		       resources(c), "devices", device_nodes(c), "sysctl", sysctl, "rootfsPropagation",
		       rootfs_propagation(c));
	if (!c->privileged) {
		json_object_set_new(lx, "maskedPaths", strv(masked_paths));
		json_object_set_new(lx, "readonlyPaths", strv(readonly_paths));
		if (c->seccomp == SK_SECCOMP_RUNTIME_DEFAULT)
			json_object_set_new(lx, "seccomp",
					    sk_oci_seccomp_default(json_object_get(
						    json_object_get(proc, "capabilities"), "effective")));
	}
	return lx;
}

static int validate(const struct sk_container_config *c, sk_error_t *err)
{
	size_t i;

	if (!sk__valid_id(c->id) || !c->name || !c->sandbox || !c->rootfs || !c->args || !c->args[0])
		return sk_error_set(err, SK_EINVALID,
				    "container \"%s\": id, name, sandbox, rootfs and args are required",
				    c->id ? c->id : "");
	for (i = 0; i < c->n_mounts; i++)
		if (!c->mounts[i].container_path || c->mounts[i].container_path[0] != '/' ||
		    (!c->mounts[i].tmpfs && !c->mounts[i].host_path))
			return sk_error_set(err, SK_EINVALID, "container \"%s\": mount %zu: bad paths", c->id, i);
	for (i = 0; i < c->n_devices; i++)
		if (!c->devices[i].path || (c->devices[i].type != 'c' && c->devices[i].type != 'b'))
			return sk_error_set(err, SK_EINVALID, "container \"%s\": device %zu: bad path or type", c->id,
					    i);
	return 0;
}

json_t *sk_oci_spec(const struct sk_container_config *c, sk_error_t *err)
{
	json_t *proc;

	if (validate(c, err) < 0)
		return NULL;
	proc = process(c);
	return json_pack("{s:s, s:o, s:{s:s, s:b}, s:o, s:o, s:o}", "ociVersion", "1.0.2", "process", proc, "root",
			 "path", c->rootfs, "readonly", c->readonly_rootfs, "mounts", mounts(c), "annotations",
			 annotations(c), "linux", linux_section(c, proc));
}

json_t *sk_oci_exec_process(json_t *spec, const char *const *args)
{
	json_t *proc = json_deep_copy(json_object_get(spec, "process"));

	json_object_set_new(proc, "args", strv(args));
	json_object_set_new(proc, "terminal", json_false());
	json_object_del(proc, "oomScoreAdj");
	return proc;
}
