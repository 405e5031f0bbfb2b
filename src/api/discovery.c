/* Discovery (/api, /apis, per group-version resource lists), /version,
 * health endpoints and path parsing. */
#include <string.h>

#include "api/api-int.h"
#include "api/openapi.h"
#include "util/util.h"
#include "util/version.h"

static json_t *verbs_for(const sk_api_resource *r)
{
	if (r->ops && r->ops->review)
		return json_pack("[s]", "create");
	if (r->ops && r->ops->serve)
		return json_pack("[s,s]", "get", "list");
	if (r->no_deletecollection)
		return json_pack("[s,s,s,s,s,s,s]", "create", "delete", "get", "list", "patch", "update", "watch");
	return json_pack("[s,s,s,s,s,s,s,s]", "create", "delete", "deletecollection", "get", "list", "patch", "update",
			 "watch");
}

static json_t *split_list(const char *csv)
{
	json_t *a = json_array();

	while (csv && *csv) {
		size_t n = strcspn(csv, ",");

		json_array_append_new(a, json_stringn(csv, n));
		csv += n + (csv[n] == ',');
	}
	return a;
}

static void add_sub(json_t *list, const sk_api_resource *r, const char *sub, const char *group, const char *version,
		    const char *kind, json_t *verbs)
{
	char name[128];
	json_t *e;

	snprintf(name, sizeof(name), "%s/%s", r->plural, sub);
	e = json_pack("{s:s, s:s, s:b, s:s, s:o}", "name", name, "singularName", "", "namespaced", r->namespaced,
		      "kind", kind, "verbs", verbs);
	if (group) {
		json_object_set_new(e, "group", json_string(group));
		json_object_set_new(e, "version", json_string(version));
	}
	json_array_append_new(list, e);
}

static json_t *resource_list(const char *group, const char *version)
{
	json_t *res = json_array();
	char gv[96];

	const sk_kind_set *ks = sk__kinds();

	for (size_t i = 0; i < ks->n; i++) {
		const sk_api_resource *r = ks->v[i];
		json_t *e;

		if (strcmp(r->group, group) || strcmp(r->version, version))
			continue;
		e = json_pack("{s:s, s:s, s:b, s:s, s:o}", "name", r->plural, "singularName", r->singular, "namespaced",
			      r->namespaced, "kind", r->kind, "verbs", verbs_for(r));
		if (r->short_names)
			json_object_set_new(e, "shortNames", split_list(r->short_names));
		if (r->categories)
			json_object_set_new(e, "categories", split_list(r->categories));
		json_array_append_new(res, e);
		if (r->subresources & SK_SUB_PROXY)
			add_sub(res, r, "proxy", NULL, NULL, "NodeProxyOptions",
				json_pack("[s,s,s,s,s]", "create", "delete", "get", "patch", "update"));
		if (r->subresources & SK_SUB_STATUS)
			add_sub(res, r, "status", NULL, NULL, r->kind, json_pack("[s,s,s]", "get", "patch", "update"));
		if (r->subresources & SK_SUB_APPROVAL)
			add_sub(res, r, "approval", NULL, NULL, r->kind,
				json_pack("[s,s,s]", "get", "patch", "update"));
		if (r->subresources & SK_SUB_SCALE)
			add_sub(res, r, "scale", "autoscaling", "v1", "Scale",
				json_pack("[s,s,s]", "get", "patch", "update"));
		if (r->subresources & SK_SUB_BINDING)
			add_sub(res, r, "binding", NULL, NULL, "Binding", json_pack("[s]", "create"));
		if (r->subresources & SK_SUB_EVICTION)
			add_sub(res, r, "eviction", "policy", "v1", "Eviction", json_pack("[s]", "create"));
		if (r->subresources & SK_SUB_LOG)
			add_sub(res, r, "log", NULL, NULL, "Pod", json_pack("[s]", "get"));
		if (r->subresources & SK_SUB_EXEC)
			add_sub(res, r, "exec", NULL, NULL, "PodExecOptions", json_pack("[s,s]", "create", "get"));
		if (r->subresources & SK_SUB_EPHEMERAL)
			add_sub(res, r, "ephemeralcontainers", NULL, NULL, r->kind,
				json_pack("[s,s,s]", "get", "patch", "update"));
		if (r->subresources & SK_SUB_EXEC)
			add_sub(res, r, "attach", NULL, NULL, "PodAttachOptions", json_pack("[s,s]", "create", "get"));
		if (r->subresources & SK_SUB_EXEC)
			add_sub(res, r, "portforward", NULL, NULL, "PodPortForwardOptions",
				json_pack("[s,s]", "create", "get"));
		if (r->subresources & SK_SUB_FINALIZE)
			add_sub(res, r, "finalize", NULL, NULL, r->kind, json_pack("[s]", "update"));
		if (r->subresources & SK_SUB_TOKEN)
			add_sub(res, r, "token", "authentication.k8s.io", "v1", "TokenRequest",
				json_pack("[s]", "create"));
	}
	if (!json_array_size(res)) {
		json_decref(res);
		return NULL;
	}
	if (group[0])
		snprintf(gv, sizeof(gv), "%s/%s", group, version);
	else
		snprintf(gv, sizeof(gv), "%s", version);
	return json_pack("{s:s, s:s, s:s, s:o}", "kind", "APIResourceList", "apiVersion", "v1", "groupVersion", gv,
			 "resources", res);
}

