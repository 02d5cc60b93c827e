#include "core/erfc.h"

#include <math.h>

#include "core/detmath.h"

/* Below SERIES, 1 - erf(x) by erf's Taylor series (its terms x^(2n+1)/n!
 * are below 2^-60 of the sum by n = 40 there); from it on, the continued
 * fraction exp(-x^2) / (sqrt(pi) (x + (1/2)/(x + 1/(x + (3/2)/(x + ...)))))
 * cut at FRACTION levels and evaluated from the bottom. Compared with
 * 40-digit mpmath on 40 000 arguments in [-6, 26]: the worst relative
 * error 6e-14 (from 2: the series' cancellation, 2e-13; 50 levels from
 * 1.5: 3e-12). Fixed counts, no test of convergence: the same operations,
 * so the same bits, on every machine. */
#define SERIES 1.5
#define SERIES_TERMS 40
#define FRACTION 80
#define UNDERFLOW 27.3	/* erfc(27.3) < 2^-1074 */
#define TWO_OVER_SQRT_PI 0x1.20dd750429b6dp+0
#define SQRT_PI 0x1.c5bf891b4ef6bp+0

double pm__erfc(double x)
{
	double ax = fabs(x), r;

	if (isnan(x))
		return x;
	if (ax < SERIES) {
		double x2 = ax * ax, term = ax, sum = ax;

		for (int n = 1; n < SERIES_TERMS; n++) {
			term *= -x2 / n;
			sum += term / (2 * n + 1);
		}
		r = 1.0 - TWO_OVER_SQRT_PI * sum;
	} else if (ax < UNDERFLOW) {
		double k = ax;

		for (int n = FRACTION; n >= 1; n--)
			k = ax + (0.5 * n) / k;
		r = pm__exp(-(ax * ax)) / (SQRT_PI * k);
	} else {
		r = 0.0;
	}
	return x < 0 ? 2.0 - r : r;
}
