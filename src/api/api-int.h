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
	SK_SUB_TOKEN = 1 << 7,      /* serviceaccounts/token (TokenRequest) */
	SK_SUB_APPROVAL = 1 << 8,   /* certificatesigningrequests/approval */
	SK_SUB_PROXY = 1 << 9,      /* nodes/proxy: GET of the node agent's own paths (nodeproxy.c) */
	SK_SUB_EPHEMERAL = 1 << 10, /* pods/ephemeralcontainers */
};

typedef struct sk_api_resource sk_api_resource;
typedef struct sk_path sk_path;

enum {
	SK_KIND_GENERATION = 1 << 0,       /* metadata.generation counts spec changes */
	SK_KIND_NO_STRATEGIC = 1 << 1,     /* no patch strategies: strategic merge patch is 415, apply is atomic */
	SK_KIND_CREATE_ON_UPDATE = 1 << 2, /* a PUT of a missing object creates it (upstream's AllowCreateOnUpdate) */
	SK_KIND_GRACEFUL_DELETE = 1 << 3,  /* DELETE honours a grace period (upstream's pod CheckGracefulDelete) */
	SK_KIND_SPEC_FINALIZERS = 1 << 4,  /* spec.finalizers hold a DELETE and status.phase becomes Terminating
					    * (the namespace lifecycle) */
};

struct sk_table_printer;
struct sk_kube_field_labels;

/* What a kind does beyond the generic REST semantics: every rule of a kind
 * (built-in or custom) is reached from its descriptor, never through a
 * table keyed by kind name. A NULL member does nothing (or the generic
 * thing); a kind with no rules at all has no ops. */
typedef struct sk_kind_ops {
	unsigned flags; /* SK_KIND_* */
	/* the Table columns and cells of a built-in kind (table.h); NULL with
	 * no table hooks: upstream's default Name and Created At */
	const struct sk_table_printer *printer;
	/* the field labels field selectors may use (kube/selector.h); NULL:
	 * metadata.name and metadata.namespace (custom kinds: their CRD's
	 * selectableFields) */
	const struct sk_kube_field_labels *field_labels;
	/* the Go type whose patch strategy and merge keys the kind's strategic
	 * merge and server-side apply follow (patch.c's tables); NULL: none */
	const char *patch_type;
	void (*defaults)(const sk_api_resource *r, json_t *obj);
	/* causes ({reason, message, field}) or NULL; old on update; status_sub
	 * 1 for /status, 2 for /approval */
	json_t *(*validate)(const sk_api_resource *r, json_t *obj, json_t *old, int status_sub);
	/* after the namespace check of a create: admission and the status reset */
	int (*admit_create)(sk_api *api, const sk_api_resource *r, json_t *obj, sk_error_t *err);
	/* after admit_create: what the object takes from the requesting
	 * identity (upstream's PrepareForCreate reading the request's user) */
	void (*set_requestor)(const sk_api_resource *r, json_t *obj, const sk_user *user);
	/* an update of the main resource (not /status), after defaulting */
	void (*prepare_update)(sk_api *api, const sk_api_resource *r, json_t *obj, json_t *old);
	/* an update through /status or /approval (sub), after the carry-over */
	void (*prepare_sub_update)(const sk_api_resource *r, const char *sub, json_t *obj, json_t *old);
	/* the first DELETE of an object (before finalizers are looked at) */
	void (*on_delete)(const sk_api_resource *r, json_t *obj);
	/* drops the fields the kind does not know; their paths (caller frees) */
	json_t *(*prune)(const sk_api_resource *r, json_t *obj);
	json_t *(*table_columns)(const sk_api_resource *r);
	json_t *(*table_cells)(const sk_api_resource *r, json_t *obj, int64_t now);
	json_t *(*scale_get)(const sk_api_resource *r, json_t *obj);
	int (*scale_set)(const sk_api_resource *r, json_t *obj, json_t *replicas);
	/* after a successful write through the API (before its reply) */
	void (*written)(sk_api *api, const sk_api_resource *r);
	/* after the validation of a create (old NULL) or of an update of the
	 * main resource, right before the store write: takes what obj needs
	 * from shared pools (dry_run: only checks) and sets *txn for end_write.
	 * -1 with *causes (422 Invalid by field) or with err. */
	int (*begin_write)(sk_api *api, const sk_api_resource *r, json_t *obj, json_t *old, int dry_run, void **txn,
			   json_t **causes, sk_error_t *err);
	/* after the store write begun by begin_write: ok when it was stored; frees txn */
	void (*end_write)(sk_api *api, const sk_api_resource *r, void *txn, int ok);
	/* after obj (as it was last stored) left the store */
	void (*deleted)(sk_api *api, const sk_api_resource *r, json_t *obj);
	/* after the validation of a create (old NULL) or of an update of the
	 * main resource: whether user may write what obj grants (RBAC's
	 * escalation checks); -1 with err (SK_EFORBIDDEN, the whole message) */
	int (*authorize_write)(sk_api *api, const sk_api_resource *r, const sk_user *user, json_t *obj, json_t *old,
			       sk_error_t *err);
	/* a kind that is never stored (SelfSubjectReview, the access reviews):
	 * a POST to the collection answers 201 with what this returns for the
	 * request's object (a new reference; NULL with err), every other
	 * request is 405; discovery lists the verb create alone */
	json_t *(*review)(sk_api *api, const sk_api_request *req, json_t *obj, sk_error_t *err);
	/* a kind served in several versions of one stored object (the
	 * HorizontalPodAutoscaler in autoscaling/v1 and v2): converts obj,
	 * stored through any of them, in place to r's version */
	void (*convert)(const sk_api_resource *r, json_t *obj);
	/* a kind served from memory, never stored (metrics.k8s.io): answers
	 * every request to the kind; discovery lists the verbs get and list */
	void (*serve)(sk_api *api, const sk_api_request *req, const sk_path *p, sk_api_response *resp);
} sk_kind_ops;

