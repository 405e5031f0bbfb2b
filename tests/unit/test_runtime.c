/* Runtime layer end to end: sandboxes, containers under conmon with crun and
 * runc, pod networking, OOM, stop, re-adoption, cleanup. Needs root and the
 * real binaries (conmon, crun, runc, CNI plugins, busybox-static); skipped
 * otherwise. Uses its own bridge (sktest0) and pod CIDR. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "runtime/cgroup.h"
#include "runtime/container.h"
#include "runtime/crilog.h"
#include "runtime/runtime.h"
#include "runtime/sandbox.h"
#include "util/error.h"
#include "util/util.h"

#define POD_CIDR "10.88.77.0/24"
#define BRIDGE "sktest0"

struct env {
	struct sk_runtime rt;
	char run_dir[64];
	char data_dir[64];
	char rootfs[64];
	char logs[64];
	int seq;
};

static struct env *E;

static bool have_tools(void)
{
	return geteuid() == 0 && access("/usr/bin/conmon", X_OK) == 0 && access("/bin/busybox", X_OK) == 0 &&
	       access("/usr/lib/cni/bridge", X_OK) == 0;
}

static int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int sh(const char *fmt, ...)
{
	va_list ap;
	char cmd[2048];

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return system(cmd);
}

static int setup(void **state)
{
	struct sk_runtime_opts opts = {0};
	sk_error_t err = {0};

	if (!have_tools())
		return 0;
	E = xzalloc(sizeof(*E));
	snprintf(E->run_dir, sizeof(E->run_dir), "/run/sktest-XXXXXX");
	snprintf(E->data_dir, sizeof(E->data_dir), "/tmp/sktest-data-XXXXXX");
	snprintf(E->rootfs, sizeof(E->rootfs), "/tmp/sktest-rootfs-XXXXXX");
	if (!mkdtemp(E->run_dir) || !mkdtemp(E->data_dir) || !mkdtemp(E->rootfs))
		return -1;
	snprintf(E->logs, sizeof(E->logs), "%s/logs", E->data_dir);
	if (sh("mkdir -p %s/bin %s/tmp && cp /bin/busybox %s/bin/ && chroot %s /bin/busybox --install -s /bin",
	       E->rootfs, E->rootfs, E->rootfs, E->rootfs) != 0)
		return -1;
	opts.run_dir = E->run_dir;
	opts.data_dir = E->data_dir;
	opts.pod_cidr = POD_CIDR;
	opts.bridge = BRIDGE;
	if (sk_runtime_init(&E->rt, &opts, &err) < 0) {
		fprintf(stderr, "runtime init: %s\n", err.msg);
		return -1;
	}
	return 0;
}

/* Removes whatever a failed test left behind, through the API first. */
static void remove_leftovers(void)
{
	struct sk_container **cs = NULL;
	struct sk_sandbox **sbs = NULL;
	size_t n = 0, i;
	sk_error_t err = {0};

	sk_container_list(&E->rt, &cs, &n, &err);
	for (i = 0; i < n; i++) {
		fprintf(stderr, "leftover container %s\n", cs[i]->id);
		sk_container_stop(&E->rt, cs[i], SIGKILL, 0, &err);
		sk_container_remove(&E->rt, cs[i], &err);
		sk_container_free(cs[i]);
	}
	free(cs);
	sk_sandbox_list(&E->rt, &sbs, &n, &err);
	for (i = 0; i < n; i++) {
		fprintf(stderr, "leftover sandbox %s\n", sbs[i]->id);
		sk_sandbox_remove(&E->rt, sbs[i]->id, &err);
		sk_sandbox_free(sbs[i]);
	}
	free(sbs);
}

static int teardown(void **state)
{
	if (!E)
		return 0;
	remove_leftovers();
	sk_runtime_release(&E->rt);
	sh("grep -o '%s[^ ]*' /proc/self/mountinfo | sort -r | xargs -r -n1 umount -l; rm -rf %s %s %s", E->run_dir, E->run_dir, E->data_dir, E->rootfs);
	free(E);
	E = NULL;
	return 0;
}

