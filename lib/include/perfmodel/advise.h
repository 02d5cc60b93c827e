/* perfmodel/advise.h: from a model to a decision, in the predictor library
 * (libperfmodel-predict, no GSL): a whole job's time from a model of one
 * iteration, which configuration to run (perfmodel advise), and the time
 * limits a Slurm job asks for (advise --slurm, slurm/'s job_submit plugin).
 * perfmodel/predict.h includes it. */
#ifndef PERFMODEL_ADVISE_H
#define PERFMODEL_ADVISE_H

#include <stddef.h>
#include <stdint.h>

#include "perfmodel/predict.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- whole jobs (docs/maths.md, "Whole jobs") -----------------------------
 * A model of one iteration's time (a training step, a solver sweep) and a
 * job that runs N of them after a start-up: the job's time is
 *     T(x) = setup + N · t(x),
 * in the model's time unit, and its q-quantile setup + N · t_q(x). What
 * that assumes about the errors: a row of the data is a run's time per
 * iteration (a median or mean of its iterations), so its held-out residual
 * is the error of a run as a whole, the model's at that configuration and
 * the run's conditions (load, placement), which every iteration of one job
 * shares; the iterations' own jitter, which would partly cancel over N, is
 * averaged inside each row already. Summing N independent draws instead
 * would narrow the interval sqrt(N) times, and a limit from it would kill
 * most jobs of a configuration the model misses. */
typedef struct pm_job {
	double iterations;	/* N > 0 (whole or not); 1: the model's time is the job's */
	double setup;		/* >= 0, once per job, in the model's time unit */
} pm_job;

/* {1, 0}: a job of one run of the model's time. */
PM_API pm_job pm_job_default(void);
/* The job's time (q = 0: from the prediction) or its q-quantile (0 < q <
 * 1, a model with intervals) at x into *value. job NULL: pm_job_default().
 * PM_EINVAL: a NULL m, x (of a model with inputs) or value, iterations not
 * finite and > 0, setup not finite and >= 0, a job other than the default
 * of a model of a target kind (its times are relative), and
 * pm_model_predict_quantile's errors; PM_ERANGE: T not finite.
 * Reentrant, allocation-free. */
PM_API pm_status pm_job_time(const pm_model *m, const double *x, const pm_job *job, double q,
			     double *value, pm_error *err);

/* ---- advice: which configuration to run ------------------------------------
 * pm_model_advise predicts every combination of values of up to
 * PM_ADVISE_MAX_VARY varied inputs, the others held at a point, and picks
 * three by predicted time (for a target kind, its time scale, which is
 * proportional to the run time: 1/S, 1/(n·E), per/X): the fastest, the cheapest (resource × time, the resource being one
 * of the varied inputs: GPUs, threads, processes) and the largest resource
 * count whose parallel efficiency is at least a threshold. Speedup and
 * efficiency of a combination are against the smallest resource value with
 * the same values of the other varied inputs (pm_model_speedup).
 * Risk-aware advice (quantile > 0, a model with intervals): every pick is
 * ranked by the q-quantile time (pm_model_predict_quantile) instead of the
 * prediction, and its cost is resource × that quantile; the speedup and
 * efficiency stay the predictions' (the quantile's widening beyond the
 * data would otherwise count as lost efficiency). */
#define PM_ADVISE_MAX_VARY 8

typedef struct pm_vary {
	size_t input;		/* a numeric input of the model, by position */
	size_t n;		/* 1 or more values */
	const double *values;	/* n finite values > 0, any order */
} pm_vary;

typedef struct pm_advise_options {
	size_t resource;	/* index into the vary list: the input counted in the
				 * cost and the speedup (0: the first varied input) */
	double min_efficiency;	/* the threshold of "largest", in (0, 1]; 0.7 */
	size_t max_combinations;	/* refuse larger searches (PM_EINVAL); 10^7 */
	double quantile;	/* rank by the q-quantile time, 0 < q < 1; 0: by the
				 * prediction (the default) */
	/* leave out the combinations beyond this factor of the fitted data:
	 * a numeric input's value over the largest fitted, or the smallest
	 * fitted over it (pm_advice_pick.beyond); >= 1, 0: no limit; 2 (the
	 * default). Only a model with intervals keeps its fitted ranges: for
	 * one without, nothing is left out and pm_advice.ranges is 0. */
	double max_extrapolation;
	/* the job a configuration runs (pm_job): its time, cost, speedup and
	 * efficiency are the job's, setup included; {1, 0}: the model's */
	pm_job job;
} pm_advise_options;

PM_API pm_advise_options pm_advise_options_default(void);

typedef struct pm_advice_pick {
	int found;		/* 0: no combination qualifies (only "largest") */
	double value[PM_ADVISE_MAX_VARY];	/* the varied inputs' values, vary order */
	double time;		/* predicted time (a target kind's time scale) */
	double cost;		/* resource value × time (× quantile_time with a quantile) */
	double speedup, efficiency;
	/* the prediction in the target's own quantity (pm_model_predict_target):
	 * time again for a time model, the speedup of a speedup model, ... */
	double predicted;
	/* with a quantile (pm_advise_options.quantile > 0), the q-quantile
	 * time that ranked it; else NaN */
	double quantile_time;
	/* how far it lies beyond the fitted data: the largest factor over the
	 * numeric inputs (pm_advise_options.max_extrapolation's; 1 inside
	 * every fitted range, infinite where a range or value is not > 0),
	 * beyond_input the model's input of it (0 inside) and beyond_value
	 * its value there; beyond NaN without ranges */
	double beyond;
	size_t beyond_input;
	double beyond_value;
} pm_advice_pick;

