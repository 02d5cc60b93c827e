#include "core/read_file.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/error.h"
#include "core/prefault.h"
#include "core/utf8.h"

static pm_status io_fail(pm_error *err, const char *path, const char *what, int e)
{
	char msg[128];

	/* the kernel failing for want of memory is ours to report as such */
	if (e == ENOMEM)
		return pm__fail_at(err, PM_ENOMEM, path, 0, 0, "out of memory");
	return pm__fail_at(err, PM_EIO, path, 0, 0, "%s: %s", what, pm_strerror(e, msg, sizeof(msg)));
}

/* The most any reader takes in: far beyond a table of measurements or a
 * model, and a bound for an endless stream (a pipe from `yes`), which would
 * otherwise be read until the memory runs out. A macro so that a test can
 * try the limit without a gigabyte. */
#ifndef PM_READ_MAX
#define PM_READ_MAX ((size_t)1 << 30)
#endif

/* A FIFO or pipe, opened without waiting for a writer: one with no writer
 * (a named FIFO nobody writes to) reads as end of file at once and is
 * refused instead of waited for; one with a writer (a shell's <(command))
 * is read as a stream, waiting for its data as usual. The byte the probe
 * may take is handed back in *first (*have = 1). */
static pm_status fifo_ready(int fd, const char *path, char *first, int *have, pm_error *err)
{
	ssize_t got;
	int flags;

	do
		got = read(fd, first, 1);
	while (got < 0 && errno == EINTR);
	if (got == 0)
		return pm__fail_at(err, PM_EIO, path, 0, 0, "a FIFO with no writer: give a file, "
				   "or - to read standard input");
	if (got < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
		return io_fail(err, path, "cannot read", errno);
	*have = got == 1;
	flags = fcntl(fd, F_GETFL);
	if (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) < 0)
		return io_fail(err, path, "cannot read", errno);
	return PM_OK;
}

/* What a file that is not a regular one is, for the message. */
static const char *kind_of(mode_t mode)
{
	return S_ISDIR(mode) ? "a folder" : S_ISFIFO(mode) ? "a FIFO or pipe" :
	       S_ISCHR(mode) ? "a character device" : S_ISBLK(mode) ? "a block device" :
	       S_ISSOCK(mode) ? "a socket" : "not a file";
}

static pm_status too_big(pm_error *err, const char *path)
{
	return pm__fail_at(err, PM_EIO, path, 0, 0, "cannot read: larger than 1 GiB");
}

pm_status pm__read_file(const char *path, char **text, size_t *len, pm_error *err)
{
	struct stat st;
	size_t cap = PM_READ_MAX < (1 << 16) ? PM_READ_MAX + 2 : 1 << 16, n = 0;
	char *buf, first = 0;
	int fd, regular, have_first = 0;

	*text = NULL;
	*len = 0;
	if (!path)
		return pm__fail(err, PM_EINVAL, "no file name given");
	if (strcmp(path, "-") == 0) {
		fd = dup(STDIN_FILENO);	/* closed below like any other */
		if (fd < 0)
			return io_fail(err, path, "cannot read standard input", errno);
	} else {
		/* O_NONBLOCK: opening a FIFO must not wait for a writer */
		fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
		if (fd < 0)
			return io_fail(err, path, "cannot open", errno);
		if (fstat(fd, &st) != 0) {
			int e = errno;

			close(fd);
			return io_fail(err, path, "cannot open", e);
		}
		if (S_ISFIFO(st.st_mode)) {
			pm_status st2 = fifo_ready(fd, path, &first, &have_first, err);

			if (st2) {
				close(fd);
				return st2;
			}
		} else if (!S_ISREG(st.st_mode)) {
			close(fd);
			return pm__fail_at(err, PM_EIO, path, 0, 0, "not a regular file (%s): give "
					   "a file, a pipe, or - to read standard input",
					   kind_of(st.st_mode));
		}
	}
	/* sized right at once for a regular file (one read, no copies); a
	 * stream on standard input, and /proc files, which have no size, grow
	 * as they go */
	regular = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0;
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
	if (have_first)
		buf[n++] = first;
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
			/* a stdin handed over non-blocking: wait for its data (its
			 * flags are the caller's too: not ours to change) */
			if ((e == EAGAIN || e == EWOULDBLOCK) &&
			    poll(&(struct pollfd){ .fd = fd, .events = POLLIN }, 1, -1) >= 0)
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
		/* (but for a tar archive, whole: its first header, which a NUL
		 * cannot start, is read before that is decided) */
		if (memchr(buf + n - (size_t)got, '\0', (size_t)got) &&
		    !(n < PM_TAR_HEADER && buf[0] != '\0') && !pm__is_tar(buf, n))
			break;
		if (n > PM_READ_MAX) {
			free(buf);
			close(fd);
			return too_big(err, path);
		}
	}
	close(fd);
	buf[n] = '\0';
	/* every format we read is UTF-8 text, but for the tar archives of
	 * CUBE: a file in another encoding is refused where its first foreign
	 * byte stands */
	if (!pm__is_tar(buf, n) && pm__utf8_check(buf, n, path, err) != PM_OK) {
		free(buf);
		return PM_EPARSE;
	}
	*text = buf;
	*len = n;
	return PM_OK;
oom:
	free(buf);
	close(fd);
	return pm__fail_at(err, PM_ENOMEM, path, 0, 0, "out of memory");
}
