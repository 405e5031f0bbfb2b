/* Cgroup layout detection, pod cgroup removal and OOM counters. */
#include <dirent.h>
#include <errno.h>
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
	case SK_CGROUP_V1: return "v1";
	case SK_CGROUP_HYBRID: return "hybrid";
	case SK_CGROUP_V2: return "v2";
	default: return "none";
	}
}

const char *sk_qos_name(enum sk_qos qos)
{
	switch (qos) {
	case SK_QOS_GUARANTEED: return "Guaranteed";
	case SK_QOS_BURSTABLE: return "Burstable";
	default: return "BestEffort";
	}
}

char *sk_cgroup_pod_path(enum sk_qos qos, const char *pod_uid)
{
	switch (qos) {
	case SK_QOS_GUARANTEED: return xasprintf("/kubepods/pod%s", pod_uid);
	case SK_QOS_BURSTABLE: return xasprintf("/kubepods/burstable/pod%s", pod_uid);
	default: return xasprintf("/kubepods/besteffort/pod%s", pod_uid);
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
