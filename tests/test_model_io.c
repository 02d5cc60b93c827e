/* model.json: save, load, round trip, every schema error, atomic writes;
 * and prediction and the model accessors (lib/model/model.c, lib/model/predict.c). */
#include <criterion/criterion.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "core/json_read.h"
#include "core/tempfile.h"
#include "leak_check.h"
#include "model/model_impl.h"

PM_LEAK_CHECKED_SUITE(model_io);

/* ---- a model to play with --------------------------------------------------
 * 2 numeric intrinsic, 1 categorical (3 levels), 2 extrinsic, interleaved:
 * a_kernel_size p_kernel_size b_activation=relu b_activation=sigmoid
 * b_activation=tanh a_filters p_filters q_threads q_batch_size C */
enum { NIN = 5, NPAR = 10 };
static const char *in_names[NIN] = { "kernel_size", "activation", "filters", "threads",
				     "batch_size" };
static const pm_role in_roles[NIN] = { PM_ROLE_INTRINSIC, PM_ROLE_CATEGORICAL,
				       PM_ROLE_INTRINSIC, PM_ROLE_EXTRINSIC,
				       PM_ROLE_EXTRINSIC };
static const size_t in_nlevels[NIN] = { 0, 3, 0, 0, 0 };
static const char *const act_levels[] = { "relu", "sigmoid", "tanh" };
static const char *const *const in_levels[NIN] = { NULL, act_levels, NULL, NULL, NULL };
static const double in_scale[NIN] = { 3.7, 0, 48.0, 2.5, 64.0 };
static const char *const par_names[NPAR] = {
	"a_kernel_size", "p_kernel_size", "b_activation=relu", "b_activation=sigmoid",
	"b_activation=tanh", "a_filters", "p_filters", "q_threads", "q_batch_size", "C"
};

static pm_model *make_model(int with_fit)
{
	/* awkward values, so that inexact printing would show */
	const double v[NPAR] = { 0.31 + 1.0 / 3e3, 1.7 + 1.0 / 7e3, 0.05 + 1e-4 / 3,
				 0.061 + 1e-5 / 7, 0.042, 0.2 + 1.0 / 9e3, 0.9 - 1.0 / 11e3,
				 -0.8 - 1.0 / 13e3, 0.35 + 1.0 / 17e3, 0.013 + 1e-6 / 3 };
	pm_model *m = NULL;
	pm_error e = { 0 };

	cr_assert_eq(pm__model_new("time_per_iter_s", NIN, in_names, in_roles, in_nlevels,
				   in_levels, NULL, &m, &e),
		     PM_OK, "new: %s", e.msg);
	m->scale = PM_SCALE_AUTO;
	m->target_scale = 0.0123 + 1e-7 / 3;
	for (size_t i = 0; i < NIN; i++)
		m->inputs[i].log_scale = in_scale[i] ? log(in_scale[i]) : 0.0;
	for (size_t k = 0; k < NPAR; k++) {
		m->value[k] = v[k];
		m->params[k].std = k % 2 ? NAN : 0.01 * (double)k + 1.0 / 7;
		m->params[k].lo = -1.5 - (double)k / 3;
		m->params[k].hi = 1000 + (double)k / 3;
	}
	if (with_fit) {
		pm_fit_info *f = &m->info;

		memset(f, 0, sizeof(*f));
		f->options.seed = UINT64_C(18446744073709551557);	/* > 2^53 */
		f->options.threads = 3;
		f->options.maxiter = 777;
		f->options.popsize = 11;
		f->options.tol = 0.015;
		f->options.atol = 1e-9 / 3;
		f->options.mutation_lo = 0.45;
		f->options.mutation_hi = 0.95;
		f->options.recombination = 0.65;
		f->options.polish = 1;
		f->options.scale = PM_SCALE_NONE;
		f->options.reg = PM_REG_L2;
		f->options.lambda_coef = 0.001;
		f->options.lambda_power = 0.002 / 3;
		f->threads_used = 2;
		f->generations = 321;
		f->evaluations = 123456789;
		strcpy(f->stop, "converged");
		f->polished = 1;
		f->cost = 0.1 / 3;
		f->wall_time_s = 0.53;
		/* 2 rows measured 0: mape_rows is written and read back */
		f->training = (pm_metrics){ 600, 598, 0.01 / 3, 4.5 / 7, 1e-5 / 3, 0.0018, 0.97 / 3,
					    4.4 / 9, NAN };
		strcpy(f->data_name, "data/\"odd\" name \xc3\xa9.csv");
		strcpy(f->fingerprint, "0123456789abcdef");
		m->has_fit_info = 1;
	}
	pm__model_raw(m);
	return m;
}

static char *to_json(const pm_model *m)
{
	char *json = NULL;
	pm_error e = { 0 };

	cr_assert_eq(pm_model_to_json(m, &json, &e), PM_OK, "to_json: %s", e.msg);
	cr_assert_not_null(json);
	return json;
}

static pm_model *load_ok(const char *json)
{
	pm_model *m = NULL;
	pm_error e = { 0 };

	cr_assert_eq(pm_model_load_string(json, "m.json", &m, &e), PM_OK, "load: %s (%s)", e.msg,
		     e.file);
	cr_assert_not_null(m);
	return m;
}

/* Loading fails with code and a message containing want. */
static void load_fails(const char *json, pm_status code, const char *want)
{
	pm_model *m = (pm_model *)&m;
	pm_error e = { 0 };
	pm_status st = pm_model_load_string(json, "m.json", &m, &e);

	cr_assert_eq(st, code, "status %d, want %d (msg: %s)", st, code, e.msg);
	cr_assert_eq(e.code, code);
	cr_assert_null(m, "out not NULL on failure");
	cr_assert_not_null(strstr(e.msg, want), "message '%s' lacks '%s'", e.msg, want);
	cr_assert_str_eq(e.file, "m.json");
	if (code == PM_ESCHEMA)
		cr_assert(e.line == 0 && e.column == 0);
}

#define SAME_BITS(a, b, n) (memcmp((a), (b), (n) * sizeof(*(a))) == 0)

static int same_double(double a, double b)
{
	return (isnan(a) && isnan(b)) || memcmp(&a, &b, sizeof(a)) == 0;
}

static void same_metrics(const pm_metrics *a, const pm_metrics *b)
{
	cr_assert_eq(a->n, b->n);
	cr_assert_eq(a->mape_n, b->mape_n);
	cr_assert(same_double(a->mae, b->mae));
	cr_assert(same_double(a->mape, b->mape));
	cr_assert(same_double(a->mse, b->mse));
	cr_assert(same_double(a->rmse, b->rmse));
	cr_assert(same_double(a->r2, b->r2));
	cr_assert(same_double(a->smape, b->smape));
	cr_assert(same_double(a->adj_r2, b->adj_r2));
}

static void same_fit(const pm_fit_info *a, const pm_fit_info *b)
{
	const pm_fit_options *x = &a->options, *y = &b->options;

	cr_assert_eq(x->seed, y->seed, "seed %llu vs %llu", (unsigned long long)x->seed,
		     (unsigned long long)y->seed);
	cr_assert_eq(x->threads, y->threads);
	cr_assert_eq(x->maxiter, y->maxiter);
	cr_assert_eq(x->popsize, y->popsize);
	cr_assert(same_double(x->tol, y->tol));
	cr_assert(same_double(x->atol, y->atol));
	cr_assert(same_double(x->mutation_lo, y->mutation_lo));
	cr_assert(same_double(x->mutation_hi, y->mutation_hi));
	cr_assert(same_double(x->recombination, y->recombination));
	cr_assert_eq(x->polish, y->polish);
	cr_assert_eq(x->scale, y->scale);
	cr_assert_eq(x->reg, y->reg);
	cr_assert(same_double(x->lambda_coef, y->lambda_coef));
	cr_assert(same_double(x->lambda_power, y->lambda_power));
	cr_assert_eq(a->threads_used, b->threads_used);
	cr_assert_eq(a->generations, b->generations);
	cr_assert_eq(a->evaluations, b->evaluations);
	cr_assert_str_eq(a->stop, b->stop);
	cr_assert_eq(a->polished, b->polished);
	cr_assert(same_double(a->cost, b->cost));
	cr_assert(same_double(a->wall_time_s, b->wall_time_s));
	same_metrics(&a->training, &b->training);
	cr_assert_eq(a->constant, b->constant);
	cr_assert_str_eq(a->data_name, b->data_name);
	cr_assert_str_eq(a->fingerprint, b->fingerprint);
}

