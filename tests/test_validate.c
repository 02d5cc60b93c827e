/* Validation schemes (issue 20): their text (lib/model/validation.c), the
 * folds they deal (lib/fit/validate.c) and a fit they validate
 * (pm_fit_options.validate, lib/select/fit_validated.c). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "leak_check.h"
#include "synth_fit.h"

PM_LEAK_CHECKED_SUITE(validate);

static pm_fit_options quick(void)
{
	pm_fit_options o = pm_fit_options_default();

	o.maxiter = 40;
	o.threads = 1;
	return o;
}

static pm_dataset *csv_dataset(const char *csv)
{
	pm_dataset *d = NULL;
	pm_error err = { 0 };

	cr_assert_eq(pm_dataset_parse_csv(csv, strlen(csv), "v.csv", &d, &err), PM_OK, "%s",
		     err.msg);
	return d;
}

/* Target time, intrinsic x, the given categorical and extrinsic columns. */
static pm_spec *spec_of(const char *categorical, const char *extrinsic)
{
	pm_spec *s = NULL;

	cr_assert_eq(pm_spec_new(&s, NULL), PM_OK);
	cr_assert_eq(pm_spec_set_target(s, "time", NULL), PM_OK);
	cr_assert_eq(pm_spec_add_names(s, PM_SPEC_INTRINSIC, "x", NULL), PM_OK);
	cr_assert_eq(pm_spec_add_names(s, PM_SPEC_CATEGORICAL, categorical, NULL), PM_OK);
	cr_assert_eq(pm_spec_add_names(s, PM_SPEC_EXTRINSIC, extrinsic, NULL), PM_OK);
	return s;
}

/* Rows x,dev,time: level[i] repeated count[i] times, x = 1, 2, ... */
static pm_dataset *levels_dataset(const char *const *level, const unsigned *count, size_t n)
{
	char csv[8192];
	size_t len = (size_t)snprintf(csv, sizeof(csv), "x,dev,time\n");
	unsigned x = 1;

	for (size_t i = 0; i < n; i++)
		for (unsigned j = 0; j < count[i]; j++, x++)
			len += (size_t)snprintf(csv + len, sizeof(csv) - len, "%u,%s,%u.5\n", x,
						level[i], 3 * x + 1);
	cr_assert_lt(len, sizeof(csv));
	return csv_dataset(csv);
}

static pm_validation parsed(const char *text)
{
	pm_validation v;
	pm_error err = { 0 };

	cr_assert_eq(pm_validation_parse(text, &v, &err), PM_OK, "%s: %s", text, err.msg);
	return v;
}

static int same_scheme(const pm_validation *a, const pm_validation *b)
{
	return a->scheme == b->scheme && a->folds == b->folds && a->seed == b->seed &&
	       !strcmp(a->column, b->column) && memcmp(&a->fraction, &b->fraction, sizeof(double)) == 0;
}

/* ---- the schemes' text ---------------------------------------------------- */

Test(validate, parse)
{
	pm_validation v = parsed("kfold");

	cr_expect_eq(v.scheme, PM_SCHEME_KFOLD);
	cr_expect_eq(v.folds, 5);
	cr_expect_eq(v.seed, 1);
	v = parsed("kfold:3");
	cr_expect_eq(v.scheme, PM_SCHEME_KFOLD);
	cr_expect_eq(v.folds, 3);
	cr_expect_eq(v.seed, 1);
	v = parsed("kfold:1000000");
	cr_expect_eq(v.folds, 1000000);
	cr_expect_eq(parsed("loo").scheme, PM_SCHEME_LOO);
	v = parsed("extrapolate:threads");
	cr_expect_eq(v.scheme, PM_SCHEME_EXTRAPOLATE);
	cr_expect_str_eq(v.column, "threads");
	cr_expect_eq(v.fraction, 0.5);
	v = parsed("extrapolate:threads:0.25");
	cr_expect_eq(v.scheme, PM_SCHEME_EXTRAPOLATE);
	cr_expect_str_eq(v.column, "threads");
	cr_expect_eq(v.fraction, 0.25);
	/* the last part names the fraction only when it is a number */
	v = parsed("extrapolate:a:b");
	cr_expect_str_eq(v.column, "a:b");
	cr_expect_eq(v.fraction, 0.5);
	v = parsed("extrapolate:a:b:0.75");
	cr_expect_str_eq(v.column, "a:b");
	cr_expect_eq(v.fraction, 0.75);
	v = parsed("extrapolate:a:");
	cr_expect_str_eq(v.column, "a:");
}

Test(validate, parse_errors_leave_v_unchanged)
{
	char longname[300 + 16];
	const char *bad[] = { "kfold:1", "kfold:0", "kfold:x", "kfold:", "kfold:3x", "kfold:-3",
			      "kfold:+3", "kfold:1000001", "extrapolate", "extrapolate:",
			      "extrapolate:t:0", "extrapolate:t:1", "extrapolate:t:1.5",
			      "extrapolate:t:-0.5", "extrapolate::0.5", longname, "nonsense",
			      "", "kfolds", "loo:3", "KFOLD" };

	snprintf(longname, sizeof(longname), "extrapolate:%0300d", 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		pm_validation v, before;
		pm_error err = { 0 };

		memset(&v, 0xa5, sizeof(v));
		before = v;
		cr_expect_eq(pm_validation_parse(bad[i], &v, &err), PM_EINVAL, "'%s'", bad[i]);
		cr_expect_neq(err.msg[0], '\0', "'%s' says nothing", bad[i]);
		cr_expect_eq(memcmp(&v, &before, sizeof(v)), 0, "'%s' changed *v", bad[i]);
	}
	cr_expect_eq(pm_validation_parse(NULL, &(pm_validation){ 0 }, NULL), PM_EINVAL);
	cr_expect_eq(pm_validation_parse("kfold", NULL, NULL), PM_EINVAL);
}

