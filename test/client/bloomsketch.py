"""bloomsketch reference client: read bloomsketch sketches outside PostgreSQL.

This module repeats, in plain Python, what the extension does with a value's
bytes (doc/format.md) and with a key (doc/hashing.md):

- canonical key bytes of every key family (integer, text, bytea, uuid, float,
  numeric, date, timestamp, timestamptz), from Python values;
- the 64-bit hash (XXH3-64 with the sketch's seed, from python3-xxhash) and
  the probe positions derived from it (src/core/hash.h), in both layouts of
  a ``bloom``: classic (k probes over all m bits) and blocked (k bits in one
  512-bit block, src/core/blocked.h);
- the 48-byte header, parsed and validated as bs_validate() does;
- membership in a ``bloom`` and a ``cbloom`` (every probed counter > 0), the
  count estimate of a ``cbloom``, the frequency estimate of a ``cms``;
- a ``topk`` of either format (format 2, built since 1.5: values counted
  with lower and upper bounds beside Count-Min rows; format 1, 1.0 to 1.4:
  Count-Min candidates), validated as the server validates it: its ranked
  values with their bounds (topk_items and topk_items_bounds, any n up to
  the capacity), the bounds of any value (topk_bounds, topk_upper_bound) and
  topk_info;
- building a ``bloom`` of either layout (Bloom.empty, Bloom.empty_for, add),
  byte for byte as bloom_empty_bits / bloom_empty and bloom_add make it, and
  its estimates from the fill (cardinality, fpr), as bloom_info gives them;
- growable (scalable) filters, a ``bloom`` whose header p3 has bit 2 set
  (src/core/growable.h): reading and checking one (GrowableBloom), making one
  (GrowableBloom.empty, as bloom_empty(capacity, fpr, growth => s, layout)),
  adding keys (a new stage when the last is full), membership, the union of
  two (a | b, bloom_union), the estimates of bloom_info and the rows of
  bloom_stages (stage_info).

Get a sketch's bytes from the server with a bytea cast (``f::bytea``) or
``<kind>_send``; psycopg2 returns a bytea as a ``memoryview``.

    import bloomsketch as bs
    f = bs.load(row[0])              # a Bloom, GrowableBloom, CountingBloom, CountMin or TopK
    f.contains(42)                   # the same answer as  f @> 42
    t = bs.load(row[1])              # a topk: t.items(), t.items_bounds(20), t.bounds(42),
                                     # t.info(): topk_items(t), topk_items_bounds(t, 20),
                                     # topk_bounds(t, 42), topk_info(t)
    bs.bloomsketch_hash(42)          # the same value as   bloomsketch_hash(42)
    g = bs.Bloom.empty_for(1000, 0.01, "blocked")   # bloom_empty(1000, 0.01, 'blocked')
    g.add(42)                        # bloom_add(g, 42); g.to_bytes() = its bytes
    s = bs.GrowableBloom.empty(1000, 0.01, growth=2)  # bloom_empty(1000, 0.01, growth => 2)
    s.add(42); s | s; s.stage_info()  # bloom_add, bloom_union, bloom_stages

Invalid bytes raise FormatError (a ValueError); a key of another family than
the sketch's raises FamilyError (a TypeError), as the server does.

Dependencies: Python 3.7+ and the xxhash module (Debian: python3-xxhash).
test/client/check_client.py compares everything here with a running server.
"""

import datetime
import decimal
import math
import struct
import uuid as _uuid
from collections import namedtuple

import xxhash

__all__ = [
    "FormatError", "FamilyError", "Key", "Header",
    "key", "key_integer", "key_text", "key_char", "key_bytea", "key_uuid",
    "key_float", "key_real", "key_numeric", "key_date", "key_timestamp",
    "key_timestamptz", "decode_key",
    "hash64", "bloomsketch_hash", "to_signed", "to_unsigned", "probe", "probes",
    "splitmix", "blocked_positions", "LAYOUT_CLASSIC", "LAYOUT_BLOCKED", "layout_number",
    "optimal_shape", "blocked_fpr", "blocked_best_hashes", "blocked_optimal",
    "parse_header", "load", "Bloom", "CountingBloom", "CountMin", "TopK",
    "GrowableBloom", "Stage", "is_growable", "LAYOUT_GROWABLE",
    "TopKEntry", "TopKRow", "TopKBounds", "TopKInfo", "TOPK_FORMAT_V1", "TOPK_FORMAT",
]

MASK64 = (1 << 64) - 1
INT64_MIN = -(1 << 63)
INT64_MAX = (1 << 63) - 1

HEADER_SIZE = 48
MAGIC = b"BSKT"
FORMAT_VERSION = 1
HASH_XXH3_64 = 1
MAX_SKETCH_BYTES = 511 * 1024 * 1024        # BS_MAX_SKETCH_BYTES

KIND_BLOOM = 1
KIND_BLOOM_AGG_STATE = 2
KIND_CMS = 3
KIND_TOPK = 4
KIND_CBLOOM = 5
KIND_NAMES = {KIND_BLOOM: "bloom", KIND_BLOOM_AGG_STATE: "bloom_agg_state",
              KIND_CMS: "cms", KIND_TOPK: "topk", KIND_CBLOOM: "cbloom"}

FAMILY_NONE = 0
FAMILY_INTEGER = 1
FAMILY_TEXT = 2
FAMILY_BYTEA = 3
FAMILY_UUID = 4
FAMILY_FLOAT = 5
FAMILY_NUMERIC = 6
FAMILY_DATE = 7
FAMILY_TIMESTAMP = 8
FAMILY_TIMESTAMPTZ = 9
FAMILY_NAMES = ["none", "integer", "text", "bytea", "uuid", "float", "numeric",
                "date", "timestamp", "timestamptz"]

BLOOM_MAX_HASHES = 64
BLOOM_MAX_BITS = (MAX_SKETCH_BYTES - HEADER_SIZE) * 8

# Layouts of a bloom (header p3; src/core/bloom.h, src/core/blocked.h)
LAYOUT_CLASSIC = 0
LAYOUT_BLOCKED = 1
LAYOUT_NAMES = {LAYOUT_CLASSIC: "classic", LAYOUT_BLOCKED: "blocked"}
BLOCK_BITS = 512                # a block: one 64-byte cache line
BLOCK_BYTES = 64
BLOCK_PROBES_PER_MIX = 7        # 9-bit in-block positions per splitmix output
LN2 = 0.69314718055994530942
CMS_MAX_DEPTH = 64
CMS_MAX_COUNT = INT64_MAX
TOPK_MAX_K = 10000
TOPK_MAX_KEY = 65536
TOPK_MAX_CAPACITY = 1000000     # values a format-2 topk tracks
TOPK_FORMAT_V1 = 1              # topk format 1 (1.0 to 1.4): Count-Min candidates
TOPK_FORMAT = 2                 # topk format 2 (1.5 on): counted values with bounds
TOPK_SLOT = 24                  # a format-1 candidate slot
TOPK_RECORD = 20                # a format-2 entry: lower u64, upper u64, key end u32
# The format versions a kind reads (bs_kind_def.max_version, src/core/kinds.c); 1 if not listed.
MAX_VERSIONS = {KIND_TOPK: TOPK_FORMAT}
_CMS_E = 2.71828182845904523536  # E of src/core/cms.c

# splitmix64 constants of the probe derivation (src/core/hash.h)
_GOLDEN = 0x9E3779B97F4A7C15
_MIX1 = 0xBF58476D1CE4E5B9
_MIX2 = 0x94D049BB133111EB

_xxh3 = xxhash.xxh3_64_intdigest


class FormatError(ValueError):
    """The bytes are not a valid bloomsketch value of the expected kind."""


class FamilyError(TypeError):
    """A key of one family was used with a sketch of another."""


# A key: its family (header byte 7) and its canonical bytes.
Key = namedtuple("Key", "family data")


# ---------------------------------------------------------------------------
# Canonical key bytes (doc/hashing.md, section 1; src/keys.c)
# ---------------------------------------------------------------------------

def _int64_bytes(v):
    return struct.pack("<q", v)


def key_integer(v):
    """smallint, integer, bigint: the value as a little-endian int64."""
    if isinstance(v, bool) or not isinstance(v, int):
        raise TypeError("integer key must be an int, not %s" % type(v).__name__)
    if not INT64_MIN <= v <= INT64_MAX:
        raise ValueError("integer key %d is out of the range of bigint" % v)
    return Key(FAMILY_INTEGER, _int64_bytes(v))


def key_text(s, encoding="utf-8"):
    """text, varchar, name: the string's bytes in the database encoding."""
    if isinstance(s, str):
        s = s.encode(encoding)
    return Key(FAMILY_TEXT, bytes(s))


def key_char(s, encoding="utf-8"):
    """char(n) (bpchar): the string without its trailing blanks."""
    if isinstance(s, str):
        s = s.encode(encoding)
    return Key(FAMILY_TEXT, bytes(s).rstrip(b" "))


def key_bytea(b):
    """bytea: the bytes as they are."""
    return Key(FAMILY_BYTEA, bytes(b))


def key_uuid(u):
    """uuid: the 16 bytes in the order of the text form."""
    if not isinstance(u, _uuid.UUID):
        u = _uuid.UUID(str(u))
    return Key(FAMILY_UUID, u.bytes)


