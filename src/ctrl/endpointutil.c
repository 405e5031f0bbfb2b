/* Pure logic of the endpoint controllers: see endpointutil.h. */
#include <arpa/inet.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ctrl/ctrl-int.h"
#include "ctrl/endpointutil.h"
#include "util/util.h"

static const char *jstr(json_t *o, const char *k) { return json_string_value(json_object_get(o, k)); }

static const char *jstr_or(json_t *o, const char *k, const char *def)
{
	const char *s = jstr(o, k);

	return s ? s : def;
}

/* A canonical text of v (sorted keys), for keys and comparisons; malloc'd. */
static char *canon(json_t *v) { return json_dumps(v, JSON_SORT_KEYS | JSON_COMPACT | JSON_ENCODE_ANY); }

int sk_eps_service_selects(json_t *svc)
{
	json_t *sel = sk_kube_jget(svc, "spec.selector");

	return json_is_object(sel) && json_object_size(sel) > 0;
}

int sk_eps_service_ip_set(json_t *svc)
{
	const char *ip = sk_kube_jstr(svc, "spec.clusterIP");

	return ip && *ip && strcmp(ip, "None") != 0;
}

static int is_ipv6(const char *s)
{
	unsigned char b[16];

	return s && inet_pton(AF_INET6, s, b) == 1;
}

static int is_ipv4(const char *s)
{
	unsigned char b[4];

	return s && inet_pton(AF_INET, s, b) == 1;
}

/* getAddressTypesForService: spec.ipFamilies; without them the cluster
 * IP's family, and both for a headless Service. */
json_t *sk_eps_address_types(json_t *svc)
{
	json_t *out = json_array(), *f;
	const char *ip = sk_kube_jstr(svc, "spec.clusterIP");
	size_t i;

	json_array_foreach(sk_kube_jget(svc, "spec.ipFamilies"), i, f) {
		const char *s = json_string_value(f);

		if (s && (!strcmp(s, "IPv4") || !strcmp(s, "IPv6")))
			json_array_append_new(out, json_string(s));
	}
	if (json_array_size(out))
		return out;
	if (sk_eps_service_ip_set(svc)) {
		json_array_append_new(out, json_string(is_ipv6(ip) ? "IPv6" : "IPv4"));
		return out;
	}
	json_array_append_new(out, json_string("IPv4"));
	json_array_append_new(out, json_string("IPv6"));
	return out;
}

int sk_eps_pod_included(json_t *pod, int include_terminating)
{
	if (sk__pod_terminal(pod))
		return 0;
	if (!*jstr_or(json_object_get(pod, "status"), "podIP", "") &&
	    !json_array_size(sk_kube_jget(pod, "status.podIPs")))
		return 0;
	return include_terminating || !sk__is_deleting(pod);
}

static long named_port_in(json_t *ctrs, const char *name, const char *proto, int sidecars_only)
{
	json_t *c, *p;
	size_t i, j;

	json_array_foreach(ctrs, i, c) {
		if (sidecars_only && strcmp(jstr_or(c, "restartPolicy", ""), "Always") != 0)
			continue;
		json_array_foreach(json_object_get(c, "ports"), j, p)
			if (!strcmp(jstr_or(p, "name", ""), name) && !strcmp(jstr_or(p, "protocol", "TCP"), proto))
				return (long)json_integer_value(json_object_get(p, "containerPort"));
	}
	return -1;
}

long sk_eps_find_port(json_t *pod, json_t *svc_port)
{
	json_t *tp = json_object_get(svc_port, "targetPort");
	const char *proto = jstr_or(svc_port, "protocol", "TCP");
	long n;

	if (!tp || json_is_null(tp))
		tp = json_object_get(svc_port, "port");
	if (json_is_integer(tp))
		return (long)json_integer_value(tp);
	if (!json_is_string(tp))
		return -1;
	n = named_port_in(sk_kube_jget(pod, "spec.containers"), json_string_value(tp), proto, 0);
	if (n < 0)
		n = named_port_in(sk_kube_jget(pod, "spec.initContainers"), json_string_value(tp), proto, 1);
	return n;
}

const char *sk_eps_pod_ip(json_t *pod, const char *address_type)
{
	int v6 = !strcmp(address_type, "IPv6");
	const char *ip;
	json_t *p;
	size_t i;

	json_array_foreach(sk_kube_jget(pod, "status.podIPs"), i, p) {
		ip = jstr(p, "ip");
		if (ip && (v6 ? is_ipv6(ip) : is_ipv4(ip)))
			return ip;
	}
	ip = sk_kube_jstr(pod, "status.podIP");
	return ip && (v6 ? is_ipv6(ip) : is_ipv4(ip)) ? ip : NULL;
}

/* ShouldSetHostname: the pod's hostname names it under svc's subdomain. */
static int should_set_hostname(json_t *pod, json_t *svc)
{
	const char *h = sk_kube_jstr(pod, "spec.hostname"), *sub = sk_kube_jstr(pod, "spec.subdomain");

	return h && *h && sub && !strcmp(sub, sk__name(svc) ?: "") && !strcmp(sk__ns(pod) ?: "", sk__ns(svc) ?: "");
}

static json_t *target_ref(json_t *pod)
{
	return json_pack("{s:s, s:s, s:s, s:s}", "kind", "Pod", "namespace", sk__ns(pod), "name", sk__name(pod), "uid",
			 sk__uid(pod) ? sk__uid(pod) : "");
}

