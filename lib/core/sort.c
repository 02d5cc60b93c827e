#include "core/sort.h"

#include <math.h>

int pm__cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	if (x != y)
		return x < y ? -1 : 1;
	return !!signbit(y) - !!signbit(x);
}