def key_float(d):
    """double precision: IEEE binary64 bits, little-endian; -0 as +0, one NaN."""
    d = float(d)
    if math.isnan(d):
        return Key(FAMILY_FLOAT, struct.pack("<Q", 0x7FF8000000000000))
    if d == 0.0:
        d = 0.0
    return Key(FAMILY_FLOAT, struct.pack("<d", d))


def key_real(f):
    """real (float4): rounded to binary32, then widened to double precision.

    A Python float holding a real's printed value (0.1) becomes the binary32
    value 0.100000001490116..., as on the server."""
    f = float(f)
    if math.isnan(f):
        return key_float(f)
    return key_float(struct.unpack("<f", struct.pack("<f", f))[0])


def key_numeric(v):
    """numeric: its decimal text without trailing fraction zeros; -0 is 0.

    v is a decimal.Decimal, an int, or numeric's text (as from x::text)."""
    if isinstance(v, bool) or isinstance(v, float):
        raise TypeError("numeric key must be a Decimal, an int or numeric text, "
                        "not %s (a float is not exact)" % type(v).__name__)
    if isinstance(v, int):
        s = str(v)
    else:
        if isinstance(v, str):
            try:
                v = decimal.Decimal(v)
            except decimal.InvalidOperation:
                raise ValueError("not a numeric value: %r" % (v,)) from None
        if v.is_nan():
            s = "NaN"
        elif v.is_infinite():
            s = "-Infinity" if v < 0 else "Infinity"
        else:
            s = format(v, "f")          # never an exponent, as numeric_out
    if "." in s:
        s = s.rstrip("0").rstrip(".")
    if s == "-0":
        s = "0"
    return Key(FAMILY_NUMERIC, s.encode("ascii"))


_DATE_EPOCH = datetime.date(2000, 1, 1)
_TS_EPOCH = datetime.datetime(2000, 1, 1)
_TSTZ_EPOCH = datetime.datetime(2000, 1, 1, tzinfo=datetime.timezone.utc)


def _infinity(v, pos, neg):
    if isinstance(v, str):
        if v == "infinity":
            return pos
        if v == "-infinity":
            return neg
        raise ValueError("only 'infinity' and '-infinity' are accepted as text, not %r" % v)
    return None


def _micros(delta):
    return (delta.days * 86400 + delta.seconds) * 1000000 + delta.microseconds


def key_date(d):
    """date: days since 2000-01-01 as a little-endian int64.

    d is a datetime.date or the text 'infinity' / '-infinity'."""
    special = _infinity(d, 2147483647, -2147483648)
    if special is not None:
        return Key(FAMILY_DATE, _int64_bytes(special))
    if isinstance(d, datetime.datetime):
        raise TypeError("date key must be a datetime.date, not a datetime")
    return Key(FAMILY_DATE, _int64_bytes((d - _DATE_EPOCH).days))


def key_timestamp(t):
    """timestamp without time zone: microseconds since 2000-01-01 00:00 of
    the wall-clock value.  t is a naive datetime or 'infinity' / '-infinity'."""
    special = _infinity(t, INT64_MAX, INT64_MIN)
    if special is not None:
        return Key(FAMILY_TIMESTAMP, _int64_bytes(special))
    if t.tzinfo is not None:
        raise TypeError("timestamp key must be a naive datetime (use key_timestamptz)")
    return Key(FAMILY_TIMESTAMP, _int64_bytes(_micros(t - _TS_EPOCH)))


def key_timestamptz(t):
    """timestamptz: microseconds since 2000-01-01 00:00 UTC.  t is an aware
    datetime or 'infinity' / '-infinity'."""
    special = _infinity(t, INT64_MAX, INT64_MIN)
    if special is not None:
        return Key(FAMILY_TIMESTAMPTZ, _int64_bytes(special))
    if t.tzinfo is None:
        raise TypeError("timestamptz key must be an aware datetime (use key_timestamp)")
    return Key(FAMILY_TIMESTAMPTZ, _int64_bytes(_micros(t - _TSTZ_EPOCH)))


def key(value, encoding="utf-8"):
    """The Key of a Python value, choosing the family from its type:
    int -> integer, str -> text, bytes -> bytea, UUID -> uuid, float -> float,
    Decimal -> numeric, date -> date, naive datetime -> timestamp, aware
    datetime -> timestamptz.  A Key is returned as it is.  For char(n) and
    real values use key_char() and key_real()."""
    if isinstance(value, Key):
        return value
    if isinstance(value, bool):
        raise TypeError("type bool is not supported as a sketch key; cast it, for example to text")
    if isinstance(value, int):
        return key_integer(value)
    if isinstance(value, str):
        return key_text(value, encoding)
    if isinstance(value, (bytes, bytearray, memoryview)):
        return key_bytea(value)
    if isinstance(value, _uuid.UUID):
        return key_uuid(value)
    if isinstance(value, float):
        return key_float(value)
    if isinstance(value, decimal.Decimal):
        return key_numeric(value)
    if isinstance(value, datetime.datetime):
        return key_timestamp(value) if value.tzinfo is None else key_timestamptz(value)
    if isinstance(value, datetime.date):
        return key_date(value)
    raise TypeError("type %s is not supported as a sketch key" % type(value).__name__)


def decode_key(family, data, encoding="utf-8"):
    """The Python value behind canonical key bytes (as topk keeps them)."""
    data = bytes(data)
    if family in (FAMILY_INTEGER, FAMILY_DATE, FAMILY_TIMESTAMP, FAMILY_TIMESTAMPTZ,
                  FAMILY_FLOAT) and len(data) != 8:
        raise FormatError("%s key must have 8 bytes, has %d" % (FAMILY_NAMES[family], len(data)))
    if family == FAMILY_INTEGER:
        return struct.unpack("<q", data)[0]
    if family == FAMILY_TEXT:
        return data.decode(encoding)
    if family == FAMILY_BYTEA:
        return data
    if family == FAMILY_UUID:
        if len(data) != 16:
            raise FormatError("uuid key must have 16 bytes, has %d" % len(data))
        return _uuid.UUID(bytes=data)
    if family == FAMILY_FLOAT:
        return struct.unpack("<d", data)[0]
    if family == FAMILY_NUMERIC:
        return decimal.Decimal(data.decode("ascii"))
    v = struct.unpack("<q", data)[0]
    if family == FAMILY_DATE:
        if v in (2147483647, -2147483648):
            return "infinity" if v > 0 else "-infinity"
        return _DATE_EPOCH + datetime.timedelta(days=v)
    if family in (FAMILY_TIMESTAMP, FAMILY_TIMESTAMPTZ):
        if v in (INT64_MAX, INT64_MIN):
            return "infinity" if v > 0 else "-infinity"
        base = _TS_EPOCH if family == FAMILY_TIMESTAMP else _TSTZ_EPOCH
        return base + datetime.timedelta(microseconds=v)
    raise FormatError("unknown key family %d" % family)


# ---------------------------------------------------------------------------
# The hash and the probe positions (doc/hashing.md, sections 2 and 3)
# ---------------------------------------------------------------------------

def hash64(k, seed=0):
    """XXH3-64 of a key's canonical bytes (a Key, or bytes), unsigned."""
    if isinstance(k, Key):
        k = k.data
    return _xxh3(bytes(k), seed=seed)


def to_signed(h):
    """An unsigned 64-bit hash as SQL shows it (a bigint)."""
    return h - (1 << 64) if h >= 1 << 63 else h


def to_unsigned(h):
    return h & MASK64


def bloomsketch_hash(value, seed=0):
    """The value SQL's bloomsketch_hash(value) returns: a signed bigint."""
    return to_signed(hash64(key(value), seed))


def probe(h, i, m):
    """Probe i of the unsigned hash h in [0, m): splitmix64's (i+1)-th
    output from state h, reduced by the multiply-shift (g * m) >> 64."""
    z = (h + (i + 1) * _GOLDEN) & MASK64
    z = ((z ^ (z >> 30)) * _MIX1) & MASK64
    z = ((z ^ (z >> 27)) * _MIX2) & MASK64
    return ((z ^ (z >> 31)) * m) >> 64


def probes(h, m, k):
    """The first k probe positions of h in [0, m), in order (classic layout)."""
    return [probe(h, i, m) for i in range(k)]


def splitmix(h, i):
    """g_i(h): splitmix64's (i+1)-th output from state h (src/core/hash.h)."""
    z = (h + (i + 1) * _GOLDEN) & MASK64
    z = ((z ^ (z >> 30)) * _MIX1) & MASK64
    z = ((z ^ (z >> 27)) * _MIX2) & MASK64
    return z ^ (z >> 31)


