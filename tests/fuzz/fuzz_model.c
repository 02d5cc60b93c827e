/* The model.json loader. A model it accepts must predict (and give its
 * intervals, when it has them) without crashing,
 * and save to a text that loads again (what perfmodel writes, it reads). */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "perfmodel/perfmodel.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *json = pm_fuzz_string(data, size), *again = NULL;
	pm_model *m = NULL, *back = NULL;
	pm_error err;
	double x[64], y;

	if (!json)
		return 0;
	if (pm_model_load_string(json, "f.json", &m, &err) != PM_OK) {
		if (!err.msg[0])
			abort();
		free(json);
		return 0;
	}
	if (pm_model_ninputs(m) <= 64) {
		for (size_t i = 0; i < pm_model_ninputs(m); i++)
			x[i] = pm_model_input_role(m, i) == PM_ROLE_CATEGORICAL ? 0.0 : 2.0;
		(void)pm_model_predict(m, x, &y, &err);
		/* a model with intervals gives them, or says why not */
		if (pm_model_has_intervals(m)) {
			double lo, hi;

			(void)pm_model_predict_interval(m, x, 0.9, &lo, &hi, &err);
			(void)pm_model_predict_quantile(m, x, 0.99, &y, &err);
		}
	}
	if (pm_model_to_json(m, &again, &err) != PM_OK ||
	    pm_model_load_string(again, "again.json", &back, &err) != PM_OK)
		abort();
	free(again);
	pm_model_free(back);
	pm_model_free(m);
	free(json);
	return 0;
}
