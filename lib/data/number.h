/* The strict syntax of a numeric cell. Private to the libraries. */
#ifndef PM_NUMBER_H
#define PM_NUMBER_H

/* What a cell's text is as a number. */
typedef enum pm_num { PM_NUM_OK, PM_NUM_EMPTY, PM_NUM_TEXT, PM_NUM_INFINITE } pm_num;

/*
 * strtod, but the whole cell must be the number. Spaces and tabs around it
 * are allowed, since hand-made CSV often reads "1, 2"; a cell of blanks only
 * counts as empty. Hexadecimal (which strtod takes) is refused: the API
 * promises decimal numbers, and "0x10" in a measurements file is more likely
 * a label than sixteen. The decimal point is '.' under any locale
 * (core/numcodec.h).
 * *value is set only for PM_NUM_OK.
 */
pm_num pm__parse_number(const char *s, double *value);

#endif
