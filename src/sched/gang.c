#include "sched/gang.h"

#include <string.h>

#include "util/util.h"

static const char *jstr(json_t *o, const char *k) { return json_string_value(json_object_get(o, k)); }

void sk_gangs_init(sk_gangs *g) { sk__smap_init(&g->map); }

static void gang_free(sk_gang *x)
{
	free(x->key);
	free(x->ns);
	free(x->name);
	json_decref(x->obj);
	sk__smap_release(&x->members);
	free(x->waiting);
	free(x->last_status);
	free(x);
}

static void free_cb(const char *key, void *val, void *ud) { gang_free(val); }

void sk_gangs_release(sk_gangs *g)
{
	sk__smap_each(&g->map, free_cb, NULL);
	sk__smap_release(&g->map);
}

static sk_gang *get_or_new(sk_gangs *g, const char *ns, const char *name)
{
	char *key = xasprintf("%s/%s", ns, name);
	sk_gang *x = sk__smap_get(&g->map, key);

	if (x) {
		free(key);
		return x;
	}
	x = xzalloc(sizeof(*x));
	x->key = key;
	x->ns = xstrdup(ns);
	x->name = xstrdup(name);
	x->timeout_s = SK_GANG_DEFAULT_TIMEOUT_S;
	sk__smap_init(&x->members);
	sk__smap_put(&g->map, key, x);
	return x;
}

static void maybe_drop(sk_gangs *g, sk_gang *x)
{
	if (x->obj || x->members.n || x->nwaiting)
		return;
	sk__smap_del(&g->map, x->key);
	gang_free(x);
}

void sk_gangs_podgroup_upsert(sk_gangs *g, json_t *pg)
{
	json_t *meta = json_object_get(pg, "metadata"), *spec = json_object_get(pg, "spec");
	const char *ns = jstr(meta, "namespace"), *name = jstr(meta, "name");
	json_t *t = json_object_get(spec, "scheduleTimeoutSeconds");
	sk_gang *x;

	if (!name)
		return;
	x = get_or_new(g, ns ? ns : "default", name);
	json_decref(x->obj);
	x->obj = json_incref(pg);
	x->min_member = (int)json_integer_value(json_object_get(spec, "minMember"));
	x->timeout_s = json_is_integer(t) && json_integer_value(t) > 0 ? json_integer_value(t)
								       : SK_GANG_DEFAULT_TIMEOUT_S;
}

void sk_gangs_podgroup_delete(sk_gangs *g, const char *ns, const char *name)
{
	char *key = xasprintf("%s/%s", ns, name);
	sk_gang *x = sk__smap_get(&g->map, key);

	free(key);
	if (!x)
		return;
	json_decref(x->obj);
	x->obj = NULL;
	maybe_drop(g, x);
}

static void waiting_replace(sk_gang *x, const char *key, sk_spod *p)
{
	for (int i = 0; i < x->nwaiting; i++)
		if (strcmp(x->waiting[i]->key, key) == 0) {
			if (p) {
				x->waiting[i] = p;
			} else {
				x->waiting[i] = x->waiting[--x->nwaiting];
			}
			return;
		}
}

void sk_gangs_pod_set(sk_gangs *g, sk_spod *p)
{
	sk_gang *x;

	if (!p->group)
		return;
	x = get_or_new(g, p->ns, p->group);
	sk__smap_put(&x->members, p->key, p);
	waiting_replace(x, p->key, p);
}

void sk_gangs_pod_remove(sk_gangs *g, const sk_spod *p)
{
	char *key;
	sk_gang *x;

	if (!p->group)
		return;
	key = xasprintf("%s/%s", p->ns, p->group);
	x = sk__smap_get(&g->map, key);
	free(key);
	if (!x)
		return;
	sk__smap_del(&x->members, p->key);
	waiting_replace(x, p->key, NULL);
	maybe_drop(g, x);
}

sk_gang *sk_gangs_for_pod(const sk_gangs *g, const sk_spod *p)
{
	char key[512];
	sk_gang *x;

	if (!p->group)
		return NULL;
	snprintf(key, sizeof(key), "%s/%s", p->ns, p->group);
	x = sk__smap_get(&g->map, key);
	return x && x->obj ? x : NULL;
}

