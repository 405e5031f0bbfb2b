/* First-start credentials of a server's data directory: a CA, a serving
 * certificate, the admin and node bearer tokens and the admin kubeconfig.
 * GnuTLS is skiff's one TLS library. */
#include <arpa/inet.h>
#include <errno.h>
#include <gnutls/crypto.h>
#include <gnutls/gnutls.h>
#include <gnutls/x509.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <string.h>
#include <sys/stat.h>

#include "api/tls.h"
#include "client/jointoken.h"
#include "util/util.h"

#define TEN_YEARS (10LL * 365 * 24 * 3600)

static int gnutls_fail(sk_error_t *err, int rc, const char *what)
{
	return sk_error_set(err, SK_EINTERNAL, "%s: %s", what, gnutls_strerror(rc));
}

static int new_key(gnutls_x509_privkey_t *key, sk_error_t *err)
{
	int rc = gnutls_x509_privkey_init(key);

	if (rc >= 0)
		rc = gnutls_x509_privkey_generate(*key, GNUTLS_PK_ECDSA,
						  GNUTLS_CURVE_TO_BITS(GNUTLS_ECC_CURVE_SECP256R1), 0);
	return rc < 0 ? gnutls_fail(err, rc, "generating key") : 0;
}

static void set_common(gnutls_x509_crt_t crt, const char *cn, int64_t now)
{
	unsigned char serial[16];

	gnutls_rnd(GNUTLS_RND_NONCE, serial, sizeof(serial));
	serial[0] &= 0x7f;
	gnutls_x509_crt_set_version(crt, 3);
	gnutls_x509_crt_set_serial(crt, serial, sizeof(serial));
	gnutls_x509_crt_set_activation_time(crt, (time_t)(now - 3600));
	gnutls_x509_crt_set_expiration_time(crt, (time_t)(now + TEN_YEARS));
	gnutls_x509_crt_set_dn_by_oid(crt, GNUTLS_OID_X520_COMMON_NAME, 0, cn, (unsigned)strlen(cn));
}

static int write_pem(const char *path, gnutls_x509_crt_t crt, gnutls_x509_privkey_t key, sk_error_t *err)
{
	gnutls_datum_t d = {NULL, 0};
	int rc = crt ? gnutls_x509_crt_export2(crt, GNUTLS_X509_FMT_PEM, &d)
		     : gnutls_x509_privkey_export2(key, GNUTLS_X509_FMT_PEM, &d);

	if (rc < 0)
		return gnutls_fail(err, rc, "exporting PEM");
	rc = sk_write_file(path, d.data, d.size, crt ? 0644 : 0600);
	gnutls_free(d.data);
	if (rc < 0)
		return sk_error_errno(err, errno, "writing \"%s\"", path);
	return 0;
}

static void add_san(gnutls_x509_crt_t crt, const char *host)
{
	unsigned char ip[16];

	if (inet_pton(AF_INET, host, ip) == 1)
		gnutls_x509_crt_set_subject_alt_name(crt, GNUTLS_SAN_IPADDRESS, ip, 4, GNUTLS_FSAN_APPEND);
	else if (inet_pton(AF_INET6, host, ip) == 1)
		gnutls_x509_crt_set_subject_alt_name(crt, GNUTLS_SAN_IPADDRESS, ip, 16, GNUTLS_FSAN_APPEND);
	else
		gnutls_x509_crt_set_subject_alt_name(crt, GNUTLS_SAN_DNSNAME, host, (unsigned)strlen(host),
						     GNUTLS_FSAN_APPEND);
}

/* With the wildcard address the server answers on every interface: each
 * IPv4 address the machine has now is a name of the certificate. */
static void add_local_addresses(gnutls_x509_crt_t crt)
{
	struct ifaddrs *ifs = NULL;
	char buf[INET_ADDRSTRLEN];

	if (getifaddrs(&ifs) < 0)
		return;
	for (struct ifaddrs *i = ifs; i; i = i->ifa_next) {
		if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET || (i->ifa_flags & IFF_LOOPBACK))
			continue;
		if (inet_ntop(AF_INET, &((struct sockaddr_in *)i->ifa_addr)->sin_addr, buf, sizeof(buf)))
			add_san(crt, buf);
	}
	freeifaddrs(ifs);
}

