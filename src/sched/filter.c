#include "sched/filter.h"
#include "kube/volume.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "kube/affinity.h"
#include "kube/selector.h"
#include "util/util.h"

static const char *jstr(json_t *o, const char *k) { return json_string_value(json_object_get(o, k)); }

static int in_values(json_t *values, const char *v)
{
	size_t i;
	json_t *x;

	if (!v)
		return 0;
	json_array_foreach(values, i, x)
		if (json_is_string(x) && strcmp(json_string_value(x), v) == 0)
			return 1;
	return 0;
}

/* ---- node selector terms ---- */

int sk_node_term_matches(json_t *term, const sk_snode *n)
{
	return sk_kube_node_term_matches(term, n->labels, n->name);
}

static int selector_map_matches(json_t *sel, const sk_snode *n)
{
	const char *k;
	json_t *v;

	json_object_foreach(sel, k, v) {
		const char *have = sk_snode_label(n, k);

		if (!have || !json_is_string(v) || strcmp(have, json_string_value(v)) != 0)
			return 0;
	}
	return 1;
}

int sk_filter_node_affinity(const sk_cycle *cy, const sk_snode *n)
{
	size_t i;
	json_t *t;

	if (cy->node_selector && !selector_map_matches(cy->node_selector, n))
		return 0;
	if (cy->rc_selector && !selector_map_matches(cy->rc_selector, n))
		return 0;
	if (!cy->required_terms)
		return 1;
	json_array_foreach(cy->required_terms, i, t)
		if (sk_node_term_matches(t, n))
			return 1;
	return 0;
}

/* ---- taints ---- */

static int tolerated(const sk_cycle *cy, const sk_taint *taint)
{
	for (int i = 0; i < cy->ntols; i++)
		if (sk_kube_toleration_tolerates(&cy->tols[i], taint->key, taint->value, taint->effect))
			return 1;
	return 0;
}

int sk_filter_tolerates(const sk_cycle *cy, const sk_snode *n, int effects, const sk_taint **untolerated)
{
	for (int i = 0; i < n->ntaints; i++) {
		if (!(n->taints[i].effect & effects) || tolerated(cy, &n->taints[i]))
			continue;
		if (untolerated)
			*untolerated = &n->taints[i];
		return 0;
	}
	return 1;
}

static int tolerates_unschedulable(const sk_cycle *cy)
{
	static sk_taint t = {"node.kubernetes.io/unschedulable", "", SK_KUBE_EFFECT_NOSCHEDULE, NULL};

	return tolerated(cy, &t);
}

/* ---- ports and resources ---- */

static int ports_conflict(const sk_hostport *a, const sk_hostport *b)
{
	if (a->port != b->port || strcmp(a->proto, b->proto) != 0)
		return 0;
	return strcmp(a->ip, "0.0.0.0") == 0 || strcmp(b->ip, "0.0.0.0") == 0 || strcmp(a->ip, b->ip) == 0;
}

int sk_filter_ports(const sk_cycle *cy, const sk_snode *n)
{
	const sk_spod *p = cy->pod;

	if (!p->nports)
		return 1;
	for (int i = 0; i < n->npods; i++) {
		const sk_spod *q = n->pods[i];

		for (int a = 0; a < q->nports; a++)
			for (int b = 0; b < p->nports; b++)
				if (ports_conflict(&q->ports[a], &p->ports[b]))
					return 0;
	}
	return 1;
}

static void fit_add(sk_fit *fit, int code, const char *reason)
{
	if (code > fit->code)
		fit->code = code;
	if (fit->n < SK_FIT_MAX_REASONS)
		fit->reasons[fit->n++] = reason;
}

static const char *insufficient_msg(int i)
{
	static char *msgs[SK_KUBE_RES_MAX];
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	char *m = __atomic_load_n(&msgs[i], __ATOMIC_ACQUIRE);

	if (m)
		return m;
	pthread_mutex_lock(&lock);
	if (!msgs[i])
		__atomic_store_n(&msgs[i], xasprintf("Insufficient %s", sk_kube_res_name(i)), __ATOMIC_RELEASE);
	pthread_mutex_unlock(&lock);
	return msgs[i];
}

