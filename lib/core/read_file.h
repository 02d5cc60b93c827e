/* Reading a whole file into memory: the one way every reader (CSV, spec,
 * model, predict config) gets its text. Private to the libraries. */
#ifndef PM_READ_FILE_H
#define PM_READ_FILE_H

#include <stddef.h>
#include "perfmodel/predict.h"

/* On success *text owns the file's bytes plus a terminating NUL (so a
 * tokenizer may use text[len] as a sentinel) and *len their count; or, if
 * the file has a NUL byte, its bytes up to at least that one (the text
 * formats refuse it where it is). path must name a regular file (symbolic
 * links followed); "-" reads standard input, whatever it is (a pipe, a
 * file). A FIFO, device, socket or folder is refused before any read, so
 * that a FIFO with no writer never hangs the caller. At most 1 GiB is read,
 * from a file or a stream. Errors: PM_EIO "cannot open/read: reason",
 * "not a regular file (a FIFO) ..." or "cannot read: larger than 1 GiB"
 * with err->file = path, PM_ENOMEM. */
pm_status pm__read_file(const char *path, char **text, size_t *len, pm_error *err);

#endif
