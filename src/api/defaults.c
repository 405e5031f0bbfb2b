/* Defaulting after upstream pkg/apis/{core,apps,batch,...}/v1/defaults.go. */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "api/api-int.h"
#include "api/defaults.h"
#include "util/util.h"

static bool absent(json_t *obj, const char *key)
{
	json_t *v = json_object_get(obj, key);

	return !v || json_is_null(v);
}

static bool str_is(json_t *obj, const char *key, const char *want)
{
	const char *s = json_string_value(json_object_get(obj, key));

	return s && strcmp(s, want) == 0;
}

/* Sets obj[key] = v (stolen) when the field is absent or null. */
static void def(json_t *obj, const char *key, json_t *v)
{
	if (json_is_object(obj) && absent(obj, key))
		json_object_set_new(obj, key, v);
	else
		json_decref(v);
}

static void def_str(json_t *obj, const char *key, const char *s)
{
	json_t *v = json_object_get(obj, key);

	/* Go cannot tell "" from unset for plain strings. */
	if (json_is_string(v) && json_string_length(v) == 0)
		json_object_del(obj, key);
	def(obj, key, json_string(s));
}

/* Returns obj[key] when it is an object, creating it when absent. */
static json_t *sub(json_t *obj, const char *key)
{
	if (!json_is_object(obj))
		return NULL;
	def(obj, key, json_object());
	return json_is_object(json_object_get(obj, key)) ? json_object_get(obj, key) : NULL;
}

/* obj[key] when it is an object, else NULL (never creates). */
static json_t *get_obj(json_t *obj, const char *key)
{
	json_t *v = json_object_get(obj, key);

	return json_is_object(v) ? v : NULL;
}

#define EACH_OBJ(arr, i, v) \
	for (i = 0; json_is_array(arr) && i < json_array_size(arr); i++) \
		if (json_is_object(v = json_array_get(arr, i)))

/* ---- containers ---- */

static void defaults_http_get(json_t *h)
{
	if (!h)
		return;
	def_str(h, "path", "/");
	def_str(h, "scheme", "HTTP");
}

static void defaults_probe(json_t *p)
{
	if (!p)
		return;
	def(p, "timeoutSeconds", json_integer(1));
	def(p, "periodSeconds", json_integer(10));
	def(p, "successThreshold", json_integer(1));
	def(p, "failureThreshold", json_integer(3));
	defaults_http_get(get_obj(p, "httpGet"));
}

static void defaults_lifecycle(json_t *l)
{
	if (!l)
		return;
	defaults_http_get(get_obj(get_obj(l, "postStart"), "httpGet"));
	defaults_http_get(get_obj(get_obj(l, "preStop"), "httpGet"));
}

/* Always for ":latest" or no tag (and no digest), else IfNotPresent. */
static const char *pull_policy(const char *image)
{
	const char *slash = strrchr(image, '/');
	const char *name = slash ? slash + 1 : image;
	const char *colon = strrchr(name, ':');

	if (strchr(image, '@'))
		return "IfNotPresent";
	if (!colon || strcmp(colon + 1, "latest") == 0)
		return "Always";
	return "IfNotPresent";
}

static void defaults_field_refs(json_t *env_src)
{
	json_t *rf;

	if (!env_src)
		return;
	def(get_obj(env_src, "fieldRef"), "apiVersion", json_string("v1"));
	if ((rf = get_obj(env_src, "resourceFieldRef")))
		def(rf, "divisor", json_string("0"));
}

static void defaults_container(json_t *c, bool host_network)
{
	json_t *image = json_object_get(c, "image");
	json_t *v;
	size_t i;

	/* An unparsable or empty image has no tag: IfNotPresent, as upstream. */
	def_str(c, "imagePullPolicy",
		json_is_string(image) && json_string_length(image) > 0 ? pull_policy(json_string_value(image))
								       : "IfNotPresent");
	/* Go serializes the non-pointer struct as {} even when empty. */
	def(c, "resources", json_object());
	def_str(c, "terminationMessagePath", "/dev/termination-log");
	def_str(c, "terminationMessagePolicy", "File");
	EACH_OBJ(json_object_get(c, "ports"), i, v) {
		def_str(v, "protocol", "TCP");
		if (host_network && json_object_get(v, "containerPort"))
			def(v, "hostPort", json_deep_copy(json_object_get(v, "containerPort")));
	}
	EACH_OBJ(json_object_get(c, "env"), i, v)
		defaults_field_refs(get_obj(v, "valueFrom"));
	defaults_probe(get_obj(c, "livenessProbe"));
	defaults_probe(get_obj(c, "readinessProbe"));
	defaults_probe(get_obj(c, "startupProbe"));
	defaults_lifecycle(get_obj(c, "lifecycle"));
}