static int sign_server(const char *dir, gnutls_x509_crt_t ca, gnutls_x509_privkey_t cakey, const char *host,
		       const char *const *sans, sk_error_t *err)
{
	gnutls_x509_privkey_t key = NULL;
	gnutls_x509_crt_t crt = NULL;
	int64_t now = sk_now_ns() / 1000000000;
	cleanup_free char *p3 = xasprintf("%s/tls/server.crt", dir), *p4 = xasprintf("%s/tls/server.key", dir);
	int rc = -1;

	if (new_key(&key, err) < 0)
		goto out;
	gnutls_x509_crt_init(&crt);
	set_common(crt, "skiff-apiserver", now);
	gnutls_x509_crt_set_key(crt, key);
	gnutls_x509_crt_set_basic_constraints(crt, 0, -1);
	gnutls_x509_crt_set_key_usage(crt, GNUTLS_KEY_DIGITAL_SIGNATURE | GNUTLS_KEY_KEY_ENCIPHERMENT);
	gnutls_x509_crt_set_key_purpose_oid(crt, GNUTLS_KP_TLS_WWW_SERVER, 0);
	add_san(crt, "127.0.0.1");
	add_san(crt, "localhost");
	add_san(crt, "::1");
	if (strcmp(host, "127.0.0.1") && strcmp(host, "localhost") && strcmp(host, "0.0.0.0") && *host)
		add_san(crt, host);
	if (!strcmp(host, "0.0.0.0") || !*host)
		add_local_addresses(crt);
	for (size_t i = 0; sans && sans[i]; i++)
		if (strcmp(sans[i], host) && strcmp(sans[i], "127.0.0.1"))
			add_san(crt, sans[i]);
	if ((rc = gnutls_x509_crt_sign2(crt, ca, cakey, GNUTLS_DIG_SHA256, 0)) < 0) {
		rc = gnutls_fail(err, rc, "signing the serving certificate");
		goto out;
	}
	rc = -1;
	if (write_pem(p3, crt, NULL, err) < 0 || write_pem(p4, NULL, key, err) < 0)
		goto out;
	rc = 0;
out:
	if (crt)
		gnutls_x509_crt_deinit(crt);
	if (key)
		gnutls_x509_privkey_deinit(key);
	return rc;
}

/* A new self-signed CA named cn, written to crt_path and key_path; kept
 * loaded in *ca and *cakey when they are not NULL. */
static int write_ca(const char *crt_path, const char *key_path, const char *cn, gnutls_x509_crt_t *ca_out,
		    gnutls_x509_privkey_t *key_out, sk_error_t *err)
{
	gnutls_x509_privkey_t cakey = NULL;
	gnutls_x509_crt_t ca = NULL;
	int64_t now = sk_now_ns() / 1000000000;
	int rc = -1;

	if (new_key(&cakey, err) < 0)
		goto out;
	gnutls_x509_crt_init(&ca);
	set_common(ca, cn, now);
	gnutls_x509_crt_set_key(ca, cakey);
	gnutls_x509_crt_set_basic_constraints(ca, 1, -1);
	gnutls_x509_crt_set_key_usage(ca,
				      GNUTLS_KEY_KEY_CERT_SIGN | GNUTLS_KEY_CRL_SIGN | GNUTLS_KEY_DIGITAL_SIGNATURE);
	if ((rc = gnutls_x509_crt_sign2(ca, ca, cakey, GNUTLS_DIG_SHA256, 0)) < 0) {
		rc = gnutls_fail(err, rc, "signing the CA");
		goto out;
	}
	rc = -1;
	if (write_pem(crt_path, ca, NULL, err) < 0 || write_pem(key_path, NULL, cakey, err) < 0)
		goto out;
	rc = 0;
	if (ca_out && key_out) {
		*ca_out = ca;
		*key_out = cakey;
		ca = NULL;
		cakey = NULL;
	}
out:
	if (ca)
		gnutls_x509_crt_deinit(ca);
	if (cakey)
		gnutls_x509_privkey_deinit(cakey);
	return rc;
}

