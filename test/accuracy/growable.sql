-- test/accuracy/growable.sql: growable filters (version 1.4; bloom_empty(capacity, fpr, growth
-- [, layout]), src/core/growable.h): the measured false-positive rate of a filter made for
-- n0 = 1,000 keys that receives up to 100 times as many by bloom_add, against the target fpr,
-- the compound estimate bloom_fpr and the compound formula; false negatives; the size against
-- a fixed filter made for all the keys; the keys counted against the keys added; and unions of
-- two growable filters, stage by stage (doc/accuracy.md, section 11).
--
-- psql variables: growable_tests (absent keys looked up per filter at least; 1000 / p when that
-- is more), growable_n (the numbers of keys added, an array literal such as '{1000,10000}'),
-- growable_union_n (keys of each of the two filters of a union), growable_union_tests (absent
-- keys looked up per union at least; 1000 / p when that is more).
--
-- 1. Growth.  For each configuration (layout, p, growth), of index c = 1 .. 8, one filter
-- bloom_empty(1000, p, growth, layout) receives the keys c 10^9 + 1, c 10^9 + 2, ... one at a
-- time (f := bloom_add(f, key) in PL/pgSQL), and is kept after each N of growable_n keys.  Each
-- kept filter is probed with T keys never added, -(c 10^9 + 1) .. -(c 10^9 + T), and with every
-- key it received (false negatives).
--
-- 2. Unions.  For each configuration (layout, p, growth) of index c = 11 .. 18, with
-- U = growable_union_n keys per filter and base = c 10^9: A receives base + 1 .. base + U in that
-- order, and B one of
--   disjoint        base + U + 1 .. base + 2U                 (2U distinct keys)
--   same            base + 1 .. base + U, the order of A      (U)
--   same_reversed   base + U .. base + 1, the reverse order   (U)
--   overlap         base + U/2 + 1 .. base + 3U/2             (3U/2: the second half of A first)
--   overlap_first   base + 1 .. base + U/2, then base + U + 1 .. base + 3U/2
--                   (3U/2: the keys shared with A first, in the order of A)
-- and A | B is compared with one filter that received the distinct keys of A and B by bloom_add
-- (A's keys, then B's others; how = 'added').  Each is probed with T keys never added,
-- -(base + 1) .. -(base + T), and with every key of A and of B.
--
-- 3. The spread of one filter's rate from filter to filter (its stage 0): see below.
--
-- The stage fails (an exception) on a false negative.

SET work_mem = '256MB';

-- --------------------------------------------------------------------------------------------
-- 1. Growth

CREATE TABLE acc_growable_f (
	layout text, p double precision, growth integer, n bigint, base bigint, f bloom
);

-- bloom_empty(n0, p, growth, layout) given base + 1 .. base + max(ns) one at a time, kept after
-- each N of ns keys.
CREATE FUNCTION acc_grow_build(layout text, p double precision, growth integer, n0 bigint,
                               base bigint, ns bigint[]) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
	f bloom := bloom_empty(n0, p, growth, layout);
	top bigint := (SELECT max(x) FROM unnest(ns) x);
BEGIN
	FOR i IN 1 .. top LOOP
		f := bloom_add(f, base + i);
		IF i = ANY (ns) THEN
			INSERT INTO acc_growable_f VALUES (layout, p, growth, i, base, f);
		END IF;
	END LOOP;
END $$;

SELECT acc_grow_build(l, p, g, 1000, c * 1000000000::bigint, :'growable_n'::bigint[])
FROM (SELECT l, p, g, row_number() OVER (ORDER BY li, pi, g) AS c
      FROM unnest(ARRAY['classic', 'blocked']) WITH ORDINALITY AS ll(l, li),
           unnest(ARRAY[0.01, 0.001]::float8[]) WITH ORDINALITY AS pp(p, pi),
           unnest(ARRAY[2, 4]) g) s
ORDER BY c \g /dev/null

CREATE TABLE acc_growable (
	layout text, p double precision, growth integer, n bigint, tests bigint, false_pos bigint,
	false_neg bigint, seconds double precision
);

CREATE FUNCTION acc_grow_point(l text, pp double precision, g integer, nn bigint, tests bigint)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
	t0 timestamptz := clock_timestamp();
