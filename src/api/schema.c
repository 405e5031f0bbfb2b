/* Schema lookups, the resource table, unknown-field detection and type
 * checks over the tables in schema-*.c. */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "api/schema-int.h"
#include "util/quantity.h"
#include "util/util.h"

#define LIST(...) \
	(const char *const[]) { __VA_ARGS__, NULL }
#define NONE \
	(const char *const[]) { NULL }
#define CRUD LIST("create", "delete", "deletecollection", "get", "list", "patch", "update", "watch")
#define GPU LIST("get", "patch", "update")
#define NOSUB \
	(const sk_subresource[]) \
	{ \
		{ \
			NULL, NULL, NULL, NULL, NULL \
		} \
	}
#define STATUS(k) \
	{ \
		"status", NULL, NULL, k, GPU \
	}
#define SCALE \
	{ \
		"scale", "autoscaling", "v1", "Scale", GPU \
	}
#define SUBEND \
	{ \
		NULL, NULL, NULL, NULL, NULL \
	}

const sk_resource sk_schema_resources[] = {
	{"", "v1", "Binding", "bindings", "binding", true, NONE, LIST("create"), NONE, NOSUB},
	{"", "v1", "ConfigMap", "configmaps", "configmap", true, LIST("cm"), CRUD, NONE, NOSUB},
	{"", "v1", "Endpoints", "endpoints", "endpoints", true, LIST("ep"), CRUD, NONE, NOSUB},
	{"", "v1", "Event", "events", "event", true, LIST("ev"), CRUD, NONE, NOSUB},
	{"", "v1", "LimitRange", "limitranges", "limitrange", true, LIST("limits"), CRUD, NONE, NOSUB},
	{"", "v1", "Namespace", "namespaces", "namespace", false, LIST("ns"),
	 LIST("create", "delete", "get", "list", "patch", "update", "watch"), NONE,
	 (const sk_subresource[]){{"finalize", NULL, NULL, "Namespace", LIST("update")}, STATUS("Namespace"), SUBEND}},
	{"", "v1", "Node", "nodes", "node", false, LIST("no"), CRUD, NONE,
	 (const sk_subresource[]){
		 {"proxy", NULL, NULL, "NodeProxyOptions", LIST("create", "delete", "get", "patch", "update")},
		 STATUS("Node"),
		 SUBEND}},
	{"", "v1", "PersistentVolumeClaim", "persistentvolumeclaims", "persistentvolumeclaim", true, LIST("pvc"), CRUD,
	 NONE, (const sk_subresource[]){STATUS("PersistentVolumeClaim"), SUBEND}},
	{"", "v1", "PersistentVolume", "persistentvolumes", "persistentvolume", false, LIST("pv"), CRUD, NONE,
	 (const sk_subresource[]){STATUS("PersistentVolume"), SUBEND}},
	{"", "v1", "Pod", "pods", "pod", true, LIST("po"), CRUD, LIST("all"),
	 (const sk_subresource[]){{"attach", NULL, NULL, "PodAttachOptions", LIST("create", "get")},
				  {"binding", NULL, NULL, "Binding", LIST("create")},
				  {"eviction", "policy", "v1", "Eviction", LIST("create")},
				  {"exec", NULL, NULL, "PodExecOptions", LIST("create", "get")},
				  {"log", NULL, NULL, "Pod", LIST("get")},
				  {"portforward", NULL, NULL, "PodPortForwardOptions", LIST("create", "get")},
				  STATUS("Pod"),
				  SUBEND}},
	{"", "v1", "ReplicationController", "replicationcontrollers", "replicationcontroller", true, LIST("rc"), CRUD,
	 LIST("all"), (const sk_subresource[]){SCALE, STATUS("ReplicationController"), SUBEND}},
	{"", "v1", "ResourceQuota", "resourcequotas", "resourcequota", true, LIST("quota"), CRUD, NONE,
	 (const sk_subresource[]){STATUS("ResourceQuota"), SUBEND}},
	{"", "v1", "Secret", "secrets", "secret", true, NONE, CRUD, NONE, NOSUB},
	{"", "v1", "ServiceAccount", "serviceaccounts", "serviceaccount", true, LIST("sa"), CRUD, NONE, NOSUB},
	{"", "v1", "Service", "services", "service", true, LIST("svc"),
	 LIST("create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"), LIST("all"),
	 (const sk_subresource[]){STATUS("Service"), SUBEND}},
	{"admissionregistration.k8s.io", "v1", "MutatingWebhookConfiguration", "mutatingwebhookconfigurations",
	 "mutatingwebhookconfiguration", false, NONE, CRUD, NONE, NOSUB},
	{"admissionregistration.k8s.io", "v1", "ValidatingWebhookConfiguration", "validatingwebhookconfigurations",
	 "validatingwebhookconfiguration", false, NONE, CRUD, NONE, NOSUB},
	{"admissionregistration.k8s.io", "v1", "ValidatingAdmissionPolicy", "validatingadmissionpolicies",
	 "validatingadmissionpolicy", false, NONE, CRUD, NONE,
	 (const sk_subresource[]){STATUS("ValidatingAdmissionPolicy"), SUBEND}},
	{"admissionregistration.k8s.io", "v1", "ValidatingAdmissionPolicyBinding", "validatingadmissionpolicybindings",
	 "validatingadmissionpolicybinding", false, NONE, CRUD, NONE, NOSUB},
	{"apps", "v1", "ControllerRevision", "controllerrevisions", "controllerrevision", true, NONE, CRUD, NONE,
	 NOSUB},
	{"apps", "v1", "DaemonSet", "daemonsets", "daemonset", true, LIST("ds"), CRUD, LIST("all"),
	 (const sk_subresource[]){STATUS("DaemonSet"), SUBEND}},
	{"apps", "v1", "Deployment", "deployments", "deployment", true, LIST("deploy"), CRUD, LIST("all"),
	 (const sk_subresource[]){SCALE, STATUS("Deployment"), SUBEND}},
	{"apps", "v1", "ReplicaSet", "replicasets", "replicaset", true, LIST("rs"), CRUD, LIST("all"),
	 (const sk_subresource[]){SCALE, STATUS("ReplicaSet"), SUBEND}},
	{"apps", "v1", "StatefulSet", "statefulsets", "statefulset", true, LIST("sts"), CRUD, LIST("all"),
	 (const sk_subresource[]){SCALE, STATUS("StatefulSet"), SUBEND}},
	{"authorization.k8s.io", "v1", "LocalSubjectAccessReview", "localsubjectaccessreviews",
	 "localsubjectaccessreview", true, NONE, LIST("create"), NONE, NOSUB},
	{"authorization.k8s.io", "v1", "SelfSubjectAccessReview", "selfsubjectaccessreviews", "selfsubjectaccessreview",
	 false, NONE, LIST("create"), NONE, NOSUB},
	{"authorization.k8s.io", "v1", "SelfSubjectRulesReview", "selfsubjectrulesreviews", "selfsubjectrulesreview",
	 false, NONE, LIST("create"), NONE, NOSUB},
	{"authorization.k8s.io", "v1", "SubjectAccessReview", "subjectaccessreviews", "subjectaccessreview", false,
	 NONE, LIST("create"), NONE, NOSUB},
	{"autoscaling", "v2", "HorizontalPodAutoscaler", "horizontalpodautoscalers", "horizontalpodautoscaler", true,
	 LIST("hpa"), CRUD, LIST("all"), (const sk_subresource[]){STATUS("HorizontalPodAutoscaler"), SUBEND}},
	{"autoscaling", "v1", "HorizontalPodAutoscaler", "horizontalpodautoscalers", "horizontalpodautoscaler", true,
	 LIST("hpa"), CRUD, LIST("all"), (const sk_subresource[]){STATUS("HorizontalPodAutoscaler"), SUBEND}},
	{"batch", "v1", "CronJob", "cronjobs", "cronjob", true, LIST("cj"), CRUD, LIST("all"),
	 (const sk_subresource[]){STATUS("CronJob"), SUBEND}},
	{"batch", "v1", "Job", "jobs", "job", true, NONE, CRUD, LIST("all"),
	 (const sk_subresource[]){STATUS("Job"), SUBEND}},
	{"certificates.k8s.io", "v1", "CertificateSigningRequest", "certificatesigningrequests",
	 "certificatesigningrequest", false, LIST("csr"), CRUD, NONE,
	 (const sk_subresource[]){{"approval", NULL, NULL, "CertificateSigningRequest", GPU},
				  STATUS("CertificateSigningRequest"),
				  SUBEND}},
	{"coordination.k8s.io", "v1", "Lease", "leases", "lease", true, NONE, CRUD, NONE, NOSUB},
	{"discovery.k8s.io", "v1", "EndpointSlice", "endpointslices", "endpointslice", true, NONE, CRUD, NONE, NOSUB},
	{"networking.k8s.io", "v1", "NetworkPolicy", "networkpolicies", "networkpolicy", true, LIST("netpol"), CRUD,
	 NONE, NOSUB},
	{"node.k8s.io", "v1", "RuntimeClass", "runtimeclasses", "runtimeclass", false, NONE, CRUD, NONE, NOSUB},
	{"policy", "v1", "PodDisruptionBudget", "poddisruptionbudgets", "poddisruptionbudget", true, LIST("pdb"), CRUD,
	 NONE, (const sk_subresource[]){STATUS("PodDisruptionBudget"), SUBEND}},
	{"rbac.authorization.k8s.io", "v1", "ClusterRoleBinding", "clusterrolebindings", "clusterrolebinding", false,
	 NONE, CRUD, NONE, NOSUB},
	{"rbac.authorization.k8s.io", "v1", "ClusterRole", "clusterroles", "clusterrole", false, NONE, CRUD, NONE,
	 NOSUB},
	{"rbac.authorization.k8s.io", "v1", "RoleBinding", "rolebindings", "rolebinding", true, NONE, CRUD, NONE,
	 NOSUB},
	{"rbac.authorization.k8s.io", "v1", "Role", "roles", "role", true, NONE, CRUD, NONE, NOSUB},
	{"scheduling.k8s.io", "v1", "PriorityClass", "priorityclasses", "priorityclass", false, LIST("pc"), CRUD, NONE,
	 NOSUB},
	{"scheduling.x-k8s.io", "v1alpha1", "PodGroup", "podgroups", "podgroup", true, LIST("pg", "pgs"), CRUD, NONE,
	 (const sk_subresource[]){STATUS("PodGroup"), SUBEND}},
	{"storage.k8s.io", "v1", "StorageClass", "storageclasses", "storageclass", false, LIST("sc"), CRUD, NONE,
	 NOSUB},
	{NULL, NULL, NULL, NULL, NULL, false, NULL, NULL, NULL, NULL},
};

