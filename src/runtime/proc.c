/* Child processes for the runtime layer: CNI plugins, OCI runtimes, conmon. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <dirent.h>
#include <time.h>

#include <jansson.h>

#include "runtime/runtime-int.h"
#include "util/util.h"

#define OUT_CAP (4u << 20)

struct buf {
	char *data;
	size_t len;
};

static void buf_read(int *fd, struct buf *b)
{
	char tmp[8192];
	ssize_t n = read(*fd, tmp, sizeof(tmp));

	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n <= 0) {
		close(*fd);
		*fd = -1;
		return;
	}
	if (b->len + (size_t)n > OUT_CAP)
		n = (ssize_t)(OUT_CAP - b->len);
	b->data = xrealloc(b->data, b->len + (size_t)n + 1);
	memcpy(b->data + b->len, tmp, (size_t)n);
	b->len += (size_t)n;
	b->data[b->len] = '\0';
}

int sk__proc_spawn(pid_t *pid, char *const argv[], char *const envp[], const int *fds, int nfds, bool setsid,
		   sk_error_t *err)
{
	return sk__proc_spawn_in(pid, argv, envp, fds, nfds, setsid, NULL, err);
}

int sk__proc_spawn_in(pid_t *pid, char *const argv[], char *const envp[], const int *fds, int nfds, bool setsid,
		      const char *cwd, sk_error_t *err)
{
	extern char **environ;
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	sigset_t none, def;
	int rc, high[8];

	if (nfds > 8)
		return sk_error_set(err, SK_EINVALID, "run \"%s\": too many descriptors", argv[0]);
	/* Sources are moved above the targets first so that a dup2 onto
	 * 0..nfds-1 cannot overwrite a source still to be copied. */
	for (int i = 0; i < nfds; i++) {
		high[i] = fcntl(fds[i], F_DUPFD_CLOEXEC, nfds);
		if (high[i] < 0) {
			rc = errno;
			for (int j = 0; j < i; j++)
				close(high[j]);
			return sk_error_errno(err, rc, "run \"%s\": dup", argv[0]);
		}
	}
	sigemptyset(&none);
	sigemptyset(&def);
	sigaddset(&def, SIGPIPE);
	posix_spawn_file_actions_init(&fa);
	posix_spawnattr_init(&attr);
	for (int i = 0; i < nfds; i++)
		posix_spawn_file_actions_adddup2(&fa, high[i], i);
	/* and nothing else, close-on-exec or not: a descriptor a library opened
	 * without it (libcurl's sockets) would otherwise live as long as the
	 * child, and a peer waiting for its close (a streaming client's
	 * connection) would wait as long */
	posix_spawn_file_actions_addclosefrom_np(&fa, nfds);
	if (cwd)
		posix_spawn_file_actions_addchdir_np(&fa, cwd);
	posix_spawnattr_setsigmask(&attr, &none);
	posix_spawnattr_setsigdefault(&attr, &def);
	posix_spawnattr_setflags(&attr,
				 POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | (setsid ? POSIX_SPAWN_SETSID : 0));
	rc = posix_spawn(pid, argv[0], &fa, &attr, argv, envp ? envp : environ);
	posix_spawnattr_destroy(&attr);
	posix_spawn_file_actions_destroy(&fa);
	for (int i = 0; i < nfds; i++)
		close(high[i]);
	if (rc != 0)
		return sk_error_errno(err, rc, "run \"%s\": spawn", argv[0]);
	return 0;
}

static void feed_input(int *fd, const char *input, size_t *off)
{
	size_t len = input ? strlen(input) : 0;
	ssize_t n;

	if (*off >= len) {
		close(*fd);
		*fd = -1;
		return;
	}
	n = write(*fd, input + *off, len - *off);
	if (n < 0 && errno != EINTR && errno != EAGAIN) {
		close(*fd);
		*fd = -1;
	} else if (n > 0) {
		*off += (size_t)n;
	}
}

