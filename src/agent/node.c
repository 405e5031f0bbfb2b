/* The Node object: registration, periodic status (capacity, conditions,
 * images, nodeInfo) and the kube-node-lease Lease renewed every 10 s. */
#include <errno.h>
#include <string.h>
#include <sys/statvfs.h>
#include <sys/utsname.h>
#include <time.h>

#include "agent/agent-int.h"
#include "kube/condition.h"
#include "util/quantity.h"
#include "util/util.h"
#include "util/version.h"

#define LEASE_SECONDS 40
#define LEASE_RENEW_S 10
#define EVICTION_MEMORY (100LL << 20)

static char *first_line(const char *path)
{
	char *s = sk_read_file(path, NULL);

	if (s)
		s[strcspn(s, "\r\n")] = '\0';
	return s;
}

static char *os_image(void)
{
	cleanup_free char *rel = sk_read_file("/etc/os-release", NULL);
	const char *p = rel ? strstr(rel, "PRETTY_NAME=") : NULL;
	size_t n;

	if (!p || (p != rel && p[-1] != '\n'))
		return xstrdup("Linux");
	p += strlen("PRETTY_NAME=");
	if (*p == '"' || *p == '\'')
		p++;
	n = strcspn(p, "\"'\n");
	return xstrndup(p, n);
}

/* "crun://1.8.1" from `crun --version` ("crun version 1.8.1"). */
static char *runtime_version(struct sk_agent *a)
{
	const struct sk_runtime_handler *h = sk_runtime_handler(&a->rt, NULL, NULL);
	cleanup_free char *cmd = NULL;
	char line[256] = "";
	const char *v;
	FILE *f;

	if (!h)
		return xstrdup("unknown://0.0.0");
	cmd = xasprintf("'%s' --version 2>/dev/null", h->binary);
	f = popen(cmd, "r");
	if (f) {
		if (!fgets(line, sizeof(line), f))
			line[0] = '\0';
		pclose(f);
	}
	line[strcspn(line, "\r\n")] = '\0';
	v = strstr(line, "version ");
	return xasprintf("%s://%s", h->name, v ? v + 8 : "unknown");
}

static int64_t meminfo(const char *key)
{
	cleanup_free char *s = sk_read_file("/proc/meminfo", NULL);
	const char *p = s ? strstr(s, key) : NULL;

	if (!p)
		return 0;
	return strtoll(p + strlen(key) + 1, NULL, 10) * 1024;
}

static json_t *quantity_bytes(int64_t b)
{
	char buf[32];

	if (b % 1024 == 0)
		snprintf(buf, sizeof(buf), "%lldKi", (long long)(b / 1024));
	else
		snprintf(buf, sizeof(buf), "%lld", (long long)b);
	return json_string(buf);
}

static json_t *quantity_milli(int64_t m)
{
	char buf[32];

	sk_quantity_format_milli(m, buf, sizeof(buf));
	return json_string(buf);
}

static void resources(struct sk_agent *a, json_t **cap, json_t **alloc)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	int64_t mem = meminfo("MemTotal:");
	struct statvfs vfs;
	int64_t disk = 0;
	int64_t cpu_alloc, mem_alloc;

	if (statvfs(a->data_dir, &vfs) == 0)
		disk = (int64_t)vfs.f_blocks * (int64_t)vfs.f_frsize;
	cpu_alloc = ncpu * 1000 - a->o.reserved_cpu_milli;
	mem_alloc = mem - a->o.reserved_memory - EVICTION_MEMORY;
	*cap = json_pack("{s:o, s:o, s:o, s:s, s:s, s:s}", "cpu", quantity_milli(ncpu * 1000), "memory",
			 quantity_bytes(mem), "ephemeral-storage", quantity_bytes(disk / 1024 * 1024), "pods", "110",
			 "hugepages-1Gi", "0", "hugepages-2Mi", "0");
	*alloc = json_pack("{s:o, s:o, s:o, s:s, s:s, s:s}", "cpu", quantity_milli(cpu_alloc > 0 ? cpu_alloc : 0),
			   "memory", quantity_bytes(mem_alloc > 0 ? mem_alloc / 1024 * 1024 : 0), "ephemeral-storage",
			   json_integer(0), "pods", "110", "hugepages-1Gi", "0", "hugepages-2Mi", "0");
	{
		char buf[32];

		snprintf(buf, sizeof(buf), "%lld", (long long)(disk / 10 * 9));
		json_object_set_new(*alloc, "ephemeral-storage", json_string(buf));
	}
	sk_gpu_node_capacity(a->gpu, *cap, *alloc, NULL);
}

