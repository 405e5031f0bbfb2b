/* Composition of the controllers: shared informers, worker threads and
 * periodic resyncs. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ctrl/ctrl-int.h"
#include "util/util.h"

sk_controller *sk__controller_add(struct sk_ctrl *ctl, const char *name, sk_sync_fn sync, void *state)
{
	sk_controller *k = xzalloc(sizeof(*k));

	k->name = name;
	k->ctl = ctl;
	k->q = sk__queue_new(name);
	k->sync = sync;
	k->state = state;
	if (ctl->nctrls < (int)(sizeof(ctl->ctrls) / sizeof(ctl->ctrls[0])))
		ctl->ctrls[ctl->nctrls++] = k;
	return k;
}

void sk__enqueue_self(void *ud, int ev, json_t *old, json_t *obj)
{
	sk_controller *k = ud;
	cleanup_free char *key = sk__key(obj);

	sk__queue_add(k->q, key);
}

void sk__enqueue_controller(sk_controller *k, json_t *obj, const char *kind)
{
	json_t *ref = sk_kube_controller_ref(obj);
	const char *rk = json_string_value(json_object_get(ref, "kind"));
	const char *name = json_string_value(json_object_get(ref, "name"));

	if (ref && rk && name && !strcmp(rk, kind)) {
		cleanup_free char *key = xasprintf("%s/%s", sk__ns(obj), name);

		sk__queue_add(k->q, key);
	}
}

sk_informer *sk__ctrl_extra(struct sk_ctrl *ctl, const char *path, const char *gv, const char *kind)
{
	for (int i = 0; i < ctl->nextra; i++)
		if (!strcmp(sk_informer_path(ctl->extra[i]), path))
			return ctl->extra[i];
	if (ctl->nextra >= (int)(sizeof(ctl->extra) / sizeof(ctl->extra[0])))
		abort(); /* a fixed set of resources: a programming error */
	ctl->extra[ctl->nextra] = sk_informer_new(ctl->c, path, gv, kind);
	return ctl->extra[ctl->nextra++];
}

int sk__ctrl_sleep(struct sk_ctrl *ctl, int64_t ms)
{
	struct timespec ts;
	int stop;

	sk_deadline_after_ms(&ts, ms);
	pthread_mutex_lock(&ctl->stop_mu);
	if (!ctl->stopping)
		pthread_cond_timedwait(&ctl->stop_cv, &ctl->stop_mu, &ts);
	stop = ctl->stopping;
	pthread_mutex_unlock(&ctl->stop_mu);
	return stop;
}

static void *worker(void *arg)
{
	sk_controller *k = arg;
	char *key;

	while ((key = sk__queue_get(k->q))) {
		if (k->sync(k, key) < 0) {
			sk__queue_add_rate_limited(k->q, key);
		} else {
			sk__queue_forget(k->q, key);
		}
		sk__queue_done(k->q, key);
		free(key);
	}
	return NULL;
}

static void *resync(void *arg)
{
	sk_controller *k = arg;

	while (!sk__ctrl_sleep(k->ctl, (int64_t)k->resync_secs * 1000)) {
		cleanup_json json_t *all = sk_informer_list(k->primary, NULL);
		json_t *o;
		size_t i;

		json_array_foreach(all, i, o) {
			cleanup_free char *key = NULL;

			if (k->resync_if && !k->resync_if(o))
				continue;
			key = sk__key(o);
			sk__queue_add(k->q, key);
		}
	}
	return NULL;
}

static void controller_start(sk_controller *k)
{
	int want = k->workers > 0 ? k->workers : k->ctl->o.workers;

	if (want > 8)
		want = 8;

	for (int i = 0; i < want; i++)
		if (!pthread_create(&k->threads[i], NULL, worker, k))
			k->nthreads++;
	if (k->primary && k->resync_secs > 0)
		k->has_resync = !pthread_create(&k->resync_thread, NULL, resync, k);
}

