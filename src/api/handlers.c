/* Kubernetes REST semantics for every served resource: create, get, list,
 * update, patch, delete and the pod, scale and status subresources. */
#include <gnutls/crypto.h>
#include <string.h>

#include "api/admission.h"
#include "api/satoken.h"
#include "api/api-int.h"
#include "api/apply.h"
#include "api/crd.h"
#include "api/defaults.h"
#include "api/patch.h"
#include "api/schema.h"
#include "api/selcache.h"
#include "api/table.h"
#include "api/validate.h"
#include "kube/condition.h"
#include "kube/selector.h"
#include "util/json.h"
#include "util/util.h"

#define PATCH_RETRIES 8
#define LIST_LIMIT_MAX ((int64_t)1 << 40)

static void now_rfc3339(char *buf, size_t len) { sk_time_format(sk_now_ns() / 1000000000, buf, len); }

void sk__new_uuid(char *buf, size_t len)
{
	unsigned char b[16];

	gnutls_rnd(GNUTLS_RND_NONCE, b, sizeof(b));
	b[6] = (unsigned char)((b[6] & 0x0f) | 0x40);
	b[8] = (unsigned char)((b[8] & 0x3f) | 0x80);
	snprintf(buf, len, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1], b[2],
		 b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
}

void sk__name_suffix(char *buf)
{
	static const char alpha[] = "bcdfghjklmnpqrstvwxz2456789";
	unsigned char b[5];

	gnutls_rnd(GNUTLS_RND_NONCE, b, sizeof(b));
	for (int i = 0; i < 5; i++)
		buf[i] = alpha[b[i] % (sizeof(alpha) - 1)];
	buf[5] = '\0';
}

/* Sets metadata.name to generateName (cut to 58 bytes, as upstream's
 * maxGeneratedNameLength) plus a fresh suffix. */
static void generate_name(json_t *meta)
{
	const char *gen = json_string_value(json_object_get(meta, "generateName"));
	char sfx[6], full[300];

	sk__name_suffix(sfx);
	snprintf(full, sizeof(full), "%.*s%s", 58, gen ? gen : "", sfx);
	json_object_set_new(meta, "name", json_string(full));
}

static int is_dry_run(const sk_api_request *req)
{
	const char *d = sk__arg(req, "dryRun");

	return d && !strcmp(d, "All");
}

static const char *field_manager(const sk_api_request *req, const char *dflt)
{
	const char *m = sk__arg(req, "fieldManager");

	return m && *m ? m : dflt;
}

static json_t *meta_of(json_t *obj)
{
	json_t *m = json_object_get(obj, "metadata");

	if (!json_is_object(m)) {
		m = json_object();
		json_object_set_new(obj, "metadata", m);
	}
	return m;
}

static const char *meta_str(json_t *obj, const char *key)
{
	return json_string_value(json_object_get(json_object_get(obj, "metadata"), key));
}

static int generation_tracked(const sk_api_resource *r) { return sk__kind_flag(r, SK_KIND_GENERATION); }

/* Parses the request body as a JSON object (400 on failure). */
static json_t *parse_body(const sk_api_request *req, sk_error_t *err)
{
	json_error_t jerr;
	json_t *o;

	if (req->body_obj && json_is_object(req->body_obj))
		return req->body_owned ? json_incref(req->body_obj) : json_deep_copy(req->body_obj);
	if (!req->body || !req->body_len) {
		sk_error_set(err, SK_EBADREQUEST, "the body of the request was empty");
		return NULL;
	}
	o = sk_json_loadb_ex(req->body, req->body_len, JSON_REJECT_DUPLICATES, &jerr);
	if (!o) {
		sk_error_set(err, SK_EBADREQUEST, "couldn't get version/kind; json parse error: %s", jerr.text);
		return NULL;
	}
	if (!json_is_object(o)) {
		json_decref(o);
		sk_error_set(err, SK_EBADREQUEST, "the body of the request must be a JSON object");
		return NULL;
	}
	return o;
}

/* Checks and fills kind/apiVersion. */
static int check_type(const sk_api_resource *r, json_t *obj, sk_error_t *err)
{
	const char *kind = json_string_value(json_object_get(obj, "kind"));
	const char *av = json_string_value(json_object_get(obj, "apiVersion"));
	char gv[96];

	sk__resource_gv(r, gv, sizeof(gv));
	if (av && *av && strcmp(av, gv))
		return sk_error_set(err, SK_EBADREQUEST,
				    "the API version in the data (%s) does not match the expected API version (%s)", av,
				    gv);
	if (kind && *kind && strcmp(kind, r->kind))
		return sk_error_set(err, SK_EBADREQUEST,
				    "the kind in the data (%s) does not match the expected kind (%s)", kind, r->kind);
	json_object_set_new(obj, "kind", json_string(r->kind));
	json_object_set_new(obj, "apiVersion", json_string(gv));
	return 0;
}

static int check_namespace(const sk_api_resource *r, const sk_path *p, json_t *obj, sk_error_t *err)
{
	json_t *meta = meta_of(obj);
	const char *ns = json_string_value(json_object_get(meta, "namespace"));

	if (!r->namespaced) {
		json_object_del(meta, "namespace");
		return 0;
	}
	if (ns && *ns && strcmp(ns, p->ns))
		return sk_error_set(
			err, SK_EBADREQUEST,
			"the namespace of the provided object does not match the namespace sent on the request");
	json_object_set_new(meta, "namespace", json_string(p->ns));
	return 0;
}

/* Reads the current object; *rev gets its mod revision. */
static json_t *load(sk_api *api, const sk_api_resource *r, const char *ns, const char *name, int64_t *rev,
		    sk_error_t *err)
{
	cleanup_free char *key = sk__obj_key(r, ns, name);
	sk_store_kv kv;
	json_t *o;

	if (sk_store_get(api->store, key, &kv, err) < 0) {
		if (err->code == SK_ENOTFOUND)
			sk_error_set(err, SK_ENOTFOUND, "%s%s%s \"%s\" not found", r->plural, r->group[0] ? "." : "",
				     r->group, name);
		return NULL;
	}
	o = sk__obj_decode(kv.value, kv.len, kv.mod_rev);
	*rev = kv.mod_rev;
	sk_store_kv_release(&kv);
	if (!o)
		sk_error_set(err, SK_EINTERNAL, "%s \"%s\": stored object is corrupt", r->plural, name);
	/* versions share one stored form: a write through another served
	 * version starts from the object as that version */
	sk__obj_as(r, o);
	return o;
}

/* Writes to one object (PUT, PATCH and DELETE of it, its status and
 * scale, POST of a binding) start from the copy in memory without asking
 * etcd first, as upstream's GuaranteedUpdate starts from the watch cache's
 * copy: the store write compares the revision they started from, so a
 * stale copy cannot overwrite anything. An attempt that fails on it (the
 * object missing, a conflict, a refusal) may have met a stale copy, so,
 * once per request, the write waits until memory holds what etcd holds
 * (sk_store_sync) and is retried when the object changed meanwhile; else
 * its error stands, as upstream's "cached data was not stale". rev is the
 * revision the attempt started from (0: the object was missing). Returns
 * 1 to retry, 0 to keep err, -1 with err replaced by the store's (etcd
 * cannot say: no quorum). */
static int stale(sk_api *api, const sk_api_resource *r, const char *ns, const char *name, int64_t rev, int *synced,
		 sk_error_t *err)
{
	cleanup_free char *key = NULL;
	sk_error_t e = {0};
	sk_store_kv kv;
	int64_t cur = 0;

	/* no answer from the store (etcd unreachable, its own error, a
	 * deadline): the write may have been applied, so it is not made again
	 * (a delete would answer NotFound for itself); its outcome is unknown,
	 * as upstream's */
	if (*synced || err->code == SK_EUNAVAILABLE || err->code == SK_EUNKNOWN || err->code == SK_ETIMEOUT)
		return 0;
	*synced = 1;
	if (sk_store_sync(api->store, &e) < 0) {
		*err = e;
		return -1;
	}
	key = sk__obj_key(r, ns, name);
	if (sk_store_get(api->store, key, &kv, &e) == 0) {
		cur = kv.mod_rev;
		sk_store_kv_release(&kv);
	}
	sk_error_clear(&e);
	if (cur == rev)
		return 0;
	sk_error_clear(err);
	return 1;
}

/* Takes back a reply (and the warnings after the first warn bytes) that an
 * attempt wrote before it is retried. */
static void unreply(sk_api_response *resp, size_t warn)
{
	free(resp->body);
	resp->body = NULL;
	resp->len = 0;
	json_decref(resp->obj);
	resp->obj = NULL;
	resp->status = 0;
	if (resp->warning && warn < strlen(resp->warning))
		resp->warning[warn] = '\0';
	if (resp->warning && !warn) {
		free(resp->warning);
		resp->warning = NULL;
	}
}

static size_t warn_len(const sk_api_response *resp) { return resp->warning ? strlen(resp->warning) : 0; }

/* Adds one Warning header value (299 - "text", quotes and backslashes
 * escaped as upstream's NewWarningHeader) to resp; warnings beyond 4 KiB in
 * all are dropped, as upstream's recorder truncates them. */
void sk__add_warning(sk_api_response *resp, const char *text)
{
	size_t have = resp->warning ? strlen(resp->warning) : 0, n = 0;
	char *w = xmalloc(2 * strlen(text) + 10);

	memcpy(w, "299 - \"", 7);
	n = 7;
	for (const char *c = text; *c; c++) {
		if (*c == '"' || *c == '\\')
			w[n++] = '\\';
		/* a field name may hold control characters; a header line may not */
		w[n++] = (unsigned char)*c < 0x20 || *c == 0x7f ? '?' : *c;
	}
	w[n++] = '"';
	w[n] = '\0';
	if (have + n + 1 > 4096) {
		free(w);
		return;
	}
	if (!resp->warning) {
		resp->warning = w;
		return;
	}
	resp->warning = xrealloc(resp->warning, have + n + 2);
	resp->warning[have] = '\n'; /* one header per line (http.c) */
	memcpy(resp->warning + have + 1, w, n + 1);
	free(w);
}

/* fieldValidation=Strict: one 400 naming every unknown field, as upstream's
 * strict decoder; 0 when there is none. */
