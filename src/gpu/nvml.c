/* NVML loaded at run time with dlopen, so skiff has no build dependency on
 * CUDA and a node without the driver simply has no GPUs. */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "gpu/gpu-int.h"
#include "util/util.h"

/* The few NVML types and constants used here, declared as nvml.h (the NVML
 * API reference, driver R450 and later) defines them; the prototypes are the
 * function pointer types in struct sk__nvml. */
typedef int nvmlReturn_t;
typedef struct nvmlDevice_st *nvmlDevice_t;
typedef struct nvmlEventSet_st *nvmlEventSet_t;
typedef struct {
	unsigned long long total, free, used;
} nvmlMemory_t;
typedef struct {
	unsigned int gpu, memory;
} nvmlUtilization_t;
typedef struct {
	nvmlDevice_t device;
	unsigned long long eventType;
	unsigned long long eventData; /* the XID for nvmlEventTypeXidCriticalError */
	unsigned int gpuInstanceId;
	unsigned int computeInstanceId;
} nvmlEventData_t;

enum {
	NVML_SUCCESS = 0,
	NVML_ERROR_TIMEOUT = 10,
	NVML_ERROR_GPU_IS_LOST = 15,
};
#define NVML_EVENT_XID_CRITICAL 0x8ULL
#define NVML_TEMPERATURE_GPU 0
#define NVML_BUF 96 /* NVML_DEVICE_UUID_V2_BUFFER_SIZE, NVML_DEVICE_NAME_V2_BUFFER_SIZE */

struct sk__nvml {
	void *dl;
	nvmlReturn_t (*init)(void);
	nvmlReturn_t (*shutdown)(void);
	const char *(*error_string)(nvmlReturn_t);
	nvmlReturn_t (*count)(unsigned int *);
	nvmlReturn_t (*handle_by_index)(unsigned int, nvmlDevice_t *);
	nvmlReturn_t (*uuid)(nvmlDevice_t, char *, unsigned int);
	nvmlReturn_t (*name)(nvmlDevice_t, char *, unsigned int);
	nvmlReturn_t (*memory)(nvmlDevice_t, nvmlMemory_t *);
	nvmlReturn_t (*minor)(nvmlDevice_t, unsigned int *);
	nvmlReturn_t (*mig_mode)(nvmlDevice_t, unsigned int *, unsigned int *);
	nvmlReturn_t (*driver_version)(char *, unsigned int);
	nvmlReturn_t (*cuda_version)(int *);
	nvmlReturn_t (*event_set_create)(nvmlEventSet_t *);
	nvmlReturn_t (*event_set_free)(nvmlEventSet_t);
	nvmlReturn_t (*supported_events)(nvmlDevice_t, unsigned long long *);
	nvmlReturn_t (*register_events)(nvmlDevice_t, unsigned long long, nvmlEventSet_t);
	nvmlReturn_t (*event_wait)(nvmlEventSet_t, nvmlEventData_t *, unsigned int);
	nvmlReturn_t (*utilization)(nvmlDevice_t, nvmlUtilization_t *);
	nvmlReturn_t (*temperature)(nvmlDevice_t, int, unsigned int *);
	nvmlReturn_t (*power)(nvmlDevice_t, unsigned int *);

	nvmlDevice_t *handles;
	size_t n;
	nvmlEventSet_t events;
	bool initialized;
};

static const char *nverr(struct sk__nvml *n, nvmlReturn_t r)
{
	return n->error_string ? n->error_string(r) : "unknown error";
}

#define SYM(field, name) \
	do { \
		*(void **)&n->field = dlsym(n->dl, name); \
		if (!n->field && required) \
			missing = name; \
	} while (0)

