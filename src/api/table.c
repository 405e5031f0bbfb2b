/* Server-side printing after upstream's pkg/printers/internalversion
 * (Kubernetes 1.32): per-kind column definitions and row cells. */
#include <ctype.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api-int.h"
#include "api/table.h"
#include "util/util.h"

/* Column descriptions: upstream's SwaggerDoc() strings (k8s.io/api and
 * apimachinery v0.32.0) for the fields printers.go names. */
#define D_NAME \
	"Name must be unique within a namespace. Is required when creating resources, " \
	"although some resources may allow a client to request the generation of an " \
	"appropriate name automatically. Name is primarily intended for creation " \
	"idempotence and configuration definition. Cannot be updated. More info: " \
	"https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names"
#define D_AGE \
	"CreationTimestamp is a timestamp representing the server time when this object " \
	"was created. It is not guaranteed to be set in happens-before order across " \
	"separate operations. Clients may not set this value. It is represented in " \
	"RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for " \
	"lists. More info: " \
	"https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata"
#define D_POD_IP \
	"podIP address allocated to the pod. Routable at least within the cluster. Empty " \
	"if not yet allocated."
#define D_POD_NODE \
	"NodeName indicates in which node this pod is scheduled. If empty, this pod is a " \
	"candidate for scheduling by the scheduler defined in schedulerName. Once this " \
	"field is set, the kubelet for this node becomes responsible for the lifecycle " \
	"of this pod. This field should not be used to express a desire for the pod to " \
	"be scheduled on a specific node. " \
	"https://kubernetes.io/docs/concepts/scheduling-eviction/assign-pod-node/#nodename"
#define D_POD_NOMINATED \
	"nominatedNodeName is set only when this pod preempts other pods on the node, " \
	"but it cannot be scheduled right away as preemption victims receive their " \
	"graceful termination periods. This field does not guarantee that the pod will " \
	"be scheduled on this node. Scheduler may decide to place the pod elsewhere if " \
	"other nodes become available sooner. Scheduler may also decide to give the " \
	"resources on this node to a higher priority pod that is created after " \
	"preemption. As a result, this field may be different than PodSpec.nodeName when " \
	"the pod is scheduled."
#define D_POD_GATES \
	"If specified, all readiness gates will be evaluated for pod readiness. A pod is " \
	"ready when all its containers are ready AND all conditions specified in the " \
	"readiness gates have status equal to \"True\" More info: " \
	"https://git.k8s.io/enhancements/keps/sig-network/580-pod-readiness-gates"
#define D_RS_DESIRED \
	"Replicas is the number of desired replicas. This is a pointer to distinguish " \
	"between explicit zero and unspecified. Defaults to 1. More info: " \
	"https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller/" \
	"#what-is-a-replicationcontroller"
#define D_RS_CURRENT \
	"Replicas is the most recently observed number of replicas. More info: " \
	"https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller/" \
	"#what-is-a-replicationcontroller"
#define D_RS_READY "The number of ready replicas for this replica set."
#define D_RS_SELECTOR \
	"Selector is a label query over pods that should match the replica count. If the " \
	"selector is empty, it is defaulted to the labels present on the pod template. " \
	"Label keys and values that must match in order to be controlled by this replica " \
	"set. More info: " \
	"https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors"
#define D_JOB_SUCCEEDED \
	"The number of pods which reached phase Succeeded. The value increases " \
	"monotonically for a given spec. However, it may decrease in reaction to scale " \
	"down of elastic indexed jobs."
#define D_JOB_SELECTOR \
	"A label query over pods that should match the pod count. Normally, the system " \
	"sets this field for you. More info: " \
	"https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors"
#define D_CJ_SCHEDULE "The schedule in Cron format, see https://en.wikipedia.org/wiki/Cron."
#define D_CJ_TIMEZONE \
	"The time zone name for the given schedule, see " \
	"https://en.wikipedia.org/wiki/List_of_tz_database_time_zones. If not specified, " \
	"this will default to the time zone of the kube-controller-manager process. The " \
	"set of valid time zone names and the time zone offset is loaded from the " \
	"system-wide time zone database by the API server during CronJob validation and " \
	"the controller manager during execution. If no system-wide time zone database " \
	"can be found a bundled version of the database is used instead. If the time " \
	"zone name becomes invalid during the lifetime of a CronJob or due to a change " \
	"in host configuration, the controller will stop creating new new Jobs and will " \
	"create a system event with the reason UnknownTimeZone. More information can be " \
	"found in " \
	"https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/#time-zones"
#define D_CJ_SUSPEND \
	"This flag tells the controller to suspend subsequent executions, it does not " \
	"apply to already started executions.  Defaults to false."
#define D_CJ_ACTIVE "A list of pointers to currently running jobs."
#define D_CJ_LAST "Information when was the last time the job was successfully scheduled."
#define D_SVC_TYPE \
	"type determines how the Service is exposed. Defaults to ClusterIP. Valid " \
	"options are ExternalName, ClusterIP, NodePort, and LoadBalancer. \"ClusterIP\" " \
	"allocates a cluster-internal IP address for load-balancing to endpoints. " \
	"Endpoints are determined by the selector or if that is not specified, by manual " \
	"construction of an Endpoints object or EndpointSlice objects. If clusterIP is " \
	"\"None\", no virtual IP is allocated and the endpoints are published as a set " \
	"of endpoints rather than a virtual IP. \"NodePort\" builds on ClusterIP and " \
	"allocates a port on every node which routes to the same endpoints as the " \
	"clusterIP. \"LoadBalancer\" builds on NodePort and creates an external " \
	"load-balancer (if supported in the current cloud) which routes to the same " \
	"endpoints as the clusterIP. \"ExternalName\" aliases this service to the " \
	"specified externalName. Several other fields do not apply to ExternalName " \
	"services. More info: " \
	"https://kubernetes.io/docs/concepts/services-networking/service/#publishing-services-service-types"
#define D_SVC_CLUSTERIP \
	"clusterIP is the IP address of the service and is usually assigned randomly. If " \
	"an address is specified manually, is in-range (as per system configuration), " \
	"and is not in use, it will be allocated to the service; otherwise creation of " \
	"the service will fail. This field may not be changed through updates unless the " \
	"type field is also being changed to ExternalName (which requires this field to " \
	"be blank) or the type field is being changed from ExternalName (in which case " \
	"this field may optionally be specified, as describe above).  Valid values are " \
	"\"None\", empty string (\"\"), or a valid IP address. Setting this to \"None\" " \
	"makes a \"headless service\" (no virtual IP), which is useful when direct " \
	"endpoint connections are preferred and proxying is not required.  Only applies " \
	"to types ClusterIP, NodePort, and LoadBalancer. If this field is specified when " \
	"creating a Service of type ExternalName, creation will fail. This field will be " \
	"wiped when updating a Service to type ExternalName. More info: " \
	"https://kubernetes.io/docs/concepts/services-networking/service/#virtual-ips-and-service-proxies"
#define D_SVC_EXTERNALIPS \
	"externalIPs is a list of IP addresses for which nodes in the cluster will also " \
	"accept traffic for this service.  These IPs are not managed by Kubernetes.  The " \
	"user is responsible for ensuring that traffic arrives at a node with this IP.  " \
	"A common example is external load-balancers that are not part of the Kubernetes " \
	"system."
#define D_SVC_PORTS \
	"The list of ports that are exposed by this service. More info: " \
	"https://kubernetes.io/docs/concepts/services-networking/service/#virtual-ips-and-service-proxies"
#define D_SVC_SELECTOR \
	"Route service traffic to pods with label keys and values matching this " \
	"selector. If empty or not present, the service is assumed to have an external " \
	"process managing its endpoints, which Kubernetes will not modify. Only applies " \
	"to types ClusterIP, NodePort, and LoadBalancer. Ignored if type is " \
	"ExternalName. More info: " \
	"https://kubernetes.io/docs/concepts/services-networking/service/"
#define D_EP_SUBSETS \
	"The set of all endpoints is the union of all subsets. Addresses are placed into " \
	"subsets according to the IPs they share. A single address with multiple ports, " \
	"some of which are ready and some of which are not (because they come from " \
	"different containers) will result in the address being displayed in different " \
	"subsets for the different ports. No address will appear in both Addresses and " \
	"NotReadyAddresses in the same subset. Sets of addresses and ports that comprise " \
	"a service."
#define D_EPS_ADDRTYPE \
	"addressType specifies the type of address carried by this EndpointSlice. All " \
	"addresses in this slice must be the same type. This field is immutable after " \
	"creation. The following address types are currently supported: * IPv4: " \
	"Represents an IPv4 Address. * IPv6: Represents an IPv6 Address. * FQDN: " \
	"Represents a Fully Qualified Domain Name."
#define D_EPS_PORTS \
	"ports specifies the list of network ports exposed by each endpoint in this " \
	"slice. Each port must have a unique name. When ports is empty, it indicates that " \
	"there are no defined ports. When a port is defined with a nil port value, it " \
	"indicates \"all ports\". Each slice may include a maximum of 100 ports."
#define D_EPS_ENDPOINTS \
	"endpoints is a list of unique endpoints in this slice. Each slice may include a " \
	"maximum of 1000 endpoints."
#define D_NP_SELECTOR \
	"Selects the pods to which this NetworkPolicy object applies. The array of " \
	"ingress rules is applied to any pods selected by this field. Multiple network " \
	"policies can select the same set of pods. In this case, the ingress rules for " \
	"each are combined additively. This field is NOT optional and follows standard " \
	"label selector semantics. An empty podSelector matches all pods in this " \
	"namespace."
#define D_NODE_KUBELET "Kubelet Version reported by the node."
#define D_NODE_ADDRESSES \
	"List of addresses reachable to the node. Queried from cloud provider, if " \
	"available. More info: " \
	"https://kubernetes.io/docs/reference/node/node-status/#addresses Note: This " \
	"field is declared as mergeable, but the merge key is not sufficiently unique, " \
	"which can cause data corruption when it is merged. Callers should instead use a " \
	"full-replacement patch. See https://pr.k8s.io/79391 for an example. Consumers " \
	"should assume that addresses can change during the lifetime of a Node. However, " \
	"there are some exceptions where this may not be possible, such as Pods that " \
	"inherit a Node's address in its own status or consumers of the downward API " \
	"(status.hostIP)."
#define D_NODE_OSIMAGE \
	"OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 " \
	"(wheezy))."
#define D_NODE_KERNEL "Kernel Version reported by the node from 'uname -r' (e.g. 3.16.0-0.bpo.4-amd64)."
#define D_NODE_RUNTIME \
	"ContainerRuntime Version reported by the node through runtime remote API (e.g. " \
	"containerd://1.4.2)."
#define D_EV_LAST "The time at which the most recent occurrence of this event was recorded."
#define D_EV_TYPE "Type of this event (Normal, Warning), new types could be added in the future"
#define D_EV_REASON \
	"This should be a short, machine understandable string that gives the reason for " \
	"the transition into the object's current status."
#define D_EV_OBJECT "The object that this event is about."
#define D_EV_FIELDPATH \
	"If referring to a piece of an object instead of an entire object, this string " \
	"should contain a valid JSON/Go field access statement, such as " \
	"desiredState.manifest.containers[2]. For example, if the object reference is to " \
	"a container within a pod, this would take on a value like: " \
	"\"spec.containers{name}\" (where \"name\" refers to the name of the container " \
	"that triggered the event) or if no container name is specified " \
	"\"spec.containers[2]\" (container with index 2 in this pod). This syntax is " \
	"chosen only to have some well-defined way of referencing a part of an object."
#define D_EV_SOURCE \
	"The component reporting this event. Should be a short machine understandable " \
	"string."
#define D_EV_MESSAGE "A human-readable description of the status of this operation."
#define D_EV_FIRST \
	"The time at which the event was first recorded. (Time of server receipt is in " \
	"TypeMeta.)"
#define D_EV_COUNT "The number of times this event has occurred."
#define D_SECRET_TYPE \
	"Used to facilitate programmatic handling of secret data. More info: " \
	"https://kubernetes.io/docs/concepts/configuration/secret/#secret-types"
#define D_SECRET_DATA \
	"Data contains the secret data. Each key must consist of alphanumeric " \
	"characters, '-', '_' or '.'. The serialized form of the secret data is a base64 " \
	"encoded string, representing the arbitrary (possibly non-string) data value " \
	"here. Described in https://tools.ietf.org/html/rfc4648#section-4"
#define D_SA_SECRETS \
	"Secrets is a list of the secrets in the same namespace that pods running using " \
	"this ServiceAccount are allowed to use. Pods are only limited to this list if " \
	"this service account has a \"kubernetes.io/enforce-mountable-secrets\" " \
	"annotation set to \"true\". The \"kubernetes.io/enforce-mountable-secrets\" " \
	"annotation is deprecated since v1.32. Prefer separate namespaces to isolate " \
	"access to mounted secrets. This field should not be used to find auto-generated " \
	"service account token secrets for use outside of pods. Instead, tokens can be " \
	"requested directly using the TokenRequest API, or service account token secrets " \
	"can be manually created. More info: " \
	"https://kubernetes.io/docs/concepts/configuration/secret"