/* The groups in registry order; a group's versions in the order its kinds
 * first name them, the first preferred (a CRD lists its storage version first). */
static json_t *group_list(void)
{
	const sk_kind_set *ks = sk__kinds();
	json_t *groups = json_array();

	for (size_t i = 0; i < ks->n; i++) {
		const sk_api_resource *r = ks->v[i];
		json_t *versions;
		int seen = 0;

		if (!r->group[0])
			continue;
		for (size_t j = 0; j < i; j++)
			if (!strcmp(ks->v[j]->group, r->group))
				seen = 1;
		if (seen)
			continue;
		versions = json_array();
		for (size_t j = i; j < ks->n; j++) {
			const sk_api_resource *o = ks->v[j];
			int dup = 0;
			char gv[96];

			if (strcmp(o->group, r->group))
				continue;
			for (size_t k = i; k < j; k++)
				if (!strcmp(ks->v[k]->group, r->group) && !strcmp(ks->v[k]->version, o->version))
					dup = 1;
			if (dup)
				continue;
			sk__resource_gv(o, gv, sizeof(gv));
			json_array_append_new(versions,
					      json_pack("{s:s, s:s}", "groupVersion", gv, "version", o->version));
		}
		json_array_append_new(groups, json_pack("{s:s, s:o, s:O}", "name", r->group, "versions", versions,
							"preferredVersion", json_array_get(versions, 0)));
	}
	return json_pack("{s:s, s:s, s:o}", "kind", "APIGroupList", "apiVersion", "v1", "groups", groups);
}

static json_t *one_group(const char *group)
{
	cleanup_json json_t *all = group_list();
	size_t i;
	json_t *g;

	json_array_foreach(json_object_get(all, "groups"), i, g) {
		if (!strcmp(json_string_value(json_object_get(g, "name")), group)) {
			json_t *out = json_deep_copy(g);

			json_object_set_new(out, "kind", json_string("APIGroup"));
			json_object_set_new(out, "apiVersion", json_string("v1"));
			return out;
		}
	}
	return NULL;
}

/* ---- OpenAPI v3 of custom kinds: their CRD schemas ---- */

static void add_custom_openapi_paths(json_t *index)
{
	const sk_kind_set *ks = sk__kinds();
	json_t *paths = json_object_get(index, "paths");

	for (size_t i = 0; i < ks->n; i++) {
		const sk_api_resource *r = ks->v[i];
		cleanup_free char *path = NULL, *url = NULL;

		if (!r->custom)
			continue;
		path = xasprintf("apis/%s/%s", r->group, r->version);
		if (json_object_get(paths, path))
			continue;
		url = xasprintf("/openapi/v3/%s?hash=%016lX", path, sk__kinds_generation());
		json_object_set_new(paths, path, json_pack("{s:s}", "serverRelativeURL", url));
	}
}

