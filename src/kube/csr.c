/* Certificate signing requests (csr.h). */
#include <stdio.h>
#include <string.h>

#include <gnutls/gnutls.h>

#include "kube/csr.h"
#include "util/util.h"

#define PEM_BEGIN "-----BEGIN "

/* Go's pem.Decode finds the first "-----BEGIN TYPE-----" line; the request
 * is that block, whatever follows. */
static int first_block_is_request(const unsigned char *pem, size_t len, size_t *off)
{
	static const char want[] = "CERTIFICATE REQUEST-----";
	size_t bl = strlen(PEM_BEGIN);

	for (size_t i = 0; i + bl <= len; i++) {
		if (memcmp(pem + i, PEM_BEGIN, bl))
			continue;
		if (i && pem[i - 1] != '\n')
			continue;
		*off = i;
		return len - i - bl >= strlen(want) && !memcmp(pem + i + bl, want, strlen(want));
	}
	return 0;
}

int sk_kube_csr_parse(const unsigned char *pem, size_t len, gnutls_x509_crq_t *crq, char **why)
{
	gnutls_datum_t d;
	size_t off = 0;
	int rc;

	*crq = NULL;
	*why = NULL;
	if (!first_block_is_request(pem, len, &off)) {
		*why = xstrdup("PEM block type must be CERTIFICATE REQUEST");
		return -1;
	}
	d.data = (unsigned char *)pem + off;
	d.size = (unsigned)(len - off);
	if ((rc = gnutls_x509_crq_init(crq)) < 0 || (rc = gnutls_x509_crq_import(*crq, &d, GNUTLS_X509_FMT_PEM)) < 0) {
		*why = xasprintf("x509: malformed certificate request: %s", gnutls_strerror(rc));
		goto fail;
	}
	if ((rc = gnutls_x509_crq_verify(*crq, 0)) < 0) {
		*why = xasprintf("x509: signature verification failure: %s", gnutls_strerror(rc));
		goto fail;
	}
	return 0;
fail:
	if (*crq)
		gnutls_x509_crq_deinit(*crq);
	*crq = NULL;
	return -1;
}

int sk_kube_csr_parse_b64(const char *b64, gnutls_x509_crq_t *crq, char **why)
{
	gnutls_datum_t in = {(unsigned char *)b64, (unsigned)strlen(b64)}, out = {NULL, 0};
	int rc;

	*crq = NULL;
	if (gnutls_base64_decode2(&in, &out) < 0) {
		*why = xstrdup("PEM block type must be CERTIFICATE REQUEST");
		return -1;
	}
	rc = sk_kube_csr_parse(out.data, out.size, crq, why);
	gnutls_free(out.data);
	return rc;
}

static char *dn_value(gnutls_x509_crq_t crq, const char *oid, unsigned idx)
{
	char buf[1024];
	size_t n = sizeof(buf) - 1;

	if (gnutls_x509_crq_get_dn_by_oid(crq, oid, idx, 0, buf, &n) < 0)
		return NULL;
	buf[n] = '\0';
	return xstrdup(buf);
}

char *sk_kube_csr_common_name(gnutls_x509_crq_t crq)
{
	char *cn = dn_value(crq, GNUTLS_OID_X520_COMMON_NAME, 0);

	return cn ? cn : xstrdup("");
}

/* Organization must be exactly ["system:nodes"]. */
static int org_is_nodes(gnutls_x509_crq_t crq)
{
	cleanup_free char *o0 = dn_value(crq, GNUTLS_OID_X520_ORGANIZATION_NAME, 0);
	cleanup_free char *o1 = dn_value(crq, GNUTLS_OID_X520_ORGANIZATION_NAME, 1);

	return o0 && !o1 && !strcmp(o0, "system:nodes");
}