/* getEndpointPorts: the service ports resolved against the pod. */
static json_t *pod_slice_ports(json_t *svc, json_t *pod)
{
	json_t *ports = json_array(), *sp;
	size_t i;

	json_array_foreach(sk_kube_jget(svc, "spec.ports"), i, sp) {
		long n = sk_eps_find_port(pod, sp);
		json_t *ep;

		if (n < 0)
			continue;
		ep = json_pack("{s:s, s:I, s:s}", "name", jstr_or(sp, "name", ""), "port", (json_int_t)n, "protocol",
			       jstr_or(sp, "protocol", "TCP"));
		if (jstr(sp, "appProtocol"))
			json_object_set(ep, "appProtocol", json_object_get(sp, "appProtocol"));
		json_array_append_new(ports, ep);
	}
	return ports;
}

/* podToEndpoint. */
static json_t *pod_endpoint(json_t *svc, json_t *pod, json_t *node, const char *ip)
{
	int serving = sk__pod_ready(pod), terminating = sk__is_deleting(pod);
	int ready = json_is_true(sk_kube_jget(svc, "spec.publishNotReadyAddresses")) || (serving && !terminating);
	const char *zone;
	json_t *ep = json_pack("{s:[s], s:{s:b, s:b, s:b}, s:o}", "addresses", ip, "conditions", "ready", ready,
			       "serving", serving, "terminating", terminating, "targetRef", target_ref(pod));
	const char *node_name = sk_kube_jstr(pod, "spec.nodeName");
	json_t *labels = sk_kube_jget(node, "metadata.labels");

	zone = jstr(labels, "topology.kubernetes.io/zone");
	if (node_name && *node_name)
		json_object_set_new(ep, "nodeName", json_string(node_name));
	if (zone && *zone)
		json_object_set_new(ep, "zone", json_string(zone));
	if (should_set_hostname(pod, svc))
		json_object_set_new(ep, "hostname", json_string(sk_kube_jstr(pod, "spec.hostname")));
	return ep;
}

/* The key of a set of ports (NewPortMapKey: order does not matter). */
static int port_cmp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static char *ports_key(json_t *ports)
{
	size_t n = json_array_size(ports), i;
	char **v = xzalloc((n + 1) * sizeof(*v));
	char *out = xstrdup("");
	json_t *p;

	json_array_foreach(ports, i, p)
		v[i] = canon(p);
	qsort(v, n, sizeof(*v), port_cmp);
	for (i = 0; i < n; i++) {
		char *next = xasprintf("%s%s%s", out, i ? "," : "", v[i]);

		free(out);
		free(v[i]);
		out = next;
	}
	free(v);
	return out;
}

/* The identity of an endpoint (hashEndpoint): addresses, hostname and the
 * target's namespace/name. malloc'd. */
static char *endpoint_key(json_t *ep)
{
	cleanup_free char *addrs = canon(json_object_get(ep, "addresses"));
	json_t *ref = json_object_get(ep, "targetRef");

	return xasprintf("%s|%s|%s/%s", addrs ? addrs : "", jstr_or(ep, "hostname", ""), jstr_or(ref, "namespace", ""),
			 jstr_or(ref, "name", ""));
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(sk__name(*(json_t *const *)a) ?: "", sk__name(*(json_t *const *)b) ?: "");
}

/* pods sorted by name, so that slices fill in a stable order. */
static json_t **sorted_pods(json_t *pods, size_t *n)
{
	json_t **v = xzalloc((json_array_size(pods) + 1) * sizeof(*v)), *p;
	size_t i;

	json_array_foreach(pods, i, p)
		v[i] = p;
	*n = json_array_size(pods);
	qsort(v, *n, sizeof(*v), name_cmp);
	return v;
}

json_t *sk_eps_desired(json_t *svc, json_t *pods, json_t *nodes, const char *address_type, int *missing_nodes)
{
	int pnra = json_is_true(sk_kube_jget(svc, "spec.publishNotReadyAddresses"));
	json_t *out = json_object();
	size_t n;
	json_t **v = sorted_pods(pods, &n);

	for (size_t i = 0; i < n; i++) {
		json_t *pod = v[i], *node = NULL, *group;
		const char *node_name = sk_kube_jstr(pod, "spec.nodeName"), *ip;
		cleanup_json json_t *ports = NULL;
		cleanup_free char *key = NULL;

		if (!sk_eps_pod_included(pod, 1))
			continue;
		if (node_name && *node_name)
			node = json_object_get(nodes, node_name);
		if (!node && !pnra) {
			if (missing_nodes)
				(*missing_nodes)++;
			continue;
		}
		ip = sk_eps_pod_ip(pod, address_type);
		if (!ip)
			continue;
		ports = pod_slice_ports(svc, pod);
		key = ports_key(ports);
		group = json_object_get(out, key);
		if (!group) {
			group = json_pack("{s:O, s:[]}", "ports", ports, "endpoints");
			json_object_set_new(out, key, group);
		}
		json_array_append_new(json_object_get(group, "endpoints"), pod_endpoint(svc, pod, node, ip));
	}
	free(v);
	return out;
}

static int reserved_label(const char *k)
{
	return !strcmp(k, SK_EPS_LABEL_SERVICE) || !strcmp(k, SK_EPS_LABEL_MANAGED_BY);
}

