/*
 * bloom_slices_pending.c: the pending list of a bloom_slices index
 * (bloom_slices.h): appending rows, walking it, summarising it into
 * batches, and the sweep that frees the pages a summarise replaced.
 */
#include "glue.h"

#include "access/generic_xlog.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "storage/freespace.h"
#include "storage/indexfsm.h"
#include "storage/lmgr.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "bloom_slices.h"

/* ---- the pending list ---- */

/* Append one row's value to the pending list; returns the list's pages after. */
uint32
bsl_pending_append(Relation index, ItemPointer tid, const uint8 *val, uint32 len)
{
	Buffer		metabuf = ReadBuffer(index, BSL_META_BLKNO);
	BslChunk   *chunk = palloc(BLCKSZ);
	uint32		pos = 0,
				pages;

	LockBuffer(metabuf, BUFFER_LOCK_EXCLUSIVE);
	(void) bsl_check_meta(index, BufferGetPage(metabuf));
	while (pos < len)
	{
		BlockNumber tailblk = BSL_META(BufferGetPage(metabuf))->pending_tail;
		Buffer		tailbuf = ReadBuffer(index, tailblk);
		Buffer		newbuf = InvalidBuffer;
		GenericXLogState *state;
		Page		metapage,
					tailpage,
					target;
		Size		space;
		uint32		clen;

		LockBuffer(tailbuf, BUFFER_LOCK_EXCLUSIVE);
		if (!bsl_page_is(BufferGetPage(tailbuf), BSL_KIND_PENDING))
			bsl_corrupt(index, "the pending list's tail is not a pending page", tailblk);
		space = PageGetFreeSpace(BufferGetPage(tailbuf));
		space = space >= BSL_CHUNK_HDR + MAXIMUM_ALIGNOF ?
			((space - BSL_CHUNK_HDR) & ~(Size) (MAXIMUM_ALIGNOF - 1)) : 0;
		if (space < Min(len - pos, BSL_MIN_CHUNK))
		{
			newbuf = bsl_new_pending_buffer(index);
			space = (BSL_USABLE - sizeof(ItemIdData) - BSL_CHUNK_HDR) & ~(Size) (MAXIMUM_ALIGNOF - 1);
		}
		clen = (uint32) Min((Size) (len - pos), space);
		chunk->tid = *tid;
		chunk->flags = 0;
		chunk->off = pos;
		chunk->total = len;
		memcpy(chunk->data, val + pos, clen);

		state = GenericXLogStart(index);
		metapage = GenericXLogRegisterBuffer(state, metabuf, 0);
		tailpage = GenericXLogRegisterBuffer(state, tailbuf, 0);
		target = tailpage;
		if (BufferIsValid(newbuf))
		{
			BslMeta    *meta = BSL_META(metapage);

			target = GenericXLogRegisterBuffer(state, newbuf, GENERIC_XLOG_FULL_IMAGE);
			bsl_init_page(target, BSL_KIND_PENDING, InvalidBlockNumber);
			BSL_OPAQUE(tailpage)->next = BufferGetBlockNumber(newbuf);
			meta->pending_tail = BufferGetBlockNumber(newbuf);
			meta->pending_pages++;
		}
		if (PageAddItem(target, (Item) chunk, BSL_CHUNK_HDR + clen,
						InvalidOffsetNumber, false, false) == InvalidOffsetNumber)
			elog(ERROR, "bloom_slices: could not add a pending chunk of %u bytes", clen);
		pos += clen;
		if (pos == len)
			BSL_META(metapage)->pending_rows++;
		GenericXLogFinish(state);
		if (BufferIsValid(newbuf))
			UnlockReleaseBuffer(newbuf);
		UnlockReleaseBuffer(tailbuf);
	}
	pages = BSL_META(BufferGetPage(metabuf))->pending_pages;
	UnlockReleaseBuffer(metabuf);
	pfree(chunk);
	return pages;
}

/*
 * Walk the pending list from (blk, off) up to the end, or up to and
 * including item stop_off of page stop_blk: call fn for each complete
 * entry not marked dead.  Entries are reassembled from their chunks; a
 * chunk that does not continue the entry being read ends it (a crash
 * between two chunks of an insert leaves an incomplete entry, of a row
 * that was never committed).  Returns false if a page is not what the
 * list says (on a standby: a summarise replayed meanwhile); *npages gets
 * the pages read, *entries the complete entries, dead or not.
 */
