#!/usr/bin/python3
"""Check the Python reference client (bloomsketch.py) against a live server.

    PGHOST=... PGPORT=... PGUSER=... PGDATABASE=... /usr/bin/python3 test/client/check_client.py

Connects with psycopg2 through the standard libpq environment, creates the
extension if it is missing (and drops it again at the end in that case),
works in a schema of its own (bs_client_<pid>, dropped at the end) and checks:

1. the hash vectors of test/vectors/hash.tsv: the client computes the listed
   key bytes (from the value the server returns), hash and probe positions,
   and the server still gives that hash, those key bytes and those bits;
2. the format vectors of test/vectors/sketches.txt: the server still makes
   each sketch byte for byte (a frozen topk of format 1, which no server
   makes any more: the server reads it and gives its bytes back), and the
   client reads it and finds its keys; of a topk, the client lists the values
   and gives the bounds that the record lists, and answers as topk_items,
   topk_items_bounds, topk_bounds, topk_upper_bound, -> and topk_info;
3. bloomsketch_hash for thousands of generated values of every key type;
4. membership: filters built by the server (bloom_agg over tens of thousands
   of keys of every family, a fixed-shape bloom_agg, a cbloom with values
   removed) answered by the client for present and absent keys, compared
   with the server's @> and cbloom_count: no disagreement, no false negative;
5. Count-Min estimates (cms_frequency) and topk_items, compared exactly;
   topk of format 2 (topk_agg with and without values dropped,
   topk_agg_weighted, topk_union_agg): topk_items and topk_items_bounds
   (n = 1, k and the capacity), topk_info and topk_bounds of held and absent
   values compared exactly, every true count within its bounds;
6. corrupted sketches: the client raises FormatError with the server's
   message, and the server rejects the same bytes; a key of another family
   raises FamilyError; corrupted topk values of both formats (named cases of
   every check, then every prefix and one-byte change of three values): the
   client accepts what the server accepts and reads it alike, and rejects
   the rest with the server's message; topk_items(t, n) with n out of range;
7. the blocked layout (bloom_empty(..., 'blocked') and bloom_add,
   bloom_agg(v, capacity, fpr, 'blocked'), bloom_agg(v, NULL, fpr, 'blocked')):
   the client answers as @> for present and absent keys, builds the same
   bytes from the same keys (with its own sizing), and gives bloom_info's
   estimated cardinality and rate exactly; its sizing is the server's
   (bloom_optimal_bits, bloom_optimal_hashes, bloom_fpr_estimate);
8. growable filters (bloom_empty(capacity, fpr, growth => s [, layout]) and
   bloom_add, key by key, with stages of either layout): the client answers
   as @>, builds the same bytes from the same keys, gives bloom_stages' rows
   and bloom_info's estimates exactly, and makes the server's unions (a | b,
   bloom_union_agg) byte for byte; what does not merge is refused by both,
   and corrupted growable values (in the corruption section) get the
   server's message.

The hash vectors also check the blocked positions (the bits a key sets in a
blocked filter), and every bloom of the format vectors is rebuilt by the
client from its keys, byte for byte.

Each check prints "ok - ..." or "not ok - ..."; the last line is
"client: N passed, M failed".  The exit status is non-zero if a check failed
or the script could not run.  Needs Debian's python3-psycopg2 and
python3-xxhash (run it with /usr/bin/python3).
"""

import decimal
import os
import struct
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
VECTORS = os.path.join(HERE, "..", "vectors")
HEADER = 48                         # a sketch's header bytes; a growable filter's directory follows
sys.dont_write_bytecode = True      # no __pycache__ in the source tree
sys.path.insert(0, HERE)

passed = 0
failed = 0


def check(ok, desc, detail=None):
    global passed, failed
    if ok:
        passed += 1
        print("ok - " + desc)
    else:
        failed += 1
        print("not ok - " + desc)
        if detail:
            for line in str(detail).splitlines():
                print("#   " + line)
    sys.stdout.flush()
    return ok


# ---------------------------------------------------------------------------

def key_function(bs, typname, encoding):
    """The client's key function for a SQL type name (format_type)."""
    return {
        "smallint": bs.key_integer, "integer": bs.key_integer, "bigint": bs.key_integer,
        "text": lambda v: bs.key_text(v, encoding),
        "character varying": lambda v: bs.key_text(v, encoding),
        "name": lambda v: bs.key_text(v, encoding),
        "character": lambda v: bs.key_char(v, encoding),
        "bytea": bs.key_bytea, "uuid": bs.key_uuid,
        "double precision": bs.key_float, "real": bs.key_real,
        "numeric": bs.key_numeric, "date": bs.key_date,
        "timestamp without time zone": bs.key_timestamp,
        "timestamp with time zone": bs.key_timestamptz,
    }[typname]


def python_value(cur, expr):
    """(value, text) of expr as psycopg2 returns it; value None when Python
    cannot represent it (a date BC).  Infinite dates and timestamps come back
    as their text, which the key functions accept."""
    cur.execute("SELECT (%s)::text" % expr)
    text = cur.fetchone()[0]
    if text in ("infinity", "-infinity"):
        return text, text
    try:
        cur.execute("SELECT %s" % expr)
        return cur.fetchone()[0], text
    except ValueError:
        return None, text


def server_key(bs, cur, expr):
    cur.execute("SELECT topk_agg(%s, 1, 0.5, 0.5)::bytea" % expr)
    t = bs.TopK(cur.fetchone()[0])
    return bytes(t.candidates[0][2]) if len(t.candidates) == 1 else None


def set_positions(bits):
    """The positions of the set bits of a bloom payload."""
    return {i * 8 + j for i, b in enumerate(bits) if b for j in range(8) if b >> j & 1}


def unhex(s):
    return b"" if s == '""' else bytes.fromhex(s)


