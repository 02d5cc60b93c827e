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

	return pm__fail(err, PM_EIO, "cannot write %s: %s", path, pm_strerror(e, why, sizeof(why)));
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

/* The file a path names once its symbolic links are followed (at most 40,
 * as the kernel), which may not exist yet: a malloc'd path, or NULL when
 * out of memory or the links loop (errno says which). A relative link is
 * relative to the folder of the link. */
static char *final_path(const char *path)
{
	char *p = strdup(path);

	for (int hops = 0; p && hops < 40; hops++) {
		struct stat st;
		char target[4096], *slash, *next;
		ssize_t n;

		if (lstat(p, &st) != 0 || !S_ISLNK(st.st_mode))
			return p;
		n = readlink(p, target, sizeof(target) - 1);
		if (n < 0) {
			free(p);
			return NULL;
		}
		target[n] = '\0';
		slash = strrchr(p, '/');
		if (target[0] == '/' || !slash) {
			next = strdup(target);
		} else {
			size_t dir = (size_t)(slash - p) + 1;

			next = malloc(dir + (size_t)n + 1);
			if (next) {
				memcpy(next, p, dir);
				memcpy(next + dir, target, (size_t)n + 1);
			}
		}
		free(p);
		p = next;
	}
	if (p) {
		free(p);
		errno = ELOOP;
	}
	return NULL;
}

static const char *kind_of(mode_t mode)
{
	return S_ISDIR(mode) ? "a folder" : S_ISFIFO(mode) ? "a FIFO" :
	       S_ISCHR(mode) || S_ISBLK(mode) ? "a device" : S_ISSOCK(mode) ? "a socket" :
	       "not a regular file";
}

/* PM_OK when what stands at `final` (if anything) may be replaced. */
static pm_status replaceable(const char *path, const char *final, struct stat *st,
			     int *exists, pm_error *err)
{
	*exists = stat(final, st) == 0;
	if (!*exists || S_ISREG(st->st_mode))
		return PM_OK;
	return pm__fail(err, PM_EIO, "cannot write %s: it is %s, not a regular file", path,
			kind_of(st->st_mode));
}

pm_status pm_output_check(const char *path, const char *const *inputs, size_t n,
			  pm_error *err)
{
	struct stat out, in;
	char *final;
	int exists;
	pm_status st;

	if (!path || !*path)
		return pm__fail(err, PM_EINVAL, "no output file name given");
	final = final_path(path);
	if (!final)
		return errno == ENOMEM ? pm__fail(err, PM_ENOMEM, "out of memory")
				       : io_fail(err, path, errno);
	st = replaceable(path, final, &out, &exists, err);
	free(final);
	for (size_t i = 0; !st && exists && i < n; i++)
		if (inputs[i] && strcmp(inputs[i], "-") != 0 && stat(inputs[i], &in) == 0 &&
		    in.st_dev == out.st_dev && in.st_ino == out.st_ino)
			st = pm__fail(err, PM_EIO, "cannot write %s: it is the input %s, which the "
				      "output would replace", path, inputs[i]);
	return st;
}

pm_status pm_write_file_atomic(const char *path, const char *data, size_t len, pm_error *err)
{
	struct stat old;
	char *final, *tmp = NULL;
	size_t done = 0;
	int fd = -1, e, exists;
	pm_status st;

	if (!path || !*path)
		return pm__fail(err, PM_EINVAL, "no output file name given");
	if (!data && len)
		return pm__fail(err, PM_EINVAL, "no data to write to %s", path);
	/* through a symbolic link to its target, which is what is replaced:
	 * the link stays a link */
	final = final_path(path);
	if (!final)
		return errno == ENOMEM ? pm__fail(err, PM_ENOMEM, "out of memory")
				       : io_fail(err, path, errno);
	if ((st = replaceable(path, final, &old, &exists, err))) {
		free(final);
		return st;
	}
	/* a short name of its own in the same folder: final + ".XXXXXX" would
	 * be too long for a name of 249 to 255 bytes */
	tmp = malloc(strlen(final) + sizeof(".perfmodel-XXXXXX"));
	if (!tmp) {
		free(final);
		return pm__fail(err, PM_ENOMEM, "out of memory");
	}
	strcpy(tmp, final);
	strcpy(strrchr(tmp, '/') ? strrchr(tmp, '/') + 1 : tmp, ".perfmodel-XXXXXX");
	fd = pm__mkstemp_cloexec(tmp);
	if (fd < 0) {
		e = errno;
		free(tmp);
		free(final);
		return io_fail(err, path, e);
	}
	/* mkstemp creates 0600: give the file the mode the old one had, or
	 * the one a plain fopen would have given. Not fatal if refused. */
	(void)fchmod(fd, exists ? old.st_mode & 07777 : pm__new_file_mode());
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
	if (rename(tmp, final) != 0)
		goto fail;
	free(tmp);
	sync_folder(final);
	free(final);
	return PM_OK;
fail:
	e = errno;
	if (fd >= 0)
		close(fd);
	unlink(tmp);
	free(tmp);
	free(final);
	return io_fail(err, path, e);
}