static int refuse_unknown(json_t *unknown, sk_error_t *err)
{
	char buf[1024];
	size_t off = 0, i;
	json_t *u;

	if (!json_array_size(unknown))
		return 0;
	buf[0] = '\0';
	json_array_foreach(unknown, i, u) {
		off += (size_t)snprintf(buf + off, off < sizeof(buf) ? sizeof(buf) - off : 0, "%sunknown field \"%s\"",
					i ? ", " : "", json_string_value(u));
		if (off >= sizeof(buf))
			break;
	}
	return sk_error_set(err, SK_EBADREQUEST, "strict decoding error: %s", buf);
}

/* The pruned fields: a Warning each under Warn (the default), none under Ignore. */
static void warn_unknown(const char *fv, json_t *unknown, sk_api_response *resp)
{
	size_t i;
	json_t *u;

	if (fv && !strcmp(fv, "Ignore"))
		return;
	json_array_foreach(unknown, i, u) {
		cleanup_free char *text = xasprintf("unknown field \"%s\"", json_string_value(u));

		sk__add_warning(resp, text);
	}
}

/* Unknown fields per fieldValidation (default Warn): Strict rejects the
 * request; Warn and Ignore drop them from the object, as upstream's decoder
 * into typed structs (and its pruning of custom objects) does, and Warn
 * sends one Warning header each. Custom kinds prune by their CRD's schema. */
static int check_fields(const sk_api_request *req, const sk_api_resource *r, json_t *obj, sk_api_response *resp,
			sk_error_t *err)
{
	const char *fv = sk__arg(req, "fieldValidation");
	int strict = fv && !strcmp(fv, "Strict");
	const sk_schema *sc;
	cleanup_json json_t *unknown = NULL;

	if (r->ops && r->ops->prune) {
		if (strict) {
			cleanup_json json_t *copy = json_deep_copy(obj);

			unknown = r->ops->prune(r, copy);
			return refuse_unknown(unknown, err);
		}
		unknown = r->ops->prune(r, obj);
		warn_unknown(fv, unknown, resp);
		return 0;
	}
	sc = sk_schema_for_kind(r->group, r->version, r->kind);
	if (!sc)
		return 0;
	if (sk_schema_check_types(sc, obj, err) < 0)
		return sk_error_wrap(err, "%s in version \"%s\" cannot be handled as a %s", r->kind, r->version,
				     r->kind);
	if (strict) {
		unknown = sk_schema_unknown_fields(sc, obj);
		return refuse_unknown(unknown, err);
	}
	unknown = sk_schema_prune_unknown(sc, obj);
	warn_unknown(fv, unknown, resp);
	return 0;
}

enum { SUB_EPHEMERAL = 3 };

static json_t *validate_causes(const sk_api_resource *r, json_t *obj, json_t *old, int status_sub)
{
	if (status_sub == SUB_EPHEMERAL)
		return sk_validate_pod_ephemeral(obj, old);
	if (r->ops && r->ops->validate)
		return r->ops->validate(r, obj, old, status_sub);
	return status_sub ? sk_validate_status(r->kind, obj, old) : NULL;
}

static void reply_invalid(const sk_api_resource *r, json_t *obj, json_t *causes, sk_api_response *resp)
{
	cleanup_free char *msg = sk_validate_message_group(r->kind, r->group, meta_str(obj, "name"), causes);
	/* details.kind is the Kind for Invalid, as upstream's NewInvalid */
	sk_api_resource qk = *r;

	qk.plural = r->kind;
	sk__reply_status(resp, 422, "Invalid", msg, &qk, meta_str(obj, "name"), causes);
}

static int validate(const sk_api_resource *r, json_t *obj, json_t *old, int status_sub, sk_api_response *resp)
{
	cleanup_json json_t *causes = validate_causes(r, obj, old, status_sub);
	size_t i = 0;

	/* ratcheted errors (crschema.h) are warnings: "<field>: <message>", as upstream's e.Error() */
	while (i < json_array_size(causes)) {
		json_t *c = json_array_get(causes, i);

		if (json_is_true(json_object_get(c, "warning"))) {
			cleanup_free char *w = xasprintf("%s: %s", json_string_value(json_object_get(c, "field")),
							 json_string_value(json_object_get(c, "message")));

			sk__add_warning(resp, w);
			json_array_remove(causes, i);
		} else {
			i++;
		}
	}
	if (!causes || !json_array_size(causes))
		return 0;
	reply_invalid(r, obj, causes, resp);
	return -1;
}

/* A validating admission plugin refused: with causes, 422 Invalid by field
 * (replied: -2), else -1 and its err. */
static int refused(const sk_api_resource *r, json_t *obj, sk_adm_request *adm, sk_api_response *resp)
{
	cleanup_json json_t *causes = steal_ptr(&adm->causes);

	if (!causes)
		return -1;
	reply_invalid(r, obj, causes, resp);
	return -2;
}

/* The kind's begin_write (its allocations): 0, 1 when it replied (422
 * Invalid), -1 + err. *txn goes to end_write. */
static int begin_write(sk_api *api, const sk_api_resource *r, json_t *obj, json_t *old, int dry_run, void **txn,
		       sk_api_response *resp, sk_error_t *err)
{
	cleanup_json json_t *causes = NULL;

	*txn = NULL;
	if (!r->ops || !r->ops->begin_write || !r->ops->begin_write(api, r, obj, old, dry_run, txn, &causes, err))
		return 0;
	if (!causes)
		return -1;
	reply_invalid(r, obj, causes, resp);
	return 1;
}

static void end_write(sk_api *api, const sk_api_resource *r, void *txn, int ok)
{
	if (r->ops && r->ops->end_write)
		r->ops->end_write(api, r, txn, ok);
}

static void deleted(sk_api *api, const sk_api_resource *r, json_t *obj)
{
	if (r->ops && r->ops->deleted)
		r->ops->deleted(api, r, obj);
}

static void reply_obj(sk_api_response *resp, int status, json_t *obj) { sk__reply_json(resp, status, obj); }

static void set_rv(json_t *obj, int64_t rev)
{
	char num[24];

	snprintf(num, sizeof(num), "%lld", (long long)rev);
	json_object_set_new(meta_of(obj), "resourceVersion", json_string(num));
}

/* The stored text of a write, reused for the reply (no second encoding). */
typedef struct stored {
	char *text;
	size_t len;
} stored;

/* Replies with the object just written at rev: in-process callers get obj
 * itself, HTTP callers the stored text with its resourceVersion. */
static void reply_stored(sk_api_response *resp, int status, json_t *obj, stored *st, int64_t rev)
{
	size_t len;
	char *body;

	if (resp->want_obj || !st->text) {
		set_rv(obj, rev);
		reply_obj(resp, status, obj);
		return;
	}
	body = sk__obj_splice_rv(st->text, st->len, rev, &len);
	sk__reply_raw(resp, status, body, len);
}

/* etcd refuses a write past its request limit (--max-request-bytes, 1.5 MiB
 * by default) and kube-apiserver passes its error on as a 500 without a
 * reason; skiff keeps that bound so that what it stores fits an etcd too. */
enum { STORE_MAX_REQUEST = 3 * 512 * 1024 };

static int too_large_for_store(const char *key, size_t len, sk_error_t *err)
{
	if (strlen(key) + len <= STORE_MAX_REQUEST)
		return 0;
	sk_error_set(err, SK_EUNKNOWN, "etcdserver: request is too large");
	return 1;
}

/* Writes obj as a new key. Returns the stored revision or -1; st (if not
 * NULL) receives the stored text (caller frees st->text). */
static int64_t store_create(sk_api *api, const sk_api_resource *r, json_t *obj, stored *st, sk_error_t *err)
{
	cleanup_free char *key = sk__obj_key(r, meta_str(obj, "namespace"), meta_str(obj, "name"));
	size_t len;
	cleanup_free char *val = sk__obj_encode(obj, &len);
	int64_t rev = too_large_for_store(key, len, err) ? -1 : sk_store_create(api->store, key, val, len, err);

	if (st && rev >= 0) {
		st->text = steal_ptr(&val);
		st->len = len;
	}
	if (rev < 0 && err->code == SK_EEXISTS)
		sk_error_set(err, SK_EEXISTS, "%s%s%s \"%s\" already exists", r->plural, r->group[0] ? "." : "",
			     r->group, meta_str(obj, "name"));
	return rev;
}

static int64_t store_update(sk_api *api, const sk_api_resource *r, json_t *obj, int64_t expect, stored *st,
			    sk_error_t *err)
{
	cleanup_free char *key = sk__obj_key(r, meta_str(obj, "namespace"), meta_str(obj, "name"));
	size_t len;
	cleanup_free char *val = sk__obj_encode(obj, &len);
	int64_t rev = too_large_for_store(key, len, err) ? -1 : sk_store_update(api->store, key, val, len, expect, err);

	if (rev >= 0)
		sk__selcache_written(api->selcache, key, rev, obj);
	if (st && rev >= 0) {
		st->text = steal_ptr(&val);
		st->len = len;
	}
	if (rev < 0 && err->code == SK_ECONFLICT)
		sk_error_set(
			err, SK_ECONFLICT,
			"Operation cannot be fulfilled on %s%s%s \"%s\": the object has been modified; please apply "
			"your changes to the latest version and try again",
			r->plural, r->group[0] ? "." : "", r->group, meta_str(obj, "name"));
	else if (rev < 0 && err->code == SK_ENOTFOUND)
		sk_error_set(err, SK_ENOTFOUND, "%s%s%s \"%s\" not found", r->plural, r->group[0] ? "." : "", r->group,
			     meta_str(obj, "name"));
	return rev;
}

/* Defaulting: the kind's defaults hook. A built-in kind's spec is a struct
 * upstream, serialized even when empty ("spec": {}), so clients may index it
 * without a check. */
static void default_obj(const sk_api_resource *r, json_t *obj)
{
	if (r->has_spec && !r->custom && json_is_object(obj) && !json_object_get(obj, "spec"))
		json_object_set_new(obj, "spec", json_object());
	if (r->ops && r->ops->defaults)
		r->ops->defaults(r, obj);
}

/* ---- create ---- */

