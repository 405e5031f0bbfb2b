/* The kinds of admissionregistration.k8s.io/v1 (webhook-config.c, webhook.c). */
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
};
const size_t sk__nkinds_admissionregistration = sizeof(sk__kinds_admissionregistration) /
						sizeof(sk__kinds_admissionregistration[0]);
