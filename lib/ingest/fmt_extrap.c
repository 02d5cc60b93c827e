/* Extra-P's text input: PARAMETER lines name the parameters, POINTS lines
 * list the measurement points ("( 20 1 ) ( 30 1 )", or bare values for one
 * parameter), then per REGION and METRIC one DATA line per point, in the
 * order of the points, whose values are the repetitions. '#' starts a
 * comment line. Each parameter becomes a column, each DATA value a run in
 * PM_INGEST_TIME_COLUMN; the cells keep their places. */
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/numcodec.h"
#include "ingest/ingest_impl.h"
#include "data/table.h"

#define MAX_PARAMS 64

struct cellref {
	const char *s;
	unsigned line, column;
};

struct extrap {
	const char *name;
	pm_error *err;
	const char *param[MAX_PARAMS + 1];
	size_t nparam;
	struct cellref *point;	/* npoint * nparam coordinates */
	size_t npoint, cappoint;
	const char *region, *metric;	/* the current ones ("" before any) */
	const char *want_region, *want_metric;	/* NULL: the only one there is */
	const char *seen_region, *seen_metric;	/* of the first DATA line read */
	size_t next;		/* the point the next DATA line is for */
	unsigned block_line;	/* the block's first DATA line (0: none yet) */
	unsigned line;
	pm_table t;
};

struct tok {
	const char *s;
	unsigned column;
};

/* Split p (NUL-terminated, in place) into tokens at blanks, with '(' and
 * ')' tokens of their own; columns count from base, the line's start. */
static size_t tokens(char *p, const char *base, struct tok *tk, size_t max)
{
	size_t n = 0;

	while (*p && n < max) {
		if (*p == ' ' || *p == '\t' || *p == '\r') {
			*p++ = '\0';
			continue;
		}
		tk[n].column = (unsigned)(p - base + 1);
		if (*p == '(' || *p == ')') {
			/* a static text, so that the NUL can end the value before it */
			tk[n++].s = *p == '(' ? "(" : ")";
			*p++ = '\0';
			continue;
		}
		tk[n++].s = p;
		while (*p && !strchr(" \t\r()", *p))
			p++;
	}
	return n;
}

/* A schema error on the current line. */
#define FAIL(x, column, ...) \
	pm__fail_at((x)->err, PM_ESCHEMA, (x)->name, (x)->line, (column), __VA_ARGS__)

static pm_status add_point(struct extrap *x, const struct tok *tk, size_t n)
{
	if (x->npoint == x->cappoint) {
		size_t cap = x->cappoint ? 2 * x->cappoint : 64;
		struct cellref *p = realloc(x->point, cap * x->nparam * sizeof(*p));

		if (!p)
			return pm__fail(x->err, PM_ENOMEM, "out of memory");
		x->point = p;
		x->cappoint = cap;
	}
	for (size_t i = 0; i < n; i++)
		x->point[x->npoint * x->nparam + i] =
			(struct cellref){ tk[i].s, x->line, tk[i].column };
	x->npoint++;
	return PM_OK;
}

static pm_status points(struct extrap *x, struct tok *tk, size_t n)
{
	pm_status rc;

	if (!x->nparam)
		return FAIL(x, 1, "POINTS before any PARAMETER");
	if (n && tk[0].s[0] != '(') {
		if (x->nparam != 1)
			return FAIL(x, tk[0].column, "with several parameters, write each point as "
				    "( v1 v2 ... )");
		for (size_t i = 0; i < n; i++)
			if ((rc = add_point(x, &tk[i], 1)))
				return rc;
		return PM_OK;
	}
	for (size_t i = 0; i < n;) {
		size_t k = i + 1;

		if (tk[i].s[0] != '(')
			return FAIL(x, tk[i].column, "expected '(' to start a point, not '%s'",
				    tk[i].s);
		while (k < n && tk[k].s[0] != ')' && tk[k].s[0] != '(')
			k++;
		if (k == n || tk[k].s[0] != ')')
			return FAIL(x, tk[i].column, "a point without its ')'");
		if (k - i - 1 != x->nparam)
			return FAIL(x, tk[i].column, "a point of %zu values, but %zu parameters",
				    k - i - 1, x->nparam);
		if ((rc = add_point(x, &tk[i + 1], x->nparam)))
			return rc;
		i = k + 1;
	}
	return PM_OK;
}

/* With no --region (or --metric), the DATA lines taken must all have one. */
static pm_status unique(struct extrap *x, const char *cur, const char **seen,
			const char *what)
{
	if (!*seen)
		*seen = cur;
	else if (strcmp(*seen, cur))
		return FAIL(x, 1, "the file has more than one %s ('%s', '%s'): choose one with "
				   "--%s", what, *seen, cur, what);
	return PM_OK;
}

/* A REGION/METRIC block ends (at the next one or the file's end): it must
 * have a DATA line for every point, or the values would belong to the
 * wrong points' neighbours in the reader's mind. */
static pm_status block_end(struct extrap *x)
{
	if (x->next && x->next < x->npoint)
		return pm__fail_at(x->err, PM_ESCHEMA, x->name, x->block_line, 1,
				   "only %zu DATA lines for the %zu points (region '%s', metric "
				   "'%s')", x->next, x->npoint, x->region, x->metric);
	return PM_OK;
}

/* A DATA value that reads as a number must be >= 0: a negative run would
 * otherwise vanish into the configuration's median. A 0 is read, as Extra-P
 * reads it (a count, a region that took no time at a small scale); whether
 * the region can be fitted is the fit's to say. Text that is no number is
 * left to the table's own error. */
