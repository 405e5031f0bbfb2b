/* The pod worker: one thread per pod that drives it toward its spec, as
 * kubelet's pod workers and SyncPod do: sandbox, volumes, image pulls, init
 * containers in order (native sidecars kept running), regular containers
 * with restart policy and back-off, probes and hooks, status, and on
 * deletion preStop, SIGTERM, grace period, SIGKILL and cleanup. */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "agent/agent-int.h"
#include "agent/resolv.h"
#include "kube/qos.h"
#include "runtime/crilog.h"
#include "util/util.h"

#define SYNC_MS 1000

/* ---- helpers ------------------------------------------------------------------- */

static int64_t now_ns(void) { return sk_now_ns(); }

static const char *restart_policy(json_t *pod)
{
	const char *rp = sk_kube_jstr(pod, "spec.restartPolicy");

	return rp ? rp : "Always";
}

const char *sk__ag_ctr_list(enum ctr_kind kind)
{
	return kind == CTR_REGULAR     ? "spec.containers"
	       : kind == CTR_EPHEMERAL ? "spec.ephemeralContainers"
				       : "spec.initContainers";
}

static json_t *ctr_spec(json_t *pod, const struct ctr *k)
{
	json_t *arr = sk_kube_jget(pod, sk__ag_ctr_list(k->kind)), *c;
	size_t i;

	json_array_foreach(arr, i, c)
		if (!strcmp(sk_kube_jstr(c, "name") ? sk_kube_jstr(c, "name") : "", k->name))
			return c;
	return NULL;
}

static void set_wait(struct ctr *k, const char *reason, const char *msg)
{
	free(k->wait_reason);
	free(k->wait_msg);
	k->wait_reason = reason ? xstrdup(reason) : NULL;
	k->wait_msg = msg ? xstrdup(msg) : NULL;
}

static void ctr_release(struct ctr *k)
{
	sk_container_free(k->cur);
	sk_container_free(k->prev);
	free(k->name);
	free(k->cur_msg);
	free(k->prev_msg);
	free(k->wait_reason);
	free(k->wait_msg);
	free(k->image_name);
	free(k->image_id);
}

void sk__apod_free(struct apod *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->nctrs; i++)
		ctr_release(&p->ctrs[i]);
	for (size_t i = 0; i < p->nadopt; i++)
		sk_container_free(p->adopt[i]);
	free(p->adopt);
	for (size_t i = 0; i < p->nclaim_c; i++)
		sk_container_free(p->claim_c[i]);
	free(p->claim_c);
	sk_sandbox_free(p->claim_sb);
	free(p->ctrs);
	sk_sandbox_free(p->sb);
	json_decref(p->pod);
	json_decref(p->mounts);
	json_decref(p->last_status);
	pthread_cond_destroy(&p->cond);
	free(p->sb_error);
	free(p->mount_error);
	free(p->reject_reason);
	free(p->reject_msg);
	free(p->start_time);
	free(p->pod_dir);
	free(p->log_dir);
	free(p->uid);
	free(p->ns);
	free(p->name);
	free(p);
}

static bool is_sidecar(json_t *c)
{
	const char *rp = sk_kube_jstr(c, "restartPolicy");

	return rp && !strcmp(rp, "Always");
}

static struct ctr *ctr_by_name(struct apod *p, const char *name);

/* Ephemeral containers are only ever added (pods/ephemeralcontainers is
 * append-only): new ones join the table's end. */
static void ensure_ephemeral(struct apod *p, json_t *pod)
{
	json_t *eph = sk_kube_jget(pod, "spec.ephemeralContainers"), *c;
	size_t i;

	json_array_foreach(eph, i, c) {
		const char *name = sk_kube_jstr(c, "name");

		if (!name || ctr_by_name(p, name))
			continue;
		p->ctrs = xrealloc(p->ctrs, (p->nctrs + 2) * sizeof(struct ctr));
		memset(&p->ctrs[p->nctrs], 0, 2 * sizeof(struct ctr));
		p->ctrs[p->nctrs].name = xstrdup(name);
		p->ctrs[p->nctrs++].kind = CTR_EPHEMERAL;
	}
}

/* Builds the container table from the spec (containers never change in a
 * pod; ephemeral containers are added). */
static void ensure_ctrs(struct apod *p, json_t *pod)
{
	json_t *init = sk_kube_jget(pod, "spec.initContainers"), *regular = sk_kube_jget(pod, "spec.containers"), *c;
	size_t i, n = 0;

	if (p->ctrs) {
		ensure_ephemeral(p, pod);
		return;
	}
	p->ctrs = xzalloc((json_array_size(init) + json_array_size(regular) + 1) * sizeof(struct ctr));
	json_array_foreach(init, i, c) {
		p->ctrs[n].name = xstrdup(sk_kube_jstr(c, "name") ? sk_kube_jstr(c, "name") : "");
		p->ctrs[n++].kind = is_sidecar(c) ? CTR_SIDECAR : CTR_INIT;
	}
	json_array_foreach(regular, i, c) {
		p->ctrs[n].name = xstrdup(sk_kube_jstr(c, "name") ? sk_kube_jstr(c, "name") : "");
		p->ctrs[n++].kind = CTR_REGULAR;
	}
	p->nctrs = n;
	ensure_ephemeral(p, pod);
}

static struct ctr *ctr_by_name(struct apod *p, const char *name)
{
	for (size_t i = 0; i < p->nctrs; i++)
		if (name && !strcmp(p->ctrs[i].name, name))
			return &p->ctrs[i];
	return NULL;
}

static char *read_term_msg(const char *path)
{
	size_t len = 0;
	char *s = sk_read_file(path, &len);

	if (s && len > 4096)
		s[4096] = '\0';
	return s;
}

struct tail_buf {
	char *data;
	size_t len;
};

static int tail_cb(void *arg, const char *data, size_t len)
{
	struct tail_buf *t = arg;

	t->data = xrealloc(t->data, t->len + len + 1);
	memcpy(t->data + t->len, data, len);
	t->len += len;
	t->data[t->len] = '\0';
	return 0;
}

/* The termination message of an exited attempt: the file, or with
 * FallbackToLogsOnError the last 80 lines (2 KiB) of the log. */
static char *termination_message(struct apod *p, json_t *cs, struct sk_container *c)
{
	cleanup_free char *path = xasprintf("%s/containers/%s/%s", p->pod_dir, c->name, c->id);
	char *msg = read_term_msg(path);
	const char *policy = sk_kube_jstr(cs, "terminationMessagePolicy");

	if ((!msg || !*msg) && policy && !strcmp(policy, "FallbackToLogsOnError") && c->exit_code != 0) {
		struct sk_crilog_opts o = {.tail_lines = 80};
		struct tail_buf t = {0};
		sk_error_t err = {0};

		free(msg);
		sk_crilog_read(c->log_path, &o, tail_cb, &t, NULL, &err);
		if (t.len > 2048) {
			msg = xstrdup(t.data + t.len - 2048);
			free(t.data);
		} else {
			msg = t.data;
		}
	}
	if (msg && !*msg) {
		free(msg);
		msg = NULL;
	}
	return msg;
}

/* Refreshes the current attempt when its exit file appeared (cheap), or
 * every few seconds through the runtime. */
