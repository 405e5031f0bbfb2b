/* The GPU handle: device table (NVML, simulated or given), node capacity
 * and labels, and the container request. */
#include <ctype.h>
#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "gpu/gpu-int.h"
#include "util/quantity.h"
#include "util/util.h"

#define SIM_MEMORY_MIB 81920
#define SIM_CUDA_VERSION 12040

static char **strv_dup(const char *const *v)
{
	size_t n = 0, i;
	char **r;

	if (!v)
		return NULL;
	while (v[n])
		n++;
	r = xzalloc((n + 1) * sizeof(*r));
	for (i = 0; i < n; i++)
		r[i] = xstrdup(v[i]);
	return r;
}

static void strv_free(char **v)
{
	char **p;

	for (p = v; p && *p; p++)
		free(*p);
	free(v);
}

static void table_simulated(struct sk__gpu_table *t, const char *node, int n)
{
	int i;

	t->devs = xzalloc((size_t)n * sizeof(*t->devs));
	t->n = (size_t)n;
	for (i = 0; i < n; i++) {
		struct sk_gpu_device *d = &t->devs[i];

		snprintf(d->uuid, sizeof(d->uuid), "GPU-sim-%s-%d", node, i);
		snprintf(d->product, sizeof(d->product), "skiff-simulated");
		d->index = (unsigned)i;
		d->minor = (unsigned)i;
		d->memory_mib = SIM_MEMORY_MIB;
		d->healthy = true;
	}
	snprintf(t->driver_version, sizeof(t->driver_version), "sim");
	t->cuda_version = SIM_CUDA_VERSION;
	t->simulated = true;
}

static void table_given(struct sk__gpu_table *t, const sk_gpu_options *o)
{
	size_t i;

	t->devs = xzalloc(o->n_devices * sizeof(*t->devs));
	memcpy(t->devs, o->devices, o->n_devices * sizeof(*t->devs));
	t->n = o->n_devices;
	for (i = 0; i < t->n; i++) {
		t->devs[i].healthy = true;
		t->devs[i].reason[0] = 0;
	}
	snprintf(t->driver_version, sizeof(t->driver_version), "%s", o->driver_version ? o->driver_version : "sim");
	t->cuda_version = o->cuda_version;
}

static void discover(struct sk_gpu *g, const sk_gpu_options *o)
{
	if (o->n_devices > 0 && o->devices)
		table_given(&g->t, o);
	else if (o->simulate > 0)
		table_simulated(&g->t, o->node_name, o->simulate);
	else
		g->nvml = sk__nvml_open(o->nvml_lib, &g->t);
	g->last_xid_ns = xzalloc((g->t.n ? g->t.n : 1) * sizeof(*g->last_xid_ns));
}

extern char **environ;

/* CUDA needs /dev/nvidia-uvm, which appears only once the nvidia-uvm module
 * is loaded (on a fresh boot, by the first CUDA program run as root). Like
 * nvidia-container-toolkit, let the driver's setuid helper nvidia-modprobe
 * load it and create the nodes. Best effort. */
