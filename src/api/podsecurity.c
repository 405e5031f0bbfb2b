/* The PodSecurity admission plugin (podsecurity.h), after upstream's
 * pod-security-admission/admission/admission.go: pods are enforced, audited
 * and warned; workloads with a pod template only audited and warned;
 * namespaces have their labels checked and, when enforce gets stricter, are
 * told which existing pods would violate it. */
#include "api/podsecurity.h"

#include <errno.h>
#include <libgen.h>
#include <string.h>

#include "util/json.h"
#include "util/util.h"
#include "util/yaml.h"

/* upstream's defaultNamespaceMaxPodsToCheck */
#define MAX_PODS_TO_CHECK 3000

/* ---- configuration (PodSecurityConfiguration) ---- */

static const char *const mode_names[] = {"enforce", "audit", "warn"};

static sk_psa_lv *mode_lv(sk_psa_policy *p, int i) { return i == 0 ? &p->enforce : i == 1 ? &p->audit : &p->warn; }

static int read_strings(json_t *ex, const char *key, json_t **out, sk_error_t *err)
{
	json_t *v = json_object_get(ex, key), *s;
	size_t i;

	*out = json_array();
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_array(v))
		return sk_error_set(err, SK_EINVALID, "exemptions.%s: must be a list of strings", key);
	json_array_foreach(v, i, s) {
		if (!json_is_string(s) || !*json_string_value(s))
			return sk_error_set(err, SK_EINVALID,
					    "exemptions.%s[%zu]: Invalid value: must be a non-empty string", key, i);
		json_array_append(*out, s);
	}
	return 0;
}

static int read_default(json_t *d, int i, sk_psa_policy *p, sk_error_t *err)
{
	cleanup_free char *vkey = xasprintf("%s-version", mode_names[i]);
	json_t *lv = json_object_get(d, mode_names[i]), *vv = json_object_get(d, vkey);
	const char *l = json_string_value(lv), *v = json_string_value(vv);

	if ((lv && !json_is_null(lv) && !l) || (l && *l && sk_psa_parse_level(l, &mode_lv(p, i)->level) < 0))
		return sk_error_set(
			err, SK_EINVALID,
			"defaults.%s: Invalid value: \"%s\": must be one of privileged, baseline, restricted",
			mode_names[i], l ? l : "");
	if ((vv && !json_is_null(vv) && !v) || (v && *v && sk_psa_parse_version(v, &mode_lv(p, i)->minor) < 0))
		return sk_error_set(err, SK_EINVALID,
				    "defaults.%s: Invalid value: \"%s\": must be \"latest\" or \"v1.x\"", vkey,
				    v ? v : "");
	return 0;
}

sk__psa_config *sk__psa_config_from_json(json_t *cfg, sk_error_t *err)
{
	sk__psa_config *c = xzalloc(sizeof(*c));
	const char *kind = json_string_value(json_object_get(cfg, "kind"));
	json_t *d, *ex;

	sk_psa_policy_default(&c->defaults);
	if (!json_is_object(cfg)) {
		sk_error_set(err, SK_EINVALID, "the PodSecurity configuration must be an object");
		goto fail;
	}
	if (kind && strcmp(kind, "PodSecurityConfiguration")) {
		sk_error_set(err, SK_EINVALID, "kind \"%s\": want PodSecurityConfiguration", kind);
		goto fail;
	}
	d = json_object_get(cfg, "defaults");
	ex = json_object_get(cfg, "exemptions");
	for (int i = 0; i < 3; i++)
		if (read_default(d, i, &c->defaults, err) < 0)
			goto fail;
	if (read_strings(ex, "usernames", &c->usernames, err) < 0 ||
	    read_strings(ex, "namespaces", &c->namespaces, err) < 0 ||
	    read_strings(ex, "runtimeClasses", &c->runtime_classes, err) < 0)
		goto fail;
	return c;
fail:
	sk__psa_config_free(c);
	return NULL;
}

static json_t *load_config_file(const char *path, sk_error_t *err)
{
	cleanup_free char *text = NULL;
	size_t len;
	json_t *o;

	text = sk_read_file(path, &len);
	if (!text) {
		sk_error_errno(err, errno, "admission-control-config-file \"%s\"", path);
		return NULL;
	}
	o = sk_yaml_load(text, len, err);
	if (!o)
		sk_error_wrap(err, "admission-control-config-file \"%s\"", path);
	return o;
}

