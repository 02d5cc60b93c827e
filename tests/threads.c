/* The library's threads, for ThreadSanitizer (.ci/run builds this with clang
 * -fsanitize=thread and fails on any report; docs/reliability.md). It runs
 * in every build, but it is written for that one: Criterion's runner cannot
 * start under TSan (its sandbox maps memory at fixed addresses TSan
 * reserves: Criterion issue #274), so this is a plain program printing TAP.
 *
 * Everything here shares what a host would share: one dataset, one spec and
 * one loaded model, read by several threads at once, while the library's
 * own pool runs inside each fit. Outputs are plain (non-atomic) memory
 * wherever the library promises an ordering, so that TSan checks the
 * promise: an index's result written by a pool thread and read by the
 * caller after pm__pool_for returns, a fit's model read by the thread that
 * joined it. Each check also compares results: the same bits as one thread
 * alone. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kfold.h"
#include "core/pool.h"
#include "perfmodel/perfmodel.h"
#include "predict_job.h"

static int ntests, nfailed;

static void check(int ok, const char *what)
{
	ntests++;
	nfailed += !ok;
	printf("%sok %d - %s\n", ok ? "" : "not ", ntests, what);
	fflush(stdout);
}

/* A setup step that must work for anything after it to mean something. */
static void require(pm_status st, const pm_error *err, const char *what)
{
	if (st != PM_OK) {
		printf("Bail out! %s: %s\n", what, err->msg);
		exit(1);
	}
}

static void source_path(char *out, size_t size, const char *rel)
{
	const char *root = getenv("PM_SOURCE_ROOT");

	snprintf(out, size, "%s/%s", root ? root : ".", rel);
}

/* Two threads of the library's meet: the first to arrive waits (up to 10 s)
 * for another, so that the work they are in surely runs side by side and
 * is not done by one thread alone (a pool's caller takes the chunks of
 * workers still asleep). Once they have met, arrivals touch only relaxed
 * atomics: a lock taken at every arrival would order the threads' work for
 * TSan and hide the library's races. `calls` counts every arrival. */
struct meet {
	pthread_mutex_t mu;
	pthread_cond_t cond;
	pthread_t first;
	int have_first, timed_out;
	atomic_int met;
	atomic_uint calls;
};

#define MEET_INIT { .mu = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER }

static void meet(struct meet *m)
{
	struct timespec until;

	atomic_fetch_add_explicit(&m->calls, 1, memory_order_relaxed);
	if (atomic_load_explicit(&m->met, memory_order_relaxed))
		return;
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 10;
	pthread_mutex_lock(&m->mu);
	if (!m->have_first) {
		m->first = pthread_self();
		m->have_first = 1;
	} else if (!pthread_equal(m->first, pthread_self())) {
		atomic_store_explicit(&m->met, 1, memory_order_relaxed);
		pthread_cond_broadcast(&m->cond);
	}
	while (!atomic_load_explicit(&m->met, memory_order_relaxed))
		if (pthread_cond_timedwait(&m->cond, &m->mu, &until) != 0) {
			m->timed_out = 1;
			atomic_store_explicit(&m->met, 1, memory_order_relaxed);
			pthread_cond_broadcast(&m->cond);
		}
	pthread_mutex_unlock(&m->mu);
}

/* A progress callback: fits of a batch meet there. */
static void meet_progress(const pm_progress *p, void *arg)
{
	(void)p;
	meet(arg);
}

/* After the threads are joined or the job is done. */
static int side_by_side(struct meet *m)
{
	return m->have_first && atomic_load(&m->met) && !m->timed_out;
}

/* ---- the pool: results in plain memory, read after the job returns ---- */

struct squares {
	double *out;
	unsigned nthreads;
	atomic_int bad_worker;
	struct meet *meet;	/* NULL, or where the job's threads meet */
};

static void square(void *ctx, size_t i, unsigned worker)
{
	struct squares *s = ctx;

	if (worker >= s->nthreads)
		atomic_store(&s->bad_worker, 1);
	if (s->meet)
		meet(s->meet);
	s->out[i] = (double)i * (double)i;
}

