/* apiregistration.k8s.io/v1 APIService (apiservice.c): the kind's rules and
 * the local APIServices kept by the API server; aggregated ones are served
 * by aggregator.c. */
#ifndef SK_API_APISERVICE_H
#define SK_API_APISERVICE_H

#include <jansson.h>

#include "api/api-int.h"

struct sk__verr;

extern const sk_kind_ops sk__apiservice_ops;

/* kube-aggregator's ValidateAPIService of obj into e. */
void sk__apiservice_validate_spec(struct sk__verr *e, json_t *obj);
/* The kind's validate hook: causes or NULL. */
json_t *sk__apiservice_validate(const sk_api_resource *r, json_t *obj, json_t *old, int status_sub);
/* The priorities of a local group/version (kube-apiserver's table;
 * CRDs' and unknown ones 1000/100). */
void sk__apiservice_priority(const char *group, const char *version, int custom, int *gp, int *vp);
/* One pass of autoregistration (upstream's autoregister controller):
 * creates the missing local APIServices and updates their specs, built-in
 * ones (automanaged=onstart) only until they were synced once (names kept
 * in synced), those of CRDs (automanaged=true) always, removing the latter
 * when their group/version is no longer served; one without the label is
 * the user's. Marks local ones Available. */
void sk__apiservice_sync(sk_api *api, json_t *synced);

#endif