BEGIN
	INSERT INTO acc_growable
	SELECT l, pp, g, nn, tests,
	       (SELECT count(*) FILTER (WHERE a.f @> -(a.base + j)) FROM generate_series(1::bigint, tests) j),
	       (SELECT count(*) FILTER (WHERE NOT a.f @> (a.base + i)) FROM generate_series(1::bigint, nn) i),
	       extract(epoch FROM clock_timestamp() - t0)
	FROM acc_growable_f a
	WHERE a.layout = l AND a.p = pp AND a.growth = g AND a.n = nn;
END $$;

SELECT acc_grow_point(layout, p, growth, n, greatest(:growable_tests, ceil(1000 / p))::bigint)
FROM acc_growable_f ORDER BY layout DESC, p DESC, growth, n \g /dev/null

-- The stages of every kept filter, with the rate of each stage's formula at the keys it counted
-- (bloom_fpr_estimate(bits, keys, hashes, layout)) and at its capacity.
CREATE VIEW acc_growable_stages_out AS
SELECT a.layout, a.p, a.growth, a.n, s.stage, s.capacity, s.target_fpr, s.bits, s.hashes,
       s.keys, s.bits_set, s.estimated_cardinality, s.estimated_fpr,
       bloom_fpr_estimate(s.bits, s.keys, s.hashes, a.layout) AS formula,
       bloom_fpr_estimate(s.bits, s.capacity, s.hashes, a.layout) AS formula_at_capacity,
       s.keys::float8 / s.capacity AS load,
       s.bits::float8 / s.capacity AS bits_per_capacity_key
FROM acc_growable_f a, bloom_stages(a.f) s
ORDER BY a.layout DESC, a.p DESC, a.growth, a.n, s.stage;

-- The TSV.  compound_fpr = bloom_fpr(f) (from each stage's fill); formula = 1 - prod(1 - r_i)
-- with r_i the formula of stage i at the keys it counted; bound = the sum of the stages' targets,
-- p (1 - 2^-S) for S stages, below p.  keys = the sum of the stages' counts; missed = n - keys,
-- the keys that a stage already held when they came (false positives, never added).
-- fixed_bytes = length(bloom_empty(n, p, layout)::bytea), fixed_bits = its bits.  rel_se: the
-- relative standard error of the measured rate from the lookups (binomial, at compound_fpr),
-- z_compound = (measured / compound_fpr - 1) / rel_se: compound_fpr is the rate given this
-- filter's bits, so only the lookups make the measured rate differ from it.  The formula is the
-- mean over filters of the same shapes and counts; one filter's bits vary around it (section 3
-- below), so measured / formula has a larger spread than rel_se says.
CREATE VIEW acc_growable_out AS
SELECT layout, p, growth, n, stages, capacity, keys, n - keys AS missed, tests, false_pos, false_neg,
       measured, compound_fpr, formula, bound,
       measured / p AS measured_over_target,
       compound_fpr / p AS compound_over_target,
       measured / compound_fpr AS measured_over_compound,
       rel_se, (measured / compound_fpr - 1) / rel_se AS z_compound,
       measured / formula AS measured_over_formula,
       compound_fpr / formula AS compound_over_formula,
       bytes, fixed_bytes, bytes::float8 / fixed_bytes AS size_ratio,
       bits, fixed_bits, bits::float8 / fixed_bits AS bits_ratio,
       bits::float8 / n AS bits_per_key, cardinality, seconds
FROM (SELECT r.*, false_pos::float8 / tests AS measured,
             sqrt((1 - compound_fpr) / (tests * compound_fpr)) AS rel_se
      FROM (SELECT g.layout, g.p, g.growth, g.n, g.tests, g.false_pos, g.false_neg, g.seconds,
                   i.stages, i.bits, bloom_fpr(a.f) AS compound_fpr, bloom_cardinality(a.f) AS cardinality,
                   (SELECT sum(capacity) FROM bloom_stages(a.f)) AS capacity,
                   (SELECT sum(keys) FROM bloom_stages(a.f)) AS keys,
                   (SELECT 1 - exp(sum(ln(1 - bloom_fpr_estimate(bits, keys, hashes, g.layout))))
                    FROM bloom_stages(a.f)) AS formula,
                   (SELECT sum(target_fpr) FROM bloom_stages(a.f)) AS bound,
                   length(a.f::bytea) AS bytes,
                   length(bloom_empty(g.n, g.p, g.layout)::bytea) AS fixed_bytes,
                   bloom_optimal_bits(g.n, g.p, g.layout) AS fixed_bits
            FROM acc_growable g
            JOIN acc_growable_f a USING (layout, p, growth, n),
                 bloom_info(a.f) i) r) s