def blocked_positions(h, m, k):
    """The k bit positions of h in a blocked filter of m bits (a multiple of
    512), in probe order (src/core/blocked.h): the block b = (h * B) >> 64 of
    the B = m / 512 blocks, then bit i is bits 9 (i mod 7) to 9 (i mod 7) + 8
    of g_(i div 7), inside block b.  Two probes may set the same bit."""
    base = ((h * (m // BLOCK_BITS)) >> 64) * BLOCK_BITS
    out = []
    for i in range(k):
        if i % BLOCK_PROBES_PER_MIX == 0:
            g = splitmix(h, i // BLOCK_PROBES_PER_MIX)
        out.append(base + (g >> (9 * (i % BLOCK_PROBES_PER_MIX)) & 511))
    return out


def layout_number(layout):
    """A layout given as 'classic' / 'blocked' or as its number."""
    if isinstance(layout, str):
        for number, name in LAYOUT_NAMES.items():
            if name == layout:
                return number
        raise ValueError('unknown bloom filter layout "%s"' % layout)
    if layout not in LAYOUT_NAMES:
        raise ValueError("unknown bloom filter layout %r" % (layout,))
    return layout


# ---------------------------------------------------------------------------
# Sizing (src/core/bloom.c, src/core/blocked.c; doc/sizing.md).  The same
# double arithmetic in the same order as the core, with the C library's
# functions (Python's math module calls them, except for lgamma, which it
# implements itself: the C library's is called through ctypes when it can
# be found), so the rates are bloom_fpr_estimate's and the shapes are the
# ones bloom_empty(capacity, fpr, layout) makes.
# ---------------------------------------------------------------------------

def _c_lgamma():
    try:
        import ctypes
        import ctypes.util
        libm = ctypes.CDLL(ctypes.util.find_library("m") or "libm.so.6")
        f = libm.lgamma
        f.restype, f.argtypes = ctypes.c_double, [ctypes.c_double]
        return f
    except (ImportError, OSError, AttributeError):
        # the rates may then differ from the server's in their last bits
        return math.lgamma


_lgamma = _c_lgamma()

def _c_round(x):
    """C's round() (halves away from zero) of a non-negative double."""
    f = math.floor(x)
    return f + 1.0 if x - f >= 0.5 else f


def _check_capacity_fpr(n, p):
    if not (n >= 1.0) or not math.isfinite(n):
        raise ValueError("capacity must be at least 1, got %r" % n)
    if not 0.0 < p < 1.0:
        raise ValueError("false-positive rate must be between 0 and 1 (exclusive), got %r" % p)


def _optimal_bits(n, p):
    """bs_bloom_optimal_bits: ceil(-n ln p / ln^2 2)."""
    n, p = float(n), float(p)
    _check_capacity_fpr(n, p)
    bits = math.ceil(-n * math.log(p) / (LN2 * LN2))
    if bits > BLOOM_MAX_BITS:
        raise ValueError("a bloom filter for %.0f values at false-positive rate %r would need "
                         "%d bits, more than the limit of %d" % (n, p, bits, BLOOM_MAX_BITS))
    return max(1, bits)


def _optimal_hashes(m, n):
    """bs_bloom_optimal_hashes: round(m / n ln 2), at least 1."""
    k = _c_round(m / float(n) * LN2)
    if k > BLOOM_MAX_HASHES:
        raise ValueError("%d bits for %.0f values would need %d hashes, more than the %d a filter may have"
                         % (m, n, k, BLOOM_MAX_HASHES))
    return int(max(1.0, k))


_TERMS_MAX_K = 20                       # blocked.c: TERMS_MAX_K = BS_BLOCKED_MAX_HASHES
BLOCKED_MAX_HASHES = 20
_FULL_THROWS = 40 * BLOCK_BITS


class _BlockRate(object):
    """blocked.c's block_rate: r(i) = E[(X/512)^k], X the bits that i k
    probes set in one block; a sum of k + 1 exponentials up to k = 20 when
    it is large enough to trust, the law of X throw by throw otherwise."""

    def __init__(self, k):
        b = float(BLOCK_BITS)
        self.k = k
        self.law_ready = False
        if k <= _TERMS_MAX_K:
            P = [0.0] * (_TERMS_MAX_K + 1)
            P[0] = 1.0
            for p in range(k):
                for j in range(p + 1, 0, -1):
                    P[j] = P[j] * (j / b) + P[j - 1] * ((b - (j - 1)) / b)
                P[0] = 0.0
            self.c, self.log_keep = [], []
            for l in range(k + 1):
                total, binom = 0.0, 1.0
                for j in range(l, k + 1):
                    total += P[j] * binom
                    binom = binom * (j + 1) / (j + 1 - l)
                self.c.append(total if l % 2 == 0 else -total)
                self.log_keep.append(math.log1p(-float(l) / b))
            self.exact_below = math.ldexp(1e-12, k)

    def _programme(self, t):
        if t >= _FULL_THROWS:
            return 1.0
        b = float(BLOCK_BITS)
        if not self.law_ready:
            self.pw = [math.pow(x / b, float(self.k)) for x in range(BLOCK_BITS + 1)]
            self.law = [0.0] * (BLOCK_BITS + 1)
            self.law[0] = 1.0
            self.throws = 0
            self.law_ready = True
        law = self.law
        while float(self.throws) < t:
            top = self.throws + 1 if self.throws + 1 < BLOCK_BITS else BLOCK_BITS
            for x in range(top, 0, -1):
                law[x] = law[x] * (x / b) + law[x - 1] * ((BLOCK_BITS - x + 1) / b)
            law[0] = 0.0
            self.throws += 1
        r = 0.0
        for x in range(BLOCK_BITS + 1):
            r += law[x] * self.pw[x]
        return r

    def at(self, i):
        t = i * self.k
        if self.k <= _TERMS_MAX_K:
            r = 0.0
            for l in range(self.k + 1):
                r += self.c[l] * math.exp(t * self.log_keep[l])
            if r >= self.exact_below:
                return r
        return self._programme(t)


def _stirlerr(n):
    S0, S1, S2, S3, S4 = 1.0 / 12, 1.0 / 360, 1.0 / 1260, 1.0 / 1680, 1.0 / 1188
    nn = n * n
    if n <= 15.0:
        return _lgamma(n + 1.0) - (n + 0.5) * math.log(n) + n - 0.918938533204672741780
    if n > 500:
        return (S0 - S1 / nn) / n
    if n > 80:
        return (S0 - (S1 - S2 / nn) / nn) / n
    if n > 35:
        return (S0 - (S1 - (S2 - S3 / nn) / nn) / nn) / n
    return (S0 - (S1 - (S2 - (S3 - S4 / nn) / nn) / nn) / nn) / n


def _bd0(x, np_):
    if abs(x - np_) < 0.1 * (x + np_):
        v = (x - np_) / (x + np_)
        s = (x - np_) * v
        ej = 2 * x * v
        v = v * v
        for j in range(1, 1000):
            ej *= v
            s1 = s + ej / (2 * j + 1)
            if s1 == s:
                return s1
            s = s1
        return s
    return x * math.log(x / np_) + np_ - x


def _dbinom(x, n, p, q):
    if x == 0:
        return math.exp(-_bd0(n, n * q) - n * p if p < 0.1 else n * math.log(q))
    if x == n:
        return math.exp(-_bd0(n, n * p) - n * q if q < 0.1 else n * math.log(p))
    lc = _stirlerr(n) - _stirlerr(x) - _stirlerr(n - x) - _bd0(x, n * p) - _bd0(n - x, n * q)
    return math.exp(lc) / math.sqrt(2 * 3.14159265358979323846 * x * (1.0 - x / n))


def blocked_fpr(m, n, k):
    """bs_blocked_fpr: the false-positive rate of a blocked filter of m bits
    holding n keys with k hashes: sum over i of P(i keys in the block) r(i),
    the keys per block binomial (n, 1/B), r(i) the exact rate of a block
    holding i keys (doc/sizing.md, section 8.2)."""
    B = float(m // BLOCK_BITS)
    n = float(n)
    if not (n > 0.0) or B < 1.0 or k < 1:
        return 0.0
    br = _BlockRate(k)
    if B == 1.0:
        return br.at(n)
    q = 1.0 / B
    mean = n * q
    sd = math.sqrt(n * q * (1.0 - q))
    lo = max(0.0, float(math.floor(mean - 12.0 * sd - 12.0)))
    hi = min(n, float(math.ceil(mean + 12.0 * sd + 12.0)))
    full = float(math.ceil(float(_FULL_THROWS) / k))
    if lo >= full:
        return 1.0
    w = _dbinom(lo, n, q, 1.0 - q)
    total, mass, i = 0.0, 0.0, lo
    while i <= hi and i < full:
        total += w * br.at(i)
        mass += w
        w *= (n - i) / (i + 1.0) * q / (1.0 - q)
        i += 1.0
    if hi >= full and mass < 1.0:
        total += 1.0 - mass
    return 1.0 if total > 1.0 else total


def blocked_best_hashes(m, n):
    """bs_blocked_best_hashes: the k <= 20 with the lowest blocked_fpr(m, n, k)."""
    n = float(n)
    k0 = _c_round(m / n * LN2)
    if not k0 >= 1.0:
        k0 = 1.0
    k0 = int(min(k0, BLOCKED_MAX_HASHES))
    best, fbest = k0, blocked_fpr(m, n, k0)
    k = best - 1
    while k >= 1:
        f = blocked_fpr(m, n, k)
        if not f < fbest:
            break
        best, fbest = k, f
        k -= 1
    if best == k0:
        k = best + 1
        while k <= BLOCKED_MAX_HASHES:
            f = blocked_fpr(m, n, k)
            if not f < fbest:
                break
            best, fbest = k, f
            k += 1
    return best


def blocked_optimal(n, p):
    """bs_blocked_optimal: (m, k) of the smallest blocked filter for n keys
    at rate p: the fewest blocks for which blocked_fpr <= p with the best k."""
    n, p = float(n), float(p)
    max_blocks = BLOOM_MAX_BITS // BLOCK_BITS

    def meets(blocks):
        m = blocks * BLOCK_BITS
        return blocked_fpr(m, n, blocked_best_hashes(m, n)) <= p

    lo = max(1, _optimal_bits(n, p) // BLOCK_BITS)
    hi = lo
    if not meets(hi):
        while True:
            lo, hi = hi, min(hi * 2, max_blocks)
            if hi == lo:
                raise ValueError("a blocked bloom filter for %.0f values at false-positive rate %r "
                                 "would need more than %d bits, the limit" % (n, p, BLOOM_MAX_BITS))
            if meets(hi):
                break
        while hi - lo > 1:
            mid = lo + (hi - lo) // 2
            if meets(mid):
                hi = mid
            else:
                lo = mid
    m = hi * BLOCK_BITS
    return m, blocked_best_hashes(m, n)


def optimal_shape(capacity, fpr, layout=LAYOUT_CLASSIC):
    """(m, k) of bloom_empty(capacity, fpr, layout) (bs_bloom_shape_for)."""
    if layout_number(layout) == LAYOUT_BLOCKED:
        return blocked_optimal(capacity, fpr)
    m = _optimal_bits(capacity, fpr)
    return m, _optimal_hashes(m, capacity)


# ---------------------------------------------------------------------------
# Header and validation (doc/format.md, sections 2 and 4)
# ---------------------------------------------------------------------------

Header = namedtuple("Header", "version kind hash_alg family seed p1 p2 p3 n x")

_HEADER = struct.Struct("<4sBBBBQQIIQQ")


def parse_header(buf, kind=None):
    """Decode and check the 48-byte header (steps 1 to 7 of format.md,
    section 4).  kind: the expected kind number, or None for any known kind."""
    buf = bytes(buf)
    what = KIND_NAMES.get(kind, "sketch")
    if len(buf) < HEADER_SIZE:
        raise FormatError("%s value is too short: %d bytes, the header alone has %d"
                          % (what, len(buf), HEADER_SIZE))
    magic, version, k, alg, family, seed, p1, p2, p3, n, x = _HEADER.unpack_from(buf)
    if magic != MAGIC:
        raise FormatError("%s value has a bad magic number: not a bloomsketch sketch" % what)
    max_version = MAX_VERSIONS.get(k if kind is None else kind, FORMAT_VERSION)
    if not 1 <= version <= max_version:
        if max_version == 1:
            raise FormatError("%s value has format version %d; this version reads version 1" % (what, version))
        raise FormatError("%s value has format version %d; this version reads versions 1 to %d"
                          % (what, version, max_version))
    if kind is not None and k != kind:
        if k in KIND_NAMES:
            raise FormatError("value is a %s sketch, not a %s" % (KIND_NAMES[k], what))
        raise FormatError("value is not a %s sketch: its kind byte is %d" % (what, k))
    if kind is None and k not in KIND_NAMES:
        raise FormatError("value is not a bloomsketch sketch: its kind byte is %d" % k)
    what = KIND_NAMES[k]
    if alg != HASH_XXH3_64:
        raise FormatError("%s value names unknown hash algorithm %d" % (what, alg))
    if family > FAMILY_TIMESTAMPTZ:
        raise FormatError("%s value names unknown key family %d" % (what, family))
    if len(buf) > MAX_SKETCH_BYTES:
        raise FormatError("%s value is too long: %d bytes" % (what, len(buf)))
    return Header(version, k, alg, family, seed, p1, p2, p3, n, x)


def _key_length_fits(family, n):
    """bs_family_key_length_fits: 8 bytes for integer, float, date and the
    timestamps, 16 for uuid, any length for the others."""
    if family in (FAMILY_INTEGER, FAMILY_FLOAT, FAMILY_DATE, FAMILY_TIMESTAMP, FAMILY_TIMESTAMPTZ):
        return n == 8
    if family == FAMILY_UUID:
        return n == 16
    return True


def _cms_shape_ok(width, depth):
    return (1 <= depth <= CMS_MAX_DEPTH and width >= 1
            and width <= (MAX_SKETCH_BYTES - HEADER_SIZE) // 8 // depth)


def _check_cms_rows(counters, width, depth, total, what):
    """Deep check: every row of counters sums exactly to the total."""
    for row in range(depth):
        s = 0
        for v in counters[row * width:(row + 1) * width]:
            if v > total - s:
                raise FormatError("%s value's counter row %d counts more than its total %d"
                                  % (what, row, total))
            s += v
        if s != total:
            raise FormatError("%s value's counter row %d sums to %d, not its total %d"
                              % (what, row, s, total))


class _Sketch:
    kind = None

    def __init__(self, buf, deep=True):
        self.buf = bytes(buf)
        self.header = h = parse_header(self.buf, self.kind)
        self.family = h.family
        self.seed = h.seed
        self._check(h, self.buf[HEADER_SIZE:], deep)

    @classmethod
    def from_bytes(cls, buf, deep=True):
        return cls(buf, deep)

    def to_bytes(self):
        return self.buf

    def key(self, value, encoding="utf-8"):
        """The Key of value, refused (FamilyError) if the sketch holds another family."""
        k = key(value, encoding)
        if self.family != FAMILY_NONE and k.family != self.family:
            raise FamilyError("key of family %s does not match the %s, whose keys are of family %s"
                              % (FAMILY_NAMES[k.family], KIND_NAMES[self.kind],
                                 FAMILY_NAMES[self.family]))
        return k

    def hash(self, value):
        """The unsigned hash of value with this sketch's seed."""
        return _xxh3(self.key(value).data, seed=self.seed)


def _check_shape(m, k, layout):
    """bs_bloom_check_layout_shape: m bits and k hashes of a filter of layout."""
    if not 1 <= m <= BLOOM_MAX_BITS:
        raise ValueError("a bloom filter must have between 1 and %d bits, got %d" % (BLOOM_MAX_BITS, m))
    if not 1 <= k <= BLOOM_MAX_HASHES:
        raise ValueError("a bloom filter must have between 1 and %d hashes, got %d" % (BLOOM_MAX_HASHES, k))
    if layout == LAYOUT_BLOCKED and m % BLOCK_BITS:
        raise ValueError("a blocked bloom filter must have a multiple of %d bits, got %d" % (BLOCK_BITS, m))


class Bloom(_Sketch):
    """A bloom value (kind 1): m bits, k hashes, in the classic or the
    blocked layout (header p3).  Bloom(bytes) reads a value; Bloom.empty()
    and Bloom.empty_for() make one, add() adds keys, to_bytes() gives the
    bytes (the same as the server's for the same calls)."""
    kind = KIND_BLOOM

    def _check(self, h, payload, deep):
        _check_layout(h)
        if h.p3 & LAYOUT_GROWABLE:
            # the server checks it as growable (bs_growable_check); a Bloom is one plain filter
            _check_growable(h, payload)
            raise FormatError("bloom value is growable: read it with GrowableBloom or load()")
        # the order of bs_bloom_check_named (src/core/bloom.c): the same first message
        if not 1 <= h.p1 <= BLOOM_MAX_BITS:
            raise FormatError("bloom value has an invalid bit count %d" % h.p1)
        if not 1 <= h.p2 <= BLOOM_MAX_HASHES:
            raise FormatError("bloom value has an invalid hash count %d (must be 1 to %d)"
                              % (h.p2, BLOOM_MAX_HASHES))
        if h.n or h.x:
            raise FormatError("bloom value has nonzero reserved header fields")
        if h.p3 not in LAYOUT_NAMES:
            raise FormatError("bloom value has an unknown layout %d (0 classic, 1 blocked)" % h.p3)
        if h.p3 == LAYOUT_BLOCKED and h.p1 % BLOCK_BITS:
            raise FormatError("blocked bloom value has %d bits, not a multiple of the block size %d"
                              % (h.p1, BLOCK_BITS))
        need = (h.p1 + 7) // 8
        if len(payload) != need:
            raise FormatError("bloom value of %d bits must have %d payload bytes, has %d"
                              % (h.p1, need, len(payload)))
        if h.p1 % 8 and payload[-1] >> (h.p1 % 8):
            raise FormatError("bloom value has bits set past its last bit %d" % (h.p1 - 1))
        self.m, self.k, self.layout = h.p1, h.p2, h.p3
        self.bits = bytearray(payload)

    @classmethod
    def empty(cls, m, k, layout=LAYOUT_CLASSIC, family=FAMILY_NONE, seed=0):
        """bloom_empty_bits(m, k, layout): an empty filter of m bits and k
        hashes (a blocked one needs m a multiple of 512)."""
        layout = layout_number(layout)
        _check_shape(m, k, layout)
        hdr = _HEADER.pack(MAGIC, FORMAT_VERSION, KIND_BLOOM, HASH_XXH3_64, family, seed,
                           m, k, layout, 0, 0)
        return cls(hdr + bytes((m + 7) // 8))

    @classmethod
    def empty_for(cls, capacity, fpr, layout=LAYOUT_CLASSIC, family=FAMILY_NONE, seed=0):
        """bloom_empty(capacity, fpr, layout): the filter sized for capacity
        keys at rate fpr (optimal_shape)."""
        m, k = optimal_shape(capacity, fpr, layout)
        return cls.empty(m, k, layout, family, seed)

    def to_bytes(self):
        """The value's bytes (with the adds made here)."""
        return _HEADER.pack(MAGIC, FORMAT_VERSION, KIND_BLOOM, HASH_XXH3_64, self.family, self.seed,
                            self.m, self.k, self.layout, 0, 0) + bytes(self.bits)

    @property
    def layout_name(self):
        return LAYOUT_NAMES[self.layout]

    def bit(self, j):
        return self.bits[j >> 3] >> (j & 7) & 1

    def positions(self, h):
        """The k bit positions of the unsigned hash h, in probe order."""
        if self.layout == LAYOUT_BLOCKED:
            return blocked_positions(h, self.m, self.k)
        return probes(h, self.m, self.k)

    def contains_hash(self, h):
        bits = self.bits
        if self.layout == LAYOUT_BLOCKED:
            base = ((h * (self.m >> 9)) >> 64) << 6     # the block's first byte
            for i in range(self.k):
                if i % BLOCK_PROBES_PER_MIX == 0:
                    g = splitmix(h, i // BLOCK_PROBES_PER_MIX)
                else:
                    g >>= 9
                if not bits[base + ((g & 511) >> 3)] >> (g & 7) & 1:
                    return False
            return True
        m = self.m
        for i in range(1, self.k + 1):
            z = (h + i * _GOLDEN) & MASK64
            z = ((z ^ (z >> 30)) * _MIX1) & MASK64
            z = ((z ^ (z >> 27)) * _MIX2) & MASK64
            p = ((z ^ (z >> 31)) * m) >> 64
            if not bits[p >> 3] >> (p & 7) & 1:
                return False
        return True

    def contains(self, value):
        """f @> value: True if the value is probably in the filter."""
        return self.contains_hash(self.hash(value))

    __contains__ = contains

    def add_hash(self, h):
        """Set the bits of the unsigned hash h (bs_bloom_add)."""
        for p in self.positions(h):
            self.bits[p >> 3] |= 1 << (p & 7)

    def add(self, value):
        """bloom_add(f, value), in place: a filter of family none takes the
        family of its first key; a key of another family raises FamilyError."""
        k = self.key(value)
        self.add_hash(_xxh3(k.data, seed=self.seed))
        if self.family == FAMILY_NONE:
            self.family = k.family
        return self

    def bits_set(self):
        return sum(bin(b).count("1") for b in self.bits)

    def _block_fills(self):
        for b in range(0, len(self.bits), BLOCK_BYTES):
            yield sum(bin(x).count("1") for x in self.bits[b:b + BLOCK_BYTES])

    def cardinality(self):
        """bloom_cardinality(f) (bloom_info's estimated_cardinality), as
        bs_bloom_cardinality_of: classic -(m/k) ln(1 - X/m) (Swamidass and
        Baldi), blocked the sum of each block's -(512/k) ln(1 - X_b/512);
        infinity when every bit (of a block) is set."""
        if self.layout == LAYOUT_BLOCKED:
            per = [-(BLOCK_BITS / self.k) * math.log1p(-x / BLOCK_BITS) for x in range(BLOCK_BITS)]
            per.append(math.inf)
            n = 0.0
            for x in self._block_fills():
                n += per[x]
            return n
        x = self.bits_set()
        if x >= self.m:
            return math.inf
        return -(self.m / self.k) * math.log1p(-x / self.m)

    def fpr(self):
        """bloom_fpr(f) (bloom_info's estimated_fpr), as bs_bloom_fpr_of:
        classic (X/m)^k, blocked the mean over the blocks of (X_b/512)^k."""
        if self.layout == LAYOUT_BLOCKED:
            per = [math.pow(x / BLOCK_BITS, self.k) for x in range(BLOCK_BITS + 1)]
            total = 0.0
            for x in self._block_fills():
                total += per[x]
            return total / float(self.m // BLOCK_BITS)
        return math.pow(self.bits_set() / self.m, self.k)

    def stage_info(self):
        """bloom_stages(f): one Stage, without capacity, target and count."""
        return [Stage(0, None, None, self.m, self.k, None, self.bits_set(), self.cardinality(), self.fpr())]


# Growable filters (src/core/growable.h): a bloom value whose header p3 has
# LAYOUT_GROWABLE set; a directory of stages, then each stage's bits.
LAYOUT_GROWABLE = 2
GROWABLE_MAX_STAGES = 64
GROWABLE_MAX_GROWTH = 64
GROWABLE_MAX_COUNT = 1 << 53
GROWABLE_ENTRY_BYTES = 24
_ENTRY = struct.Struct("<QIIQ")         # m_i, k_i, reserved, c_i

Stage = namedtuple("Stage", "stage capacity target_fpr bits hashes keys bits_set "
                            "estimated_cardinality estimated_fpr")


def is_growable(buf):
    """Whether a bloom value's header marks it growable (p3 has bit 2)."""
    return parse_header(buf, KIND_BLOOM).p3 & LAYOUT_GROWABLE != 0


def _stage_bloom(m, k, layout, family, seed, bits):
    """A plain Bloom over one stage's (checked) bits."""
    return Bloom(_HEADER.pack(MAGIC, FORMAT_VERSION, KIND_BLOOM, HASH_XXH3_64, family, seed,
                              m, k, layout, 0, 0) + bytes(bits))


class GrowableBloom(_Sketch):
    """A growable (scalable) bloom value: stages of plain filters, stage i
    sized for n0 growth^i keys at rate fpr 2^-(i+1), in one layout.  A key is
    added to the last stage, after opening a new one when the last holds its
    capacity; a key is present if any stage holds it.  Read one with load()
    or GrowableBloom(bytes); GrowableBloom.empty() makes one as
    bloom_empty(capacity, fpr, growth => growth, layout) does."""
    kind = KIND_BLOOM

    def _check(self, h, payload, deep):
        _check_layout(h)
        if not h.p3 & LAYOUT_GROWABLE:
            raise FormatError("bloom value is not growable: read it with Bloom or load()")
        _check_growable(h, payload)
        self.n0, self.growth, self.layout, self.target = h.p1, h.p2, h.p3 & 1, _double(h.x)
        self.stages, self.counts = [], []
        off = GROWABLE_ENTRY_BYTES * h.n
        for i in range(h.n):
            m, k, _, c = _ENTRY.unpack_from(payload, GROWABLE_ENTRY_BYTES * i)
            nbytes = (m + 7) // 8
            self.stages.append(_stage_bloom(m, k, self.layout, h.family, h.seed, payload[off:off + nbytes]))
            self.counts.append(c)
            off += nbytes

    @classmethod
    def empty(cls, capacity, fpr, growth=2, layout=LAYOUT_CLASSIC, family=FAMILY_NONE, seed=0):
        """bloom_empty(capacity, fpr, growth => growth, layout): one stage,
        sized for capacity keys at rate fpr / 2."""
        if isinstance(capacity, bool) or not isinstance(capacity, int) or not 1 <= capacity <= GROWABLE_MAX_COUNT:
            raise ValueError("capacity of a growable bloom filter must be between 1 and %d, got %r"
                             % (GROWABLE_MAX_COUNT, capacity))
        if not 1 <= growth <= GROWABLE_MAX_GROWTH:
            raise ValueError("growth must be between 1 and %d, got %d" % (GROWABLE_MAX_GROWTH, growth))
        layout = layout_number(layout)
        fpr = float(fpr)
        if not 0.0 < fpr < 1.0:
            raise ValueError("false-positive rate must be between 0 and 1 (exclusive), got %s" % _num(fpr))
        g = cls.__new__(cls)
        g.family, g.seed = family, seed
        g.n0, g.growth, g.layout, g.target = capacity, growth, layout, fpr
        g.stages, g.counts = [], []
        g._open_stage()
        g.buf = g.to_bytes()
        g.header = parse_header(g.buf, KIND_BLOOM)
        return g

    def stage_target(self, i):
        """(capacity, rate) stage i is meant for: n0 growth^i keys at fpr
        2^-(i+1) (bs_growable_stage_target); ValueError past the limits."""
        if i >= GROWABLE_MAX_STAGES:
            raise ValueError("a growable bloom filter has at most %d stages" % GROWABLE_MAX_STAGES)
        cap = self.n0 * self.growth ** i
        if cap > GROWABLE_MAX_COUNT:
            raise ValueError("stage %d of a growable bloom filter of capacity %d and growth %d would hold "
                             "more than %d keys" % (i, self.n0, self.growth, GROWABLE_MAX_COUNT))
        return cap, math.ldexp(self.target, -(i + 1))

    def _open_stage(self):
        cap, p = self.stage_target(len(self.stages))
        m, k = optimal_shape(cap, p, self.layout)
        self.stages.append(Bloom.empty(m, k, self.layout, self.family, self.seed))
        self.counts.append(0)

    def to_bytes(self):
        """The value's bytes (with the adds made here)."""
        hdr = _HEADER.pack(MAGIC, FORMAT_VERSION, KIND_BLOOM, HASH_XXH3_64, self.family, self.seed,
                           self.n0, self.growth, LAYOUT_GROWABLE | self.layout, len(self.stages),
                           struct.unpack("<Q", struct.pack("<d", self.target))[0])
        directory = b"".join(_ENTRY.pack(s.m, s.k, 0, c) for s, c in zip(self.stages, self.counts))
        return hdr + directory + b"".join(bytes(s.bits) for s in self.stages)

    @property
    def layout_name(self):
        return LAYOUT_NAMES[self.layout]

    def contains_hash(self, h):
        return any(s.contains_hash(h) for s in self.stages)

    def contains(self, value):
        """f @> value: True if some stage probably holds the value."""
        return self.contains_hash(self.hash(value))

    __contains__ = contains

    def add_hash(self, h):
        """bs_growable_add: nothing if a stage holds h, else into the last
        stage, after opening a new stage when the last holds its capacity."""
        if self.contains_hash(h):
            return
        if self.counts[-1] >= self.stage_target(len(self.stages) - 1)[0]:
            self._open_stage()
        self.stages[-1].add_hash(h)
        self.counts[-1] += 1

    def add(self, value):
        """bloom_add(f, value), in place, with the family rule of Bloom.add."""
        k = self.key(value)
        self.add_hash(_xxh3(k.data, seed=self.seed))
        if self.family == FAMILY_NONE:
            self.family = k.family
            for s in self.stages:
                s.family = k.family
        return self

    def union(self, other):
        """bloom_union(a, b) (a | b): a new filter with max(S_a, S_b) stages,
        stage i the OR of both; its count the larger of the two counts and
        the estimate from the merged bits rounded to the nearest
        (floor(e + 0.5); 2^53 when the estimate is not below 2^53), or the
        other's count when one stage is empty (no key, no bit), so the
        result does not depend on the order of several unions.  Raises
        ValueError for filters that do not merge, FamilyError for families."""
        a, b = self, other
        if not isinstance(b, GrowableBloom):
            raise ValueError("cannot merge a growable bloom filter with a fixed one")
        if (a.seed, a.n0, a.growth, a.layout, _bits(a.target)) != (b.seed, b.n0, b.growth, b.layout, _bits(b.target)):
            raise ValueError("cannot merge growable bloom filters made with different parameters: "
                             "capacity %d, fpr %s, growth %d, %s stages (seed %d) and "
                             "capacity %d, fpr %s, growth %d, %s stages (seed %d)"
                             % (a.n0, _num(a.target), a.growth, a.layout_name, a.seed,
                                b.n0, _num(b.target), b.growth, b.layout_name, b.seed))
        for i, (sa, sb) in enumerate(zip(a.stages, b.stages)):
            if (sa.m, sa.k) != (sb.m, sb.k):
                raise ValueError("cannot merge growable bloom filters whose stage %d differs: "
                                 "%d bits with %d hashes and %d bits with %d hashes" % (i, sa.m, sa.k, sb.m, sb.k))
        if a.family != FAMILY_NONE and b.family != FAMILY_NONE and a.family != b.family:
            raise FamilyError("cannot merge a bloom filter of %s keys with a bloom filter of %s keys"
                              % (FAMILY_NAMES[a.family], FAMILY_NAMES[b.family]))
        if len(b.stages) > len(a.stages):
            a, b = b, a
        out = GrowableBloom(a.to_bytes())
        out.family = a.family if a.family != FAMILY_NONE else b.family
        for i, sb in enumerate(b.stages):
            s = out.stages[i]
            mine, theirs = any(s.bits), any(sb.bits)
            for j, byte in enumerate(sb.bits):
                s.bits[j] |= byte
            if b.counts[i] == 0 and not theirs:        # an empty stage takes no part
                continue
            if out.counts[i] == 0 and not mine:
                out.counts[i] = b.counts[i]
                continue
            e = s.cardinality()
            e = int(math.floor(e + 0.5)) if e < GROWABLE_MAX_COUNT else GROWABLE_MAX_COUNT
            out.counts[i] = max(out.counts[i], b.counts[i], e)
        for s in out.stages:
            s.family = out.family
        out.buf = out.to_bytes()
        out.header = parse_header(out.buf, KIND_BLOOM)
        return out

    __or__ = union

    def total_bits(self):
        """The bits of all stages (bloom_info's bits)."""
        return sum(s.m for s in self.stages)

    def bits_set(self):
        return sum(s.bits_set() for s in self.stages)

    def cardinality(self):
        """bloom_cardinality(f): the sum of the stages' estimates."""
        n = 0.0
        for s in self.stages:
            n += s.cardinality()
        return n

    def fpr(self):
        """bloom_fpr(f): the compound rate 1 - prod(1 - rate_i) of the stages."""
        keep = 1.0
        for s in self.stages:
            keep *= 1.0 - s.fpr()
        return 1.0 - keep

    def stage_info(self):
        """bloom_stages(f): a Stage row for each stage."""
        out = []
        for i, (s, c) in enumerate(zip(self.stages, self.counts)):
            cap, p = self.stage_target(i)
            out.append(Stage(i, cap, p, s.m, s.k, c, s.bits_set(), s.cardinality(), s.fpr()))
        return out


def _double(bits):
    return struct.unpack("<d", struct.pack("<Q", bits))[0]


def _bits(d):
    return struct.unpack("<Q", struct.pack("<d", d))[0]


def _num(v):
    """bs_num: the shortest of %.6g to %.16g that reads back as v, else %.17g."""
    for digits in range(6, 17):
        t = "%.*g" % (digits, v)
        if float(t) == v:
            return t
    return "%.17g" % v


def _check_layout(h):
    """bs_bloom_check's first test: p3 is a layout, plain or growable."""
    if h.p3 > LAYOUT_GROWABLE | LAYOUT_BLOCKED:
        raise FormatError("bloom value has an unknown layout %d (0 classic, 1 blocked, 2 and 3 growable)" % h.p3)


def _stage_too_small(h, fpr, i, m):
    """stage_too_small (src/core/growable.c): fewer bits than the classic
    sizing for stage i's capacity and rate, less one block and a millionth."""
    try:
        need = _optimal_bits(h.p1 * h.p2 ** i, math.ldexp(fpr, -(i + 1)))
    except ValueError:
        return True
    return float(m) + BLOCK_BITS < need * (1.0 - 1e-6)


def _check_growable(h, payload):
    """bs_growable_check (src/core/growable.c), in its order: the header
    fields, the directory's length, then stage by stage its entry, its bits'
    length and its last byte; the total length last."""
    what = "growable bloom value"
    layout = h.p3 & ~LAYOUT_GROWABLE
    if not 1 <= h.p1 <= GROWABLE_MAX_COUNT:
        raise FormatError("%s has an invalid capacity %d" % (what, h.p1))
    if not 1 <= h.p2 <= GROWABLE_MAX_GROWTH:
        raise FormatError("%s has an invalid growth %d (must be 1 to %d)" % (what, h.p2, GROWABLE_MAX_GROWTH))
    if not 1 <= h.n <= GROWABLE_MAX_STAGES:
        raise FormatError("%s has an invalid stage count %d (must be 1 to %d)" % (what, h.n, GROWABLE_MAX_STAGES))
    fpr = _double(h.x)
    if not 0.0 < fpr < 1.0:
        raise FormatError("%s has an invalid false-positive rate %s" % (what, _num(fpr)))
    if h.p1 * h.p2 ** (h.n - 1) > GROWABLE_MAX_COUNT:
        raise FormatError("%s has %d stages, more than its capacity %d and growth %d allow"
                          % (what, h.n, h.p1, h.p2))
    off = GROWABLE_ENTRY_BYTES * h.n
    if len(payload) < off:
        raise FormatError("%s of %d stages must have at least %d payload bytes, has %d"
                          % (what, h.n, off, len(payload)))
    for i in range(h.n):
        m, k, reserved, count = _ENTRY.unpack_from(payload, GROWABLE_ENTRY_BYTES * i)
        try:
            _check_shape(m, k, layout)
        except ValueError as e:
            raise FormatError("%s has an invalid stage %d: %s" % (what, i, e)) from None
        if reserved:
            raise FormatError("%s has a nonzero reserved field in stage %d" % (what, i))
        if count > GROWABLE_MAX_COUNT:
            raise FormatError("%s has an invalid key count %d in stage %d" % (what, count, i))
        if _stage_too_small(h, fpr, i, m):
            raise FormatError("%s has a stage %d of %d bits, fewer than its growth rule gives a stage "
                              "for its capacity" % (what, i, m))
        nbytes = (m + 7) // 8
        if nbytes > len(payload) - off:
            raise FormatError("%s is too short for its stage %d of %d bits" % (what, i, m))
        off += nbytes
        if m % 8 and payload[off - 1] >> (m % 8):
            raise FormatError("%s has bits set past the last bit %d of stage %d" % (what, m - 1, i))
    if off != len(payload):
        raise FormatError("%s of %d stages must have %d payload bytes, has %d" % (what, h.n, off, len(payload)))


class CountingBloom(_Sketch):
    """A cbloom value (kind 5): m counters of 4 or 8 bits, k hashes."""
    kind = KIND_CBLOOM

    def _check(self, h, payload, deep):
        if h.p3 not in (4, 8):
            raise FormatError("cbloom value has invalid counter bits %d (must be 4 or 8)" % h.p3)
        room = MAX_SKETCH_BYTES - HEADER_SIZE
        if not 1 <= h.p1 <= (room if h.p3 == 8 else 2 * room):
            raise FormatError("cbloom value has an invalid counter count %d" % h.p1)
        if not 1 <= h.p2 <= BLOOM_MAX_HASHES:
            raise FormatError("cbloom value has an invalid hash count %d (must be 1 to %d)"
                              % (h.p2, BLOOM_MAX_HASHES))
        if h.n or h.x:
            raise FormatError("cbloom value has nonzero reserved header fields")
        need = h.p1 if h.p3 == 8 else (h.p1 + 1) // 2
        if len(payload) != need:
            raise FormatError("cbloom value of %d %d-bit counters must have %d payload bytes, has %d"
                              % (h.p1, h.p3, need, len(payload)))
        if h.p3 == 4 and h.p1 % 2 and payload[-1] >> 4:
            raise FormatError("cbloom value has a nonzero unused half byte after its last counter")
        self.m, self.k, self.counter_bits = h.p1, h.p2, h.p3
        self.max = 15 if h.p3 == 4 else 255
        self.counters = payload

    def counter(self, j):
        if self.counter_bits == 8:
            return self.counters[j]
        return self.counters[j >> 1] >> ((j & 1) << 2) & 15

    def contains_hash(self, h):
        m, c, four = self.m, self.counters, self.counter_bits == 4
        for i in range(1, self.k + 1):
            z = (h + i * _GOLDEN) & MASK64
            z = ((z ^ (z >> 30)) * _MIX1) & MASK64
            z = ((z ^ (z >> 27)) * _MIX2) & MASK64
            p = ((z ^ (z >> 31)) * m) >> 64
            if not (c[p >> 1] >> ((p & 1) << 2) & 15 if four else c[p]):
                return False
        # probes sharing a counter need as many there (bs_cbloom_contains_hash)
        return self.count_hash(h) > 0

    def contains(self, value):
        """f @> value: every probed counter is non-zero, and at least the
        number of the value's probes on it unless saturated; so a value it
        holds has count >= 1."""
        return self.contains_hash(self.hash(value))

    __contains__ = contains

    def count_hash(self, h):
        mult = {}
        for p in probes(h, self.m, self.k):
            mult[p] = mult.get(p, 0) + 1
        best = self.max
        for p, n in mult.items():
            v = self.counter(p)
            if v != self.max and v // n < best:
                best = v // n
        return best

    def count(self, value):
        """cbloom_count(f, value): the smallest unsaturated counter of the
        value, each divided by how many of its probes land on it; the
        maximum (15 or 255) when all are saturated."""
        return self.count_hash(self.hash(value))

    def to_bloom(self):
        """The bit view (f::bloom): a bit set where a counter is non-zero."""
        bits = bytearray((self.m + 7) // 8)
        for j in range(self.m):
            if self.counter(j):
                bits[j >> 3] |= 1 << (j & 7)
        hdr = bytearray(self.buf[:HEADER_SIZE])
        hdr[5] = KIND_BLOOM
        hdr[28:32] = bytes(4)
        return Bloom(bytes(hdr) + bytes(bits))


class CountMin(_Sketch):
    """A cms value (kind 3): depth rows of width 64-bit counters."""
    kind = KIND_CMS

    def _check(self, h, payload, deep):
        self._check_cms(h, "cms")
        if len(payload) != 8 * h.p1 * h.p2:
            raise FormatError("cms value of width %d and depth %d must have %d payload bytes, has %d"
                              % (h.p1, h.p2, 8 * h.p1 * h.p2, len(payload)))
        self._load_counters(payload, deep)

    def _check_cms(self, h, what):
        if not _cms_shape_ok(h.p1, h.p2):
            raise FormatError("%s value has an invalid shape: width %d, depth %d" % (what, h.p1, h.p2))
        if what == "cms" and (h.p3 or h.x):
            raise FormatError("cms value has nonzero reserved header fields")
        if h.n > CMS_MAX_COUNT:
            raise FormatError("%s value has a total past %d" % (what, CMS_MAX_COUNT))
        self.width, self.depth, self.total = h.p1, h.p2, h.n

    def _load_counters(self, payload, deep, what="cms"):
        n = self.width * self.depth
        self.counters = struct.unpack_from("<%dQ" % n, payload)
        if deep:
            _check_cms_rows(self.counters, self.width, self.depth, self.total, what)

    def counter(self, row, col):
        return self.counters[row * self.width + col]

    def frequency_hash(self, h):
        w, c = self.width, self.counters
        return min(c[r * w + probe(h, r, w)] for r in range(self.depth))

    def frequency(self, value):
        """cms_frequency(s, value): the smallest of the value's counters."""
        return self.frequency_hash(self.hash(value))


# A held topk value: its hash, counts and key bytes; a listed one (topk_items_bounds); the
# counts of any value (topk_bounds); topk_info's columns.
TopKEntry = namedtuple("TopKEntry", "hash lower upper key")
TopKRow = namedtuple("TopKRow", "value frequency lower_bound upper_bound")
TopKBounds = namedtuple("TopKBounds", "frequency lower_bound upper_bound")
TopKInfo = namedtuple("TopKInfo", "k width depth epsilon delta total candidates bytes key_family "
                                  "format_version capacity untracked_max")
_RECORD = struct.Struct("<QQI")


class TopK(CountMin):
    """A topk value (kind 4) of either format (header version byte):

    - format 2 (bloomsketch 1.5 on, src/core/topk.h): the Count-Min counters,
      floor (a bound on the count of every value not held), then the values
      held, in increasing order of hash, each with a lower count (counted
      while it was held) and an upper bound; capacity C (x low) and values
      held c (x high, at most 2C);
    - format 1 (1.0 to 1.4, src/core/topk_v1.h): the Count-Min counters, 2k
      candidate slots and the candidates' key bytes; a value's estimate is
      its Count-Min estimate, its lower bound 0.

    items(n), items_bounds(n), bounds(value), upper_bound(value) and info()
    answer as topk_items, topk_items_bounds, topk_bounds, topk_upper_bound
    (->) and topk_info.  frequency(value) is the Count-Min estimate of the
    counters (an upper bound of the count; topk_bounds' frequency for
    format 1 only).  candidates lists what the value holds, in stored order,
    as (hash, count, key bytes): format 1 the slot's estimate, format 2 the
    lower count.  entries: format 2 the values held, in stored (hash) order,
    as TopKEntry(hash, lower, upper, key); format 1 the candidates ranked,
    each once, lower 0 and upper the Count-Min estimate.  ranked() lists
    them best first, as the server does."""
    kind = KIND_TOPK

    def _check(self, h, payload, deep):
        self.format_version = h.version
        if h.version == TOPK_FORMAT_V1:
            self._check_v1(h, payload, deep)
        else:
            self._check_v2(h, payload, deep)

    def _check_v1(self, h, payload, deep):
        """bs_topk1_check (src/core/topk_v1.c), in its order."""
        if not 1 <= h.p3 <= TOPK_MAX_K:
            raise FormatError("topk value has an invalid k %d (1 to %d)" % (h.p3, TOPK_MAX_K))
        self._check_cms(h, "topk")
        self.k = h.p3
        cap = 2 * h.p3
        cbytes = 8 * h.p1 * h.p2
        fixed = cbytes + cap * TOPK_SLOT
        if len(payload) < fixed:
            raise FormatError("topk value of width %d, depth %d and k %d needs at least %d payload bytes, has %d"
                              % (h.p1, h.p2, h.p3, fixed, len(payload)))
        room = len(payload) - fixed
        ncand, used = h.x & 0xFFFFFFFF, h.x >> 32
        if ncand > cap or used > room:
            raise FormatError("topk value claims %d candidates and %d key bytes in room for %d and %d"
                              % (ncand, used, cap, room))
        if ncand and h.family == FAMILY_NONE:
            raise FormatError("topk value holds candidates but no key family")
        heap = payload[fixed:fixed + used]
        self.candidates = []
        total_len = 0
        for i in range(ncand):
            hv, est, off, ln = struct.unpack_from("<QQII", payload, cbytes + i * TOPK_SLOT)
            if off > used or ln > used - off or ln > TOPK_MAX_KEY:
                raise FormatError("topk value's candidate %d lies outside its key bytes" % i)
            total_len += ln
            if total_len > used:
                raise FormatError("topk value's candidates hold more key bytes than its %d bytes of keys" % used)
            if not _key_length_fits(h.family, ln):
                raise FormatError("topk value's candidate %d has %d key bytes, wrong for %s keys"
                                  % (i, ln, FAMILY_NAMES[h.family]))
            if est > h.n:
                raise FormatError("topk value's candidate %d counts more than the total" % i)
            data = heap[off:off + ln]
            if deep and _xxh3(data, seed=h.seed) != hv:
                raise FormatError("topk value's candidate %d does not match its hash" % i)
            self.candidates.append((hv, est, data))
        if deep:
            if len({c[0] for c in self.candidates}) != ncand:
                raise FormatError("topk value holds a candidate twice")
            for i in range(ncand, cap):
                if any(payload[cbytes + i * TOPK_SLOT:cbytes + (i + 1) * TOPK_SLOT]):
                    raise FormatError("topk value has data in unused candidate slot %d" % i)
        self._load_counters(payload[:cbytes], deep, "topk")
        self.capacity, self.floor = cap, None
        # the reading of bs_topk_ranked: the canonical order of bs_topk1_compact (the Count-Min
        # estimate, highest first, then the hash), a hash listed once; lower 0, upper the estimate
        ranked = sorted(((self.frequency_hash(hv), hv, data) for hv, _, data in self.candidates),
                        key=lambda r: (-r[0], r[1]))
        self.entries, seen = [], set()
        for est, hv, data in ranked:
            if hv not in seen:
                seen.add(hv)
                self.entries.append(TopKEntry(hv, 0, est, data))
        self._ranked = self.entries

    def _check_v2(self, h, payload, deep):
        """check_v2 (src/core/topk.c), in its order: the header fields, the
        length, floor, then entry by entry its key's end and length, its
        counts and the sum of the lower counts (deep: the hash order and the
        upper bound against the Count-Min estimate), the key bytes used;
        deep: the rows of counters last."""
        cap, held = h.x & 0xFFFFFFFF, h.x >> 32
        if not 1 <= h.p3 <= TOPK_MAX_K:
            raise FormatError("topk value has an invalid k %d (1 to %d)" % (h.p3, TOPK_MAX_K))
        if not _cms_shape_ok(h.p1, h.p2):
            raise FormatError("topk value has an invalid shape: width %d, depth %d" % (h.p1, h.p2))
        if h.n > CMS_MAX_COUNT:
            raise FormatError("topk value has a total past %d" % CMS_MAX_COUNT)
        if cap < 2 * h.p3 or cap > TOPK_MAX_CAPACITY:
            raise FormatError("topk value has an invalid capacity %d for k %d (2k to %d)"
                              % (cap, h.p3, TOPK_MAX_CAPACITY))
        if held > 2 * cap:
            raise FormatError("topk value holds %d values, more than twice its capacity %d" % (held, cap))
        cbytes = 8 * h.p1 * h.p2
        fixed = cbytes + 8 + held * TOPK_RECORD
        if len(payload) < fixed:
            raise FormatError("topk value of width %d, depth %d holding %d values needs at least %d payload "
                              "bytes, has %d" % (h.p1, h.p2, held, fixed, len(payload)))
        key_bytes = len(payload) - fixed
        if held and h.family == FAMILY_NONE:
            raise FormatError("topk value holds values but no key family")
        floor = struct.unpack_from("<Q", payload, cbytes)[0]
        if floor > h.n:
            raise FormatError("topk value's bound of values not held, %d, is past its total %d" % (floor, h.n))
        self.width, self.depth, self.total = h.p1, h.p2, h.n
        self._load_counters(payload[:cbytes], False)
        keys = payload[fixed:]
        self.entries = []
        prev_end = sum_lower = prev_hash = 0
        for i in range(held):
            lower, upper, end = _RECORD.unpack_from(payload, cbytes + 8 + i * TOPK_RECORD)
            if end < prev_end or end > key_bytes:
                raise FormatError("topk value's entry %d ends its key at byte %d, outside %d to %d"
                                  % (i, end, prev_end, key_bytes))
            ln = end - prev_end
            if ln > TOPK_MAX_KEY or not _key_length_fits(h.family, ln):
                raise FormatError("topk value's entry %d has %d key bytes, wrong for %s keys"
                                  % (i, ln, FAMILY_NAMES[h.family]))
            if lower < 1 or lower > upper or upper > h.n:
                raise FormatError("topk value's entry %d counts %d to %d, not within 1 to its total %d"
                                  % (i, lower, upper, h.n))
            sum_lower += lower
            if sum_lower > h.n:
                raise FormatError("topk value's lower counts sum past its total %d" % h.n)
            data = keys[prev_end:end]
            hv = _xxh3(data, seed=h.seed)
            if deep:
                if i > 0 and hv <= prev_hash:
                    raise FormatError("topk value's entries are not in increasing order of hash at entry %d" % i)
                est = self.frequency_hash(hv)
                if upper > est:
                    raise FormatError("topk value's entry %d has an upper bound %d past its Count-Min estimate %d"
                                      % (i, upper, est))
                prev_hash = hv
            self.entries.append(TopKEntry(hv, lower, upper, data))
            prev_end = end
        if prev_end != key_bytes:
            raise FormatError("topk value has %d key bytes, its entries use %d" % (key_bytes, prev_end))
        if deep:
            _check_cms_rows(self.counters, self.width, self.depth, self.total, "topk")
        self.k, self.capacity, self.floor = h.p3, cap, floor
        self.candidates = [(e.hash, e.lower, e.key) for e in self.entries]
        # bs_topk_ranked: by lower count, then upper bound (both highest first), then hash
        self._ranked = sorted(self.entries, key=lambda e: (-e.lower, -e.upper, e.hash))

    def _wanted(self, n):
        """How many values to list: k, or n between 1 and the capacity (items_wanted, src/topk.c)."""
        if n is None:
            return self.k
        if isinstance(n, bool) or not isinstance(n, int):
            raise TypeError("n must be an int, not %s" % type(n).__name__)
        if not 1 <= n <= self.capacity:
            raise ValueError("n must be between 1 and the sketch's capacity %d, got %d" % (self.capacity, n))
        return n

    def ranked(self):
        """Every value listed, best first (bs_topk_ranked), as TopKEntry:
        format 2 by lower count, then upper bound (highest first), then hash;
        format 1 by the Count-Min estimate, then hash, lower 0 and upper the
        estimate."""
        return list(self._ranked)

    def items_bounds(self, n=None, encoding="utf-8"):
        """topk_items_bounds(t [, n]): the first n (default k; 1 to the
        capacity, ValueError otherwise) values as TopKRow(value, frequency,
        lower_bound, upper_bound); frequency is the lower count for format 2,
        the Count-Min estimate for format 1."""
        out = []
        for e in self._ranked[:self._wanted(n)]:
            est = e.upper if self.format_version == TOPK_FORMAT_V1 else e.lower
            out.append(TopKRow(decode_key(self.family, e.key, encoding), est, e.lower, e.upper))
        return out

    def items(self, n=None, encoding="utf-8"):
        """topk_items(t [, n]): the first n (default k) values as (value, frequency)."""
        return [(r.value, r.frequency) for r in self.items_bounds(n, encoding)]

    def lookup_hash(self, h, data):
        """(held, TopKBounds) of the value of hash h and key bytes data
        (bs_topk_lookup).  Format 2: a held value's counts (frequency = lower),
        else 0, 0 and the smaller of floor and the Count-Min estimate;
        format 1: the Count-Min estimate, 0 and the estimate."""
        data = bytes(data)
        if self.format_version == TOPK_FORMAT_V1:
            est = self.frequency_hash(h)
            held = any(hv == h and key == data for hv, _, key in self.candidates)
            return held, TopKBounds(est, 0, est)
        lo, hi = 0, len(self.entries)
        while lo < hi:                  # the entries are in increasing order of hash
            mid = lo + (hi - lo) // 2
            e = self.entries[mid]
            if e.hash == h:
                if e.key == data:
                    return True, TopKBounds(e.lower, e.lower, e.upper)
                break                   # another value with its hash: not held
            if e.hash < h:
                lo = mid + 1
            else:
                hi = mid
        return False, TopKBounds(0, 0, min(self.floor, self.frequency_hash(h)))

    def bounds(self, value):
        """topk_bounds(t, value): TopKBounds(frequency, lower_bound,
        upper_bound) of any value, held or not; the true count of the value
        is between the bounds.  FamilyError for a key of another family."""
        k = self.key(value)
        return self.lookup_hash(_xxh3(k.data, seed=self.seed), k.data)[1]

    def upper_bound(self, value):
        """topk_upper_bound(t, value), t -> value: never below the true count."""
        return self.bounds(value).upper_bound

    def holds(self, value):
        """Whether the sketch holds the value (format 1: among its candidates)."""
        k = self.key(value)
        return self.lookup_hash(_xxh3(k.data, seed=self.seed), k.data)[0]

    def info(self):
        """topk_info(t) as a TopKInfo: bytes counts the 4-byte varlena header,
        as the server does; untracked_max is floor, None for format 1."""
        return TopKInfo(self.k, self.width, self.depth, _CMS_E / self.width, math.exp(-float(self.depth)),
                        self.total, self.header.x & 0xFFFFFFFF if self.format_version == TOPK_FORMAT_V1
                        else len(self.entries), len(self.buf) + 4, FAMILY_NAMES[self.family],
                        self.format_version, self.capacity, self.floor)


_CLASSES = {KIND_BLOOM: Bloom, KIND_CBLOOM: CountingBloom, KIND_CMS: CountMin, KIND_TOPK: TopK}


def load(buf, deep=True):
    """A sketch from its bytes, of the class its kind byte names (a bloom
    with the growable bit in p3: a GrowableBloom).  Raises
    FormatError for invalid bytes and for a bloom_agg_state (an aggregate's
    transition state, which this client does not read)."""
    h = parse_header(buf)
    if h.kind == KIND_BLOOM and h.p3 & LAYOUT_GROWABLE:
        return GrowableBloom(buf, deep)
    if h.kind not in _CLASSES:
        raise FormatError("value is a %s sketch, which this client does not read"
                          % KIND_NAMES[h.kind])
    return _CLASSES[h.kind](buf, deep)
