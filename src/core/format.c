#include "format.h"

#include <inttypes.h>
#include <string.h>

#include "endian.h"
#include "hash.h"

const char *
bs_kind_name(int kind)
{
	const bs_kind_def *d = bs_kind_def_of(kind);

	return d ? d->name : "unknown";
}

void
bs_header_init(bs_header *h, bs_kind kind, uint8_t family, uint64_t seed)
{
	memset(h, 0, sizeof(*h));
	h->version = BS_FORMAT_VERSION;
	h->kind = (uint8_t) kind;
	h->hash_alg = BS_HASH_XXH3_64;
	h->family = family;
	h->seed = seed;
}

void
bs_sketch_init(uint8_t *buf, bs_kind kind, uint8_t family, uint64_t seed,
			   uint64_t p1, uint32_t p2, uint32_t p3, uint64_t payload_bytes)
{
	bs_header	h;

	bs_header_init(&h, kind, family, seed);
	h.p1 = p1;
	h.p2 = p2;
	h.p3 = p3;
	bs_header_write(buf, &h);
	memset(buf + BS_HEADER_SIZE, 0, (size_t) payload_bytes);
}

void
bs_header_write(uint8_t *buf, const bs_header *h)
{
	buf[0] = BS_MAGIC_0;
	buf[1] = BS_MAGIC_1;
	buf[2] = BS_MAGIC_2;
	buf[3] = BS_MAGIC_3;
	buf[4] = h->version;
	buf[5] = h->kind;
	buf[6] = h->hash_alg;
	buf[7] = h->family;
	bs_store64(buf + BS_OFF_SEED, h->seed);
	bs_store64(buf + BS_OFF_P1, h->p1);
	bs_store32(buf + BS_OFF_P2, h->p2);
	bs_store32(buf + BS_OFF_P3, h->p3);
	bs_store64(buf + BS_OFF_N, h->n);
	bs_store64(buf + BS_OFF_X, h->x);
}

void
bs_header_read(const uint8_t *buf, bs_header *h)
{
	h->version = buf[4];
	h->kind = buf[5];
	h->hash_alg = buf[6];
	h->family = buf[7];
	h->seed = bs_load64(buf + BS_OFF_SEED);
	h->p1 = bs_load64(buf + BS_OFF_P1);
	h->p2 = bs_load32(buf + BS_OFF_P2);
	h->p3 = bs_load32(buf + BS_OFF_P3);
	h->n = bs_load64(buf + BS_OFF_N);
	h->x = bs_load64(buf + BS_OFF_X);
}

bs_status
bs_validate(const uint8_t *buf, size_t len, bs_kind kind, bool deep,
			bs_header *out, bs_error *err)
{
	const bs_kind_def *def = bs_kind_def_of(kind);
	bs_header	h;

	if (len < BS_HEADER_SIZE)
		return bs_fail(err, BS_ERR_FORMAT,
					   "%s value is too short: %zu bytes, the header alone has %d",
					   bs_kind_name(kind), len, BS_HEADER_SIZE);
	if (buf[0] != BS_MAGIC_0 || buf[1] != BS_MAGIC_1 ||
		buf[2] != BS_MAGIC_2 || buf[3] != BS_MAGIC_3)
		return bs_fail(err, BS_ERR_FORMAT,
					   "%s value has a bad magic number: not a bloomsketch sketch",
					   bs_kind_name(kind));
	bs_header_read(buf, &h);
	if (def == NULL)
		return bs_fail(err, BS_ERR_FORMAT, "unknown sketch kind %d", kind);
	if (h.version < 1 || h.version > def->max_version)
		return def->max_version == 1
			? bs_fail(err, BS_ERR_FORMAT,
					  "%s value has format version %d; this version reads version 1",
					  bs_kind_name(kind), h.version)
			: bs_fail(err, BS_ERR_FORMAT,
					  "%s value has format version %d; this version reads versions 1 to %d",
					  bs_kind_name(kind), h.version, def->max_version);
	if (h.kind != kind)
		return bs_kind_def_of(h.kind) == NULL
			? bs_fail(err, BS_ERR_FORMAT,
					  "value is not a %s sketch: its kind byte is %d", bs_kind_name(kind), h.kind)
			: bs_fail(err, BS_ERR_FORMAT,
					  "value is a %s sketch, not a %s",
					  bs_kind_name(h.kind), bs_kind_name(kind));
	if (h.hash_alg != BS_HASH_XXH3_64)
		return bs_fail(err, BS_ERR_FORMAT,
					   "%s value names unknown hash algorithm %d",
					   bs_kind_name(kind), h.hash_alg);
	if (h.family > BS_FAMILY_MAX)
		return bs_fail(err, BS_ERR_FORMAT,
					   "%s value names unknown key family %d",
					   bs_kind_name(kind), h.family);
	if (len > BS_MAX_SKETCH_BYTES)
		return bs_fail(err, BS_ERR_FORMAT,
					   "%s value is too long: %zu bytes", bs_kind_name(kind), len);

	if (def->check(&h, buf + BS_HEADER_SIZE, len - BS_HEADER_SIZE, deep, err) != BS_OK)
		return BS_ERR_FORMAT;
	if (out)
		*out = h;
	return BS_OK;
}

