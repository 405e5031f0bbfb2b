/* NVIDIA GPUs for the node agent: discovery, node capacity and labels,
 * exclusive (or time-sliced) allocation to containers, injection into the
 * OCI config, and health.
 *
 * Devices come from a device table filled by one of three sources: NVML
 * (libnvidia-ml.so.1 loaded with dlopen at run time; a node without it
 * simply has no GPUs), N simulated devices (`--simulate-gpus N`), or a
 * table given by the caller (tests). Everything above the table is the same
 * code for all three.
 *
 * State on disk under <data_dir>/gpu/: allocations.json (the devices each
 * live container holds, rewritten atomically on every change, so a restarted
 * agent never hands a device out twice), ld.so.conf (the driver library
 * directories, bind-mounted into GPU containers) and the test hook
 * inject-xid (see sk_gpu_health_check).
 *
 * Thread safety: all functions may be called from any thread; the health
 * callback runs on the module's health thread without internal locks held.
 * See docs/GPU.md for the behaviour and the agent wiring. */
#ifndef SK_GPU_GPU_H
#define SK_GPU_GPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "runtime/oci.h"
#include "util/error.h"

#define SK_GPU_RESOURCE "nvidia.com/gpu"
/* Pod annotation the agent sets: {"<container name>": ["GPU-…", …]}. */
#define SK_GPU_ANNOTATION "skiff.dev/gpu-devices"
#define SK_GPU_SIMULATED_LABEL "skiff.dev/gpu.simulated"
/* Node label with the version of skiff's device support (this module's
 * discovery, allocation, injection and health behaviour): bumped whenever
 * what a GPU container gets changes, so a pool mid-upgrade shows which nodes
 * run which (`kubectl get nodes -L skiff.dev/gpu.device-support-version`). */
#define SK_GPU_SUPPORT_VERSION_LABEL "skiff.dev/gpu.device-support-version"
#define SK_GPU_SUPPORT_VERSION "1"

struct sk_gpu_device {
	char uuid[96];
	char product[96];
	unsigned index; /* NVML index */
	unsigned minor; /* /dev/nvidia<minor> */
	uint64_t memory_mib;
	bool mig_enabled;
	bool healthy;
	char reason[192]; /* why unhealthy ("" when healthy) */
};

typedef struct sk_gpu sk_gpu;

/* Called on the health thread when a device turns unhealthy or healthy;
 * reason says why ("XID 79 (GPU has fallen off the bus)", "no critical XID
 * for 300s"). d is valid for the call. */
typedef void (*sk_gpu_health_cb)(const struct sk_gpu_device *d, bool healthy, const char *reason, void *ud);

typedef struct sk_gpu_options {
	const char *node_name;               /* required: simulated UUIDs GPU-sim-<node>-<i> */
	const char *data_dir;                /* required: the agent's data dir; state in <data_dir>/gpu/ */
	int simulate;                        /* N > 0: N simulated devices instead of NVML */
	int replicas;                        /* time-slicing: each device counts as R; <= 1: exclusive */
	int quiet_period_s;                  /* unhealthy → healthy after this long without a critical
					      * XID if the device answers; 0: 300; < 0: never */
	const char *dev_dir;                 /* host device nodes; NULL: "/dev" (tests: a temp dir) */
	const char *const *lib_dirs;         /* driver library dirs, NULL-terminated; NULL: `ldconfig -p`
					      * plus the usual dirs */
	const char *const *bin_dirs;         /* driver tool dirs; NULL: /usr/bin, /usr/local/bin, /bin,
					      * /usr/sbin */
	const char *nvml_lib;                /* NULL: "libnvidia-ml.so.1" */
	const struct sk_gpu_device *devices; /* tests: a fixed table (n_devices > 0) instead */
	size_t n_devices;
	const char *driver_version; /* with `devices`: e.g. "550.54.15"; NULL: "sim" */
	int cuda_version;           /* with `devices`: e.g. 12040 */
	bool no_health_thread;      /* tests: call sk_gpu_health_check() instead */
	sk_gpu_health_cb on_health;
	void *ud;
} sk_gpu_options;

/* Discovers the devices, loads the allocations and starts the health
 * thread. A node without NVML or GPUs gets a handle with no devices. NULL
 * with err only for bad options or an unreadable allocations file. Free
 * with sk_gpu_close. */
sk_gpu *sk_gpu_open(const sk_gpu_options *o, sk_error_t *err);
/* Stops the health thread and frees everything; allocations stay on disk. */
void sk_gpu_close(sk_gpu *g);

/* A copy of the device table (caller frees *out); returns the count. */
size_t sk_gpu_devices(sk_gpu *g, struct sk_gpu_device **out);

/* One device's live readings from NVML (what dcgm-exporter reports as
 * DCGM_FI_DEV_GPU_UTIL, _MEM_COPY_UTIL, _GPU_TEMP, _POWER_USAGE, _FB_USED
 * and _FB_FREE); each has_ flag says whether the driver answered that
 * query. */
typedef struct sk_gpu_sample {
	bool has_util, has_temp, has_power, has_mem;
	unsigned util_pct;     /* percent of the last sample period a kernel ran */
	unsigned mem_util_pct; /* percent of it device memory was read or written */
	unsigned temp_c;
	double power_w;
	uint64_t fb_used_mib, fb_free_mib;
} sk_gpu_sample;

/* Samples device i of sk_gpu_devices' list. -1 (and *s all false) when
 * the devices are simulated or i is out of range. */
