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

const char *
bs_status_sqlstate(bs_status st)
{
	switch (st)
	{
		case BS_ERR_PARAM:
		case BS_ERR_SHAPE:
		case BS_ERR_ABSENT:
			return "22023";		/* invalid_parameter_value */
		case BS_ERR_LIMIT:
			return "54000";		/* program_limit_exceeded */
		case BS_ERR_FORMAT:
			return "XX001";		/* data_corrupted: stored bytes, not input */
		case BS_ERR_FAMILY:
			return "42804";		/* datatype_mismatch */
		case BS_ERR_UNSUPPORTED:
			return "0A000";		/* feature_not_supported */
		case BS_OK:
			break;
	}
	return "XX000";				/* internal_error: reporting success is a bug */
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