Test(validate, long_column_names)
{
	char text[300], col[256];
	pm_validation v;
	pm_error err = { 0 };

	/* 255 bytes fit, 256 do not */
	memset(col, 'c', 255);
	col[255] = '\0';
	snprintf(text, sizeof(text), "extrapolate:%s:0.5", col);
	cr_assert_eq(pm_validation_parse(text, &v, &err), PM_OK, "%s", err.msg);
	cr_expect_str_eq(v.column, col);
	snprintf(text, sizeof(text), "extrapolate:%sc:0.5", col);
	cr_expect_eq(pm_validation_parse(text, &v, &err), PM_EINVAL);
	cr_expect_str_eq(v.column, col, "unchanged");
	cr_expect(strstr(err.msg, "256"), "%s", err.msg);
}

Test(validate, is_scheme)
{
	const char *yes[] = { "kfold", "kfold:3", "kfold:x", "loo", "extrapolate",
			      "extrapolate:x", "extrapolate:x:0.5" };
	const char *no[] = { "loop.csv", "kfolds.csv", "kfold.csv", "loo.csv", "extrapolate.csv",
			     "data/kfold:3", "", "none" };

	for (size_t i = 0; i < sizeof(yes) / sizeof(*yes); i++)
		cr_expect(pm_validation_is_scheme(yes[i]), "'%s'", yes[i]);
	for (size_t i = 0; i < sizeof(no) / sizeof(*no); i++)
		cr_expect(!pm_validation_is_scheme(no[i]), "'%s'", no[i]);
	cr_expect(!pm_validation_is_scheme(NULL));
}

Test(validate, text_round_trip)
{
	const char *texts[] = { "kfold", "kfold:3", "kfold:17", "loo", "extrapolate:threads",
				"extrapolate:threads:0.3", "extrapolate:threads:0.25",
				"extrapolate:a:b", "extrapolate:a:1:0.1", "extrapolate:x::0.9",
				"extrapolate:5", "extrapolate:t:0.123456789012345" };

	for (size_t i = 0; i < sizeof(texts) / sizeof(*texts); i++) {
		pm_validation v = parsed(texts[i]), back;
		char text[320];
		int len = pm_validation_text(&v, text, sizeof(text));

		cr_expect_eq(len, (int)strlen(text), "%s", text);
		back = parsed(text);
		cr_expect(same_scheme(&v, &back), "'%s' -> '%s'", texts[i], text);
	}
	{
		char text[320];

		pm_validation_text(&(pm_validation){ .scheme = PM_SCHEME_KFOLD, .folds = 3 }, text,
				   sizeof(text));
		cr_expect_str_eq(text, "kfold:3");
		pm_validation_text(&(pm_validation){ .scheme = PM_SCHEME_LOO }, text, sizeof(text));
		cr_expect_str_eq(text, "loo");
		pm_validation_text(&(pm_validation){ .scheme = PM_SCHEME_EXTRAPOLATE,
						     .column = "threads", .fraction = 0.3 },
				   text, sizeof(text));
		cr_expect_str_eq(text, "extrapolate:threads:0.3");
		pm_validation_text(&(pm_validation){ PM_SCHEME_NONE }, text, sizeof(text));
		cr_expect_str_eq(text, "none");
		pm_validation_text(NULL, text, sizeof(text));
		cr_expect_str_eq(text, "none");
		{
			/* a fraction with 17 significant digits reads back to the bit */
			pm_validation v = { .scheme = PM_SCHEME_EXTRAPOLATE, .column = "t",
					    .fraction = 0.1 + 0.2 };

			pm_validation_text(&v, text, sizeof(text));
			cr_expect_eq(parsed(text).fraction, 0.1 + 0.2, "%s", text);
		}
		/* truncated as snprintf, the length it needs returned */
		cr_expect_eq(pm_validation_text(&(pm_validation){ .scheme = PM_SCHEME_KFOLD,
								  .folds = 12 }, text, 4), 8);
		cr_expect_str_eq(text, "kfo");
	}
}

/* ---- the folds ---------------------------------------------------------- */

/* Every level of column `col` has a row in the training rows of every fold;
 * a level whose rows all sit in one fold has one of them kept instead. */
static void expect_levels_trained(const pm_dataset *d, const char *col, const pm_folds *f)
{
	size_t c, n = pm_dataset_nrows(d);
	uint32_t code[256];

	cr_assert_leq(n, 256);
	cr_assert_eq(pm_dataset_col_index(d, col, &c, NULL), PM_OK);
	pm_dataset_col_codes(d, c, code);
	for (size_t l = 0; l < pm_dataset_col_nlevels(d, c); l++)
		for (unsigned k = 0; k < f->nfolds; k++) {
			int trained = 0;

			for (size_t r = 0; r < n; r++)
				trained |= code[r] == l && f->fold[r] != k;
			cr_expect(trained, "level '%s' of %s: no training row in fold %u",
				  pm_dataset_level_name(d, c, l), col, k);
		}
}

/* The folds are well formed: each of 0..nfolds-1 holds rows out, kept
 * counts the others. */
static void expect_well_formed(const pm_folds *f, size_t nrows)
{
	size_t kept = 0;

	cr_assert_eq(f->nrows, nrows);
	cr_assert(f->fold);
	for (unsigned k = 0; k < f->nfolds; k++) {
		size_t held = 0;

		for (size_t r = 0; r < nrows; r++)
			held += f->fold[r] == k;
		cr_expect_gt(held, 0, "fold %u holds nothing out", k);
	}
	for (size_t r = 0; r < nrows; r++)
		kept += f->fold[r] >= f->nfolds;
	cr_expect_eq(kept, f->kept);
	cr_expect_neq(f->what[0], '\0');
}

static pm_dataset *numbers_dataset(size_t n)
{
	char csv[4096];
	size_t len = (size_t)snprintf(csv, sizeof(csv), "x,time\n");

	for (size_t r = 0; r < n; r++)
		len += (size_t)snprintf(csv + len, sizeof(csv) - len, "%zu,%zu\n", r + 1, 2 * r + 3);
	return csv_dataset(csv);
}

