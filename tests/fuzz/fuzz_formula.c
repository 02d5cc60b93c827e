/* The model-formula parser (docs/maths.md) through the public spec API, then,
 * for a formula it accepts, a one-generation fit on a small table (which
 * compiles the formula against the columns) and the saved model loaded
 * back (which parses and compiles it again). */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "perfmodel/perfmodel.h"

static const char csv[] =
	"k,f,act,threads,time\n"
	"1,4,relu,1,1.1\n2,8,tanh,1,2.3\n3,4,relu,2,1.2\n4,8,tanh,2,2.2\n"
	"1,8,relu,4,0.5\n2,4,tanh,4,0.7\n3,8,relu,1,3.1\n4,4,tanh,2,1.9\n"
	"1,4,tanh,2,0.8\n2,8,relu,4,0.6\n3,4,tanh,1,2.5\n4,8,relu,1,4.4\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = pm_fuzz_string(data, size), *json = NULL;
	pm_fit_options o = pm_fit_options_default();
	pm_dataset *d = NULL;
	pm_spec *s = NULL;
	pm_model *m = NULL, *back = NULL;
	pm_error err;

	if (!text)
		return 0;
	if (pm_spec_new(&s, NULL) != PM_OK || pm_spec_set_target(s, "time", NULL) != PM_OK ||
	    pm_dataset_parse_csv(csv, sizeof(csv) - 1, "f.csv", &d, NULL) != PM_OK)
		abort();
	if (pm_spec_set_form(s, text, &err) != PM_OK) {
		if (!err.msg[0])
			abort();
		goto out;
	}
	o.maxiter = 1;
	o.popsize = 1;
	o.polish = 0;
	o.threads = 1;
	if (pm_fit(d, s, &o, &m, &err) != PM_OK)
		goto out;
	if (pm_model_to_json(m, &json, &err) != PM_OK ||
	    pm_model_load_string(json, "again.json", &back, &err) != PM_OK)
		abort();
out:
	pm_model_free(back);
	free(json);
	pm_model_free(m);
	pm_dataset_free(d);
	pm_spec_free(s);
	free(text);
	return 0;
}
