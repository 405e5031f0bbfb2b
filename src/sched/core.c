#include "sched/core.h"

#include <string.h>

#include "util/util.h"

void sk_algo_init(sk_algo *a, sk_cache *c, uint64_t seed)
{
	memset(a, 0, sizeof(*a));
	a->cache = c;
	a->rng = seed ? seed : 0x9e3779b97f4a7c15ULL;
}

void sk_algo_release(sk_algo *a)
{
	free(a->feasible);
	free(a->scores);
	a->feasible = NULL;
	a->scores = NULL;
	a->cap = 0;
}

static void reserve(sk_algo *a, int n)
{
	if (n <= a->cap)
		return;
	a->cap = n;
	a->feasible = xrealloc(a->feasible, n * sizeof(*a->feasible));
	a->scores = xrealloc(a->scores, n * sizeof(*a->scores));
}

static uint64_t next_rand(sk_algo *a)
{
	uint64_t x = a->rng;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return a->rng = x;
}

int sk_algo_nodes_to_find(int percentage, int num_all)
{
	int n;

	if (num_all < 100 || percentage >= 100)
		return num_all;
	if (percentage <= 0) {
		percentage = 50 - num_all / 125;
		if (percentage < 5)
			percentage = 5;
	}
	n = (int)((int64_t)num_all * percentage / 100);
	return n < 100 ? 100 : n;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

struct hist {
	sk_smap counts;
	char **lines;
	int n;
};

static void hist_line(const char *key, void *val, void *ud)
{
	struct hist *h = ud;

	h->lines[h->n++] = xasprintf("%d %s", (int)(intptr_t)val, key);
}

char *sk_fit_error_message(int num_all_nodes, const sk_fit *fits, int n, const char *pre_filter_msg,
			   const char *post_filter_msg)
{
	struct hist h = {0};
	size_t len = 0, off;
	char *out;

	sk__smap_init(&h.counts);
	for (int i = 0; fits && !(pre_filter_msg && *pre_filter_msg) && i < n; i++)
		for (int r = 0; fits[i].code != SK_FIT_OK && r < fits[i].n; r++)
			sk__smap_put(&h.counts, fits[i].reasons[r],
				     (void *)((intptr_t)sk__smap_get(&h.counts, fits[i].reasons[r]) + 1));
	h.lines = xmalloc((h.counts.n + 1) * sizeof(char *));
	sk__smap_each(&h.counts, hist_line, &h);
	qsort(h.lines, h.n, sizeof(char *), cmp_str);
	for (int i = 0; i < h.n; i++)
		len += strlen(h.lines[i]) + 2;
	len += 64 + (post_filter_msg ? strlen(post_filter_msg) : 0) + (pre_filter_msg ? strlen(pre_filter_msg) : 0);
	out = xmalloc(len);
	off = snprintf(out, len, "0/%d nodes are available:", num_all_nodes);
	if (pre_filter_msg && *pre_filter_msg)
		off += snprintf(out + off, len - off, " %s.", pre_filter_msg);
	for (int i = 0; i < h.n; i++) {
		off += snprintf(out + off, len - off, "%s%s", i ? ", " : " ", h.lines[i]);
		free(h.lines[i]);
	}
	if (h.n)
		off += snprintf(out + off, len - off, ".");
	if (post_filter_msg && *post_filter_msg)
		snprintf(out + off, len - off, " %s", post_filter_msg);
	free(h.lines);
	sk__smap_release(&h.counts);
	return out;
}

static int select_host(sk_algo *a, const int64_t *scores, int n)
{
	int best = 0, cnt = 1;

	for (int i = 1; i < n; i++) {
		if (scores[i] > scores[best]) {
			best = i;
			cnt = 1;
		} else if (scores[i] == scores[best]) {
			cnt++;
			if (next_rand(a) % (uint64_t)cnt == 0)
				best = i;
		}
	}
	return best;
}

/* The failure path re-runs the filters on every node to collect each
 * node's reasons; the common path never allocates per-node statuses. */
static void fail(sk_result *res, sk_cache *c, const sk_cycle *cy)
{
	sk_fit *fits = xzalloc((c->nnodes ? c->nnodes : 1) * sizeof(*fits));

	for (int i = 0; i < c->nnodes; i++)
		sk_filter(cy, c->nodes[i], &fits[i]);
	res->fits = fits;
	res->nfits = c->nnodes;
	res->message = sk_fit_error_message(c->nnodes, fits, c->nnodes, NULL, NULL);
}

int sk_algo_schedule(sk_algo *a, const sk_sched_profile *prof, sk_spod *p, json_t *runtime_class, sk_result *res)
{
	sk_cache *c = a->cache;
	int total = c->nnodes, want, start, i, nfeas = 0;
	sk_snode **feasible;
	sk_fit fit;
	int64_t *scores;
	sk_cycle cy;

	memset(res, 0, sizeof(*res));
	if (total == 0) {
		res->message = xstrdup("no nodes available to schedule pods");
		return -1;
	}
	want = sk_algo_nodes_to_find(prof ? prof->percentage_of_nodes_to_score : 0, total);
	reserve(a, want);
	feasible = a->feasible;
	sk_cycle_init(&cy, c, p, runtime_class);
	start = a->next_start % total;
	for (i = 0; i < total && nfeas < want; i++) {
		sk_snode *n = c->nodes[(start + i) % total];

		if (sk_filter(&cy, n, &fit))
			feasible[nfeas++] = n;
	}
	a->next_start = (start + i) % total;
	res->evaluated = i;
	res->feasible = nfeas;
	if (nfeas == 0) {
		fail(res, c, &cy);
		sk_cycle_release(&cy);
		return -1;
	}
	if (nfeas == 1) {
		res->node = feasible[0];
	} else {
		scores = a->scores;
		sk_score_nodes(&cy, prof, feasible, nfeas, scores);
		res->node = feasible[select_host(a, scores, nfeas)];
	}
	sk_cycle_release(&cy);
	return 0;
}

void sk_result_release(sk_result *r)
{
	free(r->message);
	free(r->fits);
	memset(r, 0, sizeof(*r));
}
