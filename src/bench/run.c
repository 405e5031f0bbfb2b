/* The `skiff bench` driver: creates pods, watches them get bound and Running,
 * and reports rates and latencies. */
#include "bench/bench.h"

#include <errno.h>
#include <ftw.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "api/api.h"
#include "bench/hollow.h"
#include "ctrl/ctrl.h"
#include "sched/sched.h"
#include "store/store.h"
#include "util/util.h"

#define NS "bench"
#define GANG_NAME "gang-1"

/* Timestamps (monotonic ns, 0: not yet) of one set of pods "PREFIX%06d". */
struct track {
	const char *prefix;
	int n;
	int64_t *created, *bound, *running;
	int nbound, nrunning;
	int64_t first_create, last_create, last_bound, last_running;
};

struct bench {
	const sk_bench_options *o;
	sk_client *c;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct track pods, gang;
	struct track *cur; /* the set being created */
	int next;          /* next pod index to create */
	int create_errors;
	sk_error_t create_err;
};

static void track_init(struct track *t, const char *prefix, int n)
{
	memset(t, 0, sizeof(*t));
	t->prefix = prefix;
	t->n = n;
	t->created = xzalloc((size_t)(n + 1) * sizeof(int64_t));
	t->bound = xzalloc((size_t)(n + 1) * sizeof(int64_t));
	t->running = xzalloc((size_t)(n + 1) * sizeof(int64_t));
}

static void track_release(struct track *t)
{
	free(t->created);
	free(t->bound);
	free(t->running);
}

static int64_t cpu_ns(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000LL +
	       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000LL;
}

/* ---- the measuring watch ----
 *
 * A store watch on the pods of the namespace: it sees each write the moment
 * it is durable and costs a substring search instead of a JSON decode, so
 * the driver takes as little CPU as possible from the system under test. */

#define POD_PREFIX "/registry/pods/" NS "/"

/* Records pod i's progress. Returns 1 when that completed the set's
 * binding or running, what wait_for waits for. */
static int observe(struct track *t, int i, int bound, int running, int64_t now)
{
	int done = 0;

	if (bound && !t->bound[i]) {
		t->bound[i] = now;
		done |= ++t->nbound == t->n;
		t->last_bound = now;
	}
	if (running && !t->running[i]) {
		t->running[i] = now;
		done |= ++t->nrunning == t->n;
		t->last_running = now;
	}
	return done;
}

static void on_pod(const sk_store_event *ev, void *ud)
{
	static const char node_pat[] = "\"nodeName\":\"", run_pat[] = "\"phase\":\"Running\"";
	struct bench *b = ud;
	const char *name = ev->kv->key + strlen(POD_PREFIX);
	int64_t now = sk_mono_ns();
	struct track *ts[2] = {&b->pods, &b->gang};
	int bound, running, done = 0;

	if (ev->type != SK_STORE_UPDATE)
		return;
	bound = memmem(ev->kv->value, ev->kv->len, node_pat, sizeof(node_pat) - 1) != NULL;
	running = memmem(ev->kv->value, ev->kv->len, run_pat, sizeof(run_pat) - 1) != NULL;
	if (!bound && !running)
		return;
	pthread_mutex_lock(&b->mu);
	for (int k = 0; k < 2; k++) {
		size_t pl = ts[k]->prefix ? strlen(ts[k]->prefix) : 0;
		char *end;
		long i;

		if (!pl || strncmp(name, ts[k]->prefix, pl))
			continue;
		i = strtol(name + pl, &end, 10);
		if (!*end && i >= 0 && i < ts[k]->n)
			done |= observe(ts[k], (int)i, bound, running, now);
	}
	/* not once per write: the store's writer thread would wake the driver
	 * 20,000 times (wait_for also looks every 10 ms) */
	if (done)
		pthread_cond_broadcast(&b->cv);
	pthread_mutex_unlock(&b->mu);
}

/* ---- the pod creator ---- */

