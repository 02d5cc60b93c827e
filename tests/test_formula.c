#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/pcg32.h"
#include "fit/cost.h"
#include "leak_check.h"
#include "model/formula.h"
#include "spec/spec_impl.h"

PM_LEAK_CHECKED_SUITE(formula);

/* Inputs k, f (intrinsic), act (categorical: relu sigmoid tanh), threads
 * (extrinsic), as a fitted model has them. */
static const char *const act_levels[] = { "relu", "sigmoid", "tanh" };

static pm_input test_inputs[] = {
	{ .name = "k", .role = PM_ROLE_INTRINSIC },
	{ .name = "f", .role = PM_ROLE_INTRINSIC },
	{ .name = "act", .role = PM_ROLE_CATEGORICAL, .nlevels = 3, .levels = (char **)act_levels },
	{ .name = "threads", .role = PM_ROLE_EXTRINSIC },
};

/* Parse and compile text; the status, with err filled. */
static pm_status compile(const char *text, pm_terms *t, pm_param_desc **desc, char ***name,
			 size_t *np, pm_error *err)
{
	pm_formula *f = NULL;
	pm_status st = pm__formula_parse(text, &f, err);

	*desc = NULL;
	*name = NULL;
	*np = 0;
	*t = (pm_terms){ 0 };
	if (!st)
		st = pm__formula_compile(f, 4, test_inputs, t, desc, name, np, err);
	pm__formula_free(f);
	return st;
}

static void free_compiled(pm_terms *t, pm_param_desc *desc, char **name, size_t np)
{
	for (size_t k = 0; k < np; k++)
		free(name[k]);
	free(name);
	free(desc);
	pm__terms_free(t);
}

static void expect_error(const char *text, unsigned column, const char *what)
{
	pm_terms t;
	pm_param_desc *desc;
	char **name;
	size_t np;
	pm_error err = { 0 };

	cr_expect_eq(compile(text, &t, &desc, &name, &np, &err), PM_EPARSE, "'%s' compiled",
		     text);
	cr_expect_str_eq(err.file, "formula", "'%s'", text);
	cr_expect_eq(err.line, 1, "'%s'", text);
	cr_expect_eq(err.column, column, "'%s': column %u, wanted %u (%s)", text, err.column,
		     column, err.msg);
	cr_expect(strstr(err.msg, what), "'%s': '%s' lacks '%s'", text, err.msg, what);
	free_compiled(&t, desc, name, np);
}

Test(formula, errors_name_the_column_of_the_mistake)
{
	expect_error("a * k^", 7, "expected a number");
	expect_error("a * k^p +", 10, "expected a name");
	expect_error("k^p", 1, "no coefficient");
	expect_error("a * b * k^p", 5, "second coefficient 'b'");
	expect_error("a * [k ~ 1]", 8, "expected a comparison");
	expect_error("a * [k > x]", 10, "expected a number");
	expect_error("a / level(act)", 5, "only a power or log2 factor can follow '/'");
	expect_error("a / b", 5, "'b' is a coefficient");
	expect_error("a * `k", 5, "unclosed '`'");
	expect_error("a * k^p )", 9, "expected '+', '*', '/' or the end");
	expect_error("a * k^(2", 9, "expected ')'");
	expect_error("a * k^(1/0)", 10, "a power divided by 0");
	expect_error("a * k^(1/x)", 10, "expected a number");
	{
		char *big = malloc(PM_FORMULA_MAX + 2);

		cr_assert(big);
		memset(big, 'a', PM_FORMULA_MAX + 1);
		big[PM_FORMULA_MAX + 1] = '\0';
		expect_error(big, PM_FORMULA_MAX + 1, "a formula of more than 16384 bytes");
		free(big);
	}
	/* against the inputs */
	expect_error("a * k^p + b * hiden^p", 15, "unknown column 'hiden'");
	expect_error("a * act^p", 5, "column 'act' is categorical: use level(act)");
	expect_error("a * level(k)", 5, "column 'k' is numeric");
	expect_error("a * k^p + p * f^q", 11, "'p' is a power");
	expect_error("a * k^a", 7, "'a' is a coefficient");
	expect_error("a * k^p + a * f^q", 11, "'a' is used twice");
	expect_error("a * k^p + C + D", 15, "a second constant 'D'");
	/* [col == "level"] */
	expect_error("a * [act != \"relu\"]", 5, "a level can only be compared with '=='");
	expect_error("a * [act == \"relu\"] * [act == \"tanh\"]", 23, "a second level in one term");
	expect_error("a * [act == \"relu]", 13, "unclosed '\"'");
	expect_error("a * [act == \"\"]", 13, "an empty level name");
	expect_error("a * [act == \"relu\" ]]", 21, "expected '+'");
	expect_error("a * [act == \"gpu\"] * k^p", 5, "column 'act' has no level \"gpu\"");
	expect_error("a * [act == \"re\"\"lu\"]", 5, "no level \"re\"lu\"");
	expect_error("a * [k == \"2\"] + b * k^p", 5, "column 'k' is numeric");
	expect_error("a * [act == \"relu\"] + b * act^p", 27, "column 'act' is categorical");
}

