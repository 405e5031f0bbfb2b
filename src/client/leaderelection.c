/* Lease-based leader election (client-go's leaderelection with a LeaseLock). */
#include <errno.h>
#include <gnutls/crypto.h>
#include <pthread.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "client/event.h"
#include "client/leaderelection.h"
#include "util/util.h"

struct sk_le {
	sk_le_config cfg;
	char *ns, *name, *identity, *component;
	const sk_le_ops *ops;
	void *ctx;
	int leading;
	json_t *observed;    /* the spec last read or written */
	int64_t observed_ns; /* when it was seen to change (mono) */
	int64_t cycle_ns;    /* when the leader's current renew cycle began (mono); 0: none yet */
	/* sk_le_run */
	sk_client *c;
	pthread_t thread, runner;
	pthread_mutex_t mu;
	pthread_cond_t cv;  /* the elector's waits (CLOCK_MONOTONIC) */
	pthread_cond_t rcv; /* the runner's */
	int running, stop;
	int want, have; /* components asked to run / running (runner_main) */
	int give_up;    /* they did not start: release the lease */
	int quit;
};

/* No longer leading: the components' writes stop at once (cfg->fence). */
static void lose(sk_le *le)
{
	le->leading = 0;
	if (le->cfg.fence)
		sk_client_fence(le->cfg.fence, 1);
}

static json_t *record_of(json_t *lease)
{
	json_t *spec = json_object_get(lease, "spec");

	return json_is_object(spec) ? spec : NULL;
}

static int64_t lease_ms(json_t *spec)
{
	json_int_t s = json_integer_value(json_object_get(spec, "leaseDurationSeconds"));

	return s > 0 ? (int64_t)s * 1000 : 0;
}

/* The spec this candidate writes when it takes or keeps the lease. */
static json_t *new_record(sk_le *le, json_t *old, int64_t wall)
{
	const char *holder = old ? json_string_value(json_object_get(old, "holderIdentity")) : NULL;
	json_int_t transitions = old ? json_integer_value(json_object_get(old, "leaseTransitions")) : 0;
	int mine = holder && !strcmp(holder, le->identity);
	char now[40];
	json_t *r;

	sk_time_format_micro(wall, now, sizeof(now));
	r = json_pack("{s:s, s:I, s:s, s:s}", "holderIdentity", le->identity, "leaseDurationSeconds",
		      (json_int_t)(le->cfg.lease_duration_ms / 1000 ? le->cfg.lease_duration_ms / 1000 : 1),
		      "renewTime", now, "acquireTime", now);
	if (mine && json_is_string(json_object_get(old, "acquireTime")))
		json_object_set(r, "acquireTime", json_object_get(old, "acquireTime"));
	if (old && !mine)
		transitions++;
	json_object_set_new(r, "leaseTransitions", json_integer(transitions));
	return r;
}

static void observe(sk_le *le, json_t *spec, int64_t t)
{
	if (le->observed && json_equal(le->observed, spec))
		return;
	json_decref(le->observed);
	le->observed = json_deep_copy(spec);
	le->observed_ns = t;
}

/* client-go's tryAcquireOrRenew: 1 when this candidate holds the lease
 * after the call, 0 when another does or a read or write failed, -1 when
 * another holder's lease is current (a leader must stop at once). */
static int try_acquire_or_renew(sk_le *le, int64_t t)
{
	int64_t wall = le->ops->wall_ns(le->ctx);
	cleanup_json json_t *lease = NULL, *out = NULL;
	sk_error_t err = {0};
	json_t *spec, *rec;
	const char *holder;

	lease = le->ops->get(le->ctx, &err);
	if (!lease) {
		if (err.code != SK_ENOTFOUND) {
			sk_debug("leaderelection", "error retrieving lease %s/%s: %s", le->ns, le->name, err.msg);
			return 0;
		}
		sk_error_clear(&err);
		rec = new_record(le, NULL, wall);
		lease = json_pack("{s:s, s:s, s:{s:s, s:s}, s:o}", "apiVersion", "coordination.k8s.io/v1", "kind",
				  "Lease", "metadata", "name", le->name, "namespace", le->ns, "spec", rec);
		out = le->ops->create(le->ctx, lease, &err);
		if (!out) {
			sk_debug("leaderelection", "error initially creating lease %s/%s: %s", le->ns, le->name,
				 err.msg);
			return 0;
		}
		observe(le, rec, t);
		return 1;
	}
	spec = record_of(lease);
	if (!spec) {
		spec = json_object();
		json_object_set_new(lease, "spec", spec);
	}
	observe(le, spec, t);
	holder = json_string_value(json_object_get(spec, "holderIdentity"));
	if (holder && *holder && strcmp(holder, le->identity) && le->observed_ns + lease_ms(spec) * 1000000 > t)
		return -1;
	rec = new_record(le, spec, wall);
	json_object_set_new(lease, "spec", rec);
	out = le->ops->update(le->ctx, lease, &err);
	if (!out) {
		sk_debug("leaderelection", "failed to update lease %s/%s: %s", le->ns, le->name, err.msg);
		return 0;
	}
	observe(le, rec, t);
	return 1;
}