static void refresh_ctr(struct sk_agent *a, struct apod *p, json_t *pod, struct ctr *k, bool full)
{
	cleanup_free char *efile = NULL;
	sk_error_t err = {0};
	bool was_exited;

	if (!k->cur)
		return;
	was_exited = k->cur->status == SK_CONTAINER_EXITED;
	if (was_exited)
		return;
	efile = xasprintf("%s/exits/%s", a->run_dir, k->cur->id);
	if (!full && access(efile, F_OK) != 0)
		return;
	if (sk_container_refresh(&a->rt, k->cur, &err) < 0)
		sk_warn("agent", "pod %s/%s container %s: %s", p->ns, p->name, k->name, err.msg);
	if (k->cur->status == SK_CONTAINER_EXITED) {
		free(k->cur_msg);
		k->cur_msg = termination_message(p, ctr_spec(pod, k), k->cur);
		k->ready = false;
		if (k->cur->reason && !strcmp(k->cur->reason, "OOMKilled"))
			sk__ag_event(a, pod, "Warning", "OOMKilling",
				     "Container %s was OOM-killed (memory limit exceeded)", k->name);
	}
}

/* ---- images ------------------------------------------------------------------------ */

static const char *pull_policy(json_t *cs)
{
	const char *pp = sk_kube_jstr(cs, "imagePullPolicy");
	const char *image = sk_kube_jstr(cs, "image") ? sk_kube_jstr(cs, "image") : "";
	const char *slash = strrchr(image, '/');
	const char *colon = strrchr(slash ? slash : image, ':');

	if (pp)
		return pp;
	if (strchr(image, '@'))
		return "IfNotPresent";
	return !colon || !strcmp(colon, ":latest") ? "Always" : "IfNotPresent";
}

/* dockerconfigjson documents of the pod's imagePullSecrets (new array). */
static json_t *pull_auths(struct sk_agent *a, json_t *pod)
{
	json_t *out = json_array(), *ref;
	size_t i;

	json_array_foreach(sk_kube_jget(pod, "spec.imagePullSecrets"), i, ref) {
		cleanup_free char *path = xasprintf("/api/v1/namespaces/%s/secrets/%s",
						    sk_kube_jstr(pod, "metadata.namespace"),
						    sk_kube_jstr(ref, "name") ? sk_kube_jstr(ref, "name") : "");
		sk_error_t err = {0};
		cleanup_json json_t *sec = sk_client_get(a->c, path, &err);
		const char *b64 = sk_kube_jstr(sec, "data..dockerconfigjson");
		cleanup_free char *doc = NULL;

		if (!b64)
			b64 = json_string_value(json_object_get(json_object_get(sec, "data"), ".dockerconfigjson"));
		if (!b64)
			b64 = json_string_value(json_object_get(json_object_get(sec, "data"), ".dockercfg"));
		doc = b64 ? sk__ag_b64_decode(b64, NULL) : NULL;
		if (doc) {
			json_t *j = json_loads(doc, 0, NULL);

			if (j && !json_object_get(j, "auths"))
				j = json_pack("{s:o}", "auths", j);
			if (j)
				json_array_append_new(out, j);
		}
	}
	return out;
}

static void fmt_dur(int64_t ns, char *buf, size_t len)
{
	double s = (double)ns / 1e9;

	if (s < 1)
		snprintf(buf, len, "%.0fms", s * 1000);
	else
		snprintf(buf, len, "%.3fs", s);
}

/* Makes the image of cs present per its pull policy. 0 with *img filled,
 * -1 with the container's waiting reason set. */
static int ensure_image(struct sk_agent *a, struct apod *p, json_t *pod, json_t *cs, struct ctr *k, sk_image_info *img)
{
	const char *image = sk_kube_jstr(cs, "image") ? sk_kube_jstr(cs, "image") : "";
	const char *policy = pull_policy(cs);
	bool present = sk_image_is_present(a->images, image) == 1;
	sk_error_t err = {0};
	int64_t t0 = sk_mono_ns();

	if (present && strcmp(policy, "Always") != 0) {
		if (sk_image_lookup(a->images, image, img, &err) == 0) {
			sk__ag_event(a, pod, "Normal", "Pulled", "Container image \"%s\" already present on machine",
				     image);
			return 0;
		}
	}
	if (!strcmp(policy, "Never")) {
		char msg[512];

		snprintf(msg, sizeof(msg), "Container image \"%s\" is not present with pull policy of Never", image);
		sk__ag_event(a, pod, "Warning", "ErrImageNeverPull", "%s", msg);
		set_wait(k, "ErrImageNeverPull", msg);
		return -1;
	}
	if (k->wait_reason && !strcmp(k->wait_reason, "ErrImagePull") && now_ns() < k->next_start_ns) {
		char msg[1024];

		snprintf(msg, sizeof(msg), "Back-off pulling image \"%s\": ErrImagePull: %s", image,
			 k->wait_msg ? k->wait_msg : "");
		sk__ag_event(a, pod, "Normal", "BackOff", "Back-off pulling image \"%s\"", image);
		set_wait(k, "ImagePullBackOff", msg);
		return -1;
	}
	if (k->wait_reason && !strcmp(k->wait_reason, "ImagePullBackOff") && now_ns() < k->next_start_ns)
		return -1;
	sk__ag_event(a, pod, "Normal", "Pulling", "Pulling image \"%s\"", image);
	{
		cleanup_json json_t *auths = pull_auths(a, pod);
		json_t **av = xzalloc((json_array_size(auths) + 1) * sizeof(json_t *));
		sk_pull_options po = {0};
		size_t i;
		json_t *e;
		int rc;

		json_array_foreach(auths, i, e)
			av[i] = e;
		po.auths = av;
		po.n_auths = json_array_size(auths);
		{
			int64_t pull_t0 = sk_mono_ns();

			rc = sk_image_pull(a->images, image, &po, img, &err);
			p->pull_ns += sk_mono_ns() - pull_t0;
			sk__ag_metrics_pull(a, img->total_ns ? img->total_ns : sk_mono_ns() - pull_t0,
					    rc < 0 ? 0 : img->size, rc < 0 ? 0 : img->fetched_bytes, rc >= 0);
		}
		free(av);
		if (rc < 0) {
			char msg[700];

			snprintf(msg, sizeof(msg), "Failed to pull image \"%s\": %s", image, err.msg);
			sk__ag_event(a, pod, "Warning", "Failed", "%s", msg);
			sk__ag_event(a, pod, "Warning", "Failed", "Error: ErrImagePull");
			set_wait(k, "ErrImagePull", err.msg);
			k->backoff_ms = k->backoff_ms ? k->backoff_ms * 2 : a->backoff_base_ms;
			if (k->backoff_ms > a->backoff_max_ms)
				k->backoff_ms = a->backoff_max_ms;
			k->next_start_ns = now_ns() + k->backoff_ms * 1000000;
			return -1;
		}
	}
	{
		char d1[32], d2[32];

		fmt_dur(img->total_ns ? img->total_ns : sk_mono_ns() - t0, d1, sizeof(d1));
		fmt_dur(sk_mono_ns() - t0, d2, sizeof(d2));
		sk__ag_event(a, pod, "Normal", "Pulled",
			     "Successfully pulled image \"%s\" in %s (%s including waiting). Image size: %lld bytes.",
			     image, d1, d2, (long long)img->size);
	}
	k->backoff_ms = 0;
	return 0;
}

/* ---- sandbox --------------------------------------------------------------------------- */

/* The strings of a JSON array as a NULL-terminated array in buf (max
 * entries with the NULL), borrowed from arr. */
static const char *const *str_list(json_t *arr, const char **buf, size_t max)
{
	size_t i, n = 0;
	json_t *e;

	json_array_foreach(arr, i, e)
		if (n + 1 < max && json_string_value(e))
			buf[n++] = json_string_value(e);
	buf[n] = NULL;
	return buf;
}

static void drop_sandbox(struct sk_agent *a, struct apod *p)
{
	sk_error_t err = {0};

	if (sk_sandbox_remove(&a->rt, p->sb->id, &err) < 0)
		sk_warn("agent", "pod %s/%s: removing sandbox: %s", p->ns, p->name, err.msg);
	sk_sandbox_free(p->sb);
	p->sb = NULL;
}