/* One served resource. */
struct sk_api_resource {
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
	const char *store;       /* key segment under /registry/ (NULL: plural) */
	const char *list_kind;   /* NULL: kind + "List" */
	int custom;              /* served from a CustomResourceDefinition (kinds.c) */
	int no_deletecollection; /* DELETE on the collection is 405, as for upstream's namespaces */
	const sk_kind_ops *ops;  /* NULL: no rules beyond the generic REST semantics */
};

/* Flag f of r's ops. */
static inline int sk__kind_flag(const sk_api_resource *r, unsigned f) { return r->ops && (r->ops->flags & f); }

/* A kind descriptor: one served group/version/resource. */
typedef sk_api_resource sk_kind;

/* The kind registry (kinds.c): an immutable snapshot of every served kind,
 * built-in first, then those of CustomResourceDefinitions. Readers load the
 * current snapshot with one atomic acquire and take no lock; a writer builds
 * a new snapshot and swaps it in. Snapshots are never freed while the
 * server runs (they are arrays of pointers, a few hundred bytes each) and
 * kind descriptors are interned and immortal, so a pointer read from any
 * snapshot stays valid for as long as a watch keeps it. */
typedef struct sk_kind_set {
	size_t n;
	const sk_api_resource *const *v;
} sk_kind_set;

const sk_kind_set *sk__kinds(void);
/* The built-in kinds alone (kinds/<group>.c, in resources.c's order). */
const sk_kind_set *sk__kinds_builtin(void);
/* Changes whenever the snapshot is swapped (OpenAPI hashes of custom kinds). */
unsigned long sk__kinds_generation(void);
/* Replaces the custom kinds by custom[0..n) (descriptors from
 * sk__kind_intern). Serialised by the caller (crd.c's sync lock). */
void sk__kinds_set_custom(const sk_api_resource *const *custom, size_t n);
/* The immortal descriptor equal to tmpl (strings copied), made on first use. */
const sk_api_resource *sk__kind_intern(const sk_api_resource *tmpl);
/* The CRD version entry (spec.versions[i] with "x-skiff-crd": the CRD's name)
 * of a custom kind: a new reference, or NULL. Taken under a short mutex that
 * only custom-kind requests use. */
json_t *sk__kind_custom_spec(const sk_api_resource *r);
void sk__kind_custom_set_spec(const sk_api_resource *r, json_t *spec);

