/* The Job controller (after pkg/controller/job). Finished pods are counted
 * exactly once through the batch.kubernetes.io/job-tracking finalizer and
 * status.uncountedTerminatedPods: a finished pod's uid is first recorded in
 * uncountedTerminatedPods, then its finalizer is removed, then the uid moves
 * into the succeeded/failed counters, each step persisted before the next,
 * so a restart at any point neither loses nor double-counts a pod. */
#include <stdlib.h>
#include <string.h>

#include "ctrl/ctrl-int.h"
#include "ctrl/jobutil.h"
#include "util/metrics.h"
#include "util/util.h"

#define BATCH "/apis/batch/v1"
#define TRACKING "batch.kubernetes.io/job-tracking"
#define INDEX_KEY "batch.kubernetes.io/job-completion-index"
#define INDEX_FAILURES "batch.kubernetes.io/job-index-failure-count"
#define COMPONENT "job-controller"
/* spec.managedBy of the Jobs this controller runs (batch/v1 JobControllerName) */
#define JOB_CONTROLLER_NAME "kubernetes.io/job-controller"
#define BURST 500

typedef struct jctx {
	sk_controller *k;
	json_t *job;  /* cached (read-only) */
	json_t *pods; /* claimed pods */
	json_t *nj;   /* job copy with the new status */
	int indexed;
	int64_t completions, parallelism;
	sk_index_set completed, failed_idx;
	int64_t requeue_ms;
	const char *fail_reason;
	char *fail_msg;
	int success; /* success criteria met: 1 completions, 2 success policy */
	int success_rule;
} jctx;

static json_t *jst(jctx *x) { return sk_kube_jobj(x->nj, "status"); }

static int has_finalizer(json_t *pod)
{
	json_t *f;
	size_t i;

	json_array_foreach(sk_kube_jget(pod, "metadata.finalizers"), i, f)
		if (!strcmp(json_string_value(f) ?: "", TRACKING))
			return 1;
	return 0;
}

/* Upstream's pkg/controller/job/metrics (the ones skiff tracks). */
static struct {
	sk_metric_family *pods_finished, *jobs_finished, *tracking;
} jm;

static pthread_once_t jm_once = PTHREAD_ONCE_INIT;

static void jm_init(void)
{
	static const char *const pod_labels[] = {"completion_mode", "result", NULL};
	static const char *const job_labels[] = {"completion_mode", "result", "reason", NULL};
	static const char *const event_labels[] = {"event", NULL};
	sk_metrics *m = sk_metrics_default();

	jm.pods_finished = sk_metrics_family(m, SK_METRIC_COUNTER, "job_controller_job_pods_finished_total",
					     "[ALPHA] The number of finished Pods that are fully tracked", NULL,
					     pod_labels, NULL, 0);
	jm.jobs_finished = sk_metrics_family(m, SK_METRIC_COUNTER, "job_controller_jobs_finished_total",
					     "[ALPHA] The number of finished jobs", NULL, job_labels, NULL, 0);
	jm.tracking = sk_metrics_family(
		m, SK_METRIC_COUNTER, "job_controller_terminated_pods_tracking_finalizer_total",
		"[ALPHA] The number of terminated pods (phase=Failed|Succeeded) that have the finalizer "
		"batch.kubernetes.io/job-tracking. The event label can be \"add\" or \"delete\".",
		NULL, event_labels, NULL, 0);
}

static const char *completion_mode(json_t *job)
{
	const char *m = sk_kube_jstr(job, "spec.completionMode");

	return m && !strcmp(m, "Indexed") ? "Indexed" : "NonIndexed";
}

static void job_finished_metric(json_t *job, const char *result, const char *reason)
{
	const char *v[] = {completion_mode(job), result, reason ? reason : ""};

	pthread_once(&jm_once, jm_init);
	sk_metric_add(jm.jobs_finished, v, 1);
}

static int pod_index(json_t *pod)
{
	const char *s = json_string_value(json_object_get(sk_kube_jget(pod, "metadata.annotations"), INDEX_KEY));
	char *end;
	long v;

	if (!s)
		s = json_string_value(json_object_get(sk_kube_jget(pod, "metadata.labels"), INDEX_KEY));
	if (!s || !*s)
		return -1;
	v = strtol(s, &end, 10);
	return *end || v < 0 ? -1 : (int)v;
}

static int only_replace_failed(json_t *job)
{
	const char *p = sk_kube_jstr(job, "spec.podReplacementPolicy");

	return (p && !strcmp(p, "Failed")) || sk_kube_jget(job, "spec.podFailurePolicy");
}

static int is_phase(json_t *pod, const char *ph)
{
	const char *p = sk_kube_jstr(pod, "status.phase");

	return p && !strcmp(p, ph);
}

/* upstream's isPodFailed. */
static int pod_failed(json_t *pod, json_t *job)
{
	if (is_phase(pod, "Failed"))
		return 1;
	if (only_replace_failed(job))
		return 0;
	return sk__is_deleting(pod) && !is_phase(pod, "Succeeded");
}

