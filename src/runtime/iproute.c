/* `ip` and `bridge` (iproute2) runs, see iproute.h. */
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "runtime/iproute.h"
#include "runtime/runtime-int.h"
#include "util/util.h"

#define IP_TIMEOUT_MS 10000
#define IP_ARGS_MAX 32

static const char *binary(const char *tool, char *buf, size_t len)
{
	static const char *const dirs[] = {"/usr/sbin", "/sbin", "/usr/bin", "/bin"};

	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(buf, len, "%s/%s", dirs[i], tool);
		if (access(buf, X_OK) == 0)
			return buf;
	}
	snprintf(buf, len, "/usr/sbin/%s", tool);
	return buf;
}

static int run(const char *tool, const char *const args[], char **out, sk_error_t *err)
{
	char *argv[IP_ARGS_MAX + 2], path[64];
	struct sk__proc_result res;
	size_t n = 0;
	int rc = 0;

	argv[n++] = (char *)binary(tool, path, sizeof(path));
	for (; args[n - 1] && n <= IP_ARGS_MAX; n++)
		argv[n] = (char *)args[n - 1];
	argv[n] = NULL;
	if (out)
		*out = NULL;
	if (sk__proc_run(argv, NULL, NULL, IP_TIMEOUT_MS, &res, err) < 0)
		return -1;
	if (res.timed_out || !WIFEXITED(res.status) || WEXITSTATUS(res.status) != 0) {
		res.err[strcspn(res.err, "\n")] = '\0';
		rc = sk_error_set(err, SK_EINTERNAL, "%s %s %s: %s", tool, args[0] ? args[0] : "",
				  args[0] && args[1] ? args[1] : "",
				  res.timed_out ? "timed out"
				  : res.err[0]  ? res.err
						: "failed");
	} else if (out) {
		*out = steal_ptr(&res.out);
	}
	sk__proc_result_release(&res);
	return rc;
}

int sk_ip_run(const char *const args[], char **out, sk_error_t *err) { return run("ip", args, out, err); }

int sk_bridge_run(const char *const args[], char **out, sk_error_t *err) { return run("bridge", args, out, err); }
