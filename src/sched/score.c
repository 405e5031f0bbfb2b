#include "sched/score.h"

#include <math.h>
#include <string.h>

#include "util/util.h"

static int64_t least(int64_t req, int64_t cap)
{
	if (cap == 0 || req > cap)
		return 0;
	return (cap - req) * SK_MAX_SCORE / cap;
}

static int64_t most(int64_t req, int64_t cap)
{
	if (cap == 0)
		return 0;
	if (req > cap)
		req = cap;
	return req * SK_MAX_SCORE / cap;
}

/* Upstream resourceAllocationScorer over cpu and memory (weight 1 each)
 * with the non-zero requests. */
int64_t sk_score_fit(const sk_cycle *cy, const sk_snode *n, int strategy)
{
	int64_t (*f)(int64_t, int64_t) = strategy == SK_STRATEGY_MOST_ALLOCATED ? most : least;
	int64_t sum = 0, w = 0;

	if (n->alloc.v[SK_KUBE_RES_CPU]) {
		sum += f(n->nz_cpu + cy->nz_cpu, n->alloc.v[SK_KUBE_RES_CPU]);
		w++;
	}
	if (n->alloc.v[SK_KUBE_RES_MEMORY]) {
		sum += f(n->nz_mem + cy->nz_mem, n->alloc.v[SK_KUBE_RES_MEMORY]);
		w++;
	}
	return w ? sum / w : 0;
}

int64_t sk_score_balanced(const sk_cycle *cy, const sk_snode *n)
{
	double f[2];
	int k = 0;
	const int res[2] = {SK_KUBE_RES_CPU, SK_KUBE_RES_MEMORY};

	for (int i = 0; i < 2; i++) {
		int64_t cap = n->alloc.v[res[i]];
		double x;

		if (!cap)
			continue;
		x = (double)(n->requested.v[res[i]] + cy->req.v[res[i]]) / (double)cap;
		f[k++] = x > 1 ? 1 : x;
	}
	if (k < 2)
		return SK_MAX_SCORE;
	return (int64_t)((1 - fabs(f[0] - f[1]) / 2) * SK_MAX_SCORE);
}

int64_t sk_score_gpu_pack(const sk_cycle *cy, const sk_snode *n)
{
	static int gpu = -2;

	if (gpu == -2)
		gpu = sk_kube_res_index("nvidia.com/gpu");
	if (gpu < 0 || cy->req.v[gpu] <= 0 || !n->alloc.v[gpu])
		return 0;
	return most(n->requested.v[gpu] + cy->req.v[gpu], n->alloc.v[gpu]);
}

#define MB (1024LL * 1024)
#define IMAGE_MIN_THRESHOLD (23 * MB)
#define IMAGE_MAX_CONTAINER_THRESHOLD (1000 * MB)

int64_t sk_score_image(const sk_cycle *cy, const sk_snode *n, int total)
{
	int64_t sum = 0, max;

	if (!n->nimages || total <= 0 || !cy->nimages)
		return 0;
	for (int i = 0; i < cy->nimages; i++)
		for (int j = 0; j < n->nimages; j++)
			if (n->image_ids[j] == cy->image_id[i]) {
				sum += (int64_t)((double)n->image_size[j] *
						 ((double)cy->image_nodes[i] / (double)total));
				break;
			}
	max = IMAGE_MAX_CONTAINER_THRESHOLD * (int64_t)cy->ncontainers;
	if (sum < IMAGE_MIN_THRESHOLD)
		sum = IMAGE_MIN_THRESHOLD;
	else if (sum > max)
		sum = max;
	return max > IMAGE_MIN_THRESHOLD ? SK_MAX_SCORE * (sum - IMAGE_MIN_THRESHOLD) / (max - IMAGE_MIN_THRESHOLD) : 0;
}

int64_t sk_score_taint_raw(const sk_cycle *cy, const sk_snode *n)
{
	int64_t cnt = 0;

	for (int i = 0; i < n->ntaints; i++) {
		const sk_taint *t = &n->taints[i];
		int ok = 0;

		if (t->effect != SK_KUBE_EFFECT_PREFER)
			continue;
		for (int j = 0; j < cy->ntols && !ok; j++)
			ok = sk_kube_toleration_tolerates(&cy->tols[j], t->key, t->value, t->effect);
		cnt += !ok;
	}
	return cnt;
}

int64_t sk_score_node_affinity_raw(const sk_cycle *cy, const sk_snode *n)
{
	int64_t sum = 0;
	size_t i;
	json_t *t;

	json_array_foreach(cy->preferred_terms, i, t) {
		int64_t w = json_integer_value(json_object_get(t, "weight"));

		if (w && sk_node_term_matches(json_object_get(t, "preference"), n))
			sum += w;
	}
	return sum;
}

static intptr_t pair_score(const sk_cycle *cy, const char *key, const char *value)
{
	char buf[512];

	snprintf(buf, sizeof(buf), "%s\x1f%s", key, value);
	return (intptr_t)sk__smap_get(&cy->ipa_score, buf);
}

