/* A pod's DNS configuration (/etc/resolv.conf) and host domain, as
 * kubelet's pkg/kubelet/network/dns (GetPodDNS) and
 * GeneratePodHostNameAndDomain make them. */
#include <string.h>

#include "agent/resolv.h"
#include "kube/object.h"
#include "util/util.h"

#define MAX_NAMESERVERS 3     /* validation.MaxDNSNameservers */
#define MAX_SEARCH_PATHS 32   /* validation.MaxDNSSearchPathsExpanded (ExpandedDNSConfig is GA) */
#define MAX_SEARCH_CHARS 2048 /* validation.MaxDNSSearchListCharsExpanded */
#define MAX_SEARCH_LEN 253    /* DNS1123SubdomainMaxLength */

static bool has(json_t *arr, const char *s)
{
	size_t i;
	json_t *v;

	json_array_foreach(arr, i, v)
		if (!strcmp(json_string_value(v), s))
			return true;
	return false;
}

/* Appends s unless arr holds it (kubelet's omitDuplicates). */
static void add_unique(json_t *arr, const char *s)
{
	if (s && !has(arr, s))
		json_array_append_new(arr, json_string(s));
}

static bool loopback(const char *ip) { return !strncmp(ip, "127.", 4) || !strcmp(ip, "::1"); }

/* kubelet's parseResolvConf: nameservers accumulate, the last search and
 * options lines win, search domains lose a trailing dot. */
static void parse_host(const char *text, bool drop_loopback, struct sk_pod_dns *out)
{
	cleanup_free char *copy = xstrdup(text ? text : "");
	char *line, *save = NULL;

	for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *fsave = NULL, *key = strtok_r(line, " \t\r", &fsave), *f;

		if (!key || key[0] == '#')
			continue;
		if (!strcmp(key, "nameserver")) {
			f = strtok_r(NULL, " \t\r", &fsave);
			if (f && !(drop_loopback && loopback(f)))
				json_array_append_new(out->servers, json_string(f));
		} else if (!strcmp(key, "search")) {
			json_array_clear(out->searches);
			while ((f = strtok_r(NULL, " \t\r", &fsave))) {
				size_t n = strlen(f);

				if (n > 1 && f[n - 1] == '.')
					f[n - 1] = '\0';
				json_array_append_new(out->searches, json_string(f));
			}
		} else if (!strcmp(key, "options")) {
			json_array_clear(out->options);
			while ((f = strtok_r(NULL, " \t\r", &fsave)))
				json_array_append_new(out->options, json_string(f));
		}
	}
}

/* kubelet's mergeDNSOptions: the pod's options replace those of the same
 * name; the order is the first appearance's. */
static void merge_options(json_t *options, json_t *pod_opts)
{
	size_t i, j;
	json_t *o, *v;

	json_array_foreach(pod_opts, i, o) {
		const char *name = sk_kube_jstr(o, "name"), *val = sk_kube_jstr(o, "value");
		cleanup_free char *opt = NULL;
		bool done = false;

		if (!name)
			continue;
		opt = val && *val ? xasprintf("%s:%s", name, val) : xstrdup(name);
		json_array_foreach(options, j, v) {
			const char *s = json_string_value(v);
			size_t n = strcspn(s, ":");

			if (n == strlen(name) && !strncmp(s, name, n)) {
				json_array_set_new(options, j, json_string(opt));
				done = true;
				break;
			}
		}
		if (!done)
			json_array_append_new(options, json_string(opt));
	}
}

