/* The API servers learned from default/kubernetes (see servers.h). */
#include "client/servers.h"

#include <string.h>

#include "client/reflector.h"
#include "util/util.h"

struct sk_server_follower {
	sk_client *c;
	sk_reflector *refl;
};

/* The subset's port named https, else its first. */
static json_int_t https_port(json_t *subset)
{
	json_t *ports = json_object_get(subset, "ports"), *p;
	size_t i;

	json_array_foreach(ports, i, p) {
		const char *name = json_string_value(json_object_get(p, "name"));

		if (name && !strcmp(name, "https"))
			return json_integer_value(json_object_get(p, "port"));
	}
	return json_integer_value(json_object_get(json_array_get(ports, 0), "port"));
}

json_t *sk_endpoints_server_urls(json_t *ep)
{
	json_t *urls = json_array(), *subset, *a;
	size_t i, j;

	json_array_foreach(json_object_get(ep, "subsets"), i, subset) {
		json_int_t port = https_port(subset);

		if (port <= 0 || port > 65535)
			continue;
		json_array_foreach(json_object_get(subset, "addresses"), j, a) {
			const char *ip = json_string_value(json_object_get(a, "ip"));

			if (!ip || !*ip || strpbrk(ip, "/[]@ "))
				continue;
			json_array_append_new(urls, strchr(ip, ':')
							    ? json_sprintf("https://[%s]:%lld", ip, (long long)port)
							    : json_sprintf("https://%s:%lld", ip, (long long)port));
		}
	}
	return urls;
}

static void learn(sk_server_follower *f, json_t *ep)
{
	cleanup_json json_t *urls = sk_endpoints_server_urls(ep);

	/* no address at all (every server going away at once): keep what we have */
	if (json_array_size(urls))
		sk_client_set_servers(f->c, urls);
}

static void on_replace(void *ud, json_t *items, const char *rv)
{
	(void)rv;
	if (json_array_size(items))
		learn(ud, json_array_get(items, 0));
}

static void on_event(void *ud, const char *type, json_t *obj)
{
	if (strcmp(type, "DELETED"))
		learn(ud, obj);
}

sk_server_follower *sk_server_follower_start(sk_client *c, sk_error_t *err)
{
	sk_server_follower *f = xzalloc(sizeof(*f));
	sk_reflector_options o = {
		.path = "/api/v1/namespaces/default/endpoints",
		.selectors = "fieldSelector=metadata.name%3Dkubernetes",
		.component = "client",
		.replace = on_replace,
		.event = on_event,
	};

	f->c = c;
	o.ud = f;
	f->refl = sk_reflector_new(c, &o);
	if (sk_reflector_start(f->refl, err) < 0) {
		sk_server_follower_stop(f);
		return NULL;
	}
	return f;
}

void sk_server_follower_stop(sk_server_follower *f)
{
	if (!f)
		return;
	sk_reflector_free(f->refl);
	free(f);
}
