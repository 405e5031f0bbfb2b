/* What a GPU container gets, in the spirit of nvidia-container-toolkit's
 * "compute,utility" capabilities without a runtime hook: the control device
 * nodes and /dev/nvidiaN of its devices only (with cgroup rules), the
 * driver's user-space libraries and tools bind-mounted read-only at their
 * host paths, an ld.so.conf.d entry naming the library directories, and the
 * NVIDIA_VISIBLE_DEVICES / CUDA_VISIBLE_DEVICES variables. Simulated
 * devices get the variables only. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "gpu/gpu-int.h"
#include "util/util.h"

/* Control nodes every GPU container needs; only nvidiactl is required (the
 * others appear when their kernel modules are loaded). */
static const struct {
	const char *name;
	bool required;
} control_nodes[] = {
	{"nvidiactl", true},
	{"nvidia-uvm", false},
	{"nvidia-uvm-tools", false},
	{"nvidia-modeset", false},
};

/* Library name prefixes (matched as "<prefix>.so*"): compute and utility. */
static const char *const driver_libs[] = {
	"libcuda",           "libcudadebugger",  "libnvidia-ml",  "libnvidia-ptxjitcompiler", "libnvidia-nvvm",
	"libnvidia-gpucomp", "libnvidia-opencl", "libnvidia-cfg", "libnvidia-allocator",
};
static const char *const driver_bins[] = {
	"nvidia-smi", "nvidia-debugdump", "nvidia-persistenced", "nvidia-cuda-mps-control", "nvidia-cuda-mps-server",
};
static const char *const default_lib_dirs[] = {
	"/usr/lib/x86_64-linux-gnu",
	"/usr/lib/aarch64-linux-gnu",
	"/usr/lib64",
	"/lib64",
	"/usr/lib",
	"/usr/local/nvidia/lib64",
	NULL,
};
static const char *const default_bin_dirs[] = {"/usr/bin", "/usr/local/bin", "/bin", "/usr/sbin", NULL};

#define LDCONF_PATH "/etc/ld.so.conf.d/000-skiff-nvidia.conf"

struct builder {
	struct sk_gpu_injection *inj;
	size_t cap_mounts;
	char **dirs; /* library dirs that held something, NULL-terminated */
	size_t n_dirs;
	char **seen; /* real paths of those dirs, to skip aliases (/lib → /usr/lib) */
};

static void add_env(struct sk_gpu_injection *inj, size_t *n, char *kv)
{
	inj->env = xrealloc(inj->env, (*n + 2) * sizeof(*inj->env));
	inj->env[(*n)++] = kv;
	inj->env[*n] = NULL;
}

static int add_device(struct sk_gpu *g, struct sk_gpu_injection *inj, const char *name, bool required, sk_error_t *err)
{
	cleanup_free char *host = xasprintf("%s/%s", g->dev_dir, name);
	struct stat st;
	struct sk_device *d;

	if (stat(host, &st) < 0 || !S_ISCHR(st.st_mode)) {
		if (!required)
			return 0;
		return sk_error_set(err, SK_EUNAVAILABLE, "gpu: device node \"%s\" missing", host);
	}
	inj->devices = xrealloc(inj->devices, (inj->n_devices + 1) * sizeof(*inj->devices));
	d = &inj->devices[inj->n_devices++];
	memset(d, 0, sizeof(*d));
	d->path = xasprintf("/dev/%s", name);
	d->type = 'c';
	d->major = major(st.st_rdev);
	d->minor = minor(st.st_rdev);
	d->permissions = xstrdup("rwm");
	d->file_mode = st.st_mode & 07777;
	return 0;
}

static void add_mount(struct builder *b, const char *host, const char *container)
{
	struct sk_gpu_injection *inj = b->inj;
	struct sk_mount *m;

	if (inj->n_mounts == b->cap_mounts) {
		b->cap_mounts = b->cap_mounts ? b->cap_mounts * 2 : 16;
		inj->mounts = xrealloc(inj->mounts, b->cap_mounts * sizeof(*inj->mounts));
	}
	m = &inj->mounts[inj->n_mounts++];
	memset(m, 0, sizeof(*m));
	m->host_path = xstrdup(host);
	m->container_path = xstrdup(container);
	m->readonly = true;
}

static bool lib_matches(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(driver_libs) / sizeof(driver_libs[0]); i++) {
		size_t l = strlen(driver_libs[i]);

		if (!strncmp(name, driver_libs[i], l) && !strncmp(name + l, ".so", 3) &&
		    (name[l + 3] == 0 || name[l + 3] == '.'))
			return true;
	}
	return false;
}