bool
bsl_pending_walk(Relation index, BlockNumber blk, OffsetNumber off,
			 BlockNumber stop_blk, OffsetNumber stop_off,
			 pending_fn fn, void *arg, BufferAccessStrategy strategy,
			 uint32 *npages, uint64 *entries)
{
	BlockNumber nblocks = RelationGetNumberOfBlocks(index);
	uint8	   *val = NULL;
	uint32		have = 0,
				total = 0,
				cap = 0;
	ItemPointerData tid;
	bool		dead = false;
	uint32		pages = 0;

	*entries = 0;
	ItemPointerSetInvalid(&tid);
	while (BlockNumberIsValid(blk))
	{
		Buffer		buf;
		Page		page;
		OffsetNumber o,
					maxoff;
		BlockNumber next;
		bool		last = (blk == stop_blk);

		CHECK_FOR_INTERRUPTS();
		if (blk >= nblocks || pages >= nblocks)
		{
			/* an insert may have extended the index and the list meanwhile */
			nblocks = RelationGetNumberOfBlocks(index);
			if (blk >= nblocks || pages >= nblocks)
				goto broken;
		}
		pages++;
		buf = ReadBufferExtended(index, MAIN_FORKNUM, blk, RBM_NORMAL, strategy);
		LockBuffer(buf, BUFFER_LOCK_SHARE);
		page = BufferGetPage(buf);
		if (!bsl_page_is(page, BSL_KIND_PENDING))
		{
			UnlockReleaseBuffer(buf);
			goto broken;
		}
		maxoff = PageGetMaxOffsetNumber(page);
		if (last && stop_off < maxoff)
			maxoff = stop_off;
		for (o = off; o <= maxoff; o = OffsetNumberNext(o))
		{
			ItemId		iid = PageGetItemId(page, o);
			BslChunk   *c = (BslChunk *) PageGetItem(page, iid);
			Size		ilen = ItemIdGetLength(iid);
			uint32		clen;

			if (!ItemIdHasStorage(iid) || ilen < BSL_CHUNK_HDR)
			{
				UnlockReleaseBuffer(buf);
				goto broken;
			}
			clen = (uint32) (ilen - BSL_CHUNK_HDR);
			if (c->total == 0 || c->total > BSL_MAX_FILTER_BYTES + BS_HEADER_SIZE + 64 ||
				c->off > c->total || clen > c->total - c->off)
			{
				UnlockReleaseBuffer(buf);
				goto broken;
			}
			if (c->off == 0)
			{
				/* a new entry; one left incomplete before it is dropped */
				tid = c->tid;
				dead = (c->flags & BSL_CHUNK_DEAD) != 0;
				total = c->total;
				have = 0;
				if (cap < total)
				{
					if (val)
						pfree(val);
					val = palloc(total);
					cap = total;
				}
			}
			else if (c->off != have || c->total != total || !ItemPointerEquals(&c->tid, &tid))
			{
				total = 0;		/* not a continuation: skip it */
				continue;
			}
			if (total == 0)
				continue;
			memcpy(val + have, c->data, clen);
			have += clen;
			if (have == total)
			{
				(*entries)++;
				if (!dead)
					fn(arg, &tid, val, total);
				total = 0;
			}
		}
		next = BSL_OPAQUE(page)->next;
		UnlockReleaseBuffer(buf);
		if (last)
			break;
		blk = next;
		off = FirstOffsetNumber;
	}
	if (val)
		pfree(val);
	*npages = pages;
	return true;

broken:
	/* the caller may retry (a standby) or raise an error: free the value either way */
	if (val)
		pfree(val);
	return false;
}

/* ---- summarise ---- */

typedef struct SummarizeState
{
	BslBuild   *bs;
	Relation	index;
	uint64		rows;
} SummarizeState;

static void
summarize_entry(void *arg, ItemPointer tid, uint8 *val, uint32 len)
{
	SummarizeState *ss = arg;
	BslShape	shape;
	const uint8 *bits;

	bsl_check_value(val, len, &shape, &bits);
	bsl_build_add(ss->bs, &shape, bits, tid);
	ss->rows++;
}

static void sweep_free_pages(Relation index, BufferAccessStrategy strategy);

/* A batch that a summarise may rewrite. */
typedef struct BslCand
{
	uint32		i;				/* in the directory */
	uint32		live;
	uint32		nrows;
	uint32		ndead;
	uint32		k;
	bool		loadable;		/* small enough to read back into memory */
	BslShape	shape;
} BslCand;

static int
cand_cmp(const void *a, const void *b)
{
	const BslCand *x = a,
			   *y = b;

	if (x->live != y->live)
		return x->live < y->live ? -1 : 1;
	return x->i < y->i ? -1 : (x->i > y->i);
}

/*
 * Move the pending rows into batches; with rebuild, also rewrite batches
 * that are half dead.  A shape's smallest batch, when under half full, is
 * merged with the shape's new rows, so batches stay near full.  The caller
 * holds the meta tag in ShareUpdateExclusive mode.  Returns the rows
 * summarised.
 */
