/* A node agent's client certificate (nodecert.h). */
#include <arpa/inet.h>
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <time.h>

#include <gnutls/gnutls.h>
#include <gnutls/x509.h>

#include "client/nodecert.h"
#include "util/util.h"

#define CSR_PATH "/apis/certificates.k8s.io/v1/certificatesigningrequests"
#define SIGNER "kubernetes.io/kube-apiserver-client-kubelet"
#define RETRY_SECS 30

/* What is asked for: the client certificate (ip NULL) or the serving one. */
typedef struct cert_kind {
	const char *signer, *usage, *what; /* usage besides "digital signature"; "client"/"serving" */
	const char *ip, *dns;
} cert_kind;

struct sk_nodecert {
	sk_nodecert_options o;
	cert_kind kind;
	char *server, *ca_pem, *node, *path, *ip, *dns;
	sk_client *client; /* the client certificate's own client */
	sk_client *via;    /* the serving certificate's: the agent's client (borrowed) */
	sk_nodecert_cb on_new;
	void *arg;
	int64_t renew_at;
	pthread_t thread;
	int started;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int stopping;
};

static int tls_fail(sk_error_t *err, int rc, const char *what)
{
	return sk_error_set(err, SK_EINTERNAL, "%s: %s", what, gnutls_strerror(rc));
}

/* ---- checking a certificate ---- */

int sk_nodecert_valid(const char *pem, const char *ca_pem, const char *node, int64_t now, int64_t *renew_at)
{
	gnutls_datum_t d = {(unsigned char *)pem, (unsigned)strlen(pem)};
	gnutls_x509_crt_t crt = NULL, ca = NULL;
	gnutls_x509_privkey_t key = NULL;
	cleanup_free char *want = xasprintf("system:node:%s", node);
	char cn[512];
	size_t n = sizeof(cn) - 1;
	int ok = 0;
	unsigned status = 0;

	if (gnutls_x509_crt_init(&crt) < 0 || gnutls_x509_crt_import(crt, &d, GNUTLS_X509_FMT_PEM) < 0)
		goto out;
	if (gnutls_x509_privkey_init(&key) < 0 || gnutls_x509_privkey_import(key, &d, GNUTLS_X509_FMT_PEM) < 0)
		goto out;
	if (gnutls_x509_crt_get_dn_by_oid(crt, GNUTLS_OID_X520_COMMON_NAME, 0, 0, cn, &n) < 0)
		goto out;
	cn[n] = '\0';
	if (strcmp(cn, want))
		goto out;
	{
		int64_t nb = gnutls_x509_crt_get_activation_time(crt), na = gnutls_x509_crt_get_expiration_time(crt);

		if (now >= na || now < nb - 3600)
			goto out;
		if (renew_at)
			*renew_at = nb + (na - nb) * 8 / 10;
	}
	if (ca_pem) {
		gnutls_datum_t c = {(unsigned char *)ca_pem, (unsigned)strlen(ca_pem)};

		if (gnutls_x509_crt_init(&ca) < 0 || gnutls_x509_crt_import(ca, &c, GNUTLS_X509_FMT_PEM) < 0 ||
		    gnutls_x509_crt_verify(crt, &ca, 1, GNUTLS_VERIFY_DISABLE_TIME_CHECKS, &status) < 0 || status)
			goto out;
	}
	ok = 1;
out:
	if (crt)
		gnutls_x509_crt_deinit(crt);
	if (ca)
		gnutls_x509_crt_deinit(ca);
	if (key)
		gnutls_x509_privkey_deinit(key);
	return ok;
}

/* ---- asking for one ---- */

