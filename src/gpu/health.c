/* Device health: critical XIDs from NVML (or injected for tests) make a
 * device unhealthy, so allocatable drops and it is not handed out; after a
 * quiet period without critical XIDs a device that answers is healthy
 * again. The callback tells the agent, which records an event. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "gpu/gpu-int.h"
#include "util/util.h"

#define TICK_MS 1000

/* XIDs the device plugin treats as application errors, not device faults:
 * 13 graphics engine exception, 31 GPU memory page fault, 43 GPU stopped
 * processing, 45 preemptive cleanup, 68 video processor exception. */
bool sk_gpu_xid_is_application(unsigned xid) { return xid == 13 || xid == 31 || xid == 43 || xid == 45 || xid == 68; }

static const char *xid_name(unsigned xid)
{
	switch (xid) {
	case 48:
		return "double bit ECC error";
	case 62:
		return "internal micro-controller halt";
	case 63:
		return "ECC page retirement or row remapping recording event";
	case 64:
		return "ECC page retirement or row remapper recording failure";
	case 74:
		return "NVLink error";
	case 79:
		return "GPU has fallen off the bus";
	case 92:
		return "high single-bit ECC error rate";
	case 94:
		return "contained ECC error";
	case 95:
		return "uncontained ECC error";
	case 119:
	case 120:
		return "GSP error";
	default:
		return "critical error";
	}
}

struct flip {
	struct sk_gpu_device d;
	bool healthy;
	char reason[192];
};

static void notify(struct sk_gpu *g, const struct flip *f, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (f[i].healthy)
			sk_info("gpu", "device %s is healthy again: %s", f[i].d.uuid, f[i].reason);
		else
			sk_warn("gpu", "device %s is unhealthy: %s", f[i].d.uuid, f[i].reason);
		if (g->on_health)
			g->on_health(&f[i].d, f[i].healthy, f[i].reason, g->ud);
	}
}

/* Marks device i (locked) unhealthy; returns whether it changed. */
static bool mark_unhealthy(struct sk_gpu *g, size_t i, const char *reason, struct flip *f)
{
	struct sk_gpu_device *d = &g->t.devs[i];
	bool changed = d->healthy;

	g->last_xid_ns[i] = sk_mono_ns();
	d->healthy = false;
	snprintf(d->reason, sizeof(d->reason), "%s", reason);
	if (changed) {
		f->d = *d;
		f->healthy = false;
		snprintf(f->reason, sizeof(f->reason), "%s", reason);
	}
	return changed;
}

static bool mark_healthy(struct sk_gpu *g, size_t i, const char *reason, struct flip *f)
{
	struct sk_gpu_device *d = &g->t.devs[i];

	if (d->healthy)
		return false;
	d->healthy = true;
	d->reason[0] = 0;
	g->last_xid_ns[i] = 0;
	f->d = *d;
	f->healthy = true;
	snprintf(f->reason, sizeof(f->reason), "%s", reason);
	return true;
}

/* index < 0: all devices (NVML could not say which). */
static int apply_xid(struct sk_gpu *g, int index, unsigned xid)
{
	struct flip *f = xzalloc((g->t.n + 1) * sizeof(*f));
	char reason[160];
	size_t i, n = 0;

	if (xid)
		snprintf(reason, sizeof(reason), "XID %u (%s)", xid, xid_name(xid));
	else
		snprintf(reason, sizeof(reason), "GPU is lost");
	if (xid && sk_gpu_xid_is_application(xid)) {
		sk_info("gpu", "ignoring application XID %u on device %d", xid, index);
		free(f);
		return 0;
	}
	pthread_mutex_lock(&g->mu);
	for (i = 0; i < g->t.n; i++)
		if ((index < 0 || (size_t)index == i) && mark_unhealthy(g, i, reason, &f[n]))
			n++;
	pthread_mutex_unlock(&g->mu);
	notify(g, f, n);
	free(f);
	return n > 0;
}

static int device_index(struct sk_gpu *g, const char *dev)
{
	char *end;
	long v;
	int i;

	pthread_mutex_lock(&g->mu);
	i = sk__gpu_device_find(g, dev);
	pthread_mutex_unlock(&g->mu);
	if (i >= 0)
		return i;
	errno = 0;
	v = strtol(dev, &end, 10);
	if (errno || end == dev || *end || v < 0 || (size_t)v >= g->t.n)
		return -1;
	return (int)v;
}

