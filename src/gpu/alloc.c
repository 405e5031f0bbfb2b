/* Allocations: which container holds which device slots, persisted to
 * <data_dir>/gpu/allocations.json on every change so a restarted agent
 * never hands a device out twice. */
#include <errno.h>
#include <string.h>

#include "gpu/gpu-int.h"
#include "util/util.h"

#define STATE_VERSION 1

static void alloc_release(struct sk__gpu_alloc *a)
{
	size_t i;

	for (i = 0; i < a->n_slots; i++)
		free(a->slots[i].uuid);
	free(a->slots);
	free(a->container_id);
	free(a->pod_uid);
	free(a->container);
}

void sk__gpu_allocs_free(struct sk_gpu *g)
{
	size_t i;

	for (i = 0; i < g->n_allocs; i++)
		alloc_release(&g->allocs[i]);
	free(g->allocs);
	g->allocs = NULL;
	g->n_allocs = 0;
}

struct sk__gpu_alloc *sk__gpu_alloc_find(struct sk_gpu *g, const char *container_id)
{
	size_t i;

	for (i = 0; i < g->n_allocs; i++)
		if (!strcmp(g->allocs[i].container_id, container_id))
			return &g->allocs[i];
	return NULL;
}

int sk__gpu_device_find(struct sk_gpu *g, const char *uuid)
{
	size_t i;

	for (i = 0; i < g->t.n; i++)
		if (!strcmp(g->t.devs[i].uuid, uuid))
			return (int)i;
	return -1;
}

static json_t *state_json(struct sk_gpu *g)
{
	json_t *arr = json_array();
	size_t i, j;

	for (i = 0; i < g->n_allocs; i++) {
		struct sk__gpu_alloc *a = &g->allocs[i];
		json_t *slots = json_array();

		for (j = 0; j < a->n_slots; j++)
			json_array_append_new(slots, json_pack("{s:s, s:i}", "uuid", a->slots[j].uuid, "replica",
							       a->slots[j].replica));
		json_array_append_new(arr, json_pack("{s:s, s:s, s:s, s:o}", "containerID", a->container_id, "podUID",
						     a->pod_uid, "container", a->container, "slots", slots));
	}
	return json_pack("{s:i, s:o}", "version", STATE_VERSION, "allocations", arr);
}

static int state_save(struct sk_gpu *g, sk_error_t *err)
{
	cleanup_json json_t *j = state_json(g);
	cleanup_free char *s = json_dumps(j, JSON_INDENT(1) | JSON_SORT_KEYS);

	if (!s || sk_write_file(g->state_path, s, strlen(s), 0600) < 0)
		return sk_error_errno(err, errno, "gpu: writing \"%s\"", g->state_path);
	return 0;
}

static int alloc_from_json(struct sk__gpu_alloc *a, json_t *o)
{
	const char *id = NULL, *pod = "", *ctr = "";
	json_t *slots = NULL, *s;
	size_t i;

	if (json_unpack(o, "{s:s, s?s, s?s, s:o}", "containerID", &id, "podUID", &pod, "container", &ctr, "slots",
			&slots) < 0 ||
	    !json_is_array(slots))
		return -1;
	memset(a, 0, sizeof(*a));
	a->container_id = xstrdup(id);
	a->pod_uid = xstrdup(pod);
	a->container = xstrdup(ctr);
	a->slots = xzalloc((json_array_size(slots) + 1) * sizeof(*a->slots));
	json_array_foreach(slots, i, s) {
		const char *uuid = NULL;
		int replica = 0;

		if (json_unpack(s, "{s:s, s?i}", "uuid", &uuid, "replica", &replica) < 0) {
			alloc_release(a);
			return -1;
		}
		a->slots[a->n_slots].uuid = xstrdup(uuid);
		a->slots[a->n_slots++].replica = replica;
	}
	return 0;
}

int sk__gpu_state_load(struct sk_gpu *g, sk_error_t *err)
{
	cleanup_free char *s = sk_read_file(g->state_path, NULL);
	cleanup_json json_t *j = NULL;
	json_t *arr, *o;
	json_error_t je;
	size_t i;

	if (!s)
		return errno == ENOENT ? 0 : sk_error_errno(err, errno, "gpu: reading \"%s\"", g->state_path);
	j = json_loads(s, 0, &je);
	arr = json_object_get(j, "allocations");
	if (!json_is_array(arr))
		return sk_error_set(err, SK_EINTERNAL, "gpu: \"%s\": not an allocations file", g->state_path);
	g->allocs = xzalloc((json_array_size(arr) + 1) * sizeof(*g->allocs));
	json_array_foreach(arr, i, o) {
		if (alloc_from_json(&g->allocs[g->n_allocs], o) < 0)
			return sk_error_set(err, SK_EINTERNAL, "gpu: \"%s\": bad allocation %zu", g->state_path, i);
		g->n_allocs++;
	}
	return 0;
}