static char *export_pem(gnutls_x509_privkey_t key, gnutls_x509_crq_t crq, sk_error_t *err)
{
	gnutls_datum_t d = {NULL, 0}, der = {NULL, 0};
	int rc;
	char *s;

	if (key) {
		rc = gnutls_x509_privkey_export2(key, GNUTLS_X509_FMT_PEM, &d);
	} else {
		/* GnuTLS writes "NEW CERTIFICATE REQUEST"; upstream's ParseCSR wants "CERTIFICATE REQUEST" */
		rc = gnutls_x509_crq_export2(crq, GNUTLS_X509_FMT_DER, &der);
		if (rc >= 0)
			rc = gnutls_pem_base64_encode2("CERTIFICATE REQUEST", &der, &d);
		gnutls_free(der.data);
	}
	if (rc < 0) {
		tls_fail(err, rc, "exporting PEM");
		return NULL;
	}
	s = xstrndup((char *)d.data, d.size);
	gnutls_free(d.data);
	return s;
}

static int add_sans(gnutls_x509_crq_t crq, const char *ip, const char *dns)
{
	unsigned char addr[16];
	int rc = 0;

	if (ip && inet_pton(AF_INET, ip, addr) == 1)
		rc = gnutls_x509_crq_set_subject_alt_name(crq, GNUTLS_SAN_IPADDRESS, addr, 4, GNUTLS_FSAN_APPEND);
	else if (ip && inet_pton(AF_INET6, ip, addr) == 1)
		rc = gnutls_x509_crq_set_subject_alt_name(crq, GNUTLS_SAN_IPADDRESS, addr, 16, GNUTLS_FSAN_APPEND);
	if (rc >= 0 && dns && *dns)
		rc = gnutls_x509_crq_set_subject_alt_name(crq, GNUTLS_SAN_DNSNAME, dns, (unsigned)strlen(dns),
							  GNUTLS_FSAN_APPEND);
	return rc;
}

/* A new key (PEM in *key_pem) and the PEM request for system:node:node,
 * with the IP (v4 or v6) and DNS subject alternative names when given (a
 * serving certificate). */
static char *make_request(const char *node, const char *ip, const char *dns, char **key_pem, sk_error_t *err)
{
	gnutls_x509_privkey_t key = NULL;
	gnutls_x509_crq_t crq = NULL;
	cleanup_free char *cn = xasprintf("system:node:%s", node);
	char *req = NULL;
	int rc;

	*key_pem = NULL;
	if ((rc = gnutls_x509_privkey_init(&key)) < 0 ||
	    (rc = gnutls_x509_privkey_generate(key, GNUTLS_PK_ECDSA, GNUTLS_CURVE_TO_BITS(GNUTLS_ECC_CURVE_SECP256R1),
					       0)) < 0 ||
	    (rc = gnutls_x509_crq_init(&crq)) < 0 ||
	    (rc = gnutls_x509_crq_set_dn_by_oid(crq, GNUTLS_OID_X520_ORGANIZATION_NAME, 0, "system:nodes", 12)) < 0 ||
	    (rc = gnutls_x509_crq_set_dn_by_oid(crq, GNUTLS_OID_X520_COMMON_NAME, 0, cn, (unsigned)strlen(cn))) < 0 ||
	    (rc = gnutls_x509_crq_set_version(crq, 1)) < 0 || (rc = gnutls_x509_crq_set_key(crq, key)) < 0 ||
	    (rc = add_sans(crq, ip, dns)) < 0 || (rc = gnutls_x509_crq_sign2(crq, key, GNUTLS_DIG_SHA256, 0)) < 0) {
		tls_fail(err, rc, "making a certificate request");
		goto out;
	}
	*key_pem = export_pem(key, NULL, err);
	req = *key_pem ? export_pem(NULL, crq, err) : NULL;
out:
	if (key)
		gnutls_x509_privkey_deinit(key);
	if (crq)
		gnutls_x509_crq_deinit(crq);
	return req;
}

static char *b64(const char *s, size_t n, int decode)
{
	gnutls_datum_t in = {(unsigned char *)s, (unsigned)n}, out = {NULL, 0};
	char *r;

	if ((decode ? gnutls_base64_decode2(&in, &out) : gnutls_base64_encode2(&in, &out)) < 0)
		return NULL;
	r = xstrndup((char *)out.data, out.size);
	gnutls_free(out.data);
	return r;
}