#define D_PV_CAPACITY \
	"capacity is the description of the persistent volume's resources and capacity. " \
	"More info: " \
	"https://kubernetes.io/docs/concepts/storage/persistent-volumes#capacity"
#define D_PV_MODES \
	"accessModes contains all ways the volume can be mounted. More info: " \
	"https://kubernetes.io/docs/concepts/storage/persistent-volumes#access-modes"
#define D_PV_RECLAIM \
	"persistentVolumeReclaimPolicy defines what happens to a persistent volume when " \
	"released from its claim. Valid options are Retain (default for manually created " \
	"PersistentVolumes), Delete (default for dynamically provisioned " \
	"PersistentVolumes), and Recycle (deprecated). Recycle must be supported by the " \
	"volume plugin underlying this PersistentVolume. More info: " \
	"https://kubernetes.io/docs/concepts/storage/persistent-volumes#reclaiming"
#define D_PV_PHASE \
	"phase indicates if a volume is available, bound to a claim, or released by a " \
	"claim. More info: " \
	"https://kubernetes.io/docs/concepts/storage/persistent-volumes#phase"
#define D_PV_CLAIM \
	"claimRef is part of a bi-directional binding between PersistentVolume and " \
	"PersistentVolumeClaim. Expected to be non-nil when bound. claim.VolumeName is " \
	"the authoritative bind between PV and PVC. More info: " \
	"https://kubernetes.io/docs/concepts/storage/persistent-volumes#binding"
#define D_PV_REASON \
	"reason is a brief CamelCase string that describes any failure and is meant for " \
	"machine parsing and tidy display in the CLI."
#define D_PV_VOLMODE \
	"volumeMode defines if a volume is intended to be used with a formatted " \
	"filesystem or to remain in raw block state. Value of Filesystem is implied when " \
	"not included in spec."
#define D_PVC_PHASE "phase represents the current phase of PersistentVolumeClaim."
#define D_PVC_VOLUME "volumeName is the binding reference to the PersistentVolume backing this claim."
#define D_PVC_CAPACITY "capacity represents the actual resources of the underlying volume."
#define D_PVC_MODES \
	"accessModes contains the actual access modes the volume backing the PVC has. " \
	"More info: " \
	"https://kubernetes.io/docs/concepts/storage/persistent-volumes#access-modes-1"
#define D_PVC_VOLMODE \
	"volumeMode defines what type of volume is required by the claim. Value of " \
	"Filesystem is implied when not included in claim spec."
#define D_DS_DESIRED \
	"The total number of nodes that should be running the daemon pod (including " \
	"nodes correctly running the daemon pod). More info: " \
	"https://kubernetes.io/docs/concepts/workloads/controllers/daemonset/"
#define D_DS_CURRENT \
	"The number of nodes that are running at least 1 daemon pod and are supposed to " \
	"run the daemon pod. More info: " \
	"https://kubernetes.io/docs/concepts/workloads/controllers/daemonset/"
#define D_DS_READY \
	"numberReady is the number of nodes that should be running the daemon pod and " \
	"have one or more of the daemon pod running with a Ready Condition."
#define D_DS_UPDATED "The total number of nodes that are running updated daemon pod"
#define D_DS_AVAILABLE \
	"The number of nodes that should be running the daemon pod and have one or more " \
	"of the daemon pod running and available (ready for at least " \
	"spec.minReadySeconds)"
#define D_DS_NODE_SELECTOR \
	"NodeSelector is a selector which must be true for the pod to fit on a node. " \
	"Selector which must match a node's labels for the pod to be scheduled on that " \
	"node. More info: https://kubernetes.io/docs/concepts/configuration/assign-pod-node/"
#define D_DS_SELECTOR \
	"A label query over pods that are managed by the daemon set. Must match in order " \
	"to be controlled. It must match the pod template's labels. More info: " \
	"https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors"
#define D_CR_REVISION "Revision indicates the revision of the state represented by Data."
#define D_DEP_UPDATED \
	"Total number of non-terminated pods targeted by this deployment that have the " \
	"desired template spec."
#define D_DEP_AVAILABLE \
	"Total number of available pods (ready for at least minReadySeconds) targeted by " \
	"this deployment."
#define D_DEP_SELECTOR \
	"Label selector for pods. Existing ReplicaSets whose pods are selected by this " \
	"will be the ones affected by this deployment."
#define D_CM_DATA \
	"Data contains the configuration data. Each key must consist of alphanumeric " \
	"characters, '-', '_' or '.'. Values with non-UTF-8 byte sequences must use the " \
	"BinaryData field. The keys stored in Data must not overlap with the keys in the " \
	"BinaryData field, this is enforced during validation process."
#define D_LEASE_HOLDER \
	"holderIdentity contains the identity of the holder of a current lease. If " \
	"Coordinated Leader Election is used, the holder identity must be equal to the " \
	"elected LeaseCandidate.metadata.name field."
#define D_SC_PROVISIONER "provisioner indicates the type of the provisioner."
#define D_SC_RECLAIM \
	"reclaimPolicy controls the reclaimPolicy for dynamically provisioned " \
	"PersistentVolumes of this storage class. Defaults to Delete."
#define D_SC_BINDING \
	"volumeBindingMode indicates how PersistentVolumeClaims should be provisioned " \
	"and bound.  When unset, VolumeBindingImmediate is used. This field is only " \
	"honored by servers that enable the VolumeScheduling feature."
#define D_SC_EXPANSION "allowVolumeExpansion shows whether the storage class allow volume expand."
#define D_PC_VALUE \
	"value represents the integer value of this priority class. This is the actual " \
	"priority that pods receive when they have the name of this class in their pod " \
	"spec."
#define D_PC_DEFAULT \
	"globalDefault specifies whether this PriorityClass should be considered as the " \
	"default priority for pods that do not have any priority class. Only one " \
	"PriorityClass can be marked as `globalDefault`. However, if more than one " \
	"PriorityClasses exists with their `globalDefault` field set to true, the " \
	"smallest value of such global default PriorityClasses will be used as the " \
	"default priority."
#define D_PC_PREEMPTION \
	"preemptionPolicy is the Policy for preempting pods with lower priority. One of " \
	"Never, PreemptLowerPriority. Defaults to PreemptLowerPriority if unset."

/* ---- JSON access ---- */

/* Walks a dotted path ("status.phase") through objects; NULL if absent. */
static json_t *jpath(json_t *o, const char *path)
{
	char key[128];

	while (o && *path) {
		const char *dot = strchr(path, '.');
		size_t n = dot ? (size_t)(dot - path) : strlen(path);

		if (n >= sizeof(key) || !json_is_object(o))
			return NULL;
		memcpy(key, path, n);
		key[n] = '\0';
		o = json_object_get(o, key);
		path += n + (dot ? 1 : 0);
	}
	return json_is_null(o) ? NULL : o;
}

/* The string at path, or "" when absent or not a string. */
static const char *jstr(json_t *o, const char *path)
{
	json_t *v = jpath(o, path);

	return json_is_string(v) ? json_string_value(v) : "";
}

static json_int_t jint(json_t *o, const char *path, json_int_t dflt)
{
	json_t *v = jpath(o, path);

	return json_is_integer(v) ? json_integer_value(v) : dflt;
}

static bool jtrue(json_t *o, const char *path) { return json_is_true(jpath(o, path)); }

/* Go's zero time.Time, 0001-01-01T00:00:00Z, in seconds since the epoch. */
#define GO_ZERO_TIME (-62135596800LL)

/* Parses the RFC 3339 time at path; false when absent, unparseable or Go's
 * zero time (what upstream's IsZero() rejects). */
static bool jtime(json_t *o, const char *path, int64_t *t)
{
	const char *s = jstr(o, path);

	return *s && sk_time_parse(s, t) == 0 && *t != GO_ZERO_TIME;
}

static size_t jlen(json_t *o, const char *path)
{
	json_t *v = jpath(o, path);

	if (json_is_array(v))
		return json_array_size(v);
	return json_is_object(v) ? json_object_size(v) : 0;
}

/* ---- growing strings ---- */

struct sbuf {
	char *p;
	size_t len, cap;
};

static void sb_add(struct sbuf *sb, const char *s)
{
	size_t n = strlen(s);

	if (sb->len + n + 1 > sb->cap) {
		sb->cap = (sb->len + n + 1) * 2;
		sb->p = xrealloc(sb->p, sb->cap);
	}
	memcpy(sb->p + sb->len, s, n + 1);
	sb->len += n;
}

/* Adds sep first unless sb is empty. */
static void sb_join(struct sbuf *sb, const char *sep, const char *s)
{
	if (sb->len)
		sb_add(sb, sep);
	sb_add(sb, s);
}

static const char *sb_str(const struct sbuf *sb) { return sb->p ? sb->p : ""; }

__attribute__((format(printf, 2, 3))) static void sb_printf(struct sbuf *sb, const char *fmt, ...)
{
	va_list ap;
	char buf[256];

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	sb_add(sb, buf);
}

static int cmp_strp(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

/* ---- cells ---- */

static void add_s(json_t *cells, const char *s) { json_array_append_new(cells, json_string(s ? s : "")); }

static void add_i(json_t *cells, json_int_t v) { json_array_append_new(cells, json_integer(v)); }

static void add_b(json_t *cells, bool v) { json_array_append_new(cells, json_boolean(v)); }

static void add_sb(json_t *cells, struct sbuf *sb)
{
	add_s(cells, sb_str(sb));
	free(sb->p);
	sb->p = NULL;
	sb->len = sb->cap = 0;
}

/* ---- durations (apimachinery pkg/util/duration) ---- */

void sk_human_duration(int64_t s, char *buf, size_t len)
{
	long long m = s / 60, h = s / 3600;

	if (s < -1)
		snprintf(buf, len, "<invalid>");
	else if (s < 0)
		snprintf(buf, len, "0s");
	else if (s < 60 * 2)
		snprintf(buf, len, "%llds", (long long)s);
	else if (m < 10 && s % 60 == 0)
		snprintf(buf, len, "%lldm", m);
	else if (m < 10)
		snprintf(buf, len, "%lldm%llds", m, (long long)(s % 60));
	else if (m < 60 * 3)
		snprintf(buf, len, "%lldm", m);
	else if (h < 8 && m % 60 == 0)
		snprintf(buf, len, "%lldh", h);
	else if (h < 8)
		snprintf(buf, len, "%lldh%lldm", h, m % 60);
	else if (h < 48)
		snprintf(buf, len, "%lldh", h);
	else if (h < 24 * 8 && h % 24 == 0)
		snprintf(buf, len, "%lldd", h / 24);
	else if (h < 24 * 8)
		snprintf(buf, len, "%lldd%lldh", h / 24, h % 24);
	else if (h < 24 * 365 * 2)
		snprintf(buf, len, "%lldd", h / 24);
	else if (h < 24 * 365 * 8 && (h / 24) % 365 == 0)
		snprintf(buf, len, "%lldy", h / 24 / 365);
	else if (h < 24 * 365 * 8)
		snprintf(buf, len, "%lldy%lldd", h / 24 / 365, (h / 24) % 365);
	else
		snprintf(buf, len, "%lldy", h / 24 / 365);
}

void sk_short_human_duration(int64_t s, char *buf, size_t len)
{
	long long h = s / 3600;

	if (s < -1)
		snprintf(buf, len, "<invalid>");
	else if (s < 0)
		snprintf(buf, len, "0s");
	else if (s < 60)
		snprintf(buf, len, "%llds", (long long)s);
	else if (s / 60 < 60)
		snprintf(buf, len, "%lldm", (long long)(s / 60));
	else if (h < 24)
		snprintf(buf, len, "%lldh", h);
	else if (h < 24 * 365)
		snprintf(buf, len, "%lldd", h / 24);
	else
		snprintf(buf, len, "%lldy", h / 24 / 365);
}

/* translateTimestampSince: HumanDuration since the time at path, or
 * "<unknown>" when there is none. */
static void since(json_t *o, const char *path, int64_t now, char *buf, size_t len)
{
	int64_t t;

	if (jtime(o, path, &t))
		sk_human_duration(now - t, buf, len);
	else
		snprintf(buf, len, "<unknown>");
}

static void add_since(json_t *cells, json_t *o, const char *path, int64_t now)
{
	char buf[32];

	since(o, path, now, buf, sizeof(buf));
	add_s(cells, buf);
}

static void add_age(json_t *cells, json_t *obj, int64_t now)
{
	add_since(cells, obj, "metadata.creationTimestamp", now);
}

/* ---- label selectors (apimachinery labels.Selector.String) ---- */

enum sel_op { OP_EQ, OP_IN, OP_NOTIN, OP_EXISTS, OP_NOTEXISTS };

struct sel_req {
	const char *key;
	enum sel_op op;
	const char **vals;
	size_t nvals, order;
};

static int parse_op(const char *s, enum sel_op *op)
{
	static const struct {
		const char *name;
		enum sel_op op;
	} ops[] = {
		{"In", OP_IN},
		{"NotIn", OP_NOTIN},
		{"Exists", OP_EXISTS},
		{"DoesNotExist", OP_NOTEXISTS},
	};

	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		if (strcmp(s, ops[i].name) == 0) {
			*op = ops[i].op;
			return 0;
		}
	}
	return -1;
}