/* "stable.example.com" -> "com.example.stable" (upstream's schema names). */
static char *reversed_group(const char *g)
{
	size_t n = strlen(g), off = 0;
	char *out = xmalloc(n + 1);
	const char *end = g + n;

	while (end > g) {
		const char *dot = end;

		while (dot > g && dot[-1] != '.')
			dot--;
		if (off)
			out[off++] = '.';
		memcpy(out + off, dot, (size_t)(end - dot));
		off += (size_t)(end - dot);
		end = dot > g ? dot - 1 : g;
	}
	out[off] = '\0';
	return out;
}

/* A read operation on path returning the component: what kubectl explain
 * finds a kind by. No patch operations: client-side apply then falls back
 * to a merge patch, as it must for custom objects. */
static void add_read_path(json_t *paths, const char *path, const sk_api_resource *r, const char *schema_name,
			  const char *action)
{
	cleanup_free char *ref = xasprintf("#/components/schemas/%s", schema_name);
	json_t *op = json_pack("{s:s, s:{s:s, s:s, s:s}, s:{s:{s:s, s:{s:{s:{s:s}}}}}}", "x-kubernetes-action", action,
			       "x-kubernetes-group-version-kind", "group", r->group, "version", r->version, "kind",
			       r->kind, "responses", "200", "description", "OK", "content", "application/json",
			       "schema", "$ref", ref);

	json_object_set_new(paths, path, json_pack("{s:o}", "get", op));
}

/* The PATCH operation of an item path as upstream's: the fieldValidation
 * parameter (kubectl then leaves --validate=strict to the server, and keeps
 * its own v2 check for the items of a List) and the request content types
 * without strategic merge patch (kubectl's client-side apply then sends a
 * merge patch). */
static void add_patch_op(json_t *path_item, const sk_api_resource *r, const char *schema_name)
{
	cleanup_free char *ref = xasprintf("#/components/schemas/%s", schema_name);
	json_t *content = json_object(), *params = json_array();
	static const char *const types[] = {"application/apply-patch+yaml", "application/json-patch+json",
					    "application/merge-patch+json"};
	static const char *const qp[] = {"dryRun", "fieldManager", "fieldValidation", "force"};

	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		json_object_set_new(content, types[i], json_pack("{s:{s:s}}", "schema", "type", "object"));
	for (size_t i = 0; i < sizeof(qp) / sizeof(qp[0]); i++)
		json_array_append_new(params, json_pack("{s:s, s:s, s:{s:s}}", "name", qp[i], "in", "query", "schema",
							"type", !strcmp(qp[i], "force") ? "boolean" : "string"));
	json_object_set_new(path_item, "patch",
			    json_pack("{s:s, s:{s:s, s:s, s:s}, s:o, s:{s:b, s:o}, s:{s:{s:s, s:{s:{s:{s:s}}}}}}",
				      "x-kubernetes-action", "patch", "x-kubernetes-group-version-kind", "group",
				      r->group, "version", r->version, "kind", r->kind, "parameters", params,
				      "requestBody", "required", 1, "content", content, "responses", "200",
				      "description", "OK", "content", "application/json", "schema", "$ref", ref));
}

static json_t *custom_openapi_doc(const char *group, const char *version)
{
	const sk_kind_set *ks = sk__kinds();
	json_t *schemas = json_object(), *paths = json_object();

	for (size_t i = 0; i < ks->n; i++) {
		const sk_api_resource *r = ks->v[i];
		cleanup_json json_t *info = NULL;
		cleanup_free char *rg = NULL, *name = NULL;
		json_t *schema;

		if (!r->custom || strcmp(r->group, group) || strcmp(r->version, version))
			continue;
		info = sk__kind_custom_spec(r);
		schema = json_object_get(json_object_get(json_object_get(info, "version"), "schema"),
					 "openAPIV3Schema");
		schema = json_is_object(schema) ? json_deep_copy(schema) : json_pack("{s:s}", "type", "object");
		json_object_set_new(
			schema, "x-kubernetes-group-version-kind",
			json_pack("[{s:s, s:s, s:s}]", "group", r->group, "kind", r->kind, "version", r->version));
		rg = reversed_group(r->group);
		name = xasprintf("%s.%s.%s", rg, r->version, r->kind);
		json_object_set_new(schemas, name, schema);
		{
			cleanup_free char *item = xasprintf("/apis/%s/%s/%s%s/{name}", r->group, r->version,
							    r->namespaced ? "namespaces/{namespace}/" : "", r->plural);

			add_read_path(paths, item, r, name, "get");
			add_patch_op(json_object_get(paths, item), r, name);
		}
	}
	if (!json_object_size(schemas)) {
		json_decref(schemas);
		json_decref(paths);
		return NULL;
	}
	return json_pack("{s:s, s:{s:s, s:s}, s:o, s:{s:o}}", "openapi", "3.0.0", "info", "title",
			 "Kubernetes CRD Swagger", "version", "v0.1.0", "paths", paths, "components", "schemas",
			 schemas);
}

