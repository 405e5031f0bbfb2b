/* Cron schedules as CronJobs use them (robfig/cron's standard parser, as
 * upstream): five fields (minute hour day-of-month month day-of-week) with
 * lists, ranges, steps, `*` and `?`, month and weekday names, and the
 * descriptors @yearly @annually @monthly @weekly @daily @midnight @hourly
 * and @every <duration>. Next times are computed in an IANA time zone. */
#ifndef SK_KUBE_CRON_H
#define SK_KUBE_CRON_H

#include <stddef.h>
#include <stdint.h>

#include "util/error.h"

typedef struct sk_kube_cron sk_kube_cron;

/* Parses spec; NULL with err set (SK_EINVALID) on a bad schedule. Free
 * with sk_kube_cron_free. */
sk_kube_cron *sk_kube_cron_parse(const char *spec, sk_error_t *err);
void sk_kube_cron_free(sk_kube_cron *c);

/* The first activation strictly after t (seconds since the epoch) in zone
 * tz ("Europe/Berlin"; NULL or "" for the process's local zone), or -1 when
 * there is none within five years. Thread-safe. */
int64_t sk_kube_cron_next(const sk_kube_cron *c, int64_t t, const char *tz);

/* Formats t as Go's RFC 3339 in zone tz ("2026-05-01T10:00:00+02:00",
 * "Z" for a zero offset) into buf (>= 32 bytes). */
void sk_kube_cron_format_time(int64_t t, const char *tz, char *buf, size_t len);

/* 1 when tz names a zone in the system tzdata (or is NULL/""/"UTC"/"Local"). */
int sk_kube_cron_zone_valid(const char *tz);

#endif
