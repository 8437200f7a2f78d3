/*
 * bloom_slices_scan.c: lookups in a bloom_slices index (bloom_slices.h):
 * the scan callbacks, getbitmap over the pending list and the batches, and
 * the planner's cost estimate.
 */
#include "glue.h"

#include <math.h>

#include "access/genam.h"
#include "access/relscan.h"
#include "access/xlog.h"
#include "miscadmin.h"
#include "nodes/pathnodes.h"
#include "nodes/tidbitmap.h"
#include "optimizer/optimizer.h"
#include "storage/bufmgr.h"
#include "storage/lmgr.h"
#include "utils/rel.h"
#include "utils/selfuncs.h"
#include "utils/spccache.h"

#include "core/bitslice.h"
#include "core/bloom.h"
#include "core/bloom_value.h"

#include "bloom_slices.h"

/* ---- scans ---- */

typedef struct BslKey
{
	bs_key_info ki;
	Datum		value;
} BslKey;

typedef struct BslScan
{
	int			nkeys;
	bool		never;			/* a NULL key: no row matches */
	BslKey	   *keys;
} BslScan;

IndexScanDesc
bsl_beginscan(Relation index, int nkeys, int norderbys)
{
	IndexScanDesc scan = RelationGetIndexScan(index, nkeys, norderbys);

	scan->opaque = palloc0(sizeof(BslScan));
	return scan;
}

void
bsl_rescan(IndexScanDesc scan, ScanKey scankey, int nscankeys,
		   ScanKey orderbys, int norderbys)
{
	BslScan    *so = scan->opaque;
	int			i;

	if (scankey && scan->numberOfKeys > 0)
		memmove(scan->keyData, scankey, scan->numberOfKeys * sizeof(ScanKeyData));
	so->nkeys = scan->numberOfKeys;
	so->never = false;
	so->keys = palloc(sizeof(BslKey) * Max(so->nkeys, 1));
	for (i = 0; i < so->nkeys; i++)
	{
		ScanKey		sk = &scan->keyData[i];

		if (sk->sk_flags & SK_ISNULL)
		{
			so->never = true;
			continue;
		}
		if (!OidIsValid(sk->sk_subtype))
			elog(ERROR, "bloom_slices: a scan key without a key type");
		bs_key_info_init(&so->keys[i].ki, sk->sk_subtype);
		so->keys[i].value = sk->sk_argument;
	}
}

void
bsl_endscan(IndexScanDesc scan)
{
}

/* Collected TIDs of one pass over the index. */
typedef struct Found
{
	ItemPointerData *tids;
	int64		n;
	int64		cap;
	BslScan    *so;
} Found;

static void
found_add(Found *f, ItemPointer tid)
{
	if (f->n == f->cap)
	{
		f->cap = Max(f->cap * 2, 256);
		f->tids = f->tids ? repalloc_huge(f->tids, sizeof(ItemPointerData) * f->cap) :
			MemoryContextAllocHuge(CurrentMemoryContext, sizeof(ItemPointerData) * f->cap);
	}
	f->tids[f->n++] = *tid;
}

/* A pending row: the lookup @> does, key by key. */
static void
scan_entry(void *arg, ItemPointer tid, uint8 *val, uint32 len)
{
	Found	   *f = arg;
	bs_bloom_value bv;
	int			i;

	BS_TRY(bs_validate(val, len, BS_KIND_BLOOM, false, NULL, BS_ERR), 0);
	bs_bloom_value_view(val, &bv);
	for (i = 0; i < f->so->nkeys; i++)
	{
		bs_check_family(bv.family, &f->so->keys[i].ki, "bloom filter");
		if (!bs_bloom_value_contains(&bv, bs_key_hash(&f->so->keys[i].ki, f->so->keys[i].value, bv.seed)))
			return;
	}
	found_add(f, tid);
}

/*
 * The batch's rows whose filter holds every key: the AND of the keys'
 * slices and of the live-row mask.  false if a page is not the batch's.
 */
static bool
scan_batch(Relation index, const BslDirEntry *e, Found *f, char *hp, char *pg)
{
	BslHead    *h = (BslHead *) hp;
	uint8	   *acc,
			   *s;
	uint64		pos[BS_BLOOM_MAX_HASHES];
	uint32		i,
				r,
				cur_tid_page = UINT32_MAX;
	int			key;
	bool		any = true,
				ok = true;

	if (!bsl_read_batch_page(index, e->head, e->head, BSL_KIND_HEAD, NULL, hp) || !bsl_head_ok(h, e))
		return false;
	acc = palloc(h->slice_bytes);
	s = palloc(h->slice_bytes);
	if (!bsl_read_batch_bytes(index, e, BSL_DEAD_BLK(e), BSL_KIND_DEAD, 0, h->slice_bytes, NULL,
							  (char *) acc))
		ok = any = false;
	for (i = 0; any && i < h->slice_bytes; i++)
		acc[i] = (uint8) ~acc[i];
	if (any && h->nrows % 8)
		acc[h->slice_bytes - 1] &= (uint8) ((1u << (h->nrows % 8)) - 1);
	for (key = 0; key < f->so->nkeys && any; key++)
	{
		BslKey	   *k = &f->so->keys[key];

		bs_check_family((uint8_t) h->family, &k->ki, "bloom filter");
		bs_layout_positions(h->layout, h->m, h->k, bs_key_hash(&k->ki, k->value, h->seed), pos);
		for (i = 0; i < h->k && any; i++)
		{
			uint32		b;

			if (!bsl_read_batch_bytes(index, e, BSL_SLICE_BLK(e, h), BSL_KIND_SLICES,
									  pos[i] * h->slice_bytes, h->slice_bytes, NULL, (char *) s))
				ok = any = false;
			else
			{
				any = false;
				for (b = 0; b < h->slice_bytes; b++)
					if ((acc[b] &= s[b]) != 0)
						any = true;
			}
		}
	}
	for (r = 0; any && r < h->nrows; r++)
	{
		uint32		tp;

		if ((acc[r / 8] & (1 << (r % 8))) == 0)
		{
			if (acc[r / 8] == 0)
				r |= 7;
			continue;
		}
		tp = r / h->tids_per_page;
		if (tp != cur_tid_page)
		{
			if (!bsl_read_batch_page(index, BSL_TID_BLK(e, h) + tp, e->head, BSL_KIND_TIDS, NULL, pg))
			{
				ok = false;
				break;
			}
			cur_tid_page = tp;
		}
		found_add(f, (ItemPointer) (pg + (r % h->tids_per_page) * sizeof(ItemPointerData)));
	}
	pfree(acc);
	pfree(s);
	return ok;
}

