/* Agent lifecycle, the pod table fed by a reflector on the node's pods, and the
 * hand-over of containers found on disk to the pods they belong to. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <string.h>
#include <sys/inotify.h>
#include <time.h>

#include "agent/agent-int.h"
#include "client/event.h"
#include "client/nodecert.h"
#include "util/util.h"

/* ---- small helpers --------------------------------------------------------- */

char *sk__ag_random_hex(size_t bytes)
{
	unsigned char raw[64];
	char *out = xmalloc(bytes * 2 + 1);
	cleanup_close int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);

	if (bytes > sizeof(raw))
		bytes = sizeof(raw);
	if (fd < 0 || read(fd, raw, bytes) != (ssize_t)bytes) {
		for (size_t i = 0; i < bytes; i++)
			raw[i] = (unsigned char)(sk_now_ns() >> (i % 8)) ^ (unsigned char)rand();
	}
	for (size_t i = 0; i < bytes; i++)
		snprintf(out + 2 * i, 3, "%02x", raw[i]);
	return out;
}

#define EVENT_QUEUE_MAX 1000
#define EVENT_DRAIN_NS (2 * 1000000000LL)

static void ev_free(struct ag_event *e)
{
	json_decref(e->ref);
	free(e->type);
	free(e->reason);
	free(e->msg);
	free(e);
}

/* Queues the Event for the recorder thread: a pod's start does not wait for
 * its Events (kubelet's recorder is asynchronous too). Beyond a full queue
 * Events are dropped, as client-go's broadcaster drops them. */
void sk__ag_event(struct sk_agent *a, json_t *pod, const char *type, const char *reason, const char *fmt, ...)
{
	struct ag_event *e;
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	e = xzalloc(sizeof(*e));
	e->ref = json_pack("{s:s, s:s, s:{s:s, s:s, s:s}}", "kind", "Pod", "apiVersion", "v1", "metadata", "name",
			   sk_kube_jstr(pod, "metadata.name") ?: "", "namespace",
			   sk_kube_jstr(pod, "metadata.namespace") ?: "", "uid",
			   sk_kube_jstr(pod, "metadata.uid") ?: "");
	e->type = xstrdup(type);
	e->reason = xstrdup(reason);
	e->msg = xstrdup(msg);
	pthread_mutex_lock(&a->ev_mu);
	if (a->ev_n >= EVENT_QUEUE_MAX || !a->ev_started) {
		pthread_mutex_unlock(&a->ev_mu);
		sk_debug("agent", "dropping %s event for %s", reason, sk_kube_jstr(pod, "metadata.name") ?: "");
		ev_free(e);
		return;
	}
	if (a->ev_tail)
		a->ev_tail->next = e;
	else
		a->ev_head = e;
	a->ev_tail = e;
	a->ev_n++;
	pthread_cond_signal(&a->ev_cond);
	pthread_mutex_unlock(&a->ev_mu);
}

/* Records queued Events in order; on stop, what is queued gets up to two
 * seconds more. */
static void *event_loop(void *arg)
{
	struct sk_agent *a = arg;
	int64_t drain_until = 0;

	pthread_mutex_lock(&a->ev_mu);
	for (;;) {
		struct ag_event *e;

		while (!a->ev_head && !a->ev_stop)
			pthread_cond_wait(&a->ev_cond, &a->ev_mu);
		if (a->ev_stop && !drain_until)
			drain_until = sk_mono_ns() + EVENT_DRAIN_NS;
		if (!a->ev_head || (drain_until && sk_mono_ns() > drain_until))
			break;
		e = a->ev_head;
		a->ev_head = e->next;
		if (!a->ev_head)
			a->ev_tail = NULL;
		a->ev_n--;
		pthread_mutex_unlock(&a->ev_mu);
		sk_event_record(a->c, e->ref, e->type, e->reason, SK_COMPONENT, a->node_name, "%s", e->msg);
		ev_free(e);
		pthread_mutex_lock(&a->ev_mu);
	}
	pthread_mutex_unlock(&a->ev_mu);
	return NULL;
}