int sk_gpu_inject_xid(sk_gpu *g, const char *dev, unsigned xid)
{
	int i = device_index(g, dev);

	if (i < 0)
		return -1;
	return apply_xid(g, i, xid);
}

static void recover(struct sk_gpu *g, int index, const char *reason)
{
	struct flip f;
	bool changed;

	pthread_mutex_lock(&g->mu);
	changed = mark_healthy(g, (size_t)index, reason, &f);
	pthread_mutex_unlock(&g->mu);
	if (changed)
		notify(g, &f, 1);
}

/* The test hook file: "<uuid|index> <xid>" or "<uuid|index> ok" per line. */
static void read_inject_file(struct sk_gpu *g)
{
	cleanup_free char *path = xasprintf("%s/inject-xid", g->dir);
	cleanup_free char *s = sk_read_file(path, NULL);
	char *line, *save = NULL;

	if (!s)
		return;
	unlink(path);
	for (line = strtok_r(s, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char dev[128], what[32];
		int i;

		if (sscanf(line, "%127s %31s", dev, what) != 2 || (i = device_index(g, dev)) < 0) {
			sk_warn("gpu", "inject-xid: ignoring \"%s\"", line);
			continue;
		}
		if (!strcmp(what, "ok"))
			recover(g, i, "recovered (inject-xid)");
		else
			apply_xid(g, i, (unsigned)strtoul(what, NULL, 10));
	}
}

static void quiet_recovery(struct sk_gpu *g)
{
	int64_t now = sk_mono_ns(), quiet = (int64_t)g->quiet_period_s * 1000000000LL;
	size_t i;

	if (g->quiet_period_s < 0)
		return;
	for (i = 0; i < g->t.n; i++) {
		bool due;
		char reason[96];

		pthread_mutex_lock(&g->mu);
		due = !g->t.devs[i].healthy && g->last_xid_ns[i] && now - g->last_xid_ns[i] >= quiet;
		pthread_mutex_unlock(&g->mu);
		if (!due || (g->nvml && !sk__nvml_probe(g->nvml, (unsigned)i)))
			continue;
		snprintf(reason, sizeof(reason), "no critical XID for %ds", g->quiet_period_s);
		recover(g, (int)i, reason);
	}
}

void sk_gpu_health_check(sk_gpu *g)
{
	read_inject_file(g);
	quiet_recovery(g);
}

static bool wait_stop(struct sk_gpu *g, int ms)
{
	struct timespec ts;
	bool stop;

	sk_deadline_after_ms(&ts, ms);
	pthread_mutex_lock(&g->mu);
	if (!g->stop)
		pthread_cond_timedwait(&g->stop_cv, &g->mu, &ts);
	stop = g->stop;
	pthread_mutex_unlock(&g->mu);
	return stop;
}

static bool stopping(struct sk_gpu *g)
{
	bool s;

	pthread_mutex_lock(&g->mu);
	s = g->stop;
	pthread_mutex_unlock(&g->mu);
	return s;
}

static void *health_main(void *arg)
{
	struct sk_gpu *g = arg;
	bool events = g->nvml && sk__nvml_events_start(g->nvml) == 0;

	while (!stopping(g)) {
		sk_gpu_health_check(g);
		if (events) {
			int index, r;
			unsigned xid;

			r = sk__nvml_wait(g->nvml, TICK_MS, &index, &xid);
			if (r == 1 || r == -1)
				apply_xid(g, index, xid);
			if (r < 0 && wait_stop(g, TICK_MS))
				break;
		} else if (wait_stop(g, TICK_MS)) {
			break;
		}
	}
	return NULL;
}

int sk__gpu_health_start(struct sk_gpu *g, sk_error_t *err)
{
	int r = pthread_create(&g->health, NULL, health_main, g);

	if (r)
		return sk_error_errno(err, r, "gpu: starting the health thread");
	g->health_running = true;
	return 0;
}

void sk__gpu_health_stop(struct sk_gpu *g)
{
	if (!g->health_running)
		return;
	pthread_mutex_lock(&g->mu);
	g->stop = true;
	pthread_cond_broadcast(&g->stop_cv);
	pthread_mutex_unlock(&g->mu);
	pthread_join(g->health, NULL);
	g->health_running = false;
}