static int name_cmp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static bool seen_dir(struct builder *b, const char *dir)
{
	char real[PATH_MAX];
	size_t i;

	if (!realpath(dir, real))
		return true;
	for (i = 0; i < b->n_dirs; i++)
		if (!strcmp(b->seen[i], real))
			return true;
	b->dirs = xrealloc(b->dirs, (b->n_dirs + 2) * sizeof(*b->dirs));
	b->seen = xrealloc(b->seen, (b->n_dirs + 2) * sizeof(*b->seen));
	b->dirs[b->n_dirs] = xstrdup(dir);
	b->seen[b->n_dirs++] = xstrdup(real);
	b->dirs[b->n_dirs] = b->seen[b->n_dirs] = NULL;
	return false;
}

/* Mounts every driver library in dir (files and symlinks; a symlink is
 * mounted as the file it names, so libcuda.so.1 works without ldconfig).
 * Returns how many. */
static size_t scan_lib_dir(struct builder *b, const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **names = NULL;
	size_t n = 0, i;

	if (!d)
		return 0;
	while ((e = readdir(d)))
		if (lib_matches(e->d_name)) {
			names = xrealloc(names, (n + 1) * sizeof(*names));
			names[n++] = xstrdup(e->d_name);
		}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), name_cmp);
	for (i = 0; i < n; i++) {
		cleanup_free char *p = xasprintf("%s/%s", dir, names[i]);
		struct stat st;

		if (stat(p, &st) == 0 && S_ISREG(st.st_mode))
			add_mount(b, p, p);
		free(names[i]);
	}
	free(names);
	return n;
}

/* Directories `ldconfig -p` knows driver libraries in (native ABI only). */
static char **ldconfig_dirs(void)
{
	FILE *f = popen("/sbin/ldconfig -p 2>/dev/null", "r");
	char line[1024];
	char **dirs = NULL;
	size_t n = 0, i;

	if (!f)
		return NULL;
	while (fgets(line, sizeof(line), f)) {
		char *arrow = strstr(line, " => "), *name = line, *path, *slash, *sp;

		while (*name == ' ' || *name == '\t')
			name++;
		if (!arrow || !(sp = strchr(name, ' ')))
			continue;
		*sp = 0;
		if (!lib_matches(name) || (!strstr(sp + 1, "x86-64") && !strstr(sp + 1, "AArch64")))
			continue;
		path = arrow + 4;
		path[strcspn(path, "\n")] = 0;
		if (!(slash = strrchr(path, '/')) || slash == path)
			continue;
		*slash = 0;
		for (i = 0; i < n && strcmp(dirs[i], path); i++)
			;
		if (i < n)
			continue;
		dirs = xrealloc(dirs, (n + 2) * sizeof(*dirs));
		dirs[n++] = xstrdup(path);
		dirs[n] = NULL;
	}
	pclose(f);
	return dirs;
}

/* Forgets the last directory seen_dir() added (it held no library). */
static void drop_last(struct builder *b)
{
	b->n_dirs--;
	free(b->dirs[b->n_dirs]);
	free(b->seen[b->n_dirs]);
	b->dirs[b->n_dirs] = b->seen[b->n_dirs] = NULL;
}

static void add_libraries(struct sk_gpu *g, struct builder *b)
{
	char **found = g->lib_dirs ? NULL : ldconfig_dirs();
	const char *const *dirs = g->lib_dirs ? (const char *const *)g->lib_dirs : default_lib_dirs;
	char **p;

	for (p = found; p && *p; p++) {
		if (!seen_dir(b, *p) && scan_lib_dir(b, *p) == 0)
			drop_last(b);
		free(*p);
	}
	free(found);
	for (; *dirs; dirs++)
		if (!seen_dir(b, *dirs) && scan_lib_dir(b, *dirs) == 0)
			drop_last(b);
}

static void add_binaries(struct sk_gpu *g, struct builder *b)
{
	const char *const *dirs = g->bin_dirs ? (const char *const *)g->bin_dirs : default_bin_dirs;
	size_t i;

	for (i = 0; i < sizeof(driver_bins) / sizeof(driver_bins[0]); i++) {
		const char *const *d;

		for (d = dirs; *d; d++) {
			cleanup_free char *p = xasprintf("%s/%s", *d, driver_bins[i]);
			struct stat st;

			if (stat(p, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 0111)) {
				add_mount(b, p, p);
				break;
			}
		}
	}
}

/* <dir>/ld.so.conf lists the library dirs; mounted into ld.so.conf.d so an
 * ldconfig in the container (or the image's entrypoint) caches them. */