json_t *sk_eps_slice_labels(json_t *svc, const char *managed_by)
{
	json_t *out = json_object(), *v;
	const char *k;

	json_object_foreach(sk_kube_jget(svc, "metadata.labels"), k, v)
		if (!reserved_label(k))
			json_object_set(out, k, v);
	if (!sk_eps_service_ip_set(svc))
		json_object_set_new(out, SK_EPS_LABEL_HEADLESS, json_string(""));
	else
		json_object_del(out, SK_EPS_LABEL_HEADLESS);
	json_object_set_new(out, SK_EPS_LABEL_SERVICE, json_string(sk__name(svc)));
	json_object_set_new(out, SK_EPS_LABEL_MANAGED_BY, json_string(managed_by));
	return out;
}

void sk_eps_plan_init(sk_eps_plan *p)
{
	p->create = json_array();
	p->update = json_array();
	p->del = json_array();
}

void sk_eps_plan_release(sk_eps_plan *p)
{
	json_decref(p->create);
	json_decref(p->update);
	json_decref(p->del);
	p->create = p->update = p->del = NULL;
}

static int owned_by(json_t *slice, json_t *owner, const char *kind)
{
	json_t *r;
	size_t i;

	json_array_foreach(sk_kube_jget(slice, "metadata.ownerReferences"), i, r)
		if (!strcmp(jstr_or(r, "uid", ""), sk__uid(owner) ?: "") && !strcmp(jstr_or(r, "kind", ""), kind))
			return 1;
	return 0;
}

/* newEndpointSlice for the Service. */
static json_t *new_slice(json_t *svc, json_t *ports, const char *address_type)
{
	cleanup_free char *gen = xasprintf("%s-", sk__name(svc) ?: "");
	json_t *s = json_pack("{s:s, s:s, s:{s:s, s:s, s:o, s:[o]}, s:s, s:[]}", "apiVersion", "discovery.k8s.io/v1",
			      "kind", "EndpointSlice", "metadata", "generateName", gen, "namespace", sk__ns(svc),
			      "labels", sk_eps_slice_labels(svc, SK_EPS_CONTROLLER), "ownerReferences",
			      sk__owner_ref(svc, "v1", "Service"), "addressType", address_type, "endpoints");

	if (ports)
		json_object_set(s, "ports", ports);
	return s;
}

/* An ordered set of desired endpoints with removal by key. */
typedef struct ep_set {
	json_t *list; /* the endpoints, in order */
	json_t *keys; /* key -> index in list */
	json_t *gone; /* key -> true once taken */
	size_t next, left;
} ep_set;

static void ep_set_init(ep_set *s, json_t *endpoints)
{
	json_t *ep;
	size_t i;

	s->list = json_incref(endpoints);
	s->keys = json_object();
	s->gone = json_object();
	s->next = 0;
	s->left = 0;
	json_array_foreach(endpoints, i, ep) {
		cleanup_free char *k = endpoint_key(ep);

		if (json_object_get(s->keys, k))
			continue;
		json_object_set_new(s->keys, k, json_integer((json_int_t)i));
		s->left++;
	}
}

static void ep_set_release(ep_set *s)
{
	json_decref(s->list);
	json_decref(s->keys);
	json_decref(s->gone);
}

/* The desired endpoint with ep's identity (borrowed) and takes it, or NULL. */
static json_t *ep_set_take(ep_set *s, json_t *ep)
{
	cleanup_free char *k = endpoint_key(ep);
	json_t *idx = json_object_get(s->keys, k);

	if (!idx || json_object_get(s->gone, k))
		return NULL;
	json_object_set_new(s->gone, k, json_true());
	s->left--;
	return json_array_get(s->list, (size_t)json_integer_value(idx));
}

/* Takes the next desired endpoint not yet placed (borrowed). */
static json_t *ep_set_pop(ep_set *s)
{
	while (s->next < json_array_size(s->list)) {
		json_t *ep = json_array_get(s->list, s->next++);
		cleanup_free char *k = endpoint_key(ep);
		json_t *idx = json_object_get(s->keys, k);

		if (json_object_get(s->gone, k) || (size_t)json_integer_value(idx) != s->next - 1)
			continue;
		json_object_set_new(s->gone, k, json_true());
		s->left--;
		return ep;
	}
	return NULL;
}

static size_t nendpoints(json_t *slice) { return json_array_size(json_object_get(slice, "endpoints")); }

/* Moves desired endpoints into slice up to max; returns how many. */
static size_t fill(json_t *slice, ep_set *want, int max)
{
	json_t *eps, *ep;
	size_t n = 0;

	if (!json_is_object(slice))
		return 0;
	eps = json_object_get(slice, "endpoints");
	if (!json_is_array(eps)) {
		eps = json_array();
		json_object_set_new(slice, "endpoints", eps);
	}
	while (want->left > 0 && json_array_size(eps) < (size_t)max && (ep = ep_set_pop(want))) {
		json_array_append(eps, ep);
		n++;
	}
	return n;
}

static int by_len_desc(const void *a, const void *b)
{
	size_t x = nendpoints(*(json_t *const *)a), y = nendpoints(*(json_t *const *)b);

	return x < y ? 1 : x > y ? -1 : 0;
}

/* getSliceToFill: the slice that ends closest to full with n more. */
static json_t *slice_to_fill(json_t *unchanged, size_t n, int max)
{
	int closest = max;
	json_t *best = NULL, *s;
	const char *k;

	json_object_foreach(unchanged, k, s) {
		int diff = max - (int)(n + nendpoints(s));

		if (diff >= 0 && diff < closest) {
			closest = diff;
			best = s;
			if (!diff)
				break;
		}
	}
	return best;
}

