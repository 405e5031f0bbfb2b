/* kubelet's Summary API (GET /stats/summary on the agent's serving port):
 * the node's CPU, memory and filesystem, and for every pod bound here the
 * pod's and its running containers' CPU and memory read from their cgroups
 * (sk_cgroup_usage). The shape is stats/v1alpha1's Summary; times carry
 * microseconds (upstream's metav1.Time keeps seconds: a rate over a short
 * scrape interval needs the fraction, and Go's RFC 3339 parser takes it). */
#include <string.h>
#include <sys/statvfs.h>

#include "agent/agent-int.h"
#include "kube/object.h"
#include "kube/qos.h"
#include "runtime/cgroup.h"
#include "util/util.h"

/* What the summary needs of one pod, copied under the agent's lock. */
struct pod_ref {
	char *uid, *ns, *name;
	json_t *pod;
};

static json_t *time_json(int64_t ns)
{
	char buf[40];

	sk_time_format_micro(ns, buf, sizeof(buf));
	return json_string(buf);
}

static json_t *cpu_json(const struct sk_cgroup_usage *u, int64_t now)
{
	return json_pack("{s:o, s:I}", "time", time_json(now), "usageCoreNanoSeconds", (json_int_t)u->cpu_usage_ns);
}

static json_t *memory_json(const struct sk_cgroup_usage *u, int64_t now)
{
	return json_pack("{s:o, s:I, s:I, s:I, s:I, s:I}", "time", time_json(now), "usageBytes",
			 (json_int_t)u->memory_usage, "workingSetBytes", (json_int_t)u->memory_working_set, "rssBytes",
			 (json_int_t)u->memory_rss, "pageFaults", (json_int_t)u->memory_page_faults, "majorPageFaults",
			 (json_int_t)u->memory_major_page_faults);
}

/* Adds "cpu" and "memory" of u to o (what was read of them). */
static void add_usage(json_t *o, const struct sk_cgroup_usage *u, int64_t now)
{
	if (u->has_cpu)
		json_object_set_new(o, "cpu", cpu_json(u, now));
	if (u->has_memory)
		json_object_set_new(o, "memory", memory_json(u, now));
}

static json_t *fs_json(const char *dir, int64_t now)
{
	struct statvfs st;

	if (statvfs(dir, &st) < 0)
		return NULL;
	return json_pack("{s:o, s:I, s:I, s:I, s:I, s:I, s:I}", "time", time_json(now), "availableBytes",
			 (json_int_t)(st.f_bavail * st.f_frsize), "capacityBytes",
			 (json_int_t)(st.f_blocks * st.f_frsize), "usedBytes",
			 (json_int_t)((st.f_blocks - st.f_bfree) * st.f_frsize), "inodesFree", (json_int_t)st.f_ffree,
			 "inodes", (json_int_t)st.f_files, "inodesUsed", (json_int_t)(st.f_files - st.f_ffree));
}

static json_t *node_json(struct sk_agent *a, int64_t now)
{
	struct sk_host_usage h;
	sk_error_t err = {0};
	json_t *n = json_pack("{s:s}", "nodeName", a->node_name), *fs;

	if (sk_host_usage(&h, &err) == 0) {
		if (h.boot_time > 0 && h.boot_time < INT64_MAX / 1000000000)
			json_object_set_new(n, "startTime", time_json(h.boot_time * 1000000000));
		add_usage(n, &h.u, now);
		json_object_set_new(json_object_get(n, "memory"), "availableBytes",
				    json_integer((json_int_t)h.memory_available));
	}
	fs = fs_json(a->data_dir, now);
	if (fs) {
		json_object_set_new(n, "fs", json_deep_copy(fs));
		json_object_set_new(n, "runtime", json_pack("{s:o}", "imageFs", fs));
	}
	return n;
}

