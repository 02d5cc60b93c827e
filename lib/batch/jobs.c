/* A batch's jobs (perfmodel/batch.h): a jobs file's lines become the
 * argument vector the command line would get, so that every option, every
 * check and every message of a job is the command's own (pm_options_parse,
 * when it runs: run.c); what no option can say (the id, the command, an
 * inline spec, an output) is read here. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "batch/batch_impl.h"
#include "core/error.h"
#include "core/read_file.h"

pm_batch *pm__batch_new(const char *path, const pm_batch_options *o)
{
	pm_batch *b = calloc(1, sizeof(*b));

	if (b && !(b->path = strdup(path))) {
		free(b);
		return NULL;
	}
	if (b && o) {
		b->timings = o->timings;
		b->stop = o->stop;
	}
	return b;
}

/* A JSON value as an option's text into buf: strings as they are, numbers
 * as written back exactly (a whole number without a point), arrays as
 * comma-separated lists of those. 0, or -1 for what no option takes. */
static int value_text(const cJSON *v, char *buf, size_t size)
{
	char num[PM_DOUBLE_CHARS];
	size_t len = 0;
	const cJSON *e;

	if (cJSON_IsString(v))
		return (size_t)pm_snprintf(buf, size, "%s", v->valuestring) >= size ? -1 : 0;
	if (cJSON_IsNumber(v)) {
		double d = v->valuedouble;

		if (d == floor(d) && fabs(d) < 9007199254740992.0)
			pm_snprintf(buf, size, "%lld", (long long)d);
		else
			pm_snprintf(buf, size, "%s", pm_format_double(d, num));
		return 0;
	}
	if (!cJSON_IsArray(v) || !cJSON_GetArraySize(v))
		return -1;
	cJSON_ArrayForEach(e, v) {
		size_t comma = len > 0;

		if (cJSON_IsArray(e) || len + comma + 1 >= size ||
		    value_text(e, buf + len + comma, size - len - comma))
			return -1;
		if (comma)
			buf[len] = ',';
		len += comma + strlen(buf + len + comma);
	}
	return 0;
}

static char *job_errorf(const char *fmt, ...) PM_PRINTF(1, 2);
static char *job_errorf(const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	pm_vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return strdup(msg);
}

/* The id member: a string or a whole number. NULL, or what is wrong. */
static char *read_id(const cJSON *v, const char *where, pm_batch_id *id)
{
	if (cJSON_IsString(v)) {
		id->text = strdup(v->valuestring);
		id->given = 1;
		return id->text ? NULL : job_errorf("out of memory");
	}
	if (cJSON_IsNumber(v) && v->valuedouble == floor(v->valuedouble) &&
	    fabs(v->valuedouble) < 9007199254740992.0) {
		id->number = (long long)v->valuedouble;
		id->given = 1;
		return NULL;
	}
	return job_errorf("%s: %s", where, v ? "\"id\" must be a string or a whole number"
					      : "no \"id\": every job needs one");
}

int pm__job_push(struct pm__job *j, const char *text)
{
	return (j->argv[j->argc] = strdup(text)) ? (j->argc++, 0) : -1;
}

/* 1 when key (a job's member) is an output option of the table or the
 * beginning of one, which the parser would take for it ("o" for output). */
static int output_key(const char *key)
{
	size_t n;
	const pm_option_info *t = pm_option_table(&n);

	for (size_t k = 0; *key && k < n; k++)
		if ((t[k].flags & PM_OPTION_OUTPUT) && !strncmp(key, t[k].name, strlen(key)))
			return 1;
	return 0;
}

const char *pm__command_name(pm_command c)
{
	return c == PM_COMMAND_SELECT ? "select" : c == PM_COMMAND_DISCOVER ? "discover" : "fit";
}

/* A job's file name as the job reads it: a relative name from the jobs
 * file's folder. NULL: name itself (absolute, or no folder), or no memory. */
static char *job_path(const char *jobs, const char *name)
{
	const char *slash = strrchr(jobs, '/');
	size_t size = slash ? (size_t)(slash - jobs) + strlen(name) + 2 : 0;
	char *path = NULL;

	if (name[0] != '/' && slash && (path = malloc(size)))
		pm_snprintf(path, size, "%.*s/%s", (int)(slash - jobs), jobs, name);
	return path;
}

