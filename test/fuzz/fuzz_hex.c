/*
 * fuzz_hex.c: the text form, as every type's input function reads it
 * (bs_sketch_in: bs_hex_decode, then bs_validate of the bytes).
 *
 * The input is the text (any bytes; PostgreSQL hands over a NUL-terminated
 * string, so this is a superset).  Checked:
 *   - bs_hex_decode writes at most (len - 2) / 2 bytes: its output buffer is
 *     allocated at exactly that length, so a write past it is an ASan report;
 *   - it accepts exactly "\x" followed by an even number of hexadecimal
 *     digits (either case), returns exactly (len - 2) / 2 bytes, and
 *     bs_hex_encode of them gives the text back (lower case);
 *   - a rejection is BS_ERR_FORMAT with a message;
 *   - the decoded bytes go through bs_validate(deep) as every kind, and
 *     what is accepted goes back through its text form;
 *   - and, the other way round, bs_hex_encode of the input's raw bytes
 *     decodes to those bytes.
 */
#include "fuzz_common.h"

static bool
is_hex_digit(uint8_t c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static uint8_t
lower(uint8_t c)
{
	return c >= 'A' && c <= 'F' ? (uint8_t) (c - 'A' + 'a') : c;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *) data;
	size_t		cap = size >= 2 ? (size - 2) / 2 : 0,
				outlen = (size_t) -1,
				i,
				tlen;
	uint8_t    *out = fz_alloc(NULL, cap);
	char	   *enc;
	bool		well_formed;
	bs_error	err;
	bs_status	st;
	int			kind;

	/* the text as an input function sees it */
	well_formed = size >= 2 && data[0] == '\\' && data[1] == 'x' && (size - 2) % 2 == 0;
	for (i = 2; well_formed && i < size; i++)
		well_formed = is_hex_digit(data[i]);
	memset(&err, 0, sizeof(err));
	st = bs_hex_decode(text, size, out, &outlen, &err);
	FZ_CHECK((st == BS_OK) == well_formed, "bs_hex_decode %s a text it should %s",
			 st == BS_OK ? "accepts" : "rejects", well_formed ? "accept" : "reject");
	if (st != BS_OK)
		fz_check_rejection(st, &err, "hex text");
	else
	{
		FZ_CHECK(outlen == cap, "decoded %zu bytes from %zu characters", outlen, size);
		tlen = bs_hex_encoded_len(outlen);
		FZ_CHECK(tlen == size, "encoded length %zu for %zu characters", tlen, size);
		enc = (char *) fz_alloc(NULL, tlen);
		bs_hex_encode(out, outlen, enc);
		for (i = 0; i < size; i++)
			FZ_CHECK((uint8_t) enc[i] == lower(data[i]), "text does not encode back at character %zu", i);
		for (kind = BS_KIND_BLOOM; kind <= BS_KIND_CBLOOM; kind++)
		{
			st = bs_validate(out, outlen, (bs_kind) kind, true, NULL, &err);
			if (st == BS_OK)
				fz_roundtrip(out, outlen, (bs_kind) kind, "decoded value");
			else
				fz_check_rejection(st, &err, bs_kind_name(kind));
		}
	}

	/* encode the raw input, decode it again */
	tlen = bs_hex_encoded_len(size);
	enc = (char *) fz_alloc(NULL, tlen);
	bs_hex_encode(data, size, enc);
	out = fz_alloc(NULL, size);
	st = bs_hex_decode(enc, tlen, out, &outlen, &err);
	FZ_CHECK(st == BS_OK && outlen == size && memcmp(out, data, size) == 0,
			 "encoding %zu bytes and decoding them does not give them back", size);

	fz_reset();
	return 0;
}
