/* perfmodel fit's report: the data, the parameters, the accuracy, the fit.
 * Printing only: every number comes from the library. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"

static void print_names(const char *label, const pm_model *m, pm_role role)
{
	int first = 1;

	cprintf(stdout, "  %-12s", label);
	for (size_t i = 0; i < pm_model_ninputs(m); i++) {
		if (pm_model_input_role(m, i) != role)
			continue;
		cprintf(stdout, "%s%s", first ? "" : ", ", pm_model_input_name(m, i));
		first = 0;
		if (role == PM_ROLE_CATEGORICAL) {
			cprintf(stdout, " (");
			for (size_t v = 0; v < pm_model_nlevels(m, i); v++)
				cprintf(stdout, "%s%s", v ? " " : "", pm_model_level_name(m, i, v));
			cprintf(stdout, ")");
		}
	}
	cprintf(stdout, "%s\n", first ? "(none)" : "");
}

static void print_param_rows(const pm_model *m)
{
	size_t np = pm_model_nparams(m), free_ones = 0;

	if (pm_model_formula(m))
		cprintf(stdout, "\nmodel (%s)\n  t = %s\n", pm_model_form(m), pm_model_formula(m));
	cprintf(stdout, "\nparameters (raw: %s in the data's units; scaled: as fitted)\n",
	       pm_model_formula(m) ? "the formula" : "eq. 4.4");
	cprintf(stdout, "  %-28s %-6s %14s %14s\n", "name", "kind", "raw", "scaled");
	for (size_t k = 0; k < np; k++) {
		static const char *const kind[] = { "a", "p", "b", "q", "C", "ln m" };

		if (pm_model_param_undetermined(m, k)) {
			cprintf(stdout, "  %-*s %-6s %14s %14s\n", cols(pm_model_param_name(m, k), 28),
				pm_model_param_name(m, k), kind[pm_model_param_kind(m, k)],
				"undetermined", "-");
			free_ones++;
			continue;
		}
		cprintf(stdout, "  %-*s %-6s %14.6g %14.6g\n", cols(pm_model_param_name(m, k), 28),
			pm_model_param_name(m, k), kind[pm_model_param_kind(m, k)],
			pm_model_param_value(m, k), pm_model_param_scaled(m, k));
	}
	if (free_ones)
		cprintf(stdout, "  undetermined: %zu parameter%s the rows leave free (a power of "
			"terms that are all 0, a term no row has); any value fits as well\n",
			free_ones, free_ones == 1 ? "" : "s");
}

/* " (−q: ... / x^q)" when power parameter k is divided by in the formula:
 * its power on t is then −(its value), and saying so ties the two together;
 * "" otherwise. Returns a static string: one call per printf. */
static const char *divided_note(const pm_model *m, size_t k)
{
	static char buf[200];
	double v = pm_model_param_value(m, k);

	if (!(v != 0 && pm_model_param_power(m, k) == -v))
		return "";
	pm_snprintf(buf, sizeof(buf), " (−%s: the formula divides by %s^%s)",
		    pm_model_param_name(m, k), pm_model_input_name(m, pm_model_param_input(m, k)),
		    pm_model_param_name(m, k));
	return buf;
}

/* Issue 10: each power and level multiplier in words. */
static void print_meaning(const pm_model *m)
{
	int first = 1;

	for (size_t k = 0; k < pm_model_nparams(m); k++) {
		pm_param_kind kind = pm_model_param_kind(m, k);
		size_t in = pm_model_param_input(m, k);
		double power = pm_model_param_power(m, k);

		if (!(kind == PM_PARAM_LOGMULT || ((kind == PM_PARAM_POWER ||
						    kind == PM_PARAM_SCALING) && isfinite(power))) ||
		    pm_model_param_undetermined(m, k))
			continue;
		if (first)
			cprintf(stdout, "\nwhat the parameters mean\n");
		first = 0;
		if (kind == PM_PARAM_LOGMULT)
			cprintf(stdout, "  level(%s) = %s: its term is %.3g× what it is at %s\n",
			       pm_model_input_name(m, in),
			       pm_model_level_name(m, in, pm_model_param_level(m, k)),
			       exp(pm_model_param_value(m, k)), pm_model_level_name(m, in, 0));
		else
			cprintf(stdout, "  %s^%.3g%s: doubling %s multiplies its term by %.3g\n",
				pm_model_input_name(m, in), power, divided_note(m, k),
				pm_model_input_name(m, in), pm_model_param_doubling(m, k));
	}
}

/* " mean ± std" of parameter k over the seeds, padded to a column when
 * more follows on the line. */
