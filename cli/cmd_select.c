/* perfmodel select: choose the model form by cross-validation, then fit the
 * best one to every row and save it, as 'perfmodel fit --form auto'. The
 * options are fit's (cmd_fit.c parses them); this file holds what only
 * selection needs: the candidate list and the table. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

const char select_usage[] =
	"usage: perfmodel select DATA.csv [--forms F1,F2,...] [--cv K] [--cv-seed N]\n"
	"                        [--spec SPEC.json | ROLES] [fit options]\n"
	"\n"
	"Choose the model form by K-fold cross-validation: each candidate is fitted to\n"
	"K-1 folds of the rows and measured on the fold left out, K times, on the same\n"
	"seeded folds for every candidate. Prints a table (form, unknowns, held-out\n"
	"MAPE mean +- std over the folds, held-out R^2, time of one fit), then fits\n"
	"the form with the lowest held-out MAPE to every row and saves it, as\n"
	"'perfmodel fit' does. The same as 'perfmodel fit --form auto'.\n"
	"\n"
	"  --forms LIST           candidate forms, comma-separated: additive (thesis eq. 4.4),\n"
	"                         multiplicative, or a formula (default: " SELECT_DEFAULT_FORMS ")\n"
	"  --loss LIST            losses to fit each form with (default: " SELECT_DEFAULT_LOSSES ");\n"
	"                         every form is cross-validated with every loss\n"
	"  --cv K                 folds (default 5)\n"
	"  --cv-seed N            seed of the folds (default: the fit's --seed)\n"
	"\n"
	"Every option of 'perfmodel fit' applies to each fit ('perfmodel help fit'):\n"
	"roles or --spec, --reg, --seed, --threads, -o, --json, --quiet, ...\n"
	"With --json the table goes to stderr, the model document to stdout.\n";

int cmd_select(int argc, char **argv)
{
	return fit_command(argc, argv, 1);
}

/* Split a comma-separated list in place (empty items skipped) into item[]
 * of at least (commas + 1) entries; returns the count. */
static size_t split_list(char *list, const char **item)
{
	size_t n = 0;

	for (char *save = NULL, *tok = strtok_r(list, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save))
		item[n++] = tok;
	return n;
}

static size_t list_capacity(const char *list)
{
	size_t n = 1;

	for (const char *p = list; *p; p++)
		n += *p == ',';
	return n;
}

int check_loss_list(const char *list)
{
	char *copy = strdup(list);
	const char **item = malloc(list_capacity(list) * sizeof(*item));
	size_t n = copy && item ? split_list(copy, item) : 0;
	int bad = n == 0;
	pm_loss l;

	for (size_t i = 0; i < n; i++)
		bad |= pm_loss_from_name(item[i], &l, NULL) != PM_OK;
	free(copy);
	free(item);
	return bad;
}

static void print_table(FILE *f, const pm_candidate *cand, size_t n, const pm_cv_result *cv,
			size_t best, uint64_t seed)
{
	int w = (int)strlen("form");

	for (size_t i = 0; i < n; i++)
		if ((int)strlen(cand[i].form) > w)
			w = (int)strlen(cand[i].form);
	fprintf(f, "model selection: %u-fold cross-validation, fold seed %llu\n", cv[0].folds,
		(unsigned long long)seed);
	fprintf(f, "  %-*s %-5s %6s %22s %8s %10s\n", w, "form", "loss", "params",
		"held-out MAPE %", "R^2", "fit time s");
	for (size_t i = 0; i < n; i++)
		fprintf(f, "  %-*s %-5s %6zu %13.2f +- %6.2f %8.4f %10.3f%s\n", w, cand[i].form,
			pm_loss_name(cand[i].loss), cv[i].nparams, cv[i].mape, cv[i].mape_std,
			cv[i].r2, cv[i].fit_time_s, i == best ? "  <- best" : "");
	fprintf(f, "fitting '%s' (loss %s) to every training row\n\n", cand[best].form,
		pm_loss_name(cand[best].loss));
}

pm_status select_fit(const struct select_args *sa, const pm_dataset *d, const pm_spec *s,
		     const pm_fit_options *o, FILE *table, pm_model **m, pm_error *err)
{
	const char *ftext = sa->forms ? sa->forms : SELECT_DEFAULT_FORMS;
	const char *ltext = sa->losses ? sa->losses : SELECT_DEFAULT_LOSSES;
	char *flist = strdup(ftext), *llist = strdup(ltext);
	const char **forms = malloc(list_capacity(ftext) * sizeof(*forms));
	const char **losses = malloc(list_capacity(ltext) * sizeof(*losses));
	pm_candidate *cand = malloc(list_capacity(ftext) * list_capacity(ltext) * sizeof(*cand));
	pm_cv_result *cv = malloc(list_capacity(ftext) * list_capacity(ltext) * sizeof(*cv));
	uint64_t seed = sa->cv_seed_set ? sa->cv_seed : o->seed;
	size_t nf, nl, n = 0, best = 0;
	pm_status st;

	if (!flist || !llist || !forms || !losses || !cand || !cv) {
		st = PM_ENOMEM;
		*err = (pm_error){ .code = st };
		goto out;
	}
	nf = split_list(flist, forms);
	nl = split_list(llist, losses);
	for (size_t i = 0; i < nf; i++)
		for (size_t j = 0; j < nl; j++) {
			cand[n].form = forms[i];
			pm_loss_from_name(losses[j], &cand[n++].loss, NULL);	/* checked */
		}
	st = pm_select(d, s, o, cand, n, sa->cv, seed, cv, &best, m, err);
	if (!st && table)
		print_table(table, cand, n, cv, best, seed);
out:
	free(flist);
	free(llist);
	free(forms);
	free(losses);
	free(cand);
	free(cv);
	return st;
}
