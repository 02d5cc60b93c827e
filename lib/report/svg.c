#include "report/svg.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/numcodec.h"

void pm__sb_init(pm_sbuf *b)
{
	*b = (pm_sbuf){ 0 };
}

void pm__sb_discard(pm_sbuf *b)
{
	free(b->buf);
	pm__sb_init(b);
}

/* Room for n more bytes and a NUL; doubling keeps appends amortised O(1). */
static int grow(pm_sbuf *b, size_t n)
{
	size_t cap = b->cap ? b->cap : 4096;
	char *nb;

	if (b->failed)
		return -1;
	if (n < SIZE_MAX - b->len && b->cap > b->len + n)
		return 0;
	while (cap <= b->len + n) {
		if (cap > SIZE_MAX / 2 || n >= SIZE_MAX - b->len) {
			b->failed = 1;
			return -1;
		}
		cap *= 2;
	}
	nb = realloc(b->buf, cap);
	if (!nb) {
		b->failed = 1;
		return -1;
	}
	b->buf = nb;
	b->cap = cap;
	return 0;
}

void pm__sb_printf(pm_sbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = pm_vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0) {
		b->failed = 1;
		return;
	}
	if (grow(b, (size_t)n))
		return;
	va_start(ap, fmt);
	pm_vsnprintf(b->buf + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

void pm__sb_text(pm_sbuf *b, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '&': pm__sb_printf(b, "&amp;"); break;
		case '<': pm__sb_printf(b, "&lt;"); break;
		case '>': pm__sb_printf(b, "&gt;"); break;
		case '"': pm__sb_printf(b, "&quot;"); break;
		default: pm__sb_printf(b, "%c", *s); break;
		}
	}
}

pm_status pm__sb_finish(pm_sbuf *b, char **out, pm_error *err)
{
	*out = NULL;
	if (!b->failed && grow(b, 0) == 0) {
		b->buf[b->len] = '\0';
		*out = b->buf;
		pm__sb_init(b);
		return PM_OK;
	}
	pm__sb_discard(b);
	return pm__fail(err, PM_ENOMEM, "out of memory");
}

/* ---- axes ------------------------------------------------------------------ */

/* A plot's geometry: the frame of the data area inside the picture. */
enum { WIDTH = 640, HEIGHT = 400, LEFT = 78, RIGHT = 24, TOP = 34, BOTTOM = 52 };
enum { MAX_TICKS = 40 };

typedef struct axis {
	double lo, hi;	/* the range drawn, padded */
	int log;
	double from, to;	/* pixel positions of lo and hi */
} axis;

static const char *const palette[] = {
	"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
	"#8c564b", "#e377c2", "#17becf", "#bcbd22", "#7f7f7f",
};
#define NPALETTE (sizeof(palette) / sizeof(palette[0]))

int pm__svg_log_axis(double lo, double hi)
{
	return lo > 0 && hi / lo > 10;
}

