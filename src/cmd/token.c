#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gnutls/crypto.h>
#include <gnutls/gnutls.h>

#include "client/client.h"
#include "client/jointoken.h"
#include "cmd/cmd.h"
#include "util/util.h"

#define DAY (24LL * 3600)

static void usage(FILE *f)
{
	fprintf(f, "Usage: skiff token create [--ttl DURATION] [--description TEXT] [--data-dir DIR]\n\n"
		   "Makes a bootstrap token (upstream's bootstrap.kubernetes.io/token Secret\n"
		   "kube-system/bootstrap-token-<id>) and prints the join token for `skiff agent --token`:\n"
		   "K10<sha256 of the cluster CA>::<id>.<secret>. An agent that joins with it may only ask\n"
		   "for its node's client certificate, which the cluster approves and signs.\n\n"
		   "Options:\n"
		   "  --ttl DURATION        how long the token authenticates: 30m, 24h, 7d, or 0 for ever\n"
		   "                        (default 24h)\n"
		   "  --description TEXT    a note kept in the Secret\n"
		   "  --data-dir DIR        the server's state directory (default /var/lib/skiff)\n"
		   "  -h, --help            this help\n");
}

/* "90s", "30m", "24h", "7d" or plain seconds; -1 when malformed. */
static long long parse_ttl(const char *s)
{
	char *end;
	long long v = strtoll(s, &end, 10);

	if (end == s || v < 0)
		return -1;
	if (!*end || !strcmp(end, "s"))
		return v;
	if (!strcmp(end, "m"))
		return v * 60;
	if (!strcmp(end, "h"))
		return v * 3600;
	if (!strcmp(end, "d"))
		return v * DAY;
	return -1;
}

/* n characters of [a-z0-9], as kubeadm's bootstraputil.GenerateBootstrapToken. */
static void random_chars(char *out, size_t n)
{
	static const char set[] = "abcdefghijklmnopqrstuvwxyz0123456789";
	unsigned char r[32];

	gnutls_rnd(GNUTLS_RND_KEY, r, n);
	for (size_t i = 0; i < n; i++)
		out[i] = set[r[i] % 36];
	out[n] = '\0';
}

static char *b64(const char *s)
{
	gnutls_datum_t in = {(unsigned char *)s, (unsigned)strlen(s)}, out = {NULL, 0};
	char *r;

	if (gnutls_base64_encode2(&in, &out) < 0)
		abort();
	r = xstrndup((char *)out.data, out.size);
	gnutls_free(out.data);
	return r;
}

/* data[key] = base64 of value, as a Secret's data holds it. */
static void put(json_t *data, const char *key, const char *value)
{
	cleanup_free char *v = b64(value);

	json_object_set_new(data, key, json_string(v));
}

static int token_create(int argc, char **argv)
{
	static const struct option opts[] = {
		{"ttl", required_argument, NULL, 't'},
		{"description", required_argument, NULL, 'D'},
		{"data-dir", required_argument, NULL, 'd'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *dir = "/var/lib/skiff", *desc = NULL;
	long long ttl = DAY;
	cleanup_free char *kc = NULL, *ca_path = NULL, *ca = NULL, *hash = NULL;
	cleanup_json json_t *secret = NULL, *out = NULL;
	char id[7], sec[17];
	sk_error_t err = {0};
	sk_client *c;
	json_t *data;
	int opt;

	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (opt) {
		case 't':
			if ((ttl = parse_ttl(optarg)) < 0)
				die("--ttl \"%s\": want a duration such as 30m, 24h, 7d or 0", optarg);
			break;
		case 'D':
			desc = optarg;
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
	if (optind != argc) {
		usage(stderr);
		return 2;
	}
	kc = xasprintf("%s/kubeconfig", dir);
	ca_path = xasprintf("%s/tls/ca.crt", dir);
	if (!(ca = sk_read_file(ca_path, NULL)))
		die("no cluster CA \"%s\": pass the server's --data-dir", ca_path);
	if (!(c = sk_client_new_kubeconfig(kc, &err)))
		die("%s", err.msg);
	random_chars(id, 6);
	random_chars(sec, 16);
	data = json_object();
	put(data, "token-id", id);
	put(data, "token-secret", sec);
	put(data, "usage-bootstrap-authentication", "true");
	put(data, "usage-bootstrap-signing", "true");
	if (ttl > 0) {
		char ts[32];

		sk_time_format(sk_now_ns() / 1000000000 + ttl, ts, sizeof(ts));
		put(data, "expiration", ts);
	}
	if (desc)
		put(data, "description", desc);
	{
		cleanup_free char *name = xasprintf("bootstrap-token-%s", id);

		secret = json_pack("{s:s, s:s, s:{s:s, s:s}, s:s, s:o}", "apiVersion", "v1", "kind", "Secret",
				   "metadata", "name", name, "namespace", "kube-system", "type",
				   "bootstrap.kubernetes.io/token", "data", data);
	}
	out = sk_client_create(c, "/api/v1/namespaces/kube-system/secrets", secret, &err);
	sk_client_free(c);
	if (!out)
		die("creating the bootstrap token: %s", err.msg);
	hash = sk_join_ca_hash(ca, strlen(ca));
	printf(SK_JOIN_TOKEN_PREFIX "%s::%s.%s\n", hash, id, sec);
	return 0;
}

/* skiff token create …: a bootstrap token for joining nodes. */
int sk_cmd_token(int argc, char **argv) { return sk_cmd_verb("token", argc, argv, "create", token_create, usage); }