/* Fills r from one matchExpressions entry; -1 when NewRequirement would fail. */
static int expr_req(json_t *e, struct sel_req *r)
{
	json_t *vals = jpath(e, "values"), *v;
	size_t i;

	r->key = jstr(e, "key");
	if (parse_op(jstr(e, "operator"), &r->op) < 0)
		return -1;
	r->nvals = json_array_size(vals);
	if ((r->op == OP_IN || r->op == OP_NOTIN) && r->nvals == 0)
		return -1;
	if ((r->op == OP_EXISTS || r->op == OP_NOTEXISTS) && r->nvals != 0)
		return -1;
	r->vals = xzalloc((r->nvals + 1) * sizeof(*r->vals));
	json_array_foreach(vals, i, v)
		r->vals[i] = json_is_string(v) ? json_string_value(v) : "";
	qsort(r->vals, r->nvals, sizeof(*r->vals), cmp_strp);
	return 0;
}

static void req_string(struct sbuf *sb, const struct sel_req *r)
{
	static const char *const opstr[] = {
		[OP_EQ] = "=",
		[OP_IN] = " in (",
		[OP_NOTIN] = " notin (",
	};

	if (r->op == OP_NOTEXISTS)
		sb_add(sb, "!");
	sb_add(sb, r->key);
	if (r->op == OP_EXISTS || r->op == OP_NOTEXISTS)
		return;
	sb_add(sb, opstr[r->op]);
	for (size_t i = 0; i < r->nvals; i++) {
		if (i)
			sb_add(sb, ",");
		sb_add(sb, r->vals[i]);
	}
	if (r->op != OP_EQ)
		sb_add(sb, ")");
}

/* Stable sort by key: matchLabels first, then expressions, as added. */
static void sort_reqs(struct sel_req *reqs, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		struct sel_req t = reqs[i];
		size_t j = i;

		while (j > 0 && strcmp(reqs[j - 1].key, t.key) > 0) {
			reqs[j] = reqs[j - 1];
			j--;
		}
		reqs[j] = t;
	}
}

static void free_reqs(struct sel_req *reqs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(reqs[i].vals);
	free(reqs);
}

char *sk_table_selector_string(json_t *selector)
{
	json_t *labels = jpath(selector, "matchLabels");
	json_t *exprs = jpath(selector, "matchExpressions"), *v;
	size_t n = 0, i, max = jlen(selector, "matchLabels") + json_array_size(exprs);
	struct sel_req *reqs = xzalloc((max + 1) * sizeof(*reqs));
	struct sbuf sb = {0};
	const char *key;

	json_object_foreach(labels, key, v) {
		reqs[n] = (struct sel_req){.key = key, .op = OP_EQ, .nvals = 1, .order = n};
		reqs[n].vals = xzalloc(2 * sizeof(*reqs[n].vals));
		reqs[n].vals[0] = json_is_string(v) ? json_string_value(v) : "";
		n++;
	}
	json_array_foreach(exprs, i, v) {
		reqs[n].order = n;
		if (expr_req(v, &reqs[n++]) < 0) {
			free_reqs(reqs, n);
			return NULL;
		}
	}
	sort_reqs(reqs, n);
	for (i = 0; i < n; i++) {
		if (i)
			sb_add(&sb, ",");
		req_string(&sb, &reqs[i]);
	}
	free_reqs(reqs, n);
	return sb.p ? sb.p : xstrdup("");
}

/* metav1.FormatLabelSelector: "<none>" when empty, "<error>" when invalid. */
static void add_label_selector(json_t *cells, json_t *selector)
{
	cleanup_free char *s = sk_table_selector_string(selector);

	add_s(cells, !s ? "<error>" : *s ? s : "<none>");
}

/* labels.FormatLabels: sorted "k=v" pairs, "<none>" when empty. */
static void add_labels(json_t *cells, json_t *map)
{
	size_t n = json_is_object(map) ? json_object_size(map) : 0, i = 0;
	const char **keys = xzalloc((n + 1) * sizeof(*keys));
	struct sbuf sb = {0};
	const char *key;
	json_t *v;

	json_object_foreach(map, key, v)
		keys[i++] = key;
	qsort(keys, n, sizeof(*keys), cmp_strp);
	for (i = 0; i < n; i++) {
		v = json_object_get(map, keys[i]);
		sb_join(&sb, ",", keys[i]);
		sb_add(&sb, "=");
		sb_add(&sb, json_is_string(v) ? json_string_value(v) : "");
	}
	free(keys);
	if (n == 0)
		add_s(cells, "<none>");
	else
		add_sb(cells, &sb);
}

/* layoutContainerCells: names and images joined by ",". */
static void add_containers(json_t *cells, json_t *containers)
{
	struct sbuf names = {0}, images = {0};
	json_t *c;
	size_t i;

	json_array_foreach(containers, i, c) {
		if (i) {
			sb_add(&names, ",");
			sb_add(&images, ",");
		}
		sb_add(&names, jstr(c, "name"));
		sb_add(&images, jstr(c, "image"));
	}
	add_sb(cells, &names);
	add_sb(cells, &images);
}

/* ---- column definitions (printers.go AddHandlers) ---- */

struct col {
	const char *name, *type, *format, *desc;
	int priority;
};

#define COL(n, t, d) \
	{ \
		n, t, "", d, 0 \
	}
#define WIDE(n, t, d) \
	{ \
		n, t, "", d, 1 \
	}
#define C_NAME \
	{ \
		"Name", "string", "name", D_NAME, 0 \
	}
#define C_AGE COL("Age", "string", D_AGE)
#define C_CONTAINERS WIDE("Containers", "string", "Names of each container in the template.")
#define C_IMAGES WIDE("Images", "string", "Images referenced by each container in the template.")

static const struct col pod_cols[] = {
	C_NAME,
	COL("Ready", "string", "The aggregate readiness state of this pod for accepting traffic."),
	COL("Status", "string", "The aggregate status of the containers in this pod."),
	COL("Restarts", "string",
	    "The number of times the containers in this pod have been restarted "
	    "and when the last container in this pod has restarted."),
	C_AGE,
	WIDE("IP", "string", D_POD_IP),
	WIDE("Node", "string", D_POD_NODE),
	WIDE("Nominated Node", "string", D_POD_NOMINATED),
	WIDE("Readiness Gates", "string", D_POD_GATES),
};

static const struct col replicaset_cols[] = {
	C_NAME,
	COL("Desired", "integer", D_RS_DESIRED),
	COL("Current", "integer", D_RS_CURRENT),
	COL("Ready", "integer", D_RS_READY),
	C_AGE,
	C_CONTAINERS,
	C_IMAGES,
	WIDE("Selector", "string", D_RS_SELECTOR),
};

static const struct col replicationcontroller_cols[] = {
	C_NAME,
	COL("Desired", "integer",
	    "Number of desired pods. This is a pointer to distinguish between explicit zero and unspecified. Defaults "
	    "to 1. More info: "
	    "https://kubernetes.io/docs/concepts/workloads/controllers/"
	    "replicationcontroller#what-is-a-replicationcontroller"),
	COL("Current", "integer",
	    "Replicas is the most recently observed number of replicas. More info: "
	    "https://kubernetes.io/docs/concepts/workloads/controllers/"
	    "replicationcontroller#what-is-a-replicationcontroller"),
	COL("Ready", "integer", "The number of ready replicas for this replication controller."),
	C_AGE,
	C_CONTAINERS,
	C_IMAGES,
	WIDE("Selector", "string",
	     "Selector is a label query over pods that should match the Replicas count. If Selector is empty, it is "
	     "defaulted to the labels present on the Pod template. Label keys and values that must match in order to "
	     "be controlled by this replication controller, if empty defaulted to labels on Pod template. More info: "
	     "https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors"),
};

static const struct col pdb_cols[] = {
	C_NAME,
	COL("Min Available", "string",
	    "The minimum number of pods that must be available, either as an absolute number or as a percentage."),
	COL("Max Unavailable", "string",
	    "The maximum number of pods that may be unavailable, either as an absolute number or as a percentage."),
	COL("Allowed Disruptions", "integer", "Calculated number of pods that may be disrupted at this time."),
	C_AGE,
};

static const struct col daemonset_cols[] = {
	C_NAME,
	COL("Desired", "integer", D_DS_DESIRED),
	COL("Current", "integer", D_DS_CURRENT),
	COL("Ready", "integer", D_DS_READY),
	COL("Up-to-date", "integer", D_DS_UPDATED),
	COL("Available", "integer", D_DS_AVAILABLE),
	COL("Node Selector", "string", D_DS_NODE_SELECTOR),
	C_AGE,
	C_CONTAINERS,
	C_IMAGES,
	WIDE("Selector", "string", D_DS_SELECTOR),
};

static const struct col statefulset_cols[] = {
	C_NAME, COL("Ready", "string", "Number of the pod with ready state"), C_AGE, C_CONTAINERS, C_IMAGES,
};

static const struct col controllerrevision_cols[] = {
	C_NAME,
	COL("Controller", "string", "Controller of the object"),
	COL("Revision", "string", D_CR_REVISION),
	C_AGE,
};

static const struct col deployment_cols[] = {
	C_NAME,
	COL("Ready", "string", "Number of the pod with ready state"),
	COL("Up-to-date", "string", D_DEP_UPDATED),
	COL("Available", "string", D_DEP_AVAILABLE),
	C_AGE,
	C_CONTAINERS,
	C_IMAGES,
	WIDE("Selector", "string", D_DEP_SELECTOR),
};

static const struct col job_cols[] = {
	C_NAME,
	COL("Status", "string", "Status of the job."),
	COL("Completions", "string", D_JOB_SUCCEEDED),
	COL("Duration", "string", "Time required to complete the job."),
	C_AGE,
	C_CONTAINERS,
	C_IMAGES,
	WIDE("Selector", "string", D_JOB_SELECTOR),
};

static const struct col cronjob_cols[] = {
	C_NAME,
	COL("Schedule", "string", D_CJ_SCHEDULE),
	COL("Timezone", "string", D_CJ_TIMEZONE),
	COL("Suspend", "boolean", D_CJ_SUSPEND),
	COL("Active", "integer", D_CJ_ACTIVE),
	COL("Last Schedule", "string", D_CJ_LAST),
	C_AGE,
	C_CONTAINERS,
	C_IMAGES,
	WIDE("Selector", "string", D_JOB_SELECTOR),
};

static const struct col service_cols[] = {
	C_NAME,
	COL("Type", "string", D_SVC_TYPE),
	COL("Cluster-IP", "string", D_SVC_CLUSTERIP),
	COL("External-IP", "string", D_SVC_EXTERNALIPS),
	COL("Port(s)", "string", D_SVC_PORTS),
	C_AGE,
	WIDE("Selector", "string", D_SVC_SELECTOR),
};

static const struct col endpoints_cols[] = {
	C_NAME,
	COL("Endpoints", "string", D_EP_SUBSETS),
	C_AGE,
};

static const struct col node_cols[] = {
	C_NAME,
	COL("Status", "string", "The status of the node"),
	COL("Roles", "string", "The roles of the node"),
	C_AGE,
	COL("Version", "string", D_NODE_KUBELET),
	WIDE("Internal-IP", "string", D_NODE_ADDRESSES),
	WIDE("External-IP", "string", D_NODE_ADDRESSES),
	WIDE("OS-Image", "string", D_NODE_OSIMAGE),
	WIDE("Kernel-Version", "string", D_NODE_KERNEL),
	WIDE("Container-Runtime", "string", D_NODE_RUNTIME),
};

static const struct col event_cols[] = {
	COL("Last Seen", "string", D_EV_LAST),       COL("Type", "string", D_EV_TYPE),
	COL("Reason", "string", D_EV_REASON),        COL("Object", "string", D_EV_OBJECT),
	WIDE("Subobject", "string", D_EV_FIELDPATH), WIDE("Source", "string", D_EV_SOURCE),
	COL("Message", "string", D_EV_MESSAGE),      WIDE("First Seen", "string", D_EV_FIRST),
	WIDE("Count", "string", D_EV_COUNT),         {"Name", "string", "name", D_NAME, 1},
};

static const struct col namespace_cols[] = {
	C_NAME,
	COL("Status", "string", "The status of the namespace"),
	C_AGE,
};

