/* Validation schemes as text (--validate, model.json's fit.test_data):
 * "kfold:5", "loo", "extrapolate:threads:0.5". In the predictor library,
 * which reads model files; the folds themselves are lib/fit/validate.c's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/numcodec.h"
#include "perfmodel/perfmodel.h"

static int has_prefix(const char *s, const char *p)
{
	return strncmp(s, p, strlen(p)) == 0;
}

int pm_validation_is_scheme(const char *text)
{
	return text && (!strcmp(text, "kfold") || has_prefix(text, "kfold:") ||
			!strcmp(text, "loo") || !strcmp(text, "extrapolate") ||
			has_prefix(text, "extrapolate:"));
}

static pm_status parse_folds(const char *text, unsigned *k, pm_error *err)
{
	char *end;
	unsigned long v;

	if (!(*text >= '0' && *text <= '9'))
		goto bad;
	v = strtoul(text, &end, 10);
	if (*end || v < 2 || v > 1000000)
		goto bad;
	*k = (unsigned)v;
	return PM_OK;
bad:
	return pm__fail(err, PM_EINVAL, "kfold:K needs a whole number of folds 2..1000000, not '%s'",
			text);
}

/* "COL" or "COL:F" after "extrapolate:"; a last part that is not a number
 * belongs to the column's name. */
static pm_status parse_extrapolate(const char *text, pm_validation *v, pm_error *err)
{
	const char *colon = strrchr(text, ':');
	size_t len = strlen(text);

	if (colon) {
		char *end;
		double f = pm_strtod(colon + 1, &end);

		if (colon[1] && !*end) {
			if (!(f > 0 && f < 1))
				return pm__fail(err, PM_EINVAL,
						"extrapolate: the fraction trained on must be between "
						"0 and 1, not '%s'", colon + 1);
			v->fraction = f;
			len = (size_t)(colon - text);
		}
	}
	if (len == 0)
		return pm__fail(err, PM_EINVAL,
				"extrapolate needs a column: extrapolate:COL[:FRACTION]");
	if (len >= sizeof(v->column))
		return pm__fail(err, PM_EINVAL, "extrapolate: a column name of %zu bytes is too long "
				"(%zu at most)", len, sizeof(v->column) - 1);
	memcpy(v->column, text, len);
	v->column[len] = '\0';
	return PM_OK;
}

pm_status pm_validation_parse(const char *text, pm_validation *v, pm_error *err)
{
	pm_validation r = { .scheme = PM_SCHEME_KFOLD, .folds = 5, .seed = 1, .fraction = 0.5 };
	pm_status st = PM_OK;

	if (!text || !v)
		return pm__fail(err, PM_EINVAL, "pm_validation_parse: a NULL argument");
	if (!strcmp(text, "loo"))
		r.scheme = PM_SCHEME_LOO;
	else if (has_prefix(text, "kfold:"))
		st = parse_folds(text + 6, &r.folds, err);
	else if (has_prefix(text, "extrapolate:")) {
		r.scheme = PM_SCHEME_EXTRAPOLATE;
		st = parse_extrapolate(text + 12, &r, err);
	} else if (!strcmp(text, "extrapolate"))
		st = parse_extrapolate("", &r, err);
	else if (strcmp(text, "kfold"))
		st = pm__fail(err, PM_EINVAL, "unknown validation scheme '%s': kfold[:K], loo or "
			      "extrapolate:COL[:FRACTION]", text);
	if (!st)
		*v = r;
	return st;
}

int pm_validation_text(const pm_validation *v, char *out, size_t size)
{
	char f[PM_NUM_MAX];

	if (!out)
		size = 0;	/* the length alone, as snprintf(NULL, 0, ...) */
	switch (v ? v->scheme : PM_SCHEME_NONE) {
	case PM_SCHEME_KFOLD:
		return snprintf(out, size, "kfold:%u", v->folds);
	case PM_SCHEME_LOO:
		return snprintf(out, size, "loo");
	case PM_SCHEME_EXTRAPOLATE:
		pm__num_format(f, v->fraction);
		return snprintf(out, size, "extrapolate:%s:%s", v->column, f);
	default:
		return snprintf(out, size, "none");
	}
}