int64_t sk_score_interpod_raw(const sk_cycle *cy, const sk_snode *n)
{
	int64_t sum = 0;
	const char *v;

	for (int i = 0; i < cy->nscore_keys; i++)
		if ((v = sk_snode_label(n, cy->score_keys[i])))
			sum += pair_score(cy, cy->score_keys[i], v);
	return sum;
}

int64_t sk_score_spread_raw(const sk_cycle *cy, const sk_snode *n)
{
	double score = 0;
	int any = 0;

	for (int i = 0; i < cy->nspread; i++) {
		const struct sk_spread *s = &cy->spread[i];
		uint64_t d;

		if (s->hard)
			continue;
		if (!(d = sk_snode_domain(n, s->key_hash)))
			return -1;
		any = 1;
		score += (double)sk__u64tab_get(&s->counts, d) * s->weight + (double)(s->max_skew - 1);
	}
	return any ? (int64_t)llround(score) : 0;
}

/* upstream helper.DefaultNormalizeScore */
static void normalize(int64_t *s, int n, int reverse)
{
	int64_t max = 0;

	for (int i = 0; i < n; i++)
		if (s[i] > max)
			max = s[i];
	for (int i = 0; i < n; i++) {
		if (max == 0) {
			s[i] = reverse ? SK_MAX_SCORE : 0;
			continue;
		}
		s[i] = SK_MAX_SCORE * s[i] / max;
		if (reverse)
			s[i] = SK_MAX_SCORE - s[i];
	}
}

static void normalize_minmax(int64_t *s, int n)
{
	int64_t min = INT64_MAX, max = INT64_MIN;

	for (int i = 0; i < n; i++) {
		if (s[i] < min)
			min = s[i];
		if (s[i] > max)
			max = s[i];
	}
	for (int i = 0; i < n; i++)
		s[i] = max > min ? SK_MAX_SCORE * (s[i] - min) / (max - min) : 0;
}

static void normalize_spread(int64_t *s, int n)
{
	int64_t min = INT64_MAX, max = 0;

	for (int i = 0; i < n; i++) {
		if (s[i] < 0)
			continue;
		if (s[i] < min)
			min = s[i];
		if (s[i] > max)
			max = s[i];
	}
	for (int i = 0; i < n; i++) {
		if (s[i] < 0)
			s[i] = 0;
		else if (max == 0)
			s[i] = SK_MAX_SCORE;
		else
			s[i] = SK_MAX_SCORE * (max + min - s[i]) / max;
	}
}

static int has_soft_spread(const sk_cycle *cy) { return cy->nspread > cy->nhard; }

void sk_score_nodes(const sk_cycle *cy, const sk_sched_profile *prof, sk_snode *const *nodes, int n, int64_t *out)
{
	int64_t stack[512], *tmp = n <= 512 ? stack : xmalloc((size_t)n * sizeof(*tmp));
	int total = cy->cache->nnodes,
	    gpu_w = prof && prof->gpu_pack_weight ? prof->gpu_pack_weight : SK_WEIGHT_GPU_PACK;
	int strategy = prof ? prof->strategy : SK_STRATEGY_LEAST_ALLOCATED;

	for (int i = 0; i < n; i++) {
		out[i] = SK_WEIGHT_FIT * sk_score_fit(cy, nodes[i], strategy) +
			 SK_WEIGHT_BALANCED * sk_score_balanced(cy, nodes[i]) +
			 SK_WEIGHT_IMAGE * sk_score_image(cy, nodes[i], total);
		if (gpu_w > 0)
			out[i] += gpu_w * sk_score_gpu_pack(cy, nodes[i]);
	}
	for (int i = 0; i < n; i++)
		tmp[i] = sk_score_taint_raw(cy, nodes[i]);
	normalize(tmp, n, 1);
	for (int i = 0; i < n; i++)
		out[i] += SK_WEIGHT_TAINT * tmp[i];
	if (json_array_size(cy->preferred_terms)) {
		for (int i = 0; i < n; i++)
			tmp[i] = sk_score_node_affinity_raw(cy, nodes[i]);
		normalize(tmp, n, 0);
		for (int i = 0; i < n; i++)
			out[i] += SK_WEIGHT_NODE_AFFINITY * tmp[i];
	}
	if (cy->ipa_score.n) {
		for (int i = 0; i < n; i++)
			tmp[i] = sk_score_interpod_raw(cy, nodes[i]);
		normalize_minmax(tmp, n);
		for (int i = 0; i < n; i++)
			out[i] += SK_WEIGHT_INTERPOD * tmp[i];
	}
	if (has_soft_spread(cy)) {
		for (int i = 0; i < n; i++)
			tmp[i] = sk_score_spread_raw(cy, nodes[i]);
		normalize_spread(tmp, n);
		for (int i = 0; i < n; i++)
			out[i] += SK_WEIGHT_SPREAD * tmp[i];
	}
	if (tmp != stack)
		free(tmp);
}
