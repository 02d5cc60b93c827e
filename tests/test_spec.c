#include <criterion/criterion.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "leak_check.h"
#include "perfmodel/perfmodel.h"
#include "spec/spec_impl.h"

PM_LEAK_CHECKED_SUITE(spec);
PM_LEAK_CHECKED_SUITE(names);
PM_LEAK_CHECKED_SUITE(resolve);

static char *data_path(const char *rel)
{
	static char buf[1024];
	const char *dir = getenv("PM_TEST_DATA");

	cr_assert_not_null(dir, "PM_TEST_DATA is not set");
	snprintf(buf, sizeof(buf), "%s/%s", dir, rel);
	return buf;
}

static pm_spec *parse_ok(const char *json)
{
	pm_spec *s = NULL;
	pm_error e = { 0 };
	pm_status st = pm_spec_parse(json, "m.json", &s, &e);

	cr_assert_eq(st, PM_OK, "parse failed: %s", e.msg);
	cr_assert_not_null(s);
	return s;
}

/* The parse fails with code, a message containing want, the file set and
 * (for a schema error) no place. */
static void parse_fails(const char *json, pm_status code, const char *want)
{
	pm_spec *s = (pm_spec *)&s;
	pm_error e = { 0 };
	pm_status st = pm_spec_parse(json, "m.json", &s, &e);

	cr_assert_eq(st, code, "status %d, want %d (msg: %s) for %s", st, code, e.msg, json);
	cr_assert_eq(e.code, code);
	cr_assert_null(s, "out not NULL on failure");
	cr_assert_not_null(strstr(e.msg, want), "message '%s' lacks '%s'", e.msg, want);
	cr_assert_str_eq(e.file, "m.json");
	if (code == PM_ESCHEMA)
		cr_assert(e.line == 0 && e.column == 0);
}

static pm_dataset *csv(const char *text)
{
	pm_dataset *d = NULL;
	pm_error e = { 0 };

	cr_assert_eq(pm_dataset_parse_csv(text, strlen(text), "data.csv", &d, &e), PM_OK,
		     "csv: %s", e.msg);
	return d;
}

static void names_eq(const pm_names *nm, size_t n, const char *const *want)
{
	cr_assert_eq(nm->n, n, "have %zu names, want %zu", nm->n, n);
	for (size_t i = 0; i < n; i++)
		cr_assert_str_eq(nm->name[i], want[i]);
}

/* ---- new / free ----------------------------------------------------------- */

Test(spec, new_is_empty_with_default_bounds)
{
	pm_spec *s = NULL;
	pm_bounds b = pm_bounds_default();

	cr_assert_eq(pm_spec_new(&s, NULL), PM_OK);
	cr_assert_null(s->target);
	cr_assert_eq(s->intrinsic.n + s->categorical.n + s->extrinsic.n + s->workers.n, 0);
	cr_assert_eq(s->infer_roles, 1);
	cr_assert_eq(memcmp(&s->bounds, &b, sizeof(b)), 0);
	pm_spec_free(s);
	pm_spec_free(NULL);
}

Test(spec, null_arguments_are_einval)
{
	pm_spec *s = NULL;
	pm_error e = { 0 };

	cr_assert_eq(pm_spec_new(NULL, &e), PM_EINVAL);
	cr_assert_eq(pm_spec_parse(NULL, "x", &s, &e), PM_EINVAL);
	cr_assert_eq(pm_spec_parse("{}", "x", NULL, &e), PM_EINVAL);
	cr_assert_eq(pm_spec_read_file(NULL, &s, &e), PM_EINVAL);
	cr_assert_eq(pm_names_add_list(NULL, "a", &e), PM_EINVAL);
	cr_assert_eq(pm_spec_set_target(NULL, "a", &e), PM_EINVAL);
	cr_assert_eq(pm_spec_resolve(NULL, NULL, &e), PM_EINVAL);
}

/* ---- parsing -------------------------------------------------------------- */

Test(spec, parse_full)
{
	pm_spec *s = parse_ok("{ \"target\": \"t\", \"intrinsic\": [\"k\", \"f\"],"
			      " \"categorical\": [\"act\"], \"extrinsic\": [\"n\", \"b\"],"
			      " \"workers\": [\"w1\", \"w2\", \"w3\"],"
			      " \"bounds\": { \"coefficient\": [-1, 2.5], \"power\": [-3, 3],"
			      " \"constant\": [0, 0] } }");

	cr_assert_str_eq(s->target, "t");
	names_eq(&s->intrinsic, 2, (const char *[]){ "k", "f" });
	names_eq(&s->categorical, 1, (const char *[]){ "act" });
	names_eq(&s->extrinsic, 2, (const char *[]){ "n", "b" });
	names_eq(&s->workers, 3, (const char *[]){ "w1", "w2", "w3" });
	cr_assert_eq(s->bounds.coef_lo, -1);
	cr_assert_eq(s->bounds.coef_hi, 2.5);
	cr_assert_eq(s->bounds.power_lo, -3);
	cr_assert_eq(s->bounds.power_hi, 3);
	cr_assert_eq(s->bounds.const_lo, 0);
	cr_assert_eq(s->bounds.const_hi, 0);
	cr_assert_eq(s->infer_roles, 0);
	pm_spec_free(s);
}

