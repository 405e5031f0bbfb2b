/* The API server object and its request entry point, admission, the
 * namespace finalize subresource and Table conversion. */
#include <string.h>

#include "api/api-int.h"
#include "api/authz-node.h"
#include "api/auth.h"
#include "api/crd.h"
#include "api/defaults.h"
#include "api/prometheus.h"
#include "api/podsecurity.h"
#include "api/protobuf.h"
#include "api/rbac.h"
#include "api/satoken.h"
#include "api/selcache.h"
#include "api/service.h"
#include "api/table.h"
#include "kube/qos.h"
#include "util/util.h"

static const char *const default_namespaces[] = {"default", "kube-system", "kube-public", "kube-node-lease", NULL};

static int ensure_namespaces(sk_api *api, sk_error_t *err)
{
	sk_client *c = sk_client_new_inproc(api);
	int rc = 0;

	for (int i = 0; default_namespaces[i]; i++) {
		cleanup_json json_t *ns = json_pack("{s:s, s:s, s:{s:s}}", "apiVersion", "v1", "kind", "Namespace",
						    "metadata", "name", default_namespaces[i]);
		cleanup_json json_t *out = NULL;
		sk_error_t e = {0};

		out = sk_client_create(c, "/api/v1/namespaces", ns, &e);
		if (!out && e.code != SK_EEXISTS) {
			*err = e;
			rc = -1;
			break;
		}
	}
	sk_client_free(c);
	return rc;
}

sk_api *sk_api_new(sk_store *store, const sk_api_options *opts, sk_error_t *err)
{
	sk_api *api = xzalloc(sizeof(*api));

	api->store = store;
	if (opts)
		api->opts = *opts;
	if (!api->opts.max_body)
		api->opts.max_body = 3 * 1024 * 1024;
	if (!api->opts.bookmark_secs)
		api->opts.bookmark_secs = 60;
	pthread_mutex_init(&api->mu, NULL);
	api->selcache = sk__selcache_new(0);
	api->psa = sk__psa_config_load(api->opts.admission_config_file, err);
	if (!api->psa || ensure_namespaces(api, err) < 0 || sk__svc_start(api, err) < 0 ||
	    sk__rbac_start(api, err) < 0 || sk__node_graph_start(api, err) < 0) {
		sk_api_free(api);
		return NULL;
	}
	sk__crd_sync(api);
	sk__crd_start(api);
	api->metrics_collector = sk__prom_start(api);
	return api;
}

void sk_api_shutdown(sk_api *api) { __atomic_store_n(&api->shutting_down, 1, __ATOMIC_RELEASE); }

void sk_api_set_gc_enabled(sk_api *api, int on) { __atomic_store_n(&api->gc_enabled, on, __ATOMIC_RELEASE); }

void sk_api_free(sk_api *api)
{
	if (!api)
		return;
	sk__aggregator_stop(api);
	if (api->metrics_collector > 0)
		sk__prom_stop(api->metrics_collector);
	sk__metrics_stop(api);
	sk__rbac_stop(api);
	sk__svc_stop(api);
	sk__crd_stop(api);
	sk__sa_free(api);
	sk__node_graph_stop(api);
	pthread_mutex_destroy(&api->mu);
	sk__selcache_free(api->selcache);
	sk__psa_config_free(api->psa);
	free(api);
}

int sk__is_discovery(const char *p)
{
	if (!strcmp(p, "/api") || !strcmp(p, "/apis") || !strcmp(p, "/version") || !strncmp(p, "/openapi/", 9) ||
	    !strcmp(p, "/api/v1"))
		return 1;
	if (!strncmp(p, "/apis/", 6)) {
		const char *s = strchr(p + 6, '/');

		return !s || !strchr(s + 1, '/');
	}
	return 0;
}