static json_t *pod_object(const struct track *t, int i)
{
	char name[64];
	json_t *p;

	snprintf(name, sizeof(name), "%s%06d", t->prefix, i);
	p = json_pack("{s:s, s:s, s:{s:s, s:s, s:{s:s}}, s:{s:[{s:s, s:s, s:{s:{s:s, s:s}}}]}}", "apiVersion", "v1",
		      "kind", "Pod", "metadata", "name", name, "namespace", NS, "labels", "app", "bench", "spec",
		      "containers", "name", "main", "image", "registry.k8s.io/pause:3.9", "resources", "requests",
		      "cpu", "100m", "memory", "128Mi");
	if (!strcmp(t->prefix, "g-"))
		json_object_set_new(json_object_get(json_object_get(p, "metadata"), "labels"),
				    "scheduling.x-k8s.io/pod-group", json_string(GANG_NAME));
	return p;
}

static void *creator_main(void *arg)
{
	struct bench *b = arg;

	for (;;) {
		struct track *t;
		sk_error_t err = {0};
		json_t *p, *r;
		int64_t t0;
		int i;

		pthread_mutex_lock(&b->mu);
		t = b->cur;
		i = b->next++;
		pthread_mutex_unlock(&b->mu);
		if (i >= t->n)
			return NULL;
		p = pod_object(t, i);
		t0 = sk_mono_ns();
		r = sk_client_create_take(b->c, "/api/v1/namespaces/" NS "/pods", p, &err);
		pthread_mutex_lock(&b->mu);
		t->created[i] = t0;
		if (!t->first_create || t0 < t->first_create)
			t->first_create = t0;
		if (r) {
			int64_t now = sk_mono_ns();

			if (now > t->last_create)
				t->last_create = now;
		} else if (!b->create_errors++) {
			sk_error_set(&b->create_err, err.code, "creating pod %s%06d: %s", t->prefix, i, err.msg);
		}
		pthread_mutex_unlock(&b->mu);
		sk_error_clear(&err);
		json_decref(r);
	}
}

static int create_all(struct bench *b, struct track *t, sk_error_t *err)
{
	int n = b->o->workers > 0 ? b->o->workers : 64;
	pthread_t *th = xzalloc((size_t)n * sizeof(*th));

	b->cur = t;
	b->next = 0;
	for (int i = 0; i < n; i++)
		if (pthread_create(&th[i], NULL, creator_main, b) != 0)
			creator_main(b), th[i] = 0;
	for (int i = 0; i < n; i++)
		if (th[i])
			pthread_join(th[i], NULL);
	free(th);
	if (b->create_errors) {
		sk_error_set(err, b->create_err.code, "%d creates failed, first: %s", b->create_errors,
			     b->create_err.msg);
		return -1;
	}
	return 0;
}

/* Waits until every pod of t is Running (want_running) or bound. */
static int wait_for(struct bench *b, struct track *t, int want_running, sk_error_t *err)
{
	int64_t deadline = sk_mono_ns() + (int64_t)(b->o->timeout_s > 0 ? b->o->timeout_s : 300) * 1000000000LL;
	int rc = 0;

	pthread_mutex_lock(&b->mu);
	while ((want_running ? t->nrunning : t->nbound) < t->n) {
		struct timespec ts;
		int64_t now = sk_mono_ns();

		if (now >= deadline) {
			rc = sk_error_set(err, SK_ETIMEOUT, "timed out: %d of %d pods %s bound, %d Running", t->nbound,
					  t->n, t->prefix, t->nrunning);
			break;
		}
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += 10000000;
		if (ts.tv_nsec >= 1000000000) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000;
		}
		pthread_cond_timedwait(&b->cv, &b->mu, &ts);
	}
	pthread_mutex_unlock(&b->mu);
	return rc;
}

/* ---- figures ---- */

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

/* p50 and p99 of end[i] - start[i] in ms. */
static void percentiles(const struct track *t, const int64_t *end, double *p50, double *p99)
{
	int64_t *d = xzalloc((size_t)(t->n + 1) * sizeof(*d));
	int n = 0;

	for (int i = 0; i < t->n; i++)
		if (end[i] && t->created[i])
			d[n++] = end[i] - t->created[i];
	qsort(d, (size_t)n, sizeof(*d), cmp_i64);
	*p50 = n ? (double)d[n / 2] / 1e6 : 0;
	*p99 = n ? (double)d[(n * 99) / 100 < n ? (n * 99) / 100 : n - 1] / 1e6 : 0;
	free(d);
}

static double rate(int n, int64_t from, int64_t to) { return to > from ? n / ((double)(to - from) / 1e9) : 0; }

