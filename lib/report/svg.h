/* Plots as SVG text, for the HTML report and fit --plot-dir. Private to the
 * library. Everything is written into a pm_sbuf, a growing text buffer whose
 * errors are sticky (as pm_jw's): after an allocation failure every call is a
 * no-op and pm__sb_finish says so, so writers need not check each call. */
#ifndef PM_SVG_H
#define PM_SVG_H

#include <stddef.h>

#include "core/error.h"
#include "perfmodel/predict.h"

typedef struct pm_sbuf {
	char *buf;
	size_t len, cap;
	int failed;
} pm_sbuf;

void pm__sb_init(pm_sbuf *b);
void pm__sb_printf(pm_sbuf *b, const char *fmt, ...) PM_PRINTF(2, 3);
/* s with & < > " escaped, for XML text and attribute values; NULL writes nothing. */
void pm__sb_text(pm_sbuf *b, const char *s);
/* On success *out owns the NUL-terminated text; on failure (PM_ENOMEM)
 * everything is freed and *out is NULL. */
pm_status pm__sb_finish(pm_sbuf *b, char **out, pm_error *err);
void pm__sb_discard(pm_sbuf *b);

/* How a series is drawn. */
typedef enum pm_svg_style {
	PM_SVG_DOTS = 0,	/* open circles: training rows */
	PM_SVG_CROSSES,		/* crosses: held-out rows */
	PM_SVG_LINE,		/* a line with dots at the points: a model curve */
	PM_SVG_DASHED,		/* a dashed grey line: the ideal */
	/* a filled polygon from y (lower) to hi (upper) at each x, lightly in
	 * the colour of the series before it (the curve it surrounds), drawn
	 * under every other series: an interval */
	PM_SVG_BAND
} pm_svg_style;

typedef struct pm_svg_series {
	const char *label;	/* in the legend; NULL: not listed */
	const double *x, *y;	/* n points; a non-finite one (or <= 0 on a log axis) is skipped */
	size_t n;
	pm_svg_style style;
	/* PM_SVG_BAND: the n upper bounds (y holds the lower ones); a point
	 * where either bound is not drawable is left out. Else unused. */
	const double *hi;
} pm_svg_series;

typedef struct pm_svg_plot {
	const char *title, *xlabel, *ylabel;	/* labels should carry their units */
	const pm_svg_series *series;
	size_t nseries;
	/* 1: the same range on both axes and the line y = x (predicted against
	 * measured, where a perfect model lies on the diagonal) */
	int diagonal;
	int zero_line;		/* 1: a horizontal line at y = 0 (residuals) */
	double mark_x;		/* NaN, or x of a vertical marker (the best λ) */
	const char *mark_label;
} pm_svg_plot;

/* A blank plot: no series, no diagonal, no marker. */
pm_svg_plot pm__svg_plot_default(void);

/* Append one <svg> element (with its xmlns, so that it also stands alone as
 * a file). An axis is logarithmic when every value on it is > 0 and they
 * span more than a decade. */
void pm__svg_plot(pm_sbuf *b, const pm_svg_plot *p);

/* The axis decisions, for tests: 1 if values in [lo, hi] take a log axis;
 * the tick values of an axis over [lo, hi] into tick[max], their count. */
int pm__svg_log_axis(double lo, double hi);
size_t pm__svg_ticks(double lo, double hi, int log, double *tick, size_t max);

#endif