static void events_start(struct sk_agent *a)
{
	pthread_mutex_lock(&a->ev_mu);
	a->ev_started = pthread_create(&a->ev_thread, NULL, event_loop, a) == 0;
	pthread_mutex_unlock(&a->ev_mu);
}

static void events_stop(struct sk_agent *a)
{
	bool started;

	pthread_mutex_lock(&a->ev_mu);
	a->ev_stop = true;
	started = a->ev_started;
	pthread_cond_broadcast(&a->ev_cond);
	pthread_mutex_unlock(&a->ev_mu);
	if (started)
		pthread_join(a->ev_thread, NULL);
	pthread_mutex_lock(&a->ev_mu);
	a->ev_started = false;
	while (a->ev_head) {
		struct ag_event *e = a->ev_head;

		a->ev_head = e->next;
		ev_free(e);
	}
	a->ev_tail = NULL;
	a->ev_n = 0;
	pthread_mutex_unlock(&a->ev_mu);
}

/* ---- the pod table ----------------------------------------------------------- */

void sk__agent_wake(struct sk_agent *a, struct apod *p)
{
	pthread_mutex_lock(&a->mu);
	p->wake = true;
	pthread_cond_signal(&p->cond);
	pthread_mutex_unlock(&a->mu);
}

static struct apod *find_locked(struct sk_agent *a, const char *uid)
{
	for (size_t i = 0; i < a->npods; i++)
		if (!strcmp(a->pods[i]->uid, uid))
			return a->pods[i];
	return NULL;
}

char *sk__agent_pod_uid(struct sk_agent *a, const char *ns, const char *name)
{
	char *uid = NULL;

	pthread_mutex_lock(&a->mu);
	for (size_t i = 0; i < a->npods && !uid; i++)
		if (!strcmp(a->pods[i]->ns, ns) && !strcmp(a->pods[i]->name, name) && !a->pods[i]->gone)
			uid = xstrdup(a->pods[i]->uid);
	pthread_mutex_unlock(&a->mu);
	return uid;
}

static void claim_locked(struct sk_agent *a, const char *uid, struct sk_sandbox **sb, struct sk_container ***cs,
			 size_t *n);

static void start_worker_locked(struct apod *p)
{
	p->parked = false;
	if (pthread_create(&p->thread, NULL, sk__pod_worker, p) != 0) {
		sk_err("agent", "pod %s/%s: cannot start a worker thread", p->ns, p->name);
		p->finished = true;
		p->thread = 0;
	}
}

/* A parked pod's worker has returned (or is returning: it parks with
 * a->mu held and takes it no more); join it and start a new one. */
static void unpark_locked(struct apod *p)
{
	if (!p->parked)
		return;
	if (p->thread)
		pthread_join(p->thread, NULL);
	p->thread = 0;
	start_worker_locked(p);
}

static void add_pod_locked(struct sk_agent *a, json_t *obj, const char *uid)
{
	struct apod *p = xzalloc(sizeof(*p));

	p->a = a;
	p->uid = xstrdup(uid);
	p->ns = xstrdup(sk_kube_jstr(obj, "metadata.namespace") ? sk_kube_jstr(obj, "metadata.namespace") : "default");
	p->name = xstrdup(sk_kube_jstr(obj, "metadata.name") ? sk_kube_jstr(obj, "metadata.name") : "");
	p->pod = json_incref(obj);
	p->t0_ns = sk_mono_ns();
	SK_POD_TRACE(p, "seen");
	pthread_cond_init(&p->cond, NULL);
	claim_locked(a, uid, &p->claim_sb, &p->claim_c, &p->nclaim_c);
	if (a->npods == a->cap) {
		a->cap = a->cap ? a->cap * 2 : 16;
		a->pods = xrealloc(a->pods, a->cap * sizeof(*a->pods));
	}
	a->pods[a->npods++] = p;
	start_worker_locked(p);
}