static int64_t jittered(sk_le *le)
{
	uint32_t r = 0;

	if (le->cfg.jitter <= 0)
		return le->cfg.retry_period_ms;
	gnutls_rnd(GNUTLS_RND_NONCE, &r, sizeof(r));
	return le->cfg.retry_period_ms + (int64_t)(le->cfg.retry_period_ms * le->cfg.jitter * (r / 4294967296.0));
}

/* A leader's renew cycle, as client-go's renew(): after a successful
 * renewal and a retry period, a cycle begins with the next try and retries
 * every retry period until one succeeds or the renew deadline has passed
 * since the cycle began, by the clock after the call (client-go's tries
 * run under a context that ends there, however long a request hangs). So
 * a leader stops at the latest retry + renew deadline after its last
 * renewal, before the lease duration could pass for another candidate. */
static int64_t cycle_deadline(sk_le *le, int64_t t)
{
	if (!le->cycle_ns)
		le->cycle_ns = t;
	return le->cycle_ns + le->cfg.renew_deadline_ms * 1000000;
}

/* What a try's outcome means, t being when it began. */
static int decide(sk_le *le, int64_t t, int ok, int64_t *wait_ms)
{
	int64_t now, deadline;

	if (!le->leading) {
		*wait_ms = jittered(le);
		if (ok != 1)
			return SK_LE_NONE;
		le->leading = 1;
		le->cycle_ns = 0;
		*wait_ms = le->cfg.retry_period_ms;
		sk_info("leaderelection", "successfully acquired lease %s/%s", le->ns, le->name);
		return SK_LE_STARTED;
	}
	deadline = cycle_deadline(le, t);
	now = le->ops->mono_ns(le->ctx);
	*wait_ms = le->cfg.retry_period_ms;
	if (ok == 1 && now < deadline) {
		le->cycle_ns = 0;
		return SK_LE_NONE;
	}
	if (ok == 0 && now < deadline) {
		if (*wait_ms > (deadline - now) / 1000000)
			*wait_ms = (deadline - now) / 1000000;
		return SK_LE_NONE;
	}
	lose(le);
	*wait_ms = jittered(le);
	sk_warn("leaderelection", "failed to renew lease %s/%s: %s", le->ns, le->name,
		ok < 0 ? "another candidate holds it" : "timed out waiting for the condition");
	return SK_LE_STOPPED;
}

int sk_le_step(sk_le *le, int64_t *wait_ms)
{
	int64_t t = le->ops->mono_ns(le->ctx);

	return decide(le, t, try_acquire_or_renew(le, t), wait_ms);
}

int sk_le_leading(const sk_le *le) { return le->leading; }

const char *sk_le_identity(const sk_le *le) { return le->identity; }

/* client-go's release: the record keeps its transitions, names no holder
 * and lasts a second, so the next candidate takes it at its next try. */
