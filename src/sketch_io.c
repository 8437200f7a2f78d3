/*
 * sketch_io.c: allocation and the external forms shared by every sketch
 * type.  Text is "\x" plus hex, binary (send/recv) and the bytea cast carry
 * the format bytes as they are (doc/format.md); every way in validates with
 * the core's bs_validate() before a value exists.
 */
#include "glue.h"

#include "common/hashfn.h"
#include "funcapi.h"
#include "libpq/pqformat.h"
#include "utils/builtins.h"
#include "utils/expandeddatum.h"
#include "utils/memutils.h"

bytea *
bs_new_sketch(size_t len)
{
	bytea	   *v;

	if (len > BS_MAX_SKETCH_BYTES)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("sketch would take %zu bytes, more than the limit of %llu",
						len, (unsigned long long) BS_MAX_SKETCH_BYTES)));
	v = (bytea *) palloc0(VARHDRSZ + len);
	SET_VARSIZE(v, VARHDRSZ + len);
	return v;
}

static uint8_t *
palloc_sketch(void *ctx, size_t len)
{
	(void) ctx;
	return BS_DATA(bs_new_sketch(len));
}

static void
pfree_sketch(void *ctx, uint8_t *buf)
{
	(void) ctx;
	pfree(BS_VARLENA_OF(buf));
}

const bs_allocator bs_palloc_allocator = {palloc_sketch, NULL, NULL};
const bs_allocator bs_palloc_releasing_allocator = {palloc_sketch, NULL, pfree_sketch};

/* Validate len bytes and return them as a new varlena of the kind. */
static Datum
validated_copy(const uint8_t *bytes, size_t len, bs_kind kind, int format_code)
{
	bytea	   *v;

	BS_TRY(bs_validate(bytes, len, kind, true, NULL, BS_ERR), format_code);
	v = bs_new_sketch(len);
	memcpy(BS_DATA(v), bytes, len);
	return PointerGetDatum(v);
}

Datum
bs_sketch_in(const char *str, bs_kind kind)
{
	size_t		textlen = strlen(str);
	uint8_t    *buf;
	size_t		len;
	Datum		result;

	/* Refuse what cannot be a sketch before allocating for it. */
	if (textlen < 2 || str[0] != '\\' || str[1] != 'x')
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
				 errmsg("sketch text must start with \"\\x\" followed by hexadecimal digits")));
	if ((textlen - 2) / 2 > BS_MAX_SKETCH_BYTES)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
				 errmsg("%s text of %zu characters is too long for a sketch", bs_kind_name(kind), textlen),
				 errdetail("%s", BS_LIMIT_TEXT)));
	buf = palloc(textlen / 2 + 1);
	BS_TRY(bs_hex_decode(str, textlen, buf, &len, BS_ERR),
		   ERRCODE_INVALID_TEXT_REPRESENTATION);
	result = validated_copy(buf, len, kind, ERRCODE_INVALID_TEXT_REPRESENTATION);
	pfree(buf);
	return result;
}

Datum
bs_sketch_out(FunctionCallInfo fcinfo, bs_kind kind)
{
	bytea	   *v = PG_GETARG_BYTEA_PP(0);
	size_t		len = VARSIZE_ANY_EXHDR(v);
	size_t		outlen = bs_hex_encoded_len(len);
	char	   *out;

	(void) kind;
	if (outlen + 1 > MaxAllocSize)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("%s value of %zu bytes is too large for its text form",
						bs_kind_name(kind), len),
				 errhint("Sketches made by this version are at most 511 MiB; this one was not.")));
	out = palloc(outlen + 1);
	bs_hex_encode((const uint8_t *) VARDATA_ANY(v), len, out);
	out[outlen] = '\0';
	PG_RETURN_CSTRING(out);
}

Datum
bs_sketch_recv(FunctionCallInfo fcinfo, bs_kind kind)
{
	StringInfo	buf = (StringInfo) PG_GETARG_POINTER(0);
	int			len = buf->len - buf->cursor;
	const char *bytes = pq_getmsgbytes(buf, len);

	return validated_copy((const uint8_t *) bytes, (size_t) len, kind,
						  ERRCODE_INVALID_BINARY_REPRESENTATION);
}

Datum
bs_sketch_send(FunctionCallInfo fcinfo, bs_kind kind)
{
	bytea	   *v = PG_GETARG_BYTEA_PP(0);
	StringInfoData buf;

	(void) kind;
	pq_begintypsend(&buf);
	pq_sendbytes(&buf, VARDATA_ANY(v), VARSIZE_ANY_EXHDR(v));
	PG_RETURN_BYTEA_P(pq_endtypsend(&buf));
}

Datum
bs_sketch_from_bytea(FunctionCallInfo fcinfo, bs_kind kind)
{
	bytea	   *v = PG_GETARG_BYTEA_P(0);

	/* Same layout as the sketch: validate and hand the value on. */
	BS_TRY(bs_validate((const uint8_t *) VARDATA(v), VARSIZE(v) - VARHDRSZ, kind,
					   true, NULL, BS_ERR),
		   ERRCODE_INVALID_BINARY_REPRESENTATION);
	PG_RETURN_BYTEA_P(v);
}

bool
bs_sketch_args_equal(FunctionCallInfo fcinfo, bs_kind kind)
{
	bs_sketch_ref a,
				b;
	bool		eq;

	bs_sketch_arg(fcinfo, 0, kind, &a);
	bs_sketch_arg(fcinfo, 1, kind, &b);
	eq = a.len == b.len && memcmp(a.data, b.data, a.len) == 0;
	bs_sketch_release(&a);
	bs_sketch_release(&b);
	return eq;
}

Datum
bs_sketch_arg_hash(FunctionCallInfo fcinfo, bs_kind kind)
{
	bs_sketch_ref ref;
	Datum		h;

	bs_sketch_arg(fcinfo, 0, kind, &ref);
	h = hash_any(ref.data, (int) ref.len);
	bs_sketch_release(&ref);
	return h;
}

void
bs_not_agg_context_error(const char *name)
{
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("%s called in a non-aggregate context", name)));
}

struct ExpandedObjectHeader *
bs_expanded_of(Datum d, const struct ExpandedObjectMethods *methods, bool rw_only)
{
	ExpandedObjectHeader *eoh;

	if (rw_only ? !VARATT_IS_EXTERNAL_EXPANDED_RW(DatumGetPointer(d)) :
		!VARATT_IS_EXTERNAL_EXPANDED(DatumGetPointer(d)))
		return NULL;
	eoh = DatumGetEOHP(d);
	return eoh->eoh_methods == methods ? eoh : NULL;
}

TupleDesc
bs_info_begin(FunctionCallInfo fcinfo, bs_kind kind, bs_sketch_ref *ref)
{
	TupleDesc	tupdesc;

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "%s_info must return a composite type", bs_kind_name(kind));
	bs_sketch_arg(fcinfo, 0, kind, ref);
	return BlessTupleDesc(tupdesc);
}

Datum
bs_info_end(TupleDesc tupdesc, Datum *values, bool *nulls, int first,
			bs_sketch_ref *ref, bool with_hash)
{
	bs_header	h;

	bs_header_read(ref->data, &h);
	values[first] = Int32GetDatum((int32) (ref->len + VARHDRSZ));
	values[first + 1] = CStringGetTextDatum(bs_family_name(h.family));
	values[first + 2] = Int32GetDatum((int32) h.version);
	if (with_hash)
	{
		values[first + 3] = CStringGetTextDatum("xxh3_64");
		values[first + 4] = Int64GetDatum((int64) h.seed);
	}
	bs_sketch_release(ref);
	return HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls));
}