Test(spec, parse_target_only_keeps_defaults_and_inference)
{
	pm_spec *s = parse_ok("{\"target\": \"time\"}");
	pm_bounds b = pm_bounds_default();

	cr_assert_str_eq(s->target, "time");
	cr_assert_eq(s->intrinsic.n + s->categorical.n + s->extrinsic.n + s->workers.n, 0);
	cr_assert_eq(s->infer_roles, 1);
	cr_assert_eq(memcmp(&s->bounds, &b, sizeof(b)), 0);
	pm_spec_free(s);
}

Test(spec, extrinsic_alone_keeps_inference)
{
	pm_spec *s = parse_ok("{\"target\": \"t\", \"extrinsic\": [\"n\"], \"workers\": []}");

	cr_assert_eq(s->infer_roles, 1);
	names_eq(&s->extrinsic, 1, (const char *[]){ "n" });
	pm_spec_free(s);
}

Test(spec, naming_an_empty_role_stops_inference)
{
	pm_spec *s = parse_ok("{\"categorical\": [], \"target\": \"t\"}");

	cr_assert_eq(s->infer_roles, 0);
	cr_assert_eq(s->categorical.n, 0);
	pm_spec_free(s);
	s = parse_ok("{\"target\": \"t\", \"intrinsic\": [\"a\"]}");
	cr_assert_eq(s->infer_roles, 0);
	pm_spec_free(s);
}

Test(spec, partial_bounds_keep_the_others)
{
	pm_spec *s = parse_ok("{\"target\": \"t\", \"bounds\": {\"power\": [-1, 1]}}");
	pm_bounds b = pm_bounds_default();

	cr_assert_eq(s->bounds.power_lo, -1);
	cr_assert_eq(s->bounds.power_hi, 1);
	cr_assert_eq(s->bounds.coef_lo, b.coef_lo);
	cr_assert_eq(s->bounds.coef_hi, b.coef_hi);
	cr_assert_eq(s->bounds.const_lo, b.const_lo);
	cr_assert_eq(s->bounds.const_hi, b.const_hi);
	pm_spec_free(s);
	s = parse_ok("{\"target\": \"t\", \"bounds\": {}}");
	cr_assert_eq(memcmp(&s->bounds, &b, sizeof(b)), 0);
	pm_spec_free(s);
}

Test(spec, null_name_labels_input)
{
	pm_spec *s = NULL;
	pm_error e = { 0 };

	cr_assert_eq(pm_spec_parse("{}", NULL, &s, &e), PM_ESCHEMA);
	cr_assert_str_eq(e.file, "<input>");
}

Test(spec, error_not_an_object)
{
	parse_fails("[1, 2]", PM_ESCHEMA, "a spec must be a JSON object");
	parse_fails("\"t\"", PM_ESCHEMA, "a spec must be a JSON object");
}

Test(spec, error_bad_json_has_place)
{
	pm_spec *s = NULL;
	pm_error e = { 0 };

	cr_assert_eq(pm_spec_parse("{\n \"target\": \"t\",\n}", "m.json", &s, &e), PM_EPARSE);
	cr_assert_null(s);
	cr_assert_gt(e.line, 0);
	cr_assert_str_eq(e.file, "m.json");
}

Test(spec, error_unknown_key_suggests)
{
	parse_fails("{\"target\": \"t\", \"intrinsics\": []}", PM_ESCHEMA,
		    "unknown key 'intrinsics'; did you mean 'intrinsic'?");
	parse_fails("{\"Target\": \"t\"}", PM_ESCHEMA,
		    "unknown key 'Target'; did you mean 'target'?");
	parse_fails("{\"target\": \"t\", \"extrnsc\": []}", PM_ESCHEMA,
		    "did you mean 'extrinsic'?");
}

Test(spec, error_unknown_key_without_suggestion)
{
	pm_spec *s = NULL;
	pm_error e = { 0 };

	parse_fails("{\"target\": \"t\", \"model\": \"x\"}", PM_ESCHEMA, "unknown key 'model'");
	cr_assert_eq(pm_spec_parse("{\"target\": \"t\", \"roles\": 1}", "m.json", &s, &e),
		     PM_ESCHEMA);
	cr_assert_null(strstr(e.msg, "did you mean"), "unexpected hint: %s", e.msg);
}