#define REQUIRE_ENV() do { if (!E) { skip(); } } while (0)

static struct sk_sandbox *new_sandbox(const char *name)
{
	struct sk_sandbox_config cfg = {0};
	struct sk_sandbox *sb = NULL;
	sk_error_t err = {0};
	char id[64], uid[64];

	snprintf(id, sizeof(id), "sb-%s-%d", name, ++E->seq);
	snprintf(uid, sizeof(uid), "uid-%s-%d", name, E->seq);
	cfg.id = id;
	cfg.pod_name = name;
	cfg.pod_namespace = "default";
	cfg.pod_uid = uid;
	cfg.qos = SK_QOS_BESTEFFORT;
	if (sk_sandbox_create(&E->rt, &cfg, &sb, &err) < 0)
		fail_msg("sandbox: %s", err.msg);
	return sb;
}

static void remove_sandbox(struct sk_sandbox *sb)
{
	sk_error_t err = {0};

	if (sk_sandbox_remove(&E->rt, sb->id, &err) < 0)
		fail_msg("remove sandbox: %s", err.msg);
	sk_sandbox_free(sb);
}

/* Creates (and starts) a container running args in sb. */
static struct sk_container *run(struct sk_sandbox *sb, const char *handler, const char *const *args,
				int64_t memory_limit)
{
	struct sk_container_config cfg = {0};
	struct sk_container *c = NULL;
	sk_error_t err = {0};
	char id[64], log[160], name[32];

	snprintf(id, sizeof(id), "ctr-%d", ++E->seq);
	snprintf(name, sizeof(name), "c%d", E->seq);
	snprintf(log, sizeof(log), "%s/%s/%s/0.log", E->logs, sb->id, name);
	cfg.id = id;
	cfg.name = name;
	cfg.sandbox = sb;
	cfg.rootfs = E->rootfs;
	cfg.args = args;
	cfg.handler = handler;
	cfg.log_path = log;
	cfg.memory_limit = memory_limit;
	cfg.image_ref = "busybox:test";
	if (sk_container_create(&E->rt, &cfg, &c, &err) < 0)
		fail_msg("create %s: %s", handler, err.msg);
	assert_int_equal(c->status, SK_CONTAINER_CREATED);
	if (sk_container_start(&E->rt, c, &err) < 0)
		fail_msg("start %s: %s", handler, err.msg);
	return c;
}

static void wait_exit(struct sk_container *c, int timeout_ms)
{
	sk_error_t err = {0};

	if (sk_container_wait(&E->rt, c, timeout_ms, &err) < 0)
		fail_msg("wait: %s", err.msg);
	assert_int_equal(c->status, SK_CONTAINER_EXITED);
}

static void remove_container(struct sk_container *c)
{
	sk_error_t err = {0};

	if (sk_container_remove(&E->rt, c, &err) < 0)
		fail_msg("remove container: %s", err.msg);
	sk_container_free(c);
}

static void hello_and_exit_code(const char *handler)
{
	static const char *const hello[] = {"sh", "-c", "echo hello; echo oops >&2", NULL};
	static const char *const three[] = {"sh", "-c", "exit 3", NULL};
	struct sk_sandbox *sb = new_sandbox("hello");
	struct sk_container *c = run(sb, handler, hello, 0);
	cleanup_free char *log = NULL;

	wait_exit(c, 20000);
	assert_int_equal(c->exit_code, 0);
	assert_string_equal(c->reason, "Completed");
	assert_true(c->finished_ns >= c->started_ns && c->started_ns > 0);
	log = sk_read_file(c->log_path, NULL);
	assert_non_null(log);
	assert_non_null(strstr(log, " stdout F hello\n"));
	assert_non_null(strstr(log, " stderr F oops\n"));
	remove_container(c);

	c = run(sb, handler, three, 0);
	wait_exit(c, 20000);
	assert_int_equal(c->exit_code, 3);
	assert_string_equal(c->reason, "Error");
	remove_container(c);
	remove_sandbox(sb);
}

