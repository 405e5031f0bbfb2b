/* ControllerRevisions of DaemonSets and StatefulSets (after
 * pkg/controller/history and the controllers' history code): one revision
 * per distinct pod template, named <owner>-<hash>, labelled with
 * controller-revision-hash, numbered upward; a rollback renumbers the old
 * revision as the newest; old revisions beyond revisionHistoryLimit that
 * nothing uses are deleted. */
#include <stdlib.h>
#include <string.h>

#include "ctrl/ctrl-int.h"
#include "ctrl/rollout.h"
#include "util/util.h"

#define APPS "/apis/apps/v1"
#define HASH_LABEL "controller-revision-hash"

/* The revision's data: a strategic merge patch replacing the template
 * (upstream's getPatch), which `kubectl rollout undo` applies. */
static json_t *revision_data(json_t *owner)
{
	json_t *tmpl = json_deep_copy(sk_kube_jget(owner, "spec.template"));

	if (!json_is_object(tmpl)) {
		json_decref(tmpl);
		tmpl = json_object();
	}
	json_object_set_new(tmpl, "$patch", json_string("replace"));
	return json_pack("{s:{s:o}}", "spec", "template", tmpl);
}

json_t *sk__history_template(json_t *cr)
{
	json_t *t = json_deep_copy(sk_kube_jget(cr, "data.spec.template"));

	if (!json_is_object(t)) {
		json_decref(t);
		return NULL;
	}
	json_object_del(t, "$patch");
	return t;
}

static int revision_matches(json_t *cr, json_t *owner)
{
	cleanup_json json_t *a = sk__history_template(cr);

	return a && json_equal(a, sk_kube_jget(owner, "spec.template"));
}

static int rev_cmp(const void *x, const void *y)
{
	json_int_t a = sk__jint(*(json_t *const *)x, "revision", 0), b = sk__jint(*(json_t *const *)y, "revision", 0);

	return a < b ? -1 : a > b;
}

static void hash_of(json_t *cr, json_t *owner, char *hash, size_t hlen)
{
	const char *h = sk_kube_jstr(cr, "metadata.labels." HASH_LABEL);

	snprintf(hash, hlen, "%s", h ? h : "");
	if (!*hash) {
		const char *nm = sk__name(cr);
		size_t dl = strlen(sk__name(owner));

		snprintf(hash, hlen, "%s", strlen(nm) > dl + 1 ? nm + dl + 1 : nm);
	}
}

/* A rollback to an older template: its revision becomes the newest. */
static int renumber(struct sk_ctrl *ctl, json_t *cur, json_int_t max, sk_error_t *err)
{
	cleanup_json json_t *upd = json_deep_copy(cur), *out = NULL;
	cleanup_free char *path = sk__path(APPS, "controllerrevisions", sk__ns(cur), sk__name(cur), NULL);

	json_object_set_new(upd, "revision", json_integer(max + 1));
	out = sk_client_update(ctl->c, path, upd, err);
	if (!out)
		return -1;
	sk_informer_write(ctl->crevs, out);
	return 0;
}

static json_t *new_revision(json_t *owner, const char *kind, const char *name, const char *hash, json_int_t number)
{
	cleanup_json json_t *labels = json_deep_copy(sk_kube_jget(owner, "spec.template.metadata.labels"));
	json_t *ann = sk_kube_jget(owner, "metadata.annotations"), *rev;

	if (!json_is_object(labels)) {
		json_decref(labels);
		labels = json_object();
	}
	json_object_set_new(labels, HASH_LABEL, json_string(hash));
	rev = json_pack("{s:s, s:s, s:{s:s, s:s, s:O, s:[o]}, s:o, s:I}", "apiVersion", "apps/v1", "kind",
			"ControllerRevision", "metadata", "name", name, "namespace", sk__ns(owner), "labels", labels,
			"ownerReferences", sk__owner_ref(owner, "apps/v1", kind), "data", revision_data(owner),
			"revision", number);
	if (json_is_object(ann))
		json_object_set(json_object_get(rev, "metadata"), "annotations", ann);
	return rev;
}

/* Creates the revision of owner's template, counting a hash collision up
 * in status.collisionCount as upstream does. */
