#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent/agent.h"
#include "client/jointoken.h"
#include "client/nodecert.h"
#include "client/servers.h"
#include "cmd/cmd.h"
#include "kube/cidr.h"
#include "util/quantity.h"
#include "util/util.h"

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: skiff agent --server URL --token TOKEN --data-dir DIR [options]\n\n"
		"Runs a node agent (kubelet) that registers this machine as a Node and runs\n"
		"the pods bound to it.\n\n"
		"Options:\n"
		"  --server URL[,URL...]   API server, https://HOST:PORT; with several (servers on one\n"
		"                          etcd) the agent moves to the next when one cannot be reached.\n"
		"                          The servers listed in the default/kubernetes Endpoints are\n"
		"                          added after these (and dropped when they leave it)\n"
		"  --token TOKEN           join token (the server's DIR/node-token or one of `skiff token\n"
		"                          create`; @FILE reads it): K10<CA hash>::<id>.<secret> pins the\n"
		"                          server's CA, a plain secret needs --ca-file to verify the server.\n"
		"                          It only asks for the node's client certificate (kept in\n"
		"                          DIR/pki/kubelet-client-current.pem, renewed at 80%% of its life)\n"
		"  --cert-expiration S     ask for client certificates valid S seconds (default: the\n"
		"                          signer's, a year)\n"
		"  --kubeconfig FILE       take server, CA and token from a kubeconfig instead\n"
		"  --ca-file FILE          CA certificate of the server (default: from /cacerts, checked\n"
		"                          against a K10 token's hash; with a plain token: not verified)\n"
		"  --data-dir DIR          state directory (images, logs, volumes)\n"
		"  --run-dir DIR           runtime state (default /run/skiff-<hash of data dir>)\n"
		"  --node-name NAME        node name (default: hostname)\n"
		"  --pod-cidr CIDR         pod network of this node (default: the one the server's node\n"
		"                          IPAM controller gives the Node)\n"
		"  --node-ip IP            InternalIP of the node (default: the address of the default\n"
		"                          route's interface)\n"
		"  --bridge NAME           pod network bridge (default sk<hash>)\n"
		"  --simulate-gpus N       advertise N simulated nvidia.com/gpu\n"
		"  --gpu-replicas R        time-slicing: each GPU counts as R (default 1)\n"
		"  --gpu-quiet-period S    seconds without a critical XID before a GPU is healthy again\n"
		"  --log-port PORT         container log endpoint port (default: any free port)\n"
		"  --backoff-base-ms MS    restart back-off base (default 10000)\n"
		"  --backoff-max-ms MS     restart back-off cap (default 300000)\n"
		"  --system-reserved-cpu Q      cpu kept from allocatable (e.g. 500m)\n"
		"  --system-reserved-memory Q   memory kept from allocatable (e.g. 512Mi)\n"
		"  --container-log-max-size Q   rotate a container log above this size (default 10Mi)\n"
		"  --container-log-max-files N  rotated files kept per container (default 5)\n"
		"  --image-gc-high-threshold P  remove unused images when the image filesystem is P%% full\n"
		"                               (default 85; 100 disables image GC)\n"
		"  --image-gc-low-threshold P   ... until it is below P%% (default 80)\n"
		"  --cluster-dns IP        the pods' nameserver (default: the ConfigMap kube-system/skiff-network's\n"
		"                          clusterDNS, else 10.43.0.10)\n"
		"  --cluster-domain NAME   the cluster's DNS domain (default: its clusterDomain, else cluster.local)\n"
		"  --resolv-conf FILE      the host's resolver configuration: Default pods' DNS, the host's search\n"
		"                          domains and the cluster DNS's forwarders (default /etc/resolv.conf)\n"
		"  --no-dns                serve no cluster DNS on the pod bridge's gateway address\n"
		"  --no-proxy              no Service dataplane (nftables table ip skiff-<bridge>)\n"
		"  --cluster-cidr CIDR     the cluster's pod network (default: kube-system/skiff-network)\n"
		"  --service-cidr CIDR     the Service ClusterIP range (default: kube-system/skiff-network)\n"
		"  --control-plane         label the node as a control-plane node\n"
		"  -v, --verbose           debug logging\n"
		"  -h, --help              this help\n");
}