static void count_cb(const char *key, void *val, void *ud)
{
	const sk_spod *p = val;
	struct sk_gang_counts *c = ud;
	const char *phase = jstr(json_object_get(p->obj, "status"), "phase");

	c->total++;
	if (p->node_name && !p->reserved)
		c->scheduled++;
	if (!phase)
		return;
	if (strcmp(phase, "Running") == 0)
		c->running++;
	else if (strcmp(phase, "Succeeded") == 0)
		c->succeeded++;
	else if (strcmp(phase, "Failed") == 0)
		c->failed++;
}

void sk_gang_counts(const sk_gang *g, struct sk_gang_counts *c)
{
	memset(c, 0, sizeof(*c));
	sk__smap_each(&g->members, count_cb, c);
}

int sk_gang_scheduled(const sk_gang *g)
{
	int n = 0;

	for (size_t b = 0; b < g->members.cap; b++)
		for (sk_smap_ent *e = g->members.b[b]; e; e = e->next) {
			const sk_spod *p = e->val;

			n += p->node_name && !p->reserved;
		}
	return n;
}

int sk_gang_prefilter(const sk_gang *g, const sk_spod *p, char **msg)
{
	if ((int)g->members.n >= g->min_member)
		return 0;
	*msg = xasprintf("pre-filter pod %s cannot find enough sibling pods, current pods number: %d, "
			 "minMember of group: %d",
			 p->name, (int)g->members.n, g->min_member);
	return -1;
}

int sk_gang_reserve(sk_gang *g, sk_spod *p, int64_t now)
{
	if (g->nwaiting == g->cap_waiting) {
		g->cap_waiting = g->cap_waiting ? g->cap_waiting * 2 : 8;
		g->waiting = xrealloc(g->waiting, g->cap_waiting * sizeof(*g->waiting));
	}
	if (!g->nwaiting)
		g->wait_since = now;
	p->reserved = 1;
	g->waiting[g->nwaiting++] = p;
	return g->nwaiting >= g->min_member || sk_gang_scheduled(g) + g->nwaiting >= g->min_member;
}

sk_spod **sk_gang_take_waiting(sk_gang *g, int *n)
{
	sk_spod **out = g->waiting;

	*n = g->nwaiting;
	for (int i = 0; i < g->nwaiting; i++)
		out[i]->reserved = 0;
	g->waiting = NULL;
	g->nwaiting = g->cap_waiting = 0;
	return out;
}

int sk_gang_timed_out(const sk_gang *g, int64_t now)
{
	return g->nwaiting && now - g->wait_since >= sk_ns_after(0, g->timeout_s);
}

/* Go's time.Duration String for whole seconds: "45s", "1m0s", "1h2m3s". */
static void go_duration(int64_t s, char *buf, size_t len)
{
	if (s >= 3600)
		snprintf(buf, len, "%lldh%lldm%llds", (long long)(s / 3600), (long long)(s % 3600 / 60),
			 (long long)(s % 60));
	else if (s >= 60)
		snprintf(buf, len, "%lldm%llds", (long long)(s / 60), (long long)(s % 60));
	else
		snprintf(buf, len, "%llds", (long long)s);
}

char *sk_gang_timeout_message(const sk_gang *g)
{
	char d[32];

	go_duration(g->timeout_s, d, sizeof(d));
	return xasprintf("rejected due to timeout after waiting %s at plugin Coscheduling", d);
}

const char *sk_gang_phase(const sk_gang *g, const struct sk_gang_counts *c)
{
	int m = g->min_member;

	if (c->total < m || c->total == 0)
		return "Pending";
	if (c->succeeded >= m)
		return "Finished";
	if (c->failed > 0 && c->failed + c->running + c->succeeded >= m)
		return "Failed";
	if (c->running + c->succeeded >= m)
		return "Running";
	if (c->scheduled >= m)
		return "Scheduled";
	if (c->scheduled || g->nwaiting)
		return "Scheduling";
	return "PreScheduling";
}

json_t *sk_gang_status(const sk_gang *g)
{
	struct sk_gang_counts c;

	sk_gang_counts(g, &c);
	return json_pack("{s:s, s:i, s:i, s:i, s:i}", "phase", sk_gang_phase(g, &c), "scheduled", c.scheduled,
			 "running", c.running, "succeeded", c.succeeded, "failed", c.failed);
}
