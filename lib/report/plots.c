/* The report people look at before they trust a fit, its plots: the
 * thesis's figures (predicted against measured, residuals, speedup and
 * efficiency, the λ sweep) as SVG. The page that holds them is
 * report_html.c's, the --json document report_json.c's. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/json_read.h"
#include "core/numcodec.h"
#include "core/strindex.h"
#include "perfmodel/perfmodel.h"
#include "report/svg.h"

void pm_plots_free(pm_plots *p)
{
	if (!p)
		return;
	for (size_t i = 0; p->plot && i < p->n; i++) {
		free(p->plot[i].name);
		free(p->plot[i].title);
		free(p->plot[i].svg);
	}
	free(p->plot);
	free(p);
}

/* Render one plot and append it to the list, under file name `name`. */
static pm_status add_plot(pm_plots *ps, const char *name, const pm_svg_plot *p, pm_error *err)
{
	pm_plot *np = realloc(ps->plot, (ps->n + 1) * sizeof(*np));
	pm_sbuf b;
	pm_status st;

	if (!np)
		return pm__fail(err, PM_ENOMEM, "out of memory");
	ps->plot = np;
	np = &ps->plot[ps->n];
	*np = (pm_plot){ 0 };
	pm__sb_init(&b);
	pm__svg_plot(&b, p);
	if ((st = pm__sb_finish(&b, &np->svg, err)))
		return st;
	np->name = strdup(name);
	np->title = strdup(p->title);
	ps->n++;	/* now pm_plots_free frees what was made */
	if (!np->name || !np->title)
		return pm__fail(err, PM_ENOMEM, "out of memory");
	return PM_OK;
}

/* The rows of one file: measured target, prediction, and per extrinsic
 * input its value. */
typedef struct rows {
	size_t n;
	double *t, *pred;
	double *ext;	/* n * next, row-major */
} rows;

static void rows_free(rows *r)
{
	free(r->t);
	free(r->pred);
	free(r->ext);
	*r = (rows){ 0 };
}

static pm_status column(const pm_dataset *d, const char *name, double *out, size_t stride,
			pm_error *err)
{
	size_t c;
	pm_status st;

	if ((st = pm_dataset_col_index(d, name, &c, err)))
		return st;
	/* cell by cell, strided: the first that is no number says so */
	for (size_t r = 0; r < pm_dataset_nrows(d); r++)
		if ((st = pm_dataset_number(d, r, c, &out[r * stride], err)))
			return st;
	return PM_OK;
}

static pm_status rows_read(const pm_model *m, const pm_dataset *d, const size_t *ext,
			   size_t next, rows *r, pm_error *err)
{
	pm_status st;

	*r = (rows){ .n = pm_dataset_nrows(d) };
	r->t = malloc(r->n * sizeof(*r->t));
	r->pred = malloc(r->n * sizeof(*r->pred));
	r->ext = malloc((next ? next : 1) * r->n * sizeof(*r->ext));
	if (!r->t || !r->pred || !r->ext)
		return pm__fail(err, PM_ENOMEM, "out of memory");
	if ((st = column(d, pm_model_target(m), r->t, 1, err)) ||
	    (st = pm_model_predict_dataset(m, d, r->pred, err)))
		return st;
	for (size_t j = 0; j < next; j++)
		if ((st = column(d, pm_model_input_name(m, ext[j]), r->ext + j, next, err)))
			return st;
	return PM_OK;
}

/* (predicted − measured) / measured in percent, the residual that reads the
 * same for a 1 ms and a 10 s run; a row measured 0 (a count, under an
 * absolute loss) has none: NaN, which the plot leaves out, and *zeros is
 * set (its label says so). */
static double *relative_residuals(const rows *r, int *zeros)
{
	double *res = malloc((r->n ? r->n : 1) * sizeof(*res));

	for (size_t i = 0; res && i < r->n; i++) {
		res[i] = r->t[i] != 0 ? 100 * (r->pred[i] - r->t[i]) / r->t[i] : NAN;
		*zeros |= r->t[i] == 0;
	}
	return res;
}

/* Every extrinsic value of column j, gathered from the row-major table. */
static double *ext_column(const rows *r, size_t j, size_t next)
{
	double *x = malloc((r->n ? r->n : 1) * sizeof(*x));

	for (size_t i = 0; x && i < r->n; i++)
		x[i] = r->ext[i * next + j];
	return x;
}

