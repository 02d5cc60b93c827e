/* Model formulas (issue 10, docs/maths.md): a text such as
 *     a * hidden^p1 * batch_size^q1 / world_size^q2
 *       + b * [world_size > 1] * hidden^r1 + C
 * parsed once into terms of factors, then compiled against a model's inputs
 * into the term list of terms.h and named parameters. Pure: no GSL, part of
 * the predict library, so that a saved formula model is rebuilt from its
 * text exactly as the fit built it (model_load.c).
 *
 * Grammar (spaces anywhere between tokens):
 *     formula  := term ('+' term)*
 *     term     := factor (('*' | '/') factor)*
 *     factor   := NAME                       a coefficient (one per term)
 *               | NAME '^' exponent          col^p (fitted p) or col^2 (fixed)
 *               | 'log2' '(' NAME ')' ['^' exponent]
 *               | 'level' '(' NAME ')'       one multiplier per level
 *               | '[' NAME op NUMBER ']'     indicator; op: > >= < <= == !=
 *               | '[' NAME '==' LEVEL ']'    the term is on at that level of a
 *                                            categorical only (one per term)
 *     exponent := NAME | NUMBER | '-' NUMBER | '(' ['-'] NUMBER ')'
 *     NAME     := [A-Za-z_][A-Za-z0-9_.]* | '`' any but '`' '`'
 *     LEVEL    := '"' any, "" for one '"' '"'
 * A term that is a coefficient alone is the constant. '/' divides by a
 * power or log2 factor only. */
#ifndef PM_FORMULA_H
#define PM_FORMULA_H

#include <stddef.h>
#include "model/model_impl.h"

typedef struct pm_formula pm_formula;

/* The longest formula text, in bytes (a formula of a thousand factors). */
#define PM_FORMULA_MAX 16384

/* Parse `text`. Errors are PM_EPARSE placed at "formula", line 1, the
 * 1-based column of the mistake. On success *out owns a new formula. */
pm_status pm__formula_parse(const char *text, pm_formula **out, pm_error *err);
void pm__formula_free(pm_formula *f);	/* NULL: no-op */

/* The columns the formula uses, in order of first use; *level is 1 for a
 * column used in level(), which must then be categorical; *pos: the
 * 1-based column of its first use in the text. */
size_t pm__formula_ncolumns(const pm_formula *f);
const char *pm__formula_column(const pm_formula *f, size_t i, int *level, unsigned *pos);
/* Whether column col is under a power or log2 somewhere in f: its values
 * must then be > 0; a column only in indicators may take any finite value. */
int pm__formula_powered(const pm_formula *f, const char *col);

/* The term list of f over inputs in[0..ninputs), and its parameters in
 * order of first use: *desc and *name (malloc'd arrays of nparams; names
 * malloc'd). PM_EPARSE placed in the formula for a column that is not an
 * input or has the wrong kind (a categorical under a power, level() of a
 * numeric), a name used both as a coefficient and a power, a coefficient
 * used twice, two constants. */
pm_status pm__formula_compile(const pm_formula *f, size_t ninputs, const pm_input *in,
			      pm_terms *t, pm_param_desc **desc, char ***name,
			      size_t *nparams, pm_error *err);

/* The multiplicative form's formula over inputs named name[0..n) of the
 * given roles: a * I_1^p_I_1 * ... * level(c_1) * ... * E_1^q_E_1 * ... + C
 * (malloc'd; names that are not plain identifiers are quoted). */
pm_status pm__formula_multiplicative(size_t n, const char *const *name, const pm_role *role,
				     char **out, pm_error *err);

#endif
