/* The complementary error function from detmath.h's exp and IEEE
 * arithmetic alone: glibc's erfc calls its exp, whose FMA or plain variant
 * the CPU picks, and a p-value compared with a threshold decides
 * (discover's F test, plan's odds of a form). */
#ifndef PM_CORE_ERFC_H
#define PM_CORE_ERFC_H

/* erfc(x) for every x: relative error below 1e-12 where the result is
 * normal (tests/test_erfc.c), 0 from x = 27.3 on, 2 below -27.3, NaN
 * for NaN. */
double pm__erfc(double x);

#endif
