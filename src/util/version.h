#ifndef SK_UTIL_VERSION_H
#define SK_UTIL_VERSION_H

#ifndef SKIFF_VERSION
#define SKIFF_VERSION "unknown"
#endif
/* The Kubernetes release skiff serves, in one place: its API, /version
 * (major, minor, gitVersion), the kubeletVersion of its nodes, the OpenAPI
 * documents' info.version, the prober's "kube-probe/1.32" User-Agent. */
#define SK_KUBE_MAJOR "1"
#define SK_KUBE_MINOR "32"
#define SK_KUBE_PATCH "0"
#define SK_KUBE_MAJOR_MINOR SK_KUBE_MAJOR "." SK_KUBE_MINOR       /* "1.32" */
#define SK_KUBE_VERSION "v" SK_KUBE_MAJOR_MINOR "." SK_KUBE_PATCH /* "v1.32.0" */

#endif