static void pool_jobs(unsigned nthreads)
{
	static const size_t sizes[] = { 2, 3, 17, 1000 };
	pm_pool *p = NULL;
	pm_error err = { 0 };
	int ok = 1;
	char what[64];

	require(pm__pool_new(nthreads, &p, &err), &err, "pm__pool_new");
	/* many jobs back to back: the pool reuses its fields every job */
	for (int round = 0; round < 200; round++)
		for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
			size_t n = sizes[k];
			double *out = calloc(n, sizeof(*out));
			struct squares s = { .out = out, .nthreads = pm__pool_threads(p) };

			if (!out) {
				ok = 0;
				continue;
			}
			pm__pool_for(p, n, square, &s);
			for (size_t i = 0; i < n; i++)
				ok &= out[i] == (double)i * (double)i;
			ok &= !atomic_load(&s.bad_worker);
			free(out);
		}
	/* and one job whose indices wait for a second thread */
	{
		struct meet m = MEET_INIT;
		double out[64];
		struct squares s = { .out = out, .nthreads = pm__pool_threads(p), .meet = &m };

		pm__pool_for(p, 64, square, &s);
		for (size_t i = 0; i < 64; i++)
			ok &= out[i] == (double)i * (double)i;
		ok &= side_by_side(&m) && pm__pool_threads(p) == nthreads;
	}
	pm__pool_free(p);
	snprintf(what, sizeof(what), "pool of %u threads: 801 jobs, every index once, side by side",
		 nthreads);
	check(ok, what);
}

/* ---- fits side by side on one dataset and spec ---- */

struct fit_job {
	const pm_dataset *d;
	const pm_spec *s;
	pm_fit_options o;
	unsigned nseeds;	/* 1: pm_fit */
	pm_model *m;
	pm_status st;
	pm_error err;
};

static void *run_fit(void *arg)
{
	struct fit_job *j = arg;

	j->st = j->nseeds == 1 ? pm_fit(j->d, j->s, &j->o, &j->m, &j->err)
			       : pm_fit_seeds(j->d, j->s, &j->o, j->nseeds, &j->m, &j->err);
	return NULL;
}

/* The same fitted parameters, bit for bit. */
static int same_params(const pm_model *a, const pm_model *b)
{
	if (!a || !b || pm_model_nparams(a) != pm_model_nparams(b))
		return 0;
	for (size_t k = 0; k < pm_model_nparams(a); k++) {
		double x = pm_model_param_value(a, k), y = pm_model_param_value(b, k);

		if (memcmp(&x, &y, sizeof(x)) != 0)
			return 0;
	}
	return 1;
}

/* The progress callback, called from the fits' threads at once. */
static void count_progress(const pm_progress *p, void *arg)
{
	(void)p;
	atomic_fetch_add_explicit((atomic_uint *)arg, 1, memory_order_relaxed);
}

static void fits_side_by_side(const pm_dataset *d, const pm_spec *s)
{
	pm_fit_options o = pm_fit_options_default();
	atomic_uint calls = 0;
	struct meet seeds_meet = MEET_INIT;
	struct fit_job alone[2], both[2];
	pthread_t th[2];
	int started = 1;

	o.maxiter = 40;
	o.progress = count_progress;
	o.progress_arg = &calls;
	/* references: one thread each, one at a time */
	o.threads = 1;
	alone[0] = (struct fit_job){ .d = d, .s = s, .o = o, .nseeds = 1 };
	alone[1] = (struct fit_job){ .d = d, .s = s, .o = o, .nseeds = 3 };
	for (int k = 0; k < 2; k++) {
		run_fit(&alone[k]);
		require(alone[k].st, &alone[k].err, k ? "pm_fit_seeds alone" : "pm_fit alone");
	}
	/* pm_fit on a pool of 2 while pm_fit_seeds runs 3 seeds on 2 threads,
	 * two of its fits at once (they meet) */
	o.threads = 2;
	for (int k = 0; k < 2; k++) {
		both[k] = (struct fit_job){ .d = d, .s = s, .o = o, .nseeds = alone[k].nseeds };
		if (k) {
			both[k].o.progress = meet_progress;
			both[k].o.progress_arg = &seeds_meet;
		}
		started &= pthread_create(&th[k], NULL, run_fit, &both[k]) == 0;
	}
	for (int k = 0; k < 2; k++)
		pthread_join(th[k], NULL);
	check(started && both[0].st == PM_OK && same_params(both[0].m, alone[0].m),
	      "pm_fit on 2 threads beside pm_fit_seeds: the bits of 1 thread alone");
	check(started && both[1].st == PM_OK && same_params(both[1].m, alone[1].m) &&
		      pm_model_nseeds(both[1].m) == 3 && side_by_side(&seeds_meet),
	      "pm_fit_seeds (3 seeds, 2 threads, side by side) beside pm_fit: the bits of 1 thread alone");
	check(atomic_load(&calls) > 0, "progress called from the fits' threads");
	for (int k = 0; k < 2; k++) {
		pm_model_free(alone[k].m);
		pm_model_free(both[k].m);
	}
}

