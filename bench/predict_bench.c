/* Batch-prediction throughput of libperfmodel-predict: pm_model_predict_batch()
 * over random points, from T threads at once on one model, then
 * pm_model_predict() point by point on the same points.
 *
 * usage: predict_bench MODEL.json [POINTS] [THREADS]
 * prints one JSON line: {"threads": T, "points": N, "seconds": s,
 * "points_per_s_per_thread": r, "single_seconds": s1,
 * "single_points_per_s_per_thread": r1, "cpu_points_per_s_per_thread": rc,
 * "cpu_single_points_per_s_per_thread": rc1, "checksum": c}
 * (seconds and points_per_s_per_thread: the batch, in wall time; cpu_*:
 * the same in CPU time per thread, what a loaded machine distorts least;
 * checksum: the batch's sum, the single points' differences from it
 * added, 0 each)
 *
 * Points are drawn before timing (numeric inputs log-uniform in [1, 4096],
 * categorical ones a uniform level), so that the timing is of prediction
 * alone. Each thread predicts every point; the checksum keeps the compiler
 * from dropping the work. The bench links libperfmodel-predict only: what a
 * scheduler links. */
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_points.h"
#include "perfmodel/predict.h"

struct worker {
	const pm_model *m;
	const double *x;
	size_t npoints, ninputs;
	double *out;		/* npoints */
	int single;		/* point by point, against out */
	double sum;
	int failed;
};

static void *predict_all(void *arg)
{
	struct worker *w = arg;
	double sum = 0.0, y;

	if (!w->single) {
		w->failed = pm_model_predict_batch(w->m, w->x, w->npoints, w->out, NULL) != PM_OK;
		for (size_t i = 0; i < w->npoints; i++)
			sum += w->out[i];
		w->sum = sum;
		return NULL;
	}
	for (size_t i = 0; i < w->npoints; i++) {
		if (pm_model_predict(w->m, w->x + i * w->ninputs, &y, NULL) != PM_OK) {
			w->failed = 1;
			return NULL;
		}
		sum += y - w->out[i];
	}
	w->sum = sum;
	return NULL;
}

/* CPU time of the process: on a loaded machine, wall time also counts
 * waiting for a core. */
static double cpu_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Every worker's predict_all at once; the wall time, or -1 on a failure;
 * *cpu the CPU time per thread. */
static double run(struct worker *w, pthread_t *th, unsigned nthreads, double *cpu)
{
	double t0 = bench_now(), c0 = cpu_now(), t1;
	unsigned started = 1;

	for (unsigned k = 1; k < nthreads; k++, started++)
		if (pthread_create(&th[k], NULL, predict_all, &w[k]) != 0) {
			fprintf(stderr, "predict_bench: cannot start a thread\n");
			break;
		}
	predict_all(&w[0]);
	for (unsigned k = 1; k < started; k++)
		pthread_join(th[k], NULL);
	t1 = bench_now();
	*cpu = (cpu_now() - c0) / nthreads;
	for (unsigned k = 0; k < nthreads; k++)
		if (k >= started || w[k].failed) {
			fprintf(stderr, "predict_bench: a prediction failed\n");
			return -1;
		}
	return t1 - t0;
}

int main(int argc, char **argv)
{
	pm_model *m = NULL;
	pm_error err = { 0 };
	size_t npoints = argc > 2 ? strtoul(argv[2], NULL, 10) : 1000000;
	unsigned nthreads = argc > 3 ? (unsigned)strtoul(argv[3], NULL, 10) : 1;
	size_t ninputs;
	double *x, *out = NULL, tb, ts, cb, cs, sum = 0.0;
	struct worker *w;
	pthread_t *th;
	int rc = 1;

	if (argc < 2 || npoints == 0 || nthreads == 0) {
		fprintf(stderr, "usage: predict_bench MODEL.json [POINTS] [THREADS]\n");
		return 2;
	}
	if (pm_model_load_file(argv[1], &m, &err) != PM_OK) {
		fprintf(stderr, "predict_bench: %s\n", err.msg);
		return 1;
	}
	ninputs = pm_model_ninputs(m);
	x = malloc(npoints * ninputs * sizeof(*x));
	out = malloc((size_t)nthreads * npoints * sizeof(*out));
	w = calloc(nthreads, sizeof(*w));
	th = calloc(nthreads, sizeof(*th));
	if (!x || !out || !w || !th) {
		fprintf(stderr, "predict_bench: out of memory\n");
		goto out;
	}
	bench_points(m, x, npoints);
	/* written once before timing: a scheduler reuses its output array, so
	 * the kernel's first-touch page faults on it are not prediction's */
	memset(out, 0, (size_t)nthreads * npoints * sizeof(*out));
	for (unsigned k = 0; k < nthreads; k++)
		w[k] = (struct worker){ m, x, npoints, ninputs, out + (size_t)k * npoints, 0, 0.0, 0 };
	if ((tb = run(w, th, nthreads, &cb)) < 0)
		goto out;
	for (unsigned k = 0; k < nthreads; k++) {
		sum += w[k].sum;
		w[k].single = 1;
	}
	if ((ts = run(w, th, nthreads, &cs)) < 0)
		goto out;
	for (unsigned k = 0; k < nthreads; k++)
		sum += w[k].sum;
	printf("{\"threads\": %u, \"points\": %zu, \"seconds\": %.6f, "
	       "\"points_per_s_per_thread\": %.6g, \"single_seconds\": %.6f, "
	       "\"single_points_per_s_per_thread\": %.6g, \"cpu_points_per_s_per_thread\": %.6g, "
	       "\"cpu_single_points_per_s_per_thread\": %.6g, \"checksum\": %.17g}\n",
	       nthreads, npoints, tb, (double)npoints / tb, ts, (double)npoints / ts,
	       (double)npoints / cb, (double)npoints / cs, sum);
	rc = 0;
out:
	free(x);
	free(out);
	free(w);
	free(th);
	pm_model_free(m);
	return rc;
}