Test(spec, error_unknown_key_in_bounds)
{
	parse_fails("{\"target\": \"t\", \"bounds\": {\"powr\": [0, 1]}}", PM_ESCHEMA,
		    "unknown key 'powr' in 'bounds'; did you mean 'power'?");
	parse_fails("{\"target\": \"t\", \"bounds\": {\"q\": [0, 1]}}", PM_ESCHEMA,
		    "unknown key 'q' in 'bounds'");
}

Test(spec, error_duplicate_key)
{
	parse_fails("{\"target\": \"t\", \"target\": \"u\"}", PM_ESCHEMA,
		    "duplicate key 'target'");
	parse_fails("{\"target\": \"t\", \"bounds\": {\"power\": [0, 1], \"power\": [0, 2]}}",
		    PM_ESCHEMA, "duplicate key 'bounds.power'");
}

Test(spec, error_missing_target)
{
	parse_fails("{}", PM_ESCHEMA, "no \"target\" in the spec");
	parse_fails("{\"intrinsic\": [\"a\"]}", PM_ESCHEMA, "no \"target\" in the spec");
}

Test(spec, error_target_type)
{
	parse_fails("{\"target\": 3}", PM_ESCHEMA, "'target' must be a column name (a string)");
	parse_fails("{\"target\": [\"t\"]}", PM_ESCHEMA, "'target' must be a column name");
	parse_fails("{\"target\": null}", PM_ESCHEMA, "'target' must be a column name");
	parse_fails("{\"target\": \"\"}", PM_ESCHEMA, "empty column name in 'target'");
}

Test(spec, error_role_type)
{
	parse_fails("{\"target\": \"t\", \"intrinsic\": \"a\"}", PM_ESCHEMA,
		    "'intrinsic' must be an array of column names");
	parse_fails("{\"target\": \"t\", \"categorical\": {\"a\": 1}}", PM_ESCHEMA,
		    "'categorical' must be an array of column names");
	parse_fails("{\"target\": \"t\", \"extrinsic\": [\"a\", 2]}", PM_ESCHEMA,
		    "'extrinsic' must be an array of column names");
	parse_fails("{\"target\": \"t\", \"workers\": [null]}", PM_ESCHEMA,
		    "'workers' must be an array of column names");
}

Test(spec, error_empty_name)
{
	parse_fails("{\"target\": \"t\", \"intrinsic\": [\"a\", \"\"]}", PM_ESCHEMA,
		    "empty column name in 'intrinsic'");
}

Test(spec, error_duplicate_name)
{
	parse_fails("{\"target\": \"t\", \"extrinsic\": [\"n\", \"b\", \"n\"]}", PM_ESCHEMA,
		    "column 'n' appears twice in 'extrinsic'");
}

Test(spec, error_column_in_two_roles)
{
	parse_fails("{\"target\": \"t\", \"intrinsic\": [\"x\"], \"extrinsic\": [\"x\"]}",
		    PM_ESCHEMA, "column 'x' is both intrinsic and extrinsic");
	/* reported in role order whatever the key order */
	parse_fails("{\"target\": \"t\", \"extrinsic\": [\"x\"], \"categorical\": [\"x\"]}",
		    PM_ESCHEMA, "column 'x' is both categorical and extrinsic");
	parse_fails("{\"target\": \"t\", \"workers\": [\"w\"], \"extrinsic\": [\"w\"]}",
		    PM_ESCHEMA, "column 'w' is both extrinsic and a worker column");
}

Test(spec, error_target_in_a_role)
{
	parse_fails("{\"target\": \"t\", \"categorical\": [\"a\", \"t\"]}", PM_ESCHEMA,
		    "column 't' is both the target and categorical");
	parse_fails("{\"intrinsic\": [\"t\"], \"target\": \"t\"}", PM_ESCHEMA,
		    "column 't' is both the target and intrinsic");
}

Test(spec, error_bounds_type)
{
	parse_fails("{\"target\": \"t\", \"bounds\": [0, 1]}", PM_ESCHEMA,
		    "'bounds' must be an object");
	parse_fails("{\"target\": \"t\", \"bounds\": {\"power\": 5}}", PM_ESCHEMA,
		    "bounds.power must be two finite numbers [lower, upper]");
	parse_fails("{\"target\": \"t\", \"bounds\": {\"power\": [5]}}", PM_ESCHEMA,
		    "bounds.power must be two finite numbers");
	parse_fails("{\"target\": \"t\", \"bounds\": {\"coefficient\": [0, 1, 2]}}", PM_ESCHEMA,
		    "bounds.coefficient must be two finite numbers");
	parse_fails("{\"target\": \"t\", \"bounds\": {\"constant\": [0, \"9\"]}}", PM_ESCHEMA,
		    "bounds.constant must be two finite numbers");
	parse_fails("{\"target\": \"t\", \"bounds\": {\"constant\": [null, 1]}}", PM_ESCHEMA,
		    "bounds.constant must be two finite numbers");
}

