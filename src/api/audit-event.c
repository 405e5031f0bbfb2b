/* One audit.k8s.io/v1 Event per request (upstream's
 * k8s.io/apiserver/pkg/audit/request.go and endpoints/filters/audit.go),
 * made after the request was handled: long-running requests (upstream's
 * BasicLongRunningRequestCheck: watches, pods/log, exec, attach,
 * portforward, proxy) at ResponseStarted and again at ResponseComplete, the
 * others at ResponseComplete only. A watch, a followed log and an upgraded
 * connection write their ResponseComplete when they end
 * (sk_api_watch_free, sk_api_stream_free, sk_api_upgrade_free); one
 * answered at once writes it right after its ResponseStarted. */
#include <string.h>
#include <time.h>

#include <gnutls/crypto.h>

#include "api/prometheus.h"
#include "api/api-int.h"
#include "api/audit.h"
#include "api/protobuf.h"
#include "util/json.h"
#include "util/util.h"

static json_t *micro_time(int64_t ns)
{
	time_t s = (time_t)(ns / 1000000000);
	struct tm tm;
	char buf[48], t[32];

	gmtime_r(&s, &tm);
	strftime(t, sizeof(t), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf, sizeof(buf), "%s.%06lldZ", t, (long long)(ns % 1000000000 / 1000));
	return json_string(buf);
}

static json_t *user_info(const sk_user *u)
{
	json_t *o = json_object(), *g;

	if (!u)
		return o;
	json_object_set_new(o, "username", json_string(u->name));
	if (u->uid && *u->uid)
		json_object_set_new(o, "uid", json_string(u->uid));
	g = json_array();
	for (size_t i = 0; i < u->ngroups; i++)
		json_array_append_new(g, json_string(u->groups[i]));
	json_object_set_new(o, "groups", g);
	if (u->extra && json_object_size(u->extra))
		json_object_set(o, "extra", u->extra);
	return o;
}

/* The request's body as an object (JSON, or protobuf decoded), or NULL. */
static json_t *request_object(const sk_api_request *req)
{
	sk_error_t err = {0};

	if (req->body_obj)
		return json_incref(req->body_obj);
	if (!req->body || !req->body_len)
		return NULL;
	if (req->content_type && strstr(req->content_type, "protobuf"))
		return sk_protobuf_decode(req->body, req->body_len, &err);
	return sk_json_loadb(req->body, req->body_len);
}

static json_t *response_object(const sk_api_response *resp)
{
	if (resp->obj)
		return json_incref(resp->obj);
	if (resp->body && resp->len && (!resp->content_type || strstr(resp->content_type, "json")))
		return sk_json_loadb(resp->body, resp->len);
	return NULL;
}

/* metav1.Status's bounded fields (LogResponseObject), or just the code. */
static json_t *response_status(const sk_api_response *resp, json_t *robj)
{
	json_t *st = json_pack("{s:{}}", "metadata");
	const char *kind = json_string_value(json_object_get(robj, "kind"));

	if (kind && !strcmp(kind, "Status")) {
		static const char *const keys[] = {"status", "message", "reason", "details", NULL};

		for (int i = 0; keys[i]; i++)
			if (json_object_get(robj, keys[i]))
				json_object_set(st, keys[i], json_object_get(robj, keys[i]));
	}
	json_object_set_new(st, "code", json_integer(resp->status ? resp->status : 200));
	return st;
}

static json_t *object_ref(const sk_path *p, json_t *obj)
{
	json_t *ref = json_pack("{s:s}", "resource", p->res->plural);
	json_t *meta = json_object_get(obj, "metadata");
	const char *ns = p->ns[0] ? p->ns : NULL, *name = p->name[0] ? p->name : NULL;

	/* a create names its object in the body (LogRequestObject completes the reference) */
	if (!ns && p->res->namespaced && !p->all_namespaces)
		ns = json_string_value(json_object_get(meta, "namespace"));
	if (!name && !p->all_namespaces)
		name = json_string_value(json_object_get(meta, "name"));
	if (ns && *ns)
		json_object_set_new(ref, "namespace", json_string(ns));
	if (name && *name)
		json_object_set_new(ref, "name", json_string(name));
	if (p->group[0])
		json_object_set_new(ref, "apiGroup", json_string(p->group));
	json_object_set_new(ref, "apiVersion", json_string(p->version));
	if (p->sub[0])
		json_object_set_new(ref, "subresource", json_string(p->sub));
	return ref;
}

/* Upstream's BasicLongRunningRequestCheck of kube-apiserver: the verbs
 * watch and proxy, the subresources attach, exec, proxy, log and
 * portforward. */
static int is_long_running(const sk_audit_attrs *at)
{
	static const char *const subs[] = {"attach", "exec", "proxy", "log", "portforward", NULL};

	if (!at->resource_request)
		return 0;
	if (!strcmp(at->verb, "watch") || !strcmp(at->verb, "proxy"))
		return 1;
	for (int i = 0; subs[i]; i++)
		if (at->subresource && !strcmp(at->subresource, subs[i]))
			return 1;
	return 0;
}

/* Hands end, the ResponseComplete of a long-running request, to what
 * streams its response, or returns it when it already ended. */
