/*
 * keys.c: key families and canonical key bytes (DESIGN.md 3, doc/hashing.md).
 *
 * Equal values hash equal whatever their SQL type: 42::int2, 42::int4 and
 * 42::int8 are all the little-endian int64 42; 'a'::text, 'a'::varchar,
 * 'a  '::char(3) and 'a'::name are the byte "a"; 1.5 and 1.50 are "1.5".
 * A value of one family looked up in a sketch of another is an ERROR, never
 * a silent miss.
 */
#include "glue.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "utils/builtins.h"
#include "utils/date.h"
#include "utils/fmgrprotos.h"
#include "utils/lsyscache.h"
#include "utils/timestamp.h"
#include "utils/uuid.h"

#include "core/endian.h"

void		bs_key_info_init(bs_key_info *ki, Oid typid);

void
bs_key_info_init(bs_key_info *ki, Oid typid)
{
	Oid			base = getBaseType(typid);

	ki->typid = base;
	switch (base)
	{
		case INT2OID:
		case INT4OID:
		case INT8OID:
			ki->family = BS_FAMILY_INTEGER;
			break;
		case TEXTOID:
		case VARCHAROID:
		case BPCHAROID:
		case NAMEOID:
		case UNKNOWNOID:
		case CSTRINGOID:
			ki->family = BS_FAMILY_TEXT;
			break;
		case BYTEAOID:
			ki->family = BS_FAMILY_BYTEA;
			break;
		case UUIDOID:
			ki->family = BS_FAMILY_UUID;
			break;
		case FLOAT4OID:
		case FLOAT8OID:
			ki->family = BS_FAMILY_FLOAT;
			break;
		case NUMERICOID:
			ki->family = BS_FAMILY_NUMERIC;
			break;
		case DATEOID:
			ki->family = BS_FAMILY_DATE;
			break;
		case TIMESTAMPOID:
			ki->family = BS_FAMILY_TIMESTAMP;
			break;
		case TIMESTAMPTZOID:
			ki->family = BS_FAMILY_TIMESTAMPTZ;
			break;
		default:
			ereport(ERROR,
					(errcode(ERRCODE_DATATYPE_MISMATCH),
					 errmsg("type %s is not supported as a sketch key",
							format_type_be(typid)),
					 errhint("Supported key types: smallint, integer, bigint, text, varchar, char, name, bytea, uuid, real, double precision, numeric, date, timestamp, timestamptz. Cast other values to one of them, for example to text.")));
	}
}

void
bs_check_family(uint8_t sketch_family, const bs_key_info *ki, const char *sketch_kind)
{
	if (sketch_family != BS_FAMILY_NONE && sketch_family != ki->family)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("key of type %s (family %s) does not match the %s, whose keys are of family %s",
						format_type_be(ki->typid), bs_family_name(ki->family),
						sketch_kind, bs_family_name(sketch_family)),
				 errhint("Cast the value to the type the %s was built from.",
						 sketch_kind)));
}

static uint64_t
key_int64(int64 v, uint64_t seed)
{
	uint8_t		buf[8];

	bs_store64(buf, (uint64_t) v);
	return bs_hash_bytes(buf, 8, seed);
}

static uint64_t
key_varlena(Datum value, bool trim_blanks, uint64_t seed)
{
	struct varlena *raw = (struct varlena *) DatumGetPointer(value);
	struct varlena *v = pg_detoast_datum_packed(raw);
	char	   *data = VARDATA_ANY(v);
	int			len = VARSIZE_ANY_EXHDR(v);
	uint64_t	h;

	if (trim_blanks)
		len = bpchartruelen(data, len);
	h = bs_hash_bytes(data, (size_t) len, seed);
	if (v != raw)
		pfree(v);
	return h;
}

/* numeric as its shortest decimal text: no trailing fraction zeros, no "-0". */
static uint64_t
key_numeric(Datum value, uint64_t seed)
{
	char	   *s = DatumGetCString(DirectFunctionCall1(numeric_out, value));
	size_t		len = strlen(s);
	uint64_t	h;

	if (strchr(s, '.') != NULL)
	{
		while (len > 0 && s[len - 1] == '0')
			len--;
		if (len > 0 && s[len - 1] == '.')
			len--;
	}
	if (len == 2 && s[0] == '-' && s[1] == '0')
		h = bs_hash_bytes("0", 1, seed);
	else
		h = bs_hash_bytes(s, len, seed);
	pfree(s);
	return h;
}

/* float as float8 bits, with -0 = +0 and a single NaN. */
static uint64_t
key_float(double d, uint64_t seed)
{
	uint64_t	bits;
	uint8_t		buf[8];

	if (d == 0.0)
		d = 0.0;
	if (isnan(d))
		bits = UINT64_C(0x7ff8000000000000);
	else
		memcpy(&bits, &d, sizeof(bits));
	bs_store64(buf, bits);
	return bs_hash_bytes(buf, 8, seed);
}

uint64_t
bs_key_hash(const bs_key_info *ki, Datum value, uint64_t seed)
{
	switch (ki->family)
	{
		case BS_FAMILY_INTEGER:
			if (ki->typid == INT2OID)
				return key_int64(DatumGetInt16(value), seed);
			if (ki->typid == INT4OID)
				return key_int64(DatumGetInt32(value), seed);
			return key_int64(DatumGetInt64(value), seed);
		case BS_FAMILY_TEXT:
			if (ki->typid == NAMEOID)
			{
				const char *s = NameStr(*DatumGetName(value));

				return bs_hash_bytes(s, strnlen(s, NAMEDATALEN), seed);
			}
			if (ki->typid == UNKNOWNOID || ki->typid == CSTRINGOID)
			{
				const char *s = DatumGetCString(value);

				return bs_hash_bytes(s, strlen(s), seed);
			}
			return key_varlena(value, ki->typid == BPCHAROID, seed);
		case BS_FAMILY_BYTEA:
			return key_varlena(value, false, seed);
		case BS_FAMILY_UUID:
			return bs_hash_bytes(DatumGetUUIDP(value)->data, UUID_LEN, seed);
		case BS_FAMILY_FLOAT:
			if (ki->typid == FLOAT4OID)
				return key_float((double) DatumGetFloat4(value), seed);
			return key_float(DatumGetFloat8(value), seed);
		case BS_FAMILY_NUMERIC:
			return key_numeric(value, seed);
		case BS_FAMILY_DATE:
			return key_int64(DatumGetDateADT(value), seed);
		case BS_FAMILY_TIMESTAMP:
		case BS_FAMILY_TIMESTAMPTZ:
			return key_int64(DatumGetTimestamp(value), seed);
	}
	elog(ERROR, "unexpected key family %d", ki->family);
	return 0;
}
