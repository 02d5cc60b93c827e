#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "count.h"
#include "leak_check.h"
#include "report/svg.h"

PM_LEAK_CHECKED_SUITE(svg);

static char *render(const pm_svg_plot *p)
{
	pm_sbuf b;
	char *out = NULL;
	pm_error err = { 0 };

	pm__sb_init(&b);
	pm__svg_plot(&b, p);
	cr_assert_eq(pm__sb_finish(&b, &out, &err), PM_OK, "%s", err.msg);
	return out;
}

Test(svg, log_axis_only_past_a_decade_of_positive_values)
{
	cr_assert_not(pm__svg_log_axis(1, 10), "exactly a decade stays linear");
	cr_assert(pm__svg_log_axis(1, 10.5));
	cr_assert(pm__svg_log_axis(1e-6, 1e3));
	cr_assert_not(pm__svg_log_axis(0, 100), "0 has no logarithm");
	cr_assert_not(pm__svg_log_axis(-1, 100));
}

Test(svg, linear_ticks_are_round_and_zero_is_plain)
{
	double t[40];
	size_t n = pm__svg_ticks(-0.35, 1.25, 0, t, 40);

	/* 1.6 / 6 = 0.27 -> step 0.2 (1, 2 or 5 times a power of ten) */
	cr_assert_eq(n, 8, "got %zu", n);
	cr_assert_float_eq(t[0], -0.2, 1e-15);
	cr_assert_float_eq(t[7], 1.2, 1e-15);
	cr_assert_eq(t[1], 0.0);
	cr_assert_not(signbit(t[1]), "-0 would print as \"-0\"");
	/* a range just under zero: the tick at 0 must still be +0 */
	n = pm__svg_ticks(-0.01, 0.5, 0, t, 40);
	cr_assert_eq(t[0], 0.0);
	cr_assert_not(signbit(t[0]));
	cr_assert_eq(pm__svg_ticks(1, 1, 0, t, 40), 0, "an empty range has no ticks");
	cr_assert_eq(pm__svg_ticks(0, 1e6, 0, t, 3), 3, "never more than asked");
}

Test(svg, log_ticks_are_decades_or_1_2_5)
{
	double t[40];
	size_t n = pm__svg_ticks(1e-6, 1e3, 1, t, 40);

	cr_assert_eq(n, 10, "decades 1e-6 .. 1e3, got %zu", n);
	for (size_t i = 0; i < n; i++)
		cr_assert_float_eq(t[i], pow(10, -6.0 + (double)i), 1e-20 + 1e-12 * t[i]);
	/* over 2.1 decades, decades alone are too few: 1, 2, 5 of each */
	n = pm__svg_ticks(0.9, 110, 1, t, 40);
	const double want[] = { 1, 2, 5, 10, 20, 50, 100 };
	cr_assert_eq(n, 7, "got %zu", n);
	for (size_t i = 0; i < n; i++)
		cr_assert_float_eq(t[i], want[i], 1e-12);
}

Test(svg, draws_every_drawable_point_and_escapes_text)
{
	const double x[] = { 1, 2, NAN, 4, 1000 }, y[] = { 1, 2, 3, 4, 900 };
	const double x2[] = { 3 }, y2[] = { 2.5 };
	pm_svg_series s[] = {
		{ "train <rows> & more", x, y, 5, PM_SVG_DOTS, NULL },
		{ "test", x2, y2, 1, PM_SVG_CROSSES, NULL },
	};
	pm_svg_plot p = pm__svg_plot_default();

	p.title = "t < 1 & \"q\"";
	p.xlabel = "measured (s)";
	p.ylabel = "predicted (s)";
	p.series = s;
	p.nseries = 2;
	p.diagonal = 1;
	char *svg = render(&p);

	cr_assert(strncmp(svg, "<svg xmlns=\"http://www.w3.org/2000/svg\"", 39) == 0);
	cr_assert(strstr(svg, "</svg>\n"));
	cr_assert(strstr(svg, "<title>t &lt; 1 &amp; &quot;q&quot;</title>"));
	cr_assert(strstr(svg, "train &lt;rows&gt; &amp; more"));
	cr_assert_null(strstr(svg, "<rows>"));
	/* diagonal: x and y share a range over 1 .. 1e3, so both are log; the
	 * NaN point is skipped: 4 dots + 1 in the legend */
	cr_assert_eq(count(svg, "<circle"), 5, "%s", svg);
	cr_assert_eq(count(svg, "<path d="), 2, "one cross and its legend sample");
	cr_assert_eq(count(svg, "(log scale)"), 2);
	cr_assert(strstr(svg, "y = x (perfect prediction)"));
	cr_assert_eq(count(svg, "<text"), count(svg, "</text>"));
	free(svg);
}