static json_t *node_info(struct sk_agent *a)
{
	struct utsname u;
	cleanup_free char *mid = first_line("/etc/machine-id"), *boot = first_line("/proc/sys/kernel/random/boot_id");
	cleanup_free char *uuid = first_line("/sys/class/dmi/id/product_uuid");
	cleanup_free char *os = os_image(), *rtv = runtime_version(a);

	uname(&u);
	return json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s}", "machineID", mid ? mid : "",
			 "systemUUID", uuid ? uuid : (mid ? mid : ""), "bootID", boot ? boot : "", "kernelVersion",
			 u.release, "osImage", os, "containerRuntimeVersion", rtv, "kubeletVersion", SK_KUBE_VERSION,
			 "kubeProxyVersion", SK_KUBE_VERSION, "operatingSystem", "linux", "architecture", "amd64");
}

static json_t *condition(const char *type, bool on, const char *reason, const char *msg, const char *now,
			 json_t *old_conds)
{
	const char *status = on ? "True" : "False";
	const char *since = sk_kube_condition_since(old_conds, type, status, now);

	return json_pack("{s:s, s:s, s:s, s:s, s:s, s:s}", "type", type, "status", status, "lastHeartbeatTime", now,
			 "lastTransitionTime", since, "reason", reason, "message", msg);
}

static json_t *conditions(struct sk_agent *a, json_t *old_conds)
{
	char now[32];
	struct statvfs vfs;
	bool mem_low = meminfo("MemAvailable:") < EVICTION_MEMORY;
	bool disk_low = false;
	bool pid_low = false;
	cleanup_free char *pidmax = first_line("/proc/sys/kernel/pid_max");
	json_t *arr = json_array();

	if (statvfs(a->data_dir, &vfs) == 0 && vfs.f_blocks)
		disk_low = (double)vfs.f_bavail / (double)vfs.f_blocks < 0.10;
	(void)pidmax;
	sk_time_format(sk_now_ns() / 1000000000, now, sizeof(now));
	json_array_append_new(arr, condition("MemoryPressure", mem_low,
					     mem_low ? "KubeletHasInsufficientMemory" : "KubeletHasSufficientMemory",
					     mem_low ? "kubelet has insufficient memory available"
						     : "kubelet has sufficient memory available",
					     now, old_conds));
	json_array_append_new(arr, condition("DiskPressure", disk_low,
					     disk_low ? "KubeletHasDiskPressure" : "KubeletHasNoDiskPressure",
					     disk_low ? "kubelet has disk pressure" : "kubelet has no disk pressure",
					     now, old_conds));
	json_array_append_new(arr, condition("PIDPressure", pid_low, "KubeletHasSufficientPID",
					     "kubelet has sufficient PID available", now, old_conds));
	json_array_append_new(
		arr, condition("Ready", true, "KubeletReady", "kubelet is posting ready status", now, old_conds));
	return arr;
}