static int prepare_create(sk_api *api, const sk_api_request *req, const sk_path *p, json_t *obj, int from_apply,
			  sk_api_response *resp, sk_error_t *err)
{
	const sk_api_resource *r = p->res;
	sk_adm_request adm = {.op = SK_ADM_CREATE,
			      .annotations = sk__audit_annotations(api, resp),
			      .user = req->user,
			      .res = r,
			      .sub = "",
			      .ns = r->namespaced ? p->ns : "",
			      .dry_run = is_dry_run(req),
			      .resp = resp};
	json_t *meta;
	const char *name, *gen;
	char uid[40], ts[32];

	if (check_type(r, obj, err) < 0 || check_namespace(r, p, obj, err) < 0)
		return -1;
	if (check_fields(req, r, obj, resp, err) < 0)
		return -1;
	meta = meta_of(obj);
	name = json_string_value(json_object_get(meta, "name"));
	gen = json_string_value(json_object_get(meta, "generateName"));
	if ((!name || !*name) && gen && *gen)
		generate_name(meta);
	sk__new_uuid(uid, sizeof(uid));
	now_rfc3339(ts, sizeof(ts));
	json_object_set_new(meta, "uid", json_string(uid));
	json_object_set_new(meta, "creationTimestamp", json_string(ts));
	json_object_del(meta, "resourceVersion");
	json_object_del(meta, "deletionTimestamp");
	json_object_del(meta, "deletionGracePeriodSeconds");
	if (generation_tracked(r))
		json_object_set_new(meta, "generation", json_integer(1));
	else
		json_object_del(meta, "generation");
	default_obj(r, obj);
	if (sk__admit_create(api, r, obj, err) < 0)
		return -1;
	if (r->ops && r->ops->set_requestor)
		r->ops->set_requestor(r, obj, req->user);
	adm.obj = obj;
	adm.name = meta_str(obj, "name") ? meta_str(obj, "name") : "";
	if (sk__admission_mutate(api, &adm, err) < 0)
		return -1;
	if (validate(r, obj, NULL, 0, resp) < 0)
		return -2;
	if (r->ops && r->ops->authorize_write && r->ops->authorize_write(api, r, req->user, obj, NULL, err) < 0)
		return -1;
	if (sk__admission_validate(api, &adm, err) < 0)
		return refused(r, obj, &adm, resp);
	if (!from_apply && r->custom)
		sk__custom_managed_fields_update(r, NULL, obj, field_manager(req, "unknown"),
						 json_string_value(json_object_get(obj, "apiVersion")), NULL);
	else if (!from_apply)
		sk_managed_fields_update(NULL, obj, field_manager(req, "unknown"),
					 json_string_value(json_object_get(obj, "apiVersion")), NULL);
	return 0;
}

/* Creates the object in the request body; from_apply marks a server-side
 * apply that created it (its managedFields already name the applier). */
static void create_obj(sk_api *api, const sk_api_request *req, const sk_path *p, int from_apply, sk_api_response *resp)
{
	sk_error_t err = {0};
	cleanup_json json_t *obj = parse_body(req, &err);
	stored st = {0};
	const char *name, *gen;
	void *txn;
	int64_t rev;
	int rc, generated;

	if (!obj)
		goto fail;
	if (p->all_namespaces && p->res->namespaced) {
		sk_error_set(&err, SK_EBADREQUEST, "the namespace of the object must be set on the request");
		goto fail;
	}
	name = json_string_value(json_object_get(json_object_get(obj, "metadata"), "name"));
	gen = json_string_value(json_object_get(json_object_get(obj, "metadata"), "generateName"));
	generated = (!name || !*name) && gen && *gen;
	rc = prepare_create(api, req, p, obj, from_apply, resp, &err);
	if (rc == -2)
		return;
	if (rc < 0)
		goto fail;
	rc = begin_write(api, p->res, obj, NULL, is_dry_run(req), &txn, resp, &err);
	if (rc > 0)
		return;
	if (rc < 0)
		goto fail;
	if (is_dry_run(req)) {
		end_write(api, p->res, txn, 0);
		reply_obj(resp, 201, obj);
		return;
	}
	rev = store_create(api, p->res, obj, &st, &err);
	/* RetryGenerateName (on by default since 1.31): a generated name that
	 * collides is drawn again, 8 attempts in all as upstream's store. */
	for (int tries = 1; rev < 0 && err.code == SK_EEXISTS && generated && tries < 8; tries++) {
		generate_name(meta_of(obj));
		sk_error_clear(&err);
		rev = store_create(api, p->res, obj, &st, &err);
	}
	end_write(api, p->res, txn, rev >= 0);
	if (rev < 0)
		goto fail;
	reply_stored(resp, 201, obj, &st, rev);
	free(st.text);
	return;
fail:
	sk__reply_error(resp, &err, p->res, meta_str(obj, "name"));
}

static void do_create(sk_api *api, const sk_api_request *req, const sk_path *p, sk_api_response *resp)
{
	create_obj(api, req, p, 0, resp);
}

/* ---- get / list ---- */

static void reply_one(sk_api *api, const sk_api_request *req, const sk_api_resource *r, const sk_store_kv *kv,
		      sk_api_response *resp)
{
	size_t len;
	char *body;

	if (sk__wants_table(req)) {
		cleanup_json json_t *items = json_array(), *meta = json_object(), *t = NULL;
		json_t *o = sk__obj_decode(kv->value, kv->len, kv->mod_rev);
		const char *io = sk__arg(req, "includeObject");

		sk__obj_as(r, o);
		if (o)
			json_array_append_new(items, o);
		t = sk__to_table(r, items, meta, io && !strcmp(io, "Object"));
		reply_obj(resp, 200, t);
		return;
	}
	body = sk__obj_splice_rv(kv->value, kv->len, kv->mod_rev, &len);
	body = sk__obj_text_for(r, body, &len);
	sk__reply_raw(resp, 200, body, len);
}

static void do_get(sk_api *api, const sk_api_request *req, const sk_path *p, sk_api_response *resp)
{
	cleanup_free char *key = sk__obj_key(p->res, p->ns, p->name);
	sk_error_t err = {0};
	sk_store_kv kv;
	int64_t want;

	if (sk__rv_parse(sk__arg(req, "resourceVersion"), &want, &err) < 0) {
		sk__reply_error(resp, &err, p->res, p->name);
		return;
	}
	if (want > sk_store_rev(api->store)) {
		sk_error_set(&err, SK_ETIMEOUT, "Too large resource version: %lld, current: %lld", (long long)want,
			     (long long)sk_store_rev(api->store));
		sk__reply_error(resp, &err, p->res, p->name);
		return;
	}
	if (sk_store_get(api->store, key, &kv, &err) < 0) {
		if (err.code == SK_ENOTFOUND) /* else the store's own error: etcd unavailable */
			sk_error_set(&err, SK_ENOTFOUND, "%s%s%s \"%s\" not found", p->res->plural,
				     p->res->group[0] ? "." : "", p->res->group, p->name);
		sk__reply_error(resp, &err, p->res, p->name);
		return;
	}
	reply_one(api, req, p->res, &kv, resp);
	sk_store_kv_release(&kv);
}

/* Continue tokens: base64 of {"rv":N,"start":"key"} as upstream. */
static char *encode_continue(int64_t rev, const char *key)
{
	cleanup_json json_t *t = json_pack("{s:s, s:I, s:s}", "v", "meta.k8s.io/v1", "rv", (json_int_t)rev, "start",
					   key);
	cleanup_free char *s = json_dumps(t, JSON_COMPACT);
	gnutls_datum_t in = {(unsigned char *)s, (unsigned)strlen(s)}, out = {NULL, 0};
	char *r;

	if (gnutls_base64_encode2(&in, &out) < 0)
		abort();
	r = xstrndup((char *)out.data, out.size);
	gnutls_free(out.data);
	return r;
}

static int decode_continue(const char *tok, int64_t *rev, char **key, sk_error_t *err)
{
	gnutls_datum_t in = {(unsigned char *)tok, (unsigned)strlen(tok)}, out = {NULL, 0};
	cleanup_json json_t *t = NULL;

	if (gnutls_base64_decode2(&in, &out) < 0)
		return sk_error_set(err, SK_EBADREQUEST, "continue key is not valid: illegal base64 data");
	t = json_loadb((char *)out.data, out.size, 0, NULL);
	gnutls_free(out.data);
	if (!json_is_string(json_object_get(t, "start")) || !json_is_integer(json_object_get(t, "rv")))
		return sk_error_set(
			err, SK_EBADREQUEST,
			"continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)");
	*rev = json_integer_value(json_object_get(t, "rv"));
	/* -1: continue at the newest revision (the token of a 410); 0 is no token's */
	if (*rev == 0 || *rev < -1)
		return sk_error_set(
			err, SK_EBADREQUEST,
			"continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)");
	*key = xstrdup(json_string_value(json_object_get(t, "start")));
	return 0;
}

typedef struct list_filter {
	sk_kube_label_selector *labels;
	sk_kube_field_selector *fields;
	const sk_api_resource *res; /* the kind listed */
} list_filter;

static void list_filter_release(list_filter *f)
{
	sk_kube_label_selector_free(f->labels);
	sk_kube_field_selector_free(f->fields);
}

static int list_filter_init(list_filter *f, const sk_api_request *req, const sk_api_resource *r, sk_error_t *err)
{
	const char *ls = sk__arg(req, "labelSelector"), *fs = sk__arg(req, "fieldSelector");

	memset(f, 0, sizeof(*f));
	f->res = r;
	if (ls && *ls && !(f->labels = sk_kube_label_selector_parse(ls, err)))
		return -1;
	if (fs && *fs) {
		f->fields = sk_kube_field_selector_parse(fs, err);
		if (!f->fields || (r->custom ? sk__custom_field_check(r, f->fields, err)
					     : sk_kube_field_selector_check(
						       f->fields, r->ops ? r->ops->field_labels : NULL, err)) < 0)
			return -1;
	}
	return 0;
}

static int list_filter_match(const list_filter *f, json_t *obj)
{
	if (f->labels &&
	    !sk_kube_label_selector_match(f->labels, json_object_get(json_object_get(obj, "metadata"), "labels")))
		return 0;
	if (f->fields && !sk_kube_field_selector_match(f->fields, obj))
		return 0;
	return 1;
}

/* Items of a list as stored text (resourceVersion spliced in), so a list
 * that needs no Table is answered without decoding and re-encoding. */
typedef struct raw_items {
	char **v;
	size_t *len;
	size_t n, cap, bytes;
} raw_items;