static void containers_each(json_t *arr, bool host_network)
{
	json_t *c;
	size_t i;

	EACH_OBJ(arr, i, c)
		defaults_container(c, host_network);
}

/* ---- volumes ---- */

static const char *const volume_sources[] = {
	"hostPath",  "emptyDir",    "secret",    "persistentVolumeClaim",
	"configMap", "downwardAPI", "projected", "nfs",
	"image",     "csi",         "ephemeral", "iscsi",
	"local",     NULL,
};

static void defaults_downward_items(json_t *items)
{
	json_t *v;
	size_t i;

	EACH_OBJ(items, i, v)
		defaults_field_refs(v);
}

static void defaults_volume(json_t *vol)
{
	json_t *s;
	size_t i;
	bool has_source = false;

	for (int k = 0; volume_sources[k]; k++)
		if (!absent(vol, volume_sources[k]))
			has_source = true;
	if (!has_source)
		json_object_set_new(vol, "emptyDir", json_object());
	if ((s = get_obj(vol, "secret")))
		def(s, "defaultMode", json_integer(420));
	if ((s = get_obj(vol, "configMap")))
		def(s, "defaultMode", json_integer(420));
	if ((s = get_obj(vol, "hostPath")))
		def(s, "type", json_string(""));
	if ((s = get_obj(vol, "downwardAPI"))) {
		def(s, "defaultMode", json_integer(420));
		defaults_downward_items(json_object_get(s, "items"));
	}
	if ((s = get_obj(vol, "projected"))) {
		json_t *src;

		def(s, "defaultMode", json_integer(420));
		EACH_OBJ(json_object_get(s, "sources"), i, src) {
			json_t *tok = get_obj(src, "serviceAccountToken");

			if (tok)
				def(tok, "expirationSeconds", json_integer(3600));
			defaults_downward_items(json_object_get(get_obj(src, "downwardAPI"), "items"));
		}
	}
}

/* ---- pods ---- */

void sk_defaults_pod_spec(json_t *spec)
{
	json_t *v;
	size_t i;
	bool host_network;

	if (!json_is_object(spec))
		return;
	host_network = json_is_true(json_object_get(spec, "hostNetwork"));
	def_str(spec, "dnsPolicy", "ClusterFirst");
	def_str(spec, "restartPolicy", "Always");
	def(spec, "securityContext", json_object());
	def(spec, "terminationGracePeriodSeconds", json_integer(30));
	def_str(spec, "schedulerName", "default-scheduler");
	containers_each(json_object_get(spec, "initContainers"), host_network);
	containers_each(json_object_get(spec, "containers"), host_network);
	containers_each(json_object_get(spec, "ephemeralContainers"), host_network);
	EACH_OBJ(json_object_get(spec, "volumes"), i, v)
		defaults_volume(v);
}

/* If limits are set but requests are not, requests default to limits. */
static void requests_from_limits(json_t *containers)
{
	json_t *c;
	size_t i;

	EACH_OBJ(containers, i, c) {
		json_t *res = get_obj(c, "resources");
		json_t *limits = get_obj(res, "limits");
		json_t *requests;
		const char *key;
		json_t *q;

		if (!limits || json_object_size(limits) == 0)
			continue;
		requests = sub(res, "requests");
		if (!requests)
			continue;
		json_object_foreach(limits, key, q)
			def(requests, key, json_deep_copy(q));
	}
}

static void defaults_pod(json_t *pod)
{
	json_t *spec = get_obj(pod, "spec");

	if (!spec)
		return;
	requests_from_limits(json_object_get(spec, "containers"));
	requests_from_limits(json_object_get(spec, "initContainers"));
	def(spec, "enableServiceLinks", json_true());
	sk_defaults_pod_spec(spec);
}

static void defaults_template(json_t *owner_spec)
{
	sk_defaults_pod_spec(get_obj(get_obj(owner_spec, "template"), "spec"));
}

