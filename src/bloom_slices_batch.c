/*
 * bloom_slices_batch.c: the batches of a bloom_slices index (bloom_slices.h):
 * building them by shape (rows in memory, runs transposed into a spill file
 * when the memory is full), writing them as runs of pages, reading them
 * back.
 */
#include "glue.h"

#include "miscadmin.h"
#include "port/pg_bitutils.h"
#include "storage/buffile.h"
#include "storage/bufmgr.h"
#include "storage/freespace.h"
#include "storage/indexfsm.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "core/bitslice.h"
#include "core/bloom.h"

#include "bloom_slices.h"

/* ---- batches: building by shape, writing, reading back ---- */

/*
 * Rows of a run in memory: half the budget (its transpose takes as much
 * again), at least 4.  A batch is any number of runs, so the budget bounds
 * the memory a build takes, not the size of its batches.
 */
static uint32
run_capacity(Size fbytes, Size budget)
{
	uint64		rows = (budget / 2) / Max(fbytes, 1);

	return (uint32) Min(Max(rows, 4), BSL_MAX_ROWS);
}

/*
 * npages contiguous pages for a batch: a run of free pages when there is one
 * (bs->reuse: not while building), else new pages.  Free pages are claimed
 * under the meta page's exclusive lock, under which inserts take theirs.
 * A claimed page that a crash leaves unwritten is still marked deleted, and
 * the next sweep frees it again.
 */
static BlockNumber
alloc_run(BslBuild *bs, uint32 npages)
{
	Relation	index = bs->index;

	if (bs->reuse)
	{
		Buffer		metabuf = ReadBuffer(index, BSL_META_BLKNO);
		BlockNumber nblocks = RelationGetNumberOfBlocks(index),
					blk,
					start = InvalidBlockNumber;
		uint32		run = 0;

		LockBuffer(metabuf, BUFFER_LOCK_EXCLUSIVE);
		for (blk = 1; blk < nblocks && run < npages; blk++)
		{
			if (GetRecordedFreeSpace(index, blk) >= BLCKSZ / 2)
			{
				if (run++ == 0)
					start = blk;
			}
			else
				run = 0;
		}
		/* the free space map is not crash-safe: each page must say it is free */
		for (blk = start; run == npages && blk < start + npages; blk++)
		{
			Buffer		buf = ReadBuffer(index, blk);
			Page		page;

			LockBuffer(buf, BUFFER_LOCK_SHARE);
			page = BufferGetPage(buf);
			if (!PageIsNew(page) && !bsl_page_is(page, BSL_KIND_DELETED))
				run = 0;
			UnlockReleaseBuffer(buf);
		}
		if (run == npages)
		{
			for (blk = start; blk < start + npages; blk++)
				RecordUsedIndexPage(index, blk);
			UnlockReleaseBuffer(metabuf);
			return start;
		}
		UnlockReleaseBuffer(metabuf);
	}
	return bsl_extend_run(index, npages);
}

void
bsl_build_init(BslBuild *bs, Relation index, Size budget)
{
	memset(bs, 0, sizeof(*bs));
	bs->index = index;
	bs->budget = Max(budget, BSL_BATCH_BYTES);
	bs->cxt = AllocSetContextCreate(CurrentMemoryContext, "bloom_slices batches",
									ALLOCSET_DEFAULT_SIZES);
}

static BslBuilder *
builder_for(BslBuild *bs, const BslShape *shape)
{
	BslBuilder *b;

	if (bs->last != NULL && bsl_shape_eq(&bs->last->shape, shape))
		return bs->last;
	for (b = bs->builders; b != NULL; b = b->next)
		if (bsl_shape_eq(&b->shape, shape))
			return bs->last = b;
	b = MemoryContextAllocZero(bs->cxt, sizeof(BslBuilder));
	b->shape = *shape;
	b->fbytes = (Size) ((shape->m + 7) / 8);
	b->cap = run_capacity(b->fbytes, bs->budget);
	b->next = bs->builders;
	bs->builders = b;
	return bs->last = b;
}