const char *sk__request_verb(const sk_api_request *req, const sk_path *p)
{
	static const char *const lower[][2] = {{"GET", "get"},        {"POST", "post"},     {"PUT", "put"},
					       {"PATCH", "patch"},    {"DELETE", "delete"}, {"HEAD", "head"},
					       {"OPTIONS", "options"}};
	const char *m = req->method;

	if (!p) {
		for (size_t i = 0; i < sizeof(lower) / sizeof(lower[0]); i++)
			if (!strcmp(m, lower[i][0]))
				return lower[i][1];
		return "unknown";
	}

	if (!strcmp(m, "POST"))
		return "create";
	if (!strcmp(m, "PUT"))
		return "update";
	if (!strcmp(m, "PATCH"))
		return "patch";
	if (!strcmp(m, "DELETE"))
		return p->name[0] ? "delete" : "deletecollection";
	if (!strcmp(m, "GET") || !strcmp(m, "HEAD")) {
		/* upstream 1.32 (AuthorizePodWebsocketUpgradeCreatePermission):
		 * a WebSocket GET of a streaming subresource needs create */
		if (p->res && !strcmp(p->res->plural, "pods") &&
		    (!strcmp(p->sub, "exec") || !strcmp(p->sub, "attach") || !strcmp(p->sub, "portforward")))
			return "create";
		if (!p->sub[0] && sk__arg_bool(req, "watch"))
			return "watch";
		return p->name[0] ? "get" : "list";
	}
	return m;
}

/* The X of a field selector's metadata.name=X (or ==X) term, in buf, or "". */
static const char *selected_name(const char *sel, char *buf, size_t len)
{
	for (const char *t = sel; t && *t;) {
		size_t n = strcspn(t, ",");
		const char *v = NULL;

		if (n > 15 && !strncmp(t, "metadata.name==", 15))
			v = t + 15;
		else if (n > 14 && !strncmp(t, "metadata.name=", 14) && t[14] != '=')
			v = t + 14;
		if (v && (size_t)(t + n - v) < len) {
			memcpy(buf, v, (size_t)(t + n - v));
			buf[t + n - v] = '\0';
			return buf;
		}
		t += n + (t[n] == ',');
	}
	return "";
}

/* Asks the authorizer chain; 0 when allowed, else replies 403. p NULL: a
 * non-resource request. */
static int authorize(sk_api *api, const sk_api_request *req, const sk_path *p, sk_api_response *resp)
{
	sk_authz_attrs a = {.user = req->user, .path = req->path};
	cleanup_free char *reason = NULL, *msg = NULL, *verb = NULL;
	char sel_name[254];
	json_t *an;
	int ok;

	if (p) {
		a.resource_request = 1;
		a.verb = sk__request_verb(req, p);
		a.api_group = p->group;
		a.api_version = p->version;
		a.resource = p->res->plural;
		a.subresource = p->sub;
		a.ns = p->all_namespaces ? "" : p->ns;
		a.name = p->name;
		/* as upstream's RequestInfoFactory: a list or watch of one name
		 * (fieldSelector metadata.name=X) is about that name */
		if (!p->name[0] && (!strcmp(a.verb, "list") || !strcmp(a.verb, "watch")))
			a.name = selected_name(sk__arg(req, "fieldSelector"), sel_name, sizeof(sel_name));
	} else {
		verb = xstrdup(req->method);
		for (char *c = verb; *c; c++)
			*c = (char)(*c >= 'A' && *c <= 'Z' ? *c + 32 : *c);
		a.verb = verb;
		a.api_group = a.api_version = a.resource = a.subresource = a.ns = a.name = "";
	}
	ok = sk__authorize(api, &a, &reason);
	an = sk__audit_annotations(api, resp);
	if (an) { /* upstream's WithAuthorization */
		json_object_set_new(an, "authorization.k8s.io/decision", json_string(ok ? "allow" : "forbid"));
		json_object_set_new(an, "authorization.k8s.io/reason", json_string(reason ? reason : ""));
	}
	if (ok)
		return 0;
	msg = sk__authz_forbidden_message(&a, reason);
	/* details as upstream's NewForbidden: name, group, kind (the resource) */
	if (p)
		sk__reply_status_for(resp, 403, "Forbidden", msg, a.api_group, a.resource, a.name, NULL);
	else
		sk__reply_status(resp, 403, "Forbidden", msg, NULL, NULL, NULL);
	return -1;
}