/* A compatibility promise: without categorical inputs, kfold is
 * pm_kfold_assign's folds. */
Test(validate, folds_without_categoricals_are_kfold_assign)
{
	pm_dataset *d = numbers_dataset(23);
	pm_spec *s = spec_of("", "");

	for (unsigned k = 2; k <= 7; k++)
		for (uint64_t seed = 1; seed <= 4; seed++) {
			unsigned want[23];
			size_t size[7] = { 0 }, lo = 23, hi = 0;
			pm_folds a, b;
			pm_validation v = { .scheme = PM_SCHEME_KFOLD, .folds = k, .seed = seed };
			pm_error err = { 0 };

			cr_assert_eq(pm_kfold_assign(23, k, seed, want, NULL), PM_OK);
			cr_assert_eq(pm_validation_folds(d, s, &v, &a, &err), PM_OK, "%s", err.msg);
			cr_assert_eq(pm_validation_folds(d, NULL, &v, &b, &err), PM_OK, "%s", err.msg);
			expect_well_formed(&a, 23);
			cr_expect_eq(a.nfolds, k);
			cr_expect_eq(a.kept, 0);
			cr_expect_eq(memcmp(a.fold, want, sizeof(want)), 0, "k %u seed %llu", k,
				     (unsigned long long)seed);
			cr_expect_eq(memcmp(b.fold, want, sizeof(want)), 0, "spec NULL");
			cr_expect(strstr(a.what, "fold"), "%s", a.what);
			cr_expect(!strstr(a.what, "stratified"), "%s", a.what);
			for (size_t r = 0; r < 23; r++)
				size[a.fold[r]]++;
			for (unsigned f = 0; f < k; f++) {
				lo = size[f] < lo ? size[f] : lo;
				hi = size[f] > hi ? size[f] : hi;
			}
			cr_expect_leq(hi - lo, 1, "fold sizes %zu..%zu", lo, hi);
			pm_folds_free(&a);
			pm_folds_free(&b);
			cr_expect_null(a.fold);
		}
	pm_folds_free(NULL);
	pm_spec_free(s);
	pm_dataset_free(d);
}

/* Levels of 10, 3 and 2 rows over 5 folds: each level is in every fold's
 * training rows, and is spread over the folds evenly. */
Test(validate, stratified)
{
	const char *level[] = { "a", "b", "c" };
	const unsigned count[] = { 10, 3, 2 };
	pm_dataset *d = levels_dataset(level, count, 3);
	pm_spec *s = spec_of("dev", "");
	uint32_t code[15];
	size_t c;
	pm_folds first;

	cr_assert_eq(pm_dataset_col_index(d, "dev", &c, NULL), PM_OK);
	pm_dataset_col_codes(d, c, code);
	for (uint64_t seed = 1; seed <= 20; seed++) {
		pm_folds f;
		pm_error err = { 0 };

		cr_assert_eq(pm_validation_folds(d, s, &(pm_validation){ .scheme = PM_SCHEME_KFOLD,
			     .folds = 5, .seed = seed }, &f, &err), PM_OK, "%s", err.msg);
		expect_well_formed(&f, 15);
		cr_expect_eq(f.nfolds, 5);
		cr_expect_eq(f.kept, 0);
		cr_expect(strstr(f.what, "stratified by dev"), "%s", f.what);
		expect_levels_trained(d, "dev", &f);
		/* a level's rows are in as many folds as they can be */
		for (size_t l = 0; l < 3; l++) {
			unsigned per[5] = { 0 }, lo = 99, hi = 0;

			for (size_t r = 0; r < 15; r++)
				per[f.fold[r]] += code[r] == l;
			for (unsigned k = 0; k < 5; k++) {
				lo = per[k] < lo ? per[k] : lo;
				hi = per[k] > hi ? per[k] : hi;
			}
			cr_expect_leq(hi - lo, 1, "seed %llu level %zu", (unsigned long long)seed, l);
		}
		if (seed == 1)
			first = f;
		else {
			if (seed == 2)
				cr_expect_neq(memcmp(first.fold, f.fold, 15 * sizeof(*f.fold)), 0,
					      "seeds 1 and 2 dealt the same folds");
			pm_folds_free(&f);
		}
	}
	{
		pm_folds again;

		cr_assert_eq(pm_validation_folds(d, s, &(pm_validation){ .scheme = PM_SCHEME_KFOLD,
			     .folds = 5, .seed = 1 }, &again, NULL), PM_OK);
		cr_expect_eq(memcmp(first.fold, again.fold, 15 * sizeof(*first.fold)), 0,
			     "seed 1 dealt other folds the second time");
		cr_expect_str_eq(first.what, again.what);
		pm_folds_free(&again);
	}
	pm_folds_free(&first);
	pm_spec_free(s);
	pm_dataset_free(d);
}

/* The roles are the spec's as pm_fit resolves them: inferred ones too (a
 * text column is categorical); a spec the data does not fit fails. */
Test(validate, folds_by_the_spec_roles)
{
	const char *level[] = { "a", "b", "lonely" };
	const unsigned count[] = { 6, 5, 1 };
	pm_dataset *d = levels_dataset(level, count, 3);
	pm_spec *infer = NULL, *s = spec_of("dev,nosuch", "");
	pm_validation v = parsed("kfold:3");
	pm_folds f;
	pm_error err = { 0 };

	cr_assert_eq(pm_spec_new(&infer, NULL), PM_OK);
	cr_assert_eq(pm_spec_set_target(infer, "time", NULL), PM_OK);
	cr_assert_eq(pm_validation_folds(d, infer, &v, &f, &err), PM_OK, "%s", err.msg);
	cr_expect(pm_spec_infers_roles(infer), "the caller's spec is not resolved");
	cr_expect(strstr(f.what, "stratified by dev"), "%s", f.what);
	cr_expect_eq(f.kept, 1);
	cr_expect_geq(f.fold[11], f.nfolds);
	expect_levels_trained(d, "dev", &f);
	pm_folds_free(&f);
	cr_expect_eq(pm_validation_folds(d, s, &v, &f, &err), PM_ESCHEMA);
	cr_expect(strstr(err.msg, "nosuch"), "%s", err.msg);
	cr_expect_null(f.fold);
	pm_spec_free(infer);
	pm_spec_free(s);
	pm_dataset_free(d);
}

