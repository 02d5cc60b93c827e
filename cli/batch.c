/* perfmodel batch's parts (batch.h): a jobs file's lines become the argv
 * the command line would get, so that every option, every check and every
 * error message of a job is fit's own (cmd_fit.c); a job runs in this
 * process with its diagnostics captured; the results are written in job
 * order as they complete. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "batch.h"

enum { OPT_THREADS = 256, OPT_TIMINGS, OPT_RESUME, OPT_EACH_REGION, OPT_COMMAND };

static const struct option long_options[] = {
	{ "output", required_argument, NULL, 'o' },
	{ "threads", required_argument, NULL, OPT_THREADS },
	{ "timings", no_argument, NULL, OPT_TIMINGS },
	{ "resume", required_argument, NULL, OPT_RESUME },
	{ "each-region", required_argument, NULL, OPT_EACH_REGION },
	{ "command", required_argument, NULL, OPT_COMMAND },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* path as an absolute name, so that it still names the same file once the
 * jobs' folder is the current one; NULL when out of memory. */
static char *absolute(const char *path)
{
	char cwd[PATH_MAX];
	size_t n;
	char *s;

	if (path[0] == '/' || !getcwd(cwd, sizeof(cwd)))
		return strdup(path);
	n = strlen(cwd) + strlen(path) + 2;
	s = malloc(n);
	if (s)
		pm_snprintf(s, n, "%s/%s", cwd, path);
	return s;
}

/* The options after "--" are every job's: none may say what makes a job
 * of --each-region the one it is (its pair and their data, the file: the
 * table's identity options) nor what becomes of its model (its output
 * options); nor may --help. Read as fit reads them, abbreviations too.
 * 0, or EXIT_USAGE naming the option. */
static int check_job_options(const struct batch_args *a)
{
	/* the scan starts after its element 0: the "--" (or the last word) */
	pm_arg_scan s = pm_arg_scan_start(a->fit_argc + 1, a->fit_argv - 1);
	const char *operand = NULL;
	pm_arg arg;
	pm_error err;
	pm_status st = PM_OK;
	int rc = 0;

	while (!rc && !(st = pm_arg_next(&s, &arg, &err)) && (arg.option || arg.value)) {
		unsigned flags = arg.option ? arg.option->flags : 0;

		if (!arg.option)
			operand = operand ? operand : arg.value;
		else if (flags & PM_OPTION_IDENTITY)
			rc = usage_error("batch", "--%s after --: each job's region and metric are "
					 "its pair of %s, its target the metric", arg.option->name,
					 a->each_region);
		else if (flags & PM_OPTION_HELP)
			rc = usage_error("batch", "--help after --: a job prints no usage");
		else if (flags & PM_OPTION_OUTPUT)
			rc = usage_error("batch", "--%s after --: not an option of a batch job: the "
					 "models go into the results", arg.option->name);
	}
	if (st)
		rc = usage_error("batch", "'%s' after --: %s", arg.text,
				 !arg.option ? "not an option of fit"
				 : arg.option->takes_value ? "needs a value" : "takes no value");
	if (!rc && operand)
		rc = usage_error("batch", "'%s' after --: every job reads %s", operand,
				 a->each_region);
	return rc;
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

int batch_parse_args(int argc, char **argv, struct batch_args *a, int *help)
{
	unsigned long long u;
	const char *out = NULL, *resume = NULL;
	int c, own = 0;

	/* after "--": --each-region's options of every fit */
	while (own < argc && strcmp(argv[own], "--"))
		own++;
	a->fit_argv = argv + own + (own < argc);
	a->fit_argc = argc - own - (own < argc);
	*help = 0;
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(own, argv, ":o:h", long_options, NULL)) != -1) {
		switch (c) {
		case 'o': out = optarg; break;
		case OPT_EACH_REGION: a->each_region = optarg; break;
		case OPT_COMMAND:
			if (strcmp(optarg, "fit") && strcmp(optarg, "select") &&
			    strcmp(optarg, "discover"))
				return usage_error("batch", "--command '%s': expected fit, select or "
						   "discover", optarg);
			a->command = optarg;
			break;
		case OPT_RESUME: resume = optarg; break;
		case OPT_TIMINGS: a->timings = 1; break;
		case OPT_THREADS:
			if (parse_uint(optarg, 1024, &u) || u == 0)
				return usage_error("batch", "--threads '%s': expected a whole number "
						   "from 1 to 1024", optarg);
			a->threads = optarg;
			break;
		default:
			*help = c == 'h';
			return common_option(c, argv, "batch", batch_usage);
		}
	}
	if (a->each_region ? optind != own : one_operand(own, argv, "batch", "jobs file", &a->jobs))
		return a->each_region ? usage_error("batch", "--each-region makes the jobs: no jobs "
						    "file") : EXIT_USAGE;
	if (!a->each_region && (a->command || a->fit_argc))
		return usage_error("batch", "--command and options after -- are --each-region's; "
				   "a jobs file says them per job");
	if (a->each_region && check_job_options(a))
		return EXIT_USAGE;
	if ((a->jobs && !*a->jobs) || (a->each_region && !*a->each_region) || (out && !*out) ||
	    (resume && !*resume))
		return usage_error("batch", "an empty file name (the %s)", a->jobs && !*a->jobs
				   ? "jobs file" : a->each_region && !*a->each_region
				   ? "--each-region profile" : out && !*out ? "output" : "--resume file");
	if (resume && !strcmp(resume, "-"))
		return usage_error("batch", "--resume reads and rewrites a file: not '-'");
	if (out && !strcmp(out, "-") && resume)
		return usage_error("batch", "--resume rewrites the results in a file: not -o -");
	if (!out && resume)
		out = resume;
	a->out = out && strcmp(out, "-") ? absolute(out) : NULL;
	a->out_name = out;
	a->resume = resume ? absolute(resume) : NULL;
	if ((out && strcmp(out, "-") && !a->out) || (resume && !a->resume)) {
		report_error(&(pm_error){ .code = PM_ENOMEM });
		return EXIT_FAIL;
	}
	return 0;
}

