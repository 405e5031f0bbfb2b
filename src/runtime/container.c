/* Container lifecycle through conmon and crun/runc. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>

#include "runtime/cgroup.h"
#include "runtime/container.h"
#include "runtime/runtime-int.h"
#include "util/util.h"

#define RUNTIME_TIMEOUT_MS 60000
#define SYNC_TIMEOUT_MS 60000

const char *sk_container_status_name(enum sk_container_status s)
{
	switch (s) {
	case SK_CONTAINER_CREATED:
		return "created";
	case SK_CONTAINER_RUNNING:
		return "running";
	case SK_CONTAINER_EXITED:
		return "exited";
	default:
		return "unknown";
	}
}

void sk_container_free(struct sk_container *c)
{
	if (!c)
		return;
	free(c->id), free(c->name), free(c->sandbox_id), free(c->pod_uid), free(c->pod_name);
	free(c->pod_namespace), free(c->handler), free(c->image_ref), free(c->image_id), free(c->log_path);
	free(c->pod_cgroup), free(c->cgroup_path), free(c->dir), free(c->reason), free(c->message);
	free(c);
}

static char *exit_file(const struct sk_runtime *rt, const char *id)
{
	return xasprintf("%s/exits/%s", rt->run_dir, id);
}

static json_t *container_json(const struct sk_container *c)
{
	json_t *j = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:I, s:s, s:s, s:s, s:i, s:s, s:I, s:I, s:I, s:i}", "id",
			      c->id, "name", c->name, "sandboxId", c->sandbox_id, "podUID", c->pod_uid, "podName",
			      c->pod_name, "podNamespace", c->pod_namespace, "attempt", (json_int_t)c->attempt,
			      "handler", c->handler, "logPath", c->log_path, "podCgroup", c->pod_cgroup, "pid", c->pid,
			      "status", sk_container_status_name(c->status), "createdNs", (json_int_t)c->created_ns,
			      "startedNs", (json_int_t)c->started_ns, "finishedNs", (json_int_t)c->finished_ns,
			      "exitCode", c->exit_code);

	if (c->image_ref)
		json_object_set_new(j, "imageRef", json_string(c->image_ref));
	if (c->image_id)
		json_object_set_new(j, "imageId", json_string(c->image_id));
	if (c->reason)
		json_object_set_new(j, "reason", json_string(c->reason));
	if (c->message)
		json_object_set_new(j, "message", json_string(c->message));
	return j;
}

static int save(const struct sk_container *c, sk_error_t *err)
{
	cleanup_json json_t *j = container_json(c);
	cleanup_free char *path = xasprintf("%s/container.json", c->dir);

	return sk__json_save(path, j, err);
}

static enum sk_container_status status_from_name(const char *s)
{
	if (!s)
		return SK_CONTAINER_UNKNOWN;
	if (!strcmp(s, "created"))
		return SK_CONTAINER_CREATED;
	if (!strcmp(s, "running"))
		return SK_CONTAINER_RUNNING;
	if (!strcmp(s, "exited"))
		return SK_CONTAINER_EXITED;
	return SK_CONTAINER_UNKNOWN;
}

static struct sk_container *from_json(const struct sk_runtime *rt, json_t *j)
{
	struct sk_container *c = xzalloc(sizeof(*c));

	c->id = sk__json_strdup(j, "id");
	c->name = sk__json_strdup(j, "name");
	c->sandbox_id = sk__json_strdup(j, "sandboxId");
	c->pod_uid = sk__json_strdup(j, "podUID");
	c->pod_name = sk__json_strdup(j, "podName");
	c->pod_namespace = sk__json_strdup(j, "podNamespace");
	c->handler = sk__json_strdup(j, "handler");
	c->log_path = sk__json_strdup(j, "logPath");
	c->pod_cgroup = sk__json_strdup(j, "podCgroup");
	c->image_ref = sk__json_strdup(j, "imageRef");
	c->image_id = sk__json_strdup(j, "imageId");
	c->reason = sk__json_strdup(j, "reason");
	c->message = sk__json_strdup(j, "message");
	c->attempt = (uint32_t)json_integer_value(json_object_get(j, "attempt"));
	c->pid = (int)json_integer_value(json_object_get(j, "pid"));
	c->status = status_from_name(json_string_value(json_object_get(j, "status")));
	c->created_ns = json_integer_value(json_object_get(j, "createdNs"));
	c->started_ns = json_integer_value(json_object_get(j, "startedNs"));
	c->finished_ns = json_integer_value(json_object_get(j, "finishedNs"));
	c->exit_code = (int)json_integer_value(json_object_get(j, "exitCode"));
	if (!c->id || !c->name || !c->sandbox_id || !c->pod_uid || !c->handler || !c->log_path || !c->pod_cgroup ||
	    !c->pod_name || !c->pod_namespace || !sk__valid_id(c->id)) {
		sk_container_free(c);
		return NULL;
	}
	c->cgroup_path = xasprintf("%s/%s", c->pod_cgroup, c->id);
	c->dir = xasprintf("%s/containers/%s", rt->run_dir, c->id);
	return c;
}

/* Subcommands that never look at cgroups skip the hybrid-cgroup wrapper
 * (it costs an unshare and two shells per call); create, exec and delete
 * need it. */
