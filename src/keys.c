/*
 * keys.c: key families and canonical key bytes (doc/architecture.md,
 * section 3; doc/hashing.md).
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
#include "lib/stringinfo.h"
#include "mb/pg_wchar.h"
#include "utils/builtins.h"
#include "utils/date.h"
#include "utils/fmgrprotos.h"
#include "utils/lsyscache.h"
#include "utils/timestamp.h"
#include "utils/uuid.h"

#include "core/endian.h"

/* int64 as 8 little-endian bytes in kb's buffer. */
static void
bytes_int64(int64 v, bs_key_bytes *kb)
{
	bs_store64(kb->buf, (uint64_t) v);
	kb->data = kb->buf;
	kb->len = 8;
}

static void
bytes_varlena(Datum value, bool trim_blanks, bs_key_bytes *kb)
{
	struct varlena *raw = (struct varlena *) DatumGetPointer(value);
	struct varlena *v = pg_detoast_datum_packed(raw);
	char	   *data = VARDATA_ANY(v);
	int			len = VARSIZE_ANY_EXHDR(v);

	if (trim_blanks)
		len = bpchartruelen(data, len);
	kb->data = (const uint8_t *) data;
	kb->len = (size_t) len;
	if (v != raw)
		kb->to_free = v;
}

/* numeric as its shortest decimal text: no trailing fraction zeros, no "-0". */
static void
bytes_numeric(Datum value, bs_key_bytes *kb)
{
	char	   *s = DatumGetCString(DirectFunctionCall1(numeric_out, value));
	size_t		len = strlen(s);

	if (strchr(s, '.') != NULL)
	{
		while (len > 0 && s[len - 1] == '0')
			len--;
		if (len > 0 && s[len - 1] == '.')
			len--;
	}
	if (len == 2 && s[0] == '-' && s[1] == '0')
	{
		s[0] = '0';
		len = 1;
	}
	kb->data = (const uint8_t *) s;
	kb->len = len;
	kb->to_free = s;
}

/* float as float8 bits, with -0 = +0 and a single NaN. */
static void
bytes_float(double d, bs_key_bytes *kb)
{
	uint64_t	bits;

	if (d == 0.0)
		d = 0.0;
	if (isnan(d))
		bits = UINT64_C(0x7ff8000000000000);
	else
		memcpy(&bits, &d, sizeof(bits));
	bs_store64(kb->buf, bits);
	kb->data = kb->buf;
	kb->len = 8;
}

/*
 * The canonical bytes of each supported type, one function a type (the
 * bs_key_info's canonicalizer): integers, dates and timestamps as the int64
 * of their value (timestamp and timestamptz: microseconds since 2000-01-01,
 * UTC), floats as a double (bytes_float), text, varchar and bytea as their
 * bytes, char(n) without its trailing blanks (as char comparison ignores
 * them).
 */
#define CANON_VIA(name, bytes_fn, get) \
static void \
name(Datum value, bs_key_bytes *kb) \
{ \
	bytes_fn(get(value), kb); \
}

#define AS_DOUBLE_FLOAT4(v) ((double) DatumGetFloat4(v))
#define IDENTITY(v) (v)

CANON_VIA(canon_int2, bytes_int64, DatumGetInt16)
CANON_VIA(canon_int4, bytes_int64, DatumGetInt32)
CANON_VIA(canon_int8, bytes_int64, DatumGetInt64)
CANON_VIA(canon_date, bytes_int64, DatumGetDateADT)
CANON_VIA(canon_timestamp, bytes_int64, DatumGetTimestamp)
CANON_VIA(canon_float4, bytes_float, AS_DOUBLE_FLOAT4)
CANON_VIA(canon_float8, bytes_float, DatumGetFloat8)
CANON_VIA(canon_numeric, bytes_numeric, IDENTITY)

static void
canon_varlena(Datum value, bs_key_bytes *kb)
{
	bytes_varlena(value, false, kb);
}

static void
canon_bpchar(Datum value, bs_key_bytes *kb)
{
	bytes_varlena(value, true, kb);
}

/* name and an untyped literal or cstring: the characters of the string */
static void
canon_name(Datum value, bs_key_bytes *kb)
{
	const char *s = NameStr(*DatumGetName(value));

	kb->data = (const uint8_t *) s;
	kb->len = strnlen(s, NAMEDATALEN);
}

static void
canon_cstring(Datum value, bs_key_bytes *kb)
{
	const char *s = DatumGetCString(value);

	kb->data = (const uint8_t *) s;
	kb->len = strlen(s);
}

static void
canon_uuid(Datum value, bs_key_bytes *kb)
{
	kb->data = DatumGetUUIDP(value)->data;
	kb->len = UUID_LEN;
}