Test(spec, error_bounds_not_finite)
{
	parse_fails("{\"target\": \"t\", \"bounds\": {\"power\": [-1e999, 1]}}", PM_ESCHEMA,
		    "bounds.power must be two finite numbers");
}

Test(spec, error_bounds_reversed)
{
	parse_fails("{\"target\": \"t\", \"bounds\": {\"power\": [5, -5]}}", PM_ESCHEMA,
		    "bounds.power: lower 5 > upper -5");
	parse_fails("{\"target\": \"t\", \"bounds\": {\"coefficient\": [1000, 0.5]}}",
		    PM_ESCHEMA, "bounds.coefficient: lower 1000 > upper 0.5");
}

Test(spec, equal_bounds_fix_a_parameter)
{
	pm_spec *s = parse_ok("{\"target\": \"t\", \"bounds\": {\"constant\": [0, 0]}}");

	cr_assert_eq(s->bounds.const_lo, 0);
	cr_assert_eq(s->bounds.const_hi, 0);
	pm_spec_free(s);
}

/* ---- files ---------------------------------------------------------------- */

Test(spec, read_file)
{
	pm_spec *s = NULL;
	pm_error e = { 0 };

	cr_assert_eq(pm_spec_read_file(data_path("spec/cnn.json"), &s, &e), PM_OK, "%s", e.msg);
	cr_assert_str_eq(s->target, "time_per_iter_s");
	names_eq(&s->intrinsic, 2, (const char *[]){ "kernel_size", "filters" });
	names_eq(&s->categorical, 1, (const char *[]){ "activation" });
	names_eq(&s->extrinsic, 2, (const char *[]){ "threads", "batch_size" });
	names_eq(&s->workers, 2, (const char *[]){ "t_worker_1", "t_worker_2" });
	cr_assert_eq(s->bounds.coef_lo, -10);
	cr_assert_eq(s->bounds.const_hi, 5);
	cr_assert_eq(s->infer_roles, 0);
	pm_spec_free(s);
}

/* Reading the spec file rel (below PM_TEST_DATA) fails with code, naming
 * the file and leaving *out NULL; the error, for the test's own checks. */
static pm_error read_fails(const char *rel, pm_status code)
{
	const char *path = data_path(rel);
	pm_spec *s = (pm_spec *)&s;
	pm_error e = { 0 };

	cr_assert_eq(pm_spec_read_file(path, &s, &e), code, "%s", e.msg);
	cr_assert_null(s);
	cr_assert_eq(e.code, code);
	cr_assert_str_eq(e.file, path);
	return e;
}

Test(spec, read_file_missing)
{
	read_fails("spec/no-such-file.json", PM_EIO);
}

Test(spec, read_file_bad_json)
{
	pm_error e = read_fails("spec/bad_json.json", PM_EPARSE);

	cr_assert_eq(e.line, 2);
	cr_assert_gt(e.column, 0);
}

Test(spec, read_file_schema_error_names_the_file)
{
	pm_error e = read_fails("spec/bad_key.json", PM_ESCHEMA);

	cr_assert_str_eq(e.msg, "unknown key 'extrinsics'; did you mean 'extrinsic'?");
	cr_assert_eq(e.line, 0);
}

/* ---- names and target from flags ----------------------------------------- */

Test(names, add_list_trims)
{
	pm_names nm = { 0 };

	cr_assert_eq(pm_names_add_list(&nm, " a,b ,\tc d ", NULL), PM_OK);
	names_eq(&nm, 3, (const char *[]){ "a", "b", "c d" });
	cr_assert_eq(pm_names_add_list(&nm, "e", NULL), PM_OK);
	names_eq(&nm, 4, (const char *[]){ "a", "b", "c d", "e" });
	for (size_t i = 0; i < nm.n; i++)
		free(nm.name[i]);
	free(nm.name);
}

Test(names, add_list_empty_name)
{
	pm_names nm = { 0 };
	pm_error e = { 0 };

	cr_assert_eq(pm_names_add_list(&nm, "a,,b", &e), PM_ESCHEMA);
	cr_assert_str_eq(e.msg, "empty column name in 'a,,b'");
	cr_assert_eq(nm.n, 0);
	cr_assert_eq(pm_names_add_list(&nm, "", &e), PM_ESCHEMA);
	cr_assert_str_eq(e.msg, "empty column name in ''");
	cr_assert_eq(pm_names_add_list(&nm, "a, ", &e), PM_ESCHEMA);
	cr_assert_eq(pm_names_add_list(&nm, ",a", &e), PM_ESCHEMA);
	cr_assert_eq(nm.n, 0);
	free(nm.name);
}