static bool cgroup_free(const char *subcommand)
{
	return !strcmp(subcommand, "start") || !strcmp(subcommand, "state") || !strcmp(subcommand, "kill");
}

/* Runs `<handler> --root=<root> <args...>`; output in res. */
static int run_runtime(const struct sk_runtime_handler *h, const char *const *args, int timeout_ms,
		       struct sk__proc_result *res, sk_error_t *err)
{
	cleanup_free char *root = xasprintf("--root=%s", h->root);
	char *argv[16];
	size_t n = 0;

	argv[n++] = cgroup_free(args[0]) ? h->binary : h->exec;
	argv[n++] = root;
	for (; *args && n < 15; args++)
		argv[n++] = (char *)*args;
	argv[n] = NULL;
	return sk__proc_run(argv, NULL, NULL, timeout_ms, res, err);
}

/* Like run_runtime, failing with the runtime's stderr on a non-zero exit. */
static int runtime_ok(const struct sk_runtime_handler *h, const char *id, const char *const *args, sk_error_t *err)
{
	struct sk__proc_result res;
	int rc = 0;

	if (run_runtime(h, args, RUNTIME_TIMEOUT_MS, &res, err) < 0)
		return sk_error_wrap(err, "container \"%s\"", id);
	if (res.timed_out || !WIFEXITED(res.status) || WEXITSTATUS(res.status) != 0) {
		char *nl = strchr(res.err, '\n');
		if (nl && nl[1] == '\0')
			*nl = '\0';
		rc = sk_error_set(err, SK_EINTERNAL, "container \"%s\": %s %s: %s", id, h->name, args[0],
				  res.timed_out ? "timed out" : res.err);
	}
	sk__proc_result_release(&res);
	return rc;
}

static struct sk_container *new_container(struct sk_runtime *rt, const struct sk_container_config *cfg,
					  const char *handler)
{
	struct sk_container *c = xzalloc(sizeof(*c));
	const struct sk_sandbox *sb = cfg->sandbox;

	c->id = xstrdup(cfg->id);
	c->name = xstrdup(cfg->name);
	c->sandbox_id = xstrdup(sb->id);
	c->pod_uid = xstrdup(sb->pod_uid);
	c->pod_name = xstrdup(sb->pod_name);
	c->pod_namespace = xstrdup(sb->pod_namespace);
	c->attempt = cfg->attempt;
	c->handler = xstrdup(handler);
	c->image_ref = cfg->image_ref ? xstrdup(cfg->image_ref) : NULL;
	c->image_id = cfg->image_id ? xstrdup(cfg->image_id) : NULL;
	c->log_path = xstrdup(cfg->log_path);
	c->pod_cgroup = sk_cgroup_pod_path(sb->qos, sb->pod_uid);
	c->cgroup_path = xasprintf("%s/%s", c->pod_cgroup, c->id);
	c->dir = xasprintf("%s/containers/%s", rt->run_dir, c->id);
	c->created_ns = sk_now_ns();
	c->status = SK_CONTAINER_CREATED;
	return c;
}

static int prepare_bundle(struct sk_container *c, const struct sk_container_config *cfg, sk_error_t *err)
{
	cleanup_json json_t *spec = sk_oci_spec(cfg, err);
	cleanup_free char *config = xasprintf("%s/config.json", c->dir);
	cleanup_free char *logdir = xstrdup(c->log_path);

	if (!spec)
		return -1;
	if (mkdir(c->dir, 0700) < 0)
		return sk_error_errno(err, errno, "container \"%s\": mkdir \"%s\"", c->id, c->dir);
	if (sk_mkdir_p(dirname(logdir), 0755) < 0)
		return sk_error_errno(err, errno, "container \"%s\": log dir for \"%s\"", c->id, c->log_path);
	if (sk__json_save(config, spec, err) < 0)
		return -1;
	return save(c, err);
}

/* argv for conmon; strings in *store are freed by the caller. */
static void conmon_argv(struct sk_runtime *rt, const struct sk_runtime_handler *h, const struct sk_container *c,
			const struct sk_container_config *cfg, char **argv, char **store)
{
	int64_t log_size_max = cfg->log_size_max;

	size_t n = 0, s = 0;

	store[s++] = xasprintf("%s/pidfile", c->dir);
	store[s++] = xasprintf("%s/conmon.pid", c->dir);
	store[s++] = xasprintf("k8s-file:%s", c->log_path);
	store[s++] = xasprintf("%s/exits", rt->run_dir);
	store[s++] = xasprintf("%s/sock", rt->run_dir);
	store[s++] = xasprintf("--root=%s", h->root);
	store[s++] = xasprintf("%lld", (long long)log_size_max);
	store[s] = NULL;
	argv[n++] = rt->conmon;
	argv[n++] = "--api-version";
	argv[n++] = "1";
	argv[n++] = "-c";
	argv[n++] = c->id;
	argv[n++] = "-u";
	argv[n++] = c->id;
	argv[n++] = "-n";
	argv[n++] = c->name;
	argv[n++] = "-r";
	argv[n++] = h->exec;
	argv[n++] = "-b";
	argv[n++] = c->dir;
	argv[n++] = "-p";
	argv[n++] = store[0];
	argv[n++] = "-P";
	argv[n++] = store[1];
	argv[n++] = "-l";
	argv[n++] = store[2];
	argv[n++] = "--exit-dir";
	argv[n++] = store[3];
	argv[n++] = "--persist-dir";
	argv[n++] = c->dir;
	argv[n++] = "--socket-dir-path";
	argv[n++] = store[4];
	argv[n++] = "--log-level";
	argv[n++] = "error";
	argv[n++] = "--runtime-arg";
	argv[n++] = store[5];
	if (log_size_max > 0) {
		argv[n++] = "--log-size-max";
		argv[n++] = store[6];
	}
	/* CRI-O's: conmon holds the terminal (it takes the master over its
	 * console socket) and a stdin pipe fed by attach clients; without
	 * stdinOnce the pipe stays open when a client leaves */
	if (cfg->tty)
		argv[n++] = "-t";
	if (cfg->stdin_open) {
		argv[n++] = "-i";
		if (!cfg->stdin_once)
			argv[n++] = "--leave-stdin-open";
	}
	argv[n] = NULL;
}