/* reconcileByPortMapping for one set of ports. */
static void reconcile_ports(json_t *svc, json_t *existing, json_t *endpoints, json_t *ports, const char *address_type,
			    int max, sk_eps_plan *out)
{
	cleanup_json json_t *labels = sk_eps_slice_labels(svc, SK_EPS_CONTROLLER);
	cleanup_json json_t *update = json_object(), *unchanged = json_object();
	json_t *slice, *ep;
	ep_set want;
	size_t i, j;
	const char *k;

	ep_set_init(&want, endpoints);
	json_array_foreach(existing, i, slice) {
		cleanup_json json_t *keep = json_array();
		int changed = 0;

		json_array_foreach(json_object_get(slice, "endpoints"), j, ep) {
			json_t *got = ep_set_take(&want, ep);

			if (!got)
				continue;
			json_array_append(keep, got);
			changed |= !json_equal(got, ep);
		}
		if (changed || json_array_size(keep) != nendpoints(slice)) {
			if (!json_array_size(keep)) {
				json_array_append(out->del, slice);
			} else {
				json_t *s = json_deep_copy(slice);

				json_object_set(s, "endpoints", keep);
				json_object_set_new(sk_kube_jobj(s, "metadata"), "labels", json_deep_copy(labels));
				json_object_set_new(update, sk__name(s), s);
			}
		} else if (!json_equal(sk_kube_jget(slice, "metadata.labels"), labels)) {
			json_t *s = json_deep_copy(slice);

			json_object_set_new(sk_kube_jobj(s, "metadata"), "labels", json_deep_copy(labels));
			json_object_set_new(update, sk__name(s), s);
		} else {
			json_object_set(unchanged, sk__name(slice), slice);
		}
	}
	if (want.left > 0 && json_object_size(update) > 0) {
		size_t n = 0;
		json_t **v = xzalloc((json_object_size(update) + 1) * sizeof(*v));

		json_object_foreach(update, k, slice)
			v[n++] = slice;
		qsort(v, n, sizeof(*v), by_len_desc);
		for (i = 0; i < n && want.left > 0; i++)
			fill(v[i], &want, max);
		free(v);
	}
	while (want.left > 0) {
		json_t *s = NULL;

		if (want.left < (size_t)max && json_object_size(unchanged) > 0)
			s = slice_to_fill(unchanged, want.left, max);
		if (s) {
			s = json_deep_copy(s);
			json_object_del(unchanged, sk__name(s));
			if (!fill(s, &want, max)) {
				json_decref(s);
				break;
			}
			/* a stored slice always has a name; a set that fails took s */
			if (json_object_set_new(update, sk__name(s), s) < 0)
				break;
			continue;
		}
		s = new_slice(svc, ports, address_type);
		if (!fill(s, &want, max)) {
			json_decref(s);
			break;
		}
		json_array_append_new(out->create, s);
	}
	json_object_foreach(update, k, slice)
		json_array_append(out->update, slice);
	ep_set_release(&want);
}

/* reconcileByAddressType. */
static void reconcile_type(json_t *svc, json_t *desired, json_t *existing, const char *address_type, int max,
			   sk_eps_plan *out)
{
	cleanup_json json_t *by_ports = json_object();
	size_t ndel = json_array_size(out->del), ncreate = json_array_size(out->create), nexisting, i;
	json_t *slice, *group, *mine = json_array();
	const char *k;

	json_array_foreach(existing, i, slice) {
		cleanup_free char *key = NULL;
		json_t *list;

		if (strcmp(jstr_or(slice, "addressType", ""), address_type) != 0)
			continue;
		json_array_append(mine, slice);
		if (!owned_by(slice, svc, "Service")) {
			json_array_append(out->del, slice);
			continue;
		}
		key = ports_key(json_object_get(slice, "ports"));
		list = json_object_get(by_ports, key);
		if (!list) {
			list = json_array();
			json_object_set_new(by_ports, key, list);
		}
		json_array_append(list, slice);
	}
	nexisting = json_array_size(mine);
	json_object_foreach(desired, k, group)
		reconcile_ports(svc, json_object_get(by_ports, k), json_object_get(group, "endpoints"),
				json_object_get(group, "ports"), address_type, max, out);
	json_object_foreach(by_ports, k, group) {
		if (json_object_get(desired, k))
			continue;
		json_array_foreach(group, i, slice)
			json_array_append(out->del, slice);
	}
	/* a placeholder stands for a Service without endpoints */
	if (nexisting == json_array_size(out->del) - ndel && json_array_size(out->create) == ncreate) {
		cleanup_json json_t *ph = new_slice(svc, NULL, address_type);
		json_t *only = json_array_size(out->del) - ndel == 1 ? json_array_get(out->del, ndel) : NULL;

		if (only && !nendpoints(only) && !json_array_size(json_object_get(only, "ports")) &&
		    owned_by(only, svc, "Service") &&
		    json_equal(sk_kube_jget(only, "metadata.labels"), sk_kube_jget(ph, "metadata.labels")))
			json_array_remove(out->del, ndel);
		else
			json_array_append(out->create, ph);
	}
	json_decref(mine);
}

void sk_eps_reconcile(json_t *svc, json_t *pods, json_t *nodes, json_t *existing, int max, sk_eps_plan *out,
		      int *missing_nodes)
{
	cleanup_json json_t *types = sk_eps_address_types(svc);
	json_t *slice, *t;
	size_t i, j;

	sk_eps_plan_init(out);
	json_array_foreach(existing, i, slice) {
		int supported = 0;

		json_array_foreach(types, j, t)
			supported |= !strcmp(json_string_value(t), jstr_or(slice, "addressType", ""));
		if (!supported)
			json_array_append(out->del, slice);
	}
	json_array_foreach(types, j, t) {
		cleanup_json json_t *desired = sk_eps_desired(svc, pods, nodes, json_string_value(t),
							      j ? NULL : missing_nodes);

		reconcile_type(svc, desired, existing, json_string_value(t), max, out);
	}
}