uint64
bsl_summarize(Relation index, bool rebuild, BufferAccessStrategy strategy)
{
	BslMeta    *meta = bsl_read_meta(index);
	BlockNumber stop_blk = meta->pending_tail;
	OffsetNumber stop_off;
	BslBuild	bs;
	SummarizeState ss;
	uint32		npages;
	uint64		entries;
	bool	   *removed;
	uint64		removed_rows = 0,
				removed_dead = 0,
				removed_k = 0;
	uint32		i,
				nremoved = 0;
	BslBuilder *b;
	Buffer		metabuf;
	GenericXLogState *state;
	BslMeta    *wm;
	Page		wpage;
	ListCell   *lc;
	BslCand    *cands;
	char		hp[BSL_USABLE];
	uint32		c;

	/* the end of the list now: what later inserts append stays pending */
	{
		Buffer		mb = ReadBuffer(index, BSL_META_BLKNO),
					tb;

		LockBuffer(mb, BUFFER_LOCK_SHARE);
		stop_blk = BSL_META(BufferGetPage(mb))->pending_tail;
		tb = ReadBuffer(index, stop_blk);
		LockBuffer(tb, BUFFER_LOCK_SHARE);
		stop_off = PageGetMaxOffsetNumber(BufferGetPage(tb));
		UnlockReleaseBuffer(tb);
		UnlockReleaseBuffer(mb);
	}

	bsl_build_init(&bs, index, (Size) maintenance_work_mem * 1024);
	bs.reuse = true;
	ss.bs = &bs;
	ss.index = index;
	ss.rows = 0;
	if (!bsl_pending_walk(index, meta->pending_head, meta->pending_off, stop_blk, stop_off,
					  summarize_entry, &ss, strategy, &npages, &entries))
		bsl_corrupt(index, "the pending list is broken", meta->pending_head);

	/*
	 * Batches to rewrite: with rebuild, those at least half dead; and, so that
	 * a shape keeps few batches however often a few rows are summarised,
	 * merged into a shape's new rows, smallest first, every batch whose live
	 * rows are no more than the rows gathered so far (as a binary counter
	 * carries: a row is rewritten about log2 of its shape's rows times), up
	 * to a run of memory.  Batches that fit in memory are read back
	 * (bsl_batch_loadable); a larger half-dead one, such as a build's, is
	 * rewritten slice by slice, without its dead rows, into its shape's new
	 * batch.
	 */
	removed = palloc0(sizeof(bool) * Max(meta->nbatches, 1));
	cands = palloc(sizeof(BslCand) * Max(meta->nbatches, 1));
	for (i = 0; i < meta->nbatches; i++)
	{
		BslHead    *h = (BslHead *) hp;

		if (!bsl_read_batch_page(index, meta->dir[i].head, meta->dir[i].head, BSL_KIND_HEAD,
							 strategy, hp) || !bsl_head_ok(h, &meta->dir[i]))
			bsl_corrupt(index, "a batch head is not valid", meta->dir[i].head);
		cands[i].i = i;
		cands[i].live = h->nrows - h->ndead;
		cands[i].nrows = h->nrows;
		cands[i].ndead = h->ndead;
		cands[i].k = h->k;
		cands[i].loadable = bsl_batch_loadable(&bs, h);
		bsl_head_shape(h, &cands[i].shape);
	}
	qsort(cands, meta->nbatches, sizeof(BslCand), cand_cmp);
	for (c = 0; c < meta->nbatches; c++)
	{
		BslCand    *cd = &cands[c];
		bool		take = rebuild && cd->ndead * 2 >= cd->nrows;

		if (!take && cd->loadable)
			for (b = bs.builders; b != NULL; b = b->next)
				if (bsl_shape_eq(&b->shape, &cd->shape) && b->total > 0 &&
					cd->live <= b->total && b->total + cd->live <= b->cap)
					take = true;
		if (!take)
			continue;
		removed[cd->i] = true;
		nremoved++;
		removed_rows += cd->nrows;
		removed_dead += cd->ndead;
		removed_k += cd->k;
		/* one too large to read back is rewritten slice by slice with its shape's batch */
		if (cd->loadable)
			(void) bsl_load_batch(&bs, &meta->dir[cd->i], strategy);
		else
			(void) bsl_stream_batch(&bs, &meta->dir[cd->i], strategy);
	}
	pfree(cands);
	bsl_flush_all(&bs);

	if (entries == 0 && nremoved == 0 && bs.written == NIL)
	{
		MemoryContextDelete(bs.cxt);
		return 0;
	}
	if ((int) (meta->nbatches - nremoved + list_length(bs.written)) > BSL_MAX_BATCHES)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("bloom_slices index \"%s\" would have more than %d batches",
						RelationGetRelationName(index), BSL_MAX_BATCHES),
				 errhint("REINDEX it: a build makes full batches.")));

	/* swap: no lookup runs meanwhile */
	LockPage(index, BSL_META_BLKNO, AccessExclusiveLock);
	metabuf = ReadBuffer(index, BSL_META_BLKNO);
	LockBuffer(metabuf, BUFFER_LOCK_EXCLUSIVE);
	state = GenericXLogStart(index);
	wpage = GenericXLogRegisterBuffer(state, metabuf, 0);
	wm = bsl_check_meta(index, wpage);
	{
		uint32		n = 0;

		for (i = 0; i < meta->nbatches; i++)
			if (!removed[i])
				wm->dir[n++] = meta->dir[i];
		foreach(lc, bs.written)
			wm->dir[n++] = *(BslDirEntry *) lfirst(lc);
		wm->nbatches = n;
	}
	wm->pending_head = stop_blk;
	wm->pending_off = OffsetNumberNext(stop_off);
	wm->pending_pages -= Min(wm->pending_pages - 1, npages - 1);
	wm->pending_rows -= Min(wm->pending_rows, entries);
	wm->indexed_rows = wm->indexed_rows - removed_rows + bs.rows_written;
	wm->dead_rows -= Min(wm->dead_rows, removed_dead);
	wm->sum_k = wm->sum_k - removed_k + bs.k_written;
	wm->generation++;
	bsl_meta_set_used(wpage);
	GenericXLogFinish(state);
	UnlockReleaseBuffer(metabuf);
	UnlockPage(index, BSL_META_BLKNO, AccessExclusiveLock);

	MemoryContextDelete(bs.cxt);
	pfree(removed);
	pfree(meta);
	sweep_free_pages(index, strategy);
	return ss.rows;
}

