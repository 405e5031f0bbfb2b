/* The node agent's metrics (upstream's pkg/kubelet/metrics), served as
 * /metrics on the agent's HTTPS port: image pulls, pod start latency,
 * sandbox and runtime operations, running pods and containers, each
 * container's restarts and last termination reason, image garbage
 * collection and the image and container filesystems. The per-pod series
 * are rebuilt from the pods' statuses at each scrape, so a deleted pod's
 * series go with it. Each agent has its own registry (several can share a
 * process: the server's embedded one, tests). */
#include <string.h>
#include <sys/statvfs.h>

#include "agent/agent-int.h"
#include "util/metrics.h"
#include "util/util.h"

/* upstream's imagePullDurationBuckets and podStartupDurationBuckets */
static const double pull_buckets[] = {0.5, 1, 5, 10, 20, 30, 60, 120, 300, 600, 900, 1200, 1800, 2700, 3600};
static const double start_buckets[] = {0.5, 1,   2,   3,   4,   5,   6,   8,   10,   20,   30,   45,  60,
				       120, 180, 240, 300, 360, 480, 600, 900, 1200, 1800, 2700, 3600};

struct sk_ag_metrics {
	sk_metrics *reg;
	sk_metric_family *pull_duration, *pulled_bytes, *pod_start, *sandbox_duration, *sandbox_errors, *ops,
		*op_errors, *running_pods, *running_containers, *restarts, *last_reason, *gc_runs, *gc_images,
		*gc_bytes, *fs_capacity, *fs_available, *fs_inodes, *fs_inodes_free, *gpu_fb_total, *gpu_xid,
		*gpu_healthy, *gpu_util, *gpu_mem_util, *gpu_temp, *gpu_power, *gpu_fb_used, *gpu_fb_free;
};

static sk_metric_family *fam(sk_metrics *r, sk_metric_type t, const char *name, const char *help, const char *unit,
			     const char *const *labels)
{
	return sk_metrics_family(r, t, name, help, unit, labels, NULL, 0);
}

static void collect(void *arg);