/* The PodSecurity plugin's configuration: inline, or a file relative to
 * the AdmissionConfiguration's directory. */
static json_t *plugin_config(json_t *plugin, const char *path, sk_error_t *err)
{
	const char *file = json_string_value(json_object_get(plugin, "path"));
	cleanup_free char *dir = NULL;
	cleanup_free char *full = NULL;

	if (json_is_object(json_object_get(plugin, "configuration")))
		return json_incref(json_object_get(plugin, "configuration"));
	if (!file || !*file)
		return json_object();
	dir = xstrdup(path);
	full = file[0] == '/' ? xstrdup(file) : xasprintf("%s/%s", dirname(dir), file);
	return load_config_file(full, err);
}

sk__psa_config *sk__psa_config_load(const char *path, sk_error_t *err)
{
	cleanup_json json_t *root = NULL;
	cleanup_json json_t *cfg = NULL;
	const char *kind;
	sk__psa_config *c;
	size_t i;
	json_t *p;

	if (!path) {
		cfg = json_object();
		c = sk__psa_config_from_json(cfg, err);
		json_array_append_new(c->namespaces, json_string("kube-system"));
		return c;
	}
	root = load_config_file(path, err);
	if (!root)
		return NULL;
	kind = json_string_value(json_object_get(root, "kind"));
	if (!kind || strcmp(kind, "AdmissionConfiguration")) {
		sk_error_set(err, SK_EINVALID,
			     "admission-control-config-file \"%s\": kind \"%s\": want AdmissionConfiguration", path,
			     kind ? kind : "");
		return NULL;
	}
	json_array_foreach(json_object_get(root, "plugins"), i, p) {
		const char *name = json_string_value(json_object_get(p, "name"));

		if (name && !strcmp(name, "PodSecurity")) {
			cfg = plugin_config(p, path, err);
			if (!cfg)
				return NULL;
			break;
		}
	}
	if (!cfg)
		cfg = json_object();
	c = sk__psa_config_from_json(cfg, err);
	if (!c)
		sk_error_wrap(err, "admission-control-config-file \"%s\": plugin PodSecurity", path);
	return c;
}

void sk__psa_config_free(sk__psa_config *c)
{
	if (!c)
		return;
	json_decref(c->usernames);
	json_decref(c->namespaces);
	json_decref(c->runtime_classes);
	free(c);
}

/* ---- helpers ---- */

static int contains(json_t *arr, const char *s)
{
	size_t i;
	json_t *v;

	if (!s || !*s)
		return 0;
	json_array_foreach(arr, i, v)
		if (!strcmp(json_string_value(v), s))
			return 1;
	return 0;
}

static json_t *labels_of(json_t *obj) { return json_object_get(json_object_get(obj, "metadata"), "labels"); }

/* The namespace as stored (new reference), or NULL. */
static json_t *load_namespace(sk_api *api, const char *ns)
{
	cleanup_free char *key = xasprintf("/registry/namespaces/%s", ns);
	sk_error_t e = {0};
	sk_store_kv kv;
	json_t *o;

	if (sk_store_get(api->store, key, &kv, &e) < 0)
		return NULL;
	o = sk__obj_decode(kv.value, kv.len, kv.mod_rev);
	sk_store_kv_release(&kv);
	return o;
}

/* An audit annotation (pod-security.kubernetes.io/KEY), when the caller records them. */
static void annotate(sk_adm_request *a, const char *key, const char *value)
{
	cleanup_free char *k = xasprintf(SK_PSA_LABEL_PREFIX "%s", key);

	if (a->annotations)
		json_object_set_new(a->annotations, k, json_string(value));
}

static void warn(sk_adm_request *a, const char *text)
{
	if (a->resp)
		sk__add_warning(a->resp, text);
}

/* field.ErrorList.ToAggregate's text: one error, or "[a, b]". */
static char *causes_text(json_t *causes)
{
	cleanup_free char *body = xstrdup("");
	size_t i;
	json_t *c;

	json_array_foreach(causes, i, c) {
		char *next = xasprintf("%s%s%s: %s", body, i ? ", " : "",
				       json_string_value(json_object_get(c, "field")),
				       json_string_value(json_object_get(c, "message")));

		free(body);
		body = next;
	}
	return json_array_size(causes) > 1 ? xasprintf("[%s]", body) : xstrdup(body);
}