static void test_hello_crun(void **state) { REQUIRE_ENV(); hello_and_exit_code("crun"); }
static void test_hello_runc(void **state) { REQUIRE_ENV(); hello_and_exit_code("runc"); }

static void oom(const char *handler)
{
	/* tail buffers an endless line: it grows until the memory limit kills it. */
	static const char *const hog[] = {"tail", "/dev/zero", NULL};
	struct sk_sandbox *sb = new_sandbox("oom");
	struct sk_container *c = run(sb, handler, hog, 32 << 20);

	wait_exit(c, 60000);
	{
		cleanup_free char *oomf = xasprintf("%s/oom", c->dir);
		printf("oom (%s, cgroups %s): conmon oom file %s, cgroup oom_kill counter %s\n", handler,
		       sk_cgroup_mode_name(E->rt.cgroup_mode), access(oomf, F_OK) == 0 ? "present" : "absent",
		       sk_cgroup_oom_killed(c->cgroup_path) ? "set" : "unset");
	}
	assert_string_equal(c->reason, "OOMKilled");
	assert_int_equal(c->exit_code, 137);
	remove_container(c);
	remove_sandbox(sb);
}

static void test_oom_crun(void **state) { REQUIRE_ENV(); oom("crun"); }
static void test_oom_runc(void **state) { REQUIRE_ENV(); oom("runc"); }

static void test_pod_network(void **state)
{
	/* nc's stdin must not end: busybox nc shuts its side of the connection
	 * at stdin EOF, and a client that sees that before it has read its own
	 * stdin exits without sending (lost under load) */
	static const char *const server[] = {
		"sh", "-c", "mkfifo /tmp/in && exec 3<>/tmp/in && nc -l -p 8080 <&3 > /tmp/got && cat /tmp/got", NULL};
	struct sk_sandbox *a, *b;
	struct sk_container *srv, *cli;
	char script[256];
	const char *client[] = {"sh", "-c", script, NULL};
	cleanup_free char *log = NULL;
	sk_error_t err = {0};

	REQUIRE_ENV();
	a = new_sandbox("server");
	b = new_sandbox("client");
	assert_non_null(a->ip);
	assert_non_null(b->ip);
	assert_string_not_equal(a->ip, b->ip);
	if (sk_sandbox_check(&E->rt, a, &err) < 0)
		fail_msg("check: %s", err.msg);
	srv = run(a, NULL, server, 0);
	snprintf(script, sizeof(script),
		 "hostname; for i in $(seq 50); do echo ping-from-$(hostname -i) | nc %s 8080 && exit 0; sleep 0.1; done; exit 1", a->ip);
	cli = run(b, "runc", client, 0);
	wait_exit(cli, 30000);
	log = sk_read_file(cli->log_path, NULL);
	assert_int_equal(cli->exit_code, 0);
	assert_non_null(strstr(log, "stdout F client\n"));   /* hostname from the UTS namespace */
	wait_exit(srv, 10000);
	free(log);
	log = sk_read_file(srv->log_path, NULL);
	{
		char want[96];
		snprintf(want, sizeof(want), "stdout F ping-from-%s\n", b->ip);
		assert_non_null(strstr(log, want));
	}
	remove_container(srv);
	remove_container(cli);
	remove_sandbox(a);
	remove_sandbox(b);
}

/* The agent restarts: it forgets everything in memory, lists what is on
 * disk, and still controls the containers conmon kept running. */