int sk_gpu_sample_device(sk_gpu *g, size_t i, sk_gpu_sample *s);
bool sk_gpu_simulated(sk_gpu *g);

/* Adds nvidia.com/gpu to capacity (devices × replicas) and allocatable
 * (healthy devices × replicas) as strings, and the node labels
 * (nvidia.com/gpu.present, .product, .memory, .count, .replicas,
 * cuda.driver.*, cuda.runtime.*, skiff.dev/gpu.simulated …). Any argument
 * may be NULL; nothing is added on a node without devices. */
void sk_gpu_node_capacity(sk_gpu *g, json_t *capacity, json_t *allocatable, json_t *labels);

/* For merge patches of the Node: sets to null every key of old (the node's
 * current labels, capacity or allocatable) that this module owns
 * ("nvidia.com/…", "skiff.dev/gpu.…") and now lacks, so devices and labels
 * that went away (driver removed, fewer simulated GPUs) are removed. */
void sk_gpu_node_forget_stale(json_t *old, json_t *now);

/* The nvidia.com/gpu count a container asks for, from its spec (the
 * Kubernetes container object): limits, or requests when limits lack it.
 * 0 when none; -1 with err when not a whole number, negative, or requests
 * differ from limits (extended resources cannot be overcommitted). */
int64_t sk_gpu_container_request(json_t *container, sk_error_t *err);

/* Gives container_id n devices (healthy ones only, never one held by
 * another container unless time-sliced) and persists it before returning.
 * Idempotent: a container that already holds devices keeps them (n must
 * match). A new attempt of a container (same pod_uid and container_name,
 * new id) takes over the devices of the earlier attempt, as kubelet keeps a
 * restarted container on its devices. -1 with err SK_EUNAVAILABLE and
 * kubelet's message ("Allocate failed due to requested number of devices
 * unavailable for nvidia.com/gpu. Requested: 1, Available: 0, which is
 * unexpected") when not enough devices are free. */
int sk_gpu_allocate(sk_gpu *g, const char *container_id, const char *pod_uid, const char *container_name, int64_t n,
		    sk_error_t *err);
/* Frees what container_id holds. 1 when it held devices, 0 when not, -1 when
 * the state could not be written (the devices are freed in memory anyway). */
int sk_gpu_release(sk_gpu *g, const char *container_id, sk_error_t *err);
/* Frees what every container of pod_uid holds (the pod reached Succeeded
 * or Failed, or was deleted). Returns how many were freed or -1. */
int sk_gpu_release_pod(sk_gpu *g, const char *pod_uid, sk_error_t *err);
/* Frees the allocations of every container not in live_ids (NULL-terminated;
 * NULL means none is live). Returns how many were freed or -1. */
int sk_gpu_reconcile(sk_gpu *g, const char *const *live_ids, sk_error_t *err);

/* The UUIDs container_id holds as a JSON array (new reference), NULL when it
 * holds none. */
json_t *sk_gpu_container_devices(sk_gpu *g, const char *container_id);
/* {"<container name>": ["GPU-…"]} for every container of pod_uid that holds
 * devices (new reference; an empty object when none). */
json_t *sk_gpu_pod_devices(sk_gpu *g, const char *pod_uid);
/* The same as a compact JSON string for the SK_GPU_ANNOTATION annotation;
 * caller frees. NULL when the pod holds no devices. */
char *sk_gpu_pod_annotation(sk_gpu *g, const char *pod_uid);

/* What a GPU container adds to its sk_container_config. Arrays are owned by
 * the struct; free with sk_gpu_injection_release. */
struct sk_gpu_injection {
	struct sk_device *devices; /* /dev/nvidiactl, -uvm, -uvm-tools, -modeset, /dev/nvidiaN */
	size_t n_devices;
	struct sk_mount *mounts; /* driver libraries and tools (read-only, same paths) and
				  * /etc/ld.so.conf.d/000-skiff-nvidia.conf */
	size_t n_mounts;
	char **env; /* "K=V", NULL-terminated: NVIDIA_VISIBLE_DEVICES,
		     * CUDA_VISIBLE_DEVICES, NVIDIA_DRIVER_CAPABILITIES */
};

/* Fills inj for container_id from its allocation: nothing (all zero, env
 * NULL) when it holds no devices, only env for simulated devices. -1 with
 * err when a required device node (/dev/nvidiactl, /dev/nvidiaN) is missing. */
int sk_gpu_inject(sk_gpu *g, const char *container_id, struct sk_gpu_injection *inj, sk_error_t *err);
void sk_gpu_injection_release(struct sk_gpu_injection *inj);

/* Test hook and health step. Marks dev (a UUID or an index) as having had
 * XID xid, as an NVML event would: application XIDs (13, 31, 43, 45, 68)
 * are ignored, others make the device unhealthy. Returns 1 when the device
 * changed health, 0 when not, -1 for an unknown device. The callback runs. */
int sk_gpu_inject_xid(sk_gpu *g, const char *dev, unsigned xid);
/* One pass of the health thread: reads and removes <data_dir>/gpu/inject-xid
 * (lines "<uuid|index> <xid>", or "<uuid|index> ok" to recover at once) and
 * turns devices healthy again after the quiet period. */
void sk_gpu_health_check(sk_gpu *g);
/* Whether NVML reports XID as an application error (not a device fault). */
bool sk_gpu_xid_is_application(unsigned xid);

#endif
