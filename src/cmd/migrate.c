/* skiff migrate --from sqlite DIR --to etcd://...: copies a stopped SQLite
 * cluster's objects into an empty etcd, keeping their uids and the order of
 * their resourceVersions (src/store/migrate.c). */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "store/store.h"
#include "util/util.h"

static void usage(FILE *f)
{
	fprintf(f, "Usage: skiff migrate --from sqlite DIR --to etcd://HOST:PORT[,HOST:PORT...][/ROOT] [options]\n\n"
		   "Copies every object of the stopped SQLite cluster whose server data directory is DIR into\n"
		   "etcd, under the keys the server on etcd uses (/registry/<resource>/<ns>/<name>). Objects\n"
		   "keep their uid and are written in the order of their last change, so their\n"
		   "resourceVersions (etcd's revisions) keep their order. DIR is left as it was; afterwards\n"
		   "start the server with `skiff server --data-dir DIR --datastore-endpoint etcd://...`\n"
		   "(its certificates, keys and tokens stay in DIR).\n\n"
		   "Options:\n"
		   "  --from sqlite DIR     the source: a SQLite server's --data-dir (its server stopped)\n"
		   "  --to URI              the target etcd, empty under ROOT (default: no ROOT)\n"
		   "  --datastore-cafile F, --datastore-certfile F, --datastore-keyfile F  PEM files to\n"
		   "                        talk https to etcd (CA bundle, client certificate and key)\n"
		   "  --force               delete what the target holds under ROOT before copying\n"
		   "  -h, --help            this help\n");
}

struct progress {
	int64_t t0, last;
};

static double secs_since(int64_t t0) { return (double)(sk_mono_ns() - t0) / 1e9; }

static void on_progress(size_t done, size_t total, void *ud)
{
	struct progress *p = ud;
	int64_t now = sk_mono_ns();

	if (done != total && now - p->last < 1000000000LL)
		return;
	p->last = now;
	fprintf(stderr, "migrate: %zu/%zu objects copied (%.1fs)\n", done, total, secs_since(p->t0));
}

/* "--from sqlite DIR" or "--from sqlite://DIR" → the data directory. */
static const char *source_dir(const char *from, int argc, char **argv)
{
	if (!strncmp(from, "sqlite://", 9) && from[9])
		return optind == argc ? from + 9 : NULL;
	if (strcmp(from, "sqlite") != 0) {
		fprintf(stderr, "skiff migrate: --from: only sqlite is supported, got \"%s\"\n", from);
		return NULL;
	}
	return optind == argc - 1 ? argv[optind] : NULL;
}

int sk_cmd_migrate(int argc, char **argv)
{
	static const struct option opts[] = {
		{"from", required_argument, NULL, 'f'},
		{"to", required_argument, NULL, 't'},
		{"datastore-cafile", required_argument, NULL, 'c'},
		{"datastore-certfile", required_argument, NULL, 'C'},
		{"datastore-keyfile", required_argument, NULL, 'k'},
		{"force", no_argument, NULL, 'F'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct progress p = {0};
	sk_store_options so = {0};
	sk_store_copy_result res;
	const char *from = NULL, *to = NULL, *dir;
	sk_store *src, *dst;
	sk_error_t err = {0};
	int c, force = 0;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'f':
			from = optarg;
			break;
		case 't':
			to = optarg;
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
		case 'F':
			force = 1;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (!from || !to || !(dir = source_dir(from, argc, argv))) {
		usage(stderr);
		return 2;
	}
	if (strncmp(to, "etcd://", 7) != 0 || !to[7]) {
		fprintf(stderr, "skiff migrate: --to: want etcd://HOST:PORT[,...][/ROOT], got \"%s\"\n", to);
		return 2;
	}
	p.t0 = p.last = sk_mono_ns();
	if (!(src = sk_store_open_sqlite_existing(dir, &err)))
		die("migrate: %s", err.msg);
	if (!(dst = sk_store_open(to, &so, &err))) {
		sk_store_close(src);
		die("migrate: %s", err.msg);
	}
	fprintf(stderr, "migrate: copying %zu objects from %s (revision %lld) to %s\n", sk_store_count(src, ""), dir,
		(long long)sk_store_rev(src), to);
	if (sk_store_copy(src, dst, force, on_progress, &p, &res, &err) < 0) {
		sk_store_close(dst);
		sk_store_close(src);
		if (res.copied)
			die("migrate: %s (%zu of %zu objects copied: run again with --force)", err.msg, res.copied,
			    res.total);
		die("migrate: %s", err.msg);
	}
	sk_store_close(dst);
	sk_store_close(src);
	if (res.removed)
		fprintf(stderr, "migrate: --force removed %zu keys the target held\n", res.removed);
	printf("Migrated %zu objects from %s (SQLite revision %lld) to %s in %.1fs (etcd revisions %lld-%lld)\n",
	       res.copied, dir, (long long)res.source_rev, to, secs_since(p.t0), (long long)res.first_rev,
	       (long long)res.last_rev);
	return 0;
}
