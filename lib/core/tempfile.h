/* Temporary files that no child process inherits. Private to the libraries. */
#ifndef PM_TEMPFILE_H
#define PM_TEMPFILE_H

#include <sys/types.h>

/* mkstemp(tmpl) with the descriptor close-on-exec from the start: a program
 * that embeds the library may fork and exec on another thread at any time,
 * and a child must not hold (nor write to) a half-written output file. The
 * last six characters of tmpl must be "XXXXXX"; they are replaced. Returns
 * the descriptor (the file is new, mode 0600), or -1 with errno set. */
int pm__mkstemp_cloexec(char *tmpl);
/* The mode a file created now would get (0666 less the umask), read
 * without setting the umask, which would race with other threads. */
mode_t pm__new_file_mode(void);

#endif
