/* src/gpu: simulated discovery, allocation (exclusive, persisted, released,
 * reconciled, time-sliced), health and the OCI injection for a fake device
 * table with fake device nodes and driver files in a temp dir. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "gpu/gpu.h"
#include "runtime/oci.h"
#include "util/error.h"
#include "util/util.h"

struct fixture {
	char dir[64];
	int flips;
	bool last_healthy;
	char last_reason[192];
	char last_uuid[96];
};

static void on_health(const struct sk_gpu_device *d, bool healthy, const char *reason, void *ud)
{
	struct fixture *f = ud;

	f->flips++;
	f->last_healthy = healthy;
	snprintf(f->last_reason, sizeof(f->last_reason), "%s", reason);
	snprintf(f->last_uuid, sizeof(f->last_uuid), "%s", d->uuid);
}

static int setup(void **state)
{
	struct fixture *f = xzalloc(sizeof(*f));

	snprintf(f->dir, sizeof(f->dir), "/tmp/skiff-gpu-XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	cleanup_free char *cmd = xasprintf("rm -rf '%s'", f->dir);

	assert_int_equal(system(cmd), 0);
	free(f);
	return 0;
}

static sk_gpu *open_sim(struct fixture *f, int n, int replicas)
{
	sk_gpu_options o = {.node_name = "n1", .data_dir = f->dir, .simulate = n, .replicas = replicas,
			    .no_health_thread = true, .on_health = on_health, .ud = f, .quiet_period_s = -1};
	sk_error_t err = {0};
	sk_gpu *g = sk_gpu_open(&o, &err);

	if (!g)
		fail_msg("open: %s", err.msg);
	return g;
}

static const char *jstr(json_t *o, const char *k)
{
	return json_string_value(json_object_get(o, k));
}

static char *uuid_of(sk_gpu *g, const char *id)
{
	cleanup_json json_t *a = sk_gpu_container_devices(g, id);

	if (!a)
		return NULL;
	assert_int_equal(json_array_size(a), 1);
	return xstrdup(json_string_value(json_array_get(a, 0)));
}

static void test_simulated_discovery(void **state)
{
	struct fixture *f = *state;
	sk_gpu *g = open_sim(f, 2, 0);
	struct sk_gpu_device *d = NULL;
	cleanup_json json_t *cap = json_object(), *alloc = json_object(), *labels = json_object();

	assert_true(sk_gpu_simulated(g));
	assert_int_equal(sk_gpu_devices(g, &d), 2);
	assert_string_equal(d[0].uuid, "GPU-sim-n1-0");
	assert_string_equal(d[1].uuid, "GPU-sim-n1-1");
	assert_string_equal(d[1].product, "skiff-simulated");
	assert_int_equal(d[1].memory_mib, 81920);
	assert_true(d[0].healthy && d[1].healthy);
	free(d);
	sk_gpu_node_capacity(g, cap, alloc, labels);
	assert_string_equal(jstr(cap, "nvidia.com/gpu"), "2");
	assert_string_equal(jstr(alloc, "nvidia.com/gpu"), "2");
	assert_string_equal(jstr(labels, "nvidia.com/gpu.present"), "true");
	assert_string_equal(jstr(labels, "nvidia.com/gpu.product"), "skiff-simulated");
	assert_string_equal(jstr(labels, "nvidia.com/gpu.memory"), "81920");
	assert_string_equal(jstr(labels, "nvidia.com/gpu.count"), "2");
	assert_string_equal(jstr(labels, "nvidia.com/gpu.replicas"), "1");
	assert_string_equal(jstr(labels, "nvidia.com/cuda.runtime.major"), "12");
	assert_string_equal(jstr(labels, "nvidia.com/cuda.runtime.minor"), "4");
	assert_string_equal(jstr(labels, "skiff.dev/gpu.simulated"), "true");
	assert_string_equal(jstr(labels, "nvidia.com/cuda.runtime-version.full"), "12.4");
	assert_string_equal(jstr(labels, "skiff.dev/gpu.device-support-version"), SK_GPU_SUPPORT_VERSION);
	assert_null(json_object_get(labels, "nvidia.com/cuda.driver.major"));
	assert_null(json_object_get(labels, "nvidia.com/cuda.driver-version.full"));
	sk_gpu_close(g);
}

static void test_forget_stale(void **state)
{
	cleanup_json json_t *old = json_pack("{s:s, s:s, s:s, s:s}", "kubernetes.io/hostname", "n1",
					     "nvidia.com/gpu.present", "true", "nvidia.com/gpu.count", "2",
					     "skiff.dev/gpu.simulated", "true");
	cleanup_json json_t *now = json_pack("{s:s, s:s}", "kubernetes.io/hostname", "n1", "nvidia.com/gpu.count", "1");

	sk_gpu_node_forget_stale(old, now);
	assert_int_equal(json_object_size(now), 4);
	assert_true(json_is_null(json_object_get(now, "nvidia.com/gpu.present")));
	assert_true(json_is_null(json_object_get(now, "skiff.dev/gpu.simulated")));
	assert_string_equal(jstr(now, "nvidia.com/gpu.count"), "1");
	assert_string_equal(jstr(now, "kubernetes.io/hostname"), "n1");
}

static void test_lower_replicas_never_overcommits(void **state)
{
	struct fixture *f = *state;
	sk_gpu *g = open_sim(f, 1, 3);
	sk_error_t err = {0};

	assert_int_equal(sk_gpu_allocate(g, "a", "pa", "c", 1, &err), 0);
	assert_int_equal(sk_gpu_allocate(g, "b", "pb", "c", 1, &err), 0);
	sk_gpu_close(g);
	g = open_sim(f, 1, 0);   /* back to exclusive: the device is taken twice over */
	assert_int_equal(sk_gpu_allocate(g, "c", "pc", "c", 1, &err), -1);
	assert_int_equal(sk_gpu_release(g, "a", &err), 1);
	assert_int_equal(sk_gpu_allocate(g, "c", "pc", "c", 1, &err), -1);
	assert_int_equal(sk_gpu_release(g, "b", &err), 1);
	assert_int_equal(sk_gpu_allocate(g, "c", "pc", "c", 1, &err), 0);
	sk_gpu_close(g);
}

