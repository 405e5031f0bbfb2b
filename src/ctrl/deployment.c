/* The Deployment controller (after pkg/controller/deployment): owns one
 * ReplicaSet per pod template, rolls between them (RollingUpdate with
 * maxSurge/maxUnavailable, or Recreate), keeps revisions and history and
 * reports the Progressing and Available conditions. */
#include <stdlib.h>
#include <string.h>

#include "ctrl/ctrl-int.h"
#include "ctrl/rollout.h"
#include "util/util.h"

#define APPS "/apis/apps/v1"
#define REV "deployment.kubernetes.io/revision"
#define REV_HISTORY "deployment.kubernetes.io/revision-history"
#define DESIRED "deployment.kubernetes.io/desired-replicas"
#define MAXREP "deployment.kubernetes.io/max-replicas"
#define COMPONENT "deployment-controller"

typedef struct dctx {
	sk_controller *k;
	json_t *d;      /* cached deployment (read-only) */
	json_t *new_rs; /* owned reference or NULL */
	json_t *old;    /* array of old ReplicaSets */
	int64_t replicas, surge, unavail;
	int64_t requeue_ms;
} dctx;

static json_t *ann(json_t *o) { return sk_kube_jget(o, "metadata.annotations"); }

static const char *ann_str(json_t *o, const char *k) { return json_string_value(json_object_get(ann(o), k)); }

static int64_t ann_int(json_t *o, const char *k, int64_t def)
{
	const char *s = ann_str(o, k);

	return s ? strtoll(s, NULL, 10) : def;
}

static int64_t spec_replicas(json_t *rs) { return rs ? sk__jint(rs, "spec.replicas", 0) : 0; }

static int64_t created(json_t *o) { return sk__jtime(o, "metadata.creationTimestamp", 0); }

static int by_creation(const void *x, const void *y)
{
	json_t *a = *(json_t *const *)x, *b = *(json_t *const *)y;

	if (created(a) != created(b))
		return created(a) < created(b) ? -1 : 1;
	return strcmp(sk__name(a), sk__name(b));
}

static int by_revision(const void *x, const void *y)
{
	json_t *a = *(json_t *const *)x, *b = *(json_t *const *)y;
	int64_t ra = ann_int(a, REV, 0), rb = ann_int(b, REV, 0);

	if (ra != rb)
		return ra < rb ? -1 : 1;
	return by_creation(x, y);
}

/* Sorts a json array in place with cmp over its elements. */
static void sort_array(json_t *arr, int (*cmp)(const void *, const void *))
{
	size_t n = json_array_size(arr);
	json_t **v = xmalloc((n + 1) * sizeof(*v));

	for (size_t i = 0; i < n; i++)
		v[i] = json_incref(json_array_get(arr, i));
	qsort(v, n, sizeof(*v), cmp);
	json_array_clear(arr);
	for (size_t i = 0; i < n; i++)
		json_array_append_new(arr, v[i]);
	free(v);
}

static json_t *all_rss(dctx *x)
{
	json_t *all = json_array();

	json_array_extend(all, x->old);
	if (x->new_rs)
		json_array_append(all, x->new_rs);
	return all;
}

static int64_t sum(json_t *rss, const char *path, int spec)
{
	json_t *rs;
	size_t i;
	int64_t n = 0;

	json_array_foreach(rss, i, rs)
		n += spec ? spec_replicas(rs) : sk__jint(rs, path, 0);
	return n;
}

static int has_deadline(json_t *d)
{
	json_int_t p = sk__jint(d, "spec.progressDeadlineSeconds", 600);

	return p != 2147483647;
}

static int is_recreate(json_t *d)
{
	const char *t = sk_kube_jstr(d, "spec.strategy.type");

	return t && !strcmp(t, "Recreate");
}

/* Copies the deployment's annotations onto rs, skipping the ones upstream
 * keeps per object. Returns 1 when something changed. */
static int copy_annotations(json_t *d, json_t *rs)
{
	static const char *skip[] = {"kubectl.kubernetes.io/last-applied-configuration",
				     REV,
				     REV_HISTORY,
				     DESIRED,
				     MAXREP,
				     "deprecated.deployment.rollback.to",
				     NULL};
	json_t *a = sk_kube_jobj(rs, "metadata.annotations"), *v;
	const char *k;
	int changed = 0;

	json_object_foreach(ann(d), k, v) {
		int skipped = 0;

		for (int i = 0; skip[i]; i++)
			skipped |= !strcmp(k, skip[i]);
		if (skipped || json_equal(json_object_get(a, k), v))
			continue;
		json_object_set(a, k, v);
		changed = 1;
	}
	return changed;
}