/* pm_sweep_run and pm_select run their fits on a pool: 1 and 2 threads
 * give the same results. */
static void sweep_and_select(const pm_dataset *d, const pm_spec *s)
{
	static const pm_candidate cand[] = { { .form = "additive", .loss = PM_LOSS_MAE },
					     { .form = "multiplicative", .loss = PM_LOSS_MAE } };
	pm_sweep_options so = { .lambda_lo = 1e-3, .lambda_hi = 1e-1, .npoints = 3, 
				.validate = KFOLD_OPTIONS(2, 1) };
	pm_fit_options o = pm_fit_options_default();
	pm_sweep *sw[2] = { NULL, NULL };
	pm_model *m[2] = { NULL, NULL };
	pm_cv_result cv[2][2];
	size_t best[2];
	pm_error err = { 0 };
	struct meet sweep_meet = MEET_INIT;
	int same = 1;

	o.maxiter = 20;
	o.reg = PM_REG_L2;
	for (unsigned t = 1; t <= 2; t++) {
		o.threads = t;
		/* on 2 threads, two of the sweep's fits at once */
		o.progress = t == 2 ? meet_progress : NULL;
		o.progress_arg = &sweep_meet;
		require(pm_sweep_run(d, s, &o, &so, &sw[t - 1], &err), &err, "pm_sweep_run");
	}
	for (size_t k = 0; k < so.npoints; k++)
		same &= memcmp(&sw[0]->point[k].test, &sw[1]->point[k].test,
			       sizeof(sw[0]->point[k].test)) == 0;
	check(same && side_by_side(&sweep_meet),
	      "pm_sweep_run (3 λ × 2 folds, side by side): 2 threads give the bits of 1");
	o.reg = PM_REG_NONE;
	o.progress = NULL;
	for (unsigned t = 1; t <= 2; t++) {
		o.threads = t;
		require(pm_select(d, s, &o, cand, 2, KFOLD(2, 1), cv[t - 1], &best[t - 1], &m[t - 1], &err),
			&err, "pm_select");
	}
	check(best[0] == best[1] && cv[0][0].mape == cv[1][0].mape && cv[0][1].mape == cv[1][1].mape &&
		      same_params(m[0], m[1]),
	      "pm_select (2 forms × 2 folds): 2 threads give the bits of 1");
	for (int k = 0; k < 2; k++) {
		pm_sweep_free(sw[k]);
		pm_model_free(m[k]);
	}
}

/* ---- a stop request from another thread ---- */

struct stopper {
	volatile sig_atomic_t *stop;
	struct meet meet;	/* the fits' progress */
};

static void *request_stop(void *arg)
{
	struct stopper *s = arg;
	struct timespec pause = { 0, 100000 };

	/* once both fits are under way, as a host's watchdog would */
	while (atomic_load_explicit(&s->meet.calls, memory_order_relaxed) < 6)
		nanosleep(&pause, NULL);
	pm_request_stop(s->stop);
	return NULL;
}