static int fully_privileged(const sk_psa_policy *p)
{
	return p->enforce.level == SK_PSA_PRIVILEGED && p->audit.level == SK_PSA_PRIVILEGED &&
	       p->warn.level == SK_PSA_PRIVILEGED;
}

/* ---- pods and pod templates ---- */

/* upstream's EvaluatePod: enforce (pods only), audit, then warn when allowed. */
static int evaluate(sk_adm_request *a, const sk__psa_config *cfg, const sk_psa_policy *p, json_t *causes, json_t *meta,
		    json_t *spec, int enforce, sk_error_t *err)
{
	const char *rc = json_string_value(json_object_get(spec, "runtimeClassName"));
	cleanup_json json_t *er = NULL;
	cleanup_json json_t *ar = NULL;
	cleanup_json json_t *wr = NULL;
	char elv[64], alv[64], wlv[64];
	int allowed = 1;

	if (contains(cfg->runtime_classes, rc)) {
		annotate(a, "exempt", "runtimeClass");
		return 0;
	}
	if (causes) {
		cleanup_free char *t = causes_text(causes);
		cleanup_free char *msg = xasprintf("Failed to parse policy: %s", t);

		annotate(a, "error", msg);
	}
	sk_psa_lv_format(&p->enforce, elv, sizeof(elv));
	sk_psa_lv_format(&p->audit, alv, sizeof(alv));
	sk_psa_lv_format(&p->warn, wlv, sizeof(wlv));
	if (enforce) {
		annotate(a, "enforce-policy", elv);
		er = sk_psa_evaluate(&p->enforce, meta, spec);
		if (json_array_size(er)) {
			cleanup_free char *d = sk_psa_forbidden_detail(er);

			sk_error_set(err, SK_EFORBIDDEN, "%s \"%s\" is forbidden: violates PodSecurity \"%s\": %s",
				     a->res->plural, a->name, elv, d);
			allowed = 0;
		}
	}
	ar = er && sk_psa_lv_equal(&p->audit, &p->enforce) ? json_incref(er) : sk_psa_evaluate(&p->audit, meta, spec);
	if (json_array_size(ar)) {
		cleanup_free char *d = sk_psa_forbidden_detail(ar);
		cleanup_free char *msg = xasprintf("would violate PodSecurity \"%s\": %s", alv, d);

		annotate(a, "audit-violations", msg);
	}
	if (!allowed)
		return -1;
	wr = er && sk_psa_lv_equal(&p->warn, &p->enforce) ? json_incref(er)
	     : sk_psa_lv_equal(&p->warn, &p->audit)       ? json_incref(ar)
							  : sk_psa_evaluate(&p->warn, meta, spec);
	if (json_array_size(wr)) {
		cleanup_free char *d = sk_psa_forbidden_detail(wr);
		cleanup_free char *msg = xasprintf("would violate PodSecurity \"%s\": %s", wlv, d);

		warn(a, msg);
	}
	return 0;
}

static int same_image(json_t *c, json_t *oc)
{
	const char *i = json_string_value(json_object_get(c, "image"));
	const char *oi = json_string_value(json_object_get(oc, "image"));

	return !strcmp(i ? i : "", oi ? oi : "");
}

/* upstream's isSignificantPodUpdate: only images change a pod's checks. */
static int significant_update(json_t *pod, json_t *old)
{
	static const char *const lists[] = {"containers", "initContainers"};
	json_t *spec = json_object_get(pod, "spec"), *ospec = json_object_get(old, "spec"), *c;
	size_t i;

	for (int l = 0; l < 2; l++) {
		json_t *n = json_object_get(spec, lists[l]), *o = json_object_get(ospec, lists[l]);

		if (json_array_size(n) != json_array_size(o))
			return 1;
		for (i = 0; i < json_array_size(n); i++)
			if (!same_image(json_array_get(n, i), json_array_get(o, i)))
				return 1;
	}
	json_array_foreach(json_object_get(spec, "ephemeralContainers"), i, c) {
		json_t *oc, *match = NULL;
		size_t j;

		json_array_foreach(json_object_get(ospec, "ephemeralContainers"), j, oc)
			if (json_equal(json_object_get(oc, "name"), json_object_get(c, "name"))) {
				match = oc;
				break;
			}
		if (!match || !same_image(c, match))
			return 1;
	}
	return 0;
}

