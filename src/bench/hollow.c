/* Hollow nodes: Node objects and a fake kubelet status loop, no containers. */
#include "bench/hollow.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "client/reflector.h"
#include "sched/smap.h"
#include "util/util.h"
#include "util/version.h"

#define DEFAULT_WORKERS 16

/* A pod waiting for its Running status. */
struct hjob {
	struct hjob *next;
	json_t *pod; /* the pod as the watch saw it (owned) */
	int node;    /* index of its node */
};

struct sk_hollow {
	sk_client *c;
	char *prefix;
	size_t plen;
	int nodes, gpus, nworkers;

	pthread_mutex_t mu;
	pthread_cond_t cv; /* a job was queued, or stop (the writers wait) */
	struct hjob *head, *tail;
	int queued, stop;
	sk_smap seen; /* uid -> (void *)1: pods already queued or written */
	uint64_t ip_seq;

	sk_reflector *pods;
	pthread_t *workers;
	sk_hollow_stats st;
};

/* ---- registration ---- */

static json_t *node_object(const sk_hollow *h, int i)
{
	char name[128], ip[32], gpus[16];
	json_t *cap, *n;

	snprintf(name, sizeof(name), "%s%05d", h->prefix, i);
	snprintf(ip, sizeof(ip), "10.128.%d.%d", (i >> 8) & 0xff, i & 0xff);
	cap = json_pack("{s:s, s:s, s:s, s:s}", "cpu", "32", "memory", "256Gi", "pods", "110", "ephemeral-storage",
			"1Ti");
	if (h->gpus > 0) {
		snprintf(gpus, sizeof(gpus), "%d", h->gpus);
		json_object_set_new(cap, "nvidia.com/gpu", json_string(gpus));
	}
	n = json_pack("{s:s, s:s, s:{s:s, s:{s:s, s:s, s:s}}, s:{s:O, s:O, s:[{s:s, s:s, s:s, s:s}],"
		      " s:[{s:s, s:s}, {s:s, s:s}], s:{s:s, s:s, s:s, s:s}}}",
		      "apiVersion", "v1", "kind", "Node", "metadata", "name", name, "labels", "kubernetes.io/hostname",
		      name, "kubernetes.io/os", "linux", "type", "hollow", "status", "capacity", cap, "allocatable",
		      cap, "conditions", "type", "Ready", "status", "True", "reason", "KubeletReady", "message",
		      "hollow node is ready", "addresses", "type", "InternalIP", "address", ip, "type", "Hostname",
		      "address", name, "nodeInfo", "kubeletVersion", SK_KUBE_VERSION "-skiff-hollow", "operatingSystem",
		      "linux", "architecture", "amd64", "containerRuntimeVersion", "hollow://0");
	json_decref(cap);
	return n;
}

static json_t *lease_object(const sk_hollow *h, int i)
{
	char name[128], now[40];

	snprintf(name, sizeof(name), "%s%05d", h->prefix, i);
	sk_time_format_micro(sk_now_ns(), now, sizeof(now));
	return json_pack("{s:s, s:s, s:{s:s, s:s}, s:{s:s, s:i, s:s}}", "apiVersion", "coordination.k8s.io/v1", "kind",
			 "Lease", "metadata", "name", name, "namespace", "kube-node-lease", "spec", "holderIdentity",
			 name, "leaseDurationSeconds", 40, "renewTime", now);
}

struct reg {
	sk_hollow *h;
	int from, step, leases;
	sk_error_t err;
};

static int create_one(sk_client *c, const char *path, json_t *obj, sk_error_t *err)
{
	json_t *r = sk_client_create_take(c, path, obj, err);

	if (!r && err->code == SK_EEXISTS) {
		sk_error_clear(err);
		return 0;
	}
	json_decref(r);
	return r ? 0 : -1;
}

static void *reg_main(void *arg)
{
	struct reg *r = arg;

	for (int i = r->from; i < r->h->nodes; i += r->step) {
		if (create_one(r->h->c, "/api/v1/nodes", node_object(r->h, i), &r->err) < 0)
			break;
		if (r->leases && create_one(r->h->c, "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases",
					    lease_object(r->h, i), &r->err) < 0)
			break;
	}
	return NULL;
}

