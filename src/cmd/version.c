#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "util/version.h"

int sk_cmd_version(int argc, char **argv)
{
	if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		printf("Usage: skiff version\n\nPrints skiff's version and the Kubernetes API version it serves.\n");
		return 0;
	}
	printf("skiff version %s (Kubernetes API %s)\n", SKIFF_VERSION, SK_KUBE_VERSION);
	return 0;
}
