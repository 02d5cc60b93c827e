/*
 * perfmodel/discover.h — discovering the model's terms (perfmodel
 * discover): a search over hypotheses ranked by held-out error. Included by
 * perfmodel.h; the conventions there hold.
 */
#ifndef PERFMODEL_DISCOVER_H
#define PERFMODEL_DISCOVER_H

#include <signal.h>
#include <stddef.h>
#include "perfmodel/predict.h"
#include "perfmodel/dataset.h"
#include "perfmodel/spec.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- discovering the model's terms (perfmodel discover, issue 21) ----------
 * A search over hypotheses t = C + sum_k c_k * M * term_k (docs/discover.md):
 * each term a product of up to 8 factors of the numeric inputs, x^i *
 * log2(x)^j (i from a set of fractions, negative ones included; j in 0..2)
 * or an indicator [x > v]; M the product of some categoricals' per-level
 * multipliers (or none); per-level offsets of a categorical in place of C.
 * Coefficients by weighted least squares with weights 1/t^2 (relative
 * error: small times count as much as large) and every coefficient >= 0
 * (each term adds time); hypotheses ranked by held-out MAPE under a
 * validation scheme, found by a beam search over moves (add a term, reshape
 * or multiply one, scale by a categorical, offsets), the fewest terms within
 * one standard error of the best chosen. A hypothesis whose
 * prediction at twice an input's largest value is <= 0, not finite, or more
 * than 16 times (or less than 1/16 of) that at the largest, is rejected. */
typedef struct pm_discover_options {
	unsigned max_terms;	/* terms besides the constant, 1..6 (3) */
	unsigned beam;		/* hypotheses the beam keeps at each step, 1..64 (16) */
	unsigned top;		/* candidates reported, 1..100 (10) */
	pm_validation validate;	/* how hypotheses are ranked (kfold:5, seed 1) */
	/* hypotheses evaluated side by side on this many threads (0: the
	 * CPUs; at most 1024); the result does not depend on it */
	unsigned threads;
	/* NULL, or polled between the search's steps, as pm_fit_options.stop:
	 * the search ends there, with what it has (interrupted set;
	 * pm_discover_file and pm_select_file then fail with PM_EFIT) */
	volatile sig_atomic_t *stop;
	/* pm_discover_file: fit `refined` (the powers fitted continuously from
	 * the search's numbers) rather than the chosen formula (0) */
	int refine;
} pm_discover_options;

PM_API pm_discover_options pm_discover_options_default(void);

typedef struct pm_discovered {
	char *formula;		/* in the language of pm_spec_set_form (docs/maths.md) */
	unsigned terms;		/* besides the constant or the per-level offsets */
	/* held-out MAPE (%): mean over the folds and the dealings; its
	 * standard error (std / sqrt(folds), mean over the dealings; 0 with
	 * one fold) */
	double mape;
	double mape_se;
} pm_discovered;

typedef struct pm_discovery {
	size_t n;		/* candidates, best held-out MAPE first */
	pm_discovered *cand;
	/* the fewest terms within one standard error of cand[0], or of the
	 * noise floor where that is higher */
	size_t chosen;
	/* the chosen formula with every power a fitted parameter (x^p1, ...),
	 * its log2 factors and indicators as they are */
	char *refined;
	size_t hypotheses;	/* evaluated */
	size_t rejected;	/* of those, rejected for how they extrapolate */
	unsigned folds;
	char what[512];		/* the validation in words (pm_folds.what) */
	/* the finalists (cand among them) were scored on this many dealings
	 * of kfold's folds, seeds seed .. seed + dealings - 1 (1: one dealing,
	 * another scheme or a fold per configuration) */
	unsigned dealings;
	/* the noise floor of repeated configurations (%; NaN: too few
	 * repeats), as pm_fit_info.choice's */
	double noise_floor;
	/* with a noise floor: the finalists whose lack of fit is within the
	 * noise (an F test of the configurations' means against the runs'
	 * spread, at 5 %); when some are, chosen is the least structure among
	 * them (docs/discover.md) */
	size_t adequate;
	double wall_time_s;
	/* 1: a stop request ended the search early; then n may be 0 (no
	 * candidate, no refined formula) */
	int interrupted;
} pm_discovery;

/* Search the terms of a model of d's target in the inputs of s (resolved
 * on a copy, as pm_fit does; a formula form is refused: discover writes
 * the formula). Deterministic; o NULL: the defaults. On success *out owns
 * the result (pm_discovery_free). A target kind other than time is
 * searched on its time scale (1/S, 1/(n E), per/X), as pm_fit fits it.
 * Errors: PM_EINVAL (bad options, a formula spec, no numeric or
 * categorical input to search), those of the target as pm_fit's (a value
 * <= 0, PM_EDOMAIN: the search weighs rows by 1/t², so a 0 is refused
 * whatever o's loss; the message names fit and select with mae instead),
 * those of pm_spec_resolve and pm_validation_folds, PM_EFIT when no
 * hypothesis survives, PM_ENOMEM. */
PM_API pm_status pm_discover(const pm_dataset *d, const pm_spec *s, const pm_discover_options *o,
			     pm_discovery **out, pm_error *err);
PM_API void pm_discovery_free(pm_discovery *x);	/* NULL: no-op */

#ifdef __cplusplus
}
#endif
#endif
