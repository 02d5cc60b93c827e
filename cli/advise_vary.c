/* perfmodel advise's --vary NAME=VALUES (cmd_advise.c's usage, "VALUES"): a
 * list, A..B, A..B:xF or A..B:+D into the values of one axis. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* More values than any search of a grid needs; pm_model_advise then caps
 * the product. */
#define MAX_VALUES 1000000

static int push(struct axis *a, double v)
{
	double *p;

	if (a->n >= MAX_VALUES)
		return usage_error("advise", "--vary '%s': more than %d values", a->text,
				   MAX_VALUES);
	if (!(p = realloc(a->values, (a->n + 1) * sizeof(*p)))) {
		fputs("perfmodel: out of memory\n", stderr);
		return EXIT_FAIL;
	}
	a->values = p;
	a->values[a->n++] = v;
	return 0;
}

static int positive(const struct axis *a, const char *text, double *v)
{
	if (pm_parse_number(text, v) || !(*v > 0))
		return usage_error("advise", "--vary '%s': '%s' is not a number > 0", a->text, text);
	return 0;
}

/* A..B, A..B:xF or A..B:+S, the text after "..": rest. */
static int parse_range(struct axis *a, char *spec, char *rest)
{
	char *step = strchr(rest, ':');
	double lo, hi, f = 0, d = 0;
	int rc;

	if (step)
		*step++ = '\0';
	if ((rc = positive(a, spec, &lo)) || (rc = positive(a, rest, &hi)))
		return rc;
	if (lo > hi)
		return usage_error("advise", "--vary '%s': the range starts above its end", a->text);
	if (step && step[0] == 'x') {
		if (pm_parse_number(step + 1, &f) || !(f > 1))
			return usage_error("advise", "--vary '%s': ':x' needs a factor > 1", a->text);
	} else if (step && step[0] == '+') {
		if (pm_parse_number(step + 1, &d) || !(d > 0))
			return usage_error("advise", "--vary '%s': ':+' needs a step > 0", a->text);
	} else if (step) {
		return usage_error("advise", "--vary '%s': a step is ':xFACTOR' or ':+STEP'",
				   a->text);
	} else if (lo != floor(lo) || hi != floor(hi)) {
		return usage_error("advise", "--vary '%s': A..B counts in whole numbers; give "
				   "a step (A..B:+S) for others", a->text);
	}
	/* the end is included up to rounding: 0.1..0.7:+0.3 ends at 0.7 */
	for (double k = 0, v = lo; v <= hi * (1 + 1e-12); k++) {
		if ((rc = push(a, v)))
			return rc;
		v = f ? v * f : lo + (k + 1) * (d ? d : 1);
	}
	return 0;
}

int advise_parse_axis(struct axis *a)
{
	char buf[4096], *eq, *dots, *tok, *save = NULL;
	double v;
	int rc;

	if (strlen(a->text) >= sizeof(buf))
		return usage_error("advise", "--vary: the value is too long");
	strcpy(buf, a->text);
	eq = strchr(buf, '=');
	if (!eq || eq == buf || !eq[1] || (size_t)(eq - buf) >= sizeof(a->name))
		return usage_error("advise", "--vary '%s' is not NAME=VALUES", a->text);
	*eq = '\0';
	strcpy(a->name, buf);
	if ((dots = strstr(eq + 1, ".."))) {
		*dots = '\0';
		return parse_range(a, eq + 1, dots + 2);
	}
	if (eq[strlen(eq) - 1] == ',' || eq[1] == ',' || strstr(eq + 1, ",,"))
		return usage_error("advise", "--vary '%s': an empty value in the list", a->text);
	for (tok = strtok_r(eq + 1, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
		if ((rc = positive(a, tok, &v)) || (rc = push(a, v)))
			return rc;
	return 0;
}