void sk__ag_metrics_init(struct sk_agent *a)
{
	static const char *const size_l[] = {"image_size_in_bytes", NULL};
	static const char *const handler_l[] = {"runtime_handler", NULL};
	static const char *const op_l[] = {"operation_type", NULL};
	static const char *const state_l[] = {"container_state", NULL};
	static const char *const ctr_l[] = {"namespace", "pod", "container", NULL};
	static const char *const reason_l[] = {"namespace", "pod", "container", "reason", NULL};
	static const char *const gc_l[] = {"reason", NULL};
	static const char *const fs_l[] = {"filesystem", NULL};
	struct sk_ag_metrics *m = xzalloc(sizeof(*m));
	sk_metrics *r = sk_metrics_new();

	m->reg = r;
	m->pull_duration = sk_metrics_family(r, SK_METRIC_HISTOGRAM, "kubelet_image_pull_duration_seconds",
					     "[ALPHA] Duration in seconds to pull an image.", "seconds", size_l,
					     pull_buckets, sizeof(pull_buckets) / sizeof(double));
	m->pulled_bytes = fam(r, SK_METRIC_COUNTER, "skiff_kubelet_image_pulled_bytes_total",
			      "Bytes downloaded from registries by image pulls.", "bytes", NULL);
	m->pod_start = sk_metrics_family(
		r, SK_METRIC_HISTOGRAM, "kubelet_pod_start_sli_duration_seconds",
		"[ALPHA] Duration in seconds to start a pod, excluding time to pull images "
		"and run init containers, measured from pod creation timestamp to when all its "
		"containers are reported as started and observed via watch",
		"seconds", NULL, start_buckets, sizeof(start_buckets) / sizeof(double));
	m->sandbox_duration = sk_metrics_family(r, SK_METRIC_HISTOGRAM, "kubelet_run_podsandbox_duration_seconds",
						"[ALPHA] Duration in seconds of the run_podsandbox operations. Broken "
						"down by RuntimeClass.Handler.",
						"seconds", handler_l, sk_metric_buckets_default,
						sk_metric_buckets_default_n);
	m->sandbox_errors = fam(r, SK_METRIC_COUNTER, "kubelet_run_podsandbox_errors_total",
				"[ALPHA] Cumulative number of the run_podsandbox operation errors by "
				"RuntimeClass.Handler.",
				NULL, handler_l);
	m->ops = fam(r, SK_METRIC_COUNTER, "kubelet_runtime_operations_total",
		     "[ALPHA] Cumulative number of runtime operations by operation type.", NULL, op_l);
	m->op_errors = fam(r, SK_METRIC_COUNTER, "kubelet_runtime_operations_errors_total",
			   "[ALPHA] Cumulative number of runtime operation errors by operation type.", NULL, op_l);
	m->running_pods = fam(r, SK_METRIC_GAUGE, "kubelet_running_pods",
			      "[ALPHA] Number of pods that have a running pod sandbox", NULL, NULL);
	m->running_containers = fam(r, SK_METRIC_GAUGE, "kubelet_running_containers",
				    "[ALPHA] Number of containers currently running", NULL, state_l);
	m->restarts = fam(r, SK_METRIC_COUNTER, "skiff_kubelet_container_restarts_total",
			  "The number of container restarts per container (kube-state-metrics' "
			  "kube_pod_container_status_restarts_total).",
			  NULL, ctr_l);
	m->last_reason = fam(r, SK_METRIC_GAUGE, "skiff_kubelet_container_last_terminated_reason",
			     "Describes the last reason the container was in terminated state (kube-state-metrics' "
			     "kube_pod_container_status_last_terminated_reason).",
			     NULL, reason_l);
	m->gc_runs = fam(r, SK_METRIC_COUNTER, "skiff_kubelet_image_gc_runs_total",
			 "Image garbage collections run because the image filesystem passed its high threshold.", NULL,
			 NULL);
	m->gc_images = fam(r, SK_METRIC_COUNTER, "kubelet_image_garbage_collected_total",
			   "[ALPHA] Total number of images garbage collected by the kubelet, whether through disk "
			   "usage or image age.",
			   NULL, gc_l);
	m->gc_bytes = fam(r, SK_METRIC_COUNTER, "skiff_kubelet_image_gc_freed_bytes_total",
			  "Bytes freed by image garbage collection.", "bytes", NULL);
	m->fs_capacity = fam(r, SK_METRIC_GAUGE, "skiff_kubelet_filesystem_capacity_bytes",
			     "Capacity of the node's image and container filesystems.", "bytes", fs_l);
	m->fs_available = fam(r, SK_METRIC_GAUGE, "skiff_kubelet_filesystem_available_bytes",
			      "Bytes available to the agent on the image and container filesystems.", "bytes", fs_l);
	m->fs_inodes = fam(r, SK_METRIC_GAUGE, "skiff_kubelet_filesystem_inodes",
			   "Inodes of the image and container filesystems.", NULL, fs_l);
	m->fs_inodes_free = fam(r, SK_METRIC_GAUGE, "skiff_kubelet_filesystem_inodes_free",
				"Free inodes of the image and container filesystems.", NULL, fs_l);
	{
		static const char *const gpu_l[] = {"gpu",       "UUID",      "device", "modelName", "Hostname",
						    "container", "namespace", "pod",    NULL};

		/* dcgm-exporter's names and labels (Kubernetes mode: the pod holding the device) */
		m->gpu_fb_total = fam(r, SK_METRIC_GAUGE, "DCGM_FI_DEV_FB_TOTAL",
				      "Total Frame Buffer of the GPU in MB.", NULL, gpu_l);
		m->gpu_xid = fam(r, SK_METRIC_GAUGE, "DCGM_FI_DEV_XID_ERRORS",
				 "Value of the last XID error encountered.", NULL, gpu_l);
		m->gpu_healthy = fam(r, SK_METRIC_GAUGE, "skiff_gpu_device_healthy",
				     "1 when the device is healthy (no critical XID), else 0.", NULL, gpu_l);
		m->gpu_util = fam(r, SK_METRIC_GAUGE, "DCGM_FI_DEV_GPU_UTIL", "GPU utilization (in %).", NULL, gpu_l);
		m->gpu_mem_util = fam(r, SK_METRIC_GAUGE, "DCGM_FI_DEV_MEM_COPY_UTIL", "Memory utilization (in %).",
				      NULL, gpu_l);
		m->gpu_temp = fam(r, SK_METRIC_GAUGE, "DCGM_FI_DEV_GPU_TEMP", "GPU temperature (in C).", NULL, gpu_l);
		m->gpu_power = fam(r, SK_METRIC_GAUGE, "DCGM_FI_DEV_POWER_USAGE", "Power draw (in W).", NULL, gpu_l);
		m->gpu_fb_used = fam(r, SK_METRIC_GAUGE, "DCGM_FI_DEV_FB_USED", "Framebuffer memory used (in MiB).",
				     NULL, gpu_l);
		m->gpu_fb_free = fam(r, SK_METRIC_GAUGE, "DCGM_FI_DEV_FB_FREE", "Framebuffer memory free (in MiB).",
				     NULL, gpu_l);
	}
	sk_metrics_register_process(r);
	a->metrics = m;
	sk_metrics_add_collector(r, collect, a);
}

