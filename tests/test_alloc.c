/* Allocation failure along whole operations (issue 7): a fit from CSV and
 * spec text to model.json, with one thread and with a pool, and a model
 * load, a predict config and a prediction. For every k, the k-th allocation
 * fails: the operation must return PM_ENOMEM (or succeed, where a failure
 * is survivable, like qsort's buffer), leave nothing allocated and never
 * crash. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "alloc_fail.h"
#include "leak_check.h"
#include "synth.h"
#include "perfmodel/options.h"

PM_LEAK_CHECKED_SUITE(alloc);

#ifndef NO_ALLOC_HOOK
static const char spec_json[] =
	"{\"target\": \"time\", \"intrinsic\": [\"k\", \"f\"], \"categorical\": [\"act\"],\n"
	" \"extrinsic\": [\"threads\"], \"bounds\": {\"power\": [-3, 3]}}\n";

struct job {
	const char *csv;
	unsigned threads;
	const char *model_json, *config_path;
	const struct doc_inputs *docs;
};

/* What the --json documents are made from, built before the failures. */
struct doc_inputs {
	pm_model *m;
	pm_dataset *d, *lif_d, *ssgd_d;
	double *pred;
	pm_metrics x;
	pm_vary vary;
	pm_advise_options o;
	pm_advice a;
	pm_lif_report *lif;
	pm_ssgd_report *ssgd;
	pm_report_data rd;
};

/* What an op's run gave, where it says (op_fit, op_discover): a failure
 * it survives must leave the same result. */
static char result[512];

/* The job's CSV text and spec text (both NULL on failure). */
static pm_status parse_job(const struct job *j, const char *spec, pm_dataset **d, pm_spec **s,
			   pm_error *err)
{
	pm_status st = pm_dataset_parse_csv(j->csv, strlen(j->csv), "a.csv", d, err);

	return st ? st : pm_spec_parse(spec, "a.json", s, err);
}

/* CSV text and spec text to model.json text, all freed. */
static pm_status op_fit(const struct job *j, pm_error *err)
{
	pm_fit_options o = pm_fit_options_default();
	pm_dataset *d = NULL;
	pm_spec *s = NULL;
	pm_model *m = NULL;
	char *json = NULL;
	pm_status st;

	o.threads = j->threads;
	o.maxiter = 3;
	o.popsize = 2;
	st = parse_job(j, spec_json, &d, &s, err);
	if (!st)
		st = pm_fit(d, s, &o, &m, err);
	if (!st)
		st = pm_model_to_json(m, &json, err);
	if (!st) {
		int at = snprintf(result, sizeof(result), "%zu warnings, intervals %d:",
				  pm_model_nwarnings(m), pm_model_has_intervals(m));

		for (size_t k = 0; k < pm_model_nparams(m) && at < (int)sizeof(result) - 32; k++)
			at += snprintf(result + at, sizeof(result) - (size_t)at, " %a",
				       pm_model_param_value(m, k));
	}
	free(json);
	pm_model_free(m);
	pm_spec_free(s);
	pm_dataset_free(d);
	return st;
}

/* model.json text to a model, one prediction, a predict config file. */
static pm_status op_load(const struct job *j, pm_error *err)
{
	pm_model *m = NULL, *cm = NULL;
	pm_dataset *points = NULL;
	double x[4] = { 2, 8, 0, 4 }, y;
	pm_status st;

	st = pm_model_load_string(j->model_json, "m.json", &m, err);
	if (!st)
		st = pm_model_predict(m, x, &y, err);
	if (!st)
		st = pm_predict_config_read(j->config_path, &cm, &points, err);
	pm_dataset_free(points);
	pm_model_free(cm);
	pm_model_free(m);
	return st;
}

/* fit's options parsed (the spec file's text read to look for its form),
 * their spec and a selection's candidates, all freed; an allocation that
 * failed is never taken for a spec without a form. */
