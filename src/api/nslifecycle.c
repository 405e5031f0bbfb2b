/* The NamespaceLifecycle admission plugin (nslifecycle.h). */
#include "api/nslifecycle.h"

#include <string.h>

#include "util/util.h"

/* upstream's immortalNamespaces, and kube-node-lease, which every node's
 * Lease lives in */
static const char *const immortal[] = {"default", "kube-system", "kube-public", "kube-node-lease", NULL};

/* Creates need an existing namespace that is not being terminated. */
static int lifecycle_admit(sk_api *api, sk_adm_request *a, sk_error_t *err)
{
	cleanup_free char *key = NULL;
	sk_store_kv kv;
	int terminating;

	if (a->op != SK_ADM_CREATE || !a->res->namespaced || !a->ns[0])
		return 0;
	key = xasprintf("/registry/namespaces/%s", a->ns);
	if (sk_store_get(api->store, key, &kv, err) < 0)
		return sk_error_set(err, SK_ENOTFOUND, "namespaces \"%s\" not found", a->ns);
	terminating = strstr(kv.value, "\"deletionTimestamp\"") != NULL;
	sk_store_kv_release(&kv);
	if (terminating)
		return sk_error_set(
			err, SK_EFORBIDDEN,
			"%s%s%s \"%s\" is forbidden: unable to create new content in namespace %s because it "
			"is being terminated",
			a->res->plural, a->res->group[0] ? "." : "", a->res->group, a->name, a->ns);
	return 0;
}

static int lifecycle_validate(sk_api *api, sk_adm_request *a, sk_error_t *err)
{
	(void)api;
	if (a->op != SK_ADM_DELETE || a->res->custom || a->res->group[0] || strcmp(a->res->plural, "namespaces"))
		return 0;
	for (int i = 0; immortal[i]; i++)
		if (!strcmp(a->name, immortal[i]))
			return sk_error_set(err, SK_EFORBIDDEN,
					    "namespaces \"%s\" is forbidden: this namespace may not be deleted",
					    a->name);
	return 0;
}

const sk_adm_plugin sk__adm_namespace_lifecycle = {
	.name = "NamespaceLifecycle",
	.admit = lifecycle_admit,
	.validate = lifecycle_validate,
};