static const struct col secret_cols[] = {
	C_NAME,
	COL("Type", "string", D_SECRET_TYPE),
	COL("Data", "string", D_SECRET_DATA),
	C_AGE,
};

static const struct col serviceaccount_cols[] = {
	C_NAME,
	COL("Secrets", "string", D_SA_SECRETS),
	C_AGE,
};

static const struct col pv_cols[] = {
	C_NAME,
	COL("Capacity", "string", D_PV_CAPACITY),
	COL("Access Modes", "string", D_PV_MODES),
	COL("Reclaim Policy", "string", D_PV_RECLAIM),
	COL("Status", "string", D_PV_PHASE),
	COL("Claim", "string", D_PV_CLAIM),
	COL("StorageClass", "string", "StorageClass of the pv"),
	COL("VolumeAttributesClass", "string", "VolumeAttributesClass of the pv"),
	COL("Reason", "string", D_PV_REASON),
	C_AGE,
	WIDE("VolumeMode", "string", D_PV_VOLMODE),
};

static const struct col pvc_cols[] = {
	C_NAME,
	COL("Status", "string", D_PVC_PHASE),
	COL("Volume", "string", D_PVC_VOLUME),
	COL("Capacity", "string", D_PVC_CAPACITY),
	COL("Access Modes", "string", D_PVC_MODES),
	COL("StorageClass", "string", "StorageClass of the pvc"),
	COL("VolumeAttributesClass", "string", "VolumeAttributesClass of the pvc"),
	C_AGE,
	WIDE("VolumeMode", "string", D_PVC_VOLMODE),
};

static const struct col configmap_cols[] = {
	C_NAME,
	COL("Data", "string", D_CM_DATA),
	C_AGE,
};

static const struct col endpointslice_cols[] = {
	C_NAME,
	COL("AddressType", "string", D_EPS_ADDRTYPE),
	COL("Ports", "string", D_EPS_PORTS),
	COL("Endpoints", "string", D_EPS_ENDPOINTS),
	C_AGE,
};

static const struct col networkpolicy_cols[] = {
	C_NAME,
	COL("Pod-Selector", "string", D_NP_SELECTOR),
	C_AGE,
};

static const struct col rolebinding_cols[] = {
	C_NAME,
	COL("Role", "string",
	    "RoleRef can reference a Role in the current namespace or a ClusterRole in the global "
	    "namespace. If the RoleRef cannot be resolved, the Authorizer must return an error. This "
	    "field is immutable."),
	C_AGE,
	WIDE("Users", "string", "Users in the roleBinding"),
	WIDE("Groups", "string", "Groups in the roleBinding"),
	WIDE("ServiceAccounts", "string", "ServiceAccounts in the roleBinding"),
};

static const struct col lease_cols[] = {
	C_NAME,
	COL("Holder", "string", D_LEASE_HOLDER),
	C_AGE,
};

/* kube-aggregator's ConvertToTable */
static const struct col apiservice_cols[] = {
	C_NAME,
	COL("Service", "string", "The reference to the service that hosts this API endpoint."),
	COL("Available", "string", "Whether this service is available."),
	C_AGE,
};

static const struct col csr_cols[] = {
	C_NAME,
	C_AGE,
	COL("SignerName", "string",
	    "signerName indicates the requested signer, and is a qualified name.\n\nList/watch requests for "
	    "CertificateSigningRequests can filter on this field using a \"spec.signerName=NAME\" fieldSelector."),
	COL("Requestor", "string",
	    "request contains an x509 certificate signing request encoded in a \"CERTIFICATE REQUEST\" PEM block. "
	    "When serialized as JSON or YAML, the data is additionally base64-encoded."),
	COL("RequestedDuration", "string",
	    "expirationSeconds is the requested duration of validity of the issued certificate."),
	COL("Condition", "string",
	    "conditions applied to the request. Known conditions are \"Approved\", "
	    "\"Denied\", and \"Failed\"."),
};

static const struct col storageclass_cols[] = {
	C_NAME,
	COL("Provisioner", "string", D_SC_PROVISIONER),
	COL("ReclaimPolicy", "string", D_SC_RECLAIM),
	COL("VolumeBindingMode", "string", D_SC_BINDING),
	COL("AllowVolumeExpansion", "string", D_SC_EXPANSION),
	C_AGE,
};

static const struct col resourcequota_cols[] = {
	C_NAME,
	COL("Request", "string", "Request represents a minimum amount of cpu/memory that a container may consume."),
	COL("Limit", "string",
	    "Limits control the maximum amount of cpu/memory that a container may use "
	    "independent of contention on the node."),
	C_AGE,
};

static const struct col priorityclass_cols[] = {
	C_NAME,
	COL("Value", "integer", D_PC_VALUE),
	COL("Global-Default", "boolean", D_PC_DEFAULT),
	C_AGE,
	COL("PreemptionPolicy", "string", D_PC_PREEMPTION),
};

static const struct col webhookconfiguration_cols[] = {
	C_NAME,
	COL("Webhooks", "integer", "Webhooks indicates the number of webhooks in the configuration"),
	C_AGE,
};

static const struct col vap_cols[] = {
	C_NAME,
	COL("Validations", "integer",
	    "Validation indicates the number of validation rules defined in this configuration"),
	COL("ParamKind", "string", "ParamKind specifies the kind of resources used to parameterize this policy"),
	C_AGE,
};

static const struct col vapb_cols[] = {
	C_NAME,
	COL("PolicyName", "string", "PolicyName indicates the policy definition which the policy binding binded to"),
	COL("ParamRef", "string", "ParamRef indicates the param resource which sets the configration param"),
	C_AGE,
};

/* Upstream's description comes from ObjectMeta's SwaggerDoc()["handler"],
 * which does not exist: it is empty. */
static const struct col runtimeclass_cols[] = {
	C_NAME,
	COL("Handler", "string", ""),
	C_AGE,
};

/* PodGroup (scheduling.x-k8s.io) is ours: no upstream printer. */
static const struct col podgroup_cols[] = {
	C_NAME,
	COL("MinMember", "integer", "MinMember defines the minimal number of members/tasks to run the pod group."),
	COL("Phase", "string", "Current phase of PodGroup."),
	COL("Running", "integer", "The number of actively running pods."),
	C_AGE,
	WIDE("Succeeded", "integer", "The number of pods which reached phase Succeeded."),
	WIDE("Failed", "integer", "The number of pods which reached phase Failed."),
};

/* rest.DefaultTableConvertor. */
static const struct col default_cols[] = {
	C_NAME,
	COL("Created At", "date", D_AGE),
};

/* ---- HorizontalPodAutoscaler ---- */

static const struct col hpa_cols[] = {
	C_NAME,
	COL("Reference", "string",
	    "scaleTargetRef points to the target resource to scale, and is used to the pods "
	    "for which metrics should be collected, as well as to actually change the replica "
	    "count."),
	COL("Targets", "string",
	    "metrics contains the specifications for which to use to calculate the desired "
	    "replica count (the maximum replica count across all metrics will be used)."),
	COL("MinPods", "string",
	    "minReplicas is the lower limit for the number of replicas to which the autoscaler "
	    "can scale down. It defaults to 1 pod."),
	COL("MaxPods", "integer",
	    "maxReplicas is the upper limit for the number of replicas to which the autoscaler "
	    "can scale up. It cannot be less that minReplicas."),
	COL("Replicas", "integer",
	    "currentReplicas is current number of replicas of pods managed by this "
	    "autoscaler, as last seen by the autoscaler."),
	C_AGE,
};

/* One metric of formatHPAMetrics: "cpu: 12%/50%", "<unknown>/10 (avg)". */
static void hpa_metric(struct sbuf *sb, json_t *spec, json_t *status)
{
	const char *type = jstr(spec, "type");
	const char *unk = "<unknown>";

	if (type && (!strcmp(type, "Resource") || !strcmp(type, "ContainerResource"))) {
		const char *f = !strcmp(type, "Resource") ? "resource" : "containerResource";
		json_t *src = json_object_get(spec, f), *cur = json_object_get(json_object_get(status, f), "current");
		json_t *t = json_object_get(src, "target");
		const char *name = jstr(src, "name");

		if (json_object_get(t, "averageValue")) {
			const char *c = json_string_value(json_object_get(cur, "averageValue"));

			sb_printf(sb, "%s: %s/%s", name ? name : "", c ? c : unk, jstr(t, "averageValue"));
		} else {
			json_t *cu = json_object_get(cur, "averageUtilization"),
			       *tu = json_object_get(t, "averageUtilization");
			char c[24] = "<unknown>", tg[24] = "<auto>";

			if (json_is_integer(cu))
				snprintf(c, sizeof(c), "%lld%%", (long long)json_integer_value(cu));
			if (json_is_integer(tu))
				snprintf(tg, sizeof(tg), "%lld%%", (long long)json_integer_value(tu));
			sb_printf(sb, "%s: %s/%s", name ? name : "", c, tg);
		}
	} else if (type && (!strcmp(type, "External") || !strcmp(type, "Object") || !strcmp(type, "Pods"))) {
		const char *f = !strcmp(type, "External") ? "external" : !strcmp(type, "Object") ? "object" : "pods";
		json_t *t = json_object_get(json_object_get(spec, f), "target");
		json_t *cur = json_object_get(json_object_get(status, f), "current");
		int avg = json_object_get(t, "averageValue") != NULL;
		const char *tv = jstr(t, avg ? "averageValue" : "value");
		const char *c = json_string_value(json_object_get(cur, avg ? "averageValue" : "value"));

		sb_printf(sb, "%s/%s%s", c ? c : unk, tv ? tv : "", avg && strcmp(f, "pods") ? " (avg)" : "");
	} else {
		sb_printf(sb, "<unknown type>");
	}
}

static void hpa_cells(json_t *cells, json_t *obj, int64_t now)
{
	cleanup_json json_t *hpa = json_deep_copy(obj);
	json_t *specs, *statuses;
	struct sbuf sb = {0};
	size_t n, i;
	const char *min = NULL;
	char num[24];

	sk__hpa_to_v2(hpa);
	specs = jpath(hpa, "spec.metrics");
	statuses = jpath(hpa, "status.currentMetrics");
	n = json_array_size(specs);
	add_s(cells, jstr(hpa, "metadata.name"));
	sb_printf(&sb, "%s/%s", jstr(hpa, "spec.scaleTargetRef.kind") ? jstr(hpa, "spec.scaleTargetRef.kind") : "",
		  jstr(hpa, "spec.scaleTargetRef.name") ? jstr(hpa, "spec.scaleTargetRef.name") : "");
	add_sb(cells, &sb);
	if (!n)
		sb_printf(&sb, "<none>");
	for (i = 0; i < n && i < 2; i++) {
		if (i)
			sb_printf(&sb, ", ");
		hpa_metric(&sb, json_array_get(specs, i), json_array_get(statuses, i));
	}
	if (n > 2)
		sb_printf(&sb, " + %zu more...", n - 2);
	add_sb(cells, &sb);
	if (json_is_integer(jpath(hpa, "spec.minReplicas"))) {
		snprintf(num, sizeof(num), "%lld", (long long)jint(hpa, "spec.minReplicas", 0));
		min = num;
	}
	add_s(cells, min ? min : "<unset>");
	add_i(cells, jint(hpa, "spec.maxReplicas", 0));
	add_i(cells, jint(hpa, "status.currentReplicas", 0));
	add_age(cells, hpa, now);
}

/* ---- Pod ---- */

#define NO_TIME INT64_MIN

struct pod_print {
	long long restarts, sidecar_restarts;
	int64_t last_restart, sidecar_last_restart; /* NO_TIME: none */
	int ready, total;
	bool initializing;
	char reason[256];
};

/* IsRestartableInitContainer for the init container called name. */
static bool is_sidecar(json_t *pod, const char *name)
{
	json_t *c;
	size_t i;

	json_array_foreach(jpath(pod, "spec.initContainers"), i, c) {
		if (strcmp(jstr(c, "name"), name) == 0)
			return strcmp(jstr(c, "restartPolicy"), "Always") == 0;
	}
	return false;
}

static void note_restart(json_t *cs, int64_t *last)
{
	int64_t t;

	if (jtime(cs, "lastState.terminated.finishedAt", &t) && (*last == NO_TIME || t > *last))
		*last = t;
}

static bool has_condition(json_t *obj, const char *type, const char *status)
{
	json_t *c;
	size_t i;

	json_array_foreach(jpath(obj, "status.conditions"), i, c) {
		if (strcmp(jstr(c, "type"), type) == 0)
			return strcmp(jstr(c, "status"), status) == 0;
	}
	return false;
}

/* hasPodReadyCondition: any Ready condition that is True. */
static bool pod_ready_condition(json_t *pod)
{
	json_t *c;
	size_t i;

	json_array_foreach(jpath(pod, "status.conditions"), i, c) {
		if (strcmp(jstr(c, "type"), "Ready") == 0 && strcmp(jstr(c, "status"), "True") == 0)
			return true;
	}
	return false;
}

