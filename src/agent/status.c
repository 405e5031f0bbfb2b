/* Pod status as kubelet computes it (generateAPIPodStatus, getPhase): per
 * container state, lastState, ready, started, restartCount, image ids; the
 * phase; the conditions; pod and host IPs. Written with a merge patch of
 * pods/NAME/status only when something changed. */
#include <string.h>
#include <time.h>

#include "agent/agent-int.h"
#include "kube/condition.h"
#include "kube/qos.h"
#include "util/util.h"

static json_t *ts_json(int64_t ns)
{
	char buf[32];

	if (!ns)
		return json_null();
	sk_time_format(ns / 1000000000, buf, sizeof(buf));
	return json_string(buf);
}

static char *container_id(struct sk_agent *a, const struct sk_container *c)
{
	return xasprintf("%s://%s", c->handler ? c->handler : a->rt.default_handler, c->id);
}

static json_t *terminated(struct sk_agent *a, const struct sk_container *c, const char *msg)
{
	cleanup_free char *cid = container_id(a, c);
	json_t *t = json_pack("{s:i, s:s, s:o, s:o, s:s}", "exitCode", c->exit_code, "reason",
			      c->reason ? c->reason : (c->exit_code ? "Error" : "Completed"), "startedAt",
			      ts_json(c->started_ns), "finishedAt", ts_json(c->finished_ns), "containerID", cid);

	if (msg)
		json_object_set_new(t, "message", json_string(msg));
	return json_pack("{s:o}", "terminated", t);
}

static json_t *waiting(const char *reason, const char *msg)
{
	json_t *w = json_pack("{s:s}", "reason", reason);

	if (msg && *msg)
		json_object_set_new(w, "message", json_string(msg));
	return json_pack("{s:o}", "waiting", w);
}

/* True while the pod's init containers have not all finished. */
static bool init_pending(struct apod *p)
{
	for (size_t i = 0; i < p->nctrs; i++)
		if ((p->ctrs[i].kind == CTR_INIT || p->ctrs[i].kind == CTR_SIDECAR) && !p->ctrs[i].done)
			return true;
	return false;
}

static json_t *container_status(struct sk_agent *a, struct apod *p, json_t *cs, struct ctr *k)
{
	const char *image = sk_kube_jstr(cs, "image") ? sk_kube_jstr(cs, "image") : "";
	json_t *o = json_pack("{s:s, s:s, s:s, s:i, s:b}", "name", k->name, "image",
			      k->image_name && *k->image_name ? k->image_name : image, "imageID",
			      k->image_id ? k->image_id : "", "restartCount", k->restarts, "ready", k->ready);
	struct sk_container *c = k->cur;
	json_t *state, *last = NULL;

	if (c) {
		cleanup_free char *cid = container_id(a, c);

		json_object_set_new(o, "containerID", json_string(cid));
	}
	if (!c) {
		const char *r = k->wait_reason;

		if (!r)
			r = k->kind == CTR_REGULAR && init_pending(p) ? "PodInitializing" : "ContainerCreating";
		state = waiting(r, k->wait_msg);
		if (k->prev)
			last = terminated(a, k->prev, k->prev_msg);
	} else if (c->status == SK_CONTAINER_RUNNING) {
		state = json_pack("{s:{s:o}}", "running", "startedAt", ts_json(c->started_ns));
		if (k->prev && k->prev->status == SK_CONTAINER_EXITED)
			last = terminated(a, k->prev, k->prev_msg);
	} else if (c->status == SK_CONTAINER_EXITED && k->wait_reason) {
		state = waiting(k->wait_reason, k->wait_msg);
		last = terminated(a, c, k->cur_msg);
	} else if (c->status == SK_CONTAINER_EXITED) {
		state = terminated(a, c, k->cur_msg);
		if (k->prev && k->prev->status == SK_CONTAINER_EXITED)
			last = terminated(a, k->prev, k->prev_msg);
	} else {
		state = waiting("ContainerCreating", NULL);
	}
	json_object_set_new(o, "state", state);
	json_object_set_new(o, "lastState", last ? last : json_object());
	if (k->kind != CTR_INIT)
		json_object_set_new(o, "started", json_boolean(c && c->status == SK_CONTAINER_RUNNING && k->started));
	else
		json_object_set_new(o, "started", json_boolean(c && c->status == SK_CONTAINER_RUNNING));
	return o;
}

