/* perfmodel batch's results (batch.h), under fit -o's rules (DESIGN.md
 * §6): checked against every file the batch reads before any job runs,
 * written line by line into a temporary file beside the output, which
 * replaces it whole at the end; every write is checked, and a failed one
 * leaves the output as it was. */
/* realpath is XSI's */
#define _XOPEN_SOURCE 700

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "batch.h"

/* What the output has of a job (batch_out.done). */
enum { LINE_NONE, LINE_HELD, LINE_WRITTEN };

static int same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/* 1 when path names the file *out is. */
static int names_output(const char *path, const struct stat *out)
{
	struct stat st;

	return *path && stat(path, &st) == 0 && same_file(&st, out);
}

static int clash(const char *out, const char *what)
{
	cprintf(diag(), "perfmodel: cannot write %s: it is %s, which the output would replace\n",
		out, what);
	return EXIT_FAIL;
}

/* A jobs file's job that reads the output: the key of the argument that
 * names it ("data" for the data), and the file into what; 0: none. */
static int job_reads(const struct batch *b, const struct batch_job *j, const struct stat *out,
		     char *what, size_t size)
{
	for (int k = 1; k < j->argc; k++) {
		const char *arg = j->argv[k], *eq = strchr(arg, '=');

		if (!strcmp(arg, "--") && k + 1 < j->argc && names_output(j->argv[k + 1], out)) {
			pm_snprintf(what, size, "%s:%u's \"data\" %s", b->path, j->line, j->argv[k + 1]);
			return 1;
		}
		if (!strncmp(arg, "--", 2) && eq && names_output(eq + 1, out)) {
			pm_snprintf(what, size, "%s:%u's \"%.*s\" %s", b->path, j->line,
				    (int)(eq - arg - 2), arg + 2, eq + 1);
			return 1;
		}
	}
	return 0;
}

/* The output may be none of the batch's inputs: the jobs file or the
 * profile, what a job reads (any argument that names the output's file,
 * by identity: links and other names of it too). The --resume file is the
 * output or only read. 0, or EXIT_FAIL after saying which input. */
static int check_inputs(const struct batch_args *a, const struct batch *b)
{
	char what[PATH_MAX + 512];
	struct stat out;
	pm_error err = { 0 };

	if (pm_output_check(a->out, NULL, 0, &err)) {
		report_error(&err);
		return EXIT_FAIL;
	}
	if (stat(a->out, &out))
		return 0;	/* nothing there yet: nothing to lose */
	if (same_file(&b->file, &out)) {
		pm_snprintf(what, sizeof(what), "%s %s", a->each_region ? "the --each-region profile"
					      : "the jobs file", b->path);
		return clash(a->out_name, what);
	}
	for (int k = 0; a->each_region && k < a->fit_argc; k++) {
		const char *arg = a->fit_argv[k], *eq = strchr(arg, '=');

		if (names_output(!strncmp(arg, "--", 2) && eq ? eq + 1 : arg, &out)) {
			pm_snprintf(what, sizeof(what), "'%s' after --, an input of every job", arg);
			return clash(a->out_name, what);
		}
	}
	for (size_t i = 0; !a->each_region && i < b->n; i++)
		if (!b->job[i].error && job_reads(b, &b->job[i], &out, what, sizeof(what)))
			return clash(a->out_name, what);
	return 0;
}

static int cannot_write(const char *path, int e)
{
	cprintf(diag(), "perfmodel: cannot write %s: %s (the file is unchanged)\n", path, strerror(e));
	return EXIT_FAIL;
}

/* The file the results are written to until the end: a new one beside
 * the output's target (a symbolic link stays a link), of the mode the
 * output has or a new file would get. 0, or EXIT_FAIL after reporting. */