const sk_schema *const sk_schema_kinds[] = {
	&sk__namespace,
	&sk__pod,
	&sk__binding,
	&sk__eviction,
	&sk__node,
	&sk__event,
	&sk__configmap,
	&sk__secret,
	&sk__service,
	&sk__endpoints,
	&sk__serviceaccount,
	&sk__resourcequota,
	&sk__limitrange,
	&sk__pv,
	&sk__pvc,
	&sk__storageclass,
	&sk__deployment,
	&sk__replicaset,
	&sk__replicationcontroller,
	&sk__pdb,
	&sk__daemonset,
	&sk__statefulset,
	&sk__controllerrevision,
	&sk__scale,
	&sk__hpa_v2,
	&sk__hpa_v1,
	&sk__job,
	&sk__cronjob,
	&sk__lease,
	&sk__csr,
	&sk__endpointslice,
	&sk__networkpolicy,
	&sk__role,
	&sk__clusterrole,
	&sk__rolebinding,
	&sk__clusterrolebinding,
	&sk__sar,
	&sk__lsar,
	&sk__ssar,
	&sk__ssrr,
	&sk__runtimeclass,
	&sk__priorityclass,
	&sk__podgroup,
	&sk__mutatingwebhookconfiguration,
	&sk__validatingwebhookconfiguration,
	&sk__validatingadmissionpolicy,
	&sk__validatingadmissionpolicybinding,
	&sk__status,
	&sk__delete_options,
	&sk__table,
	NULL,
};

