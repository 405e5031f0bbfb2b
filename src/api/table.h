/* Server-side printing: the columns and cells of the meta.k8s.io/v1 Table
 * that kubectl asks for with `Accept: application/json;as=Table;...`.
 *
 * The API server builds the Table envelope; this module supplies, per kind,
 * the column definitions and the cells of one row, following upstream's
 * pkg/printers/internalversion/printers.go (Kubernetes 1.32) as the API
 * server runs it: always with the wide (priority 1) columns, so every row has
 * exactly as many cells as sk_table_columns() has columns.
 *
 * Cells are JSON strings, integers or booleans exactly where upstream puts
 * them (upstream's column "type" does not always match its cell: a Deployment's
 * Up-to-date column says "string" and carries integers; we copy both).
 * Kinds without a printer get upstream's default table convertor:
 * "Name" and "Created At" (type date, RFC 3339 cell).
 *
 * Printers: Namespace, Pod, Node, Event, ConfigMap, Secret, Service,
 * Endpoints, ServiceAccount, ResourceQuota, PersistentVolume,
 * PersistentVolumeClaim, StorageClass, Deployment, ReplicaSet, Job, CronJob,
 * Lease, RuntimeClass, PriorityClass, APIService as upstream, and PodGroup
 * (scheduling.x-k8s.io, no upstream printer) as our own:
 * NAME MINMEMBER PHASE RUNNING AGE [SUCCEEDED FAILED].
 * Deliberate departures: a Job with a true SuccessCriteriaMet condition
 * prints that status (upstream 1.34; 1.32 printed Running); quantities print
 * as stored, so the API server is expected to keep them canonical. */
#ifndef SK_API_TABLE_H
#define SK_API_TABLE_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

/* A kind's printer: its column definitions, the cells of a row, the row's
 * conditions. A built-in kind's descriptor points at its printer
 * (sk_kind_ops.printer, src/api/kinds/); NULL is upstream's default table
 * convertor (Name, Created At). */
typedef struct sk_table_printer sk_table_printer;

extern const sk_table_printer sk_table_printer_pod;
extern const sk_table_printer sk_table_printer_node;
extern const sk_table_printer sk_table_printer_namespace;
extern const sk_table_printer sk_table_printer_event;
extern const sk_table_printer sk_table_printer_configmap;
extern const sk_table_printer sk_table_printer_secret;
extern const sk_table_printer sk_table_printer_service;
extern const sk_table_printer sk_table_printer_endpoints;
extern const sk_table_printer sk_table_printer_serviceaccount;
extern const sk_table_printer sk_table_printer_resourcequota;
extern const sk_table_printer sk_table_printer_persistentvolume;
extern const sk_table_printer sk_table_printer_persistentvolumeclaim;
extern const sk_table_printer sk_table_printer_storageclass;
extern const sk_table_printer sk_table_printer_deployment;
extern const sk_table_printer sk_table_printer_replicaset;
extern const sk_table_printer sk_table_printer_daemonset;
extern const sk_table_printer sk_table_printer_replicationcontroller;
extern const sk_table_printer sk_table_printer_poddisruptionbudget;
extern const sk_table_printer sk_table_printer_statefulset;
extern const sk_table_printer sk_table_printer_controllerrevision;
extern const sk_table_printer sk_table_printer_job;
extern const sk_table_printer sk_table_printer_cronjob;
extern const sk_table_printer sk_table_printer_lease;
extern const sk_table_printer sk_table_printer_apiservice;
extern const sk_table_printer sk_table_printer_rolebinding;
extern const sk_table_printer sk_table_printer_certificatesigningrequest;
extern const sk_table_printer sk_table_printer_endpointslice;
extern const sk_table_printer sk_table_printer_networkpolicy;
extern const sk_table_printer sk_table_printer_runtimeclass;
extern const sk_table_printer sk_table_printer_priorityclass;
extern const sk_table_printer sk_table_printer_webhookconfiguration;
extern const sk_table_printer sk_table_printer_validatingadmissionpolicy;
extern const sk_table_printer sk_table_printer_validatingadmissionpolicybinding;
extern const sk_table_printer sk_table_printer_podgroup;
extern const sk_table_printer sk_table_printer_horizontalpodautoscaler;

/* Column definitions: a new JSON array of {"name","type","format",
 * "description","priority"}. Caller decrefs. */
json_t *sk_table_printer_columns(const sk_table_printer *p);

/* Cells of obj's row: a new JSON array as long as the columns. Ages are
 * computed against now (seconds since the epoch). obj is only read
 * (borrowed); a missing field prints as upstream prints its zero value.
 * Caller decrefs. */
json_t *sk_table_printer_cells(const sk_table_printer *p, json_t *obj, int64_t now);

/* Row conditions upstream attaches to a row: for a Pod in phase Succeeded or
 * Failed, [{"type":"Completed","status":"True","reason":...,"message":...}].
 * A new array, or NULL when the row has none. Caller decrefs. */
json_t *sk_table_printer_row_conditions(const sk_table_printer *p, json_t *obj);

/* The same for the built-in kind named kind ("Pod", "Deployment", ...),
 * looked up in the kind registry (for tests and fuzz targets): NULL or a
 * kind without a printer gives the default columns. */
json_t *sk_table_columns(const char *kind);
json_t *sk_table_cells(const char *kind, json_t *obj, int64_t now);
json_t *sk_table_row_conditions(const char *kind, json_t *obj);
/* True (non-zero) when kind has its own printer (not the default columns). */
int sk_table_has_printer(const char *kind);

/* apimachinery's duration.HumanDuration ("45s", "5m30s", "3h2m", "4d5h",
 * "2y3d") and ShortHumanDuration ("45s", "5m", "3h", "4d", "2y"), both with
 * "0s" for -1 s and "<invalid>" for anything earlier. buf of >= 16 bytes. */
void sk_human_duration(int64_t secs, char *buf, size_t len);
void sk_short_human_duration(int64_t secs, char *buf, size_t len);

/* A metav1.LabelSelector ({"matchLabels":{},"matchExpressions":[]}) as
 * labels.Selector.String() writes it: requirements sorted by key, joined by
 * ",": "app=web", "tier in (a,b)", "env notin (x)", "k", "!k".
 * NULL, JSON null or an empty selector give "". Returns NULL for an invalid
 * selector (unknown operator, In/NotIn without values, Exists with values).
 * The result is malloc'd; caller frees. Usable for Scale's status.selector. */
char *sk_table_selector_string(json_t *selector);

#endif