static int temp_open(struct batch_out *o)
{
	struct stat old;
	/* umask is read by setting it: before any job, no thread of ours runs */
	mode_t mask = umask(0);
	int fd, e;

	umask(mask);
	o->final = realpath(o->path, NULL);
	if (!o->final && errno == ENOENT)
		o->final = strdup(o->path);	/* not there yet: made by the rename */
	if (o->final)
		o->temp = malloc(strlen(o->final) + sizeof(".perfmodel-XXXXXX"));
	if (!o->final || !o->temp) {
		if (errno != ENOMEM)
			return cannot_write(o->name, errno);
		report_error(&(pm_error){ .code = PM_ENOMEM });
		return EXIT_FAIL;
	}
	strcpy(o->temp, o->final);
	/* o->path is absolute (batch_parse_args): there is a slash */
	strcpy(strrchr(o->temp, '/') + 1, ".perfmodel-XXXXXX");
	fd = mkstemp(o->temp);
	if (fd < 0) {
		e = errno;
		free(o->temp);
		o->temp = NULL;
		return cannot_write(o->name, e);
	}
	(void)fcntl(fd, F_SETFD, FD_CLOEXEC);
	(void)fchmod(fd, stat(o->final, &old) == 0 ? old.st_mode & 07777 : 0666 & ~mask);
	if (!(o->f = fdopen(fd, "w"))) {
		e = errno;
		close(fd);
		unlink(o->temp);
		return cannot_write(o->name, e);
	}
	return 0;
}

/* The temporary file, whole, over the output; after a failed write it is
 * removed. 0, or the errno of what failed. */
static int temp_commit(struct batch_out *o)
{
	int e = o->write_errno;

	if (!e && (fflush(o->f) || fsync(fileno(o->f))))
		e = errno;
	if (fclose(o->f) && !e)
		e = errno;
	o->f = NULL;
	if (!e && rename(o->temp, o->final))
		e = errno;
	if (e)
		unlink(o->temp);
	return e;
}

/* One line to the output, whole: a signal waits until it is out. After a
 * failed write nothing more is written (the output stays as it was). */
static void out_write(struct batch_out *o, const char *line)
{
	if (o->write_errno)
		return;
	interrupt_hold(1);
	if (fputs(line, o->f) == EOF || fflush(o->f))
		o->write_errno = errno ? errno : EIO;
	interrupt_hold(0);
}

