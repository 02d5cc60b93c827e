/* Model spec: which column plays which role (DESIGN.md §5), read from
 * models/NAME.json or built from command-line flags, then checked against a
 * dataset by pm_spec_resolve(). */
#include "perfmodel/perfmodel.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "core/error.h"
#include "model/formula.h"
#include "core/json_read.h"
#include "fit/spec_impl.h"

enum { NROLES = 4 };

/* The JSON keys of the roles, in the order conflicts are reported. */
static const char *const role_key[NROLES] = { "intrinsic", "categorical", "extrinsic",
					      "workers" };
/* The same as they read in "column 'x' is both A and B". */
static const char *const role_label[NROLES] = { "intrinsic", "categorical", "extrinsic",
						"a worker column" };

static const char *const top_keys[] = { "target", "intrinsic", "categorical", "extrinsic",
					 "workers", "bounds", "form", "formula" };
static const char *const bound_keys[] = { "coefficient", "power", "constant" };

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static pm_names *role_names(pm_spec *s, int r)
{
	pm_names *v[NROLES] = { &s->intrinsic, &s->categorical, &s->extrinsic, &s->workers };

	return v[r];
}

static const pm_names *role_names_c(const pm_spec *s, int r)
{
	return role_names((pm_spec *)s, r);
}

static char *dupstr(const char *s, size_t len)
{
	char *c = malloc(len + 1);

	if (c) {
		memcpy(c, s, len);
		c[len] = '\0';
	}
	return c;
}

/* Names are few, so growing by one keeps pm_names free of a capacity field. */
static int names_push(pm_names *nm, const char *s, size_t len)
{
	char *copy = dupstr(s, len);
	char **v;

	if (!copy)
		return -1;
	v = realloc(nm->name, (nm->n + 1) * sizeof(*v));
	if (!v) {
		free(copy);
		return -1;
	}
	nm->name = v;
	nm->name[nm->n++] = copy;
	return 0;
}

/* Drop the names appended after the first n, so a failed call leaves the
 * list as it found it. */
static void names_truncate(pm_names *nm, size_t n)
{
	while (nm->n > n)
		free(nm->name[--nm->n]);
	if (nm->n == 0) {
		free(nm->name);
		nm->name = NULL;
	}
}

static int names_find(const pm_names *nm, size_t upto, const char *name)
{
	for (size_t i = 0; i < upto && i < nm->n; i++)
		if (strcmp(nm->name[i], name) == 0)
			return 1;
	return 0;
}

/* ---- did you mean --------------------------------------------------------- */

static unsigned char lower(unsigned char c)
{
	return c >= 'A' && c <= 'Z' ? (unsigned char)(c - 'A' + 'a') : c;
}

enum { MAXSUGGEST = 255 };

/* Case-insensitive Levenshtein distance, or MAXSUGGEST when either string is
 * too long to bother (suggestions are for typos in short names). */
static size_t distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	size_t row[MAXSUGGEST + 1];

	if (la >= MAXSUGGEST || lb >= MAXSUGGEST)
		return MAXSUGGEST;
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0];

		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t up = row[j];
			size_t best = diag + (lower((unsigned char)a[i - 1]) !=
					      lower((unsigned char)b[j - 1]));

			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			diag = up;
			row[j] = best;
		}
	}
	return row[lb];
}

/* A candidate is close when at most 2 edits away and those edits change less
 * than half of the longer name: without the second rule every one-letter name
 * would "match" every other one. */
static int is_close(const char *name, const char *cand, size_t *dist)
{
	size_t la = strlen(name), lb = strlen(cand);
	size_t longer = la > lb ? la : lb;

	*dist = distance(name, cand);
	return *dist <= 2 && *dist * 2 < longer;
}

/* The closest of keys[0..n) to name, or NULL; ties go to the first. */
static const char *closest_key(const char *name, const char *const *keys, size_t n)
{
	const char *best = NULL;
	size_t bestd = MAXSUGGEST, d;

	for (size_t i = 0; i < n; i++)
		if (is_close(name, keys[i], &d) && d < bestd) {
			best = keys[i];
			bestd = d;
		}
	return best;
}

