/* kube-aggregator's controllers in the API server: the autoregistration of
 * local APIServices (apiservice.c), resynced when the served kinds change
 * (a CRD came or went) and every few seconds (a deleted local APIService
 * comes back, as upstream's autoregister controller does). */
#include <pthread.h>
#include <time.h>

#include "api/api-int.h"
#include "api/apiservice.h"
#include "util/util.h"

#define RESYNC_MS 5000
#define POLL_MS 200

struct sk__agg {
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int stop;
};

static void *agg_main(void *arg)
{
	sk_api *api = arg;
	sk__agg *a = api->agg;
	unsigned long gen = 0;
	int64_t last = 0;

	pthread_mutex_lock(&a->mu);
	while (!a->stop && !sk__api_stopping(api)) {
		struct timespec ts;
		unsigned long g = sk__kinds_generation();
		int64_t now = sk_mono_ns() / 1000000;

		if (g != gen || now - last >= RESYNC_MS) {
			gen = g;
			last = now;
			pthread_mutex_unlock(&a->mu);
			sk__apiservice_sync(api);
			pthread_mutex_lock(&a->mu);
			continue;
		}
		sk_deadline_after_ms(&ts, POLL_MS);
		pthread_cond_timedwait(&a->cv, &a->mu, &ts);
	}
	pthread_mutex_unlock(&a->mu);
	return NULL;
}

int sk_api_aggregator_start(sk_api *api, sk_error_t *err)
{
	sk__agg *a = xzalloc(sizeof(*a));

	pthread_mutex_init(&a->mu, NULL);
	pthread_cond_init(&a->cv, NULL);
	api->agg = a;
	sk__apiservice_sync(api);
	if (pthread_create(&a->thread, NULL, agg_main, api) != 0) {
		api->agg = NULL;
		pthread_mutex_destroy(&a->mu);
		pthread_cond_destroy(&a->cv);
		free(a);
		return sk_error_set(err, SK_EINTERNAL, "starting the aggregator: thread creation failed");
	}
	return 0;
}

void sk__aggregator_stop(sk_api *api)
{
	sk__agg *a = api->agg;

	if (!a)
		return;
	pthread_mutex_lock(&a->mu);
	a->stop = 1;
	pthread_cond_signal(&a->cv);
	pthread_mutex_unlock(&a->mu);
	pthread_join(a->thread, NULL);
	api->agg = NULL;
	pthread_mutex_destroy(&a->mu);
	pthread_cond_destroy(&a->cv);
	free(a);
}
