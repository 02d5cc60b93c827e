/* The lines of `perfmodel batch`'s results (docs/batch.md): one JSON object
 * a line, in the writer's one-line layout, so that a results file is read a
 * job at a time and two runs of one batch can be compared byte for byte. */
#include <stdlib.h>

#include "core/error.h"
#include "core/jsonw.h"
#include "results/model_save.h"

static void id_member(pm_jw *w, const pm_batch_id *id)
{
	pm__jw_key(w, "id");
	if (!id || !id->given)
		pm__jw_null(w);
	else if (id->text)
		pm__jw_string(w, id->text);
	else
		pm__jw_int(w, id->number);
}

pm_status pm_batch_line_to_json(const pm_batch_id *id, const pm_model *m, const char *error,
				int timings, char **out, pm_error *err)
{
	pm_jw w;
	pm_status st;

	if ((st = pm__jw_start(&w, out, (m != NULL) != (error != NULL), "model or error (one)",
			       err)))
		return st;
	w.flat = 1;
	pm__jw_object_begin_line(&w);
	id_member(&w, id);
	if (error) {
		pm__jw_key(&w, "error");
		pm__jw_string(&w, error);
	} else {
		pm__jw_key(&w, "model");
		pm__jw_object_begin(&w);
		if ((st = pm__model_write_members_run(&w, m, timings, err))) {
			free(w.buf);
			return st;
		}
		pm__jw_object_end(&w);
	}
	pm__jw_object_end(&w);
	return pm__jw_finish(&w, out, err);
}

pm_status pm_batch_incomplete_to_json(size_t done, size_t jobs, char **out, pm_error *err)
{
	pm_jw w;
	pm_status st;

	if ((st = pm__jw_start(&w, out, done <= jobs, "count: done > jobs", err)))
		return st;
	pm__jw_object_begin_line(&w);
	pm__jw_key(&w, "incomplete");
	pm__jw_bool(&w, 1);
	pm__jw_key(&w, "done");
	pm__jw_uint(&w, done);
	pm__jw_key(&w, "jobs");
	pm__jw_uint(&w, jobs);
	pm__jw_object_end(&w);
	return pm__jw_finish(&w, out, err);
}