static void test_no_nvml_no_gpus(void **state)
{
	struct fixture *f = *state;
	sk_gpu_options o = {.node_name = "n1", .data_dir = f->dir, .nvml_lib = "/nonexistent/libnvidia-ml.so.1"};
	sk_error_t err = {0};
	sk_gpu *g = sk_gpu_open(&o, &err);
	cleanup_json json_t *cap = json_object(), *labels = json_object();
	struct sk_gpu_device *d = NULL;

	assert_non_null(g);
	assert_int_equal(sk_gpu_devices(g, &d), 0);
	free(d);
	sk_gpu_node_capacity(g, cap, NULL, labels);
	assert_int_equal(json_object_size(cap), 0);
	assert_int_equal(json_object_size(labels), 0);
	assert_int_equal(sk_gpu_allocate(g, "c1", "p", "c", 1, &err), -1);
	assert_int_equal(err.code, SK_EUNAVAILABLE);
	sk_gpu_close(g);
}

static void test_exclusive_allocation(void **state)
{
	struct fixture *f = *state;
	sk_gpu *g = open_sim(f, 2, 0);
	sk_error_t err = {0};
	cleanup_free char *u1 = NULL, *u2 = NULL, *again = NULL;
	struct sk_gpu_injection inj;

	assert_int_equal(sk_gpu_allocate(g, "c1", "pod-a", "main", 1, &err), 0);
	assert_int_equal(sk_gpu_allocate(g, "c2", "pod-b", "main", 1, &err), 0);
	u1 = uuid_of(g, "c1");
	u2 = uuid_of(g, "c2");
	assert_string_not_equal(u1, u2);
	assert_int_equal(sk_gpu_allocate(g, "c3", "pod-c", "main", 1, &err), -1);
	assert_int_equal(err.code, SK_EUNAVAILABLE);
	assert_non_null(strstr(err.msg, "Requested: 1, Available: 0"));
	/* idempotent for the same container */
	assert_int_equal(sk_gpu_allocate(g, "c1", "pod-a", "main", 1, &err), 0);
	again = uuid_of(g, "c1");
	assert_string_equal(again, u1);
	assert_int_equal(sk_gpu_allocate(g, "c1", "pod-a", "main", 2, &err), -1);
	assert_int_equal(sk_gpu_allocate(g, "c0", "pod-z", "main", 0, &err), 0);
	assert_null(sk_gpu_container_devices(g, "c0"));

	/* simulated devices: only the variables */
	assert_int_equal(sk_gpu_inject(g, "c2", &inj, &err), 0);
	assert_int_equal(inj.n_devices, 0);
	assert_int_equal(inj.n_mounts, 0);
	assert_non_null(inj.env);
	{
		cleanup_free char *nv = xasprintf("NVIDIA_VISIBLE_DEVICES=%s", u2);

		assert_string_equal(inj.env[0], nv);
	}
	assert_string_equal(inj.env[1], "CUDA_VISIBLE_DEVICES=0");
	assert_string_equal(inj.env[2], "NVIDIA_DRIVER_CAPABILITIES=compute,utility");
	assert_null(inj.env[3]);
	sk_gpu_injection_release(&inj);
	assert_int_equal(sk_gpu_inject(g, "not-a-gpu-container", &inj, &err), 0);
	assert_null(inj.env);
	assert_int_equal(inj.n_devices + inj.n_mounts, 0);
	sk_gpu_close(g);
}

