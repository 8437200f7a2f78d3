#!/usr/bin/python3
"""Regenerate test/vectors/hash.tsv and test/vectors/sketches.txt from a server.

    PGHOST=... PGPORT=... PGUSER=... PGDATABASE=... /usr/bin/python3 test/vectors/generate.py [FILE...]

FILE is hash.tsv or sketches.txt: write only these (both by default).

Not part of the tests: run it by hand after a deliberate change of the
format or of the hashing (which needs a new format or hash version anyway,
doc/format.md, section 8), and review the diff.  Every value written comes
from the server with bloomsketch installed:

- the hash is bloomsketch_hash(expr);
- the canonical key bytes are the key bytes topk_agg(expr, 1, 0.5, 0.5)
  stores for the value, and the hash stored beside them must equal
  bloomsketch_hash(expr);
- the probe positions are the bits bloom_add(bloom_empty_bits(m, k), expr)
  sets and, where the sketch is small enough, in order, the columns
  cms_add(cms_empty_dims(m, k), expr) increments in rows 0 to k - 1;
- a sketch's bytes are its SQL expression's result (sketch::bytea);
- a topk's items are the rows of topk_items_bounds(t, capacity), and its
  bounds those of topk_bounds(t, value) for each value added and a few that
  were not.

The positions are listed in probe order as test/client/bloomsketch.py
computes them, and a topk's items and bounds with the key bytes the client
reads; the script stops if the client disagrees with the server.

The topk records of format 1 (build line topk1_agg) are frozen: bloomsketch
1.4 made them, and a server of 1.5 or later makes format 2 from their query.
Their lines are copied from the sketches.txt being replaced, which must hold
them; only their items and bounds are read from the server again (it still
reads format 1).
It works in a schema of its own (bs_vectors_<pid>), dropped at the end, and
creates the extension if it is missing (dropping it again at the end).
"""

import decimal
import os
import sys

import psycopg2

sys.dont_write_bytecode = True      # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "client"))
import bloomsketch as bs  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))

# (SQL expression, m, k).  Expressions must not contain tabs; UTF-8 text
# needs a UTF-8 database.
HASH_CASES = [
    # integer: every width, the extremes
    ("0::smallint", 64, 3),
    ("42::smallint", 64, 3),
    ("-1::smallint", 1000, 7),
    ("32767::smallint", 9586, 7),
    ("(-32768)::smallint", 15, 3),
    ("42::integer", 64, 3),
    ("-7::integer", 100003, 10),
    ("2147483647::integer", 1048583, 16),
    ("(-2147483648)::integer", 8, 1),
    ("42::bigint", 64, 3),
    ("7::bigint", 64, 3),
    ("-7::bigint", 4096, 64),
    ("1000000::bigint", 9586, 7),
    ("9223372036854775807::bigint", 1000, 7),
    ("(-9223372036854775808)::bigint", 1048583, 16),
    # text: every length class of XXH3 (0, 1-3, 4-8, 9-16, 17-128, 129-240, > 240)
    ("''::text", 64, 3),
    ("'a'::text", 1000, 7),
    ("'b'::text", 8, 1),
    ("'c'::text", 8, 1),
    ("'abc'::text", 64, 3),
    ("'abc'::varchar", 64, 3),
    ("'abc   '::char(6)", 64, 3),
    ("'abc'::name", 64, 3),
    ("'ABC'::text", 64, 3),
    ("'abc '::text", 64, 3),
    ("' a '::char(5)", 15, 3),
    ("''::char(3)", 15, 3),
    ("'user-42'::text", 9586, 7),
    ("'grüße, 世界'::varchar", 1000, 7),
    ("'0123456789abcdef'::text", 100003, 10),
    ("'the quick brown fox jumps over the lazy dog'::text", 1048583, 16),
    ("repeat('0123456789', 20)::text", 4096, 64),
    ("repeat('abcdefghijklmnopqrstuvwxyz', 12)::text", 9586, 7),
    # bytea
    ("'\\x'::bytea", 64, 3),
    ("'\\x00'::bytea", 64, 3),
    ("'\\x616263'::bytea", 64, 3),
    ("'\\x00ff7f80'::bytea", 1000, 7),
    ("decode(repeat('a5', 300), 'hex')", 100003, 10),
    # uuid
    ("'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid", 64, 3),
    ("'00000000-0000-0000-0000-000000000000'::uuid", 1000, 7),
    ("'ffffffff-ffff-ffff-ffff-ffffffffffff'::uuid", 9586, 7),
    # float: widths, -0, NaN, infinities, extremes
    ("0::float8", 64, 3),
    ("'-0'::float8", 64, 3),
    ("'-0'::real", 64, 3),
    ("1.5::float8", 64, 3),
    ("1.5::real", 64, 3),
    ("0.1::float8", 1000, 7),
    ("0.1::real", 1000, 7),
    ("'NaN'::float8", 15, 3),
    ("'NaN'::real", 15, 3),
    ("'Infinity'::float8", 9586, 7),
    ("'-Infinity'::real", 9586, 7),
    ("1e308::float8", 100003, 10),
    ("5e-324::float8", 1048583, 16),
    ("-123456.789::float8", 4096, 64),
    # numeric: equal values of other scales, zeros, specials
    ("1.5::numeric", 64, 3),
    ("1.50::numeric", 64, 3),
    ("1.500::numeric", 64, 3),
    ("100::numeric", 1000, 7),
    ("100.00::numeric", 1000, 7),
    ("0.000::numeric", 15, 3),
    ("'-0.000'::numeric", 15, 3),
    ("-1.5::numeric", 9586, 7),
    ("12345678901234567890.000::numeric", 100003, 10),
    ("1e-20::numeric", 1048583, 16),
    ("'NaN'::numeric", 8, 1),
    ("'Infinity'::numeric", 8, 1),
    ("'-Infinity'::numeric", 8, 1),
    # date
    ("'2000-01-01'::date", 64, 3),
    ("'1999-12-31'::date", 64, 3),
    ("'2024-02-29'::date", 1000, 7),
    ("'4713-01-01 BC'::date", 9586, 7),
    ("'infinity'::date", 15, 3),
    ("'-infinity'::date", 15, 3),
    # timestamp
    ("'2000-01-01 00:00:01'::timestamp", 64, 3),
    ("'1970-01-01 00:00:00'::timestamp", 1000, 7),
    ("'2024-02-29 12:34:56.789012'::timestamp", 100003, 10),
    ("'infinity'::timestamp", 15, 3),
    ("'-infinity'::timestamp", 15, 3),
    # timestamptz: the same instant in two zones is one key
    ("'2000-01-01 00:00:01+00'::timestamptz", 64, 3),
    ("'2000-01-01 01:00:01+01'::timestamptz", 64, 3),
    ("'2024-06-30 23:59:59.999999-07'::timestamptz", 1048583, 16),
    ("'infinity'::timestamptz", 15, 3),
]