static void report(FILE *out, const char *what, const struct track *t, int64_t cpu, const sk_store_stats *s0,
		   const sk_store_stats *s1, const sk_hollow_stats *h0, const sk_hollow_stats *h1)
{
	double b50, b99, r50, r99, wall = (double)(t->last_running - t->first_create) / 1e9;

	percentiles(t, t->bound, &b50, &b99);
	percentiles(t, t->running, &r50, &r99);
	fprintf(out,
		"%s: %d pods Running in %.3fs: %.0f pods/s sustained (creates %.0f/s, binds %.0f/s, status writes "
		"%.0f/s)\n",
		what, t->nrunning, wall, rate(t->nrunning, t->first_create, t->last_running),
		rate(t->n, t->first_create, t->last_create), rate(t->nbound, t->first_create, t->last_bound),
		rate((int)(h1->status_writes - h0->status_writes), t->first_create, t->last_running));
	fprintf(out, "%s: create->bound p50 %.1fms p99 %.1fms; create->Running p50 %.1fms p99 %.1fms\n", what, b50, b99,
		r50, r99);
	fprintf(out, "%s: cpu %.3fs (%.2f cores, %.0f pods/cpu-s); store %lld writes in %lld commits (%.1f/commit)\n",
		what, (double)cpu / 1e9, wall > 0 ? (double)cpu / 1e9 / wall : 0,
		cpu ? t->nrunning / ((double)cpu / 1e9) : 0, (long long)(s1->writes - s0->writes),
		(long long)(s1->commits - s0->commits),
		s1->commits > s0->commits ? (double)(s1->writes - s0->writes) / (double)(s1->commits - s0->commits)
					  : 0);
}

/* ---- phases ---- */

static int run_pods(struct bench *b, sk_store *store, sk_hollow *h, FILE *out, sk_error_t *err)
{
	sk_store_stats s0, s1;
	sk_hollow_stats h0, h1;
	int64_t c0 = cpu_ns();

	sk_store_get_stats(store, &s0);
	sk_hollow_get_stats(h, &h0);
	if (create_all(b, &b->pods, err) < 0 || wait_for(b, &b->pods, 1, err) < 0)
		return -1;
	sk_store_get_stats(store, &s1);
	sk_hollow_get_stats(h, &h1);
	report(out, "pods", &b->pods, cpu_ns() - c0, &s0, &s1, &h0, &h1);
	return 0;
}

static int run_gang(struct bench *b, sk_store *store, sk_hollow *h, FILE *out, sk_error_t *err)
{
	cleanup_json json_t *pg = json_pack("{s:s, s:s, s:{s:s, s:s}, s:{s:i, s:i}}", "apiVersion",
					    "scheduling.x-k8s.io/v1alpha1", "kind", "PodGroup", "metadata", "name",
					    GANG_NAME, "namespace", NS, "spec", "minMember", b->o->gang,
					    "scheduleTimeoutSeconds", 60);
	json_t *r = sk_client_create(b->c, "/apis/scheduling.x-k8s.io/v1alpha1/namespaces/" NS "/podgroups", pg, err);
	sk_store_stats s0, s1;
	sk_hollow_stats h0, h1;
	struct track *t = &b->gang;
	int64_t c0 = cpu_ns();

	if (!r)
		return -1;
	json_decref(r);
	sk_store_get_stats(store, &s0);
	sk_hollow_get_stats(h, &h0);
	if (create_all(b, t, err) < 0 || wait_for(b, t, 0, err) < 0)
		return -1;
	fprintf(out, "gang: %d members placed in %.3fs from the first create (%.3fs after the last create)\n", t->n,
		(double)(t->last_bound - t->first_create) / 1e9, (double)(t->last_bound - t->last_create) / 1e9);
	if (wait_for(b, t, 1, err) < 0)
		return -1;
	sk_store_get_stats(store, &s1);
	sk_hollow_get_stats(h, &h1);
	report(out, "gang", t, cpu_ns() - c0, &s0, &s1, &h0, &h1);
	return 0;
}

/* A workload the controllers roll out (a StatefulSet, a DaemonSet): its key,
 * the status field that counts its Ready pods, and how many there must be. */
