/* A toy scheduler: load a model once, then for each job in a queue pick how
 * many workers to give it. Built by meson and run as a test; see
 * docs/embedding.md. Build it on its own with
 *
 *	cc scheduler.c $(pkg-config --cflags --libs perfmodel-predict) -o scheduler
 *	./scheduler ddp_mlp_model.json
 *
 * The policy: the most workers whose parallel efficiency stays at 60 % or
 * more (pm_model_advise's "largest"), and the job's predicted time there. */
#include <stdio.h>
#include <stdlib.h>

#include <perfmodel/predict.h>

/* Jobs as a launcher might receive them: the model's intrinsic inputs
 * and the batch size, as JSON. */
static const char *const queue[] = {
	"{\"hidden\": 64,   \"layers\": 2, \"input_dim\": 256, \"activation\": \"relu\", \"batch_size\": 32}",
	"{\"hidden\": 1024, \"layers\": 3, \"input_dim\": 784, \"activation\": \"tanh\", \"batch_size\": 128}",
	"{\"hidden\": 256,  \"layers\": 4, \"input_dim\": 784, \"activation\": \"relu\", \"batch_size\": 64}",
};

static int fail(const char *what, const pm_error *err)
{
	fprintf(stderr, "scheduler: %s: %s%s%s\n", what, err->file, err->file[0] ? ": " : "",
		err->msg);
	return EXIT_FAILURE;
}

int main(int argc, char **argv)
{
	static const double workers[] = { 1, 2, 4, 8, 16 };
	pm_model *m = NULL;
	pm_point *job = NULL;
	pm_error err = { 0 };
	pm_vary vary = { 0, sizeof(workers) / sizeof(workers[0]), workers };
	pm_advise_options opt = pm_advise_options_default();
	double q;
	int rc = EXIT_FAILURE;

	if (argc != 2) {
		fprintf(stderr, "usage: scheduler MODEL.json\n");
		return 2;
	}
	/* once, at start-up: the model is immutable from here on, and could be
	 * shared by every thread of the scheduler */
	if (pm_model_load_file(argv[1], &m, &err)) {
		rc = fail("loading the model", &err);
		goto out;
	}
	/* one point per thread, reused for every job */
	if (pm_point_new(m, &job, &err) ||
	    pm_model_input_index(m, "world_size", &vary.input, &err) ||
	    pm_model_scaling_exponent(m, vary.input, &q, &err)) {
		rc = fail(argv[1], &err);
		goto out;
	}
	printf("%s predicts %s; time grows as world_size^%.3f\n", argv[1], pm_model_target(m), q);
	opt.min_efficiency = 0.6;
	for (size_t k = 0; k < sizeof(queue) / sizeof(queue[0]); k++) {
		pm_advice a;
		double t1;

		pm_point_clear(job);
		if (pm_point_set_json(job, queue[k], "job", &err) ||
		    pm_point_set_num(job, "world_size", 1, &err) ||
		    pm_model_predict_point(m, job, &t1, &err) ||
		    pm_model_advise(m, pm_point_values(job), &vary, 1, &opt, &a, &err)) {
			rc = fail("a job", &err);
			goto out;
		}
		printf("job %zu: %g s alone; run it on %g workers: %g s (speedup %.2f, "
		       "efficiency %.2f)\n", k + 1, t1, a.largest.value[0], a.largest.time,
		       a.largest.speedup, a.largest.efficiency);
	}
	rc = EXIT_SUCCESS;
out:
	pm_point_free(job);
	pm_model_free(m);
	return rc;
}
