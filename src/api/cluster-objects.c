/* The cluster's own objects, kept by the API server through the in-process
 * client (so they pass the same validation): the default/kubernetes Service
 * with its Endpoints and EndpointSlice (upstream's bootstrap controller and
 * lease endpoint reconciler), kube-system/kube-dns and the
 * kube-system/skiff-network ConfigMap (docs/NETWORKING.md). */
#include <gnutls/crypto.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "api/api-int.h"
#include "api/service.h"
#include "kube/object.h"
#include "util/util.h"

#define LEASES_PREFIX "/registry/masterleases/"
#define LEASE_TTL_SECS 15
/* upstream's APIServerIdentity: each server's Lease lasts an hour, renewed
 * every 10 s; expired ones are collected every hour */
#define IDENTITY_LEASE_SECS 3600
#define IDENTITY_GC_SECS 3600
#define IDENTITY_LABEL "apiserver.kubernetes.io/identity"

/* Creates obj at collection/name, or replaces what is there when differ()
 * says the stored one is out of date (recreate: delete it first, for
 * immutable fields). */
static void ensure(sk_client *c, const char *collection, json_t *obj, int (*differ)(json_t *want, json_t *have),
		   int recreate)
{
	const char *name = sk_kube_jstr(obj, "metadata.name");
	cleanup_free char *path = xasprintf("%s/%s", collection, name);
	cleanup_json json_t *have = NULL, *out = NULL;
	sk_error_t err = {0};

	have = sk_client_get(c, path, &err);
	if (have && !differ(obj, have))
		return;
	if (have && recreate) {
		sk_client_delete(c, path, NULL, &err);
		json_decref(have);
		have = NULL;
	}
	sk_error_clear(&err);
	if (have) {
		json_object_set(json_object_get(obj, "metadata"), "resourceVersion",
				json_object_get(json_object_get(have, "metadata"), "resourceVersion"));
		out = sk_client_do(c, "PUT", path, "fieldManager=kube-apiserver", obj, NULL, &err);
	} else {
		out = sk_client_do(c, "POST", collection, "fieldManager=kube-apiserver", obj, NULL, &err);
	}
	if (!out)
		sk_warn("service", "writing %s/%s: %s", collection, name, err.msg);
}

static int data_differs(json_t *want, json_t *have)
{
	return !json_equal(json_object_get(want, "data"), json_object_get(have, "data"));
}

static int svc_differs(json_t *want, json_t *have)
{
	json_t *w = json_object_get(want, "spec"), *h = json_object_get(have, "spec");
	json_t *wp = json_object_get(w, "ports"), *hp = json_object_get(h, "ports");

	if (!json_equal(json_object_get(w, "clusterIP"), json_object_get(h, "clusterIP")))
		return 2;
	if (json_array_size(wp) != json_array_size(hp))
		return 1;
	for (size_t i = 0; i < json_array_size(wp); i++) {
		json_t *a = json_array_get(wp, i), *b = json_array_get(hp, i);

		if (!json_equal(json_object_get(a, "port"), json_object_get(b, "port")) ||
		    !json_equal(json_object_get(a, "targetPort"), json_object_get(b, "targetPort")) ||
		    !json_equal(json_object_get(a, "protocol"), json_object_get(b, "protocol")) ||
		    !json_equal(json_object_get(a, "name"), json_object_get(b, "name")))
			return 1;
	}
	return 0;
}

static int endpoints_differ(json_t *want, json_t *have)
{
	return !json_equal(json_object_get(want, "subsets"), json_object_get(have, "subsets")) ||
	       !json_equal(json_object_get(json_object_get(want, "metadata"), "labels"),
			   json_object_get(json_object_get(have, "metadata"), "labels"));
}

static int slice_differs(json_t *want, json_t *have)
{
	return !json_equal(json_object_get(want, "endpoints"), json_object_get(have, "endpoints")) ||
	       !json_equal(json_object_get(want, "ports"), json_object_get(have, "ports"));
}

/* A Service's create or update: one whose clusterIP differs is made anew. */
static void ensure_service(sk_client *c, const char *ns, json_t *svc)
{
	cleanup_free char *coll = xasprintf("/api/v1/namespaces/%s/services", ns);
	const char *name = sk_kube_jstr(svc, "metadata.name");
	cleanup_free char *path = xasprintf("%s/%s", coll, name);
	cleanup_json json_t *have = sk_client_get(c, path, NULL);

	if (have && svc_differs(svc, have) == 1) {
		/* keep the stored object's other fields (labels, selectors set by hand) */
		json_object_set(json_object_get(have, "spec"), "ports",
				json_object_get(json_object_get(svc, "spec"), "ports"));
		ensure(c, coll, have, svc_differs, 0);
		return;
	}
	ensure(c, coll, svc, svc_differs, 1);
}