/* Index of the first byte Go's base64.StdEncoding rejects, or -1 (schema.c). */
long sk__base64_error(const char *s, size_t len);
/* Whether s is of an OpenAPI string format as kube-openapi's strfmt checks
 * it; unknown formats pass (crformat.c). */
int sk__openapi_format_ok(const char *format, const char *s);

const sk_api_resource *sk__resource_find(const char *group, const char *version, const char *plural);
const sk_api_resource *sk__resource_by_kind(const char *group, const char *kind);
/* The built-in descriptor of kind in any group (the first in discovery's
 * order), or NULL: for the kind-named entry points tests and fuzz targets
 * use (sk_validate, sk_defaults_apply, sk_table_columns). */
const sk_api_resource *sk__kind_builtin(const char *kind);
/* kind + "List" unless the descriptor names its listKind; buf for the former. */
const char *sk__resource_list_kind(const sk_api_resource *r, char *buf, size_t len);
/* "v1" or "apps/v1" */
void sk__resource_gv(const sk_api_resource *r, char *buf, size_t len);

struct sk_api {
	sk_store *store;
	sk_api_options opts;
	pthread_mutex_t mu;
	int shutting_down;   /* atomic (sk__api_stopping): read by watches and the CRD threads */
	int gc_enabled;      /* atomic (sk__api_gc_enabled): a garbage collector honours foreground/orphan finalizers */
	struct sk__svc *svc; /* Service allocations and the cluster's own Services (service.c) */
	struct sk__rbac *rbac;            /* the RBAC authorizer's index (authz-rbac.c) */
	struct sk__psa_config *psa;       /* PodSecurity's defaults and exemptions (podsecurity.c) */
	struct sk__sa *sa;                /* service-account token signing (satoken.c); NULL until sk_api_sa_setup */
	struct sk_authn *authn;           /* atomic: the HTTP server's authenticators (TokenReview); NULL: none */
	struct sk_node_graph *node_graph; /* the Node authorizer's pods → objects graph (authz-node.c) */
	struct sk_audit *audit;           /* or NULL (audit-event.c) */
	int metrics_collector;            /* the stored objects' collector (prometheus.c), or 0 */
	struct sk__metrics *metrics;      /* metrics.k8s.io's scraper and points (metrics-server.c); NULL: none */
	struct sk_selcache *selcache;     /* filtered lists' labels and selectable fields (selcache.c) */
	struct sk__agg *agg;              /* API aggregation (aggregator.c); NULL: not started; atomic */
};

typedef struct sk__agg sk__agg;
/* api->agg: set once the server already answers (sk_api_aggregator_start) */
static inline sk__agg *sk__agg_of(sk_api *api) { return __atomic_load_n(&api->agg, __ATOMIC_ACQUIRE); }
/* API aggregation (aggregator.c, aggproxy.c). Stops what
 * sk_api_aggregator_start started (sk_api_free). */
void sk__aggregator_stop(sk_api *api);
void sk__aggregator_stop_free(sk__agg *a);
/* A request under /apis/GROUP/VERSION of an APIService with a service:
 * authorized and proxied (1, resp filled); 0 for anything else. */
int sk__aggregator_handle(sk_api *api, const sk_api_request *req, sk_api_response *resp);
/* The proxy entry of GROUP/VERSION, all of them ({"G/V": entry}): copies. */
json_t *sk__aggregator_entry(sk_api *api, const char *group, const char *version);
json_t *sk__aggregator_entries(sk_api *api);
/* libcurl settings towards the server of entry e (caBundle in a memfile
 * *cafd to close, the front-proxy client certificate): 0, or -1 + *why. */
int sk__aggregator_tls(sk__agg *a, void *curl, json_t *e, int *cafd, char **why);
void sk__aggregator_curl_init(void);
/* An aggregated server's APIResourceList (untrusted: anything) as the
 * resources of an apidiscovery.k8s.io/v2 version entry: a new array. */
json_t *sk__agg_discovery_resources(json_t *list);
/* Discovery of the aggregated groups: added to an APIGroupList, to an
 * APIGroupDiscoveryList, or one APIGroup (NULL: none). */
