/* The libFuzzer entry point every target defines (tests/fuzz/README.md). */
#ifndef PM_FUZZ_H
#define PM_FUZZ_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* data as a NUL-terminated string (malloc'd), or NULL: the JSON readers
 * take C strings, and an input with a NUL in it is text they never see. */
char *pm_fuzz_string(const uint8_t *data, size_t size);

#endif