static int finished_cond(json_t *job, const char *type)
{
	json_t *c = sk_kube_condition_get(sk_kube_jget(job, "status"), type);

	return c && !strcmp(json_string_value(json_object_get(c, "status")) ?: "", "True");
}

static int job_finished(json_t *job) { return finished_cond(job, "Complete") || finished_cond(job, "Failed"); }

static int uid_in(json_t *arr, const char *uid)
{
	json_t *v;
	size_t i;

	json_array_foreach(arr, i, v)
		if (!strcmp(json_string_value(v) ?: "", uid))
			return 1;
	return 0;
}

static json_t *uncounted(jctx *x, const char *which)
{
	json_t *u = sk_kube_jobj(jst(x), "uncountedTerminatedPods"), *a = json_object_get(u, which);

	if (!json_is_array(a)) {
		a = json_array();
		json_object_set_new(u, which, a);
	}
	return a;
}

static void tidy_uncounted(json_t *st)
{
	json_t *u = json_object_get(st, "uncountedTerminatedPods");

	if (!json_array_size(json_object_get(u, "succeeded")))
		json_object_del(u, "succeeded");
	if (!json_array_size(json_object_get(u, "failed")))
		json_object_del(u, "failed");
}

static int flush_status(jctx *x)
{
	sk_error_t err = {0};

	tidy_uncounted(jst(x));
	if (json_equal(json_object_get(x->nj, "status"), sk_kube_jget(x->job, "status")))
		return 0;
	if (sk__update_status(x->k->ctl, x->k->ctl->jobs, BATCH, "jobs", x->nj, &err) < 0) {
		sk_debug("ctrl", "job \"%s\": status: %s", sk__name(x->job), err.msg);
		return -1;
	}
	json_decref(x->job);
	x->job = sk_informer_get(x->k->ctl->jobs, sk__ns(x->nj), sk__name(x->nj));
	if (!x->job)
		return -1;
	json_object_set_new(x->nj, "metadata", json_deep_copy(json_object_get(x->job, "metadata")));
	return 0;
}

/* Removes the tracking finalizer with a JSON patch guarded by a test. */
static int remove_finalizer(struct sk_ctrl *ctl, json_t *pod)
{
	json_t *f;
	size_t i;

	json_array_foreach(sk_kube_jget(pod, "metadata.finalizers"), i, f) {
		cleanup_free char *path = NULL, *p = NULL;
		cleanup_json json_t *patch = NULL, *out = NULL;
		sk_error_t err = {0};

		if (strcmp(json_string_value(f) ?: "", TRACKING))
			continue;
		p = xasprintf("/metadata/finalizers/%zu", i);
		patch = json_pack("[{s:s, s:s, s:s}, {s:s, s:s}]", "op", "test", "path", p, "value", TRACKING, "op",
				  "remove", "path", p);
		path = sk__path("/api/v1", "pods", sk__ns(pod), sk__name(pod), NULL);
		out = sk_client_patch(ctl->c, path, SK_PATCH_JSON, patch, &err);
		if (!out)
			return err.code == SK_ENOTFOUND ? 0 : -1;
		sk_informer_write(ctl->pods, out);
		return 0;
	}
	return 0;
}

/* Moves uids whose pods no longer hold the finalizer into the counters. */
static int count_released(jctx *x)
{
	static const char *which[] = {"succeeded", "failed"};
	int changed = 0;

	for (int w = 0; w < 2; w++) {
		json_t *arr = uncounted(x, which[w]);
		size_t i = 0;

		while (i < json_array_size(arr)) {
			const char *uid = json_string_value(json_array_get(arr, i));
			json_t *p;
			size_t j;
			int held = 0;

			json_array_foreach(x->pods, j, p)
				if (!strcmp(sk__uid(p) ?: "", uid ?: "") && has_finalizer(p))
					held = 1;
			if (held) {
				i++;
				continue;
			}
			json_object_set_new(jst(x), which[w], json_integer(sk__jint(jst(x), which[w], 0) + 1));
			json_array_remove(arr, i);
			changed = 1;
			{
				const char *v[] = {completion_mode(x->job), which[w]};

				pthread_once(&jm_once, jm_init);
				sk_metric_add(jm.pods_finished, v, 1);
			}
		}
	}
	return changed;
}

/* Returns 1 when a finished (or, for a finished job, any) pod with the
 * finalizer should be recorded and released. */
static int finished_pod(jctx *x, json_t *p)
{
	int finishing = job_finished(x->nj) || sk__is_deleting(x->job) || finished_cond(x->nj, "FailureTarget") ||
			finished_cond(x->nj, "SuccessCriteriaMet") || x->fail_reason;

	return is_phase(p, "Succeeded") || pod_failed(p, x->job) ||
	       (finishing && (sk__is_deleting(p) || sk__pod_terminal(p)));
}