Test(svg, lines_marker_and_zero_line)
{
	const double x[] = { 1, 2, 4, 8 }, y[] = { -5, 3, 0, 1 }, ideal[] = { 1, 1, 1, 1 };
	pm_svg_series s[] = {
		{ "model", x, y, 4, PM_SVG_LINE, NULL },
		{ "ideal", x, ideal, 4, PM_SVG_DASHED, NULL },
		{ NULL, x, ideal, 4, PM_SVG_DOTS, NULL },
	};
	pm_svg_plot p = pm__svg_plot_default();

	p.title = "lines";
	p.series = s;
	p.nseries = 3;
	p.zero_line = 1;
	p.mark_x = 3;
	p.mark_label = "best";
	char *svg = render(&p);

	cr_assert_eq(count(svg, "<polyline"), 2);
	cr_assert_eq(count(svg, "stroke-dasharray=\"6 4\""), 2, "the ideal and its legend");
	cr_assert(strstr(svg, ">best</text>"));
	cr_assert_null(strstr(svg, "(log scale)"), "y has negatives, x spans < a decade");
	cr_assert_eq(count(svg, ">-0<"), 0);
	cr_assert(strstr(svg, ">0</text>"), "the zero tick");
	/* the unlabelled series is not listed: the <text x= without an anchor
	 * are the two legend labels and the marker's (the y label, anchored,
	 * starts <text transform=) */
	cr_assert(strstr(svg, ">model</text>"));
	cr_assert(strstr(svg, ">ideal</text>"));
	cr_assert_eq(count(svg, "<text x=\"") - (count(svg, "text-anchor") - 1), 3);
	free(svg);
}

Test(svg, an_empty_plot_is_still_a_picture)
{
	pm_svg_plot p = pm__svg_plot_default();

	p.title = "nothing";
	char *svg = render(&p);

	cr_assert(strstr(svg, "</svg>"));
	cr_assert_null(strstr(svg, "nan"));
	cr_assert_null(strstr(svg, "inf"));
	free(svg);
}

Test(svg, buffer_grows_and_escapes)
{
	pm_sbuf b;
	char *out = NULL;

	pm__sb_init(&b);
	for (int i = 0; i < 5000; i++)
		pm__sb_printf(&b, "%d,", i % 10);
	pm__sb_text(&b, "<&>\"");
	pm__sb_text(&b, NULL);
	cr_assert_eq(pm__sb_finish(&b, &out, NULL), PM_OK);
	cr_assert_eq(strlen(out), 10000 + strlen("&lt;&amp;&gt;&quot;"));
	cr_assert_str_eq(out + 10000, "&lt;&amp;&gt;&quot;");
	cr_assert(strncmp(out, "0,1,2,", 6) == 0);
	free(out);
}

/* Up to max "x,y" pairs of the points="..." after the first `tag` in svg. */
static size_t points(const char *svg, const char *tag, double *px, double *py, size_t max)
{
	const char *p = strstr(svg, tag);
	size_t n = 0;

	cr_assert(p, "no %s", tag);
	p = strstr(p, "points=\"");
	cr_assert(p);
	p += strlen("points=\"");
	while (*p != '"' && n < max) {
		char *end;

		px[n] = strtod(p, &end);
		cr_assert_eq(*end, ',', "at %.20s", p);
		py[n] = strtod(end + 1, &end);
		n++;
		p = end + 1;	/* past the space */
	}
	return n;
}

Test(svg, band_lies_between_its_bounds_under_the_curve)
{
	const double x[] = { 1, 2, 4, 8, 16 }, y[] = { 10, 6, 4, 3, 2.5 };
	const double lo[] = { 8, 5, 3, 2, 2 }, hi[] = { 13, 8, 5, NAN, 3.5 };
	pm_svg_series s[] = {
		{ "model", x, y, 5, PM_SVG_LINE, NULL },
		{ "90 % interval", x, lo, 5, PM_SVG_BAND, hi },
	};
	pm_svg_plot p = pm__svg_plot_default();
	double bx[16], by[16], lx[16], ly[16];

	p.title = "band";
	p.series = s;
	p.nseries = 2;
	char *svg = render(&p);

	cr_assert_eq(count(svg, "<polygon"), 1);
	cr_assert(strstr(svg, "<polygon") < strstr(svg, "<polyline"), "the band is under the line");
	/* the point whose upper bound is NaN is left out: 4 lower, 4 upper */
	size_t nb = points(svg, "<polygon", bx, by, 16), nl = points(svg, "<polyline", lx, ly, 16);

	cr_assert_eq(nb, 8, "got %zu", nb);
	cr_assert_eq(nl, 5);
	/* lower bounds forwards, upper back; SVG's y grows downwards, so below
	 * the line is a larger y, and the upper bound of 13 sets the y range */
	const size_t line_at[] = { 0, 1, 2, 4 };
	for (size_t k = 0; k < 4; k++) {
		size_t i = line_at[k];

		cr_assert_float_eq(bx[k], lx[i], 1e-9);
		cr_assert_float_eq(bx[7 - k], lx[i], 1e-9);
		cr_assert_gt(by[k], ly[i], "lower bound %zu above the curve", k);
		cr_assert_lt(by[7 - k], ly[i], "upper bound %zu below the curve", k);
	}
	cr_assert_geq(by[7], 34.0 - 1e-9, "the top bound inside the frame");
	cr_assert(strstr(svg, ">90 % interval</text>"));
	cr_assert_eq(count(svg, "fill-opacity=\"0.2\""), 2, "the band and its legend sample");
	free(svg);
	/* without the band, nothing of it */
	p.nseries = 1;
	svg = render(&p);
	cr_assert_null(strstr(svg, "<polygon"));
	cr_assert_null(strstr(svg, "interval"));
	free(svg);
}
