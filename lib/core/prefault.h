/* Faulting in a large buffer at once. Private to the libraries. */
#ifndef PM_PREFAULT_H
#define PM_PREFAULT_H

#include <stddef.h>

/*
 * Ask the kernel to map the pages of p[0, n) writable now, in one call,
 * rather than one page fault at a time as they are first written. Only for
 * memory about to be written in full (a file's buffer, tables presized for
 * it): the pages are committed at once. A hint: it does nothing for small
 * buffers, off Linux, or where the kernel refuses (before 5.14).
 */
void pm__prefault(void *p, size_t n);

#endif