/* Counts the request's subject alternative names by type. */
static void count_sans(gnutls_x509_crq_t crq, int *dns, int *email, int *ip, int *uri)
{
	*dns = *email = *ip = *uri = 0;
	for (unsigned i = 0;; i++) {
		char buf[1024];
		size_t n = sizeof(buf);
		unsigned crit = 0;
		int t = gnutls_x509_crq_get_subject_alt_name(crq, i, buf, &n, NULL, &crit);

		if (t == GNUTLS_E_REQUESTED_DATA_NOT_AVAILABLE)
			break;
		if (t == GNUTLS_SAN_DNSNAME)
			(*dns)++;
		else if (t == GNUTLS_SAN_RFC822NAME)
			(*email)++;
		else if (t == GNUTLS_SAN_IPADDRESS)
			(*ip)++;
		else if (t == GNUTLS_SAN_URI)
			(*uri)++;
		else if (t < 0 && t != GNUTLS_E_SHORT_MEMORY_BUFFER)
			break;
	}
}

static int has_usage(json_t *usages, const char *u)
{
	json_t *v;
	size_t i;

	json_array_foreach(usages, i, v)
		if (json_is_string(v) && !strcmp(json_string_value(v), u))
			return 1;
	return 0;
}

static int in_set(const char *u, const char *const *set)
{
	for (size_t k = 0; set[k]; k++)
		if (!strcmp(u, set[k]))
			return 1;
	return 0;
}

/* Whether usages, as a set, equals set (NULL-terminated). */
static int usages_equal(json_t *usages, const char *const *set)
{
	json_t *v;
	size_t i;

	json_array_foreach(usages, i, v)
		if (!json_is_string(v) || !in_set(json_string_value(v), set))
			return 0;
	for (size_t k = 0; set[k]; k++)
		if (!has_usage(usages, set[k]))
			return 0;
	return 1;
}

const char *sk_kube_csr_kubelet_client_problem(gnutls_x509_crq_t crq, json_t *usages, char *buf, size_t len)
{
	static const char *const full[] = {"client auth", "digital signature", "key encipherment", NULL};
	static const char *const no_rsa[] = {"client auth", "digital signature", NULL};
	cleanup_free char *cn = sk_kube_csr_common_name(crq);
	int dns, email, ip, uri;

	if (!org_is_nodes(crq))
		return "subject organization is not system:nodes";
	count_sans(crq, &dns, &email, &ip, &uri);
	if (dns)
		return "DNS subjectAltNames are not allowed";
	if (email)
		return "Email subjectAltNames are not allowed";
	if (ip)
		return "IP subjectAltNames are not allowed";
	if (uri)
		return "URI subjectAltNames are not allowed";
	if (strncmp(cn, "system:node:", 12))
		return "subject common name does not begin with system:node:";
	if (!usages_equal(usages, full) && !usages_equal(usages, no_rsa)) {
		snprintf(buf, len, "usages did not match [client auth digital signature key encipherment]");
		return buf;
	}
	return NULL;
}

const char *sk_kube_csr_kubelet_serving_problem(gnutls_x509_crq_t crq, json_t *usages, char *buf, size_t len)
{
	static const char *const full[] = {"digital signature", "key encipherment", "server auth", NULL};
	static const char *const no_rsa[] = {"digital signature", "server auth", NULL};
	cleanup_free char *cn = sk_kube_csr_common_name(crq);
	int dns, email, ip, uri;

	if (!usages_equal(usages, full) && !usages_equal(usages, no_rsa)) {
		snprintf(buf, len, "usages did not match [digital signature key encipherment server auth]");
		return buf;
	}
	if (!org_is_nodes(crq))
		return "subject organization is not system:nodes";
	count_sans(crq, &dns, &email, &ip, &uri);
	if (!dns && !ip)
		return "DNS or IP subjectAltName is required";
	if (email)
		return "Email subjectAltNames are not allowed";
	if (uri)
		return "URI subjectAltNames are not allowed";
	if (strncmp(cn, "system:node:", 12))
		return "subject common name does not begin with system:node:";
	return NULL;
}

int sk_kube_csr_has_condition(json_t *csr, const char *type)
{
	json_t *conds = json_object_get(json_object_get(csr, "status"), "conditions"), *c;
	size_t i;

	json_array_foreach(conds, i, c) {
		const char *t = json_string_value(json_object_get(c, "type"));

		if (t && !strcmp(t, type))
			return 1;
	}
	return 0;
}