static const char *closest_column(const char *name, const pm_dataset *d)
{
	const char *best = NULL;
	size_t bestd = MAXSUGGEST, dist;

	for (size_t c = 0; c < pm_dataset_ncols(d); c++) {
		const char *cand = pm_dataset_col_name(d, c);

		if (cand && is_close(name, cand, &dist) && dist < bestd) {
			best = cand;
			bestd = dist;
		}
	}
	return best;
}

/* ---- checks shared by the parser and resolve ------------------------------ */

/* Every name non-empty, unique within its role, in at most one role and not
 * the target. `file` labels the errors (NULL when the spec has no file). */
static pm_status check_roles(const pm_spec *s, const char *file, pm_error *err)
{
	for (int r = 0; r < NROLES; r++) {
		const pm_names *nm = role_names_c(s, r);

		for (size_t i = 0; i < nm->n; i++) {
			const char *x = nm->name[i];

			if (!x || !*x)
				return pm__fail_at(err, PM_ESCHEMA, file, 0, 0,
						   "empty column name in '%s'", role_key[r]);
			if (names_find(nm, i, x))
				return pm__fail_at(err, PM_ESCHEMA, file, 0, 0,
						   "column '%s' appears twice in '%s'", x,
						   role_key[r]);
			if (s->target && strcmp(s->target, x) == 0)
				return pm__fail_at(err, PM_ESCHEMA, file, 0, 0,
						   "column '%s' is both the target and %s", x,
						   role_label[r]);
			for (int q = 0; q < r; q++)
				if (names_find(role_names_c(s, q), SIZE_MAX, x))
					return pm__fail_at(err, PM_ESCHEMA, file, 0, 0,
							   "column '%s' is both %s and %s", x,
							   role_label[q], role_label[r]);
		}
	}
	return PM_OK;
}

/* ---- lifecycle ------------------------------------------------------------ */

pm_status pm_spec_new(pm_spec **out, pm_error *err)
{
	pm_spec *s;

	if (!out)
		return pm__fail(err, PM_EINVAL, "pm_spec_new: out is NULL");
	*out = NULL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return pm__fail(err, PM_ENOMEM, "out of memory");
	s->bounds = pm_bounds_default();
	s->infer_roles = 1;
	*out = s;
	return PM_OK;
}

void pm_spec_free(pm_spec *s)
{
	if (!s)
		return;
	free(s->target);
	free(s->form);
	for (int r = 0; r < NROLES; r++)
		names_truncate(role_names(s, r), 0);
	free(s);
}

pm_status pm__spec_copy(const pm_spec *s, pm_spec **out, pm_error *err)
{
	pm_spec *c;
	pm_status st;

	if (!out)
		return pm__fail(err, PM_EINVAL, "pm__spec_copy: out is NULL");
	*out = NULL;
	if (!s)
		return pm__fail(err, PM_EINVAL, "pm__spec_copy: spec is NULL");
	st = pm_spec_new(&c, err);
	if (st)
		return st;
	c->bounds = s->bounds;
	c->infer_roles = s->infer_roles;
	if (s->target && !(c->target = dupstr(s->target, strlen(s->target))))
		goto oom;
	if (s->form && !(c->form = dupstr(s->form, strlen(s->form))))
		goto oom;
	for (int r = 0; r < NROLES; r++) {
		const pm_names *from = role_names_c(s, r);

		for (size_t i = 0; i < from->n; i++) {
			/* a NULL name becomes "", which resolve reports as empty */
			const char *x = from->name[i] ? from->name[i] : "";

			if (names_push(role_names(c, r), x, strlen(x)))
				goto oom;
		}
	}
	*out = c;
	return PM_OK;
oom:
	pm_spec_free(c);
	return pm__fail(err, PM_ENOMEM, "out of memory");
}