ORDER BY layout DESC, p DESC, growth, n;

-- --------------------------------------------------------------------------------------------
-- 2. Unions

-- f given base + lo .. base + hi one at a time (from hi down to lo when rev).
CREATE FUNCTION acc_grow_add(f bloom, base bigint, lo integer, hi integer, rev boolean)
RETURNS bloom LANGUAGE plpgsql AS $$
BEGIN
	IF rev THEN
		FOR i IN REVERSE hi .. lo LOOP f := bloom_add(f, base + i); END LOOP;
	ELSE
		FOR i IN lo .. hi LOOP f := bloom_add(f, base + i); END LOOP;
	END IF;
	RETURN f;
END $$;

CREATE TABLE acc_growable_u (
	layout text, p double precision, growth integer, name text, base bigint, u integer,
	a bloom, b bloom, added bloom, distinct_keys bigint
);

CREATE FUNCTION acc_grow_union_build(l text, pp double precision, g integer, base bigint, u integer)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
	e bloom := bloom_empty(1000, pp, g, l);
	a bloom := acc_grow_add(bloom_empty(1000, pp, g, l), base, 1, u, false);
	h integer := u / 2;
BEGIN
	INSERT INTO acc_growable_u VALUES
		(l, pp, g, 'disjoint', base, u, a, acc_grow_add(e, base, u + 1, 2 * u, false),
		 acc_grow_add(a, base, u + 1, 2 * u, false), 2 * u),
		(l, pp, g, 'same', base, u, a, acc_grow_add(e, base, 1, u, false), a, u),
		(l, pp, g, 'same_reversed', base, u, a, acc_grow_add(e, base, 1, u, true), a, u),
		(l, pp, g, 'overlap', base, u, a, acc_grow_add(e, base, h + 1, u + h, false),
		 acc_grow_add(a, base, u + 1, u + h, false), u + h),
		(l, pp, g, 'overlap_first', base, u, a,
		 acc_grow_add(acc_grow_add(e, base, 1, h, false), base, u + 1, u + h, false),
		 acc_grow_add(a, base, u + 1, u + h, false), u + h);
END $$;

SELECT acc_grow_union_build(l, p, g, c * 1000000000::bigint, :growable_union_n)
FROM (SELECT l, p, g, 10 + row_number() OVER (ORDER BY li, pi, g) AS c
      FROM unnest(ARRAY['classic', 'blocked']) WITH ORDINALITY AS ll(l, li),
           unnest(ARRAY[0.01, 0.001]::float8[]) WITH ORDINALITY AS pp(p, pi),
           unnest(ARRAY[2, 4]) g) s
ORDER BY c \g /dev/null

-- The keys of B of each case: base + x for x in acc_grow_case_b(name, u).
CREATE FUNCTION acc_grow_case_b(name text, u integer) RETURNS SETOF integer
LANGUAGE sql IMMUTABLE AS $$
	SELECT x FROM generate_series(1, 2 * u) x
	WHERE CASE name WHEN 'disjoint' THEN x > u
	                WHEN 'same' THEN x <= u
	                WHEN 'same_reversed' THEN x <= u
	                WHEN 'overlap' THEN x > u / 2 AND x <= u + u / 2
	                WHEN 'overlap_first' THEN x <= u / 2 OR (x > u AND x <= u + u / 2) END
$$;

CREATE TABLE acc_growable_union (
	layout text, p double precision, growth integer, name text, how text, distinct_keys bigint,
	tests bigint, false_pos bigint, false_neg bigint, f bloom, seconds double precision
);