static void set_trigger(json_t *slice, const char *trigger)
{
	json_t *meta = sk_kube_jobj(slice, "metadata"), *ann = sk_kube_jobj(slice, "metadata.annotations");

	if (trigger)
		json_object_set_new(ann, SK_EP_TRIGGER_TIME, json_string(trigger));
	else
		json_object_del(ann, SK_EP_TRIGGER_TIME);
	if (!json_object_size(ann))
		json_object_del(meta, "annotations");
}

void sk_eps_plan_trigger_time(sk_eps_plan *p, const char *trigger)
{
	json_t *s;
	size_t i;

	json_array_foreach(p->create, i, s)
		set_trigger(s, trigger);
	json_array_foreach(p->update, i, s)
		set_trigger(s, trigger);
}

/* ---- Endpoints (core/v1) ---- */

char *sk_ep_trigger_time(json_t *svc, json_t *pods)
{
	int64_t t = sk__jtime(svc, "metadata.creationTimestamp", 0);
	json_t *p, *c;
	size_t i;

	json_array_foreach(pods, i, p) {
		int64_t v = sk__jtime(p, "metadata.creationTimestamp", 0);

		c = sk_kube_condition_get(json_object_get(p, "status"), "Ready");
		if (c && sk__jtime(c, "lastTransitionTime", 0) > v)
			v = sk__jtime(c, "lastTransitionTime", 0);
		if (sk__jtime(p, "metadata.deletionTimestamp", 0) > v)
			v = sk__jtime(p, "metadata.deletionTimestamp", 0);
		if (v > t)
			t = v;
	}
	if (t <= 0)
		return NULL;
	{
		cleanup_json json_t *j = sk__time_json(t);

		return xstrdup(json_string_value(j));
	}
}

static int addr_cmp(const void *a, const void *b)
{
	json_t *x = *(json_t *const *)a, *y = *(json_t *const *)b;
	int c = strcmp(jstr_or(x, "ip", ""), jstr_or(y, "ip", ""));

	return c ? c : strcmp(sk_kube_jstr(x, "targetRef.uid") ?: "", sk_kube_jstr(y, "targetRef.uid") ?: "");
}

static int text_cmp(const void *a, const void *b)
{
	cleanup_free char *x = canon(*(json_t *const *)a);
	cleanup_free char *y = canon(*(json_t *const *)b);

	return strcmp(x, y);
}

/* A new array of list's items sorted by cmp. */
static json_t *sorted(json_t *list, int (*cmp)(const void *, const void *))
{
	size_t n = json_array_size(list), i;
	json_t **v = xzalloc((n + 1) * sizeof(*v)), *out = json_array(), *x;

	json_array_foreach(list, i, x)
		v[i] = x;
	qsort(v, n, sizeof(*v), cmp);
	for (i = 0; i < n; i++)
		json_array_append(out, v[i]);
	free(v);
	return out;
}

/* The address set of one port: "ip|uid" -> ready, and the addresses. */
static void map_address(json_t *addrs, json_t *port_sets, const char *port_key, json_t *port, json_t *addr, int ready)
{
	cleanup_free char *akey = xasprintf("%s|%s", jstr_or(addr, "ip", ""),
					    sk_kube_jstr(addr, "targetRef.uid") ?: "");
	json_t *ps = json_object_get(port_sets, port_key), *was;

	if (!json_object_get(addrs, akey))
		json_object_set(addrs, akey, addr);
	if (!ps) {
		ps = json_pack("{s:O, s:{}}", "port", port ? port : json_null(), "set");
		json_object_set_new(port_sets, port_key, ps);
	}
	/* not ready wins over ready */
	was = json_object_get(json_object_get(ps, "set"), akey);
	if (!was || json_is_true(was))
		json_object_set_new(json_object_get(ps, "set"), akey, json_boolean(ready));
}

json_t *sk_ep_repack(json_t *subsets)
{
	cleanup_json json_t *addrs = json_object(), *port_sets = json_object(), *groups = json_object();
	json_t *ss, *a, *p, *out = json_array(), *ps, *g;
	const char *k, *ak;
	size_t i, j, l;

	json_array_foreach(subsets, i, ss) {
		json_t *ports = json_object_get(ss, "ports");
		size_t np = json_array_size(ports);

		for (j = 0; j < (np ? np : 1); j++) {
			json_t *port = np ? json_array_get(ports, j) : NULL;
			cleanup_free char *pk = port ? canon(port) : xstrdup("-");

			json_array_foreach(json_object_get(ss, "addresses"), l, a)
				map_address(addrs, port_sets, pk, port, a, 1);
			json_array_foreach(json_object_get(ss, "notReadyAddresses"), l, a)
				map_address(addrs, port_sets, pk, port, a, 0);
		}
	}
	/* ports that share one address set form one subset */
	json_object_foreach(port_sets, k, ps) {
		cleanup_free char *sk = canon(json_object_get(ps, "set"));

		g = json_object_get(groups, sk);
		if (!g) {
			g = json_pack("{s:O, s:[]}", "set", json_object_get(ps, "set"), "ports");
			json_object_set_new(groups, sk, g);
		}
		p = json_object_get(ps, "port");
		if (json_is_object(p))
			json_array_append(json_object_get(g, "ports"), p);
	}
	json_object_foreach(groups, k, g) {
		cleanup_json json_t *ready = json_array(), *not_ready = json_array();
		json_t *sub = json_object(), *r;

		json_object_foreach(json_object_get(g, "set"), ak, r)
			json_array_append(json_is_true(r) ? ready : not_ready, json_object_get(addrs, ak));
		if (json_array_size(ready))
			json_object_set_new(sub, "addresses", sorted(ready, addr_cmp));
		if (json_array_size(not_ready))
			json_object_set_new(sub, "notReadyAddresses", sorted(not_ready, addr_cmp));
		if (json_array_size(json_object_get(g, "ports")))
			json_object_set_new(sub, "ports", sorted(json_object_get(g, "ports"), text_cmp));
		json_array_append_new(out, sub);
	}
	{
		json_t *s = sorted(out, text_cmp);

		json_decref(out);
		return s;
	}
}

