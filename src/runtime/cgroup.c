/* Cgroup layout detection, pod cgroup removal and OOM counters. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <linux/magic.h>
#include <time.h>

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
