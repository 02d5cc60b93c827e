/* perfmodel: dispatch to a command of the table (cmd_help.c), in the manner
 * of git. */
#include <errno.h>
#include <gsl/gsl_errno.h>
#include <locale.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

/* Every command writes its output through stdout's buffer, so a failed
 * write (a full disk, /dev/full) shows at the latest when the buffer is
 * flushed and closed: it must turn the exit status into a failure, not
 * leave a truncated output behind an exit 0. */
static int close_stdout(int rc)
{
	int failed = ferror(stdout), e = 0;
	char why[128];

	if (fflush(stdout) != 0) {
		failed = 1;
		e = errno;
	}
	/* a closed stdout (>&-) that nothing was written to is no error */
	if (fclose(stdout) != 0 && !e && !(errno == EBADF && !failed)) {
		failed = 1;
		e = errno;
	}
	if (!failed)
		return rc;
	if (e)
		cprintf(stderr, "perfmodel: write error: %s\n", pm_strerror(e, why, sizeof(why)));
	else
		fputs("perfmodel: write error: the output is incomplete\n", stderr);
	return EXIT_FAIL;
}

static int run(int argc, char **argv)
{
	const struct command *c;
	pm_error err = { 0 };
	char *doc = NULL;

	/* The library checks its inputs before calling GSL; a GSL error must
	 * come back as a status, never abort the process. */
	gsl_set_error_handler_off();
	if (argc < 2)
		return cmd_help(1, (char *[]){ "help", NULL }), EXIT_USAGE;
	if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "version") == 0) {
		if (argc > 2 && strcmp(argv[2], "--json") == 0)
			return print_document(pm_version_to_json(&doc, &err), &doc, &err);
		cprintf(stdout, "perfmodel %s\n", pm_version());
		return EXIT_OK;
	}
	if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)
		return cmd_help(1, (char *[]){ "help", NULL });
	c = find_command(argv[1]);
	if (!c)
		return usage_error(NULL, "'%s' is not a command; see 'perfmodel help'", argv[1]);
	return c->run(argc - 1, argv + 1);
}

int main(int argc, char **argv)
{
	/* the user's locale, as GNU tools take it: every number perfmodel
	 * reads or writes goes through the library's codec, the same bytes
	 * under a decimal comma (tests/cli.sh runs the commands under one) */
	setlocale(LC_ALL, "");
	return close_stdout(run(argc, argv));
}
