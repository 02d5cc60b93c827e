/* What the files of the extension perfmodel._perfmodel share (docs/python.md):
 * _perfmodel.c the module and its errors, model_type.c the Model type,
 * fit_call.c the fits and inspect, options.c the options dict as the
 * library's structs, interrupt.c Ctrl-C during long calls. The extension
 * exports PyInit__perfmodel alone (python/meson.build): these stay inside. */
#ifndef PERFMODEL_PYTHON_BINDING_H
#define PERFMODEL_PYTHON_BINDING_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <signal.h>

#include "perfmodel/perfmodel.h"

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
} pmpy_model;
extern PyTypeObject pmpy_model_type;
/* A CModel owning m (freed with it; freed here when it cannot be made). */
PyObject *pmpy_model_wrap(pm_model *m);

/* ---- options.c: the options dict of perfmodel/__init__.py ---- */
/* The string at key: 1 and *out (alive as long as the dict), 0 when key is
 * absent, -1 with perfmodel.Error naming key for a string with a NUL, which
 * C would cut short (or another exception: not a str or bytes). */
int pmpy_opt_str(PyObject *o, const char *key, const char **out);
int pmpy_opt_u64(PyObject *o, const char *key, uint64_t *out);
int pmpy_opt_uint(PyObject *o, const char *key, unsigned *out);
/* The structs of the options: -1 with a Python exception, or with *st and
 * err filled by the library (a name it does not know). */
int pmpy_fit_options(PyObject *o, pm_fit_options *fo, pm_status *st, pm_error *err);
int pmpy_read_options(PyObject *o, pm_read_options *ro, pm_status *st, pm_error *err);
int pmpy_build_spec(PyObject *o, pm_spec **out, pm_status *st, pm_error *err);
int pmpy_candidates(PyObject *o, pm_candidate **out, size_t *n, pm_status *st, pm_error *err);

/* ---- fit_call.c: the module's _fit and _inspect ---- */
PyObject *pmpy_fit(PyObject *mod, PyObject *args);
PyObject *pmpy_inspect(PyObject *mod, PyObject *args);

/* ---- interrupt.c ---- */
/* A long library call, run on a thread of its own while the caller waits
 * (with the GIL released), so that Ctrl-C reaches Python while it runs:
 * run(job) makes the call, drop(job) frees job and all it owns, so job
 * must own copies of all the call reads. stop: the call's stop flag
 * (pm_fit_options.stop), which a SIGINT sets; NULL for a call without one,
 * whose caller reads Python's signals instead. 0: run has returned and the
 * caller has job (and drops it). -1 with an exception (KeyboardInterrupt):
 * the call is left to end by itself, which then drops job; the caller must
 * not touch it. */
int pmpy_run_watched(void (*run)(void *job), void (*drop)(void *job), void *job,
		     volatile sig_atomic_t *stop);

#endif