/* Reads conmon's {"data": pid, "message": ...} line from the sync pipe. */
static int read_sync(int fd, const char *id, int *pid, sk_error_t *err)
{
	char buf[4096];
	size_t len = 0;
	int64_t deadline = sk_mono_ns() + (int64_t)SYNC_TIMEOUT_MS * 1000000;
	cleanup_json json_t *j = NULL;
	const char *msg;

	while (len < sizeof(buf) - 1 && !memchr(buf, '\n', len)) {
		struct pollfd p = {fd, POLLIN, 0};
		int left = (int)((deadline - sk_mono_ns()) / 1000000);
		ssize_t n;

		if (left <= 0)
			return sk_error_set(err, SK_ETIMEOUT, "container \"%s\": conmon did not report", id);
		if (poll(&p, 1, left) < 0 && errno != EINTR)
			return sk_error_errno(err, errno, "container \"%s\": poll sync pipe", id);
		n = read(fd, buf + len, sizeof(buf) - 1 - len);
		if (n == 0)
			break;
		if (n > 0)
			len += (size_t)n;
	}
	buf[len] = '\0';
	j = json_loads(buf, JSON_DISABLE_EOF_CHECK, NULL);
	if (!j)
		return sk_error_set(err, SK_EINTERNAL, "container \"%s\": conmon exited without reporting", id);
	*pid = (int)json_integer_value(json_object_get(j, "data"));
	msg = json_string_value(json_object_get(j, "message"));
	if (*pid <= 0)
		return sk_error_set(err, SK_EINTERNAL, "container \"%s\": create failed: %s", id,
				    msg ? msg : "unknown error");
	return 0;
}

/* Adds the end of conmon's own log to err: it says why conmon gave up. */
static void append_conmon_log(const char *path, sk_error_t *err)
{
	cleanup_free char *log = sk_read_file(path, NULL);
	size_t len = log ? strlen(log) : 0;
	char *nl;

	while (len > 0 && log[len - 1] == '\n')
		log[--len] = '\0';
	if (!len)
		return;
	nl = strrchr(log, '\n');
	sk_error_wrap(err, "%s", nl ? nl + 1 : log);
	/* keep the original error first: "create failed: <conmon's last line>" reads better */
}

