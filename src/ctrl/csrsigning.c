/* The CSR signing controller (after pkg/controller/certificates/signer):
 * signs approved CertificateSigningRequests of the built-in signers
 * kubernetes.io/kube-apiserver-client-kubelet, kube-apiserver-client and
 * kubelet-serving with the cluster CA, through GnuTLS. The certificate
 * lives min(expirationSeconds, the signing duration) and starts 5 minutes
 * in the past (upstream's backdate); one of 8 hours or more ends that
 * duration after its start, a shorter one that duration after now
 * (upstream's PermissiveSigningPolicy with Short = 8h); a request its signer does not accept
 * gets a Failed condition (SignerValidationFailure). */
#include <string.h>

#include <gnutls/crypto.h>
#include <gnutls/gnutls.h>
#include <gnutls/x509.h>

#include "ctrl/ctrl-int.h"
#include "kube/csr.h"
#include "util/util.h"

#define BACKDATE_SECS (5 * 60)
#define SHORT_SECS (8 * 3600)
/* upstream's --cluster-signing-duration default: a year */
#define DEFAULT_SIGNING_SECS (365LL * 24 * 3600)

typedef struct signer {
	gnutls_x509_crt_t ca;
	gnutls_x509_privkey_t key;
	int64_t max_secs;
} signer;

static void signer_free(void *p)
{
	signer *s = p;

	if (!s)
		return;
	if (s->ca)
		gnutls_x509_crt_deinit(s->ca);
	if (s->key)
		gnutls_x509_privkey_deinit(s->key);
	free(s);
}

static int load_ca(signer *s, const char *cert_pem, const char *key_pem, sk_error_t *err)
{
	gnutls_datum_t c = {(unsigned char *)cert_pem, (unsigned)strlen(cert_pem)};
	gnutls_datum_t k = {(unsigned char *)key_pem, (unsigned)strlen(key_pem)};
	int rc;

	if ((rc = gnutls_x509_crt_init(&s->ca)) < 0 ||
	    (rc = gnutls_x509_crt_import(s->ca, &c, GNUTLS_X509_FMT_PEM)) < 0)
		return sk_error_set(err, SK_EINVALID, "cluster CA certificate: %s", gnutls_strerror(rc));
	if ((rc = gnutls_x509_privkey_init(&s->key)) < 0 ||
	    (rc = gnutls_x509_privkey_import(s->key, &k, GNUTLS_X509_FMT_PEM)) < 0)
		return sk_error_set(err, SK_EINVALID, "cluster CA key: %s", gnutls_strerror(rc));
	return 0;
}

/* Whether the CSR's signer accepts it: NULL, else why (static or in buf). */
static const char *signer_problem(const char *name, gnutls_x509_crq_t crq, json_t *usages, char *buf, size_t len)
{
	static const char *const client_usages[] = {"digital signature", "key encipherment", "client auth", NULL};
	json_t *u;
	size_t i;

	if (!strcmp(name, SK_CSR_SIGNER_KUBELET_CLIENT))
		return sk_kube_csr_kubelet_client_problem(crq, usages, buf, len);
	if (!strcmp(name, SK_CSR_SIGNER_KUBELET_SERVING))
		return sk_kube_csr_kubelet_serving_problem(crq, usages, buf, len);
	json_array_foreach(usages, i, u) {
		int ok = 0;

		for (int k = 0; client_usages[k]; k++)
			ok |= json_is_string(u) && !strcmp(json_string_value(u), client_usages[k]);
		if (!ok) {
			snprintf(buf, len, "unsupported usage: %s", json_string_value(u) ? json_string_value(u) : "");
			return buf;
		}
	}
	return NULL;
}

static int is_our_signer(const char *name)
{
	return !strcmp(name, SK_CSR_SIGNER_KUBELET_CLIENT) || !strcmp(name, SK_CSR_SIGNER_CLIENT) ||
	       !strcmp(name, SK_CSR_SIGNER_KUBELET_SERVING);
}