/* The builder's rows in memory, transposed: m slices of ceil(n / 8) bytes. */
static uint8 *
transpose_rows(BslBuild *bs, BslBuilder *b)
{
	Size		sb = (b->n + 7) / 8;
	uint8	   *slices = MemoryContextAllocExtended(bs->cxt, (Size) b->shape.m * sb,
													MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);

	bs_slices_from_rows(b->rows, b->n, b->fbytes, b->shape.m, slices, sb);
	return slices;
}

static void
release_rows(BslBuild *bs, BslBuilder *b)
{
	bs->memory -= (Size) b->alloc * b->fbytes;
	if (b->rows)
		pfree(b->rows);
	if (b->tids)
		pfree(b->tids);
	b->rows = NULL;
	b->tids = NULL;
	b->n = 0;
	b->alloc = 0;
}

static void
spill_write(BslBuild *bs, const void *data, Size len)
{
	/* BufFileWrite reports its own errors (and takes a const pointer from 16 on) */
	BufFileWrite(bs->spill, (void *) data, len);
}

/*
 * Move the builder's rows in memory to the spill file as one run: n TIDs,
 * then the m slices of its rows, padded to a block.
 */
static void
spill_builder(BslBuild *bs, BslBuilder *b)
{
	uint8	   *slices;
	BslRun	   *run;
	Size		bytes,
				pad;
	static const char zeros[BLCKSZ];

	if (b->n == 0)
		return;
	slices = transpose_rows(bs, b);
	if (bs->spill == NULL)
	{
		MemoryContext old = MemoryContextSwitchTo(bs->cxt);

		bs->spill = BufFileCreateTemp(false);
		MemoryContextSwitchTo(old);
	}
	if (BufFileSeekBlock(bs->spill, bs->spill_blks) != 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("bloom_slices: could not seek to block %ld of a temporary file",
						bs->spill_blks)));
	bytes = (Size) b->n * sizeof(ItemPointerData) + (Size) b->shape.m * ((b->n + 7) / 8);
	spill_write(bs, b->tids, (Size) b->n * sizeof(ItemPointerData));
	spill_write(bs, slices, (Size) b->shape.m * ((b->n + 7) / 8));
	pad = (BLCKSZ - bytes % BLCKSZ) % BLCKSZ;
	if (pad)
		spill_write(bs, zeros, pad);
	pfree(slices);

	run = MemoryContextAlloc(bs->cxt, sizeof(BslRun));
	run->n = b->n;
	run->blk = bs->spill_blks;
	bs->spill_blks += (long) ((bytes + pad) / BLCKSZ);
	b->runs = lappend(b->runs, run);
	release_rows(bs, b);
}

/*
 * A source of a batch being written: a run's TIDs and slices, in memory or
 * read from the spill file through a window that moves forward; or a batch
 * of the index, read slice by slice and without its dead rows.
 */
typedef struct BatchSource
{
	uint32		n;				/* rows it gives */
	Size		sb;				/* ceil(n / 8) */
	const BslDirEntry *old;		/* an index batch: its entry, head, live rows */
	BslHead		oldh;
	uint8	   *keep;
	uint8	   *raw;			/* one of its slices */
	const uint8 *mem;			/* in memory: the TIDs, then the slices */
	long		blk;			/* else in the spill file from this block */
	uint64		size;			/* bytes of TIDs and slices */
	char	   *win;
	Size		wcap;
	uint64		wstart;			/* a multiple of BLCKSZ */
	Size		wlen;
} BatchSource;

