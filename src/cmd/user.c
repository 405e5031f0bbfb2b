#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "api/tls.h"
#include "cmd/cmd.h"
#include "util/util.h"

#define ONE_YEAR (365LL * 24 * 3600)

static void usage(FILE *f)
{
	fprintf(f, "Usage: skiff user add NAME [--group G]... [--namespace NS] [--out FILE] [--data-dir DIR]\n\n"
		   "Writes a kubeconfig for the person NAME: a client certificate signed by the cluster's CA\n"
		   "(common name NAME, an organization for each group, valid for one year) and its key, the\n"
		   "server's URL and CA. What NAME may do is up to the cluster's authorization (RBAC).\n\n"
		   "Options:\n"
		   "  --group G             a group of the user (repeatable)\n"
		   "  --namespace NS        the context's default namespace\n"
		   "  --out FILE            where to write it (default ./NAME.kubeconfig; mode 0600)\n"
		   "  --server URL          the server's URL (default: the one in DIR/kubeconfig)\n"
		   "  --data-dir DIR        the server's state directory (default /var/lib/skiff)\n"
		   "  -h, --help            this help\n");
}

/* The "server: URL" line of the admin kubeconfig the server wrote. */
static char *server_url(const char *dir)
{
	cleanup_free char *kc = xasprintf("%s/kubeconfig", dir);
	cleanup_free char *text = sk_read_file(kc, NULL);
	char *p = text ? strstr(text, "server: ") : NULL;

	if (!p)
		die("no server URL: \"%s\" is missing or names none; pass --server URL", kc);
	p += 8;
	return xstrndup(p, strcspn(p, "\r\n"));
}

static int user_add(int argc, char **argv)
{
	static const struct option opts[] = {
		{"group", required_argument, NULL, 'g'},
		{"namespace", required_argument, NULL, 'n'},
		{"out", required_argument, NULL, 'o'},
		{"server", required_argument, NULL, 's'},
		{"data-dir", required_argument, NULL, 'd'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *dir = "/var/lib/skiff", *ns = NULL, *out = NULL, *server = NULL, *name;
	cleanup_free const char **groups = xzalloc(sizeof(*groups) * (size_t)(argc + 1));
	cleanup_free char *ca_path = NULL, *key_path = NULL, *ca = NULL, *url = NULL, *def_out = NULL;
	cleanup_free char *cert = NULL, *key = NULL, *doc = NULL;
	sk_error_t err = {0};
	size_t ng = 0;
	int c;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'g':
			if (!*optarg)
				die("--group: empty group name");
			groups[ng++] = optarg;
			break;
		case 'n':
			ns = optarg;
			break;
		case 'o':
			out = optarg;
			break;
		case 's':
			server = optarg;
			break;
		case 'd':
			dir = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind + 1 != argc) {
		fprintf(stderr, "skiff user add: want one user NAME\n");
		usage(stderr);
		return 2;
	}
	name = argv[optind];
	if (!*name || strchr(name, '/'))
		die("user name \"%s\": want a non-empty name without '/'", name);
	ca_path = xasprintf("%s/tls/ca.crt", dir);
	key_path = xasprintf("%s/tls/ca.key", dir);
	if (access(ca_path, F_OK) < 0 || access(key_path, F_OK) < 0)
		die("no cluster CA in \"%s/tls\" (ca.crt and ca.key): start `skiff server --data-dir %s` once to "
		    "make it, or pass the server's --data-dir",
		    dir, dir);
	if (access(key_path, R_OK) < 0)
		die("cannot read the CA key \"%s\": %s (run as the user that runs the server)", key_path,
		    strerror(errno));
	ca = sk_read_file(ca_path, NULL);
	if (!ca)
		die("reading \"%s\": %s", ca_path, strerror(errno));
	url = server ? xstrdup(server) : server_url(dir);
	if (sk_tls_issue_client(dir, name, groups, ONE_YEAR, &cert, &key, &err) < 0)
		die("%s", err.msg);
	doc = sk_tls_user_kubeconfig(url, ca, name, cert, key, ns);
	if (!out)
		out = def_out = xasprintf("%s.kubeconfig", name);
	if (sk_write_file(out, doc, strlen(doc), 0600) < 0)
		die("writing \"%s\": %s", out, strerror(errno));
	printf("wrote a kubeconfig for user \"%s\" to %s\n", name, out);
	return 0;
}

/* skiff user add NAME …: a person's kubeconfig (their client certificate). */
int sk_cmd_user(int argc, char **argv) { return sk_cmd_verb("user", argc, argv, "add", user_add, usage); }
