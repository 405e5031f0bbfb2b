/* src/gpu's NVML path without a GPU: a fake libnvidia-ml.so.1 (two A100s,
 * driver 535.104.05, CUDA 12.2, XID events read from a file) is compiled
 * into a temp dir and loaded through the same dlopen as on a real node. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "gpu/gpu.h"
#include "util/error.h"
#include "util/util.h"

/* The fake library's source: the NVML entry points src/gpu resolves. */
static const char fake_nvml[] =
	"#include <stdio.h>\n"
	"#include <stdlib.h>\n"
	"#include <string.h>\n"
	"#include <unistd.h>\n"
	"struct dev { int i; };\n"
	"static struct dev devs[2] = {{0}, {1}};\n"
	"struct mem { unsigned long long total, free, used; };\n"
	"struct ev { void *device; unsigned long long type, data; unsigned gi, ci; };\n"
	"int nvmlInit_v2(void) { return 0; }\n"
	"int nvmlShutdown(void) { return 0; }\n"
	"const char *nvmlErrorString(int r) { return \"fake error\"; }\n"
	"int nvmlDeviceGetCount_v2(unsigned *n) { *n = 2; return 0; }\n"
	"int nvmlDeviceGetHandleByIndex_v2(unsigned i, void **h) { if (i > 1) return 2; *h = &devs[i]; return 0; }\n"
	"int nvmlDeviceGetUUID(struct dev *h, char *b, unsigned l) { snprintf(b, l, \"GPU-fake-%d\", h->i); return 0; }\n"
	"int nvmlDeviceGetName(void *h, char *b, unsigned l) { snprintf(b, l, \"NVIDIA A100-SXM4-80GB\"); return 0; }\n"
	"int nvmlDeviceGetMemoryInfo(void *h, struct mem *m) { m->total = 85899345920ULL; m->free = m->total;"
	" m->used = 0; return 0; }\n"
	"int nvmlDeviceGetMinorNumber(struct dev *h, unsigned *m) { *m = 4 + h->i; return 0; }\n"
	"int nvmlDeviceGetMigMode(struct dev *h, unsigned *c, unsigned *p) { *c = *p = h->i; return 0; }\n"
	"int nvmlSystemGetDriverVersion(char *b, unsigned l) { snprintf(b, l, \"535.104.05\"); return 0; }\n"
	"int nvmlSystemGetCudaDriverVersion_v2(int *v) { *v = 12020; return 0; }\n"
	"struct util { unsigned gpu, memory; };\n"
	"int nvmlDeviceGetUtilizationRates(struct dev *h, struct util *u) {\n"
	"	if (h->i) return 3; /* NVML_ERROR_NOT_SUPPORTED */\n"
	"	u->gpu = 55; u->memory = 20; return 0; }\n"
	"int nvmlDeviceGetTemperature(struct dev *h, int sensor, unsigned *t) {\n"
	"	if (sensor != 0) return 2; *t = 61 + h->i; return 0; }\n"
	"int nvmlDeviceGetPowerUsage(struct dev *h, unsigned *mw) { if (h->i) return 3; *mw = 250500; return 0; }\n"
	"static int set;\n"
	"int nvmlEventSetCreate(void **s) { *s = &set; return 0; }\n"
	"int nvmlEventSetFree(void *s) { return 0; }\n"
	"int nvmlDeviceGetSupportedEventTypes(void *h, unsigned long long *t) { *t = 0x8 | 0x2; return 0; }\n"
	"int nvmlDeviceRegisterEvents(void *h, unsigned long long t, void *s) { return t == 0x8 ? 0 : 2; }\n"
	"int nvmlEventSetWait_v2(void *s, struct ev *e, unsigned ms) {\n"
	"	const char *p = getenv(\"FAKE_NVML_EVENTS\");\n"
	"	FILE *f = p ? fopen(p, \"r\") : NULL;\n"
	"	int i, n = 0;\n"
	"	unsigned x;\n"
	"	if (f) { n = fscanf(f, \"%d %u\", &i, &x); fclose(f); unlink(p); }\n"
	"	if (n == 2 && i < 0) return 15; /* NVML_ERROR_GPU_IS_LOST */\n"
	"	if (n == 2) { memset(e, 0, sizeof(*e)); e->device = &devs[i]; e->type = 0x8; e->data = x; return 0; }\n"
	"	usleep(20000);\n"
	"	return 10; /* NVML_ERROR_TIMEOUT */\n"
	"}\n";

struct fixture {
	char dir[64];
	char *lib;
	pthread_mutex_t mu;
	int flips;
	char last[256];
};

static void on_health(const struct sk_gpu_device *d, bool healthy, const char *reason, void *ud)
{
	struct fixture *f = ud;

	pthread_mutex_lock(&f->mu);
	f->flips++;
	snprintf(f->last, sizeof(f->last), "%s %s %s", d->uuid, healthy ? "healthy" : "unhealthy", reason);
	pthread_mutex_unlock(&f->mu);
}

