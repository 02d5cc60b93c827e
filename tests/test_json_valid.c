/* The strict recognizer that tells cJSON's allocation failures from bad
 * text (json_valid.h). */
#include <criterion/criterion.h>
#include <string.h>

#include "core/json_valid.h"
#include "leak_check.h"

PM_LEAK_CHECKED_SUITE(json_valid);

static int valid(const char *s, int depth)
{
	return pm__json_valid(s, strlen(s), depth);
}

Test(json_valid, accepts_json)
{
	static const char *const ok[] = {
		"0", "-0.5e+3", "1E9", " true ", "null", "\"\"", "\"a\\\"\\\\\\/\\b\\f\\n\\r\\t\"",
		"\"\\u00e9\\ud83d\\ude00\"", "[]", "{}", " [1, [2, {\"a\": [null]}]] ",
		"{\"a\": 1, \"b\": {\"c\": false}}", "\xEF\xBB\xBF{\"bom\": 1}", "\"\xC3\xA9\"",
	};

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		cr_expect(valid(ok[i], 64), "'%s' refused", ok[i]);
	cr_expect(valid("[[[]]]", 3));
}

Test(json_valid, refuses_what_json_or_cjson_refuses)
{
	static const char *const bad[] = {
		"", " ", "01", "+1", ".5", "1.", "1e", "-", "tru", "nul", "[1,]", "{\"a\":1,}",
		"{\"a\" 1}", "{1: 2}", "[1] [2]", "\"open", "\"a\\x\"", "\"\\u12g4\"",
		"\"\\udc00\"", "\"\\ud800\"", "\"\\ud800\\u0041\"", "\"tab\there\"",
		"1234567890123456789012345678901234567890123456789012345678901234",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		cr_expect(!valid(bad[i], 64), "'%s' accepted", bad[i]);
	cr_expect(!valid("[[[]]]", 2), "deeper than allowed");
	cr_expect(!pm__json_valid("[1]\0", 4, 64), "a NUL after the value");
}