void sk__ag_metrics_free(struct sk_agent *a)
{
	if (!a->metrics)
		return;
	sk_metrics_free(a->metrics->reg);
	free(a->metrics);
	a->metrics = NULL;
}

/* upstream's getImageSizeBucket */
static const char *size_bucket(int64_t size)
{
	static const struct {
		int64_t max;
		const char *name;
	} b[] = {{10LL << 20, "0-10MB"},   {100LL << 20, "10MB-100MB"}, {500LL << 20, "100MB-500MB"},
		 {1LL << 30, "500MB-1GB"}, {5LL << 30, "1GB-5GB"},      {10LL << 30, "5GB-10GB"}};

	for (size_t i = 0; i < sizeof(b) / sizeof(b[0]); i++)
		if (size < b[i].max)
			return b[i].name;
	return "10GB+";
}

void sk__ag_metrics_pull(struct sk_agent *a, int64_t ns, int64_t size, int64_t fetched, bool ok)
{
	struct sk_ag_metrics *m = a->metrics;
	const char *op = "pull_image";

	if (!m)
		return;
	sk_metric_add(m->ops, &op, 1);
	if (!ok) {
		sk_metric_add(m->op_errors, &op, 1);
		return;
	}
	{
		const char *v[] = {size_bucket(size)};

		sk_metric_observe(m->pull_duration, v, (double)ns / 1e9);
	}
	/* layers already in the store are not fetched again: 0 is a value too */
	sk_metric_add(m->pulled_bytes, NULL, fetched > 0 ? (double)fetched : 0);
}

void sk__ag_metrics_sandbox(struct sk_agent *a, const char *handler, int64_t ns, bool ok)
{
	struct sk_ag_metrics *m = a->metrics;
	const char *h[] = {handler ? handler : ""}, *op = "run_podsandbox";

	if (!m)
		return;
	sk_metric_add(m->ops, &op, 1);
	sk_metric_observe(m->sandbox_duration, h, (double)ns / 1e9);
	if (!ok) {
		sk_metric_add(m->sandbox_errors, h, 1);
		sk_metric_add(m->op_errors, &op, 1);
	}
}

void sk__ag_metrics_op(struct sk_agent *a, const char *op, bool ok)
{
	struct sk_ag_metrics *m = a->metrics;

	if (!m)
		return;
	sk_metric_add(m->ops, &op, 1);
	if (!ok)
		sk_metric_add(m->op_errors, &op, 1);
}

void sk__ag_metrics_pod_started(struct sk_agent *a, double seconds)
{
	if (a->metrics && seconds >= 0)
		sk_metric_observe(a->metrics->pod_start, NULL, seconds);
}

