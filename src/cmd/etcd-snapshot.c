/* skiff etcd-snapshot save|restore: a snapshot of the etcd the server stores
 * in (k3s's `etcd-snapshot save`, etcdctl's `snapshot save`), and its
 * restore into a new member data directory (etcdctl's `snapshot restore`). */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "store/store.h"
#include "util/util.h"

static void usage(FILE *f)
{
	fprintf(f, "Usage: skiff etcd-snapshot save --datastore-endpoint etcd://HOST:PORT[,...] [options] FILE\n"
		   "       skiff etcd-snapshot restore FILE --data-dir DIR [options]\n\n"
		   "save: saves a snapshot of etcd's database to FILE, as `etcdctl snapshot save` does.\n"
		   "restore: restores FILE into DIR, a new etcd member data directory, with `etcdctl snapshot\n"
		   "restore` (Debian package etcd-client); start etcd with --data-dir DIR and the same --name\n"
		   "and --initial-advertise-peer-urls. Every key keeps its revision (resourceVersion).\n\n"
		   "Options of save:\n"
		   "  --datastore-endpoint URI  the etcd the server stores in\n"
		   "  --datastore-cafile F, --datastore-certfile F, --datastore-keyfile F  PEM files for https\n"
		   "Options of restore (etcdctl's; its defaults when left out):\n"
		   "  --data-dir DIR        the new member's data directory: absent or empty\n"
		   "  --name NAME           the member's name (default \"default\")\n"
		   "  --initial-cluster C   NAME=PEER-URL,... (default default=http://localhost:2380)\n"
		   "  --initial-advertise-peer-urls URLS  this member's peer URLs (default http://localhost:2380)\n"
		   "  --initial-cluster-token T  the restored cluster's token (default etcd-cluster)\n"
		   "  --skip-hash-check     restore a database copied from a data directory (no SHA-256 appended)\n"
		   "  -h, --help            this help\n");
}

static int snapshot_save(int argc, char **argv)
{
	static const struct option opts[] = {
		{"datastore-endpoint", required_argument, NULL, 'e'},
		{"datastore-cafile", required_argument, NULL, 'c'},
		{"datastore-certfile", required_argument, NULL, 'C'},
		{"datastore-keyfile", required_argument, NULL, 'k'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	sk_store_options so = {0};
	const char *uri = NULL;
	sk_error_t err = {0};
	int c;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'e':
			uri = optarg;
			break;
		case 'c':
			so.tls_ca = optarg;
			break;
		case 'C':
			so.tls_cert = optarg;
			break;
		case 'k':
			so.tls_key = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (!uri || optind != argc - 1) {
		usage(stderr);
		return 2;
	}
	if (sk_store_etcd_snapshot(uri, &so, argv[optind], &err) < 0)
		die("etcd-snapshot: %s", err.msg);
	printf("Snapshot saved at %s\n", argv[optind]);
	return 0;
}

static int snapshot_restore(int argc, char **argv)
{
	static const struct option opts[] = {
		{"data-dir", required_argument, NULL, 'd'},
		{"name", required_argument, NULL, 'n'},
		{"initial-cluster", required_argument, NULL, 'i'},
		{"initial-advertise-peer-urls", required_argument, NULL, 'a'},
		{"initial-cluster-token", required_argument, NULL, 't'},
		{"skip-hash-check", no_argument, NULL, 's'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	sk_etcd_restore_options o = {0};
	sk_error_t err = {0};
	int c;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			o.data_dir = optarg;
			break;
		case 'n':
			o.name = optarg;
			break;
		case 'i':
			o.initial_cluster = optarg;
			break;
		case 'a':
			o.initial_advertise_peer_urls = optarg;
			break;
		case 't':
			o.initial_cluster_token = optarg;
			break;
		case 's':
			o.skip_hash_check = 1;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (!o.data_dir || !*o.data_dir || optind != argc - 1) {
		fprintf(stderr, "skiff etcd-snapshot restore: want one snapshot FILE and --data-dir DIR\n");
		usage(stderr);
		return 2;
	}
	o.snapshot = argv[optind];
	if (sk_etcd_restore(&o, &err) < 0)
		die("etcd-snapshot restore: %s", err.msg);
	printf("Snapshot %s restored into %s (member %s)\n", o.snapshot, o.data_dir, o.name ? o.name : "default");
	return 0;
}

int sk_cmd_etcd_snapshot(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "restore"))
		return snapshot_restore(argc - 1, argv + 1);
	return sk_cmd_verb("etcd-snapshot", argc, argv, "save", snapshot_save, usage);
}