static int set_replicas_annotations(json_t *rs, int64_t desired, int64_t max)
{
	json_t *a = sk_kube_jobj(rs, "metadata.annotations");
	char d[32], m[32];
	int changed = 0;

	snprintf(d, sizeof(d), "%lld", (long long)desired);
	snprintf(m, sizeof(m), "%lld", (long long)max);
	if (!ann_str(rs, DESIRED) || strcmp(ann_str(rs, DESIRED), d)) {
		json_object_set_new(a, DESIRED, json_string(d));
		changed = 1;
	}
	if (!ann_str(rs, MAXREP) || strcmp(ann_str(rs, MAXREP), m)) {
		json_object_set_new(a, MAXREP, json_string(m));
		changed = 1;
	}
	return changed;
}

/* upstream's SetNewReplicaSetAnnotations. */
static int set_new_rs_annotations(dctx *x, json_t *rs, int64_t new_rev, int exists)
{
	int changed = copy_annotations(x->d, rs);
	const char *old = ann_str(rs, REV);
	json_t *a = sk_kube_jobj(rs, "metadata.annotations");
	char buf[32];

	if (!old || strtoll(old, NULL, 10) < new_rev) {
		cleanup_free char *old_copy = old ? xstrdup(old) : NULL;

		snprintf(buf, sizeof(buf), "%lld", (long long)new_rev);
		json_object_set_new(a, REV, json_string(buf));
		changed = 1;
		if (exists && old_copy && *old_copy) {
			const char *h = ann_str(rs, REV_HISTORY);
			cleanup_free char *nh = h && *h ? xasprintf("%s,%s", h, old_copy) : xstrdup(old_copy);

			json_object_set_new(a, REV_HISTORY, json_string(nh));
		}
	}
	if (!exists && set_replicas_annotations(rs, x->replicas, x->replicas + x->surge))
		changed = 1;
	return changed;
}

static int update_rs(dctx *x, json_t *rs, sk_error_t *err)
{
	cleanup_free char *path = sk__path(APPS, "replicasets", sk__ns(rs), sk__name(rs), NULL);
	json_t *out = sk_client_update(x->k->ctl->c, path, rs, err);
	size_t i;
	json_t *o;

	if (!out)
		return -1;
	sk_informer_write(x->k->ctl->rs, out);
	if (x->new_rs && !strcmp(sk__uid(x->new_rs), sk__uid(out))) {
		json_decref(x->new_rs);
		x->new_rs = json_incref(out);
	}
	json_array_foreach(x->old, i, o)
		if (!strcmp(sk__uid(o), sk__uid(out)))
			json_array_set(x->old, i, out);
	json_decref(out);
	return 0;
}

/* Scales rs to n (updating replica annotations); returns 1 when it scaled,
 * 0 when nothing changed, -1 on error. */
static int scale_rs(dctx *x, json_t *rs, int64_t n, sk_error_t *err)
{
	cleanup_json json_t *c = json_deep_copy(rs);
	int64_t cur = spec_replicas(rs);
	int size = cur != n, annot = set_replicas_annotations(c, x->replicas, x->replicas + x->surge);

	if (!size && !annot)
		return 0;
	json_object_set_new(sk_kube_jobj(c, "spec"), "replicas", json_integer(n));
	if (update_rs(x, c, err) < 0)
		return -1;
	if (size)
		sk_event_record(x->k->ctl->c, x->d, "Normal", "ScalingReplicaSet", COMPONENT, NULL,
				"Scaled %s replica set %s from %lld to %lld", n > cur ? "up" : "down", sk__name(rs),
				(long long)cur, (long long)n);
	return size;
}

static int patch_deployment_revision(dctx *x, const char *rev)
{
	cleanup_free char *path = NULL;
	cleanup_json json_t *patch = NULL, *out = NULL;
	sk_error_t err = {0};

	if (!rev || (ann_str(x->d, REV) && !strcmp(ann_str(x->d, REV), rev)))
		return 0;
	path = sk__path(APPS, "deployments", sk__ns(x->d), sk__name(x->d), NULL);
	patch = json_pack("{s:{s:{s:s}}}", "metadata", "annotations", REV, rev);
	out = sk_client_patch(x->k->ctl->c, path, SK_PATCH_MERGE, patch, &err);
	if (!out)
		return -1;
	sk_informer_write(x->k->ctl->deploy, out);
	json_decref(x->d);
	x->d = json_incref(out);
	return 0;
}

static int update_status(dctx *x, json_t *d, sk_error_t *err)
{
	if (sk__update_status(x->k->ctl, x->k->ctl->deploy, APPS, "deployments", d, err) < 0)
		return -1;
	json_decref(x->d);
	x->d = sk_informer_get(x->k->ctl->deploy, sk__ns(d), sk__name(d));
	return x->d ? 0 : -1;
}

static int set_progressing(dctx *x, const char *st, const char *reason, const char *msg)
{
	cleanup_json json_t *d = json_deep_copy(x->d);
	sk_error_t err = {0};

	if (!has_deadline(d))
		return 0;
	sk__cond_set(sk_kube_jobj(d, "status"), "Progressing", st, reason, msg, 0, 1);
	return update_status(x, d, &err);
}