# Helper aggregates that return a bloom_agg_state (doc/format.md, section 7).
HELPERS = """
CREATE AGGREGATE bloom_agg_partial(anyelement) (SFUNC = bloom_agg_trans, STYPE = bloom_agg_state);
CREATE AGGREGATE bloom_agg_partial(anyelement, bigint, double precision) (SFUNC = bloom_agg_trans, STYPE = bloom_agg_state);
CREATE AGGREGATE cbloom_agg_partial(anyelement) (SFUNC = cbloom_agg_trans, STYPE = bloom_agg_state);
CREATE AGGREGATE bloom_agg_partial(anyelement, bigint, double precision, text) (SFUNC = bloom_agg_trans, STYPE = bloom_agg_state);
"""


def rows_sql(agg, typ, values):
    """SELECT agg FROM the values in order (agg uses v, and ORDER BY i)."""
    return ("SELECT %s FROM unnest(ARRAY[%s]) WITH ORDINALITY AS t(v, i)"
            % (agg, ", ".join("(%s)::%s" % (v, typ) for v in values)))


def chain_sql(empty, fn, ops):
    """fn(fn(empty, a), b) ... for ops of (sign, literal, count)."""
    expr = empty
    for sign, lit, count in ops:
        f = fn if sign == "+" else fn.replace("_add", "_remove")
        expr = "%s(%s, %s%s)" % (f, expr, lit, ", %d" % count if count != 1 else "")
    return "SELECT " + expr


def ops_of(values):
    """'42', '7*3', 'remove 9' -> (sign, literal, count)."""
    out = []
    for v in values:
        sign = "+"
        if v.startswith("remove "):
            sign, v = "-", v[len("remove "):]
        count = 1
        if "*" in v.rsplit("'", 1)[-1]:
            v, c = v.rsplit("*", 1)
            count = int(c)
        out.append((sign, v, count))
    return out


def expand(values):
    """Values with *N repeated N times (rows of an aggregate)."""
    out = []
    for sign, lit, count in ops_of(values):
        assert sign == "+"
        out.extend([lit] * count)
    return out


def values_sql(agg, values):
    """SELECT agg FROM (VALUES (literal, weight, i), ...) AS t(v, w, i) of "literal*weight" values."""
    return ("SELECT %s FROM (VALUES %s) AS t(v, w, i)"
            % (agg, ", ".join("(%s, %d, %d)" % (lit, c, n) for n, (_, lit, c) in enumerate(ops_of(values)))))


def union_sql(agg, typ, values, split):
    """topk_union_agg of agg over the first split values and of agg over the others, in that order."""
    return ("SELECT topk_union_agg(t ORDER BY j) FROM (SELECT 1, (%s) UNION ALL SELECT 2, (%s)) AS s(j, t)"
            % (rows_sql(agg, typ, values[:split]), rows_sql(agg, typ, values[split:])))


