#include "kube/endpoint.h"
#include "kube/object.h"

static bool cond(json_t *ep, const char *path, bool unset)
{
	json_t *v = sk_kube_jget(ep, path);

	return json_is_boolean(v) ? json_is_true(v) : unset;
}

bool sk_kube_endpoint_ready(json_t *ep) { return cond(ep, "conditions.ready", true); }

bool sk_kube_endpoint_serving(json_t *ep) { return cond(ep, "conditions.serving", sk_kube_endpoint_ready(ep)); }

bool sk_kube_endpoint_terminating(json_t *ep) { return cond(ep, "conditions.terminating", false); }