static int make_certs(const char *dir, const char *host, const char *const *sans, sk_error_t *err)
{
	gnutls_x509_privkey_t cakey = NULL;
	gnutls_x509_crt_t ca = NULL;
	cleanup_free char *p1 = xasprintf("%s/tls/ca.crt", dir), *p2 = xasprintf("%s/tls/ca.key", dir);
	int rc;

	if (write_ca(p1, p2, "skiff-ca", &ca, &cakey, err) < 0)
		return -1;
	rc = sign_server(dir, ca, cakey, host, sans, err);
	gnutls_x509_crt_deinit(ca);
	gnutls_x509_privkey_deinit(cakey);
	return rc;
}

/* Whether the certificate at path names every one of sans (an IP address
 * as an IP SAN, anything else as a DNS name). */
static int has_sans(const char *path, const char *const *sans)
{
	size_t len;
	cleanup_free char *pem = sk_read_file(path, &len);
	gnutls_datum_t d = {(unsigned char *)pem, (unsigned)len};
	gnutls_x509_crt_t crt = NULL;
	int all = 1;

	if (!pem || gnutls_x509_crt_init(&crt) < 0)
		return 0;
	if (gnutls_x509_crt_import(crt, &d, GNUTLS_X509_FMT_PEM) < 0) {
		gnutls_x509_crt_deinit(crt);
		return 0;
	}
	for (size_t i = 0; sans && sans[i] && all; i++) {
		unsigned char want[16];
		int ip = inet_pton(AF_INET, sans[i], want) == 1 ? 4 : inet_pton(AF_INET6, sans[i], want) == 1 ? 16 : 0;
		int found = 0;

		for (unsigned seq = 0; !found; seq++) {
			char buf[512];
			size_t n = sizeof(buf);
			unsigned crit;
			int type = gnutls_x509_crt_get_subject_alt_name(crt, seq, buf, &n, &crit);

			if (type < 0 && type != GNUTLS_E_SHORT_MEMORY_BUFFER)
				break;
			if (ip && type == GNUTLS_SAN_IPADDRESS && n == (size_t)ip && !memcmp(buf, want, n))
				found = 1;
			else if (!ip && type == GNUTLS_SAN_DNSNAME && n == strlen(sans[i]) && !memcmp(buf, sans[i], n))
				found = 1;
		}
		all = found;
	}
	gnutls_x509_crt_deinit(crt);
	return all;
}

static int load_pem(const char *path, gnutls_x509_crt_t *crt, gnutls_x509_privkey_t *key, sk_error_t *err)
{
	size_t len;
	cleanup_free char *pem = sk_read_file(path, &len);
	gnutls_datum_t d = {(unsigned char *)pem, (unsigned)len};
	int rc;

	if (!pem)
		return sk_error_errno(err, errno, "reading \"%s\"", path);
	if (crt) {
		gnutls_x509_crt_init(crt);
		rc = gnutls_x509_crt_import(*crt, &d, GNUTLS_X509_FMT_PEM);
	} else {
		gnutls_x509_privkey_init(key);
		rc = gnutls_x509_privkey_import(*key, &d, GNUTLS_X509_FMT_PEM);
	}
	return rc < 0 ? gnutls_fail(err, rc, path) : 0;
}

/* A serving certificate of an older start that lacks a name is issued
 * again by the same CA (clients' kubeconfigs keep working). */
static int reissue(const char *dir, const char *host, const char *const *sans, const char *why, sk_error_t *err)
{
	cleanup_free char *p1 = xasprintf("%s/tls/ca.crt", dir), *p2 = xasprintf("%s/tls/ca.key", dir);
	gnutls_x509_crt_t ca = NULL;
	gnutls_x509_privkey_t cakey = NULL;
	int rc = -1;

	if (load_pem(p1, &ca, NULL, err) == 0 && load_pem(p2, NULL, &cakey, err) == 0)
		rc = sign_server(dir, ca, cakey, host, sans, err);
	if (ca)
		gnutls_x509_crt_deinit(ca);
	if (cakey)
		gnutls_x509_privkey_deinit(cakey);
	if (rc == 0)
		sk_info("tls", "serving certificate issued %s", why);
	return rc;
}