static void mean_std(const pm_model *m, size_t k, int pad)
{
	char buf[64];

	if (pm_model_param_undetermined(m, k))
		pm_snprintf(buf, sizeof(buf), "undetermined");
	else
		pm_snprintf(buf, sizeof(buf), "%.4g ± %.2g", pm_model_param_mean(m, k),
			    pm_model_param_std(m, k));
	/* ± is two bytes and one column */
	cprintf(stdout, " %-*s", pad ? 27 : 0, buf);
}

/* One group of thesis Tables 4.2/4.3: rows of parameters of the given
 * kinds, a coefficient with its power on one row. */
static void seed_rows(const pm_model *m, const char *title, pm_param_kind k1,
		      pm_param_kind k2)
{
	if (k1 == PM_PARAM_COEF)
		cprintf(stdout, "  %-28s %-26s p\n", title, "a, b");
	else
		cprintf(stdout, "  %-28s %s\n", title, k1 == PM_PARAM_SCALING ? "q" : "C");
	for (size_t k = 0; k < pm_model_nparams(m); k++) {
		pm_param_kind kind = pm_model_param_kind(m, k);
		size_t in = pm_model_param_input(m, k);
		/* eq. 4.4's base a0 is a coefficient of no input, with no power */
		int base = kind == PM_PARAM_COEF && in == (size_t)-1;
		char name[128];

		if (kind != k1 && kind != k2)
			continue;
		if (kind == PM_PARAM_LEVEL)
			pm_snprintf(name, sizeof(name), "%s=%s", pm_model_input_name(m, in),
				 pm_model_level_name(m, in, pm_model_param_level(m, k)));
		else
			pm_snprintf(name, sizeof(name), "%s",
				 kind == PM_PARAM_CONST ? "" : base ? "a0 (base)"
								    : pm_model_input_name(m, in));
		cprintf(stdout, "  %-*s", cols(name, 28), name);
		mean_std(m, k, kind == PM_PARAM_COEF || kind == PM_PARAM_LEVEL);
		if (kind == PM_PARAM_COEF && !base)
			mean_std(m, ++k, 0);	/* p_i follows a_i */
		else if (kind == PM_PARAM_LEVEL || base)
			cprintf(stdout, " -");
		cprintf(stdout, "\n");
	}
}

/* Thesis Tables 4.2/4.3: every parameter as mean ± std over the seeds
 * (those that completed, when a signal cut the run short). */
static void print_seed_table(const pm_model *m)
{
	const pm_fit_info *fi = pm_model_fit_info(m);
	size_t n = pm_model_nseeds(m);

	if (n < fi->seeds_asked) {
		cprintf(stdout, "\n%zu of %u seeds completed (interrupted)%s", n, fi->seeds_asked,
			n ? ": seeds" : "; no mean ± std\n");
		for (size_t i = 0; i < n; i++)
			cprintf(stdout, " %llu%s", (unsigned long long)pm_model_seed(m, i),
				i + 1 < n ? "," : "\n");
		if (!n)
			return;
		cprintf(stdout, "parameters over the %zu completed seeds, raw units: mean ± std\n",
			n);
	} else {
		cprintf(stdout, "\nparameters over %zu seeds (%llu..%llu), raw units: "
			"mean ± std\n", n, (unsigned long long)pm_model_seed(m, 0),
			(unsigned long long)pm_model_seed(m, n - 1));
	}
	if (pm_model_formula(m)) {
		/* a formula's parameters have no thesis table: one row each */
		for (size_t k = 0; k < pm_model_nparams(m); k++) {
			cprintf(stdout, "  %-*s", cols(pm_model_param_name(m, k), 28),
				pm_model_param_name(m, k));
			mean_std(m, k, 0);
			cprintf(stdout, "\n");
		}
	} else {
		seed_rows(m, "intrinsic", PM_PARAM_COEF, PM_PARAM_LEVEL);
		seed_rows(m, "extrinsic", PM_PARAM_SCALING, PM_PARAM_SCALING);
		seed_rows(m, "constant", PM_PARAM_CONST, PM_PARAM_CONST);
	}
	cprintf(stdout, "  saved: seed %llu, the lowest cost (%.6g); its values below\n",
	       (unsigned long long)fi->options.seed, fi->cost);
}

/* The rows of print_accuracy's table that get words: R² below 0 and an
 * adjusted R² with no degrees of freedom. */
enum { R2_ROW = 5, ADJ_R2_ROW = 6 };

/* After the MAPE row: how many rows it left out, measured 0 (its
 * relative error is unbounded), where any were. */
