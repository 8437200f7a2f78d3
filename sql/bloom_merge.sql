--
-- bloom_merge: bloom_union / | , bloom_intersection / & , bloom_union_agg,
-- bloom_intersection_agg, and equality (= and <>).
--
-- Each file creates the extension itself (quietly when another file in this
-- database already did), so that it runs alone and in any order.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS bloomsketch;
RESET client_min_messages;

-- Two sets of integers with the same shape: a = 1..1000, b = 501..1500.
CREATE TEMP TABLE merge_ab AS
SELECT (SELECT bloom_agg(x, 10000, 0.01) FROM generate_series(1, 1000) x) AS a,
       (SELECT bloom_agg(x, 10000, 0.01) FROM generate_series(501, 1500) x) AS b,
       (SELECT bloom_agg(x, 10000, 0.01) FROM generate_series(1, 1500) x) AS a_or_b;
CREATE TEMP TABLE merge_ab_before AS SELECT a::text AS a, b::text AS b FROM merge_ab;

-- ---------------------------------------------------------------------------
-- Union
-- ---------------------------------------------------------------------------
-- The union of the filters is the filter of the union, byte for byte.
SELECT a | b = a_or_b AS union_is_filter_of_union,
       bloom_union(a, b) = a | b AS function_eq_operator,
       a | b = b | a AS commutative,
       a | a = a AS idempotent,
       a | bloom_empty(10000, 0.01) = a AS empty_is_neutral
FROM merge_ab;
-- Every key of either set is found: no false negatives.
SELECT count(*) FILTER (WHERE (a | b) @> x) AS found, count(*) AS keys
FROM merge_ab, generate_series(1, 1500) x;
-- The inputs are not modified.
SELECT m.a::text = o.a AS a_unchanged, m.b::text = o.b AS b_unchanged
FROM merge_ab m, merge_ab_before o;
-- Strict: NULL in, NULL out.
SELECT bloom_union(a, NULL) IS NULL AS l, (NULL::bloom | b) IS NULL AS r FROM merge_ab;

-- ---------------------------------------------------------------------------
-- Intersection
-- ---------------------------------------------------------------------------
-- It contains at least the intersection (501..1000): no false negatives.
SELECT count(*) FILTER (WHERE (a & b) @> x) AS common_found
FROM merge_ab, generate_series(501, 1000) x;
SELECT bloom_intersection(a, b) = a & b AS function_eq_operator,
       a & b = b & a AS commutative,
       a & a = a AS idempotent,
       (bloom_info(a & b)).bits_set <= least((bloom_info(a)).bits_set, (bloom_info(b)).bits_set) AS fewer_bits,
       (bloom_info(a & bloom_empty(10000, 0.01))).bits_set AS with_empty
FROM merge_ab;
SELECT m.a::text = o.a AS a_unchanged, m.b::text = o.b AS b_unchanged
FROM merge_ab m, merge_ab_before o;
SELECT bloom_intersection(NULL, b) IS NULL AS l, (a & NULL::bloom) IS NULL AS r FROM merge_ab;

-- ---------------------------------------------------------------------------
-- Key families: "none" (nothing added yet) merges with any family
-- ---------------------------------------------------------------------------
SELECT (bloom_info(bloom_empty(100) | bloom_add(bloom_empty(100), 1))).key_family AS none_or_int,
       (bloom_info(bloom_add(bloom_empty(100), 'x') | bloom_empty(100))).key_family AS text_or_none,
       (bloom_info(bloom_empty(100) & bloom_add(bloom_empty(100), 1))).key_family AS none_and_int,
       (bloom_info(bloom_empty(100) | bloom_empty(100))).key_family AS none_or_none;
-- Different families: ERROR 42804 naming both.
SELECT bloom_add(bloom_empty(100), 1) | bloom_add(bloom_empty(100), 'a');
\echo SQLSTATE :SQLSTATE
SELECT bloom_add(bloom_empty(100), 'a') & bloom_add(bloom_empty(100), '\x61'::bytea);
\echo SQLSTATE :SQLSTATE
SELECT bloom_add(bloom_empty(100), 1.0::float8) | bloom_add(bloom_empty(100), 1.0::numeric);
\echo SQLSTATE :SQLSTATE
SELECT bloom_add(bloom_empty(100), '2024-01-01'::date) | bloom_add(bloom_empty(100), '2024-01-01'::timestamp);
\echo SQLSTATE :SQLSTATE