static void controller_stop(sk_controller *k)
{
	sk__queue_shutdown(k->q);
	for (int i = 0; i < k->nthreads; i++)
		pthread_join(k->threads[i], NULL);
	if (k->has_resync)
		pthread_join(k->resync_thread, NULL);
	if (k->stop)
		k->stop(k);
}

static void make_informers(struct sk_ctrl *ctl)
{
	ctl->pods = sk_informer_new(ctl->c, "/api/v1/pods", "v1", "Pod");
	ctl->rs = sk_informer_new(ctl->c, "/apis/apps/v1/replicasets", "apps/v1", "ReplicaSet");
	ctl->deploy = sk_informer_new(ctl->c, "/apis/apps/v1/deployments", "apps/v1", "Deployment");
	ctl->ds = sk_informer_new(ctl->c, "/apis/apps/v1/daemonsets", "apps/v1", "DaemonSet");
	ctl->crevs = sk_informer_new(ctl->c, "/apis/apps/v1/controllerrevisions", "apps/v1", "ControllerRevision");
	ctl->jobs = sk_informer_new(ctl->c, "/apis/batch/v1/jobs", "batch/v1", "Job");
	ctl->cronjobs = sk_informer_new(ctl->c, "/apis/batch/v1/cronjobs", "batch/v1", "CronJob");
	ctl->nodes = sk_informer_new(ctl->c, "/api/v1/nodes", "v1", "Node");
	ctl->leases = sk_informer_new(ctl->c, "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases",
				      "coordination.k8s.io/v1", "Lease");
	ctl->namespaces = sk_informer_new(ctl->c, "/api/v1/namespaces", "v1", "Namespace");
	ctl->services = sk_informer_new(ctl->c, "/api/v1/services", "v1", "Service");
	ctl->endpoints = sk_informer_new(ctl->c, "/api/v1/endpoints", "v1", "Endpoints");
	ctl->slices = sk_informer_new(ctl->c, "/apis/discovery.k8s.io/v1/endpointslices", "discovery.k8s.io/v1",
				      "EndpointSlice");
	ctl->csrs = sk_informer_new(ctl->c, "/apis/certificates.k8s.io/v1/certificatesigningrequests",
				    "certificates.k8s.io/v1", "CertificateSigningRequest");
}

static sk_informer **all_informers(struct sk_ctrl *ctl, int *n)
{
	static __thread sk_informer *arr[32];
	int k = 0;

	arr[k++] = ctl->pods;
	arr[k++] = ctl->rs;
	arr[k++] = ctl->deploy;
	arr[k++] = ctl->ds;
	arr[k++] = ctl->crevs;
	arr[k++] = ctl->jobs;
	arr[k++] = ctl->cronjobs;
	arr[k++] = ctl->nodes;
	arr[k++] = ctl->leases;
	arr[k++] = ctl->namespaces;
	arr[k++] = ctl->services;
	arr[k++] = ctl->endpoints;
	arr[k++] = ctl->slices;
	arr[k++] = ctl->csrs;
	for (int i = 0; i < ctl->nextra; i++)
		arr[k++] = ctl->extra[i];
	*n = k;
	return arr;
}

/* Options left at 0 may come from the environment (seconds), so tests and
 * operators can shorten the node timeouts without a flag. */
static void env_default(int *v, const char *name)
{
	const char *e = getenv(name);

	if (*v <= 0 && e && atoi(e) > 0)
		*v = atoi(e);
}