void sk__ag_metrics_image_gc(struct sk_agent *a, const sk_gc_result *r)
{
	struct sk_ag_metrics *m = a->metrics;

	if (!m)
		return;
	sk_metric_add(m->gc_runs, NULL, 1);
	sk_metric_add(m->gc_images, (const char *[]){"space"}, r->images_removed);
	sk_metric_add(m->gc_bytes, NULL, (double)r->bytes_freed);
}

static void fs_stats(struct sk_ag_metrics *m, const char *which, const char *path)
{
	struct statvfs st;

	if (!path || statvfs(path, &st) < 0)
		return;
	sk_metric_set1(m->fs_capacity, which, (double)st.f_blocks * (double)st.f_frsize);
	sk_metric_set1(m->fs_available, which, (double)st.f_bavail * (double)st.f_frsize);
	sk_metric_set1(m->fs_inodes, which, (double)st.f_files);
	sk_metric_set1(m->fs_inodes_free, which, (double)st.f_ffree);
}

/* One container status of a pod: its state, restarts, last reason. */
static void collect_container(struct sk_ag_metrics *m, const char *ns, const char *pod, json_t *cs, size_t *running,
			      size_t *exited)
{
	const char *name = sk_kube_jstr(cs, "name");
	const char *reason = sk_kube_jstr(cs, "lastState.terminated.reason");
	const char *v[] = {ns, pod, name ? name : "", reason};

	if (sk_kube_jget(cs, "state.running"))
		(*running)++;
	else if (sk_kube_jget(cs, "state.terminated") || reason)
		(*exited)++;
	sk_metric_set(m->restarts, v, (double)json_integer_value(json_object_get(cs, "restartCount")));
	if (reason)
		sk_metric_set(m->last_reason, v, 1);
}

void sk__ag_metrics_set_gpus(struct sk_agent *a, const struct sk_gpu_device *devs, const sk_gpu_sample *samples,
			     size_t n, json_t *owners)
{
	struct sk_ag_metrics *m = a->metrics;
	sk_metric_family *const all[] = {m->gpu_fb_total, m->gpu_xid,   m->gpu_healthy, m->gpu_util,   m->gpu_mem_util,
					 m->gpu_temp,     m->gpu_power, m->gpu_fb_used, m->gpu_fb_free};

	for (size_t f = 0; f < sizeof(all) / sizeof(all[0]); f++)
		sk_metric_clear(all[f]);
	for (size_t i = 0; i < n; i++) {
		const struct sk_gpu_device *d = &devs[i];
		const sk_gpu_sample *sm = samples ? &samples[i] : NULL;
		json_t *o = json_object_get(owners, d->uuid);
		char gpu[16], dev[32];
		unsigned xid = 0;
		const char *v[] = {gpu,
				   d->uuid,
				   dev,
				   d->product,
				   a->node_name ? a->node_name : "",
				   sk_kube_jstr(o, "container") ?: "",
				   sk_kube_jstr(o, "namespace") ?: "",
				   sk_kube_jstr(o, "pod") ?: ""};

		snprintf(gpu, sizeof(gpu), "%u", d->index);
		snprintf(dev, sizeof(dev), "nvidia%u", d->minor);
		if (!d->healthy && sscanf(d->reason, "XID %u", &xid) != 1)
			xid = 0;
		sk_metric_set(m->gpu_fb_total, v, (double)d->memory_mib);
		sk_metric_set(m->gpu_xid, v, xid);
		sk_metric_set(m->gpu_healthy, v, d->healthy ? 1 : 0);
		if (!sm)
			continue;
		if (sm->has_util) {
			sk_metric_set(m->gpu_util, v, sm->util_pct);
			sk_metric_set(m->gpu_mem_util, v, sm->mem_util_pct);
		}
		if (sm->has_temp)
			sk_metric_set(m->gpu_temp, v, sm->temp_c);
		if (sm->has_power)
			sk_metric_set(m->gpu_power, v, sm->power_w);
		if (sm->has_mem) {
			sk_metric_set(m->gpu_fb_used, v, (double)sm->fb_used_mib);
			sk_metric_set(m->gpu_fb_free, v, (double)sm->fb_free_mib);
		}
	}
}

