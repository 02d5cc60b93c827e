#include "core/read_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/error.h"
#include "core/prefault.h"

static pm_status io_fail(pm_error *err, const char *path, const char *what, int e)
{
	char msg[128];

	/* the kernel failing for want of memory is ours to report as such */
	if (e == ENOMEM)
		return pm__fail_at(err, PM_ENOMEM, path, 0, 0, "out of memory");
	/* strerror_r, not strerror: the library may run on many threads */
	if (strerror_r(e, msg, sizeof(msg)) != 0)
		snprintf(msg, sizeof(msg), "error %d", e);
	return pm__fail_at(err, PM_EIO, path, 0, 0, "%s: %s", what, msg);
}

/* The most any reader takes in: far beyond a table of measurements or a
 * model, and a bound for an endless stream (a pipe from `yes`), which would
 * otherwise be read until the memory runs out. A macro so that a test can
 * try the limit without a gigabyte. */
#ifndef PM_READ_MAX
#define PM_READ_MAX ((size_t)1 << 30)
#endif

static pm_status too_big(pm_error *err, const char *path)
{
	return pm__fail_at(err, PM_EIO, path, 0, 0, "cannot read: larger than 1 GiB");
}

pm_status pm__read_file(const char *path, char **text, size_t *len, pm_error *err)
{
	struct stat st;
	size_t cap = PM_READ_MAX < (1 << 16) ? PM_READ_MAX + 2 : 1 << 16, n = 0;
	char *buf;
	int fd, regular;

	*text = NULL;
	*len = 0;
	if (!path)
		return pm__fail(err, PM_EINVAL, "no file name given");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return io_fail(err, path, "cannot open", errno);
	/* sized right at once for a regular file (one read, no copies); pipes
	 * and /proc files, which have no size, grow as they go */
	regular = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size >= 0;
	if (regular) {
		if ((uintmax_t)st.st_size > PM_READ_MAX) {
			close(fd);
			return too_big(err, path);
		}
		cap = (size_t)st.st_size + 2;
	}
	buf = malloc(cap);
	if (!buf)
		goto oom;
	/* a regular file fills it; a stream's buffer may stay half empty */
	if (regular)
		pm__prefault(buf, cap);
	for (;;) {
		ssize_t got;

		if (cap - n < 2) {
			size_t want = cap <= PM_READ_MAX / 2 ? cap * 2 : PM_READ_MAX + 2;
			char *p = realloc(buf, want);

			if (!p)
				goto oom;
			buf = p;
			cap = want;
		}
		/* keep a byte for the NUL; a regular file ends with a read of 0 */
		got = read(fd, buf + n, cap - n - 1);
		if (got < 0) {
			int e = errno;

			if (e == EINTR)
				continue;
			free(buf);
			close(fd);
			return io_fail(err, path, "cannot read", e);
		}
		if (got == 0)
			break;
		n += (size_t)got;
		/* Every format we read is text that refuses a NUL byte, and its
		 * parser says where the first one is: reading on would only let
		 * /dev/zero or /dev/urandom fill the memory. */
		if (memchr(buf + n - (size_t)got, '\0', (size_t)got))
			break;
		if (n > PM_READ_MAX) {
			free(buf);
			close(fd);
			return too_big(err, path);
		}
	}
	close(fd);
	buf[n] = '\0';
	*text = buf;
	*len = n;
	return PM_OK;
oom:
	free(buf);
	close(fd);
	return pm__fail_at(err, PM_ENOMEM, path, 0, 0, "out of memory");
}