static void handle(sk_api *api, const sk_api_request *req, sk_api_response *resp, sk__req_info *ri);

void sk_api_set_audit(sk_api *api, struct sk_audit *a) { api->audit = a; }

void sk_api_handle(sk_api *api, const sk_api_request *req, sk_api_response *resp)
{
	int64_t t0 = api->audit ? sk_now_ns() : 0, m0 = sk_mono_ns();
	sk__req_info ri;

	const char *id = req->header ? req->header(req->header_ctx, "Audit-ID") : NULL;

	ri.res = NULL;
	sk__prom_request_begin(req);
	handle(api, req, resp, &ri);
	if (id && *id && strlen(id) < sizeof(resp->audit_id) && !strpbrk(id, "\r\n"))
		snprintf(resp->audit_id, sizeof(resp->audit_id), "%s", id);
	else
		sk__new_uuid(resp->audit_id, sizeof(resp->audit_id));
	sk__prom_request_end(req, &ri, resp, m0);
	if (api->audit)
		sk__audit_request(api, req, resp, t0);
}

static void note_path(sk__req_info *ri, const sk_api_request *req, const sk_path *p)
{
	ri->res = p->res;
	snprintf(ri->sub, sizeof(ri->sub), "%s", p->sub);
	ri->named = p->name[0] != '\0';
	ri->namespaced = !p->all_namespaces && p->ns[0];
	ri->watch = !strcmp(sk__request_verb(req, p), "watch");
}

