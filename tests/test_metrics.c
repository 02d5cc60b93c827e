#include <criterion/criterion.h>

#include <math.h>
#include <string.h>

#include "leak_check.h"
#include "perfmodel/perfmodel.h"

PM_LEAK_CHECKED_SUITE(metrics);

/* t = 1 2 4 5, p = 1.5 2 3 5: errors 0.5 0 1 0, mean t = 3, SS_tot = 10,
 * SS_res = 1.25. Every value below but SMAPE and RMSE is exact in binary. */
static const double t4[] = { 1, 2, 4, 5 };
static const double p4[] = { 1.5, 2, 3, 5 };

Test(metrics, hand_computed)
{
	pm_metrics m;
	pm_error e = { 0 };

	cr_assert_eq(pm_metrics_compute(t4, p4, 4, 1, &m, &e), PM_OK, "%s", e.msg);
	cr_assert_eq(m.n, 4);
	cr_assert_eq(m.mae, 0.375);
	cr_assert_eq(m.mse, 0.3125);
	cr_assert_eq(m.rmse, sqrt(0.3125));
	/* 100/4 (0.5/1 + 1/4) */
	cr_assert_eq(m.mape, 18.75);
	cr_assert_eq(m.r2, 0.875);
	/* 1 - (1 - 0.875) * 3 / 2 */
	cr_assert_eq(m.adj_r2, 0.8125);
	/* 100/4 (2*0.5/2.5 + 2*1/7) = 25 (0.4 + 2/7) = 120/7 */
	cr_assert_float_eq(m.smape, 120.0 / 7.0, 1e-12);
}

Test(metrics, adjusted_r2_degrees_of_freedom)
{
	pm_metrics m;

	cr_assert_eq(pm_metrics_compute(t4, p4, 4, 0, &m, NULL), PM_OK);
	cr_assert_eq(m.adj_r2, m.r2, "no parameters: adjusted R² is R²");
	cr_assert_eq(pm_metrics_compute(t4, p4, 4, 2, &m, NULL), PM_OK);
	cr_assert_eq(m.adj_r2, 0.625);
	cr_assert_eq(pm_metrics_compute(t4, p4, 4, 3, &m, NULL), PM_OK);
	cr_assert(isnan(m.adj_r2), "n - nparams - 1 = 0: NAN");
	cr_assert_eq(m.r2, 0.875);
	cr_assert_eq(pm_metrics_compute(t4, p4, 4, 100, &m, NULL), PM_OK);
	cr_assert(isnan(m.adj_r2));
	cr_assert_eq(pm_metrics_compute(t4, p4, 4, (size_t)-1, &m, NULL), PM_OK);
	cr_assert(isnan(m.adj_r2));
}

Test(metrics, perfect_prediction)
{
	pm_metrics m;

	cr_assert_eq(pm_metrics_compute(t4, t4, 4, 1, &m, NULL), PM_OK);
	cr_assert_eq(m.mae, 0);
	cr_assert_eq(m.mape, 0);
	cr_assert_eq(m.mse, 0);
	cr_assert_eq(m.rmse, 0);
	cr_assert_eq(m.smape, 0);
	cr_assert_eq(m.r2, 1);
	cr_assert_eq(m.adj_r2, 1);
}

Test(metrics, constant_target)
{
	const double t[] = { 2, 2, 2 };
	const double good[] = { 2, 2, 2 };
	const double bad[] = { 1, 2, 3 };
	pm_metrics m;

	cr_assert_eq(pm_metrics_compute(t, good, 3, 0, &m, NULL), PM_OK);
	cr_assert_eq(m.r2, 1);
	cr_assert_eq(pm_metrics_compute(t, bad, 3, 0, &m, NULL), PM_OK);
	cr_assert_eq(m.r2, 0);
	cr_assert_eq(m.mae, 2.0 / 3.0);
	/* 100/3 (1/2 + 0 + 1/2) */
	cr_assert_float_eq(m.mape, 100.0 / 3.0, 1e-12);
}

Test(metrics, single_row)
{
	const double t[] = { 4 };
	const double p[] = { 3 };
	pm_metrics m;

	cr_assert_eq(pm_metrics_compute(t, p, 1, 0, &m, NULL), PM_OK);
	cr_assert_eq(m.mae, 1);
	cr_assert_eq(m.mape, 25);
	cr_assert_eq(m.r2, 0);
	cr_assert(isnan(m.adj_r2));
	/* 200 * 1 / 7 */
	cr_assert_float_eq(m.smape, 200.0 / 7.0, 1e-12);
}

