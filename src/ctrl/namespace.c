/* The namespace controller (after pkg/controller/namespace): empties a
 * namespace that is being deleted, resource type by resource type as the
 * discovery documents list them, then finalizes it so the API server can
 * remove it. */
#include <string.h>

#include "ctrl/ctrl-int.h"
#include "util/util.h"

#define COMPONENT "namespace-controller"

static int has_verb(json_t *res, const char *verb)
{
	json_t *v;
	size_t i;

	json_array_foreach(json_object_get(res, "verbs"), i, v)
		if (!strcmp(json_string_value(v) ?: "", verb))
			return 1;
	return 0;
}

/* Appends "prefix/plural" of every namespaced, deletable resource of a
 * group version ("/api/v1", "/apis/apps/v1") to out. */
static void add_group_version(sk_client *c, const char *prefix, json_t *out)
{
	sk_error_t err = {0};
	cleanup_json json_t *list = sk_client_get(c, prefix, &err);
	json_t *r;
	size_t i;

	json_array_foreach(json_object_get(list, "resources"), i, r) {
		const char *name = json_string_value(json_object_get(r, "name"));

		if (!name || strchr(name, '/') || !json_is_true(json_object_get(r, "namespaced")) ||
		    !has_verb(r, "delete"))
			continue;
		json_array_append_new(out, json_pack("{s:s, s:s, s:b}", "prefix", prefix, "plural", name, "collection",
						     has_verb(r, "deletecollection")));
	}
}

static json_t *discover(sk_client *c)
{
	json_t *out = json_array(), *g, *v;
	sk_error_t err = {0};
	cleanup_json json_t *groups = sk_client_get(c, "/apis", &err);
	size_t i, j;

	add_group_version(c, "/api/v1", out);
	json_array_foreach(json_object_get(groups, "groups"), i, g) {
		json_array_foreach(json_object_get(g, "versions"), j, v) {
			cleanup_free char *p = xasprintf("/apis/%s",
							 json_string_value(json_object_get(v, "groupVersion")));

			add_group_version(c, p, out);
		}
	}
	return out;
}

/* Deletes what is left of one resource type; returns how many remain. */
static long empty_resource(sk_controller *k, json_t *res, const char *ns)
{
	const char *prefix = json_string_value(json_object_get(res, "prefix"));
	const char *plural = json_string_value(json_object_get(res, "plural"));
	cleanup_free char *path = sk__path(prefix, plural, ns, NULL, NULL);
	cleanup_json json_t *opts = json_pack("{s:s, s:s, s:s}", "kind", "DeleteOptions", "apiVersion", "v1",
					      "propagationPolicy", "Background");
	cleanup_json json_t *list = NULL, *out = NULL;
	sk_error_t err = {0};
	json_t *o;
	size_t i;
	long left = 0;

	if (json_is_true(json_object_get(res, "collection")))
		out = sk_client_do(k->ctl->c, "DELETE", path, NULL, opts, NULL, &err);
	list = sk_client_list(k->ctl->c, path, NULL, &err);
	json_array_foreach(json_object_get(list, "items"), i, o) {
		cleanup_free char *op = sk__path(prefix, plural, ns, sk__name(o), NULL);
		sk_error_t e2 = {0};

		left++;
		if (!sk__is_deleting(o))
			sk_client_delete(k->ctl->c, op, opts, &e2);
	}
	return left;
}

static int finalize(sk_controller *k, json_t *ns)
{
	cleanup_json json_t *c = json_deep_copy(ns), *out = NULL;
	cleanup_free char *path = sk__path("/api/v1", "namespaces", NULL, sk__name(ns), "finalize");
	sk_error_t err = {0};

	json_object_set_new(sk_kube_jobj(c, "spec"), "finalizers", json_array());
	out = sk_client_update(k->ctl->c, path, c, &err);
	if (!out && err.code != SK_ENOTFOUND) {
		sk_info("ctrl", "namespace \"%s\": finalize: %s", sk__name(ns), err.msg);
		return -1;
	}
	return 0;
}

static int sync_namespace(sk_controller *k, const char *key)
{
	cleanup_json json_t *ns = sk_informer_get(k->ctl->namespaces, NULL, key), *res = NULL;
	json_t *r, *fin;
	size_t i;
	long left = 0;

	if (!ns || !sk__is_deleting(ns))
		return 0;
	fin = sk_kube_jget(ns, "spec.finalizers");
	if (!json_array_size(fin))
		return 0;
	res = discover(k->ctl->c);
	json_array_foreach(res, i, r)
		left += empty_resource(k, r, key);
	if (left) {
		sk__queue_add_after(k->q, key, 1000);
		return 0;
	}
	return finalize(k, ns);
}

int sk__namespace_init(struct sk_ctrl *ctl, sk_error_t *err)
{
	sk_controller *k = sk__controller_add(ctl, "namespace", sync_namespace, NULL);

	sk_informer_on(ctl->namespaces, sk__enqueue_self, k);
	return 0;
}