bool
bs_family_compatible(uint8_t a, uint8_t b)
{
	return a == b || a == BS_FAMILY_NONE || b == BS_FAMILY_NONE;
}

bs_status
bs_check_merge_families(uint8_t a, uint8_t b, const char *msg, bs_error *err)
{
	if (bs_family_compatible(a, b))
		return BS_OK;
	return bs_fail(err, BS_ERR_FAMILY, msg, bs_family_name(a), bs_family_name(b));
}

uint8_t
bs_family_join(uint8_t a, uint8_t b)
{
	return a == BS_FAMILY_NONE ? b : a;
}

bs_status
bs_total_size(uint64_t payload, const char *what, uint64_t *total, bs_error *err)
{
	if (payload > BS_MAX_SKETCH_BYTES - BS_HEADER_SIZE)
	{
		bs_fail(err, BS_ERR_LIMIT,
				"%s would take %" PRIu64 " bytes, more than the limit of %" PRIu64,
				what, payload, BS_MAX_SKETCH_BYTES - BS_HEADER_SIZE);
		bs_error_hint(err, BS_LIMIT_TEXT " Ask for a smaller capacity or a larger false-positive rate.");
		return BS_ERR_LIMIT;
	}
	*total = payload + BS_HEADER_SIZE;
	return BS_OK;
}

size_t
bs_hex_encoded_len(size_t len)
{
	return 2 + 2 * len;
}

void
bs_hex_encode(const uint8_t *buf, size_t len, char *out)
{
	static const char digits[] = "0123456789abcdef";
	size_t		i;

	*out++ = '\\';
	*out++ = 'x';
	for (i = 0; i < len; i++)
	{
		*out++ = digits[buf[i] >> 4];
		*out++ = digits[buf[i] & 15];
	}
}

static int
hex_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

bs_status
bs_hex_decode(const char *text, size_t textlen, uint8_t *out, size_t *outlen,
			  bs_error *err)
{
	size_t		i,
				o = 0;

	if (textlen < 2 || text[0] != '\\' || text[1] != 'x')
		return bs_fail(err, BS_ERR_FORMAT,
					   "sketch text must start with \"\\x\" followed by hexadecimal digits");
	if ((textlen - 2) % 2 != 0)
		return bs_fail(err, BS_ERR_FORMAT,
					   "sketch text has an odd number of hexadecimal digits");
	for (i = 2; i < textlen; i += 2)
	{
		int			hi = hex_value(text[i]),
					lo = hex_value(text[i + 1]);

		if (hi < 0 || lo < 0)
			return bs_fail(err, BS_ERR_FORMAT,
						   "sketch text has an invalid hexadecimal digit at position %zu",
						   hi < 0 ? i + 1 : i + 2);
		out[o++] = (uint8_t) (hi << 4 | lo);
	}
	*outlen = o;
	return BS_OK;
}
