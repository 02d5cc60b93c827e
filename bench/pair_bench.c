/* Two builds of the library timed in one process, in pairs: this project's
 * 2-vCPU VM changes speed by a quarter from minute to minute, more than most
 * changes measured, so a before/after comparison must alternate the two at
 * once, on the same data, and compare within each pair. Both libperfmodel
 * builds are loaded side by side (dlopen, RTLD_LOCAL: each its own symbols)
 * and run in turn, which first alternating with each round.
 *
 * usage: pair_bench BEFORE.so AFTER.so DATA.csv SPEC.json MODE ROUNDS [THREADS]
 *   MODE     discover   pm_discover with the default options
 *            fit        pm_fit of eq. 4.4 (form multiplicative), no intervals
 *            intervals  the intervals' calibration: pm_fit of eq. 4.4 with 5
 *                       intervals' folds less the same fit without (paired)
 *   ROUNDS   pairs per thread count (each seed 1 + round % 3)
 *   THREADS  comma-separated thread counts (default 1,2)
 * Prints, per thread count, each build's median time and the after/before
 * ratio within pairs (median and quartiles), and per build the speed-up of
 * each thread count over the first, within rounds. Timings only. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_points.h"
#include "perfmodel/perfmodel.h"

enum { MAX_ROUNDS = 256, MAX_THREADS = 8 };

struct build {
	pm_status (*read_csv)(const char *, pm_dataset **, pm_error *);
	pm_status (*read_spec)(const char *, pm_spec **, pm_error *);
	pm_status (*set_form)(pm_spec *, const char *, pm_error *);
	pm_fit_options (*fit_defaults)(void);
	pm_status (*fit)(const pm_dataset *, const pm_spec *, const pm_fit_options *, pm_model **,
			 pm_error *);
	void (*model_free)(pm_model *);
	pm_discover_options (*discover_defaults)(void);
	pm_status (*discover)(const pm_dataset *, const pm_spec *, const pm_discover_options *,
			      pm_discovery **, pm_error *);
	void (*discovery_free)(pm_discovery *);
	pm_dataset *d;
	pm_spec *s;
};

static void fail(const char *what, const char *why)
{
	fprintf(stderr, "pair_bench: %s: %s\n", what, why);
	exit(1);
}

/* The function `name` of h into the pointer at f (POSIX's way to take a
 * function from dlsym: ISO C has no conversion from void *). */
static void symbol(void *h, const char *name, void *f)
{
	void *p = dlsym(h, name);

	if (!p)
		fail(name, dlerror());
	memcpy(f, &p, sizeof(p));
}

static void load(struct build *b, const char *so, const char *data, const char *spec, int eq44)
{
	void *h = dlopen(so, RTLD_NOW | RTLD_LOCAL);
	pm_error err = { 0 };

	if (!h)
		fail(so, dlerror());
	symbol(h, "pm_dataset_read_csv", &b->read_csv);
	symbol(h, "pm_spec_read_file", &b->read_spec);
	symbol(h, "pm_spec_set_form", &b->set_form);
	symbol(h, "pm_fit_options_default", &b->fit_defaults);
	symbol(h, "pm_fit", &b->fit);
	symbol(h, "pm_model_free", &b->model_free);
	symbol(h, "pm_discover_options_default", &b->discover_defaults);
	symbol(h, "pm_discover", &b->discover);
	symbol(h, "pm_discovery_free", &b->discovery_free);
	if (b->read_csv(data, &b->d, &err) || b->read_spec(spec, &b->s, &err) ||
	    (eq44 && b->set_form(b->s, "multiplicative", &err)))
		fail(so, err.msg);
}

static double fit_once(const struct build *b, unsigned threads, unsigned seed, unsigned intervals)
{
	pm_fit_options o = b->fit_defaults();
	pm_model *m = NULL;
	pm_error err = { 0 };
	double t0;

	o.threads = threads;
	o.seed = seed;
	o.intervals = intervals;
	t0 = bench_now();
	if (b->fit(b->d, b->s, &o, &m, &err))
		fail("pm_fit", err.msg);
	t0 = bench_now() - t0;
	b->model_free(m);
	return t0;
}