/* The runtime id of a "crun://ID" containerID. */
static const char *runtime_id(const char *cid)
{
	const char *sep = cid ? strstr(cid, "://") : NULL;

	return sep && sep[3] ? sep + 3 : NULL;
}

static json_t *containers_json(json_t *pod, const char *pod_cg, int64_t now)
{
	json_t *out = json_array(), *cs;
	size_t i;

	json_array_foreach(sk_kube_jget(pod, "status.containerStatuses"), i, cs) {
		const char *id = runtime_id(sk_kube_jstr(cs, "containerID"));
		const char *started = sk_kube_jstr(cs, "state.running.startedAt");
		cleanup_free char *cg = NULL;
		struct sk_cgroup_usage u;
		sk_error_t err = {0};
		json_t *c;

		if (!id || !started || !sk_kube_jstr(cs, "name") || strchr(id, '/') || strstr(id, ".."))
			continue;
		cg = xasprintf("%s/%s", pod_cg, id);
		if (sk_cgroup_usage(cg, &u, &err) < 0)
			continue;
		c = json_pack("{s:s, s:s}", "name", sk_kube_jstr(cs, "name"), "startTime", started);
		add_usage(c, &u, now);
		json_array_append_new(out, c);
	}
	return out;
}

static enum sk_qos qos_of(json_t *pod)
{
	const char *q = sk_kube_pod_qos(pod);

	if (!strcmp(q, "Guaranteed"))
		return SK_QOS_GUARANTEED;
	return !strcmp(q, "Burstable") ? SK_QOS_BURSTABLE : SK_QOS_BESTEFFORT;
}

static json_t *pod_json(const struct pod_ref *r, int64_t now)
{
	cleanup_free char *cg = sk_cgroup_pod_path(qos_of(r->pod), r->uid);
	struct sk_cgroup_usage u;
	sk_error_t err = {0};
	json_t *containers, *p;

	/* The containers first: the pod's cgroup holds theirs, so its counters, read after, are at
	 * least their sum, as a reader adding them up expects. */
	containers = containers_json(r->pod, cg, now);
	if (sk_cgroup_usage(cg, &u, &err) < 0) {
		json_decref(containers);
		return NULL;
	}
	p = json_pack("{s:{s:s, s:s, s:s}, s:o}", "podRef", "name", r->name, "namespace", r->ns, "uid", r->uid,
		      "containers", containers);
	if (sk_kube_jstr(r->pod, "status.startTime"))
		json_object_set_new(p, "startTime", json_string(sk_kube_jstr(r->pod, "status.startTime")));
	add_usage(p, &u, now);
	return p;
}

/* The pods bound here, copied under the lock; *n of them. */
static struct pod_ref *snapshot(struct sk_agent *a, size_t *n)
{
	struct pod_ref *v;

	pthread_mutex_lock(&a->mu);
	v = xzalloc((a->npods + 1) * sizeof(*v));
	*n = 0;
	for (size_t i = 0; i < a->npods; i++) {
		struct apod *p = a->pods[i];

		if (p->gone || !p->pod)
			continue;
		v[*n].uid = xstrdup(p->uid);
		v[*n].ns = xstrdup(p->ns);
		v[*n].name = xstrdup(p->name);
		v[*n].pod = json_incref(p->pod);
		(*n)++;
	}
	pthread_mutex_unlock(&a->mu);
	return v;
}

json_t *sk__ag_stats_summary(struct sk_agent *a)
{
	int64_t now = sk_now_ns();
	size_t n = 0;
	struct pod_ref *refs = snapshot(a, &n);
	json_t *pods = json_array();

	for (size_t i = 0; i < n; i++) {
		json_t *p = pod_json(&refs[i], now);

		if (p)
			json_array_append_new(pods, p);
		free(refs[i].uid);
		free(refs[i].ns);
		free(refs[i].name);
		sk_json_decref(refs[i].pod);
	}
	free(refs);
	return json_pack("{s:o, s:o}", "node", node_json(a, now), "pods", pods);
}