/* Bytes off .. off + len of a source (len + BLCKSZ <= its window). */
static const uint8 *
source_bytes(BslBuild *bs, BatchSource *s, uint64 off, Size len)
{
	if (s->mem)
		return s->mem + off;
	if (off < s->wstart || off + len > s->wstart + s->wlen)
	{
		Size		want;

		s->wstart = off - off % BLCKSZ;
		want = (Size) Min((uint64) s->wcap, s->size - s->wstart);
		if (BufFileSeekBlock(bs->spill, s->blk + (long) (s->wstart / BLCKSZ)) != 0 ||
			BufFileRead(bs->spill, s->win, want) != want)
			ereport(ERROR,
					(errcode_for_file_access(),
					 errmsg("bloom_slices: could not read %zu bytes of a temporary file at block %ld",
							want, s->blk + (long) (s->wstart / BLCKSZ))));
		s->wlen = want;
	}
	return (const uint8 *) s->win + (off - s->wstart);
}

/* Append bytes to a stream of pages of one kind, writing each page when full. */
typedef struct PageStream
{
	Relation	index;
	BlockNumber next_blk;
	BlockNumber head;
	uint16		kind;
	Size		fill;
	char	   *page;
} PageStream;

static void
stream_flush(PageStream *ps)
{
	if (ps->fill == 0)
		return;
	CHECK_FOR_INTERRUPTS();
	bsl_write_new_page(ps->index, ps->next_blk++, ps->page, ps->fill, ps->kind, ps->head);
	ps->fill = 0;
}

static void
stream_put(PageStream *ps, const void *data, Size len, Size per_page)
{
	const char *p = data;

	while (len > 0)
	{
		Size		c = Min(len, per_page - ps->fill);

		memcpy(ps->page + ps->fill, p, c);
		ps->fill += c;
		p += c;
		len -= c;
		if (ps->fill == per_page)
			stream_flush(ps);
	}
}

/* The TIDs of an index batch's live rows, onto the stream. */
static void
old_tids(BslBuild *bs, BatchSource *o, PageStream *ps)
{
	char	   *pg = palloc(BSL_USABLE);
	uint32		r,
				given = 0;
	Size		per_page = (Size) BSL_TIDS_PER_PAGE * sizeof(ItemPointerData);

	for (r = 0; r < o->oldh.nrows; r++)
	{
		if (r % o->oldh.tids_per_page == 0)
		{
			CHECK_FOR_INTERRUPTS();
			if (!bsl_read_batch_page(bs->index, BSL_TID_BLK(o->old, &o->oldh) + r / o->oldh.tids_per_page,
									 o->old->head, BSL_KIND_TIDS, NULL, pg))
				bsl_corrupt(bs->index, "a TID page is not its batch's", o->old->head);
		}
		if (o->keep[r / 8] & (1 << (r % 8)))
		{
			stream_put(ps, pg + (r % o->oldh.tids_per_page) * sizeof(ItemPointerData),
					   sizeof(ItemPointerData), per_page);
			given++;
		}
	}
	if (given != o->n)
		elog(ERROR, "bloom_slices: a batch's live rows changed while it was rewritten");
	pfree(pg);
}

/*
 * Write one batch of the shape from its sources, laid end to end: head,
 * dead-row bitmap (all live), TIDs, then slice j of the batch as slice j of
 * every source in turn.  Remembers it in bs->written.
 */