/* The measurements' bytes stand for their rows (the order's cost): data's
 * size; 1 when unknown. */
static double data_bytes(const char *jobs, const char *data)
{
	char *path = job_path(jobs, data);
	struct stat st;
	double bytes = 1;

	if (stat(path ? path : data, &st) == 0)
		bytes = (double)st.st_size;
	free(path);
	return bytes;
}

/* A spec file larger than this is not read for the order (a spec is a
 * few hundred bytes; the job itself says what is wrong with it). */
#define SPEC_PEEK_BYTES ((off_t)1 << 20)

/* Whether a spec (an object, or a file's) names its form. */
static int spec_has_form(const cJSON *spec, const char *jobs)
{
	char *path, *text = NULL;
	cJSON *parsed = NULL;
	struct stat st;
	size_t len;
	int has;

	/* "-" would be standard input, which the order must not read */
	if (cJSON_IsString(spec) && strcmp(spec->valuestring, "-") != 0) {
		path = job_path(jobs, spec->valuestring);
		if (stat(path ? path : spec->valuestring, &st) == 0 && S_ISREG(st.st_mode) &&
		    st.st_size <= SPEC_PEEK_BYTES &&
		    pm__read_file(path ? path : spec->valuestring, &text, &len, NULL) == PM_OK)
			spec = parsed = cJSON_Parse(text);
		free(path);
		free(text);
	}
	has = cJSON_IsObject(spec) && (cJSON_GetObjectItemCaseSensitive(spec, "form") ||
				       cJSON_GetObjectItemCaseSensitive(spec, "formula"));
	cJSON_Delete(parsed);
	return has;
}

/* Whether a fit job runs the automatic choice of form (no form, formula or
 * warm start in the job, none in its spec): discover's search and every
 * candidate's folds, about 30 fits where a form is one. */
static int chooses_form(const cJSON *o, const char *jobs)
{
	const cJSON *form = cJSON_GetObjectItemCaseSensitive(o, "form");

	if (form)
		return cJSON_IsString(form) && !strcmp(form->valuestring, "auto");
	return !cJSON_GetObjectItemCaseSensitive(o, "formula") &&
	       !cJSON_GetObjectItemCaseSensitive(o, "warm_start") &&
	       !spec_has_form(cJSON_GetObjectItemCaseSensitive(o, "spec"), jobs);
}

/* The job of one object; its error in j->error when it is none. */
static void read_job(const cJSON *o, const char *jobs, const char *where, const char *threads,
		     struct pm__job *j)
{
	const cJSON *cmd = cJSON_GetObjectItemCaseSensitive(o, "command");
	const cJSON *data = cJSON_GetObjectItemCaseSensitive(o, "data"), *v;
	char text[4096];

