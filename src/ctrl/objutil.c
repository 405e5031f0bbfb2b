/* Helpers over Kubernetes objects shared by the controllers. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "ctrl/ctrl-int.h"
#include "util/util.h"

json_int_t sk__jint(json_t *o, const char *path, json_int_t def)
{
	json_t *v = sk_kube_jget(o, path);

	return json_is_integer(v) ? json_integer_value(v) : def;
}

const char *sk__name(json_t *o) { return sk_kube_jstr(o, "metadata.name"); }
const char *sk__ns(json_t *o) { return sk_kube_jstr(o, "metadata.namespace"); }
const char *sk__uid(json_t *o) { return sk_kube_jstr(o, "metadata.uid"); }

char *sk__key(json_t *o)
{
	const char *ns = sk__ns(o), *name = sk__name(o);

	return ns && *ns ? xasprintf("%s/%s", ns, name ? name : "") : xstrdup(name ? name : "");
}

void sk__split_key(const char *key, char *ns, size_t nslen, char *name, size_t namelen)
{
	const char *slash = strchr(key, '/');

	if (!slash) {
		snprintf(ns, nslen, "%s", "");
		snprintf(name, namelen, "%s", key);
		return;
	}
	snprintf(ns, nslen, "%.*s", (int)(slash - key), key);
	snprintf(name, namelen, "%s", slash + 1);
}

char *sk__path(const char *prefix, const char *plural, const char *ns, const char *name, const char *sub)
{
	return xasprintf("%s%s%s/%s%s%s%s%s", prefix, ns && *ns ? "/namespaces/" : "", ns && *ns ? ns : "", plural,
			 name ? "/" : "", name ? name : "", sub ? "/" : "", sub ? sub : "");
}

int64_t sk__now(void) { return sk_now_ns() / 1000000000; }

int64_t sk__jtime(json_t *o, const char *path, int64_t def)
{
	const char *s = sk_kube_jstr(o, path);
	int64_t t;

	if (!s || sk_time_parse(s, &t) < 0)
		return def;
	return t;
}

json_t *sk__time_json(int64_t secs)
{
	char buf[32];

	sk_time_format(secs, buf, sizeof(buf));
	return json_string(buf);
}

json_t *sk__owner_ref(json_t *owner, const char *api_version, const char *kind)
{
	return json_pack("{s:s, s:s, s:s, s:s, s:b, s:b}", "apiVersion", api_version, "kind", kind, "name",
			 sk__name(owner), "uid", sk__uid(owner), "controller", 1, "blockOwnerDeletion", 1);
}

int sk__is_deleting(json_t *obj) { return sk_kube_jstr(obj, "metadata.deletionTimestamp") != NULL; }

static const char *phase(json_t *pod) { return sk_kube_jstr(pod, "status.phase"); }

int sk__pod_terminal(json_t *pod)
{
	const char *p = phase(pod);

	return p && (!strcmp(p, "Succeeded") || !strcmp(p, "Failed"));
}

int sk__pod_active(json_t *pod) { return !sk__pod_terminal(pod) && !sk__is_deleting(pod); }

int sk__pod_ready(json_t *pod)
{
	json_t *c = sk_kube_condition_get(json_object_get(pod, "status"), "Ready");

	return c && !strcmp(json_string_value(json_object_get(c, "status")) ?: "", "True");
}

int64_t sk__pod_ready_since(json_t *pod)
{
	json_t *c = sk_kube_condition_get(json_object_get(pod, "status"), "Ready");

	if (!c || !sk__pod_ready(pod))
		return -1;
	return sk__jtime(c, "lastTransitionTime", 0);
}

int sk__pod_available(json_t *pod, int64_t min_ready_secs, int64_t now)
{
	int64_t since = sk__pod_ready_since(pod);

	if (since < 0)
		return 0;
	return min_ready_secs <= 0 || since + min_ready_secs <= now;
}

int sk__cond_set(json_t *status, const char *type, const char *st, const char *reason, const char *msg, int with_probe,
		 int with_update)
{
	char now[32];

	sk_time_format(sk__now(), now, sizeof(now));
	return sk_kube_condition_set(status, type, st, reason, msg, now,
				     (with_probe ? SK_KUBE_COND_PROBE_TIME : 0) |
					     (with_update ? SK_KUBE_COND_UPDATE_TIME : 0));
}

json_t *sk__pod_from_template(json_t *tmpl, json_t *owner_ref, const char *ns, const char *generate_name)
{
	json_t *pod = json_object(), *meta = json_object(), *tm = json_object_get(tmpl, "metadata");
	json_t *spec = json_deep_copy(json_object_get(tmpl, "spec"));
	json_t *v;

	json_object_set_new(pod, "apiVersion", json_string("v1"));
	json_object_set_new(pod, "kind", json_string("Pod"));
	json_object_set_new(meta, "generateName", json_string(generate_name));
	json_object_set_new(meta, "namespace", json_string(ns));
	if ((v = json_object_get(tm, "labels")))
		json_object_set_new(meta, "labels", json_deep_copy(v));
	if ((v = json_object_get(tm, "annotations")))
		json_object_set_new(meta, "annotations", json_deep_copy(v));
	if ((v = json_object_get(tm, "finalizers")))
		json_object_set_new(meta, "finalizers", json_deep_copy(v));
	json_object_set_new(meta, "ownerReferences", json_pack("[o]", owner_ref));
	json_object_set_new(pod, "metadata", meta);
	json_object_set_new(pod, "spec", spec ? spec : json_object());
	return pod;
}

/* Sets or removes owner's controller reference on obj with a merge patch
 * guarded by the object's resourceVersion. */