struct workload {
	const char *key, *ready_field, *kind;
	int want;
	int ready; /* under b->mu */
	struct bench *b;
};

/* The workload's ready count as each write commits (a few hundred small
 * writes: decoding them costs less than polling). */
static void on_workload(const sk_store_event *ev, void *ud)
{
	struct workload *wl = ud;
	json_t *o;

	if (ev->type == SK_STORE_DELETE || strcmp(ev->kv->key, wl->key))
		return;
	o = json_loadb(ev->kv->value, ev->kv->len, 0, NULL);
	pthread_mutex_lock(&wl->b->mu);
	wl->ready = (int)json_integer_value(json_object_get(json_object_get(o, "status"), wl->ready_field));
	if (wl->ready >= wl->want)
		pthread_cond_broadcast(&wl->b->cv);
	pthread_mutex_unlock(&wl->b->mu);
	json_decref(o);
}

/* Starts the controllers (on their own in-process client, with co), waits
 * for the store to be quiet for 300 ms when settle says so (their own
 * start, such as the nodes' pod CIDRs), creates obj at path and waits until
 * the workload counts wl->want Ready pods: the wall and CPU seconds and the
 * store's writes and commits meanwhile, or -1 with err. */
static int run_workload(struct bench *b, sk_api *api, sk_store *store, const sk_ctrl_options *co, bool settle,
			const char *path, json_t *obj, struct workload *wl, double *wall, double *cpu,
			sk_store_stats *delta, sk_error_t *err)
{
	int64_t deadline = sk_mono_ns() + (int64_t)(b->o->timeout_s > 0 ? b->o->timeout_s : 300) * 1000000000LL;
	sk_client *cc = sk_client_new_inproc(api);
	sk_ctrl *ctl = sk_ctrl_start(cc, co, err);
	sk_store_watch *w = NULL;
	sk_store_stats s0, s1;
	int64_t t0, c0;
	json_t *r;
	int rc = -1;

	wl->b = b;
	if (!ctl || !(w = sk_store_watch_start(store, wl->key, 0, on_workload, wl, err)))
		goto out;
	for (int64_t quiet_until = sk_mono_ns() + 300000000LL, last = -1; settle && sk_mono_ns() < quiet_until;) {
		sk_store_get_stats(store, &s0);
		if (s0.writes != last) {
			last = s0.writes;
			quiet_until = sk_mono_ns() + 300000000LL;
		}
		usleep(20000);
	}
	sk_store_get_stats(store, &s0);
	c0 = cpu_ns();
	t0 = sk_mono_ns();
	r = sk_client_create(b->c, path, obj, err);
	if (!r)
		goto out;
	json_decref(r);
	pthread_mutex_lock(&b->mu);
	while (wl->ready < wl->want && sk_mono_ns() < deadline) {
		struct timespec ts;

		sk_deadline_after_ms(&ts, 10);
		pthread_cond_timedwait(&b->cv, &b->mu, &ts);
	}
	pthread_mutex_unlock(&b->mu);
	if (wl->ready < wl->want) {
		sk_error_set(err, SK_ETIMEOUT, "timed out: %d of %d %s pods Ready", wl->ready, wl->want, wl->kind);
		goto out;
	}
	sk_store_get_stats(store, &s1);
	*wall = (double)(sk_mono_ns() - t0) / 1e9;
	*cpu = (double)(cpu_ns() - c0) / 1e9;
	delta->writes = s1.writes - s0.writes;
	delta->commits = s1.commits - s0.commits;
	rc = 0;
out:
	if (w)
		sk_store_unwatch(store, w);
	sk_ctrl_stop(ctl);
	sk_client_free(cc);
	return rc;
}

/* An OrderedReady StatefulSet of o->statefulset replicas with one claim
 * template: the controllers create each pod only once its predecessor is
 * Running and Ready, so the time is the sum of one pod's full round trip
 * per ordinal: the controller's claim and pod creates, the scheduler's
 * binding, the hollow node's status write and the watch events between them. */
