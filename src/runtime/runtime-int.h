/* Internals shared by the files of src/runtime (not for other layers). */
#ifndef SK_RUNTIME_INT_H
#define SK_RUNTIME_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "util/error.h"

/* Output of a finished child process. */
struct sk__proc_result {
	int status;     /* wait status; check with WIFEXITED etc. */
	bool timed_out; /* the child ran past its timeout and was killed */
	char *out;      /* stdout, NUL-terminated; owned, free with sk__proc_result_release */
	size_t out_len;
	char *err; /* stderr, NUL-terminated */
	size_t err_len;
};

/* Runs argv[0] (an absolute path) with argv and envp (NULL: inherit), feeds
 * `input` (may be NULL) on stdin and collects stdout and stderr (each capped at
 * 4 MiB). timeout_ms <= 0 waits forever; on timeout the child gets SIGKILL and
 * res->timed_out is set. Returns 0 when the child was waited for (whatever its
 * status), -1 with err when it could not be started. */
int sk__proc_run(char *const argv[], char *const envp[], const char *input, int timeout_ms, struct sk__proc_result *res,
		 sk_error_t *err);
/* Starts argv[0] (absolute path) with envp (NULL: inherit) and fds[i] as
 * its descriptor i (i < nfds <= 8; others close on exec), signals unblocked and SIGPIPE default, in a
 * new session when `setsid`. posix_spawn: no copy of this (large, threaded)
 * process's page tables, unlike fork(). The caller waits for *pid. */
int sk__proc_spawn(pid_t *pid, char *const argv[], char *const envp[], const int *fds, int nfds, bool setsid,
		   sk_error_t *err);
/* The same, started in directory cwd (NULL: the caller's). */
int sk__proc_spawn_in(pid_t *pid, char *const argv[], char *const envp[], const int *fds, int nfds, bool setsid,
		      const char *cwd, sk_error_t *err);
void sk__proc_result_release(struct sk__proc_result *res);
/* Exit code of a wait status: the code, or 128+signal. */
int sk__proc_exit_code(int status);

/* Removes a directory tree (no mount crossing: fails on busy mounts). */
int sk__rm_rf(const char *path);
/* True when `path` exists. */
bool sk__exists(const char *path);
/* True when `id` is a safe identifier for file names: [A-Za-z0-9_.-], 1..128, no leading dot. */
bool sk__valid_id(const char *id);
/* Writes a JSON object atomically to path (mode 0600). */
int sk__json_save(const char *path, void *json, sk_error_t *err);
/* json_string_value or NULL-safe dup; returns malloc'd copy or NULL. */
char *sk__json_strdup(void *obj, const char *key);

#endif
