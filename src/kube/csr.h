/* Certificate signing requests as upstream reads them
 * (pkg/apis/certificates/helpers.go, k8s.io/api/certificates/v1): the PEM
 * PKCS#10 request of spec.request and what the signers and the approver
 * recognise in it. The request is parsed by GnuTLS; this module only picks
 * the first PEM block, as Go's pem.Decode does. */
#ifndef SK_KUBE_CSR_H
#define SK_KUBE_CSR_H

#include <stddef.h>

#include <gnutls/x509.h>
#include <jansson.h>

#define SK_CSR_SIGNER_KUBELET_CLIENT "kubernetes.io/kube-apiserver-client-kubelet"
#define SK_CSR_SIGNER_CLIENT "kubernetes.io/kube-apiserver-client"
#define SK_CSR_SIGNER_KUBELET_SERVING "kubernetes.io/kubelet-serving"
#define SK_CSR_SIGNER_LEGACY_UNKNOWN "kubernetes.io/legacy-unknown"

/* Parses pem (the decoded bytes of spec.request) into *crq (caller
 * deinits) and checks its self-signature. -1 with *why (malloc'd) on
 * failure: "PEM block type must be CERTIFICATE REQUEST" as upstream, or
 * GnuTLS's reason. */
int sk_kube_csr_parse(const unsigned char *pem, size_t len, gnutls_x509_crq_t *crq, char **why);
/* The same for spec.request as JSON carries it (base64). */
int sk_kube_csr_parse_b64(const char *b64, gnutls_x509_crq_t *crq, char **why);

/* The subject's common name (malloc'd, "" when none). */
char *sk_kube_csr_common_name(gnutls_x509_crq_t crq);

/* upstream's ValidateKubeletClientCSR: NULL when crq with usages (a JSON
 * array of strings) is a kubelet client request (O=system:nodes, CN
 * system:node:…, no SANs, the client usages), else the reason (static or
 * in buf). */
const char *sk_kube_csr_kubelet_client_problem(gnutls_x509_crq_t crq, json_t *usages, char *buf, size_t len);
/* upstream's ValidateKubeletServingCSR (O=system:nodes, CN system:node:…,
 * DNS or IP SANs only, the serving usages). */
const char *sk_kube_csr_kubelet_serving_problem(gnutls_x509_crq_t crq, json_t *usages, char *buf, size_t len);

/* Whether a CSR object's conditions hold type (Approved, Denied, Failed). */
int sk_kube_csr_has_condition(json_t *csr, const char *type);

#endif
