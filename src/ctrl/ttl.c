/* The TTL-after-finished controller (after pkg/controller/ttlafterfinished):
 * deletes a finished Job ttlSecondsAfterFinished after it finished, with
 * background propagation. */
#include <string.h>

#include "ctrl/ctrl-int.h"
#include "util/util.h"

/* When the Job finished (its Complete or Failed condition), or -1. */
static int64_t finished_at(json_t *job)
{
	static const char *types[] = {"Complete", "Failed"};

	for (int i = 0; i < 2; i++) {
		json_t *c = sk_kube_condition_get(sk_kube_jget(job, "status"), types[i]);

		if (c && !strcmp(json_string_value(json_object_get(c, "status")) ?: "", "True"))
			return sk__jtime(c, "lastTransitionTime", sk__now());
	}
	return -1;
}

static int sync_ttl(sk_controller *k, const char *key)
{
	char ns[256], name[256];
	cleanup_json json_t *job = NULL, *opts = NULL;
	cleanup_free char *path = NULL;
	json_int_t ttl;
	int64_t done, now = sk__now();
	sk_error_t err = {0};

	sk__split_key(key, ns, sizeof(ns), name, sizeof(name));
	job = sk_informer_get(k->ctl->jobs, ns, name);
	if (!job || sk__is_deleting(job))
		return 0;
	ttl = sk__jint(job, "spec.ttlSecondsAfterFinished", -1);
	done = finished_at(job);
	if (ttl < 0 || done < 0)
		return 0;
	if (done + ttl > now) {
		sk__queue_add_after(k->q, key, (done + ttl - now) * 1000 + 100);
		return 0;
	}
	path = sk__path("/apis/batch/v1", "jobs", ns, name, NULL);
	opts = json_pack("{s:s, s:{s:s}}", "propagationPolicy", "Background", "preconditions", "uid", sk__uid(job));
	if (sk_client_delete(k->ctl->c, path, opts, &err) < 0 && err.code != SK_ENOTFOUND)
		return -1;
	sk_debug("ctrl", "ttl: deleted job %s", key);
	return 0;
}

static void on_job(void *ud, int ev, json_t *old, json_t *job)
{
	if (ev != SK_INF_DELETE && json_is_integer(sk_kube_jget(job, "spec.ttlSecondsAfterFinished")) &&
	    finished_at(job) >= 0)
		sk__enqueue_self(ud, ev, old, job);
}

int sk__ttl_init(struct sk_ctrl *ctl, sk_error_t *err)
{
	sk_controller *k = sk__controller_add(ctl, "ttl-after-finished", sync_ttl, NULL);

	sk_informer_on(ctl->jobs, on_job, k);
	return 0;
}