static void record_failure_policy(jctx *x, json_t *p, int *ignored)
{
	json_t *pfp = sk_kube_jget(x->job, "spec.podFailurePolicy");
	char *msg = NULL;
	enum sk_pfp_action a;

	*ignored = 0;
	if (!pfp || !is_phase(p, "Failed"))
		return;
	a = sk_job_pfp_match(pfp, p, &msg);
	if (a == SK_PFP_IGNORE)
		*ignored = 1;
	if (a == SK_PFP_FAIL_JOB && !x->fail_reason) {
		x->fail_reason = "PodFailurePolicy";
		x->fail_msg = steal_ptr(&msg);
	}
	if (a == SK_PFP_FAIL_INDEX && x->indexed && pod_index(p) >= 0)
		sk_index_set_add(&x->failed_idx, pod_index(p));
	free(msg);
}

/* Records newly finished pods in uncountedTerminatedPods; returns the
 * array of pods whose finalizer may go once that is persisted. */
static json_t *record_finished(jctx *x, int *changed)
{
	json_t *release = json_array(), *p;
	size_t i;

	json_array_foreach(x->pods, i, p) {
		const char *uid = sk__uid(p);
		int ignored = 0, ok = is_phase(p, "Succeeded");

		if (!has_finalizer(p) || !finished_pod(x, p))
			continue;
		json_array_append(release, p);
		if (uid_in(uncounted(x, "succeeded"), uid) || uid_in(uncounted(x, "failed"), uid))
			continue;
		if (!ok)
			record_failure_policy(x, p, &ignored);
		if (ignored)
			continue;
		if (ok && x->indexed) {
			/* as upstream: the completion index is the record, and a
			 * second pod of a completed index counts for nothing */
			int idx = pod_index(p);

			if (idx >= 0 && idx < x->completions && !sk_index_set_has(&x->completed, idx)) {
				sk_index_set_add(&x->completed, idx);
				*changed = 1;
			}
			continue;
		}
		json_array_append_new(uncounted(x, ok ? "succeeded" : "failed"), json_string(uid));
		*changed = 1;
	}
	return release;
}

static void set_index_strings(jctx *x)
{
	cleanup_free char *c = NULL, *f = NULL;

	if (!x->indexed)
		return;
	c = sk_index_set_format(&x->completed);
	json_object_set_new(jst(x), "completedIndexes", json_string(c));
	json_object_set_new(jst(x), "succeeded", json_integer(sk_index_set_count(&x->completed)));
	if (sk_kube_jget(x->job, "spec.backoffLimitPerIndex")) {
		f = sk_index_set_format(&x->failed_idx);
		json_object_set_new(jst(x), "failedIndexes", json_string(f));
	}
}

/* The tracking protocol: record, persist, release finalizers, count.
 * Returns 1 after releasing finalizers (x->pods is then stale), 0 when
 * there was nothing to release: the counts are then only in x->nj, and
 * the caller persists them with the rest of the status in one update. */
static int track(jctx *x)
{
	cleanup_json json_t *release = NULL;
	int changed = 0;
	json_t *p;
	size_t i;

	changed |= count_released(x);
	release = record_finished(x, &changed);
	if (x->fail_reason && !sk_kube_condition_get(jst(x), "FailureTarget"))
		sk__cond_set(jst(x), "FailureTarget", "True", x->fail_reason, x->fail_msg, 1, 0);
	set_index_strings(x);
	if (!json_array_size(release))
		return 0;
	if (flush_status(x) < 0)
		return -1;
	json_array_foreach(release, i, p)
		if (remove_finalizer(x->k->ctl, p) < 0)
			return -1;
	json_decref(x->pods);
	x->pods = NULL;
	return 1;
}

static int64_t finish_time(json_t *p)
{
	json_t *cs;
	size_t i;
	int64_t t = -1;

	json_array_foreach(sk_kube_jget(p, "status.containerStatuses"), i, cs) {
		int64_t f = sk__jtime(cs, "state.terminated.finishedAt", -1);

		if (f > t)
			t = f;
	}
	if (t < 0)
		t = sk__jtime(sk_kube_condition_get(json_object_get(p, "status"), "Ready"), "lastTransitionTime", -1);
	return t < 0 ? sk__now() : t;
}

/* Backoff before a new pod (of index idx, or any when idx < 0). */
static int64_t remaining_backoff(jctx *x, int idx)
{
	int64_t last_ok = -1, last_fail = -1, failures = 0, now = sk__now(), wait;
	json_t *p;
	size_t i;

	json_array_foreach(x->pods, i, p) {
		if (idx >= 0 && pod_index(p) != idx)
			continue;
		if (is_phase(p, "Succeeded") && finish_time(p) > last_ok)
			last_ok = finish_time(p);
	}
	json_array_foreach(x->pods, i, p) {
		if (idx >= 0 && pod_index(p) != idx)
			continue;
		if (!is_phase(p, "Failed") || finish_time(p) < last_ok)
			continue;
		failures++;
		if (finish_time(p) > last_fail)
			last_fail = finish_time(p);
	}
	if (!failures)
		return 0;
	wait = last_fail + sk_job_backoff_secs(failures) - now;
	return wait > 0 ? wait : 0;
}

