--
-- bloom_growable: growable filters (version 1.4), a scalable Bloom filter of
-- stages: bloom_empty(capacity, fpr, growth [, layout]), bloom_add past the
-- capacity (no false negatives, the rate kept, the size bounded), lookups,
-- unions and bloom_union_agg (parallel as serial), the estimates,
-- bloom_info and bloom_stages, the text and bytea forms, equality, the
-- sliced-lookup path, the limits, and the errors (hostile bytes included).
--
-- Each file creates the extension itself (quietly when another file in this
-- database already did), so that it runs alone and in any order.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS bloomsketch;
RESET client_min_messages;

-- bloom_add of lo..hi, one value at a time, as a maintained column gets them
CREATE FUNCTION pg_temp.add_range(f bloom, lo int, hi int) RETURNS bloom LANGUAGE plpgsql AS $$
BEGIN
  FOR i IN lo..hi LOOP f := bloom_add(f, i); END LOOP;
  RETURN f;
END $$;

-- ---------------------------------------------------------------------------
-- An empty growable filter: one stage for capacity keys at fpr / 2
-- ---------------------------------------------------------------------------
SELECT * FROM bloom_stages(bloom_empty(1000, 0.01, growth => 2));
SELECT * FROM bloom_stages(bloom_empty(1000, 0.01, 4, 'blocked'));
SELECT i.bits = bloom_optimal_bits(1000, 0.005) AS stage0_is_bloom_empty_at_half_fpr,
       i.hashes, i.bits_set, i.estimated_cardinality, i.estimated_fpr, i.bytes,
       i.key_family, i.layout, i.growth, i.stages
FROM bloom_info(bloom_empty(1000, 0.01, growth => 2)) i;
-- positional and named calls; a fixed filter is one stage with growth NULL
SELECT bloom_empty(1000, 0.01, 2) = bloom_empty(1000, 0.01, growth => 2) AS positional,
       bloom_empty(1000, 0.01, 2, 'classic') = bloom_empty(1000, 0.01, growth => 2) AS classic_default,
       bloom_empty(1000, 0.01, 'blocked') <> bloom_empty(1000, 0.01, 1, 'blocked') AS growth_1_is_growable;
SELECT i.growth, i.stages, s.stage, s.capacity, s.target_fpr, s.keys, s.bits = i.bits AS same_bits
FROM bloom_info(bloom_empty(1000, 0.01)) i, bloom_stages(bloom_empty(1000, 0.01)) s;

-- ---------------------------------------------------------------------------
-- Made for 1,000 keys, given 50,000 by bloom_add: six stages; no false
-- negatives; the measured rate within 25% of fpr; at most 3x the size of
-- bloom_empty(50000, fpr)
-- ---------------------------------------------------------------------------
CREATE TABLE grow (layout text PRIMARY KEY, f bloom);
INSERT INTO grow
SELECT l, pg_temp.add_range(bloom_empty(1000, 0.01, growth => 2, layout => l), 1, 50000)
FROM unnest(ARRAY['classic', 'blocked']) l;
SELECT g.layout, s.stage, s.capacity, s.target_fpr, s.keys, s.hashes,
       s.keys <= s.capacity AS within_capacity,
       abs(s.estimated_cardinality - s.keys) < 0.05 * s.keys AS estimate_near_count
FROM grow g, bloom_stages(g.f) s ORDER BY 1, 2;
SELECT g.layout,
       (SELECT count(*) FROM generate_series(1, 50000) i WHERE NOT g.f @> i) AS false_negatives,
       (SELECT count(*) FROM generate_series(1000001, 1200000) i WHERE g.f @> i) / 200000.0
         BETWEEN 0.0075 AND 0.0125 AS measured_rate_within_25pct,
       bloom_fpr(g.f) BETWEEN 0.0075 AND 0.01 AS compound_rate_below_fpr,
       abs(bloom_cardinality(g.f) - 50000) < 1500 AS cardinality_near_50000,
       length(g.f::bytea)::float8 / length(bloom_empty(50000, 0.01, g.layout)::bytea) <= 3
         AS at_most_3x_fixed,
       round((length(g.f::bytea)::float8 / length(bloom_empty(50000, 0.01, g.layout)::bytea))::numeric, 2)
         AS size_ratio
