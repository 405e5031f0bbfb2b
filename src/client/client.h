/* A Kubernetes API client for skiff's own components.
 *
 * Two transports behind one interface:
 * - in-process (sk_client_new_inproc, src/api/): the scheduler, controllers
 *   and embedded agent call the API server's request handler directly, so
 *   their requests pass the same validation, defaulting and admission as HTTP;
 * - HTTPS (sk_client_new_http, libcurl): a separate `skiff agent` process.
 *
 * Requests name a path exactly as the REST API does
 * ("/api/v1/namespaces/default/pods/web-1/status", "/apis/apps/v1/deployments")
 * plus an optional query string ("labelSelector=app%3Dweb&limit=500").
 * Objects are jansson values; failures come back as NULL with err->code set
 * from the Status reason (SK_ENOTFOUND, SK_ECONFLICT, SK_EINVALID …) and
 * err->msg set to the Status message. */
#ifndef SK_CLIENT_CLIENT_H
#define SK_CLIENT_CLIENT_H

#include <jansson.h>
#include <stdint.h>

#include "util/error.h"

typedef struct sk_client sk_client;
typedef struct sk_client_watch sk_client_watch;

/* Patch content types. */
#define SK_PATCH_MERGE "application/merge-patch+json"
#define SK_PATCH_JSON "application/json-patch+json"
#define SK_PATCH_STRATEGIC "application/strategic-merge-patch+json"
#define SK_PATCH_APPLY "application/apply-patch+yaml"

/* HTTPS client for server (e.g. "https://127.0.0.1:6443", or several
 * comma-separated: a server that cannot be reached is left for the next,
 * a request that never reached it is sent there again) with a bearer
 * token; ca_pem is the CA certificate in PEM (NULL: skip verification, for
 * tests only). Free with sk_client_free. */
sk_client *sk_client_new_http(const char *server, const char *token, const char *ca_pem, sk_error_t *err);
/* Client from a kubeconfig file written by `skiff server`. */
sk_client *sk_client_new_kubeconfig(const char *path, sk_error_t *err);
/* The CA an HTTPS client verifies its server with (PEM, malloc'd), or NULL. */
char *sk_client_ca_pem(sk_client *c);
/* An HTTPS client that authenticates with the client certificate and key in
 * the PEM files cert_file and key_file; they are read again for each new
 * connection, so replacing the files (rename) rotates the credential. */
sk_client *sk_client_new_http_cert(const char *server, const char *cert_file, const char *key_file, const char *ca_pem,
				   sk_error_t *err);
void sk_client_free(sk_client *c);
/* A leader's write barrier: while fenced, every request but GET fails at
 * once with SK_EUNAVAILABLE, so that components that lost their
 * leader-election Lease stop writing the moment they lose it, even before
 * they are stopped (reads and watches go on). */
void sk_client_fence(sk_client *c, int on);
/* The servers of an HTTPS client become the ones it was created with, in
 * their order, then those of urls (an array of "https://HOST:PORT" strings,
 * borrowed) not among them; a learned server missing from urls is dropped.
 * The current server stays current while listed. No-op for other
 * transports. */
void sk_client_set_servers(sk_client *c, json_t *urls);
/* A new array of the HTTPS client's server URLs in failover order (empty
 * for other transports). */
json_t *sk_client_servers(sk_client *c);

/* One request. method is "GET", "POST", "PUT", "PATCH", "DELETE"; query may
 * be NULL; body may be NULL; content_type NULL means application/json.
 * Returns the decoded response object (new reference) or NULL with err set.
 * The caller keeps its reference to body. */
json_t *sk_client_do(sk_client *c, const char *method, const char *path, const char *query, json_t *body,
		     const char *content_type, sk_error_t *err);

/* Conveniences over sk_client_do. */
json_t *sk_client_get(sk_client *c, const char *path, sk_error_t *err);
json_t *sk_client_list(sk_client *c, const char *path, const char *query, sk_error_t *err);
json_t *sk_client_create(sk_client *c, const char *path, json_t *obj, sk_error_t *err);
json_t *sk_client_update(sk_client *c, const char *path, json_t *obj, sk_error_t *err);
json_t *sk_client_patch(sk_client *c, const char *path, const char *content_type, json_t *patch, sk_error_t *err);
int sk_client_delete(sk_client *c, const char *path, json_t *options, sk_error_t *err);
/* Like sk_client_create / sk_client_update, but they take obj: the caller's
 * reference and the whole tree under it, which nothing else may share. The
 * in-process transport lets the server work on it in place instead of on a
 * deep copy. */
json_t *sk_client_create_take(sk_client *c, const char *path, json_t *obj, sk_error_t *err);
json_t *sk_client_update_take(sk_client *c, const char *path, json_t *obj, sk_error_t *err);

/* Watch events. type is "ADDED", "MODIFIED", "DELETED", "BOOKMARK" or
 * "ERROR"; obj is borrowed for the call. Return 0 to go on, non-zero to stop. */
typedef int (*sk_client_watch_cb)(const char *type, json_t *obj, void *ud);

/* Starts a watch on its own thread: path is a collection path, query holds
 * selectors and resourceVersion ("watch=true" is added). cb runs on the
 * watch thread. When the stream ends (timeout, server restart, 410 Expired)
 * cb gets an "ERROR" event whose object is the Status (NULL when the server
 * ended the stream; a Status of code 503, reason ServiceUnavailable, when
 * no server could be reached or the connection broke) and the watch ends;
 * callers watch again from their last resourceVersion, or relist.
 * Returns a handle to stop with sk_client_watch_stop, or NULL. */
sk_client_watch *sk_client_watch_start(sk_client *c, const char *path, const char *query, sk_client_watch_cb cb,
				       void *ud, sk_error_t *err);
/* Like sk_client_watch_start, but obj may be the one decoded object that the
 * in-process transport hands to every watcher of the event: neither cb nor
 * anyone it passes a reference to may change it. */
sk_client_watch *sk_client_watch_start_shared(sk_client *c, const char *path, const char *query, sk_client_watch_cb cb,
					      void *ud, sk_error_t *err);
/* Stops the watch and joins its thread; cb is not called after it returns. */
void sk_client_watch_stop(sk_client_watch *w);

/* Raw GET of a non-JSON body (pod logs). Returns malloc'd bytes or NULL. */
char *sk_client_get_raw(sk_client *c, const char *path, const char *query, size_t *len, sk_error_t *err);

#endif
