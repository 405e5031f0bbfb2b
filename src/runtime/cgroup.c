/* Cgroup layout detection, pod cgroup removal, OOM counters and usage. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <linux/magic.h>
#include <time.h>
#include <unistd.h>

#include "runtime/cgroup.h"
#include "runtime/runtime-int.h"
#include "util/util.h"

#define CG_ROOT "/sys/fs/cgroup"

static long fs_type(const char *path)
{
	struct statfs sfs;

	if (statfs(path, &sfs) < 0)
		return 0;
	return (long)sfs.f_type;
}

enum sk_cgroup_mode sk_cgroup_mode_detect(void)
{
	long t = fs_type(CG_ROOT);

	if (t == CGROUP2_SUPER_MAGIC)
		return SK_CGROUP_V2;
	if (t != TMPFS_MAGIC)
		return SK_CGROUP_NONE;
	if (fs_type(CG_ROOT "/unified") == CGROUP2_SUPER_MAGIC)
		return SK_CGROUP_HYBRID;
	return SK_CGROUP_V1;
}

const char *sk_cgroup_mode_name(enum sk_cgroup_mode mode)
{
	switch (mode) {
	case SK_CGROUP_V1:
		return "v1";
	case SK_CGROUP_HYBRID:
		return "hybrid";
	case SK_CGROUP_V2:
		return "v2";
	default:
		return "none";
	}
}

const char *sk_qos_name(enum sk_qos qos)
{
	switch (qos) {
	case SK_QOS_GUARANTEED:
		return "Guaranteed";
	case SK_QOS_BURSTABLE:
		return "Burstable";
	default:
		return "BestEffort";
	}
}

char *sk_cgroup_pod_path(enum sk_qos qos, const char *pod_uid)
{
	switch (qos) {
	case SK_QOS_GUARANTEED:
		return xasprintf("/kubepods/pod%s", pod_uid);
	case SK_QOS_BURSTABLE:
		return xasprintf("/kubepods/burstable/pod%s", pod_uid);
	default:
		return xasprintf("/kubepods/besteffort/pod%s", pod_uid);
	}
}

/* Calls fn(mountpoint) for every cgroup hierarchy; symlinked aliases
 * (cpu,cpuacct -> cpu) are skipped since they name the same hierarchy. */
static void each_hierarchy(void (*fn)(const char *mnt, void *arg), void *arg)
{
	DIR *d;
	struct dirent *de;

	if (fs_type(CG_ROOT) == CGROUP2_SUPER_MAGIC) {
		fn(CG_ROOT, arg);
		return;
	}
	d = opendir(CG_ROOT);
	if (!d)
		return;
	while ((de = readdir(d))) {
		cleanup_free char *mnt = NULL;
		struct stat st;
		long t;

		if (de->d_name[0] == '.')
			continue;
		mnt = xasprintf(CG_ROOT "/%s", de->d_name);
		if (lstat(mnt, &st) < 0 || !S_ISDIR(st.st_mode))
			continue;
		t = fs_type(mnt);
		if (t == CGROUP_SUPER_MAGIC || t == CGROUP2_SUPER_MAGIC)
			fn(mnt, arg);
	}
	closedir(d);
}