pm_status pm_spec_set_target(pm_spec *s, const char *target, pm_error *err)
{
	char *copy;

	if (!s || !target)
		return pm__fail(err, PM_EINVAL, "pm_spec_set_target: NULL argument");
	if (!*target)
		return pm__fail(err, PM_ESCHEMA, "empty target column name");
	copy = dupstr(target, strlen(target));
	if (!copy)
		return pm__fail(err, PM_ENOMEM, "out of memory");
	free(s->target);
	s->target = copy;
	return PM_OK;
}

static int is_named_form(const char *form)
{
	return strcmp(form, "additive") == 0 || strcmp(form, "multiplicative") == 0;
}

const char *pm__spec_formula_text(const pm_spec *s)
{
	return s->form && !is_named_form(s->form) ? s->form : NULL;
}

pm_status pm_spec_set_form(pm_spec *s, const char *form, pm_error *err)
{
	pm_formula *f = NULL;
	char *copy;
	pm_status st;

	if (!s || !form)
		return pm__fail(err, PM_EINVAL, "pm_spec_set_form: NULL argument");
	if (!is_named_form(form) && (st = pm__formula_parse(form, &f, err)))
		return st;
	/* a model of no column is a typo, likely of a form's name */
	if (f && pm__formula_ncolumns(f) == 0) {
		pm__formula_free(f);
		return pm__fail(err, PM_EINVAL, "unknown form '%s': expected additive, "
				"multiplicative or a formula of columns, such as 'a * x^p + C'",
				form);
	}
	pm__formula_free(f);
	copy = dupstr(form, strlen(form));
	if (!copy)
		return pm__fail(err, PM_ENOMEM, "out of memory");
	free(s->form);
	s->form = copy;
	return PM_OK;
}

pm_status pm__spec_formula_roles(pm_spec *s, const pm_dataset *d, pm_error *err)
{
	pm_names role[3] = { { 0 } };	/* intrinsic, categorical, extrinsic */
	pm_formula *f = NULL;
	pm_status st;

	if (!pm__spec_formula_text(s))
		return PM_OK;
	if ((st = pm__formula_parse(s->form, &f, err)))
		return st;
	for (size_t i = 0; i < pm__formula_ncolumns(f); i++) {
		int level;
		unsigned pos;
		const char *col = pm__formula_column(f, i, &level, &pos);
		int r = level ? 1 : names_find(&s->extrinsic, SIZE_MAX, col) ? 2 : 0;
		size_t c;

		if (pm_dataset_col_index(d, col, &c, NULL) != PM_OK) {
			const char *hint = closest_column(col, d);

			st = pm__fail_at(err, PM_ESCHEMA, "formula", 1, pos,
					 "unknown column '%s' in %s%s%s%s", col, pm_dataset_name(d),
					 hint ? "; did you mean '" : "", hint ? hint : "",
					 hint ? "'?" : "");
			break;
		}
		if (names_push(&role[r], col, strlen(col)) != 0) {
			st = pm__fail(err, PM_ENOMEM, "out of memory");
			break;
		}
	}
	pm__formula_free(f);
	for (int r = 0; r < 3; r++) {
		pm_names *to = role_names(s, r);

		if (!st) {
			names_truncate(to, 0);
			*to = role[r];
		} else {
			names_truncate(&role[r], 0);
		}
	}
	s->infer_roles = 0;
	return st;
}

static int is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

void pm_names_clear(pm_names *names)
{
	if (names)
		names_truncate(names, 0);
}

pm_status pm_names_add_list(pm_names *names, const char *list, pm_error *err)
{
	size_t old, i;
	const char *p;

	if (!names || !list)
		return pm__fail(err, PM_EINVAL, "pm_names_add_list: NULL argument");
	old = names->n;
	p = list;
	for (;;) {
		const char *end = strchr(p, ',');
		const char *a = p, *b = end ? end : p + strlen(p);

		while (a < b && is_space(*a))
			a++;
		while (b > a && is_space(b[-1]))
			b--;
		if (a == b) {
			names_truncate(names, old);
			return pm__fail(err, PM_ESCHEMA, "empty column name in '%s'", list);
		}
		if (names_push(names, a, (size_t)(b - a)) != 0) {
			names_truncate(names, old);
			return pm__fail(err, PM_ENOMEM, "out of memory");
		}
		i = names->n - 1;
		if (names_find(names, old, names->name[i])) {
			pm__fail(err, PM_ESCHEMA, "column '%s' is already listed",
				 names->name[i]);
			names_truncate(names, old);
			return PM_ESCHEMA;
		}
		for (size_t j = old; j < i; j++)
			if (strcmp(names->name[j], names->name[i]) == 0) {
				pm__fail(err, PM_ESCHEMA, "column '%s' appears twice in '%s'",
					 names->name[i], list);
				names_truncate(names, old);
				return PM_ESCHEMA;
			}
		if (!end)
			break;
		p = end + 1;
	}
	return PM_OK;
}

