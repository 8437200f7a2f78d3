#include "hash.h"

const char *
bs_family_name(int family)
{
	switch (family)
	{
		case BS_FAMILY_NONE:
			return "none";
		case BS_FAMILY_INTEGER:
			return "integer";
		case BS_FAMILY_TEXT:
			return "text";
		case BS_FAMILY_BYTEA:
			return "bytea";
		case BS_FAMILY_UUID:
			return "uuid";
		case BS_FAMILY_FLOAT:
			return "float";
		case BS_FAMILY_NUMERIC:
			return "numeric";
		case BS_FAMILY_DATE:
			return "date";
		case BS_FAMILY_TIMESTAMP:
			return "timestamp";
		case BS_FAMILY_TIMESTAMPTZ:
			return "timestamptz";
	}
	return "unknown";
}