/* Nominated pods of at least our priority count as if already running
 * (upstream runs filters with them added). */
static void nominated_requests(const sk_cycle *cy, const sk_snode *n, sk_kube_res *extra, int *pods)
{
	for (int i = 0; i < n->nnominated; i++) {
		const sk_spod *q = n->nominated[i];

		if (q == cy->pod || q->priority < cy->pod->priority || q->node || strcmp(q->key, cy->pod->key) == 0)
			continue;
		for (int r = 0; r < SK_KUBE_RES_MAX; r++)
			extra->v[r] += q->req.v[r];
		(*pods)++;
	}
}

int sk_filter_resources(const sk_cycle *cy, const sk_snode *n, sk_fit *fit)
{
	sk_kube_res extra;
	int npods = 0, ok = 1;

	if (n->nnominated) {
		memset(&extra, 0, sizeof(extra));
		nominated_requests(cy, n, &extra, &npods);
	}
	if (n->npods + npods + 1 > n->alloc.v[SK_KUBE_RES_PODS]) {
		fit_add(fit, SK_FIT_UNSCHEDULABLE, SK_MSG_TOO_MANY_PODS);
		ok = 0;
	}
	for (int k = 0; k < cy->nreq; k++) {
		int i = cy->req_idx[k];
		int64_t want = cy->req.v[i];

		if (want > n->alloc.v[i] - n->requested.v[i] - (n->nnominated ? extra.v[i] : 0)) {
			fit_add(fit, SK_FIT_UNSCHEDULABLE, insufficient_msg(i));
			ok = 0;
		}
	}
	return ok;
}

/* ---- pod (anti-)affinity ---- */

static int term_namespace_matches(json_t *term, const char *term_owner_ns, const char *ns)
{
	json_t *nss = json_object_get(term, "namespaces"), *nsel = json_object_get(term, "namespaceSelector");

	if (json_array_size(nss) && in_values(nss, ns))
		return 1;
	/* An empty namespaceSelector selects every namespace; a non-empty one
	 * would need Namespace labels, which the scheduler does not watch. */
	if (json_is_object(nsel))
		return json_object_size(nsel) == 0 || (!json_object_size(json_object_get(nsel, "matchLabels")) &&
						       !json_array_size(json_object_get(nsel, "matchExpressions")));
	return !json_array_size(nss) && strcmp(term_owner_ns, ns) == 0;
}

/* Does term (declared by owner) select pod target? matchLabelKeys and
 * mismatchLabelKeys take the owner's own label values. */
static int term_matches(json_t *term, const sk_spod *owner, const sk_spod *target)
{
	size_t i;
	json_t *k;

	if (!term_namespace_matches(term, owner->ns, target->ns))
		return 0;
	if (!sk_kube_label_selector_json_match(json_object_get(term, "labelSelector"), target->labels))
		return 0;
	json_array_foreach(json_object_get(term, "matchLabelKeys"), i, k) {
		const char *key = json_string_value(k), *ov, *tv;

		if (!key || !(ov = jstr(owner->labels, key)))
			continue;
		if (!(tv = jstr(target->labels, key)) || strcmp(ov, tv) != 0)
			return 0;
	}
	json_array_foreach(json_object_get(term, "mismatchLabelKeys"), i, k) {
		const char *key = json_string_value(k), *ov, *tv;

		if (!key || !(ov = jstr(owner->labels, key)))
			continue;
		if ((tv = jstr(target->labels, key)) && strcmp(ov, tv) == 0)
			return 0;
	}
	return 1;
}

static void pair_key(char *buf, size_t len, const char *key, const char *value)
{
	snprintf(buf, len, "%s\x1f%s", key, value);
}

/* Remembers key (borrowed, from a pod's JSON) once in keys. */
static void key_note(const char ***keys, int *n, const char *key)
{
	for (int i = 0; i < *n; i++)
		if (strcmp((*keys)[i], key) == 0)
			return;
	*keys = xrealloc(*keys, (*n + 1) * sizeof(char *));
	(*keys)[(*n)++] = key;
}