static void raw_items_add(raw_items *ri, char *s, size_t len)
{
	if (ri->n == ri->cap) {
		ri->cap = ri->cap ? ri->cap * 2 : 64;
		ri->v = xrealloc(ri->v, ri->cap * sizeof(*ri->v));
		ri->len = xrealloc(ri->len, ri->cap * sizeof(*ri->len));
	}
	ri->v[ri->n] = s;
	ri->len[ri->n++] = len;
	ri->bytes += len + 1;
}

static void raw_items_release(raw_items *ri)
{
	for (size_t i = 0; i < ri->n; i++)
		free(ri->v[i]);
	free(ri->v);
	free(ri->len);
	memset(ri, 0, sizeof(*ri));
}

/* Whether a stored item passes f: from the selectable-fields cache when it
 * has the item's values at its revision, else decoded (and cached). */
static int filter_item(sk_api *api, const list_filter *f, const sk_store_kv *kv)
{
	cleanup_json json_t *o = NULL;
	int m = sk__selcache_match(api->selcache, kv->key, kv->mod_rev, f->labels, f->fields);

	if (m >= 0)
		return m;
	o = sk__obj_decode(kv->value, kv->len, kv->mod_rev);
	if (!o)
		return 0;
	sk__selcache_put(api->selcache, kv->key, kv->mod_rev, o, f->fields);
	return list_filter_match(f, o);
}

/* Reads up to limit matching items after `*after` (advanced as it goes) at
 * rev (0: now; set to the revision read on the first page of a limited
 * list). *more is set when items remain. */
static int collect(sk_api *api, const char *prefix, char **after, size_t limit, int64_t *rev, int64_t *list_rev,
		   const list_filter *f, raw_items *out, int *more, int fresh, sk_error_t *err)
{
	int filtered = f->labels || f->fields;

	for (;;) {
		sk_store_list l = {0};
		size_t chunk = limit ? limit - out->n + 1 : 0;
		int exhausted;

		if (sk_store_range(api->store, prefix, *after, chunk, !*rev && fresh ? SK_STORE_REV_FRESH : *rev, &l,
				   err) < 0)
			return -1;
		*list_rev = l.rev;
		if (!*rev && limit)
			*rev = l.rev;
		for (size_t i = 0; i < l.n; i++) {
			size_t len;

			if (limit && out->n == limit) {
				*more = 1;
				break;
			}
			free(*after);
			*after = xstrdup(l.items[i].key);
			if (filtered && !filter_item(api, f, &l.items[i]))
				continue;
			{
				char *v = sk__obj_splice_rv(l.items[i].value, l.items[i].len, l.items[i].mod_rev, &len);

				v = sk__obj_text_for(f->res, v, &len);
				raw_items_add(out, v, len);
			}
		}
		exhausted = !l.more;
		sk_store_list_release(&l);
		if (*more || exhausted || !limit)
			return 0;
	}
}

/* Writes {"kind":…,"metadata":…,"items":[<raw items>]}: jansson makes the
 * envelope with empty items, the stored texts go between the brackets. */
static void reply_raw_list(sk_api_response *resp, const sk_api_resource *r, json_t *lmeta, const raw_items *ri)
{
	char gv[96], lk[96];
	cleanup_json json_t *env = NULL;
	cleanup_free char *head = NULL;
	size_t hl, off;
	char *body;

	sk__resource_gv(r, gv, sizeof(gv));
	env = json_pack("{s:s, s:s, s:O, s:[]}", "kind", sk__resource_list_kind(r, lk, sizeof(lk)), "apiVersion", gv,
			"metadata", lmeta, "items");
	head = json_dumps(env, JSON_COMPACT);
	hl = strlen(head); /* ends with "[]}" */
	body = xmalloc(hl + ri->bytes + 1);
	memcpy(body, head, hl - 2);
	off = hl - 2;
	for (size_t i = 0; i < ri->n; i++) {
		if (i)
			body[off++] = ',';
		memcpy(body + off, ri->v[i], ri->len[i]);
		off += ri->len[i];
	}
	memcpy(body + off, "]}", 2);
	off += 2;
	body[off] = '\0';
	sk__reply_raw(resp, 200, body, off);
}

#define CONTINUE_EXPIRED \
	"The provided continue parameter is too old to display a consistent list result. You can start a new " \
	"list without the continue parameter, or use the continue token in this response to retrieve the " \
	"remainder of the results. Continuing with the provided token results in an inconsistent list - " \
	"objects that were created, modified, or deleted between the time the first chunk was returned and " \
	"now may show up in the list."

static void do_list(sk_api *api, const sk_api_request *req, const sk_path *p, sk_api_response *resp)
{
	const sk_api_resource *r = p->res;
	cleanup_free char *prefix = sk__obj_prefix(r, p->all_namespaces ? NULL : p->ns);
	cleanup_free char *after = NULL;
	const char *cont = sk__arg(req, "continue"), *rvs;
	int64_t rev = 0, list_rev = 0, lim = 0, timeout;
	cleanup_json json_t *lmeta = json_object();
	raw_items ri = {0};
	sk_error_t err = {0};
	list_filter f = {0};
	size_t limit;
	char num[24];
	int more = 0;

	if (sk__arg_int64(req, "limit", &lim, &err) < 0 || sk__arg_int64(req, "timeoutSeconds", &timeout, &err) < 0)
		goto fail;
	/* upstream reads a negative limit as none; past LIST_LIMIT_MAX, no store has more */
	limit = lim <= 0 ? 0 : (size_t)(lim > LIST_LIMIT_MAX ? LIST_LIMIT_MAX : lim);
	if (sk__list_options_check(req, resp) < 0)
		return;
	if (list_filter_init(&f, req, r, &err) < 0 || sk__list_revision(api, req, limit > 0, &rev, &err) < 0)
		goto fail;
	if (cont && *cont && decode_continue(cont, &rev, &after, &err) < 0)
		goto fail;
	/* resourceVersion unset: a consistent read ("0": any state, memory's) */
	rvs = sk__arg(req, "resourceVersion");
	if (collect(api, prefix, &after, limit, &rev, &list_rev, &f, &ri, &more, !rev && !(rvs && *rvs), &err) < 0) {
		if (err.code == SK_EGONE && cont && *cont) {
			/* as upstream's handleCompactedErrorForPaging: the Status
			 * carries a token that continues at the newest revision */
			cleanup_free char *tok = encode_continue(-1, after);
			cleanup_json json_t *st = NULL;

			raw_items_release(&ri);
			list_filter_release(&f);
			sk__reply_status(resp, 410, "Expired", CONTINUE_EXPIRED, NULL, NULL, NULL);
			st = sk_json_loadb(resp->body, resp->len);
			if (st) {
				json_object_set_new(json_object_get(st, "metadata"), "continue", json_string(tok));
				free(resp->body);
				resp->body = NULL;
				sk__reply_json(resp, 410, st);
			}
			return;
		}
		if (err.code == SK_EGONE)
			sk_error_set(&err, SK_EGONE, "The resourceVersion for the provided list is too old.");
		goto fail;
	}
	if (more) {
		cleanup_free char *tok = encode_continue(rev, after);

		json_object_set_new(lmeta, "continue", json_string(tok));
	}
	snprintf(num, sizeof(num), "%lld", (long long)(rev ? rev : list_rev));
	json_object_set_new(lmeta, "resourceVersion", json_string(num));
	if (sk__wants_table(req)) {
		const char *io = sk__arg(req, "includeObject");
		cleanup_json json_t *items = json_array(), *t = NULL;

		for (size_t i = 0; i < ri.n; i++) {
			json_t *o = sk_json_loadb(ri.v[i], ri.len[i]);

			if (o)
				json_array_append_new(items, o);
		}
		t = sk__to_table(r, items, lmeta, io && !strcmp(io, "Object"));
		reply_obj(resp, 200, t);
	} else {
		reply_raw_list(resp, r, lmeta, &ri);
	}
	raw_items_release(&ri);
	list_filter_release(&f);
	return;
fail:
	raw_items_release(&ri);
	list_filter_release(&f);
	sk__reply_error(resp, &err, r, NULL);
}

/* ---- update and patch ---- */

static int spec_changed(json_t *old, json_t *obj)
{
	json_t *a = json_object_get(old, "spec"), *b = json_object_get(obj, "spec");

	if (!a && !b)
		return 0;
	return !a || !b || !json_equal(a, b);
}

/* Carries what clients cannot change from old into obj. For the main
 * resource the status is kept; for /status only the status is taken. */
static void carry_over(const sk_api_resource *r, json_t *old, json_t *obj, int status_sub)
{
	json_t *om = meta_of(old), *nm = meta_of(obj);
	static const char *const fixed[] = {
		"uid", "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds", "generation", NULL};

	if (status_sub == SUB_EPHEMERAL) {
		/* upstream's dropNonEphemeralContainerUpdates: the old pod with
		 * the new spec.ephemeralContainers */
		json_t *ec = json_incref(json_object_get(json_object_get(obj, "spec"), "ephemeralContainers"));
		json_t *mf = json_incref(json_object_get(nm, "managedFields"));
		json_t *spec = json_deep_copy(json_object_get(old, "spec"));
		const char *k;
		json_t *v;
		void *tmp;

		json_object_foreach_safe(obj, tmp, k, v)
			json_object_del(obj, k);
		json_object_update(obj, old);
		json_object_set_new(obj, "metadata", json_copy(om));
		if (!json_is_object(spec))
			spec = (json_decref(spec), json_object());
		if (ec)
			json_object_set_new(spec, "ephemeralContainers", ec);
		else
			json_object_del(spec, "ephemeralContainers");
		json_object_set_new(obj, "spec", spec);
		if (mf)
			json_object_set_new(meta_of(obj), "managedFields", mf);
		return;
	}
	if (status_sub) {
		json_t *st = json_incref(json_object_get(obj, "status"));
		json_t *mf = json_incref(json_object_get(nm, "managedFields"));
		const char *k;
		json_t *v;
		void *tmp;

		json_object_foreach_safe(obj, tmp, k, v)
			json_object_del(obj, k);
		json_object_update(obj, old);
		/* a shallow copy: the write only sets and deletes fields of its
		 * own metadata (resourceVersion, managedFields) */
		json_object_set_new(obj, "metadata", json_copy(om));
		nm = meta_of(obj);
		if (st)
			json_object_set_new(obj, "status", st);
		if (mf)
			json_object_set_new(nm, "managedFields", mf);
		return;
	}
	for (int i = 0; fixed[i]; i++) {
		json_t *v = json_object_get(om, fixed[i]);

		if (v)
			json_object_set(nm, fixed[i], v);
		else
			json_object_del(nm, fixed[i]);
	}
	if (r->subresources & SK_SUB_STATUS) {
		json_t *st = json_object_get(old, "status");

		if (st)
			json_object_set(obj, "status", st);
		else
			json_object_del(obj, "status");
	}
}

