/* A batch's results (perfmodel/batch.h) under fit -o's rules (DESIGN.md
 * §6): checked against every file the batch reads before any job runs,
 * written line by line into a temporary file beside the output, which
 * replaces it whole at the end; every write is checked, and a failed one
 * leaves the output as it was. Lines go out in job order as soon as every
 * job before them has one, so that the file is the same bytes whatever
 * order the jobs finish in. */
/* realpath is XSI's */
#define _XOPEN_SOURCE 700

#include <cjson/cJSON.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "batch/batch_impl.h"
#include "core/error.h"
#include "core/tempfile.h"

/* What the output has of a job (done[]). */
enum { LINE_NONE, LINE_HELD, LINE_WRITTEN };

struct pm_batch_output {
	const pm_batch *b;
	FILE *f;
	int temporary;		/* f is the temporary file (else the caller's stream) */
	char *name;		/* for messages */
	char *final, *temp;	/* the output's target (links followed), the file written */
	void (*hold)(int on);
	int write_errno;	/* the first write that failed; 0: none */
	char **line;		/* per job: its line until written (kept when resumed) */
	unsigned char *done;	/* per job: LINE_... */
	size_t next;		/* the first job whose line is not written */
	size_t ndone, nold;	/* lines in all, and those resumed */
	int failed;		/* some line is an error */
};

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

static pm_status clash(pm_error *err, const char *out, const char *what)
{
	return pm__fail(err, PM_EIO, "cannot write %s: it is %s, which the output would replace",
			out, what);
}

/* A jobs file's job that reads the output: the key of the argument that
 * names it ("data" for the data), and the file into what; 0: none. */
static int job_reads(const pm_batch *b, const struct pm__job *j, const struct stat *out,
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
 * by identity: links and other names of it too). The resumed file is the
 * output or only read. */
static pm_status check_inputs(const pm_batch *b, const char *path, const char *name,
			      pm_error *err)
{
	char what[PATH_MAX + 512];
	struct stat out;
	pm_status st;

	if ((st = pm_output_check(path, NULL, 0, err)))
		return st;
	if (stat(path, &out))
		return PM_OK;	/* nothing there yet: nothing to lose */
	if (b->file.st_ino && same_file(&b->file, &out)) {
		pm_snprintf(what, sizeof(what), "%s %s", b->regions ? "the --each-region profile"
					      : "the jobs file", b->path);
		return clash(err, name, what);
	}
	for (int k = 0; b->regions && k < b->regions->argc; k++) {
		const char *arg = b->regions->argv[k], *eq = strchr(arg, '=');

		if (names_output(!strncmp(arg, "--", 2) && eq ? eq + 1 : arg, &out)) {
			pm_snprintf(what, sizeof(what), "'%s' after --, an input of every job", arg);
			return clash(err, name, what);
		}
	}
	for (size_t i = 0; !b->regions && i < b->n; i++)
		if (!b->job[i].error && job_reads(b, &b->job[i], &out, what, sizeof(what)))
			return clash(err, name, what);
	return PM_OK;
}

static pm_status cannot_write(pm_error *err, const char *name, int e)
{
	char why[128];

	return pm__fail(err, e == ENOMEM ? PM_ENOMEM : PM_EIO, "cannot write %s: %s (the file is "
			"unchanged)", name, pm_strerror(e, why, sizeof(why)));
}

/* The file the results are written to until the end: a new one beside
 * the output's target (a symbolic link stays a link), of the mode the
 * output has or a new file would get. */
static pm_status temp_open(pm_batch_output *o, const char *path, pm_error *err)
{
	static const char pattern[] = ".perfmodel-XXXXXX";
	struct stat old;
	const char *slash;
	size_t dir;
	int fd, e;

	o->final = realpath(path, NULL);
	if (!o->final && errno == ENOENT)
		o->final = strdup(path);	/* not there yet: made by the rename */
	if (!o->final || !(o->temp = malloc(strlen(o->final) + sizeof(pattern))))
		return cannot_write(err, o->name, errno ? errno : ENOMEM);
	slash = strrchr(o->final, '/');
	dir = slash ? (size_t)(slash - o->final) + 1 : 0;
	memcpy(o->temp, o->final, dir);
	memcpy(o->temp + dir, pattern, sizeof(pattern));
	if ((fd = pm__mkstemp_cloexec(o->temp)) < 0) {
		e = errno;
		free(o->temp);
		o->temp = NULL;
		return cannot_write(err, o->name, e);
	}
	(void)fchmod(fd, stat(o->final, &old) == 0 ? old.st_mode & 07777 : pm__new_file_mode());
	if (!(o->f = fdopen(fd, "w"))) {
		e = errno;
		close(fd);
		unlink(o->temp);
		return cannot_write(err, o->name, e);
	}
	o->temporary = 1;
	return PM_OK;
}