void sk_le_release(sk_le *le)
{
	const char *holder = le->observed ? json_string_value(json_object_get(le->observed, "holderIdentity")) : NULL;
	cleanup_json json_t *lease = NULL, *out = NULL;
	sk_error_t err = {0};
	json_t *spec;
	char now[40];

	lose(le);
	if (!holder || strcmp(holder, le->identity))
		return;
	lease = le->ops->get(le->ctx, &err);
	spec = record_of(lease);
	holder = spec ? json_string_value(json_object_get(spec, "holderIdentity")) : NULL;
	if (!holder || strcmp(holder, le->identity))
		return;
	sk_time_format_micro(le->ops->wall_ns(le->ctx), now, sizeof(now));
	json_object_del(spec, "holderIdentity");
	json_object_set_new(spec, "leaseDurationSeconds", json_integer(1));
	json_object_set_new(spec, "renewTime", json_string(now));
	json_object_set_new(spec, "acquireTime", json_string(now));
	out = le->ops->update(le->ctx, lease, &err);
	if (!out)
		sk_warn("leaderelection", "failed to release lease %s/%s: %s", le->ns, le->name, err.msg);
	else
		observe(le, spec, le->ops->mono_ns(le->ctx));
}

static char *default_identity(void)
{
	unsigned char b[16];
	char host[256] = "localhost";

	gethostname(host, sizeof(host) - 1);
	host[sizeof(host) - 1] = '\0';
	gnutls_rnd(GNUTLS_RND_NONCE, b, sizeof(b));
	b[6] = (b[6] & 0x0f) | 0x40;
	b[8] = (b[8] & 0x3f) | 0x80;
	return xasprintf("%s_%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", host, b[0], b[1],
			 b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
}

sk_le *sk_le_new(const sk_le_config *cfg, const sk_le_ops *ops, void *ctx, sk_error_t *err)
{
	sk_le *le;
	sk_le_config c = *cfg;

	if (!c.lease_duration_ms)
		c.lease_duration_ms = SK_LE_LEASE_DURATION_MS;
	if (!c.renew_deadline_ms)
		c.renew_deadline_ms = SK_LE_RENEW_DEADLINE_MS;
	if (!c.retry_period_ms)
		c.retry_period_ms = SK_LE_RETRY_PERIOD_MS;
	if (c.lease_duration_ms <= c.renew_deadline_ms) {
		sk_error_set(err, SK_EINVALID, "leaseDuration must be greater than renewDeadline");
		return NULL;
	}
	if (c.renew_deadline_ms <= (int64_t)(c.jitter > 0 ? c.jitter * c.retry_period_ms : 0) ||
	    c.renew_deadline_ms <= c.retry_period_ms) {
		sk_error_set(err, SK_EINVALID, "renewDeadline must be greater than retryPeriod*JitterFactor");
		return NULL;
	}
	if (!c.ns || !c.name || !*c.name) {
		sk_error_set(err, SK_EINVALID, "lease name is required");
		return NULL;
	}
	le = xzalloc(sizeof(*le));
	le->ns = xstrdup(c.ns);
	le->name = xstrdup(c.name);
	le->identity = c.identity ? xstrdup(c.identity) : default_identity();
	le->component = c.component ? xstrdup(c.component) : NULL;
	c.component = le->component;
	c.ns = le->ns;
	c.name = le->name;
	c.identity = le->identity;
	le->cfg = c;
	le->ops = ops;
	le->ctx = ctx;
	pthread_mutex_init(&le->mu, NULL);
	{
		pthread_condattr_t a;

		pthread_condattr_init(&a);
		pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
		pthread_cond_init(&le->cv, &a);
		pthread_condattr_destroy(&a);
	}
	pthread_cond_init(&le->rcv, NULL);
	return le;
}

void sk_le_free(sk_le *le)
{
	if (!le)
		return;
	json_decref(le->observed);
	pthread_cond_destroy(&le->cv);
	pthread_cond_destroy(&le->rcv);
	pthread_mutex_destroy(&le->mu);
	free(le->ns);
	free(le->name);
	free(le->identity);
	free(le->component);
	free(le);
}

/* The Lease through the API. */

static char *lease_path(sk_le *le)
{
	return xasprintf("/apis/coordination.k8s.io/v1/namespaces/%s/leases/%s", le->ns, le->name);
}

static json_t *api_get(void *ctx, sk_error_t *err)
{
	sk_le *le = ctx;
	cleanup_free char *path = lease_path(le);

	return sk_client_get(le->c, path, err);
}

static json_t *api_create(void *ctx, json_t *lease, sk_error_t *err)
{
	sk_le *le = ctx;
	cleanup_free char *path = xasprintf("/apis/coordination.k8s.io/v1/namespaces/%s/leases", le->ns);

	return sk_client_create(le->c, path, lease, err);
}

static json_t *api_update(void *ctx, json_t *lease, sk_error_t *err)
{
	sk_le *le = ctx;
	cleanup_free char *path = lease_path(le);

	return sk_client_update(le->c, path, lease, err);
}

static int64_t clock_mono(void *ctx)
{
	(void)ctx;
	return sk_mono_ns();
}

static int64_t clock_wall(void *ctx)
{
	(void)ctx;
	return sk_now_ns();
}

static const sk_le_ops api_ops = {api_get, api_create, api_update, clock_mono, clock_wall};

static void record_event(sk_le *le, const char *what)
{
	cleanup_json json_t *lease = api_get(le, NULL);

	if (lease)
		sk_event_record(le->c, lease, "Normal", "LeaderElection",
				le->cfg.component ? le->cfg.component : le->name, NULL, "%s %s", le->identity, what);
}

/* Waits ms or until sk_le_stop; 1 when stopping. */
static int pause_ms(sk_le *le, int64_t ms)
{
	struct timespec ts;
	int stop;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	ts.tv_sec += ms / 1000;
	ts.tv_nsec += (ms % 1000) * 1000000;
	if (ts.tv_nsec >= 1000000000) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000;
	}
	pthread_mutex_lock(&le->mu);
	while (!le->stop && !le->give_up && pthread_cond_timedwait(&le->cv, &le->mu, &ts) == 0)
		;
	stop = le->stop;
	pthread_mutex_unlock(&le->mu);
	return stop;
}

