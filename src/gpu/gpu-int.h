/* Private to src/gpu: the handle, the device table and NVML. */
#ifndef SK_GPU_GPU_INT_H
#define SK_GPU_GPU_INT_H

#include <pthread.h>

#include "gpu/gpu.h"

/* A device table: what discovery found. Same shape for NVML, simulated and
 * caller-given devices. */
struct sk__gpu_table {
	struct sk_gpu_device *devs;
	size_t n;
	char driver_version[80]; /* "550.54.15", "sim" */
	int cuda_version;        /* 12040 = 12.4; 0: unknown */
	bool simulated;
	bool mig_capable;
};

/* One slot held by an allocation: a device and, time-sliced, a replica. */
struct sk__gpu_slot {
	char *uuid;
	int replica;
};

struct sk__gpu_alloc {
	char *container_id;
	char *pod_uid;
	char *container;
	struct sk__gpu_slot *slots;
	size_t n_slots;
};

struct sk__nvml;

struct sk_gpu {
	pthread_mutex_t mu;
	char *node_name;
	char *dir;        /* <data_dir>/gpu */
	char *state_path; /* <dir>/allocations.json */
	char *dev_dir;
	char **lib_dirs, **bin_dirs; /* NULL-terminated, owned; NULL: defaults */
	int replicas;
	int quiet_period_s;
	sk_gpu_health_cb on_health;
	void *ud;

	struct sk__gpu_table t;
	int64_t *last_xid_ns; /* per device, monotonic; 0: none */
	struct sk__gpu_alloc *allocs;
	size_t n_allocs;

	struct sk__nvml *nvml; /* NULL unless devices came from NVML */
	pthread_t health;
	bool health_running;
	bool stop;
	pthread_cond_t stop_cv;
};

/* NVML (nvml.c). Opens the library and fills t; NULL when there is no
 * library, no driver or no device (t left empty). */
struct sk__nvml *sk__nvml_open(const char *lib, struct sk__gpu_table *t);
void sk__nvml_close(struct sk__nvml *n);
/* Registers for XID events. -1 when events are unsupported. */
int sk__nvml_events_start(struct sk__nvml *n);
/* Waits up to timeout_ms for a critical XID. Returns 1 with *index (table
 * position, or -1 for all devices) and *xid, 0 on timeout or another event,
 * -1 when a GPU was lost (which one is unknown), -2 on another error. */
int sk__nvml_wait(struct sk__nvml *n, unsigned timeout_ms, int *index, unsigned *xid);
/* Whether device index answers NVML queries. */
bool sk__nvml_probe(struct sk__nvml *n, unsigned index);
/* Reads device index's utilisation, temperature, power and memory use into
 * s (whichever the driver answers). -1 when index is out of range. */
int sk__nvml_sample(struct sk__nvml *n, size_t index, struct sk_gpu_sample *s);

/* Allocations (alloc.c); the caller holds g->mu. */
int sk__gpu_state_load(struct sk_gpu *g, sk_error_t *err);
void sk__gpu_allocs_free(struct sk_gpu *g);
struct sk__gpu_alloc *sk__gpu_alloc_find(struct sk_gpu *g, const char *container_id);
int sk__gpu_device_find(struct sk_gpu *g, const char *uuid);

/* Health (health.c). */
int sk__gpu_health_start(struct sk_gpu *g, sk_error_t *err);
void sk__gpu_health_stop(struct sk_gpu *g);

#endif