static int run_statefulset(struct bench *b, sk_api *api, sk_store *store, FILE *out, sk_error_t *err)
{
	int n = b->o->statefulset;
	cleanup_json json_t *set = json_pack(
		"{s:s, s:s, s:{s:s, s:s}, s:{s:i, s:s, s:{s:{s:s}}, s:{s:{s:{s:s}}, s:{s:[{s:s, s:s}]}},"
		" s:[{s:{s:s}, s:{s:[s], s:{s:{s:s}}}}]}}",
		"apiVersion", "apps/v1", "kind", "StatefulSet", "metadata", "name", "sts", "namespace", NS, "spec",
		"replicas", n, "serviceName", "sts", "selector", "matchLabels", "app", "sts", "template", "metadata",
		"labels", "app", "sts", "spec", "containers", "name", "c", "image", "busybox:1", "volumeClaimTemplates",
		"metadata", "name", "data", "spec", "accessModes", "ReadWriteOnce", "resources", "requests", "storage",
		"1Gi");
	struct workload wl = {"/registry/statefulsets/" NS "/sts", "readyReplicas", "StatefulSet", n, 0, NULL};
	sk_store_stats d;
	double wall, cpu;

	if (run_workload(b, api, store, NULL, false, "/apis/apps/v1/namespaces/" NS "/statefulsets", set, &wl, &wall,
			 &cpu, &d, err) < 0)
		return -1;
	fprintf(out,
		"statefulset: %d pods (OrderedReady, one claim each) Ready in %.3fs: %.1fms per ordinal; "
		"cpu %.3fs; store %lld writes in %lld commits\n",
		n, wall, wall * 1000 / n, cpu, (long long)d.writes, (long long)d.commits);
	return 0;
}

/* A DaemonSet rolled out to every hollow node: the controllers make one pod
 * per node with node affinity to it, the scheduler binds them, the hollow
 * nodes run them; the time is from the DaemonSet's create until its status
 * counts every pod Ready, after the controllers' own start has settled. */
static int run_daemonset(struct bench *b, sk_api *api, sk_store *store, FILE *out, sk_error_t *err)
{
	int n = b->o->nodes;
	cleanup_json json_t *set = json_pack(
		"{s:s, s:s, s:{s:s, s:s}, s:{s:{s:{s:s}}, s:{s:{s:{s:s}}, s:{s:[{s:s}], s:[{s:s, s:s}]}}}}",
		"apiVersion", "apps/v1", "kind", "DaemonSet", "metadata", "name", "ds", "namespace", NS, "spec",
		"selector", "matchLabels", "app", "ds", "template", "metadata", "labels", "app", "ds", "spec",
		"tolerations", "operator", "Exists", "containers", "name", "c", "image", "busybox:1");
	/* room for a pod CIDR per node (the default /16 has 256) */
	sk_ctrl_options co = {.cluster_cidr = "10.0.0.0/8", .node_cidr_mask_size = 24};
	struct workload wl = {"/registry/daemonsets/" NS "/ds", "numberReady", "DaemonSet", n, 0, NULL};
	sk_store_stats d;
	double wall, cpu;

	if (run_workload(b, api, store, &co, true, "/apis/apps/v1/namespaces/" NS "/daemonsets", set, &wl, &wall, &cpu,
			 &d, err) < 0)
		return -1;
	fprintf(out,
		"daemonset: %d pods (one per node) Running and Ready in %.3fs: %.0f pods/s; cpu %.3fs; "
		"store %lld writes in %lld commits\n",
		n, wall, n / wall, cpu, (long long)d.writes, (long long)d.commits);
	return 0;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw) { return remove(path); }