-- ---------------------------------------------------------------------------
-- Different shapes: ERROR 22023 naming both shapes
-- ---------------------------------------------------------------------------
-- different m (capacity 100 vs 200 at 1%)
SELECT bloom_empty(100) | bloom_empty(200);
\echo SQLSTATE :SQLSTATE
-- same m, different k
SELECT bloom_empty_bits(1024, 3) & bloom_empty_bits(1024, 4);
\echo SQLSTATE :SQLSTATE
-- same capacity, different fpr
SELECT bloom_union(bloom_empty(1000, 0.01), bloom_empty(1000, 0.001));
\echo SQLSTATE :SQLSTATE
-- same m and k, different seed (byte 8 of the header)
SELECT bloom_empty_bits(64, 2) | set_byte(bloom_empty_bits(64, 2)::bytea, 8, 1)::bloom;
\echo SQLSTATE :SQLSTATE
-- bloom_agg without a capacity sizes each filter for its own distinct count,
-- so filters of groups of different sizes cannot be merged...
SELECT (SELECT bloom_agg(x) FROM generate_series(1, 10) x) | (SELECT bloom_agg(x) FROM generate_series(1, 20) x);
\echo SQLSTATE :SQLSTATE
-- ... while groups of equal distinct count can.
SELECT (bloom_info((SELECT bloom_agg(x) FROM generate_series(1, 10) x)
                 | (SELECT bloom_agg(x) FROM generate_series(11, 20) x))).bits;

-- ---------------------------------------------------------------------------
-- bloom_union_agg and bloom_intersection_agg
-- ---------------------------------------------------------------------------
-- Filters of parts: x in 1..20000 split by x % 7; all with the same shape.
CREATE TEMP TABLE merge_parts AS
SELECT x % 7 AS part, bloom_agg(x, 20000, 0.01) AS f
FROM generate_series(1, 20000) x GROUP BY x % 7;
CREATE TEMP TABLE merge_parts_before AS SELECT part, f::text AS t FROM merge_parts;
-- The union of the parts' filters equals the filter of the whole.
SELECT bloom_union_agg(f) = (SELECT bloom_agg(x, 20000, 0.01) FROM generate_series(1, 20000) x) AS union_of_parts
FROM merge_parts;
-- ... in any order, and regardless of how the parts are grouped first.
SELECT bloom_union_agg(f ORDER BY part DESC) = bloom_union_agg(f ORDER BY part) AS order_independent
FROM merge_parts;
SELECT bloom_union_agg(f) = (SELECT bloom_agg(x, 20000, 0.01) FROM generate_series(1, 20000) x) AS union_of_unions
FROM (SELECT bloom_union_agg(f) AS f FROM merge_parts GROUP BY part % 2) s;
-- The union of one-value filters is the aggregate's filter, too.
SELECT bloom_union_agg(bloom_add(bloom_empty(100, 0.01), x)) = bloom_agg(x, 100, 0.01) AS union_of_adds
FROM generate_series(1, 100) x;
-- The aggregate's inputs are not modified.
SELECT count(*) AS parts, count(*) FILTER (WHERE p.f::text = b.t) AS unchanged
FROM merge_parts p JOIN merge_parts_before b USING (part);
-- The intersection of the filters of three overlapping sets (100..1099,
-- 200..1199, 300..1299) has all their common keys, 300..1099.
SELECT count(*) FILTER (WHERE i @> x) AS common_found
FROM (SELECT bloom_intersection_agg(f) AS i
      FROM (SELECT bloom_agg(x, 10000, 0.01) AS f
            FROM generate_series(1, 3) g, generate_series(g * 100, g * 100 + 999) x
            GROUP BY g) s) t,
     generate_series(300, 1099) x;
SELECT bloom_intersection_agg(f) = (SELECT a & b FROM merge_ab) AS agg_eq_operator
FROM (SELECT a AS f FROM merge_ab UNION ALL SELECT b FROM merge_ab) s;
SELECT bloom_union_agg(f) = (SELECT a | b FROM merge_ab) AS agg_eq_operator
FROM (SELECT a AS f FROM merge_ab UNION ALL SELECT b FROM merge_ab) s;
-- NULL rows are skipped.
SELECT bloom_union_agg(f) = (SELECT a | b FROM merge_ab) AS union_skips_nulls,
       bloom_intersection_agg(f) = (SELECT a & b FROM merge_ab) AS intersection_skips_nulls
FROM (SELECT NULL::bloom AS f UNION ALL SELECT a FROM merge_ab UNION ALL SELECT NULL
      UNION ALL SELECT b FROM merge_ab UNION ALL SELECT NULL) s;
-- A single row gives that row's filter; no rows or only NULLs give NULL.
SELECT (SELECT bloom_union_agg(a) FROM merge_ab) = a AS union_single,
       (SELECT bloom_intersection_agg(a) FROM merge_ab) = a AS intersection_single
FROM merge_ab;
SELECT bloom_union_agg(f) IS NULL AS union_no_rows, bloom_intersection_agg(f) IS NULL AS intersection_no_rows
FROM merge_parts WHERE false;
SELECT bloom_union_agg(f) IS NULL AS union_nulls, bloom_intersection_agg(f) IS NULL AS intersection_nulls
FROM (VALUES (NULL::bloom), (NULL)) v(f);
-- The stored filters were not modified by any of the aggregates.
SELECT count(*) FILTER (WHERE p.f::text = b.t) AS unchanged
FROM merge_parts p JOIN merge_parts_before b USING (part);
SELECT m.a::text = o.a AS a_unchanged, m.b::text = o.b AS b_unchanged
FROM merge_ab m, merge_ab_before o;
-- GROUP BY: one union per group.
SELECT part % 2 AS half, count(*) AS parts,
       (bloom_info(bloom_union_agg(f))).bits, (bloom_info(bloom_union_agg(f))).key_family
