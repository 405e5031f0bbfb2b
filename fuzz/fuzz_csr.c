/* Fuzzes the reading of a CertificateSigningRequest's spec.request
 * (src/kube/csr.c: the first PEM block picked as Go's pem.Decode does, then
 * GnuTLS): any bytes parse or are refused with a reason; a parsed request
 * goes through the kubelet client and serving checks. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kube/csr.h"
#include "util/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	gnutls_x509_crq_t crq = NULL;
	char *why = NULL, buf[160];
	json_t *usages;

	sk_log_level = SK_LOG_ERROR;
	if (sk_kube_csr_parse(data, size, &crq, &why) < 0) {
		if (!why || !*why || crq)
			abort();
		free(why);
		return 0;
	}
	usages = json_pack("[s,s]", "digital signature", "client auth");
	sk_kube_csr_kubelet_client_problem(crq, usages, buf, sizeof(buf));
	sk_kube_csr_kubelet_serving_problem(crq, usages, buf, sizeof(buf));
	free(sk_kube_csr_common_name(crq));
	json_decref(usages);
	gnutls_x509_crq_deinit(crq);
	return 0;
}