static void sandbox_failed(struct sk_agent *a, struct apod *p, json_t *pod, const char *msg)
{
	if (!p->sb_error || strcmp(p->sb_error, msg))
		sk__ag_event(a, pod, "Warning", "FailedCreatePodSandBox", "Failed to create pod sandbox: %s", msg);
	free(p->sb_error);
	p->sb_error = xstrdup(msg);
}

/* Waits for the sandbox's network (attached while the first container is
 * prepared). On failure the sandbox goes (its containers must be gone) and
 * the next sync makes a new one. */
static int network_ready(struct sk_agent *a, struct apod *p, json_t *pod)
{
	sk_error_t err = {0};

	if (!p->sb || !p->sb->net)
		return p->sb ? 0 : -1;
	if (sk_sandbox_network_wait(p->sb, &err) == 0) {
		SK_POD_TRACE(p, "network ready");
		return 0;
	}
	sandbox_failed(a, p, pod, err.msg);
	drop_sandbox(a, p);
	return -1;
}

static int ensure_sandbox(struct sk_agent *a, struct apod *p, json_t *pod)
{
	struct sk_sandbox_config cfg = {0};
	cleanup_free char *id = NULL, *host_resolv = NULL, *host_domain = NULL;
	const char *servers[8], *searches[40], *opts[64];
	const char *aliases[64];
	const char *qos = sk_kube_pod_qos(pod);
	struct sk_pod_dns dns;
	json_t *ha;
	size_t i, na = 0;
	sk_error_t err = {0};
	int64_t sb_t0;
	int sb_rc;

	if (p->sb)
		return 0;
	id = sk__ag_random_hex(16);
	cfg.id = id;
	cfg.pod_name = p->name;
	cfg.pod_namespace = p->ns;
	cfg.pod_uid = p->uid;
	cfg.hostname = sk_kube_jstr(pod, "spec.hostname");
	cfg.qos = !strcmp(qos, "Guaranteed") ? SK_QOS_GUARANTEED
					     : (!strcmp(qos, "Burstable") ? SK_QOS_BURSTABLE : SK_QOS_BESTEFFORT);
	cfg.host_network = json_is_true(sk_kube_jget(pod, "spec.hostNetwork"));
	host_resolv = sk_read_file(a->resolv_conf, NULL);
	sk_pod_dns_config(pod, a->cluster_dns, a->cluster_domain, host_resolv, &dns);
	if (dns.warning)
		sk__ag_event(a, pod, "Warning", "DNSConfigForming", "%s", dns.warning);
	cfg.dns_given = true;
	cfg.dns_servers = str_list(dns.servers, servers, 8);
	cfg.dns_searches = str_list(dns.searches, searches, 40);
	cfg.dns_options = str_list(dns.options, opts, 64);
	host_domain = sk_pod_host_domain(pod, a->cluster_domain);
	cfg.host_domain = host_domain;
	json_array_foreach(sk_kube_jget(pod, "spec.hostAliases"), i, ha) {
		json_t *h;
		size_t j;
		char line[512];
		size_t l = (size_t)snprintf(line, sizeof(line), "%s", sk_kube_jstr(ha, "ip") ?: "");

		/* kubelet's hostsEntriesFromHostAliases: the names tab-separated */
		json_array_foreach(json_object_get(ha, "hostnames"), j, h)
			if (l < sizeof(line))
				l += (size_t)snprintf(line + l, sizeof(line) - l, "\t%s", json_string_value(h) ?: "");
		if (na < 62)
			aliases[na++] = xstrdup(line);
	}
	aliases[na] = NULL;
	cfg.host_aliases = na ? aliases : NULL;
	cfg.network_async = true;
	SK_POD_TRACE(p, "sandbox begin");
	sb_t0 = sk_mono_ns();
	sb_rc = sk_sandbox_create(&a->rt, &cfg, &p->sb, &err);
	sk__ag_metrics_sandbox(a, sk_kube_jstr(pod, "spec.runtimeClassName"), sk_mono_ns() - sb_t0, sb_rc >= 0);
	if (sb_rc < 0) {
		sandbox_failed(a, p, pod, err.msg);
		p->sb = NULL;
	} else {
		free(p->sb_error);
		p->sb_error = NULL;
	}
	for (i = 0; i < na; i++)
		free((char *)aliases[i]);
	sk_pod_dns_release(&dns);
	SK_POD_TRACE(p, "sandbox end");
	return p->sb ? 0 : -1;
}

/* ---- starting containers -------------------------------------------------------------- */

/* The handler of the pod's RuntimeClass (NULL: the node's default). */
static char *runtime_handler(struct sk_agent *a, json_t *pod, sk_error_t *err)
{
	const char *rc = sk_kube_jstr(pod, "spec.runtimeClassName");
	cleanup_free char *path = NULL;
	cleanup_json json_t *obj = NULL;

	if (!rc || !*rc)
		return NULL;
	path = xasprintf("/apis/node.k8s.io/v1/runtimeclasses/%s", rc);
	obj = sk_client_get(a->c, path, err);
	if (!obj) {
		sk_error_wrap(err, "RuntimeClass \"%s\"", rc);
		return NULL;
	}
	return xstrdup(sk_kube_jstr(obj, "handler") ? sk_kube_jstr(obj, "handler") : "");
}

static void drop_attempt(struct sk_agent *a, struct sk_container *c)
{
	sk_error_t err = {0};

	if (!c)
		return;
	if (sk_container_remove(&a->rt, c, &err) < 0)
		sk_warn("agent", "removing container %s: %s", c->id, err.msg);
	if (sk_image_rootfs_remove(a->images, c->id, &err) < 0)
		sk_warn("agent", "removing rootfs of %s: %s", c->id, err.msg);
	sk_container_free(c);
}

static void run_post_start(struct sk_agent *a, struct apod *p, json_t *pod, json_t *cs, struct ctr *k)
{
	json_t *h = sk_kube_jget(cs, "lifecycle.postStart");
	char *msg = NULL;

	k->poststart_done = true;
	if (!h)
		return;
	if (sk__probe_run(a, p, k->cur, h, 30, &msg) < 0) {
		sk_error_t err = {0};

		sk__ag_event(a, pod, "Warning", "FailedPostStartHook", "PostStartHook failed: %s", msg ? msg : "");
		sk__ag_event(a, pod, "Normal", "Killing", "FailedPostStartHook");
		sk_container_stop(&a->rt, k->cur, 0, 2, &err);
	}
	free(msg);
}

/* GPUs for the container (src/gpu, docs/GPU.md): allocation, then devices,
 * mounts and env added to cfg. An allocation failure rejects the pod as
 * kubelet's admission does (UnexpectedAdmissionError). */
static int gpu_prepare(struct sk_agent *a, struct apod *p, json_t *cs, struct ctr *k, const char *id, struct arena *ar,
		       struct sk_container_config *cfg, struct sk_gpu_injection *inj, bool *held, const char **reason,
		       sk_error_t *err)
{
	int64_t n = sk_gpu_container_request(cs, err);
	struct sk_mount *m;

	if (n < 0) {
		*reason = "CreateContainerConfigError";
		return -1;
	}
	if (n > 0 && sk_gpu_allocate(a->gpu, id, p->uid, k->name, n, err) < 0) {
		*reason = "UnexpectedAdmissionError";
		free(p->reject_reason);
		free(p->reject_msg);
		p->reject_reason = xstrdup("UnexpectedAdmissionError");
		p->reject_msg = xstrdup(err->msg);
		return -1;
	}
	*held = n > 0;
	if (sk_gpu_inject(a->gpu, id, inj, err) < 0) {
		*reason = "CreateContainerError";
		return -1;
	}
	if (inj->env)
		cfg->extra_env = (const char *const *)inj->env;
	if (inj->n_devices) {
		cfg->devices = inj->devices;
		cfg->n_devices = inj->n_devices;
	}
	if (inj->n_mounts) {
		m = sk__ag_arena_keep(ar, xzalloc((cfg->n_mounts + inj->n_mounts) * sizeof(*m)));
		memcpy(m, cfg->mounts, cfg->n_mounts * sizeof(*m));
		memcpy(m + cfg->n_mounts, inj->mounts, inj->n_mounts * sizeof(*m));
		cfg->mounts = m;
		cfg->n_mounts += inj->n_mounts;
	}
	return 0;
}