static void stop_from_a_thread(const pm_dataset *d, const pm_spec *s)
{
	volatile sig_atomic_t stop = 0;
	struct stopper st = { .stop = &stop, .meet = MEET_INIT };
	pm_fit_options o = pm_fit_options_default();
	struct fit_job j;
	pthread_t th;
	int started;

	o.maxiter = 100000;
	o.tol = 0;	/* never converges: only the stop request ends it */
	o.threads = 2;
	o.stop = &stop;
	o.progress = meet_progress;
	o.progress_arg = &st.meet;
	j = (struct fit_job){ .d = d, .s = s, .o = o, .nseeds = 2 };
	started = pthread_create(&th, NULL, request_stop, &st) == 0;
	if (started) {
		run_fit(&j);
		pthread_join(th, NULL);
	}
	check(started && j.st == PM_OK && pm_model_fit_info(j.m)->interrupted &&
		      side_by_side(&st.meet),
	      "pm_fit_seeds (2 fits side by side) stopped by a request from another thread");
	pm_model_free(j.m);
}

/* ---- the predictor: one model, several threads ---- */

enum { NPOINTS = 2000, NTHREADS = 4 };

static void predict_from_threads(void)
{
	struct predict_job job[NTHREADS];
	double *got[NTHREADS];
	char path[1024];
	pm_model *m = NULL;
	pm_error err = { 0 };
	double *x, *serial;
	size_t ni;
	pthread_t th[NTHREADS];
	int started[NTHREADS], ok = 1;

	source_path(path, sizeof(path), "docs/examples/ddp_mlp_model.json");
	require(pm_model_load_file(path, &m, &err), &err, path);
	ni = pm_model_ninputs(m);
	x = malloc(NPOINTS * ni * sizeof(*x));
	serial = malloc(NPOINTS * sizeof(*serial));
	if (!x || !serial) {
		printf("Bail out! out of memory\n");
		exit(1);
	}
	/* points of every level, numbers > 0 of several magnitudes */
	for (size_t k = 0; k < NPOINTS; k++)
		for (size_t i = 0; i < ni; i++)
			x[k * ni + i] = pm_model_input_role(m, i) == PM_ROLE_CATEGORICAL
						? (double)(k % pm_model_nlevels(m, i))
						: 1.0 + (double)((k * 7 + i * 13) % 512);
	require(pm_model_predict_batch(m, x, NPOINTS, serial, &err), &err, "serial batch");
	for (int t = 0; t < NTHREADS; t++) {
		got[t] = calloc(NPOINTS, sizeof(double));
		job[t] = (struct predict_job){ .m = m, .x = x, .n = NPOINTS, .out = got[t] };
		started[t] = got[t] && pthread_create(&th[t], NULL, predict_job_run, &job[t]) == 0;
	}
	for (int t = 0; t < NTHREADS; t++) {
		if (started[t])
			pthread_join(th[t], NULL);
		ok &= started[t] && !job[t].failed &&
		      memcmp(got[t], serial, NPOINTS * sizeof(double)) == 0;
		free(got[t]);
	}
	check(ok, "4 threads predict on one model, by name and in batches: the serial bits");
	free(x);
	free(serial);
	pm_model_free(m);
}

/* Intervals too: a fit calibrated on its own pool (the fold fits), then
 * one model's intervals and quantiles from several threads. */
struct interval_job {
	const pm_model *m;
	const double *x;
	size_t n;
	double *out;	/* 3 a point: lower, upper, the 0.75-quantile */
	int failed;
};

static void *interval_job_run(void *arg)
{
	struct interval_job *j = arg;
	size_t ni = pm_model_ninputs(j->m);

	for (size_t k = 0; k < j->n; k++) {
		double d;

		j->failed |= pm_model_predict_interval(j->m, j->x + k * ni, 0.9, &j->out[3 * k],
						       &j->out[3 * k + 1], NULL) != PM_OK ||
			     pm_model_predict_quantile(j->m, j->x + k * ni, 0.75, &j->out[3 * k + 2],
						       NULL) != PM_OK ||
			     pm_model_extrapolation(j->m, j->x + k * ni, &d, NULL, NULL) != PM_OK;
	}
	return NULL;
}