static int spawn_conmon(struct sk_runtime *rt, const struct sk_runtime_handler *h, struct sk_container *c,
			const struct sk_container_config *cfg, sk_error_t *err)
{
	char *argv[48], *store[8];
	char *envp[] = {"_OCI_SYNCPIPE=3", "_OCI_STARTPIPE=4",
			"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", NULL};
	cleanup_free char *logpath = xasprintf("%s/conmon.log", c->dir);
	cleanup_close int logfd = open(logpath, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
	int sync_p[2], start_p[2], status, rc, i;
	pid_t pid;

	conmon_argv(rt, h, c, cfg, argv, store);
	if (pipe2(sync_p, O_CLOEXEC) < 0 || pipe2(start_p, O_CLOEXEC) < 0) {
		rc = sk_error_errno(err, errno, "container \"%s\": pipe", c->id);
		goto out;
	}
	/* stdio to /dev/null, conmon's own stderr to <dir>/conmon.log, sync
	 * pipe on fd 3, start pipe on fd 4; started in <dir>, where conmon
	 * writes its "oom" file */
	{
		cleanup_close int devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
		int fds[5] = {devnull, devnull, logfd >= 0 ? logfd : devnull, sync_p[1], start_p[0]};

		rc = devnull < 0 ? sk_error_errno(err, errno, "container \"%s\": open /dev/null", c->id)
				 : sk__proc_spawn_in(&pid, argv, envp, fds, 5, true, c->dir, err);
	}
	close(sync_p[1]);
	close(start_p[0]);
	if (rc < 0) {
		close(sync_p[0]), close(start_p[1]);
		sk_error_wrap(err, "container \"%s\": conmon", c->id);
		goto out;
	}
	/* conmon waits for this before creating the container. */
	if (write(start_p[1], "0", 1) != 1)
		sk_warn("runtime", "container \"%s\": start pipe: %s", c->id, strerror(errno));
	close(start_p[1]);
	/* conmon forks a daemon and exits. */
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	rc = read_sync(sync_p[0], c->id, &c->pid, err);
	close(sync_p[0]);
	if (rc < 0)
		append_conmon_log(logpath, err);
out:
	for (i = 0; store[i]; i++)
		free(store[i]);
	return rc;
}

int sk_container_create(struct sk_runtime *rt, const struct sk_container_config *cfg, struct sk_container **out,
			sk_error_t *err)
{
	const struct sk_runtime_handler *h = sk_runtime_handler(rt, cfg->handler, err);
	struct sk_container *c;
	sk_error_t e2 = {0};
	int64_t t0;

	if (!h)
		return sk_error_wrap(err, "create container \"%s\"", cfg->id ? cfg->id : "");
	if (!cfg->log_path || !cfg->sandbox || !sk__valid_id(cfg->id))
		return sk_error_set(err, SK_EINVALID, "create container \"%s\": id, sandbox and log path are required",
				    cfg->id ? cfg->id : "");
	c = new_container(rt, cfg, h->name);
	if (sk__exists(c->dir)) {
		sk_container_free(c);
		return sk_error_set(err, SK_EEXISTS, "create container \"%s\": already exists", cfg->id);
	}
	t0 = sk_mono_ns();
	if (prepare_bundle(c, cfg, err) < 0)
		goto fail;
	sk_trace("container %s: bundle %.1f ms", c->id, (double)(sk_mono_ns() - t0) / 1e6);
	t0 = sk_mono_ns();
	if (spawn_conmon(rt, h, c, cfg, err) < 0)
		goto fail;
	sk_trace("container %s: conmon + %s create %.1f ms", c->id, h->name, (double)(sk_mono_ns() - t0) / 1e6);
	if (save(c, err) < 0)
		goto fail;
	*out = c;
	return 0;
fail:
	c->status = SK_CONTAINER_UNKNOWN; /* nothing to wait for */
	sk_container_remove(rt, c, &e2);
	sk_container_free(c);
	return -1;
}

int sk_container_start(struct sk_runtime *rt, struct sk_container *c, sk_error_t *err)
{
	const struct sk_runtime_handler *h = sk_runtime_handler(rt, c->handler, err);
	const char *args[] = {"start", c->id, NULL};
	int64_t now = sk_now_ns();

	if (!h || runtime_ok(h, c->id, args, err) < 0)
		return -1;
	c->started_ns = now;
	c->status = SK_CONTAINER_RUNNING;
	return save(c, err);
}

static int64_t file_mtime_ns(const char *path)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return sk_now_ns();
	return (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
}

static void set_exited(struct sk_container *c, const char *efile, int code)
{
	cleanup_free char *oom = xasprintf("%s/oom", c->dir);
	bool oom_killed = sk__exists(oom) || sk_cgroup_oom_killed(c->cgroup_path);

	c->status = SK_CONTAINER_EXITED;
	c->finished_ns = file_mtime_ns(efile);
	if (c->finished_ns < c->started_ns)
		c->finished_ns = c->started_ns;
	free(c->reason);
	if (oom_killed) {
		c->exit_code = 137;
		c->reason = xstrdup("OOMKilled");
	} else {
		c->exit_code = code;
		c->reason = xstrdup(code == 0 ? "Completed" : "Error");
	}
}

/* Queries `runtime state`: "created", "running", "stopped", "paused". */
static enum sk_container_status runtime_status(struct sk_runtime *rt, struct sk_container *c)
{
	const struct sk_runtime_handler *h = sk_runtime_handler(rt, c->handler, NULL);
	const char *args[] = {"state", c->id, NULL};
	struct sk__proc_result res;
	enum sk_container_status st = SK_CONTAINER_UNKNOWN;
	sk_error_t e = {0};

	if (!h || run_runtime(h, args, RUNTIME_TIMEOUT_MS, &res, &e) < 0)
		return st;
	if (WIFEXITED(res.status) && WEXITSTATUS(res.status) == 0) {
		cleanup_json json_t *j = json_loads(res.out, 0, NULL);
		const char *s = json_string_value(json_object_get(j, "status"));
		if (s && !strcmp(s, "created"))
			st = SK_CONTAINER_CREATED;
		else if (s && (!strcmp(s, "running") || !strcmp(s, "paused")))
			st = SK_CONTAINER_RUNNING;
		else if (s && !strcmp(s, "stopped"))
			st = SK_CONTAINER_EXITED;
	}
	sk__proc_result_release(&res);
	return st;
}

/* True when the conmon recorded in <dir>/conmon.pid still runs. */
static bool conmon_alive(const struct sk_container *c)
{
	cleanup_free char *pidfile = xasprintf("%s/conmon.pid", c->dir);
	cleanup_free char *pid = sk_read_file(pidfile, NULL);
	cleanup_free char *comm_path = NULL;
	cleanup_free char *comm = NULL;

	if (!pid || atoi(pid) <= 1)
		return false;
	comm_path = xasprintf("/proc/%d/comm", atoi(pid));
	comm = sk_read_file(comm_path, NULL);
	return comm && !strncmp(comm, "conmon", 6);
}

int sk_container_refresh(struct sk_runtime *rt, struct sk_container *c, sk_error_t *err)
{
	cleanup_free char *efile = exit_file(rt, c->id);
	cleanup_free char *code = NULL;
	enum sk_container_status st;

	if (c->status == SK_CONTAINER_EXITED)
		return 0;
	code = sk_read_file(efile, NULL);
	if (code && *code) {
		set_exited(c, efile, atoi(code));
		return save(c, err);
	}
	/* Fast path for the agent's frequent polls: a started container whose
	 * conmon is alive and has written no exit file is still running. */
	if (c->status == SK_CONTAINER_RUNNING && conmon_alive(c))
		return 0;
	st = runtime_status(rt, c);
	if (st == SK_CONTAINER_EXITED) {
		/* conmon writes the exit file right after the runtime notices; recheck once. */
		struct timespec ts = {0, 50 * 1000000};
		nanosleep(&ts, NULL);
		free(code);
		code = sk_read_file(efile, NULL);
		if (code && *code)
			set_exited(c, efile, atoi(code));
		else
			st = SK_CONTAINER_UNKNOWN;
	}
	if (st != SK_CONTAINER_EXITED)
		c->status = st;
	return save(c, err);
}

int sk_container_wait(struct sk_runtime *rt, struct sk_container *c, int timeout_ms, sk_error_t *err)
{
	cleanup_free char *efile = exit_file(rt, c->id);
	int64_t deadline = timeout_ms >= 0 ? sk_mono_ns() + (int64_t)timeout_ms * 1000000 : INT64_MAX;
	struct timespec ts = {0, 10 * 1000000};

	while (!sk__exists(efile) && c->status != SK_CONTAINER_EXITED) {
		if (sk_mono_ns() >= deadline)
			return sk_error_set(err, SK_ETIMEOUT, "container \"%s\": still running", c->id);
		nanosleep(&ts, NULL);
	}
	/* conmon writes the file non-atomically; a read racing it sees it empty. */
	for (int i = 0; i < 100; i++) {
		cleanup_free char *s = sk_read_file(efile, NULL);
		if (!s || *s)
			break;
		nanosleep(&ts, NULL);
	}
	return sk_container_refresh(rt, c, err);
}

static int kill_container(struct sk_runtime *rt, struct sk_container *c, int sig, sk_error_t *err)
{
	const struct sk_runtime_handler *h = sk_runtime_handler(rt, c->handler, err);
	cleanup_free char *signame = xasprintf("%d", sig);
	const char *args[] = {"kill", c->id, signame, NULL};

	if (!h)
		return -1;
	if (runtime_ok(h, c->id, args, err) < 0) {
		/* It may have exited between our check and the kill. */
		sk_error_t e = {0};
		if (sk_container_refresh(rt, c, &e) == 0 && c->status == SK_CONTAINER_EXITED)
			return 0;
		return -1;
	}
	return 0;
}

int sk_container_stop(struct sk_runtime *rt, struct sk_container *c, int sig, int grace_s, sk_error_t *err)
{
	sk_error_t e = {0};

	if (sk_container_refresh(rt, c, err) < 0)
		return -1;
	if (c->status == SK_CONTAINER_EXITED)
		return 0;
	if (c->status == SK_CONTAINER_UNKNOWN)
		return sk_error_set(err, SK_ENOTFOUND, "stop container \"%s\": the runtime does not know it", c->id);
	if (grace_s > 0) {
		if (kill_container(rt, c, sig ? sig : SIGTERM, err) < 0)
			return sk_error_wrap(err, "stop");
		if (sk_container_wait(rt, c, grace_s * 1000, &e) == 0)
			return 0;
	}
	if (c->status != SK_CONTAINER_EXITED && kill_container(rt, c, SIGKILL, err) < 0)
		return sk_error_wrap(err, "stop");
	if (sk_container_wait(rt, c, 30000, err) < 0)
		return sk_error_wrap(err, "stop");
	return 0;
}

/* True when some other container of pod_uid is still on disk. */
static bool pod_has_containers(struct sk_runtime *rt, const struct sk_container *c)
{
	cleanup_free char *dir = xasprintf("%s/containers", rt->run_dir);
	DIR *d = opendir(dir);
	struct dirent *de;
	bool found = false;

	while (d && !found && (de = readdir(d))) {
		cleanup_free char *path = NULL;
		cleanup_json json_t *j = NULL;

		if (de->d_name[0] == '.' || !strcmp(de->d_name, c->id))
			continue;
		path = xasprintf("%s/%s/container.json", dir, de->d_name);
		j = json_load_file(path, 0, NULL);
		found = j && !strcmp(json_string_value(json_object_get(j, "podUID")) ?: "", c->pod_uid);
	}
	if (d)
		closedir(d);
	return found;
}

int sk_container_remove(struct sk_runtime *rt, struct sk_container *c, sk_error_t *err)
{
	const struct sk_runtime_handler *h = sk_runtime_handler(rt, c->handler, err);
	const char *args[] = {"delete", "--force", c->id, NULL};
	cleanup_free char *efile = exit_file(rt, c->id);
	cleanup_free char *sock = xasprintf("%s/sock/%s", rt->run_dir, c->id);
	struct sk__proc_result res;
	sk_error_t e = {0};

	if (!h)
		return sk_error_wrap(err, "remove container \"%s\"", c->id);
	if (c->status != SK_CONTAINER_EXITED)
		sk_container_refresh(rt, c, &e);
	if (run_runtime(h, args, RUNTIME_TIMEOUT_MS, &res, err) < 0)
		return sk_error_wrap(err, "remove container \"%s\"", c->id);
	if (!WIFEXITED(res.status) || WEXITSTATUS(res.status) != 0)
		sk_debug("runtime", "container \"%s\": delete: %s", c->id, res.err);
	sk__proc_result_release(&res);
	/* A forced delete kills a live container; let conmon record the exit
	 * before the files go, so it does not write them afterwards. */
	if (c->status == SK_CONTAINER_RUNNING || c->status == SK_CONTAINER_CREATED)
		sk_container_wait(rt, c, 2000, &e);
	if (sk__rm_rf(c->dir) < 0)
		return sk_error_errno(err, errno, "remove container \"%s\": \"%s\"", c->id, c->dir);
	unlink(efile);
	unlink(sock);
	/* A container of the pod being created meanwhile keeps the pod cgroup
	 * busy: that is fine, the last removal (or the sandbox's) takes it. */
	if (!pod_has_containers(rt, c) && sk_cgroup_remove(c->pod_cgroup, &e) < 0)
		sk_warn("runtime", "remove container \"%s\": %s", c->id, e.msg);
	return 0;
}

int sk_container_load(struct sk_runtime *rt, const char *id, struct sk_container **out, sk_error_t *err)
{
	cleanup_free char *path = NULL;
	cleanup_json json_t *j = NULL;

	if (!sk__valid_id(id))
		return sk_error_set(err, SK_EINVALID, "container \"%s\": invalid id", id ? id : "");
	path = xasprintf("%s/containers/%s/container.json", rt->run_dir, id);
	if (!sk__exists(path))
		return sk_error_set(err, SK_ENOTFOUND, "container \"%s\": not found", id);
	j = json_load_file(path, 0, NULL);
	*out = j ? from_json(rt, j) : NULL;
	if (!*out)
		return sk_error_set(err, SK_EINTERNAL, "container \"%s\": bad container.json", id);
	if (sk_container_refresh(rt, *out, err) < 0) {
		sk_container_free(steal_ptr(out));
		return -1;
	}
	return 0;
}

int sk_container_list(struct sk_runtime *rt, struct sk_container ***out, size_t *n, sk_error_t *err)
{
	cleanup_free char *dir = xasprintf("%s/containers", rt->run_dir);
	DIR *d = opendir(dir);
	struct dirent *de;

	*out = NULL;
	*n = 0;
	if (!d)
		return errno == ENOENT ? 0 : sk_error_errno(err, errno, "list containers \"%s\"", dir);
	while ((de = readdir(d))) {
		struct sk_container *c = NULL;
		sk_error_t e = {0};

		if (de->d_name[0] == '.')
			continue;
		if (sk_container_load(rt, de->d_name, &c, &e) < 0) {
			sk_warn("runtime", "%s", e.msg);
			continue;
		}
		*out = xrealloc(*out, (*n + 1) * sizeof(**out));
		(*out)[(*n)++] = c;
	}
	closedir(d);
	return 0;
}

static int write_exec_process(const struct sk_container *c, const char *const *args, const char *path, sk_error_t *err)
{
	cleanup_free char *config = xasprintf("%s/config.json", c->dir);
	cleanup_json json_t *spec = json_load_file(config, 0, NULL);
	cleanup_json json_t *proc = NULL;

	if (!spec)
		return sk_error_set(err, SK_ENOTFOUND, "exec in container \"%s\": no config.json", c->id);
	proc = sk_oci_exec_process(spec, args);
	return sk__json_save(path, proc, err);
}

static void kill_pidfile(const char *path)
{
	cleanup_free char *s = sk_read_file(path, NULL);
	int pid = s ? atoi(s) : 0;

	if (pid > 1)
		kill(pid, SIGKILL);
}

int sk_container_exec_sync(struct sk_runtime *rt, struct sk_container *c, const char *const *args, int timeout_s,
			   struct sk_exec_result *res, sk_error_t *err)
{
	const struct sk_runtime_handler *h = sk_runtime_handler(rt, c->handler, err);
	static int seq;
	int n = __atomic_add_fetch(&seq, 1, __ATOMIC_RELAXED);
	cleanup_free char *proc_path = xasprintf("%s/exec-%d-%d.json", c->dir, getpid(), n);
	cleanup_free char *pid_path = xasprintf("%s/exec-%d-%d.pid", c->dir, getpid(), n);
	const char *rargs[] = {"exec", "--process", proc_path, "--pid-file", pid_path, c->id, NULL};
	struct sk__proc_result pr;
	int rc;

	memset(res, 0, sizeof(*res));
	if (!h || !args || !args[0])
		return sk_error_set(err, SK_EINVALID, "exec in container \"%s\": no command", c->id);
	if (write_exec_process(c, args, proc_path, err) < 0)
		return -1;
	rc = run_runtime(h, rargs, (timeout_s > 0 ? timeout_s : 60) * 1000, &pr, err);
	if (rc == 0) {
		if (pr.timed_out)
			kill_pidfile(pid_path);
		res->timed_out = pr.timed_out;
		res->exit_code = pr.timed_out ? 137 : sk__proc_exit_code(pr.status);
		res->out = steal_ptr(&pr.out);
		res->err = steal_ptr(&pr.err);
		sk__proc_result_release(&pr);
	}
	unlink(proc_path);
	unlink(pid_path);
	return rc < 0 ? sk_error_wrap(err, "exec in container \"%s\"", c->id) : 0;
}

int sk_container_exec_fds(struct sk_runtime *rt, struct sk_container *c, const char *const *args, int in_fd, int out_fd,
			  int err_fd, sk_error_t *err)
{
	const struct sk_runtime_handler *h = sk_runtime_handler(rt, c->handler, err);
	static int seq;
	int n = __atomic_add_fetch(&seq, 1, __ATOMIC_RELAXED);
	cleanup_free char *proc_path = xasprintf("%s/exec-%d-s%d.json", c->dir, getpid(), n);
	cleanup_free char *root = NULL;
	int status;
	pid_t pid;

	if (!h || !args || !args[0])
		return sk_error_set(err, SK_EINVALID, "exec in container \"%s\": no command", c->id);
	if (write_exec_process(c, args, proc_path, err) < 0)
		return -1;
	root = xasprintf("--root=%s", h->root);
	{
		char *argv[] = {h->exec, root, "exec", "--process", proc_path, c->id, NULL};
		int fds[3] = {in_fd, out_fd, err_fd};

		if (sk__proc_spawn(&pid, argv, NULL, fds, 3, false, err) < 0) {
			unlink(proc_path);
			return sk_error_wrap(err, "exec in container \"%s\"", c->id);
		}
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	unlink(proc_path);
	return sk__proc_exit_code(status);
}

/* The pty master the runtime sends over the console socket (SCM_RIGHTS). */
static int recv_master(int lfd, int timeout_ms)
{
	struct pollfd pf = {.fd = lfd, .events = POLLIN};
	char byte[256], cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = {byte, sizeof(byte)};
	struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf, .msg_controllen = sizeof(cbuf)};
	struct cmsghdr *cm;
	cleanup_close int cfd = -1;
	int fd = -1;

	if (poll(&pf, 1, timeout_ms) <= 0 || (cfd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC)) < 0)
		return -1;
	pf = (struct pollfd){.fd = cfd, .events = POLLIN};
	if (poll(&pf, 1, timeout_ms) <= 0 || recvmsg(cfd, &mh, MSG_CMSG_CLOEXEC) < 0)
		return -1;
	for (cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm))
		if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS &&
		    cm->cmsg_len >= CMSG_LEN(sizeof(int)))
			memcpy(&fd, CMSG_DATA(cm), sizeof(int));
	return fd;
}