/* The skiff.dev/gpu-devices annotation on the pod. */
static void gpu_annotate(struct sk_agent *a, struct apod *p)
{
	cleanup_free char *ann = sk_gpu_pod_annotation(a->gpu, p->uid);
	cleanup_free char *path = xasprintf("/api/v1/namespaces/%s/pods/%s", p->ns, p->name);
	cleanup_json json_t *patch = NULL, *r = NULL;
	sk_error_t err = {0};

	if (!ann)
		return;
	patch = json_pack("{s:{s:{s:s}}}", "metadata", "annotations", SK_GPU_ANNOTATION, ann);
	r = sk_client_patch(a->c, path, SK_PATCH_MERGE, patch, &err);
	if (!r)
		sk_warn("agent", "pod %s/%s: GPU annotation: %s", p->ns, p->name, err.msg);
}

/* Keeps the logs of the two newest attempts, as kubelet keeps two containers. */
static void prune_logs(struct apod *p, struct ctr *k, uint32_t attempt)
{
	cleanup_free char *cmd = NULL;

	if (attempt < 2)
		return;
	cmd = xasprintf("rm -f '%s/%s/%u.log' '%s/%s/%u.id' '%s/%s/%u.log.'*", p->log_dir, k->name, attempt - 2,
			p->log_dir, k->name, attempt - 2, p->log_dir, k->name, attempt - 2);
	if (system(cmd) != 0)
		sk_debug("agent", "pruning logs of %s", k->name);
}

/* Creates and starts the next attempt of container k. */
static int start_ctr(struct sk_agent *a, struct apod *p, json_t *pod, struct ctr *k)
{
	json_t *cs = ctr_spec(pod, k);
	sk_image_info img = {0};
	struct sk_container_config cfg = {0};
	struct arena ar = {0};
	cleanup_free char *id = sk__ag_random_hex(32);
	cleanup_free char *handler = NULL;
	char *rootfs = NULL;
	struct sk_container *c = NULL;
	const char *reason = NULL;
	sk_error_t err = {0};
	uint32_t attempt = k->cur ? k->restarts + 1 : k->restarts;
	struct sk_gpu_injection inj = {0};
	bool gpu_held = false;

	if (!cs || !p->sb)
		return -1;
	{
		/* configuration errors first: no pull or rootfs for a pod that cannot start */
		cleanup_json json_t *env = sk__ag_container_env(a, pod, cs, NULL, &err);

		if (!env) {
			reason = "CreateContainerConfigError";
			goto fail;
		}
	}
	SK_POD_TRACE(p, "container begin");
	if (ensure_image(a, p, pod, cs, k, &img) < 0)
		return -1;
	SK_POD_TRACE(p, "image ready");
	free(k->image_name);
	free(k->image_id);
	k->image_name = xstrdup(img.name ? img.name : (sk_kube_jstr(cs, "image") ? sk_kube_jstr(cs, "image") : ""));
	k->image_id = xstrdup(img.image_ref ? img.image_ref : (img.id ? img.id : ""));
	handler = runtime_handler(a, pod, &err);
	if (err.code) {
		reason = "CreateContainerConfigError";
		goto fail;
	}
	rootfs = sk_image_rootfs_prepare(a->images, img.id, id, &err);
	if (!rootfs) {
		reason = "CreateContainerError";
		goto fail;
	}
	cfg.rootfs = rootfs;
	SK_POD_TRACE(p, "rootfs mounted");
	{
		uint32_t saved = k->restarts;

		k->restarts = attempt;
		if (sk__ag_container_config(a, p, pod, cs, k, &img, id, &ar, &cfg, &reason, &err) < 0) {
			k->restarts = saved;
			goto fail;
		}
		k->restarts = saved;
	}
	if (k->kind == CTR_EPHEMERAL && sk_kube_jstr(cs, "targetContainerName")) {
		/* kubelet's: the target's PID namespace (it must be running) */
		struct ctr *t = ctr_by_name(p, sk_kube_jstr(cs, "targetContainerName"));

		if (!t || !t->cur || t->cur->status != SK_CONTAINER_RUNNING || t->cur->pid <= 0) {
			sk_error_set(&err, SK_EINVALID, "target container \"%s\" is not running",
				     sk_kube_jstr(cs, "targetContainerName"));
			reason = "CreateContainerConfigError";
			goto fail;
		}
		cfg.pid_ns = sk__ag_arena_keep(&ar, xasprintf("/proc/%d/ns/pid", t->cur->pid));
	}
	cfg.handler = handler && *handler ? handler : NULL;
	if (gpu_prepare(a, p, cs, k, id, &ar, &cfg, &inj, &gpu_held, &reason, &err) < 0)
		goto fail;
	SK_POD_TRACE(p, "config built");
	if (sk_container_create(&a->rt, &cfg, &c, &err) < 0) {
		sk__ag_metrics_op(a, "create_container", false);
		reason = "CreateContainerError";
		goto fail;
	}
	sk__ag_metrics_op(a, "create_container", true);
	SK_POD_TRACE(p, "container created");
	sk_gpu_injection_release(&inj);
	if (gpu_held)
		gpu_annotate(a, p);
	{
		cleanup_free char *idp = xasprintf("%.*s.id", (int)(strlen(c->log_path) - 4), c->log_path);

		if (sk_write_file(idp, c->id, strlen(c->id), 0644) < 0)
			sk_warn("agent", "writing \"%s\": %s", idp, strerror(errno));
	}
	sk__ag_event(a, pod, "Normal", "Created", "Created container %s", k->name);
	if (p->sb->net && sk_sandbox_network_wait(p->sb, &err) < 0) {
		sk_error_t e2 = {0};

		/* the container goes before its sandbox; the next sync makes a new one */
		sk_container_remove(&a->rt, c, &e2);
		sk_container_free(c);
		c = NULL;
		sandbox_failed(a, p, pod, err.msg);
		drop_sandbox(a, p);
		reason = "CreateContainerError";
		goto fail;
	}
	SK_POD_TRACE(p, "network ready");
	if (sk_container_start(&a->rt, c, &err) < 0) {
		sk__ag_metrics_op(a, "start_container", false);
		reason = "RunContainerError";
		sk_error_t e2 = {0};
		sk_container_remove(&a->rt, c, &e2);
		sk_container_free(c);
		c = NULL;
		goto fail;
	}
	SK_POD_TRACE(p, "container started");
	sk__ag_metrics_op(a, "start_container", true);
	sk__ag_event(a, pod, "Normal", "Started", "Started container %s", k->name);
	prune_logs(p, k, attempt);
	drop_attempt(a, k->prev);
	free(k->prev_msg);
	k->prev = k->cur;
	k->prev_msg = k->cur_msg;
	k->cur = c;
	k->cur_msg = NULL;
	k->restarts = attempt;
	k->ready = false;
	k->started = false;
	k->poststart_done = false;
	k->killing = false;
	memset(k->probe_ok, 0, sizeof(k->probe_ok));
	memset(k->probe_fail, 0, sizeof(k->probe_fail));
	memset(k->probe_next_ns, 0, sizeof(k->probe_next_ns));
	set_wait(k, NULL, NULL);
	free(rootfs);
	sk__ag_arena_release(&ar);
	sk_image_info_release(&img);
	run_post_start(a, p, pod, cs, k);
	SK_POD_TRACE(p, "container done");
	return 0;
fail:
	sk_gpu_injection_release(&inj);
	if (gpu_held) {
		sk_error_t e2 = {0};
		sk_gpu_release(a->gpu, id, &e2);
	}
	if (rootfs) {
		sk_error_t e2 = {0};
		sk_image_rootfs_remove(a->images, id, &e2);
	}
	free(rootfs);
	sk__ag_arena_release(&ar);
	sk_image_info_release(&img);
	if (!k->wait_reason || strcmp(k->wait_reason, reason ? reason : "") ||
	    strcmp(k->wait_msg ? k->wait_msg : "", err.msg))
		sk__ag_event(a, pod, "Warning", "Failed", "Error: %s", err.msg);
	set_wait(k, reason ? reason : "CreateContainerError", err.msg);
	if (!k->cur)
		k->next_start_ns = now_ns() + 2000000000LL;
	return -1;
}

