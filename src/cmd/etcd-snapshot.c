/* skiff etcd-snapshot save: a snapshot of the etcd the server stores in
 * (k3s's `etcd-snapshot save`, etcdctl's `snapshot save`). */
#include <getopt.h>
#include <stdio.h>

#include "cmd/cmd.h"
#include "store/store.h"
#include "util/util.h"

static void usage(FILE *f)
{
	fprintf(f, "Usage: skiff etcd-snapshot save --datastore-endpoint etcd://HOST:PORT[,...] [options] FILE\n\n"
		   "Saves a snapshot of etcd's database to FILE, as `etcdctl snapshot save` does (restore it with\n"
		   "`etcdctl snapshot restore`).\n\n"
		   "Options:\n"
		   "  --datastore-endpoint URI  the etcd the server stores in\n"
		   "  --datastore-cafile F, --datastore-certfile F, --datastore-keyfile F  PEM files for https\n"
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

int sk_cmd_etcd_snapshot(int argc, char **argv)
{
	return sk_cmd_verb("etcd-snapshot", argc, argv, "save", snapshot_save, usage);
}