void sk__aggregator_add_groups(sk_api *api, json_t *group_list);
void sk__aggregator_add_discovery(sk_api *api, json_t *discovery_list);
json_t *sk__aggregator_group(sk_api *api, const char *group);
/* A response stream over fd (logs.c), which it owns. */
struct sk_api_stream *sk__stream_new(int fd);

/* The flags other threads read while the server runs. */
static inline int sk__api_stopping(const sk_api *api) { return __atomic_load_n(&api->shutting_down, __ATOMIC_ACQUIRE); }
static inline int sk__api_gc_enabled(const sk_api *api) { return __atomic_load_n(&api->gc_enabled, __ATOMIC_ACQUIRE); }

/* Parsed request path. */
struct sk_path {
	const sk_api_resource *res;
	char group[64], version[32];
	char ns[254], name[254];
	char sub[32];       /* subresource or "" */
	int all_namespaces; /* collection across namespaces */
};

/* Object storage encoding: key order kind, apiVersion, metadata (with
 * resourceVersion first, empty) so the revision can be spliced in on read
 * without decoding. */
char *sk__obj_encode(json_t *obj, size_t *len);
/* Returns the stored value with metadata.resourceVersion set to rev (malloc'd). */
char *sk__obj_splice_rv(const char *val, size_t len, int64_t rev, size_t *out_len);
/* Decodes a stored value and sets its resourceVersion. NULL on corrupt data. */
json_t *sk__obj_decode(const char *val, size_t len, int64_t rev);
/* A random (version 4) UUID, as metadata.uid, token IDs and audit IDs use. */
void sk__new_uuid(char *buf, size_t len);
/* The stored object of a core/v1 kind (plural), decoded, or NULL when absent. */
json_t *sk__stored_core(sk_api *api, const char *plural, const char *ns, const char *name);
/* The stored objects under prefix, decoded (a new array), or NULL with err. */
json_t *sk__stored_list(sk_api *api, const char *prefix, sk_error_t *err);
/* The ready address of port of Service ns/name, through its Endpoints or
 * else its EndpointSlices (svcresolve.c): 0 with ip (caller frees) and the
 * target port, or -1 with *why (caller frees). */
int sk__resolve_service(sk_api *api, const char *ns, const char *name, json_int_t port, char **ip, json_int_t *tport,
			char **why);
/* The text of a stored object as r serves it: a custom object written
 * through another served version gets r's apiVersion (versions share one
 * stored form). Takes text (malloc'd), returns it or its replacement. */
char *sk__obj_text_for(const sk_api_resource *r, char *text, size_t *len);
/* A HorizontalPodAutoscaler read through autoscaling/v1 made the v2 object
 * (in place; kinds/autoscaling.c); other objects are left alone. */
void sk__hpa_to_v2(json_t *obj);
/* Whether r's stored texts may differ from what r serves (custom kinds,
 * converted kinds): such texts are not shared between watchers. */
int sk__obj_per_version(const sk_api_resource *r);
/* Makes a decoded stored object the object as r serves it (in place). */
void sk__obj_as(const sk_api_resource *r, json_t *obj);
char *sk__obj_key(const sk_api_resource *r, const char *ns, const char *name);
char *sk__obj_prefix(const sk_api_resource *r, const char *ns);

/* Adds one Warning header value (299 - "text") to resp (handlers.c). */
void sk__add_warning(sk_api_response *resp, const char *text);

/* Status replies. */
void sk__reply_json(sk_api_response *resp, int status, json_t *obj);
void sk__reply_raw(sk_api_response *resp, int status, char *body, size_t len);
void sk__reply_error(sk_api_response *resp, const sk_error_t *err, const sk_api_resource *r, const char *name);
void sk__reply_status(sk_api_response *resp, int code, const char *reason, const char *msg, const sk_api_resource *r,
		      const char *name, json_t *causes);
/* The same with the details' group and kind (a resource's plural) given as text. */
void sk__reply_status_for(sk_api_response *resp, int code, const char *reason, const char *msg, const char *group,
			  const char *kind, const char *name, json_t *causes);
int sk__http_code(int skcode, const char **reason);
json_t *sk__status_ok(const sk_api_resource *r, const char *name, const char *uid);