static json_t *node_status(struct sk_agent *a, json_t *old)
{
	json_t *cap, *alloc, *st;
	json_t *images = sk_image_list(a->images);
	size_t i;
	json_t *im;

	json_array_foreach(images, i, im)
		json_object_del(im, "id");
	resources(a, &cap, &alloc);
	st = json_pack("{s:o, s:o, s:o, s:[{s:s, s:s}, {s:s, s:s}], s:{s:{s:i}}, s:o, s:o}", "capacity", cap,
		       "allocatable", alloc, "conditions", conditions(a, sk_kube_jget(old, "status.conditions")),
		       "addresses", "type", "InternalIP", "address", a->node_ip, "type", "Hostname", "address",
		       a->node_name, "daemonEndpoints", "kubeletEndpoint", "Port", a->log_port, "nodeInfo",
		       node_info(a), "images", images);
	return st;
}

static json_t *node_object(struct sk_agent *a)
{
	json_t *labels = json_pack("{s:s, s:s, s:s, s:s, s:s}", "kubernetes.io/hostname", a->node_name,
				   "kubernetes.io/os", "linux", "kubernetes.io/arch", "amd64", "beta.kubernetes.io/os",
				   "linux", "beta.kubernetes.io/arch", "amd64");

	if (a->o.control_plane)
		json_object_set_new(labels, "node-role.kubernetes.io/control-plane", json_string(""));
	json_t *spec = json_object();
	char *cidr;

	sk_gpu_node_capacity(a->gpu, NULL, NULL, labels);
	pthread_mutex_lock(&a->mu);
	cidr = a->pod_cidr ? xstrdup(a->pod_cidr) : NULL;
	pthread_mutex_unlock(&a->mu);
	/* without one of its own the node IPAM controller gives it one */
	if (cidr)
		json_object_set_new(spec, "podCIDRs", json_pack("[s]", cidr));
	if (cidr)
		json_object_set_new(spec, "podCIDR", json_string(cidr));
	free(cidr);
	return json_pack("{s:s, s:s, s:{s:s, s:o}, s:o}", "apiVersion", "v1", "kind", "Node", "metadata", "name",
			 a->node_name, "labels", labels, "spec", spec);
}

/* While the agent has no pod CIDR: the Node's, once the node IPAM
 * controller set it; then the pods start. */
static void wait_pod_cidr(struct sk_agent *a)
{
	cleanup_free char *path = xasprintf("/api/v1/nodes/%s", a->node_name);
	sk_error_t err = {0};
	cleanup_json json_t *node = sk_client_get(a->c, path, &err);
	const char *cidr = sk_kube_jstr(node, "spec.podCIDR");

	if (!cidr || !*cidr) {
		if (!a->cidr_waiting)
			sk_info("agent", "node %s: waiting for a pod CIDR (spec.podCIDR from the node IPAM controller)",
				a->node_name);
		a->cidr_waiting = true;
		return;
	}
	if (sk__agent_run_pods(a, cidr, &err) < 0)
		sk_warn("agent", "starting the pods: %s", err.msg);
}

static int update_status(struct sk_agent *a, sk_error_t *err)
{
	cleanup_free char *path = xasprintf("/api/v1/nodes/%s/status", a->node_name);
	cleanup_free char *npath = xasprintf("/api/v1/nodes/%s", a->node_name);
	cleanup_json json_t *old = sk_client_get(a->c, npath, err);
	cleanup_json json_t *patch = NULL, *r = NULL;

	if (!old)
		return -1;
	patch = json_pack("{s:o}", "status", node_status(a, old));
	r = sk_client_patch(a->c, path, SK_PATCH_MERGE, patch, err);
	return r ? 0 : -1;
}

/* A Node that exists keeps its pod CIDR (immutable once set): the agent
 * adopts it (as the kubelet takes spec.podCIDR from its Node) before any pod
 * runs, and a --pod-cidr that differs is only logged. A Node without one
 * gets the agent's, if it has one. */