Test(formula, a_term_of_one_level)
{
	pm_terms t;
	pm_param_desc *desc;
	char **name;
	size_t np;
	pm_error err = { 0 };

	cr_assert_eq(compile("a * [act == \"tanh\"] * k^p + b * [ act==\"relu\" ] + c * k^p + C",
			     &t, &desc, &name, &np, &err), PM_OK, "%s", err.msg);
	cr_expect_eq(np, 5);
	cr_expect_eq(t.nterms, 4);
	cr_expect_eq(t.term[0].level_input, 2);
	cr_expect_eq(t.term[0].level, 2);
	cr_expect_eq(t.term[0].nfactors, 1);
	cr_expect_eq(t.term[1].level_input, 2);
	cr_expect_eq(t.term[1].level, 0);
	cr_expect_eq(t.term[1].nfactors, 0);
	cr_expect_eq(t.term[2].level_input, PM_NONE);
	/* b is a coefficient (on at relu), not a second constant */
	cr_expect_eq(desc[2].kind, PM_PARAM_COEF);
	cr_expect_eq(desc[4].kind, PM_PARAM_CONST);
	cr_expect_eq(t.nfactors, 1, "k^p is one factor in two terms");
	free_compiled(&t, desc, name, np);
}

Test(formula, a_name_used_twice_is_one_parameter)
{
	pm_terms t;
	pm_param_desc *desc;
	char **name;
	size_t np;
	pm_error err = { 0 };

	cr_assert_eq(compile("a * k^p * threads^q + b * f^p / threads^q + C", &t, &desc, &name,
			     &np, &err), PM_OK, "%s", err.msg);
	cr_expect_eq(np, 5);
	cr_expect_str_eq(name[0], "a");
	cr_expect_str_eq(name[1], "p");
	cr_expect_str_eq(name[2], "q");
	cr_expect_str_eq(name[3], "b");
	cr_expect_str_eq(name[4], "C");
	cr_expect_eq(desc[1].kind, PM_PARAM_POWER);
	cr_expect_eq(desc[2].kind, PM_PARAM_SCALING);
	cr_expect_eq(desc[4].kind, PM_PARAM_CONST);
	/* k^p, threads^q, f^p, threads^-q: the power is shared, the factor
	 * threads^q is not threads^-q */
	cr_expect_eq(t.nfactors, 4);
	cr_expect_eq(t.factor[1].power, 2);
	cr_expect_eq(t.factor[3].power, 2);
	cr_expect(t.factor[3].negate && !t.factor[1].negate);
	cr_expect_eq(t.nterms, 3);
	cr_expect_eq(t.term[2].nfactors, 0);
	free_compiled(&t, desc, name, np);

	/* the same factor in two terms is one factor; level() one set of
	 * multipliers, the first level fixed at 1 */
	cr_assert_eq(compile("a * k^2 * level(act) + b * [threads >= 2] * k^2 * level(act)", &t,
			     &desc, &name, &np, &err), PM_OK, "%s", err.msg);
	cr_expect_eq(np, 4);
	cr_expect_str_eq(name[1], "lm_act=sigmoid");
	cr_expect_str_eq(name[2], "lm_act=tanh");
	cr_expect_eq(desc[1].kind, PM_PARAM_LOGMULT);
	cr_expect_eq(desc[2].level, 2);
	cr_expect_eq(t.nfactors, 3);
	cr_expect_eq(t.factor[0].power, PM_NONE);
	cr_expect_eq(t.factor[0].fixed, 2.0);
	cr_expect_eq(t.factor[2].kind, PM_FACTOR_INDICATOR);
	cr_expect_eq(t.factor[2].op, PM_CMP_GE);
	free_compiled(&t, desc, name, np);
}

Test(formula, factors_evaluate_as_written)
{
	pm_factor pw = { .power = 0 }, neg = { .power = 0, .negate = 1 };
	pm_factor fixed = { .power = PM_NONE, .fixed = 2 };
	pm_factor lg = { .kind = PM_FACTOR_LOG2, .power = PM_NONE, .fixed = 1 };
	pm_factor lv = { .kind = PM_FACTOR_LEVEL, .power = 1 };
	pm_factor ind = { .kind = PM_FACTOR_INDICATOR, .op = PM_CMP_GT, .threshold = 1 };
	double param[] = { 0.5, 0.25, -0.5 };

	cr_expect_float_eq(pm__factor_eval(&pw, param, pm__factor_base(&pw, 16, 0)), 4, 1e-15);
	cr_expect_float_eq(pm__factor_eval(&neg, param, pm__factor_base(&neg, 16, 0)), 0.25,
			   1e-15);
	cr_expect_float_eq(pm__factor_eval(&fixed, param, pm__factor_base(&fixed, 3, 0)), 9,
			   1e-14);
	cr_expect_float_eq(pm__factor_eval(&lg, param, pm__factor_base(&lg, 8, 0)), 3, 1e-14);
	cr_expect_eq(pm__factor_eval(&lg, param, pm__factor_base(&lg, 1, 0)), 0.0);
	cr_expect_eq(pm__factor_eval(&lv, param, 0), 1.0);
	cr_expect_float_eq(pm__factor_eval(&lv, param, 1), exp(0.25), 1e-15);
	cr_expect_float_eq(pm__factor_eval(&lv, param, 2), exp(-0.5), 1e-15);
	cr_expect_eq(pm__factor_eval(&ind, param, pm__factor_base(&ind, 1, 0)), 0.0);
	cr_expect_eq(pm__factor_eval(&ind, param, pm__factor_base(&ind, 2, 0)), 1.0);
}

