/* Containers of pod sandboxes, run by an OCI runtime under conmon.
 *
 * Each container has a directory <run_dir>/containers/<id>/ that is at once
 * the OCI bundle (config.json, rootfs elsewhere), conmon's --persist-dir
 * (exit and oom files) and the home of container.json, the state the agent
 * reports (ids, names, attempt, times, exit code, reason, log path, image).
 * conmon daemonizes, so containers outlive the agent: after a restart
 * sk_container_list() finds them again and every call works on a loaded
 * container as on a created one.
 *
 * Lifecycle: sk_container_create (conmon + `runtime create`, state Created),
 * sk_container_start (`runtime start`, Running), sk_container_refresh (exit
 * file, OOM, `runtime state`), sk_container_stop (signal, grace period,
 * SIGKILL), sk_container_remove (`runtime delete --force`, bundle, and the pod
 * cgroup when this was the pod's last container). OOM kills (conmon's oom
 * file, or the cgroup's oom_kill counter read before deletion) are reported
 * as reason "OOMKilled" with exit code 137.
 *
 * Concurrency: calls on different containers may run in parallel threads;
 * calls on one container must be serialized by the caller. */
#ifndef SK_RUNTIME_CONTAINER_H
#define SK_RUNTIME_CONTAINER_H

#include <stdint.h>

#include "runtime/oci.h"
#include "runtime/runtime.h"
#include "util/error.h"

enum sk_container_status {
	SK_CONTAINER_CREATED = 0,
	SK_CONTAINER_RUNNING,
	SK_CONTAINER_EXITED,
	SK_CONTAINER_UNKNOWN, /* neither the runtime nor an exit file knows it */
};

struct sk_container {
	char *id, *name, *sandbox_id, *pod_uid, *pod_name, *pod_namespace;
	uint32_t attempt;
	char *handler;              /* runtime handler name */
	char *image_ref, *image_id; /* may be NULL */
	char *log_path;
	char *pod_cgroup;  /* "/kubepods/.../pod<uid>" */
	char *cgroup_path; /* pod_cgroup + "/" + id */
	char *dir;         /* bundle and persist dir */
	int pid;           /* init pid in the host pid namespace, 0 if unknown */
	enum sk_container_status status;
	int64_t created_ns, started_ns, finished_ns; /* 0 when not yet */
	int exit_code;                               /* valid when EXITED */
	char *reason;                                /* when EXITED: "Completed", "Error" or "OOMKilled"; else NULL */
	char *message;                               /* may be NULL */
};

const char *sk_container_status_name(enum sk_container_status s);

/* Writes the bundle and creates the container through conmon (the process
 * is set up but its program not yet executed). *out is freed with
 * sk_container_free. On failure nothing is left behind. */
int sk_container_create(struct sk_runtime *rt, const struct sk_container_config *cfg, struct sk_container **out,
			sk_error_t *err);
/* Runs the container's program. */
int sk_container_start(struct sk_runtime *rt, struct sk_container *c, sk_error_t *err);
/* Updates status, exit code, reason and times from disk and the runtime,
 * and saves container.json. */
int sk_container_refresh(struct sk_runtime *rt, struct sk_container *c, sk_error_t *err);
/* Waits up to timeout_ms (< 0: forever) for the container to exit, then
 * refreshes. Returns -1 with SK_ETIMEOUT if it is still running. */
int sk_container_wait(struct sk_runtime *rt, struct sk_container *c, int timeout_ms, sk_error_t *err);
/* Sends `signal` (0: SIGTERM), waits up to grace_s seconds, then SIGKILL.
 * Returns when the container has exited (state refreshed). */
int sk_container_stop(struct sk_runtime *rt, struct sk_container *c, int signal, int grace_s, sk_error_t *err);
/* Deletes the container (forcefully if still running) and its bundle; the
 * log file stays. Idempotent. Removes the pod cgroup when no container of
 * the pod is left on disk. */
int sk_container_remove(struct sk_runtime *rt, struct sk_container *c, sk_error_t *err);

/* Loads container.json of `id` (SK_ENOTFOUND when absent) and refreshes it. */
int sk_container_load(struct sk_runtime *rt, const char *id, struct sk_container **out, sk_error_t *err);
/* All containers on disk, refreshed; free each with sk_container_free and the array with free. */
int sk_container_list(struct sk_runtime *rt, struct sk_container ***out, size_t *n, sk_error_t *err);
void sk_container_free(struct sk_container *c);