CREATE FUNCTION acc_grow_union_point(l text, pp double precision, g integer, nm text, tests bigint)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
	r record;
	f bloom;
	t0 timestamptz;
BEGIN
	SELECT * INTO r FROM acc_growable_u WHERE layout = l AND p = pp AND growth = g AND name = nm;
	FOR hw IN 1 .. 2 LOOP
		t0 := clock_timestamp();
		-- (the union made once, in a variable: a parameter of the lookups below)
		f := CASE hw WHEN 1 THEN r.a | r.b ELSE r.added END;
		INSERT INTO acc_growable_union
		SELECT l, pp, g, nm, CASE hw WHEN 1 THEN 'union' ELSE 'added' END, r.distinct_keys, tests,
		       (SELECT count(*) FILTER (WHERE f @> -(r.base + j)) FROM generate_series(1::bigint, tests) j),
		       (SELECT count(*) FILTER (WHERE NOT f @> (r.base + i)) FROM generate_series(1, r.u) i)
		       + (SELECT count(*) FILTER (WHERE NOT f @> (r.base + i)) FROM acc_grow_case_b(nm, r.u) i),
		       f, extract(epoch FROM clock_timestamp() - t0);
	END LOOP;
END $$;

SELECT acc_grow_union_point(layout, p, growth, name, greatest(:growable_union_tests, ceil(1000 / p))::bigint)
FROM acc_growable_u ORDER BY layout DESC, p DESC, growth, name \g /dev/null

-- The TSV of the unions: one row per union and per filter given the same distinct keys by
-- bloom_add.  keys = the sum of the stages' counts; stage_keys and stage_capacity list them by
-- stage; worst_stage_over_target = the largest estimated_fpr / target_fpr over the stages (the
-- rate of a stage from its fill against the rate it was made for); the other columns as in the
-- growth TSV.
CREATE VIEW acc_growable_union_out AS
SELECT layout, p, growth, name, how, distinct_keys, stages, keys, stage_keys, stage_capacity,
       tests, false_pos, false_neg, measured, compound_fpr, formula, bound,
       measured / p AS measured_over_target,
       compound_fpr / p AS compound_over_target,
       measured / compound_fpr AS measured_over_compound,
       sqrt((1 - compound_fpr) / (tests * compound_fpr)) AS rel_se,
       (measured / compound_fpr - 1) / sqrt((1 - compound_fpr) / (tests * compound_fpr)) AS z_compound,
       measured / formula AS measured_over_formula,
       worst_stage_over_target, bytes, seconds
FROM (SELECT u.layout, u.p, u.growth, u.name, u.how, u.distinct_keys, u.tests, u.false_pos,
             u.false_neg, u.false_pos::float8 / u.tests AS measured, bloom_fpr(u.f) AS compound_fpr,
             length(u.f::bytea) AS bytes, u.seconds,
             (SELECT count(*) FROM bloom_stages(u.f)) AS stages,
             (SELECT sum(keys) FROM bloom_stages(u.f)) AS keys,
             (SELECT string_agg(keys::text, ',' ORDER BY stage) FROM bloom_stages(u.f)) AS stage_keys,
             (SELECT string_agg(capacity::text, ',' ORDER BY stage) FROM bloom_stages(u.f)) AS stage_capacity,
             (SELECT 1 - exp(sum(ln(1 - bloom_fpr_estimate(bits, keys, hashes, u.layout))))
              FROM bloom_stages(u.f)) AS formula,
             (SELECT sum(target_fpr) FROM bloom_stages(u.f)) AS bound,
             (SELECT max(estimated_fpr / target_fpr) FROM bloom_stages(u.f)) AS worst_stage_over_target
      FROM acc_growable_union u) s
ORDER BY layout DESC, p DESC, growth,
         array_position(ARRAY['disjoint', 'same', 'same_reversed', 'overlap', 'overlap_first'], name),
         how DESC;