Test(names, add_list_duplicate_leaves_list_unchanged)
{
	pm_names nm = { 0 };
	pm_error e = { 0 };

	cr_assert_eq(pm_names_add_list(&nm, "x", &e), PM_OK);
	cr_assert_eq(pm_names_add_list(&nm, "a,b, a", &e), PM_ESCHEMA);
	cr_assert_str_eq(e.msg, "column 'a' appears twice in 'a,b, a'");
	names_eq(&nm, 1, (const char *[]){ "x" });
	cr_assert_eq(pm_names_add_list(&nm, "y,x", &e), PM_ESCHEMA);
	cr_assert_str_eq(e.msg, "column 'x' is already listed");
	names_eq(&nm, 1, (const char *[]){ "x" });
	free(nm.name[0]);
	free(nm.name);
}

/* A list the caller allocated to its exact length grows like one
 * pm_names_add_list made (ASan would see a write past it); many names,
 * one at a time or in one list, each found again as a duplicate. */
Test(names, add_list_grows_any_list)
{
	pm_names nm = { 3, malloc(3 * sizeof(char *)) };
	pm_error e = { 0 };
	char list[64];

	cr_assert_not_null(nm.name);
	nm.name[0] = strdup("a");
	nm.name[1] = strdup("b");
	nm.name[2] = strdup("c");
	cr_assert_eq(pm_names_add_list(&nm, "d,e,f,g,h,i", &e), PM_OK, "%s", e.msg);
	names_eq(&nm, 9, (const char *[]){ "a", "b", "c", "d", "e", "f", "g", "h", "i" });
	for (int i = 0; i < 1000; i++) {
		snprintf(list, sizeof(list), "n%d", i);
		cr_assert_eq(pm_names_add_list(&nm, list, &e), PM_OK, "%s", e.msg);
	}
	cr_assert_eq(nm.n, 1009);
	cr_assert_eq(pm_names_add_list(&nm, "z,n999", &e), PM_ESCHEMA);
	cr_assert_str_eq(e.msg, "column 'n999' is already listed");
	cr_assert_eq(nm.n, 1009);
	cr_assert_str_eq(nm.name[1008], "n999");
	pm_names_clear(&nm);
	cr_assert_eq(nm.n, 0);
	cr_assert_null(nm.name);
}

Test(spec, set_target)
{
	pm_spec *s = NULL;
	pm_error e = { 0 };

	cr_assert_eq(pm_spec_new(&s, NULL), PM_OK);
	cr_assert_eq(pm_spec_set_target(s, "a", &e), PM_OK);
	cr_assert_eq(pm_spec_set_target(s, "time", &e), PM_OK);
	cr_assert_str_eq(s->target, "time");
	cr_assert_eq(pm_spec_set_target(s, "", &e), PM_ESCHEMA);
	cr_assert_str_eq(s->target, "time");
	pm_spec_free(s);
}

Test(spec, copy_is_deep)
{
	pm_spec *s = parse_ok("{\"target\": \"t\", \"intrinsic\": [\"a\"], \"workers\": [\"w\"],"
			      " \"bounds\": {\"power\": [-2, 2]}}");
	pm_spec *c = NULL;

	cr_assert_eq(pm__spec_copy(s, &c, NULL), PM_OK);
	pm_spec_free(s);
	cr_assert_str_eq(c->target, "t");
	names_eq(&c->intrinsic, 1, (const char *[]){ "a" });
	names_eq(&c->workers, 1, (const char *[]){ "w" });
	cr_assert_eq(c->categorical.n + c->extrinsic.n, 0);
	cr_assert_eq(c->bounds.power_lo, -2);
	cr_assert_eq(c->infer_roles, 0);
	pm_spec_free(c);
}

/* ---- resolve -------------------------------------------------------------- */

static const char cnn_csv[] =
	"kernel_size,activation,threads,time,filters,opt,t_w1\n"
	"3,relu,1,0.5,16,adam,0.2\n"
	"5,tanh,2,0.7,32,sgd,0.3\n";

/* Resolving s (taken) against cnn_csv fails with a schema error whose
 * message contains want. */
static void resolve_fails(pm_spec *s, const char *want)
{
	pm_dataset *d = csv(cnn_csv);
	pm_error e = { 0 };
	pm_status st = pm_spec_resolve(s, d, &e);

	cr_assert_eq(st, PM_ESCHEMA, "status %d (msg: %s)", st, e.msg);
	cr_assert_not_null(strstr(e.msg, want), "message '%s' lacks '%s'", e.msg, want);
	pm_spec_free(s);
	pm_dataset_free(d);
}