/* One subset of one address and at most one port (addEndpointSubset). */
static void add_subset(json_t *subsets, json_t *addr, json_t *port, int ready)
{
	json_t *ss = json_object();

	json_object_set_new(ss, ready ? "addresses" : "notReadyAddresses", json_pack("[O]", addr));
	if (port)
		json_object_set_new(ss, "ports", json_pack("[O]", port));
	json_array_append_new(subsets, ss);
}

/* The unrepacked subsets of svc over pods. */
static json_t *raw_subsets(json_t *svc, json_t *pods)
{
	int pnra = json_is_true(sk_kube_jget(svc, "spec.publishNotReadyAddresses"));
	cleanup_json json_t *types = sk_eps_address_types(svc);
	const char *family = json_string_value(json_array_get(types, 0));
	json_t *subsets = json_array(), *sp, *svc_ports = sk_kube_jget(svc, "spec.ports");
	size_t n, j;
	json_t **v = sorted_pods(pods, &n);

	for (size_t i = 0; i < n; i++) {
		json_t *pod = v[i];
		const char *ip = sk_eps_pod_ip(pod, family), *node = sk_kube_jstr(pod, "spec.nodeName");
		int ready = pnra || sk__pod_ready(pod);
		cleanup_json json_t *addr = NULL;

		if (!sk_eps_pod_included(pod, pnra) || !ip)
			continue;
		addr = json_pack("{s:s, s:o}", "ip", ip, "targetRef", target_ref(pod));
		if (node && *node)
			json_object_set_new(addr, "nodeName", json_string(node));
		if (should_set_hostname(pod, svc))
			json_object_set_new(addr, "hostname", json_string(sk_kube_jstr(pod, "spec.hostname")));
		if (!json_array_size(svc_ports)) {
			if (!strcmp(sk_kube_jstr(svc, "spec.clusterIP") ?: "", "None"))
				add_subset(subsets, addr, NULL, ready);
			continue;
		}
		json_array_foreach(svc_ports, j, sp) {
			long port = sk_eps_find_port(pod, sp);
			cleanup_json json_t *epp = NULL;

			if (port < 0)
				continue;
			epp = json_pack("{s:I, s:s}", "port", (json_int_t)port, "protocol",
					jstr_or(sp, "protocol", "TCP"));
			if (*jstr_or(sp, "name", ""))
				json_object_set(epp, "name", json_object_get(sp, "name"));
			if (jstr(sp, "appProtocol"))
				json_object_set(epp, "appProtocol", json_object_get(sp, "appProtocol"));
			add_subset(subsets, addr, epp, ready);
		}
	}
	free(v);
	return subsets;
}

static size_t count_addrs(json_t *subsets, const char *k)
{
	json_t *ss;
	size_t i, n = 0;

	json_array_foreach(subsets, i, ss)
		n += json_array_size(json_object_get(ss, k));
	return n;
}

static void keep_first(json_t *ss, const char *k, size_t n)
{
	json_t *list = json_object_get(ss, k);

	while (json_array_size(list) > n)
		json_array_remove(list, json_array_size(list) - 1);
	if (list && !json_array_size(list))
		json_object_del(ss, k);
}

/* truncateEndpoints: at most SK_EP_MAX_CAPACITY addresses, each subset
 * keeping its share (rounded up); returns 1 when it truncated. */
static int truncate_subsets(json_t *subsets)
{
	size_t ready = count_addrs(subsets, "addresses"), not_ready = count_addrs(subsets, "notReadyAddresses");
	int trunc_ready = ready > SK_EP_MAX_CAPACITY;
	size_t max = trunc_ready ? SK_EP_MAX_CAPACITY : SK_EP_MAX_CAPACITY - ready;
	size_t total = trunc_ready ? ready : not_ready, room = max, i;
	json_t *ss;

	if (ready + not_ready <= SK_EP_MAX_CAPACITY)
		return 0;
	json_array_foreach(subsets, i, ss) {
		const char *k = trunc_ready ? "addresses" : "notReadyAddresses";
		size_t in = json_array_size(json_object_get(ss, k));
		size_t add = (size_t)ceil((double)in / (double)total * (double)max);

		if (add > room)
			add = room;
		keep_first(ss, k, add);
		if (trunc_ready)
			json_object_del(ss, "notReadyAddresses");
		room -= json_array_size(json_object_get(ss, k));
	}
	return 1;
}

static json_t *labels_without_headless(json_t *labels)
{
	json_t *l = json_is_object(labels) ? json_copy(labels) : json_object();

	json_object_del(l, SK_EPS_LABEL_HEADLESS);
	return l;
}

