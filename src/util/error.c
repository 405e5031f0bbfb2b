#include "util/error.h"

#include <stdio.h>
#include <string.h>

int sk_error_set(sk_error_t *err, int code, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return -1;
	err->code = code;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return -1;
}

int sk_error_errno(sk_error_t *err, int errnum, const char *fmt, ...)
{
	va_list ap;
	size_t n;

	if (!err)
		return -1;
	err->code = errnum;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	n = strlen(err->msg);
	snprintf(err->msg + n, sizeof(err->msg) - n, ": %s", strerror(errnum));
	return -1;
}

int sk_error_wrap(sk_error_t *err, const char *fmt, ...)
{
	char ctx[256], old[sizeof(err->msg)];
	va_list ap;

	if (!err)
		return -1;
	va_start(ap, fmt);
	vsnprintf(ctx, sizeof(ctx), fmt, ap);
	va_end(ap);
	memcpy(old, err->msg, sizeof(old));
	snprintf(err->msg, sizeof(err->msg), "%s: %s", ctx, old);
	return -1;
}

void sk_error_clear(sk_error_t *err)
{
	if (!err)
		return;
	err->code = 0;
	err->msg[0] = '\0';
}