void
bs_key_canonical(const bs_key_info *ki, Datum value, bs_key_bytes *kb)
{
	kb->to_free = NULL;
	ki->canonical(value, kb);
}

void
bs_key_bytes_release(bs_key_bytes *kb)
{
	if (kb->to_free)
		pfree(kb->to_free);
	kb->to_free = NULL;
}

/* The hashers of key_types: each gives what hash_canonical gives. */
static inline uint64_t
hash_int64(int64 v, uint64_t seed)
{
	uint8_t		buf[8];

	bs_store64(buf, (uint64_t) v);
	return bs_hash_bytes(buf, 8, seed);
}

static uint64_t
hash_int2(const bs_key_info *ki, Datum value, uint64_t seed)
{
	return hash_int64(DatumGetInt16(value), seed);
}

static uint64_t
hash_int4(const bs_key_info *ki, Datum value, uint64_t seed)
{
	return hash_int64(DatumGetInt32(value), seed);
}

static uint64_t
hash_int8(const bs_key_info *ki, Datum value, uint64_t seed)
{
	return hash_int64(DatumGetInt64(value), seed);
}

/* text, varchar and bytea: their bytes as they are, read in place when not TOASTed. */
static uint64_t
hash_text(const bs_key_info *ki, Datum value, uint64_t seed)
{
	struct varlena *raw = (struct varlena *) DatumGetPointer(value);
	struct varlena *v;
	uint64_t	h;

	if (!VARATT_IS_EXTENDED(raw))
		return bs_hash_bytes(VARDATA(raw), VARSIZE(raw) - VARHDRSZ, seed);
	if (VARATT_IS_SHORT(raw))
		return bs_hash_bytes(VARDATA_SHORT(raw), VARSIZE_SHORT(raw) - VARHDRSZ_SHORT, seed);
	v = pg_detoast_datum_packed(raw);
	h = bs_hash_bytes(VARDATA_ANY(v), VARSIZE_ANY_EXHDR(v), seed);
	if (v != raw)
		pfree(v);
	return h;
}

/*
 * A date or timestamp key of 8 canonical bytes that no value of the type has
 * (bytes from outside: a crafted sketch).  A date is 32 bits, so such a key
 * would otherwise print as another date; a timestamp past the end of the
 * type would print as a year the type cannot hold.
 */
static BS_NORETURN void
key_out_of_range(const char *type, const char *unit, int64 v);

static void
key_out_of_range(const char *type, const char *unit, int64 v)
{
	ereport(ERROR,
			(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
			 errmsg("%s key of a sketch is out of range", type),
			 errdetail("Its canonical bytes hold " INT64_FORMAT " %s from 2000-01-01, outside the range of type %s.",
					   v, unit, type)));
}

/* The value behind canonical bytes, printed as its SQL type prints it. */
char *
bs_key_text(uint8_t family, const uint8_t *data, size_t len)
{
	int64		i = len == 8 ? (int64) bs_load64(data) : 0;

	switch (family)
	{
		case BS_FAMILY_INTEGER:
			return psprintf(INT64_FORMAT, i);
		case BS_FAMILY_TEXT:
			/* bytes from a sketch made elsewhere must still be text here */
			pg_verifymbstr((const char *) data, (int) len, false);
			return pnstrdup((const char *) data, len);
		case BS_FAMILY_NUMERIC:
			{
				char	   *s = pnstrdup((const char *) data, len);

				/* ... and a number (numeric_in raises 22P02 otherwise) */
				if (strlen(s) != len)
					ereport(ERROR,
							(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
							 errmsg("numeric key of a sketch contains a zero byte")));
				(void) DirectFunctionCall3(numeric_in, CStringGetDatum(s),
										   ObjectIdGetDatum(InvalidOid), Int32GetDatum(-1));
				return s;
			}
		case BS_FAMILY_BYTEA:
			{
				bytea	   *b = (bytea *) palloc(VARHDRSZ + len);

				SET_VARSIZE(b, VARHDRSZ + len);
				memcpy(VARDATA(b), data, len);
				return DatumGetCString(DirectFunctionCall1(byteaout, PointerGetDatum(b)));
			}
		case BS_FAMILY_UUID:
			{
				pg_uuid_t	u;

				memcpy(u.data, data, UUID_LEN);
				return DatumGetCString(DirectFunctionCall1(uuid_out, UUIDPGetDatum(&u)));
			}
		case BS_FAMILY_FLOAT:
			{
				double		d;
				uint64_t	bits = (uint64_t) i;

				memcpy(&d, &bits, sizeof(d));
				return DatumGetCString(DirectFunctionCall1(float8out, Float8GetDatum(d)));
			}
		case BS_FAMILY_DATE:
			if (!DATE_NOT_FINITE(i) && !IS_VALID_DATE(i))
				key_out_of_range("date", "days", i);
			return DatumGetCString(DirectFunctionCall1(date_out, DateADTGetDatum((DateADT) i)));
		case BS_FAMILY_TIMESTAMP:
			if (!TIMESTAMP_NOT_FINITE(i) && !IS_VALID_TIMESTAMP(i))
				key_out_of_range("timestamp", "microseconds", i);
			return DatumGetCString(DirectFunctionCall1(timestamp_out, TimestampGetDatum(i)));
		case BS_FAMILY_TIMESTAMPTZ:
			if (!TIMESTAMP_NOT_FINITE(i) && !IS_VALID_TIMESTAMP(i))
				key_out_of_range("timestamptz", "microseconds", i);
			return DatumGetCString(DirectFunctionCall1(timestamptz_out, TimestampTzGetDatum(i)));
	}
	return pstrdup("?");
}