Test(formula, multiplicative_text_quotes_odd_names)
{
	const char *names[] = { "k", "act", "batch size" };
	const pm_role role[] = { PM_ROLE_INTRINSIC, PM_ROLE_CATEGORICAL, PM_ROLE_EXTRINSIC };
	pm_formula *f = NULL;
	char *text = NULL;
	int level;
	unsigned pos;

	cr_assert_eq(pm__formula_multiplicative(3, names, role, &text, NULL), PM_OK);
	cr_expect_str_eq(text, "a * k^p_k * level(act) * `batch size`^`q_batch size` + C");
	cr_assert_eq(pm__formula_parse(text, &f, NULL), PM_OK);
	cr_expect_eq(pm__formula_ncolumns(f), 3);
	cr_expect_str_eq(pm__formula_column(f, 2, &level, &pos), "batch size");
	cr_expect_eq(pos, 26);
	cr_expect_str_eq(pm__formula_column(f, 1, &level, &pos), "act");
	cr_expect_eq(level, 1);
	pm__formula_free(f);
	free(text);
}

/* ---- fitting ---------------------------------------------------------------- */

/* n rows of columns n, h, act, ws, batch and time = truth(row). */
typedef double (*truth_fn)(double n, double h, int act, double ws, double b);

static pm_dataset *make_data(size_t rows, truth_fn truth)
{
	static const double ns[] = { 2, 3, 4, 6, 8 }, hs[] = { 64, 128, 256, 512 };
	static const double wss[] = { 1, 2, 4, 8 }, bs[] = { 8, 16, 32, 64 };
	size_t cap = 64 + rows * 96, len = 0;
	char *s = malloc(cap);
	pm_dataset *d = NULL;
	pm_pcg32 r;

	cr_assert(s);
	pm__pcg32_seed(&r, 11, 3);
	len += (size_t)snprintf(s, cap, "n,h,act,ws,batch,time\n");
	for (size_t i = 0; i < rows; i++) {
		double n = ns[pm__pcg32_below(&r, 5)], h = hs[pm__pcg32_below(&r, 4)];
		double ws = wss[pm__pcg32_below(&r, 4)], b = bs[pm__pcg32_below(&r, 4)];
		int act = (int)pm__pcg32_below(&r, 3);

		len += (size_t)snprintf(s + len, cap - len, "%g,%g,%s,%g,%g,%.17g\n", n, h,
					act_levels[act], ws, b, truth(n, h, act, ws, b));
	}
	cr_assert_eq(pm_dataset_parse_csv(s, len, "synthetic.csv", &d, NULL), PM_OK);
	free(s);
	return d;
}

static pm_model *fit_formula(const pm_dataset *d, const char *formula, const char *extrinsic)
{
	pm_spec *s = NULL;
	pm_model *m = NULL;
	pm_fit_options o = pm_fit_options_default();
	pm_error err = { 0 };

	o.threads = 2;
	cr_assert_eq(pm_spec_new(&s, NULL), PM_OK);
	cr_assert_eq(pm_spec_set_target(s, "time", NULL), PM_OK);
	if (extrinsic)	/* NULL: none */
		cr_assert_eq(pm_names_add_list(&s->extrinsic, extrinsic, NULL), PM_OK);
	cr_assert_eq(pm_spec_set_form(s, formula, &err), PM_OK, "%s", err.msg);
	cr_assert_eq(pm_fit(d, s, &o, &m, &err), PM_OK, "%s", err.msg);
	pm_spec_free(s);
	return m;
}

static double param(const pm_model *m, const char *name)
{
	for (size_t k = 0; k < pm_model_nparams(m); k++)
		if (strcmp(pm_model_param_name(m, k), name) == 0)
			return pm_model_param_value(m, k);
	cr_assert_fail("no parameter '%s'", name);
	return NAN;
}

static void expect_param(const pm_model *m, const char *name, double want, double tol)
{
	double got = param(m, name);

	cr_expect(fabs(got - want) <= tol, "%s = %.6g, wanted %.6g ± %g", name, got, want, tol);
	printf("recovered %-16s %.6g (truth %g)\n", name, got, want);
}

struct want {
	const char *name;
	double value;
};

/* Fit formula to 300 noiseless rows of truth (ws and batch extrinsic):
 * every parameter of w[0..n) within 0.02. The model, for more checks. */
