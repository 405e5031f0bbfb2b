/* apiregistration.k8s.io/v1 APIService: the kind's rules (kube-aggregator's
 * strategy, validation and table) and the autoregistration of the local
 * APIServices (kube-apiserver's autoregister and crdregistration
 * controllers): one APIService per group/version this server serves itself,
 * built-in ones labelled kube-aggregator.kubernetes.io/automanaged=onstart,
 * those of CustomResourceDefinitions =true (removed with their CRD). */
#include <stdio.h>
#include <string.h>

#include "api/api-int.h"
#include "api/apiservice.h"
#include "api/validate-int.h"
#include "api/validate.h"
#include "api/table.h"
#include "client/client.h"
#include "kube/condition.h"
#include "util/util.h"

#define AUTOMANAGED "kube-aggregator.kubernetes.io/automanaged"
#define COLLECTION "/apis/apiregistration.k8s.io/v1/apiservices"

static json_t *jget(json_t *o, const char *k) { return json_object_get(o, k); }
static const char *jstr(json_t *o, const char *k) { return json_string_value(json_object_get(o, k)); }

/* ---- defaulting: SetDefaults_ServiceReference ---- */

static void apiservice_defaults(const sk_api_resource *r, json_t *obj)
{
	json_t *svc = jget(jget(obj, "spec"), "service");

	(void)r;
	if (json_is_object(svc) && !jget(svc, "port"))
		json_object_set_new(svc, "port", json_integer(443));
}

/* ---- validation: kube-aggregator's validation.go ---- */

/* the length of what base64 s decodes to */
static size_t b64_len(const char *s)
{
	size_t n = strlen(s), pad = 0;

	while (n > pad && s[n - 1 - pad] == '=')
		pad++;
	return n / 4 * 3 - (pad > 2 ? 2 : pad) + (n % 4 ? (n % 4) * 3 / 4 : 0);
}

static void validate_priority(struct sk__verr *e, json_t *spec, const char *k, int64_t max, const char *msg)
{
	json_t *v = jget(spec, k);
	cleanup_free char *f = xasprintf("spec.%s", k);

	if (v && !json_is_integer(v)) {
		sk__vinvalid(e, f, v, msg);
		return;
	}
	if (json_integer_value(v) <= 0 || json_integer_value(v) > max)
		sk__vinvalid_int(e, f, json_integer_value(v), msg);
}

void sk__apiservice_validate_spec(struct sk__verr *e, json_t *obj)
{
	json_t *spec = jget(obj, "spec"), *svc, *ca, *insecure;
	const char *group = jstr(spec, "group"), *version = jstr(spec, "version");
	const char *name = jstr(jget(obj, "metadata"), "name"), *m;
	size_t ca_len = 0;

	group = group ? group : "";
	version = version ? version : "";
	sk__validate_object_meta_path(e, obj, false);
	if (name && *name && strcmp(name, ".") && strcmp(name, "..") && !strpbrk(name, "/%")) {
		cleanup_free char *want = xasprintf("%s.%s", version, group);

		if (strcmp(name, want)) {
			cleanup_free char *q = sk__vquote(want);
			cleanup_free char *msg = xasprintf("must be `spec.version+\".\"+spec.group`: %s", q);

			sk__vinvalid_str(e, "metadata.name", name, msg);
		}
	}
	if (!*group && strcmp(version, "v1"))
		sk__vrequired(e, "spec.group", "only v1 may have an empty group and it better be legacy kube");
	if (*group && (m = sk_validate_dns1123_subdomain(group)))
		sk__vinvalid_str(e, "spec.group", group, m);
	if ((m = sk_validate_dns1035_label(version)))
		sk__vinvalid_str(e, "spec.version", version, m);
	validate_priority(e, spec, "groupPriorityMinimum", 20000, "must be positive and less than 20000");
	validate_priority(e, spec, "versionPriority", 1000, "must be positive and less than 1000");

	ca = jget(spec, "caBundle");
	if (ca && !json_is_null(ca)) {
		long bad = json_is_string(ca) ? sk__base64_error(json_string_value(ca), json_string_length(ca)) : 0;

		if (bad >= 0) {
			cleanup_free char *msg = xasprintf("illegal base64 data at input byte %ld", bad);

			sk__vinvalid(e, "spec.caBundle", ca, msg);
		}
		ca_len = json_is_string(ca) ? b64_len(json_string_value(ca)) : 0;
	}
	insecure = jget(spec, "insecureSkipTLSVerify");
	if (insecure && !json_is_boolean(insecure) && !json_is_null(insecure))
		sk__vinvalid(e, "spec.insecureSkipTLSVerify", insecure, "must be a boolean");
	svc = jget(spec, "service");
	if (!svc || json_is_null(svc)) {
		if (ca_len) {
			cleanup_free char *repr = xasprintf("\"%zu bytes\"", ca_len);

			sk__vinvalid_repr(e, "spec.caBundle", repr, "local APIServices may not have a caBundle");
		}
		if (json_is_true(insecure))
			sk__vinvalid(e, "spec.insecureSkipTLSVerify", insecure,
				     "local APIServices may not have insecureSkipTLSVerify");
		return;
	}
	if (!json_is_object(svc)) {
		sk__vinvalid(e, "spec.service", svc, "must be an object");
		return;
	}
	if (!jstr(svc, "namespace") || !*jstr(svc, "namespace"))
		sk__vrequired(e, "spec.service.namespace", "");
	if (!jstr(svc, "name") || !*jstr(svc, "name"))
		sk__vrequired(e, "spec.service.name", "");
	{
		json_t *port = jget(svc, "port");

		if (!json_is_integer(port) || json_integer_value(port) < 1 || json_integer_value(port) > 65535)
			sk__vinvalid(e, "spec.service.port", port ? port : json_null(),
				     "port is not valid: must be between 1 and 65535, inclusive");
	}
	if (json_is_true(insecure) && ca_len)
		sk__vinvalid(e, "spec.insecureSkipTLSVerify", insecure, "may not be true if caBundle is present");
}