/* A terminated state's reason, else "<prefix>Signal:N" or "<prefix>ExitCode:N". */
static void terminated_reason(json_t *term, const char *prefix, char *buf, size_t len)
{
	const char *reason = jstr(term, "reason");

	if (*reason)
		snprintf(buf, len, "%s%s", prefix, reason);
	else if (jint(term, "signal", 0) != 0)
		snprintf(buf, len, "%sSignal:%lld", prefix, (long long)jint(term, "signal", 0));
	else
		snprintf(buf, len, "%sExitCode:%lld", prefix, (long long)jint(term, "exitCode", 0));
}

/* One init container status; true when it decides the pod's reason (the
 * loop stops there, as upstream's does). */
static bool pod_init_container(struct pod_print *p, json_t *pod, json_t *cs, size_t i)
{
	bool sidecar = is_sidecar(pod, jstr(cs, "name"));
	json_t *term = jpath(cs, "state.terminated");
	const char *waiting = jstr(cs, "state.waiting.reason");

	p->restarts += jint(cs, "restartCount", 0);
	note_restart(cs, &p->last_restart);
	if (sidecar) {
		p->sidecar_restarts += jint(cs, "restartCount", 0);
		note_restart(cs, &p->sidecar_last_restart);
	}
	if (term && jint(term, "exitCode", 0) == 0)
		return false;
	if (sidecar && jtrue(cs, "started")) {
		if (jtrue(cs, "ready"))
			p->ready++;
		return false;
	}
	if (term)
		terminated_reason(term, "Init:", p->reason, sizeof(p->reason));
	else if (*waiting && strcmp(waiting, "PodInitializing") != 0)
		snprintf(p->reason, sizeof(p->reason), "Init:%s", waiting);
	else
		snprintf(p->reason, sizeof(p->reason), "Init:%zu/%zu", i, jlen(pod, "spec.initContainers"));
	p->initializing = true;
	return true;
}

static void pod_init_containers(struct pod_print *p, json_t *pod)
{
	json_t *cs;
	size_t i;

	json_array_foreach(jpath(pod, "status.initContainerStatuses"), i, cs) {
		if (pod_init_container(p, pod, cs, i))
			break;
	}
}

/* Regular containers, last to first, so the first one with a reason wins. */
static void pod_containers(struct pod_print *p, json_t *pod)
{
	json_t *statuses = jpath(pod, "status.containerStatuses");
	bool has_running = false;

	p->restarts = p->sidecar_restarts;
	p->last_restart = p->sidecar_last_restart;
	for (size_t i = json_array_size(statuses); i-- > 0;) {
		json_t *cs = json_array_get(statuses, i);
		json_t *term = jpath(cs, "state.terminated");
		const char *waiting = jstr(cs, "state.waiting.reason");

		p->restarts += jint(cs, "restartCount", 0);
		note_restart(cs, &p->last_restart);
		if (*waiting) {
			snprintf(p->reason, sizeof(p->reason), "%s", waiting);
		} else if (term) {
			terminated_reason(term, "", p->reason, sizeof(p->reason));
		} else if (jtrue(cs, "ready") && jpath(cs, "state.running")) {
			has_running = true;
			p->ready++;
		}
	}
	if (strcmp(p->reason, "Completed") == 0 && has_running)
		snprintf(p->reason, sizeof(p->reason), "%s", pod_ready_condition(pod) ? "Running" : "NotReady");
}

static void pod_reason_base(struct pod_print *p, json_t *pod)
{
	const char *reason = jstr(pod, "status.reason");
	json_t *c;
	size_t i;

	snprintf(p->reason, sizeof(p->reason), "%s", *reason ? reason : jstr(pod, "status.phase"));
	json_array_foreach(jpath(pod, "status.conditions"), i, c) {
		if (strcmp(jstr(c, "type"), "PodScheduled") == 0 && strcmp(jstr(c, "reason"), "SchedulingGated") == 0)
			snprintf(p->reason, sizeof(p->reason), "SchedulingGated");
	}
}

static void pod_deletion(struct pod_print *p, json_t *pod)
{
	const char *phase = jstr(pod, "status.phase");

	if (!jpath(pod, "metadata.deletionTimestamp"))
		return;
	if (strcmp(jstr(pod, "status.reason"), "NodeLost") == 0)
		snprintf(p->reason, sizeof(p->reason), "Unknown");
	else if (strcmp(phase, "Succeeded") != 0 && strcmp(phase, "Failed") != 0)
		snprintf(p->reason, sizeof(p->reason), "Terminating");
}

static void pod_total(struct pod_print *p, json_t *pod)
{
	json_t *c;
	size_t i;

	p->total = (int)jlen(pod, "spec.containers");
	json_array_foreach(jpath(pod, "spec.initContainers"), i, c) {
		if (strcmp(jstr(c, "restartPolicy"), "Always") == 0)
			p->total++;
	}
}

static void add_pod_restarts(json_t *cells, const struct pod_print *p, int64_t now)
{
	char buf[64], ago[32];

	if (p->restarts != 0 && p->last_restart != NO_TIME) {
		sk_human_duration(now - p->last_restart, ago, sizeof(ago));
		snprintf(buf, sizeof(buf), "%lld (%s ago)", p->restarts, ago);
	} else {
		snprintf(buf, sizeof(buf), "%lld", p->restarts);
	}
	add_s(cells, buf);
}

static void add_readiness_gates(json_t *cells, json_t *pod)
{
	json_t *gate, *c;
	size_t i, j, n = jlen(pod, "spec.readinessGates"), ok = 0;
	char buf[48];

	if (n == 0) {
		add_s(cells, "<none>");
		return;
	}
	json_array_foreach(jpath(pod, "spec.readinessGates"), i, gate) {
		json_array_foreach(jpath(pod, "status.conditions"), j, c) {
			if (strcmp(jstr(c, "type"), jstr(gate, "conditionType")) == 0) {
				ok += strcmp(jstr(c, "status"), "True") == 0;
				break;
			}
		}
	}
	snprintf(buf, sizeof(buf), "%zu/%zu", ok, n);
	add_s(cells, buf);
}

static const char *or_none(const char *s) { return *s ? s : "<none>"; }

/* The pod's first IP as the v1-to-internal conversion upstream prints from
 * leaves it: status.podIP wins over status.podIPs when both are set. */
static const char *pod_ip(json_t *pod)
{
	const char *ip = jstr(pod, "status.podIP");

	return *ip ? ip : jstr(json_array_get(jpath(pod, "status.podIPs"), 0), "ip");
}

static void pod_cells(json_t *cells, json_t *pod, int64_t now)
{
	struct pod_print p = {.last_restart = NO_TIME, .sidecar_last_restart = NO_TIME};
	char ready[48];

	pod_total(&p, pod);
	pod_reason_base(&p, pod);
	pod_init_containers(&p, pod);
	if (!p.initializing || has_condition(pod, "Initialized", "True"))
		pod_containers(&p, pod);
	pod_deletion(&p, pod);

	snprintf(ready, sizeof(ready), "%d/%d", p.ready, p.total);
	add_s(cells, jstr(pod, "metadata.name"));
	add_s(cells, ready);
	add_s(cells, p.reason);
	add_pod_restarts(cells, &p, now);
	add_age(cells, pod, now);
	add_s(cells, or_none(pod_ip(pod)));
	add_s(cells, or_none(jstr(pod, "spec.nodeName")));
	add_s(cells, or_none(jstr(pod, "status.nominatedNodeName")));
	add_readiness_gates(cells, pod);
}

static json_t *pod_conditions(json_t *pod)
{
	const char *phase = jstr(pod, "status.phase");
	const char *msg;

	if (strcmp(phase, "Succeeded") == 0)
		msg = "The pod has completed successfully.";
	else if (strcmp(phase, "Failed") == 0)
		msg = "The pod failed.";
	else
		return NULL;
	return json_pack("[{s:s, s:s, s:s, s:s}]", "type", "Completed", "status", "True", "reason", phase, "message",
			 msg);
}

/* ---- workloads ---- */

static void add_ratio(json_t *cells, long long a, long long b)
{
	char buf[48];

	snprintf(buf, sizeof(buf), "%lld/%lld", a, b);
	add_s(cells, buf);
}

static void replicaset_cells(json_t *cells, json_t *rs, int64_t now)
{
	add_s(cells, jstr(rs, "metadata.name"));
	add_i(cells, jint(rs, "spec.replicas", 1));
	add_i(cells, jint(rs, "status.replicas", 0));
	add_i(cells, jint(rs, "status.readyReplicas", 0));
	add_age(cells, rs, now);
	add_containers(cells, jpath(rs, "spec.template.spec.containers"));
	add_label_selector(cells, jpath(rs, "spec.selector"));
}

static void replicationcontroller_cells(json_t *cells, json_t *rc, int64_t now)
{
	add_s(cells, jstr(rc, "metadata.name"));
	add_i(cells, jint(rc, "spec.replicas", 1));
	add_i(cells, jint(rc, "status.replicas", 0));
	add_i(cells, jint(rc, "status.readyReplicas", 0));
	add_age(cells, rc, now);
	add_containers(cells, jpath(rc, "spec.template.spec.containers"));
	add_labels(cells, jpath(rc, "spec.selector"));
}

/* An int-or-string as printed ("N/A" when unset). */
static void add_intstr(json_t *cells, json_t *v)
{
	char buf[32];

	if (json_is_string(v)) {
		add_s(cells, json_string_value(v));
	} else if (json_is_integer(v)) {
		snprintf(buf, sizeof(buf), "%lld", (long long)json_integer_value(v));
		add_s(cells, buf);
	} else {
		add_s(cells, "N/A");
	}
}

static void pdb_cells(json_t *cells, json_t *pdb, int64_t now)
{
	add_s(cells, jstr(pdb, "metadata.name"));
	add_intstr(cells, jpath(pdb, "spec.minAvailable"));
	add_intstr(cells, jpath(pdb, "spec.maxUnavailable"));
	add_i(cells, jint(pdb, "status.disruptionsAllowed", 0));
	add_age(cells, pdb, now);
}

static void daemonset_cells(json_t *cells, json_t *ds, int64_t now)
{
	add_s(cells, jstr(ds, "metadata.name"));
	add_i(cells, jint(ds, "status.desiredNumberScheduled", 0));
	add_i(cells, jint(ds, "status.currentNumberScheduled", 0));
	add_i(cells, jint(ds, "status.numberReady", 0));
	add_i(cells, jint(ds, "status.updatedNumberScheduled", 0));
	add_i(cells, jint(ds, "status.numberAvailable", 0));
	add_labels(cells, jpath(ds, "spec.template.spec.nodeSelector"));
	add_age(cells, ds, now);
	add_containers(cells, jpath(ds, "spec.template.spec.containers"));
	add_label_selector(cells, jpath(ds, "spec.selector"));
}

/* printStatefulSet: READY is readyReplicas/spec.replicas. */
static void statefulset_cells(json_t *cells, json_t *ss, int64_t now)
{
	add_s(cells, jstr(ss, "metadata.name"));
	add_ratio(cells, jint(ss, "status.readyReplicas", 0), jint(ss, "spec.replicas", 1));
	add_age(cells, ss, now);
	add_containers(cells, jpath(ss, "spec.template.spec.containers"));
}

/* formatResourceName(GroupKind, name, withKind): "daemonset.apps/web". */
static void controllerrevision_cells(json_t *cells, json_t *cr, int64_t now)
{
	json_t *refs = jpath(cr, "metadata.ownerReferences"), *ref, *ctl = NULL;
	size_t i;

	add_s(cells, jstr(cr, "metadata.name"));
	json_array_foreach(refs, i, ref)
		if (json_is_true(json_object_get(ref, "controller")) && !ctl)
			ctl = ref;
	if (ctl) {
		const char *av = json_string_value(json_object_get(ctl, "apiVersion"));
		const char *kind = json_string_value(json_object_get(ctl, "kind"));
		const char *name = json_string_value(json_object_get(ctl, "name"));
		const char *slash = av ? strchr(av, '/') : NULL;
		char *s = slash ? xasprintf("%s.%.*s/%s", kind ? kind : "", (int)(slash - av), av, name ? name : "")
				: xasprintf("%s/%s", kind ? kind : "", name ? name : "");

		for (char *c = s; *c && *c != '/'; c++)
			*c = (char)tolower((unsigned char)*c);
		add_s(cells, s);
		free(s);
	} else {
		add_s(cells, "<none>");
	}
	add_i(cells, jint(cr, "revision", 0));
	add_age(cells, cr, now);
}