static void handle(sk_api *api, const sk_api_request *req, sk_api_response *resp, sk__req_info *ri)
{
	sk_error_t err = {0};
	sk_path p;

	memset(resp, 0, sizeof(*resp));
	resp->want_obj = req->want_obj;
	if (!req->user) {
		sk__reply_status(resp, 401, "Unauthorized", "Unauthorized", NULL, NULL, NULL);
		return;
	}
	if (req->nimpersonate) {
		sk_api_request as_req = *req;
		sk_user *as = NULL;
		int rc = sk__impersonate(api, req, &as, resp);

		if (rc < 0)
			return;
		as_req.impersonate = NULL;
		as_req.nimpersonate = 0;
		if (as)
			as_req.user = as;
		/* audited once, by the caller, as the user with impersonatedUser */
		handle(api, &as_req, resp, ri);
		if (as && api->audit)
			resp->audit_as = as;
		else
			sk_user_free(as);
		return;
	}
	if (req->body_len > api->opts.max_body) {
		sk__reply_status(resp, 413, "RequestEntityTooLarge",
				 "the server has received too large of a request body", NULL, NULL, NULL);
		return;
	}
	if (sk__aggregator_handle(api, req, resp))
		return;
	if (req->content_type && strstr(req->content_type, "protobuf")) {
		/* Typed clients send protobuf bodies (never for PATCH): decode into JSON. */
		cleanup_json json_t *obj = NULL;
		cleanup_free char *json = NULL;
		sk_api_request jreq = *req;

		if (strcmp(req->method, "POST") && strcmp(req->method, "PUT") && strcmp(req->method, "DELETE")) {
			sk__reply_status(
				resp, 415, "UnsupportedMediaType",
				"the body of the request was in an unknown format - accepted media types include: "
				"application/json, application/merge-patch+json, application/json-patch+json, "
				"application/strategic-merge-patch+json, application/apply-patch+yaml",
				NULL, NULL, NULL);
			return;
		}
		if (req->body_len) {
			obj = sk_protobuf_decode(req->body, req->body_len, &err);
			if (!obj) {
				sk__reply_error(resp, &err, NULL, NULL);
				return;
			}
			json = json_dumps(obj, JSON_COMPACT);
			jreq.body = json;
			jreq.body_len = strlen(json);
		}
		jreq.content_type = "application/json";
		handle(api, &jreq, resp, ri);
		return;
	}
	{
		/* discovery documents are served with a trailing slash too (the
		 * Python client's get_api_resources asks for /api/v1/) */
		size_t n = strlen(req->path);

		if (n > 1 && req->path[n - 1] == '/') {
			cleanup_free char *bare = xstrndup(req->path, n - 1);

			if (sk__is_discovery(bare) && bare[strlen(bare) - 1] != '/') {
				sk_api_request r2 = *req;

				r2.path = bare;
				handle(api, &r2, resp, ri);
				return;
			}
		}
	}
	if (sk__is_discovery(req->path)) {
		if (strcmp(req->method, "GET")) {
			sk__reply_status(resp, 405, "MethodNotAllowed",
					 "the server does not allow this method on the requested resource", NULL, NULL,
					 NULL);
			return;
		}
		if (authorize(api, req, NULL, resp) < 0)
			return;
		sk__handle_discovery(api, req, resp);
		return;
	}
	if (sk__is_health_path(req->path) || !strcmp(req->path, "/metrics")) {
		if (authorize(api, req, NULL, resp) < 0)
			return;
		if (strcmp(req->method, "GET") && strcmp(req->method, "HEAD")) {
			sk__reply_status(resp, 405, "MethodNotAllowed",
					 "the server does not allow this method on the requested resource", NULL, NULL,
					 NULL);
			return;
		}
		if (!strcmp(req->path, "/metrics"))
			sk__handle_metrics(api, req, resp);
		else
			sk__handle_health(api, req, resp);
		return;
	}
	if (sk__is_oidc_path(req->path)) {
		if (authorize(api, req, NULL, resp) < 0)
			return;
		sk__handle_oidc(api, req, resp);
		return;
	}
	if (sk__parse_path(req->path, &p, &err) < 0) {
		/* an unserved path is authorized as a path first, as upstream's
		 * filters run before its not-found handler (which sends empty details) */
		if (authorize(api, req, NULL, resp) < 0)
			return;
		sk__reply_error(resp, &err, NULL, err.code == SK_ENOTFOUND ? "" : NULL);
		return;
	}
	note_path(ri, req, &p);
	if (authorize(api, req, &p, resp) < 0)
		return;
	sk__handle_resource(api, req, &p, resp);
	/* e.g. a written CRD changes the served kinds before its reply leaves */
	if (p.res->ops && p.res->ops->written && strcmp(req->method, "GET") && resp->status < 300)
		p.res->ops->written(api, p.res);
}

/* ---- admission ---- */

static json_t *find_priority_class(sk_api *api, const char *name, int global_default)
{
	sk_store_list l = {0};
	sk_error_t err = {0};
	json_t *found = NULL;

	if (sk_store_range(api->store, "/registry/priorityclasses/", NULL, 0, 0, &l, &err) < 0)
		return NULL;
	for (size_t i = 0; i < l.n && !found; i++) {
		json_t *pc = sk__obj_decode(l.items[i].value, l.items[i].len, l.items[i].mod_rev);
		const char *n = json_string_value(json_object_get(json_object_get(pc, "metadata"), "name"));

		if ((name && n && !strcmp(n, name)) ||
		    (!name && global_default && json_is_true(json_object_get(pc, "globalDefault"))))
			found = pc;
		else
			json_decref(pc);
	}
	sk_store_list_release(&l);
	return found;
}

