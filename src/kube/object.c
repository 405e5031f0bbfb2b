#include "kube/object.h"

#include <string.h>

json_t *sk_kube_jget(json_t *o, const char *path)
{
	while (o && *path) {
		size_t n = strcspn(path, ".");

		o = json_object_getn(o, path, n);
		path += n;
		if (*path == '.')
			path++;
	}
	return o;
}

const char *sk_kube_jstr(json_t *o, const char *path) { return json_string_value(sk_kube_jget(o, path)); }

json_t *sk_kube_jobj(json_t *o, const char *path)
{
	if (!json_is_object(o))
		return NULL;
	while (*path) {
		size_t n = strcspn(path, ".");
		json_t *next = json_object_getn(o, path, n);

		if (!json_is_object(next)) {
			next = json_object();
			json_object_setn_new(o, path, n, next);
		}
		o = next;
		path += n;
		if (*path == '.')
			path++;
	}
	return o;
}

json_t *sk_kube_controller_ref(json_t *obj)
{
	size_t i;
	json_t *r;

	json_array_foreach(sk_kube_jget(obj, "metadata.ownerReferences"), i, r)
		if (json_is_true(json_object_get(r, "controller")))
			return r;
	return NULL;
}

int sk_kube_controlled_by(json_t *obj, const char *uid)
{
	const char *u = json_string_value(json_object_get(sk_kube_controller_ref(obj), "uid"));

	return u && uid && !strcmp(u, uid);
}