static int register_nodes(sk_hollow *h, int leases, sk_error_t *err)
{
	int n = h->nworkers, rc = 0;
	struct reg *regs = xzalloc((size_t)n * sizeof(*regs));
	pthread_t *t = xzalloc((size_t)n * sizeof(*t));

	for (int i = 0; i < n; i++) {
		regs[i] = (struct reg){.h = h, .from = i, .step = n, .leases = leases};
		if (pthread_create(&t[i], NULL, reg_main, &regs[i]) != 0)
			reg_main(&regs[i]), t[i] = 0;
	}
	for (int i = 0; i < n; i++) {
		if (t[i])
			pthread_join(t[i], NULL);
		if (regs[i].err.code && !rc) {
			sk_error_set(err, regs[i].err.code, "registering hollow nodes: %s", regs[i].err.msg);
			rc = -1;
		}
		sk_error_clear(&regs[i].err);
	}
	free(regs);
	free(t);
	return rc;
}

/* ---- the pod watch ---- */

/* Index of node name if it is one of ours, else -1. */
static int our_node(const sk_hollow *h, const char *node)
{
	char *end;
	long i;

	if (!node || strncmp(node, h->prefix, h->plen))
		return -1;
	i = strtol(node + h->plen, &end, 10);
	if (*end || end == node + h->plen || i < 0 || i >= h->nodes)
		return -1;
	return (int)i;
}

static const char *jstr(json_t *o, const char *a, const char *b)
{
	return json_string_value(json_object_get(json_object_get(o, a), b));
}

/* Queues pod if it is bound to one of our nodes and not yet reported. Call with mu held. */
static void consider_locked(sk_hollow *h, const char *type, json_t *pod)
{
	const char *uid = jstr(pod, "metadata", "uid"), *phase = jstr(pod, "status", "phase");
	struct hjob *j;
	int node;

	if (!uid)
		return;
	if (!strcmp(type, "DELETED")) {
		sk__smap_del(&h->seen, uid);
		return;
	}
	node = our_node(h, jstr(pod, "spec", "nodeName"));
	if (node < 0 || jstr(pod, "metadata", "deletionTimestamp"))
		return;
	if (phase && (!strcmp(phase, "Running") || !strcmp(phase, "Succeeded") || !strcmp(phase, "Failed")))
		return;
	if (sk__smap_get(&h->seen, uid))
		return;
	sk__smap_put(&h->seen, uid, (void *)1);
	j = xzalloc(sizeof(*j));
	j->pod = json_incref(pod);
	j->node = node;
	if (h->tail)
		h->tail->next = j;
	else
		h->head = j;
	h->tail = j;
	h->queued++;
	pthread_cond_signal(&h->cv);
}

static void on_pod(void *ud, const char *type, json_t *obj)
{
	sk_hollow *h = ud;

	pthread_mutex_lock(&h->mu);
	consider_locked(h, type, obj);
	pthread_mutex_unlock(&h->mu);
}

/* Every (re)list queues the pods bound to us not yet seen. */
static void on_pods(void *ud, json_t *items, const char *rv)
{
	sk_hollow *h = ud;
	json_t *item;
	size_t i;

	pthread_mutex_lock(&h->mu);
	json_array_foreach(items, i, item)
		consider_locked(h, "ADDED", item);
	pthread_mutex_unlock(&h->mu);
}

static int pods_start(sk_hollow *h, sk_error_t *err)
{
	sk_reflector_options o = {
		.path = "/api/v1/pods",
		.component = "hollow",
		/* pods are only read (status writes build their own bodies) */
		.shared = 1,
		.replace = on_pods,
		.event = on_pod,
		.ud = h,
	};

	h->pods = sk_reflector_new(h->c, &o);
	if (sk_reflector_list(h->pods, err) < 0)
		return -1;
	return sk_reflector_start(h->pods, err);
}

/* ---- status writers ---- */