/* ---- aggregated discovery (apidiscovery.k8s.io/v2) ---- */

#define AGGREGATED_TYPE "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"

static int wants_aggregated(const sk_api_request *req)
{
	return req->accept && strstr(req->accept, "g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList");
}

static void add_agg_sub(json_t *subs, const char *sub, const char *group, const char *version, const char *kind,
			json_t *verbs)
{
	json_array_append_new(subs, json_pack("{s:s, s:{s:s, s:s, s:s}, s:o}", "subresource", sub, "responseKind",
					      "group", group, "version", version, "kind", kind, "verbs", verbs));
}

static json_t *agg_resource(const sk_api_resource *r)
{
	json_t *subs = json_array();
	json_t *e = json_pack("{s:s, s:{s:s, s:s, s:s}, s:s, s:s, s:o}", "resource", r->plural, "responseKind", "group",
			      r->group, "version", r->version, "kind", r->kind, "scope",
			      r->namespaced ? "Namespaced" : "Cluster", "singularResource", r->singular, "verbs",
			      verbs_for(r));

	if (r->short_names)
		json_object_set_new(e, "shortNames", split_list(r->short_names));
	if (r->categories)
		json_object_set_new(e, "categories", split_list(r->categories));
	if (r->subresources & SK_SUB_APPROVAL)
		add_agg_sub(subs, "approval", r->group, r->version, r->kind,
			    json_pack("[s,s,s]", "get", "patch", "update"));
	if (r->subresources & SK_SUB_PROXY)
		add_agg_sub(subs, "proxy", "", "v1", "NodeProxyOptions",
			    json_pack("[s,s,s,s,s]", "create", "delete", "get", "patch", "update"));
	if (r->subresources & SK_SUB_STATUS)
		add_agg_sub(subs, "status", r->group, r->version, r->kind,
			    json_pack("[s,s,s]", "get", "patch", "update"));
	if (r->subresources & SK_SUB_SCALE)
		add_agg_sub(subs, "scale", "autoscaling", "v1", "Scale",
			    json_pack("[s,s,s]", "get", "patch", "update"));
	if (r->subresources & SK_SUB_BINDING)
		add_agg_sub(subs, "binding", "", "v1", "Binding", json_pack("[s]", "create"));
	if (r->subresources & SK_SUB_EVICTION)
		add_agg_sub(subs, "eviction", "policy", "v1", "Eviction", json_pack("[s]", "create"));
	if (r->subresources & SK_SUB_LOG)
		add_agg_sub(subs, "log", "", "v1", "Pod", json_pack("[s]", "get"));
	if (r->subresources & SK_SUB_EXEC) {
		add_agg_sub(subs, "exec", "", "v1", "PodExecOptions", json_pack("[s,s]", "create", "get"));
		add_agg_sub(subs, "attach", "", "v1", "PodAttachOptions", json_pack("[s,s]", "create", "get"));
		add_agg_sub(subs, "portforward", "", "v1", "PodPortForwardOptions",
			    json_pack("[s,s]", "create", "get"));
	}
	if (r->subresources & SK_SUB_FINALIZE)
		add_agg_sub(subs, "finalize", r->group, r->version, r->kind, json_pack("[s]", "update"));
	if (r->subresources & SK_SUB_TOKEN)
		add_agg_sub(subs, "token", "authentication.k8s.io", "v1", "TokenRequest", json_pack("[s]", "create"));
	if (json_array_size(subs))
		json_object_set_new(e, "subresources", subs);
	else
		json_decref(subs);
	return e;
}

