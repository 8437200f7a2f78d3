/*
 * errors.c: the core's bs_status as ereport(ERROR) with a fitting SQLSTATE.
 */
#include "glue.h"

void
bs_report(bs_status st, const bs_error *err, int format_code)
{
	int			code;

	switch (st)
	{
		case BS_ERR_PARAM:
		case BS_ERR_SHAPE:
		case BS_ERR_ABSENT:
			code = ERRCODE_INVALID_PARAMETER_VALUE;
			break;
		case BS_ERR_LIMIT:
			code = ERRCODE_PROGRAM_LIMIT_EXCEEDED;
			break;
		case BS_ERR_FORMAT:
			code = format_code;
			break;
		case BS_ERR_FAMILY:
			code = ERRCODE_DATATYPE_MISMATCH;
			break;
		default:
			code = ERRCODE_INTERNAL_ERROR;
			break;
	}
	ereport(ERROR,
			(errcode(code),
			 errmsg_internal("%s", err->msg),
			 err->detail[0] ? errdetail_internal("%s", err->detail) : 0,
			 err->hint[0] ? errhint("%s", err->hint) : 0));
	pg_unreachable();
}