static int64_t max_old_revision(json_t *rss)
{
	json_t *rs;
	size_t i;
	int64_t max = 0;

	json_array_foreach(rss, i, rs)
		if (ann_int(rs, REV, 0) > max)
			max = ann_int(rs, REV, 0);
	return max;
}

/* Splits the owned ReplicaSets into the new one (template equal, oldest
 * first) and the old ones. */
static void split_rss(dctx *x, json_t *owned)
{
	json_t *rs, *tmpl = sk_kube_jget(x->d, "spec.template");
	size_t i;

	sort_array(owned, by_creation);
	x->old = json_array();
	json_array_foreach(owned, i, rs) {
		if (!x->new_rs && sk_rollout_template_equal(sk_kube_jget(rs, "spec.template"), tmpl))
			x->new_rs = json_incref(rs);
		else
			json_array_append(x->old, rs);
	}
}

static int sync_existing_new_rs(dctx *x, int64_t new_rev)
{
	cleanup_json json_t *c = json_deep_copy(x->new_rs);
	cleanup_free char *msg = NULL;
	sk_error_t err = {0};
	json_int_t mrs = sk__jint(x->d, "spec.minReadySeconds", 0);
	int changed = set_new_rs_annotations(x, c, new_rev, 1);

	if (sk__jint(c, "spec.minReadySeconds", 0) != mrs) {
		json_object_set_new(sk_kube_jobj(c, "spec"), "minReadySeconds", json_integer(mrs));
		changed = 1;
	}
	if (changed && update_rs(x, c, &err) < 0)
		return -1;
	if (patch_deployment_revision(x, ann_str(x->new_rs, REV)) < 0)
		return -1;
	if (has_deadline(x->d) && !sk_kube_condition_get(sk_kube_jget(x->d, "status"), "Progressing")) {
		msg = xasprintf("Found new replica set \"%s\"", sk__name(x->new_rs));
		return set_progressing(x, "True", "FoundNewReplicaSet", msg);
	}
	return 0;
}

static json_t *new_rs_object(dctx *x, const char *hash, int64_t new_rev, int64_t replicas)
{
	json_t *tmpl = json_deep_copy(sk_kube_jget(x->d, "spec.template"));
	json_t *sel = json_deep_copy(sk_kube_jget(x->d, "spec.selector"));
	json_t *rs = json_object(), *meta = json_object(), *spec = json_object();
	cleanup_free char *name = xasprintf("%s-%s", sk__name(x->d), hash);

	json_object_set_new(sk_kube_jobj(tmpl, "metadata.labels"), "pod-template-hash", json_string(hash));
	json_object_set_new(sk_kube_jobj(sel, "matchLabels"), "pod-template-hash", json_string(hash));
	json_object_set_new(rs, "apiVersion", json_string("apps/v1"));
	json_object_set_new(rs, "kind", json_string("ReplicaSet"));
	json_object_set_new(meta, "name", json_string(name));
	json_object_set_new(meta, "namespace", json_string(sk__ns(x->d)));
	json_object_set_new(meta, "labels", json_deep_copy(sk_kube_jget(tmpl, "metadata.labels")));
	json_object_set_new(meta, "ownerReferences", json_pack("[o]", sk__owner_ref(x->d, "apps/v1", "Deployment")));
	json_object_set_new(rs, "metadata", meta);
	json_object_set_new(spec, "replicas", json_integer(replicas));
	json_object_set_new(spec, "minReadySeconds", json_integer(sk__jint(x->d, "spec.minReadySeconds", 0)));
	json_object_set_new(spec, "selector", sel);
	json_object_set_new(spec, "template", tmpl);
	json_object_set_new(rs, "spec", spec);
	set_new_rs_annotations(x, rs, new_rev, 0);
	return rs;
}

static int bump_collision(dctx *x)
{
	cleanup_json json_t *d = json_deep_copy(x->d);
	sk_error_t err = {0};
	json_int_t cc = sk__jint(d, "status.collisionCount", 0);

	json_object_set_new(sk_kube_jobj(d, "status"), "collisionCount", json_integer(cc + 1));
	update_status(x, d, &err);
	return -1;
}

