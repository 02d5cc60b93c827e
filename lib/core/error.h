/* Filling a pm_error. Private to the libraries. */
#ifndef PM_ERROR_H
#define PM_ERROR_H

#include "perfmodel/predict.h"

#if defined(__GNUC__)
#define PM_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define PM_PRINTF(f, a)
#endif

/* Set err (if not NULL) to code and the formatted message, with no place;
 * return code, so that callers can write `return pm__fail(err, ...)`. */
pm_status pm__fail(pm_error *err, pm_status code, const char *fmt, ...) PM_PRINTF(3, 4);
/* The same with a place: file (may be NULL), 1-based line and column. */
pm_status pm__fail_at(pm_error *err, pm_status code, const char *file, unsigned line,
		      unsigned column, const char *fmt, ...) PM_PRINTF(6, 7);
/* Add to err->msg (cut at its size); set err->file. Like the two above,
 * they write control characters as \x1b and numbers as under "C": the only
 * ways a message or file name is changed after the fact. */
void pm__err_append(pm_error *err, const char *fmt, ...) PM_PRINTF(2, 3);
void pm__err_set_file(pm_error *err, const char *file);
/* Copy s into out[size] (size >= 1) as the messages above are made: control
 * characters written as \x1b, cut short at a whole escape. For other text
 * that quotes the input and ends on a terminal (a model's warnings). */
void pm__copy_visible(char *out, size_t size, const char *s);

#endif
