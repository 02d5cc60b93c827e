#include "read_file.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "error.h"

static pm_status io_fail(pm_error *err, const char *path, const char *what, int e)
{
	char msg[128];

	/* fopen and stdio allocate: their failing for want of memory is ours */
	if (e == ENOMEM)
		return pm__fail_at(err, PM_ENOMEM, path, 0, 0, "out of memory");
	/* strerror_r, not strerror: the library may run on many threads */
	if (strerror_r(e, msg, sizeof(msg)) != 0)
		snprintf(msg, sizeof(msg), "error %d", e);
	return pm__fail_at(err, PM_EIO, path, 0, 0, "%s: %s", what, msg);
}

pm_status pm__read_file(const char *path, char **text, size_t *len, pm_error *err)
{
	FILE *f;
	struct stat st;
	size_t cap = 1 << 16, n = 0;
	char *buf;

	*text = NULL;
	*len = 0;
	if (!path)
		return pm__fail(err, PM_EINVAL, "no file name given");
	f = fopen(path, "rb");
	if (!f)
		return io_fail(err, path, "cannot open", errno);
	/* sized right at once for a regular file (one read, no copies); pipes
	 * and /proc files, which have no size, grow as they go */
	if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) && st.st_size >= 0 &&
	    (uintmax_t)st.st_size < SIZE_MAX - 1)
		cap = (size_t)st.st_size + 2;
	buf = malloc(cap);
	if (!buf)
		goto oom;
	for (;;) {
		size_t want, got;

		if (cap - n < 2) {
			char *p = cap <= SIZE_MAX / 2 ? realloc(buf, cap * 2) : NULL;

			if (!p)
				goto oom;
			buf = p;
			cap *= 2;
		}
		want = cap - n - 1;	/* keep a byte for the NUL */
		got = fread(buf + n, 1, want, f);
		n += got;
		/* Every format we read is text that refuses a NUL byte, and its
		 * parser says where the first one is: reading on would only let
		 * /dev/zero or /dev/urandom fill the memory. */
		if (memchr(buf + n - got, '\0', got))
			break;
		if (got < want) {
			if (ferror(f)) {
				int e = errno;

				free(buf);
				fclose(f);
				return io_fail(err, path, "cannot read", e);
			}
			break;
		}
	}
	fclose(f);
	buf[n] = '\0';
	*text = buf;
	*len = n;
	return PM_OK;
oom:
	free(buf);
	fclose(f);
	return pm__fail_at(err, PM_ENOMEM, path, 0, 0, "out of memory");
}