static int create_new_rs(dctx *x, int64_t new_rev)
{
	cleanup_json json_t *all = all_rss(x), *rs = NULL, *out = NULL, *existing = NULL;
	cleanup_free char *path = sk__path(APPS, "replicasets", sk__ns(x->d), NULL, NULL);
	cleanup_free char *msg = NULL;
	int64_t n = x->replicas;
	sk_error_t err = {0};
	char hash[16];

	if (!is_recreate(x->d))
		n = sk_rollout_new_rs_replicas(x->replicas, x->surge, sum(all, NULL, 1), 0);
	sk_rollout_hash(sk_kube_jget(x->d, "spec.template"), sk__jint(x->d, "status.collisionCount", -1), hash,
			sizeof(hash));
	rs = new_rs_object(x, hash, new_rev, n);
	out = sk_client_create(x->k->ctl->c, path, rs, &err);
	if (!out && err.code == SK_EEXISTS) {
		existing = sk_informer_get(x->k->ctl->rs, sk__ns(x->d), sk__name(rs));
		if (existing && sk_kube_controlled_by(existing, sk__uid(x->d)) &&
		    sk_rollout_template_equal(sk_kube_jget(existing, "spec.template"),
					      sk_kube_jget(x->d, "spec.template"))) {
			x->new_rs = json_incref(existing);
			return 0;
		}
		return bump_collision(x);
	}
	if (!out) {
		sk_event_record(x->k->ctl->c, x->d, "Warning", "FailedCreate", COMPONENT, NULL,
				"Failed to create new replica set \"%s\": %s", sk__name(rs), err.msg);
		return -1;
	}
	sk_informer_write(x->k->ctl->rs, out);
	x->new_rs = json_incref(out);
	if (n > 0)
		sk_event_record(x->k->ctl->c, x->d, "Normal", "ScalingReplicaSet", COMPONENT, NULL,
				"Scaled up replica set %s from 0 to %lld", sk__name(out), (long long)n);
	if (patch_deployment_revision(x, ann_str(out, REV)) < 0)
		return -1;
	msg = xasprintf("Created new replica set \"%s\"", sk__name(out));
	return set_progressing(x, "True", "NewReplicaSetCreated", msg);
}

/* upstream's getAllReplicaSetsAndSyncRevision. */
static int sync_revision(dctx *x, int create)
{
	int64_t new_rev = max_old_revision(x->old) + 1;

	if (x->new_rs)
		return sync_existing_new_rs(x, new_rev);
	if (!create)
		return 0;
	return create_new_rs(x, new_rev);
}

static void calc_status(dctx *x, json_t *st)
{
	cleanup_json json_t *all = all_rss(x);
	int64_t avail = sum(all, "status.availableReplicas", 0), total = sum(all, NULL, 1);
	int64_t unavail = total - avail, maxu = x->unavail;

	if (unavail < 0)
		unavail = 0;
	json_object_set_new(st, "observedGeneration", json_integer(sk__jint(x->d, "metadata.generation", 0)));
	json_object_set_new(st, "replicas", json_integer(sum(all, "status.replicas", 0)));
	json_object_set_new(st, "updatedReplicas", json_integer(sk__jint(x->new_rs, "status.replicas", 0)));
	json_object_set_new(st, "readyReplicas", json_integer(sum(all, "status.readyReplicas", 0)));
	json_object_set_new(st, "availableReplicas", json_integer(avail));
	json_object_set_new(st, "unavailableReplicas", json_integer(unavail));
	if (is_recreate(x->d) || x->replicas == 0)
		maxu = 0;
	if (maxu > x->replicas)
		maxu = x->replicas;
	if (avail >= x->replicas - maxu)
		sk__cond_set(st, "Available", "True", "MinimumReplicasAvailable",
			     "Deployment has minimum availability.", 0, 1);
	else
		sk__cond_set(st, "Available", "False", "MinimumReplicasUnavailable",
			     "Deployment does not have minimum availability.", 0, 1);
}

static void drop_zero(json_t *st)
{
	static const char *keys[] = {"replicas",          "updatedReplicas",     "readyReplicas",
				     "availableReplicas", "unavailableReplicas", NULL};

	for (int i = 0; keys[i]; i++)
		if (json_integer_value(json_object_get(st, keys[i])) == 0)
			json_object_del(st, keys[i]);
}

static int sync_status_only(dctx *x)
{
	cleanup_json json_t *d = json_deep_copy(x->d);
	sk_error_t err = {0};

	calc_status(x, sk_kube_jobj(d, "status"));
	drop_zero(sk_kube_jobj(d, "status"));
	if (json_equal(json_object_get(d, "status"), json_object_get(x->d, "status")))
		return 0;
	return update_status(x, d, &err);
}

static int complete(json_t *d, json_t *st, int64_t replicas)
{
	return sk__jint(st, "updatedReplicas", 0) == replicas && sk__jint(st, "replicas", 0) == replicas &&
	       sk__jint(st, "availableReplicas", 0) == replicas &&
	       sk__jint(st, "observedGeneration", 0) >= sk__jint(d, "metadata.generation", 0);
}

