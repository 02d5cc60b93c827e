/* The options of perfmodel/__init__.py as the library parses them
 * (perfmodel/options.h): __init__.py turns the keyword arguments into the
 * command line's words, typed as Python types them; the table, the values'
 * checks and the checks together are the library's, the CLI's own. */
#include <stdlib.h>
#include <string.h>

#include "binding.h"

/* v's UTF-8 (str) or bytes (a path: the file system's own bytes), whole:
 * a NUL inside is an error naming what, not a string cut there. */
static int text_of(PyObject *v, const char *what, const char **out, Py_ssize_t *len)
{
	const char *s;

	if (PyBytes_Check(v)) {
		s = PyBytes_AS_STRING(v);
		*len = PyBytes_GET_SIZE(v);
	} else if (!(s = PyUnicode_AsUTF8AndSize(v, len)))
		return -1;
	if (strlen(s) != (size_t)*len) {
		pmpy_raise_message("%s: contains a NUL character (at %zu)", what, strlen(s));
		return -1;
	}
	*out = s;
	return 0;
}

/* What a word is called in a message: "--NAME=..." by NAME, else "argument I". */
static void word_name(PyObject *w, Py_ssize_t i, char *out, size_t size)
{
	const char *s = PyUnicode_Check(w) ? PyUnicode_AsUTF8(w) : NULL;
	size_t n;

	PyErr_Clear();
	if (s && s[0] == '-' && s[1] == '-' && (n = strcspn(s + 2, "=")) && s[2 + n] == '=') {
		pm_snprintf(out, size, "%.*s", (int)(n < size - 1 ? n : size - 1), s + 2);
		return;
	}
	pm_snprintf(out, size, "argument %zd", i + 1);
}

int pmpy_argv(PyObject *list, const char *command, const char *label, struct pmpy_words *w)
{
	Py_ssize_t n, size = (Py_ssize_t)strlen(command) + 1;
	const char **text;
	Py_ssize_t *len;
	char *at;

	*w = (struct pmpy_words){ 0 };
	if (!PyList_Check(list)) {
		PyErr_SetString(PyExc_TypeError, "the options: expected a list of words");
		return -1;
	}
	n = PyList_GET_SIZE(list);
	text = calloc((size_t)n + 1, sizeof(*text));
	len = calloc((size_t)n + 1, sizeof(*len));
	if (!text || !len)
		goto oom;
	for (Py_ssize_t i = 0; i < n; i++) {
		char what[64];

		if (label)
			pm_snprintf(what, sizeof(what), "%s", label);
		else
			word_name(PyList_GET_ITEM(list, i), i, what, sizeof(what));
		if (text_of(PyList_GET_ITEM(list, i), what, &text[i], &len[i]) < 0)
			goto fail;
		size += len[i] + 1;
	}
	/* malloc, not PyMem: freed where the GIL may not be held */
	w->argv = calloc((size_t)n + 2, sizeof(*w->argv));
	w->text = malloc((size_t)size);
	if (!w->argv || !w->text)
		goto oom;
	at = w->text;
	w->argv[0] = memcpy(at, command, strlen(command) + 1);
	at += strlen(command) + 1;
	for (Py_ssize_t i = 0; i < n; i++) {
		w->argv[i + 1] = memcpy(at, text[i], (size_t)len[i] + 1);
		at += len[i] + 1;
	}
	w->argc = (int)n + 1;
	free(text);
	free(len);
	return 0;
oom:
	PyErr_NoMemory();
fail:
	free(text);
	free(len);
	pmpy_words_free(w);
	return -1;
}

void pmpy_words_free(struct pmpy_words *w)
{
	free(w->argv);
	free(w->text);
	*w = (struct pmpy_words){ 0 };
}

/* _option_table(): [(name, takes a value, flags)] of pm_option_table. */
PyObject *pmpy_option_table(PyObject *mod, PyObject *unused)
{
	size_t n;
	const pm_option_info *t = pm_option_table(&n);
	PyObject *list = PyList_New((Py_ssize_t)n);

	(void)mod;
	(void)unused;
	for (size_t i = 0; list && i < n; i++) {
		PyObject *row = Py_BuildValue("(siI)", t[i].name, t[i].takes_value, t[i].flags);

		if (!row) {
			Py_CLEAR(list);
			break;
		}
		PyList_SET_ITEM(list, (Py_ssize_t)i, row);
	}
	return list;
}
