/* An informer: a cached list + watch of one collection (one reflector,
 * client/reflector.h), with handlers called on every change and an index of
 * objects by their controller. Used by the controllers (src/ctrl) and the
 * node agent's service proxy, DNS and routes.
 *
 * Objects handed out by an informer are shared and read-only: a caller that
 * wants to change one makes a json_deep_copy first. */
#ifndef SK_CLIENT_INFORMER_H
#define SK_CLIENT_INFORMER_H

#include <jansson.h>

#include "client/client.h"
#include "util/error.h"

typedef struct sk_informer sk_informer;

enum { SK_INF_ADD, SK_INF_UPDATE, SK_INF_DELETE };

/* Called on the informer's thread (or the thread of a write-through) with
 * the previous object (NULL on add) and the new one (the last known state on
 * delete). Both are borrowed. Handlers only enqueue keys. */
typedef void (*sk_informer_fn)(void *ud, int ev, json_t *old, json_t *obj);

/* An informer for the collection at path ("/api/v1/pods",
 * "/apis/apps/v1/replicasets") whose objects are of kind/api_version.
 * Handlers are added before sk_informer_start. */
sk_informer *sk_informer_new(sk_client *c, const char *path, const char *api_version, const char *kind);
void sk_informer_on(sk_informer *inf, sk_informer_fn fn, void *ud);
/* Caches (and hands to handlers) only each object's apiVersion, kind and
 * the object meta that ownership needs (name, namespace, uid,
 * resourceVersion, generation, creation and deletion timestamps,
 * ownerReferences, finalizers), as upstream's metadata informers; called
 * before sk_informer_start. */
void sk_informer_set_metadata_only(sk_informer *inf);
/* Lists once (handlers see every object as an add), then keeps the
 * reflector's watch (client/reflector.h) on a thread. A list refused for
 * good (401, 403, 400, 422…) fails; one that may succeed later (a timeout,
 * a server away or overloaded) is tried again by the thread, with backoff. */
int sk_informer_start(sk_informer *inf, sk_error_t *err);
/* Stops the watch thread: no handler runs after it returns. Controllers
 * stop every informer before freeing any, since handlers read the caches
 * of other informers. Idempotent. */
void sk_informer_stop(sk_informer *inf);
/* Asks the watch thread to end without waiting (then sk_informer_stop), so
 * that several informers stop together. */
void sk_informer_cancel(sk_informer *inf);
/* Stops (if needed) and frees the informer and its cache. */
void sk_informer_free(sk_informer *inf);
/* Cached object (new reference, read-only) or NULL. */
json_t *sk_informer_get(sk_informer *inf, const char *ns, const char *name);
/* New array holding the cached objects of ns (NULL: all), read-only. */
json_t *sk_informer_list(sk_informer *inf, const char *ns);
/* New array holding the cached objects of ns whose controller (the
 * ownerReference with controller: true) has uid, read-only; from the owner
 * index, without a scan. */
json_t *sk_informer_owned(sk_informer *inf, const char *ns, const char *uid);
/* New array holding the cached objects of ns without a controller. */
json_t *sk_informer_orphans(sk_informer *inf, const char *ns);
/* Write-through of an object the caller just created or updated through
 * the API (so the next sync does not act on stale state); the watch event
 * with the same resourceVersion is then ignored. Borrowed. */
void sk_informer_write(sk_informer *inf, json_t *obj);
/* Write-through of a delete (obj as the DELETE reply returned it). */
void sk_informer_forget(sk_informer *inf, json_t *obj);
const char *sk_informer_kind(const sk_informer *inf);
const char *sk_informer_api_version(const sk_informer *inf);
/* The collection path given to sk_informer_new. */
const char *sk_informer_path(const sk_informer *inf);

#endif