/* kubelet's getPhase. */
static __attribute__((noinline)) const char *phase(struct apod *p, json_t *pod, json_t *statuses)
{
	const char *rp = sk_kube_jstr(pod, "spec.restartPolicy") ? sk_kube_jstr(pod, "spec.restartPolicy") : "Always";
	int running = 0, waiting_n = 0, stopped = 0, succeeded = 0, total = 0;
	size_t i;
	json_t *s;

	for (i = 0; i < p->nctrs; i++) {
		struct ctr *k = &p->ctrs[i];

		if (k->kind == CTR_INIT && k->cur && k->cur->status == SK_CONTAINER_EXITED && k->cur->exit_code != 0 &&
		    !strcmp(rp, "Never"))
			return "Failed";
	}
	if (init_pending(p))
		return "Pending";
	json_array_foreach(statuses, i, s) {
		json_t *st = json_object_get(s, "state");

		total++;
		if (json_object_get(st, "running")) {
			running++;
		} else if (json_object_get(st, "terminated")) {
			stopped++;
			if (json_integer_value(sk_kube_jget(st, "terminated.exitCode")) == 0)
				succeeded++;
		} else if (json_object_get(st, "waiting")) {
			if (sk_kube_jget(s, "lastState.terminated")) {
				stopped++;
				if (json_integer_value(sk_kube_jget(s, "lastState.terminated.exitCode")) == 0)
					succeeded++;
			} else {
				waiting_n++;
			}
		}
	}
	if (waiting_n > 0)
		return "Pending";
	if (running > 0)
		return "Running";
	if (stopped == total && total > 0) {
		if (!strcmp(rp, "Always"))
			return "Running";
		if (stopped == succeeded)
			return "Succeeded";
		if (!strcmp(rp, "OnFailure"))
			return "Running";
		return "Failed";
	}
	return "Pending";
}

static json_t *cond(json_t *old, const char *type, bool ok, const char *reason, const char *msg, const char *now)
{
	const char *status = ok ? "True" : "False";
	const char *since = sk_kube_condition_since(sk_kube_jget(old, "status.conditions"), type, status, now);
	json_t *c = json_pack("{s:s, s:s, s:n, s:s}", "type", type, "status", status, "lastProbeTime",
			      "lastTransitionTime", since);
	if (reason)
		json_object_set_new(c, "reason", json_string(reason));
	if (msg)
		json_object_set_new(c, "message", json_string(msg));
	return c;
}

/* "[a b]" of container names whose status matches. */
static char *names_where(json_t *statuses, bool want_ready)
{
	char buf[1024];
	size_t n = 0, i;
	json_t *s;
	bool first = true;

	n += (size_t)snprintf(buf, sizeof(buf), "[");
	json_array_foreach(statuses, i, s) {
		bool ready = json_is_true(json_object_get(s, "ready"));

		if (ready == want_ready)
			continue;
		if (n < sizeof(buf))
			n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%s", first ? "" : " ",
					      sk_kube_jstr(s, "name"));
		first = false;
	}
	if (n < sizeof(buf))
		snprintf(buf + n, sizeof(buf) - n, "]");
	return first ? NULL : xstrdup(buf);
}