static json_t *condition(const char *type, const char *now)
{
	return json_pack("{s:s, s:s, s:n, s:s}", "type", type, "status", "True", "lastProbeTime", "lastTransitionTime",
			 now);
}

static json_t *container_statuses(json_t *pod, const char *now, uint64_t seq)
{
	json_t *out = json_array(), *ctr;
	size_t i;

	json_array_foreach(json_object_get(json_object_get(pod, "spec"), "containers"), i, ctr) {
		const char *name = json_string_value(json_object_get(ctr, "name"));
		const char *image = json_string_value(json_object_get(ctr, "image"));
		char id[80];

		snprintf(id, sizeof(id), "hollow://%016llx%02zx", (unsigned long long)seq, i);
		json_array_append_new(out, json_pack("{s:s, s:s, s:s, s:s, s:b, s:b, s:i, s:{s:{s:s}}}", "name",
						     name ? name : "", "image", image ? image : "", "imageID",
						     image ? image : "", "containerID", id, "ready", 1, "started", 1,
						     "restartCount", 0, "state", "running", "startedAt", now));
	}
	return out;
}

/* The body of a pods/status PUT for pod (read only: it may be the watch's
 * shared object): pod's identity and resourceVersion and the status a kubelet
 * reports once its containers run. */
static json_t *running_status(json_t *pod, int node, uint64_t seq)
{
	char now[32], pod_ip[32], host_ip[32];
	json_t *body = json_pack("{s:s, s:s, s:{s:s?, s:s?, s:s?, s:s?}}", "apiVersion", "v1", "kind", "Pod",
				 "metadata", "name", jstr(pod, "metadata", "name"), "namespace",
				 jstr(pod, "metadata", "namespace"), "uid", jstr(pod, "metadata", "uid"),
				 "resourceVersion", jstr(pod, "metadata", "resourceVersion"));
	json_t *status = json_deep_copy(json_object_get(pod, "status"));

	sk_time_format(sk_now_ns() / 1000000000LL, now, sizeof(now));
	snprintf(pod_ip, sizeof(pod_ip), "10.%d.%d.%d", 64 + (int)((seq >> 16) & 0x3f), (int)((seq >> 8) & 0xff),
		 (int)(seq & 0xff));
	snprintf(host_ip, sizeof(host_ip), "10.128.%d.%d", (node >> 8) & 0xff, node & 0xff);
	if (!json_is_object(status)) {
		json_decref(status);
		status = json_object();
	}
	json_object_set_new(body, "status", status);
	json_object_set_new(status, "phase", json_string("Running"));
	json_object_set_new(status, "hostIP", json_string(host_ip));
	json_object_set_new(status, "hostIPs", json_pack("[{s:s}]", "ip", host_ip));
	json_object_set_new(status, "podIP", json_string(pod_ip));
	json_object_set_new(status, "podIPs", json_pack("[{s:s}]", "ip", pod_ip));
	json_object_set_new(status, "startTime", json_string(now));
	json_object_set_new(status, "qosClass", json_string(jstr(pod, "status", "qosClass") ?: "Burstable"));
	json_object_set_new(status, "conditions",
			    json_pack("[o, o, o, o, o]", condition("PodReadyToStartContainers", now),
				      condition("Initialized", now), condition("Ready", now),
				      condition("ContainersReady", now), condition("PodScheduled", now)));
	json_object_set_new(status, "containerStatuses", container_statuses(pod, now, seq));
	return body;
}