static const char *nz(const char *s) { return s ? s : ""; }

const sk_resource *sk_schema_resource(const char *group, const char *plural)
{
	for (const sk_resource *r = sk_schema_resources; r->kind; r++)
		if (strcmp(r->group, nz(group)) == 0 && strcmp(r->plural, plural) == 0)
			return r;
	return NULL;
}

const sk_resource *sk_schema_resource_for_kind(const char *kind)
{
	for (const sk_resource *r = sk_schema_resources; r->kind; r++)
		if (strcmp(r->kind, kind) == 0)
			return r;
	return NULL;
}

/* Status and DeleteOptions are accepted under any group version. */
static bool any_version_kind(const sk_schema *s) { return s == &sk__status || s == &sk__delete_options; }

const sk_schema *sk_schema_for_kind(const char *group, const char *version, const char *kind)
{
	if (!kind)
		return NULL;
	for (int i = 0; sk_schema_kinds[i]; i++) {
		const sk_schema *s = sk_schema_kinds[i];

		if (strcmp(s->kind, kind) != 0)
			continue;
		if (any_version_kind(s))
			return s;
		if (strcmp(s->group, nz(group)) == 0 && (!version || strcmp(s->version, version) == 0))
			return s;
	}
	return NULL;
}

static const sk_schema *find_named(const sk_schema *s, const char *name, int depth)
{
	if (!s || depth > 32)
		return NULL;
	if (s->name && strcmp(s->name, name) == 0)
		return s;
	if (s->items)
		return find_named(s->items, name, depth + 1);
	for (const sk_schema_field *f = s->fields; f && f->name; f++) {
		const sk_schema *r = find_named(f->schema, name, depth + 1);

		if (r)
			return r;
	}
	return NULL;
}