/* Records the latest version of a pod from the API and wakes its worker. */
static void upsert_pod(struct sk_agent *a, json_t *obj)
{
	const char *uid = sk_kube_jstr(obj, "metadata.uid");
	struct apod *p;

	if (!uid)
		return;
	pthread_mutex_lock(&a->mu);
	p = find_locked(a, uid);
	if (!p) {
		if (!sk__ag_stopping(a))
			add_pod_locked(a, obj, uid);
	} else {
		json_decref(p->pod);
		p->pod = json_incref(obj);
		p->gone = false;
		p->wake = true;
		pthread_cond_signal(&p->cond);
		if (!sk__ag_stopping(a))
			unpark_locked(p);
	}
	pthread_mutex_unlock(&a->mu);
}

static void mark_gone(struct sk_agent *a, const char *uid)
{
	struct apod *p;

	pthread_mutex_lock(&a->mu);
	p = find_locked(a, uid);
	if (p) {
		p->gone = true;
		p->wake = true;
		pthread_cond_signal(&p->cond);
		if (!sk__ag_stopping(a))
			unpark_locked(p);
	}
	pthread_mutex_unlock(&a->mu);
}

json_t *sk__apod_get(struct apod *p, bool *gone)
{
	json_t *r;

	pthread_mutex_lock(&p->a->mu);
	r = json_incref(p->pod);
	if (gone)
		*gone = p->gone;
	pthread_mutex_unlock(&p->a->mu);
	return r;
}

/* Joins workers that returned and frees their pods. */
void sk__agent_reap(struct sk_agent *a)
{
	for (;;) {
		struct apod *done = NULL;

		pthread_mutex_lock(&a->mu);
		for (size_t i = 0; i < a->npods; i++) {
			if (a->pods[i]->finished) {
				done = a->pods[i];
				a->pods[i] = a->pods[--a->npods];
				break;
			}
		}
		pthread_mutex_unlock(&a->mu);
		if (!done)
			return;
		if (done->thread)
			pthread_join(done->thread, NULL);
		sk__apod_free(done);
	}
}

/* ---- containers and sandboxes found on disk ------------------------------------- */

/* Moves what was found on disk for pod uid to the caller; a->mu held. */
static void claim_locked(struct sk_agent *a, const char *uid, struct sk_sandbox **sb, struct sk_container ***cs,
			 size_t *n)
{
	*sb = NULL;
	*cs = NULL;
	*n = 0;
	for (size_t i = 0; i < a->n_disk_sb;) {
		if (!strcmp(a->disk_sb[i]->pod_uid, uid)) {
			if (!*sb)
				*sb = a->disk_sb[i];
			else
				sk_sandbox_free(a->disk_sb[i]);
			a->disk_sb[i] = a->disk_sb[--a->n_disk_sb];
		} else {
			i++;
		}
	}
	for (size_t i = 0; i < a->n_disk_c;) {
		if (a->disk_c[i]->pod_uid && !strcmp(a->disk_c[i]->pod_uid, uid)) {
			*cs = xrealloc(*cs, (*n + 1) * sizeof(**cs));
			(*cs)[(*n)++] = a->disk_c[i];
			a->disk_c[i] = a->disk_c[--a->n_disk_c];
		} else {
			i++;
		}
	}
}

static void load_disk_state(struct sk_agent *a)
{
	sk_error_t err = {0};

	if (sk_sandbox_list(&a->rt, &a->disk_sb, &a->n_disk_sb, &err) < 0)
		sk_warn("agent", "listing sandboxes: %s", err.msg);
	if (sk_container_list(&a->rt, &a->disk_c, &a->n_disk_c, &err) < 0)
		sk_warn("agent", "listing containers: %s", err.msg);
	if (a->n_disk_sb || a->n_disk_c)
		sk_info("agent", "found %zu sandboxes and %zu containers from a previous run", a->n_disk_sb,
			a->n_disk_c);
}

