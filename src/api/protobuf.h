/* Kubernetes protobuf request bodies (application/vnd.kubernetes.protobuf),
 * decoded into the JSON objects the API server handles.
 *
 * The wire format is apimachinery's: the magic "k8s\0", then a
 * runtime.Unknown {1: typeMeta {1: apiVersion, 2: kind}, 2: raw,
 * 3: contentEncoding, 4: contentType} whose raw bytes are the typed object's
 * message. Only decoding is needed: clients accept JSON replies. */
#ifndef SK_API_PROTOBUF_H
#define SK_API_PROTOBUF_H

#include <stddef.h>

#include <jansson.h>

#include "util/error.h"

/* Decodes a whole protobuf body (magic and envelope included) into the
 * object's JSON, with "apiVersion" and "kind" from the envelope first, in the
 * shape encoding/json gives the same Go object: absent fields stay absent,
 * zero values of omitempty fields are dropped, a present pointer field keeps
 * its zero value (replicas: 0), unknown field numbers are skipped.
 * Returns a new reference (caller decrefs), or NULL with SK_EBADREQUEST for
 * malformed input or a kind without a schema. */
json_t *sk_protobuf_decode(const void *buf, size_t len, sk_error_t *err);

/* Whether buf starts with the protobuf magic "k8s\0". */
int sk_protobuf_is_magic(const void *buf, size_t len);

#endif
