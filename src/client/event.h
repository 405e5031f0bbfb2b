/* Recording core/v1 Events through the API, as client-go's event recorder
 * does: one Event per (object, reason, message, source), repeats increase
 * its count and lastTimestamp; past 25 of one (source, object, type,
 * reason) only one each 5 minutes is written (EventSourceObjectSpamFilter). Shared by the scheduler, controllers and
 * node agent so `kubectl describe` and `kubectl events` show them. */
#ifndef SK_CLIENT_EVENT_H
#define SK_CLIENT_EVENT_H

#include <jansson.h>

#include "client/client.h"

/* Records an Event about obj (any object with kind, apiVersion, metadata:
 * name, namespace, uid; an optional top-level "fieldPath" such as
 * "spec.containers{web}" names the part of it). type is "Normal" or "Warning"; component names the
 * source ("default-scheduler", "kubelet", "job-controller"); host is the
 * node for agent events (NULL otherwise). Failures are logged, not
 * returned: events are best effort, as upstream. */
void sk_event_record(sk_client *c, json_t *obj, const char *type, const char *reason, const char *component,
		     const char *host, const char *fmt, ...) __attribute__((format(printf, 7, 8)));

#endif