/* Removes what belongs to no pod the API knows (pods deleted while the agent was down). */
static void remove_orphans(struct sk_agent *a)
{
	struct sk_sandbox **sbs;
	struct sk_container **cs;
	size_t nsb, nc;
	sk_error_t err = {0};

	pthread_mutex_lock(&a->mu);
	sbs = steal_ptr(&a->disk_sb);
	cs = steal_ptr(&a->disk_c);
	nsb = a->n_disk_sb;
	nc = a->n_disk_c;
	a->n_disk_sb = a->n_disk_c = 0;
	pthread_mutex_unlock(&a->mu);
	for (size_t i = 0; i < nc; i++) {
		sk_info("agent", "removing orphaned container %s (%s/%s)", cs[i]->id,
			cs[i]->pod_namespace ? cs[i]->pod_namespace : "", cs[i]->pod_name ? cs[i]->pod_name : "");
		sk_container_stop(&a->rt, cs[i], SIGKILL, 0, &err);
		sk_container_remove(&a->rt, cs[i], &err);
		sk_image_rootfs_remove(a->images, cs[i]->id, &err);
		sk_container_free(cs[i]);
	}
	for (size_t i = 0; i < nsb; i++) {
		sk_info("agent", "removing orphaned sandbox %s", sbs[i]->id);
		if (sk_sandbox_remove(&a->rt, sbs[i]->id, &err) < 0)
			sk_warn("agent", "sandbox %s: %s", sbs[i]->id, err.msg);
		{
			cleanup_free char *dir = xasprintf("%s/pods/%s", a->data_dir, sbs[i]->pod_uid);
			struct apod tmp = {.a = a, .pod_dir = dir};

			sk__volumes_teardown(a, &tmp);
		}
		sk_sandbox_free(sbs[i]);
	}
	free(sbs);
	free(cs);
}

/* ---- the node's pods ------------------------------------------------------------ */

static void on_pod_event(void *ud, const char *type, json_t *obj)
{
	struct sk_agent *a = ud;

	if (!strcmp(type, "DELETED"))
		mark_gone(a, sk_kube_jstr(obj, "metadata.uid") ? sk_kube_jstr(obj, "metadata.uid") : "");
	else
		upsert_pod(a, obj);
}

/* A (re)list of the node's pods: new ones get workers, missing ones are
 * gone; after the first, what belongs to no pod goes. */
static void on_pod_list(void *ud, json_t *items, const char *rv)
{
	struct sk_agent *a = ud;
	json_t *it;
	size_t i;

	json_array_foreach(items, i, it)
		upsert_pod(a, it);
	pthread_mutex_lock(&a->mu);
	for (size_t k = 0; k < a->npods; k++) {
		bool found = false;

		json_array_foreach(items, i, it)
			if (!strcmp(sk_kube_jstr(it, "metadata.uid") ? sk_kube_jstr(it, "metadata.uid") : "",
				    a->pods[k]->uid))
				found = true;
		if (!found) {
			a->pods[k]->gone = true;
			pthread_cond_signal(&a->pods[k]->cond);
			if (!sk__ag_stopping(a))
				unpark_locked(a->pods[k]);
		}
	}
	pthread_mutex_unlock(&a->mu);
	if (!a->listed) {
		a->listed = true;
		remove_orphans(a);
	}
}

static int pods_start(struct sk_agent *a, sk_error_t *err)
{
	cleanup_free char *sel = xasprintf("fieldSelector=spec.nodeName%%3D%s", a->node_name);
	sk_reflector_options o = {
		.path = "/api/v1/pods",
		.selectors = sel,
		.component = "agent",
		.replace = on_pod_list,
		.event = on_pod_event,
		.ud = a,
	};

	/* DNS on the pod CIDR's gateway before the first pod asks it */
	sk__ag_dns_start(a);
	a->pods_refl = sk_reflector_new(a->c, &o);
	return sk_reflector_start(a->pods_refl, err);
}

/* ---- container exits ------------------------------------------------------------ */

