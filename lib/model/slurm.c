/* Slurm's side of advise --slurm (predict.h): a time limit in sbatch's
 * format and the option a column's count maps to. Text only, nothing
 * printed: the CLI writes the #SBATCH lines. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "core/error.h"
#include "model/model_impl.h"

/* Slurm keeps a limit in minutes as a uint32_t, its two largest values
 * meaning "infinite" and "no value": the largest limit a job can ask for. */
#define MAX_MINUTES 4294967293.0

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
	if (min > MAX_MINUTES)
		return pm__fail(err, PM_ERANGE, "a time limit of %g s is more than Slurm can hold "
				"(%.0f minutes)", seconds, MAX_MINUTES);
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
