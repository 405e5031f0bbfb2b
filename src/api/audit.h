/* The audit log (kube-apiserver's --audit-log-path and --audit-policy-file):
 * one audit.k8s.io/v1 Event per request as a JSON line, at the level the
 * policy's first matching rule gives. Events are formatted on the request's
 * thread and written by one writer thread from a bounded queue; a request
 * finding the queue full waits for room (upstream's "blocking" mode, the
 * log backend's default), so no event is lost and a slow disk slows
 * requests rather than growing memory. */
#ifndef SK_API_AUDIT_H
#define SK_API_AUDIT_H

#include <jansson.h>
#include <stdint.h>

#include "api/auth.h"
#include "util/error.h"

typedef struct sk_audit sk_audit;

typedef struct sk_audit_options {
	const char *log_path;    /* "-": standard output */
	const char *policy_path; /* YAML or JSON audit.k8s.io/v1 Policy; NULL: Metadata for every request */
	int max_size_mb;         /* rotate past this size (0: never) */
	int max_backups;         /* rotated files kept (0: all) */
	size_t queue_max;        /* events waiting for the writer (0: 10,000) */
} sk_audit_options;

enum sk_audit_level { SK_AUDIT_NONE, SK_AUDIT_METADATA, SK_AUDIT_REQUEST, SK_AUDIT_REQUEST_RESPONSE };

enum sk_audit_stage {
	SK_AUDIT_STAGE_RECEIVED = 1, /* RequestReceived */
	SK_AUDIT_STAGE_STARTED = 2,  /* ResponseStarted: long-running requests (watch, followed logs) */
	SK_AUDIT_STAGE_COMPLETE = 4, /* ResponseComplete */
	SK_AUDIT_STAGE_PANIC = 8,    /* Panic */
};

/* Opens the log (0600, appending) and reads the policy; NULL with err. */
sk_audit *sk_audit_open(const sk_audit_options *o, sk_error_t *err);
/* Writes what is queued and closes. */
void sk_audit_close(sk_audit *a);

/* What a policy rule matches on (upstream's authorizer.Attributes). */
typedef struct sk_audit_attrs {
	const sk_user *user; /* NULL: not authenticated */
	const char *verb;
	int resource_request;
	const char *group, *resource, *subresource, *ns, *name; /* resource requests */
	const char *path;                                       /* non-resource requests */
} sk_audit_attrs;

/* A parsed policy (the document as JSON, checked). Free with json_decref. */
json_t *sk_audit_policy_parse(const char *text, size_t len, sk_error_t *err);
/* The level of the first rule matching a, and its omitted stages (with the
 * policy's) as a mask of sk_audit_stage. */
enum sk_audit_level sk_audit_policy_level(json_t *policy, const sk_audit_attrs *a, unsigned *omit);

/* Queues the event line (takes line, a malloc'd text ending in '\n'). */
void sk__audit_write(sk_audit *a, char *line);
json_t *sk__audit_policy(sk_audit *a);

#endif