static int progressing(json_t *old, json_t *st)
{
	int64_t oo = sk__jint(old, "replicas", 0) - sk__jint(old, "updatedReplicas", 0);
	int64_t no = sk__jint(st, "replicas", 0) - sk__jint(st, "updatedReplicas", 0);

	return sk__jint(st, "updatedReplicas", 0) > sk__jint(old, "updatedReplicas", 0) || no < oo ||
	       sk__jint(st, "readyReplicas", 0) > sk__jint(old, "readyReplicas", 0) ||
	       sk__jint(st, "availableReplicas", 0) > sk__jint(old, "availableReplicas", 0);
}

static int timed_out(json_t *d, json_t *st, int64_t *left_ms)
{
	json_t *c = sk_kube_condition_get(st, "Progressing");
	const char *reason = json_string_value(json_object_get(c, "reason"));
	int64_t pds = sk__jint(d, "spec.progressDeadlineSeconds", 600), from, now = sk__now();

	*left_ms = -1;
	if (!has_deadline(d) || !c || !reason || !strcmp(reason, "NewReplicaSetAvailable"))
		return 0;
	if (!strcmp(reason, "ProgressDeadlineExceeded"))
		return 1;
	from = sk__jtime(c, "lastUpdateTime", now);
	if (from + pds < now)
		return 1;
	*left_ms = (from + pds - now) * 1000 + 1000;
	return 0;
}

static void rs_failure_cond(dctx *x, json_t *st)
{
	cleanup_json json_t *all = all_rss(x);
	json_t *rs, *c;
	size_t i;

	json_array_foreach(all, i, rs) {
		c = sk_kube_condition_get(sk_kube_jget(rs, "status"), "ReplicaFailure");
		if (c) {
			sk__cond_set(st, "ReplicaFailure", json_string_value(json_object_get(c, "status")),
				     json_string_value(json_object_get(c, "reason")),
				     json_string_value(json_object_get(c, "message")), 0, 1);
			return;
		}
	}
	sk_kube_condition_remove(st, "ReplicaFailure");
}

static void set_progress_cond(dctx *x, json_t *old_st, json_t *st)
{
	json_t *cur = sk_kube_condition_get(st, "Progressing");
	const char *reason = json_string_value(json_object_get(cur, "reason"));
	const char *rsname = x->new_rs ? sk__name(x->new_rs) : NULL;
	cleanup_free char *msg = NULL;
	int64_t left;

	if (sk__jint(st, "updatedReplicas", 0) == x->replicas && reason && !strcmp(reason, "NewReplicaSetAvailable"))
		return;
	if (complete(x->d, st, x->replicas)) {
		msg = rsname ? xasprintf("ReplicaSet \"%s\" has successfully progressed.", rsname)
			     : xasprintf("Deployment \"%s\" has successfully progressed.", sk__name(x->d));
		sk__cond_set(st, "Progressing", "True", "NewReplicaSetAvailable", msg, 0, 1);
	} else if (progressing(old_st, st)) {
		msg = rsname ? xasprintf("ReplicaSet \"%s\" is progressing.", rsname)
			     : xasprintf("Deployment \"%s\" is progressing.", sk__name(x->d));
		sk__cond_set(st, "Progressing", "True", "ReplicaSetUpdated", msg, 0, 1);
		json_object_set_new(sk_kube_condition_get(st, "Progressing"), "lastUpdateTime",
				    sk__time_json(sk__now()));
	} else if (timed_out(x->d, st, &left)) {
		msg = rsname ? xasprintf("ReplicaSet \"%s\" has timed out progressing.", rsname)
			     : xasprintf("Deployment \"%s\" has timed out progressing.", sk__name(x->d));
		sk__cond_set(st, "Progressing", "False", "ProgressDeadlineExceeded", msg, 0, 1);
	} else if (left >= 0) {
		x->requeue_ms = left;
	}
}

/* upstream's syncRolloutStatus. */
static int sync_rollout_status(dctx *x)
{
	cleanup_json json_t *d = json_deep_copy(x->d);
	json_t *st = sk_kube_jobj(d, "status");
	sk_error_t err = {0};

	calc_status(x, st);
	if (!has_deadline(d))
		sk_kube_condition_remove(st, "Progressing");
	else
		set_progress_cond(x, json_object_get(x->d, "status"), st);
	rs_failure_cond(x, st);
	drop_zero(st);
	if (json_equal(st, json_object_get(x->d, "status")))
		return 0;
	return update_status(x, d, &err);
}

static json_t *active_rss(json_t *rss)
{
	json_t *out = json_array(), *rs;
	size_t i;

	json_array_foreach(rss, i, rs)
		if (spec_replicas(rs) > 0)
			json_array_append(out, rs);
	return out;
}

