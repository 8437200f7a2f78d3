/*
 * bloom_slices_page.c: the pages of a bloom_slices index (bloom_slices.h):
 * shapes and the check of an indexed value, page kinds, the meta page,
 * extension of the relation, new pages.
 */
#include "glue.h"

#include "access/generic_xlog.h"
#include "storage/bufmgr.h"
#include "storage/indexfsm.h"
#include "storage/lmgr.h"
#include "utils/rel.h"

#include "core/bloom.h"
#include "core/bloom_value.h"

#include "bloom_slices.h"

bool
bsl_shape_eq(const BslShape *a, const BslShape *b)
{
	return a->m == b->m && a->seed == b->seed && a->k == b->k &&
		a->layout == b->layout && a->family == b->family;
}

/* ---- values ---- */

/*
 * Check one indexed value (whole, detoasted bytes): a fixed bloom value of
 * at most BSL_MAX_FILTER_BYTES; ERROR otherwise.  Fills the shape and
 * points *bits at its bit array.
 */
void
bsl_check_value(uint8 *buf, Size len, BslShape *shape, const uint8 **bits)
{
	bs_bloom	b;

	BS_TRY(bs_validate(buf, len, BS_KIND_BLOOM, false, NULL, BS_ERR), 0);
	if (bs_bloom_is_growable(buf))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("a bloom_slices index cannot hold a growable bloom filter"),
				 errdetail("Only fixed filters (of bloom_empty(capacity, fpr) or bloom_empty_bits) are stored as bit slices."),
				 errhint("Make the column's filters fixed, or leave the column without a bloom_slices index.")));
	bs_bloom_view(buf, &b);
	if ((b.m + 7) / 8 > BSL_MAX_FILTER_BYTES)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("a bloom_slices index cannot hold a bloom filter of %llu bits",
						(unsigned long long) b.m),
				 errdetail("Filters of up to %llu bits are indexed.",
						   (unsigned long long) BSL_MAX_FILTER_BYTES * 8)));
	shape->m = b.m;
	shape->seed = b.seed;
	shape->k = b.k;
	shape->layout = b.layout;
	shape->family = b.family;
	*bits = b.bits;
}

/* ---- pages ---- */

void
bsl_init_page(Page page, uint16 kind, BlockNumber next)
{
	BslOpaque  *op;

	PageInit(page, BLCKSZ, sizeof(BslOpaque));
	op = BSL_OPAQUE(page);
	op->kind = kind;
	op->next = next;
	op->page_id = BSL_PAGE_ID;
}

/* Contents are used up to used bytes: the rest is the hole generic WAL skips. */
static void
set_used(Page page, Size used)
{
	((PageHeader) page)->pd_lower = BSL_CONTENTS_OFF + used;
}

bool
bsl_page_is(Page page, uint16 kind)
{
	return !PageIsNew(page) &&
		PageGetSpecialSize(page) == MAXALIGN(sizeof(BslOpaque)) &&
		BSL_OPAQUE(page)->page_id == BSL_PAGE_ID &&
		BSL_OPAQUE(page)->kind == kind;
}

void
bsl_init_meta(Page page)
{
	BslMeta    *meta;

	bsl_init_page(page, BSL_KIND_META, InvalidBlockNumber);
	meta = BSL_META(page);
	memset(meta, 0, offsetof(BslMeta, dir));
	meta->magic = BSL_MAGIC;
	meta->version = BSL_VERSION;
	meta->pending_head = 1;
	meta->pending_tail = 1;
	meta->pending_off = FirstOffsetNumber;
	meta->pending_pages = 1;
	set_used(page, offsetof(BslMeta, dir));
}

void
bsl_meta_set_used(Page page)
{
	set_used(page, offsetof(BslMeta, dir) + BSL_META(page)->nbatches * sizeof(BslDirEntry));
}

BslMeta *
bsl_check_meta(Relation index, Page page)
{
	BslMeta    *meta = BSL_META(page);

	if (!bsl_page_is(page, BSL_KIND_META) || meta->magic != BSL_MAGIC ||
		meta->nbatches > (uint32) BSL_MAX_BATCHES)
		ereport(ERROR,
				(errcode(ERRCODE_INDEX_CORRUPTED),
				 errmsg("index \"%s\" is not a valid bloom_slices index",
						RelationGetRelationName(index))));
	if (meta->version != BSL_VERSION)
		ereport(ERROR,
				(errcode(ERRCODE_INDEX_CORRUPTED),
				 errmsg("index \"%s\" has version %u of bloom_slices, this library reads %d",
						RelationGetRelationName(index), meta->version, BSL_VERSION),
				 errhint("REINDEX it.")));
	return meta;
}

/* A copy of the meta page's contents (palloc'd), read under a share lock. */
BslMeta *
bsl_read_meta(Relation index)
{
	Buffer		buf = ReadBuffer(index, BSL_META_BLKNO);
	BslMeta    *copy = palloc(BSL_USABLE);

	LockBuffer(buf, BUFFER_LOCK_SHARE);
	memcpy(copy, bsl_check_meta(index, BufferGetPage(buf)), BSL_USABLE);
	UnlockReleaseBuffer(buf);
	return copy;
}

/*
 * npages new contiguous pages at the end of the relation, returned
 * unlocked; the extension lock keeps other extenders out meanwhile.
 */
BlockNumber
bsl_extend_run(Relation index, uint32 npages)
{
	BlockNumber first = InvalidBlockNumber;
	uint32		i;

	LockRelationForExtension(index, ExclusiveLock);
	for (i = 0; i < npages; i++)
	{
		Buffer		buf = ReadBuffer(index, P_NEW);
		BlockNumber blk = BufferGetBlockNumber(buf);

		ReleaseBuffer(buf);
		if (i == 0)
			first = blk;
		else if (blk != first + i)
			elog(ERROR, "bloom_slices: relation extension gave block %u, expected %u",
				 blk, first + i);
	}
	UnlockRelationForExtension(index, ExclusiveLock);
	return first;
}

/* A page for the pending list, exclusively locked: a free one, else a new one. */
Buffer
bsl_new_pending_buffer(Relation index)
{
	Buffer		buf;

	for (;;)
	{
		BlockNumber blk = GetFreeIndexPage(index);

		if (blk == InvalidBlockNumber)
			break;
		buf = ReadBuffer(index, blk);
		if (ConditionalLockBuffer(buf))
		{
			Page		page = BufferGetPage(buf);

			if (PageIsNew(page) || bsl_page_is(page, BSL_KIND_DELETED))
				return buf;
			LockBuffer(buf, BUFFER_LOCK_UNLOCK);
		}
		ReleaseBuffer(buf);
	}
	LockRelationForExtension(index, ExclusiveLock);
	buf = ReadBuffer(index, P_NEW);
	LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
	UnlockRelationForExtension(index, ExclusiveLock);
	return buf;
}

/* Write a whole new page image (WAL: a full image). */
void
bsl_write_new_page(Relation index, BlockNumber blk, const char *contents, Size used,
			   uint16 kind, BlockNumber next)
{
	Buffer		buf = ReadBuffer(index, blk);
	GenericXLogState *state;
	Page		page;

	LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
	state = GenericXLogStart(index);
	page = GenericXLogRegisterBuffer(state, buf, GENERIC_XLOG_FULL_IMAGE);
	bsl_init_page(page, kind, next);
	memcpy(PageGetContents(page), contents, used);
	set_used(page, used);
	GenericXLogFinish(state);
	UnlockReleaseBuffer(buf);
}