static void test_no_double_allocation_after_reload(void **state)
{
	struct fixture *f = *state;
	sk_gpu *g = open_sim(f, 2, 0);
	sk_error_t err = {0};
	cleanup_free char *u1 = NULL, *u1b = NULL, *u2 = NULL, *path = xasprintf("%s/gpu/allocations.json", f->dir);
	cleanup_json json_t *st = NULL;

	assert_int_equal(sk_gpu_allocate(g, "c1", "pod-a", "main", 1, &err), 0);
	u1 = uuid_of(g, "c1");
	sk_gpu_close(g);

	st = json_load_file(path, 0, NULL);
	assert_non_null(st);
	assert_int_equal(json_array_size(json_object_get(st, "allocations")), 1);
	assert_string_equal(jstr(json_array_get(json_object_get(st, "allocations"), 0), "containerID"), "c1");

	g = open_sim(f, 2, 0);
	u1b = uuid_of(g, "c1");
	assert_string_equal(u1, u1b);
	assert_int_equal(sk_gpu_allocate(g, "c2", "pod-b", "main", 1, &err), 0);
	u2 = uuid_of(g, "c2");
	assert_string_not_equal(u1, u2);
	assert_int_equal(sk_gpu_allocate(g, "c3", "pod-c", "main", 1, &err), -1);
	sk_gpu_close(g);
}

static void test_release_and_reconcile(void **state)
{
	struct fixture *f = *state;
	sk_gpu *g = open_sim(f, 2, 0);
	sk_error_t err = {0};
	cleanup_free char *ua = NULL, *uc = NULL;
	const char *const live[] = {"c", NULL};

	assert_int_equal(sk_gpu_allocate(g, "a", "pod-a", "main", 1, &err), 0);
	assert_int_equal(sk_gpu_allocate(g, "b", "pod-b", "main", 1, &err), 0);
	ua = uuid_of(g, "a");
	assert_int_equal(sk_gpu_release(g, "a", &err), 1);
	assert_int_equal(sk_gpu_release(g, "a", &err), 0);
	assert_null(sk_gpu_container_devices(g, "a"));
	assert_int_equal(sk_gpu_allocate(g, "c", "pod-c", "main", 1, &err), 0);
	uc = uuid_of(g, "c");
	assert_string_equal(ua, uc);
	assert_int_equal(sk_gpu_reconcile(g, live, &err), 1);
	assert_null(sk_gpu_container_devices(g, "b"));
	sk_gpu_close(g);

	g = open_sim(f, 2, 0);
	assert_null(sk_gpu_container_devices(g, "b"));
	{
		cleanup_free char *again = uuid_of(g, "c");

		assert_string_equal(again, uc);
	}
	assert_int_equal(sk_gpu_reconcile(g, NULL, &err), 1);
	assert_int_equal(sk_gpu_allocate(g, "d", "pod-d", "main", 2, &err), 0);
	sk_gpu_close(g);
}

/* A restarted container (new id, same pod and name) keeps its devices even
 * when the node is full; the whole pod's devices go at once when it ends. */
static void test_restart_keeps_devices_and_release_pod(void **state)
{
	struct fixture *f = *state;
	sk_gpu *g = open_sim(f, 2, 0);
	sk_error_t err = {0};
	cleanup_free char *u1 = NULL, *u1b = NULL;

	assert_int_equal(sk_gpu_allocate(g, "attempt0", "pod-a", "trainer", 1, &err), 0);
	assert_int_equal(sk_gpu_allocate(g, "other", "pod-b", "main", 1, &err), 0);
	u1 = uuid_of(g, "attempt0");
	assert_int_equal(sk_gpu_allocate(g, "attempt1", "pod-a", "trainer", 1, &err), 0);
	u1b = uuid_of(g, "attempt1");
	assert_string_equal(u1, u1b);
	assert_null(sk_gpu_container_devices(g, "attempt0"));
	assert_int_equal(sk_gpu_release(g, "attempt0", &err), 0);   /* removing the old attempt frees nothing */
	assert_int_equal(sk_gpu_allocate(g, "x", "pod-c", "main", 1, &err), -1);
	assert_string_equal(err.msg, "Allocate failed due to requested number of devices unavailable for "
				     "nvidia.com/gpu. Requested: 1, Available: 0, which is unexpected");
	assert_int_equal(sk_gpu_release_pod(g, "pod-a", &err), 1);
	assert_int_equal(sk_gpu_release_pod(g, "pod-a", &err), 0);
	assert_int_equal(sk_gpu_allocate(g, "x", "pod-c", "main", 1, &err), 0);
	sk_gpu_close(g);
}

