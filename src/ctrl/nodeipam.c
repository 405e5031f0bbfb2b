/* The node IPAM controller (after pkg/controller/nodeipam's range
 * allocator): every Node without spec.podCIDR gets the next free subnet of
 * the cluster CIDR (--cluster-cidr, cut by --node-cidr-mask-size) as
 * spec.podCIDR and spec.podCIDRs. The set of taken subnets is rebuilt from
 * the Nodes the informer lists at start (its handlers see each stored Node
 * before any worker runs), so a restart never hands out a subnet twice; a
 * podCIDR an agent chose itself (--pod-cidr) inside the cluster CIDR counts
 * too. A deleted Node's subnet is freed. When none is left, the Node gets a
 * CIDRNotAvailable event and is retried with backoff, as upstream. */
#include <string.h>

#include "ctrl/cidrset.h"
#include "ctrl/ctrl-int.h"
#include "util/util.h"

struct ipam {
	pthread_mutex_t mu;
	sk_cidrset set;
};

static void ipam_free(void *state)
{
	struct ipam *s = state;

	if (!s)
		return;
	sk_cidrset_release(&s->set);
	pthread_mutex_destroy(&s->mu);
	free(s);
}

/* Marks (on) or frees every podCIDR of node in the set. */
static void account(struct ipam *s, json_t *node, bool on)
{
	json_t *cidrs = sk_kube_jget(node, "spec.podCIDRs"), *v;
	const char *one = sk_kube_jstr(node, "spec.podCIDR");
	size_t i;

	pthread_mutex_lock(&s->mu);
	json_array_foreach(cidrs, i, v) {
		sk_kube_cidr c;

		if (json_is_string(v) && sk_kube_cidr_parse(json_string_value(v), &c, NULL) == 0)
			on ? sk_cidrset_occupy(&s->set, &c) : sk_cidrset_release_cidr(&s->set, &c);
	}
	if (!json_array_size(cidrs) && one && *one) {
		sk_kube_cidr c;

		if (sk_kube_cidr_parse(one, &c, NULL) == 0)
			on ? sk_cidrset_occupy(&s->set, &c) : sk_cidrset_release_cidr(&s->set, &c);
	}
	pthread_mutex_unlock(&s->mu);
}

static bool has_cidr(json_t *node)
{
	const char *one = sk_kube_jstr(node, "spec.podCIDR");

	return json_array_size(sk_kube_jget(node, "spec.podCIDRs")) || (one && *one);
}

static void on_node(void *ud, int ev, json_t *old, json_t *node)
{
	sk_controller *k = ud;
	struct ipam *s = k->state;

	if (ev == SK_INF_DELETE) {
		account(s, node, false);
		return;
	}
	if (has_cidr(node)) {
		if (!old || !json_equal(sk_kube_jget(old, "spec.podCIDRs"), sk_kube_jget(node, "spec.podCIDRs")))
			account(s, node, true);
		return;
	}
	if (!sk__is_deleting(node))
		sk__enqueue_self(k, ev, old, node);
}

static void not_available(sk_controller *k, json_t *node)
{
	sk_event_record(k->ctl->c, node, "Normal", "CIDRNotAvailable", "cidrAllocator", NULL,
			"Node %s status is now: CIDRNotAvailable", sk__name(node));
}

static int sync_ipam(sk_controller *k, const char *key)
{
	struct ipam *s = k->state;
	cleanup_json json_t *node = sk_informer_get(k->ctl->nodes, NULL, key), *patch = NULL, *out = NULL;
	cleanup_free char *path = NULL;
	char text[32];
	sk_error_t err = {0};
	sk_kube_cidr c;
	int rc;

	if (!node || has_cidr(node) || sk__is_deleting(node))
		return 0;
	pthread_mutex_lock(&s->mu);
	rc = sk_cidrset_allocate(&s->set, &c);
	pthread_mutex_unlock(&s->mu);
	if (rc < 0) {
		sk_warn("ctrl", "node \"%s\": no pod CIDR left in the cluster CIDR", sk__name(node));
		not_available(k, node);
		return -1;
	}
	sk_kube_cidr_format(&c, text);
	path = sk__path("/api/v1", "nodes", NULL, sk__name(node), NULL);
	patch = json_pack("{s:{s:s, s:[s]}, s:{s:s}}", "spec", "podCIDR", text, "podCIDRs", text, "metadata",
			  "resourceVersion", sk_kube_jstr(node, "metadata.resourceVersion") ?: "");
	out = sk_client_patch(k->ctl->c, path, SK_PATCH_MERGE, patch, &err);
	if (!out) {
		pthread_mutex_lock(&s->mu);
		sk_cidrset_release_cidr(&s->set, &c);
		pthread_mutex_unlock(&s->mu);
		if (err.code == SK_ENOTFOUND)
			return 0;
		sk_info("ctrl", "node \"%s\": setting pod CIDR %s: %s", sk__name(node), text, err.msg);
		return -1;
	}
	sk_informer_write(k->ctl->nodes, out);
	sk_info("ctrl", "node \"%s\": pod CIDR %s", sk__name(node), text);
	return 0;
}

int sk__nodeipam_init(struct sk_ctrl *ctl, sk_error_t *err)
{
	struct ipam *s = xzalloc(sizeof(*s));
	const char *cidr = ctl->o.cluster_cidr ? ctl->o.cluster_cidr : SK_CTRL_CLUSTER_CIDR;
	int mask = ctl->o.node_cidr_mask_size > 0 ? ctl->o.node_cidr_mask_size : 24;
	sk_controller *k;
	sk_kube_cidr cluster;

	if (sk_kube_cidr_parse(cidr, &cluster, NULL) < 0) {
		free(s);
		return sk_error_set(err, SK_EINVALID, "cluster CIDR \"%s\": not an IPv4 CIDR", cidr);
	}
	if (sk_cidrset_init(&s->set, &cluster, mask, err) < 0) {
		free(s);
		return sk_error_wrap(err, "cluster CIDR \"%s\"", cidr);
	}
	pthread_mutex_init(&s->mu, NULL);
	k = sk__controller_add(ctl, "node-ipam", sync_ipam, s);
	k->release = ipam_free;
	sk_informer_on(ctl->nodes, on_node, k);
	return 0;
}