/* The components' side of a candidate: cfg->started and cfg->stopped run
 * on a thread of their own, in order, as the elector asks (want), so that
 * the elector's thread only ever waits on its own Lease calls however long
 * starting or stopping takes (client-go runs OnStartedLeading in a
 * goroutine beside the renewals). */
static void *runner_main(void *arg)
{
	sk_le *le = arg;

	pthread_mutex_lock(&le->mu);
	for (;;) {
		while (le->want == le->have && !le->quit)
			pthread_cond_wait(&le->rcv, &le->mu);
		if (le->want == le->have)
			break;
		if (le->want) {
			int ok;

			le->have = 1;
			pthread_mutex_unlock(&le->mu);
			record_event(le, "became leader");
			ok = !le->cfg.started || le->cfg.started(le->cfg.arg) == 0;
			pthread_mutex_lock(&le->mu);
			if (!ok) { /* its components did not start: the elector gives the lease up */
				le->have = le->want = 0;
				le->give_up = 1;
				pthread_cond_broadcast(&le->cv);
			}
		} else {
			pthread_mutex_unlock(&le->mu);
			if (le->cfg.stopped)
				le->cfg.stopped(le->cfg.arg);
			pthread_mutex_lock(&le->mu);
			le->have = 0;
		}
		pthread_cond_broadcast(&le->rcv);
	}
	pthread_mutex_unlock(&le->mu);
	return NULL;
}

static void post(sk_le *le, int want)
{
	pthread_mutex_lock(&le->mu);
	le->want = want;
	pthread_cond_broadcast(&le->rcv);
	pthread_mutex_unlock(&le->mu);
}

/* A leader's try on a thread of its own, so that a call hanging on an
 * unreachable store cannot keep it leading past the renew deadline. */
typedef struct attempt {
	sk_le *le;
	int64_t t;
	int ok, done;
} attempt;

static void *attempt_main(void *arg)
{
	attempt *a = arg;
	int ok = try_acquire_or_renew(a->le, a->t);

	pthread_mutex_lock(&a->le->mu);
	a->ok = ok;
	a->done = 1;
	pthread_cond_broadcast(&a->le->cv);
	pthread_mutex_unlock(&a->le->mu);
	return NULL;
}

static void mono_ts(int64_t ns, struct timespec *ts)
{
	ts->tv_sec = ns / 1000000000;
	ts->tv_nsec = ns % 1000000000;
}

static void stopped_leading(sk_le *le)
{
	sk_info("leaderelection", "%s stopped leading %s/%s", le->identity, le->ns, le->name);
	post(le, 0);
}