/* How many allocations hold slot (dev, replica); per device in use[]. */
static bool slot_taken(struct sk_gpu *g, const char *uuid, int replica)
{
	size_t i, j;

	for (i = 0; i < g->n_allocs; i++)
		for (j = 0; j < g->allocs[i].n_slots; j++)
			if (g->allocs[i].slots[j].replica == replica && !strcmp(g->allocs[i].slots[j].uuid, uuid))
				return true;
	return false;
}

static int free_replica(struct sk_gpu *g, size_t dev, const struct sk__gpu_slot *picked, size_t n_picked)
{
	int r;
	size_t k;

	for (r = 0; r < g->replicas; r++) {
		bool mine = false;

		for (k = 0; k < n_picked; k++)
			if (picked[k].replica == r && !strcmp(picked[k].uuid, g->t.devs[dev].uuid))
				mine = true;
		if (!mine && !slot_taken(g, g->t.devs[dev].uuid, r))
			return r;
	}
	return -1;
}

/* Free replicas of device dev: replicas minus every slot held on it (by
 * allocations, whatever their replica number, so lowering --gpu-replicas
 * never overcommits a device, and by this request's picks so far). */
static int free_count(struct sk_gpu *g, size_t dev, const struct sk__gpu_slot *picked, size_t n_picked)
{
	const char *uuid = g->t.devs[dev].uuid;
	size_t i, j, used = 0;

	for (i = 0; i < g->n_allocs; i++)
		for (j = 0; j < g->allocs[i].n_slots; j++)
			used += !strcmp(g->allocs[i].slots[j].uuid, uuid);
	for (j = 0; j < n_picked; j++)
		used += !strcmp(picked[j].uuid, uuid);
	return used >= (size_t)g->replicas ? 0 : g->replicas - (int)used;
}

/* Picks one slot: the healthy device with the most free replicas not yet
 * picked for this container (spreading a time-sliced request over devices),
 * lowest index first. */
static int pick_slot(struct sk_gpu *g, struct sk__gpu_slot *picked, size_t n_picked)
{
	int best = -1, best_free = 0, best_mine = 0;
	size_t d, k;

	for (d = 0; d < g->t.n; d++) {
		int nfree, mine = 0;

		if (!g->t.devs[d].healthy)
			continue;
		nfree = free_count(g, d, picked, n_picked);
		for (k = 0; k < n_picked; k++)
			mine += !strcmp(picked[k].uuid, g->t.devs[d].uuid);
		if (nfree == 0)
			continue;
		if (best < 0 || mine < best_mine || (mine == best_mine && nfree > best_free)) {
			best = (int)d;
			best_free = nfree;
			best_mine = mine;
		}
	}
	if (best < 0)
		return -1;
	picked[n_picked].replica = free_replica(g, (size_t)best, picked, n_picked);
	picked[n_picked].uuid = xstrdup(g->t.devs[best].uuid);
	return 0;
}

static size_t available(struct sk_gpu *g)
{
	size_t d, n = 0;

	for (d = 0; d < g->t.n; d++)
		if (g->t.devs[d].healthy)
			n += (size_t)free_count(g, d, NULL, 0);
	return n;
}

/* The allocation of an earlier attempt of the same container of the same
 * pod: a restarted container keeps its devices, as with kubelet. */
static struct sk__gpu_alloc *previous_attempt(struct sk_gpu *g, const char *pod_uid, const char *ctr)
{
	size_t i;

	if (!pod_uid || !*pod_uid || !ctr || !*ctr)
		return NULL;
	for (i = 0; i < g->n_allocs; i++)
		if (!strcmp(g->allocs[i].pod_uid, pod_uid) && !strcmp(g->allocs[i].container, ctr))
			return &g->allocs[i];
	return NULL;
}

static int allocate_locked(struct sk_gpu *g, const char *id, const char *pod_uid, const char *ctr, int64_t n,
			   sk_error_t *err)
{
	struct sk__gpu_alloc *a = sk__gpu_alloc_find(g, id);
	struct sk__gpu_slot *picked;
	size_t i;

	if (!a && (a = previous_attempt(g, pod_uid, ctr))) {
		sk_info("gpu", "container %s inherits the devices of %s (same pod container)", id, a->container_id);
		free(a->container_id);
		a->container_id = xstrdup(id);
		if ((int64_t)a->n_slots == n)
			return state_save(g, err);
	}
	if (a) {
		if ((int64_t)a->n_slots != n)
			return sk_error_set(err, SK_ECONFLICT, "container \"%s\" already holds %zu " SK_GPU_RESOURCE,
					    id, a->n_slots);
		return 0;
	}
	if (n > (int64_t)available(g))
		return sk_error_set(
			err, SK_EUNAVAILABLE,
			"Allocate failed due to requested number of devices unavailable for " SK_GPU_RESOURCE
			". Requested: %lld, Available: %zu, which is unexpected",
			(long long)n, available(g));
	picked = xzalloc(((size_t)n + 1) * sizeof(*picked));
	for (i = 0; i < (size_t)n; i++)
		if (pick_slot(g, picked, i) < 0)
			abort(); /* available() said there were enough */
	g->allocs = xrealloc(g->allocs, (g->n_allocs + 1) * sizeof(*g->allocs));
	a = &g->allocs[g->n_allocs++];
	a->container_id = xstrdup(id);
	a->pod_uid = xstrdup(pod_uid ? pod_uid : "");
	a->container = xstrdup(ctr ? ctr : "");
	a->slots = picked;
	a->n_slots = (size_t)n;
	if (state_save(g, err) < 0) {
		alloc_release(a);
		g->n_allocs--;
		return -1;
	}
	return 0;
}