static void pair_add(sk_smap *m, const char *key, const char *value, intptr_t delta)
{
	char buf[512];

	pair_key(buf, sizeof(buf), key, value);
	sk__smap_put(m, buf, (void *)((intptr_t)sk__smap_get(m, buf) + delta));
}

static intptr_t pair_get(const sk_smap *m, const char *key, const char *value)
{
	char buf[512];

	pair_key(buf, sizeof(buf), key, value);
	return (intptr_t)sk__smap_get(m, buf);
}

static json_t *aff_list(json_t *spec, const char *kind, const char *when)
{
	return json_object_get(json_object_get(json_object_get(spec, "affinity"), kind), when);
}

#define REQUIRED "requiredDuringSchedulingIgnoredDuringExecution"
#define PREFERRED "preferredDuringSchedulingIgnoredDuringExecution"

static struct sk_podterm *parse_terms(json_t *list, int preferred, int *n)
{
	struct sk_podterm *t = NULL;
	size_t i;
	json_t *e;

	*n = 0;
	json_array_foreach(list, i, e) {
		json_t *term = preferred ? json_object_get(e, "podAffinityTerm") : e;
		const char *key = jstr(term, "topologyKey");

		if (!key)
			continue;
		t = xrealloc(t, (*n + 1) * sizeof(*t));
		t[*n].term = term;
		t[*n].topology_key = key;
		t[*n].weight = preferred ? (int32_t)json_integer_value(json_object_get(e, "weight")) : 1;
		(*n)++;
	}
	return t;
}

static int matches_all(const struct sk_podterm *t, int n, const sk_spod *owner, const sk_spod *target)
{
	for (int i = 0; i < n; i++)
		if (!term_matches(t[i].term, owner, target))
			return 0;
	return 1;
}

/* Existing pods' required anti-affinity terms that select the incoming pod
 * forbid their topology domain. */
static void existing_anti(sk_cycle *cy)
{
	const sk_cache *c = cy->cache;

	for (int i = 0; i < c->naff; i++) {
		const sk_spod *q = c->aff_pods[i];
		json_t *terms = aff_list(json_object_get(q->obj, "spec"), "podAntiAffinity", REQUIRED), *t;
		size_t j;

		if (!q->has_required_anti || !q->node || !q->node->obj)
			continue;
		json_array_foreach(terms, j, t) {
			const char *key = jstr(t, "topologyKey"), *v;

			if (key && (v = sk_snode_label(q->node, key)) && term_matches(t, q, cy->pod)) {
				pair_add(&cy->existing_anti, key, v, 1);
				key_note(&cy->anti_keys, &cy->nanti_keys, key);
			}
		}
	}
}

static void count_incoming(sk_cycle *cy, const sk_spod *q)
{
	const sk_snode *n = q->node;
	const char *v;

	if (cy->naff && matches_all(cy->aff, cy->naff, cy->pod, q))
		for (int i = 0; i < cy->naff; i++)
			if ((v = sk_snode_label(n, cy->aff[i].topology_key)))
				pair_add(&cy->aff_counts, cy->aff[i].topology_key, v, 1);
	for (int i = 0; i < cy->nanti; i++)
		if ((v = sk_snode_label(n, cy->anti[i].topology_key)) && term_matches(cy->anti[i].term, cy->pod, q))
			pair_add(&cy->anti_counts, cy->anti[i].topology_key, v, 1);
}

static void score_terms(sk_cycle *cy, const struct sk_podterm *t, int n, const sk_spod *owner, const sk_spod *target,
			const sk_snode *where, int sign)
{
	const char *v;

	for (int i = 0; i < n; i++)
		if ((v = sk_snode_label(where, t[i].topology_key)) && term_matches(t[i].term, owner, target)) {
			pair_add(&cy->ipa_score, t[i].topology_key, v, sign * t[i].weight);
			key_note(&cy->score_keys, &cy->nscore_keys, t[i].topology_key);
		}
}