	if ((j->error = read_id(cJSON_GetObjectItemCaseSensitive(o, "id"), where, &j->id)))
		return;
	j->command = PM_COMMAND_FIT;
	if (cmd && !(cJSON_IsString(cmd) && (!strcmp(cmd->valuestring, "fit") ||
					    !strcmp(cmd->valuestring, "select") ||
					    !strcmp(cmd->valuestring, "discover")))) {
		j->error = job_errorf("%s: \"command\" must be \"fit\", \"select\" or \"discover\"",
				      where);
		return;
	}
	if (cmd)
		j->command = !strcmp(cmd->valuestring, "select") ? PM_COMMAND_SELECT
			     : !strcmp(cmd->valuestring, "discover") ? PM_COMMAND_DISCOVER
								     : PM_COMMAND_FIT;
	/* the command, --threads, every member, "--" and the data */
	j->argv = calloc((size_t)cJSON_GetArraySize(o) + 5, sizeof(*j->argv));
	if (!j->argv || pm__job_push(j, pm__command_name(j->command)))
		goto oom;
	if (threads && (pm_snprintf(text, sizeof(text), "--threads=%s", threads),
			pm__job_push(j, text)))
		goto oom;
	j->size = 1;
	cJSON_ArrayForEach(v, o) {
		const char *key = v->string;

		if (!strcmp(key, "id") || !strcmp(key, "command") || !strcmp(key, "data"))
			continue;
		/* the parser takes an abbreviation too: a key that begins
		 * an output option is refused as well */
		if (output_key(key)) {
			j->error = job_errorf("%s: \"%s\" is not an option of a batch job: the "
					      "model goes into the results", where, key);
			return;
		}
		if (!strcmp(key, "spec") && cJSON_IsString(v) && !*v->valuestring) {
			j->error = job_errorf("%s: \"spec\" must be a file name or an object, not "
					      "empty", where);
			return;
		}
		if (!strcmp(key, "spec") && cJSON_IsObject(v)) {
			/* a member given twice: the last, as an option given twice */
			free(j->spec_json);
			free(j->spec_name);
			j->spec_json = cJSON_PrintUnformatted(v);
			j->spec_name = job_errorf("%s: spec", where);
			if (!j->spec_json || !j->spec_name)
				goto oom;
			continue;
		}
		if (cJSON_IsFalse(v) || cJSON_IsNull(v))
			continue;	/* a flag not given */
		if (cJSON_IsTrue(v))
			pm_snprintf(text, sizeof(text), "--%s", key);
		else {
			size_t n = (size_t)pm_snprintf(text, sizeof(text), "--%s=", key);

			if (n >= sizeof(text) || value_text(v, text + n, sizeof(text) - n)) {
				j->error = job_errorf("%s: \"%s\": expected a string, a number, true "
						      "or a list of them", where, key);
				return;
			}
		}
		if (pm__job_push(j, text))
			goto oom;
		/* longest first: repeated fits and searches cost more */
		if (!strcmp(key, "seeds") && cJSON_IsNumber(v) && v->valuedouble > 1)
			j->size *= v->valuedouble;
	}
	if (data && (!cJSON_IsString(data) || !*data->valuestring)) {
		j->error = job_errorf("%s: \"data\" must be a file name%s", where,
				      cJSON_IsString(data) ? ", not empty" : "");
		return;
	}
	if (data && (pm__job_push(j, "--") || pm__job_push(j, data->valuestring)))
		goto oom;
	if (data)
		j->size *= data_bytes(jobs, data->valuestring);
	j->size *= j->command == PM_COMMAND_DISCOVER ? 20
		   : j->command == PM_COMMAND_SELECT ? 6
		   : chooses_form(o, jobs)	     ? 30
						     : 1;
	return;
oom:
	free(j->error);
	j->error = job_errorf("out of memory");
}

/* One line of the jobs file (not blank) as job j. */
static void read_line(const char *text, size_t len, const pm_batch *b, const char *threads,
		      struct pm__job *j)
{
	char where[PATH_MAX + 32], *copy;
	cJSON *o = NULL;

	pm_snprintf(where, sizeof(where), "%s:%u", b->path, j->line);
	if (!(copy = strndup(text, len))) {
		j->error = job_errorf("out of memory");
		return;
	}
	/* the whole line: nothing may follow the object (nor a NUL byte) */
	if (strlen(copy) == len)
		o = cJSON_ParseWithOpts(copy, NULL, 1);
	free(copy);
	if (o && !cJSON_IsObject(o))
		j->error = job_errorf("%s: a job is a JSON object", where);
	else if (!o)
		j->error = job_errorf("%s: not JSON", where);
	else
		read_job(o, b->path, where, threads, j);
	cJSON_Delete(o);
}

/* The jobs of text[0..len) into b. PM_ENOMEM. */
static pm_status read_lines(pm_batch *b, const char *text, size_t len, const char *threads,
			    pm_error *err)
{
	size_t room = 0;
	unsigned line = 0;

	for (size_t at = 0; at < len;) {
		const char *nl = memchr(text + at, '\n', len - at);
		size_t n = nl ? (size_t)(nl - (text + at)) : len - at, blank = 0;

		line++;
		while (blank < n && (text[at + blank] == ' ' || text[at + blank] == '\t' ||
				     text[at + blank] == '\r'))
			blank++;
		if (blank < n) {
			if (b->n == room) {
				struct pm__job *j;

				room = room ? 2 * room : 64;
				if (!(j = realloc(b->job, room * sizeof(*j))))
					return pm__fail(err, PM_ENOMEM, "out of memory");
				b->job = j;
			}
			b->job[b->n] = (struct pm__job){ .line = line };
			read_line(text + at, n, b, threads, &b->job[b->n++]);
		}
		at += n + 1;
	}
	return PM_OK;
}