static pm_status accuracy_plots(const pm_model *m, const rows *train, const rows *test,
				const size_t *ext, size_t next, pm_plots *ps, pm_error *err)
{
	char title[256], xlabel[160], name[160];
	pm_svg_series s[2] = {
		{ "training rows", train->t, train->pred, train->n, PM_SVG_DOTS, NULL },
		{ "held-out rows", test->t, test->pred, test->n, PM_SVG_CROSSES, NULL },
	};
	pm_svg_plot p = pm__svg_plot_default();
	size_t ns = test->n ? 2 : 1;
	pm_status st;

	snprintf(title, sizeof(title), "Predicted against measured %s", pm_model_target(m));
	snprintf(xlabel, sizeof(xlabel), "measured %s", pm_model_target(m));
	snprintf(name, sizeof(name), "predicted %s", pm_model_target(m));
	p.title = title;
	p.xlabel = xlabel;
	p.ylabel = name;
	p.series = s;
	p.nseries = ns;
	p.diagonal = 1;
	if ((st = add_plot(ps, "predicted_vs_measured.svg", &p, err)))
		return st;

	for (size_t j = 0; j < next; j++) {
		const char *in = pm_model_input_name(m, ext[j]);
		int zeros = 0;
		double *x0 = ext_column(train, j, next), *y0 = relative_residuals(train, &zeros);
		double *x1 = ext_column(test, j, next), *y1 = relative_residuals(test, &zeros);

		st = PM_ENOMEM;
		if (x0 && y0 && x1 && y1) {
			s[0].x = x0;
			s[0].y = y0;
			s[1].x = x1;
			s[1].y = y1;
			p = pm__svg_plot_default();
			snprintf(title, sizeof(title), "Residuals against %s", in);
			p.title = title;
			p.xlabel = in;
			p.ylabel = zeros ? "(predicted - measured) / measured (%; rows measured "
					   "0 left out)" : "(predicted - measured) / measured (%)";
			p.series = s;
			p.nseries = ns;
			p.zero_line = 1;
			snprintf(name, sizeof(name), "residuals_%s.svg", in);
			st = add_plot(ps, name, &p, err);
		} else {
			pm__fail(err, st, "out of memory");
		}
		free(x0);
		free(y0);
		free(x1);
		free(y1);
		if (st)
			return st;
	}
	return PM_OK;
}

/* The level of the band the time plots draw (docs/report.md). */
#define BAND_LEVEL 0.9

/* Point x's BAND_LEVEL interval in the model's own quantity into lo, hi,
 * and for a target kind its prediction there into *y: the interval is one
 * of the time scale t = w / y, and y falls as t grows, so y's lower bound
 * is w over t's upper one (as predict --interval turns it). Not finite
 * when the interval fails (a prediction not > 0): left out of the band. */
static void band_at(const pm_model *m, const double *x, double *y, double *lo, double *hi)
{
	double tlo, thi;

	if (pm_model_predict_interval(m, x, BAND_LEVEL, &tlo, &thi, NULL)) {
		*lo = *hi = NAN;
	} else if (pm_model_target_kind(m) == PM_TARGET_TIME) {
		*lo = tlo;
		*hi = thi;
	} else if (pm_model_target_value(m, x, thi, lo, NULL) ||
		   pm_model_target_value(m, x, tlo, hi, NULL)) {
		*lo = *hi = NAN;
	}
	if (pm_model_target_kind(m) != PM_TARGET_TIME && pm_model_predict_target(m, x, y, NULL))
		*y = NAN;
}

/* The predicted target (a time, or a kind's speedup, efficiency or
 * throughput) against scaling input sc at the report's reference point,
 * with its BAND_LEVEL interval as a band: only for a model with intervals.
 * A time model's plot is time_INPUT.svg, a kind's target_INPUT.svg (a
 * speedup's would clash with the scaling's speedup_INPUT.svg). */
static pm_status time_plot(const pm_model *m, const pm_scaling_report *sr,
			   const pm_scaling *sc, pm_plots *ps, pm_error *err)
{
	size_t ni = pm_model_ninputs(m);
	double *lo = malloc(sc->npoints * sizeof(*lo)), *hi = malloc(sc->npoints * sizeof(*hi));
	double *y = malloc(sc->npoints * sizeof(*y)), *x = malloc(ni * sizeof(*x));
	const char *in = pm_model_input_name(m, sc->input);
	int time = pm_model_target_kind(m) == PM_TARGET_TIME;
	char title[256], name[160];
	pm_svg_plot p = pm__svg_plot_default();
	pm_status st;

	if (!lo || !hi || !y || !x) {
		st = pm__fail(err, PM_ENOMEM, "out of memory");
		goto out;
	}
	memcpy(x, sr->baseline, ni * sizeof(*x));
	for (size_t i = 0; i < sc->npoints; i++) {
		x[sc->input] = sc->value[i];
		band_at(m, x, &y[i], &lo[i], &hi[i]);
	}
	pm_svg_series s[2] = {
		{ "model", sc->value, time ? sc->time : y, sc->npoints, PM_SVG_LINE, NULL },
		{ "90 % interval", sc->value, lo, sc->npoints, PM_SVG_BAND, hi },
	};
	snprintf(title, sizeof(title), "Predicted %s against %s", pm_model_target(m), in);
	p.title = title;
	p.xlabel = in;
	p.ylabel = pm_model_target(m);
	p.series = s;
	p.nseries = 2;
	snprintf(name, sizeof(name), "%s_%s.svg", time ? "time" : "target", in);
	st = add_plot(ps, name, &p, err);
out:
	free(lo);
	free(hi);
	free(y);
	free(x);
	return st;
}

