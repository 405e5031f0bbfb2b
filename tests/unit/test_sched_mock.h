/* A mock sk_client for scheduler tests and benchmarks: an in-memory object
 * store with list, watch (one thread per watch), binding, pod status
 * patches, events, deletes and PodGroup status, through the transport
 * vtable of client/client-int.h. One global instance M; mock_new() resets
 * it. Include from exactly one .c file. */
#ifndef SK_TEST_SCHED_MOCK_H
#define SK_TEST_SCHED_MOCK_H

#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include "client/client-int.h"
#include "sched/gang.h"
#include "util/util.h"


struct mevent {
	struct mevent *next;
	char type[16];
	json_t *obj;
};

struct mwatch {
	const struct sk_client_ops *ops; /* must come first */
	struct mock *m;
	char *path;
	sk_client_watch_cb cb;
	void *ud;
	pthread_t th;
	struct mevent *head, *tail;
	int stop;
	pthread_cond_t cv;
	struct mwatch *next;
};

struct mock {
	pthread_mutex_t mu;
	json_t *objs; /* collection path -> {key: obj} */
	struct mwatch *watches;
	long rv;
	int binds, bind_conflicts, events, event_patches, status_patches, deletes, pg_status;
	json_t *last_pg_status;
	int fail_binds; /* reject this many binds with a conflict */
};

static struct mock M;
static const struct sk_client_ops mock_ops;

static inline const char *collection_of(const char *path)
{
	if (strstr(path, "/pods"))
		return "/api/v1/pods";
	if (strstr(path, "/nodes"))
		return "/api/v1/nodes";
	if (strstr(path, "/podgroups"))
		return "/apis/scheduling.x-k8s.io/v1alpha1/podgroups";
	if (strstr(path, "/priorityclasses"))
		return "/apis/scheduling.k8s.io/v1/priorityclasses";
	if (strstr(path, "/runtimeclasses"))
		return "/apis/node.k8s.io/v1/runtimeclasses";
	if (strstr(path, "/events"))
		return "/api/v1/events";
	return path;
}

static inline json_t *coll(const char *c)
{
	json_t *o = json_object_get(M.objs, c);

	if (!o) {
		o = json_object();
		json_object_set_new(M.objs, c, o);
	}
	return o;
}

static inline void obj_key(json_t *obj, char *buf, size_t len)
{
	json_t *meta = json_object_get(obj, "metadata");
	const char *ns = json_string_value(json_object_get(meta, "namespace"));

	snprintf(buf, len, "%s/%s", ns ? ns : "", json_string_value(json_object_get(meta, "name")));
}

/* Under M.mu: stores obj (stolen) and notifies watchers of its collection. */
static inline void emit(const char *c, const char *type, json_t *obj)
{
	char key[512], rv[32];

	snprintf(rv, sizeof(rv), "%ld", ++M.rv);
	json_object_set_new(json_object_get(obj, "metadata"), "resourceVersion", json_string(rv));
	obj_key(obj, key, sizeof(key));
	if (strcmp(type, "DELETED") == 0)
		json_object_del(coll(c), key);
	else
		json_object_set(coll(c), key, obj);
	for (struct mwatch *w = M.watches; w; w = w->next) {
		struct mevent *e;

		if (strcmp(w->path, c) != 0)
			continue;
		e = xzalloc(sizeof(*e));
		snprintf(e->type, sizeof(e->type), "%s", type);
		e->obj = json_deep_copy(obj);
		if (w->tail)
			w->tail->next = e;
		else
			w->head = e;
		w->tail = e;
		pthread_cond_signal(&w->cv);
	}
	json_decref(obj);
}

static inline json_t *status_ok(void)
{
	return json_pack("{s:s, s:s, s:s}", "kind", "Status", "apiVersion", "v1", "status", "Success");
}

static inline json_t *get_obj(const char *c, const char *ns, const char *name)
{
	char key[512];

	snprintf(key, sizeof(key), "%s/%s", ns, name);
	return json_object_get(coll(c), key);
}

/* "/api/v1/namespaces/NS/pods/NAME/sub" -> ns, name */
static inline int split_pod_path(const char *path, char *ns, char *name, size_t len)
{
	const char *p = strstr(path, "/namespaces/"), *q, *r;

	if (!p)
		return -1;
	p += strlen("/namespaces/");
	q = strchr(p, '/');
	if (!q)
		return -1;
	snprintf(ns, len, "%.*s", (int)(q - p), p);
	q = strchr(q + 1, '/');
	if (!q)
		return -1;
	q++;
	r = strchr(q, '/');
	snprintf(name, len, "%.*s", r ? (int)(r - q) : (int)strlen(q), q);
	return 0;
}