const sk_schema *sk_schema_by_name(const char *name)
{
	for (int i = 0; sk_schema_kinds[i]; i++) {
		const sk_schema *r = find_named(sk_schema_kinds[i], name, 0);

		if (r)
			return r;
	}
	return NULL;
}

/* A linear scan (a PodSpec has some 40 fields), run for every key of every
 * write twice (types, unknown fields): the first byte rules out most
 * fields without a call. */
static const sk_schema_field *field_of(const sk_schema *s, const char *name)
{
	for (const sk_schema_field *f = s->fields; f && f->name; f++)
		if (f->name[0] == name[0] && strcmp(f->name, name) == 0)
			return f;
	return NULL;
}

const sk_schema *sk_schema_child(const sk_schema *s, const char *name)
{
	const sk_schema_field *f;

	if (!s || !name)
		return NULL;
	switch (s->type) {
	case SK_SCHEMA_OBJECT:
		f = field_of(s, name);
		return f ? f->schema : NULL;
	case SK_SCHEMA_MAP:
		return s->items;
	case SK_SCHEMA_ARRAY:
		return sk_schema_child(s->items, name);
	default:
		return NULL;
	}
}

/* A field path as the walks below descend, spelled out only for a message
 * (every write walks every field; few fields are reported). */
struct path {
	const struct path *up;
	const char *key; /* NULL: list index idx */
	size_t idx;
};

/* "spec.containers[0].image" (keys joined by dots, indices in brackets). */
static char *path_str(const struct path *p)
{
	cleanup_free char *up = NULL;

	if (!p)
		return xstrdup("");
	up = path_str(p->up);
	if (!p->key)
		return xasprintf("%s[%zu]", up, p->idx);
	return *up ? xasprintf("%s.%s", up, p->key) : xstrdup(p->key);
}

/* Appends the path of each field the schema does not know to out (when not
 * NULL) and, with prune, deletes it from v. */
static void unknown_walk(const sk_schema *s, json_t *v, const struct path *path, json_t *out, int prune)
{
	const char *key;
	json_t *child;
	void *tmp;
	size_t i;

	if (!s || !v)
		return;
	if (s->type == SK_SCHEMA_OBJECT && json_is_object(v)) {
		json_object_foreach_safe(v, tmp, key, child) {
			const sk_schema_field *f = field_of(s, key);
			struct path p = {path, key, 0};

			if (!f) {
				if (out) {
					cleanup_free char *ps = path_str(&p);

					json_array_append_new(out, json_string(ps));
				}
				if (prune)
					json_object_del(v, key);
			} else {
				unknown_walk(f->schema, child, &p, out, prune);
			}
		}
	} else if (s->type == SK_SCHEMA_MAP && json_is_object(v)) {
		json_object_foreach(v, key, child) {
			struct path p = {path, key, 0};

			unknown_walk(s->items, child, &p, out, prune);
		}
	} else if (s->type == SK_SCHEMA_ARRAY && json_is_array(v)) {
		json_array_foreach(v, i, child) {
			struct path p = {path, NULL, i};

			unknown_walk(s->items, child, &p, out, prune);
		}
	}
}

json_t *sk_schema_unknown_fields(const sk_schema *schema, json_t *obj)
{
	json_t *out = json_array();

	unknown_walk(schema, obj, NULL, out, 0);
	return out;
}