static void test_time_slicing(void **state)
{
	struct fixture *f = *state;
	sk_gpu *g = open_sim(f, 2, 3);
	sk_error_t err = {0};
	cleanup_json json_t *cap = json_object(), *alloc = json_object(), *labels = json_object();
	cleanup_json json_t *two = NULL;
	int per_dev[2] = {0, 0}, i;

	sk_gpu_node_capacity(g, cap, alloc, labels);
	assert_string_equal(jstr(cap, "nvidia.com/gpu"), "6");
	assert_string_equal(jstr(alloc, "nvidia.com/gpu"), "6");
	assert_string_equal(jstr(labels, "nvidia.com/gpu.replicas"), "3");
	assert_string_equal(jstr(labels, "nvidia.com/gpu.product"), "skiff-simulated-SHARED");
	assert_string_equal(jstr(labels, "nvidia.com/gpu.sharing-strategy"), "time-slicing");

	/* a request for 2 replicas spreads over the two devices */
	assert_int_equal(sk_gpu_allocate(g, "pair", "pod-p", "main", 2, &err), 0);
	two = sk_gpu_container_devices(g, "pair");
	assert_int_equal(json_array_size(two), 2);
	for (i = 0; i < 4; i++) {
		char id[16];
		cleanup_free char *u = NULL;

		snprintf(id, sizeof(id), "c%d", i);
		assert_int_equal(sk_gpu_allocate(g, id, "pod", id, 1, &err), 0);
		u = uuid_of(g, id);
		per_dev[!strcmp(u, "GPU-sim-n1-1")]++;
	}
	assert_int_equal(per_dev[0], 2);
	assert_int_equal(per_dev[1], 2);
	assert_int_equal(sk_gpu_allocate(g, "c9", "pod", "c9", 1, &err), -1);
	assert_int_equal(sk_gpu_release(g, "c0", &err), 1);
	assert_int_equal(sk_gpu_allocate(g, "c9", "pod", "c9", 1, &err), 0);
	sk_gpu_close(g);
}

static void test_health_flip(void **state)
{
	struct fixture *f = *state;
	sk_gpu_options o = {.node_name = "n1", .data_dir = f->dir, .simulate = 2, .no_health_thread = true,
			    .on_health = on_health, .ud = f, .quiet_period_s = 1};
	sk_error_t err = {0};
	sk_gpu *g = sk_gpu_open(&o, &err);
	cleanup_json json_t *alloc = json_object();
	cleanup_free char *u = NULL, *inject = xasprintf("%s/gpu/inject-xid", f->dir);
	struct sk_gpu_device *d = NULL;

	assert_non_null(g);
	assert_true(sk_gpu_xid_is_application(13));
	assert_int_equal(sk_gpu_inject_xid(g, "1", 13), 0);   /* application error: ignored */
	assert_int_equal(f->flips, 0);
	assert_int_equal(sk_gpu_inject_xid(g, "GPU-sim-n1-1", 79), 1);
	assert_int_equal(sk_gpu_inject_xid(g, "1", 79), 0);   /* already unhealthy */
	assert_int_equal(sk_gpu_inject_xid(g, "7", 79), -1);
	assert_int_equal(f->flips, 1);
	assert_false(f->last_healthy);
	assert_string_equal(f->last_uuid, "GPU-sim-n1-1");
	assert_non_null(strstr(f->last_reason, "XID 79"));
	sk_gpu_node_capacity(g, NULL, alloc, NULL);
	assert_string_equal(jstr(alloc, "nvidia.com/gpu"), "1");
	assert_int_equal(sk_gpu_devices(g, &d), 2);
	assert_false(d[1].healthy);
	assert_non_null(strstr(d[1].reason, "fallen off the bus"));
	free(d);
	/* the unhealthy device is not handed out */
	assert_int_equal(sk_gpu_allocate(g, "c1", "p", "c", 2, &err), -1);
	assert_int_equal(sk_gpu_allocate(g, "c1", "p", "c", 1, &err), 0);
	u = uuid_of(g, "c1");
	assert_string_equal(u, "GPU-sim-n1-0");

	/* the file hook: recover, then fail again */
	assert_int_equal(sk_write_file(inject, "GPU-sim-n1-1 ok\n", 16, 0644), 0);
	sk_gpu_health_check(g);
	assert_int_equal(f->flips, 2);
	assert_true(f->last_healthy);
	assert_int_equal(access(inject, F_OK), -1);
	json_object_clear(alloc);
	sk_gpu_node_capacity(g, NULL, alloc, NULL);
	assert_string_equal(jstr(alloc, "nvidia.com/gpu"), "2");
	assert_int_equal(sk_write_file(inject, "0 48\n", 5, 0644), 0);
	sk_gpu_health_check(g);
	assert_int_equal(f->flips, 3);
	assert_false(f->last_healthy);
	assert_string_equal(f->last_uuid, "GPU-sim-n1-0");

	/* quiet period (1 s) without critical XIDs: healthy again */
	sleep(2);
	sk_gpu_health_check(g);
	assert_int_equal(f->flips, 4);
	assert_true(f->last_healthy);
	assert_non_null(strstr(f->last_reason, "no critical XID"));
	sk_gpu_close(g);
}