/* {"GPU-…": {"namespace", "pod", "container"}} of the devices the pods hold
 * (a->mu held). */
static void gpu_owners(struct sk_agent *a, struct apod *p, json_t *owners)
{
	cleanup_json json_t *held = sk_gpu_pod_devices(a->gpu, p->uid);
	const char *ctr;
	json_t *uuids;

	json_object_foreach(held, ctr, uuids) {
		json_t *u;
		size_t i;

		json_array_foreach(uuids, i, u)
			if (json_string_value(u))
				json_object_set_new(owners, json_string_value(u),
						    json_pack("{s:s, s:s, s:s}", "namespace", p->ns, "pod", p->name,
							      "container", ctr));
	}
}

static void collect(void *arg)
{
	struct sk_agent *a = arg;
	struct sk_ag_metrics *m = a->metrics;
	size_t pods = 0, running = 0, exited = 0;
	cleanup_json json_t *owners = json_object();

	sk_metric_clear(m->restarts);
	sk_metric_clear(m->last_reason);
	pthread_mutex_lock(&a->mu);
	for (size_t i = 0; i < a->npods; i++) {
		struct apod *p = a->pods[i];
		const char *phase = sk_kube_jstr(p->pod, "status.phase");
		static const char *const lists[] = {"status.initContainerStatuses", "status.containerStatuses"};

		if (p->gone)
			continue;
		if (a->gpu && p->uid)
			gpu_owners(a, p, owners);
		if (phase && !strcmp(phase, "Running"))
			pods++;
		for (size_t l = 0; l < 2; l++) {
			json_t *cs;
			size_t j;

			json_array_foreach(sk_kube_jget(p->pod, lists[l]), j, cs)
				collect_container(m, p->ns, p->name, cs, &running, &exited);
		}
	}
	pthread_mutex_unlock(&a->mu);
	sk_metric_set(m->running_pods, NULL, (double)pods);
	sk_metric_set1(m->running_containers, "running", (double)running);
	sk_metric_set1(m->running_containers, "exited", (double)exited);
	if (a->gpu) {
		struct sk_gpu_device *devs = NULL;
		size_t n = sk_gpu_devices(a->gpu, &devs);
		sk_gpu_sample *samples = xzalloc((n ? n : 1) * sizeof(*samples));

		for (size_t i = 0; i < n; i++)
			sk_gpu_sample_device(a->gpu, i, &samples[i]);
		sk__ag_metrics_set_gpus(a, devs, samples, n, owners);
		free(samples);
		free(devs);
	}
	fs_stats(m, "image", a->images ? sk_image_store_dir(a->images) : NULL);
	fs_stats(m, "container", a->data_dir);
}

char *sk__ag_metrics_expose(struct sk_agent *a, const char *accept, size_t *len, const char **ctype)
{
	int om = sk_metrics_wants_openmetrics(accept);

	*ctype = om ? SK_METRICS_OPENMETRICS_TYPE : SK_METRICS_TEXT_TYPE;
	return sk_metrics_expose(a->metrics->reg, om, len);
}

/* ---- /metrics/cadvisor ---- */

/* One pod's or container's usage from the Summary (container "" for the pod's own cgroup). */
static void cadvisor_usage(sk_metric_family *const *f, json_t *o, const char *ns, const char *pod, const char *ctr)
{
	const char *v[] = {ctr, ns, pod};
	json_t *cpu = sk_kube_jget(o, "cpu.usageCoreNanoSeconds"), *mem = json_object_get(o, "memory");

	if (json_is_integer(cpu))
		sk_metric_set(f[0], v, (double)json_integer_value(cpu) / 1e9);
	if (!json_is_object(mem))
		return;
	sk_metric_set(f[1], v, (double)json_integer_value(json_object_get(mem, "workingSetBytes")));
	sk_metric_set(f[2], v, (double)json_integer_value(json_object_get(mem, "usageBytes")));
	sk_metric_set(f[3], v, (double)json_integer_value(json_object_get(mem, "rssBytes")));
}

