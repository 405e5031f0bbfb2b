/* Transport vtable behind sk_client (private to src/client and src/api). */
#ifndef SK_CLIENT_CLIENT_INT_H
#define SK_CLIENT_CLIENT_INT_H

#include "client/client.h"

struct sk_client_ops {
	json_t *(*request)(sk_client *c, const char *method, const char *path, const char *query, json_t *body,
			   const char *content_type, sk_error_t *err);
	char *(*get_raw)(sk_client *c, const char *path, const char *query, size_t *len, sk_error_t *err);
	/* take: body is given up (see sk_client_create_take); NULL: request + decref */
	json_t *(*request_take)(sk_client *c, const char *method, const char *path, json_t *body, sk_error_t *err);
	sk_client_watch *(*watch)(sk_client *c, const char *path, const char *query, sk_client_watch_cb cb, void *ud,
				  sk_error_t *err);
	/* NULL: watch (every event decoded for this watch alone) */
	sk_client_watch *(*watch_shared)(sk_client *c, const char *path, const char *query, sk_client_watch_cb cb,
					 void *ud, sk_error_t *err);
	void (*watch_stop)(sk_client_watch *w);
	void (*free)(sk_client *c);
};

struct sk_client {
	const struct sk_client_ops *ops;
	void *impl;
	int fenced; /* atomic: writes refused (sk_client_fence) */
};

/* Maps a Kubernetes Status reason ("NotFound", "Conflict" …) to an SK_E* code. */
int sk__client_code_from_reason(const char *reason, int http_code);

#endif
