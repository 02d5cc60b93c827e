/* The predict-config reader, against a small fitted model next to it.
 *
 * The config names a file to load, so a fuzzer could point it at
 * /dev/zero, a FIFO or anything else on the machine: inputs with a slash
 * or a backslash (which could spell one in an escape) are skipped, and the
 * model path can only name a file in the fuzzer's own folder. The JSON
 * syntax itself is fuzzed without that restriction by fuzz_model and
 * fuzz_spec. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"
#include "perfmodel/perfmodel.h"

static const char csv[] =
	"n,threads,act,time_s\n"
	"1,1,relu,1.1\n2,1,tanh,2.3\n4,1,relu,4.2\n8,1,tanh,8.5\n"
	"1,2,relu,0.6\n2,2,tanh,1.2\n4,2,relu,2.2\n8,2,tanh,4.4\n";

static char dir[] = "/tmp/pm_fuzz_config_XXXXXX";

static void cleanup(void)
{
	unlink("config.json");
	unlink("model.json");
	rmdir(dir);
}

/* Once: a folder holding model.json, made the working directory. */
static void setup(void)
{
	static int done;
	pm_fit_options o = pm_fit_options_default();
	pm_dataset *d = NULL;
	pm_spec *s = NULL;
	pm_model *m = NULL;

	if (done)
		return;
	done = 1;
	o.maxiter = 2;
	o.threads = 1;
	if (!mkdtemp(dir) || chdir(dir) != 0 || atexit(cleanup) != 0 ||
	    pm_dataset_parse_csv(csv, sizeof(csv) - 1, "f.csv", &d, NULL) != PM_OK ||
	    pm_spec_new(&s, NULL) != PM_OK || pm_spec_set_target(s, "time_s", NULL) != PM_OK ||
	    pm_spec_add_names(s, PM_SPEC_EXTRINSIC, "threads", NULL) != PM_OK ||
	    pm_fit(d, s, &o, &m, NULL) != PM_OK || pm_model_save_file(m, "model.json", NULL) != PM_OK)
		abort();
	pm_model_free(m);
	pm_spec_free(s);
	pm_dataset_free(d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	pm_model *m = NULL;
	pm_dataset *points = NULL;
	pm_error err;
	double *y;
	FILE *f;

	setup();
	if (memchr(data, '/', size) || memchr(data, '\\', size))
		return 0;
	/* plain stdio: pm_write_file_atomic's fsync would slow the fuzzer 50x */
	f = fopen("config.json", "wb");
	if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0)
		abort();
	if (pm_predict_config_read("config.json", &m, &points, &err) != PM_OK) {
		if (!err.msg[0])
			abort();
		return 0;
	}
	/* what `perfmodel predict CONFIG` does next */
	y = malloc((pm_dataset_nrows(points) + 1) * sizeof(*y));
	if (!y || pm_model_predict_dataset(m, points, y, &err) != PM_OK)
		abort();
	free(y);
	pm_dataset_free(points);
	pm_model_free(m);
	return 0;
}