/* /api (legacy: the core group) or /apis (every named group) as one
 * APIGroupDiscoveryList; versions in registry order, the first preferred. */
static json_t *aggregated(int legacy)
{
	const sk_kind_set *ks = sk__kinds();
	json_t *items = json_array();

	for (size_t i = 0; i < ks->n; i++) {
		const sk_api_resource *r = ks->v[i];
		json_t *versions;
		int seen = 0;

		if (legacy != !r->group[0])
			continue;
		for (size_t j = 0; j < i; j++)
			seen |= !strcmp(ks->v[j]->group, r->group);
		if (seen)
			continue;
		versions = json_array();
		for (size_t j = i; j < ks->n; j++) {
			const sk_api_resource *o = ks->v[j];
			json_t *res;
			int dup = 0;

			if (strcmp(o->group, r->group))
				continue;
			for (size_t k = i; k < j; k++)
				dup |= !strcmp(ks->v[k]->group, r->group) && !strcmp(ks->v[k]->version, o->version);
			if (dup)
				continue;
			res = json_array();
			for (size_t k = j; k < ks->n; k++)
				if (!strcmp(ks->v[k]->group, r->group) && !strcmp(ks->v[k]->version, o->version))
					json_array_append_new(res, agg_resource(ks->v[k]));
			json_array_append_new(versions, json_pack("{s:s, s:o, s:s}", "version", o->version, "resources",
								  res, "freshness", "Current"));
		}
		json_array_append_new(items, json_pack("{s:o, s:o}", "metadata",
						       legacy ? json_object() : json_pack("{s:s}", "name", r->group),
						       "versions", versions));
	}
	return json_pack("{s:s, s:s, s:{}, s:o}", "kind", "APIGroupDiscoveryList", "apiVersion",
			 "apidiscovery.k8s.io/v2", "metadata", "items", items);
}

static void not_found(sk_api_response *resp)
{
	sk__reply_status(resp, 404, "NotFound", "the server could not find the requested resource", NULL, "", NULL);
}

/* client-go asks for application/com.github.proto-openapi.spec.v2@v1.0+protobuf */
static void reply_openapi_v2(const sk_api_request *req, sk_api_response *resp)
{
	const sk_kind_set *ks = sk__kinds();
	int pb = req->accept && strstr(req->accept, "protobuf");
	sk_openapi_custom_kind *ck = xzalloc((ks->n + 1) * sizeof(*ck));
	json_t **infos = xzalloc((ks->n + 1) * sizeof(*infos));
	char **names = xzalloc((ks->n + 1) * sizeof(*names));
	size_t n = 0, len;
	char *body;

	for (size_t i = 0; i < ks->n; i++) {
		const sk_api_resource *r = ks->v[i];
		cleanup_free char *rg = NULL;

		if (!r->custom)
			continue;
		infos[n] = sk__kind_custom_spec(r);
		rg = reversed_group(r->group);
		names[n] = xasprintf("%s.%s.%s", rg, r->version, r->kind);
		ck[n] = (sk_openapi_custom_kind){
			names[n], r->group, r->version, r->kind,
			json_object_get(json_object_get(json_object_get(infos[n], "version"), "schema"),
					"openAPIV3Schema")};
		n++;
	}
	if (n) {
		body = sk_openapi_v2_render(ck, n, pb, &len);
	} else if (pb) {
		const unsigned char *p = sk_openapi_v2_protobuf(&len);

		body = xmalloc(len ? len : 1);
		memcpy(body, p, len);
	} else {
		body = xstrdup(sk_openapi_v2_json(&len));
	}
	for (size_t i = 0; i < n; i++) {
		json_decref(infos[i]);
		free(names[i]);
	}
	free(infos);
	free(names);
	free(ck);
	sk__reply_raw(resp, 200, body, len);
	if (pb)
		resp->content_type = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf";
}