static char *new_token(void)
{
	unsigned char b[24];
	char *s = xmalloc(sizeof(b) * 2 + 1);

	gnutls_rnd(GNUTLS_RND_KEY, b, sizeof(b));
	for (size_t i = 0; i < sizeof(b); i++)
		snprintf(s + 2 * i, 3, "%02x", b[i]);
	return s;
}

static char *load_or_make_token(const char *path, sk_error_t *err)
{
	char *t = sk_read_file(path, NULL);

	if (t) {
		t[strcspn(t, "\r\n")] = '\0';
		if (!*t) {
			free(t);
			sk_error_set(err, SK_EINVALID,
				     "token file \"%s\" is empty: put a token in it, or remove it to have one made",
				     path);
			return NULL;
		}
		return t;
	}
	t = new_token();
	if (sk_write_file(path, t, strlen(t), 0600) < 0) {
		sk_error_errno(err, errno, "writing \"%s\"", path);
		free(t);
		return NULL;
	}
	return t;
}

static int write_kubeconfig(const char *dir, const char *server, const char *ca_pem, const char *token, sk_error_t *err)
{
	gnutls_datum_t in = {(unsigned char *)ca_pem, (unsigned)strlen(ca_pem)}, out = {NULL, 0};
	cleanup_free char *path = xasprintf("%s/kubeconfig", dir);
	cleanup_free char *doc = NULL;
	int rc;

	if (gnutls_base64_encode2(&in, &out) < 0)
		return sk_error_set(err, SK_EINTERNAL, "encoding the CA");
	doc = xasprintf("apiVersion: v1\nkind: Config\nclusters:\n- name: skiff\n  cluster:\n"
			"    server: %s\n    certificate-authority-data: %.*s\n"
			"contexts:\n- name: skiff\n  context:\n    cluster: skiff\n    user: admin\n"
			"current-context: skiff\nusers:\n- name: admin\n  user:\n    token: %s\n",
			server, (int)out.size, out.data, token);
	gnutls_free(out.data);
	rc = sk_write_file(path, doc, strlen(doc), 0600);
	if (rc < 0)
		return sk_error_errno(err, errno, "writing \"%s\"", path);
	return 0;
}

/* DIR/node-token holds the join token "K10<CA hash>::node:<secret>" (the
 * secret is the node's bearer token); a plain token from before is kept as
 * the secret and the file rewritten in the full form. */
static char *load_or_make_node_token(const char *path, const char *ca_pem, sk_error_t *err)
{
	cleanup_free char *cur = sk_read_file(path, NULL), *full = NULL;
	sk_join_token jt = {0};
	char *secret;

	if (cur)
		cur[strcspn(cur, "\r\n")] = '\0';
	if (cur && !*cur) {
		sk_error_set(err, SK_EINVALID,
			     "token file \"%s\" is empty: put a token in it, or remove it to have one made", path);
		return NULL;
	}
	if (cur && *cur && sk_join_token_parse(cur, &jt, NULL) == 0)
		secret = steal_ptr(&jt.secret);
	else
		secret = new_token();
	sk_join_token_release(&jt);
	full = sk_join_token_format(ca_pem, "node", secret);
	if ((!cur || strcmp(cur, full)) && sk_write_file(path, full, strlen(full), 0600) < 0) {
		sk_error_errno(err, errno, "writing \"%s\"", path);
		free(secret);
		return NULL;
	}
	return secret;
}