/* conmon writes <run_dir>/exits/<container id> when a container exits: the
 * pod's worker wakes at once instead of at its next periodic sync. */
static void wake_for_exit(struct sk_agent *a, const char *id)
{
	cleanup_free char *path = xasprintf("%s/containers/%s/container.json", a->run_dir, id);
	cleanup_json json_t *j = id[0] != '.' && !strchr(id, '/') ? json_load_file(path, 0, NULL) : NULL;
	const char *uid = sk_kube_jstr(j, "podUID");
	struct apod *p;

	if (!uid)
		return;
	pthread_mutex_lock(&a->mu);
	p = find_locked(a, uid);
	if (p && !sk__ag_stopping(a)) {
		p->wake = true;
		pthread_cond_signal(&p->cond);
		unpark_locked(p);
	}
	pthread_mutex_unlock(&a->mu);
}

static void *exit_loop(void *arg)
{
	struct sk_agent *a = arg;
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));

	while (!sk__ag_stopping(a)) {
		struct pollfd pfd = {a->exit_fd, POLLIN, 0};
		ssize_t n;

		if (poll(&pfd, 1, 200) <= 0)
			continue;
		n = read(a->exit_fd, buf, sizeof(buf));
		for (char *q = buf; n > 0 && q < buf + n;) {
			struct inotify_event *ev = (struct inotify_event *)q;

			if (ev->len)
				wake_for_exit(a, ev->name);
			q += sizeof(*ev) + ev->len;
		}
	}
	return NULL;
}

static void exits_start(struct sk_agent *a)
{
	cleanup_free char *dir = xasprintf("%s/exits", a->run_dir);

	a->exit_fd = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
	if (a->exit_fd < 0 || inotify_add_watch(a->exit_fd, dir, IN_CLOSE_WRITE | IN_MOVED_TO) < 0) {
		sk_warn("agent", "watching \"%s\": %s (container exits are seen at the next sync)", dir,
			strerror(errno));
		return;
	}
	a->exit_started = pthread_create(&a->exit_thread, NULL, exit_loop, a) == 0;
}

/* ---- start and stop -------------------------------------------------------------- */

