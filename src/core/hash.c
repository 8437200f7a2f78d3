#include "hash.h"

static const bs_family_def families[] = {
	[BS_FAMILY_NONE] = {"none", 0},
	[BS_FAMILY_INTEGER] = {"integer", 8},
	[BS_FAMILY_TEXT] = {"text", 0},
	[BS_FAMILY_BYTEA] = {"bytea", 0},
	[BS_FAMILY_UUID] = {"uuid", 16},
	[BS_FAMILY_FLOAT] = {"float", 8},
	[BS_FAMILY_NUMERIC] = {"numeric", 0},
	[BS_FAMILY_DATE] = {"date", 8},
	[BS_FAMILY_TIMESTAMP] = {"timestamp", 8},
	[BS_FAMILY_TIMESTAMPTZ] = {"timestamptz", 8},
};

const bs_family_def *
bs_family_def_of(int family)
{
	if (family < 0 || family >= (int) (sizeof(families) / sizeof(families[0])) ||
		families[family].name == NULL)
		return NULL;
	return &families[family];
}

const char *
bs_family_name(int family)
{
	const bs_family_def *d = bs_family_def_of(family);

	return d ? d->name : "unknown";
}

bool
bs_family_key_length_fits(int family, uint64_t len)
{
	const bs_family_def *d = bs_family_def_of(family);

	return d != NULL && (d->key_bytes == 0 || len == d->key_bytes);
}
