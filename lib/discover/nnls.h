/* Non-negative least squares on normal equations. Private to the library. */
#ifndef PM_NNLS_H
#define PM_NNLS_H

#include <stddef.h>

/* Largest system pm__nnls solves. */
#define PM_NNLS_MAX 64

/* Minimise x'Gx/2 - b'x subject to x >= 0 (Lawson and Hanson's active set,
 * on the Gram matrix G = A'WA and b = A'Wy of a weighted least-squares
 * problem): G is p x p, row-major, symmetric positive semi-definite; p <=
 * PM_NNLS_MAX. A variable whose column is (numerically) a combination of
 * the free ones is left at 0 rather than made to absorb rounding. x gets
 * the solution. Returns 0, or -1 when p is too large. Allocates nothing;
 * reentrant. */
int pm__nnls(const double *G, const double *b, size_t p, double *x);
/* The same, started from the passive set of the positive entries of x on
 * entry (a solution of a nearby system: a round of an alternating solve,
 * a fold's rows after all the rows), when its solution there is feasible:
 * then one factorisation and the optimality check, rather than a
 * factorisation per variable that enters. */
int pm__nnls_from(const double *G, const double *b, size_t p, double *x);

#endif