pm_status pm_batch_parse(const char *text, size_t len, const char *name,
			 const pm_batch_options *o, pm_batch **out, pm_error *err)
{
	pm_batch *b;
	pm_status st;

	if (!out || !name || (!text && len))
		return pm__fail(err, PM_EINVAL, "pm_batch_parse: no %s",
				!out ? "place for the batch" : !name ? "name" : "text");
	*out = NULL;
	if (!(b = pm__batch_new(name, o)))
		return pm__fail(err, PM_ENOMEM, "out of memory");
	if ((st = read_lines(b, text, len, o ? o->threads : NULL, err)) ||
	    (st = pm__batch_check_ids(b, err))) {
		pm_batch_free(b);
		return st;
	}
	*out = b;
	return PM_OK;
}

/* f's bytes (NUL-terminated) into *text, *len of them: 0, or an errno. */
static int read_all(FILE *f, char **text, size_t *len)
{
	size_t cap = 4096, n = 0, got;
	char *buf = malloc(cap), *more;

	if (!buf)
		return ENOMEM;
	while ((got = fread(buf + n, 1, cap - n - 1, f)) > 0) {
		n += got;
		if (n + 1 < cap)
			continue;
		if (!(more = realloc(buf, cap * 2))) {
			free(buf);
			return ENOMEM;
		}
		buf = more;
		cap *= 2;
	}
	if (ferror(f)) {
		free(buf);
		return errno ? errno : EIO;
	}
	buf[n] = '\0';
	*text = buf;
	*len = n;
	return 0;
}

pm_status pm_batch_read(const char *path, const pm_batch_options *o, pm_batch **out,
			pm_error *err)
{
	char why[128], *text = NULL;
	struct stat st;
	size_t len = 0;
	pm_status rc;
	FILE *f;
	int e;

	if (!out || !path)
		return pm__fail(err, PM_EINVAL, "pm_batch_read: no %s", out ? "path" : "place");
	*out = NULL;
	/* a pipe is a jobs file too (batch <(make-jobs)); a folder is none */
	if (!(f = fopen(path, "re")) || fstat(fileno(f), &st)) {
		e = errno;
		if (f)
			fclose(f);
		return pm__fail_at(err, PM_EIO, path, 0, 0, "%s", pm_strerror(e, why, sizeof(why)));
	}
	if (S_ISDIR(st.st_mode)) {
		fclose(f);
		return pm__fail_at(err, PM_EIO, path, 0, 0, "a folder, not a jobs file");
	}
	e = read_all(f, &text, &len);
	fclose(f);
	if (e)
		return e == ENOMEM ? pm__fail(err, PM_ENOMEM, "out of memory")
				   : pm__fail_at(err, PM_EIO, path, 0, 0, "%s",
						 pm_strerror(e, why, sizeof(why)));
	rc = pm_batch_parse(text, len, path, o, out, err);
	free(text);
	if (!rc)
		(*out)->file = st;
	return rc;
}

void pm_batch_free(pm_batch *b)
{
	if (!b)
		return;
	for (size_t i = 0; i < b->n; i++) {
		struct pm__job *j = &b->job[i];

		for (int k = 0; k < j->argc; k++)
			free(j->argv[k]);
		free(j->argv);
		free((char *)j->id.text);
		free(j->spec_json);
		free(j->spec_name);
		free(j->error);
	}
	free(b->job);
	if (b->regions) {
		pm_region_list_free(b->regions->list);
		pm_read_cache_free(b->regions->cache);
		pthread_mutex_destroy(&b->regions->mu);
		for (int k = 0; k < b->regions->argc; k++)
			free(b->regions->argv[k]);
		free(b->regions->argv);
		free(b->regions);
	}
	free(b->path);
	free(b);
}

size_t pm_batch_njobs(const pm_batch *b)
{
	return b ? b->n : 0;
}

const pm_batch_id *pm_batch_job_id(const pm_batch *b, size_t i)
{
	return b && i < b->n ? &b->job[i].id : NULL;
}

const char *pm_batch_job_error(const pm_batch *b, size_t i)
{
	return b && i < b->n ? b->job[i].error : NULL;
}