/* Shared tail of PUT and PATCH: obj is the desired object, old the current
 * one at revision rev. Fills resp. Returns -1 + err on failure (no reply). */
static int finish_update(sk_api *api, const sk_api_request *req, const sk_path *p, json_t *old, int64_t rev,
			 json_t *obj, int status_sub, int is_apply, sk_api_response *resp, sk_error_t *err)
{
	const sk_api_resource *r = p->res;
	sk_adm_request adm = {.op = SK_ADM_UPDATE,
			      .annotations = sk__audit_annotations(api, resp),
			      .user = req->user,
			      .res = r,
			      .sub = p->sub,
			      .ns = r->namespaced ? p->ns : "",
			      .name = p->name,
			      .dry_run = is_dry_run(req),
			      .resp = resp};
	const char *want_rv;
	int64_t expect = rev, nrev;
	void *txn = NULL;
	json_t *fin;

	if (check_type(r, obj, err) < 0 || check_namespace(r, p, obj, err) < 0)
		return -1;
	if (strcmp(meta_str(obj, "name") ? meta_str(obj, "name") : "", p->name))
		return sk_error_set(err, SK_EBADREQUEST,
				    "the name of the object (%s) does not match the name on the URL (%s)",
				    meta_str(obj, "name") ? meta_str(obj, "name") : "", p->name);
	want_rv = meta_str(obj, "resourceVersion");
	if (want_rv && *want_rv && strtoll(want_rv, NULL, 10) != rev)
		return sk_error_set(err, SK_ECONFLICT,
				    "Operation cannot be fulfilled on %s%s%s \"%s\": the object has been modified; "
				    "please apply your changes to the latest version and try again",
				    r->plural, r->group[0] ? "." : "", r->group, p->name);
	if (check_fields(req, r, obj, resp, err) < 0)
		return -1;
	carry_over(r, old, obj, status_sub);
	default_obj(r, obj);
	if (r->ops && r->ops->prepare_update && !status_sub)
		r->ops->prepare_update(api, r, obj, old);
	if (r->ops && r->ops->prepare_sub_update && status_sub)
		r->ops->prepare_sub_update(r, p->sub, obj, old);
	if (generation_tracked(r) && spec_changed(old, obj)) {
		json_int_t g = json_integer_value(json_object_get(meta_of(old), "generation"));

		json_object_set_new(meta_of(obj), "generation", json_integer(g + 1));
	}
	adm.obj = obj;
	adm.old = old;
	if (sk__admission_mutate(api, &adm, err) < 0)
		return -1;
	if (validate(r, obj, old, status_sub, resp) < 0)
		return 1;
	if (!status_sub && r->ops && r->ops->authorize_write &&
	    r->ops->authorize_write(api, r, req->user, obj, old, err) < 0)
		return -1;
	if (sk__admission_validate(api, &adm, err) < 0)
		return refused(r, obj, &adm, resp) == -2 ? 1 : -1;
	if (!status_sub) {
		int rc = begin_write(api, r, obj, old, is_dry_run(req), &txn, resp, err);

		if (rc)
			return rc;
	}
	/* an apply already recorded its manager's ownership */
	if (!is_apply && r->custom)
		sk__custom_managed_fields_update(r, old, obj, field_manager(req, "unknown"),
						 json_string_value(json_object_get(obj, "apiVersion")),
						 status_sub ? p->sub : NULL);
	else if (!is_apply)
		sk_managed_fields_update(old, obj, field_manager(req, "unknown"),
					 json_string_value(json_object_get(obj, "apiVersion")),
					 status_sub ? p->sub : NULL);
	if (is_dry_run(req)) {
		end_write(api, r, txn, 0);
		reply_obj(resp, 200, obj);
		return 0;
	}
	/* An object being deleted goes once its last finalizer is removed. */
	fin = json_object_get(meta_of(obj), "finalizers");
	if (meta_str(obj, "deletionTimestamp") && json_array_size(fin) == 0 &&
	    json_integer_value(json_object_get(meta_of(obj), "deletionGracePeriodSeconds")) == 0) {
		cleanup_free char *key = sk__obj_key(r, p->ns, p->name);

		nrev = sk_store_delete(api->store, key, expect, NULL, err);
		end_write(api, r, txn, 0);
		if (nrev < 0)
			return -1;
		deleted(api, r, old);
		set_rv(obj, nrev);
		reply_obj(resp, 200, obj);
		return 0;
	}
	json_object_del(meta_of(obj), "resourceVersion");
	{
		stored st = {0};

		nrev = store_update(api, r, obj, expect, &st, err);
		end_write(api, r, txn, nrev >= 0);
		if (nrev < 0)
			return -1;
		reply_stored(resp, 200, obj, &st, nrev);
		free(st.text);
	}
	return 0;
}

/* 1 for /status, 2 for /approval (the CSR's status conditions),
 * SUB_EPHEMERAL for pods/ephemeralcontainers, else 0. */
static int status_sub_of(const sk_path *p)
{
	if (!strcmp(p->sub, "status"))
		return 1;
	if (!strcmp(p->sub, "ephemeralcontainers"))
		return SUB_EPHEMERAL;
	return !strcmp(p->sub, "approval") ? 2 : 0;
}

static int allow_create_on_update(const sk_api_resource *r) { return sk__kind_flag(r, SK_KIND_CREATE_ON_UPDATE); }

/* PUT: from the object in memory (see stale()); without a resourceVersion
 * in the body a conflicting write in between is retried, as upstream's
 * GuaranteedUpdate does. */
static void do_update(sk_api *api, const sk_api_request *req, const sk_path *p, sk_api_response *resp)
{
	sk_error_t err = {0};
	cleanup_json json_t *body = parse_body(req, &err);
	const char *want_rv = body ? meta_str(body, "resourceVersion") : NULL;
	int synced = 0;

	if (!body)
		goto fail;
	for (int attempt = 0; attempt < PATCH_RETRIES; attempt++) {
		int64_t rev = 0;
		size_t warn = warn_len(resp);
		cleanup_json json_t *old = load(api, p->res, p->ns, p->name, &rev, &err);
		cleanup_json json_t *obj = NULL;
		int rc;

		if (!old) {
			if (err.code != SK_ENOTFOUND)
				goto fail;
			rc = stale(api, p->res, p->ns, p->name, 0, &synced, &err);
			if (rc > 0)
				continue;
			if (rc == 0 && allow_create_on_update(p->res) && !p->sub[0]) {
				do_create(api, req, p, resp);
				return;
			}
			goto fail;
		}
		obj = json_deep_copy(body);
		rc = finish_update(api, req, p, old, rev, obj, status_sub_of(p), 0, resp, &err);
		if (rc == 0)
			return;
		switch (stale(api, p->res, p->ns, p->name, rev, &synced, &err)) {
		case 1:
			unreply(resp, warn);
			continue;
		case -1:
			unreply(resp, warn);
			goto fail;
		}
		if (rc > 0)
			return;
		if (err.code != SK_ECONFLICT || (want_rv && *want_rv))
			goto fail;
	}
fail:
	sk__reply_error(resp, &err, p->res, p->name);
}

static json_t *apply_patch(const sk_api_request *req, const sk_api_resource *r, json_t *old, json_t *patch,
			   int *is_apply, sk_error_t *err)
{
	const char *ct = req->content_type ? req->content_type : "";
	size_t n = strcspn(ct, ";");

	*is_apply = 0;
	if (sk__kind_flag(r, SK_KIND_NO_STRATEGIC) &&
	    !(!strncmp(ct, SK_PATCH_MERGE, n) && n == strlen(SK_PATCH_MERGE)) &&
	    !(!strncmp(ct, SK_PATCH_JSON, n) && n == strlen(SK_PATCH_JSON)) &&
	    !(!strncmp(ct, SK_PATCH_APPLY, n) && n == strlen(SK_PATCH_APPLY))) {
		/* custom objects have no patch strategies */
		sk_error_set(err, SK_EUNSUPPORTED,
			     "the body of the request was in an unknown format - accepted media types include: "
			     "application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml");
		return NULL;
	}
	if (!strncmp(ct, SK_PATCH_MERGE, n) && n == strlen(SK_PATCH_MERGE))
		return sk_merge_patch(old, patch);
	if (!strncmp(ct, SK_PATCH_JSON, n) && n == strlen(SK_PATCH_JSON))
		return sk_json_patch(old, patch, err);
	if (!strncmp(ct, SK_PATCH_STRATEGIC, n) && n == strlen(SK_PATCH_STRATEGIC))
		return sk_strategic_merge_patch(old, patch, r->kind, err);
	if (!strncmp(ct, SK_PATCH_APPLY, n) && n == strlen(SK_PATCH_APPLY)) {
		*is_apply = 1;
		if (r->custom)
			return sk__custom_apply(r, old, patch, field_manager(req, ""), sk__arg_bool(req, "force"), err);
		return sk_apply(old, patch, sk__kind_flag(r, SK_KIND_NO_STRATEGIC) ? "" : r->kind,
				field_manager(req, ""), sk__arg_bool(req, "force"), err);
	}
	sk_error_set(err, SK_EUNSUPPORTED,
		     "the body of the request was in an unknown format - accepted media types include: "
		     "application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml, "
		     "application/strategic-merge-patch+json");
	return NULL;
}

static json_t *parse_patch_body(const sk_api_request *req, sk_error_t *err)
{
	json_error_t jerr;
	json_t *o;

	if (req->body_obj)
		return json_deep_copy(req->body_obj);
	if (!req->body || !req->body_len) {
		sk_error_set(err, SK_EBADREQUEST, "the body of the request was empty");
		return NULL;
	}
	o = sk_json_loadb_ex(req->body, req->body_len, 0, &jerr);
	if (!o)
		sk_error_set(err, SK_EBADREQUEST, "error decoding patch: %s", jerr.text);
	return o;
}