static char *read_trimmed(const char *path)
{
	char *s = sk_read_file(path, NULL);

	if (!s)
		die("cannot read \"%s\"", path);
	s[strcspn(s, "\r\n")] = '\0';
	return s;
}

int sk_cmd_agent(int argc, char **argv)
{
	static const struct option opts[] = {
		{"server", required_argument, NULL, 's'},
		{"token", required_argument, NULL, 't'},
		{"cert-expiration", required_argument, NULL, 'E'},
		{"kubeconfig", required_argument, NULL, 'k'},
		{"ca-file", required_argument, NULL, 'c'},
		{"data-dir", required_argument, NULL, 'd'},
		{"run-dir", required_argument, NULL, 'r'},
		{"node-name", required_argument, NULL, 'N'},
		{"pod-cidr", required_argument, NULL, 'p'},
		{"bridge", required_argument, NULL, 'b'},
		{"node-ip", required_argument, NULL, 'I'},
		{"simulate-gpus", required_argument, NULL, 'g'},
		{"log-port", required_argument, NULL, 'l'},
		{"backoff-base-ms", required_argument, NULL, 'B'},
		{"backoff-max-ms", required_argument, NULL, 'M'},
		{"system-reserved-cpu", required_argument, NULL, 'C'},
		{"system-reserved-memory", required_argument, NULL, 'R'},
		{"control-plane", no_argument, NULL, 'P'},
		{"container-log-max-size", required_argument, NULL, 'L'},
		{"container-log-max-files", required_argument, NULL, 'F'},
		{"gpu-replicas", required_argument, NULL, 'G'},
		{"gpu-quiet-period", required_argument, NULL, 'Q'},
		{"image-gc-high-threshold", required_argument, NULL, 'H'},
		{"image-gc-low-threshold", required_argument, NULL, 'W'},
		{"cluster-dns", required_argument, NULL, 'D'},
		{"cluster-domain", required_argument, NULL, 'O'},
		{"resolv-conf", required_argument, NULL, 'V'},
		{"no-dns", no_argument, NULL, 'Z'},
		{"no-proxy", no_argument, NULL, 'X'},
		{"cluster-cidr", required_argument, NULL, 'K'},
		{"service-cidr", required_argument, NULL, 'S'},
		{"verbose", no_argument, NULL, 'v'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	sk_agent_options o = {0};
	const char *server = NULL, *token = NULL, *kubeconfig = NULL, *ca_file = NULL;
	char host[256] = "";
	cleanup_free char *ca = NULL, *tok = NULL, *join_ca = NULL, *kube_ca = NULL;
	sk_nodecert *nc = NULL;
	sk_server_follower *follower;
	long long cert_secs = 0;
	sk_error_t err = {0};
	sk_client *client;
	sk_agent *agent;
	sigset_t set;
	uint32_t ip4;
	int c, sig;

	while ((c = getopt_long(argc, argv, "vh", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			server = optarg;
			break;
		case 't':
			token = optarg;
			break;
		case 'E':
			cert_secs = atoll(optarg);
			if (cert_secs < 600)
				die("--cert-expiration \"%s\": want at least 600 seconds", optarg);
			break;
		case 'k':
			kubeconfig = optarg;
			break;
		case 'c':
			ca_file = optarg;
			break;
		case 'd':
			o.data_dir = optarg;
			break;
		case 'r':
			o.run_dir = optarg;
			break;
		case 'N':
			o.node_name = optarg;
			break;
		case 'p':
			o.pod_cidr = optarg;
			break;
		case 'b':
			o.bridge = optarg;
			break;
		case 'I':
			o.node_ip = optarg;
			if (sk_kube_ip4_parse(optarg, &ip4, NULL) < 0)
				die("--node-ip \"%s\": not an IPv4 address", optarg);
			break;
		case 'g':
			o.simulate_gpus = atoi(optarg);
			break;
		case 'l':
			o.log_port = atoi(optarg);
			break;
		case 'B':
			o.backoff_base_ms = atoi(optarg);
			break;
		case 'M':
			o.backoff_max_ms = atoi(optarg);
			break;
		case 'C':
			if (sk_quantity_milli(optarg, &o.reserved_cpu_milli) < 0)
				die("--system-reserved-cpu \"%s\": not a quantity", optarg);
			break;
		case 'R':
			if (sk_quantity_value(optarg, &o.reserved_memory) < 0)
				die("--system-reserved-memory \"%s\": not a quantity", optarg);
			break;
		case 'P':
			o.control_plane = true;
			break;
		case 'L':
			if (sk_quantity_value(optarg, &o.log_max_size) < 0)
				die("--container-log-max-size \"%s\": not a quantity", optarg);
			break;
		case 'F':
			o.log_max_files = atoi(optarg);
			break;
		case 'G':
			o.gpu_replicas = atoi(optarg);
			break;
		case 'Q':
			o.gpu_quiet_period_s = atoi(optarg);
			break;
		case 'H':
			o.image_gc_high_percent = atoi(optarg);
			break;
		case 'W':
			o.image_gc_low_percent = atoi(optarg);
			break;
		case 'D':
			o.cluster_dns = optarg;
			break;
		case 'O':
			o.cluster_domain = optarg;
			break;
		case 'V':
			o.resolv_conf = optarg;
			break;
		case 'Z':
			o.no_dns = true;
			break;
		case 'X':
			o.no_proxy = true;
			break;
		case 'K':
			o.cluster_cidr = optarg;
			break;
		case 'S':
			o.service_cidr = optarg;
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
	if (optind < argc || !o.data_dir || (!kubeconfig && !server)) {
		usage(stderr);
		return 2;
	}
	if (token && token[0] == '@')
		token = tok = read_trimmed(token + 1);
	/* blocked before any thread starts (the node certificate's rotation, the
	 * client's), so only sigwait below takes SIGTERM: a thread started with
	 * it unblocked would let the default action kill the agent mid-way */
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	signal(SIGPIPE, SIG_IGN);
	if (ca_file && !(ca = sk_read_file(ca_file, NULL)))
		die("cannot read \"%s\"", ca_file);
	if (kubeconfig) {
		client = sk_client_new_kubeconfig(kubeconfig, &err);
	} else if (!token) {
		client = sk_client_new_http(server, NULL, ca, &err);
	} else {
		client = sk_client_join(server, token, ca, &join_ca, &err);
	}
	if (!client)
		die("%s", err.msg);
	if (!o.node_name) {
		gethostname(host, sizeof(host) - 1);
		o.node_name = host;
	}
	if (!kubeconfig && token) {
		/* the token is a bootstrap credential: the node's own is a certificate */
		sk_nodecert_options no = {.server = server,
					  .ca_pem = join_ca ? join_ca : ca,
					  .data_dir = o.data_dir,
					  .node_name = o.node_name,
					  .bootstrap = client,
					  .expiration_secs = cert_secs};

		nc = sk_nodecert_start(&no, &err);
		sk_client_free(client);
		if (!nc)
			die("%s", err.msg);
		client = sk_nodecert_client(nc);
	}
	/* the CA the API server's certificate on the HTTPS endpoint comes from */
	if (join_ca)
		o.ca_pem = join_ca;
	else if (ca)
		o.ca_pem = ca;
	else if (kubeconfig)
		o.ca_pem = kube_ca = sk_client_ca_pem(client);
	/* the servers that join later, from default/kubernetes */
	follower = sk_server_follower_start(client, &err);
	if (!follower)
		die("%s", err.msg);
	agent = sk_agent_start(client, &o, &err);
	if (!agent)
		die("%s", err.msg);
	sigwait(&set, &sig);
	sk_info("agent", "received %s, shutting down (containers keep running)", sig == SIGTERM ? "SIGTERM" : "SIGINT");
	sk_agent_stop(agent);
	sk_server_follower_stop(follower);
	if (nc)
		sk_nodecert_stop(nc);
	else
		sk_client_free(client);
	return 0;
}