static pm_model *recover(truth_fn truth, const char *formula, const struct want *w, size_t n)
{
	pm_dataset *d = make_data(300, truth);
	pm_model *m = fit_formula(d, formula, "ws,batch");

	for (size_t i = 0; i < n; i++)
		expect_param(m, w[i].name, w[i].value, 0.02);
	pm_dataset_free(d);
	return m;
}

static const double act_mult[] = { 1.0, 1.5, 0.8 };

static double multiplicative_truth(double n, double h, int act, double ws, double b)
{
	return 0.002 * pow(n, 1.5) * pow(h, 0.5) * act_mult[act] * pow(ws, -0.8) * pow(b, 0.9) +
	       0.01;
}

Test(formula, recovers_a_multiplicative_power_law, .timeout = 120)
{
	const struct want w[] = { { "p1", 1.5 }, { "p2", 0.5 }, { "q1", -0.8 }, { "q2", 0.9 },
				  { "lm_act=sigmoid", log(1.5) }, { "lm_act=tanh", log(0.8) } };
	pm_model *m = recover(multiplicative_truth,
			      "a * n^p1 * h^p2 * level(act) * ws^q1 * batch^q2 + C", w, 6);

	cr_expect_lt(pm_model_fit_info(m)->training.mape, 0.5);
	pm_model_free(m);
}

static double indicator_truth(double n, double h, int act, double ws, double b)
{
	(void)n;
	(void)act;
	return 1e-4 * pow(h, 1.2) * pow(b, 0.9) / ws + 2e-3 * (ws > 1) * pow(h, 0.7) + 0.02;
}

Test(formula, recovers_two_terms_with_an_indicator, .timeout = 120)
{
	const struct want w[] = { { "p1", 1.2 }, { "q1", 0.9 }, { "q2", 1.0 }, { "r1", 0.7 } };
	pm_model *m = recover(indicator_truth,
			      "a * h^p1 * batch^q1 / ws^q2 + b * [ws > 1] * h^r1 + C", w, 4);

	/* dividing by ws^q2: doubling ws halves the first term */
	for (size_t k = 0; k < pm_model_nparams(m); k++)
		if (strcmp(pm_model_param_name(m, k), "q2") == 0)
			cr_expect_float_eq(pm_model_param_doubling(m, k),
					   exp2(-pm_model_param_value(m, k)), 1e-15);
	pm_model_free(m);
}

static double log_truth(double n, double h, int act, double ws, double b)
{
	(void)h;
	(void)act;
	return 1e-3 * pow(n, 2.0) * b / ws + 4e-3 * pow(log2(ws), 1.3) * n + 0.05;
}

Test(formula, recovers_a_log_factor, .timeout = 120)
{
	const struct want w[] = { { "p1", 2.0 }, { "q1", 1.0 }, { "r1", 1.3 }, { "p2", 1.0 } };

	pm_model_free(recover(log_truth, "a * n^p1 * batch^1 / ws^q1 + b * log2(ws)^r1 * n^p2 + C",
			      w, 4));
}

/* m saved as *json (the caller frees it) and loaded: the loaded model,
 * which predicts d as m does, bit for bit, into p1[0..nrows). */
static pm_model *reload(const pm_model *m, const pm_dataset *d, char **json, double *p1)
{
	size_t n = pm_dataset_nrows(d);
	double *p2 = malloc(n * sizeof(double));
	pm_model *l = NULL;
	pm_error err = { 0 };

	cr_assert(p2);
	cr_assert_eq(pm_model_to_json(m, json, &err), PM_OK, "%s", err.msg);
	cr_expect(strstr(*json, "\"form\": \"formula\""), "%s", *json);
	cr_assert_eq(pm_model_load_string(*json, "m.json", &l, &err), PM_OK, "%s", err.msg);
	cr_expect_str_eq(pm_model_form(l), "formula");
	cr_assert_eq(pm_model_predict_dataset(m, d, p1, &err), PM_OK, "%s", err.msg);
	cr_assert_eq(pm_model_predict_dataset(l, d, p2, &err), PM_OK, "%s", err.msg);
	cr_expect_eq(memcmp(p1, p2, n * sizeof(double)), 0);
	free(p2);
	return l;
}

/* l writes back the file json it was loaded from; both freed. */
static void expect_same_file(pm_model *l, char *json)
{
	char *again = NULL;
	pm_error err = { 0 };

	cr_assert_eq(pm_model_to_json(l, &again, &err), PM_OK, "%s", err.msg);
	cr_expect_str_eq(json, again);
	free(again);
	free(json);
	pm_model_free(l);
}