/* A level in one row cannot be in every fold's training rows unless no
 * fold holds it out. */
Test(validate, a_level_of_one_row_is_kept)
{
	const char *level[] = { "a", "b", "c", "lonely" };
	const unsigned count[] = { 10, 3, 2, 1 };
	pm_dataset *d = levels_dataset(level, count, 4);
	pm_spec *s = spec_of("dev", "");

	for (uint64_t seed = 1; seed <= 10; seed++) {
		pm_folds f;
		pm_error err = { 0 };

		cr_assert_eq(pm_validation_folds(d, s, &(pm_validation){ .scheme = PM_SCHEME_KFOLD,
			     .folds = 5, .seed = seed }, &f, &err), PM_OK, "%s", err.msg);
		expect_well_formed(&f, 16);
		cr_expect_eq(f.kept, 1);
		cr_expect_eq(f.nfolds, 5);
		/* "lonely" is the last row */
		cr_expect_geq(f.fold[15], f.nfolds);
		for (size_t r = 0; r < 15; r++)
			cr_expect_lt(f.fold[r], f.nfolds);
		cr_expect(strstr(f.what, "'lonely'"), "%s", f.what);
		cr_expect(strstr(f.what, "1 row never held out"), "%s", f.what);
		expect_levels_trained(d, "dev", &f);
		pm_folds_free(&f);
	}
	pm_spec_free(s);
	pm_dataset_free(d);
}

/* Two categorical inputs: the property holds for each level of each. */
Test(validate, two_categoricals)
{
	char csv[4096];
	size_t len = (size_t)snprintf(csv, sizeof(csv), "x,dev,os,time\n");
	const char *dev[] = { "cpu", "cpu", "cpu", "gpu", "gpu", "tpu", "tpu", "fpga" };
	const char *os[] = { "linux", "linux", "bsd", "bsd", "win", "mac" };
	pm_dataset *d;
	pm_spec *s = spec_of("dev,os", "");
	unsigned prev[41];

	/* dev cycles with period 8, os with period 6: the levels overlap
	 * unevenly, "fpga" in 5 rows, "win" and "mac" in 7 or so */
	for (unsigned r = 0; r < 41; r++)
		len += (size_t)snprintf(csv + len, sizeof(csv) - len, "%u,%s,%s,%u\n", r + 1,
					dev[r % 8], os[(r * 5 + r / 7) % 6], 2 * r + 1);
	d = csv_dataset(csv);
	for (uint64_t seed = 1; seed <= 30; seed++)
		for (unsigned k = 2; k <= 9; k += 7) {
			pm_folds f;
			pm_error err = { 0 };

			cr_assert_eq(pm_validation_folds(d, s, &(pm_validation){
				.scheme = PM_SCHEME_KFOLD, .folds = k, .seed = seed }, &f, &err),
				PM_OK, "%s", err.msg);
			expect_well_formed(&f, 41);
			cr_expect(strstr(f.what, "stratified by dev,os"), "%s", f.what);
			expect_levels_trained(d, "dev", &f);
			expect_levels_trained(d, "os", &f);
			if (k == 9 && seed > 1)
				cr_expect_neq(memcmp(prev, f.fold, sizeof(prev)), 0, "seed %llu",
					      (unsigned long long)seed);
			if (k == 9)
				memcpy(prev, f.fold, sizeof(prev));
			pm_folds_free(&f);
		}
	pm_spec_free(s);
	pm_dataset_free(d);
}

/* Fewer rows than folds is leave-one-out; so is loo. */
Test(validate, leave_one_out)
{
	pm_dataset *d = numbers_dataset(4), *d7 = numbers_dataset(7);
	const char *level[] = { "a", "b" };
	const unsigned count[] = { 3, 1 };
	pm_dataset *dl = levels_dataset(level, count, 2);
	pm_spec *s = spec_of("", ""), *sl = spec_of("dev", "");
	pm_folds f;
	pm_error err = { 0 };

	cr_assert_eq(pm_validation_folds(d, s, &(pm_validation){ .scheme = PM_SCHEME_KFOLD,
		     .folds = 5, .seed = 1 }, &f, &err), PM_OK, "%s", err.msg);
	expect_well_formed(&f, 4);
	cr_expect_eq(f.nfolds, 4);
	cr_expect_eq(f.kept, 0);
	cr_expect(strstr(f.what, "leave-one-out"), "%s", f.what);
	pm_folds_free(&f);
	/* one of the 4 rows is kept: 3 folds */
	cr_assert_eq(pm_validation_folds(dl, sl, &(pm_validation){ .scheme = PM_SCHEME_KFOLD,
		     .folds = 5, .seed = 1 }, &f, &err), PM_OK, "%s", err.msg);
	expect_well_formed(&f, 4);
	cr_expect_eq(f.nfolds, 3);
	cr_expect_eq(f.kept, 1);
	cr_expect_geq(f.fold[3], f.nfolds);
	cr_expect(strstr(f.what, "leave-one-out"), "%s", f.what);
	cr_expect(strstr(f.what, "'b'"), "%s", f.what);
	pm_folds_free(&f);
	cr_assert_eq(pm_validation_folds(d7, s, &(pm_validation){ .scheme = PM_SCHEME_LOO }, &f,
					 &err), PM_OK, "%s", err.msg);
	expect_well_formed(&f, 7);
	cr_expect_eq(f.nfolds, 7);
	cr_expect_eq(f.kept, 0);
	cr_expect(strstr(f.what, "leave-one-out"), "%s", f.what);
	for (size_t r = 0; r < 7; r++)
		for (size_t q = 0; q < r; q++)
			cr_expect_neq(f.fold[r], f.fold[q], "rows %zu and %zu", q, r);
	pm_folds_free(&f);
	pm_spec_free(s);
	pm_spec_free(sl);
	pm_dataset_free(d);
	pm_dataset_free(d7);
	pm_dataset_free(dl);
}

