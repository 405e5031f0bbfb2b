/* Pure logic of the endpoint controllers (after upstream's
 * pkg/controller/endpoint, pkg/controller/endpointslice with
 * staging/src/k8s.io/endpointslice, and pkg/controller/endpointslicemirroring):
 * which pods back a Service, the EndpointSlices and the Endpoints object they
 * make, and the creates, updates and deletes that bring the stored slices
 * there. No API calls, for unit tests. Every object argument is borrowed;
 * every returned json_t is a new reference the caller decrefs. */
#ifndef SK_CTRL_ENDPOINTUTIL_H
#define SK_CTRL_ENDPOINTUTIL_H

#include <jansson.h>

#define SK_EPS_LABEL_SERVICE "kubernetes.io/service-name"
#define SK_EPS_LABEL_MANAGED_BY "endpointslice.kubernetes.io/managed-by"
#define SK_EPS_LABEL_SKIP_MIRROR "endpointslice.kubernetes.io/skip-mirror"
#define SK_EPS_LABEL_HEADLESS "service.kubernetes.io/headless"
#define SK_EPS_CONTROLLER "endpointslice-controller.k8s.io"
#define SK_EPS_MIRROR_CONTROLLER "endpointslicemirroring-controller.k8s.io"
#define SK_EP_TRIGGER_TIME "endpoints.kubernetes.io/last-change-trigger-time"
#define SK_EP_OVER_CAPACITY "endpoints.kubernetes.io/over-capacity"
#define SK_EP_LEADER_ANNOTATION "control-plane.alpha.kubernetes.io/leader"

/* --max-endpoints-per-slice, the Endpoints capacity and
 * --mirroring-max-endpoints-per-subset defaults. */
enum { SK_EPS_MAX_ENDPOINTS = 100, SK_EP_MAX_CAPACITY = 1000, SK_EPS_MIRROR_MAX = 1000 };

/* The Service has a non-empty spec.selector (selector-less Services get
 * their endpoints from elsewhere). */
int sk_eps_service_selects(json_t *svc);
/* spec.clusterIP is set and not "None". */
int sk_eps_service_ip_set(json_t *svc);
/* "IPv4"/"IPv6" address types of the Service (spec.ipFamilies, else IPv4). */
json_t *sk_eps_address_types(json_t *svc);
/* ShouldPodBeInEndpoints: not Succeeded/Failed, has an IP, and (unless
 * include_terminating) no deletionTimestamp. */
int sk_eps_pod_included(json_t *pod, int include_terminating);
/* FindPort: the pod port svc_port's targetPort names (a named port of a
 * container or restartable init container with the same protocol), the
 * number itself, or -1. */
long sk_eps_find_port(json_t *pod, json_t *svc_port);
/* The pod's IP of the address type ("IPv4"/"IPv6"), or NULL. Borrowed. */
const char *sk_eps_pod_ip(json_t *pod, const char *address_type);

/* The desired endpoints of svc (with a selector) of address_type from pods
 * (the pods its selector matches) and nodes (an object: node name -> Node):
 * an object whose keys identify a port set, each {"ports": [...],
 * "endpoints": [...]}. Pods on a node nodes lacks are skipped (unless
 * publishNotReadyAddresses) and counted in *missing_nodes. */
json_t *sk_eps_desired(json_t *svc, json_t *pods, json_t *nodes, const char *address_type, int *missing_nodes);
/* The labels a slice of svc carries: the Service's, the headless label for
 * a Service without a cluster IP, service-name and managed-by. */
json_t *sk_eps_slice_labels(json_t *svc, const char *managed_by);

/* What brings the stored slices to the desired ones: slices to create
 * (generateName set), to update (the stored slice changed) and to delete. */
typedef struct sk_eps_plan {
	json_t *create, *update, *del;
} sk_eps_plan;

void sk_eps_plan_init(sk_eps_plan *p);
void sk_eps_plan_release(sk_eps_plan *p);

/* The EndpointSlice reconciler for svc: existing are the stored slices
 * labelled for svc and managed by the controller (not being deleted).
 * Slices of an address type the Service no longer has, or owned by
 * another object, are deleted; a placeholder slice is kept when no
 * endpoints exist. max: endpoints per slice. Fills out (initialised). */
void sk_eps_reconcile(json_t *svc, json_t *pods, json_t *nodes, json_t *existing, int max, sk_eps_plan *out,
		      int *missing_nodes);
/* Sets (trigger non-NULL) or removes the last-change-trigger-time
 * annotation on the plan's creates and updates, as upstream's finalize. */
void sk_eps_plan_trigger_time(sk_eps_plan *p, const char *trigger);

/* The mirroring reconciler: the slices mirroring ep (a user's Endpoints of
 * a selector-less Service); existing are the stored slices labelled for it
 * and managed by the mirroring controller. *skipped counts the addresses
 * not mirrored (invalid IPs or over the per-subset maximum), *invalid the
 * invalid IPs among them. */
void sk_eps_mirror_reconcile(json_t *ep, json_t *existing, int max, sk_eps_plan *out, int *skipped, int *invalid);

/* The last-change-trigger-time of svc's endpoints: the latest of the
 * Service's creation and its pods' creation, Ready transition and deletion
 * (upstream's tracker reports the change that triggered a sync); an RFC 3339
 * time, malloc'd, or NULL. */
char *sk_ep_trigger_time(json_t *svc, json_t *pods);

/* Upstream's RepackSubsets: the canonical form of Endpoints subsets (one
 * subset per distinct set of addresses, ports merged, sorted). */
json_t *sk_ep_repack(json_t *subsets);

/* The Endpoints object the endpoints controller wants for svc (with a
 * selector) over pods, starting from current (the stored Endpoints or
 * NULL): subsets, the Service's labels (plus the headless label), the
 * over-capacity annotation when truncated to SK_EP_MAX_CAPACITY addresses,
 * and trigger (an RFC 3339 time or NULL) as the last-change-trigger-time.
 * Returns NULL when current already holds these subsets and labels (no
 * write needed). */
json_t *sk_ep_desired(json_t *svc, json_t *pods, json_t *current, const char *trigger);

#endif