static int cleanup_history(dctx *x)
{
	json_int_t limit = sk__jint(x->d, "spec.revisionHistoryLimit", 10);
	cleanup_json json_t *c = json_array();
	json_t *rs;
	size_t i;
	long diff;

	json_array_foreach(x->old, i, rs)
		if (!sk__is_deleting(rs))
			json_array_append(c, rs);
	diff = (long)json_array_size(c) - (long)limit;
	if (diff <= 0)
		return 0;
	sort_array(c, by_revision);
	for (long j = 0; j < diff; j++) {
		cleanup_free char *path = NULL;
		sk_error_t err = {0};

		rs = json_array_get(c, (size_t)j);
		if (sk__jint(rs, "status.replicas", 0) || spec_replicas(rs) ||
		    sk__jint(rs, "metadata.generation", 0) > sk__jint(rs, "status.observedGeneration", 0))
			continue;
		path = sk__path(APPS, "replicasets", sk__ns(rs), sk__name(rs), NULL);
		if (sk_client_delete(x->k->ctl->c, path, NULL, &err) == 0)
			sk_informer_forget(x->k->ctl->rs, rs);
	}
	return 0;
}

static int by_size_newer(const void *a, const void *b)
{
	json_t *x = *(json_t *const *)a, *y = *(json_t *const *)b;

	if (spec_replicas(x) != spec_replicas(y))
		return spec_replicas(x) > spec_replicas(y) ? -1 : 1;
	return -by_creation(a, b);
}

static int by_size_older(const void *a, const void *b)
{
	json_t *x = *(json_t *const *)a, *y = *(json_t *const *)b;

	if (spec_replicas(x) != spec_replicas(y))
		return spec_replicas(x) > spec_replicas(y) ? -1 : 1;
	return by_creation(a, b);
}

static int saturated(dctx *x)
{
	return x->new_rs && spec_replicas(x->new_rs) == x->replicas && ann_int(x->new_rs, DESIRED, -1) == x->replicas &&
	       sk__jint(x->new_rs, "status.availableReplicas", 0) == x->replicas;
}

static int proportional_scale(dctx *x, json_t *active)
{
	int64_t allowed = x->replicas > 0 ? x->replicas + x->surge : 0;
	int64_t to_add = allowed - sum(active, NULL, 1), added = 0;
	size_t n = json_array_size(active), i;
	int64_t *size = xzalloc((n + 1) * sizeof(*size));
	sk_error_t err = {0};
	int rc = 0;

	sort_array(active, to_add > 0 ? by_size_newer : by_size_older);
	for (i = 0; i < n; i++) {
		json_t *rs = json_array_get(active, i);
		int64_t annotated = ann_int(rs, MAXREP, sk__jint(x->d, "status.replicas", 0));
		int64_t p = sk_rollout_proportion(spec_replicas(rs), annotated, allowed, to_add, added);

		size[i] = spec_replicas(rs) + p;
		added += p;
	}
	for (i = 0; i < n; i++) {
		if (i == 0 && to_add != 0) {
			size[i] += to_add - added;
			if (size[i] < 0)
				size[i] = 0;
		}
		if (scale_rs(x, json_array_get(active, i), size[i], &err) < 0)
			rc = -1;
	}
	free(size);
	return rc;
}

/* upstream's scale(): a change of spec.replicas outside a rollout. */
static int scale(dctx *x)
{
	cleanup_json json_t *olds = json_array(), *all = NULL, *active = NULL;
	json_t *rs;
	size_t i;
	sk_error_t err = {0};

	json_array_extend(olds, x->old);
	sort_array(olds, by_creation);
	all = json_array();
	json_array_extend(all, olds);
	if (x->new_rs)
		json_array_append(all, x->new_rs);
	active = active_rss(all);
	if (json_array_size(active) <= 1) {
		json_t *t = json_array_size(active) ? json_array_get(active, 0) : x->new_rs;

		if (!t && json_array_size(olds))
			t = json_array_get(olds, json_array_size(olds) - 1);
		if (!t || spec_replicas(t) == x->replicas)
			return 0;
		return scale_rs(x, t, x->replicas, &err) < 0 ? -1 : 0;
	}
	if (saturated(x)) {
		json_array_foreach(olds, i, rs)
			if (spec_replicas(rs) > 0 && scale_rs(x, rs, 0, &err) < 0)
				return -1;
		return 0;
	}
	if (is_recreate(x->d))
		return 0;
	return proportional_scale(x, active);
}

static int scaling_event(dctx *x)
{
	cleanup_json json_t *all = all_rss(x), *active = active_rss(all);
	json_t *rs;
	size_t i;

	json_array_foreach(active, i, rs) {
		int64_t want = ann_int(rs, DESIRED, -1);

		if (want >= 0 && want != x->replicas)
			return 1;
	}
	return 0;
}

static int reconcile_new(dctx *x)
{
	cleanup_json json_t *all = all_rss(x);
	int64_t cur = spec_replicas(x->new_rs), n;
	sk_error_t err = {0};

	if (cur == x->replicas)
		return 0;
	if (cur > x->replicas)
		return scale_rs(x, x->new_rs, x->replicas, &err);
	n = sk_rollout_new_rs_replicas(x->replicas, x->surge, sum(all, NULL, 1), cur);
	return scale_rs(x, x->new_rs, n, &err);
}