/* One timing of mode on b. */
static double once(const struct build *b, const char *mode, unsigned threads, unsigned seed)
{
	pm_discover_options o;
	pm_discovery *x = NULL;
	pm_error err = { 0 };
	double t0;

	if (!strcmp(mode, "fit"))
		return fit_once(b, threads, seed, 0);
	if (!strcmp(mode, "intervals"))
		return fit_once(b, threads, seed, 5) - fit_once(b, threads, seed, 0);
	o = b->discover_defaults();
	o.threads = threads;
	o.validate.seed = seed;
	t0 = bench_now();
	if (b->discover(b->d, b->s, &o, &x, &err))
		fail("pm_discover", err.msg);
	t0 = bench_now() - t0;
	b->discovery_free(x);
	return t0;
}

static int ascending(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* median and quartiles of v[0..n), sorted in place */
static void quartiles(double *v, size_t n, double q[3])
{
	qsort(v, n, sizeof(*v), ascending);
	q[0] = v[n / 4];
	q[1] = v[n / 2];
	q[2] = v[3 * n / 4];
}

int main(int argc, char **argv)
{
	static double t[2][MAX_THREADS][MAX_ROUNDS], v[MAX_ROUNDS];
	struct build b[2];
	unsigned threads[MAX_THREADS], nt = 0;
	const char *list = argc > 7 ? argv[7] : "1,2";
	char *end = NULL;
	size_t rounds = argc > 6 ? strtoul(argv[6], &end, 10) : 0;
	int bad = argc < 7 || *end || rounds < 1 || rounds > MAX_ROUNDS ||
		  (strcmp(argv[5], "discover") && strcmp(argv[5], "fit") &&
		   strcmp(argv[5], "intervals"));
	double q[3];

	/* THREADS: 1 to 1024 each, comma-separated, at most MAX_THREADS */
	for (const char *p = list; !bad && *p; p = *end ? end + 1 : end) {
		unsigned long n = strtoul(p, &end, 10);

		bad = end == p || n < 1 || n > 1024 || (*end && *end != ',') ||
		      (*end == ',' && !end[1]) || nt == MAX_THREADS;
		threads[nt++ % MAX_THREADS] = (unsigned)n;
	}
	if (bad) {
		fprintf(stderr, "usage: pair_bench BEFORE.so AFTER.so DATA.csv SPEC.json "
				"discover|fit|intervals ROUNDS [THREADS]\n"
				"  ROUNDS 1 to %d; THREADS up to %d counts of 1 to 1024, "
				"comma-separated (default 1,2)\n", MAX_ROUNDS, MAX_THREADS);
		return 2;
	}
	for (int k = 0; k < 2; k++)
		load(&b[k], argv[1 + k], argv[3], argv[4], strcmp(argv[5], "discover") != 0);
	for (size_t r = 0; r < rounds; r++)
		for (int turn = 0; turn < 2; turn++) {
			int k = r % 2 ? 1 - turn : turn;

			for (unsigned i = 0; i < nt; i++)
				t[k][i][r] = once(&b[k], argv[5], threads[i], 1 + (unsigned)(r % 3));
		}
	printf("pair_bench %s, %zu rounds\n", argv[5], rounds);
	for (unsigned i = 0; i < nt; i++) {
		double med[2];

		for (int k = 0; k < 2; k++) {
			memcpy(v, t[k][i], rounds * sizeof(*v));
			quartiles(v, rounds, q);
			med[k] = q[1];
		}
		for (size_t r = 0; r < rounds; r++)
			v[r] = t[1][i][r] / t[0][i][r];
		quartiles(v, rounds, q);
		printf("  %u threads: before %.4f s, after %.4f s (medians); after/before in pairs "
		       "%.3f (quartiles %.3f-%.3f)\n", threads[i], med[0], med[1], q[1], q[0], q[2]);
	}
	for (int k = 0; k < 2; k++)
		for (unsigned i = 1; i < nt; i++) {
			for (size_t r = 0; r < rounds; r++)
				v[r] = t[k][0][r] / t[k][i][r];
			quartiles(v, rounds, q);
			printf("  %s: %u threads over %u, within rounds: %.3fx (quartiles %.3f-%.3f)\n",
			       k ? "after" : "before", threads[i], threads[0], q[1], q[0], q[2]);
		}
	return 0;
}