static pm_status op_options(const struct job *j, pm_error *err)
{
	char *argv[] = { "fit", "--spec", (char *)j->config_path, "--seed=3", "--loss=mae",
			 "d.csv", NULL };
	pm_options o = pm_options_default(PM_COMMAND_FIT);
	pm_spec *s = NULL;
	pm_candidate *c = NULL;
	char *names = NULL;
	size_t n;
	pm_status st = pm_options_parse(&o, 6, argv, err);

	if (!st && o.command != PM_COMMAND_FIT)
		st = PM_EINVAL;
	if (!st)
		st = pm_options_spec(&o, &s, err);
	if (!st)
		st = pm_options_candidates(&o, &c, &n, &names, err);
	free(c);
	free(names);
	pm_spec_free(s);
	pm_options_clear(&o);
	return st;
}

/* Every --json document the command prints, each made and freed. */
static pm_status op_documents(const struct job *j, pm_error *err)
{
	const struct doc_inputs *in = j->docs;
	const pm_slurm_limits l = { 120, 60, 2, 1, "00:02:00", "00:01:00", 0, 0 };
	const char *const option[] = { "--cpus-per-task" };
	const pm_slurm_pick s = { "fastest", 0.95, 0.8, option, &l };
	char *doc[8] = { 0 };
	pm_status st;

	st = pm_eval_to_json(in->m, "m.json", "a.csv", &in->x, &doc[0], err);
	if (!st)
		st = pm_predictions_to_json(in->d, in->pred, NULL, &doc[1], err);
	if (!st)
		st = pm_advice_to_json(in->m, "m.json", &in->vary, 1, &in->o, &in->a, &doc[2], err);
	if (!st)
		st = pm_version_to_json(&doc[3], err);
	if (!st)
		st = pm_lif_report_to_json(in->lif_d, in->lif, NULL, NULL, "why", &doc[4], err);
	if (!st)
		st = pm_ssgd_report_to_json(in->ssgd_d, in->ssgd, &doc[5], err);
	if (!st)
		st = pm_report_to_json(in->m, &in->rd, "r.html", "plots", &doc[6], err);
	if (!st)
		st = pm_advice_slurm_to_json(in->m, "m.json", &in->vary, 1, &in->o, &in->a, &s,
					     &doc[7], err);
	for (size_t i = 0; i < 8; i++)
		free(doc[i]);
	return st;
}

/* A whole discover search of the CSV (few rows, a narrow beam): its
 * counts and its chosen candidate into `result`. */
static pm_status op_discover(const struct job *j, pm_error *err)
{
	static const char spec[] = "{\"target\": \"time\", \"intrinsic\": [\"k\", \"f\"], "
				   "\"categorical\": [\"act\"], \"extrinsic\": [\"threads\"]}";
	pm_discover_options o = pm_discover_options_default();
	pm_dataset *d = NULL;
	pm_spec *s = NULL;
	pm_discovery *x = NULL;
	pm_status st;

	o.threads = j->threads;
	o.beam = 4;
	o.max_terms = 2;
	st = parse_job(j, spec, &d, &s, err);
	if (!st)
		st = pm_discover(d, s, &o, &x, err);
	if (!st)
		snprintf(result, sizeof(result), "%zu hypotheses, %zu rejected, %zu candidates: %a %s",
			 x->hypotheses, x->rejected, x->n, x->cand[x->chosen].mape,
			 x->cand[x->chosen].formula);
	pm_discovery_free(x);
	pm_spec_free(s);
	pm_dataset_free(d);
	return st;
}

/* Fail allocation 0, 1, 2, ... of op until a run needs no more; returns
 * how many a whole run makes. A run that succeeds although an allocation
 * failed must give the result of a run without failure. */