/* ---- restart decisions ------------------------------------------------------------------ */

static bool should_restart(json_t *pod, struct ctr *k)
{
	const char *rp = restart_policy(pod);

	if (!k->cur || k->cur->status != SK_CONTAINER_EXITED)
		return false;
	if (k->kind == CTR_SIDECAR)
		return true;
	if (k->kind == CTR_INIT)
		return k->cur->exit_code != 0 && strcmp(rp, "Never") != 0;
	if (!strcmp(rp, "Always"))
		return true;
	return !strcmp(rp, "OnFailure") && k->cur->exit_code != 0;
}

/* Restarts an exited container after its back-off; sets CrashLoopBackOff meanwhile. */
static void maybe_restart(struct sk_agent *a, struct apod *p, json_t *pod, struct ctr *k)
{
	int64_t now = now_ns();

	if (!should_restart(pod, k)) {
		sk_error_t err = {0};

		if (k->cur && k->cur->status == SK_CONTAINER_EXITED)
			sk_gpu_release(a->gpu, k->cur->id, &err);
		return;
	}
	if (k->cur->finished_ns && k->cur->started_ns &&
	    k->cur->finished_ns - k->cur->started_ns > 2 * a->backoff_max_ms * 1000000)
		k->backoff_ms = 0;
	if (now < k->next_start_ns) {
		if (!k->wait_reason || strcmp(k->wait_reason, "CrashLoopBackOff")) {
			char msg[512];

			snprintf(msg, sizeof(msg), "back-off %llds restarting failed container=%s pod=%s_%s(%s)",
				 (long long)(k->backoff_ms / 2000 ? k->backoff_ms / 2000 : 1), k->name, p->name, p->ns,
				 p->uid);
			set_wait(k, "CrashLoopBackOff", msg);
			sk__ag_event(a, pod, "Warning", "BackOff",
				     "Back-off restarting failed container %s in pod %s_%s(%s)", k->name, p->name,
				     p->ns, p->uid);
		}
		return;
	}
	if (start_ctr(a, p, pod, k) == 0 ||
	    (k->wait_reason && strcmp(k->wait_reason, "ImagePullBackOff") && strcmp(k->wait_reason, "ErrImagePull"))) {
		k->next_start_ns = now_ns() + k->backoff_ms * 1000000;
		k->backoff_ms = k->backoff_ms ? k->backoff_ms * 2 : a->backoff_base_ms;
		if (k->backoff_ms > a->backoff_max_ms)
			k->backoff_ms = a->backoff_max_ms;
		if (k->next_start_ns <= now_ns())
			k->next_start_ns = now_ns() + k->backoff_ms * 1000000 / 2;
	}
}

/* ---- probes ------------------------------------------------------------------------------ */

static int64_t probe_i(json_t *pr, const char *key, int64_t def)
{
	json_t *v = json_object_get(pr, key);

	return json_is_integer(v) ? json_integer_value(v) : def;
}

/* Runs probe `kind` of a running container when due; returns its verdict
 * change: 1 passed threshold, -1 failed threshold, 0 nothing new. */
static int probe_step(struct sk_agent *a, struct apod *p, json_t *pod, struct ctr *k, enum probe_kind kind, json_t *pr,
		      int64_t *next_wake)
{
	static const char *const names[] = {"Startup", "Readiness", "Liveness"};
	int64_t now = now_ns();
	int64_t period = probe_i(pr, "periodSeconds", 10) * 1000000000LL;
	int64_t start = k->cur->started_ns ? k->cur->started_ns : now;
	char *msg = NULL;
	int rc, verdict = 0;

	if (!k->probe_next_ns[kind])
		k->probe_next_ns[kind] = start + probe_i(pr, "initialDelaySeconds", 0) * 1000000000LL;
	if (now < k->probe_next_ns[kind]) {
		if (k->probe_next_ns[kind] < *next_wake)
			*next_wake = k->probe_next_ns[kind];
		return 0;
	}
	rc = sk__probe_run(a, p, k->cur, pr, (int)probe_i(pr, "timeoutSeconds", 1), &msg);
	k->probe_next_ns[kind] = now_ns() + period;
	if (k->probe_next_ns[kind] < *next_wake)
		*next_wake = k->probe_next_ns[kind];
	if (rc == 0) {
		k->probe_fail[kind] = 0;
		if (++k->probe_ok[kind] >= probe_i(pr, "successThreshold", 1))
			verdict = 1;
	} else {
		k->probe_ok[kind] = 0;
		sk__ag_event(a, pod, "Warning", "Unhealthy", "%s probe failed: %s", names[kind], msg ? msg : "");
		if (++k->probe_fail[kind] >= probe_i(pr, "failureThreshold", 3))
			verdict = -1;
	}
	free(msg);
	return verdict;
}

static int64_t grace_seconds(json_t *pod)
{
	json_t *g = sk_kube_jget(pod, "metadata.deletionGracePeriodSeconds");

	if (!json_is_integer(g))
		g = sk_kube_jget(pod, "spec.terminationGracePeriodSeconds");
	if (!json_is_integer(g))
		return 30;
	return json_integer_value(g) < 0 ? 0 : json_integer_value(g);
}

static void signal_and_wait(struct sk_agent *a, struct apod *p, struct ctr *k, int64_t deadline_ns);

static void kill_for_restart(struct sk_agent *a, struct apod *p, json_t *pod, struct ctr *k, const char *why)
{
	sk_error_t err = {0};
	json_t *cs = ctr_spec(pod, k);
	json_t *pre = sk_kube_jget(cs, "lifecycle.preStop");

	sk__ag_event(a, pod, "Normal", "Killing", "Container %s %s, will be restarted", k->name, why);
	k->killing = true;
	if (pre) {
		char *msg = NULL;

		if (sk__probe_run(a, p, k->cur, pre, (int)grace_seconds(pod), &msg) < 0)
			sk__ag_event(a, pod, "Warning", "FailedPreStopHook", "PreStopHook failed: %s", msg ? msg : "");
		free(msg);
	}
	(void)err;
	signal_and_wait(a, p, k, sk_ns_after(now_ns(), grace_seconds(pod)));
	refresh_ctr(a, p, pod, k, true);
	/* a liveness restart is a restart now, not after a back-off */
	k->next_start_ns = 0;
}

