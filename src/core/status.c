#include "status.h"

#include <stdio.h>
#include <stdlib.h>

/* Format the variadic arguments after fmt into err's field; nothing without err. */
#define SET_FIELD(err, field, fmt) \
	do { \
		va_list		ap_; \
		\
		if ((err) == NULL) \
			break; \
		va_start(ap_, fmt); \
		vsnprintf((err)->field, sizeof((err)->field), fmt, ap_); \
		va_end(ap_); \
	} while (0)

bs_status
bs_fail(bs_error *err, bs_status code, const char *fmt,...)
{
	if (err != NULL)
	{
		err->detail[0] = '\0';
		err->hint[0] = '\0';
	}
	SET_FIELD(err, msg, fmt);
	return code;
}

void
bs_error_detail(bs_error *err, const char *fmt,...)
{
	SET_FIELD(err, detail, fmt);
}

void
bs_error_hint(bs_error *err, const char *fmt,...)
{
	SET_FIELD(err, hint, fmt);
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