Test(validate, fold_errors)
{
	const char *level[] = { "p", "q", "r", "s", "t", "u" };
	const unsigned count[] = { 1, 1, 1, 1, 1, 1 };
	pm_dataset *d = levels_dataset(level, count, 6), *one = numbers_dataset(1);
	pm_spec *s = spec_of("dev", "");
	pm_folds f = { .nfolds = 9 };
	pm_error err = { 0 };

	/* every row its own level: every row kept, nothing to hold out */
	cr_expect_eq(pm_validation_folds(d, s, &(pm_validation){ .scheme = PM_SCHEME_KFOLD,
		     .folds = 3, .seed = 1 }, &f, &err), PM_EINVAL);
	cr_expect_null(f.fold);
	cr_expect_eq(f.nfolds, 0);
	cr_expect_eq(pm_validation_folds(d, s, &(pm_validation){ .scheme = PM_SCHEME_LOO }, &f,
					 &err), PM_EINVAL);
	/* without the categorical, the same rows are fine */
	cr_assert_eq(pm_validation_folds(d, NULL, &(pm_validation){ .scheme = PM_SCHEME_LOO }, &f,
					 &err), PM_OK, "%s", err.msg);
	pm_folds_free(&f);
	cr_expect_eq(pm_validation_folds(d, s, &(pm_validation){ .scheme = PM_SCHEME_KFOLD,
		     .folds = 1, .seed = 1 }, &f, &err), PM_EINVAL);
	cr_expect_eq(pm_validation_folds(d, s, &(pm_validation){ PM_SCHEME_NONE }, &f, &err),
		     PM_EINVAL);
	cr_expect_eq(pm_validation_folds(d, s, &(pm_validation){ .scheme = (pm_scheme)9 }, &f,
					 &err), PM_EINVAL);
	cr_expect_eq(pm_validation_folds(one, NULL, &(pm_validation){ .scheme = PM_SCHEME_LOO },
					 &f, &err), PM_EINVAL, "one row");
	cr_expect_eq(pm_validation_folds(NULL, s, &(pm_validation){ .scheme = PM_SCHEME_LOO }, &f,
					 &err), PM_EINVAL);
	cr_expect_eq(pm_validation_folds(d, s, NULL, &f, &err), PM_EINVAL);
	cr_expect_eq(pm_validation_folds(d, s, &(pm_validation){ .scheme = PM_SCHEME_LOO }, NULL,
					 &err), PM_EINVAL);
	cr_expect_null(f.fold);
	pm_spec_free(s);
	pm_dataset_free(d);
	pm_dataset_free(one);
}

/* threads 1, 2, 4, ... 32, three rows each (devices a, b, c), and a
 * column `one` of a single value. */
static pm_dataset *threads_dataset(void)
{
	char csv[4096];
	size_t len = (size_t)snprintf(csv, sizeof(csv), "threads,dev,one,x,time\n");

	for (unsigned t = 1; t <= 32; t *= 2)
		for (unsigned i = 0; i < 3; i++)
			len += (size_t)snprintf(csv + len, sizeof(csv) - len, "%u,%c,7,%u,%g\n", t,
						'a' + i, i + 1, 10.0 / t + i + 1);
	return csv_dataset(csv);
}

/* The rows trained on (fold 1) are those with threads <= max. */
static void expect_extrapolation(const pm_dataset *d, const pm_spec *s, const char *scheme,
				 unsigned max)
{
	pm_validation v = parsed(scheme);
	double t[18];
	size_t c, train = 0;
	pm_folds f;
	pm_error err = { 0 };

	cr_assert_eq(pm_dataset_col_index(d, "threads", &c, NULL), PM_OK);
	cr_assert_eq(pm_dataset_col_numbers(d, c, t, NULL), PM_OK);
	cr_assert_eq(pm_validation_folds(d, s, &v, &f, &err), PM_OK, "%s: %s", scheme, err.msg);
	expect_well_formed(&f, 18);
	cr_expect_eq(f.nfolds, 1, "%s", scheme);
	for (size_t r = 0; r < 18; r++) {
		cr_expect_eq(f.fold[r], t[r] <= max, "%s: row %zu (threads %g)", scheme, r, t[r]);
		train += t[r] <= max;
	}
	cr_expect_eq(f.kept, train, "%s", scheme);
	cr_expect(strstr(f.what, "extrapolation along threads"), "%s", f.what);
	pm_folds_free(&f);
}

Test(validate, extrapolate)
{
	pm_dataset *d = threads_dataset();
	pm_spec *s = spec_of("dev", "threads");

	expect_extrapolation(d, s, "extrapolate:threads", 4);
	expect_extrapolation(d, NULL, "extrapolate:threads", 4);
	expect_extrapolation(d, s, "extrapolate:threads:0.5", 4);
	expect_extrapolation(d, s, "extrapolate:threads:0.7", 8);
	expect_extrapolation(d, s, "extrapolate:threads:1e-9", 1);
	expect_extrapolation(d, s, "extrapolate:threads:0.01", 1);
	expect_extrapolation(d, s, "extrapolate:threads:0.99", 16);
	expect_extrapolation(d, s, "extrapolate:threads:0.999999", 16);
	{
		pm_validation v = parsed("extrapolate:threads");
		pm_folds f;

		cr_assert_eq(pm_validation_folds(d, s, &v, &f, NULL), PM_OK);
		cr_expect(strstr(f.what, "<= 4 (3 of 6 values, 9 rows)"), "%s", f.what);
		cr_expect(strstr(f.what, "8 to 32 (9 rows)"), "%s", f.what);
		pm_folds_free(&f);
	}
	pm_spec_free(s);
	pm_dataset_free(d);
}

