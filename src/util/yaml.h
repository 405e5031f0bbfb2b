/* YAML documents as jansson values (libyaml's event parser). */
#ifndef SK_UTIL_YAML_H
#define SK_UTIL_YAML_H

#include <stddef.h>

#include <jansson.h>

#include "util/error.h"

/* The first document of text (YAML, and so JSON too) as a new JSON value:
 * mappings with string keys become objects, sequences arrays; plain
 * true/false are booleans, null/~/empty null, decimal integers integers,
 * every other scalar a string. Aliases and nesting deeper than 64 are
 * refused. NULL with err ("line N: what is wrong") on bad input. */
json_t *sk_yaml_load(const char *text, size_t len, sk_error_t *err);

#endif