static void test_readopt_after_restart(void **state)
{
	static const char *const sleeper[] = {"sh", "-c", "trap 'exit 143' TERM; sleep 1000 & wait", NULL};
	static const char *const exec_args[] = {"sh", "-c", "echo in-$(hostname); exit 7", NULL};
	struct sk_sandbox *sb, **sbs = NULL;
	struct sk_container *c, **cs = NULL, *found = NULL;
	struct sk_exec_result xr;
	char sb_id[64], c_id[64];
	size_t n = 0, i;
	sk_error_t err = {0};

	REQUIRE_ENV();
	sb = new_sandbox("readopt");
	c = run(sb, NULL, sleeper, 0);
	snprintf(sb_id, sizeof(sb_id), "%s", sb->id);
	snprintf(c_id, sizeof(c_id), "%s", c->id);
	sk_container_free(c);
	sk_sandbox_free(sb);

	/* "restart": a fresh runtime context over the same directories */
	sk_runtime_release(&E->rt);
	{
		struct sk_runtime_opts opts = {.run_dir = E->run_dir, .data_dir = E->data_dir, .pod_cidr = POD_CIDR,
					       .bridge = BRIDGE};
		assert_int_equal(sk_runtime_init(&E->rt, &opts, &err), 0);
	}
	assert_int_equal(sk_sandbox_list(&E->rt, &sbs, &n, &err), 0);
	sb = NULL;
	for (i = 0; i < n; i++) {
		if (!strcmp(sbs[i]->id, sb_id))
			sb = sbs[i];
		else
			sk_sandbox_free(sbs[i]);
	}
	free(sbs);
	assert_non_null(sb);
	assert_non_null(sb->ip);
	assert_int_equal(sk_container_list(&E->rt, &cs, &n, &err), 0);
	for (i = 0; i < n; i++) {
		if (!strcmp(cs[i]->id, c_id))
			found = cs[i];
		else
			sk_container_free(cs[i]);
	}
	free(cs);
	assert_non_null(found);
	assert_int_equal(found->status, SK_CONTAINER_RUNNING);
	assert_string_equal(found->image_ref, "busybox:test");

	assert_int_equal(sk_container_exec_sync(&E->rt, found, exec_args, 10, &xr, &err), 0);
	assert_int_equal(xr.exit_code, 7);
	assert_string_equal(xr.out, "in-readopt\n");
	sk_exec_result_release(&xr);

	{
		/* streaming exec: stdin in, stdout and stderr out through caller fds */
		static const char *const cat[] = {"sh", "-c", "read x; echo got-$x; echo err >&2; exit 4", NULL};
		int in[2], outp[2];
		char buf[64] = {0};

		assert_int_equal(pipe(in), 0);
		assert_int_equal(pipe(outp), 0);
		assert_int_equal(write(in[1], "abc\n", 4), 4);
		close(in[1]);
		assert_int_equal(sk_container_exec_fds(&E->rt, found, cat, in[0], outp[1], outp[1], &err), 4);
		close(in[0]);
		close(outp[1]);
		assert_true(read(outp[0], buf, sizeof(buf) - 1) > 0);
		close(outp[0]);
		assert_non_null(strstr(buf, "got-abc\n"));
	}
	{
		static const char *const slow[] = {"sleep", "30", NULL};
		int64_t t0 = sk_mono_ns();
		assert_int_equal(sk_container_exec_sync(&E->rt, found, slow, 1, &xr, &err), 0);
		assert_true(xr.timed_out);
		assert_int_equal(xr.exit_code, 137);
		assert_true(sk_mono_ns() - t0 < 10LL * 1000000000);
		sk_exec_result_release(&xr);
	}

	assert_int_equal(sk_container_stop(&E->rt, found, 0, 10, &err), 0);
	assert_int_equal(found->status, SK_CONTAINER_EXITED);
	assert_int_equal(found->exit_code, 128 + SIGTERM);
	remove_container(found);
	remove_sandbox(sb);
}