int sk_bench_run(const sk_bench_options *o, FILE *out, sk_error_t *err)
{
	char tmp[] = "/tmp/skiff-bench-XXXXXX";
	const char *dir = o->data_dir;
	cleanup_free char *uri = NULL;
	sk_store *store = NULL;
	sk_api *api = NULL;
	sk_client *sc = NULL, *hc = NULL;
	sk_sched *s = NULL;
	sk_hollow *h = NULL;
	sk_store_watch *w = NULL;
	sk_sched_options so = {0};
	sk_hollow_options ho = {0};
	struct bench b = {.o = o};
	int64_t t0;
	int rc = -1;

	pthread_mutex_init(&b.mu, NULL);
	pthread_cond_init(&b.cv, NULL);
	track_init(&b.pods, "p-", o->pods);
	track_init(&b.gang, "g-", o->gang);
	if (!dir) {
		if (!mkdtemp(tmp)) {
			sk_error_errno(err, errno, "creating a temporary directory");
			goto out;
		}
		dir = tmp;
	} else if (sk_mkdir_p(dir, 0700) < 0) {
		sk_error_errno(err, errno, "creating data directory \"%s\"", dir);
		goto out;
	}
	uri = o->store_uri ? xstrdup(o->store_uri) : xasprintf("sqlite://%s", dir);
	if (!(store = sk_store_open(uri, NULL, err)) || !(api = sk_api_new(store, NULL, err)))
		goto out;
	b.c = sk_client_new_inproc(api);
	sc = sk_client_new_inproc(api);
	hc = sk_client_new_inproc(api);
	{
		json_t *ns = json_pack("{s:s, s:s, s:{s:s}}", "apiVersion", "v1", "kind", "Namespace", "metadata",
				       "name", NS);
		json_t *r = sk_client_create(b.c, "/api/v1/namespaces", ns, err);

		json_decref(ns);
		if (!r && err->code != SK_EEXISTS)
			goto out;
		sk_error_clear(err);
		json_decref(r);
	}
	t0 = sk_mono_ns();
	ho.nodes = o->nodes;
	ho.gpus = o->gpus;
	ho.workers = o->hollow_workers;
	if (!(h = sk_hollow_start(hc, &ho, err)))
		goto out;
	so.workers = o->sched_workers;
	if (!(s = sk_sched_start(sc, &so, err)))
		goto out;
	if (sk_sched_wait_idle(s, 60000) < 0) {
		sk_error_set(err, SK_ETIMEOUT, "scheduler did not sync");
		goto out;
	}
	fprintf(out, "setup: %d hollow nodes registered and the scheduler synced in %.3fs\n", o->nodes,
		(double)(sk_mono_ns() - t0) / 1e9);
	if (!(w = sk_store_watch_start(store, POD_PREFIX, 0, on_pod, &b, err)))
		goto out;
	if (o->pods > 0) {
		int64_t c0 = cpu_ns(), t1;
		sk_sched_stats st;

		if (run_pods(&b, store, h, out, err) < 0)
			goto out;
		/* the scheduler writes its Events after bindings (as upstream's
		 * event broadcaster, asynchronously): say when they were done too */
		t1 = sk_mono_ns();
		sk_sched_wait_idle(s, 60000);
		sk_sched_get_stats(s, &st);
		fprintf(out,
			"pods: %llu scheduler Events written %.3fs after the last pod was Running; "
			"cpu with them %.3fs (%.0f pods/cpu-s)\n",
			(unsigned long long)st.events, (double)(sk_mono_ns() - t1) / 1e9, (double)(cpu_ns() - c0) / 1e9,
			(double)o->pods / ((double)(cpu_ns() - c0) / 1e9));
	}
	if (o->gang > 0 && run_gang(&b, store, h, out, err) < 0)
		goto out;
	if (o->statefulset > 0 && run_statefulset(&b, api, store, out, err) < 0)
		goto out;
	if (o->daemonset && run_daemonset(&b, api, store, out, err) < 0)
		goto out;
	rc = 0;
out:
	if (w)
		sk_store_unwatch(store, w);
	if (s) {
		sk_sched_stats st;

		sk_sched_get_stats(s, &st);
		fprintf(out,
			"scheduler: %llu attempts, %llu bound, %llu bind errors, %llu unschedulable, %llu events\n",
			(unsigned long long)st.attempts, (unsigned long long)st.bound,
			(unsigned long long)st.bind_errors, (unsigned long long)st.unschedulable,
			(unsigned long long)st.events);
	}
	sk_sched_stop(s);
	sk_hollow_stop(h);
	if (b.c)
		sk_client_free(b.c);
	if (sc)
		sk_client_free(sc);
	if (hc)
		sk_client_free(hc);
	if (api)
		sk_api_shutdown(api);
	sk_api_free(api);
	if (store)
		sk_store_close(store);
	if (dir == tmp)
		nftw(tmp, rm_one, 8, FTW_DEPTH | FTW_PHYS);
	track_release(&b.pods);
	track_release(&b.gang);
	pthread_cond_destroy(&b.cv);
	pthread_mutex_destroy(&b.mu);
	sk_error_clear(&b.create_err);
	return rc;
}