/* Exempt by namespace or user: 1 (annotated). */
static int exempt(sk_adm_request *a, const sk__psa_config *cfg)
{
	if (contains(cfg->namespaces, a->ns)) {
		annotate(a, "exempt", "namespace");
		return 1;
	}
	if (a->user && contains(cfg->usernames, a->user->name)) {
		annotate(a, "exempt", "user");
		return 1;
	}
	return 0;
}

static int validate_pod(sk_api *api, sk_adm_request *a, sk_error_t *err)
{
	const sk__psa_config *cfg = api->psa;
	cleanup_json json_t *ns = NULL;
	cleanup_json json_t *causes = NULL;
	sk_psa_policy p;

	/* upstream's ignoredPodSubresources: all but ephemeralcontainers and resize */
	if (a->sub[0] && strcmp(a->sub, "ephemeralcontainers") && strcmp(a->sub, "resize"))
		return 0;
	if (exempt(a, cfg))
		return 0;
	ns = load_namespace(api, a->ns);
	if (!ns)
		return sk_error_set(err, SK_EINTERNAL, "Internal error occurred: failed to lookup namespace \"%s\"",
				    a->ns);
	causes = sk_psa_policy_from_labels(labels_of(ns), &cfg->defaults, &p);
	if (!causes && fully_privileged(&p)) {
		annotate(a, "enforce-policy", "privileged:latest");
		return 0;
	}
	if (a->op == SK_ADM_UPDATE && !significant_update(a->obj, a->old))
		return 0;
	return evaluate(a, cfg, &p, causes, json_object_get(a->obj, "metadata"), json_object_get(a->obj, "spec"), 1,
			err);
}

/* The pod template of a workload (upstream's DefaultPodSpecExtractor). */
static json_t *pod_template(const sk_api_resource *r, json_t *obj)
{
	json_t *spec = json_object_get(obj, "spec");

	if (!strcmp(r->plural, "podtemplates"))
		return json_object_get(obj, "template");
	if (!strcmp(r->plural, "cronjobs"))
		return json_object_get(json_object_get(json_object_get(spec, "jobTemplate"), "spec"), "template");
	return json_object_get(spec, "template");
}

static int validate_workload(sk_api *api, sk_adm_request *a)
{
	const sk__psa_config *cfg = api->psa;
	cleanup_json json_t *ns = NULL;
	cleanup_json json_t *causes = NULL;
	sk_error_t ignored = {0};
	sk_psa_policy p;
	json_t *t;

	if (a->sub[0] || exempt(a, cfg))
		return 0;
	ns = load_namespace(api, a->ns);
	if (!ns) {
		cleanup_free char *msg = xasprintf("failed to lookup namespace \"%s\"", a->ns);

		annotate(a, "error", msg);
		return 0;
	}
	causes = sk_psa_policy_from_labels(labels_of(ns), &cfg->defaults, &p);
	if (!causes && p.warn.level == SK_PSA_PRIVILEGED && p.audit.level == SK_PSA_PRIVILEGED)
		return 0;
	t = pod_template(a->res, a->obj);
	if (!json_is_object(t))
		return 0;
	/* workloads are never refused: only audited and warned */
	evaluate(a, cfg, &p, causes, json_object_get(t, "metadata"), json_object_get(t, "spec"), 0, &ignored);
	return 0;
}

/* ---- namespaces ---- */

static json_t *controller_uid(json_t *pod)
{
	size_t i;
	json_t *ref;

	json_array_foreach(json_object_get(json_object_get(pod, "metadata"), "ownerReferences"), i, ref)
		if (json_is_true(json_object_get(ref, "controller")))
			return json_object_get(ref, "uid");
	return NULL;
}

/* The pods to check, one per controller first (upstream's prioritizePods);
 * runtime-class-exempt pods left out. */