static bool tolerates(json_t *tolerations, const char *key)
{
	json_t *t;
	size_t i;

	EACH_OBJ(tolerations, i, t) {
		const char *k = json_string_value(json_object_get(t, "key"));
		const char *e = json_string_value(json_object_get(t, "effect"));
		const char *op = json_string_value(json_object_get(t, "operator"));

		if (e && *e && strcmp(e, "NoExecute") != 0)
			continue;
		if ((!k || !*k) && op && strcmp(op, "Exists") == 0)
			return true;
		if (k && strcmp(k, key) == 0)
			return true;
	}
	return false;
}

void sk_defaults_pod_tolerations(json_t *pod)
{
	static const char *const keys[] = {"node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"};
	json_t *spec = get_obj(pod, "spec");
	json_t *tols;

	if (!spec)
		return;
	def(spec, "tolerations", json_array());
	tols = json_object_get(spec, "tolerations");
	if (!json_is_array(tols))
		return;
	for (size_t i = 0; i < 2; i++)
		if (!tolerates(tols, keys[i]))
			json_array_append_new(tols,
					      json_pack("{s:s, s:s, s:s, s:I}", "key", keys[i], "operator", "Exists",
							"effect", "NoExecute", "tolerationSeconds", (json_int_t)300));
}

void sk_defaults_pod_priority(json_t *pod, json_t *priority_class)
{
	json_t *spec = get_obj(pod, "spec");
	json_t *value = json_object_get(priority_class, "value");
	json_t *policy = json_object_get(priority_class, "preemptionPolicy");

	if (!spec)
		return;
	def(spec, "priority", json_integer(json_is_integer(value) ? json_integer_value(value) : 0));
	def(spec, "preemptionPolicy",
	    json_is_string(policy) ? json_deep_copy(policy) : json_string("PreemptLowerPriority"));
}

/* ---- workloads ---- */

static void defaults_deployment(json_t *d)
{
	json_t *spec = get_obj(d, "spec");
	json_t *strategy;
	const char *type;

	if (!spec)
		return;
	def(spec, "replicas", json_integer(1));
	strategy = sub(spec, "strategy");
	def_str(strategy, "type", "RollingUpdate");
	type = json_string_value(json_object_get(strategy, "type"));
	if (type && strcmp(type, "RollingUpdate") == 0) {
		json_t *ru = sub(strategy, "rollingUpdate");

		def(ru, "maxUnavailable", json_string("25%"));
		def(ru, "maxSurge", json_string("25%"));
	}
	def(spec, "revisionHistoryLimit", json_integer(10));
	def(spec, "progressDeadlineSeconds", json_integer(600));
	defaults_template(spec);
}

static void defaults_replicaset(json_t *rs)
{
	json_t *spec = get_obj(rs, "spec");

	def(spec, "replicas", json_integer(1));
	defaults_template(spec);
}

/* SetDefaults_ReplicationController: the selector and the object's labels
 * from the template's labels when empty, one replica. */
static void defaults_replicationcontroller(json_t *rc)
{
	json_t *spec = get_obj(rc, "spec");
	json_t *labels = get_obj(get_obj(get_obj(spec, "template"), "metadata"), "labels");
	json_t *meta = get_obj(rc, "metadata");
	json_t *sel = json_object_get(spec, "selector");

	if (!spec)
		return;
	if (labels) {
		if (!json_is_object(sel) || !json_object_size(sel))
			json_object_set_new(spec, "selector", json_deep_copy(labels));
		if (meta && (!json_is_object(json_object_get(meta, "labels")) ||
			     !json_object_size(json_object_get(meta, "labels"))))
			json_object_set_new(meta, "labels", json_deep_copy(labels));
	}
	def(spec, "replicas", json_integer(1));
	defaults_template(spec);
}

/* SetDefaults_DaemonSet */
static void defaults_daemonset(json_t *ds)
{
	json_t *spec = get_obj(ds, "spec");
	json_t *strategy;
	const char *type;

	if (!spec)
		return;
	strategy = sub(spec, "updateStrategy");
	def_str(strategy, "type", "RollingUpdate");
	type = json_string_value(json_object_get(strategy, "type"));
	if (type && strcmp(type, "RollingUpdate") == 0) {
		json_t *ru = sub(strategy, "rollingUpdate");

		def(ru, "maxUnavailable", json_integer(1));
		def(ru, "maxSurge", json_integer(0));
	}
	def(spec, "revisionHistoryLimit", json_integer(10));
	defaults_template(spec);
}