static int pump(pid_t pid, int in, int out, int errfd, const char *input, int timeout_ms, struct sk__proc_result *res)
{
	struct buf ob = {0}, eb = {0};
	size_t off = 0;
	int64_t deadline = timeout_ms > 0 ? sk_mono_ns() + (int64_t)timeout_ms * 1000000 : 0;

	while (out >= 0 || errfd >= 0 || in >= 0) {
		struct pollfd p[3] = {{in, POLLOUT, 0}, {out, POLLIN, 0}, {errfd, POLLIN, 0}};
		int wait_ms = -1;

		if (deadline) {
			int64_t left = (deadline - sk_mono_ns()) / 1000000;
			if (left <= 0) {
				kill(pid, SIGKILL);
				res->timed_out = true;
				break;
			}
			wait_ms = (int)left;
		}
		if (poll(p, 3, wait_ms) < 0 && errno != EINTR)
			break;
		if (in >= 0 && p[0].revents)
			feed_input(&in, input, &off);
		if (out >= 0 && p[1].revents)
			buf_read(&out, &ob);
		if (errfd >= 0 && p[2].revents)
			buf_read(&errfd, &eb);
	}
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	if (errfd >= 0)
		close(errfd);
	while (waitpid(pid, &res->status, 0) < 0 && errno == EINTR)
		;
	res->out = ob.data ? ob.data : xstrdup("");
	res->out_len = ob.len;
	res->err = eb.data ? eb.data : xstrdup("");
	res->err_len = eb.len;
	return 0;
}

int sk__proc_run(char *const argv[], char *const envp[], const char *input, int timeout_ms, struct sk__proc_result *res,
		 sk_error_t *err)
{
	int pin[2], pout[2], perr[2];
	int64_t t0 = sk_mono_ns(), t1;
	pid_t pid;
	int rc;

	memset(res, 0, sizeof(*res));
	if (pipe2(pin, O_CLOEXEC) < 0)
		return sk_error_errno(err, errno, "run \"%s\": pipe", argv[0]);
	if (pipe2(pout, O_CLOEXEC) < 0) {
		close(pin[0]), close(pin[1]);
		return sk_error_errno(err, errno, "run \"%s\": pipe", argv[0]);
	}
	if (pipe2(perr, O_CLOEXEC) < 0) {
		close(pin[0]), close(pin[1]), close(pout[0]), close(pout[1]);
		return sk_error_errno(err, errno, "run \"%s\": pipe", argv[0]);
	}
	{
		int fds[3] = {pin[0], pout[1], perr[1]};

		rc = sk__proc_spawn(&pid, argv, envp, fds, 3, false, err);
	}
	t1 = sk_mono_ns();
	close(pin[0]), close(pout[1]), close(perr[1]);
	if (rc < 0) {
		close(pin[1]), close(pout[0]), close(perr[0]);
		return -1;
	}
	fcntl(pin[1], F_SETFL, O_NONBLOCK);
	signal(SIGPIPE, SIG_IGN);
	pump(pid, pin[1], pout[0], perr[0], input, timeout_ms, res);
	sk_trace("exec %s %s: %.1f ms (spawn %.1f ms)", argv[0], argv[1] ? argv[1] : (envp && envp[0] ? envp[0] : ""),
		 (double)(sk_mono_ns() - t0) / 1e6, (double)(t1 - t0) / 1e6);
	return 0;
}

void sk__proc_result_release(struct sk__proc_result *res)
{
	free(res->out);
	free(res->err);
	res->out = res->err = NULL;
}

int sk__proc_exit_code(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return -1;
}

int sk__rm_rf(const char *path)
{
	struct stat st;
	DIR *d;
	struct dirent *de;
	int rc = 0;

	if (lstat(path, &st) < 0)
		return errno == ENOENT ? 0 : -1;
	if (!S_ISDIR(st.st_mode))
		return unlink(path) < 0 && errno != ENOENT ? -1 : 0;
	d = opendir(path);
	if (!d)
		return -1;
	while ((de = readdir(d))) {
		cleanup_free char *child = NULL;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		child = xasprintf("%s/%s", path, de->d_name);
		if (sk__rm_rf(child) < 0)
			rc = -1;
	}
	closedir(d);
	if (rmdir(path) < 0 && errno != ENOENT)
		rc = -1;
	return rc;
}

bool sk__exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

bool sk__valid_id(const char *id)
{
	size_t n;

	if (!id || !*id || id[0] == '.')
		return false;
	for (n = 0; id[n]; n++) {
		char c = id[n];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
		      c == '-' || c == '.'))
			return false;
	}
	return n <= 128;
}

int sk__json_save(const char *path, void *json, sk_error_t *err)
{
	cleanup_free char *s = json_dumps(json, JSON_INDENT(1) | JSON_SORT_KEYS);

	if (!s)
		return sk_error_set(err, SK_EINTERNAL, "%s: cannot encode json", path);
	if (sk_write_file(path, s, strlen(s), 0600) < 0)
		return sk_error_errno(err, errno, "write \"%s\"", path);
	return 0;
}

char *sk__json_strdup(void *obj, const char *key)
{
	const char *s = json_string_value(json_object_get(obj, key));

	return s ? xstrdup(s) : NULL;
}