static void
write_batch(BslBuild *bs, const BslShape *shape, BatchSource *src, int nsrc)
{
	Relation	index = bs->index;
	uint64		n = 0,
				m = shape->m,
				j,
				ns,
				npages;
	uint32		sb,
				nd,
				nt,
				tpp = BSL_TIDS_PER_PAGE,
				i;
	BlockNumber first;
	BslHead    *head;
	PageStream	ps;
	uint8	   *out;
	BslDirEntry *e;
	int			x;

	for (x = 0; x < nsrc; x++)
		n += src[x].n;
	if (n == 0)
		return;
	if (n > BSL_MAX_ROWS)
		elog(ERROR, "bloom_slices: a batch of %llu rows", (unsigned long long) n);
	sb = (uint32) ((n + 7) / 8);
	nd = (sb + BSL_USABLE - 1) / BSL_USABLE;
	nt = (uint32) ((n + tpp - 1) / tpp);
	ns = (m * sb + BSL_USABLE - 1) / BSL_USABLE;
	npages = 1 + nd + nt + ns;
	if (npages > MaxBlockNumber / 2)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("bloom_slices index \"%s\": %llu filters of %llu bits would take more pages than an index can have",
						RelationGetRelationName(index), (unsigned long long) n,
						(unsigned long long) m)));
	first = alloc_run(bs, (uint32) npages);

	memset(&ps, 0, sizeof(ps));
	ps.index = index;
	ps.head = first;
	ps.page = palloc0(BSL_USABLE);
	head = (BslHead *) ps.page;
	head->m = m;
	head->seed = shape->seed;
	head->k = shape->k;
	head->layout = shape->layout;
	head->family = shape->family;
	head->nrows = (uint32) n;
	head->ndead = 0;
	head->slice_bytes = sb;
	head->tids_per_page = tpp;
	head->n_dead_pages = nd;
	head->n_tid_pages = nt;
	head->n_slice_pages = (uint32) ns;
	bsl_write_new_page(index, first, ps.page, sizeof(BslHead), BSL_KIND_HEAD, first);

	/* the dead-row bitmap: no row dead */
	memset(ps.page, 0, BSL_USABLE);
	for (i = 0; i < nd; i++)
		bsl_write_new_page(index, first + 1 + i, ps.page,
						   Min(BSL_USABLE, sb - (Size) i * BSL_USABLE), BSL_KIND_DEAD, first);

	/* TIDs: a whole number of them a page */
	ps.next_blk = first + 1 + nd;
	ps.kind = BSL_KIND_TIDS;
	for (x = 0; x < nsrc; x++)
	{
		uint32		done = 0;

		if (src[x].old)
		{
			old_tids(bs, &src[x], &ps);
			continue;
		}
		while (done < src[x].n)
		{
			uint32		c = Min(src[x].n - done, tpp);

			stream_put(&ps, source_bytes(bs, &src[x], (uint64) done * sizeof(ItemPointerData),
										 (Size) c * sizeof(ItemPointerData)),
					   (Size) c * sizeof(ItemPointerData), (Size) tpp * sizeof(ItemPointerData));
			done += c;
		}
	}
	stream_flush(&ps);

	/* slices end to end */
	ps.kind = BSL_KIND_SLICES;
	out = MemoryContextAllocExtended(bs->cxt, sb, MCXT_ALLOC_HUGE);
	for (j = 0; j < m; j++)
	{
		uint64		at = 0;

		memset(out, 0, sb);
		for (x = 0; x < nsrc; x++)
		{
			uint64		off = (uint64) src[x].n * sizeof(ItemPointerData) + j * src[x].sb;
			BatchSource *o = &src[x];

			if (o->old)
			{
				if (!bsl_read_batch_bytes(bs->index, o->old, BSL_SLICE_BLK(o->old, &o->oldh),
										  BSL_KIND_SLICES, j * o->oldh.slice_bytes,
										  o->oldh.slice_bytes, NULL, (char *) o->raw))
					bsl_corrupt(bs->index, "a slice page is not its batch's", o->old->head);
				if (bs_bits_append_kept(out, at, o->raw, o->keep, o->oldh.nrows) != o->n)
					elog(ERROR, "bloom_slices: a batch's live rows changed while it was rewritten");
			}
			else
				bs_bits_append(out, at, source_bytes(bs, o, off, o->sb), o->n);
			at += o->n;
		}
		stream_put(&ps, out, sb, BSL_USABLE);
	}
	stream_flush(&ps);
	if (ps.next_blk != first + npages)
		elog(ERROR, "bloom_slices: a batch wrote %u pages, not %llu",
			 ps.next_blk - first, (unsigned long long) npages);
	pfree(out);
	pfree(ps.page);

	e = MemoryContextAlloc(bs->cxt, sizeof(BslDirEntry));
	e->head = first;
	e->npages = (uint32) npages;
	bs->written = lappend(bs->written, e);
	bs->rows_written += n;
	bs->k_written += shape->k;
}

