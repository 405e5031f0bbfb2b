/* The environment variables kubelet gives a container for Services, as
 * pkg/kubelet/envvars.FromServices and kubelet's getServiceEnvVarMap: for each
 * Service with a cluster IP, {NAME}_SERVICE_HOST, {NAME}_SERVICE_PORT,
 * {NAME}_SERVICE_PORT_{PORT} for named ports, and the Docker link variables
 * {NAME}_PORT, {NAME}_PORT_{port}_{PROTO}[_PROTO|_PORT|_ADDR] (NAME: the
 * Service name upper-cased, '-' as '_'). */
#ifndef SK_KUBE_ENVVARS_H
#define SK_KUBE_ENVVARS_H

#include <jansson.h>

/* Whether kubelet makes variables for svc: a clusterIP that is neither "" nor "None". */
int sk_kube_service_ip_set(json_t *svc);
/* Appends to env (an object: name -> string) the variables of svc. */
void sk_kube_service_env(json_t *svc, json_t *env);
/* The variables of a pod in namespace ns: the Services of ns when
 * enable_links (spec.enableServiceLinks, default true), and always the
 * default namespace's "kubernetes" Service (unless ns has its own of that
 * name and links are on). services: an array of Service objects (any
 * namespaces). A new object, name -> string. */
json_t *sk_kube_pod_service_env(json_t *services, const char *ns, int enable_links);

#endif