static const char *resolve(struct sk__nvml *n)
{
	const char *missing = NULL;
	bool required = true;

	SYM(init, "nvmlInit_v2");
	SYM(shutdown, "nvmlShutdown");
	SYM(count, "nvmlDeviceGetCount_v2");
	SYM(handle_by_index, "nvmlDeviceGetHandleByIndex_v2");
	SYM(uuid, "nvmlDeviceGetUUID");
	SYM(name, "nvmlDeviceGetName");
	SYM(memory, "nvmlDeviceGetMemoryInfo");
	SYM(minor, "nvmlDeviceGetMinorNumber");
	SYM(driver_version, "nvmlSystemGetDriverVersion");
	required = false;
	SYM(error_string, "nvmlErrorString");
	SYM(cuda_version, "nvmlSystemGetCudaDriverVersion_v2");
	SYM(mig_mode, "nvmlDeviceGetMigMode");
	SYM(event_set_create, "nvmlEventSetCreate");
	SYM(event_set_free, "nvmlEventSetFree");
	SYM(supported_events, "nvmlDeviceGetSupportedEventTypes");
	SYM(register_events, "nvmlDeviceRegisterEvents");
	SYM(event_wait, "nvmlEventSetWait_v2");
	SYM(utilization, "nvmlDeviceGetUtilizationRates");
	SYM(temperature, "nvmlDeviceGetTemperature");
	SYM(power, "nvmlDeviceGetPowerUsage");
	return missing;
}

static int fill_device(struct sk__nvml *n, unsigned i, struct sk_gpu_device *d, struct sk__gpu_table *t)
{
	nvmlMemory_t mem = {0};
	unsigned cur = 0, pending = 0;
	nvmlReturn_t r;

	if ((r = n->handle_by_index(i, &n->handles[i])) != NVML_SUCCESS ||
	    (r = n->uuid(n->handles[i], d->uuid, sizeof(d->uuid))) != NVML_SUCCESS ||
	    (r = n->minor(n->handles[i], &d->minor)) != NVML_SUCCESS) {
		sk_warn("gpu", "nvml: device %u: %s", i, nverr(n, r));
		return -1;
	}
	if (n->name(n->handles[i], d->product, sizeof(d->product)) != NVML_SUCCESS)
		snprintf(d->product, sizeof(d->product), "NVIDIA GPU");
	if (n->memory(n->handles[i], &mem) == NVML_SUCCESS)
		d->memory_mib = mem.total / (1024 * 1024);
	if (n->mig_mode && n->mig_mode(n->handles[i], &cur, &pending) == NVML_SUCCESS) {
		d->mig_enabled = cur == 1;
		t->mig_capable = true;
	}
	d->index = i;
	d->healthy = true;
	return 0;
}

static void discover(struct sk__nvml *n, struct sk__gpu_table *t)
{
	unsigned count = 0, i;
	nvmlReturn_t r;

	if ((r = n->count(&count)) != NVML_SUCCESS) {
		sk_warn("gpu", "nvml: device count: %s", nverr(n, r));
		return;
	}
	n->handles = xzalloc((count ? count : 1) * sizeof(*n->handles));
	t->devs = xzalloc((count ? count : 1) * sizeof(*t->devs));
	for (i = 0; i < count; i++) {
		struct sk_gpu_device *d = &t->devs[t->n];

		if (fill_device(n, i, d, t) == 0)
			n->handles[t->n++] = n->handles[i];
	}
	n->n = t->n;
	if (n->driver_version(t->driver_version, sizeof(t->driver_version)) != NVML_SUCCESS)
		snprintf(t->driver_version, sizeof(t->driver_version), "unknown");
	if (!n->cuda_version || n->cuda_version(&t->cuda_version) != NVML_SUCCESS)
		t->cuda_version = 0;
}

struct sk__nvml *sk__nvml_open(const char *lib, struct sk__gpu_table *t)
{
	struct sk__nvml *n = xzalloc(sizeof(*n));
	const char *missing;
	nvmlReturn_t r;

	n->dl = dlopen(lib ? lib : "libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!n->dl) {
		sk_debug("gpu", "no NVML (%s): no GPUs", dlerror());
		goto fail;
	}
	if ((missing = resolve(n))) {
		sk_warn("gpu", "nvml: %s missing: no GPUs", missing);
		goto fail;
	}
	if ((r = n->init()) != NVML_SUCCESS) {
		sk_warn("gpu", "nvml: init: %s: no GPUs", nverr(n, r));
		goto fail;
	}
	n->initialized = true;
	discover(n, t);
	if (t->n == 0)
		goto fail;
	sk_info("gpu", "nvml: %zu GPU(s), driver %s, CUDA %d.%d", t->n, t->driver_version, t->cuda_version / 1000,
		t->cuda_version % 1000 / 10);
	return n;
fail:
	sk__nvml_close(n);
	return NULL;
}

