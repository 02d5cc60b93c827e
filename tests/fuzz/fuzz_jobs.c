/* The jobs file reader (perfmodel/batch.h): the input is a jobs file,
 * read from memory (pm_batch_parse), so that no file is opened; each line
 * that is no job is then its error line (pm_batch_run reads no data for
 * it). A read either succeeds, every line a job or its error, or says why
 * with the place; an error line is one JSON line with the job's id. */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "perfmodel/batch.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* the first byte: whether every job gets --threads */
	const pm_batch_options o = { .threads = size && (data[0] & 1) ? "2" : NULL };
	pm_batch *b = NULL;
	pm_error err;
	pm_status st = pm_batch_parse((const char *)data, size, "fuzz.jsonl", &o, &b, &err);

	if (st != PM_OK) {
		/* only two jobs of one id, named by the second's line */
		if (b || st != PM_EINVAL || strcmp(err.file, "fuzz.jsonl") || !err.line ||
		    !err.msg[0])
			abort();
		return 0;
	}
	for (size_t i = 0; i < pm_batch_njobs(b); i++) {
		const char *why = pm_batch_job_error(b, i);
		pm_batch_outcome outcome;
		char *line = NULL;
		size_t n;

		if (!why)
			continue;
		if (strncmp(why, "fuzz.jsonl:", 11) && strcmp(why, "out of memory"))
			abort();
		if (pm_batch_run(b, i, &line, &outcome, &err) != PM_OK)
			abort();
		n = strlen(line);
		if (outcome != PM_BATCH_FAILED || strncmp(line, "{\"id\": ", 7) || n < 3 ||
		    strcmp(line + n - 2, "}\n") || memchr(line, '\n', n - 1))
			abort();
		free(line);
	}
	pm_batch_free(b);
	return 0;
}
