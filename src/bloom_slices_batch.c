/*
 * bloom_slices_batch.c: the batches of a bloom_slices index (bloom_slices.h):
 * building them in memory by shape, writing them as runs of pages, reading
 * them back.
 */
#include "glue.h"

#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "storage/freespace.h"
#include "storage/indexfsm.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "core/bitslice.h"
#include "core/bloom.h"

#include "bloom_slices.h"

/* ---- batches: building in memory, writing, reading back ---- */

/*
 * Rows of a full batch of filters of fbytes bytes: about BSL_BATCH_BYTES of
 * rows, or a quarter of the memory budget when that is more, widened (by
 * less than 2x) so that whole slices fill a page, at least 8, at most
 * BSL_MAX_ROWS: a batch's rows and their transpose then fit in the budget.
 * Larger batches mean fewer of them, so a lookup reads fewer heads and
 * slices.
 */
static uint32
batch_capacity(Size fbytes, Size budget)
{
	uint64		rows = Max(BSL_BATCH_BYTES, budget / 4) / Max(fbytes, 1);
	uint64		sb,
				per;

	rows = Max(rows, 8);
	rows = Min(rows, BSL_MAX_ROWS);
	sb = (rows + 7) / 8;
	per = BSL_USABLE / sb;
	sb = BSL_USABLE / per;
	rows = Min(sb * 8, BSL_MAX_ROWS);
	return (uint32) rows;
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
	b->cap = batch_capacity(b->fbytes, bs->budget);
	b->next = bs->builders;
	bs->builders = b;
	return bs->last = b;
}

/*
 * Write the builder's rows as one batch of contiguous pages: head, TIDs,
 * slices; remember it in bs->written.  The builder is empty afterwards.
 */
