/* skiff validate: the node-stack canary of docs/USER-GUIDE.md ("Validating
 * a node"), run as real pods through the API with a kubeconfig, as kubectl
 * would: per node, a claim of the default StorageClass and one pod pinned to
 * the node that pulls its image cold (imagePullPolicy Always), writes an
 * artifact to the claim and reads it back, checks a GPU when the node
 * advertises nvidia.com/gpu, exits 0 and is deleted; then the claim (and the
 * volume provisioned for it) is deleted. Every step is timed; nodes of a
 * --selector run one after another. */
#include <curl/curl.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "client/client.h"
#include "cmd/cmd.h"
#include "kube/duration.h"
#include "util/quantity.h"
#include "util/util.h"

#define MANAGED_BY "skiff-validate"

enum step {
	ST_ADMISSION,
	ST_SCHEDULING,
	ST_STORAGE,
	ST_SANDBOX,
	ST_PULL,
	ST_RUN,
	ST_ARTIFACT,
	ST_GPU,
	ST_TERMINATION,
	ST_CLEANUP,
	N_STEPS
};

static const char *const step_names[N_STEPS] = {"admission", "scheduling", "storage", "sandbox",     "pull",
						"run",       "artifact",   "gpu",     "termination", "cleanup"};

enum result { R_NOTRUN, R_PASSED, R_FAILED, R_SKIPPED };
static const char *const result_names[] = {"NotRun", "Passed", "Failed", "Skipped"};

struct step_row {
	enum result result;
	double secs; /* < 0: no duration */
	char detail[512];
};

struct node_report {
	char *node;
	struct step_row rows[N_STEPS];
	int failed; /* the failing step, or -1 */
	double total;
};

struct vopts {
	sk_client *c;
	const char *ns;
	const char *image;
	const char *storage_class;
	double timeout;
};

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	if (interrupted)
		_exit(128 + sig);
	interrupted = sig;
}

static double now_s(void) { return (double)sk_mono_ns() / 1e9; }

static void nap(void)
{
	struct timespec ts = {0, 50 * 1000 * 1000};

	nanosleep(&ts, NULL);
}

/* A Go duration ("1.5s", "250ms", "1m30s", "2h"; a bare number is
 * seconds) up to a space, ')' or the end. Returns seconds, or -1. *end
 * (when not NULL) gets where it stopped. */
static double parse_duration(const char *s, const char **end)
{
	size_t n = strcspn(s, " )");
	char word[64], *e;
	int64_t ns;
	double v;

	if (!n || n >= sizeof(word))
		return -1;
	memcpy(word, s, n);
	word[n] = 0;
	if (end)
		*end = s + n;
	if (!word[strspn(word, "0123456789.")]) {
		v = strtod(word, &e);
		return e != word && !*e ? v : -1;
	}
	return sk_kube_duration_parse(word, &ns, NULL) == 0 && ns >= 0 ? (double)ns / 1e9 : -1;
}

static void fmt_duration(double secs, char *buf, size_t len)
{
	if (secs < 0)
		snprintf(buf, len, "-");
	else if (secs < 1)
		snprintf(buf, len, "%.0fms", secs * 1000);
	else
		snprintf(buf, len, "%.2fs", secs);
}

