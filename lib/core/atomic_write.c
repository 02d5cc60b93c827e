/* Output files are replaced atomically (DESIGN.md §6): write a temporary
 * file next to the target, fsync it, rename it over the target. rename() is
 * atomic within one file system, which is why the temporary file lives in
 * the target's folder and not in /tmp. */
#include "perfmodel/perfmodel.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/error.h"
#include "core/tempfile.h"

static pm_status io_fail(pm_error *err, const char *path, int e)
{
	char why[128];

	if (strerror_r(e, why, sizeof(why)) != 0)
		snprintf(why, sizeof(why), "error %d", e);
	return pm__fail(err, PM_EIO, "cannot write %s: %s", path, why);
}

/* The mode a newly created file would get: 0666 less the umask. umask()
 * can only be read by setting it, which would race with other threads, so
 * read it from /proc where Linux shows it; elsewhere assume 022. */
static mode_t new_file_mode(void)
{
	mode_t mask = 022;
	char line[128];
	FILE *f = fopen("/proc/self/status", "re");

	if (f) {
		while (fgets(line, sizeof(line), f))
			if (strncmp(line, "Umask:", 6) == 0) {
				mask = (mode_t)strtoul(line + 6, NULL, 8) & 0777;
				break;
			}
		fclose(f);
	}
	return 0666 & ~mask;
}

/* Make the durable rename survive a crash; best effort, the data is safe. */
static void sync_folder(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir;
	int fd;

	if (!slash) {
		fd = open(".", O_RDONLY | O_CLOEXEC);
	} else {
		size_t n = slash == path ? 1 : (size_t)(slash - path);

		dir = malloc(n + 1);
		if (!dir)
			return;
		memcpy(dir, path, n);
		dir[n] = '\0';
		fd = open(dir, O_RDONLY | O_CLOEXEC);
		free(dir);
	}
	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
}

pm_status pm_write_file_atomic(const char *path, const char *data, size_t len, pm_error *err)
{
	struct stat old;
	char *tmp;
	size_t done = 0;
	int fd, e;

	if (!path || !*path)
		return pm__fail(err, PM_EINVAL, "no output file name given");
	if (!data && len)
		return pm__fail(err, PM_EINVAL, "no data to write to %s", path);
	tmp = malloc(strlen(path) + sizeof(".XXXXXX"));
	if (!tmp)
		return pm__fail(err, PM_ENOMEM, "out of memory");
	strcpy(tmp, path);
	strcat(tmp, ".XXXXXX");
	fd = pm__mkstemp_cloexec(tmp);
	if (fd < 0) {
		e = errno;
		free(tmp);
		return io_fail(err, path, e);
	}
	/* mkstemp creates 0600: give the file the mode the old one had, or
	 * the one a plain fopen would have given. Not fatal if refused. */
	if (stat(path, &old) == 0 && S_ISREG(old.st_mode))
		(void)fchmod(fd, old.st_mode & 07777);
	else
		(void)fchmod(fd, new_file_mode());
	while (done < len) {
		ssize_t n = write(fd, data + done, len - done);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			goto fail;
		}
		done += (size_t)n;
	}
	if (fsync(fd) != 0)
		goto fail;
	if (close(fd) != 0) {
		fd = -1;
		goto fail;
	}
	fd = -1;
	if (rename(tmp, path) != 0)
		goto fail;
	free(tmp);
	sync_folder(path);
	return PM_OK;
fail:
	e = errno;
	if (fd >= 0)
		close(fd);
	unlink(tmp);
	free(tmp);
	return io_fail(err, path, e);
}