static void validate_status(struct sk__verr *e, json_t *obj)
{
	static const char *const statuses[] = {"True", "False", "Unknown", NULL};
	json_t *conds = jget(jget(obj, "status"), "conditions"), *c;
	size_t i;

	json_array_foreach(conds, i, c) {
		json_t *st = jget(c, "status");
		const char *s = json_string_value(st);

		if (!s || (strcmp(s, "True") && strcmp(s, "False") && strcmp(s, "Unknown"))) {
			cleanup_free char *f = xasprintf("status.conditions[%zu].status", i);

			sk__vnot_supported(e, f, st ? st : json_string(""), statuses);
		}
	}
}

json_t *sk__apiservice_validate(const sk_api_resource *r, json_t *obj, json_t *old, int status_sub)
{
	struct sk__verr e = {json_array()};

	(void)r;
	if (json_is_object(old))
		sk__validate_object_meta_update(&e, obj, old);
	if (status_sub)
		validate_status(&e, obj);
	else
		sk__apiservice_validate_spec(&e, obj);
	if (!json_array_size(e.causes)) {
		json_decref(e.causes);
		return NULL;
	}
	return e.causes;
}

/* PrepareForCreate: the status starts empty */
static int apiservice_admit_create(sk_api *api, const sk_api_resource *r, json_t *obj, sk_error_t *err)
{
	(void)api;
	(void)r;
	(void)err;
	json_object_set_new(obj, "status", json_object());
	return 0;
}

const sk_kind_ops sk__apiservice_ops = {
	.defaults = apiservice_defaults,
	.validate = sk__apiservice_validate,
	.admit_create = apiservice_admit_create,
	.printer = &sk_table_printer_apiservice,
};

/* ---- autoregistration ---- */

/* kube-apiserver's apiVersionPriorities (aggregator.go) */
static const struct {
	const char *group, *version;
	int gp, vp;
} priorities[] = {
	{"", "v1", 18000, 1},
	{"apiregistration.k8s.io", "v1", 18000, 15},
	{"apps", "v1", 17800, 15},
	{"events.k8s.io", "v1", 17750, 15},
	{"authentication.k8s.io", "v1", 17700, 15},
	{"authorization.k8s.io", "v1", 17600, 15},
	{"autoscaling", "v1", 17500, 15},
	{"autoscaling", "v2", 17500, 30},
	{"batch", "v1", 17400, 15},
	{"certificates.k8s.io", "v1", 17300, 15},
	{"networking.k8s.io", "v1", 17200, 15},
	{"policy", "v1", 17100, 15},
	{"rbac.authorization.k8s.io", "v1", 17000, 15},
	{"storage.k8s.io", "v1", 16800, 15},
	{"apiextensions.k8s.io", "v1", 16700, 15},
	{"admissionregistration.k8s.io", "v1", 16700, 15},
	{"scheduling.k8s.io", "v1", 16600, 15},
	{"coordination.k8s.io", "v1", 16500, 15},
	{"node.k8s.io", "v1", 16300, 15},
	{"discovery.k8s.io", "v1", 16200, 15},
	{"flowcontrol.apiserver.k8s.io", "v1", 16100, 21},
	/* metrics-server's own manifest */
	{"metrics.k8s.io", "v1beta1", 100, 100},
};

void sk__apiservice_priority(const char *group, const char *version, int custom, int *gp, int *vp)
{
	for (size_t i = 0; i < sizeof(priorities) / sizeof(priorities[0]); i++)
		if (!strcmp(priorities[i].group, group) && !strcmp(priorities[i].version, version)) {
			*gp = priorities[i].gp;
			*vp = priorities[i].vp;
			return;
		}
	/* crdregistration's (and a group the table does not know) */
	(void)custom;
	*gp = 1000;
	*vp = 100;
}