/* InterPodAffinity PreScore contribution of one existing pod q. */
static void score_existing(sk_cycle *cy, const sk_spod *q)
{
	json_t *spec = json_object_get(q->obj, "spec");
	struct sk_podterm *t;
	int n;

	score_terms(cy, cy->pref_aff, cy->npref_aff, cy->pod, q, q->node, 1);
	score_terms(cy, cy->pref_anti, cy->npref_anti, cy->pod, q, q->node, -1);
	if (!q->has_pod_affinity)
		return;
	/* hardPodAffinityWeight = 1 for the existing pod's required affinity. */
	t = parse_terms(aff_list(spec, "podAffinity", REQUIRED), 0, &n);
	score_terms(cy, t, n, q, cy->pod, q->node, 1);
	free(t);
	t = parse_terms(aff_list(spec, "podAffinity", PREFERRED), 1, &n);
	score_terms(cy, t, n, q, cy->pod, q->node, 1);
	free(t);
	t = parse_terms(aff_list(spec, "podAntiAffinity", PREFERRED), 1, &n);
	score_terms(cy, t, n, q, cy->pod, q->node, -1);
	free(t);
}

static void prefilter_interpod(sk_cycle *cy)
{
	const sk_cache *c = cy->cache;
	int incoming;

	cy->aff = parse_terms(aff_list(cy->spec, "podAffinity", REQUIRED), 0, &cy->naff);
	cy->anti = parse_terms(aff_list(cy->spec, "podAntiAffinity", REQUIRED), 0, &cy->nanti);
	cy->pref_aff = parse_terms(aff_list(cy->spec, "podAffinity", PREFERRED), 1, &cy->npref_aff);
	cy->pref_anti = parse_terms(aff_list(cy->spec, "podAntiAffinity", PREFERRED), 1, &cy->npref_anti);
	existing_anti(cy);
	incoming = cy->naff || cy->nanti || cy->npref_aff || cy->npref_anti;
	cy->ipa_scoring = incoming || c->naff > 0;
	if (incoming) {
		for (int i = 0; i < c->nnodes; i++)
			for (int j = 0; j < c->nodes[i]->npods; j++) {
				const sk_spod *q = c->nodes[i]->pods[j];

				count_incoming(cy, q);
				if (cy->npref_aff || cy->npref_anti || q->has_pod_affinity)
					score_existing(cy, q);
			}
	} else {
		for (int i = 0; i < c->naff; i++)
			if (c->aff_pods[i]->node && c->aff_pods[i]->node->obj)
				score_existing(cy, c->aff_pods[i]);
	}
	cy->aff_self_match = cy->naff && matches_all(cy->aff, cy->naff, cy->pod, cy->pod);
}

static int filter_interpod(const sk_cycle *cy, const sk_snode *n, sk_fit *fit)
{
	int exist = 1;
	const char *v;

	for (int i = 0; i < cy->naff; i++) {
		if (!(v = sk_snode_label(n, cy->aff[i].topology_key)))
			return fit_add(fit, SK_FIT_UNRESOLVABLE, SK_MSG_AFFINITY), 0;
		if (pair_get(&cy->aff_counts, cy->aff[i].topology_key, v) <= 0)
			exist = 0;
	}
	if (!exist && !(cy->aff_counts.n == 0 && cy->aff_self_match))
		return fit_add(fit, SK_FIT_UNRESOLVABLE, SK_MSG_AFFINITY), 0;
	for (int i = 0; i < cy->nanti; i++)
		if ((v = sk_snode_label(n, cy->anti[i].topology_key)) &&
		    pair_get(&cy->anti_counts, cy->anti[i].topology_key, v) > 0)
			return fit_add(fit, SK_FIT_UNSCHEDULABLE, SK_MSG_ANTI_AFFINITY), 0;
	for (int i = 0; i < cy->nanti_keys; i++)
		if ((v = sk_snode_label(n, cy->anti_keys[i])) && pair_get(&cy->existing_anti, cy->anti_keys[i], v) > 0)
			return fit_add(fit, SK_FIT_UNSCHEDULABLE, SK_MSG_EXISTING_ANTI), 0;
	return 1;
}