static int add_ldconf(struct sk_gpu *g, struct builder *b, sk_error_t *err)
{
	cleanup_free char *path = xasprintf("%s/ld.so.conf", g->dir);
	size_t len = 0, i;
	char *s = xstrdup("# driver libraries injected by skiff\n");

	for (i = 0; i < b->n_dirs; i++) {
		char *n = xasprintf("%s%s\n", s, b->dirs[i]);

		free(s);
		s = n;
	}
	len = strlen(s);
	if (sk_write_file(path, s, len, 0644) < 0) {
		free(s);
		return sk_error_errno(err, errno, "gpu: writing \"%s\"", path);
	}
	free(s);
	add_mount(b, path, LDCONF_PATH);
	return 0;
}

static void builder_release(struct builder *b)
{
	size_t i;

	for (i = 0; i < b->n_dirs; i++) {
		free(b->dirs[i]);
		free(b->seen[i]);
	}
	free(b->dirs);
	free(b->seen);
}

static int add_nodes(struct sk_gpu *g, struct sk_gpu_injection *inj, const unsigned *minors, size_t n, sk_error_t *err)
{
	size_t i;

	for (i = 0; i < sizeof(control_nodes) / sizeof(control_nodes[0]); i++)
		if (add_device(g, inj, control_nodes[i].name, control_nodes[i].required, err) < 0)
			return -1;
	for (i = 0; i < n; i++) {
		char name[32];

		snprintf(name, sizeof(name), "nvidia%u", minors[i]);
		if (add_device(g, inj, name, true, err) < 0)
			return -1;
	}
	return 0;
}

static void add_visible_env(struct sk_gpu_injection *inj, json_t *uuids)
{
	char *nv = xstrdup(""), *cuda = xstrdup("");
	size_t i, n = 0;
	json_t *u;

	json_array_foreach(uuids, i, u) {
		char *a = xasprintf("%s%s%s", nv, i ? "," : "", json_string_value(u));
		char *c = xasprintf("%s%s%zu", cuda, i ? "," : "", i);

		free(nv);
		free(cuda);
		nv = a;
		cuda = c;
	}
	add_env(inj, &n, xasprintf("NVIDIA_VISIBLE_DEVICES=%s", nv));
	add_env(inj, &n, xasprintf("CUDA_VISIBLE_DEVICES=%s", cuda));
	add_env(inj, &n, xstrdup("NVIDIA_DRIVER_CAPABILITIES=compute,utility"));
	free(nv);
	free(cuda);
}

/* The minor numbers of the devices holding uuids (locked). */
static size_t minors_of(struct sk_gpu *g, json_t *uuids, unsigned *out)
{
	size_t i, n = 0;
	json_t *u;

	json_array_foreach(uuids, i, u) {
		int d = sk__gpu_device_find(g, json_string_value(u));

		if (d >= 0)
			out[n++] = g->t.devs[d].minor;
	}
	return n;
}

int sk_gpu_inject(sk_gpu *g, const char *container_id, struct sk_gpu_injection *inj, sk_error_t *err)
{
	cleanup_json json_t *uuids = sk_gpu_container_devices(g, container_id);
	cleanup_free unsigned *minors = NULL;
	struct builder b = {.inj = inj};
	size_t n;

	memset(inj, 0, sizeof(*inj));
	if (!uuids)
		return 0;
	add_visible_env(inj, uuids);
	if (g->t.simulated)
		return 0;
	minors = xzalloc((json_array_size(uuids) + 1) * sizeof(*minors));
	pthread_mutex_lock(&g->mu);
	n = minors_of(g, uuids, minors);
	pthread_mutex_unlock(&g->mu);
	if (add_nodes(g, inj, minors, n, err) < 0)
		goto fail;
	add_libraries(g, &b);
	add_binaries(g, &b);
	if (add_ldconf(g, &b, err) < 0)
		goto fail;
	builder_release(&b);
	return 0;
fail:
	builder_release(&b);
	sk_gpu_injection_release(inj);
	return sk_error_wrap(err, "container \"%s\"", container_id);
}

void sk_gpu_injection_release(struct sk_gpu_injection *inj)
{
	size_t i;
	char **p;

	for (i = 0; i < inj->n_devices; i++) {
		free((char *)inj->devices[i].path);
		free((char *)inj->devices[i].permissions);
	}
	for (i = 0; i < inj->n_mounts; i++) {
		free((char *)inj->mounts[i].host_path);
		free((char *)inj->mounts[i].container_path);
	}
	for (p = inj->env; p && *p; p++)
		free(*p);
	free(inj->devices);
	free(inj->mounts);
	free(inj->env);
	memset(inj, 0, sizeof(*inj));
}