static uint32_t hash_str(const char *s)
{
	uint32_t h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

static int init_paths(struct sk_agent *a, const sk_agent_options *o, sk_error_t *err)
{
	char real[PATH_MAX];
	uint32_t h;

	if (!o->node_name || !*o->node_name || !o->data_dir)
		return sk_error_set(err, SK_EINVALID, "agent: node name and data directory are required");
	if (sk_mkdir_p(o->data_dir, 0700) < 0)
		return sk_error_errno(err, errno, "creating \"%s\"", o->data_dir);
	if (!realpath(o->data_dir, real))
		return sk_error_errno(err, errno, "resolving \"%s\"", o->data_dir);
	h = hash_str(real);
	a->node_name = xstrdup(o->node_name);
	a->data_dir = xstrdup(real);
	a->run_dir = o->run_dir ? xstrdup(o->run_dir) : xasprintf("/run/skiff-%08x", h);
	a->bridge = o->bridge ? xstrdup(o->bridge) : xasprintf("sk%08x", h);
	a->pod_cidr = o->pod_cidr ? xstrdup(o->pod_cidr) : NULL;
	a->node_ip = o->node_ip ? xstrdup(o->node_ip) : sk__ag_detect_node_ip();
	a->backoff_base_ms = o->backoff_base_ms > 0 ? o->backoff_base_ms : 10000;
	a->backoff_max_ms = o->backoff_max_ms > 0 ? o->backoff_max_ms : 300000;
	sk__ag_metrics_init(a);
	return 0;
}

/* GPU health changed (health thread): an event on the Node, status now. */
static void gpu_health_changed(const struct sk_gpu_device *d, bool healthy, const char *reason, void *ud)
{
	struct sk_agent *a = ud;
	json_t *ref = json_pack("{s:s, s:s, s:{s:s, s:s}}", "kind", "Node", "apiVersion", "v1", "metadata", "name",
				a->node_name, "uid", a->node_name);

	sk_event_record(a->c, ref, healthy ? "Normal" : "Warning", healthy ? "GPUHealthy" : "GPUUnhealthy",
			SK_COMPONENT, a->node_name, "device %s %s: %s", d->uuid,
			healthy ? "is healthy again" : "is unhealthy", reason);
	json_decref(ref);
	pthread_mutex_lock(&a->mu);
	a->node_dirty = true;
	pthread_cond_broadcast(&a->cond);
	pthread_mutex_unlock(&a->mu);
}

static int init_gpu(struct sk_agent *a, sk_error_t *err)
{
	sk_gpu_options go = {0};

	go.node_name = a->node_name;
	go.data_dir = a->data_dir;
	go.simulate = a->o.simulate_gpus;
	go.replicas = a->o.gpu_replicas;
	go.quiet_period_s = a->o.gpu_quiet_period_s;
	go.on_health = gpu_health_changed;
	go.ud = a;
	a->gpu = sk_gpu_open(&go, err);
	return a->gpu ? 0 : sk_error_wrap(err, "agent: GPUs");
}

/* Frees GPU allocations of containers that no longer exist on disk. */
static void reconcile_gpus(struct sk_agent *a)
{
	const char **ids = xzalloc((a->n_disk_c + 1) * sizeof(char *));
	sk_error_t err = {0};

	for (size_t i = 0; i < a->n_disk_c; i++)
		ids[i] = a->disk_c[i]->id;
	if (sk_gpu_reconcile(a->gpu, ids, &err) < 0)
		sk_warn("agent", "GPU allocations: %s", err.msg);
	free(ids);
}

static int init_runtime(struct sk_agent *a, sk_error_t *err)
{
	struct sk_runtime_opts ro = {0};

	ro.run_dir = a->run_dir;
	ro.data_dir = a->data_dir;
	ro.pod_cidr = NULL; /* set by sk__agent_run_pods */
	ro.bridge = a->bridge;
	if (sk_runtime_init(&a->rt, &ro, err) < 0)
		return sk_error_wrap(err, "agent: container runtime");
	a->images = sk_image_store_open(a->data_dir, err);
	if (!a->images)
		return sk_error_wrap(err, "agent: image store");
	return 0;
}

/* The Service dataplane; the node runs its pods without it when the
 * kernel refuses (no CAP_NET_ADMIN), as a kubelet does without kube-proxy. */
static void proxy_start(struct sk_agent *a)
{
	sk_proxy_options po = {
		.bridge = a->bridge,
		.node_name = a->node_name,
		.pod_cidr = a->pod_cidr,
		.cluster_cidr = a->o.cluster_cidr,
		.service_cidr = a->o.service_cidr,
		.cluster_dns = a->o.cluster_dns,
	};
	sk_error_t err = {0};

	if (a->o.no_proxy)
		return;
	a->proxy = sk_proxy_start(a->c, &po, &err);
	if (!a->proxy)
		sk_warn("agent", "node %s runs without Services: %s", a->node_name, err.msg);
}

int sk__agent_run_pods(struct sk_agent *a, const char *cidr, sk_error_t *err)
{
	pthread_mutex_lock(&a->mu);
	if (!a->pod_cidr)
		a->pod_cidr = xstrdup(cidr);
	pthread_mutex_unlock(&a->mu);
	sk_runtime_set_pod_cidr(&a->rt, a->pod_cidr);
	proxy_start(a);
	if (pods_start(a, err) < 0) {
		sk_reflector_free(steal_ptr(&a->pods_refl));
		return -1;
	}
	sk_info("agent", "node %s: pod CIDR %s", a->node_name, a->pod_cidr);
	return 0;
}

/* The Services informer behind the containers' Service variables; without it
 * (its list failed) containers start without them, with a warning. */
static void services_start(struct sk_agent *a)
{
	sk_error_t err = {0};

	a->services = sk_informer_new(a->c, "/api/v1/services", "v1", "Service");
	if (sk_informer_start(a->services, &err) < 0) {
		sk_warn("agent", "node %s: containers get no Service variables: %s", a->node_name, err.msg);
		sk_informer_free(steal_ptr(&a->services));
	}
}

/* A serving certificate: the first one is the endpoint's at its start, the
 * next ones (the rotation thread's) replace it for new connections. */
static void on_serving_cert(void *arg, const char *pem)
{
	struct sk_agent *a = arg;
	sk_error_t err = {0};

	if (!a->ls) {
		free(a->serving_pem);
		a->serving_pem = xstrdup(pem);
		a->o.cert_pem = a->o.key_pem = a->serving_pem;
	} else if (sk__logserver_set_cert(a->ls, pem, pem, &err) < 0) {
		sk_warn("agent", "node %s: rotating the serving certificate: %s", a->node_name, err.msg);
	}
}

/* Who may call the HTTPS endpoint, and its certificate: the caller's, or
 * a serving certificate of the cluster CA through a CSR (nodecert.h). */
static int init_https(struct sk_agent *a, sk_error_t *err)
{
	a->access = sk__access_new(a->o.ca_pem, err);
	if (!a->access)
		return -1;
	if (!a->o.ca_pem) {
		sk_warn("agent",
			"node %s: no cluster CA: the HTTPS endpoint (logs, exec, port-forward) refuses every "
			"caller",
			a->node_name);
		return 0;
	}
	if (!a->o.cert_pem || !a->o.key_pem) {
		sk_nodecert_options no = {.ca_pem = a->o.ca_pem, .data_dir = a->data_dir, .node_name = a->node_name};

		a->serving = sk_nodecert_serving(&no, a->c, a->node_ip, a->node_name, on_serving_cert, a, err);
		if (!a->serving)
			return sk_error_wrap(err, "node %s: the HTTPS endpoint's serving certificate", a->node_name);
	}
	return 0;
}

sk_agent *sk_agent_start(sk_client *c, const sk_agent_options *o, sk_error_t *err)
{
	struct sk_agent *a = xzalloc(sizeof(*a));
	bool rt_ok = false;

	a->exit_fd = -1;
	a->c = c;
	a->o = *o;
	pthread_mutex_init(&a->mu, NULL);
	pthread_cond_init(&a->cond, NULL);
	pthread_mutex_init(&a->ev_mu, NULL);
	pthread_cond_init(&a->ev_cond, NULL);
	events_start(a);
	if (init_paths(a, o, err) < 0)
		goto fail;
	a->o.node_name = a->node_name;
	a->o.data_dir = a->data_dir;
	if (init_runtime(a, err) < 0)
		goto fail;
	rt_ok = true;
	if (init_gpu(a, err) < 0)
		goto fail;
	a->log_port = o->log_port;
	if (init_https(a, err) < 0)
		goto fail;
	a->ls = sk__logserver_start(a, &a->log_port, err);
	if (!a->ls)
		goto fail;
	sk_nodecert_rotate(a->serving);
	load_disk_state(a);
	reconcile_gpus(a);
	if (sk__node_register(a, err) < 0)
		goto fail;
	sk__ag_netconf_load(a);
	services_start(a);
	sk__localpath_start(a);
	exits_start(a);
	if (a->pod_cidr && sk__agent_run_pods(a, a->pod_cidr, err) < 0)
		goto fail;
	a->routes = sk__routes_start(a, err);
	if (!a->routes)
		goto fail;
	if (pthread_create(&a->node_thread, NULL, sk__node_loop, a) == 0)
		a->node_started = true;
	sk_info("agent", "node %s: runtime %s, InternalIP %s, logs on https://%s:%d", a->node_name,
		a->rt.default_handler, a->node_ip, a->node_ip, a->log_port);
	return a;
fail:
	if (!rt_ok)
		a->rt.run_dir = NULL;
	sk_agent_stop(a);
	return NULL;
}

/* With no sandbox and no container left, the node's run directory and
 * bridge go too, so a stopped idle agent leaves nothing behind; true then. */
static bool cleanup_if_idle(struct sk_agent *a)
{
	bool idle = false;
	struct sk_sandbox **sbs = NULL;
	struct sk_container **cs = NULL;
	size_t nsb = 0, nc = 0;
	sk_error_t err = {0};
	cleanup_free char *cmd = NULL;

	if (sk_sandbox_list(&a->rt, &sbs, &nsb, &err) == 0 && sk_container_list(&a->rt, &cs, &nc, &err) == 0 &&
	    nsb == 0 && nc == 0) {
		cleanup_free char *table = sk_proxy_table_name(a->bridge);

		idle = true;
		cmd = xasprintf("ip link del '%s' 2>/dev/null; rm -rf '%s'", a->bridge, a->run_dir);
		if (system(cmd) != 0)
			sk_debug("agent", "cleaning up %s", a->run_dir);
		if (sk_proxy_table_delete(table, &err) < 0)
			sk_debug("agent", "%s", err.msg);
	}
	for (size_t i = 0; i < nsb; i++)
		sk_sandbox_free(sbs[i]);
	for (size_t i = 0; i < nc; i++)
		sk_container_free(cs[i]);
	free(sbs);
	free(cs);
	return idle;
}

void sk_agent_stop(sk_agent *a)
{
	bool idle = false;

	if (!a)
		return;
	pthread_mutex_lock(&a->mu);
	__atomic_store_n(&a->stopping, true, __ATOMIC_RELEASE);
	pthread_cond_broadcast(&a->cond);
	for (size_t i = 0; i < a->npods; i++)
		pthread_cond_signal(&a->pods[i]->cond);
	pthread_mutex_unlock(&a->mu);
	/* The HTTPS endpoint first: its handlers read the pods (stats, logs,
	 * exec) freed below. */
	sk_nodecert_stop(steal_ptr(&a->serving));
	sk__logserver_stop(steal_ptr(&a->ls));
	if (a->node_started)
		pthread_join(a->node_thread, NULL);
	sk_reflector_free(steal_ptr(&a->pods_refl));
	sk__ag_dns_stop(a);
	sk_proxy_stop(steal_ptr(&a->proxy));
	if (a->exit_started)
		pthread_join(a->exit_thread, NULL);
	if (a->exit_fd >= 0)
		close(a->exit_fd);
	for (size_t i = 0; i < a->npods; i++) {
		if (a->pods[i]->thread)
			pthread_join(a->pods[i]->thread, NULL);
		sk__apod_free(a->pods[i]);
	}
	free(a->pods);
	sk_informer_free(steal_ptr(&a->services));
	sk_informer_free(steal_ptr(&a->volumes));
	events_stop(a);
	sk__ag_metrics_free(a);
	sk_gpu_close(a->gpu);
	for (size_t i = 0; i < a->n_disk_sb; i++)
		sk_sandbox_free(a->disk_sb[i]);
	for (size_t i = 0; i < a->n_disk_c; i++)
		sk_container_free(a->disk_c[i]);
	free(a->disk_sb);
	free(a->disk_c);
	sk_image_store_free(a->images);
	if (a->rt.run_dir) {
		idle = cleanup_if_idle(a);
		sk_runtime_release(&a->rt);
	}
	/* running pods keep their routes to the other nodes */
	sk__routes_stop(steal_ptr(&a->routes), idle);
	free(a->node_name);
	free(a->data_dir);
	free(a->run_dir);
	free(a->bridge);
	free(a->pod_cidr);
	free(a->node_ip);
	free(a->serving_pem);
	sk__access_free(a->access);
	free(a->cluster_dns);
	free(a->cluster_domain);
	free(a->resolv_conf);
	pthread_cond_destroy(&a->cond);
	pthread_mutex_destroy(&a->mu);
	pthread_cond_destroy(&a->ev_cond);
	pthread_mutex_destroy(&a->ev_mu);
	free(a);
}