static void copy_template_labels(json_t *obj, json_t *spec)
{
	json_t *labels = get_obj(get_obj(get_obj(spec, "template"), "metadata"), "labels");
	json_t *meta = get_obj(obj, "metadata");
	json_t *own = json_object_get(meta, "labels");

	if (labels && meta && (!json_is_object(own) || json_object_size(own) == 0))
		json_object_set_new(meta, "labels", json_deep_copy(labels));
}

static void defaults_job_spec(json_t *job, json_t *spec)
{
	json_t *pfp = get_obj(spec, "podFailurePolicy");
	json_t *rule, *pat;
	size_t i, j;

	if (absent(spec, "completions") && absent(spec, "parallelism")) {
		json_object_set_new(spec, "completions", json_integer(1));
		json_object_set_new(spec, "parallelism", json_integer(1));
	}
	def(spec, "parallelism", json_integer(1));
	def(spec, "backoffLimit", json_integer(absent(spec, "backoffLimitPerIndex") ? 6 : INT32_MAX));
	copy_template_labels(job, spec);
	def_str(spec, "completionMode", "NonIndexed");
	def(spec, "suspend", json_false());
	EACH_OBJ(json_object_get(pfp, "rules"), i, rule)
		EACH_OBJ(json_object_get(rule, "onPodConditions"), j, pat)
			def_str(pat, "status", "True");
	def_str(spec, "podReplacementPolicy", pfp ? "Failed" : "TerminatingOrFailed");
	defaults_template(spec);
}

static void defaults_job(json_t *job)
{
	json_t *spec = get_obj(job, "spec");

	if (spec)
		defaults_job_spec(job, spec);
}

static void defaults_cronjob(json_t *cj)
{
	json_t *spec = get_obj(cj, "spec");

	if (!spec)
		return;
	def_str(spec, "concurrencyPolicy", "Allow");
	def(spec, "suspend", json_false());
	def(spec, "successfulJobsHistoryLimit", json_integer(3));
	def(spec, "failedJobsHistoryLimit", json_integer(1));
	defaults_template(get_obj(get_obj(spec, "jobTemplate"), "spec"));
}

/* Sets labels[key] = value unless the user set it: a conflict is then
 * rejected by validation ("`selector` not auto-generated"). */
static void keep_or_set(json_t *labels, const char *key, const char *value) { def(labels, key, json_string(value)); }

int sk_defaults_job_selector(json_t *job, sk_error_t *err)
{
	json_t *meta = get_obj(job, "metadata");
	json_t *spec = get_obj(job, "spec");
	const char *uid = json_string_value(json_object_get(meta, "uid"));
	const char *name = json_string_value(json_object_get(meta, "name"));
	json_t *labels, *match;

	if (!uid || !*uid)
		return sk_error_set(err, SK_EINVALID, "job %s: metadata.uid is not set", name ? name : "");
	if (!name)
		name = "";
	if (!spec || json_is_true(json_object_get(spec, "manualSelector")))
		return 0;
	labels = sub(sub(sub(spec, "template"), "metadata"), "labels");
	match = sub(sub(spec, "selector"), "matchLabels");
	if (!labels || !match)
		return 0;
	keep_or_set(labels, "batch.kubernetes.io/controller-uid", uid);
	keep_or_set(labels, "batch.kubernetes.io/job-name", name);
	keep_or_set(labels, "controller-uid", uid);
	keep_or_set(labels, "job-name", name);
	keep_or_set(match, "batch.kubernetes.io/controller-uid", uid);
	copy_template_labels(job, spec);
	return 0;
}

/* ---- core objects ---- */