int64
bsl_getbitmap(IndexScanDesc scan, TIDBitmap *tbm)
{
	Relation	index = scan->indexRelation;
	BslScan    *so = scan->opaque;
	Found		f;
	int			attempt;
	int64		done;
	char	   *hp,
			   *pg;

	if (so->never || so->nkeys == 0)
		return 0;
	hp = palloc(BSL_USABLE);
	pg = palloc(BSL_USABLE);
	memset(&f, 0, sizeof(f));
	f.so = so;
	LockPage(index, BSL_META_BLKNO, AccessShareLock);
	for (attempt = 0;; attempt++)
	{
		BslMeta    *meta = bsl_read_meta(index);
		BslMeta    *after;
		bool		ok;
		uint32		npages,
					i;
		uint64		entries;

		f.n = 0;
		ok = bsl_pending_walk(index, meta->pending_head, meta->pending_off, InvalidBlockNumber, 0,
						  scan_entry, &f, NULL, &npages, &entries);
		for (i = 0; ok && i < meta->nbatches; i++)
		{
			CHECK_FOR_INTERRUPTS();
			ok = scan_batch(index, &meta->dir[i], &f, hp, pg);
		}
		/* on a primary the lock keeps the generation; on a standby, replay may change it */
		if (ok && !RecoveryInProgress())
			break;
		after = bsl_read_meta(index);
		if (ok && after->generation == meta->generation)
			break;
		/* only replay on a standby changes what the lock protects */
		if (!RecoveryInProgress() || attempt >= 100)
			bsl_corrupt(index, ok ? "the index changed during a lookup" :
					"a page is not what the index says", BSL_META_BLKNO);
		pfree(meta);
		pfree(after);
	}
	UnlockPage(index, BSL_META_BLKNO, AccessShareLock);
	/* tbm_add_tuples takes an int count: hand over the TIDs in chunks */
	for (done = 0; done < f.n; done += Min(f.n - done, INT_MAX))
		tbm_add_tuples(tbm, f.tids + done, (int) Min(f.n - done, INT_MAX), false);
	if (f.tids)
		pfree(f.tids);
	pfree(hp);
	pfree(pg);
	return f.n;
}

/* ---- planning ---- */

void
bsl_costestimate(PlannerInfo *root, IndexPath *path, double loop_count,
				 Cost *indexStartupCost, Cost *indexTotalCost,
				 Selectivity *indexSelectivity, double *indexCorrelation,
				 double *indexPages)
{
	IndexOptInfo *index = path->indexinfo;
	GenericCosts costs;
	Relation	rel;
	BslMeta    *meta;
	double		random_page_cost,
				pages,
				slice_pages,
				nkeys = Max(list_length(path->indexclauses), 1);

	MemSet(&costs, 0, sizeof(costs));
	genericcostestimate(root, path, loop_count, &costs);

	rel = index_open(index->indexoid, AccessShareLock);
	meta = bsl_read_meta(rel);
	index_close(rel, AccessShareLock);

	get_tablespace_page_costs(index->reltablespace, &random_page_cost, NULL);
	/*
	 * Per batch a head, its dead-row bitmap and k slices a key, a slice of a
	 * batch of n rows spanning about 1 + n / (8 BSL_USABLE) pages (from the
	 * mean batch); the pending list; the TIDs found.
	 */
	slice_pages = 1 + (double) meta->indexed_rows / (8.0 * BSL_USABLE * Max(meta->nbatches, 1));
	pages = meta->nbatches * (1 + slice_pages) + nkeys * (double) meta->sum_k * slice_pages +
		meta->pending_pages + ceil(costs.numIndexTuples / BSL_TIDS_PER_PAGE);
	*indexStartupCost = 0;
	*indexTotalCost = pages * random_page_cost +
		costs.numIndexTuples * cpu_index_tuple_cost +
		(double) meta->pending_rows * nkeys * cpu_operator_cost +
		costs.indexTotalCost - costs.numIndexPages * random_page_cost;
	if (*indexTotalCost < pages * random_page_cost)
		*indexTotalCost = pages * random_page_cost;
	*indexSelectivity = costs.indexSelectivity;
	*indexCorrelation = 0;
	*indexPages = pages;
	pfree(meta);
}
