/* A strict JSON recognizer (RFC 8259), private to the libraries.
 *
 * cJSON returns NULL both for bad text and when an allocation fails, and
 * says nothing more. pm__json_parse asks this recognizer which of the two it
 * was: text that it accepts can only have failed for want of memory. It
 * allocates nothing, so it gives that answer under memory pressure too.
 * Where cJSON is stricter than the RFC (a number longer than 63 bytes, a
 * \u escape that is a lone UTF-16 surrogate) it is as strict, so that such
 * text is never taken for an allocation failure; where cJSON is more lenient
 * ("01", "+1") it stays strict, which at worst calls an out-of-memory on
 * such text a parse error. A UTF-8 BOM is skipped, as cJSON does. */
#ifndef PM_JSON_VALID_H
#define PM_JSON_VALID_H

#include <stddef.h>

/* 1 if text[0, len) is one JSON value, with white space around it and
 * nested at most max_depth arrays and objects deep; else 0. */
int pm__json_valid(const char *text, size_t len, int max_depth);

#endif