static void do_patch(sk_api *api, const sk_api_request *req, const sk_path *p, sk_api_response *resp)
{
	sk_error_t err = {0};
	cleanup_json json_t *patch = parse_patch_body(req, &err);
	int status_sub = status_sub_of(p), synced = 0;

	if (!patch)
		goto fail;
	for (int attempt = 0; attempt < PATCH_RETRIES; attempt++) {
		int64_t rev = 0;
		size_t warn = warn_len(resp);
		cleanup_json json_t *old = load(api, p->res, p->ns, p->name, &rev, &err);
		cleanup_json json_t *obj = NULL;
		int is_apply, rc = -1;

		if (!old) {
			const char *ct = req->content_type ? req->content_type : "";

			if (err.code != SK_ENOTFOUND)
				goto fail;
			rc = stale(api, p->res, p->ns, p->name, 0, &synced, &err);
			if (rc > 0)
				continue;
			if (rc == 0 && !strncmp(ct, SK_PATCH_APPLY, strlen(SK_PATCH_APPLY)) && !p->sub[0]) {
				sk_api_request creq = *req;
				cleanup_json json_t *applied = p->res->custom
								       ? sk__custom_apply(p->res, NULL, patch,
											  field_manager(req, ""), 0,
											  &err)
								       : sk_apply(NULL, patch,
										  sk__kind_flag(p->res,
												SK_KIND_NO_STRATEGIC)
											  ? ""
											  : p->res->kind,
										  field_manager(req, ""), 0, &err);
				cleanup_free char *body = NULL;

				if (!applied)
					goto fail;
				body = json_dumps(applied, JSON_COMPACT);
				creq.body = body;
				creq.body_len = strlen(body);
				creq.body_obj = NULL;
				create_obj(api, &creq, p, 1, resp);
				return;
			}
			goto fail;
		}
		obj = apply_patch(req, p->res, old, patch, &is_apply, &err);
		if (obj && !json_is_object(obj)) {
			sk_error_set(&err, SK_EBADREQUEST, "the patch did not produce an object");
			rc = -2;
		} else if (!obj) {
			rc = -2;
		} else {
			/* a patch only sets a precondition when it names a resourceVersion */
			if (!meta_str(patch, "resourceVersion"))
				json_object_del(meta_of(obj), "resourceVersion");
			rc = finish_update(api, req, p, old, rev, obj, status_sub, is_apply, resp, &err);
			if (rc == 0)
				return;
		}
		/* a failed patch (a JSON patch's test among them) may have met a stale copy too */
		switch (stale(api, p->res, p->ns, p->name, rev, &synced, &err)) {
		case 1:
			unreply(resp, warn);
			continue;
		case -1:
			unreply(resp, warn);
			goto fail;
		}
		if (rc > 0)
			return;
		/* only a conflicting write is retried, not a patch that failed (an apply's conflict) */
		if (rc == -2 || err.code != SK_ECONFLICT || meta_str(patch, "resourceVersion"))
			goto fail;
	}
fail:
	sk__reply_error(resp, &err, p->res, p->name);
}

/* ---- delete ---- */

typedef struct delete_opts {
	int64_t grace;           /* -1: not given */
	const char *propagation; /* NULL: default */
	const char *pre_uid, *pre_rv;
	int dry_run;
	const sk_user *user;   /* who deletes, for admission */
	sk_api_response *resp; /* admission's warnings */
} delete_opts;

static int parse_delete_opts(const sk_api_request *req, json_t *body, delete_opts *o, sk_error_t *err)
{
	json_t *pre = json_object_get(body, "preconditions"), *dr = json_object_get(body, "dryRun");

	memset(o, 0, sizeof(*o));
	o->grace = -1;
	if (sk__arg_int64(req, "gracePeriodSeconds", &o->grace, err) < 0)
		return -1;
	if (json_is_integer(json_object_get(body, "gracePeriodSeconds")))
		o->grace = json_integer_value(json_object_get(body, "gracePeriodSeconds"));
	o->propagation = sk__arg(req, "propagationPolicy");
	if (json_is_string(json_object_get(body, "propagationPolicy")))
		o->propagation = json_string_value(json_object_get(body, "propagationPolicy"));
	if (json_is_true(json_object_get(body, "orphanDependents")))
		o->propagation = "Orphan";
	if (o->propagation && strcmp(o->propagation, "Orphan") && strcmp(o->propagation, "Background") &&
	    strcmp(o->propagation, "Foreground"))
		return sk_error_set(err, SK_EINVALID,
				    "propagationPolicy: Unsupported value: \"%s\": supported values: "
				    "\"Foreground\", \"Background\", \"Orphan\"",
				    o->propagation);
	o->pre_uid = json_string_value(json_object_get(pre, "uid"));
	o->pre_rv = json_string_value(json_object_get(pre, "resourceVersion"));
	o->dry_run = is_dry_run(req) || (json_is_array(dr) && json_array_size(dr));
	o->user = req->user;
	o->resp = NULL;
	return 0;
}

static int64_t pod_grace(json_t *pod, const delete_opts *o)
{
	const char *phase = json_string_value(json_object_get(json_object_get(pod, "status"), "phase"));
	json_t *spec = json_object_get(pod, "spec");
	int64_t g;

	if (!json_string_value(json_object_get(spec, "nodeName")))
		return 0;
	if (phase && (!strcmp(phase, "Succeeded") || !strcmp(phase, "Failed")))
		return 0;
	g = o->grace >= 0 ? o->grace : json_integer_value(json_object_get(spec, "terminationGracePeriodSeconds"));
	if (!json_object_get(spec, "terminationGracePeriodSeconds") && o->grace < 0)
		g = 30;
	return g < 0 ? 0 : g;
}

static void add_finalizer(json_t *obj, const char *f)
{
	json_t *fin = json_object_get(meta_of(obj), "finalizers");
	size_t i;
	json_t *v;

	if (!json_is_array(fin)) {
		fin = json_array();
		json_object_set_new(meta_of(obj), "finalizers", fin);
	}
	json_array_foreach(fin, i, v)
		if (json_is_string(v) && !strcmp(json_string_value(v), f))
			return;
	json_array_append_new(fin, json_string(f));
}

/* Deletes one object. Returns 0 with *out set to what to reply (new ref).
 * *at (if not NULL) gets the revision of the object it started from, 0
 * when there was none. */
static int delete_one(sk_api *api, const sk_api_resource *r, const char *ns, const char *name, const delete_opts *o,
		      json_t **out, int64_t *at, sk_error_t *err)
{
	int64_t rev = 0, nrev, grace = 0;
	cleanup_json json_t *obj = load(api, r, ns, name, &rev, err);
	json_t *meta, *fin;
	int pending;

	if (at)
		*at = obj ? rev : 0;
	if (!obj)
		return -1;
	meta = meta_of(obj);
	if (o->pre_uid && strcmp(o->pre_uid, meta_str(obj, "uid") ? meta_str(obj, "uid") : ""))
		return sk_error_set(err, SK_ECONFLICT,
				    "Precondition failed: UID in precondition: %s, UID in object meta: %s", o->pre_uid,
				    meta_str(obj, "uid"));
	if (o->pre_rv && strtoll(o->pre_rv, NULL, 10) != rev)
		return sk_error_set(err, SK_ECONFLICT,
				    "Precondition failed: ResourceVersion in precondition: %s, ResourceVersion in "
				    "object meta: %lld",
				    o->pre_rv, (long long)rev);
	{
		sk_adm_request adm = {.op = SK_ADM_DELETE,
				      .annotations = sk__audit_annotations(api, o->resp),
				      .user = o->user,
				      .res = r,
				      .sub = "",
				      .ns = r->namespaced ? ns : "",
				      .name = name,
				      .old = obj,
				      .dry_run = o->dry_run,
				      .resp = o->resp};

		if (sk__admission_validate(api, &adm, err) < 0)
			return -1;
	}
	if (sk__kind_flag(r, SK_KIND_GRACEFUL_DELETE))
		grace = pod_grace(obj, o);
	if (r->ops && r->ops->on_delete && !meta_str(obj, "deletionTimestamp") && !o->dry_run)
		r->ops->on_delete(r, obj);
	/* foreground and orphan deletion: the collectors (built-in and
	 * custom kinds alike) remove these finalizers */
	if (sk__api_gc_enabled(api) && o->propagation && !strcmp(o->propagation, "Foreground"))
		add_finalizer(obj, "foregroundDeletion");
	if (sk__api_gc_enabled(api) && o->propagation && !strcmp(o->propagation, "Orphan"))
		add_finalizer(obj, "orphan");
	fin = json_object_get(meta, "finalizers");
	pending = json_array_size(fin) > 0 ||
		  (sk__kind_flag(r, SK_KIND_SPEC_FINALIZERS) &&
		   json_array_size(json_object_get(json_object_get(obj, "spec"), "finalizers")));
	if (meta_str(obj, "deletionTimestamp")) {
		/* already terminating: a shorter grace period (the agent's 0) finishes it */
		json_int_t cur = json_integer_value(json_object_get(meta, "deletionGracePeriodSeconds"));

		if (!(grace == 0 && cur > 0 && sk__kind_flag(r, SK_KIND_GRACEFUL_DELETE) && o->grace == 0) ||
		    json_array_size(fin)) {
			*out = json_incref(obj);
			return 0;
		}
		pending = 0;
	} else if (grace > 0 || pending) {
		char ts[32];

		sk_time_format(sk_ns_after(sk_now_ns(), grace) / 1000000000, ts, sizeof(ts));
		json_object_set_new(meta, "deletionTimestamp", json_string(ts));
		json_object_set_new(meta, "deletionGracePeriodSeconds", json_integer(grace));
		if (sk__kind_flag(r, SK_KIND_SPEC_FINALIZERS)) {
			json_t *st = json_object_get(obj, "status");

			if (!json_is_object(st)) {
				st = json_object();
				json_object_set_new(obj, "status", st);
			}
			json_object_set_new(st, "phase", json_string("Terminating"));
		}
		if (o->dry_run) {
			*out = json_incref(obj);
			return 0;
		}
		json_object_del(meta, "resourceVersion");
		nrev = store_update(api, r, obj, rev, NULL, err);
		if (nrev < 0)
			return -1;
		set_rv(obj, nrev);
		*out = json_incref(obj);
		return 0;
	}
	if (o->dry_run) {
		*out = json_incref(obj);
		return 0;
	}
	{
		cleanup_free char *key = sk__obj_key(r, ns, name);

		nrev = sk_store_delete(api->store, key, rev, NULL, err);
	}
	if (nrev < 0)
		return -1;
	deleted(api, r, obj);
	set_rv(obj, nrev);
	*out = json_incref(obj);
	return 0;
}

