/* Temporary files that no child process inherits. Private to the libraries. */
#ifndef PM_TEMPFILE_H
#define PM_TEMPFILE_H

/* mkstemp(tmpl) with the descriptor close-on-exec from the start: a program
 * that embeds the library may fork and exec on another thread at any time,
 * and a child must not hold (nor write to) a half-written output file. The
 * last six characters of tmpl must be "XXXXXX"; they are replaced. Returns
 * the descriptor (the file is new, mode 0600), or -1 with errno set. */
int pm__mkstemp_cloexec(char *tmpl);

#endif