void batch_args_free(struct batch_args *a)
{
	free(a->out);
	free(a->resume);
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

static char *job_errorf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
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

/* argv[argc++] = a copy of text (the array has room). */
static int push(struct batch_job *j, const char *text)
{
	return (j->argv[j->argc] = strdup(text)) ? (j->argc++, 0) : -1;
}

/* The job of one object; its error in j->error when it is none. */
static void read_job(const cJSON *o, const char *where, const char *threads, struct batch_job *j)
{
	const cJSON *cmd = cJSON_GetObjectItemCaseSensitive(o, "command");
	const cJSON *data = cJSON_GetObjectItemCaseSensitive(o, "data"), *v;
	char text[4096];
	struct stat st;

	if ((j->error = read_id(cJSON_GetObjectItemCaseSensitive(o, "id"), where, &j->id)))
		return;
	j->mode = MODE_FIT;
	if (cmd && !(cJSON_IsString(cmd) && (!strcmp(cmd->valuestring, "fit") ||
					    !strcmp(cmd->valuestring, "select") ||
					    !strcmp(cmd->valuestring, "discover")))) {
		j->error = job_errorf("%s: \"command\" must be \"fit\", \"select\" or \"discover\"",
				      where);
		return;
	}
	if (cmd)
		j->mode = !strcmp(cmd->valuestring, "select") ? MODE_SELECT
			  : !strcmp(cmd->valuestring, "discover") ? MODE_DISCOVER : MODE_FIT;
	/* the command, --threads, every member, "--" and the data */
	j->argv = calloc((size_t)cJSON_GetArraySize(o) + 5, sizeof(*j->argv));
	if (!j->argv || push(j, j->mode == MODE_SELECT ? "select"
				: j->mode == MODE_DISCOVER ? "discover" : "fit"))
		goto oom;
	if (threads && (pm_snprintf(text, sizeof(text), "--threads=%s", threads), push(j, text)))
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
		if (push(j, text))
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
	if (data && (push(j, "--") || push(j, data->valuestring)))
		goto oom;
	/* the measurements' bytes stand for their rows */
	if (data && stat(data->valuestring, &st) == 0)
		j->size *= (double)st.st_size;
	j->size *= j->mode == MODE_DISCOVER ? 20 : j->mode == MODE_SELECT ? 6 : 1;
	return;
oom:
	free(j->error);
	j->error = job_errorf("out of memory");
}

/* Job ids in one order, for duplicates and --resume's look-up. */
int batch_id_cmp(const pm_batch_id *a, const pm_batch_id *b)
{
	if (!a->text != !b->text)
		return a->text ? 1 : -1;
	if (a->text)
		return strcmp(a->text, b->text);
	return (a->number > b->number) - (a->number < b->number);
}

/* The batch the comparators below look into: qsort passes them no
 * context. The drivers sort before any job runs, on one thread. */
static const struct batch *sort_batch;

static int index_cmp(const void *x, const void *y)
{
	const struct batch_job *a = &sort_batch->job[*(const size_t *)x];
	const struct batch_job *b = &sort_batch->job[*(const size_t *)y];
	int c = batch_id_cmp(&a->id, &b->id);

	return c ? c : (a->line > b->line) - (a->line < b->line);
}

/* The jobs that have an id, sorted by it (ties by line); NULL: no memory. */
size_t *batch_by_id(const struct batch *b, size_t *n)
{
	size_t *ix = malloc((b->n + 1) * sizeof(*ix));

	*n = 0;
	if (!ix)
		return NULL;
	for (size_t i = 0; i < b->n; i++)
		if (b->job[i].id.given)
			ix[(*n)++] = i;
	sort_batch = b;
	qsort(ix, *n, sizeof(*ix), index_cmp);
	return ix;
}

/* Two jobs of one id: results are matched to jobs by id (--resume). */
static int check_ids(const struct batch *b)
{
	size_t n, *ix = batch_by_id(b, &n);
	int rc = 0;

	if (!ix) {
		report_error(&(pm_error){ .code = PM_ENOMEM });
		return EXIT_FAIL;
	}
	for (size_t k = 1; k < n && !rc; k++) {
		const struct batch_job *a = &b->job[ix[k - 1]], *c = &b->job[ix[k]];

		if (batch_id_cmp(&a->id, &c->id))
			continue;
		if (a->id.text)
			cprintf(diag(), "perfmodel: %s:%u: id \"%s\" is also line %u's: ids must be "
				"unique\n", b->path, c->line, c->id.text, a->line);
		else
			cprintf(diag(), "perfmodel: %s:%u: id %lld is also line %u's: ids must be "
				"unique\n", b->path, c->line, c->id.number, a->line);
		rc = EXIT_FAIL;
	}
	free(ix);
	return rc;
}

/* The folder of path ("." for none), into buf. */
static void folder_of(const char *path, char *buf, size_t size)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		pm_snprintf(buf, size, ".");
	else if (slash == path)
		pm_snprintf(buf, size, "/");
	else
		pm_snprintf(buf, size, "%.*s", (int)(slash - path), path);
}