Test(validate, extrapolate_errors)
{
	pm_dataset *d = threads_dataset(), *big;
	pm_spec *s = spec_of("dev", "threads");
	pm_validation v;
	pm_folds f = { .nfolds = 9 };
	pm_error err = { 0 };

	v = parsed("extrapolate:nosuch");
	cr_expect_eq(pm_validation_folds(d, s, &v, &f, &err), PM_ESCHEMA);
	cr_expect(strstr(err.msg, "nosuch"), "%s", err.msg);
	cr_expect_null(f.fold);
	cr_expect_eq(f.nfolds, 0);
	v = parsed("extrapolate:dev");
	cr_expect_eq(pm_validation_folds(d, s, &v, &f, &err), PM_ESCHEMA);
	cr_expect(strstr(err.msg, "not numeric"), "%s", err.msg);
	v = parsed("extrapolate:one");
	cr_expect_eq(pm_validation_folds(d, NULL, &v, &f, &err), PM_EINVAL);
	cr_expect(strstr(err.msg, "distinct"), "%s", err.msg);
	v = parsed("extrapolate:threads");
	v.fraction = 0;
	cr_expect_eq(pm_validation_folds(d, s, &v, &f, &err), PM_EINVAL);
	v.fraction = 1;
	cr_expect_eq(pm_validation_folds(d, s, &v, &f, &err), PM_EINVAL);
	v.fraction = NAN;
	cr_expect_eq(pm_validation_folds(d, s, &v, &f, &err), PM_EINVAL);
	cr_expect_null(f.fold);
	/* device "big" only where threads > 4: the model never sees it */
	big = csv_dataset("threads,dev,x,time\n1,a,1,2\n2,a,1,3\n4,a,2,4\n8,a,2,5\n16,big,1,6\n"
			  "32,a,2,7\n");
	v = parsed("extrapolate:threads");
	cr_expect_eq(pm_validation_folds(big, s, &v, &f, &err), PM_EINVAL);
	cr_expect(strstr(err.msg, "'big'") && strstr(err.msg, "dev") && strstr(err.msg, "threads"),
		  "%s", err.msg);
	cr_expect_null(f.fold);
	/* no categorical input, no such check */
	cr_expect_eq(pm_validation_folds(big, NULL, &v, &f, &err), PM_OK, "%s", err.msg);
	pm_folds_free(&f);
	pm_dataset_free(big);
	pm_spec_free(s);
	pm_dataset_free(d);
}

/* ---- a fit validated --------------------------------------------------- */

static void expect_same_params(const pm_model *a, const pm_model *b)
{
	cr_assert_eq(pm_model_nparams(a), pm_model_nparams(b));
	for (size_t k = 0; k < pm_model_nparams(a); k++) {
		double x = pm_model_param_value(a, k), y = pm_model_param_value(b, k);

		cr_expect_eq(memcmp(&x, &y, sizeof(x)), 0, "%s: %.17g %.17g",
			     pm_model_param_name(a, k), x, y);
	}
	cr_expect_eq(memcmp(&pm_model_fit_info(a)->cost, &pm_model_fit_info(b)->cost,
			    sizeof(double)), 0);
}

/* kfold and loo measure a fit of every row: the model is the plain fit's,
 * and its test accuracy the folds' means. */
Test(validate, fit_kfold)
{
	pm_dataset *d = scaling_dataset(32, 0);
	pm_spec *s = scaling_spec("threads,nodes");
	pm_fit_options o = quick();
	pm_model *plain = NULL, *m = NULL, *loo = NULL;
	const pm_fit_info *fi;
	pm_cv_result cv;
	pm_error err = { 0 };

	cr_assert_eq(pm_fit(d, s, &o, &plain, &err), PM_OK, "%s", err.msg);
	cr_expect_eq(pm_model_fit_info(plain)->test.n, 0);
	o.validate = parsed("kfold:3");
	o.validate.seed = 7;
	cr_assert_eq(pm_fit(d, s, &o, &m, &err), PM_OK, "%s", err.msg);
	fi = pm_model_fit_info(m);
	expect_same_params(plain, m);
	cr_expect_eq(fi->test.n, 18);
	cr_expect_eq(fi->options.validate.scheme, PM_SCHEME_KFOLD);
	cr_expect_eq(fi->options.validate.folds, 3);
	cr_expect_eq(fi->options.validate.seed, 7);
	cr_expect(strstr(fi->validation, "3-fold"), "%s", fi->validation);
	cr_expect(fi->test.mape > 0, "%g", fi->test.mape);
	/* the test accuracy is pm_cross_validate's mean, to the bit */
	cr_assert_eq(pm_cross_validate(d, s, &o, &o.validate, &cv, &err), PM_OK, "%s", err.msg);
	cr_expect_eq(memcmp(&cv.mean.mape, &fi->test.mape, sizeof(double)), 0);
	cr_expect_eq(memcmp(&cv.mean.rmse, &fi->test.rmse, sizeof(double)), 0);
	cr_expect_str_eq(cv.what, fi->validation);
	o.validate = parsed("loo");
	cr_assert_eq(pm_fit(d, s, &o, &loo, &err), PM_OK, "%s", err.msg);
	expect_same_params(plain, loo);
	cr_expect_eq(pm_model_fit_info(loo)->test.n, 18);
	cr_expect_eq(pm_model_fit_info(loo)->options.validate.scheme, PM_SCHEME_LOO);
	cr_expect(strstr(pm_model_fit_info(loo)->validation, "leave-one-out (18 folds)"), "%s",
		  pm_model_fit_info(loo)->validation);
	pm_model_free(loo);
	pm_model_free(m);
	pm_model_free(plain);
	pm_spec_free(s);
	pm_dataset_free(d);
}