static void
flush_builder(BslBuild *bs, BslBuilder *b)
{
	Relation	index = bs->index;
	uint32		n = b->n,
				sb,
				spp,
				tpp = BSL_TIDS_PER_PAGE,
				nt,
				ns,
				i;
	uint64		m = b->shape.m;
	BlockNumber first;
	uint8	   *slices;
	char	   *page;
	BslHead    *head;
	BslDirEntry *e;

	if (n == 0)
		return;
	sb = (n + 7) / 8;
	spp = BSL_USABLE / sb;
	nt = (n + tpp - 1) / tpp;
	ns = (uint32) ((m + spp - 1) / spp);
	first = alloc_run(bs, 1 + nt + ns);

	slices = MemoryContextAllocExtended(bs->cxt, (Size) m * sb,
										MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
	bs_slices_from_rows(b->rows, n, b->fbytes, m, slices, sb);

	page = palloc0(BSL_USABLE);
	head = (BslHead *) page;
	head->m = m;
	head->seed = b->shape.seed;
	head->k = b->shape.k;
	head->layout = b->shape.layout;
	head->family = b->shape.family;
	head->nrows = n;
	head->ndead = 0;
	head->slice_bytes = sb;
	head->slices_per_page = spp;
	head->tids_per_page = tpp;
	head->n_tid_pages = nt;
	head->n_slice_pages = ns;
	bsl_write_new_page(index, first, page, MAXALIGN(sizeof(BslHead)) + sb,
				   BSL_KIND_HEAD, first);
	for (i = 0; i < nt; i++)
	{
		uint32		from = i * tpp,
					cnt = Min(tpp, n - from);

		bsl_write_new_page(index, first + 1 + i, (char *) (b->tids + from),
					   cnt * sizeof(ItemPointerData), BSL_KIND_TIDS, first);
	}
	for (i = 0; i < ns; i++)
	{
		uint64		j0 = (uint64) i * spp;
		uint64		cnt = Min((uint64) spp, m - j0);

		CHECK_FOR_INTERRUPTS();
		bsl_write_new_page(index, first + 1 + nt + i, (char *) slices + j0 * sb,
					   (Size) cnt * sb, BSL_KIND_SLICES, first);
	}
	pfree(page);
	pfree(slices);

	e = MemoryContextAlloc(bs->cxt, sizeof(BslDirEntry));
	e->head = first;
	e->npages = 1 + nt + ns;
	bs->written = lappend(bs->written, e);
	bs->rows_written += n;
	bs->k_written += b->shape.k;

	bs->memory -= (Size) b->alloc * b->fbytes;
	pfree(b->rows);
	pfree(b->tids);
	b->rows = NULL;
	b->tids = NULL;
	b->n = 0;
	b->alloc = 0;
}

void
bsl_flush_all(BslBuild *bs)
{
	BslBuilder *b;

	for (b = bs->builders; b != NULL; b = b->next)
		flush_builder(bs, b);
}

/*
 * Room for one more row in b.  Buffers grow by doubling, so that shapes
 * arriving interleaved share the budget by the rows each really has (a
 * buffer sized for a full batch up front would make every new shape write
 * the others out nearly empty); over the budget, the fullest batch, this
 * one or another, is written first.
 */
static void
builder_room(BslBuild *bs, BslBuilder *b)
{
	while (b->n == b->alloc)
	{
		uint32		want = b->alloc == 0 ?
			Min(b->cap, Max(8, BSL_FIRST_BYTES / b->fbytes)) :
			Min(b->cap, b->alloc * 2);
		Size		more = (Size) (want - b->alloc) * b->fbytes;
		BslBuilder *x,
				   *big = NULL;

		if (bs->memory > 0 && bs->memory + more > bs->budget)
		{
			for (x = bs->builders; x != NULL; x = x->next)
				if (x->n > 0 && (big == NULL || (Size) x->n * x->fbytes > (Size) big->n * big->fbytes))
					big = x;
			if (big != NULL)
			{
				flush_builder(bs, big);
				continue;
			}
		}
		if (b->rows == NULL)
		{
			b->rows = MemoryContextAllocExtended(bs->cxt, (Size) want * b->fbytes, MCXT_ALLOC_HUGE);
			b->tids = MemoryContextAlloc(bs->cxt, sizeof(ItemPointerData) * want);
		}
		else
		{
			b->rows = repalloc_huge(b->rows, (Size) want * b->fbytes);
			b->tids = repalloc(b->tids, sizeof(ItemPointerData) * want);
		}
		bs->memory += more;
		b->alloc = want;
	}
}

/* Add one row (bits of its shape); a full batch is written. */
void
bsl_build_add(BslBuild *bs, const BslShape *shape, const uint8 *bits, ItemPointer tid)
{
	BslBuilder *b = builder_for(bs, shape);

	builder_room(bs, b);
	memcpy(b->rows + (Size) b->n * b->fbytes, bits, b->fbytes);
	b->tids[b->n++] = *tid;
	if (b->n == b->cap)
		flush_builder(bs, b);
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

/* Whether a batch head is consistent with the directory entry that names it. */
bool
bsl_head_ok(const BslHead *h, const BslDirEntry *e)
{
	uint64		ns;

	if (h->nrows == 0 || h->nrows > BSL_MAX_ROWS || h->ndead > h->nrows ||
		h->slice_bytes != (h->nrows + 7) / 8 ||
		h->slices_per_page != BSL_USABLE / h->slice_bytes ||
		h->tids_per_page != BSL_TIDS_PER_PAGE ||
		h->n_tid_pages != (h->nrows + h->tids_per_page - 1) / h->tids_per_page ||
		h->m == 0 || h->k == 0 || h->k > BS_BLOOM_MAX_HASHES ||
		h->m > (uint64) BSL_MAX_FILTER_BYTES * 8)
		return false;
	ns = (h->m + h->slices_per_page - 1) / h->slices_per_page;
	return h->n_slice_pages == ns && e->npages == 1 + h->n_tid_pages + ns;
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
			   *rows;
	ItemPointerData *tids;
	BslShape	shape;
	Size		fbytes;
	uint32		i,
				live = 0;

	if (!bsl_read_batch_page(index, e->head, e->head, BSL_KIND_HEAD, strategy, hp) || !bsl_head_ok(h, e))
		bsl_corrupt(index, "a batch head is not valid", e->head);
	fbytes = (Size) ((h->m + 7) / 8);
	slices = MemoryContextAllocExtended(bs->cxt, (Size) h->m * h->slice_bytes, MCXT_ALLOC_HUGE);
	for (i = 0; i < h->n_slice_pages; i++)
	{
		uint64		j0 = (uint64) i * h->slices_per_page;
		uint64		cnt = Min((uint64) h->slices_per_page, h->m - j0);

		CHECK_FOR_INTERRUPTS();
		if (!bsl_read_batch_page(index, e->head + 1 + h->n_tid_pages + i, e->head,
							 BSL_KIND_SLICES, strategy, pg))
			bsl_corrupt(index, "a slice page is not its batch's", e->head + 1 + h->n_tid_pages + i);
		memcpy(slices + j0 * h->slice_bytes, pg, (Size) cnt * h->slice_bytes);
	}
	tids = palloc(sizeof(ItemPointerData) * h->nrows);
	for (i = 0; i < h->n_tid_pages; i++)
	{
		uint32		from = i * h->tids_per_page,
					cnt = Min(h->tids_per_page, h->nrows - from);

		if (!bsl_read_batch_page(index, e->head + 1 + i, e->head, BSL_KIND_TIDS, strategy, pg))
			bsl_corrupt(index, "a TID page is not its batch's", e->head + 1 + i);
		memcpy(tids + from, pg, cnt * sizeof(ItemPointerData));
	}
	rows = MemoryContextAllocExtended(bs->cxt, (Size) h->nrows * fbytes, MCXT_ALLOC_HUGE);
	bs_rows_from_slices(slices, h->slice_bytes, h->m, h->nrows, rows, fbytes);
	pfree(slices);

	shape.m = h->m;
	shape.seed = h->seed;
	shape.k = h->k;
	shape.layout = h->layout;
	shape.family = h->family;
	for (i = 0; i < h->nrows; i++)
	{
		if (BSL_HEAD_DEAD(h)[i / 8] & (1 << (i % 8)))
			continue;
		bsl_build_add(bs, &shape, rows + (Size) i * fbytes, &tids[i]);
		live++;
	}
	pfree(rows);
	pfree(tids);
	pfree(hp);
	pfree(pg);
	return live;
}
