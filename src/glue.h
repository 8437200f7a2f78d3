/*
 * glue.h: what the SQL-facing files share (the only part that includes
 * PostgreSQL headers): error reporting, sketch allocation, sketch arguments
 * with a detoast cache, key families and hashing of Datums, and the text,
 * binary and bytea forms that every sketch type has.
 */
#ifndef BS_GLUE_H
#define BS_GLUE_H

#include "postgres.h"

#include "fmgr.h"
#include "nodes/execnodes.h"
#if PG_VERSION_NUM >= 160000
#include "varatt.h"
#endif

/*
 * Before the declaration of a function that does not return.  PostgreSQL 18
 * has pg_noreturn (C11 _Noreturn) there, and no pg_attribute_noreturn() any
 * more; up to 17 pg_attribute_noreturn() is __attribute__((noreturn)) with
 * GCC and clang, which may stand there too.
 */
#if PG_VERSION_NUM >= 180000
#define BS_NORETURN pg_noreturn
#else
#define BS_NORETURN pg_attribute_noreturn()
#endif

#include "core/bloom_agg_state.h"
#include "core/format.h"
#include "core/topk.h"
#include "core/hash.h"
#include "core/status.h"

/* --- errors (errors.c) --- */

/*
 * Raise the core's error as ereport(ERROR) with the SQLSTATE of its status
 * (bs_status_sqlstate), except that format_code, when not 0, is the one for
 * BS_ERR_FORMAT (22P02 for text input, 22P03 for binary input).
 */
extern void bs_report(bs_status st, const bs_error *err, int format_code)
			__attribute__((noreturn));

/* Call a core function that takes a trailing bs_error *; raise on failure. */
#define BS_TRY(call_with_err, format_code) \
	do { \
		bs_error	bs_err_; \
		bs_status	bs_st_ = (call_with_err); \
		if (bs_st_ != BS_OK) \
			bs_report(bs_st_, &bs_err_, (format_code)); \
	} while (0)
#define BS_ERR (&bs_err_)

/* --- sketch memory (sketch_io.c) --- */

/* Sketch bytes live in a varlena with a 4-byte header right before them. */
#define BS_DATA(v) ((uint8_t *) VARDATA(v))
#define BS_VARLENA_OF(data) ((bytea *) ((char *) (data) - VARHDRSZ))

/* New zeroed sketch of len bytes in CurrentMemoryContext. */
extern bytea *bs_new_sketch(size_t len);

/* Allocator for the core: zeroed varlenas in CurrentMemoryContext. */
extern const bs_allocator bs_palloc_allocator;
/* The same, and a buffer the core replaces goes back with pfree (a varlena of ours). */
extern const bs_allocator bs_palloc_releasing_allocator;

/* --- sketch arguments (sketch_arg.c) and new sketches (sketch_io.c) --- */

typedef struct bs_sliced bs_sliced;

/* A sketch argument's bytes; release with bs_sketch_release(). */
typedef struct bs_sketch_ref
{
	uint8_t    *data;
	size_t		len;
	void	   *to_free;		/* a per-call detoasted copy, or NULL */
	bs_sliced  *sliced;			/* a sliced read (sketch_arg.c), or NULL: data is whole */
} bs_sketch_ref;

/*
 * Fetch argument argno as a sketch of the given kind, O(1)-checked.  A
 * TOASTed argument that is the same stored value as on the previous call
 * (an InitPlan result, a constant) is detoasted once and reused from
 * fn_extra, so a per-row lookup does no detoasting and no copying.
 */
extern void bs_sketch_arg(FunctionCallInfo fcinfo, int argno, bs_kind kind,
						  bs_sketch_ref *ref);
extern void bs_sketch_release(bs_sketch_ref *ref);