# (name, kind, build, type, values, sql, absent, frozen).  Values: SQL literals in add order;
# "v*N" adds v with count N (N rows of an aggregate, or one call with a count);
# "remove v" removes v (cbloom).  absent: SQL literals of values not added, whose
# topk_bounds a topk record lists too.  frozen: a format-1 topk kept from the file.
def sketch_cases():
    cases = []

    def add(name, kind, build, typ, values, sql, absent=(), frozen=False):
        cases.append((name, kind, build, typ, values, sql, absent, frozen))

    v = ["42", "7"]
    add("bloom_bits_integer", "bloom", "bloom_empty_bits 64 3", "integer", v,
        chain_sql("bloom_empty_bits(64, 3)", "bloom_add", ops_of(v)))
    v = ["'alpha'::text", "'beta'::text", "'gamma'::text", "'delta'::text"]
    add("bloom_bits_text_odd_m", "bloom", "bloom_empty_bits 61 4", "text", v,
        chain_sql("bloom_empty_bits(61, 4)", "bloom_add", ops_of(v)))
    v = ["'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid", "'00000000-0000-0000-0000-000000000001'::uuid",
         "'123e4567-e89b-12d3-a456-426614174000'::uuid"]
    add("bloom_capacity_uuid", "bloom", "bloom_empty 20 0.05", "uuid", v,
        chain_sql("bloom_empty(20, 0.05)", "bloom_add", ops_of(v)))
    add("bloom_empty", "bloom", "bloom_empty_bits 16 2", "bigint", [],
        "SELECT bloom_empty_bits(16, 2)")
    v = [str(i) for i in range(1, 21)]
    add("bloom_agg_bigint", "bloom", "bloom_agg 0.01", "bigint", v,
        rows_sql("bloom_agg(v ORDER BY i)", "bigint", v))
    v = ["'apple'", "'banana'", "'cherry'", "'apple'"]
    add("bloom_agg_text_fpr", "bloom", "bloom_agg 0.1", "text", v,
        rows_sql("bloom_agg(v, 0.1 ORDER BY i)", "text", v))
    v = ["42", "7"]
    add("bloom_agg_fixed_bigint", "bloom", "bloom_agg 10 0.01", "bigint", v,
        rows_sql("bloom_agg(v, 10, 0.01 ORDER BY i)", "bigint", v))
    v = ["0", "'-0'", "'NaN'", "1.5", "'Infinity'", "'-Infinity'"]
    add("bloom_agg_float8", "bloom", "bloom_agg 0.01", "double precision", v,
        rows_sql("bloom_agg(v ORDER BY i)", "double precision", v))
    v = ["1.5", "1.50", "100", "0.000", "'NaN'", "-2.25"]
    add("bloom_agg_numeric", "bloom", "bloom_agg 0.01", "numeric", v,
        rows_sql("bloom_agg(v ORDER BY i)", "numeric", v))
    v = ["'\\x'", "'\\x00'", "'\\x616263'", "'\\xdeadbeef'"]
    add("bloom_agg_bytea", "bloom", "bloom_agg 0.05", "bytea", v,
        rows_sql("bloom_agg(v, 0.05 ORDER BY i)", "bytea", v))
    v = ["'2000-01-01'", "'1999-12-31'", "'2024-02-29'", "'infinity'"]
    add("bloom_agg_date", "bloom", "bloom_agg 0.01", "date", v,
        rows_sql("bloom_agg(v ORDER BY i)", "date", v))
    v = ["'2000-01-01 00:00:01'", "'2024-02-29 12:34:56.789012'"]
    add("bloom_agg_timestamp", "bloom", "bloom_agg 0.01", "timestamp", v,
        rows_sql("bloom_agg(v ORDER BY i)", "timestamp", v))
    v = ["'2000-01-01 00:00:01+00'", "'2000-01-01 01:00:01+01'", "'2024-06-30 23:59:59.999999-07'"]
    add("bloom_agg_timestamptz", "bloom", "bloom_agg 0.01", "timestamptz", v,
        rows_sql("bloom_agg(v ORDER BY i)", "timestamptz", v))

    # the blocked layout (header p3 = 1; version 1.3)
    v = ["42", "7"]
    add("bloom_blocked_bits_integer", "bloom", "bloom_empty_bits 512 3 blocked", "integer", v,
        chain_sql("bloom_empty_bits(512, 3, 'blocked')", "bloom_add", ops_of(v)))
    v = ["'alpha'::text", "'beta'::text", "'gamma'::text", "'delta'::text", "''::text"]
    add("bloom_blocked_bits_text_k16", "bloom", "bloom_empty_bits 1536 16 blocked", "text", v,
        chain_sql("bloom_empty_bits(1536, 16, 'blocked')", "bloom_add", ops_of(v)))
    v = ["'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid", "'00000000-0000-0000-0000-000000000001'::uuid",
         "'123e4567-e89b-12d3-a456-426614174000'::uuid"]
    add("bloom_blocked_capacity_uuid", "bloom", "bloom_empty 20 0.05 blocked", "uuid", v,
        chain_sql("bloom_empty(20, 0.05, 'blocked')", "bloom_add", ops_of(v)))
    add("bloom_blocked_empty", "bloom", "bloom_empty_bits 1024 1 blocked", "bigint", [],
        "SELECT bloom_empty_bits(1024, 1, 'blocked')")
    v = [str(i) for i in range(1, 101)]
    add("bloom_agg_blocked_bigint", "bloom", "bloom_agg 0.01 blocked", "bigint", v,
        rows_sql("bloom_agg(v, NULL, 0.01, 'blocked' ORDER BY i)", "bigint", v))
    v = ["'apple'", "'banana'", "'cherry'", "'apple'", "'date'", "'elderberry'"]
    add("bloom_agg_fixed_blocked_text", "bloom", "bloom_agg 50 0.01 blocked", "text", v,
        rows_sql("bloom_agg(v, 50, 0.01, 'blocked' ORDER BY i)", "text", v))

    v = ["42", "7"]
    add("state_exact_bigint", "bloom_agg_state", "bloom_agg_state 0.01", "bigint", v,
        rows_sql("bloom_agg_partial(v ORDER BY i)", "bigint", v))
    v = ["42", "7"]
    add("state_fixed_bigint", "bloom_agg_state", "bloom_agg_state 10 0.01", "bigint", v,
        rows_sql("bloom_agg_partial(v, 10, 0.01 ORDER BY i)", "bigint", v))
    v = ["'a'", "'b'", "'b'", "'c'"]
    add("state_counting_text", "bloom_agg_state", "cbloom_agg_state 0.01", "text", v,
        rows_sql("cbloom_agg_partial(v ORDER BY i)", "text", v))
    v = ["42", "7"]
    add("state_exact_blocked_bigint", "bloom_agg_state", "bloom_agg_state 0.01 blocked", "bigint", v,
        rows_sql("bloom_agg_partial(v, NULL, 0.01, 'blocked' ORDER BY i)", "bigint", v))
    v = ["42", "7"]
    add("state_fixed_blocked_bigint", "bloom_agg_state", "bloom_agg_state 10 0.01 blocked", "bigint", v,
        rows_sql("bloom_agg_partial(v, 10, 0.01, 'blocked' ORDER BY i)", "bigint", v))

    v = ["42"]
    add("cbloom_integer", "cbloom", "cbloom_empty 3 0.1 4", "integer", v,
        chain_sql("cbloom_empty(3, 0.1)", "cbloom_add", ops_of(v)))
    v = ["'a'::text", "'b'::text", "'c'::text", "'a'::text", "remove 'b'::text"]
    add("cbloom_text_remove", "cbloom", "cbloom_empty 10 0.05 4", "text", v,
        chain_sql("cbloom_empty(10, 0.05)", "cbloom_add", ops_of(v)))
    v = ["1::bigint", "2::bigint", "3::bigint", "1::bigint", "remove 3::bigint"]
    add("cbloom_8bit_remove", "cbloom", "cbloom_empty 5 0.1 8", "bigint", v,
        chain_sql("cbloom_empty(5, 0.1, 8)", "cbloom_add", ops_of(v)))
    v = ["7*20", "8"]
    add("cbloom_saturated", "cbloom", "cbloom_empty 2 0.5 4", "bigint", v,
        rows_sql("cbloom_agg(v, 2, 0.5, 4 ORDER BY i)", "bigint", expand(v)))
    v = ["'x'", "'y'", "'y'", "'z'", "'z'", "'z'"]
    add("cbloom_agg_text", "cbloom", "cbloom_agg 0.01", "text", v,
        rows_sql("cbloom_agg(v ORDER BY i)", "text", v))

    v = ["42", "7*3"]
    add("cms_dims_integer", "cms", "cms_empty_dims 4 2", "integer", v,
        chain_sql("cms_empty_dims(4, 2)", "cms_add", ops_of(v)))
    add("cms_empty", "cms", "cms_empty_dims 3 1", "integer", [],
        "SELECT cms_empty_dims(3, 1)")
    v = ["'a'", "'b'", "'b'", "'c'", "'c'", "'c'", "'d'"]
    add("cms_agg_text", "cms", "cms_empty 0.1 0.05", "text", v,
        rows_sql("cms_agg(v, 0.1, 0.05 ORDER BY i)", "text", v))
    v = ["'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid*5",
         "'00000000-0000-0000-0000-000000000001'::uuid*1000000",
         "'123e4567-e89b-12d3-a456-426614174000'::uuid*3"]
    add("cms_weighted_uuid", "cms", "cms_empty 0.5 0.2", "uuid", v,
        "SELECT cms_agg_weighted(v, w, 0.5, 0.2 ORDER BY i) FROM (VALUES %s) AS t(v, w, i)"
        % ", ".join("(%s, %d, %d)" % (lit, c, n) for n, (_, lit, c) in enumerate(ops_of(v))))

    # topk of format 1, frozen: made by topk_agg in bloomsketch 1.4 (its query now makes format 2)
    v = ["'a'", "'b'", "'b'", "'c'", "'c'", "'c'"]
    add("topk_text", "topk", "topk1_agg 2 0.34 0.5", "text", v,
        rows_sql("topk_agg(v, 2, 0.34, 0.5 ORDER BY i)", "text", v), ["'d'", "''"], frozen=True)
    v = ["1", "2", "3", "3", "2", "1", "4", "4", "4", "4", "5"]
    add("topk_evict_bigint", "topk", "topk1_agg 1 0.5 0.5", "bigint", v,
        rows_sql("topk_agg(v, 1, 0.5, 0.5 ORDER BY i)", "bigint", v), ["0", "6"], frozen=True)
    v = ["'2024-01-01'", "'2024-01-02'", "'2024-01-02'", "'2024-01-03'", "'2024-01-03'",
         "'2024-01-03'", "'2024-01-04'"]
    add("topk_date", "topk", "topk1_agg 3 0.2 0.1", "date", v,
        rows_sql("topk_agg(v, 3, 0.2, 0.1 ORDER BY i)", "date", v), ["'2024-01-05'"], frozen=True)
    v = ["1.5", "1.50", "2", "'NaN'", "2.0"]
    add("topk_numeric", "topk", "topk1_agg 2 0.5 0.5", "numeric", v,
        rows_sql("topk_agg(v, 2, 0.5, 0.5 ORDER BY i)", "numeric", v), ["3", "'Infinity'"], frozen=True)

    # topk of format 2 (version 1.5): topk_agg, topk_agg_weighted, topk_union_agg
    v = ["'a'", "'b'", "'b'", "'c'", "'c'", "'c'"]
    add("topk2_text", "topk", "topk_agg 2 0.34 0.5", "text", v,
        rows_sql("topk_agg(v, 2, 0.34, 0.5 ORDER BY i)", "text", v), ["'d'", "''"])
    # 16 values, capacity 4: values are dropped (twice C held), floor > 0
    v = "1 2 3 1 4 5 1 2 6 7 1 3 8 9 1 2 10 11 1 12 3 1 2 13 1 14 15 2 1 16".split()
    add("topk2_evict_bigint", "topk", "topk_agg 2 0.25 0.1", "bigint", v,
        rows_sql("topk_agg(v, 2, 0.25, 0.1 ORDER BY i)", "bigint", v), ["0", "17", "-1"])
    v = ["'2024-01-01'", "'2024-01-02'", "'2024-01-02'", "'2024-01-03'", "'2024-01-03'",
         "'2024-01-03'", "'2024-01-04'"]
    add("topk2_date", "topk", "topk_agg 3 0.2 0.1", "date", v,
        rows_sql("topk_agg(v, 3, 0.2, 0.1 ORDER BY i)", "date", v), ["'2024-01-05'", "'infinity'"])
    v = ["1.5", "1.50", "2", "'NaN'", "2.0", "'-0.000'", "1e-20"]
    add("topk2_numeric", "topk", "topk_agg 2 0.5 0.5", "numeric", v,
        rows_sql("topk_agg(v, 2, 0.5, 0.5 ORDER BY i)", "numeric", v), ["3", "'Infinity'"])
    v = ["'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid*5",
         "'00000000-0000-0000-0000-000000000001'::uuid*1000000",
         "'123e4567-e89b-12d3-a456-426614174000'::uuid*3",
         "'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid*2"]
    add("topk2_weighted_uuid", "topk", "topk_agg_weighted 2 0.5 0.2", "uuid", v,
        values_sql("topk_agg_weighted(v, w, 2, 0.5, 0.2 ORDER BY i)", v),
        ["'00000000-0000-0000-0000-000000000000'"])
    # weights, with values dropped (capacity 2)
    v = ["'x'*5", "'y'*1", "'z'*2", "'w'*7", "'v'*1", "'x'*3", "'u'*4", "'y'*2", "'t'*1"]
    add("topk2_weighted_evict_text", "topk", "topk_agg_weighted 1 0.5 0.5", "text", v,
        values_sql("topk_agg_weighted(v, w, 1, 0.5, 0.5 ORDER BY i)", v), ["'s'", "'xx'"])
    # the union of a sketch of the first 10 values and one of the 20 others, both with values
    # dropped (not the sketch of all 30: 20, all of whose rows are in the second, was dropped there)
    v = "1 2 3 1 4 5 1 2 6 7 1 3 8 9 1 2 10 11 20 21 2 22 23 20 1 24 25 20 26 2".split()
    add("topk2_union_bigint", "topk", "topk_union_agg 2 0.25 0.1 10", "bigint", v,
        union_sql("topk_agg(v, 2, 0.25, 0.1 ORDER BY i)", "bigint", v, 10), ["0", "27"])

    # growable filters (header p3 = 2 | layout; version 1.4): bloom_add key by key past the
    # capacity, so that stages open; a union of two with different numbers of stages
    v = ["42", "7"]
    add("bloom_growable_integer", "bloom", "bloom_empty 10 0.01 2", "integer", v,
        chain_sql("bloom_empty(10, 0.01, growth => 2)", "bloom_add", ops_of(v)))
    add("bloom_growable_empty_blocked", "bloom", "bloom_empty 5 0.1 3 blocked", "bigint", [],
        "SELECT bloom_empty(5, 0.1, growth => 3, layout => 'blocked')")
    v = [str(i) for i in range(1, 31)]
    add("bloom_growable_classic_4_stages", "bloom", "bloom_empty 4 0.05 2", "bigint", v,
        chain_sql("bloom_empty(4, 0.05, growth => 2)", "bloom_add", ops_of(v)))
    v = ["'k%d'::text" % i for i in range(1, 41)]
    add("bloom_growable_blocked_3_stages", "bloom", "bloom_empty 5 0.01 3 blocked", "text", v,
        chain_sql("bloom_empty(5, 0.01, growth => 3, layout => 'blocked')", "bloom_add", ops_of(v)))
    v = [str(i) for i in range(1, 26)]
    add("bloom_growable_union", "bloom", "bloom_union 3 0.02 2 8", "bigint", v,
        "SELECT bloom_union(%s, %s)"
        % (chain_sql("bloom_empty(3, 0.02, growth => 2)", "bloom_add", ops_of(v[:8]))[len("SELECT "):],
           chain_sql("bloom_empty(3, 0.02, growth => 2)", "bloom_add", ops_of(v[8:]))[len("SELECT "):]))
    v = [str(i) for i in range(100, 120)]
    add("bloom_growable_union_blocked", "bloom", "bloom_union 2 0.1 3 15 blocked", "integer", v,
        "SELECT bloom_union(%s, %s)"
        % (chain_sql("bloom_empty(2, 0.1, growth => 3, layout => 'blocked')", "bloom_add", ops_of(v[:15]))[len("SELECT "):],
           chain_sql("bloom_empty(2, 0.1, growth => 3, layout => 'blocked')", "bloom_add", ops_of(v[15:]))[len("SELECT "):]))
    return cases