FROM merge_parts GROUP BY 1 ORDER BY 1;
-- As a window aggregate: the running union grows, earlier rows keep theirs.
SELECT part, bloom_union_agg(f) OVER (ORDER BY part) @> 7 AS has_7,
       bloom_union_agg(f) OVER (ORDER BY part) @> 1 AS has_1,
       (bloom_info(bloom_union_agg(f) OVER (ORDER BY part))).bits_set
         >= (bloom_info(f)).bits_set AS grows
FROM merge_parts ORDER BY part;
-- Shape and family errors inside the aggregates.
SELECT bloom_union_agg(f) FROM (VALUES (bloom_empty(10)), (bloom_empty(20))) v(f);
\echo SQLSTATE :SQLSTATE
SELECT bloom_intersection_agg(f) FROM (VALUES (bloom_empty_bits(64, 1)), (bloom_empty_bits(64, 2))) v(f);
\echo SQLSTATE :SQLSTATE
SELECT bloom_union_agg(f) FROM (VALUES (bloom_add(bloom_empty(10), 1)), (bloom_add(bloom_empty(10), 'a'))) v(f);
\echo SQLSTATE :SQLSTATE
-- The transition functions only work inside an aggregate.
SELECT bloom_union_trans(bloom_empty(10), bloom_empty(10));
\echo SQLSTATE :SQLSTATE
SELECT bloom_intersection_trans(bloom_empty(10), bloom_empty(10));
\echo SQLSTATE :SQLSTATE

-- ---------------------------------------------------------------------------
-- = and <>: byte equality of the format bytes
-- ---------------------------------------------------------------------------
SELECT a = a AS a_a, a = b AS a_b, a <> b AS a_ne_b, a <> a AS a_ne_a,
       bloom_eq(a, a) AS eq_fn, bloom_ne(a, b) AS ne_fn,
       (a = NULL) IS NULL AS strict
FROM merge_ab;
-- Different lengths, same bits but another family, another k: all unequal.
SELECT bloom_empty(100) = bloom_empty(101) AS other_m,
       bloom_empty_bits(64, 1) = bloom_empty_bits(64, 2) AS other_k,
       bloom_add(bloom_empty(100), NULL::integer) = bloom_empty(100) AS null_add,
       set_byte(bloom_empty(100)::bytea, 7, 1)::bloom = bloom_empty(100) AS other_family;
-- Equality between two stored (TOASTed) filters, row by row: filters 1 and 3
-- have the same keys, 2 has others (each filter is about 12 kB, out of line).
CREATE TEMP TABLE merge_toast (id integer, f bloom);
INSERT INTO merge_toast SELECT 1, bloom_agg(x, 10000, 0.01) FROM generate_series(1, 1000) x;
INSERT INTO merge_toast SELECT 2, bloom_agg(x, 10000, 0.01) FROM generate_series(2001, 3000) x;
INSERT INTO merge_toast SELECT 3, bloom_agg(x, 10000, 0.01) FROM generate_series(1, 1000) x;
SELECT l.id AS l, r.id AS r, l.f = r.f AS eq, l.f <> r.f AS ne, l.f::text = r.f::text AS text_eq
FROM merge_toast l, merge_toast r ORDER BY 1, 2;
-- Merging stored filters.
SELECT (l.f | r.f) = l.f AS union_is_left, (bloom_info(l.f & r.f)).bits_set = (bloom_info(l.f)).bits_set AS and_is_left
FROM merge_toast l, merge_toast r WHERE l.id = 1 AND r.id = 3;
SELECT bloom_union_agg(f) = (SELECT bloom_agg(x, 10000, 0.01)
                             FROM (SELECT generate_series(1, 1000) UNION ALL SELECT generate_series(2001, 3000)) s(x))
       AS union_of_stored
FROM merge_toast;
-- bloom has a hash operator class (byte equality): DISTINCT and GROUP BY work
-- by hashing; it has no ordering, so ORDER BY f is an error.
SELECT count(*) AS rows, count(*) FILTER (WHERE f IS NOT NULL) AS filters,
       (SELECT count(*) FROM (SELECT DISTINCT f FROM merge_toast) d) AS distinct_filters,
       (SELECT count(*) FROM (SELECT f FROM merge_toast GROUP BY f) g) AS groups
FROM merge_toast;
SELECT f FROM merge_toast ORDER BY f;
\echo SQLSTATE :SQLSTATE

DROP TABLE merge_ab, merge_ab_before, merge_parts, merge_parts_before, merge_toast;