static pm_status scaling_plots(const pm_model *m, const pm_scaling_report *sr, pm_plots *ps,
			       pm_error *err)
{
	int band = pm_model_has_intervals(m);

	for (size_t j = 0; j < sr->n; j++) {
		const pm_scaling *sc = &sr->scaling[j];
		const char *in = pm_model_input_name(m, sc->input);
		double *ideal_s = malloc(sc->npoints * sizeof(*ideal_s));
		double *ideal_e = malloc(sc->npoints * sizeof(*ideal_e));
		char title[256], name[160];
		pm_svg_plot p = pm__svg_plot_default();
		pm_status st = PM_OK;

		if (sc->npoints < 2)
			goto next;	/* one value: nothing scales */
		if (!ideal_s || !ideal_e) {
			st = pm__fail(err, PM_ENOMEM, "out of memory");
			goto next;
		}
		for (size_t i = 0; i < sc->npoints; i++) {
			ideal_s[i] = sc->value[i] / sc->value[0];
			ideal_e[i] = 1;
		}
		pm_svg_series s[2] = {
			{ "model", sc->value, sc->speedup, sc->npoints, PM_SVG_LINE, NULL },
			{ "ideal (linear)", sc->value, ideal_s, sc->npoints, PM_SVG_DASHED, NULL },
		};
		snprintf(title, sizeof(title), "Predicted speedup against %s", in);
		p.title = title;
		p.xlabel = in;
		p.ylabel = "speedup over the smallest value";
		p.series = s;
		p.nseries = 2;
		snprintf(name, sizeof(name), "speedup_%s.svg", in);
		if ((st = add_plot(ps, name, &p, err)))
			goto next;
		s[0].y = sc->efficiency;
		s[1].y = ideal_e;
		s[1].label = "ideal (1)";
		snprintf(title, sizeof(title), "Predicted parallel efficiency against %s", in);
		p.ylabel = "parallel efficiency";
		snprintf(name, sizeof(name), "efficiency_%s.svg", in);
		if (!(st = add_plot(ps, name, &p, err)) && band)
			st = time_plot(m, sr, sc, ps, err);
next:
		free(ideal_s);
		free(ideal_e);
		if (st)
			return st;
	}
	return PM_OK;
}

/* ---- the sweep ---------------------------------------------------------- */

typedef struct sweep {
	size_t n, np;
	double *lambda, *mape, *r2;
	double *param;		/* np * n: parameter k's path at param + k * n */
	char **name;		/* np, borrowed from the cJSON tree */
	pm__strindex index;	/* the names (of two equal ones, the first) */
	unsigned char *power;	/* np: name k is a power of the model (p or q) */
	double best;
} sweep;

static void sweep_free(sweep *s)
{
	free(s->lambda);
	free(s->mape);
	free(s->r2);
	free(s->param);
	free(s->name);
	pm__strindex_free(&s->index);
	free(s->power);
}

/* Point i's parameters pp, by the first point's names (index: by name)
 * into s->param; val and dup: room for np. Each member is taken in one pass;
 * a name that is missing, repeated or of the wrong type goes through the
 * getter, which says why (or reads it, for a name the first point repeats). */
static pm_status sweep_params(const pm_jctx *c, const cJSON *pp, const pm__strindex *index,
			      sweep *s, size_t i, const cJSON **val, unsigned char *dup)
{
	pm_status st;

	for (size_t k = 0; k < s->np; k++) {
		val[k] = NULL;
		dup[k] = 0;
	}
	for (const cJSON *m = pp->child; m; m = m->next) {
		size_t k = pm__strindex_find(index, m->string);

		if (k == SIZE_MAX)
			continue;
		dup[k] |= val[k] != NULL;
		val[k] = m;
	}
	for (size_t k = 0; k < s->np; k++) {
		const cJSON *v = val[k];
		double *out = &s->param[k * s->n + i];

		if (v && !dup[k] && cJSON_IsNull(v))
			*out = NAN;
		else if (v && !dup[k] && cJSON_IsNumber(v) && isfinite(v->valuedouble))
			*out = v->valuedouble;
		else if ((st = pm__json_number_or_null(c, pp, s->name[k], out)))
			return st;
	}
	return PM_OK;
}