static void intervals_from_threads(const pm_dataset *d, const pm_spec *s)
{
	struct interval_job job[NTHREADS], one;
	pm_fit_options o = pm_fit_options_default();
	pm_model *m = NULL;
	pm_error err = { 0 };
	pthread_t th[NTHREADS];
	int started[NTHREADS], ok = 1;
	double x[2 * NPOINTS], *serial = malloc(3 * NPOINTS * sizeof(double));

	o.threads = 2;
	o.intervals = 5;
	require(pm_fit(d, s, &o, &m, &err), &err, "a fit with intervals");
	check(pm_model_has_intervals(m), "a fit calibrates its intervals on its pool's threads");
	/* n and threads, inside the data and beyond it */
	for (size_t k = 0; k < NPOINTS; k++) {
		x[2 * k] = 64.0 * (double)(1 + k % 64);
		x[2 * k + 1] = (double)(1 + k % 4);
	}
	one = (struct interval_job){ .m = m, .x = x, .n = NPOINTS, .out = serial };
	interval_job_run(&one);
	for (int t = 0; t < NTHREADS; t++) {
		job[t] = (struct interval_job){ .m = m, .x = x, .n = NPOINTS,
						.out = calloc(3 * NPOINTS, sizeof(double)) };
		started[t] = job[t].out &&
			     pthread_create(&th[t], NULL, interval_job_run, &job[t]) == 0;
	}
	for (int t = 0; t < NTHREADS; t++) {
		if (started[t])
			pthread_join(th[t], NULL);
		ok &= started[t] && !job[t].failed &&
		      memcmp(job[t].out, serial, 3 * NPOINTS * sizeof(double)) == 0;
		free(job[t].out);
	}
	check(ok && !one.failed, "4 threads predict intervals and quantiles on one model: the "
	      "serial bits");
	free(serial);
	pm_model_free(m);
}

/* discover's search on 1 and 4 threads: its step's hypotheses evaluated
 * side by side, and between steps the moves' screens and new terms'
 * columns made on the pool's threads (discover_moves.c, pm__disc_settle);
 * gemm's n and threads, with their products and switches climbed. */
static void discover_on_threads(const pm_dataset *d, const pm_spec *s)
{
	pm_discover_options o = pm_discover_options_default();
	pm_discovery *x[2] = { NULL, NULL };
	pm_error err = { 0 };
	int same;

	o.max_terms = 2;
	o.beam = 8;
	for (int k = 0; k < 2; k++) {
		o.threads = k ? 4 : 1;
		require(pm_discover(d, s, &o, &x[k], &err), &err, "pm_discover");
	}
	same = x[0]->n == x[1]->n && x[0]->chosen == x[1]->chosen &&
	       x[0]->hypotheses == x[1]->hypotheses;
	for (size_t i = 0; same && i < x[0]->n; i++)
		same = strcmp(x[0]->cand[i].formula, x[1]->cand[i].formula) == 0 &&
		       memcmp(&x[0]->cand[i].mape, &x[1]->cand[i].mape, sizeof(double)) == 0;
	check(same, "pm_discover: 4 threads give the candidates of 1, bit for bit");
	pm_discovery_free(x[0]);
	pm_discovery_free(x[1]);
}

int main(void)
{
	char data[1024], spec[1024];
	pm_dataset *d = NULL;
	pm_spec *s = NULL;
	pm_error err = { 0 };

	for (unsigned t = 2; t <= 4; t++)
		pool_jobs(t);
	source_path(data, sizeof(data), "data/gemm_cpu.csv");
	source_path(spec, sizeof(spec), "models/gemm.json");
	require(pm_dataset_read_csv(data, &d, &err), &err, data);
	require(pm_spec_read_file(spec, &s, &err), &err, spec);
	fits_side_by_side(d, s);
	sweep_and_select(d, s);
	discover_on_threads(d, s);
	stop_from_a_thread(d, s);
	predict_from_threads();
	intervals_from_threads(d, s);
	pm_spec_free(s);
	pm_dataset_free(d);
	printf("1..%d\n", ntests);
	return nfailed != 0;
}
