/* perfmodel help [COMMAND] */
#include <string.h>

#include "cli.h"

const char help_usage[] =
	"usage: perfmodel help [COMMAND]\n"
	"\n"
	"Without a command, list the commands; with one, show its help (the same as\n"
	"'perfmodel COMMAND --help').\n";

int cmd_help(int argc, char **argv)
{
	const struct command *c;

	if (argc > 2)
		return usage_error("help", "one command at a time");
	if (argc == 2) {
		c = find_command(argv[1]);
		if (!c)
			return usage_error(NULL, "'%s' is not a command; see 'perfmodel help'",
					   argv[1]);
		fputs(c->usage, stdout);
		return EXIT_OK;
	}
	printf("usage: perfmodel COMMAND [ARGS]\n\n"
	       "Fit interpretable performance models to measured run times and predict\n"
	       "from them (perfmodel %s).\n\ncommands:\n", pm_version());
	for (c = pm_commands; c->name; c++)
		printf("  %-10s %s\n", c->name, c->summary);
	printf("\n  perfmodel --version       print the version\n"
	       "  perfmodel help COMMAND    the options of a command\n");
	return EXIT_OK;
}
