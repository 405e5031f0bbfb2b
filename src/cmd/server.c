#include <errno.h>
#include <getopt.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "kube/cidr.h"
#include "kube/duration.h"
#include "server/server.h"
#include "util/util.h"

/* A positive Go duration ("15s", "500ms", "1.5m", "1h") in ms; -1 when it is none. */
static int64_t duration_ms(const char *s)
{
	int64_t ns;

	if (sk_kube_duration_parse(s, &ns, NULL) < 0 || ns < 1000000 || ns > 1000000000LL * 1000000)
		return -1;
	return ns / 1000000;
}

static void usage(FILE *f)
{
	fprintf(f, "Usage: skiff server [--data-dir DIR] [--listen HOST:PORT] [--no-agent] [options]\n\n"
		   "Runs the control plane (API server, scheduler, controllers) and, unless --no-agent,\n"
		   "a node agent for this machine. On first start it creates DIR/kubeconfig.\n\n"
		   "Options:\n"
		   "  --data-dir DIR        state directory (default /var/lib/skiff)\n"
		   "  --listen HOST:PORT    HTTPS address (default 127.0.0.1:6443)\n"
		   "  --no-agent            do not run a node agent in this process\n"
		   "  --node-name NAME      name of the embedded agent's node (default: hostname)\n"
		   "  --simulate-gpus N     advertise N simulated GPUs on the embedded node\n"
		   "  --gpu-replicas R      time-slicing: each GPU counts as R (no memory or fault isolation)\n"
		   "  --gpu-quiet-period S  seconds without a critical XID before a GPU is healthy again\n"
		   "  --watch-history S     keep S seconds of history for watch resumption (default 300)\n"
		   "  --metric-resolution D  how often metrics.k8s.io scrapes the nodes' /stats/summary,\n"
		   "                        a duration such as 15s, 500ms or 1m (default 15s)\n"
		   "  --datastore-endpoint URI  the store: sqlite://DIR (default: sqlite://DATA-DIR) or\n"
		   "                        etcd://HOST:PORT[,HOST:PORT...][/ROOT] (etcd v3)\n"
		   "  --datastore-cafile F, --datastore-certfile F, --datastore-keyfile F  PEM files to\n"
		   "                        talk https to etcd (CA bundle, client certificate and key)\n"
		   "  --node-monitor-grace-period S  seconds without a node heartbeat before the node\n"
		   "                        is marked Ready=Unknown (default 40)\n"
		   "  --node-monitor-period S  seconds between node health checks (default 5)\n"
		   "  --pod-eviction-timeout S  seconds a pod without a toleration stays on an\n"
		   "                        unreachable or not-ready node before eviction (default 300)\n"
		   "  --service-cidr CIDR   ClusterIPs of Services (default 10.43.0.0/16)\n"
		   "  --service-node-port-range A-B  NodePorts (default 30000-32767)\n"
		   "  --cluster-cidr CIDR   the pods' network, a /24 per node (default 10.42.0.0/16)\n"
		   "  --cluster-dns IP      kube-dns's ClusterIP (default: the 10th address of\n"
		   "                        --service-cidr, 10.43.0.10)\n"
		   "  --cluster-domain D    cluster domain (default cluster.local)\n"
		   "  --advertise-address IP  this server's address in default/kubernetes (default:\n"
		   "                        the --listen host; for 0.0.0.0 the default route's address)\n"
		   "  --node-cidr-mask-size N  prefix length of each node's pod CIDR (default 24)\n"
		   "  --node-ip IP          InternalIP of the embedded agent's node (default: the address of\n"
		   "                        the default route's interface)\n"
		   "  --tls-san NAMES       further names or IPs of the serving certificate (comma-separated)\n"
		   "  --token-auth-file F   users' bearer tokens, a CSV line each: token,user,uid[,groups]\n"
		   "                        (upstream's static token file, read at start)\n"
		   "  --admission-control-config-file FILE  an AdmissionConfiguration (YAML/JSON): PodSecurity's\n"
		   "                        defaults and exemptions (default: privileged, kube-system exempt)\n"
		   "  --max-connections N   HTTPS connections in all (default: 7/8 of the descriptor limit)\n"
		   "  --max-connections-per-address N  from one client address (default: half of that)\n"
		   "  --max-unauthenticated-connections N  connections without an authenticated request\n"
		   "                        yet; the oldest are closed first (default 1024)\n"
		   "  --cluster-signing-duration D  the most a certificate signed for a CertificateSigningRequest\n"
		   "                        lives (Go duration, default 8760h0m0s)\n"
		   "  --audit-log-path FILE  write an audit.k8s.io/v1 Event per request to FILE (\"-\": stdout)\n"
		   "  --audit-policy-file FILE  audit.k8s.io/v1 Policy, YAML or JSON (default: every\n"
		   "                        request at Metadata level)\n"
		   "  --audit-log-maxsize MB  rotate the audit log past MB megabytes\n"
		   "  --audit-log-maxbackup N  rotated audit logs kept (default: all)\n"
		   "  --horizontal-pod-autoscaler-sync-period D  between HPA syncs (Go duration, default 15s)\n"
		   "  --horizontal-pod-autoscaler-tolerance F  usage ratio change ignored (default 0.1)\n"
		   "  --horizontal-pod-autoscaler-cpu-initialization-period D  after a pod starts, CPU samples\n"
		   "                        count only once it is ready for a whole window (default 5m0s)\n"
		   "  --horizontal-pod-autoscaler-initial-readiness-delay D  after a pod starts, readiness\n"
		   "                        changes count as never-ready (default 30s)\n"
		   "  --horizontal-pod-autoscaler-downscale-stabilization D  the scale-down window of an HPA\n"
		   "                        without a behavior (default 5m0s)\n"
		   "  --leader-elect[=BOOL]  run the scheduler and the controllers only while this server\n"
		   "                        holds the kube-system Leases kube-scheduler and\n"
		   "                        kube-controller-manager (default: true on etcd, false on SQLite)\n"
		   "  --leader-elect-lease-duration D  how long a leader's lease lasts unrenewed (default 15s)\n"
		   "  --leader-elect-renew-deadline D  a leader stops after failing to renew for D (default 10s)\n"
		   "  --leader-elect-retry-period D  between tries to acquire or renew (default 2s)\n"
		   "  --join-from DIR       share the cluster CA, service-account key and tokens of the\n"
		   "                        server whose data directory is DIR (another API server on\n"
		   "                        the same etcd): copied into --data-dir when it has none\n"
		   "  -v, --verbose         debug logging\n"
		   "  -h, --help            this help\n");
}