/* The spec of spec_json resolved against the CSV text csv_text. */
static pm_spec *resolved(const char *csv_text, const char *spec_json)
{
	pm_dataset *d = csv(csv_text);
	pm_spec *s = parse_ok(spec_json);
	pm_error e = { 0 };

	cr_assert_eq(pm_spec_resolve(s, d, &e), PM_OK, "%s", e.msg);
	pm_dataset_free(d);
	return s;
}

Test(resolve, infers_roles_in_column_order)
{
	pm_dataset *d = csv(cnn_csv);
	pm_spec *s = NULL;
	pm_error e = { 0 };

	cr_assert_eq(pm_spec_new(&s, NULL), PM_OK);
	cr_assert_eq(pm_spec_set_target(s, "time", NULL), PM_OK);
	cr_assert_eq(pm_names_add_list(&s->extrinsic, "threads", NULL), PM_OK);
	cr_assert_eq(pm_names_add_list(&s->workers, "t_w1", NULL), PM_OK);
	cr_assert_eq(pm_spec_resolve(s, d, &e), PM_OK, "%s", e.msg);
	names_eq(&s->intrinsic, 2, (const char *[]){ "kernel_size", "filters" });
	names_eq(&s->categorical, 2, (const char *[]){ "activation", "opt" });
	names_eq(&s->extrinsic, 1, (const char *[]){ "threads" });
	cr_assert_eq(s->infer_roles, 0);
	/* a second resolve is a no-op */
	cr_assert_eq(pm_spec_resolve(s, d, &e), PM_OK, "%s", e.msg);
	cr_assert_eq(s->intrinsic.n, 2);
	cr_assert_eq(s->categorical.n, 2);
	pm_spec_free(s);
	pm_dataset_free(d);
}

Test(resolve, one_text_cell_makes_a_column_categorical)
{
	pm_spec *s = resolved("a,b,t\n1,2,3\n1,x,4\n2,3,5\n", "{\"target\": \"t\"}");

	names_eq(&s->intrinsic, 1, (const char *[]){ "a" });
	names_eq(&s->categorical, 1, (const char *[]){ "b" });
	pm_spec_free(s);
}

Test(resolve, inferred_lists_may_be_empty)
{
	pm_spec *s = resolved("n,t\n1,2\n2,1\n", "{\"target\": \"t\", \"extrinsic\": [\"n\"]}");

	cr_assert_eq(s->intrinsic.n, 0);
	cr_assert_eq(s->categorical.n, 0);
	cr_assert_eq(s->infer_roles, 0);
	pm_spec_free(s);
}

Test(resolve, named_roles_are_not_extended)
{
	pm_spec *s = resolved(cnn_csv, "{\"target\": \"time\", \"intrinsic\": [\"filters\"],"
				       " \"extrinsic\": [\"threads\"]}");

	names_eq(&s->intrinsic, 1, (const char *[]){ "filters" });
	cr_assert_eq(s->categorical.n, 0);
	pm_spec_free(s);
}

Test(resolve, named_flags_win_over_stale_infer_roles)
{
	pm_dataset *d = csv(cnn_csv);
	pm_spec *s = NULL;

	cr_assert_eq(pm_spec_new(&s, NULL), PM_OK);
	cr_assert_eq(pm_spec_set_target(s, "time", NULL), PM_OK);
	cr_assert_eq(pm_names_add_list(&s->categorical, "opt", NULL), PM_OK);
	cr_assert_eq(pm_spec_resolve(s, d, NULL), PM_OK);
	cr_assert_eq(s->intrinsic.n, 0);
	names_eq(&s->categorical, 1, (const char *[]){ "opt" });
	cr_assert_eq(s->infer_roles, 0);
	pm_spec_free(s);
	pm_dataset_free(d);
}

Test(resolve, no_target)
{
	pm_spec *s = NULL;

	cr_assert_eq(pm_spec_new(&s, NULL), PM_OK);
	resolve_fails(s, "no target column: give --target or \"target\" in the spec");
}

Test(resolve, missing_column_suggests)
{
	resolve_fails(parse_ok("{\"target\": \"time\", \"extrinsic\": [\"thread\"]}"),
		      "no column 'thread' in data.csv; did you mean 'threads'?");
}

Test(resolve, missing_column_without_suggestion)
{
	pm_dataset *d = csv(cnn_csv);
	pm_spec *s = parse_ok("{\"target\": \"time\", \"workers\": [\"gpu_count\"]}");
	pm_error e = { 0 };

	cr_assert_eq(pm_spec_resolve(s, d, &e), PM_ESCHEMA);
	cr_assert_not_null(strstr(e.msg, "no column 'gpu_count' in data.csv"), "%s", e.msg);
	cr_assert_null(strstr(e.msg, "did you mean"), "%s", e.msg);
	cr_assert_eq(s->intrinsic.n + s->categorical.n, 0, "failed resolve changed the spec");
	pm_spec_free(s);
	pm_dataset_free(d);
}

