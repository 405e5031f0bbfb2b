/* The CronJob controller (after pkg/controller/cronjob, the v2 controller):
 * creates a Job per scheduled time, honouring startingDeadlineSeconds,
 * concurrencyPolicy and suspend, tracks active Jobs, records
 * lastScheduleTime/lastSuccessfulTime and prunes finished Jobs beyond the
 * history limits. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kube/cron.h"
#include "ctrl/ctrl-int.h"
#include "util/util.h"

#define BATCH "/apis/batch/v1"
#define COMPONENT "cronjob-controller"
#define SCHEDULED_TS "batch.kubernetes.io/cronjob-scheduled-timestamp"

typedef struct cctx {
	sk_controller *k;
	json_t *cj;   /* working copy */
	json_t *jobs; /* Jobs controlled by the CronJob */
	int64_t requeue_ms;
} cctx;

static int cond_true(json_t *job, const char *type)
{
	json_t *c = sk_kube_condition_get(sk_kube_jget(job, "status"), type);

	return c && !strcmp(json_string_value(json_object_get(c, "status")) ?: "", "True");
}

static int job_finished(json_t *job) { return cond_true(job, "Complete") || cond_true(job, "Failed"); }

static json_t *find_job(cctx *x, const char *uid)
{
	json_t *j;
	size_t i;

	json_array_foreach(x->jobs, i, j)
		if (!strcmp(sk__uid(j) ?: "", uid ?: ""))
			return j;
	return NULL;
}

static json_t *job_ref(json_t *job)
{
	return json_pack("{s:s, s:s, s:s, s:s, s:s, s:s?}", "kind", "Job", "apiVersion", "batch/v1", "namespace",
			 sk__ns(job), "name", sk__name(job), "uid", sk__uid(job), "resourceVersion",
			 sk_kube_jstr(job, "metadata.resourceVersion"));
}

static int in_active(json_t *active, const char *uid)
{
	json_t *r;
	size_t i;

	json_array_foreach(active, i, r)
		if (!strcmp(json_string_value(json_object_get(r, "uid")) ?: "", uid ?: ""))
			return 1;
	return 0;
}

/* Reconciles status.active with the Jobs that exist. */
static void sync_active(cctx *x)
{
	json_t *st = sk_kube_jobj(x->cj, "status"), *active = json_object_get(st, "active"), *j;
	size_t i = 0;

	if (!json_is_array(active)) {
		active = json_array();
		json_object_set_new(st, "active", active);
	}
	json_array_foreach(x->jobs, i, j)
		if (!job_finished(j) && !in_active(active, sk__uid(j)))
			json_array_append_new(active, job_ref(j));
	i = 0;
	while (i < json_array_size(active)) {
		json_t *ref = json_array_get(active, i);
		json_t *job = find_job(x, json_string_value(json_object_get(ref, "uid")));

		if (job && !job_finished(job)) {
			i++;
			continue;
		}
		if (job && cond_true(job, "Complete")) {
			int64_t done = sk__jtime(job, "status.completionTime", -1);

			if (done > sk__jtime(st, "lastSuccessfulTime", -1))
				json_object_set_new(st, "lastSuccessfulTime", sk__time_json(done));
			sk_event_record(x->k->ctl->c, x->cj, "Normal", "SawCompletedJob", COMPONENT, NULL,
					"Saw completed job: %s, condition: %s", sk__name(job), "Complete");
		} else if (job) {
			sk_event_record(x->k->ctl->c, x->cj, "Normal", "SawCompletedJob", COMPONENT, NULL,
					"Saw completed job: %s, condition: %s", sk__name(job), "Failed");
		}
		json_array_remove(active, i);
	}
	if (!json_array_size(active))
		json_object_del(st, "active");
}

static int delete_job(cctx *x, json_t *job)
{
	cleanup_free char *path = sk__path(BATCH, "jobs", sk__ns(job), sk__name(job), NULL);
	cleanup_json json_t *opts = json_pack("{s:s}", "propagationPolicy", "Background");
	sk_error_t err = {0};

	if (sk_client_delete(x->k->ctl->c, path, opts, &err) < 0 && err.code != SK_ENOTFOUND) {
		sk_event_record(x->k->ctl->c, x->cj, "Warning", "FailedDelete", COMPONENT, NULL, "Deleted job: %s",
				err.msg);
		return -1;
	}
	sk_informer_forget(x->k->ctl->jobs, job);
	sk_event_record(x->k->ctl->c, x->cj, "Normal", "SuccessfulDelete", COMPONENT, NULL, "Deleted job %s",
			sk__name(job));
	return 0;
}

static int64_t finish_time(json_t *job)
{
	int64_t t = sk__jtime(job, "status.completionTime", -1);

	if (t < 0)
		t = sk__jtime(job, "status.startTime", -1);
	return t < 0 ? sk__jtime(job, "metadata.creationTimestamp", 0) : t;
}

static int by_finish(const void *a, const void *b)
{
	int64_t x = finish_time(*(json_t *const *)a), y = finish_time(*(json_t *const *)b);

	return x < y ? -1 : x > y;
}