static int index_failures(jctx *x, int idx)
{
	json_t *p;
	size_t i;
	int n = 0;

	json_array_foreach(x->pods, i, p) {
		int ignored = 0;

		if (pod_index(p) != idx || !is_phase(p, "Failed"))
			continue;
		if (sk_kube_jget(x->job, "spec.podFailurePolicy") &&
		    sk_job_pfp_match(sk_kube_jget(x->job, "spec.podFailurePolicy"), p, NULL) == SK_PFP_IGNORE)
			ignored = 1;
		n += !ignored;
	}
	return n;
}

static void compute_failed_indexes(jctx *x)
{
	json_t *lim = sk_kube_jget(x->job, "spec.backoffLimitPerIndex");

	if (!x->indexed || !json_is_integer(lim))
		return;
	for (int64_t i = 0; i < x->completions; i++)
		if (!sk_index_set_has(&x->completed, i) && index_failures(x, (int)i) > json_integer_value(lim))
			sk_index_set_add(&x->failed_idx, i);
}

static int restarts_exceeded(jctx *x)
{
	json_t *p, *cs;
	size_t i, j;
	int64_t n = 0, limit = sk__jint(x->job, "spec.backoffLimit", 6);
	const char *rp = sk_kube_jstr(x->job, "spec.template.spec.restartPolicy");

	if (!rp || strcmp(rp, "OnFailure"))
		return 0;
	json_array_foreach(x->pods, i, p) {
		if (!sk__pod_active(p))
			continue;
		json_array_foreach(sk_kube_jget(p, "status.initContainerStatuses"), j, cs)
			n += json_integer_value(json_object_get(cs, "restartCount"));
		json_array_foreach(sk_kube_jget(p, "status.containerStatuses"), j, cs)
			n += json_integer_value(json_object_get(cs, "restartCount"));
	}
	return limit == 0 ? n > 0 : n >= limit;
}

static void set_failure(jctx *x, const char *reason, const char *msg)
{
	if (x->fail_reason)
		return;
	x->fail_reason = reason;
	x->fail_msg = xstrdup(msg);
}

static void decide(jctx *x, int64_t active)
{
	int64_t succeeded = sk__jint(jst(x), "succeeded", 0) + (int64_t)json_array_size(uncounted(x, "succeeded"));
	int64_t failed = sk__jint(jst(x), "failed", 0) + (int64_t)json_array_size(uncounted(x, "failed"));
	int64_t start = sk__jtime(jst(x), "startTime", -1), ads = sk__jint(x->job, "spec.activeDeadlineSeconds", -1);
	json_t *mfi = sk_kube_jget(x->job, "spec.maxFailedIndexes");
	int rule;

	if (failed > sk__jint(x->job, "spec.backoffLimit", 6) || restarts_exceeded(x))
		set_failure(x, "BackoffLimitExceeded", "Job has reached the specified backoff limit");
	if (ads >= 0 && start >= 0 && !json_is_true(sk_kube_jget(x->job, "spec.suspend"))) {
		if (start + ads <= sk__now())
			set_failure(x, "DeadlineExceeded", "Job was active longer than specified deadline");
		else
			x->requeue_ms = (start + ads - sk__now()) * 1000 + 200;
	}
	if (json_is_integer(mfi) && sk_index_set_count(&x->failed_idx) > json_integer_value(mfi))
		set_failure(x, "MaxFailedIndexesExceeded",
			    "Job has exceeded the specified maximal number of failed indexes");
	if (x->indexed && sk_kube_jget(x->job, "spec.successPolicy") &&
	    (rule = sk_job_success_policy_match(sk_kube_jget(x->job, "spec.successPolicy"), &x->completed)) >= 0) {
		x->success = 2;
		x->success_rule = rule;
	} else if (x->indexed) {
		int64_t done = sk_index_set_count(&x->completed), bad = sk_index_set_count(&x->failed_idx);

		if (done + bad >= x->completions && bad > 0)
			set_failure(x, "FailedIndexes", "Job has failed indexes");
		else if (done >= x->completions)
			x->success = 1;
	} else if (x->completions >= 0) {
		x->success = succeeded >= x->completions;
	} else {
		x->success = succeeded > 0 && active == 0;
	}
}

static void event(jctx *x, const char *type, const char *reason, const char *msg)
{
	sk_event_record(x->k->ctl->c, x->job, type, reason, COMPONENT, NULL, "%s", msg);
}

/* Deletes up to n pods; release drops the tracking finalizer first so the
 * pods are not counted (suspension, lower parallelism), as upstream's
 * deleteJobPods; otherwise they are counted as they finish. */