-- The stages of each union, with the keys of the stage in A and in B, its rate from its fill
-- (estimated_fpr) and from the formula at the keys it counted, against its target.
CREATE VIEW acc_growable_union_stages_out AS
SELECT u.layout, u.p, u.growth, u.name, s.stage, s.capacity, s.target_fpr, s.bits, s.hashes,
       sa.keys AS keys_a, coalesce(sb.keys, 0) AS keys_b, s.keys, s.bits_set,
       s.estimated_cardinality, s.estimated_fpr,
       bloom_fpr_estimate(s.bits, s.keys, s.hashes, u.layout) AS formula,
       s.keys::float8 / s.capacity AS load,
       s.estimated_fpr / s.target_fpr AS estimated_over_target,
       bloom_fpr_estimate(s.bits, s.keys, s.hashes, u.layout) / s.target_fpr AS formula_over_target
FROM acc_growable_union un
JOIN acc_growable_u u USING (layout, p, growth, name),
     bloom_stages(un.f) s
     LEFT JOIN bloom_stages(u.a) sa USING (stage)
     LEFT JOIN bloom_stages(u.b) sb USING (stage)
WHERE un.how = 'union'
ORDER BY u.layout DESC, u.p DESC, u.growth,
         array_position(ARRAY['disjoint', 'same', 'same_reversed', 'overlap', 'overlap_first'], u.name),
         s.stage;

-- --------------------------------------------------------------------------------------------
-- 3. The spread of one filter's rate.  The rate of one filter, from its own bits (bloom_fpr),
-- varies around the formula from filter to filter; most for the smallest stage, stage 0, which
-- holds half of a growable filter's rate.  For each (layout, p): 200 filters of stage 0's shape,
-- bloom_agg(x, 1000, p / 2, layout) = bloom_empty(1000, p / 2, layout) given 1,000 keys (filter
-- g of index c = 21 .. 24 holds c 10^9 + 10^6 g + 1 .. + 1000), their mean rate from their bits
-- against the formula, and its relative standard deviation between filters.
CREATE TABLE acc_growable_spread AS
SELECT layout, p, p / 2 AS stage0_target, 1000 AS n, count(*) AS filters,
       min((bloom_info(f)).bits) AS bits, min((bloom_info(f)).hashes) AS k,
       avg(bloom_fpr(f)) AS mean_fpr, stddev_samp(bloom_fpr(f)) AS sd_fpr,
       min(bloom_fpr(f)) AS min_fpr, max(bloom_fpr(f)) AS max_fpr
FROM (SELECT l AS layout, p, g, bloom_agg(c * 1000000000::bigint + 1000000::bigint * g + i, 1000, p / 2, l) AS f
      FROM (SELECT l, p, 20 + row_number() OVER (ORDER BY li, pi) AS c
            FROM unnest(ARRAY['classic', 'blocked']) WITH ORDINALITY AS ll(l, li),
                 unnest(ARRAY[0.01, 0.001]::float8[]) WITH ORDINALITY AS pp(p, pi)) cc,
           generate_series(1, 200) g, generate_series(1::bigint, 1000) i
      GROUP BY l, p, c, g) s
GROUP BY layout, p;

CREATE VIEW acc_growable_spread_out AS
SELECT layout, p, stage0_target, n, filters, bits, k,
       bloom_fpr_estimate(bits, n, k, layout) AS formula, mean_fpr,
       mean_fpr / bloom_fpr_estimate(bits, n, k, layout) AS mean_over_formula,
       sd_fpr / mean_fpr AS rel_sd, min_fpr / mean_fpr AS min_over_mean, max_fpr / mean_fpr AS max_over_mean
FROM acc_growable_spread
ORDER BY layout DESC, p DESC;

-- The stage fails on a false negative.
DO $$
DECLARE
	bad text;
BEGIN
	SELECT string_agg(format('%s p=%s growth=%s n=%s: %s false negatives', layout, p, growth, n, false_neg), '; ')
	INTO bad FROM acc_growable WHERE false_neg <> 0;
	IF bad IS NOT NULL THEN
		RAISE EXCEPTION 'growable: %', bad;
	END IF;
	SELECT string_agg(format('%s p=%s growth=%s %s %s: %s false negatives', layout, p, growth, name, how, false_neg), '; ')
	INTO bad FROM acc_growable_union WHERE false_neg <> 0;
	IF bad IS NOT NULL THEN
		RAISE EXCEPTION 'growable: %', bad;
	END IF;
END $$;