/*
 * For a lookup of one key (sketch_arg.c): argument argno like bs_sketch_arg, but
 * a large TOASTed, uncompressed value is not read whole.  Only its header
 * (checked against its stored size) and its last byte are fetched, and
 * bs_sketch_ref_probe(ref, h) then fetches the bytes a lookup of hash h
 * reads (core/probe_ranges.h); the other bytes of ref->data are not the
 * value's.  A value probed twice in a row at the call site is read whole
 * (and kept by bs_sketch_arg's cache) from then on.
 */
extern void bs_sketch_arg_lookup(FunctionCallInfo fcinfo, int argno, bs_kind kind,
								 bs_sketch_ref *ref);
extern void bs_sketch_ref_probe(bs_sketch_ref *ref, uint64_t h);

/*
 * The start of every lookup of a key in a sketch (sketch_arg.c): sketch
 * argument sketch_arg of kind read by bs_sketch_arg_lookup, the family of key
 * argument key_arg checked against the sketch's (what names the sketch in the
 * error), the key hashed with the sketch's seed and the bytes that hash reads
 * fetched.  Returns the hash; the caller decodes ref->data and releases ref.
 */
extern uint64_t bs_lookup_hash(FunctionCallInfo fcinfo, int sketch_arg, int key_arg,
							   bs_kind kind, const char *what, bs_sketch_ref *ref);

/* What sketch_arg.c keeps per sketch argument in fn_extra. */
typedef enum bs_slot_kind
{
	BS_SLOT_DETOASTED,			/* the detoasted value, when the same on every row */
	BS_SLOT_SLICED,				/* the state of sliced reads */
	BS_SLOT_KINDS
} bs_slot_kind;

/* A per-call-site pointer for argument argno (0 or 1) in fn_extra, or NULL (call_cache.c). */
extern void **bs_call_slot(FunctionCallInfo fcinfo, int argno, bs_slot_kind kind);

/*
 * A SQL function that is one call of a shared body, for instance
 * BS_FUNCTION_OF(bloom_union, merge_new(fcinfo, true)).
 */
#define BS_FUNCTION_OF(name, call) \
Datum \
name(PG_FUNCTION_ARGS) \
{ \
	return call; \
}

/*
 * Arguments that several functions share (args.c); each raises the error
 * that names the argument.
 */
/* argno as an int64 of at least 1 ("NAME must be at least 1"). */
extern int64 bs_positive_int64_arg(FunctionCallInfo fcinfo, int argno, const char *name);

/* A count or weight ("count", "weight"): negative is an error. */
extern uint64_t bs_count_arg(FunctionCallInfo fcinfo, int argno, const char *what);

/* A Bloom layout, 'classic' or 'blocked'; the second: classic when the call has no argno. */
extern uint32_t bs_layout_arg(FunctionCallInfo fcinfo, int argno);
extern uint32_t bs_layout_arg_or_classic(FunctionCallInfo fcinfo, int argno);

/* Count-Min width and depth of an aggregate's epsilon and delta arguments, memoised. */
extern void bs_cms_dims_arg(FunctionCallInfo fcinfo, int first, const char *caller,
							uint64_t *width, uint64_t *depth);

/* A fresh writable copy of argument argno (for functions that return a new value). */
extern bytea *bs_sketch_arg_copy(FunctionCallInfo fcinfo, int argno, bs_kind kind);

/* --- keys (keys.c) --- */

typedef struct bs_key_info bs_key_info;

typedef struct bs_key_bytes bs_key_bytes;

/* Hashes one non-NULL value of the key type: XXH3-64 of its canonical bytes. */
typedef uint64_t (*bs_key_hasher) (const bs_key_info *ki, Datum value, uint64_t seed);

/* Sets the canonical key bytes of one non-NULL value of the key type. */
typedef void (*bs_key_canonicalizer) (Datum value, bs_key_bytes *kb);

struct bs_key_info
{
	Oid			typid;			/* base type of the argument */
	uint8_t		family;
	bs_key_canonicalizer canonical; /* the type's row in keys.c's table */
	bs_key_hasher hash;
};