static int delete_pods(jctx *x, json_t *pods, int64_t n, int release)
{
	json_t *p;
	size_t i;
	int rc = 0;

	json_array_foreach(pods, i, p) {
		sk_error_t err = {0};

		if ((int64_t)i >= n)
			break;
		if (release && remove_finalizer(x->k->ctl, p) < 0) {
			rc = -1;
			continue;
		}
		if (sk__delete_pod(x->k->ctl, p, &err) < 0) {
			rc = -1;
			continue;
		}
		sk_event_record(x->k->ctl->c, x->job, "Normal", "SuccessfulDelete", COMPONENT, NULL, "Deleted pod: %s",
				sk__name(p));
	}
	return rc;
}

static json_t *active_pods(jctx *x)
{
	json_t *out = json_array(), *p;
	size_t i;

	json_array_foreach(x->pods, i, p)
		if (sk__pod_active(p))
			json_array_append(out, p);
	return out;
}

static void add_index_env(json_t *containers, int idx)
{
	json_t *c;
	size_t i;

	(void)idx;
	json_array_foreach(containers, i, c) {
		json_t *env = json_object_get(c, "env"), *e;
		size_t j;
		int have = 0;

		json_array_foreach(env, j, e)
			have |= !strcmp(json_string_value(json_object_get(e, "name")) ?: "", "JOB_COMPLETION_INDEX");
		if (have)
			continue;
		if (!json_is_array(env)) {
			env = json_array();
			json_object_set_new(c, "env", env);
		}
		json_array_append_new(env, json_pack("{s:s, s:{s:{s:s}}}", "name", "JOB_COMPLETION_INDEX", "valueFrom",
						     "fieldRef", "fieldPath", "metadata.annotations['" INDEX_KEY "']"));
	}
}

/* "<job>-<index>-", the job name cut so the prefix stays within the 58
 * characters a generated name may take, as upstream. */
static char *indexed_generate_name(const char *job, int idx)
{
	char suffix[32];
	int n = snprintf(suffix, sizeof(suffix), "-%d-", idx);
	int keep = (int)strlen(job);

	if (keep + n > 58)
		keep = 58 - n;
	return xasprintf("%.*s%s", keep, job, suffix);
}

static json_t *job_pod(jctx *x, int idx)
{
	cleanup_free char *gen = idx >= 0 ? indexed_generate_name(sk__name(x->job), idx)
					  : xasprintf("%s-", sk__name(x->job));
	json_t *pod = sk__pod_from_template(sk_kube_jget(x->job, "spec.template"),
					    sk__owner_ref(x->job, "batch/v1", "Job"), sk__ns(x->job), gen);
	json_t *fin = sk_kube_jget(pod, "metadata.finalizers");
	char buf[32];

	if (!json_is_array(fin)) {
		fin = json_array();
		json_object_set_new(sk_kube_jobj(pod, "metadata"), "finalizers", fin);
	}
	json_array_append_new(fin, json_string(TRACKING));
	if (idx < 0)
		return pod;
	snprintf(buf, sizeof(buf), "%d", idx);
	json_object_set_new(sk_kube_jobj(pod, "metadata.annotations"), INDEX_KEY, json_string(buf));
	json_object_set_new(sk_kube_jobj(pod, "metadata.labels"), INDEX_KEY, json_string(buf));
	if (sk_kube_jget(x->job, "spec.backoffLimitPerIndex")) {
		snprintf(buf, sizeof(buf), "%d", index_failures(x, idx));
		json_object_set_new(sk_kube_jobj(pod, "metadata.annotations"), INDEX_FAILURES, json_string(buf));
	}
	if (!sk_kube_jstr(pod, "spec.hostname")) {
		cleanup_free char *h = xasprintf("%s-%d", sk__name(x->job), idx);

		json_object_set_new(sk_kube_jobj(pod, "spec"), "hostname", json_string(h));
	}
	add_index_env(sk_kube_jget(pod, "spec.initContainers"), idx);
	add_index_env(sk_kube_jget(pod, "spec.containers"), idx);
	return pod;
}

typedef struct create_run {
	jctx *x;
	int *indexes;
} create_run;

/* Runs concurrently for distinct i (sk__slow_start): reads x, writes err. */
static int create_one(void *ud, int i, sk_error_t *err)
{
	create_run *r = ud;
	jctx *x = r->x;
	cleanup_json json_t *pod = job_pod(x, r->indexes ? r->indexes[i] : -1), *out = NULL;
	cleanup_free char *path = sk__path("/api/v1", "pods", sk__ns(x->job), NULL, NULL);

	out = sk_client_create(x->k->ctl->c, path, pod, err);
	if (!out) {
		sk_event_record(x->k->ctl->c, x->job, "Warning", "FailedCreate", COMPONENT, NULL, "Error creating: %s",
				err->msg);
		return -1;
	}
	sk_informer_write(x->k->ctl->pods, out);
	sk_event_record(x->k->ctl->c, x->job, "Normal", "SuccessfulCreate", COMPONENT, NULL, "Created pod: %s",
			sk__name(out));
	return 0;
}

