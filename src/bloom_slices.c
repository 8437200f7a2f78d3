/*
 * bloom_slices.c: the bloom_slices index access method (doc/architecture.md,
 * section "The bloom_slices index"; doc/reference.md, "bloom_slices").
 *
 * The index answers "in which rows' filters is this key?" by reading bit
 * slices: fixed bloom values of one shape (bits, hashes, seed, layout, key
 * family) are summarised in batches, each stored transposed (bitslice.h),
 * one slice of the batch's rows per filter bit.  A lookup of a key computes
 * the key's k bit positions for the batch's shape exactly as @> does
 * (bs_layout_positions, checked against bs_layout_contains by a unit test),
 * ANDs those k slices and the batch's live-row mask, and returns the rows
 * whose bit survives: exactly the rows whose own @> is true.
 *
 * Pages (block 0 the meta page; every page has the standard layout, its
 * kind in the special space):
 *   meta      counters, the head and tail of the pending list, and the
 *             directory of batches (first block and page count of each);
 *   pending   new rows, the whole bloom value of each, appended as items
 *             that may span pages (a chunk says where in the value it
 *             lies); lookups test them one by one;
 *   batch     contiguous pages: a head page (shape, row count, slice
 *             geometry, the dead-row bitmap), the heap TIDs of its rows,
 *             then its m slices, as many whole slices a page as fit.
 *
 * Every change is WAL-logged with the generic WAL API (access/generic_xlog.h),
 * as contrib/bloom does.  Locking, besides buffer locks: a heavyweight lock
 * on the meta page's tag (LockPage), AccessShare for a lookup,
 * ShareUpdateExclusive for the one process that summarises or vacuums,
 * which takes AccessExclusive for the moment it swaps the directory and
 * the pending head.  So a lookup never sees a directory and a pending list
 * that disagree, and pages freed by a summarise are reused only after every
 * lookup that could read them has ended.  Inserts take no heavyweight lock:
 * the meta page's buffer lock orders their appends.  On a hot standby
 * (where replay takes no such lock) a lookup checks the meta page's
 * generation after reading and reads again if a summarise was replayed
 * meanwhile.
 */
#include "glue.h"

#include <math.h>

#include "access/amapi.h"
#include "access/genam.h"
#include "access/htup_details.h"
#include "access/generic_xlog.h"
#include "access/reloptions.h"
#include "access/relscan.h"
#include "access/tableam.h"
#include "access/xlog.h"
#include "catalog/index.h"
#include "catalog/pg_class.h"
#include "commands/vacuum.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "nodes/pathnodes.h"
#include "nodes/tidbitmap.h"
#include "optimizer/optimizer.h"
#include "storage/bufmgr.h"
#include "storage/freespace.h"
#include "storage/indexfsm.h"
#include "storage/lmgr.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/selfuncs.h"
#include "utils/spccache.h"

#include "core/bitslice.h"
#include "core/bloom.h"
#include "core/bloom_value.h"

PG_FUNCTION_INFO_V1(bloom_slices_handler);
PG_FUNCTION_INFO_V1(bloom_slices_summarize);
PG_FUNCTION_INFO_V1(bloom_slices_info);

#define BSL_MAGIC 0x42534C31	/* "BSL1" */
#define BSL_VERSION 1
#define BSL_META_BLKNO 0
#define BSL_PAGE_ID 0xFF8B

/* PostgreSQL 18 tells vacuum_delay_point whether it is ANALYZE */
#if PG_VERSION_NUM >= 180000
#define BSL_VACUUM_DELAY() vacuum_delay_point(false)
#else
#define BSL_VACUUM_DELAY() vacuum_delay_point()
#endif

/* page kinds */
#define BSL_KIND_META 1
#define BSL_KIND_PENDING 2
#define BSL_KIND_HEAD 3
#define BSL_KIND_TIDS 4
#define BSL_KIND_SLICES 5
#define BSL_KIND_DELETED 6

typedef struct BslOpaque
{
	BlockNumber next;			/* pending: the next page; batch: its head */
	uint16		kind;
	uint16		page_id;
} BslOpaque;

#define BSL_OPAQUE(page) ((BslOpaque *) PageGetSpecialPointer(page))
#define BSL_CONTENTS_OFF MAXALIGN(SizeOfPageHeaderData)
/* bytes of a page below the special space */
#define BSL_USABLE (BLCKSZ - BSL_CONTENTS_OFF - MAXALIGN(sizeof(BslOpaque)))

/* a batch in the directory: its pages are head .. head + npages - 1 */
typedef struct BslDirEntry
{
	BlockNumber head;
	uint32		npages;
} BslDirEntry;

typedef struct BslMeta
{
	uint32		magic;
	uint32		version;
	uint64		generation;		/* +1 at every swap of directory or pending head */
	BlockNumber pending_head;
	BlockNumber pending_tail;
	uint16		pending_off;	/* the first item of the head page not summarised */
	uint16		spare;
	uint32		pending_pages;	/* pages from head to tail */
	uint64		pending_rows;	/* complete entries appended and not summarised */
	uint64		indexed_rows;	/* rows in batches, dead ones included */
	uint64		dead_rows;		/* rows of batches marked dead */
	uint64		sum_k;			/* the hashes of every batch, summed (the cost) */
	uint32		nbatches;
	BslDirEntry dir[FLEXIBLE_ARRAY_MEMBER];
} BslMeta;

