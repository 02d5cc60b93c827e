#include "core/error.h"
#include "core/numcodec.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static pm_status vfail(pm_error *err, pm_status code, const char *file, unsigned line,
		       unsigned column, const char *fmt, va_list ap)
{
	if (!err)
		return code;
	err->code = code;
	err->line = line;
	err->column = column;
	snprintf(err->file, sizeof(err->file), "%s", file ? file : "");
	/* numbers in messages read the same under any locale */
	pm__num_vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	return code;
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