Test(formula, a_saved_formula_model_predicts_bit_for_bit, .timeout = 120)
{
	pm_dataset *d = make_data(120, indicator_truth);
	pm_model *m = fit_formula(d, "a * h^p1 * log2(batch)^2 / ws^q1 * level(act) + "
				  "b * [ws > 1] * h^r1 + C", "ws");
	pm_model *l;
	size_t n = pm_dataset_nrows(d);
	double *p1 = malloc(n * sizeof(double));
	char *json = NULL;
	pm_error err = { 0 };

	cr_assert(p1);
	l = reload(m, d, &json, p1);
	cr_expect(strstr(json, "\"formula\": \"a * h^p1 * log2(batch)^2"), "%s", json);
	/* the raw parameters (--scale auto undone per term) give the same
	 * predictions, up to rounding */
	for (size_t r = 0; r < n; r++) {
		double h, batch, ws, lm = 0.0, want;
		const char *act = pm_dataset_cell(d, r, 2);

		cr_assert_eq(pm_dataset_number(d, r, 1, &h, NULL), PM_OK);
		cr_assert_eq(pm_dataset_number(d, r, 3, &ws, NULL), PM_OK);
		cr_assert_eq(pm_dataset_number(d, r, 4, &batch, NULL), PM_OK);
		if (strcmp(act, "relu") != 0)
			lm = param(m, strcmp(act, "tanh") == 0 ? "lm_act=tanh" : "lm_act=sigmoid");
		want = param(m, "a") * pow(h, param(m, "p1")) * pow(log2(batch), 2) /
			       pow(ws, param(m, "q1")) * exp(lm) +
		       param(m, "b") * (ws > 1) * pow(h, param(m, "r1")) + param(m, "C");
		cr_expect_float_eq(p1[r], want, 1e-12 * want, "row %zu: %.17g, raw %.17g", r, p1[r],
				   want);
	}
	for (size_t k = 0; k < pm_model_nparams(m); k++)
		cr_expect_eq(memcmp(&(double){ pm_model_param_value(m, k) },
				    &(double){ pm_model_param_value(l, k) }, sizeof(double)), 0,
			     "%s", pm_model_param_name(m, k));
	/* log2(batch) needs batch >= 1 */
	{
		double pt[4] = { 1, 1, 1, 1 }, out;
		size_t ib;

		cr_assert_eq(pm_model_input_index(l, "batch", &ib, NULL), PM_OK);
		for (size_t i = 0; i < 4; i++)
			if (pm_model_input_role(l, i) == PM_ROLE_CATEGORICAL)
				pt[i] = 0;
		cr_expect_eq(pm_model_predict(l, pt, &out, NULL), PM_OK);
		pt[ib] = 0.5;
		cr_expect_eq(pm_model_predict(l, pt, &out, &err), PM_EDOMAIN);
		cr_expect(strstr(err.msg, "input 'batch': 0.5 is below 1, as log2() needs"), "%s",
			  err.msg);
	}
	/* and it writes back the same file */
	expect_same_file(l, json);
	free(p1);
	pm_model_free(m);
	pm_dataset_free(d);
}

Test(formula, a_model_file_with_a_bad_formula_says_where)
{
	const char *json =
		"{\"format\": \"perfmodel-model\", \"version\": 1, \"form\": \"formula\",\n"
		" \"formula\": \"a * x^p + b * y^p\", \"target\": \"t\", \"scale\": \"none\",\n"
		" \"target_scale\": 1, \"inputs\": [{\"name\": \"x\", \"role\": \"intrinsic\",\n"
		" \"log_scale\": 0}], \"parameters\": []}";
	pm_model *m = NULL;
	pm_error err = { 0 };

	cr_expect_eq(pm_model_load_string(json, "m.json", &m, &err), PM_EPARSE);
	cr_expect_str_eq(err.file, "formula");
	cr_expect_eq(err.column, 15);
	cr_expect(strstr(err.msg, "unknown column 'y' (the 'formula' of m.json)"), "%s", err.msg);
	cr_expect_null(m);
}

Test(formula, log2_of_a_value_below_1_is_refused)
{
	pm_dataset *d = NULL;
	pm_spec *s = NULL;
	pm_model *m = NULL;
	pm_fit_options o = pm_fit_options_default();
	pm_error err = { 0 };
	const char *csv = "x,t\n0.5,1\n2,2\n4,3\n";

	cr_assert_eq(pm_dataset_parse_csv(csv, strlen(csv), "small.csv", &d, NULL), PM_OK);
	cr_assert_eq(pm_spec_new(&s, NULL), PM_OK);
	cr_assert_eq(pm_spec_set_target(s, "t", NULL), PM_OK);
	cr_assert_eq(pm_spec_set_form(s, "a * log2(x)^p", NULL), PM_OK);
	cr_expect_eq(pm_fit(d, s, &o, &m, &err), PM_EDOMAIN);
	cr_expect(strstr(err.msg, "column 'x': 0.5 is below 1, as log2(x) needs"), "%s",
		  err.msg);
	cr_expect_null(m);
	pm_spec_free(s);
	pm_dataset_free(d);
}

/* ---- the fit's plan and gradient on every kind of factor -------------------- */

/* The fit's compiled plan of formula gives the predictor's cost, and its
 * gradient the cost's central differences. */