static void defaults_service(json_t *svc)
{
	json_t *spec = get_obj(svc, "spec");
	json_t *p;
	size_t i;
	const char *type;

	if (!spec)
		return;
	sub(sub(svc, "status"), "loadBalancer"); /* serialized as {} upstream */
	def_str(spec, "sessionAffinity", "None");
	def_str(spec, "type", "ClusterIP");
	type = json_string_value(json_object_get(spec, "type"));
	EACH_OBJ(json_object_get(spec, "ports"), i, p) {
		json_t *tp = json_object_get(p, "targetPort");

		def_str(p, "protocol", "TCP");
		if (!tp || json_is_null(tp) || (json_is_integer(tp) && json_integer_value(tp) == 0) ||
		    (json_is_string(tp) && json_string_length(tp) == 0))
			json_object_set(p, "targetPort", json_object_get(p, "port"));
	}
	if (!type || strcmp(type, "ExternalName") == 0)
		return;
	if (strcmp(type, "NodePort") == 0 || strcmp(type, "LoadBalancer") == 0)
		def_str(spec, "externalTrafficPolicy", "Cluster");
	if (strcmp(type, "LoadBalancer") == 0)
		def(spec, "allocateLoadBalancerNodePorts", json_true());
	def_str(spec, "internalTrafficPolicy", "Cluster");
	/* ipFamilyPolicy and ipFamilies are the allocator's (service.c), as upstream's initIPFamilyFields */
	if (str_is(spec, "sessionAffinity", "ClientIP"))
		def(spec, "sessionAffinityConfig", json_pack("{s:{s:i}}", "clientIP", "timeoutSeconds", 10800));
}

static void defaults_namespace(json_t *ns)
{
	json_t *spec = sub(ns, "spec");

	def(spec, "finalizers", json_pack("[s]", "kubernetes"));
	def_str(sub(ns, "status"), "phase", "Active");
}

/* v1's podCIDR is podCIDRs[0], as upstream's conversion of NodeSpec: a
 * podCIDR alone becomes the list, a list sets podCIDR. */
static void node_pod_cidrs(json_t *spec)
{
	json_t *list = json_object_get(spec, "podCIDRs"), *one = json_object_get(spec, "podCIDR");

	if (json_is_array(list) && json_array_size(list) && json_is_string(json_array_get(list, 0)))
		json_object_set(spec, "podCIDR", json_array_get(list, 0));
	else if (json_is_string(one) && *json_string_value(one))
		json_object_set_new(spec, "podCIDRs", json_pack("[O]", one));
}

static void defaults_node(json_t *node)
{
	json_t *status = get_obj(node, "status");
	json_t *spec = get_obj(node, "spec");

	if (spec)
		node_pod_cidrs(spec);

	if (status && !absent(status, "capacity"))
		def(status, "allocatable", json_deep_copy(json_object_get(status, "capacity")));
}

static void defaults_endpoints(json_t *ep)
{
	json_t *s, *p;
	size_t i, j;

	EACH_OBJ(json_object_get(ep, "subsets"), i, s)
		EACH_OBJ(json_object_get(s, "ports"), j, p)
			def_str(p, "protocol", "TCP");
}

/* discovery/v1 SetDefaults_EndpointPort; deprecatedTopology is not
 * writable through v1 (upstream's strategy drops it). */
static void defaults_endpointslice(json_t *eps)
{
	json_t *p, *ep;
	size_t i;

	EACH_OBJ(json_object_get(eps, "ports"), i, p) {
		def(p, "name", json_string(""));
		def_str(p, "protocol", "TCP");
	}
	EACH_OBJ(json_object_get(eps, "endpoints"), i, ep)
		json_object_del(ep, "deprecatedTopology");
}

static void defaults_np_ports(json_t *rules)
{
	json_t *rule, *p;
	size_t i, j;

	EACH_OBJ(rules, i, rule)
		EACH_OBJ(json_object_get(rule, "ports"), j, p)
			def_str(p, "protocol", "TCP");
}

/* networking/v1 SetDefaults_NetworkPolicy and _NetworkPolicyPort. */
static void defaults_networkpolicy(json_t *np)
{
	json_t *spec = sub(np, "spec"), *types, *egress;

	if (!spec)
		return;
	/* a struct upstream, never omitted: an empty selector selects all pods */
	def(spec, "podSelector", json_object());
	defaults_np_ports(json_object_get(spec, "ingress"));
	egress = json_object_get(spec, "egress");
	defaults_np_ports(egress);
	types = json_object_get(spec, "policyTypes");
	if (json_is_array(types) && json_array_size(types))
		return;
	types = json_array();
	json_array_append_new(types, json_string("Ingress"));
	if (json_is_array(egress) && json_array_size(egress))
		json_array_append_new(types, json_string("Egress"));
	json_object_set_new(spec, "policyTypes", types);
}

static void defaults_pv(json_t *pv)
{
	json_t *spec = get_obj(pv, "spec");

	def_str(spec, "persistentVolumeReclaimPolicy", "Retain");
	def_str(spec, "volumeMode", "Filesystem");
	def_str(sub(pv, "status"), "phase", "Pending");
}