static int cleanup_unhealthy(dctx *x, json_t *olds, int64_t max, int64_t *done)
{
	json_t *rs;
	size_t i;
	sk_error_t err = {0};

	*done = 0;
	json_array_foreach(olds, i, rs) {
		int64_t r = spec_replicas(rs), avail = sk__jint(rs, "status.availableReplicas", 0), n;

		if (*done >= max)
			break;
		if (r == 0 || avail == r)
			continue;
		n = max - *done < r - avail ? max - *done : r - avail;
		if (scale_rs(x, rs, r - n, &err) < 0)
			return -1;
		*done += n;
	}
	return 0;
}

static int scale_down_old(dctx *x, json_t *olds, int64_t *done)
{
	cleanup_json json_t *all = all_rss(x);
	int64_t min_avail = x->replicas - x->unavail, avail = sum(all, "status.availableReplicas", 0), total;
	json_t *rs;
	size_t i;
	sk_error_t err = {0};

	*done = 0;
	if (avail <= min_avail)
		return 0;
	total = avail - min_avail;
	json_array_foreach(olds, i, rs) {
		int64_t r = spec_replicas(rs), n;

		if (*done >= total)
			break;
		if (r == 0)
			continue;
		n = r < total - *done ? r : total - *done;
		if (scale_rs(x, rs, r - n, &err) < 0)
			return -1;
		*done += n;
	}
	return 0;
}

static int reconcile_old(dctx *x)
{
	cleanup_json json_t *all = all_rss(x), *olds = active_rss(x->old);
	int64_t old_pods = sum(olds, NULL, 1), maxdown, cleaned = 0, down = 0;

	if (old_pods == 0)
		return 0;
	maxdown = sk_rollout_max_scaled_down(x->replicas, x->unavail, sum(all, NULL, 1), spec_replicas(x->new_rs),
					     sk__jint(x->new_rs, "status.availableReplicas", 0));
	if (maxdown <= 0)
		return 0;
	sort_array(olds, by_creation);
	if (cleanup_unhealthy(x, olds, maxdown, &cleaned) < 0)
		return -1;
	json_decref(olds);
	olds = active_rss(x->old);
	sort_array(olds, by_creation);
	if (scale_down_old(x, olds, &down) < 0)
		return -1;
	return cleaned + down > 0;
}

static int rollout_rolling(dctx *x)
{
	int r;
	json_t *st;

	if (sync_revision(x, 1) < 0)
		return -1;
	if ((r = reconcile_new(x)) < 0)
		return -1;
	if (r > 0)
		return sync_rollout_status(x);
	if ((r = reconcile_old(x)) < 0)
		return -1;
	if (r > 0)
		return sync_rollout_status(x);
	st = sk_kube_jget(x->d, "status");
	if (complete(x->d, st, x->replicas))
		cleanup_history(x);
	return sync_rollout_status(x);
}

static int old_pods_running(dctx *x)
{
	cleanup_json json_t *pods = sk_informer_list(x->k->ctl->pods, sk__ns(x->d));
	json_t *p, *rs;
	size_t i, j;

	json_array_foreach(pods, i, p) {
		if (sk__pod_terminal(p))
			continue;
		json_array_foreach(x->old, j, rs)
			if (sk_kube_controlled_by(p, sk__uid(rs)))
				return 1;
	}
	return 0;
}

static int rollout_recreate(dctx *x)
{
	cleanup_json json_t *olds = NULL;
	json_t *rs;
	size_t i;
	int scaled = 0, r;
	sk_error_t err = {0};

	if (sync_revision(x, 0) < 0)
		return -1;
	olds = active_rss(x->old);
	json_array_foreach(olds, i, rs) {
		if ((r = scale_rs(x, rs, 0, &err)) < 0)
			return -1;
		scaled |= r;
	}
	if (scaled || old_pods_running(x))
		return sync_rollout_status(x);
	if (!x->new_rs && sync_revision(x, 1) < 0)
		return -1;
	if (x->new_rs && spec_replicas(x->new_rs) != x->replicas && scale_rs(x, x->new_rs, x->replicas, &err) < 0)
		return -1;
	if (complete(x->d, sk_kube_jget(x->d, "status"), x->replicas))
		cleanup_history(x);
	return sync_rollout_status(x);
}

static int paused_conditions(dctx *x)
{
	json_t *c = sk_kube_condition_get(sk_kube_jget(x->d, "status"), "Progressing");
	const char *reason = json_string_value(json_object_get(c, "reason"));
	int paused = json_is_true(sk_kube_jget(x->d, "spec.paused"));

	if (!has_deadline(x->d))
		return 0;
	if (paused && (!reason || strcmp(reason, "DeploymentPaused")))
		return set_progressing(x, "Unknown", "DeploymentPaused", "Deployment is paused");
	if (!paused && reason && !strcmp(reason, "DeploymentPaused"))
		return set_progressing(x, "Unknown", "DeploymentResumed", "Deployment is resumed");
	return 0;
}

