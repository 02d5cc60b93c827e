/* The ensemble: refits on bootstrap resamples of the measured
 * configurations, and their log predictions at the candidates and targets
 * (plan_impl.h, docs/plan.md). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/detmath.h"
#include "core/error.h"
#include "core/pcg32.h"
#include "plan/plan_impl.h"

/* The rows of a resample, in a buffer that grows: a resample of groups
 * of unequal size can hold more rows than the data, but a bound fixed in
 * advance (groups x the largest group) is rows^2 at worst. */
struct row_buffer {
	size_t *rows, n, cap;
};

/* Append group grp's rows; 0, or -1 out of memory. */
static int append_group(const pm_plan_groups *g, size_t grp, struct row_buffer *b)
{
	size_t size = g->start[grp + 1] - g->start[grp];

	if (size > b->cap - b->n) {
		size_t cap = b->cap, *rows;

		while (size > cap - b->n) {
			if (cap > SIZE_MAX / 2 / sizeof(*rows))
				return -1;
			cap *= 2;
		}
		if (!(rows = realloc(b->rows, cap * sizeof(*rows))))
			return -1;
		b->rows = rows;
		b->cap = cap;
	}
	memcpy(&b->rows[b->n], &g->rows[g->start[grp]], size * sizeof(*b->rows));
	b->n += size;
	return 0;
}

/* Resample b's rows into buf: in each stratum as many groups as it has,
 * drawn with replacement from member b's own stream, each with all its
 * rows. 0, or -1 out of memory. */
static int resample(const pm_plan_groups *g, pm_pcg32 *rng, struct row_buffer *buf)
{
	buf->n = 0;
	for (size_t k = 0; k < g->nstrata; k++) {
		size_t lo = g->sstart[k], ng = g->sstart[k + 1] - lo;

		for (size_t j = 0; j < ng; j++)
			if (append_group(g, g->sgroups[lo + pm__pcg32_below(rng, (uint32_t)ng)], buf))
				return -1;
	}
	return 0;
}

/* Member m's log predictions of d's rows into l[0..nrows): 0, or -1 when
 * it cannot predict one (a level its resample lacked) or predicts no time
 * > 0 there. */
static int log_predict(const pm_model *m, const pm_dataset *d, double *l)
{
	size_t n = pm_dataset_nrows(d);

	if (pm_model_predict_dataset(m, d, l, NULL))
		return -1;
	for (size_t r = 0; r < n; r++) {
		if (!(l[r] > 0) || !isfinite(l[r]))
			return -1;
		l[r] = pm__log(l[r]);
	}
	return 0;
}

/* One member: resample, refit, predict every point into l[npoints]. 1 when
 * it is kept, 0 when left out, or the status of an error that ends the
 * plan (PM_ENOMEM) as a negative number. */
static int member(const pm_dataset *d, const pm_plan_groups *g, const pm_spec *s,
		  const pm_fit_options *mo, const pm_dataset *cand, const pm_dataset *targets,
		  uint64_t seed, unsigned b, struct row_buffer *rows, double *l)
{
	pm_pcg32 rng;
	pm_dataset *sub = NULL;
	pm_model *fit = NULL;
	pm_error e;
	pm_status st;
	int kept = 0;

	/* member b's own stream: the resamples are the same for any thread count */
	pm__pcg32_seed(&rng, seed, b);
	if (resample(g, &rng, rows))
		return -(int)PM_ENOMEM;
	st = pm_dataset_subset(d, rows->rows, rows->n, &sub, &e);
	if (!st)
		st = pm_fit(sub, s, mo, &fit, &e);
	if (st == PM_ENOMEM)
		return -(int)PM_ENOMEM;
	if (!st && !pm_model_fit_info(fit)->interrupted)
		kept = !log_predict(fit, cand, l) &&
		       !log_predict(fit, targets, l + pm_dataset_nrows(cand));
	pm_model_free(fit);
	pm_dataset_free(sub);
	return kept;
}

/* Each point's members centred and scaled: a a^T the covariance. */
static void centre(pm_plan_ensemble *e, const double *l)
{
	unsigned nb = e->nmembers;

	for (size_t j = 0; j < e->npoints; j++) {
		double mean = 0;

		for (unsigned b = 0; b < nb; b++)
			mean += l[(size_t)b * e->npoints + j];
		mean /= nb;
		for (unsigned b = 0; b < nb; b++)
			e->a[j * nb + b] = (l[(size_t)b * e->npoints + j] - mean) / sqrt(nb - 1.0);
	}
}

pm_status pm__plan_ensemble(const pm_dataset *d, const pm_plan_groups *g, const pm_spec *s,
			    const pm_fit_options *o, const pm_plan_forms *forms, unsigned *kept_by_form,
			    const pm_dataset *cand, const pm_dataset *targets,
			    const pm_plan_options *po, pm_plan_ensemble *e, pm_error *err)
{
	size_t np = pm_dataset_nrows(cand) + pm_dataset_nrows(targets);
	struct row_buffer rows = { NULL, 0, pm_dataset_nrows(d) + 1 };
	/* l[b * np + j]: kept member b's log prediction at point j */
	double *l = malloc(((size_t)po->members * np + 1) * sizeof(*l));
	pm_fit_options mo = pm__plan_refit_options(o);
	pm_status st = PM_OK;
	unsigned kept = 0;

	memset(e, 0, sizeof(*e));
	rows.rows = malloc(rows.cap * sizeof(*rows.rows));
	if (!rows.rows || !l) {
		st = pm__fail(err, PM_ENOMEM, "out of memory");
		goto out;
	}
	for (unsigned b = 0, form = 0, next = forms->members[0]; b < po->members; b++) {
		int r;

		while (b == next)
			next += forms->members[++form];

		/* each refit starts from its form's fit: a few generations, not a
		 * search; with that fit's loss (the choice's candidates differ in
		 * loss too), not the options' */
		mo.warm_start = forms->fit[form];
		mo.loss = pm_model_fit_info(mo.warm_start)->options.loss;
		mo.seed = o->seed + b;
		r = member(d, g, s, &mo, cand, targets, po->seed, b, &rows, l + (size_t)kept * np);
		if (r < 0) {
			st = pm__fail(err, PM_ENOMEM, "out of memory");
			goto out;
		}
		/* after each refit, the last too: a refit the stop cut short is
		 * the interruption, not a member left out */
		if (o->stop && *o->stop) {
			st = pm__fail(err, PM_EFIT, "interrupted during the refits on resampled "
				      "rows: nothing was planned");
			goto out;
		}
		kept += (unsigned)r;
		kept_by_form[form] += (unsigned)r;
	}
	if (kept < 2) {
		st = pm__fail(err, PM_EFIT, "only %u of %u refits on resampled rows succeeded: too "
			      "few to measure how uncertain the predictions are (measure more "
			      "configurations, or raise --members)", kept, po->members);
		goto out;
	}
	e->npoints = np;
	e->nmembers = kept;
	e->a = malloc((np * kept + 1) * sizeof(*e->a));
	if (!e->a) {
		st = pm__fail(err, PM_ENOMEM, "out of memory");
		goto out;
	}
	centre(e, l);
out:
	free(rows.rows);
	free(l);
	return st;
}

void pm__plan_ensemble_free(pm_plan_ensemble *e)
{
	free(e->a);
	memset(e, 0, sizeof(*e));
}