static int console_socket(const char *path)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path))
		return -1;
	memcpy(sa.sun_path, path, strlen(path) + 1);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	unlink(path);
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(fd, 1) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

int sk_container_exec_start(struct sk_runtime *rt, struct sk_container *c, const char *const *args, bool tty, int in_fd,
			    int out_fd, int err_fd, struct sk_exec_proc *p, sk_error_t *err)
{
	const struct sk_runtime_handler *h = sk_runtime_handler(rt, c->handler, err);
	static int seq;
	int n = __atomic_add_fetch(&seq, 1, __ATOMIC_RELAXED);
	cleanup_free char *config = xasprintf("%s/config.json", c->dir);
	cleanup_free char *root = NULL, *sock = NULL, *sockarg = NULL;
	cleanup_json json_t *spec = NULL, *proc = NULL;
	cleanup_close int lfd = -1, nul = -1;

	memset(p, 0, sizeof(*p));
	p->master = -1;
	p->pid = -1;
	if (!h || !args || !args[0])
		return sk_error_set(err, SK_EINVALID, "exec in container \"%s\": no command", c->id);
	spec = json_load_file(config, 0, NULL);
	if (!spec)
		return sk_error_set(err, SK_ENOTFOUND, "exec in container \"%s\": no config.json", c->id);
	proc = sk_oci_exec_process(spec, args);
	if (tty) {
		json_object_set_new(proc, "terminal", json_true());
		sock = xasprintf("%s/exec-%d-t%d.sock", rt->run_dir, getpid(), n);
		sockarg = xasprintf("--console-socket=%s", sock);
		if ((lfd = console_socket(sock)) < 0)
			return sk_error_errno(err, errno, "exec in container \"%s\": console socket", c->id);
	}
	p->proc_path = xasprintf("%s/exec-%d-i%d.json", c->dir, getpid(), n);
	p->pid_path = xasprintf("%s/exec-%d-i%d.pid", c->dir, getpid(), n);
	if (sk__json_save(p->proc_path, proc, err) < 0) {
		sk_exec_proc_release(p);
		return -1;
	}
	root = xasprintf("--root=%s", h->root);
	{
		cleanup_free char *pidarg = xasprintf("--pid-file=%s", p->pid_path);
		char *argv[] = {h->exec, root, "exec", pidarg, "--process", p->proc_path, c->id, NULL, NULL};
		int fds[3] = {in_fd, out_fd, err_fd};

		if (tty) {
			argv[4] = sockarg;
			argv[5] = "--process";
			argv[6] = p->proc_path;
			argv[7] = c->id;
			nul = open("/dev/null", O_RDWR | O_CLOEXEC);
			fds[0] = fds[1] = fds[2] = nul;
		}
		/* a session of its own, killed whole by release */
		if (sk__proc_spawn(&p->pid, argv, NULL, fds, 3, true, err) < 0) {
			p->pid = -1;
			if (sock)
				unlink(sock);
			sk_exec_proc_release(p);
			return sk_error_wrap(err, "exec in container \"%s\"", c->id);
		}
	}
	if (tty) {
		p->master = recv_master(lfd, RUNTIME_TIMEOUT_MS / 6);
		unlink(sock);
		if (p->master < 0) {
			int code = sk_exec_proc_wait(p, false);

			sk_exec_proc_release(p);
			return sk_error_set(err, SK_EINTERNAL,
					    "exec in container \"%s\": no terminal from the runtime (exit %d)", c->id,
					    code);
		}
	}
	return 0;
}

