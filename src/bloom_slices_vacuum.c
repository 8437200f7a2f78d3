/*
 * bloom_slices_vacuum.c: VACUUM of a bloom_slices index (bloom_slices.h):
 * bulkdelete marks dead rows, vacuumcleanup summarises.
 */
#include "glue.h"

#include "access/genam.h"
#include "access/generic_xlog.h"
#include "commands/vacuum.h"
#include "port/pg_bitutils.h"
#include "storage/bufmgr.h"
#include "storage/lmgr.h"
#include "utils/rel.h"

#include "bloom_slices.h"

/* PostgreSQL 18 tells vacuum_delay_point whether it is ANALYZE */
#if PG_VERSION_NUM >= 180000
#define BSL_VACUUM_DELAY() vacuum_delay_point(false)
#else
#define BSL_VACUUM_DELAY() vacuum_delay_point()
#endif

/* ---- vacuum ---- */

IndexBulkDeleteResult *
bsl_bulkdelete(IndexVacuumInfo *info, IndexBulkDeleteResult *stats,
			   IndexBulkDeleteCallback callback, void *callback_state)
{
	Relation	index = info->index;
	BslMeta    *meta;
	char	   *tp = palloc(BSL_USABLE),
			   *hp = palloc(BSL_USABLE);
	uint32		i;
	uint64		newly_dead = 0;
	BlockNumber blk;
	OffsetNumber off;

	if (stats == NULL)
		stats = palloc0(sizeof(IndexBulkDeleteResult));
	LockPage(index, BSL_META_BLKNO, ShareUpdateExclusiveLock);
	meta = bsl_read_meta(index);

	/*
	 * batches: dead rows get their bit in the dead-row bitmap, each page of
	 * it WAL-logged with the head's count in one record
	 */
	for (i = 0; i < meta->nbatches; i++)
	{
		BslDirEntry *e = &meta->dir[i];
		BslHead    *h = (BslHead *) hp;
		uint8	   *dead,
				   *mark;
		uint32		r,
					p,
					nnew = 0;

		if (!bsl_read_batch_page(index, e->head, e->head, BSL_KIND_HEAD, info->strategy, hp) ||
			!bsl_head_ok(h, e))
			bsl_corrupt(index, "a batch head is not valid", e->head);
		dead = palloc(h->slice_bytes);
		mark = palloc0(h->slice_bytes);
		if (!bsl_read_batch_bytes(index, e, BSL_DEAD_BLK(e), BSL_KIND_DEAD, 0, h->slice_bytes,
								  info->strategy, (char *) dead))
			bsl_corrupt(index, "a dead-row page is not its batch's", BSL_DEAD_BLK(e));
		for (r = 0; r < h->nrows; r++)
		{
			ItemPointer tid;

			if (r % h->tids_per_page == 0)
			{
				BSL_VACUUM_DELAY();
				if (!bsl_read_batch_page(index, BSL_TID_BLK(e, h) + r / h->tids_per_page, e->head,
										 BSL_KIND_TIDS, info->strategy, tp))
					bsl_corrupt(index, "a TID page is not its batch's", BSL_TID_BLK(e, h) + r / h->tids_per_page);
			}
			if (dead[r / 8] & (1 << (r % 8)))
				continue;
			tid = (ItemPointer) (tp + (r % h->tids_per_page) * sizeof(ItemPointerData));
			if (callback(tid, callback_state))
			{
				mark[r / 8] |= 1 << (r % 8);
				nnew++;
			}
			else
				stats->num_index_tuples++;
		}
		for (p = 0; nnew > 0 && p < h->n_dead_pages; p++)
		{
			uint32		from = p * BSL_USABLE,
						to = Min(h->slice_bytes, from + BSL_USABLE),
						cnt = 0,
						x;
			Buffer		hbuf,
						dbuf;
			GenericXLogState *state;
			Page		page;

			for (x = from; x < to; x++)
				cnt += pg_popcount32(mark[x]);
			if (cnt == 0)
				continue;
			hbuf = ReadBufferExtended(index, MAIN_FORKNUM, e->head, RBM_NORMAL, info->strategy);
			dbuf = ReadBufferExtended(index, MAIN_FORKNUM, BSL_DEAD_BLK(e) + p, RBM_NORMAL,
									  info->strategy);
			LockBuffer(hbuf, BUFFER_LOCK_EXCLUSIVE);
			LockBuffer(dbuf, BUFFER_LOCK_EXCLUSIVE);
			if (!bsl_page_is(BufferGetPage(dbuf), BSL_KIND_DEAD) ||
				BSL_OPAQUE(BufferGetPage(dbuf))->next != e->head)
				bsl_corrupt(index, "a dead-row page is not its batch's", BSL_DEAD_BLK(e) + p);
			state = GenericXLogStart(index);
			((BslHead *) PageGetContents(GenericXLogRegisterBuffer(state, hbuf, 0)))->ndead += cnt;
			page = GenericXLogRegisterBuffer(state, dbuf, 0);
			for (x = from; x < to; x++)
				((uint8 *) PageGetContents(page))[x - from] |= mark[x];
			GenericXLogFinish(state);
			UnlockReleaseBuffer(dbuf);
			UnlockReleaseBuffer(hbuf);
			newly_dead += cnt;
			stats->tuples_removed += cnt;
		}
		pfree(dead);
		pfree(mark);
	}

	/* pending rows: the first chunk of a dead row is marked */
	blk = meta->pending_head;
	off = meta->pending_off;
	while (BlockNumberIsValid(blk))
	{
		Buffer		buf = ReadBufferExtended(index, MAIN_FORKNUM, blk, RBM_NORMAL, info->strategy);
		Page		page;
		OffsetNumber o,
					maxoff;
		GenericXLogState *state = NULL;

		BSL_VACUUM_DELAY();
		LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
		page = BufferGetPage(buf);
		if (!bsl_page_is(page, BSL_KIND_PENDING))
			bsl_corrupt(index, "the pending list is broken", blk);
		maxoff = PageGetMaxOffsetNumber(page);
		for (o = off; o <= maxoff; o = OffsetNumberNext(o))
		{
			ItemId		iid = PageGetItemId(page, o);
			BslChunk   *c = (BslChunk *) PageGetItem(page, iid);

			if (ItemIdGetLength(iid) < BSL_CHUNK_HDR || c->off != 0 ||
				(c->flags & BSL_CHUNK_DEAD))
				continue;
			if (callback(&c->tid, callback_state))
			{
				if (state == NULL)
				{
					state = GenericXLogStart(index);
					page = GenericXLogRegisterBuffer(state, buf, 0);
					c = (BslChunk *) PageGetItem(page, PageGetItemId(page, o));
				}
				c->flags |= BSL_CHUNK_DEAD;
				stats->tuples_removed++;
			}
			else
				stats->num_index_tuples++;
		}
		blk = BSL_OPAQUE(page)->next;
		if (state)
			GenericXLogFinish(state);
		UnlockReleaseBuffer(buf);
		off = FirstOffsetNumber;
	}

	if (newly_dead > 0)
	{
		Buffer		metabuf = ReadBuffer(index, BSL_META_BLKNO);
		GenericXLogState *state;

		LockBuffer(metabuf, BUFFER_LOCK_EXCLUSIVE);
		state = GenericXLogStart(index);
		bsl_check_meta(index, GenericXLogRegisterBuffer(state, metabuf, 0))->dead_rows += newly_dead;
		GenericXLogFinish(state);
		UnlockReleaseBuffer(metabuf);
	}
	UnlockPage(index, BSL_META_BLKNO, ShareUpdateExclusiveLock);
	pfree(meta);
	pfree(tp);
	pfree(hp);
	return stats;
}

IndexBulkDeleteResult *
bsl_vacuumcleanup(IndexVacuumInfo *info, IndexBulkDeleteResult *stats)
{
	Relation	index = info->index;
	BslMeta    *meta;

	if (info->analyze_only)
		return stats;
	if (stats == NULL)
		stats = palloc0(sizeof(IndexBulkDeleteResult));
	LockPage(index, BSL_META_BLKNO, ShareUpdateExclusiveLock);
	(void) bsl_summarize(index, true, info->strategy);
	UnlockPage(index, BSL_META_BLKNO, ShareUpdateExclusiveLock);
	meta = bsl_read_meta(index);
	stats->num_pages = RelationGetNumberOfBlocks(index);
	stats->num_index_tuples = (double) (meta->indexed_rows - meta->dead_rows + meta->pending_rows);
	stats->estimated_count = false;
	pfree(meta);
	return stats;
}