static json_t *conditions(struct apod *p, json_t *pod, json_t *statuses, json_t *init_statuses, const char *ph)
{
	char now[32];
	json_t *arr = json_array();
	bool done = !strcmp(ph, "Succeeded") || !strcmp(ph, "Failed");
	cleanup_free char *unready = names_where(statuses, true);
	cleanup_free char *uninit = NULL;
	bool initialized = !init_pending(p);
	bool cready = !unready;
	size_t i;
	json_t *s;

	json_array_foreach(init_statuses, i, s) {
		struct ctr *k = NULL;

		for (size_t j = 0; j < p->nctrs; j++)
			if (!strcmp(p->ctrs[j].name, sk_kube_jstr(s, "name")))
				k = &p->ctrs[j];
		if (k && k->kind == CTR_SIDECAR && !k->ready && !done) {
			cready = false;
			if (!unready)
				unready = xasprintf("[%s]", k->name);
		}
		if (k && !k->done) {
			char *u = xasprintf("%s%s%s", uninit ? uninit : "", uninit ? " " : "", k->name);
			free(uninit);
			uninit = u;
		}
	}
	sk_time_format(sk_now_ns() / 1000000000, now, sizeof(now));
	json_array_append_new(arr, cond(pod, "PodReadyToStartContainers", p->sb != NULL, NULL, NULL, now));
	if (initialized) {
		json_array_append_new(
			arr, cond(pod, "Initialized", true, done && !init_statuses ? "PodCompleted" : NULL, NULL, now));
	} else {
		cleanup_free char *m = xasprintf("containers with incomplete status: [%s]", uninit ? uninit : "");
		json_array_append_new(arr, cond(pod, "Initialized", false, "ContainersNotInitialized", m, now));
	}
	if (done) {
		json_array_append_new(arr, cond(pod, "Ready", false, "PodCompleted", NULL, now));
		json_array_append_new(arr, cond(pod, "ContainersReady", false, "PodCompleted", NULL, now));
	} else if (cready && initialized) {
		json_array_append_new(arr, cond(pod, "Ready", true, NULL, NULL, now));
		json_array_append_new(arr, cond(pod, "ContainersReady", true, NULL, NULL, now));
	} else {
		cleanup_free char *m = xasprintf("containers with unready status: %s", unready ? unready : "[]");
		json_array_append_new(arr, cond(pod, "Ready", false, "ContainersNotReady", m, now));
		json_array_append_new(arr, cond(pod, "ContainersReady", false, "ContainersNotReady", m, now));
	}
	json_array_append_new(arr, cond(pod, "PodScheduled", true, NULL, NULL, now));
	return arr;
}

/* Where a failure happened, for status.reason/message of a pending pod. */
static void failure_note(struct apod *p, json_t *st)
{
	if (p->sb_error)
		json_object_set_new(st, "message", json_sprintf("sandbox creation failed: %s", p->sb_error));
	else if (p->mount_error)
		json_object_set_new(st, "message", json_sprintf("volume mount failed: %s", p->mount_error));
}

json_t *sk__ag_pod_status(struct sk_agent *a, struct apod *p, json_t *pod)
{
	json_t *statuses, *init_statuses, *eph_statuses;
	json_t *st;
	const char *ph;

	/* rejected at admission: phase, reason and message only, as kubelet's
	 * rejectPod writes (kubectl shows the reason, OutOfcpu) */
	if (p->reject_reason && !p->admitted)
		return json_pack("{s:s, s:s, s:s, s:s, s:s}", "phase", "Failed", "reason", p->reject_reason, "message",
				 p->reject_msg ? p->reject_msg : "", "qosClass", sk_kube_pod_qos(pod), "startTime",
				 p->start_time);
	statuses = json_array();
	init_statuses = json_array();
	eph_statuses = json_array();

	for (size_t i = 0; i < p->nctrs; i++) {
		struct ctr *k = &p->ctrs[i];
		json_t *cs = NULL, *arr = sk_kube_jget(pod, sk__ag_ctr_list(k->kind)), *c;
		size_t j;

		json_array_foreach(arr, j, c)
			if (!strcmp(sk_kube_jstr(c, "name") ? sk_kube_jstr(c, "name") : "", k->name))
				cs = c;
		json_array_append_new(k->kind == CTR_REGULAR     ? statuses
				      : k->kind == CTR_EPHEMERAL ? eph_statuses
								 : init_statuses,
				      container_status(a, p, cs, k));
	}
	ph = phase(p, pod, statuses);
	st = json_pack("{s:s, s:o, s:s, s:[{s:s}], s:s, s:s}", "phase", ph, "conditions",
		       conditions(p, pod, statuses, json_array_size(init_statuses) ? init_statuses : NULL, ph),
		       "hostIP", a->node_ip, "hostIPs", "ip", a->node_ip, "startTime", p->start_time, "qosClass",
		       sk_kube_pod_qos(pod));
	if (p->sb && p->sb->ip) {
		json_object_set_new(st, "podIP", json_string(p->sb->ip));
		json_object_set_new(st, "podIPs", json_pack("[{s:s}]", "ip", p->sb->ip));
	} else if (p->sb && p->sb->host_network) {
		json_object_set_new(st, "podIP", json_string(a->node_ip));
		json_object_set_new(st, "podIPs", json_pack("[{s:s}]", "ip", a->node_ip));
	} else if (sk_kube_jstr(pod, "status.podIP")) {
		json_object_set(st, "podIP", sk_kube_jget(pod, "status.podIP"));
		json_object_set(st, "podIPs", sk_kube_jget(pod, "status.podIPs"));
	}
	json_object_set_new(st, "containerStatuses", statuses);
	if (json_array_size(init_statuses))
		json_object_set_new(st, "initContainerStatuses", init_statuses);
	else
		json_decref(init_statuses);
	if (json_array_size(eph_statuses))
		json_object_set_new(st, "ephemeralContainerStatuses", eph_statuses);
	else
		json_decref(eph_statuses);
	if (!strcmp(ph, "Pending"))
		failure_note(p, st);
	if (p->reject_reason) {
		json_object_set_new(st, "phase", json_string("Failed"));
		json_object_set_new(st, "reason", json_string(p->reject_reason));
		json_object_set_new(st, "message", json_string(p->reject_msg ? p->reject_msg : ""));
	}
	return st;
}