static void check_plan(const char *formula)
{
	pm_dataset *d = make_data(80, indicator_truth);
	pm_spec *s = NULL;
	pm_problem p;
	pm_model *m = NULL;
	pm_cost c;
	pm_fit_options o = pm_fit_options_default();
	const char *names[5];
	pm_role role[5];
	size_t nlevels[5];
	const char *const *levels[5];
	double x[16], g[16], gk[16], *scratch, sum = 0.0;

	cr_assert_eq(pm_spec_new(&s, NULL), PM_OK);
	cr_assert_eq(pm_spec_set_target(s, "time", NULL), PM_OK);
	cr_assert_eq(pm_spec_set_form(s, formula, NULL), PM_OK);
	cr_assert_eq(pm__spec_formula_roles(s, d, NULL), PM_OK);
	cr_assert_eq(pm__problem_build(d, s, PM_SCALE_AUTO, PM_LOSS_MAE, &p, NULL), PM_OK);
	for (size_t j = 0; j < p.ncols; j++) {
		names[j] = p.col[j].name;
		role[j] = p.col[j].role;
		nlevels[j] = p.col[j].ndistinct;
		levels[j] = (const char *const *)p.col[j].levels;
	}
	cr_assert_eq(pm__model_new("time", p.ncols, names, role, nlevels, levels, formula, &m,
				   NULL), PM_OK);
	cr_assert_leq(m->nparams, 16);
	m->target_scale = p.target_scale;
	for (size_t j = 0; j < p.ncols; j++)
		m->inputs[j].log_scale = p.col[j].log_scale;
	cr_assert_eq(pm__cost_init(&c, &p, m, &o, NULL), PM_OK);
	scratch = malloc(c.scratch_bytes);
	cr_assert(scratch);
	for (size_t k = 0; k < m->nparams; k++)
		x[k] = 0.2 + 0.1 * (double)(k % 5) - 0.05 * (double)k;
	memcpy(m->value, x, m->nparams * sizeof(double));
	pm__model_raw(m);	/* as a fit ends: the values settled */
	/* the plan's cost against the predictor's, row by row */
	for (size_t r = 0; r < p.nrows; r++) {
		double pt[5], pred;

		for (size_t j = 0; j < p.ncols; j++)
			pt[j] = p.col[j].x ? p.col[j].x[p.col[j].code[r]] : p.col[j].code[r];
		cr_assert_eq(pm_model_predict(m, pt, &pred, NULL), PM_OK);
		sum += fabs(p.t[r] - pred / p.target_scale);
	}
	sum /= (double)p.nrows;
	cr_expect_float_eq(pm__cost_value(x, &c, scratch), sum, 1e-12 * sum);
	/* the smoothed cost's gradient against central differences */
	pm__cost_smooth(x, 1e-3, g, &c, scratch);
	for (size_t k = 0; k < m->nparams; k++) {
		double xp[16], h = 1e-6 * (1.0 + fabs(x[k])), up, down, fd;

		memcpy(xp, x, sizeof(xp));
		xp[k] = x[k] + h;
		up = pm__cost_smooth(xp, 1e-3, gk, &c, scratch);
		xp[k] = x[k] - h;
		down = pm__cost_smooth(xp, 1e-3, gk, &c, scratch);
		fd = (up - down) / (2 * h);
		cr_expect(fabs(fd - g[k]) <= 1e-5 * (1.0 + fabs(fd)),
			  "parameter %s: analytic %.10g, finite difference %.10g",
			  m->params[k].name, g[k], fd);
	}
	free(scratch);
	pm__cost_free(&c);
	pm_model_free(m);
	pm__problem_free(&p);
	pm_spec_free(s);
	pm_dataset_free(d);
}

Test(formula, plan_and_gradient_match_the_terms)
{
	/* shared powers, a division, a fixed power, log2 at 1, levels in a
	 * key and in a leaf, an indicator */
	check_plan("a * h^p1 * log2(batch)^r / ws^q * level(act) + "
		   "b * [ws > 1] * h^p1 * ws^2 + e * level(act) * log2(ws)^r + C");
	/* terms of one level: with factors, shared with another term, with
	 * a level multiplier of the same column, alone */
	check_plan("a * [act == \"tanh\"] * h^p1 * ws^q + b * [act == \"relu\"] * h^p2 + "
		   "e * h^p1 * level(act) + f * [act == \"sigmoid\"] + C");
}

/* ---- terms of one level: a curve per level ---------------------------------- */

static const double level_power[] = { 1.5, 0.5, 1.0 };	/* relu sigmoid tanh */

static double per_level_truth(double n, double h, int act, double ws, double b)
{
	(void)n;
	(void)ws;
	(void)b;
	return (act == 2 ? 2e-3 : 1e-4) * pow(h, level_power[act]) + 0.01 * (act == 1) + 0.02;
}