static void keep_node_cidr(struct sk_agent *a, json_t *node, json_t *obj, json_t *patch)
{
	const char *have = sk_kube_jstr(node, "spec.podCIDR");

	if (!have || !*have) {
		if (json_object_size(json_object_get(obj, "spec")))
			json_object_set(patch, "spec", json_object_get(obj, "spec"));
		return;
	}
	pthread_mutex_lock(&a->mu);
	if (!a->pod_cidr) {
		a->pod_cidr = xstrdup(have);
	} else if (strcmp(a->pod_cidr, have) && !a->pods_refl) {
		sk_warn("agent", "node %s has pod CIDR %s: using it instead of %s", a->node_name, have, a->pod_cidr);
		free(a->pod_cidr);
		a->pod_cidr = xstrdup(have);
	} else if (strcmp(a->pod_cidr, have)) {
		sk_warn("agent", "node %s has pod CIDR %s, its pods run in %s", a->node_name, have, a->pod_cidr);
	}
	pthread_mutex_unlock(&a->mu);
}

int sk__node_register(struct sk_agent *a, sk_error_t *err)
{
	cleanup_json json_t *obj = node_object(a);
	cleanup_json json_t *r = sk_client_create(a->c, "/api/v1/nodes", obj, err);

	if (!r && err->code == SK_EEXISTS) {
		cleanup_free char *path = xasprintf("/api/v1/nodes/%s", a->node_name);
		cleanup_json json_t *cur = NULL;
		json_t *patch = json_pack("{s:{s:O}}", "metadata", "labels", sk_kube_jget(obj, "metadata.labels"));

		sk_error_clear(err);
		cur = sk_client_get(a->c, path, err);
		if (cur)
			keep_node_cidr(a, cur, obj, patch);
		r = cur ? sk_client_patch(a->c, path, SK_PATCH_MERGE, patch, err) : NULL;
		json_decref(patch);
	}
	if (!r)
		return sk_error_wrap(err, "registering node \"%s\"", a->node_name);
	if (update_status(a, err) < 0)
		return sk_error_wrap(err, "node \"%s\" status", a->node_name);
	sk_info("agent", "registered node %s", a->node_name);
	return 0;
}

static void renew_lease(struct sk_agent *a)
{
	cleanup_free char *path = xasprintf("/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/%s",
					    a->node_name);
	cleanup_free char *npath = xasprintf("/api/v1/nodes/%s", a->node_name);
	char now[40];
	sk_error_t err = {0};
	cleanup_json json_t *cur = sk_client_get(a->c, path, &err);
	cleanup_json json_t *r = NULL;

	sk_time_format_micro(sk_now_ns(), now, sizeof(now));
	if (cur) {
		json_t *spec = json_object_get(cur, "spec");

		if (!json_is_object(spec)) {
			spec = json_object();
			json_object_set_new(cur, "spec", spec);
		}
		json_object_set_new(spec, "holderIdentity", json_string(a->node_name));
		json_object_set_new(spec, "leaseDurationSeconds", json_integer(LEASE_SECONDS));
		json_object_set_new(spec, "renewTime", json_string(now));
		r = sk_client_update(a->c, path, cur, &err);
	} else if (err.code == SK_ENOTFOUND) {
		cleanup_json json_t *node = sk_client_get(a->c, npath, &err);
		json_t *lease = json_pack("{s:s, s:s, s:{s:s, s:s}, s:{s:s, s:i, s:s}}", "apiVersion",
					  "coordination.k8s.io/v1", "kind", "Lease", "metadata", "name", a->node_name,
					  "namespace", "kube-node-lease", "spec", "holderIdentity", a->node_name,
					  "leaseDurationSeconds", LEASE_SECONDS, "renewTime", now);

		if (node && sk_kube_jstr(node, "metadata.uid"))
			json_object_set_new(json_object_get(lease, "metadata"), "ownerReferences",
					    json_pack("[{s:s, s:s, s:s, s:s}]", "apiVersion", "v1", "kind", "Node",
						      "name", a->node_name, "uid", sk_kube_jstr(node, "metadata.uid")));
		r = sk_client_create(a->c, "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases", lease,
				     &err);
		json_decref(lease);
	}
	if (!r)
		sk_warn("agent", "renewing lease of node %s: %s", a->node_name, err.msg);
}