static int patch_owner(struct sk_ctrl *ctl, sk_informer *inf, const char *prefix, const char *plural, json_t *obj,
		       json_t *owner, const char *api_version, const char *kind, int adopt)
{
	cleanup_json json_t *refs = json_array(), *patch = NULL, *out = NULL;
	cleanup_free char *path = sk__path(prefix, plural, sk__ns(obj), sk__name(obj), NULL);
	json_t *r;
	size_t i;
	sk_error_t err = {0};

	json_array_foreach(sk_kube_jget(obj, "metadata.ownerReferences"), i, r) {
		const char *u = json_string_value(json_object_get(r, "uid"));

		if (!adopt && u && !strcmp(u, sk__uid(owner)))
			continue;
		json_array_append(refs, r);
	}
	if (adopt)
		json_array_append_new(refs, sk__owner_ref(owner, api_version, kind));
	patch = json_pack("{s:{s:O, s:s?, s:s?}}", "metadata", "ownerReferences", refs, "uid", sk__uid(obj),
			  "resourceVersion", sk_kube_jstr(obj, "metadata.resourceVersion"));
	out = sk_client_patch(ctl->c, path, SK_PATCH_MERGE, patch, &err);
	if (!out) {
		if (err.code != SK_ENOTFOUND)
			sk_info("ctrl", "%s %s \"%s\": %s", adopt ? "adopting" : "releasing", kind, sk__name(obj),
				err.msg);
		return -1;
	}
	sk_informer_write(inf, out);
	return 0;
}

json_t *sk__claim(struct sk_ctrl *ctl, sk_informer *inf, const char *prefix, const char *plural, json_t *owner,
		  const char *api_version, const char *kind, const sk_kube_label_selector *sel)
{
	cleanup_json json_t *owned = sk_informer_owned(inf, sk__ns(owner), sk__uid(owner));
	cleanup_json json_t *orphans = sk_informer_orphans(inf, sk__ns(owner));
	json_t *out = json_array(), *o;
	size_t i;

	json_array_foreach(owned, i, o) {
		if (sk_kube_label_selector_match(sel, sk_kube_jget(o, "metadata.labels")) || sk__is_deleting(owner))
			json_array_append(out, o);
		else if (!sk__is_deleting(o))
			patch_owner(ctl, inf, prefix, plural, o, owner, api_version, kind, 0);
	}
	if (sk__is_deleting(owner) || sk_kube_label_selector_empty(sel))
		return out;
	json_array_foreach(orphans, i, o) {
		json_t *now;

		if (sk__is_deleting(o) || !sk_kube_label_selector_match(sel, sk_kube_jget(o, "metadata.labels")))
			continue;
		if (patch_owner(ctl, inf, prefix, plural, o, owner, api_version, kind, 1) == 0 &&
		    (now = sk_informer_get(inf, sk__ns(o), sk__name(o))))
			json_array_append_new(out, now);
	}
	return out;
}

json_t *sk__claim_pods(struct sk_ctrl *ctl, json_t *owner, const char *api_version, const char *kind,
		       const sk_kube_label_selector *sel)
{
	return sk__claim(ctl, ctl->pods, "/api/v1", "pods", owner, api_version, kind, sel);
}

/* One slow-start batch run on a small pool: the threads (the caller among
 * them) take the batch's items in turn; the lowest failing item's error is
 * kept so the outcome does not depend on the threads' order. */
typedef struct slow_batch {
	int (*fn)(void *ud, int i, sk_error_t *err);
	void *ud;
	int first, n;
	atomic_int next, ok;
	pthread_mutex_t mu;
	int err_index; /* -1: none failed */
	sk_error_t err;
} slow_batch;