/* A node-lifecycle timing in seconds ("40" or "40s"). The controllers read
 * these from the environment (sk_ctrl_start), so a flag sets the variable
 * and wins over one inherited. */
static void node_timing(const char *env, const char *flag, const char *arg)
{
	char *end;
	long v = strtol(arg, &end, 10);

	if (end == arg || (*end && strcmp(end, "s")) || v <= 0 || v > 86400 * 365)
		die("%s: want a positive number of seconds, got \"%s\"", flag, arg);
	if (setenv(env, arg, 1) < 0)
		die("%s: %s", flag, strerror(errno));
}

/* A Go duration flag ("15s", "5m0s", "1h"; a bare number is seconds) in
 * whole seconds, at least 1. */
static int duration_flag(const char *flag, const char *arg)
{
	int64_t ns;
	char *end;
	double secs = strtod(arg, &end);

	if (end == arg || *end || arg[strspn(arg, "0123456789.")]) {
		sk_error_t err = {0};

		if (sk_kube_duration_parse(arg, &ns, &err) < 0)
			die("%s: want a duration such as 15s or 5m0s: %s", flag, err.msg);
		secs = (double)ns / 1e9;
	}
	if (secs < 1 || secs > 86400 * 365)
		die("%s: want a duration of at least 1s, got \"%s\"", flag, arg);
	return (int)secs;
}

/* --cluster-signing-duration: a Go duration of at least 1s, in whole
 * seconds (kube-controller-manager's flag; no upper bound but the CA's own
 * end, which the signer applies). */
static int64_t signing_duration(const char *arg)
{
	sk_error_t err = {0};
	int64_t ns;

	if (sk_kube_duration_parse(arg, &ns, &err) < 0)
		die("--cluster-signing-duration: want a duration such as 8760h or 10m: %s", err.msg);
	if (ns < 1000000000LL)
		die("--cluster-signing-duration: want a duration of at least 1s, got \"%s\"", arg);
	return ns / 1000000000LL;
}

static unsigned count_flag(const char *flag, const char *arg)
{
	char *end;
	long v = strtol(arg, &end, 10);

	if (end == arg || *end || v <= 0 || v > 10000000)
		die("%s: want a positive number, got \"%s\"", flag, arg);
	return (unsigned)v;
}