int sk_exec_proc_wait(struct sk_exec_proc *p, bool nohang)
{
	int status;
	pid_t r;

	if (p->pid <= 0)
		return -1;
	while ((r = waitpid(p->pid, &status, nohang ? WNOHANG : 0)) < 0 && errno == EINTR)
		;
	if (r == 0)
		return -2;
	p->pid = -1;
	return r < 0 ? -1 : sk__proc_exit_code(status);
}

void sk_exec_proc_release(struct sk_exec_proc *p)
{
	if (p->master >= 0)
		close(p->master);
	p->master = -1;
	if (p->pid > 0 && sk_exec_proc_wait(p, true) == -2) {
		/* the command's process group first (the runtime starts it in
		 * a session of its own), then the runtime's */
		cleanup_free char *pid = p->pid_path ? sk_read_file(p->pid_path, NULL) : NULL;
		long cmd = pid ? strtol(pid, NULL, 10) : 0;

		if (cmd > 1) {
			pid_t pg = getpgid((pid_t)cmd);

			if (pg > 1)
				kill(-pg, SIGKILL);
			kill((pid_t)cmd, SIGKILL);
		}
		kill(-p->pid, SIGKILL);
		kill(p->pid, SIGKILL);
		sk_exec_proc_wait(p, false);
	}
	if (p->proc_path)
		unlink(p->proc_path);
	if (p->pid_path)
		unlink(p->pid_path);
	free(p->proc_path);
	free(p->pid_path);
	p->proc_path = p->pid_path = NULL;
}