static void deployment_cells(json_t *cells, json_t *d, int64_t now)
{
	cleanup_free char *selector = sk_table_selector_string(jpath(d, "spec.selector"));

	add_s(cells, jstr(d, "metadata.name"));
	add_ratio(cells, jint(d, "status.readyReplicas", 0), jint(d, "spec.replicas", 1));
	add_i(cells, jint(d, "status.updatedReplicas", 0));
	add_i(cells, jint(d, "status.availableReplicas", 0));
	add_age(cells, d, now);
	add_containers(cells, jpath(d, "spec.template.spec.containers"));
	add_s(cells, selector ? selector : "<invalid>");
}

static void add_job_completions(json_t *cells, json_t *job)
{
	long long ok = jint(job, "status.succeeded", 0);
	long long parallelism = jint(job, "spec.parallelism", 0);
	char buf[64];

	if (jpath(job, "spec.completions"))
		snprintf(buf, sizeof(buf), "%lld/%lld", ok, (long long)jint(job, "spec.completions", 0));
	else if (parallelism > 1)
		snprintf(buf, sizeof(buf), "%lld/1 of %lld", ok, parallelism);
	else
		snprintf(buf, sizeof(buf), "%lld/1", ok);
	add_s(cells, buf);
}

static void add_job_duration(json_t *cells, json_t *job, int64_t now)
{
	int64_t start, end;
	char buf[32] = "";

	if (jtime(job, "status.startTime", &start)) {
		if (!jtime(job, "status.completionTime", &end))
			end = now;
		sk_human_duration(end - start, buf, sizeof(buf));
	}
	add_s(cells, buf);
}

/* Upstream 1.32 order; SuccessCriteriaMet comes from upstream 1.34. */
static const char *job_status(json_t *job)
{
	if (has_condition(job, "Complete", "True"))
		return "Complete";
	if (has_condition(job, "Failed", "True"))
		return "Failed";
	if (jpath(job, "metadata.deletionTimestamp"))
		return "Terminating";
	if (has_condition(job, "Suspended", "True"))
		return "Suspended";
	if (has_condition(job, "FailureTarget", "True"))
		return "FailureTarget";
	if (has_condition(job, "SuccessCriteriaMet", "True"))
		return "SuccessCriteriaMet";
	return "Running";
}

static void job_cells(json_t *cells, json_t *job, int64_t now)
{
	add_s(cells, jstr(job, "metadata.name"));
	add_s(cells, job_status(job));
	add_job_completions(cells, job);
	add_job_duration(cells, job, now);
	add_age(cells, job, now);
	add_containers(cells, jpath(job, "spec.template.spec.containers"));
	add_label_selector(cells, jpath(job, "spec.selector"));
}

static void cronjob_cells(json_t *cells, json_t *cj, int64_t now)
{
	json_t *suspend = jpath(cj, "spec.suspend");
	char last[32] = "<none>";

	if (jpath(cj, "status.lastScheduleTime"))
		since(cj, "status.lastScheduleTime", now, last, sizeof(last));
	add_s(cells, jstr(cj, "metadata.name"));
	add_s(cells, jstr(cj, "spec.schedule"));
	add_s(cells, jpath(cj, "spec.timeZone") ? jstr(cj, "spec.timeZone") : "<none>");
	add_s(cells, !json_is_boolean(suspend) ? "<unset>" : json_is_true(suspend) ? "True" : "False");
	add_i(cells, (json_int_t)jlen(cj, "status.active"));
	add_s(cells, last);
	add_age(cells, cj, now);
	add_containers(cells, jpath(cj, "spec.jobTemplate.spec.template.spec.containers"));
	add_label_selector(cells, jpath(cj, "spec.jobTemplate.spec.selector"));
}

static void podgroup_cells(json_t *cells, json_t *pg, int64_t now)
{
	add_s(cells, jstr(pg, "metadata.name"));
	add_i(cells, jint(pg, "spec.minMember", 0));
	add_s(cells, or_none(jstr(pg, "status.phase")));
	add_i(cells, jint(pg, "status.running", 0));
	add_age(cells, pg, now);
	add_i(cells, jint(pg, "status.succeeded", 0));
	add_i(cells, jint(pg, "status.failed", 0));
}

/* ---- Node ---- */

static void add_node_status(json_t *cells, json_t *node)
{
	const char *ready = NULL;
	struct sbuf sb = {0};
	json_t *c;
	size_t i;

	json_array_foreach(jpath(node, "status.conditions"), i, c) {
		if (strcmp(jstr(c, "type"), "Ready") == 0)
			ready = jstr(c, "status"); /* the last one wins, as in a map */
	}
	sb_add(&sb, !ready ? "Unknown" : strcmp(ready, "True") == 0 ? "Ready" : "NotReady");
	if (jtrue(node, "spec.unschedulable"))
		sb_add(&sb, ",SchedulingDisabled");
	add_sb(cells, &sb);
}

/* findNodeRoles: node-role.kubernetes.io/<role> keys and kubernetes.io/role
 * values, sorted and deduplicated. */
static void add_node_roles(json_t *cells, json_t *node)
{
	static const char prefix[] = "node-role.kubernetes.io/";
	json_t *labels = jpath(node, "metadata.labels"), *v;
	const char **roles = xzalloc((jlen(node, "metadata.labels") + 1) * sizeof(*roles));
	struct sbuf sb = {0};
	size_t n = 0;
	const char *key;

	json_object_foreach(labels, key, v) {
		const char *val = json_is_string(v) ? json_string_value(v) : "";

		if (strncmp(key, prefix, sizeof(prefix) - 1) == 0 && key[sizeof(prefix) - 1])
			roles[n++] = key + sizeof(prefix) - 1;
		else if (strcmp(key, "kubernetes.io/role") == 0 && *val)
			roles[n++] = val;
	}
	qsort(roles, n, sizeof(*roles), cmp_strp);
	for (size_t i = 0; i < n; i++) {
		if (i == 0 || strcmp(roles[i], roles[i - 1]) != 0)
			sb_join(&sb, ",", roles[i]);
	}
	free(roles);
	if (n == 0)
		add_s(cells, "<none>");
	else
		add_sb(cells, &sb);
}

static const char *node_address(json_t *node, const char *type)
{
	json_t *a;
	size_t i;

	json_array_foreach(jpath(node, "status.addresses"), i, a) {
		if (strcmp(jstr(a, "type"), type) == 0)
			return jstr(a, "address");
	}
	return "<none>";
}

static const char *or_unknown(const char *s) { return *s ? s : "<unknown>"; }

static void node_cells(json_t *cells, json_t *node, int64_t now)
{
	add_s(cells, jstr(node, "metadata.name"));
	add_node_status(cells, node);
	add_node_roles(cells, node);
	add_age(cells, node, now);
	add_s(cells, jstr(node, "status.nodeInfo.kubeletVersion"));
	add_s(cells, node_address(node, "InternalIP"));
	add_s(cells, node_address(node, "ExternalIP"));
	add_s(cells, or_unknown(jstr(node, "status.nodeInfo.osImage")));
	add_s(cells, or_unknown(jstr(node, "status.nodeInfo.kernelVersion")));
	add_s(cells, or_unknown(jstr(node, "status.nodeInfo.containerRuntimeVersion")));
}

/* ---- Event ---- */

static void add_event_source(json_t *cells, json_t *ev)
{
	const char *component = jstr(ev, "source.component");
	const char *host = jstr(ev, "source.host");
	struct sbuf sb = {0};

	sb_add(&sb, *component ? component : jstr(ev, "reportingComponent"));
	if (!*host)
		host = jstr(ev, "reportingInstance");
	if (*host) {
		sb_add(&sb, ", ");
		sb_add(&sb, host);
	}
	add_sb(cells, &sb);
}

static void add_event_object(json_t *cells, json_t *ev)
{
	const char *name = jstr(ev, "involvedObject.name");
	char *s = xasprintf("%s%s%s", jstr(ev, "involvedObject.kind"), *name ? "/" : "", name);

	for (char *p = s; *p && *p != '/'; p++)
		*p = (char)tolower((unsigned char)*p);
	add_s(cells, s);
	free(s);
}

static void add_trimmed(json_t *cells, const char *s)
{
	size_t n;

	while (isspace((unsigned char)*s))
		s++;
	n = strlen(s);
	while (n > 0 && isspace((unsigned char)s[n - 1]))
		n--;
	json_array_append_new(cells, json_stringn(s, n));
}

static void event_cells(json_t *cells, json_t *ev, int64_t now)
{
	char first[32], last[32];
	json_int_t count = jint(ev, "count", 0);
	int64_t t;

	if (jtime(ev, "firstTimestamp", &t))
		since(ev, "firstTimestamp", now, first, sizeof(first));
	else
		since(ev, "eventTime", now, first, sizeof(first));
	if (jtime(ev, "lastTimestamp", &t))
		since(ev, "lastTimestamp", now, last, sizeof(last));
	else
		snprintf(last, sizeof(last), "%s", first);
	if (jpath(ev, "series")) {
		since(ev, "series.lastObservedTime", now, last, sizeof(last));
		count = jint(ev, "series.count", 0);
	} else if (count == 0) {
		count = 1;
	}
	add_s(cells, last);
	add_s(cells, jstr(ev, "type"));
	add_s(cells, jstr(ev, "reason"));
	add_event_object(cells, ev);
	add_s(cells, jstr(ev, "involvedObject.fieldPath"));
	add_event_source(cells, ev);
	add_trimmed(cells, jstr(ev, "message"));
	add_s(cells, first);
	add_i(cells, count);
	add_s(cells, jstr(ev, "metadata.name"));
}

/* ---- Service and Endpoints ---- */

/* loadBalancerStatusStringer (wide): sorted unique ingress IPs/hostnames. */
static void lb_ingress(json_t *svc, struct sbuf *sb)
{
	json_t *ingress = jpath(svc, "status.loadBalancer.ingress"), *in;
	const char **names = xzalloc((json_array_size(ingress) + 1) * sizeof(*names));
	size_t i, n = 0;

	json_array_foreach(ingress, i, in) {
		const char *s = *jstr(in, "ip") ? jstr(in, "ip") : jstr(in, "hostname");

		if (*s)
			names[n++] = s;
	}
	qsort(names, n, sizeof(*names), cmp_strp);
	for (i = 0; i < n; i++) {
		if (i == 0 || strcmp(names[i], names[i - 1]) != 0)
			sb_join(sb, ",", names[i]);
	}
	free(names);
}

static void join_strings(struct sbuf *sb, json_t *arr)
{
	json_t *v;
	size_t i;

	json_array_foreach(arr, i, v) {
		if (sb->len || i)
			sb_add(sb, ",");
		sb_add(sb, json_is_string(v) ? json_string_value(v) : "");
	}
}

/* getServiceExternalIP. A missing type is taken as the default ClusterIP. */
static void add_external_ip(json_t *cells, json_t *svc, const char *type)
{
	json_t *ext = jpath(svc, "spec.externalIPs");
	struct sbuf sb = {0};

	if (strcmp(type, "ClusterIP") == 0 || strcmp(type, "NodePort") == 0) {
		join_strings(&sb, ext);
		if (!sb.len)
			sb_add(&sb, "<none>");
	} else if (strcmp(type, "LoadBalancer") == 0) {
		lb_ingress(svc, &sb);
		join_strings(&sb, ext);
		if (!sb.len)
			sb_add(&sb, "<pending>");
	} else if (strcmp(type, "ExternalName") == 0) {
		sb_add(&sb, jstr(svc, "spec.externalName"));
	} else {
		sb_add(&sb, "<unknown>");
	}
	add_sb(cells, &sb);
}

/* makePortString: "80/TCP", "80:30080/TCP" joined by ",", or "<none>". */
static void add_service_ports(json_t *cells, json_t *svc)
{
	struct sbuf sb = {0};
	json_t *port;
	size_t i;
	char buf[96];

	json_array_foreach(jpath(svc, "spec.ports"), i, port) {
		const char *proto = *jstr(port, "protocol") ? jstr(port, "protocol") : "TCP";
		long long p = jint(port, "port", 0), np = jint(port, "nodePort", 0);

		if (np > 0)
			snprintf(buf, sizeof(buf), "%lld:%lld/%s", p, np, proto);
		else
			snprintf(buf, sizeof(buf), "%lld/%s", p, proto);
		if (i)
			sb_add(&sb, ",");
		sb_add(&sb, buf);
	}
	if (!sb.len)
		sb_add(&sb, "<none>");
	add_sb(cells, &sb);
}

static void service_cells(json_t *cells, json_t *svc, int64_t now)
{
	const char *type = *jstr(svc, "spec.type") ? jstr(svc, "spec.type") : "ClusterIP";
	json_t *ip0 = json_array_get(jpath(svc, "spec.clusterIPs"), 0);
	/* clusterIPs[0]; clusterIP for objects whose clusterIPs were never filled */
	const char *ip = json_is_string(ip0) ? json_string_value(ip0) : jstr(svc, "spec.clusterIP");
	add_s(cells, jstr(svc, "metadata.name"));
	add_s(cells, type);
	add_s(cells, or_none(ip));
	add_external_ip(cells, svc, type);
	add_service_ports(cells, svc);
	add_age(cells, svc, now);
	add_labels(cells, jpath(svc, "spec.selector"));
}

