/* Cgroups for pods, as kubelet's cgroupfs driver lays them out.
 *
 * Pod cgroups live under /kubepods (Guaranteed), /kubepods/burstable or
 * /kubepods/besteffort, named pod<uid>; a container's cgroup is
 * <pod cgroup>/<container id>. The OCI runtime creates them on demand in every
 * hierarchy; this file detects the host's cgroup layout, and removes pod
 * cgroups and reads OOM counters in every hierarchy (v1 controllers, the
 * hybrid v2 tree and pure v2 alike). */
#ifndef SK_RUNTIME_CGROUP_H
#define SK_RUNTIME_CGROUP_H

#include <stdbool.h>
#include <stdint.h>

#include "util/error.h"

enum sk_cgroup_mode {
	SK_CGROUP_NONE = 0,
	SK_CGROUP_V1,     /* only v1 controllers under /sys/fs/cgroup */
	SK_CGROUP_HYBRID, /* v1 controllers plus a v2 tree at /sys/fs/cgroup/unified */
	SK_CGROUP_V2,     /* /sys/fs/cgroup is cgroup2 */
};

enum sk_qos {
	SK_QOS_GUARANTEED = 0,
	SK_QOS_BURSTABLE,
	SK_QOS_BESTEFFORT,
};

/* Detects the host's layout by statfs of /sys/fs/cgroup and .../unified. */
enum sk_cgroup_mode sk_cgroup_mode_detect(void);
const char *sk_cgroup_mode_name(enum sk_cgroup_mode mode);
const char *sk_qos_name(enum sk_qos qos); /* "Guaranteed", "Burstable", "BestEffort" */

/* "/kubepods/burstable/pod<uid>" (or "/kubepods/pod<uid>" for Guaranteed).
 * Caller frees. */
char *sk_cgroup_pod_path(enum sk_qos qos, const char *pod_uid);

/* Removes the cgroup `path` (absolute within the hierarchies, e.g. a pod
 * path) and everything below it, in every mounted hierarchy. Waits briefly
 * for exiting tasks. Missing directories are fine. Returns -1 with err when
 * some directory stays (tasks still in it). */
int sk_cgroup_remove(const char *path, sk_error_t *err);

/* Pod-level limits, as kubelet's pod container manager sets them on the pod
 * cgroup: cpu shares from the sum of requests, and for pods whose containers
 * all have limits a cpu quota and memory limit from the sums. */
struct sk_cgroup_pod_resources {
	uint64_t cpu_shares;  /* 0: leave as is (use sk_oci_cpu_shares of the summed requests) */
	int64_t cpu_quota;    /* us per 100000 us period; 0: none */
	int64_t memory_limit; /* bytes; 0: none */
};

/* Creates the pod cgroup `path` in the cpu and memory controllers (v1) or the
 * unified tree (v2: enabling cpu and memory in the ancestors) and writes the
 * limits. Other v1 controllers are left to the OCI runtime, which copies
 * cpuset parents correctly. Call before the pod's first container starts. */
int sk_cgroup_pod_set_resources(const char *path, const struct sk_cgroup_pod_resources *res, sk_error_t *err);

/* True when `path` exists in any hierarchy. */
bool sk_cgroup_exists(const char *path);

/* True when the memory cgroup `path` recorded an OOM kill (v1
 * memory.oom_control "oom_kill N", v2 memory.events "oom_kill N"). */
bool sk_cgroup_oom_killed(const char *path);

/* Resource usage of one cgroup, as kubelet's Summary API reports it
 * (cadvisor's numbers). */
struct sk_cgroup_usage {
	bool has_cpu, has_memory;
	uint64_t cpu_usage_ns;       /* cumulative CPU time of every task, ever */
	uint64_t memory_usage;       /* bytes charged, page cache included */
	uint64_t memory_working_set; /* usage - inactive_file (0 when negative) */
	uint64_t memory_rss;         /* anonymous memory (v1 total_rss, v2 anon) */
	uint64_t memory_page_faults, memory_major_page_faults;
};

/* Reads the usage of cgroup `path` (absolute within the hierarchies, e.g.
 * a pod or container cgroup) in the host's layout: the cpuacct and memory
 * controllers on v1 and hybrid hosts, the unified tree on v2. -1 with err
 * (SK_ENOTFOUND) when the cgroup exists in none of them. */
int sk_cgroup_usage(const char *path, struct sk_cgroup_usage *u, sk_error_t *err);

/* The parsers behind it, over the control files' contents (NULL: file
 * absent). v1: cpuacct.usage, memory.usage_in_bytes, memory.stat; v2:
 * cpu.stat, memory.current, memory.stat. Fill what the texts give. */
void sk_cgroup_parse_v1(const char *cpuacct_usage, const char *mem_usage, const char *mem_stat,
			struct sk_cgroup_usage *u);
void sk_cgroup_parse_v2(const char *cpu_stat, const char *mem_current, const char *mem_stat, struct sk_cgroup_usage *u);

/* The whole machine's usage, kubelet's node "cpu" and "memory": CPU time
 * from /proc/stat (every state but idle and iowait, in USER_HZ ticks),
 * memory from /proc/meminfo (usage MemTotal - MemFree, working set usage -
 * Inactive(file), rss AnonPages) and the boot time. */
struct sk_host_usage {
	struct sk_cgroup_usage u;
	uint64_t memory_available; /* MemAvailable */
	uint64_t memory_total;     /* MemTotal */
	int64_t boot_time;         /* /proc/stat btime, seconds since the epoch; 0: unknown */
};
int sk_host_usage(struct sk_host_usage *h, sk_error_t *err);
void sk_host_parse(const char *proc_stat, const char *meminfo, long ticks_per_s, struct sk_host_usage *h);

#endif