static void mape_note(const pm_metrics *const *set, int nset)
{
	for (int j = 0; j < nset; j++)
		if (set[j]->mape_n != set[j]->n)
			cprintf(stdout, "  %s%zu of %zu rows measured 0, not counted", nset == 1
				? "" : j ? "test: " : "training: ", set[j]->n - set[j]->mape_n,
				set[j]->n);
}

/* After the R² row: the sets whose rows their own mean would have
 * predicted better; with two columns, which (a held-out R² below 0 is the
 * usual one). */
static void r2_note(const pm_metrics *const *set, int nset)
{
	int train = r2_words(set[0]->r2) != NULL, test = nset == 2 && r2_words(set[1]->r2);

	if (train || test)
		cprintf(stdout, "  %s%s", nset == 1 || (train && test) ? ""
					  : train ? "training: " : "test: ",
			r2_words(train ? set[0]->r2 : set[1]->r2));
}

/* Whether the test column is the means over the folds of a validation. */
static int folds(const pm_fit_info *fi)
{
	return fi->options.validate.scheme == PM_SCHEME_KFOLD ||
	       fi->options.validate.scheme == PM_SCHEME_LOO;
}

/* Training and held-out accuracy side by side (docs/maths.md: the metrics). */
static void print_accuracy(const pm_fit_info *fi)
{
	static const char *const label[] = { "MAPE %", "SMAPE %", "MAE", "MSE", "RMSE", "R^2",
					     "adj. R^2" };
	const pm_metrics *const set[2] = { &fi->training, &fi->test };
	int nset = fi->test.n ? 2 : 1;

	cprintf(stdout, "\naccuracy        %14s%s\n", "training", nset == 2 ? "           test" : "");
	cprintf(stdout, "  %-14s", "rows");
	for (int j = 0; j < nset; j++)
		cprintf(stdout, " %14zu", set[j]->n);
	cprintf(stdout, "\n");
	for (size_t i = 0; i < sizeof(label) / sizeof(label[0]); i++) {
		int na = 0;

		cprintf(stdout, "  %-14s", label[i]);
		for (int j = 0; j < nset; j++) {
			const pm_metrics *t = set[j];
			const double v[] = { t->mape, t->smape, t->mae, t->mse, t->rmse, t->r2,
					     t->adj_r2 };

			/* folds' means: no unknowns were fitted to held-out rows,
			 * and R² of one held-out row (leave-one-out) is none */
			if (isnan(v[i]))
				na |= cprintf(stdout, " %14s", "n/a") && i == ADJ_R2_ROW &&
				      !(j && folds(fi));
			else
				cprintf(stdout, " %14.6g", v[i]);
		}
		if (i == 0)
			mape_note(set, nset);
		if (i == R2_ROW)
			r2_note(set, nset);
		if (na)
			cprintf(stdout, "  (n/a: " ADJ_R2_WHY ")");
		cprintf(stdout, "\n");
	}
	if (folds(fi))
		cprintf(stdout, "  test: the held-out rows of every fold, each metric the mean over "
			"the folds:\n    %s\n", fi->validation);
	else if (fi->options.validate.scheme)
		cprintf(stdout, "  held out: %s\n", fi->validation);
	else if (fi->test.n && fi->options.test_fraction > 0)
		cprintf(stdout, "  held out: %zu rows of %s chosen by split seed %llu\n", fi->test.n,
		       fi->test_name, (unsigned long long)fi->options.split_seed);
	else if (fi->test.n)
		cprintf(stdout, "  held out: the rows of %s\n", fi->test_name);
	else
		cprintf(stdout, "  no rows held out: --validate kfold or extrapolate:COL measures the "
		       "accuracy on rows the fit never saw\n");
	/* issue 33: every fit next to what any model should beat */
	if (!isnan(fi->yard_mape) && !isnan(fi->yard_model_mape))
		cprintf(stdout, "  yardstick: held-out MAPE %.2f %% for this model, %.2f %% for a "
			"log-linear fit of the same inputs\n    (%s: the intervals' folds)\n",
			fi->yard_model_mape, fi->yard_mape, fi->yard_what);
}

/* Issue 20: first what the model itself predicts near the reference point
 * (the effective exponent, C and every term included), then the input's own
 * term, whose power on t leaves C and the other terms aside:
 * "  threads: effective exponent -0.62 at the reference point: doubling
 *  threads there multiplies the predicted time by about 0.651×, i.e. 1.54×
 *  faster" and "    its own term: power -0.9135 (q_threads): doubling
 *  threads multiplies that term by 0.531×". */