#define BSL_MAX_BATCHES ((int) ((BSL_USABLE - offsetof(BslMeta, dir)) / sizeof(BslDirEntry)))
#define BSL_META(page) ((BslMeta *) PageGetContents(page))

typedef struct BslHead
{
	uint64		m;
	uint64		seed;
	uint32		k;
	uint32		layout;
	uint32		family;
	uint32		nrows;
	uint32		ndead;
	uint32		slice_bytes;	/* ceil(nrows / 8) */
	uint32		slices_per_page;
	uint32		tids_per_page;
	uint32		n_tid_pages;
	uint32		n_slice_pages;
	/* then the dead-row bitmap, slice_bytes bytes */
} BslHead;

#define BSL_HEAD_DEAD(h) ((uint8 *) (h) + MAXALIGN(sizeof(BslHead)))
/* rows a batch may hold: its dead bitmap fits in the head page */
#define BSL_MAX_ROWS ((uint32) (((BSL_USABLE - MAXALIGN(sizeof(BslHead))) * 8) & ~(Size) 63))
#define BSL_TIDS_PER_PAGE ((uint32) (BSL_USABLE / sizeof(ItemPointerData)))

/* A batch's rows in memory take at most this many bytes (then it is written). */
#define BSL_BATCH_BYTES ((Size) 64 * 1024 * 1024)
/* Filters larger than this are refused: a batch holds at least 8 of them. */
#define BSL_MAX_FILTER_BYTES (BSL_BATCH_BYTES / 8)
/* a batch's buffer starts at about this size and doubles */
#define BSL_FIRST_BYTES ((Size) 256 * 1024)
/* Pending pages past which an insert summarises (GIN's default pending list limit). */
#define BSL_PENDING_LIMIT_PAGES ((uint32) (4 * 1024 * 1024 / BLCKSZ))

/* a pending item: a chunk of one row's bloom value */
typedef struct BslChunk
{
	ItemPointerData tid;
	uint16		flags;
	uint32		off;			/* where in the value the chunk's bytes go */
	uint32		total;			/* the value's bytes */
	char		data[FLEXIBLE_ARRAY_MEMBER];
} BslChunk;

#define BSL_CHUNK_DEAD 1
#define BSL_CHUNK_HDR offsetof(BslChunk, data)
/* a chunk is not started in less room than this (the next page takes it) */
#define BSL_MIN_CHUNK 256

/* The shape that groups rows. */
typedef struct BslShape
{
	uint64		m;
	uint64		seed;
	uint32		k;
	uint32		layout;
	uint32		family;
} BslShape;

static bool
shape_eq(const BslShape *a, const BslShape *b)
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
static void
check_value(uint8 *buf, Size len, BslShape *shape, const uint8 **bits)
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

static void
init_page(Page page, uint16 kind, BlockNumber next)
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

static bool
page_is(Page page, uint16 kind)
{
	return !PageIsNew(page) &&
		PageGetSpecialSize(page) == MAXALIGN(sizeof(BslOpaque)) &&
		BSL_OPAQUE(page)->page_id == BSL_PAGE_ID &&
		BSL_OPAQUE(page)->kind == kind;
}

