#ifndef SK_UTIL_VERSION_H
#define SK_UTIL_VERSION_H

#ifndef SKIFF_VERSION
#define SKIFF_VERSION "unknown"
#endif
/* The Kubernetes API version skiff serves and reports as kubeletVersion. */
#define SK_KUBE_VERSION "v1.32.0"
#define SK_KUBE_MAJOR "1"
#define SK_KUBE_MINOR "32"

#endif