struct sk_exec_result {
	int exit_code; /* the command's exit code; 137 after a timeout kill */
	bool timed_out;
	char *out, *err; /* captured stdout/stderr (NUL-terminated, capped at 4 MiB); owned */
};
/* Runs args in the running container (same user, env, capabilities as its
 * init process) and waits up to timeout_s (<= 0: 60 s). A failure of the
 * command is not an error; a failure to run it is. */
int sk_container_exec_sync(struct sk_runtime *rt, struct sk_container *c, const char *const *args, int timeout_s,
			   struct sk_exec_result *res, sk_error_t *err);
void sk_exec_result_release(struct sk_exec_result *res);

/* A command started in a running container (kubectl exec). */
struct sk_exec_proc {
	pid_t pid;       /* the runtime's exec process: its exit status is the command's */
	int master;      /* with a terminal: the pty master (stdin and output), else -1 */
	char *proc_path; /* the process spec, removed by sk_exec_proc_release */
	char *pid_path;  /* the runtime's --pid-file: the command's host pid */
};

/* Starts args in container c with the container's process settings (env,
 * user, cwd, capabilities) and does not wait. With tty the command gets a
 * terminal (the runtime's --console-socket hands its master back in
 * p->master; stderr joins stdout) and in_fd/out_fd/err_fd are unused;
 * without, they become its stdin, stdout and stderr (the caller keeps
 * them). Returns 0, or -1 with err. */
int sk_container_exec_start(struct sk_runtime *rt, struct sk_container *c, const char *const *args, bool tty, int in_fd,
			    int out_fd, int err_fd, struct sk_exec_proc *p, sk_error_t *err);
/* Reaps p: the exit code (128+signal when killed), or -2 while it runs
 * (nohang), -1 on error. */
int sk_exec_proc_wait(struct sk_exec_proc *p, bool nohang);
/* Closes the master, removes the spec; a command still running (its client
 * went away) is killed as CRI-O does: SIGKILL to the command's process group
 * (its pid from the runtime's --pid-file) and to the runtime's, then the
 * runtime is reaped. */
void sk_exec_proc_release(struct sk_exec_proc *p);

/* Runs args in the running container with the given file descriptors as its
 * stdin, stdout and stderr (no TTY; for `kubectl exec` without -t) and
 * blocks until it exits. Returns the exit code (>= 0), or -1 with err when it
 * could not be run. The descriptors stay owned by the caller. */
int sk_container_exec_fds(struct sk_runtime *rt, struct sk_container *c, const char *const *args, int in_fd, int out_fd,
			  int err_fd, sk_error_t *err);

/* conmon's attach socket of a running container (SOCK_SEQPACKET, CRI-O's
 * attach): each packet conmon sends is one stream byte (SK_ATTACH_STDOUT or
 * SK_ATTACH_STDERR) then the bytes the container wrote; what the client
 * sends goes to the container's stdin (when created with stdin_open), and a
 * client's shutdown(SHUT_WR) or close ends that stdin when stdin_once. The
 * descriptor (non-blocking, close-on-exec) is the caller's. */
enum { SK_ATTACH_STDOUT = 2, SK_ATTACH_STDERR = 3 }; /* conmon's STDOUT_PIPE, STDERR_PIPE */
int sk_container_attach(struct sk_runtime *rt, struct sk_container *c, sk_error_t *err);
/* Splits a packet from the attach socket: returns its stream (SK_ATTACH_STDOUT or SK_ATTACH_STDERR) and
 * sets *data and *len to what follows the prefix; -1 for an empty packet or an
 * unknown stream. */
int sk_attach_packet(const uint8_t *pkt, size_t n, const uint8_t **data, size_t *len);
/* Resizes the terminal conmon holds (its control fifo's "1 H W" line). */
int sk_container_resize(struct sk_runtime *rt, struct sk_container *c, unsigned width, unsigned height,
			sk_error_t *err);

/* Asks conmon to reopen the log file (after the caller rotated it). */
int sk_container_reopen_log(struct sk_runtime *rt, struct sk_container *c, sk_error_t *err);

#endif