/* net.JoinHostPort. */
static void add_host_port(struct sbuf *sb, const char *ip, long long port)
{
	char buf[32];

	if (strchr(ip, ':')) {
		sb_add(sb, "[");
		sb_add(sb, ip);
		sb_add(sb, "]");
	} else {
		sb_add(sb, ip);
	}
	snprintf(buf, sizeof(buf), ":%lld", port);
	sb_add(sb, buf);
}

struct ep_list {
	struct sbuf sb;
	int shown, count;
	bool more;
};

/* One address of formatEndpoints; at most 3 are shown. port < 0: none. */
static void ep_add(struct ep_list *l, const char *ip, long long port)
{
	if (l->shown == 3) {
		l->more = true;
		return;
	}
	if (l->shown++)
		sb_add(&l->sb, ",");
	if (port < 0)
		sb_add(&l->sb, ip);
	else
		add_host_port(&l->sb, ip, port);
}

static void ep_subset(struct ep_list *l, json_t *ss)
{
	json_t *addrs = jpath(ss, "addresses"), *ports = jpath(ss, "ports"), *a, *p;
	size_t i, j;

	if (json_array_size(ports) == 0) {
		l->count += (int)json_array_size(addrs);
		json_array_foreach(addrs, i, a) {
			ep_add(l, jstr(a, "ip"), -1);
			if (l->more)
				break;
		}
		return;
	}
	json_array_foreach(ports, j, p) {
		l->count += (int)json_array_size(addrs);
		json_array_foreach(addrs, i, a) {
			ep_add(l, jstr(a, "ip"), jint(p, "port", 0));
			if (l->more)
				break;
		}
	}
}

static void add_endpoints(json_t *cells, json_t *ep)
{
	struct ep_list l = {0};
	json_t *ss;
	size_t i;
	char buf[48];

	if (jlen(ep, "subsets") == 0) {
		add_s(cells, "<none>");
		return;
	}
	json_array_foreach(jpath(ep, "subsets"), i, ss)
		ep_subset(&l, ss);
	if (l.more) {
		snprintf(buf, sizeof(buf), " + %d more...", l.count - 3);
		sb_add(&l.sb, buf);
	}
	add_sb(cells, &l.sb);
}

static void endpoints_cells(json_t *cells, json_t *ep, int64_t now)
{
	add_s(cells, jstr(ep, "metadata.name"));
	add_endpoints(cells, ep);
	add_age(cells, ep, now);
}

/* ---- EndpointSlice and NetworkPolicy ---- */

/* listWithMoreString: at most 3 shown, then " + N more...", "<unset>" for none. */
struct more_list {
	struct sbuf sb;
	int count;
	bool more;
};

static void more_add(struct more_list *l, const char *s)
{
	if (l->count < 3) {
		if (l->count)
			sb_add(&l->sb, ",");
		sb_add(&l->sb, s);
	} else if (l->count == 3) {
		l->more = true;
	}
	l->count++;
}

static void add_more_list(json_t *cells, struct more_list *l)
{
	char buf[48];

	if (l->more) {
		snprintf(buf, sizeof(buf), " + %d more...", l->count - 3);
		sb_add(&l->sb, buf);
	} else if (!l->count) {
		sb_add(&l->sb, "<unset>");
	}
	add_sb(cells, &l->sb);
}

static void endpointslice_cells(json_t *cells, json_t *eps, int64_t now)
{
	struct more_list ports = {0}, addrs = {0};
	json_t *p, *ep, *a;
	size_t i, j;
	char buf[24];

	json_array_foreach(jpath(eps, "ports"), i, p) {
		json_t *port = json_object_get(p, "port"), *name = json_object_get(p, "name");

		if (json_is_integer(port))
			snprintf(buf, sizeof(buf), "%lld", (long long)json_integer_value(port));
		more_add(&ports, json_is_integer(port) ? buf : json_is_string(name) ? json_string_value(name) : "*");
	}
	json_array_foreach(jpath(eps, "endpoints"), i, ep)
		json_array_foreach(json_object_get(ep, "addresses"), j, a)
			more_add(&addrs, json_is_string(a) ? json_string_value(a) : "");
	add_s(cells, jstr(eps, "metadata.name"));
	add_s(cells, jstr(eps, "addressType"));
	add_more_list(cells, &ports);
	add_more_list(cells, &addrs);
	add_age(cells, eps, now);
}

static void networkpolicy_cells(json_t *cells, json_t *np, int64_t now)
{
	add_s(cells, jstr(np, "metadata.name"));
	add_label_selector(cells, jpath(np, "spec.podSelector"));
	add_age(cells, np, now);
}

/* ---- storage ---- */

/* GetAccessModesAsString: RWO, ROX, RWX, RWOP in that order. */
static void add_access_modes(json_t *cells, json_t *modes)
{
	static const char *const names[][2] = {
		{"ReadWriteOnce", "RWO"},
		{"ReadOnlyMany", "ROX"},
		{"ReadWriteMany", "RWX"},
		{"ReadWriteOncePod", "RWOP"},
	};
	struct sbuf sb = {0};
	json_t *m;
	size_t i;

	for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++) {
		json_array_foreach(modes, i, m) {
			if (json_is_string(m) && strcmp(json_string_value(m), names[k][0]) == 0) {
				sb_join(&sb, ",", names[k][1]);
				break;
			}
		}
	}
	add_sb(cells, &sb);
}

/* The annotation's value, or NULL. */
static const char *annotation(json_t *obj, const char *key)
{
	json_t *v = json_object_get(jpath(obj, "metadata.annotations"), key);

	return json_is_string(v) ? json_string_value(v) : NULL;
}

/* GetPersistentVolume(Claim)Class: the beta annotation wins. */
static const char *storage_class(json_t *obj)
{
	const char *cls = annotation(obj, "volume.beta.kubernetes.io/storage-class");

	return cls ? cls : jstr(obj, "spec.storageClassName");
}

static const char *unset_or(json_t *obj, const char *path) { return jpath(obj, path) ? jstr(obj, path) : "<unset>"; }

static void pv_cells(json_t *cells, json_t *pv, int64_t now)
{
	json_t *claim = jpath(pv, "spec.claimRef");
	const char *cap = jstr(pv, "spec.capacity.storage");
	char *claim_s = claim ? xasprintf("%s/%s", jstr(claim, "namespace"), jstr(claim, "name")) : xstrdup("");

	add_s(cells, jstr(pv, "metadata.name"));
	add_s(cells, *cap ? cap : "0");
	add_access_modes(cells, jpath(pv, "spec.accessModes"));
	add_s(cells, jstr(pv, "spec.persistentVolumeReclaimPolicy"));
	add_s(cells, jpath(pv, "metadata.deletionTimestamp") ? "Terminating" : jstr(pv, "status.phase"));
	add_s(cells, claim_s);
	add_s(cells, storage_class(pv));
	add_s(cells, unset_or(pv, "spec.volumeAttributesClassName"));
	add_s(cells, jstr(pv, "status.reason"));
	add_age(cells, pv, now);
	add_s(cells, unset_or(pv, "spec.volumeMode"));
	free(claim_s);
}

static void pvc_cells(json_t *cells, json_t *pvc, int64_t now)
{
	bool bound = *jstr(pvc, "spec.volumeName") != '\0';
	const char *cap = jstr(pvc, "status.capacity.storage");

	add_s(cells, jstr(pvc, "metadata.name"));
	add_s(cells, jpath(pvc, "metadata.deletionTimestamp") ? "Terminating" : jstr(pvc, "status.phase"));
	add_s(cells, jstr(pvc, "spec.volumeName"));
	add_s(cells, !bound ? "" : *cap ? cap : "0");
	if (bound)
		add_access_modes(cells, jpath(pvc, "status.accessModes"));
	else
		add_s(cells, "");
	add_s(cells, storage_class(pvc));
	add_s(cells, unset_or(pvc, "spec.volumeAttributesClassName"));
	add_age(cells, pvc, now);
	add_s(cells, unset_or(pvc, "spec.volumeMode"));
}

static bool annotation_true(json_t *obj, const char *key)
{
	const char *v = annotation(obj, key);

	return v && strcmp(v, "true") == 0;
}

static void storageclass_cells(json_t *cells, json_t *sc, int64_t now)
{
	bool dflt = annotation_true(sc, "storageclass.kubernetes.io/is-default-class") ||
		    annotation_true(sc, "storageclass.beta.kubernetes.io/is-default-class");
	char *name = xasprintf("%s%s", jstr(sc, "metadata.name"), dflt ? " (default)" : "");

	add_s(cells, name);
	add_s(cells, jstr(sc, "provisioner"));
	add_s(cells, jpath(sc, "reclaimPolicy") ? jstr(sc, "reclaimPolicy") : "Delete");
	add_s(cells, jpath(sc, "volumeBindingMode") ? jstr(sc, "volumeBindingMode") : "Immediate");
	add_b(cells, jtrue(sc, "allowVolumeExpansion"));
	add_age(cells, sc, now);
	free(name);
}

/* ---- small kinds ---- */

static void namespace_cells(json_t *cells, json_t *ns, int64_t now)
{
	add_s(cells, jstr(ns, "metadata.name"));
	add_s(cells, jstr(ns, "status.phase"));
	add_age(cells, ns, now);
}

/* Keys of data plus those only in stringData, which upstream's conversion
 * merges into data. */
static json_int_t secret_data_count(json_t *s)
{
	json_t *data = jpath(s, "data"), *v;
	json_int_t n = (json_int_t)jlen(s, "data");
	const char *key;

	json_object_foreach(jpath(s, "stringData"), key, v)
		n += json_object_get(data, key) == NULL;
	return n;
}

static void secret_cells(json_t *cells, json_t *s, int64_t now)
{
	add_s(cells, jstr(s, "metadata.name"));
	add_s(cells, jstr(s, "type"));
	add_i(cells, secret_data_count(s));
	add_age(cells, s, now);
}

static void configmap_cells(json_t *cells, json_t *cm, int64_t now)
{
	add_s(cells, jstr(cm, "metadata.name"));
	add_i(cells, (json_int_t)(jlen(cm, "data") + jlen(cm, "binaryData")));
	add_age(cells, cm, now);
}

static void serviceaccount_cells(json_t *cells, json_t *sa, int64_t now)
{
	add_s(cells, jstr(sa, "metadata.name"));
	add_i(cells, (json_int_t)jlen(sa, "secrets"));
	add_age(cells, sa, now);
}

/* printRoleBinding / printClusterRoleBinding: ROLE is Kind/name; the
 * subjects by kind, joined by ", " (service accounts as namespace/name). */
static void rolebinding_cells(json_t *cells, json_t *b, int64_t now)
{
	json_t *subjects = jpath(b, "subjects"), *s;
	char *buf[3] = {NULL, NULL, NULL};
	size_t len[3] = {0, 0, 0}, i;
	FILE *f[3];
	int n[3] = {0, 0, 0};
	char *role = xasprintf("%s/%s", jstr(b, "roleRef.kind"), jstr(b, "roleRef.name"));

	add_s(cells, jstr(b, "metadata.name"));
	add_s(cells, role);
	free(role);
	add_age(cells, b, now);
	for (int k = 0; k < 3; k++)
		f[k] = open_memstream(&buf[k], &len[k]);
	json_array_foreach(subjects, i, s) {
		const char *kind = jstr(s, "kind"), *name = jstr(s, "name");
		int k = !strcmp(kind, "User")             ? 0
			: !strcmp(kind, "Group")          ? 1
			: !strcmp(kind, "ServiceAccount") ? 2
							  : -1;

		if (k < 0)
			continue;
		fputs(n[k]++ ? ", " : "", f[k]);
		if (k == 2)
			fprintf(f[k], "%s/", jstr(s, "namespace"));
		fputs(name, f[k]);
	}
	for (int k = 0; k < 3; k++) {
		fclose(f[k]);
		add_s(cells, buf[k]);
		free(buf[k]);
	}
}

static void lease_cells(json_t *cells, json_t *l, int64_t now)
{
	add_s(cells, jstr(l, "metadata.name"));
	add_s(cells, jstr(l, "spec.holderIdentity"));
	add_age(cells, l, now);
}