/* The local APIServices this server wants: name → object. */
static json_t *wanted(void)
{
	const sk_kind_set *ks = sk__kinds();
	json_t *out = json_object();

	for (size_t i = 0; i < ks->n; i++) {
		const sk_api_resource *r = ks->v[i];
		cleanup_free char *name = xasprintf("%s.%s", r->version, r->group);
		int gp, vp;

		if (json_object_get(out, name))
			continue;
		sk__apiservice_priority(r->group, r->version, r->custom, &gp, &vp);
		json_object_set_new(out, name,
				    json_pack("{s:s, s:s, s:{s:s, s:{s:s}}, s:{s:s, s:s, s:i, s:i}}", "apiVersion",
					      "apiregistration.k8s.io/v1", "kind", "APIService", "metadata", "name",
					      name, "labels", AUTOMANAGED, r->custom ? "true" : "onstart", "spec",
					      "group", r->group, "version", r->version, "groupPriorityMinimum", gp,
					      "versionPriority", vp));
	}
	return out;
}

static int spec_differs(json_t *want, json_t *have)
{
	json_t *w = jget(want, "spec"), *h = jget(have, "spec");
	const char *k;
	json_t *v;

	json_object_foreach(w, k, v)
		if (!json_equal(v, jget(h, k)))
			return 1;
	return json_object_size(h) != json_object_size(w);
}

/* upstream's availability controller for a local APIService */
static void mark_local(sk_client *c, json_t *have)
{
	cleanup_json json_t *obj = json_deep_copy(have), *out = NULL;
	const char *name = jstr(jget(obj, "metadata"), "name");
	cleanup_free char *path = xasprintf(COLLECTION "/%s/status", name);
	json_t *st = jget(obj, "status");
	char now[32];
	sk_error_t err = {0};

	if (!json_is_object(st)) {
		st = json_object();
		json_object_set_new(obj, "status", st);
	}
	sk_time_format(sk_now_ns() / 1000000000, now, sizeof(now));
	if (!sk_kube_condition_set(st, "Available", "True", "Local", "Local APIServices are always available", now, 0))
		return;
	out = sk_client_update(c, path, obj, &err);
	if (!out && err.code != SK_ECONFLICT && err.code != SK_ENOTFOUND)
		sk_warn("apiservice", "status of %s: %s", name, err.msg);
	sk_error_clear(&err);
}

static int onstart(json_t *w) { return !strcmp(jstr(jget(jget(w, "metadata"), "labels"), AUTOMANAGED), "onstart"); }

void sk__apiservice_sync(sk_api *api, json_t *synced)
{
	sk_client *c = sk_client_new_inproc(api);
	cleanup_json json_t *want = wanted(), *list = NULL;
	json_t *item, *w;
	const char *name;
	sk_error_t err = {0};
	size_t i;

	list = sk_client_list(c, COLLECTION, NULL, &err);
	if (!list) {
		sk_error_clear(&err);
		sk_client_free(c);
		return;
	}
	json_array_foreach(jget(list, "items"), i, item) {
		const char *managed = jstr(jget(jget(item, "metadata"), "labels"), AUTOMANAGED);
		int local = !json_is_object(jget(jget(item, "spec"), "service"));
		cleanup_free char *path = NULL;

		name = jstr(jget(item, "metadata"), "name");
		if (!name)
			continue;
		w = json_object_get(want, name);
		path = xasprintf(COLLECTION "/%s", name);
		if (!w) {
			/* a CRD's group/version that went away */
			if (managed && !strcmp(managed, "true")) {
				if (sk_client_delete(c, path, NULL, &err) < 0)
					sk_error_clear(&err);
			} else if (local) {
				mark_local(c, item);
			}
			continue;
		}
		/* as upstream's autoregister: one not labelled is the user's,
		 * a built-in one is synced once after the start, a CRD's always */
		if (managed && !(onstart(w) && json_object_get(synced, name)) && spec_differs(w, item)) {
			cleanup_json json_t *upd = json_deep_copy(item), *out = NULL;

			json_object_set(upd, "spec", jget(w, "spec"));
			out = sk_client_update(c, path, upd, &err);
			sk_error_clear(&err);
			if (out && !json_is_object(jget(jget(out, "spec"), "service")))
				mark_local(c, out);
		} else if (local) {
			mark_local(c, item);
		}
		if (onstart(w))
			json_object_set_new(synced, name, json_true());
		json_object_del(want, name);
	}
	json_object_foreach(want, name, w) {
		cleanup_json json_t *out = NULL;

		if (onstart(w) && json_object_get(synced, name))
			continue; /* deleted after the start: upstream leaves it */
		out = sk_client_create(c, COLLECTION, w, &err);
		if (out)
			mark_local(c, out);
		else if (err.code != SK_EEXISTS)
			sk_warn("apiservice", "creating %s: %s", name, err.msg);
		sk_error_clear(&err);
		if (out && onstart(w))
			json_object_set_new(synced, name, json_true());
	}
	sk_client_free(c);
}