static void test_health_thread_reads_hook(void **state)
{
	struct fixture *f = *state;
	sk_gpu_options o = {.node_name = "n1", .data_dir = f->dir, .simulate = 1, .on_health = on_health, .ud = f,
			    .quiet_period_s = -1};
	sk_error_t err = {0};
	sk_gpu *g = sk_gpu_open(&o, &err);
	cleanup_free char *inject = xasprintf("%s/gpu/inject-xid", f->dir);
	int i;

	assert_non_null(g);
	assert_int_equal(sk_write_file(inject, "0 79\n", 5, 0644), 0);
	for (i = 0; i < 100 && access(inject, F_OK) == 0; i++)
		usleep(100000);
	sk_gpu_close(g);   /* joins the thread: the callback has run */
	assert_int_equal(f->flips, 1);
	assert_false(f->last_healthy);
}

static void test_container_request(void **state)
{
	sk_error_t err = {0};
	cleanup_json json_t *lim = json_pack("{s:{s:{s:s}}}", "resources", "limits", "nvidia.com/gpu", "2");
	cleanup_json json_t *req = json_pack("{s:{s:{s:i}}}", "resources", "requests", "nvidia.com/gpu", 1);
	cleanup_json json_t *frac = json_pack("{s:{s:{s:s}}}", "resources", "limits", "nvidia.com/gpu", "500m");
	cleanup_json json_t *diff = json_pack("{s:{s:{s:s}, s:{s:s}}}", "resources", "limits", "nvidia.com/gpu", "1",
					      "requests", "nvidia.com/gpu", "2");
	cleanup_json json_t *none = json_pack("{s:{s:{s:s}}}", "resources", "limits", "cpu", "1");

	assert_int_equal(sk_gpu_container_request(lim, &err), 2);
	assert_int_equal(sk_gpu_container_request(req, &err), 1);
	assert_int_equal(sk_gpu_container_request(none, &err), 0);
	assert_int_equal(sk_gpu_container_request(frac, &err), -1);
	assert_non_null(strstr(err.msg, "whole number"));
	assert_int_equal(sk_gpu_container_request(diff, &err), -1);
}

static void test_pod_annotation(void **state)
{
	struct fixture *f = *state;
	sk_gpu *g = open_sim(f, 3, 0);
	sk_error_t err = {0};
	cleanup_free char *ann = NULL;

	assert_null(sk_gpu_pod_annotation(g, "pod-a"));
	assert_int_equal(sk_gpu_allocate(g, "c1", "pod-a", "trainer", 2, &err), 0);
	assert_int_equal(sk_gpu_allocate(g, "c2", "pod-a", "eval", 1, &err), 0);
	assert_int_equal(sk_gpu_allocate(g, "c3", "pod-b", "x", 0, &err), 0);
	ann = sk_gpu_pod_annotation(g, "pod-a");
	assert_string_equal(ann, "{\"eval\":[\"GPU-sim-n1-2\"],\"trainer\":[\"GPU-sim-n1-0\",\"GPU-sim-n1-1\"]}");
	assert_null(sk_gpu_pod_annotation(g, "pod-b"));
	sk_gpu_close(g);
}

