/* Lease-based leader election as client-go's leaderelection package: a
 * candidate takes a coordination.k8s.io/v1 Lease whose holder it has not
 * seen renewed for leaseDurationSeconds (by its own clock: the time it
 * observed the record change, not the renewTime written there), renews it
 * every retry period while it leads, and stops leading once a renew cycle
 * (its tries from a retry period after the last renewal) has not renewed
 * within the renew deadline, however long its calls hang (retry + renew
 * deadline shorter than the lease duration, so it stops before another
 * could take over), or once it sees another holder. Every write
 * is an update at the read resourceVersion (409: someone else wrote first).
 * A graceful stop releases the lease (holderIdentity cleared, 1 s), as
 * client-go's ReleaseOnCancel. */
#ifndef SK_CLIENT_LEADERELECTION_H
#define SK_CLIENT_LEADERELECTION_H

#include <jansson.h>
#include <stdint.h>

#include "client/client.h"
#include "util/error.h"

/* upstream's defaults (kube-scheduler and kube-controller-manager flags) */
#define SK_LE_LEASE_DURATION_MS 15000
#define SK_LE_RENEW_DEADLINE_MS 10000
#define SK_LE_RETRY_PERIOD_MS 2000

/* How the elector reads and writes its Lease and reads the time; tests
 * pass fakes. get/create/update return a new reference or NULL with err
 * (get: SK_ENOTFOUND when there is none; update: SK_ECONFLICT when the
 * resourceVersion is stale). mono_ns measures durations, wall_ns dates the
 * record. */
typedef struct sk_le_ops {
	json_t *(*get)(void *ctx, sk_error_t *err);
	json_t *(*create)(void *ctx, json_t *lease, sk_error_t *err);
	json_t *(*update)(void *ctx, json_t *lease, sk_error_t *err);
	int64_t (*mono_ns)(void *ctx);
	int64_t (*wall_ns)(void *ctx);
} sk_le_ops;

typedef struct sk_le_config {
	const char *ns, *name; /* the Lease, e.g. kube-system/kube-scheduler */
	const char *identity;  /* this candidate: NULL for "HOSTNAME_UUID" as upstream */
	const char *component; /* the source of its Events (NULL: the Lease's name) */
	int64_t lease_duration_ms, renew_deadline_ms, retry_period_ms; /* 0: the defaults */
	double jitter; /* a candidate waits retry * (1 + rand * jitter); 0: none (client-go: 1.2) */
	/* called in turn on a thread of their own (sk_le_run), never two at
	 * once, while the elector goes on renewing; stopped must have ended all
	 * work done as leader when it returns. started returning < 0 (its
	 * components did not start) gives the lease up for another candidate. */
	int (*started)(void *arg);
	void (*stopped)(void *arg);
	void *arg;
	/* the client the components write through: fenced (sk_client_fence)
	 * the moment this candidate stops leading, opened when it leads again;
	 * NULL: none */
	sk_client *fence;
} sk_le_config;

typedef struct sk_le sk_le;

enum { SK_LE_NONE, SK_LE_STARTED, SK_LE_STOPPED };

/* A candidate over ops/ctx (borrowed). Checks that renew deadline <
 * lease duration and retry period < renew deadline, as client-go does.
 * Free with sk_le_free. */
sk_le *sk_le_new(const sk_le_config *cfg, const sk_le_ops *ops, void *ctx, sk_error_t *err);
/* One try to acquire or renew: SK_LE_STARTED when this candidate now leads
 * and did not, SK_LE_STOPPED when it led and must stop, else SK_LE_NONE.
 * *wait_ms: how long until the next try. */
int sk_le_step(sk_le *le, int64_t *wait_ms);
int sk_le_leading(const sk_le *le);
const char *sk_le_identity(const sk_le *le);
/* Gives up the lease if this candidate holds it (no callback). */
void sk_le_release(sk_le *le);
void sk_le_free(sk_le *le);

/* A candidate on a thread over the API through c (borrowed): it records an
 * Event "IDENTITY became leader" on the Lease when it starts leading, calls
 * cfg->started/stopped, and on sk_le_stop stops leading (stopped called)
 * and releases the lease. */
sk_le *sk_le_run(sk_client *c, const sk_le_config *cfg, sk_error_t *err);
void sk_le_stop(sk_le *le);

#endif