/* ---- topology spread ---- */

static int has_hash(const sk_spod *q, uint64_t h)
{
	for (int i = 0; i < q->nlabels; i++)
		if (q->label_hash[i] == h)
			return 1;
	return 0;
}

static int spread_selects(const struct sk_spread *s, const sk_spod *owner, const sk_spod *q)
{
	size_t i;
	json_t *k;

	if (q->deleting || strcmp(owner->ns, q->ns) != 0)
		return 0;
	if (s->simple) {
		for (int w = 0; w < s->nwant; w++)
			if (!has_hash(q, s->want[w]))
				return 0;
		return 1;
	}
	if (!sk_kube_label_selector_json_match(s->selector, q->labels))
		return 0;
	json_array_foreach(s->match_label_keys, i, k) {
		const char *key = json_string_value(k), *ov, *qv;

		if (key && (ov = jstr(owner->labels, key)) && (!(qv = jstr(q->labels, key)) || strcmp(ov, qv) != 0))
			return 0;
	}
	return 1;
}

/* Compiles a matchLabels-only selector (with matchLabelKeys taking the
 * owner's values) into label hashes. */
static void spread_compile(struct sk_spread *s, const sk_spod *owner)
{
	json_t *ml = json_object_get(s->selector, "matchLabels"), *v;
	size_t n = json_object_size(ml) + json_array_size(s->match_label_keys), i;
	const char *k;

	if (!json_is_object(s->selector) || json_array_size(json_object_get(s->selector, "matchExpressions")))
		return;
	s->want = xmalloc((n ? n : 1) * sizeof(uint64_t));
	json_object_foreach(ml, k, v) {
		if (!json_is_string(v)) {
			free(s->want);
			s->want = NULL;
			s->nwant = 0;
			return;
		}
		s->want[s->nwant++] = sk_label_hash(k, json_string_value(v));
	}
	json_array_foreach(s->match_label_keys, i, v) {
		const char *key = json_string_value(v), *ov;

		if (key && (ov = jstr(owner->labels, key)))
			s->want[s->nwant++] = sk_label_hash(key, ov);
	}
	s->simple = 1;
}

static int node_has_keys(const sk_cycle *cy, const sk_snode *n, int hard)
{
	for (int i = 0; i < cy->nspread; i++)
		if (cy->spread[i].hard == hard && !sk_snode_domain(n, cy->spread[i].key_hash))
			return 0;
	return 1;
}

static void u64tab_grow(struct sk_u64tab *t)
{
	struct sk_u64tab o = *t;

	t->cap = o.cap ? o.cap * 2 : 16;
	t->k = xzalloc(t->cap * sizeof(uint64_t));
	t->v = xzalloc(t->cap * sizeof(int64_t));
	t->n = 0;
	for (int i = 0; i < o.cap; i++)
		if (o.k[i]) {
			int j = (int)(o.k[i] & (uint64_t)(t->cap - 1));

			while (t->k[j])
				j = (j + 1) & (t->cap - 1);
			t->k[j] = o.k[i];
			t->v[j] = o.v[i];
			t->n++;
		}
	free(o.k);
	free(o.v);
}

static void u64tab_add(struct sk_u64tab *t, uint64_t key, int64_t delta)
{
	int j;

	if ((t->n + 1) * 2 > t->cap)
		u64tab_grow(t);
	j = (int)(key & (uint64_t)(t->cap - 1));
	while (t->k[j] && t->k[j] != key)
		j = (j + 1) & (t->cap - 1);
	if (!t->k[j]) {
		t->k[j] = key;
		t->n++;
	}
	t->v[j] += delta;
}

