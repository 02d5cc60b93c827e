/* A plan as CSV (the next runs, for a script to submit) and as JSON. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/jsonw.h"
#include "core/numcodec.h"
#include "plan/plan_impl.h"

/* The plan's own columns replace a candidates' column of the same name. */
static int own_column(const char *name)
{
	return !strcmp(name, "cost") || !strcmp(name, "gain");
}

static void field(FILE *f, const char *text)
{
	if (!strpbrk(text, ",\"\r\n")) {
		fputs(text, f);
		return;
	}
	fputc('"', f);
	for (const char *c = text; *c; c++) {
		if (*c == '"')
			fputc('"', f);
		fputc(*c, f);
	}
	fputc('"', f);
}

static void number(FILE *f, double v)
{
	char buf[PM_NUM_MAX];

	pm__num_format(buf, v);
	fputs(buf, f);
}

const char *pm_plan_repeats_name(pm_plan_repeats where)
{
	static const char *const names[] = { "data", "test", "candidates" };

	return (unsigned)where < 3 ? names[where] : NULL;
}

pm_status pm_plan_to_csv(const pm_plan *p, char **out, pm_error *err)
{
	const pm_dataset *cd;
	size_t len;
	FILE *f;

	if (!out)
		return pm__fail(err, PM_EINVAL, "pm_plan_to_csv: out is NULL");
	*out = NULL;
	if (!p)
		return pm__fail(err, PM_EINVAL, "pm_plan_to_csv: no plan");
	cd = p->candidates;
	if (!(f = open_memstream(out, &len)))
		return pm__fail(err, PM_ENOMEM, "out of memory");
	for (size_t c = 0; c < pm_dataset_ncols(cd); c++)
		if (!own_column(pm_dataset_col_name(cd, c))) {
			field(f, pm_dataset_col_name(cd, c));
			fputc(',', f);
		}
	fputs("cost,gain\n", f);
	for (size_t k = 0; k < p->npicks; k++) {
		for (size_t c = 0; c < pm_dataset_ncols(cd); c++)
			if (!own_column(pm_dataset_col_name(cd, c))) {
				field(f, pm_dataset_cell(cd, p->picks[k].row, c));
				fputc(',', f);
			}
		number(f, p->picks[k].cost);
		fputc(',', f);
		number(f, p->picks[k].gain);
		fputc('\n', f);
	}
	if (ferror(f) | fclose(f)) {
		free(*out);
		*out = NULL;
		return pm__fail(err, PM_ENOMEM, "out of memory");
	}
	return PM_OK;
}

/* A cell as a JSON value: a numeric input's number if it is one, else
 * its text (a categorical level is text, whatever it looks like). */
static void cell(pm_jw *w, const char *text, int categorical)
{
	char *end;
	double v = pm_strtod(text, &end);

	if (!categorical && *text && !*end && isfinite(v))
		pm__jw_double(w, v);
	else
		pm__jw_string(w, text);
}

static void picks(pm_jw *w, const pm_plan *p)
{
	const pm_dataset *cd = p->candidates;

	pm__jw_key(w, "picks");
	pm__jw_array_begin(w);
	for (size_t k = 0; k < p->npicks; k++) {
		const pm_plan_pick *pk = &p->picks[k];

		pm__jw_object_begin_line(w);
		pm__jw_key(w, "line");
		pm__jw_uint(w, pm_dataset_cell_line(cd, pk->row, 0));
		pm__jw_key(w, "config");
		pm__jw_object_begin_line(w);
		for (size_t i = 0; i < pm_model_ninputs(p->model); i++) {
			size_t col;

			if (pm_dataset_col_index(cd, pm_model_input_name(p->model, i), &col, NULL))
				continue;
			pm__jw_key(w, pm_model_input_name(p->model, i));
			cell(w, pm_dataset_cell(cd, pk->row, col),
			     pm_model_input_role(p->model, i) == PM_ROLE_CATEGORICAL);
		}
		pm__jw_object_end(w);
		pm__jw_key(w, "cost");
		pm__jw_double(w, pk->cost);
		pm__jw_key(w, "gain");
		pm__jw_double(w, pk->gain);
		pm__jw_key(w, "predicted");
		pm__jw_double(w, pk->predicted);
		pm__jw_key(w, "spread");
		pm__jw_double(w, pk->spread);
		pm__jw_key(w, "noise");
		pm__jw_double(w, pk->noise);
		pm__jw_object_end(w);
	}
	pm__jw_array_end(w);
}

pm_status pm_plan_to_json(const pm_plan *p, char **out, pm_error *err)
{
	pm_jw w;
	pm_status st;

	if ((st = pm__jw_start(&w, out, p != NULL, "plan", err)))
		return st;
	pm__jw_object_begin(&w);
	pm__jw_key(&w, "candidates");
	pm__jw_string(&w, pm_dataset_name(p->candidates));
	pm__jw_key(&w, "targets");
	pm__jw_string(&w, pm_dataset_name(p->targets));
	pm__jw_key(&w, "form");
	pm__jw_string(&w, pm_model_form(p->model));
	pm__jw_key(&w, "members");
	pm__jw_uint(&w, p->members);
	pm__jw_key(&w, "forms");
	pm__jw_array_begin(&w);
	for (size_t k = 0; k < p->nforms; k++) {
		pm__jw_object_begin_line(&w);
		pm__jw_key(&w, "form");
		pm__jw_string(&w, p->forms[k].form);
		pm__jw_key(&w, "loss");
		pm__jw_string(&w, pm_loss_name(p->forms[k].loss));
		pm__jw_key(&w, "members");
		pm__jw_uint(&w, p->forms[k].members);
		pm__jw_object_end(&w);
	}
	pm__jw_array_end(&w);
	pm__jw_key(&w, "noise");
	pm__jw_double(&w, p->noise);
	pm__jw_key(&w, "spread_before");
	pm__jw_double(&w, p->spread_before);
	pm__jw_key(&w, "spread_after");
	pm__jw_double(&w, p->spread_after);
	pm__jw_key(&w, "total_cost");
	pm__jw_double(&w, p->total_cost);
	pm__jw_key(&w, "dropped");
	pm__jw_array_begin(&w);
	for (size_t k = 0; k < p->ndropped; k++) {
		pm__jw_object_begin_line(&w);
		pm__jw_key(&w, "line");
		pm__jw_uint(&w, pm_dataset_cell_line(p->candidates, p->dropped[k], 0));
		pm__jw_key(&w, "repeats");
		pm__jw_string(&w, pm_plan_repeats_name(p->dropped_in[k]));
		pm__jw_key(&w, "repeats_line");
		pm__jw_uint(&w, p->dropped_match[k]);
		pm__jw_object_end(&w);
	}
	pm__jw_array_end(&w);
	picks(&w, p);
	pm__jw_object_end(&w);
	return pm__jw_finish(&w, out, err);
}
