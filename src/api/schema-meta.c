/* Schema data: primitives and meta.k8s.io types (ObjectMeta, ListMeta,
 * LabelSelector, Status, DeleteOptions, Condition, Table). */
#include <stddef.h>

#include "api/schema-int.h"

/* clang-format off: schema tables, laid out by hand (a field per entry would triple them) */

const sk_schema sk__str = {.type = SK_SCHEMA_STRING};
const sk_schema sk__byte = {.type = SK_SCHEMA_BYTE};
const sk_schema sk__i32 = {.type = SK_SCHEMA_INT32};
const sk_schema sk__i64 = {.type = SK_SCHEMA_INT64};
const sk_schema sk__bool = {.type = SK_SCHEMA_BOOLEAN};
const sk_schema sk__num = {.type = SK_SCHEMA_NUMBER};
const sk_schema sk__any = {.type = SK_SCHEMA_ANY};
const sk_schema sk__intstr = {.type = SK_SCHEMA_INT_OR_STRING,
			      .name = "io.k8s.apimachinery.pkg.util.intstr.IntOrString",
			      .doc = "IntOrString is a type that can hold an int32 or a string."};
const sk_schema sk__quantity = {
	.type = SK_SCHEMA_QUANTITY,
	.name = "io.k8s.apimachinery.pkg.api.resource.Quantity",
	.doc = "Quantity is a fixed-point representation of a number, such as \"100m\", \"1.5Gi\" or \"2e3\"."};
const sk_schema sk__time = {
	.type = SK_SCHEMA_DATE_TIME,
	.name = META("Time"),
	.doc = "Time is a wrapper around time.Time which supports correct marshaling to YAML and JSON."};
const sk_schema sk__microtime = {.type = SK_SCHEMA_DATE_TIME,
				 .name = META("MicroTime"),
				 .doc = "MicroTime is version of Time with microsecond level precision."};
const sk_schema sk__strs = {.type = SK_SCHEMA_ARRAY, .items = &sk__str, .list_type = "atomic"};
const sk_schema sk__strset = {.type = SK_SCHEMA_ARRAY, .items = &sk__str, .list_type = "set"};
const sk_schema sk__str_map = {.type = SK_SCHEMA_MAP, .items = &sk__str};
const sk_schema sk__quantity_map = {.type = SK_SCHEMA_MAP, .items = &sk__quantity};

const char *const sk__keys_name[] = {"name", NULL};
const char *const sk__keys_type[] = {"type", NULL};
static const char *const keys_uid[] = {"uid", NULL};

static const sk_schema_field owner_ref_f[] = {R("apiVersion", sk__str),
					      R("kind", sk__str),
					      R("name", sk__str),
					      R("uid", sk__str),
					      F("controller", sk__bool),
					      F("blockOwnerDeletion", sk__bool),
					      END};
DOBJ(owner_ref, META("OwnerReference"),
     "OwnerReference contains enough information to let you identify an owning object.");
LMAP(owner_refs, owner_ref, "uid", keys_uid);
static const sk_schema finalizers = {
	.type = SK_SCHEMA_ARRAY, .items = &sk__str, .patch_strategy = "merge", .list_type = "set"};

static const sk_schema_field managed_f[] = {
	F("manager", sk__str),    F("operation", sk__str), F("apiVersion", sk__str),  F("time", sk__time),
	F("fieldsType", sk__str), F("fieldsV1", sk__any),  F("subresource", sk__str), END};
DOBJ(managed, META("ManagedFieldsEntry"),
     "ManagedFieldsEntry is a workflow-id, a FieldSet and the group version of the resource that the fieldset applies "
     "to.");
ARR(manageds, managed);

static const sk_schema_field sk__object_meta_f[] = {
	FD("name", sk__str, "Name must be unique within a namespace."),
	FD("generateName", sk__str,
	   "GenerateName is an optional prefix, used by the server, to generate a unique name ONLY IF the Name field "
	   "has not been provided."),
	FD("namespace", sk__str, "Namespace defines the space within which each name must be unique."),
	F("selfLink", sk__str),
	F("uid", sk__str),
	F("resourceVersion", sk__str),
	F("generation", sk__i64),
	F("creationTimestamp", sk__time),
	F("deletionTimestamp", sk__time),
	F("deletionGracePeriodSeconds", sk__i64),
	FD("labels", sk__str_map,
	   "Map of string keys and values that can be used to organize and categorize (scope and select) objects."),
	FD("annotations", sk__str_map,
	   "Annotations is an unstructured key value map stored with a resource that may be set by external tools to "
	   "store and retrieve arbitrary metadata."),
	F("ownerReferences", owner_refs),
	F("finalizers", finalizers),
	F("managedFields", manageds),
	END};
const sk_schema sk__object_meta = {.type = SK_SCHEMA_OBJECT,
				   .name = META("ObjectMeta"),
				   .doc = "ObjectMeta is metadata that all persisted resources must have, which "
					  "includes all objects users must create.",
				   .fields = sk__object_meta_f};

static const sk_schema_field sk__list_meta_f[] = {F("selfLink", sk__str), F("resourceVersion", sk__str),
						  F("continue", sk__str), F("remainingItemCount", sk__i64), END};