static int index_active(json_t *active, int idx)
{
	json_t *p;
	size_t i;

	json_array_foreach(active, i, p)
		if (pod_index(p) == idx)
			return 1;
	return 0;
}

/* Picks up to n indexes to start: not completed, not failed, not active,
 * and out of backoff. */
static int pick_indexes(jctx *x, json_t *active, int64_t n, int *out)
{
	int k = 0;

	for (int64_t i = 0; i < x->completions && k < n; i++) {
		int64_t wait;

		if (sk_index_set_has(&x->completed, i) || sk_index_set_has(&x->failed_idx, i) ||
		    index_active(active, (int)i))
			continue;
		wait = remaining_backoff(x, (int)i);
		if (wait > 0) {
			if (x->requeue_ms < 0 || wait * 1000 < x->requeue_ms)
				x->requeue_ms = wait * 1000 + 100;
			continue;
		}
		out[k++] = (int)i;
	}
	return k;
}

static int64_t count_terminating(jctx *x)
{
	json_t *p;
	size_t i;
	int64_t n = 0;

	json_array_foreach(x->pods, i, p)
		if (sk__is_deleting(p) && !sk__pod_terminal(p))
			n++;
	return n;
}

static int64_t want_active(jctx *x, int64_t active)
{
	int64_t succeeded = sk__jint(jst(x), "succeeded", 0) + (int64_t)json_array_size(uncounted(x, "succeeded"));
	int64_t want;

	if (x->indexed)
		want = x->completions - sk_index_set_count(&x->completed) - sk_index_set_count(&x->failed_idx);
	else if (x->completions < 0)
		want = succeeded > 0 ? active : x->parallelism;
	else
		want = x->completions - succeeded;
	if (want > x->parallelism)
		want = x->parallelism;
	return want < 0 ? 0 : want;
}

static int manage(jctx *x, json_t *active)
{
	int64_t n = (int64_t)json_array_size(active), want = want_active(x, n), diff, wait;
	create_run r = {.x = x};
	int rc;

	if (n > want) {
		size_t cnt;
		json_t *sorted = json_array();
		/* newest, not-ready pods go first, as the ReplicaSet does */
		json_array_extend(sorted, active);
		cnt = json_array_size(sorted);
		for (size_t i = 0; i + 1 < cnt; i++)
			for (size_t j = i + 1; j < cnt; j++)
				if (sk__pod_delete_less(json_array_get(sorted, j), json_array_get(sorted, i), 0, 0)) {
					json_t *a = json_incref(json_array_get(sorted, i));

					json_array_set(sorted, i, json_array_get(sorted, j));
					json_array_set_new(sorted, j, a);
				}
		rc = delete_pods(x, sorted, n - want, 1);
		json_decref(sorted);
		return rc;
	}
	diff = want - n;
	if (only_replace_failed(x->job))
		diff -= count_terminating(x);
	if (diff <= 0)
		return 0;
	if (diff > BURST)
		diff = BURST;
	if (!x->indexed) {
		wait = remaining_backoff(x, -1);
		if (wait > 0) {
			x->requeue_ms = wait * 1000 + 100;
			return 0;
		}
		return sk__slow_start((int)diff, create_one, &r, NULL) == diff ? 0 : -1;
	}
	r.indexes = xzalloc((size_t)(diff + 1) * sizeof(int));
	diff = pick_indexes(x, active, diff, r.indexes);
	rc = sk__slow_start((int)diff, create_one, &r, NULL) == diff ? 0 : -1;
	free(r.indexes);
	return rc;
}

static void set_counts(jctx *x)
{
	cleanup_json json_t *active = active_pods(x);
	json_t *p;
	size_t i;
	int64_t ready = 0;

	json_array_foreach(active, i, p)
		ready += sk__pod_ready(p);
	json_object_set_new(jst(x), "active", json_integer((json_int_t)json_array_size(active)));
	json_object_set_new(jst(x), "ready", json_integer(ready));
	json_object_set_new(jst(x), "terminating", json_integer(count_terminating(x)));
	if (!json_object_get(jst(x), "uncountedTerminatedPods"))
		json_object_set_new(jst(x), "uncountedTerminatedPods", json_object());
	if (!sk__jint(jst(x), "active", 0))
		json_object_del(jst(x), "active");
	if (!sk__jint(jst(x), "succeeded", 0))
		json_object_del(jst(x), "succeeded");
	if (!sk__jint(jst(x), "failed", 0))
		json_object_del(jst(x), "failed");
}

static int suspend(jctx *x, json_t *active)
{
	int rc = delete_pods(x, active, (int64_t)json_array_size(active), 1);

	if (sk__cond_set(jst(x), "Suspended", "True", "JobSuspended", "Job suspended", 1, 0))
		event(x, "Normal", "Suspended", "Job suspended");
	return rc;
}

