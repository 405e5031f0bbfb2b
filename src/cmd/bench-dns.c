/* skiff bench dns: the node agent's DNS server (src/agent/dns.c) serving a
 * synthetic cluster domain, for dnsperf (bench/dns_bench.sh). The zone is
 * built from Service objects by the agent's own code; only the informers
 * are left out. */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/dns.h"
#include "cmd/cmd.h"
#include "util/util.h"

static void usage(FILE *f)
{
	fprintf(f, "Usage: skiff bench dns [OPTIONS]\n\n"
		   "Serves DNS as the node agent does, for a synthetic cluster: N ClusterIP Services\n"
		   "svc-I.bench.svc.<domain> (I = 0..N-1) with the address 10.43.I/256.I%%256 and a port\n"
		   "named http (80), until SIGINT or SIGTERM.\n\n"
		   "Options:\n"
		   "  --listen IP         address to serve on (default 127.0.0.1)\n"
		   "  --port P            port (default 5353)\n"
		   "  --services N        Services in the zone (default 1000)\n"
		   "  --domain NAME       cluster domain (default cluster.local)\n"
		   "  --workers W         UDP worker threads (default the server's)\n"
		   "  --resolv-conf FILE  forwarders for names outside the zone (default /etc/resolv.conf)\n"
		   "  --max-forwards N    forwarded UDP queries in flight (default the server's, 1024)\n"
		   "  --forward-timeout-ms MS  per forwarder (default the server's, 2000)\n"
		   "  -h, --help          show this help\n");
}

static json_t *services(int n)
{
	json_t *arr = json_array();

	for (int i = 0; i < n; i++) {
		char name[32], ip[32];

		snprintf(name, sizeof(name), "svc-%d", i);
		snprintf(ip, sizeof(ip), "10.43.%d.%d", i / 256, i % 256);
		json_array_append_new(arr,
				      json_pack("{s:{s:s,s:s}, s:{s:s,s:[s],s:[{s:s,s:i,s:s}]}}", "metadata", "name",
						name, "namespace", "bench", "spec", "clusterIP", ip, "clusterIPs", ip,
						"ports", "name", "http", "port", 80, "protocol", "TCP"));
	}
	return arr;
}

int sk_cmd_bench_dns(int argc, char **argv)
{
	static const struct option opts[] = {
		{"listen", required_argument, NULL, 'l'},
		{"port", required_argument, NULL, 'p'},
		{"services", required_argument, NULL, 'n'},
		{"domain", required_argument, NULL, 'd'},
		{"workers", required_argument, NULL, 'w'},
		{"resolv-conf", required_argument, NULL, 'r'},
		{"max-forwards", required_argument, NULL, 'm'},
		{"forward-timeout-ms", required_argument, NULL, 't'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	sk_dns_options o = {.listen = "127.0.0.1", .port = 5353, .domain = "cluster.local"};
	cleanup_json json_t *svcs = NULL;
	sk_error_t err = {0};
	sk_dns_zone *z;
	sk_dns *d;
	sigset_t set;
	int c, sig, n = 1000;
	int64_t t0;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'l':
			o.listen = optarg;
			break;
		case 'p':
			o.port = atoi(optarg);
			break;
		case 'n':
			n = atoi(optarg);
			break;
		case 'd':
			o.domain = optarg;
			break;
		case 'w':
			o.workers = atoi(optarg);
			break;
		case 'r':
			o.resolv_conf = optarg;
			break;
		case 'm':
			o.max_forwards = atoi(optarg);
			break;
		case 't':
			o.forward_timeout_ms = atoi(optarg);
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (n < 0 || n > 65536 || o.port <= 0 || o.port > 65535)
		die("--services wants 0..65536 and --port 1..65535");
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	svcs = services(n);
	t0 = sk_mono_ns();
	z = sk_dns_zone_build(o.domain, NULL, svcs, NULL);
	if (!z)
		die("--domain \"%s\": no DNS name", o.domain);
	printf("zone of %zu names built in %.1f ms\n", sk_dns_zone_names(z), (double)(sk_mono_ns() - t0) / 1e6);
	d = sk_dns_start(NULL, &o, &err);
	if (!d) {
		sk_dns_zone_free(z);
		die("%s", err.msg);
	}
	sk_dns_set_zone(d, z);
	printf("serving %d services on %s port %d\n", n, o.listen, o.port);
	fflush(stdout);
	sigwait(&set, &sig);
	sk_dns_stop(d);
	return 0;
}
