/* The scheduler's cluster snapshot: nodes with their allocatable and
 * requested resources, taints, labels, images, and the pods assigned to them
 * (bound or assumed).
 *
 * Pods are parsed once into sk_spod (requests by upstream's PodRequests rule:
 * max(sum of containers + native sidecars, max of init containers stacked on
 * the sidecars started before them) + overhead). The cache references pods
 * but never owns them: whoever created an sk_spod frees it after removing it
 * from the cache. Every add/update/delete is O(1) amortised (hash maps, slot
 * indices for removal). Not thread-safe: the scheduler serialises calls. */
#ifndef SK_SCHED_CACHE_H
#define SK_SCHED_CACHE_H

#include <jansson.h>
#include <stdint.h>

#include "kube/resource.h"
#include "kube/taint.h"
#include "sched/smap.h"
#include "util/error.h"

typedef struct sk_taint {
	char *key, *value;
	int effect;
	char *msg; /* "node(s) had untolerated taint {key: value}" */
} sk_taint;

typedef struct sk_hostport {
	char proto[8]; /* "TCP" (default), "UDP", "SCTP" */
	char ip[48];   /* "0.0.0.0" when unset */
	int port;
} sk_hostport;

struct sk_snode;

typedef struct sk_spod {
	char *key; /* "namespace/name" */
	char *ns, *name, *uid;
	json_t *obj;    /* owned reference to the Pod */
	json_t *labels; /* borrowed from obj (never NULL: an empty object when unset) */
	const char *sched_name;
	sk_kube_res req;        /* exact requests incl. overhead; v[SK_KUBE_RES_PODS] = 1 */
	int64_t nz_cpu, nz_mem; /* requests with upstream's non-zero defaults */
	int32_t priority;
	int has_priority;
	int preempt_never;     /* spec.preemptionPolicy == Never */
	int64_t created_ns;    /* metadata.creationTimestamp */
	char *node_name;       /* spec.nodeName, or the node it is assumed on */
	char *nominated;       /* status.nominatedNodeName or NULL */
	char *group;           /* pod group label value or NULL */
	int assumed;           /* bound by us, not yet seen bound */
	int terminal;          /* phase Succeeded or Failed */
	int deleting;          /* metadata.deletionTimestamp set */
	int gated;             /* spec.schedulingGates not empty */
	int reserved;          /* assumed and held by its gang until the quorum fits */
	int has_pod_affinity;  /* any pod (anti-)affinity term */
	int has_required_anti; /* requiredDuringScheduling pod anti-affinity */
	sk_hostport *ports;
	int nports;
	json_t *volumes; /* VolumeBinding: its bound PersistentVolumes with a node affinity (array) or NULL */
	json_t *delayed; /* VolumeBinding: [{claim, dynamic}] of its unbound WaitForFirstConsumer claims, or NULL */
	json_t *all_pvs; /* VolumeBinding: every PersistentVolume when delayed is set (array), or NULL */
	uint64_t *label_hash; /* sk_label_hash(key, value) of each label, for fast selectors */
	int nlabels;
	/* cache bookkeeping */
	struct sk_snode *node, *nom_node;
	int node_slot, aff_slot, nom_slot;
} sk_spod;

typedef struct sk_snode {
	char *name;
	json_t *obj;    /* owned; NULL for a placeholder (pods seen before their node) */
	json_t *labels; /* borrowed; an empty object when unset */
	sk_kube_res alloc, requested;
	int64_t nz_cpu, nz_mem; /* requested with non-zero defaults */
	int unschedulable;
	int ready;
	sk_taint *taints;
	int ntaints;
	uint64_t *lkey, *lpair; /* per label: sk__smap_hash(key), sk_label_hash(key, value) */
	int nlh;
	int *image_ids; /* interned names (sk_cache.image_ids) of status.images */
	int64_t *image_size;
	int nimages;
	sk_spod **pods;
	int npods, cap_pods;
	sk_spod **nominated; /* pods nominated to this node (preemption) */
	int nnominated, cap_nominated;
	int idx; /* position in sk_cache.nodes, -1 for a placeholder */
} sk_snode;

typedef struct sk_cache {
	sk_smap node_map; /* name -> sk_snode (incl. placeholders) */
	sk_snode **nodes; /* real nodes, in arrival order with swap-remove */
	int nnodes, cap_nodes;
	sk_smap image_ids; /* image name -> (intptr) id + 1, never shrinks */
	int *image_nodes;  /* id -> number of nodes having it */
	int nimage_ids, cap_image_ids;
	sk_spod **aff_pods; /* assigned pods with pod (anti-)affinity terms */
	int naff, cap_aff;
	int64_t npods;
} sk_cache;

/* 64-bit hash of one label pair (key, value); selectors made of matchLabels
 * only compare these instead of strings. */
uint64_t sk_label_hash(const char *key, const char *value);

/* Parses a Pod object (a new reference is taken). Returns NULL with err set
 * on malformed quantities. Free with sk_spod_free. */
sk_spod *sk_spod_new(json_t *pod, sk_error_t *err);
void sk_spod_free(sk_spod *p);
/* Sets p->node_name (copy); NULL clears it. */
void sk_spod_set_node(sk_spod *p, const char *node);

void sk_cache_init(sk_cache *c);
/* Frees nodes; pods stay owned by their creator. */
void sk_cache_release(sk_cache *c);
/* Adds or updates a node from its Node object (a new reference is taken).
 * Returns the node or NULL with err set. */
sk_snode *sk_cache_node_upsert(sk_cache *c, json_t *node, sk_error_t *err);
/* Removes a node; its pods stay accounted on a placeholder until removed. */
void sk_cache_node_remove(sk_cache *c, const char *name);
sk_snode *sk_cache_node(const sk_cache *c, const char *name);
/* Accounts pod p on p->node_name (must be set, p not already in a cache). */
void sk_cache_pod_add(sk_cache *c, sk_spod *p);
/* Removes p from the node it is accounted on; no-op if not accounted. */
void sk_cache_pod_remove(sk_cache *c, sk_spod *p);
/* Nominated pods (preemptors waiting for victims to leave). */
void sk_cache_nominate(sk_cache *c, sk_spod *p, const char *node);
void sk_cache_unnominate(sk_cache *c, sk_spod *p);

/* Interned id of an image name, -1 when no node ever reported it. */
int sk_cache_image_id(const sk_cache *c, const char *name);

/* The label pair hash of n's label with key hash key_hash, 0 when absent:
 * a cheap topology domain id. */
uint64_t sk_snode_domain(const sk_snode *n, uint64_t key_hash);

/* Node label value or NULL. */
const char *sk_snode_label(const sk_snode *n, const char *key);

#endif