int64_t sk__u64tab_get(const struct sk_u64tab *t, uint64_t key)
{
	int j;

	if (!t->cap)
		return 0;
	j = (int)(key & (uint64_t)(t->cap - 1));
	while (t->k[j]) {
		if (t->k[j] == key)
			return t->v[j];
		j = (j + 1) & (t->cap - 1);
	}
	return 0;
}

static int spread_node_eligible(const sk_cycle *cy, const struct sk_spread *s, const sk_snode *n)
{
	if (s->honor_affinity && !sk_filter_node_affinity(cy, n))
		return 0;
	if (s->honor_taints && !sk_filter_tolerates(cy, n, SK_KUBE_EFFECT_NOSCHEDULE | SK_KUBE_EFFECT_NOEXECUTE, NULL))
		return 0;
	return 1;
}

static void spread_count(sk_cycle *cy, struct sk_spread *s)
{
	const sk_cache *c = cy->cache;
	int64_t min = INT64_MAX;
	size_t ndomains;

	for (int i = 0; i < c->nnodes; i++) {
		const sk_snode *n = c->nodes[i];
		uint64_t d;
		int64_t cnt = 0;

		if (!node_has_keys(cy, n, s->hard) || !spread_node_eligible(cy, s, n))
			continue;
		d = sk_snode_domain(n, s->key_hash);
		for (int j = 0; j < n->npods; j++)
			cnt += spread_selects(s, cy->pod, n->pods[j]);
		u64tab_add(&s->counts, d, cnt);
	}
	for (int i = 0; i < s->counts.cap; i++)
		if (s->counts.k[i] && s->counts.v[i] < min)
			min = s->counts.v[i];
	ndomains = (size_t)s->counts.n;
	s->min = ndomains == 0 || (int)ndomains < s->min_domains ? 0 : min;
	s->weight = log((double)ndomains + 2);
	s->self_match = spread_selects(s, cy->pod, cy->pod);
}

static int policy_is(json_t *c, const char *field, const char *value, int dflt)
{
	const char *v = jstr(c, field);

	return v ? strcmp(v, value) == 0 : dflt;
}

static void prefilter_spread(sk_cycle *cy)
{
	json_t *list = json_object_get(cy->spec, "topologySpreadConstraints"), *c;
	size_t i;

	if (!json_array_size(list))
		return;
	cy->spread = xzalloc(json_array_size(list) * sizeof(*cy->spread));
	json_array_foreach(list, i, c) {
		struct sk_spread *s = &cy->spread[cy->nspread];
		const char *when = jstr(c, "whenUnsatisfiable");

		if (!(s->key = jstr(c, "topologyKey")))
			continue;
		s->max_skew = (int)json_integer_value(json_object_get(c, "maxSkew"));
		s->min_domains = json_is_integer(json_object_get(c, "minDomains"))
					 ? (int)json_integer_value(json_object_get(c, "minDomains"))
					 : 1;
		s->hard = !when || strcmp(when, "DoNotSchedule") == 0;
		s->honor_affinity = policy_is(c, "nodeAffinityPolicy", "Honor", 1);
		s->honor_taints = policy_is(c, "nodeTaintsPolicy", "Honor", 0);
		s->selector = json_object_get(c, "labelSelector");
		s->match_label_keys = json_object_get(c, "matchLabelKeys");
		s->key_hash = sk__smap_hash(s->key);
		spread_compile(s, cy->pod);
		cy->nhard += s->hard;
		cy->nspread++;
	}
	for (int k = 0; k < cy->nspread; k++)
		spread_count(cy, &cy->spread[k]);
}

static int filter_spread(const sk_cycle *cy, const sk_snode *n, sk_fit *fit)
{
	for (int i = 0; i < cy->nspread; i++) {
		const struct sk_spread *s = &cy->spread[i];
		uint64_t d;
		int64_t skew;

		if (!s->hard)
			continue;
		if (!(d = sk_snode_domain(n, s->key_hash)))
			return fit_add(fit, SK_FIT_UNRESOLVABLE, SK_MSG_SPREAD_LABEL), 0;
		skew = sk__u64tab_get(&s->counts, d) + s->self_match - s->min;
		if (skew > s->max_skew)
			return fit_add(fit, SK_FIT_UNSCHEDULABLE, SK_MSG_SPREAD), 0;
	}
	return 1;
}