FROM grow g ORDER BY 1;
-- bloom_info sums the stages
SELECT g.layout, i.bits = (SELECT sum(bits) FROM bloom_stages(g.f)) AS bits_summed,
       i.bits_set = (SELECT sum(bits_set) FROM bloom_stages(g.f)) AS bits_set_summed,
       i.estimated_cardinality = bloom_cardinality(g.f) AS same_cardinality,
       i.estimated_fpr = bloom_fpr(g.f) AS same_fpr,
       abs(i.estimated_fpr - (1 - (SELECT exp(sum(ln(1 - estimated_fpr))) FROM bloom_stages(g.f)))) < 1e-15
         AS compound_of_stages,
       i.hashes IS NULL AS no_single_hashes, i.growth, i.stages, i.key_family
FROM grow g, bloom_info(g.f) i ORDER BY 1;

-- A value already held changes nothing; a new one is counted once
SELECT bloom_add(f, 777) = f AS held_no_change, bloom_add(f, 60001) <> f AS new_changes,
       (SELECT sum(keys) FROM bloom_stages(bloom_add(bloom_add(f, 60001), 60001)))
         - (SELECT sum(keys) FROM bloom_stages(f)) AS counted_once
FROM grow WHERE layout = 'classic';
-- The first value sets the family; another family is refused
SELECT (bloom_info(bloom_add(bloom_empty(10, 0.01, growth => 2), 'x'::text))).key_family;
SELECT bloom_add(f, 'x'::text) FROM grow WHERE layout = 'classic';
SELECT f @> 'x'::text FROM grow WHERE layout = 'classic';
-- NULL arguments: bloom_add keeps the filter, lookups are NULL
SELECT bloom_add(f, NULL::int) = f AS null_value_kept, (f @> NULL::int) IS NULL AS null_lookup
FROM grow WHERE layout = 'classic';

-- ---------------------------------------------------------------------------
-- bloom_add_all(f, array): the filter of as many bloom_add calls, in array
-- order, NULL elements skipped; for growable and fixed filters
-- ---------------------------------------------------------------------------
SELECT g.layout,
       bloom_add_all(bloom_empty(1000, 0.01, growth => 2, layout => g.layout),
                     (SELECT array_agg(i ORDER BY i) FROM generate_series(1, 50000) i)) = g.f AS same_as_bloom_add,
       bloom_add_all(bloom_add_all(bloom_empty(1000, 0.01, growth => 2, layout => g.layout),
                                   (SELECT array_agg(i ORDER BY i) FROM generate_series(1, 20000) i)),
                     (SELECT array_agg(i ORDER BY i) FROM generate_series(20001, 50000) i)) = g.f AS in_two_batches
FROM grow g ORDER BY 1;
SELECT bloom_add_all(bloom_empty(100, 0.01, l), ARRAY['a', NULL, 'b'])
         = bloom_add(bloom_add(bloom_empty(100, 0.01, l), 'a'::text), 'b'::text) AS fixed_same,
       bloom_add_all(bloom_empty(100, 0.01, l), ARRAY[[1, 2], [3, 4]]) @> 4 AS two_dimensions,
       (bloom_info(bloom_add_all(bloom_empty(100, 0.01, l), '{}'::int[]))).key_family AS empty_array_family,
       bloom_add_all(bloom_empty(100, 0.01, l), ARRAY[NULL::int]) = bloom_empty(100, 0.01, l) AS nulls_only_kept,
       bloom_add_all(bloom_empty(100, 0.01, l), NULL::int[]) = bloom_empty(100, 0.01, l) AS null_array_kept,
       bloom_add_all(NULL::bloom, ARRAY[1]) IS NULL AS null_filter