/* ---- reading a spec file -------------------------------------------------- */

static pm_status unknown_key(const char *key, const char *where, const char *const *keys,
			     size_t nkeys, const char *file, pm_error *err)
{
	const char *hint = closest_key(key, keys, nkeys);

	if (hint)
		return pm__fail_at(err, PM_ESCHEMA, file, 0, 0,
				   "unknown key '%s'%s; did you mean '%s'?", key, where, hint);
	return pm__fail_at(err, PM_ESCHEMA, file, 0, 0, "unknown key '%s'%s", key, where);
}

static int key_index(const char *key, const char *const *keys, size_t nkeys)
{
	for (size_t i = 0; i < nkeys; i++)
		if (strcmp(key, keys[i]) == 0)
			return (int)i;
	return -1;
}

static pm_status parse_names(const cJSON *v, const char *key, pm_names *nm, const char *file,
			     pm_error *err)
{
	const cJSON *item;

	if (!cJSON_IsArray(v))
		return pm__fail_at(err, PM_ESCHEMA, file, 0, 0,
				   "'%s' must be an array of column names", key);
	cJSON_ArrayForEach(item, v) {
		if (!cJSON_IsString(item) || !item->valuestring)
			return pm__fail_at(err, PM_ESCHEMA, file, 0, 0,
					   "'%s' must be an array of column names", key);
		if (!*item->valuestring)
			return pm__fail_at(err, PM_ESCHEMA, file, 0, 0,
					   "empty column name in '%s'", key);
		if (names_find(nm, SIZE_MAX, item->valuestring))
			return pm__fail_at(err, PM_ESCHEMA, file, 0, 0,
					   "column '%s' appears twice in '%s'", item->valuestring,
					   key);
		if (names_push(nm, item->valuestring, strlen(item->valuestring)) != 0)
			return pm__fail(err, PM_ENOMEM, "out of memory");
	}
	return PM_OK;
}

static pm_status parse_bound(const cJSON *v, const char *key, double *lo, double *hi,
			     const char *file, pm_error *err)
{
	const cJSON *a, *b;

	if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) != 2)
		goto bad;
	a = v->child;
	b = a->next;
	if (!cJSON_IsNumber(a) || !cJSON_IsNumber(b) || !isfinite(a->valuedouble) ||
	    !isfinite(b->valuedouble))
		goto bad;
	if (a->valuedouble > b->valuedouble)
		return pm__fail_at(err, PM_ESCHEMA, file, 0, 0, "bounds.%s: lower %g > upper %g",
				   key, a->valuedouble, b->valuedouble);
	*lo = a->valuedouble;
	*hi = b->valuedouble;
	return PM_OK;
bad:
	return pm__fail_at(err, PM_ESCHEMA, file, 0, 0,
			   "bounds.%s must be two finite numbers [lower, upper]", key);
}

