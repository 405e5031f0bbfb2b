/* The node's Service dataplane: kube-proxy's nftables mode (upstream
 * pkg/proxy/nftables, KEP-3866) in one table `ip skiff-<bridge>` per agent,
 * programmed through libnftables.
 *
 * Three layers: sk_proxy_model turns the Services, EndpointSlices and Nodes
 * into the wanted rules (a model: chains and their rules, map and set
 * elements), sk_proxy_script turns the difference between two models into
 * one nft transaction (a partial sync: only chains that changed are flushed
 * and refilled, map elements added and deleted), and sk_proxy_dp runs the
 * transactions. sk_proxy_start keeps informers of Services, EndpointSlices,
 * Nodes and the cluster's network settings (the ConfigMap
 * kube-system/skiff-network) and syncs on their changes from one thread,
 * coalescing bursts (kube-proxy's BoundedFrequencyRunner), with a full sync
 * at start and periodically. docs/NETWORKING.md describes the rules. */
#ifndef SK_AGENT_PROXY_H
#define SK_AGENT_PROXY_H

#include <stdbool.h>

#include <jansson.h>

#include "client/client.h"
#include "util/error.h"

typedef struct sk_proxy_config {
	const char *table;        /* nftables table of family ip: "skiff-<bridge>" */
	const char *bridge;       /* the pods' bridge */
	const char *node_name;    /* endpoints with this nodeName are local */
	const char *pod_cidr;     /* this node's pod CIDR */
	const char *gateway;      /* the bridge's address (node-local DNS listens there) */
	const char *cluster_cidr; /* pod network of the cluster; NULL: none */
	const char *service_cidr; /* NULL: none */
	const char *cluster_dns;  /* NULL: no node-local DNS rule */
} sk_proxy_config;

/* What the rules are made from: arrays of objects (borrowed; any may be
 * NULL) as the informers hold them. */
typedef struct sk_proxy_input {
	json_t *services, *slices, *nodes;
	json_t *policies, *pods, *namespaces; /* NetworkPolicy */
} sk_proxy_input;

/* The rules for in: a new object {"base": fragment, "services":
 * {"ns/name": fragment}, "policy": fragment, "cidrs": [pod CIDRs]}, a
 * fragment being {"chains": {name: rules}, "maps": {map: {key: verdict}},
 * "affinity": {set: timeout}, "in": [the objects it was made from]}. A
 * service whose Service and slices are the very objects (the informers'
 * objects are immutable) its fragment in prev (NULL: none) was made from
 * shares that fragment, so a sync costs in proportion to what changed.
 * Objects that do not parse are skipped. */
json_t *sk_proxy_model(const sk_proxy_config *cfg, const sk_proxy_input *in, json_t *prev);
/* The nft script (malloc'ed) that changes the table from model old to model
 * new; old NULL: a full sync, over the chains and sets the table holds now
 * (existing: {"chains": {name: true}, "sets": {name: true}}, NULL: none). */
char *sk_proxy_script(const sk_proxy_config *cfg, json_t *old, json_t *model, json_t *existing);

typedef struct sk_proxy_dp sk_proxy_dp;

/* A libnftables context for table (copied). NULL with err when none. */
sk_proxy_dp *sk_proxy_dp_new(const char *table, sk_error_t *err);
/* Brings the table to model (borrowed; kept with a reference): a partial
 * sync from the model last applied, or a full one when full is set, none
 * was applied yet, or the last transaction failed. */
int sk_proxy_dp_apply(sk_proxy_dp *dp, const sk_proxy_config *cfg, json_t *model, bool full, sk_error_t *err);
/* The table's chains and sets now, as sk_proxy_script's existing (new
 * reference). */
json_t *sk_proxy_dp_existing(sk_proxy_dp *dp, sk_error_t *err);
/* Runs one nft script as one transaction. */
int sk_proxy_dp_run(sk_proxy_dp *dp, const char *script, sk_error_t *err);
void sk_proxy_dp_free(sk_proxy_dp *dp);
/* Deletes table `ip <table>` if it exists. */
int sk_proxy_table_delete(const char *table, sk_error_t *err);

typedef struct sk_proxy sk_proxy;

typedef struct sk_proxy_options {
	const char *bridge, *node_name, *pod_cidr; /* required */
	/* Override the ConfigMap kube-system/skiff-network (NULL: its value, or
	 * docs/NETWORKING.md's default while it is missing). */
	const char *cluster_cidr, *service_cidr, *cluster_dns;
	int min_sync_ms; /* at most one sync per this; 0: 10 */
	int full_sync_s; /* a full sync at least this often; 0: 300 */
} sk_proxy_options;

/* Starts the informers and the sync thread on client c (borrowed). */
sk_proxy *sk_proxy_start(sk_client *c, const sk_proxy_options *o, sk_error_t *err);
/* Stops syncing; the table stays (pods keep their Services across an agent
 * restart). NULL is fine. */
void sk_proxy_stop(sk_proxy *p);
/* "skiff-<bridge>" (malloc'ed). */
char *sk_proxy_table_name(const char *bridge);

#endif