/*
 * Mark every page that neither the directory nor the pending list holds as
 * deleted and give it to the free space map: the pending pages and batches
 * a summarise replaced, and pages a crash left unlinked.  Inserts take new
 * pages only under the meta page's exclusive lock, and a summarise (the
 * only other source of pages) is excluded by the caller's lock, so holding
 * the meta page's share lock makes the set of used pages stable.
 */
static void
sweep_free_pages(Relation index, BufferAccessStrategy strategy)
{
	Buffer		metabuf = ReadBuffer(index, BSL_META_BLKNO);
	BslMeta    *meta;
	BlockNumber nblocks,
				blk;
	uint8	   *used;
	uint32		i;

	LockBuffer(metabuf, BUFFER_LOCK_SHARE);
	meta = bsl_check_meta(index, BufferGetPage(metabuf));
	nblocks = RelationGetNumberOfBlocks(index);
	used = palloc0(nblocks / 8 + 1);
	used[0] |= 1;
	for (i = 0; i < meta->nbatches; i++)
		for (blk = meta->dir[i].head; blk < meta->dir[i].head + meta->dir[i].npages && blk < nblocks; blk++)
			used[blk / 8] |= 1 << (blk % 8);
	for (blk = meta->pending_head, i = 0; BlockNumberIsValid(blk) && blk < nblocks && i < nblocks; i++)
	{
		Buffer		buf = ReadBufferExtended(index, MAIN_FORKNUM, blk, RBM_NORMAL, strategy);
		BlockNumber next;

		LockBuffer(buf, BUFFER_LOCK_SHARE);
		used[blk / 8] |= 1 << (blk % 8);
		next = bsl_page_is(BufferGetPage(buf), BSL_KIND_PENDING) ?
			BSL_OPAQUE(BufferGetPage(buf))->next : InvalidBlockNumber;
		UnlockReleaseBuffer(buf);
		blk = next;
	}
	for (blk = 1; blk < nblocks; blk++)
	{
		Buffer		buf;
		Page		page;

		if (used[blk / 8] & (1 << (blk % 8)))
			continue;
		if (GetRecordedFreeSpace(index, blk) >= BLCKSZ / 2)
			continue;			/* already free */
		CHECK_FOR_INTERRUPTS();
		buf = ReadBufferExtended(index, MAIN_FORKNUM, blk, RBM_NORMAL, strategy);
		LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
		page = BufferGetPage(buf);
		if (!PageIsNew(page) && !bsl_page_is(page, BSL_KIND_DELETED))
		{
			GenericXLogState *state = GenericXLogStart(index);

			page = GenericXLogRegisterBuffer(state, buf, GENERIC_XLOG_FULL_IMAGE);
			bsl_init_page(page, BSL_KIND_DELETED, InvalidBlockNumber);
			GenericXLogFinish(state);
		}
		UnlockReleaseBuffer(buf);
		RecordFreeIndexPage(index, blk);
	}
	UnlockReleaseBuffer(metabuf);
	pfree(used);
	IndexFreeSpaceMapVacuum(index);
}