static void resume(jctx *x)
{
	json_t *c = sk_kube_condition_get(jst(x), "Suspended");

	if (!json_object_get(jst(x), "startTime"))
		json_object_set_new(jst(x), "startTime", sk__time_json(sk__now()));
	if (c && !strcmp(json_string_value(json_object_get(c, "status")) ?: "", "True")) {
		sk__cond_set(jst(x), "Suspended", "False", "JobResumed", "Job resumed", 1, 0);
		json_object_set_new(jst(x), "startTime", sk__time_json(sk__now()));
		event(x, "Normal", "Resumed", "Job resumed");
	}
}

/* Terminal conditions: the interim FailureTarget/SuccessCriteriaMet come
 * first; Failed/Complete once no pod is left running or uncounted. */
static int finish(jctx *x, json_t *active)
{
	int64_t left = (int64_t)json_array_size(active) + count_terminating(x);
	int pending = json_array_size(uncounted(x, "succeeded")) || json_array_size(uncounted(x, "failed"));
	char *msg = NULL;
	int rc;

	if (x->fail_reason || finished_cond(x->nj, "FailureTarget")) {
		json_t *c = sk_kube_condition_get(jst(x), "FailureTarget");
		const char *reason = c ? json_string_value(json_object_get(c, "reason")) : x->fail_reason;
		const char *m = c ? json_string_value(json_object_get(c, "message")) : x->fail_msg;

		if (!c) {
			sk__cond_set(jst(x), "FailureTarget", "True", reason, m, 1, 0);
			event(x, "Warning", reason, m);
		}
		rc = delete_pods(x, active, left, 0);
		if (left || pending)
			return rc;
		sk__cond_set(jst(x), "Failed", "True", reason, m, 1, 0);
		job_finished_metric(x->job, "failed", reason);
		return rc;
	}
	if (x->success == 2)
		msg = xasprintf("Matched rules at index %d", x->success_rule);
	else
		msg = xstrdup("Reached expected number of succeeded pods");
	if (!finished_cond(x->nj, "SuccessCriteriaMet"))
		sk__cond_set(jst(x), "SuccessCriteriaMet", "True",
			     x->success == 2 ? "SuccessPolicy" : "CompletionsReached", msg, 1, 0);
	rc = delete_pods(x, active, left, 0);
	if (!left && !pending) {
		sk__cond_set(jst(x), "Complete", "True", x->success == 2 ? "SuccessPolicy" : "CompletionsReached", msg,
			     1, 0);
		json_object_set_new(jst(x), "completionTime", sk__time_json(sk__now()));
		event(x, "Normal", "Completed", "Job completed");
		job_finished_metric(x->job, "succeeded", x->success == 2 ? "SuccessPolicy" : "CompletionsReached");
	}
	free(msg);
	return rc;
}

static int load_pods(jctx *x)
{
	sk_error_t err = {0};
	sk_kube_label_selector *sel = sk_kube_label_selector_from_json(sk_kube_jget(x->job, "spec.selector"), &err);

	if (!sel)
		return -1;
	json_decref(x->pods);
	x->pods = sk__claim_pods(x->k->ctl, x->job, "batch/v1", "Job", sel);
	sk_kube_label_selector_free(sel);
	return 0;
}

static void init_indexes(jctx *x)
{
	sk_index_set_release(&x->completed);
	sk_index_set_release(&x->failed_idx);
	sk_index_set_parse(&x->completed, sk_kube_jstr(x->nj, "status.completedIndexes"), x->completions);
	sk_index_set_parse(&x->failed_idx, sk_kube_jstr(x->nj, "status.failedIndexes"), x->completions);
}

static int sync_job_obj(jctx *x)
{
	cleanup_json json_t *active = NULL;
	int r, rc = 0;

	for (int round = 0; round < 3; round++) {
		if (load_pods(x) < 0)
			return 0;
		json_decref(x->nj);
		x->nj = json_deep_copy(x->job);
		init_indexes(x);
		if ((r = track(x)) < 0)
			return -1;
		if (r == 0)
			break;
	}
	if (!x->pods) {
		/* pods kept finishing through every round: their records are
		 * not in x->nj, so starting replacements now could overshoot */
		x->requeue_ms = 0;
		return 0;
	}
	if (job_finished(x->nj) || sk__is_deleting(x->job))
		return flush_status(x);
	compute_failed_indexes(x);
	active = active_pods(x);
	if (json_is_true(sk_kube_jget(x->job, "spec.suspend")) && !finished_cond(x->nj, "FailureTarget")) {
		rc = suspend(x, active);
	} else {
		resume(x);
		decide(x, (int64_t)json_array_size(active));
		if (x->fail_reason || x->success || finished_cond(x->nj, "FailureTarget") ||
		    finished_cond(x->nj, "SuccessCriteriaMet"))
			rc = finish(x, active);
		else
			rc = manage(x, active);
	}
	set_index_strings(x);
	set_counts(x);
	if (flush_status(x) < 0)
		return -1;
	return rc;
}