/* Ids of the stored images that the containers of the node's pods name
 * (new array): GC keeps them even before a container has a root filesystem. */
static json_t *images_of_pods(struct sk_agent *a)
{
	json_t *names = json_array(), *ids = json_array(), *v;
	size_t i;

	pthread_mutex_lock(&a->mu);
	for (size_t n = 0; n < a->npods; n++) {
		static const char *const lists[] = {"spec.initContainers", "spec.containers"};

		for (size_t l = 0; l < 2 && a->pods[n]->pod && !a->pods[n]->gone; l++) {
			json_array_foreach(sk_kube_jget(a->pods[n]->pod, lists[l]), i, v) {
				if (sk_kube_jstr(v, "image"))
					json_array_append_new(names, json_string(sk_kube_jstr(v, "image")));
			}
		}
	}
	pthread_mutex_unlock(&a->mu);
	json_array_foreach(names, i, v) {
		sk_image_info info = {0};
		sk_error_t err = {0};

		if (sk_image_lookup(a->images, json_string_value(v), &info, &err) == 0)
			json_array_append_new(ids, json_string(info.id));
		sk_image_info_release(&info);
	}
	json_decref(names);
	return ids;
}

/* The kubelet's image GC: keeps the images of the node's pods and those of
 * containers with a root filesystem; a pull in progress postpones it. */
static void image_gc(struct sk_agent *a)
{
	sk_gc_policy p = {.high_percent = a->o.image_gc_high_percent > 0 ? a->o.image_gc_high_percent : 85,
			  .low_percent = a->o.image_gc_low_percent > 0 ? a->o.image_gc_low_percent : 80};
	sk_gc_result r = {0};
	sk_error_t err = {0};
	cleanup_json json_t *in_use = NULL;
	struct statvfs st;

	if (p.high_percent >= 100 || statvfs(sk_image_store_dir(a->images), &st) < 0 || !st.f_blocks ||
	    (int)((st.f_blocks - st.f_bavail) * 100 / st.f_blocks) < p.high_percent)
		return; /* the common case, without resolving the pods' images */
	in_use = images_of_pods(a);
	if (sk_image_gc(a->images, &p, in_use, &r, &err) < 0) {
		if (err.code != SK_ECONFLICT)
			sk_warn("agent", "image gc: %s", err.msg);
		return;
	}
	sk__ag_metrics_image_gc(a, &r);
	if (r.images_removed || r.blobs_removed || r.snapshots_removed)
		sk_info("agent", "image gc: removed %d images, %d blobs, %d snapshots, freed %lld bytes",
			r.images_removed, r.blobs_removed, r.snapshots_removed, (long long)r.bytes_freed);
}

void *sk__node_loop(void *arg)
{
	struct sk_agent *a = arg;
	int64_t next_status = 0, next_lease = 0;
	int interval = a->o.status_interval_s > 0 ? a->o.status_interval_s : 10;

	while (!sk__ag_stopping(a)) {
		int64_t now = sk_mono_ns();
		struct timespec ts;

		if (now >= next_lease) {
			renew_lease(a);
			next_lease = now + (int64_t)LEASE_RENEW_S * 1000000000;
		}
		if (now >= next_status || a->node_dirty) {
			a->node_dirty = false;
			sk_error_t err = {0};

			image_gc(a);
			if (update_status(a, &err) < 0 && err.code == SK_ENOTFOUND)
				sk__node_register(a, &err);
			else if (err.code)
				sk_warn("agent", "node status: %s", err.msg);
			next_status = now + (int64_t)interval * 1000000000;
		}
		if (!a->pods_refl)
			wait_pod_cidr(a);
		sk__agent_reap(a);
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += 1;
		pthread_mutex_lock(&a->mu);
		if (!sk__ag_stopping(a))
			pthread_cond_timedwait(&a->cond, &a->mu, &ts);
		pthread_mutex_unlock(&a->mu);
	}
	return NULL;
}