static long exhaust(pm_status (*op)(const struct job *, pm_error *), const struct job *j)
{
	char want[sizeof(result)];
	long k;

	/* glibc keeps a joined thread's stack and TLS block for the next
	 * thread: a first run, unarmed, fills that cache, so that the armed
	 * runs count the library's blocks alone */
	result[0] = '\0';
	cr_assert_eq(op(j, NULL), PM_OK);
	memcpy(want, result, sizeof(want));
	for (k = 0; k < 100000; k++) {
		pm_error err = { 0 };
		pm_status st;
		int failed;

		alloc_arm(k);
		st = op(j, &err);
		armed = 0;
		failed = fail_in < 0;
		cr_expect_eq(live, 0, "allocation %ld failed: %ld blocks left", k, (long)live);
		if (!failed) {
			cr_assert_eq(st, PM_OK, "no failure, yet: %s", err.msg);
			break;
		}
		if (st != PM_OK) {
			cr_expect_eq(st, PM_ENOMEM, "allocation %ld failed: status %d, %s", k, st,
				     err.msg);
			cr_expect_eq(err.code, PM_ENOMEM, "allocation %ld", k);
		} else {
			cr_expect_str_eq(result, want, "allocation %ld failed, yet the run went on "
				       "to another result", k);
		}
	}
	return k;
}

static char *fitted_model(const char *csv)
{
	pm_fit_options o = pm_fit_options_default();
	pm_dataset *d = NULL;
	pm_spec *s = NULL;
	pm_model *m = NULL;
	char *json = NULL;

	o.maxiter = 3;
	cr_assert_eq(pm_dataset_parse_csv(csv, strlen(csv), "a.csv", &d, NULL), PM_OK);
	cr_assert_eq(pm_spec_parse(spec_json, "a.json", &s, NULL), PM_OK);
	cr_assert_eq(pm_fit(d, s, &o, &m, NULL), PM_OK);
	cr_assert_eq(pm_model_to_json(m, &json, NULL), PM_OK);
	pm_model_free(m);
	pm_spec_free(s);
	pm_dataset_free(d);
	return json;
}

Test(alloc, every_failure_in_a_fit_is_enomem_and_leaks_nothing)
{
	char *csv = syn_csv(60, 0.0, 5);
	struct job j = { .csv = csv, .threads = 1 };
	long n;

	n = exhaust(op_fit, &j);
	cr_expect_gt(n, 20, "only %ld allocations in a fit", n);
	j.threads = 2;
	n = exhaust(op_fit, &j);
	cr_expect_gt(n, 20, "only %ld allocations in a fit on two threads", n);
	free(csv);
}

/* discover's search: an allocation that fails in a step (its moves, its
 * batch, the pool of terms) ends the search with PM_ENOMEM; it was once
 * dropped when the step left the beam as it was, and the search went on
 * without what it could not make (exit 0, another result). */
Test(alloc, every_failure_in_discover_is_enomem_or_changes_nothing)
{
	char *csv = syn_csv(40, 0.02, 7);
	struct job j = { .csv = csv, .threads = 1 };
	long n;

	n = exhaust(op_discover, &j);
	cr_expect_gt(n, 100, "only %ld allocations in a search", n);
	j.threads = 2;
	n = exhaust(op_discover, &j);
	cr_expect_gt(n, 100, "only %ld allocations in a search on two threads", n);
	free(csv);
}

Test(alloc, every_failure_in_a_model_load_is_enomem_and_leaks_nothing)
{
	char *csv = syn_csv(60, 0.0, 5);
	char *json = fitted_model(csv);
	char dir[] = "/tmp/pm_alloc_XXXXXX", model[64], config[64];
	struct job j = { .model_json = json, .config_path = config };
	FILE *f;
	long n;

	cr_assert_not_null(mkdtemp(dir));
	snprintf(model, sizeof(model), "%s/m.json", dir);
	snprintf(config, sizeof(config), "%s/c.json", dir);
	f = fopen(model, "w");
	cr_assert_not_null(f);
	fputs(json, f);
	fclose(f);
	f = fopen(config, "w");
	cr_assert_not_null(f);
	fputs("{\"model\": \"m.json\", \"points\": [{\"k\": 2, \"f\": 8, \"act\": \"relu\", "
	      "\"threads\": 4}, {\"k\": 3, \"f\": 4, \"act\": \"tanh\", \"threads\": 1}]}", f);
	fclose(f);
	n = exhaust(op_load, &j);
	cr_expect_gt(n, 20, "only %ld allocations in a load", n);
	unlink(model);
	unlink(config);
	rmdir(dir);
	free(json);
	free(csv);
}

