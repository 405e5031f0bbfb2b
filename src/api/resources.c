#include <stdio.h>
#include <string.h>

#include "api/api-int.h"
#include "util/util.h"

/* The built-in kinds, one file per API group under kinds/, in the order
 * discovery lists them. */
extern const sk_api_resource sk__kinds_core[];
extern const size_t sk__nkinds_core;
extern const sk_api_resource sk__kinds_storage[];
extern const size_t sk__nkinds_storage;
extern const sk_api_resource sk__kinds_apps[];
extern const size_t sk__nkinds_apps;
extern const sk_api_resource sk__kinds_autoscaling[];
extern const size_t sk__nkinds_autoscaling;
extern const sk_api_resource sk__kinds_batch[];
extern const size_t sk__nkinds_batch;
extern const sk_api_resource sk__kinds_coordination[];
extern const size_t sk__nkinds_coordination;
extern const sk_api_resource sk__kinds_discovery[];
extern const size_t sk__nkinds_discovery;
extern const sk_api_resource sk__kinds_networking[];
extern const size_t sk__nkinds_networking;
extern const sk_api_resource sk__kinds_authorization[];
extern const size_t sk__nkinds_authorization;
extern const sk_api_resource sk__kinds_policy[];
extern const size_t sk__nkinds_policy;
extern const sk_api_resource sk__kinds_rbac[];
extern const size_t sk__nkinds_rbac;
extern const sk_api_resource sk__kinds_node[];
extern const size_t sk__nkinds_node;
extern const sk_api_resource sk__kinds_scheduling[];
extern const size_t sk__nkinds_scheduling;
extern const sk_api_resource sk__kinds_podgroup[];
extern const size_t sk__nkinds_podgroup;
extern const sk_api_resource sk__kinds_authentication[];
extern const size_t sk__nkinds_authentication;
extern const sk_api_resource sk__kinds_certificates[];
extern const size_t sk__nkinds_certificates;
extern const sk_api_resource sk__kinds_metrics[];
extern const size_t sk__nkinds_metrics;
extern const sk_api_resource sk__kinds_admissionregistration[];
extern const size_t sk__nkinds_admissionregistration;
extern const sk_api_resource sk__kinds_apiregistration[];
extern const size_t sk__nkinds_apiregistration;
extern const sk_api_resource sk__kinds_apiextensions[];
extern const size_t sk__nkinds_apiextensions;

static const struct {
	const sk_api_resource *v;
	const size_t *n;
} groups[] = {
	{sk__kinds_core, &sk__nkinds_core},
	{sk__kinds_apiregistration, &sk__nkinds_apiregistration},
	{sk__kinds_storage, &sk__nkinds_storage},
	{sk__kinds_apps, &sk__nkinds_apps},
	{sk__kinds_authentication, &sk__nkinds_authentication},
	{sk__kinds_autoscaling, &sk__nkinds_autoscaling},
	{sk__kinds_batch, &sk__nkinds_batch},
	{sk__kinds_authorization, &sk__nkinds_authorization},
	{sk__kinds_networking, &sk__nkinds_networking},
	{sk__kinds_policy, &sk__nkinds_policy},
	{sk__kinds_rbac, &sk__nkinds_rbac},
	{sk__kinds_certificates, &sk__nkinds_certificates},
	{sk__kinds_coordination, &sk__nkinds_coordination},
	{sk__kinds_node, &sk__nkinds_node},
	{sk__kinds_discovery, &sk__nkinds_discovery},
	{sk__kinds_scheduling, &sk__nkinds_scheduling},
	{sk__kinds_podgroup, &sk__nkinds_podgroup},
	{sk__kinds_admissionregistration, &sk__nkinds_admissionregistration},
	{sk__kinds_apiextensions, &sk__nkinds_apiextensions},
	{sk__kinds_metrics, &sk__nkinds_metrics},
};

static sk_kind_set builtin;
static pthread_once_t builtin_once = PTHREAD_ONCE_INIT;

static void builtin_init(void)
{
	const sk_api_resource **v;
	size_t n = 0;

	for (size_t g = 0; g < sizeof(groups) / sizeof(groups[0]); g++)
		n += *groups[g].n;
	v = xmalloc(n * sizeof(*v));
	n = 0;
	for (size_t g = 0; g < sizeof(groups) / sizeof(groups[0]); g++)
		for (size_t i = 0; i < *groups[g].n; i++)
			v[n++] = &groups[g].v[i];
	builtin.v = v;
	builtin.n = n;
}

const sk_kind_set *sk__kinds_builtin(void)
{
	pthread_once(&builtin_once, builtin_init);
	return &builtin;
}

const sk_api_resource *sk__resource_find(const char *group, const char *version, const char *plural)
{
	const sk_kind_set *ks = sk__kinds();

	for (size_t i = 0; i < ks->n; i++) {
		const sk_api_resource *r = ks->v[i];

		if (!strcmp(r->group, group) && !strcmp(r->version, version) && !strcmp(r->plural, plural))
			return r;
	}
	return NULL;
}

const sk_api_resource *sk__resource_by_kind(const char *group, const char *kind)
{
	const sk_kind_set *ks = sk__kinds();

	for (size_t i = 0; i < ks->n; i++)
		if (!strcmp(ks->v[i]->group, group) && !strcmp(ks->v[i]->kind, kind))
			return ks->v[i];
	return NULL;
}

const sk_api_resource *sk__kind_builtin(const char *kind)
{
	const sk_kind_set *ks = sk__kinds_builtin();

	for (size_t i = 0; kind && i < ks->n; i++)
		if (!strcmp(ks->v[i]->kind, kind))
			return ks->v[i];
	return NULL;
}

const char *sk__resource_list_kind(const sk_api_resource *r, char *buf, size_t len)
{
	if (r->list_kind)
		return r->list_kind;
	snprintf(buf, len, "%sList", r->kind);
	return buf;
}

void sk__resource_gv(const sk_api_resource *r, char *buf, size_t len)
{
	if (r->group[0])
		snprintf(buf, len, "%s/%s", r->group, r->version);
	else
		snprintf(buf, len, "%s", r->version);
}