/* Repeated fits validate each seed's fit on the same folds. */
Test(validate, fit_seeds_kfold)
{
	pm_dataset *d = scaling_dataset(32, 0);
	pm_spec *s = scaling_spec("threads,nodes");
	pm_fit_options o = quick();
	pm_model *m = NULL;
	pm_error err = { 0 };

	o.validate = parsed("kfold:3");
	cr_assert_eq(pm_fit_seeds(d, s, &o, 2, &m, &err), PM_OK, "%s", err.msg);
	cr_expect_eq(pm_model_fit_info(m)->test.n, 18);
	cr_expect_eq(pm_model_fit_info(m)->options.validate.scheme, PM_SCHEME_KFOLD);
	cr_expect(strstr(pm_model_fit_info(m)->validation, "3-fold"), "%s",
		  pm_model_fit_info(m)->validation);
	pm_model_free(m);
	pm_spec_free(s);
	pm_dataset_free(d);
}

/* Stratified by the categorical inputs: the held-out rows are all but those
 * kept, whatever their number. */
Test(validate, fit_kfold_stratified)
{
	pm_dataset *d = syn_dataset(40, 0.1, 45);
	pm_spec *s = syn_spec();
	pm_fit_options o = quick();
	pm_model *m = NULL;
	pm_folds f;
	const pm_fit_info *fi;
	pm_error err = { 0 };

	o.validate = parsed("kfold:4");
	cr_assert_eq(pm_validation_folds(d, s, &o.validate, &f, &err), PM_OK, "%s", err.msg);
	cr_assert(strstr(f.what, "stratified by act,opt"), "%s", f.what);
	expect_levels_trained(d, "act", &f);
	expect_levels_trained(d, "opt", &f);
	cr_assert_eq(pm_fit(d, s, &o, &m, &err), PM_OK, "%s", err.msg);
	fi = pm_model_fit_info(m);
	cr_expect_eq(fi->test.n, 40 - f.kept);
	cr_expect_str_eq(fi->validation, f.what);
	pm_folds_free(&f);
	pm_model_free(m);
	pm_spec_free(s);
	pm_dataset_free(d);
}

/* extrapolate fits the rows of the smaller values alone, and measures the
 * others. */
Test(validate, fit_extrapolate)
{
	pm_dataset *d = scaling_dataset(32, 0), *train = NULL;
	pm_spec *s = scaling_spec("threads,nodes");
	pm_fit_options o = quick();
	pm_model *sub = NULL, *m = NULL;
	const pm_fit_info *fi;
	size_t rows[18], n = 0, c;
	double t[18];
	pm_error err = { 0 };

	cr_assert_eq(pm_dataset_nrows(d), 18);
	cr_assert_eq(pm_dataset_col_index(d, "threads", &c, NULL), PM_OK);
	cr_assert_eq(pm_dataset_col_numbers(d, c, t, NULL), PM_OK);
	for (size_t r = 0; r < 18; r++)
		if (t[r] <= 4)
			rows[n++] = r;
	cr_assert_eq(n, 9);
	cr_assert_eq(pm_dataset_subset(d, rows, n, &train, NULL), PM_OK);
	cr_assert_eq(pm_fit(train, s, &o, &sub, &err), PM_OK, "%s", err.msg);
	o.validate = parsed("extrapolate:threads");
	cr_assert_eq(pm_fit(d, s, &o, &m, &err), PM_OK, "%s", err.msg);
	fi = pm_model_fit_info(m);
	expect_same_params(sub, m);
	cr_expect_eq(fi->training.n, 9);
	cr_expect_eq(fi->test.n, 9);
	cr_expect_eq(fi->options.validate.scheme, PM_SCHEME_EXTRAPOLATE);
	cr_expect_str_eq(fi->options.validate.column, "threads");
	cr_expect(strstr(fi->validation, "extrapolation along threads"), "%s", fi->validation);
	pm_model_free(sub);
	pm_model_free(m);
	pm_dataset_free(train);
	pm_spec_free(s);
	pm_dataset_free(d);
}

Test(validate, fit_errors)
{
	pm_dataset *d = scaling_dataset(8, 0);
	pm_spec *s = scaling_spec("threads,nodes");
	pm_fit_options o = quick();
	pm_model *m = (pm_model *)&o;	/* must come back NULL */
	pm_error err = { 0 };

	o.validate = parsed("kfold:3");
	o.test_fraction = 0.25;
	cr_expect_eq(pm_fit(d, s, &o, &m, &err), PM_EINVAL);
	cr_expect_null(m);
	o.test_fraction = 0;
	o.test = d;
	cr_expect_eq(pm_fit(d, s, &o, &m, &err), PM_EINVAL);
	o.validate = parsed("loo");
	cr_expect_eq(pm_fit(d, s, &o, &m, &err), PM_EINVAL);
	o.test = NULL;
	o.validate = parsed("extrapolate:threads");
	o.test_fraction = 0.25;
	cr_expect_eq(pm_fit(d, s, &o, &m, &err), PM_EINVAL);
	cr_expect_null(m);
	o.test_fraction = 0;
	o.validate = parsed("extrapolate:nosuch");
	cr_expect_eq(pm_fit(d, s, &o, &m, &err), PM_ESCHEMA);
	o.validate = (pm_validation){ .scheme = (pm_scheme)9 };
	cr_expect_eq(pm_fit(d, s, &o, &m, &err), PM_EINVAL);
	cr_expect_null(m);
	pm_spec_free(s);
	pm_dataset_free(d);
}