/* A batch of the index as a source: its head, and its live rows (the complement of its dead bitmap). */
static void
old_source(BslBuild *bs, const BslDirEntry *e, BatchSource *o)
{
	char	   *hp = palloc(BSL_USABLE);
	uint32		i;
	uint64		live = 0;

	if (!bsl_read_batch_page(bs->index, e->head, e->head, BSL_KIND_HEAD, NULL, hp) ||
		!bsl_head_ok((BslHead *) hp, e))
		bsl_corrupt(bs->index, "a batch head is not valid", e->head);
	o->old = e;
	memcpy(&o->oldh, hp, sizeof(BslHead));
	pfree(hp);
	o->keep = MemoryContextAllocExtended(bs->cxt, o->oldh.slice_bytes, MCXT_ALLOC_HUGE);
	o->raw = MemoryContextAllocExtended(bs->cxt, o->oldh.slice_bytes, MCXT_ALLOC_HUGE);
	if (!bsl_read_batch_bytes(bs->index, e, BSL_DEAD_BLK(e), BSL_KIND_DEAD, 0, o->oldh.slice_bytes,
							  NULL, (char *) o->keep))
		bsl_corrupt(bs->index, "a dead-row page is not its batch's", BSL_DEAD_BLK(e));
	for (i = 0; i < o->oldh.slice_bytes; i++)
	{
		o->keep[i] = (uint8) ~o->keep[i];
		if (i == o->oldh.nrows / 8)
			o->keep[i] &= (uint8) ((1u << (o->oldh.nrows % 8)) - 1);
		live += pg_popcount32(o->keep[i]);
	}
	o->n = (uint32) live;
	o->sb = (live + 7) / 8;
}

/*
 * Write the builder's batch: its rows in memory when nothing was spilled,
 * else every run of the spill file, the rows in memory spilled last, each
 * read through a window of an equal share of the memory.  The builder is
 * empty afterwards.
 */