static pm_status parse_bounds(const cJSON *v, pm_bounds *bd, const char *file, pm_error *err)
{
	unsigned seen = 0;
	const cJSON *item;
	pm_status st;

	if (!cJSON_IsObject(v))
		return pm__fail_at(err, PM_ESCHEMA, file, 0, 0,
				   "'bounds' must be an object with \"coefficient\", \"power\" "
				   "or \"constant\"");
	cJSON_ArrayForEach(item, v) {
		int k = key_index(item->string, bound_keys, COUNT(bound_keys));

		if (k < 0)
			return unknown_key(item->string, " in 'bounds'", bound_keys,
					   COUNT(bound_keys), file, err);
		if (seen & (1u << k))
			return pm__fail_at(err, PM_ESCHEMA, file, 0, 0,
					   "duplicate key 'bounds.%s'", item->string);
		seen |= 1u << k;
		if (k == 0)
			st = parse_bound(item, "coefficient", &bd->coef_lo, &bd->coef_hi, file, err);
		else if (k == 1)
			st = parse_bound(item, "power", &bd->power_lo, &bd->power_hi, file, err);
		else
			st = parse_bound(item, "constant", &bd->const_lo, &bd->const_hi, file, err);
		if (st)
			return st;
	}
	return PM_OK;
}

/* "form": "additive" | "multiplicative", or "formula": TEXT (not both). A
 * formula's mistakes keep their place in the formula and name the file. */
static pm_status parse_form(const cJSON *item, pm_spec *s, const char *file, pm_error *err)
{
	int is_form = strcmp(item->string, "form") == 0;
	pm_status st;

	if (s->form)
		return pm__fail_at(err, PM_ESCHEMA, file, 0, 0,
				   "give either \"form\" or \"formula\", not both");
	if (!cJSON_IsString(item) || !item->valuestring)
		return pm__fail_at(err, PM_ESCHEMA, file, 0, 0, "'%s' must be a string",
				   item->string);
	if (is_form && !is_named_form(item->valuestring))
		return pm__fail_at(err, PM_ESCHEMA, file, 0, 0,
				   "'form' must be \"additive\" or \"multiplicative\" (a formula "
				   "goes in \"formula\")");
	st = pm_spec_set_form(s, item->valuestring, err);
	if (st == PM_EPARSE && err) {
		size_t len = strlen(err->msg);

		snprintf(err->msg + len, sizeof(err->msg) - len, " (in %s)", file);
	}
	return st;
}

/* Fill s from the tree; s is freed by the caller on failure. */
static pm_status spec_from_json(const cJSON *root, pm_spec *s, const char *file,
				pm_error *err)
{
	unsigned seen = 0;
	const cJSON *item;
	pm_status st;

	if (!cJSON_IsObject(root))
		return pm__fail_at(err, PM_ESCHEMA, file, 0, 0, "a spec must be a JSON object");
	cJSON_ArrayForEach(item, root) {
		int k = key_index(item->string, top_keys, COUNT(top_keys));

		if (k < 0)
			return unknown_key(item->string, "", top_keys, COUNT(top_keys), file,
					   err);
		if (seen & (1u << k))
			return pm__fail_at(err, PM_ESCHEMA, file, 0, 0,
					   "duplicate key '%s'", item->string);
		seen |= 1u << k;
		if (k == 0) {
			if (!cJSON_IsString(item) || !item->valuestring)
				return pm__fail_at(err, PM_ESCHEMA, file, 0, 0,
						   "'target' must be a column name (a string)");
			if (!*item->valuestring)
				return pm__fail_at(err, PM_ESCHEMA, file, 0, 0,
						   "empty column name in 'target'");
			st = pm_spec_set_target(s, item->valuestring, err);
		} else if (k <= NROLES) {
			st = parse_names(item, role_key[k - 1], role_names(s, k - 1), file, err);
			/* naming either list, even as [], means "these and no others" */
			if (k == 1 || k == 2)
				s->infer_roles = 0;
		} else if (k == NROLES + 1) {
			st = parse_bounds(item, &s->bounds, file, err);
		} else {
			st = parse_form(item, s, file, err);
		}
		if (st)
			return st;
	}
	if (!s->target)
		return pm__fail_at(err, PM_ESCHEMA, file, 0, 0,
				   "no \"target\" in the spec: name the column to model");
	return check_roles(s, file, err);
}

