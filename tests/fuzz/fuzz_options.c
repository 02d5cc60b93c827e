/* The option parser (perfmodel/options.h): the input is the argument
 * vector, one word a line (the first byte picks fit, select or discover),
 * parsed from the defaults (with an inline spec); then the scan alone, as a batch checks the
 * options after "--". A parse either succeeds or says why. */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "perfmodel/options.h"

static void scan_all(int argc, char **argv)
{
	pm_arg_scan s = pm_arg_scan_start(argc, argv);
	pm_arg a;
	pm_error err;

	while (pm_arg_next(&s, &a, &err) == PM_OK && (a.option || a.value))
		;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = pm_fuzz_string(data, size), **argv;
	int argc = 1;
	pm_options o;
	pm_error err;
	pm_status st;

	if (!text || !*text)
		goto out;
	for (const char *p = text; *p; p++)
		argc += *p == '\n';
	argv = calloc((size_t)argc + 2, sizeof(*argv));
	if (!argv)
		goto out;
	argv[0] = "fit";
	argc = 1;
	for (char *save = NULL, *w = strtok_r(text + 1, "\n", &save); w;
	     w = strtok_r(NULL, "\n", &save))
		argv[argc++] = w;
	o = pm_options_default((pm_command)((unsigned char)text[0] % 3));
	/* an inline spec, as a batch job's: --spec FILE is then never opened,
	 * so that no input points the parser at /dev/zero or a FIFO */
	o.spec_json = "{\"target\": \"t\"}";
	o.spec_name = "job: spec";
	st = pm_options_parse(&o, argc, argv, &err);
	if (st != PM_OK && (!err.msg[0] || err.code != st))
		abort();
	if (st == PM_OK && !o.help && !o.data)
		abort();
	pm_options_clear(&o);
	scan_all(argc, argv);
	free(argv);
out:
	free(text);
	return 0;
}