static void set_usages(gnutls_x509_crt_t crt, json_t *usages)
{
	static const struct {
		const char *name;
		unsigned ku;
		const char *eku;
	} map[] = {
		{"digital signature", GNUTLS_KEY_DIGITAL_SIGNATURE, NULL},
		{"key encipherment", GNUTLS_KEY_KEY_ENCIPHERMENT, NULL},
		{"client auth", 0, GNUTLS_KP_TLS_WWW_CLIENT},
		{"server auth", 0, GNUTLS_KP_TLS_WWW_SERVER},
	};
	unsigned ku = 0;
	json_t *u;
	size_t i;

	json_array_foreach(usages, i, u) {
		for (size_t k = 0; k < sizeof(map) / sizeof(map[0]); k++) {
			if (!json_is_string(u) || strcmp(json_string_value(u), map[k].name))
				continue;
			ku |= map[k].ku;
			if (map[k].eku)
				gnutls_x509_crt_set_key_purpose_oid(crt, map[k].eku, 0);
		}
	}
	if (ku)
		gnutls_x509_crt_set_key_usage(crt, ku);
}

/* Copies the request's DNS and IP names (kubelet serving certificates). */
static void copy_sans(gnutls_x509_crt_t crt, gnutls_x509_crq_t crq)
{
	for (unsigned i = 0;; i++) {
		char buf[1024];
		size_t n = sizeof(buf);
		unsigned crit = 0;
		int t = gnutls_x509_crq_get_subject_alt_name(crq, i, buf, &n, NULL, &crit);

		if (t < 0 && t != GNUTLS_E_SHORT_MEMORY_BUFFER)
			break;
		if (t == GNUTLS_SAN_DNSNAME || t == GNUTLS_SAN_IPADDRESS)
			gnutls_x509_crt_set_subject_alt_name(crt, (gnutls_x509_subject_alt_name_t)t, buf, (unsigned)n,
							     GNUTLS_FSAN_APPEND);
	}
}