static void run_probes(struct sk_agent *a, struct apod *p, json_t *pod, struct ctr *k, int64_t *next_wake)
{
	json_t *cs = ctr_spec(pod, k);
	json_t *sp = json_object_get(cs, "startupProbe"), *rp = json_object_get(cs, "readinessProbe");
	json_t *lp = json_object_get(cs, "livenessProbe");

	if (!k->cur || k->cur->status != SK_CONTAINER_RUNNING)
		return;
	if (k->kind == CTR_INIT)
		return;
	if (!k->started) {
		int v;

		if (!sp) {
			k->started = true;
		} else if ((v = probe_step(a, p, pod, k, PROBE_STARTUP, sp, next_wake)) > 0) {
			k->started = true;
		} else if (v < 0) {
			kill_for_restart(a, p, pod, k, "failed startup probe");
			return;
		}
		if (!k->started)
			return;
	}
	if (lp && probe_step(a, p, pod, k, PROBE_LIVENESS, lp, next_wake) < 0) {
		kill_for_restart(a, p, pod, k, "failed liveness probe");
		return;
	}
	if (!rp) {
		k->ready = true;
	} else {
		int v = probe_step(a, p, pod, k, PROBE_READINESS, rp, next_wake);

		if (v > 0)
			k->ready = true;
		else if (v < 0)
			k->ready = false;
	}
}

/* ---- stopping -------------------------------------------------------------------------- */

/* SIGTERM (or the image's stop signal), wait until the deadline, SIGKILL.
 * Returns early, leaving the container running, when the agent stops: a
 * restarted agent finishes the job. */
static void signal_and_wait(struct sk_agent *a, struct apod *p, struct ctr *k, int64_t deadline_ns)
{
	sk_error_t err = {0};

	if (k->cur->pid > 0 && kill(k->cur->pid, SIGTERM) < 0 && errno != ESRCH)
		sk_warn("agent", "pod %s/%s: signalling %s: %s", p->ns, p->name, k->name, strerror(errno));
	while (now_ns() < deadline_ns && !sk__ag_stopping(a)) {
		sk_error_clear(&err);
		if (sk_container_wait(&a->rt, k->cur, 200, &err) == 0)
			return;
	}
	if (sk__ag_stopping(a))
		return;
	if (sk_container_stop(&a->rt, k->cur, SIGKILL, 0, &err) < 0)
		sk_warn("agent", "pod %s/%s: killing %s: %s", p->ns, p->name, k->name, err.msg);
}

static void stop_ctr(struct sk_agent *a, struct apod *p, json_t *pod, struct ctr *k, int64_t deadline_ns, bool hooks)
{
	json_t *cs = ctr_spec(pod, k);
	json_t *pre = sk_kube_jget(cs, "lifecycle.preStop");
	int64_t left;

	refresh_ctr(a, p, pod, k, true);
	if (!k->cur || k->cur->status != SK_CONTAINER_RUNNING)
		return;
	sk__ag_event(a, pod, "Normal", "Killing", "Stopping container %s", k->name);
	left = (deadline_ns - now_ns()) / 1000000000;
	if (hooks && pre && left > 0) {
		char *msg = NULL;

		if (sk__probe_run(a, p, k->cur, pre, (int)left, &msg) < 0)
			sk__ag_event(a, pod, "Warning", "FailedPreStopHook", "PreStopHook failed: %s", msg ? msg : "");
		free(msg);
	}
	signal_and_wait(a, p, k, deadline_ns);
	refresh_ctr(a, p, pod, k, true);
}

/* Stops every container: regular ones first, then sidecars in reverse order. */
static void stop_all(struct sk_agent *a, struct apod *p, json_t *pod, int64_t grace_s)
{
	int64_t deadline = sk_ns_after(now_ns(), grace_s);

	for (size_t i = 0; i < p->nctrs; i++)
		if (p->ctrs[i].kind != CTR_SIDECAR)
			stop_ctr(a, p, pod, &p->ctrs[i], deadline, true);
	for (size_t i = p->nctrs; i-- > 0;)
		if (p->ctrs[i].kind == CTR_SIDECAR)
			stop_ctr(a, p, pod, &p->ctrs[i],
				 deadline > now_ns() + 2000000000LL ? deadline : now_ns() + 2000000000LL, true);
}

/* Removes containers, sandbox and volumes; logs stay until the pod is gone. */
static void teardown(struct sk_agent *a, struct apod *p)
{
	sk_error_t err = {0};

	for (size_t i = 0; i < p->nctrs; i++) {
		struct ctr *k = &p->ctrs[i];

		if (k->cur) {
			struct sk_container *c = k->cur;

			k->cur = NULL;
			/* keep a copy of what status needs */
			k->cur = xzalloc(sizeof(*k->cur));
			k->cur->id = xstrdup(c->id);
			k->cur->name = xstrdup(c->name);
			k->cur->handler = c->handler ? xstrdup(c->handler) : NULL;
			k->cur->status = c->status == SK_CONTAINER_RUNNING ? SK_CONTAINER_EXITED : c->status;
			k->cur->exit_code = c->status == SK_CONTAINER_EXITED ? c->exit_code : 137;
			k->cur->reason = xstrdup(c->reason ? c->reason : "Error");
			k->cur->started_ns = c->started_ns;
			k->cur->finished_ns = c->finished_ns ? c->finished_ns : now_ns();
			k->cur->log_path = c->log_path ? xstrdup(c->log_path) : NULL;
			drop_attempt(a, c);
		}
		drop_attempt(a, k->prev);
		k->prev = NULL;
	}
	for (size_t i = 0; i < p->nadopt; i++)
		drop_attempt(a, p->adopt[i]);
	p->nadopt = 0;
	if (p->sb) {
		sk_sandbox_network_wait(p->sb, &err);
		sk_error_clear(&err);
		if (sk_sandbox_remove(&a->rt, p->sb->id, &err) < 0)
			sk_warn("agent", "pod %s/%s: removing sandbox: %s", p->ns, p->name, err.msg);
		sk_sandbox_free(p->sb);
		p->sb = NULL;
	}
	sk__volumes_teardown(a, p);
	pthread_mutex_lock(&a->mu);
	p->released = true;
	pthread_mutex_unlock(&a->mu);
	if (sk_gpu_release_pod(a->gpu, p->uid, &err) < 0)
		sk_warn("agent", "pod %s/%s: releasing GPUs: %s", p->ns, p->name, err.msg);
	p->stopped = true;
}

static void remove_dir(const char *path)
{
	cleanup_free char *cmd = xasprintf("rm -rf '%s'", path);

	if (system(cmd) != 0)
		sk_warn("agent", "removing \"%s\" failed", path);
}

/* The pod is being deleted: stop, clean up, and finish the API deletion. */
static void adopt(struct sk_agent *a, struct apod *p, json_t *pod);

static int terminate(struct sk_agent *a, struct apod *p, json_t *pod, bool gone)
{
	if (!p->stopped) {
		ensure_ctrs(p, pod);
		adopt(a, p, pod);
		stop_all(a, p, pod, grace_seconds(pod));
		if (sk__ag_stopping(a))
			return 1000;
		teardown(a, p);
		if (!gone) {
			/* report the terminated containers and the terminal phase before the final
			 * delete: a finalizer (a Job's job-tracking) waits for it */
			cleanup_json json_t *st = sk__ag_pod_status(a, p, pod);

			sk__ag_status_write(a, p, pod, st);
		}
	}
	if (gone) {
		remove_dir(p->log_dir);
		remove_dir(p->pod_dir);
		return -1;
	}
	if (sk_kube_jstr(pod, "metadata.deletionTimestamp")) {
		cleanup_free char *path = xasprintf("/api/v1/namespaces/%s/pods/%s", p->ns, p->name);
		cleanup_json json_t *opts = json_pack("{s:s, s:s, s:i, s:{s:s}}", "kind", "DeleteOptions", "apiVersion",
						      "v1", "gracePeriodSeconds", 0, "preconditions", "uid", p->uid);
		sk_error_t err = {0};

		if (sk_client_delete(a->c, path, opts, &err) < 0 && err.code != SK_ENOTFOUND &&
		    err.code != SK_ECONFLICT)
			sk_warn("agent", "deleting pod %s/%s: %s", p->ns, p->name, err.msg);
	}
	return 2000;
}