/* rmdir depth first; cgroup directories hold only control files otherwise. */
static int rmdir_tree(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int rc = 0;

	if (!d)
		return errno == ENOENT ? 0 : -1;
	while ((de = readdir(d))) {
		cleanup_free char *sub = NULL;

		if (de->d_type != DT_DIR || !strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		sub = xasprintf("%s/%s", dir, de->d_name);
		if (rmdir_tree(sub) < 0)
			rc = -1;
	}
	closedir(d);
	if (rmdir(dir) < 0 && errno != ENOENT)
		rc = -1;
	return rc;
}

struct remove_ctx {
	const char *path;
	char *failed;
};

static void remove_in(const char *mnt, void *arg)
{
	struct remove_ctx *ctx = arg;
	cleanup_free char *dir = xasprintf("%s%s", mnt, ctx->path);
	int tries;

	for (tries = 0; tries < 50; tries++) {
		struct timespec ts = {0, 20 * 1000000};

		if (rmdir_tree(dir) == 0)
			return;
		nanosleep(&ts, NULL);
	}
	if (!ctx->failed)
		ctx->failed = xstrdup(dir);
}

int sk_cgroup_remove(const char *path, sk_error_t *err)
{
	struct remove_ctx ctx = {path, NULL};

	if (!path || path[0] != '/' || strstr(path, ".."))
		return sk_error_set(err, SK_EINVALID, "cgroup \"%s\": not an absolute path", path ? path : "");
	each_hierarchy(remove_in, &ctx);
	if (ctx.failed) {
		sk_error_set(err, EBUSY, "cgroup \"%s\": cannot remove %s", path, ctx.failed);
		free(ctx.failed);
		return -1;
	}
	return 0;
}

struct exists_ctx {
	const char *path;
	bool found;
};

static void exists_in(const char *mnt, void *arg)
{
	struct exists_ctx *ctx = arg;
	cleanup_free char *dir = xasprintf("%s%s", mnt, ctx->path);

	if (sk__exists(dir))
		ctx->found = true;
}

bool sk_cgroup_exists(const char *path)
{
	struct exists_ctx ctx = {path, false};

	each_hierarchy(exists_in, &ctx);
	return ctx.found;
}

static long long read_key(const char *file, const char *key)
{
	cleanup_free char *s = sk_read_file(file, NULL);
	size_t klen = strlen(key);
	char *p;

	for (p = s; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		if (!strncmp(p, key, klen) && p[klen] == ' ')
			return strtoll(p + klen + 1, NULL, 10);
	}
	return -1;
}

bool sk_cgroup_oom_killed(const char *path)
{
	cleanup_free char *v1 = xasprintf(CG_ROOT "/memory%s/memory.oom_control", path);
	cleanup_free char *v2 = xasprintf(CG_ROOT "%s/memory.events", path);

	if (sk_cgroup_mode_detect() == SK_CGROUP_V2)
		return read_key(v2, "oom_kill") > 0;
	return read_key(v1, "oom_kill") > 0;
}

static int write_value(const char *dir, const char *file, const char *value, sk_error_t *err)
{
	cleanup_free char *path = xasprintf("%s/%s", dir, file);
	cleanup_close int fd = open(path, O_WRONLY | O_CLOEXEC);

	if (fd < 0 || write(fd, value, strlen(value)) < 0)
		return sk_error_errno(err, errno, "cgroup \"%s\": write %s", dir, file);
	return 0;
}

/* mkdir -p of root+path, enabling cpu and memory for children on v2. */
static int make_cgroup(const char *root, const char *path, bool v2, sk_error_t *err)
{
	cleanup_free char *dir = xasprintf("%s%s", root, path);
	char *p = dir + strlen(root);

	for (;;) {
		char *slash = strchr(p + 1, '/');
		if (slash)
			*slash = '\0';
		if (v2) {
			cleanup_free char *parent = xstrndup(dir, (size_t)(strrchr(dir, '/') - dir));
			sk_error_t ignore = {0};
			write_value(parent, "cgroup.subtree_control", "+cpu +memory", &ignore);
		}
		if (mkdir(dir, 0755) < 0 && errno != EEXIST)
			return sk_error_errno(err, errno, "cgroup \"%s\": mkdir", dir);
		if (!slash)
			return 0;
		*slash = '/';
		p = slash;
	}
}

static int set_v1(const char *path, const struct sk_cgroup_pod_resources *res, sk_error_t *err)
{
	cleanup_free char *cpu = xasprintf(CG_ROOT "/cpu%s", path);
	cleanup_free char *mem = xasprintf(CG_ROOT "/memory%s", path);
	char buf[32];

	if (make_cgroup(CG_ROOT "/cpu", path, false, err) < 0 || make_cgroup(CG_ROOT "/memory", path, false, err) < 0)
		return -1;
	if (res->cpu_shares) {
		snprintf(buf, sizeof(buf), "%llu", (unsigned long long)res->cpu_shares);
		if (write_value(cpu, "cpu.shares", buf, err) < 0)
			return -1;
	}
	if (res->cpu_quota > 0) {
		snprintf(buf, sizeof(buf), "%lld", (long long)res->cpu_quota);
		if (write_value(cpu, "cpu.cfs_period_us", "100000", err) < 0 ||
		    write_value(cpu, "cpu.cfs_quota_us", buf, err) < 0)
			return -1;
	}
	if (res->memory_limit > 0) {
		snprintf(buf, sizeof(buf), "%lld", (long long)res->memory_limit);
		if (write_value(mem, "memory.limit_in_bytes", buf, err) < 0)
			return -1;
	}
	return 0;
}

static int set_v2(const char *path, const struct sk_cgroup_pod_resources *res, sk_error_t *err)
{
	cleanup_free char *dir = xasprintf(CG_ROOT "%s", path);
	char buf[48];

	if (make_cgroup(CG_ROOT, path, true, err) < 0)
		return -1;
	if (res->cpu_shares) {
		/* runc's ConvertCPUSharesToCgroupV2Value */
		snprintf(buf, sizeof(buf), "%llu", 1 + ((unsigned long long)res->cpu_shares - 2) * 9999 / 262142);
		if (write_value(dir, "cpu.weight", buf, err) < 0)
			return -1;
	}
	if (res->cpu_quota > 0) {
		snprintf(buf, sizeof(buf), "%lld 100000", (long long)res->cpu_quota);
		if (write_value(dir, "cpu.max", buf, err) < 0)
			return -1;
	}
	if (res->memory_limit > 0) {
		snprintf(buf, sizeof(buf), "%lld", (long long)res->memory_limit);
		if (write_value(dir, "memory.max", buf, err) < 0)
			return -1;
	}
	return 0;
}

int sk_cgroup_pod_set_resources(const char *path, const struct sk_cgroup_pod_resources *res, sk_error_t *err)
{
	if (!path || path[0] != '/' || strstr(path, ".."))
		return sk_error_set(err, SK_EINVALID, "cgroup \"%s\": not an absolute path", path ? path : "");
	if (res->cpu_shares == 1)
		return sk_error_set(err, SK_EINVALID, "cgroup \"%s\": cpu shares must be >= 2", path);
	if (sk_cgroup_mode_detect() == SK_CGROUP_V2)
		return set_v2(path, res, err);
	return set_v1(path, res, err);
}

/* ---- usage --------------------------------------------------------------------- */

/* The value of "key N" in a flat-keyed control file's text. */
static bool stat_key(const char *text, const char *key, uint64_t *out)
{
	size_t klen = strlen(key);

	for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		char *end;
		unsigned long long v;

		if (strncmp(p, key, klen) || p[klen] != ' ')
			continue;
		errno = 0;
		v = strtoull(p + klen + 1, &end, 10);
		if (end == p + klen + 1 || errno)
			return false;
		*out = v;
		return true;
	}
	return false;
}

