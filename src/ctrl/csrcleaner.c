/* The CSR cleaner (after pkg/controller/certificates/cleaner): deletes
 * requests that are done with — issued and approved over an hour ago,
 * denied or failed over an hour ago, pending for over a day, or whose
 * certificate has expired. Upstream polls hourly; every object is looked at
 * on the controller's resync (a minute). */
#include <string.h>

#include <gnutls/gnutls.h>
#include <gnutls/x509.h>

#include "ctrl/ctrl-int.h"
#include "kube/csr.h"
#include "util/util.h"

#define PENDING_SECS (24 * 3600)
#define DONE_SECS 3600

/* lastUpdateTime of the condition of type, or -1. */
static int64_t condition_time(json_t *csr, const char *type)
{
	json_t *c = sk_kube_condition_get(sk_kube_jget(csr, "status"), type);

	return c ? sk__jtime(c, "lastUpdateTime", -1) : -1;
}

/* The issued certificate's notAfter, or -1. */
static int64_t cert_expiry(json_t *csr)
{
	const char *b64 = sk_kube_jstr(csr, "status.certificate") ?: "";
	gnutls_datum_t in = {(unsigned char *)b64, (unsigned)strlen(b64)}, pem = {NULL, 0};
	gnutls_x509_crt_t crt = NULL;
	int64_t t = -1;

	if (!*b64 || gnutls_base64_decode2(&in, &pem) < 0)
		return -1;
	if (gnutls_x509_crt_init(&crt) >= 0 && gnutls_x509_crt_import(crt, &pem, GNUTLS_X509_FMT_PEM) >= 0)
		t = (int64_t)gnutls_x509_crt_get_expiration_time(crt);
	if (crt)
		gnutls_x509_crt_deinit(crt);
	gnutls_free(pem.data);
	return t;
}

/* Whether the cleaner deletes csr at now (the reason in *why). */
static int expired(json_t *csr, int64_t now, const char **why)
{
	int64_t t, exp = cert_expiry(csr);
	int approved = sk_kube_csr_has_condition(csr, "Approved"), denied = sk_kube_csr_has_condition(csr, "Denied");
	int failed = sk_kube_csr_has_condition(csr, "Failed");

	if (exp >= 0 && exp < now)
		return *why = "its certificate has expired", 1;
	if (approved && exp >= 0 && (t = condition_time(csr, "Approved")) >= 0 && t + DONE_SECS < now)
		return *why = "it was issued over an hour ago", 1;
	if (denied && (t = condition_time(csr, "Denied")) >= 0 && t + DONE_SECS < now)
		return *why = "it was denied over an hour ago", 1;
	if (failed && (t = condition_time(csr, "Failed")) >= 0 && t + DONE_SECS < now)
		return *why = "it failed over an hour ago", 1;
	if (!approved && !denied && sk__jtime(csr, "metadata.creationTimestamp", now) + PENDING_SECS < now)
		return *why = "it was pending for over a day", 1;
	return 0;
}

static int sync_cleaner(sk_controller *k, const char *key)
{
	cleanup_json json_t *csr = sk_informer_get(k->ctl->csrs, NULL, key), *opts = NULL;
	cleanup_free char *path = NULL;
	const char *why = NULL;
	sk_error_t err = {0};

	if (!csr || sk__is_deleting(csr) || !expired(csr, sk__now(), &why))
		return 0;
	path = sk__path("/apis/certificates.k8s.io/v1", "certificatesigningrequests", NULL, key, NULL);
	opts = json_pack("{s:{s:s}}", "preconditions", "uid", sk__uid(csr));
	if (sk_client_delete(k->ctl->c, path, opts, &err) < 0 && err.code != SK_ENOTFOUND)
		return -1;
	sk_info("ctrl", "csrcleaner: deleted %s: %s", key, why);
	return 0;
}

int sk__csrcleaner_init(struct sk_ctrl *ctl, sk_error_t *err)
{
	sk_controller *k = sk__controller_add(ctl, "csrcleaner", sync_cleaner, NULL);

	(void)err;
	k->primary = ctl->csrs;
	k->resync_secs = 60;
	sk_informer_on(ctl->csrs, sk__enqueue_self, k);
	return 0;
}
