/* Label and field selectors, as the API server's `?labelSelector=` and
 * `?fieldSelector=` parameters and metav1.LabelSelector objects use them
 * (after k8s.io/apimachinery/pkg/labels and pkg/fields).
 *
 * Selectors are immutable after parsing and may be shared between threads
 * for matching. Every parse function returns a selector the caller frees
 * with the matching _free function, or NULL with err set (code
 * SK_EBADREQUEST, message worded as upstream's). */
#ifndef SK_KUBE_SELECTOR_H
#define SK_KUBE_SELECTOR_H

#include <jansson.h>

#include "util/error.h"

typedef struct sk_kube_label_selector sk_kube_label_selector;
typedef struct sk_kube_field_selector sk_kube_field_selector;

/* Parses the string form: `k=v`, `k==v`, `k!=v`, `k in (a,b)`,
 * `k notin (a,b)`, `k`, `!k`, `k>1`, `k<1`, comma separated (AND).
 * NULL or "" gives a selector that matches everything. Keys must be
 * qualified names and values valid label values, as upstream validates. */
sk_kube_label_selector *sk_kube_label_selector_parse(const char *s, sk_error_t *err);

/* Builds a selector from a metav1.LabelSelector object (matchLabels and
 * matchExpressions with In, NotIn, Exists, DoesNotExist), as upstream's
 * LabelSelectorAsSelector: sel NULL or JSON null gives a selector that
 * matches nothing; {} gives one that matches everything. Callers that
 * want "nil selects all" (e.g. a PodDisruptionBudget) test for NULL first. */
sk_kube_label_selector *sk_kube_label_selector_from_json(json_t *sel, sk_error_t *err);

/* A selector from a plain map of labels (Service spec.selector,
 * ReplicationController): every key must equal its value; NULL or {}
 * gives one that matches everything (upstream SelectorFromSet). */
sk_kube_label_selector *sk_kube_label_selector_from_set(json_t *set);

/* The canonical string form, as upstream's Selector.String() (and thus
 * metav1.FormatLabelSelector, Scale status.selector): requirements sorted
 * by key, values sorted, e.g. "app=web,env in (a,b),!legacy". "" for a
 * selector without requirements (FormatLabelSelector shows "<none>").
 * Returns a malloc'd string the caller frees. */
char *sk_kube_label_selector_string(const sk_kube_label_selector *sel);

/* 1 when labels (an object of strings, or NULL for none) satisfy every
 * requirement of sel, else 0. */
int sk_kube_label_selector_match(const sk_kube_label_selector *sel, json_t *labels);

/* sk_kube_label_selector_match(sk_kube_label_selector_from_json(sel), labels)
 * without building the selector, for hot paths (the scheduler's affinity and
 * spread terms): 0 for a missing selector or an unknown operator. Keys and
 * values are not validated (validation did that when the object was
 * written). */
int sk_kube_label_selector_json_match(json_t *sel, json_t *labels);

/* 1 when the selector matches everything (no requirements). */
int sk_kube_label_selector_empty(const sk_kube_label_selector *sel);

void sk_kube_label_selector_free(sk_kube_label_selector *sel);

/* Parses `field=value`, `field==value`, `field!=value`, comma separated
 * (AND); `\,`, `\=` and `\\` escape in values as upstream. NULL or ""
 * matches everything. Fields are not checked here: see _check. */
sk_kube_field_selector *sk_kube_field_selector_parse(const char *s, sk_error_t *err);

/* The field labels a kind lets field selectors use: upstream's field label
 * conversion function of the kind (AddFieldLabelConversionFunc). Kinds
 * describe theirs in their descriptor (src/api/kinds/). */
typedef struct sk_kube_field_labels {
	const char *const *fields; /* NULL-terminated */
	const char *unsupported;   /* message for any other field (one %s); NULL: "field label not supported: %s" */
	const char *alias;         /* a legacy field label rewritten to alias_of (Pod's spec.host), or NULL */
	const char *alias_of;
} sk_kube_field_labels;

/* Checks every field of sel against labels. Unsupported fields fail with
 * SK_EBADREQUEST and the kind's message (labels->unsupported), or, for
 * labels NULL (a kind without its own conversion: apps/v1 kinds among
 * others), metadata.name and metadata.namespace only, with upstream's
 * `"foo" is not a known field selector: only "metadata.name",
 * "metadata.namespace"`. Rewrites labels->alias to labels->alias_of.
 * Returns 0 or -1. */
int sk_kube_field_selector_check(sk_kube_field_selector *sel, const sk_kube_field_labels *labels, sk_error_t *err);

/* Checks every field of sel against metadata.name, metadata.namespace and
 * the NULL-terminated extra (a custom kind's selectableFields, without the
 * leading dot); others fail with SK_EBADREQUEST and upstream's message
 * "field label not supported: foo". Returns 0 or -1. */
int sk_kube_field_selector_check_fields(const sk_kube_field_selector *sel, const char *const *extra, sk_error_t *err);

/* 1 when obj satisfies every term. A field's value is read from the dotted
 * path in obj: missing gives "" (or upstream's default: "false" for
 * spec.hostNetwork and spec.unschedulable, "0" for status.replicas and
 * status.successful), booleans "true"/"false", numbers decimal. As in
 * upstream's field sets: Event's "source" is source.component, falling back
 * to reportingComponent; a Job's status.successful is status.succeeded; a
 * pod's status.podIP is status.podIPs[0].ip. */
int sk_kube_field_selector_match(const sk_kube_field_selector *sel, json_t *obj);

/* The value field has in obj for field selectors, as _match reads it;
 * malloc'd, the caller frees. */
char *sk_kube_field_value(json_t *obj, const char *field);

/* As _match with each term's value from get(ctx, field) (a value the caller
 * extracted earlier with sk_kube_field_value): 1 or 0, or -1 as soon as get
 * returns NULL (a value it does not have). */
int sk_kube_field_selector_match_fn(const sk_kube_field_selector *sel, const char *(*get)(void *ctx, const char *field),
				    void *ctx);

/* The number of terms, and term i's field (valid while sel lives). */
size_t sk_kube_field_selector_len(const sk_kube_field_selector *sel);
const char *sk_kube_field_selector_field(const sk_kube_field_selector *sel, size_t i);

/* 1 when sel is exactly one term `field=value` (or ==), storing a pointer
 * into sel in *value (valid while sel lives); else 0. For index lookups. */
int sk_kube_field_selector_single_eq(const sk_kube_field_selector *sel, const char *field, const char **value);

/* 1 when the selector has no terms. */
int sk_kube_field_selector_empty(const sk_kube_field_selector *sel);

void sk_kube_field_selector_free(sk_kube_field_selector *sel);

#endif
