/* Reading a whole file into memory: the one way every reader (CSV, spec,
 * model, predict config) gets its text. Private to the libraries. */
#ifndef PM_READ_FILE_H
#define PM_READ_FILE_H

#include <stddef.h>
#include <string.h>
#include "perfmodel/predict.h"

/* On success *text owns the file's bytes plus a terminating NUL (so a
 * tokenizer may use text[len] as a sentinel) and *len their count; or, if
 * the file has a NUL byte, its bytes up to at least that one (the text
 * formats refuse it where it is), unless it is a tar archive (below). path must name a regular file (symbolic
 * links followed); "-" reads standard input, whatever it is (a pipe, a
 * file). A FIFO, device, socket or folder is refused before any read, so
 * that a FIFO with no writer never hangs the caller. At most 1 GiB is read,
 * from a file or a stream. Errors: PM_EIO "cannot open/read: reason",
 * "not a regular file (a FIFO) ..." or "cannot read: larger than 1 GiB"
 * with err->file = path, PM_ENOMEM. */
pm_status pm__read_file(const char *path, char **text, size_t *len, pm_error *err);
/* 1 if buf[0, n) starts with a POSIX tar header (the "ustar" magic at byte
 * 257): CUBE's .cubex files. pm__read_file reads such a file whole, NUL
 * bytes and all, and does not check it for UTF-8. */
#define PM_TAR_HEADER 512
static inline int pm__is_tar(const char *buf, size_t n)
{
	return n >= PM_TAR_HEADER && memcmp(buf + 257, "ustar", 5) == 0;
}

#endif