static void ensure_uvm(struct sk_gpu *g)
{
	char *const argv[] = {"nvidia-modprobe", "-u", "-c=0", NULL};
	cleanup_free char *uvm = xasprintf("%s/nvidia-uvm", g->dev_dir);
	struct stat st;
	pid_t pid;
	int status = 0;

	if (stat(uvm, &st) == 0)
		return;
	if (posix_spawnp(&pid, argv[0], NULL, NULL, argv, environ) != 0) {
		sk_warn("gpu", "%s missing and no nvidia-modprobe: CUDA in containers may fail", uvm);
		return;
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (stat(uvm, &st) < 0)
		sk_warn("gpu", "%s still missing after nvidia-modprobe -u: CUDA in containers may fail", uvm);
}

sk_gpu *sk_gpu_open(const sk_gpu_options *o, sk_error_t *err)
{
	struct sk_gpu *g;

	if (!o->node_name || !*o->node_name || !o->data_dir) {
		sk_error_set(err, SK_EINVALID, "gpu: node name and data dir are required");
		return NULL;
	}
	g = xzalloc(sizeof(*g));
	pthread_mutex_init(&g->mu, NULL);
	pthread_cond_init(&g->stop_cv, NULL);
	g->node_name = xstrdup(o->node_name);
	g->dir = xasprintf("%s/gpu", o->data_dir);
	g->state_path = xasprintf("%s/allocations.json", g->dir);
	g->dev_dir = xstrdup(o->dev_dir ? o->dev_dir : "/dev");
	g->lib_dirs = strv_dup(o->lib_dirs);
	g->bin_dirs = strv_dup(o->bin_dirs);
	g->replicas = o->replicas > 1 ? o->replicas : 1;
	g->quiet_period_s = o->quiet_period_s ? o->quiet_period_s : 300;
	g->on_health = o->on_health;
	g->ud = o->ud;
	discover(g, o);
	if (g->nvml && !o->dev_dir)
		ensure_uvm(g);
	if (sk_mkdir_p(g->dir, 0700) < 0) {
		sk_error_errno(err, errno, "gpu: creating \"%s\"", g->dir);
		goto fail;
	}
	if (sk__gpu_state_load(g, err) < 0)
		goto fail;
	if (g->t.n && !o->no_health_thread && sk__gpu_health_start(g, err) < 0)
		goto fail;
	if (g->t.n)
		sk_info("gpu", "%zu %s GPU(s), %d replica(s) each, %zu allocation(s) restored", g->t.n,
			g->t.simulated ? "simulated" : g->t.driver_version, g->replicas, g->n_allocs);
	return g;
fail:
	sk_gpu_close(g);
	return NULL;
}

void sk_gpu_close(sk_gpu *g)
{
	if (!g)
		return;
	sk__gpu_health_stop(g);
	sk__nvml_close(g->nvml);
	sk__gpu_allocs_free(g);
	free(g->t.devs);
	free(g->last_xid_ns);
	free(g->node_name);
	free(g->dir);
	free(g->state_path);
	free(g->dev_dir);
	strv_free(g->lib_dirs);
	strv_free(g->bin_dirs);
	pthread_cond_destroy(&g->stop_cv);
	pthread_mutex_destroy(&g->mu);
	free(g);
}

size_t sk_gpu_devices(sk_gpu *g, struct sk_gpu_device **out)
{
	size_t n;

	pthread_mutex_lock(&g->mu);
	n = g->t.n;
	*out = xzalloc((n ? n : 1) * sizeof(**out));
	if (n)
		memcpy(*out, g->t.devs, n * sizeof(**out));
	pthread_mutex_unlock(&g->mu);
	return n;
}

bool sk_gpu_simulated(sk_gpu *g) { return g->t.simulated; }

int sk_gpu_sample_device(sk_gpu *g, size_t i, sk_gpu_sample *s)
{
	memset(s, 0, sizeof(*s));
	if (!g->nvml)
		return -1;
	return sk__nvml_sample(g->nvml, i, s);
}

/* A label value: [A-Za-z0-9._-], alphanumeric at both ends, at most 63. */
static void label_value(char *dst, size_t len, const char *src)
{
	size_t n = 0, i;

	for (; *src && n + 1 < len && n < 63; src++)
		dst[n++] = (isalnum((unsigned char)*src) || *src == '.' || *src == '_' || *src == '-') ? *src : '-';
	dst[n] = 0;
	while (n > 0 && !isalnum((unsigned char)dst[n - 1]))
		dst[--n] = 0;
	for (i = 0; dst[i] && !isalnum((unsigned char)dst[i]); i++)
		;
	memmove(dst, dst + i, strlen(dst + i) + 1);
}

static void set_int(json_t *o, const char *key, long long v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%lld", v);
	json_object_set_new(o, key, json_string(buf));
}

/* GPU feature discovery's meaning: nvidia.com/cuda.driver.* is the kernel
 * driver version as written ("535.104.05": 535, 104, 05), nvidia.com/
 * cuda.runtime.* the CUDA version the driver supports. GFD (in
 * k8s-device-plugin) writes the same values again under its newer names,
 * nvidia.com/cuda.driver-version.{major,minor,revision,full} and
 * nvidia.com/cuda.runtime-version.{major,minor,full}; both sets are set. A
 * driver version that is not dotted numbers ("sim") gets no driver labels. */
static void version_labels(struct sk_gpu *g, json_t *labels)
{
	static const char *const keys[] = {"nvidia.com/cuda.driver.major", "nvidia.com/cuda.driver.minor",
					   "nvidia.com/cuda.driver.rev"};
	static const char *const new_keys[] = {"nvidia.com/cuda.driver-version.major",
					       "nvidia.com/cuda.driver-version.minor",
					       "nvidia.com/cuda.driver-version.revision"};
	const char *p = g->t.driver_version;
	char parts[3][16] = {"", "", "0"};
	size_t i, n = 0;

	while (n < 3 && isdigit((unsigned char)*p)) {
		size_t len = strspn(p, "0123456789");

		snprintf(parts[n++], sizeof(parts[0]), "%.*s", (int)(len < 15 ? len : 15), p);
		p += len;
		if (*p != '.')
			break;
		p++;
	}
	for (i = 0; n >= 2 && i < 3; i++) {
		json_object_set_new(labels, keys[i], json_string(parts[i]));
		json_object_set_new(labels, new_keys[i], json_string(parts[i]));
	}
	if (n >= 2) {
		char value[64];

		label_value(value, sizeof(value), g->t.driver_version);
		json_object_set_new(labels, "nvidia.com/cuda.driver-version.full", json_string(value));
	}
	if (g->t.cuda_version > 0) {
		char full[32];

		set_int(labels, "nvidia.com/cuda.runtime.major", g->t.cuda_version / 1000);
		set_int(labels, "nvidia.com/cuda.runtime.minor", g->t.cuda_version % 1000 / 10);
		set_int(labels, "nvidia.com/cuda.runtime-version.major", g->t.cuda_version / 1000);
		set_int(labels, "nvidia.com/cuda.runtime-version.minor", g->t.cuda_version % 1000 / 10);
		snprintf(full, sizeof(full), "%d.%d", g->t.cuda_version / 1000, g->t.cuda_version % 1000 / 10);
		json_object_set_new(labels, "nvidia.com/cuda.runtime-version.full", json_string(full));
	}
}

static void node_labels(struct sk_gpu *g, json_t *labels)
{
	char product[128], buf[160];

	json_object_set_new(labels, "nvidia.com/gpu.present", json_string("true"));
	snprintf(buf, sizeof(buf), "%s%s", g->t.devs[0].product, g->replicas > 1 ? "-SHARED" : "");
	label_value(product, sizeof(product), buf);
	json_object_set_new(labels, "nvidia.com/gpu.product", json_string(product));
	set_int(labels, "nvidia.com/gpu.memory", (long long)g->t.devs[0].memory_mib);
	set_int(labels, "nvidia.com/gpu.count", (long long)g->t.n);
	set_int(labels, "nvidia.com/gpu.replicas", g->replicas);
	json_object_set_new(labels, "nvidia.com/gpu.sharing-strategy",
			    json_string(g->replicas > 1 ? "time-slicing" : "none"));
	json_object_set_new(labels, "nvidia.com/mig.capable", json_string(g->t.mig_capable ? "true" : "false"));
	version_labels(g, labels);
	json_object_set_new(labels, SK_GPU_SUPPORT_VERSION_LABEL, json_string(SK_GPU_SUPPORT_VERSION));
	if (g->t.simulated)
		json_object_set_new(labels, SK_GPU_SIMULATED_LABEL, json_string("true"));
}

void sk_gpu_node_capacity(sk_gpu *g, json_t *capacity, json_t *allocatable, json_t *labels)
{
	size_t i, healthy = 0;

	pthread_mutex_lock(&g->mu);
	if (g->t.n == 0)
		goto out;
	for (i = 0; i < g->t.n; i++)
		healthy += g->t.devs[i].healthy;
	if (capacity)
		set_int(capacity, SK_GPU_RESOURCE, (long long)(g->t.n * (size_t)g->replicas));
	if (allocatable)
		set_int(allocatable, SK_GPU_RESOURCE, (long long)(healthy * (size_t)g->replicas));
	if (labels)
		node_labels(g, labels);
out:
	pthread_mutex_unlock(&g->mu);
}

void sk_gpu_node_forget_stale(json_t *old, json_t *now)
{
	const char *k;
	json_t *v;

	json_object_foreach(old, k, v) {
		if ((strncmp(k, "nvidia.com/", 11) && strncmp(k, "skiff.dev/gpu.", 14)) || json_object_get(now, k))
			continue;
		json_object_set_new(now, k, json_null());
	}
}

static int quantity_count(json_t *v, const char *what, int64_t *out, sk_error_t *err)
{
	const char *s = json_string_value(v);
	char buf[32];
	int64_t milli;

	if (json_is_integer(v)) {
		snprintf(buf, sizeof(buf), "%lld", (long long)json_integer_value(v));
		s = buf;
	}
	if (!s || sk_quantity_milli(s, &milli) < 0)
		return sk_error_set(err, SK_EINVALID, "%s " SK_GPU_RESOURCE ": not a quantity", what);
	if (milli < 0 || milli % 1000)
		return sk_error_set(err, SK_EINVALID, "%s " SK_GPU_RESOURCE ": \"%s\" is not a whole number", what, s);
	*out = milli / 1000;
	return 0;
}

int64_t sk_gpu_container_request(json_t *container, sk_error_t *err)
{
	json_t *res = json_object_get(container, "resources");
	json_t *lim = json_object_get(json_object_get(res, "limits"), SK_GPU_RESOURCE);
	json_t *req = json_object_get(json_object_get(res, "requests"), SK_GPU_RESOURCE);
	int64_t l = 0, r = 0;

	if (lim && quantity_count(lim, "limits", &l, err) < 0)
		return -1;
	if (req && quantity_count(req, "requests", &r, err) < 0)
		return -1;
	if (lim && req && l != r)
		return sk_error_set(err, SK_EINVALID, SK_GPU_RESOURCE " requests must equal limits");
	return lim ? l : r;
}