static pm_status sweep_read(const cJSON *root, const char *name, sweep *s, pm_error *err)
{
	pm_jctx c = { name, NULL, err };
	const cJSON *pts, *params, *pt;
	const cJSON **val = NULL;
	unsigned char *dup = NULL;
	pm_status st;
	size_t i = 0, k = 0;

	*s = (sweep){ 0 };
	if ((st = pm__json_array(&c, root, "points", 1, &pts, &s->n)) ||
	    (st = pm__json_number(&c, root, "best_lambda", &s->best)))
		return st;
	if (s->n == 0)
		return pm__json_fail(&c, PM_ESCHEMA, "'points' is empty");
	if ((st = pm__json_object(&c, pts->child, "parameters", 1, &params)))
		return st;
	s->np = (size_t)cJSON_GetArraySize(params);
	s->lambda = malloc(s->n * sizeof(double));
	s->mape = malloc(s->n * sizeof(double));
	s->r2 = malloc(s->n * sizeof(double));
	s->param = malloc((s->np ? s->np : 1) * s->n * sizeof(double));
	s->name = malloc((s->np ? s->np : 1) * sizeof(char *));
	s->power = calloc(s->np ? s->np : 1, 1);
	val = malloc((s->np ? s->np : 1) * sizeof(*val));
	dup = malloc(s->np ? s->np : 1);
	if (!s->lambda || !s->mape || !s->r2 || !s->param || !s->name || !s->power || !val ||
	    !dup || pm__strindex_init(&s->index, s->np, pm__key_of_array, s->name) != 0) {
		st = pm__fail(err, PM_ENOMEM, "out of memory");
		goto out;
	}
	/* with room made for all, adding needs no memory */
	for (const cJSON *p = params->child; p; p = p->next, k++) {
		s->name[k] = p->string;
		pm__strindex_add(&s->index, k);
	}
	for (pt = pts->child; pt; pt = pt->next, i++) {
		const cJSON *pp;
		char where[32];

		snprintf(where, sizeof(where), "points[%zu]", i);
		c.where = where;
		if ((st = pm__json_number(&c, pt, "lambda", &s->lambda[i])) ||
		    (st = pm__json_number_or_null(&c, pt, "mape", &s->mape[i])) ||
		    (st = pm__json_number_or_null(&c, pt, "r2", &s->r2[i])) ||
		    (st = pm__json_object(&c, pt, "parameters", 1, &pp)))
			goto out;
		c.where = "parameters";
		if ((st = sweep_params(&c, pp, &s->index, s, i, val, dup)))
			goto out;
	}
out:
	free(dup);
	free(val);
	return st;
}

/* Which of the sweep's parameters are powers of the model (p or q), in one
 * pass over the model's: powers and coefficients get separate plots, their
 * scales having nothing in common. Backwards, so that of two equal names
 * the model's first decides. */
static void mark_powers(const pm_model *m, sweep *sw)
{
	for (size_t k = pm_model_nparams(m); k-- > 0;) {
		size_t j = pm__strindex_find(&sw->index, pm_model_param_name(m, k));
		pm_param_kind kind = pm_model_param_kind(m, k);

		if (j != SIZE_MAX)
			sw->power[j] = kind == PM_PARAM_POWER || kind == PM_PARAM_SCALING;
	}
}

/* Is the sweep's parameter k a power (mark_powers)? */
static int is_power(const sweep *sw, size_t k)
{
	return sw->power[pm__strindex_find(&sw->index, sw->name[k])];
}

/* Raw coefficients differ by orders of magnitude (a GEMM's n³ term 4e-11 s,
 * C 1e-3 s) and can be negative, so on one axis all but the largest would
 * lie flat on zero; each path divided by its largest |value| shows what the
 * thesis's Figures 4.16-4.17 show: how each shrinks as λ grows. */
static void normalise_coefficients(sweep *sw)
{
	for (size_t k = 0; k < sw->np; k++) {
		double *v = sw->param + k * sw->n, top = 0;

		if (is_power(sw, k))
			continue;
		for (size_t i = 0; i < sw->n; i++)
			top = isfinite(v[i]) ? fmax(top, fabs(v[i])) : top;
		for (size_t i = 0; top > 0 && i < sw->n; i++)
			v[i] /= top;
	}
}

