/* Node runtime context: directories, cgroup mode, OCI runtime handlers. */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "runtime/runtime-int.h"
#include "runtime/runtime.h"
#include "util/util.h"

static const char *find_binary(const char *name)
{
	static const char *const dirs[] = {"/usr/local/bin", "/usr/bin", "/usr/sbin", "/bin", "/sbin"};
	static char buf[256];
	size_t i;

	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(buf, sizeof(buf), "%s/%s", dirs[i], name);
		if (access(buf, X_OK) == 0)
			return buf;
	}
	return NULL;
}

/* The wrapper runs crun in a private mount namespace without the v2 tree. */
static char *write_crun_wrapper(const struct sk_runtime *rt, const char *crun, sk_error_t *err)
{
	cleanup_free char *dir = xasprintf("%s/bin", rt->run_dir);
	char *path = xasprintf("%s/crun-hybrid", dir);
	cleanup_free char *script = xasprintf(
		"#!/bin/sh\n"
		"# crun refuses hybrid cgroup hosts: hide the v2 tree in a private mount namespace.\n"
		"exec /usr/bin/unshare --mount --propagation private /bin/sh -c "
		"'umount -l /sys/fs/cgroup/unified 2>/dev/null; exec \"$0\" \"$@\"' %s \"$@\"\n",
		crun);

	if (sk_mkdir_p(dir, 0755) < 0 || sk_write_file(path, script, strlen(script), 0755) < 0) {
		sk_error_errno(err, errno, "crun wrapper \"%s\"", path);
		free(path);
		return NULL;
	}
	return path;
}

static int add_handler(struct sk_runtime *rt, const char *name, sk_error_t *err)
{
	const char *bin = find_binary(name);
	struct sk_runtime_handler *h;

	if (!bin)
		return 0;
	h = &rt->handlers[rt->n_handlers];
	h->name = xstrdup(name);
	h->binary = xstrdup(bin);
	h->root = xasprintf("%s/oci/%s", rt->run_dir, name);
	if (!strcmp(name, "crun") && rt->cgroup_mode == SK_CGROUP_HYBRID) {
		h->exec = write_crun_wrapper(rt, h->binary, err);
		if (!h->exec)
			return -1;
	} else {
		h->exec = xstrdup(h->binary);
	}
	rt->n_handlers++;
	if (sk_mkdir_p(h->root, 0700) < 0)
		return sk_error_errno(err, errno, "runtime root \"%s\"", h->root);
	return 0;
}

static int make_dirs(const struct sk_runtime *rt, sk_error_t *err)
{
	static const char *const sub[] = {"netns", "ipc", "uts", "sandboxes", "containers", "exits", "sock"};
	size_t i;

	for (i = 0; i < sizeof(sub) / sizeof(sub[0]); i++) {
		cleanup_free char *d = xasprintf("%s/%s", rt->run_dir, sub[i]);
		if (sk_mkdir_p(d, 0711) < 0)
			return sk_error_errno(err, errno, "runtime dir \"%s\"", d);
	}
	return 0;
}

int sk_runtime_init(struct sk_runtime *rt, const struct sk_runtime_opts *opts, sk_error_t *err)
{
	const char *conmon = opts->conmon ? opts->conmon : find_binary("conmon");
	const char *want;
	int i;

	memset(rt, 0, sizeof(*rt));
	if (!opts->run_dir || !opts->data_dir)
		return sk_error_set(err, SK_EINVALID, "runtime: run_dir and data_dir are required");
	if (!conmon)
		return sk_error_set(err, SK_ENOTFOUND, "runtime: conmon not found");
	rt->run_dir = xstrdup(opts->run_dir);
	rt->data_dir = xstrdup(opts->data_dir);
	rt->pod_cidr = opts->pod_cidr ? xstrdup(opts->pod_cidr) : NULL;
	rt->bridge = xstrdup(opts->bridge ? opts->bridge : "skiff0");
	rt->cni_bin_dir = xstrdup(opts->cni_bin_dir ? opts->cni_bin_dir : "/usr/lib/cni");
	rt->conmon = xstrdup(conmon);
	rt->cgroup_mode = sk_cgroup_mode_detect();
	if (make_dirs(rt, err) < 0 || add_handler(rt, "crun", err) < 0 || add_handler(rt, "runc", err) < 0) {
		sk_runtime_release(rt);
		return -1;
	}
	if (rt->n_handlers == 0) {
		sk_runtime_release(rt);
		return sk_error_set(err, SK_ENOTFOUND, "runtime: neither crun nor runc is installed");
	}
	want = opts->default_handler ? opts->default_handler : rt->handlers[0].name;
	for (i = 0; i < rt->n_handlers; i++)
		if (!strcmp(rt->handlers[i].name, want))
			rt->default_handler = rt->handlers[i].name;
	if (!rt->default_handler) {
		sk_runtime_release(rt);
		return sk_error_set(err, SK_ENOTFOUND, "runtime handler \"%s\": not installed", want);
	}
	sk_info("runtime", "cgroups %s, default runtime handler \"%s\"%s", sk_cgroup_mode_name(rt->cgroup_mode),
		rt->default_handler,
		rt->cgroup_mode == SK_CGROUP_HYBRID && !strcmp(rt->default_handler, "crun")
			? " (through the hybrid-cgroup wrapper)"
			: "");
	return 0;
}

void sk_runtime_set_pod_cidr(struct sk_runtime *rt, const char *cidr)
{
	free(rt->pod_cidr);
	rt->pod_cidr = cidr ? xstrdup(cidr) : NULL;
}

void sk_runtime_release(struct sk_runtime *rt)
{
	int i;

	for (i = 0; i < rt->n_handlers; i++) {
		free(rt->handlers[i].name);
		free(rt->handlers[i].binary);
		free(rt->handlers[i].exec);
		free(rt->handlers[i].root);
	}
	free(rt->run_dir);
	free(rt->data_dir);
	free(rt->pod_cidr);
	free(rt->bridge);
	free(rt->cni_bin_dir);
	free(rt->conmon);
	memset(rt, 0, sizeof(*rt));
}

const struct sk_runtime_handler *sk_runtime_handler(const struct sk_runtime *rt, const char *name, sk_error_t *err)
{
	int i;

	if (!name || !*name)
		name = rt->default_handler;
	for (i = 0; i < rt->n_handlers; i++)
		if (!strcmp(rt->handlers[i].name, name))
			return &rt->handlers[i];
	sk_error_set(err, SK_ENOTFOUND, "runtime handler \"%s\": not installed", name);
	return NULL;
}