/* 1, 2 or 5 times a power of ten, near x: steps people read at a glance. */
static double nice_step(double x)
{
	double e = floor(log10(x)), f = x / pow(10, e);

	return (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * pow(10, e);
}

size_t pm__svg_ticks(double lo, double hi, int log, double *tick, size_t max)
{
	size_t n = 0;

	if (!(hi > lo) || !isfinite(lo) || !isfinite(hi))
		return 0;
	if (log) {
		double d0 = floor(log10(lo)), d1 = ceil(log10(hi));
		/* decades alone are too few over less than 2.5 of them */
		static const double few[] = { 1, 2, 5 }, many[] = { 1 };
		int sparse = log10(hi / lo) <= 2.5;
		const double *mult = sparse ? few : many;
		size_t nm = sparse ? 3 : 1;

		for (double d = d0; d <= d1 && n < max; d++)
			for (size_t k = 0; k < nm && n < max; k++) {
				double t = mult[k] * pow(10, d);

				if (t >= lo * (1 - 1e-12) && t <= hi * (1 + 1e-12))
					tick[n++] = t;
			}
		return n;
	}
	double step = nice_step((hi - lo) / 6);	/* 5 to 9 ticks */

	for (double k = ceil(lo / step); k * step <= hi + step * 1e-9 && n < max; k++) {
		/* k * step, not a running sum, so that 0 is exactly 0; and +0,
		 * which prints as "0" where -0 (k = -0.0) prints "-0" */
		double t = k * step;

		tick[n++] = t == 0 ? 0 : t;
	}
	return n;
}

static double to_axis(const axis *a, double v)
{
	return a->log ? log10(v) : v;
}

static double pixel(const axis *a, double v)
{
	double t0 = to_axis(a, a->lo), t1 = to_axis(a, a->hi);

	return a->from + (to_axis(a, v) - t0) / (t1 - t0) * (a->to - a->from);
}

static int drawable(const axis *a, double v)
{
	return isfinite(v) && (!a->log || v > 0);
}

/* Range of the finite values of one coordinate over every series. */
static void extent(const pm_svg_plot *p, int want_y, double *lo, double *hi)
{
	*lo = INFINITY;
	*hi = -INFINITY;
	for (size_t s = 0; s < p->nseries; s++) {
		const double *v = want_y ? p->series[s].y : p->series[s].x;

		for (size_t i = 0; i < p->series[s].n; i++)
			if (isfinite(v[i])) {
				*lo = fmin(*lo, v[i]);
				*hi = fmax(*hi, v[i]);
			}
		/* a band's upper bounds must fit too */
		for (size_t i = 0; want_y && p->series[s].style == PM_SVG_BAND &&
				   i < p->series[s].n; i++)
			if (isfinite(p->series[s].hi[i]))
				*hi = fmax(*hi, p->series[s].hi[i]);
	}
}

/* Pad [lo, hi] by 5% on each side (in log space on a log axis), so that no
 * point sits on the frame; give an empty or single-valued range some width. */
static void set_range(axis *a, double lo, double hi)
{
	if (!(lo <= hi)) {
		lo = 0;
		hi = 1;
	}
	a->log = pm__svg_log_axis(lo, hi);
	if (a->log) {
		double l0 = log10(lo), l1 = log10(hi), pad = 0.05 * (l1 - l0);

		a->lo = pow(10, l0 - pad);
		a->hi = pow(10, l1 + pad);
		return;
	}
	double span = hi - lo;

	if (span == 0)
		span = lo != 0 ? fabs(lo) : 1;
	a->lo = lo - 0.05 * span;
	a->hi = hi + 0.05 * span;
}

static void draw_axes(pm_sbuf *b, const axis *x, const axis *y)
{
	double tick[MAX_TICKS];
	size_t n;

	n = pm__svg_ticks(x->lo, x->hi, x->log, tick, MAX_TICKS);
	for (size_t i = 0; i < n; i++) {
		double px = pixel(x, tick[i]);

		pm__sb_printf(b, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" "
			      "stroke=\"#e4e4e4\"/>\n", px, TOP, px, HEIGHT - BOTTOM);
		pm__sb_printf(b, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%g</text>\n",
			      px, HEIGHT - BOTTOM + 16, tick[i]);
	}
	n = pm__svg_ticks(y->lo, y->hi, y->log, tick, MAX_TICKS);
	for (size_t i = 0; i < n; i++) {
		double py = pixel(y, tick[i]);

		pm__sb_printf(b, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" "
			      "stroke=\"#e4e4e4\"/>\n", LEFT, py, WIDTH - RIGHT, py);
		pm__sb_printf(b, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%g</text>\n",
			      LEFT - 6, py + 4, tick[i]);
	}
	pm__sb_printf(b, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" "
		      "stroke=\"#444\"/>\n", LEFT, TOP, WIDTH - LEFT - RIGHT,
		      HEIGHT - TOP - BOTTOM);
}

static void draw_labels(pm_sbuf *b, const pm_svg_plot *p, const axis *x, const axis *y)
{
	pm__sb_printf(b, "<text x=\"%d\" y=\"20\" text-anchor=\"middle\" font-size=\"14\" "
		      "font-weight=\"bold\">", WIDTH / 2);
	pm__sb_text(b, p->title);
	pm__sb_printf(b, "</text>\n<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">",
		      (LEFT + WIDTH - RIGHT) / 2, HEIGHT - 14);
	pm__sb_text(b, p->xlabel);
	pm__sb_printf(b, "%s</text>\n", x->log ? " (log scale)" : "");
	pm__sb_printf(b, "<text transform=\"translate(16 %d) rotate(-90)\" "
		      "text-anchor=\"middle\">", (TOP + HEIGHT - BOTTOM) / 2);
	pm__sb_text(b, p->ylabel);
	pm__sb_printf(b, "%s</text>\n", y->log ? " (log scale)" : "");
}

static void polyline(pm_sbuf *b, const pm_svg_series *s, const axis *x, const axis *y,
		     const char *attrs)
{
	pm__sb_printf(b, "<polyline fill=\"none\" %s points=\"", attrs);
	for (size_t i = 0; i < s->n; i++)
		if (drawable(x, s->x[i]) && drawable(y, s->y[i]))
			pm__sb_printf(b, "%.1f,%.1f ", pixel(x, s->x[i]), pixel(y, s->y[i]));
	pm__sb_printf(b, "\"/>\n");
}

/* The band's outline: along the lower bounds forwards, back along the upper
 * ones, over the points where x and both bounds are drawable. */
static void band(pm_sbuf *b, const pm_svg_series *s, const char *colour, const axis *x,
		 const axis *y)
{
	pm__sb_printf(b, "<polygon fill=\"%s\" fill-opacity=\"0.2\" stroke=\"none\" points=\"",
		      colour);
	for (size_t k = 0; k < 2 * s->n; k++) {
		size_t i = k < s->n ? k : 2 * s->n - 1 - k;
		double v = k < s->n ? s->y[i] : s->hi[i];

		if (drawable(x, s->x[i]) && drawable(y, s->y[i]) && drawable(y, s->hi[i]))
			pm__sb_printf(b, "%.1f,%.1f ", pixel(x, s->x[i]), pixel(y, v));
	}
	pm__sb_printf(b, "\"/>\n");
}

static void draw_series(pm_sbuf *b, const pm_svg_series *s, const char *colour,
			const axis *x, const axis *y)
{
	char attrs[96];

	if (s->style == PM_SVG_DASHED) {
		polyline(b, s, x, y, "stroke=\"#888\" stroke-width=\"1.5\" stroke-dasharray=\"6 4\"");
		return;
	}
	if (s->style == PM_SVG_LINE) {
		snprintf(attrs, sizeof(attrs), "stroke=\"%s\" stroke-width=\"2\"", colour);
		polyline(b, s, x, y, attrs);
	}
	pm__sb_printf(b, "<g stroke=\"%s\" fill=\"%s\">\n", colour,
		      s->style == PM_SVG_LINE ? colour : "none");
	for (size_t i = 0; i < s->n; i++) {
		double px, py;

		if (!drawable(x, s->x[i]) || !drawable(y, s->y[i]))
			continue;
		px = pixel(x, s->x[i]);
		py = pixel(y, s->y[i]);
		if (s->style == PM_SVG_CROSSES)
			pm__sb_printf(b, "<path d=\"M%.1f %.1fl7 7m0 -7l-7 7\" stroke-width=\"1.5\"/>\n",
				      px - 3.5, py - 3.5);
		else
			pm__sb_printf(b, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%s\"/>\n", px, py,
				      s->style == PM_SVG_LINE ? "2.5" : "3");
	}
	pm__sb_printf(b, "</g>\n");
}

/* One legend entry at (x, y): a sample of the mark, then the label. */
static void legend_entry(pm_sbuf *b, double x, double y, pm_svg_style style,
			 const char *colour, const char *label)
{
	switch (style) {
	case PM_SVG_DOTS:
		pm__sb_printf(b, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"none\" "
			      "stroke=\"%s\"/>\n", x + 10, y, colour);
		break;
	case PM_SVG_CROSSES:
		pm__sb_printf(b, "<path d=\"M%.1f %.1fl7 7m0 -7l-7 7\" stroke=\"%s\" "
			      "stroke-width=\"1.5\"/>\n", x + 6.5, y - 3.5, colour);
		break;
	case PM_SVG_LINE:
		pm__sb_printf(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
			      "stroke=\"%s\" stroke-width=\"2\"/>\n", x, y, x + 20, y, colour);
		break;
	case PM_SVG_DASHED:
		pm__sb_printf(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
			      "stroke=\"#888\" stroke-width=\"1.5\" stroke-dasharray=\"6 4\"/>\n",
			      x, y, x + 20, y);
		break;
	case PM_SVG_BAND:
		pm__sb_printf(b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"20\" height=\"10\" "
			      "fill=\"%s\" fill-opacity=\"0.2\"/>\n", x, y - 5, colour);
		break;
	}
	pm__sb_printf(b, "<text x=\"%.1f\" y=\"%.1f\">", x + 26, y + 4);
	pm__sb_text(b, label);
	pm__sb_printf(b, "</text>\n");
}

/* The legend goes in rows under the plot, where it can hide no data; the
 * picture grows by a row of height LEGEND_ROW for each. */
enum { LEGEND_ROW = 18 };

static double legend_width(const char *label)
{
	return 40 + 7.0 * (double)strlen(label);	/* ~7 px a character at 12 px */
}

static int legend_rows(const pm_svg_plot *p)
{
	double x = LEFT;
	int rows = p->diagonal ? 1 : 0;

	if (p->diagonal)
		x += legend_width("y = x (perfect prediction)");
	for (size_t s = 0; s < p->nseries; s++) {
		double w;

		if (!p->series[s].label)
			continue;
		w = legend_width(p->series[s].label);
		if (rows == 0 || x + w > WIDTH - RIGHT) {
			rows++;
			x = LEFT;
		}
		x += w;
	}
	return rows;
}

/* Series s's colour: a band takes that of the series before it, the curve
 * it surrounds. */
static const char *colour(const pm_svg_plot *p, size_t s)
{
	if (p->series[s].style == PM_SVG_BAND && s > 0)
		s--;
	return palette[s % NPALETTE];
}

static void draw_legend(pm_sbuf *b, const pm_svg_plot *p)
{
	double x = LEFT, y = HEIGHT + 6;
	int started = 0;

	if (p->diagonal) {
		legend_entry(b, x, y, PM_SVG_DASHED, NULL, "y = x (perfect prediction)");
		x += legend_width("y = x (perfect prediction)");
		started = 1;
	}
	for (size_t s = 0; s < p->nseries; s++) {
		double w;

		if (!p->series[s].label)
			continue;
		w = legend_width(p->series[s].label);
		if (!started || x + w > WIDTH - RIGHT) {
			y += started ? LEGEND_ROW : 0;
			x = LEFT;
			started = 1;
		}
		legend_entry(b, x, y, p->series[s].style, colour(p, s), p->series[s].label);
		x += w;
	}
}

pm_svg_plot pm__svg_plot_default(void)
{
	return (pm_svg_plot){ .mark_x = NAN };
}

void pm__svg_plot(pm_sbuf *b, const pm_svg_plot *p)
{
	axis x = { .from = LEFT, .to = WIDTH - RIGHT };
	axis y = { .from = HEIGHT - BOTTOM, .to = TOP };
	double xlo, xhi, ylo, yhi;
	int height = HEIGHT + LEGEND_ROW * legend_rows(p);

	extent(p, 0, &xlo, &xhi);
	extent(p, 1, &ylo, &yhi);
	if (p->diagonal) {
		xlo = ylo = fmin(xlo, ylo);
		xhi = yhi = fmax(xhi, yhi);
	}
	if (p->zero_line && ylo <= yhi) {
		ylo = fmin(ylo, 0);
		yhi = fmax(yhi, 0);
	}
	if (isfinite(p->mark_x)) {
		xlo = fmin(xlo, p->mark_x);
		xhi = fmax(xhi, p->mark_x);
	}
	set_range(&x, xlo, xhi);
	set_range(&y, ylo, yhi);

	pm__sb_printf(b, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		      "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">\n",
		      WIDTH, height, WIDTH, height);
	pm__sb_printf(b, "<title>");
	pm__sb_text(b, p->title);
	pm__sb_printf(b, "</title>\n<rect width=\"%d\" height=\"%d\" fill=\"white\"/>\n",
		      WIDTH, height);
	draw_axes(b, &x, &y);
	if (p->diagonal)
		pm__sb_printf(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
			      "stroke=\"#888\" stroke-width=\"1.5\" stroke-dasharray=\"6 4\"/>\n",
			      pixel(&x, x.lo), pixel(&y, x.lo), pixel(&x, x.hi), pixel(&y, x.hi));
	if (p->zero_line && !y.log)
		pm__sb_printf(b, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" "
			      "stroke=\"#888\" stroke-width=\"1.5\"/>\n",
			      LEFT, pixel(&y, 0), WIDTH - RIGHT, pixel(&y, 0));
	if (drawable(&x, p->mark_x)) {
		double px = pixel(&x, p->mark_x);

		pm__sb_printf(b, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" "
			      "stroke=\"#2ca02c\" stroke-dasharray=\"2 3\"/>\n",
			      px, TOP, px, HEIGHT - BOTTOM);
		pm__sb_printf(b, "<text x=\"%.1f\" y=\"%d\" fill=\"#2ca02c\">", px + 4, TOP + 14);
		pm__sb_text(b, p->mark_label);
		pm__sb_printf(b, "</text>\n");
	}
	/* bands first, under the lines and marks they surround */
	for (size_t s = 0; s < p->nseries; s++)
		if (p->series[s].style == PM_SVG_BAND)
			band(b, &p->series[s], colour(p, s), &x, &y);
	for (size_t s = 0; s < p->nseries; s++)
		if (p->series[s].style != PM_SVG_BAND)
			draw_series(b, &p->series[s], colour(p, s), &x, &y);
	draw_labels(b, p, &x, &y);
	draw_legend(b, p);
	pm__sb_printf(b, "</svg>\n");
}