/* A pod whose Job is gone keeps no tracking finalizer. */
static int sync_orphan_pod(sk_controller *k, const char *key)
{
	char ns[256], name[256];
	cleanup_json json_t *pod = NULL, *job = NULL;
	json_t *ref;

	sk__split_key(key, ns, sizeof(ns), name, sizeof(name));
	pod = sk_informer_get(k->ctl->pods, ns, name);
	if (!pod || !has_finalizer(pod))
		return 0;
	ref = sk_kube_controller_ref(pod);
	if (ref)
		job = sk_informer_get(k->ctl->jobs, ns, json_string_value(json_object_get(ref, "name")));
	if (job && !strcmp(sk__uid(job), json_string_value(json_object_get(ref, "uid")) ?: ""))
		return 0;
	return remove_finalizer(k->ctl, pod);
}

/* isJobManagedByController: a Job whose spec.managedBy names another
 * controller is that controller's to run (its pods and status too). */
static int managed_here(json_t *job)
{
	const char *by = sk_kube_jstr(job, "spec.managedBy");

	return !by || !strcmp(by, JOB_CONTROLLER_NAME);
}

static int sync_job(sk_controller *k, const char *key)
{
	char ns[256], name[256];
	jctx x = {.k = k, .requeue_ms = -1};
	int rc;

	if (!strncmp(key, "pod:", 4))
		return sync_orphan_pod(k, key + 4);
	sk__split_key(key, ns, sizeof(ns), name, sizeof(name));
	x.job = sk_informer_get(k->ctl->jobs, ns, name);
	if (!x.job)
		return 0;
	if (!managed_here(x.job)) {
		sk_debug("ctrl", "job %s: managed by %s, skipped", key, sk_kube_jstr(x.job, "spec.managedBy"));
		json_decref(x.job);
		return 0;
	}
	x.indexed = !strcmp(sk_kube_jstr(x.job, "spec.completionMode") ?: "", "Indexed");
	x.completions = sk__jint(x.job, "spec.completions", -1);
	x.parallelism = sk__jint(x.job, "spec.parallelism", 1);
	rc = sync_job_obj(&x);
	if (x.requeue_ms >= 0)
		sk__queue_add_after(k->q, key, x.requeue_ms);
	json_decref(x.job);
	json_decref(x.pods);
	json_decref(x.nj);
	free(x.fail_msg);
	sk_index_set_release(&x.completed);
	sk_index_set_release(&x.failed_idx);
	return rc;
}

static int terminated_tracked(json_t *pod)
{
	return pod && has_finalizer(pod) && (is_phase(pod, "Succeeded") || is_phase(pod, "Failed"));
}

/* job_controller_terminated_pods_tracking_finalizer_total: a terminated pod
 * with the finalizer appeared ("add") or lost it or went ("delete"). */
static void count_tracking(int ev, json_t *old, json_t *pod)
{
	int was = ev == SK_INF_DELETE ? terminated_tracked(pod) : ev == SK_INF_UPDATE && terminated_tracked(old);
	int is = ev != SK_INF_DELETE && terminated_tracked(pod);

	if (was == is)
		return;
	pthread_once(&jm_once, jm_init);
	sk_metric_inc1(jm.tracking, is ? "add" : "delete");
}

static void on_pod(void *ud, int ev, json_t *old, json_t *pod)
{
	sk_controller *k = ud;
	json_t *ref = sk_kube_controller_ref(pod);
	const char *kind = json_string_value(json_object_get(ref, "kind"));

	count_tracking(ev, old, pod);
	if (old && old != pod)
		sk__enqueue_controller(k, old, "Job");
	if (kind && !strcmp(kind, "Job")) {
		cleanup_json json_t *job = sk_informer_get(k->ctl->jobs, sk__ns(pod),
							   json_string_value(json_object_get(ref, "name")));

		if (job) {
			sk__enqueue_controller(k, pod, "Job");
			return;
		}
	}
	if (has_finalizer(pod) && ev != SK_INF_DELETE) {
		cleanup_free char *pk = sk__key(pod);
		cleanup_free char *key = xasprintf("pod:%s", pk);

		sk__queue_add(k->q, key);
	}
}

/* A finished Job has nothing left to reconcile but its pods' finalizers,
 * and pod events bring those; upstream does not requeue it either. */
static int job_unfinished(json_t *job) { return !job_finished(job) || sk__is_deleting(job); }

int sk__job_init(struct sk_ctrl *ctl, sk_error_t *err)
{
	sk_controller *k = sk__controller_add(ctl, "job", sync_job, NULL);

	k->primary = ctl->jobs;
	k->resync_secs = 30;
	k->resync_if = job_unfinished;
	k->workers = 5; /* upstream's --concurrent-job-syncs */
	sk_informer_on(ctl->jobs, sk__enqueue_self, k);
	sk_informer_on(ctl->pods, on_pod, k);
	return 0;
}