/* ---- cycle ---- */

static void add_tolerations(sk_cycle *cy, json_t *list)
{
	size_t i;
	json_t *t;

	json_array_foreach(list, i, t) {
		cy->tols = xrealloc(cy->tols, (cy->ntols + 1) * sizeof(*cy->tols));
		sk_kube_toleration_parse(t, &cy->tols[cy->ntols++]);
	}
}

static void apply_runtime_class(sk_cycle *cy, json_t *rc)
{
	json_t *sched = json_object_get(rc, "scheduling");
	sk_kube_res oh;

	if (!rc)
		return;
	if (json_object_size(json_object_get(sched, "nodeSelector")))
		cy->rc_selector = json_object_get(sched, "nodeSelector");
	add_tolerations(cy, json_object_get(sched, "tolerations"));
	/* Admission normally copies overhead into the pod; add it only if missing. */
	if (!json_object_get(cy->spec, "overhead") &&
	    sk_kube_res_parse(json_object_get(json_object_get(rc, "overhead"), "podFixed"), &oh) == 0) {
		for (int i = 0; i < SK_KUBE_RES_MAX; i++)
			cy->req.v[i] += oh.v[i];
		cy->nz_cpu += oh.v[SK_KUBE_RES_CPU];
		cy->nz_mem += oh.v[SK_KUBE_RES_MEMORY];
	}
}

static void prepare_images(sk_cycle *cy)
{
	json_t *lists[2] = {json_object_get(cy->spec, "initContainers"), json_object_get(cy->spec, "containers")};
	size_t i, n = json_array_size(lists[0]) + json_array_size(lists[1]);
	json_t *ct;

	cy->ncontainers = (int)n;
	if (!n || !cy->cache->nimage_ids)
		return;
	cy->image_id = xzalloc(n * sizeof(int));
	cy->image_nodes = xzalloc(n * sizeof(int64_t));
	for (int l = 0; l < 2; l++)
		json_array_foreach(lists[l], i, ct) {
			const char *img = jstr(ct, "image"), *colon, *slash;
			char *name;
			int id;

			if (!img)
				continue;
			colon = strrchr(img, ':');
			slash = strrchr(img, '/');
			/* upstream normalizedImageName: ":latest" when no tag or digest */
			name = !colon || (slash && colon < slash) ? xasprintf("%s:latest", img) : xstrdup(img);
			id = sk_cache_image_id(cy->cache, name);
			free(name);
			if (id < 0 || !cy->cache->image_nodes[id])
				continue;
			cy->image_id[cy->nimages] = id;
			cy->image_nodes[cy->nimages] = cy->cache->image_nodes[id];
			cy->nimages++;
		}
}

void sk_cycle_init(sk_cycle *cy, sk_cache *c, sk_spod *p, json_t *runtime_class)
{
	json_t *na;

	memset(cy, 0, sizeof(*cy));
	cy->cache = c;
	cy->pod = p;
	cy->spec = json_object_get(p->obj, "spec");
	cy->req = p->req;
	cy->nz_cpu = p->nz_cpu;
	cy->nz_mem = p->nz_mem;
	sk__smap_init(&cy->aff_counts);
	sk__smap_init(&cy->anti_counts);
	sk__smap_init(&cy->existing_anti);
	sk__smap_init(&cy->ipa_score);
	add_tolerations(cy, json_object_get(cy->spec, "tolerations"));
	if (json_object_size(json_object_get(cy->spec, "nodeSelector")))
		cy->node_selector = json_object_get(cy->spec, "nodeSelector");
	na = json_object_get(json_object_get(cy->spec, "affinity"), "nodeAffinity");
	if (json_is_object(json_object_get(na, REQUIRED)))
		cy->required_terms = json_object_get(json_object_get(na, REQUIRED), "nodeSelectorTerms");
	cy->preferred_terms = json_object_get(na, PREFERRED);
	cy->node_name = jstr(cy->spec, "nodeName");
	if (cy->node_name && !*cy->node_name)
		cy->node_name = NULL;
	apply_runtime_class(cy, runtime_class);
	prepare_images(cy);
	for (int i = 0; i < SK_KUBE_RES_MAX; i++)
		if (i != SK_KUBE_RES_PODS && cy->req.v[i] > 0)
			cy->req_idx[cy->nreq++] = i;
	prefilter_interpod(cy);
	prefilter_spread(cy);
}