int sk_gpu_allocate(sk_gpu *g, const char *container_id, const char *pod_uid, const char *container_name, int64_t n,
		    sk_error_t *err)
{
	int r;

	if (n <= 0)
		return 0;
	pthread_mutex_lock(&g->mu);
	r = allocate_locked(g, container_id, pod_uid, container_name, n, err);
	pthread_mutex_unlock(&g->mu);
	if (r < 0 && err->code != SK_EUNAVAILABLE)
		return sk_error_wrap(err, "allocating %lld " SK_GPU_RESOURCE " to container \"%s\"", (long long)n,
				     container_id);
	return r;
}

static void remove_at(struct sk_gpu *g, size_t i)
{
	alloc_release(&g->allocs[i]);
	memmove(&g->allocs[i], &g->allocs[i + 1], (g->n_allocs - i - 1) * sizeof(*g->allocs));
	g->n_allocs--;
}

int sk_gpu_release(sk_gpu *g, const char *container_id, sk_error_t *err)
{
	struct sk__gpu_alloc *a;
	int r = 0;

	pthread_mutex_lock(&g->mu);
	a = sk__gpu_alloc_find(g, container_id);
	if (a) {
		remove_at(g, (size_t)(a - g->allocs));
		r = state_save(g, err) < 0 ? -1 : 1;
	}
	pthread_mutex_unlock(&g->mu);
	return r;
}

int sk_gpu_release_pod(sk_gpu *g, const char *pod_uid, sk_error_t *err)
{
	size_t i = 0;
	int freed = 0;

	pthread_mutex_lock(&g->mu);
	while (i < g->n_allocs) {
		if (strcmp(g->allocs[i].pod_uid, pod_uid)) {
			i++;
			continue;
		}
		remove_at(g, i);
		freed++;
	}
	if (freed && state_save(g, err) < 0)
		freed = -1;
	pthread_mutex_unlock(&g->mu);
	return freed;
}

static bool is_live(const char *id, const char *const *live)
{
	for (; live && *live; live++)
		if (!strcmp(*live, id))
			return true;
	return false;
}

int sk_gpu_reconcile(sk_gpu *g, const char *const *live_ids, sk_error_t *err)
{
	size_t i = 0;
	int freed = 0;

	pthread_mutex_lock(&g->mu);
	while (i < g->n_allocs) {
		if (is_live(g->allocs[i].container_id, live_ids)) {
			i++;
			continue;
		}
		sk_info("gpu", "freeing the devices of gone container %s", g->allocs[i].container_id);
		remove_at(g, i);
		freed++;
	}
	if (freed && state_save(g, err) < 0)
		freed = -1;
	pthread_mutex_unlock(&g->mu);
	return freed;
}

/* The distinct UUIDs of an allocation in slot order. */
static json_t *alloc_uuids(const struct sk__gpu_alloc *a)
{
	json_t *arr = json_array();
	size_t i, j;

	for (i = 0; i < a->n_slots; i++) {
		bool dup = false;

		for (j = 0; j < i; j++)
			dup = dup || !strcmp(a->slots[j].uuid, a->slots[i].uuid);
		if (!dup)
			json_array_append_new(arr, json_string(a->slots[i].uuid));
	}
	return arr;
}

json_t *sk_gpu_container_devices(sk_gpu *g, const char *container_id)
{
	struct sk__gpu_alloc *a;
	json_t *r = NULL;

	pthread_mutex_lock(&g->mu);
	a = sk__gpu_alloc_find(g, container_id);
	if (a)
		r = alloc_uuids(a);
	pthread_mutex_unlock(&g->mu);
	return r;
}

json_t *sk_gpu_pod_devices(sk_gpu *g, const char *pod_uid)
{
	json_t *r = json_object();
	size_t i;

	pthread_mutex_lock(&g->mu);
	for (i = 0; i < g->n_allocs; i++)
		if (!strcmp(g->allocs[i].pod_uid, pod_uid))
			json_object_set_new(r, g->allocs[i].container, alloc_uuids(&g->allocs[i]));
	pthread_mutex_unlock(&g->mu);
	return r;
}

char *sk_gpu_pod_annotation(sk_gpu *g, const char *pod_uid)
{
	cleanup_json json_t *o = sk_gpu_pod_devices(g, pod_uid);

	if (json_object_size(o) == 0)
		return NULL;
	return json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS);
}
