#include "model/formula.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/numcodec.h"
#include "core/utf8.h"

/* A factor as written; names point into pm_formula.names. */
struct item {
	pm_factor_kind kind;
	const char *col;
	const char *power;	/* a fitted power's name; NULL: fixed */
	double mult;		/* fitted: -1 after '/', else 1; fixed: the power,
				 * negated after '/' */
	pm_cmp op;
	double threshold;
	unsigned pos, power_pos;	/* 1-based columns in the text */
};

struct term {
	const char *coef;
	unsigned pos;		/* of the coefficient, or of the term */
	size_t first, n;	/* items[first .. first+n), the coefficient excluded */
	const char *sel_col;	/* [sel_col == "sel_level"]: the term is on at that
				 * level only (NULL: everywhere) */
	const char *sel_level;
	unsigned sel_pos;
};

struct pm_formula {
	char *names;		/* a copy of text with a NUL after each name */
	struct item *item;
	size_t nitems;
	struct term *term;
	size_t nterms;
	const char **col;	/* distinct columns, in order of first use */
	int *col_level;
	unsigned *col_pos;
	size_t ncols;
};

struct parser {
	const char *s;
	size_t i;
	pm_formula *f;
	pm_error *err;
};

void pm__formula_free(pm_formula *f)
{
	if (!f)
		return;
	free(f->names);
	free(f->item);
	free(f->term);
	free(f->col);
	free(f->col_level);
	free(f->col_pos);
	free(f);
}

size_t pm__formula_ncolumns(const pm_formula *f)
{
	return f->ncols;
}

const char *pm__formula_column(const pm_formula *f, size_t i, int *level, unsigned *pos)
{
	*level = f->col_level[i];
	*pos = f->col_pos[i];
	return f->col[i];
}

static pm_status fail_at(pm_error *err, size_t pos, const char *fmt, ...) PM_PRINTF(3, 4);

/* PM_EPARSE at 1-based column pos + 1 of the formula. */
static pm_status fail_at(pm_error *err, size_t pos, const char *fmt, ...)
{
	char msg[400];
	va_list ap;

	va_start(ap, fmt);
	pm_vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return pm__fail_at(err, PM_EPARSE, "formula", 1, (unsigned)(pos + 1), "%s", msg);
}

static void skip_space(struct parser *p)
{
	while (p->s[p->i] == ' ' || p->s[p->i] == '\t' || p->s[p->i] == '\n' ||
	       p->s[p->i] == '\r')
		p->i++;
}