static int admit_pod(sk_api *api, json_t *pod, sk_error_t *err)
{
	json_t *spec = json_object_get(pod, "spec");
	const char *pcn = json_string_value(json_object_get(spec, "priorityClassName"));
	cleanup_json json_t *pc = NULL;
	int64_t prio = 0;

	if (!json_is_object(spec))
		return 0;
	if (pcn && !strcmp(pcn, "system-node-critical"))
		prio = 2000001000;
	else if (pcn && !strcmp(pcn, "system-cluster-critical"))
		prio = 2000000000;
	else if (pcn && *pcn) {
		pc = find_priority_class(api, pcn, 0);
		if (!pc)
			return sk_error_set(
				err, SK_EFORBIDDEN, "pods \"%s\" is forbidden: no PriorityClass with name %s was found",
				json_string_value(json_object_get(json_object_get(pod, "metadata"), "name")), pcn);
	} else {
		pc = find_priority_class(api, NULL, 1);
		if (pc)
			json_object_set(spec, "priorityClassName",
					json_object_get(json_object_get(pc, "metadata"), "name"));
	}
	if (pc) {
		const char *pp = json_string_value(json_object_get(pc, "preemptionPolicy"));

		prio = json_integer_value(json_object_get(pc, "value"));
		if (!json_object_get(spec, "preemptionPolicy"))
			json_object_set_new(spec, "preemptionPolicy", json_string(pp ? pp : "PreemptLowerPriority"));
	}
	json_object_set_new(spec, "priority", json_integer(prio));
	if (!json_object_get(spec, "preemptionPolicy"))
		json_object_set_new(spec, "preemptionPolicy", json_string("PreemptLowerPriority"));
	sk_defaults_pod_tolerations(pod);
	return 0;
}

static void init_pod_status(json_t *pod)
{
	json_t *st = json_object_get(pod, "status");

	if (!json_is_object(st)) {
		st = json_object();
		json_object_set_new(pod, "status", st);
	}
	if (!json_string_value(json_object_get(st, "phase")))
		json_object_set_new(st, "phase", json_string("Pending"));
	if (!json_string_value(json_object_get(st, "qosClass")))
		json_object_set_new(st, "qosClass", json_string(sk_kube_pod_qos_compute(pod)));
}

int sk__admit_create(sk_api *api, const sk_api_resource *r, json_t *obj, sk_error_t *err)
{
	return r->ops && r->ops->admit_create ? r->ops->admit_create(api, r, obj, err) : 0;
}

int sk__pod_admit_create(sk_api *api, const sk_api_resource *r, json_t *obj, sk_error_t *err)
{
	(void)r;
	if (admit_pod(api, obj, err) < 0)
		return -1;
	init_pod_status(obj);
	return 0;
}

int sk__namespace_admit_create(sk_api *api, const sk_api_resource *r, json_t *obj, sk_error_t *err)
{
	(void)api;
	(void)r;
	(void)err;
	json_object_set_new(obj, "status", json_pack("{s:s}", "phase", "Active"));
	return 0;
}

int sk__admit_empty_status(sk_api *api, const sk_api_resource *r, json_t *obj, sk_error_t *err)
{
	(void)api;
	(void)r;
	(void)err;
	json_object_set_new(obj, "status", json_object());
	return 0;
}

int sk__admit_pending_status(sk_api *api, const sk_api_resource *r, json_t *obj, sk_error_t *err)
{
	(void)api;
	(void)r;
	(void)err;
	json_object_set_new(obj, "status", json_pack("{s:s}", "phase", "Pending"));
	return 0;
}

int sk__job_admit_create(sk_api *api, const sk_api_resource *r, json_t *obj, sk_error_t *err)
{
	if (sk_defaults_job_selector(obj, err) < 0)
		return -1;
	return sk__admit_empty_status(api, r, obj, err);
}

/* PUT namespaces/NAME/finalize: replaces spec.finalizers; a terminating
 * namespace with none left is deleted. */
