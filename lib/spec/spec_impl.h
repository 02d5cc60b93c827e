/* Private spec helpers. */
#ifndef PM_SPEC_IMPL_H
#define PM_SPEC_IMPL_H

#include "core/error.h"
#include "perfmodel/perfmodel.h"

enum { NROLES = 4 };	/* the lists of pm_spec_list, in its order */

struct pm_spec {
	char *target;		/* owned; NULL until set */
	pm_names intrinsic, categorical, extrinsic, workers;
	pm_bounds bounds;
	/* 1 when neither intrinsic nor categorical was named: every column not
	 * otherwise used becomes numeric intrinsic, or categorical if it holds
	 * text, or is left out as a leak of the target, with a note
	 * (pm_spec_resolve decides). */
	int infer_roles;
	/* The model form (owned): NULL or "additive" (eq. 4.4),
	 * "multiplicative", or a formula text (docs/maths.md), whose columns
	 * then are the model's inputs: pm_fit gives level() columns the
	 * categorical role, the others extrinsic if so named, else intrinsic. */
	char *form;
	/* Columns left out of the model (pm_spec_ignore): pm_spec_resolve drops
	 * them from the roles and from role inference. */
	pm_names ignore;
	/* What the target measures (pm_spec_set_target_kind), and the columns
	 * its time scale reads (owned; NULL: none). pm_spec_resolve makes the
	 * first extrinsic column the resource of a speedup or efficiency
	 * without one. */
	pm_target_kind kind;
	char *resource, *per;
	/* What resolving or reading for the spec did that a reader of the
	 * model must know (a column inference left out as a leak, rows
	 * dropped as incomplete): each fit with the spec makes them warnings
	 * of its model. */
	pm_names notes;
};

/* Add a note (printf-style) to s. PM_ENOMEM. */
pm_status pm__spec_note(pm_spec *s, pm_error *err, const char *fmt, ...)
	PM_PRINTF(3, 4);

/* The JSON keys of the lists, in pm_spec_list's order. */
extern const char *const pm__spec_role_key[NROLES];
/* The list of role r (a pm_spec_list). */
pm_names *pm__spec_role_names(pm_spec *s, int r);
/* Every name non-empty, unique within its role, in at most one role and not
 * the target. `file` labels the errors (NULL when the spec has no file). */
pm_status pm__spec_check_roles(const pm_spec *s, const char *file, pm_error *err);
/* "additive" or "multiplicative". */
int pm__spec_is_named_form(const char *form);
/* "C", or "C_", "C__", ... (discover's name for it beside a column C): the
 * formula of the constant alone, a model though it names no column. */
int pm__spec_is_constant_alone(const char *form);

/* A deep copy of s (so that pm_fit can resolve roles without touching the
 * caller's spec). */
pm_status pm__spec_copy(const pm_spec *s, pm_spec **out, pm_error *err);

/* With a formula form, make the formula's columns, which must be d's, the
 * roles (pm_spec's "form"), in order of first use; infer_roles becomes 0.
 * A column d lacks is PM_ESCHEMA placed in the formula. Nothing changes on
 * failure. */
pm_status pm__spec_formula_roles(pm_spec *s, const pm_dataset *d, pm_error *err);

/* Before the fits of a file (lib/analysis/pipeline.c): s's roles resolved
 * against *d when it infers them (a formula's on a copy, as the form may
 * change), so that what inference left out reaches every fit as a note;
 * then a gap (pm_dataset_col_has_gaps) in the target or a numeric input,
 * in *d or *test (may be NULL), is PM_ESCHEMA naming its cell, or with
 * drop its rows are dropped (*d, *test replaced) and counted in a note.
 * Errors: pm_spec_resolve's, those, PM_ENOMEM. */
pm_status pm__spec_complete(pm_spec *s, pm_dataset **d, pm_dataset **test, int drop,
			    pm_error *err);

/* The spec's formula text; NULL for a named form (additive,
 * multiplicative), where every numeric column is under a power. */
const char *pm__spec_formula_text(const pm_spec *s);

#endif