static int setup(void **state)
{
	struct fixture *f = xzalloc(sizeof(*f));
	cleanup_free char *src = NULL, *cmd = NULL;
	const char *cc = getenv("CC") ? getenv("CC") : "cc";

	snprintf(f->dir, sizeof(f->dir), "/tmp/skiff-nvml-XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	pthread_mutex_init(&f->mu, NULL);
	src = xasprintf("%s/fake-nvml.c", f->dir);
	f->lib = xasprintf("%s/libnvidia-ml.so.1", f->dir);
	assert_int_equal(sk_write_file(src, fake_nvml, strlen(fake_nvml), 0644), 0);
	cmd = xasprintf("%s -shared -fPIC -o '%s' '%s' 2>/dev/null", cc, f->lib, src);
	*state = f;
	if (system(cmd) != 0)
		skip();   /* no C compiler to build the fake library */
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	cleanup_free char *cmd = xasprintf("rm -rf '%s'", f->dir);

	assert_int_equal(system(cmd), 0);
	pthread_mutex_destroy(&f->mu);
	free(f->lib);
	free(f);
	return 0;
}

static const char *jstr(json_t *o, const char *k)
{
	return json_string_value(json_object_get(o, k));
}

static void test_nvml_discovery(void **state)
{
	struct fixture *f = *state;
	sk_gpu_options o = {.node_name = "n1", .data_dir = f->dir, .nvml_lib = f->lib, .no_health_thread = true};
	sk_error_t err = {0};
	sk_gpu *g = sk_gpu_open(&o, &err);
	struct sk_gpu_device *d = NULL;
	cleanup_json json_t *cap = json_object(), *labels = json_object();

	assert_non_null(g);
	assert_false(sk_gpu_simulated(g));
	assert_int_equal(sk_gpu_devices(g, &d), 2);
	assert_string_equal(d[0].uuid, "GPU-fake-0");
	assert_string_equal(d[1].uuid, "GPU-fake-1");
	assert_string_equal(d[0].product, "NVIDIA A100-SXM4-80GB");
	assert_int_equal(d[0].memory_mib, 81920);
	assert_int_equal(d[0].minor, 4);
	assert_int_equal(d[1].minor, 5);
	assert_int_equal(d[1].index, 1);
	assert_false(d[0].mig_enabled);
	assert_true(d[1].mig_enabled);
	free(d);
	sk_gpu_node_capacity(g, cap, NULL, labels);
	assert_string_equal(jstr(cap, "nvidia.com/gpu"), "2");
	assert_string_equal(jstr(labels, "nvidia.com/gpu.product"), "NVIDIA-A100-SXM4-80GB");
	assert_string_equal(jstr(labels, "nvidia.com/gpu.memory"), "81920");
	assert_string_equal(jstr(labels, "nvidia.com/cuda.driver.major"), "535");
	assert_string_equal(jstr(labels, "nvidia.com/cuda.driver.minor"), "104");
	assert_string_equal(jstr(labels, "nvidia.com/cuda.driver.rev"), "05");
	assert_string_equal(jstr(labels, "nvidia.com/cuda.runtime.major"), "12");
	assert_string_equal(jstr(labels, "nvidia.com/cuda.runtime.minor"), "2");
	assert_string_equal(jstr(labels, "nvidia.com/cuda.driver-version.revision"), "05");
	assert_string_equal(jstr(labels, "nvidia.com/cuda.driver-version.full"), "535.104.05");
	assert_string_equal(jstr(labels, "nvidia.com/cuda.runtime-version.full"), "12.2");
	assert_string_equal(jstr(labels, "skiff.dev/gpu.device-support-version"), SK_GPU_SUPPORT_VERSION);
	assert_string_equal(jstr(labels, "nvidia.com/mig.capable"), "true");
	assert_null(json_object_get(labels, "skiff.dev/gpu.simulated"));

	/* live readings: whatever each device answers */
	sk_gpu_sample s;
	assert_int_equal(sk_gpu_sample_device(g, 0, &s), 0);
	assert_true(s.has_util && s.has_temp && s.has_power && s.has_mem);
	assert_int_equal(s.util_pct, 55);
	assert_int_equal(s.mem_util_pct, 20);
	assert_int_equal(s.temp_c, 61);
	assert_true(s.power_w > 250.49 && s.power_w < 250.51);
	assert_int_equal(s.fb_used_mib, 0);
	assert_int_equal(s.fb_free_mib, 81920);
	assert_int_equal(sk_gpu_sample_device(g, 1, &s), 0);
	assert_false(s.has_util);
	assert_false(s.has_power);
	assert_true(s.has_temp);
	assert_int_equal(s.temp_c, 62);
	assert_int_equal(sk_gpu_sample_device(g, 2, &s), -1);
	sk_gpu_close(g);
}

static void wait_flips(struct fixture *f, int n)
{
	int i, got = 0;

	for (i = 0; i < 200; i++) {
		pthread_mutex_lock(&f->mu);
		got = f->flips;
		pthread_mutex_unlock(&f->mu);
		if (got >= n)
			return;
		usleep(50000);
	}
	fail_msg("expected %d health changes, saw %d", n, got);
}

static void write_event(struct fixture *f, const char *path, const char *ev)
{
	int i;

	assert_int_equal(sk_write_file(path, ev, strlen(ev), 0644), 0);
	for (i = 0; i < 200 && access(path, F_OK) == 0; i++)
		usleep(20000);
	assert_int_equal(access(path, F_OK), -1);
}

/* XID events from the event set: application XIDs are ignored, a critical
 * one makes that device unhealthy, a lost GPU makes all of them unhealthy. */
static void test_nvml_xid_events(void **state)
{
	struct fixture *f = *state;
	cleanup_free char *events = xasprintf("%s/events", f->dir);
	sk_gpu_options o = {.node_name = "n1", .data_dir = f->dir, .nvml_lib = f->lib, .on_health = on_health,
			    .ud = f, .quiet_period_s = -1};
	sk_error_t err = {0};
	sk_gpu *g;
	cleanup_json json_t *alloc = json_object(), *after = json_object();
	cleanup_json json_t *got = NULL;

	setenv("FAKE_NVML_EVENTS", events, 1);
	g = sk_gpu_open(&o, &err);
	assert_non_null(g);
	write_event(f, events, "1 43\n");
	write_event(f, events, "1 79\n");
	wait_flips(f, 1);
	assert_string_equal(f->last, "GPU-fake-1 unhealthy XID 79 (GPU has fallen off the bus)");
	sk_gpu_node_capacity(g, NULL, alloc, NULL);
	assert_string_equal(jstr(alloc, "nvidia.com/gpu"), "1");
	assert_int_equal(sk_gpu_allocate(g, "c1", "p", "c", 1, &err), 0);
	got = sk_gpu_container_devices(g, "c1");
	assert_string_equal(json_string_value(json_array_get(got, 0)), "GPU-fake-0");

	write_event(f, events, "-1 0\n");
	wait_flips(f, 2);
	assert_string_equal(f->last, "GPU-fake-0 unhealthy GPU is lost");
	sk_gpu_node_capacity(g, NULL, after, NULL);
	assert_string_equal(jstr(after, "nvidia.com/gpu"), "0");
	sk_gpu_close(g);
	assert_int_equal(f->flips, 2);   /* 43 was ignored */
	unsetenv("FAKE_NVML_EVENTS");
}

/* The real device node names come from NVML minor numbers. */
static void test_nvml_injection_minor(void **state)
{
	struct fixture *f = *state;
	cleanup_free char *dev = xasprintf("%s/dev", f->dir), *ctl = xasprintf("%s/dev/nvidiactl", f->dir);
	cleanup_free char *n5 = xasprintf("%s/dev/nvidia5", f->dir), *lib = xasprintf("%s/nolibs", f->dir);
	const char *const libs[] = {lib, NULL}, *const bins[] = {lib, NULL};
	sk_gpu_options o = {.node_name = "n1", .data_dir = f->dir, .nvml_lib = f->lib, .dev_dir = dev,
			    .lib_dirs = libs, .bin_dirs = bins, .no_health_thread = true};
	sk_error_t err = {0};
	struct sk_gpu_injection inj;
	sk_gpu *g;

	assert_int_equal(mkdir(dev, 0755), 0);
	assert_int_equal(mknod(ctl, S_IFCHR | 0666, makedev(195, 255)), 0);
	assert_int_equal(mknod(n5, S_IFCHR | 0666, makedev(195, 5)), 0);
	g = sk_gpu_open(&o, &err);
	assert_non_null(g);
	assert_int_equal(sk_gpu_inject_xid(g, "GPU-fake-0", 48), 1);
	assert_int_equal(sk_gpu_allocate(g, "c1", "p", "c", 1, &err), 0);
	assert_int_equal(sk_gpu_inject(g, "c1", &inj, &err), 0);
	assert_int_equal(inj.n_devices, 2);
	assert_string_equal(inj.devices[1].path, "/dev/nvidia5");
	assert_int_equal(inj.devices[1].minor, 5);
	assert_int_equal(inj.n_mounts, 1);   /* no libraries here: the ld.so.conf entry only */
	assert_string_equal(inj.env[0], "NVIDIA_VISIBLE_DEVICES=GPU-fake-1");
	sk_gpu_injection_release(&inj);
	sk_gpu_close(g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_nvml_discovery, setup, teardown),
		cmocka_unit_test_setup_teardown(test_nvml_xid_events, setup, teardown),
		cmocka_unit_test_setup_teardown(test_nvml_injection_minor, setup, teardown),
	};

	sk_log_level = SK_LOG_ERROR;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