/* Service: ns/name or Local; Available: True, "False (Reason)", Unknown */
static void apiservice_cells(json_t *cells, json_t *a, int64_t now)
{
	json_t *svc = jpath(a, "spec.service"), *conds = jpath(a, "status.conditions"), *c, *avail = NULL;
	const char *st, *reason;
	size_t i;

	add_s(cells, jstr(a, "metadata.name"));
	if (json_is_object(svc)) {
		char *s = xasprintf("%s/%s", jstr(svc, "namespace") ? jstr(svc, "namespace") : "",
				    jstr(svc, "name") ? jstr(svc, "name") : "");

		add_s(cells, s);
		free(s);
	} else {
		add_s(cells, "Local");
	}
	json_array_foreach(conds, i, c)
		if (!avail && !strcmp(jstr(c, "type") ? jstr(c, "type") : "", "Available"))
			avail = c;
	st = avail && jstr(avail, "status") ? jstr(avail, "status") : "";
	reason = avail ? jstr(avail, "reason") : NULL;
	if (!avail) {
		add_s(cells, "Unknown");
	} else if (!strcmp(st, "True") || !reason || !*reason) {
		add_s(cells, st);
	} else {
		char *s = xasprintf("%s (%s)", st, reason);

		add_s(cells, s);
		free(s);
	}
	add_age(cells, a, now);
}

/* extractCSRStatus: Denied or Approved or Pending, then ,Failed and ,Issued. */
static void csr_cells(json_t *cells, json_t *csr, int64_t now)
{
	json_t *conds = jpath(csr, "status.conditions"), *c, *exp = jpath(csr, "spec.expirationSeconds");
	int approved = 0, denied = 0, failed = 0;
	const char *signer = jstr(csr, "spec.signerName"), *cert = jstr(csr, "status.certificate");
	char status[64], dur[32];
	size_t i;

	json_array_foreach(conds, i, c) {
		const char *t = json_string_value(json_object_get(c, "type"));

		approved |= t && !strcmp(t, "Approved");
		denied |= t && !strcmp(t, "Denied");
		failed |= t && !strcmp(t, "Failed");
	}
	snprintf(status, sizeof(status), "%s%s%s",
		 denied     ? "Denied"
		 : approved ? "Approved"
			    : "Pending",
		 failed ? ",Failed" : "", *cert ? ",Issued" : "");
	if (json_is_integer(exp))
		sk_human_duration(json_integer_value(exp), dur, sizeof(dur));
	else
		snprintf(dur, sizeof(dur), "<none>");
	add_s(cells, jstr(csr, "metadata.name"));
	add_age(cells, csr, now);
	add_s(cells, *signer ? signer : "<none>");
	add_s(cells, jstr(csr, "spec.username"));
	add_s(cells, dur);
	add_s(cells, status);
}

static void runtimeclass_cells(json_t *cells, json_t *rc, int64_t now)
{
	add_s(cells, jstr(rc, "metadata.name"));
	add_s(cells, jstr(rc, "handler"));
	add_age(cells, rc, now);
}

static void priorityclass_cells(json_t *cells, json_t *pc, int64_t now)
{
	add_s(cells, jstr(pc, "metadata.name"));
	add_i(cells, jint(pc, "value", 0));
	add_b(cells, jtrue(pc, "globalDefault"));
	add_age(cells, pc, now);
	add_s(cells, jstr(pc, "preemptionPolicy"));
}

/* printValidatingWebhook / printMutatingWebhook */
static void webhookconfiguration_cells(json_t *cells, json_t *c, int64_t now)
{
	add_s(cells, jstr(c, "metadata.name"));
	add_i(cells, (int64_t)json_array_size(json_object_get(c, "webhooks")));
	add_age(cells, c, now);
}

/* printValidatingAdmissionPolicy */
static void vap_cells(json_t *cells, json_t *p, int64_t now)
{
	json_t *pk = jpath(p, "spec.paramKind");

	add_s(cells, jstr(p, "metadata.name"));
	add_i(cells, (int64_t)jlen(p, "spec.validations"));
	if (json_is_object(pk)) {
		char *k = xasprintf("%s/%s", jstr(pk, "apiVersion") ? jstr(pk, "apiVersion") : "",
				    jstr(pk, "kind") ? jstr(pk, "kind") : "");

		add_s(cells, k);
		free(k);
	} else {
		add_s(cells, "<unset>");
	}
	add_age(cells, p, now);
}

static int by_str(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

/* metav1.LabelSelector's generated String() */
static void selector_string(struct sbuf *sb, json_t *sel)
{
	json_t *ml = json_object_get(sel, "matchLabels"), *e, *v;
	const char **keys = xzalloc((json_object_size(ml) + 1) * sizeof(*keys));
	const char *key;
	size_t n = 0, i, j;

	json_object_foreach(ml, key, v)
		keys[n++] = key;
	qsort(keys, n, sizeof(*keys), by_str);
	sb_add(sb, "&LabelSelector{MatchLabels:map[string]string{");
	for (i = 0; i < n; i++)
		sb_printf(sb, "%s: %s,", keys[i], json_string_value(json_object_get(ml, keys[i])) ?: "");
	sb_add(sb, "},MatchExpressions:[]LabelSelectorRequirement{");
	json_array_foreach(json_object_get(sel, "matchExpressions"), i, e) {
		sb_printf(sb, "LabelSelectorRequirement{Key:%s,Operator:%s,Values:[",
			  jstr(e, "key") ? jstr(e, "key") : "", jstr(e, "operator") ? jstr(e, "operator") : "");
		json_array_foreach(json_object_get(e, "values"), j, v)
			sb_printf(sb, "%s%s", j ? " " : "", json_string_value(v) ?: "");
		sb_add(sb, "],},");
	}
	sb_add(sb, "},}");
	free(keys);
}

/* printValidatingAdmissionPolicyBinding */
static void vapb_cells(json_t *cells, json_t *b, int64_t now)
{
	json_t *pr = jpath(b, "spec.paramRef");
	struct sbuf sb = {0};

	add_s(cells, jstr(b, "metadata.name"));
	add_s(cells, jstr(b, "spec.policyName") ? jstr(b, "spec.policyName") : "");
	if (json_is_object(pr) && jstr(pr, "name") && *jstr(pr, "name"))
		sb_printf(&sb, "%s/%s", jstr(pr, "namespace") && *jstr(pr, "namespace") ? jstr(pr, "namespace") : "*",
			  jstr(pr, "name"));
	else if (json_is_object(pr) && json_is_object(json_object_get(pr, "selector")))
		selector_string(&sb, json_object_get(pr, "selector"));
	else
		sb_add(&sb, "<unset>");
	add_s(cells, sb.p);
	free(sb.p);
	add_age(cells, b, now);
}

/* printResourceQuota: "resource: used/hard" for each hard resource, sorted;
 * "limits.*" go to the Limit column. Quantities are printed as stored. */
static void resourcequota_cells(json_t *cells, json_t *rq, int64_t now)
{
	json_t *hard = jpath(rq, "status.hard"), *used = jpath(rq, "status.used"), *v;
	const char **keys = xzalloc((jlen(rq, "status.hard") + 1) * sizeof(*keys));
	struct sbuf req = {0}, lim = {0};
	size_t n = 0;
	const char *key;

	json_object_foreach(hard, key, v)
		keys[n++] = key;
	qsort(keys, n, sizeof(*keys), cmp_strp);
	for (size_t i = 0; i < n; i++) {
		json_t *u = json_object_get(used, keys[i]);
		json_t *h = json_object_get(hard, keys[i]);
		char *item = xasprintf("%s: %s/%s", keys[i], json_is_string(u) ? json_string_value(u) : "0",
				       json_is_string(h) ? json_string_value(h) : "0");

		sb_join(strncmp(keys[i], "limits.", 7) == 0 ? &lim : &req, ", ", item);
		free(item);
	}
	free(keys);
	add_s(cells, jstr(rq, "metadata.name"));
	add_sb(cells, &req);
	add_sb(cells, &lim);
	add_age(cells, rq, now);
}

/* rest.DefaultTableConvertor: name and creationTimestamp in RFC 3339 UTC
 * (Go's zero time when there is none). */
static void default_cells(json_t *cells, json_t *obj, int64_t now)
{
	char buf[32] = "0001-01-01T00:00:00Z";
	int64_t t;

	(void)now;
	if (jtime(obj, "metadata.creationTimestamp", &t))
		sk_time_format(t, buf, sizeof(buf));
	add_s(cells, jstr(obj, "metadata.name"));
	add_s(cells, buf);
}

/* ---- the printers ---- */

typedef void (*cells_fn)(json_t *cells, json_t *obj, int64_t now);

struct sk_table_printer {
	const struct col *cols;
	size_t ncols;
	cells_fn cells;
	json_t *(*conditions)(json_t *obj); /* or NULL */
};

#define PRINTER(name, c, f, cond) \
	const sk_table_printer sk_table_printer_##name = {c, sizeof(c) / sizeof(c[0]), f, cond}

PRINTER(pod, pod_cols, pod_cells, pod_conditions);
PRINTER(webhookconfiguration, webhookconfiguration_cols, webhookconfiguration_cells, NULL);
PRINTER(validatingadmissionpolicy, vap_cols, vap_cells, NULL);
PRINTER(validatingadmissionpolicybinding, vapb_cols, vapb_cells, NULL);
PRINTER(node, node_cols, node_cells, NULL);
PRINTER(namespace, namespace_cols, namespace_cells, NULL);
PRINTER(event, event_cols, event_cells, NULL);
PRINTER(configmap, configmap_cols, configmap_cells, NULL);
PRINTER(secret, secret_cols, secret_cells, NULL);
PRINTER(service, service_cols, service_cells, NULL);
PRINTER(endpoints, endpoints_cols, endpoints_cells, NULL);
PRINTER(serviceaccount, serviceaccount_cols, serviceaccount_cells, NULL);
PRINTER(resourcequota, resourcequota_cols, resourcequota_cells, NULL);
PRINTER(persistentvolume, pv_cols, pv_cells, NULL);
PRINTER(persistentvolumeclaim, pvc_cols, pvc_cells, NULL);
PRINTER(storageclass, storageclass_cols, storageclass_cells, NULL);
PRINTER(deployment, deployment_cols, deployment_cells, NULL);
PRINTER(replicaset, replicaset_cols, replicaset_cells, NULL);
PRINTER(daemonset, daemonset_cols, daemonset_cells, NULL);
PRINTER(replicationcontroller, replicationcontroller_cols, replicationcontroller_cells, NULL);
PRINTER(poddisruptionbudget, pdb_cols, pdb_cells, NULL);
PRINTER(statefulset, statefulset_cols, statefulset_cells, NULL);
PRINTER(controllerrevision, controllerrevision_cols, controllerrevision_cells, NULL);
PRINTER(job, job_cols, job_cells, NULL);
PRINTER(cronjob, cronjob_cols, cronjob_cells, NULL);
PRINTER(lease, lease_cols, lease_cells, NULL);
PRINTER(apiservice, apiservice_cols, apiservice_cells, NULL);
PRINTER(rolebinding, rolebinding_cols, rolebinding_cells, NULL);
PRINTER(certificatesigningrequest, csr_cols, csr_cells, NULL);
PRINTER(endpointslice, endpointslice_cols, endpointslice_cells, NULL);
PRINTER(networkpolicy, networkpolicy_cols, networkpolicy_cells, NULL);
PRINTER(runtimeclass, runtimeclass_cols, runtimeclass_cells, NULL);
PRINTER(priorityclass, priorityclass_cols, priorityclass_cells, NULL);
PRINTER(podgroup, podgroup_cols, podgroup_cells, NULL);
PRINTER(horizontalpodautoscaler, hpa_cols, hpa_cells, NULL);

static const sk_table_printer default_printer = {default_cols, sizeof(default_cols) / sizeof(default_cols[0]),
						 default_cells, NULL};

json_t *sk_table_printer_columns(const sk_table_printer *p)
{
	json_t *cols = json_array();

	if (!p)
		p = &default_printer;
	for (size_t i = 0; i < p->ncols; i++) {
		const struct col *c = &p->cols[i];

		json_array_append_new(cols,
				      json_pack("{s:s, s:s, s:s, s:s, s:i}", "name", c->name, "type", c->type, "format",
						c->format, "description", c->desc, "priority", c->priority));
	}
	return cols;
}

json_t *sk_table_printer_cells(const sk_table_printer *p, json_t *obj, int64_t now)
{
	json_t *cells = json_array();

	(p ? p : &default_printer)->cells(cells, obj, now);
	return cells;
}

json_t *sk_table_printer_row_conditions(const sk_table_printer *p, json_t *obj)
{
	return p && p->conditions ? p->conditions(obj) : NULL;
}

/* The printer of a built-in kind by name (tests and fuzz targets). */
static const sk_table_printer *kind_printer(const char *kind)
{
	const sk_api_resource *r = sk__kind_builtin(kind);

	return r && r->ops ? r->ops->printer : NULL;
}

int sk_table_has_printer(const char *kind) { return kind_printer(kind) != NULL; }

json_t *sk_table_columns(const char *kind) { return sk_table_printer_columns(kind_printer(kind)); }

json_t *sk_table_cells(const char *kind, json_t *obj, int64_t now)
{
	return sk_table_printer_cells(kind_printer(kind), obj, now);
}

json_t *sk_table_row_conditions(const char *kind, json_t *obj)
{
	return sk_table_printer_row_conditions(kind_printer(kind), obj);
}