def printed(family, data):
    """Canonical key bytes as topk_items prints the value (for the families of the records)."""
    v = bs.decode_key(family, data)
    if isinstance(v, bytes):
        return "\\x" + v.hex()
    if isinstance(v, decimal.Decimal):
        return format(v, "f")             # never an exponent, as numeric_out
    return v.isoformat() if hasattr(v, "isoformat") else str(v)


def counts_token(data, f, lower, upper):
    return "%s:%d:%d:%d" % (data.hex() or '""', f, lower, upper)


def topk_fields(cur, name, data, typ, values, absent):
    """The items and bounds fields of a topk record: what the server lists and looks up,
    with the client's key bytes; stops if the client reads otherwise."""
    t = bs.load(data)
    cur.execute("SELECT * FROM topk_items_bounds(%%s::bytea::topk, %d)" % t.capacity, (data,))
    server = [tuple(r) for r in cur.fetchall()]
    mine = t.items_bounds(t.capacity)
    ranked = t.ranked()[:t.capacity]
    if [(printed(t.family, e.key),) + tuple(r[1:]) for e, r in zip(ranked, mine)] != server:
        sys.exit("generate.py: %s: the client lists %s, the server %s" % (name, mine, server))
    items = [counts_token(e.key, *r[1:]) for e, r in zip(ranked, mine)]
    bounds, seen = [], set()
    for _, lit, _ in ops_of(values) + [("+", lit, 1) for lit in absent]:
        fam, kb, _ = server_key(cur, "(%s)::%s" % (lit, typ))
        if kb in seen:
            continue
        seen.add(kb)
        cur.execute("SELECT (topk_bounds(%%s::bytea::topk, (%s)::%s)).*" % (lit, typ), (data,))
        row = tuple(cur.fetchone())
        mine = t.bounds(bs.Key(fam, kb))
        if tuple(mine) != row:
            sys.exit("generate.py: %s: bounds of %s: client %s, server %s" % (name, lit, mine, row))
        bounds.append(counts_token(kb, *row))
    return ["items\t" + (" ".join(items) if items else "(none)"), "bounds\t" + " ".join(bounds)]


