/* A program outside the project that runs under the user's locale
 * (setlocale(LC_ALL, "")), built by tests/embed.sh against the installed
 * libperfmodel-predict: loads a model, predicts the points given as JSON on
 * the command line, and prints each prediction's bits in hexadecimal, which
 * no locale touches. Run under C and under de_DE.UTF-8, its output must be
 * the same: the library reads model.json and points the same under both.
 * Exit 3 when the locale has no decimal comma (the test would prove
 * nothing). */
#include <locale.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <perfmodel/predict.h>

int main(int argc, char **argv)
{
	pm_model *m = NULL;
	pm_point *p = NULL;
	pm_error err = { 0 };
	const char *want = argc > 1 ? argv[1] : "";

	setlocale(LC_ALL, "");
	if (argc < 4 || strcmp(localeconv()->decimal_point, want) != 0)
		return 3;
	if (pm_model_load_file(argv[2], &m, &err) || pm_point_new(m, &p, &err))
		goto fail;
	for (int a = 3; a < argc; a++) {
		double t;
		uint64_t bits;

		pm_point_clear(p);
		if (pm_point_set_json(p, argv[a], "point", &err) ||
		    pm_model_predict_point(m, p, &t, &err))
			goto fail;
		memcpy(&bits, &t, sizeof(bits));
		printf("%016llx\n", (unsigned long long)bits);
	}
	pm_point_free(p);
	pm_model_free(m);
	return 0;
fail:
	fprintf(stderr, "locale: %s\n", err.msg);
	pm_point_free(p);
	pm_model_free(m);
	return 1;
}
