#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "util/util.h"

/* skiff kubectl [--data-dir DIR] ARGS...: runs kubectl with the cluster's
 * kubeconfig, as `k3s kubectl` does. */
int sk_cmd_kubectl(int argc, char **argv)
{
	const char *dir = getenv("SKIFF_DATA_DIR");
	cleanup_free char *kc = NULL;
	char **args;
	int i = 1, n = 0;

	if (argc > 1 && !strcmp(argv[1], "--help")) {
		printf("Usage: skiff kubectl [--data-dir DIR] [KUBECTL ARGS...]\n\n"
		       "Runs kubectl against the cluster whose data directory is DIR (default $SKIFF_DATA_DIR,\n"
		       "then /var/lib/skiff), using DIR/kubeconfig.\n");
		return 0;
	}
	if (argc > 2 && !strcmp(argv[1], "--data-dir")) {
		dir = argv[2];
		i = 3;
	} else if (argc > 1 && !strncmp(argv[1], "--data-dir=", 11)) {
		dir = argv[1] + 11;
		i = 2;
	}
	if (!dir)
		dir = "/var/lib/skiff";
	kc = xasprintf("%s/kubeconfig", dir);
	if (access(kc, R_OK) < 0)
		die("no kubeconfig at \"%s\": start the server with `skiff server --data-dir %s` first", kc, dir);
	setenv("KUBECONFIG", kc, 1);
	args = xzalloc(sizeof(char *) * (size_t)(argc - i + 2));
	args[n++] = "kubectl";
	for (; i < argc; i++)
		args[n++] = argv[i];
	execvp("kubectl", args);
	die("cannot run kubectl: is it installed? (%m)");
}
