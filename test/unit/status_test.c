/*
 * status_test.c: the SQLSTATE of every bs_status (src/core/status.h).
 *
 * bs_report() raises a core error with bs_status_sqlstate()'s code.  Before
 * that function, a status without a code of its own (BS_ERR_FORMAT reported
 * outside an input function) was raised as SQLSTATE 00000, "successful
 * completion".  Every status, known or not, must map to an error code.
 */
#include <string.h>

#include "core/status.h"
#include "unit.h"

/* Five digits or capital letters, and of an error class: not 00, 01 or 02. */
static int
is_error_sqlstate(const char *s)
{
	int			i;

	if (s == NULL || strlen(s) != 5)
		return 0;
	for (i = 0; i < 5; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'A' && s[i] <= 'Z')))
			return 0;
	return !(s[0] == '0' && (s[1] == '0' || s[1] == '1' || s[1] == '2'));
}

static void
test_known(void)
{
	static const struct
	{
		bs_status	st;
		const char *name;
		const char *code;
	}			cases[] = {
		{BS_ERR_PARAM, "BS_ERR_PARAM", "22023"},
		{BS_ERR_LIMIT, "BS_ERR_LIMIT", "54000"},
		{BS_ERR_FORMAT, "BS_ERR_FORMAT", "XX001"},
		{BS_ERR_SHAPE, "BS_ERR_SHAPE", "22023"},
		{BS_ERR_FAMILY, "BS_ERR_FAMILY", "42804"},
		{BS_ERR_ABSENT, "BS_ERR_ABSENT", "22023"},
		{BS_ERR_UNSUPPORTED, "BS_ERR_UNSUPPORTED", "0A000"},
		{BS_OK, "BS_OK", "XX000"},
	};
	size_t		i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
	{
		const char *s = bs_status_sqlstate(cases[i].st);

		CHECK(s != NULL && strcmp(s, cases[i].code) == 0,
			  "%s is SQLSTATE %s (got %s)", cases[i].name, cases[i].code, s ? s : "NULL");
	}
}

static void
test_total(void)
{
	int			v,
				bad = 0,
				unknown_bad = 0;

	/* the enum's values and many past it: every one an error code */
	for (v = -1; v <= 300; v++)
	{
		const char *s = bs_status_sqlstate((bs_status) v);

		if (!is_error_sqlstate(s))
			bad++;
		if ((v < (int) BS_OK || v > (int) BS_ERR_UNSUPPORTED) && (s == NULL || strcmp(s, "XX000") != 0))
			unknown_bad++;
	}
	CHECK(bad == 0, "statuses -1 to 300 each map to an error SQLSTATE, never 00000 or a class 01/02 code (%d not)", bad);
	CHECK(unknown_bad == 0, "a status outside the enum is XX000 internal_error (%d not)", unknown_bad);
}

int
main(void)
{
	test_known();
	test_total();
	return unit_done("status");
}
