/* --each-region's jobs (perfmodel/batch.h): one per region × metric of a
 * profile, each the command line `COMMAND PROFILE --region R --metric M`
 * with the options every job shares. */
#include <stdlib.h>
#include <string.h>

#include "batch/batch_impl.h"
#include "core/error.h"

pm_status pm_batch_check_shared(const char *profile, int argc, char *const *argv,
				pm_error *err)
{
	/* the scan reads from element 1: element 0 stands for the command */
	pm_arg_scan s = pm_arg_scan_start(argc + 1, argc ? argv - 1 : argv);
	const char *operand = NULL;
	pm_arg arg;
	pm_error scan;
	pm_status st;

	if (!profile || (argc && !argv))
		return pm__fail(err, PM_EINVAL, "pm_batch_check_shared: no %s",
				!profile ? "profile" : "options");
	while (!(st = pm_arg_next(&s, &arg, &scan)) && (arg.option || arg.value)) {
		unsigned flags = arg.option ? arg.option->flags : 0;

		if (!arg.option)
			operand = operand ? operand : arg.value;
		else if (flags & PM_OPTION_IDENTITY)
			return pm__fail(err, PM_EINVAL, "--%s after --: each job's region and metric "
					"are its pair of %s, its target the metric", arg.option->name,
					profile);
		else if (flags & PM_OPTION_HELP)
			return pm__fail(err, PM_EINVAL, "--help after --: a job prints no usage");
		else if (flags & PM_OPTION_OUTPUT)
			return pm__fail(err, PM_EINVAL, "--%s after --: not an option of a batch job: "
					"the models go into the results", arg.option->name);
	}
	if (st)
		return pm__fail(err, PM_EINVAL, "'%s' after --: %s", arg.text,
				!arg.option ? "not an option of fit"
				: arg.option->takes_value ? "needs a value" : "takes no value");
	if (operand)
		return pm__fail(err, PM_EINVAL, "'%s' after --: every job reads %s", operand, profile);
	return PM_OK;
}

/* Pair i's job: argv as a jobs file's (command, --threads, the pair, the
 * shared options, "--", the profile). 0, or -1 when out of memory. */
static int region_job(const pm_batch *b, const char *command, const char *threads, size_t i,
		      struct pm__job *j)
{
	const pm_region_list *l = b->regions->list;
	size_t n = strlen(l->region[i]) + strlen(l->metric[i]) + (threads ? strlen(threads) : 0) + 16;
	char *text = malloc(n);
	int rc = -1;

	j->line = (unsigned)i + 1;
	j->argv = calloc((size_t)b->regions->argc + 7, sizeof(*j->argv));
	j->id.given = 1;
	j->size = 1;
	if (!text || !j->argv || pm__job_push(j, command))
		goto out;
	if (threads && (pm_snprintf(text, n, "--threads=%s", threads), pm__job_push(j, text)))
		goto out;
	pm_snprintf(text, n, "--region=%s", l->region[i]);
	if (pm__job_push(j, text))
		goto out;
	pm_snprintf(text, n, "--metric=%s", l->metric[i]);
	if (pm__job_push(j, text))
		goto out;
	for (int k = 0; k < b->regions->argc; k++)
		if (pm__job_push(j, b->regions->argv[k]))
			goto out;
	if (pm__job_push(j, "--") || pm__job_push(j, b->path))
		goto out;
	pm_snprintf(text, n, "%s/%s", l->region[i], l->metric[i]);
	j->id.text = text;
	text = NULL;
	rc = 0;
out:
	free(text);
	return rc;
}

/* b's regions: the list of path and a copy of the shared options. */
static pm_status regions_new(pm_batch *b, int argc, char *const *argv, pm_error *err)
{
	struct pm__regions *r = calloc(1, sizeof(*r));
	pm_status st;

	if (!r)
		return pm__fail(err, PM_ENOMEM, "out of memory");
	pthread_mutex_init(&r->mu, NULL);
	b->regions = r;
	if ((st = pm_region_list_read(b->path, PM_FORMAT_AUTO, &r->list, err)))
		return st;
	if (!(r->argv = calloc((size_t)argc + 1, sizeof(*r->argv))))
		return pm__fail(err, PM_ENOMEM, "out of memory");
	for (; r->argc < argc; r->argc++)
		if (!(r->argv[r->argc] = strdup(argv[r->argc])))
			return pm__fail(err, PM_ENOMEM, "out of memory");
	return PM_OK;
}

pm_status pm_batch_regions(const char *profile, pm_command command, int argc,
			   char *const *argv, const pm_batch_options *o, pm_batch **out,
			   pm_error *err)
{
	pm_batch *b;
	pm_status st;

	if (!out)
		return pm__fail(err, PM_EINVAL, "pm_batch_regions: no place for the batch");
	*out = NULL;
	if ((st = pm_batch_check_shared(profile, argc, argv, err)))
		return st;
	if (!(b = pm__batch_new(profile, o)))
		return pm__fail(err, PM_ENOMEM, "out of memory");
	(void)stat(profile, &b->file);	/* else the list's reading says why */
	if ((st = regions_new(b, argc, argv, err)))
		goto fail;
	if (!(b->job = calloc(b->regions->list->n + 1, sizeof(*b->job)))) {
		st = pm__fail(err, PM_ENOMEM, "out of memory");
		goto fail;
	}
	for (size_t i = 0; i < b->regions->list->n; i++) {
		b->job[b->n++].command = command;
		if (region_job(b, pm__command_name(command), o ? o->threads : NULL, i, &b->job[i])) {
			st = pm__fail(err, PM_ENOMEM, "out of memory");
			goto fail;
		}
	}
	if ((st = pm__batch_check_ids(b, err)))
		goto fail;
	*out = b;
	return PM_OK;
fail:
	pm_batch_free(b);
	return st;
}