static int empty_obj(json_t *o) { return !json_is_object(o) || !json_object_size(o); }

json_t *sk_ep_desired(json_t *svc, json_t *pods, json_t *current, const char *trigger)
{
	cleanup_json json_t *raw = raw_subsets(svc, pods);
	cleanup_json json_t *subsets = sk_ep_repack(raw);
	json_t *svc_labels = sk_kube_jget(svc, "metadata.labels"), *ep, *meta, *ann, *labels;
	int truncated = truncate_subsets(subsets);

	if (current) {
		cleanup_json json_t *cur_labels = labels_without_headless(sk_kube_jget(current, "metadata.labels"));
		json_t *cur_subsets = json_object_get(current, "subsets");
		const char *cap = jstr(sk_kube_jget(current, "metadata.annotations"), SK_EP_OVER_CAPACITY);
		int cap_ok = truncated ? cap && !strcmp(cap, "truncated") : !cap;
		if ((json_equal(cur_subsets, subsets) ||
		     (!json_array_size(cur_subsets) && !json_array_size(subsets))) &&
		    (json_equal(cur_labels, svc_labels) || (empty_obj(cur_labels) && empty_obj(svc_labels))) && cap_ok)
			return NULL;
		ep = json_deep_copy(current);
	} else {
		ep = json_pack("{s:s, s:s, s:{s:s, s:s}}", "apiVersion", "v1", "kind", "Endpoints", "metadata", "name",
			       sk__name(svc), "namespace", sk__ns(svc));
	}
	meta = sk_kube_jobj(ep, "metadata");
	json_object_set(ep, "subsets", subsets);
	labels = json_is_object(svc_labels) ? json_deep_copy(svc_labels) : json_object();
	if (!sk_eps_service_ip_set(svc))
		json_object_set_new(labels, SK_EPS_LABEL_HEADLESS, json_string(""));
	else
		json_object_del(labels, SK_EPS_LABEL_HEADLESS);
	/* empty lists and maps are omitted, as upstream serializes them */
	if (!json_array_size(subsets))
		json_object_del(ep, "subsets");
	if (json_object_size(labels)) {
		json_object_set_new(meta, "labels", labels);
	} else {
		json_object_del(meta, "labels");
		json_decref(labels);
	}
	ann = sk_kube_jobj(ep, "metadata.annotations");
	if (trigger)
		json_object_set_new(ann, SK_EP_TRIGGER_TIME, json_string(trigger));
	else
		json_object_del(ann, SK_EP_TRIGGER_TIME);
	if (truncated)
		json_object_set_new(ann, SK_EP_OVER_CAPACITY, json_string("truncated"));
	else
		json_object_del(ann, SK_EP_OVER_CAPACITY);
	if (!json_object_size(ann))
		json_object_del(meta, "annotations");
	return ep;
}

/* ---- mirroring ---- */

/* addressToEndpoint. */
static json_t *mirror_endpoint(json_t *addr, int ready)
{
	json_t *ep = json_pack("{s:[O], s:{s:b}}", "addresses", json_object_get(addr, "ip"), "conditions", "ready",
			       ready);

	if (json_is_object(json_object_get(addr, "targetRef")))
		json_object_set(ep, "targetRef", json_object_get(addr, "targetRef"));
	if (jstr(addr, "nodeName"))
		json_object_set(ep, "nodeName", json_object_get(addr, "nodeName"));
	if (*jstr_or(addr, "hostname", ""))
		json_object_set(ep, "hostname", json_object_get(addr, "hostname"));
	return ep;
}

/* The mirrored ports of a subset: core EndpointPorts as discovery ones. */
static json_t *mirror_ports(json_t *ports)
{
	json_t *out = json_array(), *p;
	size_t i;

	json_array_foreach(ports, i, p) {
		json_t *ep = json_pack("{s:s, s:s}", "name", jstr_or(p, "name", ""), "protocol",
				       jstr_or(p, "protocol", "TCP"));

		if (json_is_integer(json_object_get(p, "port")))
			json_object_set(ep, "port", json_object_get(p, "port"));
		if (jstr(p, "appProtocol"))
			json_object_set(ep, "appProtocol", json_object_get(p, "appProtocol"));
		json_array_append_new(out, ep);
	}
	return out;
}

static json_t *mirror_annotations(json_t *ep)
{
	json_t *ann = json_object(), *v;
	const char *k;

	json_object_foreach(sk_kube_jget(ep, "metadata.annotations"), k, v)
		if (strcmp(k, SK_EP_TRIGGER_TIME) && strcmp(k, "kubectl.kubernetes.io/last-applied-configuration"))
			json_object_set(ann, k, v);
	return ann;
}

static json_t *mirror_labels(json_t *ep)
{
	json_t *l = json_is_object(sk_kube_jget(ep, "metadata.labels")) ? json_copy(sk_kube_jget(ep, "metadata.labels"))
									: json_object();

	json_object_set_new(l, SK_EPS_LABEL_SERVICE, json_string(sk__name(ep)));
	json_object_set_new(l, SK_EPS_LABEL_MANAGED_BY, json_string(SK_EPS_MIRROR_CONTROLLER));
	return l;
}