Test(resolve, missing_target_column)
{
	resolve_fails(parse_ok("{\"target\": \"Time\"}"),
		      "no column 'Time' in data.csv; did you mean 'time'?");
}

Test(resolve, column_in_two_roles_from_flags)
{
	pm_spec *s = NULL;

	cr_assert_eq(pm_spec_new(&s, NULL), PM_OK);
	cr_assert_eq(pm_spec_set_target(s, "time", NULL), PM_OK);
	cr_assert_eq(pm_names_add_list(&s->intrinsic, "filters,threads", NULL), PM_OK);
	cr_assert_eq(pm_names_add_list(&s->extrinsic, "threads", NULL), PM_OK);
	s->infer_roles = 0;
	resolve_fails(s, "column 'threads' is both intrinsic and extrinsic");
}

Test(resolve, target_in_a_role_from_flags)
{
	pm_spec *s = NULL;

	cr_assert_eq(pm_spec_new(&s, NULL), PM_OK);
	cr_assert_eq(pm_names_add_list(&s->extrinsic, "threads", NULL), PM_OK);
	cr_assert_eq(pm_spec_set_target(s, "threads", NULL), PM_OK);
	resolve_fails(s, "column 'threads' is both the target and extrinsic");
}

/* Strings no reader can take: \u0000 (a C string would end there) and bytes
 * that are not UTF-8, placed; control characters of the input are escaped
 * in the message, never copied. */
Test(spec, nul_bad_utf8_and_control_characters)
{
	pm_spec *s = (pm_spec *)1;
	pm_error e = { 0 };

	cr_assert_eq(pm_spec_parse("{\"target\": \"t\",\n \"intr\\u0000insic\": [\"x\"]}", "s.json",
				   &s, &e), PM_EPARSE);
	cr_assert_null(s);
	cr_assert_str_eq(e.msg, "invalid JSON: \\u0000 (a NUL) in a string");
	cr_assert_eq(e.line, 2);
	cr_assert_eq(e.column, 7);	/* the backslash */
	cr_assert_eq(pm_spec_parse("{\"target\": \"t\xe9\"}", "s.json", &s, &e), PM_EPARSE);
	cr_assert_str_eq(e.msg, "invalid JSON: a string that is not UTF-8");
	cr_assert_eq(e.column, 14);
	cr_assert_eq(pm_spec_parse("{\"target\": \"t\", \"a\\u001b[31m\": 1}", "s.json", &s, &e),
		     PM_ESCHEMA);
	cr_assert(strstr(e.msg, "unknown key 'a\\x1b[31m'"), "%s", e.msg);
	cr_assert_null(strchr(e.msg, '\x1b'));
}

/* The opaque spec's public view (perfmodel.h): what the setters did, read
 * back through the accessors; lists and bounds checked. */