static void do_delete(sk_api *api, const sk_api_request *req, const sk_path *p, sk_api_response *resp)
{
	sk_error_t err = {0};
	cleanup_json json_t *body = NULL, *out = NULL;
	delete_opts o;
	int synced = 0;

	if (req->body_obj || (req->body && req->body_len)) {
		body = parse_body(req, &err);
		if (!body)
			goto fail;
	}
	if (parse_delete_opts(req, body, &o, &err) < 0)
		goto fail;
	o.resp = resp;
	for (int attempt = 0; attempt < PATCH_RETRIES; attempt++) {
		size_t warn = warn_len(resp);
		int64_t at = 0;

		if (delete_one(api, p->res, p->ns, p->name, &o, &out, &at, &err) == 0) {
			reply_obj(resp, 200, out);
			return;
		}
		switch (stale(api, p->res, p->ns, p->name, at, &synced, &err)) {
		case 1:
			unreply(resp, warn);
			continue;
		case -1:
			goto fail;
		}
		if (err.code != SK_ECONFLICT || o.pre_rv || o.pre_uid)
			break;
	}
fail:
	sk__reply_error(resp, &err, p->res, p->name);
}

static void do_delete_collection(sk_api *api, const sk_api_request *req, const sk_path *p, sk_api_response *resp)
{
	cleanup_free char *prefix = sk__obj_prefix(p->res, p->all_namespaces ? NULL : p->ns);
	cleanup_json json_t *body = NULL, *items = json_array();
	sk_store_list l = {0};
	sk_error_t err = {0};
	list_filter f;
	delete_opts o;
	char gv[96], lk[96];

	if ((req->body_obj || (req->body && req->body_len)) && !(body = parse_body(req, &err)))
		goto fail;
	if (parse_delete_opts(req, body, &o, &err) < 0)
		goto fail;
	if (list_filter_init(&f, req, p->res, &err) < 0) {
		list_filter_release(&f);
		goto fail;
	}
	if (sk_store_range(api->store, prefix, NULL, 0, 0, &l, &err) < 0) {
		list_filter_release(&f);
		goto fail;
	}
	for (size_t i = 0; i < l.n; i++) {
		cleanup_json json_t *obj = sk__obj_decode(l.items[i].value, l.items[i].len, l.items[i].mod_rev);
		json_t *out = NULL;
		sk_error_t e2 = {0};

		if (!obj || !list_filter_match(&f, obj))
			continue;
		if (delete_one(api, p->res, meta_str(obj, "namespace"), meta_str(obj, "name"), &o, &out, NULL, &e2) ==
		    0)
			json_array_append_new(items, out);
	}
	sk_store_list_release(&l);
	list_filter_release(&f);
	sk__resource_gv(p->res, gv, sizeof(gv));
	{
		cleanup_json json_t *list = json_pack("{s:s, s:s, s:{}, s:O}", "kind",
						      sk__resource_list_kind(p->res, lk, sizeof(lk)), "apiVersion", gv,
						      "metadata", "items", items);

		reply_obj(resp, 200, list);
	}
	return;
fail:
	sk__reply_error(resp, &err, p->res, NULL);
}

/* ---- pod subresources ---- */

/* Pod conditions as upstream's podutil.UpdatePodCondition: in place, and
 * lastTransitionTime kept while the status stays. */
static void set_condition(json_t *obj, const char *type, const char *status, const char *reason, const char *msg)
{
	json_t *st = json_object_get(obj, "status");
	char ts[32];

	if (!json_is_object(st)) {
		st = json_object();
		json_object_set_new(obj, "status", st);
	}
	now_rfc3339(ts, sizeof(ts));
	sk_kube_condition_set(st, type, status, reason, msg, ts, SK_KUBE_COND_NULL_PROBE);
}

static void reply_success(sk_api_response *resp, int code)
{
	cleanup_json json_t *st = json_pack("{s:s, s:s, s:{}, s:s, s:i}", "kind", "Status", "apiVersion", "v1",
					    "metadata", "status", "Success", "code", code);

	reply_obj(resp, code, st);
}

static void do_binding(sk_api *api, const sk_api_request *req, const sk_path *p, sk_api_response *resp)
{
	sk_error_t err = {0};
	cleanup_json json_t *b = parse_body(req, &err);
	const char *node = json_string_value(json_object_get(json_object_get(b, "target"), "name"));
	int synced = 0;

	if (!b)
		goto fail;
	if (!node || !*node) {
		sk_error_set(&err, SK_EINVALID, "Binding.target.name: Required value");
		goto fail;
	}
	for (int attempt = 0; attempt < PATCH_RETRIES; attempt++) {
		int64_t rev = 0;
		cleanup_json json_t *pod = load(api, p->res, p->ns, p->name, &rev, &err);
		json_t *spec = json_object_get(pod, "spec");
		const char *cur = json_string_value(json_object_get(spec, "nodeName"));
		int tried = 0, rc;

		if (pod && meta_str(pod, "deletionTimestamp")) {
			sk_error_set(&err, SK_ECONFLICT, "pod %s is being deleted, cannot be assigned to a host",
				     p->name);
		} else if (cur && *cur) {
			sk_error_set(&err, SK_ECONFLICT, "pod %s is already assigned to node \"%s\"", p->name, cur);
		} else if (pod) {
			json_object_set_new(spec, "nodeName", json_string(node));
			set_condition(pod, "PodScheduled", "True", NULL, NULL);
			json_object_del(meta_of(pod), "resourceVersion");
			tried = 1;
			if (store_update(api, p->res, pod, rev, NULL, &err) >= 0) {
				reply_success(resp, 201);
				return;
			}
		}
		if (!pod && err.code != SK_ENOTFOUND)
			goto fail;
		rc = stale(api, p->res, p->ns, p->name, rev, &synced, &err);
		if (rc > 0)
			continue;
		if (rc < 0 || !tried || err.code != SK_ECONFLICT)
			goto fail;
	}
fail:
	sk__reply_error(resp, &err, p->res, p->name);
}

/* POST pods/NAME/eviction: the pod's disruption budget (eviction.c) is
 * checked and taken unless the pod's state lets it go without; then the
 * DisruptionTarget condition and the delete, with the Eviction's
 * deleteOptions. */
static void do_eviction(sk_api *api, const sk_api_request *req, const sk_path *p, sk_api_response *resp)
{
	sk_error_t err = {0};
	cleanup_json json_t *ev = parse_body(req, &err), *out = NULL;
	cleanup_free char *conditional = NULL;
	delete_opts o = {.grace = -1, .user = req->user, .resp = resp};
	char rvbuf[32];
	json_t *dopt, *pre;
	int checked = 0;

	if (!ev)
		goto fail;
	dopt = json_object_get(ev, "deleteOptions");
	pre = json_object_get(dopt, "preconditions");
	if (json_is_integer(json_object_get(dopt, "gracePeriodSeconds")))
		o.grace = json_integer_value(json_object_get(dopt, "gracePeriodSeconds"));
	o.pre_uid = json_string_value(json_object_get(pre, "uid"));
	o.pre_rv = json_string_value(json_object_get(pre, "resourceVersion"));
	o.dry_run = is_dry_run(req) || json_array_size(json_object_get(dopt, "dryRun"));
	for (int attempt = 0; attempt < PATCH_RETRIES; attempt++) {
		int64_t rev;
		cleanup_json json_t *pod = load(api, p->res, p->ns, p->name, &rev, &err);
		sk_adm_request adm = {.op = SK_ADM_CREATE,
				      .annotations = sk__audit_annotations(api, resp),
				      .user = req->user,
				      .res = p->res,
				      .sub = "eviction",
				      .ns = p->ns,
				      .name = p->name,
				      .obj = ev,
				      .old = pod,
				      .dry_run = o.dry_run,
				      .resp = resp};

		if (!pod || (!attempt && sk__admission_validate(api, &adm, &err) < 0))
			goto fail;
		if (!checked && !sk__eviction_can_ignore_budgets(pod)) {
			if (sk__eviction_check_budgets(api, pod, o.dry_run, &conditional, resp) < 0)
				return;
			checked = 1;
		}
		if (meta_str(pod, "deletionTimestamp") || o.dry_run)
			break;
		/* the preconditions hold for the pod the condition is added to,
		 * and the delete then expects the revision that update made */
		if (o.pre_uid && strcmp(o.pre_uid, meta_str(pod, "uid") ? meta_str(pod, "uid") : "")) {
			sk_error_set(&err, SK_ECONFLICT,
				     "Precondition failed: UID in precondition: %s, UID in object meta: %s", o.pre_uid,
				     meta_str(pod, "uid"));
			goto fail;
		}
		if (o.pre_rv && strtoll(o.pre_rv, NULL, 10) != rev) {
			sk_error_set(&err, SK_ECONFLICT,
				     "Precondition failed: ResourceVersion in precondition: %s, ResourceVersion in "
				     "object meta: %lld",
				     o.pre_rv, (long long)rev);
			goto fail;
		}
		set_condition(pod, "DisruptionTarget", "True", "EvictionByEvictionAPI", "Eviction API: evicting");
		json_object_del(meta_of(pod), "resourceVersion");
		rev = store_update(api, p->res, pod, rev, NULL, &err);
		if (rev >= 0) {
			if (o.pre_rv) {
				snprintf(rvbuf, sizeof(rvbuf), "%lld", (long long)rev);
				o.pre_rv = rvbuf;
			}
			break;
		}
		if (err.code != SK_ECONFLICT)
			goto fail;
		if (conditional && !o.pre_rv) {
			/* the unready pod changed since the budget let it go */
			sk__eviction_too_many(resp, conditional);
			return;
		}
	}
	if (delete_one(api, p->res, p->ns, p->name, &o, &out, NULL, &err) < 0)
		goto fail;
	reply_success(resp, 201);
	return;
fail:
	sk__reply_error(resp, &err, p->res, p->name);
}

/* ---- scale ---- */