static void prune(cctx *x, int complete, json_int_t limit)
{
	json_t *j, **v;
	size_t i, n = 0;

	if (limit < 0)
		return;
	v = xmalloc((json_array_size(x->jobs) + 1) * sizeof(*v));
	json_array_foreach(x->jobs, i, j)
		if (job_finished(j) && cond_true(j, complete ? "Complete" : "Failed") && !sk__is_deleting(j))
			v[n++] = j;
	qsort(v, n, sizeof(*v), by_finish);
	for (i = 0; (json_int_t)(n - i) > limit; i++)
		delete_job(x, v[i]);
	free(v);
}

/* The most recent missed schedule time <= now, or -1 (next: the one after). */
static int64_t most_recent(cctx *x, const sk_kube_cron *c, const char *tz, int64_t now, int64_t *next, long *missed)
{
	int64_t earliest = sk__jtime(x->cj, "status.lastScheduleTime", -1), t, last = -1;
	json_int_t sds = sk__jint(x->cj, "spec.startingDeadlineSeconds", -1);

	if (earliest < 0)
		earliest = sk__jtime(x->cj, "metadata.creationTimestamp", now);
	if (sds >= 0 && now - sds > earliest)
		earliest = now - sds;
	*missed = 0;
	t = sk_kube_cron_next(c, earliest, tz);
	while (t >= 0 && t <= now) {
		last = t;
		(*missed)++;
		if (*missed > 100000)
			break;
		t = sk_kube_cron_next(c, t, tz);
	}
	*next = t;
	return last;
}

static char *scheduled_stamp(int64_t t, const char *tz)
{
	char buf[48];

	sk_kube_cron_format_time(t, tz, buf, sizeof(buf));
	return xstrdup(buf);
}

static json_t *job_from_template(cctx *x, int64_t when, const char *tz)
{
	json_t *tmpl = sk_kube_jget(x->cj, "spec.jobTemplate"), *job = json_object(), *meta = json_object(), *v;
	cleanup_free char *name = xasprintf("%s-%lld", sk__name(x->cj), (long long)(when / 60));
	cleanup_free char *stamp = scheduled_stamp(when, tz);

	json_object_set_new(job, "apiVersion", json_string("batch/v1"));
	json_object_set_new(job, "kind", json_string("Job"));
	json_object_set_new(meta, "name", json_string(name));
	json_object_set_new(meta, "namespace", json_string(sk__ns(x->cj)));
	if ((v = sk_kube_jget(tmpl, "metadata.labels")))
		json_object_set_new(meta, "labels", json_deep_copy(v));
	v = sk_kube_jget(tmpl, "metadata.annotations");
	json_object_set_new(meta, "annotations", v ? json_deep_copy(v) : json_object());
	json_object_set_new(json_object_get(meta, "annotations"), SCHEDULED_TS, json_string(stamp));
	json_object_set_new(meta, "ownerReferences", json_pack("[o]", sk__owner_ref(x->cj, "batch/v1", "CronJob")));
	json_object_set_new(job, "metadata", meta);
	v = json_deep_copy(json_object_get(tmpl, "spec"));
	json_object_set_new(job, "spec", v ? v : json_object());
	return job;
}

static int create_job(cctx *x, int64_t when, const char *tz)
{
	cleanup_json json_t *job = job_from_template(x, when, tz), *out = NULL;
	cleanup_free char *path = sk__path(BATCH, "jobs", sk__ns(x->cj), NULL, NULL);
	sk_error_t err = {0};
	json_t *st = sk_kube_jobj(x->cj, "status");

	out = sk_client_create(x->k->ctl->c, path, job, &err);
	if (!out && err.code == SK_EEXISTS) {
		json_object_set_new(st, "lastScheduleTime", sk__time_json(when));
		return 0;
	}
	if (!out) {
		sk_event_record(x->k->ctl->c, x->cj, "Warning", "FailedCreate", COMPONENT, NULL,
				"Error creating job: %s", err.msg);
		return -1;
	}
	sk_informer_write(x->k->ctl->jobs, out);
	sk_event_record(x->k->ctl->c, x->cj, "Normal", "SuccessfulCreate", COMPONENT, NULL, "Created job %s",
			sk__name(out));
	if (!json_is_array(json_object_get(st, "active")))
		json_object_set_new(st, "active", json_array());
	json_array_append_new(json_object_get(st, "active"), job_ref(out));
	json_object_set_new(st, "lastScheduleTime", sk__time_json(when));
	return 0;
}

static void set_requeue(cctx *x, int64_t next, int64_t now)
{
	if (next >= 0)
		x->requeue_ms = (next - now) * 1000 + 100;
}