/* ---- adoption ----------------------------------------------------------------------- */

static void adopt_claimed(struct sk_agent *a, struct apod *p, json_t *pod)
{
	struct sk_container **cs = steal_ptr(&p->claim_c);
	size_t n = p->nclaim_c;

	p->nclaim_c = 0;
	p->sb = steal_ptr(&p->claim_sb);
	/* highest attempt first */
	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++)
			if (cs[j]->attempt > cs[i]->attempt) {
				struct sk_container *t = cs[i];
				cs[i] = cs[j];
				cs[j] = t;
			}
	for (size_t i = 0; i < n; i++) {
		struct ctr *k = ctr_by_name(p, cs[i]->name);

		if (k && !k->cur) {
			k->cur = cs[i];
			k->restarts = cs[i]->attempt;
			k->poststart_done = true;
			k->image_name = xstrdup(
				sk_kube_jstr(ctr_spec(pod, k), "image") ? sk_kube_jstr(ctr_spec(pod, k), "image") : "");
			k->image_id = xstrdup(cs[i]->image_ref ? cs[i]->image_ref : "");
			if (cs[i]->image_id && cs[i]->image_ref && strchr(cs[i]->image_ref, '@') == NULL) {
				sk_image_info info = {0};
				sk_error_t err = {0};

				if (sk_image_lookup(a->images, cs[i]->image_id, &info, &err) == 0 && info.image_ref) {
					free(k->image_id);
					k->image_id = xstrdup(info.image_ref);
				}
				sk_image_info_release(&info);
			}
			if (k->kind == CTR_INIT && cs[i]->status == SK_CONTAINER_EXITED && cs[i]->exit_code == 0)
				k->done = true;
			if (cs[i]->status == SK_CONTAINER_EXITED)
				k->cur_msg = termination_message(p, ctr_spec(pod, k), cs[i]);
		} else if (k && !k->prev) {
			k->prev = cs[i];
			if (cs[i]->status == SK_CONTAINER_EXITED)
				k->prev_msg = termination_message(p, ctr_spec(pod, k), cs[i]);
		} else {
			p->adopt = xrealloc(p->adopt, (p->nadopt + 1) * sizeof(*p->adopt));
			p->adopt[p->nadopt++] = cs[i];
		}
	}
	free(cs);
	if (p->sb || n)
		sk_info("agent", "pod %s/%s: re-adopted sandbox %s and %zu containers", p->ns, p->name,
			p->sb ? p->sb->id : "(none)", n);
	/* init containers before a started regular container are done */
	for (size_t i = 0; i < p->nctrs; i++)
		if (p->ctrs[i].kind == CTR_REGULAR && p->ctrs[i].cur)
			for (size_t j = 0; j < p->nctrs; j++)
				if (p->ctrs[j].kind == CTR_INIT)
					p->ctrs[j].done = true;
}

static void adopt(struct sk_agent *a, struct apod *p, json_t *pod)
{
	if (p->adopted)
		return;
	p->adopted = true;
	adopt_claimed(a, p, pod);
}

/* ---- the sync loop -------------------------------------------------------------------- */

static bool phase_terminal(const char *phase)
{
	return phase && (!strcmp(phase, "Succeeded") || !strcmp(phase, "Failed"));
}

/* Init containers in order. Returns true when all are done (sidecars started). */
static bool sync_init(struct sk_agent *a, struct apod *p, json_t *pod, int64_t *next_wake)
{
	for (size_t i = 0; i < p->nctrs; i++) {
		struct ctr *k = &p->ctrs[i];

		if (k->kind == CTR_REGULAR || k->kind == CTR_EPHEMERAL)
			continue;
		refresh_ctr(a, p, pod, k, false);
		if (k->kind == CTR_SIDECAR) {
			if (!k->cur) {
				if (start_ctr(a, p, pod, k) < 0)
					return false;
			} else if (k->cur->status == SK_CONTAINER_EXITED) {
				maybe_restart(a, p, pod, k);
			}
			run_probes(a, p, pod, k, next_wake);
			if (!k->started && !k->done)
				return false;
			k->done = true;
			continue;
		}
		if (k->done)
			continue;
		if (!k->cur) {
			if (k->next_start_ns <= now_ns() || !k->wait_reason)
				start_ctr(a, p, pod, k);
			return false;
		}
		if (k->cur->status == SK_CONTAINER_EXITED) {
			if (k->cur->exit_code == 0) {
				k->done = true;
				continue;
			}
			maybe_restart(a, p, pod, k);
		}
		return false;
	}
	return true;
}

static void sync_regular(struct sk_agent *a, struct apod *p, json_t *pod, int64_t *next_wake)
{
	for (size_t i = 0; i < p->nctrs; i++) {
		struct ctr *k = &p->ctrs[i];

		if (k->kind != CTR_REGULAR)
			continue;
		refresh_ctr(a, p, pod, k, false);
		if (!k->cur) {
			if (k->next_start_ns <= now_ns() || !k->wait_reason ||
			    !strcmp(k->wait_reason, "ErrImagePull") || !strcmp(k->wait_reason, "ImagePullBackOff"))
				start_ctr(a, p, pod, k);
		} else if (k->cur->status == SK_CONTAINER_EXITED) {
			maybe_restart(a, p, pod, k);
		}
		run_probes(a, p, pod, k, next_wake);
		if (k->next_start_ns > now_ns() && k->next_start_ns < *next_wake)
			*next_wake = k->next_start_ns;
	}
}

/* Ephemeral containers run once, never restarted nor probed (kubelet
 * treats them as restartPolicy Never); a failed start is retried. */
static void sync_ephemeral(struct sk_agent *a, struct apod *p, json_t *pod, int64_t *next_wake)
{
	for (size_t i = 0; i < p->nctrs; i++) {
		struct ctr *k = &p->ctrs[i];

		if (k->kind != CTR_EPHEMERAL)
			continue;
		refresh_ctr(a, p, pod, k, false);
		if (!k->cur && (k->next_start_ns <= now_ns() || !k->wait_reason))
			start_ctr(a, p, pod, k);
		if (!k->cur && k->next_start_ns > now_ns() && k->next_start_ns < *next_wake)
			*next_wake = k->next_start_ns;
	}
}

/* Rotates the live logs of running containers that grew too big. */
static void rotate_logs(struct sk_agent *a, struct apod *p)
{
	int64_t max = a->o.log_max_size > 0 ? a->o.log_max_size : 10 << 20;
	int files = a->o.log_max_files > 0 ? a->o.log_max_files : 5;

	for (size_t i = 0; i < p->nctrs; i++) {
		struct sk_container *c = p->ctrs[i].cur;
		struct stat st;
		sk_error_t err = {0};

		if (!c || c->status != SK_CONTAINER_RUNNING || !c->log_path || stat(c->log_path, &st) < 0 ||
		    st.st_size < max)
			continue;
		if (sk_crilog_rotate(c->log_path, files, &err) < 0 || sk_container_reopen_log(&a->rt, c, &err) < 0)
			sk_warn("agent", "rotating %s: %s", c->log_path, err.msg);
	}
}