static int create_revision(struct sk_ctrl *ctl, const sk_history_owner *ho, json_t *owner, json_int_t number,
			   char *hash, size_t hlen, sk_error_t *err)
{
	json_int_t collisions = sk__jint(owner, "status.collisionCount", -1);

	for (int tries = 0; tries < 8; tries++) {
		cleanup_json json_t *rev = NULL, *out = NULL, *have = NULL, *upd = NULL;
		cleanup_free char *path = sk__path(APPS, "controllerrevisions", sk__ns(owner), NULL, NULL);
		cleanup_free char *name = NULL, *p2 = NULL;
		json_t *ref;
		const char *uid;

		sk_rollout_hash(sk_kube_jget(owner, "spec.template"), collisions, hash, hlen);
		name = xasprintf("%s-%s", sk__name(owner), hash);
		rev = new_revision(owner, ho->kind, name, hash, number);
		out = sk_client_create(ctl->c, path, rev, err);
		if (out) {
			sk_informer_write(ctl->crevs, out);
			return 0;
		}
		if (err->code != SK_EEXISTS)
			return -1;
		/* a revision of that name exists: ours with the same data is
		 * fine; otherwise a hash collision */
		p2 = sk__path(APPS, "controllerrevisions", sk__ns(owner), name, NULL);
		have = sk_client_get(ctl->c, p2, NULL);
		ref = have ? sk_kube_controller_ref(have) : NULL;
		uid = ref ? json_string_value(json_object_get(ref, "uid")) : NULL;
		if (have && uid && !strcmp(uid, sk__uid(owner)) && revision_matches(have, owner)) {
			sk_informer_write(ctl->crevs, have);
			return 0;
		}
		collisions = collisions < 0 ? 1 : collisions + 1;
		upd = json_deep_copy(owner);
		json_object_set_new(sk_kube_jobj(upd, "status"), "collisionCount", json_integer(collisions));
		if (sk__update_status(ctl, ho->inf, APPS, ho->plural, upd, err) < 0)
			return -1;
		memset(err, 0, sizeof(*err));
	}
	return sk_error_set(err, SK_ECONFLICT, "%s \"%s\": too many revision hash collisions", ho->kind,
			    sk__name(owner));
}

int sk__history_current(struct sk_ctrl *ctl, const sk_history_owner *ho, json_t *owner, char *hash, size_t hlen,
			sk_error_t *err)
{
	cleanup_json json_t *owned = sk_informer_owned(ctl->crevs, sk__ns(owner), sk__uid(owner));
	json_t *cur = NULL, *cr;
	json_int_t max = 0;
	size_t i;

	json_array_foreach(owned, i, cr) {
		if (sk__jint(cr, "revision", 0) > max)
			max = sk__jint(cr, "revision", 0);
		if (!cur && revision_matches(cr, owner))
			cur = cr;
	}
	if (!cur)
		return create_revision(ctl, ho, owner, max + 1, hash, hlen, err);
	hash_of(cur, owner, hash, hlen);
	if (sk__jint(cur, "revision", 0) < max)
		return renumber(ctl, cur, max, err);
	return 0;
}

void sk__history_truncate(struct sk_ctrl *ctl, json_t *owner, json_t *live)
{
	cleanup_json json_t *owned = sk_informer_owned(ctl->crevs, sk__ns(owner), sk__uid(owner));
	json_int_t limit = sk__jint(owner, "spec.revisionHistoryLimit", 10);
	size_t n = json_array_size(owned), nold = 0, del, i;
	json_t **v = xzalloc((n + 1) * sizeof(*v)), *cr;

	json_array_foreach(owned, i, cr) {
		const char *h = sk_kube_jstr(cr, "metadata.labels." HASH_LABEL);

		if (!json_object_get(live, sk__name(cr)) && !(h && json_object_get(live, h)))
			v[nold++] = cr;
	}
	qsort(v, nold, sizeof(*v), rev_cmp);
	del = nold > (size_t)(limit < 0 ? 0 : limit) ? nold - (size_t)limit : 0;
	for (i = 0; i < del; i++) {
		cleanup_free char *path = sk__path(APPS, "controllerrevisions", sk__ns(v[i]), sk__name(v[i]), NULL);
		sk_error_t e2 = {0};

		if (sk_client_delete(ctl->c, path, NULL, &e2) == 0 || e2.code == SK_ENOTFOUND)
			sk_informer_forget(ctl->crevs, v[i]);
	}
	free(v);
}