/* upstream's lease endpoint reconciler: each server renews a lease under
 * /registry/masterleases/<its address> every RECONCILE_SECS; default/kubernetes
 * lists the addresses whose lease is younger than LEASE_TTL_SECS */
static void renew_lease(sk_api *api)
{
	sk__svc *s = api->svc;
	cleanup_free char *key = xasprintf("%s%s", LEASES_PREFIX, s->advertise);
	cleanup_json json_t *v = json_pack("{s:s, s:i, s:I}", "ip", s->advertise, "port", s->advertise_port,
					   "renewTime", (json_int_t)(sk_now_ns() / 1000000000));
	cleanup_free char *text = json_dumps(v, JSON_COMPACT);
	sk_error_t e = {0};

	if (sk_store_update(api->store, key, text, strlen(text), 0, &e) < 0 && e.code == SK_ENOTFOUND)
		sk_store_create(api->store, key, text, strlen(text), NULL);
}

/* The addresses of the live leases, in address order, but except: the
 * {ip} objects of an Endpoints subset (new reference). */
static json_t *live_addresses(sk_api *api, const char *except)
{
	int64_t now = sk_now_ns() / 1000000000;
	json_t *out = json_array();
	sk_store_list l = {0};

	if (sk_store_range(api->store, LEASES_PREFIX, NULL, 0, 0, &l, NULL) < 0)
		return out;
	for (size_t i = 0; i < l.n; i++) {
		cleanup_json json_t *v = json_loadb(l.items[i].value, l.items[i].len, 0, NULL);
		const char *ip = sk_kube_jstr(v, "ip");

		if (ip && (!except || strcmp(ip, except)) &&
		    json_integer_value(json_object_get(v, "renewTime")) + LEASE_TTL_SECS >= now)
			json_array_append_new(out, json_pack("{s:s}", "ip", ip));
	}
	sk_store_list_release(&l);
	return out;
}

static void ensure_kubernetes_endpoints(sk_api *api, sk_client *c, const char *except)
{
	sk__svc *s = api->svc;
	cleanup_json json_t *addrs = live_addresses(api, except), *ep = NULL, *slice = NULL;
	json_t *eps = json_array(), *a;
	size_t i;

	ep = json_pack("{s:s, s:s, s:{s:s, s:s, s:{s:s}}, s:[]}", "apiVersion", "v1", "kind", "Endpoints", "metadata",
		       "name", "kubernetes", "namespace", "default", "labels",
		       "endpointslice.kubernetes.io/skip-mirror", "true", "subsets");
	if (json_array_size(addrs))
		json_array_append_new(json_object_get(ep, "subsets"),
				      json_pack("{s:O, s:[{s:s, s:i, s:s}]}", "addresses", addrs, "ports", "name",
						"https", "port", s->advertise_port, "protocol", "TCP"));
	ensure(c, "/api/v1/namespaces/default/endpoints", ep, endpoints_differ, 0);
	/* an EndpointSlice may not name a loopback address (upstream's
	 * validation): servers on 127.0.0.1 have Endpoints only */
	json_array_foreach(addrs, i, a) {
		const char *ip = sk_kube_jstr(a, "ip");

		if (strncmp(ip, "127.", 4))
			json_array_append_new(eps,
					      json_pack("{s:[s], s:{s:b}}", "addresses", ip, "conditions", "ready", 1));
	}
	if (!sk__resource_find("discovery.k8s.io", "v1", "endpointslices") || !json_array_size(eps)) {
		json_decref(eps);
		return;
	}
	slice = json_pack("{s:s, s:s, s:{s:s, s:s, s:{s:s}}, s:s, s:o, s:[{s:s, s:i, s:s}]}", "apiVersion",
			  "discovery.k8s.io/v1", "kind", "EndpointSlice", "metadata", "name", "kubernetes", "namespace",
			  "default", "labels", "kubernetes.io/service-name", "kubernetes", "addressType", "IPv4",
			  "endpoints", eps, "ports", "name", "https", "port", s->advertise_port, "protocol", "TCP");
	ensure(c, "/apis/discovery.k8s.io/v1/namespaces/default/endpointslices", slice, slice_differs, 0);
}

/* A server going away takes itself out of default/kubernetes. */
void sk__svc_drop_lease(sk_api *api)
{
	sk__svc *s = api->svc;
	cleanup_free char *key = xasprintf("%s%s", LEASES_PREFIX, s->advertise);
	sk_client *c;

	if (sk_store_delete(api->store, key, 0, NULL, NULL) < 0)
		return;
	c = sk_client_new_inproc(api);
	ensure_kubernetes_endpoints(api, c, s->advertise);
	sk_client_free(c);
}

