-- test/accuracy/setup.sql: the extension and the helpers of the accuracy measurements
-- (doc/accuracy.md).  Run by test/accuracy/run.sh in a fresh database of a throwaway server.

CREATE EXTENSION bloomsketch;

-- A filter of exactly m bits and k hashes holding the keys lo .. hi, added one by one with
-- bloom_add (a PL/pgSQL variable: bloom_add returns a new filter each time).
CREATE FUNCTION acc_fill(m bigint, k integer, lo bigint, hi bigint) RETURNS bloom
LANGUAGE plpgsql STRICT AS $$
DECLARE
	f bloom := bloom_empty_bits(m, k);
BEGIN
	-- (a FOR loop variable is an integer: loop over the offsets)
	FOR j IN 0 .. hi - lo LOOP
		f := bloom_add(f, lo + j);
	END LOOP;
	RETURN f;
END $$;

-- A uniform double in (0, 1) from row number i and a seed (the generator of doc/cms.md, section 4).
CREATE FUNCTION acc_unit(i bigint, seed bigint) RETURNS double precision
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
	SELECT ((hashint8extended(i, seed) & 9007199254740991)::float8 + 0.5) / 9007199254740992
$$;

-- A Zipf-like key in 1 .. kmax: the continuous power law x^-s on [1, kmax + 1), inverted from
-- acc_unit and rounded down, so key j has a probability close to j^-s / H(kmax, s).  s = 1 is the
-- stream of doc/cms.md and doc/topk.md: floor(exp(u ln(kmax + 1))).
CREATE FUNCTION acc_zipf(i bigint, s double precision, kmax bigint, seed bigint) RETURNS bigint
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
	SELECT least(kmax, CASE WHEN s = 1 THEN floor(exp(acc_unit(i, seed) * ln(kmax + 1)))
		ELSE floor(power(1 + acc_unit(i, seed) * (power(kmax + 1, 1 - s) - 1), 1 / (1 - s))) END)::bigint
$$;

-- Bloom's 1970 formula (1 - (1 - 1/m)^(k n))^k, for which the extension has no function.
CREATE FUNCTION acc_fpr_bloom1970(m bigint, n bigint, k integer) RETURNS double precision
LANGUAGE sql IMMUTABLE STRICT AS $$
	SELECT power(1 - power(1 - 1.0::float8 / m, k::float8 * n), k)
$$;

-- bloom_fpr_exact(m, n, k) where its work limit allows (about k n * min(k n, m) <= 10^8), else NULL.
CREATE FUNCTION acc_fpr_exact_or_null(m bigint, n bigint, k integer) RETURNS double precision
LANGUAGE sql IMMUTABLE STRICT AS $$
	SELECT CASE WHEN (k::numeric * n) * least(k::numeric * n, m) <= 100000000
		THEN bloom_fpr_exact(m, n, k) END
$$;