Test(spec, accessors_and_setters)
{
	pm_spec *s = NULL;
	pm_error e = { 0 };
	pm_bounds b = pm_bounds_default();
	const pm_names *nm;

	cr_assert_eq(pm_spec_new(&s, &e), PM_OK);
	cr_assert_null(pm_spec_target(s));
	cr_assert_null(pm_spec_form(s));
	cr_assert_eq(pm_spec_infers_roles(s), 1);
	cr_assert_eq(pm_spec_add_names(s, PM_SPEC_EXTRINSIC, "threads, gpus", &e), PM_OK);
	cr_assert_eq(pm_spec_infers_roles(s), 1, "extrinsic columns leave inference on");
	cr_assert_eq(pm_spec_add_names(s, PM_SPEC_WORKERS, "t_1", &e), PM_OK);
	cr_assert_eq(pm_spec_infers_roles(s), 1);
	cr_assert_eq(pm_spec_add_names(s, PM_SPEC_CATEGORICAL, "act", &e), PM_OK);
	cr_assert_eq(pm_spec_infers_roles(s), 0, "naming categorical columns ends inference");
	nm = pm_spec_names(s, PM_SPEC_EXTRINSIC);
	cr_assert_eq(nm->n, 2);
	cr_assert_str_eq(nm->name[1], "gpus");
	cr_assert_eq(pm_spec_names(s, PM_SPEC_WORKERS)->n, 1);
	cr_assert_eq(pm_spec_names(s, PM_SPEC_INTRINSIC)->n, 0);
	cr_assert_null(pm_spec_names(s, (pm_spec_list)4));
	cr_assert_null(pm_spec_names(NULL, PM_SPEC_EXTRINSIC));
	cr_assert_eq(pm_spec_add_names(s, (pm_spec_list)-1, "x", &e), PM_EINVAL);
	cr_assert_eq(pm_spec_add_names(s, PM_SPEC_EXTRINSIC, "threads", &e), PM_ESCHEMA);
	cr_assert(strstr(e.msg, "already listed"), "%s", e.msg);
	cr_assert_eq(pm_spec_names(s, PM_SPEC_EXTRINSIC)->n, 2, "a failed add adds nothing");
	cr_assert_eq(pm_spec_set_target(s, "time_s", &e), PM_OK);
	cr_assert_str_eq(pm_spec_target(s), "time_s");
	cr_assert_eq(pm_spec_set_form(s, "multiplicative", &e), PM_OK);
	cr_assert_str_eq(pm_spec_form(s), "multiplicative");
	/* the constant alone is a model (discover's of a metric no input
	 * moves; C_ beside a column C); another name of no column, a typo */
	cr_expect_eq(pm_spec_set_form(s, "C", &e), PM_OK, "%s", e.msg);
	cr_expect_eq(pm_spec_set_form(s, "C__", &e), PM_OK, "%s", e.msg);
	cr_expect_eq(pm_spec_set_form(s, "Cx", &e), PM_EINVAL);
	cr_expect(strstr(e.msg, "unknown form 'Cx'"), "%s", e.msg);
	cr_expect_eq(pm_spec_set_form(s, "additve", &e), PM_EINVAL);
	cr_assert_str_eq(pm_spec_form(s), "C__");
	cr_assert_eq(pm_spec_set_form(s, "multiplicative", &e), PM_OK);

	b.power_lo = -2;
	cr_assert_eq(pm_spec_set_bounds(s, &b, &e), PM_OK);
	cr_assert_eq(pm_spec_bounds(s).power_lo, -2);
	b.coef_hi = -1;		/* below coef_lo = 0 */
	cr_assert_eq(pm_spec_set_bounds(s, &b, &e), PM_EINVAL);
	b.coef_hi = INFINITY;
	cr_assert_eq(pm_spec_set_bounds(s, &b, &e), PM_EINVAL);
	b.coef_hi = 10;
	b.const_lo = NAN;
	cr_assert_eq(pm_spec_set_bounds(s, &b, &e), PM_EINVAL);
	cr_assert_eq(pm_spec_bounds(s).coef_hi, 1000, "a refused bound changes nothing");
	cr_assert_eq(pm_spec_set_bounds(s, NULL, &e), PM_EINVAL);
	pm_spec_free(s);
	cr_assert_null(pm_spec_target(NULL));
	cr_assert_eq(pm_spec_infers_roles(NULL), 0);
}

/* An empty list names no column: --intrinsic "" is "none", and like any
 * intrinsic or categorical list it ends role inference, so the other
 * columns stay out; "" for extrinsic adds none either. A list with an
 * empty name in it is still an error. */
Test(resolve, an_empty_list_means_none)
{
	pm_dataset *d = csv(cnn_csv);
	pm_spec *s = NULL;
	pm_error e = { 0 };

	cr_assert_eq(pm_spec_new(&s, NULL), PM_OK);
	cr_assert_eq(pm_spec_set_target(s, "time", NULL), PM_OK);
	cr_assert_eq(pm_spec_add_names(s, PM_SPEC_EXTRINSIC, "threads", &e), PM_OK, "%s", e.msg);
	cr_assert_eq(pm_spec_add_names(s, PM_SPEC_INTRINSIC, "", &e), PM_OK, "%s", e.msg);
	cr_assert_eq(pm_spec_infers_roles(s), 0);
	cr_assert_eq(pm_spec_add_names(s, PM_SPEC_CATEGORICAL, " \t", &e), PM_OK, "%s", e.msg);
	cr_assert_eq(pm_spec_add_names(s, PM_SPEC_EXTRINSIC, "", &e), PM_OK, "%s", e.msg);
	cr_assert_eq(pm_spec_resolve(s, d, &e), PM_OK, "%s", e.msg);
	cr_expect_eq(s->intrinsic.n, 0);
	cr_expect_eq(s->categorical.n, 0);
	names_eq(&s->extrinsic, 1, (const char *[]){ "threads" });
	cr_expect_eq(pm_spec_add_names(s, PM_SPEC_INTRINSIC, "a,,b", &e), PM_ESCHEMA);
	cr_expect_str_eq(e.msg, "empty column name in 'a,,b'");
	cr_expect_eq(pm_spec_add_names(s, PM_SPEC_INTRINSIC, NULL, &e), PM_EINVAL);
	pm_spec_free(s);
	pm_dataset_free(d);
}
