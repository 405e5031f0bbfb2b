/* The kinds of certificates.k8s.io/v1. */
#include "api/api-int.h"

extern const sk_kind_ops sk__csr_ops;

const sk_api_resource sk__kinds_certificates[] = {
	{
		.group = "certificates.k8s.io",
		.version = "v1",
		.kind = "CertificateSigningRequest",
		.plural = "certificatesigningrequests",
		.singular = "certificatesigningrequest",
		.namespaced = 0,
		.short_names = "csr",
		.subresources = SK_SUB_STATUS | SK_SUB_APPROVAL,
		.has_spec = 1,
		.ops = &sk__csr_ops,
	},
};
const size_t sk__nkinds_certificates = sizeof(sk__kinds_certificates) / sizeof(sk__kinds_certificates[0]);