/*
 * The SQL types a sketch takes as keys: a new key type is a row here (and,
 * for its aggregates, a line in sql/src/key_types).  name is how the error
 * hint lists it (NULL: not listed, a type only literals have); hash, when
 * set, is a hasher that reads the value in place and gives what hashing the
 * canonical bytes gives, for the common types.
 */
static const struct key_type
{
	Oid			typid;
	const char *name;
	uint8_t		family;
	bs_key_canonicalizer canonical;
	bs_key_hasher hash;
}			key_types[] = {
	{INT2OID, "smallint", BS_FAMILY_INTEGER, canon_int2, hash_int2},
	{INT4OID, "integer", BS_FAMILY_INTEGER, canon_int4, hash_int4},
	{INT8OID, "bigint", BS_FAMILY_INTEGER, canon_int8, hash_int8},
	{TEXTOID, "text", BS_FAMILY_TEXT, canon_varlena, hash_text},
	{VARCHAROID, "varchar", BS_FAMILY_TEXT, canon_varlena, hash_text},
	{BPCHAROID, "char", BS_FAMILY_TEXT, canon_bpchar, NULL},
	{NAMEOID, "name", BS_FAMILY_TEXT, canon_name, NULL},
	{UNKNOWNOID, NULL, BS_FAMILY_TEXT, canon_cstring, NULL},
	{CSTRINGOID, NULL, BS_FAMILY_TEXT, canon_cstring, NULL},
	{BYTEAOID, "bytea", BS_FAMILY_BYTEA, canon_varlena, hash_text},
	{UUIDOID, "uuid", BS_FAMILY_UUID, canon_uuid, NULL},
	{FLOAT4OID, "real", BS_FAMILY_FLOAT, canon_float4, NULL},
	{FLOAT8OID, "double precision", BS_FAMILY_FLOAT, canon_float8, NULL},
	{NUMERICOID, "numeric", BS_FAMILY_NUMERIC, canon_numeric, NULL},
	{DATEOID, "date", BS_FAMILY_DATE, canon_date, NULL},
	{TIMESTAMPOID, "timestamp", BS_FAMILY_TIMESTAMP, canon_timestamp, NULL},
	{TIMESTAMPTZOID, "timestamptz", BS_FAMILY_TIMESTAMPTZ, canon_timestamp, NULL},
};

#define N_KEY_TYPES (sizeof(key_types) / sizeof(key_types[0]))

/* bs_key_canonical, as a hasher: for the types without one of their own. */
static uint64_t
hash_canonical(const bs_key_info *ki, Datum value, uint64_t seed)
{
	bs_key_bytes kb;
	uint64_t	h;

	bs_key_canonical(ki, value, &kb);
	h = bs_hash_bytes(kb.data, kb.len, seed);
	bs_key_bytes_release(&kb);
	return h;
}

bool
bs_key_info_find(bs_key_info *ki, Oid typid)
{
	Oid			base = getBaseType(typid);
	size_t		i;

	for (i = 0; i < N_KEY_TYPES; i++)
		if (key_types[i].typid == base)
		{
			ki->typid = base;
			ki->family = key_types[i].family;
			ki->canonical = key_types[i].canonical;
			ki->hash = key_types[i].hash ? key_types[i].hash : hash_canonical;
			return true;
		}
	return false;
}

void
bs_key_info_init(bs_key_info *ki, Oid typid)
{
	StringInfoData names;
	size_t		i;

	if (bs_key_info_find(ki, typid))
		return;
	initStringInfo(&names);
	for (i = 0; i < N_KEY_TYPES; i++)
		if (key_types[i].name)
			appendStringInfo(&names, "%s%s", names.len ? ", " : "", key_types[i].name);
	ereport(ERROR,
			(errcode(ERRCODE_DATATYPE_MISMATCH),
			 errmsg("type %s is not supported as a sketch key",
					format_type_be(typid)),
			 errhint("Supported key types: %s. Cast other values to one of them, for example to text.",
					 names.data)));
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