static void same_model(const pm_model *a, const pm_model *b)
{
	cr_assert_str_eq(a->target, b->target);
	cr_assert_eq(a->scale, b->scale);
	cr_assert(SAME_BITS(&a->target_scale, &b->target_scale, 1));
	cr_assert_eq(a->ninputs, b->ninputs);
	for (size_t i = 0; i < a->ninputs; i++) {
		const pm_input *x = &a->inputs[i], *y = &b->inputs[i];

		cr_assert_str_eq(x->name, y->name);
		cr_assert_eq(x->role, y->role);
		cr_assert_eq(x->nlevels, y->nlevels);
		for (size_t v = 0; v < x->nlevels; v++)
			cr_assert_str_eq(x->levels[v], y->levels[v]);
		cr_assert(SAME_BITS(&x->log_scale, &y->log_scale, 1), "log_scale of %s", x->name);
	}
	cr_assert_eq(a->nparams, b->nparams);
	cr_assert(SAME_BITS(a->value, b->value, a->nparams), "scaled values differ");
	cr_assert(SAME_BITS(a->raw, b->raw, a->nparams), "raw values differ");
	for (size_t k = 0; k < a->nparams; k++) {
		const pm_param *x = &a->params[k], *y = &b->params[k];

		cr_assert_str_eq(x->name, y->name);
		cr_assert_eq(x->desc.kind, y->desc.kind);
		cr_assert_eq(x->desc.input, y->desc.input);
		cr_assert_eq(x->desc.level, y->desc.level);
		cr_assert(SAME_BITS(&x->lo, &y->lo, 1));
		cr_assert(SAME_BITS(&x->hi, &y->hi, 1));
		cr_assert(same_double(x->std, y->std), "std of %s: %g vs %g", x->name, x->std,
			  y->std);
	}
	cr_assert_eq(a->terms.nterms, b->terms.nterms);
	cr_assert_eq(a->terms.nfactors, b->terms.nfactors);
	cr_assert(SAME_BITS(a->terms.term, b->terms.term, a->terms.nterms));
	cr_assert(SAME_BITS(a->terms.factor, b->terms.factor, a->terms.nfactors));
	cr_assert_eq(a->has_fit_info, b->has_fit_info);
	if (a->has_fit_info)
		same_fit(&a->info, &b->info);
	cr_assert_eq(pm_model_nwarnings(a), pm_model_nwarnings(b));
	for (size_t i = 0; i < pm_model_nwarnings(a); i++)
		cr_assert_str_eq(pm_model_warning(a, i), pm_model_warning(b, i));
}

static uint64_t rng_state = 7;

static double uniform(double lo, double hi)
{
	rng_state = rng_state * 6364136223846793005u + 1442695040888963407u;
	return lo + (hi - lo) * (double)(rng_state >> 11) / 9007199254740992.0;
}

static void random_point(double x[NIN])
{
	x[0] = exp(uniform(-2, 5));
	x[1] = floor(uniform(0, 3));
	x[2] = exp(uniform(0, 7));
	x[3] = floor(uniform(1, 65));
	x[4] = exp2(floor(uniform(0, 11)));
}

/* ---- round trip ------------------------------------------------------------ */

Test(model_io, round_trip_exact)
{
	pm_model *m = make_model(1), *l;
	char *json = to_json(m), *again;
	pm_error e = { 0 };

	l = load_ok(json);
	same_model(m, l);
	/* saving the loaded model gives the same text */
	again = to_json(l);
	cr_assert_str_eq(json, again);
	for (int r = 0; r < 5000; r++) {
		double x[NIN], a, b;

		random_point(x);
		cr_assert_eq(pm_model_predict(m, x, &a, &e), PM_OK, "%s", e.msg);
		cr_assert_eq(pm_model_predict(l, x, &b, &e), PM_OK, "%s", e.msg);
		cr_assert(SAME_BITS(&a, &b, 1), "point %d: %.17g vs %.17g", r, a, b);
	}
	free(again);
	free(json);
	pm_model_free(l);
	pm_model_free(m);
}

Test(model_io, round_trip_without_fit_info)
{
	pm_model *m = make_model(0), *l;
	char *json = to_json(m);

	cr_assert_null(strstr(json, "\"fit\""));
	cr_assert_null(strstr(json, "\"run\""));
	l = load_ok(json);
	same_model(m, l);
	cr_assert_null(pm_model_fit_info(l));
	free(json);
	pm_model_free(l);
	pm_model_free(m);
}

Test(model_io, scale_none_and_no_inputs)
{
	const char *noin[1] = { NULL };
	pm_model *m = NULL, *l;
	pm_error e = { 0 };
	char *json;
	double t;

	cr_assert_eq(pm__model_new("t", 0, noin, NULL, NULL, NULL, NULL, &m, &e), PM_OK, "%s",
		     e.msg);
	m->scale = PM_SCALE_NONE;
	m->value[0] = 4.25;
	pm__model_raw(m);
	json = to_json(m);
	cr_assert_not_null(strstr(json, "\"scale\": \"none\""));
	l = load_ok(json);
	same_model(m, l);
	cr_assert_eq(pm_model_predict(l, NULL, &t, &e), PM_OK);
	cr_assert_eq(t, 4.25);
	free(json);
	pm_model_free(l);
	pm_model_free(m);
}

static void keys_in_order(const cJSON *obj, const char *const *want)
{
	size_t i = 0;

	for (const cJSON *v = obj->child; v; v = v->next, i++) {
		cr_assert_not_null(want[i], "extra key '%s'", v->string);
		cr_assert_str_eq(v->string, want[i]);
	}
	cr_assert_null(want[i], "missing key '%s'", want[i]);
}

Test(model_io, format_layout)
{
	static const char *const top[] = { "format", "version", "library_version", "form",
					   "target", "scale", "target_scale", "inputs",
					   "parameters", "fit", "run", NULL };
	static const char *const fit[] = { "engine", "seed", "maxiter", "popsize", "tol", "atol",
					   "mutation", "recombination", "polish", "scale", "loss", "reg",
					   "lambda", "lambda_power", "generations", "evaluations",
					   "stop", "polished", "cost", "training", "data", NULL };
	static const char *const training[] = { "rows", "mape_rows", "mae", "mape", "mse", "rmse", "r2",
						"smape", "adj_r2", NULL };
	static const char *const run[] = { "threads", "threads_used", "wall_time_s", NULL };
	static const char *const coef[] = { "name", "kind", "input", "value", "scaled", "std",
					    "bounds", NULL };
	static const char *const level[] = { "name", "kind", "input", "level", "value",
					     "scaled", "std", "bounds", NULL };
	static const char *const cnst[] = { "name", "kind", "value", "scaled", "std", "bounds",
					    NULL };
	/* a power's "power" is its exponent on t: "value" itself in eq. 4.4 */
	static const char *const power[] = { "name", "kind", "input", "value", "power", "scaled",
					     "std", "bounds", NULL };
	static const char *const kinds[NPAR] = { "coefficient", "power", "level", "level",
						 "level", "coefficient", "power", "scaling",
						 "scaling", "constant" };
	pm_model *m = make_model(1);
	char *json = to_json(m);
	cJSON *doc = cJSON_Parse(json), *p, *f;
	const char *head = "{\n"
			   "  \"format\": \"perfmodel-model\",\n"
			   "  \"version\": 1,\n"
			   "  \"library_version\": \"0.1.0\",\n"
			   "  \"form\": \"additive\",\n"
			   "  \"target\": \"time_per_iter_s\",\n"
			   "  \"scale\": \"auto\",\n"
			   "  \"target_scale\": ";
	int k = 0;

	cr_assert_not_null(doc);
	cr_assert_eq(strncmp(json, head, strlen(head)), 0, "head:\n%.300s", json);
	cr_assert_str_eq(pm_version(), "0.1.0");
	keys_in_order(doc, top);
	f = cJSON_GetObjectItemCaseSensitive(doc, "fit");
	keys_in_order(f, fit);
	keys_in_order(cJSON_GetObjectItemCaseSensitive(f, "training"), training);
	keys_in_order(cJSON_GetObjectItemCaseSensitive(doc, "run"), run);
	cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(doc, "parameters")) {
		const char *kind = cJSON_GetObjectItemCaseSensitive(p, "kind")->valuestring;
		int is_power = !strcmp(kind, "power") || !strcmp(kind, "scaling");

		cr_assert_str_eq(cJSON_GetObjectItemCaseSensitive(p, "name")->valuestring,
				 par_names[k]);
		cr_assert_str_eq(kind, kinds[k]);
		keys_in_order(p, k == 9 ? cnst : k >= 2 && k <= 4 ? level : is_power ? power : coef);
		if (is_power)
			cr_assert_eq(cJSON_GetObjectItemCaseSensitive(p, "power")->valuedouble,
				     m->raw[k]);
		/* "value" is the raw parameter, "scaled" the fitted one */
		cr_assert_eq(cJSON_GetObjectItemCaseSensitive(p, "value")->valuedouble, m->raw[k]);
		cr_assert_eq(cJSON_GetObjectItemCaseSensitive(p, "scaled")->valuedouble,
			     m->value[k]);
		k++;
	}
	cr_assert_eq(k, NPAR);
	cr_assert_str_eq(cJSON_GetObjectItemCaseSensitive(
				 cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(doc, "parameters"), 2),
				 "level")->valuestring,
			 "relu");
	/* std NaN is null; a seed beyond 2^53 is kept exact as a string */
	cr_assert(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(
		cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(doc, "parameters"), 1), "std")));
	cr_assert_str_eq(cJSON_GetObjectItemCaseSensitive(f, "seed")->valuestring,
			 "18446744073709551557");
	cr_assert_not_null(strstr(json, "\"mutation\": [0.45, 0.95]"));
	cr_assert_not_null(strstr(json, "\"bounds\": [-1.5, 1000]"));
	cr_assert_not_null(strstr(json, "\"reg\": \"l2\""));
	cr_assert_not_null(strstr(json, "\"polish\": true"));
	cr_assert_not_null(strstr(json, "\"adj_r2\": null"));
	cr_assert_not_null(strstr(json, "\"fingerprint\": \"0123456789abcdef\""));
	cr_assert_eq(json[strlen(json) - 1], '\n');
	cJSON_Delete(doc);
	free(json);
	pm_model_free(m);
}

