#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "cmd/cmd.h"
#include "util/util.h"

static void usage(FILE *f)
{
	fprintf(f, "Usage: skiff bench [OPTIONS]\n"
		   "       skiff bench dns [OPTIONS]  (the node agent's DNS server; skiff bench dns --help)\n\n"
		   "Benchmarks the scheduler with the API server and the SQLite store in the loop: registers\n"
		   "hollow nodes (Node objects that run no containers and report bound pods Running), creates\n"
		   "pods through the API and reports pods/s from the first create to the last pod Running.\n"
		   "Everything runs in this one process; nothing is served over the network.\n\n"
		   "Options:\n"
		   "  --nodes N           hollow nodes (default 500)\n"
		   "  --pods M            pods to create (default 10000)\n"
		   "  --gang G            then create a PodGroup with G members and time its placement (default 0)\n"
		   "  --statefulset R     then run the controllers and time an OrderedReady StatefulSet of R replicas\n"
		   "  --daemonset         then run the controllers and time a DaemonSet's rollout to every node\n"
		   "                      (all its pods Running and Ready)\n"
		   "                      (one claim template) until every pod is Ready (default 0)\n"
		   "  --workers W         pod creator threads (default 64: creates are durable, group-committed)\n"
		   "  --sched-workers W   scheduler API workers (default: the scheduler's)\n"
		   "  --hollow-workers W  hollow node status writers (default 16)\n"
		   "  --gpus N            nvidia.com/gpu per hollow node (default 0)\n"
		   "  --timeout S         give up after S seconds per phase (default 300)\n"
		   "  --data-dir DIR      keep the store in DIR (default: a temporary directory, removed)\n"
		   "  --datastore-endpoint etcd://HOST:PORT[,…][/ROOT]\n"
		   "                      the store on etcd instead of SQLite (as skiff server's flag)\n"
		   "  -v, --verbose       log at debug level\n"
		   "  -h, --help          show this help\n");
}

static int num(const char *flag, const char *v)
{
	char *end;
	long n = strtol(v, &end, 10);

	if (*end || n < 0 || n > 10000000)
		die("%s \"%s\": want a number", flag, v);
	return (int)n;
}

int sk_cmd_bench(int argc, char **argv)
{
	static const struct option opts[] = {
		{"nodes", required_argument, NULL, 'n'},
		{"pods", required_argument, NULL, 'p'},
		{"gang", required_argument, NULL, 'g'},
		{"statefulset", required_argument, NULL, 's'},
		{"daemonset", no_argument, NULL, 'D'},
		{"workers", required_argument, NULL, 'w'},
		{"sched-workers", required_argument, NULL, 'S'},
		{"hollow-workers", required_argument, NULL, 'H'},
		{"gpus", required_argument, NULL, 'G'},
		{"timeout", required_argument, NULL, 't'},
		{"data-dir", required_argument, NULL, 'd'},
		{"datastore-endpoint", required_argument, NULL, 'E'},
		{"verbose", no_argument, NULL, 'v'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	sk_bench_options o = {.nodes = 500, .pods = 10000, .workers = 64};
	sk_error_t err = {0};
	int c;

	if (argc > 1 && !strcmp(argv[1], "dns"))
		return sk_cmd_bench_dns(argc - 1, argv + 1);
	while ((c = getopt_long(argc, argv, "vh", opts, NULL)) != -1) {
		switch (c) {
		case 'n':
			o.nodes = num("--nodes", optarg);
			break;
		case 'p':
			o.pods = num("--pods", optarg);
			break;
		case 'g':
			o.gang = num("--gang", optarg);
			break;
		case 's':
			o.statefulset = num("--statefulset", optarg);
			break;
		case 'D':
			o.daemonset = 1;
			break;
		case 'w':
			o.workers = num("--workers", optarg);
			break;
		case 'S':
			o.sched_workers = num("--sched-workers", optarg);
			break;
		case 'H':
			o.hollow_workers = num("--hollow-workers", optarg);
			break;
		case 'G':
			o.gpus = num("--gpus", optarg);
			break;
		case 't':
			o.timeout_s = num("--timeout", optarg);
			break;
		case 'd':
			o.data_dir = optarg;
			break;
		case 'E':
			if (strncmp(optarg, "etcd://", 7)) {
				fprintf(stderr,
					"error: --datastore-endpoint \"%s\": want etcd://HOST:PORT[,…][/ROOT]\n",
					optarg);
				return 2;
			}
			o.store_uri = optarg;
			break;
		case 'v':
			sk_log_level = SK_LOG_DEBUG;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		usage(stderr);
		return 2;
	}
	if (o.nodes < 1)
		die("--nodes: want at least one node");
	printf("skiff bench: %d hollow nodes, %d pods, gang %d, statefulset %d, %d creators\n", o.nodes, o.pods, o.gang,
	       o.statefulset, o.workers);
	fflush(stdout);
	if (sk_bench_run(&o, stdout, &err) < 0)
		die("bench: %s", err.msg);
	return 0;
}