static json_t *to_scale(json_t *obj)
{
	json_t *meta = json_object_get(obj, "metadata");
	json_t *spec = json_object_get(obj, "spec"), *st = json_object_get(obj, "status");
	cleanup_free char *sel = sk_table_selector_string(json_object_get(spec, "selector"));

	return json_pack("{s:s, s:s, s:{s:O*, s:O*, s:O*, s:O*, s:O*}, s:{s:I}, s:{s:I, s:s}}", "kind", "Scale",
			 "apiVersion", "autoscaling/v1", "metadata", "name", json_object_get(meta, "name"), "namespace",
			 json_object_get(meta, "namespace"), "uid", json_object_get(meta, "uid"), "resourceVersion",
			 json_object_get(meta, "resourceVersion"), "creationTimestamp",
			 json_object_get(meta, "creationTimestamp"), "spec", "replicas",
			 (json_int_t)json_integer_value(json_object_get(spec, "replicas")), "status", "replicas",
			 (json_int_t)json_integer_value(json_object_get(st, "replicas")), "selector", sel ? sel : "");
}

static void do_scale(sk_api *api, const sk_api_request *req, const sk_path *p, sk_api_response *resp)
{
	sk_error_t err = {0};
	int synced = !strcmp(req->method, "GET"); /* a GET has read etcd first */

	for (int attempt = 0; attempt < PATCH_RETRIES; attempt++) {
		int64_t rev;
		cleanup_json json_t *obj = load(api, p->res, p->ns, p->name, &rev, &err);
		cleanup_json json_t *scale = NULL, *want = NULL, *body = NULL;
		json_t *replicas;
		int is_apply;

		if (!obj && err.code == SK_ENOTFOUND && stale(api, p->res, p->ns, p->name, 0, &synced, &err) > 0)
			continue;
		if (!obj)
			break;
		scale = p->res->ops && p->res->ops->scale_get ? p->res->ops->scale_get(p->res, obj) : to_scale(obj);
		if (!strcmp(req->method, "GET")) {
			reply_obj(resp, 200, scale);
			return;
		}
		if (!strcmp(req->method, "PUT")) {
			want = parse_body(req, &err);
		} else {
			body = parse_patch_body(req, &err);
			want = body ? apply_patch(req, p->res, scale, body, &is_apply, &err) : NULL;
		}
		if (!want)
			break;
		replicas = json_object_get(json_object_get(want, "spec"), "replicas");
		if (!json_is_integer(replicas) || json_integer_value(replicas) < 0) {
			sk_error_set(&err, SK_EINVALID,
				     "Scale.autoscaling \"%s\" is invalid: spec.replicas: Invalid value: "
				     "must be greater than or equal to 0",
				     p->name);
			break;
		}
		if (p->res->ops && p->res->ops->scale_set) {
			cleanup_json json_t *old = json_deep_copy(obj);

			p->res->ops->scale_set(p->res, obj, replicas);
			/* a custom object's schema and rules hold for the scaled object too, as
			 * upstream's scale update runs the object's update validation */
			if (validate(p->res, obj, old, 0, resp) < 0)
				return;
		} else {
			json_object_set(json_object_get(obj, "spec"), "replicas", replicas);
		}
		if (spec_changed(scale, want)) {
			json_int_t g = json_integer_value(json_object_get(meta_of(obj), "generation"));

			json_object_set_new(meta_of(obj), "generation", json_integer(g + 1));
		}
		json_object_del(meta_of(obj), "resourceVersion");
		rev = store_update(api, p->res, obj, rev, NULL, &err);
		if (rev >= 0) {
			cleanup_json json_t *out = NULL;

			set_rv(obj, rev);
			out = p->res->ops && p->res->ops->scale_get ? p->res->ops->scale_get(p->res, obj)
								    : to_scale(obj);
			reply_obj(resp, 200, out);
			return;
		}
		if (err.code != SK_ECONFLICT)
			break;
	}
	sk__reply_error(resp, &err, p->res, p->name);
}

/* ---- dispatch ---- */

static void method_not_allowed(sk_api_response *resp, const sk_path *p, const char *method)
{
	(void)method;
	sk__reply_status(resp, 405, "MethodNotAllowed",
			 "the server does not allow this method on the requested resource", p->res, p->name, NULL);
}

/* GET, PUT, PATCH (and DELETE for the object itself) of one object or its status. */
static void dispatch_object(sk_api *api, const sk_api_request *req, const sk_path *p, int allow_delete,
			    sk_api_response *resp)
{
	const char *m = req->method;

	if (!strcmp(m, "GET"))
		do_get(api, req, p, resp);
	else if (!strcmp(m, "PUT"))
		do_update(api, req, p, resp);
	else if (!strcmp(m, "PATCH"))
		do_patch(api, req, p, resp);
	else if (allow_delete && !strcmp(m, "DELETE"))
		do_delete(api, req, p, resp);
	else
		method_not_allowed(resp, p, m);
}

/* A POST to a kind that is never stored: its ops answer it. */
static void do_review(sk_api *api, const sk_api_request *req, const sk_path *p, sk_api_response *resp)
{
	sk_error_t err = {0};
	cleanup_json json_t *obj = parse_body(req, &err), *out = NULL;

	if (!obj || check_type(p->res, obj, &err) < 0 || !(out = p->res->ops->review(api, req, obj, &err))) {
		sk__reply_error(resp, &err, p->res, NULL);
		return;
	}
	reply_obj(resp, 201, out);
}

/* The writes to one object that start from memory (see stale()): PUT,
 * PATCH and DELETE of it, PUT and PATCH of its status, approval,
 * ephemeral containers and scale, and POST of its binding. */
static int starts_from_memory(const sk_api_request *req, const sk_path *p)
{
	const char *m = req->method;

	if (!p->name[0])
		return 0;
	if (!strcmp(m, "POST"))
		return !strcmp(p->sub, "binding");
	if (!strcmp(m, "DELETE"))
		return !p->sub[0];
	if (strcmp(m, "PUT") && strcmp(m, "PATCH"))
		return 0;
	return !p->sub[0] || !strcmp(p->sub, "status") || !strcmp(p->sub, "approval") ||
	       !strcmp(p->sub, "ephemeralcontainers") || !strcmp(p->sub, "scale");
}

void sk__handle_resource(sk_api *api, const sk_api_request *req, const sk_path *p, sk_api_response *resp)
{
	const char *m = req->method;

	if (p->res->ops && p->res->ops->serve) {
		p->res->ops->serve(api, req, p, resp);
		return;
	}
	if (p->res->ops && p->res->ops->review) {
		if (!p->name[0] && !p->sub[0] && !strcmp(m, "POST"))
			do_review(api, req, p, resp);
		else
			method_not_allowed(resp, p, m);
		return;
	}

	/* Anything but a create, a watch or a write to one object (those start
	 * from memory: stale()) reads what the store holds: without a
	 * resourceVersion to go by, first what other servers on the same etcd
	 * acknowledged (a consistent read, as upstream's quorum reads). A list
	 * asks the store for its current revision itself (collect's fresh). */
	if ((p->name[0] || (strcmp(m, "POST") && strcmp(m, "GET"))) && !sk__arg_bool(req, "watch") &&
	    !(sk__arg(req, "resourceVersion") && *sk__arg(req, "resourceVersion")) && !starts_from_memory(req, p)) {
		sk_error_t err = {0};

		if (sk_store_sync(api->store, &err) < 0) {
			sk__reply_error(resp, &err, p->res, p->name);
			return;
		}
	}
	if (!p->name[0]) {
		if (!strcmp(m, "GET") && sk__arg_bool(req, "watch"))
			sk__handle_watch(api, req, p, resp);
		else if (!strcmp(m, "GET"))
			do_list(api, req, p, resp);
		else if (!strcmp(m, "POST"))
			do_create(api, req, p, resp);
		else if (!strcmp(m, "DELETE") && !p->res->no_deletecollection)
			do_delete_collection(api, req, p, resp);
		else if (!strcmp(m, "DELETE"))
			/* no route at all, as upstream's 405 from go-restful: empty details */
			sk__reply_status(resp, 405, "MethodNotAllowed",
					 "the server does not allow this method on the requested resource", NULL, "",
					 NULL);
		else
			method_not_allowed(resp, p, m);
		return;
	}
	if (p->sub[0]) {
		int sub = p->res->subresources;

		if ((!strcmp(p->sub, "status") && (sub & SK_SUB_STATUS)) ||
		    (!strcmp(p->sub, "approval") && (sub & SK_SUB_APPROVAL)) ||
		    (!strcmp(p->sub, "ephemeralcontainers") && (sub & SK_SUB_EPHEMERAL))) {
			dispatch_object(api, req, p, 0, resp);
		} else if (!strcmp(p->sub, "finalize") && (sub & SK_SUB_FINALIZE) && !strcmp(m, "PUT")) {
			sk__handle_finalize(api, req, p, resp);
		} else if (!strcmp(p->sub, "scale") && (sub & SK_SUB_SCALE)) {
			if (!strcmp(m, "GET") || !strcmp(m, "PUT") || !strcmp(m, "PATCH"))
				do_scale(api, req, p, resp);
			else
				method_not_allowed(resp, p, m);
		} else if (!strcmp(p->sub, "binding") && (sub & SK_SUB_BINDING) && !strcmp(m, "POST")) {
			do_binding(api, req, p, resp);
		} else if (!strcmp(p->sub, "eviction") && (sub & SK_SUB_EVICTION) && !strcmp(m, "POST")) {
			do_eviction(api, req, p, resp);
		} else if (!strcmp(p->sub, "token") && (sub & SK_SUB_TOKEN)) {
			sk__handle_sa_token(api, req, p, resp);
		} else if (!strcmp(p->sub, "proxy") && (sub & SK_SUB_PROXY)) {
			sk__handle_node_proxy(api, req, p, resp);
		} else if (!strcmp(p->sub, "log") && (sub & SK_SUB_LOG) && !strcmp(m, "GET")) {
			sk__handle_log(api, req, p, resp);
		} else if ((!strcmp(p->sub, "exec") || !strcmp(p->sub, "attach") || !strcmp(p->sub, "portforward")) &&
			   (sub & SK_SUB_EXEC)) {
			sk__handle_stream(api, req, p, resp);
		} else {
			/* as upstream's not-found handler: empty details */
			sk__reply_status(resp, 404, "NotFound", "the server could not find the requested resource",
					 NULL, "", NULL);
		}
		return;
	}
	dispatch_object(api, req, p, 1, resp);
}
