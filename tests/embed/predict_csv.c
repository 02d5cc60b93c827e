/* A program outside the project, built by tests/embed.sh against the
 * installed libperfmodel-predict with pkg-config alone: predicts every row
 * of a simple CSV (no quoted fields) by name and as a batch, checks that
 * the two agree bit for bit, and prints one prediction a line, as
 * `perfmodel predict` prints doubles (the shortest of %.15g..%.17g that reads
 * back exactly), so that the script can compare the two outputs as text. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <perfmodel/predict.h>

#define MAXCOLS 64

static void print_exact(double v)
{
	char buf[40];

	for (int prec = 15; prec <= 17; prec++) {
		snprintf(buf, sizeof(buf), "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	puts(buf);
}

/* Split line at commas in place; the number of fields. */
static size_t split(char *line, char **field)
{
	size_t n = 0;

	line[strcspn(line, "\r\n")] = '\0';
	for (char *p = line; n < MAXCOLS; p++) {
		field[n++] = p;
		p += strcspn(p, ",");
		if (!*p)
			break;
		*p = '\0';
	}
	return n;
}

int main(int argc, char **argv)
{
	pm_model *m = NULL;
	pm_point *p = NULL;
	pm_error err = { 0 };
	char head[4096], line[4096], *name[MAXCOLS], *cell[MAXCOLS];
	size_t ncols, ni, nrows = 0, cap = 0;
	double *x = NULL, *named = NULL, *batch;
	FILE *f;

	if (argc != 3 || !(f = fopen(argv[2], "r")) || !fgets(head, sizeof(head), f))
		return 2;
	if (pm_model_load_file(argv[1], &m, &err) || pm_point_new(m, &p, &err))
		goto fail;
	ni = pm_model_ninputs(m);
	ncols = split(head, name);
	while (fgets(line, sizeof(line), f)) {
		if (split(line, cell) != ncols)
			return 2;
		if (nrows == cap) {
			cap = cap ? 2 * cap : 64;
			x = realloc(x, cap * ni * sizeof(*x));
			named = realloc(named, cap * sizeof(*named));
			if (!x || !named)
				return 2;
		}
		pm_point_clear(p);
		for (size_t c = 0; c < ncols; c++) {
			size_t i;
			char *end;
			double v;

			if (pm_model_input_index(m, name[c], &i, NULL))
				continue;	/* not an input: kept by perfmodel, ignored here */
			v = strtod(cell[c], &end);
			if ((pm_model_input_role(m, i) == PM_ROLE_CATEGORICAL
				     ? pm_point_set_cat(p, name[c], cell[c], &err)
				     : *end ? PM_EINVAL : pm_point_set_num(p, name[c], v, &err)))
				goto fail;
		}
		if (pm_model_predict_point(m, p, &named[nrows], &err))
			goto fail;
		memcpy(x + nrows * ni, pm_point_values(p), ni * sizeof(*x));
		nrows++;
	}
	fclose(f);
	batch = malloc((nrows + 1) * sizeof(*batch));
	if (!batch || pm_model_predict_batch(m, x, nrows, batch, &err))
		goto fail;
	for (size_t r = 0; r < nrows; r++) {
		if (memcmp(&batch[r], &named[r], sizeof(double)) != 0) {
			fprintf(stderr, "row %zu: by name %.17g, batch %.17g\n", r + 1, named[r],
				batch[r]);
			return 1;
		}
		print_exact(named[r]);
	}
	free(batch);
	free(x);
	free(named);
	pm_point_free(p);
	pm_model_free(m);
	return 0;
fail:
	fprintf(stderr, "predict_csv: %s\n", err.msg);
	return 1;
}