/* A file holding one unsigned number ("max" and garbage: false). */
static bool single_value(const char *text, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (!text || *text < '0' || *text > '9')
		return false;
	errno = 0;
	v = strtoull(text, &end, 10);
	if (errno || (*end && *end != '\n'))
		return false;
	*out = v;
	return true;
}

static void working_set(struct sk_cgroup_usage *u, uint64_t inactive_file)
{
	u->memory_working_set = u->memory_usage > inactive_file ? u->memory_usage - inactive_file : 0;
}

void sk_cgroup_parse_v1(const char *cpuacct_usage, const char *mem_usage, const char *mem_stat,
			struct sk_cgroup_usage *u)
{
	uint64_t v;

	if (single_value(cpuacct_usage, &u->cpu_usage_ns))
		u->has_cpu = true;
	if (single_value(mem_usage, &u->memory_usage)) {
		u->has_memory = true;
		v = 0;
		if (!stat_key(mem_stat, "total_inactive_file", &v))
			stat_key(mem_stat, "inactive_file", &v);
		working_set(u, v);
		if (!stat_key(mem_stat, "total_rss", &u->memory_rss))
			stat_key(mem_stat, "rss", &u->memory_rss);
		if (!stat_key(mem_stat, "total_pgfault", &u->memory_page_faults))
			stat_key(mem_stat, "pgfault", &u->memory_page_faults);
		if (!stat_key(mem_stat, "total_pgmajfault", &u->memory_major_page_faults))
			stat_key(mem_stat, "pgmajfault", &u->memory_major_page_faults);
	}
}

void sk_cgroup_parse_v2(const char *cpu_stat, const char *mem_current, const char *mem_stat, struct sk_cgroup_usage *u)
{
	uint64_t v;

	if (stat_key(cpu_stat, "usage_usec", &v) && v <= UINT64_MAX / 1000) {
		u->cpu_usage_ns = v * 1000;
		u->has_cpu = true;
	}
	if (single_value(mem_current, &u->memory_usage)) {
		u->has_memory = true;
		v = 0;
		stat_key(mem_stat, "inactive_file", &v);
		working_set(u, v);
		stat_key(mem_stat, "anon", &u->memory_rss);
		stat_key(mem_stat, "pgfault", &u->memory_page_faults);
		stat_key(mem_stat, "pgmajfault", &u->memory_major_page_faults);
	}
}