void sk__handle_discovery(sk_api *api, const sk_api_request *req, sk_api_response *resp)
{
	const char *p = req->path;
	cleanup_json json_t *out = NULL;
	char g[64], v[32];

	if (!strcmp(p, "/version")) {
		char plat[64];

		snprintf(plat, sizeof(plat), "linux/%s", "amd64");
		out = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s}", "major", SK_KUBE_MAJOR, "minor",
				SK_KUBE_MINOR, "gitVersion", SK_KUBE_VERSION "+skiff", "gitCommit", SKIFF_VERSION,
				"gitTreeState", "clean", "buildDate", "2026-11-30T00:00:00Z", "goVersion", "c",
				"compiler", "gcc", "platform", plat);
	} else if ((!strcmp(p, "/api") || !strcmp(p, "/apis")) && wants_aggregated(req)) {
		out = aggregated(!strcmp(p, "/api"));
		if (strcmp(p, "/api"))
			sk__aggregator_add_discovery(api, out);
		sk__reply_json(resp, 200, out);
		resp->content_type = AGGREGATED_TYPE;
		return;
	} else if (!strcmp(p, "/api")) {
		out = json_pack("{s:s, s:[s], s:[{s:s, s:s}]}", "kind", "APIVersions", "versions", "v1",
				"serverAddressByClientCIDRs", "clientCIDR", "0.0.0.0/0", "serverAddress",
				api->opts.server_address ? api->opts.server_address : "");
	} else if (!strcmp(p, "/apis")) {
		out = group_list();
		sk__aggregator_add_groups(api, out);
	} else if (!strcmp(p, "/api/v1")) {
		out = resource_list("", "v1");
	} else if (!strcmp(p, "/openapi/v2")) {
		reply_openapi_v2(req, resp);
		return;
	} else if (!strcmp(p, "/openapi/v3")) {
		out = sk_openapi_index();
		add_custom_openapi_paths(out);
	} else if (!strncmp(p, "/openapi/v3/", 12)) {
		out = sk_openapi_doc(p + 12);
		if (!out && sscanf(p, "/openapi/v3/apis/%63[^/]/%31[^/]", g, v) == 2)
			out = custom_openapi_doc(g, v);
	} else if (sscanf(p, "/apis/%63[^/]/%31[^/]", g, v) == 2 && !strchr(p + 6 + strlen(g) + 1, '/')) {
		out = resource_list(g, v);
	} else if (sscanf(p, "/apis/%63[^/]", g) == 1 && !strchr(p + 6, '/')) {
		out = one_group(g);
		if (!out)
			out = sk__aggregator_group(api, g);
	}
	if (!out) {
		not_found(resp);
		return;
	}
	sk__reply_json(resp, 200, out);
}

static int copy_seg(char *dst, size_t len, const char *s, size_t n)
{
	if (n == 0 || n >= len)
		return -1;
	memcpy(dst, s, n);
	dst[n] = '\0';
	return 0;
}

/* A namespace or name segment: the escapes the HTTP layer kept ("%2F",
 * "%25") decoded, then upstream's IsValidPathSegmentName (NamespaceKeyFunc
 * answers 400 for a name with '/' or '%', or one that is "." or ".."). */
static int copy_name_seg(char *dst, size_t len, const char *s, size_t n, const char *what, sk_error_t *err)
{
	size_t o = 0;
	char msg[64] = "";

	if (n == 0 || n >= len)
		return sk_error_set(err, SK_ENOTFOUND, "%s too long", what);
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '%' && i + 2 < n && s[i + 1] == '2' && (s[i + 2] == 'F' || s[i + 2] == '5')) {
			dst[o++] = s[i + 2] == 'F' ? '/' : '%';
			i += 2;
		} else {
			dst[o++] = s[i];
		}
	}
	dst[o] = '\0';
	if (!strcmp(dst, ".") || !strcmp(dst, ".."))
		snprintf(msg, sizeof(msg), "may not be '%s'", dst);
	else if (strchr(dst, '/') && strchr(dst, '%'))
		snprintf(msg, sizeof(msg), "may not contain '/';may not contain '%%'");
	else if (strchr(dst, '/') || strchr(dst, '%'))
		snprintf(msg, sizeof(msg), "may not contain '%c'", strchr(dst, '/') ? '/' : '%');
	if (!msg[0])
		return 0;
	if (!strcmp(what, "namespace"))
		return sk_error_set(err, SK_EBADREQUEST, "Namespace parameter invalid: \"%s\": %s ", dst, msg);
	return sk_error_set(err, SK_EBADREQUEST, "Name parameter invalid: \"%s\": %s", dst, msg);
}