static inline json_t *do_list(const char *path)
{
	json_t *items = json_array(), *v;
	const char *k;
	char rv[32];

	json_object_foreach (coll(collection_of(path)), k, v)
		json_array_append(items, v);
	snprintf(rv, sizeof(rv), "%ld", M.rv);
	return json_pack("{s:o, s:{s:s}}", "items", items, "metadata", "resourceVersion", rv);
}

static inline json_t *do_bind(const char *ns, const char *name, json_t *body, sk_error_t *err)
{
	json_t *pod = get_obj("/api/v1/pods", ns, name), *copy;
	const char *node = json_string_value(json_object_get(json_object_get(body, "target"), "name"));

	if (!pod) {
		sk_error_set(err, SK_ENOTFOUND, "pods \"%s\" not found", name);
		return NULL;
	}
	if (M.fail_binds > 0 || json_object_get(json_object_get(pod, "spec"), "nodeName")) {
		M.fail_binds--;
		M.bind_conflicts++;
		sk_error_set(err, SK_ECONFLICT, "pod %s is already assigned to node", name);
		return NULL;
	}
	copy = json_deep_copy(pod);
	json_object_set_new(json_object_get(copy, "spec"), "nodeName", json_string(node));
	M.binds++;
	emit("/api/v1/pods", "MODIFIED", copy);
	return status_ok();
}

static inline json_t *do_status_patch(const char *ns, const char *name, json_t *body, sk_error_t *err)
{
	json_t *pod = get_obj("/api/v1/pods", ns, name), *copy, *st;
	const char *k;
	json_t *v;

	if (!pod) {
		sk_error_set(err, SK_ENOTFOUND, "pods \"%s\" not found", name);
		return NULL;
	}
	copy = json_deep_copy(pod);
	if (!json_object_get(copy, "status"))
		json_object_set_new(copy, "status", json_object());
	st = json_object_get(copy, "status");
	json_object_foreach (json_object_get(body, "status"), k, v)
		json_object_set(st, k, v);
	M.status_patches++;
	emit("/api/v1/pods", "MODIFIED", copy);
	return json_incref(get_obj("/api/v1/pods", ns, name));
}

static inline json_t *mock_request(sk_client *c, const char *method, const char *path, const char *query, json_t *body,
			    const char *ct, sk_error_t *err)
{
	char ns[256], name[256];
	json_t *r = NULL;

	pthread_mutex_lock(&M.mu);
	if (strcmp(method, "GET") == 0) {
		r = do_list(path);
	} else if (strstr(path, "/binding")) {
		split_pod_path(path, ns, name, sizeof(ns));
		r = do_bind(ns, name, body, err);
	} else if (strstr(path, "/events")) {
		if (strcmp(method, "POST") == 0)
			M.events++;
		else
			M.event_patches++;
		r = json_incref(body);
	} else if (strstr(path, "/podgroups/")) {
		M.pg_status++;
		json_decref(M.last_pg_status);
		M.last_pg_status = json_deep_copy(json_object_get(body, "status"));
		r = status_ok();
	} else if (strstr(path, "/pods/") && strstr(path, "/status")) {
		split_pod_path(path, ns, name, sizeof(ns));
		r = do_status_patch(ns, name, body, err);
	} else if (strcmp(method, "DELETE") == 0 && strstr(path, "/pods/")) {
		json_t *pod;

		split_pod_path(path, ns, name, sizeof(ns));
		pod = get_obj("/api/v1/pods", ns, name);
		M.deletes++;
		if (pod) {
			emit("/api/v1/pods", "DELETED", json_deep_copy(pod));
			r = status_ok();
		} else {
			sk_error_set(err, SK_ENOTFOUND, "pods \"%s\" not found", name);
		}
	} else {
		sk_error_set(err, SK_ENOTFOUND, "no route %s %s", method, path);
	}
	pthread_mutex_unlock(&M.mu);
	return r;
}

static inline void *watch_main(void *arg)
{
	struct mwatch *w = arg;

	pthread_mutex_lock(&M.mu);
	for (;;) {
		struct mevent *e;

		while (!w->head && !w->stop)
			pthread_cond_wait(&w->cv, &M.mu);
		if (w->stop)
			break;
		e = w->head;
		w->head = e->next;
		if (!w->head)
			w->tail = NULL;
		pthread_mutex_unlock(&M.mu);
		w->cb(e->type, e->obj, w->ud);
		json_decref(e->obj);
		free(e);
		pthread_mutex_lock(&M.mu);
	}
	pthread_mutex_unlock(&M.mu);
	return NULL;
}

