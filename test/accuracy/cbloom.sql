-- test/accuracy/cbloom.sql: counting Bloom filters after churn (doc/accuracy.md, section 7).
--
-- psql variables: cb_capacity (C), cb_tests (absent keys looked up per measurement), cb_steps.
--
-- 1. Sliding window.  A cbloom_empty(C, 0.01) shape (4-bit counters) holds a window of C keys:
--    it starts as cbloom_agg over the keys 1 .. C; each step adds the next C/2 keys with
--    cbloom_add and removes the oldest C/2 with cbloom_remove, one call per key.  After every
--    step: the false-positive rate on cb_tests keys never added (-(10^7 step + j)), the live keys
--    that are not found (false negatives), the removed keys still reported present, and whether
--    the filter equals cbloom_agg(live keys, C, 0.01) byte for byte.
-- 2. Overload and drain.  cbloom_agg(x, C, 0.01, bits) over the keys 1 .. L C (L times the
--    capacity), then the oldest (L - 1) C keys subtracted (operator -, a cbloom_agg of them), so
--    C keys stay, for 4- and 8-bit counters.  Counters that reached their maximum while the filter
--    was overloaded stay saturated and keep their positions set after the drain.

CREATE TABLE acc_cbloom_window (
	step integer, live_from bigint, live_to bigint, counters bigint, hashes integer, tests bigint,
	false_pos bigint, false_neg bigint, removed bigint, removed_present bigint,
	saturated bigint, estimated_fpr double precision, equals_rebuilt boolean, bits_equal_bloom boolean
);

CREATE FUNCTION acc_cbloom_window(cap bigint, tests bigint, steps integer) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
	f cbloom;
	half bigint := cap / 2;
	lo bigint := 1;          -- live keys are lo .. lo + cap - 1
BEGIN
	SELECT cbloom_agg(x, cap, 0.01) INTO f FROM generate_series(1::bigint, cap) x;
	FOR step IN 0 .. steps LOOP
		IF step > 0 THEN
			FOR j IN 0 .. half - 1 LOOP
				f := cbloom_add(f, lo + cap + j);
			END LOOP;
			FOR j IN 0 .. half - 1 LOOP
				f := cbloom_remove(f, lo + j);
			END LOOP;
			lo := lo + half;
		END IF;
		INSERT INTO acc_cbloom_window
		SELECT step, lo, lo + cap - 1, i.counters, i.hashes, tests,
		       (SELECT count(*) FILTER (WHERE f @> -(10000000::bigint * step + j)) FROM generate_series(1::bigint, tests) j),
		       (SELECT count(*) FILTER (WHERE NOT f @> x) FROM generate_series(lo, lo + cap - 1) x),
		       lo - 1,
		       (SELECT count(*) FILTER (WHERE f @> x) FROM generate_series(1::bigint, lo - 1) x),
		       i.counters_saturated, i.estimated_fpr,
		       f = (SELECT cbloom_agg(x, cap, 0.01) FROM generate_series(lo, lo + cap - 1) x),
		       f::bloom = (SELECT bloom_agg(x, cap, 0.01) FROM generate_series(lo, lo + cap - 1) x)
		FROM cbloom_info(f) i;
	END LOOP;
END $$;

SELECT acc_cbloom_window(:cb_capacity, :cb_tests, :cb_steps) \g /dev/null

CREATE TABLE acc_cbloom_drain (
	counter_bits integer, load integer, counters bigint, hashes integer, tests bigint,
	full_false_pos bigint, full_saturated bigint,
	false_pos bigint, false_neg bigint, saturated bigint, equals_rebuilt boolean
);

CREATE FUNCTION acc_cbloom_drain(cap bigint, tests bigint, bits integer, load integer) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
	f cbloom;
	d cbloom;
	fp_full bigint;
	sat_full bigint;
	base bigint := (bits * 100 + load) * 10000000::bigint;
BEGIN
	SELECT cbloom_agg(x, cap, 0.01, bits) INTO f FROM generate_series(1::bigint, load * cap) x;
	SELECT count(*) FILTER (WHERE f @> -(base + j)) INTO fp_full FROM generate_series(1::bigint, tests) j;
	sat_full := (cbloom_info(f)).counters_saturated;
	IF load > 1 THEN
		d := f - (SELECT cbloom_agg(x, cap, 0.01, bits) FROM generate_series(1::bigint, (load - 1) * cap) x);
	ELSE
		d := f;
	END IF;
	INSERT INTO acc_cbloom_drain
	SELECT bits, load, i.counters, i.hashes, tests, fp_full, sat_full,
	       (SELECT count(*) FILTER (WHERE d @> -(base + 5000000 + j)) FROM generate_series(1::bigint, tests) j),
	       (SELECT count(*) FILTER (WHERE NOT d @> x) FROM generate_series((load - 1) * cap + 1, load * cap) x),
	       i.counters_saturated,
	       d = (SELECT cbloom_agg(x, cap, 0.01, bits) FROM generate_series((load - 1) * cap + 1, load * cap) x)
	FROM cbloom_info(d) i;
END $$;

SELECT acc_cbloom_drain(:cb_capacity, :cb_tests, bits, load)
FROM unnest(ARRAY[4, 8]) bits, unnest(ARRAY[1, 2, 3, 4, 6, 8, 12, 16]) load
ORDER BY bits, load \g /dev/null

-- The TSVs.  approx is bloom_fpr_estimate for the C live keys (what a fresh filter of them has);
-- full_approx for the L C keys held before the drain.
CREATE VIEW acc_cbloom_window_out AS
SELECT step, live_from, live_to, counters, hashes, tests, false_pos, false_neg, removed, removed_present,
       false_pos::float8 / tests AS measured,
       bloom_fpr_estimate(counters, live_to - live_from + 1, hashes) AS approx,
       false_pos::float8 / tests / bloom_fpr_estimate(counters, live_to - live_from + 1, hashes) AS measured_over_approx,
       CASE WHEN removed > 0 THEN removed_present::float8 / removed ELSE 'NaN' END AS removed_present_rate,
       saturated, estimated_fpr, equals_rebuilt, bits_equal_bloom
FROM acc_cbloom_window ORDER BY step;

CREATE VIEW acc_cbloom_drain_out AS
SELECT counter_bits, load, counters, hashes, tests,
       full_false_pos::float8 / tests AS full_measured,
       bloom_fpr_estimate(counters, load * :cb_capacity::bigint, hashes) AS full_approx,
       full_saturated, false_pos, false_neg,
       false_pos::float8 / tests AS measured,
       bloom_fpr_estimate(counters, :cb_capacity::bigint, hashes) AS approx,
       false_pos::float8 / tests / bloom_fpr_estimate(counters, :cb_capacity::bigint, hashes) AS measured_over_approx,
       saturated, equals_rebuilt
FROM acc_cbloom_drain ORDER BY counter_bits, load;