/*
 * What every function's fn_extra starts with (call_cache.c), read inline on
 * every row: the key of its value argument, once resolved, its layout
 * argument when that is a constant, and a memo of one
 * pure function of two 64-bit inputs, so that a per-row function does not
 * recompute what its constant parameters imply (cms_agg's width and depth
 * from epsilon and delta).
 */
typedef struct bs_call_head
{
	bool		key_ready;
	bool		memo_ready;
	bool		layout_ready;	/* a constant layout argument, parsed (args.c) */
	uint32_t	layout;
	bs_key_info key;
	uint64_t	memo_in[2];
	uint64_t	memo_out[2];
} bs_call_head;

extern const bs_key_info *bs_key_arg_resolve(FunctionCallInfo fcinfo, int argno);

/*
 * Key info of argument argno, resolved once per call site and kept in
 * fn_extra: per row, a pointer test (for a caller without fn_extra, a lookup
 * in its AggState's call sites).  Unsupported types are an ERROR naming the
 * type.
 */
static inline const bs_key_info *
bs_key_arg(FunctionCallInfo fcinfo, int argno)
{
	bs_call_head *c = (bs_call_head *) fcinfo->flinfo->fn_extra;

	if (likely(c != NULL && c->key_ready))
		return &c->key;
	return bs_key_arg_resolve(fcinfo, argno);
}

/*
 * The head of this call if it has one: fn_extra's, or for a caller that
 * builds a new FmgrInfo for every row (Citus), the one its AggState keeps for
 * the call site (call_cache.c).
 */
extern bs_call_head *bs_call_head_if_any(FunctionCallInfo fcinfo);

/* A syscache invalidation: the call sites of such callers resolve their keys again. */
extern void bs_call_sites_forget_keys(void);

/* The memo's outputs for inputs (a, b), if it holds them. */
static inline bool
bs_memo_get(FunctionCallInfo fcinfo, uint64_t a, uint64_t b, uint64_t *x, uint64_t *y)
{
	bs_call_head *c = (bs_call_head *) fcinfo->flinfo->fn_extra;

	if (unlikely(c == NULL))
		c = bs_call_head_if_any(fcinfo);
	if (c == NULL || !c->memo_ready || c->memo_in[0] != a || c->memo_in[1] != b)
		return false;
	*x = c->memo_out[0];
	*y = c->memo_out[1];
	return true;
}

extern void bs_memo_set(FunctionCallInfo fcinfo, uint64_t a, uint64_t b,
						uint64_t x, uint64_t y);

/* Keep the parsed layout of a constant layout argument (args.c reads it back). */
extern void bs_layout_remember(FunctionCallInfo fcinfo, uint32_t layout);

/*
 * Fill ki for the value argument argno of this call, whose type the call's
 * expression or, for Citus, the named aggregate tells (key_arg.c).
 */
extern void bs_key_info_of_arg(FunctionCallInfo fcinfo, int argno, bs_key_info *ki);

/* Fill ki for a key of SQL type typid (a domain counts as its base type). */
extern void bs_key_info_init(bs_key_info *ki, Oid typid);
/* The same without the error: false, and ki untouched, for a type that is not a key type. */
extern bool bs_key_info_find(bs_key_info *ki, Oid typid);

/* The canonical key bytes of a non-NULL value (doc/hashing.md). */
struct bs_key_bytes
{
	const uint8_t *data;
	size_t		len;
	uint8_t		buf[8];			/* holds fixed-width forms */
	void	   *to_free;		/* a detoasted or printed copy, or NULL */
};

extern void bs_key_canonical(const bs_key_info *ki, Datum value, bs_key_bytes *kb);
extern void bs_key_bytes_release(bs_key_bytes *kb);

/* The canonical 64-bit hash of a non-NULL value: XXH3-64 of its key bytes. */
static inline uint64_t
bs_key_hash(const bs_key_info *ki, Datum value, uint64_t seed)
{
	return ki->hash(ki, value, seed);
}

