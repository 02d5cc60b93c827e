/* The CSV reader, and every accessor a fit or a prediction uses on what it
 * read: names, cells, places, numbers, the fingerprint. */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "perfmodel/perfmodel.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	pm_dataset *d = NULL;
	pm_error err;
	char fp[17];
	size_t col;

	if (pm_dataset_parse_csv((const char *)data, size, "f.csv", &d, &err) != PM_OK) {
		/* a failure must say where it is and why */
		if (!err.msg[0] || strcmp(err.file, "f.csv") != 0)
			abort();
		return 0;
	}
	for (size_t c = 0; c < pm_dataset_ncols(d); c++) {
		const char *name = pm_dataset_col_name(d, c);

		if (!name || pm_dataset_col_index(d, name, &col, NULL) != PM_OK || col != c)
			abort();
		(void)pm_dataset_col_is_numeric(d, c);
		for (size_t r = 0; r < pm_dataset_nrows(d) && r < 64; r++) {
			double v;

			if (!pm_dataset_cell(d, r, c) || pm_dataset_cell_line(d, r, c) == 0 ||
			    pm_dataset_cell_column(d, r, c) == 0)
				abort();
			(void)pm_dataset_number(d, r, c, &v, &err);
		}
	}
	pm_dataset_fingerprint(d, fp);
	pm_dataset_free(d);
	return 0;
}