Test(formula, recovers_a_power_per_level, .timeout = 120)
{
	const struct want w[] = { { "p1", 1.5 }, { "p2", 0.5 }, { "p3", 1.0 }, { "e", 0.01 } };
	pm_dataset *d = make_data(150, per_level_truth);
	pm_model *m = recover(per_level_truth,
			      "a * [act == \"relu\"] * h^p1 + b * [act == \"sigmoid\"] * h^p2 + "
			      "c * [act == \"tanh\"] * h^p3 + e * [act == \"sigmoid\"] + C",
			      w, 4);
	pm_model *l;
	size_t n = pm_dataset_nrows(d);
	double *p1 = malloc(n * sizeof(double));
	char *json = NULL;

	cr_assert(p1);
	/* saved and loaded: the same predictions, bit for bit, the same file */
	l = reload(m, d, &json, p1);
	cr_expect(strstr(json, "[act == \\\"relu\\\"]"), "%s", json);
	for (size_t r = 0; r < n; r++) {
		double h;
		const char *act = pm_dataset_cell(d, r, 2);
		int a = strcmp(act, "relu") == 0 ? 0 : strcmp(act, "sigmoid") == 0 ? 1 : 2;

		cr_assert_eq(pm_dataset_number(d, r, 1, &h, NULL), PM_OK);
		cr_expect_float_eq(p1[r], per_level_truth(0, h, a, 0, 0),
				   1e-3 * per_level_truth(0, h, a, 0, 0), "row %zu", r);
	}
	expect_same_file(l, json);
	free(p1);
	pm_model_free(m);
	pm_dataset_free(d);
}

/* ---- a column only in indicators may be 0 or negative ----------------------- */

#define IND_FORMULA "a * h^p * [d > 0] + C"

/* The truth of IND_FORMULA: a = 2e-3, p = 0.8, C = 0.05. */
static double ind_truth(double h, double d)
{
	return 2e-3 * pow(h, 0.8) * (d > 0) + 0.05;
}

/* Every h of hs[0..nh) with every d of ds[0..nd), `reps` times: columns h, d,
 * time. */
static pm_dataset *ind_data(const double *hs, size_t nh, const double *ds, size_t nd,
			    size_t reps)
{
	size_t cap = 16 + reps * nh * nd * 64, len = 0;
	char *s = malloc(cap);
	pm_dataset *d = NULL;

	cr_assert(s);
	len += (size_t)snprintf(s, cap, "h,d,time\n");
	for (size_t r = 0; r < reps; r++)
		for (size_t i = 0; i < nh; i++)
			for (size_t j = 0; j < nd; j++)
				len += (size_t)snprintf(s + len, cap - len, "%g,%g,%.17g\n", hs[i],
							ds[j], ind_truth(hs[i], ds[j]));
	cr_assert_eq(pm_dataset_parse_csv(s, len, "ind.csv", &d, NULL), PM_OK);
	free(s);
	return d;
}

static const double ind_hs[] = { 16, 32, 64, 128, 256, 512 };
static const double ind_ds[] = { -1, 0, 0.5, 0, -0.25, 2 };	/* zeros and negatives */

static pm_spec *ind_spec(const char *formula)
{
	pm_spec *s = NULL;

	cr_assert_eq(pm_spec_new(&s, NULL), PM_OK);
	cr_assert_eq(pm_spec_set_target(s, "time", NULL), PM_OK);
	cr_assert_eq(pm_spec_set_form(s, formula, NULL), PM_OK);
	return s;
}

/* IND_FORMULA fitted to 72 noiseless rows of ind_truth. */
static pm_model *ind_fitted(void)
{
	pm_dataset *d = ind_data(ind_hs, 6, ind_ds, 6, 2);
	pm_model *m = fit_formula(d, IND_FORMULA, NULL);

	pm_dataset_free(d);
	return m;
}

Test(formula, a_column_only_in_an_indicator_may_be_0_or_negative, .timeout = 120)
{
	pm_model *m = ind_fitted();
	size_t h, d;

	cr_expect(fabs(param(m, "a") / 2e-3 - 1) < 0.01, "a = %g", param(m, "a"));
	cr_expect(fabs(param(m, "p") - 0.8) < 0.01, "p = %g", param(m, "p"));
	cr_expect(fabs(param(m, "C") / 0.05 - 1) < 0.01, "C = %g", param(m, "C"));
	cr_assert_eq(pm_model_input_index(m, "h", &h, NULL), PM_OK);
	cr_assert_eq(pm_model_input_index(m, "d", &d, NULL), PM_OK);
	/* only the powered column is scaled */
	cr_expect(m->inputs[h].powered && m->inputs[h].log_scale != 0);
	cr_expect(!m->inputs[d].powered && m->inputs[d].log_scale == 0);
	pm_model_free(m);
}

Test(formula, the_problem_scales_only_powered_columns)
{
	pm_dataset *d = ind_data(ind_hs, 6, ind_ds, 6, 1);
	pm_spec *s = ind_spec(IND_FORMULA);
	pm_problem p;

	cr_assert_eq(pm__spec_formula_roles(s, d, NULL), PM_OK);
	cr_assert_eq(pm_spec_resolve(s, d, NULL), PM_OK);
	cr_assert_eq(pm__problem_build(d, s, PM_SCALE_AUTO, PM_LOSS_MAE, &p, NULL), PM_OK);
	cr_assert_eq(p.ncols, 2);
	cr_expect_str_eq(p.col[0].name, "h");
	cr_expect_float_eq(p.col[0].log_scale, log(sqrt(16.0 * 512)), 1e-12);
	cr_expect_str_eq(p.col[1].name, "d");
	cr_expect_eq(p.col[1].log_scale, 0.0);
	cr_expect_eq(p.col[1].ndistinct, 5);
	cr_expect_eq(p.col[1].x[0], -1.0);
	cr_expect_eq(p.col[1].x[2], 0.0);
	pm__problem_free(&p);
	pm_spec_free(s);
	pm_dataset_free(d);
}

