/* The CUBE reader (lib/ingest/cube.c): the first byte picks the call path,
 * metric, exclusive or inclusive, weak or strong and whether the format is
 * detected; the rest is the .cubex archive (the seeds: tests/cube_gen.py's
 * profiles). Nothing in the archive is trusted: sizes, indices, chunks.
 * With the high bit set, the archive is also listed (every call path ×
 * metric: batch --each-region) and inspected, which read it from a file. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "fuzz.h"
#include "perfmodel/perfmodel.h"

/* The listing and inspect of the archive data[0, size), written to a file
 * of this process's; a failure must say why. */
static void list_and_inspect(const uint8_t *data, size_t size, const pm_read_options *o)
{
	static char path[64];
	pm_region_list *l = NULL;
	pm_error err;
	char *doc = NULL;
	FILE *f;

	if (!path[0])
		snprintf(path, sizeof(path), "/tmp/pm_fuzz_cube_%ld.cubex", (long)getpid());
	if (!(f = fopen(path, "wb")))
		abort();
	if (fwrite(data, 1, size, f) != size || fclose(f))
		abort();
	err.msg[0] = '\0';
	if (pm_region_list_read(path, PM_FORMAT_CUBE, &l, &err) != PM_OK && (!err.msg[0] || l))
		abort();
	pm_region_list_free(l);
	err.msg[0] = '\0';
	if (pm_inspect_to_json(path, o, &doc, &err) != PM_OK && (!err.msg[0] || doc))
		abort();
	free(doc);
	unlink(path);
}

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
	if (data[0] & 0x80)
		list_and_inspect(data + 1, size - 1, &o);
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
