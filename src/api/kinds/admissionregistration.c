/* The kinds of admissionregistration.k8s.io/v1 (webhook-config.c, webhook.c,
 * vap-config.c, vap.c). */
#include "api/api-int.h"
#include "api/table.h"
#include "api/webhook.h"

static const sk_kind_ops webhookconfig_ops = {
	.patch_type = "WebhookConfiguration",
	.printer = &sk_table_printer_webhookconfiguration,
	.defaults = sk__defaults_webhookconfig,
	.validate = sk__validate_webhookconfig,
	.written = sk__webhookconfig_written,
};

static const sk_kind_ops vap_ops = {
	.flags = SK_KIND_GENERATION,
	.patch_type = "ValidatingAdmissionPolicy",
	.printer = &sk_table_printer_validatingadmissionpolicy,
	.defaults = sk__defaults_vap,
	.validate = sk__validate_vap,
	.admit_create = sk__admit_empty_status,
	.begin_write = sk__vap_begin_write,
	.written = sk__vap_written,
};

static const sk_kind_ops vapb_ops = {
	.flags = SK_KIND_GENERATION,
	.patch_type = "ValidatingAdmissionPolicyBinding",
	.printer = &sk_table_printer_validatingadmissionpolicybinding,
	.defaults = sk__defaults_vapb,
	.validate = sk__validate_vapb,
	.written = sk__vap_written,
};

const sk_api_resource sk__kinds_admissionregistration[] = {
	{
		.group = "admissionregistration.k8s.io",
		.version = "v1",
		.kind = "MutatingWebhookConfiguration",
		.plural = "mutatingwebhookconfigurations",
		.singular = "mutatingwebhookconfiguration",
		.namespaced = 0,
		.ops = &webhookconfig_ops,
	},
	{
		.group = "admissionregistration.k8s.io",
		.version = "v1",
		.kind = "ValidatingWebhookConfiguration",
		.plural = "validatingwebhookconfigurations",
		.singular = "validatingwebhookconfiguration",
		.namespaced = 0,
		.ops = &webhookconfig_ops,
	},
	{
		.group = "admissionregistration.k8s.io",
		.version = "v1",
		.kind = "ValidatingAdmissionPolicy",
		.plural = "validatingadmissionpolicies",
		.singular = "validatingadmissionpolicy",
		.namespaced = 0,
		.subresources = SK_SUB_STATUS,
		.has_spec = 1,
		.ops = &vap_ops,
	},
	{
		.group = "admissionregistration.k8s.io",
		.version = "v1",
		.kind = "ValidatingAdmissionPolicyBinding",
		.plural = "validatingadmissionpolicybindings",
		.singular = "validatingadmissionpolicybinding",
		.namespaced = 0,
		.has_spec = 1,
		.ops = &vapb_ops,
	},
};
const size_t sk__nkinds_admissionregistration = sizeof(sk__kinds_admissionregistration) /
						sizeof(sk__kinds_admissionregistration[0]);
