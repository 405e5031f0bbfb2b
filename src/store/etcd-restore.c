/* skiff etcd-snapshot restore: a snapshot into a new etcd member data
 * directory through `etcdctl snapshot restore`, etcd 3.4's documented
 * restore (its bbolt database and WAL are etcd's own formats, not
 * rewritten here). etcdctl restores into a sibling directory that is then
 * renamed into place, so a failed restore leaves nothing a member could
 * start from. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "store/etcd-int.h"
#include "util/util.h"

#define OUT_CAP (1u << 20)

char **sk__etcd_restore_argv(const sk_etcd_restore_options *o, const char *target)
{
	const char *flags[][2] = {
		{"--name", o->name},
		{"--initial-cluster", o->initial_cluster},
		{"--initial-advertise-peer-urls", o->initial_advertise_peer_urls},
		{"--initial-cluster-token", o->initial_cluster_token},
	};
	char **argv = xzalloc(16 * sizeof(argv[0]));
	size_t n = 0;

	argv[n++] = xstrdup(o->etcdctl ? o->etcdctl : "etcdctl");
	argv[n++] = xstrdup("snapshot");
	argv[n++] = xstrdup("restore");
	argv[n++] = xstrdup(o->snapshot);
	argv[n++] = xasprintf("--data-dir=%s", target);
	for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++)
		if (flags[i][1])
			argv[n++] = xasprintf("%s=%s", flags[i][0], flags[i][1]);
	if (o->skip_hash_check)
		argv[n++] = xstrdup("--skip-hash-check");
	return argv;
}

void sk__etcd_argv_free(char **argv)
{
	for (size_t i = 0; argv && argv[i]; i++)
		free(argv[i]);
	free(argv);
}

/* The line that says why: etcdctl's "Error: ..." (the last one), else a Go
 * panic's message, else the last line that is not one of its JSON logs. */
void sk__etcd_ctl_error(const char *out, char *msg, size_t cap)
{
	const char *error = NULL, *panic = NULL, *last = NULL;
	size_t error_len = 0, panic_len = 0, last_len = 0;

	msg[0] = '\0';
	for (const char *p = out ? out : ""; *p;) {
		size_t len = strcspn(p, "\n");

		if (len > 7 && !strncmp(p, "Error: ", 7)) {
			error = p + 7;
			error_len = len - 7;
		} else if (len > 7 && !strncmp(p, "panic: ", 7) && !panic) {
			panic = p + 7;
			panic_len = len - 7;
		} else if (len && p[0] != '{' && p[0] != '\t' && !last) {
			last = p;
			last_len = len;
		}
		p += len + (p[len] == '\n');
	}
	if (error)
		snprintf(msg, cap, "%.*s", (int)error_len, error);
	else if (panic)
		snprintf(msg, cap, "%.*s", (int)panic_len, panic);
	else if (last)
		snprintf(msg, cap, "%.*s", (int)last_len, last);
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

/* 1: dir is absent or an empty directory; 0: it holds something; -1: err. */
static int dir_unused(const char *dir, sk_error_t *err)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int empty = 1;

	if (!d) {
		if (errno == ENOENT)
			return 1;
		if (errno == ENOTDIR)
			return 0;
		return sk_error_errno(err, errno, "data directory \"%s\"", dir);
	}
	while (empty && (e = readdir(d)))
		empty = !strcmp(e->d_name, ".") || !strcmp(e->d_name, "..");
	closedir(d);
	return empty;
}

static int check_snapshot(const char *path, sk_error_t *err)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return sk_error_errno(err, errno, "snapshot \"%s\"", path);
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return sk_error_set(err, SK_EINVALID, "snapshot \"%s\": not a file", path);
	}
	close(fd);
	return 0;
}

/* Runs argv with ETCDCTL_API=3, its stdout and stderr in *out (caller frees).
 * Returns the exit status (128+signal when killed), or -1 with err. */
