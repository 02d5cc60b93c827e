/* One job run into its result line (perfmodel/batch.h): its argument
 * vector parsed as the command line's (pm_options_parse), then fit, select
 * or discover with nothing printed or saved; a failure is the message the
 * command line would print, so that a job and its command say the same. */
#include <stdlib.h>
#include <string.h>

#include "batch/batch_impl.h"
#include "core/error.h"

/* For --each-region of a CUBE profile or set, every pair read at once by
 * the first job, as it reads (inclusive, scaling), so that each profile is
 * parsed once and not once per pair; a job that reads otherwise, or
 * another format, reads the files (pm_read_cache_new refuses what it
 * cannot hold, and the cache what it does not). */
static const pm_read_cache *shared_runs(const pm_batch *b, const char *path,
					const pm_read_options *o)
{
	struct pm__regions *r = b->regions;
	const pm_read_cache *c;

	if (!r || !path || strcmp(path, b->path))
		return NULL;
	pthread_mutex_lock(&r->mu);
	if (!r->tried) {
		r->tried = 1;
		pm_read_cache_new(path, o, r->list, &r->cache, NULL);
	}
	c = r->cache;
	pthread_mutex_unlock(&r->mu);
	return c;
}

/* The job's failure as the command line prints it, without "perfmodel: ":
 * the place and the message; a bad option with where its help is (the
 * options are the command's). */
static void job_message(const pm_error *e, const char *usage_of, char *out, size_t size)
{
	const char *msg = e->msg[0] ? e->msg : pm_status_string(e->code);
	size_t n = 0;

	out[0] = '\0';
	if (usage_of) {
		pm_snprintf(out, size, "%s (see 'perfmodel help %s')", msg, usage_of);
		return;
	}
	if (e->file[0] && e->line && e->column)
		n = (size_t)pm_snprintf(out, size, "%s:%u:%u: ", e->file, e->line, e->column);
	else if (e->file[0] && e->line)
		n = (size_t)pm_snprintf(out, size, "%s:%u: ", e->file, e->line);
	else if (e->file[0])
		n = (size_t)pm_snprintf(out, size, "%s: ", e->file);
	if (n < size)
		pm_snprintf(out + n, size - n, "%s", msg);
}

/* pm_select_file on the candidates of a's --forms and --loss. */
static pm_status select_run(const pm_options *a, const pm_source *src, const pm_spec *s,
			    pm_fit_result **r, pm_error *err)
{
	pm_candidate *cand = NULL;
	char *names = NULL;
	size_t n;
	pm_status st = pm_options_candidates(a, &cand, &n, &names, err);

	if (!st)
		st = pm_select_file(src, s, &a->fit, cand, n, &a->select_validation, r, err);
	free(cand);
	free(names);
	return st;
}

/* The job's model into its line: PM_OK (*line, or *failed the job's error
 * in *jerr, *usage_of when it is a bad option), or PM_ENOMEM. */
static pm_status run_job(const pm_batch *b, const struct pm__job *j, char **line,
			 pm_error *jerr, const char **usage_of)
{
	pm_options a = pm_options_default(j->command);
	pm_model *warm = NULL;
	pm_spec *s = NULL;
	pm_fit_result *r = NULL;
	unsigned cpus = pm_cpu_count();
	pm_status st;

	a.spec_json = j->spec_json;
	a.spec_name = j->spec_name;
	if ((st = pm_options_parse(&a, j->argc, j->argv, jerr))) {
		*usage_of = st == PM_EINVAL ? j->argv[0] : NULL;
		goto out;
	}
	/* a job ends nothing but itself, and prints nothing */
	if (a.help) {
		st = pm__fail(jerr, PM_EINVAL, "'%s' is --help, which is not an option of a batch "
			      "job", a.help_text);
		goto out;
	}
	a.read.cache = shared_runs(b, a.data, &a.read);
	/* more threads than CPUs only take turns */
	a.fit.threads = a.fit.threads > cpus ? cpus : a.fit.threads;
	if (a.warm_start && (st = pm_model_load_file(a.warm_start, &warm, jerr)))
		goto out;
	a.fit.warm_start = warm;
	a.fit.stop = b->stop;
	{
		pm_source src = { .path = a.data, .test_path = a.test_path, .read = a.read };

		if ((st = pm_options_spec(&a, &s, jerr)) ||
		    (st = a.command == PM_COMMAND_SELECT ? select_run(&a, &src, s, &r, jerr)
			  : a.command == PM_COMMAND_DISCOVER
			  ? pm_discover_file(&src, s, &a.fit, &a.discover, a.nseeds, &r, jerr)
			  : pm_fit_file(&src, s, &a.fit, a.nseeds, &r, jerr)))
			goto out;
	}
	st = pm_batch_line_to_json(&j->id, r->model, NULL, b->timings, line, jerr);
out:
	pm_options_clear(&a);
	pm_fit_result_free(r);
	pm_spec_free(s);
	pm_model_free(warm);
	return st;
}

pm_status pm_batch_run(const pm_batch *b, size_t i, char **line, pm_batch_outcome *outcome,
		       pm_error *err)
{
	const struct pm__job *j;
	const char *usage_of = NULL;
	char msg[sizeof(((pm_error *)0)->file) + sizeof(((pm_error *)0)->msg) + 64];
	pm_error jerr = { 0 };

	if (!b || !line || !outcome || i >= b->n)
		return pm__fail(err, PM_EINVAL, "pm_batch_run: %s", !b ? "no batch"
				: i >= b->n ? "no such job" : "no place for the line");
	j = &b->job[i];
	*line = NULL;
	*outcome = PM_BATCH_FAILED;
	if (j->error)
		return pm_batch_line_to_json(&j->id, NULL, j->error, 0, line, err);
	if (!run_job(b, j, line, &jerr, &usage_of)) {
		*outcome = PM_BATCH_MODEL;
		/* a model the stop touched (the fit, or the calibration of its
		 * intervals) is no whole fit */
		if (!(b->stop && *b->stop))
			return PM_OK;
	}
	free(*line);
	*line = NULL;
	/* a stop, whatever the job says: it is to be run again */
	if (b->stop && *b->stop) {
		*outcome = PM_BATCH_STOPPED;
		return PM_OK;
	}
	*outcome = PM_BATCH_FAILED;
	job_message(&jerr, usage_of, msg, sizeof(msg));
	return pm_batch_line_to_json(&j->id, NULL, msg, 0, line, err);
}