def read_records(path):
    """The records of an existing sketches.txt by name, each its list of lines."""
    records, rec = {}, []
    if not os.path.exists(path):
        return records
    with open(path, encoding="utf-8") as f:
        for line in f.read().split("\n") + [""]:
            if line.startswith("#"):
                continue
            if line:
                rec.append(line)
            elif rec:
                records[rec[0].partition("\t")[2]] = rec
                rec = []
    return records


def server_key(cur, expr):
    """(family, key bytes, hash) the server stores for expr in a topk."""
    cur.execute("SELECT topk_agg(%s, 1, 0.5, 0.5)::bytea" % expr)
    t = bs.TopK(cur.fetchone()[0])
    assert len(t.candidates) == 1, expr
    hv, _, data = t.candidates[0]
    return t.family, bytes(data), hv


def set_bits(buf):
    f = bs.Bloom(buf)
    return {j for j in range(f.m) if f.bit(j)}


def main():
    files = sys.argv[1:] or ["hash.tsv", "sketches.txt"]
    if not set(files) <= {"hash.tsv", "sketches.txt"}:
        sys.exit("usage: generate.py [hash.tsv] [sketches.txt]")
    conn = psycopg2.connect("")
    conn.autocommit = True
    cur = conn.cursor()
    cur.execute("SHOW server_encoding")
    if cur.fetchone()[0] != "UTF8":
        sys.exit("generate.py: the database must use UTF8")
    schema = "bs_vectors_%d" % os.getpid()
    cur.execute("SELECT 1 FROM pg_extension WHERE extname = 'bloomsketch'")
    created = cur.fetchone() is None
    if created:
        cur.execute("CREATE EXTENSION bloomsketch")
    cur.execute("SELECT extversion FROM pg_extension WHERE extname = 'bloomsketch'")
    extversion = cur.fetchone()[0]
    cur.execute("SHOW server_version")
    server_version = cur.fetchone()[0]
    cur.execute("CREATE SCHEMA %s" % schema)
    try:
        cur.execute("SET search_path = %s, public" % schema)
        cur.execute("SET TimeZone = 'UTC'")
        cur.execute(HELPERS)
        if "hash.tsv" in files:
            write_hash(cur, server_version, extversion)
        if "sketches.txt" in files:
            write_sketches(cur, server_version, extversion)
    finally:
        cur.execute("RESET search_path")
        cur.execute("DROP SCHEMA %s CASCADE" % schema)
        if created:
            cur.execute("DROP EXTENSION bloomsketch")
        conn.close()