static int run_etcdctl(char **argv, char **out, sk_error_t *err)
{
	extern char **environ;
	posix_spawn_file_actions_t fa;
	size_t nenv = 0, len = 0;
	char **envp, buf[8192];
	int fds[2], rc, status;
	ssize_t n;
	pid_t pid;

	*out = NULL;
	for (size_t i = 0; environ[i]; i++)
		nenv++;
	envp = xzalloc((nenv + 2) * sizeof(envp[0]));
	nenv = 0;
	/* etcdctl takes the first of two: an inherited ETCDCTL_API=2 goes */
	for (size_t i = 0; environ[i]; i++)
		if (strncmp(environ[i], "ETCDCTL_API=", 12) != 0)
			envp[nenv++] = environ[i];
	envp[nenv] = "ETCDCTL_API=3";
	if (pipe2(fds, O_CLOEXEC) < 0) {
		free(envp);
		return sk_error_errno(err, errno, "pipe");
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
	posix_spawn_file_actions_adddup2(&fa, fds[1], 2);
	rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, envp);
	posix_spawn_file_actions_destroy(&fa);
	free(envp);
	close(fds[1]);
	if (rc != 0) {
		close(fds[0]);
		if (rc == ENOENT)
			return sk_error_set(err, SK_ENOTFOUND, "\"%s\" not found (Debian package etcd-client)",
					    argv[0]);
		return sk_error_errno(err, rc, "running \"%s\"", argv[0]);
	}
	*out = xzalloc(1);
	while ((n = read(fds[0], buf, sizeof(buf))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (len + (size_t)n > OUT_CAP)
			continue; /* keep draining so etcdctl never blocks */
		*out = xrealloc(*out, len + (size_t)n + 1);
		memcpy(*out + len, buf, (size_t)n);
		len += (size_t)n;
		(*out)[len] = '\0';
	}
	close(fds[0]);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return sk_error_errno(err, errno, "waiting for \"%s\"", argv[0]);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int sk_etcd_restore(const sk_etcd_restore_options *o, sk_error_t *err)
{
	cleanup_free char *dir = NULL, *tmp = NULL, *out = NULL;
	char **argv;
	size_t len;
	int rc;

	if (!o->snapshot || !o->data_dir || !*o->data_dir)
		return sk_error_set(err, SK_EINVALID, "a snapshot file and --data-dir are required");
	dir = xstrdup(o->data_dir);
	for (len = strlen(dir); len > 1 && dir[len - 1] == '/'; len--)
		dir[len - 1] = '\0';
	if (check_snapshot(o->snapshot, err) < 0)
		return -1;
	rc = dir_unused(dir, err);
	if (rc < 0)
		return -1;
	if (rc == 0)
		return sk_error_set(err, SK_EEXISTS,
				    "data directory \"%s\" exists and is not empty: restore into a new directory "
				    "(etcd would not start from a mix of two members' data)",
				    dir);
	tmp = xasprintf("%s.restore-%ld", dir, (long)getpid());
	nftw(tmp, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	argv = sk__etcd_restore_argv(o, tmp);
	rc = run_etcdctl(argv, &out, err);
	sk__etcd_argv_free(argv);
	if (rc < 0)
		return -1;
	if (rc != 0) {
		char msg[1024];

		sk__etcd_ctl_error(out, msg, sizeof(msg));
		nftw(tmp, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
		if (!*msg)
			snprintf(msg, sizeof(msg), "exited with status %d", rc);
		return sk_error_set(err, SK_EINVALID, "etcdctl snapshot restore \"%s\": %s", o->snapshot, msg);
	}
	/* rename(2) replaces an empty directory */
	if (rename(tmp, dir) < 0) {
		rc = errno;
		nftw(tmp, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
		return sk_error_errno(err, rc, "moving the restored member to \"%s\"", dir);
	}
	return 0;
}