/* The PEM certificate for crq (malloc'd) or NULL with err. */
static char *sign(signer *s, gnutls_x509_crq_t crq, json_t *csr, sk_error_t *err)
{
	gnutls_x509_crt_t crt = NULL;
	gnutls_datum_t out = {NULL, 0};
	unsigned char serial[16], kid[64];
	size_t kidlen = sizeof(kid);
	int64_t now = sk__now(), secs = s->max_secs, end;
	int64_t exp = sk__jint(csr, "spec.expirationSeconds", -1);
	time_t ca_end = gnutls_x509_crt_get_expiration_time(s->ca);
	char *pem = NULL;
	int rc;

	if (exp > 0 && exp < secs)
		secs = exp;
	end = secs < SHORT_SECS ? now + secs : now - BACKDATE_SECS + secs;
	if ((rc = gnutls_x509_crt_init(&crt)) < 0 || (rc = gnutls_x509_crt_set_crq(crt, crq)) < 0)
		goto fail;
	gnutls_rnd(GNUTLS_RND_NONCE, serial, sizeof(serial));
	serial[0] &= 0x7f;
	gnutls_x509_crt_set_version(crt, 3);
	gnutls_x509_crt_set_serial(crt, serial, sizeof(serial));
	gnutls_x509_crt_set_activation_time(crt, (time_t)(now - BACKDATE_SECS));
	/* never past the CA's own end */
	gnutls_x509_crt_set_expiration_time(crt, ca_end > 0 && ca_end < end ? ca_end : (time_t)end);
	gnutls_x509_crt_set_basic_constraints(crt, 0, -1);
	set_usages(crt, json_object_get(json_object_get(csr, "spec"), "usages"));
	if (!strcmp(sk_kube_jstr(csr, "spec.signerName") ?: "", SK_CSR_SIGNER_KUBELET_SERVING))
		copy_sans(crt, crq);
	if (gnutls_x509_crt_get_subject_key_id(s->ca, kid, &kidlen, NULL) >= 0)
		gnutls_x509_crt_set_authority_key_id(crt, kid, kidlen);
	if ((rc = gnutls_x509_crt_sign2(crt, s->ca, s->key, GNUTLS_DIG_SHA256, 0)) < 0 ||
	    (rc = gnutls_x509_crt_export2(crt, GNUTLS_X509_FMT_PEM, &out)) < 0)
		goto fail;
	pem = xstrndup((char *)out.data, out.size);
	gnutls_free(out.data);
	gnutls_x509_crt_deinit(crt);
	return pem;
fail:
	if (crt)
		gnutls_x509_crt_deinit(crt);
	sk_error_set(err, SK_EINTERNAL, "signing: %s", gnutls_strerror(rc));
	return NULL;
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

static int write_status(sk_controller *k, json_t *csr, const char *name, sk_error_t *err)
{
	cleanup_free char *path = sk__path("/apis/certificates.k8s.io/v1", "certificatesigningrequests", NULL, name,
					   "status");
	json_t *out = sk_client_update(k->ctl->c, path, csr, err);

	if (!out)
		return -1;
	sk_informer_write(k->ctl->csrs, out);
	json_decref(out);
	return 0;
}

static int sync_signing(sk_controller *k, const char *key)
{
	signer *s = k->state;
	cleanup_json json_t *cur = sk_informer_get(k->ctl->csrs, NULL, key), *csr = NULL;
	const char *signer_name, *req;
	gnutls_x509_crq_t crq = NULL;
	cleanup_free char *why = NULL, *pem = NULL;
	char buf[160];
	const char *problem;
	sk_error_t err = {0};
	int rc;

	if (!cur || !sk_kube_csr_has_condition(cur, "Approved") || sk_kube_csr_has_condition(cur, "Failed") ||
	    sk_kube_csr_has_condition(cur, "Denied") || *(sk_kube_jstr(cur, "status.certificate") ?: ""))
		return 0;
	signer_name = sk_kube_jstr(cur, "spec.signerName") ?: "";
	if (!is_our_signer(signer_name))
		return 0;
	csr = json_deep_copy(cur);
	req = sk_kube_jstr(csr, "spec.request") ?: "";
	if (sk_kube_csr_parse_b64(req, &crq, &why) < 0) {
		/* validation let it in, so this does not happen; upstream fails it too */
		problem = why;
	} else {
		problem = signer_problem(signer_name, crq, sk_kube_jget(csr, "spec.usages"), buf, sizeof(buf));
	}
	if (problem) {
		json_t *st = json_object_get(csr, "status");

		if (!json_is_object(st)) {
			st = json_object();
			json_object_set_new(csr, "status", st);
		}
		if (!json_is_array(json_object_get(st, "conditions")))
			json_object_set_new(st, "conditions", json_array());
		json_array_append_new(json_object_get(st, "conditions"),
				      json_pack("{s:s, s:s, s:s, s:s}", "type", "Failed", "status", "True", "reason",
						"SignerValidationFailure", "message", problem));
		rc = write_status(k, csr, key, &err);
	} else {
		pem = sign(s, crq, csr, &err);
		rc = -1;
		if (pem) {
			cleanup_free char *enc = b64(pem);

			if (!json_is_object(json_object_get(csr, "status")))
				json_object_set_new(csr, "status", json_object());
			json_object_set_new(json_object_get(csr, "status"), "certificate", json_string(enc));
			rc = write_status(k, csr, key, &err);
		}
	}
	if (crq)
		gnutls_x509_crq_deinit(crq);
	if (rc < 0 && err.code != SK_ENOTFOUND && err.code != SK_ECONFLICT) {
		sk_warn("ctrl", "csrsigning: %s: %s", key, err.msg);
		return -1;
	}
	if (rc == 0)
		sk_info("ctrl", "csrsigning: %s %s", problem ? "failed" : "signed", key);
	return rc < 0 && err.code == SK_ECONFLICT ? -1 : 0;
}

int sk__csrsigning_init(struct sk_ctrl *ctl, sk_error_t *err)
{
	signer *s;
	sk_controller *k;

	if (!ctl->o.ca_cert_pem || !ctl->o.ca_key_pem)
		return 0; /* no CA: nothing is signed (a test's control plane) */
	s = xzalloc(sizeof(*s));
	if (load_ca(s, ctl->o.ca_cert_pem, ctl->o.ca_key_pem, err) < 0) {
		signer_free(s);
		return -1;
	}
	s->max_secs = ctl->o.signing_duration_secs > 0 ? ctl->o.signing_duration_secs : DEFAULT_SIGNING_SECS;
	k = sk__controller_add(ctl, "csrsigning", sync_signing, s);
	k->release = signer_free;
	sk_informer_on(ctl->csrs, sk__enqueue_self, k);
	return 0;
}