const sk_schema sk__list_meta = {.type = SK_SCHEMA_OBJECT,
				 .name = META("ListMeta"),
				 .doc = "ListMeta describes metadata that synthetic resources must have, including "
					"lists and various status objects.",
				 .fields = sk__list_meta_f};

static const sk_schema_field ls_req_f[] = {R("key", sk__str), R("operator", sk__str), F("values", sk__strs), END};
DOBJ(ls_req, META("LabelSelectorRequirement"),
     "A label selector requirement is a selector that contains values, a key, and an operator that relates the key and "
     "values.");
ARR(ls_reqs, ls_req);
static const sk_schema_field sk__label_selector_f[] = {F("matchExpressions", ls_reqs), F("matchLabels", sk__str_map),
						       END};
const sk_schema sk__label_selector = {.type = SK_SCHEMA_OBJECT,
				      .name = META("LabelSelector"),
				      .doc = "A label selector is a label query over a set of resources.",
				      .fields = sk__label_selector_f};

static const sk_schema_field sk__meta_condition_f[] = {R("type", sk__str),
						       R("status", sk__str),
						       F("observedGeneration", sk__i64),
						       R("lastTransitionTime", sk__time),
						       R("reason", sk__str),
						       R("message", sk__str),
						       END};
const sk_schema sk__meta_condition = {
	.type = SK_SCHEMA_OBJECT,
	.name = META("Condition"),
	.doc = "Condition contains details for one aspect of the current state of this API Resource.",
	.fields = sk__meta_condition_f};
const sk_schema sk__meta_conditions = {.type = SK_SCHEMA_ARRAY,
				       .items = &sk__meta_condition,
				       .merge_key = "type",
				       .patch_strategy = "merge",
				       .list_type = "map",
				       .list_map_keys = sk__keys_type};

static const sk_schema_field precond_f[] = {F("resourceVersion", sk__str), F("uid", sk__str), END};
DOBJ(precond, META("Preconditions"),
     "Preconditions must be fulfilled before an operation (update, delete, etc.) is carried out.");
static const sk_schema_field sk__delete_options_f[] = {F("apiVersion", sk__str),
						       F("kind", sk__str),
						       F("dryRun", sk__strs),
						       F("gracePeriodSeconds", sk__i64),
						       F("ignoreStoreReadErrorWithClusterBreakingPotential", sk__bool),
						       F("orphanDependents", sk__bool),
						       F("preconditions", precond),
						       F("propagationPolicy", sk__str),
						       END};
KIND(sk__delete_options, "meta.k8s.io", "v1", "DeleteOptions", META("DeleteOptions"),
     "DeleteOptions may be provided when deleting an API object.");

static const sk_schema_field cause_f[] = {F("field", sk__str), F("message", sk__str), F("reason", sk__str), END};
DOBJ(cause, META("StatusCause"),
     "StatusCause provides more information about an api.Status failure, including cases when multiple errors are "
     "encountered.");
ARR(causes, cause);
static const sk_schema_field details_f[] = {F("causes", causes),
					    F("group", sk__str),
					    F("kind", sk__str),
					    F("name", sk__str),
					    F("retryAfterSeconds", sk__i32),
					    F("uid", sk__str),
					    END};
DOBJ(details, META("StatusDetails"),
     "StatusDetails is a set of additional properties that MAY be set by the server to provide additional information "
     "about a response.");
static const sk_schema_field sk__status_f[] = {
	F("apiVersion", sk__str), F("code", sk__i32),    F("details", details),
	F("kind", sk__str),       F("message", sk__str), F("metadata", sk__list_meta),
	F("reason", sk__str),     F("status", sk__str),  END};
KIND(sk__status, "", "v1", "Status", META("Status"),
     "Status is a return value for calls that don't return other objects.");

static const sk_schema_field column_f[] = {R("name", sk__str),        R("type", sk__str),     R("format", sk__str),
					   R("description", sk__str), R("priority", sk__i32), END};
DOBJ(column, META("TableColumnDefinition"),
     "TableColumnDefinition contains information about a column returned in the Table.");
ARR(columns, column);
static const sk_schema anys = {.type = SK_SCHEMA_ARRAY, .items = &sk__any, .list_type = "atomic"};
static const sk_schema_field row_cond_f[] = {R("type", sk__str), R("status", sk__str), F("reason", sk__str),
					     F("message", sk__str), END};
OBJ(row_cond, META("TableRowCondition"));
ARR(row_conds, row_cond);
static const sk_schema_field row_f[] = {R("cells", anys), F("conditions", row_conds), F("object", sk__any), END};
DOBJ(row, META("TableRow"), "TableRow is an individual row in a table.");
ARR(rows, row);
static const sk_schema_field sk__table_f[] = {
	F("apiVersion", sk__str),        F("kind", sk__str), F("metadata", sk__list_meta),
	R("columnDefinitions", columns), R("rows", rows),    END};
KIND(sk__table, "meta.k8s.io", "v1", "Table", META("Table"),
     "Table is a tabular representation of a set of API resources.");
/* clang-format on */