int sk_cmd_server(int argc, char **argv)
{
	static const struct option opts[] = {
		{"data-dir", required_argument, NULL, 'd'},
		{"listen", required_argument, NULL, 'l'},
		{"no-agent", no_argument, NULL, 'n'},
		{"node-name", required_argument, NULL, 'N'},
		{"simulate-gpus", required_argument, NULL, 'g'},
		{"verbose", no_argument, NULL, 'v'},
		{"gpu-replicas", required_argument, NULL, 'G'},
		{"gpu-quiet-period", required_argument, NULL, 'Q'},
		{"watch-history", required_argument, NULL, 'H'},
		{"node-monitor-grace-period", required_argument, NULL, 'R'},
		{"node-monitor-period", required_argument, NULL, 'P'},
		{"pod-eviction-timeout", required_argument, NULL, 'E'},
		{"service-cidr", required_argument, NULL, 1001},
		{"service-node-port-range", required_argument, NULL, 1002},
		{"cluster-cidr", required_argument, NULL, 1003},
		{"cluster-dns", required_argument, NULL, 1004},
		{"cluster-domain", required_argument, NULL, 1005},
		{"advertise-address", required_argument, NULL, 1006},
		{"node-cidr-mask-size", required_argument, NULL, 1007},
		{"node-ip", required_argument, NULL, 1008},
		{"tls-san", required_argument, NULL, 1009},
		{"token-auth-file", required_argument, NULL, 1010},
		{"admission-control-config-file", required_argument, NULL, 1011},
		{"max-connections", required_argument, NULL, 1020},
		{"max-connections-per-address", required_argument, NULL, 1021},
		{"max-unauthenticated-connections", required_argument, NULL, 1022},
		{"audit-log-path", required_argument, NULL, 1023},
		{"audit-policy-file", required_argument, NULL, 1024},
		{"audit-log-maxsize", required_argument, NULL, 1025},
		{"audit-log-maxbackup", required_argument, NULL, 1026},
		{"horizontal-pod-autoscaler-sync-period", required_argument, NULL, 1040},
		{"horizontal-pod-autoscaler-tolerance", required_argument, NULL, 1041},
		{"horizontal-pod-autoscaler-cpu-initialization-period", required_argument, NULL, 1042},
		{"horizontal-pod-autoscaler-initial-readiness-delay", required_argument, NULL, 1043},
		{"horizontal-pod-autoscaler-downscale-stabilization", required_argument, NULL, 1044},
		{"metric-resolution", required_argument, NULL, 1027},
		{"datastore-endpoint", required_argument, NULL, 1030},
		{"datastore-cafile", required_argument, NULL, 1031},
		{"datastore-certfile", required_argument, NULL, 1032},
		{"datastore-keyfile", required_argument, NULL, 1033},
		{"leader-elect", optional_argument, NULL, 1050},
		{"leader-elect-lease-duration", required_argument, NULL, 1051},
		{"leader-elect-renew-deadline", required_argument, NULL, 1052},
		{"leader-elect-retry-period", required_argument, NULL, 1053},
		{"join-from", required_argument, NULL, 1054},
		{"cluster-signing-duration", required_argument, NULL, 1060},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	sk_server_options o = {
		.data_dir = "/var/lib/skiff", .listen = "127.0.0.1:6443", .agent = 1, .leader_elect = -1};
	sk_error_t err = {0};
	sk_server *s;
	sigset_t set;
	uint32_t ip4;
	int c, sig;

	while ((c = getopt_long(argc, argv, "vh", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			o.data_dir = optarg;
			break;
		case 'l':
			o.listen = optarg;
			break;
		case 'n':
			o.agent = 0;
			break;
		case 'N':
			o.node_name = optarg;
			break;
		case 'g':
			o.simulate_gpus = atoi(optarg);
			break;
		case 'G':
			o.gpu_replicas = atoi(optarg);
			break;
		case 'Q':
			o.gpu_quiet_period_s = atoi(optarg);
			break;
		case 'H':
			o.watch_history_secs = atoll(optarg);
			break;
		case 'R':
			node_timing("SKIFF_NODE_MONITOR_GRACE_PERIOD", "--node-monitor-grace-period", optarg);
			break;
		case 'P':
			node_timing("SKIFF_NODE_MONITOR_PERIOD", "--node-monitor-period", optarg);
			break;
		case 'E':
			node_timing("SKIFF_POD_EVICTION_TIMEOUT", "--pod-eviction-timeout", optarg);
			break;
		case 1001:
			o.service_cidr = optarg;
			break;
		case 1002:
			o.node_port_range = optarg;
			break;
		case 1003:
			o.cluster_cidr = optarg;
			break;
		case 1004:
			o.cluster_dns = optarg;
			break;
		case 1005:
			o.cluster_domain = optarg;
			break;
		case 1006:
			o.advertise_address = optarg;
			break;
		case 1007:
			o.node_cidr_mask_size = atoi(optarg);
			if (o.node_cidr_mask_size <= 0 || o.node_cidr_mask_size > 32)
				die("--node-cidr-mask-size: want 1..32, got \"%s\"", optarg);
			break;
		case 1008:
			o.node_ip = optarg;
			if (sk_kube_ip4_parse(optarg, &ip4, NULL) < 0)
				die("--node-ip \"%s\": not an IPv4 address", optarg);
			break;
		case 1009:
			o.tls_san = optarg;
			break;
		case 1010:
			o.token_auth_file = optarg;
			break;
		case 1011:
			o.admission_config_file = optarg;
			break;
		case 1027:
			o.metric_resolution_ms = duration_ms(optarg);
			if (o.metric_resolution_ms <= 0)
				die("--metric-resolution \"%s\": want a positive duration such as 15s, 500ms or 1m",
				    optarg);
			break;
		case 1020:
			o.max_conns = count_flag("--max-connections", optarg);
			break;
		case 1021:
			o.max_conns_per_addr = count_flag("--max-connections-per-address", optarg);
			break;
		case 1022:
			o.max_unauth_conns = count_flag("--max-unauthenticated-connections", optarg);
			break;
		case 1023:
			o.audit_log_path = optarg;
			break;
		case 1024:
			o.audit_policy_path = optarg;
			break;
		case 1025:
			o.audit_max_size_mb = (int)count_flag("--audit-log-maxsize", optarg);
			break;
		case 1026:
			o.audit_max_backups = (int)count_flag("--audit-log-maxbackup", optarg);
			break;
		case 1030:
			o.datastore_endpoint = optarg;
			break;
		case 1031:
			o.datastore_ca = optarg;
			break;
		case 1032:
			o.datastore_cert = optarg;
			break;
		case 1033:
			o.datastore_key = optarg;
			break;
		case 1040:
			o.hpa_sync_period_secs = duration_flag("--horizontal-pod-autoscaler-sync-period", optarg);
			break;
		case 1041: {
			char *end;

			o.hpa_tolerance = strtod(optarg, &end);
			if (end == optarg || *end || o.hpa_tolerance <= 0 || o.hpa_tolerance >= 1)
				die("--horizontal-pod-autoscaler-tolerance: want a number in (0, 1), got \"%s\"",
				    optarg);
			break;
		}
		case 1042:
			o.hpa_cpu_init_secs = duration_flag("--horizontal-pod-autoscaler-cpu-initialization-period",
							    optarg);
			break;
		case 1043:
			o.hpa_readiness_delay_secs = duration_flag(
				"--horizontal-pod-autoscaler-initial-readiness-delay", optarg);
			break;
		case 1044:
			o.hpa_downscale_window_secs = duration_flag(
				"--horizontal-pod-autoscaler-downscale-stabilization", optarg);
			break;
		case 1050:
			if (!optarg || !strcmp(optarg, "true"))
				o.leader_elect = 1;
			else if (!strcmp(optarg, "false"))
				o.leader_elect = 0;
			else
				die("--leader-elect: want true or false, got \"%s\"", optarg);
			break;
		case 1051:
		case 1052:
		case 1053: {
			static const char *const names[] = {"--leader-elect-lease-duration",
							    "--leader-elect-renew-deadline",
							    "--leader-elect-retry-period"};
			int64_t *dst[] = {&o.leader_elect_lease_duration_ms, &o.leader_elect_renew_deadline_ms,
					  &o.leader_elect_retry_period_ms};
			int64_t ms = duration_ms(optarg);

			if (ms <= 0)
				die("%s \"%s\": want a positive duration such as 15s or 500ms", names[c - 1051],
				    optarg);
			*dst[c - 1051] = ms;
			break;
		}
		case 1054:
			o.join_from = optarg;
			break;
		case 1060:
			o.signing_duration_secs = signing_duration(optarg);
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
	if (o.audit_policy_path && !o.audit_log_path)
		die("--audit-policy-file needs --audit-log-path");
	if (optind < argc) {
		fprintf(stderr, "skiff server: unexpected argument \"%s\"\n", argv[optind]);
		usage(stderr);
		return 2;
	}
	/* the API allocates and frees many small JSON values per request: keep
	 * freed memory in the heap rather than trimming it back each time */
	mallopt(M_MMAP_THRESHOLD, 4 << 20);
	mallopt(M_TRIM_THRESHOLD, 256 << 20);
	mallopt(M_TOP_PAD, 64 << 20);
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	signal(SIGPIPE, SIG_IGN);
	s = sk_server_start(&o, &err);
	if (!s)
		die("%s", err.msg);
	sigwait(&set, &sig);
	sk_info("server", "received %s, shutting down", sig == SIGTERM ? "SIGTERM" : "SIGINT");
	sk_server_stop(s);
	return 0;
}
