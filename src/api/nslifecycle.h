/* The NamespaceLifecycle admission plugin (upstream's
 * plugin/pkg/admission/namespace/lifecycle): nothing is created in a
 * namespace that does not exist or is being terminated, and the namespaces
 * the cluster needs (default, kube-system, kube-public, kube-node-lease)
 * cannot be deleted. */
#ifndef SK_API_NSLIFECYCLE_H
#define SK_API_NSLIFECYCLE_H

#include "api/admission.h"

extern const sk_adm_plugin sk__adm_namespace_lifecycle;

#endif