/* kubelet_pod_start_sli_duration_seconds: from the pod's creation to the
 * first status written with every container running, less the time its
 * image pulls took (upstream's pod startup latency tracker). */
static void observe_start(struct sk_agent *a, struct apod *p, json_t *pod, json_t *st)
{
	json_t *statuses = json_object_get(st, "containerStatuses"), *cs;
	const char *created = sk_kube_jstr(pod, "metadata.creationTimestamp");
	struct tm tm = {0};
	size_t i;

	if (p->start_observed || !json_array_size(statuses) || !created ||
	    !strptime(created, "%Y-%m-%dT%H:%M:%SZ", &tm))
		return;
	json_array_foreach(statuses, i, cs)
		if (!sk_kube_jget(cs, "state.running"))
			return;
	p->start_observed = true;
	sk__ag_metrics_pod_started(a, (double)(sk_now_ns() / 1000000000LL - (int64_t)timegm(&tm)) -
					      (double)p->pull_ns / 1e9);
}

void sk__ag_status_write(struct sk_agent *a, struct apod *p, json_t *pod, json_t *st)
{
	cleanup_free char *path = xasprintf("/api/v1/namespaces/%s/pods/%s/status", p->ns, p->name);
	cleanup_json json_t *patch = NULL, *r = NULL;
	sk_error_t err = {0};

	if (p->last_status && json_equal(p->last_status, st))
		return;
	/* a shallow copy: "message": null below must not change st, which is
	 * kept to compare the next status with */
	patch = json_pack("{s:o}", "status", json_copy(st));
	if (!json_object_get(st, "message"))
		json_object_set_new(json_object_get(patch, "status"), "message", json_null());
	/* a strategic merge patch merges conditions by type, so conditions others
	 * own (DisruptionTarget from an eviction, readiness gates) are kept */
	r = sk_client_patch(a->c, path, SK_PATCH_STRATEGIC, patch, &err);
	if (sk_trace_on()) {
		cleanup_free char *what = xasprintf("status %s written",
						    sk_kube_jstr(st, "phase") ? sk_kube_jstr(st, "phase") : "?");

		SK_POD_TRACE(p, what);
	}
	if (!r) {
		if (err.code != SK_ENOTFOUND)
			sk_warn("agent", "pod %s/%s: writing status: %s", p->ns, p->name, err.msg);
		return;
	}
	json_decref(p->last_status);
	p->last_status = json_incref(st);
	observe_start(a, p, pod, st);
}