static pm_status spec_parse_text(const char *text, size_t len, const char *name,
				 pm_spec **out, pm_error *err)
{
	cJSON *root = NULL;
	pm_spec *s = NULL;
	pm_status st;

	st = pm__json_parse(text, len, name, &root, err);
	if (st)
		return st;
	st = pm_spec_new(&s, err);
	if (!st)
		st = spec_from_json(root, s, name, err);
	cJSON_Delete(root);
	if (st) {
		pm_spec_free(s);
		return st;
	}
	*out = s;
	return PM_OK;
}

pm_status pm_spec_parse(const char *json, const char *name, pm_spec **out, pm_error *err)
{
	if (!out)
		return pm__fail(err, PM_EINVAL, "pm_spec_parse: out is NULL");
	*out = NULL;
	if (!json)
		return pm__fail(err, PM_EINVAL, "pm_spec_parse: json is NULL");
	return spec_parse_text(json, strlen(json), name ? name : "<input>", out, err);
}

pm_status pm_spec_read_file(const char *path, pm_spec **out, pm_error *err)
{
	char *text = NULL;
	size_t len = 0;
	pm_status st;

	if (!out)
		return pm__fail(err, PM_EINVAL, "pm_spec_read_file: out is NULL");
	*out = NULL;
	if (!path)
		return pm__fail(err, PM_EINVAL, "pm_spec_read_file: path is NULL");
	st = pm__read_file(path, &text, &len, err);
	if (st)
		return st;
	st = spec_parse_text(text, len, path, out, err);
	free(text);
	return st;
}

/* ---- resolving against a dataset ------------------------------------------ */

static pm_status need_column(const pm_dataset *d, const char *name, pm_error *err)
{
	const char *file = pm_dataset_name(d);
	const char *hint;
	size_t col;
	pm_status st = pm_dataset_col_index(d, name, &col, err);

	if (st != PM_ESCHEMA)
		return st;
	/* our own message rather than the dataset's, to add the suggestion */
	if (!file || !*file)
		file = "<input>";
	hint = closest_column(name, d);
	if (hint)
		return pm__fail(err, PM_ESCHEMA, "no column '%s' in %s; did you mean '%s'?", name,
				file, hint);
	return pm__fail(err, PM_ESCHEMA, "no column '%s' in %s", name, file);
}

static int spec_uses(const pm_spec *s, const char *name)
{
	if (s->target && strcmp(s->target, name) == 0)
		return 1;
	for (int r = 0; r < NROLES; r++)
		if (names_find(role_names_c(s, r), SIZE_MAX, name))
			return 1;
	return 0;
}

pm_status pm_spec_resolve(pm_spec *s, const pm_dataset *d, pm_error *err)
{
	size_t old_i, old_c;
	pm_status st;

	if (!s || !d)
		return pm__fail(err, PM_EINVAL, "pm_spec_resolve: NULL argument");
	if (!s->target)
		return pm__fail(err, PM_ESCHEMA,
				"no target column: give --target or \"target\" in the spec");
	st = check_roles(s, NULL, err);
	if (st)
		return st;
	st = need_column(d, s->target, err);
	for (int r = 0; r < NROLES && !st; r++) {
		const pm_names *nm = role_names_c(s, r);

		for (size_t i = 0; i < nm->n && !st; i++)
			st = need_column(d, nm->name[i], err);
	}
	if (st)
		return st;
	/* Named intrinsic or categorical columns win over a stale infer_roles:
	 * the header defines it as "neither was named". */
	if (!s->infer_roles || s->intrinsic.n || s->categorical.n) {
		s->infer_roles = 0;
		return PM_OK;
	}
	old_i = s->intrinsic.n;
	old_c = s->categorical.n;
	for (size_t c = 0; c < pm_dataset_ncols(d); c++) {
		const char *name = pm_dataset_col_name(d, c);
		pm_names *nm;

		if (spec_uses(s, name))
			continue;
		nm = pm_dataset_col_is_numeric(d, c) ? &s->intrinsic : &s->categorical;
		if (names_push(nm, name, strlen(name)) != 0) {
			names_truncate(&s->intrinsic, old_i);
			names_truncate(&s->categorical, old_c);
			return pm__fail(err, PM_ENOMEM, "out of memory");
		}
	}
	s->infer_roles = 0;
	return PM_OK;
}