/* No scheme: one "fold", every row fitted, o->test measured. */
Test(validate, cross_validate_on_test_rows)
{
	pm_dataset *d = scaling_dataset(16, 0), *test = scaling_dataset(32, 0);
	pm_spec *s = scaling_spec("threads,nodes");
	pm_fit_options o = quick();
	pm_model *m = NULL;
	pm_metrics want;
	pm_cv_result cv;
	pm_error err = { 0 };

	cr_assert_eq(pm_fit(d, s, &o, &m, &err), PM_OK, "%s", err.msg);
	cr_assert_eq(pm_model_evaluate(m, test, &want, &err), PM_OK, "%s", err.msg);
	o.test = test;
	cr_assert_eq(pm_cross_validate(d, s, &o, NULL, &cv, &err), PM_OK, "%s", err.msg);
	cr_expect_eq(cv.folds, 1);
	cr_expect_eq(cv.kept, 0);
	cr_expect_eq(cv.mean.n, pm_dataset_nrows(test));
	cr_expect_eq(memcmp(&cv.mean.mape, &want.mape, sizeof(double)), 0, "%.17g %.17g",
		     cv.mean.mape, want.mape);
	cr_expect_eq(memcmp(&cv.mean.r2, &want.r2, sizeof(double)), 0);
	cr_expect(isnan(cv.std.mape) && isnan(cv.mape_std));
	cr_expect(strstr(cv.what, "scaling.csv"), "%s", cv.what);
	/* PM_SCHEME_NONE is no scheme too */
	{
		pm_cv_result none;

		cr_assert_eq(pm_cross_validate(d, s, &o, &(pm_validation){ PM_SCHEME_NONE }, &none,
					       &err), PM_OK, "%s", err.msg);
		cr_expect_eq(memcmp(&cv.mean.mape, &none.mean.mape, sizeof(double)), 0);
	}
	o.test = NULL;
	cr_expect_eq(pm_cross_validate(d, s, &o, NULL, &cv, &err), PM_EINVAL);
	pm_model_free(m);
	pm_spec_free(s);
	pm_dataset_free(d);
	pm_dataset_free(test);
}

/* ---- model.json --------------------------------------------------------- */

static void expect_json_keeps(const pm_model *m)
{
	char *json;
	pm_model *back = json_round_trip(m, &json);
	const pm_fit_info *a = pm_model_fit_info(m), *b = pm_model_fit_info(back);

	cr_expect_eq(b->options.validate.scheme, a->options.validate.scheme);
	if (a->options.validate.scheme == PM_SCHEME_KFOLD) {
		cr_expect_eq(b->options.validate.folds, a->options.validate.folds);
		cr_expect_eq(b->options.validate.seed, a->options.validate.seed);
	}
	if (a->options.validate.scheme == PM_SCHEME_EXTRAPOLATE) {
		cr_expect_str_eq(b->options.validate.column, a->options.validate.column);
		cr_expect_eq(b->options.validate.fraction, a->options.validate.fraction);
	}
	cr_expect_str_eq(b->validation, a->validation);
	cr_expect_eq(b->test.n, a->test.n);
	cr_expect_eq(memcmp(&b->test.mape, &a->test.mape, sizeof(double)), 0);
	pm_model_free(back);
	free(json);
}

Test(validate, model_json_keeps_the_scheme)
{
	pm_dataset *d = scaling_dataset(32, 0);
	pm_spec *s = scaling_spec("threads,nodes");
	pm_fit_options o = quick();
	const char *schemes[] = { "kfold:3", "loo", "extrapolate:threads:0.3" };

	for (size_t i = 0; i < 3; i++) {
		pm_model *m = NULL;
		pm_error err = { 0 };

		o.validate = parsed(schemes[i]);
		o.validate.seed = 7;
		cr_assert_eq(pm_fit(d, s, &o, &m, &err), PM_OK, "%s", err.msg);
		expect_json_keeps(m);
		pm_model_free(m);
	}
	pm_spec_free(s);
	pm_dataset_free(d);
}

/* s with the first `from` replaced by `to` (the caller frees). */
static char *replaced(const char *s, const char *from, const char *to)
{
	const char *at = strstr(s, from);
	size_t head, len = strlen(s) - strlen(from) + strlen(to);
	char *out = malloc(len + 1);

	cr_assert(at, "no '%s'", from);
	cr_assert(out);
	head = (size_t)(at - s);
	memcpy(out, s, head);
	memcpy(out + head, to, strlen(to));
	strcpy(out + head + strlen(to), at + strlen(from));
	return out;
}

Test(validate, model_json_refuses_a_bad_scheme)
{
	pm_dataset *d = scaling_dataset(8, 0);
	pm_spec *s = scaling_spec("threads,nodes");
	pm_fit_options o = quick();
	const char *bad[] = { "\"kfold:x\"", "\"kfold:1\"", "\"nonsense\"", "\"extrapolate\"",
			      "\"extrapolate:t:2\"", "3", "null" };
	pm_model *m = NULL, *back = NULL;
	char *json = NULL;
	pm_error err = { 0 };

	o.validate = parsed("kfold:3");
	cr_assert_eq(pm_fit(d, s, &o, &m, &err), PM_OK, "%s", err.msg);
	cr_assert_eq(pm_model_to_json(m, &json, &err), PM_OK, "%s", err.msg);
	cr_assert(strstr(json, "\"validation\": \"kfold:3\""), "%s", json);
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		char *edited = replaced(json, "\"kfold:3\"", bad[i]);

		back = (pm_model *)&o;
		cr_expect_eq(pm_model_load_string(edited, "m.json", &back, &err), PM_ESCHEMA,
			     "%s: %s", bad[i], err.msg);
		cr_expect_null(back);
		cr_expect(strstr(err.msg, "validation"), "%s", err.msg);
		free(edited);
	}
	{
		/* the scheme's description goes with it */
		char *edited = replaced(json, "\"description\"", "\"descr\"");

		back = (pm_model *)&o;
		cr_expect_eq(pm_model_load_string(edited, "m.json", &back, &err), PM_ESCHEMA);
		cr_expect_null(back);
		cr_expect(strstr(err.msg, "description"), "%s", err.msg);
		free(edited);
	}
	pm_model_free(m);
	free(json);
	pm_spec_free(s);
	pm_dataset_free(d);
}