/* A model that could not be loaded back is refused before anything is written. */
Test(model_io, unsavable_model)
{
	pm_model *m = make_model(0);
	char *json = (char *)&m;
	pm_error e = { 0 };

	m->value[3] = NAN;
	cr_assert_eq(pm_model_to_json(m, &json, &e), PM_EINVAL);
	cr_assert_null(json);
	cr_assert_not_null(strstr(e.msg, "b_activation=sigmoid"), "%s", e.msg);
	m->value[3] = 1;
	m->target_scale = 0;
	cr_assert_eq(pm_model_to_json(m, &json, &e), PM_EINVAL);
	m->target_scale = 1;
	m->inputs[0].log_scale = INFINITY;
	cr_assert_eq(pm_model_to_json(m, &json, &e), PM_EINVAL);
	cr_assert_not_null(strstr(e.msg, "kernel_size"), "%s", e.msg);
	m->inputs[0].log_scale = 0;
	m->params[9].lo = 2;
	m->params[9].hi = 1;
	cr_assert_eq(pm_model_to_json(m, &json, &e), PM_EINVAL);
	cr_assert_not_null(strstr(e.msg, "bounds"), "%s", e.msg);
	cr_assert_eq(pm_model_to_json(NULL, &json, &e), PM_EINVAL);
	pm_model_free(m);
}

/* ---- files ----------------------------------------------------------------- */