int sk_tls_setup(sk_tls_files *t, const char *dir, const char *host, int port, const char *const *sans, sk_error_t *err)
{
	cleanup_free char *tlsdir = xasprintf("%s/tls", dir), *crt = xasprintf("%s/tls/server.crt", dir);
	cleanup_free char *adm = xasprintf("%s/token", dir), *node = xasprintf("%s/node-token", dir);
	cleanup_free char *server = NULL;
	const char *h = !strcmp(host, "0.0.0.0") || !*host ? "127.0.0.1" : host;
	struct stat st;

	memset(t, 0, sizeof(*t));
	if (sk_mkdir_p(tlsdir, 0700) < 0)
		return sk_error_errno(err, errno, "creating \"%s\"", tlsdir);
	if (stat(crt, &st) < 0) {
		cleanup_free char *ca = xasprintf("%s/tls/ca.key", dir);

		/* a CA shared with another server (--join-from) issues this one's */
		if (stat(ca, &st) == 0 ? reissue(dir, host, sans, "by the shared cluster CA", err) < 0
				       : make_certs(dir, host, sans, err) < 0)
			return -1;
	} else if (!has_sans(crt, sans) &&
		   reissue(dir, host, sans, "again: it lacked a name of the kubernetes Service", err) < 0) {
		return -1;
	}
	{
		cleanup_free char *ca = xasprintf("%s/tls/ca.crt", dir), *key = xasprintf("%s/tls/server.key", dir);
		cleanup_free char *cakey = xasprintf("%s/tls/ca.key", dir);

		t->ca_pem = sk_read_file(ca, NULL);
		t->ca_key_pem = sk_read_file(cakey, NULL);
		t->cert_pem = sk_read_file(crt, NULL);
		t->key_pem = sk_read_file(key, NULL);
	}
	if (!t->ca_pem || !t->cert_pem || !t->key_pem || !t->ca_key_pem) {
		sk_tls_files_release(t);
		return sk_error_errno(err, errno, "reading certificates under \"%s\"", tlsdir);
	}
	t->admin_token = load_or_make_token(adm, err);
	t->node_token = t->admin_token ? load_or_make_node_token(node, t->ca_pem, err) : NULL;
	if (!t->node_token) {
		sk_tls_files_release(t);
		return -1;
	}
	server = strchr(h, ':') ? xasprintf("https://[%s]:%d", h, port) : xasprintf("https://%s:%d", h, port);
	if (write_kubeconfig(dir, server, t->ca_pem, t->admin_token, err) < 0) {
		sk_tls_files_release(t);
		return -1;
	}
	return 0;
}

static int export_pem(gnutls_x509_crt_t crt, gnutls_x509_privkey_t key, char **out, sk_error_t *err)
{
	gnutls_datum_t d = {NULL, 0};
	int rc = crt ? gnutls_x509_crt_export2(crt, GNUTLS_X509_FMT_PEM, &d)
		     : gnutls_x509_privkey_export2(key, GNUTLS_X509_FMT_PEM, &d);

	if (rc < 0)
		return gnutls_fail(err, rc, "exporting PEM");
	*out = xstrndup((const char *)d.data, d.size);
	gnutls_free(d.data);
	return 0;
}

static int issue_client(const char *p1, const char *p2, const char *cn, const char *const *orgs, int64_t secs,
			char **cert_pem, char **key_pem, sk_error_t *err)
{
	gnutls_x509_crt_t ca = NULL, crt = NULL;
	gnutls_x509_privkey_t cakey = NULL, key = NULL;
	int64_t now = sk_now_ns() / 1000000000;
	int rc = -1;

	*cert_pem = *key_pem = NULL;
	if (load_pem(p1, &ca, NULL, err) < 0 || load_pem(p2, NULL, &cakey, err) < 0 || new_key(&key, err) < 0)
		goto out;
	gnutls_x509_crt_init(&crt);
	set_common(crt, cn, now);
	gnutls_x509_crt_set_expiration_time(crt, (time_t)(now + secs));
	for (size_t i = 0; orgs && orgs[i]; i++)
		gnutls_x509_crt_set_dn_by_oid(crt, GNUTLS_OID_X520_ORGANIZATION_NAME, 0, orgs[i],
					      (unsigned)strlen(orgs[i]));
	gnutls_x509_crt_set_key(crt, key);
	gnutls_x509_crt_set_basic_constraints(crt, 0, -1);
	gnutls_x509_crt_set_key_usage(crt, GNUTLS_KEY_DIGITAL_SIGNATURE | GNUTLS_KEY_KEY_ENCIPHERMENT);
	gnutls_x509_crt_set_key_purpose_oid(crt, GNUTLS_KP_TLS_WWW_CLIENT, 0);
	if ((rc = gnutls_x509_crt_sign2(crt, ca, cakey, GNUTLS_DIG_SHA256, 0)) < 0) {
		rc = gnutls_fail(err, rc, "signing the client certificate");
		goto out;
	}
	rc = -1;
	if (export_pem(crt, NULL, cert_pem, err) < 0 || export_pem(NULL, key, key_pem, err) < 0)
		goto out;
	rc = 0;
out:
	if (rc < 0) {
		free(*cert_pem);
		free(*key_pem);
		*cert_pem = *key_pem = NULL;
	}
	if (crt)
		gnutls_x509_crt_deinit(crt);
	if (key)
		gnutls_x509_privkey_deinit(key);
	if (ca)
		gnutls_x509_crt_deinit(ca);
	if (cakey)
		gnutls_x509_privkey_deinit(cakey);
	return rc;
}

