/*
 * errors.c: the core's bs_status as ereport(ERROR) with a fitting SQLSTATE.
 */
#include "glue.h"

void
bs_report(bs_status st, const bs_error *err, int format_code)
{
	const char *s = bs_status_sqlstate(st);
	int			code = MAKE_SQLSTATE(s[0], s[1], s[2], s[3], s[4]);

	if (st == BS_ERR_FORMAT && format_code != 0)
		code = format_code;
	ereport(ERROR,
			(errcode(code),
			 errmsg_internal("%s", err->msg),
			 err->detail[0] ? errdetail_internal("%s", err->detail) : 0,
			 err->hint[0] ? errhint("%s", err->hint) : 0));
	pg_unreachable();
}