static void defaults_pvc(json_t *pvc)
{
	def_str(get_obj(pvc, "spec"), "volumeMode", "Filesystem");
	def_str(sub(pvc, "status"), "phase", "Pending");
}

/* SetDefaults_StatefulSet (StatefulSetAutoDeletePVC on, MaxUnavailableStatefulSet
 * off: maxUnavailable stays unset) and the claim templates' own defaults. */
static void defaults_statefulset(json_t *ss)
{
	json_t *spec = get_obj(ss, "spec");
	json_t *strategy, *policy, *t;
	const char *type;
	size_t i;

	if (!spec)
		return;
	def_str(spec, "podManagementPolicy", "OrderedReady");
	strategy = sub(spec, "updateStrategy");
	if (strategy && !json_string_length(json_object_get(strategy, "type"))) {
		json_object_set_new(strategy, "type", json_string("RollingUpdate"));
		sub(strategy, "rollingUpdate");
	}
	type = json_string_value(json_object_get(strategy, "type"));
	if (type && !strcmp(type, "RollingUpdate") && get_obj(strategy, "rollingUpdate"))
		def(get_obj(strategy, "rollingUpdate"), "partition", json_integer(0));
	policy = sub(spec, "persistentVolumeClaimRetentionPolicy");
	def_str(policy, "whenDeleted", "Retain");
	def_str(policy, "whenScaled", "Retain");
	def(spec, "replicas", json_integer(1));
	def(spec, "revisionHistoryLimit", json_integer(10));
	EACH_OBJ(json_object_get(spec, "volumeClaimTemplates"), i, t)
		defaults_pvc(t);
	defaults_template(spec);
}

static void defaults_storageclass(json_t *sc)
{
	def_str(sc, "reclaimPolicy", "Delete");
	def_str(sc, "volumeBindingMode", "Immediate");
}

/* Upstream's conversion folds stringData into data (stringData wins) and
 * never stores stringData. */
static void fold_string_data(json_t *s)
{
	json_t *sd = get_obj(s, "stringData");
	json_t *data;
	const char *k;
	json_t *v;

	if (sd && json_object_size(sd)) {
		data = sub(s, "data");
		json_object_foreach(sd, k, v) {
			cleanup_free char *b = NULL;

			if (!json_is_string(v) || !data)
				continue;
			b = sk_base64_encode(json_string_value(v), json_string_length(v), NULL);
			json_object_set_new(data, k, json_string(b));
		}
	}
	if (json_is_object(s))
		json_object_del(s, "stringData");
}

static void defaults_secret(json_t *s)
{
	fold_string_data(s);
	def_str(s, "type", "Opaque");
}

static void defaults_priorityclass(json_t *pc) { def_str(pc, "preemptionPolicy", "PreemptLowerPriority"); }

/* The descriptors' defaults hooks (sk_kind_ops.defaults): HOOK(pod, fn)
 * defines sk__defaults_pod, which runs fn on an object. */
#define HOOK(name, fn) \
	void sk__defaults_##name(const sk_api_resource *r, json_t *obj) \
	{ \
		(void)r; \
		if (json_is_object(obj)) \
			fn(obj); \
	}

HOOK(pod, defaults_pod)
HOOK(deployment, defaults_deployment)
HOOK(replicaset, defaults_replicaset)
HOOK(daemonset, defaults_daemonset)
HOOK(replicationcontroller, defaults_replicationcontroller)
HOOK(statefulset, defaults_statefulset)
HOOK(job, defaults_job)
HOOK(cronjob, defaults_cronjob)
HOOK(service, defaults_service)
HOOK(namespace, defaults_namespace)
HOOK(node, defaults_node)
HOOK(endpoints, defaults_endpoints)
HOOK(endpointslice, defaults_endpointslice)
HOOK(networkpolicy, defaults_networkpolicy)
HOOK(persistentvolume, defaults_pv)
HOOK(persistentvolumeclaim, defaults_pvc)
HOOK(storageclass, defaults_storageclass)
HOOK(secret, defaults_secret)
HOOK(priorityclass, defaults_priorityclass)

void sk_defaults_apply(const char *kind, json_t *obj)
{
	const sk_api_resource *r = sk__kind_builtin(kind);

	if (r && r->ops && r->ops->defaults && json_is_object(obj))
		r->ops->defaults(r, obj);
}
