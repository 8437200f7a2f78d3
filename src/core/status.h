/*
 * status.h: how the PostgreSQL-independent core reports a problem.
 *
 * The core never aborts and never prints.  A function that can fail returns
 * a bs_status and fills a bs_error; the SQL glue turns that into an
 * ereport(ERROR) with the SQLSTATE that fits the status.
 */
#ifndef BS_STATUS_H
#define BS_STATUS_H

#include <stdarg.h>
#include <stddef.h>

typedef enum bs_status
{
	BS_OK = 0,
	BS_ERR_PARAM,				/* argument out of range (22023) */
	BS_ERR_LIMIT,				/* size past a hard limit (54000) */
	BS_ERR_FORMAT,				/* bytes are not a valid sketch (22P02/22P03 on
								 * input, else XX001) */
	BS_ERR_SHAPE,				/* two sketches cannot be merged (22023) */
	BS_ERR_FAMILY,				/* key of another family (42804) */
	BS_ERR_ABSENT,				/* removing a value certainly not held (22023) */
	BS_ERR_UNSUPPORTED			/* an operation a value does not define (0A000) */
} bs_status;

typedef struct bs_error
{
	char		msg[512];
	char		detail[512];
	char		hint[512];
} bs_error;

/* Fill err (msg, then optional detail/hint via bs_error_detail/hint); returns code. */
bs_status	bs_fail(bs_error *err, bs_status code, const char *fmt,...)
			__attribute__((format(printf, 3, 4)));
void		bs_error_detail(bs_error *err, const char *fmt,...)
			__attribute__((format(printf, 2, 3)));
void		bs_error_hint(bs_error *err, const char *fmt,...)
			__attribute__((format(printf, 2, 3)));

/*
 * The SQLSTATE that reports status st, as its five characters: the code
 * noted at each error above, XX001 data_corrupted for FORMAT (the input
 * functions report bytes from outside as 22P02 or 22P03 instead), and XX000
 * internal_error for BS_OK or a value outside the enum.  Never 00000, which
 * would report an error as success.
 */
const char *bs_status_sqlstate(bs_status st);

/*
 * The shortest decimal form of a double that reads back as the same double,
 * for messages: %g would print 1.0000000000000002 as "1".  Use it inline,
 * bs_num(p).s; the temporary lives until the end of the full expression.
 */
typedef struct bs_numtext
{
	char		s[32];
} bs_numtext;

bs_numtext	bs_num(double v);

#endif