/* The fake host: device nodes, driver libraries and tools under f->dir. */
static void fake_host(struct fixture *f)
{
	static const struct {
		const char *name;
		int maj, min;
	} nodes[] = {{"nvidiactl", 195, 255}, {"nvidia-uvm", 509, 0}, {"nvidia-uvm-tools", 509, 1},
		     {"nvidia0", 195, 0}, {"nvidia1", 195, 1}};
	static const char *const files[] = {"lib/libcuda.so.550.54.15", "lib/libnvidia-ml.so.550.54.15",
					    "lib/libnvidia-ptxjitcompiler.so.550.54.15", "lib/libcudart.so.12",
					    "lib/libfoo.so.1", "bin/nvidia-smi", "bin/other-tool"};
	char p[256];
	size_t i;

	for (i = 0; i < 3; i++) {
		snprintf(p, sizeof(p), "%s/%s", f->dir, i == 0 ? "dev" : i == 1 ? "lib" : "bin");
		assert_int_equal(mkdir(p, 0755), 0);
	}
	for (i = 0; i < sizeof(nodes) / sizeof(nodes[0]); i++) {
		snprintf(p, sizeof(p), "%s/dev/%s", f->dir, nodes[i].name);
		assert_int_equal(mknod(p, S_IFCHR | 0666, makedev(nodes[i].maj, nodes[i].min)), 0);
		assert_int_equal(chmod(p, 0666), 0);
	}
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(p, sizeof(p), "%s/%s", f->dir, files[i]);
		assert_int_equal(sk_write_file(p, "x", 1, 0755), 0);
	}
	snprintf(p, sizeof(p), "%s/lib/libcuda.so.1", f->dir);
	assert_int_equal(symlink("libcuda.so.550.54.15", p), 0);
	snprintf(p, sizeof(p), "%s/lib/libnvidia-ml.so.1", f->dir);
	assert_int_equal(symlink("libnvidia-ml.so.550.54.15", p), 0);
	snprintf(p, sizeof(p), "%s/lib/libcuda.so", f->dir);
	assert_int_equal(symlink("libcuda.so.1", p), 0);
}

static sk_gpu *open_fake(struct fixture *f)
{
	static struct sk_gpu_device devs[2] = {
		{.uuid = "GPU-11111111-2222-3333-4444-555555555555", .product = "NVIDIA H100 80GB HBM3", .index = 0,
		 .minor = 0, .memory_mib = 81559},
		{.uuid = "GPU-aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee", .product = "NVIDIA H100 80GB HBM3", .index = 1,
		 .minor = 1, .memory_mib = 81559},
	};
	cleanup_free char *dev = xasprintf("%s/dev", f->dir), *lib = xasprintf("%s/lib", f->dir);
	cleanup_free char *bin = xasprintf("%s/bin", f->dir);
	const char *const libs[] = {lib, NULL}, *const bins[] = {bin, NULL};
	sk_gpu_options o = {.node_name = "n1", .data_dir = f->dir, .devices = devs, .n_devices = 2,
			    .driver_version = "550.54.15", .cuda_version = 12040, .dev_dir = dev, .lib_dirs = libs,
			    .bin_dirs = bins, .no_health_thread = true};
	sk_error_t err = {0};
	sk_gpu *g;

	fake_host(f);
	g = sk_gpu_open(&o, &err);
	if (!g)
		fail_msg("open: %s", err.msg);
	return g;
}

static void check_device(const struct sk_device *d, const char *path, int64_t maj, int64_t min)
{
	assert_string_equal(d->path, path);
	assert_int_equal(d->type, 'c');
	assert_int_equal(d->major, maj);
	assert_int_equal(d->minor, min);
	assert_string_equal(d->permissions, "rwm");
	assert_int_equal(d->file_mode, 0666);
}

static void check_mount(struct fixture *f, const struct sk_mount *m, const char *rel)
{
	cleanup_free char *p = xasprintf("%s/%s", f->dir, rel);

	assert_string_equal(m->host_path, p);
	assert_string_equal(m->container_path, p);
	assert_true(m->readonly);
	assert_false(m->tmpfs);
}