FROM unnest(ARRAY['classic', 'blocked']) l;
SELECT bloom_add_all(f, ARRAY['x']) FROM grow WHERE layout = 'classic';
\echo SQLSTATE :SQLSTATE
SELECT bloom_add_all(bloom_empty(100), ARRAY[true]);
\echo SQLSTATE :SQLSTATE
-- no element to add: the filter unchanged, as bloom_add(f, NULL) keeps it,
-- whatever the array's element type
SELECT bloom_add_all(f, ARRAY[NULL]::text[]) = f AS null_text_kept,
       bloom_add_all(f, ARRAY[]::text[]) = f AS empty_text_kept,
       bloom_add_all(f, ARRAY[NULL, NULL]::boolean[]) = f AS null_boolean_kept,
       bloom_add(f, NULL::text) = f AS bloom_add_null_kept
FROM grow WHERE layout = 'classic';

-- ---------------------------------------------------------------------------
-- Growth 1 and 4; the stage limit
-- ---------------------------------------------------------------------------
SELECT g, (SELECT count(*) FROM bloom_stages(f)) AS stages,
       (SELECT max(capacity) FROM bloom_stages(f)) AS last_capacity,
       (SELECT count(*) FROM generate_series(1, 3000) i WHERE NOT f @> i) AS false_negatives
FROM (SELECT g, pg_temp.add_range(bloom_empty(100, 0.01, growth => g), 1, 3000) AS f
      FROM unnest(ARRAY[1, 4]) g) s ORDER BY g;
-- capacity 1, growth 1 and fpr 1e-6: stage i is for one key at 5e-7 / 2^i,
-- which takes 21 + i hashes; stage 44 would need 65, one more than a filter
-- may have
SELECT i.stages, (SELECT max(hashes) FROM bloom_stages(f)) AS last_hashes
FROM (SELECT pg_temp.add_range(bloom_empty(1, 1e-6, growth => 1), 1, 44) AS f) s, bloom_info(s.f) i;
SELECT bloom_add_all(bloom_empty(1, 1e-6, growth => 1), ARRAY(SELECT generate_series(1, 45))) IS NULL;
\echo SQLSTATE :SQLSTATE
-- blocked stages (at most 20 hashes, more blocks instead) stop at 64
SELECT (bloom_info(pg_temp.add_range(bloom_empty(1, 1e-6, growth => 1, layout => 'blocked'), 1, 64))).stages;
SELECT bloom_add_all(bloom_empty(1, 1e-6, growth => 1, layout => 'blocked'), ARRAY(SELECT generate_series(1, 65))) IS NULL;
\echo SQLSTATE :SQLSTATE
-- the size limit: a filter for 6,000,000 keys whose stage 0 is full (its key
-- count edited to 6,000,000 = 0x5b8d80) cannot open a stage for 64 times as many
SELECT bloom_add(set_byte(set_byte(set_byte(bloom_empty(6000000, 0.01, growth => 64)::bytea,
                 64, 128), 65, 141), 66, 91)::bloom, 1) IS NULL;
\echo SQLSTATE :SQLSTATE
-- a filter too large from the start: the error names the capacity and rate
-- asked for, then those of stage 0 (half the rate), which needs the bits
SELECT bloom_empty(420000000, 0.01, growth => 2);
\echo SQLSTATE :SQLSTATE
SELECT bloom_empty(420000000, 0.01, growth => 2, layout => 'blocked');
\echo SQLSTATE :SQLSTATE
-- what the rule bounds is the expected rate, and the catalog says so
SELECT obj_description('bloom_empty(bigint, double precision, integer, text)'::regprocedure, 'pg_proc')
         ~ 'expected false-positive rate stays below fpr' AS comment_says_expected_rate;