/* Splits path into at most 8 segments. */
static size_t split_path(const char *path, const char **seg, size_t *seglen, size_t max)
{
	size_t n = 0;

	while (*path == '/')
		path++;
	while (*path && n < max) {
		const char *e = strchr(path, '/');
		size_t l = e ? (size_t)(e - path) : strlen(path);

		seg[n] = path;
		seglen[n++] = l;
		path += l;
		while (*path == '/')
			path++;
	}
	return *path ? max + 1 : n;
}

static int seg_is(const char *s, size_t n, const char *lit) { return strlen(lit) == n && !memcmp(s, lit, n); }

int sk__parse_path(const char *path, sk_path *p, sk_error_t *err)
{
	const char *seg[9];
	size_t len[9], n, i;
	char plural[96];

	memset(p, 0, sizeof(*p));
	n = split_path(path, seg, len, 8);
	if (n > 8 || n < 2)
		return sk_error_set(err, SK_ENOTFOUND, "the server could not find the requested resource");
	if (seg_is(seg[0], len[0], "api")) {
		if (!seg_is(seg[1], len[1], "v1"))
			return sk_error_set(err, SK_ENOTFOUND, "the server could not find the requested resource");
		snprintf(p->version, sizeof(p->version), "v1");
		i = 2;
	} else if (seg_is(seg[0], len[0], "apis") && n >= 3) {
		if (copy_seg(p->group, sizeof(p->group), seg[1], len[1]) < 0 ||
		    copy_seg(p->version, sizeof(p->version), seg[2], len[2]) < 0)
			return sk_error_set(err, SK_ENOTFOUND, "the server could not find the requested resource");
		i = 3;
	} else {
		return sk_error_set(err, SK_ENOTFOUND, "the server could not find the requested resource");
	}
	if (i >= n)
		return sk_error_set(err, SK_ENOTFOUND, "the server could not find the requested resource");
	/* namespaces/NS/PLURAL... unless it is the namespace object itself */
	if (seg_is(seg[i], len[i], "namespaces") && n >= i + 3) {
		char cand[96];

		if (copy_seg(cand, sizeof(cand), seg[i + 2], len[i + 2]) == 0) {
			const sk_api_resource *r = sk__resource_find(p->group, p->version, cand);

			if (r && r->namespaced) {
				if (copy_name_seg(p->ns, sizeof(p->ns), seg[i + 1], len[i + 1], "namespace", err) < 0)
					return -1;
				i += 2;
			}
		}
	}
	if (copy_seg(plural, sizeof(plural), seg[i], len[i]) < 0)
		return sk_error_set(err, SK_ENOTFOUND, "the server could not find the requested resource");
	p->res = sk__resource_find(p->group, p->version, plural);
	if (!p->res)
		return sk_error_set(err, SK_ENOTFOUND, "the server could not find the requested resource");
	i++;
	if (i < n && copy_name_seg(p->name, sizeof(p->name), seg[i], len[i], "name", err) < 0)
		return -1;
	i++;
	if (i < n && copy_seg(p->sub, sizeof(p->sub), seg[i], len[i]) < 0)
		return sk_error_set(err, SK_ENOTFOUND, "the server could not find the requested resource");
	i++;
	/* nodes/NAME/proxy/PATH…: the rest is the node's path */
	if (i < n && !(!strcmp(p->sub, "proxy") && (p->res->subresources & SK_SUB_PROXY)))
		return sk_error_set(err, SK_ENOTFOUND, "the server could not find the requested resource");
	if (p->res->namespaced && !p->ns[0]) {
		if (p->name[0])
			return sk_error_set(err, SK_ENOTFOUND, "the server could not find the requested resource");
		p->all_namespaces = 1;
	}
	return 0;
}