/* Canonical bytes of a family printed as the SQL type prints them (palloc'd). */
extern char *bs_key_text(uint8_t family, const uint8_t *data, size_t len);

/* ERROR (42804) if a key of ki's family cannot be used with a sketch of this family. */
extern void bs_check_family(uint8_t sketch_family, const bs_key_info *ki,
							const char *sketch_kind);

/* --- text, binary and bytea forms (sketch_io.c) --- */

extern Datum bs_sketch_in(const char *str, bs_kind kind);
extern Datum bs_sketch_out(FunctionCallInfo fcinfo, bs_kind kind);
extern Datum bs_sketch_recv(FunctionCallInfo fcinfo, bs_kind kind);
extern Datum bs_sketch_send(FunctionCallInfo fcinfo, bs_kind kind);
extern Datum bs_sketch_from_bytea(FunctionCallInfo fcinfo, bs_kind kind);

/*
 * Every *_info function: bs_info_begin reads sketch argument 0 into ref and
 * returns the descriptor of the result row; the function fills its own
 * columns; bs_info_end adds the format columns every info row ends with, at
 * values[first..] (bytes with the length word, key_family, format_version
 * and, when with_hash, hash_algorithm and seed), releases ref and returns
 * the row.
 */
extern TupleDesc bs_info_begin(FunctionCallInfo fcinfo, bs_kind kind, bs_sketch_ref *ref);
extern Datum bs_info_end(TupleDesc tupdesc, Datum *values, bool *nulls, int first,
						 bs_sketch_ref *ref, bool with_hash);

/* Byte equality of sketch arguments 0 and 1, and the hash of argument 0 (= and hash opclasses). */
extern bool bs_sketch_args_equal(FunctionCallInfo fcinfo, bs_kind kind);
extern Datum bs_sketch_arg_hash(FunctionCallInfo fcinfo, bs_kind kind);

/*
 * The SQL functions that every sketch type has, defined by one line in the
 * type's file: PREFIX_in, _out, _recv and _send (the type's text and binary
 * forms), PREFIX_from_bytea (the cast from bytea), and PREFIX_eq, _ne and
 * _hash (byte equality and its hash operator class).  Each is the shared
 * function above for the type's kind.
 */
