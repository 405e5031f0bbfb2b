/* Pod admission on the node, as kubelet's predicate admit handler does for
 * pods bound straight to the node (spec.nodeName) past the scheduler: the
 * pod's effective requests (sk_kube_pod_requests, overhead included, as the
 * scheduler counts them) plus those of the pods already admitted must fit
 * the node's allocatable cpu, memory and pod count, else the pod is
 * rejected (phase Failed, reason OutOfcpu / OutOfmemory / OutOfpods). */
#include <string.h>

#include "agent/agent-int.h"
#include "kube/resource.h"
#include "util/util.h"

#define MAX_PODS 110
#define EVICTION_MEMORY (100LL << 20)

static int64_t meminfo_total(void)
{
	cleanup_free char *s = sk_read_file("/proc/meminfo", NULL);
	const char *p = s ? strstr(s, "MemTotal:") : NULL;

	return p ? strtoll(p + 9, NULL, 10) * 1024 : 0;
}

int sk__ag_admit(struct sk_agent *a, struct apod *p, json_t *pod)
{
	sk_kube_res req;
	int64_t cpu, mem;
	int64_t cap_cpu = sysconf(_SC_NPROCESSORS_ONLN) * 1000 - a->o.reserved_cpu_milli;
	int64_t cap_mem = meminfo_total() - a->o.reserved_memory - EVICTION_MEMORY;
	int64_t used_cpu = 0, used_mem = 0, pods = 0;

	if (sk_kube_pod_requests(pod, &req, NULL) < 0)
		memset(&req, 0, sizeof(req)); /* validation refuses such pods; size it as nothing */
	cpu = req.v[SK_KUBE_RES_CPU];
	mem = req.v[SK_KUBE_RES_MEMORY];

	pthread_mutex_lock(&a->mu);
	for (size_t i = 0; i < a->npods; i++) {
		struct apod *o = a->pods[i];

		if (o == p || !o->admitted || o->released)
			continue;
		used_cpu += o->req_cpu;
		used_mem += o->req_mem;
		pods++;
	}
	if (pods + 1 > MAX_PODS) {
		p->reject_reason = xstrdup("OutOfpods");
		p->reject_msg = xasprintf("Pod was rejected: Node didn't have enough resource: pods, requested: 1, "
					  "used: %lld, capacity: %d",
					  (long long)pods, MAX_PODS);
	} else if (cpu > 0 && used_cpu + cpu > cap_cpu) {
		p->reject_reason = xstrdup("OutOfcpu");
		p->reject_msg = xasprintf("Pod was rejected: Node didn't have enough resource: cpu, requested: %lld, "
					  "used: %lld, capacity: %lld",
					  (long long)cpu, (long long)used_cpu, (long long)cap_cpu);
	} else if (mem > 0 && used_mem + mem > cap_mem) {
		p->reject_reason = xstrdup("OutOfmemory");
		p->reject_msg = xasprintf("Pod was rejected: Node didn't have enough resource: memory, requested: "
					  "%lld, used: %lld, capacity: %lld",
					  (long long)mem, (long long)used_mem, (long long)cap_mem);
	} else {
		p->admitted = true;
		p->req_cpu = cpu;
		p->req_mem = mem;
	}
	pthread_mutex_unlock(&a->mu);
	if (p->reject_reason) {
		sk__ag_event(a, pod, "Warning", p->reject_reason, "Node didn't have enough resource: %s",
			     p->reject_reason + 5);
		return -1;
	}
	return 0;
}
