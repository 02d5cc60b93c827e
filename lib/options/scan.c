/* The option table and the scan of an argument vector (perfmodel/options.h):
 * getopt_long's reading, with its state in the caller's pm_arg_scan so
 * that threads (a batch's jobs) may parse at once. */
#include <string.h>

#include "core/error.h"
#include "options/options_impl.h"

#define PM__OPTION_INFO(id, name, letter, value, flags) { name, letter, value, flags },
static const pm_option_info table[] = { PM__OPTIONS(PM__OPTION_INFO) };
#undef PM__OPTION_INFO

const pm_option_info *pm_option_table(size_t *n)
{
	if (n)
		*n = PM__OPT_COUNT;
	return table;
}

enum pm__option_id pm__option_id(const pm_option_info *info)
{
	return (enum pm__option_id)(info - table);
}

const pm_option_info *pm__option_named(const char *name)
{
	for (size_t i = 0; name && i < PM__OPT_COUNT; i++)
		if (!strcmp(table[i].name, name))
			return &table[i];
	return NULL;
}

pm_arg_scan pm_arg_scan_start(int argc, char *const *argv)
{
	return (pm_arg_scan){ .argc = argv ? argc : 0, .argv = argv, .next = 1 };
}

/* The entry named name[0..len): the whole name, else the one it begins. */
static pm_status find_long(const char *name, size_t len, const char *text,
			   const pm_option_info **out, pm_error *err)
{
	const pm_option_info *found = NULL;
	char names[256] = "";
	size_t matches = 0;

	for (size_t i = 0; i < PM__OPT_COUNT; i++) {
		if (strncmp(table[i].name, name, len))
			continue;
		if (strlen(table[i].name) == len) {
			*out = &table[i];
			return PM_OK;
		}
		found = &table[i];
		if (matches++ < 8) {
			size_t used = strlen(names);

			pm_snprintf(names + used, sizeof(names) - used, "%s--%s", used ? ", " : "",
				    table[i].name);
		}
	}
	if (matches == 1) {
		*out = found;
		return PM_OK;
	}
	if (matches > 1)
		return pm__fail(err, PM_EINVAL, "option '%s' is ambiguous: %s", text, names);
	return pm__fail(err, PM_EINVAL, "unknown option '%s'", text);
}

static pm_status long_option(pm_arg_scan *s, const char *text, pm_arg *a, pm_error *err)
{
	const char *name = text + 2, *eq = strchr(name, '=');
	pm_status st;

	if ((st = find_long(name, eq ? (size_t)(eq - name) : strlen(name), text, &a->option, err)))
		return st;
	if (!a->option->takes_value && eq)
		return pm__fail(err, PM_EINVAL, "option '--%s' takes no value, not '%s'",
				a->option->name, eq + 1);
	if (!a->option->takes_value)
		return PM_OK;
	if (eq)
		a->value = eq + 1;
	else if (s->next < s->argc)
		a->value = s->argv[s->next++];
	else
		return pm__fail(err, PM_EINVAL, "option '%s' needs a value", text);
	return PM_OK;
}

/* The letter at s->letter of the element text (read already). */
static pm_status short_option(pm_arg_scan *s, const char *text, pm_arg *a, pm_error *err)
{
	char c = text[s->letter++];

	for (size_t i = 0; i < PM__OPT_COUNT && !a->option; i++)
		if (table[i].short_name && table[i].short_name == c)
			a->option = &table[i];
	if (!a->option) {
		s->letter = 0;
		return pm__fail(err, PM_EINVAL, "unknown option '%s'", text);
	}
	if (a->option->takes_value) {
		const char *rest = text + s->letter;

		s->letter = 0;
		if (*rest)
			a->value = rest;
		else if (s->next < s->argc)
			a->value = s->argv[s->next++];
		else
			return pm__fail(err, PM_EINVAL, "option '%s' needs a value", text);
		return PM_OK;
	}
	if (!text[s->letter])
		s->letter = 0;
	return PM_OK;
}

pm_status pm_arg_next(pm_arg_scan *s, pm_arg *a, pm_error *err)
{
	const char *text;

	*a = (pm_arg){ 0 };
	if (!s)
		return pm__fail(err, PM_EINVAL, "pm_arg_next: no scan");
	if (s->letter) {
		a->text = s->argv[s->next - 1];
		return short_option(s, a->text, a, err);
	}
	for (;;) {
		if (s->next >= s->argc)
			return PM_OK;
		text = s->argv[s->next++];
		if (!text)
			return pm__fail(err, PM_EINVAL, "pm_arg_next: argv[%d] is NULL", s->next - 1);
		if (s->operands_only || text[0] != '-' || !text[1]) {
			a->value = a->text = text;
			return PM_OK;
		}
		if (strcmp(text, "--"))
			break;
		s->operands_only = 1;
	}
	a->text = text;
	if (text[1] == '-')
		return long_option(s, text, a, err);
	s->letter = 1;
	return short_option(s, text, a, err);
}