static pm_status path_plot(const sweep *sw, int powers, pm_plots *ps, char *mark,
			   pm_error *err)
{
	pm_svg_series *s = calloc(sw->np ? sw->np : 1, sizeof(*s));
	pm_svg_plot p = pm__svg_plot_default();
	size_t ns = 0;
	pm_status st = PM_OK;

	if (!s)
		return pm__fail(err, PM_ENOMEM, "out of memory");
	for (size_t k = 0; k < sw->np; k++)
		if (is_power(sw, k) == powers)
			s[ns++] = (pm_svg_series){ sw->name[k], sw->lambda, sw->param + k * sw->n,
						   sw->n, PM_SVG_LINE, NULL };
	p.title = powers ? "Power paths: fitted powers against λ"
			 : "Coefficient paths: fitted coefficients against λ";
	p.xlabel = "λ (penalty weight)";
	p.ylabel = powers ? "power (exponent)" : "coefficient / its largest |value|";
	p.series = s;
	p.nseries = ns;
	p.mark_x = sw->best;
	p.mark_label = mark;
	if (ns)
		st = add_plot(ps, powers ? "sweep_powers.svg" : "sweep_coefficients.svg", &p, err);
	free(s);
	return st;
}

static pm_status sweep_plots(const pm_model *m, const char *name, pm_plots *ps,
			     pm_error *err)
{
	cJSON *root = NULL;
	sweep sw = { 0 };
	char mark[64], *json = NULL;
	size_t len;
	pm_status st;

	if ((st = pm__read_file(name, &json, &len, err)) ||
	    (st = pm__json_parse(json, len, name, &root, err)) ||
	    (st = sweep_read(root, name, &sw, err)))
		goto out;
	mark_powers(m, &sw);
	normalise_coefficients(&sw);
	pm_snprintf(mark, sizeof(mark), "best λ = %g", sw.best);
	pm_svg_series s = { "held-out MAPE", sw.lambda, sw.mape, sw.n, PM_SVG_LINE, NULL };
	pm_svg_plot p = pm__svg_plot_default();

	p.title = "Held-out MAPE against λ";
	p.xlabel = "λ (penalty weight)";
	p.ylabel = "held-out MAPE (%)";
	p.series = &s;
	p.nseries = 1;
	p.mark_x = sw.best;
	p.mark_label = mark;
	if ((st = add_plot(ps, "sweep_mape.svg", &p, err)))
		goto out;
	s.label = "held-out R²";
	s.y = sw.r2;
	p.title = "Held-out R² against λ";
	p.ylabel = "held-out R²";
	if (!(st = add_plot(ps, "sweep_r2.svg", &p, err)) &&
	    !(st = path_plot(&sw, 0, ps, mark, err)))
		st = path_plot(&sw, 1, ps, mark, err);
out:
	sweep_free(&sw);
	cJSON_Delete(root);
	free(json);
	return st;
}

/* ---- putting it together ------------------------------------------------- */

pm_status pm_report_plots(const pm_model *m, const pm_report_data *r, pm_plots **out,
			  pm_error *err)
{
	size_t next = 0, *ext;
	rows train = { 0 }, test = { 0 };
	pm_scaling_report *sr = NULL;
	pm_plots *ps;
	pm_status st;

	if (!out)
		return pm__fail(err, PM_EINVAL, "no place for the plots");
	*out = NULL;
	if (!m || !r || !r->data)
		return pm__fail(err, PM_EINVAL, "no model or data");
	ps = calloc(1, sizeof(*ps));
	ext = malloc(pm_model_ninputs(m) * sizeof(*ext) + 1);
	if (!ps || !ext) {
		st = pm__fail(err, PM_ENOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < pm_model_ninputs(m); i++)
		if (pm_model_input_role(m, i) == PM_ROLE_EXTRINSIC)
			ext[next++] = i;
	if ((st = rows_read(m, r->data, ext, next, &train, err)) ||
	    (r->test && (st = rows_read(m, r->test, ext, next, &test, err))) ||
	    (st = accuracy_plots(m, &train, &test, ext, next, ps, err)) ||
	    (st = pm_scaling_report_new(m, r->data, &sr, err)) ||
	    (st = scaling_plots(m, sr, ps, err)) ||
	    (r->sweep && (st = sweep_plots(m, r->sweep, ps, err))))
		goto out;
	*out = ps;
	ps = NULL;
out:
	pm_scaling_report_free(sr);
	rows_free(&train);
	rows_free(&test);
	free(ext);
	pm_plots_free(ps);
	return st;
}
