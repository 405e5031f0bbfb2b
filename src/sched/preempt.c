#include "sched/preempt.h"

#include <limits.h>
#include <string.h>

#include "util/util.h"

struct candidate {
	sk_snode *node;
	sk_spod **victims;
	int n;
};

static void tmp_remove(sk_snode *t, int slot)
{
	sk_spod *q = t->pods[slot];

	t->pods[slot] = t->pods[--t->npods];
	for (int r = 0; r < SK_KUBE_RES_MAX; r++)
		t->requested.v[r] -= q->req.v[r];
	t->nz_cpu -= q->nz_cpu;
	t->nz_mem -= q->nz_mem;
}

static void tmp_add(sk_snode *t, sk_spod *q)
{
	t->pods[t->npods++] = q;
	for (int r = 0; r < SK_KUBE_RES_MAX; r++)
		t->requested.v[r] += q->req.v[r];
	t->nz_cpu += q->nz_cpu;
	t->nz_mem += q->nz_mem;
}

/* upstream MoreImportantPod: higher priority, then earlier start. */
static int more_important(const void *a, const void *b)
{
	const sk_spod *x = *(sk_spod *const *)a, *y = *(sk_spod *const *)b;

	if (x->priority != y->priority)
		return x->priority > y->priority ? -1 : 1;
	if (x->created_ns != y->created_ns)
		return x->created_ns < y->created_ns ? -1 : 1;
	return strcmp(x->key, y->key);
}

/* SelectVictimsOnNode. Returns 1 with cand filled, or 0 with fit set. */
static int select_victims(const sk_cycle *cy, sk_snode *n, struct candidate *cand, sk_fit *fit)
{
	sk_snode t = *n;
	sk_spod **pot;
	int npot = 0, ok;

	t.pods = xmalloc((n->npods + 1) * sizeof(*t.pods));
	memcpy(t.pods, n->pods, n->npods * sizeof(*t.pods));
	pot = xmalloc((n->npods + 1) * sizeof(*pot));
	for (int i = t.npods - 1; i >= 0; i--)
		if (t.pods[i]->priority < cy->pod->priority) {
			pot[npot++] = t.pods[i];
			tmp_remove(&t, i);
		}
	memset(fit, 0, sizeof(*fit));
	if (npot == 0) {
		fit->code = SK_FIT_UNRESOLVABLE;
		fit->reasons[fit->n++] = SK_MSG_PREEMPT_NO_VICTIMS;
		ok = 0;
	} else if (!(ok = sk_filter(cy, &t, fit))) {
		;
	} else {
		qsort(pot, npot, sizeof(*pot), more_important);
		cand->node = n;
		cand->victims = xmalloc(npot * sizeof(sk_spod *));
		cand->n = 0;
		for (int i = 0; i < npot; i++) {
			sk_fit f;

			tmp_add(&t, pot[i]);
			if (!sk_filter(cy, &t, &f)) {
				tmp_remove(&t, t.npods - 1);
				cand->victims[cand->n++] = pot[i];
			}
		}
	}
	free(pot);
	free(t.pods);
	return ok;
}

static int64_t max_prio(const struct candidate *c)
{
	int64_t m = INT64_MIN;

	for (int i = 0; i < c->n; i++)
		if (c->victims[i]->priority > m)
			m = c->victims[i]->priority;
	return m;
}

static int64_t sum_prio(const struct candidate *c)
{
	int64_t s = 0;

	for (int i = 0; i < c->n; i++)
		s += (int64_t)c->victims[i]->priority + INT32_MAX + 1;
	return s;
}

/* Latest start time among the highest-priority victims (victims are sorted
 * most important first, so those come first). */
static int64_t earliest_top_start(const struct candidate *c)
{
	int64_t e = INT64_MAX;

	for (int i = 0; i < c->n && c->victims[i]->priority == c->victims[0]->priority; i++)
		if (c->victims[i]->created_ns < e)
			e = c->victims[i]->created_ns;
	return e;
}

static int better(const struct candidate *a, const struct candidate *b)
{
	if (max_prio(a) != max_prio(b))
		return max_prio(a) < max_prio(b);
	if (sum_prio(a) != sum_prio(b))
		return sum_prio(a) < sum_prio(b);
	if (a->n != b->n)
		return a->n < b->n;
	return earliest_top_start(a) > earliest_top_start(b);
}

static int terminating_on_nominated(const sk_cache *c, const sk_spod *p)
{
	sk_snode *n = p->nominated ? sk_cache_node(c, p->nominated) : NULL;

	for (int i = 0; n && i < n->npods; i++)
		if (n->pods[i]->deleting && n->pods[i]->priority < p->priority)
			return 1;
	return 0;
}

static int no_candidate(sk_preemption *out, sk_fit *statuses, int n)
{
	char *msg = sk_fit_error_message(n, statuses, n, NULL, NULL);

	out->message = xasprintf("preemption: %s", msg);
	free(msg);
	free(statuses);
	return -1;
}

int sk_preempt(sk_cache *c, sk_spod *p, json_t *runtime_class, const sk_result *failed, sk_preemption *out)
{
	struct candidate best = {0}, cand;
	sk_fit *statuses;
	sk_cycle cy;

	memset(out, 0, sizeof(*out));
	if (p->preempt_never) {
		out->message = xstrdup("preemption: " SK_MSG_PREEMPT_NEVER);
		return -1;
	}
	if (terminating_on_nominated(c, p)) {
		out->message = xstrdup("preemption: " SK_MSG_PREEMPT_TERMINATING);
		return -1;
	}
	if (!failed->fits || c->nnodes == 0) {
		out->message = xstrdup("preemption: no nodes available to schedule pods");
		return -1;
	}
	statuses = xzalloc(c->nnodes * sizeof(*statuses));
	sk_cycle_init(&cy, c, p, runtime_class);
	for (int i = 0; i < c->nnodes; i++) {
		sk_snode *n = c->nodes[i];
		const sk_fit *f = n->idx < failed->nfits ? &failed->fits[n->idx] : NULL;

		if (!f || f->code == SK_FIT_UNRESOLVABLE || f->code == SK_FIT_OK) {
			statuses[i].code = SK_FIT_UNRESOLVABLE;
			statuses[i].n = 1;
			statuses[i].reasons[0] = SK_MSG_PREEMPT_NOT_HELPFUL;
			continue;
		}
		memset(&cand, 0, sizeof(cand));
		if (!select_victims(&cy, n, &cand, &statuses[i]))
			continue;
		if (!best.node || better(&cand, &best)) {
			free(best.victims);
			best = cand;
		} else {
			free(cand.victims);
		}
	}
	sk_cycle_release(&cy);
	if (!best.node)
		return no_candidate(out, statuses, c->nnodes);
	free(statuses);
	out->node = best.node;
	out->victims = best.victims;
	out->nvictims = best.n;
	return 0;
}

void sk_preemption_release(sk_preemption *r)
{
	free(r->victims);
	free(r->message);
	memset(r, 0, sizeof(*r));
}