static int name_start(char c)
{
	/* ASCII, not isalpha: the user's LC_CTYPE must not change what a name is */
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static int name_char(char c)
{
	return name_start(c) || (c >= '0' && c <= '9') || c == '.';
}

/* A NAME at p->i: *out points at its NUL-terminated copy in f->names. */
static pm_status name(struct parser *p, const char *what, const char **out)
{
	size_t start;

	skip_space(p);
	start = p->i;
	if (p->s[p->i] == '`') {
		const char *end = strchr(p->s + p->i + 1, '`');

		if (!end)
			return fail_at(p->err, start, "unclosed '`' in %s", what);
		if (end == p->s + p->i + 1)
			return fail_at(p->err, start, "empty `` in %s", what);
		p->f->names[end - p->s] = '\0';
		*out = p->f->names + start + 1;
		p->i = (size_t)(end - p->s) + 1;
		return PM_OK;
	}
	if (!name_start(p->s[p->i]))
		return fail_at(p->err, start, "expected %s, found %s", what,
			       p->s[p->i] ? "another character" : "the end");
	while (name_char(p->s[p->i]))
		p->i++;
	/* the byte after a name is an operator, a space or the end: no name
	 * needs it, so it becomes the name's terminator in the copy */
	p->f->names[p->i] = '\0';
	*out = p->f->names + start;
	return PM_OK;
}

static pm_status number(struct parser *p, double *out)
{
	char *end;

	skip_space(p);
	if (!(isdigit((unsigned char)p->s[p->i]) || p->s[p->i] == '.' || p->s[p->i] == '-' ||
	      p->s[p->i] == '+'))
		return fail_at(p->err, p->i, "expected a number");
	*out = pm_strtod(p->s + p->i, &end);
	if (end == p->s + p->i || !isfinite(*out))
		return fail_at(p->err, p->i, "expected a finite number");
	p->i = (size_t)(end - p->s);
	return PM_OK;
}

static int eat(struct parser *p, const char *tok)
{
	size_t n = strlen(tok);

	skip_space(p);
	if (strncmp(p->s + p->i, tok, n) != 0)
		return 0;
	p->i += n;
	return 1;
}

static pm_status expect(struct parser *p, const char *tok)
{
	if (eat(p, tok))
		return PM_OK;
	return fail_at(p->err, p->i, "expected '%s'", tok);
}

/* '^' exponent, or nothing (a fixed power 1); the sign of a division. */
static pm_status exponent(struct parser *p, struct item *it, double sign)
{
	int paren;

	it->mult = sign;
	if (!eat(p, "^"))
		return PM_OK;
	skip_space(p);
	it->power_pos = (unsigned)p->i + 1;
	if (name_start(p->s[p->i]) || p->s[p->i] == '`')
		return name(p, "a power name or number", &it->power);
	paren = eat(p, "(");
	if (number(p, &it->mult))
		return PM_EPARSE;
	/* x^(1/3): a fraction no decimal writes, in parentheses */
	if (paren && eat(p, "/")) {
		double den;
		size_t at = p->i;

		if (number(p, &den))
			return PM_EPARSE;
		if (den == 0)
			return fail_at(p->err, at, "a power divided by 0");
		it->mult /= den;
	}
	it->mult *= sign;
	return paren ? expect(p, ")") : PM_OK;
}

static void add_column(pm_formula *f, const char *col, int level, unsigned pos)
{
	for (size_t i = 0; i < f->ncols; i++)
		if (strcmp(f->col[i], col) == 0) {
			f->col_level[i] |= level;
			return;
		}
	f->col[f->ncols] = col;
	f->col_pos[f->ncols] = pos;
	f->col_level[f->ncols++] = level;
}

/* A level in double quotes at p->i ("" inside is one "), copied to
 * f->names in place: *out points at it, NUL-terminated. */
static pm_status level_name(struct parser *p, const char **out)
{
	size_t start = p->i, len = 0;
	char *to = p->f->names + start;

	for (p->i++;; p->i++) {
		if (!p->s[p->i])
			return fail_at(p->err, start, "unclosed '\"' in a level name");
		if (p->s[p->i] == '"' && p->s[p->i + 1] != '"')
			break;
		p->i += p->s[p->i] == '"';
		to[len++] = p->s[p->i];
	}
	p->i++;
	if (!len)
		return fail_at(p->err, start, "an empty level name");
	to[len] = '\0';
	*out = to;
	return PM_OK;
}

/* [col == "level"] after its column and operator: not a factor, the term's
 * level (terms.h, pm_term.level_input), so at most one per term. */
static pm_status level_selector(struct parser *p, struct term *tm, const struct item *it,
				size_t at)
{
	pm_status st;

	if (it->op != PM_CMP_EQ)
		return fail_at(p->err, at, "a level can only be compared with '==': "
			       "[%s == \"level\"]", it->col);
	if (tm->sel_col)
		return fail_at(p->err, at, "a second level in one term: a term is on at one "
			       "level of one column (write one term per level)");
	tm->sel_col = it->col;
	tm->sel_pos = it->pos;
	if ((st = level_name(p, &tm->sel_level)) || (st = expect(p, "]")))
		return st;
	add_column(p->f, it->col, 1, it->pos);
	return PM_OK;
}

static pm_status factor(struct parser *p, struct term *tm, double sign)
{
	struct item it = { .mult = 1.0 };
	const char *id;
	size_t at;
	pm_status st;

	skip_space(p);
	at = p->i;
	it.pos = (unsigned)at + 1;
	if (eat(p, "[")) {
		static const char *const ops[] = { ">=", "<=", "==", "!=", ">", "<" };
		static const pm_cmp op_of[] = { PM_CMP_GE, PM_CMP_LE, PM_CMP_EQ, PM_CMP_NE,
						PM_CMP_GT, PM_CMP_LT };
		size_t o;

		if (sign < 0)
			return fail_at(p->err, at, "only a power or log2 factor can follow '/'");
		it.kind = PM_FACTOR_INDICATOR;
		if ((st = name(p, "a column name", &it.col)))
			return st;
		for (o = 0; o < 6 && !eat(p, ops[o]); o++)
			;
		if (o == 6)
			return fail_at(p->err, p->i, "expected a comparison (> >= < <= == !=)");
		it.op = op_of[o];
		skip_space(p);
		if (p->s[p->i] == '"')
			return level_selector(p, tm, &it, at);
		if ((st = number(p, &it.threshold)) || (st = expect(p, "]")))
			return st;
	} else {
		if ((st = name(p, "a name, log2(...), level(...) or [...]", &id)))
			return st;
		skip_space(p);
		if ((strcmp(id, "log2") == 0 || strcmp(id, "level") == 0) && p->s[p->i] == '(') {
			it.kind = strcmp(id, "log2") == 0 ? PM_FACTOR_LOG2 : PM_FACTOR_LEVEL;
			if (it.kind == PM_FACTOR_LEVEL && sign < 0)
				return fail_at(p->err, at, "only a power or log2 factor can follow '/'");
			if ((st = expect(p, "(")) || (st = name(p, "a column name", &it.col)) ||
			    (st = expect(p, ")")))
				return st;
			if (it.kind == PM_FACTOR_LOG2 && (st = exponent(p, &it, sign)))
				return st;
		} else if (p->s[p->i] == '^') {
			it.col = id;
			if ((st = exponent(p, &it, sign)))
				return st;
		} else {
			if (sign < 0)
				return fail_at(p->err, at, "'%s' is a coefficient: it cannot follow "
					       "'/' (a column needs a power: %s^1)", id, id);
			if (tm->coef)
				return fail_at(p->err, at, "a second coefficient '%s' in one term "
					       "(a column needs a power: %s^1)", id, id);
			tm->coef = id;
			tm->pos = (unsigned)at + 1;
			return PM_OK;
		}
	}
	add_column(p->f, it.col, it.kind == PM_FACTOR_LEVEL, it.pos);
	p->f->item[p->f->nitems++] = it;
	tm->n++;
	return PM_OK;
}

static pm_status term(struct parser *p)
{
	struct term *tm = &p->f->term[p->f->nterms];
	size_t at;
	pm_status st;

	skip_space(p);
	at = p->i;
	*tm = (struct term){ .pos = (unsigned)at + 1, .first = p->f->nitems };
	if ((st = factor(p, tm, 1.0)))
		return st;
	for (;;) {
		double sign;

		if (eat(p, "*"))
			sign = 1.0;
		else if (eat(p, "/"))
			sign = -1.0;
		else
			break;
		if ((st = factor(p, tm, sign)))
			return st;
	}
	if (!tm->coef)
		return fail_at(p->err, at, "this term has no coefficient: begin it with a name, "
			       "as in 'a * x^p'");
	p->f->nterms++;
	return PM_OK;
}

int pm__formula_powered(const pm_formula *f, const char *col)
{
	for (size_t k = 0; k < f->nitems; k++)
		if ((f->item[k].kind == PM_FACTOR_POWER || f->item[k].kind == PM_FACTOR_LOG2) &&
		    strcmp(f->item[k].col, col) == 0)
			return 1;
	return 0;
}

pm_status pm__formula_parse(const char *text, pm_formula **out, pm_error *err)
{
	size_t len, n;
	struct parser p = { text, 0, NULL, err };
	pm_formula *f;
	pm_status st;

	*out = NULL;
	if (!text)
		return pm__fail(err, PM_EINVAL, "no formula");
	len = strlen(text);
	/* compiling compares each name and factor with the earlier ones: bound
	 * the text, which a model file may bring, so that this stays cheap */
	if (len > PM_FORMULA_MAX)
		return fail_at(err, PM_FORMULA_MAX, "a formula of more than %d bytes",
			       PM_FORMULA_MAX);
	/* its names become the model's inputs and parameters' names */
	for (size_t i = 0, k; i < len; i += k)
		if (!(k = pm__utf8_length(text + i, len - i)))
			return fail_at(err, i, "not UTF-8 text (byte 0x%02x)", (unsigned char)text[i]);
	/* every factor and term is at least one byte of text */
	n = len + 1;
	f = calloc(1, sizeof(*f));
	if (!f)
		return pm__fail(err, PM_ENOMEM, "out of memory");
	f->names = malloc(len + 1);
	f->item = malloc(n * sizeof(*f->item));
	f->term = malloc(n * sizeof(*f->term));
	f->col = malloc(n * sizeof(*f->col));
	f->col_level = malloc(n * sizeof(*f->col_level));
	f->col_pos = malloc(n * sizeof(*f->col_pos));
	if (!f->names || !f->item || !f->term || !f->col || !f->col_level ||
	    !f->col_pos) {
		pm__formula_free(f);
		return pm__fail(err, PM_ENOMEM, "out of memory");
	}
	memcpy(f->names, text, len + 1);
	p.f = f;
	st = term(&p);
	while (!st && eat(&p, "+"))
		st = term(&p);
	skip_space(&p);
	if (!st && text[p.i])
		st = fail_at(err, p.i, "expected '+', '*', '/' or the end");
	if (st) {
		pm__formula_free(f);
		return st;
	}
	*out = f;
	return PM_OK;
}

/* ---- compiling against the inputs ----------------------------------------- */

struct compiler {
	const pm_formula *f;
	size_t ninputs;
	const pm_input *in;
	pm_terms *t;
	pm_param_desc *desc;
	char **name;
	size_t np;
	uint32_t *level_param;	/* per input: its first log multiplier, or PM_NONE */
	int has_const;
	pm_error *err;
};

static size_t find_param(const struct compiler *c, const char *name)
{
	for (size_t k = 0; k < c->np; k++)
		if (strcmp(c->name[k], name) == 0)
			return k;
	return SIZE_MAX;
}

static pm_status add_param(struct compiler *c, const char *name, pm_param_desc d)
{
	if (!(c->name[c->np] = strdup(name)))
		return pm__fail(c->err, PM_ENOMEM, "out of memory");
	c->desc[c->np++] = d;
	return PM_OK;
}

static pm_status input_of(const struct compiler *c, const struct item *it, uint32_t *out)
{
	for (size_t i = 0; i < c->ninputs; i++)
		if (strcmp(c->in[i].name, it->col) == 0) {
			int cat = c->in[i].role == PM_ROLE_CATEGORICAL;

			if (cat && it->kind != PM_FACTOR_LEVEL)
				return fail_at(c->err, it->pos - 1, "column '%s' is categorical: "
					       "use level(%s) or [%s == \"level\"]", it->col,
					       it->col, it->col);
			if (!cat && it->kind == PM_FACTOR_LEVEL)
				return fail_at(c->err, it->pos - 1, "column '%s' is numeric, not "
					       "categorical: no level() or [%s == \"level\"]",
					       it->col, it->col);
			*out = (uint32_t)i;
			return PM_OK;
		}
	return fail_at(c->err, it->pos - 1, "unknown column '%s'", it->col);
}

/* The parameter of a fitted power named it->power, made at first use. */
static pm_status power_param(struct compiler *c, const struct item *it, uint32_t input,
			     uint32_t *out)
{
	size_t k = find_param(c, it->power);
	pm_status st;

	if (k == SIZE_MAX) {
		pm_param_kind kind = c->in[input].role == PM_ROLE_EXTRINSIC ? PM_PARAM_SCALING
									   : PM_PARAM_POWER;

		k = c->np;
		if ((st = add_param(c, it->power, (pm_param_desc){ kind, input, 0 })))
			return st;
	} else if (c->desc[k].kind != PM_PARAM_POWER && c->desc[k].kind != PM_PARAM_SCALING) {
		return fail_at(c->err, it->power_pos - 1,
			       "'%s' is a coefficient: it cannot also be a power", it->power);
	}
	*out = (uint32_t)k;
	return PM_OK;
}

/* The log multipliers of levels 1.. of input i, made at first use. */
static pm_status level_params(struct compiler *c, uint32_t i, uint32_t *out)
{
	const pm_input *in = &c->in[i];
	pm_status st;

	if (c->level_param[i] == PM_NONE && in->nlevels > 1) {
		c->level_param[i] = (uint32_t)c->np;
		for (size_t v = 1; v < in->nlevels; v++) {
			size_t n = strlen(in->name) + strlen(in->levels[v]) + 5;
			char *s = malloc(n);

			if (!s)
				return pm__fail(c->err, PM_ENOMEM, "out of memory");
			snprintf(s, n, "lm_%s=%s", in->name, in->levels[v]);
			st = add_param(c, s, (pm_param_desc){ PM_PARAM_LOGMULT, i, (uint32_t)v });
			free(s);
			if (st)
				return st;
		}
	}
	*out = c->level_param[i];
	return PM_OK;
}

static pm_status compile_item(struct compiler *c, const struct item *it, uint32_t *fi)
{
	pm_factor fa = { .kind = it->kind, .power = PM_NONE, .negate = it->power && it->mult < 0,
			 .fixed = it->power ? 0.0 : it->mult, .op = it->op,
			 .threshold = it->threshold };
	pm_terms *t = c->t;
	pm_status st;

	if ((st = input_of(c, it, &fa.input)))
		return st;
	if (it->kind == PM_FACTOR_LEVEL)
		st = level_params(c, fa.input, &fa.power);
	else if (it->power)
		st = power_param(c, it, fa.input, &fa.power);
	if (st)
		return st;
	/* one factor per distinct function of the inputs: shared factors are
	 * what the fit's plan tabulates once (cost.h) */
	for (size_t f = 0; f < t->nfactors; f++) {
		const pm_factor *g = &t->factor[f];

		if (g->input == fa.input && g->kind == fa.kind && g->power == fa.power &&
		    g->negate == fa.negate && g->fixed == fa.fixed && g->op == fa.op &&
		    g->threshold == fa.threshold) {
			*fi = (uint32_t)f;
			return PM_OK;
		}
	}
	t->factor[t->nfactors] = fa;
	*fi = (uint32_t)t->nfactors++;
	return PM_OK;
}

/* The input and level of tm's [col == "level"]. */
static pm_status selected_level(const struct compiler *c, const struct term *tm, pm_term *out)
{
	const struct item it = { .kind = PM_FACTOR_LEVEL, .col = tm->sel_col, .pos = tm->sel_pos };
	const pm_input *in;
	pm_status st;

	if ((st = input_of(c, &it, &out->level_input)))
		return st;
	in = &c->in[out->level_input];
	for (size_t v = 0; v < in->nlevels; v++)
		if (strcmp(in->levels[v], tm->sel_level) == 0) {
			out->level = (uint32_t)v;
			return PM_OK;
		}
	return fail_at(c->err, tm->sel_pos - 1, "column '%s' has no level \"%.200s\"", in->name,
		       tm->sel_level);
}

static pm_status compile_term(struct compiler *c, const struct term *tm)
{
	pm_terms *t = c->t;
	pm_term *out = &t->term[t->nterms];
	size_t nref = out == t->term ? 0 : out[-1].first + out[-1].nfactors;
	pm_param_kind kind = tm->n || tm->sel_col ? PM_PARAM_COEF : PM_PARAM_CONST;
	size_t k = find_param(c, tm->coef);
	pm_status st;

	if (k != SIZE_MAX)
		return fail_at(c->err, tm->pos - 1,
			       c->desc[k].kind == PM_PARAM_POWER || c->desc[k].kind == PM_PARAM_SCALING
				       ? "'%s' is a power: it cannot also be a coefficient"
				       : "'%s' is used twice: each term needs a coefficient of its own",
			       tm->coef);
	if (kind == PM_PARAM_CONST && c->has_const++)
		return fail_at(c->err, tm->pos - 1, "a second constant '%s'", tm->coef);
	*out = (pm_term){ (uint32_t)c->np, PM_NONE, 0, (uint32_t)nref, (uint32_t)tm->n };
	if (tm->sel_col && (st = selected_level(c, tm, out)))
		return st;
	if ((st = add_param(c, tm->coef, (pm_param_desc){ kind, PM_NONE, 0 })))
		return st;
	for (size_t j = 0; j < tm->n; j++)
		if ((st = compile_item(c, &c->f->item[tm->first + j], &t->ref[nref + j])))
			return st;
	t->nterms++;
	return PM_OK;
}

pm_status pm__formula_compile(const pm_formula *f, size_t ninputs, const pm_input *in,
			      pm_terms *t, pm_param_desc **desc, char ***name,
			      size_t *nparams, pm_error *err)
{
	/* at most one parameter per term and item, plus every level's */
	size_t maxp = f->nterms + f->nitems + 1;
	struct compiler c = { f, ninputs, in, t, NULL, NULL, 0, NULL, 0, err };
	pm_status st = PM_OK;

	*t = (pm_terms){ 0 };
	*desc = NULL;
	*name = NULL;
	*nparams = 0;
	for (size_t i = 0; i < ninputs; i++)
		maxp += in[i].nlevels;
	t->factor = malloc((f->nitems + 1) * sizeof(*t->factor));
	t->term = malloc((f->nterms + 1) * sizeof(*t->term));
	t->ref = malloc((f->nitems + 1) * sizeof(*t->ref));
	c.desc = malloc(maxp * sizeof(*c.desc));
	c.name = calloc(maxp, sizeof(*c.name));
	c.level_param = malloc((ninputs + 1) * sizeof(*c.level_param));
	if (!t->factor || !t->term || !t->ref || !c.desc || !c.name || !c.level_param) {
		st = pm__fail(err, PM_ENOMEM, "out of memory");
		goto fail;
	}
	for (size_t i = 0; i < ninputs; i++)
		c.level_param[i] = PM_NONE;
	for (size_t k = 0; k < f->nterms && !st; k++)
		st = compile_term(&c, &f->term[k]);
	if (st)
		goto fail;
	free(c.level_param);
	*desc = c.desc;
	*name = c.name;
	*nparams = c.np;
	return PM_OK;
fail:
	for (size_t k = 0; c.name && k < c.np; k++)
		free(c.name[k]);
	free(c.name);
	free(c.desc);
	free(c.level_param);
	pm__terms_free(t);
	return st;
}

/* ---- the multiplicative form ---------------------------------------------- */

/* Append prefix, then the name pre + s, quoted unless it is a plain NAME. */
static void put(char *buf, size_t *len, const char *prefix, const char *pre, const char *s)
{
	int quote = !name_start(pre[0] ? pre[0] : s[0]);

	for (const char *q = s; *q && !quote; q++)
		quote = !name_char(*q);
	*len += (size_t)sprintf(buf + *len, "%s%s%s%s%s", prefix, quote ? "`" : "", pre, s,
				quote ? "`" : "");
}

pm_status pm__formula_multiplicative(size_t n, const char *const *name, const pm_role *role,
				     char **out, pm_error *err)
{
	size_t size = 16, len = 0;
	char *buf;

	for (size_t i = 0; i < n; i++)
		size += 2 * strlen(name[i]) + 24;
	buf = malloc(size);
	*out = buf;
	if (!buf)
		return pm__fail(err, PM_ENOMEM, "out of memory");
	len += (size_t)sprintf(buf, "a");
	for (int r = PM_ROLE_INTRINSIC; r <= PM_ROLE_EXTRINSIC; r++)
		for (size_t i = 0; i < n; i++) {
			if (role[i] != (pm_role)r)
				continue;
			if (r == PM_ROLE_CATEGORICAL) {
				put(buf, &len, " * level(", "", name[i]);
				len += (size_t)sprintf(buf + len, ")");
				continue;
			}
			put(buf, &len, " * ", "", name[i]);
			put(buf, &len, "^", r == PM_ROLE_EXTRINSIC ? "q_" : "p_", name[i]);
		}
	sprintf(buf + len, " + C");
	return PM_OK;
}