/* The temporary file, whole, over the output; after a failed write it is
 * removed. 0, or the errno of what failed. */
static int temp_commit(pm_batch_output *o)
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

static void hold(const pm_batch_output *o, int on)
{
	if (o->hold)
		o->hold(on);
}

/* One line to the output, whole: the caller's signals wait until it is
 * out. After a failed write nothing more is written. */
static void out_write(pm_batch_output *o, const char *line)
{
	if (o->write_errno)
		return;
	hold(o, 1);
	errno = 0;
	if (fputs(line, o->f) == EOF || fflush(o->f))
		o->write_errno = errno ? errno : EIO;
	hold(o, 0);
}

/* A result line of a resumed file for a job of b: its index, or b->n. */
static size_t old_job(const pm_batch *b, const size_t *ix, size_t nix, const char *text,
		      int *error)
{
	cJSON *o = cJSON_Parse(text), *id;
	pm_batch_id want = { 0 };
	size_t found = b->n;

	id = cJSON_GetObjectItemCaseSensitive(o, "id");
	*error = cJSON_GetObjectItemCaseSensitive(o, "error") != NULL;
	if (cJSON_IsObject(o) && (*error || cJSON_GetObjectItemCaseSensitive(o, "model")) &&
	    (cJSON_IsString(id) ? (want.text = id->valuestring, 1)
	     : cJSON_IsNumber(id) ? (want.number = (long long)id->valuedouble, 1) : 0))
		found = pm__batch_find_id(b, ix, nix, &want);
	cJSON_Delete(o);
	return found;
}

/* The resumed file's lines: each result of a job of b, kept (by job) as
 * done. A missing file has none. */