const char *sk__arg(const sk_api_request *req, const char *key);
/* /healthz, /livez, /readyz (and /NAME of one of their checks), /metrics/slis (healthz.c) */
int sk__is_health_path(const char *p);
void sk__handle_health(sk_api *api, const sk_api_request *req, sk_api_response *resp);
/* A boolean query parameter, true as Go's strconv.ParseBool reads it ("true",
 * "True", "1", …: the Python client sends "True"). */
int sk__arg_bool(const sk_api_request *req, const char *key);
/* An integer query parameter read as upstream's parameter codec reads it
 * (strconv.ParseInt(v, 10, 64)): 0 when absent, 1 with *out set, -1 with a
 * SK_EBADREQUEST error (400) for a value that is not a decimal int64. */
int sk__arg_int64(const sk_api_request *req, const char *key, int64_t *out, sk_error_t *err);

/* Upstream's impersonation filter over req's Impersonate-* headers: 0 when
 * there are none; 1 with *as, the user to run as (caller frees); -1 after
 * replying (403 Forbidden for what user may not impersonate, 500 for
 * groups, extras or a uid without a user). */
int sk__impersonate(sk_api *api, const sk_api_request *req, sk_user **as, sk_api_response *resp);

/* Request handlers (handlers.c, watch.c, discovery.c). */
void sk__handle_discovery(sk_api *api, const sk_api_request *req, sk_api_response *resp);
int sk__parse_path(const char *path, sk_path *p, sk_error_t *err);
/* Discovery, health and OpenAPI paths: the non-resource requests. */
int sk__is_discovery(const char *path);
/* The verb of a request as upstream's RequestInfoFactory names it (p NULL:
 * a non-resource request, the method in lower case; static string). */
const char *sk__request_verb(const sk_api_request *req, const sk_path *p);
/* Writes req's audit event (audit-event.c); received_ns: when it came in. */
void sk__audit_request(sk_api *api, const sk_api_request *req, const sk_api_response *resp, int64_t received_ns);
/* A resourceVersion option as upstream parses it ("" and "0": 0); 400
 * BadRequest for anything but an unsigned decimal. */
int sk__rv_parse(const char *s, int64_t *out, sk_error_t *err);
/* Upstream's ValidateListOptions of resourceVersionMatch: 0, or -1 with a
 * 422 ListOptions reply in resp. */
int sk__list_options_check(const sk_api_request *req, sk_api_response *resp);
/* The revision a list reads at (0: now) from resourceVersion,
 * resourceVersionMatch and continue; limited: the list has a limit (an
 * unmatched resourceVersion is then exact, as upstream). 504 for a
 * revision in the future, 410 for an exact one compacted, 400 for a
 * resourceVersion with a continue token. */
int sk__list_revision(sk_api *api, const sk_api_request *req, int limited, int64_t *rev, sk_error_t *err);
void sk__handle_resource(sk_api *api, const sk_api_request *req, const sk_path *p, sk_api_response *resp);
void sk__handle_watch(sk_api *api, const sk_api_request *req, const sk_path *p, sk_api_response *resp);
/* The audit event (taken) w writes when it ends: its ResponseComplete. */
void sk__watch_audit_at_end(sk_api_watch *w, json_t *ev);
/* The same for a followed log (logs.c) and an upgraded connection
 * (stream.c): ev (taken) is written to api's log when it is freed. */
struct sk_api_stream;
struct sk_api_upgrade;
void sk__stream_audit_at_end(struct sk_api_stream *s, sk_api *api, json_t *ev);
void sk__upgrade_audit_at_end(struct sk_api_upgrade *u, sk_api *api, json_t *ev);
int sk__wants_table(const sk_api_request *req);
json_t *sk__to_table(const sk_api_resource *r, json_t *items, json_t *list_meta, int include_object);

/* A generateName suffix: 5 characters from upstream's alphabet
 * (names.SimpleNameGenerator) and a NUL into buf[6]. */
void sk__name_suffix(char *buf);

/* Admission on create (pod priority and service account, initial status;
 * the namespace's existence is NamespaceLifecycle's, nslifecycle.c). */
/* The admission plugins' audit annotations of resp's request (created on
 * first use, owned by resp), or NULL when no audit log is written. */