static void set_row(struct node_report *r, enum step s, enum result res, double secs, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
static void set_row(struct node_report *r, enum step s, enum result res, double secs, const char *fmt, ...)
{
	va_list ap;

	r->rows[s].result = res;
	r->rows[s].secs = secs;
	va_start(ap, fmt);
	vsnprintf(r->rows[s].detail, sizeof(r->rows[s].detail), fmt, ap);
	va_end(ap);
	for (char *p = r->rows[s].detail; *p; p++)
		if (*p == '\n' || *p == '\t')
			*p = ' ';
	if (res == R_FAILED && r->failed < 0)
		r->failed = (int)s;
}

static const char *jstr(json_t *o, const char *k) { return json_string_value(json_object_get(o, k)); }

/* The pod's first container status, or NULL. */
static json_t *ctr_status(json_t *pod)
{
	return json_array_get(json_object_get(json_object_get(pod, "status"), "containerStatuses"), 0);
}

static json_t *pod_condition(json_t *pod, const char *type)
{
	json_t *conds = json_object_get(json_object_get(pod, "status"), "conditions"), *cd;
	size_t i;

	json_array_foreach(conds, i, cd)
		if (!strcmp(jstr(cd, "type") ? jstr(cd, "type") : "", type))
			return cd;
	return NULL;
}

/* Events of the object named name (kind Pod) in the namespace, oldest first. */
static json_t *pod_events(struct vopts *o, const char *name)
{
	cleanup_free char *path = xasprintf("/api/v1/namespaces/%s/events", o->ns);
	cleanup_free char *sel = xasprintf("involvedObject.name=%s,involvedObject.kind=Pod", name);
	char *esc = curl_easy_escape(NULL, sel, 0);
	cleanup_free char *q = xasprintf("fieldSelector=%s", esc ? esc : "");
	sk_error_t err = {0};
	json_t *l;

	curl_free(esc);
	l = sk_client_list(o->c, path, q, &err);
	return l;
}

/* The message of the last event with reason (NULL: none). Borrowed from evs. */
static const char *event_message(json_t *evs, const char *reason)
{
	json_t *items = json_object_get(evs, "items"), *e;
	const char *msg = NULL;
	size_t i;

	json_array_foreach(items, i, e)
		if (jstr(e, "reason") && !strcmp(jstr(e, "reason"), reason))
			msg = jstr(e, "message");
	return msg;
}

static bool is_pull_error(const char *reason)
{
	static const char *const r[] = {"ErrImagePull",      "ImagePullBackOff",    "InvalidImageName",
					"ErrImageNeverPull", "RegistryUnavailable", "SignatureValidationFailed"};

	for (size_t i = 0; reason && i < sizeof(r) / sizeof(r[0]); i++)
		if (!strcmp(reason, r[i]))
			return true;
	return false;
}

/* Where a pod that has not finished is stuck, in the seed's vocabulary:
 * scheduling, sandbox, pull or run, with what the pod and its events say. */
static enum step diagnose(json_t *pod, json_t *evs, char *why, size_t len)
{
	json_t *sched = pod_condition(pod, "PodScheduled"), *cs = ctr_status(pod);
	json_t *waiting = json_object_get(json_object_get(cs, "state"), "waiting");
	const char *reason = jstr(waiting, "reason"), *m;

	if (!jstr(json_object_get(pod, "spec"), "nodeName")) {
		snprintf(why, len, "not scheduled: %s",
			 jstr(sched, "message") ? jstr(sched, "message") : "no PodScheduled condition yet");
		return ST_SCHEDULING;
	}
	if (is_pull_error(reason)) {
		snprintf(why, len, "%s: %s", reason, jstr(waiting, "message") ? jstr(waiting, "message") : "");
		return ST_PULL;
	}
	if (reason && strcmp(reason, "ContainerCreating") && strcmp(reason, "PodInitializing")) {
		snprintf(why, len, "%s: %s", reason, jstr(waiting, "message") ? jstr(waiting, "message") : "");
		return ST_RUN;
	}
	if ((m = event_message(evs, "FailedCreatePodSandBox")) || (m = event_message(evs, "FailedMount"))) {
		snprintf(why, len, "%s", m);
		return ST_SANDBOX;
	}
	if (json_object_get(json_object_get(cs, "state"), "running")) {
		snprintf(why, len, "the container is still running");
		return ST_RUN;
	}
	if (event_message(evs, "Pulling") && !event_message(evs, "Pulled")) {
		snprintf(why, len, "%s, not pulled yet", event_message(evs, "Pulling"));
		return ST_PULL;
	}
	snprintf(why, len, "the pod's sandbox is not ready (%s)", reason ? reason : "no container status yet");
	return ST_SANDBOX;
}

/* The canary's container script: it reports each check on a line
 * "SKV <step> ok|fail <start> <end> <detail>" with /proc/uptime as the clock
 * (10 ms; any image with a POSIX shell, cat and head has it). */
static const char script[] =
	"t() { read -r u _ < /proc/uptime; echo \"$u\"; }\n"
	"f=/data/skiff-validate-artifact\n"
	"s0=$(t)\n"
	"s=$s0\n"
	"if ! printf '%s\\n' \"$SKV_TOKEN\" > \"$f\"; then echo \"SKV artifact fail $s $(t) cannot write $f\"; exit "
	"10; fi\n"
	"got=$(cat \"$f\") || { echo \"SKV artifact fail $s $(t) cannot read $f back\"; exit 10; }\n"
	"if [ \"$got\" != \"$SKV_TOKEN\" ]; then echo \"SKV artifact fail $s $(t) read back other bytes than were "
	"written to $f\"; exit 10; fi\n"
	"echo \"SKV artifact ok $s $(t) wrote and read back $f on the claim\"\n"
	"if [ \"$SKV_GPU\" = 1 ]; then\n"
	"  s=$(t)\n"
	"  if command -v nvidia-smi >/dev/null 2>&1; then\n"
	"    if out=$(nvidia-smi -L 2>&1); then echo \"SKV gpu ok $s $(t) $(echo \"$out\" | head -n 1)\";\n"
	"    else echo \"SKV gpu fail $s $(t) nvidia-smi -L: $(echo \"$out\" | head -n 1)\"; exit 11; fi\n"
	"  elif ls /dev/nvidia[0-9]* >/dev/null 2>&1; then echo \"SKV gpu ok $s $(t) device nodes\" /dev/nvidia[0-9]*\n"
	"  elif [ \"$SKV_GPU_SIMULATED\" = 1 ] && [ -n \"${NVIDIA_VISIBLE_DEVICES:-}\" ]; then\n"
	"    echo \"SKV gpu ok $s $(t) simulated device $NVIDIA_VISIBLE_DEVICES\"\n"
	"  else echo \"SKV gpu fail $s $(t) no nvidia-smi and no /dev/nvidiaN in the container\"; exit 11; fi\n"
	"fi\n"
	"echo \"SKV run ok $s0 $(t) the checks passed\"\n";

static json_t *pvc_object(struct vopts *o)
{
	json_t *pvc = json_pack("{s:s, s:s, s:{s:s, s:{s:s}}, s:{s:[s], s:{s:{s:s}}}}", "apiVersion", "v1", "kind",
				"PersistentVolumeClaim", "metadata", "generateName", "skiff-validate-", "labels",
				"app.kubernetes.io/managed-by", MANAGED_BY, "spec", "accessModes", "ReadWriteOnce",
				"resources", "requests", "storage", "16Mi");

	if (o->storage_class)
		json_object_set_new(json_object_get(pvc, "spec"), "storageClassName", json_string(o->storage_class));
	return pvc;
}

static json_t *pod_object(struct vopts *o, const char *name, const char *node, const char *token, bool gpu,
			  bool simulated)
{
	json_t *env = json_pack("[{s:s, s:s}, {s:s, s:s}, {s:s, s:s}]", "name", "SKV_TOKEN", "value", token, "name",
				"SKV_GPU", "value", gpu ? "1" : "0", "name", "SKV_GPU_SIMULATED", "value",
				simulated ? "1" : "0");
	json_t *ctr = json_pack("{s:s, s:s, s:s, s:[s, s, s], s:o, s:[{s:s, s:s}]}", "name", "canary", "image",
				o->image, "imagePullPolicy", "Always", "command", "sh", "-c", script, "env", env,
				"volumeMounts", "name", "data", "mountPath", "/data");
	json_t *affinity = json_pack("{s:{s:{s:[{s:[{s:s, s:s, s:[s]}]}]}}}", "nodeAffinity",
				     "requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms",
				     "matchFields", "key", "metadata.name", "operator", "In", "values", node);

	if (gpu)
		json_object_set_new(ctr, "resources", json_pack("{s:{s:s}}", "limits", "nvidia.com/gpu", "1"));
	return json_pack("{s:s, s:s, s:{s:s, s:{s:s}}, s:{s:s, s:i, s:o, s:[{s:s}], s:[{s:s, s:{s:s}}], s:[o]}}",
			 "apiVersion", "v1", "kind", "Pod", "metadata", "name", name, "labels",
			 "app.kubernetes.io/managed-by", MANAGED_BY, "spec", "restartPolicy", "Never",
			 "terminationGracePeriodSeconds", 5, "affinity", affinity, "tolerations", "operator", "Exists",
			 "volumes", "name", "data", "persistentVolumeClaim", "claimName", name, "containers", ctr);
}

/* Parses the SKV lines of the container's log into the artifact and gpu rows. */
static void parse_log(struct node_report *r, const char *log)
{
	const char *line = log;

	while (line && *line) {
		const char *nl = strchr(line, '\n');
		cleanup_free char *l = nl ? xstrndup(line, (size_t)(nl - line)) : xstrdup(line);
		char step[32], res[16];
		double a, b;
		int off = 0;

		if (sscanf(l, "SKV %31s %15s %lf %lf %n", step, res, &a, &b, &off) == 4 && off > 0) {
			enum step s = !strcmp(step, "gpu") ? ST_GPU : !strcmp(step, "run") ? ST_RUN : ST_ARTIFACT;

			set_row(r, s, strcmp(res, "ok") ? R_FAILED : R_PASSED, b - a >= 0 ? b - a : 0, "%s", l + off);
		}
		line = nl ? nl + 1 : NULL;
	}
}

/* From a Pulled event: "Successfully pulled image "X" in 1.2s (1.3s including
 * waiting). Image size: N bytes." → seconds, or -1. */
static double pulled_secs(const char *msg)
{
	const char *p = msg ? strstr(msg, "\" in ") : NULL;

	return p ? parse_duration(p + 5, NULL) : -1;
}

static bool gone(struct vopts *o, const char *path)
{
	sk_error_t err = {0};
	cleanup_json json_t *obj = sk_client_get(o->c, path, &err);

	return !obj && err.code == SK_ENOTFOUND;
}

/* Deletes path (grace < 0: the object's own) and waits until it is gone, at
 * most limit seconds. 0 when gone, -1 with why. */
static int delete_wait(struct vopts *o, const char *path, int grace, double limit, char *why, size_t len)
{
	double end = now_s() + limit;
	sk_error_t err = {0};
	cleanup_json json_t *opts = grace >= 0 ? json_pack("{s:i}", "gracePeriodSeconds", grace) : NULL;

	if (sk_client_delete(o->c, path, opts, &err) < 0 && err.code != SK_ENOTFOUND) {
		snprintf(why, len, "deleting %s: %s", path, err.msg);
		return -1;
	}
	while (!gone(o, path)) {
		if (now_s() > end) {
			snprintf(why, len, "%s still there after %.0fs", path, limit);
			return -1;
		}
		nap();
	}
	return 0;
}

static bool node_gpus(json_t *node, bool *simulated)
{
	const char *q = jstr(json_object_get(json_object_get(node, "status"), "allocatable"), "nvidia.com/gpu");
	const char *sim = jstr(json_object_get(json_object_get(node, "metadata"), "labels"), "skiff.dev/gpu.simulated");
	int64_t milli = 0;

	*simulated = sim && !strcmp(sim, "true");
	return q && sk_quantity_milli(q, &milli) == 0 && milli >= 1000;
}

static void validate_node(struct vopts *o, json_t *node, struct node_report *r)
{
	const char *nname = jstr(json_object_get(node, "metadata"), "name");
	double t0 = now_s(), deadline = t0 + o->timeout, t, t_sched = -1, t_bound = -1, t_end = -1;
	cleanup_free char *pvcs = xasprintf("/api/v1/namespaces/%s/persistentvolumeclaims", o->ns);
	cleanup_free char *pods = xasprintf("/api/v1/namespaces/%s/pods", o->ns);
	cleanup_free char *name = NULL, *pod_path = NULL, *pvc_path = NULL, *pv = NULL, *log = NULL;
	cleanup_json json_t *pvc = NULL, *pod = NULL, *evs = NULL;
	bool simulated, gpu = node_gpus(node, &simulated), done = false;
	sk_error_t err = {0};
	char token[40], why[600];
	int exit_code = -1;
	double pull = -1;

	r->node = xstrdup(nname);
	r->failed = -1;
	for (int i = 0; i < N_STEPS; i++)
		r->rows[i].secs = -1;
	snprintf(token, sizeof(token), "skiff-validate-%08lx%08lx", (unsigned long)random(), (unsigned long)random());

	/* admission: the claim and the pod */
	{
		cleanup_json json_t *want = pvc_object(o);

		pvc = sk_client_create(o->c, pvcs, want, &err);
	}
	if (!pvc) {
		set_row(r, ST_ADMISSION, R_FAILED, now_s() - t0, "PersistentVolumeClaim: %s", err.msg);
		goto cleanup;
	}
	name = xstrdup(jstr(json_object_get(pvc, "metadata"), "name"));
	pvc_path = xasprintf("%s/%s", pvcs, name);
	pod_path = xasprintf("%s/%s", pods, name);
	{
		cleanup_json json_t *p = pod_object(o, name, nname, token, gpu, simulated);

		if (!(pod = sk_client_create(o->c, pods, p, &err))) {
			set_row(r, ST_ADMISSION, R_FAILED, now_s() - t0, "Pod: %s", err.msg);
			goto cleanup;
		}
	}
	set_row(r, ST_ADMISSION, R_PASSED, now_s() - t0, "pod and persistentvolumeclaim %s/%s", o->ns, name);
	t = now_s();

	/* scheduling, storage, sandbox, pull, run: watch the pod until its
	 * container has terminated */
	for (int polls = 0; !done; polls++) {
		json_t *cs, *term;
		const char *reason;

		if (interrupted || now_s() > deadline) {
			cleanup_json json_t *e = pod_events(o, name);
			enum step s = diagnose(pod, e, why, sizeof(why));

			if (t_sched >= 0 && t_bound < 0 && s == ST_SANDBOX) {
				/* scheduled, but its claim never bound: storage */
				cleanup_json json_t *c = sk_client_get(o->c, pvc_path, &err);
				const char *ph = jstr(json_object_get(c, "status"), "phase");
				const char *m = event_message(e, "FailedMount");

				s = ST_STORAGE;
				snprintf(why, sizeof(why), "claim %s is %s%s%s", name, ph ? ph : "unknown",
					 m ? ": " : "", m ? m : "");
			}
			set_row(r, s, R_FAILED, -1, "%s: %s", interrupted ? "interrupted" : "timed out", why);
			goto cleanup;
		}
		json_decref(pod);
		if (!(pod = sk_client_get(o->c, pod_path, &err))) {
			set_row(r, ST_RUN, R_FAILED, -1, "reading the pod: %s", err.msg);
			goto cleanup;
		}
		if (t_sched < 0 && jstr(json_object_get(pod, "spec"), "nodeName")) {
			t_sched = now_s();
			set_row(r, ST_SCHEDULING, R_PASSED, t_sched - t, "bound to %s",
				jstr(json_object_get(pod, "spec"), "nodeName"));
		}
		if (t_sched >= 0 && t_bound < 0) {
			cleanup_json json_t *c = sk_client_get(o->c, pvc_path, &err);
			json_t *st = json_object_get(c, "status");

			if (jstr(st, "phase") && !strcmp(jstr(st, "phase"), "Bound")) {
				const char *sc = jstr(json_object_get(c, "spec"), "storageClassName");

				t_bound = now_s();
				pv = xstrdup(jstr(json_object_get(c, "spec"), "volumeName")
						     ? jstr(json_object_get(c, "spec"), "volumeName")
						     : "");
				set_row(r, ST_STORAGE, R_PASSED, t_bound - t_sched, "claim bound to %s (%s)", pv,
					sc ? sc : "no class");
			}
		}
		cs = ctr_status(pod);
		reason = jstr(json_object_get(json_object_get(cs, "state"), "waiting"), "reason");
		if ((term = json_object_get(json_object_get(cs, "state"), "terminated"))) {
			t_end = now_s();
			exit_code = (int)json_integer_value(json_object_get(term, "exitCode"));
			done = true;
			break;
		}
		if (is_pull_error(reason) ||
		    (reason && strcmp(reason, "ContainerCreating") && strcmp(reason, "PodInitializing"))) {
			enum step s = diagnose(pod, NULL, why, sizeof(why));

			set_row(r, s, R_FAILED, -1, "%s", why);
			goto cleanup;
		}
		if (jstr(json_object_get(pod, "status"), "phase") &&
		    !strcmp(jstr(json_object_get(pod, "status"), "phase"), "Failed")) {
			json_t *st = json_object_get(pod, "status");

			set_row(r, ST_RUN, R_FAILED, -1, "pod Failed: %s %s",
				jstr(st, "reason") ? jstr(st, "reason") : "",
				jstr(st, "message") ? jstr(st, "message") : "");
			goto cleanup;
		}
		if (t_sched >= 0 && polls % 10 == 0) {
			cleanup_json json_t *e = pod_events(o, name);
			const char *m = event_message(e, "FailedCreatePodSandBox");

			if (m) {
				set_row(r, ST_SANDBOX, R_FAILED, -1, "%s", m);
				goto cleanup;
			}
		}
		nap();
	}

	/* pull: the agent's Pulled event says how long the pull took */
	for (double until = now_s() + 5; now_s() < until && !interrupted; nap()) {
		json_decref(evs);
		evs = pod_events(o, name);
		if (event_message(evs, "Pulled"))
			break;
	}
	{
		const char *m = event_message(evs, "Pulled");

		pull = pulled_secs(m);
		if (m && strstr(m, "already present"))
			set_row(r, ST_PULL, R_FAILED, -1, "not pulled (cache not bypassed): %s", m);
		else if (m && pull >= 0)
			set_row(r, ST_PULL, R_PASSED, pull, "%s", m);
		else
			set_row(r, ST_PULL, R_FAILED, -1, "no Pulled event for the pod");
	}
	{
		size_t len = 0;
		cleanup_free char *lpath = xasprintf("%s/log", pod_path);

		log = sk_client_get_raw(o->c, lpath, "container=canary", &len, &err);
		parse_log(r, log);
	}
	/* sandbox: the rest of the time from binding to the container's exit,
	 * neither pull nor the checks: volumes, sandbox, container start */
	{
		double run = r->rows[ST_RUN].secs > 0 ? r->rows[ST_RUN].secs : 0;
		double sb = t_end - (t_sched >= 0 ? t_sched : t) - (pull > 0 ? pull : 0) - run;

		set_row(r, ST_SANDBOX, R_PASSED, sb > 0 ? sb : 0, "sandbox, volumes and container started on %s",
			jstr(json_object_get(pod, "spec"), "nodeName"));
	}
	if (!gpu)
		set_row(r, ST_GPU, R_SKIPPED, -1, "node %s advertises no allocatable nvidia.com/gpu", nname);
	if (r->rows[ST_ARTIFACT].result == R_NOTRUN)
		set_row(r, ST_ARTIFACT, R_FAILED, -1, "no report from the container (exit code %d): %.200s", exit_code,
			log ? log : "no log");
	if (gpu && r->rows[ST_GPU].result == R_NOTRUN && r->failed < 0)
		set_row(r, ST_GPU, R_FAILED, -1, "no report from the container (exit code %d)", exit_code);
	if (exit_code != 0)
		set_row(r, ST_RUN, R_FAILED, r->rows[ST_RUN].secs, "container exited with code %d", exit_code);
	else if (r->rows[ST_RUN].result != R_PASSED)
		set_row(r, ST_RUN, R_FAILED, -1, "the container exited 0 without finishing its checks");
	else
		set_row(r, ST_RUN, R_PASSED, r->rows[ST_RUN].secs, "container of %s ran the checks and exited 0",
			o->image);

cleanup:
	/* termination (a clean one after a good run), then cleanup of the rest */
	if (pod_path) {
		double td = now_s();
		bool clean = r->failed < 0;

		if (delete_wait(o, pod_path, clean ? -1 : 0, clean ? o->timeout : 60, why, sizeof(why)) < 0)
			set_row(r, clean ? ST_TERMINATION : ST_CLEANUP, R_FAILED, -1, "%s", why);
		else if (clean)
			set_row(r, ST_TERMINATION, R_PASSED, now_s() - td, "pod deleted and gone");
	}
	{
		double tc = now_s();

		if (r->rows[ST_CLEANUP].result == R_NOTRUN) {
			if (pvc_path && delete_wait(o, pvc_path, -1, 60, why, sizeof(why)) < 0)
				set_row(r, ST_CLEANUP, R_FAILED, -1, "%s", why);
			else if (pv && *pv) {
				cleanup_free char *pvp = xasprintf("/api/v1/persistentvolumes/%s", pv);
				double end = now_s() + 60;

				while (!gone(o, pvp) && now_s() < end)
					nap();
				if (!gone(o, pvp))
					set_row(r, ST_CLEANUP, R_FAILED, -1, "persistentvolume %s still there", pv);
			}
			if (r->rows[ST_CLEANUP].result == R_NOTRUN)
				set_row(r, ST_CLEANUP, R_PASSED, now_s() - tc,
					name ? "pod, claim and volume deleted" : "nothing to delete");
		}
	}
	r->total = now_s() - t0;
}

static void print_table(struct node_report *reps, size_t n, FILE *f)
{
	size_t wn = 4, ws = 4, wr = 6, wd = 8;
	char d[32];

	for (size_t i = 0; i < n; i++)
		for (int s = 0; s < N_STEPS; s++) {
			fmt_duration(reps[i].rows[s].secs, d, sizeof(d));
			wn = strlen(reps[i].node) > wn ? strlen(reps[i].node) : wn;
			ws = strlen(step_names[s]) > ws ? strlen(step_names[s]) : ws;
			wr = strlen(result_names[reps[i].rows[s].result]) > wr
				     ? strlen(result_names[reps[i].rows[s].result])
				     : wr;
			wd = strlen(d) > wd ? strlen(d) : wd;
		}
	fprintf(f, "%-*s   %-*s   %-*s   %-*s   %s\n", (int)wn, "NODE", (int)ws, "STEP", (int)wr, "RESULT", (int)wd,
		"DURATION", "DETAIL");
	for (size_t i = 0; i < n; i++) {
		for (int s = 0; s < N_STEPS; s++) {
			fmt_duration(reps[i].rows[s].secs, d, sizeof(d));
			fprintf(f, "%-*s   %-*s   %-*s   %-*s   %s\n", (int)wn, reps[i].node, (int)ws, step_names[s],
				(int)wr, result_names[reps[i].rows[s].result], (int)wd, d,
				reps[i].rows[s].detail[0] ? reps[i].rows[s].detail : "<none>");
		}
		fmt_duration(reps[i].total, d, sizeof(d));
		fprintf(f, "%-*s   %-*s   %-*s   %-*s   %s\n", (int)wn, reps[i].node, (int)ws, "total", (int)wr,
			reps[i].failed < 0 ? "Passed" : "Failed", (int)wd, d,
			reps[i].failed < 0 ? "the node stack works" : step_names[reps[i].failed]);
	}
}

static json_t *report_json(struct node_report *reps, size_t n, const char *image)
{
	json_t *nodes = json_array();
	bool ok = true;

	for (size_t i = 0; i < n; i++) {
		json_t *steps = json_array();

		for (int s = 0; s < N_STEPS; s++) {
			struct step_row *row = &reps[i].rows[s];
			json_t *o = json_pack("{s:s, s:s, s:s}", "step", step_names[s], "result",
					      result_names[row->result], "detail", row->detail);

			json_object_set_new(o, "durationSeconds", row->secs >= 0 ? json_real(row->secs) : json_null());
			json_array_append_new(steps, o);
		}
		ok = ok && reps[i].failed < 0;
		json_array_append_new(
			nodes, json_pack("{s:s, s:b, s:o, s:f, s:o}", "node", reps[i].node, "passed",
					 reps[i].failed < 0, "failedStep",
					 reps[i].failed < 0 ? json_null() : json_string(step_names[reps[i].failed]),
					 "durationSeconds", reps[i].total, "steps", steps));
	}
	return json_pack("{s:s, s:b, s:o}", "image", image, "passed", ok, "nodes", nodes);
}

static void usage(FILE *f)
{
	fprintf(f, "Usage: skiff validate (--node NAME | --selector LABELSEL) [OPTIONS]\n\n"
		   "Runs the node-stack canary on a node, or on every node a label selector matches (one node\n"
		   "after another), as real pods through the API server: a cold pull of --image\n"
		   "(imagePullPolicy Always), a PersistentVolumeClaim of the default StorageClass mounted, an\n"
		   "artifact written to it and read back, a GPU allocated and checked (nvidia-smi -L or the\n"
		   "/dev/nvidiaN device) when the node has allocatable nvidia.com/gpu, a clean termination and\n"
		   "the cleanup of every object it made (also on failure and on Ctrl-C). Each step is timed.\n"
		   "Exits 1 naming the failing step (admission, scheduling, storage, sandbox, pull, run,\n"
		   "artifact, gpu, termination, cleanup) when anything fails.\n\n"
		   "Options:\n"
		   "  --node NAME             the node to validate\n"
		   "  -l, --selector SEL      validate every node this label selector matches\n"
		   "  --image REF             the image to pull cold; it needs sh, cat and head\n"
		   "                          (default docker.io/library/busybox:stable)\n"
		   "  -n, --namespace NS      where the pods and claims are made (default \"default\")\n"
		   "  --storage-class NAME    the claim's StorageClass (default: the cluster's default)\n"
		   "  --timeout DURATION      give up on a node after this long (default 5m; 90s, 2m30s …)\n"
		   "  -o, --output FORMAT     table (default) or json\n"
		   "  --kubeconfig FILE       default $KUBECONFIG, else DIR/kubeconfig of --data-dir\n"
		   "  --data-dir DIR          the server's data directory (default /var/lib/skiff)\n"
		   "  -h, --help              this help\n");
}

int sk_cmd_validate(int argc, char **argv)
{
	static const struct option opts[] = {
		{"node", required_argument, NULL, 'N'},
		{"selector", required_argument, NULL, 'l'},
		{"image", required_argument, NULL, 'i'},
		{"namespace", required_argument, NULL, 'n'},
		{"storage-class", required_argument, NULL, 's'},
		{"timeout", required_argument, NULL, 't'},
		{"output", required_argument, NULL, 'o'},
		{"kubeconfig", required_argument, NULL, 'k'},
		{"data-dir", required_argument, NULL, 'd'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct vopts o = {.ns = "default", .image = "docker.io/library/busybox:stable", .timeout = 300};
	const char *node = NULL, *selector = NULL, *output = "table", *kubeconfig = NULL, *dir = "/var/lib/skiff";
	cleanup_free char *kc = NULL;
	cleanup_json json_t *nodes = NULL, *out = NULL;
	struct node_report *reps = NULL;
	struct sigaction sa = {0};
	sk_error_t err = {0};
	size_t n = 0, i;
	int c, rc = 0;

	while ((c = getopt_long(argc, argv, "l:n:o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'N':
			node = optarg;
			break;
		case 'l':
			selector = optarg;
			break;
		case 'i':
			o.image = optarg;
			break;
		case 'n':
			o.ns = optarg;
			break;
		case 's':
			o.storage_class = optarg;
			break;
		case 't': {
			const char *end;

			o.timeout = parse_duration(optarg, &end);
			if (o.timeout <= 0 || *end)
				die("--timeout \"%s\": want a duration such as 90s or 5m", optarg);
			break;
		}
		case 'o':
			output = optarg;
			break;
		case 'k':
			kubeconfig = optarg;
			break;
		case 'd':
			dir = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc || !node == !selector) {
		if (optind >= argc)
			fprintf(stderr, "skiff validate: give exactly one of --node and --selector\n");
		usage(stderr);
		return 2;
	}
	if (strcmp(output, "table") && strcmp(output, "json"))
		die("--output \"%s\": want table or json", output);
	if (!kubeconfig && getenv("KUBECONFIG") && *getenv("KUBECONFIG")) {
		kc = xstrdup(getenv("KUBECONFIG"));
		kc[strcspn(kc, ":")] = '\0';
	} else
		kc = kubeconfig ? xstrdup(kubeconfig) : xasprintf("%s/kubeconfig", dir);
	if (!(o.c = sk_client_new_kubeconfig(kc, &err)))
		die("%s", err.msg);
	if (node) {
		cleanup_free char *path = xasprintf("/api/v1/nodes/%s", node);
		json_t *one = sk_client_get(o.c, path, &err);

		if (!one)
			die("%s", err.msg);
		nodes = json_pack("{s:[o]}", "items", one);
	} else {
		char *esc = curl_easy_escape(NULL, selector, 0);
		cleanup_free char *q = xasprintf("labelSelector=%s", esc ? esc : "");

		curl_free(esc);
		if (!(nodes = sk_client_list(o.c, "/api/v1/nodes", q, &err)))
			die("%s", err.msg);
		if (!json_array_size(json_object_get(nodes, "items")))
			die("no nodes match the selector \"%s\"", selector);
	}
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	srandom((unsigned)(sk_now_ns() ^ getpid()));
	n = json_array_size(json_object_get(nodes, "items"));
	reps = calloc(n, sizeof(*reps));
	if (!reps)
		die("out of memory");
	for (i = 0; i < n; i++) {
		if (interrupted) {
			n = i;
			break;
		}
		validate_node(&o, json_array_get(json_object_get(nodes, "items"), i), &reps[i]);
		if (reps[i].failed >= 0) {
			fprintf(stderr, "error: node %s failed step %s: %s\n", reps[i].node, step_names[reps[i].failed],
				reps[i].rows[reps[i].failed].detail);
			rc = 1;
		}
	}
	if (!strcmp(output, "json")) {
		char *s;

		out = report_json(reps, n, o.image);
		s = json_dumps(out, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		printf("%s\n", s);
		free(s);
	} else
		print_table(reps, n, stdout);
	for (i = 0; i < n; i++)
		free(reps[i].node);
	free(reps);
	sk_client_free(o.c);
	if (interrupted)
		return 128 + interrupted;
	return rc;
}
