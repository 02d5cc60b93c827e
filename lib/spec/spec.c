/* Model spec: which column plays which role (DESIGN.md §5), read from
 * models/NAME.json or built from command-line flags, then checked against a
 * dataset by pm_spec_resolve(). */
#include "perfmodel/perfmodel.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/names.h"
#include "model/formula.h"
#include "spec/leak.h"
#include "spec/spec_impl.h"

const char *const pm__spec_role_key[NROLES] = { "intrinsic", "categorical", "extrinsic",
						"workers" };
/* The same as they read in "column 'x' is both A and B". */
static const char *const role_label[NROLES] = { "intrinsic", "categorical", "extrinsic",
						"a worker column" };

pm_names *pm__spec_role_names(pm_spec *s, int r)
{
	pm_names *v[NROLES] = { &s->intrinsic, &s->categorical, &s->extrinsic, &s->workers };

	return v[r];
}

static const pm_names *role_names_c(const pm_spec *s, int r)
{
	return pm__spec_role_names((pm_spec *)s, r);
}

static const char *column_at(const void *d, size_t c)
{
	return pm_dataset_col_name(d, c);
}

static const char *closest_column(const char *name, const pm_dataset *d)
{
	return pm__closest_name(name, pm_dataset_ncols(d), column_at, d);
}

/* ---- checks shared by the parser and resolve ------------------------------ */

/* Every role's names as one list, in pm_spec_list's order: item k is role
 * r's name k - first[r]. */
struct role_list {
	const pm_spec *s;
	size_t first[NROLES + 1];
};

static int role_of(const struct role_list *l, size_t k)
{
	int r = 0;

	while (k >= l->first[r + 1])
		r++;
	return r;
}

static const char *role_item(const void *ctx, size_t k)
{
	const struct role_list *l = ctx;
	int r = role_of(l, k);

	return role_names_c(l->s, r)->name[k - l->first[r]];
}

/* *l: the roles of s; their number of names in all. */
static size_t role_list_init(struct role_list *l, const pm_spec *s)
{
	l->s = s;
	l->first[0] = 0;
	for (int r = 0; r < NROLES; r++)
		l->first[r + 1] = l->first[r] + role_names_c(s, r)->n;
	return l->first[NROLES];
}

/* Every name non-empty, unique within its role, in at most one role and not
 * the target. `file` labels the errors (NULL when the spec has no file).
 * The names go into one index in order, so that the first name found
 * again is the one reported, as a pairwise check would. */
pm_status pm__spec_check_roles(const pm_spec *s, const char *file, pm_error *err)
{
	struct role_list l;
	pm__strindex seen;
	pm_status st = PM_OK;

	/* room for every name: adding them needs no memory */
	if (pm__strindex_init(&seen, role_list_init(&l, s), role_item, &l) != 0)
		return pm__fail(err, PM_ENOMEM, "out of memory");
	for (int r = 0; r < NROLES && !st; r++) {
		const pm_names *nm = role_names_c(s, r);

		for (size_t i = 0; i < nm->n && !st; i++) {
			const char *x = nm->name[i];
			size_t k = l.first[r] + i, first;

			if (!x || !*x)
				st = pm__fail_at(err, PM_ESCHEMA, file, 0, 0,
						 "empty column name in '%s'", pm__spec_role_key[r]);
			else if ((first = pm__strindex_add(&seen, k)) != k && first >= l.first[r])
				st = pm__fail_at(err, PM_ESCHEMA, file, 0, 0,
						 "column '%s' appears twice in '%s'", x,
						 pm__spec_role_key[r]);
			else if (s->target && strcmp(s->target, x) == 0)
				st = pm__fail_at(err, PM_ESCHEMA, file, 0, 0,
						 "column '%s' is both the target and %s", x,
						 role_label[r]);
			else if (first != k)
				st = pm__fail_at(err, PM_ESCHEMA, file, 0, 0,
						 "column '%s' is both %s and %s", x,
						 role_label[role_of(&l, first)], role_label[r]);
		}
	}
	pm__strindex_free(&seen);
	return st;
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
	free(s->resource);
	free(s->per);
	for (int r = 0; r < NROLES; r++)
		pm__names_truncate(pm__spec_role_names(s, r), 0);
	pm__names_truncate(&s->ignore, 0);
	pm__names_truncate(&s->notes, 0);
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
	c->kind = s->kind;
	if (s->target && !(c->target = pm__strndup(s->target, strlen(s->target))))
		goto oom;
	if (s->resource && !(c->resource = pm__strndup(s->resource, strlen(s->resource))))
		goto oom;
	if (s->per && !(c->per = pm__strndup(s->per, strlen(s->per))))
		goto oom;
	if (s->form && !(c->form = pm__strndup(s->form, strlen(s->form))))
		goto oom;
	for (int r = 0; r < NROLES; r++) {
		const pm_names *from = role_names_c(s, r);

		for (size_t i = 0; i < from->n; i++) {
			/* a NULL name becomes "", which resolve reports as empty */
			const char *x = from->name[i] ? from->name[i] : "";

			if (pm__names_push(pm__spec_role_names(c, r), x, strlen(x)))
				goto oom;
		}
	}
	for (size_t i = 0; i < s->ignore.n; i++)
		if (pm__names_push(&c->ignore, s->ignore.name[i], strlen(s->ignore.name[i])))
			goto oom;
	for (size_t i = 0; i < s->notes.n; i++)
		if (pm__names_push(&c->notes, s->notes.name[i], strlen(s->notes.name[i])))
			goto oom;
	*out = c;
	return PM_OK;
oom:
	pm_spec_free(c);
	return pm__fail(err, PM_ENOMEM, "out of memory");
}