static const char *condition(json_t *csr, const char *type)
{
	json_t *c;
	size_t i;

	json_array_foreach(json_object_get(json_object_get(csr, "status"), "conditions"), i, c) {
		const char *t = json_string_value(json_object_get(c, "type"));

		if (t && !strcmp(t, type)) {
			const char *m = json_string_value(json_object_get(c, "message"));

			return m ? m : "";
		}
	}
	return NULL;
}

/* Sleeps ms unless stopping; 1 when stopping. */
static int nap(sk_nodecert *n, int64_t ms)
{
	struct timespec ts;
	int stop;

	sk_deadline_after_ms(&ts, ms);
	pthread_mutex_lock(&n->mu);
	while (!n->stopping && pthread_cond_timedwait(&n->cv, &n->mu, &ts) != ETIMEDOUT)
		;
	stop = n->stopping;
	pthread_mutex_unlock(&n->mu);
	return stop;
}

static const cert_kind client_kind = {SIGNER, "client auth", "client", NULL, NULL};

/* Submits a request through c and waits for its certificate; the PEM
 * certificate (malloc'd) with *key_pem, or NULL with err. */
static char *request_certificate(sk_nodecert *n, sk_client *c, const cert_kind *kind, char **key_pem, sk_error_t *err)
{
	cleanup_free char *req = make_request(n->node, kind->ip, kind->dns, key_pem, err), *req64 = NULL, *path = NULL;
	cleanup_json json_t *csr = NULL, *created = NULL;
	int wait_ms = (n->o.wait_secs > 0 ? n->o.wait_secs : 15 * 60) * 1000;
	const char *name;

	if (!req)
		return NULL;
	req64 = b64(req, strlen(req), 0);
	csr = json_pack("{s:s, s:s, s:{s:s}, s:{s:s, s:s, s:[s,s]}}", "apiVersion", "certificates.k8s.io/v1", "kind",
			"CertificateSigningRequest", "metadata", "generateName", "node-csr-", "spec", "request", req64,
			"signerName", kind->signer, "usages", "digital signature", kind->usage);
	if (n->o.expiration_secs > 0)
		json_object_set_new(json_object_get(csr, "spec"), "expirationSeconds",
				    json_integer(n->o.expiration_secs));
	created = sk_client_create(c, CSR_PATH, csr, err);
	if (!created) {
		sk_error_wrap(err, "creating a certificate signing request for node \"%s\"", n->node);
		goto fail;
	}
	name = json_string_value(json_object_get(json_object_get(created, "metadata"), "name"));
	path = xasprintf(CSR_PATH "/%s", name ? name : "");
	sk_info("nodecert", "asked for the %s certificate of node %s (CertificateSigningRequest %s)", kind->what,
		n->node, name ? name : "");
	for (int waited = 0; waited < wait_ms; waited += 500) {
		cleanup_json json_t *cur = sk_client_get(c, path, err);
		const char *cert = json_string_value(json_object_get(json_object_get(cur, "status"), "certificate"));
		const char *why;

		if (cur && cert && *cert) {
			char *pem = b64(cert, strlen(cert), 1);

			if (!pem)
				sk_error_set(err, SK_EINVALID, "certificate signing request \"%s\": bad certificate",
					     name);
			return pem;
		}
		if (cur && ((why = condition(cur, "Denied")) || (why = condition(cur, "Failed")))) {
			sk_error_set(err, SK_EFORBIDDEN, "certificate signing request \"%s\" was %s: %s", name,
				     condition(cur, "Denied") ? "denied" : "failed", why);
			goto fail;
		}
		sk_error_clear(err);
		if (nap(n, 500)) {
			sk_error_set(err, SK_EINTERNAL, "stopping");
			goto fail;
		}
	}
	sk_error_set(err, SK_ETIMEOUT, "certificate signing request \"%s\": no certificate issued within %d s", name,
		     wait_ms / 1000);
fail:
	free(*key_pem);
	*key_pem = NULL;
	return NULL;
}