int sk_container_attach(struct sk_runtime *rt, struct sk_container *c, sk_error_t *err)
{
	/* the bundle's "attach" through /proc/self/fd: the bundle's path may be
	 * longer than sun_path holds (conmon binds it the same way) */
	cleanup_close int dir = open(c->dir, O_PATH | O_CLOEXEC);
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int fd;

	(void)rt;
	if (dir < 0)
		return sk_error_errno(err, errno, "attach to container \"%s\"", c->id);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "/proc/self/fd/%d/attach", dir);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return sk_error_errno(err, errno, "attach to container \"%s\": socket", c->id);
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		int e = errno;

		close(fd);
		return sk_error_errno(err, e, "attach to container \"%s\"", c->id);
	}
	fcntl(fd, F_SETFL, O_NONBLOCK);
	return fd;
}

int sk_attach_packet(const uint8_t *pkt, size_t n, const uint8_t **data, size_t *len)
{
	if (!pkt || n < 1 || (pkt[0] != SK_ATTACH_STDOUT && pkt[0] != SK_ATTACH_STDERR))
		return -1;
	*data = pkt + 1;
	*len = n - 1;
	return pkt[0];
}

int sk_container_resize(struct sk_runtime *rt, struct sk_container *c, unsigned width, unsigned height, sk_error_t *err)
{
	cleanup_free char *ctl = xasprintf("%s/ctl", c->dir);
	cleanup_close int fd = open(ctl, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
	char msg[64];
	int n;

	(void)rt;
	if (width > 1000 || height > 1000) /* what conmon accepts */
		return sk_error_set(err, SK_EINVALID, "container \"%s\": window size %ux%u", c->id, width, height);
	n = snprintf(msg, sizeof(msg), "1 %u %u\n", height, width);
	if (fd < 0)
		return sk_error_errno(err, errno, "container \"%s\": open conmon control fifo", c->id);
	if (write(fd, msg, (size_t)n) != n)
		return sk_error_errno(err, errno, "container \"%s\": resize", c->id);
	return 0;
}

void sk_exec_result_release(struct sk_exec_result *res)
{
	free(res->out);
	free(res->err);
	res->out = res->err = NULL;
}

int sk_container_reopen_log(struct sk_runtime *rt, struct sk_container *c, sk_error_t *err)
{
	cleanup_free char *ctl = xasprintf("%s/ctl", c->dir);
	cleanup_close int fd = open(ctl, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
	static const char msg[] = "2 0 0\n";

	if (fd < 0)
		return sk_error_errno(err, errno, "container \"%s\": open conmon control fifo", c->id);
	if (write(fd, msg, sizeof(msg) - 1) != (ssize_t)(sizeof(msg) - 1))
		return sk_error_errno(err, errno, "container \"%s\": reopen log", c->id);
	return 0;
}