int batch_read(const char *path, const char *threads, int timings, struct batch *b)
{
	FILE *f = fopen(path, "r");
	char *text = NULL, where[PATH_MAX + 32], dir[PATH_MAX];
	size_t cap = 0, room = 0;
	ssize_t len;
	unsigned line = 0;

	*b = (struct batch){ .path = path, .timings = timings };
	if (!f || fstat(fileno(f), &b->file)) {
		cprintf(diag(), "perfmodel: %s: %s\n", path, strerror(errno));
		if (f)
			fclose(f);
		return EXIT_FAIL;
	}
	/* a pipe is a jobs file too (batch <(make-jobs)); a folder is none */
	if (S_ISDIR(b->file.st_mode)) {
		cprintf(diag(), "perfmodel: %s: a folder, not a jobs file\n", path);
		fclose(f);
		return EXIT_FAIL;
	}
	folder_of(path, dir, sizeof(dir));
	/* a job's relative paths are the jobs file's: read them from there */
	if (chdir(dir)) {
		cprintf(diag(), "perfmodel: %s: %s\n", dir, strerror(errno));
		fclose(f);
		return EXIT_FAIL;
	}
	while ((len = getline(&text, &cap, f)) >= 0) {
		struct batch_job *j;
		cJSON *o;

		line++;
		if (strspn(text, " \t\r\n") == (size_t)len)
			continue;
		if (b->n == room) {
			room = room ? 2 * room : 64;
			j = realloc(b->job, room * sizeof(*j));
			if (!j)
				break;
			b->job = j;
		}
		j = &b->job[b->n++];
		*j = (struct batch_job){ .line = line };
		pm_snprintf(where, sizeof(where), "%s:%u", path, line);
		/* the whole line: nothing may follow the object */
		o = cJSON_ParseWithOpts(text, NULL, 1);
		if (!cJSON_IsObject(o))
			j->error = job_errorf("%s: %s", where,
					      o ? "a job is a JSON object" : "not JSON");
		else
			read_job(o, where, threads, j);
		cJSON_Delete(o);
	}
	free(text);
	if (ferror(f) || len >= 0) {
		cprintf(diag(), "perfmodel: %s: %s\n", path,
			len >= 0 ? "out of memory" : strerror(errno));
		fclose(f);
		return EXIT_FAIL;
	}
	fclose(f);
	return check_ids(b);
}