/* A result line of --resume's file for a job of b: its index, or b->n. */
static size_t old_job(const struct batch *b, const size_t *ix, size_t nix, const char *text,
		      int *error)
{
	cJSON *o = cJSON_Parse(text), *id;
	pm_batch_id want = { 0 };
	size_t lo = 0, hi = nix, found = b->n;

	id = cJSON_GetObjectItemCaseSensitive(o, "id");
	*error = cJSON_GetObjectItemCaseSensitive(o, "error") != NULL;
	if (!cJSON_IsObject(o) || (!*error && !cJSON_GetObjectItemCaseSensitive(o, "model")) ||
	    (cJSON_IsString(id) ? (want.text = id->valuestring, 0)
	     : cJSON_IsNumber(id) ? (want.number = (long long)id->valuedouble, 0) : 1)) {
		cJSON_Delete(o);
		return found;
	}
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = batch_id_cmp(&b->job[ix[mid]].id, &want);

		if (c == 0) {
			found = ix[mid];
			break;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	cJSON_Delete(o);
	return found;
}

/* --resume's lines: each result of a job of b, kept (by job) as done. */
static int read_resume(struct batch_out *o, const struct batch *b, const char *path)
{
	FILE *f = fopen(path, "r");
	struct stat st;
	char *text = NULL;
	size_t cap = 0, nix, *ix;
	ssize_t len = 0;
	int oom = 0, e;

	if (!f) {
		/* nothing done yet: the first run of a job script that resumes */
		if (errno == ENOENT)
			return 0;
		cprintf(diag(), "perfmodel: --resume %s: %s\n", path, strerror(errno));
		return EXIT_FAIL;
	}
	if (fstat(fileno(f), &st) == 0 && !S_ISREG(st.st_mode)) {
		cprintf(diag(), "perfmodel: --resume %s: %s, not a results file\n", path,
			S_ISDIR(st.st_mode) ? "a folder" : "not a regular file");
		fclose(f);
		return EXIT_FAIL;
	}
	ix = batch_by_id(b, &nix);
	oom = !ix;
	while (!oom && (len = getline(&text, &cap, f)) >= 0) {
		int error;
		size_t i;

		/* a line cut short by a kill has no newline: not a result */
		if (!len || text[len - 1] != '\n' ||
		    (i = old_job(b, ix, nix, text, &error)) == b->n || o->done[i])
			continue;
		if (!(o->line[i] = strdup(text))) {
			oom = 1;
			break;
		}
		o->done[i] = LINE_WRITTEN;
		o->ndone++;
		o->failed |= error;
	}
	e = ferror(f) ? errno : 0;
	free(text);
	free(ix);
	fclose(f);
	o->nold = o->ndone;
	if (oom) {
		report_error(&(pm_error){ .code = PM_ENOMEM });
		return EXIT_FAIL;
	}
	if (e) {
		cprintf(diag(), "perfmodel: --resume %s: cannot read: %s\n", path, strerror(e));
		return EXIT_FAIL;
	}
	return 0;
}

int batch_out_open(struct batch_out *o, const struct batch_args *a, const struct batch *b)
{
	int rc;

	*o = (struct batch_out){ .path = a->out, .name = a->out_name };
	o->line = calloc(b->n + 1, sizeof(*o->line));
	o->done = calloc(b->n + 1, 1);
	if (!o->line || !o->done) {
		report_error(&(pm_error){ .code = PM_ENOMEM });
		return EXIT_FAIL;
	}
	if ((a->out && (rc = check_inputs(a, b))) ||
	    (a->resume && (rc = read_resume(o, b, a->resume))))
		return rc;
	if (!a->out)
		o->f = stdout;
	else if ((rc = temp_open(o)))
		return rc;
	/* the results so far first, in job order; new ones follow them */
	for (size_t i = 0; i < b->n; i++)
		if (o->done[i])
			out_write(o, o->line[i]);
	while (o->next < b->n && o->done[o->next])
		o->next++;
	return 0;
}

/* Job i's held line out; freed unless a resumed run rewrites its file from
 * every line at the end. */
static void write_held(struct batch_out *o, size_t i)
{
	out_write(o, o->line[i]);
	o->done[i] = LINE_WRITTEN;
	if (!o->nold) {
		free(o->line[i]);
		o->line[i] = NULL;
	}
}

void batch_out_put(struct batch_out *o, const struct batch *b, size_t i, char *line, int error)
{
	o->line[i] = line;
	o->done[i] = LINE_HELD;
	o->ndone++;
	o->failed |= error;
	for (; o->next < b->n && o->done[o->next]; o->next++)
		if (o->done[o->next] == LINE_HELD)
			write_held(o, o->next);
}

/* A resumed run's file as if run in one go: the temporary file written
 * again from the start, every line in job order and the marker. */
static void rewrite(struct batch_out *o, const struct batch *b, const char *marker)
{
	if (o->write_errno)
		return;
	if (fflush(o->f) || fseek(o->f, 0, SEEK_SET) || ftruncate(fileno(o->f), 0)) {
		o->write_errno = errno;
		return;
	}
	for (size_t i = 0; i < b->n; i++)
		if (o->line[i])
			out_write(o, o->line[i]);
	if (marker)
		out_write(o, marker);
}

int batch_out_close(struct batch_out *o, const struct batch *b, int interrupted)
{
	char *marker = NULL;
	int rc = interrupted ? EXIT_INTERRUPTED : o->failed || o->ndone < b->n ? EXIT_FAIL : EXIT_OK;
	int e;

	if (!o->f)
		goto out;
	/* cut short: what finished out of turn is kept too, still in order */
	for (size_t i = o->next; i < b->n; i++)
		if (o->done[i] == LINE_HELD)
			write_held(o, i);
	if (o->ndone < b->n) {
		if (pm_batch_incomplete_to_json(o->ndone, b->n, &marker, NULL)) {
			report_error(&(pm_error){ .code = PM_ENOMEM });
			rc = rc == EXIT_OK ? EXIT_FAIL : rc;
		} else {
			out_write(o, marker);
		}
	}
	if (o->nold && o->ndone > o->nold)
		rewrite(o, b, marker);
	if (o->f == stdout) {
		/* main's close_stdout says what went wrong there */
		if (fflush(stdout) || o->write_errno)
			rc = EXIT_FAIL;
		goto out;
	}
	/* a signal now waits until the output is whole, or as it was */
	interrupt_hold(1);
	e = temp_commit(o);
	interrupt_hold(0);
	if (e)
		rc = cannot_write(o->name, e);
out:
	free(marker);
	free(o->final);
	free(o->temp);
	for (size_t i = 0; o->line && i < b->n; i++)
		free(o->line[i]);
	free(o->line);
	free(o->done);
	return rc;
}
