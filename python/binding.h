/* What the files of the extension perfmodel._perfmodel share (docs/python.md):
 * _perfmodel.c the module and its errors, model_type.c the Model type,
 * report_call.c its report, fit_call.c the fits and inspect, options.c the
 * options dict as the library's structs, interrupt.c Ctrl-C during long
 * calls. The extension
 * exports PyInit__perfmodel alone (python/meson.build): these stay inside. */
#ifndef PERFMODEL_PYTHON_BINDING_H
#define PERFMODEL_PYTHON_BINDING_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <signal.h>

#include "perfmodel/options.h"

/* ---- _perfmodel.c ---- */
/* Raise perfmodel.Error from err (its message and place); returns NULL. */
PyObject *pmpy_raise(const pm_error *err);
/* Raise perfmodel.Error with a message of the binding's own (no place);
 * returns NULL. */
PyObject *pmpy_raise_message(const char *fmt, ...);
PyObject *pmpy_str_or_none(const char *s);
/* A list of n items, item(ctx, i) each: a new reference, or NULL with an
 * exception, which fails the whole list. */
PyObject *pmpy_list_of(size_t n, PyObject *(*item)(const void *ctx, size_t i), const void *ctx);
PyObject *pmpy_metrics_dict(const pm_metrics *x);

/* ---- model_type.c ---- */
typedef struct {
	PyObject_HEAD
	pm_model *m;
	/* the rows a fit made it from, owned (NULL: a loaded model): its
	 * report's (report_call.c) */
	pm_dataset *data, *test;
} pmpy_model;
extern PyTypeObject pmpy_model_type;
/* A CModel owning m (freed with it; freed here when it cannot be made),
 * without rows. */
PyObject *pmpy_model_wrap(pm_model *m);

/* ---- report_call.c: the Model's _report_html, _plots, _eval, _scaling and _rows ---- */
PyObject *pmpy_model_report_html(PyObject *self, PyObject *args);
PyObject *pmpy_model_eval(PyObject *self, PyObject *arg);
PyObject *pmpy_model_plots(PyObject *self, PyObject *args);
PyObject *pmpy_model_scaling(PyObject *self, PyObject *args);
/* ---- advise_call.c: the Model's _advise ---- */
PyObject *pmpy_model_advise(PyObject *self, PyObject *args);
PyObject *pmpy_model_rows(PyObject *self, PyObject *unused);

/* ---- options.c: the options of perfmodel/__init__.py, as words ---- */
/* An argument vector the library parses (pm_options_parse): argv[0] the
 * command, then the words; all in memory of its own (malloc: a call left
 * running after Ctrl-C outlives the Python objects). */
struct pmpy_words {
	int argc;
	char **argv;
	char *text;
};
/* list (of str or bytes) after command into *w: 0, or -1 with an exception
 * (perfmodel.Error naming a word with a NUL, which C would cut short, by
 * label, or NULL: by its option's name). */
int pmpy_argv(PyObject *list, const char *command, const char *label, struct pmpy_words *w);
void pmpy_words_free(struct pmpy_words *w);
/* _option_table(): the option table as [(name, takes_value, flags)]. */
PyObject *pmpy_option_table(PyObject *mod, PyObject *unused);

/* ---- fit_call.c: the module's _fit and _inspect ---- */
PyObject *pmpy_fit(PyObject *mod, PyObject *args);
PyObject *pmpy_plan(PyObject *mod, PyObject *args);
PyObject *pmpy_batch(PyObject *mod, PyObject *args);
PyObject *pmpy_check(PyObject *mod, PyObject *args);
PyObject *pmpy_lif(PyObject *mod, PyObject *args);
PyObject *pmpy_inspect(PyObject *mod, PyObject *args);

/* ---- interrupt.c ---- */
/* A long library call, run on a thread of its own while the caller waits
 * (with the GIL released), so that Ctrl-C reaches Python while it runs:
 * run(job) makes the call, drop(job) frees job and all it owns, so job
 * must own copies of all the call reads. stop: the call's stop flag
 * (pm_fit_options.stop), which a SIGINT sets; NULL for a call without one,
 * whose caller reads Python's signals instead. cancel: a flag the call
 * polls (a reader's pm_read_options.stop), set when the caller leaves it
 * behind, or NULL. 0: run has returned and the caller has job (and drops
 * it). -1 with an exception (KeyboardInterrupt): the call is left to end by
 * itself, asked to end soon through cancel, and then drops job; the caller
 * must not touch it. */
int pmpy_run_watched(void (*run)(void *job), void (*drop)(void *job), void *job,
		     volatile sig_atomic_t *stop, volatile sig_atomic_t *cancel);

#endif
