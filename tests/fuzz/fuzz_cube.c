/* The CUBE reader (lib/data/cube.c): the first byte picks the call path,
 * metric, exclusive or inclusive, weak or strong and whether the format is
 * detected; the rest is the .cubex archive (the seeds: tests/cube_gen.py's
 * profiles). Nothing in the archive is trusted: sizes, indices, chunks. */
#include <stdlib.h>

#include "fuzz.h"
#include "perfmodel/perfmodel.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const callpath[] = { NULL, "main", "main->compute",
						"main->compute->kernel" };
	static const char *const metric[] = { NULL, "visits", "flops", "min_time" };
	pm_read_options o = pm_read_options_default();
	pm_read_info info;
	pm_dataset *d = NULL;
	pm_error err;

	if (size < 1)
		return 0;
	o.inclusive = data[0] & 1;
	o.scaling = data[0] & 2 ? PM_SCALING_STRONG : PM_SCALING_WEAK;
	o.region = callpath[(data[0] >> 2) & 3];
	o.metric = metric[(data[0] >> 4) & 3];
	o.format = data[0] & 0x40 ? PM_FORMAT_AUTO : PM_FORMAT_CUBE;
	if (pm_dataset_parse((const char *)data + 1, size - 1, "f.cubex", &o, &d, &info, &err) !=
	    PM_OK) {
		/* a failure must say why */
		if (!err.msg[0] || d)
			abort();
		return 0;
	}
	/* a profile is one run */
	if (info.format == PM_FORMAT_CUBE && (pm_dataset_nrows(d) != 1 || info.runs != 1))
		abort();
	pm_read_info_clear(&info);
	pm_dataset_free(d);
	return 0;
}
