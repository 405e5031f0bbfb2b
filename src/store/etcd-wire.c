/* etcd v3's messages as skiff's store sees them: KeyValues under ROOT, watch
 * responses as events, gRPC statuses as errors. */
#include <stdlib.h>
#include <string.h>

#include "store/etcd-int.h"
#include "util/util.h"

int sk__etcd_kv(const Mvccpb__KeyValue *kv, const char *root, sk_store_kv *out)
{
	size_t rlen = strlen(root);

	memset(out, 0, sizeof(*out));
	if (!kv || kv->key.len <= rlen || memcmp(kv->key.data, root, rlen) != 0 ||
	    memchr(kv->key.data, '\0', kv->key.len))
		return -1;
	out->key = xstrndup((const char *)kv->key.data + rlen, kv->key.len - rlen);
	out->value = xmalloc(kv->value.len + 1);
	if (kv->value.len)
		memcpy(out->value, kv->value.data, kv->value.len);
	out->value[kv->value.len] = '\0';
	out->len = kv->value.len;
	out->create_rev = kv->create_revision;
	out->mod_rev = kv->mod_revision;
	return 0;
}

int sk__etcd_status_error(grpc_status_code code, const char *msg, sk_error_t *err)
{
	if (code == GRPC_STATUS_OK)
		return 0;
	if (!msg)
		msg = "";
	if (strstr(msg, "required revision has been compacted"))
		return sk_error_set(err, SK_EGONE, "%s", msg);
	if (strstr(msg, "required revision is a future revision"))
		return sk_error_set(err, SK_ETIMEOUT, "%s", msg);
	/* etcd's own errors, Unavailable and DeadlineExceeded included (etcd
	 * lost its quorum or leader: "etcdserver: request timed out",
	 * "etcdserver: no leader"): kube-apiserver passes etcd's error on as a
	 * 500 Status without a reason (ErrorToAPIStatus's default). */
	if (!strncmp(msg, "etcdserver: ", 12) || !strncmp(msg, "mvcc: ", 6) || !strncmp(msg, "auth: ", 6))
		return sk_error_set(err, SK_EUNKNOWN, "%s", msg);
	/* no answer: no endpoint reachable, or the call's own deadline passed */
	/* etcd's certificate refused, or ours by etcd: the reason said, as
	 * that is no outage but a setting to fix */
	if (code == GRPC_STATUS_UNAVAILABLE && !strncmp(msg, "etcd at ", 8) && strstr(msg, ": TLS"))
		return sk_error_set(err, SK_EUNAVAILABLE, "etcdserver: request timed out (%s)", msg);
	if (code == GRPC_STATUS_UNAVAILABLE || code == GRPC_STATUS_DEADLINE_EXCEEDED || code == GRPC_STATUS_CANCELLED)
		return sk_error_set(err, SK_EUNAVAILABLE, "etcdserver: request timed out");
	return sk_error_set(err, SK_EUNKNOWN, "%s", *msg ? msg : "etcdserver: unknown error");
}

int sk__etcd_retry(const char *method, grpc_status_code code, const char *msg, int sent)
{
	/* every Txn skiff makes writes */
	int mutating = !strcmp(method, SK__ETCD_TXN) || !strcmp(method, SK__ETCD_COMPACT);

	if (code != GRPC_STATUS_UNAVAILABLE)
		return SK__ETCD_STOP;
	/* a read that met an election (the new leader known already): again,
	 * as etcd's client retries a repeatable call that was Unavailable */
	if (!mutating && !strcmp(msg, "etcdserver: leader changed"))
		return SK__ETCD_AGAIN;
	if (!strncmp(msg, "etcdserver: ", 12))
		return SK__ETCD_STOP;
	/* this endpoint could not be reached: the next one; a write only when
	 * it did not leave (no connection, or gRPC's words for a channel that
	 * failed fast as it could not connect), as etcd's client
	 * (isSafeRetryMutableRPC): one that broke off may have been applied,
	 * and made again it would fail its compare (a create AlreadyExists, a
	 * delete NotFound) although it succeeded */
	if (mutating && sent && strncmp(msg, "failed to connect to all addresses", 34))
		return SK__ETCD_STOP;
	return SK__ETCD_NEXT;
}

static void event_release(sk__event *ev)
{
	sk__blob_unref(ev->key);
	sk__blob_unref(ev->val);
	sk__blob_unref(ev->prev);
}

/* Builds ev from an Event; -1 when malformed or outside root. */
static int event_from(const Mvccpb__Event *e, const char *root, sk__event *ev)
{
	sk_store_kv kv, prev = {0};
	int has_prev = e->prev_kv != NULL;

	memset(ev, 0, sizeof(*ev));
	if (sk__etcd_kv(e->kv, root, &kv) < 0)
		return -1;
	if (has_prev && sk__etcd_kv(e->prev_kv, root, &prev) < 0) {
		sk_store_kv_release(&kv);
		return -1;
	}
	ev->rev = kv.mod_rev;
	ev->key = sk__blob_new(kv.key, strlen(kv.key));
	if (e->type == MVCCPB__EVENT__EVENT_TYPE__DELETE) {
		ev->type = SK_STORE_DELETE;
		ev->val = has_prev ? sk__blob_new(prev.value, prev.len) : sk__blob_new("", 0);
		ev->create_rev = prev.create_rev;
	} else {
		ev->type = kv.create_rev == kv.mod_rev ? SK_STORE_CREATE : SK_STORE_UPDATE;
		ev->val = sk__blob_new(kv.value, kv.len);
		ev->create_rev = kv.create_rev;
	}
	if (has_prev && ev->type != SK_STORE_CREATE) {
		ev->prev = sk__blob_new(prev.value, prev.len);
		ev->prev_create_rev = prev.create_rev;
		ev->prev_mod_rev = prev.mod_rev;
	}
	sk_store_kv_release(&kv);
	sk_store_kv_release(&prev);
	return ev->rev > 0 ? 0 : (event_release(ev), -1);
}

int sk__etcd_wmsg_decode(const uint8_t *data, size_t len, const char *root, sk__etcd_wmsg *m, sk_error_t *err)
{
	Etcdserverpb__WatchResponse *r = etcdserverpb__watch_response__unpack(NULL, len, data);
	int64_t last = 0;

	memset(m, 0, sizeof(*m));
	if (!r)
		return sk_error_set(err, SK_EUNKNOWN, "etcd watch: malformed message");
	m->header_rev = r->header ? r->header->revision : 0;
	m->compact_rev = r->compact_revision;
	m->created = r->created;
	m->canceled = r->canceled;
	m->events = xzalloc((r->n_events + 1) * sizeof(m->events[0]));
	for (size_t i = 0; i < r->n_events; i++) {
		if (!r->events[i] || event_from(r->events[i], root, &m->events[m->n]) < 0)
			continue;
		if (m->events[m->n].rev != last)
			m->distinct_revs++;
		last = m->events[m->n].rev;
		m->n++;
	}
	etcdserverpb__watch_response__free_unpacked(r, NULL);
	return 0;
}

void sk__etcd_wmsg_release(sk__etcd_wmsg *m)
{
	for (size_t i = 0; i < m->n; i++)
		event_release(&m->events[i]);
	free(m->events);
	memset(m, 0, sizeof(*m));
}