static void print_exponents(const pm_model *m, const pm_scaling_report *r, const pm_scaling *s)
{
	const char *name = pm_model_input_name(m, s->input);
	double f = exp2(s->effective);

	if (isfinite(s->effective)) {
		cprintf(stdout, "  %s: effective exponent %.3g at the reference point: doubling %s "
			"there multiplies the predicted time by about %.3g×", name, s->effective,
			name, f);
		/* a ratio that prints as 1× (3 digits) is no change worth a word */
		if ((f < 1 ? 1 / f : f) >= 1.005)
			cprintf(stdout, ", i.e. %.3g× %s", f < 1 ? 1 / f : f,
				f < 1 ? "faster" : "slower");
		else
			cprintf(stdout, ", i.e. about the same");
		cprintf(stdout, "%s\n", s->effective <= -0.999 && s->effective >= -1.001
						? " (ideal strong scaling)" : "");
	} else {
		pm_error err = { 0 };
		double e;

		/* the library says why there is none */
		pm_model_effective_exponent(m, r->baseline, s->input, &e, &err);
		cprintf(stdout, "  %s: no effective exponent at the reference point: %s\n", name,
			err.msg);
	}
	if (!isfinite(s->power)) {
		cprintf(stdout, "    no power of its own in the formula\n");
		return;
	}
	cprintf(stdout, "    its own term: power %.4g", s->power);
	if (isfinite(s->q_std))
		cprintf(stdout, " ± %.2g", s->q_std);
	if (*divided_note(m, s->param))
		cprintf(stdout, "%s", divided_note(m, s->param));
	else
		cprintf(stdout, " (%s)", pm_model_param_name(m, s->param));
	cprintf(stdout, ": doubling %s multiplies that term by %.3g×\n", name, s->doubling);
}

/* The point the report holds the other inputs at, and takes the effective
 * exponents at. */
static void print_reference(const pm_model *m, const pm_scaling_report *r)
{
	cprintf(stdout, "  reference point:");
	for (size_t i = 0; i < pm_model_ninputs(m); i++) {
		cprintf(stdout, "%s %s = ", i ? "," : "", pm_model_input_name(m, i));
		if (pm_model_input_role(m, i) == PM_ROLE_CATEGORICAL)
			cprintf(stdout, "%s", pm_model_level_name(m, i, (size_t)r->baseline[i]));
		else
			cprintf(stdout, "%g", r->baseline[i]);
	}
	cprintf(stdout, "\n");
}

/* Thesis §4.3: the exponents in words, then the model's speedup and
 * efficiency over the values in the data, every other input at its baseline. */
static void print_scaling(const pm_model *m, const pm_scaling_report *r)
{
	cprintf(stdout, "\nscaling (other inputs at their median or most frequent level; C included)\n");
	if (r->n)
		print_reference(m, r);
	for (size_t j = 0; j < r->n; j++) {
		const pm_scaling *s = &r->scaling[j];
		const char *name = pm_model_input_name(m, s->input);

		print_exponents(m, r, s);
		/* a target kind's model predicts its time scale here (print_kind) */
		cprintf(stdout, "    %*s %14s %10s %10s\n", cols(name, 14), name,
			pm_model_target_kind(m) == PM_TARGET_TIME ? "predicted" : "time scale",
			"speedup", "efficiency");
		for (size_t k = 0; k < s->npoints; k++)
			cprintf(stdout, "    %14.6g %14.6g %10.3f %10.3f\n", s->value[k], s->time[k],
			       s->speedup[k], s->efficiency[k]);
	}
}

/* What a target of another kind than time was fitted as (docs/maths.md,
 * "Target kinds"): "  kind        speedup over nodes: fitted as the time
 * scale 1/speedup; accuracy in speedup". */
static void print_kind(const pm_model *m)
{
	pm_target_kind k = pm_model_target_kind(m);
	const char *name = pm_target_kind_name(k), *target = pm_model_target(m);
	size_t res = pm_model_target_resource(m), per = pm_model_target_per(m);

	if (k == PM_TARGET_TIME)
		return;
	cprintf(stdout, "  %-12s%s", "kind", name);
	if (res != (size_t)-1)
		cprintf(stdout, " over %s", pm_model_input_name(m, res));
	if (per != (size_t)-1)
		cprintf(stdout, " per %s", pm_model_input_name(m, per));
	cprintf(stdout, ": fitted as the time scale ");
	if (k == PM_TARGET_EFFICIENCY)
		cprintf(stdout, "1/(%s*%s)", pm_model_input_name(m, res), target);
	else
		cprintf(stdout, "%s/%s", per != (size_t)-1 ? pm_model_input_name(m, per) : "1",
			target);
	cprintf(stdout, " (parameters and scaling on it); accuracy and predictions in %s\n",
		target);
}