char *sk__ag_metrics_cadvisor(struct sk_agent *a, const char *accept, size_t *len, const char **ctype)
{
	static const char *const labels[] = {"container", "namespace", "pod", NULL};
	sk_metrics *r = sk_metrics_new();
	cleanup_json json_t *sum = sk__ag_stats_summary(a);
	int om = sk_metrics_wants_openmetrics(accept);
	sk_metric_family *f[4];
	json_t *p;
	size_t i;
	char *text;

	/* cAdvisor's names as kubelet serves them; a fresh registry per scrape,
	 * so only the pods and containers there now have series */
	f[0] = sk_metrics_family(r, SK_METRIC_COUNTER, "container_cpu_usage_seconds_total",
				 "Cumulative cpu time consumed in seconds.", "seconds", labels, NULL, 0);
	f[1] = sk_metrics_family(r, SK_METRIC_GAUGE, "container_memory_working_set_bytes",
				 "Current working set in bytes.", "bytes", labels, NULL, 0);
	f[2] = sk_metrics_family(r, SK_METRIC_GAUGE, "container_memory_usage_bytes",
				 "Current memory usage in bytes, including all memory regardless of when it was "
				 "accessed",
				 "bytes", labels, NULL, 0);
	f[3] = sk_metrics_family(r, SK_METRIC_GAUGE, "container_memory_rss", "Size of RSS in bytes.", NULL, labels,
				 NULL, 0);
	json_array_foreach(json_object_get(sum, "pods"), i, p) {
		const char *ns = sk_kube_jstr(p, "podRef.namespace") ?: "", *pod = sk_kube_jstr(p, "podRef.name") ?: "";
		json_t *c;
		size_t j;

		cadvisor_usage(f, p, ns, pod, "");
		json_array_foreach(json_object_get(p, "containers"), j, c)
			cadvisor_usage(f, c, ns, pod, sk_kube_jstr(c, "name") ?: "");
	}
	*ctype = om ? SK_METRICS_OPENMETRICS_TYPE : SK_METRICS_TEXT_TYPE;
	text = sk_metrics_expose(r, om, len);
	sk_metrics_free(r);
	return text;
}

/* ---- /metrics/resource ---- */

/* kubelet's resource metrics endpoint (pkg/kubelet/metrics/collectors/
 * resource_metrics.go): the Summary's CPU and working set of the node, each
 * pod and each container, with upstream's names and help texts; a fresh
 * registry per scrape. Upstream stamps each sample with the time it was
 * read; these go without (Prometheus takes the scrape's time). */
/* The time (ms since the epoch) a Summary reading o ({"time": …}) was taken; 0 when unknown. */
static int64_t reading_ms(json_t *o)
{
	const char *t = sk_kube_jstr(o, "time");
	int64_t s;

	return t && sk_time_parse(t, &s) == 0 && s > 0 ? s * 1000 : 0;
}

