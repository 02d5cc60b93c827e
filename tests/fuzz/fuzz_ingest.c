/* The readers of other formats and the aggregation behind them: the first
 * byte picks the format and how runs become rows, the rest is the file. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "perfmodel/perfmodel.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	pm_read_options o = pm_read_options_default();
	pm_read_info info;
	pm_dataset *d = NULL;
	pm_error err;

	if (size < 1)
		return 0;
	/* the JSON and JSON Lines of Extra-P come by detection (format 0) */
	o.format = (pm_format)(data[0] % 5);
	o.aggregate = (pm_aggregate)((data[0] >> 3) % 5);
	o.weights = (data[0] >> 3) / 5 % 2 ? PM_WEIGHTS_INVERSE_VARIANCE : PM_WEIGHTS_NONE;
	o.drop_first = (data[0] >> 6) & 1;
	o.target = data[0] & 0x80 ? NULL : "time_s";
	if (pm_dataset_parse((const char *)data + 1, size - 1, "f", &o, &d, &info, &err) !=
	    PM_OK) {
		/* a failure must say why */
		if (!err.msg[0] || d)
			abort();
		return 0;
	}
	for (size_t r = 0; r < pm_dataset_nrows(d) && r < 64; r++) {
		for (size_t c = 0; c < pm_dataset_ncols(d); c++) {
			double v;

			if (!pm_dataset_cell(d, r, c))
				abort();
			(void)pm_dataset_number(d, r, c, &v, &err);
		}
		if (info.aggregated && info.reps[r] == 0)
			abort();
	}
	if (o.weights) {
		const double *w = pm_dataset_weights(d, NULL);

		for (size_t r = 0; r < pm_dataset_nrows(d); r++)
			if (!w || !(w[r] > 0) || !(w[r] < INFINITY))
				abort();
	}
	if (info.aggregated != (info.reps != NULL) ||
	    (info.aggregated && info.nrows != pm_dataset_nrows(d)))
		abort();
	pm_read_info_clear(&info);
	pm_dataset_free(d);
	return 0;
}
