/* The kinds of batch/v1. */
#include "api/api-int.h"
#include "api/defaults.h"
#include "api/table.h"
#include "api/validate.h"
#include "kube/selector.h"

static const sk_kube_field_labels job_fields = {
	.fields = (const char *const[]){"metadata.name", "metadata.namespace", "status.successful", NULL},
	.unsupported = "field label \"%s\" not supported for batchv1.Job",
};

static const sk_kind_ops job_ops = {
	.patch_type = "Workload",
	.flags = SK_KIND_GENERATION,
	.printer = &sk_table_printer_job,
	.field_labels = &job_fields,
	.defaults = sk__defaults_job,
	.validate = sk__validate_job,
	.admit_create = sk__job_admit_create,
};

static const sk_kind_ops cronjob_ops = {
	.patch_type = "CronJob",
	.flags = SK_KIND_GENERATION,
	.printer = &sk_table_printer_cronjob,
	.defaults = sk__defaults_cronjob,
	.validate = sk__validate_cronjob,
	.admit_create = sk__admit_empty_status,
};

const sk_api_resource sk__kinds_batch[] = {
	{
		.group = "batch",
		.version = "v1",
		.kind = "Job",
		.plural = "jobs",
		.singular = "job",
		.namespaced = 1,
		.categories = "all",
		.subresources = SK_SUB_STATUS,
		.has_spec = 1,
		.ops = &job_ops,
	},
	{
		.group = "batch",
		.version = "v1",
		.kind = "CronJob",
		.plural = "cronjobs",
		.singular = "cronjob",
		.namespaced = 1,
		.short_names = "cj",
		.categories = "all",
		.subresources = SK_SUB_STATUS,
		.has_spec = 1,
		.ops = &cronjob_ops,
	},
};
const size_t sk__nkinds_batch = sizeof(sk__kinds_batch) / sizeof(sk__kinds_batch[0]);
