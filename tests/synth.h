/* Synthetic measurements from known eq. 4.4 parameters, for recovery tests. */
#ifndef PM_TEST_SYNTH_H
#define PM_TEST_SYNTH_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/pcg32.h"

/* The truth: three numeric intrinsics, two categoricals, two extrinsics. */
#define SYN_Q_THREADS (-0.8)
#define SYN_Q_BATCH 0.9

static const char *const syn_act[] = { "relu", "sigmoid", "tanh" };
static const double syn_b_act[] = { 0.004, 0.010, 0.007 };
static const char *const syn_opt[] = { "adam", "sgd" };
static const double syn_b_opt[] = { 0.003, 0.001 };

static double syn_time(double k, double f, double h, int act, int opt, double th, double b)
{
	double intr = 0.002 * pow(k, 1.5) + 0.0005 * pow(f, 1.0) + 0.001 * pow(h, 0.5) +
		      syn_b_act[act] + syn_b_opt[opt];

	return intr * pow(th, SYN_Q_THREADS) * pow(b, SYN_Q_BATCH) + 0.001;
}

/* A CSV text of n rows (caller frees); noise: relative sd of a multiplicative
 * factor exp(noise * N(0,1)) (0: noiseless). */
static char *syn_csv(size_t n, double noise, uint64_t seed)
{
	static const double ks[] = { 1, 2, 3, 4, 5 }, fs[] = { 4, 8, 16, 32, 64 };
	static const double hs[] = { 64, 128, 256, 512, 1024 }, ths[] = { 1, 2, 4, 8 };
	static const double bs[] = { 8, 16, 32, 64, 128 };
	size_t cap = 128 + n * 128, len = 0;
	char *s = malloc(cap);
	pm_pcg32 r;

	pm__pcg32_seed(&r, seed, 7);
	len += (size_t)snprintf(s + len, cap - len,
				"k,f,h,act,opt,threads,batch,time,unused\n");
	for (size_t i = 0; i < n; i++) {
		double k = ks[pm__pcg32_below(&r, 5)], f = fs[pm__pcg32_below(&r, 5)];
		double h = hs[pm__pcg32_below(&r, 5)], th = ths[pm__pcg32_below(&r, 4)];
		double b = bs[pm__pcg32_below(&r, 5)];
		int act = (int)pm__pcg32_below(&r, 3), opt = (int)pm__pcg32_below(&r, 2);
		double t = syn_time(k, f, h, act, opt, th, b);

		if (noise > 0) {
			/* Box–Muller from two uniforms */
			double u1 = pm__pcg32_uniform(&r), u2 = pm__pcg32_uniform(&r);
			double z = sqrt(-2.0 * log(1.0 - u1)) * cos(6.283185307179586 * u2);
			t *= exp(noise * z);
		}
		len += (size_t)snprintf(s + len, cap - len, "%g,%g,%g,%s,%s,%g,%g,%.17g,x\n", k, f,
					h, syn_act[act], syn_opt[opt], th, b, t);
	}
	return s;
}

#endif