pm_status pm__spec_note(pm_spec *s, pm_error *err, const char *fmt, ...)
{
	char text[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	if (pm__names_push(&s->notes, text, strlen(text)))
		return pm__fail(err, PM_ENOMEM, "out of memory");
	return PM_OK;
}

pm_status pm_spec_set_target(pm_spec *s, const char *target, pm_error *err)
{
	char *copy;

	if (!s || !target)
		return pm__fail(err, PM_EINVAL, "pm_spec_set_target: NULL argument");
	if (!*target)
		return pm__fail(err, PM_ESCHEMA, "empty target column name");
	copy = pm__strndup(target, strlen(target));
	if (!copy)
		return pm__fail(err, PM_ENOMEM, "out of memory");
	free(s->target);
	s->target = copy;
	return PM_OK;
}

/* A copy of name into *out, or NULL for none; 0, or -1 out of memory. */
static int copy_name(const char *name, char **out)
{
	*out = name ? pm__strndup(name, strlen(name)) : NULL;
	return name && !*out ? -1 : 0;
}

pm_status pm_spec_set_target_kind(pm_spec *s, pm_target_kind kind, const char *resource,
				  const char *per, pm_error *err)
{
	char *r, *p;

	if (!s)
		return pm__fail(err, PM_EINVAL, "pm_spec_set_target_kind: no spec");
	if (!pm_target_kind_name(kind))
		return pm__fail(err, PM_EINVAL, "no such target kind (%d)", (int)kind);
	if ((resource && !*resource) || (per && !*per))
		return pm__fail(err, PM_EINVAL, "empty column name in --%s",
				resource && !*resource ? "resource" : "per");
	if (resource && kind != PM_TARGET_SPEEDUP && kind != PM_TARGET_EFFICIENCY)
		return pm__fail(err, PM_EINVAL, "--resource goes with --target-kind speedup or "
				"efficiency, not %s", pm_target_kind_name(kind));
	if (per && kind != PM_TARGET_THROUGHPUT)
		return pm__fail(err, PM_EINVAL, "--per goes with --target-kind throughput (or "
				"--throughput), not %s", pm_target_kind_name(kind));
	if (copy_name(resource, &r))
		return pm__fail(err, PM_ENOMEM, "out of memory");
	if (copy_name(per, &p)) {
		free(r);
		return pm__fail(err, PM_ENOMEM, "out of memory");
	}
	free(s->resource);
	free(s->per);
	s->kind = kind;
	s->resource = r;
	s->per = p;
	return PM_OK;
}

/* ---- the public view ------------------------------------------------------ */

pm_target_kind pm_spec_target_kind(const pm_spec *s) { return s ? s->kind : PM_TARGET_INVALID; }
const char *pm_spec_resource(const pm_spec *s) { return s ? s->resource : NULL; }
const char *pm_spec_per(const pm_spec *s) { return s ? s->per : NULL; }

static int is_list(pm_spec_list list)
{
	return (unsigned)list < NROLES;
}

pm_status pm_spec_add_names(pm_spec *s, pm_spec_list list, const char *names, pm_error *err)
{
	pm_status st;

	if (!s || !is_list(list))
		return pm__fail(err, PM_EINVAL, "pm_spec_add_names: no spec or no such list");
	/* an empty list names no column: --intrinsic "" is "none", which ends
	 * role inference as any list does (issue 20) */
	st = names && !names[strspn(names, " \t\n\r\v\f")]
		     ? PM_OK
		     : pm_names_add_list(pm__spec_role_names(s, (int)list), names, err);
	if (!st && (list == PM_SPEC_INTRINSIC || list == PM_SPEC_CATEGORICAL))
		s->infer_roles = 0;
	return st;
}

pm_status pm_spec_ignore(pm_spec *s, const char *names, pm_error *err)
{
	if (!s)
		return pm__fail(err, PM_EINVAL, "pm_spec_ignore: no spec");
	return pm_names_add_list(&s->ignore, names, err);
}

const pm_names *pm_spec_names(const pm_spec *s, pm_spec_list list)
{
	return s && is_list(list) ? role_names_c(s, (int)list) : NULL;
}

const char *pm_spec_target(const pm_spec *s) { return s ? s->target : NULL; }
const char *pm_spec_form(const pm_spec *s) { return s ? s->form : NULL; }
int pm_spec_infers_roles(const pm_spec *s) { return s ? s->infer_roles : 0; }
pm_bounds pm_spec_bounds(const pm_spec *s) { return s ? s->bounds : pm_bounds_default(); }

static int bound_ok(double lo, double hi)
{
	return isfinite(lo) && isfinite(hi) && lo <= hi;
}

pm_status pm_spec_set_bounds(pm_spec *s, const pm_bounds *b, pm_error *err)
{
	if (!s || !b)
		return pm__fail(err, PM_EINVAL, "pm_spec_set_bounds: NULL argument");
	if (!bound_ok(b->coef_lo, b->coef_hi) || !bound_ok(b->power_lo, b->power_hi) ||
	    !bound_ok(b->const_lo, b->const_hi))
		return pm__fail(err, PM_EINVAL,
				"bounds must be finite with lower <= upper for coefficients, "
				"powers and the constant");
	s->bounds = *b;
	return PM_OK;
}

int pm__spec_is_named_form(const char *form)
{
	return strcmp(form, "additive") == 0 || strcmp(form, "multiplicative") == 0;
}

const char *pm__spec_formula_text(const pm_spec *s)
{
	return s->form && !pm__spec_is_named_form(s->form) ? s->form : NULL;
}

int pm__spec_is_constant_alone(const char *form)
{
	return form[0] == 'C' && form[1 + strspn(form + 1, "_")] == '\0';
}

pm_status pm_spec_set_form(pm_spec *s, const char *form, pm_error *err)
{
	pm_formula *f = NULL;
	char *copy;
	pm_status st;

	if (!s || !form)
		return pm__fail(err, PM_EINVAL, "pm_spec_set_form: NULL argument");
	if (!pm__spec_is_named_form(form) && (st = pm__formula_parse(form, &f, err)))
		return st;
	/* a model of no column is a typo, likely of a form's name, unless it
	 * is the constant alone: "C", the model of a metric no input moves */
	if (f && pm__formula_ncolumns(f) == 0 && !pm__spec_is_constant_alone(form)) {
		pm__formula_free(f);
		return pm__fail(err, PM_EINVAL, "unknown form '%s': expected additive, "
				"multiplicative or a formula of columns, such as 'a * x^p + C'",
				form);
	}
	pm__formula_free(f);
	copy = pm__strndup(form, strlen(form));
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
	pm__strindex extrinsic;
	pm_status st;

	if (!pm__spec_formula_text(s))
		return PM_OK;
	if ((st = pm__formula_parse(s->form, &f, err)))
		return st;
	/* the constant alone ("C") names no column: the roles stay as given
	 * or inferred, the inputs a reader asks about and folds deal by */
	if (!pm__formula_ncolumns(f)) {
		pm__formula_free(f);
		return PM_OK;
	}
	if (pm__names_index(&s->extrinsic, &extrinsic) != 0) {
		pm__formula_free(f);
		return pm__fail(err, PM_ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < pm__formula_ncolumns(f); i++) {
		int level;
		unsigned pos;
		const char *col = pm__formula_column(f, i, &level, &pos);
		int r = level ? 1 : pm__strindex_find(&extrinsic, col) != SIZE_MAX ? 2 : 0;
		size_t c;

		if (pm_dataset_col_index(d, col, &c, NULL) != PM_OK) {
			const char *hint = closest_column(col, d);

			st = pm__fail_at(err, PM_ESCHEMA, "formula", 1, pos,
					 "unknown column '%s' in %s%s%s%s", col, pm_dataset_name(d),
					 hint ? "; did you mean '" : "", hint ? hint : "",
					 hint ? "'?" : "");
			break;
		}
		if (pm__names_push(&role[r], col, strlen(col)) != 0) {
			st = pm__fail(err, PM_ENOMEM, "out of memory");
			break;
		}
	}
	pm__formula_free(f);
	pm__strindex_free(&extrinsic);
	for (int r = 0; r < 3; r++) {
		pm_names *to = pm__spec_role_names(s, r);

		if (!st) {
			pm__names_truncate(to, 0);
			*to = role[r];
		} else {
			pm__names_truncate(&role[r], 0);
		}
	}
	s->infer_roles = 0;
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

static int ignored(const pm_spec *s, const char *name)
{
	for (size_t i = 0; i < s->ignore.n; i++)
		if (strcmp(s->ignore.name[i], name) == 0)
			return 1;
	return 0;
}

/* Take the ignored columns out of every role. Each must be d's column and
 * not the target; a formula's column cannot be ignored, since the formula
 * would lose a term's input: it must be written without it. */
static pm_status drop_ignored(pm_spec *s, const pm_dataset *d, pm_error *err)
{
	const char *formula = pm__spec_formula_text(s);
	pm_status st;

	for (size_t i = 0; i < s->ignore.n; i++) {
		if ((st = need_column(d, s->ignore.name[i], err)))
			return st;
		if (strcmp(s->ignore.name[i], s->target) == 0)
			return pm__fail(err, PM_ESCHEMA, "column '%s' is the target: it cannot be "
					"ignored", s->target);
	}
	for (int r = 0; r < NROLES; r++) {
		pm_names *nm = pm__spec_role_names(s, r);
		size_t kept = 0;

		for (size_t i = 0; i < nm->n; i++) {
			if (!ignored(s, nm->name[i])) {
				nm->name[kept++] = nm->name[i];
				continue;
			}
			if (formula)
				return pm__fail(err, PM_ESCHEMA, "column '%s' is in the formula: "
						"write the formula without it rather than ignore it",
						nm->name[i]);
			free(nm->name[i]);
		}
		nm->n = kept;
	}
	return PM_OK;
}

/* Whether inference leaves numeric column c out as a leak of the target:
 * *leak = 1, with a note saying so. */
static pm_status left_out(pm_spec *s, const pm_dataset *d, size_t c, size_t target, int *leak,
			  pm_error *err)
{
	const char *name = pm_dataset_col_name(d, c);
	char why[256];
	pm__leak l;
	pm_status st = pm__leak_of(d, c, target, &l, err);

	*leak = !st && l.kind != PM__LEAK_NONE;
	if (!*leak)
		return st;
	pm__leak_why(&l, why, sizeof(why));
	return pm__spec_note(s, err, "column '%s' is left out of the inputs inferred, as a part "
			     "or a copy of the target: %s; to use it anyway, name the inputs "
			     "(--intrinsic, --extrinsic), it among them", name, why);
}

static pm_status resolve_roles(pm_spec *s, const pm_dataset *d, pm_error *err)
{
	size_t old_i, old_c, old_n, target;
	struct role_list l;
	pm__strindex used;
	pm_status st;

	if (!s || !d)
		return pm__fail(err, PM_EINVAL, "pm_spec_resolve: NULL argument");
	if (!s->target)
		return pm__fail(err, PM_ESCHEMA,
				"no target column: give --target or \"target\" in the spec");
	if ((st = drop_ignored(s, d, err)) || (st = pm__spec_check_roles(s, NULL, err)))
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
	old_n = s->notes.n;
	if (pm_dataset_col_index(d, s->target, &target, err))
		return PM_ESCHEMA;	/* need_column found it above */
	/* the names the spec uses, checked distinct above: the roles grow
	 * below, but only by columns it does not use, after its items */
	st = pm__strindex_all(&used, role_list_init(&l, s), role_item, &l)
		     ? pm__fail(err, PM_ENOMEM, "out of memory") : PM_OK;
	for (size_t c = 0; c < pm_dataset_ncols(d) && !st; c++) {
		const char *name = pm_dataset_col_name(d, c);
		int numbers = pm_dataset_col_is_numeric(d, c) || pm_dataset_col_has_gaps(d, c);
		int leak = 0;
		pm_names *nm;

		if (strcmp(s->target, name) == 0 || pm__strindex_find(&used, name) != SIZE_MAX ||
		    ignored(s, name))
			continue;
		if (numbers && (st = left_out(s, d, c, target, &leak, err)))
			break;
		if (leak)
			continue;
		nm = numbers ? &s->intrinsic : &s->categorical;
		if (pm__names_push(nm, name, strlen(name)) != 0)
			st = pm__fail(err, PM_ENOMEM, "out of memory");
	}
	pm__strindex_free(&used);
	if (st) {
		pm__names_truncate(&s->intrinsic, old_i);
		pm__names_truncate(&s->categorical, old_c);
		pm__names_truncate(&s->notes, old_n);
		return st;
	}
	s->infer_roles = 0;
	return PM_OK;
}

/* Whether name is a numeric input of the resolved roles. */
static int numeric_role(const pm_spec *s, const char *name)
{
	const pm_names *nm[] = { &s->intrinsic, &s->extrinsic };

	for (size_t g = 0; g < 2; g++)
		for (size_t i = 0; i < nm[g]->n; i++)
			if (strcmp(nm[g]->name[i], name) == 0)
				return 1;
	return 0;
}

/* The columns the target kind's time scale reads: d's, and numeric inputs,
 * since a prediction converts with them; a speedup or efficiency gets the
 * first extrinsic column as its resource when none is named. */
static pm_status resolve_kind(pm_spec *s, const pm_dataset *d, pm_error *err)
{
	const char *kind = pm_target_kind_name(s->kind);
	const char *col[2] = { NULL, NULL }, *opt[2] = { "--resource", "--per" };
	pm_status st;

	if ((s->kind == PM_TARGET_SPEEDUP || s->kind == PM_TARGET_EFFICIENCY) && !s->resource) {
		if (!s->extrinsic.n)
			return pm__fail(err, PM_ESCHEMA, "--target-kind %s is over a resource "
					"(threads, nodes, GPUs), by default the first extrinsic "
					"column; there is none: name it with --resource COL or "
					"--extrinsic COL", kind);
		if (!(s->resource = pm__strndup(s->extrinsic.name[0],
						strlen(s->extrinsic.name[0]))))
			return pm__fail(err, PM_ENOMEM, "out of memory");
	}
	col[0] = s->resource;
	col[1] = s->per;
	for (int k = 0; k < 2; k++) {
		if (!col[k])
			continue;
		if ((st = need_column(d, col[k], err)))
			return st;
		if (!numeric_role(s, col[k]))
			return pm__fail(err, PM_ESCHEMA, "%s '%s' is not a numeric input of the "
					"model: the %s is predicted from it, so name it with "
					"--extrinsic or --intrinsic", opt[k], col[k], kind);
	}
	return PM_OK;
}

pm_status pm_spec_resolve(pm_spec *s, const pm_dataset *d, pm_error *err)
{
	pm_status st = resolve_roles(s, d, err);

	return st ? st : resolve_kind(s, d, err);
}