/* One --each-region job: argv as batch_read's (command, --threads, the
 * pair, the options, "--", the file). 0, or -1 when out of memory. */
static int region_job(const struct batch_args *a, const pm_region_list *l, size_t i,
		      struct batch_job *j)
{
	size_t n = strlen(l->region[i]) + strlen(l->metric[i]) + 16;
	char *text = malloc(n);
	int rc = -1;

	j->line = (unsigned)i + 1;
	j->mode = !a->command || !strcmp(a->command, "fit") ? MODE_FIT
		  : !strcmp(a->command, "select") ? MODE_SELECT : MODE_DISCOVER;
	j->argv = calloc((size_t)a->fit_argc + 7, sizeof(*j->argv));
	j->id.given = 1;
	j->size = 1;
	if (!text || !j->argv || push(j, a->command ? a->command : "fit"))
		goto out;
	if (a->threads && (pm_snprintf(text, n, "--threads=%s", a->threads), push(j, text)))
		goto out;
	pm_snprintf(text, n, "--region=%s", l->region[i]);
	if (push(j, text))
		goto out;
	pm_snprintf(text, n, "--metric=%s", l->metric[i]);
	if (push(j, text))
		goto out;
	for (int k = 0; k < a->fit_argc; k++)
		if (push(j, a->fit_argv[k]))
			goto out;
	if (push(j, "--") || push(j, a->each_region))
		goto out;
	pm_snprintf(text, n, "%s/%s", l->region[i], l->metric[i]);
	j->id.text = text;
	text = NULL;
	rc = 0;
out:
	free(text);
	return rc;
}

int batch_regions(const struct batch_args *a, struct batch *b)
{
	pm_region_list *l = NULL;
	pm_error err = { 0 };

	*b = (struct batch){ .path = a->each_region, .timings = a->timings };
	(void)stat(a->each_region, &b->file);	/* else the list's reading says why */
	if (pm_region_list_read(a->each_region, PM_FORMAT_AUTO, &l, &err)) {
		report_error(&err);
		return EXIT_FAIL;
	}
	b->regions = calloc(1, sizeof(*b->regions));
	b->job = calloc(l->n, sizeof(*b->job));
	if (!b->regions || !b->job) {
		pm_region_list_free(l);
		report_error(&(pm_error){ .code = PM_ENOMEM });
		return EXIT_FAIL;
	}
	b->regions->list = l;
	for (size_t i = 0; i < l->n; i++, b->n++)
		if (region_job(a, l, i, &b->job[i])) {
			b->n++;
			report_error(&(pm_error){ .code = PM_ENOMEM });
			return EXIT_FAIL;
		}
	return check_ids(b);
}

void batch_free(struct batch *b)
{
	for (size_t i = 0; i < b->n; i++) {
		struct batch_job *j = &b->job[i];

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
		free(b->regions);
	}
	*b = (struct batch){ 0 };
}