/* Point by point, in a batch (its vectorised block check) and from a file:
 * 0 and negative values of d; h still > 0, d still finite. */
Test(formula, prediction_checks_only_powered_inputs_for_0, .timeout = 120)
{
	static const double hp[] = { 20, 300 }, dp[] = { -5, 0, 3 }, h0[] = { 0 }, d0[] = { 1 };
	pm_model *m = ind_fitted();
	pm_dataset *file = ind_data(hp, 2, dp, 3, 1), *bad = ind_data(h0, 1, d0, 1, 1);
	pm_point *pt = NULL;
	pm_error err = { 0 };
	double off, on, x[8], out[6];
	size_t h;

	cr_assert_eq(pm_model_input_index(m, "h", &h, NULL), PM_OK);
	cr_assert_eq(pm_point_new(m, &pt, NULL), PM_OK);
	cr_assert_eq(pm_point_set_num(pt, "h", 100, &err), PM_OK, "%s", err.msg);
	cr_assert_eq(pm_point_set_num(pt, "d", 0, &err), PM_OK, "%s", err.msg);
	cr_assert_eq(pm_model_predict_point(m, pt, &off, &err), PM_OK, "%s", err.msg);
	cr_expect_eq(off, param(m, "C"), "[0 > 0] is off: the constant alone");
	cr_assert_eq(pm_point_set_num(pt, "d", 1, &err), PM_OK, "%s", err.msg);
	cr_assert_eq(pm_model_predict_point(m, pt, &on, &err), PM_OK, "%s", err.msg);
	cr_expect(fabs(on / ind_truth(100, 1) - 1) < 0.01, "%g vs %g", on, ind_truth(100, 1));
	cr_expect_eq(pm_point_set_num(pt, "d", INFINITY, &err), PM_EDOMAIN);
	cr_expect_str_eq(err.msg, "input 'd': inf is not a finite number");
	cr_expect_eq(pm_point_set_num(pt, "h", 0, &err), PM_EDOMAIN);
	cr_expect_str_eq(err.msg, "input 'h': 0 is not a finite number > 0, as a power needs");
	for (size_t k = 0; k < 4; k++) {
		x[2 * k + h] = 100;
		x[2 * k + 1 - h] = (double)k - 2.0;	/* d = -2, -1, 0, 1 */
	}
	cr_assert_eq(pm_model_predict_batch(m, x, 4, out, &err), PM_OK, "%s", err.msg);
	for (size_t k = 0; k < 3; k++)
		cr_expect_eq(out[k], off, "point %zu", k);
	cr_expect_eq(out[3], on);
	x[2 + h] = -2;
	cr_expect_eq(pm_model_predict_batch(m, x, 4, out, &err), PM_EDOMAIN);
	cr_expect_str_eq(err.msg, "point 2: input 'h': -2 is not a finite number > 0, "
			 "as a power needs");
	cr_assert_eq(pm_model_predict_dataset(m, file, out, &err), PM_OK, "%s", err.msg);
	for (size_t k = 0; k < 6; k++)
		cr_expect(fabs(out[k] / ind_truth(hp[k / 3], dp[k % 3]) - 1) < 0.01, "row %zu", k);
	cr_expect_eq(pm_model_predict_dataset(m, bad, out, &err), PM_EDOMAIN);
	cr_expect_str_eq(err.msg, "input 'h': 0 is not a finite number > 0, as a power needs");
	cr_expect_eq(err.line, 2);
	cr_expect_eq(err.column, 1);
	pm_point_free(pt);
	pm_dataset_free(bad);
	pm_dataset_free(file);
	pm_model_free(m);
}

/* A zero under a power in the data, also in a column in an indicator too. */
Test(formula, a_fit_refuses_0_under_a_power)
{
	static const double hz[] = { 0, 16, 32, 64 }, dz[] = { 0, 1 };
	const char *formula[] = { IND_FORMULA, "a * h^p * [h > 20] + b * [d > 0]" };
	pm_dataset *d = ind_data(hz, 4, dz, 2, 2);
	pm_fit_options o = pm_fit_options_default();

	for (size_t k = 0; k < 2; k++) {
		pm_spec *s = ind_spec(formula[k]);
		pm_model *m = NULL;
		pm_error err = { 0 };

		cr_expect_eq(pm_fit(d, s, &o, &m, &err), PM_EDOMAIN, "%s", formula[k]);
		cr_expect(strstr(err.msg, "column 'h': 0 must be > 0"), "%s", err.msg);
		cr_expect_null(m);
		pm_spec_free(s);
	}
	pm_dataset_free(d);
}
