/*
 * alloc.h: how the core gets memory.  The core never calls malloc: a
 * function that makes or grows a sketch takes a bs_allocator, which the
 * PostgreSQL glue backs with palloc in the right memory context
 * (bs_palloc_allocator, src/sketch_io.c) and the C tests with malloc or an
 * arena.
 */
#ifndef BS_ALLOC_H
#define BS_ALLOC_H

#include <stddef.h>
#include <stdint.h>

/*
 * Allocation is the caller's: alloc returns len zeroed bytes or does not
 * return.  release, when not NULL, takes back a buffer that alloc gave and
 * that nothing points to any more.
 */
typedef struct bs_allocator
{
	uint8_t    *(*alloc) (void *ctx, size_t len);
	void	   *ctx;
	void		(*release) (void *ctx, uint8_t *buf);
} bs_allocator;

#endif