typedef struct pm_advice {
	size_t combinations;	/* how many were predicted */
	/* 1: the model keeps its fitted ranges (it has intervals), so picks
	 * say how far beyond they lie and max_extrapolation applies */
	int ranges;
	size_t left_beyond;	/* combinations left out beyond max_extrapolation */
	/* ties: fastest prefers the cheaper, cheapest the faster, largest the
	 * faster; then the earlier combination in vary order */
	pm_advice_pick fastest, cheapest, largest;
} pm_advice;

/* Search the combinations of vary[0..nvary) with the other inputs at x (as
 * for pm_model_predict; varied positions are ignored), less those beyond
 * opt->max_extrapolation of the fitted data. On success fills *out. m, x,
 * vary (and each entry's values) and out are needed; opt may be NULL:
 * pm_advise_options_default(). Errors: PM_EINVAL for a NULL argument, a bad
 * vary list or options (an input twice, a categorical input, no values, a
 * value not finite and > 0, too many combinations, a quantile not 0 or in
 * (0, 1), a quantile of a model without intervals or beyond what they
 * calibrate: the messages of pm_model_predict_quantile, a
 * max_extrapolation not 0 or >= 1), PM_EDOMAIN when every combination lies
 * beyond max_extrapolation (naming the nearest), else the first prediction
 * error, naming the combination.
 * Reentrant on m; allocates one copy of x per call. */
PM_API pm_status pm_model_advise(const pm_model *m, const double *x, const pm_vary *vary,
				 size_t nvary, const pm_advise_options *opt, pm_advice *out,
				 pm_error *err);

/* ---- Slurm (advise --slurm; docs/cli.md "advise") --------------------------
 * A time limit for sbatch --time or --time-min: `seconds` rounded up to
 * whole minutes (Slurm's resolution; at least 1, since 0 means no limit),
 * written into out as HH:MM:SS under a day ("00:43:00") and D-HH:MM:SS from
 * one ("1-02:03:00"), both formats sbatch reads; *minutes (may be NULL)
 * gets the minutes. Beyond PM_SLURM_MAX_MINUTES, the longest limit Slurm
 * reads, out is "UNLIMITED" and *minutes 0 (Slurm's own "no limit"): the
 * caller should say so. PM_EINVAL: out is NULL, seconds not finite and
 * >= 0. On error neither output is written. Reentrant, allocation-free. */
#define PM_SLURM_TIME_CHARS 32
/* sbatch reads a limit into an int of seconds (time_str2secs in Slurm's
 * src/common/parse_time.c: d * 86400 + h * 3600 + m * 60 + s), then rounds
 * it up to minutes as (secs + 59) / 60, also in an int: the longest limit
 * that overflows neither is INT32_MAX - 59 seconds, 35791393 whole minutes,
 * "24855-03:13:00". A longer one wraps around to a negative or short limit
 * (issue 34: --time=139393-07:11:00). */
#define PM_SLURM_MAX_MINUTES 35791393
PM_API pm_status pm_slurm_time(double seconds, char out[PM_SLURM_TIME_CHARS], uint64_t *minutes,
			       pm_error *err);
/* The sbatch option whose count a column of that name holds, matched
 * without regard to ASCII case: "--nodes" (nodes, num_nodes), "--ntasks"
 * (ntasks, tasks, ranks, processes, procs, world_size, workers),
 * "--cpus-per-task" (threads, cpus, cpus_per_task, omp_num_threads),
 * "--gpus" (gpus, num_gpus); NULL for another name or NULL. Static text. */
PM_API const char *pm_slurm_option(const char *column);
/* The time limits advise --slurm asks for at configuration x of m (a model
 * of a run time with prediction intervals): the time_q-quantile (--time)
 * and min_q-quantile (--time-min) of the job (pm_job_time; job NULL: one
 * run of the model's time), each times unit_s (seconds per unit of the
 * model's times) and as pm_slurm_time writes them, and x's distance
 * beyond the data (pm_model_extrapolation). A limit at quantile q kills at
 * most 1 - q of such runs (rounding up only lowers it). A quantile beyond
 * Slurm's longest limit is "UNLIMITED", its minutes 0. */
typedef struct pm_slurm_limits {
	double time_s, time_min_s;	/* the quantiles in seconds, unrounded */
	uint64_t time_minutes, time_min_minutes;
	char time[PM_SLURM_TIME_CHARS], time_min[PM_SLURM_TIME_CHARS];
	double distance;		/* 0 inside the data's ranges */
	int extrapolated;
} pm_slurm_limits;
/* Fill *out. PM_EINVAL: a NULL argument (but job), a model of a target kind
 * (its times are relative: "a time limit needs a model of a run time ..."),
 * unit_s not finite and > 0, min_q above time_q, pm_job_time's and
 * pm_model_predict_quantile's errors (no intervals, a quantile beyond
 * them); PM_ERANGE: a quantile times unit_s is more seconds than a double
 * holds; else pm_slurm_time's and the predictor's. *out is unchanged on
 * error. Reentrant, allocation-free. */
PM_API pm_status pm_slurm_limits_at(const pm_model *m, const double *x, const pm_job *job,
				    double time_q, double min_q, double unit_s,
				    pm_slurm_limits *out, pm_error *err);

#ifdef __cplusplus
}
#endif
#endif