json_t *sk_schema_prune_unknown(const sk_schema *schema, json_t *obj)
{
	json_t *out = json_array();

	unknown_walk(schema, obj, NULL, out, 1);
	return out;
}

/* ---- type checks ---- */

/* Go's name for a JSON value in an UnmarshalTypeError. */
static const char *json_kind(json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT:
		return "object";
	case JSON_ARRAY:
		return "array";
	case JSON_STRING:
		return "string";
	case JSON_TRUE:
	case JSON_FALSE:
		return "bool";
	default:
		return "number";
	}
}

static const char *short_name(const char *name)
{
	const char *dot = strrchr(name, '.');

	return dot ? dot + 1 : name;
}

/* Go's spelling of the field's type ("int32", "[]v1.Container"). */
static void go_type(const sk_schema *s, char *buf, size_t len)
{
	char inner[128];

	switch (s->type) {
	case SK_SCHEMA_STRING:
		snprintf(buf, len, "string");
		break;
	case SK_SCHEMA_BYTE:
		snprintf(buf, len, "[]uint8");
		break;
	case SK_SCHEMA_INT32:
		snprintf(buf, len, "int32");
		break;
	case SK_SCHEMA_INT64:
		snprintf(buf, len, "int64");
		break;
	case SK_SCHEMA_BOOLEAN:
		snprintf(buf, len, "bool");
		break;
	case SK_SCHEMA_NUMBER:
		snprintf(buf, len, "float64");
		break;
	case SK_SCHEMA_INT_OR_STRING:
		snprintf(buf, len, "intstr.IntOrString");
		break;
	case SK_SCHEMA_QUANTITY:
		snprintf(buf, len, "resource.Quantity");
		break;
	case SK_SCHEMA_DATE_TIME:
		snprintf(buf, len, "v1.Time");
		break;
	case SK_SCHEMA_ANY:
		snprintf(buf, len, "interface {}");
		break;
	case SK_SCHEMA_OBJECT:
		snprintf(buf, len, "v1.%s", s->name ? short_name(s->name) : "Object");
		break;
	case SK_SCHEMA_ARRAY:
		go_type(s->items, inner, sizeof(inner));
		snprintf(buf, len, "[]%s", inner);
		break;
	case SK_SCHEMA_MAP:
		go_type(s->items, inner, sizeof(inner));
		snprintf(buf, len, "map[string]%s", inner);
		break;
	}
}

static bool is_integral(json_t *v, int64_t lo, int64_t hi)
{
	if (json_is_integer(v))
		return json_integer_value(v) >= lo && json_integer_value(v) <= hi;
	if (json_is_real(v)) {
		double d = json_real_value(v);

		/* converting a double outside int64_t is undefined: range first */
		if (!(d >= -9223372036854775808.0 && d < 9223372036854775808.0))
			return false;
		return d == (double)(int64_t)d && d >= (double)lo && d <= (double)hi;
	}
	return false;
}

static bool type_ok(const sk_schema *s, json_t *v)
{
	if (json_is_null(v))
		return true;
	switch (s->type) {
	case SK_SCHEMA_STRING:
	case SK_SCHEMA_BYTE:
	case SK_SCHEMA_DATE_TIME:
		return json_is_string(v);
	case SK_SCHEMA_INT32:
		return is_integral(v, INT32_MIN, INT32_MAX);
	case SK_SCHEMA_INT64:
		return is_integral(v, INT64_MIN, INT64_MAX);
	case SK_SCHEMA_BOOLEAN:
		return json_is_boolean(v);
	case SK_SCHEMA_NUMBER:
		return json_is_number(v);
	case SK_SCHEMA_OBJECT:
	case SK_SCHEMA_MAP:
		return json_is_object(v);
	case SK_SCHEMA_ARRAY:
		return json_is_array(v);
	case SK_SCHEMA_INT_OR_STRING:
		return json_is_string(v) || is_integral(v, INT32_MIN, INT32_MAX);
	case SK_SCHEMA_QUANTITY:
		return json_is_string(v) || json_is_number(v);
	case SK_SCHEMA_ANY:
		return true;
	}
	return true;
}