/* Stops sidecars once every regular container has terminated for good. */
static void stop_sidecars_if_done(struct sk_agent *a, struct apod *p, json_t *pod)
{
	bool any_sidecar = false;

	for (size_t i = 0; i < p->nctrs; i++) {
		struct ctr *k = &p->ctrs[i];

		if (k->kind == CTR_SIDECAR)
			any_sidecar = true;
		if (k->kind == CTR_REGULAR &&
		    (!k->cur || k->cur->status != SK_CONTAINER_EXITED || should_restart(pod, k)))
			return;
	}
	if (!any_sidecar)
		return;
	for (size_t i = p->nctrs; i-- > 0;)
		if (p->ctrs[i].kind == CTR_SIDECAR) {
			p->ctrs[i].kind = CTR_INIT; /* no more restarts */
			p->ctrs[i].done = true;
			stop_ctr(a, p, pod, &p->ctrs[i], sk_ns_after(now_ns(), grace_seconds(pod)), true);
			p->ctrs[i].kind = CTR_SIDECAR;
		}
}

/* spec.activeDeadlineSeconds: kubelet fails a pod active for longer. */
static bool past_deadline(struct apod *p, json_t *pod)
{
	json_t *d = sk_kube_jget(pod, "spec.activeDeadlineSeconds");
	int64_t start;

	if (!json_is_integer(d) || !p->start_time || sk_time_parse(p->start_time, &start) < 0)
		return false;
	if (now_ns() / 1000000000 - start < json_integer_value(d))
		return false;
	if (!p->reject_reason) {
		p->reject_reason = xstrdup("DeadlineExceeded");
		p->reject_msg = xasprintf("Pod was active on the node longer than the specified deadline");
		sk__ag_event(p->a, pod, "Normal", "DeadlineExceeded", "%s", p->reject_msg);
	}
	return true;
}

static bool any_running(struct apod *p)
{
	for (size_t i = 0; i < p->nctrs; i++)
		if (p->ctrs[i].cur && p->ctrs[i].cur->status != SK_CONTAINER_EXITED)
			return true;
	return false;
}

/* A terminal pod whose containers have all exited no longer counts against
 * the node's allocatable (kubelet's admission skips terminal pods), though
 * its teardown has yet to run: the scheduler frees its requests on seeing
 * the terminal phase and may bind the next pod at once. */
static void release(struct sk_agent *a, struct apod *p)
{
	pthread_mutex_lock(&a->mu);
	p->released = true;
	pthread_mutex_unlock(&a->mu);
}

static int sync_pod(struct sk_agent *a, struct apod *p, json_t *pod, bool gone)
{
	int64_t next_wake = now_ns() + SYNC_MS * 1000000LL;
	static __thread int64_t last_full;
	cleanup_json json_t *st = NULL;
	bool full = sk_mono_ns() - last_full > 5000000000LL;

	if (gone || sk_kube_jstr(pod, "metadata.deletionTimestamp"))
		return terminate(a, p, pod, gone);
	if (p->stopped)
		return 5000;
	ensure_ctrs(p, pod);
	if (!p->start_time) {
		const char *s = sk_kube_jstr(pod, "status.startTime");
		char buf[32];

		sk_time_format(now_ns() / 1000000000, buf, sizeof(buf));
		p->start_time = xstrdup(s ? s : buf);
		adopt(a, p, pod);
	}
	if (!p->admitted && !p->reject_reason) {
		bool running = p->sb || (sk_kube_jstr(pod, "status.phase") &&
					 strcmp(sk_kube_jstr(pod, "status.phase"), "Pending") != 0);

		if (running) {
			pthread_mutex_lock(&a->mu);
			p->admitted = true;
			pthread_mutex_unlock(&a->mu);
		} else {
			sk__ag_admit(a, p, pod);
			SK_POD_TRACE(p, "admitted");
		}
	}
	if (phase_terminal(sk_kube_jstr(pod, "status.phase")) && !p->last_status) {
		/* finished before a restart of the agent: nothing runs again */
		teardown(a, p);
		return 5000;
	}
	if (full)
		last_full = sk_mono_ns();
	for (size_t i = 0; i < p->nctrs; i++)
		refresh_ctr(a, p, pod, &p->ctrs[i], full);
	if (p->reject_reason || past_deadline(p, pod)) {
		/* the status below is Failed; everything is stopped with it */
	} else if (ensure_sandbox(a, p, pod) == 0) {
		if (!p->mounts) {
			sk_error_t err = {0};

			if (sk__volumes_setup(a, p, pod, &err) < 0) {
				if (!p->mount_error || strcmp(p->mount_error, err.msg))
					sk__ag_event(a, pod, "Warning", "FailedMount", "%s", err.msg);
				free(p->mount_error);
				p->mount_error = xstrdup(err.msg);
			} else {
				free(p->mount_error);
				p->mount_error = NULL;
			}
		}
		sk__volumes_refresh(a, p, pod);
		if (p->mounts && sync_init(a, p, pod, &next_wake)) {
			sync_regular(a, p, pod, &next_wake);
			sync_ephemeral(a, p, pod, &next_wake);
		}
		stop_sidecars_if_done(a, p, pod);
		rotate_logs(a, p);
	}
	network_ready(a, p, pod);
	st = sk__ag_pod_status(a, p, pod);
	if (phase_terminal(sk_kube_jstr(st, "phase"))) {
		sk_error_t err = {0};

		sk_gpu_release_pod(a->gpu, p->uid, &err);
	}
	if (phase_terminal(sk_kube_jstr(st, "phase")) && !any_running(p))
		release(a, p);
	sk__ag_status_write(a, p, pod, st);
	if (phase_terminal(sk_kube_jstr(st, "phase"))) {
		cleanup_json json_t *after = NULL;

		stop_all(a, p, pod, grace_seconds(pod));
		release(a, p);
		teardown(a, p);
		/* the sandbox is gone: PodReadyToStartContainers turns False */
		after = sk__ag_pod_status(a, p, pod);
		sk__ag_status_write(a, p, pod, after);
		return 5000;
	}
	{
		int64_t d = (next_wake - now_ns()) / 1000000;

		return d < 50 ? 50 : (d > SYNC_MS ? SYNC_MS : (int)d);
	}
}

void *sk__pod_worker(void *arg)
{
	struct apod *p = arg;
	struct sk_agent *a = p->a;

	if (!p->pod_dir) {
		p->pod_dir = xasprintf("%s/pods/%s", a->data_dir, p->uid);
		p->log_dir = xasprintf("%s/logs/%s_%s_%s", a->data_dir, p->ns, p->name, p->uid);
		sk_mkdir_p(p->pod_dir, 0750);
		sk_mkdir_p(p->log_dir, 0755);
	}
	while (!sk__ag_stopping(a)) {
		bool gone = false;
		cleanup_json json_t *pod = sk__apod_get(p, &gone);
		int delay = sync_pod(a, p, pod, gone);
		struct timespec ts;

		if (delay < 0)
			break;
		if (p->stopped && !gone && !sk_kube_jstr(pod, "metadata.deletionTimestamp")) {
			/* terminal and torn down: nothing to do until the pod is
			 * deleted, so no thread waits for it (the agent starts a
			 * worker again on the pod's next change) */
			pthread_mutex_lock(&a->mu);
			if (!p->wake && !sk__ag_stopping(a)) {
				p->parked = true;
				pthread_mutex_unlock(&a->mu);
				return NULL;
			}
			pthread_mutex_unlock(&a->mu);
		}
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += delay / 1000;
		ts.tv_nsec += (long)(delay % 1000) * 1000000;
		if (ts.tv_nsec >= 1000000000) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000;
		}
		pthread_mutex_lock(&a->mu);
		while (!p->wake && !sk__ag_stopping(a)) {
			if (pthread_cond_timedwait(&p->cond, &a->mu, &ts) != 0)
				break;
		}
		p->wake = false;
		pthread_mutex_unlock(&a->mu);
	}
	pthread_mutex_lock(&a->mu);
	p->finished = !sk__ag_stopping(a);
	pthread_mutex_unlock(&a->mu);
	return NULL;
}