static void
init_meta(Page page)
{
	BslMeta    *meta;

	init_page(page, BSL_KIND_META, InvalidBlockNumber);
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

static void
meta_set_used(Page page)
{
	set_used(page, offsetof(BslMeta, dir) + BSL_META(page)->nbatches * sizeof(BslDirEntry));
}

static BslMeta *
check_meta(Relation index, Page page)
{
	BslMeta    *meta = BSL_META(page);

	if (!page_is(page, BSL_KIND_META) || meta->magic != BSL_MAGIC ||
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
static BslMeta *
read_meta(Relation index)
{
	Buffer		buf = ReadBuffer(index, BSL_META_BLKNO);
	BslMeta    *copy = palloc(BSL_USABLE);

	LockBuffer(buf, BUFFER_LOCK_SHARE);
	memcpy(copy, check_meta(index, BufferGetPage(buf)), BSL_USABLE);
	UnlockReleaseBuffer(buf);
	return copy;
}

/*
 * npages new contiguous pages at the end of the relation, returned
 * unlocked; the extension lock keeps other extenders out meanwhile.
 */
static BlockNumber
extend_run(Relation index, uint32 npages)
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
static Buffer
new_pending_buffer(Relation index)
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

			if (PageIsNew(page) || page_is(page, BSL_KIND_DELETED))
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
static void
write_new_page(Relation index, BlockNumber blk, const char *contents, Size used,
			   uint16 kind, BlockNumber next)
{
	Buffer		buf = ReadBuffer(index, blk);
	GenericXLogState *state;
	Page		page;

	LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
	state = GenericXLogStart(index);
	page = GenericXLogRegisterBuffer(state, buf, GENERIC_XLOG_FULL_IMAGE);
	init_page(page, kind, next);
	memcpy(PageGetContents(page), contents, used);
	set_used(page, used);
	GenericXLogFinish(state);
	UnlockReleaseBuffer(buf);
}

/* ---- batches: building in memory, writing, reading back ---- */

typedef struct BslBuilder
{
	BslShape	shape;
	Size		fbytes;			/* bytes of a row: ceil(m / 8) */
	uint32		cap;			/* rows of a full batch */
	uint32		n;
	uint32		alloc;			/* rows the buffers hold: grows to cap */
	uint8	   *rows;			/* alloc rows of fbytes */
	ItemPointerData *tids;
	struct BslBuilder *next;
} BslBuilder;

typedef struct BslBuild
{
	Relation	index;
	BslBuilder *builders;
	BslBuilder *last;			/* the last one used, tried first */
	Size		memory;			/* bytes of rows all builders' buffers hold */
	Size		budget;
	bool		reuse;			/* batches may take runs of free pages */
	List	   *written;		/* BslDirEntry * of the batches written */
	uint64		rows_written;
	uint64		k_written;		/* sum of k of the batches written */
	MemoryContext cxt;
} BslBuild;

/*
 * Rows of a full batch of filters of fbytes bytes: about BSL_BATCH_BYTES of
 * rows, widened so that whole slices fill a page, at least 8, at most
 * BSL_MAX_ROWS.
 */
static uint32
batch_capacity(Size fbytes)
{
	uint64		rows = BSL_BATCH_BYTES / Max(fbytes, 1);
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
			if (!PageIsNew(page) && !page_is(page, BSL_KIND_DELETED))
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
	return extend_run(index, npages);
}

static void
build_init(BslBuild *bs, Relation index, Size budget)
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

	if (bs->last != NULL && shape_eq(&bs->last->shape, shape))
		return bs->last;
	for (b = bs->builders; b != NULL; b = b->next)
		if (shape_eq(&b->shape, shape))
			return bs->last = b;
	b = MemoryContextAllocZero(bs->cxt, sizeof(BslBuilder));
	b->shape = *shape;
	b->fbytes = (Size) ((shape->m + 7) / 8);
	b->cap = batch_capacity(b->fbytes);
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
	write_new_page(index, first, page, MAXALIGN(sizeof(BslHead)) + sb,
				   BSL_KIND_HEAD, first);
	for (i = 0; i < nt; i++)
	{
		uint32		from = i * tpp,
					cnt = Min(tpp, n - from);

		write_new_page(index, first + 1 + i, (char *) (b->tids + from),
					   cnt * sizeof(ItemPointerData), BSL_KIND_TIDS, first);
	}
	for (i = 0; i < ns; i++)
	{
		uint64		j0 = (uint64) i * spp;
		uint64		cnt = Min((uint64) spp, m - j0);

		CHECK_FOR_INTERRUPTS();
		write_new_page(index, first + 1 + nt + i, (char *) slices + j0 * sb,
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

static void
flush_all(BslBuild *bs)
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
static void
build_add(BslBuild *bs, const BslShape *shape, const uint8 *bits, ItemPointer tid)
{
	BslBuilder *b = builder_for(bs, shape);

	builder_room(bs, b);
	memcpy(b->rows + (Size) b->n * b->fbytes, bits, b->fbytes);
	b->tids[b->n++] = *tid;
	if (b->n == b->cap)
		flush_builder(bs, b);
}

/* One page of a batch, read whole under a share lock; false if it is not the batch's. */
static bool
read_batch_page(Relation index, BlockNumber blk, BlockNumber head, uint16 kind,
				BufferAccessStrategy strategy, char *out)
{
	Buffer		buf = ReadBufferExtended(index, MAIN_FORKNUM, blk, RBM_NORMAL, strategy);
	Page		page;
	bool		ok;

	LockBuffer(buf, BUFFER_LOCK_SHARE);
	page = BufferGetPage(buf);
	ok = page_is(page, kind) && BSL_OPAQUE(page)->next == head;
	if (ok)
		memcpy(out, PageGetContents(page), BSL_USABLE);
	UnlockReleaseBuffer(buf);
	return ok;
}

/* Whether a batch head is consistent with the directory entry that names it. */
static bool
head_ok(const BslHead *h, const BslDirEntry *e)
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

static void
corrupt(Relation index, const char *what, BlockNumber blk)
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
static uint32
load_batch(BslBuild *bs, const BslDirEntry *e, BufferAccessStrategy strategy)
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

	if (!read_batch_page(index, e->head, e->head, BSL_KIND_HEAD, strategy, hp) || !head_ok(h, e))
		corrupt(index, "a batch head is not valid", e->head);
	fbytes = (Size) ((h->m + 7) / 8);
	slices = MemoryContextAllocExtended(bs->cxt, (Size) h->m * h->slice_bytes, MCXT_ALLOC_HUGE);
	for (i = 0; i < h->n_slice_pages; i++)
	{
		uint64		j0 = (uint64) i * h->slices_per_page;
		uint64		cnt = Min((uint64) h->slices_per_page, h->m - j0);

		CHECK_FOR_INTERRUPTS();
		if (!read_batch_page(index, e->head + 1 + h->n_tid_pages + i, e->head,
							 BSL_KIND_SLICES, strategy, pg))
			corrupt(index, "a slice page is not its batch's", e->head + 1 + h->n_tid_pages + i);
		memcpy(slices + j0 * h->slice_bytes, pg, (Size) cnt * h->slice_bytes);
	}
	tids = palloc(sizeof(ItemPointerData) * h->nrows);
	for (i = 0; i < h->n_tid_pages; i++)
	{
		uint32		from = i * h->tids_per_page,
					cnt = Min(h->tids_per_page, h->nrows - from);

		if (!read_batch_page(index, e->head + 1 + i, e->head, BSL_KIND_TIDS, strategy, pg))
			corrupt(index, "a TID page is not its batch's", e->head + 1 + i);
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
		build_add(bs, &shape, rows + (Size) i * fbytes, &tids[i]);
		live++;
	}
	pfree(rows);
	pfree(tids);
	pfree(hp);
	pfree(pg);
	return live;
}

/* ---- the pending list ---- */

/* Append one row's value to the pending list; returns the list's pages after. */
static uint32
pending_append(Relation index, ItemPointer tid, const uint8 *val, uint32 len)
{
	Buffer		metabuf = ReadBuffer(index, BSL_META_BLKNO);
	BslChunk   *chunk = palloc(BLCKSZ);
	uint32		pos = 0,
				pages;

	LockBuffer(metabuf, BUFFER_LOCK_EXCLUSIVE);
	(void) check_meta(index, BufferGetPage(metabuf));
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
		if (!page_is(BufferGetPage(tailbuf), BSL_KIND_PENDING))
			corrupt(index, "the pending list's tail is not a pending page", tailblk);
		space = PageGetFreeSpace(BufferGetPage(tailbuf));
		space = space >= BSL_CHUNK_HDR + MAXIMUM_ALIGNOF ?
			((space - BSL_CHUNK_HDR) & ~(Size) (MAXIMUM_ALIGNOF - 1)) : 0;
		if (space < Min(len - pos, BSL_MIN_CHUNK))
		{
			newbuf = new_pending_buffer(index);
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
			init_page(target, BSL_KIND_PENDING, InvalidBlockNumber);
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

/* What a walk of the pending list does with each complete entry. */
typedef void (*pending_fn) (void *arg, ItemPointer tid, uint8 *val, uint32 len);

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
static bool
pending_walk(Relation index, BlockNumber blk, OffsetNumber off,
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
				return false;
		}
		pages++;
		buf = ReadBufferExtended(index, MAIN_FORKNUM, blk, RBM_NORMAL, strategy);
		LockBuffer(buf, BUFFER_LOCK_SHARE);
		page = BufferGetPage(buf);
		if (!page_is(page, BSL_KIND_PENDING))
		{
			UnlockReleaseBuffer(buf);
			return false;
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
				return false;
			}
			clen = (uint32) (ilen - BSL_CHUNK_HDR);
			if (c->total == 0 || c->total > BSL_MAX_FILTER_BYTES + BS_HEADER_SIZE + 64 ||
				c->off > c->total || clen > c->total - c->off)
			{
				UnlockReleaseBuffer(buf);
				return false;
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

	check_value(val, len, &shape, &bits);
	build_add(ss->bs, &shape, bits, tid);
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
static uint64
summarize(Relation index, bool rebuild, BufferAccessStrategy strategy)
{
	BslMeta    *meta = read_meta(index);
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

	build_init(&bs, index, (Size) maintenance_work_mem * 1024);
	bs.reuse = true;
	ss.bs = &bs;
	ss.index = index;
	ss.rows = 0;
	if (!pending_walk(index, meta->pending_head, meta->pending_off, stop_blk, stop_off,
					  summarize_entry, &ss, strategy, &npages, &entries))
		corrupt(index, "the pending list is broken", meta->pending_head);

	/*
	 * Batches to rewrite: with rebuild, those at least half dead; and, so that
	 * a shape keeps few batches however often a few rows are summarised,
	 * merged into a shape's new rows, smallest first, every batch whose live
	 * rows are no more than the rows gathered so far (as a binary counter
	 * carries: a row is rewritten about log2 of its shape's rows times).
	 */
	removed = palloc0(sizeof(bool) * Max(meta->nbatches, 1));
	cands = palloc(sizeof(BslCand) * Max(meta->nbatches, 1));
	for (i = 0; i < meta->nbatches; i++)
	{
		BslHead    *h = (BslHead *) hp;

		if (!read_batch_page(index, meta->dir[i].head, meta->dir[i].head, BSL_KIND_HEAD,
							 strategy, hp) || !head_ok(h, &meta->dir[i]))
			corrupt(index, "a batch head is not valid", meta->dir[i].head);
		cands[i].i = i;
		cands[i].live = h->nrows - h->ndead;
		cands[i].nrows = h->nrows;
		cands[i].ndead = h->ndead;
		cands[i].k = h->k;
		cands[i].shape.m = h->m;
		cands[i].shape.seed = h->seed;
		cands[i].shape.k = h->k;
		cands[i].shape.layout = h->layout;
		cands[i].shape.family = h->family;
	}
	qsort(cands, meta->nbatches, sizeof(BslCand), cand_cmp);
	for (c = 0; c < meta->nbatches; c++)
	{
		BslCand    *cd = &cands[c];
		bool		take = rebuild && cd->ndead * 2 >= cd->nrows;

		if (!take)
			for (b = bs.builders; b != NULL; b = b->next)
				if (shape_eq(&b->shape, &cd->shape) && b->n > 0 &&
					cd->live <= b->n && b->n + cd->live <= b->cap)
					take = true;
		if (take)
		{
			removed[cd->i] = true;
			nremoved++;
			removed_rows += cd->nrows;
			removed_dead += cd->ndead;
			removed_k += cd->k;
			(void) load_batch(&bs, &meta->dir[cd->i], strategy);
		}
	}
	pfree(cands);
	flush_all(&bs);

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
	wm = check_meta(index, wpage);
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
	meta_set_used(wpage);
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
	meta = check_meta(index, BufferGetPage(metabuf));
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
		next = page_is(BufferGetPage(buf), BSL_KIND_PENDING) ?
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
		if (!PageIsNew(page) && !page_is(page, BSL_KIND_DELETED))
		{
			GenericXLogState *state = GenericXLogStart(index);

			page = GenericXLogRegisterBuffer(state, buf, GENERIC_XLOG_FULL_IMAGE);
			init_page(page, BSL_KIND_DELETED, InvalidBlockNumber);
			GenericXLogFinish(state);
		}
		UnlockReleaseBuffer(buf);
		RecordFreeIndexPage(index, blk);
	}
	UnlockReleaseBuffer(metabuf);
	pfree(used);
	IndexFreeSpaceMapVacuum(index);
}

/* ---- build ---- */

typedef struct BuildState
{
	BslBuild	bs;
	double		tuples;
	MemoryContext tmp;
} BuildState;

static void
build_callback(Relation index, ItemPointer tid, Datum *values, bool *isnull,
			   bool tupleIsAlive, void *arg)
{
	BuildState *st = arg;
	MemoryContext old;
	bytea	   *v;
	BslShape	shape;
	const uint8 *bits;

	if (isnull[0])
		return;
	old = MemoryContextSwitchTo(st->tmp);
	v = PG_DETOAST_DATUM(values[0]);
	check_value((uint8 *) VARDATA(v), VARSIZE(v) - VARHDRSZ, &shape, &bits);
	MemoryContextSwitchTo(old);
	build_add(&st->bs, &shape, bits, tid);
	st->tuples++;
	MemoryContextReset(st->tmp);
}

static void
write_meta_page(Relation index, Page src)
{
	write_new_page(index, BSL_META_BLKNO, PageGetContents(src),
				   ((PageHeader) src)->pd_lower - BSL_CONTENTS_OFF, BSL_KIND_META,
				   InvalidBlockNumber);
}

static IndexBuildResult *
bsl_build(Relation heap, Relation index, IndexInfo *indexInfo)
{
	IndexBuildResult *result;
	BuildState	st;
	double		reltuples;
	PGAlignedBlock meta_page;
	BslMeta    *meta;
	ListCell   *lc;
	char	   *empty = palloc0(BSL_USABLE);

	if (RelationGetNumberOfBlocks(index) != 0)
		elog(ERROR, "index \"%s\" already contains data", RelationGetRelationName(index));

	/* meta page and an empty pending page first: blocks 0 and 1 */
	if (extend_run(index, 2) != BSL_META_BLKNO)
		elog(ERROR, "bloom_slices: the meta page is not block 0");
	init_meta(meta_page.data);
	write_meta_page(index, meta_page.data);
	write_new_page(index, 1, empty, 0, BSL_KIND_PENDING, InvalidBlockNumber);

	memset(&st, 0, sizeof(st));
	build_init(&st.bs, index, (Size) maintenance_work_mem * 1024);
	st.tmp = AllocSetContextCreate(CurrentMemoryContext, "bloom_slices build row",
								   ALLOCSET_DEFAULT_SIZES);
	reltuples = table_index_build_scan(heap, index, indexInfo, true, true,
									   build_callback, &st, NULL);
	flush_all(&st.bs);

	if (list_length(st.bs.written) > BSL_MAX_BATCHES)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("bloom_slices index \"%s\" would need %d batches, more than %d",
						RelationGetRelationName(index), list_length(st.bs.written),
						BSL_MAX_BATCHES),
				 errhint("Raise maintenance_work_mem: a batch holds up to 64 MB of filters, fewer when several shapes share the memory.")));
	meta = BSL_META(meta_page.data);
	foreach(lc, st.bs.written)
		meta->dir[meta->nbatches++] = *(BslDirEntry *) lfirst(lc);
	meta->indexed_rows = st.bs.rows_written;
	meta->sum_k = st.bs.k_written;
	meta_set_used(meta_page.data);
	write_meta_page(index, meta_page.data);

	MemoryContextDelete(st.bs.cxt);
	MemoryContextDelete(st.tmp);
	pfree(empty);

	result = palloc(sizeof(IndexBuildResult));
	result->heap_tuples = reltuples;
	result->index_tuples = st.tuples;
	return result;
}

static void
bsl_buildempty(Relation index)
{
	Buffer		buf;

	/* meta page and an empty pending page, in the init fork */
	buf = ReadBufferExtended(index, INIT_FORKNUM, P_NEW, RBM_NORMAL, NULL);
	LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
	START_CRIT_SECTION();
	init_meta(BufferGetPage(buf));
	MarkBufferDirty(buf);
	log_newpage_buffer(buf, true);
	END_CRIT_SECTION();
	UnlockReleaseBuffer(buf);

	buf = ReadBufferExtended(index, INIT_FORKNUM, P_NEW, RBM_NORMAL, NULL);
	LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
	START_CRIT_SECTION();
	init_page(BufferGetPage(buf), BSL_KIND_PENDING, InvalidBlockNumber);
	MarkBufferDirty(buf);
	log_newpage_buffer(buf, true);
	END_CRIT_SECTION();
	UnlockReleaseBuffer(buf);
}

/* ---- insert ---- */

static bool
bsl_insert(Relation index, Datum *values, bool *isnull, ItemPointer ht_ctid,
		   Relation heapRel, IndexUniqueCheck checkUnique, bool indexUnchanged,
		   IndexInfo *indexInfo)
{
	bytea	   *v;
	BslShape	shape;
	const uint8 *bits;
	uint32		pages;

	if (isnull[0])
		return false;
	v = PG_DETOAST_DATUM(values[0]);
	check_value((uint8 *) VARDATA(v), VARSIZE(v) - VARHDRSZ, &shape, &bits);
	pages = pending_append(index, ht_ctid, (uint8 *) VARDATA(v), VARSIZE(v) - VARHDRSZ);
	if (pages > BSL_PENDING_LIMIT_PAGES &&
		ConditionalLockPage(index, BSL_META_BLKNO, ShareUpdateExclusiveLock))
	{
		(void) summarize(index, false, NULL);
		UnlockPage(index, BSL_META_BLKNO, ShareUpdateExclusiveLock);
	}
	if ((Pointer) v != DatumGetPointer(values[0]))
		pfree(v);
	return false;
}

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

static IndexScanDesc
bsl_beginscan(Relation index, int nkeys, int norderbys)
{
	IndexScanDesc scan = RelationGetIndexScan(index, nkeys, norderbys);

	scan->opaque = palloc0(sizeof(BslScan));
	return scan;
}

static void
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

static void
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
	uint8	   *acc;
	uint64		pos[BS_BLOOM_MAX_HASHES];
	uint32		i,
				r,
				cur_tid_page = UINT32_MAX;
	int			key;
	bool		any = true;

	if (!read_batch_page(index, e->head, e->head, BSL_KIND_HEAD, NULL, hp) || !head_ok(h, e))
		return false;
	acc = palloc(h->slice_bytes);
	for (i = 0; i < h->slice_bytes; i++)
		acc[i] = (uint8) ~BSL_HEAD_DEAD(h)[i];
	if (h->nrows % 8)
		acc[h->slice_bytes - 1] &= (uint8) ((1u << (h->nrows % 8)) - 1);
	for (key = 0; key < f->so->nkeys && any; key++)
	{
		BslKey	   *k = &f->so->keys[key];

		bs_check_family((uint8_t) h->family, &k->ki, "bloom filter");
		bs_layout_positions(h->layout, h->m, h->k, bs_key_hash(&k->ki, k->value, h->seed), pos);
		for (i = 0; i < h->k && any; i++)
		{
			uint32		sp = (uint32) (pos[i] / h->slices_per_page);
			uint8	   *s = (uint8 *) pg + (pos[i] % h->slices_per_page) * h->slice_bytes;
			uint32		b;

			if (!read_batch_page(index, e->head + 1 + h->n_tid_pages + sp, e->head,
								 BSL_KIND_SLICES, NULL, pg))
			{
				pfree(acc);
				return false;
			}
			any = false;
			for (b = 0; b < h->slice_bytes; b++)
				if ((acc[b] &= s[b]) != 0)
					any = true;
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
			if (!read_batch_page(index, e->head + 1 + tp, e->head, BSL_KIND_TIDS, NULL, pg))
			{
				pfree(acc);
				return false;
			}
			cur_tid_page = tp;
		}
		found_add(f, (ItemPointer) (pg + (r % h->tids_per_page) * sizeof(ItemPointerData)));
	}
	pfree(acc);
	return true;
}

static int64
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
		BslMeta    *meta = read_meta(index);
		BslMeta    *after;
		bool		ok;
		uint32		npages,
					i;
		uint64		entries;

		f.n = 0;
		ok = pending_walk(index, meta->pending_head, meta->pending_off, InvalidBlockNumber, 0,
						  scan_entry, &f, NULL, &npages, &entries);
		for (i = 0; ok && i < meta->nbatches; i++)
		{
			CHECK_FOR_INTERRUPTS();
			ok = scan_batch(index, &meta->dir[i], &f, hp, pg);
		}
		/* on a primary the lock keeps the generation; on a standby, replay may change it */
		if (ok && !RecoveryInProgress())
			break;
		after = read_meta(index);
		if (ok && after->generation == meta->generation)
			break;
		/* only replay on a standby changes what the lock protects */
		if (!RecoveryInProgress() || attempt >= 100)
			corrupt(index, ok ? "the index changed during a lookup" :
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

/* ---- vacuum ---- */

static IndexBulkDeleteResult *
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
	meta = read_meta(index);

	/* batches: dead rows get their bit in the head's dead bitmap */
	for (i = 0; i < meta->nbatches; i++)
	{
		BslDirEntry *e = &meta->dir[i];
		BslHead    *h = (BslHead *) hp;
		uint8	   *mark;
		uint32		r,
					nnew = 0;

		if (!read_batch_page(index, e->head, e->head, BSL_KIND_HEAD, info->strategy, hp) ||
			!head_ok(h, e))
			corrupt(index, "a batch head is not valid", e->head);
		mark = palloc0(h->slice_bytes);
		for (r = 0; r < h->nrows; r++)
		{
			ItemPointer tid;

			if (r % h->tids_per_page == 0)
			{
				BSL_VACUUM_DELAY();
				if (!read_batch_page(index, e->head + 1 + r / h->tids_per_page, e->head,
									 BSL_KIND_TIDS, info->strategy, tp))
					corrupt(index, "a TID page is not its batch's", e->head + 1 + r / h->tids_per_page);
			}
			if (BSL_HEAD_DEAD(h)[r / 8] & (1 << (r % 8)))
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
		if (nnew > 0)
		{
			Buffer		buf = ReadBufferExtended(index, MAIN_FORKNUM, e->head, RBM_NORMAL,
												 info->strategy);
			GenericXLogState *state;
			Page		page;
			BslHead    *wh;

			LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
			state = GenericXLogStart(index);
			page = GenericXLogRegisterBuffer(state, buf, 0);
			wh = (BslHead *) PageGetContents(page);
			for (r = 0; r < h->slice_bytes; r++)
				BSL_HEAD_DEAD(wh)[r] |= mark[r];
			wh->ndead += nnew;
			GenericXLogFinish(state);
			UnlockReleaseBuffer(buf);
			newly_dead += nnew;
			stats->tuples_removed += nnew;
		}
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
		if (!page_is(page, BSL_KIND_PENDING))
			corrupt(index, "the pending list is broken", blk);
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
		check_meta(index, GenericXLogRegisterBuffer(state, metabuf, 0))->dead_rows += newly_dead;
		GenericXLogFinish(state);
		UnlockReleaseBuffer(metabuf);
	}
	UnlockPage(index, BSL_META_BLKNO, ShareUpdateExclusiveLock);
	pfree(meta);
	pfree(tp);
	pfree(hp);
	return stats;
}

static IndexBulkDeleteResult *
bsl_vacuumcleanup(IndexVacuumInfo *info, IndexBulkDeleteResult *stats)
{
	Relation	index = info->index;
	BslMeta    *meta;

	if (info->analyze_only)
		return stats;
	if (stats == NULL)
		stats = palloc0(sizeof(IndexBulkDeleteResult));
	LockPage(index, BSL_META_BLKNO, ShareUpdateExclusiveLock);
	(void) summarize(index, true, info->strategy);
	UnlockPage(index, BSL_META_BLKNO, ShareUpdateExclusiveLock);
	meta = read_meta(index);
	stats->num_pages = RelationGetNumberOfBlocks(index);
	stats->num_index_tuples = (double) (meta->indexed_rows - meta->dead_rows + meta->pending_rows);
	stats->estimated_count = false;
	pfree(meta);
	return stats;
}

/* ---- planning ---- */

static void
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
				nkeys = Max(list_length(path->indexclauses), 1);

	MemSet(&costs, 0, sizeof(costs));
	genericcostestimate(root, path, loop_count, &costs);

	rel = index_open(index->indexoid, AccessShareLock);
	meta = read_meta(rel);
	index_close(rel, AccessShareLock);

	get_tablespace_page_costs(index->reltablespace, &random_page_cost, NULL);
	/* a head and k slices per batch and key, the pending list, the TIDs found */
	pages = meta->nbatches + nkeys * (double) meta->sum_k + meta->pending_pages +
		ceil(costs.numIndexTuples / BSL_TIDS_PER_PAGE);
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

static bytea *
bsl_options(Datum reloptions, bool validate)
{
	if (validate && DatumGetPointer(reloptions) != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("bloom_slices indexes take no storage parameters")));
	return NULL;
}

static bool
bsl_validate(Oid opclassoid)
{
	return true;
}

Datum
bloom_slices_handler(PG_FUNCTION_ARGS)
{
	IndexAmRoutine *am = makeNode(IndexAmRoutine);

	am->amstrategies = 1;
	am->amsupport = 0;
	am->amoptsprocnum = 0;
	am->amcanorder = false;
	am->amcanorderbyop = false;
#if PG_VERSION_NUM >= 180000
	am->amcanhash = false;
	am->amconsistentequality = false;
	am->amconsistentordering = false;
#endif
	am->amcanbackward = false;
	am->amcanunique = false;
	am->amcanmulticol = false;
	am->amoptionalkey = false;
	am->amsearcharray = false;
	am->amsearchnulls = false;
	am->amstorage = false;
	am->amclusterable = false;
	am->ampredlocks = false;
	am->amcanparallel = false;
#if PG_VERSION_NUM >= 170000
	am->amcanbuildparallel = false;
#endif
	am->amcaninclude = false;
	am->amusemaintenanceworkmem = false;
#if PG_VERSION_NUM >= 160000
	am->amsummarizing = false;
#endif
	am->amparallelvacuumoptions = VACUUM_OPTION_NO_PARALLEL;
	am->amkeytype = InvalidOid;

	am->ambuild = bsl_build;
	am->ambuildempty = bsl_buildempty;
	am->aminsert = bsl_insert;
#if PG_VERSION_NUM >= 170000
	am->aminsertcleanup = NULL;
#endif
	am->ambulkdelete = bsl_bulkdelete;
	am->amvacuumcleanup = bsl_vacuumcleanup;
	am->amcanreturn = NULL;
	am->amcostestimate = bsl_costestimate;
#if PG_VERSION_NUM >= 180000
	am->amgettreeheight = NULL;
#endif
	am->amoptions = bsl_options;
	am->amproperty = NULL;
	am->ambuildphasename = NULL;
	am->amvalidate = bsl_validate;
	am->amadjustmembers = NULL;
	am->ambeginscan = bsl_beginscan;
	am->amrescan = bsl_rescan;
	am->amgettuple = NULL;
	am->amgetbitmap = bsl_getbitmap;
	am->amendscan = bsl_endscan;
	am->ammarkpos = NULL;
	am->amrestrpos = NULL;
	am->amestimateparallelscan = NULL;
	am->aminitparallelscan = NULL;
	am->amparallelrescan = NULL;
#if PG_VERSION_NUM >= 180000
	am->amtranslatestrategy = NULL;
	am->amtranslatecmptype = NULL;
#endif
	PG_RETURN_POINTER(am);
}

/* ---- SQL functions ---- */

/* The index, opened with lockmode, after checking that it is one of ours. */
static Relation
open_bsl_index(Oid relid, LOCKMODE lockmode, bool must_own)
{
	Relation	index = index_open(relid, lockmode);

	if (index->rd_rel->relkind != RELKIND_INDEX ||
		index->rd_indam->ambuild != bsl_build)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" is not a bloom_slices index", RelationGetRelationName(index))));
	if (RELATION_IS_OTHER_TEMP(index))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cannot access temporary indexes of other sessions")));
#if PG_VERSION_NUM >= 160000
	if (must_own && !object_ownercheck(RelationRelationId, relid, GetUserId()))
#else
	if (must_own && !pg_class_ownercheck(relid, GetUserId()))
#endif
		aclcheck_error(ACLCHECK_NOT_OWNER, OBJECT_INDEX, RelationGetRelationName(index));
	return index;
}