void sk__handle_finalize(sk_api *api, const sk_api_request *req, const sk_path *p, sk_api_response *resp)
{
	sk_error_t err = {0};
	cleanup_json json_t *body = NULL;
	int64_t rev;

	body = req->body_obj ? json_incref(req->body_obj)
			     : json_loadb(req->body ? req->body : "", req->body_len, 0, NULL);
	if (!json_is_object(body)) {
		sk_error_set(&err, SK_EBADREQUEST, "the body of the request must be a Namespace");
		goto fail;
	}
	for (int attempt = 0; attempt < 8; attempt++) {
		cleanup_free char *key = sk__obj_key(p->res, NULL, p->name);
		sk_store_kv kv;
		cleanup_json json_t *ns = NULL;
		json_t *spec, *fin = json_object_get(json_object_get(body, "spec"), "finalizers");
		size_t len;

		if (sk_store_get(api->store, key, &kv, &err) < 0) {
			sk_error_set(&err, SK_ENOTFOUND, "namespaces \"%s\" not found", p->name);
			goto fail;
		}
		ns = sk__obj_decode(kv.value, kv.len, kv.mod_rev);
		rev = kv.mod_rev;
		sk_store_kv_release(&kv);
		spec = json_object_get(ns, "spec");
		if (!json_is_object(spec)) {
			spec = json_object();
			json_object_set_new(ns, "spec", spec);
		}
		json_object_set_new(spec, "finalizers", fin ? json_deep_copy(fin) : json_array());
		if (json_object_get(json_object_get(ns, "metadata"), "deletionTimestamp") && !json_array_size(fin) &&
		    !json_array_size(json_object_get(json_object_get(ns, "metadata"), "finalizers"))) {
			if (sk_store_delete(api->store, key, rev, NULL, &err) >= 0) {
				sk__reply_json(resp, 200, ns);
				return;
			}
		} else {
			cleanup_free char *val = NULL;

			json_object_del(json_object_get(ns, "metadata"), "resourceVersion");
			val = sk__obj_encode(ns, &len);
			rev = sk_store_update(api->store, key, val, len, rev, &err);
			if (rev >= 0) {
				char num[24];

				snprintf(num, sizeof(num), "%lld", (long long)rev);
				json_object_set_new(json_object_get(ns, "metadata"), "resourceVersion",
						    json_string(num));
				sk__reply_json(resp, 200, ns);
				return;
			}
		}
		if (err.code != SK_ECONFLICT)
			goto fail;
	}
fail:
	sk__reply_error(resp, &err, p->res, p->name);
}

/* ---- tables ---- */

int sk__wants_table(const sk_api_request *req) { return req->accept && strstr(req->accept, "as=Table") != NULL; }

json_t *sk__to_table(const sk_api_resource *r, json_t *items, json_t *list_meta, int include_object)
{
	const sk_table_printer *printer = r->ops ? r->ops->printer : NULL;
	int64_t now = sk_now_ns() / 1000000000;
	json_t *rows = json_array();
	size_t i;
	json_t *o;

	json_array_foreach(items, i, o) {
		json_t *row = json_pack("{s:o}", "cells",
					r->ops && r->ops->table_cells ? r->ops->table_cells(r, o, now)
								      : sk_table_printer_cells(printer, o, now));
		json_t *conds = sk_table_printer_row_conditions(printer, o);

		if (conds)
			json_object_set_new(row, "conditions", conds);
		if (include_object) {
			json_object_set(row, "object", o);
		} else {
			json_t *pm = json_pack("{s:s, s:s, s:O}", "kind", "PartialObjectMetadata", "apiVersion",
					       "meta.k8s.io/v1", "metadata", json_object_get(o, "metadata"));

			json_object_set_new(row, "object", pm);
		}
		json_array_append_new(rows, row);
	}
	return json_pack("{s:s, s:s, s:O, s:o, s:o}", "kind", "Table", "apiVersion", "meta.k8s.io/v1", "metadata",
			 list_meta, "columnDefinitions",
			 r->ops && r->ops->table_columns ? r->ops->table_columns(r) : sk_table_printer_columns(printer),
			 "rows", rows);
}