void sk_cycle_release(sk_cycle *cy)
{
	free(cy->tols);
	free(cy->aff);
	free(cy->anti);
	free(cy->pref_aff);
	free(cy->pref_anti);
	sk__smap_release(&cy->aff_counts);
	sk__smap_release(&cy->anti_counts);
	sk__smap_release(&cy->existing_anti);
	sk__smap_release(&cy->ipa_score);
	free(cy->anti_keys);
	free(cy->score_keys);
	for (int i = 0; i < cy->nspread; i++) {
		free(cy->spread[i].counts.k);
		free(cy->spread[i].counts.v);
		free(cy->spread[i].want);
	}
	free(cy->spread);
	free(cy->image_id);
	free(cy->image_nodes);
	memset(cy, 0, sizeof(*cy));
}

/* VolumeBinding's Filter: every bound volume's node affinity admits the
 * node (else SK_MSG_VOLUME_NODE_CONFLICT), and every unbound
 * WaitForFirstConsumer claim finds a volume there or can be provisioned
 * (else SK_MSG_VOLUME_BIND_CONFLICT). NULL when it fits. */
static const char *filter_volumes(const sk_cycle *cy, const sk_snode *n)
{
	json_t *v;
	size_t i;

	json_array_foreach(cy->pod->volumes, i, v)
		if (!sk_kube_pv_matches_node(v, n->labels, n->name))
			return SK_MSG_VOLUME_NODE_CONFLICT;
	json_array_foreach(cy->pod->delayed, i, v)
		if (!json_is_true(json_object_get(v, "dynamic")) &&
		    sk_kube_pv_find_match(cy->pod->all_pvs, json_object_get(v, "claim"), true, n->labels, n->name) < 0)
			return SK_MSG_VOLUME_BIND_CONFLICT;
	return NULL;
}

int sk_filter(const sk_cycle *cy, const sk_snode *n, sk_fit *fit)
{
	const char *want = cy->node_name, *why;
	const sk_taint *bad;

	fit->code = SK_FIT_OK;
	fit->n = 0;
	if (n->unschedulable && !tolerates_unschedulable(cy))
		return fit_add(fit, SK_FIT_UNRESOLVABLE, SK_MSG_UNSCHEDULABLE), 0;
	if (want && strcmp(want, n->name) != 0)
		return fit_add(fit, SK_FIT_UNRESOLVABLE, SK_MSG_NODE_NAME), 0;
	if (!sk_filter_tolerates(cy, n, SK_KUBE_EFFECT_NOSCHEDULE | SK_KUBE_EFFECT_NOEXECUTE, &bad))
		return fit_add(fit, SK_FIT_UNRESOLVABLE, bad->msg), 0;
	if (!sk_filter_node_affinity(cy, n))
		return fit_add(fit, SK_FIT_UNRESOLVABLE, SK_MSG_NODE_AFFINITY), 0;
	if (!sk_filter_ports(cy, n))
		return fit_add(fit, SK_FIT_UNSCHEDULABLE, SK_MSG_NODE_PORTS), 0;
	if (!sk_filter_resources(cy, n, fit))
		return 0;
	if ((why = filter_volumes(cy, n)))
		return fit_add(fit, SK_FIT_UNRESOLVABLE, why), 0;
	if (cy->nhard && !filter_spread(cy, n, fit))
		return 0;
	if ((cy->naff || cy->nanti || cy->existing_anti.n) && !filter_interpod(cy, n, fit))
		return 0;
	return 1;
}