-- ---------------------------------------------------------------------------
-- Union: stage by stage.  Each stage's bits are the OR of both; a stage both
-- hold counts the larger of their counts and the estimate from the merged
-- bits, rounded; a stage one holds (the other's is empty or missing) keeps its
-- count.  So a union of many filters has the same bytes in any order: serial,
-- parallel or Citus.  The result has the stages of the longer filter.
-- ---------------------------------------------------------------------------
CREATE TABLE parts (part int, layout text, f bloom);
INSERT INTO parts
SELECT p, l, pg_temp.add_range(bloom_empty(500, 0.01, growth => 2, layout => l), p * 1000 + 1, p * 1000 + 1000 * (p + 1))
FROM generate_series(0, 3) p, unnest(ARRAY['classic', 'blocked']) l;
SELECT layout, part, (SELECT count(*) FROM bloom_stages(f)) AS stages,
       (SELECT sum(keys) FROM bloom_stages(f)) AS keys
FROM parts ORDER BY 1, 2;
SELECT a.layout, s.stage, s.keys, s.capacity,
       s.keys = CASE WHEN coalesce(sb.keys, 0) = 0 THEN sa.keys
                     ELSE greatest(sa.keys, sb.keys, floor(s.estimated_cardinality + 0.5)::bigint) END AS count_rule
FROM parts a JOIN parts b ON a.layout = b.layout AND a.part = 3 AND b.part = 0,
     bloom_stages(a.f | b.f) s
     JOIN bloom_stages(a.f) sa USING (stage) LEFT JOIN bloom_stages(b.f) sb USING (stage)
ORDER BY 1, 2;
SELECT a.layout, a.f | b.f = b.f | a.f AS commutes,
       (SELECT count(*) FROM generate_series(3001, 7000) i WHERE NOT (a.f | b.f) @> i)
       + (SELECT count(*) FROM generate_series(1, 1000) i WHERE NOT (a.f | b.f) @> i) AS false_negatives,
       (a.f | a.f) | a.f = a.f | a.f AS self_union_settles,
       (SELECT array_agg(bits_set ORDER BY stage) FROM bloom_stages(a.f | a.f))
         = (SELECT array_agg(bits_set ORDER BY stage) FROM bloom_stages(a.f)) AS self_union_same_bits,
       a.f | bloom_empty(500, 0.01, growth => 2, layout => a.layout) = a.f AS union_with_empty_same_bytes
FROM parts a JOIN parts b ON a.layout = b.layout AND a.part = 3 AND b.part = 0 ORDER BY 1;
-- the union of the four parts in each of the 24 orders: one result
SELECT layout, count(DISTINCT md5(u::bytea)) AS results, count(*) AS orders
FROM (SELECT layout, perm, bloom_union_agg(f ORDER BY array_position(perm, part)) AS u
      FROM parts, (SELECT ARRAY[a, b, c, d] AS perm
                   FROM generate_series(0, 3) a, generate_series(0, 3) b, generate_series(0, 3) c, generate_series(0, 3) d
                   WHERE a <> b AND a <> c AND a <> d AND b <> c AND b <> d AND c <> d) p
      GROUP BY layout, perm) x
GROUP BY layout ORDER BY 1;
-- bloom_union_agg: every value of every part; a parallel plan gives the same bytes
SELECT layout, count(*) AS parts,
       (SELECT count(*) FROM generate_series(1, 7000) i WHERE NOT bloom_union_agg(f) @> i) AS false_negatives,
       (SELECT count(*) FROM bloom_stages(bloom_union_agg(f))) AS stages
FROM parts GROUP BY layout ORDER BY 1;
CREATE TABLE many AS SELECT part, layout, f FROM parts, generate_series(1, 40);
ANALYZE many;
CREATE TEMP TABLE serial AS
SELECT layout, array_agg(s.bits_set ORDER BY s.stage) AS bits_set, md5(g.u::bytea) AS bytes
FROM (SELECT layout, bloom_union_agg(f) AS u FROM many GROUP BY layout) g, bloom_stages(g.u) s GROUP BY layout, md5(g.u::bytea);
SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0; SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2; SET parallel_leader_participation = off;
SELECT layout, array_agg(s.bits_set ORDER BY s.stage) = (SELECT bits_set FROM serial WHERE serial.layout = g.layout)
         AS parallel_same_bits,
       md5(g.u::bytea) = (SELECT bytes FROM serial WHERE serial.layout = g.layout) AS parallel_same_bytes
FROM (SELECT layout, bloom_union_agg(f) AS u FROM many GROUP BY layout) g, bloom_stages(g.u) s
GROUP BY layout, md5(g.u::bytea) ORDER BY 1;
RESET parallel_setup_cost; RESET parallel_tuple_cost; RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather; RESET parallel_leader_participation;

-- Merges that are refused, each saying why
SELECT bloom_empty(1000, 0.01, growth => 2) | bloom_empty(1000, 0.01, growth => 4);
\echo SQLSTATE :SQLSTATE
SELECT bloom_empty(1000, 0.01, growth => 2) | bloom_empty(1000, 0.01, growth => 2, layout => 'blocked');
\echo SQLSTATE :SQLSTATE
SELECT bloom_empty(1000, 0.01, growth => 2) | bloom_empty(1001, 0.01, growth => 2);
\echo SQLSTATE :SQLSTATE
SELECT bloom_empty(1000, 0.01, growth => 2) | bloom_empty(1000, 0.01);
\echo SQLSTATE :SQLSTATE
SELECT bloom_empty(1000, 0.01) | bloom_empty(1000, 0.01, growth => 2);
\echo SQLSTATE :SQLSTATE
SELECT bloom_add(bloom_empty(10, 0.01, growth => 2), 1) | bloom_add(bloom_empty(10, 0.01, growth => 2), 'a'::text);
\echo SQLSTATE :SQLSTATE
SELECT bloom_empty(1000, 0.01, growth => 2) & bloom_empty(1000, 0.01, growth => 2);
\echo SQLSTATE :SQLSTATE
SELECT bloom_intersection_agg(f) FROM parts WHERE layout = 'classic';
\echo SQLSTATE :SQLSTATE
SELECT bloom_union_agg(f) FROM (SELECT f FROM parts WHERE layout = 'classic' UNION ALL SELECT bloom_empty(500, 0.01)) s;
\echo SQLSTATE :SQLSTATE
-- a directory that differs in a shared stage (k of stage 0 edited to 7)
SELECT f | set_byte(f::bytea, 56, 7)::bloom FROM parts WHERE layout = 'classic' AND part = 0;
\echo SQLSTATE :SQLSTATE

-- ---------------------------------------------------------------------------
-- Text, binary and bytea forms; equality and grouping
-- ---------------------------------------------------------------------------
SELECT layout, f::text::bloom = f AS text_roundtrip, (f::bytea)::bloom = f AS bytea_roundtrip,
       length(f::bytea) + 4 = (bloom_info(f)).bytes AS bytes_are_the_value
FROM grow ORDER BY 1;
SELECT count(*) AS distinct_filters, sum(n) AS rows FROM (SELECT f, count(*) AS n FROM many GROUP BY f) g;
SELECT substr(bloom_empty(1, 0.5, growth => 3)::text, 1, 2 + 2 * 48 + 2 * 24) AS header_and_directory;

-- ---------------------------------------------------------------------------
-- A large stored growable filter is read whole (no sliced lookup), and
-- finds every value
-- ---------------------------------------------------------------------------
CREATE TABLE big (id int, f bloom);
ALTER TABLE big ALTER COLUMN f SET STORAGE external;
INSERT INTO big SELECT 1, pg_temp.add_range(bloom_empty(300000, 0.001, growth => 2), 1, 100);
SELECT pg_column_size(f) > 128 * 1996 AS over_128_chunks,
       (SELECT count(*) FROM generate_series(1, 100) i WHERE NOT (SELECT f FROM big) @> i) AS false_negatives,
       (SELECT count(*) FROM generate_series(1, 100) i, big WHERE big.f @> i) AS found_per_row
FROM big;

-- ---------------------------------------------------------------------------
-- Bad arguments
-- ---------------------------------------------------------------------------
SELECT bloom_empty(1000, 0.01, growth => 0);
\echo SQLSTATE :SQLSTATE
SELECT bloom_empty(1000, 0.01, growth => 65);
\echo SQLSTATE :SQLSTATE
SELECT bloom_empty(0, 0.01, growth => 2);
\echo SQLSTATE :SQLSTATE
SELECT bloom_empty(1000, 1, growth => 2);
\echo SQLSTATE :SQLSTATE
SELECT bloom_empty(1000, 'NaN', growth => 2);
\echo SQLSTATE :SQLSTATE
SELECT bloom_empty(1000, 0.01, growth => 2, layout => 'cuckoo');
\echo SQLSTATE :SQLSTATE
SELECT bloom_empty(10000000000000000, 0.01, growth => 2);
\echo SQLSTATE :SQLSTATE
SELECT bloom_empty(1000, 0.01, growth => NULL) IS NULL AS strict;

-- ---------------------------------------------------------------------------
-- Hostile bytes: each field of the header and directory of a two-stage
-- filter (capacity 1, growth 1, fpr 0.5) edited, through the bytea cast
-- ---------------------------------------------------------------------------
CREATE TABLE hostile AS SELECT pg_temp.add_range(bloom_empty(1, 0.5, growth => 1), 1, 2)::bytea AS b;
SELECT length(b) AS bytes, get_byte(b, 32) AS stages FROM hostile;
SELECT set_byte(b, 16, 0)::bloom FROM hostile;                  -- capacity 0
\echo SQLSTATE :SQLSTATE
SELECT set_byte(b, 24, 65)::bloom FROM hostile;                 -- growth 65
\echo SQLSTATE :SQLSTATE
SELECT set_byte(b, 32, 0)::bloom FROM hostile;                  -- no stage
\echo SQLSTATE :SQLSTATE
SELECT set_byte(b, 32, 65)::bloom FROM hostile;                 -- 65 stages
\echo SQLSTATE :SQLSTATE
SELECT set_byte(b, 32, 3)::bloom FROM hostile;                  -- a stage more than the directory holds
\echo SQLSTATE :SQLSTATE
SELECT set_byte(b, 47, 127)::bloom FROM hostile;                -- fpr 2^1023
\echo SQLSTATE :SQLSTATE
SELECT set_byte(b, 47, 255)::bloom FROM hostile;                -- fpr negative
\echo SQLSTATE :SQLSTATE
SELECT set_byte(set_byte(b, 16, 255), 22, 255)::bloom FROM hostile;  -- capacity 2^56 - 1
\echo SQLSTATE :SQLSTATE
SELECT set_byte(b, 48, 0)::bloom FROM hostile;                  -- stage 0 of 0 bits
\echo SQLSTATE :SQLSTATE
SELECT set_byte(b, 56, 65)::bloom FROM hostile;                 -- stage 0 with 65 hashes
\echo SQLSTATE :SQLSTATE
SELECT set_byte(b, 60, 1)::bloom FROM hostile;                  -- reserved field
\echo SQLSTATE :SQLSTATE
SELECT set_byte(b, 71, 1)::bloom FROM hostile;                  -- key count 2^56
\echo SQLSTATE :SQLSTATE
SELECT set_byte(b, 48, get_byte(b, 48) + 8)::bloom FROM hostile;    -- stage 0 of 8 more bits
\echo SQLSTATE :SQLSTATE
SELECT (b || '\x00'::bytea)::bloom FROM hostile;                -- a byte too many
\echo SQLSTATE :SQLSTATE
SELECT substr(b, 1, length(b) - 1)::bloom FROM hostile;         -- a byte too few
\echo SQLSTATE :SQLSTATE
-- bits set past the last bit of stage 0 (m_0 is not a multiple of 8 here)
SELECT get_byte(b, 48) % 8 <> 0 AS m0_not_whole_bytes FROM hostile;
SELECT set_byte(b, 48 + 2 * 24 + (get_byte(b, 48) + 7) / 8 - 1, 255)::bloom FROM hostile;
\echo SQLSTATE :SQLSTATE
-- a blocked stage must be a multiple of 512 bits
SELECT set_byte(bloom_empty(1, 0.5, growth => 1, layout => 'blocked')::bytea, 49, 3)::bloom;
\echo SQLSTATE :SQLSTATE
-- the text form is checked the same way
SELECT (SELECT set_byte(b, 60, 1) FROM hostile)::text::bloom;
\echo SQLSTATE :SQLSTATE