static pm_status read_resume(pm_batch_output *o, const char *path, pm_error *err)
{
	const pm_batch *b = o->b;
	FILE *f = fopen(path, "re");
	struct stat st;
	char *text = NULL, why[128];
	size_t cap = 0, nix, *ix;
	ssize_t len = 0;
	pm_status rc;
	int e;

	if (!f) {
		/* nothing done yet: the first run of a job script that resumes */
		if (errno == ENOENT)
			return PM_OK;
		e = errno;
		return pm__fail(err, PM_EIO, "--resume %s: %s", path, pm_strerror(e, why, sizeof(why)));
	}
	if (fstat(fileno(f), &st) == 0 && !S_ISREG(st.st_mode)) {
		fclose(f);
		return pm__fail(err, PM_EIO, "--resume %s: %s, not a results file", path,
				S_ISDIR(st.st_mode) ? "a folder" : "not a regular file");
	}
	if ((rc = pm__batch_by_id(b, &ix, &nix, err))) {
		fclose(f);
		return rc;
	}
	while ((len = getline(&text, &cap, f)) >= 0) {
		int error;
		size_t i;

		/* a line cut short by a kill has no newline: not a result */
		if (!len || text[len - 1] != '\n' ||
		    (i = old_job(b, ix, nix, text, &error)) == b->n || o->done[i])
			continue;
		if (!(o->line[i] = strdup(text))) {
			rc = pm__fail(err, PM_ENOMEM, "out of memory");
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
	if (!rc && e)
		rc = pm__fail(err, PM_EIO, "--resume %s: cannot read: %s", path,
			      pm_strerror(e, why, sizeof(why)));
	return rc;
}

/* Free o and all it holds. */
static void output_free(pm_batch_output *o)
{
	if (o->f && o->temporary) {
		fclose(o->f);
		unlink(o->temp);
	}
	for (size_t i = 0; o->line && i < o->b->n; i++)
		free(o->line[i]);
	free(o->line);
	free(o->done);
	free(o->final);
	free(o->temp);
	free(o->name);
	free(o);
}

pm_status pm_batch_output_open(const pm_batch *b, const pm_batch_output_options *opt,
			       pm_batch_output **out, pm_error *err)
{
	const char *name;
	pm_batch_output *o;
	pm_status st;

	if (!b || !opt || !out || (!opt->path && !opt->stream))
		return pm__fail(err, PM_EINVAL, "pm_batch_output_open: no %s", !b ? "batch"
				: !opt ? "options" : !out ? "place for the output" : "path or stream");
	*out = NULL;
	name = opt->name ? opt->name : opt->path ? opt->path : "standard output";
	if (!(o = calloc(1, sizeof(*o))))
		return pm__fail(err, PM_ENOMEM, "out of memory");
	o->b = b;
	o->hold = opt->hold;
	o->line = calloc(b->n + 1, sizeof(*o->line));
	o->done = calloc(b->n + 1, 1);
	o->name = strdup(name);
	if (!o->line || !o->done || !o->name) {
		st = pm__fail(err, PM_ENOMEM, "out of memory");
		goto fail;
	}
	if ((opt->path && (st = check_inputs(b, opt->path, name, err))) ||
	    (opt->resume && (st = read_resume(o, opt->resume, err))) ||
	    (opt->path && (st = temp_open(o, opt->path, err))))
		goto fail;
	if (!opt->path)
		o->f = opt->stream;
	/* the results so far first, in job order; new ones follow them */
	for (size_t i = 0; i < b->n; i++)
		if (o->done[i])
			out_write(o, o->line[i]);
	while (o->next < b->n && o->done[o->next])
		o->next++;
	*out = o;
	return PM_OK;
fail:
	output_free(o);
	return st;
}

int pm_batch_output_has(const pm_batch_output *o, size_t i)
{
	return o && i < o->b->n && o->done[i] != LINE_NONE;
}

pm_status pm_batch_order(const pm_batch *b, const pm_batch_output *o, size_t **order,
			 size_t *n, pm_error *err)
{
	if (!b || !order || !n || (o && o->b != b))
		return pm__fail(err, PM_EINVAL, "pm_batch_order: %s", !b ? "no batch"
				: o && o->b != b ? "the output is another batch's"
				: "no place for the order");
	return pm__batch_by_size(b, o ? o->done : NULL, order, n, err);
}

/* Job i's held line out; freed unless a resumed run rewrites its file from
 * every line at the end. */
static void write_held(pm_batch_output *o, size_t i)
{
	out_write(o, o->line[i]);
	o->done[i] = LINE_WRITTEN;
	if (!o->nold) {
		free(o->line[i]);
		o->line[i] = NULL;
	}
}

pm_status pm_batch_output_put(pm_batch_output *o, size_t i, char *line, int failed,
			      pm_error *err)
{
	if (!o || !line || i >= o->b->n || o->done[i]) {
		free(line);
		return pm__fail(err, PM_EINVAL, "pm_batch_output_put: %s", !o ? "no output"
				: !line ? "no line" : i >= (o->b->n) ? "no such job"
				: "the job has its line");
	}
	o->line[i] = line;
	o->done[i] = LINE_HELD;
	o->ndone++;
	o->failed |= failed;
	for (; o->next < o->b->n && o->done[o->next]; o->next++)
		if (o->done[o->next] == LINE_HELD)
			write_held(o, o->next);
	return o->write_errno ? cannot_write(err, o->name, o->write_errno) : PM_OK;
}

/* A resumed run's file as if run in one go: the temporary file written
 * again from the start, every line in job order and the marker. */
static void rewrite(pm_batch_output *o, const char *marker)
{
	if (o->write_errno)
		return;
	if (fflush(o->f) || fseek(o->f, 0, SEEK_SET) || ftruncate(fileno(o->f), 0)) {
		o->write_errno = errno;
		return;
	}
	for (size_t i = 0; i < o->b->n; i++)
		if (o->line[i])
			out_write(o, o->line[i]);
	if (marker)
		out_write(o, marker);
}

pm_status pm_batch_output_close(pm_batch_output *o, pm_batch_tally *t, pm_error *err)
{
	char *marker = NULL;
	pm_status st = PM_OK;
	int e;

	if (!o)
		return pm__fail(err, PM_EINVAL, "pm_batch_output_close: no output");
	/* cut short: what finished out of turn is kept too, still in order */
	for (size_t i = o->next; i < o->b->n; i++)
		if (o->done[i] == LINE_HELD)
			write_held(o, i);
	if (o->ndone < o->b->n) {
		if ((st = pm_batch_incomplete_to_json(o->ndone, o->b->n, &marker, err)))
			o->write_errno = o->write_errno ? o->write_errno : ENOMEM;
		else
			out_write(o, marker);
	}
	if (o->nold && o->ndone > o->nold && o->temporary)
		rewrite(o, marker);
	if (t)
		*t = (pm_batch_tally){ .jobs = o->b->n, .done = o->ndone, .failed = o->failed };
	if (!o->temporary) {
		e = fflush(o->f) ? errno : o->write_errno;
	} else {
		/* the caller's signals now wait until the output is whole, or as it was */
		hold(o, 1);
		e = temp_commit(o);
		hold(o, 0);
	}
	if (e)
		st = cannot_write(err, o->name, e);
	free(marker);
	output_free(o);
	return st;
}
