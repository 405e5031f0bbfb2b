/* Internals of the API server shared by the files of src/api/. */
#ifndef SK_API_API_INT_H
#define SK_API_API_INT_H

#include <pthread.h>

#include "api/api.h"

enum {
	SK_SUB_STATUS = 1 << 0,
	SK_SUB_SCALE = 1 << 1,
	SK_SUB_BINDING = 1 << 2,
	SK_SUB_EVICTION = 1 << 3,
	SK_SUB_LOG = 1 << 4,
	SK_SUB_EXEC = 1 << 5,
	SK_SUB_FINALIZE = 1 << 6,
};

/* One served resource. */
typedef struct sk_api_resource {
	const char *group; /* "" for core */
	const char *version;
	const char *kind;
	const char *plural;
	const char *singular;
	int namespaced;
	const char *short_names; /* comma-separated or NULL */
	const char *categories;  /* "all" or NULL */
	int subresources;        /* SK_SUB_* */
	int has_spec;            /* generation bumps on spec change; status only via /status */
} sk_api_resource;

extern const sk_api_resource sk__resources[];
extern const size_t sk__nresources;

const sk_api_resource *sk__resource_find(const char *group, const char *version, const char *plural);
const sk_api_resource *sk__resource_by_kind(const char *group, const char *kind);
/* "v1" or "apps/v1" */
void sk__resource_gv(const sk_api_resource *r, char *buf, size_t len);

struct sk_api {
	sk_store *store;
	sk_api_options opts;
	pthread_mutex_t mu;
	int shutting_down; /* atomic: read by watches on other threads */
	int gc_enabled;    /* a garbage collector honours foreground/orphan finalizers */
};

/* Parsed request path. */
typedef struct sk_path {
	const sk_api_resource *res;
	char group[64], version[32];
	char ns[254], name[254];
	char sub[32];       /* subresource or "" */
	int all_namespaces; /* collection across namespaces */
} sk_path;

/* Object storage encoding: key order kind, apiVersion, metadata (with
 * resourceVersion first, empty) so the revision can be spliced in on read
 * without decoding. */
char *sk__obj_encode(json_t *obj, size_t *len);
/* Returns the stored value with metadata.resourceVersion set to rev (malloc'd). */
char *sk__obj_splice_rv(const char *val, size_t len, int64_t rev, size_t *out_len);
/* Decodes a stored value and sets its resourceVersion. NULL on corrupt data. */
json_t *sk__obj_decode(const char *val, size_t len, int64_t rev);
char *sk__obj_key(const sk_api_resource *r, const char *ns, const char *name);
char *sk__obj_prefix(const sk_api_resource *r, const char *ns);

/* Status replies. */
void sk__reply_json(sk_api_response *resp, int status, json_t *obj);
void sk__reply_raw(sk_api_response *resp, int status, char *body, size_t len);
void sk__reply_error(sk_api_response *resp, const sk_error_t *err, const sk_api_resource *r, const char *name);
void sk__reply_status(sk_api_response *resp, int code, const char *reason, const char *msg, const sk_api_resource *r,
		      const char *name, json_t *causes);
int sk__http_code(int skcode, const char **reason);
json_t *sk__status_ok(const sk_api_resource *r, const char *name, const char *uid);

const char *sk__arg(const sk_api_request *req, const char *key);
/* A boolean query parameter, true as Go's strconv.ParseBool reads it ("true",
 * "True", "1", …: the Python client sends "True"). */
int sk__arg_bool(const sk_api_request *req, const char *key);
/* An integer query parameter read as upstream's parameter codec reads it
 * (strconv.ParseInt(v, 10, 64)): 0 when absent, 1 with *out set, -1 with a
 * SK_EBADREQUEST error (400) for a value that is not a decimal int64. */
int sk__arg_int64(const sk_api_request *req, const char *key, int64_t *out, sk_error_t *err);

/* Request handlers (handlers.c, watch.c, discovery.c). */
void sk__handle_discovery(sk_api *api, const sk_api_request *req, sk_api_response *resp);
int sk__parse_path(const char *path, sk_path *p, sk_error_t *err);
void sk__handle_resource(sk_api *api, const sk_api_request *req, const sk_path *p, sk_api_response *resp);
void sk__handle_watch(sk_api *api, const sk_api_request *req, const sk_path *p, sk_api_response *resp);
int sk__wants_table(const sk_api_request *req);
json_t *sk__to_table(const sk_api_resource *r, json_t *items, json_t *list_meta, int include_object);

/* Admission on create (namespace exists and is not terminating, pod
 * priority and service account, initial status). */
int sk__admit_create(sk_api *api, const sk_api_resource *r, json_t *obj, sk_error_t *err);
/* Guaranteed, Burstable or BestEffort (static string). */
void sk__handle_finalize(sk_api *api, const sk_api_request *req, const sk_path *p, sk_api_response *resp);
void sk__handle_log(sk_api *api, const sk_api_request *req, const sk_path *p, sk_api_response *resp);

#endif
