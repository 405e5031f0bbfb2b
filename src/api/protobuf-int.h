/* Schema tables for the Kubernetes protobuf decoder (protobuf.c), filled in
 * by protobuf-types.c. */
#ifndef SK_API_PROTOBUF_INT_H
#define SK_API_PROTOBUF_INT_H

#include <stddef.h>
#include <stdint.h>

/* Wire kinds of a field's value (the map value for SK__PB_MAP fields). */
enum {
	SK__PB_STRING,
	SK__PB_BYTES, /* base64 in JSON */
	SK__PB_BOOL,
	SK__PB_INT32,
	SK__PB_INT64,
	SK__PB_MSG, /* msg: index into sk__pb_messages */
};

/* Field flags. */
enum {
	SK__PB_REPEATED = 1, /* JSON array */
	SK__PB_MAP = 2,      /* repeated {1: string key, 2: value} entries, a JSON object */
	SK__PB_KEEPZERO = 4, /* Go pointer or no omitempty: a present zero value is emitted */
	SK__PB_INLINE = 8,   /* json:"" embedding: the message's fields merge into the parent */
};

/* How a whole message turns into JSON. */
enum {
	SK__PB_PLAIN,       /* an object, one key per field */
	SK__PB_QUANTITY,    /* {1: string} -> "1Gi" */
	SK__PB_TIME,        /* {1: seconds, 2: nanos} -> "2006-01-02T15:04:05Z" */
	SK__PB_MICROTIME,   /* -> "2006-01-02T15:04:05.000000Z" */
	SK__PB_DURATION,    /* {1: nanoseconds} -> "1m30s" */
	SK__PB_FIELDSV1,    /* {1: JSON bytes} -> the embedded JSON */
	SK__PB_INTORSTRING, /* {1: type, 2: intVal, 3: strVal} -> number or string */
	SK__PB_RAWEXT,      /* {1: JSON or k8s protobuf bytes} -> the embedded object */
	SK__PB_ITEMS,       /* {1: repeated string items} (ExtraValue, Verbs) -> an array */
};

typedef struct sk__pb_field {
	uint32_t num;
	const char *json; /* "" for SK__PB_INLINE */
	uint8_t kind;
	uint8_t flags;
	int16_t msg; /* -1 unless kind is SK__PB_MSG */
} sk__pb_field;

typedef struct sk__pb_message {
	const char *name; /* full proto name: "k8s.io.api.core.v1.PodSpec" */
	uint8_t special;
	const sk__pb_field *fields; /* sorted by num */
	uint16_t nfields;
} sk__pb_message;

/* Sorted by name. */
extern const sk__pb_message sk__pb_messages[];
extern const size_t sk__pb_nmessages;

#endif