/* kubelet's formDNSSearchFitsLimits and formDNSNameserversFitsLimits. */
static void fit_limits(struct sk_pod_dns *d)
{
	cleanup_json json_t *kept = json_array();
	size_t i, total = 0;
	json_t *v;
	bool cut = false;

	while (json_array_size(d->servers) > MAX_NAMESERVERS) {
		json_array_remove(d->servers, MAX_NAMESERVERS);
		if (!d->warning) {
			cleanup_free char *line = NULL;

			json_array_foreach(d->servers, i, v) {
				char *n = xasprintf("%s%s%s", line ? line : "", line ? " " : "", json_string_value(v));
				free(line);
				line = n;
			}
			d->warning = xasprintf("Nameserver limits were exceeded, some nameservers have been omitted, "
					       "the applied nameserver line is: %s",
					       line ? line : "");
		}
	}
	json_array_foreach(d->searches, i, v) {
		if (i >= MAX_SEARCH_PATHS || strlen(json_string_value(v)) > MAX_SEARCH_LEN) {
			cut = true;
			continue;
		}
		json_array_append(kept, v);
	}
	json_array_foreach(kept, i, v)
		total += strlen(json_string_value(v)) + (i ? 1 : 0);
	while (total > MAX_SEARCH_CHARS && json_array_size(kept)) {
		size_t last = json_array_size(kept) - 1;

		total -= strlen(json_string_value(json_array_get(kept, last))) + (last ? 1 : 0);
		json_array_remove(kept, last);
		cut = true;
	}
	if (cut) {
		cleanup_free char *line = xstrdup("");

		json_array_foreach(kept, i, v) {
			char *n = xasprintf("%s%s%s", line, i ? " " : "", json_string_value(v));
			free(line);
			line = n;
		}
		free(d->warning);
		d->warning = xasprintf("Search Line limits were exceeded, some search paths have been omitted, "
				       "the applied search line is: %s",
				       line);
	}
	json_decref(d->searches);
	d->searches = json_incref(kept);
}

void sk_pod_dns_config(json_t *pod, const char *cluster_dns, const char *cluster_domain, const char *host_resolv,
		       struct sk_pod_dns *out)
{
	const char *policy = sk_kube_jstr(pod, "spec.dnsPolicy") ?: "ClusterFirst";
	const char *ns = sk_kube_jstr(pod, "metadata.namespace") ?: "default";
	bool host_net = json_is_true(sk_kube_jget(pod, "spec.hostNetwork"));
	json_t *cfg = sk_kube_jget(pod, "spec.dnsConfig"), *v;
	bool cluster = !strcmp(policy, "ClusterFirstWithHostNet") || (!strcmp(policy, "ClusterFirst") && !host_net) ||
		       (strcmp(policy, "ClusterFirst") && strcmp(policy, "Default") && strcmp(policy, "None"));
	size_t i;

	memset(out, 0, sizeof(*out));
	out->servers = json_array();
	out->searches = json_array();
	out->options = json_array();
	if (strcmp(policy, "None")) {
		/* a loopback resolver of the host is unreachable from the pod's own network namespace */
		parse_host(host_resolv, !host_net, out);
		if (cluster && cluster_dns && *cluster_dns) {
			json_t *host_search = json_incref(out->searches);

			json_array_clear(out->servers);
			json_array_append_new(out->servers, json_string(cluster_dns));
			json_decref(out->searches);
			out->searches = json_array();
			if (cluster_domain && *cluster_domain) {
				cleanup_free char *a = xasprintf("%s.svc.%s", ns, cluster_domain);
				cleanup_free char *b = xasprintf("svc.%s", cluster_domain);

				add_unique(out->searches, a);
				add_unique(out->searches, b);
				add_unique(out->searches, cluster_domain);
			}
			json_array_foreach(host_search, i, v)
				add_unique(out->searches, json_string_value(v));
			json_decref(host_search);
			json_array_clear(out->options);
			json_array_append_new(out->options, json_string("ndots:5"));
		}
	}
	if (cfg && json_is_object(cfg)) {
		cleanup_json json_t *servers = out->servers, *searches = out->searches;

		out->servers = json_array();
		out->searches = json_array();
		json_array_foreach(servers, i, v)
			add_unique(out->servers, json_string_value(v));
		json_array_foreach(json_object_get(cfg, "nameservers"), i, v)
			add_unique(out->servers, json_string_value(v));
		json_array_foreach(searches, i, v)
			add_unique(out->searches, json_string_value(v));
		json_array_foreach(json_object_get(cfg, "searches"), i, v)
			add_unique(out->searches, json_string_value(v));
		merge_options(out->options, json_object_get(cfg, "options"));
	}
	fit_limits(out);
}

void sk_pod_dns_release(struct sk_pod_dns *d)
{
	json_decref(d->servers);
	json_decref(d->searches);
	json_decref(d->options);
	free(d->warning);
	memset(d, 0, sizeof(*d));
}

char *sk_pod_host_domain(json_t *pod, const char *cluster_domain)
{
	const char *sub = sk_kube_jstr(pod, "spec.subdomain"), *ns = sk_kube_jstr(pod, "metadata.namespace");

	if (!sub || !*sub || !ns || !cluster_domain || !*cluster_domain)
		return NULL;
	return xasprintf("%s.%s.svc.%s", sub, ns, cluster_domain);
}
