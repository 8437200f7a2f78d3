#include "status.h"

#include <stdio.h>
#include <stdlib.h>

static void set_text(char *dst, size_t len, const char *fmt, va_list ap)
			__attribute__((format(printf, 3, 0)));

static void
set_text(char *dst, size_t len, const char *fmt, va_list ap)
{
	vsnprintf(dst, len, fmt, ap);
}

bs_status
bs_fail(bs_error *err, bs_status code, const char *fmt,...)
{
	va_list		ap;

	if (err == NULL)
		return code;
	err->detail[0] = '\0';
	err->hint[0] = '\0';
	va_start(ap, fmt);
	set_text(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return code;
}

void
bs_error_detail(bs_error *err, const char *fmt,...)
{
	va_list		ap;

	if (err == NULL)
		return;
	va_start(ap, fmt);
	set_text(err->detail, sizeof(err->detail), fmt, ap);
	va_end(ap);
}

void
bs_error_hint(bs_error *err, const char *fmt,...)
{
	va_list		ap;

	if (err == NULL)
		return;
	va_start(ap, fmt);
	set_text(err->hint, sizeof(err->hint), fmt, ap);
	va_end(ap);
}

bs_numtext
bs_num(double v)
{
	bs_numtext	t;
	int			digits;

	for (digits = 6; digits < 17; digits++)
	{
		snprintf(t.s, sizeof(t.s), "%.*g", digits, v);
		if (strtod(t.s, NULL) == v)
			return t;
	}
	snprintf(t.s, sizeof(t.s), "%.17g", v);
	return t;
}
