/* Throughput of the embedding calls of libperfmodel-predict on one thread:
 * pm_model_predict_batch over N points, and by name (pm_point_set_num /
 * set_cat for every input, then pm_model_predict_point) point after point.
 *
 * usage: point_bench MODEL.json [POINTS]
 * prints one JSON line: {"points": N, "batch_points_per_s": r,
 * "by_name_points_per_s": r, "checksum": c}
 *
 * Points are drawn before timing (bench_points.h); the by-name loop sets
 * every input of every point from those values, as a scheduler filling a
 * job description would. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_points.h"
#include "perfmodel/predict.h"

int main(int argc, char **argv)
{
	pm_model *m = NULL;
	pm_point *p = NULL;
	pm_error err = { 0 };
	size_t n = argc > 2 ? strtoul(argv[2], NULL, 10) : 1000000, ni;
	double *x, *out, t0, t1, t2, sum = 0.0;

	if (argc < 2 || n == 0) {
		fprintf(stderr, "usage: point_bench MODEL.json [POINTS]\n");
		return 2;
	}
	if (pm_model_load_file(argv[1], &m, &err) || pm_point_new(m, &p, &err)) {
		fprintf(stderr, "point_bench: %s\n", err.msg);
		return 1;
	}
	ni = pm_model_ninputs(m);
	x = malloc(n * ni * sizeof(*x));
	out = malloc(n * sizeof(*out));
	if (!x || !out)
		return 1;
	bench_points(m, x, n);
	memset(out, 0, n * sizeof(*out));	/* first-touch page faults: not prediction's */
	t0 = bench_now();
	if (pm_model_predict_batch(m, x, n, out, &err))
		goto fail;
	t1 = bench_now();
	for (size_t k = 0; k < n; k++) {
		double y;

		for (size_t i = 0; i < ni; i++) {
			const char *name = pm_model_input_name(m, i);
			double v = x[k * ni + i];

			if (pm_model_nlevels(m, i) ? pm_point_set_cat(p, name,
								      pm_model_level_name(m, i, (size_t)v),
								      &err)
						   : pm_point_set_num(p, name, v, &err))
				goto fail;
		}
		if (pm_model_predict_point(m, p, &y, &err))
			goto fail;
		sum += y - out[k];	/* 0: by name equals the batch */
	}
	t2 = bench_now();
	printf("{\"points\": %zu, \"batch_points_per_s\": %.4g, \"by_name_points_per_s\": %.4g, "
	       "\"checksum\": %.17g}\n", n, (double)n / (t1 - t0), (double)n / (t2 - t1), sum);
	free(x);
	free(out);
	pm_point_free(p);
	pm_model_free(m);
	return 0;
fail:
	fprintf(stderr, "point_bench: %s\n", err.msg);
	return 1;
}