static pm_status run_value(const struct extrap *x, const struct tok *tk)
{
	char *end;
	double v = pm_strtod(tk->s, &end);

	if (end != tk->s && *end == '\0' && !(v >= 0))
		return FAIL(x, tk->column, "DATA value %s is not a number >= 0", tk->s);
	return PM_OK;
}

static pm_status data(struct extrap *x, struct tok *tk, size_t n)
{
	pm_status rc;

	if (!x->npoint)
		return FAIL(x, 1, "DATA before any POINTS");
	if (x->next >= x->npoint)
		return FAIL(x, 1, "more DATA lines than the %zu points", x->npoint);
	if (!n)
		return FAIL(x, 1, "DATA without values");
	if (!x->next)
		x->block_line = x->line;
	if ((x->want_region && strcmp(x->want_region, x->region)) ||
	    (x->want_metric && strcmp(x->want_metric, x->metric))) {
		x->next++;
		return PM_OK;
	}
	if ((!x->want_region && (rc = unique(x, x->region, &x->seen_region, "region"))) ||
	    (!x->want_metric && (rc = unique(x, x->metric, &x->seen_metric, "metric"))))
		return rc;
	for (size_t i = 0; i < n; i++) {
		const struct cellref *p = &x->point[x->next * x->nparam];

		if ((rc = run_value(x, &tk[i])))
			return rc;
		for (size_t k = 0; k < x->nparam; k++)
			if ((rc = pm__table_add_at(&x->t, p[k].s, p[k].line, p[k].column, x->err)))
				return rc;
		if ((rc = pm__table_add_at(&x->t, tk[i].s, x->line, tk[i].column, x->err)))
			return rc;
	}
	x->next++;
	return PM_OK;
}

/* The rest of the line after the keyword, trimmed: region names may have
 * blanks. */
static const char *rest(char *s)
{
	char *end;

	s += strspn(s, " \t");
	end = s + strlen(s);
	while (end > s && strchr(" \t\r", end[-1]))
		*--end = '\0';
	return s;
}

static pm_status one_line(struct extrap *x, char *s, const char *base, struct tok *tk,
			  size_t maxtok)
{
	size_t kw = strcspn(s, " \t\r"), n;
	char *after = s + kw;
	int more = *after != '\0';

	*after = '\0';
	if (more)
		after++;
	if (!strcmp(s, "REGION") || !strcmp(s, "METRIC")) {
		pm_status rc = block_end(x);

		if (rc)
			return rc;
		*(s[0] == 'R' ? &x->region : &x->metric) = rest(after);
		x->next = 0;
		return PM_OK;
	}
	n = tokens(after, base, tk, maxtok);
	if (n == maxtok)
		return FAIL(x, 1, "a line with more than %d values", (int)maxtok);
	if (!strcmp(s, "PARAMETER")) {
		if (x->npoint)
			return FAIL(x, 1, "PARAMETER after POINTS");
		for (size_t i = 0; i < n; i++) {
			if (x->nparam == MAX_PARAMS)
				return FAIL(x, tk[i].column, "more than %d parameters", MAX_PARAMS);
			x->param[x->nparam++] = tk[i].s;
		}
		return PM_OK;
	}
	if (!strcmp(s, "POINTS"))
		return points(x, tk, n);
	if (!strcmp(s, "DATA"))
		return data(x, tk, n);
	return FAIL(x, 1, "'%s' is not PARAMETER, POINTS, REGION, METRIC or DATA", s);
}

pm_status pm__read_extrap(const char *text, size_t len, const char *name, const char *region,
			  const char *metric, pm_dataset **out, pm_error *err)
{
	struct extrap x = { .name = name, .err = err, .region = "", .metric = "",
			    .want_region = region, .want_metric = metric };
	enum { MAXTOK = 100000 };
	char *buf = malloc(len + 1), *line, *next;
	struct tok *tk = malloc(MAXTOK * sizeof(*tk));
	pm_status rc = PM_OK;

	*out = NULL;
	if (!buf || !tk) {
		rc = pm__fail(err, PM_ENOMEM, "out of memory");
		goto out;
	}
	memcpy(buf, text, len);
	buf[len] = '\0';
	if (memchr(buf, '\0', len)) {
		rc = pm__fail_at(err, PM_EPARSE, name, 0, 0, "nul byte in text");
		goto out;
	}
	for (line = buf; line && !rc; line = next) {
		char *nl = strchr(line, '\n'), *s;

		next = nl ? nl + 1 : NULL;
		if (nl)
			*nl = '\0';
		x.line++;
		s = line + strspn(line, " \t\r");
		if (*s && *s != '#')
			rc = one_line(&x, s, line, tk, MAXTOK);
	}
	if (!rc)
		rc = block_end(&x);
	if (rc)
		goto out;
	if (!x.nparam) {
		rc = pm__fail_at(err, PM_ESCHEMA, name, 0, 0, "no PARAMETER line");
		goto out;
	}
	x.param[x.nparam] = PM_INGEST_TIME_COLUMN;
	x.t.ncols = x.nparam + 1;
	x.t.names = x.param;
	if (!x.t.ncells && (region || metric)) {
		rc = pm__fail_at(err, PM_ESCHEMA, name, 0, 0, "no DATA for region '%s' and "
				 "metric '%s'", region ? region : "(any)", metric ? metric : "(any)");
		goto out;
	}
	rc = pm__table_build(&x.t, name, out, err);
out:
	pm__table_free(&x.t);
	free(x.point);
	free(tk);
	free(buf);
	return rc;
}