/* desiredCalc: key (address type and ports) -> {addressType, ports, endpoints}. */
static json_t *mirror_desired(json_t *ep, int max, int *skipped, int *invalid)
{
	cleanup_json json_t *subsets = sk_ep_repack(json_object_get(ep, "subsets"));
	json_t *out = json_object(), *ss, *a;
	size_t i, j;

	json_array_foreach(subsets, i, ss) {
		cleanup_json json_t *ports = mirror_ports(json_object_get(ss, "ports"));
		cleanup_free char *pk = ports_key(ports);
		size_t total = json_array_size(json_object_get(ss, "addresses")) +
			       json_array_size(json_object_get(ss, "notReadyAddresses"));
		int added = 0;

		for (int ready = 1; ready >= 0; ready--) {
			json_array_foreach(json_object_get(ss, ready ? "addresses" : "notReadyAddresses"), j, a) {
				const char *ip = jstr_or(a, "ip", ""), *type;
				cleanup_free char *key = NULL;
				json_t *g;

				if (added >= max)
					break;
				type = is_ipv4(ip) ? "IPv4" : is_ipv6(ip) ? "IPv6" : NULL;
				if (!type) {
					(*invalid)++;
					continue;
				}
				key = xasprintf("%s|%s", type, pk);
				g = json_object_get(out, key);
				if (!g) {
					g = json_pack("{s:s, s:O, s:[]}", "addressType", type, "ports", ports,
						      "endpoints");
					json_object_set_new(out, key, g);
				}
				json_array_append_new(json_object_get(g, "endpoints"), mirror_endpoint(a, ready));
				added++;
			}
		}
		*skipped += (int)total - added;
	}
	return out;
}

static char *slice_key(json_t *slice)
{
	cleanup_free char *pk = ports_key(json_object_get(slice, "ports"));

	return xasprintf("%s|%s", jstr_or(slice, "addressType", ""), pk);
}

/* Whether slice already holds want's endpoints (in any order). */
static int same_endpoints(json_t *slice, json_t *want)
{
	json_t *have = json_object_get(slice, "endpoints"), *ep;
	ep_set s;
	size_t i;
	int same = json_array_size(have) == json_array_size(want);

	ep_set_init(&s, want);
	json_array_foreach(have, i, ep) {
		json_t *got = same ? ep_set_take(&s, ep) : NULL;

		if (!got || !json_equal(got, ep))
			same = 0;
	}
	ep_set_release(&s);
	return same;
}

static json_t *new_mirror_slice(json_t *ep, json_t *group, const char *name, int max)
{
	json_t *s = json_pack(
		"{s:s, s:s, s:{s:s, s:o, s:o, s:[o]}, s:O, s:O, s:[]}", "apiVersion", "discovery.k8s.io/v1", "kind",
		"EndpointSlice", "metadata", "namespace", sk__ns(ep), "labels", mirror_labels(ep), "annotations",
		mirror_annotations(ep), "ownerReferences", sk__owner_ref(ep, "v1", "Endpoints"), "addressType",
		json_object_get(group, "addressType"), "ports", json_object_get(group, "ports"), "endpoints");
	json_t *meta = json_object_get(s, "metadata"), *e;
	size_t i;

	if (name) {
		json_object_set_new(meta, "name", json_string(name));
	} else {
		cleanup_free char *gen = xasprintf("%s-", sk__name(ep) ?: "");

		json_object_set_new(meta, "generateName", json_string(gen));
	}
	json_array_foreach(json_object_get(group, "endpoints"), i, e)
		if (i < (size_t)max)
			json_array_append(json_object_get(s, "endpoints"), e);
	return s;
}

void sk_eps_mirror_reconcile(json_t *ep, json_t *existing, int max, sk_eps_plan *out, int *skipped, int *invalid)
{
	cleanup_json json_t *desired = NULL, *by_key = json_object();
	json_t *slice, *group, *list;
	const char *k;
	size_t i;

	sk_eps_plan_init(out);
	*skipped = *invalid = 0;
	desired = mirror_desired(ep, max, skipped, invalid);
	json_array_foreach(existing, i, slice) {
		cleanup_free char *key = slice_key(slice);

		list = json_object_get(by_key, key);
		if (!list) {
			list = json_array();
			json_object_set_new(by_key, key, list);
		}
		json_array_append(list, slice);
	}
	json_object_foreach(desired, k, group) {
		json_t *first;

		list = json_object_get(by_key, k);
		first = json_array_get(list, 0);
		for (i = 1; i < json_array_size(list); i++)
			json_array_append(out->del, json_array_get(list, i));
		if (first) {
			cleanup_json json_t *want = new_mirror_slice(ep, group, sk__name(first), max);
			cleanup_json json_t *ann = mirror_annotations(ep);
			cleanup_json json_t *labels = mirror_labels(ep);
			json_t *have_ann = sk_kube_jget(first, "metadata.annotations");

			if (same_endpoints(first, json_object_get(want, "endpoints")) &&
			    json_equal(labels, sk_kube_jget(first, "metadata.labels")) &&
			    (json_equal(ann, have_ann) || (empty_obj(ann) && empty_obj(have_ann))))
				continue;
			{
				json_t *upd = json_deep_copy(first);
				json_t *meta = sk_kube_jobj(upd, "metadata");

				json_object_set(upd, "endpoints", json_object_get(want, "endpoints"));
				json_object_set(upd, "ports", json_object_get(want, "ports"));
				json_object_set(meta, "labels", labels);
				json_object_set(meta, "annotations", ann);
				json_array_append_new(out->update, upd);
			}
			continue;
		}
		json_array_append_new(out->create, new_mirror_slice(ep, group, NULL, max));
	}
	json_object_foreach(by_key, k, list) {
		if (json_object_get(desired, k))
			continue;
		json_array_foreach(list, i, slice)
			json_array_append(out->del, slice);
	}
}
