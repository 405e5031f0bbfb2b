#include <mimalloc.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"

static const struct sk_cmd cmds[] = {
	{"server", "run the control plane and a node agent", sk_cmd_server},
	{"kubectl", "run kubectl against this machine's cluster", sk_cmd_kubectl},
	{"version", "print the skiff version", sk_cmd_version},
	{"agent", "run a node agent that joins a cluster", sk_cmd_agent},
	{"image", "manage the node's images (pull, import, ls, inspect, rm)", sk_cmd_image},
	{"bench", "benchmark the scheduler on hollow nodes (API and store in the loop)", sk_cmd_bench},
	{"token", "make a bootstrap token for joining a node (skiff token create)", sk_cmd_token},
	{"etcd-snapshot", "save a snapshot of the etcd the server stores in, or restore one (save, restore)",
	 sk_cmd_etcd_snapshot},
	{"migrate", "copy a stopped SQLite cluster's objects into etcd (skiff migrate --from sqlite DIR)",
	 sk_cmd_migrate},
	{"validate", "run the node-stack canary (cold pull, storage, artifact, GPU) on a node or pool",
	 sk_cmd_validate},
	{"user", "write a kubeconfig for a person (a client certificate of the cluster's CA)", sk_cmd_user},
};

int sk_cmd_verb(const char *cmd, int argc, char **argv, const char *verb, int (*run)(int argc, char **argv),
		void (*usage)(FILE *f))
{
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	if (!strcmp(argv[1], verb))
		return run(argc - 1, argv + 1);
	fprintf(stderr, "skiff %s: unknown command \"%s\"\n", cmd, argv[1]);
	usage(stderr);
	return 2;
}

void die(const char *fmt, ...)
{
	va_list ap;

	fputs("skiff: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static void usage(FILE *f)
{
	fprintf(f, "skiff: a Kubernetes-compatible cluster for machine-learning workloads\n\n"
		   "Usage: skiff COMMAND [OPTIONS]\n\nCommands:\n");
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		fprintf(f, "  %-10s %s\n", cmds[i].name, cmds[i].summary);
	fprintf(f, "\nRun 'skiff COMMAND --help' for a command's options.\n");
}

/* build/skiff allocates through mimalloc (the Makefile's MALLOC_LIBS; the
 * sanitizer and fuzz builds keep their own allocators, where this weak
 * reference stays NULL). A thread's first segment is committed eagerly like
 * the others: with mimalloc's default (the first segment of each thread
 * committed page by page) 100 idle exec sessions, whose threads each hold a
 * heap, cost 7 MB more (docs/BENCHMARKS.md). MIMALLOC_EAGER_COMMIT_DELAY
 * still decides when set. */
#pragma weak mi_option_set
static void tune_allocator(void)
{
	if (mi_option_set && !getenv("MIMALLOC_EAGER_COMMIT_DELAY"))
		mi_option_set(mi_option_eager_commit_delay, 0);
}

int main(int argc, char **argv)
{
	tune_allocator();
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (!strcmp(argv[1], cmds[i].name))
			return cmds[i].run(argc - 1, argv + 1);
	fprintf(stderr, "skiff: unknown command \"%s\"\n", argv[1]);
	usage(stderr);
	return 2;
}
