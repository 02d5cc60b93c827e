/*
 * perfmodel/spec.h — the model spec: which column plays which role, the
 * form, the bounds of the fit's parameters, the target's kind. Included by
 * perfmodel.h; the conventions there hold.
 */
#ifndef PERFMODEL_SPEC_H
#define PERFMODEL_SPEC_H

#include <stddef.h>
#include "perfmodel/predict.h"
#include "perfmodel/dataset.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- model spec: which column plays which role ---------------------------- */
/* A list of names; { 0 } is empty. Both the array and the names are owned
 * (malloc'd): pm_names_add_list reallocates the array, with room to spare
 * so that adding n names costs time linear in n, and pm_names_clear frees
 * both. */
typedef struct pm_names {
	size_t n;
	char **name;	/* owned */
} pm_names;

typedef struct pm_bounds {
	double coef_lo, coef_hi;	/* a_i and b_{c,v} */
	double power_lo, power_hi;	/* p_i and q_j */
	double const_lo, const_hi;	/* C */
} pm_bounds;

/* Which column plays which role (DESIGN.md §5): opaque, built by
 * pm_spec_new, pm_spec_read_file or pm_spec_parse and changed by the setters
 * below. A spec with neither intrinsic nor categorical columns named infers
 * the roles: every column not otherwise used becomes numeric intrinsic
 * (numbers, with gaps or not: pm_dataset_col_has_gaps), or categorical if
 * it holds text, except a part or a copy of the target, which is left out
 * (docs/formats.md, "Leaks"; the fit's model says so in a warning).
 * pm_spec_resolve decides. */
typedef struct pm_spec pm_spec;

/* The spec's lists of column names. */
typedef enum pm_spec_list {
	PM_SPEC_INTRINSIC = 0,
	PM_SPEC_CATEGORICAL,
	PM_SPEC_EXTRINSIC,
	PM_SPEC_WORKERS		/* per-worker times (load imbalance, thesis §3) */
} pm_spec_list;

/* The thesis's bounds: a, b, C in [0, 1000]; p, q in [-5, 5]. */
PM_API pm_bounds pm_bounds_default(void);
/* An empty spec with default bounds and infer_roles = 1. */
PM_API pm_status pm_spec_new(pm_spec **out, pm_error *err);
PM_API void pm_spec_free(pm_spec *s);
/* Read models/NAME.json. Errors: PM_EIO, PM_EPARSE (line/column), PM_ESCHEMA
 * (unknown key, wrong type, missing target, bound with lo > hi, a column in
 * two roles, a name twice in one list). Its "ignore" list is what
 * pm_spec_ignore adds to. */
PM_API pm_status pm_spec_read_file(const char *path, pm_spec **out, pm_error *err);
PM_API pm_status pm_spec_parse(const char *json, const char *name, pm_spec **out,
			       pm_error *err);
/* Append a comma-separated list of names ("a,b") to a role. */
PM_API pm_status pm_names_add_list(pm_names *names, const char *list, pm_error *err);
/* Empty a role (NULL is fine). */
PM_API void pm_names_clear(pm_names *names);
PM_API pm_status pm_spec_set_target(pm_spec *s, const char *target, pm_error *err);
/* Append a comma-separated list of names ("a,b") to one of the spec's lists;
 * an empty list ("", or blanks) adds none. Naming intrinsic or categorical
 * columns, even none, ends role inference: the spec then uses the columns
 * named and no others (--intrinsic "" means no intrinsic column). Errors as
 * pm_names_add_list; PM_EINVAL for no spec or a list that is not one. */
PM_API pm_status pm_spec_add_names(pm_spec *s, pm_spec_list list, const char *names,
				   pm_error *err);
/* Leave the columns of a comma-separated list ("a,b") out of the model:
 * pm_spec_resolve takes them out of every role and out of role inference
 * (a way to drop a column the identifiability checks warn about, or one a
 * spec file names, without editing it). Role inference goes on. The list
 * adds to the spec file's "ignore". Errors as pm_names_add_list (a column
 * already ignored is one); PM_EINVAL for no spec. pm_spec_resolve then fails
 * (PM_ESCHEMA) for a column the data lacks, the target, or a column of the
 * formula. */
PM_API pm_status pm_spec_ignore(pm_spec *s, const char *names, pm_error *err);
/* A list's names, owned by the spec: valid until the spec is changed or
 * freed. NULL for no spec or a list that is not one. */
PM_API const pm_names *pm_spec_names(const pm_spec *s, pm_spec_list list);
/* The target column (NULL until set), the form (NULL: additive, else
 * "additive", "multiplicative" or a formula), owned by the spec as above. */
PM_API const char *pm_spec_target(const pm_spec *s);
PM_API const char *pm_spec_form(const pm_spec *s);
/* 1 while the spec infers the roles (see pm_spec), else 0. */
PM_API int pm_spec_infers_roles(const pm_spec *s);
/* The bounds of the fit's parameters (pm_bounds_default() until set). Set:
 * PM_EINVAL unless every bound is finite with lo <= hi. */
PM_API pm_bounds pm_spec_bounds(const pm_spec *s);
PM_API pm_status pm_spec_set_bounds(pm_spec *s, const pm_bounds *b, pm_error *err);
/* Set the form: "additive", "multiplicative" or a formula, checked here:
 * PM_EPARSE placed at "formula", line 1, the column of the mistake. */
PM_API pm_status pm_spec_set_form(pm_spec *s, const char *form, pm_error *err);
/* What the target measures (pm_target_kind, predict.h; docs/maths.md):
 * the fit works on the time scale it implies and the model reports,
 * predicts and evaluates in the target's own quantity. resource (column
 * names, copied; NULL: none): the n a speedup or efficiency is over, by
 * default (pm_spec_resolve) the first extrinsic column; per: the column
 * a throughput is per (time scale per/X; NULL: 1/X). Both must be numeric
 * inputs of the model, which predicts from them. PM_EINVAL: no spec, no
 * such kind, an empty name, a resource for a kind other than speedup or
 * efficiency, a per for a kind other than throughput ("--per goes with
 * --target-kind throughput"); the spec is unchanged then. */
PM_API pm_status pm_spec_set_target_kind(pm_spec *s, pm_target_kind kind, const char *resource,
					 const char *per, pm_error *err);
/* The kind (PM_TARGET_TIME until set; PM_TARGET_INVALID for no spec), the
 * resource and per columns (NULL: none; owned by the spec as above). */
PM_API pm_target_kind pm_spec_target_kind(const pm_spec *s);
PM_API const char *pm_spec_resource(const pm_spec *s);
PM_API const char *pm_spec_per(const pm_spec *s);
/* Check the spec against a dataset, and when infer_roles is set, give every
 * unused column a role. A speedup or efficiency without a resource gets the
 * first extrinsic column. Errors: PM_ESCHEMA for a named column the data
 * lacks, a column in two roles, no target, a speedup or efficiency with
 * neither a resource nor an extrinsic column, a resource or per that is
 * not a numeric input; afterwards infer_roles is 0. */
PM_API pm_status pm_spec_resolve(pm_spec *s, const pm_dataset *d, pm_error *err);

#ifdef __cplusplus
}
#endif
#endif
