/* Durations as Go writes and reads them (time.ParseDuration): a sign, then
 * decimal numbers each with a unit of ns, us (µs, μs), ms, s, m or h
 * ("300ms", "-1.5h", "2h45m", "1m0s"); "0" alone needs no unit. Flags,
 * CronJob @every, CEL's duration(), metrics windows and kubelet event
 * texts all read them through this. */
#ifndef SK_KUBE_DURATION_H
#define SK_KUBE_DURATION_H

#include <stdint.h>

#include "util/error.h"

/* s in nanoseconds into *ns; -1 with upstream's message ("time: invalid
 * duration \"x\"", "time: missing unit…", "time: unknown unit…") in err
 * (which may be NULL). */
int sk_kube_duration_parse(const char *s, int64_t *ns, sk_error_t *err);

#endif
