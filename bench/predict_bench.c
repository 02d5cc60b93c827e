/* Batch-prediction throughput of libperfmodel-predict: pm_model_predict()
 * by position on random points, from T threads at once on one model.
 *
 * usage: predict_bench MODEL.json [POINTS] [THREADS]
 * prints one JSON line: {"threads": T, "points": N, "seconds": s,
 * "points_per_s_per_thread": r, "checksum": c}
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
#include <time.h>

#include "bench_points.h"
#include "perfmodel/predict.h"

struct worker {
	const pm_model *m;
	const double *x;
	size_t npoints, ninputs;
	double sum;
	int failed;
};

static void *predict_all(void *arg)
{
	struct worker *w = arg;
	double sum = 0.0, y;

	for (size_t i = 0; i < w->npoints; i++) {
		if (pm_model_predict(w->m, w->x + i * w->ninputs, &y, NULL) != PM_OK) {
			w->failed = 1;
			return NULL;
		}
		sum += y;
	}
	w->sum = sum;
	return NULL;
}

int main(int argc, char **argv)
{
	pm_model *m = NULL;
	pm_error err = { 0 };
	size_t npoints = argc > 2 ? strtoul(argv[2], NULL, 10) : 1000000;
	unsigned nthreads = argc > 3 ? (unsigned)strtoul(argv[3], NULL, 10) : 1;
	size_t ninputs;
	double *x, t0, t1, sum = 0.0;
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
	w = calloc(nthreads, sizeof(*w));
	th = calloc(nthreads, sizeof(*th));
	if (!x || !w || !th) {
		fprintf(stderr, "predict_bench: out of memory\n");
		goto out;
	}
	bench_points(m, x, npoints);
	for (unsigned k = 0; k < nthreads; k++)
		w[k] = (struct worker){ m, x, npoints, ninputs, 0.0, 0 };
	t0 = bench_now();
	for (unsigned k = 1; k < nthreads; k++)
		if (pthread_create(&th[k], NULL, predict_all, &w[k]) != 0) {
			fprintf(stderr, "predict_bench: cannot start a thread\n");
			goto out;
		}
	predict_all(&w[0]);
	for (unsigned k = 1; k < nthreads; k++)
		pthread_join(th[k], NULL);
	t1 = bench_now();
	for (unsigned k = 0; k < nthreads; k++) {
		if (w[k].failed) {
			fprintf(stderr, "predict_bench: a prediction failed\n");
			goto out;
		}
		sum += w[k].sum;
	}
	printf("{\"threads\": %u, \"points\": %zu, \"seconds\": %.6f, "
	       "\"points_per_s_per_thread\": %.6g, \"checksum\": %.17g}\n",
	       nthreads, npoints, t1 - t0, (double)npoints / (t1 - t0), sum);
	rc = 0;
out:
	free(x);
	free(w);
	free(th);
	pm_model_free(m);
	return rc;
}