def write_hash(cur, server_version, extversion):
    lines = [
        "# bloomsketch hash vectors: canonical key bytes, hash and probe positions.",
        "# Made by test/vectors/generate.py from PostgreSQL %s with bloomsketch %s"
        % (server_version, extversion),
        "# (UTF8 database).  Checked by test/unit/vectors_test.c (the core) and by",
        "# test/client/check_client.py (the Python client and a live server).",
        "#",
        "# Columns, separated by one tab:",
        "#   type     the SQL type of the expression (format_type)",
        "#   sql      an SQL expression of that type",
        "#   family   the key family number (doc/hashing.md, section 1)",
        "#   key      the canonical key bytes in hex; \"\" for no bytes (an empty string)",
        "#   hash     bloomsketch_hash(sql): XXH3-64 of the key bytes, seed 0, as a signed bigint",
        "#   hash_hex the same 64 bits, unsigned, in hex",
        "#   m, k     a filter shape: m bits (or counters, or cms columns), k hashes",
        "#   probes   positions 0 to k-1 of the hash in [0, m), in probe order, comma-separated",
        "#            (doc/hashing.md, section 3)",
        "type\tsql\tfamily\tkey\thash\thash_hex\tm\tk\tprobes",
    ]
    for expr, m, k in HASH_CASES:
        assert "\t" not in expr
        cur.execute("SELECT format_type(pg_typeof(%s), NULL), bloomsketch_hash(%s)" % (expr, expr))
        typ, h = cur.fetchone()
        family, data, hv = server_key(cur, expr)
        if bs.to_signed(hv) != h or bs.hash64(data) != hv:
            sys.exit("generate.py: %s: topk hash %x, bloomsketch_hash %d" % (expr, hv, h))
        hv = bs.to_unsigned(h)
        pos = bs.probes(hv, m, k)
        cur.execute("SELECT bloom_add(bloom_empty_bits(%d, %d), %s)::bytea" % (m, k, expr))
        if set_bits(cur.fetchone()[0]) != set(pos):
            sys.exit("generate.py: %s: probe positions %s are not the bits the server sets" % (expr, pos))
        if m * k * 8 <= 4 << 20:
            cur.execute("SELECT cms_add(cms_empty_dims(%d, %d), %s)::bytea" % (m, k, expr))
            c = bs.CountMin(cur.fetchone()[0])
            ordered = [next(j for j in range(m) if c.counter(r, j)) for r in range(k)]
            if ordered != pos:
                sys.exit("generate.py: %s: probes %s, server's cms columns %s" % (expr, pos, ordered))
        lines.append("\t".join([typ, expr, str(family), data.hex() or '""', str(h),
                                "%016x" % hv, str(m), str(k), ",".join(map(str, pos))]))
    with open(os.path.join(HERE, "hash.tsv"), "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    print("hash.tsv: %d vectors" % len(HASH_CASES))


def write_sketches(cur, server_version, extversion):
    out = [
        "# bloomsketch format vectors: small sketches of every kind, built by the server.",
        "# Made by test/vectors/generate.py from PostgreSQL %s with bloomsketch %s"
        % (server_version, extversion),
        "# (UTF8 database, TimeZone UTC).  Checked by test/unit/vectors_test.c (the core",
        "# builds the same bytes from the keys) and by test/client/check_client.py (the",
        "# Python client reads them; the server still makes them).",
        "#",
        "# One record per sketch, records separated by a blank line, one field a line:",
        "# the field name, a tab, the value.",
        "#   name    a unique name",
        "#   kind    bloom, bloom_agg_state, cbloom, cms or topk (header byte 5)",
        "#   sql     the query that made the sketch; bloom_agg_partial and cbloom_agg_partial",
        "#           are helper aggregates that return the bloom_agg_state:",
        "#             CREATE AGGREGATE bloom_agg_partial(anyelement) (SFUNC = bloom_agg_trans, STYPE = bloom_agg_state);",
        "#             CREATE AGGREGATE bloom_agg_partial(anyelement, bigint, double precision) (SFUNC = bloom_agg_trans, STYPE = bloom_agg_state);",
        "#             CREATE AGGREGATE cbloom_agg_partial(anyelement) (SFUNC = cbloom_agg_trans, STYPE = bloom_agg_state);",
        "#             CREATE AGGREGATE bloom_agg_partial(anyelement, bigint, double precision, text) (SFUNC = bloom_agg_trans, STYPE = bloom_agg_state);",
        "#   build   how the sketch starts, as the SQL call with its arguments:",
        "#             bloom_empty_bits M K | bloom_empty CAPACITY FPR | bloom_agg FPR | bloom_agg CAPACITY FPR",
        "#             | bloom_agg_state FPR | bloom_agg_state CAPACITY FPR | cbloom_agg_state FPR",
        "#             | cbloom_empty CAPACITY FPR BITS | cbloom_agg FPR | cms_empty_dims WIDTH DEPTH",
        "#             | cms_empty EPSILON DELTA",
        "#             | topk_agg K EPSILON DELTA (format 2: one row a key, HEX*N N rows)",
        "#             | topk_agg_weighted K EPSILON DELTA (format 2: HEX*N one row of weight N)",
        "#             | topk_union_agg K EPSILON DELTA SPLIT (format 2: topk_union_agg of two topk_agg",
        "#               sketches, the first of the first SPLIT keys, the second of the others, in that order)",
        "#             | topk1_agg K EPSILON DELTA (format 1, frozen: topk_agg of bloomsketch 1.4)",
        "#             | bloom_empty CAPACITY FPR GROWTH (a growable filter, growth => GROWTH)",
        "#             | bloom_union CAPACITY FPR GROWTH SPLIT (bloom_union(a, b) of two such growable",
        "#               filters, a made from the first SPLIT keys, b from the others)",
        "#           the bloom and bloom_agg_state forms may end with a layout, classic (the default)",
        "#           or blocked: bloom_empty_bits 512 3 blocked is bloom_empty_bits(512, 3, 'blocked')",
        "#   family  the key family: number and name",
        "#   values  the keys as SQL literals, in the order they were added",
        "#   keys    the same keys as canonical key bytes in hex, space-separated, in order;",
        "#           \"\" is a key of no bytes; HEX*N adds the key with count N (N rows of an aggregate, or one call",
        "#           with count N); -HEX removes it once (cbloom_remove); '(none)' for no keys",
        "#   bytes   the length of the sketch",
        "#   hex     the sketch's bytes (sketch::bytea, or the state's text form) in hex",
        "#   items   topk only: the values topk_items_bounds(t, capacity) lists, best first, each as",
        "#           HEX:FREQUENCY:LOWER:UPPER: its canonical key bytes in hex (\"\" for none), its",
        "#           frequency and the lower and upper bounds of its count; '(none)' for none",
        "#   bounds  topk only: topk_bounds(t, value), as HEX:FREQUENCY:LOWER:UPPER, of each key",
        "#           added (once, in order) and of values not added",
        "#",
        "# The topk records of build topk1_agg are of format 1 (bloomsketch 1.0 to 1.4, header version",
        "# byte 1), made by topk_agg in bloomsketch 1.4 (PostgreSQL 15.20) and kept as they are: their",
        "# sql is the query that made them then (it makes format 2 since 1.5); their items and bounds",
        "# are the server's reading of them, which must not change.  The other topk records are of",
        "# format 2.",
    ]
    n = 0
    frozen_records = read_records(os.path.join(HERE, "sketches.txt"))
    for name, kind, build, typ, values, sql, absent, frozen in sketch_cases():
        if frozen:
            old = frozen_records.get(name)
            fields = dict(line.partition("\t")[::2] for line in old or [])
            if old is None or fields.get("build") != build or fields.get("sql") != sql:
                sys.exit("generate.py: %s: the frozen record (build %s) is not in sketches.txt" % (name, build))
            data = bytes.fromhex(fields["hex"])
            if data[4] != 1 or fields["bytes"] != str(len(data)):
                sys.exit("generate.py: %s: the frozen record is not of format 1" % name)
        else:
            cur.execute(sql)
            raw = cur.fetchone()[0]
            data = bytes(raw) if not isinstance(raw, str) else bytes.fromhex(raw[2:])
        family = data[7]
        keys = []
        for sign, lit, count in ops_of(values):
            fam, kb, _ = server_key(cur, "(%s)::%s" % (lit, typ))
            if fam != family:
                sys.exit("generate.py: %s: key family %d, sketch family %d" % (name, fam, family))
            keys.append("%s%s%s" % ("-" if sign == "-" else "", kb.hex() or '""',
                                    "*%d" % count if count != 1 else ""))
        if kind != "bloom_agg_state":
            bs.load(data)           # the client must read what the server writes
        lines = ["name\t" + name, "kind\t" + kind, "sql\t" + sql, "build\t" + build,
                 "family\t%d %s" % (family, bs.FAMILY_NAMES[family]),
                 "values\t" + (", ".join(values) if values else "(none)"),
                 "keys\t" + (" ".join(keys) if keys else "(none)"),
                 "bytes\t%d" % len(data), "hex\t" + data.hex()]
        if frozen:
            if [line for line in old if not line.startswith(("items\t", "bounds\t"))] != lines:
                sys.exit("generate.py: %s: the frozen record's lines are not those of its case" % name)
            if bs.load(data).format_version != 1:
                sys.exit("generate.py: %s: not of format 1" % name)
        elif kind == "topk" and bs.load(data).format_version != 2:
            sys.exit("generate.py: %s: the server made format %d" % (name, data[4]))
        if kind == "topk":
            lines += topk_fields(cur, name, data, typ, values, absent)
        out += [""] + lines
        n += 1
    with open(os.path.join(HERE, "sketches.txt"), "w", encoding="utf-8") as f:
        f.write("\n".join(out) + "\n")
    print("sketches.txt: %d vectors" % n)


if __name__ == "__main__":
    main()