static inline sk_client_watch *mock_watch(sk_client *c, const char *path, const char *query, sk_client_watch_cb cb, void *ud,
				   sk_error_t *err)
{
	struct mwatch *w = xzalloc(sizeof(*w));

	w->ops = &mock_ops;
	w->path = xstrdup(path);
	w->cb = cb;
	w->ud = ud;
	pthread_cond_init(&w->cv, NULL);
	pthread_mutex_lock(&M.mu);
	w->next = M.watches;
	M.watches = w;
	pthread_mutex_unlock(&M.mu);
	pthread_create(&w->th, NULL, watch_main, w);
	return (sk_client_watch *)w;
}

static inline void mock_watch_stop(sk_client_watch *cw)
{
	struct mwatch *w = (struct mwatch *)cw;

	pthread_mutex_lock(&M.mu);
	w->stop = 1;
	pthread_cond_signal(&w->cv);
	for (struct mwatch **pp = &M.watches; *pp; pp = &(*pp)->next)
		if (*pp == w) {
			*pp = w->next;
			break;
		}
	pthread_mutex_unlock(&M.mu);
	pthread_join(w->th, NULL);
	while (w->head) {
		struct mevent *e = w->head;

		w->head = e->next;
		json_decref(e->obj);
		free(e);
	}
	pthread_cond_destroy(&w->cv);
	free(w->path);
	free(w);
}

static inline void mock_free(sk_client *c)
{
	free(c);
}

static const struct sk_client_ops mock_ops = {
	.request = mock_request, .watch = mock_watch, .watch_stop = mock_watch_stop, .free = mock_free,
};

static inline sk_client *mock_new(void)
{
	sk_client *c = xzalloc(sizeof(*c));

	pthread_mutex_destroy(&M.mu);
	json_decref(M.objs);
	json_decref(M.last_pg_status);
	memset(&M, 0, sizeof(M));
	pthread_mutex_init(&M.mu, NULL);
	M.objs = json_object();
	c->ops = &mock_ops;
	return c;
}

static inline void mock_add(const char *c, json_t *obj)
{
	pthread_mutex_lock(&M.mu);
	emit(c, "ADDED", obj);
	pthread_mutex_unlock(&M.mu);
}

static inline void add_node(const char *name, const char *cpu, int gpus, const char *taints)
{
	json_t *n = json_pack("{s:{s:s, s:{s:s}}, s:{s:o}, s:{s:{s:s, s:s, s:s, s:i}, s:[{s:s, s:s}]}}", "metadata", "name",
			      name, "labels", "kubernetes.io/hostname", name, "spec", "taints",
			      taints ? json_loads(taints, 0, NULL) : json_array(), "status", "allocatable", "cpu", cpu,
			      "memory", "64Gi", "pods", "110", "nvidia.com/gpu", gpus, "conditions", "type", "Ready",
			      "status", "True");

	mock_add("/api/v1/nodes", n);
}

static inline json_t *pod_json(const char *name, const char *cpu, int gpus, int prio, const char *group)
{
	json_t *p = json_pack("{s:{s:s, s:s, s:s, s:s, s:{}}, s:{s:s, s:i, s:[{s:s, s:s, s:{s:{s:s, s:i}}}]}, s:{s:s}}",
			      "metadata", "name", name, "namespace", "default", "uid", name, "creationTimestamp",
			      "2026-01-01T00:00:00Z", "labels", "spec", "schedulerName", "default-scheduler", "priority",
			      prio, "containers", "name", "c", "image", "busybox", "resources", "requests", "cpu", cpu,
			      "nvidia.com/gpu", gpus, "status", "phase", "Pending");

	if (group)
		json_object_set_new(json_object_get(json_object_get(p, "metadata"), "labels"), SK_GANG_LABEL,
				    json_string(group));
	return p;
}

static inline const char *node_of(const char *name)
{
	json_t *p;
	const char *n;

	pthread_mutex_lock(&M.mu);
	p = get_obj("/api/v1/pods", "default", name);
	n = p ? json_string_value(json_object_get(json_object_get(p, "spec"), "nodeName")) : NULL;
	pthread_mutex_unlock(&M.mu);
	return n;
}

static inline const char *condition_msg(const char *name)
{
	json_t *p, *c;
	size_t i;
	const char *msg = NULL;

	pthread_mutex_lock(&M.mu);
	p = get_obj("/api/v1/pods", "default", name);
	json_array_foreach (json_object_get(json_object_get(p, "status"), "conditions"), i, c)
		if (strcmp(json_string_value(json_object_get(c, "type")), "PodScheduled") == 0)
			msg = json_string_value(json_object_get(c, "message"));
	pthread_mutex_unlock(&M.mu);
	return msg;
}

#endif