sk_ctrl *sk_ctrl_start(sk_client *c, const sk_ctrl_options *o, sk_error_t *err)
{
	struct sk_ctrl *ctl = xzalloc(sizeof(*ctl));
	int (*inits[])(struct sk_ctrl *, sk_error_t *) = {
		sk__replicaset_init,
		sk__deployment_init,
		sk__daemonset_init,
		sk__statefulset_init,
		sk__job_init,
		sk__cronjob_init,
		sk__ttl_init,
		sk__namespace_init,
		sk__nodelifecycle_init,
		sk__endpointslice_init,
		sk__endpoints_init,
		sk__endpointslicemirroring_init,
		sk__podgc_init,
		sk__nodeipam_init,
		sk__clusterroleaggregation_init,
		sk__resourcequota_init,
		sk__serviceaccount_init,
		sk__rootcacert_init,
		sk__csrsigning_init,
		sk__csrapproving_init,
		sk__csrcleaner_init,
		sk__disruption_init,
		sk__pvbinder_init,
		sk__expand_init,
		sk__hpa_init,
		sk__gc_init, /* last: it watches the others' informers too */
	};
	sk_informer **infs;
	int n;

	ctl->c = c;
	if (o)
		ctl->o = *o;
	env_default(&ctl->o.node_monitor_grace_secs, "SKIFF_NODE_MONITOR_GRACE_PERIOD");
	env_default(&ctl->o.pod_eviction_secs, "SKIFF_POD_EVICTION_TIMEOUT");
	env_default(&ctl->o.node_monitor_period_secs, "SKIFF_NODE_MONITOR_PERIOD");
	if (ctl->o.workers <= 0)
		ctl->o.workers = 2;
	if (ctl->o.node_monitor_grace_secs <= 0)
		ctl->o.node_monitor_grace_secs = 40;
	if (ctl->o.pod_eviction_secs <= 0)
		ctl->o.pod_eviction_secs = 300;
	if (ctl->o.node_monitor_period_secs <= 0)
		ctl->o.node_monitor_period_secs = 5;
	if (ctl->o.hpa_sync_period_secs <= 0)
		ctl->o.hpa_sync_period_secs = 15;
	if (ctl->o.hpa_tolerance <= 0)
		ctl->o.hpa_tolerance = 0.1;
	if (ctl->o.hpa_cpu_init_secs <= 0)
		ctl->o.hpa_cpu_init_secs = 300;
	if (ctl->o.hpa_readiness_delay_secs <= 0)
		ctl->o.hpa_readiness_delay_secs = 30;
	if (ctl->o.hpa_downscale_window_secs <= 0)
		ctl->o.hpa_downscale_window_secs = 300;
	pthread_mutex_init(&ctl->stop_mu, NULL);
	pthread_cond_init(&ctl->stop_cv, NULL);
	make_informers(ctl);
	for (size_t i = 0; i < sizeof(inits) / sizeof(inits[0]); i++)
		if (inits[i](ctl, err) < 0)
			goto fail;
	infs = all_informers(ctl, &n);
	for (int i = 0; i < n; i++)
		if (sk_informer_start(infs[i], err) < 0)
			goto fail;
	for (int i = 0; i < ctl->nctrls; i++)
		controller_start(ctl->ctrls[i]);
	sk_info("ctrl", "started %d controllers", ctl->nctrls);
	return ctl;
fail:
	sk_ctrl_stop(ctl);
	return NULL;
}

void sk_ctrl_stop(sk_ctrl *ctl)
{
	sk_informer **infs;
	int n;

	if (!ctl)
		return;
	pthread_mutex_lock(&ctl->stop_mu);
	ctl->stopping = 1;
	pthread_cond_broadcast(&ctl->stop_cv);
	pthread_mutex_unlock(&ctl->stop_mu);
	for (int i = 0; i < ctl->nctrls; i++)
		controller_stop(ctl->ctrls[i]);
	infs = all_informers(ctl, &n);
	for (int i = 0; i < n; i++)
		sk_informer_cancel(infs[i]);
	for (int i = 0; i < n; i++)
		sk_informer_stop(infs[i]);
	for (int i = 0; i < n; i++)
		sk_informer_free(infs[i]);
	for (int i = 0; i < ctl->nctrls; i++) {
		sk__queue_free(ctl->ctrls[i]->q);
		if (ctl->ctrls[i]->release)
			ctl->ctrls[i]->release(ctl->ctrls[i]->state);
		else
			free(ctl->ctrls[i]->state);
		free(ctl->ctrls[i]);
	}
	pthread_mutex_destroy(&ctl->stop_mu);
	pthread_cond_destroy(&ctl->stop_cv);
	free(ctl);
}