static int schedule(cctx *x, int64_t now)
{
	const char *spec = sk_kube_jstr(x->cj, "spec.schedule"), *tz = sk_kube_jstr(x->cj, "spec.timeZone");
	const char *policy = sk_kube_jstr(x->cj, "spec.concurrencyPolicy");
	json_int_t sds = sk__jint(x->cj, "spec.startingDeadlineSeconds", -1);
	json_t *active;
	sk_error_t err = {0};
	sk_kube_cron *c;
	int64_t when, next;
	long missed;
	int rc = 0;

	if (!sk_kube_cron_zone_valid(tz)) {
		sk_event_record(x->k->ctl->c, x->cj, "Warning", "UnknownTimeZone", COMPONENT, NULL,
				"invalid timeZone: \"%s\": unknown time zone %s", tz, tz);
		return 0;
	}
	c = sk_kube_cron_parse(spec, &err);
	if (!c) {
		sk_event_record(x->k->ctl->c, x->cj, "Warning", "UnparseableSchedule", COMPONENT, NULL,
				"unparseable schedule: \"%s\" : %s", spec ? spec : "", err.msg);
		return 0;
	}
	if (json_is_true(sk_kube_jget(x->cj, "spec.suspend")))
		goto out;
	when = most_recent(x, c, tz, now, &next, &missed);
	set_requeue(x, next, now);
	if (when < 0)
		goto out;
	if (missed > 100)
		sk_event_record(
			x->k->ctl->c, x->cj, "Warning", "TooManyMissedTimes", COMPONENT, NULL,
			"too many missed start times: %ld. Set or decrease .spec.startingDeadlineSeconds or check "
			"clock skew",
			missed);
	if (sds >= 0 && when + sds < now) {
		char ts[64];
		struct tm tm;
		time_t tt = (time_t)when;

		gmtime_r(&tt, &tm);
		strftime(ts, sizeof(ts), "%a, %d %b %Y %H:%M:%S +0000", &tm);
		sk_event_record(x->k->ctl->c, x->cj, "Warning", "MissSchedule", COMPONENT, NULL,
				"Missed scheduled time to start a job: %s", ts);
		goto out;
	}
	active = sk_kube_jget(x->cj, "status.active");
	if (policy && !strcmp(policy, "Forbid") && json_array_size(active)) {
		sk_event_record(x->k->ctl->c, x->cj, "Normal", "JobAlreadyActive", COMPONENT, NULL,
				"Not starting job because prior execution is running and concurrency policy is Forbid");
		goto out;
	}
	if (policy && !strcmp(policy, "Replace")) {
		json_t *ref;
		size_t i;

		json_array_foreach(active, i, ref) {
			json_t *job = find_job(x, json_string_value(json_object_get(ref, "uid")));

			if (job && delete_job(x, job) < 0)
				rc = -1;
		}
		if (rc == 0)
			json_object_del(sk_kube_jobj(x->cj, "status"), "active");
	}
	if (rc == 0)
		rc = create_job(x, when, tz);
out:
	sk_kube_cron_free(c);
	return rc;
}

static json_t *owned_jobs(sk_controller *k, json_t *cj)
{
	cleanup_json json_t *all = sk_informer_list(k->ctl->jobs, sk__ns(cj));
	json_t *out = json_array(), *j;
	size_t i;

	json_array_foreach(all, i, j)
		if (sk_kube_controlled_by(j, sk__uid(cj)))
			json_array_append(out, j);
	return out;
}

static int sync_cronjob(sk_controller *k, const char *key)
{
	char ns[256], name[256];
	cleanup_json json_t *cached = NULL;
	cctx x = {.k = k, .requeue_ms = -1};
	sk_error_t err = {0};
	int rc = 0;

	sk__split_key(key, ns, sizeof(ns), name, sizeof(name));
	cached = sk_informer_get(k->ctl->cronjobs, ns, name);
	if (!cached)
		return 0;
	x.cj = json_deep_copy(cached);
	x.jobs = owned_jobs(k, cached);
	sync_active(&x);
	if (!sk__is_deleting(cached))
		rc = schedule(&x, sk__now());
	if (!json_equal(json_object_get(x.cj, "status"), json_object_get(cached, "status")) &&
	    sk__update_status(k->ctl, k->ctl->cronjobs, BATCH, "cronjobs", x.cj, &err) < 0)
		rc = -1;
	if (!sk__is_deleting(cached)) {
		prune(&x, 1, sk__jint(cached, "spec.successfulJobsHistoryLimit", 3));
		prune(&x, 0, sk__jint(cached, "spec.failedJobsHistoryLimit", 1));
	}
	if (x.requeue_ms >= 0)
		sk__queue_add_after(k->q, key, x.requeue_ms);
	json_decref(x.cj);
	json_decref(x.jobs);
	return rc;
}

static void on_job(void *ud, int ev, json_t *old, json_t *job) { sk__enqueue_controller(ud, job, "CronJob"); }

int sk__cronjob_init(struct sk_ctrl *ctl, sk_error_t *err)
{
	sk_controller *k = sk__controller_add(ctl, "cronjob", sync_cronjob, NULL);

	k->primary = ctl->cronjobs;
	k->resync_secs = 30;
	sk_informer_on(ctl->cronjobs, sk__enqueue_self, k);
	sk_informer_on(ctl->jobs, on_job, k);
	return 0;
}
