/* core/numcodec: numbers read and written the same under a decimal-comma
 * locale as under "C". The suite runs under de_DE.UTF-8, which the build
 * makes with localedef (tests/meson.build) and finds through LOCPATH. */
#include <criterion/criterion.h>
#include <errno.h>
#include <locale.h>
#include <stdio.h>
#include <string.h>

#include "leak_check.h"
#include "core/numcodec.h"
#include "core/pcg32.h"

static void comma_locale(void)
{
	char probe[16];

	cr_assert_not_null(setlocale(LC_ALL, "de_DE.UTF-8"),
			   "no de_DE.UTF-8 locale: LOCPATH=%s", getenv("LOCPATH"));
	/* the C library's own conversions now use a comma: what the codec is for */
	snprintf(probe, sizeof(probe), "%.1f", 0.5);
	cr_assert_str_eq(probe, "0,5");
}

static void c_locale_again(void)
{
	setlocale(LC_ALL, "C");
	pm_test_leak_check();
}

TestSuite(numcodec, .init = comma_locale, .fini = c_locale_again);

Test(numcodec, shortest_round_trip_forms)
{
	static const struct {
		double v;
		const char *text;
	} cases[] = {
		{ 0.7, "0.7" }, { 0.1 + 0.2, "0.30000000000000004" }, { 1e-300, "1e-300" },
		{ -2.5e22, "-2.5e+22" }, { 3.0, "3" }, { 1.0 / 3.0, "0.3333333333333333" },
		{ 5e-324, "4.94065645841247e-324" }, { 0.0, "0" }, { -0.0, "-0" },
	};
	char out[PM_NUM_MAX];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t n = pm__num_format(out, cases[i].v);

		cr_assert_str_eq(out, cases[i].text);
		cr_assert_eq(n, strlen(cases[i].text));
	}
	pm__num_format(out, 1.0 / 0.0);
	cr_assert_str_eq(out, "inf");
}

Test(numcodec, random_doubles_read_back_bit_exact)
{
	pm_pcg32 r;
	char out[PM_NUM_MAX];

	pm__pcg32_seed(&r, 2026, 11);
	for (int i = 0; i < 100000; i++) {
		uint64_t bits = (uint64_t)pm__pcg32_next(&r) << 32 | pm__pcg32_next(&r);
		double v, back;
		char *end;

		memcpy(&v, &bits, sizeof(v));
		if (v != v || v - v != 0)	/* NaN and infinities: not numbers to write */
			continue;
		pm__num_format(out, v);
		cr_assert_null(strchr(out, ','), "%s", out);
		back = pm_strtod(out, &end);
		cr_assert_eq(*end, '\0', "%s", out);
		cr_assert_eq(memcmp(&back, &v, sizeof(v)), 0, "%s read back differently", out);
	}
}

Test(numcodec, strtod_takes_a_point_and_stops_at_a_comma)
{
	char *end;

	cr_assert_eq(pm_strtod("2.5e3 rest", &end), 2500.0);
	cr_assert_str_eq(end, " rest");
	cr_assert_eq(pm_strtod("1,5", &end), 1.0);
	cr_assert_str_eq(end, ",5");
}

Test(numcodec, snprintf_formats_with_a_point_and_leaves_the_locale_alone)
{
	char out[32], probe[16];
	int n = pm_snprintf(out, sizeof(out), "%.3f|%g|%s", 1.25, 1e-5, "x");

	cr_assert_str_eq(out, "1.250|1e-05|x");
	cr_assert_eq(n, (int)strlen(out));
	/* the thread's locale is restored */
	snprintf(probe, sizeof(probe), "%.1f", 0.5);
	cr_assert_str_eq(probe, "0,5");
	/* the length of what did not fit, as snprintf */
	cr_assert_eq(pm_snprintf(out, 4, "%.4f", 3.14159), 6);
	cr_assert_str_eq(out, "3.1");
}

/* errno's text in English whatever the locale's messages (glibc's own
 * strerror follows LC_MESSAGES: German here where its catalogue is
 * installed), and an unknown number said as C says it. */
Test(numcodec, errno_text_as_under_c)
{
	char buf[128];

	cr_log_info("the C library under de_DE: %s", strerror(ENOENT));
	cr_expect_str_eq(pm_strerror(ENOENT, buf, sizeof(buf)), "No such file or directory");
	cr_expect_str_eq(pm_strerror(EACCES, buf, sizeof(buf)), "Permission denied");
	cr_expect_str_eq(pm_strerror(123456, buf, sizeof(buf)), "Unknown error 123456");
}
