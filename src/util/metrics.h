/* Prometheus metrics: counters, gauges and histograms with fixed label
 * names, exposed in the text format 0.0.4 or OpenMetrics 1.0.
 *
 * A registry holds families; a family holds one series per set of label
 * values, created on first use and removed on demand (a deleted pod's
 * series go away, so the number of series stays bounded). Updates are
 * atomic operations under a family's read lock (no allocation once a series
 * exists); only creating or removing a series takes the write lock.
 * Collectors are callbacks run before each exposition, for values read on
 * demand (store counts, process statistics, queue lengths). */
#ifndef SK_UTIL_METRICS_H
#define SK_UTIL_METRICS_H

#include <stddef.h>

typedef struct sk_metrics sk_metrics;
typedef struct sk_metric_family sk_metric_family;

typedef enum { SK_METRIC_COUNTER, SK_METRIC_GAUGE, SK_METRIC_HISTOGRAM } sk_metric_type;

enum { SK_METRIC_MAX_LABELS = 12 };

/* Upstream's bucket sets (prometheus.DefBuckets and the ones kube's
 * metrics name), each ending before +Inf, with their lengths. */
extern const double sk_metric_buckets_default[]; /* prometheus.DefBuckets */
extern const size_t sk_metric_buckets_default_n;
extern const double sk_metric_buckets_apiserver_request[]; /* apiserver_request_duration_seconds */
extern const size_t sk_metric_buckets_apiserver_request_n;
extern const double sk_metric_buckets_etcd_request[]; /* etcd_request_duration_seconds */
extern const size_t sk_metric_buckets_etcd_request_n;
extern const double sk_metric_buckets_workqueue[]; /* ExponentialBuckets(1e-8, 10, 10) */
extern const size_t sk_metric_buckets_workqueue_n;
extern const double sk_metric_buckets_scheduler_attempt[]; /* ExponentialBuckets(0.001, 2, 15) */
extern const size_t sk_metric_buckets_scheduler_attempt_n;

/* A new empty registry; sk_metrics_free frees it and every family. */
sk_metrics *sk_metrics_new(void);
void sk_metrics_free(sk_metrics *m);
/* The process's control-plane registry (API server, scheduler,
 * controllers), created on first use and never freed. */
sk_metrics *sk_metrics_default(void);

/* Registers a family, or returns the one of that name already registered
 * (the same type and labels: a component started twice shares it). name is
 * the exposed name (a counter's ends in _total); unit, when not NULL, is
 * given as OpenMetrics' # UNIT when the name ends with _<unit>. labels: the
 * label names, NULL-terminated (NULL: none). buckets (histograms only):
 * the upper bounds, increasing, +Inf implied. The registry owns the family. */
sk_metric_family *sk_metrics_family(sk_metrics *m, sk_metric_type type, const char *name, const char *help,
				    const char *unit, const char *const *labels, const double *buckets,
				    size_t nbuckets);

/* Updates the series of these label values (as many as the family's
 * labels; none when it has none), creating it at zero when missing:
 * a counter's add (v >= 0), a gauge's add or set, a histogram's observe.
 * A counter's set is for counts kept elsewhere (CPU seconds from /proc, a
 * container's restartCount): the source keeps it monotonic. */
void sk_metric_add(sk_metric_family *f, const char *const *values, double v);
void sk_metric_set(sk_metric_family *f, const char *const *values, double v);
void sk_metric_observe(sk_metric_family *f, const char *const *values, double v);
/* Sets a counter or gauge with the time the value was read (ms since the
 * epoch; exposed with the sample, as client_golang's NewMetricWithTimestamp),
 * for values sampled before the scrape (the kubelet's resource metrics). */
void sk_metric_set_at(sk_metric_family *f, const char *const *values, double v, int64_t ts_ms);
/* Convenience forms for one label value, or none (value NULL). */
void sk_metric_inc1(sk_metric_family *f, const char *value);
void sk_metric_set1(sk_metric_family *f, const char *value, double v);
/* The current value of a counter or gauge series (0 when absent); a
 * histogram's count. For tests and collectors. */
double sk_metric_value(sk_metric_family *f, const char *const *values);

/* Removes one series; 1 when it existed. */
int sk_metric_remove(sk_metric_family *f, const char *const *values);
/* Removes every series whose label (by name) has this value, e.g. all of a
 * deleted pod's series; returns how many went. */
size_t sk_metric_remove_matching(sk_metric_family *f, const char *label, const char *value);
/* Removes every series of the family (a gauge set again from scratch). */
void sk_metric_clear(sk_metric_family *f);

/* A callback run (under the registry's collector lock, one scrape at a
 * time) before each exposition; returns an id for sk_metrics_remove_collector. */
int sk_metrics_add_collector(sk_metrics *m, void (*collect)(void *arg), void *arg);
void sk_metrics_remove_collector(sk_metrics *m, int id);

/* Media types of the two formats. */
#define SK_METRICS_TEXT_TYPE "text/plain; version=0.0.4; charset=utf-8"
#define SK_METRICS_OPENMETRICS_TYPE "application/openmetrics-text; version=1.0.0; charset=utf-8"

/* 1 when an Accept header asks for OpenMetrics (as client_golang's
 * negotiation: application/openmetrics-text anywhere in it). */
int sk_metrics_wants_openmetrics(const char *accept);

/* Runs the collectors and renders every family, sorted by name, series by
 * label values; OpenMetrics ends with "# EOF". Returns a malloc'd text
 * (caller frees), its length in *len. */
char *sk_metrics_expose(sk_metrics *m, int openmetrics, size_t *len);

/* Registers (once per registry) client_golang's process collector
 * (process_cpu_seconds_total, process_resident_memory_bytes,
 * process_virtual_memory_bytes, process_open_fds, process_max_fds,
 * process_start_time_seconds, read from /proc/self) and component-base's
 * kubernetes_build_info. */
void sk_metrics_register_process(sk_metrics *m);

#endif