static pm_dataset *parse(const char *csv)
{
	pm_dataset *d = NULL;

	cr_assert_eq(pm_dataset_parse_csv(csv, strlen(csv), "a.csv", &d, NULL), PM_OK);
	return d;
}

Test(alloc, every_failure_in_parsing_options_is_enomem_and_leaks_nothing)
{
	char path[] = "/tmp/pm_alloc_specXXXXXX";
	int fd = mkstemp(path);
	const char spec[] = "{\"target\": \"t\", \"intrinsic\": [\"n\"], \"form\": \"additive\"}";
	struct job j = { .config_path = path };

	cr_assert(fd >= 0);
	cr_assert_eq(write(fd, spec, sizeof(spec) - 1), (ssize_t)sizeof(spec) - 1);
	close(fd);
	cr_expect_gt(exhaust(op_options, &j), 5);
	unlink(path);
}

Test(alloc, every_failure_in_a_document_is_enomem_and_leaks_nothing)
{
	static const double threads[] = { 1, 2, 4 };
	char *csv = syn_csv(20, 0.0, 5);
	char *json = fitted_model(csv);
	char *w[] = { "t*" };
	const pm_names wn = { 1, w };
	struct doc_inputs in = { .o = pm_advise_options_default() };
	struct job j = { .docs = &in };
	long n;

	cr_assert_eq(pm_model_load_string(json, "m.json", &in.m, NULL), PM_OK);
	in.d = parse(csv);
	in.pred = calloc(pm_dataset_nrows(in.d), sizeof(*in.pred));
	cr_assert_eq(pm_model_predict_dataset(in.m, in.d, in.pred, NULL), PM_OK);
	cr_assert_eq(pm_model_evaluate(in.m, in.d, &in.x, NULL), PM_OK);
	cr_assert_eq(pm_model_input_index(in.m, "threads", &in.vary.input, NULL), PM_OK);
	in.vary.n = 3;
	in.vary.values = threads;
	in.a = (pm_advice){ .combinations = 3, .fastest = { 1, { 4 }, 1, 4, 2, 0.5 } };
	in.lif_d = parse("t1,t2,g\n1,3,a\n2,2,a\n4,1,b\n");
	cr_assert_eq(pm_lif_report_new(in.lif_d, &wn, &(pm_lif_options){ 0 }, &in.lif, NULL),
		     PM_OK);
	in.ssgd_d = parse("c,t_f_1,t_b_1,t_f_2,t_b_2\na,1,2,,\na,1,2,3,1\n");
	cr_assert_eq(pm_ssgd_report_new(in.ssgd_d, NULL, &in.ssgd, NULL), PM_OK);
	in.rd = (pm_report_data){ .data = in.d, .test = in.d, .model_name = "m.json" };
	n = exhaust(op_documents, &j);
	cr_expect_gt(n, 20, "only %ld allocations in the documents", n);
	pm_ssgd_report_free(in.ssgd);
	pm_lif_report_free(in.lif);
	pm_dataset_free(in.ssgd_d);
	pm_dataset_free(in.lif_d);
	free(in.pred);
	pm_dataset_free(in.d);
	pm_model_free(in.m);
	free(json);
	free(csv);
}
#endif

/* Where cJSON is stricter than JSON, its failure must stay a parse error,
 * never be taken for an allocation failure (json_valid.h). */
Test(alloc, text_cjson_refuses_is_a_parse_error)
{
	static const char *const bad[] = {
		"{\"format\": 1234567890123456789012345678901234567890123456789012345678901234}",
		"{\"format\": \"\\udc00\"}",
		"{\"format\": \"\\ud800x\"}",
		"{\"format\": 1,}",
		"[1] [2]",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		pm_model *m = NULL;
		pm_error err = { 0 };
		pm_status st = pm_model_load_string(bad[i], "b.json", &m, &err);

		cr_expect(st == PM_EPARSE || st == PM_ESCHEMA, "case %zu: status %d, %s", i, st,
			  err.msg);
		cr_expect_null(m);
	}
}