static int has_ip(const char *pem, const char *ip);

/* Asks for a certificate of n's kind through c, stores it with its key
 * and hands it to n's callback. */
static int renew(sk_nodecert *n, sk_client *c, sk_error_t *err)
{
	cleanup_free char *key = NULL, *cert = request_certificate(n, c, &n->kind, &key, err), *both = NULL;
	int64_t at = 0;

	if (!cert)
		return -1;
	both = xasprintf("%s%s", cert, key);
	if (!sk_nodecert_valid(both, n->ca_pem, n->node, sk_now_ns() / 1000000000, &at) ||
	    (n->kind.ip && !has_ip(both, n->kind.ip)))
		return sk_error_set(err, SK_EINVALID,
				    "the issued certificate is not a valid %s certificate of node \"%s\"", n->kind.what,
				    n->node);
	if (sk_write_file(n->path, both, strlen(both), 0600) < 0)
		return sk_error_errno(err, errno, "writing \"%s\"", n->path);
	n->renew_at = at;
	sk_info("nodecert", "node %s has a new %s certificate in %s", n->node, n->kind.what, n->path);
	if (n->on_new)
		n->on_new(n->arg, both);
	return 0;
}

static void *renewer(void *arg)
{
	sk_nodecert *n = arg;

	for (;;) {
		int64_t now = sk_now_ns() / 1000000000;
		sk_error_t err = {0};

		if (now < n->renew_at) {
			if (nap(n, (n->renew_at - now) * 1000))
				break;
			continue;
		}
		if (renew(n, n->via ? n->via : n->client, &err) < 0) {
			sk_warn("nodecert", "renewing the %s certificate of node %s: %s", n->kind.what, n->node,
				err.msg);
			if (nap(n, RETRY_SECS * 1000))
				break;
		} else if (nap(n, 1000)) {
			/* a second at least between renewals (kubelet's wait.Until):
			 * a certificate shorter than its 5-minute backdate is due at once */
			break;
		}
	}
	return NULL;
}

/* A rotator of DIR/pki/file (not started), NULL with err. */
static sk_nodecert *nodecert_new(const sk_nodecert_options *o, const char *file, sk_error_t *err)
{
	sk_nodecert *n = xzalloc(sizeof(*n));
	cleanup_free char *dir = xasprintf("%s/pki", o->data_dir);

	n->o = *o;
	n->kind = client_kind;
	n->node = xstrdup(o->node_name);
	n->server = o->server ? xstrdup(o->server) : NULL;
	n->ca_pem = o->ca_pem ? xstrdup(o->ca_pem) : NULL;
	n->path = xasprintf("%s/%s", dir, file);
	pthread_mutex_init(&n->mu, NULL);
	pthread_cond_init(&n->cv, NULL);
	if (sk_mkdir_p(dir, 0700) < 0) {
		sk_error_errno(err, errno, "creating \"%s\"", dir);
		sk_nodecert_stop(n);
		return NULL;
	}
	return n;
}

sk_nodecert *sk_nodecert_start(const sk_nodecert_options *o, sk_error_t *err)
{
	sk_nodecert *n = nodecert_new(o, "kubelet-client-current.pem", err);
	cleanup_free char *cur = NULL;
	int64_t now = sk_now_ns() / 1000000000;

	if (!n)
		return NULL;
	cur = sk_read_file(n->path, NULL);
	if (cur && sk_nodecert_valid(cur, n->ca_pem, n->node, now, &n->renew_at)) {
		sk_info("nodecert", "node %s: using the client certificate in %s", n->node, n->path);
	} else {
		if (!o->bootstrap) {
			sk_error_set(err, SK_EUNAUTHORIZED,
				     "node \"%s\" has no valid client certificate and no bootstrap token", n->node);
			goto fail;
		}
		if (renew(n, o->bootstrap, err) < 0)
			goto fail;
	}
	n->client = sk_client_new_http_cert(n->server, n->path, n->path, n->ca_pem, err);
	if (!n->client)
		goto fail;
	n->started = !pthread_create(&n->thread, NULL, renewer, n);
	return n;
fail:
	sk_nodecert_stop(n);
	return NULL;
}