static void stop_grace(const char *handler)
{
	static const char *const polite[] = {"sh", "-c", "trap 'echo bye; exit 0' TERM; while true; do sleep 0.1; done", NULL};
	static const char *const stubborn[] = {"sh", "-c", "trap '' TERM; echo ready; while true; do sleep 0.1; done", NULL};
	struct sk_sandbox *sb = new_sandbox("stop");
	struct sk_container *c = run(sb, handler, polite, 0);
	sk_error_t err = {0};
	int64_t t0;
	struct timespec ts = {0, 300 * 1000000};

	nanosleep(&ts, NULL);   /* let the shell install its trap */
	assert_int_equal(sk_container_stop(&E->rt, c, 0, 10, &err), 0);
	assert_int_equal(c->exit_code, 0);
	remove_container(c);

	c = run(sb, handler, stubborn, 0);
	nanosleep(&ts, NULL);
	t0 = sk_mono_ns();
	assert_int_equal(sk_container_stop(&E->rt, c, 0, 1, &err), 0);
	assert_true(sk_mono_ns() - t0 >= 900LL * 1000000);
	assert_int_equal(c->exit_code, 137);
	assert_string_equal(c->reason, "Error");
	remove_container(c);
	remove_sandbox(sb);
}

static void test_stop_crun(void **state) { REQUIRE_ENV(); stop_grace("crun"); }
static void test_stop_runc(void **state) { REQUIRE_ENV(); stop_grace("runc"); }

static void test_remove_idempotent(void **state)
{
	struct sk_sandbox *sb;
	sk_error_t err = {0};

	REQUIRE_ENV();
	sb = new_sandbox("twice");
	{
		/* created, never started, removed: conmon's exit file must not linger */
		static const char *const t[] = {"true", NULL};
		struct sk_container_config cfg = {.id = "ctr-unstarted", .name = "u", .sandbox = sb, .rootfs = E->rootfs,
						  .args = t, .log_path = "/tmp/sktest-unstarted.log"};
		struct sk_container *c = NULL;
		char efile[160];

		assert_int_equal(sk_container_create(&E->rt, &cfg, &c, &err), 0);
		assert_int_equal(sk_container_remove(&E->rt, c, &err), 0);
		assert_int_equal(sk_container_remove(&E->rt, c, &err), 0);
		snprintf(efile, sizeof(efile), "%s/exits/%s", E->run_dir, c->id);
		usleep(200000);
		assert_int_not_equal(access(efile, F_OK), 0);
		sk_container_free(c);
		unlink(cfg.log_path);
	}
	assert_int_equal(sk_sandbox_remove(&E->rt, sb->id, &err), 0);
	assert_int_equal(sk_sandbox_remove(&E->rt, sb->id, &err), 0);
	assert_int_equal(sk_sandbox_remove(&E->rt, "never-existed", &err), 0);
	sk_sandbox_free(sb);
}

struct log_sink {
	char buf[8192];
	size_t len;
};

static int log_collect(void *arg, const char *data, size_t len)
{
	struct log_sink *s = arg;

	if (s->len + len < sizeof(s->buf)) {
		memcpy(s->buf + s->len, data, len);
		s->len += len;
		s->buf[s->len] = '\0';
	}
	return 0;
}

/* The agent rotates the log by size and conmon reopens it: lines keep
 * arriving in the new file and the rotated one holds the earlier ones. */
static void test_log_rotation_reopen(void **state)
{
	static const char *const ticker[] = {"sh", "-c", "i=0; while true; do i=$((i+1)); echo line-$i; sleep 0.05; done", NULL};
	struct sk_sandbox *sb;
	struct sk_container *c;
	struct sk_crilog_opts o = {.tail_lines = -1};
	struct log_sink s = {0};
	struct timespec ts = {0, 400 * 1000000};
	sk_error_t err = {0};
	char cmd[512];

	REQUIRE_ENV();
	sb = new_sandbox("logs");
	c = run(sb, NULL, ticker, 0);
	nanosleep(&ts, NULL);
	assert_int_equal(sk_crilog_rotate(c->log_path, 3, &err), 0);
	assert_int_equal(sk_container_reopen_log(&E->rt, c, &err), 0);
	nanosleep(&ts, NULL);
	assert_int_equal(sk_crilog_read(c->log_path, &o, log_collect, &s, NULL, &err), 0);
	assert_non_null(strstr(s.buf, "line-"));
	assert_null(strstr(s.buf, "line-1\n"));   /* the first lines went to the rotated file */
	snprintf(cmd, sizeof(cmd), "grep -q 'stdout F line-1$' %s.*", c->log_path);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(sk_container_stop(&E->rt, c, SIGKILL, 0, &err), 0);
	assert_int_equal(c->exit_code, 137);
	remove_container(c);
	remove_sandbox(sb);
}