static char *b64(const char *s)
{
	gnutls_datum_t in = {(unsigned char *)s, (unsigned)strlen(s)}, out = {NULL, 0};
	char *r;

	if (gnutls_base64_encode2(&in, &out) < 0)
		abort(); /* only allocation fails */
	r = xstrndup((const char *)out.data, out.size);
	gnutls_free(out.data);
	return r;
}

char *sk_tls_user_kubeconfig(const char *server, const char *ca_pem, const char *user, const char *cert_pem,
			     const char *key_pem, const char *ns)
{
	cleanup_free char *ctx = xasprintf("%s@skiff", user);
	cleanup_free char *ca = b64(ca_pem), *crt = b64(cert_pem), *key = b64(key_pem);
	cleanup_json json_t *context = json_pack("{s:s,s:s}", "cluster", "skiff", "user", user);
	cleanup_json json_t *doc = NULL;
	char *text;

	if (ns && *ns)
		json_object_set_new(context, "namespace", json_string(ns));
	doc = json_pack("{s:s,s:s,s:[{s:s,s:{s:s,s:s}}],s:[{s:s,s:O}],s:s,s:{},s:[{s:s,s:{s:s,s:s}}]}", "apiVersion",
			"v1", "kind", "Config", "clusters", "name", "skiff", "cluster", "server", server,
			"certificate-authority-data", ca, "contexts", "name", ctx, "context", context,
			"current-context", ctx, "preferences", "users", "name", user, "user", "client-certificate-data",
			crt, "client-key-data", key);
	text = json_dumps(doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	return text;
}

void sk_tls_files_release(sk_tls_files *t)
{
	free(t->ca_pem);
	free(t->ca_key_pem);
	free(t->cert_pem);
	free(t->key_pem);
	free(t->admin_token);
	free(t->node_token);
	memset(t, 0, sizeof(*t));
}

int sk_tls_issue_client(const char *dir, const char *cn, const char *const *orgs, int64_t secs, char **cert_pem,
			char **key_pem, sk_error_t *err)
{
	cleanup_free char *p1 = xasprintf("%s/tls/ca.crt", dir), *p2 = xasprintf("%s/tls/ca.key", dir);

	return issue_client(p1, p2, cn, orgs, secs, cert_pem, key_pem, err);
}

int sk_tls_front_proxy(const char *dir, char **ca_pem, char **cert_pem, char **key_pem, sk_error_t *err)
{
	cleanup_free char *p1 = xasprintf("%s/tls/front-proxy-ca.crt", dir);
	cleanup_free char *p2 = xasprintf("%s/tls/front-proxy-ca.key", dir);
	size_t len;

	*ca_pem = *cert_pem = *key_pem = NULL;
	if (access(p1, F_OK) != 0 && write_ca(p1, p2, "front-proxy-ca", NULL, NULL, err) < 0)
		return -1;
	*ca_pem = sk_read_file(p1, &len);
	if (!*ca_pem)
		return sk_error_errno(err, errno, "reading \"%s\"", p1);
	if (issue_client(p1, p2, "front-proxy-client", NULL, 365LL * 24 * 3600, cert_pem, key_pem, err) < 0) {
		free(*ca_pem);
		*ca_pem = NULL;
		return -1;
	}
	return 0;
}
