#include "core/error.h"
#include "core/numcodec.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* Copy s into out[size], control characters written as \x1b: a message
 * quotes names and cells of the input, and a terminal must not take an
 * escape sequence in a file for an order. Cut short at a whole escape. */
void pm__copy_visible(char *out, size_t size, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	size_t n = 0;

	for (const unsigned char *p = (const unsigned char *)s; *p && n + 1 < size; p++) {
		if (*p >= 0x20 && *p != 0x7f) {
			out[n++] = (char)*p;
		} else if (n + 4 < size) {
			out[n++] = '\\';
			out[n++] = 'x';
			out[n++] = hex[*p >> 4];
			out[n++] = hex[*p & 15];
		} else {
			break;
		}
	}
	out[n] = '\0';
}

static pm_status vfail(pm_error *err, pm_status code, const char *file, unsigned line,
		       unsigned column, const char *fmt, va_list ap)
{
	char msg[sizeof(err->msg)];

	if (!err)
		return code;
	err->code = code;
	err->line = line;
	err->column = column;
	pm__copy_visible(err->file, sizeof(err->file), file ? file : "");
	/* numbers in messages read the same under any locale */
	pm_vsnprintf(msg, sizeof(msg), fmt, ap);
	pm__copy_visible(err->msg, sizeof(err->msg), msg);
	return code;
}

void pm__err_append(pm_error *err, const char *fmt, ...)
{
	char more[sizeof(err->msg)];
	size_t len;
	va_list ap;

	if (!err)
		return;
	va_start(ap, fmt);
	pm_vsnprintf(more, sizeof(more), fmt, ap);
	va_end(ap);
	len = strlen(err->msg);
	pm__copy_visible(err->msg + len, sizeof(err->msg) - len, more);
}

void pm__err_set_file(pm_error *err, const char *file)
{
	if (err)
		pm__copy_visible(err->file, sizeof(err->file), file ? file : "");
}

pm_status pm__fail(pm_error *err, pm_status code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfail(err, code, NULL, 0, 0, fmt, ap);
	va_end(ap);
	return code;
}

pm_status pm__fail_at(pm_error *err, pm_status code, const char *file, unsigned line,
		      unsigned column, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfail(err, code, file, line, column, fmt, ap);
	va_end(ap);
	return code;
}

const char *pm_status_string(pm_status s)
{
	switch (s) {
	case PM_OK: return "success";
	case PM_EINVAL: return "invalid argument";
	case PM_ENOMEM: return "out of memory";
	case PM_EIO: return "input/output error";
	case PM_EPARSE: return "parse error";
	case PM_ESCHEMA: return "wrong shape";
	case PM_EDOMAIN: return "value out of the model's domain";
	case PM_EFIT: return "fit failed";
	case PM_ERANGE: return "prediction out of range";
	}
	return "unknown status";
}
