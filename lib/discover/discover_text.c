/* A hypothesis of perfmodel discover in the formula language that
 * pm_spec_set_form reads (docs/maths.md, "Model formulas"): c1 * level(cat)
 * * x^e * log2(x)^j * [y > v] + ... + C, or b * level(cat) for offsets. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/numcodec.h"
#include "discover/discover_impl.h"

/* A column name as the formula language reads it: bare, or in backquotes. */
static size_t quoted(char *out, size_t size, const char *name)
{
	int bare = (name[0] == '_' || (name[0] >= 'A' && name[0] <= 'Z') ||
		    (name[0] >= 'a' && name[0] <= 'z')) &&
		   strcmp(name, "log2") != 0 && strcmp(name, "level") != 0;

	for (const char *c = name; *c && bare; c++)
		bare = *c == '_' || *c == '.' || (*c >= '0' && *c <= '9') ||
		       (*c >= 'A' && *c <= 'Z') || (*c >= 'a' && *c <= 'z');
	return (size_t)snprintf(out, size, bare ? "%s" : "`%s`", name);
}

struct text {
	char *buf;
	size_t len, cap;
	int failed;
};

static void put(struct text *t, const char *fmt, ...) PM_PRINTF(2, 3);

static void put(struct text *t, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (t->failed)
		return;
	for (;;) {
		va_start(ap, fmt);
		n = pm_vsnprintf(t->buf + t->len, t->cap - t->len, fmt, ap);
		va_end(ap);
		if (n < 0) {
			t->failed = 1;
			return;
		}
		if ((size_t)n < t->cap - t->len)
			break;
		char *b = realloc(t->buf, 2 * t->cap + (size_t)n + 1);

		if (!b) {
			t->failed = 1;
			return;
		}
		t->buf = b;
		t->cap = 2 * t->cap + (size_t)n + 1;
	}
	t->len += (size_t)n;
}

static void put_name(struct text *t, const char *name)
{
	char q[600];

	if (quoted(q, sizeof(q), name) >= sizeof(q))
		t->failed = 1;
	else
		put(t, "%s", q);
}

static void coefficient(struct text *t, const struct search *s, const char *base, unsigned k);

/* " * [cat == "level"]" for level l of categorical c ("" for a '"'). */
static void put_level(struct text *t, const struct search *s, size_t c, uint32_t l)
{
	const pm_dataset *d = s->d;

	put(t, " * [");
	put_name(t, pm_dataset_col_name(d, s->cat[c]));
	put(t, " == \"");
	for (const char *q = pm_dataset_level_name(d, s->cat[c], l); *q; q++)
		put(t, *q == '"' ? "\"\"" : "%c", *q);
	put(t, "\"]");
}

/* e as the formula writes it: a third as a fraction ("1/3", "-4/3"; no
 * decimal writes it), another as its shortest decimal. */
static void exponent_text(char num[PM_NUM_MAX], double e)
{
	double thirds = e * 3;

	if (thirds == nearbyint(thirds) && fmod(thirds, 3) != 0)
		snprintf(num, PM_NUM_MAX, "%d/3", (int)thirds);
	else
		pm__num_format(num, e);
}

/* Factor f; with *power > 0 its exponent is a fitted power named p<*power>
 * (counted on), else the fixed number. */
static void put_factor(struct text *t, const struct search *s, const struct factor *f,
		       unsigned *power)
{
	const char *name = s->in[f->input].name;
	char num[PM_NUM_MAX];

	if (f->kind != F_POWER) {
		pm__num_format(num, f->thr);
		put(t, " * [");
		put_name(t, name);
		put(t, f->kind == F_INDICATOR ? " > %s]" : " <= %s]", num);
		return;
	}
	if (f->e != 0) {
		put(t, " * ");
		put_name(t, name);
		exponent_text(num, f->e);
		if (*power) {
			put(t, "^");
			coefficient(t, s, "p", (*power)++);
		} else {
			/* ^1 too: a bare column would read as a second coefficient */
			put(t, f->e > 0 && f->e == floor(f->e) ? "^%s" : "^(%s)", num);
		}
	}
	if (f->j) {
		put(t, " * log2(");
		put_name(t, name);
		put(t, f->j > 1 ? ")^%u" : ")", f->j);
	}
}

/* A coefficient name no column has: base, else base with _ appended. */
static void coefficient(struct text *t, const struct search *s, const char *base, unsigned k)
{
	char name[64];
	size_t col;

	snprintf(name, sizeof(name), k ? "%s%u" : "%s", base, k);
	while (pm_dataset_col_index(s->d, name, &col, NULL) == PM_OK &&
	       strlen(name) + 1 < sizeof(name))
		strcat(name, "_");
	put(t, "%s", name);
}

char *pm__disc_formula(const struct search *s, const struct hyp *h, int fitted)
{
	struct text t = { malloc(128), 0, 128, 0 };
	unsigned power = fitted ? 1 : 0;

	if (!t.buf)
		return NULL;
	t.buf[0] = '\0';
	for (unsigned k = 0; k < h->nt; k++) {
		const struct term *term = &s->pool[h->t[k]];

		if (k)
			put(&t, " + ");
		coefficient(&t, s, "c", k + 1);
		if (term->sel)
			put_level(&t, s, term->sel - 1, term->lev);
		for (size_t c = 0; c < s->ncat && c < MAX_FACTOR_CATS; c++)
			if (h->mask >> c & 1) {
				put(&t, " * level(");
				put_name(&t, pm_dataset_col_name(s->d, s->cat[c]));
				put(&t, ")");
			}
		for (unsigned f = 0; f < term->nf; f++)
			put_factor(&t, s, &term->f[f], &power);
	}
	if (h->nt)
		put(&t, " + ");
	if (h->offsets < 0) {
		coefficient(&t, s, "C", 0);
	} else if ((size_t)h->offsets < MAX_FACTOR_CATS && (h->mask >> h->offsets & 1)) {
		/* level() there is the terms' multiplier: the offsets by level */
		for (uint32_t l = 0; l < s->nlev[h->offsets]; l++) {
			if (l)
				put(&t, " + ");
			coefficient(&t, s, "b", l + 1);
			put_level(&t, s, (size_t)h->offsets, l);
		}
	} else {
		coefficient(&t, s, "b", 0);
		put(&t, " * level(");
		put_name(&t, pm_dataset_col_name(s->d, s->cat[h->offsets]));
		put(&t, ")");
	}
	if (t.failed) {
		free(t.buf);
		return NULL;
	}
	return t.buf;
}