static void test_fake_table_labels(void **state)
{
	struct fixture *f = *state;
	sk_gpu *g = open_fake(f);
	cleanup_json json_t *cap = json_object(), *labels = json_object();

	sk_gpu_node_capacity(g, cap, NULL, labels);
	assert_false(sk_gpu_simulated(g));
	assert_string_equal(jstr(cap, "nvidia.com/gpu"), "2");
	assert_string_equal(jstr(labels, "nvidia.com/gpu.product"), "NVIDIA-H100-80GB-HBM3");
	assert_string_equal(jstr(labels, "nvidia.com/gpu.memory"), "81559");
	assert_string_equal(jstr(labels, "nvidia.com/cuda.driver.major"), "550");
	assert_string_equal(jstr(labels, "nvidia.com/cuda.driver.minor"), "54");
	assert_string_equal(jstr(labels, "nvidia.com/cuda.driver.rev"), "15");
	assert_string_equal(jstr(labels, "nvidia.com/cuda.runtime.major"), "12");
	assert_string_equal(jstr(labels, "nvidia.com/cuda.runtime.minor"), "4");
	/* GFD's newer names carry the same values, plus the full versions */
	assert_string_equal(jstr(labels, "nvidia.com/cuda.driver-version.major"), "550");
	assert_string_equal(jstr(labels, "nvidia.com/cuda.driver-version.minor"), "54");
	assert_string_equal(jstr(labels, "nvidia.com/cuda.driver-version.revision"), "15");
	assert_string_equal(jstr(labels, "nvidia.com/cuda.driver-version.full"), "550.54.15");
	assert_string_equal(jstr(labels, "nvidia.com/cuda.runtime-version.major"), "12");
	assert_string_equal(jstr(labels, "nvidia.com/cuda.runtime-version.minor"), "4");
	assert_string_equal(jstr(labels, "nvidia.com/cuda.runtime-version.full"), "12.4");
	assert_string_equal(jstr(labels, "nvidia.com/gpu.count"), "2");
	assert_string_equal(jstr(labels, "skiff.dev/gpu.device-support-version"), SK_GPU_SUPPORT_VERSION);
	assert_null(json_object_get(labels, "skiff.dev/gpu.simulated"));
	sk_gpu_close(g);
}

static bool has(json_t *arr, const char *s)
{
	size_t i;
	json_t *v;

	json_array_foreach(arr, i, v)
		if (json_is_string(v) && !strcmp(json_string_value(v), s))
			return true;
	return false;
}

static json_t *find_by(json_t *arr, const char *key, const char *val)
{
	size_t i;
	json_t *v;

	json_array_foreach(arr, i, v)
		if (jstr(v, key) && !strcmp(jstr(v, key), val))
			return v;
	return NULL;
}

/* The injection's pieces go through sk_oci_spec as the agent will pass them. */
static void check_spec(struct sk_gpu_injection *inj)
{
	static struct sk_sandbox sb = {
		.id = "sb1", .pod_name = "p", .pod_namespace = "default", .pod_uid = "u1", .hostname = "p",
		.ip = "10.42.0.7", .netns_path = "/run/n/netns", .ipc_path = "/run/n/ipc", .uts_path = "/run/n/uts",
		.dir = "/run/n/sb1", .hosts_path = "/run/n/sb1/hosts", .resolv_path = "/run/n/sb1/resolv.conf",
		.hostname_path = "/run/n/sb1/hostname", .shm_path = "/run/n/sb1/shm",
	};
	static const char *const args[] = {"nvidia-smi", "-L", NULL};
	struct sk_container_config c = {.id = "c1", .name = "main", .sandbox = &sb, .rootfs = "/rootfs", .args = args,
					.log_path = "/tmp/x.log"};
	sk_error_t err = {0};
	cleanup_json json_t *spec = NULL;
	json_t *dev, *m, *rules, *rule;
	size_t i;
	bool allowed = false;

	c.extra_env = (const char *const *)inj->env;
	c.devices = inj->devices;
	c.n_devices = inj->n_devices;
	c.mounts = inj->mounts;
	c.n_mounts = inj->n_mounts;
	spec = sk_oci_spec(&c, &err);
	if (!spec)
		fail_msg("spec: %s", err.msg);
	assert_false(json_is_true(json_object_get(json_object_get(spec, "process"), "privileged")));
	assert_true(has(json_object_get(json_object_get(spec, "process"), "env"),
			"NVIDIA_VISIBLE_DEVICES=GPU-aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee"));
	dev = find_by(json_object_get(json_object_get(spec, "linux"), "devices"), "path", "/dev/nvidia1");
	assert_non_null(dev);
	assert_int_equal(json_integer_value(json_object_get(dev, "major")), 195);
	assert_int_equal(json_integer_value(json_object_get(dev, "minor")), 1);
	assert_null(find_by(json_object_get(json_object_get(spec, "linux"), "devices"), "path", "/dev/nvidia0"));
	rules = json_object_get(json_object_get(json_object_get(spec, "linux"), "resources"), "devices");
	json_array_foreach(rules, i, rule)
		if (json_is_true(json_object_get(rule, "allow")) &&
		    json_integer_value(json_object_get(rule, "major")) == 195 &&
		    json_integer_value(json_object_get(rule, "minor")) == 1 && !strcmp(jstr(rule, "access"), "rwm"))
			allowed = true;
	assert_true(allowed);
	m = find_by(json_object_get(spec, "mounts"), "destination", "/etc/ld.so.conf.d/000-skiff-nvidia.conf");
	assert_non_null(m);
	assert_true(has(json_object_get(m, "options"), "ro"));
}

