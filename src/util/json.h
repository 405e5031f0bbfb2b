/* jansson values to and from text through yajl, for the hot paths (stored
 * objects, in-process replies, watch events): yajl's lexer and generator are
 * several times faster than jansson's, which reads a byte at a time through
 * a callback and formats a pointer into a hash table per container (its
 * cycle check). The values and texts are jansson's: where the two libraries
 * could differ (input jansson refuses, numbers out of range, nesting beyond
 * yajl's generator depth) jansson itself does the work. */
#ifndef SK_UTIL_JSON_H
#define SK_UTIL_JSON_H

#include <stddef.h>

#include <jansson.h>
#include <yajl/yajl_gen.h>

/* json_loadb(buf, len, 0, NULL): an object or array, or NULL. Caller decrefs. */
json_t *sk_json_loadb(const char *buf, size_t len);
/* The same with JSON_REJECT_DUPLICATES in flags (other flags are ignored);
 * jerr (may be NULL) gets jansson's message when the text is refused. */
json_t *sk_json_loadb_ex(const char *buf, size_t len, size_t flags, json_error_t *jerr);

/* json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY), and its length in *len
 * (len may be NULL). Caller frees; NULL where jansson gives NULL. */
char *sk_json_dumps(const json_t *v, size_t *len);

/* Writes v through g (compact, as jansson writes it). Returns 0, or -1 when
 * g refused it (too deep for yajl's generator, a cycle): the caller falls
 * back to json_dumps. */
int sk_json_gen(yajl_gen g, const json_t *v);

/* Whether the array arr holds the string s. */
int sk_json_array_has_string(const json_t *arr, const char *s);

/* Runs fill over a fresh compact generator (UTF-8 checked) and returns
 * its text (caller frees) with the length in *len, or NULL when fill
 * returned non-zero or the generator refused. */
char *sk_json_gen_text(int (*fill)(yajl_gen g, void *ud), void *ud, size_t *len);

#endif
