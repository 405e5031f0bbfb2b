/* Filter plugins of the default profile, evaluated per pod ("cycle") and
 * node, in upstream's order: NodeUnschedulable, NodeName, TaintToleration
 * (which also covers NodeReady through node.kubernetes.io/not-ready),
 * NodeAffinity (nodeSelector, required terms, RuntimeClass nodeSelector),
 * NodePorts, NodeResourcesFit (incl. extended resources and nominated pods of
 * equal or higher priority), PodTopologySpread (DoNotSchedule),
 * InterPodAffinity (required affinity / anti-affinity, both directions).
 *
 * sk_cycle_init does the PreFilter work once per pod (tolerations, topology
 * counts, inter-pod affinity counts over the cache); sk_filter then costs
 * little per node. Reasons are upstream's messages verbatim. */
#ifndef SK_SCHED_FILTER_H
#define SK_SCHED_FILTER_H

#include "sched/cache.h"

enum { SK_FIT_OK = 0, SK_FIT_UNSCHEDULABLE = 1, SK_FIT_UNRESOLVABLE = 2 };
#define SK_FIT_MAX_REASONS 8

/* A filter result; reasons point at static strings or strings owned by the
 * node (taint messages) and stay valid while the node is unchanged. */
typedef struct sk_fit {
	int code;
	int n;
	const char *reasons[SK_FIT_MAX_REASONS];
} sk_fit;

#define SK_MSG_UNSCHEDULABLE "node(s) were unschedulable"
#define SK_MSG_NODE_NAME "node(s) didn't match the requested node name"
#define SK_MSG_NODE_AFFINITY "node(s) didn't match Pod's node affinity/selector"
#define SK_MSG_NODE_PORTS "node(s) didn't have free ports for the requested pod ports"
#define SK_MSG_TOO_MANY_PODS "Too many pods"
#define SK_MSG_SPREAD "node(s) didn't match pod topology spread constraints"
#define SK_MSG_SPREAD_LABEL "node(s) didn't match pod topology spread constraints (missing required label)"
#define SK_MSG_AFFINITY "node(s) didn't match pod affinity rules"
#define SK_MSG_ANTI_AFFINITY "node(s) didn't match pod anti-affinity rules"
#define SK_MSG_EXISTING_ANTI "node(s) didn't satisfy existing pods anti-affinity rules"
#define SK_MSG_VOLUME_NODE_CONFLICT "node(s) had volume node affinity conflict"
#define SK_MSG_VOLUME_BIND_CONFLICT "node(s) didn't find available persistent volumes to bind"

struct sk_podterm {
	json_t *term; /* the PodAffinityTerm (borrowed) */
	const char *topology_key;
	int32_t weight; /* preferred terms */
};

/* Open-addressing table of non-zero 64-bit keys to counts. */
struct sk_u64tab {
	uint64_t *k;
	int64_t *v;
	int cap, n;
};

struct sk_spread {
	const char *key;
	uint64_t key_hash;
	int max_skew, min_domains;
	int hard; /* DoNotSchedule */
	int honor_affinity, honor_taints;
	json_t *selector;
	json_t *match_label_keys;
	uint64_t *want; /* matchLabels-only selector (+ matchLabelKeys) as label hashes */
	int nwant, simple;
	int self_match;
	struct sk_u64tab counts; /* domain (sk_snode_domain) -> matching pods */
	int64_t min;
	double weight; /* soft: log(domains + 2) */
};

typedef struct sk_cycle {
	sk_cache *cache;
	sk_spod *pod;
	json_t *spec;
	sk_kube_res req; /* pod requests + RuntimeClass overhead when not already set */
	int64_t nz_cpu, nz_mem;
	sk_kube_toleration *tols;
	int ntols;
	json_t *node_selector, *rc_selector; /* objects or NULL */
	json_t *required_terms;              /* nodeSelectorTerms array or NULL */
	json_t *preferred_terms;             /* preferred scheduling terms array or NULL */
	/* InterPodAffinity */
	struct sk_podterm *aff, *anti, *pref_aff, *pref_anti;
	int naff, nanti, npref_aff, npref_anti;
	sk_smap aff_counts, anti_counts, existing_anti; /* "key\x1fvalue" -> (intptr) count */
	int aff_self_match;
	sk_smap ipa_score;                    /* "key\x1fvalue" -> (intptr) score */
	const char **anti_keys, **score_keys; /* distinct topology keys of existing_anti / ipa_score */
	int nanti_keys, nscore_keys;
	int ipa_scoring;
	const char *node_name; /* spec.nodeName or NULL */
	/* ImageLocality: interned ids of the containers' normalised images and
	 * how many nodes have each */
	int *image_id;
	int64_t *image_nodes;
	int nimages, ncontainers;
	/* NodeResourcesFit: the resource slots the pod requests */
	int req_idx[SK_KUBE_RES_MAX];
	int nreq;
	/* PodTopologySpread */
	struct sk_spread *spread;
	int nspread, nhard;
} sk_cycle;

/* PreFilter: prepares cy for pod p against cache c. runtime_class is the
 * pod's RuntimeClass object or NULL. Never fails (malformed parts of a spec
 * are ignored as validation would have refused them). Release with
 * sk_cycle_release. */
void sk_cycle_init(sk_cycle *cy, sk_cache *c, sk_spod *p, json_t *runtime_class);
void sk_cycle_release(sk_cycle *cy);

/* Runs every filter on n; returns 1 when the pod fits, 0 with fit filled. */
int sk_filter(const sk_cycle *cy, const sk_snode *n, sk_fit *fit);

/* Individual checks, exported for tests and preemption. Each returns 1 on pass. */
int sk_filter_tolerates(const sk_cycle *cy, const sk_snode *n, int effects, const sk_taint **untolerated);
int sk_filter_node_affinity(const sk_cycle *cy, const sk_snode *n);
int sk_filter_resources(const sk_cycle *cy, const sk_snode *n, sk_fit *fit);
int sk_filter_ports(const sk_cycle *cy, const sk_snode *n);

/* One NodeSelectorTerm against a node (expressions on labels, fields on
 * metadata.name). An empty term matches nothing. */
int sk_node_term_matches(json_t *term, const sk_snode *n);
/* Count of key in t, 0 when absent. */
int64_t sk__u64tab_get(const struct sk_u64tab *t, uint64_t key);

#endif
