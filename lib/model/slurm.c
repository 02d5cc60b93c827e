/* Slurm's side of advise --slurm (predict.h): a time limit in sbatch's
 * format, the limits at a configuration, and the option a column's count
 * maps to. Nothing printed: the CLI writes the #SBATCH lines, and
 * pm_advice_slurm_to_json the JSON. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "core/error.h"
#include "model/model_impl.h"

pm_status pm_slurm_time(double seconds, char out[PM_SLURM_TIME_CHARS], uint64_t *minutes,
			pm_error *err)
{
	double min;
	uint64_t m, d, h;

	if (!out)
		return pm__fail(err, PM_EINVAL, "pm_slurm_time: out is NULL");
	if (!(seconds >= 0) || !isfinite(seconds))
		return pm__fail(err, PM_EINVAL, "a time limit of %g s is not a finite number >= 0",
				seconds);
	/* Slurm's resolution is a minute, and a limit of 0 means none */
	min = fmax(ceil(seconds / 60.0), 1.0);
	if (min > PM_SLURM_MAX_MINUTES) {
		/* longer than sbatch can read (predict.h): no limit, which it can */
		pm_snprintf(out, PM_SLURM_TIME_CHARS, "UNLIMITED");
		if (minutes)
			*minutes = 0;
		return PM_OK;
	}
	m = (uint64_t)min;
	d = m / 1440;
	h = m % 1440 / 60;
	/* HH:MM:SS under a day, D-HH:MM:SS from one: both sbatch formats,
	 * never a bare number, which reads as seconds to the unwary */
	if (d)
		pm_snprintf(out, PM_SLURM_TIME_CHARS, "%llu-%02llu:%02llu:00", (unsigned long long)d,
			    (unsigned long long)h, (unsigned long long)(m % 60));
	else
		pm_snprintf(out, PM_SLURM_TIME_CHARS, "%02llu:%02llu:00", (unsigned long long)h,
			    (unsigned long long)(m % 60));
	if (minutes)
		*minutes = m;
	return PM_OK;
}

/* a and b equal but for the case of ASCII letters (strcasecmp follows the
 * locale) */
static int same_name(const char *a, const char *b)
{
	for (; *a && *b; a++, b++) {
		char x = *a >= 'A' && *a <= 'Z' ? (char)(*a - 'A' + 'a') : *a;
		char y = *b >= 'A' && *b <= 'Z' ? (char)(*b - 'A' + 'a') : *b;

		if (x != y)
			return 0;
	}
	return *a == *b;
}

const char *pm_slurm_option(const char *column)
{
	static const struct {
		const char *name, *option;
	} map[] = {
		{ "nodes", "--nodes" },		{ "num_nodes", "--nodes" },
		{ "ntasks", "--ntasks" },	{ "tasks", "--ntasks" },
		{ "ranks", "--ntasks" },	{ "processes", "--ntasks" },
		{ "procs", "--ntasks" },	{ "world_size", "--ntasks" },
		{ "workers", "--ntasks" },	{ "threads", "--cpus-per-task" },
		{ "cpus", "--cpus-per-task" },	{ "cpus_per_task", "--cpus-per-task" },
		{ "omp_num_threads", "--cpus-per-task" },
		{ "gpus", "--gpus" },		{ "num_gpus", "--gpus" },
	};

	for (size_t k = 0; column && k < sizeof(map) / sizeof(map[0]); k++)
		if (same_name(column, map[k].name))
			return map[k].option;
	return NULL;
}

pm_status pm_slurm_limits_at(const pm_model *m, const double *x, const pm_job *job,
			     double time_q, double min_q, double unit_s, pm_slurm_limits *out,
			     pm_error *err)
{
	pm_slurm_limits l = { 0 };
	double tq, tm;
	pm_status st;

	if (!m || (!x && m->ninputs) || !out)
		return pm__fail(err, PM_EINVAL, "pm_slurm_limits_at: a NULL argument");
	if (m->kind != PM_TARGET_TIME)
		return pm__fail(err, PM_EINVAL, "a time limit needs a model of a run time: the "
				"model's target is a %s (its times are relative)",
				pm_target_kind_name(m->kind));
	if (!(unit_s > 0) || !isfinite(unit_s))
		return pm__fail(err, PM_EINVAL, "a time unit of %g s is not a finite number > 0",
				unit_s);
	/* --time-min is the lower limit: Slurm refuses one above --time */
	if (!(min_q <= time_q))
		return pm__fail(err, PM_EINVAL, "the --time-min quantile %g is above the --time "
				"quantile %g", min_q, time_q);
	if ((st = pm_job_time(m, x, job, time_q, &tq, err)) ||
	    (st = pm_job_time(m, x, job, min_q, &tm, err)) ||
	    (st = pm_model_extrapolation(m, x, &l.distance, &l.extrapolated, err)))
		return st;
	l.time_s = tq * unit_s;
	l.time_min_s = tm * unit_s;
	if (!isfinite(l.time_s))
		return pm__fail(err, PM_ERANGE, "the %g-quantile time, %g times %g s, is more "
				"seconds than a double holds", time_q, tq, unit_s);
	if ((st = pm_slurm_time(l.time_s, l.time, &l.time_minutes, err)) ||
	    (st = pm_slurm_time(l.time_min_s, l.time_min, &l.time_min_minutes, err)))
		return st;
	*out = l;
	return PM_OK;
}
