/* core/utf8.h — every text perfmodel reads is UTF-8: a name or a level that
 * is not would reach model.json, JSON output and terminals as garbage, or
 * come back from model.json as another name. Private to the libraries. */
#ifndef PM_CORE_UTF8_H
#define PM_CORE_UTF8_H

#include <stddef.h>

#include "perfmodel/predict.h"

/* The length of the UTF-8 sequence at s[0, n): 1 to 4, or 0 when it is not
 * one (a stray or missing continuation byte, an overlong form, a UTF-16
 * surrogate, beyond U+10FFFF). A NUL counts as one byte of text. */
size_t pm__utf8_length(const char *s, size_t n);

/* PM_OK when text[0, len) is UTF-8, else PM_EPARSE at name:LINE:COLUMN of
 * the first byte that is not: "not UTF-8 text (byte 0xe9) ...". */
pm_status pm__utf8_check(const char *text, size_t len, const char *name, pm_error *err);

/* The 1-based line and column (in bytes) of text[pos]. */
void pm__text_place(const char *text, size_t pos, unsigned *line, unsigned *column);

#endif