#define BS_SKETCH_IO_FUNCTIONS(prefix, kind) \
	BS_SKETCH_FUNCTION(prefix##_in, bs_sketch_in(PG_GETARG_CSTRING(0), kind)) \
	BS_SKETCH_FUNCTION(prefix##_out, bs_sketch_out(fcinfo, kind)) \
	BS_SKETCH_FUNCTION(prefix##_recv, bs_sketch_recv(fcinfo, kind)) \
	BS_SKETCH_FUNCTION(prefix##_send, bs_sketch_send(fcinfo, kind))
#define BS_SKETCH_BYTEA_FUNCTION(prefix, kind) \
	BS_SKETCH_FUNCTION(prefix##_from_bytea, bs_sketch_from_bytea(fcinfo, kind))
#define BS_SKETCH_EQUALITY_FUNCTIONS(prefix, kind) \
	BS_SKETCH_FUNCTION(prefix##_eq, BoolGetDatum(bs_sketch_args_equal(fcinfo, kind))) \
	BS_SKETCH_FUNCTION(prefix##_ne, BoolGetDatum(!bs_sketch_args_equal(fcinfo, kind))) \
	BS_SKETCH_FUNCTION(prefix##_hash, bs_sketch_arg_hash(fcinfo, kind))
#define BS_SKETCH_FUNCTION(name, result) \
	PG_FUNCTION_INFO_V1(name); \
	Datum name(PG_FUNCTION_ARGS) { return result; }

/* --- aggregate states (sketch_io.c) --- */

/*
 * ERROR unless called as an aggregate support function.  Inline: transition
 * functions check it on every row (the test of AggCheckCallContext).
 */
extern BS_NORETURN void bs_not_agg_context_error(const char *name);

static inline void
bs_require_agg_context(FunctionCallInfo fcinfo, const char *name)
{
	Node	   *context = fcinfo->context;

	if (unlikely(context == NULL ||
				 !(IsA(context, AggState) || IsA(context, WindowAggState))))
		bs_not_agg_context_error(name);
}

/*
 * Transition state argument argno as writable bytes: ours (in the aggregate
 * context, changed in place), or, the first time, a plain copy of an input
 * value that nodeAgg made the state (then returned and copied by nodeAgg).
 */
extern uint8_t *bs_state_arg(FunctionCallInfo fcinfo, int argno, bs_kind kind);

/*
 * The expanded object behind datum d, read-write (or, unless rw_only,
 * read-only), if it is one with these methods (one of our states), else
 * NULL (sketch_io.c).  A transition function asks for rw_only on every row:
 * one test of the pointer and one of the methods.
 */
struct ExpandedObjectHeader;
struct ExpandedObjectMethods;
extern struct ExpandedObjectHeader *bs_expanded_of(Datum d,
												   const struct ExpandedObjectMethods *methods,
												   bool rw_only);

/* --- bloom_agg_state as an expanded object (bloom_agg_expanded.c) --- */

typedef struct bs_bloom_agg_expanded bs_bloom_agg_expanded;

/* Argument argno if it is our read-write expanded state, else NULL. */
extern bs_bloom_agg_expanded *bs_bloom_agg_state_rw(FunctionCallInfo fcinfo, int argno);
/* Its current state bytes (header exact; batched hashes not yet in the state). */
extern uint8_t *bs_bloom_agg_state_bytes(bs_bloom_agg_expanded *expanded);
/* Add one hash to the batch; a full batch goes into the state (bloom_agg_expanded.c). */
extern void bs_bloom_agg_state_append(bs_bloom_agg_expanded *expanded, uint64_t h);
extern Datum bs_bloom_agg_state_datum(bs_bloom_agg_expanded *expanded);
/* What a transition function returns for flat state s: s, or s made expanded once large. */
extern Datum bs_bloom_agg_state_return(FunctionCallInfo fcinfo, uint8_t *s);
/*
 * The combine function's work: src merged into the state of argument 0,
 * which a large state does as an expanded object (a packed one unpacked
 * into it, not copied).
 */
extern Datum bs_bloom_agg_state_merge_into(FunctionCallInfo fcinfo, const uint8_t *src);
/* A bloom_agg_state argument's complete bytes, without copying our expanded state. */
extern void bs_bloom_agg_state_arg(FunctionCallInfo fcinfo, int argno, bs_sketch_ref *ref);

/* --- the state of topk_agg as an expanded object (topk_state.c) --- */

typedef struct bs_topk_expanded bs_topk_expanded;

/* Argument argno if it is our read-write expanded state, else NULL. */
extern bs_topk_expanded *bs_topk_state_rw(FunctionCallInfo fcinfo, int argno);
/* Argument argno if it is our expanded state, read-write or read-only, else NULL. */
extern bs_topk_expanded *bs_topk_state_of(FunctionCallInfo fcinfo, int argno);
extern bs_topk_state *bs_topk_expanded_state(bs_topk_expanded *expanded);
/* A new empty state, or one holding a format-2 value, in the aggregate's memory. */
extern bs_topk_expanded *bs_topk_state_new(FunctionCallInfo fcinfo, const bs_topk_params *p,
									 uint8_t family);
extern bs_topk_expanded *bs_topk_state_load_value(FunctionCallInfo fcinfo, const uint8_t *data,
											size_t len);
/* The aggregate arguments the state was checked against (k, epsilon's and delta's bits). */
extern bool bs_topk_state_args_are(bs_topk_expanded *expanded, int32 k, uint64 eps_bits, uint64 delta_bits);
extern void bs_topk_state_set_args(bs_topk_expanded *expanded, int32 k, uint64 eps_bits, uint64 delta_bits);
extern Datum bs_topk_state_datum(bs_topk_expanded *expanded);

#endif