static json_t *complete_later(sk_api *api, const sk_api_response *resp, json_t *end)
{
	if (resp->watch)
		sk__watch_audit_at_end(resp->watch, end);
	else if (resp->stream)
		sk__stream_audit_at_end(resp->stream, api, end);
	else if (resp->upgrade)
		sk__upgrade_audit_at_end(resp->upgrade, api, end);
	else
		return end;
	return NULL;
}

json_t *sk__audit_annotations(sk_api *api, sk_api_response *resp)
{
	if (!api->audit || !resp)
		return NULL;
	if (!resp->audit_annotations)
		resp->audit_annotations = json_object();
	return resp->audit_annotations;
}

void sk__audit_request(sk_api *api, const sk_api_request *req, const sk_api_response *resp, int64_t received_ns)
{
	sk_audit *a = api->audit;
	sk_audit_attrs at = {.user = req->user, .path = req->path};
	cleanup_json json_t *ev = NULL, *reqobj = NULL, *robj = NULL, *now_end = NULL;
	/* upstream audits a failed authentication at ResponseStarted only */
	int failed_authn = resp->status == 401, long_running;
	enum sk_audit_level level;
	sk_error_t err = {0};
	unsigned omit;
	int at_end = 0;
	sk_path p;

	at.resource_request = !sk__is_discovery(req->path) && sk__parse_path(req->path, &p, &err) == 0;
	at.verb = sk__request_verb(req, at.resource_request ? &p : NULL);
	if (at.resource_request) {
		at.group = p.group;
		at.resource = p.res->plural;
		at.subresource = p.sub;
		at.ns = p.all_namespaces ? "" : p.ns;
		at.name = p.name;
	}
	level = sk_audit_policy_level(sk__audit_policy(a), &at, &omit);
	long_running = failed_authn || is_long_running(&at);
	if (long_running && !failed_authn && !(omit & SK_AUDIT_STAGE_COMPLETE))
		at_end = 1;
	if (level == SK_AUDIT_NONE ||
	    (!at_end && (omit & (long_running ? SK_AUDIT_STAGE_STARTED : SK_AUDIT_STAGE_COMPLETE))))
		return;
	reqobj = request_object(req);
	if (!resp->watch && !resp->stream)
		robj = response_object(resp);
	ev = json_pack("{s:s, s:s, s:s, s:o, s:s, s:s, s:s, s:o}", "kind", "Event", "apiVersion", "audit.k8s.io/v1",
		       "level",
		       level == SK_AUDIT_METADATA  ? "Metadata"
		       : level == SK_AUDIT_REQUEST ? "Request"
						   : "RequestResponse",
		       "auditID", json_string(resp->audit_id[0] ? resp->audit_id : ""), "stage",
		       long_running ? "ResponseStarted" : "ResponseComplete", "requestURI",
		       req->request_uri ? req->request_uri : req->path, "verb", at.verb, "user", user_info(req->user));
	json_object_set_new(ev, "sourceIPs", json_pack("[s]", req->source_ip ? req->source_ip : "127.0.0.1"));
	if (req->user_agent)
		json_object_set_new(ev, "userAgent", json_string(req->user_agent));
	if (at.resource_request)
		json_object_set_new(ev, "objectRef", object_ref(&p, reqobj ? reqobj : robj));
	json_object_set_new(ev, "responseStatus", response_status(resp, robj));
	if (level >= SK_AUDIT_REQUEST && reqobj && json_is_object(reqobj))
		json_object_set(ev, "requestObject", reqobj);
	if (level >= SK_AUDIT_REQUEST_RESPONSE && robj)
		json_object_set(ev, "responseObject", robj);
	json_object_set_new(ev, "requestReceivedTimestamp", micro_time(received_ns));
	if (resp->audit_as)
		json_object_set_new(ev, "impersonatedUser", user_info(resp->audit_as));
	if (req->user && resp->status != 401) {
		json_t *an = json_pack("{s:s, s:s}", "authorization.k8s.io/decision",
				       resp->status == 403 ? "forbid" : "allow", "authorization.k8s.io/reason", "");

		if (resp->audit_annotations)
			json_object_update(an, resp->audit_annotations);
		json_object_set_new(ev, "annotations", an);
	}
	if (at_end) {
		json_t *end = json_deep_copy(ev);

		json_object_set_new(end, "stage", json_string("ResponseComplete"));
		now_end = complete_later(api, resp, end);
		if (omit & SK_AUDIT_STAGE_STARTED)
			json_decref(steal_ptr(&ev));
	}
	if (ev)
		sk__audit_emit(api, steal_ptr(&ev));
	if (now_end)
		sk__audit_emit(api, steal_ptr(&now_end));
}

void sk__audit_emit(sk_api *api, json_t *ev)
{
	char *line;
	size_t len;

	if (!api->audit) {
		json_decref(ev);
		return;
	}
	json_object_set_new(ev, "stageTimestamp", micro_time(sk_now_ns()));
	line = sk_json_dumps(ev, &len);
	json_decref(ev);
	line = xrealloc(line, len + 2);
	line[len] = '\n';
	line[len + 1] = '\0';
	sk__audit_write(api->audit, line);
	sk__prom_audit_event();
}