/* bloom_slices_summarize(regclass): the pending rows into batches now; returns them. */
Datum
bloom_slices_summarize(PG_FUNCTION_ARGS)
{
	Relation	index;
	uint64		rows;

	if (RecoveryInProgress())
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("recovery is in progress"),
				 errhint("bloom_slices_summarize() cannot run during recovery.")));
	index = open_bsl_index(PG_GETARG_OID(0), RowExclusiveLock, true);
	LockPage(index, BSL_META_BLKNO, ShareUpdateExclusiveLock);
	rows = summarize(index, false, NULL);
	UnlockPage(index, BSL_META_BLKNO, ShareUpdateExclusiveLock);
	index_close(index, RowExclusiveLock);
	PG_RETURN_INT64((int64) rows);
}

/* bloom_slices_info(regclass): what the meta page counts. */
Datum
bloom_slices_info(PG_FUNCTION_ARGS)
{
	Relation	index = open_bsl_index(PG_GETARG_OID(0), AccessShareLock, false);
	BslMeta    *meta;
	TupleDesc	tupdesc;
	Datum		values[7];
	bool		nulls[7] = {0};

	/* its counts tell about the table's rows: for those who may read them */
	if (pg_class_aclcheck(index->rd_index->indrelid, GetUserId(), ACL_SELECT) != ACLCHECK_OK)
		aclcheck_error(ACLCHECK_NO_PRIV, OBJECT_TABLE, get_rel_name(index->rd_index->indrelid));
	meta = read_meta(index);

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "bloom_slices_info: return type must be a row type");
	values[0] = Int64GetDatum(meta->nbatches);
	values[1] = Int64GetDatum((int64) meta->indexed_rows);
	values[2] = Int64GetDatum((int64) meta->dead_rows);
	values[3] = Int64GetDatum((int64) meta->pending_rows);
	values[4] = Int64GetDatum(meta->pending_pages);
	values[5] = Int64GetDatum((int64) (meta->nbatches + meta->sum_k));
	values[6] = Int64GetDatum(RelationGetNumberOfBlocks(index));
	pfree(meta);
	index_close(index, AccessShareLock);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}