/* The leader's step: if its try has not come back by its renew cycle's
 * deadline, it stops leading there and then (writes fenced, its components told to
 * stop), before the lease could expire for another candidate, and waits
 * for the try only after; SK_LE_NONE then. */
static int fenced_step(sk_le *le, int64_t *wait_ms)
{
	attempt a = {.le = le, .t = le->ops->mono_ns(le->ctx)};
	int64_t deadline = cycle_deadline(le, a.t);
	struct timespec ts;
	pthread_t th;
	int done = 0;

	if (a.t < deadline) {
		if (pthread_create(&th, NULL, attempt_main, &a) != 0)
			return sk_le_step(le, wait_ms);
		mono_ts(deadline, &ts);
		pthread_mutex_lock(&le->mu);
		while (!a.done && pthread_cond_timedwait(&le->cv, &le->mu, &ts) != ETIMEDOUT)
			;
		done = a.done;
		pthread_mutex_unlock(&le->mu);
	}
	if (done) {
		pthread_join(th, NULL);
		return decide(le, a.t, a.ok, wait_ms);
	}
	/* past the deadline (the wait timed out there): a failed try, so it stops */
	if (decide(le, a.t, 0, wait_ms) == SK_LE_STOPPED)
		stopped_leading(le);
	if (a.t < deadline)
		pthread_join(th, NULL);
	return SK_LE_NONE;
}

static int take_give_up(sk_le *le)
{
	int g;

	pthread_mutex_lock(&le->mu);
	g = le->give_up;
	le->give_up = 0;
	pthread_mutex_unlock(&le->mu);
	return g;
}

static void *run_main(void *arg)
{
	sk_le *le = arg;
	int64_t wait = 0;
	int led;

	sk_info("leaderelection", "attempting to acquire leader lease %s/%s as %s", le->ns, le->name, le->identity);
	while (!pause_ms(le, wait)) {
		int r;

		if (take_give_up(le)) {
			sk_warn("leaderelection", "%s/%s: giving the lease up", le->ns, le->name);
			sk_le_release(le);
			wait = jittered(le);
			continue;
		}
		r = le->leading ? fenced_step(le, &wait) : sk_le_step(le, &wait);
		if (r == SK_LE_STARTED) {
			if (le->cfg.fence)
				sk_client_fence(le->cfg.fence, 0);
			post(le, 1);
		} else if (r == SK_LE_STOPPED) {
			stopped_leading(le);
		}
	}
	/* a graceful stop: the components end, then the lease goes (ReleaseOnCancel) */
	led = le->leading;
	if (led)
		lose(le);
	pthread_mutex_lock(&le->mu);
	le->want = 0;
	le->quit = 1;
	pthread_cond_broadcast(&le->rcv);
	pthread_mutex_unlock(&le->mu);
	pthread_join(le->runner, NULL);
	if (led)
		sk_le_release(le);
	return NULL;
}

sk_le *sk_le_run(sk_client *c, const sk_le_config *cfg, sk_error_t *err)
{
	sk_le *le = sk_le_new(cfg, &api_ops, NULL, err);

	if (!le)
		return NULL;
	le->ctx = le;
	le->c = c;
	if (pthread_create(&le->runner, NULL, runner_main, le) != 0) {
		sk_error_set(err, SK_EINTERNAL, "starting the leader election of %s/%s", le->ns, le->name);
		sk_le_free(le);
		return NULL;
	}
	if (pthread_create(&le->thread, NULL, run_main, le) != 0) {
		pthread_mutex_lock(&le->mu);
		le->quit = 1;
		pthread_cond_broadcast(&le->rcv);
		pthread_mutex_unlock(&le->mu);
		pthread_join(le->runner, NULL);
		sk_error_set(err, SK_EINTERNAL, "starting the leader election of %s/%s", le->ns, le->name);
		sk_le_free(le);
		return NULL;
	}
	le->running = 1;
	return le;
}

void sk_le_stop(sk_le *le)
{
	if (!le)
		return;
	pthread_mutex_lock(&le->mu);
	le->stop = 1;
	pthread_cond_broadcast(&le->cv);
	pthread_mutex_unlock(&le->mu);
	if (le->running)
		pthread_join(le->thread, NULL);
	sk_le_free(le);
}