char *sk__ag_metrics_resource(struct sk_agent *a, const char *accept, size_t *len, const char **ctype)
{
	static const char *const cl[] = {"container", "namespace", "pod", NULL};
	static const char *const pl[] = {"namespace", "pod", NULL};
	sk_metrics *r = sk_metrics_new();
	cleanup_json json_t *sum = sk__ag_stats_summary(a);
	int om = sk_metrics_wants_openmetrics(accept);
	sk_metric_family *ncpu, *nmem, *ccpu, *cmem, *cstart, *pcpu, *pmem, *err;
	json_t *node = json_object_get(sum, "node"), *p, *v;
	bool failed = !json_is_object(node) || !json_is_object(json_object_get(node, "cpu"));
	size_t i;
	char *text;

	ncpu = sk_metrics_family(r, SK_METRIC_COUNTER, "node_cpu_usage_seconds_total",
				 "[STABLE] Cumulative cpu time consumed by the node in core-seconds", NULL, NULL, NULL,
				 0);
	nmem = sk_metrics_family(r, SK_METRIC_GAUGE, "node_memory_working_set_bytes",
				 "[STABLE] Current working set of the node in bytes", NULL, NULL, NULL, 0);
	ccpu = sk_metrics_family(r, SK_METRIC_COUNTER, "container_cpu_usage_seconds_total",
				 "[STABLE] Cumulative cpu time consumed by the container in core-seconds", NULL, cl,
				 NULL, 0);
	cmem = sk_metrics_family(r, SK_METRIC_GAUGE, "container_memory_working_set_bytes",
				 "[STABLE] Current working set of the container in bytes", NULL, cl, NULL, 0);
	cstart = sk_metrics_family(r, SK_METRIC_GAUGE, "container_start_time_seconds",
				   "[STABLE] Start time of the container since unix epoch in seconds", NULL, cl, NULL,
				   0);
	pcpu = sk_metrics_family(r, SK_METRIC_COUNTER, "pod_cpu_usage_seconds_total",
				 "[STABLE] Cumulative cpu time consumed by the pod in core-seconds", NULL, pl, NULL, 0);
	pmem = sk_metrics_family(r, SK_METRIC_GAUGE, "pod_memory_working_set_bytes",
				 "[STABLE] Current working set of the pod in bytes", NULL, pl, NULL, 0);
	err = sk_metrics_family(r, SK_METRIC_GAUGE, "resource_scrape_error",
				"[STABLE] 1 if there was an error while getting container metrics, 0 otherwise", NULL,
				NULL, NULL, 0);
	/* each sample carries the time of its reading, as the kubelet's (NewLazyMetricWithTimestamp) */
	if (json_is_integer(v = sk_kube_jget(node, "cpu.usageCoreNanoSeconds")))
		sk_metric_set_at(ncpu, NULL, (double)json_integer_value(v) / 1e9,
				 reading_ms(json_object_get(node, "cpu")));
	if (json_is_integer(v = sk_kube_jget(node, "memory.workingSetBytes")))
		sk_metric_set_at(nmem, NULL, (double)json_integer_value(v),
				 reading_ms(json_object_get(node, "memory")));
	json_array_foreach(json_object_get(sum, "pods"), i, p) {
		const char *ns = sk_kube_jstr(p, "podRef.namespace") ?: "", *pod = sk_kube_jstr(p, "podRef.name") ?: "";
		const char *pv[] = {ns, pod};
		json_t *c;
		size_t j;

		if (json_is_integer(v = sk_kube_jget(p, "cpu.usageCoreNanoSeconds")))
			sk_metric_set_at(pcpu, pv, (double)json_integer_value(v) / 1e9,
					 reading_ms(json_object_get(p, "cpu")));
		if (json_is_integer(v = sk_kube_jget(p, "memory.workingSetBytes")))
			sk_metric_set_at(pmem, pv, (double)json_integer_value(v),
					 reading_ms(json_object_get(p, "memory")));
		json_array_foreach(json_object_get(p, "containers"), j, c) {
			const char *cv[] = {sk_kube_jstr(c, "name") ?: "", ns, pod};
			int64_t start;

			if (json_is_integer(v = sk_kube_jget(c, "cpu.usageCoreNanoSeconds")))
				sk_metric_set_at(ccpu, cv, (double)json_integer_value(v) / 1e9,
						 reading_ms(json_object_get(c, "cpu")));
			if (json_is_integer(v = sk_kube_jget(c, "memory.workingSetBytes")))
				sk_metric_set_at(cmem, cv, (double)json_integer_value(v),
						 reading_ms(json_object_get(c, "memory")));
			if (sk_kube_jstr(c, "startTime") && sk_time_parse(sk_kube_jstr(c, "startTime"), &start) == 0 &&
			    start > 0)
				sk_metric_set_at(cstart, cv, (double)start, start * 1000);
		}
	}
	sk_metric_set(err, NULL, failed ? 1 : 0);
	*ctype = om ? SK_METRICS_OPENMETRICS_TYPE : SK_METRICS_TEXT_TYPE;
	text = sk_metrics_expose(r, om, len);
	sk_metrics_free(r);
	return text;
}