/* Index of the first byte Go's base64.StdEncoding rejects, or -1. */
long sk__base64_error(const char *s, size_t len)
{
	size_t pad = 0;

	for (size_t i = 0; i < len; i++) {
		char c = s[i];

		if (c == '=' && len % 4 == 0 && i + 2 >= len) {
			pad++;
			continue;
		}
		if (pad || !(isalnum((unsigned char)c) || c == '+' || c == '/'))
			return (long)i;
	}
	if (len % 4)
		return (long)(len / 4 * 4);
	return -1;
}

/* Values Go decodes with their own parsers: quantities and []byte. */
static int check_value(const sk_schema *s, json_t *v, sk_error_t *err)
{
	int64_t q;
	long bad;

	if (s->type == SK_SCHEMA_QUANTITY && json_is_string(v) && sk_quantity_milli(json_string_value(v), &q) < 0 &&
	    sk_quantity_value(json_string_value(v), &q) < 0)
		return sk_error_set(err, SK_EBADREQUEST,
				    "quantities must match the regular expression "
				    "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
	if (s->type == SK_SCHEMA_BYTE && json_is_string(v) &&
	    (bad = sk__base64_error(json_string_value(v), json_string_length(v))) >= 0)
		return sk_error_set(err, SK_EBADREQUEST, "illegal base64 data at input byte %ld", bad);
	return 0;
}

/* A quantity sent as a JSON number (the Python client's `{"cpu": 0.5}`):
 * resource.Quantity's UnmarshalJSON parses the number's text as a quantity,
 * and it is stored and served as a string ("500m"); validation then sees
 * it as any other quantity (a negative request is refused there). */
static json_t *quantity_of_number(json_t *n)
{
	char buf[64];

	if (json_is_integer(n)) {
		snprintf(buf, sizeof(buf), "%lld", (long long)json_integer_value(n));
	} else {
		double x = json_real_value(n), m = x * 1000;

		if (m > -9e15 && m < 9e15 && m == (double)(int64_t)m)
			sk_quantity_format_milli((int64_t)m, buf, sizeof(buf));
		else
			snprintf(buf, sizeof(buf), "%.15g", x);
	}
	return json_string(buf);
}

/* gp is Go's field path (keys only, no indices); owner the innermost struct. */
static int check_walk(const sk_schema *s, json_t *v, const char *owner, const struct path *gp, sk_error_t *err)
{
	const char *key;
	json_t *child;
	size_t i;

	if (!type_ok(s, v)) {
		cleanup_free char *gopath = path_str(gp);
		char t[160];

		go_type(s, t, sizeof(t));
		if (*gopath)
			return sk_error_set(err, SK_EBADREQUEST,
					    "json: cannot unmarshal %s into Go struct field %s.%s of type %s",
					    json_kind(v), owner, gopath, t);
		return sk_error_set(err, SK_EBADREQUEST, "json: cannot unmarshal %s into Go value of type %s",
				    json_kind(v), t);
	}
	if (check_value(s, v, err) < 0)
		return -1;
	if (s->type == SK_SCHEMA_OBJECT && json_is_object(v)) {
		const char *inner = s->name ? short_name(s->name) : owner;

		json_object_foreach(v, key, child) {
			const sk_schema_field *f = field_of(s, key);
			struct path p = {gp, key, 0};

			if (!f)
				continue;
			if (check_walk(f->schema, child, inner, &p, err) < 0)
				return -1;
			if (f->schema->type == SK_SCHEMA_QUANTITY && json_is_number(child))
				json_object_set_new(v, key, quantity_of_number(child));
		}
	} else if (s->type == SK_SCHEMA_MAP && json_is_object(v)) {
		json_object_foreach(v, key, child) {
			if (check_walk(s->items, child, owner, gp, err) < 0)
				return -1;
			if (s->items->type == SK_SCHEMA_QUANTITY && json_is_number(child))
				json_object_set_new(v, key, quantity_of_number(child));
		}
	} else if (s->type == SK_SCHEMA_ARRAY && json_is_array(v)) {
		json_array_foreach(v, i, child) {
			if (check_walk(s->items, child, owner, gp, err) < 0)
				return -1;
			if (s->items->type == SK_SCHEMA_QUANTITY && json_is_number(child))
				json_array_set_new(v, i, quantity_of_number(child));
		}
	}
	return 0;
}

int sk_schema_check_types(const sk_schema *schema, json_t *obj, sk_error_t *err)
{
	if (!schema)
		return 0;
	return check_walk(schema, obj, schema->name ? short_name(schema->name) : "", NULL, err);
}