sk_client *sk_nodecert_client(sk_nodecert *n) { return n->client; }

const char *sk_nodecert_path(sk_nodecert *n) { return n->path; }

void sk_nodecert_stop(sk_nodecert *n)
{
	if (!n)
		return;
	pthread_mutex_lock(&n->mu);
	n->stopping = 1;
	pthread_cond_broadcast(&n->cv);
	pthread_mutex_unlock(&n->mu);
	if (n->started)
		pthread_join(n->thread, NULL);
	if (n->client)
		sk_client_free(n->client);
	pthread_mutex_destroy(&n->mu);
	pthread_cond_destroy(&n->cv);
	free(n->node);
	free(n->server);
	free(n->ca_pem);
	free(n->path);
	free(n->ip);
	free(n->dns);
	free(n);
}

/* ---- the serving certificate ---- */

/* Whether the certificate in pem has ip among its IP addresses. */
static int has_ip(const char *pem, const char *ip)
{
	gnutls_datum_t d = {(unsigned char *)pem, (unsigned)strlen(pem)};
	gnutls_x509_crt_t crt = NULL;
	unsigned char want[16];
	size_t wlen = inet_pton(AF_INET, ip, want) == 1 ? 4 : inet_pton(AF_INET6, ip, want) == 1 ? 16 : 0;
	int found = 0;

	if (!wlen || gnutls_x509_crt_init(&crt) < 0)
		return 0;
	if (gnutls_x509_crt_import(crt, &d, GNUTLS_X509_FMT_PEM) >= 0)
		for (unsigned i = 0; !found; i++) {
			unsigned char buf[64];
			size_t n = sizeof(buf);
			int t = gnutls_x509_crt_get_subject_alt_name(crt, i, buf, &n, NULL);

			if (t < 0 && t != GNUTLS_E_SHORT_MEMORY_BUFFER)
				break;
			found = t == GNUTLS_SAN_IPADDRESS && n == wlen && !memcmp(buf, want, wlen);
		}
	gnutls_x509_crt_deinit(crt);
	return found;
}

sk_nodecert *sk_nodecert_serving(const sk_nodecert_options *o, sk_client *c, const char *ip, const char *dns,
				 sk_nodecert_cb on_new, void *arg, sk_error_t *err)
{
	sk_nodecert *n = nodecert_new(o, "kubelet-server-current.pem", err);
	cleanup_free char *cur = NULL;
	int64_t now = sk_now_ns() / 1000000000;

	if (!n)
		return NULL;
	n->ip = xstrdup(ip);
	n->dns = dns ? xstrdup(dns) : NULL;
	n->kind = (cert_kind){SK_NODECERT_SIGNER_SERVING, "server auth", "serving", n->ip, n->dns};
	n->via = c;
	n->on_new = on_new;
	n->arg = arg;
	cur = sk_read_file(n->path, NULL);
	if (cur && sk_nodecert_valid(cur, n->ca_pem, n->node, now, &n->renew_at) && now < n->renew_at &&
	    has_ip(cur, ip)) {
		sk_info("nodecert", "node %s: using the serving certificate in %s", n->node, n->path);
		on_new(arg, cur);
	} else if (renew(n, c, err) < 0) {
		sk_nodecert_stop(n);
		return NULL;
	}
	return n;
}

void sk_nodecert_rotate(sk_nodecert *n)
{
	if (n && !n->started)
		n->started = !pthread_create(&n->thread, NULL, renewer, n);
}
