/* perfmodel.batch's and fit_groups' batch: jobs (JSON Lines text,
 * docs/batch.md) run by the library's batch (perfmodel/batch.h) on threads
 * of their own, each job's result line kept in job order; Ctrl-C as
 * interrupt.c says. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "binding.h"
#include "perfmodel/batch.h"

struct batch_job {
	char *text;		/* the jobs, a copy */
	size_t len;
	const char *name;	/* what the jobs are, as their errors name them */
	char threads[24];	/* each job's --threads */
	unsigned workers;	/* jobs at once */
	pm_batch *b;
	char **lines;		/* each job's result line */
	size_t n, next;		/* jobs; the next to hand out */
	int stopped;		/* a job was cut short */
	pthread_mutex_t mu;
	volatile sig_atomic_t stop;
	pm_status st;
	pm_error err;
};

static void *worker(void *arg)
{
	struct batch_job *j = arg;

	for (;;) {
		size_t i;
		char *line = NULL;
		pm_batch_outcome outcome;
		pm_error err = { 0 };
		pm_status st;

		pthread_mutex_lock(&j->mu);
		i = j->st || j->stopped ? j->n : j->next++;
		pthread_mutex_unlock(&j->mu);
		if (i >= j->n)
			return NULL;
		st = pm_batch_run(j->b, i, &line, &outcome, &err);
		pthread_mutex_lock(&j->mu);
		if (st && !j->st) {
			j->st = st;
			j->err = err;
		}
		j->stopped |= !st && outcome == PM_BATCH_STOPPED;
		j->lines[i] = line;
		pthread_mutex_unlock(&j->mu);
	}
}

static void batch_run(void *job)
{
	struct batch_job *j = job;
	pm_batch_options o = { .threads = j->threads, .stop = &j->stop };
	pthread_t t[64];
	unsigned started = 0;

	if ((j->st = pm_batch_parse(j->text, j->len, j->name, &o, &j->b, &j->err)))
		return;
	j->n = pm_batch_njobs(j->b);
	for (size_t i = 0; i < j->n; i++)
		if (pm_batch_job_error(j->b, i)) {	/* "NAME:LINE: why", placed */
			j->st = j->err.code = PM_EINVAL;
			snprintf(j->err.msg, sizeof(j->err.msg), "%s", pm_batch_job_error(j->b, i));
			snprintf(j->err.file, sizeof(j->err.file), "%s", j->name);
			j->err.line = (unsigned)(i + 1);
			return;
		}
	if (!(j->lines = calloc(j->n + 1, sizeof(*j->lines)))) {
		j->st = PM_ENOMEM;
		j->err.code = PM_ENOMEM;
		snprintf(j->err.msg, sizeof(j->err.msg), "out of memory");
		return;
	}
	for (; started < j->workers && started < j->n && started < 64; started++)
		if (pthread_create(&t[started], NULL, worker, j))
			break;
	if (!started)	/* no thread: this one */
		worker(j);
	for (unsigned k = 0; k < started; k++)
		pthread_join(t[k], NULL);
}

static void batch_drop(void *job)
{
	struct batch_job *j = job;

	for (size_t i = 0; j->lines && i < j->n; i++)
		free(j->lines[i]);
	free(j->lines);
	pm_batch_free(j->b);
	free(j->text);
	free(j);
}

static PyObject *line_item(const void *ctx, size_t i)
{
	return PyUnicode_FromString(((const struct batch_job *)ctx)->lines[i]);
}

/* _batch(jobs, workers, threads, name): the jobs (JSON Lines text, named
 * name), workers of them at once, each fit on `threads` threads. Returns
 * their result lines in job order; a line that is no job (the package
 * wrote a member the batch refuses) raises Error before any job runs,
 * placed at name:LINE. */
PyObject *pmpy_batch(PyObject *mod, PyObject *args)
{
	const char *text, *name;
	Py_ssize_t len;
	unsigned workers, threads;
	struct batch_job *j;
	PyObject *ret;

	(void)mod;
	if (!PyArg_ParseTuple(args, "s#IIs", &text, &len, &workers, &threads, &name))
		return NULL;
	if (!(j = calloc(1, sizeof(*j))) || !(j->text = malloc((size_t)len + 1))) {
		free(j);
		return PyErr_NoMemory();
	}
	memcpy(j->text, text, (size_t)len + 1);
	j->len = (size_t)len;
	j->name = name;
	j->workers = workers ? workers : 1;
	snprintf(j->threads, sizeof(j->threads), "%u", threads ? threads : 1);
	pthread_mutex_init(&j->mu, NULL);
	if (pmpy_run_watched(batch_run, batch_drop, j, &j->stop, &j->stop) < 0)
		return NULL;
	if (j->st)
		ret = pmpy_raise(&j->err);
	else if (j->stopped)	/* a stop that was no Ctrl-C of this call */
		ret = pmpy_raise_message("the batch was stopped before every job was run");
	else
		ret = pmpy_list_of(j->n, line_item, j);
	batch_drop(j);
	return ret;
}