/* What the calibrated intervals say, as factors of the prediction (a
 * target kind's y = w / t turns the time's factors round). */
static void print_intervals(const pm_model *m)
{
	double lo, hi;
	int time = pm_model_target_kind(m) == PM_TARGET_TIME;
	size_t n = pm_model_interval_residuals(m);
	/* 90 %, or as much as n residuals reach (1/(n+1) to n/(n+1)) */
	double tail = n >= 19 ? 0.05 : 1.0 / (double)(n + 1), level = 1 - 2 * tail;

	if (pm_model_residual_quantile(m, tail, &lo, NULL) ||
	    pm_model_residual_quantile(m, 1 - tail, &hi, NULL))
		return;
	cprintf(stdout, "\nintervals (docs/cli.md, \"Prediction intervals\")\n"
		"  %.3g %% of the %zu fitted rows, each predicted by a fit without it%s, came "
		"within %.3g to %.3g times their prediction\n", 100 * level, n,
		n >= 19 ? "" : " (leave-one-out)", exp(time ? lo : -hi), exp(time ? hi : -lo));
	if (n >= 19)
		cprintf(stdout, "  predict --interval 0.9 gives every point its interval (wider "
			"outside the data's ranges)\n");
	else
		cprintf(stdout, "  predict --interval %.3g at most: %zu residuals tell nothing "
			"further out (20 rows are calibrated by folds and reach 0.9)\n",
			floor(level * 100) / 100, n);
}

static void print_fit_summary(const pm_model *m, const pm_dataset *d,
			      const pm_scaling_report *r, const char *out)
{
	const pm_fit_info *fi = pm_model_fit_info(m);

	cprintf(stdout, "data\n  %-12s%s, %zu rows\n  %-12s%s\n", "file", pm_dataset_name(d),
	       pm_dataset_nrows(d), "target", pm_model_target(m));
	print_kind(m);
	print_names("intrinsic", m, PM_ROLE_INTRINSIC);
	print_names("categorical", m, PM_ROLE_CATEGORICAL);
	print_names("extrinsic", m, PM_ROLE_EXTRINSIC);
	if (fi->seeds_asked || pm_model_nseeds(m))
		print_seed_table(m);
	print_param_rows(m);
	print_meaning(m);
	print_accuracy(fi);
	print_intervals(m);
	print_scaling(m, r);
	cprintf(stdout, "\nfit\n  %u generations, %llu evaluations, stop: %s%s\n", fi->generations,
	       (unsigned long long)fi->evaluations, fi->stop,
	       fi->options.polish ? (fi->polished ? ", polish improved it" : ", polish kept it")
				  : ", no polish");
	cprintf(stdout, "  %.3f s on %u thread%s, seed %llu, scale %s, cost (%s) %.6g\n", fi->wall_time_s,
	       fi->threads_used, fi->threads_used == 1 ? "" : "s",
	       (unsigned long long)fi->options.seed, pm_model_scale_name(m),
	       pm_loss_name(fi->options.loss), fi->cost);
	if (fi->warm_started)
		cprintf(stdout, "  warm-started from the model of %s (fingerprint %s, cost %.6g)\n",
			fi->warm_data[0] ? fi->warm_data : "(no fit record)",
			fi->warm_fingerprint[0] ? fi->warm_fingerprint : "-", fi->warm_cost);
	cprintf(stdout, "  saved to %s\n", out);
}


int print_fit_report(const pm_model *m, const pm_dataset *d, const char *out, int json,
		     const struct fit_extra *x)
{
	const pm_selection *sel = x ? x->sel : NULL;
	const pm_discovery *disc = x ? x->disc : NULL;
	pm_scaling_report *r = NULL;
	pm_error err = { 0 };
	char *doc = NULL;

	if (pm_scaling_report_new(m, d, &r, &err) ||
	    (json && (sel	 ? pm_select_report_to_json(m, r, sel, &doc, &err)
		      : disc ? pm_discover_report_to_json(m, r, disc, x->disc_validation, &doc, &err)
			     : pm_fit_report_to_json(m, r, &doc, &err)))) {
		report_error(&err);
		pm_scaling_report_free(r);
		return 1;
	}
	if (json)
		fputs(doc, stdout);
	else
		print_fit_summary(m, d, r, out);
	free(doc);
	pm_scaling_report_free(r);
	return 0;
}