static int size_cmp(const void *x, const void *y)
{
	const struct batch_job *a = &sort_batch->job[*(const size_t *)x];
	const struct batch_job *b = &sort_batch->job[*(const size_t *)y];

	/* larger first; ties in job order, so that the order is one */
	if (a->size != b->size)
		return a->size < b->size ? 1 : -1;
	return (a > b) - (a < b);
}

size_t *batch_order(const struct batch *b, const unsigned char *done, size_t *n)
{
	size_t *ix = malloc((b->n + 1) * sizeof(*ix));

	*n = 0;
	if (!ix)
		return NULL;
	for (size_t i = 0; i < b->n; i++)
		if (!done[i])
			ix[(*n)++] = i;
	sort_batch = b;
	qsort(ix, *n, sizeof(*ix), size_cmp);
	return ix;
}

/* fit_command_to's keep: the model's line. */
struct kept {
	const struct batch *b;
	size_t i;
	char *line;
};

static pm_status keep(const pm_model *m, void *arg, pm_error *err)
{
	struct kept *k = arg;

	return pm_batch_line_to_json(&k->b->job[k->i].id, m, NULL, k->b->timings, &k->line, err);
}

/* fit_command_to's cache: for --each-region of a CUBE profile or set, every
 * pair read at once by the first job, as it reads (inclusive, scaling), so
 * that each profile is parsed once and not once per pair; a job that reads
 * otherwise, or another format, reads the files (pm_read_cache_new refuses
 * what it cannot hold, and the cache what it does not). */
static const pm_read_cache *job_cache(void *arg, const char *path, const pm_read_options *o)
{
	struct region_cache *rc = ((struct kept *)arg)->b->regions;

	if (!rc || strcmp(path, ((struct kept *)arg)->b->path))
		return NULL;
	if (!rc->tried) {
		rc->tried = 1;
		pm_read_cache_new(path, o, rc->list, &rc->cache, NULL);
	}
	return rc->cache;
}

/* The diagnostics a failed job printed, as one message: "perfmodel: "
 * taken off each line, the lines joined by "; ". */
static void tidy_message(char *s)
{
	static const char prefix[] = "perfmodel: ";
	char *w = s;

	for (char *r = s; *r;) {
		char *end = strchr(r, '\n');
		size_t n = end ? (size_t)(end - r) : strlen(r);

		if (!strncmp(r, prefix, sizeof(prefix) - 1) && n >= sizeof(prefix) - 1) {
			r += sizeof(prefix) - 1;
			n -= sizeof(prefix) - 1;
		}
		if (n && w != s) {
			memcpy(w, "; ", 2);
			w += 2;
		}
		memmove(w, r, n);
		w += n;
		r += n + (end != NULL);
	}
	*w = '\0';
}

int batch_run(const struct batch *b, size_t i, char **line, int *error)
{
	const struct batch_job *j = &b->job[i];
	struct kept k = { b, i, NULL };
	char *msg = NULL;
	size_t msg_len = 0;
	FILE *capture, *was;
	int rc;

	*line = NULL;
	*error = 1;
	if (j->error) {
		pm_batch_line_to_json(&j->id, NULL, j->error, 0, line, NULL);
		return *line ? 0 : -1;
	}
	capture = open_memstream(&msg, &msg_len);
	if (!capture)
		return -1;
	was = diag_capture(capture);
	rc = fit_command_to(j->argc, j->argv, j->mode,
			    &(struct fit_sink){ j->spec_json, j->spec_name, keep, &k, job_cache });
	diag_capture(was);
	fclose(capture);
	/* a signal: whatever the job says, it is to be run again */
	if (rc == EXIT_INTERRUPTED || (rc && *b->stop)) {
		free(msg);
		free(k.line);
		return 1;
	}
	if (rc == EXIT_OK) {
		/* its warnings are in the model's "warnings" */
		free(msg);
		*line = k.line;
		*error = 0;
		return *line ? 0 : -1;
	}
	free(k.line);
	if (!msg)
		return -1;
	tidy_message(msg);
	pm_batch_line_to_json(&j->id, NULL, *msg ? msg : "failed", 0, line, NULL);
	free(msg);
	return *line ? 0 : -1;
}