def check_hash_vectors(bs, cur, encoding):
    path = os.path.join(VECTORS, "hash.tsv")
    rows = 0
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    for lineno, line in enumerate(lines, 1):
        if not line or line.startswith("#") or line.startswith("type\t"):
            continue
        rows += 1
        fields = line.split("\t")
        if len(fields) != 9:
            check(False, "hash.tsv line %d has 9 fields" % lineno, line)
            continue
        typ, expr, family, key_hex, h_signed, h_hex, m, k, pos = fields
        family, h_signed, h, m, k = int(family), int(h_signed), int(h_hex, 16), int(m), int(k)
        want_pos = [int(p) for p in pos.split(",")]
        data = unhex(key_hex)
        problems = []
        # the client against the file
        if bs.hash64(data) != h or bs.to_signed(h) != h_signed:
            problems.append("client hash of the key bytes: %016x" % bs.hash64(data))
        if bs.probes(h, m, k) != want_pos:
            problems.append("client probes: %s" % bs.probes(h, m, k))
        if encoding != "utf_8" and any(ord(c) > 127 for c in expr):
            print("# hash.tsv line %d skipped: not a UTF8 database" % lineno)
            continue
        value, text = python_value(cur, expr)
        local = None
        if value is not None:
            local = key_function(bs, typ, encoding)(value)
            if local.data != data or local.family != family:
                problems.append("client key of the value %r: family %d, %s"
                                % (value, local.family, local.data.hex()))
        # the server against the file
        cur.execute("SELECT format_type(pg_typeof(%s), NULL), bloomsketch_hash(%s), "
                    "bloom_add(bloom_empty_bits(%d, %d), %s)::bytea" % (expr, expr, m, k, expr))
        styp, sh, sbloom = cur.fetchone()
        f = bs.Bloom(sbloom)
        if styp != typ or sh != h_signed:
            problems.append("server: type %s, bloomsketch_hash %d" % (styp, sh))
        if set_positions(f.bits) != set(want_pos) or f.family != family:
            problems.append("server: other bits or family in bloom_add(bloom_empty_bits(m, k), value)")
        # the same key in a blocked filter of at least m bits: one block, the client's positions
        mb = (m + bs.BLOCK_BITS - 1) // bs.BLOCK_BITS * bs.BLOCK_BITS
        blocked_pos = bs.blocked_positions(h, mb, k)
        cur.execute("SELECT bloom_add(bloom_empty_bits(%d, %d, 'blocked'), %s)::bytea" % (mb, k, expr))
        fb = bs.Bloom(cur.fetchone()[0])
        if (set_positions(fb.bits) != set(blocked_pos) or len({p // bs.BLOCK_BITS for p in blocked_pos}) != 1
                or fb.positions(h) != blocked_pos or not fb.contains_hash(h)):
            problems.append("blocked: client positions %s, server bits %s"
                            % (sorted(set(blocked_pos)), sorted(set_positions(fb.bits))))
        skey = server_key(bs, cur, expr)
        if skey != data:
            problems.append("server: key bytes %s" % (skey.hex() if skey is not None else None))
        check(not problems,
              "hash.tsv line %d (%s %s): key bytes%s, hash %s and %d probes in %d (and blocked positions): "
              "client = file = server"
              % (lineno, typ, expr, "" if local is not None else " (from the file: %s is not a Python value)" % text,
                 h_signed, k, m), "\n".join(problems))
    check(rows >= 50, "hash.tsv has %d rows (at least 50)" % rows)


def parse_sketches():
    path = os.path.join(VECTORS, "sketches.txt")
    records, rec = [], {}
    with open(path, encoding="utf-8") as f:
        for line in f.read().split("\n"):
            if line.startswith("#"):
                continue
            if not line:
                if rec:
                    records.append(rec)
                rec = {}
                continue
            name, _, value = line.partition("\t")
            rec[name] = value
    if rec:
        records.append(rec)
    return records


def parse_keys(field):
    """(remove, key bytes, count) of each token of a keys field."""
    out = []
    if field == "(none)":
        return out
    for tok in field.split(" "):
        remove = tok.startswith("-")
        tok = tok.lstrip("-")
        tok, _, count = tok.partition("*")
        out.append((remove, unhex(tok), int(count) if count else 1))
    return out


def sql_text(value):
    """A decoded topk key as the server prints it (for the families used)."""
    if hasattr(value, "isoformat"):
        return value.isoformat()
    if isinstance(value, (bytes, bytearray)):
        return "\\x" + value.hex()
    if isinstance(value, decimal.Decimal):
        return format(value, "f")         # never an exponent, as numeric_out
    return str(value)


SQL_TYPES = {1: "bigint", 2: "text", 3: "bytea", 4: "uuid", 5: "double precision", 6: "numeric",
             7: "date", 8: "timestamp", 9: "timestamptz"}


def sql_value(bs, family, data):
    """(SQL expression with one %s, its parameter) of the value of family whose canonical key
    bytes are data."""
    typ = SQL_TYPES[family]
    if family == bs.FAMILY_BYTEA:
        return "%s::bytea", bytes(data)
    v = bs.decode_key(family, data)
    if family == bs.FAMILY_FLOAT:
        v = repr(v).replace("inf", "Infinity").replace("nan", "NaN")
    return "%%s::%s" % typ, sql_text(v)


def compare_topk(bs, cur, raw, keys=()):
    """The differences between the client's reading of the topk value raw and the server's:
    topk_items, topk_items(t, n) and topk_items_bounds(t, n) for n = 1, k and the capacity,
    topk_items_bounds(t), topk_info, and topk_bounds, topk_upper_bound and -> of each of keys
    (canonical key bytes)."""
    t = bs.load(raw)
    problems = []

    def rows(sql, *args):
        cur.execute(sql, (raw,) + args)
        return [tuple(r) for r in cur.fetchall()]

    def mine(items):
        return [(sql_text(r[0]),) + tuple(r[1:]) for r in items]

    for n in (None, 1, t.k, t.capacity):
        arg = "" if n is None else ", %d" % n
        server = rows("SELECT * FROM topk_items(%%s::bytea::topk%s)" % arg)
        if mine(t.items(n)) != server:
            problems.append("topk_items(t%s): client %s, server %s" % (arg, mine(t.items(n)), server))
        server = rows("SELECT * FROM topk_items_bounds(%%s::bytea::topk%s)" % arg)
        if mine(t.items_bounds(n)) != server:
            problems.append("topk_items_bounds(t%s): client %s, server %s" % (arg, mine(t.items_bounds(n)), server))
    server = rows("SELECT * FROM topk_info(%s::bytea::topk)")
    if [tuple(t.info())] != server:
        problems.append("topk_info: client %s, server %s" % (tuple(t.info()), server))
    for data in keys:
        expr, param = sql_value(bs, t.family, data)
        server = rows("SELECT (topk_bounds(t, v)).*, topk_upper_bound(t, v), t -> v "
                      "FROM (SELECT %%s::bytea::topk AS t, %s AS v) s" % expr, param)
        b = t.bounds(bs.Key(t.family, data))
        if [tuple(b) + (b.upper_bound, b.upper_bound)] != server:
            problems.append("topk_bounds, topk_upper_bound and -> of %s: client %s, server %s"
                            % (data.hex(), tuple(b), server))
    return problems


def build_bloom(bs, build, ops, family):
    """The client's bloom for a record's build line and keys (doc/format.md,
    section 11): bloom_empty_bits M K, bloom_empty CAPACITY FPR, bloom_agg
    FPR (sized for the distinct keys) or bloom_agg CAPACITY FPR, each with
    an optional layout, then the keys added in order; or a growable filter,
    bloom_empty CAPACITY FPR GROWTH, or the union of two, bloom_union
    CAPACITY FPR GROWTH SPLIT."""
    words = build.split()
    layout = "classic"
    if words[-1] in ("classic", "blocked"):
        layout = words.pop()
    fn, args = words[0], [float(w) for w in words[1:]]
    if fn == "bloom_empty" and len(args) == 3 or fn == "bloom_union":
        # growable: bloom_empty CAPACITY FPR GROWTH; bloom_union ... SPLIT of the first
        # SPLIT keys and the others
        split = int(args[3]) if fn == "bloom_union" else len(ops)
        sides = []
        for part in (ops[:split], ops[split:]) if fn == "bloom_union" else (ops,):
            g = bs.GrowableBloom.empty(int(args[0]), args[1], int(args[2]), layout)
            for remove, data, count in part:
                g.add(bs.Key(family, data))
            sides.append(g)
        return sides[0] | sides[1] if fn == "bloom_union" else sides[0]
    if fn == "bloom_empty_bits":
        f = bs.Bloom.empty(int(args[0]), int(args[1]), layout)
    elif fn == "bloom_empty" or fn == "bloom_agg" and len(args) == 2:
        f = bs.Bloom.empty_for(args[0], args[1], layout)
    elif fn == "bloom_agg":
        f = bs.Bloom.empty_for(max(1, len({data for _, data, _ in ops})), args[0], layout)
    else:
        raise ValueError("unknown bloom build line %r" % build)
    if fn == "bloom_agg":
        f.family = family           # the aggregate's argument type, even before a row
    for remove, data, count in ops:
        f.add(bs.Key(family, data))
    return f


def parse_counts(field):
    """(key bytes, frequency, lower, upper) of each token HEX:F:L:U of an items or bounds field."""
    out = []
    if field == "(none)":
        return out
    for tok in field.split(" "):
        hexkey, f, lower, upper = tok.split(":")
        out.append((unhex(hexkey), int(f), int(lower), int(upper)))
    return out


def check_sketch_vectors(bs, cur):
    records = parse_sketches()
    kinds = set()
    topk_formats = {}
    for r in records:
        name, kind = r.get("name", "?"), r.get("kind")
        kinds.add(kind)
        want = bytes.fromhex(r["hex"])
        frozen = r["build"].startswith("topk1_agg ")
        if frozen:
            # format 1, made by bloomsketch 1.4: the server reads it and gives its bytes back
            cur.execute("SELECT %s::bytea::topk::bytea, (topk_info(%s::bytea::topk)).format_version",
                        (want, want))
            got, version = cur.fetchone()
            got = bytes(got)
            check(got == want and len(want) == int(r["bytes"]) and version == 1,
                  "%s: the server reads these %d bytes of format %s (frozen: made by bloomsketch 1.4) "
                  "and gives them back" % (name, len(want), version), "server: %s" % got.hex())
        else:
            cur.execute(r["sql"])
            got = cur.fetchone()[0]
            got = bytes.fromhex(got[2:]) if isinstance(got, str) else bytes(got)
            check(got == want and len(want) == int(r["bytes"]),
                  "%s: the server still makes these %d bytes (%s)" % (name, len(want), r["sql"][:60] + "..."),
                  "server: %s" % got.hex())
        family = int(r["family"].split()[0])
        ops = parse_keys(r["keys"])
        problems = []
        try:
            if kind == "bloom_agg_state":
                h = bs.parse_header(want, bs.KIND_BLOOM_AGG_STATE)
                try:
                    bs.load(want)
                    problems.append("load() read a bloom_agg_state")
                except bs.FormatError:
                    pass
                what = "parses its header (and load() declines the state)"
                if h.family != family:
                    problems.append("family %d" % h.family)
            else:
                s = bs.load(want)
                if bs.KIND_NAMES[s.kind] != kind or s.family != family:
                    problems.append("kind %d, family %d" % (s.kind, s.family))
                net = {}
                for remove, data, count in ops:
                    net[data] = net.get(data, 0) + (-1 if remove else count)
                for data, n in net.items():
                    key = bs.Key(family, data)
                    if n <= 0:
                        continue
                    if kind == "bloom" and not s.contains(key):
                        problems.append("%s not found" % data.hex())
                    if kind == "cbloom" and not (s.contains(key) and s.count(key) >= min(n, s.max)):
                        problems.append("%s: count %d, added %d" % (data.hex(), s.count(key), n))
                    if kind == "cms" and s.frequency(key) < n:
                        problems.append("%s: estimate %d, added %d" % (data.hex(), s.frequency(key), n))
                    if kind == "topk" and not s.bounds(key).lower_bound <= n <= s.bounds(key).upper_bound:
                        problems.append("%s: bounds %s, added %d" % (data.hex(), s.bounds(key), n))
                if not ops and (kind in ("bloom",) and s.bits_set() or kind == "cms" and s.total):
                    problems.append("an empty sketch holds something")
                what = "reads it and finds its %d keys" % len(net)
                if kind == "bloom":
                    mine = build_bloom(bs, r["build"], ops, family)
                    if mine.to_bytes() != want:
                        problems.append("the client builds %s" % mine.to_bytes().hex())
                    what += ", builds the same bytes from them (%s layout)" % s.layout_name
                if kind == "topk":
                    topk_formats[s.format_version] = topk_formats.get(s.format_version, 0) + 1
                    if (s.format_version == bs.TOPK_FORMAT_V1) != frozen:
                        problems.append("format %d, build line %s" % (s.format_version, r["build"]))
                    # the reading recorded by generate.py
                    listed = [(e.key, e.upper if s.format_version == bs.TOPK_FORMAT_V1 else e.lower,
                               e.lower, e.upper) for e in s.ranked()]
                    if "items" not in r or "bounds" not in r:
                        problems.append("the record has no items or no bounds")
                    elif listed[:s.capacity] != parse_counts(r["items"]):
                        problems.append("ranked %s, the file's items %s" % (listed, r["items"]))
                    recorded = parse_counts(r.get("bounds", "(none)"))
                    for data, f, lower, upper in recorded:
                        b = s.bounds(bs.Key(family, data))
                        if tuple(b) != (f, lower, upper):
                            problems.append("%s: bounds %s, the file's %s" % (data.hex(), b, (f, lower, upper)))
                    problems += compare_topk(bs, cur, want, [data for data, _, _, _ in recorded])
                    what += (", lists its values and gives the bounds of %d values as the file and the server "
                             "do (format %d; topk_items, topk_items_bounds, topk_bounds, topk_info)"
                             % (len(recorded), s.format_version))
        except (bs.FormatError, bs.FamilyError) as e:
            problems.append("%s: %s" % (type(e).__name__, e))
            what = "reads it"
        check(not problems, "%s: the client %s" % (name, what), "\n".join(problems))
    check(len(records) >= 10 and kinds >= {"bloom", "bloom_agg_state", "cbloom", "cms", "topk"},
          "sketches.txt has %d records (at least 10) of every kind" % len(records))
    check(topk_formats.get(1, 0) >= 4 and topk_formats.get(2, 0) >= 5,
          "sketches.txt has topk records of format 1 (%d, frozen) and format 2 (%d)"
          % (topk_formats.get(1, 0), topk_formats.get(2, 0)))
    blocked = [r["name"] for r in records if r.get("build", "").endswith(" blocked")]
    check(any(r.startswith("bloom") for r in blocked) and any(r.startswith("state") for r in blocked),
          "sketches.txt has blocked-layout filters and states (%s)" % ", ".join(blocked))


# ---------------------------------------------------------------------------
# Generated keys: one SQL expression of x per type (injective in x).

def key_types(utf8):
    text_extra = "CASE WHEN x % 7 = 0 THEN 'grüße-€-' ELSE '' END || " if utf8 else ""
    return [
        # (label, SQL type, expression of the bigint x)
        ("smallint", "smallint", "((x % 65536) - 32768)::smallint"),
        ("integer", "integer", "hashint4(x::int)"),
        ("bigint", "bigint", "hashint8extended(x, 0)"),
        ("text", "text", text_extra + "'user-' || x || repeat('x', (x % 40)::int)"),
        ("varchar", "character varying", "('v' || md5(x::text) || repeat('y', (x % 300)::int))::varchar"),
        ("char(12)", "character", "('c' || x)::char(12)"),
        ("name", "name", "('n' || x)::name"),
        ("bytea", "bytea", "int8send(x) || decode(repeat('ab', (x % 20)::int), 'hex')"),
        ("uuid", "uuid", "md5(x::text)::uuid"),
        ("float8", "double precision",
         "(x::float8 / 7) * (CASE WHEN x % 2 = 0 THEN 1 ELSE -1e10 END)"),
        ("real", "real", "(x::real / 3)::real"),
        ("numeric", "numeric", "(x::numeric / 100)::numeric(12, 4)"),
        ("date", "date", "'2000-01-01'::date + (x - 50000)::int"),
        ("timestamp", "timestamp without time zone",
         "'2000-01-01'::timestamp + x * interval '997 seconds' + x * interval '1 microsecond'"),
        ("timestamptz", "timestamp with time zone",
         "'2000-01-01 00:00+00'::timestamptz - x * interval '613 seconds' + x * interval '3 microseconds'"),
    ]


SPECIALS = {
    "float8": ["0::float8", "'-0'::float8", "'NaN'::float8", "'Infinity'::float8",
               "'-Infinity'::float8", "5e-324::float8", "1e308::float8"],
    "real": ["'-0'::real", "'NaN'::real", "'-Infinity'::real", "0.1::real", "3.4e38::real"],
    "numeric": ["'NaN'::numeric", "'Infinity'::numeric", "'-Infinity'::numeric", "'-0.000'::numeric",
                "1e-30::numeric", "1e30::numeric", "100.00::numeric"],
    "date": ["'infinity'::date", "'-infinity'::date"],
    "timestamp": ["'infinity'::timestamp", "'-infinity'::timestamp"],
    "timestamptz": ["'infinity'::timestamptz", "'-infinity'::timestamptz"],
    "text": ["''::text", "' '::text"],
    "char(12)": ["''::char(12)", "'   x   '::char(12)"],
    "bytea": ["'\\x'::bytea", "'\\x00'::bytea"],
}


def check_hashes(bs, cur, encoding, n):
    """bloomsketch_hash of n generated values (and the specials) of each type."""
    for label, typ, expr in key_types(encoding == "utf_8"):
        fn = key_function(bs, typ, encoding)
        sql = "SELECT (%s)::text, %s, bloomsketch_hash(%s) FROM generate_series(1, %d) x" % (expr, expr, expr, n)
        for e in SPECIALS.get(label, []):
            sql += " UNION ALL SELECT (%s)::text, %s, bloomsketch_hash(%s)" % (e, e, e)
        cur.execute(sql)
        rows = cur.fetchall()
        bad = []
        for text, v, h in rows:
            if text in ("infinity", "-infinity"):
                v = text
            if bs.to_signed(bs.hash64(fn(v))) != h:
                bad.append((text, h))
        check(not bad and len(rows) >= n,
              "bloomsketch_hash of %d %s values (%d special): the client gives the same %d hashes"
              % (len(rows), label, len(SPECIALS.get(label, [])), len(rows)),
              "first differences: %s" % bad[:5])


def check_python_inputs(bs, cur):
    """Python values the server never returns (Decimal('-0'), exponents,
    other time zones, UUID objects, bytearray) hash as their SQL literal."""
    import datetime
    import decimal
    import uuid
    D = decimal.Decimal
    ist = datetime.timezone(datetime.timedelta(hours=5, minutes=30))
    cases = [
        (D("-0.000"), "'-0.000'::numeric"),
        (D("-0"), "0::numeric"),
        (D("1E+3"), "1000::numeric"),
        (D("1.50E-2"), "0.015::numeric"),
        (D("-1.2300"), "-1.23::numeric"),
        (D("NaN"), "'NaN'::numeric"),
        (D("-Infinity"), "'-Infinity'::numeric"),
        (bs.key_numeric(12), "12::numeric"),
        (bs.key_numeric("1.500"), "1.500::numeric"),
        (-0.0, "0::float8"),
        (float("nan"), "'NaN'::float8"),
        (bs.key_real(0.1), "0.1::real"),
        (2 ** 63 - 1, "9223372036854775807::bigint"),
        (-2 ** 63, "(-9223372036854775808)::bigint"),
        ("grüße", "'grüße'::text"),
        (bs.key_char("ab  "), "'ab'::char(4)"),
        (bytearray(b"\x00\x01"), "'\\x0001'::bytea"),
        (memoryview(b"abc"), "'\\x616263'::bytea"),
        (uuid.UUID("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"), "'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid"),
        (datetime.date(1999, 12, 31), "'1999-12-31'::date"),
        (bs.key_date("infinity"), "'infinity'::date"),
        (datetime.datetime(2000, 1, 1, 5, 30, 1, tzinfo=ist), "'2000-01-01 00:00:01+00'::timestamptz"),
        (datetime.datetime(1969, 7, 20, 20, 17, 40, 123456), "'1969-07-20 20:17:40.123456'::timestamp"),
        (bs.key_timestamptz("-infinity"), "'-infinity'::timestamptz"),
    ]
    bad = []
    for value, expr in cases:
        cur.execute("SELECT bloomsketch_hash(%s)" % expr)
        if bs.bloomsketch_hash(value) != cur.fetchone()[0]:
            bad.append((value, expr))
    check(not bad, "bloomsketch_hash of %d Python values (Decimal('-0.000'), exponents, other time zones, "
          "UUID, bytearray, ...) = the server's of the same SQL value" % len(cases),
          "differ: %s" % bad)
    errors = []
    for value in (True, 1.5j, 2 ** 63, object()):
        try:
            bs.key(value)
            errors.append(value)
        except (TypeError, ValueError):
            pass
    try:
        bs.key_numeric(1.5)
        errors.append("key_numeric(1.5)")
    except TypeError:
        pass
    check(not errors, "the client refuses keys it cannot hash exactly (bool, complex, 2^63, object, "
          "a float as numeric)", "accepted: %s" % errors)


def check_bloom_membership(bs, cur, encoding, label, typ, expr, n, agg, tag):
    """A filter over keys 1..n from the server; the client's answers for
    keys 1..2n against @>."""
    fn = key_function(bs, typ, encoding)
    table = "k_" + tag
    cur.execute("CREATE TEMP TABLE %s AS SELECT x, %s AS v FROM generate_series(1, %d) x" % (table, expr, 2 * n))
    cur.execute("CREATE TEMP TABLE f_%s AS SELECT %s AS f FROM %s WHERE x <= %d" % (tag, agg, table, n))
    cur.execute("SELECT f::bytea, (bloom_info(f)).bits, (bloom_info(f)).hashes, bloom_fpr(f) FROM f_%s" % tag)
    raw, m, k, fpr = cur.fetchone()
    f = bs.load(raw)
    # the filter as a scalar subquery: read once, not once a row
    cur.execute("SELECT x, v, (SELECT f FROM f_%s) @> v FROM %s ORDER BY x" % (tag, table))
    disagree, false_neg, fp = [], 0, 0
    for x, v, server in cur:
        mine = f.contains(fn(v))
        if mine != server:
            disagree.append((x, v, server))
        if x <= n and not mine:
            false_neg += 1
        if x > n and mine:
            fp += 1
    check(isinstance(f, bs.Bloom) and f.m == m and f.k == k and not disagree and false_neg == 0,
          "%s over %d %s keys (%d bits, %d hashes): %d lookups, %d disagreements with @>, "
          "%d false negatives; %d false positives in %d absent keys (%.4f; bloom_fpr %.4f)"
          % (agg, n, label, m, k, 2 * n, len(disagree), false_neg, fp, n, fp / n, fpr),
          "first disagreements: %s" % disagree[:5])


def check_cbloom(bs, cur, n):
    """cbloom_agg over keys 1..n minus those over (0.8n, n]: membership and counts."""
    removed = int(n * 0.8)
    cur.execute("CREATE TEMP TABLE k_cb AS SELECT x, 'session-' || x AS v FROM generate_series(1, %d) x" % (2 * n))
    cur.execute("CREATE TEMP TABLE f_cb AS SELECT "
                "(SELECT cbloom_agg(v, %d, 0.01) FROM k_cb WHERE x <= %d) "
                "- (SELECT cbloom_agg(v, %d, 0.01) FROM k_cb WHERE x > %d AND x <= %d) AS f"
                % (n, n, n, removed, n))
    # keys 1..n/10 added a second time
    cur.execute("UPDATE f_cb SET f = f + (SELECT cbloom_agg(v, %d, 0.01) FROM k_cb WHERE x <= %d)"
                % (n, n // 10))
    cur.execute("SELECT f::bytea FROM f_cb")
    f = bs.load(cur.fetchone()[0])
    cur.execute("SELECT x, v, (SELECT f FROM f_cb) @> v, cbloom_count((SELECT f FROM f_cb), v) "
                "FROM k_cb ORDER BY x")
    disagree, false_neg, under = [], 0, 0
    for x, v, present, count in cur:
        key = bs.key_text(v)
        mine, mycount = f.contains(key), f.count(key)
        if (mine, mycount) != (present, count):
            disagree.append((x, v, present, count, mine, mycount))
        if x <= removed and not mine:
            false_neg += 1
        if x <= n // 10 and mycount < 2 or x <= removed and mycount < 1:
            under += 1
    check(isinstance(f, bs.CountingBloom) and not disagree and false_neg == 0 and under == 0,
          "cbloom of %d keys minus %d, %d added twice (%d %d-bit counters, %d hashes): %d lookups, "
          "%d disagreements with @> and cbloom_count, %d false negatives, %d under-counts"
          % (n, n - removed, n // 10, f.m, f.counter_bits, f.k, 2 * n, len(disagree), false_neg, under),
          "first disagreements: %s" % disagree[:5])


def check_cms_topk(bs, cur, n_rows, n_probes):
    cur.execute("CREATE TEMP TABLE stream AS SELECT x, 'page-' || (x %% (1 + x %% 1000)) AS v "
                "FROM generate_series(1, %s) x", (n_rows,))
    cur.execute("CREATE TEMP TABLE exact AS SELECT v, count(*) AS n FROM stream GROUP BY v")
    cur.execute("CREATE TEMP TABLE sk AS SELECT cms_agg(v) AS s, topk_agg(v, 10) AS t, "
                "cms_agg(length(v)::bigint, 0.01, 0.1) AS s2 FROM stream")
    cur.execute("SELECT s::bytea, t::bytea, s2::bytea FROM sk")
    s_raw, t_raw, s2_raw = cur.fetchone()
    s, t, s2 = bs.load(s_raw), bs.load(t_raw), bs.load(s2_raw)
    cur.execute("SELECT p.y, p.v, (SELECT s FROM sk) -> p.v, coalesce(e.n, 0) FROM "
                "(SELECT y, 'page-' || y AS v FROM generate_series(0, %s) y) p "
                "LEFT JOIN exact e USING (v) ORDER BY p.y", (n_probes - 1,))
    disagree, under, over = [], 0, 0
    for y, v, server, exact in cur:
        mine = s.frequency(v)
        if mine != server:
            disagree.append((y, v, server, mine))
        if mine < exact:
            under += 1
        over += mine > exact
    check(isinstance(s, bs.CountMin) and not disagree and under == 0 and s.total == n_rows,
          "cms_agg of %d rows (width %d, depth %d): %d estimates, %d disagreements with cms_frequency, "
          "%d below the true count (%d above it)"
          % (n_rows, s.width, s.depth, n_probes, len(disagree), under, over),
          "first disagreements: %s" % disagree[:5])
    cur.execute("SELECT y, sk.s2 -> y FROM generate_series(0, 20) y, sk ORDER BY y")
    rows = cur.fetchall()
    check(all(s2.frequency(y) == f for y, f in rows),
          "cms_agg over bigint lengths (width %d, depth %d): 21 estimates = cms_frequency"
          % (s2.width, s2.depth))
    cur.execute("SELECT value, frequency FROM topk_items((SELECT t FROM sk))")
    server_items = cur.fetchall()
    mine = t.items()
    check(mine == server_items and len(mine) == 10,
          "topk_agg(v, 10) of %d rows: the client's items = topk_items (%s ...)" % (n_rows, mine[:3]),
          "client %s\nserver %s" % (mine, server_items))
    # format 2: values dropped (capacity 100 and 1000 distinct values), weights, unions
    cur.execute("CREATE TEMP TABLE exact_w AS SELECT v, sum(length(v))::bigint AS n FROM stream GROUP BY v")
    cur.execute("CREATE TEMP TABLE tk AS "
                "SELECT 'topk_agg(v, 10)' AS what, 'exact' AS truth, (SELECT t FROM sk) AS t "
                "UNION ALL SELECT 'topk_agg(v, 10, 0.01, 0.05)', 'exact', topk_agg(v, 10, 0.01, 0.05) FROM stream "
                "UNION ALL SELECT 'topk_agg(v, 3, 0.02, 0.2)', 'exact', topk_agg(v, 3, 0.02, 0.2) FROM stream "
                "UNION ALL SELECT 'topk_agg_weighted(v, length(v), 10, 0.01, 0.05)', 'exact_w', "
                "topk_agg_weighted(v, length(v)::bigint, 10, 0.01, 0.05) FROM stream "
                "UNION ALL SELECT 'topk_union_agg of 4 topk_agg(v, 10, 0.01, 0.05)', 'exact', topk_union_agg(t) "
                "FROM (SELECT topk_agg(v, 10, 0.01, 0.05) AS t FROM stream GROUP BY x % 4) p")
    cur.execute("SELECT what, truth, t::bytea FROM tk ORDER BY what")
    floors = []
    for what, truth, raw in cur.fetchall():
        raw = bytes(raw)
        tk = bs.load(raw)
        problems = compare_topk(bs, cur, raw)
        cur.execute("SELECT p.v, (topk_bounds((SELECT t FROM tk WHERE what = %%s), p.v)).*, coalesce(e.n, 0) "
                    "FROM (SELECT y, 'page-' || y AS v FROM generate_series(0, %%s) y) p "
                    "LEFT JOIN %s e USING (v) ORDER BY p.y" % truth, (what, n_probes // 5 - 1))
        disagree, outside, held = [], [], 0
        for v, f, lower, upper, exact in cur:
            b = tk.bounds(v)
            if tuple(b) != (f, lower, upper):
                disagree.append((v, (f, lower, upper), tuple(b)))
            if not lower <= exact <= upper:
                outside.append((v, exact, (lower, upper)))
            held += tk.holds(v)
        info = tk.info()
        floors.append(info.untracked_max)
        if disagree or outside:
            problems.append("%d lookups differ (first %s), %d true counts outside the bounds (first %s)"
                            % (len(disagree), disagree[:3], len(outside), outside[:3]))
        check(not problems and tk.format_version == bs.TOPK_FORMAT and info.untracked_max is not None,
              "%s of %d rows (capacity %d, %d held, untracked_max %d): items and items_bounds (n = 1, k, "
              "capacity), topk_info and the bounds of %d values (%d held) = the server's; every true count "
              "is within its bounds" % (what, n_rows, info.capacity, info.candidates, info.untracked_max,
                                         n_probes // 5, held), "\n".join(problems))
    check(len(floors) == 5 and sum(1 for f in floors if f) >= 3,
          "values were dropped from %d of the 5 topk sketches (untracked_max > 0: %s)"
          % (sum(1 for f in floors if f), floors))


def compare_membership(cur, f, fn, tag, table, n):
    """The client's f.contains against the server's @> of f_<tag> for every row of table (x, v):
    rows x <= n hold the keys added.  Returns the disagreements, the false negatives, the false
    positives among the other rows, and the keys of the first n rows."""
    cur.execute("SELECT x, v, (SELECT f FROM f_%s) @> v FROM %s ORDER BY x" % (tag, table))
    disagree, false_neg, fp, present = [], 0, 0, []
    for x, v, server in cur:
        key = fn(v)
        mine = f.contains(key)
        if mine != server:
            disagree.append((x, v, server))
        if x <= n:
            present.append(key)
            false_neg += not mine
        else:
            fp += mine
    return disagree, false_neg, fp, present


def check_blocked_filter(bs, cur, encoding, label, typ, expr, n, make, tag, build):
    """A blocked filter made in SQL over keys 1..n (make: an aggregate over
    the table's v, or a DO block that fills f_TAG), compared with the client:
    its answers for keys 1..2n are @>'s, build(keys) makes the same bytes,
    and its estimates are bloom_info's."""
    fn = key_function(bs, typ, encoding)
    table = "kb_" + tag
    cur.execute("CREATE TEMP TABLE %s AS SELECT x, %s AS v FROM generate_series(1, %d) x" % (table, expr, 2 * n))
    if make.startswith("DO "):
        cur.execute(make % {"table": table, "n": n, "tag": tag})
    else:
        cur.execute("CREATE TEMP TABLE f_%s AS SELECT %s AS f FROM %s WHERE x <= %d" % (tag, make, table, n))
    cur.execute("SELECT f::bytea, (bloom_info(f)).*, bloom_cardinality(f), bloom_fpr(f) FROM f_%s" % tag)
    row = cur.fetchone()
    raw, names = bytes(row[0]), [d[0] for d in cur.description]
    info = dict(zip(names[1:], row[1:]))
    f = bs.load(raw)
    disagree, false_neg, fp, present = compare_membership(cur, f, fn, tag, table, n)
    problems = []
    if not isinstance(f, bs.Bloom) or f.layout != bs.LAYOUT_BLOCKED or info["layout"] != "blocked":
        problems.append("not a blocked bloom: %r, layout %s" % (f, info["layout"]))
    if disagree or false_neg:
        problems.append("%d disagreements with @> (first %s), %d false negatives"
                        % (len(disagree), disagree[:5], false_neg))
    mine = build(present)
    if mine.to_bytes() != raw:
        diff = next(i for i, (a, b) in enumerate(zip(mine.to_bytes() + b"\0", raw + b"\0")) if a != b)
        problems.append("the client's filter of the same keys differs from byte %d (%d bits and %d hashes, "
                        "the server's %d and %d)" % (diff, mine.m, mine.k, f.m, f.k))
    est = (f.cardinality(), f.fpr(), f.bits_set())
    if est != (info["estimated_cardinality"], info["estimated_fpr"], info["bits_set"]) or \
            est[:2] != (info["bloom_cardinality"], info["bloom_fpr"]):
        problems.append("estimates: client %r, bloom_info %r, bloom_cardinality %r, bloom_fpr %r"
                        % (est, (info["estimated_cardinality"], info["estimated_fpr"], info["bits_set"]),
                           info["bloom_cardinality"], info["bloom_fpr"]))
    check(not problems,
          "%s over %d %s keys (%d bits = %d blocks, %d hashes): %d lookups = @>, no false negative "
          "(%d false positives in %d absent keys, %.4f); the client's filter of the keys is the same "
          "%d bytes; cardinality %.1f and fpr %.3g = bloom_info's"
          % (make.split("(")[0] + "(...)" if make.startswith("DO ") else make, n, label, f.m,
             f.m // bs.BLOCK_BITS, f.k, 2 * n, fp, n, fp / n, len(raw), est[0], est[1]),
          "\n".join(problems))
    return f


def check_blocked(bs, cur, encoding):
    """The blocked layout: filters made in SQL against the client."""
    def client_for(capacity, fpr):
        """The client's filter: bloom_empty(capacity, fpr, 'blocked'), then the keys
        (the first one sets the family, as the aggregate's argument type does)."""
        def build(keys):
            g = bs.Bloom.empty_for(capacity, fpr, "blocked")
            for k in keys:
                g.add(k)
            return g
        return build

    def client_auto(fpr):
        """bloom_agg(v, NULL, fpr, 'blocked') of a group: sized for its distinct keys."""
        return lambda keys: client_for(len({k.data for k in keys}), fpr)(keys)

    fams = {label: (typ, expr) for label, typ, expr in key_types(encoding == "utf_8")}
    # bloom_agg(v, capacity, fpr, 'blocked'): the fixed shape, several families, one overfull
    for label, n, cap, fpr in [("bigint", 50000, 60000, 0.01), ("text", 30000, 30000, 0.001),
                               ("uuid", 20000, 25000, 0.02), ("numeric", 5000, 5000, 0.05),
                               ("timestamptz", 5000, 5000, 0.01), ("integer", 3000, 500, 0.1)]:
        typ, expr = fams[label]
        check_blocked_filter(bs, cur, encoding, label, typ, expr, n,
                             "bloom_agg(v, %d, %s, 'blocked')" % (cap, fpr), "agg_" + label,
                             client_for(cap, fpr))
    # bloom_empty(capacity, fpr, 'blocked') and bloom_add, key by key
    for label, n, cap, fpr in [("bigint", 3000, 3000, 0.01), ("text", 2000, 4000, 0.001),
                               ("bytea", 1000, 1000, 0.05)]:
        typ, expr = fams[label]
        make = ("DO $$ DECLARE f bloom := bloom_empty(%d, %s, 'blocked'); r record; BEGIN "
                "FOR r IN SELECT v FROM %%(table)s WHERE x <= %%(n)s ORDER BY x LOOP f := bloom_add(f, r.v); "
                "END LOOP; CREATE TEMP TABLE f_%%(tag)s AS SELECT f; END $$" % (cap, fpr))
        check_blocked_filter(bs, cur, encoding, label, typ, expr, n, make, "add_" + label,
                             client_for(cap, fpr))
    # bloom_agg(v, NULL, fpr, 'blocked'): sized for the distinct count of the group
    for label, n, fpr in [("bigint", 50000, 0.01), ("text", 20000, 0.001), ("float8", 5000, 0.05),
                          ("date", 2000, 0.01), ("varchar", 10, 0.01), ("smallint", 1, 0.2)]:
        typ, expr = fams[label]
        check_blocked_filter(bs, cur, encoding, label, typ, expr, n,
                             "bloom_agg(v, NULL, %s, 'blocked')" % fpr, "auto_" + label, client_auto(fpr))

    # past 2^20 distinct values: the dense phase, folded by whole blocks (sampled lookups)
    n = (1 << 20) + 50000
    cur.execute("CREATE TEMP TABLE f_dense AS SELECT bloom_agg(x, NULL, 0.01, 'blocked') AS f "
                "FROM generate_series(1, %d) x" % n)
    cur.execute("SELECT f::bytea, (bloom_info(f)).estimated_cardinality, (bloom_info(f)).estimated_fpr "
                "FROM f_dense")
    raw, card, fpr = cur.fetchone()
    f = bs.load(raw)
    cur.execute("SELECT x, (SELECT f FROM f_dense) @> x FROM generate_series(1, %d, 53) x" % (2 * n))
    rows = cur.fetchall()
    disagree = [(x, server) for x, server in rows if f.contains(x) != server]
    false_neg = sum(1 for x, _ in rows if x <= n and not f.contains(x))
    check(f.layout == bs.LAYOUT_BLOCKED and not disagree and false_neg == 0
          and (f.cardinality(), f.fpr()) == (card, fpr),
          "bloom_agg(x, NULL, 0.01, 'blocked') over %d bigints (dense phase, folded to %d bits, %d hashes): "
          "%d sampled lookups = @>, no false negative; cardinality %.0f and fpr %.4f = bloom_info's"
          % (n, f.m, f.k, len(rows), card, fpr),
          "disagreements %s, %d false negatives, client estimates %r" % (disagree[:5], false_neg,
                                                                          (f.cardinality(), f.fpr())))

    # the sizing: the client's shapes and rates are the server's
    bad, cases = [], 0
    for n in (1, 2, 7, 20, 100, 999, 1000, 12345, 100000, 1000000):
        for p in (0.5, 0.2, 0.1, 0.05, 0.02, 0.01, 0.001, 1e-4, 1e-6, 1e-10):
            for layout in ("classic", "blocked"):
                cur.execute("SELECT bloom_optimal_bits(%s, %s, %s) AS m", (n, p, layout))
                m = cur.fetchone()[0]
                cur.execute("SELECT bloom_optimal_hashes(%s, %s, %s), (bloom_info(bloom_empty(%s, %s, %s))).bits",
                            (m, n, layout, n, p, layout))
                k, m2 = cur.fetchone()
                cur.execute("SELECT bloom_fpr_estimate(%s, %s, %s, %s)", (m, n, k, layout))
                fe = cur.fetchone()[0]
                cases += 1
                mine = bs.optimal_shape(n, p, layout)
                mine_fpr = bs.blocked_fpr(m, n, k) if layout == "blocked" else None
                if mine != (m, k) or m2 != m or (layout == "blocked" and mine_fpr != fe):
                    bad.append((n, p, layout, (m, k), fe, mine, mine_fpr))
    check(not bad, "sizing of %d (capacity, fpr, layout): the client's optimal_shape = bloom_optimal_bits and "
          "bloom_optimal_hashes (= bloom_empty's), and its blocked_fpr = bloom_fpr_estimate exactly" % cases,
          "differ: %s" % bad[:5])

    # the client refuses what the server refuses
    refusals = []
    for args, sql in [((1000, 3, "blocked"), "bloom_empty_bits(1000, 3, 'blocked')"),
                      ((1024, 3, "cached"), "bloom_empty_bits(1024, 3, 'cached')"),
                      ((1024, 3, 2), None)]:
        try:
            bs.Bloom.empty(*args)
            refusals.append(args)
        except ValueError:
            pass
        if sql:
            try:
                cur.execute("SELECT " + sql)
                refusals.append(sql)
            except Exception:
                pass
    check(not refusals, "a blocked filter of 1000 bits and an unknown layout are refused by the client "
          "(ValueError) and by the server", "accepted: %s" % refusals)


GROWABLE_SQL = "bloom_empty(%d, %s, growth => %d%s)"


def growable_sql(capacity, fpr, growth, layout):
    """The SQL of bloom_empty(capacity, fpr, growth => growth [, layout])."""
    return GROWABLE_SQL % (capacity, fpr, growth, ", layout => 'blocked'" if layout == "blocked" else "")


def fill_growable(cur, table, lo, hi, make, tag):
    """f_TAG: the filter make (SQL) with bloom_add of table's v for x in
    [lo, hi], one key at a time in the order of x (a DO block)."""
    cur.execute("DO $$ DECLARE f bloom := %s; r record; BEGIN "
                "FOR r IN SELECT v FROM %s WHERE x BETWEEN %d AND %d ORDER BY x LOOP f := bloom_add(f, r.v); "
                "END LOOP; CREATE TEMP TABLE f_%s AS SELECT f; END $$" % (make, table, lo, hi, tag))


def check_growable_filter(bs, cur, encoding, label, typ, expr, n, layout, tag):
    """A growable filter of layout made in SQL from keys 1..n, key by key:
    the client's answers for keys 1..2n are @>'s, it builds the same bytes
    from the same keys, its stages are bloom_stages' rows and its estimates
    bloom_info's.  Returns the table of the keys and the client's filter."""
    fn = key_function(bs, typ, encoding)
    table = "kg_" + tag
    make = growable_sql(200, 0.01, 2, layout)
    cur.execute("CREATE TEMP TABLE %s AS SELECT x, %s AS v FROM generate_series(1, %d) x" % (table, expr, 2 * n))
    fill_growable(cur, table, 1, n, make, tag)
    cur.execute("SELECT f::bytea, (bloom_info(f)).*, bloom_cardinality(f), bloom_fpr(f) FROM f_%s" % tag)
    row = cur.fetchone()
    raw, names = bytes(row[0]), [d[0] for d in cur.description]
    info = dict(zip(names[1:], row[1:]))
    cur.execute("SELECT * FROM bloom_stages((SELECT f FROM f_%s))" % tag)
    server_stages = [tuple(r) for r in cur.fetchall()]
    problems = []
    f = bs.load(raw)
    if not isinstance(f, bs.GrowableBloom) or f.layout_name != layout:
        problems.append("not a growable filter of %s stages: %r" % (layout, f))
        check(False, "growable %s filter over %d %s keys" % (layout, n, label), "\n".join(problems))
        return table, None
    disagree, false_neg, fp, present = compare_membership(cur, f, fn, tag, table, n)
    if disagree or false_neg:
        problems.append("%d disagreements with @> (first %s), %d false negatives"
                        % (len(disagree), disagree[:5], false_neg))
    mine = bs.GrowableBloom.empty(200, 0.01, 2, layout)
    for k in present:
        mine.add(k)
    if mine.to_bytes() != raw:
        diff = next(i for i, (a, b) in enumerate(zip(mine.to_bytes() + b"\0", raw + b"\0")) if a != b)
        problems.append("the client's filter of the same keys differs from byte %d (stages %s, the server's %s)"
                        % (diff, [(s.m, s.k, c) for s, c in zip(mine.stages, mine.counts)],
                           [(s.m, s.k, c) for s, c in zip(f.stages, f.counts)]))
    stages = [tuple(st) for st in f.stage_info()]
    if stages != server_stages:
        problems.append("stages: client %s\nbloom_stages %s" % (stages, server_stages))
    est = (f.cardinality(), f.fpr())
    # bytes: the value's size with its 4-byte varlena header
    want = {"bits": f.total_bits(), "hashes": None, "bits_set": f.bits_set(), "estimated_cardinality": est[0],
            "estimated_fpr": est[1], "bytes": len(raw) + 4, "layout": layout, "growth": 2, "stages": len(f.stages),
            "bloom_cardinality": est[0], "bloom_fpr": est[1]}
    got = {name: info.get(name) for name in want}
    if got != want:
        problems.append("bloom_info, bloom_cardinality, bloom_fpr %s; the client's %s" % (got, want))
    check(not problems,
          "growable %s filter (%s) over %d %s keys (%d stages, %d bits): %d lookups = @>, no false negative "
          "(%d false positives in %d absent keys, %.4f); the client's filter of the keys is the same %d bytes; "
          "stages = bloom_stages; cardinality %.1f and fpr %.3g = bloom_info's"
          % (layout, make, n, label, len(f.stages), f.total_bits(), 2 * n, fp, n, fp / n, len(raw), est[0], est[1]),
          "\n".join(problems))
    return table, f


def check_growable(bs, cur, encoding, psycopg2):
    """Growable filters (bloom_empty(capacity, fpr, growth => s [, layout])):
    filters made in SQL against the client, unions, refusals."""
    fams = {label: (typ, expr) for label, typ, expr in key_types(encoding == "utf_8")}
    for layout in ("classic", "blocked"):
        for label, n in [("bigint", 3000), ("text", 2000), ("uuid", 1000), ("timestamptz", 500)]:
            typ, expr = fams[label]
            tag = "%s_%s" % (layout, label)
            table, f = check_growable_filter(bs, cur, encoding, label, typ, expr, n, layout, tag)
            if label != "bigint" or f is None:
                continue
            # unions of filters with overlapping keys and different stage counts
            make = growable_sql(200, 0.01, 2, layout)
            fill_growable(cur, table, 2500, 3300, make, tag + "_b")
            fill_growable(cur, table, 4000, 4100, make, tag + "_c")
            cur.execute("SELECT a.f::bytea, b.f::bytea, c.f::bytea, (a.f | b.f)::bytea, bloom_union(b.f, a.f)::bytea, "
                        "(a.f | c.f)::bytea, (SELECT bloom_union_agg(f ORDER BY i)::bytea FROM (VALUES "
                        "(1, a.f), (2, b.f), (3, c.f)) u(i, f)), (%s | a.f)::bytea "
                        "FROM f_%s a, f_%s_b b, f_%s_c c" % (make, tag, tag, tag))
            a, b, c, ab, ba, ac, abc, ea = (bs.load(v) for v in cur.fetchone())
            problems = []
            mine = [a | b, b | a, a | c, (a | b) | c, bs.GrowableBloom.empty(200, 0.01, 2, layout) | a]
            server = [ab, ba, ac, abc, ea]
            for what, x, y in zip(["a | b", "bloom_union(b, a)", "a | c", "bloom_union_agg(a, b, c)",
                                   "empty | a"], mine, server):
                if x.to_bytes() != y.to_bytes():
                    problems.append("%s: client counts %s, server %s; stages %d and %d"
                                    % (what, x.counts, y.counts, len(x.stages), len(y.stages)))
            cur.execute("SELECT x, v FROM %s WHERE x BETWEEN 1 AND 3300 ORDER BY x" % table)
            fn = key_function(bs, typ, encoding)
            missing = sum(1 for x, v in cur if not ab.contains(fn(v)))
            if missing:
                problems.append("%d of the keys of a or b not in a | b" % missing)
            check(not problems and len(a.stages) > len(b.stages) > len(c.stages),
                  "growable %s: a | b, bloom_union(b, a), a | c, bloom_union_agg and empty | a of filters "
                  "of %d, %d and %d stages (%s, %s and %s keys counted): the client's unions are the "
                  "server's, byte for byte (counts %s); a | b holds all keys of both"
                  % (layout, len(a.stages), len(b.stages), len(c.stages), a.counts, b.counts, c.counts,
                     ab.counts), "\n".join(problems))

    # the 64-stage limit: growth 1 and capacity 1 open a stage for each new key (at the
    # rate 0.9, stage 63's 0.9 2^-64 still takes 64 hashes; at 0.5 it would take 65)
    g = bs.GrowableBloom.empty(1, 0.9, 1)
    keys = 0
    try:
        while True:
            g.add(keys + 1)
            keys += 1
    except ValueError as e:
        client = str(e)
    sql = growable_sql(1, 0.9, 1, "classic")
    for x in range(1, keys + 1):
        sql = "bloom_add(%s, %d)" % (sql, x)
    cur.execute("SELECT (%s)::bytea" % sql)
    full = bytes(cur.fetchone()[0])
    try:
        cur.execute("SELECT bloom_add(%s::bytea::bloom, %s)", (full, keys + 1))
        server, code = None, None
    except psycopg2.Error as e:
        server, code = e.diag.message_primary, e.pgcode
    check(len(g.stages) == 64 and full == g.to_bytes() and code == "54000" and server == client,
          "bloom_empty(1, 0.9, growth => 1) holds %d keys in 64 stages, the same bytes in the client and the "
          "server; the next key raises ValueError(%r) in the client, %s %r in the server"
          % (keys, client, code, server))

    # what does not merge: the client refuses it as the server does
    cur.execute("SELECT bloom_add(%s, 1)::bytea" % growable_sql(200, 0.01, 2, "classic"))
    base = bs.load(cur.fetchone()[0])
    refused = []
    for other_sql, other in [
            (growable_sql(200, 0.01, 3, "classic"), bs.GrowableBloom.empty(200, 0.01, 3)),
            (growable_sql(300, 0.01, 2, "classic"), bs.GrowableBloom.empty(300, 0.01, 2)),
            (growable_sql(200, 0.02, 2, "classic"), bs.GrowableBloom.empty(200, 0.02, 2)),
            (growable_sql(200, 0.01, 2, "blocked"), bs.GrowableBloom.empty(200, 0.01, 2, "blocked")),
            ("bloom_add(%s, 'x'::text)" % growable_sql(200, 0.01, 2, "classic"),
             bs.GrowableBloom.empty(200, 0.01, 2).add("x")),
            ("bloom_empty(200, 0.01)", bs.Bloom.empty_for(200, 0.01))]:
        try:
            base.union(other)
            refused.append("client merged it with %s" % other_sql)
        except (ValueError, bs.FamilyError):
            pass
        try:
            cur.execute("SELECT %%s::bytea::bloom | %s" % other_sql, (base.to_bytes(),))
            refused.append("server merged it with %s" % other_sql)
        except psycopg2.Error:
            pass
    for sql in ["bloom_intersection(%s, %s)" % ((growable_sql(200, 0.01, 2, "classic"),) * 2),
                "bloom_intersection(bloom_empty(200, 0.01), %s)" % growable_sql(200, 0.01, 2, "classic"),
                growable_sql(200, 0.01, 0, "classic"), growable_sql(200, 0.01, 65, "classic"),
                growable_sql(0, 0.01, 2, "classic"), growable_sql(200, 1.0, 2, "classic")]:
        try:
            cur.execute("SELECT " + sql)
            refused.append("server accepted " + sql)
        except psycopg2.Error:
            pass
    for args in [(200, 0.01, 0), (200, 0.01, 65), (0, 0.01, 2), (200, 1.0, 2), (200, 0.01, 2, "cached")]:
        try:
            bs.GrowableBloom.empty(*args)
            refused.append("client made GrowableBloom.empty%r" % (args,))
        except ValueError:
            pass
    check(not refused, "growable filters of another growth, capacity, fpr or stage layout, of another key family, "
          "and a plain filter do not merge with a growable one, in the client and the server; "
          "bloom_intersection refuses growable filters; growth 0 and 65, capacity 0 and fpr 1 are refused",
          "\n".join(refused))
    plain = []
    for sql in ("bloom_add(bloom_empty(100, 0.01), 1)", "bloom_add(bloom_empty(100, 0.01, 'blocked'), 1)"):
        cur.execute("SELECT (%s)::bytea" % sql)
        raw = bytes(cur.fetchone()[0])
        cur.execute("SELECT * FROM bloom_stages(%s::bytea::bloom)", (raw,))
        plain.append(([tuple(st) for st in bs.load(raw).stage_info()], [tuple(r) for r in cur.fetchall()]))
    check(all(mine == server for mine, server in plain),
          "bloom_stages of a fixed filter (classic and blocked) is the client's one stage without capacity, "
          "target and count", "client, server: %s" % plain)
    try:
        base.contains("1")
        client = None
    except bs.FamilyError as e:
        client = str(e)
    try:
        cur.execute("SELECT %s::bytea::bloom @> '1'::text", (base.to_bytes(),))
        code = None
    except psycopg2.Error as e:
        code = e.pgcode
    check(client is not None and code == "42804" and base.contains(1),
          "a text key in a growable filter of integers: the client raises FamilyError(%r), the server %s"
          % (client, code))


def corrupt(buf, offset, data):
    b = bytearray(buf)
    b[offset:offset + len(data)] = data
    return bytes(b)


def check_corruption(bs, cur, psycopg2):
    """Corrupted sketches: the client raises FormatError with the server's
    message, and the server rejects the bytes (22P03)."""
    cur.execute("SELECT bloom_add(bloom_add(bloom_empty_bits(61, 3), 42), 7)::bytea, "
                "cms_add(cms_empty_dims(4, 2), 'x', 3)::bytea, "
                "cbloom_add(cbloom_empty(3, 0.1), 42)::bytea, "
                "bloom_add(bloom_add(bloom_empty_bits(1024, 9, 'blocked'), 42), 7)::bytea")
    bloom, cms, cbloom, blocked = (bytes(v) for v in cur.fetchone())
    # growable filters of 3 stages (10, 20 and 10 of 40 keys counted)
    grow = {}
    for layout in ("classic", "blocked"):
        sql = growable_sql(10, 0.05, 2, layout)
        for i in range(1, 41):
            sql = "bloom_add(%s, %d)" % (sql, i)
        cur.execute("SELECT (%s)::bytea" % sql)
        grow[layout] = bytes(cur.fetchone()[0])
    g, gb = grow["classic"], grow["blocked"]
    g_stages = bs.load(g).stages
    bits0 = HEADER + 24 * len(g_stages)             # stage 0's first byte
    m0 = g_stages[0].m
    u64 = lambda v: v.to_bytes(8, "little")  # noqa: E731
    u32 = lambda v: v.to_bytes(4, "little")  # noqa: E731
    cases = [
        ("bloom", "empty", b""),
        ("bloom", "47 bytes", bloom[:47]),
        ("bloom", "truncated by one byte", bloom[:-1]),
        ("bloom", "one byte appended", bloom + b"\0"),
        ("bloom", "bad magic", corrupt(bloom, 0, b"BSKX")),
        ("bloom", "format version 2", corrupt(bloom, 4, b"\x02")),
        ("bloom", "kind cms", corrupt(bloom, 5, b"\x03")),
        ("bloom", "kind 9", corrupt(bloom, 5, b"\x09")),
        ("bloom", "hash algorithm 2", corrupt(bloom, 6, b"\x02")),
        ("bloom", "key family 10", corrupt(bloom, 7, b"\x0a")),
        ("bloom", "m = 0", corrupt(bloom, 16, u64(0))),
        ("bloom", "m = 65", corrupt(bloom, 16, u64(65))),
        ("bloom", "k = 0", corrupt(bloom, 24, u32(0))),
        ("bloom", "k = 65", corrupt(bloom, 24, u32(65))),
        ("bloom", "layout 1 (blocked) at 61 bits", corrupt(bloom, 28, u32(1))),
        ("bloom", "layout 2", corrupt(bloom, 28, u32(2))),
        ("bloom", "reserved x", corrupt(bloom, 40, u64(1))),
        ("bloom", "a bit past m", corrupt(bloom, len(bloom) - 1, bytes([bloom[-1] | 0x80]))),
        ("bloom", "blocked: layout 2", corrupt(blocked, 28, u32(2))),
        ("bloom", "blocked: layout 2^32 - 1", corrupt(blocked, 28, u32(0xFFFFFFFF))),
        ("bloom", "blocked: m = 1000", corrupt(blocked, 16, u64(1000))),
        ("bloom", "blocked: m = 1536", corrupt(blocked, 16, u64(1536))),
        ("bloom", "blocked: m = 0", corrupt(blocked, 16, u64(0))),
        ("bloom", "blocked: k = 65", corrupt(blocked, 24, u32(65))),
        ("bloom", "blocked: reserved n", corrupt(blocked, 32, u64(1))),
        ("bloom", "blocked: truncated by one byte", blocked[:-1]),
        ("growable", "n0 = 0", corrupt(g, 16, u64(0))),
        ("growable", "n0 = 2^53 + 1", corrupt(g, 16, u64((1 << 53) + 1))),
        ("growable", "n0 = 2^52: the third stage past 2^53 keys", corrupt(g, 16, u64(1 << 52))),
        ("growable", "growth 0", corrupt(g, 24, u32(0))),
        ("growable", "growth 65", corrupt(g, 24, u32(65))),
        ("growable", "layout 6", corrupt(g, 28, u32(6))),
        ("growable", "layout 2^32 - 1", corrupt(g, 28, u32(0xFFFFFFFF))),
        ("growable", "stage count 0", corrupt(g, 32, u64(0))),
        ("growable", "stage count 2 (of 3)", corrupt(g, 32, u64(2))),
        ("growable", "stage count 4 (of 3)", corrupt(g, 32, u64(4))),
        ("growable", "stage count 65", corrupt(g, 32, u64(65))),
        ("growable", "fpr 0", corrupt(g, 40, u64(0))),
        ("growable", "fpr 1", corrupt(g, 40, struct.pack("<d", 1.0))),
        ("growable", "fpr -0.5", corrupt(g, 40, struct.pack("<d", -0.5))),
        ("growable", "fpr NaN", corrupt(g, 40, u64(0x7FF8000000000000))),
        ("growable", "stage 1: m = 0", corrupt(g, HEADER + 24, u64(0))),
        ("growable", "stage 1: m + 8", corrupt(g, HEADER + 24, u64(g_stages[1].m + 8))),
        ("growable", "stage 1: k = 0", corrupt(g, HEADER + 24 + 8, u32(0))),
        ("growable", "stage 1: k = 65", corrupt(g, HEADER + 24 + 8, u32(65))),
        ("growable", "stage 1: reserved field 1", corrupt(g, HEADER + 24 + 12, u32(1))),
        ("growable", "stage 2: count 2^53 + 1", corrupt(g, HEADER + 48 + 16, u64((1 << 53) + 1))),
        ("growable", "truncated by one byte", g[:-1]),
        ("growable", "one byte appended", g + b"\0"),
        ("growable", "the directory alone", g[:bits0]),
        ("growable", "half a directory entry", g[:HEADER + 12]),
        ("growable", "a bit past stage 0's last bit %d" % (m0 - 1), corrupt(g, bits0 + (m0 + 7) // 8 - 1, b"\xff")),
        ("growable", "blocked: stage 0: m = 1000", corrupt(gb, HEADER, u64(1000))),
        ("growable", "blocked: stage 2: m + 512", corrupt(gb, HEADER + 48, u64(bs.load(gb).stages[2].m + 512))),
        ("growable", "blocked: stage 0: k = 65", corrupt(gb, HEADER + 8, u32(65))),
        ("growable", "blocked: stage count 2 (of 3)", corrupt(gb, 32, u64(2))),
        ("cms", "a counter changed", corrupt(cms, 48, u64(1) if cms[48] != 1 else u64(2))),
        ("cms", "depth 0", corrupt(cms, 24, u32(0))),
        ("cms", "total past 2^63 - 1", corrupt(cms, 32, u64(1 << 63))),
        ("cms", "reserved p3", corrupt(cms, 28, u32(1))),
        ("cbloom", "counter bits 5", corrupt(cbloom, 28, u32(5))),
        ("cbloom", "unused half byte", corrupt(cbloom, len(cbloom) - 1, bytes([cbloom[-1] | 0x10]))),
        ("cbloom", "reserved n", corrupt(cbloom, 32, u64(1))),
    ]
    classes = {"bloom": bs.Bloom, "cms": bs.CountMin, "cbloom": bs.CountingBloom, "growable": bs.load}
    for kind, what, data in cases:
        try:
            classes[kind](data)
            client, client_ok = None, False
        except bs.FormatError as e:
            client, client_ok = str(e), True
        except Exception as e:  # any other exception is a failure of the client
            client, client_ok = "%s: %s" % (type(e).__name__, e), False
        try:
            cur.execute("SELECT %%s::bytea::%s" % {"growable": "bloom"}.get(kind, kind), (data,))
            server, code = None, None
        except psycopg2.Error as e:
            server, code = e.diag.message_primary, e.pgcode
        check(client_ok and code == "22P03" and client == server,
              "%s, %s: the client raises FormatError(%r), the server %s %r"
              % (kind, what, client, code, server))
    # a key of another family
    f = bs.load(bloom)
    try:
        f.contains("42")
        client = None
    except bs.FamilyError as e:
        client = str(e)
    try:
        cur.execute("SELECT %s::bytea::bloom @> '42'::text", (bloom,))
        code = None
    except psycopg2.Error as e:
        code = e.pgcode
    check(client is not None and code == "42804",
          "a text key in an integer filter: the client raises FamilyError(%r), the server %s" % (client, code))
    check(f.contains(42) and f.contains(7) and f.bits_set() <= 6,
          "the uncorrupted filter holds 42 and 7")
    problems = []
    for layout, data in grow.items():
        try:
            cur.execute("SELECT %s::bytea::bloom @> 40, %s::bytea::bloom @> 41", (data, data))
            server = cur.fetchone()
            f = bs.load(data)
            if not (isinstance(f, bs.GrowableBloom) and f.counts == [10, 20, 10] and f.layout_name == layout
                    and (f.contains(40), f.contains(41)) == server == (True, False)):
                problems.append("%s: counts %s, @> 40 and 41 %s" % (layout, f.counts, server))
        except (psycopg2.Error, bs.FormatError) as e:
            problems.append("%s: %s" % (layout, e))
    check(not problems, "the uncorrupted growable filters (classic and blocked) hold 40 keys in 3 stages "
          "counting 10, 20 and 10, and not 41", "\n".join(problems))
    fb = bs.load(blocked)
    check(fb.layout == bs.LAYOUT_BLOCKED and fb.contains(42) and fb.contains(7) and fb.bits_set() <= 18,
          "the uncorrupted blocked filter holds 42 and 7")


def validate_both(bs, cur, psycopg2, data):
    """(client, server) for bytes data cast to topk: None if accepted, else the error message
    (the server's with its SQLSTATE if that is not 22P03; the client's type if not FormatError)."""
    try:
        bs.TopK(data)
        client = None
    except bs.FormatError as e:
        client = str(e)
    except Exception as e:  # any other exception is a failure of the client
        client = "%s: %s" % (type(e).__name__, e)
    try:
        cur.execute("SELECT %s::bytea::topk", (data,))
        server = None
    except psycopg2.Error as e:
        server = e.diag.message_primary if e.pgcode == "22P03" else "%s %s" % (e.pgcode, e.diag.message_primary)
    return client, server


def items_both(bs, cur, psycopg2, data):
    """topk_items_bounds(t, capacity) of valid bytes data, from the client and from the server
    (the error's SQLSTATE or exception type where they raise one: a text key that is not UTF-8)."""
    t = bs.TopK(data)
    try:
        client = [(sql_text(r[0]),) + tuple(r[1:]) for r in t.items_bounds(t.capacity)]
    except (ValueError, OverflowError) as e:
        client = "error %s" % type(e).__name__
    try:
        cur.execute("SELECT * FROM topk_items_bounds(%%s::bytea::topk, %d)" % t.capacity, (data,))
        server = [tuple(r) for r in cur.fetchall()]
    except psycopg2.Error as e:
        server = "error %s" % e.pgcode
    if isinstance(client, str) and isinstance(server, str):
        return client, client               # both refuse to print the keys
    return client, server


def check_topk_corruption(bs, cur, psycopg2):
    """Corrupted topk values of both formats: the client accepts what the server accepts (and
    then reads it as the server does), and rejects the rest with FormatError and the server's
    message (22P03).  Named cases of every check of check_v2 and bs_topk1_check, then every
    byte of three values set to 0x00, 0xff and flipped in its low bit, and every prefix."""
    cur.execute("SELECT (SELECT topk_agg(v, 2, 0.34, 0.5) "
                "FROM unnest(ARRAY['a', 'b', 'b', 'c', 'c', 'c']) v)::bytea, "
                "(SELECT topk_agg(v, 1, 0.5, 0.5 ORDER BY i) "
                "FROM unnest(ARRAY[1, 2, 3, 3, 2, 1, 4, 4, 4, 4, 5, 6, 7]::bigint[]) "
                "WITH ORDINALITY AS s(v, i))::bytea")
    t2, t3 = (bytes(v) for v in cur.fetchone())
    v1 = bytes.fromhex(next(r["hex"] for r in parse_sketches() if r["name"] == "topk_text"))
    a, b = bs.TopK(t2), bs.TopK(t3)
    check(a.format_version == 2 and b.format_version == 2 and bs.TopK(v1).format_version == 1
          and [e.key for e in a.entries] == [b"b", b"c", b"a"] and a.floor == 0 and b.floor > 0,
          "topk values to corrupt: format 2 holding b, c and a in hash order (floor 0), format 2 with values "
          "dropped (floor %d), the frozen format-1 topk_text" % b.floor)
    u64 = lambda v: v.to_bytes(8, "little")  # noqa: E731
    u32 = lambda v: v.to_bytes(4, "little")  # noqa: E731
    cb = HEADER + 8 * a.width * a.depth         # floor
    rec = cb + 8                                # entry 0
    keys = rec + bs.TOPK_RECORD * len(a.entries)
    cases = [
        # (what, bytes, accepted)
        ("format 2: empty", b"", False),
        ("format 2: the header alone", t2[:HEADER], False),
        ("format 2: format version 3", corrupt(t2, 4, b"\x03"), False),
        ("format 2: format version 0", corrupt(t2, 4, b"\x00"), False),
        ("format 2: kind cms", corrupt(t2, 5, b"\x03"), False),
        ("format 2: hash algorithm 2", corrupt(t2, 6, b"\x02"), False),
        ("format 2: k = 0", corrupt(t2, 28, u32(0)), False),
        ("format 2: k = 3, capacity 4 below 2k", corrupt(t2, 28, u32(3)), False),
        ("format 2: k = 10001", corrupt(t2, 28, u32(10001)), False),
        ("format 2: k = 1", corrupt(t2, 28, u32(1)), True),
        ("format 2: width 0", corrupt(t2, 16, u64(0)), False),
        ("format 2: width 9", corrupt(t2, 16, u64(9)), False),
        ("format 2: depth 0", corrupt(t2, 24, u32(0)), False),
        ("format 2: depth 65", corrupt(t2, 24, u32(65)), False),
        ("format 2: total past 2^63 - 1", corrupt(t2, 32, u64(1 << 63)), False),
        ("format 2: total 7, a row sums to 6", corrupt(t2, 32, u64(7)), False),
        ("format 2: total 5, the lower counts sum past it", corrupt(t2, 32, u64(5)), False),
        ("format 2: capacity 3", corrupt(t2, 40, u32(3)), False),
        ("format 2: capacity 1000001", corrupt(t2, 40, u32(1000001)), False),
        ("format 2: capacity 5", corrupt(t2, 40, u32(5)), True),
        ("format 2: 9 values held, capacity 4", corrupt(t2, 44, u32(9)), False),
        ("format 2: 4 values held, too short", corrupt(t2, 44, u32(4)), False),
        ("format 2: 2 values held, key bytes left over", corrupt(t2, 44, u32(2)), False),
        ("format 2: no value held", corrupt(t2, 44, u32(0)), False),
        ("format 2: key family none", corrupt(t2, 7, b"\x00"), False),
        ("format 2: key family integer", corrupt(t2, 7, b"\x01"), False),
        ("format 2: key family bytea", corrupt(t2, 7, b"\x03"), True),
        ("format 2: key family 10", corrupt(t2, 7, b"\x0a"), False),
        ("format 2: floor 7, past the total", corrupt(t2, cb, u64(7)), False),
        ("format 2: floor 1", corrupt(t2, cb, u64(1)), True),
        ("format 2: floor 6", corrupt(t2, cb, u64(6)), True),
        ("format 2: entry 0 ends its key at byte 0", corrupt(t2, rec + 16, u32(0)), False),
        ("format 2: entry 0 ends its key past the key bytes", corrupt(t2, rec + 16, u32(100)), False),
        ("format 2: entry 1 ends its key before entry 0's", corrupt(t2, rec + 20 + 16, u32(0)), False),
        ("format 2: entry 2 ends its key at 2^32 - 1", corrupt(t2, rec + 40 + 16, u32(0xFFFFFFFF)), False),
        ("format 2: entry 0 lower 0", corrupt(t2, rec, u64(0)), False),
        ("format 2: entry 0 lower 1 (upper 2)", corrupt(t2, rec, u64(1)), True),
        ("format 2: entry 0 lower above its upper", corrupt(t2, rec, u64(3)), False),
        ("format 2: entry 0 upper past the total", corrupt(t2, rec + 8, u64(7)), False),
        ("format 2: entry 0 upper past its Count-Min estimate", corrupt(t2, rec + 8, u64(3)), False),
        ("format 2: entry 2 counts 2 to 2, the lower counts sum past the total",
         corrupt(t2, rec + 40, u64(2) + u64(2)), False),
        ("format 2: keys b and c swapped, not in hash order", corrupt(t2, keys, b"cb"), False),
        ("format 2: key a changed to x (still in hash order, under its estimate)",
         corrupt(t2, len(t2) - 1, b"x"), True),
        ("format 2: key b changed to x", corrupt(t2, keys, b"x"), False),
        ("format 2: a zero counter set to 1", corrupt(t2, HEADER, u64(1)), False),
        ("format 2: counter of c lowered to 2", corrupt(t2, HEADER + 16, u64(2)), False),
        ("format 2: seed 1", corrupt(t2, 8, u64(1)), False),
        ("format 2: truncated by one byte", t2[:-1], False),
        ("format 2: one byte appended", t2 + b"a", False),
        ("format 2: truncated to 100 bytes", t2[:100], False),
        ("format 2, values dropped: floor 0", corrupt(t3, HEADER + 8 * b.width * b.depth, u64(0)), True),
        ("format 2, values dropped: floor past the total",
         corrupt(t3, HEADER + 8 * b.width * b.depth, u64(b.total + 1)), False),
        ("format 1: format version 3", corrupt(v1, 4, b"\x03"), False),
        ("format 1: k = 0", corrupt(v1, 28, u32(0)), False),
        ("format 1: k = 3, too short", corrupt(v1, 28, u32(3)), False),
        ("format 1: a key byte changed", corrupt(v1, len(v1) - 3, b"x"), False),
        ("format 1: 5 candidates", corrupt(v1, 40, u32(5)), False),
        ("format 1: 2 candidates, data in unused slot 2", corrupt(v1, 40, u32(2)), False),
        ("format 1: 2 key bytes used", corrupt(v1, 44, u32(2)), False),
        ("format 1: a slot's estimate past the total", corrupt(v1, 120, u64(7)), False),
        ("format 1: total 7, a row sums to 6", corrupt(v1, 32, u64(7)), False),
        ("format 1: key family integer", corrupt(v1, 7, b"\x01"), False),
        ("format 1: truncated to 200 bytes", v1[:200], False),
        ("format 1: one byte appended (spare room)", v1 + b"\0", True),
    ]
    for what, data, accepted in cases:
        client, server = validate_both(bs, cur, psycopg2, data)
        problems = []
        if (client is None) != accepted or client != server:
            problems.append("client %r, server %r" % (client, server))
        elif accepted:
            problems = compare_topk(bs, cur, data, [b"a", b"b", b"c", b"d"] if data[7] in (2, 3) else [])
        check(not problems, "topk, %s: %s by the client and the server%s"
              % (what, "accepted" if accepted else "rejected", "" if accepted else " (%r)" % client),
              "\n".join(problems))
    # every byte changed, every prefix
    for label, raw in (("format 2", t2), ("format 2 with values dropped", t3), ("format 1", v1)):
        variants = [raw[:n] for n in range(len(raw))]
        for i in range(len(raw)):
            for byte in {0x00, 0xFF, raw[i] ^ 1} - {raw[i]}:
                variants.append(corrupt(raw, i, bytes([byte])))
        differ, accepted, messages = [], 0, set()
        for data in variants:
            client, server = validate_both(bs, cur, psycopg2, data)
            if client != server:
                differ.append((data.hex(), client, server))
            elif client is None:
                accepted += 1
                mine, theirs = items_both(bs, cur, psycopg2, data)
                if mine != theirs:
                    differ.append((data.hex(), mine, theirs))
            else:
                messages.add(client)
        check(not differ, "topk, %s (%d bytes): %d prefixes and %d one-byte changes, %d accepted (and read "
              "alike), %d rejected with %d different messages: the client decides as the server, with its "
              "message" % (label, len(raw), len(raw), len(variants) - len(raw), accepted,
                           len(variants) - accepted, len(messages)),
              "first differences (bytes, client, server): %s" % differ[:3])
    # n out of range, a key of another family
    problems = []
    for n in (0, a.capacity + 1):
        try:
            a.items(n)
            client = None
        except ValueError as e:
            client = str(e)
        try:
            cur.execute("SELECT * FROM topk_items(%%s::bytea::topk, %d)" % n, (t2,))
            server = None
        except psycopg2.Error as e:
            server = (e.pgcode, e.diag.message_primary)
        if client is None or server != ("22023", client):
            problems.append("n = %d: client %r, server %r" % (n, client, server))
    try:
        a.bounds(42)
        client = None
    except bs.FamilyError as e:
        client = str(e)
    try:
        cur.execute("SELECT topk_bounds(%s::bytea::topk, 42)", (t2,))
        code = None
    except psycopg2.Error as e:
        code = e.pgcode
    if client is None or code != "42804":
        problems.append("an integer key in a text topk: client %r, server %s" % (client, code))
    check(not problems, "topk_items(t, n) for n = 0 and the capacity + 1: the client raises ValueError with the "
          "server's message (22023); an integer key in a text topk: FamilyError, the server 42804",
          "\n".join(problems))


# ---------------------------------------------------------------------------

def run():
    import psycopg2
    import psycopg2.extensions
    import bloomsketch as bs

    start = time.time()
    conn = psycopg2.connect("")
    conn.autocommit = True
    cur = conn.cursor()
    cur.execute("SELECT current_setting('server_version'), current_setting('server_encoding')")
    version, server_encoding = cur.fetchone()
    encoding = psycopg2.extensions.encodings.get(server_encoding, "utf_8")
    cur.execute("SELECT 1 FROM pg_extension WHERE extname = 'bloomsketch'")
    created = cur.fetchone() is None
    if created:
        cur.execute("CREATE EXTENSION bloomsketch")
    cur.execute("SELECT extversion, extnamespace::regnamespace::text FROM pg_extension "
                "WHERE extname = 'bloomsketch'")
    extversion, extschema = cur.fetchone()
    print("# PostgreSQL %s (%s), bloomsketch %s%s, python3-xxhash with xxHash %s"
          % (version, server_encoding, extversion, " (created here)" if created else "",
             getattr(bs.xxhash, "XXHASH_VERSION", "?")))
    schema = "bs_client_%d" % os.getpid()
    cur.execute("CREATE SCHEMA %s" % schema)
    try:
        cur.execute("SET search_path = %s, %s" % (schema, extschema))
        # a session time zone far from UTC: timestamptz keys must not depend on it
        cur.execute("SET TimeZone = 'Asia/Kolkata'")
        cur.execute("SET DateStyle = 'ISO, MDY'")
        cur.execute("CREATE AGGREGATE bloom_agg_partial(anyelement) "
                    "(SFUNC = bloom_agg_trans, STYPE = bloom_agg_state)")
        cur.execute("CREATE AGGREGATE bloom_agg_partial(anyelement, bigint, double precision) "
                    "(SFUNC = bloom_agg_trans, STYPE = bloom_agg_state)")
        cur.execute("CREATE AGGREGATE cbloom_agg_partial(anyelement) "
                    "(SFUNC = cbloom_agg_trans, STYPE = bloom_agg_state)")
        cur.execute("CREATE AGGREGATE bloom_agg_partial(anyelement, bigint, double precision, text) "
                    "(SFUNC = bloom_agg_trans, STYPE = bloom_agg_state)")

        def stage(name, fn, *args):
            t = time.time()
            fn(*args)
            print("# %s took %.1f s" % (name, time.time() - t))

        stage("hash vectors", check_hash_vectors, bs, cur, encoding)
        stage("format vectors", check_sketch_vectors, bs, cur)
        stage("hashes", check_hashes, bs, cur, encoding, 2000)
        if encoding == "utf_8":
            stage("python inputs", check_python_inputs, bs, cur)
        for label, typ, expr in key_types(encoding == "utf_8"):
            n = 50000 if label in ("bigint", "text", "bytea", "uuid") else 10000
            tag = label.replace("(", "").replace(")", "")
            stage("bloom " + label, check_bloom_membership, bs, cur, encoding, label, typ, expr, n,
                  "bloom_agg(v)", tag)
        stage("bloom fixed", check_bloom_membership, bs, cur, encoding, "bigint", "bigint",
              "x * 7919", 50000, "bloom_agg(v, 60000, 0.02)", "fixed")
        stage("bloom overfull", check_bloom_membership, bs, cur, encoding, "integer", "integer",
              "x::int", 2000, "bloom_agg(v, 500, 0.1)", "overfull")
        stage("blocked", check_blocked, bs, cur, encoding)
        stage("cbloom", check_cbloom, bs, cur, 50000)
        stage("cms and topk", check_cms_topk, bs, cur, 200000, 100000)
        stage("growable", check_growable, bs, cur, encoding, psycopg2)
        stage("corruption", check_corruption, bs, cur, psycopg2)
        stage("topk corruption", check_topk_corruption, bs, cur, psycopg2)
    finally:
        cur.execute("RESET search_path")
        cur.execute("DISCARD TEMP")     # the temporary tables use the extension's types
        cur.execute("DROP SCHEMA %s CASCADE" % schema)
        if created:
            cur.execute("DROP EXTENSION bloomsketch")
        conn.close()
    print("# took %.1f s" % (time.time() - start))


def main():
    global failed
    try:
        run()
    except Exception:
        traceback.print_exc(file=sys.stdout)
        print("not ok - check_client.py stopped with an error")
        failed += 1
    print("client: %d passed, %d failed" % (passed, failed))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
