/* Pure Job controller logic (after pkg/controller/job): completed/failed
 * index interval strings, pod failure backoff, podFailurePolicy and
 * successPolicy matching. No API calls, for unit tests. */
#ifndef SK_CTRL_JOBUTIL_H
#define SK_CTRL_JOBUTIL_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

/* A set of completion indexes as a sorted bitmap over [0, n). */
typedef struct sk_index_set {
	unsigned char *bits;
	int64_t n;
} sk_index_set;

/* Parses "1,3-5" (as in status.completedIndexes), ignoring indexes >= n
 * and malformed pieces as upstream does. Release with sk_index_set_release. */
void sk_index_set_parse(sk_index_set *s, const char *str, int64_t n);
void sk_index_set_init(sk_index_set *s, int64_t n);
void sk_index_set_release(sk_index_set *s);
int sk_index_set_has(const sk_index_set *s, int64_t i);
void sk_index_set_add(sk_index_set *s, int64_t i);
int64_t sk_index_set_count(const sk_index_set *s);
/* Interval string "0,2-4" ("" when empty); malloc'd. */
char *sk_index_set_format(const sk_index_set *s);

/* Seconds to wait before creating a replacement after `failures`
 * consecutive failures: 0 for none, else 10 s doubling, capped at 360 s. */
int64_t sk_job_backoff_secs(int64_t failures);

enum sk_pfp_action { SK_PFP_NONE, SK_PFP_FAIL_JOB, SK_PFP_FAIL_INDEX, SK_PFP_IGNORE, SK_PFP_COUNT };

/* Matches a failed pod against spec.podFailurePolicy: returns the action of
 * the first matching rule (SK_PFP_NONE when none matches) and, for FailJob,
 * upstream's message in *msg (malloc'd, caller frees; may be NULL). */
enum sk_pfp_action sk_job_pfp_match(json_t *pfp, json_t *pod, char **msg);

/* Matches spec.successPolicy against the succeeded indexes: returns the
 * index of the first matching rule or -1. */
int sk_job_success_policy_match(json_t *sp, const sk_index_set *succeeded);

#endif