static void test_oci_injection(void **state)
{
	struct fixture *f = *state;
	sk_gpu *g = open_fake(f);
	sk_error_t err = {0};
	struct sk_gpu_injection inj;
	cleanup_free char *conf = NULL, *conf_path = xasprintf("%s/gpu/ld.so.conf", f->dir);
	cleanup_free char *libdir_line = xasprintf("\n%s/lib\n", f->dir);

	assert_int_equal(sk_gpu_allocate(g, "c0", "pod-a", "main", 1, &err), 0);
	assert_int_equal(sk_gpu_allocate(g, "c1", "pod-b", "main", 1, &err), 0);
	assert_int_equal(sk_gpu_inject(g, "c1", &inj, &err), 0);

	assert_int_equal(inj.n_devices, 4);   /* no nvidia-modeset on this fake host */
	check_device(&inj.devices[0], "/dev/nvidiactl", 195, 255);
	check_device(&inj.devices[1], "/dev/nvidia-uvm", 509, 0);
	check_device(&inj.devices[2], "/dev/nvidia-uvm-tools", 509, 1);
	check_device(&inj.devices[3], "/dev/nvidia1", 195, 1);

	assert_int_equal(inj.n_mounts, 8);
	check_mount(f, &inj.mounts[0], "lib/libcuda.so");
	check_mount(f, &inj.mounts[1], "lib/libcuda.so.1");
	check_mount(f, &inj.mounts[2], "lib/libcuda.so.550.54.15");
	check_mount(f, &inj.mounts[3], "lib/libnvidia-ml.so.1");
	check_mount(f, &inj.mounts[4], "lib/libnvidia-ml.so.550.54.15");
	check_mount(f, &inj.mounts[5], "lib/libnvidia-ptxjitcompiler.so.550.54.15");
	check_mount(f, &inj.mounts[6], "bin/nvidia-smi");
	assert_string_equal(inj.mounts[7].host_path, conf_path);
	assert_string_equal(inj.mounts[7].container_path, "/etc/ld.so.conf.d/000-skiff-nvidia.conf");
	assert_true(inj.mounts[7].readonly);
	conf = sk_read_file(conf_path, NULL);
	assert_non_null(conf);
	assert_non_null(strstr(conf, libdir_line));

	assert_string_equal(inj.env[0], "NVIDIA_VISIBLE_DEVICES=GPU-aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee");
	assert_string_equal(inj.env[1], "CUDA_VISIBLE_DEVICES=0");
	assert_string_equal(inj.env[2], "NVIDIA_DRIVER_CAPABILITIES=compute,utility");
	assert_null(inj.env[3]);
	check_spec(&inj);
	sk_gpu_injection_release(&inj);

	/* a device node that vanished is an error, not a silent CPU container */
	{
		cleanup_free char *n0 = xasprintf("%s/dev/nvidia0", f->dir);

		assert_int_equal(unlink(n0), 0);
		assert_int_equal(sk_gpu_inject(g, "c0", &inj, &err), -1);
		assert_non_null(strstr(err.msg, "nvidia0"));
		assert_null(inj.env);
	}
	sk_gpu_close(g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_simulated_discovery, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_nvml_no_gpus, setup, teardown),
		cmocka_unit_test_setup_teardown(test_exclusive_allocation, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_double_allocation_after_reload, setup, teardown),
		cmocka_unit_test_setup_teardown(test_release_and_reconcile, setup, teardown),
		cmocka_unit_test_setup_teardown(test_restart_keeps_devices_and_release_pod, setup, teardown),
		cmocka_unit_test_setup_teardown(test_time_slicing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_health_flip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_health_thread_reads_hook, setup, teardown),
		cmocka_unit_test(test_container_request),
		cmocka_unit_test(test_forget_stale),
		cmocka_unit_test_setup_teardown(test_lower_replicas_never_overcommits, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pod_annotation, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fake_table_labels, setup, teardown),
		cmocka_unit_test_setup_teardown(test_oci_injection, setup, teardown),
	};

	sk_log_level = SK_LOG_ERROR;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