static void test_host_network(void **state)
{
	static const char *const show[] = {"sh", "-c", "cat /etc/hostname; ls /sys/class/net | grep -c . ", NULL};
	struct sk_sandbox_config cfg = {.id = "sb-hostnet", .pod_name = "hostnet", .pod_namespace = "kube-system",
					.pod_uid = "uid-hostnet", .qos = SK_QOS_GUARANTEED, .host_network = true};
	struct sk_sandbox *sb = NULL;
	struct sk_container *c;
	sk_error_t err = {0};

	REQUIRE_ENV();
	assert_int_equal(sk_sandbox_create(&E->rt, &cfg, &sb, &err), 0);
	assert_null(sb->ip);
	assert_null(sb->netns_path);
	c = run(sb, "runc", show, 0);
	wait_exit(c, 20000);
	assert_int_equal(c->exit_code, 0);
	remove_container(c);
	remove_sandbox(sb);
}

static void test_sandbox_files(void **state)
{
	static const char *const servers[] = {"10.96.0.10", NULL};
	static const char *const searches[] = {"default.svc.cluster.local", "svc.cluster.local", NULL};
	static const char *const options[] = {"ndots:5", NULL};
	static const char *const aliases[] = {"10.1.2.3\tfoo.local\tbar", NULL};
	struct sk_sandbox_config cfg = {.id = "sb-files", .pod_name = "files", .pod_namespace = "default",
					.pod_uid = "uid-files", .hostname = "files-host", .dns_servers = servers,
					.dns_searches = searches, .dns_options = options, .host_aliases = aliases,
					.host_domain = "sub.default.svc.cluster.local", .dns_given = true};
	struct sk_sandbox *sb = NULL;
	sk_error_t err = {0};
	cleanup_free char *resolv = NULL, *hosts = NULL, *hostname = NULL;
	char line[128];

	REQUIRE_ENV();
	assert_int_equal(sk_sandbox_create(&E->rt, &cfg, &sb, &err), 0);
	resolv = sk_read_file(sb->resolv_path, NULL);
	hosts = sk_read_file(sb->hosts_path, NULL);
	hostname = sk_read_file(sb->hostname_path, NULL);
	/* containerd's order: search, nameserver, options */
	assert_string_equal(resolv, "search default.svc.cluster.local svc.cluster.local\nnameserver 10.96.0.10\noptions ndots:5\n");
	/* kubelet's managed hosts file: the FQDN of a pod with a subdomain first */
	snprintf(line, sizeof(line), "\n%s\tfiles-host.sub.default.svc.cluster.local\tfiles-host\n", sb->ip);
	assert_non_null(strstr(hosts, line));
	assert_non_null(strstr(hosts, "\n\n# Entries added by HostAliases.\n10.1.2.3\tfoo.local\tbar\n"));
	assert_non_null(strstr(hosts, "127.0.0.1\tlocalhost\n"));
	assert_string_equal(hostname, "files-host\n");
	remove_sandbox(sb);
}

/* Pod-level limits on the pod cgroup, as kubelet sets them; a container
 * without its own limit is OOM-killed by the pod's. */