static char *read_ctl(const char *root, const char *path, const char *file)
{
	cleanup_free char *p = xasprintf("%s%s/%s", root, path, file);

	return sk_read_file(p, NULL);
}

int sk_cgroup_usage(const char *path, struct sk_cgroup_usage *u, sk_error_t *err)
{
	cleanup_free char *a = NULL, *b = NULL, *c = NULL;

	memset(u, 0, sizeof(*u));
	if (!path || path[0] != '/' || strstr(path, ".."))
		return sk_error_set(err, SK_EINVALID, "cgroup \"%s\": not an absolute path", path ? path : "");
	if (sk_cgroup_mode_detect() == SK_CGROUP_V2) {
		a = read_ctl(CG_ROOT, path, "cpu.stat");
		b = read_ctl(CG_ROOT, path, "memory.current");
		c = read_ctl(CG_ROOT, path, "memory.stat");
		sk_cgroup_parse_v2(a, b, c, u);
	} else {
		a = read_ctl(CG_ROOT "/cpuacct", path, "cpuacct.usage");
		b = read_ctl(CG_ROOT "/memory", path, "memory.usage_in_bytes");
		c = read_ctl(CG_ROOT "/memory", path, "memory.stat");
		sk_cgroup_parse_v1(a, b, c, u);
	}
	if (!u->has_cpu && !u->has_memory)
		return sk_error_set(err, SK_ENOTFOUND, "cgroup \"%s\": no cpu or memory accounting", path);
	return 0;
}

/* The value in kB of a /proc/meminfo line, in bytes. */
static bool meminfo_key(const char *text, const char *key, uint64_t *out)
{
	size_t klen = strlen(key);

	for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		unsigned long long v;
		char *end;

		if (strncmp(p, key, klen) || p[klen] != ':')
			continue;
		errno = 0;
		v = strtoull(p + klen + 1, &end, 10);
		if (errno || end == p + klen + 1 || v > UINT64_MAX / 1024)
			return false;
		*out = v * 1024;
		return true;
	}
	return false;
}

void sk_host_parse(const char *proc_stat, const char *meminfo, long ticks_per_s, struct sk_host_usage *h)
{
	uint64_t total = 0, free_b = 0, inactive = 0;

	memset(h, 0, sizeof(*h));
	/* "cpu  user nice system idle iowait irq softirq steal guest guest_nice";
	 * guest time is already in user */
	if (proc_stat && !strncmp(proc_stat, "cpu ", 4) && ticks_per_s > 0) {
		unsigned long long f[8] = {0};
		int n = sscanf(proc_stat + 4, "%llu %llu %llu %llu %llu %llu %llu %llu", &f[0], &f[1], &f[2], &f[3],
			       &f[4], &f[5], &f[6], &f[7]);

		if (n >= 4) {
			unsigned long long busy = f[0] + f[1] + f[2] + f[5] + f[6] + f[7];

			h->u.cpu_usage_ns = (uint64_t)busy * (1000000000ull / (uint64_t)ticks_per_s);
			h->u.has_cpu = true;
		}
	}
	for (const char *p = proc_stat; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (!strncmp(p, "btime ", 6))
			h->boot_time = strtoll(p + 6, NULL, 10);
	if (meminfo_key(meminfo, "MemTotal", &total) && meminfo_key(meminfo, "MemFree", &free_b)) {
		h->memory_total = total;
		h->u.memory_usage = total > free_b ? total - free_b : 0;
		meminfo_key(meminfo, "Inactive(file)", &inactive);
		working_set(&h->u, inactive);
		meminfo_key(meminfo, "AnonPages", &h->u.memory_rss);
		if (!meminfo_key(meminfo, "MemAvailable", &h->memory_available))
			h->memory_available = free_b;
		h->u.has_memory = true;
	}
}

int sk_host_usage(struct sk_host_usage *h, sk_error_t *err)
{
	cleanup_free char *st = sk_read_file("/proc/stat", NULL);
	cleanup_free char *mi = sk_read_file("/proc/meminfo", NULL);

	sk_host_parse(st, mi, sysconf(_SC_CLK_TCK), h);
	if (!h->u.has_cpu || !h->u.has_memory)
		return sk_error_set(err, SK_EINTERNAL, "reading /proc/stat and /proc/meminfo failed");
	return 0;
}
