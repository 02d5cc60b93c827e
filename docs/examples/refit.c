/* The refit loop of docs/embedding.md: a scheduler refits its model as
 * measurements arrive, each fit warm-started from the model the last one
 * saved. Here the measurements "arrive" as the first third, two thirds and
 * all of the rows of DATA.csv.
 *
 * usage: refit DATA.csv SPEC.json MODEL.json
 * Exits 1 unless every refit after the first was warm-started. */
#include <perfmodel/perfmodel.h>
#include <stdio.h>
#include <stdlib.h>

/* Fit rows and save the model to path, starting from the model saved there
 * before when there is one. */
static pm_status refit(const pm_dataset *rows, const pm_spec *spec, const char *path,
		       pm_error *err)
{
	pm_fit_options o = pm_fit_options_default();
	pm_model *earlier = NULL, *m = NULL;
	pm_status st;

	/* no model yet (or an unreadable one): a cold fit */
	if (pm_model_load_file(path, &earlier, NULL) == PM_OK)
		o.warm_start = earlier;
	st = pm_fit(rows, spec, &o, &m, err);
	/* a model of other inputs (the spec changed): start afresh */
	if (st == PM_ESCHEMA && o.warm_start) {
		o.warm_start = NULL;
		st = pm_fit(rows, spec, &o, &m, err);
	}
	if (st == PM_OK)
		st = pm_model_save_file(m, path, err);	/* atomic: readers see old or new */
	pm_model_free(m);
	pm_model_free(earlier);	/* only read during pm_fit */
	return st;
}

int main(int argc, char **argv)
{
	pm_dataset *all = NULL, *rows = NULL;
	pm_spec *spec = NULL;
	pm_model *m = NULL;
	pm_error err = { 0 };
	size_t *idx = NULL, n;
	int rc = 1;

	if (argc != 4) {
		fprintf(stderr, "usage: refit DATA.csv SPEC.json MODEL.json\n");
		return 2;
	}
	remove(argv[3]);	/* begin with no model */
	if (pm_dataset_read_csv(argv[1], &all, &err) || pm_spec_read_file(argv[2], &spec, &err))
		goto out;
	n = pm_dataset_nrows(all);
	if (!(idx = malloc(n * sizeof(*idx))))
		goto out;
	for (size_t r = 0; r < n; r++)
		idx[r] = r;
	for (int round = 1; round <= 3; round++) {
		const pm_fit_info *fi;

		/* the rows measured so far */
		if (pm_dataset_subset(all, idx, n * (size_t)round / 3, &rows, &err) ||
		    refit(rows, spec, argv[3], &err) || pm_model_load_file(argv[3], &m, &err))
			goto out;
		fi = pm_model_fit_info(m);
		printf("%zu rows: %s, cost %.6g, %u generations, %.3f s\n", pm_dataset_nrows(rows),
		       fi->warm_started ? "warm-started" : "cold", fi->cost, fi->generations,
		       fi->wall_time_s);
		if (round > 1 && !fi->warm_started)
			goto out;
		pm_model_free(m);
		m = NULL;
		pm_dataset_free(rows);
		rows = NULL;
	}
	rc = 0;
out:
	if (rc && err.msg[0])
		fprintf(stderr, "refit: %s\n", err.msg);
	free(idx);
	pm_model_free(m);
	pm_dataset_free(rows);
	pm_dataset_free(all);
	pm_spec_free(spec);
	return rc;
}
