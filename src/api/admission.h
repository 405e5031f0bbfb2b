/* The admission chain (upstream's k8s.io/apiserver/pkg/admission): every
 * create, update, delete and connect through sk_api_handle() passes the
 * mutating phase of each plugin (after defaulting, before validation) and
 * then the validating phase (after the object's validation, right before the
 * store write), in the order of the plugin table in admission.c, which
 * follows kube-apiserver's recommended order (NamespaceLifecycle,
 * LimitRanger, ServiceAccount, NodeRestriction, PodSecurity, Priority, …,
 * ResourceQuota last). A plugin refuses with -1 and err, usually
 * SK_EFORBIDDEN with upstream's whole message (`pods "x" is forbidden: …`). */
#ifndef SK_API_ADMISSION_H
#define SK_API_ADMISSION_H

#include "api/api-int.h"
#include "api/auth.h"

typedef enum {
	SK_ADM_CREATE,
	SK_ADM_UPDATE,
	SK_ADM_DELETE,
	SK_ADM_CONNECT,
} sk_adm_op;

typedef struct sk_adm_request {
	sk_adm_op op;
	const sk_user *user;
	const sk_api_resource *res; /* the kind (for a subresource, its parent's) */
	const char *sub;            /* subresource or "" */
	const char *ns, *name;      /* "" for cluster scope; a generated name is set by then */
	json_t *obj;                /* CREATE/UPDATE: the new object (mutable in admit); CONNECT: options or NULL */
	json_t *old;                /* UPDATE/DELETE: the stored object; else NULL */
	int dry_run;
	sk_api_response *resp; /* for Warning headers (sk__add_warning); may be NULL */
	/* validate may refuse as 422 Invalid by field: -1 with causes
	 * ([{reason, message, field}], a new reference the handler frees) */
	json_t *causes;
	/* audit annotations ({key: value}) plugins add, as upstream's
	 * AddAuditAnnotation, when the caller records them; NULL: not recorded */
	json_t *annotations;
} sk_adm_request;

typedef struct sk_adm_plugin {
	const char *name; /* upstream's plugin name, e.g. "ResourceQuota" */
	/* mutating phase; NULL: none */
	int (*admit)(sk_api *api, sk_adm_request *a, sk_error_t *err);
	/* validating phase; NULL: none */
	int (*validate)(sk_api *api, sk_adm_request *a, sk_error_t *err);
} sk_adm_plugin;

int sk__admission_mutate(sk_api *api, sk_adm_request *a, sk_error_t *err);
int sk__admission_validate(sk_api *api, sk_adm_request *a, sk_error_t *err);

#endif
