/* Type knowledge of the API server: one description of every field skiff
 * supports per kind, used for unknown-field detection, type checks, the
 * OpenAPI v3 documents (openapi.h), and shared with defaulting/validation.
 *
 * Schemas are static const tables (src/api/schema-*.c); nothing here is
 * allocated or freed by callers except the JSON values documented below.
 *
 * Order on a write (create, update, patch result), as the kube-apiserver:
 *   1. s = sk_schema_for_kind(group, version, kind)        (unknown → 404/400)
 *   2. sk_schema_check_types(s, obj, &err)                 (→ 400 BadRequest)
 *   3. sk_schema_unknown_fields(s, obj)                    (Strict → 400, Warn → warnings)
 *   4. the kind's defaults hook (sk_kind_ops.defaults: defaults.h's sk__defaults_*)
 *   5. create only: name from generateName, uid; then the kind's admit_create
 *      (a Job's selector, a Pod's tolerations and priority)
 *   6. causes = the kind's validate hook (validate.h's sk__validate_*; → 422
 *      with sk_validate_message), which checks only metadata on /status. */
#ifndef SK_API_SCHEMA_H
#define SK_API_SCHEMA_H

#include <stdbool.h>

#include <jansson.h>

#include "util/error.h"

enum sk_schema_type {
	SK_SCHEMA_STRING,
	SK_SCHEMA_BYTE, /* base64 string (Secret data values) */
	SK_SCHEMA_INT32,
	SK_SCHEMA_INT64,
	SK_SCHEMA_BOOLEAN,
	SK_SCHEMA_NUMBER,
	SK_SCHEMA_OBJECT, /* named properties in `fields` */
	SK_SCHEMA_MAP,    /* additionalProperties: values are `items` */
	SK_SCHEMA_ARRAY,  /* elements are `items` */
	SK_SCHEMA_INT_OR_STRING,
	SK_SCHEMA_QUANTITY,  /* string or number */
	SK_SCHEMA_DATE_TIME, /* RFC 3339 string */
	SK_SCHEMA_ANY,       /* free form: x-kubernetes-preserve-unknown-fields */
};

#define SK_FIELD_REQUIRED 0x1u

typedef struct sk_schema sk_schema;

typedef struct sk_schema_field {
	const char *name;
	const sk_schema *schema;
	unsigned flags;  /* SK_FIELD_* */
	const char *doc; /* may be NULL */
} sk_schema_field;

struct sk_schema {
	enum sk_schema_type type;
	/* Upstream definition name ("io.k8s.api.core.v1.Pod") for named types:
	 * objects always, Quantity/Time/IntOrString leaves; NULL for inline. */
	const char *name;
	const char *doc;
	const sk_schema_field *fields; /* OBJECT: terminated by {NULL} */
	const sk_schema *items;        /* ARRAY elements, MAP values */
	/* Lists: strategic-merge and server-side-apply metadata. */
	const char *merge_key;            /* x-kubernetes-patch-merge-key */
	const char *patch_strategy;       /* x-kubernetes-patch-strategy */
	const char *list_type;            /* x-kubernetes-list-type */
	const char *const *list_map_keys; /* NULL-terminated */
	/* Top-level kinds: x-kubernetes-group-version-kind ("" for core). */
	const char *group, *version, *kind;
	const char *const *enum_values; /* documentation only, NULL-terminated */
};

/* Subresources and resources as the API server serves them (discovery). */
typedef struct sk_subresource {
	const char *name;                   /* "status", "scale", "log"… */
	const char *group, *version, *kind; /* NULL group: same as the parent */
	const char *const *verbs;
} sk_subresource;

typedef struct sk_resource {
	const char *group; /* "" for core */
	const char *version;
	const char *kind;
	const char *plural;
	const char *singular;
	bool namespaced;
	const char *const *short_names;     /* NULL-terminated, never NULL */
	const char *const *verbs;           /* NULL-terminated */
	const char *const *categories;      /* NULL-terminated, never NULL */
	const sk_subresource *subresources; /* terminated by {NULL}, never NULL */
} sk_resource;

/* Every resource served; terminated by an entry with kind NULL. */
extern const sk_resource sk_schema_resources[];

/* Finds a resource by group ("" core) and plural, or NULL. */
const sk_resource *sk_schema_resource(const char *group, const char *plural);
/* Finds a resource by kind only (first match), or NULL. */
const sk_resource *sk_schema_resource_for_kind(const char *kind);

/* The schema of a kind, or NULL when skiff does not serve it. group "" (or
 * NULL) is the core group. Also knows Eviction (policy/v1), Scale
 * (autoscaling/v1), Status/DeleteOptions/Table (meta.k8s.io/v1 or v1). */
const sk_schema *sk_schema_for_kind(const char *group, const char *version, const char *kind);
/* A named definition by upstream name ("io.k8s.api.core.v1.PodSpec"), or NULL. */
const sk_schema *sk_schema_by_name(const char *name);
/* NULL-terminated list of every top-level kind schema. */
extern const sk_schema *const sk_schema_kinds[];

/* The schema of field name inside s: an object's property (NULL when
 * unknown), a map's value type (any name), or for an array the element's
 * field. Lets the patch code read merge keys and strategies from here. */
const sk_schema *sk_schema_child(const sk_schema *s, const char *name);

/* Returns a new JSON array (caller decrefs) of the paths of fields in obj
 * that the schema does not know, in document order, upstream style:
 * "spec.containers[0].imagePullPolcy", "metadata.labels" never (maps accept
 * any key). Never NULL; empty when all fields are known.
 *
 * The API server composes the messages from each path P:
 *   fieldValidation=Strict → 400 BadRequest, one message for all:
 *     strict decoding error: unknown field "P1", unknown field "P2"
 *   fieldValidation=Warn (the default for kubectl) → one Warning header each:
 *     299 - "unknown field \"P\""   (text: unknown field "P")
 *   fieldValidation=Ignore → nothing. */
json_t *sk_schema_unknown_fields(const sk_schema *schema, json_t *obj);
/* The same paths, and each of those fields is deleted from obj (what a Go
 * decoder into typed structs drops). Caller owns the array. */
json_t *sk_schema_prune_unknown(const sk_schema *schema, json_t *obj);

/* Checks the JSON types of known fields (null is always accepted, as Go
 * decodes it to the zero value). On the first mismatch fills err with
 * SK_EBADREQUEST and Go's decode message, e.g.
 *   json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32
 * and returns -1; the API server composes the Status message as upstream:
 *   Deployment in version "v1" cannot be handled as a Deployment: <err.msg>
 * Returns 0 when all types match. */
int sk_schema_check_types(const sk_schema *schema, json_t *obj, sk_error_t *err);

#endif