/* upstream's APIServerID: "apiserver-" and the lowercase unpadded base32 of
 * the first 16 bytes of sha256 over the length-prefixed hostname and
 * "kube-apiserver"; skiff hashes this server's address:port as well, so
 * that several servers on one machine have a Lease each. */
static void identity_name(const char *host, const char *addr, char *buf, size_t len)
{
	static const char b32[] = "abcdefghijklmnopqrstuvwxyz234567";
	const char *parts[] = {host, "kube-apiserver", addr};
	unsigned char data[600], hash[32];
	size_t n = 0, o;
	unsigned bits = 0, acc = 0;

	for (size_t i = 0; i < 3; i++) {
		size_t l = strlen(parts[i]);

		if (l > 190)
			l = 190;
		data[n++] = (unsigned char)(l >> 8);
		data[n++] = (unsigned char)l;
		memcpy(data + n, parts[i], l);
		n += l;
	}
	gnutls_hash_fast(GNUTLS_DIG_SHA256, data, n, hash);
	o = (size_t)snprintf(buf, len, "apiserver-");
	for (size_t i = 0; i < 16 && o + 1 < len; i++) {
		acc = (acc << 8) | hash[i];
		bits += 8;
		while (bits >= 5 && o + 1 < len) {
			buf[o++] = b32[(acc >> (bits - 5)) & 31];
			bits -= 5;
		}
	}
	if (bits && o + 1 < len)
		buf[o++] = b32[(acc << (5 - bits)) & 31];
	buf[o] = '\0';
}

/* upstream's identity lease controller: kube-system/apiserver-HASH names
 * its holder and is renewed on every reconcile. */
static void renew_identity_lease(sk_api *api, sk_client *c)
{
	sk__svc *s = api->svc;
	char host[256] = "localhost", now[40];
	cleanup_free char *path = NULL;
	cleanup_json json_t *have = NULL, *out = NULL;
	sk_error_t err = {0};
	json_t *lease;

	gethostname(host, sizeof(host) - 1);
	host[sizeof(host) - 1] = '\0';
	if (!s->identity[0]) {
		char addr[96], uid[40];

		snprintf(addr, sizeof(addr), "%s:%d", s->advertise, s->advertise_port);
		identity_name(host, addr, s->identity, sizeof(s->identity));
		sk__new_uuid(uid, sizeof(uid));
		snprintf(s->identity_holder, sizeof(s->identity_holder), "%s_%s", s->identity, uid);
	}
	sk_time_format_micro(sk_now_ns(), now, sizeof(now));
	path = xasprintf("/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/%s", s->identity);
	have = sk_client_get(c, path, &err);
	lease = have ? json_incref(have)
		     : json_pack("{s:s, s:s, s:{s:s, s:s}}", "apiVersion", "coordination.k8s.io/v1", "kind", "Lease",
				 "metadata", "name", s->identity, "namespace", "kube-system");
	{
		json_t *meta = json_object_get(lease, "metadata"), *labels = json_object_get(meta, "labels");

		if (!json_is_object(labels)) {
			labels = json_object();
			json_object_set_new(meta, "labels", labels);
		}
		json_object_set_new(labels, IDENTITY_LABEL, json_string("kube-apiserver"));
		json_object_set_new(labels, "kubernetes.io/hostname", json_string(host));
	}
	json_object_set_new(lease, "spec",
			    json_pack("{s:s, s:i, s:s, s:s}", "holderIdentity", s->identity_holder,
				      "leaseDurationSeconds", IDENTITY_LEASE_SECS, "renewTime", now, "acquireTime",
				      now));
	if (have && json_is_string(json_object_get(json_object_get(have, "spec"), "acquireTime")) &&
	    !strcmp(sk_kube_jstr(have, "spec.holderIdentity") ? sk_kube_jstr(have, "spec.holderIdentity") : "",
		    s->identity_holder))
		json_object_set(json_object_get(lease, "spec"), "acquireTime",
				json_object_get(json_object_get(have, "spec"), "acquireTime"));
	sk_error_clear(&err);
	out = have ? sk_client_update(c, path, lease, &err)
		   : sk_client_create(c, "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases", lease, &err);
	json_decref(lease);
	if (!out)
		sk_debug("service", "identity lease %s: %s", s->identity, err.msg);
}

/* upstream's apiserver lease garbage collector: identity Leases past their
 * renewTime + leaseDurationSeconds are deleted. */