static void
flush_builder(BslBuild *bs, BslBuilder *b)
{
	if (b->runs == NIL && b->old == NIL)
	{
		BatchSource one;
		uint8	   *mem;
		Size		tb = (Size) b->n * sizeof(ItemPointerData),
					sb = (b->n + 7) / 8;

		if (b->n == 0)
			return;
		mem = MemoryContextAllocExtended(bs->cxt, tb + (Size) b->shape.m * sb,
										 MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
		memcpy(mem, b->tids, tb);
		bs_slices_from_rows(b->rows, b->n, b->fbytes, b->shape.m, mem + tb, sb);
		memset(&one, 0, sizeof(one));
		one.n = b->n;
		one.sb = sb;
		one.mem = mem;
		release_rows(bs, b);
		write_batch(bs, &b->shape, &one, 1);
		pfree(mem);
	}
	else
	{
		int			nsrc,
					x = 0;
		BatchSource *src;
		ListCell   *lc;
		Size		share;

		spill_builder(bs, b);
		nsrc = list_length(b->old) + list_length(b->runs);
		src = palloc0(sizeof(BatchSource) * nsrc);
		share = (bs->budget / 2) / Max(list_length(b->runs), 1);
		foreach(lc, b->old)
			old_source(bs, lfirst(lc), &src[x++]);
		foreach(lc, b->runs)
		{
			BslRun	   *run = lfirst(lc);
			BatchSource *s = &src[x++];
			Size		least = Max((Size) (run->n + 7) / 8, BSL_USABLE) + 2 * BLCKSZ;

			s->n = run->n;
			s->sb = (run->n + 7) / 8;
			s->blk = run->blk;
			s->size = (uint64) run->n * sizeof(ItemPointerData) + b->shape.m * s->sb;
			s->wcap = Max(share, least);
			s->wcap -= s->wcap % BLCKSZ;
			s->win = MemoryContextAllocExtended(bs->cxt, s->wcap, MCXT_ALLOC_HUGE);
		}
		write_batch(bs, &b->shape, src, nsrc);
		for (x = 0; x < nsrc; x++)
		{
			if (src[x].win)
				pfree(src[x].win);
			if (src[x].keep)
				pfree(src[x].keep);
			if (src[x].raw)
				pfree(src[x].raw);
		}
		pfree(src);
		list_free_deep(b->runs);
		b->runs = NIL;
		list_free(b->old);
		b->old = NIL;
	}
	b->total = 0;
}

void
bsl_flush_all(BslBuild *bs)
{
	BslBuilder *b;

	for (b = bs->builders; b != NULL; b = b->next)
		flush_builder(bs, b);
	if (bs->spill)
	{
		BufFileClose(bs->spill);
		bs->spill = NULL;
		bs->spill_blks = 0;
	}
}

/*
 * Room for one more row in b.  Buffers grow by doubling, so that shapes
 * arriving interleaved share the budget by the rows each really has (a
 * buffer sized for a full run up front would make every new shape spill
 * the others nearly empty); past half the budget, the fullest builder, this
 * one or another, spills its rows as a run first.
 */
static void
builder_room(BslBuild *bs, BslBuilder *b)
{
	while (b->n == b->alloc)
	{
		uint32		want = b->alloc == 0 ?
			Min(b->cap, Max(4, BSL_FIRST_BYTES / b->fbytes)) :
			Min(b->cap, b->alloc * 2);
		Size		more = (Size) (want - b->alloc) * b->fbytes;
		BslBuilder *x,
				   *big = NULL;

		if (bs->memory > 0 && bs->memory + more > bs->budget / 2)
		{
			for (x = bs->builders; x != NULL; x = x->next)
				if (x->n > 0 && (big == NULL || (Size) x->n * x->fbytes > (Size) big->n * big->fbytes))
					big = x;
			if (big != NULL)
			{
				spill_builder(bs, big);
				continue;
			}
		}
		if (b->rows == NULL)
		{
			b->rows = MemoryContextAllocExtended(bs->cxt, (Size) want * b->fbytes, MCXT_ALLOC_HUGE);
			b->tids = MemoryContextAllocExtended(bs->cxt, sizeof(ItemPointerData) * want, MCXT_ALLOC_HUGE);
		}
		else
		{
			b->rows = repalloc_huge(b->rows, (Size) want * b->fbytes);
			b->tids = repalloc_huge(b->tids, sizeof(ItemPointerData) * want);
		}
		bs->memory += more;
		b->alloc = want;
	}
}

/* Add one row (bits of its shape); a full run is spilled, a full batch written. */
void
bsl_build_add(BslBuild *bs, const BslShape *shape, const uint8 *bits, ItemPointer tid)
{
	BslBuilder *b = builder_for(bs, shape);

	builder_room(bs, b);
	memcpy(b->rows + (Size) b->n * b->fbytes, bits, b->fbytes);
	b->tids[b->n++] = *tid;
	b->total++;
	if (b->total >= BSL_MAX_ROWS)
		flush_builder(bs, b);
	else if (b->n == b->cap)
		spill_builder(bs, b);
}

/* One page of a batch, read whole under a share lock; false if it is not the batch's. */
bool
bsl_read_batch_page(Relation index, BlockNumber blk, BlockNumber head, uint16 kind,
				BufferAccessStrategy strategy, char *out)
{
	Buffer		buf = ReadBufferExtended(index, MAIN_FORKNUM, blk, RBM_NORMAL, strategy);
	Page		page;
	bool		ok;

	LockBuffer(buf, BUFFER_LOCK_SHARE);
	page = BufferGetPage(buf);
	ok = bsl_page_is(page, kind) && BSL_OPAQUE(page)->next == head;
	if (ok)
		memcpy(out, PageGetContents(page), BSL_USABLE);
	UnlockReleaseBuffer(buf);
	return ok;
}


/*
 * Bytes off .. off + len of a stream of a batch's pages of one kind that
 * starts at block first, each page's contents BSL_USABLE bytes of it, read
 * under a share lock page by page; false if a page is not the batch's.
 */
bool
bsl_read_batch_bytes(Relation index, const BslDirEntry *e, BlockNumber first, uint16 kind,
					 uint64 off, Size len, BufferAccessStrategy strategy, char *out)
{
	while (len > 0)
	{
		BlockNumber blk = first + (BlockNumber) (off / BSL_USABLE);
		Size		in = (Size) (off % BSL_USABLE),
					c = Min(len, BSL_USABLE - in);
		Buffer		buf;
		Page		page;
		bool		ok;

		if (blk >= e->head + e->npages)
			return false;
		buf = ReadBufferExtended(index, MAIN_FORKNUM, blk, RBM_NORMAL, strategy);
		LockBuffer(buf, BUFFER_LOCK_SHARE);
		page = BufferGetPage(buf);
		ok = bsl_page_is(page, kind) && BSL_OPAQUE(page)->next == e->head;
		if (ok)
			memcpy(out, PageGetContents(page) + in, c);
		UnlockReleaseBuffer(buf);
		if (!ok)
			return false;
		out += c;
		off += c;
		len -= c;
	}
	return true;
}

/* The shape of a batch's rows, from its head. */
void
bsl_head_shape(const BslHead *h, BslShape *shape)
{
	shape->m = h->m;
	shape->seed = h->seed;
	shape->k = h->k;
	shape->layout = h->layout;
	shape->family = h->family;
}

/* Whether a batch head is consistent with the directory entry that names it. */
bool
bsl_head_ok(const BslHead *h, const BslDirEntry *e)
{
	uint64		sb = h->slice_bytes;

	if (h->nrows == 0 || h->nrows > BSL_MAX_ROWS || h->ndead > h->nrows ||
		sb != ((uint64) h->nrows + 7) / 8 ||
		h->tids_per_page != BSL_TIDS_PER_PAGE ||
		h->n_dead_pages != (sb + BSL_USABLE - 1) / BSL_USABLE ||
		h->n_tid_pages != ((uint64) h->nrows + h->tids_per_page - 1) / h->tids_per_page ||
		h->m == 0 || h->k == 0 || h->k > BS_BLOOM_MAX_HASHES ||
		h->m > (uint64) BSL_MAX_FILTER_BYTES * 8)
		return false;
	return h->n_slice_pages == (h->m * sb + BSL_USABLE - 1) / BSL_USABLE &&
		(uint64) e->npages == 1 + (uint64) h->n_dead_pages + h->n_tid_pages + h->n_slice_pages;
}

/*
 * Whether a batch is small enough to read back into memory (a summarise
 * rewrites only those): its rows, their slices and the rows again in the
 * builder take three times its bytes.
 */
bool
bsl_batch_loadable(const BslBuild *bs, const BslHead *h)
{
	return (uint64) h->nrows * ((h->m + 7) / 8) <= bs->budget / 4;
}

void
bsl_corrupt(Relation index, const char *what, BlockNumber blk)
{
	ereport(ERROR,
			(errcode(ERRCODE_INDEX_CORRUPTED),
			 errmsg("bloom_slices index \"%s\": %s at block %u",
					RelationGetRelationName(index), what, blk),
			 errhint("REINDEX it.")));
}

/*
 * Read a batch back into the builder of its shape: its live rows (a row
 * whose bit is set in the dead bitmap is left out).  Returns the rows
 * added.
 */
uint32
bsl_load_batch(BslBuild *bs, const BslDirEntry *e, BufferAccessStrategy strategy)
{
	Relation	index = bs->index;
	char	   *hp = palloc(BSL_USABLE),
			   *pg = palloc(BSL_USABLE);
	BslHead    *h = (BslHead *) hp;
	uint8	   *slices,
			   *rows,
			   *dead;
	ItemPointerData *tids;
	BslShape	shape;
	Size		fbytes;
	uint32		i,
				live = 0;

	if (!bsl_read_batch_page(index, e->head, e->head, BSL_KIND_HEAD, strategy, hp) || !bsl_head_ok(h, e))
		bsl_corrupt(index, "a batch head is not valid", e->head);
	fbytes = (Size) ((h->m + 7) / 8);
	dead = MemoryContextAllocExtended(bs->cxt, h->slice_bytes, MCXT_ALLOC_HUGE);
	slices = MemoryContextAllocExtended(bs->cxt, (Size) h->m * h->slice_bytes, MCXT_ALLOC_HUGE);
	if (!bsl_read_batch_bytes(index, e, BSL_DEAD_BLK(e), BSL_KIND_DEAD, 0, h->slice_bytes,
							  strategy, (char *) dead))
		bsl_corrupt(index, "a dead-row page is not its batch's", e->head);
	if (!bsl_read_batch_bytes(index, e, BSL_SLICE_BLK(e, h), BSL_KIND_SLICES, 0,
							  (Size) h->m * h->slice_bytes, strategy, (char *) slices))
		bsl_corrupt(index, "a slice page is not its batch's", e->head);
	tids = MemoryContextAllocExtended(bs->cxt, sizeof(ItemPointerData) * h->nrows, MCXT_ALLOC_HUGE);
	for (i = 0; i < h->n_tid_pages; i++)
	{
		uint32		from = i * h->tids_per_page,
					cnt = Min(h->tids_per_page, h->nrows - from);

		CHECK_FOR_INTERRUPTS();
		if (!bsl_read_batch_page(index, BSL_TID_BLK(e, h) + i, e->head, BSL_KIND_TIDS, strategy, pg))
			bsl_corrupt(index, "a TID page is not its batch's", BSL_TID_BLK(e, h) + i);
		memcpy(tids + from, pg, cnt * sizeof(ItemPointerData));
	}
	rows = MemoryContextAllocExtended(bs->cxt, (Size) h->nrows * fbytes, MCXT_ALLOC_HUGE);
	bs_rows_from_slices(slices, h->slice_bytes, h->m, h->nrows, rows, fbytes);
	pfree(slices);

	bsl_head_shape(h, &shape);
	for (i = 0; i < h->nrows; i++)
	{
		if (dead[i / 8] & (1 << (i % 8)))
			continue;
		bsl_build_add(bs, &shape, rows + (Size) i * fbytes, &tids[i]);
		live++;
	}
	pfree(rows);
	pfree(tids);
	pfree(dead);
	pfree(hp);
	pfree(pg);
	return live;
}

/*
 * Have the builder of a batch's shape rewrite the batch without its dead
 * rows, read slice by slice from the index when the shape's batch is
 * written (a batch too large to read back into memory).  Returns its live
 * rows.
 */
uint32
bsl_stream_batch(BslBuild *bs, const BslDirEntry *e, BufferAccessStrategy strategy)
{
	char	   *hp = palloc(BSL_USABLE);
	BslHead    *h = (BslHead *) hp;
	BslShape	shape;
	BslBuilder *b;
	uint32		live;

	if (!bsl_read_batch_page(bs->index, e->head, e->head, BSL_KIND_HEAD, strategy, hp) || !bsl_head_ok(h, e))
		bsl_corrupt(bs->index, "a batch head is not valid", e->head);
	bsl_head_shape(h, &shape);
	live = h->nrows - h->ndead;
	pfree(hp);
	b = builder_for(bs, &shape);
	if (b->total + live > BSL_MAX_ROWS)
		flush_builder(bs, b);
	b->old = lappend(b->old, (void *) e);
	b->total += live;
	return live;
}