static int sync_only(dctx *x, int paused)
{
	if (sync_revision(x, 0) < 0 || scale(x) < 0)
		return -1;
	if (paused)
		cleanup_history(x);
	return sync_status_only(x);
}

static int run(dctx *x)
{
	sk_error_t err = {0};
	int paused;

	x->replicas = sk__jint(x->d, "spec.replicas", 1);
	if (sk_rollout_fenceposts(sk_kube_jget(x->d, "spec.strategy.rollingUpdate.maxSurge"),
				  sk_kube_jget(x->d, "spec.strategy.rollingUpdate.maxUnavailable"), x->replicas,
				  &x->surge, &x->unavail, &err) < 0)
		return 0;
	if (is_recreate(x->d))
		x->surge = x->unavail = 0;
	if (sk__is_deleting(x->d))
		return sync_status_only(x);
	if (paused_conditions(x) < 0)
		return -1;
	paused = json_is_true(sk_kube_jget(x->d, "spec.paused"));
	if (paused || scaling_event(x))
		return sync_only(x, paused);
	return is_recreate(x->d) ? rollout_recreate(x) : rollout_rolling(x);
}

static int sync_deployment(sk_controller *k, const char *key)
{
	char ns[256], name[256];
	cleanup_json json_t *owned = NULL;
	sk_kube_label_selector *sel;
	sk_error_t err = {0};
	dctx x = {.k = k, .requeue_ms = -1};
	int rc;

	sk__split_key(key, ns, sizeof(ns), name, sizeof(name));
	x.d = sk_informer_get(k->ctl->deploy, ns, name);
	if (!x.d)
		return 0;
	sel = sk_kube_label_selector_from_json(sk_kube_jget(x.d, "spec.selector"), &err);
	if (!sel || sk_kube_label_selector_empty(sel)) {
		sk_kube_label_selector_free(sel);
		json_decref(x.d);
		return 0;
	}
	owned = sk__claim(k->ctl, k->ctl->rs, APPS, "replicasets", x.d, "apps/v1", "Deployment", sel);
	sk_kube_label_selector_free(sel);
	split_rss(&x, owned);
	rc = run(&x);
	if (x.requeue_ms >= 0)
		sk__queue_add_after(k->q, key, x.requeue_ms);
	json_decref(x.d);
	json_decref(x.new_rs);
	json_decref(x.old);
	return rc;
}

static void on_rs(void *ud, int ev, json_t *old, json_t *rs)
{
	sk_controller *k = ud;
	cleanup_json json_t *ds = NULL;
	json_t *d;
	size_t i;

	if (old && old != rs)
		sk__enqueue_controller(k, old, "Deployment");
	if (sk_kube_controller_ref(rs)) {
		sk__enqueue_controller(k, rs, "Deployment");
		return;
	}
	if (ev == SK_INF_DELETE)
		return;
	ds = sk_informer_list(k->ctl->deploy, sk__ns(rs));
	json_array_foreach(ds, i, d) {
		sk_error_t err = {0};
		sk_kube_label_selector *sel = sk_kube_label_selector_from_json(sk_kube_jget(d, "spec.selector"), &err);

		if (sel && sk_kube_label_selector_match(sel, sk_kube_jget(rs, "metadata.labels"))) {
			cleanup_free char *key = sk__key(d);

			sk__queue_add(k->q, key);
		}
		sk_kube_label_selector_free(sel);
	}
}

/* Recreate waits for old pods to go: a deleted pod wakes its deployment. */
static void on_pod(void *ud, int ev, json_t *old, json_t *pod)
{
	sk_controller *k = ud;
	json_t *ref = sk_kube_controller_ref(pod);
	const char *kind = json_string_value(json_object_get(ref, "kind"));
	cleanup_json json_t *rs = NULL;

	if (ev != SK_INF_DELETE || !kind || strcmp(kind, "ReplicaSet"))
		return;
	rs = sk_informer_get(k->ctl->rs, sk__ns(pod), json_string_value(json_object_get(ref, "name")));
	if (rs)
		sk__enqueue_controller(k, rs, "Deployment");
}

int sk__deployment_init(struct sk_ctrl *ctl, sk_error_t *err)
{
	sk_controller *k = sk__controller_add(ctl, "deployment", sync_deployment, NULL);

	k->primary = ctl->deploy;
	k->resync_secs = 30;
	sk_informer_on(ctl->deploy, sk__enqueue_self, k);
	sk_informer_on(ctl->rs, on_rs, k);
	sk_informer_on(ctl->pods, on_pod, k);
	return 0;
}