static void collect_identity_leases(sk_api *api, sk_client *c)
{
	sk__svc *s = api->svc;
	int64_t mono = sk_mono_ns(), now = sk_now_ns();
	cleanup_json json_t *list = NULL;
	json_t *items, *l;
	size_t i;

	if (s->identity_gc_ns && mono - s->identity_gc_ns < (int64_t)IDENTITY_GC_SECS * 1000000000)
		return;
	s->identity_gc_ns = mono;
	list = sk_client_do(c, "GET", "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases",
			    "labelSelector=" IDENTITY_LABEL "%3Dkube-apiserver", NULL, NULL, NULL);
	items = json_object_get(list, "items");
	json_array_foreach(items, i, l) {
		const char *renew = sk_kube_jstr(l, "spec.renewTime");
		json_int_t secs = json_integer_value(
			json_object_get(json_object_get(l, "spec"), "leaseDurationSeconds"));
		int64_t t;

		if (!renew || sk_time_parse_ns(renew, &t) < 0 || t + (int64_t)secs * 1000000000 >= now)
			continue;
		{
			cleanup_free char *path = xasprintf(
				"/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/%s",
				sk_kube_jstr(l, "metadata.name"));

			sk_client_delete(c, path, NULL, NULL);
		}
	}
}

static void ensure_objects(sk_api *api)
{
	sk__svc *s = api->svc;
	sk_client *c = sk_client_new_inproc(api);
	char kip[SK_KUBE_IP4_LEN], dns[SK_KUBE_IP4_LEN], cidr[SK_KUBE_CIDR_LEN], ports[24];
	cleanup_json json_t *kube = NULL, *kdns = NULL, *cm = NULL;

	sk_kube_ip4_format(s->kubernetes_ip, kip);
	sk_kube_ip4_format(s->dns_ip, dns);
	sk_kube_cidr_format(&s->cidr, cidr);
	snprintf(ports, sizeof(ports), "%u-%u", s->ports.first, s->ports.first + s->ports.n - 1);
	cm = json_pack("{s:s, s:s, s:{s:s, s:s}, s:{s:s, s:s, s:s, s:s, s:s}}", "apiVersion", "v1", "kind", "ConfigMap",
		       "metadata", "name", "skiff-network", "namespace", "kube-system", "data", "serviceCIDR", cidr,
		       "clusterCIDR", s->cluster_cidr, "clusterDNS", dns, "clusterDomain", s->domain, "nodePortRange",
		       ports);
	ensure(c, "/api/v1/namespaces/kube-system/configmaps", cm, data_differs, 0);
	kube = json_pack("{s:s, s:s, s:{s:s, s:s, s:{s:s, s:s}}, s:{s:s, s:[{s:s, s:i, s:s, s:i}], s:s, s:s}}",
			 "apiVersion", "v1", "kind", "Service", "metadata", "name", "kubernetes", "namespace",
			 "default", "labels", "component", "apiserver", "provider", "kubernetes", "spec", "clusterIP",
			 kip, "ports", "name", "https", "port", 443, "protocol", "TCP", "targetPort", s->advertise_port,
			 "type", "ClusterIP", "sessionAffinity", "None");
	ensure_service(c, "default", kube);
	kdns = json_pack("{s:s, s:s, s:{s:s, s:s, s:{s:s, s:s, s:s}, s:{s:s, s:s}}, s:{s:s, s:[{s:s, s:i, s:s, "
			 "s:i}, {s:s, s:i, s:s, s:i}, {s:s, s:i, s:s, s:i}], s:s}}",
			 "apiVersion", "v1", "kind", "Service", "metadata", "name", "kube-dns", "namespace",
			 "kube-system", "labels", "k8s-app", "kube-dns", "kubernetes.io/cluster-service", "true",
			 "kubernetes.io/name", "CoreDNS", "annotations", "prometheus.io/port", "9153",
			 "prometheus.io/scrape", "true", "spec", "clusterIP", dns, "ports", "name", "dns", "port", 53,
			 "protocol", "UDP", "targetPort", 53, "name", "dns-tcp", "port", 53, "protocol", "TCP",
			 "targetPort", 53, "name", "metrics", "port", 9153, "protocol", "TCP", "targetPort", 9153,
			 "type", "ClusterIP");
	ensure_service(c, "kube-system", kdns);
	renew_lease(api);
	ensure_kubernetes_endpoints(api, c, NULL);
	renew_identity_lease(api, c);
	collect_identity_leases(api, c);
	sk_client_free(c);
}

/* upstream's bootstrap controller: the cluster's own objects come back when
 * deleted or changed */
void sk__svc_reconcile(sk_api *api) { ensure_objects(api); }