static void test_pod_resources(void **state)
{
	static const char *const hog[] = {"tail", "/dev/zero", NULL};
	struct sk_cgroup_pod_resources res = {.cpu_shares = 512, .cpu_quota = 50000, .memory_limit = 32 << 20};
	struct sk_sandbox *sb;
	struct sk_container *c;
	sk_error_t err = {0};
	char path[256];
	cleanup_free char *shares = NULL, *limit = NULL;

	REQUIRE_ENV();
	if (E->rt.cgroup_mode == SK_CGROUP_V2)
		skip();   /* the file checks below are v1 ones */
	sb = new_sandbox("podres");
	assert_int_equal(sk_cgroup_pod_set_resources(sb->cgroup_parent, &res, &err), 0);
	snprintf(path, sizeof(path), "/sys/fs/cgroup/cpu%s/cpu.shares", sb->cgroup_parent);
	shares = sk_read_file(path, NULL);
	assert_non_null(shares);
	assert_string_equal(shares, "512\n");
	snprintf(path, sizeof(path), "/sys/fs/cgroup/memory%s/memory.limit_in_bytes", sb->cgroup_parent);
	limit = sk_read_file(path, NULL);
	assert_non_null(limit);
	assert_string_equal(limit, "33554432\n");
	c = run(sb, NULL, hog, 0);
	wait_exit(c, 60000);
	assert_string_equal(c->reason, "OOMKilled");
	assert_int_equal(c->exit_code, 137);
	remove_container(c);
	remove_sandbox(sb);
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

/* Not an assertion: prints sandbox + /bin/true-to-exit latency per runtime. */
static void bench(const char *handler)
{
	static const char *const t[] = {"true", NULL};
	int64_t ms[10];
	int i;

	for (i = 0; i < 10; i++) {
		int64_t t0 = sk_mono_ns();
		struct sk_sandbox *sb = new_sandbox("bench");
		struct sk_container *c = run(sb, handler, t, 0);
		wait_exit(c, 20000);
		ms[i] = (sk_mono_ns() - t0) / 1000;
		remove_container(c);
		remove_sandbox(sb);
	}
	qsort(ms, 10, sizeof(ms[0]), cmp_i64);
	printf("bench: %s sandbox + /bin/true to exit: median %.1f ms (min %.1f, max %.1f)\n", handler,
	       (ms[4] + ms[5]) / 2000.0, ms[0] / 1000.0, ms[9] / 1000.0);
}

static void test_bench(void **state)
{
	REQUIRE_ENV();
	bench("crun");
	bench("runc");
}

/* Runs last: nothing of ours may be left on the host. */
static void test_cleanup(void **state)
{
	cleanup_free char *mounts = NULL;
	char cmd[256];

	REQUIRE_ENV();
	mounts = sk_read_file("/proc/self/mountinfo", NULL);
	assert_non_null(mounts);
	assert_null(strstr(mounts, E->run_dir));
	assert_int_not_equal(sh("find %s/netns %s/ipc %s/uts %s/containers %s/sandboxes -mindepth 1 | grep .", E->run_dir,
				E->run_dir, E->run_dir, E->run_dir, E->run_dir), 0);
	assert_int_not_equal(sh("find /sys/fs/cgroup -maxdepth 4 -type d -name 'poduid-*' | grep ."), 0);
	snprintf(cmd, sizeof(cmd), "ip -o link | grep 'master %s'", BRIDGE);
	assert_int_not_equal(system(cmd), 0);
	assert_int_not_equal(sh("ps -eo args | grep -v grep | grep -q 'conmon.*%s'", E->run_dir), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hello_crun),
		cmocka_unit_test(test_hello_runc),
		cmocka_unit_test(test_oom_crun),
		cmocka_unit_test(test_oom_runc),
		cmocka_unit_test(test_pod_network),
		cmocka_unit_test(test_readopt_after_restart),
		cmocka_unit_test(test_stop_crun),
		cmocka_unit_test(test_stop_runc),
		cmocka_unit_test(test_remove_idempotent),
		cmocka_unit_test(test_log_rotation_reopen),
		cmocka_unit_test(test_host_network),
		cmocka_unit_test(test_pod_resources),
		cmocka_unit_test(test_sandbox_files),
		cmocka_unit_test(test_bench),
		cmocka_unit_test(test_cleanup),
	};
	/* SK_TEST_FILTER="test_hello_*" runs a subset (cmocka pattern). */
	if (getenv("SK_TEST_FILTER"))
		cmocka_set_test_filter(getenv("SK_TEST_FILTER"));
	return cmocka_run_group_tests(tests, setup, teardown);
}
