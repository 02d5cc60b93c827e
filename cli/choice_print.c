/* The tables of a choice of form and of a search for terms, as fit,
 * select and discover print them before the chosen model (docs/cli.md). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

/* The table of a selection: each candidate's held-out MAPE and R², and
 * what makes one untrustworthy (docs/cli.md): a fit constant in some fold,
 * a held-out R² below 0. */
void print_selection(FILE *f, const pm_selection *sel, const pm_choice *ch)
{
	const pm_candidate *cand = sel->cand;
	const pm_cv_result *cv = sel->cv;
	int w = (int)strlen("form"), flagged = 0;

	for (size_t i = 0; i < sel->n; i++)
		if ((int)strlen(cand[i].form) > w)
			w = (int)strlen(cand[i].form);
	cprintf(f, "model selection: %s", ch->validation);
	/* the seed dealt the rows unless each is its own fold */
	if (sel->validation->scheme == PM_SCHEME_KFOLD && !strstr(ch->validation, "leave-one-out"))
		cprintf(f, ", fold seed %llu", (unsigned long long)sel->validation->seed);
	cprintf(f, "\n");
	cprintf(f, "  %-*s %-5s %6s %22s %8s %10s\n", w, "form", "loss", "params",
		"held-out MAPE %", "R^2", "fit time s");
	for (size_t i = 0; i < sel->n; i++) {
		/* n/a: R² of one held-out row, the std of one fold, a MAPE of
		 * held-out rows that are all 0 (docs/maths.md, "Targets of 0") */
		char r2[16] = "n/a", sd[16] = "   n/a", mape[16] = "n/a";

		if (!isnan(cv[i].r2))
			pm_snprintf(r2, sizeof(r2), "%.4f", cv[i].r2);
		if (!isnan(cv[i].mape_std))
			pm_snprintf(sd, sizeof(sd), "%6.2f", cv[i].mape_std);
		if (!isnan(cv[i].mape))
			pm_snprintf(mape, sizeof(mape), "%.2f", cv[i].mape);
		if (cv[i].note[0]) {
			cprintf(f, "  %-*s %-5s  left out: %s\n", w, cand[i].form,
				pm_loss_name(cand[i].loss), cv[i].note);
			continue;
		}
		cprintf(f, "  %-*s %-5s %6zu %13s +- %6s %8s %10.3f%s", w, cand[i].form,
			pm_loss_name(cand[i].loss), cv[i].nparams, mape, sd, r2,
			cv[i].fit_time_s, i == sel->best ? "  <- chosen"
					   : i == ch->lowest ? "  (lowest)" : "");
		if (cv[i].constant_folds)
			cprintf(f, "  constant fit (%u of %u folds)", cv[i].constant_folds,
				cv[i].folds);
		if (r2_words(cv[i].r2))
			cprintf(f, "  R^2 < 0: %s", r2_words(cv[i].r2));
		flagged |= cv[i].constant_folds != 0;
		cprintf(f, "\n");
	}
	if (flagged)
		cprintf(f, "  a constant fit predicts one value whatever the inputs: constant in "
			"every fold and within one standard error of the lowest, it is chosen (no "
			"input's effect shows); in some folds only, it is chosen only when the "
			"lowest is one too\n");
	if (sel->discovery)
		cprintf(f, "  discover: %s\n", sel->discovery->cand[sel->discovery->chosen].formula);
	if (!isnan(ch->yardstick))
		cprintf(f, "  yardstick: a log-linear fit of the same inputs (closed form) holds out "
			"%.2f %% on the same folds\n", ch->yardstick);
	if (!isnan(ch->noise_floor))
		cprintf(f, "  noise floor: %.2f %%, the spread of repeated runs of one configuration "
			"(what a perfect model misses a new run by); no candidate counts as better "
			"than that\n", ch->noise_floor);
	cprintf(f, "chosen: %s (loss %s), %s; fitting it to every training row\n\n",
		cand[sel->best].form, pm_loss_name(cand[sel->best].loss), ch->why);
}

/* The discovery's table: the candidates by held-out MAPE, the chosen one
 * marked. */
void print_discovery(FILE *f, const pm_discovery *x, const pm_validation *v, int refine)
{
	cprintf(f, "discovery: %s", x->what);
	if (v->scheme == PM_SCHEME_KFOLD && !strstr(x->what, "leave-one-out"))
		cprintf(f, ", fold seed %llu", (unsigned long long)v->seed);
	cprintf(f, "\n  %zu hypotheses, %zu rejected (they collapse or explode at twice an input's "
		"largest value), %.2f s\n", x->hypotheses, x->rejected, x->wall_time_s);
	cprintf(f, "  %5s %22s  %s\n", "terms", "held-out MAPE %", "formula");
	for (size_t i = 0; i < x->n; i++)
		cprintf(f, "  %5u %13.2f +- %6.2f  %s%s\n", x->cand[i].terms, x->cand[i].mape,
			x->cand[i].mape_se, x->cand[i].formula, i == x->chosen ? "  <- chosen" : "");
	if (x->dealings > 1)
		cprintf(f, "  the best of each size scored again: held-out MAPE over %u dealings of "
			"the folds (fold seeds %llu to %llu)\n", x->dealings,
			(unsigned long long)v->seed,
			(unsigned long long)(v->seed + x->dealings - 1));
	if (!isnan(x->noise_floor))
		cprintf(f, "  noise floor %.2f %%: repeated configurations' runs differ by that "
			"much; no hypothesis counts as better\n", x->noise_floor);
	if (x->adequate)
		cprintf(f, "chosen: the fewest terms whose lack of fit is within the noise (%zu of "
			"the finalists: their configurations' means differ from the fit no more "
			"than the runs from their means, F test at 5 %%); fitting it to every row\n",
			x->adequate);
	else
		cprintf(f, "chosen: the fewest terms within one standard error of the best%s; "
			"fitting it to every row\n",
			isnan(x->noise_floor) ? "" : " (or of the noise floor)");
	if (refine)
		cprintf(f, "refined: its powers fitted from the data: %s\n", x->refined);
	cprintf(f, "\n");
}