static void *slow_worker(void *arg)
{
	slow_batch *b = arg;
	int i;

	while ((i = atomic_fetch_add(&b->next, 1)) < b->n) {
		sk_error_t e = {0};

		if (b->fn(b->ud, b->first + i, &e) == 0) {
			atomic_fetch_add(&b->ok, 1);
			continue;
		}
		pthread_mutex_lock(&b->mu);
		if (b->err_index < 0 || i < b->err_index) {
			b->err_index = i;
			b->err = e;
		}
		pthread_mutex_unlock(&b->mu);
	}
	return NULL;
}

static int slow_start_threads(void)
{
	static atomic_int cached;
	int v = atomic_load(&cached);

	if (!v) {
		const char *e = getenv("SKIFF_SLOW_START_THREADS");

		v = e && atoi(e) > 0 ? atoi(e) : SK_SLOW_START_THREADS;
		if (v > 64)
			v = 64;
		atomic_store(&cached, v);
	}
	return v;
}

static int run_batch(slow_batch *b)
{
	pthread_t th[64];
	int want = b->n < slow_start_threads() ? b->n : slow_start_threads(), started = 0;

	for (int t = 1; t < want; t++)
		if (!pthread_create(&th[started], NULL, slow_worker, b))
			started++;
	slow_worker(b);
	for (int t = 0; t < started; t++)
		pthread_join(th[t], NULL);
	return atomic_load(&b->ok);
}

int sk__slow_start(int count, int (*fn)(void *ud, int i, sk_error_t *err), void *ud, sk_error_t *err)
{
	int done = 0, batch = 1;

	while (done < count) {
		int n = batch < count - done ? batch : count - done, ok;
		slow_batch *b = xzalloc(sizeof(*b));

		b->fn = fn;
		b->ud = ud;
		b->first = done;
		b->n = n;
		b->err_index = -1;
		pthread_mutex_init(&b->mu, NULL);
		ok = run_batch(b);
		pthread_mutex_destroy(&b->mu);
		if (ok < n && err)
			*err = b->err;
		free(b);
		done += n;
		if (ok < n)
			return done - n + ok;
		batch *= 2;
	}
	return done;
}

int sk__update_status(struct sk_ctrl *ctl, sk_informer *inf, const char *prefix, const char *plural, json_t *obj,
		      sk_error_t *err)
{
	cleanup_free char *path = sk__path(prefix, plural, sk__ns(obj), sk__name(obj), "status");
	cleanup_json json_t *out = sk_client_update(ctl->c, path, obj, err);

	if (!out)
		return -1;
	sk_informer_write(inf, out);
	return 0;
}

char *sk__rest_mapping(struct sk_ctrl *ctl, const char *api_version, const char *kind, const char *ns, int versioned,
		       int *has_scale, sk_error_t *err)
{
	const char *av = api_version ? api_version : "", *slash = strchr(av, '/');
	cleanup_free char *dpath = slash ? xasprintf("/apis/%s", av) : xasprintf("/api/%s", *av ? av : "v1");
	cleanup_free char *group = slash ? xstrndup(av, (size_t)(slash - av)) : xstrdup("");
	cleanup_json json_t *list = NULL;
	sk_error_t e = {0};
	const char *plural = NULL;
	json_t *r;
	size_t i;

	kind = kind ? kind : "";
	list = sk_client_get(ctl->c, dpath, &e);
	if (!list && e.code != SK_ENOTFOUND) {
		if (err)
			*err = e;
		return NULL;
	}
	json_array_foreach(json_object_get(list, "resources"), i, r) {
		const char *name = json_string_value(json_object_get(r, "name"));

		if (name && !strchr(name, '/') && !strcmp(json_string_value(json_object_get(r, "kind")) ?: "", kind)) {
			plural = name;
			break;
		}
	}
	if (!plural) {
		if (versioned)
			sk_error_set(err, SK_EINVALID, "no matches for kind \"%s\" in version \"%s\"", kind, av);
		else
			sk_error_set(err, SK_EINVALID, "no matches for kind \"%s\" in group \"%s\"", kind, group);
		return NULL;
	}
	if (has_scale) {
		cleanup_free char *sub = xasprintf("%s/scale", plural);

		*has_scale = 0;
		json_array_foreach(json_object_get(list, "resources"), i, r)
			*has_scale |= !strcmp(json_string_value(json_object_get(r, "name")) ?: "", sub);
	}
	return xasprintf("%s/namespaces/%s/%s", dpath, ns, plural);
}