Test(metrics, zeros)
{
	const double t[] = { 0, 1 };
	const double same[] = { 0, 1 };
	const double off[] = { 1, 1 };
	const double t2[] = { 0, 2, 4 }, p2[] = { 1, 1, 5 }, none[] = { 0, 0 };
	pm_metrics m;

	cr_assert_eq(pm_metrics_compute(t, same, 2, 0, &m, NULL), PM_OK);
	cr_assert_eq(m.mape, 0, "row 2 alone: no error");
	cr_assert_eq(m.smape, 0);
	cr_assert_eq(pm_metrics_compute(t, off, 2, 0, &m, NULL), PM_OK);
	cr_assert_eq(m.mape, 0, "t == 0 has no relative error: MAPE is row 2's");
	cr_assert_eq(m.mape_n, 1, "MAPE over 1 row of 2");
	cr_assert_eq(m.n, 2);
	cr_assert_eq(m.smape, 100, "100/2 (2*1/1 + 0)");
	cr_assert_eq(m.mae, 0.5);
	/* MAPE over the 2 rows of t != 0: (1/2 + 1/4) / 2; the rest over 3 */
	cr_assert_eq(pm_metrics_compute(t2, p2, 3, 0, &m, NULL), PM_OK);
	cr_assert_eq(m.mape, 37.5);
	cr_assert_eq(m.mae, 1);
	cr_assert_eq(m.n, 3);
	/* no row of t != 0: no MAPE (NaN, null in JSON); the others are numbers */
	cr_assert_eq(pm_metrics_compute(none, off, 2, 0, &m, NULL), PM_OK);
	cr_assert(isnan(m.mape));
	cr_assert_eq(m.mape_n, 0);
	cr_assert_eq(m.mae, 1);
	cr_assert_eq(m.smape, 200);
	cr_assert_eq(m.r2, 0);
}

Test(metrics, negative_values_use_magnitudes)
{
	const double t[] = { -2, 2 };
	const double p[] = { -1, 2 };
	pm_metrics m;

	cr_assert_eq(pm_metrics_compute(t, p, 2, 0, &m, NULL), PM_OK);
	cr_assert_eq(m.mape, 25);
	/* 100/2 (2*1/3) */
	cr_assert_float_eq(m.smape, 100.0 / 3.0, 1e-12);
}

Test(metrics, errors)
{
	pm_metrics m;
	pm_error e = { 0 };

	cr_assert_eq(pm_metrics_compute(t4, p4, 0, 0, &m, &e), PM_EINVAL);
	cr_assert_eq(e.code, PM_EINVAL);
	cr_assert_not_null(strstr(e.msg, "no rows"), "%s", e.msg);
	cr_assert_eq(pm_metrics_compute(NULL, p4, 4, 0, &m, &e), PM_EINVAL);
	cr_assert_eq(pm_metrics_compute(t4, NULL, 4, 0, &m, &e), PM_EINVAL);
	cr_assert_eq(pm_metrics_compute(t4, p4, 4, 0, NULL, &e), PM_EINVAL);
	cr_assert_eq(pm_metrics_compute(t4, p4, 0, 0, &m, NULL), PM_EINVAL);
}

Test(metrics, deterministic)
{
	enum { N = 1000 };
	static double t[N], p[N];
	pm_metrics a, b;

	for (int k = 0; k < N; k++) {
		t[k] = 1 + 0.37 * k + sin(k);
		p[k] = t[k] * (1 + 0.01 * cos(3.0 * k));
	}
	memset(&a, 0, sizeof(a));
	memset(&b, 0xff, sizeof(b));
	cr_assert_eq(pm_metrics_compute(t, p, N, 5, &a, NULL), PM_OK);
	cr_assert_eq(pm_metrics_compute(t, p, N, 5, &b, NULL), PM_OK);
	cr_assert_eq(a.n, b.n);
	cr_assert_eq(memcmp(&a.mae, &b.mae, 7 * sizeof(double)), 0);
	cr_assert(a.r2 > 0.99 && a.r2 < 1);
	cr_assert(a.mape > 0 && a.mape <= 1.0 + 1e-9);
}
