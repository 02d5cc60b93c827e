/* A main() for the fuzz targets without libFuzzer: runs the target once on
 * every file named, or in the folders named. meson test runs it on the seed
 * corpora and on every input that once crashed (tests/fuzz/regressions/),
 * in every build, so that a fixed crash stays fixed without clang. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf = NULL;
	size_t n = 0, cap = 0, got;

	if (!f) {
		perror(path);
		return 1;
	}
	do {
		if (cap - n < 4096) {
			unsigned char *p = realloc(buf, cap = cap * 2 + 4096);

			if (!p)
				abort();
			buf = p;
		}
		got = fread(buf + n, 1, cap - n, f);
		n += got;
	} while (got > 0);
	fclose(f);
	LLVMFuzzerTestOneInput(buf, n);
	free(buf);
	return 0;
}

int main(int argc, char **argv)
{
	int bad = 0, runs = 0;

	for (int i = 1; i < argc; i++) {
		struct stat st;
		DIR *dir;
		struct dirent *e;

		if (stat(argv[i], &st) != 0 || !S_ISDIR(st.st_mode)) {
			bad |= run_file(argv[i]);
			runs++;
			continue;
		}
		if (!(dir = opendir(argv[i])))
			return 1;
		while ((e = readdir(dir))) {
			char path[4096];

			if (e->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "%s/%s", argv[i], e->d_name);
			bad |= run_file(path);
			runs++;
		}
		closedir(dir);
	}
	printf("%d inputs run\n", runs);
	return bad || runs == 0;
}