void sk__nvml_close(struct sk__nvml *n)
{
	if (!n)
		return;
	if (n->events && n->event_set_free)
		n->event_set_free(n->events);
	if (n->initialized)
		n->shutdown();
	if (n->dl)
		dlclose(n->dl);
	free(n->handles);
	free(n);
}

int sk__nvml_events_start(struct sk__nvml *n)
{
	size_t i, registered = 0;

	if (!n->event_set_create || !n->register_events || !n->event_wait || !n->event_set_free)
		return -1;
	if (n->event_set_create(&n->events) != NVML_SUCCESS) {
		n->events = NULL;
		return -1;
	}
	for (i = 0; i < n->n; i++) {
		unsigned long long supported = NVML_EVENT_XID_CRITICAL;
		nvmlReturn_t r;

		if (n->supported_events && n->supported_events(n->handles[i], &supported) != NVML_SUCCESS)
			supported = 0;
		if (!(supported & NVML_EVENT_XID_CRITICAL)) {
			sk_warn("gpu", "nvml: device %zu does not report XID events; health not watched", i);
			continue;
		}
		if ((r = n->register_events(n->handles[i], NVML_EVENT_XID_CRITICAL, n->events)) != NVML_SUCCESS)
			sk_warn("gpu", "nvml: device %zu: register XID events: %s", i, nverr(n, r));
		else
			registered++;
	}
	return registered ? 0 : -1;
}

int sk__nvml_wait(struct sk__nvml *n, unsigned timeout_ms, int *index, unsigned *xid)
{
	nvmlEventData_t e;
	nvmlReturn_t r;
	size_t i;

	*index = -1;
	*xid = 0;
	memset(&e, 0, sizeof(e));
	r = n->event_wait(n->events, &e, timeout_ms);
	if (r == NVML_ERROR_TIMEOUT)
		return 0;
	if (r != NVML_SUCCESS) {
		if (r == NVML_ERROR_GPU_IS_LOST)
			return -1;
		sk_warn("gpu", "nvml: event wait: %s", nverr(n, r));
		return -2;
	}
	if (e.eventType != NVML_EVENT_XID_CRITICAL)
		return 0;
	*xid = (unsigned)e.eventData;
	for (i = 0; i < n->n; i++)
		if (n->handles[i] == e.device)
			*index = (int)i;
	return 1;
}

bool sk__nvml_probe(struct sk__nvml *n, unsigned index)
{
	nvmlMemory_t mem;

	return index < n->n && n->memory(n->handles[index], &mem) == NVML_SUCCESS;
}

int sk__nvml_sample(struct sk__nvml *n, size_t index, struct sk_gpu_sample *s)
{
	nvmlDevice_t h;
	nvmlUtilization_t u;
	nvmlMemory_t mem;
	unsigned v;

	if (index >= n->n)
		return -1;
	h = n->handles[index];
	if (n->utilization && n->utilization(h, &u) == NVML_SUCCESS) {
		s->has_util = true;
		s->util_pct = u.gpu;
		s->mem_util_pct = u.memory;
	}
	if (n->temperature && n->temperature(h, NVML_TEMPERATURE_GPU, &v) == NVML_SUCCESS) {
		s->has_temp = true;
		s->temp_c = v;
	}
	if (n->power && n->power(h, &v) == NVML_SUCCESS) { /* milliwatts */
		s->has_power = true;
		s->power_w = v / 1000.0;
	}
	if (n->memory(h, &mem) == NVML_SUCCESS) {
		s->has_mem = true;
		s->fb_used_mib = mem.used / (1024 * 1024);
		s->fb_free_mib = mem.free / (1024 * 1024);
	}
	return 0;
}
