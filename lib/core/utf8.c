/* UTF-8 and places in text (core/utf8.h). */
#include "core/utf8.h"

#include <stdint.h>

#include "core/error.h"

size_t pm__utf8_length(const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t len;
	unsigned cp;

	if (n == 0)
		return 0;
	if (u[0] < 0x80)
		return 1;
	if (u[0] >= 0xC2 && u[0] <= 0xDF)
		len = 2, cp = u[0] & 0x1F;
	else if (u[0] >= 0xE0 && u[0] <= 0xEF)
		len = 3, cp = u[0] & 0x0F;
	else if (u[0] >= 0xF0 && u[0] <= 0xF4)
		len = 4, cp = u[0] & 0x07;
	else
		return 0;
	if (n < len)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((u[i] & 0xC0) != 0x80)
			return 0;
		cp = cp << 6 | (u[i] & 0x3F);
	}
	/* overlong forms, UTF-16 surrogates, beyond U+10FFFF */
	if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
	    (cp >= 0xD800 && cp <= 0xDFFF))
		return 0;
	return len;
}

void pm__text_place(const char *text, size_t pos, unsigned *line, unsigned *column)
{
	unsigned l = 1, c = 1;

	for (size_t i = 0; i < pos; i++) {
		if (text[i] == '\n') {
			l++;
			c = 1;
		} else {
			c++;
		}
	}
	*line = l;
	*column = c;
}

pm_status pm__utf8_check(const char *text, size_t len, const char *name, pm_error *err)
{
	size_t i = 0, n;
	unsigned line, column;

	while (i < len) {
		if ((unsigned char)text[i] < 0x80) {	/* most text: ASCII */
			i++;
			continue;
		}
		n = pm__utf8_length(text + i, len - i);
		if (n == 0) {
			pm__text_place(text, i, &line, &column);
			return pm__fail_at(err, PM_EPARSE, name, line, column,
					   "not UTF-8 text (byte 0x%02x): perfmodel reads UTF-8; "
					   "convert the file (iconv -f latin1 -t utf-8)",
					   (unsigned char)text[i]);
		}
		i += n;
	}
	return PM_OK;
}
