/* Errors that travel with context (after crun's libcrun_error_t).
 *
 * A function that can fail takes `sk_error_t *err`, returns a negative value
 * or NULL, and fills `err` with a code and a message. Callers add context with
 * sk_error_wrap() as the error bubbles up. Only the API layer turns an error
 * into a Kubernetes Status reply (see sk_error_code and the SK_E* codes). */
#ifndef SK_UTIL_ERROR_H
#define SK_UTIL_ERROR_H

#include <stdarg.h>

/* Error kinds that map onto Kubernetes Status reasons; plain errno values
 * (positive, < 1000) are also allowed and map to InternalError. */
enum {
	SK_EINTERNAL = 1000, /* 500 InternalError */
	SK_EBADREQUEST,      /* 400 BadRequest */
	SK_ENOTFOUND,        /* 404 NotFound */
	SK_EEXISTS,          /* 409 AlreadyExists */
	SK_ECONFLICT,        /* 409 Conflict */
	SK_EINVALID,         /* 422 Invalid */
	SK_EGONE,            /* 410 Expired */
	SK_ETOOLARGE,        /* 413 RequestEntityTooLarge */
	SK_EUNSUPPORTED,     /* 415 UnsupportedMediaType */
	SK_EMETHOD,          /* 405 MethodNotAllowed */
	SK_EUNAUTHORIZED,    /* 401 Unauthorized */
	SK_EFORBIDDEN,       /* 403 Forbidden */
	SK_ENOTACCEPTABLE,   /* 406 NotAcceptable */
	SK_ETIMEOUT,         /* 504 Timeout */
	SK_EUNAVAILABLE,     /* 503 ServiceUnavailable */
	SK_EUNKNOWN,         /* 500 without a reason (upstream's StatusReasonUnknown: a storage error) */
	SK_ESTATUS, /* msg is a whole metav1.Status (JSON) replied as is, its code the HTTP status (webhooks) */
};

typedef struct sk_error {
	int code; /* SK_E* or an errno value; 0 when no error */
	char msg[4096];
} sk_error_t;

/* Sets err (if not NULL) and returns -1 so callers can `return sk_error_set(...)`. */
int sk_error_set(sk_error_t *err, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Like sk_error_set, appending ": strerror(errno)". */
int sk_error_errno(sk_error_t *err, int errnum, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Prefixes the existing message with context: "context: old message". Returns -1. */
int sk_error_wrap(sk_error_t *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sk_error_clear(sk_error_t *err);

#endif
