/* The spec reader, then resolving the roles it names against a small
 * dataset (inference of the unnamed roles included). */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "perfmodel/perfmodel.h"

static const char csv[] = "target,n,threads,act,time_s\n1,2,1,relu,0.5\n2,4,2,tanh,0.25\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *json = pm_fuzz_string(data, size);
	pm_spec *s = NULL;
	pm_dataset *d = NULL;
	pm_error err;

	if (!json)
		return 0;
	if (pm_spec_parse(json, "f.json", &s, &err) == PM_OK) {
		if (pm_dataset_parse_csv(csv, sizeof(csv) - 1, "f.csv", &d, NULL) != PM_OK)
			abort();
		(void)pm_spec_resolve(s, d, &err);
	} else if (!err.msg[0]) {
		abort();
	}
	pm_dataset_free(d);
	pm_spec_free(s);
	free(json);
	return 0;
}
