#include "sched/cache.h"

#include <pthread.h>
#include <string.h>

#include "util/error.h"
#include "util/util.h"

/* ---- pods ---- */

static const char *jstr(json_t *o, const char *k) { return json_string_value(json_object_get(o, k)); }

static void parse_ports(sk_spod *p, json_t *spec)
{
	size_t i, j;
	json_t *ct, *port;

	json_array_foreach(json_object_get(spec, "containers"), i, ct) {
		json_array_foreach(json_object_get(ct, "ports"), j, port) {
			int hp = (int)json_integer_value(json_object_get(port, "hostPort"));
			const char *proto = jstr(port, "protocol"), *ip = jstr(port, "hostIP");
			sk_hostport *h;

			if (hp <= 0)
				continue;
			p->ports = xrealloc(p->ports, (p->nports + 1) * sizeof(*p->ports));
			h = &p->ports[p->nports++];
			snprintf(h->proto, sizeof(h->proto), "%s", proto && *proto ? proto : "TCP");
			snprintf(h->ip, sizeof(h->ip), "%s", ip && *ip ? ip : "0.0.0.0");
			h->port = hp;
		}
	}
}

uint64_t sk_label_hash(const char *key, const char *value)
{
	uint64_t h = 1469598103934665603ULL;

	for (const char *s = key; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	h = (h ^ 0x1f) * 1099511628211ULL;
	for (const char *s = value; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h ^ (h >> 31);
}

static void hash_labels(sk_spod *p)
{
	const char *k;
	json_t *v;

	p->nlabels = 0;
	if (!json_object_size(p->labels))
		return;
	p->label_hash = xmalloc(json_object_size(p->labels) * sizeof(uint64_t));
	json_object_foreach(p->labels, k, v)
		if (json_is_string(v))
			p->label_hash[p->nlabels++] = sk_label_hash(k, json_string_value(v));
}

static int64_t parse_ts(const char *s)
{
	int64_t secs;

	if (!s || sk_time_parse(s, &secs) < 0)
		return 0;
	return sk_ns_after(0, secs);
}

static void parse_affinity(sk_spod *p, json_t *spec)
{
	json_t *aff = json_object_get(spec, "affinity");
	json_t *pa = json_object_get(aff, "podAffinity"), *anti = json_object_get(aff, "podAntiAffinity");

	p->has_required_anti = json_array_size(
				       json_object_get(anti, "requiredDuringSchedulingIgnoredDuringExecution")) > 0;
	p->has_pod_affinity = p->has_required_anti || json_object_size(pa) > 0 ||
			      json_array_size(
				      json_object_get(anti, "preferredDuringSchedulingIgnoredDuringExecution")) > 0;
}

/* A shared, never-freed empty object: watch objects are shared, so the
 * scheduler must not add fields to them. */
static json_t *empty_obj;
static pthread_once_t empty_once = PTHREAD_ONCE_INIT;

static void empty_init(void) { empty_obj = json_object(); }

static json_t *empty_object(void)
{
	pthread_once(&empty_once, empty_init);
	return empty_obj;
}

sk_spod *sk_spod_new(json_t *pod, sk_error_t *err)
{
	json_t *meta = json_object_get(pod, "metadata"), *spec = json_object_get(pod, "spec");
	json_t *status = json_object_get(pod, "status"), *prio = json_object_get(spec, "priority");
	const char *ns = jstr(meta, "namespace"), *name = jstr(meta, "name"), *v;
	sk_kube_res req, nz;
	sk_spod *p;

	if (!ns)
		ns = "default";
	if (!name) {
		sk_error_set(err, SK_EINVALID, "pod without a name");
		return NULL;
	}
	if (sk_kube_pod_requests(pod, &req, &nz) < 0) {
		sk_error_set(err, SK_EINVALID, "pod \"%s/%s\": malformed resource quantity", ns, name);
		return NULL;
	}
	p = xzalloc(sizeof(*p));
	p->key = xasprintf("%s/%s", ns, name);
	p->ns = xstrdup(ns);
	p->name = xstrdup(name);
	p->uid = xstrdup((v = jstr(meta, "uid")) ? v : "");
	p->obj = json_incref(pod);
	p->labels = json_object_get(meta, "labels");
	if (!json_is_object(p->labels))
		p->labels = empty_object();
	p->sched_name = (v = jstr(spec, "schedulerName")) ? v : "default-scheduler";
	p->req = req;
	p->req.v[SK_KUBE_RES_PODS] = 1;
	p->nz_cpu = nz.v[SK_KUBE_RES_CPU];
	p->nz_mem = nz.v[SK_KUBE_RES_MEMORY];
	p->has_priority = json_is_integer(prio);
	p->priority = (int32_t)json_integer_value(prio);
	p->preempt_never = (v = jstr(spec, "preemptionPolicy")) && strcmp(v, "Never") == 0;
	p->created_ns = parse_ts(jstr(meta, "creationTimestamp"));
	if ((v = jstr(spec, "nodeName")) && *v)
		p->node_name = xstrdup(v);
	if ((v = jstr(status, "nominatedNodeName")) && *v)
		p->nominated = xstrdup(v);
	if ((v = jstr(p->labels, "scheduling.x-k8s.io/pod-group")) && *v)
		p->group = xstrdup(v);
	v = jstr(status, "phase");
	p->terminal = v && (strcmp(v, "Succeeded") == 0 || strcmp(v, "Failed") == 0);
	p->deleting = json_object_get(meta, "deletionTimestamp") &&
		      !json_is_null(json_object_get(meta, "deletionTimestamp"));
	p->gated = json_array_size(json_object_get(spec, "schedulingGates")) > 0;
	parse_affinity(p, spec);
	parse_ports(p, spec);
	hash_labels(p);
	p->node_slot = p->aff_slot = p->nom_slot = -1;
	return p;
}

void sk_spod_free(sk_spod *p)
{
	if (!p)
		return;
	free(p->key);
	free(p->ns);
	free(p->name);
	free(p->uid);
	free(p->node_name);
	free(p->nominated);
	free(p->group);
	free(p->ports);
	free(p->label_hash);
	json_decref(p->volumes);
	json_decref(p->delayed);
	json_decref(p->all_pvs);
	json_decref(p->obj);
	free(p);
}

void sk_spod_set_node(sk_spod *p, const char *node)
{
	free(p->node_name);
	p->node_name = node ? xstrdup(node) : NULL;
}

/* ---- nodes ---- */

static void node_clear_spec(sk_snode *n)
{
	for (int i = 0; i < n->ntaints; i++) {
		free(n->taints[i].key);
		free(n->taints[i].value);
		free(n->taints[i].msg);
	}
	free(n->taints);
	n->taints = NULL;
	n->ntaints = 0;
	free(n->lkey);
	free(n->lpair);
	n->lkey = n->lpair = NULL;
	n->nlh = 0;
	free(n->image_ids);
	free(n->image_size);
	n->image_ids = NULL;
	n->image_size = NULL;
	n->nimages = 0;
	json_decref(n->obj);
	n->obj = NULL;
}

static void add_taint(sk_snode *n, const char *key, const char *value, int effect)
{
	sk_taint *t;

	n->taints = xrealloc(n->taints, (n->ntaints + 1) * sizeof(*n->taints));
	t = &n->taints[n->ntaints++];
	t->key = xstrdup(key);
	t->value = xstrdup(value ? value : "");
	t->effect = effect;
	t->msg = xasprintf("node(s) had untolerated taint {%s: %s}", t->key, t->value);
}

static void parse_taints(sk_snode *n, json_t *spec)
{
	size_t i;
	json_t *t;
	int has_not_ready = 0;

	json_array_foreach(json_object_get(spec, "taints"), i, t) {
		const char *key = jstr(t, "key");
		int effect = sk_kube_taint_effect(jstr(t, "effect"));

		if (!key)
			continue;
		if (strcmp(key, "node.kubernetes.io/not-ready") == 0)
			has_not_ready = 1;
		add_taint(n, key, jstr(t, "value"), effect < 0 ? 0 : effect);
	}
	/* Without a node lifecycle controller nobody taints a NotReady node: do
	 * it here so TaintToleration keeps pods off it exactly as upstream would. */
	if (!n->ready && !has_not_ready)
		add_taint(n, "node.kubernetes.io/not-ready", NULL, SK_KUBE_EFFECT_NOSCHEDULE);
}

static int image_intern(sk_cache *c, const char *name)
{
	intptr_t id = (intptr_t)sk__smap_get(&c->image_ids, name);

	if (id)
		return (int)id - 1;
	if (c->nimage_ids == c->cap_image_ids) {
		c->cap_image_ids = c->cap_image_ids ? c->cap_image_ids * 2 : 64;
		c->image_nodes = xrealloc(c->image_nodes, c->cap_image_ids * sizeof(int));
	}
	c->image_nodes[c->nimage_ids] = 0;
	sk__smap_put(&c->image_ids, name, (void *)(intptr_t)(c->nimage_ids + 1));
	return c->nimage_ids++;
}

int sk_cache_image_id(const sk_cache *c, const char *name)
{
	return (int)(intptr_t)sk__smap_get(&c->image_ids, name) - 1;
}

static int has_image(const sk_snode *n, int id)
{
	for (int i = 0; i < n->nimages; i++)
		if (n->image_ids[i] == id)
			return 1;
	return 0;
}

static void parse_images(sk_cache *c, sk_snode *n, json_t *status)
{
	size_t i, j;
	json_t *img, *nm;

	json_array_foreach(json_object_get(status, "images"), i, img) {
		int64_t size = json_integer_value(json_object_get(img, "sizeBytes"));

		json_array_foreach(json_object_get(img, "names"), j, nm) {
			const char *s = json_string_value(nm);
			int id;

			if (!s || has_image(n, id = image_intern(c, s)))
				continue;
			n->image_ids = xrealloc(n->image_ids, (n->nimages + 1) * sizeof(int));
			n->image_size = xrealloc(n->image_size, (n->nimages + 1) * sizeof(int64_t));
			n->image_ids[n->nimages] = id;
			n->image_size[n->nimages] = size;
			n->nimages++;
		}
	}
}

static int parse_ready(json_t *status)
{
	size_t i;
	json_t *c;

	json_array_foreach(json_object_get(status, "conditions"), i, c) {
		const char *t = jstr(c, "type"), *s = jstr(c, "status");

		if (t && strcmp(t, "Ready") == 0)
			return s && strcmp(s, "True") == 0;
	}
	return 0;
}

static void hash_node_labels(sk_snode *n)
{
	size_t cnt = json_object_size(n->labels);
	const char *k;
	json_t *v;

	if (!cnt)
		return;
	n->lkey = xmalloc(cnt * sizeof(uint64_t));
	n->lpair = xmalloc(cnt * sizeof(uint64_t));
	json_object_foreach(n->labels, k, v)
		if (json_is_string(v)) {
			n->lkey[n->nlh] = sk__smap_hash(k);
			n->lpair[n->nlh++] = sk_label_hash(k, json_string_value(v)) | 1;
		}
}

uint64_t sk_snode_domain(const sk_snode *n, uint64_t key_hash)
{
	for (int i = 0; i < n->nlh; i++)
		if (n->lkey[i] == key_hash)
			return n->lpair[i];
	return 0;
}

static void images_count(sk_cache *c, sk_snode *n, int delta)
{
	for (int i = 0; i < n->nimages; i++)
		c->image_nodes[n->image_ids[i]] += delta;
}

static sk_snode *node_get_or_placeholder(sk_cache *c, const char *name)
{
	sk_snode *n = sk__smap_get(&c->node_map, name);

	if (n)
		return n;
	n = xzalloc(sizeof(*n));
	n->name = xstrdup(name);
	n->idx = -1;
	n->labels = NULL;
	sk__smap_put(&c->node_map, name, n);
	return n;
}

static void nodes_append(sk_cache *c, sk_snode *n)
{
	if (c->nnodes == c->cap_nodes) {
		c->cap_nodes = c->cap_nodes ? c->cap_nodes * 2 : 64;
		c->nodes = xrealloc(c->nodes, c->cap_nodes * sizeof(*c->nodes));
	}
	n->idx = c->nnodes;
	c->nodes[c->nnodes++] = n;
}

static void nodes_unlink(sk_cache *c, sk_snode *n)
{
	sk_snode *last = c->nodes[--c->nnodes];

	c->nodes[n->idx] = last;
	last->idx = n->idx;
	n->idx = -1;
}

sk_snode *sk_cache_node_upsert(sk_cache *c, json_t *node, sk_error_t *err)
{
	json_t *meta = json_object_get(node, "metadata"), *spec = json_object_get(node, "spec");
	json_t *status = json_object_get(node, "status");
	const char *name = jstr(meta, "name");
	sk_kube_res alloc;
	sk_snode *n;

	if (!name) {
		sk_error_set(err, SK_EINVALID, "node without a name");
		return NULL;
	}
	if (sk_kube_res_parse(json_object_get(status, "allocatable") ? json_object_get(status, "allocatable")
								     : json_object_get(status, "capacity"),
			      &alloc) < 0) {
		sk_error_set(err, SK_EINVALID, "node \"%s\": malformed allocatable quantity", name);
		return NULL;
	}
	n = node_get_or_placeholder(c, name);
	if (n->obj)
		images_count(c, n, -1);
	node_clear_spec(n);
	n->obj = json_incref(node);
	n->labels = json_object_get(meta, "labels");
	n->alloc = alloc;
	n->unschedulable = json_is_true(json_object_get(spec, "unschedulable"));
	n->ready = parse_ready(status);
	parse_taints(n, spec);
	hash_node_labels(n);
	parse_images(c, n, status);
	images_count(c, n, +1);
	if (n->idx < 0)
		nodes_append(c, n);
	return n;
}

static void node_free(sk_snode *n)
{
	node_clear_spec(n);
	free(n->pods);
	free(n->nominated);
	free(n->name);
	free(n);
}

/* A node with neither an object nor pods is dropped from the map. */
static void node_maybe_drop(sk_cache *c, sk_snode *n)
{
	if (n->obj || n->npods || n->nnominated)
		return;
	sk__smap_del(&c->node_map, n->name);
	node_free(n);
}

void sk_cache_node_remove(sk_cache *c, const char *name)
{
	sk_snode *n = sk__smap_get(&c->node_map, name);

	if (!n || !n->obj)
		return;
	images_count(c, n, -1);
	node_clear_spec(n);
	n->labels = NULL;
	memset(&n->alloc, 0, sizeof(n->alloc));
	nodes_unlink(c, n);
	node_maybe_drop(c, n);
}

sk_snode *sk_cache_node(const sk_cache *c, const char *name)
{
	sk_snode *n = sk__smap_get(&c->node_map, name);

	return n && n->obj ? n : NULL;
}

void sk_cache_init(sk_cache *c) { memset(c, 0, sizeof(*c)); }

static void free_node_cb(const char *key, void *val, void *ud) { node_free(val); }

void sk_cache_release(sk_cache *c)
{
	sk__smap_each(&c->node_map, free_node_cb, NULL);
	sk__smap_release(&c->node_map);
	sk__smap_release(&c->image_ids);
	free(c->image_nodes);
	free(c->nodes);
	free(c->aff_pods);
	memset(c, 0, sizeof(*c));
}

/* ---- pods on nodes ---- */

#define GROW(arr, n, cap) \
	do { \
		if ((n) == (cap)) { \
			(cap) = (cap) ? (cap)*2 : 8; \
			(arr) = xrealloc((arr), (cap) * sizeof(*(arr))); \
		} \
	} while (0)

static void account(sk_snode *n, const sk_spod *p, int sign)
{
	for (int i = 0; i < SK_KUBE_RES_MAX; i++)
		n->requested.v[i] += sign * p->req.v[i];
	n->nz_cpu += sign * p->nz_cpu;
	n->nz_mem += sign * p->nz_mem;
}

void sk_cache_pod_add(sk_cache *c, sk_spod *p)
{
	sk_snode *n;

	if (p->node || !p->node_name)
		return;
	n = node_get_or_placeholder(c, p->node_name);
	GROW(n->pods, n->npods, n->cap_pods);
	p->node = n;
	p->node_slot = n->npods;
	n->pods[n->npods++] = p;
	account(n, p, +1);
	if (p->has_pod_affinity) {
		GROW(c->aff_pods, c->naff, c->cap_aff);
		p->aff_slot = c->naff;
		c->aff_pods[c->naff++] = p;
	}
	c->npods++;
}

void sk_cache_pod_remove(sk_cache *c, sk_spod *p)
{
	sk_snode *n = p->node;

	if (!n)
		return;
	n->pods[p->node_slot] = n->pods[--n->npods];
	n->pods[p->node_slot]->node_slot = p->node_slot;
	account(n, p, -1);
	if (p->aff_slot >= 0) {
		c->aff_pods[p->aff_slot] = c->aff_pods[--c->naff];
		c->aff_pods[p->aff_slot]->aff_slot = p->aff_slot;
		p->aff_slot = -1;
	}
	p->node = NULL;
	p->node_slot = -1;
	c->npods--;
	node_maybe_drop(c, n);
}

void sk_cache_nominate(sk_cache *c, sk_spod *p, const char *node)
{
	sk_snode *n;

	sk_cache_unnominate(c, p);
	n = node_get_or_placeholder(c, node);
	GROW(n->nominated, n->nnominated, n->cap_nominated);
	p->nom_node = n;
	p->nom_slot = n->nnominated;
	n->nominated[n->nnominated++] = p;
}

void sk_cache_unnominate(sk_cache *c, sk_spod *p)
{
	sk_snode *n = p->nom_node;

	if (!n)
		return;
	n->nominated[p->nom_slot] = n->nominated[--n->nnominated];
	n->nominated[p->nom_slot]->nom_slot = p->nom_slot;
	p->nom_node = NULL;
	p->nom_slot = -1;
	node_maybe_drop(c, n);
}

const char *sk_snode_label(const sk_snode *n, const char *key)
{
	return json_string_value(json_object_get(n->labels, key));
}