static char *temp_dir(void)
{
	static char dir[64];

	strcpy(dir, "/tmp/pm_model_io_XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
	return dir;
}

static size_t dir_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	size_t n = 0;

	cr_assert_not_null(d);
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

static char *slurp(const char *path)
{
	char *text = NULL;
	size_t len;
	pm_error e = { 0 };

	cr_assert_eq(pm__read_file(path, &text, &len, &e), PM_OK, "%s", e.msg);
	cr_assert_eq(strlen(text), len);
	return text;
}

static void spit(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	cr_assert_not_null(f);
	fputs(text, f);
	cr_assert_eq(fclose(f), 0);
}

Test(model_io, save_and_load_file)
{
	char *dir = temp_dir(), path[256], *text, *json;
	pm_model *m = make_model(1), *l = NULL;
	pm_error e = { 0 };
	struct stat st;

	snprintf(path, sizeof(path), "%s/model.json", dir);
	umask(022);
	cr_assert_eq(pm_model_save_file(m, path, &e), PM_OK, "%s", e.msg);
	cr_assert_eq(stat(path, &st), 0);
	cr_assert_eq(st.st_mode & 0777, 0644, "mode %o", (unsigned)(st.st_mode & 0777));
	cr_assert_eq(dir_entries(dir), 1, "a temporary file was left behind");
	text = slurp(path);
	json = to_json(m);
	cr_assert_str_eq(text, json);
	cr_assert_eq(pm_model_load_file(path, &l, &e), PM_OK, "%s", e.msg);
	same_model(m, l);
	pm_model_free(l);

	/* replacing keeps the old file's mode */
	cr_assert_eq(chmod(path, 0640), 0);
	cr_assert_eq(pm_model_save_file(m, path, &e), PM_OK, "%s", e.msg);
	cr_assert_eq(stat(path, &st), 0);
	cr_assert_eq(st.st_mode & 0777, 0640, "mode %o", (unsigned)(st.st_mode & 0777));
	cr_assert_eq(dir_entries(dir), 1);

	unlink(path);
	rmdir(dir);
	free(text);
	free(json);
	pm_model_free(m);
}

Test(model_io, save_into_missing_folder)
{
	char *dir = temp_dir(), path[300], sub[256];
	pm_model *m = make_model(1);
	pm_error e = { 0 };

	snprintf(sub, sizeof(sub), "%s/nope", dir);
	snprintf(path, sizeof(path), "%s/model.json", sub);
	cr_assert_eq(pm_model_save_file(m, path, &e), PM_EIO);
	cr_assert_eq(e.code, PM_EIO);
	cr_assert_not_null(strstr(e.msg, path), "%s", e.msg);
	cr_assert_not_null(strstr(e.msg, "No such file"), "%s", e.msg);
	cr_assert_eq(access(sub, F_OK), -1);
	cr_assert_eq(dir_entries(dir), 0);
	rmdir(dir);
	pm_model_free(m);
}

Test(model_io, failed_save_leaves_old_file)
{
	char *dir = temp_dir(), path[256], sub[256], inner[300], *text;
	pm_model *m = make_model(1);
	pm_error e = { 0 };

	/* the model cannot be written */
	snprintf(path, sizeof(path), "%s/model.json", dir);
	spit(path, "old contents\n");
	m->value[0] = NAN;
	cr_assert_eq(pm_model_save_file(m, path, &e), PM_EINVAL);
	text = slurp(path);
	cr_assert_str_eq(text, "old contents\n");
	free(text);
	cr_assert_eq(dir_entries(dir), 1);

	/* the rename fails: the target is a folder */
	m->value[0] = 0.5;
	snprintf(sub, sizeof(sub), "%s/folder.json", dir);
	cr_assert_eq(mkdir(sub, 0755), 0);
	snprintf(inner, sizeof(inner), "%s/keep", sub);
	spit(inner, "keep\n");
	cr_assert_eq(pm_model_save_file(m, sub, &e), PM_EIO);
	cr_assert_not_null(strstr(e.msg, sub), "%s", e.msg);
	cr_assert_eq(dir_entries(dir), 2, "a temporary file was left behind");
	cr_assert_eq(dir_entries(sub), 1);
	text = slurp(inner);
	cr_assert_str_eq(text, "keep\n");
	free(text);

	/* the same through pm_write_file_atomic */
	cr_assert_eq(pm_write_file_atomic(sub, "x", 1, &e), PM_EIO);
	cr_assert_eq(dir_entries(dir), 2);
	cr_assert_eq(pm_write_file_atomic(NULL, "x", 1, &e), PM_EINVAL);
	cr_assert_eq(pm_write_file_atomic(path, NULL, 1, &e), PM_EINVAL);
	text = slurp(path);
	cr_assert_str_eq(text, "old contents\n");
	free(text);
	cr_assert_eq(pm_write_file_atomic(path, "", 0, &e), PM_OK, "%s", e.msg);
	text = slurp(path);
	cr_assert_str_eq(text, "");
	free(text);

	unlink(inner);
	rmdir(sub);
	unlink(path);
	rmdir(dir);
	pm_model_free(m);
}

/* pm_write_file_atomic's temporary file: close-on-exec from its creation,
 * private, in the template's folder; and the errors of mkostemp. */
Test(model_io, temp_file_close_on_exec)
{
	char *dir = temp_dir(), tmpl[300];
	struct stat st;
	int fd, flags;

	snprintf(tmpl, sizeof(tmpl), "%s/model.json.XXXXXX", dir);
	fd = pm__mkstemp_cloexec(tmpl);
	cr_assert_geq(fd, 0, "%s", strerror(errno));
	flags = fcntl(fd, F_GETFD);
	cr_assert_neq(flags, -1);
	cr_assert(flags & FD_CLOEXEC, "a child process would inherit the temporary file");
	cr_assert_eq(fstat(fd, &st), 0);
	cr_assert_eq(st.st_mode & 0777, 0600);
	cr_assert_null(strstr(tmpl, "XXXXXX"), "%s", tmpl);
	cr_assert_eq(dir_entries(dir), 1);
	close(fd);
	unlink(tmpl);

	snprintf(tmpl, sizeof(tmpl), "%s/nope/model.json.XXXXXX", dir);
	errno = 0;
	cr_assert_eq(pm__mkstemp_cloexec(tmpl), -1);
	cr_assert_eq(errno, ENOENT);
	snprintf(tmpl, sizeof(tmpl), "%s/model.json", dir);
	errno = 0;
	cr_assert_eq(pm__mkstemp_cloexec(tmpl), -1, "no XXXXXX to replace");
	cr_assert_eq(errno, EINVAL);
	cr_assert_eq(dir_entries(dir), 0);
	rmdir(dir);
}

Test(model_io, load_missing_file)
{
	pm_model *m = (pm_model *)&m;
	pm_error e = { 0 };

	cr_assert_eq(pm_model_load_file("/nonexistent/model.json", &m, &e), PM_EIO);
	cr_assert_null(m);
	cr_assert_str_eq(e.file, "/nonexistent/model.json");
	cr_assert_not_null(strstr(e.msg, "cannot open"), "%s", e.msg);
	cr_assert_not_null(strstr(e.msg, "No such file"), "%s", e.msg);
	cr_assert_eq(pm_model_load_file("/tmp", &m, &e), PM_EIO);
	cr_assert_eq(pm_model_load_file(NULL, &m, &e), PM_EINVAL);
	cr_assert_eq(pm_model_load_string(NULL, NULL, &m, &e), PM_EINVAL);
	cr_assert_eq(pm_model_load_string("{}", NULL, NULL, &e), PM_EINVAL);
}

Test(model_io, parse_error_in_file_has_place)
{
	char *dir = temp_dir(), path[256];
	pm_model *m = NULL;
	pm_error e = { 0 };

	snprintf(path, sizeof(path), "%s/bad.json", dir);
	spit(path, "{\n  \"format\": \"perfmodel-model\",\n  \"version\": 1\n  \"form\": \"additive\"\n}\n");
	cr_assert_eq(pm_model_load_file(path, &m, &e), PM_EPARSE);
	cr_assert_str_eq(e.file, path);
	cr_assert_eq(e.line, 4);
	cr_assert_eq(e.column, 3);
	cr_assert_not_null(strstr(e.msg, "invalid JSON"));
	unlink(path);
	rmdir(dir);
}

/* ---- parse errors ------------------------------------------------------------ */

static void parse_fails_at(const char *text, unsigned line, unsigned col, const char *want)
{
	pm_model *m = NULL;
	pm_error e = { 0 };

	cr_assert_eq(pm_model_load_string(text, "m.json", &m, &e), PM_EPARSE, "%s", e.msg);
	cr_assert_null(m);
	cr_assert_str_eq(e.file, "m.json");
	cr_assert_eq(e.line, line, "line %u, want %u for %s", e.line, line, text);
	cr_assert_eq(e.column, col, "column %u, want %u for %s", e.column, col, text);
	cr_assert_not_null(strstr(e.msg, want), "'%s' lacks '%s'", e.msg, want);
}

Test(model_io, parse_errors)
{
	parse_fails_at("", 1, 1, "invalid JSON");
	parse_fails_at("{\"a\": tru}", 1, 7, "invalid JSON");
	parse_fails_at("{\n\n  \"a\": [1, 2}", 3, 13, "invalid JSON");
	parse_fails_at("{} x", 1, 4, "text after the document");
	parse_fails_at("{\"a\":\n \"b\tc\"}", 2, 4, "control character");
}

Test(model_io, nul_byte)
{
	const char text[] = "{\"a\": 1}\0 junk";
	cJSON *doc = NULL;
	pm_error e = { 0 };

	cr_assert_eq(pm__json_parse(text, sizeof(text) - 1, "n.json", &doc, &e), PM_EPARSE);
	cr_assert_null(doc);
	cr_assert_eq(e.line, 1);
	cr_assert_eq(e.column, 9);
	cr_assert_not_null(strstr(e.msg, "NUL"));
	/* and a length that stops before the NUL is fine */
	cr_assert_eq(pm__json_parse(text, 8, "n.json", &doc, &e), PM_OK, "%s", e.msg);
	cJSON_Delete(doc);
}

static char *nested(int depth)
{
	char *s = malloc((size_t)depth * 2 + 64);
	size_t n = 0;

	n += (size_t)sprintf(s, "{\"format\": \"perfmodel-model\", \"x\": ");
	for (int i = 1; i < depth; i++)
		s[n++] = '[';
	for (int i = 1; i < depth; i++)
		s[n++] = ']';
	strcpy(s + n, "}");
	return s;
}

Test(model_io, deep_nesting_rejected)
{
	char *deep = nested(100), *ok = nested(64);
	const char *prefix = "{\"format\": \"perfmodel-model\", \"x\": ";
	cJSON *doc = NULL;
	pm_error e = { 0 };

	/* the 65th level is the 64th '[' */
	parse_fails_at(deep, 1, (unsigned)strlen(prefix) + 64, "nested deeper than 64 levels");
	cr_assert_eq(pm__json_parse(ok, strlen(ok), "ok.json", &doc, &e), PM_OK, "%s", e.msg);
	cJSON_Delete(doc);
	free(deep);
	free(ok);
	/* deeper than cJSON's own limit, and unterminated: still ours */
	deep = malloc(5001);
	memset(deep, '[', 5000);
	deep[5000] = '\0';
	parse_fails_at(deep, 1, 65, "nested deeper than 64 levels");
	free(deep);
}

/* Every proper prefix of a model file is invalid JSON, found as such. */
Test(model_io, truncated_files)
{
	pm_model *m = make_model(1);
	char *json = to_json(m);
	size_t len = strlen(json) - 1;	/* without the final newline */

	for (size_t n = 0; n < len; n++) {
		cJSON *doc = NULL;
		pm_error e = { 0 };

		cr_assert_eq(pm__json_parse(json, n, "t.json", &doc, &e), PM_EPARSE, "prefix %zu",
			     n);
		cr_assert_null(doc);
		cr_assert_geq(e.line, 1);
		cr_assert_geq(e.column, 1);
	}
	free(json);
	pm_model_free(m);
}

/* ---- schema errors ----------------------------------------------------------- */

/* The node at a path like "inputs/1/levels" ("+" appends to an array). */
static cJSON *parent_of(cJSON *root, const char *path, char *last)
{
	char buf[256], *tok, *save = NULL, *next;
	cJSON *node = root;

	snprintf(buf, sizeof(buf), "%s", path);
	tok = strtok_r(buf, "/", &save);
	while ((next = strtok_r(NULL, "/", &save))) {
		node = cJSON_IsArray(node) ? cJSON_GetArrayItem(node, atoi(tok))
					   : cJSON_GetObjectItemCaseSensitive(node, tok);
		cr_assert_not_null(node, "no '%s' in %s", tok, path);
		tok = next;
	}
	strcpy(last, tok);
	return node;
}

/* The good model's JSON with the node at path replaced by value (JSON text),
 * or deleted when value is NULL, or added when absent. */
static char *edited(const char *path, const char *value)
{
	pm_model *m = make_model(1);
	char *json = to_json(m), *out, last[256];
	cJSON *doc = cJSON_Parse(json), *parent, *v = NULL;

	cr_assert_not_null(doc);
	parent = parent_of(doc, path, last);
	if (value) {
		v = cJSON_Parse(value);
		cr_assert_not_null(v, "bad test value %s", value);
	}
	if (cJSON_IsArray(parent)) {
		if (strcmp(last, "+") == 0)
			cJSON_AddItemToArray(parent, v);
		else if (v)
			cJSON_ReplaceItemInArray(parent, atoi(last), v);
		else
			cJSON_DeleteItemFromArray(parent, atoi(last));
	} else if (!v) {
		cJSON_DeleteItemFromObjectCaseSensitive(parent, last);
	} else if (cJSON_GetObjectItemCaseSensitive(parent, last)) {
		cJSON_ReplaceItemInObjectCaseSensitive(parent, last, v);
	} else {
		cJSON_AddItemToObject(parent, last, v);
	}
	out = cJSON_Print(doc);
	cr_assert_not_null(out);
	cJSON_Delete(doc);
	free(json);
	pm_model_free(m);
	return out;
}

static void edit_fails(const char *path, const char *value, const char *want)
{
	char *json = edited(path, value);

	load_fails(json, PM_ESCHEMA, want);
	free(json);
}

static void edit_loads(const char *path, const char *value)
{
	char *json = edited(path, value);
	pm_model *m = load_ok(json);

	pm_model_free(m);
	free(json);
}

Test(model_io, schema_header)
{
	load_fails("[]", PM_ESCHEMA, "not a perfmodel model file");
	load_fails("7", PM_ESCHEMA, "not a perfmodel model file");
	edit_fails("format", "\"perfmodel-spec\"", "not a perfmodel model file");
	edit_fails("format", NULL, "not a perfmodel model file");
	edit_fails("format", "1", "not a perfmodel model file");
	edit_fails("version", "3", "model format version 3 is newer than this perfmodel (reads 2)");
	edit_fails("version", "0", "model format version 0");
	edit_fails("version", "1.5", "'version' must be a whole number");
	edit_fails("version", "-1", "'version' must be a whole number");
	edit_fails("version", "\"one\"", "'version' must be a whole number");
	edit_fails("version", NULL, "missing 'version'");
	edit_fails("form", "\"cubic\"", "'form' must be one of 'additive', 'multiplicative'");
	edit_fails("form", "\"multiplicative\"", "missing 'formula'");
	edit_fails("form", NULL, "missing 'form'");
	edit_fails("target", "\"\"", "'target' must not be empty");
	edit_fails("target", "3", "'target' must be a string");
	edit_fails("scale", "\"log\"", "'scale' must be 'auto' or 'none'");
	edit_fails("target_scale", "0", "'target_scale' must be > 0");
	edit_fails("target_scale", "-1", "'target_scale' must be > 0");
	edit_fails("target_scale", "1e999", "'target_scale' must be a finite number");
	edit_fails("target_scale", "\"1\"", "'target_scale' must be a finite number");
	edit_fails("target_scale", NULL, "missing 'target_scale'");
}

Test(model_io, schema_inputs)
{
	edit_fails("inputs", "{}", "'inputs' must be an array");
	edit_fails("inputs", NULL, "missing 'inputs'");
	edit_fails("inputs/0", "3", "inputs[0]: must be an object");
	edit_fails("inputs/0/name", "\"\"", "inputs[0]: 'name' must not be empty");
	edit_fails("inputs/0/name", "[]", "inputs[0]: 'name' must be a string");
	edit_fails("inputs/1/role", "\"nominal\"",
		   "inputs[1]: 'role' must be one of 'intrinsic', 'categorical' or 'extrinsic'");
	edit_fails("inputs/1/role", NULL, "inputs[1]: missing 'role'");
	edit_fails("inputs/1/levels", "[]", "inputs[1]: 'levels' must not be empty");
	edit_fails("inputs/1/levels", "\"relu\"", "inputs[1]: 'levels' must be an array");
	edit_fails("inputs/1/levels", "[\"relu\", \"tanh\", \"relu\"]",
		   "inputs[1]: level 'relu' is listed twice");
	edit_fails("inputs/1/levels/2", "7", "inputs[1]: levels[2] must be a string");
	edit_fails("inputs/1/levels", NULL, "inputs[1]: missing 'levels'");
	edit_fails("inputs/2/name", "\"kernel_size\"", "two inputs are named 'kernel_size'");
	edit_fails("inputs/0/log_scale", "1e999", "inputs[0]: 'log_scale' must be a finite number");
	edit_fails("inputs/3/log_scale", NULL, "inputs[3]: missing 'log_scale'");
	edit_fails("inputs/3/log_scale", "null", "inputs[3]: 'log_scale' must be a finite number");
	/* the parameters follow the inputs: a changed role changes them */
	edit_fails("inputs/3/role", "\"intrinsic\"",
		   "parameters[7]: is 'q_threads' where the inputs give 'a_threads'");
}

Test(model_io, schema_parameters)
{
	edit_fails("parameters", "{}", "'parameters' must be an array");
	edit_fails("parameters/5/name", "\"a_filterz\"",
		   "parameters[5]: is 'a_filterz' where the inputs give 'a_filters'");
	edit_fails("parameters/5/name", NULL, "parameters[5]: missing 'name'");
	edit_fails("parameters/5", "[]", "parameters[5]: must be an object");
	edit_fails("parameters/2", NULL,
		   "parameters[2]: is 'b_activation=sigmoid' where the inputs give "
		   "'b_activation=relu'");
	edit_fails("parameters/9", NULL,
		   "'parameters' has 9 entries where the inputs give 10 (the first missing one "
		   "is 'C')");
	edit_fails("parameters/+", "{}", "'parameters' has 11 entries where the inputs give 10");
	edit_fails("parameters/2/scaled", "1e999",
		   "parameter 'b_activation=relu': 'scaled' must be a finite number");
	edit_fails("parameters/2/scaled", "null", "'scaled' must be a finite number");
	edit_fails("parameters/2/scaled", NULL, "parameter 'b_activation=relu': missing 'scaled'");
	edit_fails("parameters/0/bounds", "[5, -5]",
		   "parameter 'a_kernel_size': 'bounds' [5, -5] has lo > hi");
	edit_fails("parameters/0/bounds", "[1]", "'bounds' must be [lo, hi], two finite numbers");
	edit_fails("parameters/0/bounds", "[1, 2, 3]", "'bounds' must be [lo, hi]");
	edit_fails("parameters/0/bounds", "[1, 1e999]", "'bounds' must be [lo, hi]");
	edit_fails("parameters/0/bounds", "[\"1\", 2]", "'bounds' must be [lo, hi]");
	edit_fails("parameters/0/bounds", NULL, "missing 'bounds'");
	edit_fails("parameters/0/std", "\"x\"", "'std' must be a finite number or null");
	edit_fails("parameters/0/std", NULL, "missing 'std'");
}

Test(model_io, schema_fit)
{
	char stop[80];

	memset(stop, 'x', sizeof(stop));
	stop[0] = '"';
	stop[70] = '"';
	stop[71] = '\0';
	edit_fails("fit", "[]", "'fit' must be an object");
	edit_fails("fit/polish", "1", "fit: 'polish' must be true or false");
	edit_fails("fit/reg", "\"l3\"", "fit: 'reg' must be one of 'none', 'l1' or 'l2'");
	edit_fails("fit/scale", "null", "fit: 'scale' must be 'auto' or 'none'");
	edit_fails("fit/stop", stop, "fit: 'stop' is longer than 63 bytes");
	edit_fails("fit/seed", "-1", "fit: 'seed' must be a whole number");
	edit_fails("fit/seed", "\"18446744073709551616\"", "fit: 'seed' must be a whole number");
	edit_fails("fit/seed", "\"12a\"", "fit: 'seed' must be a whole number");
	edit_fails("fit/seed", "1e300", "fit: 'seed' must be a whole number");
	edit_fails("fit/maxiter", "4294967296", "from 0 to 4294967295");
	edit_fails("fit/tol", "null", "fit: 'tol' must be a finite number");
	edit_fails("fit/mutation", "[0.5]", "fit: 'mutation' must be [lo, hi]");
	edit_fails("fit/training", NULL, "fit: missing 'training'");
	edit_fails("fit/training/rows", "1.5", "fit.training: 'rows' must be a whole number");
	edit_fails("fit/training/mape_rows", "601",
		   "fit.training: 'mape_rows' must be a whole number from 0 to 600");
	edit_fails("fit/training/r2", "true", "fit.training: 'r2' must be a finite number or null");
	edit_fails("fit/data", NULL, "fit: missing 'data'");
	edit_fails("fit/data/fingerprint", "\"0123456789abcdef0\"",
		   "fit.data: 'fingerprint' is longer than 16 bytes");
	edit_fails("fit/data/file", "{}", "fit.data: 'file' must be a string");
	edit_fails("run", "7", "'run' must be an object");
	edit_fails("run/threads", "-2", "run: 'threads' must be a whole number");
	edit_fails("run/wall_time_s", "\"slow\"", "run: 'wall_time_s' must be a finite number");
}

/* Forward compatibility: keys this version does not know are ignored. */
Test(model_io, unknown_keys_ignored)
{
	edit_loads("future", "{\"anything\": [1, 2, 3]}");
	edit_loads("inputs/0/comment", "\"measured on a V100\"");
	edit_loads("parameters/3/ci95", "[0.1, 0.2]");
	edit_loads("fit/future", "null");
	/* and the fields for people are not read */
	edit_loads("parameters/3/value", "\"n/a\"");
	edit_loads("library_version", "9");
	edit_loads("run", NULL);
	edit_loads("fit/seed", "\"12\"");
}

Test(model_io, run_is_optional)
{
	char *json = edited("run", NULL);
	pm_model *m = load_ok(json);
	const pm_fit_info *f = pm_model_fit_info(m);

	cr_assert_not_null(f);
	cr_assert_eq(f->options.threads, 0);
	cr_assert_eq(f->threads_used, 0);
	cr_assert_eq(f->generations, 321);
	free(json);
	pm_model_free(m);
}

Test(model_io, duplicate_keys)
{
	pm_model *m = make_model(1);
	char *json = to_json(m), *dup;
	const char *at = strstr(json, "\"version\": 1,");
	size_t head;

	cr_assert_not_null(at);
	head = (size_t)(at - json);
	dup = malloc(strlen(json) + 64);
	memcpy(dup, json, head);
	strcpy(dup + head, "\"version\": 1, ");
	strcat(dup, at);
	load_fails(dup, PM_ESCHEMA, "duplicate key 'version'");
	free(dup);
	free(json);
	pm_model_free(m);
}

/* Hostile files: no crash, no leak, only a schema error or success. */
struct node {
	cJSON *parent, *item;
};

static void collect(cJSON *parent, struct node *all, size_t *n, size_t cap)
{
	for (cJSON *c = parent->child; c; c = c->next) {
		cr_assert_lt(*n, cap);
		all[(*n)++] = (struct node){ parent, c };
		collect(c, all, n, cap);
	}
}

static void load_any(const char *text, int *loaded)
{
	pm_model *m = NULL;
	pm_error e = { 0 };
	pm_status st = pm_model_load_string(text, "m.json", &m, &e);

	cr_assert(st == PM_OK || st == PM_ESCHEMA || st == PM_EPARSE, "status %d: %s", st,
		  e.msg);
	if (st == PM_OK) {
		double x[NIN] = { 1, 0, 1, 1, 1 }, t;

		cr_assert_not_null(m);
		/* whatever loaded can predict without crashing */
		if (pm_model_ninputs(m) == NIN)
			(void)pm_model_predict(m, x, &t, NULL);
		(*loaded)++;
	} else {
		cr_assert_null(m);
		cr_assert(e.msg[0]);
		cr_assert_str_eq(e.file, "m.json");
	}
	pm_model_free(m);
}

Test(model_io, every_node_mutated)
{
	static const char *const values[] = { "null", "true", "\"x\"", "\"\"", "0", "-1",
					      "1e300", "0.5", "[]", "{}", "[1, 2]",
					      "{\"a\": 1}", "[\"relu\"]" };
	enum { NV = sizeof(values) / sizeof(*values), CAP = 1024 };
	pm_model *m0 = make_model(1);
	char *json = to_json(m0);
	cJSON *base = cJSON_Parse(json);
	static struct node all[CAP];
	size_t n = 0;
	int loaded = 0;

	collect(base, all, &n, CAP);
	cr_assert_gt(n, 150);
	for (size_t i = 0; i < n; i++) {
		for (size_t k = 0; k <= NV; k++) {
			cJSON *doc = cJSON_Duplicate(base, 1);
			size_t nn = 0;
			char *text;

			collect(doc, all, &nn, CAP);
			if (k < NV)
				cJSON_ReplaceItemViaPointer(all[i].parent, all[i].item,
							    cJSON_Parse(values[k]));
			else
				cJSON_Delete(cJSON_DetachItemViaPointer(all[i].parent,
									all[i].item));
			text = cJSON_PrintUnformatted(doc);
			cr_assert_not_null(text);
			load_any(text, &loaded);
			free(text);
			cJSON_Delete(doc);
		}
	}
	/* some edits touch only fields for people, or are valid values */
	cr_assert_gt(loaded, 0);
	cJSON_Delete(base);
	free(json);
	pm_model_free(m0);
}

Test(model_io, random_byte_changes)
{
	static const char alphabet[] = "{}[]\",:0123456789.-+eE \\/ntfrua\x01\x7f\xff";
	pm_model *m0 = make_model(1);
	char *json = to_json(m0);
	size_t len = strlen(json);
	char *text = malloc(len + 1);
	int loaded = 0;

	for (int r = 0; r < 3000; r++) {
		memcpy(text, json, len + 1);
		for (int j = 0; j < 1 + r % 3; j++)
			text[(size_t)uniform(0, (double)len)] =
				alphabet[(size_t)uniform(0, sizeof(alphabet) - 1)];
		load_any(text, &loaded);
	}
	free(text);
	free(json);
	pm_model_free(m0);
}

/* Huge lists cost n log n: duplicates are found by sorting. */
static char *big_model(size_t nlevels, int dup_levels, size_t ninputs)
{
	size_t cap = 256 + (nlevels + ninputs) * 64;
	char *s = malloc(cap);
	size_t n = 0;

	n += (size_t)snprintf(s + n, cap - n,
			      "{\"format\": \"perfmodel-model\", \"version\": 1, \"form\": "
			      "\"additive\", \"target\": \"t\", \"scale\": \"auto\", "
			      "\"target_scale\": 1, \"inputs\": [");
	if (nlevels) {
		n += (size_t)snprintf(s + n, cap - n,
				      "{\"name\": \"c\", \"role\": \"categorical\", \"levels\": [");
		for (size_t v = 0; v < nlevels; v++)
			n += (size_t)snprintf(s + n, cap - n, "%s\"l%zu\"", v ? "," : "",
					      dup_levels ? v % 2 : v);
		n += (size_t)snprintf(s + n, cap - n, "]}");
	}
	for (size_t i = 0; i < ninputs; i++)
		n += (size_t)snprintf(s + n, cap - n,
				      "%s{\"name\": \"x%zu\", \"role\": \"extrinsic\", "
				      "\"log_scale\": 0}",
				      i || nlevels ? "," : "", i % 2 ? i : 0);
	snprintf(s + n, cap - n, "], \"parameters\": []}");
	return s;
}

Test(model_io, huge_lists, .timeout = 60)
{
	char *s;

	s = big_model(200000, 0, 0);
	load_fails(s, PM_ESCHEMA, "'parameters' has 0 entries where the inputs give 200001");
	free(s);
	s = big_model(200000, 1, 0);
	load_fails(s, PM_ESCHEMA, "inputs[0]: level 'l");
	free(s);
	s = big_model(0, 0, 200000);
	load_fails(s, PM_ESCHEMA, "two inputs are named 'x0'");
	free(s);
}

/* ---- prediction (lib/model/predict.c, lib/model/model.c) --------------------------------- */

/* Eq. 4.4 in the scaled space, by hand with pow(). */
static double by_hand(const pm_model *m, const double x[NIN])
{
	const double *v = m->value;
	double s[NIN];

	for (size_t i = 0; i < NIN; i++)
		s[i] = in_scale[i];
	return m->target_scale *
	       ((v[0] * pow(x[0] / s[0], v[1]) + v[2 + (int)x[1]] + v[5] * pow(x[2] / s[2], v[6])) *
			pow(x[3] / s[3], v[7]) * pow(x[4] / s[4], v[8]) +
		v[9]);
}

/* Eq. 4.4 with the raw parameters pm_model_param_value gives, unscaled x. */
static double by_hand_raw(const pm_model *m, const double x[NIN])
{
	double r[NPAR];

	for (size_t k = 0; k < NPAR; k++)
		r[k] = pm_model_param_value(m, k);
	return (r[0] * pow(x[0], r[1]) + r[2 + (int)x[1]] + r[5] * pow(x[2], r[6])) *
		       pow(x[3], r[7]) * pow(x[4], r[8]) +
	       r[9];
}

static int close_rel(double a, double b, double tol)
{
	return fabs(a - b) <= tol * fabs(b);
}

Test(model_io, prediction_by_hand)
{
	pm_model *m = make_model(0);
	pm_error e = { 0 };
	double x[NIN], t, want, raw;

	/* at the scales every factor is 1: t = T * ((a1 + b + a2) + C) */
	for (int lv = 0; lv < 3; lv++) {
		double at[NIN] = { 3.7, lv, 48.0, 2.5, 64.0 };

		cr_assert_eq(pm_model_predict(m, at, &t, &e), PM_OK, "%s", e.msg);
		want = m->target_scale * (m->value[0] + m->value[2 + lv] + m->value[5] + m->value[9]);
		cr_assert(close_rel(t, want, 1e-14), "%.17g vs %.17g", t, want);
	}
	for (int r = 0; r < 2000; r++) {
		random_point(x);
		cr_assert_eq(pm_model_predict(m, x, &t, &e), PM_OK, "%s", e.msg);
		want = by_hand(m, x);
		raw = by_hand_raw(m, x);
		cr_assert(close_rel(t, want, 1e-12), "point %d: %.17g vs %.17g", r, t, want);
		cr_assert(close_rel(t, raw, 1e-12), "point %d raw: %.17g vs %.17g", r, t, raw);
	}
	pm_model_free(m);
}

/* Raw parameters by the formulas of docs/maths.md: a = a' T s_i^-p prod s_j^-q. */
Test(model_io, raw_parameters)
{
	pm_model *m = make_model(0);
	const double *v = m->value;
	double T = m->target_scale, ext = pow(2.5, -v[7]) * pow(64.0, -v[8]);

	cr_assert(close_rel(pm_model_param_value(m, 0), v[0] * T * pow(3.7, -v[1]) * ext, 1e-13));
	cr_assert_eq(pm_model_param_value(m, 1), v[1]);
	for (int lv = 0; lv < 3; lv++)
		cr_assert(close_rel(pm_model_param_value(m, 2 + lv), v[2 + lv] * T * ext, 1e-13));
	cr_assert(close_rel(pm_model_param_value(m, 5), v[5] * T * pow(48.0, -v[6]) * ext, 1e-13));
	cr_assert_eq(pm_model_param_value(m, 6), v[6]);
	cr_assert_eq(pm_model_param_value(m, 7), v[7]);
	cr_assert_eq(pm_model_param_value(m, 8), v[8]);
	cr_assert(close_rel(pm_model_param_value(m, 9), v[9] * T, 1e-15));
	pm_model_free(m);
}

static void predict_domain(const pm_model *m, size_t i, double bad, const char *want)
{
	double x[NIN] = { 1, 1, 1, 1, 1 }, t = 42;
	pm_error e = { 0 };

	x[i] = bad;
	cr_assert_eq(pm_model_predict(m, x, &t, &e), PM_EDOMAIN, "x[%zu] = %g", i, bad);
	cr_assert_eq(e.code, PM_EDOMAIN);
	cr_assert_not_null(strstr(e.msg, want), "'%s' lacks '%s'", e.msg, want);
	cr_assert_eq(t, 42, "out written on failure");
	cr_assert_eq(pm_model_predict(m, x, &t, NULL), PM_EDOMAIN);
}

Test(model_io, prediction_domain_errors)
{
	pm_model *m = make_model(0);

	predict_domain(m, 0, 0, "input 'kernel_size'");
	predict_domain(m, 0, -1, "kernel_size");
	predict_domain(m, 2, NAN, "input 'filters'");
	predict_domain(m, 3, INFINITY, "threads");
	predict_domain(m, 4, -0.0, "batch_size");
	predict_domain(m, 1, -1, "input 'activation'");
	predict_domain(m, 1, 3, "activation");
	predict_domain(m, 1, 1.5, "activation");
	predict_domain(m, 1, NAN, "activation");
	predict_domain(m, 1, 1e300, "activation");
	pm_model_free(m);
}

Test(model_io, accessors)
{
	pm_model *m = make_model(1);
	pm_error e = { 0 };
	size_t idx = 99;

	cr_assert_str_eq(pm_model_target(m), "time_per_iter_s");
	cr_assert_eq(pm_model_ninputs(m), NIN);
	for (size_t i = 0; i < NIN; i++) {
		cr_assert_str_eq(pm_model_input_name(m, i), in_names[i]);
		cr_assert_eq(pm_model_input_role(m, i), in_roles[i]);
		cr_assert_eq(pm_model_nlevels(m, i), in_nlevels[i]);
		cr_assert_eq(pm_model_input_index(m, in_names[i], &idx, &e), PM_OK);
		cr_assert_eq(idx, i);
	}
	cr_assert_eq(pm_model_input_index(m, "gpus", &idx, &e), PM_EINVAL);
	cr_assert_not_null(strstr(e.msg, "gpus"));
	cr_assert_str_eq(pm_model_level_name(m, 1, 0), "relu");
	cr_assert_str_eq(pm_model_level_name(m, 1, 2), "tanh");
	cr_assert_null(pm_model_level_name(m, 1, 3));
	cr_assert_null(pm_model_level_name(m, 0, 0));
	cr_assert_eq(pm_model_level_index(m, 1, "tanh", &idx, &e), PM_OK);
	cr_assert_eq(idx, 2);
	cr_assert_eq(pm_model_level_index(m, 1, "gelu", &idx, &e), PM_EDOMAIN);
	cr_assert_eq(e.code, PM_EDOMAIN);
	cr_assert_not_null(strstr(e.msg, "gelu"), "%s", e.msg);
	cr_assert_not_null(strstr(e.msg, "activation"), "%s", e.msg);
	cr_assert_eq(pm_model_level_index(m, 0, "relu", &idx, &e), PM_EDOMAIN);
	cr_assert_eq(pm_model_nparams(m), NPAR);
	for (size_t k = 0; k < NPAR; k++) {
		cr_assert_str_eq(pm_model_param_name(m, k), par_names[k]);
		cr_assert(SAME_BITS(&m->raw[k], &(double){ pm_model_param_value(m, k) }, 1));
	}
	cr_assert_not_null(pm_model_fit_info(m));
	cr_assert_eq(pm_model_fit_info(m)->generations, 321);
	pm_model_free(m);
	pm_model_free(NULL);
}

/* A loaded model answers the same through every accessor. */
Test(model_io, loaded_accessors)
{
	pm_model *m = make_model(1), *l;
	char *json = to_json(m);
	size_t idx;

	l = load_ok(json);
	cr_assert_eq(pm_model_level_index(l, 1, "sigmoid", &idx, NULL), PM_OK);
	cr_assert_eq(idx, 1);
	for (size_t k = 0; k < NPAR; k++)
		cr_assert(SAME_BITS(&(double){ pm_model_param_value(l, k) },
				    &(double){ pm_model_param_value(m, k) }, 1));
	free(json);
	pm_model_free(l);
	pm_model_free(m);
}

/* What stands at an output path decides (pm_output_check, and the same rule
 * inside pm_write_file_atomic): a symbolic link is followed and its target
 * replaced, the link kept; a FIFO (never waited on), a device or a folder
 * is refused; an input is never the output. */
Test(model_io, output_paths)
{
	char *dir = temp_dir(), link[128], target[128], fifo[128], data[128], loop[128];
	char dangling[128], created[128], *text;
	struct stat st;
	pm_error e = { 0 };

	snprintf(link, sizeof(link), "%s/link.json", dir);
	snprintf(target, sizeof(target), "%s/target.json", dir);
	spit(target, "old\n");
	cr_assert_eq(symlink("target.json", link), 0);	/* relative to the link's folder */
	cr_assert_eq(pm_output_check(link, NULL, 0, &e), PM_OK, "%s", e.msg);
	cr_assert_eq(pm_write_file_atomic(link, "new\n", 4, &e), PM_OK, "%s", e.msg);
	cr_assert_eq(lstat(link, &st), 0);
	cr_assert(S_ISLNK(st.st_mode), "the link is kept");
	text = slurp(target);
	cr_assert_str_eq(text, "new\n");
	free(text);

	/* a dangling link: its target is created */
	snprintf(dangling, sizeof(dangling), "%s/dangling.json", dir);
	snprintf(created, sizeof(created), "%s/created.json", dir);
	cr_assert_eq(symlink(created, dangling), 0);
	cr_assert_eq(pm_write_file_atomic(dangling, "x", 1, &e), PM_OK, "%s", e.msg);
	text = slurp(created);
	cr_assert_str_eq(text, "x");
	free(text);

	snprintf(loop, sizeof(loop), "%s/loop", dir);
	cr_assert_eq(symlink("loop", loop), 0);
	cr_assert_eq(pm_write_file_atomic(loop, "x", 1, &e), PM_EIO);
	cr_assert(strstr(e.msg, "symbolic links"), "%s", e.msg);

	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	cr_assert_eq(mkfifo(fifo, 0600), 0);
	cr_assert_eq(pm_output_check(fifo, NULL, 0, &e), PM_EIO);
	cr_assert(strstr(e.msg, "it is a FIFO, not a regular file"), "%s", e.msg);
	cr_assert_eq(pm_write_file_atomic(fifo, "x", 1, &e), PM_EIO);
	cr_assert_eq(lstat(fifo, &st), 0);
	cr_assert(S_ISFIFO(st.st_mode), "the FIFO is still a FIFO");
	cr_assert_eq(pm_write_file_atomic("/dev/null", "x", 1, &e), PM_EIO);
	cr_assert(strstr(e.msg, "it is a device"), "%s", e.msg);
	cr_assert_eq(pm_output_check(dir, NULL, 0, &e), PM_EIO);
	cr_assert(strstr(e.msg, "it is a folder"), "%s", e.msg);

	/* the same file as an input, under another name too */
	snprintf(data, sizeof(data), "%s/data.csv", dir);
	spit(data, "a,b\n");
	cr_assert_eq(pm_output_check(data, (const char *const[]){ NULL, "-", data }, 3, &e),
		     PM_EIO);
	cr_assert(strstr(e.msg, "it is the input"), "%s", e.msg);
	cr_assert_eq(unlink(link), 0);
	cr_assert_eq(symlink("data.csv", link), 0);
	cr_assert_eq(pm_output_check(link, (const char *const[]){ data }, 1, &e), PM_EIO);
	cr_assert_eq(pm_output_check(target, (const char *const[]){ data }, 1, &e), PM_OK,
		     "%s", e.msg);
	cr_assert_eq(pm_output_check("", NULL, 0, &e), PM_EINVAL);
	text = slurp(data);
	cr_assert_str_eq(text, "a,b\n");
	free(text);
	cr_assert_eq(dir_entries(dir), 7, "no temporary file left behind");
	for (const char *f = "link.json\0target.json\0dangling.json\0created.json\0loop\0fifo\0data.csv\0";
	     *f; f += strlen(f) + 1) {
		char p[160];

		snprintf(p, sizeof(p), "%s/%s", dir, f);
		unlink(p);
	}
	rmdir(dir);
}

/* "undetermined" is written only when true, read back, and must be a
 * boolean; "engine" likewise round-trips, and a model saved before there
 * was a choice reads as DE's. */
Test(model_io, undetermined_and_engine_round_trip)
{
	pm_model *m = make_model(1), *l;
	char *json, *at, *old;

	m->params[1].undetermined = 1;
	m->info.options.engine = PM_ENGINE_DE;
	json = to_json(m);
	at = strstr(json, "\"undetermined\": true");
	cr_assert_not_null(at);
	cr_assert_null(strstr(at + 1, "\"undetermined\""), "written for the free one alone");
	l = load_ok(json);
	cr_expect_eq(pm_model_param_undetermined(l, 1), 1);
	cr_expect_eq(pm_model_param_undetermined(l, 0), 0);
	cr_expect_eq(pm_model_fit_info(l)->options.engine, PM_ENGINE_DE);
	pm_model_free(l);
	memcpy(at, "\"undetermined\": 1   ", 20);
	load_fails(json, PM_ESCHEMA, "undetermined");
	free(json);
	m->params[1].undetermined = 0;
	m->info.options.engine = PM_ENGINE_VARPRO;
	json = to_json(m);
	old = strstr(json, "\"engine\": \"varpro\",");
	cr_assert_not_null(old);
	memset(old, ' ', strlen("\"engine\": \"varpro\","));
	l = load_ok(json);
	cr_expect_eq(pm_model_fit_info(l)->options.engine, PM_ENGINE_DE, "absent: DE's");
	pm_model_free(l);
	free(json);
	pm_model_free(m);
}

/* ---- warnings (issue 20) ----------------------------------------------------
 * Kept in model.json as "warnings", after the parameters and seeds, only
 * when there are some; read back in order; control characters escaped as in
 * error messages; anything but strings refused. */
Test(model_io, warnings_round_trip)
{
	pm_model *m = make_model(1), *l;
	char *json, *again, *at;
	pm_error e = { 0 };

	json = to_json(m);
	cr_expect_null(strstr(json, "\"warnings\""), "none: not written");
	l = load_ok(json);
	cr_expect_eq(pm_model_nwarnings(l), 0);
	cr_expect_null(pm_model_warning(l, 0));
	pm_model_free(l);
	free(json);
	cr_assert_eq(pm__model_add_warning(m, &e, "constant fit: %s = %.3g", "t", 0.5), PM_OK);
	cr_assert_eq(pm__model_add_warning(m, &e, "column 'a\x1b[31m' \"quoted\""), PM_OK);
	m->info.constant = 1;
	cr_expect_eq(pm_model_nwarnings(m), 2);
	cr_expect_str_eq(pm_model_warning(m, 0), "constant fit: t = 0.5");
	cr_expect_str_eq(pm_model_warning(m, 1), "column 'a\\x1b[31m' \"quoted\"");
	cr_expect_null(pm_model_warning(m, 2));
	cr_expect_null(pm_model_warning(NULL, 0));
	cr_expect_eq(pm_model_nwarnings(NULL), 0);
	json = to_json(m);
	at = strstr(json, "\"warnings\": [");
	cr_assert_not_null(at, "%s", json);
	cr_expect(at > strstr(json, "\"parameters\"") && at < strstr(json, "\"fit\""),
		  "between the parameters and the fit");
	cr_expect_not_null(strstr(json, "\"constant\": true"));
	l = load_ok(json);
	same_model(m, l);
	again = to_json(l);
	cr_expect_str_eq(json, again);
	free(again);
	pm_model_free(l);
	/* a warning that is not a string */
	at = strstr(json, "\"constant fit: t = 0.5\"");
	cr_assert_not_null(at);
	memset(at, ' ', strlen("\"constant fit: t = 0.5\""));
	*at = '7';
	load_fails(json, PM_ESCHEMA, "'warnings' must be strings");
	free(json);
	pm_model_free(m);
}

/* Eq. 4.4 of extrinsic inputs alone has the base a0, first; a model.json
 * saved before a0 existed (q_j..., C) still loads, predicts its constant
 * C, and saves as it was. */
Test(model_io, base_coefficient_and_files_saved_before_it)
{
	static const char *names[] = { "threads", "nodes" };
	static const pm_role role[] = { PM_ROLE_EXTRINSIC, PM_ROLE_EXTRINSIC };
	static const size_t nlevels[] = { 0, 0 };
	static const char old[] =
		"{\"format\": \"perfmodel-model\", \"version\": 1, \"form\": \"additive\", "
		"\"target\": \"t\", \"scale\": \"auto\", \"target_scale\": 2, \"inputs\": ["
		"{\"name\": \"threads\", \"role\": \"extrinsic\", \"log_scale\": 1},"
		"{\"name\": \"nodes\", \"role\": \"extrinsic\", \"log_scale\": 0.5}],"
		"\"parameters\": ["
		"{\"name\": \"q_threads\", \"scaled\": 4.2, \"std\": null, \"bounds\": [-5, 5]},"
		"{\"name\": \"q_nodes\", \"scaled\": 1.5, \"std\": null, \"bounds\": [-5, 5]},"
		"{\"name\": \"C\", \"scaled\": 1.25, \"std\": null, \"bounds\": [0, 1000]}]}";
	pm_model *m = NULL, *l;
	pm_error e = { 0 };
	double x[2] = { 8, 2 }, t;
	char *json, *again;

	cr_assert_eq(pm__model_new("t", 2, names, role, nlevels, NULL, NULL, &m, &e), PM_OK,
		     "%s", e.msg);
	cr_assert_eq(pm_model_nparams(m), 4);
	cr_expect_str_eq(pm_model_param_name(m, 0), "a0");
	cr_expect_eq(pm_model_param_kind(m, 0), PM_PARAM_COEF);
	cr_expect_eq(pm_model_param_input(m, 0), (size_t)-1);
	cr_expect_str_eq(pm_model_param_name(m, 3), "C");
	m->value[0] = 3;	/* a0 */
	m->value[1] = -1;	/* q_threads */
	m->value[2] = 0.5;	/* q_nodes */
	m->value[3] = 0.25;	/* C */
	pm__model_raw(m);
	cr_assert_eq(pm_model_predict(m, x, &t, &e), PM_OK, "%s", e.msg);
	cr_expect_float_eq(t, 3 * pow(8, -1) * pow(2, 0.5) + 0.25, 1e-12);
	json = to_json(m);
	{
		/* a0 belongs to no input: its entry names none */
		const char *a0 = strstr(json, "\"name\": \"a0\""), *end = a0 ? strchr(a0, '}') : NULL;
		const char *in = a0 ? strstr(a0, "\"input\"") : NULL;

		cr_assert_not_null(end, "%s", json);
		cr_expect(!in || in > end, "%s", json);
	}
	l = load_ok(json);
	same_model(m, l);
	pm_model_free(l);
	free(json);
	pm_model_free(m);

	/* the old list: rebuilt as it was, t = C everywhere */
	l = load_ok(old);
	cr_assert_eq(pm_model_nparams(l), 3);
	cr_expect_str_eq(pm_model_param_name(l, 0), "q_threads");
	cr_expect_str_eq(pm_model_form(l), "additive");
	cr_assert_eq(pm_model_predict(l, x, &t, &e), PM_OK, "%s", e.msg);
	cr_expect_eq(t, 2 * 1.25);
	json = to_json(l);
	pm_model_free(l);
	l = load_ok(json);
	again = to_json(l);
	cr_expect_str_eq(json, again, "saves as it was");
	cr_expect_eq(pm_model_nparams(l), 3);
	free(again);
	free(json);
	pm_model_free(l);
	/* neither list: the new names are asked for */
	{
		char *bad = strdup(old), *c = strstr(bad, "{\"name\": \"C\"");

		strcpy(c - 1, "]}");
		load_fails(bad, PM_ESCHEMA, "is 'q_threads' where the inputs give 'a0'");
		free(bad);
	}
}

/* issue 33: how the form was chosen and the yardstick read back as they
 * were written; a model without them reads them as not measured, and a
 * choice of the wrong shape is refused. */
Test(model_io, choice_and_yardstick_round_trip)
{
	pm_model *m = make_model(1), *back;
	pm_choice *ch = &m->info.choice;
	const pm_choice *bc;
	char *json, *bad;

	m->info.yard_mape = 12.625;
	m->info.yard_model_mape = 10.3125;
	snprintf(m->info.yard_what, sizeof(m->info.yard_what), "5-fold cross-validation");
	ch->n = 2;
	ch->chosen = 0;
	ch->lowest = 1;
	ch->noise_floor = 10.1875;
	ch->yardstick = NAN;
	snprintf(ch->validation, sizeof(ch->validation), "5-fold cross-validation of 16 "
		 "configurations");
	snprintf(ch->why, sizeof(ch->why), "the first listed within one standard error");
	ch->cand[0] = (pm_choice_candidate){ .form = "additive", .loss = PM_LOSS_MAE,
					     .nparams = 4, .mape = 10.5, .mape_se = 3.25 };
	ch->cand[1] = (pm_choice_candidate){ .form = "discover", .loss = PM_LOSS_LOG,
					     .nparams = 2, .mape = NAN, .mape_se = NAN,
					     .note = "discover: no input varies" };
	json = to_json(m);
	back = load_ok(json);
	bc = &pm_model_fit_info(back)->choice;
	cr_expect_eq(pm_model_fit_info(back)->yard_mape, 12.625);
	cr_expect_eq(pm_model_fit_info(back)->yard_model_mape, 10.3125);
	cr_expect_str_eq(pm_model_fit_info(back)->yard_what, "5-fold cross-validation");
	cr_expect(bc->n == 2 && bc->chosen == 0 && bc->lowest == 1);
	cr_expect(bc->noise_floor == 10.1875 && isnan(bc->yardstick));
	cr_expect_str_eq(bc->why, ch->why);
	cr_expect_str_eq(bc->validation, ch->validation);
	cr_expect_str_eq(bc->cand[0].form, "additive");
	cr_expect(bc->cand[0].mape == 10.5 && bc->cand[0].mape_se == 3.25 &&
		  bc->cand[0].nparams == 4 && bc->cand[0].loss == PM_LOSS_MAE);
	cr_expect(isnan(bc->cand[1].mape) && bc->cand[1].loss == PM_LOSS_LOG);
	cr_expect_str_eq(bc->cand[1].note, "discover: no input varies");
	pm_model_free(back);
	/* a chosen index past the candidates */
	bad = strdup(json);
	memcpy(strstr(bad, "\"chosen\": 0"), "\"chosen\": 7", 11);
	load_fails(bad, PM_ESCHEMA, "chosen");
	free(bad);
	free(json);
	pm_model_free(m);
	/* a model saved without them */
	m = make_model(1);
	back = load_ok((json = to_json(m)));
	cr_expect(isnan(pm_model_fit_info(back)->yard_mape));
	cr_expect_eq(pm_model_fit_info(back)->choice.n, 0);
	cr_expect(!strstr(json, "\"choice\"") && !strstr(json, "\"yardstick\""));
	pm_model_free(back);
	free(json);
	pm_model_free(m);
}