json_t *sk__audit_annotations(sk_api *api, sk_api_response *resp);
/* Stamps ev's stageTimestamp now and writes it (takes ev). */
void sk__audit_emit(sk_api *api, json_t *ev);
int sk__admit_create(sk_api *api, const sk_api_resource *r, json_t *obj, sk_error_t *err);
/* admit_create hooks of built-in kinds (api.c): a Pod's priority,
 * tolerations and initial status; a Namespace's phase Active; a Job's
 * generated selector; and for kinds whose status is written through
 * /status, upstream's PrepareForCreate resetting it to the zero status in
 * the form Go serializes it (structs and fields without omitempty stay):
 * empty, or phase Pending (PersistentVolume, PersistentVolumeClaim). */
int sk__pod_admit_create(sk_api *api, const sk_api_resource *r, json_t *obj, sk_error_t *err);
int sk__namespace_admit_create(sk_api *api, const sk_api_resource *r, json_t *obj, sk_error_t *err);
int sk__job_admit_create(sk_api *api, const sk_api_resource *r, json_t *obj, sk_error_t *err);
int sk__admit_empty_status(sk_api *api, const sk_api_resource *r, json_t *obj, sk_error_t *err);
int sk__admit_pending_status(sk_api *api, const sk_api_resource *r, json_t *obj, sk_error_t *err);
/* Guaranteed, Burstable or BestEffort (static string). */
void sk__handle_finalize(sk_api *api, const sk_api_request *req, const sk_path *p, sk_api_response *resp);
void sk__handle_log(sk_api *api, const sk_api_request *req, const sk_path *p, sk_api_response *resp);
/* pods/eviction's budgets (eviction.c): whether the pod's state lets an
 * eviction skip them (terminal, Pending or being deleted); the check of the
 * one budget that selects pod, decrementing it (unless dry_run): 0 to go
 * on deleting (*conditional, malloc'd: the budget's name when the delete
 * must find the pod as read, an unready pod's), -1 after replying (429
 * while the budget allows no disruption, 500 for more than one budget);
 * the 429 of a conditional delete that lost its race. */
int sk__eviction_can_ignore_budgets(json_t *pod);
int sk__eviction_check_budgets(sk_api *api, json_t *pod, int dry_run, char **conditional, sk_api_response *resp);
void sk__eviction_too_many(sk_api_response *resp, const char *pdb_name);
/* pods/exec, pods/attach, pods/portforward (stream.c). */
void sk__handle_stream(sk_api *api, const sk_api_request *req, const sk_path *p, sk_api_response *resp);
/* logs.c, shared with stream.c: a GET through the handler (NULL after
 * replying), the container a request names (upstream's messages), the node
 * agent's https://IP:PORT (malloc'd), and the TLS settings of a handle that
 * talks to an agent (the kubelet client certificate; the agent's
 * certificate verified against the cluster CA and its address). */
json_t *sk__get_object(sk_api *api, const char *path, sk_api_response *resp);
const char *sk__pod_pick_container(json_t *pod, const char *asked, const sk_path *p, sk_api_response *resp);
char *sk__pod_node_address(sk_api *api, json_t *pod, const sk_path *p, sk_api_response *resp);
typedef void CURL;
void sk__kubelet_tls(CURL *h);
/* A libcurl write callback (CURLOPT_WRITEFUNCTION) gathering an answer into
 * a NUL-terminated buffer of at most max bytes (more ends the transfer). */
typedef struct sk__curl_body {
	char *data; /* malloc'd; the caller frees */
	size_t len, max;
} sk__curl_body;
size_t sk__curl_collect(char *ptr, size_t size, size_t nmemb, void *ud);
/* nodes/NAME/proxy/PATH: a GET of the node agent's PATH (nodeproxy.c). */
void sk__handle_node_proxy(sk_api *api, const sk_api_request *req, const sk_path *p, sk_api_response *resp);
/* Stops metrics.k8s.io's scraper and frees its points (metrics-server.c). */
void sk__metrics_stop(sk_api *api);
/* A Node's kubelet endpoint https://INTERNAL-IP:PORT (malloc'd), NULL when it has no port. */
char *sk__node_kubelet_url(json_t *node);

#endif