static json_t *prioritized_pods(sk_api *api, const sk__psa_config *cfg, const char *ns, sk_error_t *err)
{
	const sk_api_resource *r = sk__resource_find("", "v1", "pods");
	cleanup_free char *prefix = r ? sk__obj_prefix(r, ns) : NULL;
	cleanup_json json_t *seen = json_object();
	cleanup_json json_t *dups = json_array();
	sk_store_list l = {0};
	json_t *out;

	if (!prefix || sk_store_range(api->store, prefix, NULL, 0, 0, &l, err) < 0)
		return NULL;
	out = json_array();
	for (size_t i = 0; i < l.n; i++) {
		json_t *pod = sk__obj_decode(l.items[i].value, l.items[i].len, l.items[i].mod_rev);
		const char *uid = json_string_value(controller_uid(pod));

		if (!pod ||
		    contains(cfg->runtime_classes,
			     json_string_value(json_object_get(json_object_get(pod, "spec"), "runtimeClassName")))) {
			json_decref(pod);
			continue;
		}
		if (uid && json_object_get(seen, uid)) {
			json_array_append_new(dups, pod);
			continue;
		}
		if (uid)
			json_object_set_new(seen, uid, json_true());
		json_array_append_new(out, pod);
	}
	sk_store_list_release(&l);
	json_array_extend(out, dups);
	return out;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

/* upstream's EvaluatePodsInNamespace: one line per distinct violation,
 * naming the first pod (by name) that has it and how many others do. */
static void warn_existing_pods(sk_api *api, sk_adm_request *a, const char *ns, const sk_psa_lv *lv)
{
	cleanup_json json_t *pods = NULL;
	cleanup_json json_t *by_reason = json_object();
	sk_error_t e = {0};
	size_t total, checked, n = 0, i = 0;
	char **lines;
	const char *reason;
	json_t *pod, *v;
	char lvs[64];

	pods = prioritized_pods(api, api->psa, ns, &e);
	if (!pods) {
		warn(a, "failed to list pods while checking new PodSecurity enforce level");
		return;
	}
	total = json_array_size(pods);
	checked = total > MAX_PODS_TO_CHECK ? MAX_PODS_TO_CHECK : total;
	for (i = 0; i < checked; i++) {
		const char *name;
		cleanup_json json_t *res = NULL;
		cleanup_free char *why = NULL;
		json_t *c;

		pod = json_array_get(pods, i);
		name = json_string_value(json_object_get(json_object_get(pod, "metadata"), "name"));
		res = sk_psa_evaluate(lv, json_object_get(pod, "metadata"), json_object_get(pod, "spec"));
		if (!json_array_size(res))
			continue;
		why = sk_psa_forbidden_reason(res);
		c = json_object_get(by_reason, why);
		if (!c) {
			json_object_set_new(by_reason, why,
					    json_pack("{s:s, s:i}", "name", name ? name : "", "count", 1));
			continue;
		}
		if (name && strcmp(name, json_string_value(json_object_get(c, "name"))) < 0)
			json_object_set_new(c, "name", json_string(name));
		json_object_set_new(c, "count", json_integer(json_integer_value(json_object_get(c, "count")) + 1));
	}
	if (checked < total) {
		cleanup_free char *m = xasprintf(
			"new PodSecurity enforce level only checked against the first %zu of %zu existing pods",
			checked, total);

		warn(a, m);
	}
	if (!json_object_size(by_reason))
		return;
	sk_psa_lv_format(lv, lvs, sizeof(lvs));
	{
		cleanup_free char *m = xasprintf(
			"existing pods in namespace \"%s\" violate the new PodSecurity enforce level \"%s\"", ns, lvs);

		warn(a, m);
	}
	lines = xmalloc(json_object_size(by_reason) * sizeof(*lines));
	json_object_foreach(by_reason, reason, v) {
		const char *name = json_string_value(json_object_get(v, "name"));
		json_int_t count = json_integer_value(json_object_get(v, "count"));

		if (count == 1)
			lines[n++] = xasprintf("%s: %s", name, reason);
		else if (count == 2)
			lines[n++] = xasprintf("%s (and 1 other pod): %s", name, reason);
		else
			lines[n++] = xasprintf("%s (and %lld other pods): %s", name, (long long)count - 1, reason);
	}
	qsort(lines, n, sizeof(*lines), cmp_str);
	for (i = 0; i < n; i++) {
		warn(a, lines[i]);
		free(lines[i]);
	}
	free(lines);
}

/* upstream's exemptNamespaceWarning: "" when there is nothing to say (malloc'd). */
static char *exempt_warning(const char *ns, const sk_psa_policy *p, const sk_psa_policy *defaults, json_t *labels)
{
	char buf[256] = "", lvs[64];
	size_t off = 0;

	if (fully_privileged(p) ||
	    (sk_psa_lv_equivalent(&p->enforce, &defaults->enforce) &&
	     sk_psa_lv_equivalent(&p->audit, &defaults->audit) && sk_psa_lv_equivalent(&p->warn, &defaults->warn)))
		return xstrdup("");
	for (int i = 0; i < 3; i++) {
		cleanup_free char *lk = xasprintf(SK_PSA_LABEL_PREFIX "%s", mode_names[i]);
		cleanup_free char *vk = xasprintf(SK_PSA_LABEL_PREFIX "%s-version", mode_names[i]);
		const sk_psa_lv *lv = mode_lv((sk_psa_policy *)p, i);

		if (lv->level == SK_PSA_PRIVILEGED || (!json_object_get(labels, lk) && !json_object_get(labels, vk)))
			continue;
		sk_psa_lv_format(lv, lvs, sizeof(lvs));
		off += (size_t)snprintf(buf + off, off < sizeof(buf) ? sizeof(buf) - off : 0, "%s%s=%s",
					off ? ", " : "", mode_names[i], lvs);
	}
	return xasprintf("namespace \"%s\" is exempt from Pod Security, and the policy (%s) will be ignored", ns, buf);
}

static int refuse_labels(sk_adm_request *a, json_t *causes, sk_error_t *err)
{
	cleanup_free char *t = causes_text(causes);

	a->causes = json_incref(causes);
	return sk_error_set(err, SK_EINVALID, "Namespace \"%s\" is invalid: %s", a->name, t);
}

static int validate_namespace(sk_api *api, sk_adm_request *a, sk_error_t *err)
{
	const sk__psa_config *cfg = api->psa;
	json_t *labels = labels_of(a->obj);
	cleanup_json json_t *causes = NULL;
	cleanup_json json_t *old_causes = NULL;
	sk_psa_policy np, op;

	if (a->sub[0])
		return 0;
	causes = sk_psa_policy_from_labels(labels, &cfg->defaults, &np);
	if (causes && a->op == SK_ADM_CREATE)
		return refuse_labels(a, causes, err);
	if (a->op == SK_ADM_CREATE) {
		if (contains(cfg->namespaces, a->name)) {
			cleanup_free char *w = exempt_warning(a->name, &np, &cfg->defaults, labels);

			if (*w)
				warn(a, w);
		}
		return 0;
	}
	old_causes = sk_psa_policy_from_labels(labels_of(a->old), &cfg->defaults, &op);
	if (causes && (!old_causes || !json_equal(causes, old_causes)))
		return refuse_labels(a, causes, err);
	if (sk_psa_lv_equal(&np.enforce, &op.enforce) || np.enforce.level == SK_PSA_PRIVILEGED)
		return 0;
	if (np.enforce.minor == op.enforce.minor && sk_psa_compare_levels(np.enforce.level, op.enforce.level) < 1)
		return 0;
	if (contains(cfg->namespaces, a->name)) {
		cleanup_free char *w = exempt_warning(a->name, &np, &cfg->defaults, labels);

		if (*w)
			warn(a, w);
		return 0;
	}
	warn_existing_pods(api, a, a->name, &np.enforce);
	return 0;
}

/* ---- the plugin ---- */

/* upstream's DefaultPodSpecExtractor resources */
static int has_pod_template(const sk_api_resource *r)
{
	static const char *const kinds[][2] = {
		{"", "replicationcontrollers"},
		{"", "podtemplates"},
		{"apps", "replicasets"},
		{"apps", "deployments"},
		{"apps", "statefulsets"},
		{"apps", "daemonsets"},
		{"batch", "jobs"},
		{"batch", "cronjobs"},
	};

	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (!strcmp(r->group, kinds[i][0]) && !strcmp(r->plural, kinds[i][1]))
			return 1;
	return 0;
}

static int pod_security_validate(sk_api *api, sk_adm_request *a, sk_error_t *err)
{
	const sk_api_resource *r = a->res;

	if ((a->op != SK_ADM_CREATE && a->op != SK_ADM_UPDATE) || !api->psa || r->custom)
		return 0;
	if (!r->group[0] && !strcmp(r->plural, "namespaces"))
		return validate_namespace(api, a, err);
	if (!r->group[0] && !strcmp(r->plural, "pods"))
		return validate_pod(api, a, err);
	if (has_pod_template(r))
		return validate_workload(api, a);
	return 0;
}

const sk_adm_plugin sk__adm_pod_security = {
	.name = "PodSecurity",
	.validate = pod_security_validate,
};