/* PUTs the Running status; on a conflict re-reads the pod and tries again. */
static void write_status(sk_hollow *h, json_t *pod, int node)
{
	char path[600];
	uint64_t seq = __atomic_add_fetch(&h->ip_seq, 1, __ATOMIC_RELAXED);
	json_t *cur = json_incref(pod);

	snprintf(path, sizeof(path), "/api/v1/namespaces/%s/pods/%s/status", jstr(pod, "metadata", "namespace"),
		 jstr(pod, "metadata", "name"));
	for (int attempt = 0; attempt < 5; attempt++) {
		sk_error_t err = {0};
		json_t *r;

		r = sk_client_update_take(h->c, path, running_status(cur, node, seq), &err);
		json_decref(cur);
		if (r) {
			json_decref(r);
			__atomic_add_fetch(&h->st.status_writes, 1, __ATOMIC_RELAXED);
			return;
		}
		if (err.code != SK_ECONFLICT || !(cur = sk_client_get(h->c, path, &err))) {
			if (err.code != SK_ENOTFOUND)
				sk_warn("hollow", "pod status %s: %s", path, err.msg);
			sk_error_clear(&err);
			break;
		}
		__atomic_add_fetch(&h->st.conflicts, 1, __ATOMIC_RELAXED);
		sk_error_clear(&err);
	}
	__atomic_add_fetch(&h->st.status_errors, 1, __ATOMIC_RELAXED);
}

static void *writer_main(void *arg)
{
	sk_hollow *h = arg;

	pthread_mutex_lock(&h->mu);
	while (!h->stop) {
		struct hjob *j = h->head;

		if (!j) {
			pthread_cond_wait(&h->cv, &h->mu);
			continue;
		}
		h->head = j->next;
		if (!h->head)
			h->tail = NULL;
		h->queued--;
		pthread_mutex_unlock(&h->mu);
		write_status(h, j->pod, j->node);
		json_decref(j->pod);
		free(j);
		pthread_mutex_lock(&h->mu);
	}
	pthread_mutex_unlock(&h->mu);
	return NULL;
}

/* ---- lifecycle ---- */

sk_hollow *sk_hollow_start(sk_client *c, const sk_hollow_options *o, sk_error_t *err)
{
	sk_hollow *h = xzalloc(sizeof(*h));

	h->c = c;
	h->prefix = xstrdup(o && o->prefix ? o->prefix : "hollow-");
	h->plen = strlen(h->prefix);
	h->nodes = o ? o->nodes : 0;
	h->gpus = o ? o->gpus : 0;
	h->nworkers = o && o->workers > 0 ? o->workers : DEFAULT_WORKERS;
	pthread_mutex_init(&h->mu, NULL);
	pthread_cond_init(&h->cv, NULL);
	sk__smap_init(&h->seen);
	h->workers = xzalloc((size_t)h->nworkers * sizeof(*h->workers));
	if (register_nodes(h, !(o && o->no_leases), err) < 0 || pods_start(h, err) < 0)
		goto fail;
	for (int i = 0; i < h->nworkers; i++)
		if (pthread_create(&h->workers[i], NULL, writer_main, h) != 0) {
			sk_error_set(err, SK_EINTERNAL, "cannot start hollow node writer");
			goto fail;
		}
	return h;
fail:
	sk_hollow_stop(h);
	return NULL;
}

void sk_hollow_stop(sk_hollow *h)
{
	if (!h)
		return;
	pthread_mutex_lock(&h->mu);
	h->stop = 1;
	pthread_cond_broadcast(&h->cv);
	pthread_mutex_unlock(&h->mu);
	for (int i = 0; i < h->nworkers; i++)
		if (h->workers[i])
			pthread_join(h->workers[i], NULL);
	sk_reflector_free(h->pods);
	while (h->head) {
		struct hjob *j = h->head;

		h->head = j->next;
		json_decref(j->pod);
		free(j);
	}
	sk__smap_release(&h->seen);
	pthread_cond_destroy(&h->cv);
	pthread_mutex_destroy(&h->mu);
	free(h->workers);
	free(h->prefix);
	free(h);
}

void sk_hollow_get_stats(sk_hollow *h, sk_hollow_stats *st)
{
	pthread_mutex_lock(&h->mu);
	st->queued = h->queued;
	pthread_mutex_unlock(&h->mu);
	st->status_writes = __atomic_load_n(&h->st.status_writes, __ATOMIC_RELAXED);
	st->status_errors = __atomic_load_n(&h->st.status_errors, __ATOMIC_RELAXED);
	st->conflicts = __atomic_load_n(&h->st.conflicts, __ATOMIC_RELAXED);
}
