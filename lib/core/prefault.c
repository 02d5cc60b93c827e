/* madvise and MADV_POPULATE_WRITE are not POSIX */
#define _DEFAULT_SOURCE

#include "core/prefault.h"

#include <stdint.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

/* Below this the faults cost little next to the work on the buffer. */
#define PM_PREFAULT_MIN ((size_t)1 << 20)

void pm__prefault(void *p, size_t n)
{
#if defined(__linux__) && defined(MADV_POPULATE_WRITE)
	/* Each first write to a page is a fault: on a VM that is a trip to the
	 * hypervisor, several microseconds a page, which made page faults the
	 * larger part of reading a big CSV file. madvise wants whole pages:
	 * the ones inside the buffer. */
	long page = sysconf(_SC_PAGESIZE);
	uintptr_t start, end;

	if (!p || n < PM_PREFAULT_MIN || page <= 0)
		return;
	start = ((uintptr_t)p + (uintptr_t)page - 1) & ~((uintptr_t)page - 1);
	end = ((uintptr_t)p + n) & ~((uintptr_t)page - 1);
	if (end > start)
		(void)madvise((void *)start, end - start, MADV_POPULATE_WRITE);
#else
	(void)p;
	(void)n;
#endif
}
